/* Segmented reductions over an offsets buffer, split by segments and elements together (the
 * merge path of the balanced SpMV): PLAN cuts the path into tiles, TILES reduces each tile in
 * shared memory and writes the segments that end where they began, FIX combines the partial
 * values of those that cross tiles. See docs/ALGORITHMS.md, Segmented reductions. */
#include "algo/segreduce.h"

/* Scratch slots of the context's own scratch (run-length encoding, which calls this, uses
 * 1 to 3). */
enum { SLOT_AUX = 4, SLOT_WORK = 5 };

segreduce_plan segreduce_plan_for(size_t count, size_t segment_count)
{
    segreduce_plan p = {.tile = SEGRED_WG * SEGRED_ITEMS};
    p.slack = p.tile / SEGRED_SLACK_DIV;
    p.step = p.tile - p.slack;
    size_t steps = count + segment_count;
    p.tiles = steps ? (uint32_t)((steps + p.step - 1) / p.step) : 1;
    return p;
}

static exec_dispatch seg_stage(const segreduce_args *a, unsigned stage, segreduce_plan p)
{
    exec_dispatch d = {.variant = {"segreduce", a->type, a->op, SEGRED_WG, SEGRED_ITEMS}};
    d.params[0] = stage;
    d.params[SEGREDUCE_P_N] = (uint32_t)a->n;
    d.bind[0] = a->in;
    d.params[SEGREDUCE_P_SRC_OFF] = algo_index(a->in, a->in_off, a->type);
    d.bind[1] = a->out;
    d.params[SEGREDUCE_P_DST_OFF] = algo_index(a->out, a->out_off, a->type);
    d.bind[2] = a->seg;
    d.params[SEGREDUCE_P_SEG_OFF] = algo_index(a->seg, a->seg_off, GPGPU_TYPE_U32);
    d.params[SEGREDUCE_P_NSEG] = (uint32_t)a->nseg;
    d.bind[3] = a->aux;
    d.params[SEGREDUCE_P_AUX_OFF] = algo_index(a->aux, a->aux_off, GPGPU_TYPE_U32);
    d.bind[4] = a->work;
    d.params[SEGREDUCE_P_WORK_OFF] = algo_index(a->work, a->work_off, a->type);
    d.params[SEGREDUCE_P_K] = p.tiles;
    d.params[SEGREDUCE_P_PATH_STEP] = p.step;
    d.params[SEGREDUCE_P_SLACK] = p.slack;
    if (a->count) {
        d.bind[5] = a->count;
        d.params[SEGREDUCE_P_HAS_COUNT] = 1;
        d.params[SEGREDUCE_P_COUNT_OFF] = algo_index(a->count, a->count_off, GPGPU_TYPE_U32);
    }
    return d;
}

