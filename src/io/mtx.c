/*
 * MatrixMarket vectors: reading array or coordinate files of one row or one
 * column, writing array files of one column.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* getline: one buffered read per line, not per char */
#endif

#include "gpgpu/io.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define MTX_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define MTX_PRINTF(fmt, args)
#endif

typedef struct mtx_reader {
    FILE *file;
    const char *path;
    char *line; /* getline's buffer, reused for every line */
    size_t line_cap;
    size_t line_no; /* 1-based number of the line in `line`; 0 before the first */
    char *msg;
    size_t msg_size;
} mtx_reader;

typedef struct mtx_header {
    bool coordinate;
    bool symmetric;
} mtx_header;

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

/* Our own copy rather than gpgpu_type_size(), so this file links alone. */
static size_t elem_size(gpgpu_type type)
{
    switch (type) {
    case GPGPU_TYPE_U32: return sizeof(uint32_t);
    case GPGPU_TYPE_I32: return sizeof(int32_t);
    case GPGPU_TYPE_F32: return sizeof(float);
    case GPGPU_TYPE_F64: return sizeof(double);
    }
    return 0;
}

static const char *type_label(gpgpu_type type)
{
    switch (type) {
    case GPGPU_TYPE_U32: return "u32";
    case GPGPU_TYPE_I32: return "i32";
    case GPGPU_TYPE_F32: return "f32";
    case GPGPU_TYPE_F64: return "f64";
    }
    return "?";
}

/* Writes "PATH:LINE: text", "PATH: text" (line 0) or "text" (path NULL). */
static void vreport(char *msg, size_t msg_size, const char *path, size_t line_no,
                    const char *fmt, va_list ap)
{
    if (msg == NULL || msg_size == 0) {
        return;
    }
    int n = 0;
    if (path != NULL) {
        n = line_no > 0 ? snprintf(msg, msg_size, "%s:%zu: ", path, line_no)
                        : snprintf(msg, msg_size, "%s: ", path);
    }
    if (n >= 0 && (size_t)n < msg_size) {
        vsnprintf(msg + n, msg_size - (size_t)n, fmt, ap);
    }
}

MTX_PRINTF(5, 6)
static void report(char *msg, size_t msg_size, const char *path, size_t line_no,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(msg, msg_size, path, line_no, fmt, ap);
    va_end(ap);
}

/* Reports against the reader's current line and hands the status back. */
MTX_PRINTF(3, 4)
static gpgpu_status fail(const mtx_reader *r, gpgpu_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(r->msg, r->msg_size, r->path, r->line_no, fmt, ap);
    va_end(ap);
    return status;
}

/* ------------------------------------------------------------------ lines */

/* Reads the next line into r->line; *got is false at the end of the file. */
static gpgpu_status next_line(mtx_reader *r, bool *got)
{
    errno = 0;
    *got = getline(&r->line, &r->line_cap, r->file) >= 0;
    if (*got) {
        r->line_no++;
        return GPGPU_SUCCESS;
    }
    if (feof(r->file) && !ferror(r->file)) {
        return GPGPU_SUCCESS;
    }
    if (errno == ENOMEM) {
        return fail(r, GPGPU_ERROR_OUT_OF_MEMORY, "out of memory reading the next line");
    }
    return fail(r, GPGPU_ERROR_IO, "cannot read: %s", strerror(errno));
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Reads on to the next line that holds data, skipping blank and '%' lines;
 * *cursor is NULL at the end of the file. */
static gpgpu_status next_data_line(mtx_reader *r, char **cursor)
{
    for (;;) {
        bool got;
        gpgpu_status s = next_line(r, &got);
        if (s != GPGPU_SUCCESS || !got) {
            *cursor = NULL;
            return s;
        }
        char *p = r->line;
        while (is_space(*p)) {
            p++;
        }
        if (*p != '\0' && *p != '%') {
            *cursor = p;
            return GPGPU_SUCCESS;
        }
    }
}

/* Cuts the next whitespace-separated token out of *cursor, terminating it in
 * place so that no copy is made; NULL when none is left. */
static char *next_token(char **cursor)
{
    char *p = *cursor;
    while (is_space(*p)) {
        p++;
    }
    if (*p == '\0') {
        *cursor = p;
        return NULL;
    }
    char *start = p;
    while (*p != '\0' && !is_space(*p)) {
        p++;
    }
    if (*p != '\0') {
        *p++ = '\0';
    }
    *cursor = p;
    return start;
}

/* ----------------------------------------------------------------- tokens */

/* Header keywords are case-insensitive in practice ("%%matrixmarket"). */
static bool same_word(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
            return false;
        }
    }
    return *a == *b;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool all_digits(const char *s)
{
    if (*s == '\0') {
        return false;
    }
    for (; *s != '\0'; s++) {
        if (!is_digit(*s)) {
            return false;
        }
    }
    return true;
}

