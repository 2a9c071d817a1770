/* The GL side of the public API (test_api.c runs it on a GL context): wrapped GL buffers
 * (ranges at unaligned offsets, nothing outside the written range touched, the argument
 * checks, overlaps between wraps), and adopting the caller's context (its GL state
 * restored, its debug callback left as it was). The test makes its own GL objects through
 * its own glad table on the library's current (headless) context. Built with the GL
 * backend only (tests/meson.build). */
#include <EGL/egl.h>

#include <stdlib.h>
#include <string.h>

#include "test_api.h"
#include "gl_state.h"
#include "wrap_overlap.h"

GladGLContext gl;

static GLuint gl_buffer_with(const void *data, size_t bytes)
{
    GLuint name = 0;
    gl.CreateBuffers(1, &name);
    gl.NamedBufferStorage(name, (GLsizeiptr)bytes, data, GL_DYNAMIC_STORAGE_BIT);
    return name;
}

static void gl_read(GLuint name, void *out, size_t bytes)
{
    /* The library promises visibility to the caller's GL only when it adopts. */
    gl.MemoryBarrier(GL_ALL_BARRIER_BITS);
    gl.GetNamedBufferSubData(name, 0, (GLsizeiptr)bytes, out);
}

typedef struct wrap_case {
    size_t offset, bytes;
    gpgpu_status expected;
} wrap_case;

void check_wrap_errors(gpgpu_context *ctx)
{
    enum { BYTES = 256 };
    uint8_t zero[BYTES] = {0};
    GLuint name = gl_buffer_with(zero, BYTES);
    static const wrap_case cases[] = {
        {0, BYTES, S_OK},          {4, BYTES - 4, S_OK},      {BYTES - 4, 4, S_OK},
        {20, 36, S_OK},            {0, 0, E_INVALID},         {2, 4, E_ALIGN},
        {6, 8, E_ALIGN},           {BYTES - 2, 4, E_ALIGN},   {0, BYTES + 1, E_RANGE},
        {4, BYTES, E_RANGE},       {BYTES, 4, E_RANGE},       {BYTES + 4, 4, E_RANGE},
        {BYTES - 4, 8, E_RANGE},   {4, SIZE_MAX, E_RANGE},    {SIZE_MAX - 3, 4, E_RANGE},
        {SIZE_MAX - 3, SIZE_MAX, E_RANGE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpgpu_buffer *w = SENTINEL;
        gpgpu_status s = gpgpu_buffer_wrap_gl(ctx, name, cases[i].offset, cases[i].bytes, &w);
        EXPECT(s == cases[i].expected, "wrap [%zu, +%zu) of %d bytes returned %d (%s), expected %d: %s",
               cases[i].offset, cases[i].bytes, BYTES, (int)s, gpgpu_status_string(s),
               (int)cases[i].expected, gpgpu_last_error(ctx));
        if (s == S_OK) {
            EXPECT(gpgpu_buffer_size(w) == cases[i].bytes, "wrapped size %zu", gpgpu_buffer_size(w));
            gpgpu_buffer_destroy(w);
        } else {
            EXPECT(w == NULL, "wrap [%zu, +%zu): *out is not NULL", cases[i].offset, cases[i].bytes);
            EXPECT_NAMED(ctx, "gpgpu_buffer_wrap_gl");
        }
    }
    /* Names that are no buffer objects: 0, never made, deleted, only reserved. */
    GLuint deleted = gl_buffer_with(zero, 16), reserved = 0;
    gl.DeleteBuffers(1, &deleted);
    gl.GenBuffers(1, &reserved);
    const GLuint not_buffers[] = {0, 987654321u, deleted, reserved};
    for (size_t i = 0; i < sizeof not_buffers / sizeof not_buffers[0]; i++) {
        gpgpu_buffer *w = SENTINEL;
        EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, not_buffers[i], 0, 4, &w), E_INVALID);
        EXPECT(w == NULL, "wrap of non-buffer %u: *out is not NULL", not_buffers[i]);
        EXPECT_NAMED(ctx, "gpgpu_buffer_wrap_gl");
    }
    gl.DeleteBuffers(1, &reserved);
    /* A buffer object without storage has 0 bytes. */
    GLuint empty = 0;
    gl.CreateBuffers(1, &empty);
    gpgpu_buffer *w = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, empty, 0, 4, &w), E_RANGE);
    gl.DeleteBuffers(1, &empty);
    EXPECT_STATUS(NULL, gpgpu_buffer_wrap_gl(NULL, name, 0, 4, &w), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, name, 0, 4, NULL), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_buffer_wrap_gl");
    EXPECT(gl.IsBuffer(name), "failed wraps deleted the GL buffer");
    gl.DeleteBuffers(1, &name);
}

