/* gpgpu_sort: checks, the choice of algorithm, the scratch memory, and the
 * plumbing around the bitonic network (bitonic.c) and the radix sort
 * (radix.c): copies for out-of-place sorts, the input index as payload where
 * the network must be stable or segments must be told apart, and the final
 * gather of the values through that index. Helper stages: glsl/sort.comp. */
#include <string.h>

#include "algo/copy.h"
#include "algo/sort.h"

/* The stages built as programs of their own (ONLY_STAGE, see exec_variant):
 * the tile stages, whose registers and shared memory would otherwise be
 * reserved by every dispatch of the family, and the network's STEP.
 * glsl/sort.comp leaves them out of the family's shared program
 * (OWN_PROGRAM there), so that a driver builds each only where a sort runs
 * it: on llvmpipe the shared program with them took 14 s of LLVM per (type,
 * tile) variant (0.7 s without), most of a cold test run, and a STEP there
 * ran 5x slower than in its own (docs/TESTING.md). STEPS, the helpers and
 * the one-sweep's clear and scan stay in the shared program: STEPS in one
 * of its own ran 1.5x slower under NVIDIA's GL (docs/DECISIONS.md). */
static unsigned own_program(unsigned stage)
{
    switch (stage) {
    case SORT_STAGE_LOCAL_SORT:
    case SORT_STAGE_LOCAL_MERGE:
    case SORT_STAGE_HIST:
    case SORT_STAGE_SCATTER:
    case SORT_STAGE_OS_HIST:
    case SORT_STAGE_ONESWEEP:
    case SORT_STAGE_SMALL:
    case SORT_STAGE_STEP:
        return stage;
    default:
        return 0;
    }
}

exec_dispatch sort_dispatch(const sort_keys *a, unsigned stage, unsigned wg, unsigned items)
{
    exec_dispatch d = {.variant = {"sort", a->type, GPGPU_OP_SUM, wg, items, own_program(stage)}};
    d.params[0] = stage;
    d.bind[0] = a->keys;
    d.params[SORT_P_N] = (uint32_t)a->n;
    d.params[SORT_P_KEY_OFF_A] = algo_index(a->keys, a->keys_off, a->type);
    d.params[SORT_P_FLAGS] = a->flags;
    d.params[SORT_P_INDEX_BASE] = a->index_base;
    if (a->pay) {
        d.bind[2] = a->pay;
        d.params[SORT_P_PAY_OFF_A] = algo_index(a->pay, a->pay_off, GPGPU_TYPE_U32);
        d.params[SORT_P_FLAGS] |= SORT_FLAG_PAYLOAD;
    }
    if (a->segs) {
        d.bind[5] = a->segs;
        d.params[SORT_P_SEG_OFF] = algo_index(a->segs, a->segs_off, GPGPU_TYPE_U32);
        d.params[SORT_P_NSEG] = (uint32_t)a->nseg;
    }
    return d;
}

/* The helper stages run on u32 data; the key type only names the variant. */
static exec_dispatch helper(unsigned stage, size_t n)
{
    exec_dispatch d = {.variant = {"sort", GPGPU_TYPE_U32, GPGPU_OP_SUM, BITONIC_WG, 1}};
    d.params[0] = stage;
    d.params[SORT_P_N] = (uint32_t)n;
    d.groups = algo_groups(n, BITONIC_WG);
    return d;
}

gpgpu_status sort_stage_iota(gpgpu_context *ctx, gpgpu_buffer *pay, size_t pay_off, size_t n)
{
    exec_dispatch d = helper(SORT_STAGE_IOTA, n);
    d.bind[3] = pay;
    d.params[SORT_P_PAY_OFF_B] = algo_index(pay, pay_off, GPGPU_TYPE_U32);
    return algo_stage(ctx, &d);
}

gpgpu_status sort_stage_gather(gpgpu_context *ctx, gpgpu_buffer *perm, size_t perm_off,
                               gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                               size_t dst_off, size_t n)
{
    exec_dispatch d = helper(SORT_STAGE_GATHER, n);
    d.bind[2] = perm;
    d.bind[3] = dst;
    d.bind[4] = src;
    d.params[SORT_P_PAY_OFF_A] = algo_index(perm, perm_off, GPGPU_TYPE_U32);
    d.params[SORT_P_PAY_OFF_B] = algo_index(dst, dst_off, GPGPU_TYPE_U32);
    d.params[SORT_P_AUX_OFF] = algo_index(src, src_off, GPGPU_TYPE_U32);
    return algo_stage(ctx, &d);
}

