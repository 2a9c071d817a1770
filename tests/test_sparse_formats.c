/*
 * Tests of the host sparse code: every format round-trips CSR -> F -> CSR
 * exactly and computes the same SpMV as ref_spmv_csr, on every file of
 * GPGPU_MATRIX_DIR (tests/matrices/matrices.py) and on gpgpu_generate's
 * matrices; the layouts are checked literally as sparse.h states
 * them; gpgpu_csr_check, gpgpu_csr_from_coo, the row statistics and the
 * generators. Exit status 0 when every check passes.
 *
 * Just over 800 lines as one concern: the host formats, each section one
 * property of all of them.
 */
#include "gpgpu/io.h"
#include "gpgpu/sparse.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_test.h"
#include "ref/ref.h"

#define PAD 0xffffffffu

/* Conversions storing more than this are only measured (test time and memory). */
enum { MAX_STORED_TESTED = 40 * 1000 * 1000 };

typedef struct format_case {
    gpgpu_format format;
    gpgpu_format_params params;
} format_case;

static const format_case cases[] = {
    {GPGPU_FORMAT_CSR, {0}},
    {GPGPU_FORMAT_COO, {0}},
    {GPGPU_FORMAT_CSC, {0}},
    {GPGPU_FORMAT_ELL, {0}},
    {GPGPU_FORMAT_ELL, {.ell_max_fill = 1e6}},
    {GPGPU_FORMAT_SELL, {0}},
    {GPGPU_FORMAT_SELL, {.sell_c = 1, .sell_sigma = 1}},
    {GPGPU_FORMAT_SELL, {.sell_c = 4, .sell_sigma = 1}},
    {GPGPU_FORMAT_SELL, {.sell_c = 3, .sell_sigma = 7}},
    {GPGPU_FORMAT_SELL, {.sell_c = 8, .sell_sigma = 1u << 30}},
    {GPGPU_FORMAT_BSR, {0}},
    {GPGPU_FORMAT_BSR, {.bsr_block = 1}},
    {GPGPU_FORMAT_BSR, {.bsr_block = 3}},
    {GPGPU_FORMAT_BSR, {.bsr_block = 8}},
};
enum { CASES = sizeof cases / sizeof *cases };

static const char *label;  /* the matrix under test, for the failure messages */

static void note(const format_case *fc)
{
    fprintf(stderr, "  matrix %s, format %s (c %u, sigma %u, b %u, fill %g)\n", label,
            gpgpu_format_name(fc->format), fc->params.sell_c, fc->params.sell_sigma,
            fc->params.bsr_block, fc->params.ell_max_fill);
}

static double random_unit(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return (double)(*state >> 11) * 0x1p-53 * 2 - 1;
}

/* ------------------------------------------------------ SpMV per layout */

/* Each reads its layout as sparse.h describes it, summing a row's entries left to right from
 * 0 as ref_spmv_csr does, so the results must be equal (==: BSR's fill adds zeros, which can
 * only turn a -0 sum into +0). */
static void finish_rows(uint32_t rows, const double *sum, double alpha, double beta, double *y)
{
    for (uint32_t i = 0; i < rows; i++) {
        y[i] = beta == 0 ? alpha * sum[i] : alpha * sum[i] + beta * y[i];
    }
}

static void spmv_sparse(const gpgpu_sparse *a, double alpha, const double *x, double beta,
                        double *y)
{
    double *sum = calloc((size_t)a->rows + 1, sizeof *sum);
    switch (a->format) {
    case GPGPU_FORMAT_CSR:
        for (uint32_t i = 0; i < a->rows; i++) {
            for (uint32_t k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
                sum[i] += a->values[k] * x[a->idx[k]];
            }
        }
        break;
    case GPGPU_FORMAT_COO:
        for (size_t k = 0; k < a->nnz; k++) {
            sum[a->row[k]] += a->values[k] * x[a->idx[k]];
        }
        break;
    case GPGPU_FORMAT_CSC:
        for (uint32_t j = 0; j < a->cols; j++) {
            for (uint32_t k = a->ptr[j]; k < a->ptr[j + 1]; k++) {
                sum[a->idx[k]] += a->values[k] * x[j];
            }
        }
        break;
    case GPGPU_FORMAT_ELL:
        for (uint32_t i = 0; i < a->rows; i++) {
            for (size_t k = 0; k < a->width; k++) {
                size_t at = k * a->rows + i;
                sum[i] += a->idx[at] == PAD ? 0 : a->values[at] * x[a->idx[at]];
            }
        }
        break;
    case GPGPU_FORMAT_SELL:
        for (size_t s = 0; s + 1 < a->ptr_count; s++) {
            for (size_t r = 0; r < a->c && s * a->c + r < a->rows; r++) {
                uint32_t i = a->perm[s * a->c + r];
                for (size_t k = 0; k < a->slice_width[s]; k++) {
                    size_t at = a->ptr[s] + k * a->c + r;
                    sum[i] += a->idx[at] == PAD ? 0 : a->values[at] * x[a->idx[at]];
                }
            }
        }
        break;
    case GPGPU_FORMAT_BSR: {
        size_t b = a->block;
        for (size_t br = 0; br + 1 < a->ptr_count; br++) {
            for (size_t r = 0; r < b && br * b + r < a->rows; r++) {
                for (uint32_t blk = a->ptr[br]; blk < a->ptr[br + 1]; blk++) {
                    for (size_t c = 0; c < b && a->idx[blk] * b + c < a->cols; c++) {
                        sum[br * b + r] +=
                            a->values[blk * b * b + r * b + c] * x[a->idx[blk] * b + c];
                    }
                }
            }
        }
        break;
    }
    }
    finish_rows(a->rows, sum, alpha, beta, y);
    free(sum);
}