/* The GL buffer: a byte pattern, with N u32 values at element IN_OFF of the
 * wrapped range [offset, offset + WRAP_BYTES). Scans write at OUT_OFF. */
enum {
    WRAP_BYTES = 40960, /* 10240 elements: several work-groups for both primitives */
    GL_BYTES = WRAP_BYTES + 128,
    IN_OFF = 5,
    OUT_OFF = 4600,
    N = 4500
};

static uint8_t image[GL_BYTES], got_image[GL_BYTES], want_image[GL_BYTES];

static void make_image(size_t wrap_offset)
{
    for (size_t i = 0; i < GL_BYTES; i++)
        image[i] = (uint8_t)(i * 131 + 7);
    uint32_t values[N];
    test_random(U32, values, N, wrap_offset);
    memcpy(image + wrap_offset + 4 * IN_OFF, values, sizeof values);
}

static uint32_t image_u32(const uint8_t *img, size_t wrap_offset, size_t index)
{
    uint32_t v;
    memcpy(&v, img + wrap_offset + 4 * index, 4);
    return v;
}

static void cpu_reduce(size_t wrap_offset, gpgpu_op op, uint32_t out[2])
{
    uint32_t sum = 0, lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < N; i++) {
        uint32_t v = image_u32(image, wrap_offset, IN_OFF + i);
        sum += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    out[0] = op == SUM ? sum : op == MAX ? hi : lo;
    out[1] = hi;
}

/* want_image: image with the scan of the input range written at dst_off. */
static void cpu_scan(size_t wrap_offset, bool exclusive, size_t dst_off)
{
    memcpy(want_image, image, GL_BYTES);
    uint32_t acc = 0;
    for (size_t i = 0; i < N; i++) {
        uint32_t v = image_u32(image, wrap_offset, IN_OFF + i);
        uint32_t out = exclusive ? acc : acc + v;
        acc += v;
        memcpy(want_image + wrap_offset + 4 * (dst_off + i), &out, 4);
    }
}

/* Every byte of the GL buffer is what it should be. */
static void expect_image(GLuint name, const uint8_t *want, size_t wrap_offset, const char *what)
{
    gl_read(name, got_image, GL_BYTES);
    for (size_t i = 0; i < GL_BYTES; i++) {
        if (got_image[i] != want[i]) {
            bool inside = i >= wrap_offset && i < wrap_offset + WRAP_BYTES;
            EXPECT(false, "%s (wrap at byte %zu): byte %zu (%s the wrap, element %lld of it) is 0x%02x, expected 0x%02x",
                   what, wrap_offset, i, inside ? "inside" : "outside",
                   ((long long)i - (long long)wrap_offset) / 4, got_image[i], want[i]);
            return;
        }
    }
    EXPECT(true, "%s", what);
}

static void check_wrapped_reduce(gpgpu_context *ctx, gpgpu_buffer *w, GLuint name, size_t offset)
{
    static const gpgpu_algo algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_CLASSIC_HALVING,
                                       GPGPU_ALGO_CLASSIC_STRIDE, GPGPU_ALGO_CLASSIC_MINMAX};
    for (gpgpu_op op = SUM; op <= MINMAX; op++)
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            if (algos[a] == GPGPU_ALGO_CLASSIC_MINMAX && op != MINMAX)
                continue;
            uint32_t got[2] = {0xdeadbeef, 0xdeadbeef}, want[2];
            cpu_reduce(offset, op, want);
            EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, op, algos[a]}, w,
                                            IN_OFF, N, got),
                          S_OK);
            EXPECT(got[0] == want[0] && (op != MINMAX || got[1] == want[1]),
                   "wrap at %zu: reduce op %d algo %d gives %u %u, expected %u %u", offset,
                   (int)op, (int)algos[a], got[0], got[1], want[0], want[1]);
        }
    expect_image(name, image, offset, "after the reductions");
}

