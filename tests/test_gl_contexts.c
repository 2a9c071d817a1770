/* An adopted GL context is the only one the library works in. The test makes its own headless
 * EGL contexts: A (adopted), B (another, sharing nothing, whose buffers have the same names as
 * A's) and S (sharing A's objects). With B current every call is refused with
 * GPGPU_ERROR_WRONG_CONTEXT naming both contexts, and B's buffers are left as they were (read
 * in B); with none current GPGPU_ERROR_NO_CONTEXT; back in A everything works. S is refused
 * unless gl_accept_shared_contexts, and with it gives the results A gives, but for the timer.
 * Then the caller's gl_current_context callback, and with the argument "glfw" the same with
 * two GLFW windows (GLX under a virtual display; 77 where there is none).
 *
 * A headless gpgpu context used beside the caller's: every kind of its calls (creation,
 * buffers, transfers, sort, reduce, the timer, a failing one, the destroys) leaves the thread
 * with what it had current (EGL: the context, display, draw and read surfaces and the bound
 * API; with "glfw", GLFW's window, or an EGL context beside GLFW's), the caller's buffers of
 * the same names as the library's untouched; with nothing current, nothing is current after
 * (GPGPU_GL_KEEP_CURRENT=1 keeps the library's); an adopted gpgpu context and a headless one
 * work in turns in one thread, nothing made current between them.
 *
 * With the arguments "version X.Y", run under Mesa's MESA_GL_VERSION_OVERRIDE=X.Y: GL 4.5 is
 * the least the library takes, and an older context is refused at creation, headless or
 * adopted, with GPGPU_ERROR_GL_VERSION naming the version; a 4.5 one works.
 *
 * Over 800 lines as one concern: which GL context the library works in, every case on the
 * test's own EGL (or GLFW) contexts and the same table of calls. */
#include "egl_host.h"
#include "gl_state.h"
#include "testlib.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdlib.h>
#include <string.h>

#include "glad_gl.h"
#include "gpgpu/sparse.h"

#ifdef TEST_HAVE_GLFW
#include <GLFW/glfw3.h>
#endif

#define E_WRONG GPGPU_ERROR_WRONG_CONTEXT
#define E_NONE GPGPU_ERROR_NO_CONTEXT

enum { N = 1000, BYTES = N * 4, NAMES = 8 };

static GladGLContext gl; /* the test's own GL calls, on whichever context is current */

/* ------------------------------------------------------------ callbacks */

/* cb_record and record_error: testlib.h. */

/* ----------------------------------------------------------- EGL contexts */

static EGLDisplay display = EGL_NO_DISPLAY;
static EGLConfig config;

/* Mesa's surfaceless platform, else the device platform's first device. */
static bool open_display(void) { return egl_host_open(&display, &config); }

static EGLContext make_context_of(EGLContext share, EGLint major, EGLint minor)
{
    return egl_host_context(display, config, share, major, minor);
}

static EGLContext make_context(EGLContext share) { return make_context_of(share, 4, 5); }

static void make_current(EGLContext c)
{
    EXPECT(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, c),
           "eglMakeCurrent(%p) failed (0x%x)", (void *)c, (unsigned)eglGetError());
}

/* ------------------------------------------------------ the test's buffers */

static uint32_t keys[N], pattern[NAMES][N];

/* NAMES buffers of the current context, the first holding `keys`, the others patterns (so
 * that their names are those the library's own buffers have in the adopted context). */
static void make_buffers(GLuint names[NAMES])
{
    gl.CreateBuffers(NAMES, names);
    for (int i = 0; i < NAMES; i++)
        gl.NamedBufferStorage(names[i], BYTES, i == 0 ? keys : pattern[i], GL_DYNAMIC_STORAGE_BIT);
}

/* The current context's buffers still hold what make_buffers put there. */
static void expect_untouched(const GLuint names[NAMES], const char *after)
{
    static uint32_t got[N];
    for (int i = 0; i < NAMES; i++) {
        EXPECT(gl.IsBuffer(names[i]), "after %s: buffer %u of the other context is gone", after,
               names[i]);
        memset(got, 0, sizeof got);
        gl.GetNamedBufferSubData(names[i], 0, BYTES, got);
        EXPECT(memcmp(got, i == 0 ? keys : pattern[i], BYTES) == 0,
               "after %s: buffer %u of the other context was changed", after, names[i]);
    }
    EXPECT(gl.GetError() == GL_NO_ERROR, "after %s: a GL error is pending in the other context",
           after);
}

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

/* Every kind of call that reaches GL, each expected to return `code` with `has` (and, where
 * set, `has2`) in its message and in the error callback's. */
