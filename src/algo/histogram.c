/* Histograms: counters privatised in shared memory where the bins fit (each work-group
 * counts its tiles there, then adds its nonzero counters to the output), atomics on the
 * output itself where they do not. See docs/ALGORITHMS.md, Histograms. */
#include <float.h>
#include <math.h>

#include "algo/histogram.h"

/* Shared memory SHARED leaves to the prelude's arrays (ops.glsl's s_reduce: a V per
 * invocation) and the compiler. */
enum { HIST_SHARED_RESERVE = HIST_WG * 16 + 256 };

double histogram_scale(gpgpu_type type, uint32_t bins, double lo, double hi)
{
    if (type == GPGPU_TYPE_F32) {
        float range = (float)hi - (float)lo; /* CUB: T(max - min), then T(bins) / that */
        return (float)bins / range;
    }
    return (double)bins / (hi - lo);
}

/* Integer bins' reciprocal: floor(d * bins / r) = d * W + floor(d * F / 2^64) for d < r,
 * where W = floor(bins / r) and F = ceil(2^64 (bins mod r) / r) (glsl/histogram.comp,
 * bin_of_even, says why that is exact). F by long division in 32-bit digits: bins mod r < r
 * keeps each digit's quotient below 2^32, and F <= 2^64 - 2^32. */
static void even_reciprocal(uint32_t bins, uint32_t r, uint32_t *whole, uint64_t *fraction)
{
    uint64_t rest = bins % r;
    uint64_t q1 = (rest << 32) / r, r1 = (rest << 32) % r;
    uint64_t q0 = (r1 << 32) / r, r0 = (r1 << 32) % r;
    *whole = bins / r;
    *fraction = (q1 << 32) + q0 + (r0 != 0);
}

/* The counters' capacity: the power of two that holds the bins (HISTOGRAM_SHAPE_CAPACITY). */
static uint32_t capacity(uint32_t bins) { return algo_ceil_pow2(bins); }

static size_t shared_bytes(gpgpu_type type, const histogram_bins *b, uint32_t copies)
{
    size_t cap = capacity(b->bins);
    return cap * copies * sizeof(uint32_t) +
           (b->levels ? (cap + 1) * gpgpu_type_size(type) : 0) + HIST_SHARED_RESERVE;
}

bool histogram_fits_shared(gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b)
{
    return shared_bytes(type, b, 1) <= ctx->info.max_shared_memory_bytes;
}

/* SHARED's form on ctx by its histogram plan: the plan's samples per invocation; 16-byte
 * loads for 4-byte samples where a tile's loads come 4 samples to one (items >= 4); the most
 * copies of the counters, up to the plan's, that shared memory holds. */
typedef struct shared_form {
    uint32_t items, copies;
    bool vec, runs, queue;
} shared_form;

static shared_form form_of(const gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b)
{
    const algo_histogram_plan *p = &ctx->plans.histogram;
    shared_form f = {.items = p->items, .copies = p->copies, .runs = p->runs,
                     .queue = p->queue};
    f.vec = p->vec && f.items >= 4 && gpgpu_type_size(type) == 4;
    while (f.copies > 1 && shared_bytes(type, b, f.copies) > ctx->info.max_shared_memory_bytes)
        f.copies /= 2;
    return f;
}

uint32_t histogram_groups(const gpgpu_context *ctx, size_t n, uint32_t bins)
{
    const algo_histogram_plan *p = &ctx->plans.histogram;
    size_t tile = (size_t)HIST_WG * p->items;
    size_t tiles = (n + tile - 1) / tile;
    size_t groups = n / ((size_t)bins * HIST_SAMPLES_PER_BIN);
    if (groups > p->max_groups)
        groups = p->max_groups;
    if (groups > tiles)
        groups = tiles;
    return groups < 1 ? 1 : (uint32_t)groups;
}

/* QUEUE's counter: two words in a scratch slot of their own, zeroed when the slot is made
 * (by CLEAR); every SHARED dispatch's last group sets them back to zero. */
