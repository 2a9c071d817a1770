/*
 * Host conversions between the hub CSR and the other formats, in the layouts
 * sparse.h documents (the GPU kernels read them as they are), and the sizes
 * those layouts take on the GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "sparse/sparse_internal.h"

#define PADDING 0xffffffffu

/* Defaults resolved in one place; zero means default. */
static gpgpu_status resolve_params(const gpgpu_format_params *given, gpgpu_format_params *p,
                                   char *msg, size_t msg_size)
{
    *p = given != NULL ? *given : (gpgpu_format_params){0};
    p->sell_c = p->sell_c != 0 ? p->sell_c : 32;
    if (p->sell_sigma == 0) {
        uint64_t sigma = 32 * (uint64_t)p->sell_c;
        p->sell_sigma = sigma > UINT32_MAX ? UINT32_MAX : (uint32_t)sigma;
    }
    p->bsr_block = p->bsr_block != 0 ? p->bsr_block : 4;
    p->ell_max_fill = p->ell_max_fill != 0 ? p->ell_max_fill : 8;
    if (p->sell_c > GPGPU_SELL_MAX_C || p->bsr_block > GPGPU_BSR_MAX_BLOCK) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_INVALID_ARGUMENT,
                           "sell_c %u or bsr_block %u is past its maximum (%u, %u)", p->sell_c,
                           p->bsr_block, GPGPU_SELL_MAX_C, GPGPU_BSR_MAX_BLOCK);
    }
    if (!(p->ell_max_fill >= 1)) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_INVALID_ARGUMENT,
                           "ell_max_fill is %g; it must be at least 1 (or 0 for the default 8)",
                           p->ell_max_fill);
    }
    return GPGPU_SUCCESS;
}

static uint32_t row_length(const gpgpu_csr *a, uint32_t i)
{
    return a->row_ptr[i + 1] - a->row_ptr[i];
}

