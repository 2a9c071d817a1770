/* The radix sort's stages alone: HIST and SCATTER of the passes that matter, with the
 * driver's plan and with several tiles per group, and SMALL (every pass in one work-group)
 * at every tile, against their twins (src/ref/ref_sort.c); the sources and destinations
 * of these tests, which the one-sweep's share. */
#include <stdlib.h>
#include <string.h>

#include "test_plans.h"
#include "test_sort.h"

const flagset radix_sets[7] = {
    {0, 0},
    {0, SORT_DESCENDING},
    {1, 0},
    {2, 0},
    {3, SORT_DESCENDING},
    {1, SORT_SEGMENTED},
    {2, SORT_SEGMENTED | SORT_DESCENDING},
};

/* The source of a radix stage test for flag set f (pay 2 and 3: the payload
 * is the input index; 2 has no payload buffer; 3 numbers the elements from
 * past n, as a caller sorting a range of a larger array does), with `extra`
 * SORT_* flags. */
staged radix_source(gpgpu_type t, size_t n, flagset f, unsigned extra, int data)
{
    flagset fs = f;
    if (f.pay >= 2)
        fs.flags |= SORT_PAYLOAD_IS_INDEX;
    fs.flags |= extra;
    staged s = staged_make(t, n, fs, data);
    if (f.pay == 2) {
        /* PAYLOAD_IS_INDEX: no payload to read; segments from the index. */
        s.gpu.pay = NULL;
        s.host.pay = NULL;
    }
    if (f.pay == 3)
        s.gpu.index_base = s.host.index_base = (uint32_t)n + 77u;
    return s;
}

scatter_dest scatter_dest_make(gpgpu_type t, size_t n, flagset f)
{
    scatter_dest d = {.keys = slab_make(ctx, t, 1 + n + 3, 0, 0, NULL),
                      .pay = slab_make(ctx, GPGPU_TYPE_U32, 4 + n + 2, 0, 0, NULL)};
    bool pay = f.pay != 0;
    d.gpu = (sort_keys){t, d.keys.buf, 1, pay ? d.pay.buf : NULL, 4, n, 0, NULL, 0, 0, 0, 0,
                        0, NULL, NULL};
    d.host = (ref_sort_keys){t, slab_at(&d.keys, 1), pay ? slab_at(&d.pay, 4) : NULL, n, 0,
                             NULL, 0, 0};
    return d;
}

void scatter_dest_check_free(scatter_dest *d, const char *what)
{
    slab_check(&d->keys, NULL, what);
    slab_check(&d->pay, NULL, what);
    slab_free(&d->keys);
    slab_free(&d->pay);
}

/* a[0..n) becomes its exclusive scan; returns the total. */
uint32_t exclusive_scan(uint32_t *a, size_t n)
{
    uint32_t run = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = a[i];
        a[i] = run;
        run += c;
    }
    return run;
}

/* HIST and SCATTER of the passes that matter (the first, the second, both
 * sides of f64's word boundary, the last key pass, every segment pass) on
 * the same source, with `plan` (the driver's, or one with several tiles per
 * group); SCATTER reads the exclusive scan of the twin's histogram. */
