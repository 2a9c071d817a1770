/* The ids of glsl/histogram.comp, written once for src/algo/histogram.c and the shader
 * (docs/INTERNALS.md, "Ids"). */
#ifndef GPGPU_HISTOGRAM_IDS_H
#define GPGPU_HISTOGRAM_IDS_H

#define HISTOGRAM_STAGES(X)        \
    X(HISTOGRAM_STAGE_CLEAR, 1)    \
    X(HISTOGRAM_STAGE_BINS, 2)     \
    X(HISTOGRAM_STAGE_SHARED, 3)   \
    X(HISTOGRAM_STAGE_GLOBAL, 4)

#define HISTOGRAM_PARAMS(X)                                                  \
    X(HISTOGRAM_P_N, 1)                                                      \
    X(HISTOGRAM_P_SRC_OFF, 2)                                                \
    X(HISTOGRAM_P_DST_OFF, 3)                                                \
    X(HISTOGRAM_P_BINS, 4)                                                   \
    X(HISTOGRAM_P_LEVELS_OFF, 5)                                             \
    X(HISTOGRAM_P_COUNT_OFF, 6)                                              \
    X(HISTOGRAM_P_HAS_COUNT, 7)                                              \
    X(HISTOGRAM_P_LO, 8)     /* and 9: a T's bits, f64's low word first */   \
    X(HISTOGRAM_P_HI, 10)    /* and 11 */                                    \
    X(HISTOGRAM_P_SCALE, 12) /* and 13; integers: F of even_reciprocal */    \
    X(HISTOGRAM_P_RANGE, 14) /* bins between levels, not even ones */        \
    X(HISTOGRAM_P_WHOLE, 15) /* integers: W of even_reciprocal */

/* SHARED's own program. */
#define HISTOGRAM_SHAPES(X)                                                           \
    X(HISTOGRAM_SHAPE_CAPACITY, 0, 0, 32) /* its counters: a power of two >= BINS */  \
    X(HISTOGRAM_SHAPE_LEVELS, 1, 0, 32)   /* nonzero: the levels in shared memory too */  \
    X(HISTOGRAM_SHAPE_COPIES, 2, 0, 8)    /* copies of the counters, a power of two */    \
    X(HISTOGRAM_SHAPE_VEC, 2, 8, 1)       /* 4-byte samples loaded 4 at a time */         \
    X(HISTOGRAM_SHAPE_RUNS, 2, 9, 1)      /* runs of one bin added once */                \
    X(HISTOGRAM_SHAPE_QUEUE, 2, 10, 1)    /* tiles claimed from a counter */

#endif /* GPGPU_HISTOGRAM_IDS_H */
