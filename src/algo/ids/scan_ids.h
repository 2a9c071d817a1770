/* The ids of glsl/scan.comp, written once for src/algo/scan.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_SCAN_IDS_H
#define GPGPU_SCAN_IDS_H

#define SCAN_STAGES(X)          \
    X(SCAN_STAGE_REDUCE, 1)     \
    X(SCAN_STAGE_PARTIALS, 2)   \
    X(SCAN_STAGE_TILES, 3)      \
    X(SCAN_STAGE_COPY, 4)       \
    X(SCAN_STAGE_STEP, 5)       \
    X(SCAN_STAGE_CLEAR, 6)      \
    X(SCAN_STAGE_CHAINED, 7)

/* N, SRC_OFF and DST_OFF are the slots algo_bind_io sets. */
#define SCAN_PARAMS(X)                                                          \
    X(SCAN_P_N, 1)                                                              \
    X(SCAN_P_SRC_OFF, 2)                                                        \
    X(SCAN_P_DST_OFF, 3)                                                        \
    X(SCAN_P_EXCLUSIVE, 4)                                                      \
    X(SCAN_P_TILES_PER_GROUP, 5)                                                \
    X(SCAN_P_STEP_K, 5)        /* STEP: k, the step of iPrefixSum */            \
    X(SCAN_P_FALLBACK, 5)      /* CHAINED, tests: which published states to ignore */ \
    X(SCAN_P_GROUPS, 6)        /* PARTIALS: how many partial sums */            \
    X(SCAN_P_POLLS, 6)         /* CHAINED: reads of a silent predecessor */     \
    X(SCAN_P_PART_OFF, 7)                                                       \
    X(SCAN_P_VEC, 8)           /* CHAINED: offsets allow 16-byte accesses */    \
    X(SCAN_P_IN_PLACE, 9)      /* CHAINED: src and dst overlap */

/* CHAINED's own program. */
#define SCAN_SHAPES(X) \
    X(SCAN_SHAPE_RELOAD, 0, 0, 32) /* nonzero: the tile read again after the look-back */

#endif /* GPGPU_SCAN_IDS_H */
