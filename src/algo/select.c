/* Stream compaction and partition: gpgpu_select, its checks and plans, and the stages of
 * glsl/select.comp.
 *
 * A selection is a scan of the keep flags followed by a scatter, fused into the passes
 * that read the input. The single pass (where the device has subgroups) reads the input
 * once: each tile ranks its kept elements, learns the kept count of the tiles before it
 * by the decoupled look-back of the scan's single pass, and writes them. Reduce-then-scan
 * counts first (reading the flags, or the values compared, once more) and needs no
 * communication between work-groups within a dispatch; the second pass sums the few
 * partial counts of the first itself, so there is no scan dispatch between them. Counting
 * first is the default (select_single_pass): the single pass's tiles wait on the look-back
 * with their loads done, and on the H200 the second read of the flags cost less than that
 * wait; the run heads, loaded with their predecessors, keep the single pass where the
 * device holds a tile well across it (select_heads_single_pass).
 *
 * Partition writes the rejected elements after the kept ones, in input order: each at
 * total + its rank among the rejected, which needs the total before any is written. It
 * runs reduce-then-scan, whose counting pass gives the total: every element is then
 * written once, where it ends. The single pass could only learn the total at its last
 * tile; writing the rejected reversed from the end, as CUB does, and reversing them
 * afterwards would move the rejected (and their values and indices) twice.
 *
 * Each tile is loaded in subgroup rows, every row's load at once. The single pass by default
 * (the plan's select_staged) gathers the elements it writes in shared memory in output order
 * and stores them from there by consecutive invocations, as CUB's two-phase scatter does
 * (stored from the invocations that hold them, a subgroup's row covers only its kept lanes'
 * words, half a run at half the flags set); the counting-first scatter stores from the
 * invocations where the executor says that pays (select_scatter_staged), as on NVIDIA. */
#include <math.h>

#include "algo/copy.h"
#include "algo/count.h"
#include "algo/select.h"

static bool wants_single_pass(gpgpu_context *ctx, size_t n, gpgpu_algo algo, bool partition,
                              algo_mode single_pass)
{
    if (algo == GPGPU_ALGO_SCAN_SINGLE_PASS || algo == GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN)
        return algo == GPGPU_ALGO_SCAN_SINGLE_PASS;
    /* Without subgroups the look-back walks one tile per barrier (as the scan's does):
     * reduce-then-scan there; and where the plan says so (select_single_pass, or
     * select_heads_single_pass for the run heads). */
    return ctx->info.has_subgroups && single_pass == ALGO_ALWAYS && !partition &&
           n <= SELECT_SINGLE_PASS_MAX;
}

static select_plan plan_for(gpgpu_context *ctx, gpgpu_type type, size_t n, gpgpu_algo algo,
                            bool partition, algo_mode single_pass)
{
    /* The plan's tile (by default 16 elements of 4 bytes an invocation, 8 of f64: the
     * tile's 16 KB are in flight at once, as the scan's single pass holds its tile), its
     * group within the device's. */
    const algo_select_plan *sp = &ctx->plans.select;
    unsigned wg = sp->wg;
    while (wg > ctx->info.max_workgroup_invocations && wg > 1)
        wg /= 2;
    unsigned items = gpgpu_type_size(type) == 8 && sp->items > 1 ? sp->items / 2 : sp->items;
    select_plan p = {.wg = wg, .items = items, .polls = sp->polls,
                     .ticket = sp->ticket == ALGO_ALWAYS};
    size_t tile = (size_t)p.wg * p.items;
    /* Staged where a part's slots fit beside the group's other shared arrays (a partial and
     * a reduction word per invocation, of up to 8 bytes, and a few words). */
    p.parts = sp->staged_parts < p.items ? sp->staged_parts : p.items;
    size_t shared = tile / p.parts * gpgpu_type_size(type) + (size_t)wg * 12 + 64;
    bool fits = shared <= ctx->info.max_shared_memory_bytes;
    p.staged = sp->staged == ALGO_ALWAYS && fits;
    p.scatter_staged = sp->scatter_staged == ALGO_ALWAYS && fits;
    size_t tiles = n == 0 ? 1 : (n + tile - 1) / tile;
    p.tiles = (uint32_t)tiles;
    p.single_pass = wants_single_pass(ctx, n, algo, partition, single_pass);
    size_t per_group = (tiles + SELECT_MAX_GROUPS - 1) / SELECT_MAX_GROUPS;
    p.tiles_per_group = (uint32_t)per_group;
    p.groups = (uint32_t)((tiles + per_group - 1) / per_group);
    p.state_words = p.single_pass ? 2 + tiles : (size_t)p.groups + 1;
    return p;
}