static gpgpu_status out_of_memory(char *msg, size_t msg_size, const char *what)
{
    return sparse_fail(msg, msg_size, GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %s", what);
}

static gpgpu_status too_many_stored(const gpgpu_sparse *sp, size_t stored, char *msg,
                                    size_t msg_size)
{
    return sparse_fail(msg, msg_size, GPGPU_ERROR_TOO_LARGE,
                       "%s of this %ux%u matrix would store %zu entries, past 2^31 - 1",
                       gpgpu_format_name(sp->format), sp->rows, sp->cols, stored);
}

/* ------------------------------------------------------------------- SELL */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* perm: rows by length, longest first, within windows of sigma rows; equal
 * lengths keep their order so that the permutation is reproducible. */
static gpgpu_status sell_sort(const gpgpu_csr *a, uint32_t sigma, uint32_t *perm)
{
    size_t window = sigma < a->rows ? sigma : a->rows;
    uint64_t *keys = sparse_alloc(window, sizeof *keys);
    if (keys == NULL) {
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    for (size_t start = 0; start < a->rows; start += window) {
        size_t n = a->rows - start < window ? a->rows - start : window;
        for (size_t k = 0; k < n; k++) {
            uint32_t i = (uint32_t)(start + k);
            keys[k] = (uint64_t)(UINT32_MAX - row_length(a, i)) << 32 | i;
        }
        if (sigma > 1) {
            qsort(keys, n, sizeof *keys, compare_u64);
        }
        for (size_t k = 0; k < n; k++) {
            perm[start + k] = (uint32_t)keys[k];
        }
    }
    free(keys);
    return GPGPU_SUCCESS;
}

/* perm, slice widths and slice pointers: all of SELL but its entries. */
static gpgpu_status measure_sell(const gpgpu_csr *a, const gpgpu_format_params *p,
                                 gpgpu_sparse *sp, char *msg, size_t msg_size)
{
    uint32_t c = p->sell_c;
    size_t slices = ((size_t)a->rows + c - 1) / c;
    sp->c = c;
    sp->sigma = p->sell_sigma;
    sp->ptr_count = slices + 1;
    sp->perm = sparse_alloc(a->rows, sizeof *sp->perm);
    sp->slice_width = sparse_alloc(slices, sizeof *sp->slice_width);
    sp->ptr = sparse_alloc(slices + 1, sizeof *sp->ptr);
    if (sp->perm == NULL || sp->slice_width == NULL || sp->ptr == NULL ||
        sell_sort(a, p->sell_sigma, sp->perm) != GPGPU_SUCCESS) {
        return out_of_memory(msg, msg_size, "the SELL slices");
    }
    size_t stored = 0;
    for (size_t s = 0; s < slices; s++) {
        uint32_t width = 0;
        for (size_t i = s * c; i < a->rows && i < (s + 1) * c; i++) {
            uint32_t len = row_length(a, sp->perm[i]);
            width = len > width ? len : width;
        }
        sp->slice_width[s] = width;
        sp->ptr[s] = (uint32_t)stored;
        /* Every slice holds c rows, the last one's phantom rows as padding. */
        stored += (size_t)c * width;
        if (stored > GPGPU_SPARSE_MAX_INDEX) {
            return too_many_stored(sp, stored, msg, msg_size);
        }
    }
    sp->ptr[slices] = (uint32_t)stored;
    sp->stored = stored;
    return GPGPU_SUCCESS;
}

static void fill_sell(const gpgpu_csr *a, gpgpu_sparse *sp)
{
    uint32_t c = sp->c;
    for (size_t i = 0; i < a->rows; i++) {
        uint32_t s = (uint32_t)(i / c), r = (uint32_t)(i % c);
        uint32_t orig = sp->perm[i];
        for (uint32_t k = 0; k < row_length(a, orig); k++) {
            size_t at = sp->ptr[s] + (size_t)k * c + r;
            sp->idx[at] = a->col_idx[a->row_ptr[orig] + k];
            sp->values[at] = a->values[a->row_ptr[orig] + k];
        }
    }
}

/* -------------------------------------------------------------------- BSR */

typedef struct bsr_scan {
    uint32_t b, block_cols;
    uint32_t *stamp; /* [block_cols]: 1 + the last block row that used the block column */
    uint32_t *list;  /* the block columns of the current block row */
} bsr_scan;

/* The distinct block columns of block row br, in list, in the order met. */
static uint32_t bsr_block_row(const gpgpu_csr *a, bsr_scan *scan, uint32_t br)
{
    uint32_t count = 0;
    size_t end = (size_t)(br + 1) * scan->b < a->rows ? (size_t)(br + 1) * scan->b : a->rows;
    for (size_t i = (size_t)br * scan->b; i < end; i++) {
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            uint32_t bc = a->col_idx[k] / scan->b;
            if (scan->stamp[bc] != br + 1) {
                scan->stamp[bc] = br + 1;
                scan->list[count++] = bc;
            }
        }
    }
    return count;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static gpgpu_status bsr_scan_init(const gpgpu_csr *a, uint32_t b, bsr_scan *scan)
{
    scan->b = b;
    scan->block_cols = (uint32_t)(((size_t)a->cols + b - 1) / b);
    scan->stamp = calloc((size_t)scan->block_cols + 1, sizeof *scan->stamp);
    size_t most = a->nnz < scan->block_cols ? a->nnz : scan->block_cols;
    scan->list = sparse_alloc(most, sizeof *scan->list);
    return scan->stamp != NULL && scan->list != NULL ? GPGPU_SUCCESS : GPGPU_ERROR_OUT_OF_MEMORY;
}

static void bsr_scan_free(bsr_scan *scan)
{
    free(scan->stamp);
    free(scan->list);
}

static gpgpu_status measure_bsr(const gpgpu_csr *a, const gpgpu_format_params *p,
                                gpgpu_sparse *sp, char *msg, size_t msg_size)
{
    uint32_t b = p->bsr_block;
    uint32_t block_rows = (uint32_t)(((size_t)a->rows + b - 1) / b);
    bsr_scan scan = {0};
    sp->block = b;
    sp->ptr_count = (size_t)block_rows + 1;
    sp->ptr = sparse_alloc(sp->ptr_count, sizeof *sp->ptr);
    if (sp->ptr == NULL || bsr_scan_init(a, b, &scan) != GPGPU_SUCCESS) {
        bsr_scan_free(&scan);
        return out_of_memory(msg, msg_size, "the BSR block rows");
    }
    sp->ptr[0] = 0;
    for (uint32_t br = 0; br < block_rows; br++) {
        /* At most nnz blocks, so the u32 pointers cannot overflow. */
        sp->ptr[br + 1] = sp->ptr[br] + bsr_block_row(a, &scan, br);
    }
    bsr_scan_free(&scan);
    size_t blocks = sp->ptr[block_rows];
    uint64_t area = (uint64_t)b * b;
    if (blocks > 0 && area > GPGPU_SPARSE_MAX_INDEX / blocks) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_TOO_LARGE,
                           "bsr of this %ux%u matrix would store %zu blocks of %ux%u, past 2^31 "
                           "- 1 entries",
                           a->rows, a->cols, blocks, b, b);
    }
    sp->stored = blocks * (size_t)area;
    return GPGPU_SUCCESS;
}

