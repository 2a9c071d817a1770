/* The ids of glsl/gather.comp, written once for src/algo/gather.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_GATHER_IDS_H
#define GPGPU_GATHER_IDS_H

#define GATHER_STAGES(X)        \
    X(GATHER_STAGE_GATHER, 1)   \
    X(GATHER_STAGE_SCATTER, 2)

#define GATHER_PARAMS(X)                           \
    X(GATHER_P_N, 1)           /* records */      \
    X(GATHER_P_SRC_OFF, 2)     /* units */        \
    X(GATHER_P_DST_OFF, 3)     /* units */        \
    X(GATHER_P_IDX_OFF, 4)                        \
    X(GATHER_P_LARGEST_OFF, 5)                    \
    X(GATHER_P_LIMIT, 6)                          \
    X(GATHER_P_STATUS_OFF, 7)                     \
    X(GATHER_P_HAS_STATUS, 8)

/* Both stages' program: a record is UNITS units of UNIT words. */
#define GATHER_SHAPES(X)                                        \
    X(GATHER_SHAPE_UNIT, 0, 0, 32)  /* 4, 2 or 1 words (0: 1) */ \
    X(GATHER_SHAPE_UNITS, 1, 0, 32) /* units a record (0: 1) */

#endif /* GPGPU_GATHER_IDS_H */
