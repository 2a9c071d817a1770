/* The host sparse checks and conversions on arrays as a caller could pass
 * them. The first byte picks the entry point:
 *   0: gpgpu_csr_check of raw arrays;
 *   1: gpgpu_csr_from_coo of raw triples;
 *   2: gpgpu_sparse_to_csr of a raw gpgpu_sparse of any format;
 *   3: a valid CSR (row lengths and columns from the input) through every
 *      format with the input's parameters and back: it must come back equal.
 * Arrays are exactly as long as the sizes say (the contract), so an overrun
 * is the library's. Counts stay small unless they pass 2^31 - 1, which must
 * be refused before any array is read. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "gpgpu/sparse.h"

enum { SMALL = 1024 };

/* A row or column count: small, or past 2^31 - 1 when the top bit is set. */
static uint32_t take_dim(fuzz_input *in)
{
    uint32_t v = fuzz_u32(in);
    return v > GPGPU_SPARSE_MAX_INDEX ? v : v % (SMALL + 1);
}

/* n u32s from the input, each below `below` when below > 0. */
static uint32_t *take_u32s(fuzz_input *in, size_t n, uint32_t below)
{
    uint32_t *v = malloc((n > 0 ? n : 1) * sizeof *v);
    for (size_t k = 0; v != NULL && k < n; k++) {
        v[k] = below > 0 ? fuzz_u32(in) % below : fuzz_u32(in);
    }
    return v;
}

/* Values never +0.0, which BSR cannot tell from its fill. */
static double *take_values(fuzz_input *in, size_t n)
{
    double *v = malloc((n > 0 ? n : 1) * sizeof *v);
    for (size_t k = 0; v != NULL && k < n; k++) {
        v[k] = (double)(int8_t)fuzz_u8(in) + 0.5;
    }
    return v;
}

static void csr_check(fuzz_input *in)
{
    gpgpu_csr a = {.rows = take_dim(in), .cols = take_dim(in), .nnz = fuzz_u32(in) % SMALL};
    size_t ptrs = a.rows <= SMALL ? (size_t)a.rows + 1 : 1;
    bool sorted = fuzz_u8(in) & 1;
    a.row_ptr = take_u32s(in, ptrs, (uint32_t)a.nnz + 2);
    a.col_idx = take_u32s(in, a.nnz, a.cols + 2);
    a.values = take_values(in, a.nnz);
    gpgpu_status s = gpgpu_csr_check(&a, sorted, NULL, 0);
    if (s == GPGPU_SUCCESS && a.rows > SMALL) {
        abort(); /* the arrays were not that long: it must have said TOO_LARGE */
    }
    gpgpu_csr_free(&a);
}

static void from_coo(fuzz_input *in)
{
    uint32_t rows = take_dim(in), cols = take_dim(in);
    size_t nnz = fuzz_u32(in) % SMALL;
    uint32_t *row = take_u32s(in, nnz, rows <= SMALL ? rows + 2 : 0);
    uint32_t *col = take_u32s(in, nnz, cols <= SMALL ? cols + 2 : 0);
    double *val = take_values(in, nnz);
    gpgpu_csr out;
    if (gpgpu_csr_from_coo(rows, cols, nnz, row, col, val, &out, NULL, 0) == GPGPU_SUCCESS &&
        gpgpu_csr_check(&out, true, NULL, 0) != GPGPU_SUCCESS) {
        abort();
    }
    gpgpu_csr_free(&out);
    free(row);
    free(col);
    free(val);
}

