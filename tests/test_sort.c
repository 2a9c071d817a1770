/* The sort family against the CPU reference (src/ref/ref_sort.c): each stage
 * of glsl/sort.comp alone (the bitonic network's STEP, STEPS, LOCAL_SORT and
 * LOCAL_MERGE, the radix passes' HIST and SCATTER, the helpers IOTA and
 * GATHER) for every key type and flag, then gpgpu_sort for every algorithm,
 * size, data set and option against the oracle ref_sort, then the scratch
 * memory and the argument errors.
 *
 * Every stage runs on poisoned buffers at odd offsets, and the WHOLE buffer
 * is downloaded and held against a host image to which the twin applied the
 * same stage: what the stage writes must match bit for bit (keys are only
 * moved, so floats too, NaN payloads and -0 included), all else keeps its
 * poison (or, in place, its old value). Whole sorts are bit-exact against
 * ref_sort where the result is unique (stable, radix, segmented); the
 * unstable network is checked for order (ordered keys equal ref_sort's) and
 * for being a permutation of the input's (key bits, value) pairs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algo/sort.h"
#include "algo/tuning.h"
#include "ref/ref.h"
#include "testlib.h"

static gpgpu_context *ctx;

/* ------------------------------------------------------------- data */

static uint64_t rng_state = 12345;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static size_t ksize(gpgpu_type t) { return gpgpu_type_size(t); }

static void *at(gpgpu_type t, void *p, size_t i) { return (char *)p + i * ksize(t); }

static void put_bits(gpgpu_type t, void *p, size_t i, uint64_t bits)
{
    if (t == GPGPU_TYPE_F64)
        memcpy(at(t, p, i), &bits, 8);
    else {
        uint32_t b = (uint32_t)bits;
        memcpy(at(t, p, i), &b, 4);
    }
}

static void put_num(gpgpu_type t, void *p, size_t i, double x)
{
    switch (t) {
    case GPGPU_TYPE_U32: ((uint32_t *)p)[i] = (uint32_t)x; break;
    case GPGPU_TYPE_I32: ((int32_t *)p)[i] = (int32_t)x; break;
    case GPGPU_TYPE_F32: ((float *)p)[i] = (float)x; break;
    default: ((double *)p)[i] = x; break;
    }
}

static uint64_t ord(gpgpu_type t, const void *p, size_t i, bool desc)
{
    return ref_sort_order(t, (const char *)p + i * ksize(t), desc);
}

enum { D_RANDOM, D_DUPS, D_SORTED, D_REVERSE, D_EQUAL, D_SPECIAL, D_COUNT };
static const char *const data_names[] = {"random", "dups(0..7)", "sorted", "reverse",
                                         "all-equal", "special"};

/* One special value: NaNs of both signs with several payloads (quiet and
 * signalling), +-0, +-inf, denormals, extremes; for integers the extremes. */
static void put_special(gpgpu_type t, void *p, size_t i)
{
    uint64_t r = rnd();
    unsigned k = (unsigned)(r % 16);
    if (t == GPGPU_TYPE_F32) {
        static const uint32_t v[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u,
                                     0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                     0x00000001u, 0x80000001u, 0x7f7fffffu, 0xff7fffffu};
        uint32_t b = k < 12 ? v[k] : (uint32_t)(r >> 20);
        if (k < 4)
            b |= (uint32_t)(r >> 40) & 0x3fffffu; /* another payload */
        if (k >= 12 && (b & 0x7f800000u) == 0x7f800000u)
            b ^= 0x00800000u; /* random ones finite */
        put_bits(t, p, i, b);
    } else if (t == GPGPU_TYPE_F64) {
        static const uint64_t v[] = {
            0x7ff8000000000000u, 0xfff8000000000000u, 0x7ff0000000000001u, 0xfff0000000abcdefu,
            0x0000000000000000u, 0x8000000000000000u, 0x7ff0000000000000u, 0xfff0000000000000u,
            0x0000000000000001u, 0x8000000000000001u, 0x7fefffffffffffffu, 0xffefffffffffffffu};
        uint64_t b = k < 12 ? v[k] : rnd();
        if (k < 4)
            b |= rnd() & 0x7ffffffffffffu;
        if (k >= 12 && (b & 0x7ff0000000000000u) == 0x7ff0000000000000u)
            b ^= 0x0010000000000000u;
        put_bits(t, p, i, b);
    } else {
        static const uint32_t v[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x7ffffffeu,
                                     0x80000001u, 2};
        put_bits(t, p, i, k < 8 ? v[k] : (uint32_t)(r >> 32));
    }
}

/* n keys of data set `mode`. Random: integers of all 32 bits, floats of any
 * finite value. */
static void gen_keys(gpgpu_type t, int mode, void *p, size_t n)
{
    static const double dups_f[] = {-1.5, -1, -0.0, 0.0, 0.5, 1, 1.5, 2};
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        switch (mode) {
        case D_DUPS:
            if (is_float(t))
                put_num(t, p, i, dups_f[r % 8]);
            else
                put_num(t, p, i, (double)(r % 8) - (t == GPGPU_TYPE_I32 ? 4 : 0));
            break;
        case D_EQUAL:
            if (is_float(t))
                put_num(t, p, i, -0.0);
            else
                put_num(t, p, i, 7);
            break;
        case D_SPECIAL: put_special(t, p, i); break;
        default: /* random, and the base of sorted / reverse */
            if (t == GPGPU_TYPE_F32 && ((uint32_t)r & 0x7f800000u) == 0x7f800000u)
                r ^= 0x00800000u;
            if (t == GPGPU_TYPE_F64 && (r & 0x7ff0000000000000u) == 0x7ff0000000000000u)
                r ^= 0x0010000000000000u;
            put_bits(t, p, i, r);
            break;
        }
    }
    if (mode == D_SORTED || mode == D_REVERSE)
        ref_sort(t, false, p, NULL, n, NULL, 0);
    if (mode == D_REVERSE)
        for (size_t i = 0; i < n / 2; i++) {
            char tmp[8];
            memcpy(tmp, at(t, p, i), ksize(t));
            memcpy(at(t, p, i), at(t, p, n - 1 - i), ksize(t));
            memcpy(at(t, p, n - 1 - i), tmp, ksize(t));
        }
}

