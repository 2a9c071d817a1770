/* gpgpu_matrix_transpose (A^T on the GPU: a radix sort of the entries by column, then the
 * stages of glsl/transpose.comp, ROW_OF, PERMUTE and COL_PTRS) and gpgpu_matrix_download (a
 * CSR matrix back to the host, its values as double). */
#include <stdlib.h>

#include "algo/ids/transpose_ids.h"
#include "algo/sort.h"
#include "algo/spgemm_internal.h"

enum { TRANSPOSE_STAGES(ALGO_ID) };
enum { TRANSPOSE_PARAMS(ALGO_ID) };

/* A^T: the entries sorted by column (stable: rows stay ascending), each entry's row, then
 * A^T's columns, values and row pointers. Every work array is one word a nonzero (so each
 * fits a binding wherever A's values do): the sorted keys and their entry indices, the
 * sort's other two, and the rows, in the sort's other keys once it is done. */
static gpgpu_status transpose(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_matrix **out)
{
    size_t n = a->nnz;
    TRY(spgemm_new_matrix(ctx, a->type, a->cols, a->rows, n, out));
    if (n == 0)
        return GPGPU_SUCCESS;
    spgemm_operand oa;
    TRY(spgemm_operand_open(ctx, a, &oa));
    gpgpu_buffer *keys = NULL, *entries = NULL, *alt_keys = NULL, *alt_entries = NULL;
    gpgpu_buffer *hist = NULL, *part = NULL; /* apart, so each is a binding of its own */
    size_t hist_words = radix_hist_count(ctx, GPGPU_TYPE_U32, n),
           part_words = radix_part_count(ctx, GPGPU_TYPE_U32, n);
    gpgpu_status s = buffer_create_internal(ctx, n * 4, &keys);
    if (s == GPGPU_SUCCESS)
        s = buffer_create_internal(ctx, n * 4, &entries);
    if (s == GPGPU_SUCCESS)
        s = buffer_create_internal(ctx, n * 4, &alt_keys);
    if (s == GPGPU_SUCCESS)
        s = buffer_create_internal(ctx, n * 4, &alt_entries);
    if (s == GPGPU_SUCCESS && hist_words > 0) /* none: one work-group sorts */
        s = buffer_create_internal(ctx, hist_words * 4, &hist);
    if (s == GPGPU_SUCCESS && part_words > 0)
        s = buffer_create_internal(ctx, part_words * 4, &part);
    sort_keys dst = {.type = GPGPU_TYPE_U32, .keys = keys, .keys_off = 0, .pay = entries,
                     .pay_off = 0, .n = n, .key_passes = spgemm_key_passes_below(a->cols)};
    sort_keys src = dst, other = dst;
    src.keys = a->idx.buf;
    src.keys_off = a->idx.off;
    src.flags = SORT_PAYLOAD_IS_INDEX;
    other.keys = alt_keys;
    other.pay = alt_entries;
    if (s == GPGPU_SUCCESS)
        s = radix_sort(ctx, &src, &dst, &other, hist, 0, part, 0);
    gpgpu_buffer *rows = alt_keys; /* free once the sort is done */
    exec_dispatch d = {.variant = {"transpose", a->type, 0, SPGEMM_WG, 1}};
    d.params[0] = TRANSPOSE_STAGE_ROW_OF;
    d.bind[0] = oa.ints;
    d.bind[1] = oa.vals;
    d.bind[4] = rows;
    d.params[TRANSPOSE_P_ROWS] = a->rows;
    d.params[TRANSPOSE_P_NNZ] = (uint32_t)n;
    d.params[TRANSPOSE_P_PTR] = oa.ptr;
    d.params[TRANSPOSE_P_VAL] = oa.val;
    d.groups = algo_groups(n, SPGEMM_WG);
    if (s == GPGPU_SUCCESS)
        s = algo_stage(ctx, &d);
    d.params[0] = TRANSPOSE_STAGE_PERMUTE;
    d.bind[0] = rows;
    d.bind[2] = (*out)->owned_ints;
    d.bind[3] = (*out)->owned_values;
    d.bind[4] = entries;
    d.params[TRANSPOSE_P_T_IDX] = a->cols + 1;
    if (s == GPGPU_SUCCESS)
        s = algo_stage(ctx, &d);
    d.params[0] = TRANSPOSE_STAGE_COL_PTRS;
    d.bind[6] = keys;
    d.params[TRANSPOSE_P_COLS] = a->cols;
    d.params[TRANSPOSE_P_KEY_OFF] = 0;
    d.groups = algo_groups((size_t)a->cols + 1, SPGEMM_WG);
    if (s == GPGPU_SUCCESS)
        s = algo_stage(ctx, &d);
    buffer_destroy_internal(keys);
    buffer_destroy_internal(entries);
    buffer_destroy_internal(alt_keys);
    buffer_destroy_internal(alt_entries);
    buffer_destroy_internal(hist);
    buffer_destroy_internal(part);
    spgemm_operand_close(&oa);
    if (s == GPGPU_SUCCESS)
        s = spgemm_fill_stats(ctx, *out);
    return s;
}

