/*
 * What the MatrixMarket vector reader (mtx.c) and matrix reader
 * (mtx_matrix.c) share: a line reader over plain or gzip'ed files, the
 * tokenizer, the banner and size line, float values, and error reports
 * that name the file and line.
 */
#ifndef GPGPU_MTX_INTERNAL_H
#define GPGPU_MTX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef GPGPU_HAVE_ZLIB
#include <zlib.h>
#endif

#include "gpgpu/gpgpu.h"

#if defined(__GNUC__)
#define MTX_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define MTX_PRINTF(fmt, args)
#endif

typedef struct mtx_reader {
#ifdef GPGPU_HAVE_ZLIB
    gzFile file; /* zlib reads plain files through unchanged, so one path serves both */
#else
    FILE *file; /* plain files only (mtx_common.c refuses a gzip file) */
#endif
    const char *path;
    char *chunk; /* what gzread gave, MTX_CHUNK bytes, read from chunk_at to chunk_end */
    size_t chunk_at, chunk_end;
    char *line; /* reused for every line */
    size_t line_cap;
    size_t line_no; /* 1-based number of the line in `line`; 0 before the first */
    size_t skipped_bytes; /* comment and blank lines so far (GPGPU_MTX_MAX_SKIPPED_BYTES) */
    char *msg;
    size_t msg_size;
} mtx_reader;

/* Every field and symmetry the format defines; each reader refuses what it cannot hold. */
typedef enum mtx_field { MTX_REAL, MTX_DOUBLE, MTX_INTEGER, MTX_PATTERN, MTX_COMPLEX } mtx_field;
typedef enum mtx_symmetry {
    MTX_GENERAL,
    MTX_SYMMETRIC,
    MTX_SKEW_SYMMETRIC,
    MTX_HERMITIAN
} mtx_symmetry;

typedef struct mtx_banner {
    bool coordinate;
    mtx_field field;
    mtx_symmetry symmetry;
} mtx_banner;

typedef struct mtx_shape {
    size_t rows, cols;
    size_t entries; /* coordinate files: the entry count of the size line */
} mtx_shape;

/* One parsed value; every member starts at the union's address, so its bytes
 * can be copied straight into an element. */
typedef union mtx_value {
    uint32_t u;
    int32_t i;
    float f;
    double d;
} mtx_value;

const char *mtx_field_name(mtx_field field);
const char *mtx_symmetry_name(mtx_symmetry symmetry);

/* Writes "PATH:LINE: text", "PATH: text" (line 0) or "text" (path NULL). */
MTX_PRINTF(5, 6)
void mtx_report(char *msg, size_t msg_size, const char *path, size_t line_no, const char *fmt,
                ...);

/* Reports against the reader's current line and hands the status back. */
MTX_PRINTF(3, 4)
gpgpu_status mtx_fail(const mtx_reader *r, gpgpu_status status, const char *fmt, ...);

/* Opens path (plain or gzip; gzip needs zlib) for r, reporting into msg; mtx_close frees r. */
gpgpu_status mtx_open(mtx_reader *r, const char *path, char *msg, size_t msg_size);
void mtx_close(mtx_reader *r);

/* Reads on to the next line that holds data, skipping blank and '%' lines;
 * *cursor is NULL at the end of the file. A line longer than
 * GPGPU_MTX_MAX_LINE_BYTES, a NUL byte, or more than
 * GPGPU_MTX_MAX_SKIPPED_BYTES of comments and blank lines is GPGPU_ERROR_PARSE:
 * with the entry count of the size line, these bound what any input (a pipe,
 * /dev/zero) makes the reader read or hold. */
gpgpu_status mtx_next_data_line(mtx_reader *r, char **cursor);

/* Cuts the next whitespace-separated token out of *cursor, terminating it in
 * place so that no copy is made; NULL when none is left. */
char *mtx_next_token(char **cursor);

bool mtx_all_digits(const char *s);
const char *mtx_skip_sign(const char *s);

/* Sizes and indices: plain digits, since a sign or a fraction makes no sense. */
bool mtx_parse_count(const char *tok, size_t *out);

/* A decimal or inf/nan word of f32 or f64 into v (see gpgpu_mtx_read_vector). */
gpgpu_status mtx_parse_float(const mtx_reader *r, gpgpu_type type, const char *tok,
                             mtx_value *v);

/* "%%MatrixMarket matrix FORMAT FIELD SYMMETRY": refuses only words the
 * format does not define. */
gpgpu_status mtx_parse_banner(mtx_reader *r, mtx_banner *b);

/* "ROWS COLS" for array files, "ROWS COLS ENTRIES" for coordinate files;
 * a symmetry other than general needs a square shape. */
gpgpu_status mtx_parse_size_line(mtx_reader *r, const mtx_banner *b, mtx_shape *shape);

/* One coordinate entry, 0-based and within the declared shape; value is the
 * value's token, NULL on a pattern line that has none. */
typedef gpgpu_status (*mtx_entry_fn)(const mtx_reader *r, size_t i, size_t j, const char *value,
                                     void *user);

/* The size line's counts past 2^31 - 1 (what the shaders index) are
 * GPGPU_ERROR_TOO_LARGE, reported before anything is allocated. */
gpgpu_status mtx_check_counts(const mtx_reader *r, const mtx_shape *shape);

/* Reads the body of a coordinate file: exactly shape->entries lines "ROW COL
 * VALUE" ("ROW COL", and optionally a value, when pattern), 1-based indices
 * checked against the shape, each handed to fn. */
gpgpu_status mtx_read_coordinate(mtx_reader *r, const mtx_shape *shape, bool pattern,
                                 mtx_entry_fn fn, void *user);

/* One array value, the index-th of the file (column-major). */
typedef gpgpu_status (*mtx_value_fn)(const mtx_reader *r, size_t index, const char *value,
                                     void *user);

/* Reads the body of an array file: exactly count values, several on a line
 * accepted, each handed to fn. */
gpgpu_status mtx_read_array(mtx_reader *r, size_t count, mtx_value_fn fn, void *user);

/* x with `digits` significant digits, no newline; the special values
 * spelled the same on every C library. Returns what fprintf returns. */
int mtx_write_float(FILE *f, double x, int digits);

/* Opens path for writing ("-" is stdout), and closes it reporting any failure. */
gpgpu_status mtx_create(const char *path, FILE **f, char *msg, size_t msg_size);
gpgpu_status mtx_finish(const char *path, FILE *f, bool written, char *msg, size_t msg_size);

#endif /* GPGPU_MTX_INTERNAL_H */
