/* The ids of glsl/count.comp, written once for src/algo/count.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_COUNT_IDS_H
#define GPGPU_COUNT_IDS_H

#define COUNT_STAGES(X)     \
    X(COUNT_STAGE_LOAD, 1) \
    X(COUNT_STAGE_PUT, 2)

#define COUNT_PARAMS(X)       \
    X(COUNT_P_BOUND, 1)   \
    X(COUNT_P_SRC_OFF, 2) \
    X(COUNT_P_DST_OFF, 3) \
    X(COUNT_P_VALUE, 4)

#endif /* GPGPU_COUNT_IDS_H */
