/* Sparse matrices on the GPU: made from a host CSR (checked and converted on
 * the CPU by src/sparse), or wrapping a caller's CSR buffers, which one
 * bounds-checked pass of glsl/matrix_check.comp validates on the GPU. */
#include <stdlib.h>
#include <string.h>

#include "algo/spmv.h"

static gpgpu_status check_desc(gpgpu_context *ctx, const gpgpu_matrix_desc *desc,
                               const char *what)
{
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "%s: desc is NULL", what);
    TRY(algo_check_type(ctx, desc->type, what));
    CHECK(desc->type == GPGPU_TYPE_F32 || desc->type == GPGPU_TYPE_F64, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "%s: matrix values are f32 or f64, not %s", what,
          gpgpu_type_name(desc->type));
    CHECK((int)desc->format >= 0 && (int)desc->format <= GPGPU_FORMAT_BSR, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "%s: unknown format %d", what, (int)desc->format);
    return GPGPU_SUCCESS;
}

static gpgpu_status check_dims(gpgpu_context *ctx, uint32_t rows, uint32_t cols, size_t nnz,
                               const char *what)
{
    CHECK(rows <= GPGPU_SPARSE_MAX_INDEX && cols <= GPGPU_SPARSE_MAX_INDEX &&
              nnz <= GPGPU_SPARSE_MAX_INDEX,
          ctx, GPGPU_ERROR_TOO_LARGE,
          "%s: %u x %u with %zu nonzeros: the shaders index at most 2^31 - 1 rows, columns "
          "and nonzeros",
          what, rows, cols, nnz);
    return GPGPU_SUCCESS;
}

bool matrix_overlaps(const gpgpu_matrix *a, const gpgpu_buffer *buf, size_t off, size_t bytes)
{
    if (a->owned_ints)
        return false;
    size_t size = gpgpu_type_size(a->type);
    return algo_overlap(a->ptr.buf, a->ptr.off * 4, ((size_t)a->rows + 1) * 4, buf, off, bytes) ||
           algo_overlap(a->idx.buf, a->idx.off * 4, a->nnz * 4, buf, off, bytes) ||
           algo_overlap(a->val.buf, a->val.off * size, a->nnz * size, buf, off, bytes);
}

void gpgpu_matrix_destroy(gpgpu_matrix *a)
{
    if (!a)
        return;
    buffer_destroy_internal(a->owned_ints);
    buffer_destroy_internal(a->owned_values);
    buffer_destroy_internal(a->plan);
    free(a);
}

/* ------------------------------------------------------------- from a host CSR */

/* CSC's gather needs, for each entry in row order, its position in the CSC: the
 * entries of a column are in ascending rows there, so a cursor per column walked
 * in row order meets them in the same order. */
