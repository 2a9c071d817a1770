/* The LSD radix sort: 8-bit digits of the ordered key, least significant
 * first, then of the segment index for a segmented sort. Each pass is
 * reduce-then-scan: HIST counts each group's digits, the scan family turns
 * the digit-major table of counts into offsets, SCATTER moves every element
 * to its offset plus its rank among the equal digits before it. The rank
 * counts only earlier elements, so every pass, and the sort, is stable;
 * no work-group ever waits for another.
 *
 * The key passes can instead be one-sweep (where it is faster, see
 * radix_onesweep; GPGPU_TUNE=radix_onesweep=0 never, =2 always): one read of the keys counts the digits
 * of every pass (OS_HIST, OS_SCAN), and each pass is then one dispatch
 * whose tiles find the counts of the tiles before them by a chained
 * look-back that recounts a tile instead of waiting for it (ONESWEEP). It
 * reads the keys once per pass instead of twice. The segment passes of a
 * segmented sort stay reduce-then-scan. */

#include <stdlib.h>

#include "algo/copy.h"
#include "algo/scan.h"
#include "algo/sort.h"

/* Work-groups of `subgroups` subgroups (the counters in shared memory have
 * room for that many; RADIX_MAX_SUBGROUPS where the device takes no more
 * invocations), at most `largest` invocations; without subgroups the shader
 * makes as many virtual ones of WG / MAX_SG invocations. */
static unsigned radix_wg(const gpgpu_context *ctx, unsigned subgroups, unsigned largest)
{
    unsigned sg = ctx->info.subgroup_size;
    if (!ctx->info.has_subgroups)
        return 256;
    if (sg == 0)
        return 64;
    unsigned wg = subgroups * sg;
    if (wg > ctx->info.max_workgroup_invocations)
        wg = RADIX_MAX_SUBGROUPS * sg;
    return wg < largest ? wg : largest;
}

/* The shared memory of the sort program for a radix tile of wg * items keys of
 * `type` (S_WORDS_FAMILY in glsl/sort.comp: the largest of SCATTER's regions,
 * HIST's counters and the bitonic tile; S_DIG counted as without subgroups,
 * its larger size), and the prelude's reduction array (ops.glsl). */
static size_t radix_shared_bytes(gpgpu_type type, unsigned subgroups, unsigned wg,
                                 unsigned items)
{
    size_t key_words = gpgpu_type_size(type) / 4, tile = (size_t)wg * items;
    size_t dig_words = wg > 32 ? wg : 32;
    size_t radix = (size_t)subgroups / 2 * RADIX_DIGITS + 3 * RADIX_DIGITS + dig_words +
                   tile * key_words;
    size_t hist = (size_t)subgroups * RADIX_DIGITS;
    size_t bitonic = (size_t)BITONIC_TILE * (key_words + 1);
    size_t words = radix > bitonic ? radix : bitonic;
    return (words > hist ? words : hist) * 4 + (size_t)wg * gpgpu_type_size(type);
}

/* The shared memory of ONESWEEP's program (S_WORDS_RADIX for ONLY_STAGE ONESWEEP
 * in glsl/sort.comp): two 16-bit counters a word per subgroup and digit, the
 * tile's totals and starts, S_DIG, a part of OS_PART_WORDS staged words
 * (or the look-back's three words per digit), and the prelude's reduction
 * array. It does not grow with the keys per invocation. */
static size_t onesweep_shared_bytes(gpgpu_type type, unsigned subgroups, unsigned wg)
{
    unsigned counted = subgroups > RADIX_MAX_SUBGROUPS ? subgroups : RADIX_MAX_SUBGROUPS;
    size_t dig_words = subgroups ? 32 : (wg > 32 ? wg : 32);
    size_t stage = RADIX_OS_PART_WORDS > 3 * RADIX_DIGITS ? RADIX_OS_PART_WORDS : 3 * RADIX_DIGITS;
    size_t words = (size_t)(counted + 1) / 2 * RADIX_DIGITS + 2 * RADIX_DIGITS + dig_words + stage;
    return words * 4 + (size_t)wg * gpgpu_type_size(type);
}

