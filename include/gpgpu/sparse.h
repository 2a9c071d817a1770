/**
 * @file sparse.h
 * @brief Sparse matrices: host formats and their conversions (CPU, no
 * context), a sparse matrix object on the GPU, SpMV and SpGEMM.
 *
 * The hub format is CSR (::gpgpu_csr): the MatrixMarket reader, the
 * generators and the conversions all meet there, and every other format is
 * made from it. Host values are always double; a ::gpgpu_matrix keeps them
 * on the GPU as f32 or f64.
 *
 * Indices are 32-bit: rows, cols and nnz up to 2^31 - 1 (larger gives
 * GPGPU_ERROR_TOO_LARGE, before anything is allocated).
 *
 * The host functions (formats, conversions, generators) take no context: they report a
 * failure by their status and, where they take `msg` and `msg_size`, a one-line message
 * written into msg (when msg is not NULL and msg_size > 0); they may be called from any
 * thread. The GPU calls follow gpgpu.h's rules (its @ref errors "Errors",
 * @ref threads "Thread safety" and @ref adopted "adopted GL context").
 */
#ifndef GPGPU_SPARSE_H
#define GPGPU_SPARSE_H

#include "gpgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup sparse_host Host sparse formats
 * @brief CSR, the other formats, conversions between them (CPU, no context).
 * @{
 */

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

/**
 * @brief A constant name ("csr", "coo", "csc", "ell", "sell", "bsr"), NULL for an unknown
 * value.
 * @param format any value.
 * @return the name, or NULL.
 * @thread_safety Any thread.
 * @pointer_lifetime Static.
 */
GPGPU_API const char *gpgpu_format_name(gpgpu_format format);

/* ------------------------------------------------------- host CSR (the hub) */

/**
 * A sparse matrix in host memory, CSR: row_ptr[rows + 1] nondecreasing from 0
 * to nnz, col_idx[nnz] in [0, cols) and ascending within each row (no
 * duplicates: the readers sum them), values[nnz]. Arrays are malloc'ed and
 * owned by the struct: free them with gpgpu_csr_free().
 */
typedef struct gpgpu_csr {
    uint32_t rows;     /**< rows of the matrix */
    uint32_t cols;     /**< columns of the matrix */
    size_t nnz;        /**< stored entries */
    uint32_t *row_ptr; /**< rows + 1 offsets into col_idx and values */
    uint32_t *col_idx; /**< nnz column indices */
    double *values;    /**< nnz values */
} gpgpu_csr;

/**
 * @brief Frees the arrays of a CSR filled by the library and zeroes it; NULL is accepted.
 * @param[in,out] a the CSR, or NULL.
 * @thread_safety Any thread.
 */
GPGPU_API void gpgpu_csr_free(gpgpu_csr *a);

/**
 * @brief Checks a CSR as a caller could pass it.
 *
 * row_ptr starts at 0, never
 * decreases and ends at nnz; every column index is below cols; columns
 * ascend strictly within each row when `need_sorted`. On failure writes a
 * one-line message naming the first bad row or entry into msg.
 * @param[in] a the CSR.
 * @param need_sorted whether columns must ascend strictly within each row.
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS the CSR is sound.
 * @retval GPGPU_ERROR_NULL_POINTER a is NULL; row_ptr is NULL, or col_idx or values with
 *   nnz > 0.
 * @retval GPGPU_ERROR_TOO_LARGE rows, cols or nnz past 2^31 - 1.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a bad row pointer or column index (msg names it).
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_csr_check(const gpgpu_csr *a, bool need_sorted, char *msg,
                                       size_t msg_size);

/**
 * @brief Builds a CSR from `nnz` (row, col, value) triples in any order, 0-based.
 *
 * Duplicates are summed. Linear time and memory (a counting sort by row, then
 * each row's columns sorted).
 * @param rows rows of the matrix.
 * @param cols columns of the matrix.
 * @param nnz how many triples.
 * @param[in] row nnz row indices (NULL when nnz is 0).
 * @param[in] col nnz column indices.
 * @param[in] values nnz values.
 * @param[out] out receives the CSR (free with gpgpu_csr_free); zeroed on failure.
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS *out is the CSR.
 * @retval GPGPU_ERROR_NULL_POINTER out is NULL, or row, col or values with nnz > 0.
 * @retval GPGPU_ERROR_TOO_LARGE rows, cols or nnz past 2^31 - 1.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an index out of range (named in msg).
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_csr_from_coo(uint32_t rows, uint32_t cols, size_t nnz,
                                          const uint32_t *row, const uint32_t *col,
                                          const double *values, gpgpu_csr *out, char *msg,
                                          size_t msg_size);

/** Row-length statistics (gpgpu matinfo, the SpMV heuristics). */
typedef struct gpgpu_row_stats {
    uint32_t min;        /**< the shortest row's entries */
    uint32_t max;        /**< the longest row's entries */
    double mean;         /**< entries per row on average */
    double stddev;       /**< the population standard deviation of the row lengths */
    uint32_t empty_rows; /**< rows without entries */
} gpgpu_row_stats;

/**
 * @brief Fills *stats with the row lengths' statistics of a (checked) CSR.
 *
 * That is min, max, mean and (population) standard deviation of
 * the row lengths, and the empty rows; all zero when rows is 0.
 * @param[in] a the CSR (its row pointers are read, not checked).
 * @param[out] stats receives the statistics.
 * @retval GPGPU_SUCCESS *stats is filled.
 * @retval GPGPU_ERROR_NULL_POINTER a, its row_ptr or stats is NULL.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_csr_row_stats(const gpgpu_csr *a, gpgpu_row_stats *stats);

/* ------------------------------------------------------------- other formats */

/** The largest SELL slice height C. It and GPGPU_BSR_MAX_BLOCK each bound the padding
 *  a parameter alone can add (a slice of C rows, a block of b x b entries, for
 *  one nonzero): without them a 16-row matrix asked for C or b near 2^31 would store
 *  2^31 - 1 entries, 24 GiB. */
#define GPGPU_SELL_MAX_C 1024u
/** The largest BSR block size b (see GPGPU_SELL_MAX_C). */
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
    gpgpu_format format; /**< which of the layouts above */
    uint32_t rows;       /**< rows of the matrix */
    uint32_t cols;       /**< columns of the matrix */
    size_t nnz;          /**< structural nonzeros of the matrix (not counting padding) */
    size_t stored;       /**< entries stored in idx/values (with padding or whole blocks) */
    uint32_t width;      /**< ELL: the longest row */
    uint32_t c;          /**< SELL: slice height */
    uint32_t sigma;      /**< SELL: sorting window */
    uint32_t block;      /**< BSR: b */
    size_t ptr_count;    /**< entries of ptr (0 when unused) */
    uint32_t *ptr;       /**< CSR, CSC, SELL, BSR: the pointers above */
    uint32_t *idx;       /**< column (CSC: row; BSR: block column) of each stored entry */
    uint32_t *row;       /**< COO only */
    uint32_t *slice_width; /**< SELL only */
    uint32_t *perm;      /**< SELL only */
    double *values;      /**< the stored values */
} gpgpu_sparse;

