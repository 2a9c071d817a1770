/* The sorting networks' stages alone (glsl/sort.comp's STEP, STEPS, LOCAL_SORT and
 * LOCAL_MERGE, the classic network's step among them) against their twins
 * (src/ref/ref_sort.c), on every key type and flag set, in both forms of
 * bitonic_registers, and whole bitonic sorts in the form the backend does not take. */
#include <stdlib.h>
#include <string.h>

#include "test_plans.h"
#include "test_sort.h"

static const flagset bitonic_sets[] = {
    {0, 0},
    {0, SORT_DESCENDING},
    {1, 0},
    {1, SORT_TIES_BY_PAYLOAD},
    {1, SORT_DESCENDING | SORT_TIES_BY_PAYLOAD},
    {1, SORT_SEGMENTED},
    {1, SORT_SEGMENTED | SORT_TIES_BY_PAYLOAD | SORT_DESCENDING},
};

static size_t padded(size_t n)
{
    size_t nn = 1;
    while (nn < n)
        nn *= 2;
    return nn;
}

/* STEP for several blocks, reverse and plain, classic and not, one after
 * another on the same buffers; STEPS likewise; then LOCAL_SORT, and LOCAL_MERGE after a
 * global reverse step of the next level (or on what LOCAL_SORT left). */
static void stage_bitonic(gpgpu_type t, size_t n, flagset f, int data)
{
    if (n > test_max_n())
        return;
    char what[200], fl[64];
    flag_text(f, fl, sizeof fl);
    const char *tn = gpgpu_type_name(t);
    size_t nn = padded(n);
    staged s = staged_make(t, n, f, data);
    /* Small blocks, the whole network's, one larger than it (no pair has
     * j < n: nothing moves), classic and not. */
    struct {
        size_t h;
        bool reverse, classic;
    } steps[] = {{2, true, false},  {2, false, true},       {4, true, true},
                 {nn, true, false}, {nn / 2, false, true}, {2 * nn, true, false}};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
        size_t h = steps[k].h;
        if (h < 2)
            continue;
        bool classic = steps[k].classic;
        snprintf(what, sizeof what, "%s STEP %s n=%zu h=%zu %s%s (%s)", tn, fl, n, h,
                 steps[k].reverse ? "reverse" : "plain", classic ? " classic" : "",
                 data_names[data]);
        EXPECT_STATUS(ctx, bitonic_stage_step(ctx, &s.gpu, (uint32_t)h, steps[k].reverse, classic),
                      GPGPU_SUCCESS);
        ref_bitonic_step(&s.host, (uint32_t)h, steps[k].reverse);
        staged_check(&s, what);
    }
    staged_free(&s);

    /* STEPS: `count` steps fused, plain or the first the reverse one, against
     * as many STEP twins, blocks from 2 to the whole network's. Blocks beyond
     * the network (h > nn) are left out: STEPS runs nn >> count invocations,
     * fewer than such steps need (with nn < 2^count none at all), and the
     * driver never asks for them. */
    s = staged_make(t, n, f, data);
    unsigned lg = 0;
    while (((size_t)1 << lg) < nn)
        lg++;
    unsigned top = lg < BITONIC_MAX_FUSED_LOG2 ? lg : BITONIC_MAX_FUSED_LOG2;
    struct {
        size_t h;
        unsigned count;
        bool reverse;
    } fused[] = {{16, 4, true}, /* first, on unsorted data */
                 {nn, top, false},
                 {nn / 2, lg > 1 && lg - 1 < 3 ? lg - 1 : 3, false},
                 {nn, top, true},
                 {nn / 2, lg > 2 ? 2 : 1, true},
                 {nn, 3, true}, /* count 3 with span > 1: the mirror residue moves */
                 {nn / 2, 3, true},
                 {8, 2, false},
                 {8, 3, true},
                 {4, 2, false},
                 {4, 1, true},
                 {2, 1, true},
                 {2, 1, false}};
    for (size_t k = 0; k < sizeof fused / sizeof *fused; k++) {
        size_t h = fused[k].h;
        unsigned count = fused[k].count;
        if (h < 2 || h > nn || count < 1 || count > BITONIC_MAX_FUSED_LOG2 ||
            h < ((size_t)1 << count))
            continue;
        bool reverse = fused[k].reverse;
        snprintf(what, sizeof what, "%s STEPS %s n=%zu h=%zu count=%u%s (%s)", tn, fl, n, h,
                 count, reverse ? " reverse" : "", data_names[data]);
        EXPECT_STATUS(ctx, bitonic_stage_steps(ctx, &s.gpu, (uint32_t)h, count, reverse),
                      GPGPU_SUCCESS);
        for (unsigned c = 0; c < count; c++)
            ref_bitonic_step(&s.host, (uint32_t)(h >> c), reverse && c == 0);
        staged_check(&s, what);
    }
    staged_free(&s);

    s = staged_make(t, n, f, data);
    snprintf(what, sizeof what, "%s LOCAL_SORT %s n=%zu (%s)", tn, fl, n, data_names[data]);
    EXPECT_STATUS(ctx, bitonic_stage_local_sort(ctx, &s.gpu), GPGPU_SUCCESS);
    ref_bitonic_local_sort(&s.host, BITONIC_TILE);
    staged_check(&s, what);
    if (n > BITONIC_TILE) {
        snprintf(what, sizeof what, "%s STEP %s n=%zu h=%d reverse after LOCAL_SORT", tn, fl, n,
                 2 * BITONIC_TILE);
        EXPECT_STATUS(ctx, bitonic_stage_step(ctx, &s.gpu, 2 * BITONIC_TILE, true, false),
                      GPGPU_SUCCESS);
        ref_bitonic_step(&s.host, 2 * BITONIC_TILE, true);
        staged_check(&s, what);
    }
    snprintf(what, sizeof what, "%s LOCAL_MERGE %s n=%zu (%s)", tn, fl, n, data_names[data]);
    EXPECT_STATUS(ctx, bitonic_stage_local_merge(ctx, &s.gpu), GPGPU_SUCCESS);
    ref_bitonic_local_merge(&s.host, BITONIC_TILE);
    staged_check(&s, what);
    staged_free(&s);

    /* LOCAL_MERGE alone on unsorted data: any compare-exchange out of place shows. */
    s = staged_make(t, n, f, data);
    snprintf(what, sizeof what, "%s LOCAL_MERGE %s n=%zu on unsorted (%s)", tn, fl, n,
             data_names[data]);
    EXPECT_STATUS(ctx, bitonic_stage_local_merge(ctx, &s.gpu), GPGPU_SUCCESS);
    ref_bitonic_local_merge(&s.host, BITONIC_TILE);
    staged_check(&s, what);
    staged_free(&s);
}

