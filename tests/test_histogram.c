/* The histogram family against its CPU twin (src/ref/ref_histogram.c): BINS (each sample's
 * bin, the bin function alone), CLEAR, SHARED and GLOBAL (counts added to what the counters
 * held) each alone, then gpgpu_histogram for every type, bins 1, 255, 256, 257, 4096 and
 * 65536 and the sizes of test_sizes, even bins and levels, samples on bin edges, below lower,
 * at upper, NaN, infinities and -0; the sample count from a GPU buffer (0, some, all, past
 * the bound); SHARED in each form its plan fields give; the argument checks. Counts are
 * integers: everything matches bit for bit. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/histogram.h"
#include "ref/ref.h"
#include "testlib.h"

static gpgpu_context *ctx;

static const uint32_t bin_counts[] = {1, 255, 256, 257, 4096, 65536};

/* One way of binning: even bins over [lo, hi) or levels (host copy in `levels`). */
typedef struct binning {
    gpgpu_type type;
    uint32_t bins;
    double lo, hi;
    void *levels; /* bins + 1 elements of type, or NULL */
    gpgpu_buffer *levels_buf;
} binning;

static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double unit(void) { return (double)(rng() >> 11) / 9007199254740992.0; }

static void put(gpgpu_type t, void *p, size_t i, double v)
{
    switch (t) {
    case GPGPU_TYPE_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case GPGPU_TYPE_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case GPGPU_TYPE_F32: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
    }
}

