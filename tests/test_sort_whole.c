/* gpgpu_sort for every algorithm, type, size, data set, placement of keys and values,
 * option and scratch buffer against the oracle ref_sort: bit for bit where the result is
 * unique, in order and a permutation of the input's pairs where the network is unstable;
 * counts on the GPU (count_buffer). */
#include <stdlib.h>
#include <string.h>

#include "test_plans.h"
#include "test_sort.h"

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

static void run_case_(const sort_case *c);

void run_case(const sort_case *c)
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

const gpgpu_algo sort_algos[4] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_CLASSIC_NETSORT,
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

/* gpgpu_sort: the size sweep, random data, options varied with the size;
 * each algorithm and type at its largest size, and at every other size
 * from TEST_SHARED_FROM up (test_runs_large). */
void size_sweep(void)
{
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
}

/* Every data set, with and without stability and values, both orders;
 * the network one step of a tile and more (the classic one less far). */
void data_set_sorts(void)
{
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
}

/* Every keys x values placement, stable and not, both orders. */
void placement_sorts(void)
{
    for (size_t ai = 0; ai < 4; ai++)
        for (int k = 0; k < 3; k++)
            for (int v = 0; v < 5; v++)
                for (int opt = 0; opt < 4; opt++) {
                    sort_case c = {test_types[(ai + (size_t)v) % 4], sort_algos[ai], opt & 1,
                                   (opt & 2) != 0, opt % 2 ? 2049 : 5000, D_DUPS, k, v, -1, 0};
                    run_case(&c);
                }
}

/* The radix sort with reduce-then-scan key passes (what sorts of 2^30
 * keys and more take), as GPGPU_TUNE=radix_onesweep=0 makes it. */
void reduce_then_scan_sorts(void)
{
    TEST_PLAN(ctx, radix.onesweep, ALGO_NEVER);
    for (size_t ti = 0; ti < 4; ti++) {
        sort_case plain = {test_types[ti], GPGPU_ALGO_RADIX, ti % 2 == 1, ti >= 2,
                           ti == 0 ? 1000003 : 70001, D_RANDOM, (int)(ti % 3), (int)(ti % 5), -1, 0};
        run_case(&plain);
        sort_case segmented = plain;
        segmented.segs = S_SKEWED;
        segmented.n = 20011;
        run_case(&segmented);
    }
    TEST_PLAN(ctx, radix.onesweep, ALGO_AUTO);
    /* Sorts of up to a tile the multi-pass way, as GPGPU_TUNE=radix_small=0 makes them. */
    TEST_PLAN(ctx, radix.small, false);
    for (size_t ti = 0; ti < 4; ti++) {
        sort_case c = {test_types[ti], GPGPU_ALGO_RADIX, ti % 2 == 0, ti >= 2, 777 + 1000 * ti,
                       (int)(ti % D_COUNT), (int)(ti % 3), (int)((ti + 2) % 5),
                       ti == 3 ? S_SKEWED : -1, (int)(ti % 2)};
        run_case(&c);
    }
    TEST_PLAN(ctx, radix.small, true);
}

/* Caller-supplied scratch: every algorithm and payload kind, at offsets 16 and 0. */
void scratch_sorts(void)
{
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
}

/* Each algorithm's wall time in run_case, its checks included, for the log. */
void sort_times_report(void)
{
    for (size_t ai = 0; ai < 4; ai++)
        fprintf(stderr, "gpgpu_sort %s: %.1f s in all (with the checks)\n",
                algo_name(sort_algos[ai]), seconds[sort_algos[ai]]);
}

/* --------------------------------------------------- counts on the GPU */

/* gpgpu_sort with count_buffer: `bound` keys (and values) sized into the call, the count
 * `real` (clamped to the bound) in a u32 buffer between poisoned words. The first
 * min(real, bound) must come out as the CPU's stable sort of them; every other element of
 * the buffers keeps its bits (the input's past the count in place, the poison out of
 * place). */
