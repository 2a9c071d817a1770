/* The ids of glsl/gemm.comp, written once for src/algo/gemm.c and the shader; glsl/
 * gemm_coopmat.comp reads the same parameters (gemm_dispatch sets them for both)
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_GEMM_IDS_H
#define GPGPU_GEMM_IDS_H

#define GEMM_STAGES(X)           \
    X(GEMM_STAGE_METHOD1, 1)     \
    X(GEMM_STAGE_METHOD2, 2)     \
    X(GEMM_STAGE_METHOD6, 3)     \
    X(GEMM_STAGE_TILED, 4)

#define GEMM_PARAMS(X)                                                 \
    X(GEMM_P_M, 1)                                                     \
    X(GEMM_P_N, 2)                                                     \
    X(GEMM_P_K, 3)                                                     \
    X(GEMM_P_A_OFF, 4)                                                 \
    X(GEMM_P_B_OFF, 5)                                                 \
    X(GEMM_P_C_OFF, 6)                                                 \
    X(GEMM_P_LDA, 7)                                                   \
    X(GEMM_P_LDB, 8)                                                   \
    X(GEMM_P_LDC, 9)                                                   \
    X(GEMM_P_FLAGS, 10)  /* GEMM_FLAG_* */                             \
    X(GEMM_P_ALPHA, 11)  /* and 12: a T's bits, f64's low word first */ \
    X(GEMM_P_BETA, 13)   /* and 14 */

/* TILED's own program: the block shape (0: 64 x 64 x 8, 4 rows an invocation). */
#define GEMM_SHAPES(X)                                                  \
    X(GEMM_SHAPE_BLOCK_M, 0, 0, 32)  /* rows of C a work-group (BM) */  \
    X(GEMM_SHAPE_BLOCK_N, 1, 0, 32)  /* columns (BN) */                 \
    X(GEMM_SHAPE_BLOCK_K, 2, 0, 32)  /* the K slice (BK) */             \
    X(GEMM_SHAPE_THREAD_M, 3, 0, 32) /* rows of C an invocation (TM) */

#define GEMM_CONSTS(X)                                                    \
    X(GEMM_FLAG_TRANS_A, 1)                                               \
    X(GEMM_FLAG_TRANS_B, 2)                                               \
    X(GEMM_FLAG_BETA_IS_ZERO, 4)                                          \
    X(GEMM_FLAG_VEC_A, 8)   /* A transposed, A_OFF and LDA multiples of 4 */ \
    X(GEMM_FLAG_VEC_B, 16)  /* B not transposed, B_OFF and LDB multiples of 4 */

#endif /* GPGPU_GEMM_IDS_H */
