/* The dense product (glsl/gemm.comp) against its CPU twin ref_gemm: every
 * stage alone (the lab report's methods 1, 2 and 6 with every tile and output
 * count, the register-tiled kernel with every candidate block shape the device
 * holds), then gpgpu_gemm for each algorithm, f32 and f64, on awkward shapes
 * (1x1, 1xN, Nx1, primes, tall-skinny, one past a tile, k = 1, k = 0), all four
 * transposes, row strides wider than the rows, offsets inside poisoned
 * buffers, C full of NaN where beta = 0; each output within a bound from k
 * (see tolerance below); then the tuner, its cache, wrapped GL buffers and
 * misuse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo/gemm.h"
#include "ref/ref.h"
#include "testlib.h"

#ifdef GPGPU_HAVE_GL
#include <EGL/egl.h>
#include "glad_gl.h"
#endif

static gpgpu_context *ctx;

typedef struct shape {
    size_t m, n, k;
} shape;

/* One product: the stored matrices with their strides and offsets. */
typedef struct product {
    gpgpu_type t;
    size_t m, n, k;
    bool ta, tb;
    double alpha, beta;
    size_t pad; /* extra elements per row of each stored matrix */
    bool f16;   /* the product is of A and B rounded to f16 (the cooperative-matrix one) */
} product;

static size_t rows_of(size_t r, size_t c, bool trans) { return trans ? c : r; }
static size_t cols_of(size_t r, size_t c, bool trans) { return trans ? r : c; }

/* Where A, B and C start in their buffers: odd offsets, so that index arithmetic that
 * ignores one shows; where the stored widths are all multiples of 4, at multiples of 4
 * instead, so that the tiled kernel's 4-wide loads run too. */
enum { POST = 2 };
static size_t offset_of(const product *q, int which)
{
    static const size_t odd[3] = {3, 1, 5}, aligned[3] = {4, 8, 4};
    bool four = (q->m + q->pad) % 4 == 0 && (q->n + q->pad) % 4 == 0 && (q->k + q->pad) % 4 == 0;
    return four ? aligned[which] : odd[which];
}

typedef gpgpu_status (*runner)(const gemm_problem *p, const void *arg);

/* A copy of n floats, each rounded to f16 and back. */
static float *rounded_f16(const float *x, size_t n)
{
    float *out = xmalloc(n * sizeof *out + 1);
    for (size_t i = 0; i < n; i++)
        out[i] = ref_f16_to_f32(ref_f32_to_f16(x[i]));
    return out;
}

/* Builds the operands, runs `run` on them, and checks the whole of C's buffer against
 * ref_gemm: the m x n block within its bound, everything else (the gaps of a wide
 * stride, the poison around) unchanged; A and B unchanged. */
