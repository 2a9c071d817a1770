/*
 * MatrixMarket matrices: coordinate or array files (plain or gzip'ed) into a
 * host CSR, and a CSR out as a coordinate file.
 */
#include "gpgpu/io.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "core/checked.h"
#include "io/mtx_internal.h"
#include "sparse/sparse_internal.h"

typedef struct matrix_reader {
    mtx_reader r;
    mtx_banner b;          /* as read: a real hermitian file's symmetry is symmetric */
    mtx_symmetry declared; /* the banner's, for the header */
    gpgpu_type type;       /* what the values go to the GPU as: f32 refuses what it cannot hold */
    mtx_shape shape;
    sparse_triples e; /* as they come, mirrored ones included: one linear pass sorts them */
    size_t at_row, at_col; /* array files: where the next value goes */
} matrix_reader;

/* A size line can promise far more than the file holds: the first
 * reservation is small, and the list doubles as the entries arrive. */
enum { FIRST_RESERVATION = 1 << 12 };

static gpgpu_status push(matrix_reader *m, size_t i, size_t j, double v)
{
    if (sparse_triples_add(&m->e, (uint32_t)i, (uint32_t)j, v)) {
        return GPGPU_SUCCESS;
    }
    switch (sparse_triples_grow(&m->e)) {
    case GPGPU_SUCCESS:
        sparse_triples_add(&m->e, (uint32_t)i, (uint32_t)j, v);
        return GPGPU_SUCCESS;
    case GPGPU_ERROR_TOO_LARGE:
        return mtx_fail(&m->r, GPGPU_ERROR_TOO_LARGE,
                        "more than 2^31 - 1 entries (mirrored ones included)");
    default:
        return mtx_fail(&m->r, GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu entries",
                        m->e.n + 1);
    }
}

/* One entry (0-based) and, for a symmetric or skew-symmetric file, its mirror. */
static gpgpu_status add_entry(matrix_reader *m, size_t i, size_t j, double v)
{
    mtx_symmetry sym = m->b.symmetry;
    if (sym == MTX_SKEW_SYMMETRIC && i == j) {
        return mtx_fail(&m->r, GPGPU_ERROR_PARSE,
                        "entry (%zu, %zu) is on the diagonal, which a skew-symmetric matrix "
                        "does not store (it is zero)",
                        i + 1, j + 1);
    }
    gpgpu_status s = push(m, i, j, v);
    if (s == GPGPU_SUCCESS && sym != MTX_GENERAL && i != j) {
        s = push(m, j, i, sym == MTX_SKEW_SYMMETRIC ? -v : v);
    }
    return s;
}

static gpgpu_status parse_entry_value(const matrix_reader *m, const char *tok, double *v)
{
    if (m->b.field == MTX_INTEGER && !mtx_all_digits(mtx_skip_sign(tok))) {
        return mtx_fail(&m->r, GPGPU_ERROR_PARSE,
                        "'%s' is not an integer (the file's field is integer)", tok);
    }
    mtx_value x;
    gpgpu_status s = mtx_parse_float(&m->r, GPGPU_TYPE_F64, tok, &x);
    if (s == GPGPU_SUCCESS) {
        *v = x.d;
    }
    /* Past FLT_MAX the decimal is read again as f32, as gpgpu_mtx_read_vector reads it: what
     * rounds to an infinity there is refused with its line, what rounds to FLT_MAX is kept
     * as that (a double rounded twice could land on the other side). A pattern line's value
     * is ignored: any number will do. */
    if (s == GPGPU_SUCCESS && m->type == GPGPU_TYPE_F32 && m->b.field != MTX_PATTERN &&
        isfinite(x.d) && fabs(x.d) > FLT_MAX) {
        s = mtx_parse_float(&m->r, GPGPU_TYPE_F32, tok, &x);
        *v = s == GPGPU_SUCCESS ? (double)x.f : *v;
    }
    return s;
}

/* ------------------------------------------------------------------- body */

