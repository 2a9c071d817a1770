/* Stream compaction and partition (glsl/select.comp): the driver of gpgpu_select and its
 * stages, each callable alone for the tests. Offsets and counts are in elements.
 *
 * select_run is the compaction any family can call inside a call of its own (the run-length
 * encoding's: the run heads kept, SELECT_KEEP_HEADS, their indices as idx_out, the count as
 * the number of runs): it checks nothing, and leaves the kept count on the GPU at
 * select_total_at. */
#ifndef GPGPU_ALGO_SELECT_H
#define GPGPU_ALGO_SELECT_H

#include "algo/algo.h"
#include "algo/ids/select_ids.h"

enum { SELECT_STAGES(ALGO_ID) };
enum { SELECT_PARAMS(ALGO_ID) };
enum { SELECT_CONSTS(ALGO_ID) };
enum { SELECT_SHAPES(ALGO_SHAPE) };

/* The plan's defaults (algo_select_plan: select_wg, select_items, select_polls,
 * select_staged_parts). */
enum {
    SELECT_WG = 256,
    SELECT_ITEMS = 16,       /* elements per invocation of 4-byte types (f64: half), <= 32 */
    SELECT_MAX_GROUPS = 1024, /* reduce-then-scan: work-groups, and partial counts, at most */
    SELECT_POLLS = 32,       /* single pass: reads of a silent predecessor before recounting */
    SELECT_STAGED_PARTS = 4  /* staged writes: a tile's slots in this many parts */
};

/* job.keep is SELECT_KEEP_FLAGS or a gpgpu_compare, which the shader reads as SELECT_KEEP_*. */
#define SELECT_SAME_KEEP(k) ((int)SELECT_KEEP_##k == (int)GPGPU_COMPARE_##k)
_Static_assert(SELECT_SAME_KEEP(LT) && SELECT_SAME_KEEP(LE) && SELECT_SAME_KEEP(GT) &&
                   SELECT_SAME_KEEP(GE) && SELECT_SAME_KEEP(EQ) && SELECT_SAME_KEEP(NE) &&
                   (int)SELECT_KEEP_FLAGS == (int)GPGPU_COMPARE_NONE,
               "the shader's keep modes are gpgpu_compare's values");

/* The single pass's tile statuses count in 30 bits. */
#define SELECT_SINGLE_PASS_MAX (((size_t)1 << 30) - 1)

/* How a selection of n elements runs: tiles of wg * items elements (ctx->plans.select's,
 * the group halved to the device's most invocations); the single pass a tile a group
 * (state: a ticket, the total, a status word per tile), or reduce-then-scan with `groups`
 * groups of tiles_per_group tiles each (state: a partial count per group, the total after
 * them). */
typedef struct select_plan {
    uint32_t wg, items;
    uint32_t polls; /* the single pass's reads of a silent predecessor before recounting */
    bool staged;    /* CHAINED stages the written elements in shared memory ... */
    bool scatter_staged; /* SCATTER likewise (select_scatter_staged) */
    uint32_t parts; /* ... in this many parts of a tile (a power of two up to items) */
    uint32_t tiles; /* at least 1 */
    uint32_t groups, tiles_per_group;
    bool single_pass;
    bool ticket; /* the single pass's tiles from a counter, else by group index */
    size_t state_words;
} select_plan;

/* The plan for n elements (the bound, with a count on the GPU): the single pass where algo
 * asks for it (GPGPU_ALGO_SCAN_SINGLE_PASS), or by default where select_single_pass says so,
 * the device has subgroups, nothing is partitioned and n fits SELECT_SINGLE_PASS_MAX; else
 * reduce-then-scan. */
select_plan select_plan_for(gpgpu_context *ctx, gpgpu_type type, size_t n, gpgpu_algo algo,
                            bool partition);
/* The same for the run-length encoding's selection of its run heads: one pass or counting
 * first by select_heads_single_pass. */
select_plan select_heads_plan_for(gpgpu_context *ctx, gpgpu_type type, size_t n);

/* Where the total lies in the state: word 1 of the single pass's, word `groups` of
 * reduce-then-scan's. */
static inline size_t select_total_at(select_plan p)
{
    return p.single_pass ? 1 : p.groups;
}

/* One selection: what is kept (flags[i] != 0, in[i] `keep` value, or with SELECT_KEEP_HEADS
 * the elements that start a run of equal ones), where it goes. Unset outputs (NULL) are not
 * written, `out` included (then only the payload and indices are). */
typedef struct select_job {
    gpgpu_type type;
    unsigned keep; /* SELECT_KEEP_FLAGS, a gpgpu_compare, or SELECT_KEEP_HEADS */
    double value;  /* the comparison's constant, rounded to the type */
    bool partition;
    gpgpu_buffer *in;
    size_t in_off;
    gpgpu_buffer *flags;
    size_t flags_off;
    gpgpu_buffer *out;
    size_t out_off;
    gpgpu_buffer *pay_in; /* u32 values carried along (with pay_out) */
    size_t pay_in_off;
    gpgpu_buffer *pay_out;
    size_t pay_out_off;
    gpgpu_buffer *idx_out; /* the input index of each element written */
    size_t idx_out_off;
    size_t n;
    gpgpu_buffer *count; /* NULL, or the staged device count (algo/count.h): n bounds it */
    gpgpu_buffer *state; /* the plan's state_words u32 from state_off */
    size_t state_off;
} select_job;

/* COUNT: state[g] = kept elements of group g's run, g < plan.groups. */
gpgpu_status select_stage_count(gpgpu_context *ctx, const select_job *job, select_plan plan);
/* SCATTER (after COUNT): every element written where it goes; state[groups] = the total. */
gpgpu_status select_stage_scatter(gpgpu_context *ctx, const select_job *job, select_plan plan);
/* CLEAR: the single pass's state words zeroed. */
gpgpu_status select_stage_clear(gpgpu_context *ctx, const select_job *job, select_plan plan);
/* CHAINED (state cleared first when plan.tiles > 1; no partition): every kept element
 * written where it goes in one pass; state[1] = the total, state[2 + t] = INC (bit 31) |
 * the kept elements of tiles 0..t (ref_select_chained_state). force_recount (tests): every
 * look-back ignores what was published and counts its predecessors again. */
gpgpu_status select_stage_chained(gpgpu_context *ctx, const select_job *job, select_plan plan,
                                  bool force_recount);

/* The whole selection on plan (within a call). */
gpgpu_status select_run(gpgpu_context *ctx, const select_job *job, select_plan plan);

#endif /* GPGPU_ALGO_SELECT_H */