static void check(const product *q, runner run, const void *arg, const char *what)
{
    gpgpu_type t = q->t;
    size_t ar = rows_of(q->m, q->k, q->ta), ac = cols_of(q->m, q->k, q->ta);
    size_t br = rows_of(q->k, q->n, q->tb), bc = cols_of(q->k, q->n, q->tb);
    size_t lda = ac + q->pad, ldb = bc + q->pad, ldc = q->n + q->pad;
    const size_t A_OFF = offset_of(q, 0), B_OFF = offset_of(q, 1), C_OFF = offset_of(q, 2);
    slab a = slab_make(ctx, t, A_OFF, ar * lda, POST, NULL);
    slab b = slab_make(ctx, t, B_OFF, br * ldb, POST, NULL);
    void *c0 = xmalloc(q->m * ldc * gpgpu_type_size(t) + 1);
    test_random(t, c0, q->m * ldc, test_seed++);
    if (q->beta == 0.0) /* C must not be read: NaN there must not show */
        for (size_t i = 0; i < q->m * ldc; i++) {
            if (t == GPGPU_TYPE_F32)
                ((float *)c0)[i] = NAN;
            else
                ((double *)c0)[i] = NAN;
        }
    slab c = slab_make(ctx, t, C_OFF, q->m * ldc, POST, c0);
    long double *abs = xmalloc((q->m * q->n + 1) * sizeof *abs);
    void *ra = slab_at(&a, A_OFF), *rb = slab_at(&b, B_OFF); /* what the reference multiplies */
    if (q->f16) {
        ra = rounded_f16(ra, ar * lda);
        rb = rounded_f16(rb, br * ldb);
    }
    ref_gemm(t, q->m, q->n, q->k, q->ta, q->tb, q->alpha, ra, lda, rb, ldb, q->beta,
             slab_at(&c, C_OFF), ldc, abs);
    if (q->f16) {
        free(ra);
        free(rb);
    }
    /* A sum of k products in any order, each product rounded once, then alpha times it
     * and beta C added: at most k + 3 roundings between an input and the output. */
    double *tol = exact(c.len);
    for (size_t i = 0; i < q->m; i++)
        for (size_t j = 0; j < q->n; j++)
            tol[C_OFF + i * ldc + j] = tolerance(t, q->k + 3, abs[i * q->n + j]);
    gemm_problem p = {t, (uint32_t)q->m, (uint32_t)q->n, (uint32_t)q->k, q->ta, q->tb,
                      (uint32_t)lda, (uint32_t)ldb, (uint32_t)ldc, q->alpha, q->beta,
                      a.buf, b.buf, c.buf, A_OFF, B_OFF, C_OFF};
    char full[256];
    snprintf(full, sizeof full, "%s %s %zux%zux%zu%s%s alpha=%g beta=%g pad=%zu", what,
             gpgpu_type_name(t), q->m, q->n, q->k, q->ta ? " At" : "", q->tb ? " Bt" : "",
             q->alpha, q->beta, q->pad);
    gpgpu_status s = run(&p, arg);
    EXPECT(s == GPGPU_SUCCESS, "%s: status %s: %s", full, gpgpu_status_string(s),
           gpgpu_last_error(ctx));
    slab_check(&c, tol, full);
    slab_check(&a, NULL, full);
    slab_check(&b, NULL, full);
    free(tol);
    free(abs);
    free(c0);
    slab_free(&a);
    slab_free(&b);
    slab_free(&c);
}

/* ------------------------------------------------------------ the stages alone */

typedef struct method_arg {
    unsigned stage, tile, outputs;
    const gpgpu_gemm_tuning *shape;
} method_arg;

static gpgpu_status run_stage(const gemm_problem *p, const void *arg)
{
    const method_arg *m = arg;
    gpgpu_status s = gpgpu_finish(ctx); /* the stages run outside a public call */
    if (s != GPGPU_SUCCESS)
        return s;
    switch (m->stage) {
    case GEMM_STAGE_METHOD1: s = gemm_stage_method1(ctx, p, m->tile); break;
    case GEMM_STAGE_METHOD2: s = gemm_stage_method2(ctx, p, m->tile); break;
    case GEMM_STAGE_METHOD6: s = gemm_stage_method6(ctx, p, m->tile, m->outputs); break;
    default: s = gemm_stage_tiled(ctx, p, m->shape); break;
    }
    return s != GPGPU_SUCCESS ? s : gpgpu_finish(ctx);
}

/* Shapes around a tile of side `tile`: one short, exact, one past, and the awkward ones. */
static size_t shapes_around(size_t tile, shape *out)
{
    const shape fixed[] = {{1, 1, 1}, {1, 37, 19}, {37, 1, 19}, {31, 37, 41}, {67, 5, 3},
                           {3, 70, 2}, {33, 35, 1}, {5, 6, 0}};
    size_t n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        out[n++] = fixed[i];
    out[n++] = (shape){tile - 1, tile + 1, tile};
    out[n++] = (shape){tile + 1, 2 * tile + 1, tile + 3};
    out[n++] = (shape){2 * tile, 2 * tile, 2 * tile};
    out[n++] = (shape){4 * tile, 2 * tile + 4, tile + 4}; /* widths of multiples of 4 */
    out[n++] = (shape){2 * tile + 4, 4 * tile, 3 * tile};
    return n;
}