/* ------------------------------------------------------------ planning */

/* What one call does, resolved from its desc and count. */
typedef struct sort_plan {
    gpgpu_algo algo;  /* CLASSIC_NETSORT, BITONIC or RADIX */
    bool values;      /* values travel with the keys */
    bool by_index;    /* the payload is the input index; values are gathered at the end */
    bool values_in_place;
} sort_plan;

/* Scratch regions, in the order they are laid out in a caller's buffer. */
enum { R_KEYS, R_PAY, R_INDEX, R_VALUES, R_HIST, R_PART, R_COUNT };

/* The default: the radix sort, whose sorts of up to a tile are one
 * work-group's dispatch (1.8-2.5x faster than the bitonic tile on an H100
 * from 2^10 to 2^12, docs/DECISIONS.md); where that one-group sort is
 * off, the bitonic tile below BITONIC_TILE keys, one dispatch against the
 * multi-pass radix sort's seven. */
static gpgpu_algo resolve_algo(gpgpu_context *ctx, gpgpu_type type, gpgpu_algo algo, size_t n)
{
    if (algo == GPGPU_ALGO_DEFAULT || algo == GPGPU_ALGO_FAST)
        return n <= BITONIC_TILE && !radix_small(ctx, type, n) ? GPGPU_ALGO_BITONIC
                                                                : GPGPU_ALGO_RADIX;
    return algo;
}

static sort_plan plan_for(gpgpu_context *ctx, const gpgpu_sort_desc *desc, size_t n)
{
    sort_plan p = {.algo = resolve_algo(ctx, desc->type, desc->algo, n),
                   .values = desc->values_in != NULL};
    bool network = p.algo != GPGPU_ALGO_RADIX;
    p.by_index = desc->segments != NULL || (network && desc->stable);
    p.values_in_place = p.values && (!desc->values_out ||
                                     algo_same_range(desc->values_in, desc->values_in_offset * 4,
                                                     desc->values_out,
                                                     desc->values_out_offset * 4));
    return p;
}

/* Bytes of each scratch region (0: not needed). */
static void region_bytes(gpgpu_context *ctx, const gpgpu_sort_desc *desc, size_t n,
                         size_t bytes[R_COUNT])
{
    sort_plan p = plan_for(ctx, desc, n);
    memset(bytes, 0, R_COUNT * sizeof bytes[0]);
    bool radix = p.algo == GPGPU_ALGO_RADIX;
    bool payload = p.values || p.by_index;
    if (radix && !radix_small(ctx, desc->type, n)) { /* one group in place needs no copy */
        bytes[R_KEYS] = n * gpgpu_type_size(desc->type);
        bytes[R_PAY] = payload ? n * 4 : 0;
        bytes[R_HIST] = radix_hist_count(ctx, desc->type, n) * 4;
        bytes[R_PART] = radix_part_count(ctx, desc->type, n) * 4;
    }
    bytes[R_INDEX] = p.by_index ? n * 4 : 0;
    bytes[R_VALUES] = p.by_index && p.values_in_place ? n * 4 : 0;
}

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

static size_t total_bytes(const size_t bytes[R_COUNT])
{
    size_t total = 0;
    for (int r = 0; r < R_COUNT; r++)
        total += align8(bytes[r]);
    return total;
}

/* A scratch region: a buffer and a byte offset into it. */
typedef struct region {
    gpgpu_buffer *buf;
    size_t off;
} region;

/* Regions in the caller's scratch buffer, or in the context's own (one
 * slot each, above those reduce and scan use). */
static gpgpu_status get_regions(gpgpu_context *ctx, const gpgpu_sort_desc *desc,
                                const size_t bytes[R_COUNT], region out[R_COUNT])
{
    size_t at = desc->scratch_offset;
    for (int r = 0; r < R_COUNT; r++) {
        out[r] = (region){0};
        if (bytes[r] == 0)
            continue;
        if (desc->scratch) {
            out[r] = (region){desc->scratch, at};
            at += align8(bytes[r]);
        } else {
            out[r].off = 0;
            TRY(ctx_scratch(ctx, (unsigned)(2 + r), bytes[r], &out[r].buf));
        }
    }
    return GPGPU_SUCCESS;
}

