/**
 * @file sparse.h
 * @brief Sparse matrices: host formats and their conversions (CPU, no
 * context), a sparse matrix object on the GPU, and SpMV.
 *
 * The hub format is CSR (::gpgpu_csr): the MatrixMarket reader, the
 * generators and the conversions all meet there, and every other format is
 * made from it. Host values are always double; a ::gpgpu_matrix keeps them
 * on the GPU as f32 or f64.
 *
 * Indices are 32-bit: rows, cols and nnz up to 2^31 - 1 (larger gives
 * GPGPU_ERROR_TOO_LARGE, before anything is allocated).
 */
#ifndef GPGPU_SPARSE_H
#define GPGPU_SPARSE_H

#include "gpgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest row count, column count and nnz the shaders index. */
#define GPGPU_SPARSE_MAX_INDEX 0x7fffffffu

/** Storage formats. */
typedef enum gpgpu_format {
    GPGPU_FORMAT_CSR = 1,  /**< row pointers, column indices, values (the hub) */
    GPGPU_FORMAT_COO = 2,  /**< (row, col, value) triples sorted by row, then column */
    GPGPU_FORMAT_CSC = 3,  /**< column pointers, row indices, values */
    GPGPU_FORMAT_ELL = 4,  /**< every row padded to the longest, stored column-major */
    GPGPU_FORMAT_SELL = 5, /**< SELL-C-sigma: slices of C rows, each padded to its longest */
    GPGPU_FORMAT_BSR = 6   /**< dense b x b blocks in a CSR of block rows */
} gpgpu_format;

/** A constant name ("csr", "coo", ...), NULL for an unknown value. */
GPGPU_API const char *gpgpu_format_name(gpgpu_format format);

/* ------------------------------------------------------- host CSR (the hub) */

/**
 * A sparse matrix in host memory, CSR: row_ptr[rows + 1] nondecreasing from 0
 * to nnz, col_idx[nnz] in [0, cols) and ascending within each row (no
 * duplicates: the readers sum them), values[nnz]. Arrays are malloc'ed and
 * owned by the struct: free them with gpgpu_csr_free().
 */
typedef struct gpgpu_csr {
    uint32_t rows, cols;
    size_t nnz;
    uint32_t *row_ptr;
    uint32_t *col_idx;
    double *values;
} gpgpu_csr;

/** Frees the arrays of a CSR filled by the library and zeroes it; NULL is accepted. */
GPGPU_API void gpgpu_csr_free(gpgpu_csr *a);

/**
 * Checks a CSR as a caller could pass it: row_ptr starts at 0, never
 * decreases and ends at nnz; every column index is below cols; columns
 * ascend strictly within each row when `need_sorted`. On failure writes a
 * one-line message naming the first bad row or entry into msg.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_TOO_LARGE;
 *   GPGPU_ERROR_INVALID_ARGUMENT.
 */
GPGPU_API gpgpu_status gpgpu_csr_check(const gpgpu_csr *a, bool need_sorted, char *msg,
                                       size_t msg_size);

/**
 * Builds a CSR from `nnz` (row, col, value) triples in any order, 0-based;
 * duplicates are summed. Linear time and memory (a counting sort by row, then
 * each row's columns sorted).
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_TOO_LARGE;
 *   GPGPU_ERROR_INVALID_ARGUMENT (an index out of range, named in msg);
 *   GPGPU_ERROR_OUT_OF_MEMORY.
 */
GPGPU_API gpgpu_status gpgpu_csr_from_coo(uint32_t rows, uint32_t cols, size_t nnz,
                                          const uint32_t *row, const uint32_t *col,
                                          const double *values, gpgpu_csr *out, char *msg,
                                          size_t msg_size);

/** Row-length statistics (gpgpu matinfo, the SpMV heuristics). */
typedef struct gpgpu_row_stats {
    uint32_t min, max;
    double mean, stddev;
    uint32_t empty_rows;
} gpgpu_row_stats;

/** Fills *stats for a (checked) CSR: min, max, mean and (population) standard deviation of
 *  the row lengths, and the empty rows; all zero when rows is 0.
 *  @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER. */
GPGPU_API gpgpu_status gpgpu_csr_row_stats(const gpgpu_csr *a, gpgpu_row_stats *stats);