static const char *skip_sign(const char *s)
{
    return *s == '+' || *s == '-' ? s + 1 : s;
}

/* What strtod reads, less hex floats and words: [sign] digits [. digits] [e [sign] digits]. */
static bool is_decimal(const char *s)
{
    size_t digits = 0;
    for (s = skip_sign(s); is_digit(*s); s++) {
        digits++;
    }
    if (*s == '.') {
        for (s++; is_digit(*s); s++) {
            digits++;
        }
    }
    if (digits == 0) {
        return false;
    }
    if (*s == 'e' || *s == 'E') {
        s = skip_sign(s + 1);
        if (!is_digit(*s)) {
            return false;
        }
        while (is_digit(*s)) {
            s++;
        }
    }
    return *s == '\0';
}

/* The words strtod reads, any case, with an optional sign: inf, infinity,
 * nan and nan(CHARS) with CHARS letters, digits and '_' (a payload that
 * strtod may or may not honour). A sign is allowed on nan too because
 * printf writes "-nan", and so does our writer for a NaN with its sign bit
 * set (parse_float gives the sign back). */
static bool is_special_float(const char *s)
{
    s = skip_sign(s);
    if (same_word(s, "inf") || same_word(s, "infinity") || same_word(s, "nan")) {
        return true;
    }
    if (tolower((unsigned char)s[0]) != 'n' || tolower((unsigned char)s[1]) != 'a' ||
        tolower((unsigned char)s[2]) != 'n' || s[3] != '(') {
        return false;
    }
    for (s += 4; isalnum((unsigned char)*s) || *s == '_'; s++) {
    }
    return s[0] == ')' && s[1] == '\0';
}

/* Sizes and indices: plain digits, since a sign or a fraction makes no sense. */
static bool parse_count(const char *tok, size_t *out)
{
    if (tok == NULL || !all_digits(tok)) {
        return false;
    }
    errno = 0;
    unsigned long long v = strtoull(tok, NULL, 10);
    if (errno == ERANGE || (size_t)v != v) {
        return false;
    }
    *out = (size_t)v;
    return true;
}

/* ----------------------------------------------------------------- values */

static gpgpu_status parse_integer(const mtx_reader *r, gpgpu_type type, const char *tok,
                                  mtx_value *v)
{
    bool is_u32 = type == GPGPU_TYPE_U32;
    long long lo = is_u32 ? 0 : INT32_MIN;
    long long hi = is_u32 ? (long long)UINT32_MAX : INT32_MAX;
    if (!all_digits(skip_sign(tok))) {
        return fail(r, GPGPU_ERROR_PARSE,
                    "'%s' is not an integer (%s takes whole numbers, no fraction or exponent)",
                    tok, type_label(type));
    }
    errno = 0;
    long long x = strtoll(tok, NULL, 10);
    if (errno == ERANGE || x < lo || x > hi) {
        return fail(r, GPGPU_ERROR_PARSE, "%s is out of range for %s (%lld..%lld)", tok,
                    type_label(type), lo, hi);
    }
    if (is_u32) {
        v->u = (uint32_t)x;
    } else {
        v->i = (int32_t)x;
    }
    return GPGPU_SUCCESS;
}