gpgpu_status segreduce_stage_plan(gpgpu_context *ctx, const segreduce_args *a, segreduce_plan p)
{
    exec_dispatch d = seg_stage(a, SEGREDUCE_STAGE_PLAN, p);
    /* A subgroup per tile start where there are subgroups (the shader strides over the rest
     * whatever the subgroup size), else an invocation. */
    unsigned sg = ctx->info.subgroup_size;
    unsigned per = ctx->info.has_subgroups && sg >= 1 && sg <= SEGRED_WG ? sg : 1;
    d.groups = algo_groups(((size_t)p.tiles + 1) * per, SEGRED_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status segreduce_stage_tiles(gpgpu_context *ctx, const segreduce_args *a, segreduce_plan p)
{
    exec_dispatch d = seg_stage(a, SEGREDUCE_STAGE_TILES, p);
    d.variant.only_stage = SEGREDUCE_STAGE_TILES; /* its shared arrays are its alone */
    d.groups = p.tiles;
    return algo_stage(ctx, &d);
}

gpgpu_status segreduce_stage_fix(gpgpu_context *ctx, const segreduce_args *a, segreduce_plan p)
{
    exec_dispatch d = seg_stage(a, SEGREDUCE_STAGE_FIX, p);
    d.groups = p.tiles < SEGRED_FIX_MAX_GROUPS ? p.tiles : SEGRED_FIX_MAX_GROUPS;
    return algo_stage(ctx, &d);
}

gpgpu_status segreduce_run(gpgpu_context *ctx, const segreduce_args *a)
{
    segreduce_plan p = segreduce_plan_for(a->n, a->nseg);
    TRY(segreduce_stage_plan(ctx, a, p));
    TRY(segreduce_stage_tiles(ctx, a, p));
    if (p.tiles == 1)
        return GPGPU_SUCCESS; /* the only tile ends the last segment */
    return segreduce_stage_fix(ctx, a, p);
}

/* ------------------------------------------------------------- public call */

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

size_t segreduce_scratch_bytes(gpgpu_type type, size_t count, size_t segment_count)
{
    segreduce_plan p = segreduce_plan_for(count, segment_count);
    return align8(segreduce_aux_words(p) * 4) + segreduce_work_elems(p) * gpgpu_type_size(type);
}

static gpgpu_status check_type_op(gpgpu_context *ctx, const gpgpu_segmented_reduce_desc *desc)
{
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_segmented_reduce: desc is NULL");
    TRY(algo_check_type(ctx, desc->type, "gpgpu_segmented_reduce"));
    CHECK(desc->op >= GPGPU_OP_SUM && desc->op <= GPGPU_OP_MINMAX, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_segmented_reduce: unknown op %d", (int)desc->op);
    CHECK(desc->op != GPGPU_OP_MINMAX, ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_segmented_reduce: MINMAX is not a segmented operator (use MIN and MAX)");
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_segmented_reduce_scratch_size(gpgpu_context *ctx,
                                                 const gpgpu_segmented_reduce_desc *desc,
                                                 size_t count, size_t segment_count,
                                                 size_t *bytes)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(bytes, ctx, GPGPU_ERROR_NULL_POINTER,
          "gpgpu_segmented_reduce_scratch_size: bytes is NULL");
    TRY(check_type_op(ctx, desc));
    *bytes = segreduce_scratch_bytes(desc->type, count, segment_count);
    return GPGPU_SUCCESS;
}

static gpgpu_status check_args(gpgpu_context *ctx, const gpgpu_segmented_reduce_desc *desc,
                               const segreduce_args *a)
{
    const char *fn = "gpgpu_segmented_reduce";
    TRY(check_type_op(ctx, desc));
    CHECK(desc->segments, ctx, GPGPU_ERROR_NULL_POINTER, "%s: no segment offsets", fn);
    CHECK(a->nseg < ALGO_MAX_COUNT, ctx, GPGPU_ERROR_TOO_LARGE,
          "%s: %zu segments (at most 2^31 - 2)", fn, a->nseg);
    size_t size = gpgpu_type_size(desc->type);
    TRY(algo_check_range(ctx, a->in, a->in_off, a->n, desc->type,
                         "gpgpu_segmented_reduce (input)"));
    TRY(algo_check_range(ctx, a->out, a->out_off, a->nseg, desc->type,
                         "gpgpu_segmented_reduce (output)"));
    TRY(algo_check_range(ctx, a->seg, a->seg_off, a->nseg + 1, GPGPU_TYPE_U32,
                         "gpgpu_segmented_reduce (segments)"));
    /* The path's steps and one more tile index in 32 bits. */
    CHECK((uint64_t)a->n + a->nseg + 2 * SEGRED_WG * SEGRED_ITEMS <= UINT32_MAX, ctx,
          GPGPU_ERROR_TOO_LARGE, "%s: %zu elements and %zu segments: the merge path of both "
          "must stay below 2^32 steps", fn, a->n, a->nseg);
    size_t ob = a->nseg * size;
    CHECK(!algo_overlap(a->out, a->out_off * size, ob, a->in, a->in_off * size, a->n * size) &&
              !algo_overlap(a->out, a->out_off * size, ob, a->seg, a->seg_off * 4,
                            (a->nseg + 1) * 4),
          ctx, GPGPU_ERROR_OVERLAP, "%s: the output overlaps the input or the offsets", fn);
    if (a->count) {
        TRY(algo_check_range(ctx, a->count, a->count_off, 1, GPGPU_TYPE_U32,
                             "gpgpu_segmented_reduce (count_buffer)"));
        CHECK(!algo_overlap(a->out, a->out_off * size, ob, a->count, a->count_off * 4, 4), ctx,
              GPGPU_ERROR_OVERLAP, "%s: the output overlaps the count_buffer", fn);
    }
    if (desc->scratch) {
        size_t need = segreduce_scratch_bytes(desc->type, a->n, a->nseg);
        CHECK(desc->scratch->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
              "%s: the scratch belongs to another context", fn);
        CHECK(desc->scratch_offset % 8 == 0, ctx, GPGPU_ERROR_MISALIGNED,
              "%s: scratch_offset %zu is not a multiple of 8", fn, desc->scratch_offset);
        CHECK(desc->scratch_offset <= desc->scratch->size &&
                  need <= desc->scratch->size - desc->scratch_offset,
              ctx, GPGPU_ERROR_OUT_OF_MEMORY,
              "%s: the scratch holds %zu bytes from offset %zu, %zu are needed", fn,
              desc->scratch->size, desc->scratch_offset, need);
        CHECK(ctx->exec->binding_shift(desc->scratch) % 8 == 0, ctx, GPGPU_ERROR_MISALIGNED,
              "%s: the scratch buffer's offset is not a multiple of 8 bytes", fn);
        const gpgpu_buffer *others[] = {a->in, a->out, a->seg, a->count};
        size_t offs[] = {a->in_off * size, a->out_off * size, a->seg_off * 4, a->count_off * 4};
        size_t lens[] = {a->n * size, ob, (a->nseg + 1) * 4, a->count ? 4 : 0};
        for (int k = 0; k < 4; k++)
            CHECK(!others[k] || !algo_overlap(desc->scratch, desc->scratch_offset, need,
                                              others[k], offs[k], lens[k]),
                  ctx, GPGPU_ERROR_OVERLAP, "%s: the scratch overlaps the arguments", fn);
    }
    return GPGPU_SUCCESS;
}

gpgpu_status segreduce_place(gpgpu_context *ctx, gpgpu_buffer *scratch, size_t off,
                             segreduce_args *a)
{
    segreduce_plan p = segreduce_plan_for(a->n, a->nseg);
    size_t aux_bytes = segreduce_aux_words(p) * 4;
    size_t work_bytes = segreduce_work_elems(p) * gpgpu_type_size(a->type);
    if (scratch) {
        a->aux = a->work = scratch;
        a->aux_off = off / 4;
        a->work_off = (off + align8(aux_bytes)) / gpgpu_type_size(a->type);
        return GPGPU_SUCCESS;
    }
    a->aux_off = a->work_off = 0;
    TRY(ctx_scratch(ctx, SLOT_AUX, aux_bytes, &a->aux));
    return ctx_scratch(ctx, SLOT_WORK, work_bytes, &a->work);
}

gpgpu_status gpgpu_segmented_reduce(gpgpu_context *ctx, const gpgpu_segmented_reduce_desc *desc,
                                    gpgpu_buffer *in, size_t in_offset, size_t count,
                                    gpgpu_buffer *out, size_t out_offset, size_t segment_count)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    segreduce_args a = {
        .type = desc ? desc->type : 0, .op = desc ? desc->op : 0,
        .in = in, .in_off = in_offset, .n = count,
        .seg = desc ? desc->segments : NULL, .seg_off = desc ? desc->segments_offset : 0,
        .nseg = segment_count,
        .count = desc ? desc->count_buffer : NULL, .count_off = desc ? desc->count_offset : 0,
        .out = out, .out_off = out_offset,
    };
    TRY(check_args(ctx, desc, &a));
    if (segment_count == 0)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    gpgpu_status s = segreduce_place(ctx, desc->scratch, desc->scratch_offset, &a);
    if (s == GPGPU_SUCCESS)
        s = segreduce_run(ctx, &a);
    return ctx_end(ctx, s);
}