static gpgpu_status csc_perm(gpgpu_context *ctx, const gpgpu_csr *a, const uint32_t *col_ptr,
                             uint32_t *perm)
{
    uint32_t *cursor = malloc(((size_t)a->cols + 1) * sizeof *cursor);
    CHECK(cursor, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_matrix_create: out of host memory");
    memcpy(cursor, col_ptr, (size_t)a->cols * sizeof *cursor);
    for (size_t k = 0; k < a->nnz; k++)
        perm[k] = cursor[a->col_idx[k]]++;
    free(cursor);
    return GPGPU_SUCCESS;
}

/* Lays the u32 arrays of sp one after another in one host array and names where each
 * starts; the values go to their own. */
typedef struct host_image {
    uint32_t *ints;
    size_t int_count;
    void *values;
} host_image;

static void place(spmv_array *arr, const uint32_t *src, size_t count, host_image *im)
{
    arr->off = im->int_count;
    if (src && count)
        memcpy(im->ints + im->int_count, src, count * sizeof *src);
    im->int_count += count;
}

static gpgpu_status build_image(gpgpu_context *ctx, gpgpu_matrix *m, const gpgpu_csr *a,
                                const gpgpu_sparse *sp, host_image *im)
{
    size_t ints = sp->ptr_count + m->idx_count;
    if (sp->format == GPGPU_FORMAT_COO)
        ints += sp->nnz;
    if (sp->format == GPGPU_FORMAT_SELL)
        ints += sp->rows;
    if (sp->format == GPGPU_FORMAT_CSC)
        ints += (size_t)a->rows + 1 + a->nnz;
    size_t vsize = gpgpu_type_size(m->type);
    im->ints = malloc((ints ? ints : 1) * sizeof *im->ints);
    im->values = malloc(m->stored ? m->stored * vsize : vsize);
    CHECK(im->ints && im->values, ctx, GPGPU_ERROR_OUT_OF_MEMORY,
          "gpgpu_matrix_create: out of host memory");
    place(&m->ptr, sp->ptr, sp->ptr_count, im);
    place(&m->idx, sp->idx, m->idx_count, im);
    if (sp->format == GPGPU_FORMAT_COO)
        place(&m->row, sp->row, sp->nnz, im);
    if (sp->format == GPGPU_FORMAT_SELL)
        place(&m->perm, sp->perm, sp->rows, im);
    if (sp->format == GPGPU_FORMAT_CSC) {
        place(&m->row_ptr, a->row_ptr, (size_t)a->rows + 1, im);
        place(&m->perm, NULL, a->nnz, im);
        TRY(csc_perm(ctx, a, sp->ptr, im->ints + m->perm.off));
    }
    for (size_t i = 0; i < m->stored; i++) {
        if (m->type == GPGPU_TYPE_F32)
            ((float *)im->values)[i] = (float)sp->values[i];
        else
            ((double *)im->values)[i] = sp->values[i];
    }
    return GPGPU_SUCCESS;
}

/* Every array that the format uses points at the buffers made for it. */
static void point_at(gpgpu_matrix *m, gpgpu_buffer *ints, gpgpu_buffer *values)
{
    spmv_array *arrays[] = {&m->ptr, &m->idx, &m->row, &m->row_ptr, &m->perm};
    bool used[] = {m->format != GPGPU_FORMAT_COO && m->format != GPGPU_FORMAT_ELL, true,
                   m->format == GPGPU_FORMAT_COO, m->format == GPGPU_FORMAT_CSC,
                   m->format == GPGPU_FORMAT_CSC || m->format == GPGPU_FORMAT_SELL};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        arrays[i]->buf = used[i] ? ints : NULL;
    m->val = (spmv_array){values, 0};
}

static gpgpu_status upload(gpgpu_context *ctx, gpgpu_matrix *m, const host_image *im)
{
    size_t int_bytes = im->int_count * sizeof(uint32_t);
    size_t val_bytes = m->stored * gpgpu_type_size(m->type);
    size_t limit = ctx->info.max_storage_range_bytes;
    CHECK(int_bytes <= limit && val_bytes <= limit, ctx, GPGPU_ERROR_TOO_LARGE,
          "gpgpu_matrix_create: the matrix's arrays take %zu and %zu bytes, more than one "
          "storage binding of %s holds (%zu)",
          int_bytes, val_bytes, ctx->info.renderer, limit);
    /* Buffers are never empty: a 0 x 0 matrix still binds something. */
    TRY(buffer_create_internal(ctx, int_bytes ? int_bytes : 16, &m->owned_ints));
    TRY(buffer_create_internal(ctx, val_bytes ? val_bytes : 16, &m->owned_values));
    point_at(m, m->owned_ints, m->owned_values);
    m->bytes = int_bytes + val_bytes;
    if (int_bytes)
        TRY(ctx->exec->buffer_write(m->owned_ints, 0, im->ints, int_bytes));
    if (val_bytes)
        TRY(ctx->exec->buffer_write(m->owned_values, 0, im->values, val_bytes));
    return GPGPU_SUCCESS;
}

static gpgpu_status create(gpgpu_context *ctx, const gpgpu_matrix_desc *desc, const gpgpu_csr *a,
                           gpgpu_matrix *m)
{
    char msg[256] = "";
    gpgpu_status s = gpgpu_csr_check(a, true, msg, sizeof msg);
    CHECK(s == GPGPU_SUCCESS, ctx, s, "gpgpu_matrix_create: %s", msg);
    TRY(gpgpu_csr_row_stats(a, &m->stats));
    gpgpu_sparse sp = {0};
    gpgpu_format format = desc->format ? desc->format : GPGPU_FORMAT_CSR;
    s = gpgpu_sparse_from_csr(a, format, &desc->params, &sp, msg, sizeof msg);
    if (s != GPGPU_SUCCESS) {
        gpgpu_sparse_free(&sp);
        return ctx_fail(ctx, s, "gpgpu_matrix_create: %s", msg);
    }
    m->format = format;
    m->stored = sp.stored;
    m->idx_count = format == GPGPU_FORMAT_BSR ? sp.ptr[sp.ptr_count - 1] : sp.stored;
    m->k = format == GPGPU_FORMAT_ELL ? sp.width : format == GPGPU_FORMAT_SELL ? sp.c
         : format == GPGPU_FORMAT_BSR ? sp.block : 0;
    host_image im = {0};
    s = build_image(ctx, m, a, &sp, &im);
    if (s == GPGPU_SUCCESS)
        s = ctx->exec->begin(ctx);
    if (s == GPGPU_SUCCESS)
        s = ctx_end(ctx, upload(ctx, m, &im));
    free(im.ints);
    free(im.values);
    gpgpu_sparse_free(&sp);
    return s;
}

gpgpu_status gpgpu_matrix_create(gpgpu_context *ctx, const gpgpu_matrix_desc *desc,
                                 const gpgpu_csr *a, gpgpu_matrix **out)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(out, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_matrix_create: out is NULL");
    *out = NULL;
    CHECK(a, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_matrix_create: the CSR is NULL");
    TRY(check_desc(ctx, desc, "gpgpu_matrix_create"));
    TRY(check_dims(ctx, a->rows, a->cols, a->nnz, "gpgpu_matrix_create"));
    gpgpu_matrix *m = calloc(1, sizeof *m);
    CHECK(m, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_matrix_create: out of host memory");
    *m = (gpgpu_matrix){.ctx = ctx, .type = desc->type, .rows = a->rows, .cols = a->cols,
                        .nnz = a->nnz};
    gpgpu_status s = create(ctx, desc, a, m);
    if (s != GPGPU_SUCCESS) {
        gpgpu_matrix_destroy(m);
        return s;
    }
    *out = m;
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------ wrapping a caller's CSR */

static gpgpu_status validation_stage(gpgpu_context *ctx, const gpgpu_matrix *a, unsigned stage,
                                     gpgpu_buffer *status, size_t invocations)
{
    exec_dispatch d = {.variant = {"matrix_check", GPGPU_TYPE_F32, 0, SPMV_WG, 1}};
    d.params[0] = stage;
    d.params[MATRIX_CHECK_P_ROWS] = a->rows;
    d.params[MATRIX_CHECK_P_COLS] = a->cols;
    d.params[MATRIX_CHECK_P_NNZ] = (uint32_t)a->nnz;
    d.params[MATRIX_CHECK_P_PTR_OFF] = algo_index(a->ptr.buf, a->ptr.off, SPMV_U32);
    d.params[MATRIX_CHECK_P_IDX_OFF] = algo_index(a->idx.buf, a->idx.off, SPMV_U32);
    d.params[MATRIX_CHECK_P_AUX_OFF] = algo_index(status, 0, SPMV_U32);
    d.bind[0] = a->ptr.buf;
    d.bind[1] = a->idx.buf;
    d.bind[5] = status;
    d.groups = algo_groups(invocations, SPMV_WG);
    return algo_stage(ctx, &d);
}

/* The first bad row of the record and what is wrong with it, as a failure. */
static gpgpu_status report(gpgpu_context *ctx, const uint32_t *st, const char *caller)
{
    static const char *const what[] = {
        [MATRIX_CHECK_V_FIRST] = "row_ptr[0] is not 0",
        [MATRIX_CHECK_V_DECREASE] = "its row pointers decrease (row_ptr[i + 1] < row_ptr[i])",
        [MATRIX_CHECK_V_LAST] = "row_ptr[rows] is not nnz",
        [MATRIX_CHECK_V_COLUMN] = "a column index is not below cols",
        [MATRIX_CHECK_V_UNSORTED] = "its column indices do not ascend strictly"};
    unsigned worst = MATRIX_CHECK_V_FIRST;
    for (unsigned k = MATRIX_CHECK_V_FIRST; k <= MATRIX_CHECK_V_UNSORTED; k++)
        if (st[k] < st[worst])
            worst = k;
    if (st[worst] == UINT32_MAX)
        return GPGPU_SUCCESS;
    return ctx_fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s: row %u: %s", caller, st[worst],
                    what[worst]);
}

/* The row pointers checked on the GPU (one invocation each) into the status record in
 * `status`, which is read back into st; a->stats from it. */
static gpgpu_status check_ptrs(gpgpu_context *ctx, gpgpu_matrix *a, const char *caller,
                               gpgpu_buffer *status, uint32_t *st)
{
    for (unsigned k = 0; k < MATRIX_CHECK_STATUS_WORDS; k++)
        st[k] = k == MATRIX_CHECK_V_MAX_LEN || k == MATRIX_CHECK_V_EMPTY ? 0 : UINT32_MAX;
    TRY(ctx->exec->buffer_write(status, 0, st, MATRIX_CHECK_STATUS_WORDS * 4));
    TRY(validation_stage(ctx, a, MATRIX_CHECK_STAGE_PTRS, status, (size_t)a->rows + 1));
    TRY(ctx->exec->buffer_read(status, 0, st, MATRIX_CHECK_STATUS_WORDS * 4));
    TRY(report(ctx, st, caller));
    a->stats = (gpgpu_row_stats){.min = a->rows ? st[MATRIX_CHECK_V_MIN_LEN] : 0,
                                 .max = st[MATRIX_CHECK_V_MAX_LEN],
                                 .mean = a->rows ? (double)a->nnz / a->rows : 0,
                                 .empty_rows = st[MATRIX_CHECK_V_EMPTY]};
    return GPGPU_SUCCESS;
}

gpgpu_status matrix_row_stats(gpgpu_context *ctx, gpgpu_matrix *a, const char *caller)
{
    uint32_t st[MATRIX_CHECK_STATUS_WORDS];
    gpgpu_buffer *status;
    TRY(ctx_scratch(ctx, 0, sizeof st, &status));
    return check_ptrs(ctx, a, caller, status, st);
}

/* Pointers first; the entries only once the pointers are sound, since each entry finds its
 * row by a search over them. */
static gpgpu_status validate(gpgpu_context *ctx, gpgpu_matrix *a, const char *caller)
{
    uint32_t st[MATRIX_CHECK_STATUS_WORDS];
    gpgpu_buffer *status;
    TRY(ctx_scratch(ctx, 0, sizeof st, &status));
    TRY(check_ptrs(ctx, a, caller, status, st));
    if (a->nnz > 0) {
        TRY(validation_stage(ctx, a, MATRIX_CHECK_STAGE_ENTRIES, status, a->nnz));
        TRY(ctx->exec->buffer_read(status, 0, st, sizeof st));
        TRY(report(ctx, st, caller));
    }
    buffer_destroy_internal(a->plan); /* made for the structure before */
    a->plan = NULL;
    return GPGPU_SUCCESS;
}

static gpgpu_status validate_call(gpgpu_matrix *a, const char *caller)
{
    gpgpu_context *ctx = a->ctx;
    CHECK(!a->owned_ints, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: the matrix was made by gpgpu_matrix_create from a checked "
          "CSR; only wrapped matrices are validated", caller);
    CHECK(!ctx->exec->recording_for_caller(ctx), ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "%s: work is recorded into the caller's command buffer, so the validation's "
          "result cannot come back; call gpgpu_vk_record_into with VK_NULL_HANDLE first",
          caller);
    TRY(ctx->exec->begin(ctx));
    return ctx_end(ctx, validate(ctx, a, caller));
}

gpgpu_status gpgpu_matrix_validate(gpgpu_matrix *a)
{
    if (!a)
        return GPGPU_ERROR_NULL_POINTER;
    return validate_call(a, "gpgpu_matrix_validate");
}

gpgpu_status gpgpu_matrix_wrap_csr(gpgpu_context *ctx, const gpgpu_matrix_desc *desc,
                                   uint32_t rows, uint32_t cols, size_t nnz,
                                   gpgpu_buffer *row_ptr, size_t row_ptr_offset,
                                   gpgpu_buffer *col_idx, size_t col_idx_offset,
                                   gpgpu_buffer *values, size_t values_offset,
                                   gpgpu_matrix **out)
{
    static const char what[] = "gpgpu_matrix_wrap_csr";
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(out, ctx, GPGPU_ERROR_NULL_POINTER, "%s: out is NULL", what);
    *out = NULL;
    TRY(check_desc(ctx, desc, what));
    CHECK(desc->format == 0 || desc->format == GPGPU_FORMAT_CSR, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "%s: wrapped matrices are CSR (desc->format is %s); make other formats with "
          "gpgpu_matrix_create", what, gpgpu_format_name(desc->format));
    TRY(check_dims(ctx, rows, cols, nnz, what));
    TRY(algo_check_range(ctx, row_ptr, row_ptr_offset, (size_t)rows + 1, SPMV_U32,
                         "gpgpu_matrix_wrap_csr (row_ptr)"));
    TRY(algo_check_range(ctx, col_idx, col_idx_offset, nnz, SPMV_U32,
                         "gpgpu_matrix_wrap_csr (col_idx)"));
    TRY(algo_check_range(ctx, values, values_offset, nnz, desc->type,
                         "gpgpu_matrix_wrap_csr (values)"));
    gpgpu_matrix *m = calloc(1, sizeof *m);
    CHECK(m, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    *m = (gpgpu_matrix){
        .ctx = ctx, .type = desc->type, .format = GPGPU_FORMAT_CSR, .rows = rows,
        .cols = cols, .nnz = nnz, .stored = nnz, .idx_count = nnz,
        .ptr = {row_ptr, row_ptr_offset}, .idx = {col_idx, col_idx_offset},
        .val = {values, values_offset},
        .bytes = ((size_t)rows + 1 + nnz) * sizeof(uint32_t) + nnz * gpgpu_type_size(desc->type)};
    gpgpu_status s = validate_call(m, what);
    if (s != GPGPU_SUCCESS) {
        gpgpu_matrix_destroy(m);
        return s;
    }
    *out = m;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_matrix_get_info(const gpgpu_matrix *a, gpgpu_matrix_info *info)
{
    if (!a)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(info, a->ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_matrix_get_info: info is NULL");
    *info = (gpgpu_matrix_info){.type = a->type, .format = a->format, .rows = a->rows,
                                .cols = a->cols, .nnz = a->nnz, .stored = a->stored,
                                .bytes = a->bytes};
    return GPGPU_SUCCESS;
}