static void expect_all_refused(fixture *f, cb_record *cb, gpgpu_status code, const char *has,
                               const char *has2, const char *where)
{
    gpgpu_context *ctx = f->ctx;
    static uint32_t host[N];
    uint32_t result[2];
    double dot = 0;
    gpgpu_buffer *made = NULL;
    gpgpu_matrix *matrix = NULL;
    uint32_t row_ptr[2] = {0, 1}, col_idx[1] = {0};
    double values[1] = {1};
    const gpgpu_reduce_desc sum = {GPGPU_TYPE_U32, GPGPU_OP_SUM, 0};
    struct {
        const char *what;
        gpgpu_status got;
    } calls[] = {
        {"gpgpu_buffer_wrap_gl", gpgpu_buffer_wrap_gl(ctx, f->name, 0, BYTES, &made)},
        {"gpgpu_buffer_create", gpgpu_buffer_create(ctx, 4096, &made)},
        {"gpgpu_buffer_upload", gpgpu_buffer_upload(f->keys, 0, host, 64)},
        {"gpgpu_buffer_download", gpgpu_buffer_download(f->keys, 0, host, 64)},
        {"gpgpu_buffer_copy", gpgpu_buffer_copy(f->keys, 0, f->own, 0, BYTES)},
        {"gpgpu_sort", gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32}, f->keys, 0,
                                  NULL, 0, N)},
        {"gpgpu_sort (radix, out of place)",
         gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32, .algo = GPGPU_ALGO_RADIX},
                    f->keys, 0, f->own, 0, N)},
        {"gpgpu_reduce", gpgpu_reduce(ctx, &sum, f->keys, 0, N, result)},
        {"gpgpu_reduce_to_buffer", gpgpu_reduce_to_buffer(ctx, &sum, f->keys, 0, N, f->own, 0)},
        {"gpgpu_scan", gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = GPGPU_TYPE_U32}, f->keys, 0,
                                  f->own, 0, N)},
        {"gpgpu_axpby", gpgpu_axpby(ctx, GPGPU_TYPE_F32, N, 2, f->own, 0, 0, f->own, 0)},
        {"gpgpu_dot", gpgpu_dot(ctx, GPGPU_TYPE_F32, N, f->own, 0, f->own, 0, &dot)},
        {"gpgpu_gemm", gpgpu_gemm(ctx, &(gpgpu_gemm_desc){.type = GPGPU_TYPE_F32}, 4, 4, 4, 1,
                                  f->own, 0, f->own, 16, 0, f->own, 32)},
        {"gpgpu_matrix_create",
         gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32},
                             &(gpgpu_csr){1, 1, 1, row_ptr, col_idx, values}, &matrix)},
        {"gpgpu_spmv", gpgpu_spmv(ctx, &(gpgpu_spmv_desc){0}, 1, f->matrix, f->own, 0, 0,
                                  f->own, 16)},
        {"gpgpu_timer_begin", gpgpu_timer_begin(ctx)},
        {"gpgpu_finish", gpgpu_finish(ctx)},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        EXPECT(calls[i].got == code, "%s: %s returned %d (%s), expected %d: %s", where,
               calls[i].what, (int)calls[i].got, gpgpu_status_string(calls[i].got), (int)code,
               gpgpu_last_error(ctx));
    }
    EXPECT(made == NULL && matrix == NULL, "%s: a refused call made a buffer or matrix", where);
    const char *message = gpgpu_last_error(ctx);
    EXPECT(strstr(message, has) && (!has2 || strstr(message, has2)),
           "%s: the message does not say \"%s\" and \"%s\": %s", where, has, has2 ? has2 : "",
           message);
    EXPECT(cb->calls >= (int)(sizeof calls / sizeof calls[0]) && cb->status == code,
           "%s: the error callback heard %d failures, the last %d", where, cb->calls,
           (int)cb->status);

    /* The calls that return nothing report through the callback and leave the GL objects. */
    *cb = (cb_record){0};
    gpgpu_buffer_destroy(f->small);
    f->small = NULL;
    EXPECT(cb->calls == 1 && cb->status == code && strstr(cb->message, "gpgpu_buffer_destroy") &&
               strstr(cb->message, has),
           "%s: gpgpu_buffer_destroy reported %d times, status %d: %s", where, cb->calls,
           (int)cb->status, cb->message);
    *cb = (cb_record){0};
    gpgpu_context_trim(ctx);
    EXPECT(cb->calls >= 1 && cb->status == code && strstr(cb->message, "gpgpu_context_trim"),
           "%s: gpgpu_context_trim reported %d times, status %d: %s", where, cb->calls,
           (int)cb->status, cb->message);
    *cb = (cb_record){0};
}

/* The calls of expect_all_refused work, with right results. */
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

/* ------------------------------------------------- the caller's GL state */

/* The current context's state set to something of its own, the calls run, and the state as
 * it was after each of them. */
