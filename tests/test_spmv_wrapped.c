/* SpMV on matrices over the caller's buffers: wrapped arrays at offsets and their
 * validation (every malformed row pointer, column and size refused with its code and the
 * row named), the plan kept across calls, and the calls' misuse and misaligned offsets. */
#include <stdlib.h>
#include <string.h>

#ifdef GPGPU_HAVE_GL
#include "gl/gl_internal.h"
#endif
#include "test_spmv.h"

/* ------------------------------------------------------------ wrapped buffers */

typedef struct wrapped {
    gpgpu_buffer *rp, *ci, *val;
} wrapped;

enum { RP_OFF = 1, CI_OFF = 2, VAL_OFF = 3 };

static wrapped upload_csr(const gpgpu_csr *a, gpgpu_type t)
{
    wrapped w;
    size_t size = gpgpu_type_size(t);
    uint32_t *rp = xmalloc((a->rows + 1 + RP_OFF) * 4), *ci = xmalloc((a->nnz + CI_OFF) * 4);
    memcpy(rp + RP_OFF, a->row_ptr, (a->rows + 1) * 4);
    memcpy(ci + CI_OFF, a->col_idx, a->nnz * 4);
    rp[0] = ci[0] = ci[1] = 0xA5A5A5A5u;
    void *v = typed(t, a->values, a->nnz);
    w.rp = test_buffer(ctx, rp, (a->rows + 1 + RP_OFF) * 4);
    w.ci = test_buffer(ctx, ci, (a->nnz + CI_OFF) * 4);
    w.val = test_buffer(ctx, NULL, (a->nnz + VAL_OFF) * size);
    gpgpu_buffer_upload(w.val, VAL_OFF * size, v, a->nnz * size);
    free(rp);
    free(ci);
    free(v);
    return w;
}

static void wrapped_free(wrapped *w)
{
    gpgpu_buffer_destroy(w->rp);
    gpgpu_buffer_destroy(w->ci);
    gpgpu_buffer_destroy(w->val);
}

static gpgpu_status wrap(const gpgpu_csr *a, gpgpu_type t, wrapped *w, gpgpu_matrix **m)
{
    return gpgpu_matrix_wrap_csr(ctx, &(gpgpu_matrix_desc){.type = t}, a->rows, a->cols, a->nnz,
                                 w->rp, RP_OFF, w->ci, CI_OFF, w->val, VAL_OFF, m);
}

/* A broken copy of a must be refused with `row` named; a valid one made broken after the
 * wrap is refused by gpgpu_matrix_validate, and every kernel runs on it without a fault. */
static void refused(const char *what, const gpgpu_csr *bad, const gpgpu_csr *good, uint32_t row)
{
    gpgpu_type t = GPGPU_TYPE_F32;
    char expect[64];
    snprintf(expect, sizeof expect, "row %u:", row);
    wrapped w = upload_csr(bad, t);
    gpgpu_matrix *m = (gpgpu_matrix *)&w; /* must come back NULL */
    EXPECT_STATUS(ctx, wrap(bad, t, &w, &m), GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(m == NULL, "%s: *out is not NULL after a refusal", what);
    EXPECT(strstr(gpgpu_last_error(ctx), expect), "%s: the message '%s' does not name %s", what,
           gpgpu_last_error(ctx), expect);
    wrapped_free(&w);

    w = upload_csr(good, t);
    EXPECT_STATUS(ctx, wrap(good, t, &w, &m), GPGPU_SUCCESS);
    gpgpu_buffer_upload(w.rp, RP_OFF * 4, bad->row_ptr, (bad->rows + 1) * 4);
    gpgpu_buffer_upload(w.ci, CI_OFF * 4, bad->col_idx, bad->nnz * 4);
    EXPECT_STATUS(ctx, gpgpu_matrix_validate(m), GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(gpgpu_last_error(ctx), expect), "%s (validate): '%s' does not name %s", what,
           gpgpu_last_error(ctx), expect);
    slab x = slab_make(ctx, t, 0, good->cols, 0, NULL), y = slab_make(ctx, t, 0, good->rows, 0, NULL);
    static const gpgpu_algo algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_CLASSIC_SPMV,
                                       GPGPU_ALGO_SPMV_SCALAR, GPGPU_ALGO_SPMV_VECTOR};
    for (size_t k = 0; k < sizeof algos / sizeof *algos; k++)
        EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &(gpgpu_spmv_desc){.algo = algos[k]}, 1, m, x.buf, 0,
                                      0, y.buf, 0),
                      GPGPU_SUCCESS);
    float probe;
    EXPECT_STATUS(ctx, gpgpu_buffer_download(y.buf, 0, &probe, sizeof probe), GPGPU_SUCCESS);
    slab_free(&x);
    slab_free(&y);
    gpgpu_matrix_destroy(m);
    wrapped_free(&w);
}