/* strtof for f32 rounds the decimal once, where strtod then a cast could
 * round twice. Only overflow is refused; underflow rounds to nearest. */
static gpgpu_status parse_float(const mtx_reader *r, gpgpu_type type, const char *tok,
                                mtx_value *v)
{
    bool decimal = is_decimal(tok);
    if (!decimal && !is_special_float(tok)) {
        return fail(r, GPGPU_ERROR_PARSE, "'%s' is not a number", tok);
    }
    bool overflow;
    /* A NaN takes the sign written, whatever this C library's strtod does. */
    bool negative = tok[0] == '-';
    if (type == GPGPU_TYPE_F32) {
        v->f = strtof(tok, NULL);
        overflow = decimal && isinf(v->f);
        if (isnan(v->f)) {
            v->f = copysignf(v->f, negative ? -1.0f : 1.0f);
        }
    } else {
        v->d = strtod(tok, NULL);
        overflow = decimal && isinf(v->d);
        if (isnan(v->d)) {
            v->d = copysign(v->d, negative ? -1.0 : 1.0);
        }
    }
    if (overflow) {
        return fail(r, GPGPU_ERROR_PARSE, "%s is out of range for %s", tok, type_label(type));
    }
    return GPGPU_SUCCESS;
}

static gpgpu_status parse_value(const mtx_reader *r, gpgpu_type type, const char *tok,
                                mtx_value *v)
{
    if (type == GPGPU_TYPE_U32 || type == GPGPU_TYPE_I32) {
        return parse_integer(r, type, tok, v);
    }
    return parse_float(r, type, tok, v);
}

static void store_value(gpgpu_type type, void *data, size_t idx, mtx_value v)
{
    size_t size = elem_size(type);
    memcpy((char *)data + idx * size, &v, size);
}

/* Coordinate duplicates are summed; a sum that leaves the type's range is
 * refused like a value that does. */
static gpgpu_status add_value(const mtx_reader *r, gpgpu_type type, void *data, size_t idx,
                              mtx_value v)
{
    bool overflow = false;
    switch (type) {
    case GPGPU_TYPE_U32: {
        uint64_t sum = (uint64_t)((uint32_t *)data)[idx] + v.u;
        overflow = sum > UINT32_MAX;
        ((uint32_t *)data)[idx] = (uint32_t)sum;
        break;
    }
    case GPGPU_TYPE_I32: {
        int64_t sum = (int64_t)((int32_t *)data)[idx] + v.i;
        overflow = sum < INT32_MIN || sum > INT32_MAX;
        ((int32_t *)data)[idx] = (int32_t)sum;
        break;
    }
    case GPGPU_TYPE_F32: {
        float *p = (float *)data + idx;
        overflow = isinf(*p + v.f) && !isinf(*p) && !isinf(v.f);
        *p += v.f;
        break;
    }
    case GPGPU_TYPE_F64: {
        double *p = (double *)data + idx;
        overflow = isinf(*p + v.d) && !isinf(*p) && !isinf(v.d);
        *p += v.d;
        break;
    }
    }
    if (overflow) {
        return fail(r, GPGPU_ERROR_PARSE, "the sum of duplicate entries is out of range for %s",
                    type_label(type));
    }
    return GPGPU_SUCCESS;
}

/* ----------------------------------------------------------------- header */

static gpgpu_status parse_field(const mtx_reader *r, const char *field)
{
    if (same_word(field, "integer") || same_word(field, "real") || same_word(field, "double")) {
        return GPGPU_SUCCESS;
    }
    if (same_word(field, "pattern") || same_word(field, "complex")) {
        return fail(r, GPGPU_ERROR_PARSE,
                    "field '%s' is not supported (only integer, real or double)",
                    field);
    }
    return fail(r, GPGPU_ERROR_PARSE, "unknown field '%s' (expected integer, real or double)",
                field);
}