/* --------------------------------------------------------------- drivers */

static gpgpu_status copy_elems(gpgpu_context *ctx, gpgpu_buffer *src, size_t src_off,
                               gpgpu_buffer *dst, size_t dst_off, size_t n, size_t size)
{
    if (algo_same_range(src, src_off * size, dst, dst_off * size))
        return GPGPU_SUCCESS;
    return copy_stage(ctx, src, src_off * size, dst, dst_off * size, n * size);
}

/* The network sorts in place: keys (and values, or the index) are first
 * copied where they end. */
static gpgpu_status run_network(gpgpu_context *ctx, sort_plan p, sort_keys a,
                                const gpgpu_sort_desc *desc, gpgpu_buffer *keys_in,
                                size_t keys_in_off)
{
    TRY(copy_elems(ctx, keys_in, keys_in_off, a.keys, a.keys_off, a.n, gpgpu_type_size(a.type)));
    if (p.by_index)
        TRY(sort_stage_iota(ctx, a.pay, a.pay_off, a.n));
    else if (p.values)
        TRY(copy_elems(ctx, desc->values_in, desc->values_in_offset, a.pay, a.pay_off, a.n, 4));
    if (p.algo == GPGPU_ALGO_CLASSIC_NETSORT)
        return bitonic_sort_classic(ctx, &a);
    return bitonic_sort_fast(ctx, &a);
}

static gpgpu_status run_radix(gpgpu_context *ctx, sort_plan p, const sort_keys dst,
                              gpgpu_buffer *keys_in, size_t keys_in_off,
                              const gpgpu_sort_desc *desc, const region rg[R_COUNT])
{
    size_t ks = gpgpu_type_size(dst.type);
    sort_keys src = dst, alt = dst;
    src.keys = keys_in;
    src.keys_off = keys_in_off;
    src.pay = p.values && !p.by_index ? desc->values_in : NULL;
    src.pay_off = desc->values_in_offset;
    if (p.by_index)
        src.flags |= SORT_PAYLOAD_IS_INDEX;
    alt.keys = rg[R_KEYS].buf;
    alt.keys_off = rg[R_KEYS].off / ks;
    alt.pay = rg[R_PAY].buf;
    alt.pay_off = rg[R_PAY].off / 4;
    return radix_sort(ctx, &src, &dst, &alt, rg[R_HIST].buf, rg[R_HIST].off / 4, rg[R_PART].buf,
                      rg[R_PART].off / 4);
}

