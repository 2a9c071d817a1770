/* The one-sweep radix passes alone (OS_CLEAR, OS_HIST, OS_SCAN and ONESWEEP: every word of
 * their aux buffer known), whole, in ranges and with the forced recount, at the shapes the
 * plans can take; and radix_sort in ranges, each sorted alone. */
#include <stdlib.h>
#include <string.h>

#include "test_plans.h"
#include "test_sort.h"

/* Ranges of n elements (sort_keys.ranges) for the tests: an empty first range, one of a
 * single element, one shorter than a tile, an empty one, one of two tiles and a short one,
 * one of a tile, the rest halved, and an empty last (where n runs out, the rest empty). */
enum { TEST_RANGES = 9 };
static void test_ranges(size_t n, size_t tile, size_t at[TEST_RANGES + 1])
{
    size_t len[TEST_RANGES - 2] = {0, 1, tile / 3 + 1, 0, 2 * tile + 7, tile, 0};
    at[0] = 0;
    for (size_t r = 0; r < TEST_RANGES - 2; r++) {
        at[r + 1] = at[r] + len[r] < n ? at[r] + len[r] : n;
    }
    at[TEST_RANGES - 1] = at[TEST_RANGES - 2] + (n - at[TEST_RANGES - 2]) / 2;
    at[TEST_RANGES] = n;
}

/* Range [at, at + len) of a host twin: a ref_sort_keys of its own. */
static ref_sort_keys host_range(const ref_sort_keys *a, size_t at, size_t len)
{
    ref_sort_keys r = *a;
    r.keys = (char *)a->keys + at * ksize(a->type);
    if (r.pay)
        r.pay += at;
    r.index_base += (uint32_t)at;
    r.n = len;
    return r;
}

/* The one-sweep's counts (OS_CLEAR, OS_HIST, OS_SCAN) and its key passes
 * alone, against the twin's histogram of the whole array (one group) and
 * its stable scatter by those starts; with `ranges`, of each of the
 * test_ranges alone (one-sweep tiles of its own). Every word of the aux
 * buffer is known: the starts, the tickets, each tile's inclusive counts in
 * the pass's status region and zeros in the other, the ranges' table.
 * `recount` makes every tile count its predecessors from their keys (the
 * fallback, forced). */
