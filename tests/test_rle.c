/* Run-length encoding and reduce-by-key against their CPU twin (src/ref/ref_rle.c): HEADS,
 * SCATTER and LENGTHS each alone, then gpgpu_run_length_encode and gpgpu_reduce_by_key for
 * every key type (and value types other than the keys'), CHAINED (the single pass) alone with
 * its look-back as it runs and forced to count every predecessor again, runs of length 1 (all
 * distinct), n (all equal) and between, NaN runs of different NaN bits (one run), -0 beside +0
 * (two), the key count from a GPU buffer (0, some, all, past the bound), the run count to a GPU
 * buffer, a scratch of the caller's, and the argument checks. Everything but float sums matches bit
 * for bit; those within gamma_len times the sum of |x| of their run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/rle.h"
#include "ref/ref.h"
#include "testlib.h"

static gpgpu_context *ctx;

static uint64_t rng_state = 11;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Keys in runs of 1 to `longest` equal keys (longest 0: all n equal); floats now and then a
 * run of NaNs of mixed bits, or -0 and +0 side by side. */
static void *make_keys(gpgpu_type t, size_t n, size_t longest)
{
    size_t ks = gpgpu_type_size(t);
    void *keys = xmalloc(n * ks + 8);
    uint32_t v = (uint32_t)rng();
    for (size_t i = 0; i < n;) {
        size_t len = longest ? 1 + rng() % longest : n;
        uint64_t kind = rng() % 16;
        v += 1 + (uint32_t)(rng() % 3);
        for (size_t k = 0; k < len && i < n; k++, i++) {
            if (t == GPGPU_TYPE_F32) {
                static const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xffffffffu};
                float f = (float)(int32_t)(v % 2001) - 1000.0f;
                uint32_t b;
                memcpy(&b, &f, 4);
                if (kind == 0)
                    b = nans[rng() % 4];
                else if (kind == 1)
                    b = (i % 2) ? 0x80000000u : 0; /* -0, +0 alternating: runs of 1 */
                memcpy((float *)keys + i, &b, 4);
            } else if (t == GPGPU_TYPE_F64) {
                static const uint64_t nans[] = {0x7ff8000000000000u, 0xfff8000000000001u,
                                                0x7ff0000000000001u};
                double d = (double)(v % 2001) * 0.25 - 250;
                uint64_t b;
                memcpy(&b, &d, 8);
                if (kind == 0)
                    b = nans[rng() % 3];
                else if (kind == 1)
                    b = (i % 2) ? 0x8000000000000000u : 0;
                memcpy((double *)keys + i, &b, 8);
            } else {
                ((uint32_t *)keys)[i] =
                    t == GPGPU_TYPE_I32 ? (uint32_t)((int32_t)(v % 2001) - 1000) : v;
            }
        }
    }
    return keys;
}

static const size_t run_lengths[] = {1, 4, 100, 0};

enum { FORCED_TILES = 40 };

/* ----------------------------------------------------------------- stages */

/* HEADS from key 2 (count from a buffer where device is set), SCATTER on the twin's scan of
 * the heads, LENGTHS on the twin's starts: each against its twin on poisoned buffers; then
 * CHAINED, which must leave what they left. */
