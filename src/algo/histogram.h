/* The histogram family (glsl/histogram.comp): counts of samples in even bins
 * or in bins between given levels, each stage callable alone for the tests.
 * Offsets and counts are in elements. */
#ifndef GPGPU_ALGO_HISTOGRAM_H
#define GPGPU_ALGO_HISTOGRAM_H

#include "algo/algo.h"
#include "algo/ids/histogram_ids.h"

enum { HISTOGRAM_STAGES(ALGO_ID) };
enum { HISTOGRAM_PARAMS(ALGO_ID) };
enum { HISTOGRAM_SHAPES(ALGO_SHAPE) };

enum {
    HIST_WG = 256,
    HIST_ITEMS = 8,          /* samples per invocation per tile */
    HIST_MAX_BINS = 65536,
    HIST_MAX_GROUPS = 1024,  /* SHARED's work-groups, at most */
    /* SHARED gives each work-group at least this many samples per bin, so that adding its
     * counters to the output (one atomic per nonzero bin) stays a small part of its work. */
    HIST_SAMPLES_PER_BIN = 8,
    HIST_QUEUE_SLOT = 11     /* the context's scratch slot of SHARED's tile counter */
};

/* BINS: the sample is counted in no bin. */
#define HIST_NONE UINT32_MAX

/* How samples map to bins: even bins over [lo, hi) (the bits of lo, hi and
 * scale in the element type, as histogram_bins_even makes them), or the
 * levels[levels_off .. + bins] of `levels` (HistogramRange). */
typedef struct histogram_bins {
    uint32_t bins;
    gpgpu_buffer *levels; /* NULL: even bins */
    size_t levels_off;
    double lo, hi;        /* even bins: the bounds, exact in the type */
} histogram_bins;

/* Where the sample count comes from: `n` itself, or min(count[count_off], n)
 * read by the shaders when count is set. */
typedef struct histogram_count {
    gpgpu_buffer *count;
    size_t count_off;
} histogram_count;

/* The scale factor of even float bins (f32, f64): B / (hi - lo) rounded as
 * CUB rounds it in the type, (hi - lo) then the quotient. */
double histogram_scale(gpgpu_type type, uint32_t bins, double lo, double hi);

/* Whether SHARED holds the counters (and levels) of these bins in shared
 * memory on ctx; where not, GLOBAL counts. */
bool histogram_fits_shared(gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b);

/* SHARED's work-groups for n samples of these bins by ctx's plan. */
uint32_t histogram_groups(const gpgpu_context *ctx, size_t n, uint32_t bins);

/* CLEAR: counts[counts_off .. + bins] = 0. */
gpgpu_status histogram_stage_clear(gpgpu_context *ctx, gpgpu_buffer *counts, size_t counts_off,
                                   uint32_t bins);
/* BINS: out[out_off + i] = the bin of sample i, or HIST_NONE (u32), i < n. */
gpgpu_status histogram_stage_bins(gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b,
                                  gpgpu_buffer *in, size_t in_off, size_t n, histogram_count c,
                                  gpgpu_buffer *out, size_t out_off);
/* SHARED: counts[b] += the samples in bin b, counted per work-group in shared memory (groups
 * work-groups) and added to counts by one atomic per nonzero bin; in the form ctx's
 * histogram plan gives (histogram.c, shared_form). */
gpgpu_status histogram_stage_shared(gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b,
                                    gpgpu_buffer *in, size_t in_off, size_t n, histogram_count c,
                                    gpgpu_buffer *counts, size_t counts_off, uint32_t groups);
/* GLOBAL: counts[b] += the samples in bin b, by atomics on counts. */
gpgpu_status histogram_stage_global(gpgpu_context *ctx, gpgpu_type type, const histogram_bins *b,
                                    gpgpu_buffer *in, size_t in_off, size_t n, histogram_count c,
                                    gpgpu_buffer *counts, size_t counts_off);

#endif /* GPGPU_ALGO_HISTOGRAM_H */
