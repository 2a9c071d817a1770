/* Reductions: the fast two-pass default and Kiciak's three classic ones. */
#include "algo/copy.h"
#include "algo/count.h"
#include "algo/reduce.h"

/* The fold's counter lives in the last scratch slot, which nothing else uses. */
enum { SCRATCH_FOLD_COUNTER = CTX_SCRATCH_SLOTS - 1 };

reduce_plan reduce_plan_for(const gpgpu_context *ctx, size_t n)
{
    const algo_reduce_plan *t = &ctx->plans.reduce;
    reduce_plan p = {.block = REDUCE_WG * t->items};
    size_t blocks = size_ceil_div(n, p.block);
    /* Measured on the H100 (docs/DECISIONS.md): 1024 groups take 2^22 in
     * 11.9 us and 2^24 in 32.1 us where 4096 take 18.1 and 37.8; from 2^27
     * on 4096 are ahead by 2%; below 2^24 512 are ahead of 1024 by 2-6%
     * (2^20 8.2 against 8.7 us, 2^22 9.8 against 10.2), at 2^24 7% behind. */
    size_t most = t->max_groups ? t->max_groups
                  : n >= REDUCE_MANY_FROM ? REDUCE_MAX_GROUPS
                  : n >= REDUCE_MID_FROM  ? REDUCE_MID_GROUPS
                                          : REDUCE_FEW_GROUPS;
    p.groups = (uint32_t)(blocks == 0 ? 1 : blocks < most ? blocks : most);
    return p;
}

static exec_dispatch fast_stage(const gpgpu_context *ctx, gpgpu_type type, gpgpu_op op)
{
    return (exec_dispatch){.variant = {"reduce", type, op, REDUCE_WG, ctx->plans.reduce.items}};
}

static exec_dispatch classic_stage(gpgpu_type type, gpgpu_op op, unsigned stage)
{
    exec_dispatch d = {.variant = {"reduce", type, op, CLASSIC_WG, 1}};
    d.params[0] = stage;
    return d;
}

/* TILES over src into dst: the dispatch both TILES stages start from. */
static exec_dispatch tiles_dispatch(const gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                    reduce_source src, size_t n, gpgpu_buffer *dst,
                                    size_t dst_off, uint32_t groups)
{
    exec_dispatch d = fast_stage(ctx, type, op);
    algo_bind_io(&d, src.buf, src.off, dst, dst_off, n);
    d.params[0] = src.update  ? REDUCE_STAGE_UPDATE_DOT
                  : src.times ? REDUCE_STAGE_DOT
                              : REDUCE_STAGE_TILES;
    if (src.times) {
        d.bind[4] = src.times;
        d.params[REDUCE_P_TIMES] = 1;
        d.params[REDUCE_P_TIMES_OFF] = algo_index(src.times, src.times_off, type);
    }
    if (src.update) {
        d.bind[5] = src.update;
        d.params[REDUCE_P_UPDATE] = src.beta == 0.0 ? 2 : 1;
        d.params[REDUCE_P_UPDATE_OFF] = algo_index(src.update, src.update_off, type);
        algo_put_scalar(&d, REDUCE_P_ALPHA, type, src.alpha);
        algo_put_scalar(&d, REDUCE_P_BETA, type, src.beta);
    }
    count_bind(&d, src.count, REDUCE_P_N);
    d.groups = groups;
    return d;
}

gpgpu_status reduce_stage_tiles(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                reduce_source src, size_t n, bool src_pairs, gpgpu_buffer *dst,
                                size_t dst_off, uint32_t groups)
{
    exec_dispatch d = tiles_dispatch(ctx, type, op, src, n, dst, dst_off, groups);
    d.params[REDUCE_P_SRC_PAIRS] = src_pairs;
    return algo_stage(ctx, &d);
}