/* A random permutation of 0..n-1. */
static uint32_t *gen_perm(size_t n)
{
    uint32_t *p = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd() % i;
        uint32_t x = p[i - 1];
        p[i - 1] = p[j];
        p[j] = x;
    }
    return p;
}

static uint32_t *gen_u32(size_t n)
{
    uint32_t *p = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint32_t)rnd();
    return p;
}

/* Segment offsets (nseg + 1 of them, 0 to n) of a kind; *nseg receives the count. */
enum { S_ONE, S_SKEWED, S_EMPTIES, S_SINGLES, S_LONG, S_TINY, S_RANDOM, S_COUNT };
static const char *const seg_names[] = {"one",  "skewed", "with empties", "singles",
                                        "long", "tiny",   "random"};

static uint32_t *gen_segs(int kind, size_t n, size_t *nseg)
{
    size_t cap = 2 * n + 16, k = 0;
    uint32_t *s = xmalloc((cap + 1) * 4);
    s[0] = 0;
    size_t pos = 0;
    while (pos < n && k + 2 < cap) {
        size_t len;
        uint64_t r = rnd();
        switch (kind) {
        case S_ONE: len = n; break;
        case S_SKEWED: /* lengths spread over orders of magnitude, a few huge */
            len = r % 50 == 0 ? (size_t)(r >> 20) % (n / 3 + 1) : (size_t)1 << (r >> 8) % 12;
            len = len > 1 ? (size_t)(r >> 32) % len : len;
            break;
        case S_EMPTIES: len = r % 3 ? 0 : 1 + (size_t)(r >> 16) % 40; break;
        case S_SINGLES: len = 1; break;
        case S_LONG: /* a short one, one far longer than a tile, then the rest */
            len = k == 0 ? 3 : k == 1 ? 3 * (size_t)BITONIC_TILE + 5 : 1 + (size_t)(r % 100);
            break;
        case S_TINY: len = (size_t)(r % 33); break;
        default: len = (size_t)(r % 600); break;
        }
        if (len > n - pos)
            len = n - pos;
        pos += len;
        s[++k] = (uint32_t)pos;
    }
    if (pos < n)
        s[++k] = (uint32_t)n;
    if (k == 0) /* n = 0: one empty segment */
        s[++k] = 0;
    if (kind == S_EMPTIES && k + 2 <= cap) { /* and empty segments at the end */
        s[k + 1] = s[k];
        s[k + 2] = s[k];
        k += 2;
    }
    *nseg = k;
    return s;
}

static size_t padded(size_t n)
{
    size_t nn = 1;
    while (nn < n)
        nn *= 2;
    return nn;
}

/* ------------------------------------------------------ bitonic stages */

/* Flag sets of the stage tests: whether a payload is bound, and SORT_*. */
typedef struct flagset {
    int pay; /* 0: keys only; 1: a payload; 2 (radix): PAYLOAD_IS_INDEX without pay;
                3 (radix): PAYLOAD_IS_INDEX with a pay buffer that must not be read */
    unsigned flags;
} flagset;

static const flagset bitonic_sets[] = {
    {0, 0},
    {0, SORT_DESCENDING},
    {1, 0},
    {1, SORT_TIES_BY_PAYLOAD},
    {1, SORT_DESCENDING | SORT_TIES_BY_PAYLOAD},
    {1, SORT_SEGMENTED},
    {1, SORT_SEGMENTED | SORT_TIES_BY_PAYLOAD | SORT_DESCENDING},
};

static void flag_text(flagset f, char *out, size_t size)
{
    snprintf(out, size, "%s%s%s%s%s", f.pay == 0 ? "keys" : f.pay == 1 ? "pay" : "iota",
             f.pay == 3 ? "+pay" : "", f.flags & SORT_DESCENDING ? " desc" : "",
             f.flags & SORT_TIES_BY_PAYLOAD ? " ties" : "",
             f.flags & SORT_SEGMENTED ? " segmented" : "");
}

/* The buffers of one stage test: keys at 3, payload at 5, segment offsets
 * at 2, each with poison around; their host twins. */
typedef struct staged {
    slab keys, pay, segs;
    bool has_pay, has_segs;
    sort_keys gpu;
    ref_sort_keys host;
} staged;

static staged staged_make(gpgpu_type t, size_t n, flagset f, int data)
{
    staged s = {0};
    void *k = xmalloc(n * ksize(t));
    gen_keys(t, data, k, n);
    s.keys = slab_make(ctx, t, 3, n, 2, k);
    free(k);
    s.has_pay = f.pay == 1 || f.pay == 3;
    uint32_t *perm = gen_perm(n);
    if (s.has_pay)
        s.pay = slab_make(ctx, GPGPU_TYPE_U32, 5, n, 1, perm);
    free(perm);
    size_t nseg = 1;
    s.has_segs = (f.flags & SORT_SEGMENTED) != 0;
    if (s.has_segs) {
        uint32_t *segs = gen_segs(n > 1000 ? S_RANDOM : S_EMPTIES, n, &nseg);
        s.segs = slab_make(ctx, GPGPU_TYPE_U32, 2, nseg + 1, 1, segs);
        free(segs);
    }
    s.gpu = (sort_keys){t, s.keys.buf, 3, s.has_pay ? s.pay.buf : NULL, 5, n, f.flags,
                        s.has_segs ? s.segs.buf : NULL, 2, nseg, 0, 0, 0, NULL};
    s.host = (ref_sort_keys){t, slab_at(&s.keys, 3), s.has_pay ? slab_at(&s.pay, 5) : NULL, n,
                             f.flags, s.has_segs ? slab_at(&s.segs, 2) : NULL, nseg, 0};
    return s;
}

