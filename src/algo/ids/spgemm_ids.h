/* The ids of glsl/spgemm.comp, written once for src/algo/spgemm*.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_SPGEMM_IDS_H
#define GPGPU_SPGEMM_IDS_H

/* Kiciak's classic product (1..13, numbered as on his slides: spgemm.h says what each
 * does), then the fast product's. */
#define SPGEMM_STAGES(X)                     \
    X(SPGEMM_STAGE_CLASSIC_COUNT, 1)         \
    X(SPGEMM_STAGE_CLASSIC_EXPAND, 2)        \
    X(SPGEMM_STAGE_CLASSIC_ROW_STARTS, 3)    \
    X(SPGEMM_STAGE_CLASSIC_ROW_LENGTHS, 4)   \
    X(SPGEMM_STAGE_CLASSIC_ROW_MAX, 5)       \
    X(SPGEMM_STAGE_CLASSIC_SORT, 6)          \
    X(SPGEMM_STAGE_CLASSIC_FLAGS, 7)         \
    X(SPGEMM_STAGE_CLASSIC_COLUMNS, 8)       \
    X(SPGEMM_STAGE_CLASSIC_RUNS, 9)          \
    X(SPGEMM_STAGE_CLASSIC_RUN_MAX, 10)      \
    X(SPGEMM_STAGE_CLASSIC_SUMS, 11)         \
    X(SPGEMM_STAGE_CLASSIC_VALUES, 12)       \
    X(SPGEMM_STAGE_CLASSIC_ROW_PTRS, 13)     \
    X(SPGEMM_STAGE_NNZ_PRODUCTS, 14)         \
    X(SPGEMM_STAGE_ROW_BINS, 15)             \
    X(SPGEMM_STAGE_BIN_FILL, 16)             \
    X(SPGEMM_STAGE_ROWS, 17)                 \
    X(SPGEMM_STAGE_ESC_EXPAND, 18)           \
    X(SPGEMM_STAGE_ESC_FLAGS, 19)            \
    X(SPGEMM_STAGE_ESC_COUNT, 20)            \
    X(SPGEMM_STAGE_ESC_WRITE, 21)            \
    X(SPGEMM_STAGE_ZERO_FLAGS, 22)           \
    X(SPGEMM_STAGE_ZERO_PTRS, 23)            \
    X(SPGEMM_STAGE_ZERO_COMPACT, 24)         \
    X(SPGEMM_STAGE_ROWS_RANK, 25)            \
    X(SPGEMM_STAGE_ROWS_COMPACT, 26)         \
    X(SPGEMM_STAGE_ESC_NZ, 27)

/* A and B (spgemm_dispatch sets them), then the classic stages' and the fast ones' (the same
 * slots, other names). */
#define SPGEMM_PARAMS(X)                                                                  \
    X(SPGEMM_P_ROWS, 1)                                                                   \
    X(SPGEMM_P_NNZ_A, 2)                                                                  \
    X(SPGEMM_P_ROW_SHIFT, 2)     /* ESC: a packed key's column bits; 32: keys are columns */ \
    X(SPGEMM_P_A_PTR, 3)                                                                  \
    X(SPGEMM_P_PAY_OFF, 3)       /* ESC_FLAGS, _COUNT, _WRITE: they read neither A nor B */ \
    X(SPGEMM_P_A_IDX, 4)                                                                  \
    X(SPGEMM_P_FLAG_OFF, 4)                                                               \
    X(SPGEMM_P_A_VAL, 5)                                                                  \
    X(SPGEMM_P_B_PTR, 6)                                                                  \
    X(SPGEMM_P_B_IDX, 7)                                                                  \
    X(SPGEMM_P_B_VAL, 8)                                                                  \
    X(SPGEMM_P_PRODUCTS, 9)                                                               \
    X(SPGEMM_P_COUNT, 9)         /* rows of the bin, products of the chunk, entries */    \
    X(SPGEMM_P_B_ROWS, 9)        /* NNZ_PRODUCTS */                                       \
    X(SPGEMM_P_TABLGT, 10)                                                                \
    X(SPGEMM_P_CAP, 10)          /* ROWS: CAP in bits 0..15; ROWS_RANK: ROW_W above */    \
    X(SPGEMM_P_COMPACT_ROWS, 10) /* ROWS_COMPACT after the ordered one phase */           \
    X(SPGEMM_P_CHUNK_ROWS, 10)                                                            \
    X(SPGEMM_P_NNZ_C, 11)                                                                 \
    X(SPGEMM_P_LIST_OFF, 11)                                                              \
    X(SPGEMM_P_KEY_OFF, 11)                                                               \
    X(SPGEMM_P_STEP_T, 12)       /* prN of a max or sum step; h of a sort step */         \
    X(SPGEMM_P_APOS_OFF, 12)                                                              \
    X(SPGEMM_P_ZFLAG_OFF, 12)                                                             \
    X(SPGEMM_P_NN, 13)           /* the padded run of the classic sort */                 \
    X(SPGEMM_P_NUMERIC, 13)      /* ROWS, ROWS_RANK: SPGEMM_SYMBOLIC ..; ESC: SPGEMM_ESC_* */ \
    X(SPGEMM_P_COMPACT_SHIFT, 13)                                                         \
    X(SPGEMM_P_REVERSE, 14)                                                               \
    X(SPGEMM_P_RPTR_OFF, 14)                                                              \
    X(SPGEMM_P_NEW_IDX, 14)                                                               \
    X(SPGEMM_P_C_IDX, 15)        /* where C's columns start in its ints */

