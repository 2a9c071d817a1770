/* The ids of glsl/reduce.comp, written once for src/algo/reduce.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_REDUCE_IDS_H
#define GPGPU_REDUCE_IDS_H

#define REDUCE_STAGES(X)             \
    X(REDUCE_STAGE_TILES, 1)         \
    X(REDUCE_STAGE_EXPAND, 2)        \
    X(REDUCE_STAGE_HALVING, 3)       \
    X(REDUCE_STAGE_STRIDE, 4)        \
    X(REDUCE_STAGE_PAIRS, 5)         \
    X(REDUCE_STAGE_QUADS, 6)         \
    X(REDUCE_STAGE_COUNTER, 7)       \
    X(REDUCE_STAGE_DOT, 8)           \
    X(REDUCE_STAGE_UPDATE_DOT, 9)

/* N, SRC_OFF and DST_OFF are the slots algo_bind_io sets. */
#define REDUCE_PARAMS(X)                                                       \
    X(REDUCE_P_N, 1)           /* elements, or V elements left (classic) */    \
    X(REDUCE_P_SRC_OFF, 2)                                                     \
    X(REDUCE_P_DST_OFF, 3)                                                     \
    X(REDUCE_P_SRC_PAIRS, 4)   /* TILES on MINMAX: src holds (min, max) pairs */ \
    X(REDUCE_P_Q, 5)           /* STRIDE: the distance between the operands */ \
    X(REDUCE_P_FOLD, 6)        /* TILES: the last group folds the partials */  \
    X(REDUCE_P_RESULT_OFF, 7)                                                  \
    X(REDUCE_P_TIMES, 8)       /* UPDATE_DOT: products with times[i], else squares */ \
    X(REDUCE_P_TIMES_OFF, 9)                                                   \
    X(REDUCE_P_UPDATE, 10)     /* UPDATE_DOT: 1 y = alpha src + beta y, 2 beta = 0 */ \
    X(REDUCE_P_UPDATE_OFF, 11)                                                 \
    X(REDUCE_P_ALPHA, 12)      /* and 13: a T's bits, f64's low word first */  \
    X(REDUCE_P_BETA, 14)       /* and 15 */

#endif /* GPGPU_REDUCE_IDS_H */
