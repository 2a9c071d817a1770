/*
 * The MatrixMarket pieces that vectors and matrices share (mtx_internal.h).
 */
#include "io/mtx_internal.h"

#include "gpgpu/io.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_names[] = {
    [MTX_REAL] = "real", [MTX_DOUBLE] = "double", [MTX_INTEGER] = "integer",
    [MTX_PATTERN] = "pattern", [MTX_COMPLEX] = "complex"};
static const char *const symmetry_names[] = {
    [MTX_GENERAL] = "general", [MTX_SYMMETRIC] = "symmetric",
    [MTX_SKEW_SYMMETRIC] = "skew-symmetric", [MTX_HERMITIAN] = "hermitian"};

enum { FIELD_COUNT = sizeof field_names / sizeof *field_names,
       SYMMETRY_COUNT = sizeof symmetry_names / sizeof *symmetry_names };

const char *mtx_field_name(mtx_field field)
{
    return field_names[field];
}

const char *mtx_symmetry_name(mtx_symmetry symmetry)
{
    return symmetry_names[symmetry];
}

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

void mtx_report(char *msg, size_t msg_size, const char *path, size_t line_no, const char *fmt,
                ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(msg, msg_size, path, line_no, fmt, ap);
    va_end(ap);
}

gpgpu_status mtx_fail(const mtx_reader *r, gpgpu_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(r->msg, r->msg_size, r->path, r->line_no, fmt, ap);
    va_end(ap);
    return status;
}

/* ------------------------------------------------------------------ lines */

/* What one read asks for; zlib's own buffer (gzbuffer) is larger still. */
enum { MTX_CHUNK = 1 << 16 };

/* The files under the line reader: through zlib, whose gz* functions read plain files
 * through unchanged, or, in a build without it (meson -Dzlib=disabled), through stdio,
 * refusing a gzip file by its first bytes rather than parsing it as text. */
#ifdef GPGPU_HAVE_ZLIB

static bool file_open(mtx_reader *r)
{
    r->file = gzopen(r->path, "rb");
    if (r->file != NULL) {
        /* Larger than zlib's 8 KiB default: files of hundreds of MB. */
        gzbuffer(r->file, 1u << 17);
    }
    return r->file != NULL;
}

static void file_close(mtx_reader *r)
{
    gzclose(r->file);
}

/* zlib keeps its first error; a truncated .gz shows up here, not as an early end. A
 * stream that ends early or does not decode is a malformed file (the reader got bytes,
 * just not a gzip file's), where the system failing to read is an I/O failure. zlib
 * writes the path before its text, which our report has already. */
static gpgpu_status read_error(const mtx_reader *r)
{
    int code;
    const char *text = gzerror(r->file, &code);
    size_t len = strlen(r->path);
    if (strncmp(text, r->path, len) == 0 && text[len] == ':' && text[len + 1] == ' ') {
        text += len + 2;
    }
    switch (code) {
    case Z_OK: return GPGPU_SUCCESS;
    case Z_MEM_ERROR: return mtx_fail(r, GPGPU_ERROR_OUT_OF_MEMORY, "out of memory reading");
    case Z_ERRNO: return mtx_fail(r, GPGPU_ERROR_IO, "cannot read: %s", strerror(errno));
    case Z_BUF_ERROR:
        return mtx_fail(r, GPGPU_ERROR_PARSE, "the gzip data ends early (%s): a truncated file",
                        text);
    case Z_DATA_ERROR:
        return mtx_fail(r, GPGPU_ERROR_PARSE, "corrupt gzip data (%s)", text);
    default: return mtx_fail(r, GPGPU_ERROR_IO, "cannot read: %s", text);
    }
}

/* Up to MTX_CHUNK bytes into r->chunk; *n is 0 at the end of the file. */
static gpgpu_status file_read(mtx_reader *r, size_t *n)
{
    int got = gzread(r->file, r->chunk, MTX_CHUNK);
    *n = got > 0 ? (size_t)got : 0;
    return got > 0 ? GPGPU_SUCCESS : read_error(r);
}

#else

static bool file_open(mtx_reader *r)
{
    r->file = fopen(r->path, "rb");
    return r->file != NULL;
}

static void file_close(mtx_reader *r)
{
    fclose(r->file);
}

static gpgpu_status file_read(mtx_reader *r, size_t *n)
{
    *n = fread(r->chunk, 1, MTX_CHUNK, r->file);
    if (*n == 0 && ferror(r->file)) {
        return mtx_fail(r, GPGPU_ERROR_IO, "cannot read: %s", strerror(errno));
    }
    /* Every gzip member starts with these two bytes (RFC 1952). */
    const unsigned char *b = (const unsigned char *)r->chunk;
    if (r->line_no == 0 && *n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        *n = 0;
        return mtx_fail(r, GPGPU_ERROR_UNSUPPORTED_FEATURE,
                        "a gzip file, which this build of libgpgpu cannot read "
                        "(built without zlib: meson -Dzlib)");
    }
    return GPGPU_SUCCESS;
}

