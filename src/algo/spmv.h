/* Sparse matrices on the GPU (src/algo/matrix.c) and their products with a
 * vector, one shader family (glsl/spmv.comp) driven by src/algo/spmv.c, the
 * vector kernel's tuning in src/algo/spmv_tune.c. The stages can be run alone
 * for the tests; offsets and counts are in elements. */
#ifndef GPGPU_ALGO_SPMV_H
#define GPGPU_ALGO_SPMV_H

#include "algo/algo.h"
#include "algo/ids/matrix_check_ids.h"
#include "algo/ids/spmv_ids.h"
#include "gpgpu/sparse.h"

enum {
    SPMV_WG = 128,        /* the one-row-per-invocation kernels and the helper stages */
    SPMV_TILE_WG = 128,   /* balanced and COO: invocations per tile */
    SPMV_TILE_ITEMS = 8,  /* ... and consecutive nonzeros per invocation */
    SPMV_TILE = SPMV_TILE_WG * SPMV_TILE_ITEMS, /* TILE_CAP in glsl/spmv.comp */
    SPMV_MERGE_WG = 128,  /* merge path (balanced CSR): invocations per tile */
    SPMV_MERGE_ITEMS = 4, /* ... and path steps (rows ended or entries taken) per invocation */
    SPMV_MERGE_TILES = 2, /* ... and tiles per work-group, walked as a software pipeline */
    SPMV_MERGE_SLACK = 16, /* ... tiles start up to tile/16 steps early, where a row starts */
    SPMV_MAX_THREADS_PER_ROW = 32,
    SPMV_MAX_VECTOR_WG = 1024
};

/* The ids of glsl/spmv.comp, and of glsl/matrix_check.comp (matrix.c's checks). */
enum { SPMV_STAGES(ALGO_ID) };
enum { SPMV_PARAMS(ALGO_ID) };
enum { SPMV_SHAPES(ALGO_SHAPE) };
enum { MATRIX_CHECK_STAGES(ALGO_ID) };
enum { MATRIX_CHECK_PARAMS(ALGO_ID) };
enum { MATRIX_CHECK_CONSTS(ALGO_ID) };

/* One array of a matrix: a buffer and the element (of its type) where it starts. */
typedef struct spmv_array {
    gpgpu_buffer *buf;
    size_t off;
} spmv_array;

/* Which arrays a format uses (others have buf NULL):
 *   CSR: ptr = row pointers, idx = columns.   COO: row, idx = columns.
 *   CSC: ptr = column pointers, idx = rows, and for the gather row_ptr (the CSR's row
 *        pointers) and perm (the CSC position of each entry in row order).
 *   ELL: idx.   SELL: ptr = slice starts, idx, perm.   BSR: ptr, idx = block columns.
 * A matrix made from a host CSR keeps every u32 array in one buffer, one after another
 * (CSR: row pointers then columns, as the slides keep r and c), values in another. */
struct gpgpu_matrix {
    gpgpu_context *ctx;
    gpgpu_type type;
    gpgpu_format format;
    uint32_t rows, cols;
    size_t nnz;
    size_t stored;    /* entries in val (with padding or whole blocks) */
    size_t idx_count; /* entries in idx (BSR: blocks) */
    uint32_t k;       /* ELL width, SELL slice height, BSR block size */
    spmv_array ptr, idx, row, row_ptr, perm, val;
    gpgpu_buffer *owned_ints, *owned_values; /* NULL when wrapped */
    size_t bytes;
    gpgpu_row_stats stats; /* wrapped: min, max and mean only (stddev 0) */
    /* The balanced product's plan (spmv.c merge_plan): where each tile of the merge path
     * begins, for one tile and slack, and room for the tiles' records. Made on first use
     * and kept while the structure stands (gpgpu_matrix_validate drops it). */
    gpgpu_buffer *plan;
    size_t plan_tile, plan_slack;
};

/* The element type of a format's u32 arrays, named for algo_index. */
#define SPMV_U32 GPGPU_TYPE_U32

