/**
 * @file io.h
 * @brief MatrixMarket files on the CPU: dense vectors (one column) and sparse
 * matrices in and out.
 *
 * These functions need no context. The readers take plain files and gzip'ed ones alike
 * (through zlib); a build without zlib (meson -Dzlib=disabled) refuses a gzip file, told
 * by its first bytes, with GPGPU_ERROR_UNSUPPORTED_FEATURE and a message saying so. On
 * failure they write a one-line message
 * naming the file and line into `msg` (when msg is not NULL and msg_size > 0).
 * Thread safety: reentrant; any thread may call them, on distinct files at once.
 *
 * A file's sizes are claims, checked as the data arrives: memory grows with the entries
 * read, never from the size line alone, and what any input (a pipe, /dev/zero, a file of
 * junk) makes a reader read is bounded: a line of at most GPGPU_MTX_MAX_LINE_BYTES, no
 * NUL byte, at most GPGPU_MTX_MAX_SKIPPED_BYTES of comments and blank lines, and no more
 * entries than the size line declared (GPGPU_ERROR_PARSE for each, naming the line). Counts
 * past 2^31 - 1, what the shaders index, are GPGPU_ERROR_TOO_LARGE before anything is
 * allocated.
 */
#ifndef GPGPU_IO_H
#define GPGPU_IO_H

