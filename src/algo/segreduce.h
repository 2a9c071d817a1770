/* The segmented reduction family (glsl/segreduce.comp): a merge path over segment ends and
 * elements, its stages callable alone for the tests. Offsets and counts are in elements. */
#ifndef GPGPU_ALGO_SEGREDUCE_H
#define GPGPU_ALGO_SEGREDUCE_H

#include "algo/algo.h"
#include "algo/ids/segreduce_ids.h"

enum { SEGREDUCE_STAGES(ALGO_ID) };
enum { SEGREDUCE_PARAMS(ALGO_ID) };

enum {
    SEGRED_WG = 256,
    SEGRED_ITEMS = 4,            /* path steps per invocation: tiles of 1024 steps */
    SEGRED_SLACK_DIV = 16,       /* a tile start moves back to a segment start by tile/16 */
    SEGRED_FIX_MAX_GROUPS = 4096 /* FIX strides over the tiles with at most these groups */
};

/* The path's tiles: `tile` steps of capacity, starts every `step` steps (moved back to a
 * segment's start by up to `slack`), `tiles` of them for the bound of segments and elements. */
typedef struct segreduce_plan {
    uint32_t tile, step, slack, tiles;
} segreduce_plan;

segreduce_plan segreduce_plan_for(size_t count, size_t segment_count);

/* Words of the plan and tile records (aux, u32) and elements of the partials (work, T). */
static inline size_t segreduce_aux_words(segreduce_plan p) { return 4 * (size_t)p.tiles + 2; }
static inline size_t segreduce_work_elems(segreduce_plan p) { return 2 * (size_t)p.tiles; }

/* One segmented reduction: n input elements from in_off, nseg segments of offsets from
 * seg_off (nseg + 1 of them), or min(count[count_off], nseg) where count is set; out from
 * out_off; aux and work as above. */
typedef struct segreduce_args {
    gpgpu_type type;
    gpgpu_op op;
    gpgpu_buffer *in, *seg, *count, *out, *aux, *work;
    size_t in_off, n, seg_off, nseg, count_off, out_off, aux_off, work_off;
} segreduce_args;

/* PLAN: aux[2 tiles + 2t], aux[2 tiles + 2t + 1] = where tile t begins (segments ended,
 * elements taken from the first offset), t <= tiles. */
gpgpu_status segreduce_stage_plan(gpgpu_context *ctx, const segreduce_args *a, segreduce_plan p);
/* TILES: every segment that ends in the tile it began in written to out; the tile records
 * (aux[2g], aux[2g + 1], work[2g], work[2g + 1]) for those that cross tiles. */
gpgpu_status segreduce_stage_tiles(gpgpu_context *ctx, const segreduce_args *a, segreduce_plan p);
/* FIX: the segments that cross tiles, from the records, written to out. */
gpgpu_status segreduce_stage_fix(gpgpu_context *ctx, const segreduce_args *a, segreduce_plan p);

/* The bytes of scratch the plan and records of n elements and nseg segments take, and where
 * they go: from byte `off` of `scratch` (a multiple of 8), or NULL: the context's own. */
size_t segreduce_scratch_bytes(gpgpu_type type, size_t n, size_t nseg);
gpgpu_status segreduce_place(gpgpu_context *ctx, gpgpu_buffer *scratch, size_t off,
                             segreduce_args *a);

/* PLAN, TILES and FIX (where there is more than one tile), inside a call of another
 * primitive (gpgpu_reduce_by_key); nseg > 0. */
gpgpu_status segreduce_run(gpgpu_context *ctx, const segreduce_args *a);

#endif /* GPGPU_ALGO_SEGREDUCE_H */