static double get(gpgpu_type t, const void *p, size_t i)
{
    switch (t) {
    case GPGPU_TYPE_U32: return ((const uint32_t *)p)[i];
    case GPGPU_TYPE_I32: return ((const int32_t *)p)[i];
    case GPGPU_TYPE_F32: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

/* v clamped to what the type holds (integers: its range, rounded down). */
static double clamp_to(gpgpu_type t, double v)
{
    if (t == GPGPU_TYPE_U32)
        return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : floor(v);
    if (t == GPGPU_TYPE_I32)
        return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : floor(v);
    return v;
}

/* The next value of the type after v towards `to` (integers: v +- 1). */
static double step(gpgpu_type t, double v, double to)
{
    if (t == GPGPU_TYPE_F32)
        return nextafterf((float)v, (float)to);
    if (t == GPGPU_TYPE_F64)
        return nextafter(v, to);
    return clamp_to(t, to > v ? v + 1 : v - 1);
}

/* A value where bins meet: a level, or lower + b (upper - lower) / bins rounded to the type. */
static double edge(const binning *b, uint32_t k)
{
    if (b->levels)
        return get(b->type, b->levels, k);
    double e = b->lo + (b->hi - b->lo) * k / b->bins;
    return clamp_to(b->type, b->type == GPGPU_TYPE_F32 ? (double)(float)e : e);
}

/* n samples for b: a spread over the bins and a margin either side, bin edges and their
 * neighbours, the bounds (lower, upper and just below it), and for floats NaN, +-inf, -0, +0. */
static void samples(const binning *b, void *out, size_t n)
{
    gpgpu_type t = b->type;
    double lo = b->levels ? get(t, b->levels, 0) : b->lo;
    double hi = b->levels ? get(t, b->levels, b->bins) : b->hi;
    double margin = (hi - lo) / 8 + 2;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng() % 100;
        double v;
        if (r < 60) {
            v = lo - margin + unit() * (hi - lo + 2 * margin);
        } else if (r < 85) {
            double e = edge(b, (uint32_t)(rng() % (b->bins + 1)));
            int side = (int)(rng() % 3);
            v = side == 0 ? e : step(t, e, side == 1 ? -INFINITY : INFINITY);
        } else if (r < 95) {
            double bounds[] = {lo, hi, step(t, hi, -INFINITY), step(t, lo, -INFINITY)};
            v = bounds[rng() % 4];
        } else if (is_float(t)) {
            double special[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0};
            v = special[rng() % 6];
        } else {
            double special[] = {t == GPGPU_TYPE_U32 ? 0 : INT32_MIN,
                                t == GPGPU_TYPE_U32 ? UINT32_MAX : INT32_MAX};
            v = special[rng() % 2];
        }
        put(t, out, i, clamp_to(t, v));
    }
}

/* bins + 1 nondecreasing levels: steps of random size, some of them 0 (an empty bin); floats
 * cross 0 (a -0 level among them). */
static void make_levels(binning *b)
{
    gpgpu_type t = b->type;
    b->levels = xmalloc(((size_t)b->bins + 1) * gpgpu_type_size(t));
    double v = t == GPGPU_TYPE_U32 ? 50 : t == GPGPU_TYPE_I32 ? -3000.0 * b->bins / 16 - 7
                                                           : -0.75 * b->bins / 256 - 0.3;
    for (uint32_t k = 0; k <= b->bins; k++) {
        put(t, b->levels, k, v);
        if (is_float(t) && get(t, b->levels, k) < 0 && v + 0.01 >= 0)
            v = -0.0; /* a -0 level next */
        else
            v += rng() % 8 == 0 ? 0
                 : is_float(t)  ? 0.01 * (0.1 + unit())
                                : (double)(1 + rng() % 13);
    }
    b->levels_buf = test_buffer(ctx, b->levels, ((size_t)b->bins + 1) * gpgpu_type_size(t));
}

static void free_binning(binning *b)
{
    free(b->levels);
    gpgpu_buffer_destroy(b->levels_buf);
    b->levels = NULL;
    b->levels_buf = NULL;
}

/* Even bins of type t: ranges that do not divide by the bins, and the type's widest. */
static binning even(gpgpu_type t, uint32_t bins, bool wide)
{
    binning b = {.type = t, .bins = bins};
    switch (t) {
    case GPGPU_TYPE_U32:
        b.lo = wide ? 0 : 7;
        b.hi = wide ? UINT32_MAX : 7 + 1000003.0;
        break;
    case GPGPU_TYPE_I32:
        b.lo = wide ? INT32_MIN : -5000;
        b.hi = wide ? INT32_MAX : 70001;
        break;
    case GPGPU_TYPE_F32: /* bounds exact in f32, as the call rounds them */
        b.lo = wide ? (double)-3e37f : -1.5;
        b.hi = wide ? (double)3e37f : (double)2.3f;
        break;
    default:
        b.lo = wide ? -1e300 : 0.1;
        b.hi = wide ? 1e300 : 0.7;
        break;
    }
    return b;
}

static histogram_bins algo_bins(const binning *b)
{
    return (histogram_bins){.bins = b->bins, .levels = b->levels_buf, .lo = b->lo, .hi = b->hi};
}

static const char *kind(const binning *b) { return b->levels ? "levels" : "even"; }

/* --------------------------------------------------------------- stages */

/* BINS from sample 3 into element 2 of a poisoned output: every sample's bin. */
static void stage_bins(const binning *b, size_t n)
{
    char what[160];
    snprintf(what, sizeof what, "%s BINS %s bins=%u [%g, %g) n=%zu", gpgpu_type_name(b->type),
             kind(b), b->bins, b->lo, b->hi, n);
    void *data = xmalloc(n * gpgpu_type_size(b->type) + 1);
    samples(b, data, n);
    slab src = slab_make(ctx, b->type, 3, n, 2, data);
    slab out = slab_make(ctx, GPGPU_TYPE_U32, 2 + n + 3, 0, 0, NULL);
    histogram_bins hb = algo_bins(b);
    EXPECT_STATUS(ctx, histogram_stage_bins(ctx, b->type, &hb, src.buf, 3, n,
                                            (histogram_count){0}, out.buf, 2),
                  GPGPU_SUCCESS);
    ref_histogram_bins(b->type, b->bins, b->lo, b->hi, b->levels, data, n, slab_at(&out, 2));
    slab_check(&out, NULL, what);
    slab_free(&out);
    slab_free(&src);
    free(data);
}

/* SHARED on `groups` work-groups (0: GLOBAL) over the n samples of src from `off`, adding to
 * counters (from counter 4) that hold random values, against the CPU's counts. */
static void check_counts(const binning *b, const histogram_bins *hb, const slab *src,
                         size_t off, const void *data, size_t n, uint32_t groups,
                         const char *what)
{
    slab counts = slab_make(ctx, GPGPU_TYPE_U32, 4, b->bins, 2, NULL);
    gpgpu_status st = groups ? histogram_stage_shared(ctx, b->type, hb, src->buf, off, n,
                                                      (histogram_count){0}, counts.buf, 4,
                                                      groups)
                             : histogram_stage_global(ctx, b->type, hb, src->buf, off, n,
                                                      (histogram_count){0}, counts.buf, 4);
    EXPECT_STATUS(ctx, st, GPGPU_SUCCESS);
    ref_histogram_count(b->type, b->bins, b->lo, b->hi, b->levels, data, n,
                        slab_at(&counts, 4));
    slab_check(&counts, NULL, what);
    slab_free(&counts);
}

/* CLEAR, then SHARED (where the bins fit) and GLOBAL alone, each adding to counters that
 * hold random values, from sample 1 into counter 4. */
static void stage_counts(const binning *b, size_t n)
{
    const char *tn = gpgpu_type_name(b->type);
    char what[200];
    void *data = xmalloc(n * gpgpu_type_size(b->type) + 1);
    samples(b, data, n);
    slab src = slab_make(ctx, b->type, 1, n, 1, data);
    histogram_bins hb = algo_bins(b);

    snprintf(what, sizeof what, "CLEAR bins=%u", b->bins);
    slab counts = slab_make(ctx, GPGPU_TYPE_U32, 4, b->bins, 2, NULL);
    EXPECT_STATUS(ctx, histogram_stage_clear(ctx, counts.buf, 4, b->bins), GPGPU_SUCCESS);
    memset(slab_at(&counts, 4), 0, (size_t)b->bins * 4);
    slab_check(&counts, NULL, what);
    slab_free(&counts);

    bool fits = histogram_fits_shared(ctx, b->type, &hb);
    uint32_t groups[] = {1, 3, histogram_groups(ctx, n, b->bins)};
    for (int s = 0; s < 4; s++) {
        if (s < 3 && !fits)
            continue;
        snprintf(what, sizeof what, "%s %s %s bins=%u n=%zu groups=%u", tn,
                 s < 3 ? "SHARED" : "GLOBAL", kind(b), b->bins, n, s < 3 ? groups[s] : 0);
        check_counts(b, &hb, &src, 1, data, n, s < 3 ? groups[s] : 0, what);
    }
    slab_free(&src);
    free(data);
}

/* SHARED alone in the form `tune` sets (GPGPU_TUNE's syntax) from sample `off` on, with 1,
 * 3 and the plan's work-groups, adding to counters that hold random values. */
static void call(const binning *b, size_t n, const uint32_t *device);

static void shared_counts(const binning *b, size_t n, size_t off, const char *tune)
{
    void *data = xmalloc(n * gpgpu_type_size(b->type) + 1);
    samples(b, data, n);
    slab src = slab_make(ctx, b->type, off, n, 1, data);
    histogram_bins hb = algo_bins(b);
    uint32_t groups[] = {1, 3, histogram_groups(ctx, n, b->bins)};
    for (int s = 0; s < 3; s++) {
        char what[240];
        snprintf(what, sizeof what, "%s SHARED %s bins=%u n=%zu from %zu groups=%u, %s",
                 gpgpu_type_name(b->type), kind(b), b->bins, n, off, groups[s], tune);
        check_counts(b, &hb, &src, off, data, n, groups[s], what);
    }
    slab_free(&src);
    free(data);
}

/* SHARED's forms by plan (vector loads or not, tiles of 1 to 32 samples an invocation,
 * copies of the counters, runs or an atomic a sample, tiles claimed from a counter), each on
 * sizes with and without full tiles, from each sample offset modulo 4 (the vector loads'
 * first and last samples loaded alone), then whole calls with the count from a GPU buffer
 * (QUEUE's counter back at zero after each dispatch, or the next one would miss tiles). */
static void plan_forms(void)
{
    static const char *const forms[] = {
        "histogram_vec=1",
        "histogram_runs=1",
        "histogram_vec=1,histogram_runs=1,histogram_items=4",
        "histogram_vec=1,histogram_items=32,histogram_copies=4",
        "histogram_copies=32,histogram_runs=0",
        "histogram_queue=1",
        "histogram_vec=1,histogram_queue=1,histogram_items=16,histogram_copies=2,"
        "histogram_runs=0,histogram_groups=7",
        "histogram_vec=1,histogram_items=1,histogram_groups=5",
    };
    static const size_t sizes[] = {2, 1000, 65537};
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    algo_plans saved = algo_plans_get(ctx);
    for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
        algo_plans p;
        EXPECT_STATUS(NULL, algo_plans_parse(forms[f], &p), GPGPU_SUCCESS);
        algo_plans_set(ctx, &p);
        for (size_t ti = 0; ti < sizeof test_types / sizeof *test_types; ti++) {
            gpgpu_type t = test_types[ti];
            if (t == GPGPU_TYPE_F64 && !info.has_f64)
                continue;
            binning b = even(t, f % 2 ? 256 : 4096, f % 3 == 0);
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                if (sizes[s] <= test_max_n())
                    shared_counts(&b, sizes[s], (s + f + ti) % 4, forms[f]);
            binning l = even(t, 255, false);
            make_levels(&l);
            shared_counts(&l, 65537 < test_max_n() ? 65537 : test_max_n(), f % 4, forms[f]);
            free_binning(&l);
            size_t n = 70001 < test_max_n() ? 70001 : test_max_n();
            uint32_t device[] = {(uint32_t)n / 3, UINT32_MAX};
            for (int k = 0; k < 2; k++)
                call(&b, n, &device[k]);
        }
    }
    algo_plans_set(ctx, &saved);
}