static gpgpu_status fill_bsr(const gpgpu_csr *a, gpgpu_sparse *sp)
{
    uint32_t b = sp->block;
    bsr_scan scan = {0};
    /* slot[bc]: where block column bc sits in the current block row. */
    uint32_t *slot = NULL;
    gpgpu_status s = bsr_scan_init(a, b, &scan);
    if (s == GPGPU_SUCCESS) {
        slot = sparse_alloc(scan.block_cols, sizeof *slot);
        s = slot != NULL ? GPGPU_SUCCESS : GPGPU_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t br = 0; s == GPGPU_SUCCESS && br + 1 < sp->ptr_count; br++) {
        uint32_t count = bsr_block_row(a, &scan, br);
        qsort(scan.list, count, sizeof *scan.list, compare_u32);
        for (uint32_t n = 0; n < count; n++) {
            slot[scan.list[n]] = sp->ptr[br] + n;
            sp->idx[sp->ptr[br] + n] = scan.list[n];
        }
        size_t end = (size_t)(br + 1) * b < a->rows ? (size_t)(br + 1) * b : a->rows;
        for (size_t i = (size_t)br * b; i < end; i++) {
            for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
                uint32_t j = a->col_idx[k];
                size_t block = slot[j / b];
                sp->values[block * b * b + (i % b) * b + j % b] = a->values[k];
            }
        }
    }
    free(slot);
    bsr_scan_free(&scan);
    return s;
}

/* --------------------------------------------------------------- measure */

/* Everything the conversion decides before it copies entries: stored, ptr_count, the
 * format's scalars, and for SELL and BSR their pointer arrays (and SELL's perm). ELL is
 * measured even past its fill limit and past 2^31 - 1 entries (the caller decides). */
static gpgpu_status measure(const gpgpu_csr *a, gpgpu_format format,
                            const gpgpu_format_params *p, gpgpu_sparse *sp, char *msg,
                            size_t msg_size)
{
    *sp = (gpgpu_sparse){.format = format, .rows = a->rows, .cols = a->cols, .nnz = a->nnz,
                         .stored = a->nnz};
    switch (format) {
    case GPGPU_FORMAT_CSR: sp->ptr_count = (size_t)a->rows + 1; return GPGPU_SUCCESS;
    case GPGPU_FORMAT_CSC: sp->ptr_count = (size_t)a->cols + 1; return GPGPU_SUCCESS;
    case GPGPU_FORMAT_COO: return GPGPU_SUCCESS;
    case GPGPU_FORMAT_ELL:
        for (uint32_t i = 0; i < a->rows; i++) {
            sp->width = row_length(a, i) > sp->width ? row_length(a, i) : sp->width;
        }
        sp->stored = (size_t)a->rows * sp->width;
        return GPGPU_SUCCESS;
    case GPGPU_FORMAT_SELL: return measure_sell(a, p, sp, msg, msg_size);
    case GPGPU_FORMAT_BSR: return measure_bsr(a, p, sp, msg, msg_size);
    }
    return sparse_fail(msg, msg_size, GPGPU_ERROR_INVALID_ARGUMENT, "unknown format %d",
                       (int)format);
}

