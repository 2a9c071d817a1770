/* Run-length encoding and reduce-by-key. A run starts at each key that differs from the
 * one before it, so the encoding is a selection: the run heads kept (SELECT_KEEP_HEADS),
 * each run's first key written as the selection's value and its index as the run's start,
 * in one pass where the plan says so (select_heads_plan_for) or counting first. FINISH
 * then writes the lengths from the starts and the run count beside them. Reduce-by-key
 * sums the values over those starts as segments, with the run count left on the GPU as the
 * segment count. See docs/ALGORITHMS.md. */
#include "algo/count.h"
#include "algo/rle.h"
#include "algo/segreduce.h"

/* The context's scratch slots (the segmented reduction uses 4, 5; the count 8). */
enum { SLOT_STATE = 2, SLOT_STARTS = 3 };

select_job rle_heads_job(gpgpu_type type, gpgpu_buffer *keys, size_t keys_off, size_t n,
                         gpgpu_buffer *unique, size_t unique_off, gpgpu_buffer *starts,
                         size_t starts_off)
{
    return (select_job){.type = type, .keep = SELECT_KEEP_HEADS, .in = keys, .in_off = keys_off,
                        .out = unique, .out_off = unique_off, .idx_out = starts,
                        .idx_out_off = starts_off, .n = n};
}

gpgpu_status rle_stage_finish(gpgpu_context *ctx, const rle_finish_args *a)
{
    exec_dispatch d = {.variant = {"rle", GPGPU_TYPE_U32, GPGPU_OP_SUM, RLE_WG, 1}};
    d.params[0] = RLE_STAGE_FINISH;
    d.params[RLE_P_N] = (uint32_t)a->n;
    d.bind[3] = a->total;
    d.params[RLE_P_TOTAL_AT] = algo_index(a->total, a->total_at, GPGPU_TYPE_U32);
    d.bind[4] = a->starts;
    d.params[RLE_P_STARTS_OFF] = algo_index(a->starts, a->starts_off, GPGPU_TYPE_U32);
    d.params[RLE_P_RUNS_AT] = algo_index(a->starts, a->runs_at, GPGPU_TYPE_U32);
    if (a->lengths) {
        d.bind[2] = a->lengths;
        d.params[RLE_P_LENGTHS_OFF] = algo_index(a->lengths, a->lengths_off, GPGPU_TYPE_U32);
        d.params[RLE_P_OUTPUTS] |= RLE_OUT_LENGTHS;
    }
    if (a->count_out) {
        d.bind[6] = a->count_out;
        d.params[RLE_P_COUNT_OUT_OFF] = algo_index(a->count_out, a->count_out_off, GPGPU_TYPE_U32);
        d.params[RLE_P_OUTPUTS] |= RLE_OUT_COUNT;
    }
    count_bind(&d, a->count, RLE_P_N);
    /* Lengths: up to RLE_FINISH_GROUPS groups striding over the runs; else invocation 0
     * alone. */
    uint32_t groups = a->lengths && a->n ? algo_groups(a->n, RLE_WG) : 1;
    d.groups = groups < RLE_FINISH_GROUPS ? groups : RLE_FINISH_GROUPS;
    return algo_stage(ctx, &d);
}

/* One call's encoding: its keys, outputs and places. */
typedef struct encoding {
    gpgpu_type type;
    gpgpu_buffer *keys, *count_buffer, *unique, *lengths, *count_out, *state, *starts;
    size_t keys_off, n, count_offset, unique_off, lengths_off, count_out_off, state_off,
        starts_off, runs_at;
    select_plan plan;
} encoding;

/* The heads selected, then FINISH. */
static gpgpu_status encode(gpgpu_context *ctx, const encoding *e)
{
    select_job job = rle_heads_job(e->type, e->keys, e->keys_off, e->n, e->unique, e->unique_off,
                                   e->starts, e->starts_off);
    TRY(count_stage(ctx, e->count_buffer, e->count_offset, e->n, &job.count));
    job.state = e->state;
    job.state_off = e->state_off;
    TRY(select_run(ctx, &job, e->plan));
    rle_finish_args f = {.count = job.count, .total = e->state,
                         .total_at = e->state_off + select_total_at(e->plan), .starts = e->starts,
                         .lengths = e->lengths, .count_out = e->count_out, .n = e->n,
                         .starts_off = e->starts_off, .runs_at = e->runs_at,
                         .lengths_off = e->lengths_off, .count_out_off = e->count_out_off};
    return rle_stage_finish(ctx, &f);
}

