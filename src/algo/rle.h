/* The run-length encoding family (glsl/rle.comp): run heads found and compacted in one pass
 * chained by a decoupled look-back where the device has subgroups, else flagged, scanned (the
 * library's scan) and scattered; reduce-by-key is that and a segmented reduction over the
 * runs. Stages callable alone for the tests; offsets and counts in elements. */
#ifndef GPGPU_ALGO_RLE_H
#define GPGPU_ALGO_RLE_H

#include "algo/algo.h"
#include "algo/ids/rle_ids.h"

enum { RLE_STAGES(ALGO_ID) };
enum { RLE_PARAMS(ALGO_ID) };
enum { RLE_CONSTS(ALGO_ID) };

enum {
    RLE_WG = 256,
    RLE_ITEMS = 8,  /* CHAINED: keys per invocation (f64: half), consecutive */
    RLE_POLLS = 32  /* CHAINED: reads of a silent predecessor before counting it */
};

/* One encoding: keys (bound n, or min(count[count_off], n) where count is set), the flags'
 * n words, the starts' n + 1 words and the run count at word runs_at of `starts`; unique,
 * lengths and count_out where not NULL. */
typedef struct rle_args {
    gpgpu_type type;
    gpgpu_buffer *keys, *count, *unique, *lengths, *flags, *starts, *count_out, *state;
    size_t keys_off, n, count_off, unique_off, lengths_off, flags_off, starts_off, runs_at,
        count_out_off, state_off;
    bool forced; /* CHAINED, the tests: every published state ignored (always counted again) */
} rle_args;

/* CHAINED's tiles: RLE_WG x items keys, tiles of them for n keys (at least 1), and the state
 * words (a ticket, then 8 per tile). */
typedef struct rle_chained_plan {
    uint32_t items, tiles;
    size_t state_words;
} rle_chained_plan;

rle_chained_plan rle_chained_plan_for(gpgpu_type type, size_t n);

/* HEADS: flags[i] = whether key i starts a run, i < n (0 past the count). */
gpgpu_status rle_stage_heads(gpgpu_context *ctx, const rle_args *a);
/* SCATTER, on the flags' inclusive scan: unique[r] and starts[r] for each run r, the run
 * count R at starts[runs_at] (and count_out), the key count at starts[R]. */
gpgpu_status rle_stage_scatter(gpgpu_context *ctx, const rle_args *a);
/* LENGTHS: lengths[r] = starts[r + 1] - starts[r], r < R. */
gpgpu_status rle_stage_lengths(gpgpu_context *ctx, const rle_args *a);
/* CLEAR: the state's words zeroed (before CHAINED, where it takes more than one group). */
gpgpu_status rle_stage_clear(gpgpu_context *ctx, const rle_args *a, rle_chained_plan p);
/* CHAINED: what HEADS, the scan, SCATTER and LENGTHS leave (unique keys, starts, lengths, the
 * run count), in one pass over the keys; the flags are not used. */
gpgpu_status rle_stage_chained(gpgpu_context *ctx, const rle_args *a, rle_chained_plan p);

#endif /* GPGPU_ALGO_RLE_H */