select_plan select_plan_for(gpgpu_context *ctx, gpgpu_type type, size_t n, gpgpu_algo algo,
                            bool partition)
{
    return plan_for(ctx, type, n, algo, partition, ctx->plans.select.single_pass);
}

select_plan select_heads_plan_for(gpgpu_context *ctx, gpgpu_type type, size_t n)
{
    return plan_for(ctx, type, n, GPGPU_ALGO_DEFAULT, false, ctx->plans.select.heads_single_pass);
}

/* A dispatch of `stage` with the parameters every stage reads, in a program of its own:
 * COUNT's registers are a few counters, where SCATTER's and CHAINED's hold a tile (and
 * CHAINED's its look-back), and a shared program would reserve the most of them for every
 * stage (docs/DECISIONS.md, "One program per hot stage"). */
static exec_dispatch select_dispatch(const select_job *job, unsigned stage, select_plan p)
{
    exec_dispatch d = {.variant = {"select", job->type, GPGPU_OP_SUM, p.wg, p.items, stage}};
    if ((stage == SELECT_STAGE_SCATTER && p.scatter_staged) ||
        (stage == SELECT_STAGE_CHAINED && p.staged)) {
        exec_shape_set(&d.variant, SELECT_SHAPE_STAGED, 1);
        unsigned log2 = 0;
        while (1u << log2 < p.parts)
            log2++;
        exec_shape_set(&d.variant, SELECT_SHAPE_PARTS_LOG2, log2);
    }
    if (job->keep == SELECT_KEEP_HEADS && stage != SELECT_STAGE_CLEAR)
        exec_shape_set(&d.variant, SELECT_SHAPE_HEADS, 1);
    gpgpu_type t = job->type;
    d.params[0] = stage;
    d.params[SELECT_P_N] = (uint32_t)job->n;
    d.bind[0] = job->in;
    d.params[SELECT_P_SRC_OFF] = algo_index(job->in, job->in_off, t);
    d.params[SELECT_P_MODE] = job->keep | (job->partition ? SELECT_MODE_PARTITION : 0) |
                              (p.ticket ? 0 : SELECT_MODE_BY_GROUP);
    if (job->out) {
        d.bind[2] = job->out;
        d.params[SELECT_P_DST_OFF] = algo_index(job->out, job->out_off, t);
    } else {
        d.params[SELECT_P_MODE] |= SELECT_MODE_NO_OUT;
    }
    if (job->keep == SELECT_KEEP_FLAGS) {
        d.bind[1] = job->flags;
        d.params[SELECT_P_FLAGS_OFF] = algo_index(job->flags, job->flags_off, GPGPU_TYPE_U32);
    }
    if (job->pay_out) {
        d.bind[3] = job->pay_in;
        d.bind[4] = job->pay_out;
        d.params[SELECT_P_PAY_IN_OFF] = algo_index(job->pay_in, job->pay_in_off, GPGPU_TYPE_U32);
        d.params[SELECT_P_PAY_OUT_OFF] = algo_index(job->pay_out, job->pay_out_off, GPGPU_TYPE_U32);
        d.params[SELECT_P_MODE] |= SELECT_MODE_PAY;
    }
    if (job->idx_out) {
        d.bind[5] = job->idx_out;
        d.params[SELECT_P_IDX_OFF] = algo_index(job->idx_out, job->idx_out_off, GPGPU_TYPE_U32);
        d.params[SELECT_P_MODE] |= SELECT_MODE_IDX;
    }
    if (t == GPGPU_TYPE_F32 || t == GPGPU_TYPE_F64) {
        algo_put_scalar(&d, SELECT_P_VALUE, t, job->value);
    } else {
        /* An integer of the type (the public call checked it): its bits. */
        d.params[SELECT_P_VALUE] = t == GPGPU_TYPE_U32 ? (uint32_t)job->value
                                                : (uint32_t)(int32_t)job->value;
    }
    d.bind[6] = job->state;
    d.params[SELECT_P_STATE_OFF] = algo_index(job->state, job->state_off, GPGPU_TYPE_U32);
    d.params[SELECT_P_POLLS] = p.polls;
    d.params[SELECT_P_TILES_PER_GROUP] = p.tiles_per_group;
    d.params[SELECT_P_GROUPS] = p.groups;
    count_bind(&d, job->count, SELECT_P_N);
    return d;
}