/* ----------------------------------------------------------------- calls */

/* gpgpu_histogram of n samples from sample 2 into counter 3 of a poisoned buffer; with
 * `device` the count comes from a GPU buffer holding it (clamped to n by the call). */
static void call(const binning *b, size_t n, const uint32_t *device)
{
    char what[200];
    snprintf(what, sizeof what, "%s gpgpu_histogram %s bins=%u [%g, %g) n=%zu%s%u",
             gpgpu_type_name(b->type), kind(b), b->bins, b->lo, b->hi, n,
             device ? " count_buffer=" : "", device ? *device : 0);
    void *data = xmalloc(n * gpgpu_type_size(b->type) + 1);
    samples(b, data, n);
    slab src = slab_make(ctx, b->type, 2, n, 1, data);
    slab counts = slab_make(ctx, GPGPU_TYPE_U32, 3, b->bins, 2, NULL);
    gpgpu_buffer *cb = NULL;
    if (device) {
        uint32_t words[3] = {0xA5A5A5A5u, *device, 0xA5A5A5A5u};
        cb = test_buffer(ctx, words, sizeof words);
    }
    gpgpu_histogram_desc desc = {.type = b->type, .bins = b->bins, .lower = b->lo,
                                 .upper = b->hi, .levels = b->levels_buf,
                                 .count_buffer = cb, .count_offset = 1};
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &desc, src.buf, 2, n, counts.buf, 3), GPGPU_SUCCESS);
    size_t real = device && *device < n ? *device : n;
    memset(slab_at(&counts, 3), 0, (size_t)b->bins * 4);
    ref_histogram_count(b->type, b->bins, b->lo, b->hi, b->levels, data, real,
                        slab_at(&counts, 3));
    slab_check(&counts, NULL, what);
    slab_check(&src, NULL, what);
    gpgpu_buffer_destroy(cb);
    slab_free(&counts);
    slab_free(&src);
    free(data);
}