/* ------------------------------------------------------ layout invariants */

static bool ptr_monotone(const uint32_t *ptr, size_t count, size_t end)
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

/* Padding (ELL, SELL) is column PAD and value +0; every other entry is a real column. */
static bool padding_ok(const gpgpu_sparse *a)
{
    size_t pads = 0;
    for (size_t k = 0; k < a->stored; k++) {
        if (a->idx[k] == PAD) {
            pads++;
            if (a->values[k] != 0 || signbit(a->values[k])) {
                return false;
            }
        } else if (a->idx[k] >= a->cols) {
            return false;
        }
    }
    return a->stored - pads == a->nnz;
}

static bool sell_ok(const gpgpu_sparse *a, const gpgpu_csr *csr)
{
    size_t slices = ((size_t)a->rows + a->c - 1) / a->c;
    if (a->ptr_count != slices + 1 || !ptr_monotone(a->ptr, a->ptr_count, a->stored)) {
        return false;
    }
    bool *seen = calloc((size_t)a->rows + 1, 1);
    bool ok = true;
    for (size_t i = 0; ok && i < a->rows; i++) {
        uint32_t p = a->perm[i];
        ok = p < a->rows && !seen[p];
        seen[p] = true;
        uint32_t len = csr->row_ptr[p + 1] - csr->row_ptr[p];
        /* Longest first within each window of sigma rows. */
        if (ok && i % a->sigma != 0) {
            uint32_t q = a->perm[i - 1];
            ok = csr->row_ptr[q + 1] - csr->row_ptr[q] >= len;
        }
        ok = ok && len <= a->slice_width[i / a->c];
    }
    for (size_t s = 0; ok && s < slices; s++) {
        ok = a->ptr[s + 1] - a->ptr[s] == (size_t)a->c * a->slice_width[s];
    }
    free(seen);
    return ok && padding_ok(a);
}

static bool layout_ok(const gpgpu_sparse *a, const gpgpu_csr *csr, const format_case *fc)
{
    if (a->format != fc->format || a->rows != csr->rows || a->cols != csr->cols ||
        a->nnz != csr->nnz) {
        return false;
    }
    switch (a->format) {
    case GPGPU_FORMAT_CSR:
        return a->ptr_count == (size_t)a->rows + 1 && a->stored == a->nnz &&
               memcmp(a->ptr, csr->row_ptr, a->ptr_count * sizeof *a->ptr) == 0;
    case GPGPU_FORMAT_COO:
        for (size_t k = 1; k < a->nnz; k++) {
            if (a->row[k] < a->row[k - 1] ||
                (a->row[k] == a->row[k - 1] && a->idx[k] <= a->idx[k - 1])) {
                return false;
            }
        }
        return a->stored == a->nnz && a->ptr_count == 0;
    case GPGPU_FORMAT_CSC:
        if (a->ptr_count != (size_t)a->cols + 1 || !ptr_monotone(a->ptr, a->ptr_count, a->nnz)) {
            return false;
        }
        for (uint32_t j = 0; j < a->cols; j++) {
            for (uint32_t k = a->ptr[j] + 1; k < a->ptr[j + 1]; k++) {
                if (a->idx[k] <= a->idx[k - 1]) {
                    return false;
                }
            }
        }
        return true;
    case GPGPU_FORMAT_ELL:
        for (uint32_t i = 0; i < csr->rows; i++) {
            if (csr->row_ptr[i + 1] - csr->row_ptr[i] > a->width) {
                return false;
            }
        }
        return a->stored == (size_t)a->rows * a->width && padding_ok(a);
    case GPGPU_FORMAT_SELL:
        return a->c == (fc->params.sell_c ? fc->params.sell_c : 32) &&
               a->sigma == (fc->params.sell_sigma ? fc->params.sell_sigma : 32 * a->c) &&
               sell_ok(a, csr);
    case GPGPU_FORMAT_BSR: {
        size_t b = a->block, block_rows = ((size_t)a->rows + b - 1) / b;
        if (b != (fc->params.bsr_block ? fc->params.bsr_block : 4) ||
            a->ptr_count != block_rows + 1 ||
            a->stored != (size_t)a->ptr[block_rows] * b * b ||
            !ptr_monotone(a->ptr, a->ptr_count, a->ptr[block_rows])) {
            return false;
        }
        for (size_t br = 0; br < block_rows; br++) {
            for (uint32_t k = a->ptr[br] + 1; k < a->ptr[br + 1]; k++) {
                if (a->idx[k] <= a->idx[k - 1]) {
                    return false;
                }
            }
        }
        return true;
    }
    }
    return false;
}

