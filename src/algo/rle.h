/* The run-length encoding family (glsl/rle.comp): the run heads (the keys that differ from
 * their predecessor) compacted by the selection (algo/select.h, SELECT_KEEP_HEADS: each run's
 * first key and its start), then FINISH (the lengths from the starts, the run count beside
 * them); reduce-by-key is that and a segmented sum over the runs. Offsets and counts in
 * elements. */
#ifndef GPGPU_ALGO_RLE_H
#define GPGPU_ALGO_RLE_H

#include "algo/algo.h"
#include "algo/ids/rle_ids.h"
#include "algo/select.h"

enum { RLE_STAGES(ALGO_ID) };
enum { RLE_PARAMS(ALGO_ID) };
enum { RLE_CONSTS(ALGO_ID) };

enum { RLE_WG = 256, RLE_FINISH_GROUPS = 1024 };

/* FINISH of an encoding of n keys (the bound, with `count` the staged device count, or NULL):
 * with R the run count at word total_at of `total` (the selection's), lengths[r] for r < R
 * where `lengths` is set, starts[R] = n, starts[runs_at] = R, count_out[count_out_off] = R
 * where count_out is set. */
typedef struct rle_finish_args {
    gpgpu_buffer *count, *total, *starts, *lengths, *count_out;
    size_t n, total_at, starts_off, runs_at, lengths_off, count_out_off;
} rle_finish_args;

gpgpu_status rle_stage_finish(gpgpu_context *ctx, const rle_finish_args *a);

/* The selection of a's run heads: keys at keys_off, each run's first key to unique (NULL:
 * none), its start to starts (`state` the selection's plan.state_words words). */
select_job rle_heads_job(gpgpu_type type, gpgpu_buffer *keys, size_t keys_off, size_t n,
                         gpgpu_buffer *unique, size_t unique_off, gpgpu_buffer *starts,
                         size_t starts_off);

#endif /* GPGPU_ALGO_RLE_H */