static void staged_check(const staged *s, const char *what)
{
    slab_check(&s->keys, NULL, what);
    if (s->has_pay)
        slab_check(&s->pay, NULL, what);
    if (s->has_segs)
        slab_check(&s->segs, NULL, what);
}

static void staged_free(staged *s)
{
    slab_free(&s->keys);
    if (s->has_pay)
        slab_free(&s->pay);
    if (s->has_segs)
        slab_free(&s->segs);
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

/* -------------------------------------------------------- radix stages */

static const flagset radix_sets[] = {
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
static staged radix_source(gpgpu_type t, size_t n, flagset f, unsigned extra, int data)
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

/* Where a radix scatter writes: keys at 1 and payloads (when f has them) at
 * 4, poisoned all around, and their host twin. */
typedef struct scatter_dest {
    slab keys, pay;
    sort_keys gpu;
    ref_sort_keys host;
} scatter_dest;

static scatter_dest scatter_dest_make(gpgpu_type t, size_t n, flagset f)
{
    scatter_dest d = {.keys = slab_make(ctx, t, 1 + n + 3, 0, 0, NULL),
                      .pay = slab_make(ctx, GPGPU_TYPE_U32, 4 + n + 2, 0, 0, NULL)};
    bool pay = f.pay != 0;
    d.gpu = (sort_keys){t, d.keys.buf, 1, pay ? d.pay.buf : NULL, 4, n, 0, NULL, 0, 0, 0, 0,
                        0, NULL};
    d.host = (ref_sort_keys){t, slab_at(&d.keys, 1), pay ? slab_at(&d.pay, 4) : NULL, n, 0,
                             NULL, 0, 0};
    return d;
}

static void scatter_dest_check_free(scatter_dest *d, const char *what)
{
    slab_check(&d->keys, NULL, what);
    slab_check(&d->pay, NULL, what);
    slab_free(&d->keys);
    slab_free(&d->pay);
}

/* a[0..n) becomes its exclusive scan; returns the total. */
static uint32_t exclusive_scan(uint32_t *a, size_t n)
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
                   !radix_onesweep(n),
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

/* ------------------------------------------------------ helper stages */

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
                     values ? 0 : 11, TEST_RANGES, at};
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

static void stage_helpers(size_t n)
{
    if (n > test_max_n())
        return;
    char what[120];
    snprintf(what, sizeof what, "IOTA n=%zu", n);
    slab pay = slab_make(ctx, GPGPU_TYPE_U32, 5 + n + 2, 0, 0, NULL);
    EXPECT_STATUS(ctx, sort_stage_iota(ctx, pay.buf, 5, n), GPGPU_SUCCESS);
    for (size_t i = 0; i < n; i++)
        ((uint32_t *)pay.host)[5 + i] = (uint32_t)i;
    slab_check(&pay, NULL, what);
    slab_free(&pay);

    /* GATHER through indices into a source longer than n (repeats too). */
    size_t m = n + 17;
    uint32_t *idx = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)(rnd() % m);
    uint32_t *vals = gen_u32(m);
    snprintf(what, sizeof what, "GATHER n=%zu", n);
    slab perm = slab_make(ctx, GPGPU_TYPE_U32, 3, n, 2, idx);
    slab src = slab_make(ctx, GPGPU_TYPE_U32, 2, m, 1, vals);
    slab dst = slab_make(ctx, GPGPU_TYPE_U32, 6 + n + 1, 0, 0, NULL);
    EXPECT_STATUS(ctx, sort_stage_gather(ctx, perm.buf, 3, src.buf, 2, dst.buf, 6, n),
                  GPGPU_SUCCESS);
    for (size_t i = 0; i < n; i++)
        ((uint32_t *)dst.host)[6 + i] = vals[idx[i]];
    slab_check(&dst, NULL, what);
    slab_check(&perm, NULL, what);
    slab_check(&src, NULL, what);
    slab_free(&perm);
    slab_free(&src);
    slab_free(&dst);
    free(idx);
    free(vals);
}

/* --------------------------------------------------------- gpgpu_sort */

/* Where the keys and the values go. */
enum { K_NULL, K_SAME, K_OUT };                     /* keys_out NULL, = keys_in, another buffer */
enum { V_NONE, V_IN_PLACE, V_SAME, V_OUT, V_OUT_BUF }; /* values: none, values_out NULL, =
                                                          values_in, another range of the
                                                          values' buffer, another buffer */

typedef struct sort_case {
    gpgpu_type t;
    gpgpu_algo algo;
    bool desc, stable;
    size_t n;
    int data;
    int keys, values;
    int segs;     /* S_* or -1: not segmented */
    int scratch; /* desc.scratch of exactly the size asked: 0 none, 1 at offset 16, 2 at 0 */
} sort_case;

typedef struct kv {
    uint64_t bits;
    uint32_t v;
} kv;