/* ------------------------------------------------------------- other formats */

/** The largest SELL slice height and BSR block size. Each bounds the padding
 *  a parameter alone can add (a slice of C rows, a block of b x b entries, for
 *  one nonzero): without them a 16-row matrix asked for C or b near 2^31 made
 *  2^31 - 1 stored entries, 24 GiB. */
#define GPGPU_SELL_MAX_C 1024u
#define GPGPU_BSR_MAX_BLOCK 64u

/** Parameters of the formats that have them; zero picks the default. */
typedef struct gpgpu_format_params {
    uint32_t sell_c;       /**< SELL slice height C (default 32, at most GPGPU_SELL_MAX_C) */
    uint32_t sell_sigma;   /**< SELL sorting window sigma in rows (default 32 * C); 1 = no sort */
    uint32_t bsr_block;    /**< BSR block size b (default 4, at most GPGPU_BSR_MAX_BLOCK) */
    /** ELL: the padded entries (rows x longest row) may be at most this many times
     *  nnz (default 8, at least 1), else the conversion refuses with
     *  GPGPU_ERROR_TOO_LARGE and says so (use SELL or CSR for such matrices). */
    double ell_max_fill;
} gpgpu_format_params;

/**
 * A matrix in any format, host memory, arrays owned (gpgpu_sparse_free). Which
 * arrays are used depends on the format:
 * - CSR: ptr[rows+1], idx[nnz] (columns), values[nnz].
 * - COO: row[nnz], idx[nnz] (columns), values[nnz], sorted by row then column.
 * - CSC: ptr[cols+1], idx[nnz] (rows), values[nnz], rows ascending in each column.
 * - ELL: width = longest row; idx[rows*width], values[rows*width], column-major (entry k of
 *   row i at k*rows + i); padding has column 0xffffffff and value 0.
 * - SELL: slice height c, slices = ceil(rows/c); ptr[slices+1] start of each slice in
 *   idx/values (in entries), slice_width[slices]; within a slice, entry k of its row r
 *   (0 <= r < c) at ptr[s] + k*c + r; perm[rows]: the original row of sorted row i
 *   (rows sorted by length, longest first, within windows of sigma, equal lengths in their
 *   order); the last slice is padded to c rows too; padding as ELL.
 * - BSR: block b, block_rows = ceil(rows/b), block_cols = ceil(cols/b); ptr[block_rows+1],
 *   idx[blocks] (block columns, ascending), values[blocks*b*b] (each block row-major);
 *   entries past rows/cols are 0.
 */
typedef struct gpgpu_sparse {
    gpgpu_format format;
    uint32_t rows, cols;
    size_t nnz;          /**< structural nonzeros of the matrix (not counting padding) */
    size_t stored;       /**< entries stored in idx/values (with padding or whole blocks) */
    uint32_t width;      /**< ELL: the longest row */
    uint32_t c;          /**< SELL: slice height */
    uint32_t sigma;      /**< SELL: sorting window */
    uint32_t block;      /**< BSR: b */
    size_t ptr_count;    /**< entries of ptr (0 when unused) */
    uint32_t *ptr;
    uint32_t *idx;
    uint32_t *row;       /**< COO only */
    uint32_t *slice_width; /**< SELL only */
    uint32_t *perm;      /**< SELL only */
    double *values;
} gpgpu_sparse;

/**
 * Converts a checked CSR (sorted columns) into `format`.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (bad format or
 *   parameter (C or b past its maximum), or a CSR that gpgpu_csr_check refuses);
 *   GPGPU_ERROR_TOO_LARGE (ELL past its
 *   fill limit, or more than 2^31 - 1 stored entries; msg says which);
 *   GPGPU_ERROR_OUT_OF_MEMORY.
 */
GPGPU_API gpgpu_status gpgpu_sparse_from_csr(const gpgpu_csr *a, gpgpu_format format,
                                             const gpgpu_format_params *params,
                                             gpgpu_sparse *out, char *msg, size_t msg_size);