/* GPU bytes from the converted arrays, counted independently of gpgpu_format_bytes. */
static size_t bytes_of(const gpgpu_sparse *a, size_t value_size)
{
    switch (a->format) {
    case GPGPU_FORMAT_CSR: return ((size_t)a->rows + 1) * 4 + a->nnz * (4 + value_size);
    case GPGPU_FORMAT_COO: return a->nnz * (8 + value_size);
    case GPGPU_FORMAT_CSC: return ((size_t)a->cols + 1) * 4 + a->nnz * (4 + value_size);
    case GPGPU_FORMAT_ELL: return a->stored * (4 + value_size);
    case GPGPU_FORMAT_SELL:
        return a->ptr_count * 4 + (a->ptr_count - 1) * 4 + (size_t)a->rows * 4 +
               a->stored * (4 + value_size);
    case GPGPU_FORMAT_BSR:
        return a->ptr_count * 4 + a->ptr[a->ptr_count - 1] * (size_t)4 + a->stored * value_size;
    }
    return 0;
}

/* ------------------------------------------------------------ round trips */

/* a without its +0.0 entries: what BSR gives back, since a block cannot tell
 * an explicit zero from its fill. */
static gpgpu_csr drop_zeros(const gpgpu_csr *a)
{
    gpgpu_csr z = {.rows = a->rows, .cols = a->cols};
    z.row_ptr = malloc(((size_t)a->rows + 1) * sizeof *z.row_ptr);
    z.col_idx = malloc((a->nnz + 1) * sizeof *z.col_idx);
    z.values = malloc((a->nnz + 1) * sizeof *z.values);
    z.row_ptr[0] = 0;
    for (uint32_t i = 0; i < a->rows; i++) {
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            if (a->values[k] != 0 || signbit(a->values[k])) {
                z.col_idx[z.nnz] = a->col_idx[k];
                z.values[z.nnz++] = a->values[k];
            }
        }
        z.row_ptr[i + 1] = (uint32_t)z.nnz;
    }
    return z;
}

static void check_spmv(const gpgpu_sparse *sp, const gpgpu_csr *a, const format_case *fc)
{
    size_t n = (size_t)a->rows + 1, m = (size_t)a->cols + 1;
    double *x = malloc(m * sizeof *x), *y = malloc(n * sizeof *y), *want = malloc(n * sizeof *y);
    uint64_t state = a->nnz;
    for (size_t j = 0; j < m; j++) {
        x[j] = random_unit(&state);
    }
    for (size_t i = 0; i < n; i++) {
        y[i] = want[i] = random_unit(&state);
    }
    ref_spmv_csr(a, 1.5, x, -0.5, want);
    spmv_sparse(sp, 1.5, x, -0.5, y);
    size_t bad = 0;
    for (uint32_t i = 0; i < a->rows; i++) {
        bad += y[i] != want[i];
    }
    if (!CHECK(bad == 0)) {
        note(fc);
    }
    free(x);
    free(y);
    free(want);
}

static void check_case(const gpgpu_csr *a, const gpgpu_csr *no_zeros, const format_case *fc)
{
    size_t bytes32, bytes64, stored;
    gpgpu_status s =
        gpgpu_format_bytes(a, fc->format, &fc->params, GPGPU_TYPE_F32, &bytes32, &stored);
    if (s == GPGPU_ERROR_TOO_LARGE || (s == GPGPU_SUCCESS && stored > MAX_STORED_TESTED)) {
        return;
    }
    if (!CHECK(s == GPGPU_SUCCESS) ||
        !CHECK(gpgpu_format_bytes(a, fc->format, &fc->params, GPGPU_TYPE_F64, &bytes64, NULL) ==
               GPGPU_SUCCESS)) {
        note(fc);
        return;
    }
    gpgpu_sparse sp;
    char msg[512] = "";
    s = gpgpu_sparse_from_csr(a, fc->format, &fc->params, &sp, msg, sizeof msg);
    if (fc->format == GPGPU_FORMAT_ELL && s == GPGPU_ERROR_TOO_LARGE) {
        double fill = fc->params.ell_max_fill ? fc->params.ell_max_fill : 8;
        if (!CHECK(stored > fill * a->nnz && strstr(msg, "SELL") != NULL && sp.idx == NULL)) {
            note(fc);
        }
        return;
    }
    if (!CHECK(s == GPGPU_SUCCESS)) {
        fprintf(stderr, "  %s\n", msg);
        note(fc);
        return;
    }
    if (!CHECK(layout_ok(&sp, a, fc)) || !CHECK(sp.stored == stored) ||
        !CHECK(bytes_of(&sp, 4) == bytes32 && bytes_of(&sp, 8) == bytes64)) {
        note(fc);
    }
    gpgpu_csr back;
    s = gpgpu_sparse_to_csr(&sp, &back, msg, sizeof msg);
    const gpgpu_csr *want = fc->format == GPGPU_FORMAT_BSR ? no_zeros : a;
    if (!CHECK(s == GPGPU_SUCCESS && same_csr(&back, want))) {
        fprintf(stderr, "  %s\n", s != GPGPU_SUCCESS ? msg : "differs after the round trip");
        note(fc);
    }
    check_spmv(&sp, a, fc);
    gpgpu_csr_free(&back);
    gpgpu_sparse_free(&sp);
}

static void check_all_formats(const char *name, const gpgpu_csr *a)
{
    label = name;
    if (!CHECK(gpgpu_csr_check(a, true, NULL, 0) == GPGPU_SUCCESS)) {
        fprintf(stderr, "  matrix %s\n", name);
        return;
    }
    gpgpu_csr no_zeros = drop_zeros(a);
    for (int k = 0; k < CASES; k++) {
        check_case(a, &no_zeros, &cases[k]);
    }
    gpgpu_csr_free(&no_zeros);
}