#endif

gpgpu_status mtx_open(mtx_reader *r, const char *path, char *msg, size_t msg_size)
{
    *r = (mtx_reader){.path = path, .msg = msg, .msg_size = msg_size};
    r->chunk = malloc(MTX_CHUNK);
    if (r->chunk == NULL) {
        mtx_report(msg, msg_size, path, 0, "cannot open: out of memory");
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    errno = 0;
    if (!file_open(r)) {
        int err = errno;
        free(r->chunk); /* the caller closes only what opened */
        r->chunk = NULL;
        mtx_report(msg, msg_size, path, 0, "cannot open: %s",
                   err != 0 ? strerror(err) : "out of memory");
        return err != 0 ? GPGPU_ERROR_IO : GPGPU_ERROR_OUT_OF_MEMORY;
    }
    return GPGPU_SUCCESS;
}

void mtx_close(mtx_reader *r)
{
    if (r->file != NULL) {
        file_close(r);
    }
    free(r->chunk);
    free(r->line);
    *r = (mtx_reader){0};
}

/* Room for `needed` bytes in r->line; never past the line limit plus its '\0'. */
static gpgpu_status reserve_line(mtx_reader *r, size_t needed)
{
    if (needed <= r->line_cap) {
        return GPGPU_SUCCESS;
    }
    size_t cap = r->line_cap > 0 ? r->line_cap : 256;
    while (cap < needed) {
        cap *= 2;
    }
    char *grown = realloc(r->line, cap);
    if (grown == NULL) {
        return mtx_fail(r, GPGPU_ERROR_OUT_OF_MEMORY, "out of memory reading a line of %zu bytes",
                        needed);
    }
    r->line = grown;
    r->line_cap = cap;
    return GPGPU_SUCCESS;
}

/* Refills the chunk; *got is false at the end of the file. */
static gpgpu_status next_chunk(mtx_reader *r, bool *got)
{
    size_t n = 0;
    gpgpu_status s = file_read(r, &n);
    r->chunk_at = 0;
    r->chunk_end = n;
    *got = n > 0;
    return s;
}

/* Appends the chunk's bytes up to and with the next newline to the line of len bytes;
 * *done once the newline came. Text holds no NUL: a binary file stops at the first. */
static gpgpu_status take_bytes(mtx_reader *r, size_t *len, bool *done)
{
    const char *start = r->chunk + r->chunk_at;
    size_t avail = r->chunk_end - r->chunk_at;
    const char *newline = memchr(start, '\n', avail);
    size_t take = newline != NULL ? (size_t)(newline - start) + 1 : avail;
    if (memchr(start, '\0', take) != NULL) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "a NUL byte: not a text file");
    }
    if (*len + take > GPGPU_MTX_MAX_LINE_BYTES) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "a line longer than %zu bytes",
                        (size_t)GPGPU_MTX_MAX_LINE_BYTES);
    }
    gpgpu_status s = reserve_line(r, *len + take + 1);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    memcpy(r->line + *len, start, take);
    *len += take;
    r->chunk_at += take;
    *done = newline != NULL;
    return GPGPU_SUCCESS;
}

/* Reads the next line into r->line, '\0'-terminated; *got is false at the end of the file.
 * The line is counted from its first byte, so that errors within it name it. */
static gpgpu_status next_line(mtx_reader *r, bool *got)
{
    size_t len = 0;
    bool done = false;
    gpgpu_status s = GPGPU_SUCCESS;
    while (!done && s == GPGPU_SUCCESS) {
        if (r->chunk_at == r->chunk_end) {
            bool more;
            s = next_chunk(r, &more);
            if (s != GPGPU_SUCCESS || !more) {
                break;
            }
        }
        if (len == 0) {
            r->line_no++;
        }
        s = take_bytes(r, &len, &done);
    }
    *got = s == GPGPU_SUCCESS && len > 0;
    if (*got) {
        r->line[len] = '\0';
    }
    return s;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

gpgpu_status mtx_next_data_line(mtx_reader *r, char **cursor)
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
        /* An endless stream of comments (`yes %`) stops here. */
        r->skipped_bytes += strlen(r->line);
        if (r->skipped_bytes > GPGPU_MTX_MAX_SKIPPED_BYTES) {
            *cursor = NULL;
            return mtx_fail(r, GPGPU_ERROR_PARSE,
                            "more than %zu bytes of comments and blank lines",
                            (size_t)GPGPU_MTX_MAX_SKIPPED_BYTES);
        }
    }
}