/* The knobs count 4-byte keys of a large sort; f64 tiles take half as many,
 * so that a tile stages the same bytes (16 KB by default), and so do sorts of
 * fewer than RADIX_LARGE keys, whose tiles would otherwise be too few to fill
 * the device. On an H100 one-sweep tiles of 256 x 16 ran 17-22% faster than
 * 256 x 8 at 2^24-2^28 keys (fewer tiles to look back over), level at 2^19
 * and 10-15% slower below (docs/DECISIONS.md). */
static unsigned plan_halvings(gpgpu_type type, size_t n)
{
    return (type == GPGPU_TYPE_F64 ? 1 : 0) + (n < RADIX_LARGE ? 1 : 0);
}

/* p's one-sweep tile: `subgroups` subgroups of `items` keys an invocation
 * (before the halvings), fewer keys where the tile would not fit. */
static void onesweep_shape(gpgpu_context *ctx, gpgpu_type type, size_t n, unsigned subgroups,
                           unsigned items, radix_plan *p)
{
    items >>= plan_halvings(type, n);
    p->os_wg = radix_wg(ctx, subgroups, 1024);
    p->os_subgroups = ctx->info.has_subgroups && ctx->info.subgroup_size
                          ? p->os_wg / ctx->info.subgroup_size
                          : 0; /* virtual subgroups: the shader's 8 */
    p->os_items = items < 1 ? 1 : items;
    while (((size_t)p->os_wg * p->os_items > RADIX_OS_TILE_MAX ||
            onesweep_shared_bytes(type, p->os_subgroups, p->os_wg) >
                ctx->info.max_shared_memory_bytes) &&
           p->os_items > 1)
        p->os_items /= 2;
}

radix_plan radix_plan_for(gpgpu_context *ctx, gpgpu_type type, size_t n)
{
    const algo_radix_plan *t = &ctx->plans.radix;
    unsigned halvings = plan_halvings(type, n);
    /* The one-sweep tile's shape by backend: under NVIDIA's GL (H100) groups
     * of 24 subgroups with 6 keys an invocation sorted 2^24-2^28 keys 30-37%
     * faster than Vulkan's 8 x 16 (keys u32 2^28 16663 against 24682 us, 20
     * and 28 subgroups or 7 keys much slower), where on Vulkan 24 x 6 was 3-6%
     * slower than 8 x 16 (docs/DECISIONS.md). Devices whose subgroups are
     * wider fall back to 8 of them (radix_wg). The plan holds the device's (plans.c). */
    unsigned os_subgroups = t->os_subgroups;
    unsigned os_items = t->os_items;
    unsigned items = t->items >> halvings;
    items = items < 1 ? 1 : items;
    radix_plan p = {.wg = radix_wg(ctx, RADIX_MAX_SUBGROUPS, 256), .items = items};
    /* The shader stages a tile of at most RADIX_TILE_MAX keys in shared memory,
     * which must fit the device's. */
    while (((size_t)p.wg * p.items > RADIX_TILE_MAX ||
            radix_shared_bytes(type, RADIX_MAX_SUBGROUPS, p.wg, p.items) >
                ctx->info.max_shared_memory_bytes) &&
           p.items > 1)
        p.items /= 2;
    /* A one-sweep tile stages its keys a part of 2048 words at a time
     * (glsl/sort/onesweep.glsl), so its shared memory stops growing with
     * its keys per invocation there; its ranks, 16-bit slots in registers,
     * bound it instead (RADIX_OS_TILE_MAX). */
    onesweep_shape(ctx, type, n, os_subgroups, os_items, &p);
    /* Ranking a one-sweep tile's keys first (counters from zero, which then hold the
     * counts) spares the count of its own that came before: on the H200 2^28 keys u32
     * 2.3% and f32 6.1% faster, pairs level, rmat:15:16's product 5.8%; under GL (24
     * subgroups of 6 keys) 4-5% slower, where the counts stay first (docs/DECISIONS.md). */
    p.os_rank_first = t->os_rank_first == ALGO_ALWAYS;
    size_t tile = (size_t)p.wg * p.items;
    size_t tiles = n == 0 ? 1 : size_ceil_div(n, tile);
    size_t per_group = size_ceil_div(tiles, t->max_groups);
    p.tiles_per_group = (uint32_t)per_group;
    p.groups = (uint32_t)size_ceil_div(tiles, per_group);
    return p;
}