/* Every array of a gpgpu_sparse, each as long as the sizes make it for any format. */
static void to_csr(fuzz_input *in)
{
    gpgpu_sparse a = {
        .format = (gpgpu_format)(fuzz_u8(in) % 8),
        .rows = take_dim(in),
        .cols = take_dim(in),
        .nnz = fuzz_u32(in) % SMALL,
        .stored = fuzz_u32(in) % (4 * SMALL),
        .width = fuzz_u32(in),
        .c = fuzz_u32(in),
        .sigma = fuzz_u32(in),
        .block = fuzz_u32(in),
        .ptr_count = fuzz_u32(in) % SMALL,
    };
    /* Small numbers often enough to pass the layout checks. */
    if (fuzz_u8(in) & 1) {
        a.width %= 64, a.c %= 64, a.block %= 16;
    }
    size_t rows = a.rows <= SMALL ? a.rows : 0;
    a.ptr = take_u32s(in, a.ptr_count, (uint32_t)a.stored + 2);
    a.idx = take_u32s(in, a.stored, fuzz_u8(in) & 1 ? 0 : a.cols + 2);
    a.row = take_u32s(in, a.nnz, rows + 2);
    a.slice_width = take_u32s(in, a.ptr_count, 64);
    a.perm = take_u32s(in, rows, (uint32_t)rows + 2);
    a.values = take_values(in, a.stored);
    gpgpu_csr out;
    gpgpu_status s = gpgpu_sparse_to_csr(&a, &out, NULL, 0);
    if (s == GPGPU_SUCCESS && (gpgpu_csr_check(&out, true, NULL, 0) != GPGPU_SUCCESS ||
                               out.nnz > a.nnz || a.rows > SMALL || a.cols > SMALL)) {
        abort();
    }
    gpgpu_csr_free(&out);
    gpgpu_sparse_free(&a); /* every array malloc'ed above, as the library's own */
}

static bool same_csr(const gpgpu_csr *a, const gpgpu_csr *b)
{
    return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz &&
           memcmp(a->row_ptr, b->row_ptr, ((size_t)a->rows + 1) * sizeof *a->row_ptr) == 0 &&
           memcmp(a->col_idx, b->col_idx, a->nnz * sizeof *a->col_idx) == 0 &&
           memcmp(a->values, b->values, a->nnz * sizeof *a->values) == 0;
}

/* A valid CSR: rows of up to 16 entries at distinct columns. */
static void round_trip(fuzz_input *in)
{
    uint32_t rows = fuzz_u32(in) % 257, cols = fuzz_u32(in) % 257 + 1;
    gpgpu_format_params p = {
        .sell_c = fuzz_u32(in),
        .sell_sigma = fuzz_u32(in),
        .bsr_block = fuzz_u32(in),
        .ell_max_fill = (double)fuzz_u8(in),
    };
    if (fuzz_u8(in) & 1) {
        p.sell_c %= 70, p.sell_sigma %= 300, p.bsr_block %= 70;
    }
    uint32_t *row = NULL, *col = NULL;
    double *val = NULL;
    size_t nnz = 0;
    row = malloc(((size_t)rows * 16 + 1) * sizeof *row);
    col = malloc(((size_t)rows * 16 + 1) * sizeof *col);
    if (row == NULL || col == NULL) {
        abort();
    }
    /* Distinct columns: a duplicate could sum to +0.0, which BSR drops. */
    for (uint32_t i = 0; i < rows; i++) {
        uint32_t len = fuzz_u8(in) % 17, j = fuzz_u8(in) % cols;
        for (uint32_t k = 0; k < len && j < cols; k++, nnz++) {
            row[nnz] = i;
            col[nnz] = j;
            j += 1 + fuzz_u8(in) % 8;
        }
    }
    val = take_values(in, nnz);
    gpgpu_csr a;
    if (gpgpu_csr_from_coo(rows, cols, nnz, row, col, val, &a, NULL, 0) != GPGPU_SUCCESS) {
        abort();
    }
    for (gpgpu_format f = GPGPU_FORMAT_CSR; f <= GPGPU_FORMAT_BSR; f++) {
        gpgpu_sparse sp;
        gpgpu_csr back;
        size_t bytes;
        gpgpu_status s = gpgpu_sparse_from_csr(&a, f, &p, &sp, NULL, 0);
        gpgpu_status sb = gpgpu_format_bytes(&a, f, &p, GPGPU_TYPE_F32, &bytes, NULL);
        if (s == GPGPU_SUCCESS &&
            (sb != GPGPU_SUCCESS || gpgpu_sparse_to_csr(&sp, &back, NULL, 0) != GPGPU_SUCCESS ||
             !same_csr(&a, &back))) {
            abort();
        }
        if (s == GPGPU_SUCCESS) {
            gpgpu_csr_free(&back);
        }
        gpgpu_sparse_free(&sp);
    }
    gpgpu_csr_free(&a);
    free(row);
    free(col);
    free(val);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    switch (fuzz_u8(&in) % 4) {
    case 0: csr_check(&in); break;
    case 1: from_coo(&in); break;
    case 2: to_csr(&in); break;
    default: round_trip(&in); break;
    }
    return 0;
}