static int kv_cmp(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    if (x->bits != y->bits)
        return x->bits < y->bits ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static uint64_t bits_at(gpgpu_type t, const void *p, size_t i)
{
    uint64_t b = 0;
    memcpy(&b, (const char *)p + i * ksize(t), ksize(t)); /* little-endian */
    return b;
}

/* The unstable network's result: in order (its ordered keys are those of
 * the sorted `want`) and a permutation of the input's (key, value) pairs. */
static void check_unstable(const char *what, gpgpu_type t, bool desc, const void *in_k,
                           const uint32_t *in_v, const void *got_k, const uint32_t *got_v,
                           const void *want_k, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (ord(t, got_k, i, desc) != ord(t, want_k, i, desc) && ++bad <= 5) {
            char a[64], b[64];
            fprintf(stderr, "  %s: element %zu: got %s, expected one equal to %s\n", what, i,
                    show(t, got_k, i, a, sizeof a), show(t, want_k, i, b, sizeof b));
        }
    EXPECT(bad == 0, "%s: %zu of %zu keys out of order", what, bad, n);
    kv *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        x[i] = (kv){bits_at(t, in_k, i), in_v ? in_v[i] : 0};
        y[i] = (kv){bits_at(t, got_k, i), got_v ? got_v[i] : 0};
    }
    qsort(x, n, sizeof *x, kv_cmp);
    qsort(y, n, sizeof *y, kv_cmp);
    size_t differ = 0;
    for (size_t i = 0; i < n; i++)
        differ += kv_cmp(&x[i], &y[i]) != 0;
    EXPECT(differ == 0,
           "%s: the (key bits, value) pairs are not a permutation of the input's (%zu of %zu "
           "differ when both are sorted)", what, differ, n);
    free(x);
    free(y);
}

/* Downloads a slab; its range [off, off + n) goes to `range` (n elements),
 * everything else must equal the host image. */
static void fetch_range(const slab *s, size_t off, size_t n, void *range, const char *what)
{
    size_t es = gpgpu_type_size(s->t), bytes = s->len * es;
    char *got = xmalloc(bytes);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(s->buf, 0, got, bytes), GPGPU_SUCCESS);
    memcpy(range, got + off * es, n * es);
    memcpy(got + off * es, (char *)s->host + off * es, n * es);
    char w[300];
    snprintf(w, sizeof w, "%s: outside the range", what);
    check_elems(w, s->t, got, s->host, s->len, NULL);
    free(got);
}

static double seconds[16]; /* wall time of run_case per algorithm, for the summary */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_case_(const sort_case *c);

static bool show_times; /* SORT_TEST_TIMES set: print the slow cases */

static void run_case(const sort_case *c)
{
    if (c->n > test_max_n())
        return;
    double t0 = now();
    run_case_(c);
    double dt = now() - t0;
    seconds[c->algo & 15] += dt;
    if (show_times && dt > 0.3)
        fprintf(stderr, "  %.2f s: %s %s n=%zu data %d values %d segs %d\n", dt,
                gpgpu_type_name(c->t), algo_name(c->algo), c->n, c->data, c->values, c->segs);
}

