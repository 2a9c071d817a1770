/* The ids of glsl/transpose.comp, written once for src/algo/transpose.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_TRANSPOSE_IDS_H
#define GPGPU_TRANSPOSE_IDS_H

/* After the radix sort of A's entries by column. */
#define TRANSPOSE_STAGES(X)          \
    X(TRANSPOSE_STAGE_ROW_OF, 1)     \
    X(TRANSPOSE_STAGE_PERMUTE, 2)    \
    X(TRANSPOSE_STAGE_COL_PTRS, 3)

#define TRANSPOSE_PARAMS(X)                                                      \
    X(TRANSPOSE_P_ROWS, 1)                                                       \
    X(TRANSPOSE_P_NNZ, 2)                                                        \
    X(TRANSPOSE_P_PTR, 3)      /* A's row pointers in its ints */                \
    X(TRANSPOSE_P_VAL, 5)      /* A's values */                                  \
    X(TRANSPOSE_P_COLS, 9)     /* COL_PTRS: A's columns, A^T's rows */           \
    X(TRANSPOSE_P_KEY_OFF, 11) /* COL_PTRS: the sorted columns */                \
    X(TRANSPOSE_P_T_IDX, 15)   /* PERMUTE: where A^T's columns start in its ints */

#endif /* GPGPU_TRANSPOSE_IDS_H */