/* The CSR must be fit for every format: checked, sorted, within 32-bit indices. */
static gpgpu_status prepare(const gpgpu_csr *a, gpgpu_format format,
                            const gpgpu_format_params *params, gpgpu_sparse *sp, char *msg,
                            size_t msg_size)
{
    *sp = (gpgpu_sparse){0};
    gpgpu_format_params p;
    gpgpu_status s = gpgpu_csr_check(a, true, msg, msg_size);
    if (s == GPGPU_SUCCESS) {
        s = resolve_params(params, &p, msg, msg_size);
    }
    if (s == GPGPU_SUCCESS) {
        s = measure(a, format, &p, sp, msg, msg_size);
    }
    bool ell = format == GPGPU_FORMAT_ELL;
    if (s == GPGPU_SUCCESS && ell && (double)sp->stored > (double)sp->nnz * p.ell_max_fill) {
        s = sparse_fail(msg, msg_size, GPGPU_ERROR_TOO_LARGE,
                        "ell pads every row to the longest (%u entries): %zu stored for %zu "
                        "nonzeros is past ell_max_fill = %g times nnz; use SELL or CSR for a "
                        "matrix with such uneven rows",
                        sp->width, sp->stored, sp->nnz, p.ell_max_fill);
    }
    if (s == GPGPU_SUCCESS && sp->stored > GPGPU_SPARSE_MAX_INDEX) {
        s = too_many_stored(sp, sp->stored, msg, msg_size);
    }
    if (s != GPGPU_SUCCESS) {
        gpgpu_sparse_free(sp);
    }
    return s;
}

/* ---------------------------------------------------------------- convert */

