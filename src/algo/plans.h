/* Tuning plans: each family's items per invocation, work-group caps and forms of a stage,
 * as named fields with stated defaults (as CUB's agent policies and VkFFT's configuration
 * fields). A context holds one algo_plans, resolved at its creation (gpgpu_context_create)
 * from what the executor reports about the device (exec_facts) and overridden by name from
 * GPGPU_TUNE="reduce_items=8,scan_single_pass=2,..." (plans.c holds the table of names);
 * the drivers read ctx->plans. docs/GUIDE.md, "Tuning", lists every field. */
#ifndef GPGPU_ALGO_PLANS_H
#define GPGPU_ALGO_PLANS_H

#include <stdbool.h>

#include "exec.h"

/* A form of a stage a driver may take or leave. AUTO is the library's choice: where it goes
 * by the device, resolution makes it NEVER or ALWAYS; where it goes by the call (a field's
 * comment says so), it stays AUTO and the driver decides per call. */
typedef enum algo_mode { ALGO_NEVER = 0, ALGO_AUTO = 1, ALGO_ALWAYS = 2 } algo_mode;

typedef struct algo_copy_plan {
    unsigned max_groups; /* copy_groups: work-groups of a shader copy, at most (2^24) */
    unsigned items;      /* copy_items: loads in flight per invocation (4) */
} algo_copy_plan;

typedef struct algo_reduce_plan {
    unsigned items;      /* reduce_items: loads in flight per invocation per block (4) */
    unsigned max_groups; /* reduce_groups: groups of the first pass, at most (0: by size) */
    bool fold;           /* reduce_fold: one dispatch, the last group folds the partials (1) */
} algo_reduce_plan;

/* The fast scan: the single pass, or reduce-then-scan. AUTO (the default) goes by the call:
 * the single pass where the device has subgroups, the type's tiles pay and its group fits
 * (scan.c, use_single_pass). */
typedef enum scan_pass_mode {
    SCAN_PASS_REDUCE_THEN_SCAN = 0,
    SCAN_PASS_AUTO = 1,
    SCAN_PASS_SINGLE = 2
} scan_pass_mode;

/* Whether the single pass loads its tile again after the look-back instead of holding it in
 * registers across it. AUTO resolves to LARGE where the executor reports
 * reload_after_lookback, else to NEVER; LARGE reloads the tiles of scans of more than
 * chained_small_max elements. */
typedef enum scan_reload_mode {
    SCAN_RELOAD_NEVER = 0,
    SCAN_RELOAD_AUTO = 1,
    SCAN_RELOAD_ALWAYS = 2,
    SCAN_RELOAD_LARGE = 3
} scan_reload_mode;

typedef struct algo_scan_plan {
    unsigned items;      /* scan_items: elements per invocation per tile (8) */
    unsigned max_groups; /* scan_groups: work-groups (and partial sums), at most (1024) */
    scan_pass_mode pass; /* scan_single_pass (AUTO) */
    /* The single pass's tile for scans of more than chained_small_max elements, per
     * invocation of 4-byte types (f64: scan_chained_plan_for) and invocations per group:
     * scan_chained_items and scan_chained_wg (0: the device's, 32 x 256); either one set by
     * name sets the small tile's too. */
    unsigned chained_items, chained_wg;
    /* ... and for scans of up to chained_small_max elements (no name: 512 x 8 up to 2^22
     * where the executor reports shallow_tiles_pay, else the tile above for every size). */
    unsigned chained_small_items, chained_small_wg;
    unsigned chained_small_max;
    unsigned polls;           /* scan_polls: reads of a silent predecessor before summing it (64) */
    scan_reload_mode reload;  /* scan_chained_reload (AUTO) */
} algo_scan_plan;