static void run_case_(const sort_case *c)
{
    gpgpu_type t = c->t;
    size_t n = c->n, es = ksize(t);
    static const char *const kn[] = {"keys_out=NULL", "keys_out=keys_in", "out of place"};
    static const char *const vn[] = {"no values", "values in place", "values_out=values_in",
                                     "values_out in the same buffer", "values_out"};
    char what[300];
    size_t nseg = 0;
    uint32_t *segs = c->segs >= 0 ? gen_segs(c->segs, n, &nseg) : NULL;
    snprintf(what, sizeof what, "gpgpu_sort %s %s%s%s n=%zu %s, %s, %s%s%s%s", gpgpu_type_name(t),
             algo_name(c->algo), c->desc ? " desc" : "", c->stable ? " stable" : "", n,
             data_names[c->data], kn[c->keys], vn[c->values], segs ? ", segments " : "",
             segs ? seg_names[c->segs] : "",
             c->scratch == 1 ? ", scratch at 16" : c->scratch ? ", scratch at 0" : "");
    if (segs) {
        char more[40];
        snprintf(more, sizeof more, " (%zu)", nseg);
        strncat(what, more, sizeof what - strlen(what) - 1);
    }

    void *keys = xmalloc(n * es);
    gen_keys(t, c->data, keys, n);
    size_t in_off = n % 2 ? 3 : 0, out_off = n % 3 ? 5 : 1;
    slab in = slab_make(ctx, t, in_off, n, 2, keys), out = in;
    if (c->keys == K_OUT)
        out = slab_make(ctx, t, out_off + n + 3, 0, 0, NULL);
    else
        out_off = in_off;

    bool has_v = c->values != V_NONE;
    uint32_t *vals = has_v ? gen_u32(n) : NULL;
    size_t vin_off = 2, vout_off = vin_off;
    slab vin = {0}, vout = {0};
    if (has_v) {
        size_t extra = c->values == V_OUT ? n + 4 : 0; /* V_OUT: after the input range */
        vin = slab_make(ctx, GPGPU_TYPE_U32, vin_off, n, 1 + extra, vals);
        vout = vin;
        if (c->values == V_OUT)
            vout_off = vin_off + n + 3;
        if (c->values == V_OUT_BUF) {
            vout_off = 4;
            vout = slab_make(ctx, GPGPU_TYPE_U32, vout_off + n + 1, 0, 0, NULL);
        }
    }
    slab sg = {0};
    if (segs)
        sg = slab_make(ctx, GPGPU_TYPE_U32, 1, nseg + 1, 2, segs);

    gpgpu_sort_desc d = {.type = t, .descending = c->desc, .stable = c->stable, .algo = c->algo};
    if (has_v) {
        d.values_in = vin.buf;
        d.values_in_offset = vin_off;
        if (c->values != V_IN_PLACE) {
            d.values_out = vout.buf;
            d.values_out_offset = vout_off;
        }
    }
    if (segs) {
        d.segments = sg.buf;
        d.segments_offset = 1;
        d.segment_count = nseg;
    }
    slab scratch = {0};
    size_t need = 0, soff = c->scratch == 1 ? 16 : 0;
    if (c->scratch) {
        EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &d, n, &need), GPGPU_SUCCESS);
        /* soff poisoned bytes before, 8 after: exactly `need` between. */
        scratch = slab_make(ctx, GPGPU_TYPE_U32, (soff + need + 8) / 4, 0, 0, NULL);
        d.scratch = scratch.buf;
        d.scratch_offset = soff;
        if (need > 0) {
            /* One byte too small: refused before anything is touched. */
            gpgpu_buffer *small;
            EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, soff + need - 1, &small), GPGPU_SUCCESS);
            gpgpu_sort_desc d2 = d;
            d2.scratch = small;
            char w[340];
            snprintf(w, sizeof w, "%s with a scratch 1 byte short", what);
            EXPECT_STATUS(ctx,
                          gpgpu_sort(ctx, &d2, in.buf, in_off, c->keys == K_OUT ? out.buf : NULL,
                                     out_off, n),
                          GPGPU_ERROR_OUT_OF_MEMORY);
            slab_check(&in, NULL, w);
            if (c->keys == K_OUT)
                slab_check(&out, NULL, w);
            gpgpu_buffer_destroy(small);
        }
    }

    gpgpu_buffer *kout = c->keys == K_NULL ? NULL : out.buf;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, in.buf, in_off, kout, out_off, n), GPGPU_SUCCESS);

    /* The expected result; the input's image stays as it was unless in place. */
    void *want_k = xmalloc(n * es);
    uint32_t *want_v = has_v ? xmalloc(n * 4) : NULL;
    memcpy(want_k, keys, n * es);
    if (has_v)
        memcpy(want_v, vals, n * 4);
    ref_sort(t, c->desc, want_k, want_v, n, segs, nseg);
    bool exact = c->stable || c->algo == GPGPU_ALGO_RADIX || segs;
    if (exact) {
        memcpy(slab_at(&out, out_off), want_k, n * es);
        slab_check(&out, NULL, what);
        if (has_v) {
            memcpy(slab_at(&vout, vout_off), want_v, n * 4);
            slab_check(&vout, NULL, what);
        }
    } else {
        void *got_k = xmalloc(n * es);
        uint32_t *got_v = has_v ? xmalloc(n * 4) : NULL;
        fetch_range(&out, out_off, n, got_k, what);
        if (has_v)
            fetch_range(&vout, vout_off, n, got_v, what);
        check_unstable(what, t, c->desc, keys, vals, got_k, got_v, want_k, n);
        /* Keys alone are unique up to NaNs' bits (the only equal keys that differ). */
        free(got_k);
        free(got_v);
    }
    char w[340];
    if (c->keys == K_OUT) {
        snprintf(w, sizeof w, "%s: input unchanged", what);
        slab_check(&in, NULL, w);
        slab_free(&out);
    }
    if (has_v && c->values == V_OUT_BUF) {
        snprintf(w, sizeof w, "%s: values_in unchanged", what);
        slab_check(&vin, NULL, w);
        slab_free(&vout);
    }
    if (has_v && c->values == V_OUT) {
        /* vin and vout are one slab: the input range must still hold the input. */
        uint32_t *got = xmalloc((vin.len) * 4);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(vin.buf, 0, got, vin.len * 4), GPGPU_SUCCESS);
        EXPECT(memcmp(got + vin_off, vals, n * 4) == 0, "%s: values_in changed", what);
        free(got);
    }
    if (c->scratch) {
        /* Nothing written outside [soff, soff + need) of the caller's scratch. */
        size_t bytes = scratch.len * 4;
        unsigned char *got = xmalloc(bytes);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(scratch.buf, 0, got, bytes), GPGPU_SUCCESS);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < bytes; i++)
            if ((i < soff || i >= soff + need) && got[i] != 0xA5 && bad++ == 0)
                first = i;
        EXPECT(bad == 0,
               "%s: %zu bytes outside the scratch range [%zu, %zu) changed, the first at byte %zu",
               what, bad, soff, soff + need, first);
        free(got);
        slab_free(&scratch);
    }
    if (segs) {
        slab_check(&sg, NULL, what);
        slab_free(&sg);
    }
    if (has_v)
        slab_free(&vin);
    slab_free(&in);
    free(want_k);
    free(want_v);
    free(keys);
    free(vals);
    free(segs);
}

/* ------------------------------------------------------ argument errors */