gpgpu_status reduce_stage_fold(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                               reduce_source src, size_t n, gpgpu_buffer *part,
                               gpgpu_buffer *counter, gpgpu_buffer *out, size_t out_off,
                               uint32_t groups)
{
    exec_dispatch d = tiles_dispatch(ctx, type, op, src, n, part, 0, groups);
    d.bind[2] = out;
    d.bind[3] = counter;
    d.params[REDUCE_P_FOLD] = 1;
    d.params[REDUCE_P_RESULT_OFF] = algo_index(out, out_off, type);
    return algo_stage(ctx, &d);
}

/* The fold's counter: one word in a scratch slot of its own, zeroed when the
 * slot is made (by the program the fold runs, so no other is built); every
 * fold sets it back to zero. */
static gpgpu_status fold_counter(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                 gpgpu_buffer **out)
{
    bool fresh = ctx->scratch[SCRATCH_FOLD_COUNTER] == NULL;
    TRY(ctx_scratch(ctx, SCRATCH_FOLD_COUNTER, sizeof(uint32_t), out));
    if (!fresh)
        return GPGPU_SUCCESS;
    exec_dispatch d = fast_stage(ctx, type, op);
    d.bind[3] = *out;
    d.params[0] = REDUCE_STAGE_COUNTER;
    d.groups = 1;
    gpgpu_status s = algo_stage(ctx, &d);
    if (s != GPGPU_SUCCESS) { /* not zeroed (a kept buffer holds old data): made again next time */
        buffer_destroy_internal(ctx->scratch[SCRATCH_FOLD_COUNTER]);
        ctx->scratch[SCRATCH_FOLD_COUNTER] = NULL;
    }
    return s;
}

gpgpu_status reduce_stage_expand(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                 gpgpu_buffer *src, size_t src_off, size_t n, gpgpu_buffer *dst,
                                 size_t dst_off)
{
    exec_dispatch d = classic_stage(type, op, REDUCE_STAGE_EXPAND);
    algo_bind_io(&d, src, src_off, dst, dst_off, n);
    d.groups = algo_groups(n, CLASSIC_WG);
    return algo_stage(ctx, &d);
}

/* The in-place classic steps bind the scratch array as dst (binding 1). */
static gpgpu_status in_place_step(gpgpu_context *ctx, exec_dispatch *d, gpgpu_buffer *buf,
                                  size_t off, size_t n, size_t invocations)
{
    d->bind[0] = buf; /* unused by the step, bound so the program sees a valid source */
    d->bind[1] = buf;
    d->params[REDUCE_P_N] = (uint32_t)n;
    d->params[REDUCE_P_DST_OFF] = algo_index(buf, off, d->variant.type);
    d->groups = algo_groups(invocations, CLASSIC_WG);
    return algo_stage(ctx, d);
}

gpgpu_status reduce_stage_halving(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                  gpgpu_buffer *buf, size_t off, size_t n)
{
    exec_dispatch d = classic_stage(type, op, REDUCE_STAGE_HALVING);
    return in_place_step(ctx, &d, buf, off, n, n / 2);
}

gpgpu_status reduce_stage_stride(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                 gpgpu_buffer *buf, size_t off, size_t n, size_t q)
{
    exec_dispatch d = classic_stage(type, op, REDUCE_STAGE_STRIDE);
    d.params[REDUCE_P_Q] = (uint32_t)q;
    return in_place_step(ctx, &d, buf, off, n, n / 2);
}

gpgpu_status reduce_stage_pairs(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf,
                                size_t off, size_t n)
{
    exec_dispatch d = classic_stage(type, GPGPU_OP_MINMAX, REDUCE_STAGE_PAIRS);
    return in_place_step(ctx, &d, buf, off, n, n / 2);
}

gpgpu_status reduce_stage_quads(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf,
                                size_t off, size_t n)
{
    exec_dispatch d = classic_stage(type, GPGPU_OP_MINMAX, REDUCE_STAGE_QUADS);
    return in_place_step(ctx, &d, buf, off, n, n / 4);
}

/* ------------------------------------------------------------- drivers */

/* Every driver leaves its result (one V element) at element out_off of out. */

/* Pass 1: every group reduces its blocks to one V element; pass 2 (the
 * fold, or a dispatch of one group) reduces those into out. The input is
 * read once. */