/* Whether a sort's passes carry a payload (its own, or the index as one). */
static bool carries_payload(const sort_keys *keys)
{
    return keys->pay != NULL || (keys->flags & SORT_PAYLOAD_IS_INDEX);
}

radix_plan radix_plan_for_keys(gpgpu_context *ctx, const sort_keys *keys)
{
    radix_plan p = radix_plan_for(ctx, keys->type, keys->n);
    if (carries_payload(keys) || keys->n < RADIX_OS_KEYS_LARGE)
        return p;
    /* Keys alone run a program without the payload's code (SORT_SHAPE_CARRIES), in
     * which NVIDIA's Vulkan compiler fits 384 x 20 keys in 80 registers and
     * 16.5 KB: two groups a multiprocessor, 15360 keys in flight where 256 x 16
     * has 12288. On the H200 keys u32 2^24 / 2^26 / 2^28 796 / 2963 / 11633 ->
     * 731 / 2621 / 10104 us, f32 2^28 12312 -> 11637; at 2^20 (137 tiles for
     * 264 places) 99 -> 109, hence RADIX_OS_KEYS_LARGE. With payloads the same
     * tile takes 24 KB there (the compiler spills into shared memory), one
     * group a multiprocessor, and pairs ran 17% slower: they keep
     * radix_plan_for's tile, as GL does for keys too (docs/DECISIONS.md,
     * "A one-sweep program and tile of their own for keys alone"). The plan's tile for keys
     * alone is the general one where they take none of their own (plans.c, resolve_radix). */
    const algo_radix_plan *t = &ctx->plans.radix;
    onesweep_shape(ctx, keys->type, keys->n, t->os_keys_subgroups, t->os_keys_items, &p);
    return p;
}

/* The one-sweep tiles n elements take (each work-group ranks one), the last one short. */
static size_t tiles_of(radix_plan plan, size_t n)
{
    size_t tile = (size_t)plan.os_wg * plan.os_items;
    return size_ceil_div(n, tile);
}

/* Tiles of a one-sweep pass: each range has its own; at least one (n = 0). */
size_t radix_onesweep_tiles(radix_plan plan, const sort_keys *src)
{
    size_t tiles = src->ranges == 0 ? tiles_of(plan, src->n) : 0;
    for (size_t r = 0; r < src->ranges; r++)
        tiles += tiles_of(plan, src->range_at[r + 1] - src->range_at[r]);
    return tiles == 0 ? 1 : tiles;
}

bool radix_onesweep(const gpgpu_context *ctx, size_t n)
{
    /* Measured on an H100 (docs/DECISIONS.md): with tiles of 256 x 16
     * keys one-sweep is faster, keys alone or with values, from 2^20 to 2^28
     * (keys 17% at 2^28). Mode 2 ("always", which the tests ask for) is now
     * mode 1: only the 30-bit counts' limit sends a sort to reduce-then-scan. */
    return ctx->plans.radix.onesweep != ALGO_NEVER && n > 0 && n < RADIX_ONESWEEP_MAX;
}

/* The one-sweep's aux words: the digit starts of every pass (of every range), a ticket per
 * pass, two regions of a status word per (tile, digit), and the ranges' table. */
static size_t onesweep_aux_count(gpgpu_type type, size_t tiles, size_t ranges)
{
    size_t starts = (ranges > 1 ? ranges : 1) * radix_key_passes(type) * RADIX_DIGITS;
    size_t table = ranges ? 2 * (ranges + 1) : 0;
    return starts + RADIX_OS_TICKETS + 2 * tiles * RADIX_DIGITS + table;
}