/* A value on a pattern line is checked but ignored: pattern means 1. */
static gpgpu_status coordinate_entry(const mtx_reader *r, size_t i, size_t j, const char *tok,
                                     void *user)
{
    (void)r;
    matrix_reader *m = user;
    double v = 1;
    gpgpu_status s = tok != NULL ? parse_entry_value(m, tok, &v) : GPGPU_SUCCESS;
    return s != GPGPU_SUCCESS ? s : add_entry(m, i, j, m->b.field == MTX_PATTERN ? 1 : v);
}

/* The first row column j stores: symmetric files keep the lower triangle,
 * skew-symmetric ones the part strictly below the diagonal. */
static size_t first_row(const mtx_banner *b, size_t j)
{
    return b->symmetry == MTX_GENERAL ? 0 : b->symmetry == MTX_SYMMETRIC ? j : j + 1;
}

static size_t array_values(const mtx_banner *b, const mtx_shape *shape)
{
    size_t n = shape->rows;
    switch (b->symmetry) {
    case MTX_SYMMETRIC: return n * (n + 1) / 2;
    case MTX_SKEW_SYMMETRIC: return n > 0 ? n * (n - 1) / 2 : 0;
    default: return shape->rows * shape->cols;
    }
}

/* Values come column-major, each column from its first stored row. */
static gpgpu_status array_value(const mtx_reader *r, size_t index, const char *tok, void *user)
{
    (void)r;
    (void)index;
    matrix_reader *m = user;
    while (m->at_row >= m->shape.rows) {
        m->at_col++;
        m->at_row = first_row(&m->b, m->at_col);
    }
    double v;
    gpgpu_status s = parse_entry_value(m, tok, &v);
    return s != GPGPU_SUCCESS ? s : add_entry(m, m->at_row++, m->at_col, v);
}

/* Every entry is kept, zeros too, so the CSR is dense: a skew-symmetric
 * diagonal gets its zeros. */
static gpgpu_status read_array(matrix_reader *m)
{
    m->at_row = first_row(&m->b, 0);
    gpgpu_status s = mtx_read_array(&m->r, m->shape.entries, array_value, m);
    if (m->b.symmetry != MTX_SKEW_SYMMETRIC) {
        return s;
    }
    for (size_t d = 0; s == GPGPU_SUCCESS && d < m->shape.rows; d++) {
        s = push(m, d, d, 0.0);
    }
    return s;
}

/* ------------------------------------------------------------------- file */

/* What a matrix can hold: any field but complex. A = A^H with real entries is A = A^T, so a
 * real (integer, pattern) hermitian file is read as the symmetric one it is, as SciPy's
 * mmread does. */
static gpgpu_status check_banner(matrix_reader *m)
{
    if (m->b.field == MTX_COMPLEX) {
        return mtx_fail(&m->r, GPGPU_ERROR_PARSE,
                        "field 'complex' is not supported (host values are real: real, double, "
                        "integer or pattern)");
    }
    m->declared = m->b.symmetry;
    if (m->b.symmetry == MTX_HERMITIAN) {
        m->b.symmetry = MTX_SYMMETRIC;
    }
    return GPGPU_SUCCESS;
}

/* 32-bit indices, refused before anything is allocated. */
static gpgpu_status check_shape(matrix_reader *m)
{
    gpgpu_status s = mtx_check_counts(&m->r, &m->shape);
    if (s != GPGPU_SUCCESS || m->b.coordinate) {
        return s;
    }
    /* Both at most 2^31 - 1: the product cannot overflow. */
    m->shape.entries = array_values(&m->b, &m->shape);
    if (m->shape.rows * m->shape.cols > GPGPU_SPARSE_MAX_INDEX) {
        return mtx_fail(&m->r, GPGPU_ERROR_TOO_LARGE,
                        "a dense %zux%zu array has more than 2^31 - 1 entries", m->shape.rows,
                        m->shape.cols);
    }
    return GPGPU_SUCCESS;
}