char *mtx_next_token(char **cursor)
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

bool mtx_all_digits(const char *s)
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

const char *mtx_skip_sign(const char *s)
{
    return *s == '+' || *s == '-' ? s + 1 : s;
}

/* What strtod reads, less hex floats and words: [sign] digits [. digits] [e [sign] digits]. */
static bool is_decimal(const char *s)
{
    size_t digits = 0;
    for (s = mtx_skip_sign(s); is_digit(*s); s++) {
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
        s = mtx_skip_sign(s + 1);
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
 * set (mtx_parse_float gives the sign back). */
static bool is_special_float(const char *s)
{
    s = mtx_skip_sign(s);
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

bool mtx_parse_count(const char *tok, size_t *out)
{
    if (tok == NULL || !mtx_all_digits(tok)) {
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

/* strtof for f32 rounds the decimal once, where strtod then a cast could
 * round twice. Only overflow is refused; underflow rounds to nearest. */
gpgpu_status mtx_parse_float(const mtx_reader *r, gpgpu_type type, const char *tok,
                             mtx_value *v)
{
    bool decimal = is_decimal(tok);
    if (!decimal && !is_special_float(tok)) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "'%s' is not a number", tok);
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
        return mtx_fail(r, GPGPU_ERROR_PARSE, "%s is out of range for %s", tok,
                        gpgpu_type_name(type));
    }
    return GPGPU_SUCCESS;
}

/* ----------------------------------------------------------------- header */

/* The index of word in names, or -1. */
static int find_word(const char *word, const char *const *names, int count)
{
    for (int k = 0; k < count; k++) {
        if (same_word(word, names[k])) {
            return k;
        }
    }
    return -1;
}

gpgpu_status mtx_parse_banner(mtx_reader *r, mtx_banner *b)
{
    bool got;
    gpgpu_status s = next_line(r, &got);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    if (!got) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "empty file, expected a %%%%MatrixMarket header");
    }
    char *cursor = r->line;
    char *word[5];
    for (int k = 0; k < 5; k++) {
        word[k] = mtx_next_token(&cursor);
    }
    if (word[0] == NULL || !same_word(word[0], "%%MatrixMarket")) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "expected a %%%%MatrixMarket header");
    }
    if (word[4] == NULL || mtx_next_token(&cursor) != NULL) {
        return mtx_fail(r, GPGPU_ERROR_PARSE,
                        "expected '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY'");
    }
    if (!same_word(word[1], "matrix")) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "unknown object '%s' (expected matrix)", word[1]);
    }
    b->coordinate = same_word(word[2], "coordinate");
    if (!b->coordinate && !same_word(word[2], "array")) {
        return mtx_fail(r, GPGPU_ERROR_PARSE,
                        "unknown format '%s' (expected array or coordinate)", word[2]);
    }
    int field = find_word(word[3], field_names, FIELD_COUNT);
    if (field < 0) {
        return mtx_fail(r, GPGPU_ERROR_PARSE,
                        "unknown field '%s' (expected real, double, integer, pattern or complex)",
                        word[3]);
    }
    int symmetry = find_word(word[4], symmetry_names, SYMMETRY_COUNT);
    if (symmetry < 0) {
        return mtx_fail(r, GPGPU_ERROR_PARSE,
                        "unknown symmetry '%s' (expected general, symmetric, skew-symmetric "
                        "or hermitian)",
                        word[4]);
    }
    b->field = (mtx_field)field;
    b->symmetry = (mtx_symmetry)symmetry;
    return GPGPU_SUCCESS;
}

gpgpu_status mtx_parse_size_line(mtx_reader *r, const mtx_banner *b, mtx_shape *shape)
{
    char *cursor;
    gpgpu_status s = mtx_next_data_line(r, &cursor);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    const char *expected = b->coordinate ? "ROWS COLS ENTRIES" : "ROWS COLS";
    if (cursor == NULL) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "missing the size line '%s'", expected);
    }
    bool ok = mtx_parse_count(mtx_next_token(&cursor), &shape->rows) &&
              mtx_parse_count(mtx_next_token(&cursor), &shape->cols) &&
              (!b->coordinate || mtx_parse_count(mtx_next_token(&cursor), &shape->entries)) &&
              mtx_next_token(&cursor) == NULL;
    if (!ok) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "expected the size line '%s'", expected);
    }
    if (b->symmetry != MTX_GENERAL && shape->rows != shape->cols) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "a %s matrix must be square, not %zux%zu",
                        mtx_symmetry_name(b->symmetry), shape->rows, shape->cols);
    }
    return GPGPU_SUCCESS;
}