static void stages(gpgpu_type t, size_t n, size_t longest, const uint32_t *device)
{
    char what[200];
    snprintf(what, sizeof what, "%s n=%zu runs<=%zu%s%u", gpgpu_type_name(t), n, longest,
             device ? " count_buffer=" : "", device ? *device : 0);
    size_t real = device && *device < n ? *device : n;
    void *keys = make_keys(t, n, longest);
    slab k = slab_make(ctx, t, 2, n, 1, keys);
    slab flags = slab_make(ctx, GPGPU_TYPE_U32, 1, 0, n + 1, NULL);
    slab starts = slab_make(ctx, GPGPU_TYPE_U32, 3, 0, n + 4, NULL);
    slab uniq = slab_make(ctx, t, 1, 0, n + 1, NULL);
    slab lens = slab_make(ctx, GPGPU_TYPE_U32, 2, 0, n + 1, NULL);
    slab cout = slab_make(ctx, GPGPU_TYPE_U32, 0, 0, 3, NULL);
    gpgpu_buffer *cb = NULL;
    if (device) {
        uint32_t w[2] = {7, *device};
        cb = test_buffer(ctx, w, sizeof w);
    }
    rle_args a = {.type = t, .keys = k.buf, .keys_off = 2, .n = n, .count = cb, .count_off = 1,
                  .unique = uniq.buf, .unique_off = 1, .lengths = lens.buf, .lengths_off = 2,
                  .flags = flags.buf, .flags_off = 1, .starts = starts.buf, .starts_off = 3,
                  .runs_at = 3 + n + 2, .count_out = cout.buf, .count_out_off = 1};
    char sw[240];

    snprintf(sw, sizeof sw, "%s: HEADS", what);
    EXPECT_STATUS(ctx, rle_stage_heads(ctx, &a), GPGPU_SUCCESS);
    uint32_t *f = slab_at(&flags, 1);
    ref_rle_heads(t, keys, real, n, f);
    slab_check(&flags, NULL, sw);

    /* The flags' inclusive scan, as the library's scan leaves it. */
    for (size_t i = 1; i < n; i++)
        f[i] += f[i - 1];
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(flags.buf, 0, flags.host, flags.len * 4), GPGPU_SUCCESS);
    snprintf(sw, sizeof sw, "%s: SCATTER", what);
    EXPECT_STATUS(ctx, rle_stage_scatter(ctx, &a), GPGPU_SUCCESS);
    uint32_t runs;
    ref_rle_scatter(t, keys, f, real, slab_at(&uniq, 1), slab_at(&starts, 3), &runs);
    ((uint32_t *)starts.host)[a.runs_at] = runs;
    ((uint32_t *)cout.host)[1] = runs;
    slab_check(&uniq, NULL, sw);
    slab_check(&starts, NULL, sw);
    slab_check(&cout, NULL, sw);
    EXPECT(runs == ref_rle(t, keys, real, NULL, NULL, NULL), "%s: %u runs", sw, runs);

    snprintf(sw, sizeof sw, "%s: LENGTHS", what);
    EXPECT_STATUS(ctx, rle_stage_lengths(ctx, &a), GPGPU_SUCCESS);
    ref_rle_lengths(slab_at(&starts, 3), runs, slab_at(&lens, 2));
    slab_check(&lens, NULL, sw);

    /* CHAINED on fresh poisoned outputs must leave what those stages left (the starts, the
     * run count words and all), with the look-back as it runs and with every predecessor
     * counted again from its keys (forced; up to FORCED_TILES tiles: that is tiles^2 / 2 tile
     * reads). The state is cleared first where there is more than one tile. */
    rle_chained_plan p = rle_chained_plan_for(t, n);
    for (int forced = 0; forced < 2; forced++) {
        if (forced && p.tiles > FORCED_TILES)
            continue;
        snprintf(sw, sizeof sw, "%s: CHAINED tiles=%u%s", what, p.tiles, forced ? " forced" : "");
        slab state = slab_make(ctx, GPGPU_TYPE_U32, 3, 0, p.state_words + 1, NULL);
        slab starts2 = slab_make(ctx, GPGPU_TYPE_U32, 3, 0, n + 4, NULL);
        slab uniq2 = slab_make(ctx, t, 1, 0, n + 1, NULL);
        slab lens2 = slab_make(ctx, GPGPU_TYPE_U32, 2, 0, n + 1, NULL);
        slab cout2 = slab_make(ctx, GPGPU_TYPE_U32, 0, 0, 3, NULL);
        rle_args c = a;
        c.flags = NULL;
        c.state = state.buf;
        c.state_off = 3;
        c.starts = starts2.buf;
        c.unique = uniq2.buf;
        c.lengths = lens2.buf;
        c.count_out = cout2.buf;
        c.forced = forced;
        if (p.tiles > 1) {
            EXPECT_STATUS(ctx, rle_stage_clear(ctx, &c, p), GPGPU_SUCCESS);
            memset(slab_at(&state, 3), 0, p.state_words * 4);
        }
        EXPECT_STATUS(ctx, rle_stage_chained(ctx, &c, p), GPGPU_SUCCESS);
        memcpy(starts2.host, starts.host, starts.len * 4);
        memcpy(uniq2.host, uniq.host, uniq.len * gpgpu_type_size(t));
        memcpy(lens2.host, lens.host, lens.len * 4);
        memcpy(cout2.host, cout.host, cout.len * 4);
        slab_check(&uniq2, NULL, sw);
        slab_check(&starts2, NULL, sw);
        slab_check(&lens2, NULL, sw);
        slab_check(&cout2, NULL, sw);
        if (p.tiles == 1) { /* one tile publishes nothing */
            char st[260];
            snprintf(st, sizeof st, "%s: state untouched", sw);
            slab_check(&state, NULL, st);
        }
        slab_free(&cout2);
        slab_free(&lens2);
        slab_free(&uniq2);
        slab_free(&starts2);
        slab_free(&state);
    }

    gpgpu_buffer_destroy(cb);
    slab_free(&cout);
    slab_free(&lens);
    slab_free(&uniq);
    slab_free(&starts);
    slab_free(&flags);
    slab_free(&k);
    free(keys);
}