static void check_stage(gpgpu_type t, const method_arg *m, size_t tile, const char *what)
{
    shape shapes[20];
    size_t count = shapes_around(tile, shapes);
    for (size_t i = 0; i < count; i++) {
        /* transposes, strides and beta vary along the list so every one meets each */
        /* the last two (widths of multiples of 4) with strides 4 wider, then tight */
        size_t pad = i + 2 == count ? 4 : i + 1 == count ? 0 : i % 5 == 0 ? 0 : 3;
        product q = {t, shapes[i].m, shapes[i].n, shapes[i].k, i % 2 == 1, i % 4 >= 2,
                     i % 3 == 0 ? 1.0 : 0.75, i % 3 == 2 ? 0.0 : -1.5, pad, false};
        check(&q, run_stage, m, what);
    }
}

static bool method_fits(gpgpu_type t, unsigned stage, unsigned tile, unsigned outputs)
{
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    if (tile * tile > info.max_workgroup_invocations)
        return false;
    return stage != GEMM_STAGE_METHOD6 ||
           gemm_method6_shared_bytes(t, tile, outputs) <= info.max_shared_memory_bytes;
}

static const gpgpu_gemm_tuning tiled_shapes[] = {
    {64, 64, 8, 4, 256, 0},  {128, 128, 8, 8, 256, 0}, {128, 64, 8, 8, 256, 0},
    {64, 128, 16, 4, 256, 0}, {128, 128, 8, 4, 256, 0}, {32, 32, 8, 4, 64, 0},
};

static void check_stages(gpgpu_type t)
{
    static const unsigned tiles[] = {8, 16, 32};
    for (size_t i = 0; i < 3; i++) {
        unsigned tile = tiles[i];
        char what[64];
        for (unsigned stage = GEMM_STAGE_METHOD1; stage <= GEMM_STAGE_METHOD6; stage++) {
            for (unsigned outputs = 2; outputs <= 4; outputs += 2) {
                if (stage != GEMM_STAGE_METHOD6 && outputs == 4)
                    continue;
                if (!method_fits(t, stage, tile, outputs))
                    continue;
                method_arg m = {stage, tile, outputs, NULL};
                snprintf(what, sizeof what, "stage %u tile %u outputs %u", stage, tile,
                         stage == GEMM_STAGE_METHOD6 ? outputs : 1);
                check_stage(t, &m, tile, what);
            }
        }
    }
    for (size_t i = 0; i < sizeof tiled_shapes / sizeof *tiled_shapes; i++) {
        const gpgpu_gemm_tuning *s = &tiled_shapes[i];
        if (!gemm_shape_check(ctx, t, s, NULL, 0))
            continue;
        method_arg m = {GEMM_STAGE_TILED, 0, 0, s};
        char what[96];
        snprintf(what, sizeof what, "tiled %ux%ux%u tm %u wg %u", s->block_m, s->block_n,
                 s->block_k, s->thread_m, s->invocations);
        check_stage(t, &m, s->block_m, what);
    }
}

/* ------------------------------------------------------------- the public call */

static gpgpu_status run_public(const gemm_problem *p, const void *arg)
{
    gpgpu_gemm_desc desc = *(const gpgpu_gemm_desc *)arg;
    desc.type = p->type;
    desc.transpose_a = p->trans_a;
    desc.transpose_b = p->trans_b;
    desc.lda = p->lda;
    desc.ldb = p->ldb;
    desc.ldc = p->ldc;
    return gpgpu_gemm(ctx, &desc, p->m, p->n, p->k, p->alpha, p->a, p->a_off, p->b, p->b_off,
                      p->beta, p->c, p->c_off);
}

