/* The run-length encoding family (glsl/rle.comp): run heads flagged, scanned (the library's
 * scan: the single pass where the device has subgroups) and scattered; reduce-by-key is that
 * and a segmented reduction over the runs. Stages callable alone for the tests; offsets and
 * counts in elements. */
#ifndef GPGPU_ALGO_RLE_H
#define GPGPU_ALGO_RLE_H

#include "algo/algo.h"

enum { RLE_WG = 256 };

/* One encoding: keys (bound n, or min(count[count_off], n) where count is set), the flags'
 * n words, the starts' n + 1 words and the run count at word runs_at of `starts`; unique,
 * lengths and count_out where not NULL. */
typedef struct rle_args {
    gpgpu_type type;
    gpgpu_buffer *keys, *count, *unique, *lengths, *flags, *starts, *count_out;
    size_t keys_off, n, count_off, unique_off, lengths_off, flags_off, starts_off, runs_at,
        count_out_off;
} rle_args;

/* HEADS: flags[i] = whether key i starts a run, i < n (0 past the count). */
gpgpu_status rle_stage_heads(gpgpu_context *ctx, const rle_args *a);
/* SCATTER, on the flags' inclusive scan: unique[r] and starts[r] for each run r, the run
 * count R at starts[runs_at] (and count_out), the key count at starts[R]. */
gpgpu_status rle_stage_scatter(gpgpu_context *ctx, const rle_args *a);
/* LENGTHS: lengths[r] = starts[r + 1] - starts[r], r < R. */
gpgpu_status rle_stage_lengths(gpgpu_context *ctx, const rle_args *a);

#endif /* GPGPU_ALGO_RLE_H */
