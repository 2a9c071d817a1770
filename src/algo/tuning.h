/* Tuning knobs of the fast algorithms: compiled-in defaults, overridable
 * for experiments with GPGPU_TUNE="reduce_items=8,reduce_groups=2048,..."
 * (as the tunable SpMV kernel of the references sets its work-group shape
 * at compile time). Read once per process. */
#ifndef GPGPU_ALGO_TUNING_H
#define GPGPU_ALGO_TUNING_H

typedef struct algo_tuning {
    unsigned copy_max_groups;   /* work-groups of a shader copy, at most */
    unsigned copy_items;        /* shader copy: loads in flight per invocation */
    unsigned reduce_items;      /* loads in flight per invocation per block */
    unsigned reduce_max_groups; /* work-groups of the first reduce pass, at most (0: by size) */
    unsigned reduce_fold;       /* 1: one dispatch, the last group folds the partials; 0: two */
    unsigned scan_items;        /* elements per invocation per tile */
    unsigned scan_max_groups;   /* work-groups (and partial sums) of the scan, at most */
    unsigned scan_single_pass;  /* the fast scan: 0 reduce-then-scan, 1 the library's choice, 2 single pass */
    unsigned scan_chained_items; /* single pass: elements per invocation of 4-byte types (f64: half) */
    unsigned scan_chained_wg;   /* single pass: work-group size */
    unsigned scan_polls;        /* single pass: reads of a silent predecessor before summing it */
    unsigned scan_chained_reload; /* single pass, the tile loaded again after its look-back:
                                   * 0 never, 1 the library's choice, 2 always */
    unsigned radix_items;       /* keys per invocation of a radix tile (large sorts of 4-byte keys; else half) */
    unsigned radix_max_groups;  /* work-groups (histogram columns) of a radix pass, at most */
    unsigned radix_onesweep;    /* key passes one-sweep: 0 never, 1 (2 likewise) below 2^30 keys */
    unsigned radix_polls;       /* one-sweep: reads of a missing status before recounting */
    /* one-sweep: keys per invocation of a tile (large 4-byte sorts; else
     * half), and subgroups per work-group (any count); 0: by backend */
    unsigned radix_os_items;
    unsigned radix_os_subgroups;
    /* the same for sorts of keys alone (no payload carried); 0: by backend */
    unsigned radix_os_keys_items;
    unsigned radix_os_keys_subgroups;
    unsigned radix_ballot32;    /* one-sweep: 1 one-word ballots where subgroups have <= 32 lanes */
    unsigned radix_os_rank_first; /* one-sweep: rank before counting: 0 never, 1 by backend, 2 always */
    unsigned bitonic_registers; /* fast bitonic: LOCAL_MERGE in registers and each level's reverse
                                 * step fused into STEPS: 0 never, 1 by backend, 2 always */
    unsigned radix_small;       /* one-group sort up to a tile: 0 never, 1 where it fits */
    unsigned radix_small_items; /* one-group sort: keys per invocation */
    unsigned radix_small_subgroups; /* one-group sort: subgroups of its group (0: by backend) */
    unsigned spmv_merge;        /* balanced CSR: 0 tiles of nonzeros, 1 merge path (spmv.c) */
    unsigned spmv_merge_wg;     /* merge path: invocations per tile */
    unsigned spmv_merge_items;  /* merge path: path steps per invocation */
    unsigned spmv_merge_tiles;  /* merge path: tiles per work-group, loaded at once */
    unsigned spmv_merge_slack;  /* merge path: cuts move back to a row start by tile/this */
    unsigned axpby_items;       /* vector updates: elements per invocation */
    unsigned spgemm_rows_tile;  /* SpGEMM ROWS: 1 tiles by row length (spgemm.c), 0 always 2048 slots */
    unsigned spgemm_rank;        /* SpGEMM ROWS_RANK: 0 compare, 1 search, 2 merge, 3 window, 4 auto (spgemm.h) */
    unsigned spgemm_esc_packed;  /* SpGEMM long rows: 1 the chunk row packed above the column
                                  * in each key where both fit 32 bits (spgemm.h), 0 never */
    unsigned spgemm_esc_keep;    /* SpGEMM long rows: 1 the symbolic phase's one chunk kept (its
                                  * sort reused) for the numeric, 2 (the default) with its values
                                  * expanded with the keys where they fit, 0 sorted again */
    unsigned spgemm_esc_carry;   /* SpGEMM long rows: 1 f32 values carried through the sort as its
                                  * payload (ESC_WRITE reads them in order), 0 the payload is each
                                  * key's expansion index (ESC_WRITE gathers through it) */
    unsigned spgemm_esc_split;   /* SpGEMM long rows: the least mean products a sort of a packed
                                  * chunk's parts must keep for the chunk to be sorted in parts
                                  * one radix pass shorter (spgemm_esc_sort; power of two) */
    unsigned spgemm_esc_walk;    /* SpGEMM ESC_EXPAND: 2 a team of 32 invocations per nonzero of A
                                  * copies its row of B, 0 each product searches for its own, 1
                                  * (the default) the walk where A's nonzeros take at least
                                  * SPGEMM_WALK_MIN products on average */
    unsigned spgemm_one_phase;   /* SpGEMM short rows: 1 counted and summed in one pass where
                                  * the temporary fits (spgemm.c, the default), 0 two passes */
    unsigned spgemm_compact_entries; /* SpGEMM one phase: a mean row's entries each invocation
                                      * of ROWS_COMPACT moves (its invocations per row) */
    unsigned spgemm_rows_ordered; /* SpGEMM one phase: every row to ROWS_RANK in row order,
                                   * 0 never, 1 where rows fill half their slots, 2 wherever
                                   * it can (spgemm_ordered_width) */
} algo_tuning;

const algo_tuning *algo_tuning_get(void);

#endif /* GPGPU_ALGO_TUNING_H */