static void check_state_restored(fixture *f, const GLuint names[NAMES], const char *where)
{
    const char *src = "#version 450 core\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
    GLuint shader = gl.CreateShader(GL_COMPUTE_SHADER), program = gl.CreateProgram();
    gl.ShaderSource(shader, 1, &src, NULL);
    gl.CompileShader(shader);
    gl.AttachShader(program, shader);
    gl.LinkProgram(program);
    gl.DeleteShader(shader);
    gl.UseProgram(program);
    for (GLuint i = 0; i < 8; i++) {
        if (i % 3 == 2)
            gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, i, names[i]);
        else if (i % 3 == 1)
            gl.BindBufferRange(GL_SHADER_STORAGE_BUFFER, i, names[i], 256 * i, 512);
        else
            gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, i, 0);
    }
    gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, names[3]);
    gl_snapshot want, got;
    gl_snapshot_take(&gl, &want);
    EXPECT(want.program == (GLint)program && want.ssbo[1][1] == 256 && want.generic == (GLint)names[3],
           "%s: the test could not set its own state", where);
    expect_all_work(f, where);
    gl_snapshot_take(&gl, &got);
    EXPECT(memcmp(&got, &want, sizeof got) == 0,
           "%s: the program (%d, was %d), the SSBO bindings or the generic one (%d, was %d) "
           "were not restored", where, got.program, want.program, got.generic, want.generic);
    gl.UseProgram(0);
    gl.DeleteProgram(program);
}

/* ------------------------------------------------------------ the cases */

static EGLContext ctx_a, ctx_b, ctx_s;
static GLuint names_a[NAMES], names_b[NAMES];

static gpgpu_context *adopt(cb_record *cb, bool shared)
{
    gpgpu_context *ctx = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){
                      .gl_get_proc_address = (gpgpu_get_proc_address)eglGetProcAddress,
                      .gl_accept_shared_contexts = shared, .debug = true,
                      .error_callback = record_error, .user_data = cb}, &ctx),
                  GPGPU_SUCCESS);
    return ctx;
}

static void handle_text(char *out, size_t size, const char *kind, void *handle)
{
    snprintf(out, size, "%s context %p", kind, handle);
}

/* A adopted, B current: everything refused, B's buffers untouched; none current; A again. */
static void check_unshared(void)
{
    make_current(ctx_a);
    cb_record cb = {0};
    gpgpu_context *ctx = adopt(&cb, false);
    if (!ctx)
        return;
    fixture f;
    fixture_make(&f, ctx, names_a[0]);
    char a[64], b[64];
    handle_text(a, sizeof a, "EGL", ctx_a);
    handle_text(b, sizeof b, "EGL", ctx_b);

    make_current(ctx_b);
    cb = (cb_record){0};
    expect_all_refused(&f, &cb, E_WRONG, a, b, "another context current");
    expect_untouched(names_b, "calls with the other context current");
    /* A measurement begun in A cannot be ended from B. */
    make_current(ctx_a);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 4096, &f.small), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_timer_begin(ctx), GPGPU_SUCCESS);
    make_current(ctx_b);
    double ns = 0;
    EXPECT_STATUS(ctx, gpgpu_timer_end(ctx, &ns), E_WRONG);

    make_current(EGL_NO_CONTEXT);
    cb = (cb_record){0};
    expect_all_refused(&f, &cb, E_NONE, "no GL context is current", a, "none current");

    make_current(ctx_a);
    expect_all_work(&f, "back in the adopted context");
    fixture_free(&f);
    EXPECT(cb.calls == 0, "the adopted context's own calls reported: %s", cb.message);

    /* Destroyed with B current: no GL call, the objects left to A, one report. */
    make_current(ctx_b);
    gpgpu_context_destroy(ctx);
    EXPECT(cb.calls == 1 && cb.status == E_WRONG && strstr(cb.message, "gpgpu_context_destroy") &&
               strstr(cb.message, a) && strstr(cb.message, "left to the adopted context"),
           "gpgpu_context_destroy with another context current reported %d times: %s", cb.calls,
           cb.message);
    expect_untouched(names_b, "gpgpu_context_destroy with the other context current");
    /* A still has the library's debug callback, whose sink must still be there (a debug
     * message into freed memory is what the sanitizer pass would find). */
    make_current(ctx_a);
    gl.DebugMessageInsert(GL_DEBUG_SOURCE_APPLICATION, GL_DEBUG_TYPE_ERROR, 1,
                          GL_DEBUG_SEVERITY_HIGH, -1, "after a destroy elsewhere");
    EXPECT(gl.IsBuffer(names_a[0]), "A's own buffer went with the destroyed context");
}

