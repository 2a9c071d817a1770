/* Run-length encoding and reduce-by-key. Where the device has subgroups, one pass (CHAINED):
 * each tile finds its heads, takes the runs before it from its predecessors by a decoupled
 * look-back, and writes its heads' keys, starts and the lengths of the runs they end.
 * Elsewhere, staged: the heads flagged (HEADS), the flags scanned in place by the library's
 * scan, the heads scattered to their run's place (SCATTER), the lengths from the run starts
 * (LENGTHS). Reduce-by-key then reduces the values over those starts as segments, with the
 * run count left on the GPU as the segment count. See docs/ALGORITHMS.md. */
#include "algo/rle.h"
#include "algo/scan.h"
#include "algo/segreduce.h"

/* The context's scratch slots (the scan inside uses slot 1, the segmented reduction 4, 5). */
enum { SLOT_FLAGS = 2, SLOT_STARTS = 3 };

rle_chained_plan rle_chained_plan_for(gpgpu_type type, size_t n)
{
    rle_chained_plan p = {.items = gpgpu_type_size(type) == 8 ? RLE_ITEMS / 2 : RLE_ITEMS};
    size_t tile = (size_t)RLE_WG * p.items;
    p.tiles = n ? (uint32_t)((n + tile - 1) / tile) : 1;
    p.state_words = 4 + 8 * (size_t)p.tiles;
    return p;
}

static exec_dispatch rle_stage(const rle_args *a, unsigned stage)
{
    exec_dispatch d = {.variant = {"rle", a->type, GPGPU_OP_SUM, RLE_WG, 1}};
    d.params[0] = stage;
    d.params[RLE_P_BOUND] = (uint32_t)a->n;
    d.bind[0] = a->keys;
    d.params[RLE_P_KEYS_OFF] = algo_index(a->keys, a->keys_off, a->type);
    if (a->unique) {
        d.bind[1] = a->unique;
        d.params[RLE_P_UNIQUE_OFF] = algo_index(a->unique, a->unique_off, a->type);
        d.params[RLE_P_OUTPUTS] |= RLE_OUT_UNIQUE;
    }
    if (a->lengths) {
        d.bind[2] = a->lengths;
        d.params[RLE_P_LENGTHS_OFF] = algo_index(a->lengths, a->lengths_off, GPGPU_TYPE_U32);
        d.params[RLE_P_OUTPUTS] |= RLE_OUT_LENGTHS;
    }
    if (a->flags) {
        d.bind[3] = a->flags;
        d.params[RLE_P_FLAGS_OFF] = algo_index(a->flags, a->flags_off, GPGPU_TYPE_U32);
    }
    if (a->state) {
        d.bind[7] = a->state;
        d.params[RLE_P_STATE_OFF] = algo_index(a->state, a->state_off, GPGPU_TYPE_U32);
    }
    d.bind[4] = a->starts;
    d.params[RLE_P_STARTS_OFF] = algo_index(a->starts, a->starts_off, GPGPU_TYPE_U32);
    d.params[RLE_P_RUNS_AT] = algo_index(a->starts, a->runs_at, GPGPU_TYPE_U32);
    if (a->count) {
        d.bind[5] = a->count;
        d.params[RLE_P_HAS_COUNT] = 1;
        d.params[RLE_P_COUNT_OFF] = algo_index(a->count, a->count_off, GPGPU_TYPE_U32);
    }
    if (a->count_out) {
        d.bind[6] = a->count_out;
        d.params[RLE_P_OUTPUTS] |= RLE_OUT_COUNT;
        d.params[RLE_P_COUNT_OUT_OFF] = algo_index(a->count_out, a->count_out_off, GPGPU_TYPE_U32);
    }
    return d;
}