/**
 * @brief Converts a checked CSR (sorted columns) into `format`.
 * @param[in] a the CSR.
 * @param format the format to make.
 * @param[in] params the formats' parameters, or NULL for the defaults.
 * @param[out] out receives the matrix (free with gpgpu_sparse_free); zeroed on failure.
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS *out is the matrix.
 * @retval GPGPU_ERROR_NULL_POINTER out or a is NULL, or arrays of a that gpgpu_csr_check
 *   needs.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a bad format or parameter (C or b past its maximum,
 *   ell_max_fill below 1), or a CSR that gpgpu_csr_check refuses.
 * @retval GPGPU_ERROR_TOO_LARGE ELL past its fill limit, more than 2^31 - 1 stored entries,
 *   or a CSR past 2^31 - 1 rows, cols or nnz; msg says which.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_sparse_from_csr(const gpgpu_csr *a, gpgpu_format format,
                                             const gpgpu_format_params *params,
                                             gpgpu_sparse *out, char *msg, size_t msg_size);

/**
 * @brief Converts back to CSR, the inverse of gpgpu_sparse_from_csr.
 *
 * Padding is dropped again; a BSR
 * block cannot tell an explicit +0.0 of the CSR from its fill, so every +0.0 block entry is
 * dropped, -0.0 kept. The arrays are checked against the struct's sizes first.
 * @param[in] a the matrix.
 * @param[out] out receives the CSR (free with gpgpu_csr_free); zeroed on failure.
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS *out is the CSR.
 * @retval GPGPU_ERROR_NULL_POINTER a or out is NULL, or an array the format uses.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown format, arrays that do not match the sizes,
 *   an index out of range, more entries than nnz.
 * @retval GPGPU_ERROR_TOO_LARGE rows, cols, nnz or stored past 2^31 - 1.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_sparse_to_csr(const gpgpu_sparse *a, gpgpu_csr *out, char *msg,
                                           size_t msg_size);

/**
 * @brief Frees a gpgpu_sparse filled by the library and zeroes it; NULL is accepted.
 * @param[in,out] a the matrix, or NULL.
 * @thread_safety Any thread.
 */
