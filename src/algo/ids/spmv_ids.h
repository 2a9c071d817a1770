/* The ids of glsl/spmv.comp, written once for src/algo/spmv.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_SPMV_IDS_H
#define GPGPU_SPMV_IDS_H

/* Kiciak's classic CSR product (LENGTHS .. COPY), then the other kernels. */
#define SPMV_STAGES(X)               \
    X(SPMV_STAGE_LENGTHS, 1)         \
    X(SPMV_STAGE_MAX, 2)             \
    X(SPMV_STAGE_PRODUCTS, 3)        \
    X(SPMV_STAGE_SUMS, 4)            \
    X(SPMV_STAGE_COPY, 5)            \
    X(SPMV_STAGE_SCALE, 6)           \
    X(SPMV_STAGE_CSR_SCALAR, 7)      \
    X(SPMV_STAGE_CSR_VECTOR, 8)      \
    X(SPMV_STAGE_CSR_TILES, 9)       \
    X(SPMV_STAGE_COO_TILES, 10)      \
    X(SPMV_STAGE_TILE_FIX, 11)       \
    X(SPMV_STAGE_ELL, 12)            \
    X(SPMV_STAGE_SELL, 13)           \
    X(SPMV_STAGE_BSR, 14)            \
    X(SPMV_STAGE_CSC_PRODUCTS, 15)   \
    X(SPMV_STAGE_CSC_GATHER, 16)     \
    X(SPMV_STAGE_PATH_SEARCH, 17)    \
    X(SPMV_STAGE_CSR_MERGE, 18)

#define SPMV_PARAMS(X)                                                              \
    X(SPMV_P_ROWS, 1)                                                               \
    X(SPMV_P_COLS, 2)                                                               \
    X(SPMV_P_NNZ, 3)         /* entries stored in idx/val (blocks for BSR) */       \
    X(SPMV_P_PTR_OFF, 4)                                                            \
    X(SPMV_P_IDX_OFF, 5)                                                            \
    X(SPMV_P_VAL_OFF, 6)                                                            \
    X(SPMV_P_X_OFF, 7)                                                              \
    X(SPMV_P_Y_OFF, 8)                                                              \
    X(SPMV_P_ALPHA, 9)       /* and 10: a T's bits, f64's low word first */         \
    X(SPMV_P_PATH_STEP, 9)   /* PATH_SEARCH: path steps between tile starts */      \
    X(SPMV_P_PATH_SLACK, 10) /* PATH_SEARCH: how far back a start may move to a row */ \
    X(SPMV_P_BETA, 11)       /* and 12 */                                           \
    X(SPMV_P_AUX_OFF, 13)                                                           \
    X(SPMV_P_WORK_OFF, 14)                                                          \
    X(SPMV_P_K, 15)          /* t (classic), ELL width, SELL C, BSR b, tiles */

/* CSR_MERGE's own program. */
#define SPMV_SHAPES(X) \
    X(SPMV_SHAPE_MERGE_TILES, 0, 0, 32) /* tiles a work-group walks (0, 1: one) */

#endif /* GPGPU_SPMV_IDS_H */
