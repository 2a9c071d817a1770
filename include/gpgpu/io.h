/**
 * @file io.h
 * @brief MatrixMarket files on the CPU: dense vectors (one column) and sparse
 * matrices in and out.
 *
 * These functions need no context. The readers take plain files and gzip'ed ones alike
 * (through zlib). On failure they write a one-line message
 * naming the file and line into `msg` (when msg is not NULL and msg_size > 0).
 * Thread safety: reentrant.
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

/** The longest line the readers take, newline included (1 MiB: a MatrixMarket data line
 *  holds one entry, tens of bytes). */
#define GPGPU_MTX_MAX_LINE_BYTES ((size_t)1 << 20)

/** The most comment and blank lines, in bytes, that a file may hold in all (16 MiB: the
 *  comment blocks of published files take kilobytes). */
#define GPGPU_MTX_MAX_SKIPPED_BYTES ((size_t)1 << 24)

/**
 * Reads a vector from a MatrixMarket file: an `array` file of M rows and one
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
 * @param data receives a malloc'ed array of *count elements of `type` (free with free());
 *   NULL when the count is 0.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (unknown type);
 *   GPGPU_ERROR_IO (cannot open or read); GPGPU_ERROR_PARSE (bad header, size line, value,
 *   a shape with more than one column and row, a value out of range, too few or too many
 *   entries, a limit of the file above, a .gz that ends early or does not decode);
 *   GPGPU_ERROR_TOO_LARGE (rows, cols or entries past 2^31 - 1); GPGPU_ERROR_OUT_OF_MEMORY.
 */
GPGPU_API gpgpu_status gpgpu_mtx_read_vector(const char *path, gpgpu_type type, void **data,
                                             size_t *count, char *msg, size_t msg_size);

/**
 * Writes `count` elements as a MatrixMarket `array` file of one column: field
 * `integer` for u32/i32, `real` for floats printed with enough digits to read
 * back the same value (%.9g for f32, %.17g for f64), and the special values
 * spelled the same on every C library: `nan` or `-nan` (by the sign bit),
 * `inf`, `-inf`, and `-0` for negative zero. Every value reads back
 * bit-equal through gpgpu_mtx_read_vector except a NaN's payload, which text
 * does not carry: a NaN reads back as the default quiet NaN of its sign.
 * A path of "-" writes to standard output.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER (path, or data with count > 0);
 *   GPGPU_ERROR_INVALID_ARGUMENT; GPGPU_ERROR_IO.
 */
GPGPU_API gpgpu_status gpgpu_mtx_write_vector(const char *path, gpgpu_type type, const void *data,
                                              size_t count, char *msg, size_t msg_size);


/** What a matrix file declared (gpgpu_mtx_read_matrix). */
typedef struct gpgpu_mtx_header {
    bool array;           /**< `array` (dense) rather than `coordinate` */
    char field[16];       /**< "real", "double", "integer" or "pattern" */
    char symmetry[16];    /**< "general", "symmetric", "skew-symmetric" or "hermitian" */
    uint32_t rows, cols;
    size_t entries;       /**< data lines in the file (before symmetric expansion) */
} gpgpu_mtx_header;

/**
 * Reads a sparse or dense matrix from a MatrixMarket file (or `.mtx.gz`, through zlib) into
 * a host CSR with sorted columns. Coordinate files: fields real, double, integer and pattern
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
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_IO (cannot open or read);
 *   GPGPU_ERROR_PARSE (a malformed file, a .gz that ends early or does not decode included);
 *   GPGPU_ERROR_TOO_LARGE (rows, cols or nnz past 2^31 - 1); GPGPU_ERROR_OUT_OF_MEMORY.
 */
GPGPU_API gpgpu_status gpgpu_mtx_read_matrix(const char *path, gpgpu_csr *out,
                                             gpgpu_mtx_header *header, char *msg,
                                             size_t msg_size);

/**
 * gpgpu_mtx_read_matrix for values that go to the GPU as `type`. With GPGPU_TYPE_F32 a value
 * beyond f32's range (one that rounds to an infinity; `inf` itself is a value) is
 * GPGPU_ERROR_PARSE naming its line, as gpgpu_mtx_read_vector refuses it, and so are duplicate
 * entries whose sum is (naming the entry); the values stay doubles. GPGPU_TYPE_F64 reads as
 * gpgpu_mtx_read_matrix does.
 * @return the statuses of gpgpu_mtx_read_matrix; GPGPU_ERROR_INVALID_ARGUMENT (a type other
 *   than f32 and f64).
 */
GPGPU_API gpgpu_status gpgpu_mtx_read_matrix_as(const char *path, gpgpu_type type,
                                                gpgpu_csr *out, gpgpu_mtx_header *header,
                                                char *msg, size_t msg_size);

/**
 * Writes a host CSR as a MatrixMarket `coordinate real general` file, 1-based, values with
 * %.17g (nan, -nan, inf, -inf and -0 spelled as gpgpu_mtx_write_vector does). "-" is stdout.
 * The CSR is checked first (gpgpu_csr_check; unsorted columns are written as they are).
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT and
 *   GPGPU_ERROR_TOO_LARGE (what gpgpu_csr_check refuses); GPGPU_ERROR_IO.
 */
GPGPU_API gpgpu_status gpgpu_mtx_write_matrix(const char *path, const gpgpu_csr *a, char *msg,
                                              size_t msg_size);

/**
 * Writes a dense rows x cols matrix, given row-major with row stride `ld` (at least cols),
 * as a MatrixMarket `array real general` file: column-major, as the format defines, values
 * with %.17g (nan, -nan, inf, -inf and -0 spelled as gpgpu_mtx_write_vector does). "-" is
 * stdout. gpgpu_mtx_read_matrix reads it back (as a dense CSR).
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (ld below
 *   cols); GPGPU_ERROR_TOO_LARGE (rows and ld that span more than SIZE_MAX bytes);
 *   GPGPU_ERROR_IO.
 */
GPGPU_API gpgpu_status gpgpu_mtx_write_dense(const char *path, uint32_t rows, uint32_t cols,
                                             const double *values, size_t ld, char *msg,
                                             size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_IO_H */