static void check_file(const char *path, const char *name)
{
    gpgpu_csr a;
    /* The complex ones are the reader's business (test_mtx_matrix). */
    if (gpgpu_mtx_read_matrix(path, &a, NULL, NULL, 0) == GPGPU_SUCCESS) {
        check_all_formats(name, &a);
        gpgpu_csr_free(&a);
    }
}

static void test_shared_matrices(void)
{
    CHECK(cpu_test_each_matrix(check_file) >= test_matrix_min_files());
}

/* A CSR from literal arrays (copied, so gpgpu_csr_free applies). */
static gpgpu_csr make_csr(uint32_t rows, uint32_t cols, const uint32_t *row_ptr,
                          const uint32_t *col_idx, const double *values)
{
    gpgpu_csr a = {.rows = rows, .cols = cols, .nnz = row_ptr[rows]};
    a.row_ptr = malloc(((size_t)rows + 1) * sizeof *a.row_ptr);
    a.col_idx = malloc((a.nnz + 1) * sizeof *a.col_idx);
    a.values = malloc((a.nnz + 1) * sizeof *a.values);
    memcpy(a.row_ptr, row_ptr, ((size_t)rows + 1) * sizeof *row_ptr);
    memcpy(a.col_idx, col_idx, a.nnz * sizeof *col_idx);
    memcpy(a.values, values, a.nnz * sizeof *values);
    return a;
}

static void test_small_matrices(void)
{
    const uint32_t zero_ptr[6] = {0};
    const uint32_t none[1] = {0};
    const double no_values[1] = {0};
    gpgpu_csr empty = make_csr(0, 0, zero_ptr, none, no_values);
    gpgpu_csr five_by_zero = make_csr(5, 0, zero_ptr, none, no_values);
    gpgpu_csr zero_by_five = make_csr(0, 5, zero_ptr, none, no_values);
    const uint32_t one_ptr[] = {0, 1}, one_col[] = {0};
    const double one_value[] = {-2.5};
    gpgpu_csr one = make_csr(1, 1, one_ptr, one_col, one_value);
    /* Empty rows 1 and 4, empty columns 0 and 5, explicit zeros (+0 and -0) and a row that
     * spans blocks. */
    const uint32_t ptr[] = {0, 3, 3, 5, 9, 9, 10};
    const uint32_t cols[] = {1, 2, 6, 3, 4, 1, 2, 3, 6, 4};
    const double values[] = {1, 0.0, 2, -0.0, 3, 4, 5, 6, 7, 8};
    gpgpu_csr holes = make_csr(6, 7, ptr, cols, values);
    check_all_formats("0x0", &empty);
    check_all_formats("5x0", &five_by_zero);
    check_all_formats("0x5", &zero_by_five);
    check_all_formats("1x1", &one);
    check_all_formats("holes", &holes);
    gpgpu_csr_free(&empty);
    gpgpu_csr_free(&five_by_zero);
    gpgpu_csr_free(&zero_by_five);
    gpgpu_csr_free(&one);
    gpgpu_csr_free(&holes);
}

static void test_generated_matrices(void)
{
    const struct {
        const char *name;
        gpgpu_generator gen;
        uint32_t size, avg;
    } gens[] = {
        {"laplace7", GPGPU_GEN_LAPLACE3D_7, 6, 0},   {"laplace27", GPGPU_GEN_LAPLACE3D_27, 5, 0},
        {"random", GPGPU_GEN_RANDOM, 700, 6},        {"power_law", GPGPU_GEN_POWER_LAW, 2000, 8},
        {"rmat", GPGPU_GEN_RMAT, 10, 8},             {"banded", GPGPU_GEN_BANDED, 300, 4},
        {"dense_row", GPGPU_GEN_DENSE_ROW, 3000, 3}, {"dense", GPGPU_GEN_DENSE, 33, 0},
        {"dense_row_1e6", GPGPU_GEN_DENSE_ROW, 1000000, 1},
    };
    for (size_t k = 0; k < sizeof gens / sizeof *gens; k++) {
        gpgpu_csr a;
        if (CHECK(gpgpu_generate(gens[k].gen, gens[k].size, gens[k].avg, 42, &a) ==
                  GPGPU_SUCCESS)) {
            check_all_formats(gens[k].name, &a);
        }
        gpgpu_csr_free(&a);
    }
}

/* ------------------------------------------------------------------ ELL */