static void stage_onesweep(gpgpu_type t, size_t n, flagset f, int data, radix_plan plan,
                           bool recount, bool ranges)
{
    if (n > test_max_n())
        return;
    char what[240], fl[64];
    flag_text(f, fl, sizeof fl);
    const char *tn = gpgpu_type_name(t), *rn = ranges ? " ranges" : "";
    staged s = radix_source(t, n, f, recount ? SORT_ONESWEEP_RECOUNT : 0, data);
    unsigned kp = radix_key_passes(t);
    size_t tile = (size_t)plan.os_wg * plan.os_items, at[TEST_RANGES + 1] = {0, n};
    size_t nr = ranges ? TEST_RANGES : 1, first_tile[TEST_RANGES + 1] = {0}, tiles = 0;
    if (ranges) {
        test_ranges(n, tile, at);
        s.gpu.ranges = TEST_RANGES;
        s.gpu.range_at = at;
    }
    for (size_t r = 0; r < nr; r++) {
        first_tile[r] = tiles;
        tiles += ceil_div(at[r + 1] - at[r], tile);
    }
    tiles = tiles == 0 ? 1 : tiles; /* n = 0: one tile of nothing */
    first_tile[nr] = tiles;
    EXPECT(radix_onesweep_tiles(plan, &s.gpu) == tiles, "%s ONESWEEP%s n=%zu: %zu tiles, not %zu",
           tn, rn, n, radix_onesweep_tiles(plan, &s.gpu), tiles);
    size_t starts_words = nr * kp * RADIX_DIGITS, status = starts_words + RADIX_OS_TICKETS;
    size_t table = status + 2 * tiles * RADIX_DIGITS, hn = table + (ranges ? 2 * (nr + 1) : 0);
    if (ranges)
        EXPECT(radix_hist_count_for(ctx, &s.gpu) >= hn || radix_small(ctx, t, n) ||
                   !radix_onesweep(ctx, n),
               "%s ONESWEEP%s n=%zu: radix_hist_count_for %zu words, the stages %zu", tn, rn, n,
               radix_hist_count_for(ctx, &s.gpu), hn);
    uint32_t *starts = xmalloc(starts_words * 4);
    uint32_t *tile_counts = xmalloc(tiles * RADIX_DIGITS * 4);
    for (size_t r = 0; r < nr; r++)
        for (unsigned p = 0; p < kp; p++) {
            ref_sort_keys range = host_range(&s.host, at[r], at[r + 1] - at[r]);
            uint32_t *st = starts + (r * kp + p) * RADIX_DIGITS;
            ref_radix_hist(&range, p, 1, range.n, st);
            exclusive_scan(st, RADIX_DIGITS);
        }
    for (unsigned p = 0; p < kp; p++) {
        if (!(p == 0 || p == 1 || p == kp / 2 || p == kp - 1))
            continue;
        snprintf(what, sizeof what, "%s OS counts%s %s n=%zu tiles=%zu (%s)", tn, rn, fl, n,
                 tiles, data_names[data]);
        slab h = slab_make(ctx, GPGPU_TYPE_U32, 7, hn, 2, NULL);
        EXPECT_STATUS(ctx, radix_stage_os_counts(ctx, &s.gpu, plan, h.buf, 7), GPGPU_SUCCESS);
        uint32_t *img = slab_at(&h, 7);
        memset(img, 0, hn * 4);
        for (size_t r = 0; r < nr; r++)
            for (size_t w = 0; w < kp * RADIX_DIGITS; w++) /* from the range's first */
                img[r * kp * RADIX_DIGITS + w] =
                    (uint32_t)at[r] + starts[r * kp * RADIX_DIGITS + w];
        for (size_t r = 0; ranges && r <= nr; r++) {
            img[table + 2 * r] = (uint32_t)first_tile[r];
            img[table + 2 * r + 1] = (uint32_t)at[r];
        }
        slab_check(&h, NULL, what);

        snprintf(what, sizeof what, "%s ONESWEEP%s %s%s pass %u/%u n=%zu tiles=%zu (%s)", tn,
                 rn, fl, recount ? " recount" : "", p, kp, n, tiles, data_names[data]);
        scatter_dest dst = scatter_dest_make(t, n, f);
        EXPECT_STATUS(ctx, radix_stage_onesweep(ctx, &s.gpu, &dst.gpu, p, plan, h.buf, 7),
                      GPGPU_SUCCESS);
        img[starts_words + p] = (uint32_t)tiles;
        uint32_t *region = img + status + (p % 2) * tiles * RADIX_DIGITS;
        if (n == 0)
            for (size_t d = 0; d < RADIX_DIGITS; d++)
                region[d] = 0x80000000u;
        for (size_t r = 0; r < nr; r++) {
            size_t len = at[r + 1] - at[r], rt = first_tile[r + 1] - first_tile[r];
            ref_sort_keys from = host_range(&s.host, at[r], len);
            ref_sort_keys to = host_range(&dst.host, at[r], len);
            ref_radix_scatter(&from, &to, p, starts + (r * kp + p) * RADIX_DIGITS, 1, len);
            if (rt == 0)
                continue;
            ref_radix_hist(&from, p, (uint32_t)rt, tile, tile_counts);
            for (size_t d = 0; d < RADIX_DIGITS; d++) {
                uint32_t run = 0;
                for (size_t g = 0; g < rt; g++) {
                    run += tile_counts[d * rt + g];
                    region[(first_tile[r] + g) * RADIX_DIGITS + d] = 0x80000000u | run;
                }
            }
        }
        slab_check(&h, NULL, what);
        scatter_dest_check_free(&dst, what);
        staged_check(&s, what);
        slab_free(&h);
    }
    free(starts);
    free(tile_counts);
    staged_free(&s);
}

/* radix_sort in ranges (sort_keys.ranges, the test_ranges), each sorted alone: the oracle
 * is ref_sort with the ranges as segments. With `values`, keys and values in place; else
 * the keys out of place with their index (from 11) as the payload. Sorts of at most one
 * group's tile and those without one-sweep passes sort a range at a time. */