/* ------------------------------------------------------------------ calls */

typedef struct options {
    const uint32_t *device; /* the key count from a GPU buffer */
    bool count_out;         /* the run count to a GPU buffer too */
    bool own_scratch;
    bool no_unique, no_lengths;
} options;

static gpgpu_buffer *count_buffer(const options *o)
{
    if (!o->device)
        return NULL;
    uint32_t w[3] = {1, 2, *o->device};
    return test_buffer(ctx, w, sizeof w);
}

static gpgpu_buffer *own_scratch(const gpgpu_rle_desc *d, size_t n, bool by_key)
{
    size_t bytes;
    EXPECT_STATUS(ctx, gpgpu_rle_scratch_size(ctx, d, n, by_key, &bytes), GPGPU_SUCCESS);
    return test_buffer(ctx, NULL, bytes + 24);
}

static void describe(char *out, size_t size, const char *fn, gpgpu_type t, gpgpu_type vt,
                     size_t n, size_t longest, const options *o)
{
    snprintf(out, size, "%s %s%s%s n=%zu runs<=%zu%s%u%s%s%s%s", fn, gpgpu_type_name(t),
             vt ? " values " : "", vt ? gpgpu_type_name(vt) : "", n, longest,
             o->device ? " count_buffer=" : "", o->device ? *o->device : 0,
             o->count_out ? " count_out" : "", o->own_scratch ? " own scratch" : "",
             o->no_unique ? " no unique" : "", o->no_lengths ? " no lengths" : "");
}