static void test_ell_refusal(void)
{
    gpgpu_csr a;
    CHECK(gpgpu_generate(GPGPU_GEN_DENSE_ROW, 1000, 2, 7, &a) == GPGPU_SUCCESS);
    gpgpu_sparse sp = {.rows = 99};
    char msg[512] = "";
    CHECK(gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_ELL, NULL, &sp, msg, sizeof msg) ==
          GPGPU_ERROR_TOO_LARGE);
    CHECK(sp.rows == 0 && sp.idx == NULL);
    CHECK(strstr(msg, "ell_max_fill") != NULL && strstr(msg, "SELL") != NULL &&
          strstr(msg, "CSR") != NULL);
    /* The size is still reported, and a fill limit high enough lets it through. */
    size_t bytes, stored;
    CHECK(gpgpu_format_bytes(&a, GPGPU_FORMAT_ELL, NULL, GPGPU_TYPE_F32, &bytes, &stored) ==
          GPGPU_SUCCESS);
    CHECK(stored == 1000 * 1000 && bytes == stored * 8);
    gpgpu_format_params p = {.ell_max_fill = 1000};
    CHECK(gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_ELL, &p, &sp, msg, sizeof msg) == GPGPU_SUCCESS);
    gpgpu_sparse_free(&sp);
    p.ell_max_fill = 0.5;
    CHECK(gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_ELL, &p, &sp, msg, sizeof msg) ==
          GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(gpgpu_sparse_from_csr(&a, (gpgpu_format)9, NULL, &sp, msg, sizeof msg) ==
          GPGPU_ERROR_INVALID_ARGUMENT);
    /* A slice height or block past its maximum: the padding alone would be gigabytes
     * (fuzz_sparse_validate found b and C near 2^31 on a 16-row matrix). */
    gpgpu_format_params big_c = {.sell_c = GPGPU_SELL_MAX_C + 1};
    gpgpu_format_params big_b = {.bsr_block = GPGPU_BSR_MAX_BLOCK + 1};
    CHECK(gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_SELL, &big_c, &sp, msg, sizeof msg) ==
          GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(msg, "sell_c") != NULL);
    CHECK(gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_BSR, &big_b, &sp, msg, sizeof msg) ==
          GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(gpgpu_format_bytes(&a, GPGPU_FORMAT_BSR, &big_b, GPGPU_TYPE_F32, &bytes, NULL) ==
          GPGPU_ERROR_INVALID_ARGUMENT);
    big_c.sell_c = GPGPU_SELL_MAX_C;
    CHECK(gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_SELL, &big_c, &sp, msg, sizeof msg) ==
          GPGPU_SUCCESS);
    gpgpu_sparse_free(&sp);
    CHECK(gpgpu_sparse_from_csr(NULL, GPGPU_FORMAT_CSR, NULL, &sp, msg, sizeof msg) ==
          GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_CSR, NULL, NULL, msg, sizeof msg) ==
          GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_format_bytes(&a, GPGPU_FORMAT_CSR, NULL, GPGPU_TYPE_U32, &bytes, NULL) ==
          GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(gpgpu_format_bytes(&a, GPGPU_FORMAT_CSR, NULL, GPGPU_TYPE_F32, NULL, NULL) ==
          GPGPU_ERROR_NULL_POINTER);
    /* More than 2^31 - 1 stored entries: refused whatever the fill limit. */
    gpgpu_csr_free(&a);
    CHECK(gpgpu_generate(GPGPU_GEN_DENSE_ROW, 100000, 1, 7, &a) == GPGPU_SUCCESS);
    p.ell_max_fill = 1e9;
    CHECK(gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_ELL, &p, &sp, msg, sizeof msg) ==
          GPGPU_ERROR_TOO_LARGE);
    CHECK(gpgpu_format_bytes(&a, GPGPU_FORMAT_ELL, NULL, GPGPU_TYPE_F32, &bytes, NULL) ==
          GPGPU_ERROR_TOO_LARGE);
    gpgpu_sparse_free(NULL);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(NULL);
}

/* ---------------------------------------------------------- CSR checks */

typedef struct defect {
    const char *what;
    gpgpu_status status;
    const char *needle;
    void (*apply)(gpgpu_csr *a);
} defect;

static void start_not_zero(gpgpu_csr *a) { a->row_ptr[0] = 1; }
static void decreasing(gpgpu_csr *a) { a->row_ptr[2] = 1; }
static void wrong_end(gpgpu_csr *a) { a->nnz--; }
static void column_too_big(gpgpu_csr *a) { a->col_idx[5] = 4; }
static void unsorted(gpgpu_csr *a) { a->col_idx[2] = 3, a->col_idx[3] = 0; }
static void duplicate(gpgpu_csr *a) { a->col_idx[3] = a->col_idx[2]; }
static void no_row_ptr(gpgpu_csr *a) { a->row_ptr = NULL; }
static void no_values(gpgpu_csr *a) { a->values = NULL; }
static void too_many_rows(gpgpu_csr *a) { a->rows = 0x80000000u; }