/* The balanced product keeps its plan of the merge path with the matrix: new values need
 * nothing, new row pointers need gpgpu_matrix_validate, after which it plans again. b has
 * a's rows, columns and entries with the row lengths in another order, long rows included
 * (they cross tiles), so a's plan would cut b's rows in the wrong places. */
void plan_kept(void)
{
    const uint32_t tile = SPMV_MERGE_WG * SPMV_MERGE_ITEMS, rows = 2000;
    uint32_t lens[2000], back[2000];
    uint64_t state = 7;
    for (uint32_t i = 0; i < rows; i++) {
        uint32_t r = lcg_next(&state);
        lens[i] = r % 50 == 0 ? tile + r % (3 * tile) : r % 9;
    }
    for (uint32_t i = 0; i < rows; i++)
        back[i] = lens[rows - 1 - i];
    gpgpu_csr a = of_lengths(lens, rows, 4 * tile), b = of_lengths(back, rows, 4 * tile);
    for (size_t ti = 0; ti < type_count; ti++) {
        gpgpu_type t = types[ti];
        wrapped w = upload_csr(&a, t);
        gpgpu_matrix *m = NULL;
        EXPECT_STATUS(ctx, wrap(&a, t, &w, &m), GPGPU_SUCCESS);
        if (!m) {
            wrapped_free(&w);
            continue;
        }
        check_algo("plan", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_BALANCED, 0, 0);
        for (size_t k = 0; k < a.nnz; k++) /* new values, same structure: the plan stands */
            a.values[k] = -2 * a.values[k] + 0.5;
        void *v = typed(t, a.values, a.nnz);
        size_t size = gpgpu_type_size(t);
        gpgpu_buffer_upload(w.val, VAL_OFF * size, v, a.nnz * size);
        free(v);
        check_algo("plan, new values", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_BALANCED, 0, 0);
        gpgpu_buffer_upload(w.rp, RP_OFF * 4, b.row_ptr, (rows + 1) * 4);
        gpgpu_buffer_upload(w.ci, CI_OFF * 4, b.col_idx, b.nnz * 4);
        v = typed(t, b.values, b.nnz);
        gpgpu_buffer_upload(w.val, VAL_OFF * size, v, b.nnz * size);
        free(v);
        EXPECT_STATUS(ctx, gpgpu_matrix_validate(m), GPGPU_SUCCESS);
        check_row_stats("validated", m, &b); /* the validation's, found on the GPU */
        check_algo("plan, new structure", m, &b, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_BALANCED, 0, 0);
        check_algo("plan, new structure", m, &b, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_DEFAULT, 0, 0);
        gpgpu_matrix_destroy(m);
        wrapped_free(&w);
    }
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
}

void wrapped_matrices(void)
{
    gpgpu_csr a = test_generated(GPGPU_GEN_POWER_LAW, 400, 6);
    for (size_t ti = 0; ti < type_count; ti++) {
        gpgpu_type t = types[ti];
        wrapped w = upload_csr(&a, t);
        gpgpu_matrix *m = NULL;
        EXPECT_STATUS(ctx, wrap(&a, t, &w, &m), GPGPU_SUCCESS);
        if (m) {
            check_algo("wrapped", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_DEFAULT, 0, 0);
            check_algo("wrapped", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_CLASSIC_SPMV, 0, 0);
            check_algo("wrapped", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_SCALAR, 0, 0);
            check_algo("wrapped", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_VECTOR, 0, 0);
            check_algo("wrapped", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_BALANCED, 0, 0);
            gpgpu_matrix_info info;
            gpgpu_matrix_get_info(m, &info);
            EXPECT(info.format == GPGPU_FORMAT_CSR && info.nnz == a.nnz && info.stored == a.nnz,
                   "wrapped: gpgpu_matrix_get_info");
            EXPECT_STATUS(ctx, gpgpu_matrix_validate(m), GPGPU_SUCCESS);
        }
        gpgpu_matrix_destroy(m);
        wrapped_free(&w);
    }

    /* the validation's failures, one kind at a time, on a row with two or more entries */
    uint32_t r = 0;
    while (a.row_ptr[r + 1] - a.row_ptr[r] < 2 || r < 5 || a.row_ptr[r] == 0)
        r++;
    gpgpu_csr bad = as_type(&a, GPGPU_TYPE_F64);
    uint32_t k = a.row_ptr[r];

    bad.row_ptr[r + 1] = bad.row_ptr[r] - 1; /* non-monotone: row r's end before its start */
    refused("non-monotone row_ptr", &bad, &a, r);
    bad.row_ptr[r + 1] = a.row_ptr[r + 1];

    bad.row_ptr[0] = 1;
    refused("row_ptr[0] != 0", &bad, &a, 0);
    bad.row_ptr[0] = 0;

    bad.row_ptr[a.rows] = (uint32_t)a.nnz + 5; /* last != nnz */
    refused("row_ptr[rows] != nnz", &bad, &a, a.rows - 1);
    bad.row_ptr[a.rows] = (uint32_t)a.nnz;

    bad.col_idx[k + 1] = a.cols; /* column out of range */
    refused("column out of range", &bad, &a, r);
    bad.col_idx[k + 1] = a.col_idx[k + 1];

    bad.col_idx[k] = a.col_idx[k + 1], bad.col_idx[k + 1] = a.col_idx[k]; /* unsorted */
    refused("unsorted columns", &bad, &a, r);
    bad.col_idx[k + 1] = bad.col_idx[k]; /* a duplicate */
    refused("duplicate column", &bad, &a, r);

    gpgpu_csr_free(&bad);
    gpgpu_csr_free(&a);
}