/* Each type's bins and sizes: every bin count on a few sizes (both paths), then the sizes of
 * test_sizes with bin counts in turn, even and levels alternately. */
static void sweep(size_t ti)
{
    gpgpu_type t = test_types[ti];
    static const size_t stage_sizes[] = {1, 1000, 65537};
    for (size_t k = 0; k < sizeof bin_counts / sizeof *bin_counts; k++) {
        for (int levels = 0; levels < 2; levels++) {
            for (int wide = 0; wide < 2 - levels; wide++) {
                binning b = even(t, bin_counts[k], wide);
                if (levels)
                    make_levels(&b);
                for (size_t s = 0; s < sizeof stage_sizes / sizeof *stage_sizes; s++) {
                    if (stage_sizes[s] > test_max_n())
                        continue;
                    stage_bins(&b, stage_sizes[s]);
                    stage_counts(&b, stage_sizes[s]);
                }
                free_binning(&b);
            }
        }
    }
    for (size_t s = 0; test_sizes[s] != SIZE_MAX; s++) {
        if (!test_runs_size(s, ti))
            continue;
        binning b = even(t, bin_counts[s % 6], s % 4 == 3);
        if (s % 2)
            make_levels(&b);
        call(&b, test_sizes[s], NULL);
        free_binning(&b);
    }
}