static void test_csr_check(void)
{
    /* 3x4: row 0 {0, 2}, row 1 {0, 3}, row 2 {1, 2}. */
    const uint32_t ptr[] = {0, 2, 4, 6};
    const uint32_t cols[] = {0, 2, 0, 3, 1, 2};
    const double values[] = {1, 2, 3, 4, 5, 6};
    const defect defects[] = {
        {"row_ptr[0] != 0", GPGPU_ERROR_INVALID_ARGUMENT, "row 0", start_not_zero},
        {"decreasing", GPGPU_ERROR_INVALID_ARGUMENT, "row 1", decreasing},
        {"end != nnz", GPGPU_ERROR_INVALID_ARGUMENT, "nnz", wrong_end},
        {"column >= cols", GPGPU_ERROR_INVALID_ARGUMENT, "row 2", column_too_big},
        {"unsorted", GPGPU_ERROR_INVALID_ARGUMENT, "row 1", unsorted},
        {"duplicate", GPGPU_ERROR_INVALID_ARGUMENT, "row 1", duplicate},
        {"no row_ptr", GPGPU_ERROR_NULL_POINTER, NULL, no_row_ptr},
        {"no values", GPGPU_ERROR_NULL_POINTER, NULL, no_values},
        {"too many rows", GPGPU_ERROR_TOO_LARGE, NULL, too_many_rows},
    };
    for (size_t k = 0; k < sizeof defects / sizeof *defects; k++) {
        gpgpu_csr good = make_csr(3, 4, ptr, cols, values), a = good;
        char msg[256] = "";
        CHECK(gpgpu_csr_check(&a, true, NULL, 0) == GPGPU_SUCCESS);
        defects[k].apply(&a);
        gpgpu_status s = gpgpu_csr_check(&a, true, msg, sizeof msg);
        if (!CHECK(s == defects[k].status) ||
            (defects[k].needle != NULL && !CHECK(strstr(msg, defects[k].needle) != NULL))) {
            fprintf(stderr, "  %s: %d %s\n", defects[k].what, (int)s, msg);
        }
        gpgpu_sparse sp;
        s = gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_SELL, NULL, &sp, NULL, 0);
        CHECK(s == defects[k].status);
        /* Unsorted columns are fine where sorting is not asked for. */
        bool order = defects[k].apply == unsorted || defects[k].apply == duplicate;
        CHECK((gpgpu_csr_check(&a, false, NULL, 0) == GPGPU_SUCCESS) == order);
        gpgpu_csr_free(&good);
    }
    CHECK(gpgpu_csr_check(NULL, true, NULL, 0) == GPGPU_ERROR_NULL_POINTER);
}

/* Sizes a caller passes in a gpgpu_sparse are checked before any array is read: rows past
 * 2^31 - 1 with an empty ELL would loop 2^32 times, and a BSR block column past the
 * matrix would wrap its entries' columns back into it. */
static void test_to_csr_sizes(void)
{
    uint32_t idx[4] = {0}, ptr[2] = {0, 1};
    double values[4] = {1, 2, 3, 4};
    gpgpu_csr out;
    gpgpu_sparse ell = {.format = GPGPU_FORMAT_ELL, .rows = 0xffffffffu, .cols = 1,
                        .idx = idx, .values = values};
    CHECK(gpgpu_sparse_to_csr(&ell, &out, NULL, 0) == GPGPU_ERROR_TOO_LARGE);
    ell.rows = 1;
    ell.cols = 0x80000000u;
    CHECK(gpgpu_sparse_to_csr(&ell, &out, NULL, 0) == GPGPU_ERROR_TOO_LARGE);
    /* 2x2 blocks, 3x3 matrix: block columns 0 and 1 only. */
    gpgpu_sparse bsr = {.format = GPGPU_FORMAT_BSR, .rows = 2, .cols = 3, .nnz = 4,
                        .stored = 4, .block = 2, .ptr_count = 2, .ptr = ptr,
                        .idx = idx, .values = values};
    char msg[256] = "";
    idx[0] = 2;
    CHECK(gpgpu_sparse_to_csr(&bsr, &out, msg, sizeof msg) == GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(msg, "bsr") != NULL);
    idx[0] = 0x80000000u; /* column 2^32 + e: wrapped to 0 and 1 before */
    CHECK(gpgpu_sparse_to_csr(&bsr, &out, NULL, 0) == GPGPU_ERROR_INVALID_ARGUMENT);
    idx[0] = 0;
    CHECK(gpgpu_sparse_to_csr(&bsr, &out, NULL, 0) == GPGPU_SUCCESS);
    CHECK(out.nnz == 4 && out.col_idx[1] == 1 && out.values[3] == 4);
    gpgpu_csr_free(&out);
}

/* ---------------------------------------------------------- from COO */

static void test_from_coo(void)
{
    const uint32_t row[] = {2, 0, 2, 0, 2, 0};
    const uint32_t col[] = {3, 1, 0, 1, 3, 0};
    const double val[] = {1, 2, 3, 4, 5, 6};
    gpgpu_csr a;
    char msg[256] = "";
    CHECK(gpgpu_csr_from_coo(3, 4, 6, row, col, val, &a, msg, sizeof msg) == GPGPU_SUCCESS);
    const uint32_t want_ptr[] = {0, 2, 2, 4}, want_col[] = {0, 1, 0, 3};
    const double want_val[] = {6, 6, 3, 6};
    gpgpu_csr want = make_csr(3, 4, want_ptr, want_col, want_val);
    CHECK(same_csr(&a, &want));
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&want);
    const uint32_t bad_col[] = {3, 1, 4, 1, 3, 0};
    CHECK(gpgpu_csr_from_coo(3, 4, 6, row, bad_col, val, &a, msg, sizeof msg) ==
          GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(msg, "entry 2") != NULL && a.row_ptr == NULL);
    CHECK(gpgpu_csr_from_coo(0x80000000u, 4, 0, NULL, NULL, NULL, &a, NULL, 0) ==
          GPGPU_ERROR_TOO_LARGE);
    CHECK(gpgpu_csr_from_coo(3, 4, 1, NULL, col, val, &a, NULL, 0) == GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_csr_from_coo(3, 0, 0, NULL, NULL, NULL, &a, NULL, 0) == GPGPU_SUCCESS);
    CHECK(a.rows == 3 && a.nnz == 0 && a.row_ptr != NULL && a.row_ptr[3] == 0);
    gpgpu_csr_free(&a);
}