gpgpu_status select_stage_count(gpgpu_context *ctx, const select_job *job, select_plan plan)
{
    exec_dispatch d = select_dispatch(job, SELECT_STAGE_COUNT, plan);
    d.groups = plan.groups;
    return algo_stage(ctx, &d);
}

gpgpu_status select_stage_scatter(gpgpu_context *ctx, const select_job *job, select_plan plan)
{
    exec_dispatch d = select_dispatch(job, SELECT_STAGE_SCATTER, plan);
    d.groups = plan.groups;
    return algo_stage(ctx, &d);
}

gpgpu_status select_stage_clear(gpgpu_context *ctx, const select_job *job, select_plan plan)
{
    exec_dispatch d = select_dispatch(job, SELECT_STAGE_CLEAR, plan);
    d.params[SELECT_P_N] = (uint32_t)plan.state_words; /* words, not the elements' count */
    d.groups = algo_groups(plan.state_words, plan.wg);
    return algo_stage(ctx, &d);
}

gpgpu_status select_stage_chained(gpgpu_context *ctx, const select_job *job, select_plan plan,
                                  bool force_recount)
{
    exec_dispatch d = select_dispatch(job, SELECT_STAGE_CHAINED, plan);
    d.params[SELECT_P_FORCE_RECOUNT] = force_recount;
    d.groups = plan.tiles;
    return algo_stage(ctx, &d);
}

gpgpu_status select_run(gpgpu_context *ctx, const select_job *job, select_plan plan)
{
    if (plan.single_pass) {
        if (plan.tiles > 1)
            TRY(select_stage_clear(ctx, job, plan));
        return select_stage_chained(ctx, job, plan, false);
    }
    TRY(select_stage_count(ctx, job, plan));
    return select_stage_scatter(ctx, job, plan);
}

/* ------------------------------------------------------------- checks */

