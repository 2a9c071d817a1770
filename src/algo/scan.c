/* Prefix sums: the single pass (the fast default where the device has
 * subgroups), reduce-then-scan, and Kiciak's iPrefixSum.
 *
 * Reduce-then-scan reads the input twice and writes it once, in three
 * stages whose only cross-group communication is through a barrier between
 * dispatches. The single pass reads once and writes once: tiles learn the
 * sum of the tiles before them within the dispatch, from values the earlier
 * tiles publish, and sum a silent predecessor from its input themselves,
 * so that no work-group ever waits on another's progress (which neither GL
 * nor Vulkan promises). Without subgroups its look-back walks one tile per
 * barrier, which is why reduce-then-scan stays the default there. */
#include "algo/copy.h"
#include "algo/count.h"
#include "algo/scan.h"

scan_chained_plan scan_chained_plan_for(gpgpu_context *ctx, gpgpu_type type, size_t n)
{
    const algo_scan_plan *t = &ctx->plans.scan;
    size_t size = gpgpu_type_size(type);
    /* The tile's shape by backend: on the H100 Vulkan's tiles of 256 x 32
     * (in subgroup rows) took 2^24 / 2^28 u32 in 64 / 772 us (512 x 16 and
     * 128 x 32 slower). NVIDIA's GL ran that tile held in registers across the
     * look-back in 99 / 1357 us, and reloaded after it (below) in 70 / 817;
     * up to 2^22 its 512 x 8 tiles held across stay faster (2^22 25.3 against
     * 26.1 us; 2^14, four 256 x 16 tiles, 14.0 against 28.6). docs/DECISIONS.md.
     * The plan holds both tiles (plans.c, resolve_scan). */
    bool large = n > t->chained_small_max;
    uint32_t items = large ? t->chained_items : t->chained_small_items;
    uint32_t wg = large ? t->chained_wg : t->chained_small_wg;
    /* The tile loaded a second time after the look-back, from L2 where the first
     * load left it: the first load's registers then end at the tile's sum, and
     * the look-back's loop (barriers, polls, a predecessor's recount) runs
     * without a whole tile held across it. NVIDIA's GL needs that for its large
     * tiles (above); Vulkan's compiler keeps the tile across the loop well, and
     * the second load only costs it (2^28 u32 933 against 772 us). */
    bool reload = t->reload == SCAN_RELOAD_ALWAYS || (t->reload == SCAN_RELOAD_LARGE && large);
    /* f64: half the items, the same bytes a tile, where the tile is loaded again or the scan
     * is short; a quarter where a large tile is held across the look-back (H200 Vulkan, 256
     * x 8 doubles against 256 x 16: 2^22 36.9 against 59.3 us, 2^24 106.4 against 174.3; at
     * 2^20 the half tile, 15.7 against 18.7). */
    bool quarter = large && !reload && items >= 4 && n > SCAN_CHAINED_SHORT_MAX;
    if (size == 8 && items > 1)
        items /= quarter ? 4 : 2;
    if (wg > SCAN_CHAINED_WG_MAX)
        wg = SCAN_CHAINED_WG_MAX;
    /* A scan of one tile spreads it over the widest group: its time is one
     * group's latency (Vulkan, 2^10-2^12: 6.6 us in 512 x 8, 10.0 in 128 x 32). */
    while ((size_t)wg * items >= n && items > 1 && wg < SCAN_CHAINED_WG_MAX &&
           wg * 2 <= ctx->info.max_workgroup_invocations) {
        wg *= 2;
        items /= 2;
    }
    /* Short scans of more than one tile take tiles of half the items: under
     * NVIDIA's GL (H100) 2-128 tiles of 8 items took 27 us at 2^14-2^18
     * whatever the size, of 4 items 15-16 us (why is not known), and at
     * 2^20 19 or 31 us from one process to the next, against 18.9; Vulkan
     * gave the same time either way there (11.7 us at 2^18). From 2^21 up
     * the longer tiles are faster on both (2^23: 55 against 62 us GL, 52
     * against 58 us Vulkan), and one tile stays one tile (2^12: 9.5 us GL,
     * 6.1 us Vulkan, against 15.2 and 10.6 us for two). docs/DECISIONS.md. */
    if (items > 1 && n > (size_t)wg * items && n <= SCAN_CHAINED_SHORT_MAX)
        items /= 2;
    size_t tile = (size_t)wg * items;
    size_t tiles = n == 0 ? 1 : size_ceil_div(n, tile);
    /* A ticket in the first 16 bytes, then each tile's 16 bytes (32 for f64). */
    return (scan_chained_plan){.wg = wg, .items = items, .tiles = (uint32_t)tiles,
                               .reload = reload, .state_words = 4 + tiles * (size == 8 ? 8 : 4)};
}

