/*
 * The host CSR, the hub every sparse format, reader and generator meets at:
 * checks, construction from triples, row statistics.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "core/internal.h"
#include "sparse/sparse_internal.h"

gpgpu_status sparse_fail(char *msg, size_t msg_size, gpgpu_status status, const char *fmt, ...)
{
    if (msg != NULL && msg_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return status;
}

void *sparse_alloc(size_t count, size_t size)
{
    size_t bytes;
    if (!size_mul(count, size, &bytes)) {
        return NULL;
    }
    return malloc(count > 0 ? bytes : size);
}

void sparse_expand_ptr(const uint32_t *ptr, uint32_t lines, uint32_t *out)
{
    for (uint32_t l = 0; l < lines; l++) {
        for (uint32_t k = ptr[l]; k < ptr[l + 1]; k++) {
            out[k] = l;
        }
    }
}

void sparse_bucket(size_t n, uint32_t buckets, const uint32_t *key, const uint32_t *other,
                   const double *val, uint32_t *ptr, uint32_t *out_other, double *out_val)
{
    memset(ptr, 0, ((size_t)buckets + 1) * sizeof *ptr);
    for (size_t k = 0; k < n; k++) {
        ptr[key[k] + 1]++;
    }
    for (uint32_t b = 0; b < buckets; b++) {
        ptr[b + 1] += ptr[b];
    }
    /* ptr[b] serves as bucket b's cursor and so ends at the start of b + 1:
     * shifting it back by one restores the starts without a second array. */
    for (size_t k = 0; k < n; k++) {
        uint32_t at = ptr[key[k]]++;
        out_other[at] = other[k];
        out_val[at] = val[k];
    }
    memmove(ptr + 1, ptr, (size_t)buckets * sizeof *ptr);
    ptr[0] = 0;
}

void sparse_triples_free(sparse_triples *t)
{
    free(t->row);
    free(t->col);
    free(t->val);
    *t = (sparse_triples){0};
}

gpgpu_status sparse_triples_init(sparse_triples *t, uint64_t cap)
{
    *t = (sparse_triples){0};
    if (cap > GPGPU_SPARSE_MAX_INDEX) {
        return GPGPU_ERROR_TOO_LARGE;
    }
    t->row = sparse_alloc(cap, sizeof *t->row);
    t->col = sparse_alloc(cap, sizeof *t->col);
    t->val = sparse_alloc(cap, sizeof *t->val);
    if (t->row == NULL || t->col == NULL || t->val == NULL) {
        sparse_triples_free(t);
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    t->cap_row = t->cap_col = t->cap_val = cap;
    return GPGPU_SUCCESS;
}

gpgpu_status sparse_triples_grow(sparse_triples *t)
{
    size_t needed = t->n + 1;
    if (needed > GPGPU_SPARSE_MAX_INDEX) {
        return GPGPU_ERROR_TOO_LARGE;
    }
    TRY(ctx_reserve(NULL, (void **)&t->row, &t->cap_row, needed, sizeof *t->row));
    TRY(ctx_reserve(NULL, (void **)&t->col, &t->cap_col, needed, sizeof *t->col));
    return ctx_reserve(NULL, (void **)&t->val, &t->cap_val, needed, sizeof *t->val);
}

GPGPU_API const char *gpgpu_format_name(gpgpu_format format)
{
    switch (format) {
    case GPGPU_FORMAT_CSR: return "csr";
    case GPGPU_FORMAT_COO: return "coo";
    case GPGPU_FORMAT_CSC: return "csc";
    case GPGPU_FORMAT_ELL: return "ell";
    case GPGPU_FORMAT_SELL: return "sell";
    case GPGPU_FORMAT_BSR: return "bsr";
    }
    return NULL;
}

GPGPU_API void gpgpu_csr_free(gpgpu_csr *a)
{
    if (a == NULL) {
        return;
    }
    free(a->row_ptr);
    free(a->col_idx);
    free(a->values);
    *a = (gpgpu_csr){0};
}

/* ------------------------------------------------------------------ check */

static gpgpu_status check_row_ptr(const gpgpu_csr *a, char *msg, size_t msg_size)
{
    const gpgpu_status bad = GPGPU_ERROR_INVALID_ARGUMENT;
    if (a->row_ptr[0] != 0) {
        return sparse_fail(msg, msg_size, bad, "row 0: row_ptr[0] is %u, not 0", a->row_ptr[0]);
    }
    for (uint32_t i = 0; i < a->rows; i++) {
        if (a->row_ptr[i + 1] < a->row_ptr[i]) {
            return sparse_fail(msg, msg_size, bad,
                               "row %u: row_ptr[%u] = %u is below row_ptr[%u] = %u (row pointers "
                               "must not decrease)",
                               i, i + 1, a->row_ptr[i + 1], i, a->row_ptr[i]);
        }
    }
    if (a->row_ptr[a->rows] != a->nnz) {
        return sparse_fail(msg, msg_size, bad, "row_ptr[%u] (the last) is %u, not nnz = %zu",
                           a->rows, a->row_ptr[a->rows], a->nnz);
    }
    return GPGPU_SUCCESS;
}

static gpgpu_status check_columns(const gpgpu_csr *a, bool need_sorted, char *msg,
                                  size_t msg_size)
{
    const gpgpu_status bad = GPGPU_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < a->rows; i++) {
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            uint32_t j = a->col_idx[k];
            if (j >= a->cols) {
                return sparse_fail(msg, msg_size, bad,
                                   "row %u, entry %u: column %u is not below cols = %u", i, k, j,
                                   a->cols);
            }
            if (need_sorted && k > a->row_ptr[i] && j <= a->col_idx[k - 1]) {
                return sparse_fail(msg, msg_size, bad,
                                   "row %u, entry %u: column %u after column %u (columns must "
                                   "ascend strictly within a row)",
                                   i, k, j, a->col_idx[k - 1]);
            }
        }
    }
    return GPGPU_SUCCESS;
}