gpgpu_status reduce_fast(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                         reduce_source src, size_t n, gpgpu_buffer *out, size_t out_off)
{
    size_t w = reduce_width(op);
    reduce_plan p = reduce_plan_for(ctx, n);
    if (p.groups == 1)
        return reduce_stage_tiles(ctx, type, op, src, n, false, out, out_off, 1);
    gpgpu_buffer *part;
    TRY(ctx_scratch(ctx, 0, p.groups * w * gpgpu_type_size(type), &part));
    if (ctx->plans.reduce.fold) {
        gpgpu_buffer *counter;
        TRY(fold_counter(ctx, type, op, &counter));
        return reduce_stage_fold(ctx, type, op, src, n, part, counter, out, out_off, p.groups);
    }
    TRY(reduce_stage_tiles(ctx, type, op, src, n, false, part, 0, p.groups));
    return reduce_stage_tiles(ctx, type, op, (reduce_source){.buf = part}, p.groups, true, out,
                              out_off, 1);
}

/* Copies `elements` elements from the start of scratch a to out. */
static gpgpu_status copy_out(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *a, size_t from,
                             size_t elements, gpgpu_buffer *out, size_t out_off)
{
    size_t size = gpgpu_type_size(type);
    return copy_stage(ctx, a, from * size, out, out_off * size, elements * size);
}

/* GPUSumUp and GPUAltSumUp on a scratch copy, so the input survives. */
static gpgpu_status reduce_classic(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op, bool stride,
                                   gpgpu_buffer *in, size_t offset, size_t n, gpgpu_buffer *out,
                                   size_t out_off)
{
    gpgpu_buffer *a;
    TRY(ctx_scratch(ctx, 0, n * reduce_width(op) * gpgpu_type_size(type), &a));
    TRY(reduce_stage_expand(ctx, type, op, in, offset, n, a, 0));
    for (size_t q = 1, m = n; m > 1; q += q, m = (m + 1) / 2) {
        if (stride)
            TRY(reduce_stage_stride(ctx, type, op, a, 0, m, q));
        else
            TRY(reduce_stage_halving(ctx, type, op, a, 0, m));
    }
    return copy_out(ctx, type, a, 0, reduce_width(op), out, out_off);
}

/* GPUfindMinMax on a scratch copy: after it, a[0] is the min, a[1] the max. */
static gpgpu_status reduce_classic_minmax(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *in,
                                          size_t offset, size_t n, gpgpu_buffer *out,
                                          size_t out_off)
{
    size_t size = gpgpu_type_size(type);
    gpgpu_buffer *a;
    TRY(ctx_scratch(ctx, 0, n * size, &a));
    TRY(copy_stage(ctx, in, offset * size, a, 0, n * size));
    if (n == 1) {
        TRY(copy_out(ctx, type, a, 0, 1, out, out_off));
        return copy_out(ctx, type, a, 0, 1, out, out_off + 1);
    }
    TRY(reduce_stage_pairs(ctx, type, a, 0, n));
    for (size_t m = n & ~(size_t)1; m > 2; m = 2 * ((m + 3) / 4))
        TRY(reduce_stage_quads(ctx, type, a, 0, m));
    return copy_out(ctx, type, a, 0, 2, out, out_off);
}