#include "gpgpu.h"
#include "sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup io MatrixMarket files
 * @brief Vectors and matrices read from and written to MatrixMarket files (CPU, no context).
 * @{
 */

/** The longest line the readers take, newline included (1 MiB: a MatrixMarket data line
 *  holds one entry, tens of bytes). */
#define GPGPU_MTX_MAX_LINE_BYTES ((size_t)1 << 20)

/** The most comment and blank lines, in bytes, that a file may hold in all (16 MiB: the
 *  comment blocks of published files take kilobytes). */
#define GPGPU_MTX_MAX_SKIPPED_BYTES ((size_t)1 << 24)

/**
 * @brief Reads a vector from a MatrixMarket file.
 *
 * The file is an `array` file of M rows and one
 * column (or one row), or a `coordinate` file of shape Mx1 or 1xN whose
 * missing entries are zero (duplicates are summed). Fields integer, real and
 * double are read; `pattern` and `complex` are refused. Each value must fit
 * the type: u32 takes integers 0..2^32-1, i32 takes -2^31..2^31-1 (a
 * fraction or an exponent is refused for both), f32/f64 take any decimal
 * (f32 values beyond its range are refused, others round to nearest) and,
 * in any case and with an optional sign, the words `inf`, `infinity`, `nan`
 * and `nan(CHARS)` (CHARS: letters, digits, '_'). A NaN gets the sign
 * written ("-nan" has its sign bit set) and the C library's payload: the
 * payload of `nan(CHARS)` is not guaranteed. Hexadecimal floats are refused.
 *
 * Memory grows as the values arrive; a coordinate file's vector of every declared row (zeros
 * where no entry is given) is allocated once the whole file has been read and checked.
 *
 * @param[in] path the file (`.gz` or plain).
 * @param type the element type of the vector.
 * @param[out] data receives a malloc'ed array of *count elements of `type` (free with free());
 *   NULL when the count is 0 or on failure.
 * @param[out] count receives the element count (0 on failure).
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS *data holds the vector.
 * @retval GPGPU_ERROR_NULL_POINTER path, data or count is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type.
 * @retval GPGPU_ERROR_IO the file cannot be opened or read.
 * @retval GPGPU_ERROR_PARSE a bad header, size line or value, a shape with more than one
 *   column and row, a value out of range, too few or too many entries, a limit of the file
 *   above, a .gz that ends early or does not decode.
 * @retval GPGPU_ERROR_TOO_LARGE rows, cols or entries past 2^31 - 1.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE a gzip file in a build without zlib.
 * @thread_safety Any thread.
 * @pointer_lifetime *data is the caller's to free.
 */
GPGPU_API gpgpu_status gpgpu_mtx_read_vector(const char *path, gpgpu_type type, void **data,
                                             size_t *count, char *msg, size_t msg_size);

/**
 * @brief Writes `count` elements as a MatrixMarket `array` file of one column.
 *
 * The field is
 * `integer` for u32/i32, `real` for floats printed with enough digits to read
 * back the same value (%.9g for f32, %.17g for f64), and the special values
 * spelled the same on every C library: `nan` or `-nan` (by the sign bit),
 * `inf`, `-inf`, and `-0` for negative zero. Every value reads back
 * bit-equal through gpgpu_mtx_read_vector except a NaN's payload, which text
 * does not carry: a NaN reads back as the default quiet NaN of its sign.
 * A path of "-" writes to standard output.
 * @param[in] path the file to write (replaced), or "-".
 * @param type the element type.
 * @param[in] data count elements of `type`.
 * @param count how many elements.
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS the file is written.
 * @retval GPGPU_ERROR_NULL_POINTER path is NULL, or data with count > 0.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type.
 * @retval GPGPU_ERROR_IO the file cannot be created or written.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_mtx_write_vector(const char *path, gpgpu_type type, const void *data,
                                              size_t count, char *msg, size_t msg_size);


/** What a matrix file declared (gpgpu_mtx_read_matrix). */
typedef struct gpgpu_mtx_header {
    bool array;           /**< `array` (dense) rather than `coordinate` */
    char field[16];       /**< "real", "double", "integer" or "pattern" */
    char symmetry[16];    /**< "general", "symmetric", "skew-symmetric" or "hermitian" */
    uint32_t rows;        /**< the rows the size line declared */
    uint32_t cols;        /**< the columns the size line declared */
    size_t entries;       /**< data lines in the file (before symmetric expansion) */
} gpgpu_mtx_header;

/**
 * @brief Reads a sparse or dense matrix from a MatrixMarket file (or `.mtx.gz`, through zlib)
 * into a host CSR with sorted columns.
 *
 * Coordinate files: fields real, double, integer and pattern
 * (every value 1; a value after the indices, which some published pattern files carry, must be
 * a number and is ignored); symmetric and skew-symmetric files expanded to both triangles (a
 * skew-symmetric diagonal entry is an error); 1-based indices checked against the declared
 * size; duplicate entries summed (an entry given twice counts twice, as in SciPy). Array
 * files (column-major, as the format defines) keep every entry, zeros included, so the CSR is
 * dense. A hermitian file with real values (real, integer, pattern) is symmetric and read as
 * one; complex files are refused with a message naming "complex". Every malformed line is
 * reported with its line number. Time and memory are linear in the file's size, but for the
 * pointers of the conversion to CSR, one per declared row and column, made once the whole file
 * has been read and checked. `header` (may be NULL) receives what the file declared.
 * @param[in] path the file (`.gz` or plain).
 * @param[out] out receives the CSR (free with gpgpu_csr_free); zeroed on failure.
 * @param[out] header receives what the file declared, or NULL.
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS *out holds the matrix.
 * @retval GPGPU_ERROR_NULL_POINTER path or out is NULL.
 * @retval GPGPU_ERROR_IO the file cannot be opened or read.
 * @retval GPGPU_ERROR_PARSE a malformed file, a .gz that ends early or does not decode
 *   included (the message names the line).
 * @retval GPGPU_ERROR_TOO_LARGE rows, cols or nnz past 2^31 - 1.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE a gzip file in a build without zlib.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_mtx_read_matrix(const char *path, gpgpu_csr *out,
                                             gpgpu_mtx_header *header, char *msg,
                                             size_t msg_size);

/**
 * @brief gpgpu_mtx_read_matrix for values that go to the GPU as `type`.
 *
 * With GPGPU_TYPE_F32 a value
 * beyond f32's range (one that rounds to an infinity; `inf` itself is a value) is
 * GPGPU_ERROR_PARSE naming its line, as gpgpu_mtx_read_vector refuses it, and so are duplicate
 * entries whose sum is (naming the entry); the values stay doubles. GPGPU_TYPE_F64 reads as
 * gpgpu_mtx_read_matrix does.
 * @param[in] path the file (`.gz` or plain).
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param[out] out receives the CSR (free with gpgpu_csr_free); zeroed on failure.
 * @param[out] header receives what the file declared, or NULL.
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS *out holds the matrix.
 * @retval GPGPU_ERROR_NULL_POINTER path or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a type other than f32 and f64.
 * @retval GPGPU_ERROR_IO the file cannot be opened or read.
 * @retval GPGPU_ERROR_PARSE as gpgpu_mtx_read_matrix, and for f32 a value or a sum of
 *   duplicates beyond its range.
 * @retval GPGPU_ERROR_TOO_LARGE rows, cols or nnz past 2^31 - 1.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_mtx_read_matrix_as(const char *path, gpgpu_type type,
                                                gpgpu_csr *out, gpgpu_mtx_header *header,
                                                char *msg, size_t msg_size);

/**
 * @brief Writes a host CSR as a MatrixMarket `coordinate real general` file.
 *
 * Indices are 1-based, values written with
 * %.17g (nan, -nan, inf, -inf and -0 spelled as gpgpu_mtx_write_vector does). "-" is stdout.
 * The CSR is checked first (gpgpu_csr_check; unsorted columns are written as they are).
 * @param[in] path the file to write (replaced), or "-".
 * @param[in] a the CSR.
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS the file is written.
 * @retval GPGPU_ERROR_NULL_POINTER path or a is NULL, or arrays of a that gpgpu_csr_check
 *   needs.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a CSR that gpgpu_csr_check refuses.
 * @retval GPGPU_ERROR_TOO_LARGE rows, cols or nnz past 2^31 - 1.
 * @retval GPGPU_ERROR_IO the file cannot be created or written.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_mtx_write_matrix(const char *path, const gpgpu_csr *a, char *msg,
                                              size_t msg_size);

/**
 * @brief Writes a dense rows x cols matrix, given row-major with row stride `ld` (at least
 * cols), as a MatrixMarket `array real general` file.
 *
 * The file is column-major, as the format defines, values
 * with %.17g (nan, -nan, inf, -inf and -0 spelled as gpgpu_mtx_write_vector does). "-" is
 * stdout. gpgpu_mtx_read_matrix reads it back (as a dense CSR).
 * @param[in] path the file to write (replaced), or "-".
 * @param rows rows of the matrix.
 * @param cols columns of the matrix.
 * @param[in] values (rows - 1) * ld + cols doubles, or NULL when rows or cols is 0.
 * @param ld the row stride, at least cols.
 * @param[out] msg receives the message on failure, or NULL.
 * @param msg_size the size of msg in bytes.
 * @retval GPGPU_SUCCESS the file is written.
 * @retval GPGPU_ERROR_NULL_POINTER path is NULL, or values with rows and cols > 0.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT ld below cols.
 * @retval GPGPU_ERROR_TOO_LARGE rows and ld that span more than SIZE_MAX bytes.
 * @retval GPGPU_ERROR_IO the file cannot be created or written.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_mtx_write_dense(const char *path, uint32_t rows, uint32_t cols,
                                             const double *values, size_t ld, char *msg,
                                             size_t msg_size);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_IO_H */