GPGPU_API void gpgpu_sparse_free(gpgpu_sparse *a);

/**
 * @brief Bytes a format needs on the GPU for a CSR, with values of `type` (f32 or f64).
 *
 * Nothing is converted (a dry run of the conversion's counting). Also fills *stored
 * (entries, with
 * padding) when not NULL. ELL past its fill limit still reports its size.
 * @param[in] a the CSR.
 * @param format the format.
 * @param[in] params the formats' parameters, or NULL for the defaults.
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param[out] bytes receives the bytes of the format's arrays.
 * @param[out] stored receives the stored entries, or NULL.
 * @retval GPGPU_SUCCESS *bytes (and *stored) are filled.
 * @retval GPGPU_ERROR_NULL_POINTER bytes or a is NULL, or arrays of a that gpgpu_csr_check
 *   needs.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT type not f32 or f64, a bad format or parameter, a CSR
 *   that gpgpu_csr_check refuses.
 * @retval GPGPU_ERROR_TOO_LARGE more than 2^31 - 1 stored entries, or a CSR past 2^31 - 1
 *   rows, cols or nnz.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY SELL and BSR count with temporary arrays.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_format_bytes(const gpgpu_csr *a, gpgpu_format format,
                                          const gpgpu_format_params *params, gpgpu_type type,
                                          size_t *bytes, size_t *stored);

/** @} */

/* --------------------------------------------------------------- generators */

/**
 * @defgroup generators Generated matrices
 * @brief Reproducible matrices for tests and benchmarks (CPU, no context).
 * @{
 */

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
 * @brief Generates a matrix into *out.
 *
 * Values are random in [-1, 1) unless the generator fixes them;
 * duplicates are summed. `size` and `avg` are as each generator says (the Laplacians and
 * DENSE take no avg, and the Laplacians no seed: their values are fixed). Random columns are
 * drawn uniformly with replacement, so a row may come out a little shorter than drawn. One
 * seed gives the same matrix on every C library and in every thread.
 * @param gen the generator.
 * @param size its size parameter (rows, grid side or scale, as ::gpgpu_generator says).
 * @param avg its entries-per-row parameter.
 * @param seed the random stream's seed.
 * @param[out] out receives the CSR (free with gpgpu_csr_free); zeroed on failure.
 * @retval GPGPU_SUCCESS *out is the matrix.
 * @retval GPGPU_ERROR_NULL_POINTER out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown generator.
 * @retval GPGPU_ERROR_TOO_LARGE size or avg past 2^31 - 1, RMAT's size past 30, or a matrix
 *   of more than 2^31 - 1 rows or entries.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_generate(gpgpu_generator gen, uint32_t size, uint32_t avg,
                                      uint64_t seed, gpgpu_csr *out);