static gpgpu_status run(gpgpu_context *ctx, const gpgpu_sort_desc *desc, gpgpu_buffer *keys_in,
                        size_t keys_in_off, gpgpu_buffer *keys_out, size_t keys_out_off, size_t n)
{
    sort_plan p = plan_for(ctx, desc, n);
    size_t bytes[R_COUNT];
    region rg[R_COUNT];
    region_bytes(ctx, desc, n, bytes);
    TRY(get_regions(ctx, desc, bytes, rg));

    gpgpu_buffer *values_out = p.values_in_place ? desc->values_in : desc->values_out;
    size_t values_out_off = p.values_in_place ? desc->values_in_offset : desc->values_out_offset;
    /* The sorted array: keys where they end, payload the values' place or the index. */
    sort_keys a = {.type = desc->type, .keys = keys_out, .keys_off = keys_out_off, .n = n};
    if (p.by_index) {
        a.pay = rg[R_INDEX].buf;
        a.pay_off = rg[R_INDEX].off / 4;
    } else if (p.values) {
        a.pay = values_out;
        a.pay_off = values_out_off;
    }
    a.flags = desc->descending ? SORT_DESCENDING : 0;
    if (p.by_index && p.algo != GPGPU_ALGO_RADIX)
        a.flags |= SORT_TIES_BY_PAYLOAD;
    if (desc->segments) {
        a.flags |= SORT_SEGMENTED;
        a.segs = desc->segments;
        a.segs_off = desc->segments_offset;
        a.nseg = desc->segment_count;
    }

    /* Values gathered through the index must not be overwritten first. */
    gpgpu_buffer *values_src = desc->values_in;
    size_t values_src_off = desc->values_in_offset;
    if (p.by_index && p.values && p.values_in_place) {
        TRY(copy_stage(ctx, desc->values_in, desc->values_in_offset * 4, rg[R_VALUES].buf,
                       rg[R_VALUES].off, n * 4));
        values_src = rg[R_VALUES].buf;
        values_src_off = rg[R_VALUES].off / 4;
    }
    if (p.algo == GPGPU_ALGO_RADIX)
        TRY(run_radix(ctx, p, a, keys_in, keys_in_off, desc, rg));
    else
        TRY(run_network(ctx, p, a, desc, keys_in, keys_in_off));
    if (p.by_index && p.values)
        TRY(sort_stage_gather(ctx, a.pay, a.pay_off, values_src, values_src_off, values_out,
                              values_out_off, n));
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------- checks */

static gpgpu_status check_desc(gpgpu_context *ctx, const gpgpu_sort_desc *desc)
{
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_sort: desc is NULL");
    /* Keys are moved as bits, so f64 needs no shader doubles. */
    CHECK(gpgpu_type_size(desc->type) != 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_sort: unknown key type %d", (int)desc->type);
    TRY(ALGO_CHECK(ctx, desc->algo, "gpgpu_sort", GPGPU_ALGO_CLASSIC_NETSORT, GPGPU_ALGO_BITONIC,
                   GPGPU_ALGO_RADIX));
    CHECK(desc->values_in || !desc->values_out, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_sort: values_out is set but values_in is not");
    return GPGPU_SUCCESS;
}

static gpgpu_status check_args(gpgpu_context *ctx, const gpgpu_sort_desc *desc,
                               gpgpu_buffer *keys_in, size_t ki, gpgpu_buffer *keys_out,
                               size_t ko, size_t n)
{
    TRY(check_desc(ctx, desc));
    size_t ks = gpgpu_type_size(desc->type);
    TRY(algo_check_range(ctx, keys_in, ki, n, desc->type, "gpgpu_sort (keys_in)"));
    TRY(algo_check_range(ctx, keys_out, ko, n, desc->type, "gpgpu_sort (keys_out)"));
    CHECK(algo_same_range(keys_in, ki * ks, keys_out, ko * ks) ||
              !algo_overlap(keys_in, ki * ks, n * ks, keys_out, ko * ks, n * ks),
          ctx, GPGPU_ERROR_OVERLAP,
          "gpgpu_sort: keys_in [%zu, %zu) and keys_out [%zu, %zu) overlap without being equal",
          ki, ki + n, ko, ko + n);
    /* Where the values go, when there are values. */
    gpgpu_buffer *vo = desc->values_out ? desc->values_out : desc->values_in;
    size_t vi_off = desc->values_in_offset;
    size_t vo_off = desc->values_out ? desc->values_out_offset : vi_off;
    if (desc->values_in) {
        TRY(algo_check_range(ctx, desc->values_in, vi_off, n, GPGPU_TYPE_U32,
                             "gpgpu_sort (values_in)"));
        TRY(algo_check_range(ctx, vo, vo_off, n, GPGPU_TYPE_U32, "gpgpu_sort (values_out)"));
        CHECK(algo_same_range(desc->values_in, vi_off * 4, vo, vo_off * 4) ||
                  !algo_overlap(desc->values_in, vi_off * 4, n * 4, vo, vo_off * 4, n * 4),
              ctx, GPGPU_ERROR_OVERLAP,
              "gpgpu_sort: values_in and values_out overlap without being equal");
        CHECK(!algo_overlap(keys_out, ko * ks, n * ks, vo, vo_off * 4, n * 4) &&
                  !algo_overlap(keys_in, ki * ks, n * ks, vo, vo_off * 4, n * 4) &&
                  !algo_overlap(keys_out, ko * ks, n * ks, desc->values_in, vi_off * 4, n * 4),
              ctx, GPGPU_ERROR_OVERLAP, "gpgpu_sort: the keys and the values overlap");
    }
    if (desc->segments) {
        size_t offsets = desc->segment_count + 1;
        CHECK(offsets != 0, ctx, GPGPU_ERROR_OUT_OF_RANGE,
              "gpgpu_sort: %zu segments need more offsets than any buffer holds",
              desc->segment_count);
        TRY(algo_check_range(ctx, desc->segments, desc->segments_offset, offsets, GPGPU_TYPE_U32,
                             "gpgpu_sort (segments)"));
        CHECK(desc->segment_count >= 1 || n == 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
              "gpgpu_sort: %zu keys in 0 segments", n);
        /* Every pass reads the offsets: nothing the sort writes may be among them. */
        size_t so = desc->segments_offset * 4;
        CHECK(!algo_overlap(desc->segments, so, offsets * 4, keys_out, ko * ks, n * ks) &&
                  !(desc->values_in && algo_overlap(desc->segments, so, offsets * 4, vo,
                                                    vo_off * 4, n * 4)),
              ctx, GPGPU_ERROR_OVERLAP,
              "gpgpu_sort: the segment offsets overlap the keys or values it writes");
    }
    if (desc->scratch) {
        size_t bytes[R_COUNT];
        region_bytes(ctx, desc, n, bytes);
        size_t need = total_bytes(bytes);
        CHECK(desc->scratch->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
              "gpgpu_sort: the scratch buffer belongs to another context");
        CHECK(desc->scratch_offset % 8 == 0, ctx, GPGPU_ERROR_MISALIGNED,
              "gpgpu_sort: scratch_offset %zu is not a multiple of 8", desc->scratch_offset);
        /* An offset past the end is a bad argument whatever the sort needs (even none); a
         * buffer too small for what it needs is short of memory, as the context's own would be. */
        size_t size = desc->scratch->size;
        CHECK(desc->scratch_offset <= size, ctx, GPGPU_ERROR_OUT_OF_RANGE,
              "gpgpu_sort: scratch_offset %zu is past the end of the scratch buffer's %zu bytes "
              "(this sort needs %zu bytes there)", desc->scratch_offset, size, need);
        CHECK(need <= size - desc->scratch_offset, ctx, GPGPU_ERROR_OUT_OF_MEMORY,
              "gpgpu_sort: the scratch buffer's %zu bytes hold %zu from scratch_offset %zu; this "
              "sort needs %zu", size, size - desc->scratch_offset, desc->scratch_offset, need);
        if (need > 0)
            TRY(algo_check_range(ctx, desc->scratch, desc->scratch_offset / 8, need / 8,
                                 GPGPU_TYPE_F64, "gpgpu_sort (scratch)"));
        const gpgpu_buffer *s = desc->scratch;
        size_t at = desc->scratch_offset;
        CHECK(!algo_overlap(s, at, need, keys_out, ko * ks, n * ks) &&
                  !algo_overlap(s, at, need, keys_in, ki * ks, n * ks),
              ctx, GPGPU_ERROR_OVERLAP, "gpgpu_sort: the scratch memory overlaps the keys");
        CHECK(!desc->values_in || (!algo_overlap(s, at, need, desc->values_in, vi_off * 4, n * 4) &&
                                   !algo_overlap(s, at, need, vo, vo_off * 4, n * 4)),
              ctx, GPGPU_ERROR_OVERLAP, "gpgpu_sort: the scratch memory overlaps the values");
        CHECK(!desc->segments || !algo_overlap(s, at, need, desc->segments,
                                               desc->segments_offset * 4,
                                               (desc->segment_count + 1) * 4),
              ctx, GPGPU_ERROR_OVERLAP,
              "gpgpu_sort: the scratch memory overlaps the segment offsets");
    }
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_sort_scratch_size(gpgpu_context *ctx, const gpgpu_sort_desc *desc,
                                     size_t count, size_t *bytes)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(bytes, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_sort_scratch_size: bytes is NULL");
    TRY(check_desc(ctx, desc));
    /* The plans below divide by tile counts that a count past the shaders' range wraps to 0. */
    CHECK(count <= ALGO_MAX_COUNT, ctx, GPGPU_ERROR_TOO_LARGE,
          "gpgpu_sort_scratch_size: a sort of %zu keys: gpgpu_sort takes at most 2^31 - 1",
          count);
    size_t each[R_COUNT];
    region_bytes(ctx, desc, count, each);
    *bytes = total_bytes(each);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_sort(gpgpu_context *ctx, const gpgpu_sort_desc *desc, gpgpu_buffer *keys_in,
                        size_t keys_in_offset, gpgpu_buffer *keys_out, size_t keys_out_offset,
                        size_t count)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    if (!keys_out) {
        keys_out = keys_in;
        keys_out_offset = keys_in_offset;
    }
    TRY(check_args(ctx, desc, keys_in, keys_in_offset, keys_out, keys_out_offset, count));
    if (count == 0)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    return ctx_end(ctx, run(ctx, desc, keys_in, keys_in_offset, keys_out, keys_out_offset, count));
}