/* gpgpu_run_length_encode into poisoned outputs (elements past the runs keep the poison). */
static void call_rle(gpgpu_type t, size_t n, size_t longest, options o)
{
    char what[240];
    describe(what, sizeof what, "gpgpu_run_length_encode", t, 0, n, longest, &o);
    size_t real = o.device && *o.device < n ? *o.device : n;
    void *keys = make_keys(t, n, longest);
    slab k = slab_make(ctx, t, 1, n, 1, keys);
    slab uniq = slab_make(ctx, t, 2, 0, n + 1, NULL),
         lens = slab_make(ctx, GPGPU_TYPE_U32, 1, 0, n, NULL);
    slab cout = slab_make(ctx, GPGPU_TYPE_U32, 0, 0, 2, NULL);
    gpgpu_rle_desc d = {.type = t, .count_buffer = count_buffer(&o), .count_offset = 2,
                        .count_out = o.count_out ? cout.buf : NULL, .count_out_offset = 1};
    gpgpu_buffer *scratch = o.own_scratch ? own_scratch(&d, n, false) : NULL;
    d.scratch = scratch;
    d.scratch_offset = 16;
    size_t runs = 12345;
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &d, k.buf, 1, n, o.no_unique ? NULL : uniq.buf,
                                               2, o.no_lengths ? NULL : lens.buf, 1, &runs),
                  GPGPU_SUCCESS);
    size_t want = ref_rle(t, keys, real, o.no_unique ? NULL : slab_at(&uniq, 2),
                          o.no_lengths ? NULL : slab_at(&lens, 1), NULL);
    EXPECT(runs == want, "%s: %zu runs, expected %zu", what, runs, want);
    if (o.count_out)
        ((uint32_t *)cout.host)[1] = (uint32_t)want;
    slab_check(&uniq, NULL, what);
    slab_check(&lens, NULL, what);
    slab_check(&cout, NULL, what);
    slab_check(&k, NULL, what);
    gpgpu_buffer_destroy(scratch);
    gpgpu_buffer_destroy(d.count_buffer);
    slab_free(&cout);
    slab_free(&lens);
    slab_free(&uniq);
    slab_free(&k);
    free(keys);
}

/* gpgpu_reduce_by_key of values of type vt (random, or test_random's), keys out too. */
static void call_rbk(gpgpu_type t, gpgpu_type vt, size_t n, size_t longest, options o)
{
    char what[240];
    describe(what, sizeof what, "gpgpu_reduce_by_key", t, vt, n, longest, &o);
    size_t real = o.device && *o.device < n ? *o.device : n;
    void *keys = make_keys(t, n, longest);
    slab k = slab_make(ctx, t, 1, n, 1, keys);
    slab vals = slab_make(ctx, vt, 3, n, 1, NULL);
    slab kout = slab_make(ctx, t, 0, 0, n + 1, NULL), sums = slab_make(ctx, vt, 2, 0, n + 1, NULL);
    slab cout = slab_make(ctx, GPGPU_TYPE_U32, 0, 0, 2, NULL);
    gpgpu_rle_desc d = {.type = t, .value_type = vt, .count_buffer = count_buffer(&o),
                        .count_offset = 2, .count_out = o.count_out ? cout.buf : NULL};
    gpgpu_buffer *scratch = o.own_scratch ? own_scratch(&d, n, true) : NULL;
    d.scratch = scratch;
    d.scratch_offset = 8;
    size_t runs = 12345;
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &d, k.buf, 1, vals.buf, 3, n,
                                           o.no_unique ? NULL : kout.buf, 0, sums.buf, 2, &runs),
                  GPGPU_SUCCESS);
    uint32_t *starts = xmalloc((n + 2) * 4);
    size_t want = ref_rle(t, keys, real, o.no_unique ? NULL : kout.host, NULL, starts);
    EXPECT(runs == want, "%s: %zu runs, expected %zu", what, runs, want);
    long double *abs = xmalloc((want + 1) * sizeof *abs);
    ref_segreduce(vt, GPGPU_OP_SUM, slab_at(&vals, 3), real, starts, want, slab_at(&sums, 2), abs);
    double *tol = exact(sums.len);
    for (size_t r = 0; is_float(vt) && r < want; r++)
        tol[2 + r] = tolerance(vt, starts[r + 1] - starts[r], abs[r]);
    if (o.count_out)
        ((uint32_t *)cout.host)[0] = (uint32_t)want;
    slab_check(&kout, NULL, what);
    slab_check(&sums, tol, what);
    slab_check(&cout, NULL, what);
    slab_check(&vals, NULL, what);
    free(tol);
    free(abs);
    free(starts);
    gpgpu_buffer_destroy(scratch);
    gpgpu_buffer_destroy(d.count_buffer);
    slab_free(&cout);
    slab_free(&sums);
    slab_free(&kout);
    slab_free(&vals);
    slab_free(&k);
    free(keys);
}