scan_plan scan_plan_for(const gpgpu_context *ctx, size_t n)
{
    const algo_scan_plan *t = &ctx->plans.scan;
    size_t tile = (size_t)SCAN_WG * t->items;
    size_t tiles = n == 0 ? 1 : size_ceil_div(n, tile);
    size_t per_group = size_ceil_div(tiles, t->max_groups);
    return (scan_plan){.groups = (uint32_t)size_ceil_div(tiles, per_group),
                       .tiles_per_group = (uint32_t)per_group,
                       .items = t->items};
}

static exec_dispatch stage(const gpgpu_context *ctx, gpgpu_type type, unsigned which,
                           bool classic)
{
    exec_dispatch d = {.variant = {"scan", type, GPGPU_OP_SUM, classic ? CLASSIC_WG : SCAN_WG,
                                   classic ? 1 : ctx->plans.scan.items}};
    d.params[0] = which;
    return d;
}

/* Binds src, dst and part, and sets the parameters every fast stage reads. */
static void bind_fast(exec_dispatch *d, gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                      size_t dst_off, size_t n, gpgpu_buffer *part, scan_plan plan)
{
    gpgpu_type type = d->variant.type;
    algo_bind_io(d, src, src_off, dst, dst_off, n);
    d->bind[2] = part;
    d->params[SCAN_P_TILES_PER_GROUP] = plan.tiles_per_group;
    d->params[SCAN_P_GROUPS] = plan.groups;
    d->params[SCAN_P_PART_OFF] = algo_index(part, plan.part_off, type);
    d->groups = plan.groups;
    count_bind(d, plan.count, SCAN_P_N);
}

gpgpu_status scan_stage_reduce(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *src,
                               size_t src_off, size_t n, gpgpu_buffer *part, scan_plan plan)
{
    exec_dispatch d = stage(ctx, type, SCAN_STAGE_REDUCE, false);
    bind_fast(&d, src, src_off, NULL, 0, n, part, plan);
    return algo_stage(ctx, &d);
}

gpgpu_status scan_stage_partials(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *part,
                                 size_t part_off, uint32_t groups)
{
    exec_dispatch d = stage(ctx, type, SCAN_STAGE_PARTIALS, false);
    d.bind[2] = part;
    d.params[SCAN_P_GROUPS] = groups;
    d.params[SCAN_P_PART_OFF] = algo_index(part, part_off, type);
    d.groups = 1;
    return algo_stage(ctx, &d);
}

gpgpu_status scan_stage_tiles(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                              gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                              size_t dst_off, size_t n, gpgpu_buffer *part, scan_plan plan)
{
    exec_dispatch d = stage(ctx, type, SCAN_STAGE_TILES, false);
    bind_fast(&d, src, src_off, dst, dst_off, n, part, plan);
    d.params[SCAN_P_EXCLUSIVE] = exclusive;
    return algo_stage(ctx, &d);
}