static void errors(void)
{
    const gpgpu_status E_NULL = GPGPU_ERROR_NULL_POINTER, E_INVALID = GPGPU_ERROR_INVALID_ARGUMENT,
                       E_COMBO = GPGPU_ERROR_UNSUPPORTED_COMBINATION,
                       E_OVERLAP = GPGPU_ERROR_OVERLAP, E_RANGE = GPGPU_ERROR_OUT_OF_RANGE,
                       E_ALIGN = GPGPU_ERROR_MISALIGNED, E_OOM = GPGPU_ERROR_OUT_OF_MEMORY;
    gpgpu_type t = GPGPU_TYPE_U32;
    slab a = slab_make(ctx, t, 0, 100, 0, NULL);
    slab v = slab_make(ctx, t, 0, 100, 0, NULL);
    gpgpu_sort_desc d = {.type = t};
    size_t bytes = 0;

    EXPECT_STATUS(ctx, gpgpu_sort(ctx, NULL, a.buf, 0, NULL, 0, 10), E_NULL);
    EXPECT_STATUS(NULL, gpgpu_sort(NULL, &d, a.buf, 0, NULL, 0, 10), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, NULL, 0, NULL, 0, 10), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, NULL, 10, &bytes), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &d, 10, NULL), E_NULL);

    gpgpu_sort_desc bad = d;
    bad.type = (gpgpu_type)99;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_INVALID);
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &bad, 10, &bytes), E_INVALID);
    bad = d;
    bad.algo = (gpgpu_algo)99;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_INVALID);
    static const gpgpu_algo reduce_algos[] = {GPGPU_ALGO_CLASSIC_HALVING, GPGPU_ALGO_CLASSIC_STRIDE,
                                              GPGPU_ALGO_CLASSIC_MINMAX, GPGPU_ALGO_CLASSIC_SCAN};
    for (size_t i = 0; i < 4; i++) {
        bad.algo = reduce_algos[i];
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_COMBO);
        EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &bad, 10, &bytes), E_COMBO);
    }
    /* values_out without values_in */
    bad = d;
    bad.values_out = v.buf;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_INVALID);

    /* Ranges. */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 0, NULL, 0, 101), E_RANGE);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 91, NULL, 0, 10), E_RANGE);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 0, v.buf, 95, 10), E_RANGE);
    bad = (gpgpu_sort_desc){.type = GPGPU_TYPE_F64};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 51), E_RANGE);
    bad = d;
    bad.values_in = v.buf;
    bad.values_in_offset = 95;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_RANGE);
    bad.values_in_offset = 0;
    bad.values_out = v.buf;
    bad.values_out_offset = 91;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_RANGE);
    bad = d;
    bad.segments = v.buf;
    bad.segments_offset = 95;
    bad.segment_count = 5; /* 6 offsets from 95: one past the end */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_RANGE);
    bad.segments_offset = 0;
    bad.segment_count = SIZE_MAX; /* SIZE_MAX + 1 offsets, a count that wraps to 0 */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_RANGE);

    /* Overlaps: keys_out overlapping keys_in without being equal, values
     * likewise, keys with values. */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 0, a.buf, 1, 10), E_OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 10, a.buf, 1, 10), E_OVERLAP);
    bad = d;
    bad.values_in = v.buf;
    bad.values_out = v.buf;
    bad.values_out_offset = 5;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_OVERLAP);
    bad = d;
    bad.values_in = a.buf;
    bad.values_in_offset = 5;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_OVERLAP);

    /* Scratch: misaligned, too small, overlapping the keys. A radix sort of
     * up to a tile (one work-group) needs none; the multi-pass one does. */
    bad = d;
    bad.algo = GPGPU_ALGO_RADIX;
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &bad, 100, &bytes), GPGPU_SUCCESS);
    EXPECT(bytes == 0, "RADIX of 100 keys (one group): scratch size %zu, expected 0", bytes);
    algo_tuning *tuning = (algo_tuning *)algo_tuning_get();
    tuning->radix_small = 0;
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &bad, 100, &bytes), GPGPU_SUCCESS);
    EXPECT(bytes > 0, "RADIX needs scratch memory, got a size of %zu", bytes);
    gpgpu_buffer *s;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, bytes + 64, &s), GPGPU_SUCCESS);
    bad.scratch = s;
    bad.scratch_offset = 4;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 100), E_ALIGN);
    bad.scratch_offset = 72;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 100), E_OOM);
    size_t need = bytes;
    char text[200];
    snprintf(text, sizeof text, "hold %zu from scratch_offset 72; this sort needs %zu",
             need - 8, need);
    EXPECT(strstr(gpgpu_last_error(ctx), text), "scratch 8 bytes short: \"%s\" lacks \"%s\"",
           gpgpu_last_error(ctx), text);
    bad.scratch_offset = 64;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 100), GPGPU_SUCCESS);
    /* An offset past the buffer's end is out of range, with the real sizes, whether the sort
     * needs scratch memory or (one work-group) none. */
    for (int one_group = 0; one_group < 2; one_group++) {
        tuning->radix_small = one_group;
        bad.scratch_offset = need + 64 + 8;
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 100), E_RANGE);
        snprintf(text, sizeof text, "scratch_offset %zu is past the end of the scratch "
                 "buffer's %zu bytes (this sort needs %zu bytes there)", need + 72, need + 64,
                 one_group ? (size_t)0 : need);
        EXPECT(strstr(gpgpu_last_error(ctx), text), "scratch offset past the end: \"%s\" lacks "
               "\"%s\"", gpgpu_last_error(ctx), text);
    }
    tuning->radix_small = 0;
    bad.scratch_offset = 64;
    /* Keys inside the scratch range of the same buffer. */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, s, 20, NULL, 0, 10), E_OVERLAP);
    gpgpu_buffer_destroy(s);
    tuning->radix_small = 1;
    /* Keys only, the network, no stability: no scratch at all. */
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &(gpgpu_sort_desc){.type = t,
                  .algo = GPGPU_ALGO_BITONIC}, 1 << 20, &bytes), GPGPU_SUCCESS);
    EXPECT(bytes == 0, "BITONIC keys only: scratch size %zu, expected 0", bytes);

    /* Nothing above touched the keys it refused: a only holds what the one
     * successful radix sort left (sorted), v is untouched. */
    ref_sort(t, false, slab_at(&a, 0), NULL, 100, NULL, 0);
    slab_check(&a, NULL, "errors: keys after the refused calls");
    slab_check(&v, NULL, "errors: values after the refused calls");

    /* n = 0 and n = 1 with everything set, and n = 0 with no segments. */
    bad = d;
    bad.segments = v.buf;
    bad.segment_count = 0;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 0), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 1), E_INVALID);
    slab_check(&a, NULL, "errors: n = 0");
    slab_free(&a);
    slab_free(&v);
}

/* -------------------------------------------------------------- main */

static const gpgpu_algo sort_algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_CLASSIC_NETSORT,
                                        GPGPU_ALGO_BITONIC, GPGPU_ALGO_RADIX};

