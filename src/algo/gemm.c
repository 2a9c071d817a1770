/* gpgpu_gemm: dense C = alpha op(A) op(B) + beta C. The CUDA lab report's
 * methods 1, 2 and 6, each one stage of glsl/gemm.comp, and the register-tiled
 * default, whose block shape comes from the tuner's cache or an estimate. */
#include <stdio.h>
#include <stdlib.h>

#include "algo/gemm.h"
#include "algo/tune_cache.h"

enum { TUNE_REPS = 3 };

exec_dispatch gemm_dispatch(const gemm_problem *p, const char *family, unsigned stage,
                            unsigned wg, unsigned items)
{
    /* Each stage's program holds only its own stage: their shared memory differs. */
    exec_dispatch d = {.variant = {family, p->type, GPGPU_OP_SUM, wg, items, stage}};
    d.params[0] = stage;
    d.params[GEMM_P_M] = p->m;
    d.params[GEMM_P_N] = p->n;
    d.params[GEMM_P_K] = p->k;
    d.bind[0] = p->a;
    d.bind[1] = p->b;
    d.bind[2] = p->c;
    d.params[GEMM_P_A_OFF] = algo_index(p->a, p->a_off, p->type);
    d.params[GEMM_P_B_OFF] = algo_index(p->b, p->b_off, p->type);
    d.params[GEMM_P_C_OFF] = algo_index(p->c, p->c_off, p->type);
    d.params[GEMM_P_LDA] = p->lda;
    d.params[GEMM_P_LDB] = p->ldb;
    d.params[GEMM_P_LDC] = p->ldc;
    d.params[GEMM_P_FLAGS] = (p->trans_a ? GEMM_FLAG_TRANS_A : 0) | (p->trans_b ? GEMM_FLAG_TRANS_B : 0) |
                        (p->beta == 0.0 ? GEMM_FLAG_BETA_IS_ZERO : 0);
    algo_put_scalar(&d, GEMM_P_ALPHA, p->type, p->alpha);
    algo_put_scalar(&d, GEMM_P_BETA, p->type, p->beta);
    return d;
}

gpgpu_status gemm_stage_method1(gpgpu_context *ctx, const gemm_problem *p, unsigned tile)
{
    exec_dispatch d = gemm_dispatch(p, "gemm", GEMM_STAGE_METHOD1, tile * tile, 1);
    d.groups = 1;
    return algo_stage(ctx, &d);
}

gpgpu_status gemm_stage_method2(gpgpu_context *ctx, const gemm_problem *p, unsigned tile)
{
    exec_dispatch d = gemm_dispatch(p, "gemm", GEMM_STAGE_METHOD2, tile * tile, 1);
    d.groups = algo_groups(p->m, tile) * algo_groups(p->n, tile);
    return algo_stage(ctx, &d);
}

/* Every program also declares ops.glsl's s_reduce[WG_SIZE]: drivers drop it where a stage
 * does not use it, but the Vulkan validation layer counts it against the limit. */
static size_t prelude_shared_bytes(gpgpu_type type, unsigned wg)
{
    return (size_t)wg * gpgpu_type_size(type);
}

size_t gemm_method6_shared_bytes(gpgpu_type type, unsigned tile, unsigned outputs)
{
    size_t rows = outputs == 4 ? 2 * tile : tile;
    /* a_next, a_now: rows x tile; b_next, b_now: tile x 2 tile */
    return (2 * rows * tile + 2 * tile * 2 * tile) * gpgpu_type_size(type) +
           prelude_shared_bytes(type, tile * tile);
}

gpgpu_status gemm_stage_method6(gpgpu_context *ctx, const gemm_problem *p, unsigned tile,
                                unsigned outputs)
{
    exec_dispatch d = gemm_dispatch(p, "gemm", GEMM_STAGE_METHOD6, tile * tile, outputs);
    d.groups = algo_groups(p->m, outputs == 4 ? 2 * tile : tile) * algo_groups(p->n, 2 * tile);
    return algo_stage(ctx, &d);
}