static void check_public(gpgpu_type t)
{
    const gpgpu_gemm_desc descs[] = {
        {.algo = GPGPU_ALGO_DEFAULT},
        {.algo = GPGPU_ALGO_GEMM_METHOD1, .tile = 8},
        {.algo = GPGPU_ALGO_GEMM_METHOD2},
        {.algo = GPGPU_ALGO_GEMM_METHOD6, .tile = 8, .outputs = 2},
        {.algo = GPGPU_ALGO_GEMM_METHOD6},
    };
    const shape shapes[] = {{1, 1, 1}, {129, 65, 9}, {200, 3, 7}, {3, 200, 300}, {70, 70, 0}};
    for (size_t d = 0; d < sizeof descs / sizeof *descs; d++) {
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            for (int tr = 0; tr < 4; tr++) {
                product q = {t, shapes[s].m, shapes[s].n, shapes[s].k, tr & 1, tr >> 1,
                             2.0, tr == 3 ? 0.5 : 0.0, tr == 2 ? 1 : 0, false};
                char what[64];
                snprintf(what, sizeof what, "gpgpu_gemm algo %d", (int)descs[d].algo);
                check(&q, run_public, &descs[d], what);
            }
        }
    }
    /* m or n = 0: nothing is written, nothing is read */
    product empty = {t, 0, 5, 4, false, false, 1.0, 0.0, 0, false};
    check(&empty, run_public, &descs[0], "gpgpu_gemm m=0");
    /* a size that fills more blocks than the estimate's threshold (the 128 x 128 shape) */
    if (test_max_n() >= 600 * 600) {
        product big = {t, 600, 520, 64, false, true, 1.0, 0.0, 0, false};
        check(&big, run_public, &descs[0], "gpgpu_gemm large");
    }
}

/* ------------------------------------------------ the cooperative-matrix product */

/* A_TO_F16 and B_TO_F16 alone: the padded f16 copies against ref_f32_to_f16, bit for bit
 * (zeros in the padding); then PRODUCT alone on them against the f32-summed product of the
 * f16 values, and FINISH through whole calls. */
static void check_coopmat_stages(bool ta, bool tb)
{
    enum { M = 37, N = 131, K = 19 };
    gemm_coopmat_sizes z = gemm_coopmat_padded(M, N, K);
    size_t lda = ta ? M : K, ldb = tb ? K : N;
    slab a = slab_make(ctx, GPGPU_TYPE_F32, 0, (size_t)M * K, 0, NULL);
    slab b = slab_make(ctx, GPGPU_TYPE_F32, 0, (size_t)K * N, 0, NULL);
    slab c = slab_make(ctx, GPGPU_TYPE_F32, 0, (size_t)M * N, 0, NULL);
    gemm_coopmat_scratch s = {test_buffer(ctx, NULL, z.m * z.k * 2), test_buffer(ctx, NULL, z.k * z.n * 2),
                              test_buffer(ctx, NULL, z.m * z.n * 4)};
    gemm_problem p = {GPGPU_TYPE_F32, M, N, K, ta, tb, (uint32_t)lda, (uint32_t)ldb, N, 1.0, 0.0,
                      a.buf, b.buf, c.buf, 0, 0, 0};
    uint16_t *a16 = xmalloc(z.m * z.k * 2), *b16 = xmalloc(z.k * z.n * 2);
    for (unsigned stage = GEMM_COOPMAT_A_TO_F16; stage <= GEMM_COOPMAT_PRODUCT; stage++)
        EXPECT_STATUS(ctx, gemm_coopmat_stage(ctx, &p, &s, stage), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(s.a16, 0, a16, z.m * z.k * 2), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(s.b16, 0, b16, z.k * z.n * 2), GPGPU_SUCCESS);
    const float *ha = slab_at(&a, 0), *hb = slab_at(&b, 0);
    size_t bad = 0;
    for (size_t i = 0; i < z.m; i++)
        for (size_t k = 0; k < z.k; k++) {
            float v = i < M && k < K ? ha[ta ? k * lda + i : i * lda + k] : 0.0f;
            bad += a16[i * z.k + k] != ref_f32_to_f16(v);
        }
    for (size_t k = 0; k < z.k; k++)
        for (size_t j = 0; j < z.n; j++) {
            float v = k < K && j < N ? hb[tb ? j * ldb + k : k * ldb + j] : 0.0f;
            bad += b16[k * z.n + j] != ref_f32_to_f16(v);
        }
    EXPECT(bad == 0, "coopmat A_TO_F16/B_TO_F16 (At %d Bt %d): %zu halves differ", ta, tb, bad);
    /* PRODUCT: c32 = a16 * b16 over the padded sizes, summed in f32 */
    float *fa = xmalloc(z.m * z.k * 4), *fb = xmalloc(z.k * z.n * 4), *want = xmalloc(z.m * z.n * 4);
    float *got = xmalloc(z.m * z.n * 4);
    long double *abs = xmalloc(z.m * z.n * sizeof *abs);
    for (size_t i = 0; i < z.m * z.k; i++)
        fa[i] = ref_f16_to_f32(a16[i]);
    for (size_t i = 0; i < z.k * z.n; i++)
        fb[i] = ref_f16_to_f32(b16[i]);
    ref_gemm(GPGPU_TYPE_F32, z.m, z.n, z.k, false, false, 1.0, fa, z.k, fb, z.n, 0.0, want, z.n, abs);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(s.c32, 0, got, z.m * z.n * 4), GPGPU_SUCCESS);
    double *tol = xmalloc(z.m * z.n * sizeof *tol);
    for (size_t i = 0; i < z.m * z.n; i++)
        tol[i] = tolerance(GPGPU_TYPE_F32, z.k + 1, abs[i]);
    check_elems("coopmat PRODUCT", GPGPU_TYPE_F32, got, want, z.m * z.n, tol);
    free(tol), free(abs), free(got), free(want), free(fa), free(fb), free(a16), free(b16);
    gpgpu_buffer_destroy(s.a16);
    gpgpu_buffer_destroy(s.b16);
    gpgpu_buffer_destroy(s.c32);
    slab_free(&a);
    slab_free(&b);
    slab_free(&c);
}