/* S shares A's objects: refused without the flag; with it, the same results, but no timer. */
static void check_shared(void)
{
    char a[64], s[64], b[64];
    handle_text(a, sizeof a, "EGL", ctx_a);
    handle_text(s, sizeof s, "EGL", ctx_s);
    handle_text(b, sizeof b, "EGL", ctx_b);

    make_current(ctx_a);
    cb_record cb = {0};
    gpgpu_context *strict = adopt(&cb, false);
    if (strict) {
        fixture f;
        fixture_make(&f, strict, names_a[0]);
        make_current(ctx_s);
        expect_all_refused(&f, &cb, E_WRONG, "gl_accept_shared_contexts", s, "shared, no flag");
        make_current(ctx_a);
        fixture_free(&f);
        gpgpu_context_destroy(strict);
    }

    cb = (cb_record){0};
    gpgpu_context *ctx = adopt(&cb, true);
    if (!ctx)
        return;
    fixture f;
    fixture_make(&f, ctx, names_a[0]);
    check_state_restored(&f, names_a, "the adopted context's state");
    make_current(ctx_s);
    check_state_restored(&f, names_a, "a shared context's state");
    expect_all_work(&f, "a shared context, with the flag");
    make_current(ctx_a);
    expect_sorted(names_a[0], "the shared context's sort, read in the adopted one");
    expect_all_work(&f, "the adopted context after the shared one");
    make_current(ctx_s);
    expect_sorted(names_a[0], "the adopted context's sort, read in the shared one");
    EXPECT(cb.calls == 0, "calls in a shared context reported: %s", cb.message);

    /* The timer's queries are the adopted context's alone. */
    EXPECT_STATUS(ctx, gpgpu_timer_begin(ctx), E_WRONG);
    make_current(ctx_a);
    EXPECT_STATUS(ctx, gpgpu_timer_begin(ctx), GPGPU_SUCCESS);
    make_current(ctx_s);
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), E_WRONG);
    EXPECT(strstr(gpgpu_last_error(ctx), "measurement"), "the message does not name the timer: %s",
           gpgpu_last_error(ctx));
    make_current(ctx_a);
    double ns = -1;
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_timer_end(ctx, &ns), GPGPU_SUCCESS);
    EXPECT(ns >= 0, "the timer gave %g ns", ns);

    /* A context that shares nothing is refused all the same, its buffers untouched. */
    make_current(ctx_b);
    cb = (cb_record){0};
    expect_all_refused(&f, &cb, E_WRONG, "nor shares its objects", a, "flag, unshared context");
    expect_untouched(names_b, "calls with the flag and an unshared context current");

    /* Destroyed from the shared context: the shared objects go, A's own state (its debug
     * callback) cannot, which is reported. */
    make_current(ctx_s);
    cb = (cb_record){0};
    gpgpu_buffer *own = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 4096, &own), GPGPU_SUCCESS);
    gpgpu_buffer_destroy(own);
    EXPECT(cb.calls == 0, "gpgpu_buffer_destroy in a shared context reported: %s", cb.message);
    fixture_free(&f);
    gpgpu_context_destroy(ctx);
    EXPECT(cb.calls == 1 && cb.status == E_WRONG && strstr(cb.message, "gpgpu_context_destroy") &&
               strstr(cb.message, "debug callback"),
           "gpgpu_context_destroy in a shared context reported %d times: %s", cb.calls,
           cb.message);
    make_current(ctx_a);
    EXPECT(gl.IsBuffer(names_a[0]), "A's own buffer went with the destroyed context");
}

/* gl_current_context: the caller's handles instead of EGL's. */
typedef struct toolkit {
    int calls;
    bool none;
} toolkit;

static void *toolkit_current(void *user_data)
{
    toolkit *t = user_data;
    t->calls++;
    return t->none ? NULL : eglGetCurrentContext();
}

static void check_callback(void)
{
    make_current(ctx_a);
    toolkit t = {.none = true};
    gpgpu_context *ctx = NULL;
    gpgpu_context_desc desc = {.gl_get_proc_address = (gpgpu_get_proc_address)eglGetProcAddress,
                               .gl_current_context = toolkit_current, .user_data = &t};
    EXPECT_STATUS(NULL, gpgpu_context_create(&desc, &ctx), E_NONE);
    EXPECT(strstr(gpgpu_last_error(NULL), "gl_current_context returned NULL"),
           "the message does not name the callback: %s", gpgpu_last_error(NULL));
    t.none = false;
    EXPECT_STATUS(NULL, gpgpu_context_create(&desc, &ctx), GPGPU_SUCCESS);
    if (!ctx)
        return;
    char a[64], b[64];
    handle_text(a, sizeof a, "gl_current_context", ctx_a);
    handle_text(b, sizeof b, "gl_current_context", ctx_b);
    int calls = t.calls;
    gpgpu_buffer *buf = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, names_a[0], 0, BYTES, &buf), GPGPU_SUCCESS);
    EXPECT(t.calls > calls, "the callback was not asked at a call");
    make_current(ctx_b);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32}, buf, 0, NULL,
                                  0, N),
                  E_WRONG);
    EXPECT(strstr(gpgpu_last_error(ctx), a) && strstr(gpgpu_last_error(ctx), b),
           "the message does not name both handles: %s", gpgpu_last_error(ctx));
    expect_untouched(names_b, "a call refused through the callback");
    /* The toolkit says none is current: so is it, EGL agrees. */
    t.none = true;
    make_current(EGL_NO_CONTEXT);
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), E_NONE);
    t.none = false;
    make_current(ctx_a);
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(buf, 0, keys, BYTES), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32}, buf, 0, NULL,
                                  0, N),
                  GPGPU_SUCCESS);
    expect_sorted(names_a[0], "a sort through the callback's context");
    gpgpu_buffer_destroy(buf);
    gpgpu_context_destroy(ctx);
}

