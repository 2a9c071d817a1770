/* The ids of glsl/segreduce.comp, written once for src/algo/segreduce.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_SEGREDUCE_IDS_H
#define GPGPU_SEGREDUCE_IDS_H

#define SEGREDUCE_STAGES(X)       \
    X(SEGREDUCE_STAGE_PLAN, 1)    \
    X(SEGREDUCE_STAGE_TILES, 2)   \
    X(SEGREDUCE_STAGE_FIX, 3)

#define SEGREDUCE_PARAMS(X)                                                      \
    X(SEGREDUCE_P_N, 1)          /* the input's elements */                      \
    X(SEGREDUCE_P_SRC_OFF, 2)                                                    \
    X(SEGREDUCE_P_DST_OFF, 3)                                                    \
    X(SEGREDUCE_P_SEG_OFF, 4)                                                    \
    X(SEGREDUCE_P_NSEG, 5)       /* the segments, or their bound where HAS_COUNT */ \
    X(SEGREDUCE_P_AUX_OFF, 6)                                                    \
    X(SEGREDUCE_P_WORK_OFF, 7)                                                   \
    X(SEGREDUCE_P_K, 8)          /* tiles */                                     \
    X(SEGREDUCE_P_HAS_COUNT, 9)                                                  \
    X(SEGREDUCE_P_COUNT_OFF, 10)                                                 \
    X(SEGREDUCE_P_PATH_STEP, 11) /* path steps between tile starts */            \
    X(SEGREDUCE_P_SLACK, 12)     /* how far back a start may move to a segment's */

#endif /* GPGPU_SEGREDUCE_IDS_H */