/** @} */

/* ----------------------------------------------------- GPU sparse matrices */

/**
 * @defgroup matrices Sparse matrices on the GPU
 * @brief A matrix uploaded in any format, or a CSR on the caller's buffers.
 * @{
 */

/** A sparse matrix on the GPU: made by gpgpu_matrix_create (the library's buffers, any
 *  format) or gpgpu_matrix_wrap_csr (the caller's buffers, CSR), or a product's result.
 *  Opaque. */
typedef struct gpgpu_matrix gpgpu_matrix;

/** How a matrix is kept on the GPU. */
typedef struct gpgpu_matrix_desc {
    gpgpu_type type;              /**< values: GPGPU_TYPE_F32 or GPGPU_TYPE_F64 */
    gpgpu_format format;          /**< 0 means CSR */
    gpgpu_format_params params;   /**< for ELL, SELL, BSR */
} gpgpu_matrix_desc;

/**
 * @brief Uploads a host CSR in the desc's format (converting on the CPU).
 *
 * The CSR is checked first
 * (gpgpu_csr_check with sorted columns): the matrix then serves any number of products.
 * @param[in] ctx the context.
 * @param[in] desc value type, format and its parameters.
 * @param[in] a the CSR; read during the call only.
 * @param[out] out receives the matrix; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the matrix.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, a or out is NULL, or arrays of a that
 *   gpgpu_csr_check needs.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a malformed CSR (the message names the row); a type
 *   other than f32 and f64; an unknown format or a bad parameter.
 * @retval GPGPU_ERROR_TOO_LARGE rows, cols or nnz past 2^31 - 1; ELL past its fill limit or
 *   more than 2^31 - 1 stored entries; arrays larger than one storage binding.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION Vulkan, while work is recorded into a caller's
 *   command buffer: an array of more than 64 KiB, which needs the staging buffer.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host or device memory ran out, or the context's
 *   memory_limit was reached.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime The matrix lives until gpgpu_matrix_destroy, which must come before the
 *   context's destroy.
 */
GPGPU_API gpgpu_status gpgpu_matrix_create(gpgpu_context *ctx, const gpgpu_matrix_desc *desc,
                                           const gpgpu_csr *a, gpgpu_matrix **out);

/**
 * @brief A CSR matrix on the caller's buffers (library buffers or wrapped GL/Vulkan ones),
 * not copied.
 *
 * The arrays are row_ptr (rows + 1 u32), col_idx (nnz u32), values (nnz of desc->type),
 * offsets in
 * elements. The arrays are validated on the GPU by bounds-checked passes (the row pointers,
 * then the entries) before the call returns (row pointers from 0, nondecreasing, ending at
 * nnz; columns below cols; sorted within rows) and refused with the first bad row named; they
 * must stay alive while the matrix is used. The values may change between products; row
 * pointers and columns may not, unless gpgpu_matrix_validate is called again (which also
 * drops the balanced product's plan of the row pointers, kept with the matrix and made
 * again on the next product). Arrays changed without that give wrong products, never an
 * access outside the buffers.
 * @param[in] ctx the context.
 * @param[in] desc value type; format 0 or CSR.
 * @param rows rows of the matrix.
 * @param cols columns of the matrix.
 * @param nnz stored entries.
 * @param[in] row_ptr the buffer of the row pointers.
 * @param row_ptr_offset their first element.
 * @param[in] col_idx the buffer of the column indices.
 * @param col_idx_offset their first element.
 * @param[in] values the buffer of the values.
 * @param values_offset their first element.
 * @param[out] out receives the matrix; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the matrix.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, a buffer or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a malformed CSR (the message names the first bad row);
 *   a type other than f32 and f64; an unknown format; a buffer of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION desc->format other than 0 or CSR; Vulkan: work
 *   being recorded into a caller's command buffer, since the validation's result is read
 *   back.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a buffer too small for its array.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of its element
 *   size.
 * @retval GPGPU_ERROR_TOO_LARGE rows, cols or nnz past 2^31 - 1; a buffer larger than one
 *   storage binding.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime The buffers must outlive the matrix; gpgpu_matrix_destroy leaves them
 *   alone.
 */