static gpgpu_status parse_symmetry(const mtx_reader *r, const char *symmetry, mtx_header *h)
{
    h->symmetric = same_word(symmetry, "symmetric");
    if (h->symmetric || same_word(symmetry, "general")) {
        return GPGPU_SUCCESS;
    }
    if (same_word(symmetry, "skew-symmetric") || same_word(symmetry, "hermitian")) {
        return fail(r, GPGPU_ERROR_PARSE, "symmetry '%s' is not supported for a vector",
                    symmetry);
    }
    return fail(r, GPGPU_ERROR_PARSE, "unknown symmetry '%s' (expected general or symmetric)",
                symmetry);
}

/* "%%MatrixMarket matrix FORMAT FIELD SYMMETRY" */
static gpgpu_status parse_header(mtx_reader *r, mtx_header *h)
{
    bool got;
    gpgpu_status s = next_line(r, &got);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    if (!got) {
        return fail(r, GPGPU_ERROR_PARSE, "empty file, expected a %%%%MatrixMarket header");
    }
    char *cursor = r->line;
    char *word[5];
    for (int k = 0; k < 5; k++) {
        word[k] = next_token(&cursor);
    }
    if (word[0] == NULL || !same_word(word[0], "%%MatrixMarket")) {
        return fail(r, GPGPU_ERROR_PARSE, "expected a %%%%MatrixMarket header");
    }
    if (word[4] == NULL || next_token(&cursor) != NULL) {
        return fail(r, GPGPU_ERROR_PARSE,
                    "expected '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY'");
    }
    if (!same_word(word[1], "matrix")) {
        return fail(r, GPGPU_ERROR_PARSE, "unknown object '%s' (expected matrix)", word[1]);
    }
    h->coordinate = same_word(word[2], "coordinate");
    if (!h->coordinate && !same_word(word[2], "array")) {
        return fail(r, GPGPU_ERROR_PARSE, "unknown format '%s' (expected array or coordinate)",
                    word[2]);
    }
    s = parse_field(r, word[3]);
    return s != GPGPU_SUCCESS ? s : parse_symmetry(r, word[4], h);
}

