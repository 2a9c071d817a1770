/* The ids of glsl/sort.comp, written once for src/algo/sort.c, bitonic.c, radix.c and the
 * shader (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_SORT_IDS_H
#define GPGPU_SORT_IDS_H

/* The bitonic tile stages, the radix stages, the driver's helpers, the network's steps,
 * the one-sweep radix stages, the one-group radix sort and the classic network's step. */
#define SORT_STAGES(X)             \
    X(SORT_STAGE_LOCAL_SORT, 1)    \
    X(SORT_STAGE_LOCAL_MERGE, 2)   \
    X(SORT_STAGE_HIST, 3)          \
    X(SORT_STAGE_SCATTER, 4)       \
    X(SORT_STAGE_IOTA, 5)          \
    X(SORT_STAGE_GATHER, 6)        \
    X(SORT_STAGE_STEPS, 7)         \
    X(SORT_STAGE_OS_CLEAR, 8)      \
    X(SORT_STAGE_OS_HIST, 9)       \
    X(SORT_STAGE_OS_SCAN, 10)      \
    X(SORT_STAGE_ONESWEEP, 11)     \
    X(SORT_STAGE_SMALL, 12)        \
    X(SORT_STAGE_STEP, 13)

/* sort_dispatch sets N .. FLAGS and INDEX_BASE for every stage; the rest are a stage's. */
#define SORT_PARAMS(X)                                                                 \
    X(SORT_P_N, 1)                                                                     \
    X(SORT_P_KEY_OFF_A, 2)                                                             \
    X(SORT_P_KEY_OFF_B, 3)                                                             \
    X(SORT_P_PAY_OFF_A, 4)                                                             \
    X(SORT_P_PAY_OFF_B, 5)                                                             \
    X(SORT_P_AUX_OFF, 6)                                                               \
    X(SORT_P_SEG_OFF, 7)                                                               \
    X(SORT_P_NSEG, 8)                                                                  \
    X(SORT_P_FLAGS, 9)           /* sort_keys.flags and SORT_FLAG_PAYLOAD */           \
    X(SORT_P_H, 10)              /* network stages: the block of a step */             \
    X(SORT_P_PASS, 10)           /* radix stages: the pass */                          \
    X(SORT_P_PASSES, 10)         /* SMALL: how many passes */                          \
    X(SORT_P_REVERSE, 11)        /* STEP: the reverse step */                          \
    X(SORT_P_TILES_PER_GROUP, 11) /* radix stages */                                   \
    X(SORT_P_COUNT, 11)          /* STEPS: how many steps */                           \
    X(SORT_P_GROUPS, 12)         /* radix stages (one-sweep: the tiles) */             \
    X(SORT_P_STEPS_REVERSE, 12)  /* STEPS: the first step is the reverse one */        \
    X(SORT_P_POLLS, 13)          /* ONESWEEP: reads of a missing status before recounting */ \
    X(SORT_P_INDEX_BASE, 14)     /* SORT_PAYLOAD_IS_INDEX: the first element's index */ \
    X(SORT_P_RANGES, 15)         /* one-sweep stages: sort_keys.ranges (0: one, all N) */

/* Each program's own constants. REGISTER_STAGES is the bitonic programs' (the family's, for
 * STEPS, and LOCAL_SORT's and LOCAL_MERGE's); the others are ONESWEEP's, and SUBGROUPS
 * SMALL's too. */
#define SORT_SHAPES(X)                                                                     \
    X(SORT_SHAPE_SUBGROUPS, 0, 0, 32)       /* SMALL, ONESWEEP: the rank counters' room */ \
    X(SORT_SHAPE_REGISTER_STAGES, 1, 0, 32) /* bitonic.c: STEPS, LOCAL_MERGE in registers */ \
    X(SORT_SHAPE_BALLOT32, 1, 0, 1)   /* subgroups of at most 32 lanes: one-word ballots */ \
    X(SORT_SHAPE_CARRIES, 1, 1, 1)    /* payloads to carry (else a keys-alone program) */   \
    X(SORT_SHAPE_RANGED, 2, 0, 32)    /* nonzero: NRANGES > 0, a program of its own */      \
    X(SORT_SHAPE_RANK_FIRST, 3, 0, 32) /* radix_plan.os_rank_first */

/* sort_keys.flags (SORT_P_FLAGS; bit 4 free for SORT_FLAG_PAYLOAD, which the driver adds),
 * then the tile sizes and shared-memory layout both sides size. */
#define SORT_CONSTS(X)                                                                     \
    X(SORT_DESCENDING, 1)                                                                  \
    X(SORT_TIES_BY_PAYLOAD, 2)  /* bitonic: equal keys compare by payload (an input index) */ \
    X(SORT_SEGMENTED, 4)        /* keys compare first by the segment of their payload */   \
    X(SORT_PAYLOAD_IS_INDEX, 8) /* radix: the payload read is the element's index, not pay[] */ \
    X(SORT_FLAG_PAYLOAD, 16)    /* a payload is bound */                                   \
    X(SORT_ONESWEEP_RECOUNT, 32) /* ONESWEEP (tests): every look-back falls back to a recount */ \
    X(SORT_BITONIC_TILE, 2048)  /* the bitonic tile stages' tile */                        \
    X(SORT_BITONIC_ITEMS, 8)    /* its elements an invocation (LOCAL_MERGE's registers) */ \
    X(SORT_MAX_FUSED_LOG2, 4)   /* STEPS: at most 2^4 elements an invocation */            \
    X(SORT_DIGITS, 256)         /* a radix pass's digits (a byte) */                       \
    X(SORT_RADIX_TILE_MAX, 4096) /* the largest radix tile but a one-sweep one */          \
    X(SORT_MAX_SUBGROUPS, 8)    /* the rank counters' room, but SMALL's and ONESWEEP's */  \
    X(SORT_SMALL_SUBGROUPS, 16) /* SMALL's counters' room at least (more: SUBGROUPS) */    \
    X(SORT_OS_PART_WORDS, 2048) /* ONESWEEP stages its tile in parts of this many words */ \
    X(SORT_OS_TICKETS, 8)       /* ticket words after the one-sweep's digit starts */

#endif /* GPGPU_SORT_IDS_H */