static void check_coopmat(void)
{
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    gpgpu_buffer *x = test_buffer(ctx, NULL, 4096);
    gpgpu_gemm_desc d = {.type = GPGPU_TYPE_F64, .algo = GPGPU_ALGO_GEMM_COOPMAT_F16};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, x, 0, x, 0, 0, x, 64),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    d.type = GPGPU_TYPE_F32;
    if (!info.has_coopmat_f16) {
        EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, x, 0, x, 0, 0, x, 64),
                      GPGPU_ERROR_UNSUPPORTED_FEATURE);
        gpgpu_buffer_destroy(x);
        printf("no cooperative matrices on %s: the f16 product is refused\n", info.renderer);
        return;
    }
    gpgpu_buffer_destroy(x);
    for (int tr = 0; tr < 4; tr++)
        check_coopmat_stages(tr & 1, tr >> 1);
    const shape shapes[] = {{1, 1, 1}, {16, 16, 16}, {64, 128, 16}, {65, 129, 17}, {200, 3, 300},
                            {3, 200, 7}, {70, 70, 0}, {300, 260, 130}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int tr = 0; tr < 4; tr++) {
            product q = {GPGPU_TYPE_F32, shapes[i].m, shapes[i].n, shapes[i].k, tr & 1, tr >> 1,
                         i % 2 ? 1.0 : -0.5, tr == 3 ? 0.25 : 0.0, tr == 1 ? 3 : 0, true};
            check(&q, run_public, &d, "gpgpu_gemm coopmat");
        }
}

/* --------------------------------------------------------- tuner and misuse */

static int progress_lines;
static void on_progress(const char *line, void *user)
{
    (void)user;
    if (strncmp(line, "gemm tune: ", 11) == 0)
        progress_lines++;
}