static void stage_radix(gpgpu_type t, size_t n, flagset f, int data, radix_plan plan)
{
    if (n > test_max_n())
        return;
    char what[240], fl[64];
    flag_text(f, fl, sizeof fl);
    const char *tn = gpgpu_type_name(t);
    staged s = radix_source(t, n, f, 0, data);
    size_t per_group = (size_t)plan.tiles_per_group * plan.wg * plan.items;
    size_t hn = (size_t)RADIX_DIGITS * plan.groups;
    unsigned kp = radix_key_passes(t);
    unsigned passes = radix_passes(t, s.has_segs ? s.gpu.nseg : 1);
    EXPECT(kp == (t == GPGPU_TYPE_F64 ? 8u : 4u), "%s: radix_key_passes %u", tn, kp);
    uint32_t *hist = xmalloc(hn * 4);
    for (unsigned p = 0; p < passes; p++) {
        if (p < kp && !(p == 0 || p == 1 || p == kp / 2 - 1 || p == kp / 2 || p == kp - 1))
            continue;
        snprintf(what, sizeof what, "%s HIST %s pass %u/%u n=%zu groups=%u tiles/group=%u (%s)",
                 tn, fl, p, passes, n, plan.groups, plan.tiles_per_group, data_names[data]);
        slab h = slab_make(ctx, GPGPU_TYPE_U32, 7 + hn + 2, 0, 0, NULL);
        EXPECT_STATUS(ctx, radix_stage_hist(ctx, &s.gpu, p, plan, h.buf, 7), GPGPU_SUCCESS);
        ref_radix_hist(&s.host, p, plan.groups, per_group, slab_at(&h, 7));
        slab_check(&h, NULL, what);
        staged_check(&s, what);
        slab_free(&h);

        /* SCATTER from the scanned twin's counts. */
        ref_radix_hist(&s.host, p, plan.groups, per_group, hist);
        uint32_t run = exclusive_scan(hist, hn);
        EXPECT(run == n, "%s: the histogram counts %u elements, not %zu", what, run, n);
        snprintf(what, sizeof what, "%s SCATTER %s pass %u/%u n=%zu groups=%u tiles/group=%u (%s)",
                 tn, fl, p, passes, n, plan.groups, plan.tiles_per_group, data_names[data]);
        slab hs = slab_make(ctx, GPGPU_TYPE_U32, 7, hn, 2, hist);
        scatter_dest dst = scatter_dest_make(t, n, f);
        EXPECT_STATUS(ctx, radix_stage_scatter(ctx, &s.gpu, &dst.gpu, p, plan, hs.buf, 7),
                      GPGPU_SUCCESS);
        ref_radix_scatter(&s.host, &dst.host, p, hist, plan.groups, per_group);
        scatter_dest_check_free(&dst, what);
        slab_check(&hs, NULL, what);
        staged_check(&s, what);
        slab_free(&hs);
    }
    free(hist);
    staged_free(&s);
}

/* SMALL: every pass in one work-group, against the twin's passes one after
 * another (one group's HIST, its scan, SCATTER), into a poisoned
 * destination or in place over the source. */
static void stage_small(gpgpu_type t, size_t n, flagset f, int data, radix_plan plan,
                        bool in_place)
{
    if (n > (size_t)plan.wg * plan.items || (in_place && f.pay == 2))
        return;
    char what[240], fl[64];
    flag_text(f, fl, sizeof fl);
    staged s = radix_source(t, n, f, 0, data);
    unsigned passes = radix_passes(t, s.has_segs ? s.gpu.nseg : 1);
    size_t ks = ksize(t);
    ref_sort_keys a = s.host, b = s.host;
    a.keys = xmalloc(n * ks + 1);
    b.keys = xmalloc(n * ks + 1);
    memcpy(a.keys, s.host.keys, n * ks);
    a.pay = f.pay ? xmalloc(n * 4 + 1) : NULL;
    b.pay = f.pay ? xmalloc(n * 4 + 1) : NULL;
    if (s.host.pay)
        memcpy(a.pay, s.host.pay, n * 4);
    uint32_t hist[RADIX_DIGITS];
    for (unsigned p = 0; p < passes; p++) {
        ref_radix_hist(&a, p, 1, n, hist);
        exclusive_scan(hist, RADIX_DIGITS);
        ref_radix_scatter(&a, &b, p, hist, 1, n);
        ref_sort_keys x = a;
        a = b;
        b = x;
        a.flags &= ~(unsigned)SORT_PAYLOAD_IS_INDEX;
        b.flags = a.flags;
    }
    snprintf(what, sizeof what, "%s SMALL %s%s n=%zu passes=%u tile=%ux%u (%s)",
             gpgpu_type_name(t), fl, in_place ? " in place" : "", n, passes, plan.wg, plan.items,
             data_names[data]);
    if (in_place) { /* (an index payload has no buffer to be written in place) */
        sort_keys dst = s.gpu;
        dst.flags = 0;
        EXPECT_STATUS(ctx, radix_stage_small(ctx, &s.gpu, &dst, passes, plan), GPGPU_SUCCESS);
        memcpy(s.host.keys, a.keys, n * ks);
        if (s.host.pay)
            memcpy(s.host.pay, a.pay, n * 4);
        staged_check(&s, what);
    } else {
        scatter_dest dst = scatter_dest_make(t, n, f);
        EXPECT_STATUS(ctx, radix_stage_small(ctx, &s.gpu, &dst.gpu, passes, plan),
                      GPGPU_SUCCESS);
        memcpy(dst.host.keys, a.keys, n * ks);
        if (dst.host.pay)
            memcpy(dst.host.pay, a.pay, n * 4);
        scatter_dest_check_free(&dst, what);
        staged_check(&s, what);
    }
    free(a.keys);
    free(b.keys);
    free(a.pay);
    free(b.pay);
    staged_free(&s);
}