static gpgpu_status check_desc(gpgpu_context *ctx, const gpgpu_select_desc *desc)
{
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_select: desc is NULL");
    TRY(algo_check_type(ctx, desc->type, "gpgpu_select"));
    gpgpu_algo a = desc->algo;
    CHECK(a >= GPGPU_ALGO_DEFAULT && a <= GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_select: unknown algorithm %d", (int)a);
    CHECK(a == GPGPU_ALGO_DEFAULT || a == GPGPU_ALGO_FAST || a == GPGPU_ALGO_SCAN_SINGLE_PASS ||
              a == GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN,
          ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_select: algorithm %d is not a selection's (use FAST, SCAN_SINGLE_PASS or "
          "SCAN_REDUCE_THEN_SCAN)",
          (int)a);
    CHECK(!desc->partition || a != GPGPU_ALGO_SCAN_SINGLE_PASS, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_select: a partition runs reduce-then-scan (it needs the kept count before it "
          "writes the rejected elements)");
    CHECK(desc->compare >= GPGPU_COMPARE_NONE && desc->compare <= GPGPU_COMPARE_NE, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_select: unknown comparison %d",
          (int)desc->compare);
    CHECK((desc->flags != NULL) != (desc->compare != GPGPU_COMPARE_NONE), ctx,
          GPGPU_ERROR_INVALID_ARGUMENT,
          desc->flags ? "gpgpu_select: both flags and a comparison: give one of them"
                      : "gpgpu_select: neither flags nor a comparison: give one of them");
    if (desc->compare != GPGPU_COMPARE_NONE &&
        (desc->type == GPGPU_TYPE_U32 || desc->type == GPGPU_TYPE_I32)) {
        double v = desc->value, lo = desc->type == GPGPU_TYPE_U32 ? 0.0 : -2147483648.0;
        double hi = desc->type == GPGPU_TYPE_U32 ? 4294967295.0 : 2147483647.0;
        CHECK(v == floor(v) && v >= lo && v <= hi, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
              "gpgpu_select: the value %g is not one of type %s", v,
              gpgpu_type_name(desc->type));
    }
    CHECK(!desc->values_in == !desc->values_out, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          desc->values_in ? "gpgpu_select: values_in without values_out"
                          : "gpgpu_select: values_out without values_in");
    return GPGPU_SUCCESS;
}

/* The state's place: the caller's scratch, or the context's (its own slot). */
static gpgpu_status state_region(gpgpu_context *ctx, const gpgpu_select_desc *desc,
                                 select_plan p, gpgpu_buffer **buf, size_t *off)
{
    if (desc->scratch) {
        *buf = desc->scratch;
        *off = desc->scratch_offset / 4;
        return GPGPU_SUCCESS;
    }
    *off = 0;
    return ctx_scratch(ctx, 9, p.state_words * 4, buf);
}

static gpgpu_status check_args(gpgpu_context *ctx, const gpgpu_select_desc *desc,
                               gpgpu_buffer *in, size_t in_off, gpgpu_buffer *out,
                               size_t out_off, size_t n, const size_t *selected)
{
    TRY(check_desc(ctx, desc));
    gpgpu_type t = desc->type;
    size_t size = gpgpu_type_size(t);
    TRY(algo_check_range(ctx, in, in_off, n, t, "gpgpu_select (input)"));
    TRY(algo_check_range(ctx, out, out_off, n, t, "gpgpu_select (output)"));
    if (desc->flags)
        TRY(algo_check_range(ctx, desc->flags, desc->flags_offset, n, GPGPU_TYPE_U32,
                             "gpgpu_select (flags)"));
    if (desc->values_in) {
        TRY(algo_check_range(ctx, desc->values_in, desc->values_in_offset, n, GPGPU_TYPE_U32,
                             "gpgpu_select (values_in)"));
        TRY(algo_check_range(ctx, desc->values_out, desc->values_out_offset, n,
                             GPGPU_TYPE_U32, "gpgpu_select (values_out)"));
    }
    if (desc->indices_out)
        TRY(algo_check_range(ctx, desc->indices_out, desc->indices_out_offset, n,
                             GPGPU_TYPE_U32, "gpgpu_select (indices_out)"));
    TRY(count_check(ctx, desc->count_buffer, desc->count_offset,
                    "gpgpu_select (count_buffer)"));
    if (desc->count_out)
        TRY(algo_check_range(ctx, desc->count_out, desc->count_out_offset, 1, GPGPU_TYPE_U32,
                             "gpgpu_select (count_out)"));
    CHECK(!selected || !ctx->exec->recording_for_caller(ctx), ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_select: work is recorded into the caller's command buffer, so no count can "
          "come back; pass selected = NULL and use count_out");
    CHECK(desc->algo != GPGPU_ALGO_SCAN_SINGLE_PASS || n <= SELECT_SINGLE_PASS_MAX, ctx,
          GPGPU_ERROR_TOO_LARGE,
          "gpgpu_select: the single pass takes at most 2^30 - 1 elements, not %zu", n);
    select_plan p = select_plan_for(ctx, t, n, desc->algo, desc->partition);
    size_t need = p.state_words * 4;
    if (desc->scratch) {
        const gpgpu_buffer *s = desc->scratch;
        CHECK(s->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
              "gpgpu_select: the scratch buffer belongs to another context");
        CHECK(desc->scratch_offset % 4 == 0, ctx, GPGPU_ERROR_MISALIGNED,
              "gpgpu_select: scratch_offset %zu is not a multiple of 4", desc->scratch_offset);
        CHECK(desc->scratch_offset <= s->size && need <= s->size - desc->scratch_offset, ctx,
              GPGPU_ERROR_OUT_OF_MEMORY,
              "gpgpu_select: the scratch buffer holds %zu bytes from offset %zu; this "
              "selection needs %zu",
              s->size > desc->scratch_offset ? s->size - desc->scratch_offset : 0,
              desc->scratch_offset, need);
        TRY(algo_check_range(ctx, s, desc->scratch_offset / 4, p.state_words, GPGPU_TYPE_U32,
                             "gpgpu_select (scratch)"));
    }
    /* Inputs first, then what the call writes. */
    const algo_range r[] = {
        {in, in_off * size, n * size, "the input"},
        {desc->flags, desc->flags_offset * 4, n * 4, "the flags"},
        {desc->values_in, desc->values_in_offset * 4, n * 4, "values_in"},
        {out, out_off * size, n * size, "the output"},
        {desc->values_out, desc->values_out_offset * 4, n * 4, "values_out"},
        {desc->indices_out, desc->indices_out_offset * 4, n * 4, "indices_out"},
        {desc->count_out, desc->count_out_offset * 4, 4, "count_out"},
        {desc->scratch, desc->scratch_offset, need, "the scratch memory"},
    };
    return algo_check_disjoint(ctx, "gpgpu_select", r, sizeof r / sizeof *r, 3);
}

gpgpu_status gpgpu_select_scratch_size(gpgpu_context *ctx, const gpgpu_select_desc *desc,
                                       size_t count, size_t *bytes)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(bytes, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_select_scratch_size: bytes is NULL");
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_select_scratch_size: desc is NULL");
    CHECK(gpgpu_type_size(desc->type) != 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_select_scratch_size: unknown type %d", (int)desc->type);
    gpgpu_algo a = desc->algo;
    CHECK(a >= GPGPU_ALGO_DEFAULT && a <= GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_select_scratch_size: unknown algorithm %d",
          (int)a);
    CHECK(a == GPGPU_ALGO_DEFAULT || a == GPGPU_ALGO_FAST || a == GPGPU_ALGO_SCAN_SINGLE_PASS ||
              a == GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN,
          ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_select_scratch_size: algorithm %d is not a selection's", (int)a);
    CHECK(!desc->partition || a != GPGPU_ALGO_SCAN_SINGLE_PASS, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_select_scratch_size: a partition runs reduce-then-scan");
    *bytes = select_plan_for(ctx, desc->type, count, a, desc->partition).state_words * 4;
    return GPGPU_SUCCESS;
}

/* The call's work: the count staged, the selection, the total where it is wanted. */
static gpgpu_status run(gpgpu_context *ctx, const gpgpu_select_desc *desc, select_job job,
                        size_t *selected)
{
    select_plan p = select_plan_for(ctx, desc->type, job.n, desc->algo, desc->partition);
    TRY(count_stage(ctx, desc->count_buffer, desc->count_offset, job.n, &job.count));
    TRY(state_region(ctx, desc, p, &job.state, &job.state_off));
    TRY(select_run(ctx, &job, p));
    size_t total_at = (job.state_off + select_total_at(p)) * 4;
    if (desc->count_out)
        TRY(copy_stage(ctx, job.state, total_at, desc->count_out, desc->count_out_offset * 4, 4));
    if (selected) {
        uint32_t total;
        TRY(ctx->exec->buffer_read(job.state, total_at, &total, sizeof total));
        *selected = total;
    }
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_select(gpgpu_context *ctx, const gpgpu_select_desc *desc, gpgpu_buffer *in,
                          size_t in_offset, gpgpu_buffer *out, size_t out_offset, size_t count,
                          size_t *selected)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    TRY(check_args(ctx, desc, in, in_offset, out, out_offset, count, selected));
    if (count == 0 && selected)
        *selected = 0;
    if (count == 0 && !desc->count_out)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    if (count == 0) /* nothing to select; the count still goes where it is wanted */
        return ctx_end(ctx, count_stage_put(ctx, desc->count_out, desc->count_out_offset, 0));
    select_job job = {
        .type = desc->type,
        .keep = desc->flags ? SELECT_KEEP_FLAGS : (unsigned)desc->compare,
        .value = desc->value,
        .partition = desc->partition,
        .in = in,
        .in_off = in_offset,
        .flags = desc->flags,
        .flags_off = desc->flags_offset,
        .out = out,
        .out_off = out_offset,
        .pay_in = desc->values_in,
        .pay_in_off = desc->values_in_offset,
        .pay_out = desc->values_out,
        .pay_out_off = desc->values_out_offset,
        .idx_out = desc->indices_out,
        .idx_out_off = desc->indices_out_offset,
        .n = count,
    };
    return ctx_end(ctx, run(ctx, desc, job, selected));
}