static void sweep(size_t ti, bool has_f64)
{
    gpgpu_type t = test_types[ti];
    static const size_t stage_sizes[] = {0, 1, 2, 1000, 2048, 2049, 65537};
    for (size_t s = 0; s < sizeof stage_sizes / sizeof *stage_sizes; s++)
        for (size_t r = 0; r < 4; r++)
            if (stage_sizes[s] <= test_max_n())
                stages(t, stage_sizes[s], run_lengths[r], NULL);
    for (size_t s = 0; test_sizes[s] != SIZE_MAX; s++) {
        if (!test_runs_size(s, ti))
            continue;
        size_t n = test_sizes[s], longest = run_lengths[s % 4];
        call_rle(t, n, longest, (options){.no_lengths = s % 5 == 4, .no_unique = s % 7 == 6});
        gpgpu_type vt = test_types[(ti + s) % 4];
        if (vt == GPGPU_TYPE_F64 && !has_f64)
            vt = GPGPU_TYPE_F32;
        call_rbk(t, vt, n, longest, (options){.count_out = s % 3 == 0, .no_unique = s % 4 == 1});
    }
}

/* The key count from a GPU buffer (0, one, some, all, past the bound), the run count to a
 * GPU buffer, the caller's scratch. */
static void device_counts(gpgpu_type t)
{
    size_t n = 40000 < test_max_n() ? 40000 : test_max_n();
    uint32_t counts[] = {0, 1, (uint32_t)n / 3, (uint32_t)n, (uint32_t)n + 1, UINT32_MAX};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        stages(t, n, 4, &counts[k]);
        options o = {.device = &counts[k], .count_out = true, .own_scratch = k % 2 == 0};
        call_rle(t, n, 4, o);
        call_rbk(t, t == GPGPU_TYPE_U32 ? GPGPU_TYPE_F32 : GPGPU_TYPE_U32, n, 100, o);
    }
    call_rle(t, n, 0, (options){.own_scratch = true, .count_out = true});
}

/* Written out: NaNs of any bits are one run, -0 and +0 two, as the sort's order has it. */
static void written_out(void)
{
    uint32_t bits[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x80000000u, 0, 0, 0x3f800000u};
    slab k = slab_make(ctx, GPGPU_TYPE_F32, 0, 7, 0, bits);
    slab u = slab_make(ctx, GPGPU_TYPE_F32, 0, 0, 7, NULL),
         l = slab_make(ctx, GPGPU_TYPE_U32, 0, 0, 7, NULL);
    size_t runs = 0;
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &(gpgpu_rle_desc){.type = GPGPU_TYPE_F32},
                                               k.buf, 0, 7, u.buf, 0, l.buf, 0, &runs),
                  GPGPU_SUCCESS);
    EXPECT(runs == 4, "NaN, NaN, NaN, -0, +0, +0, 1: %zu runs, expected 4", runs);
    uint32_t ub[] = {0x7fc00000u, 0x80000000u, 0, 0x3f800000u}, lb[] = {3, 1, 2, 1};
    memcpy(u.host, ub, sizeof ub);
    memcpy(l.host, lb, sizeof lb);
    slab_check(&u, NULL, "f32 NaN and zero runs written out (keys: the first NaN's bits)");
    slab_check(&l, NULL, "f32 NaN and zero runs written out (lengths)");
    slab_free(&l);
    slab_free(&u);
    slab_free(&k);
}