void radix_stage_tests(void)
{
    for (size_t ti = 0; ti < 4; ti++) {
        gpgpu_type t = test_types[ti];
        for (size_t si = 0; si < sizeof stage_sizes / sizeof *stage_sizes; si++) {
            size_t n = stage_sizes[si];
            radix_plan plan = radix_plan_for(ctx, t, n);
            for (size_t f = 0; f < sizeof radix_sets / sizeof *radix_sets; f++)
                stage_radix(t, n, radix_sets[f], (int)((si + f) % D_COUNT), plan);
            /* Several tiles per group, the last group short. */
            size_t tile = (size_t)plan.wg * plan.items, tiles = ceil_div(n, tile);
            if (tiles >= 4) {
                radix_plan p3 = plan;
                p3.tiles_per_group = 3;
                p3.groups = (uint32_t)ceil_div(tiles, 3);
                stage_radix(t, n, radix_sets[2 + si % 5], D_RANDOM, p3);
            }
        }
        stage_radix(t, 262145, radix_sets[6], D_RANDOM, radix_plan_for(ctx, t, 262145));
    }
}

/* The one-group sort: every type, flag set and payload kind, with the
 * driver's tile for n and with the largest (most of its slots empty). */
void small_stage_tests(void)
{
    static const size_t small_sizes[] = {1, 2, 3, 7, 33, 255, 1000, 1024, 2047, 2048, 4095, 4096};
    for (size_t ti = 0; ti < 4; ti++) {
        radix_plan largest = radix_small_plan(ctx, test_types[ti], RADIX_TILE_MAX);
        for (size_t si = 0; si < sizeof small_sizes / sizeof *small_sizes; si++)
            for (size_t f = 0; f < sizeof radix_sets / sizeof *radix_sets; f++) {
                size_t n = small_sizes[si];
                int data = (int)((si + f + ti) % D_COUNT);
                bool in_place = (si + f) % 3 == 0;
                radix_plan plan = radix_small_plan(ctx, test_types[ti], n);
                stage_small(test_types[ti], n, radix_sets[f], data, plan, in_place);
                if (plan.items != largest.items && f % 2 == 0)
                    stage_small(test_types[ti], n, radix_sets[f], data, largest, !in_place);
            }
        /* Its full tile, and one short of it. */
        size_t tile = (size_t)largest.wg * largest.items;
        stage_small(test_types[ti], tile, radix_sets[6], D_DUPS, largest, false);
        stage_small(test_types[ti], tile - 1, radix_sets[4], D_SPECIAL, largest, true);
    }
    /* A wider group (GPGPU_TUNE=radix_small_subgroups=32): counters for 32 subgroups, fewer
     * keys an invocation. */
    algo_plans saved = algo_plans_get(ctx);
    TEST_PLAN(ctx, radix.small_subgroups, 32);
    for (size_t ti = 0; ti < 4; ti++) {
        radix_plan largest = radix_small_plan(ctx, test_types[ti], RADIX_TILE_MAX);
        size_t tile = (size_t)largest.wg * largest.items;
        stage_small(test_types[ti], tile, radix_sets[(ti + 1) % 7], D_RANDOM, largest, ti % 2);
        stage_small(test_types[ti], 1000, radix_sets[ti % 7], D_DUPS,
                    radix_small_plan(ctx, test_types[ti], 1000), false);
    }
    algo_plans_set(ctx, &saved);
}