gpgpu_status gemm_stage_tiled(gpgpu_context *ctx, const gemm_problem *p,
                              const gpgpu_gemm_tuning *shape)
{
    exec_dispatch d = gemm_dispatch(p, "gemm", GEMM_STAGE_TILED, shape->invocations, 1);
    /* Pieces of 4 consecutive f32, 4-aligned in the binding, load as one 16-byte vector
     * (35.6 -> 37.5 TFLOP/s at 4096 on an H100, Vulkan); the f64 and the GL programs have
     * no such path (with it, f64 fell from 16.4 to 14.4 TFLOP/s and GL f32 from 32 to 26,
     * even where it was not taken), so there the flags change nothing. */
    bool vec = p->type == GPGPU_TYPE_F32;
    if (vec && p->trans_a && d.params[GEMM_P_A_OFF] % 4 == 0 && p->lda % 4 == 0)
        d.params[GEMM_P_FLAGS] |= GEMM_FLAG_VEC_A;
    if (vec && !p->trans_b && d.params[GEMM_P_B_OFF] % 4 == 0 && p->ldb % 4 == 0)
        d.params[GEMM_P_FLAGS] |= GEMM_FLAG_VEC_B;
    exec_shape_set(&d.variant, GEMM_SHAPE_BLOCK_M, shape->block_m);
    exec_shape_set(&d.variant, GEMM_SHAPE_BLOCK_N, shape->block_n);
    exec_shape_set(&d.variant, GEMM_SHAPE_BLOCK_K, shape->block_k);
    exec_shape_set(&d.variant, GEMM_SHAPE_THREAD_M, shape->thread_m);
    d.groups = algo_groups(p->m, shape->block_m) * algo_groups(p->n, shape->block_n);
    return algo_stage(ctx, &d);
}

/* ------------------------------------------------------------ block shapes */

static bool pow2(uint32_t v) { return v && !(v & (v - 1)); }

bool gemm_shape_check(const gpgpu_context *ctx, gpgpu_type type, const gpgpu_gemm_tuning *s,
                      char *why, size_t why_size)
{
    const char *bad = NULL;
    uint32_t wg = s->invocations, bm = s->block_m, bn = s->block_n, bk = s->block_k;
    uint32_t tm = s->thread_m;
    /* Powers of two up to 256 keep every product below in 32 bits and every division exact. */
    if (!pow2(bm) || !pow2(bn) || !pow2(bk) || !pow2(tm) || !pow2(wg) || bm > 256 || bn > 256 ||
        bk > 64 || wg > 1024)
        bad = "block sizes and invocations must be powers of two (blocks up to 256, depth up "
              "to 64, 1024 invocations)";
    else if (tm < 4 || tm > bm || (uint64_t)bm * bn % ((uint64_t)wg * tm) != 0)
        bad = "each invocation's block must be at least 4 rows, and the work-group must "
              "share the block evenly";
    else if (bm * bn / (wg * tm) < 4 || bm * bn / (wg * tm) > bn)
        bad = "each invocation's block must be at least 4 columns wide and fit the block";
    else if ((tm * (bm * bn / (wg * tm))) > 256)
        bad = "more than 256 outputs per invocation do not fit in registers";
    else if (wg > ctx->info.max_workgroup_invocations)
        bad = "the work-group is larger than the device allows";
    else if (2u * bk * (bm + bn) * gpgpu_type_size(type) + prelude_shared_bytes(type, wg) >
             ctx->info.max_shared_memory_bytes)
        bad = "its two slices need more shared memory than the device has";
    if (bad && why)
        snprintf(why, why_size, "block %ux%ux%u, %u rows per invocation, %u invocations: %s", bm,
                 bn, bk, tm, wg, bad);
    return bad == NULL;
}