/** Converts back to CSR (the inverse of gpgpu_sparse_from_csr: padding is dropped again; a BSR
 *  block cannot tell an explicit +0.0 of the CSR from its fill, so every +0.0 block entry is
 *  dropped, -0.0 kept). The arrays are checked against the struct's sizes first.
 *  @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (unknown
 *  format, arrays that do not match the sizes, an index out of range);
 *  GPGPU_ERROR_TOO_LARGE; GPGPU_ERROR_OUT_OF_MEMORY. */
GPGPU_API gpgpu_status gpgpu_sparse_to_csr(const gpgpu_sparse *a, gpgpu_csr *out, char *msg,
                                           size_t msg_size);

/** Frees a gpgpu_sparse filled by the library and zeroes it; NULL is accepted. */
GPGPU_API void gpgpu_sparse_free(gpgpu_sparse *a);

/**
 * Bytes a format needs on the GPU for a CSR, with values of `type` (f32 or f64), without
 * converting (a dry run of the conversion's counting). Also fills *stored (entries, with
 * padding) when not NULL. ELL past its fill limit still reports its size.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (type not f32 or
 *   f64, bad format or parameter, a CSR that gpgpu_csr_check refuses); GPGPU_ERROR_TOO_LARGE
 *   (more than 2^31 - 1 stored entries); GPGPU_ERROR_OUT_OF_MEMORY (SELL and BSR count with
 *   temporary arrays).
 */
GPGPU_API gpgpu_status gpgpu_format_bytes(const gpgpu_csr *a, gpgpu_format format,
                                          const gpgpu_format_params *params, gpgpu_type type,
                                          size_t *bytes, size_t *stored);

/* --------------------------------------------------------------- generators */

/** Reproducible matrices for tests and benchmarks (same seed, same matrix). */
typedef enum gpgpu_generator {
    GPGPU_GEN_LAPLACE3D_7 = 1,  /**< 3D Laplacian, 7 points, n^3 rows (size = n); SPD */
    GPGPU_GEN_LAPLACE3D_27 = 2, /**< 3D 27-point stencil (26 on the diagonal, -1 around); SPD */
    GPGPU_GEN_RANDOM = 3,       /**< size rows and columns, row lengths uniform in [0, 2*avg] */
    GPGPU_GEN_POWER_LAW = 4,    /**< size rows, row lengths power-law (exponent 2), mean avg */
    GPGPU_GEN_RMAT = 5,         /**< R-MAT (a,b,c,d = .57,.19,.19,.05), 2^size rows, avg * 2^size edges */
    GPGPU_GEN_BANDED = 6,       /**< size rows, band of half-width avg */
    GPGPU_GEN_DENSE_ROW = 7,    /**< size rows of about avg entries, and row 0 full (size entries) */
    GPGPU_GEN_DENSE = 8         /**< size x size, every entry */
} gpgpu_generator;

/**
 * Generates a matrix into *out (values random in [-1, 1) unless the generator fixes them,
 * duplicates summed). `size` and `avg` are as each generator says (the Laplacians and DENSE
 * take no avg, and the Laplacians no seed: their values are fixed). Random columns are drawn
 * uniformly with replacement, so a row may come out a little shorter than drawn.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT;
 *   GPGPU_ERROR_TOO_LARGE; GPGPU_ERROR_OUT_OF_MEMORY.
 */
GPGPU_API gpgpu_status gpgpu_generate(gpgpu_generator gen, uint32_t size, uint32_t avg,
                                      uint64_t seed, gpgpu_csr *out);

/* ----------------------------------------------------- GPU sparse matrices */

typedef struct gpgpu_matrix gpgpu_matrix;

/** How a matrix is kept on the GPU. */
typedef struct gpgpu_matrix_desc {
    gpgpu_type type;              /**< values: GPGPU_TYPE_F32 or GPGPU_TYPE_F64 */
    gpgpu_format format;          /**< 0 means CSR */
    gpgpu_format_params params;   /**< for ELL, SELL, BSR */
} gpgpu_matrix_desc;

/**
 * Uploads a host CSR in the desc's format (converting on the CPU), checked first
 * (gpgpu_csr_check with sorted columns): the matrix then serves any number of products.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (a malformed
 *   CSR, message names the row); GPGPU_ERROR_TOO_LARGE; GPGPU_ERROR_UNSUPPORTED_FEATURE (f64
 *   without shader doubles); GPGPU_ERROR_OUT_OF_MEMORY.
 */