GPGPU_API gpgpu_status gpgpu_matrix_wrap_csr(gpgpu_context *ctx, const gpgpu_matrix_desc *desc,
                                             uint32_t rows, uint32_t cols, size_t nnz,
                                             gpgpu_buffer *row_ptr, size_t row_ptr_offset,
                                             gpgpu_buffer *col_idx, size_t col_idx_offset,
                                             gpgpu_buffer *values, size_t values_offset,
                                             gpgpu_matrix **out);

/**
 * @brief Validates a wrapped matrix's arrays again (after the caller changed them).
 * @param[in,out] a a matrix of gpgpu_matrix_wrap_csr.
 * @retval GPGPU_SUCCESS the arrays are sound.
 * @retval GPGPU_ERROR_NULL_POINTER a is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT malformed arrays, the first bad row named; or a matrix
 *   made by gpgpu_matrix_create, which has nothing to validate.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION Vulkan: work being recorded into a caller's
 *   command buffer.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses the matrix's context.
 */
GPGPU_API gpgpu_status gpgpu_matrix_validate(gpgpu_matrix *a);

/**
 * @brief Destroys the matrix and the buffers it made (not the caller's); NULL is accepted.
 * @param[in] a the matrix, or NULL.
 * @thread_safety The thread that uses the matrix's context.
 * @pointer_lifetime a is invalid afterwards.
 */
GPGPU_API void gpgpu_matrix_destroy(gpgpu_matrix *a);

/** What a matrix holds. */
typedef struct gpgpu_matrix_info {
    gpgpu_type type;     /**< its values' type, f32 or f64 */
    gpgpu_format format; /**< its format */
    uint32_t rows;       /**< rows of the matrix */
    uint32_t cols;       /**< columns of the matrix */
    size_t nnz;          /**< structural nonzeros */
    size_t stored;  /**< entries stored, with padding */
    size_t bytes;   /**< GPU memory of its arrays */
} gpgpu_matrix_info;

/**
 * @brief Fills *info with what the matrix holds: type, format, sizes, stored entries and
 * bytes.
 *
 * Makes no GL call (what it reports was kept when the matrix was made), as
 * gpgpu_context_get_info.
 * @param[in] a the matrix.
 * @param[out] info receives the description.
 * @retval GPGPU_SUCCESS *info is filled.
 * @retval GPGPU_ERROR_NULL_POINTER a or info is NULL.
 * @thread_safety The thread that uses the matrix's context.
 */
GPGPU_API gpgpu_status gpgpu_matrix_get_info(const gpgpu_matrix *a, gpgpu_matrix_info *info);

/** @} */

/* --------------------------------------------------------------------- SpMV */

/**
 * @defgroup spmv SpMV
 * @brief y = alpha A x + beta y, its kernels and the vector kernel's tuner.
 * @{
 */

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
    uint32_t rows_per_group; /**< SPMV_VECTOR: rows per work-group, as threads_per_row says */
} gpgpu_spmv_desc;

