/* Run-length encoding and reduce-by-key against their CPU twins (src/ref/ref_rle.c,
 * ref_select.c): the heads' selection counting first and in one pass (its look-back as it
 * runs and forced to count every predecessor again) and FINISH each alone, then
 * gpgpu_run_length_encode and gpgpu_reduce_by_key for every key type (and value types other
 * than the keys'), runs of length 1 (all distinct), n (all equal) and between, NaN runs of
 * different NaN bits (one run), -0 beside +0 (two), the key count from a GPU buffer (0, some,
 * all, past the bound), the run count to a GPU buffer, a scratch of the caller's, and the
 * argument checks. Everything but float sums matches bit for bit; those within gamma_len
 * times the sum of |x| of their run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/count.h"
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

/* The heads' selection (SELECT_KEEP_HEADS) counting first, in one pass and in one pass forced
 * to count every predecessor again (up to FORCED_TILES tiles: that is tiles^2 / 2 tile
 * reads), each into fresh poisoned outputs against the twin (ref_select); then FINISH on the
 * last one's starts and total, against its twin. The key count from a buffer where device is
 * set. */
static void stages(gpgpu_type t, size_t n, size_t longest, const uint32_t *device)
{
    char what[200];
    snprintf(what, sizeof what, "%s n=%zu runs<=%zu%s%u", gpgpu_type_name(t), n, longest,
             device ? " count_buffer=" : "", device ? *device : 0);
    size_t real = device && *device < n ? *device : n, ks = gpgpu_type_size(t);
    void *keys = make_keys(t, n, longest);
    slab k = slab_make(ctx, t, 2, n, 1, keys);
    gpgpu_buffer *cb = NULL, *staged = NULL;
    if (device) {
        uint32_t w[2] = {7, *device};
        cb = test_buffer(ctx, w, sizeof w);
        EXPECT_STATUS(ctx, count_stage(ctx, cb, 1, n, &staged), GPGPU_SUCCESS);
    }
    /* The twin's heads: each run's first key and start, and the run count. */
    void *want_unique = xmalloc((n + 1) * ks);
    uint32_t *want_starts = xmalloc((n + 2) * 4);
    uint32_t runs = (uint32_t)ref_select(t, SELECT_KEEP_HEADS, 0, false, keys, NULL, NULL, real,
                                         want_unique, NULL, want_starts);
    EXPECT(runs == ref_rle(t, keys, real, NULL, NULL, NULL), "%s: the twins' %u runs", what,
           runs);
    static const char *const forms[] = {"COUNT+SCATTER", "CHAINED", "CHAINED recounting"};
    slab starts = {0}, state = {0};
    size_t total_at = 0;
    for (int form = 0; form < 3; form++) {
        select_plan p = select_plan_for(ctx, t, n,
                                        form ? GPGPU_ALGO_SCAN_SINGLE_PASS
                                             : GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN,
                                        false);
        if (form == 2 && p.tiles > FORCED_TILES)
            continue;
        char sw[260];
        snprintf(sw, sizeof sw, "%s: heads, %s tiles=%u", what, forms[form], p.tiles);
        slab_free(&starts);
        slab_free(&state);
        starts = slab_make(ctx, GPGPU_TYPE_U32, 3, 0, n + 4, NULL);
        state = slab_make(ctx, GPGPU_TYPE_U32, 1, 0, p.state_words + 1, NULL);
        slab uniq = slab_make(ctx, t, 1, 0, n + 1, NULL);
        select_job job = rle_heads_job(t, k.buf, 2, n, uniq.buf, 1, starts.buf, 3);
        job.count = staged;
        job.state = state.buf;
        job.state_off = 1;
        if (form == 0) {
            EXPECT_STATUS(ctx, select_stage_count(ctx, &job, p), GPGPU_SUCCESS);
            EXPECT_STATUS(ctx, select_stage_scatter(ctx, &job, p), GPGPU_SUCCESS);
        } else {
            if (p.tiles > 1)
                EXPECT_STATUS(ctx, select_stage_clear(ctx, &job, p), GPGPU_SUCCESS);
            EXPECT_STATUS(ctx, select_stage_chained(ctx, &job, p, form == 2), GPGPU_SUCCESS);
        }
        memcpy(slab_at(&uniq, 1), want_unique, runs * ks);
        memcpy(slab_at(&starts, 3), want_starts, runs * 4);
        slab_check(&uniq, NULL, sw);
        slab_check(&starts, NULL, sw);
        total_at = 1 + select_total_at(p);
        uint32_t total = 0;
        EXPECT_STATUS(ctx, gpgpu_buffer_download(state.buf, total_at * 4, &total, 4),
                      GPGPU_SUCCESS);
        EXPECT(total == runs, "%s: %u runs, expected %u", sw, total, runs);
        slab_free(&uniq);
    }

    /* FINISH on those starts, with and without lengths. */
    for (int with_lengths = 1; with_lengths >= 0; with_lengths--) {
        char sw[260];
        snprintf(sw, sizeof sw, "%s: FINISH%s", what, with_lengths ? "" : " without lengths");
        slab lens = slab_make(ctx, GPGPU_TYPE_U32, 2, 0, n + 1, NULL);
        slab cout = slab_make(ctx, GPGPU_TYPE_U32, 0, 0, 3, NULL);
        rle_finish_args f = {.count = staged, .total = state.buf, .total_at = total_at,
                             .starts = starts.buf, .starts_off = 3, .runs_at = 3 + n + 2,
                             .lengths = with_lengths ? lens.buf : NULL, .lengths_off = 2,
                             .count_out = cout.buf, .count_out_off = 1, .n = n};
        EXPECT_STATUS(ctx, rle_stage_finish(ctx, &f), GPGPU_SUCCESS);
        uint32_t *st = slab_at(&starts, 3);
        ref_rle_finish(st, runs, real, with_lengths ? slab_at(&lens, 2) : NULL);
        st[n + 2] = runs;
        ((uint32_t *)cout.host)[1] = runs;
        slab_check(&lens, NULL, sw);
        slab_check(&starts, NULL, sw);
        slab_check(&cout, NULL, sw);
        slab_free(&cout);
        slab_free(&lens);
    }

    gpgpu_buffer_destroy(cb);
    slab_free(&starts);
    slab_free(&state);
    slab_free(&k);
    free(want_starts);
    free(want_unique);
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
    /* More runs than FINISH's groups hold invocations: its stride walks a second lap. */
    size_t laps = (size_t)RLE_FINISH_GROUPS * RLE_WG * 2 + 3;
    if (laps <= test_max_n())
        stages(t, laps, 1, NULL);
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