static void radix_in_ranges(gpgpu_type t, size_t n, bool values, bool desc, int data)
{
    if (n > test_max_n())
        return;
    char what[200];
    snprintf(what, sizeof what, "radix_sort %s in ranges n=%zu %s%s (%s)", gpgpu_type_name(t), n,
             values ? "values in place" : "index out of place", desc ? " desc" : "",
             data_names[data]);
    size_t es = ksize(t), at[TEST_RANGES + 1];
    radix_plan plan = radix_plan_for(ctx, t, n);
    test_ranges(n, (size_t)plan.os_wg * plan.os_items, at);
    void *keys = xmalloc(n * es + 1);
    gen_keys(t, data, keys, n);
    uint32_t *vals = gen_u32(n);
    slab k = slab_make(ctx, t, 3, n, 2, keys), v = slab_make(ctx, GPGPU_TYPE_U32, 5, n, 1, vals);
    slab ko = values ? k : slab_make(ctx, t, 1 + n + 2, 0, 0, NULL);
    slab vo = values ? v : slab_make(ctx, GPGPU_TYPE_U32, 4 + n + 1, 0, 0, NULL);
    size_t ko_off = values ? 3 : 1, vo_off = values ? 5 : 4;
    unsigned flags = (desc ? SORT_DESCENDING : 0) | (values ? 0 : SORT_PAYLOAD_IS_INDEX);
    sort_keys src = {t, k.buf, 3, values ? v.buf : NULL, 5, n, flags, NULL, 0, 0, 0,
                     values ? 0 : 11, TEST_RANGES, at, NULL};
    sort_keys dst = src;
    dst.keys = ko.buf;
    dst.keys_off = ko_off;
    dst.pay = vo.buf;
    dst.pay_off = vo_off;
    gpgpu_buffer *alt_k, *alt_v, *hist, *part;
    size_t hist_words = radix_hist_count_for(ctx, &src);
    size_t part_words = radix_part_count_for(ctx, &src);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, n * es + 8, &alt_k), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, n * 4 + 4, &alt_v), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, hist_words * 4 + 4, &hist), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, part_words * 4 + 4, &part), GPGPU_SUCCESS);
    sort_keys alt = dst;
    alt.keys = alt_k;
    alt.keys_off = 0;
    alt.pay = alt_v;
    alt.pay_off = 0;
    EXPECT_STATUS(ctx, radix_sort(ctx, &src, &dst, &alt, hist, 0, part, 0), GPGPU_SUCCESS);
    uint32_t segs[TEST_RANGES + 1];
    for (size_t r = 0; r <= TEST_RANGES; r++)
        segs[r] = (uint32_t)at[r];
    for (size_t i = 0; !values && i < n; i++)
        vals[i] = 11 + (uint32_t)i;
    ref_sort(t, desc, keys, vals, n, segs, TEST_RANGES);
    memcpy(slab_at(&ko, ko_off), keys, n * es);
    memcpy(slab_at(&vo, vo_off), vals, n * 4);
    slab_check(&ko, NULL, what);
    slab_check(&vo, NULL, what);
    if (!values) { /* the input untouched */
        slab_check(&k, NULL, what);
        slab_check(&v, NULL, what);
        slab_free(&ko);
        slab_free(&vo);
    }
    slab_free(&k);
    slab_free(&v);
    gpgpu_buffer_destroy(alt_k);
    gpgpu_buffer_destroy(alt_v);
    gpgpu_buffer_destroy(hist);
    gpgpu_buffer_destroy(part);
    free(keys);
    free(vals);
}

/* The one-sweep: every size, payload kind and order, in ranges too; the
 * forced fallback where the tiles are few enough for its quadratic
 * recounting, in ranges at every other size. */