/* ------------------------------------------------------------ public calls */

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

/* The selection's state for n keys, then the starts' n + 1 words and the run count, then
 * reduce-by-key's segmented reduction. */
static select_plan heads_plan(gpgpu_context *ctx, gpgpu_type type, size_t n)
{
    /* The heads stored from the invocations that hold them unless select_heads_staged says
     * otherwise: staged in shared memory the single pass took longer (H200 Vulkan, 2^24 keys
     * in runs of 1: 191 against 157 us, runs of ~16 130 against 124). */
    select_plan p = select_heads_plan_for(ctx, type, n);
    bool staged = ctx->plans.select.heads_staged == ALGO_ALWAYS;
    p.staged = p.staged && staged;
    p.scatter_staged = p.scatter_staged && staged;
    return p;
}

static size_t encode_bytes(gpgpu_context *ctx, gpgpu_type type, size_t n)
{
    return align8(heads_plan(ctx, type, n).state_words * 4) + align8((n + 2) * 4);
}

static gpgpu_type value_type_of(const gpgpu_rle_desc *desc)
{
    return desc->value_type ? desc->value_type : desc->type;
}

static size_t scratch_bytes(gpgpu_context *ctx, const gpgpu_rle_desc *desc, size_t n,
                            bool by_key)
{
    return encode_bytes(ctx, desc->type, n) +
           (by_key ? segreduce_scratch_bytes(value_type_of(desc), n, n) : 0);
}

gpgpu_status gpgpu_rle_scratch_size(gpgpu_context *ctx, const gpgpu_rle_desc *desc, size_t count,
                                    bool by_key, size_t *bytes)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(desc && bytes, ctx, GPGPU_ERROR_NULL_POINTER,
          "gpgpu_rle_scratch_size: desc or bytes is NULL");
    CHECK(gpgpu_type_size(desc->type) && gpgpu_type_size(value_type_of(desc)), ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_rle_scratch_size: unknown type");
    *bytes = scratch_bytes(ctx, desc, count, by_key);
    return GPGPU_SUCCESS;
}

/* A range of a call's buffers, for the overlap checks. */
typedef struct span {
    const gpgpu_buffer *buf;
    size_t off, bytes; /* in bytes */
    bool written;
    const char *name;
} span;

/* Written ranges must share no byte with any other range. */
static gpgpu_status check_spans(gpgpu_context *ctx, const char *fn, const span *s, int count)
{
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            CHECK(!(s[i].buf && s[j].buf && (s[i].written || s[j].written) &&
                    algo_overlap(s[i].buf, s[i].off, s[i].bytes, s[j].buf, s[j].off, s[j].bytes)),
                  ctx, GPGPU_ERROR_OVERLAP, "%s: %s and %s overlap", fn, s[i].name, s[j].name);
    return GPGPU_SUCCESS;
}

/* What both calls check: the desc, the keys, the counts in and out, the caller's scratch;
 * spans[0..4) are filled with those ranges (the caller adds its outputs). */