/* The count from a GPU buffer: none, some, all of the bound, and past it (clamped). */
static void device_counts(gpgpu_type t)
{
    size_t n = 70001 < test_max_n() ? 70001 : test_max_n();
    uint32_t counts[] = {0, 1, (uint32_t)n / 3, (uint32_t)n, (uint32_t)n + 1, UINT32_MAX};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        binning b = even(t, k % 2 ? 4096 : 256, false);
        call(&b, n, &counts[k]);
        b = even(t, 65536, false); /* the global path */
        call(&b, n, &counts[k]);
    }
}

/* ---------------------------------------------------------------- checks */

static void errors(void)
{
    gpgpu_buffer *in = test_buffer(ctx, NULL, 4096), *counts = test_buffer(ctx, NULL, 4096);
    gpgpu_histogram_desc d = {.type = GPGPU_TYPE_F32, .bins = 16, .lower = 0, .upper = 1};
    EXPECT_STATUS(ctx, gpgpu_histogram(NULL, &d, in, 0, 10, counts, 0), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, NULL, in, 0, 10, counts, 0), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &d, NULL, 0, 10, counts, 0), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &d, in, 0, 10, NULL, 0), GPGPU_ERROR_NULL_POINTER);
    gpgpu_histogram_desc bad = d;
    bad.type = (gpgpu_type)9;
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &bad, in, 0, 10, counts, 0),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    uint32_t bins[] = {0, GPGPU_HISTOGRAM_MAX_BINS + 1};
    for (int k = 0; k < 2; k++) {
        bad = d;
        bad.bins = bins[k];
        EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &bad, in, 0, 10, counts, 0),
                      GPGPU_ERROR_INVALID_ARGUMENT);
    }
    /* Bounds: equal, reversed, not finite, NaN, beyond f32, non-integers for u32 and
     * negative ones, a range f32 holds only as infinity, a scale only as a subnormal. */
    struct { gpgpu_type t; double lo, hi; uint32_t bins; } bounds[] = {
        {GPGPU_TYPE_F32, 1, 1, 16},          {GPGPU_TYPE_F32, 2, 1, 16},
        {GPGPU_TYPE_F32, 0, INFINITY, 16},   {GPGPU_TYPE_F64, NAN, 1, 16},
        {GPGPU_TYPE_F32, 0, 1e39, 16},       {GPGPU_TYPE_U32, 0.5, 10, 16},
        {GPGPU_TYPE_U32, -1, 10, 16},        {GPGPU_TYPE_U32, 0, 4294967296.0, 16},
        {GPGPU_TYPE_I32, -2147483649.0, 0, 16}, {GPGPU_TYPE_F32, -3e38, 3e38, 16},
        {GPGPU_TYPE_F32, 0, 3e38, 1},        {GPGPU_TYPE_F64, 0, 1.7e308, 1},
    };
    for (size_t k = 0; k < sizeof bounds / sizeof *bounds; k++) {
        bad = (gpgpu_histogram_desc){.type = bounds[k].t, .bins = bounds[k].bins,
                                     .lower = bounds[k].lo, .upper = bounds[k].hi};
        EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &bad, in, 0, 10, counts, 0),
                      GPGPU_ERROR_INVALID_ARGUMENT);
    }
    /* Ranges past the buffers, overlaps, a count_buffer past its buffer. */
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &d, in, 1020, 10, counts, 0), GPGPU_ERROR_OUT_OF_RANGE);
    bad = d;
    bad.bins = 1024;
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &bad, in, 0, 10, counts, 1), GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &d, in, 0, 100, in, 50), GPGPU_ERROR_OVERLAP);
    bad = d;
    bad.levels = counts;
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &bad, in, 0, 10, counts, 8), GPGPU_ERROR_OVERLAP);
    bad = d;
    bad.count_buffer = counts;
    bad.count_offset = 1024;
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &bad, in, 0, 10, in, 100), GPGPU_ERROR_OUT_OF_RANGE);
    bad.count_offset = 5;
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &bad, in, 0, 10, counts, 0), GPGPU_ERROR_OVERLAP);
    /* Levels: bins + 1 of them must lie in their buffer. */
    bad = d;
    bad.levels = in;
    bad.levels_offset = 1010;
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &bad, in, 0, 10, counts, 0), GPGPU_ERROR_OUT_OF_RANGE);
    /* count 0 still zeroes the counters. */
    slab c = slab_make(ctx, GPGPU_TYPE_U32, 1, 16, 1, NULL);
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &d, in, 0, 0, c.buf, 1), GPGPU_SUCCESS);
    memset(slab_at(&c, 1), 0, 64);
    slab_check(&c, NULL, "gpgpu_histogram of 0 samples");
    slab_free(&c);
    gpgpu_buffer_destroy(in);
    gpgpu_buffer_destroy(counts);
}

