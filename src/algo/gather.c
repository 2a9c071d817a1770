/* Gather and scatter of records: gpgpu_gather, gpgpu_scatter and the stage of
 * glsl/gather.comp.
 *
 * Every index is checked before a record moves: the reduce family's MAX over the indices
 * (into a word of the context's) is the first stage. With a count from the host, and
 * nothing recorded for the caller, the call reads that word back and fails with the
 * largest index before the moving stage is dispatched. With a count on the GPU, or while
 * recording, nothing can come back: the moving stage itself reads the word, and where an
 * index is out of range it writes nothing (and 1 to desc.status_out). */
#include <stdio.h>

#include "algo/count.h"
#include "algo/gather.h"
#include "algo/reduce.h"

unsigned gather_unit(const gather_job *job)
{
    uint32_t in_at = algo_index(job->in, job->in_off * job->words, GPGPU_TYPE_U32);
    uint32_t out_at = algo_index(job->out, job->out_off * job->words, GPGPU_TYPE_U32);
    for (unsigned unit = 4; unit > 1; unit /= 2)
        if (job->words % unit == 0 && in_at % unit == 0 && out_at % unit == 0)
            return unit;
    return 1;
}

gpgpu_status gather_stage_move(gpgpu_context *ctx, const gather_job *job, bool scatter)
{
    unsigned unit = gather_unit(job);
    size_t units = job->words / unit;
    exec_dispatch d = {.variant = {"gather", GPGPU_TYPE_U32, GPGPU_OP_SUM, GATHER_WG,
                                   GATHER_ITEMS}};
    exec_shape_set(&d.variant, GATHER_SHAPE_UNIT, unit);
    exec_shape_set(&d.variant, GATHER_SHAPE_UNITS, (uint32_t)units);
    d.params[0] = scatter ? GATHER_STAGE_SCATTER : GATHER_STAGE_GATHER;
    d.params[GATHER_P_N] = (uint32_t)job->n;
    d.bind[0] = job->in;
    d.params[GATHER_P_SRC_OFF] = algo_index(job->in, job->in_off * job->words, GPGPU_TYPE_U32) / unit;
    d.bind[1] = job->out;
    d.params[GATHER_P_DST_OFF] =
        algo_index(job->out, job->out_off * job->words, GPGPU_TYPE_U32) / unit;
    d.bind[2] = job->idx;
    d.params[GATHER_P_IDX_OFF] = algo_index(job->idx, job->idx_off, GPGPU_TYPE_U32);
    d.bind[3] = job->largest;
    d.params[GATHER_P_LARGEST_OFF] = algo_index(job->largest, job->largest_off, GPGPU_TYPE_U32);
    d.params[GATHER_P_LIMIT] = (uint32_t)job->limit;
    if (job->status) {
        d.bind[4] = job->status;
        d.params[GATHER_P_STATUS_OFF] = algo_index(job->status, job->status_off, GPGPU_TYPE_U32);
        d.params[GATHER_P_HAS_STATUS] = 1;
    }
    count_bind(&d, job->count, GATHER_P_N);
    d.groups = algo_groups(job->n * units, GATHER_WG * GATHER_ITEMS);
    return algo_stage(ctx, &d);
}

/* ------------------------------------------------------------- checks */

/* Records [off, off + count) of `words` words in buf, as u32 elements. */
static gpgpu_status check_records(gpgpu_context *ctx, const gpgpu_buffer *buf, size_t off,
                                  size_t count, size_t words, const char *what)
{
    CHECK(buf, ctx, GPGPU_ERROR_NULL_POINTER, "%s: buffer is NULL", what);
    size_t most = SIZE_MAX / words;
    CHECK(off <= most && count <= most - off, ctx, GPGPU_ERROR_OUT_OF_RANGE,
          "%s: records [%zu, %zu + %zu) of %zu bytes run past any buffer", what, off, off,
          count, words * 4);
    return algo_check_range(ctx, buf, off * words, count * words, GPGPU_TYPE_U32, what);
}

/* The arguments of either call: `in_records` of in, `out_records` of out from their
 * offsets (gather: in_count and count; scatter: count and out_count). */