/* ROWS_RANK's and ESC_EXPAND's programs, each its own (ONLY_STAGE). */
#define SPGEMM_SHAPES(X)                                                                 \
    X(SPGEMM_SHAPE_RANK, 0, 0, 32) /* ROWS_RANK: SPGEMM_RANK_COMPARE .. _WINDOW */        \
    X(SPGEMM_SHAPE_WALK, 0, 0, 32) /* ESC_EXPAND: 1 walks A's nonzeros (after ESC_NZ) */

/* What ROWS and ROWS_RANK write for each row r of their bin (SPGEMM_P_NUMERIC):
 *   SYMBOLIC  rptr[r] = distinct columns of row r of A*B;
 *   NUMERIC   C's columns (ascending) and values of row r at rptr[r] (C's row pointer, after
 *             rptr's scan);
 *   ONE_PHASE both at once: the counts as SYMBOLIC, the entries at apos[row_ptr[r]] (the
 *             row's first product) of the temporary;
 *   ONE_PHASE_ORDERED ROWS_RANK on every row in row order (spgemm_stage_rows_ordered).
 * What ESC_EXPAND writes: the keys; keys and values; the values alone (a kept chunk, whose
 * keys are sorted); keys and the f32 values' bits as the sort's payload (CARRIED, which
 * ESC_WRITE then reads there).
 * How ROWS_RANK ranks a row's products (SPGEMM_SHAPE_RANK; spgemm.h says more): compare,
 * search, merge or window.
 * The aux header's words: rows per bin (bins 0..6 go through ROWS with CAP = MIN_CAP << bin
 * slots, bin 7 is the long rows; bins below RANK_BINS through ROWS_RANK), fill counters,
 * 64-bit totals; then the rows' records of RECORD words. */
#define SPGEMM_CONSTS(X)                                                                 \
    X(SPGEMM_SYMBOLIC, 0)                                                                 \
    X(SPGEMM_NUMERIC, 1)                                                                  \
    X(SPGEMM_ONE_PHASE, 2)                                                                \
    X(SPGEMM_ONE_PHASE_ORDERED, 3)                                                        \
    X(SPGEMM_ESC_KEYS, 0)                                                                 \
    X(SPGEMM_ESC_KEYS_VALUES, 1)                                                          \
    X(SPGEMM_ESC_VALUES, 2)                                                               \
    X(SPGEMM_ESC_CARRIED, 3)                                                              \
    X(SPGEMM_RANK_COMPARE, 0)                                                             \
    X(SPGEMM_RANK_SEARCH, 1)                                                              \
    X(SPGEMM_RANK_MERGE, 2)                                                               \
    X(SPGEMM_RANK_WINDOW, 3)                                                              \
    X(SPGEMM_BINS, 8)                                                                     \
    X(SPGEMM_LONG_BIN, 7)                                                                 \
    X(SPGEMM_MIN_CAP, 32)                                                                 \
    X(SPGEMM_RANK_BINS, 3)     /* the bins of CAP <= 128 */                               \
    X(SPGEMM_H_COUNT, 0)                                                                  \
    X(SPGEMM_H_FILL, 8)                                                                   \
    X(SPGEMM_H_PRODUCTS, 16)   /* two words: low, high */                                 \
    X(SPGEMM_H_B_LEFT, 18)     /* B's rows: the most (row - first column) + 2^31 */       \
    X(SPGEMM_H_B_RIGHT, 19)    /* the most (last column - row) + 2^31 */                  \
    X(SPGEMM_H_LONGEST, 20)    /* per bin: its longest row's products */                  \
    X(SPGEMM_H_WINDOW, 28)     /* per ROWS_RANK bin: rows whose span of columns fits */   \
    X(SPGEMM_HEADER, 32)                                                                  \
    X(SPGEMM_RECORD, 4)        /* words of a row's record in the list */

#endif /* GPGPU_SPGEMM_IDS_H */