/* BINS on n samples of type t over hb, each bin as `want` says it: the output's every word. */
static void bins_written(gpgpu_type t, histogram_bins hb, const void *samples,
                         const uint32_t *want, size_t n, const char *what)
{
    slab src = slab_make(ctx, t, 0, n, 0, samples),
         out = slab_make(ctx, GPGPU_TYPE_U32, 0, n, 0, NULL);
    EXPECT_STATUS(ctx, histogram_stage_bins(ctx, t, &hb, src.buf, 0, n, (histogram_count){0},
                                            out.buf, 0),
                  GPGPU_SUCCESS);
    memcpy(out.host, want, n * sizeof *want);
    slab_check(&out, NULL, what);
    slab_free(&src);
    slab_free(&out);
}

/* Values exactly on the edges of even bins land where floor((v - lo) B / R) puts them, and
 * CUB's float formula where it rounds up at the top: written out. */
static void written_out(void)
{
    /* u32 over [10, 20) in 3 bins: 10..13 bin 0, 14..16 bin 1, 17..19 bin 2; 9, 20 none. */
    uint32_t u[] = {9, 10, 13, 14, 16, 17, 19, 20, 0xffffffffu};
    uint32_t want_u[] = {HIST_NONE, 0, 0, 1, 1, 2, 2, HIST_NONE, HIST_NONE};
    bins_written(GPGPU_TYPE_U32, (histogram_bins){.bins = 3, .lo = 10, .hi = 20}, u, want_u, 9,
                 "u32 [10, 20) in 3 bins, written out");
    /* i32 over the whole range in 65536 bins: INT32_MIN bin 0, -1 bin 32767, 0 bin 32768,
     * INT32_MAX - 1 (the last counted) bin 65535, INT32_MAX none. */
    int32_t i[] = {INT32_MIN, -1, 0, INT32_MAX - 1, INT32_MAX, INT32_MIN + 65535,
                   INT32_MIN + 65536};
    uint32_t want_i[] = {0, 32767, 32768, 65535, HIST_NONE,
                         0, /* 65535 * 65536 < 2^32 - 1 */
                         1 /* 65536 * 65536 >= 2^32 - 1 */};
    bins_written(GPGPU_TYPE_I32, (histogram_bins){.bins = 65536, .lo = INT32_MIN, .hi = INT32_MAX},
                 i, want_i, 7, "i32 [INT32_MIN, INT32_MAX) in 65536 bins, written out");
    /* f32 over [0, 1) in 10 bins: 0.3f * 10 rounds to 3 exactly (bin 3); the float just below
     * 1 times 10 rounds to 10: the last bin; -0 is >= 0: bin 0; 1, NaN, -inf none. */
    float f[] = {0.3f, nextafterf(1.0f, 0.0f), -0.0f, 1.0f, NAN, -INFINITY, 0.1f};
    uint32_t want_f[7];
    for (int k = 0; k < 7; k++)
        want_f[k] = ref_histogram_bin(GPGPU_TYPE_F32, 10, 0, 1, NULL, &f[k]);
    EXPECT(want_f[1] == 9 && want_f[2] == 0 && want_f[3] == HIST_NONE && want_f[4] == HIST_NONE,
           "the twin's f32 bins: %u %u %u %u", want_f[1], want_f[2], want_f[3], want_f[4]);
    bins_written(GPGPU_TYPE_F32, (histogram_bins){.bins = 10, .lo = 0, .hi = 1}, f, want_f, 7,
                 "f32 [0, 1) in 10 bins, written out");
}

/* Integer bins where the range is below the bin count (the whole part of bins / range),
 * and f32 bounds at zero with the denormals either side of it: written out. */
