/* The ids of glsl/copy.comp, written once for src/algo/copy.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_COPY_IDS_H
#define GPGPU_COPY_IDS_H

#define COPY_STAGES(X) \
    X(COPY_STAGE_COPY, 1)

#define COPY_PARAMS(X)       \
    X(COPY_P_N, 1)       /* words */ \
    X(COPY_P_SRC_OFF, 2) \
    X(COPY_P_DST_OFF, 3)

#endif /* GPGPU_COPY_IDS_H */
