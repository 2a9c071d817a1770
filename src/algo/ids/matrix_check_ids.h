/* The ids of glsl/matrix_check.comp, written once for src/algo/matrix.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_MATRIX_CHECK_IDS_H
#define GPGPU_MATRIX_CHECK_IDS_H

#define MATRIX_CHECK_STAGES(X)          \
    X(MATRIX_CHECK_STAGE_PTRS, 1)       \
    X(MATRIX_CHECK_STAGE_ENTRIES, 2)

#define MATRIX_CHECK_PARAMS(X)          \
    X(MATRIX_CHECK_P_ROWS, 1)           \
    X(MATRIX_CHECK_P_COLS, 2)           \
    X(MATRIX_CHECK_P_NNZ, 3)            \
    X(MATRIX_CHECK_P_PTR_OFF, 4)        \
    X(MATRIX_CHECK_P_IDX_OFF, 5)        \
    X(MATRIX_CHECK_P_AUX_OFF, 13)       /* the status record, at binding 5 */

/* The status record's words: the first bad row of each kind (~0: none), then the row
 * statistics (gpgpu_row_stats). */
#define MATRIX_CHECK_CONSTS(X)                                             \
    X(MATRIX_CHECK_V_FIRST, 0)      /* row_ptr[0] != 0 (row 0) */          \
    X(MATRIX_CHECK_V_DECREASE, 1)   /* row_ptr[i + 1] < row_ptr[i] */      \
    X(MATRIX_CHECK_V_LAST, 2)       /* row_ptr[rows] != nnz (the last row) */ \
    X(MATRIX_CHECK_V_COLUMN, 3)     /* a column index >= cols */           \
    X(MATRIX_CHECK_V_UNSORTED, 4)   /* columns not strictly ascending in a row */ \
    X(MATRIX_CHECK_V_MAX_LEN, 5)                                           \
    X(MATRIX_CHECK_V_MIN_LEN, 6)                                           \
    X(MATRIX_CHECK_V_EMPTY, 7)      /* rows with no entries */             \
    X(MATRIX_CHECK_STATUS_WORDS, 8)

#endif /* GPGPU_MATRIX_CHECK_IDS_H */