GPGPU_API gpgpu_status gpgpu_matrix_create(gpgpu_context *ctx, const gpgpu_matrix_desc *desc,
                                           const gpgpu_csr *a, gpgpu_matrix **out);

/**
 * A CSR matrix on the caller's buffers (library buffers or wrapped GL/Vulkan ones), not
 * copied: row_ptr (rows + 1 u32), col_idx (nnz u32), values (nnz of desc->type), offsets in
 * elements. The arrays are validated on the GPU by bounds-checked passes (the row pointers,
 * then the entries) before the call returns (row pointers from 0, nondecreasing, ending at
 * nnz; columns below cols; sorted within rows) and refused with the first bad row named; they
 * must stay alive while the matrix is used. The values may change between products; row
 * pointers and columns may not, unless gpgpu_matrix_validate is called again (which also
 * drops the balanced product's plan of the row pointers, kept with the matrix and made
 * again on the next product). Arrays changed without that give wrong products, never an
 * access outside the buffers.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (a malformed
 *   CSR, message names the first bad row; a type other than f32 and f64; a buffer of another
 *   context);
 *   GPGPU_ERROR_UNSUPPORTED_COMBINATION (desc->format other than 0 or CSR; work being recorded
 *   into a caller's Vulkan command buffer, since the validation's result is read back);
 *   GPGPU_ERROR_OUT_OF_RANGE, GPGPU_ERROR_MISALIGNED (a buffer too small or misaligned for
 *   its array); GPGPU_ERROR_TOO_LARGE; GPGPU_ERROR_UNSUPPORTED_FEATURE (f64 without shader
 *   doubles); GPGPU_ERROR_OUT_OF_MEMORY.
 */
GPGPU_API gpgpu_status gpgpu_matrix_wrap_csr(gpgpu_context *ctx, const gpgpu_matrix_desc *desc,
                                             uint32_t rows, uint32_t cols, size_t nnz,
                                             gpgpu_buffer *row_ptr, size_t row_ptr_offset,
                                             gpgpu_buffer *col_idx, size_t col_idx_offset,
                                             gpgpu_buffer *values, size_t values_offset,
                                             gpgpu_matrix **out);

/** Validates a wrapped matrix's arrays again (after the caller changed them).
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (malformed
 *   arrays, the first bad row named; or a matrix made by gpgpu_matrix_create, which has
 *   nothing to validate); GPGPU_ERROR_UNSUPPORTED_COMBINATION (work being recorded into a
 *   caller's Vulkan command buffer). */
GPGPU_API gpgpu_status gpgpu_matrix_validate(gpgpu_matrix *a);

/** Destroys the matrix and the buffers it made (not the caller's); NULL is accepted. */
GPGPU_API void gpgpu_matrix_destroy(gpgpu_matrix *a);

/** What a matrix holds. */
typedef struct gpgpu_matrix_info {
    gpgpu_type type;
    gpgpu_format format;
    uint32_t rows, cols;
    size_t nnz;
    size_t stored;  /**< entries stored, with padding */
    size_t bytes;   /**< GPU memory of its arrays */
} gpgpu_matrix_info;

GPGPU_API gpgpu_status gpgpu_matrix_get_info(const gpgpu_matrix *a, gpgpu_matrix_info *info);

/* --------------------------------------------------------------------- SpMV */

/** How gpgpu_spmv computes y = alpha * A * x + beta * y; zero means default for every field
 *  (alpha and beta are the call's parameters, as gpgpu_gemm's and gpgpu_axpby's). */
typedef struct gpgpu_spmv_desc {
    gpgpu_algo algo;  /**< DEFAULT (CSR: SPMV_BALANCED when the longest row is more than 4x
                           the mean + 32, else SPMV_SCALAR below 12 entries a row on average,
                           SPMV_VECTOR above; the format's kernel otherwise),
                           CLASSIC_SPMV, SPMV_SCALAR, SPMV_VECTOR, SPMV_BALANCED */
    /** SPMV_VECTOR: invocations per row (a power of two from 1 to 32, or to the subgroup size
     *  where that is larger) and rows per work-group (a power of two; their product at most
     *  1024 and the device's work-group limit); 0 takes the tuned choice if gpgpu_spmv_tune
     *  has run for this device and matrix shape, else the heuristic from row lengths. */
    uint32_t threads_per_row;
    uint32_t rows_per_group;
} gpgpu_spmv_desc;