GPGPU_API gpgpu_status gpgpu_csr_check(const gpgpu_csr *a, bool need_sorted, char *msg,
                                       size_t msg_size)
{
    if (a == NULL) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_NULL_POINTER, "the matrix is NULL");
    }
    if (a->rows > GPGPU_SPARSE_MAX_INDEX || a->cols > GPGPU_SPARSE_MAX_INDEX ||
        a->nnz > GPGPU_SPARSE_MAX_INDEX) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_TOO_LARGE,
                           "%ux%u with %zu nonzeros is past 2^31 - 1, the limit of 32-bit "
                           "indices",
                           a->rows, a->cols, a->nnz);
    }
    if (a->row_ptr == NULL || (a->nnz > 0 && (a->col_idx == NULL || a->values == NULL))) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_NULL_POINTER,
                           "row_ptr, and col_idx and values when nnz > 0, are required");
    }
    gpgpu_status s = check_row_ptr(a, msg, msg_size);
    return s != GPGPU_SUCCESS ? s : check_columns(a, need_sorted, msg, msg_size);
}

/* --------------------------------------------------------------- from COO */

static gpgpu_status check_triples(uint32_t rows, uint32_t cols, size_t nnz,
                                  const uint32_t *row, const uint32_t *col, char *msg,
                                  size_t msg_size)
{
    if (rows > GPGPU_SPARSE_MAX_INDEX || cols > GPGPU_SPARSE_MAX_INDEX ||
        nnz > GPGPU_SPARSE_MAX_INDEX) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_TOO_LARGE,
                           "%ux%u with %zu entries is past 2^31 - 1, the limit of 32-bit "
                           "indices",
                           rows, cols, nnz);
    }
    for (size_t k = 0; k < nnz; k++) {
        if (row[k] >= rows || col[k] >= cols) {
            return sparse_fail(msg, msg_size, GPGPU_ERROR_INVALID_ARGUMENT,
                               "entry %zu: (%u, %u) is outside the %ux%u matrix", k, row[k],
                               col[k], rows, cols);
        }
    }
    return GPGPU_SUCCESS;
}

/* Sums the runs of equal columns within each row (they are adjacent once
 * sorted), left to right in the order the triples came. */
static void sum_duplicates(gpgpu_csr *a)
{
    uint32_t w = 0;
    uint32_t start = 0;
    for (uint32_t i = 0; i < a->rows; i++) {
        uint32_t end = a->row_ptr[i + 1];
        uint32_t row_start = w;
        for (uint32_t k = start; k < end; k++) {
            if (w > row_start && a->col_idx[w - 1] == a->col_idx[k]) {
                a->values[w - 1] += a->values[k];
            } else {
                a->col_idx[w] = a->col_idx[k];
                a->values[w] = a->values[k];
                w++;
            }
        }
        a->row_ptr[i + 1] = w;
        start = end;
    }
    if (w < a->nnz) {
        uint32_t *cols = realloc(a->col_idx, (w > 0 ? w : 1) * sizeof *cols);
        double *values = realloc(a->values, (w > 0 ? w : 1) * sizeof *values);
        /* A failed shrink keeps the larger array, which is as good. */
        a->col_idx = cols != NULL ? cols : a->col_idx;
        a->values = values != NULL ? values : a->values;
    }
    a->nnz = w;
}

