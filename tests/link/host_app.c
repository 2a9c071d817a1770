/* A host program that brings its own GL loader, and functions and data of
 * its own named as the library's internals are (nm of a plain archive of it
 * lists them), then uses the library: a headless context, and one adopting
 * the host's own EGL context to sort a GL buffer the host made through its
 * own loader.
 *
 * Built once per loader kind (tests/link/meson.build): glad --mx (which
 * defines gladLoadGLContext, as the library's glad does) or plain (global
 * function pointers), for GL 3.3 or 4.5, each against the static library
 * and against the shared one. Where the library let any of these names out,
 * the static link fails (two definitions) or one side silently takes the
 * other's: the library's GL 4.5 table filled by the host's GL 3.3
 * gladLoadGLContext, its shader table replaced by the host's glsl_sources.
 *
 * HOST_GLAD: the loader's header; HOST_GLAD_MX: 1 for --mx;
 * HOST_GL_VERSION: 33 or 45, the version the loader was made for (it loads
 * the functions up to that version, on any newer context).
 * Exit 0 when every check passes, 1 on a failure, 77 when no GL context can
 * be made. */
#include HOST_GLAD

#include <EGL/egl.h>
#include <gpgpu/gpgpu.h>

#include "egl_host.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if HOST_GLAD_MX
static GladGLContext host_gl;
#define GL(name) host_gl.name
#else
#define GL(name) gl##name
#endif

/* ------------------------------------------- the host's names, not ours */

/* Functions the library has of these names, with other signatures. */
int ctx_fail(int code)
{
    return code + 1;
}

const char *glsl_source_text(int which)
{
    return which == 0 ? "host text" : NULL;
}

double env_on(double x)
{
    return 2.0 * x;
}

int radix_sort(const int *keys)
{
    return keys[0];
}

long algo_check_range(long a, long b)
{
    return a - b;
}

/* Data the library has of these names: its shader tables. */
const char *glsl_sources[] = { "host shader", NULL };
int spirv_blobs[3] = { 7, 8, 9 };
unsigned glsl_source_count = 1;

static int failures;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

/* The host's own names still mean what the host made them. */
static void check_host_names(void)
{
    const int keys[] = { 5 };
    EXPECT(ctx_fail(41) == 42, "ctx_fail is not the host's");
    EXPECT(strcmp(glsl_source_text(0), "host text") == 0, "glsl_source_text is not the host's");
    EXPECT(env_on(1.5) == 3.0, "env_on is not the host's");
    EXPECT(radix_sort(keys) == 5, "radix_sort is not the host's");
    EXPECT(algo_check_range(9, 4) == 5, "algo_check_range is not the host's");
    EXPECT(strcmp(glsl_sources[0], "host shader") == 0 && glsl_source_count == 1 &&
               spirv_blobs[2] == 9,
           "the host's data was changed");
}

/* ------------------------------------------------------------ the checks */

enum { COUNT = 1000 };

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Random keys, and the same sorted on the CPU. */
static void make_keys(uint32_t *keys, uint32_t *sorted, uint32_t seed)
{
    for (int i = 0; i < COUNT; i++) {
        seed = seed * 1664525u + 1013904223u;
        keys[i] = seed ^ (seed >> 13);
    }
    memcpy(sorted, keys, sizeof(uint32_t) * COUNT);
    qsort(sorted, COUNT, sizeof(uint32_t), compare_u32);
}

/* The host's loader, loaded on the library's current headless context: the
 * context's GL version, or 0. */
static int host_load(void)
{
#if HOST_GLAD_MX
    int version = gladLoadGLContext(&host_gl, (GLADloadfunc)eglGetProcAddress);
#else
    int version = gladLoadGL((GLADloadfunc)eglGetProcAddress);
#endif
    return GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version);
}

/* A library-owned buffer sorted through the headless context. */
static void check_headless_sort(gpgpu_context *ctx)
{
    static uint32_t keys[COUNT], sorted[COUNT], got[COUNT];
    gpgpu_buffer *buf = NULL;
    gpgpu_status status;

    make_keys(keys, sorted, 1);
    status = gpgpu_buffer_create(ctx, sizeof keys, &buf);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_upload(buf, 0, keys, sizeof keys);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_sort(ctx, &(gpgpu_sort_desc){ .type = GPGPU_TYPE_U32 }, buf, 0, NULL, 0,
                            COUNT);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_download(buf, 0, got, sizeof got);
    EXPECT(status == GPGPU_SUCCESS, "headless sort: %s: %s", gpgpu_status_string(status),
           gpgpu_last_error(ctx));
    EXPECT(status != GPGPU_SUCCESS || memcmp(got, sorted, sizeof got) == 0,
           "headless sort: wrong order");
    gpgpu_buffer_destroy(buf);
}