static void check_tuner(void)
{
    char dir[96], path[128];
    snprintf(dir, sizeof dir, "/tmp/gpgpu-test-gemm-%d", (int)getpid());
    snprintf(path, sizeof path, "%s/cache/tune", dir);
    setenv("GPGPU_TUNE_CACHE", path, 1);
    gpgpu_gemm_tuning r, known;
    EXPECT_STATUS(ctx, gpgpu_gemm_tune(ctx, GPGPU_TYPE_F32, 100, 90, 40, on_progress, NULL, &r),
                  GPGPU_SUCCESS);
    EXPECT(progress_lines >= 2, "tune: %d progress lines", progress_lines);
    /* No device runs a dispatch in under a microsecond: less is a timer that missed the
     * work (GL on llvmpipe reads 0), which the tuner must not choose by. */
    EXPECT(gemm_shape_check(ctx, GPGPU_TYPE_F32, &r, NULL, 0) && r.gpu_ns >= 1000,
           "tune chose a shape the kernel refuses, or in %g ns", r.gpu_ns);
    /* the same size class finds the choice, in this context and in a new one (the file) */
    EXPECT_STATUS(ctx, gpgpu_gemm_shape(ctx, GPGPU_TYPE_F32, 128, 65, 33, &known),
                  GPGPU_SUCCESS);
    EXPECT(known.block_m == r.block_m && known.block_n == r.block_n &&
               known.block_k == r.block_k && known.thread_m == r.thread_m &&
               known.invocations == r.invocations,
           "gpgpu_gemm_shape does not return the tuned shape");
    gpgpu_context *other = test_context();
    EXPECT_STATUS(other, gpgpu_gemm_shape(other, GPGPU_TYPE_F32, 100, 90, 40, &known),
                  GPGPU_SUCCESS);
    /* (the file keeps whole nanoseconds; llvmpipe's GL timer reads about 1 ns) */
    EXPECT(known.block_m == r.block_m && known.thread_m == r.thread_m &&
               fabs(known.gpu_ns - r.gpu_ns) <= 1,
           "a new context does not read the tuned shape from %s", path);
    gpgpu_context_destroy(other);
    /* the tuned shape computes the right product */
    product q = {GPGPU_TYPE_F32, 100, 90, 40, false, false, 1.0, 0.0, 0, false};
    gpgpu_gemm_desc desc = {0};
    check(&q, run_public, &desc, "gpgpu_gemm tuned");
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    EXPECT(system(cmd) == 0, "cannot remove %s", dir);
    setenv("GPGPU_TUNE_CACHE", "", 1);
}

#ifdef GPGPU_HAVE_GL
/* Wrapped GL buffers: A, B and C inside one GL buffer of the caller, at byte offsets. */
static void check_wrapped_gl(void)
{
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    if (strcmp(info.backend, "gl") != 0)
        return;
    GladGLContext gl;
    if (!gladLoadGLContext(&gl, (GLADloadfunc)eglGetProcAddress)) {
        EXPECT(false, "cannot load GL functions for the wrapped test");
        return;
    }
    enum { M = 19, N = 23, K = 17 };
    float host[M * K + K * N + M * N], want[M * N];
    test_random(GPGPU_TYPE_F32, host, M * K + K * N + M * N, test_seed++);
    memcpy(want, host + M * K + K * N, sizeof want);
    long double abs[M * N];
    ref_gemm(GPGPU_TYPE_F32, M, N, K, false, false, 1.0, host, K, host + M * K, N, 1.0, want, N,
             abs);
    GLuint name = 0;
    gl.CreateBuffers(1, &name);
    gl.NamedBufferStorage(name, 64 + sizeof host, NULL, GL_DYNAMIC_STORAGE_BIT);
    gl.NamedBufferSubData(name, 64, sizeof host, host);
    gpgpu_buffer *wa = NULL, *wb = NULL, *wc = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, name, 64, M * K * 4, &wa), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, name, 64 + M * K * 4, K * N * 4, &wb),
                  GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, name, 64 + (M * K + K * N) * 4, M * N * 4, &wc),
                  GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &(gpgpu_gemm_desc){.type = GPGPU_TYPE_F32}, M, N, K, 1.0,
                                  wa, 0, wb, 0, 1.0, wc, 0),
                  GPGPU_SUCCESS);
    float got[M * N];
    gl.MemoryBarrier(GL_ALL_BARRIER_BITS);
    gl.GetNamedBufferSubData(name, 64 + (M * K + K * N) * 4, sizeof got, got);
    double tol[M * N];
    for (size_t i = 0; i < M * N; i++)
        tol[i] = tolerance(GPGPU_TYPE_F32, K + 3, abs[i]);
    check_elems("gemm on wrapped GL buffers", GPGPU_TYPE_F32, got, want, M * N, tol);
    gpgpu_buffer_destroy(wa);
    gpgpu_buffer_destroy(wb);
    gpgpu_buffer_destroy(wc);
    gl.DeleteBuffers(1, &name);
}
#endif