/* "ROWS COLS" for array files, "ROWS COLS ENTRIES" for coordinate files. */
static gpgpu_status parse_size_line(mtx_reader *r, const mtx_header *h, mtx_shape *shape)
{
    char *cursor;
    gpgpu_status s = next_data_line(r, &cursor);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    const char *expected = h->coordinate ? "ROWS COLS ENTRIES" : "ROWS COLS";
    if (cursor == NULL) {
        return fail(r, GPGPU_ERROR_PARSE, "missing the size line '%s'", expected);
    }
    bool ok = parse_count(next_token(&cursor), &shape->rows) &&
              parse_count(next_token(&cursor), &shape->cols) &&
              (!h->coordinate || parse_count(next_token(&cursor), &shape->entries)) &&
              next_token(&cursor) == NULL;
    if (!ok) {
        return fail(r, GPGPU_ERROR_PARSE, "expected the size line '%s'", expected);
    }
    if (shape->rows > 1 && shape->cols > 1) {
        return fail(r, GPGPU_ERROR_PARSE, "shape %zux%zu is not a vector (one row or column)",
                    shape->rows, shape->cols);
    }
    if (h->symmetric && shape->rows != shape->cols) {
        return fail(r, GPGPU_ERROR_PARSE, "a symmetric matrix must be square, not %zux%zu",
                    shape->rows, shape->cols);
    }
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------------- body */

/* Column-major values; several on one line are accepted too. */
static gpgpu_status read_array(mtx_reader *r, gpgpu_type type, void *data, size_t count)
{
    size_t found = 0;
    for (;;) {
        char *cursor;
        gpgpu_status s = next_data_line(r, &cursor);
        if (s != GPGPU_SUCCESS) {
            return s;
        }
        if (cursor == NULL) {
            break;
        }
        for (char *tok; (tok = next_token(&cursor)) != NULL; found++) {
            if (found == count) {
                return fail(r, GPGPU_ERROR_PARSE, "more values than the %zu of the size line",
                            count);
            }
            mtx_value v;
            s = parse_value(r, type, tok, &v);
            if (s != GPGPU_SUCCESS) {
                return s;
            }
            store_value(type, data, found, v);
        }
    }
    if (found < count) {
        return fail(r, GPGPU_ERROR_PARSE, "expected %zu values, found %zu", count, found);
    }
    return GPGPU_SUCCESS;
}

/* One "ROW COL VALUE" line, 1-based. */
static gpgpu_status read_entry(const mtx_reader *r, gpgpu_type type, void *data,
                               const mtx_shape *shape, char *cursor)
{
    const char *ti = next_token(&cursor);
    const char *tj = next_token(&cursor);
    const char *tv = next_token(&cursor);
    if (tv == NULL || next_token(&cursor) != NULL) {
        return fail(r, GPGPU_ERROR_PARSE, "expected an entry 'ROW COL VALUE'");
    }
    size_t i, j;
    if (!parse_count(ti, &i) || !parse_count(tj, &j) || i < 1 || i > shape->rows || j < 1 ||
        j > shape->cols) {
        return fail(r, GPGPU_ERROR_PARSE, "index (%s, %s) is outside 1..%zu, 1..%zu", ti, tj,
                    shape->rows, shape->cols);
    }
    mtx_value v;
    gpgpu_status s = parse_value(r, type, tv, &v);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    return add_value(r, type, data, (i - 1) + (j - 1) * shape->rows, v);
}

/* data is zeroed, so missing entries read as zero. */
static gpgpu_status read_coordinate(mtx_reader *r, gpgpu_type type, void *data,
                                    const mtx_shape *shape)
{
    size_t found = 0;
    for (;;) {
        char *cursor;
        gpgpu_status s = next_data_line(r, &cursor);
        if (s != GPGPU_SUCCESS) {
            return s;
        }
        if (cursor == NULL) {
            break;
        }
        if (found == shape->entries) {
            return fail(r, GPGPU_ERROR_PARSE, "more entries than the %zu of the size line",
                        shape->entries);
        }
        s = read_entry(r, type, data, shape, cursor);
        if (s != GPGPU_SUCCESS) {
            return s;
        }
        found++;
    }
    if (found < shape->entries) {
        return fail(r, GPGPU_ERROR_PARSE, "expected %zu entries, found %zu", shape->entries,
                    found);
    }
    return GPGPU_SUCCESS;
}

/* On failure *data may hold a partial array for the caller to free. */
static gpgpu_status read_file(mtx_reader *r, gpgpu_type type, void **data, size_t *count)
{
    mtx_header h = {0};
    mtx_shape shape = {0};
    gpgpu_status s = parse_header(r, &h);
    if (s == GPGPU_SUCCESS) {
        s = parse_size_line(r, &h, &shape);
    }
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    /* No overflow: one of the two is 0 or 1. */
    *count = shape.rows * shape.cols;
    if (*count > 0) {
        *data = calloc(*count, elem_size(type));
        if (*data == NULL) {
            return fail(r, GPGPU_ERROR_OUT_OF_MEMORY, "cannot allocate %zu values", *count);
        }
    }
    return h.coordinate ? read_coordinate(r, type, *data, &shape)
                        : read_array(r, type, *data, *count);
}

GPGPU_API gpgpu_status gpgpu_mtx_read_vector(const char *path, gpgpu_type type, void **data,
                                             size_t *count, char *msg, size_t msg_size)
{
    if (data != NULL) {
        *data = NULL;
    }
    if (count != NULL) {
        *count = 0;
    }
    if (path == NULL || data == NULL || count == NULL) {
        report(msg, msg_size, NULL, 0, "gpgpu_mtx_read_vector: path, data and count are required");
        return GPGPU_ERROR_NULL_POINTER;
    }
    if (elem_size(type) == 0) {
        report(msg, msg_size, NULL, 0, "gpgpu_mtx_read_vector: unknown type %d", (int)type);
        return GPGPU_ERROR_INVALID_ARGUMENT;
    }
    mtx_reader r = {.path = path, .msg = msg, .msg_size = msg_size};
    r.file = fopen(path, "r");
    if (r.file == NULL) {
        report(msg, msg_size, path, 0, "cannot open: %s", strerror(errno));
        return GPGPU_ERROR_IO;
    }
    void *values = NULL;
    size_t n = 0;
    gpgpu_status s = read_file(&r, type, &values, &n);
    free(r.line);
    fclose(r.file);
    if (s != GPGPU_SUCCESS) {
        free(values);
        return s;
    }
    *data = values;
    *count = n;
    return GPGPU_SUCCESS;
}

/* ---------------------------------------------------------------- writing */

/* NaN, the infinities and zeros are spelled out rather than left to printf,
 * whose words for them vary between C libraries: "nan" or "-nan" (the sign
 * bit; the payload is dropped), "inf", "-inf", "0", "-0". The reader takes
 * each back to the same bits (a NaN to the default quiet NaN of its sign). */
static int write_float(FILE *f, double x, int digits)
{
    if (isnan(x)) {
        return fputs(signbit(x) ? "-nan\n" : "nan\n", f);
    }
    if (isinf(x)) {
        return fputs(x < 0 ? "-inf\n" : "inf\n", f);
    }
    if (x == 0) {
        return fputs(signbit(x) ? "-0\n" : "0\n", f);
    }
    return fprintf(f, "%.*g\n", digits, x);
}

static int write_value(FILE *f, gpgpu_type type, const void *data, size_t i)
{
    switch (type) {
    case GPGPU_TYPE_U32: return fprintf(f, "%" PRIu32 "\n", ((const uint32_t *)data)[i]);
    case GPGPU_TYPE_I32: return fprintf(f, "%" PRId32 "\n", ((const int32_t *)data)[i]);
    case GPGPU_TYPE_F32: return write_float(f, (double)((const float *)data)[i], 9);
    case GPGPU_TYPE_F64: return write_float(f, ((const double *)data)[i], 17);
    }
    return -1;
}

static bool write_values(FILE *f, gpgpu_type type, const void *data, size_t count)
{
    bool integer = type == GPGPU_TYPE_U32 || type == GPGPU_TYPE_I32;
    if (fprintf(f, "%%%%MatrixMarket matrix array %s general\n%zu 1\n",
                integer ? "integer" : "real", count) < 0) {
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        if (write_value(f, type, data, i) < 0) {
            return false;
        }
    }
    return true;
}

GPGPU_API gpgpu_status gpgpu_mtx_write_vector(const char *path, gpgpu_type type, const void *data,
                                              size_t count, char *msg, size_t msg_size)
{
    if (path == NULL || (data == NULL && count > 0)) {
        report(msg, msg_size, NULL, 0, "gpgpu_mtx_write_vector: path and data are required");
        return GPGPU_ERROR_NULL_POINTER;
    }
    if (elem_size(type) == 0) {
        report(msg, msg_size, NULL, 0, "gpgpu_mtx_write_vector: unknown type %d", (int)type);
        return GPGPU_ERROR_INVALID_ARGUMENT;
    }
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (f == NULL) {
        report(msg, msg_size, path, 0, "cannot open for writing: %s", strerror(errno));
        return GPGPU_ERROR_IO;
    }
    bool written = write_values(f, type, data, count);
    /* stdout stays open for the caller; a file is closed whatever happened. */
    int finished = to_stdout ? fflush(f) : fclose(f);
    if (!written || finished != 0) {
        report(msg, msg_size, path, 0, "cannot write: %s", strerror(errno));
        return GPGPU_ERROR_IO;
    }
    return GPGPU_SUCCESS;
}