unsigned radix_key_passes(gpgpu_type type)
{
    return type == GPGPU_TYPE_F64 ? 8 : 4;
}

unsigned radix_passes(gpgpu_type type, size_t nseg)
{
    unsigned passes = radix_key_passes(type);
    for (size_t top = nseg > 1 ? nseg - 1 : 0; top > 0; top >>= RADIX_BITS)
        passes++;
    return passes;
}

static exec_dispatch pass_dispatch(const sort_keys *src, unsigned stage, unsigned pass,
                                   radix_plan plan, gpgpu_buffer *hist, size_t hist_off)
{
    exec_dispatch d = sort_dispatch(src, stage, plan.wg, plan.items);
    d.bind[4] = hist;
    d.params[SORT_P_AUX_OFF] = algo_index(hist, hist_off, GPGPU_TYPE_U32);
    d.params[SORT_P_PASS] = pass;
    d.params[SORT_P_TILES_PER_GROUP] = plan.tiles_per_group;
    d.params[SORT_P_GROUPS] = plan.groups;
    d.groups = plan.groups;
    return d;
}

/* Where a scattering stage writes: keys_b, pay_b. */
static void bind_destination(exec_dispatch *d, const sort_keys *dst)
{
    d->bind[1] = dst->keys;
    d->params[SORT_P_KEY_OFF_B] = algo_index(dst->keys, dst->keys_off, dst->type);
    if (dst->pay) {
        d->bind[3] = dst->pay;
        d->params[SORT_P_PAY_OFF_B] = algo_index(dst->pay, dst->pay_off, GPGPU_TYPE_U32);
    }
}

/* The subgroups SMALL's counters have room for: the group's, or the shader's 16 (virtual
 * ones where there are no subgroups). */
static unsigned small_room(radix_plan p)
{
    return p.small_subgroups > RADIX_SMALL_SUBGROUPS ? p.small_subgroups : RADIX_SMALL_SUBGROUPS;
}

/* SMALL's plan for a group of `subgroups` subgroups (made even, at least 16). */
static radix_plan small_plan_of(gpgpu_context *ctx, gpgpu_type type, size_t n,
                                unsigned subgroups)
{
    /* Every invocation ranks its items one after another: the fewest that
     * hold n, in a group whose counters SORT_SHAPE_SUBGROUPS makes room for. */
    subgroups = subgroups < RADIX_SMALL_SUBGROUPS ? RADIX_SMALL_SUBGROUPS : (subgroups + 1) & ~1u;
    radix_plan p = {.wg = radix_wg(ctx, subgroups, 1024), .items = 1, .groups = 1,
                    .tiles_per_group = 1};
    p.small_subgroups = ctx->info.has_subgroups && ctx->info.subgroup_size
                            ? (p.wg / ctx->info.subgroup_size + 1) & ~1u
                            : 0;
    unsigned room = small_room(p), most = ctx->plans.radix.small_items;
    while ((size_t)p.wg * p.items < n && p.items < most)
        p.items *= 2;
    while (((size_t)p.wg * p.items > RADIX_TILE_MAX ||
            radix_shared_bytes(type, room, p.wg, p.items) > ctx->info.max_shared_memory_bytes) &&
           p.items > 1)
        p.items /= 2;
    return p;
}

radix_plan radix_small_plan(gpgpu_context *ctx, gpgpu_type type, size_t n)
{
    /* RADIX_SMALL_SUBGROUPS(_GL) subgroups (the knob radix_small_subgroups); back to 16
     * where the wider group's counters leave no room for even one key an invocation. */
    unsigned subgroups = ctx->plans.radix.small_subgroups;
    radix_plan p = small_plan_of(ctx, type, n, subgroups);
    if (small_room(p) > RADIX_SMALL_SUBGROUPS &&
        radix_shared_bytes(type, small_room(p), p.wg, p.items) >
            ctx->info.max_shared_memory_bytes)
        p = small_plan_of(ctx, type, n, RADIX_SMALL_SUBGROUPS);
    return p;
}