static gpgpu_status fill_csc(const gpgpu_csr *a, gpgpu_sparse *sp)
{
    uint32_t *rows = sparse_alloc(a->nnz, sizeof *rows);
    if (rows == NULL) {
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    sparse_expand_ptr(a->row_ptr, a->rows, rows);
    sparse_bucket(a->nnz, a->cols, a->col_idx, rows, a->values, sp->ptr, sp->idx, sp->values);
    free(rows);
    return GPGPU_SUCCESS;
}

static void fill_ell(const gpgpu_csr *a, gpgpu_sparse *sp)
{
    for (uint32_t i = 0; i < a->rows; i++) {
        for (uint32_t k = 0; k < row_length(a, i); k++) {
            size_t at = (size_t)k * a->rows + i;
            sp->idx[at] = a->col_idx[a->row_ptr[i] + k];
            sp->values[at] = a->values[a->row_ptr[i] + k];
        }
    }
}

static gpgpu_status fill(const gpgpu_csr *a, gpgpu_sparse *sp)
{
    switch (sp->format) {
    case GPGPU_FORMAT_CSR:
        memcpy(sp->ptr, a->row_ptr, sp->ptr_count * sizeof *sp->ptr);
        memcpy(sp->idx, a->col_idx, a->nnz * sizeof *sp->idx);
        memcpy(sp->values, a->values, a->nnz * sizeof *sp->values);
        return GPGPU_SUCCESS;
    case GPGPU_FORMAT_COO:
        sparse_expand_ptr(a->row_ptr, a->rows, sp->row);
        memcpy(sp->idx, a->col_idx, a->nnz * sizeof *sp->idx);
        memcpy(sp->values, a->values, a->nnz * sizeof *sp->values);
        return GPGPU_SUCCESS;
    case GPGPU_FORMAT_CSC: return fill_csc(a, sp);
    case GPGPU_FORMAT_ELL: fill_ell(a, sp); return GPGPU_SUCCESS;
    case GPGPU_FORMAT_SELL: fill_sell(a, sp); return GPGPU_SUCCESS;
    case GPGPU_FORMAT_BSR: return fill_bsr(a, sp);
    }
    return GPGPU_ERROR_INVALID_ARGUMENT;
}

/* The entry arrays; padding reads as column PADDING, value 0. */
static bool alloc_entries(gpgpu_sparse *sp)
{
    size_t idx_count = sp->format == GPGPU_FORMAT_BSR ? sp->ptr[sp->ptr_count - 1] : sp->stored;
    bool padded = sp->format == GPGPU_FORMAT_ELL || sp->format == GPGPU_FORMAT_SELL;
    if (sp->ptr == NULL && sp->ptr_count > 0) {
        sp->ptr = sparse_alloc(sp->ptr_count, sizeof *sp->ptr);
    }
    if (sp->format == GPGPU_FORMAT_COO) {
        sp->row = sparse_alloc(sp->nnz, sizeof *sp->row);
    }
    sp->idx = sparse_alloc(idx_count, sizeof *sp->idx);
    sp->values = calloc(sp->stored > 0 ? sp->stored : 1, sizeof *sp->values);
    if ((sp->ptr_count > 0 && sp->ptr == NULL) || (sp->format == GPGPU_FORMAT_COO && !sp->row) ||
        sp->idx == NULL || sp->values == NULL) {
        return false;
    }
    if (padded) {
        memset(sp->idx, 0xff, idx_count * sizeof *sp->idx);
    }
    return true;
}

GPGPU_API gpgpu_status gpgpu_sparse_from_csr(const gpgpu_csr *a, gpgpu_format format,
                                             const gpgpu_format_params *params,
                                             gpgpu_sparse *out, char *msg, size_t msg_size)
{
    if (out == NULL) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_NULL_POINTER, "out is NULL");
    }
    gpgpu_sparse sp;
    gpgpu_status s = prepare(a, format, params, &sp, msg, msg_size);
    *out = (gpgpu_sparse){0};
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    if (!alloc_entries(&sp) || fill(a, &sp) != GPGPU_SUCCESS) {
        gpgpu_sparse_free(&sp);
        return out_of_memory(msg, msg_size, "the converted matrix");
    }
    *out = sp;
    return GPGPU_SUCCESS;
}

GPGPU_API void gpgpu_sparse_free(gpgpu_sparse *a)
{
    if (a == NULL) {
        return;
    }
    free(a->ptr);
    free(a->idx);
    free(a->row);
    free(a->slice_width);
    free(a->perm);
    free(a->values);
    *a = (gpgpu_sparse){0};
}

GPGPU_API gpgpu_status gpgpu_format_bytes(const gpgpu_csr *a, gpgpu_format format,
                                          const gpgpu_format_params *params, gpgpu_type type,
                                          size_t *bytes, size_t *stored)
{
    if (bytes == NULL) {
        return GPGPU_ERROR_NULL_POINTER;
    }
    if (type != GPGPU_TYPE_F32 && type != GPGPU_TYPE_F64) {
        return GPGPU_ERROR_INVALID_ARGUMENT;
    }
    gpgpu_format_params p = params != NULL ? *params : (gpgpu_format_params){0};
    /* The fill limit does not apply here: the size is what the caller asks about. */
    p.ell_max_fill = (double)SIZE_MAX;
    gpgpu_sparse sp;
    gpgpu_status s = prepare(a, format, &p, &sp, NULL, 0);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    size_t value_size = type == GPGPU_TYPE_F32 ? 4 : 8;
    size_t idx_count = format == GPGPU_FORMAT_BSR ? sp.ptr[sp.ptr_count - 1] : sp.stored;
    size_t u32_count = sp.ptr_count + idx_count;
    if (format == GPGPU_FORMAT_COO) {
        u32_count += sp.nnz; /* row */
    }
    if (format == GPGPU_FORMAT_SELL) {
        u32_count += (sp.ptr_count - 1) + sp.rows; /* slice_width, perm */
    }
    *bytes = u32_count * 4 + sp.stored * value_size;
    if (stored != NULL) {
        *stored = sp.stored;
    }
    gpgpu_sparse_free(&sp);
    return GPGPU_SUCCESS;
}