/* The estimate, from the tuner's runs on an H100 (docs/DECISIONS.md): 128 x 128 blocks
 * with 8 x 8 outputs per invocation (in f64 too) where there are enough blocks to fill a
 * large GPU, 128 x 64 where there are not, 64 x 64 with 4 x 4 for small products; 32 x 32
 * for devices that cannot hold those. */
static gpgpu_gemm_tuning heuristic(const gpgpu_context *ctx, gpgpu_type type, size_t m,
                                   size_t n)
{
    static const gpgpu_gemm_tuning shapes[] = {
        {128, 128, 8, 8, 256, 0}, {128, 64, 8, 8, 256, 0}, {64, 64, 8, 4, 256, 0}};
    static const gpgpu_gemm_tuning smallest = {32, 32, 8, 4, 64, 0};
    enum { ENOUGH_BLOCKS = 128 };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        size_t blocks = size_ceil_div(m, shapes[i].block_m) * size_ceil_div(n, shapes[i].block_n);
        bool last = i + 1 == sizeof shapes / sizeof *shapes;
        if ((blocks >= ENOUGH_BLOCKS || last) && gemm_shape_check(ctx, type, &shapes[i], NULL, 0))
            return shapes[i];
    }
    return smallest;
}

/* The size class: each size rounded up to a power of two. */
static void tune_key(const gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n, size_t k,
                     char *key)
{
    tune_key_start(ctx, "gemm", key);
    tune_key_add(key, "|%s|%u|%u|%u", gpgpu_type_name(type), algo_ceil_pow2(m), algo_ceil_pow2(n),
                 algo_ceil_pow2(k));
}

static gpgpu_gemm_tuning shape_for(gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n,
                                   size_t k)
{
    char key[CTX_TUNE_KEY_SIZE];
    tune_key(ctx, type, m, n, k, key);
    ctx_tune_choice c;
    if (tune_cache_find(ctx, key, &c)) {
        gpgpu_gemm_tuning s = {c.v[0], c.v[1], c.v[2], c.v[3] & 0xffff, c.v[3] >> 16, c.gpu_ns};
        if (gemm_shape_check(ctx, type, &s, NULL, 0)) /* a file from another device */
            return s;
    }
    return heuristic(ctx, type, m, n);
}

/* A product whose op(A) (m x k), op(B) (k x n) and C (m x n) each hold at most the 2^31 - 1
 * elements the shaders index (a zero size holds none). */