bool radix_small(gpgpu_context *ctx, gpgpu_type type, size_t n)
{
    radix_plan p = radix_small_plan(ctx, type, n);
    return ctx->plans.radix.small && n > 0 && n <= (size_t)p.wg * p.items;
}

gpgpu_status radix_stage_small(gpgpu_context *ctx, const sort_keys *src, const sort_keys *dst,
                               unsigned passes, radix_plan plan)
{
    exec_dispatch d = sort_dispatch(src, SORT_STAGE_SMALL, plan.wg, plan.items);
    exec_shape_set(&d.variant, SORT_SHAPE_SUBGROUPS, plan.small_subgroups);
    bind_destination(&d, dst);
    d.params[SORT_P_PASSES] = passes;
    d.groups = 1;
    return algo_stage(ctx, &d);
}

gpgpu_status radix_stage_hist(gpgpu_context *ctx, const sort_keys *src, unsigned pass,
                              radix_plan plan, gpgpu_buffer *hist, size_t hist_off)
{
    exec_dispatch d = pass_dispatch(src, SORT_STAGE_HIST, pass, plan, hist, hist_off);
    return algo_stage(ctx, &d);
}

gpgpu_status radix_stage_scatter(gpgpu_context *ctx, const sort_keys *src, const sort_keys *dst,
                                 unsigned pass, radix_plan plan, gpgpu_buffer *hist,
                                 size_t hist_off)
{
    exec_dispatch d = pass_dispatch(src, SORT_STAGE_SCATTER, pass, plan, hist, hist_off);
    bind_destination(&d, dst);
    return algo_stage(ctx, &d);
}

/* The ranges' table after the status regions (sort.h): each range's first tile and first
 * element, then the tiles and n. */
static gpgpu_status write_ranges(gpgpu_context *ctx, const sort_keys *src, radix_plan plan,
                                 size_t tiles, gpgpu_buffer *hist, size_t hist_off)
{
    size_t at = hist_off + onesweep_aux_count(src->type, tiles, src->ranges) -
                2 * (src->ranges + 1);
    size_t first_tile = 0;
    uint32_t *table = malloc(2 * (src->ranges + 1) * sizeof *table);
    CHECK(table, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "radix sort: out of host memory");
    for (size_t r = 0; r <= src->ranges; r++) {
        table[2 * r] = (uint32_t)(r < src->ranges ? first_tile : tiles);
        table[2 * r + 1] = (uint32_t)src->range_at[r];
        if (r < src->ranges)
            first_tile += tiles_of(plan, src->range_at[r + 1] - src->range_at[r]);
    }
    gpgpu_status s = ctx->exec->buffer_write(hist, at * 4, table, 2 * (src->ranges + 1) * 4);
    free(table);
    return s;
}

/* A one-sweep stage's dispatch: the tiles (GROUPS) and the ranges. */
static exec_dispatch onesweep_dispatch(const sort_keys *src, unsigned stage, unsigned pass,
                                       radix_plan plan, size_t tiles, gpgpu_buffer *hist,
                                       size_t hist_off)
{
    exec_dispatch d = pass_dispatch(src, stage, pass, plan, hist, hist_off);
    d.params[SORT_P_GROUPS] = (uint32_t)tiles;
    d.params[SORT_P_RANGES] = (uint32_t)src->ranges;
    return d;
}

