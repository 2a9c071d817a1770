/* GL debug output fails the call that caused it (desc.debug or
 * GPGPU_GL_DEBUG=1), as the Vulkan validation layer fails test_vulkan: a GL
 * error provoked through the executor (which the public calls' own checks
 * never let through), and messages inserted with no GL error behind them,
 * which only the debug callback can see. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gl/gl_internal.h"
#include "testlib.h"

/* A message inserted into ctx's own GL context, made current as a call makes it (the call
 * that follows puts back what the thread had current). */
static void insert(gpgpu_context *ctx, GLenum type, GLenum severity, const char *text)
{
    EXPECT_STATUS(ctx, gl_platform_make_current(ctx, gl_of(ctx)), GPGPU_SUCCESS);
    gl_of(ctx)->gl.DebugMessageInsert(GL_DEBUG_SOURCE_APPLICATION, type, 1, severity, -1, text);
}

/* The next call fails with BACKEND and `text` in its message, and the one after it works. */
static void expect_failure(gpgpu_context *ctx, const char *text, const char *what)
{
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), GPGPU_ERROR_BACKEND);
    EXPECT(strstr(gpgpu_last_error(ctx), text), "%s: the message does not say \"%s\": %s", what,
           text, gpgpu_last_error(ctx));
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), GPGPU_SUCCESS);
}

int main(void)
{
    gpgpu_context *ctx = test_context(); /* desc.debug */
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    if (strcmp(info.backend, "gl") != 0) {
        fprintf(stderr, "skipped: GL only\n");
        return TEST_SKIPPED;
    }

    /* A GL error: a write past the end of the GL buffer (gpgpu_buffer_upload
     * would refuse it with OUT_OF_RANGE before GL saw it). 4096 bytes: the GL
     * buffer is no larger (core/kept.h rounds smaller sizes up to 4 KiB). */
    gpgpu_buffer *buf = test_buffer(ctx, NULL, 4096);
    uint32_t words[4] = {0};
    EXPECT_STATUS(ctx, ctx->exec->buffer_write(buf, 4096, words, sizeof words),
                  GPGPU_ERROR_BACKEND);
    EXPECT(strstr(gpgpu_last_error(ctx), "GL debug output: "),
           "a GL error came without the driver's debug message: %s", gpgpu_last_error(ctx));
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), GPGPU_SUCCESS);

    /* Errors and undefined behaviour with no GL error, at any severity. */
    insert(ctx, GL_DEBUG_TYPE_ERROR, GL_DEBUG_SEVERITY_LOW, "test error");
    expect_failure(ctx, "GL debug output: test error", "type error");
    insert(ctx, GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR, GL_DEBUG_SEVERITY_MEDIUM, "test UB");
    expect_failure(ctx, "GL debug output: test UB", "type undefined behaviour");
    insert(ctx, GL_DEBUG_TYPE_OTHER, GL_DEBUG_SEVERITY_HIGH, "test high");
    expect_failure(ctx, "GL debug output: test high", "severity high");
    /* The first message is the one reported. */
    insert(ctx, GL_DEBUG_TYPE_ERROR, GL_DEBUG_SEVERITY_LOW, "first");
    insert(ctx, GL_DEBUG_TYPE_ERROR, GL_DEBUG_SEVERITY_LOW, "second");
    expect_failure(ctx, "GL debug output: first", "two messages");
    /* Performance and portability notes are not failures. */
    insert(ctx, GL_DEBUG_TYPE_PERFORMANCE, GL_DEBUG_SEVERITY_MEDIUM, "test performance");
    insert(ctx, GL_DEBUG_TYPE_PORTABILITY, GL_DEBUG_SEVERITY_LOW, "test portability");
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), GPGPU_SUCCESS);
    /* These failures were wanted: testlib counts the others. */
    test_gl_debug_failures = 0;

    /* GPGPU_GL_DEBUG=1 turns it on for a context made without desc.debug;
     * without either, no callback is installed. */
    const char *values[] = {"1", NULL};
    for (int i = 0; i < 2; i++) {
        if (values[i])
            setenv("GPGPU_GL_DEBUG", values[i], 1);
        else
            unsetenv("GPGPU_GL_DEBUG");
        gpgpu_context *plain = NULL;
        EXPECT_STATUS(NULL, gpgpu_context_create(NULL, &plain), GPGPU_SUCCESS);
        if (!plain)
            continue;
        insert(plain, GL_DEBUG_TYPE_ERROR, GL_DEBUG_SEVERITY_HIGH, "plain");
        EXPECT_STATUS(plain, gpgpu_finish(plain),
                      values[i] ? GPGPU_ERROR_BACKEND : GPGPU_SUCCESS);
        gpgpu_context_destroy(plain);
    }

    gpgpu_buffer_destroy(buf);
    gpgpu_context_destroy(ctx);
    return test_finish();
}