gpgpu_status gpgpu_matrix_transpose(gpgpu_context *ctx, const gpgpu_matrix *a,
                                    gpgpu_matrix **out)
{
    static const char what[] = "gpgpu_matrix_transpose";
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(out, ctx, GPGPU_ERROR_NULL_POINTER, "%s: out is NULL", what);
    *out = NULL;
    TRY(spgemm_check_matrix(ctx, a, "the matrix", what));
    TRY(spgemm_check_readback(ctx, what));
    TRY(ctx->exec->begin(ctx));
    gpgpu_status s = transpose(ctx, a, out);
    if (s != GPGPU_SUCCESS) {
        gpgpu_matrix_destroy(*out);
        *out = NULL;
    }
    return ctx_end(ctx, s);
}

static gpgpu_status download(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_csr *out)
{
    size_t n = a->nnz, vs = gpgpu_type_size(a->type);
    out->rows = a->rows;
    out->cols = a->cols;
    out->nnz = n;
    out->row_ptr = malloc(((size_t)a->rows + 1) * 4);
    out->col_idx = malloc(n ? n * 4 : 1);
    out->values = malloc(n ? n * sizeof(double) : 1);
    void *raw = malloc(n ? n * vs : 1);
    gpgpu_status s = out->row_ptr && out->col_idx && out->values && raw
                         ? GPGPU_SUCCESS
                         : ctx_fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                                    "gpgpu_matrix_download: out of host memory");
    if (s == GPGPU_SUCCESS)
        s = ctx->exec->buffer_read(a->ptr.buf, a->ptr.off * 4, out->row_ptr,
                                   ((size_t)a->rows + 1) * 4);
    if (s == GPGPU_SUCCESS && n)
        s = ctx->exec->buffer_read(a->idx.buf, a->idx.off * 4, out->col_idx, n * 4);
    if (s == GPGPU_SUCCESS && n)
        s = ctx->exec->buffer_read(a->val.buf, a->val.off * vs, raw, n * vs);
    for (size_t k = 0; s == GPGPU_SUCCESS && k < n; k++)
        out->values[k] = a->type == GPGPU_TYPE_F32 ? ((float *)raw)[k] : ((double *)raw)[k];
    free(raw);
    return s;
}

gpgpu_status gpgpu_matrix_download(const gpgpu_matrix *a, gpgpu_csr *out)
{
    if (!a)
        return GPGPU_ERROR_NULL_POINTER;
    gpgpu_context *ctx = a->ctx;
    CHECK(out, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_matrix_download: out is NULL");
    *out = (gpgpu_csr){0};
    TRY(spgemm_check_matrix(ctx, a, "the matrix", "gpgpu_matrix_download"));
    TRY(spgemm_check_readback(ctx, "gpgpu_matrix_download"));
    TRY(ctx->exec->begin(ctx));
    gpgpu_status s = ctx_end(ctx, download(ctx, a, out));
    if (s != GPGPU_SUCCESS)
        gpgpu_csr_free(out);
    return s;
}