/* -------------------------------------------------------------------- misuse */

void misuse(void)
{
    gpgpu_csr a = test_generated(GPGPU_GEN_BANDED, 50, 2);
    gpgpu_matrix_desc f32 = {.type = GPGPU_TYPE_F32};
    gpgpu_matrix *m = NULL, *ell = NULL, *coo = NULL;

    EXPECT_STATUS(NULL, gpgpu_matrix_create(NULL, &f32, &a, &m), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, NULL, &a, &m), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &f32, NULL, &m), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &f32, &a, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_U32}, &a, &m),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = 9}, &a, &m),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx,
                  gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32, .format = 42},
                                      &a, &m),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    gpgpu_csr huge = {.rows = 0x80000000u, .cols = 4};
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &f32, &huge, &m), GPGPU_ERROR_TOO_LARGE);
    gpgpu_csr broken = as_type(&a, GPGPU_TYPE_F64);
    broken.col_idx[7] = a.cols + 3;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &f32, &broken, &m), GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(m == NULL, "a refused create leaves *out NULL");
    gpgpu_csr_free(&broken);

    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &f32, &a, &m), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx,
                  gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32, .format = GPGPU_FORMAT_ELL},
                                      &a, &ell),
                  GPGPU_SUCCESS);
    EXPECT_STATUS(ctx,
                  gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32, .format = GPGPU_FORMAT_COO},
                                      &a, &coo),
                  GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_matrix_validate(m), GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, gpgpu_matrix_validate(NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_get_info(NULL, &(gpgpu_matrix_info){0}), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_get_info(m, NULL), GPGPU_ERROR_NULL_POINTER);

    gpgpu_buffer *x = test_buffer(ctx, NULL, 64 * 4), *y = test_buffer(ctx, NULL, 64 * 4);
    gpgpu_buffer *xy = test_buffer(ctx, NULL, 100 * 4), *small = test_buffer(ctx, NULL, 10 * 4);
    gpgpu_spmv_desc d = {0};
