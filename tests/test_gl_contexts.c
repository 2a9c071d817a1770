/* GL 4.5 is the least the library takes. Run with the arguments "version X.Y" under Mesa's
 * MESA_GL_VERSION_OVERRIDE=X.Y: an older context is refused at creation, headless or
 * adopted (the test's own EGL context), with GPGPU_ERROR_GL_VERSION naming the version; a
 * 4.5 one works. */
#include "testlib.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdlib.h>
#include <string.h>

#include "glad_gl.h"
#include "gpgpu/sparse.h"

enum { N = 1000, BYTES = N * 4 };

static GladGLContext gl; /* the test's own GL calls, on whichever context is current */

/* ----------------------------------------------------------- EGL contexts */

static EGLDisplay display = EGL_NO_DISPLAY;
static EGLConfig config;

static bool has_extension(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return true;
    return false;
}

/* Mesa's surfaceless platform, else the device platform's first device. */
static bool open_display(void)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display)
        return false;
    if (has_extension(client, "EGL_MESA_platform_surfaceless"))
        display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (display == EGL_NO_DISPLAY && has_extension(client, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC query =
            (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        EGLDeviceEXT device;
        EGLint count = 0;
        if (query && query(1, &device, &count) && count == 1)
            display = get_display(EGL_PLATFORM_DEVICE_EXT, device, NULL);
    }
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, NULL, NULL) ||
        !eglBindAPI(EGL_OPENGL_API))
        return false;
    const EGLint want[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                           EGL_OPENGL_BIT, EGL_NONE};
    EGLint found = 0;
    if (!has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_no_config_context"))
        return eglChooseConfig(display, want, &config, 1, &found) && found == 1;
    config = (EGLConfig)0;
    return true;
}

static EGLContext make_context_of(EGLContext share, EGLint major, EGLint minor)
{
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, major, EGL_CONTEXT_MINOR_VERSION, minor,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK,
                              EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    return eglCreateContext(display, config, share, attribs);
}

static void make_current(EGLContext c)
{
    EXPECT(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, c),
           "eglMakeCurrent(%p) failed (0x%x)", (void *)c, (unsigned)eglGetError());
}

/* ------------------------------------------------------ the test's buffers */

static uint32_t keys[N];

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The adopted context's buffer `name` holds the sorted keys (read in the current context). */
static void expect_sorted(GLuint name, const char *what)
{
    static uint32_t got[N], want[N];
    memcpy(want, keys, sizeof want);
    qsort(want, N, sizeof want[0], compare_u32);
    gl.GetNamedBufferSubData(name, 0, BYTES, got);
    EXPECT(memcmp(got, want, BYTES) == 0, "%s: the keys are not sorted", what);
}

/* -------------------------------------------------------------- the calls */

/* What a call needs: the adopted context's buffers and matrix, made while it was current. */
typedef struct fixture {
    gpgpu_context *ctx;
    gpgpu_buffer *keys;  /* wraps A's buffer 0 */
    gpgpu_buffer *own;   /* a library buffer of BYTES */
    gpgpu_buffer *small; /* a library buffer of 4096 bytes, destroyed by a call */
    gpgpu_matrix *matrix;
    GLuint name;         /* A's buffer wrapped by keys */
} fixture;

static void fixture_make(fixture *f, gpgpu_context *ctx, GLuint name)
{
    *f = (fixture){.ctx = ctx, .name = name};
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, name, 0, BYTES, &f->keys), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, BYTES, &f->own), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 4096, &f->small), GPGPU_SUCCESS);
    uint32_t row_ptr[3] = {0, 1, 2}, col_idx[2] = {0, 1};
    double values[2] = {2, 3};
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32},
                                           &(gpgpu_csr){2, 2, 2, row_ptr, col_idx, values},
                                           &f->matrix),
                  GPGPU_SUCCESS);
}

static void fixture_free(fixture *f)
{
    gpgpu_matrix_destroy(f->matrix);
    gpgpu_buffer_destroy(f->small);
    gpgpu_buffer_destroy(f->own);
    gpgpu_buffer_destroy(f->keys);
}

/* Uploads, a reduce, a copy, a scan and a sort work, with right results. */
static void expect_all_work(fixture *f, const char *where)
{
    gpgpu_context *ctx = f->ctx;
    static uint32_t host[N];
    uint32_t result[2] = {0}, want = 0;
    for (int i = 0; i < N; i++)
        want += keys[i];
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(f->keys, 0, keys, BYTES), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){GPGPU_TYPE_U32, GPGPU_OP_SUM, 0},
                                    f->keys, 0, N, result),
                  GPGPU_SUCCESS);
    EXPECT(result[0] == want, "%s: the sum is %u, expected %u", where, result[0], want);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(f->keys, 0, f->own, 0, BYTES), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = GPGPU_TYPE_U32}, f->own, 0,
                                  f->own, 0, N),
                  GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(f->own, (N - 1) * 4, host, 4), GPGPU_SUCCESS);
    EXPECT(host[0] == want, "%s: the scan ends at %u, expected %u", where, host[0], want);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32}, f->keys, 0,
                                  NULL, 0, N),
                  GPGPU_SUCCESS);
    expect_sorted(f->name, where);
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), GPGPU_SUCCESS);
}