static void fill_header(const matrix_reader *m, gpgpu_mtx_header *h)
{
    *h = (gpgpu_mtx_header){.array = !m->b.coordinate,
                            .rows = (uint32_t)m->shape.rows,
                            .cols = (uint32_t)m->shape.cols,
                            .entries = m->shape.entries};
    snprintf(h->field, sizeof h->field, "%s", mtx_field_name(m->b.field));
    snprintf(h->symmetry, sizeof h->symmetry, "%s", mtx_symmetry_name(m->declared));
}

/* Every value was within f32's range, but duplicate entries are summed (in double): a sum
 * past it is refused as gpgpu_mtx_read_vector refuses one. */
static gpgpu_status check_sums_f32(const matrix_reader *m, gpgpu_csr *a)
{
    for (uint32_t i = 0; i < a->rows; i++) {
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            double v = a->values[k];
            if (isfinite(v) && isinf((float)v)) {
                mtx_report(m->r.msg, m->r.msg_size, m->r.path, 0,
                           "the duplicate entries of (%u, %u) sum to %.9g, past the range of "
                           "f32",
                           i + 1, a->col_idx[k] + 1, v);
                gpgpu_csr_free(a);
                return GPGPU_ERROR_PARSE;
            }
        }
    }
    return GPGPU_SUCCESS;
}

static gpgpu_status read_matrix(matrix_reader *m, gpgpu_csr *out, gpgpu_mtx_header *header)
{
    gpgpu_status s = mtx_parse_banner(&m->r, &m->b);
    if (s == GPGPU_SUCCESS) {
        s = check_banner(m);
    }
    if (s == GPGPU_SUCCESS) {
        s = mtx_parse_size_line(&m->r, &m->b, &m->shape);
    }
    if (s == GPGPU_SUCCESS) {
        s = check_shape(m);
    }
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    size_t expected = m->shape.entries * (m->b.symmetry == MTX_GENERAL ? 1 : 2);
    size_t first = expected < FIRST_RESERVATION ? expected : FIRST_RESERVATION;
    if (sparse_triples_init(&m->e, first) != GPGPU_SUCCESS) {
        return mtx_fail(&m->r, GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for the entries");
    }
    s = m->b.coordinate ? mtx_read_coordinate(&m->r, &m->shape, m->b.field == MTX_PATTERN,
                                              coordinate_entry, m)
                        : read_array(m);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    if (header != NULL) {
        fill_header(m, header);
    }
    s = sparse_triples_to_csr(&m->e, (uint32_t)m->shape.rows, (uint32_t)m->shape.cols, out,
                              NULL, 0);
    if (s != GPGPU_SUCCESS) {
        return mtx_fail(&m->r, s, "out of memory building the CSR");
    }
    return m->type == GPGPU_TYPE_F32 ? check_sums_f32(m, out) : GPGPU_SUCCESS;
}

GPGPU_API gpgpu_status gpgpu_mtx_read_matrix(const char *path, gpgpu_csr *out,
                                             gpgpu_mtx_header *header, char *msg,
                                             size_t msg_size)
{
    return gpgpu_mtx_read_matrix_as(path, GPGPU_TYPE_F64, out, header, msg, msg_size);
}

GPGPU_API gpgpu_status gpgpu_mtx_read_matrix_as(const char *path, gpgpu_type type,
                                                gpgpu_csr *out, gpgpu_mtx_header *header,
                                                char *msg, size_t msg_size)
{
    if (out != NULL) {
        *out = (gpgpu_csr){0};
    }
    if (header != NULL) {
        *header = (gpgpu_mtx_header){0};
    }
    if (path == NULL || out == NULL) {
        mtx_report(msg, msg_size, NULL, 0, "gpgpu_mtx_read_matrix: path and out are required");
        return GPGPU_ERROR_NULL_POINTER;
    }
    if (type != GPGPU_TYPE_F32 && type != GPGPU_TYPE_F64) {
        mtx_report(msg, msg_size, NULL, 0,
                   "gpgpu_mtx_read_matrix_as: matrix values are f32 or f64, not type %d",
                   (int)type);
        return GPGPU_ERROR_INVALID_ARGUMENT;
    }
    matrix_reader m = {.type = type};
    gpgpu_status s = mtx_open(&m.r, path, msg, msg_size);
    if (s == GPGPU_SUCCESS) {
        s = read_matrix(&m, out, header);
    }
    mtx_close(&m.r);
    sparse_triples_free(&m.e);
    return s;
}

/* ---------------------------------------------------------------- writing */

static bool write_entries(FILE *f, const gpgpu_csr *a)
{
    if (fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%u %u %zu\n", a->rows,
                a->cols, a->nnz) < 0) {
        return false;
    }
    for (uint32_t i = 0; i < a->rows; i++) {
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            if (fprintf(f, "%u %u ", i + 1, a->col_idx[k] + 1) < 0 ||
                mtx_write_float(f, a->values[k], 17) < 0 || fputc('\n', f) == EOF) {
                return false;
            }
        }
    }
    return true;
}