static gpgpu_status check_desc(gpgpu_context *ctx, const gpgpu_reduce_desc *desc)
{
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_reduce: desc is NULL");
    TRY(algo_check_type(ctx, desc->type, "gpgpu_reduce"));
    CHECK(desc->op >= GPGPU_OP_SUM && desc->op <= GPGPU_OP_MINMAX, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_reduce: unknown operator %d", (int)desc->op);
    TRY(ALGO_CHECK(ctx, desc->algo, "gpgpu_reduce", GPGPU_ALGO_CLASSIC_HALVING,
                   GPGPU_ALGO_CLASSIC_STRIDE, GPGPU_ALGO_CLASSIC_MINMAX));
    CHECK(desc->algo != GPGPU_ALGO_CLASSIC_MINMAX || desc->op == GPGPU_OP_MINMAX, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_reduce: CLASSIC_MINMAX (GPUfindMinMax) computes min and max together: use op MINMAX");
    return GPGPU_SUCCESS;
}

static gpgpu_status run(gpgpu_context *ctx, const gpgpu_reduce_desc *desc, gpgpu_buffer *in,
                        size_t offset, size_t n, gpgpu_buffer *out, size_t out_off)
{
    switch (desc->algo) {
    case GPGPU_ALGO_CLASSIC_HALVING:
        return reduce_classic(ctx, desc->type, desc->op, false, in, offset, n, out, out_off);
    case GPGPU_ALGO_CLASSIC_STRIDE:
        return reduce_classic(ctx, desc->type, desc->op, true, in, offset, n, out, out_off);
    case GPGPU_ALGO_CLASSIC_MINMAX:
        return reduce_classic_minmax(ctx, desc->type, in, offset, n, out, out_off);
    default:
        return reduce_fast(ctx, desc->type, desc->op, (reduce_source){.buf = in, .off = offset},
                           n, out, out_off);
    }
}

/* The result lands in a scratch buffer of its own, then comes back. */
static gpgpu_status run_to_host(gpgpu_context *ctx, const gpgpu_reduce_desc *desc,
                                gpgpu_buffer *in, size_t offset, size_t n, void *result)
{
    size_t bytes = reduce_width(desc->op) * gpgpu_type_size(desc->type);
    gpgpu_buffer *out;
    TRY(ctx_scratch(ctx, 2, bytes, &out));
    TRY(run(ctx, desc, in, offset, n, out, 0));
    return ctx->exec->buffer_read(out, 0, result, bytes);
}

gpgpu_status gpgpu_reduce(gpgpu_context *ctx, const gpgpu_reduce_desc *desc, gpgpu_buffer *in,
                          size_t offset, size_t count, void *result)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    TRY(check_desc(ctx, desc));
    CHECK(result, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_reduce: result is NULL");
    TRY(algo_check_range(ctx, in, offset, count, desc->type, "gpgpu_reduce"));
    CHECK(!ctx->exec->recording_for_caller(ctx), ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_reduce: work is recorded into the caller's command buffer, so no result can "
          "come back; use gpgpu_reduce_to_buffer");
    if (count == 0) {
        algo_identity(desc->type, desc->op, result);
        return GPGPU_SUCCESS;
    }
    TRY(ctx->exec->begin(ctx));
    return ctx_end(ctx, run_to_host(ctx, desc, in, offset, count, result));
}

gpgpu_status gpgpu_reduce_to_buffer(gpgpu_context *ctx, const gpgpu_reduce_desc *desc,
                                    gpgpu_buffer *in, size_t offset, size_t count,
                                    gpgpu_buffer *out, size_t out_offset)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    TRY(check_desc(ctx, desc));
    TRY(algo_check_range(ctx, in, offset, count, desc->type, "gpgpu_reduce_to_buffer (input)"));
    TRY(algo_check_range(ctx, out, out_offset, reduce_width(desc->op), desc->type,
                         "gpgpu_reduce_to_buffer (output)"));
    /* The shaders read the input and write the result through `restrict` bindings. */
    size_t size = gpgpu_type_size(desc->type);
    CHECK(!algo_overlap(in, offset * size, count * size, out, out_offset * size,
                        reduce_width(desc->op) * size),
          ctx, GPGPU_ERROR_OVERLAP,
          "gpgpu_reduce_to_buffer: the result at element %zu overlaps the input [%zu, %zu)",
          out_offset, offset, offset + count);
    TRY(ctx->exec->begin(ctx));
    if (count == 0) {
        /* The identity, written by the shader's own empty reduction. */
        reduce_source src = {.buf = in, .off = offset};
        return ctx_end(ctx, reduce_stage_tiles(ctx, desc->type, desc->op, src, 0, false, out,
                                               out_offset, 1));
    }
    return ctx_end(ctx, run(ctx, desc, in, offset, count, out, out_offset));
}