static gpgpu_status queue_counter(gpgpu_context *ctx, gpgpu_buffer **out)
{
    bool fresh = ctx->scratch[HIST_QUEUE_SLOT] == NULL;
    TRY(ctx_scratch(ctx, HIST_QUEUE_SLOT, 2 * sizeof(uint32_t), out));
    if (!fresh)
        return GPGPU_SUCCESS;
    gpgpu_status s = histogram_stage_clear(ctx, *out, 0, 2);
    if (s != GPGPU_SUCCESS) { /* not zeroed (a kept buffer holds old data): made again next time */
        buffer_destroy_internal(ctx->scratch[HIST_QUEUE_SLOT]);
        ctx->scratch[HIST_QUEUE_SLOT] = NULL;
    }
    return s;
}

/* A dispatch of `stage` with the bins, the samples and the count set. */
static exec_dispatch hist_stage(gpgpu_type type, unsigned stage, const histogram_bins *b,
                                gpgpu_buffer *in, size_t in_off, size_t n, histogram_count c,
                                gpgpu_buffer *counts, size_t counts_off)
{
    exec_dispatch d = {.variant = {"histogram", type, GPGPU_OP_SUM, HIST_WG, HIST_ITEMS}};
    d.params[0] = stage;
    d.params[HISTOGRAM_P_N] = (uint32_t)n;
    d.params[HISTOGRAM_P_BINS] = b->bins;
    d.bind[0] = in;
    d.params[HISTOGRAM_P_SRC_OFF] = algo_index(in, in_off, type);
    d.bind[1] = counts;
    d.params[HISTOGRAM_P_DST_OFF] = algo_index(counts, counts_off, GPGPU_TYPE_U32);
    if (b->levels) {
        d.bind[2] = b->levels;
        d.params[HISTOGRAM_P_LEVELS_OFF] = algo_index(b->levels, b->levels_off, type);
        d.params[HISTOGRAM_P_RANGE] = 1;
    } else if (type == GPGPU_TYPE_F32 || type == GPGPU_TYPE_F64) {
        algo_put_scalar(&d, HISTOGRAM_P_LO, type, b->lo);
        algo_put_scalar(&d, HISTOGRAM_P_HI, type, b->hi);
        algo_put_scalar(&d, HISTOGRAM_P_SCALE, type, histogram_scale(type, b->bins, b->lo, b->hi));
    } else {
        /* The bounds' two's-complement bits, and the reciprocal of their difference. */
        uint32_t lo = (uint32_t)(int64_t)b->lo, hi = (uint32_t)(int64_t)b->hi;
        uint64_t fraction;
        d.params[HISTOGRAM_P_LO] = lo;
        d.params[HISTOGRAM_P_HI] = hi;
        even_reciprocal(b->bins, hi - lo, &d.params[HISTOGRAM_P_WHOLE], &fraction);
        d.params[HISTOGRAM_P_SCALE] = (uint32_t)fraction;
        d.params[HISTOGRAM_P_SCALE + 1] = (uint32_t)(fraction >> 32);
    }
    if (c.count) {
        d.bind[3] = c.count;
        d.params[HISTOGRAM_P_COUNT_OFF] = algo_index(c.count, c.count_off, GPGPU_TYPE_U32);
        d.params[HISTOGRAM_P_HAS_COUNT] = 1;
    }
    return d;
}