static void errors(void)
{
    gpgpu_buffer *a = test_buffer(ctx, NULL, 4096), *b = test_buffer(ctx, NULL, 4096);
    gpgpu_rle_desc d = {.type = GPGPU_TYPE_U32};
    size_t runs;
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(NULL, &d, a, 0, 10, b, 0, NULL, 0, &runs),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, NULL, a, 0, 10, b, 0, NULL, 0, &runs),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &d, NULL, 0, 10, b, 0, NULL, 0, &runs),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &(gpgpu_rle_desc){.type = 0}, a, 0, 10, b, 0,
                                               NULL, 0, &runs),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &d, a, 1020, 10, b, 0, NULL, 0, &runs),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &d, a, 0, 10, b, 1020, NULL, 0, &runs),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &d, a, 0, 10, b, 0, b, 1020, &runs),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &d, a, 0, 10, a, 5, NULL, 0, &runs),
                  GPGPU_ERROR_OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &d, a, 0, 10, b, 0, b, 9, &runs),
                  GPGPU_ERROR_OVERLAP);
    gpgpu_rle_desc bad = d;
    bad.count_out = b;
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &bad, a, 0, 10, b, 0, NULL, 0, &runs),
                  GPGPU_ERROR_OVERLAP);
    bad.count_out_offset = 1024;
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &bad, a, 0, 10, b, 0, NULL, 0, &runs),
                  GPGPU_ERROR_OUT_OF_RANGE);
    bad = d;
    bad.count_buffer = b;
    bad.count_offset = 3;
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &bad, a, 0, 10, b, 0, NULL, 0, &runs),
                  GPGPU_ERROR_OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &bad, a, 0, 10, b, 4, NULL, 0, &runs),
                  GPGPU_SUCCESS); /* reading the count beside the output is fine */
    /* Scratch: too small, misaligned, overlapping the keys. */
    size_t need;
    EXPECT_STATUS(ctx, gpgpu_rle_scratch_size(ctx, &d, 100, true, &need), GPGPU_SUCCESS);
    gpgpu_buffer *small = test_buffer(ctx, NULL, need);
    bad = d;
    bad.scratch = small;
    bad.scratch_offset = 8;
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &bad, a, 0, a, 200, 100, NULL, 0, b, 0, &runs),
                  GPGPU_ERROR_OUT_OF_MEMORY);
    bad.scratch_offset = 4;
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &bad, a, 0, a, 200, 100, NULL, 0, b, 0, &runs),
                  GPGPU_ERROR_MISALIGNED);
    bad.scratch = a;
    bad.scratch_offset = 0;
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &bad, a, 0, 10, b, 0, NULL, 0, &runs),
                  GPGPU_ERROR_OVERLAP);
    /* Reduce-by-key: the values and sums. */
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &d, a, 0, NULL, 0, 10, NULL, 0, b, 0, &runs),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &d, a, 0, a, 100, 10, NULL, 0, NULL, 0, &runs),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &d, a, 0, a, 1020, 10, NULL, 0, b, 0, &runs),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &d, a, 0, b, 0, 10, NULL, 0, b, 5, &runs),
                  GPGPU_ERROR_OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &d, a, 0, b, 0, 10, b, 20, b, 25, &runs),
                  GPGPU_ERROR_OVERLAP);
    /* Keys and runs together past the segmented sum's 32-bit merge path. */
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &d, a, 0, b, 0, ((size_t)1 << 31) - 1000, NULL,
                                           0, b, 20, &runs),
                  GPGPU_ERROR_TOO_LARGE);
    EXPECT(strstr(gpgpu_last_error(ctx), "2147482648 keys") != NULL, "message: %s",
           gpgpu_last_error(ctx));
    bad = d;
    bad.value_type = (gpgpu_type)8;
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &bad, a, 0, b, 0, 10, NULL, 0, b, 20, &runs),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, gpgpu_rle_scratch_size(ctx, NULL, 10, false, &need),
                  GPGPU_ERROR_NULL_POINTER);
    gpgpu_buffer_destroy(small);
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
}

int main(void)
{
    ctx = test_context();
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    errors();
    written_out();
    for (size_t ti = 0; ti < sizeof test_types / sizeof *test_types; ti++) {
        gpgpu_type t = test_types[ti];
        if (t == GPGPU_TYPE_F64 && !info.has_f64)
            continue;
        sweep(ti, info.has_f64);
        device_counts(t);
    }
    gpgpu_context_destroy(ctx);
    return test_finish();
}