/**
 * y = alpha*A*x + beta*y with x (cols elements) and y (rows elements) of A's type at element
 * offsets, the parameters in gpgpu_gemm's order; y must not overlap x, nor the arrays of a
 * wrapped matrix (gpgpu_matrix_wrap_csr). alpha and beta are rounded to the type (refused
 * where they are NaN, infinite or, for f32, past FLT_MAX, as gpgpu_axpby refuses them);
 * beta = 0 writes y without reading it (NaN in y is ignored). `&(gpgpu_spmv_desc){0}` takes the
 * default kernel and shape: `gpgpu_spmv(ctx, &(gpgpu_spmv_desc){0}, 1, a, x, 0, 0, y, 0)`
 * is y = A*x.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (unknown
 *   algorithm, a vector shape out of range, a matrix or buffer of another context, alpha or
 *   beta as gpgpu_axpby refuses them);
 *   GPGPU_ERROR_UNSUPPORTED_COMBINATION (an algorithm the format has not, a reduce, scan or
 *   sort algorithm, or CLASSIC_SPMV, which reads the longest row back, while work is recorded
 *   into a caller's Vulkan command buffer); GPGPU_ERROR_OUT_OF_RANGE; GPGPU_ERROR_OVERLAP (y
 *   and x, or y and a wrapped matrix's arrays);
 *   GPGPU_ERROR_MISALIGNED; GPGPU_ERROR_TOO_LARGE (CLASSIC_SPMV past 2^32 invocations in a
 *   step); GPGPU_ERROR_OUT_OF_MEMORY (scratch); GPGPU_ERROR_SHADER_COMPILE; GPGPU_ERROR_BACKEND.
 */
GPGPU_API gpgpu_status gpgpu_spmv(gpgpu_context *ctx, const gpgpu_spmv_desc *desc, double alpha,
                                  const gpgpu_matrix *a, gpgpu_buffer *x, size_t x_offset,
                                  double beta, gpgpu_buffer *y, size_t y_offset);

/** The choice of the vector kernel's shape. */
typedef struct gpgpu_spmv_tuning {
    uint32_t threads_per_row;
    uint32_t rows_per_group;
    double gpu_ns;        /**< time of the chosen shape (0 from the heuristic) */
    double heuristic_ns;  /**< time of the heuristic's shape, for comparison */
} gpgpu_spmv_tuning;

/**
 * Times the vector kernel's candidate shapes on this matrix and remembers the fastest for it
 * (per device and matrix shape: rows, cols, nnz, row-length statistics), in the context and
 * in the cache file $GPGPU_TUNE_CACHE (default ~/.cache/libgpgpu/tune; not written when
 * the variable is empty, nor where it is not a regular file of at most 1 MiB: see
 * gpgpu_last_warning). *result (may be NULL) gets the chosen shape, its time and the
 * heuristic shape's time. A matrix without entries has nothing to time: the heuristic's shape
 * comes back and nothing is remembered.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (a matrix of
 *   another context, a gpgpu_timer_begin measurement running);
 *   GPGPU_ERROR_UNSUPPORTED_COMBINATION (not CSR, or work being recorded into a caller's Vulkan
 *   command buffer); errors of gpgpu_spmv.
 */
GPGPU_API gpgpu_status gpgpu_spmv_tune(gpgpu_context *ctx, gpgpu_matrix *a,
                                       gpgpu_progress_callback progress, void *user_data,
                                       gpgpu_spmv_tuning *result);

/** The heuristic's shape for a matrix (what SPMV_VECTOR takes without tuning). */
GPGPU_API gpgpu_status gpgpu_spmv_heuristic(const gpgpu_matrix *a, gpgpu_spmv_tuning *result);

/* ------------------------------------------------------------ SpGEMM and friends */

/**
 * Copies a CSR matrix back to host memory (values as double). *out is filled by the library:
 * free it with gpgpu_csr_free.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_UNSUPPORTED_COMBINATION (a
 *   format other than CSR; work being recorded into a caller's Vulkan command buffer);
 *   GPGPU_ERROR_OUT_OF_MEMORY; GPGPU_ERROR_BACKEND.
 */