static void check_wrapped_scan(gpgpu_context *ctx, gpgpu_buffer *w, GLuint name, size_t offset)
{
    static const gpgpu_algo algos[] = {FAST, CLASSIC};
    for (size_t a = 0; a < 2; a++)
        for (int exclusive = 0; exclusive < 2; exclusive++)
            for (int in_place = 0; in_place < 2; in_place++) {
                size_t dst = in_place ? IN_OFF : OUT_OFF;
                gl.NamedBufferSubData(name, 0, GL_BYTES, image);
                cpu_scan(offset, exclusive, dst);
                EXPECT_STATUS(ctx, gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = U32, .exclusive = exclusive, .algo = algos[a]},
                                              w, IN_OFF, w, dst, N),
                              S_OK);
                char what[128];
                snprintf(what, sizeof what, "%s %s scan %s", algos[a] == FAST ? "fast" : "classic",
                         exclusive ? "exclusive" : "inclusive",
                         in_place ? "in place" : "out of place");
                expect_image(name, want_image, offset, what);
            }
    gl.NamedBufferSubData(name, 0, GL_BYTES, image);
}

/* Element ranges of a wrap are relative to its offset, for transfers too. */
static void check_wrapped_transfers(gpgpu_context *ctx, gpgpu_buffer *w, GLuint name,
                                    size_t offset)
{
    static uint8_t got[WRAP_BYTES];
    EXPECT_STATUS(ctx, gpgpu_buffer_download(w, 0, got, WRAP_BYTES), S_OK);
    EXPECT(memcmp(got, image + offset, WRAP_BYTES) == 0, "wrap at %zu: download differs", offset);
    const uint32_t marks[2] = {0x01020304u, 0x05060708u};
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(w, 8, marks, sizeof marks), S_OK);
    memcpy(want_image, image, GL_BYTES);
    memcpy(want_image + offset + 8, marks, sizeof marks);
    expect_image(name, want_image, offset, "after an upload through the wrap");
    gl.NamedBufferSubData(name, 0, GL_BYTES, image);
    uint32_t r[2];
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, SUM, 0}, w, 1, WRAP_BYTES / 4, r),
                  E_RANGE); /* past the wrap, though not past the GL buffer */
}

static void check_wrapped_at(gpgpu_context *ctx, size_t offset)
{
    make_image(offset);
    GLuint name = gl_buffer_with(image, GL_BYTES);
    gpgpu_buffer *w = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, name, offset, WRAP_BYTES, &w), S_OK);
    if (w) {
        check_wrapped_reduce(ctx, w, name, offset);
        check_wrapped_scan(ctx, w, name, offset);
        check_wrapped_transfers(ctx, w, name, offset);
        gpgpu_buffer_destroy(w);
    }
    EXPECT(gl.IsBuffer(name), "destroying the wrap deleted GL buffer %u", name);
    gl.DeleteBuffers(1, &name);
}

/* f64 needs a wrap offset that is a multiple of 8. */
static void check_wrapped_f64(gpgpu_context *ctx)
{
    double values[256];
    for (int i = 0; i < 256; i++)
        values[i] = i + 1; /* sum 32896, exact */
    static uint8_t bytes[8192];
    memcpy(bytes + 24, values, sizeof values);
    memcpy(bytes + 4100, values, sizeof values);
    GLuint name = gl_buffer_with(bytes, sizeof bytes);
    static const struct {
        size_t offset;
        gpgpu_status expected;
    } cases[] = {{24, S_OK}, {4100, E_ALIGN}, {20, E_ALIGN}, {36, E_ALIGN}, {4, E_ALIGN}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpgpu_buffer *w = NULL;
        EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, name, cases[i].offset, sizeof values, &w),
                      S_OK); /* the wrap itself only needs 4 */
        if (!w)
            continue;
        double sum = 0;
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){F64, SUM, 0}, w, 0, 256, &sum),
                      cases[i].expected);
        if (cases[i].expected == S_OK)
            EXPECT(sum == 32896.0, "f64 sum through a wrap at 24 is %.17g", sum);
        else
            EXPECT_NAMED(ctx, "gpgpu_reduce");
        EXPECT_STATUS(ctx, gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = F64, .exclusive = false, .algo = 0}, w, 0, w, 0, 256),
                      cases[i].expected);
        /* u32 data at the same offset is fine. */
        uint32_t r;
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, SUM, 0}, w, 0, 512, &r),
                      S_OK);
        gpgpu_buffer_destroy(w);
    }
    gl.DeleteBuffers(1, &name);
}

