/* The ids of glsl/rle.comp, written once for src/algo/rle.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_RLE_IDS_H
#define GPGPU_RLE_IDS_H

#define RLE_STAGES(X) X(RLE_STAGE_FINISH, 1)

#define RLE_PARAMS(X)                                                      \
    X(RLE_P_N, 1)             /* the key count (COUNT_ON_GPU: a bound) */  \
    X(RLE_P_LENGTHS_OFF, 2)                                                \
    X(RLE_P_STARTS_OFF, 3)                                                 \
    X(RLE_P_OUTPUTS, 4)       /* RLE_OUT_* bits */                         \
    X(RLE_P_COUNT_OUT_OFF, 5)                                              \
    X(RLE_P_RUNS_AT, 6)                                                    \
    X(RLE_P_TOTAL_AT, 7)      /* the selection's run count, in its state */

/* The outputs bound (RLE_P_OUTPUTS). */
#define RLE_CONSTS(X)        \
    X(RLE_OUT_COUNT, 2)      \
    X(RLE_OUT_LENGTHS, 4)

#endif /* GPGPU_RLE_IDS_H */