#define SPMV(desc_, mat, xb, xo, yb, yo, code) \
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, desc_, 1, mat, xb, xo, 0, yb, yo), code)
    EXPECT_STATUS(NULL, gpgpu_spmv(NULL, &d, 1, m, x, 0, 0, y, 0), GPGPU_ERROR_NULL_POINTER);
    SPMV(NULL, m, x, 0, y, 0, GPGPU_ERROR_NULL_POINTER);
    SPMV(&d, NULL, x, 0, y, 0, GPGPU_ERROR_NULL_POINTER);
    SPMV(&d, m, NULL, 0, y, 0, GPGPU_ERROR_NULL_POINTER);
    SPMV(&d, m, x, 0, NULL, 0, GPGPU_ERROR_NULL_POINTER);
    SPMV(&d, m, small, 0, y, 0, GPGPU_ERROR_OUT_OF_RANGE);
    SPMV(&d, m, x, 0, y, 20, GPGPU_ERROR_OUT_OF_RANGE);
    SPMV(&d, m, xy, 0, xy, 49, GPGPU_ERROR_OVERLAP);
    SPMV(&d, m, xy, 50, xy, 0, GPGPU_SUCCESS);
    SPMV(&((gpgpu_spmv_desc){.algo = 99}), m, x, 0, y, 0, GPGPU_ERROR_INVALID_ARGUMENT);
    SPMV(&((gpgpu_spmv_desc){.algo = (gpgpu_algo)-1}), m, x, 0, y, 0, GPGPU_ERROR_INVALID_ARGUMENT);
    SPMV(&((gpgpu_spmv_desc){.algo = GPGPU_ALGO_RADIX}), m, x, 0, y, 0,
         GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    SPMV(&((gpgpu_spmv_desc){.algo = GPGPU_ALGO_SPMV_VECTOR}), ell, x, 0, y, 0,
         GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    SPMV(&((gpgpu_spmv_desc){.algo = GPGPU_ALGO_SPMV_BALANCED}), coo, x, 0, y, 0,
         GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    SPMV(&((gpgpu_spmv_desc){.algo = GPGPU_ALGO_CLASSIC_SPMV}), ell, x, 0, y, 0,
         GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    gpgpu_spmv_desc v = {.algo = GPGPU_ALGO_SPMV_VECTOR, .threads_per_row = 3};
    SPMV(&v, m, x, 0, y, 0, GPGPU_ERROR_INVALID_ARGUMENT);
    v.threads_per_row = 2 * spmv_max_threads_per_row(ctx);
    SPMV(&v, m, x, 0, y, 0, GPGPU_ERROR_INVALID_ARGUMENT);
    v = (gpgpu_spmv_desc){.algo = GPGPU_ALGO_SPMV_VECTOR, .threads_per_row = 32, .rows_per_group = 64};
    SPMV(&v, m, x, 0, y, 0, GPGPU_ERROR_INVALID_ARGUMENT);
    v.rows_per_group = 6;
    SPMV(&v, m, x, 0, y, 0, GPGPU_ERROR_INVALID_ARGUMENT);

    /* wrap: sizes, format, ranges */
    gpgpu_matrix *w = (gpgpu_matrix *)x;
    EXPECT_STATUS(ctx,
                  gpgpu_matrix_wrap_csr(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32, .format = GPGPU_FORMAT_ELL},
                                        4, 4, 4, x, 0, x, 0, x, 0, &w),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT(w == NULL, "a refused wrap leaves *out NULL");
    EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &f32, 0x80000000u, 4, 4, x, 0, x, 0, x, 0, &w),
                  GPGPU_ERROR_TOO_LARGE);
    EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &f32, 100, 4, 4, x, 0, x, 0, x, 0, &w),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &f32, 4, 4, 4, NULL, 0, x, 0, x, 0, &w),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, NULL, 4, 4, 4, x, 0, x, 0, x, 0, &w),
                  GPGPU_ERROR_NULL_POINTER);

    /* tune and heuristic */
    EXPECT_STATUS(ctx, gpgpu_spmv_tune(ctx, ell, NULL, NULL, NULL), GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_spmv_tune(ctx, NULL, NULL, NULL, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spmv_heuristic(NULL, &(gpgpu_spmv_tuning){0}), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spmv_heuristic(m, NULL), GPGPU_ERROR_NULL_POINTER);

    gpgpu_buffer_destroy(x);
    gpgpu_buffer_destroy(y);
    gpgpu_buffer_destroy(xy);
    gpgpu_buffer_destroy(small);
    gpgpu_matrix_destroy(m);
    gpgpu_matrix_destroy(ell);
    gpgpu_matrix_destroy(coo);
    gpgpu_matrix_destroy(NULL);
    gpgpu_csr_free(&a);
}

/* f64 arrays in a GL buffer wrapped at byte 4 (GL only: the test reaches the library
 * buffer's GL name through the backend's struct, which a build without GL has not). */
void misaligned(void)
{
#ifdef GPGPU_HAVE_GL
    if (ctx->exec != &gl_exec_backend || type_count < 2)
        return;
    gpgpu_csr a = test_generated(GPGPU_GEN_BANDED, 20, 2);
    gpgpu_matrix *m = NULL;
    gpgpu_matrix_desc f64 = {.type = GPGPU_TYPE_F64};
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &f64, &a, &m), GPGPU_SUCCESS);
    gpgpu_buffer *lib = test_buffer(ctx, NULL, 4096), *w = NULL, *ok = test_buffer(ctx, NULL, 1024);
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, ((gl_buffer *)lib->impl)->name, 4, 2048, &w),
                  GPGPU_SUCCESS);
    gpgpu_spmv_desc d = {0};
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &d, 1, m, w, 0, 0, ok, 0), GPGPU_ERROR_MISALIGNED);
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &d, 1, m, ok, 0, 0, w, 0), GPGPU_ERROR_MISALIGNED);
    gpgpu_matrix *wm = NULL;
    EXPECT_STATUS(ctx,
                  gpgpu_matrix_wrap_csr(ctx, &f64, 4, 4, 4, ok, 0, ok, 0, w, 0, &wm),
                  GPGPU_ERROR_MISALIGNED);
    gpgpu_buffer_destroy(w);
    gpgpu_buffer_destroy(lib);
    gpgpu_buffer_destroy(ok);
    gpgpu_matrix_destroy(m);
    gpgpu_csr_free(&a);
#endif
}