gpgpu_status radix_stage_os_counts(gpgpu_context *ctx, const sort_keys *src, radix_plan plan,
                                   gpgpu_buffer *hist, size_t hist_off)
{
    size_t tiles = radix_onesweep_tiles(plan, src), ranges = src->ranges ? src->ranges : 1;
    if (src->ranges)
        TRY(write_ranges(ctx, src, plan, tiles, hist, hist_off));
    size_t cleared = ranges * radix_key_passes(src->type) * RADIX_DIGITS + RADIX_OS_TICKETS;
    exec_dispatch d = onesweep_dispatch(src, SORT_STAGE_OS_CLEAR, 0, plan, tiles, hist,
                                        hist_off);
    d.groups = algo_groups(cleared, plan.wg);
    TRY(algo_stage(ctx, &d));
    d = onesweep_dispatch(src, SORT_STAGE_OS_HIST, 0, plan, tiles, hist, hist_off);
    d.groups = tiles < RADIX_OS_HIST_GROUPS ? (uint32_t)tiles : RADIX_OS_HIST_GROUPS;
    TRY(algo_stage(ctx, &d));
    d = onesweep_dispatch(src, SORT_STAGE_OS_SCAN, 0, plan, tiles, hist, hist_off);
    d.groups = (uint32_t)ranges;
    return algo_stage(ctx, &d);
}

gpgpu_status radix_stage_onesweep(gpgpu_context *ctx, const sort_keys *src, const sort_keys *dst,
                                  unsigned pass, radix_plan plan, gpgpu_buffer *hist,
                                  size_t hist_off)
{
    radix_plan os = plan;
    os.wg = plan.os_wg;
    os.items = plan.os_items;
    size_t tiles = radix_onesweep_tiles(plan, src);
    exec_dispatch d = onesweep_dispatch(src, SORT_STAGE_ONESWEEP, pass, os, tiles, hist, hist_off);
    exec_shape_set(&d.variant, SORT_SHAPE_SUBGROUPS, plan.os_subgroups);
    exec_shape_set(&d.variant, SORT_SHAPE_RANGED, src->ranges > 0); /* a program of its own */
    exec_shape_set(&d.variant, SORT_SHAPE_RANK_FIRST, plan.os_rank_first);
    /* BALLOT32: ballots of one word where a subgroup has at most 32 lanes.
     * CARRIES: payloads to carry; keys alone take a
     * program without the payload's writes and the digits kept for them, on
     * Vulkan (NVIDIA's GL compiler ran GL's keys-alone program 1.4% slower,
     * so GL keeps one program for both). */
    bool ballot32 = ctx->plans.radix.ballot32 && ctx->info.has_subgroups &&
                    ctx->info.subgroup_size > 0 && ctx->info.subgroup_size <= 32;
    bool carries = ctx->plans.radix.os_keys_program != ALGO_ALWAYS || carries_payload(src);
    exec_shape_set(&d.variant, SORT_SHAPE_BALLOT32, ballot32);
    exec_shape_set(&d.variant, SORT_SHAPE_CARRIES, carries);
    bind_destination(&d, dst);
    d.params[SORT_P_POLLS] = ctx->plans.radix.polls;
    d.groups = (uint32_t)tiles;
    return algo_stage(ctx, &d);
}

/* The digit-major counts become offsets: an exclusive scan in place. */
static gpgpu_status scan_hist(gpgpu_context *ctx, gpgpu_buffer *hist, size_t hist_off,
                              size_t count, gpgpu_buffer *part, size_t part_off)
{
    scan_plan sp = scan_plan_for(ctx, count);
    sp.part_off = part_off;
    TRY(scan_stage_reduce(ctx, GPGPU_TYPE_U32, hist, hist_off, count, part, sp));
    TRY(scan_stage_partials(ctx, GPGPU_TYPE_U32, part, part_off, sp.groups));
    return scan_stage_tiles(ctx, GPGPU_TYPE_U32, true, hist, hist_off, hist, hist_off, count, part,
                            sp);
}

/* Whether a sort in ranges takes them all at once: one-sweep key passes over each range's
 * tiles (else a sort a range). */
static bool ranges_at_once(gpgpu_context *ctx, const sort_keys *keys)
{
    return keys->ranges > 0 && !(keys->flags & SORT_SEGMENTED) && radix_onesweep(ctx, keys->n) &&
           !radix_small(ctx, keys->type, keys->n);
}

size_t radix_hist_count(gpgpu_context *ctx, gpgpu_type type, size_t n)
{
    sort_keys keys = {.type = type, .n = n};
    return radix_hist_count_for(ctx, &keys);
}

