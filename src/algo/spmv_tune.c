/* The vector kernel's shape (invocations per row x rows per work-group):
 * Mossaiby's estimate from row lengths, and the tuner that times the shapes on
 * the matrix itself and remembers the fastest per device and matrix shape, in
 * the context and in the tuners' cache file (tune_cache.c). */
#include <stdio.h>
#include <stdlib.h>

#include "algo/spmv.h"
#include "algo/tune_cache.h"

enum { TUNE_REPS = 3, TUNE_HEURISTIC_WG = 256 };

static uint32_t floor_pow2(double v)
{
    uint32_t p = 1;
    while (p * 2.0 <= v && p < 0x80000000u)
        p *= 2;
    return p;
}

/* Mossaiby found the time flat near the optimum, so a shape estimated from the row
 * lengths does well: about as many invocations per row as a row has entries (the
 * mean, rounded down to a power of two), a work-group of 256 invocations. */
static void heuristic(const gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_spmv_tuning *out)
{
    uint32_t tpr = floor_pow2(a->stats.mean), max = spmv_max_threads_per_row(ctx);
    tpr = tpr < max ? tpr : max;
    unsigned wg = TUNE_HEURISTIC_WG < ctx->info.max_workgroup_invocations
                      ? TUNE_HEURISTIC_WG
                      : floor_pow2(ctx->info.max_workgroup_invocations);
    while (tpr > wg)
        tpr /= 2;
    *out = (gpgpu_spmv_tuning){.threads_per_row = tpr, .rows_per_group = wg / tpr};
}