/**
 * @brief y = alpha*A*x + beta*y with x (cols elements) and y (rows elements) of A's type.
 *
 * The vectors start at element
 * offsets, the parameters in gpgpu_gemm's order; y must not overlap x, nor the arrays of a
 * wrapped matrix (gpgpu_matrix_wrap_csr). alpha and beta are rounded to the type (refused
 * where they are NaN, infinite or, for f32, past FLT_MAX, as gpgpu_axpby refuses them);
 * beta = 0 writes y without reading it (NaN in y is ignored). `&(gpgpu_spmv_desc){0}` takes the
 * default kernel and shape: `gpgpu_spmv(ctx, &(gpgpu_spmv_desc){0}, 1, a, x, 0, 0, y, 0)`
 * is y = A*x.
 * @param[in] ctx the context.
 * @param[in] desc the kernel and the vector kernel's shape.
 * @param alpha the factor of A*x.
 * @param[in] a the matrix.
 * @param[in] x the buffer of x.
 * @param x_offset x's first element.
 * @param beta the factor of y.
 * @param[in,out] y the buffer of y.
 * @param y_offset y's first element.
 * @retval GPGPU_SUCCESS y is written (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, a, x or y is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a value that names no algorithm; a vector shape out
 *   of range; a
 *   matrix or buffer of another context; alpha or beta as gpgpu_axpby refuses them.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION an algorithm the format has not (CLASSIC_SPMV,
 *   SPMV_VECTOR and SPMV_BALANCED take CSR); another primitive's algorithm;
 *   CLASSIC_SPMV, which reads the longest row back, while work is recorded into a caller's
 *   Vulkan command buffer.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a vector runs past its buffer.
 * @retval GPGPU_ERROR_OVERLAP y and x, or y and a wrapped matrix's arrays.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_TOO_LARGE CLASSIC_SPMV past 2^32 invocations in a step; a vector past
 *   element 2^32 - 1 of its binding; a buffer or scratch array larger than one storage
 *   binding.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_spmv(gpgpu_context *ctx, const gpgpu_spmv_desc *desc, double alpha,
                                  const gpgpu_matrix *a, gpgpu_buffer *x, size_t x_offset,
                                  double beta, gpgpu_buffer *y, size_t y_offset);

/** The choice of the vector kernel's shape. */
typedef struct gpgpu_spmv_tuning {
    uint32_t threads_per_row; /**< invocations per row */
    uint32_t rows_per_group;  /**< rows per work-group */
    double gpu_ns;        /**< time of the chosen shape (0 from the heuristic) */
    double heuristic_ns;  /**< time of the heuristic's shape, for comparison */
} gpgpu_spmv_tuning;

/**
 * @brief Times the vector kernel's candidate shapes on this matrix and remembers the fastest.
 *
 * The choice is kept per device and matrix shape (rows, cols, nnz, row-length statistics),
 * in the context and
 * in the cache file $GPGPU_TUNE_CACHE (default ~/.cache/libgpgpu/tune; not written when
 * the variable is empty, nor where it is not a regular file of at most 1 MiB: see
 * gpgpu_last_warning). *result (may be NULL) gets the chosen shape, its time and the
 * heuristic shape's time. A matrix without entries has nothing to time: the heuristic's shape
 * comes back and nothing is remembered.
 * @param[in] ctx the context.
 * @param[in] a a CSR matrix of the context.
 * @param progress called with a line per candidate, or NULL.
 * @param user_data passed to progress.
 * @param[out] result receives the choice, or NULL.
 * @retval GPGPU_SUCCESS the shape is remembered.
 * @retval GPGPU_ERROR_NULL_POINTER ctx or a is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a matrix of another context, a gpgpu_timer_begin
 *   measurement running.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION not CSR; Vulkan: work being recorded into a
 *   caller's command buffer.
 * @retval GPGPU_ERROR_TOO_LARGE the vectors it times on larger than one storage binding.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current,
 *   or one sharing its objects (the tuner times with the adopted context's queries).
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`; the cache file is rewritten whole, so two
 *   processes tuning at once may lose one of their choices.
 */
GPGPU_API gpgpu_status gpgpu_spmv_tune(gpgpu_context *ctx, gpgpu_matrix *a,
                                       gpgpu_progress_callback progress, void *user_data,
                                       gpgpu_spmv_tuning *result);