size_t radix_part_count(gpgpu_context *ctx, gpgpu_type type, size_t n)
{
    if (radix_small(ctx, type, n))
        return 0;
    return scan_plan_for(ctx, (size_t)RADIX_DIGITS * radix_plan_for(ctx, type, n).groups).groups;
}

/* A sort a range needs the most any of its ranges does (a shorter sort may take more
 * tiles: radix_plan_for halves them below RADIX_LARGE). */
static size_t most_over_ranges(gpgpu_context *ctx, const sort_keys *keys,
                               size_t (*count)(gpgpu_context *, gpgpu_type, size_t))
{
    size_t most = 0;
    for (size_t r = 0; r < keys->ranges; r++) {
        size_t c = count(ctx, keys->type, keys->range_at[r + 1] - keys->range_at[r]);
        most = c > most ? c : most;
    }
    return most;
}

size_t radix_ranges_extra(gpgpu_type type, size_t ranges)
{
    /* each range's starts past the first's, its short tile's statuses, its table words */
    return ranges == 0 ? 0
                       : (ranges - 1) * radix_key_passes(type) * RADIX_DIGITS +
                             2 * ranges * RADIX_DIGITS + 2 * (ranges + 1);
}

size_t radix_hist_count_for(gpgpu_context *ctx, const sort_keys *keys)
{
    if (keys->ranges > 0 && !ranges_at_once(ctx, keys))
        return most_over_ranges(ctx, keys, radix_hist_count);
    if (radix_small(ctx, keys->type, keys->n))
        return 0;
    /* Either one-sweep tile (with payloads or keys alone: radix_plan_for_keys),
     * so that scratch sized for keys alone holds a sort with payloads too. */
    radix_plan plan = radix_plan_for(ctx, keys->type, keys->n);
    sort_keys alone = *keys;
    alone.pay = NULL;
    alone.flags &= ~(unsigned)SORT_PAYLOAD_IS_INDEX;
    radix_plan keys_alone = radix_plan_for_keys(ctx, &alone);
    size_t count = (size_t)RADIX_DIGITS * plan.groups;
    if (radix_onesweep(ctx, keys->n)) {
        size_t tiles = radix_onesweep_tiles(plan, keys);
        size_t more = radix_onesweep_tiles(keys_alone, keys);
        size_t os = onesweep_aux_count(keys->type, tiles > more ? tiles : more, keys->ranges);
        count = os > count ? os : count;
    }
    return count;
}

size_t radix_part_count_for(gpgpu_context *ctx, const sort_keys *keys)
{
    if (keys->ranges == 0 || ranges_at_once(ctx, keys))
        return radix_part_count(ctx, keys->type, keys->n);
    return most_over_ranges(ctx, keys, radix_part_count);
}

/* Copies src's keys (and payload) to alt, for an in-place sort whose first
 * pass would otherwise write where it reads. */
static gpgpu_status copy_to(gpgpu_context *ctx, const sort_keys *src, const sort_keys *alt)
{
    size_t ks = gpgpu_type_size(src->type);
    TRY(copy_stage(ctx, src->keys, src->keys_off * ks, alt->keys, alt->keys_off * ks,
                   src->n * ks));
    if (src->pay && !(src->flags & SORT_PAYLOAD_IS_INDEX))
        TRY(copy_stage(ctx, src->pay, src->pay_off * 4, alt->pay, alt->pay_off * 4, src->n * 4));
    return GPGPU_SUCCESS;
}

/* The key passes a sort runs: sort_keys.key_passes, or every byte of the type. */
static unsigned sort_key_passes(const sort_keys *keys)
{
    unsigned all = radix_key_passes(keys->type);
    return keys->key_passes && keys->key_passes < all ? keys->key_passes : all;
}

unsigned radix_sort_passes(const sort_keys *keys)
{
    size_t nseg = keys->flags & SORT_SEGMENTED ? keys->nseg : 1;
    unsigned all = radix_passes(keys->type, nseg);
    return all - (radix_key_passes(keys->type) - sort_key_passes(keys));
}

