/* Counts that stay on the GPU: the staging stage every family's device counts go through
 * (src/algo/count.h). */
#include "algo/count.h"

gpgpu_status count_check(gpgpu_context *ctx, const gpgpu_buffer *count_buffer,
                         size_t count_offset, const char *what)
{
    if (!count_buffer)
        return GPGPU_SUCCESS;
    return algo_check_range(ctx, count_buffer, count_offset, 1, GPGPU_TYPE_U32, what);
}

static exec_dispatch one_word(unsigned stage, gpgpu_buffer *src, gpgpu_buffer *dst)
{
    exec_dispatch d = {.variant = {"count", GPGPU_TYPE_U32, GPGPU_OP_SUM, 1, 1}};
    d.params[0] = stage;
    d.bind[0] = src ? src : dst; /* bound so that the program sees a valid source */
    d.bind[1] = dst;
    d.groups = 1;
    return d;
}

gpgpu_status count_stage_load(gpgpu_context *ctx, gpgpu_buffer *src, size_t src_off,
                              size_t bound, gpgpu_buffer *word, size_t word_off)
{
    exec_dispatch d = one_word(COUNT_STAGE_LOAD, src, word);
    d.params[COUNT_P_BOUND] = (uint32_t)bound;
    d.params[COUNT_P_SRC_OFF] = algo_index(src, src_off, GPGPU_TYPE_U32);
    d.params[COUNT_P_DST_OFF] = algo_index(word, word_off, GPGPU_TYPE_U32);
    return algo_stage(ctx, &d);
}

gpgpu_status count_stage_put(gpgpu_context *ctx, gpgpu_buffer *dst, size_t dst_off,
                             uint32_t value)
{
    exec_dispatch d = one_word(COUNT_STAGE_PUT, NULL, dst);
    d.params[COUNT_P_DST_OFF] = algo_index(dst, dst_off, GPGPU_TYPE_U32);
    d.params[COUNT_P_VALUE] = value;
    return algo_stage(ctx, &d);
}

gpgpu_status count_stage(gpgpu_context *ctx, gpgpu_buffer *count_buffer, size_t count_offset,
                         size_t bound, gpgpu_buffer **staged)
{
    *staged = NULL;
    if (!count_buffer)
        return GPGPU_SUCCESS;
    gpgpu_buffer *word;
    TRY(ctx_scratch(ctx, COUNT_SLOT, sizeof(uint32_t), &word));
    TRY(count_stage_load(ctx, count_buffer, count_offset, bound, word, 0));
    *staged = word;
    return GPGPU_SUCCESS;
}