/* The host's GL buffer, made and read back through the host's loader,
 * sorted in place by a context adopting the current GL context. */
static void check_adopted_sort(void)
{
    static uint32_t keys[COUNT], sorted[COUNT], got[COUNT];
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *buf = NULL;
    GLuint name = 0;

    make_keys(keys, sorted, 2);
    GL(GenBuffers)(1, &name);
    GL(BindBuffer)(GL_ARRAY_BUFFER, name);
    GL(BufferData)(GL_ARRAY_BUFFER, sizeof keys, keys, GL_STATIC_DRAW);
    GL(BindBuffer)(GL_ARRAY_BUFFER, 0);

    gpgpu_status status = gpgpu_context_create(
        &(gpgpu_context_desc){ .gl_get_proc_address = (gpgpu_get_proc_address)eglGetProcAddress },
        &ctx);
    EXPECT(status == GPGPU_SUCCESS, "adopt: %s: %s", gpgpu_status_string(status),
           gpgpu_last_error(NULL));
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_wrap_gl(ctx, name, 0, sizeof keys, &buf);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_sort(ctx, &(gpgpu_sort_desc){ .type = GPGPU_TYPE_U32 }, buf, 0, NULL, 0,
                            COUNT);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_finish(ctx);
    EXPECT(ctx == NULL || status == GPGPU_SUCCESS, "adopted sort: %s: %s",
           gpgpu_status_string(status), gpgpu_last_error(ctx));
    gpgpu_buffer_destroy(buf);
    gpgpu_context_destroy(ctx);

    GL(BindBuffer)(GL_ARRAY_BUFFER, name);
    GL(GetBufferSubData)(GL_ARRAY_BUFFER, 0, sizeof got, got);
    GL(BindBuffer)(GL_ARRAY_BUFFER, 0);
    GL(DeleteBuffers)(1, &name);
    EXPECT(GL(GetError)() == GL_NO_ERROR, "the host's GL calls failed");
    EXPECT(status != GPGPU_SUCCESS || memcmp(got, sorted, sizeof got) == 0,
           "adopted sort: wrong order in the host's buffer");
}

int main(void)
{
    gpgpu_context *ctx = NULL;

    check_host_names();
    EXPECT(strcmp(gpgpu_version(), GPGPU_VERSION_STRING) == 0, "gpgpu_version() %s, headers %s",
           gpgpu_version(), GPGPU_VERSION_STRING);
    gpgpu_status status =
        gpgpu_context_create(&(gpgpu_context_desc){ .backend = GPGPU_BACKEND_GL }, &ctx);
    if (status == GPGPU_ERROR_NO_CONTEXT) {
        printf("SKIP: no GL context: %s\n", gpgpu_last_error(NULL));
        return 77;
    }
    EXPECT(status == GPGPU_SUCCESS, "headless context: %s: %s", gpgpu_status_string(status),
           gpgpu_last_error(NULL));
    if (status == GPGPU_SUCCESS) {
        check_headless_sort(ctx);
        /* The host's own context, its loader, and a context adopting it. */
        EGLDisplay display;
        EGLConfig config;
        EGLContext own = EGL_NO_CONTEXT;
        if (egl_host_open(&display, &config))
            own = egl_host_context(display, config, EGL_NO_CONTEXT, 4, 5);
        EXPECT(own != EGL_NO_CONTEXT &&
                   eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, own),
               "the host cannot make its own GL 4.5 context (0x%x)", (unsigned)eglGetError());
        int loaded = own != EGL_NO_CONTEXT ? host_load() : 0;
        EXPECT(loaded >= HOST_GL_VERSION, "the host's GL %d loader found GL %d", HOST_GL_VERSION,
               loaded);
        if (loaded >= HOST_GL_VERSION)
            check_adopted_sort();
        /* The headless context's calls leave the host's current. */
        check_headless_sort(ctx);
        EXPECT(own == EGL_NO_CONTEXT || eglGetCurrentContext() == own,
               "a headless call left the host's context no longer current");
        if (own != EGL_NO_CONTEXT) {
            eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            eglDestroyContext(display, own);
        }
    }
    gpgpu_context_destroy(ctx);
    check_host_names();
    if (failures)
        return 1;
    printf("ok: a host with its own GL %d.%d loader (%s) and its own ctx_fail, glsl_sources, ...\n",
           HOST_GL_VERSION / 10, HOST_GL_VERSION % 10, HOST_GLAD_MX ? "--mx" : "plain");
    return 0;
}
