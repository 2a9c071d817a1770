/* The ids of glsl/vector.comp, written once for src/algo/vector.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_VECTOR_IDS_H
#define GPGPU_VECTOR_IDS_H

#define VECTOR_STAGES(X) \
    X(VECTOR_STAGE_AXPBY, 1)

#define VECTOR_PARAMS(X)                                     \
    X(VECTOR_P_N, 1)                                         \
    X(VECTOR_P_X_OFF, 2)                                     \
    X(VECTOR_P_Y_OFF, 3)                                     \
    X(VECTOR_P_ALPHA, 4)        /* and 5: a T's bits, f64's low word first */ \
    X(VECTOR_P_BETA, 6)         /* and 7 */                  \
    X(VECTOR_P_BETA_IS_ZERO, 8)

#endif /* GPGPU_VECTOR_IDS_H */