/* The largest n each algorithm runs at in the size sweep (llvmpipe and
 * lavapipe are CPUs: the network's log^2 n dispatches grow fast). */
static size_t algo_limit(gpgpu_algo a, gpgpu_type t)
{
    switch (a) {
    case GPGPU_ALGO_CLASSIC_NETSORT: return t == GPGPU_TYPE_U32 ? 65536 : 10007;
    case GPGPU_ALGO_BITONIC:
        return t == GPGPU_TYPE_U32 || t == GPGPU_TYPE_F32 ? 262145 : 65537;
    case GPGPU_ALGO_RADIX:
        return t == GPGPU_TYPE_U32 ? 1u << 22 : t == GPGPU_TYPE_F32 ? (1u << 20) + 3 : 262145;
    default:
        return t == GPGPU_TYPE_I32 ? (1u << 20) + 3 : t == GPGPU_TYPE_F64 ? 65537 : 262145;
    }
}

static const size_t sizes[] = {0,     1,     2,     3,     5,      7,      13,     31,
                               32,    33,    97,    1000,  1023,   1024,   1025,   2047,
                               2048,  2049,  4096,  4097,  10007,  65535,  65536,  65537,
                               262143, 262144, 262145, 1000003, (1u << 20) + 3, 1u << 22};

static double section_start;

static void section(const char *name)
{
    double t = now();
    if (name)
        fprintf(stderr, "%s: %.1f s\n", name, t - section_start);
    section_start = t;
}