/* ------------------------------------------- a headless context beside the caller's */

/* What EGL says the thread has current. */
typedef struct egl_current {
    EGLDisplay display;
    EGLContext context;
    EGLSurface draw, read;
    EGLenum api;
} egl_current;

static egl_current egl_now(void)
{
    return (egl_current){eglGetCurrentDisplay(), eglGetCurrentContext(),
                         eglGetCurrentSurface(EGL_DRAW), eglGetCurrentSurface(EGL_READ),
                         eglQueryAPI()};
}

static void expect_egl(const egl_current *want, const char *after)
{
    egl_current got = egl_now();
    EXPECT(got.display == want->display && got.context == want->context &&
               got.draw == want->draw && got.read == want->read && got.api == want->api,
           "after %s: EGL has display %p, context %p, surfaces %p/%p, API 0x%x current, not "
           "%p, %p, %p/%p, 0x%x", after, got.display, got.context, got.draw, got.read,
           (unsigned)got.api, want->display, want->context, want->draw, want->read,
           (unsigned)want->api);
}

/* What the thread must have after each call of a headless context: EGL's current state, the
 * caller's buffers (NULL: no context of the caller's is current), and with GLFW its window. */
static struct kept {
    egl_current egl;
    const GLuint *names;
    bool glfw; /* GLFW's record is checked too (GLFW is initialized) */
#ifdef TEST_HAVE_GLFW
    GLFWwindow *window;
#endif
} kept;

static void expect_kept(const char *where, const char *call)
{
    char after[256];
    snprintf(after, sizeof after, "%s, %s", where, call);
    expect_egl(&kept.egl, after);
#ifdef TEST_HAVE_GLFW
    EXPECT(!kept.glfw || glfwGetCurrentContext() == kept.window,
           "after %s: GLFW's current window is %p, not %p", after,
           (void *)glfwGetCurrentContext(), (void *)kept.window);
#endif
    if (kept.names)
        expect_untouched(kept.names, after); /* read through whichever context is current */
}

static uint32_t keys_sum(void)
{
    uint32_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += keys[i];
    return sum;
}