static gpgpu_status check_common(gpgpu_context *ctx, const char *fn, const gpgpu_rle_desc *desc,
                                 gpgpu_buffer *keys, size_t keys_off, size_t n, bool by_key,
                                 size_t *runs, span *spans)
{
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "%s: desc is NULL", fn);
    TRY(algo_check_type(ctx, desc->type, fn));
    if (by_key)
        TRY(algo_check_type(ctx, value_type_of(desc), fn));
    TRY(algo_check_range(ctx, keys, keys_off, n, desc->type, fn));
    CHECK(!runs || !ctx->exec->recording_for_caller(ctx), ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "%s: work is recorded into the caller's command buffer, so no run count can come "
          "back; pass runs NULL and set count_out", fn);
    size_t ks = gpgpu_type_size(desc->type);
    spans[0] = (span){keys, keys_off * ks, n * ks, false, "the keys"};
    spans[1] = spans[2] = spans[3] = (span){0};
    if (desc->count_buffer) {
        TRY(algo_check_range(ctx, desc->count_buffer, desc->count_offset, 1, GPGPU_TYPE_U32,
                             "count_buffer"));
        spans[1] = (span){desc->count_buffer, desc->count_offset * 4, 4, false, "count_buffer"};
    }
    if (desc->count_out) {
        TRY(algo_check_range(ctx, desc->count_out, desc->count_out_offset, 1, GPGPU_TYPE_U32,
                             "count_out"));
        spans[2] = (span){desc->count_out, desc->count_out_offset * 4, 4, true, "count_out"};
    }
    if (desc->scratch) {
        size_t need = scratch_bytes(ctx, desc, n, by_key);
        CHECK(desc->scratch->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
              "%s: the scratch belongs to another context", fn);
        CHECK(desc->scratch_offset % 8 == 0 && ctx->exec->binding_shift(desc->scratch) % 8 == 0,
              ctx, GPGPU_ERROR_MISALIGNED, "%s: the scratch does not start on a multiple of 8 "
              "bytes (scratch_offset %zu)", fn, desc->scratch_offset);
        CHECK(desc->scratch_offset <= desc->scratch->size &&
                  need <= desc->scratch->size - desc->scratch_offset,
              ctx, GPGPU_ERROR_OUT_OF_MEMORY,
              "%s: the scratch holds %zu bytes from offset %zu, %zu are needed", fn,
              desc->scratch->size, desc->scratch_offset, need);
        spans[3] = (span){desc->scratch, desc->scratch_offset, need, true, "the scratch"};
    }
    return GPGPU_SUCCESS;
}

/* The selection's state and the starts in the caller's scratch or the context's own; the
 * segmented reduction's regions after them (reduce-by-key). */
static gpgpu_status place(gpgpu_context *ctx, const gpgpu_rle_desc *desc, encoding *e)
{
    size_t n = e->n;
    e->plan = heads_plan(ctx, e->type, n);
    size_t state_bytes = e->plan.state_words * 4;
    if (desc->scratch) {
        size_t at = desc->scratch_offset;
        e->state = e->starts = desc->scratch;
        e->state_off = at / 4;
        e->starts_off = (at + align8(state_bytes)) / 4;
    } else {
        TRY(ctx_scratch(ctx, SLOT_STATE, state_bytes, &e->state));
        TRY(ctx_scratch(ctx, SLOT_STARTS, (n + 2) * 4, &e->starts));
        e->state_off = e->starts_off = 0;
    }
    e->runs_at = e->starts_off + n + 1;
    return GPGPU_SUCCESS;
}

static gpgpu_status read_runs(gpgpu_context *ctx, const encoding *e, size_t *runs)
{
    if (!runs)
        return GPGPU_SUCCESS;
    uint32_t r = 0;
    TRY(ctx->exec->buffer_read(e->starts, e->runs_at * 4, &r, sizeof r));
    *runs = r;
    return GPGPU_SUCCESS;
}

static encoding encoding_of(const gpgpu_rle_desc *desc, gpgpu_buffer *keys, size_t keys_off,
                            size_t n)
{
    return (encoding){.type = desc->type, .keys = keys, .keys_off = keys_off, .n = n,
                      .count_buffer = desc->count_buffer, .count_offset = desc->count_offset,
                      .count_out = desc->count_out, .count_out_off = desc->count_out_offset};
}

gpgpu_status gpgpu_run_length_encode(gpgpu_context *ctx, const gpgpu_rle_desc *desc,
                                     gpgpu_buffer *keys, size_t keys_offset, size_t count,
                                     gpgpu_buffer *unique_out, size_t unique_offset,
                                     gpgpu_buffer *lengths_out, size_t lengths_offset,
                                     size_t *runs)
{
    const char *fn = "gpgpu_run_length_encode";
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    span spans[6];
    TRY(check_common(ctx, fn, desc, keys, keys_offset, count, false, runs, spans));
    size_t ks = gpgpu_type_size(desc->type);
    spans[4] = spans[5] = (span){0};
    if (unique_out) {
        TRY(algo_check_range(ctx, unique_out, unique_offset, count, desc->type,
                             "gpgpu_run_length_encode (unique_out)"));
        spans[4] = (span){unique_out, unique_offset * ks, count * ks, true, "unique_out"};
    }
    if (lengths_out) {
        TRY(algo_check_range(ctx, lengths_out, lengths_offset, count, GPGPU_TYPE_U32,
                             "gpgpu_run_length_encode (lengths_out)"));
        spans[5] = (span){lengths_out, lengths_offset * 4, count * 4, true, "lengths_out"};
    }
    TRY(check_spans(ctx, fn, spans, 6));
    TRY(ctx->exec->begin(ctx));
    encoding e = encoding_of(desc, keys, keys_offset, count);
    e.unique = unique_out;
    e.unique_off = unique_offset;
    e.lengths = lengths_out;
    e.lengths_off = lengths_offset;
    gpgpu_status s = place(ctx, desc, &e);
    if (s == GPGPU_SUCCESS)
        s = encode(ctx, &e);
    if (s == GPGPU_SUCCESS)
        s = read_runs(ctx, &e, runs);
    return ctx_end(ctx, s);
}