int main(void)
{
    ctx = test_context();
    show_times = getenv("SORT_TEST_TIMES") != NULL;
    section(NULL);
    static const size_t stage_sizes[] = {0, 1, 2, 3, 7, 33, 1000, 2047, 2048, 2049, 6151, 65537};

    /* Every stage alone. Each (type, size) runs 4 of the 7 flag sets of the
     * network, 3 apart, so that any 3 sizes in a row cover all 7. */
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
    algo_tuning *knobs = (algo_tuning *)algo_tuning_get();
    unsigned registers = knobs->bitonic_registers;
    knobs->bitonic_registers = algo_on_gl(ctx) ? 2 : 0;
    for (size_t ti = 0; ti < 4; ti++) {
        /* A last tile of 1 or 1500 (bits 9 and 10 still pair), payloads for every type. */
        stage_bitonic(test_types[ti], ti % 2 ? 6151 : 3548, bitonic_sets[2 * ti % 4 + 2],
                      (int)(ti % D_COUNT));
        sort_case c = {test_types[ti], GPGPU_ALGO_BITONIC, ti % 2 == 0, ti >= 2,
                       ti % 2 ? 70001 : 4097, (int)((ti + 1) % D_COUNT), K_OUT,
                       ti % 2 ? V_OUT : V_NONE, -1, 0};
        run_case(&c);
    }
    knobs->bitonic_registers = registers;
    section("bitonic stages");
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
    section("radix stages");
    /* The one-sweep: every size, payload kind and order, in ranges too; the
     * forced fallback where the tiles are few enough for its quadratic
     * recounting, in ranges at every other size. */
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
    section("one-sweep stages");
    /* The one-group sort: every type, flag set and payload kind, with the
     * driver's tile for n and with the largest (most of its slots empty). */
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
    algo_tuning *wide = (algo_tuning *)algo_tuning_get();
    unsigned saved_small = wide->radix_small_subgroups;
    wide->radix_small_subgroups = 32;
    for (size_t ti = 0; ti < 4; ti++) {
        radix_plan largest = radix_small_plan(ctx, test_types[ti], RADIX_TILE_MAX);
        size_t tile = (size_t)largest.wg * largest.items;
        stage_small(test_types[ti], tile, radix_sets[(ti + 1) % 7], D_RANDOM, largest, ti % 2);
        stage_small(test_types[ti], 1000, radix_sets[ti % 7], D_DUPS,
                    radix_small_plan(ctx, test_types[ti], 1000), false);
    }
    wide->radix_small_subgroups = saved_small;
    section("one-group stage");
    for (size_t si = 0; si < sizeof stage_sizes / sizeof *stage_sizes; si++)
        stage_helpers(stage_sizes[si]);
    stage_helpers(1u << 20);
    section("helper stages");

    /* gpgpu_sort: the size sweep, random data, options varied with the size;
     * each algorithm and type at its largest size, and at every other size
     * from TEST_SHARED_FROM up (test_runs_large). */
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t ai = 0; ai < 4; ai++)
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
                gpgpu_type t = test_types[ti];
                gpgpu_algo a = sort_algos[ai];
                if (sizes[si] > algo_limit(a, t) ||
                    (sizes[si] < algo_limit(a, t) && !test_runs_large(sizes[si], si + ti + ai)))
                    continue;
                sort_case c = {t, a, si % 3 == 1, si % 4 >= 2, sizes[si], D_RANDOM, (int)(si % 3),
                               (int)((si + ti) % 5), -1, 0};
                run_case(&c);
            }
    section("sizes");
    /* Every data set, with and without stability and values, both orders;
     * the network one step of a tile and more (the classic one less far). */
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t ai = 0; ai < 4; ai++)
            for (int data = 0; data < D_COUNT; data++) {
                gpgpu_algo a = sort_algos[ai];
                bool classic = a == GPGPU_ALGO_CLASSIC_NETSORT;
                size_t ns[3] = {1000, classic ? 2049 : 4097, 65537};
                for (size_t si = 0; si < (classic ? 2 : 3); si++)
                    for (int opt = 0; opt < 2; opt++) {
                        if (si == 2 && opt != data % 2)
                            continue; /* the largest once */
                        sort_case c = {test_types[ti], a, opt == 1, (opt + (int)si) % 2 == 0,
                                       ns[si], data, opt ? K_OUT : K_NULL,
                                       opt ? V_IN_PLACE : V_NONE, -1, 0};
                        run_case(&c);
                    }
            }
    section("data sets");
    /* Every keys x values placement, stable and not, both orders. */
    for (size_t ai = 0; ai < 4; ai++)
        for (int k = 0; k < 3; k++)
            for (int v = 0; v < 5; v++)
                for (int opt = 0; opt < 4; opt++) {
                    sort_case c = {test_types[(ai + (size_t)v) % 4], sort_algos[ai], opt & 1,
                                   (opt & 2) != 0, opt % 2 ? 2049 : 5000, D_DUPS, k, v, -1, 0};
                    run_case(&c);
                }
    section("placements");
    /* Segmented, every kind of segments, every algorithm. */
    for (size_t ai = 0; ai < 4; ai++)
        for (int sk = 0; sk < S_COUNT; sk++)
            for (size_t ti = 0; ti < 4; ti++) {
                gpgpu_algo a = sort_algos[ai];
                /* S_TINY: 100k segments of 0-32 for RADIX, 10k for DEFAULT and
                 * BITONIC, 1k for the classic network. */
                bool classic = a == GPGPU_ALGO_CLASSIC_NETSORT;
                size_t n = sk == S_TINY ? (a == GPGPU_ALGO_RADIX ? 1600000
                                           : classic             ? 16000
                                                                 : 160000)
                           : sk == S_SINGLES ? 3001
                           : classic ? 5003
                           : 20011;
                if (sk == S_TINY && ti != (ai + 1) % 4)
                    continue; /* the large one: one type per algorithm (RADIX: u32) */
                sort_case c = {test_types[ti], a, ti % 2 == 1, ti == 2, n,
                               (int)((ti + (size_t)sk) % D_COUNT), (int)(ti % 3),
                               (int)((ti + ai) % 5), sk, 0};
                run_case(&c);
            }
    for (size_t ai = 0; ai < 4; ai++) /* small n with segments */
        for (size_t n = 0; n < 40; n += 13) {
            sort_case c = {test_types[ai], sort_algos[ai], n % 2, false, n, D_DUPS, K_OUT,
                           V_IN_PLACE, S_EMPTIES, 0};
            run_case(&c);
        }
    section("segments");
    /* The radix sort with reduce-then-scan key passes (what sorts of 2^30
     * keys and more take), as GPGPU_TUNE=radix_onesweep=0 makes it. */
    algo_tuning *tuning = (algo_tuning *)algo_tuning_get();
    tuning->radix_onesweep = 0;
    for (size_t ti = 0; ti < 4; ti++) {
        sort_case plain = {test_types[ti], GPGPU_ALGO_RADIX, ti % 2 == 1, ti >= 2,
                           ti == 0 ? 1000003 : 70001, D_RANDOM, (int)(ti % 3), (int)(ti % 5), -1, 0};
        run_case(&plain);
        sort_case segmented = plain;
        segmented.segs = S_SKEWED;
        segmented.n = 20011;
        run_case(&segmented);
    }
    tuning->radix_onesweep = 1;
    /* Sorts of up to a tile the multi-pass way, as GPGPU_TUNE=radix_small=0 makes them. */
    tuning->radix_small = 0;
    for (size_t ti = 0; ti < 4; ti++) {
        sort_case c = {test_types[ti], GPGPU_ALGO_RADIX, ti % 2 == 0, ti >= 2, 777 + 1000 * ti,
                       (int)(ti % D_COUNT), (int)(ti % 3), (int)((ti + 2) % 5),
                       ti == 3 ? S_SKEWED : -1, (int)(ti % 2)};
        run_case(&c);
    }
    tuning->radix_small = 1;
    section("reduce-then-scan radix");
    /* In ranges: at once (one-sweep), and a range at a time (one-group sorts, and
     * reduce-then-scan passes). */
    static const size_t range_sizes[] = {0, 1000, 5003, 100003, 1048579};
    for (size_t si = 0; si < sizeof range_sizes / sizeof *range_sizes; si++)
        for (size_t ti = 0; ti < 4; ti++)
            radix_in_ranges(test_types[ti], range_sizes[si], (si + ti) % 2 == 0, ti == 2,
                            (int)((si + ti) % D_COUNT));
    tuning->radix_onesweep = 0;
    for (size_t ti = 0; ti < 4; ti++)
        radix_in_ranges(test_types[ti], 50021, ti % 2 == 1, ti == 1, (int)(ti % D_COUNT));
    tuning->radix_onesweep = 1;
    section("radix in ranges");
    /* Caller-supplied scratch: every algorithm and payload kind, at offsets 16 and 0. */
    for (size_t ai = 0; ai < 4; ai++)
        for (int v = 0; v < 5; v += 2)
            for (int seg = 0; seg < 2; seg++) {
                bool classic = sort_algos[ai] == GPGPU_ALGO_CLASSIC_NETSORT;
                sort_case c = {test_types[(ai + (size_t)v) % 4], sort_algos[ai], seg, v == 4,
                               seg ? (classic ? 5003 : 30000) : 2000 + (size_t)v, D_RANDOM,
                               v ? K_OUT : K_SAME, v,
                               seg ? S_SKEWED : -1, 1 + (v / 2 + seg) % 2};
                run_case(&c);
            }
    section("scratch");
    for (size_t ai = 0; ai < 4; ai++)
        fprintf(stderr, "gpgpu_sort %s: %.1f s in all (with the checks)\n",
                algo_name(sort_algos[ai]), seconds[sort_algos[ai]]);
    errors();
    section("errors");
    gpgpu_context_destroy(ctx);
    return test_finish();
}