GPGPU_API gpgpu_status gpgpu_mtx_write_matrix(const char *path, const gpgpu_csr *a, char *msg,
                                              size_t msg_size)
{
    if (path == NULL || a == NULL) {
        mtx_report(msg, msg_size, NULL, 0, "gpgpu_mtx_write_matrix: path and a are required");
        return GPGPU_ERROR_NULL_POINTER;
    }
    /* The loop below trusts row_ptr and col_idx; unsorted columns are fine in the file. */
    gpgpu_status s = gpgpu_csr_check(a, false, msg, msg_size);
    FILE *f = NULL;
    if (s == GPGPU_SUCCESS) {
        s = mtx_create(path, &f, msg, msg_size);
    }
    return s != GPGPU_SUCCESS ? s : mtx_finish(path, f, write_entries(f, a), msg, msg_size);
}

/* Column-major, as the format defines the array layout. */
static bool write_array(FILE *f, uint32_t rows, uint32_t cols, const double *values, size_t ld)
{
    if (fprintf(f, "%%%%MatrixMarket matrix array real general\n%u %u\n", rows, cols) < 0) {
        return false;
    }
    for (uint32_t j = 0; j < cols; j++) {
        for (uint32_t i = 0; i < rows; i++) {
            if (mtx_write_float(f, values[(size_t)i * ld + j], 17) < 0 || fputc('\n', f) == EOF) {
                return false;
            }
        }
    }
    return true;
}

GPGPU_API gpgpu_status gpgpu_mtx_write_dense(const char *path, uint32_t rows, uint32_t cols,
                                             const double *values, size_t ld, char *msg,
                                             size_t msg_size)
{
    if (path == NULL || (values == NULL && rows > 0 && cols > 0)) {
        mtx_report(msg, msg_size, NULL, 0, "gpgpu_mtx_write_dense: path and values are required");
        return GPGPU_ERROR_NULL_POINTER;
    }
    if (ld < cols) {
        mtx_report(msg, msg_size, NULL, 0,
                   "gpgpu_mtx_write_dense: the row stride %zu is below the %u columns", ld, cols);
        return GPGPU_ERROR_INVALID_ARGUMENT;
    }
    /* The values span (rows - 1) * ld + cols doubles: past SIZE_MAX bytes no array holds them,
     * and the index of the last one would wrap. */
    size_t span = 0;
    if (rows > 0 && cols > 0 &&
        (!size_mul((size_t)rows - 1, ld, &span) || !size_add(span, cols, &span) ||
         !size_mul(span, sizeof *values, &span))) {
        mtx_report(msg, msg_size, NULL, 0,
                   "gpgpu_mtx_write_dense: %u rows of stride %zu span more than SIZE_MAX bytes",
                   rows, ld);
        return GPGPU_ERROR_TOO_LARGE;
    }
    FILE *f = NULL;
    gpgpu_status s = mtx_create(path, &f, msg, msg_size);
    return s != GPGPU_SUCCESS ? s : mtx_finish(path, f, write_array(f, rows, cols, values, ld), msg,
                                               msg_size);
}