gpgpu_status gpgpu_spmv_heuristic(const gpgpu_matrix *a, gpgpu_spmv_tuning *result)
{
    if (!a)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(result, a->ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_spmv_heuristic: result is NULL");
    heuristic(a->ctx, a, result);
    return GPGPU_SUCCESS;
}

/* ---------------------------------------------------------------- the cache */

/* The matrix's shape: value type, sizes and row-length statistics. */
static void tune_key(const gpgpu_context *ctx, const gpgpu_matrix *a, char *key)
{
    const gpgpu_row_stats *s = &a->stats;
    tune_key_start(ctx, "spmv", key);
    tune_key_add(key, "|%s|%u|%u|%zu|%u|%u|%.6g|%.6g", gpgpu_type_name(a->type), a->rows,
                 a->cols, a->nnz, s->min, s->max, s->mean, s->stddev);
}

/* A remembered shape the kernel would refuse (a file from another device) is ignored. */
static bool usable(const gpgpu_context *ctx, uint32_t t, uint32_t r)
{
    return t && !(t & (t - 1)) && t <= spmv_max_threads_per_row(ctx) && r && !(r & (r - 1)) &&
           (uint64_t)t * r <= ctx->info.max_workgroup_invocations &&
           (uint64_t)t * r <= SPMV_MAX_VECTOR_WG;
}

bool spmv_tuned_shape(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_spmv_tuning *out)
{
    char key[CTX_TUNE_KEY_SIZE];
    tune_key(ctx, a, key);
    ctx_tune_choice c;
    if (!tune_cache_find(ctx, key, &c) || !usable(ctx, c.v[0], c.v[1]))
        return false;
    *out = (gpgpu_spmv_tuning){.threads_per_row = c.v[0], .rows_per_group = c.v[1],
                               .gpu_ns = c.gpu_ns};
    return true;
}

void spmv_vector_shape(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_spmv_tuning *out)
{
    if (!spmv_tuned_shape(ctx, a, out))
        heuristic(ctx, a, out);
}

/* ------------------------------------------------------------------ the tuner */

typedef struct vector_run {
    gpgpu_matrix *a;
    gpgpu_buffer *x, *y;
    uint32_t tpr, rpg;
} vector_run;

static gpgpu_status run_vector(gpgpu_context *ctx, const void *data)
{
    const vector_run *v = data;
    return spmv_run_vector(ctx, v->a, 1, 0, v->x, 0, v->y, 0, v->tpr, v->rpg);
}

/* The time of one product with the given shape (its program built), the mean of
 * TUNE_REPS. */
static gpgpu_status time_shape(gpgpu_context *ctx, gpgpu_matrix *a, gpgpu_buffer *x,
                               gpgpu_buffer *y, uint32_t tpr, uint32_t rpg, double *ns)
{
    return tune_time_runs(ctx, run_vector, &(vector_run){a, x, y, tpr, rpg}, TUNE_REPS, ns);
}

static void say(gpgpu_progress_callback progress, void *user_data, const char *fmt, uint32_t tpr,
                uint32_t rpg, double ns)
{
    if (!progress)
        return;
    char line[160];
    snprintf(line, sizeof line, fmt, tpr, rpg, ns / 1000);
    progress(line, user_data);
}

/* x of ones (any finite values would do: the time is what counts), y written only. */
static gpgpu_status tune_buffers(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_buffer **x,
                                 gpgpu_buffer **y)
{
    size_t size = gpgpu_type_size(a->type);
    TRY(ctx_scratch(ctx, 2, (size_t)a->cols * size, x));
    TRY(ctx_scratch(ctx, 3, (size_t)a->rows * size, y));
    void *ones = malloc((size_t)a->cols * size);
    CHECK(ones, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_spmv_tune: out of host memory");
    for (size_t i = 0; i < a->cols; i++) {
        if (a->type == GPGPU_TYPE_F32)
            ((float *)ones)[i] = 1;
        else
            ((double *)ones)[i] = 1;
    }
    gpgpu_status s = ctx->exec->begin(ctx);
    if (s == GPGPU_SUCCESS)
        s = ctx_end(ctx, ctx->exec->buffer_write(*x, 0, ones, (size_t)a->cols * size));
    free(ones);
    return s;
}

/* Every power of two of invocations per row, in work-groups of 128 and 256: the row's
 * share of invocations is what matters (Mossaiby found the time flat around the best
 * shape), and each candidate is a program to build (all built before the warm-up). */
static gpgpu_status tune(gpgpu_context *ctx, gpgpu_matrix *a, gpgpu_progress_callback progress,
                         void *user_data, gpgpu_spmv_tuning *best)
{
    gpgpu_spmv_tuning guess;
    heuristic(ctx, a, &guess);
    gpgpu_buffer *x, *y;
    TRY(tune_buffers(ctx, a, &x, &y));
    *best = (gpgpu_spmv_tuning){0};
    /* The candidates (invocations per row, rows per group): up to 9 + 8 shapes. */
    enum { MOST = 20 };
    uint32_t tpr_of[MOST], rpg_of[MOST];
    size_t count = 0;
    uint32_t max_tpr = spmv_max_threads_per_row(ctx);
    for (uint32_t wg = 128; wg <= 256 && wg <= ctx->info.max_workgroup_invocations; wg *= 2) {
        for (uint32_t tpr = 1; tpr <= max_tpr && tpr <= wg && count < MOST; tpr *= 2) {
            tpr_of[count] = tpr;
            rpg_of[count++] = wg / tpr;
        }
    }
    for (size_t i = 0; i < count; i++)
        TRY(tune_build(ctx, run_vector, &(vector_run){a, x, y, tpr_of[i], rpg_of[i]}));
    for (double start = tune_now_ns(), ns; tune_now_ns() - start < TUNE_WARM_UP_NS;)
        TRY(time_shape(ctx, a, x, y, guess.threads_per_row, guess.rows_per_group, &ns));
    double best_ns[MOST] = {0}; /* each candidate's best over the rounds */
    for (int round = 0; round < TUNE_ROUNDS; round++) {
        for (size_t i = 0; i < count; i++) {
            double ns;
            TRY(time_shape(ctx, a, x, y, tpr_of[i], rpg_of[i], &ns));
            say(progress, user_data, "spmv tune: %u invocations per row x %u rows per group: %.1f us",
                tpr_of[i], rpg_of[i], ns);
            if (round == 0 || ns < best_ns[i])
                best_ns[i] = ns;
        }
    }
    for (size_t i = 0; i < count; i++) {
        if (tpr_of[i] == guess.threads_per_row && rpg_of[i] == guess.rows_per_group)
            best->heuristic_ns = best_ns[i];
        if (best->threads_per_row == 0 || best_ns[i] < best->gpu_ns) {
            best->threads_per_row = tpr_of[i];
            best->rows_per_group = rpg_of[i];
            best->gpu_ns = best_ns[i];
        }
    }
    if (best->heuristic_ns == 0) { /* a shape outside the candidates (a small device limit) */
        TRY(tune_build(ctx, run_vector,
                       &(vector_run){a, x, y, guess.threads_per_row, guess.rows_per_group}));
        TRY(time_shape(ctx, a, x, y, guess.threads_per_row, guess.rows_per_group,
                       &best->heuristic_ns));
    }
    say(progress, user_data, "spmv tune: chose %u invocations per row x %u rows per group: %.1f us",
        best->threads_per_row, best->rows_per_group, best->gpu_ns);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_spmv_tune(gpgpu_context *ctx, gpgpu_matrix *a,
                             gpgpu_progress_callback progress, void *user_data,
                             gpgpu_spmv_tuning *result)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(a, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_spmv_tune: the matrix is NULL");
    CHECK(a->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_spmv_tune: the matrix belongs to another context");
    CHECK(a->format == GPGPU_FORMAT_CSR, ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_spmv_tune: the vector kernel works on CSR, this matrix is %s",
          gpgpu_format_name(a->format));
    TRY(tune_check_can_time(ctx, "gpgpu_spmv_tune"));
    gpgpu_spmv_tuning best;
    if (a->rows == 0 || a->nnz == 0 || a->cols == 0) {
        heuristic(ctx, a, &best); /* nothing to time */
    } else {
        TRY(tune(ctx, a, progress, user_data, &best));
        ctx_tune_choice c = {.v = {best.threads_per_row, best.rows_per_group},
                             .gpu_ns = best.gpu_ns};
        tune_key(ctx, a, c.key);
        TRY(tune_cache_remember(ctx, &c));
    }
    if (result)
        *result = best;
    return GPGPU_SUCCESS;
}