/* Wraps of one GL buffer are one memory to the overlap checks. */
static void check_wrap_overlaps(gpgpu_context *ctx)
{
    static const uint8_t zero[WRAP_OBJECT_BYTES];
    GLuint name = gl_buffer_with(zero, WRAP_OBJECT_BYTES);
    static const size_t ranges[4][2] = {{0, 2048}, {1024, 2048}, {2048, 2048}, {0, 2048}};
    gpgpu_buffer *w[4] = {NULL};
    bool made = true;
    for (int i = 0; i < 4; i++) {
        EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, name, ranges[i][0], ranges[i][1], &w[i]),
                      S_OK);
        made = made && w[i];
    }
    if (made)
        test_wrap_overlaps(ctx, w);
    for (int i = 0; i < 4; i++)
        gpgpu_buffer_destroy(w[i]);
    gl.DeleteBuffers(1, &name);
}

void check_wrapped(gpgpu_context *ctx)
{
    static const size_t offsets[] = {20, 36, 64, 4};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
        check_wrapped_at(ctx, offsets[i]);
    check_wrapped_f64(ctx);
    check_wrap_overlaps(ctx);
}

/* ---------------------------------------------------------------- adopt */

static void expect_restored(const gl_snapshot *want, const char *after)
{
    gl_snapshot got;
    gl_snapshot_take(&gl, &got);
    EXPECT(got.program == want->program, "after %s: current program %d, was %d", after,
           got.program, want->program);
    EXPECT(got.generic == want->generic, "after %s: generic SSBO binding %d, was %d", after,
           got.generic, want->generic);
    for (int i = 0; i < GL_STATE_BINDINGS; i++)
        EXPECT(memcmp(got.ssbo[i], want->ssbo[i], sizeof got.ssbo[i]) == 0,
               "after %s: SSBO binding %d is (%lld, %lld, %lld), was (%lld, %lld, %lld)", after, i,
               (long long)got.ssbo[i][0], (long long)got.ssbo[i][1], (long long)got.ssbo[i][2],
               (long long)want->ssbo[i][0], (long long)want->ssbo[i][1],
               (long long)want->ssbo[i][2]);
    EXPECT(gl.GetError() == GL_NO_ERROR, "after %s: a GL error is pending", after);
}

static GLuint tiny_program(void)
{
    const char *src = "#version 430 core\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
    GLuint shader = gl.CreateShader(GL_COMPUTE_SHADER), program = gl.CreateProgram();
    gl.ShaderSource(shader, 1, &src, NULL);
    gl.CompileShader(shader);
    gl.AttachShader(program, shader);
    gl.LinkProgram(program);
    gl.DeleteShader(shader);
    GLint ok = 0;
    gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
    EXPECT(ok, "the test's own compute program does not link");
    return program;
}

/* Binds the caller's state: ranges at 0 and 1, a whole buffer at 2, nothing at 3. */
static void bind_callers_state(GLuint program, GLuint own0, GLuint own1)
{
    gl.UseProgram(program);
    gl.BindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, own0, 256, 512);
    gl.BindBufferRange(GL_SHADER_STORAGE_BUFFER, 1, own0, 1024, 1024);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, own1);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, 0);
    gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, own1);
}

/* Every kind of call through the adopted context, each leaving the state as it was. */
static void adopted_calls(gpgpu_context *actx, GLuint name, const gl_snapshot *want)
{
    enum { OFFSET = 20 };
    gpgpu_buffer *w = NULL, *own = NULL;
    EXPECT_STATUS(actx, gpgpu_buffer_wrap_gl(actx, name, OFFSET, WRAP_BYTES, &w), S_OK);
    EXPECT_STATUS(actx, gpgpu_buffer_create(actx, 4096, &own), S_OK);
    if (!w || !own)
        return;
    uint32_t got[2], want_sum[2];
    cpu_reduce(OFFSET, SUM, want_sum);
    EXPECT_STATUS(actx, gpgpu_reduce(actx, &(gpgpu_reduce_desc){U32, SUM, 0}, w, IN_OFF, N, got),
                  S_OK);
    EXPECT(got[0] == want_sum[0], "adopted reduce gives %u, expected %u", got[0], want_sum[0]);
    expect_restored(want, "a fast reduce");
    EXPECT_STATUS(actx, gpgpu_reduce(actx, &(gpgpu_reduce_desc){U32, MINMAX, GPGPU_ALGO_CLASSIC_MINMAX},
                                     w, IN_OFF, N, got),
                  S_OK);
    expect_restored(want, "a classic reduce");
    cpu_scan(OFFSET, true, OUT_OFF);
    EXPECT_STATUS(actx, gpgpu_scan(actx, &(gpgpu_scan_desc){.type = U32, .exclusive = true, .algo = FAST}, w, IN_OFF, w, OUT_OFF, N),
                  S_OK);
    expect_restored(want, "a fast scan");
    expect_image(name, want_image, OFFSET, "adopted fast exclusive scan");
    EXPECT_STATUS(actx, gpgpu_scan(actx, &(gpgpu_scan_desc){.type = U32, .exclusive = false, .algo = CLASSIC}, w, IN_OFF, w, IN_OFF, N),
                  S_OK);
    expect_restored(want, "a classic scan");
    EXPECT_STATUS(actx, gpgpu_buffer_copy(w, 0, own, 0, 4096), S_OK);
    expect_restored(want, "a copy");
    EXPECT_STATUS(actx, gpgpu_buffer_upload(own, 0, image, 64), S_OK);
    EXPECT_STATUS(actx, gpgpu_buffer_download(own, 0, got, 8), S_OK);
    expect_restored(want, "an upload and a download");
    double ns;
    EXPECT_STATUS(actx, gpgpu_timer_begin(actx), S_OK);
    EXPECT_STATUS(actx, gpgpu_finish(actx), S_OK);
    EXPECT_STATUS(actx, gpgpu_timer_end(actx, &ns), S_OK);
    expect_restored(want, "a timer and finish");
    EXPECT_STATUS(actx, gpgpu_reduce(actx, &(gpgpu_reduce_desc){U32, SUM, 0}, w, IN_OFF, 1u << 20, got),
                  E_RANGE);
    expect_restored(want, "a failed reduce");
    gpgpu_buffer_destroy(own);
    gpgpu_buffer_destroy(w);
    gl.NamedBufferSubData(name, 0, GL_BYTES, image);
}