/* --------------------------------------------------------- GL versions */

/* A context of `version` (MESA_GL_VERSION_OVERRIDE, which the test is run under): refused
 * below 4.5, headless and adopted, with the version in the message; at 4.5 it works. */
static int run_version(const char *version)
{
    /* Asked for as 3.2 core, EGL gives the newest core version the driver has. */
    EGLContext own = EGL_NO_CONTEXT;
    if (!open_display() || (own = make_context_of(EGL_NO_CONTEXT, 3, 2)) == EGL_NO_CONTEXT) {
        fprintf(stderr, "skipped: no EGL GL core context (0x%x)\n", (unsigned)eglGetError());
        return TEST_SKIPPED;
    }
    make_current(own);
    if (!gladLoadGLContext(&gl, (GLADloadfunc)eglGetProcAddress)) {
        fprintf(stderr, "the test cannot load GL functions\n");
        return 1;
    }
    const char *got = (const char *)gl.GetString(GL_VERSION);
    if (!got || strncmp(got, version, strlen(version)) != 0) {
        fprintf(stderr, "skipped: GL %s, not %s: the driver does not take "
                "MESA_GL_VERSION_OVERRIDE\n", got ? got : "(none)", version);
        return TEST_SKIPPED;
    }
    bool refused = strcmp(version, "4.5") < 0;
    char named[32];
    snprintf(named, sizeof named, "GL %s (", version);
    gpgpu_status want = refused ? GPGPU_ERROR_GL_VERSION : GPGPU_SUCCESS;

    gpgpu_context *ctx = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){
                      .gl_get_proc_address = (gpgpu_get_proc_address)eglGetProcAddress}, &ctx),
                  want);
    if (refused)
        EXPECT(ctx == NULL && strstr(gpgpu_last_error(NULL), "adopt: ") &&
                   strstr(gpgpu_last_error(NULL), named) &&
                   strstr(gpgpu_last_error(NULL), "older than 4.5, which libgpgpu needs"),
               "adopting GL %s: %s", version, gpgpu_last_error(NULL));
    if (ctx) {
        GLuint name = 0;
        gl.CreateBuffers(1, &name);
        gl.NamedBufferStorage(name, BYTES, keys, GL_DYNAMIC_STORAGE_BIT);
        fixture f;
        fixture_make(&f, ctx, name);
        expect_all_work(&f, "an adopted GL 4.5 context");
        fixture_free(&f);
        gpgpu_context_destroy(ctx);
        gl.DeleteBuffers(1, &name);
    }

    ctx = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){.backend = GPGPU_BACKEND_GL},
                                             &ctx),
                  want);
    if (refused)
        EXPECT(ctx == NULL && strstr(gpgpu_last_error(NULL), named) &&
                   strstr(gpgpu_last_error(NULL), "older than 4.5, which libgpgpu needs"),
               "a headless context under GL %s: %s", version, gpgpu_last_error(NULL));
    if (ctx) {
        gpgpu_buffer *buf = NULL;
        EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, BYTES, &buf), GPGPU_SUCCESS);
        EXPECT_STATUS(ctx, gpgpu_buffer_upload(buf, 0, keys, BYTES), GPGPU_SUCCESS);
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32}, buf, 0,
                                      NULL, 0, N),
                      GPGPU_SUCCESS);
        static uint32_t sorted[N];
        EXPECT_STATUS(ctx, gpgpu_buffer_download(buf, 0, sorted, BYTES), GPGPU_SUCCESS);
        for (int i = 1; i < N; i++)
            EXPECT(sorted[i - 1] <= sorted[i], "a headless GL 4.5 sort: out of order at %d", i);
        gpgpu_buffer_destroy(buf);
        gpgpu_context_destroy(ctx);
    }
    make_current(EGL_NO_CONTEXT);
    eglDestroyContext(display, own);
    return test_finish();
}

int main(int argc, char **argv)
{
    for (uint32_t i = 0; i < N; i++)
        keys[i] = (i * 2654435761u) >> 7;
    if (argc > 2 && strcmp(argv[1], "version") == 0)
        return run_version(argv[2]);
    fprintf(stderr, "usage: test_gl_contexts version X.Y\n");
    return 1;
}