/* Every kind of call of a headless context made with `desc`, the thread checked after each. */
static void headless_calls(const gpgpu_context_desc *desc, const char *where)
{
    gpgpu_context *h = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(desc, &h), GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_context_create");
    if (!h)
        return;
    gpgpu_buffer *a = NULL, *b = NULL, *wrap = NULL;
    static uint32_t got[N];
    uint32_t sum = 0;
    double ns = -1;
    EXPECT_STATUS(h, gpgpu_buffer_create(h, BYTES, &a), GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_buffer_create");
    EXPECT_STATUS(h, gpgpu_buffer_create(h, BYTES, &b), GPGPU_SUCCESS);
    if (!a || !b) {
        gpgpu_buffer_destroy(a);
        gpgpu_context_destroy(h);
        return;
    }
    EXPECT_STATUS(h, gpgpu_buffer_upload(a, 0, keys, BYTES), GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_buffer_upload");
    EXPECT_STATUS(h, gpgpu_buffer_copy(a, 0, b, 0, BYTES), GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_buffer_copy");
    EXPECT_STATUS(h, gpgpu_sort(h, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32}, b, 0, NULL, 0, N),
                  GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_sort");
    EXPECT_STATUS(h, gpgpu_buffer_download(b, 0, got, BYTES), GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_buffer_download");
    for (int i = 1; i < N; i++)
        EXPECT(got[i - 1] <= got[i], "%s: the headless sort is out of order at %d", where, i);
    EXPECT_STATUS(h, gpgpu_timer_begin(h), GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_timer_begin");
    EXPECT_STATUS(h, gpgpu_reduce(h, &(gpgpu_reduce_desc){GPGPU_TYPE_U32, GPGPU_OP_SUM, 0}, a, 0,
                                  N, &sum),
                  GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_reduce");
    EXPECT(sum == keys_sum(), "%s: the headless sum is %u, expected %u", where, sum, keys_sum());
    EXPECT_STATUS(h, gpgpu_timer_end(h, &ns), GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_timer_end");
    EXPECT_STATUS(h, gpgpu_finish(h), GPGPU_SUCCESS);
    expect_kept(where, "gpgpu_finish");
    /* Refused in the library's context, after it was made current: no buffer of that name. */
    EXPECT_STATUS(h, gpgpu_buffer_wrap_gl(h, 4242, 0, 64, &wrap), GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(gpgpu_last_error(h), "4242 is not a GL buffer object"),
           "%s: the failed wrap says: %s", where, gpgpu_last_error(h));
    expect_kept(where, "a failed gpgpu_buffer_wrap_gl");
    gpgpu_buffer_destroy(b);
    expect_kept(where, "gpgpu_buffer_destroy");
    gpgpu_context_trim(h);
    expect_kept(where, "gpgpu_context_trim");
    gpgpu_buffer_destroy(a);
    gpgpu_context_destroy(h);
    expect_kept(where, "gpgpu_context_destroy");
}

/* An adopted gpgpu context and a headless one in turns, nothing made current between them:
 * each finds its own context, the adopted one the caller's, still current. `name` is the
 * caller's buffer the adopted one sorts. */
static void alternate(gpgpu_context *adopted, const gpgpu_context_desc *headless, GLuint name,
                      const char *where)
{
    gpgpu_context *h = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(headless, &h), GPGPU_SUCCESS);
    gpgpu_buffer *theirs = NULL, *mine = NULL;
    EXPECT_STATUS(adopted, gpgpu_buffer_wrap_gl(adopted, name, 0, BYTES, &theirs),
                  GPGPU_SUCCESS);
    if (h)
        EXPECT_STATUS(h, gpgpu_buffer_create(h, BYTES, &mine), GPGPU_SUCCESS);
    if (h && mine && theirs) {
        const gpgpu_reduce_desc sum = {GPGPU_TYPE_U32, GPGPU_OP_SUM, 0};
        for (int round = 0; round < 3; round++) {
            char what[128];
            snprintf(what, sizeof what, "%s, round %d", where, round);
            uint32_t got = 0;
            EXPECT_STATUS(adopted, gpgpu_buffer_upload(theirs, 0, keys, BYTES), GPGPU_SUCCESS);
            EXPECT_STATUS(h, gpgpu_buffer_upload(mine, 0, keys, BYTES), GPGPU_SUCCESS);
            EXPECT_STATUS(adopted, gpgpu_sort(adopted, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32},
                                              theirs, 0, NULL, 0, N),
                          GPGPU_SUCCESS);
            EXPECT_STATUS(h, gpgpu_sort(h, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32}, mine, 0,
                                        NULL, 0, N),
                          GPGPU_SUCCESS);
            expect_sorted(name, what);
            EXPECT_STATUS(h, gpgpu_reduce(h, &sum, mine, 0, N, &got), GPGPU_SUCCESS);
            EXPECT(got == keys_sum(), "%s: the headless sum is %u", what, got);
            got = 0;
            EXPECT_STATUS(adopted, gpgpu_reduce(adopted, &sum, theirs, 0, N, &got),
                          GPGPU_SUCCESS);
            EXPECT(got == keys_sum(), "%s: the adopted sum is %u", what, got);
        }
    }
    gpgpu_buffer_destroy(mine);
    gpgpu_buffer_destroy(theirs);
    gpgpu_context_destroy(h);
}

static const gpgpu_context_desc headless_desc = {.backend = GPGPU_BACKEND_GL, .debug = true};

/* The caller's context P current with pbuffer surfaces (draw and read distinct) and OpenGL ES
 * as the bound API; A current, adopted, in turns with a headless context; nothing current. */
static void check_headless(void)
{
    const EGLint want[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                           EGL_OPENGL_BIT, EGL_NONE};
    const EGLint size[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK,
                              EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLConfig pconfig;
    EGLint found = 0;
    EXPECT(eglChooseConfig(display, want, &pconfig, 1, &found) && found == 1,
           "no EGL config has OpenGL pbuffers");
    if (found != 1)
        return;
    EGLSurface draw = eglCreatePbufferSurface(display, pconfig, size);
    EGLSurface read = eglCreatePbufferSurface(display, pconfig, size);
    EGLContext p = eglCreateContext(display, pconfig, EGL_NO_CONTEXT, attribs);
    EXPECT(draw != EGL_NO_SURFACE && read != EGL_NO_SURFACE && p != EGL_NO_CONTEXT,
           "the test cannot make its pbuffers and their context (0x%x)", (unsigned)eglGetError());
    GLuint names_p[NAMES];
    EXPECT(eglMakeCurrent(display, draw, read, p), "eglMakeCurrent(P) failed (0x%x)",
           (unsigned)eglGetError());
    make_buffers(names_p);
    EXPECT(names_p[0] == names_a[0], "P's first buffer is %u, not %u", names_p[0], names_a[0]);
    eglBindAPI(EGL_OPENGL_ES_API); /* the thread's choice, which creation must not change */
    kept = (struct kept){.egl = egl_now(), .names = names_p};
    EXPECT(kept.egl.draw == draw && kept.egl.read == read && kept.egl.api == EGL_OPENGL_ES_API,
           "the test could not make its surfaces and API current");
    headless_calls(&headless_desc, "the caller's EGL context with surfaces current");
    eglBindAPI(EGL_OPENGL_API);

    /* A adopted, and a headless context beside it. */
    make_current(ctx_a);
    cb_record cb = {0};
    gpgpu_context *actx = adopt(&cb, false);
    if (actx) {
        alternate(actx, &headless_desc, names_a[1], "adopted A and a headless context");
        gpgpu_context_destroy(actx);
        EXPECT(cb.calls == 0, "the adopted context beside a headless one reported: %s",
               cb.message);
    }

    /* None current: none is after the calls; GPGPU_GL_KEEP_CURRENT keeps the library's. */
    make_current(EGL_NO_CONTEXT);
    kept = (struct kept){.egl = egl_now()};
    EXPECT(kept.egl.context == EGL_NO_CONTEXT, "the test could not release its context");
    headless_calls(&headless_desc, "no context current");
    setenv("GPGPU_GL_KEEP_CURRENT", "1", 1);
    gpgpu_context *h = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(&headless_desc, &h), GPGPU_SUCCESS);
    unsetenv("GPGPU_GL_KEEP_CURRENT");
    gpgpu_info info = {.platform = ""};
    if (h)
        gpgpu_context_get_info(h, &info);
    if (h && strncmp(info.platform, "egl", 3) != 0) { /* GPGPU_GL_PLATFORM=glfw */
        fprintf(stderr, "GPGPU_GL_KEEP_CURRENT is checked on EGL platforms, not %s\n",
                info.platform);
        gpgpu_context_destroy(h);
        h = NULL;
    }
    if (h) {
        EXPECT(eglGetCurrentContext() != EGL_NO_CONTEXT,
               "GPGPU_GL_KEEP_CURRENT=1: no context is current after gpgpu_context_create");
        EXPECT_STATUS(h, gpgpu_finish(h), GPGPU_SUCCESS);
        EGLContext own = eglGetCurrentContext();
        EXPECT(own != EGL_NO_CONTEXT, "GPGPU_GL_KEEP_CURRENT=1: none current after a call");
        make_current(ctx_a);
        EXPECT_STATUS(h, gpgpu_finish(h), GPGPU_SUCCESS);
        EXPECT(eglGetCurrentContext() == ctx_a,
               "GPGPU_GL_KEEP_CURRENT=1: %p is current after a call made with A current, not A",
               (void *)eglGetCurrentContext());
        gpgpu_context_destroy(h);
        EXPECT(eglGetCurrentContext() == ctx_a, "GPGPU_GL_KEEP_CURRENT=1: A is not current "
               "after gpgpu_context_destroy");
    }
    make_current(EGL_NO_CONTEXT);
    eglDestroyContext(display, p);
    eglDestroySurface(display, read);
    eglDestroySurface(display, draw);
}

static int run_egl(void)
{
    if (!open_display() || (ctx_a = make_context(EGL_NO_CONTEXT)) == EGL_NO_CONTEXT) {
        fprintf(stderr, "skipped: no EGL GL 4.5 context (0x%x)\n", (unsigned)eglGetError());
        return TEST_SKIPPED;
    }
    ctx_b = make_context(EGL_NO_CONTEXT);
    ctx_s = make_context(ctx_a);
    EXPECT(ctx_b != EGL_NO_CONTEXT && ctx_s != EGL_NO_CONTEXT, "the test cannot make its contexts");
    make_current(ctx_a);
    if (!gladLoadGLContext(&gl, (GLADloadfunc)eglGetProcAddress)) {
        fprintf(stderr, "the test cannot load GL functions\n");
        return 1;
    }
    make_buffers(names_a);
    make_current(ctx_b);
    make_buffers(names_b);
    EXPECT(names_a[0] == names_b[0], "A's and B's first buffers are %u and %u: the names do not "
           "collide as the test means them to", names_a[0], names_b[0]);
    check_unshared();
    check_shared();
    check_callback();
    check_headless();
    make_current(EGL_NO_CONTEXT);
    eglDestroyContext(display, ctx_s);
    eglDestroyContext(display, ctx_b);
    eglDestroyContext(display, ctx_a);
    return test_finish();
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

/* ------------------------------------------------------------------ GLFW */

#ifdef TEST_HAVE_GLFW
static GLFWwindow *window(GLFWwindow *share)
{
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    return glfwCreateWindow(16, 16, "test_gl_contexts", NULL, share);
}

/* A headless gpgpu context beside GLFW's window w (current, with buffers of its own): an EGL
 * one (GLVND lets no EGL context be made current over a GLX one: the library releases it and
 * puts it back) and a GLFW one; each in turns with an adopted context of w, which sorts w's
 * buffer `sorted`; none current, then w made current (which GLVND refuses, with an X error,
 * while an EGL context is current); the caller's EGL context and a headless GLFW one. */
static void check_headless_glfw(GLFWwindow *w, GLuint sorted)
{
    const gpgpu_context_desc glfw_desc = {.backend = GPGPU_BACKEND_GL, .debug = true,
                                          .gl_platform = GPGPU_GL_PLATFORM_GLFW};
    glfwMakeContextCurrent(w);
    GLuint names[NAMES];
    make_buffers(names);
    kept = (struct kept){.egl = egl_now(), .names = names, .glfw = true, .window = w};
    headless_calls(&headless_desc, "a GLFW window current");
    headless_calls(&glfw_desc, "a GLFW window current, a headless GLFW context");
    cb_record cb = {0};
    gpgpu_context *actx = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){
                      .gl_get_proc_address = (gpgpu_get_proc_address)glfwGetProcAddress,
                      .error_callback = record_error, .user_data = &cb}, &actx),
                  GPGPU_SUCCESS);
    if (actx) {
        alternate(actx, &headless_desc, sorted, "an adopted window and a headless context");
        alternate(actx, &glfw_desc, sorted, "an adopted window and a headless GLFW context");
        gpgpu_context_destroy(actx);
        EXPECT(cb.calls == 0, "the adopted window beside headless contexts reported: %s",
               cb.message);
    }

    glfwMakeContextCurrent(NULL);
    kept = (struct kept){.egl = egl_now(), .glfw = true};
    headless_calls(&headless_desc, "no window current");
    glfwMakeContextCurrent(w);
    EXPECT(glfwGetCurrentContext() == w, "the window cannot be made current after calls of a "
           "headless context made with none current");
    expect_untouched(names, "the window made current after a headless context's calls");

    EGLContext e = EGL_NO_CONTEXT;
    if (!open_display() || (e = make_context(EGL_NO_CONTEXT)) == EGL_NO_CONTEXT) {
        fprintf(stderr, "no EGL context beside GLFW: that case is not run\n");
        return;
    }
    glfwMakeContextCurrent(NULL);
    make_current(e);
    GLuint names_e[NAMES];
    make_buffers(names_e);
    kept = (struct kept){.egl = egl_now(), .names = names_e, .glfw = true};
    headless_calls(&glfw_desc, "the caller's EGL context current, a headless GLFW context");
    make_current(EGL_NO_CONTEXT);
    eglDestroyContext(display, e);
    glfwMakeContextCurrent(w);
}

/* Two windows' unshared contexts (GLX under X) and a third sharing the first's. */
static int run_glfw(void)
{
    GLFWwindow *w1 = NULL, *w2 = NULL, *w3 = NULL;
    if (!glfwInit() || !(w1 = window(NULL)) || !(w2 = window(NULL)) || !(w3 = window(w1))) {
        const char *why = NULL;
        glfwGetError(&why);
        fprintf(stderr, "skipped: no display or no GL 4.5 window: %s\n", why ? why : "");
        return TEST_SKIPPED;
    }
    glfwMakeContextCurrent(w1);
    if (!gladLoadGLContext(&gl, (GLADloadfunc)glfwGetProcAddress)) {
        fprintf(stderr, "the test cannot load GL functions\n");
        return 1;
    }
    make_buffers(names_a);
    glfwMakeContextCurrent(w2);
    make_buffers(names_b);

    glfwMakeContextCurrent(w1);
    for (int shared = 0; shared < 2; shared++) {
        cb_record cb = {0};
        gpgpu_context *ctx = NULL;
        EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){
                          .gl_get_proc_address = (gpgpu_get_proc_address)glfwGetProcAddress,
                          .gl_accept_shared_contexts = shared, .error_callback = record_error,
                          .user_data = &cb}, &ctx),
                      GPGPU_SUCCESS);
        if (!ctx)
            continue;
        fixture f;
        fixture_make(&f, ctx, names_a[0]);
        glfwMakeContextCurrent(w2);
        expect_all_refused(&f, &cb, E_WRONG, "GLX context", "is not the adopted one",
                           shared ? "GLFW, flag, another window" : "GLFW, another window");
        expect_untouched(names_b, "calls with another window's context current");
        glfwMakeContextCurrent(w3);
        if (shared)
            expect_all_work(&f, "GLFW, a window sharing the adopted one's objects");
        else
            EXPECT_STATUS(ctx, gpgpu_finish(ctx), E_WRONG);
        glfwMakeContextCurrent(NULL);
        EXPECT_STATUS(ctx, gpgpu_finish(ctx), E_NONE);
        glfwMakeContextCurrent(w1);
        expect_all_work(&f, "GLFW, back in the adopted window");
        fixture_free(&f);
        gpgpu_context_destroy(ctx);
    }
    check_headless_glfw(w1, names_a[0]);
    /* No glfwTerminate: it would unload Mesa's GLX driver, whose allocations LeakSanitizer
     * then reports from a module it cannot name (demos/meson.build). */
    glfwDestroyWindow(w3);
    glfwDestroyWindow(w2);
    glfwDestroyWindow(w1);
    return test_finish();
}
#endif

int main(int argc, char **argv)
{
    for (uint32_t i = 0; i < N; i++)
        keys[i] = (i * 2654435761u) >> 7;
    for (int k = 0; k < NAMES; k++)
        for (uint32_t i = 0; i < N; i++)
            pattern[k][i] = 0xA5A50000u + (uint32_t)k * N + i;
    unsetenv("GPGPU_GL_KEEP_CURRENT"); /* the default is tested, and the variable where set */
    if (argc > 2 && strcmp(argv[1], "version") == 0)
        return run_version(argv[2]);
    if (argc > 1 && strcmp(argv[1], "glfw") == 0) {
#ifdef TEST_HAVE_GLFW
        return run_glfw();
#else
        fprintf(stderr, "skipped: this build has no GLFW\n");
        return TEST_SKIPPED;
#endif
    }
    return run_egl();
}