gpgpu_status scan_stage_copy(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                             gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                             size_t dst_off, size_t n)
{
    exec_dispatch d = stage(ctx, type, SCAN_STAGE_COPY, true);
    algo_bind_io(&d, src, src_off, dst, dst_off, n);
    d.params[SCAN_P_EXCLUSIVE] = exclusive;
    d.groups = algo_groups(n, CLASSIC_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status scan_stage_step(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf, size_t off,
                             size_t n, unsigned k)
{
    exec_dispatch d = stage(ctx, type, SCAN_STAGE_STEP, true);
    d.bind[0] = buf;
    d.bind[1] = buf;
    d.params[SCAN_P_N] = (uint32_t)n;
    d.params[SCAN_P_DST_OFF] = algo_index(buf, off, type);
    d.params[SCAN_P_STEP_K] = k;
    d.groups = algo_groups((n + 1) / 2, CLASSIC_WG); /* Kiciak: ceil(n/2) invocations */
    return algo_stage(ctx, &d);
}

static exec_dispatch chained_stage(gpgpu_type type, unsigned which, scan_chained_plan p)
{
    exec_dispatch d = {.variant = {"scan", type, GPGPU_OP_SUM, p.wg, p.items}};
    d.params[0] = which;
    return d;
}

gpgpu_status scan_stage_clear(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *state,
                              scan_chained_plan p)
{
    exec_dispatch d = chained_stage(type, SCAN_STAGE_CLEAR, p);
    d.variant.only_stage = SCAN_STAGE_CLEAR; /* no shared tile (glsl/scan.comp says why) */
    d.bind[3] = state;
    d.params[SCAN_P_N] = (uint32_t)p.state_words;
    d.groups = algo_groups(p.state_words, p.wg);
    return algo_stage(ctx, &d);
}

gpgpu_status scan_stage_chained(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                                gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                                size_t dst_off, size_t n, gpgpu_buffer *state,
                                scan_chained_plan p, scan_fallback fallback)
{
    exec_dispatch d = chained_stage(type, SCAN_STAGE_CHAINED, p);
    d.variant.only_stage = SCAN_STAGE_CHAINED; /* no shared tile: more groups per multiprocessor */
    exec_shape_set(&d.variant, SCAN_SHAPE_RELOAD, p.reload);
    algo_bind_io(&d, src, src_off, dst, dst_off, n);
    size_t size = gpgpu_type_size(type);
    d.params[SCAN_P_IN_PLACE] = algo_overlap(src, src_off * size, n * size, dst, dst_off * size, n * size);
    d.bind[3] = state;
    d.params[SCAN_P_EXCLUSIVE] = exclusive;
    d.params[SCAN_P_FALLBACK] = fallback;
    d.params[SCAN_P_POLLS] = ctx->plans.scan.polls;
    /* 16-byte accesses (four 4-byte elements or two f64) need both element
     * offsets (from bindings aligned to at least 16 bytes) and each
     * invocation's runs to be whole vectors. */
    uint32_t vw = (uint32_t)(16 / size);
    d.params[SCAN_P_VEC] = p.items % vw == 0 && d.params[SCAN_P_SRC_OFF] % vw == 0 &&
                      d.params[SCAN_P_DST_OFF] % vw == 0;
    d.groups = p.tiles;
    count_bind(&d, p.count, SCAN_P_N);
    return algo_stage(ctx, &d);
}

/* ------------------------------------------------------------- drivers */

/* The single pass where the device has subgroups (its look-back is one
 * subgroup's ballots; without them it walks one tile per barrier): on the
 * H100 it is one dispatch where reduce-then-scan is three (7.9 against 17.1
 * us at 2^10), and it moves 2n elements against 3n (Vulkan, u32: 70.6
 * against 100.5 us at 2^24, 857 against 1195 at 2^28); f64 too, with its own
 * tile (scan_chained_plan_for; H200 Vulkan 2^24: 106.4 against 159.2 us, GL
 * 99.8 against 214.9). docs/DECISIONS.md. */
static bool use_single_pass(gpgpu_context *ctx, gpgpu_algo algo, gpgpu_type type, size_t n)
{
    if (algo == GPGPU_ALGO_SCAN_SINGLE_PASS || algo == GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN)
        return algo == GPGPU_ALGO_SCAN_SINGLE_PASS;
    scan_pass_mode mode = ctx->plans.scan.pass;
    scan_chained_plan plan = scan_chained_plan_for(ctx, type, n);
    /* Its groups of up to 512 invocations: where the device allows fewer, reduce-then-scan
     * (an explicit single pass is refused by algo_stage). */
    bool wg_fits = plan.wg <= ctx->info.max_workgroup_invocations;
    return mode == SCAN_PASS_SINGLE ||
           (mode == SCAN_PASS_AUTO && ctx->info.has_subgroups && wg_fits);
}

static gpgpu_status scan_single_pass(gpgpu_context *ctx, const gpgpu_scan_desc *desc,
                                     gpgpu_buffer *in, size_t in_off, gpgpu_buffer *out,
                                     size_t out_off, size_t n, gpgpu_buffer *count)
{
    scan_chained_plan p = scan_chained_plan_for(ctx, desc->type, n);
    p.count = count;
    gpgpu_buffer *state;
    TRY(ctx_scratch(ctx, 1, p.state_words * sizeof(uint32_t), &state));
    if (p.tiles > 1)
        TRY(scan_stage_clear(ctx, desc->type, state, p));
    return scan_stage_chained(ctx, desc->type, desc->exclusive, in, in_off, out, out_off, n,
                              state, p, SCAN_FALLBACK_NONE);
}

static gpgpu_status scan_fast(gpgpu_context *ctx, const gpgpu_scan_desc *desc, gpgpu_buffer *in,
                              size_t in_off, gpgpu_buffer *out, size_t out_off, size_t n,
                              gpgpu_buffer *count)
{
    scan_plan plan = scan_plan_for(ctx, n);
    plan.count = count;
    gpgpu_buffer *part;
    TRY(ctx_scratch(ctx, 1, plan.groups * gpgpu_type_size(desc->type), &part));
    TRY(scan_stage_reduce(ctx, desc->type, in, in_off, n, part, plan));
    TRY(scan_stage_partials(ctx, desc->type, part, 0, plan.groups));
    return scan_stage_tiles(ctx, desc->type, desc->exclusive, in, in_off, out, out_off, n, part,
                            plan);
}

/* iPrefixSum works in place on the output: copy (shifted for exclusive),
 * then ceil(log2 n) steps. An exclusive scan in place shifts from a copy. */
static gpgpu_status scan_classic(gpgpu_context *ctx, const gpgpu_scan_desc *desc,
                                 gpgpu_buffer *in, size_t in_off, gpgpu_buffer *out,
                                 size_t out_off, size_t n)
{
    size_t size = gpgpu_type_size(desc->type);
    /* Also two wraps of one GL buffer or VkBuffer at the same place. */
    bool in_place = algo_same_range(in, in_off * size, out, out_off * size);
    if (in_place && desc->exclusive) {
        gpgpu_buffer *copy;
        TRY(ctx_scratch(ctx, 0, n * size, &copy));
        TRY(copy_stage(ctx, in, in_off * size, copy, 0, n * size));
        in = copy;
        in_off = 0;
    }
    if (!in_place || desc->exclusive)
        TRY(scan_stage_copy(ctx, desc->type, desc->exclusive, in, in_off, out, out_off, n));
    unsigned k = 0;
    for (size_t m = n - 1; m > 0; m >>= 1, k++)
        TRY(scan_stage_step(ctx, desc->type, out, out_off, n, k));
    return GPGPU_SUCCESS;
}

static gpgpu_status check_args(gpgpu_context *ctx, const gpgpu_scan_desc *desc, gpgpu_buffer *in,
                               size_t in_off, gpgpu_buffer *out, size_t out_off, size_t n)
{
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_scan: desc is NULL");
    TRY(algo_check_type(ctx, desc->type, "gpgpu_scan"));
    TRY(ALGO_CHECK(ctx, desc->algo, "gpgpu_scan", GPGPU_ALGO_SCAN_SINGLE_PASS,
                   GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN, GPGPU_ALGO_CLASSIC_SCAN));
    TRY(count_check(ctx, desc->count_buffer, desc->count_offset, "gpgpu_scan (count_buffer)"));
    CHECK(!desc->count_buffer || desc->algo != GPGPU_ALGO_CLASSIC_SCAN, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_scan: CLASSIC_SCAN takes no count_buffer (its steps are counted on the host)");
    TRY(algo_check_range(ctx, in, in_off, n, desc->type, "gpgpu_scan (input)"));
    TRY(algo_check_range(ctx, out, out_off, n, desc->type, "gpgpu_scan (output)"));
    size_t size = gpgpu_type_size(desc->type);
    CHECK(algo_same_range(in, in_off * size, out, out_off * size) ||
              !algo_overlap(in, in_off * size, n * size, out, out_off * size, n * size),
          ctx, GPGPU_ERROR_OVERLAP,
          "gpgpu_scan: input [%zu, %zu) and output [%zu, %zu) overlap without being equal",
          in_off, in_off + n, out_off, out_off + n);
    return GPGPU_SUCCESS;
}

gpgpu_status scan_reduce_then_scan(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                                   gpgpu_buffer *in, size_t in_off, gpgpu_buffer *out,
                                   size_t out_off, size_t n)
{
    gpgpu_scan_desc desc = {.type = type, .exclusive = exclusive};
    return n == 0 ? GPGPU_SUCCESS : scan_fast(ctx, &desc, in, in_off, out, out_off, n, NULL);
}

/* The single pass or reduce-then-scan, as desc->algo and use_single_pass say (n > 0). */
static gpgpu_status scan_run(gpgpu_context *ctx, const gpgpu_scan_desc *desc, gpgpu_buffer *in,
                             size_t in_off, gpgpu_buffer *out, size_t out_off, size_t n,
                             gpgpu_buffer *count)
{
    if (use_single_pass(ctx, desc->algo, desc->type, n))
        return scan_single_pass(ctx, desc, in, in_off, out, out_off, n, count);
    return scan_fast(ctx, desc, in, in_off, out, out_off, n, count);
}

gpgpu_status scan_default(gpgpu_context *ctx, gpgpu_type type, bool exclusive, gpgpu_buffer *in,
                          size_t in_off, gpgpu_buffer *out, size_t out_off, size_t n)
{
    gpgpu_scan_desc desc = {.type = type, .exclusive = exclusive, .algo = GPGPU_ALGO_DEFAULT};
    return n == 0 ? GPGPU_SUCCESS : scan_run(ctx, &desc, in, in_off, out, out_off, n, NULL);
}

gpgpu_status gpgpu_scan(gpgpu_context *ctx, const gpgpu_scan_desc *desc, gpgpu_buffer *in,
                        size_t in_offset, gpgpu_buffer *out, size_t out_offset, size_t count)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    TRY(check_args(ctx, desc, in, in_offset, out, out_offset, count));
    if (count == 0)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    if (desc->algo == GPGPU_ALGO_CLASSIC_SCAN)
        return ctx_end(ctx, scan_classic(ctx, desc, in, in_offset, out, out_offset, count));
    /* A count on the GPU: the plans are made for the bound `count`, and the stages read
     * the real one (algo/count.h). */
    gpgpu_buffer *staged;
    gpgpu_status s = count_stage(ctx, desc->count_buffer, desc->count_offset, count, &staged);
    if (s == GPGPU_SUCCESS)
        s = scan_run(ctx, desc, in, in_offset, out, out_offset, count, staged);
    return ctx_end(ctx, s);
}