typedef struct algo_radix_plan {
    unsigned items;      /* radix_items: keys per invocation of a tile (16; f64 or small: half) */
    unsigned max_groups; /* radix_groups: work-groups (histogram columns) of a pass (2048) */
    /* radix_onesweep: key passes one-sweep (ALWAYS: wherever the 30-bit counts allow;
     * AUTO resolves to ALWAYS) or reduce-then-scan (NEVER) */
    algo_mode onesweep;
    unsigned polls; /* radix_polls: reads of a missing status before recounting (64) */
    /* radix_os_items, radix_os_subgroups: a one-sweep tile's keys per invocation (large 4-byte
     * sorts; else half) and subgroups per group, any count (0: the device's, 6 x 24 where the
     * executor reports shallow_tiles_pay, else 16 x 8). */
    unsigned os_items, os_subgroups;
    /* radix_os_keys_items, radix_os_keys_subgroups: the same for sorts of keys alone of at
     * least RADIX_OS_KEYS_LARGE keys (0: 20 x 12 where the executor reports
     * keys_alone_program_pays and neither of the two above is set by name, else theirs). */
    unsigned os_keys_items, os_keys_subgroups;
    /* radix_os_keys_program: sorts of keys alone take a one-sweep program without the
     * payload's code (AUTO: ALWAYS where the executor reports keys_alone_program_pays) */
    algo_mode os_keys_program;
    bool ballot32;         /* radix_ballot32: one-word ballots where subgroups have <= 32 lanes (1) */
    /* radix_os_rank_first: a one-sweep tile ranks its keys before it counts their digits
     * (AUTO: ALWAYS where the executor reports rank_before_count_pays) */
    algo_mode os_rank_first;
    bool small;              /* radix_small: the one-group sort up to a tile, where it fits (1) */
    unsigned small_items;    /* radix_small_items: its keys per invocation, at most (16) */
    /* radix_small_subgroups: subgroups of its group (0: the device's, 32 where the executor
     * reports shallow_tiles_pay, else 16) */
    unsigned small_subgroups;
} algo_radix_plan;

typedef struct algo_bitonic_plan {
    /* bitonic_registers: the fast network's LOCAL_MERGE in registers and each level's reverse
     * step fused into STEPS (AUTO: ALWAYS where the executor reports bitonic_registers_pay) */
    algo_mode registers;
} algo_bitonic_plan;

typedef struct algo_spmv_plan {
    bool merge;           /* spmv_merge: the balanced CSR as a merge path, else tiles of nonzeros (1) */
    unsigned merge_wg;    /* spmv_merge_wg: invocations per tile (128) */
    unsigned merge_items; /* spmv_merge_items: path steps per invocation (4) */
    unsigned merge_tiles; /* spmv_merge_tiles: tiles per work-group, loaded at once (2) */
    unsigned merge_slack; /* spmv_merge_slack: a tile's cut moves back to a row start by tile/this (16) */
} algo_spmv_plan;

typedef struct algo_vector_plan {
    unsigned axpby_items; /* axpby_items: elements per invocation of the vector updates (4) */
} algo_vector_plan;

/* The histogram's SHARED stage (histogram.c, shared_form). */
typedef struct algo_histogram_plan {
    unsigned items;      /* histogram_items: samples per invocation per tile (8) */
    unsigned max_groups; /* histogram_groups: work-groups, at most, any count (1024) */
    bool vec;            /* histogram_vec: 4-byte samples loaded 4 to a load (0) */
    unsigned copies;     /* histogram_copies: copies of the counters, invocation i adding to
                          * copy i mod copies, where they fit (1) */
    bool runs;           /* histogram_runs: runs of one bin in an invocation's samples added
                          * once (0: an atomic a sample, 15-30% faster on the H200, both
                          * backends, every case; docs/DECISIONS.md) */
    bool queue;          /* histogram_queue: groups claim tiles from a counter, else group g
                          * takes tiles g, g + G, ... (0) */
} algo_histogram_plan;

/* What SpGEMM's symbolic phase keeps of the long rows' one chunk for the numeric phase. */
typedef enum spgemm_keep_mode {
    SPGEMM_KEEP_NONE = 0,  /* nothing: sorted again */
    SPGEMM_KEEP_KEYS = 1,  /* the sorted keys, the values expanded in the numeric phase */
    SPGEMM_KEEP_VALUES = 2 /* the keys and, where they fit, the values expanded with them */
} spgemm_keep_mode;

typedef struct algo_spgemm_plan {
    bool rows_tile;   /* spgemm_rows_tile: ROWS tiles by row length, else 2048 slots always (1) */
    unsigned rank;    /* spgemm_rank: a spgemm_rank_program (spgemm.h; SPGEMM_RANK_AUTO, 4) */
    bool one_phase;   /* spgemm_one_phase: short rows counted and summed in one pass where the
                       * temporary fits (1) */
    spgemm_keep_mode esc_keep; /* spgemm_esc_keep (VALUES) */
    bool esc_packed;  /* spgemm_esc_packed: the chunk row packed above the column in each key
                       * where both fit 32 bits (1) */
    bool esc_carry;   /* spgemm_esc_carry: f32 values carried through the sort as its payload,
                       * else each key's expansion index (1) */
    unsigned esc_split; /* spgemm_esc_split: the least mean products of the parts a packed
                         * chunk's sort in parts must keep (SPGEMM_SPLIT_PRODUCTS, 2^22) */
    /* spgemm_esc_walk: ESC_EXPAND walks the nonzeros of A, a team of 32 invocations per
     * nonzero, else a search per product (AUTO, by the call: where A's nonzeros take at least
     * SPGEMM_WALK_MIN products on average) */
    algo_mode esc_walk;
    unsigned compact_entries; /* spgemm_compact_entries: a mean row's entries per invocation
                               * of ROWS_COMPACT (2) */
    /* spgemm_rows_ordered: the one phase takes every row in row order (AUTO, by the call:
     * where rows fill half their slots; spgemm_ordered_width) */
    algo_mode rows_ordered;
} algo_spgemm_plan;

