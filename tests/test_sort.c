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
 * for being a permutation of the input's (key bits, value) pairs.
 *
 * This file holds main, the data and the stage tests' buffers; test_sort.h names
 * the parts and their files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_sort.h"

gpgpu_context *ctx;

/* ------------------------------------------------------------- data */

static uint64_t rng_state = 12345;

uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

size_t ksize(gpgpu_type t) { return gpgpu_type_size(t); }

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

uint64_t ord(gpgpu_type t, const void *p, size_t i, bool desc)
{
    return ref_sort_order(t, (const char *)p + i * ksize(t), desc);
}

const char *const data_names[D_COUNT] = {"random", "dups(0..7)", "sorted", "reverse",
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
void gen_keys(gpgpu_type t, int mode, void *p, size_t n)
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

uint32_t *gen_u32(size_t n)
{
    uint32_t *p = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint32_t)rnd();
    return p;
}

/* ------------------------------------------------------- stage tests */

void flag_text(flagset f, char *out, size_t size)
{
    snprintf(out, size, "%s%s%s%s%s", f.pay == 0 ? "keys" : f.pay == 1 ? "pay" : "iota",
             f.pay == 3 ? "+pay" : "", f.flags & SORT_DESCENDING ? " desc" : "",
             f.flags & SORT_TIES_BY_PAYLOAD ? " ties" : "",
             f.flags & SORT_SEGMENTED ? " segmented" : "");
}

staged staged_make(gpgpu_type t, size_t n, flagset f, int data)
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
                        s.has_segs ? s.segs.buf : NULL, 2, nseg, 0, 0, 0, NULL, NULL};
    s.host = (ref_sort_keys){t, slab_at(&s.keys, 3), s.has_pay ? slab_at(&s.pay, 5) : NULL, n,
                             f.flags, s.has_segs ? slab_at(&s.segs, 2) : NULL, nseg, 0};
    return s;
}

void staged_check(const staged *s, const char *what)
{
    slab_check(&s->keys, NULL, what);
    if (s->has_pay)
        slab_check(&s->pay, NULL, what);
    if (s->has_segs)
        slab_check(&s->segs, NULL, what);
}

void staged_free(staged *s)
{
    slab_free(&s->keys);
    if (s->has_pay)
        slab_free(&s->pay);
    if (s->has_segs)
        slab_free(&s->segs);
}

/* ------------------------------------------------------------ timing */

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool show_times; /* SORT_TEST_TIMES set: print the slow cases */

static double section_start;

static void section(const char *name)
{
    double t = now();
    if (name)
        fprintf(stderr, "%s: %.1f s\n", name, t - section_start);
    section_start = t;
}

/* ------------------------------------------------------ helper stages */

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

void helper_stage_tests(void)
{
    for (size_t si = 0; si < sizeof stage_sizes / sizeof *stage_sizes; si++)
        stage_helpers(stage_sizes[si]);
    stage_helpers(1u << 20);
}

const size_t stage_sizes[12] = {0, 1, 2, 3, 7, 33, 1000, 2047, 2048, 2049, 6151, 65537};

int main(void)
{
    ctx = test_context();
    show_times = getenv("SORT_TEST_TIMES") != NULL;
    section(NULL);
    bitonic_stage_tests();
    section("bitonic stages");
    radix_stage_tests();
    section("radix stages");
    onesweep_stage_tests();
    section("one-sweep stages");
    small_stage_tests();
    section("one-group stage");
    helper_stage_tests();
    section("helper stages");
    size_sweep();
    section("sizes");
    data_set_sorts();
    section("data sets");
    placement_sorts();
    section("placements");
    segmented_sorts();
    section("segments");
    reduce_then_scan_sorts();
    section("reduce-then-scan radix");
    radix_range_sorts();
    section("radix in ranges");
    scratch_sorts();
    section("scratch");
    sort_times_report();
    device_counts();
    section("counts on the GPU");
    errors();
    section("errors");
    gpgpu_context_destroy(ctx);
    return test_finish();
}