void onesweep_stage_tests(void)
{
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t si = 0; si < sizeof stage_sizes / sizeof *stage_sizes; si++) {
            gpgpu_type t = test_types[ti];
            size_t n = stage_sizes[si];
            radix_plan plan = radix_plan_for(ctx, t, n);
            for (size_t f = 0; f < 5; f++)
                stage_onesweep(t, n, radix_sets[f], (int)((si + f) % D_COUNT), plan, false,
                               false);
            stage_onesweep(t, n, radix_sets[(si + ti + 2) % 5], (int)(si % D_COUNT), plan, false,
                           true);
            if (n <= 100000)
                stage_onesweep(t, n, radix_sets[(si + ti) % 5], D_DUPS, plan, true, si % 2);
        }
    stage_onesweep(GPGPU_TYPE_U32, 3000017, radix_sets[2], D_RANDOM,
                   radix_plan_for(ctx, GPGPU_TYPE_U32, 3000017), false, false);
    stage_onesweep(GPGPU_TYPE_U32, 3000017, radix_sets[4], D_DUPS,
                   radix_plan_for(ctx, GPGPU_TYPE_U32, 3000017), false, true);
    /* Tiles staged in several parts at sizes the defaults give one: 2-8
     * parts of OS_SLOTS slots, the last tile short, with and without the
     * forced recount; 16 keys an invocation for two types, 32 for the other
     * two (each a program of its own: 6 and 14 s of LLVM on llvmpipe), as
     * many as fit a tile where the default group is wider (GL's 24
     * subgroups: 10 keys of 768 invocations). */
    for (size_t ti = 0; ti < 4; ti++) {
        radix_plan plan = radix_plan_for(ctx, test_types[ti], 100003);
        uint32_t fit = (uint32_t)(RADIX_OS_TILE_MAX / plan.os_wg), want = ti % 2 ? 32 : 16;
        plan.os_items = want < fit ? want : fit;
        stage_onesweep(test_types[ti], 100003, radix_sets[(ti + plan.os_items / 16) % 5],
                       D_RANDOM, plan, false, false);
        stage_onesweep(test_types[ti], 30011, radix_sets[(ti + 1) % 5], D_DUPS, plan, true,
                       ti % 2);
        /* The other order of ranking and counting than the backend's (radix_os_rank_first). */
        radix_plan other = radix_plan_for(ctx, test_types[ti], 6151);
        other.os_rank_first = !other.os_rank_first;
        stage_onesweep(test_types[ti], 6151, radix_sets[ti % 5], D_RANDOM, other, ti % 2 == 0,
                       ti % 2 == 1);
        /* The tile of keys alone (radix_plan_for_keys: a shape of its own on
         * Vulkan from RADIX_OS_KEYS_LARGE keys) in the program without
         * payloads, both orders of ranking, on fewer keys. */
        sort_keys alone = {.type = test_types[ti], .n = RADIX_OS_KEYS_LARGE};
        radix_plan keys_plan = radix_plan_for_keys(ctx, &alone);
        /* The scratch a sort of that many keys is given (radix_hist_count, whatever
         * it carries) holds the one-sweep words of either tile. */
        sort_keys carrying = alone;
        carrying.flags = SORT_PAYLOAD_IS_INDEX;
        radix_plan plans[2] = {keys_plan, radix_plan_for_keys(ctx, &carrying)};
        size_t given = radix_hist_count(ctx, alone.type, alone.n);
        for (int k = 0; k < 2; k++) {
            size_t words = (size_t)radix_key_passes(alone.type) * RADIX_DIGITS + RADIX_OS_TICKETS +
                           2 * radix_onesweep_tiles(plans[k], &alone) * RADIX_DIGITS;
            EXPECT(given >= words, "%s radix_hist_count(%zu) %zu words, the one-sweep %s %zu",
                   gpgpu_type_name(alone.type), alone.n, given,
                   k ? "with payloads" : "of keys alone", words);
        }
        stage_onesweep(test_types[ti], 100003, radix_sets[ti % 2], D_RANDOM, keys_plan, false,
                       false);
        keys_plan.os_rank_first = !keys_plan.os_rank_first;
        stage_onesweep(test_types[ti], 30011, radix_sets[(ti + 1) % 2], D_DUPS, keys_plan, true,
                       ti % 2);
        /* Another work-group width than the default (GPGPU_TUNE=radix_os_subgroups,
         * wider than Vulkan's, narrower than GL's): 12 subgroups' rank
         * counters, a tile of three or more parts. */
        unsigned sg = ctx->info.subgroup_size;
        if (ctx->info.has_subgroups && sg && 12 * sg <= ctx->info.max_workgroup_invocations) {
            plan.os_wg = 12 * sg;
            plan.os_subgroups = 12;
            unsigned fit = RADIX_OS_TILE_MAX / plan.os_wg;
            plan.os_items = fit < 16 ? fit : 16;
            /* and the other order of ranking and counting than the backend's */
            plan.os_rank_first = !plan.os_rank_first;
            stage_onesweep(test_types[ti], 100003, radix_sets[(ti + 2) % 5], D_RANDOM, plan,
                           false, false);
            stage_onesweep(test_types[ti], 30011, radix_sets[(ti + 3) % 5], D_DUPS, plan, true,
                           true);
        }
    }
}

/* In ranges: at once (one-sweep), and a range at a time (one-group sorts, and
 * reduce-then-scan passes). */
void radix_range_sorts(void)
{
    static const size_t range_sizes[] = {0, 1000, 5003, 100003, 1048579};
    for (size_t si = 0; si < sizeof range_sizes / sizeof *range_sizes; si++)
        for (size_t ti = 0; ti < 4; ti++)
            radix_in_ranges(test_types[ti], range_sizes[si], (si + ti) % 2 == 0, ti == 2,
                            (int)((si + ti) % D_COUNT));
    TEST_PLAN(ctx, radix.onesweep, ALGO_NEVER);
    for (size_t ti = 0; ti < 4; ti++)
        radix_in_ranges(test_types[ti], 50021, ti % 2 == 1, ti == 1, (int)(ti % D_COUNT));
    TEST_PLAN(ctx, radix.onesweep, ALGO_AUTO);
}