/* --------------------------------------------------------------- to CSR */

/* Checks a compressed pointer array against the entries it indexes. */
static bool ptr_ok(const uint32_t *ptr, size_t count, size_t end)
{
    if (count == 0 || ptr[0] != 0 || ptr[count - 1] != end) {
        return false;
    }
    for (size_t k = 0; k + 1 < count; k++) {
        if (ptr[k + 1] < ptr[k]) {
            return false;
        }
    }
    return true;
}

static bool gather_compressed(const gpgpu_sparse *a, uint32_t lines, bool by_column,
                              sparse_triples *t)
{
    for (uint32_t l = 0; l < lines; l++) {
        for (uint32_t k = a->ptr[l]; k < a->ptr[l + 1]; k++) {
            bool ok = by_column ? sparse_triples_add(t, a->idx[k], l, a->values[k])
                                : sparse_triples_add(t, l, a->idx[k], a->values[k]);
            if (!ok) {
                return false;
            }
        }
    }
    return true;
}

static bool gather_padded(const gpgpu_sparse *a, uint32_t i, size_t at, sparse_triples *t)
{
    return a->idx[at] == PADDING || sparse_triples_add(t, i, a->idx[at], a->values[at]);
}

static bool gather_ell(const gpgpu_sparse *a, sparse_triples *t)
{
    for (uint32_t i = 0; i < a->rows; i++) {
        for (size_t k = 0; k < a->width; k++) {
            if (!gather_padded(a, i, k * a->rows + i, t)) {
                return false;
            }
        }
    }
    return true;
}

static bool gather_sell(const gpgpu_sparse *a, sparse_triples *t)
{
    for (size_t i = 0; i < a->rows; i++) {
        size_t s = i / a->c, r = i % a->c;
        for (size_t k = 0; k < a->slice_width[s]; k++) {
            if (!gather_padded(a, a->perm[i], a->ptr[s] + k * a->c + r, t)) {
                return false;
            }
        }
    }
    return true;
}

/* Every block entry but +0.0, the fill: a block cannot tell an explicit zero from it. */
static bool gather_bsr(const gpgpu_sparse *a, sparse_triples *t)
{
    static const double fill_zero = 0.0;
    size_t b = a->block;
    for (size_t br = 0; br + 1 < a->ptr_count; br++) {
        for (size_t blk = a->ptr[br]; blk < a->ptr[br + 1]; blk++) {
            for (size_t e = 0; e < b * b; e++) {
                double v = a->values[blk * b * b + e];
                size_t i = br * b + e / b, j = (size_t)a->idx[blk] * b + e % b;
                bool fill = memcmp(&v, &fill_zero, sizeof v) == 0;
                if (!fill && !sparse_triples_add(t, (uint32_t)i, (uint32_t)j, v)) {
                    return false;
                }
            }
        }
    }
    return true;
}

/* Block columns below ceil(cols / b): a larger one would put an entry's column past
 * 2^32, where it wraps back into the matrix instead of being refused. */
static bool block_columns_ok(const gpgpu_sparse *a)
{
    size_t block_cols = ((size_t)a->cols + a->block - 1) / a->block;
    size_t blocks = a->ptr[a->ptr_count - 1];
    for (size_t k = 0; k < blocks; k++) {
        if (a->idx[k] >= block_cols) {
            return false;
        }
    }
    return true;
}