static void test_stats_and_names(void)
{
    const uint32_t ptr[] = {0, 0, 3, 4, 4, 9};
    const uint32_t cols[] = {0, 1, 2, 0, 0, 1, 2, 3, 4};
    const double values[9] = {0};
    gpgpu_csr a = make_csr(5, 5, ptr, cols, values);
    gpgpu_row_stats st;
    CHECK(gpgpu_csr_row_stats(&a, &st) == GPGPU_SUCCESS);
    CHECK(st.min == 0 && st.max == 5 && st.empty_rows == 2 && st.mean == 9.0 / 5);
    /* lengths 0 3 1 0 5, mean 1.8: squares 3.24 1.44 0.64 3.24 10.24 */
    CHECK(fabs(st.stddev - sqrt(18.8 / 5)) < 1e-12);
    CHECK(gpgpu_csr_row_stats(NULL, &st) == GPGPU_ERROR_NULL_POINTER);
    gpgpu_csr_free(&a);
    const char *names[] = {"csr", "coo", "csc", "ell", "sell", "bsr"};
    const gpgpu_format formats[] = {GPGPU_FORMAT_CSR, GPGPU_FORMAT_COO, GPGPU_FORMAT_CSC,
                                    GPGPU_FORMAT_ELL, GPGPU_FORMAT_SELL, GPGPU_FORMAT_BSR};
    for (int k = 0; k < 6; k++) {
        CHECK(strcmp(gpgpu_format_name(formats[k]), names[k]) == 0);
    }
    CHECK(gpgpu_format_name((gpgpu_format)0) == NULL);
}

/* ------------------------------------------------------------ the bound */

static void test_spmv_bound(void)
{
    gpgpu_csr a;
    CHECK(gpgpu_generate(GPGPU_GEN_POWER_LAW, 3000, 20, 5, &a) == GPGPU_SUCCESS);
    size_t n = a.rows;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *want = malloc(n * sizeof *y);
    double *bound = malloc(n * sizeof *bound);
    uint64_t state = 3;
    /* Inputs that floats hold exactly, so the bound covers only the arithmetic. */
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)random_unit(&state);
        want[i] = y[i] = (float)random_unit(&state);
    }
    for (size_t k = 0; k < a.nnz; k++) {
        a.values[k] = (float)a.values[k];
    }
    const float alpha = 1.25f, beta = -0.75f;
    ref_spmv_csr(&a, alpha, x, beta, want);
    ref_spmv_bound(&a, x, alpha, beta, y, 0x1p-24, bound);
    size_t bad = 0;
    for (uint32_t i = 0; i < a.rows; i++) {
        float sum = 0; /* in float, right to left: another order than the reference's */
        for (uint32_t k = a.row_ptr[i + 1]; k-- > a.row_ptr[i];) {
            sum += (float)a.values[k] * (float)x[a.col_idx[k]];
        }
        float got = alpha * sum + beta * (float)y[i];
        bad += fabs(got - want[i]) > bound[i];
    }
    CHECK(bad == 0);
    /* beta == 0 neither reads y nor lets its NaN in. */
    for (size_t i = 0; i < n; i++) {
        y[i] = NAN;
    }
    ref_spmv_csr(&a, 1, x, 0, y);
    ref_spmv_bound(&a, x, 1, 0, NULL, 0x1p-24, bound);
    bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += isnan(y[i]) || isnan(bound[i]);
    }
    CHECK(bad == 0);
    free(x);
    free(y);
    free(want);
    free(bound);
    gpgpu_csr_free(&a);
}

/* ------------------------------------------------------------ generators */

static bool generate_same(gpgpu_generator gen, uint32_t size, uint32_t avg, uint64_t s1,
                          uint64_t s2)
{
    gpgpu_csr a, b;
    bool ok = gpgpu_generate(gen, size, avg, s1, &a) == GPGPU_SUCCESS &&
              gpgpu_generate(gen, size, avg, s2, &b) == GPGPU_SUCCESS;
    bool same = ok && same_csr(&a, &b);
    if (ok) {
        gpgpu_csr_free(&a);
        gpgpu_csr_free(&b);
    }
    CHECK(ok);
    return same;
}

/* The stencils' values, symmetry (A equals its CSC) and diagonal dominance: SPD. */
static void check_laplacian(gpgpu_generator gen, uint32_t n, double diagonal, size_t nnz)
{
    gpgpu_csr a;
    if (!CHECK(gpgpu_generate(gen, n, 0, 1, &a) == GPGPU_SUCCESS)) {
        return;
    }
    CHECK(a.rows == n * n * n && a.cols == a.rows && a.nnz == nnz);
    size_t bad = 0;
    for (uint32_t i = 0; i < a.rows; i++) {
        double off = 0;
        for (uint32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; k++) {
            bool diag = a.col_idx[k] == i;
            bad += a.values[k] != (diag ? diagonal : -1.0);
            off += diag ? 0 : 1;
        }
        bad += off > diagonal;
    }
    CHECK(bad == 0);
    gpgpu_sparse csc;
    CHECK(gpgpu_sparse_from_csr(&a, GPGPU_FORMAT_CSC, NULL, &csc, NULL, 0) == GPGPU_SUCCESS);
    CHECK(memcmp(csc.ptr, a.row_ptr, ((size_t)a.rows + 1) * 4) == 0 &&
          memcmp(csc.idx, a.col_idx, a.nnz * 4) == 0 &&
          memcmp(csc.values, a.values, a.nnz * 8) == 0);
    gpgpu_sparse_free(&csc);
    gpgpu_csr_free(&a);
}