/**
 * @brief The heuristic's shape for a matrix: what SPMV_VECTOR takes where no tuned shape is
 * known.
 *
 * Mossaiby's estimate from the row lengths (docs/ALGORITHMS.md), whatever gpgpu_spmv_tune
 * remembers: the baseline a tuned shape is measured against (gpgpu_gemm_shape, by contrast,
 * gives the shape a call takes, tuned or estimated). gpu_ns and heuristic_ns are 0. No GPU
 * work.
 * @param[in] a the matrix.
 * @param[out] result receives the shape.
 * @retval GPGPU_SUCCESS *result is the shape.
 * @retval GPGPU_ERROR_NULL_POINTER a or result is NULL.
 * @thread_safety The thread that uses the matrix's context.
 */
GPGPU_API gpgpu_status gpgpu_spmv_heuristic(const gpgpu_matrix *a, gpgpu_spmv_tuning *result);

/** @} */

/* ------------------------------------------------------------ SpGEMM and friends */

/**
 * @defgroup spgemm SpGEMM, transposes and downloads
 * @brief Sparse x sparse products, A^T, and matrices back to the host.
 * @{
 */

/**
 * @brief Copies a CSR matrix back to host memory (values as double).
 *
 * *out is filled by the library:
 * free it with gpgpu_csr_free.
 * @param[in] a a CSR matrix.
 * @param[out] out receives the CSR; zeroed on failure.
 * @retval GPGPU_SUCCESS *out is the matrix.
 * @retval GPGPU_ERROR_NULL_POINTER a or out is NULL.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION a format other than CSR; Vulkan: work being
 *   recorded into a caller's command buffer.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory, or Vulkan's staging buffer, ran out.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses the matrix's context.
 */
GPGPU_API gpgpu_status gpgpu_matrix_download(const gpgpu_matrix *a, gpgpu_csr *out);

/**
 * @brief A^T as a new CSR matrix the caller owns (gpgpu_matrix_destroy), computed on the GPU.
 *
 * A stable radix sort of the entries by column, so each row of A^T has its columns ascending.
 * @param[in] ctx the context.
 * @param[in] a a CSR matrix of the context.
 * @param[out] out receives A^T; NULL on failure.
 * @retval GPGPU_SUCCESS *out is A^T.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, a or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a matrix of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION not CSR; Vulkan: recording into a caller's
 *   command buffer.
 * @retval GPGPU_ERROR_TOO_LARGE A^T's arrays, or the sort's, larger than one storage binding.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
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
    void *user_data; /**< passed to progress */
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
 * @brief C = A * B for CSR matrices of one type (f32 or f64) and context.
 *
 * A is rows x n, B n x cols.
 * C is a new CSR matrix the caller owns (gpgpu_matrix_destroy), columns ascending within each
 * row; it holds every (i, j) with some a_ik and b_kj stored, even where the sum is zero
 * (unless desc->drop_zeros). A and B may be the same matrix.
 * @param[in] ctx the context.
 * @param[in] desc algorithm, zeros, memory budget, progress.
 * @param[in] a the left matrix.
 * @param[in] b the right matrix (may be a).
 * @param[out] c receives C; NULL on failure.
 * @param[out] stats receives what the product did, or NULL.
 * @retval GPGPU_SUCCESS *c is C.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, a, b or c is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT A's columns differ from B's rows (the message says
 *   both); types that differ; a matrix of another context; a value that names no algorithm.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION not CSR; another primitive's algorithm; Vulkan: recording into a caller's command
 *   buffer.
 * @retval GPGPU_ERROR_TOO_LARGE C with more than 2^31 - 1 entries; a row with more products
 *   than the global path takes within one storage binding; the classic algorithm past its
 *   32-bit indices or one storage binding; a work array larger than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY the product cannot fit in the budget even row by row (the
 *   message says how many bytes it needed); memory for the call's work ran out.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE work-groups too small.
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime desc is read during the call; its progress callback is called during it
 *   only.
 */
GPGPU_API gpgpu_status gpgpu_spgemm(gpgpu_context *ctx, const gpgpu_spgemm_desc *desc,
                                    const gpgpu_matrix *a, const gpgpu_matrix *b,
                                    gpgpu_matrix **c, gpgpu_spgemm_stats *stats);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_SPARSE_H */