static void written_out_reciprocal(void)
{
    /* u32 over [10, 20) in 256 bins: bin floor(25.6 d). */
    uint32_t u[] = {9, 10, 11, 14, 19, 20};
    uint32_t want_u[] = {HIST_NONE, 0, 25, 102, 230, HIST_NONE};
    bins_written(GPGPU_TYPE_U32, (histogram_bins){.bins = 256, .lo = 10, .hi = 20}, u, want_u, 6,
                 "u32 [10, 20) in 256 bins, written out");
    /* i32 over [-3, 2) in 65536 bins: bin floor(13107.2 d). */
    int32_t i[] = {-4, -3, -2, 0, 1, 2};
    uint32_t want_i[] = {HIST_NONE, 0, 13107, 39321, 52428, HIST_NONE};
    bins_written(GPGPU_TYPE_I32, (histogram_bins){.bins = 65536, .lo = -3, .hi = 2}, i, want_i, 6,
                 "i32 [-3, 2) in 65536 bins, written out");
    /* f32 over [0, 1) in 4 bins: -denorm_min none, -0, +0 and +denorm_min bin 0; over
     * [-1, 0): -1 bin 0, -denorm_min the last bin, -0 and +0 none. */
    float tiny = nextafterf(0.0f, 1.0f);
    float f[] = {-tiny, -0.0f, 0.0f, tiny, -1.0f, nextafterf(-1.0f, -2.0f)};
    uint32_t want_up[] = {HIST_NONE, 0, 0, 0, HIST_NONE, HIST_NONE};
    bins_written(GPGPU_TYPE_F32, (histogram_bins){.bins = 4, .lo = 0, .hi = 1}, f, want_up, 6,
                 "f32 [0, 1) in 4 bins about zero, written out");
    uint32_t want_down[] = {3, HIST_NONE, HIST_NONE, HIST_NONE, 0, HIST_NONE};
    bins_written(GPGPU_TYPE_F32, (histogram_bins){.bins = 4, .lo = -1, .hi = 0}, f, want_down, 6,
                 "f32 [-1, 0) in 4 bins about zero, written out");
}

/* Integer bins over random ranges, wide and narrow, and random bin counts: samples where
 * floor((v - lo) B / r) steps (the first of each bin and the one before it) and at the
 * bounds, each against the CPU twin. */
static void random_integer_ranges(void)
{
    enum { EDGES = 64, N = 2 * EDGES + 4 };
    for (int c = 0; c < 48; c++) {
        gpgpu_type t = c % 2 ? GPGPU_TYPE_I32 : GPGPU_TYPE_U32;
        double least = t == GPGPU_TYPE_U32 ? 0 : INT32_MIN;
        uint64_t r = c % 3 == 0 ? 1 + rng() % 300                      /* below the bins */
                     : c % 3 == 1 ? 1 + rng() % 0xffffffffu              /* any */
                                  : 0xffffffffu - rng() % 1000;          /* near the widest */
        double lo = least + (double)(rng() % (0x100000000u - r));
        uint32_t bins = c % 4 == 0 ? 65536 : 1 + (uint32_t)(rng() % 65536);
        histogram_bins hb = {.bins = bins, .lo = lo, .hi = lo + (double)r};
        uint32_t bits[N], want[N];
        for (int k = 0; k < EDGES; k++) {
            uint64_t b = rng() % bins, first = (b * r + bins - 1) / bins; /* ceil(b r / B) */
            double v = lo + (double)first;
            put(t, bits, 2 * k, v);
            put(t, bits, 2 * k + 1, v > lo ? v - 1 : v);
        }
        double bounds[] = {lo > least ? lo - 1 : lo, lo, lo + (double)r - 1, lo + (double)r};
        for (int k = 0; k < 4; k++)
            put(t, bits, 2 * EDGES + k, bounds[k]);
        for (int k = 0; k < N; k++)
            want[k] = ref_histogram_bin(t, bins, hb.lo, hb.hi, NULL, &bits[k]);
        char what[160];
        snprintf(what, sizeof what, "%s [%.0f, %.0f) in %u bins, at the bins' edges",
                 gpgpu_type_name(t), hb.lo, hb.hi, bins);
        bins_written(t, hb, bits, want, N, what);
    }
}

int main(void)
{
    ctx = test_context();
    rng_state = 1;
    errors();
    written_out();
    written_out_reciprocal();
    random_integer_ranges();
    for (size_t ti = 0; ti < sizeof test_types / sizeof *test_types; ti++) {
        gpgpu_type t = test_types[ti];
        gpgpu_info info;
        gpgpu_context_get_info(ctx, &info);
        if (t == GPGPU_TYPE_F64 && !info.has_f64)
            continue;
        sweep(ti);
        device_counts(t);
    }
    plan_forms();
    gpgpu_context_destroy(ctx);
    return test_finish();
}