static gpgpu_status check_args(gpgpu_context *ctx, const char *name,
                               const gpgpu_gather_desc *desc, gpgpu_buffer *in, size_t in_off,
                               size_t in_records, gpgpu_buffer *idx, size_t idx_off,
                               gpgpu_buffer *out, size_t out_off, size_t out_records,
                               size_t n)
{
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "%s: desc is NULL", name);
    CHECK(desc->record_bytes % 4 == 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: records of %zu bytes: give a multiple of 4", name, desc->record_bytes);
    size_t words = desc->record_bytes ? desc->record_bytes / 4 : 1;
    char what[96];
    snprintf(what, sizeof what, "%s (input)", name);
    TRY(check_records(ctx, in, in_off, in_records, words, what));
    snprintf(what, sizeof what, "%s (output)", name);
    TRY(check_records(ctx, out, out_off, out_records, words, what));
    snprintf(what, sizeof what, "%s (indices)", name);
    TRY(algo_check_range(ctx, idx, idx_off, n, GPGPU_TYPE_U32, what));
    snprintf(what, sizeof what, "%s (count_buffer)", name);
    TRY(count_check(ctx, desc->count_buffer, desc->count_offset, what));
    if (desc->status_out) {
        snprintf(what, sizeof what, "%s (status_out)", name);
        TRY(algo_check_range(ctx, desc->status_out, desc->status_out_offset, 1, GPGPU_TYPE_U32,
                             what));
    }
    const algo_range r[] = {
        {in, in_off * words * 4, in_records * words * 4, "the input"},
        {idx, idx_off * 4, n * 4, "the indices"},
        {out, out_off * words * 4, out_records * words * 4, "the output"},
        {desc->status_out, desc->status_out_offset * 4, 4, "status_out"},
    };
    return algo_check_disjoint(ctx, name, r, sizeof r / sizeof *r, 2);
}

/* The call's work: the count staged, the largest index, its check, the move. */
static gpgpu_status run(gpgpu_context *ctx, const char *name, const gpgpu_gather_desc *desc,
                        gather_job job, bool scatter)
{
    TRY(count_stage(ctx, desc->count_buffer, desc->count_offset, job.n, &job.count));
    TRY(ctx_scratch(ctx, GATHER_SLOT, sizeof(uint32_t), &job.largest));
    job.largest_off = 0;
    reduce_source idx = {.buf = job.idx, .off = job.idx_off, .count = job.count};
    TRY(reduce_fast(ctx, GPGPU_TYPE_U32, GPGPU_OP_MAX, idx, job.n, job.largest, 0));
    if (!job.count && !ctx->exec->recording_for_caller(ctx)) {
        uint32_t largest;
        TRY(ctx->exec->buffer_read(job.largest, 0, &largest, sizeof largest));
        CHECK(largest < job.limit, ctx, GPGPU_ERROR_OUT_OF_RANGE,
              "%s: index %u (the largest) is past the %s's %zu records; nothing was written",
              name, largest, scatter ? "output" : "input", job.limit);
    }
    return gather_stage_move(ctx, &job, scatter);
}

/* What both calls share once their arguments are checked. */
static gpgpu_status start(gpgpu_context *ctx, const char *name, const gpgpu_gather_desc *desc,
                          gather_job job, bool scatter)
{
    if (job.n == 0 && !desc->status_out)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    if (job.n == 0)
        return ctx_end(ctx, count_stage_put(ctx, desc->status_out, desc->status_out_offset, 0));
    job.status = desc->status_out;
    job.status_off = desc->status_out_offset;
    return ctx_end(ctx, run(ctx, name, desc, job, scatter));
}

gpgpu_status gpgpu_gather(gpgpu_context *ctx, const gpgpu_gather_desc *desc, gpgpu_buffer *in,
                          size_t in_offset, size_t in_count, gpgpu_buffer *indices,
                          size_t indices_offset, gpgpu_buffer *out, size_t out_offset,
                          size_t count)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    TRY(check_args(ctx, "gpgpu_gather", desc, in, in_offset, in_count, indices, indices_offset,
                   out, out_offset, count, count));
    gather_job job = {.words = desc->record_bytes ? desc->record_bytes / 4 : 1, .in = in,
                      .in_off = in_offset, .idx = indices, .idx_off = indices_offset,
                      .out = out, .out_off = out_offset, .n = count, .limit = in_count};
    return start(ctx, "gpgpu_gather", desc, job, false);
}

gpgpu_status gpgpu_scatter(gpgpu_context *ctx, const gpgpu_gather_desc *desc, gpgpu_buffer *in,
                           size_t in_offset, gpgpu_buffer *indices, size_t indices_offset,
                           gpgpu_buffer *out, size_t out_offset, size_t out_count,
                           size_t count)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    TRY(check_args(ctx, "gpgpu_scatter", desc, in, in_offset, count, indices, indices_offset,
                   out, out_offset, out_count, count));
    gather_job job = {.words = desc->record_bytes ? desc->record_bytes / 4 : 1, .in = in,
                      .in_off = in_offset, .idx = indices, .idx_off = indices_offset,
                      .out = out, .out_off = out_offset, .n = count, .limit = out_count};
    return start(ctx, "gpgpu_scatter", desc, job, true);
}
