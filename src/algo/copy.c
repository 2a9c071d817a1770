/* Copies between buffers by compute shader; gpgpu_buffer_copy. */
#include "algo/copy.h"

gpgpu_status copy_stage(gpgpu_context *ctx, gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                        size_t dst_off, size_t bytes)
{
    const algo_copy_plan *t = &ctx->plans.copy;
    unsigned items = t->items < COPY_MAX_ITEMS ? t->items : COPY_MAX_ITEMS;
    exec_dispatch d = {.variant = {"copy", GPGPU_TYPE_U32, GPGPU_OP_SUM, COPY_WG, items}};
    d.params[0] = COPY_STAGE_COPY;
    d.bind[0] = src;
    d.bind[1] = dst;
    size_t words = bytes / 4;
    d.params[COPY_P_N] = (uint32_t)words;
    d.params[COPY_P_SRC_OFF] = algo_index(src, src_off / 4, GPGPU_TYPE_U32);
    d.params[COPY_P_DST_OFF] = algo_index(dst, dst_off / 4, GPGPU_TYPE_U32);
    /* A group per block (up to the knob), not a few groups striding over the
     * range: measured on the H100 (docs/DECISIONS.md, Reduce and copy), 1 GiB in
     * 711 us against 779 with 4096 groups, 256 MiB in 181 against 195. */
    size_t block = (size_t)COPY_WG * items;
    size_t blocks = size_ceil_div(words, block), most = t->max_groups;
    d.groups = (uint32_t)(blocks < most ? blocks : most);
    return algo_stage(ctx, &d);
}

gpgpu_status gpgpu_buffer_copy(gpgpu_buffer *src, size_t src_offset, gpgpu_buffer *dst,
                               size_t dst_offset, size_t bytes)
{
    if (!src || !dst)
        return GPGPU_ERROR_NULL_POINTER;
    gpgpu_context *ctx = src->ctx;
    CHECK(dst->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_buffer_copy: the buffers belong to different contexts");
    CHECK(src_offset % 4 == 0 && dst_offset % 4 == 0 && bytes % 4 == 0, ctx, GPGPU_ERROR_MISALIGNED,
          "gpgpu_buffer_copy: offsets and size must be multiples of 4");
    TRY(algo_check_range(ctx, src, src_offset / 4, bytes / 4, GPGPU_TYPE_U32,
                         "gpgpu_buffer_copy (source)"));
    TRY(algo_check_range(ctx, dst, dst_offset / 4, bytes / 4, GPGPU_TYPE_U32,
                         "gpgpu_buffer_copy (destination)"));
    CHECK(!algo_overlap(src, src_offset, bytes, dst, dst_offset, bytes), ctx, GPGPU_ERROR_OVERLAP,
          "gpgpu_buffer_copy: source and destination overlap");
    if (bytes == 0)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    if (ctx->transfer_copies)
        return ctx_end(ctx, ctx->exec->buffer_copy(src, src_offset, dst, dst_offset, bytes));
    return ctx_end(ctx, copy_stage(ctx, src, src_offset, dst, dst_offset, bytes));
}