gpgpu_status gpgpu_reduce_by_key(gpgpu_context *ctx, const gpgpu_rle_desc *desc,
                                 gpgpu_buffer *keys, size_t keys_offset, gpgpu_buffer *values,
                                 size_t values_offset, size_t count, gpgpu_buffer *keys_out,
                                 size_t keys_out_offset, gpgpu_buffer *sums_out,
                                 size_t sums_out_offset, size_t *runs)
{
    const char *fn = "gpgpu_reduce_by_key";
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    /* The sums are a segmented reduction with up to `count` runs: its merge path walks keys
     * and runs, 2 * count steps and a tile more, in 32 bits. */
    CHECK((uint64_t)2 * count + 2 * SEGRED_WG * SEGRED_ITEMS <= UINT32_MAX, ctx,
          GPGPU_ERROR_TOO_LARGE,
          "%s: %zu keys: the sums' merge path over keys and runs must stay below 2^32 steps "
          "(at most 2^31 - 1024 keys)", fn, count);
    span spans[7];
    TRY(check_common(ctx, fn, desc, keys, keys_offset, count, true, runs, spans));
    gpgpu_type vt = value_type_of(desc);
    size_t ks = gpgpu_type_size(desc->type), vs = gpgpu_type_size(vt);
    TRY(algo_check_range(ctx, values, values_offset, count, vt, "gpgpu_reduce_by_key (values)"));
    TRY(algo_check_range(ctx, sums_out, sums_out_offset, count, vt,
                         "gpgpu_reduce_by_key (sums_out)"));
    spans[4] = (span){values, values_offset * vs, count * vs, false, "the values"};
    spans[5] = (span){sums_out, sums_out_offset * vs, count * vs, true, "sums_out"};
    spans[6] = (span){0};
    if (keys_out) {
        TRY(algo_check_range(ctx, keys_out, keys_out_offset, count, desc->type,
                             "gpgpu_reduce_by_key (keys_out)"));
        spans[6] = (span){keys_out, keys_out_offset * ks, count * ks, true, "keys_out"};
    }
    TRY(check_spans(ctx, fn, spans, 7));
    TRY(ctx->exec->begin(ctx));
    encoding e = encoding_of(desc, keys, keys_offset, count);
    e.unique = keys_out;
    e.unique_off = keys_out_offset;
    gpgpu_status s = place(ctx, desc, &e);
    if (s == GPGPU_SUCCESS)
        s = encode(ctx, &e);
    /* The runs' starts are the segments, the run count on the GPU their count. */
    segreduce_args r = {.type = vt, .op = GPGPU_OP_SUM, .in = values, .in_off = values_offset,
                        .n = count, .seg = e.starts, .seg_off = e.starts_off, .nseg = count,
                        .count = e.starts, .count_off = e.runs_at, .out = sums_out,
                        .out_off = sums_out_offset};
    if (s == GPGPU_SUCCESS && count > 0)
        s = segreduce_place(ctx, desc->scratch,
                            desc->scratch ? desc->scratch_offset +
                                                encode_bytes(ctx, desc->type, count)
                                          : 0,
                            &r);
    if (s == GPGPU_SUCCESS && count > 0)
        s = segreduce_run(ctx, &r);
    if (s == GPGPU_SUCCESS)
        s = read_runs(ctx, &e, runs);
    return ctx_end(ctx, s);
}