static void test_generators(void)
{
    const gpgpu_generator random_gens[] = {GPGPU_GEN_RANDOM, GPGPU_GEN_POWER_LAW, GPGPU_GEN_RMAT,
                                           GPGPU_GEN_BANDED, GPGPU_GEN_DENSE_ROW, GPGPU_GEN_DENSE};
    for (size_t k = 0; k < sizeof random_gens / sizeof *random_gens; k++) {
        uint32_t size = random_gens[k] == GPGPU_GEN_RMAT ? 8 : 200;
        CHECK(generate_same(random_gens[k], size, 5, 11, 11));
        CHECK(!generate_same(random_gens[k], size, 5, 11, 12));
    }
    CHECK(generate_same(GPGPU_GEN_LAPLACE3D_7, 4, 0, 1, 2));
    check_laplacian(GPGPU_GEN_LAPLACE3D_7, 7, 6, 7 * 343 - 6 * 49);
    check_laplacian(GPGPU_GEN_LAPLACE3D_27, 6, 26, 16 * 16 * 16);
    check_laplacian(GPGPU_GEN_LAPLACE3D_7, 0, 6, 0);

    gpgpu_csr a;
    gpgpu_row_stats st;
    CHECK(gpgpu_generate(GPGPU_GEN_RANDOM, 4000, 10, 3, &a) == GPGPU_SUCCESS);
    CHECK(gpgpu_csr_row_stats(&a, &st) == GPGPU_SUCCESS);
    CHECK(st.max <= 21 && st.mean > 9.5 && st.mean <= 10.3 && a.rows == 4000 && a.cols == 4000);
    gpgpu_csr_free(&a);
    CHECK(gpgpu_generate(GPGPU_GEN_POWER_LAW, 20000, 8, 3, &a) == GPGPU_SUCCESS);
    CHECK(gpgpu_csr_row_stats(&a, &st) == GPGPU_SUCCESS);
    CHECK(st.mean > 7 && st.mean <= 8.01 && st.max > 40 * 8 && st.min <= 4);
    gpgpu_csr_free(&a);
    CHECK(gpgpu_generate(GPGPU_GEN_BANDED, 100, 3, 3, &a) == GPGPU_SUCCESS);
    CHECK(a.nnz == 100 * 7 - 2 * (3 + 2 + 1) && a.col_idx[0] == 0 && a.row_ptr[1] == 4);
    gpgpu_csr_free(&a);
    CHECK(gpgpu_generate(GPGPU_GEN_DENSE, 30, 0, 3, &a) == GPGPU_SUCCESS);
    CHECK(a.nnz == 900 && a.col_idx[899] == 29);
    gpgpu_csr_free(&a);
    CHECK(gpgpu_generate(GPGPU_GEN_DENSE_ROW, 1000000, 2, 3, &a) == GPGPU_SUCCESS);
    CHECK(a.rows == 1000000 && a.row_ptr[1] == 1000000 && a.col_idx[999999] == 999999);
    gpgpu_csr_free(&a);

    /* R-MAT at the size benchmarks use: 2^20 rows, 16M edges before duplicates. */
    clock_t start = clock();
    CHECK(gpgpu_generate(GPGPU_GEN_RMAT, 20, 16, 1, &a) == GPGPU_SUCCESS);
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    CHECK(a.rows == 1u << 20 && a.nnz > 8000000 && a.nnz <= 16u << 20);
    CHECK(gpgpu_csr_row_stats(&a, &st) == GPGPU_SUCCESS);
    printf("rmat scale 20, avg 16: %zu nonzeros in %.2f s CPU; rows %u..%u, %u empty\n", a.nnz,
           seconds, st.min, st.max, st.empty_rows);
    gpgpu_csr_free(&a);

    CHECK(gpgpu_generate((gpgpu_generator)99, 4, 4, 1, &a) == GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(gpgpu_generate(GPGPU_GEN_RANDOM, 4, 4, 1, NULL) == GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_generate(GPGPU_GEN_RMAT, 31, 1, 1, &a) == GPGPU_ERROR_TOO_LARGE);
    CHECK(gpgpu_generate(GPGPU_GEN_LAPLACE3D_7, 1291, 0, 1, &a) == GPGPU_ERROR_TOO_LARGE);
    CHECK(gpgpu_generate(GPGPU_GEN_DENSE, 46341, 0, 1, &a) == GPGPU_ERROR_TOO_LARGE);
    CHECK(gpgpu_generate(GPGPU_GEN_RANDOM, 0x80000000u, 1, 1, &a) == GPGPU_ERROR_TOO_LARGE);
}

int main(void)
{
    test_csr_check();
    test_to_csr_sizes();
    test_from_coo();
    test_stats_and_names();
    test_ell_refusal();
    test_spmv_bound();
    test_small_matrices();
    test_generated_matrices();
    test_shared_matrices();
    test_generators();
    return cpu_test_result();
}
