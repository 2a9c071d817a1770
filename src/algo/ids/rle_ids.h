/* The ids of glsl/rle.comp, written once for src/algo/rle.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_RLE_IDS_H
#define GPGPU_RLE_IDS_H

#define RLE_STAGES(X)         \
    X(RLE_STAGE_HEADS, 1)     \
    X(RLE_STAGE_SCATTER, 2)   \
    X(RLE_STAGE_LENGTHS, 3)   \
    X(RLE_STAGE_CLEAR, 4)     \
    X(RLE_STAGE_CHAINED, 5)

#define RLE_PARAMS(X)                                                             \
    X(RLE_P_BOUND, 1)                                                             \
    X(RLE_P_KEYS_OFF, 2)                                                          \
    X(RLE_P_UNIQUE_OFF, 3)                                                        \
    X(RLE_P_LENGTHS_OFF, 4)                                                       \
    X(RLE_P_FLAGS_OFF, 5)                                                         \
    X(RLE_P_STARTS_OFF, 6)                                                        \
    X(RLE_P_HAS_COUNT, 7)                                                         \
    X(RLE_P_COUNT_OFF, 8)                                                         \
    X(RLE_P_OUTPUTS, 9)        /* RLE_OUT_* bits */                               \
    X(RLE_P_COUNT_OUT_OFF, 10)                                                    \
    X(RLE_P_RUNS_AT, 11)                                                          \
    X(RLE_P_FALLBACK, 12)      /* CHAINED, tests: 1 ignores every published state */ \
    X(RLE_P_POLLS, 13)         /* CHAINED: reads of a silent predecessor */       \
    X(RLE_P_STATE_OFF, 14)

/* The outputs bound (RLE_P_OUTPUTS). */
#define RLE_CONSTS(X)        \
    X(RLE_OUT_UNIQUE, 1)     \
    X(RLE_OUT_COUNT, 2)      \
    X(RLE_OUT_LENGTHS, 4)

#endif /* GPGPU_RLE_IDS_H */
