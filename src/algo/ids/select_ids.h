/* The ids of glsl/select.comp, written once for src/algo/select.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_SELECT_IDS_H
#define GPGPU_SELECT_IDS_H

#define SELECT_STAGES(X)         \
    X(SELECT_STAGE_COUNT, 1)     \
    X(SELECT_STAGE_SCATTER, 2)   \
    X(SELECT_STAGE_CLEAR, 3)     \
    X(SELECT_STAGE_CHAINED, 4)

#define SELECT_PARAMS(X)                                                         \
    X(SELECT_P_N, 1)                                                             \
    X(SELECT_P_SRC_OFF, 2)                                                       \
    X(SELECT_P_DST_OFF, 3)                                                       \
    X(SELECT_P_FLAGS_OFF, 4)                                                     \
    X(SELECT_P_PAY_IN_OFF, 5)                                                    \
    X(SELECT_P_PAY_OUT_OFF, 6)                                                   \
    X(SELECT_P_IDX_OFF, 7)                                                       \
    X(SELECT_P_STATE_OFF, 8)                                                     \
    X(SELECT_P_MODE, 9)           /* the keep mode (bits 0-3), SELECT_MODE_* */  \
    X(SELECT_P_VALUE, 10)         /* and 11: a T's bits, f64's low word first */ \
    X(SELECT_P_POLLS, 12)         /* CHAINED: reads of a silent predecessor */   \
    X(SELECT_P_TILES_PER_GROUP, 13)                                              \
    X(SELECT_P_GROUPS, 14)        /* COUNT, SCATTER: the partial counts */       \
    X(SELECT_P_FORCE_RECOUNT, 15) /* CHAINED (tests): every look-back counts again */

/* SCATTER's and CHAINED's programs (COUNT's and CLEAR's leave STAGED and PARTS_LOG2 0). */
#define SELECT_SHAPES(X)                                                                  \
    X(SELECT_SHAPE_STAGED, 0, 0, 1) /* the written elements go through shared memory */ \
    X(SELECT_SHAPE_PARTS_LOG2, 0, 8, 8) /* ... in 2^this parts of a tile */               \
    X(SELECT_SHAPE_HEADS, 0, 16, 1) /* a program that keeps run heads (SELECT_KEEP_HEADS) */

/* SELECT_P_MODE: the keep mode in bits 0-3 (by the flags, or a comparison, numbered as
 * gpgpu_compare is: select.h checks it; or the run heads, for the run-length encoding), and
 * the bits above it (NO_OUT: the kept values are not written, only their indices). */
#define SELECT_CONSTS(X)            \
    X(SELECT_KEEP_FLAGS, 0)         \
    X(SELECT_KEEP_LT, 1)            \
    X(SELECT_KEEP_LE, 2)            \
    X(SELECT_KEEP_GT, 3)            \
    X(SELECT_KEEP_GE, 4)            \
    X(SELECT_KEEP_EQ, 5)            \
    X(SELECT_KEEP_NE, 6)            \
    X(SELECT_KEEP_HEADS, 7)         \
    X(SELECT_MODE_PARTITION, 16)    \
    X(SELECT_MODE_PAY, 32)          \
    X(SELECT_MODE_IDX, 64)          \
    X(SELECT_MODE_NO_OUT, 128)      \
    X(SELECT_MODE_BY_GROUP, 256)

#endif /* GPGPU_SELECT_IDS_H */