/* Range r of keys: a sort_keys of its own (without ranges). */
static sort_keys range_of(const sort_keys *keys, size_t r)
{
    sort_keys k = *keys;
    size_t at = keys->range_at[r];
    k.keys_off += at;
    if (k.pay)
        k.pay_off += at;
    k.index_base += (uint32_t)at;
    k.n = keys->range_at[r + 1] - at;
    k.ranges = 0;
    k.range_at = NULL;
    return k;
}

gpgpu_status radix_sort(gpgpu_context *ctx, const sort_keys *src, const sort_keys *dst,
                        const sort_keys *alt, gpgpu_buffer *hist, size_t hist_off,
                        gpgpu_buffer *part, size_t part_off)
{
    if (src->ranges > 0 && !ranges_at_once(ctx, src)) { /* a sort a range */
        for (size_t r = 0; r < src->ranges; r++) {
            sort_keys s = range_of(src, r), d = range_of(dst, r), a = range_of(alt, r);
            if (s.n > 0)
                TRY(radix_sort(ctx, &s, &d, &a, hist, hist_off, part, part_off));
        }
        return GPGPU_SUCCESS;
    }
    if (radix_small(ctx, src->type, src->n)) { /* one group runs every pass */
        size_t nseg = src->flags & SORT_SEGMENTED ? src->nseg : 1;
        return radix_stage_small(ctx, src, dst, radix_passes(src->type, nseg),
                                 radix_small_plan(ctx, src->type, src->n));
    }
    /* The key passes run (src->key_passes), then the segment passes: shader pass `key + i`
     * for run i past the key passes. */
    unsigned all_keys = radix_key_passes(src->type), keys = sort_key_passes(src);
    unsigned passes = radix_sort_passes(src);
    radix_plan plan = radix_plan_for_keys(ctx, src);
    size_t hist_count = (size_t)RADIX_DIGITS * plan.groups;
    sort_keys from = *src;
    /* Passes alternate between alt and dst so that the last lands in dst. */
    bool pay_in_place = src->pay && !(src->flags & SORT_PAYLOAD_IS_INDEX) &&
                        algo_same_range(src->pay, src->pay_off * 4, dst->pay, dst->pay_off * 4);
    size_t ks = gpgpu_type_size(src->type);
    if (passes % 2 == 1 &&
        (algo_same_range(src->keys, src->keys_off * ks, dst->keys, dst->keys_off * ks) ||
         pay_in_place)) {
        TRY(copy_to(ctx, src, alt));
        from.keys = alt->keys;
        from.keys_off = alt->keys_off;
        if (!(src->flags & SORT_PAYLOAD_IS_INDEX)) {
            from.pay = alt->pay;
            from.pay_off = alt->pay_off;
        }
    }
    bool onesweep = radix_onesweep(ctx, src->n);
    if (onesweep)
        TRY(radix_stage_os_counts(ctx, &from, plan, hist, hist_off));
    for (unsigned run = 0; run < passes; run++) {
        const sort_keys *to = (passes - 1 - run) % 2 == 0 ? dst : alt;
        unsigned p = run < keys ? run : all_keys + (run - keys);
        if (onesweep && p < all_keys) {
            TRY(radix_stage_onesweep(ctx, &from, to, p, plan, hist, hist_off));
        } else {
            TRY(radix_stage_hist(ctx, &from, p, plan, hist, hist_off));
            TRY(scan_hist(ctx, hist, hist_off, hist_count, part, part_off));
            TRY(radix_stage_scatter(ctx, &from, to, p, plan, hist, hist_off));
        }
        /* The next pass reads what this one wrote; the index is a real payload now. */
        from.keys = to->keys;
        from.keys_off = to->keys_off;
        from.pay = to->pay;
        from.pay_off = to->pay_off;
        from.flags &= ~(unsigned)SORT_PAYLOAD_IS_INDEX;
    }
    return GPGPU_SUCCESS;
}