/* The arrays each format needs, consistent with its sizes, so gathering stays in bounds. */
static bool layout_ok(const gpgpu_sparse *a)
{
    size_t b = a->block, c = a->c;
    switch (a->format) {
    case GPGPU_FORMAT_CSR:
        return a->ptr_count == (size_t)a->rows + 1 && ptr_ok(a->ptr, a->ptr_count, a->stored);
    case GPGPU_FORMAT_CSC:
        return a->ptr_count == (size_t)a->cols + 1 && ptr_ok(a->ptr, a->ptr_count, a->stored);
    case GPGPU_FORMAT_COO: return a->row != NULL && a->stored == a->nnz;
    case GPGPU_FORMAT_ELL: return a->stored == (size_t)a->rows * a->width;
    case GPGPU_FORMAT_SELL:
        if (c == 0 || a->perm == NULL || a->slice_width == NULL ||
            a->ptr_count != ((size_t)a->rows + c - 1) / c + 1 ||
            !ptr_ok(a->ptr, a->ptr_count, a->stored)) {
            return false;
        }
        for (size_t s = 0; s + 1 < a->ptr_count; s++) {
            if (a->ptr[s + 1] - a->ptr[s] != c * a->slice_width[s]) {
                return false;
            }
        }
        return true;
    case GPGPU_FORMAT_BSR:
        return b > 0 && a->ptr_count == ((size_t)a->rows + b - 1) / b + 1 &&
               ptr_ok(a->ptr, a->ptr_count, a->stored / (b * b)) &&
               a->stored == (size_t)a->ptr[a->ptr_count - 1] * b * b &&
               block_columns_ok(a);
    }
    return false;
}

/* The entries, at most the struct's nnz of them (t's room): a caller's struct
 * that holds more is refused, never overrun. */
static bool gather(const gpgpu_sparse *a, sparse_triples *t)
{
    switch (a->format) {
    case GPGPU_FORMAT_CSR: return gather_compressed(a, a->rows, false, t);
    case GPGPU_FORMAT_CSC: return gather_compressed(a, a->cols, true, t);
    case GPGPU_FORMAT_COO:
        for (size_t k = 0; k < a->nnz; k++) {
            sparse_triples_add(t, a->row[k], a->idx[k], a->values[k]);
        }
        return true;
    case GPGPU_FORMAT_ELL: return gather_ell(a, t);
    case GPGPU_FORMAT_SELL: return gather_sell(a, t);
    case GPGPU_FORMAT_BSR: return gather_bsr(a, t);
    }
    return false;
}

GPGPU_API gpgpu_status gpgpu_sparse_to_csr(const gpgpu_sparse *a, gpgpu_csr *out, char *msg,
                                           size_t msg_size)
{
    if (a == NULL || out == NULL) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_NULL_POINTER, "a and out are required");
    }
    *out = (gpgpu_csr){0};
    if (gpgpu_format_name(a->format) == NULL) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_INVALID_ARGUMENT, "unknown format %d",
                           (int)a->format);
    }
    /* Before any loop: rows alone set how long ELL and SELL gathers run. */
    if (a->rows > GPGPU_SPARSE_MAX_INDEX || a->cols > GPGPU_SPARSE_MAX_INDEX ||
        a->nnz > GPGPU_SPARSE_MAX_INDEX || a->stored > GPGPU_SPARSE_MAX_INDEX) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_TOO_LARGE,
                           "%ux%u with %zu nonzeros, %zu stored: past 2^31 - 1", a->rows,
                           a->cols, a->nnz, a->stored);
    }
    if ((a->ptr_count > 0 && a->ptr == NULL) || a->idx == NULL || a->values == NULL) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_NULL_POINTER,
                           "the %s arrays are missing", gpgpu_format_name(a->format));
    }
    if (!layout_ok(a)) {
        return sparse_fail(msg, msg_size, GPGPU_ERROR_INVALID_ARGUMENT,
                           "the %s arrays do not match its sizes (rows %u, cols %u, stored %zu)",
                           gpgpu_format_name(a->format), a->rows, a->cols, a->stored);
    }
    sparse_triples t;
    if (sparse_triples_init(&t, a->nnz) != GPGPU_SUCCESS) {
        return out_of_memory(msg, msg_size, "the entries");
    }
    if (!gather(a, &t)) {
        sparse_triples_free(&t);
        return sparse_fail(msg, msg_size, GPGPU_ERROR_INVALID_ARGUMENT,
                           "the %s arrays hold more than nnz = %zu entries",
                           gpgpu_format_name(a->format), a->nnz);
    }
    return sparse_triples_to_csr(&t, a->rows, a->cols, out, msg, msg_size);
}