/* a->stats (longest, shortest and empty rows, mean) from its row pointers, on the GPU: one
 * small read back instead of the pointers themselves. Pointers that are not sound (do not
 * start at 0, decrease, or end past nnz) fail the call, named after `caller`. */
gpgpu_status matrix_row_stats(gpgpu_context *ctx, gpgpu_matrix *a, const char *caller);
/* Whether bytes [off, off + bytes) of buf share memory with the arrays of a wrapped
 * matrix (one made by the library keeps them in buffers of its own, which no caller
 * can reach). */
bool matrix_overlaps(const gpgpu_matrix *a, const gpgpu_buffer *buf, size_t off, size_t bytes);

/* ---- Kiciak's classic CSR product, stage by stage (CSR matrices only) ---- */

/* LENGTHS: lgt[i] = row_ptr[i+1] - row_ptr[i] for i < rows. */
gpgpu_status spmv_stage_lengths(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_buffer *lgt,
                                size_t lgt_off);
/* MAX (one step of the pairwise max): lgt[i] = max(lgt[i], lgt[i + ceil(t/2)]) where
 * i + ceil(t/2) < t; after the steps t = rows, ceil(t/2), ..., 2, lgt[0] is the longest. */
gpgpu_status spmv_stage_max(gpgpu_context *ctx, gpgpu_buffer *lgt, size_t lgt_off, uint32_t t);
/* PRODUCTS: work[k] = val[k] * x[col[k]] for k < nnz. */
gpgpu_status spmv_stage_products(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_buffer *x,
                                 size_t x_off, gpgpu_buffer *work, size_t work_off);
/* SUMS (one step, t >= 2): for each row i and j < t/2 with k = j + ceil(t/2) below both
 * lgt[i] and t: work[r_i + j] += work[r_i + k]. */
gpgpu_status spmv_stage_sums(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_buffer *lgt,
                             size_t lgt_off, gpgpu_buffer *work, size_t work_off, uint32_t t);
/* COPY: y[i] = alpha * (lgt[i] > 0 ? work[r_i] : 0) + beta * y[i] (y not read if beta = 0). */
gpgpu_status spmv_stage_copy(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_buffer *lgt,
                             size_t lgt_off, gpgpu_buffer *work, size_t work_off, double alpha,
                             double beta, gpgpu_buffer *y, size_t y_off);

/* ---- the rest of src/algo/spmv.c that other files use ---- */

/* The vector kernel with an explicit shape (threads_per_row * rows_per_group invocations
 * per work-group), on a checked call; used by the tuner. */
gpgpu_status spmv_run_vector(gpgpu_context *ctx, const gpgpu_matrix *a, double alpha,
                             double beta, gpgpu_buffer *x, size_t x_off, gpgpu_buffer *y,
                             size_t y_off, uint32_t threads_per_row, uint32_t rows_per_group);

/* The largest invocations per row the vector kernel takes on ctx (a power of two). */
uint32_t spmv_max_threads_per_row(const gpgpu_context *ctx);

/* ---- src/algo/spmv_tune.c ---- */

/* The vector shape for a: the tuned choice for its device and shape if there is one
 * (context, then the cache file), else the heuristic's. */
void spmv_vector_shape(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_spmv_tuning *out);

/* What DEFAULT runs: SPMV_SCALAR (the format's own kernel) on formats other
 * than CSR; on CSR SPMV_BALANCED when its longest row is
 * more than SPMV_REGULAR_FACTOR x the mean + SPMV_REGULAR_SLACK, else
 * SPMV_SCALAR for a mean below SPMV_SHORT_ROW, SPMV_VECTOR above. */
enum { SPMV_REGULAR_FACTOR = 4, SPMV_REGULAR_SLACK = 32, SPMV_SHORT_ROW = 12 };
gpgpu_algo spmv_default_kernel(const gpgpu_matrix *a);

/* The tuned choice alone: false if none is known. */
bool spmv_tuned_shape(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_spmv_tuning *out);

#endif /* GPGPU_ALGO_SPMV_H */