/* The headless context is current: a second gpgpu context adopts it. */
void check_adopt(gpgpu_context *ctx)
{
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), S_OK); /* makes ctx's GL context current */
    gpgpu_context *actx = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){
                      .gl_get_proc_address = (gpgpu_get_proc_address)eglGetProcAddress}, &actx),
                  S_OK);
    if (!actx)
        return;
    gpgpu_info info;
    EXPECT_STATUS(actx, gpgpu_context_get_info(actx, &info), S_OK);
    EXPECT(strcmp(info.platform, "adopt") == 0, "adopted context's platform is %s", info.platform);
    make_image(20);
    GLuint name = gl_buffer_with(image, GL_BYTES);
    uint8_t zero[2048] = {0};
    GLuint own0 = gl_buffer_with(zero, 2048), own1 = gl_buffer_with(zero, 1024);
    GLuint program = tiny_program();
    const GLuint programs[] = {0, program};
    for (int i = 0; i < 2; i++) {
        bind_callers_state(programs[i], own0, own1);
        gl_snapshot want;
        gl_snapshot_take(&gl, &want);
        EXPECT(want.ssbo[0][1] == 256 && want.ssbo[2][0] == (GLint64)own1 &&
                   want.program == (GLint)programs[i],
               "the test could not set up its own GL state");
        adopted_calls(actx, name, &want);
    }
    gl.UseProgram(0);
    gl.DeleteProgram(program);
    gpgpu_context_destroy(actx);
    /* The adopted context is the caller's: destroying actx leaves it and its buffers. */
    EXPECT(gl.IsBuffer(name) && gl.IsBuffer(own0), "destroying the adopted context deleted buffers");
    GLuint names[3] = {name, own0, own1};
    gl.DeleteBuffers(3, names);
}

/* With debug, an adopted context installs a GL debug callback; destroying it
 * must give the caller back its own (here, the headless context's). */
void check_adopt_debug(gpgpu_context *ctx)
{
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), S_OK);
    void *fn_before = NULL, *user_before = NULL, *fn_after = NULL, *user_after = NULL;
    gl.GetPointerv(GL_DEBUG_CALLBACK_FUNCTION, &fn_before);
    gl.GetPointerv(GL_DEBUG_CALLBACK_USER_PARAM, &user_before);
    gpgpu_context *actx = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){
                      .gl_get_proc_address = (gpgpu_get_proc_address)eglGetProcAddress,
                      .debug = true}, &actx),
                  S_OK);
    gpgpu_context_destroy(actx);
    gl.GetPointerv(GL_DEBUG_CALLBACK_FUNCTION, &fn_after);
    gl.GetPointerv(GL_DEBUG_CALLBACK_USER_PARAM, &user_after);
    EXPECT(fn_after == fn_before && user_after == user_before,
           "the destroyed adopted context left its GL debug callback (user %p, was %p)", user_after,
           user_before);
}
