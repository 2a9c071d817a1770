/* The ids of glsl/gemm_coopmat.comp, written once for src/algo/gemm_coopmat.c and the
 * shader, which reads gemm's parameters too (gemm_ids.h) (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_GEMM_COOPMAT_IDS_H
#define GPGPU_GEMM_COOPMAT_IDS_H

#define GEMM_COOPMAT_STAGES(X)        \
    X(GEMM_COOPMAT_A_TO_F16, 1)       \
    X(GEMM_COOPMAT_B_TO_F16, 2)       \
    X(GEMM_COOPMAT_PRODUCT, 3)        \
    X(GEMM_COOPMAT_FINISH, 4)

#endif /* GPGPU_GEMM_COOPMAT_IDS_H */