GPGPU_API gpgpu_status gpgpu_csr_from_coo(uint32_t rows, uint32_t cols, size_t nnz,
                                          const uint32_t *row, const uint32_t *col,
                                          const double *values, gpgpu_csr *out, char *msg,
                                          size_t msg_size)
{
    if (out == NULL || (nnz > 0 && (row == NULL || col == NULL || values == NULL))) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_NULL_POINTER,
                           "out, and row, col and values when nnz > 0, are required");
    }
    *out = (gpgpu_csr){0};
    gpgpu_status s = check_triples(rows, cols, nnz, row, col, msg, msg_size);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    /* By column first, then (stably) by row: the columns come out ascending
     * in each row, in O(nnz + rows + cols) rather than a sort per row. */
    uint32_t *col_ptr = sparse_alloc((size_t)cols + 1, sizeof *col_ptr);
    uint32_t *by_col_row = sparse_alloc(nnz, sizeof *by_col_row);
    uint32_t *by_col_col = sparse_alloc(nnz, sizeof *by_col_col);
    double *by_col_val = sparse_alloc(nnz, sizeof *by_col_val);
    gpgpu_csr a = {.rows = rows, .cols = cols, .nnz = nnz};
    a.row_ptr = sparse_alloc((size_t)rows + 1, sizeof *a.row_ptr);
    a.col_idx = sparse_alloc(nnz, sizeof *a.col_idx);
    a.values = sparse_alloc(nnz, sizeof *a.values);
    bool ok = col_ptr && by_col_row && by_col_col && by_col_val && a.row_ptr && a.col_idx &&
              a.values;
    if (ok) {
        sparse_bucket(nnz, cols, col, row, values, col_ptr, by_col_row, by_col_val);
        sparse_expand_ptr(col_ptr, cols, by_col_col);
        sparse_bucket(nnz, rows, by_col_row, by_col_col, by_col_val, a.row_ptr, a.col_idx,
                      a.values);
        sum_duplicates(&a);
    }
    free(col_ptr);
    free(by_col_row);
    free(by_col_col);
    free(by_col_val);
    if (!ok) {
        gpgpu_csr_free(&a);
        return sparse_fail(msg, msg_size, GPGPU_ERROR_OUT_OF_MEMORY,
                           "out of memory sorting %zu entries", nnz);
    }
    *out = a;
    return GPGPU_SUCCESS;
}

gpgpu_status sparse_triples_to_csr(sparse_triples *t, uint32_t rows, uint32_t cols,
                                   gpgpu_csr *out, char *msg, size_t msg_size)
{
    gpgpu_status s = gpgpu_csr_from_coo(rows, cols, t->n, t->row, t->col, t->val, out, msg,
                                        msg_size);
    sparse_triples_free(t);
    return s;
}

/* ------------------------------------------------------------------ stats */

GPGPU_API gpgpu_status gpgpu_csr_row_stats(const gpgpu_csr *a, gpgpu_row_stats *stats)
{
    if (a == NULL || stats == NULL || a->row_ptr == NULL) {
        return GPGPU_ERROR_NULL_POINTER;
    }
    *stats = (gpgpu_row_stats){0};
    if (a->rows == 0) {
        return GPGPU_SUCCESS;
    }
    stats->min = UINT32_MAX;
    for (uint32_t i = 0; i < a->rows; i++) {
        uint32_t len = a->row_ptr[i + 1] - a->row_ptr[i];
        stats->min = len < stats->min ? len : stats->min;
        stats->max = len > stats->max ? len : stats->max;
        stats->empty_rows += len == 0;
    }
    stats->mean = (double)a->row_ptr[a->rows] / a->rows;
    /* Two passes: E[len^2] - mean^2 cancels badly when rows are alike. */
    double squares = 0;
    for (uint32_t i = 0; i < a->rows; i++) {
        double d = (double)(a->row_ptr[i + 1] - a->row_ptr[i]) - stats->mean;
        squares += d * d;
    }
    stats->stddev = sqrt(squares / a->rows);
    return GPGPU_SUCCESS;
}