static void counted_case(gpgpu_type t, size_t bound, uint32_t real, bool values, bool desc,
                         bool in_place, int data)
{
    if (bound > test_max_n())
        return;
    char what[200];
    snprintf(what, sizeof what, "gpgpu_sort %s count_buffer %u of bound %zu%s%s%s, %s",
             gpgpu_type_name(t), real, bound, values ? ", values" : "", desc ? " desc" : "",
             in_place ? " in place" : "", data_names[data]);
    size_t n = real < bound ? real : bound, es = ksize(t), in_off = 3, out_off = 5;
    void *keys = xmalloc(bound * es);
    gen_keys(t, data, keys, bound);
    slab in = slab_make(ctx, t, in_off, bound, 2, keys), out = in;
    if (in_place)
        out_off = in_off;
    else
        out = slab_make(ctx, t, out_off + bound + 3, 0, 0, NULL);
    uint32_t *vals = values ? gen_u32(bound) : NULL;
    slab v = {0};
    if (values)
        v = slab_make(ctx, GPGPU_TYPE_U32, 1, bound, 2, vals);
    uint32_t words[3] = {0xA5A5A5A5u, real, 0xA5A5A5A5u};
    gpgpu_buffer *cb = test_buffer(ctx, words, sizeof words);
    gpgpu_sort_desc d = {.type = t, .descending = desc, .count_buffer = cb, .count_offset = 1};
    if (values) {
        d.values_in = v.buf;
        d.values_in_offset = 1;
    }
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, in.buf, in_off, in_place ? NULL : out.buf, out_off,
                                  bound),
                  GPGPU_SUCCESS);
    /* The first n keys sorted (and their values with them) into the images. */
    memcpy(slab_at(&out, out_off), keys, n * es);
    ref_sort(t, desc, slab_at(&out, out_off), values ? (uint32_t *)slab_at(&v, 1) : NULL, n,
             NULL, 0);
    slab_check(&out, NULL, what);
    if (values)
        slab_check(&v, NULL, what);
    if (!in_place) {
        char w[240];
        snprintf(w, sizeof w, "%s: input unchanged", what);
        slab_check(&in, NULL, w);
        slab_free(&out);
    }
    gpgpu_buffer_destroy(cb);
    if (values)
        slab_free(&v);
    slab_free(&in);
    free(keys);
    free(vals);
}

/* Counts 0, 1, between, the bound and past it, on the one-group sort, the one-sweep and
 * (radix_onesweep=0) the reduce-then-scan passes, every type. */
void device_counts(void)
{
    static const size_t bounds[] = {1, 1000, 4096, 70001};
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t b = 0; b < sizeof bounds / sizeof *bounds; b++) {
            size_t bound = bounds[b];
            uint32_t reals[] = {0, 1, (uint32_t)(bound / 3 + 1), (uint32_t)bound,
                                (uint32_t)bound + 5};
            for (size_t r = 0; r < 5; r++)
                counted_case(test_types[ti], bound, reals[r], (r + ti) % 2 == 0, r == 2,
                             (b + r) % 2 == 1, (int)((ti + b + r) % D_COUNT));
        }
    counted_case(GPGPU_TYPE_U32, 1000003, 999983, true, false, false, D_RANDOM);
    counted_case(GPGPU_TYPE_F32, 1000003, 123457, false, true, true, D_SPECIAL);
    TEST_PLAN(ctx, radix.onesweep, ALGO_NEVER);
    counted_case(GPGPU_TYPE_I32, 70001, 30011, true, false, false, D_DUPS);
    counted_case(GPGPU_TYPE_F64, 70001, 0, true, true, true, D_RANDOM);
    TEST_PLAN(ctx, radix.onesweep, ALGO_AUTO);
    TEST_PLAN(ctx, radix.small, false);
    counted_case(GPGPU_TYPE_U32, 3000, 2999, true, false, true, D_DUPS);
    TEST_PLAN(ctx, radix.small, true);

    gpgpu_buffer *cb = test_buffer(ctx, NULL, 16);
    slab a = slab_make(ctx, GPGPU_TYPE_U32, 0, 100, 0, NULL);
    slab segs = slab_make(ctx, GPGPU_TYPE_U32, 0, 2, 0, (uint32_t[]){0, 100});
    static const gpgpu_algo networks[] = {GPGPU_ALGO_BITONIC, GPGPU_ALGO_CLASSIC_NETSORT};
    for (size_t k = 0; k < 2; k++) {
        gpgpu_sort_desc d = {.type = GPGPU_TYPE_U32, .algo = networks[k], .count_buffer = cb};
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 0, NULL, 0, 100),
                      GPGPU_ERROR_UNSUPPORTED_COMBINATION);
        EXPECT(strstr(gpgpu_last_error(ctx), "a count_buffer takes the radix sort"),
               "%s with a count_buffer: '%s'", algo_name(networks[k]), gpgpu_last_error(ctx));
    }
    gpgpu_sort_desc sd = {.type = GPGPU_TYPE_U32, .count_buffer = cb, .segments = segs.buf,
                          .segment_count = 1};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &sd, a.buf, 0, NULL, 0, 100),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    gpgpu_sort_desc past = {.type = GPGPU_TYPE_U32, .count_buffer = cb, .count_offset = 4};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &past, a.buf, 0, NULL, 0, 100), GPGPU_ERROR_OUT_OF_RANGE);
    slab_check(&a, NULL, "refused counted sorts leave the keys alone");
    slab_free(&segs);
    slab_free(&a);
    gpgpu_buffer_destroy(cb);
}