gpgpu_status mtx_check_counts(const mtx_reader *r, const mtx_shape *shape)
{
    size_t max = GPGPU_SPARSE_MAX_INDEX;
    if (shape->rows > max || shape->cols > max) {
        return mtx_fail(r, GPGPU_ERROR_TOO_LARGE, "%zux%zu is past 2^31 - 1 rows or columns",
                        shape->rows, shape->cols);
    }
    if (shape->entries > max) {
        return mtx_fail(r, GPGPU_ERROR_TOO_LARGE, "%zu entries are past 2^31 - 1",
                        shape->entries);
    }
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------------- body */

/* A pattern line may go on with a value, as some published files do
 * (Pajek/Ragusa16 keeps its edge weights): it is handed on for a check. */
static gpgpu_status read_entry(const mtx_reader *r, const mtx_shape *shape, bool pattern,
                               char *cursor, mtx_entry_fn fn, void *user)
{
    const char *ti = mtx_next_token(&cursor);
    const char *tj = mtx_next_token(&cursor);
    const char *tv = mtx_next_token(&cursor);
    if (tj == NULL || (tv == NULL && !pattern) || mtx_next_token(&cursor) != NULL) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "expected an entry '%s'",
                        pattern ? "ROW COL" : "ROW COL VALUE");
    }
    size_t i, j;
    if (!mtx_parse_count(ti, &i) || !mtx_parse_count(tj, &j) || i < 1 || i > shape->rows ||
        j < 1 || j > shape->cols) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "index (%s, %s) is outside 1..%zu, 1..%zu", ti,
                        tj, shape->rows, shape->cols);
    }
    return fn(r, i - 1, j - 1, tv, user);
}

gpgpu_status mtx_read_coordinate(mtx_reader *r, const mtx_shape *shape, bool pattern,
                                 mtx_entry_fn fn, void *user)
{
    size_t found = 0;
    char *cursor;
    gpgpu_status s;
    while ((s = mtx_next_data_line(r, &cursor)) == GPGPU_SUCCESS && cursor != NULL) {
        if (found == shape->entries) {
            return mtx_fail(r, GPGPU_ERROR_PARSE, "more entries than the %zu of the size line",
                            shape->entries);
        }
        s = read_entry(r, shape, pattern, cursor, fn, user);
        if (s != GPGPU_SUCCESS) {
            return s;
        }
        found++;
    }
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    if (found < shape->entries) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "expected %zu entries, found %zu", shape->entries,
                        found);
    }
    return GPGPU_SUCCESS;
}

gpgpu_status mtx_read_array(mtx_reader *r, size_t count, mtx_value_fn fn, void *user)
{
    size_t found = 0;
    char *cursor;
    gpgpu_status s;
    while ((s = mtx_next_data_line(r, &cursor)) == GPGPU_SUCCESS && cursor != NULL) {
        for (char *tok; (tok = mtx_next_token(&cursor)) != NULL; found++) {
            if (found == count) {
                return mtx_fail(r, GPGPU_ERROR_PARSE,
                                "more values than the %zu of the size line", count);
            }
            s = fn(r, found, tok, user);
            if (s != GPGPU_SUCCESS) {
                return s;
            }
        }
    }
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    if (found < count) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "expected %zu values, found %zu", count, found);
    }
    return GPGPU_SUCCESS;
}

/* ---------------------------------------------------------------- writing */

/* NaN, the infinities and zeros are spelled out rather than left to printf,
 * whose words for them vary between C libraries: "nan" or "-nan" (the sign
 * bit; the payload is dropped), "inf", "-inf", "0", "-0". The readers take
 * each back to the same bits (a NaN to the default quiet NaN of its sign). */
int mtx_write_float(FILE *f, double x, int digits)
{
    if (isnan(x)) {
        return fputs(signbit(x) ? "-nan" : "nan", f);
    }
    if (isinf(x)) {
        return fputs(x < 0 ? "-inf" : "inf", f);
    }
    if (x == 0) {
        return fputs(signbit(x) ? "-0" : "0", f);
    }
    return fprintf(f, "%.*g", digits, x);
}

gpgpu_status mtx_create(const char *path, FILE **f, char *msg, size_t msg_size)
{
    *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (*f == NULL) {
        mtx_report(msg, msg_size, path, 0, "cannot open for writing: %s", strerror(errno));
        return GPGPU_ERROR_IO;
    }
    return GPGPU_SUCCESS;
}

gpgpu_status mtx_finish(const char *path, FILE *f, bool written, char *msg, size_t msg_size)
{
    /* stdout stays open for the caller; a file is closed whatever happened. */
    int finished = f == stdout ? fflush(f) : fclose(f);
    if (!written || finished != 0) {
        mtx_report(msg, msg_size, path, 0, "cannot write: %s", strerror(errno));
        return GPGPU_ERROR_IO;
    }
    return GPGPU_SUCCESS;
}