static void check_misuse(void)
{
    gpgpu_buffer *a = test_buffer(ctx, NULL, 4096), *c = test_buffer(ctx, NULL, 4096);
    const gpgpu_gemm_desc f32 = {.type = GPGPU_TYPE_F32};
    gpgpu_gemm_desc d;
    gpgpu_gemm_tuning r;
    EXPECT_STATUS(NULL, gpgpu_gemm(NULL, &f32, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, NULL, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &f32, 4, 4, 4, 1, NULL, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_NULL_POINTER);
    d = (gpgpu_gemm_desc){.type = GPGPU_TYPE_U32};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    d = (gpgpu_gemm_desc){.type = (gpgpu_type)99};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    d = (gpgpu_gemm_desc){.type = GPGPU_TYPE_F32, .algo = GPGPU_ALGO_RADIX};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    d = (gpgpu_gemm_desc){.type = GPGPU_TYPE_F32, .algo = (gpgpu_algo)999};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    d = (gpgpu_gemm_desc){.type = GPGPU_TYPE_F32, .algo = GPGPU_ALGO_GEMM_METHOD2, .tile = 12};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    d = (gpgpu_gemm_desc){.type = GPGPU_TYPE_F32, .algo = GPGPU_ALGO_GEMM_METHOD6, .outputs = 3};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    d = (gpgpu_gemm_desc){.type = GPGPU_TYPE_F32, .lda = 3};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    /* 4096 bytes hold 1024 floats: a 40 x 40 A does not fit, nor C at an offset past it */
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &f32, 40, 4, 40, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &f32, 4, 4, 4, 1, a, 0, a, 0, 0, c, 1020),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &f32, 4, 4, 4, 1, a, 0, a, 0, 0, a, 8),
                  GPGPU_ERROR_OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &f32, 4, 4, 4, 1, a, 0, a, 0, 0, a, 16),
                  GPGPU_SUCCESS); /* C right after A and B (the same range): no overlap */
    d = (gpgpu_gemm_desc){.type = GPGPU_TYPE_F32, .lda = (size_t)1 << 31};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_TOO_LARGE);
    gpgpu_gemm_tuning bad = {100, 64, 8, 4, 256, 0};
    d = (gpgpu_gemm_desc){.type = GPGPU_TYPE_F32, .tuning = &bad};
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    if (info.has_f64 && gemm_method6_shared_bytes(GPGPU_TYPE_F64, 32, 4) >
                            info.max_shared_memory_bytes) {
        d = (gpgpu_gemm_desc){.type = GPGPU_TYPE_F64, .algo = GPGPU_ALGO_GEMM_METHOD6,
                              .tile = 32, .outputs = 4};
        EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 4, 4, 4, 1, a, 0, a, 0, 0, c, 0),
                      GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    }
    EXPECT_STATUS(ctx, gpgpu_gemm_tune(ctx, GPGPU_TYPE_F32, 0, 4, 4, NULL, NULL, &r),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, gpgpu_gemm_tune(ctx, GPGPU_TYPE_I32, 4, 4, 4, NULL, NULL, &r),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_gemm_shape(ctx, GPGPU_TYPE_F32, 4, 4, 4, NULL),
                  GPGPU_ERROR_NULL_POINTER);
    /* the context still works after every refusal */
    product q = {GPGPU_TYPE_F32, 9, 7, 5, false, false, 1.0, 0.0, 0, false};
    check(&q, run_public, &f32, "gpgpu_gemm after misuse");
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(c);
}

int main(void)
{
    ctx = test_context();
    setenv("GPGPU_TUNE_CACHE", "", 1); /* no test writes the user's cache */
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    for (int i = 0; i < 2; i++) {
        gpgpu_type t = i == 0 ? GPGPU_TYPE_F32 : GPGPU_TYPE_F64;
        if (t == GPGPU_TYPE_F64 && !info.has_f64)
            continue;
        check_stages(t);
        check_public(t);
    }
    check_coopmat();
    check_tuner();
#ifdef GPGPU_HAVE_GL
    check_wrapped_gl();
#endif
    check_misuse();
    gpgpu_context_destroy(ctx);
    return test_finish();
}