gpgpu_status rle_stage_heads(gpgpu_context *ctx, const rle_args *a)
{
    exec_dispatch d = rle_stage(a, RLE_STAGE_HEADS);
    d.groups = algo_groups(a->n, RLE_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status rle_stage_scatter(gpgpu_context *ctx, const rle_args *a)
{
    exec_dispatch d = rle_stage(a, RLE_STAGE_SCATTER);
    d.groups = a->n ? algo_groups(a->n, RLE_WG) : 1; /* no keys still writes the count */
    return algo_stage(ctx, &d);
}

gpgpu_status rle_stage_lengths(gpgpu_context *ctx, const rle_args *a)
{
    exec_dispatch d = rle_stage(a, RLE_STAGE_LENGTHS);
    d.groups = algo_groups(a->n, RLE_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status rle_stage_clear(gpgpu_context *ctx, const rle_args *a, rle_chained_plan p)
{
    exec_dispatch d = rle_stage(a, RLE_STAGE_CLEAR);
    d.variant.only_stage = RLE_STAGE_CLEAR; /* no tile's registers or shared arrays */
    d.params[RLE_P_BOUND] = (uint32_t)p.state_words;
    d.groups = algo_groups(p.state_words, RLE_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status rle_stage_chained(gpgpu_context *ctx, const rle_args *a, rle_chained_plan p)
{
    exec_dispatch d = rle_stage(a, RLE_STAGE_CHAINED);
    d.variant.items = p.items;
    d.variant.only_stage = RLE_STAGE_CHAINED; /* the tile in registers, a program of its own */
    d.params[RLE_P_FALLBACK] = a->forced;
    d.params[RLE_P_POLLS] = RLE_POLLS;
    d.groups = p.tiles;
    return algo_stage(ctx, &d);
}

/* The single pass where the device has subgroups (its group scans and, in time, its look-back
 * are subgroup operations; without them each tile's scan takes 16 barriers, and the staged
 * path with the library's reduce-then-scan is the one that is tuned there). */
static bool use_chained(const gpgpu_context *ctx) { return ctx->info.has_subgroups; }

/* CHAINED (CLEAR first where there is more than one tile), or HEADS, the scan of the flags in
 * place, SCATTER, and LENGTHS where asked. */
static gpgpu_status encode(gpgpu_context *ctx, const rle_args *a)
{
    if (use_chained(ctx)) {
        rle_chained_plan p = rle_chained_plan_for(a->type, a->n);
        rle_args c = *a;
        c.state = a->flags; /* the single pass's states in the flags' place */
        c.state_off = a->flags_off;
        c.flags = NULL;
        if (p.tiles > 1)
            TRY(rle_stage_clear(ctx, &c, p));
        return rle_stage_chained(ctx, &c, p);
    }
    TRY(rle_stage_heads(ctx, a));
    TRY(scan_default(ctx, GPGPU_TYPE_U32, false, a->flags, a->flags_off, a->flags, a->flags_off,
                     a->n));
    TRY(rle_stage_scatter(ctx, a));
    return a->lengths ? rle_stage_lengths(ctx, a) : GPGPU_SUCCESS;
}

/* ------------------------------------------------------------ public calls */

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

/* The flags' n words (or the single pass's states, where they are more), the starts' n + 1
 * and the run count, then reduce-by-key's segmented reduction. */
static size_t flag_words(size_t n)
{
    size_t states = rle_chained_plan_for(GPGPU_TYPE_F64, n).state_words; /* the most tiles */
    return n > states ? n : states;
}

static size_t encode_bytes(size_t n) { return align8(flag_words(n) * 4) + align8((n + 2) * 4); }

static gpgpu_type value_type_of(const gpgpu_rle_desc *desc)
{
    return desc->value_type ? desc->value_type : desc->type;
}

static size_t scratch_bytes(const gpgpu_rle_desc *desc, size_t n, bool by_key)
{
    return encode_bytes(n) + (by_key ? segreduce_scratch_bytes(value_type_of(desc), n, n) : 0);
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
    *bytes = scratch_bytes(desc, count, by_key);
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
        size_t need = scratch_bytes(desc, n, by_key);
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

/* The flags and starts in the caller's scratch or the context's own; the segmented
 * reduction's regions after them (reduce-by-key). */
static gpgpu_status place(gpgpu_context *ctx, const gpgpu_rle_desc *desc, rle_args *a)
{
    size_t n = a->n;
    if (desc->scratch) {
        size_t at = desc->scratch_offset;
        a->flags = a->starts = desc->scratch;
        a->flags_off = at / 4;
        a->starts_off = (at + align8(flag_words(n) * 4)) / 4;
    } else {
        TRY(ctx_scratch(ctx, SLOT_FLAGS, flag_words(n) * 4, &a->flags));
        TRY(ctx_scratch(ctx, SLOT_STARTS, (n + 2) * 4, &a->starts));
        a->flags_off = a->starts_off = 0;
    }
    a->runs_at = a->starts_off + n + 1;
    return GPGPU_SUCCESS;
}

static gpgpu_status read_runs(gpgpu_context *ctx, const rle_args *a, size_t *runs)
{
    if (!runs)
        return GPGPU_SUCCESS;
    uint32_t r = 0;
    TRY(ctx->exec->buffer_read(a->starts, a->runs_at * 4, &r, sizeof r));
    *runs = r;
    return GPGPU_SUCCESS;
}

static rle_args args_of(const gpgpu_rle_desc *desc, gpgpu_buffer *keys, size_t keys_off,
                        size_t n)
{
    return (rle_args){.type = desc->type, .keys = keys, .keys_off = keys_off, .n = n,
                      .count = desc->count_buffer, .count_off = desc->count_offset,
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
    rle_args a = args_of(desc, keys, keys_offset, count);
    a.unique = unique_out;
    a.unique_off = unique_offset;
    a.lengths = lengths_out;
    a.lengths_off = lengths_offset;
    gpgpu_status s = place(ctx, desc, &a);
    if (s == GPGPU_SUCCESS)
        s = encode(ctx, &a);
    if (s == GPGPU_SUCCESS)
        s = read_runs(ctx, &a, runs);
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
    rle_args a = args_of(desc, keys, keys_offset, count);
    a.unique = keys_out;
    a.unique_off = keys_out_offset;
    gpgpu_status s = place(ctx, desc, &a);
    if (s == GPGPU_SUCCESS)
        s = encode(ctx, &a);
    /* The runs' starts are the segments, the run count on the GPU their count. */
    segreduce_args r = {.type = vt, .op = GPGPU_OP_SUM, .in = values, .in_off = values_offset,
                        .n = count, .seg = a.starts, .seg_off = a.starts_off, .nseg = count,
                        .count = a.starts, .count_off = a.runs_at, .out = sums_out,
                        .out_off = sums_out_offset};
    if (s == GPGPU_SUCCESS && count > 0)
        s = segreduce_place(ctx, desc->scratch,
                            desc->scratch ? desc->scratch_offset + encode_bytes(count) : 0, &r);
    if (s == GPGPU_SUCCESS && count > 0)
        s = segreduce_run(ctx, &r);
    if (s == GPGPU_SUCCESS)
        s = read_runs(ctx, &a, runs);
    return ctx_end(ctx, s);
}