/* Stream compaction and partition (select.c). */
typedef struct algo_select_plan {
    unsigned items; /* select_items: elements per invocation of 4-byte types, f64 half (16) */
    unsigned wg;    /* select_wg: invocations per work-group (256) */
    /* select_single_pass: the fast selection (no partition) in one pass where the device has
     * subgroups (ALWAYS), or counting first (NEVER); AUTO resolves to NEVER: counting first,
     * its scatter stored from the invocations, ran as fast or faster on the H200's Vulkan
     * (2^28 flagged 948 against 1137 us) and GL (its single pass at half the speed) */
    algo_mode single_pass;
    /* select_heads_single_pass: the same for the run-length encoding's selection of its run
     * heads (each key loaded with its predecessor, which counting first would load twice);
     * AUTO resolves to NEVER where the executor reports reload_after_lookback (the single
     * pass holds its tile across the look-back, which NVIDIA's GL does badly), else ALWAYS */
    algo_mode heads_single_pass;
    /* select_staged: a tile's written elements gathered in shared memory in output order and
     * stored by consecutive invocations in runs, else each stored by the invocation that holds
     * it (AUTO resolves to ALWAYS; a tile too large for the device's shared memory is stored
     * from its invocations) */
    algo_mode staged;
    /* select_scatter_staged: the same for the counting-first paths' SCATTER (reduce-then-scan,
     * partitions); AUTO follows select_staged where that is set, else the device's fact
     * (NVIDIA's GL: the invocations' own stores, 23-29% faster there) */
    algo_mode scatter_staged;
    /* select_staged_parts: the staged slots pass through shared memory in this many parts of
     * a tile, at most the tile's items (4: 4 KB of shared memory) */
    unsigned staged_parts;
    unsigned polls; /* select_polls: single pass, reads of a silent predecessor (32) */
    /* select_heads_staged: the run-length encoding's selection of its run heads, its writes
     * staged where select_staged / select_scatter_staged stage a selection's (ALWAYS), or
     * stored from the invocations (NEVER; AUTO resolves to NEVER: the H200's Vulkan ran 2^24
     * keys in runs of 1 in 157 us against 191 staged) */
    algo_mode heads_staged;
    /* select_ticket: the single pass's tiles in the order groups start, each group taking
     * the next from a counter (ALWAYS), or tile i for group i (NEVER; AUTO resolves to it
     * where the executor reports groups_start_in_order) */
    algo_mode ticket;
} algo_select_plan;

typedef struct algo_plans {
    algo_copy_plan copy;
    algo_reduce_plan reduce;
    algo_scan_plan scan;
    algo_radix_plan radix;
    algo_bitonic_plan bitonic;
    algo_spmv_plan spmv;
    algo_vector_plan vector;
    algo_histogram_plan histogram;
    algo_spgemm_plan spgemm;
    algo_select_plan select;
} algo_plans;

/* The defaults (AUTO, and 0 for the device's counts) overridden by `tune`, GPGPU_TUNE's
 * syntax (NULL or "": none): name=value entries apart by commas, each name a field of the
 * table in plans.c, each value a decimal number within the field's range. An entry that is
 * not one is GPGPU_ERROR_INVALID_ARGUMENT with a message naming it (ctx_fail(NULL, ...):
 * gpgpu_last_error(NULL)), *out untouched. */
gpgpu_status algo_plans_parse(const char *tune, algo_plans *out);

/* Makes p's AUTO modes, and its counts left 0 that mean the device's, concrete for a device
 * of these facts; AUTO modes that go by the call stay. What is concrete stays: a resolved
 * plan resolves to itself. */
void algo_plans_resolve(algo_plans *p, const exec_facts *facts);

/* A copy of ctx's plans, and a replacement for them (resolved as at creation) that later
 * calls of ctx run with: for tests and experiments, which set fields outside the ranges
 * GPGPU_TUNE allows at their own risk. */
algo_plans algo_plans_get(const gpgpu_context *ctx);
void algo_plans_set(gpgpu_context *ctx, const algo_plans *plans);

#endif /* GPGPU_ALGO_PLANS_H */