gpgpu_status histogram_stage_clear(gpgpu_context *ctx, gpgpu_buffer *counts, size_t counts_off,
                                   uint32_t bins)
{
    histogram_bins b = {.bins = bins, .lo = 0, .hi = 1};
    exec_dispatch d = hist_stage(GPGPU_TYPE_U32, HISTOGRAM_STAGE_CLEAR, &b, counts, 0, 0,
                                 (histogram_count){0}, counts, counts_off);
    d.bind[0] = NULL;
    d.groups = algo_groups(bins, HIST_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status histogram_stage_bins(gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b,
                                  gpgpu_buffer *in, size_t in_off, size_t n, histogram_count c,
                                  gpgpu_buffer *out, size_t out_off)
{
    exec_dispatch d = hist_stage(type, HISTOGRAM_STAGE_BINS, b, in, in_off, n, c, out, out_off);
    d.groups = algo_groups(n, HIST_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status histogram_stage_shared(gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b,
                                    gpgpu_buffer *in, size_t in_off, size_t n, histogram_count c,
                                    gpgpu_buffer *counts, size_t counts_off, uint32_t groups)
{
    CHECK(histogram_fits_shared(ctx, type, b), ctx, GPGPU_ERROR_UNSUPPORTED_FEATURE,
          "histogram SHARED: %u bins need %zu bytes of shared memory, %s has %zu", b->bins,
          shared_bytes(type, b, 1), ctx->info.renderer, ctx->info.max_shared_memory_bytes);
    shared_form f = form_of(ctx, type, b);
    exec_dispatch d = hist_stage(type, HISTOGRAM_STAGE_SHARED, b, in, in_off, n, c, counts, counts_off);
    d.variant.only_stage = HISTOGRAM_STAGE_SHARED; /* the counters' shared memory is its alone */
    d.variant.items = f.items;
    exec_shape_set(&d.variant, HISTOGRAM_SHAPE_CAPACITY, capacity(b->bins));
    exec_shape_set(&d.variant, HISTOGRAM_SHAPE_LEVELS, b->levels != NULL); /* searched there */
    exec_shape_set(&d.variant, HISTOGRAM_SHAPE_COPIES, f.copies);
    exec_shape_set(&d.variant, HISTOGRAM_SHAPE_VEC, f.vec);
    exec_shape_set(&d.variant, HISTOGRAM_SHAPE_RUNS, f.runs);
    exec_shape_set(&d.variant, HISTOGRAM_SHAPE_QUEUE, f.queue);
    if (f.queue)
        TRY(queue_counter(ctx, &d.bind[4]));
    d.groups = groups;
    return algo_stage(ctx, &d);
}

gpgpu_status histogram_stage_global(gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b,
                                    gpgpu_buffer *in, size_t in_off, size_t n, histogram_count c,
                                    gpgpu_buffer *counts, size_t counts_off)
{
    exec_dispatch d = hist_stage(type, HISTOGRAM_STAGE_GLOBAL, b, in, in_off, n, c, counts, counts_off);
    d.groups = algo_groups(n, HIST_WG * HIST_ITEMS);
    return algo_stage(ctx, &d);
}

/* ------------------------------------------------------------------ driver */

/* The counters zeroed, then the samples counted (n is the dispatch's bound: the count may
 * come from a buffer). */
static gpgpu_status histogram_run(gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b,
                                  gpgpu_buffer *in, size_t in_off, size_t n, histogram_count c,
                                  gpgpu_buffer *counts, size_t counts_off)
{
    TRY(histogram_stage_clear(ctx, counts, counts_off, b->bins));
    if (n == 0)
        return GPGPU_SUCCESS;
    if (histogram_fits_shared(ctx, type, b))
        return histogram_stage_shared(ctx, type, b, in, in_off, n, c, counts, counts_off,
                                      histogram_groups(ctx, n, b->bins));
    return histogram_stage_global(ctx, type, b, in, in_off, n, c, counts, counts_off);
}

/* Even bins' bounds: integers of the type, or floats rounded to it, finite, lo < hi, with a
 * finite range and a normal scale (a subnormal one may be read as 0 by the device). */
static gpgpu_status check_even(gpgpu_context *ctx, gpgpu_type type, uint32_t bins, double lo,
                               double hi, histogram_bins *b)
{
    const char *tn = gpgpu_type_name(type);
    CHECK(!isnan(lo) && !isnan(hi) && isfinite(lo) && isfinite(hi), ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_histogram: lower %g and upper %g must be finite",
          lo, hi);
    if (type == GPGPU_TYPE_U32 || type == GPGPU_TYPE_I32) {
        double least = type == GPGPU_TYPE_U32 ? 0.0 : (double)INT32_MIN;
        double most = type == GPGPU_TYPE_U32 ? (double)UINT32_MAX : (double)INT32_MAX;
        CHECK(lo == floor(lo) && hi == floor(hi) && lo >= least && hi <= most, ctx,
              GPGPU_ERROR_INVALID_ARGUMENT,
              "gpgpu_histogram: lower %.17g and upper %.17g must be %s values", lo, hi, tn);
    } else if (type == GPGPU_TYPE_F32) {
        CHECK(fabs(lo) <= FLT_MAX && fabs(hi) <= FLT_MAX, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
              "gpgpu_histogram: lower %g and upper %g lie beyond f32's range", lo, hi);
        lo = (float)lo;
        hi = (float)hi;
    }
    CHECK(lo < hi, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_histogram: lower %.9g is not below upper %.9g (in %s)", lo, hi, tn);
    if (type == GPGPU_TYPE_F32 || type == GPGPU_TYPE_F64) {
        double range = type == GPGPU_TYPE_F32 ? (double)((float)hi - (float)lo) : hi - lo;
        double scale = histogram_scale(type, bins, lo, hi);
        double least = type == GPGPU_TYPE_F32 ? FLT_MIN : DBL_MIN;
        double most = type == GPGPU_TYPE_F32 ? FLT_MAX : DBL_MAX;
        CHECK(range <= most && scale >= least && scale <= most, ctx,
              GPGPU_ERROR_INVALID_ARGUMENT,
              "gpgpu_histogram: %u bins over [%.9g, %.9g) give a range or scale %s cannot hold "
              "as a normal number",
              bins, lo, hi, tn);
    }
    b->lo = lo;
    b->hi = hi;
    return GPGPU_SUCCESS;
}

static gpgpu_status check_args(gpgpu_context *ctx, const gpgpu_histogram_desc *desc,
                               gpgpu_buffer *in, size_t in_off, size_t n, gpgpu_buffer *counts,
                               size_t counts_off, histogram_bins *b)
{
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_histogram: desc is NULL");
    TRY(algo_check_type(ctx, desc->type, "gpgpu_histogram"));
    CHECK(desc->bins >= 1 && desc->bins <= HIST_MAX_BINS, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_histogram: %u bins (1 to %u)", desc->bins, (unsigned)HIST_MAX_BINS);
    *b = (histogram_bins){.bins = desc->bins, .levels = desc->levels,
                          .levels_off = desc->levels_offset};
    size_t size = gpgpu_type_size(desc->type);
    TRY(algo_check_range(ctx, in, in_off, n, desc->type, "gpgpu_histogram (samples)"));
    TRY(algo_check_range(ctx, counts, counts_off, desc->bins, GPGPU_TYPE_U32,
                         "gpgpu_histogram (counts)"));
    size_t cbytes = (size_t)desc->bins * 4;
    CHECK(!algo_overlap(in, in_off * size, n * size, counts, counts_off * 4, cbytes), ctx,
          GPGPU_ERROR_OVERLAP, "gpgpu_histogram: the counts overlap the samples");
    if (desc->levels) {
        TRY(algo_check_range(ctx, desc->levels, desc->levels_offset, (size_t)desc->bins + 1,
                             desc->type, "gpgpu_histogram (levels)"));
        CHECK(!algo_overlap(desc->levels, desc->levels_offset * size,
                            ((size_t)desc->bins + 1) * size, counts, counts_off * 4, cbytes),
              ctx, GPGPU_ERROR_OVERLAP, "gpgpu_histogram: the counts overlap the levels");
    } else {
        TRY(check_even(ctx, desc->type, desc->bins, desc->lower, desc->upper, b));
    }
    if (desc->count_buffer) {
        TRY(algo_check_range(ctx, desc->count_buffer, desc->count_offset, 1, GPGPU_TYPE_U32,
                             "gpgpu_histogram (count_buffer)"));
        CHECK(!algo_overlap(desc->count_buffer, desc->count_offset * 4, 4, counts,
                            counts_off * 4, cbytes),
              ctx, GPGPU_ERROR_OVERLAP, "gpgpu_histogram: the counts overlap the count_buffer");
    }
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_histogram(gpgpu_context *ctx, const gpgpu_histogram_desc *desc,
                             gpgpu_buffer *in, size_t in_offset, size_t count,
                             gpgpu_buffer *counts, size_t counts_offset)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    histogram_bins b;
    TRY(check_args(ctx, desc, in, in_offset, count, counts, counts_offset, &b));
    TRY(ctx->exec->begin(ctx));
    histogram_count c = {desc->count_buffer, desc->count_offset};
    return ctx_end(ctx, histogram_run(ctx, desc->type, &b, in, in_offset, count, c, counts,
                                      counts_offset));
}