GPGPU_API gpgpu_status gpgpu_matrix_download(const gpgpu_matrix *a, gpgpu_csr *out);

/**
 * A^T as a new CSR matrix the caller owns (gpgpu_matrix_destroy), computed on the GPU: a
 * stable radix sort of the entries by column, so each row of A^T has its columns ascending.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (a matrix of
 *   another context); GPGPU_ERROR_UNSUPPORTED_COMBINATION (not CSR; recording into a caller's
 *   Vulkan command buffer); GPGPU_ERROR_OUT_OF_MEMORY.
 */
GPGPU_API gpgpu_status gpgpu_matrix_transpose(gpgpu_context *ctx, const gpgpu_matrix *a,
                                              gpgpu_matrix **out);

/** C = A * B. */
typedef struct gpgpu_spgemm_desc {
    /** DEFAULT/FAST = SPGEMM_ROWS (rows binned by their count of products: up to 2048 sorted
     *  in shared memory, longer ones through the global path of SPGEMM_ESC);
     *  CLASSIC_SPGEMM (Kiciak's 13 stages); SPGEMM_ESC (every row through the global path). */
    gpgpu_algo algo;
    /** Entries of C that come out exactly zero (+0 or -0) are dropped; by default every
     *  structural entry is kept, as cuSPARSE keeps them. */
    bool drop_zeros;
    /** GPU memory (bytes) the product's temporaries and C together may take; the fast paths
     *  work through chunks of rows to stay below it. 0: half of gpgpu_info.device_memory_bytes
     *  (1 GiB where the device does not say), at most what the context's memory_limit leaves.
     *  The classic algorithm ignores it. */
    size_t memory_budget;
    /** Called with a line on each chunk of a product with more than 2^26 products, and with
     *  CLASSIC_SPGEMM after each of its steps, which are then waited for one by one (may be
     *  NULL). */
    gpgpu_progress_callback progress;
    void *user_data;
} gpgpu_spgemm_desc;

/** What a product did (gpgpu_spgemm fills it when not NULL). */
typedef struct gpgpu_spgemm_stats {
    uint64_t products;      /**< intermediate products a_ik * b_kj (FLOP = 2 x products) */
    size_t nnz;             /**< entries of C */
    size_t dropped;         /**< entries dropped by drop_zeros */
    uint32_t chunks;        /**< row chunks the global path took (0: none needed it) */
    uint32_t long_rows;     /**< rows that went through the global path */
    uint32_t one_phase;     /**< 1: the short rows were counted and summed in one pass, through a
                             *   temporary of one column and value per product (where it fits
                             *   the budget); 0: two passes */
    size_t peak_bytes;      /**< most GPU memory the call held at once: temporaries and C */
} gpgpu_spgemm_stats;

/**
 * C = A * B for CSR matrices of one type (f32 or f64) and context, A rows x n, B n x cols.
 * C is a new CSR matrix the caller owns (gpgpu_matrix_destroy), columns ascending within each
 * row; it holds every (i, j) with some a_ik and b_kj stored, even where the sum is zero
 * (unless desc->drop_zeros). A and B may be the same matrix.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (A's columns
 *   differ from B's rows, the message says both; types that differ; a matrix of another
 *   context; an unknown algorithm); GPGPU_ERROR_UNSUPPORTED_COMBINATION (not CSR; an
 *   algorithm of another primitive; recording into a caller's Vulkan command buffer);
 *   GPGPU_ERROR_TOO_LARGE (C with more than 2^31 - 1 entries; a row with 2^32 or more
 *   products; the classic algorithm past its 32-bit indices or one storage binding);
 *   GPGPU_ERROR_OUT_OF_MEMORY (the product cannot fit in the budget even row by row: the
 *   message says how many bytes it needed); GPGPU_ERROR_SHADER_COMPILE; GPGPU_ERROR_BACKEND.
 */
GPGPU_API gpgpu_status gpgpu_spgemm(gpgpu_context *ctx, const gpgpu_spgemm_desc *desc,
                                    const gpgpu_matrix *a, const gpgpu_matrix *b,
                                    gpgpu_matrix **c, gpgpu_spgemm_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_SPARSE_H */