static gpgpu_status check_dims(gpgpu_context *ctx, size_t m, size_t n, size_t k,
                               const char *what)
{
    size_t mk, kn, mn;
    CHECK(size_mul(m, k, &mk) && size_mul(k, n, &kn) && size_mul(m, n, &mn) &&
              mk <= ALGO_MAX_COUNT && kn <= ALGO_MAX_COUNT && mn <= ALGO_MAX_COUNT,
          ctx, GPGPU_ERROR_TOO_LARGE,
          "%s: a %zu x %zu x %zu product has matrices past 2^31 - 1 elements", what, m, n, k);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_gemm_shape(gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n, size_t k,
                              gpgpu_gemm_tuning *result)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(result, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_gemm_shape: result is NULL");
    CHECK(gpgpu_type_size(type) != 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_gemm_shape: unknown type %d", (int)type);
    CHECK(type == GPGPU_TYPE_F32 || type == GPGPU_TYPE_F64, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION, "gpgpu_gemm_shape: the type must be f32 or f64");
    TRY(check_dims(ctx, m, n, k, "gpgpu_gemm_shape"));
    *result = shape_for(ctx, type, m, n, k);
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------ the product */

/* The stored matrix behind op(X): rows x cols with row stride ld. */
typedef struct stored {
    size_t rows, cols, ld;
} stored;

static stored stored_of(size_t op_rows, size_t op_cols, bool trans, size_t ld)
{
    stored s = {trans ? op_cols : op_rows, trans ? op_rows : op_cols, ld};
    if (s.ld == 0)
        s.ld = s.cols;
    return s;
}

/* Elements from the first to one past the last that the matrix spans. */
static size_t extent(stored s)
{
    return s.rows == 0 || s.cols == 0 ? 0 : (s.rows - 1) * s.ld + s.cols;
}

static gpgpu_status check_stored(gpgpu_context *ctx, stored s, const gpgpu_buffer *buf,
                                 size_t off, gpgpu_type type, const char *name)
{
    char what[64];
    snprintf(what, sizeof what, "gpgpu_gemm: %s", name);
    CHECK(s.ld >= s.cols, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s is stored %zu x %zu: its row stride %zu is below its width", what, s.rows, s.cols,
          s.ld);
    CHECK(s.ld <= ALGO_MAX_COUNT &&
              (s.rows == 0 || s.ld == 0 || (s.rows - 1) <= ALGO_MAX_COUNT / s.ld),
          ctx,
          GPGPU_ERROR_TOO_LARGE, "%s: %zu rows of stride %zu: the shaders index at most 2^31 - 1 "
          "elements", what, s.rows, s.ld);
    return algo_check_range(ctx, buf, off, extent(s), type, what);
}

static gpgpu_status check_desc(gpgpu_context *ctx, const gpgpu_gemm_desc *desc)
{
    TRY(ALGO_CHECK(ctx, desc->algo, "gpgpu_gemm", GPGPU_ALGO_GEMM_TILED, GPGPU_ALGO_GEMM_METHOD1,
                   GPGPU_ALGO_GEMM_METHOD2, GPGPU_ALGO_GEMM_METHOD6,
                   GPGPU_ALGO_GEMM_COOPMAT_F16));
    TRY(algo_check_type(ctx, desc->type, "gpgpu_gemm"));
    CHECK(desc->type == GPGPU_TYPE_F32 || desc->type == GPGPU_TYPE_F64, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION, "gpgpu_gemm: the type must be f32 or f64");
    CHECK(desc->tile == 0 || desc->tile == 8 || desc->tile == 16 || desc->tile == 32, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_gemm: tile %u: the methods take 8, 16 or 32",
          desc->tile);
    CHECK(desc->outputs == 0 || desc->outputs == 2 || desc->outputs == 4, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_gemm: method 6 computes 2 or 4 outputs per "
          "invocation, not %u", desc->outputs);
    return GPGPU_SUCCESS;
}

/* The method's tile against the device: its work-group and shared memory. */
static gpgpu_status check_method(gpgpu_context *ctx, gpgpu_algo algo, gpgpu_type type,
                                 unsigned tile, unsigned outputs)
{
    CHECK(tile * tile <= ctx->info.max_workgroup_invocations, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_gemm: a %ux%u tile needs work-groups of %u invocations; %s allows %u", tile,
          tile, tile * tile, ctx->info.renderer, ctx->info.max_workgroup_invocations);
    size_t shared = gemm_method6_shared_bytes(type, tile, outputs);
    CHECK(algo != GPGPU_ALGO_GEMM_METHOD6 || shared <= ctx->info.max_shared_memory_bytes, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_gemm: method 6 with a %ux%u tile, %u outputs per invocation and %s needs %zu "
          "bytes of shared memory; %s has %zu",
          tile, tile, outputs, gpgpu_type_name(type), shared, ctx->info.renderer,
          (size_t)ctx->info.max_shared_memory_bytes);
    return GPGPU_SUCCESS;
}

/* The cooperative-matrix product: f32 matrices on a device with the matrix units, and
 * padded scratch matrices the shaders can index. */
static gpgpu_status check_coopmat(gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n,
                                  size_t k)
{
    CHECK(type == GPGPU_TYPE_F32, ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_gemm: the cooperative-matrix product takes f32 matrices (its products are of "
          "their f16 roundings), not %s", gpgpu_type_name(type));
    CHECK(ctx->info.has_coopmat_f16, ctx, GPGPU_ERROR_UNSUPPORTED_FEATURE,
          "gpgpu_gemm: %s (%s) offers no cooperative matrices of f16 into f32 "
          "(VK_NV_cooperative_matrix / GL_NV_cooperative_matrix)",
          ctx->info.renderer, ctx->info.backend);
    gemm_coopmat_sizes z = gemm_coopmat_padded(m, n, k);
    size_t zn = z.n ? z.n : 1, zk = z.k ? z.k : 1;
    CHECK(z.m <= ALGO_MAX_COUNT / zk && z.k <= ALGO_MAX_COUNT / zn && z.m <= ALGO_MAX_COUNT / zn,
          ctx, GPGPU_ERROR_TOO_LARGE, "gpgpu_gemm: the padded f16 copies of a %zu x %zu x %zu "
          "product pass the shaders' 2^31 - 1 elements", m, n, k);
    return GPGPU_SUCCESS;
}

static gpgpu_status run(gpgpu_context *ctx, const gpgpu_gemm_desc *desc, const gemm_problem *p)
{
    unsigned tile = desc->tile ? desc->tile : 16, outputs = desc->outputs ? desc->outputs : 4;
    switch (desc->algo) {
    case GPGPU_ALGO_GEMM_METHOD1:
        return gemm_stage_method1(ctx, p, tile);
    case GPGPU_ALGO_GEMM_METHOD2:
        return gemm_stage_method2(ctx, p, tile);
    case GPGPU_ALGO_GEMM_METHOD6:
        return gemm_stage_method6(ctx, p, tile, outputs);
    case GPGPU_ALGO_GEMM_COOPMAT_F16:
        return gemm_coopmat_run(ctx, p);
    default: {
        gpgpu_gemm_tuning shape =
            desc->tuning ? *desc->tuning : shape_for(ctx, p->type, p->m, p->n, p->k);
        return gemm_stage_tiled(ctx, p, &shape);
    }
    }
}

gpgpu_status gpgpu_gemm(gpgpu_context *ctx, const gpgpu_gemm_desc *desc, size_t m, size_t n,
                        size_t k, double alpha, gpgpu_buffer *a, size_t a_offset,
                        gpgpu_buffer *b, size_t b_offset, double beta, gpgpu_buffer *c,
                        size_t c_offset)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_gemm: desc is NULL");
    TRY(check_desc(ctx, desc));
    TRY(algo_check_scalar(ctx, desc->type, alpha, "alpha", "gpgpu_gemm"));
    TRY(algo_check_scalar(ctx, desc->type, beta, "beta", "gpgpu_gemm"));
    TRY(check_dims(ctx, m, n, k, "gpgpu_gemm"));
    gpgpu_type type = desc->type;
    stored sa = stored_of(m, k, desc->transpose_a, desc->lda);
    stored sb = stored_of(k, n, desc->transpose_b, desc->ldb);
    stored sc = stored_of(m, n, false, desc->ldc);
    TRY(check_stored(ctx, sa, a, a_offset, type, "A"));
    TRY(check_stored(ctx, sb, b, b_offset, type, "B"));
    TRY(check_stored(ctx, sc, c, c_offset, type, "C"));
    size_t size = gpgpu_type_size(type); /* algo_overlap compares bytes */
    CHECK(!algo_overlap(c, c_offset * size, extent(sc) * size, a, a_offset * size,
                        extent(sa) * size) &&
              !algo_overlap(c, c_offset * size, extent(sc) * size, b, b_offset * size,
                            extent(sb) * size),
          ctx, GPGPU_ERROR_OVERLAP, "gpgpu_gemm: C overlaps A or B");
    bool tiled = desc->algo == GPGPU_ALGO_DEFAULT || desc->algo == GPGPU_ALGO_FAST ||
                 desc->algo == GPGPU_ALGO_GEMM_TILED;
    if (desc->algo == GPGPU_ALGO_GEMM_COOPMAT_F16) {
        TRY(check_coopmat(ctx, type, m, n, k));
    } else if (tiled && desc->tuning) {
        char why[256];
        CHECK(gemm_shape_check(ctx, type, desc->tuning, why, sizeof why), ctx,
              GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_gemm: the tuning cannot run: %s", why);
    } else if (!tiled) {
        TRY(check_method(ctx, desc->algo, type, desc->tile ? desc->tile : 16,
                         desc->outputs ? desc->outputs : 4));
    }
    if (m == 0 || n == 0)
        return GPGPU_SUCCESS;
    gemm_problem p = {type, (uint32_t)m, (uint32_t)n, (uint32_t)k, desc->transpose_a,
                      desc->transpose_b, (uint32_t)sa.ld, (uint32_t)sb.ld, (uint32_t)sc.ld,
                      alpha, beta, a, b, c, a_offset, b_offset, c_offset};
    TRY(ctx->exec->begin(ctx));
    return ctx_end(ctx, run(ctx, desc, &p));
}

/* ------------------------------------------------------------------ the tuner */

/* The candidates, all of 256 invocations but the last (for small devices); the tuner
 * times those the device can hold. */
static const gpgpu_gemm_tuning candidates[] = {
    {128, 128, 8, 8, 256, 0}, {128, 128, 16, 8, 256, 0}, {128, 128, 8, 8, 128, 0},
    {256, 128, 8, 8, 256, 0}, {128, 256, 8, 8, 256, 0},  {128, 64, 8, 8, 256, 0},
    {64, 128, 8, 4, 256, 0},  {64, 64, 8, 4, 256, 0},    {64, 64, 16, 4, 256, 0},
    {32, 32, 8, 4, 64, 0},
};

/* A x B into C of random values in [-1, 1] (a product of zeros can run faster than real
 * data), in scratch slots 1 to 3. */
static gpgpu_status tune_problem(gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n,
                                 size_t k, gemm_problem *p)
{
    size_t size = gpgpu_type_size(type), counts[3] = {m * k, k * n, m * n};
    gpgpu_buffer *bufs[3];
    size_t largest = counts[0] > counts[1] ? counts[0] : counts[1];
    void *host = malloc(largest * size);
    CHECK(host, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_gemm_tune: out of host memory");
    uint32_t state = 12345;
    for (size_t i = 0; i < largest; i++) {
        state = state * 1664525u + 1013904223u;
        double v = (double)(state >> 8) / (1 << 23) - 1.0;
        if (type == GPGPU_TYPE_F32)
            ((float *)host)[i] = (float)v;
        else
            ((double *)host)[i] = v;
    }
    gpgpu_status s = GPGPU_SUCCESS;
    for (int i = 0; i < 3 && s == GPGPU_SUCCESS; i++)
        s = ctx_scratch(ctx, 1 + i, counts[i] * size, &bufs[i]);
    if (s == GPGPU_SUCCESS)
        s = ctx->exec->begin(ctx);
    for (int i = 0; i < 2 && s == GPGPU_SUCCESS; i++)
        s = ctx->exec->buffer_write(bufs[i], 0, host, counts[i] * size);
    free(host);
    s = s == GPGPU_SUCCESS ? ctx_end(ctx, s) : s;
    *p = (gemm_problem){type, (uint32_t)m, (uint32_t)n, (uint32_t)k, false, false,
                        (uint32_t)k, (uint32_t)n, (uint32_t)n, 1.0, 0.0,
                        bufs[0], bufs[1], bufs[2], 0, 0, 0};
    return s;
}

typedef struct tiled_run {
    const gemm_problem *p;
    const gpgpu_gemm_tuning *shape;
} tiled_run;

static gpgpu_status run_tiled(gpgpu_context *ctx, const void *data)
{
    const tiled_run *t = data;
    return gemm_stage_tiled(ctx, t->p, t->shape);
}

/* The time of one product with a shape (its program built), the mean of TUNE_REPS. */
static gpgpu_status time_shape(gpgpu_context *ctx, const gemm_problem *p,
                               const gpgpu_gemm_tuning *shape, double *ns)
{
    return tune_time_runs(ctx, run_tiled, &(tiled_run){p, shape}, TUNE_REPS, ns);
}

static void say(gpgpu_progress_callback progress, void *user_data, const char *verb,
                const gpgpu_gemm_tuning *s, double ns, double flops)
{
    if (!progress)
        return;
    char line[200];
    snprintf(line, sizeof line,
             "gemm tune: %s block %ux%ux%u, %u rows per invocation, %u invocations: %.1f us, "
             "%.1f GFLOP/s",
             verb, s->block_m, s->block_n, s->block_k, s->thread_m, s->invocations, ns / 1000,
             ns > 0 ? flops / ns : 0.0);
    progress(line, user_data);
}

gpgpu_status gpgpu_gemm_tune(gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n, size_t k,
                             gpgpu_progress_callback progress, void *user_data,
                             gpgpu_gemm_tuning *result)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    TRY(algo_check_type(ctx, type, "gpgpu_gemm_tune"));
    CHECK(type == GPGPU_TYPE_F32 || type == GPGPU_TYPE_F64, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION, "gpgpu_gemm_tune: the type must be f32 or f64");
    CHECK(m && n && k, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_gemm_tune: a %zu x %zu x %zu product has nothing to time", m, n, k);
    TRY(check_dims(ctx, m, n, k, "gpgpu_gemm_tune"));
    TRY(tune_check_can_time(ctx, "gpgpu_gemm_tune"));
    gemm_problem p;
    TRY(tune_problem(ctx, type, m, n, k, &p));
    double flops = 2.0 * (double)m * (double)n * (double)k;
    gpgpu_gemm_tuning best = {0}, first = heuristic(ctx, type, m, n);
    enum { COUNT = sizeof candidates / sizeof *candidates };
    bool held[COUNT]; /* the shapes the device can hold */
    for (size_t i = 0; i < COUNT; i++) {
        held[i] = gemm_shape_check(ctx, type, &candidates[i], NULL, 0);
        if (held[i])
            TRY(tune_build(ctx, run_tiled, &(tiled_run){&p, &candidates[i]}));
    }
    for (double start = tune_now_ns(); tune_now_ns() - start < TUNE_WARM_UP_NS;)
        TRY(time_shape(ctx, &p, &first, &first.gpu_ns)); /* the GPU up to speed, untimed */
    double best_ns[COUNT] = {0}; /* each candidate's best over the rounds */
    for (int round = 0; round < TUNE_ROUNDS; round++) {
        for (size_t i = 0; i < COUNT; i++) {
            if (!held[i])
                continue;
            double ns;
            TRY(time_shape(ctx, &p, &candidates[i], &ns));
            say(progress, user_data, "timed", &candidates[i], ns, flops);
            if (round == 0 || ns < best_ns[i])
                best_ns[i] = ns;
        }
    }
    for (size_t i = 0; i < COUNT; i++) {
        if (held[i] && (best.block_m == 0 || best_ns[i] < best.gpu_ns)) {
            best = candidates[i];
            best.gpu_ns = best_ns[i];
        }
    }
    CHECK(best.block_m, ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_gemm_tune: %s can hold none of the block shapes", ctx->info.renderer);
    say(progress, user_data, "chose", &best, best.gpu_ns, flops);
    ctx_tune_choice c = {.v = {best.block_m, best.block_n, best.block_k,
                               best.thread_m | best.invocations << 16},
                         .gpu_ns = best.gpu_ns};
    tune_key(ctx, type, m, n, k, c.key);
    TRY(tune_cache_remember(ctx, &c));
    if (result)
        *result = best;
    return GPGPU_SUCCESS;
}