/* Every stage alone. Each (type, size) runs 4 of the 7 flag sets of the
 * network, 3 apart, so that any 3 sizes in a row cover all 7. */
void bitonic_stage_tests(void)
{
    static const size_t bitonic_sizes[] = {0, 1, 2, 3, 33, 1000, 2048, 2049, 6151, 65537};
    const size_t nsets = sizeof bitonic_sets / sizeof *bitonic_sets;
    for (size_t ti = 0; ti < 4; ti++) {
        gpgpu_type t = test_types[ti];
        for (size_t si = 0; si < sizeof bitonic_sizes / sizeof *bitonic_sizes; si++)
            for (size_t k = 0; k < 4; k++) {
                size_t f = (3 * si + ti + k) % nsets;
                double t0 = now();
                stage_bitonic(t, bitonic_sizes[si], bitonic_sets[f], (int)((si + f) % D_COUNT));
                if (show_times && now() - t0 > 0.3)
                    fprintf(stderr, "  %.2f s: bitonic stages %s n=%zu set %zu\n", now() - t0,
                            gpgpu_type_name(t), bitonic_sizes[si], f);
            }
        /* Larger: past 2^18, segmented with ties, two-word keys. */
        double t0 = now();
        if (t == GPGPU_TYPE_F64)
            stage_bitonic(t, 262145, bitonic_sets[6], D_DUPS);
        if (show_times)
            fprintf(stderr, "  %.2f s: bitonic stages %s n=262145\n", now() - t0,
                    gpgpu_type_name(t));
    }
    /* The other forms of LOCAL_MERGE and STEPS than the backend's (bitonic_registers): in
     * registers with the reverse step in STEPS, or through shared memory with it alone; the
     * stages alone and whole sorts. */
    algo_plans saved = algo_plans_get(ctx);
    TEST_PLAN(ctx, bitonic.registers,
              saved.bitonic.registers == ALGO_ALWAYS ? ALGO_NEVER : ALGO_ALWAYS);
    for (size_t ti = 0; ti < 4; ti++) {
        /* A last tile of 1 or 1500 (bits 9 and 10 still pair), payloads for every type. */
        stage_bitonic(test_types[ti], ti % 2 ? 6151 : 3548, bitonic_sets[2 * ti % 4 + 2],
                      (int)(ti % D_COUNT));
        sort_case c = {test_types[ti], GPGPU_ALGO_BITONIC, ti % 2 == 0, ti >= 2,
                       ti % 2 ? 70001 : 4097, (int)((ti + 1) % D_COUNT), K_OUT,
                       ti % 2 ? V_OUT : V_NONE, -1, 0};
        run_case(&c);
    }
    algo_plans_set(ctx, &saved);
}
