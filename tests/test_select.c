/* The select family against its CPU twin (src/ref/ref_select.c): COUNT, SCATTER, CLEAR
 * and CHAINED of glsl/select.comp alone, then gpgpu_select for every type, keep mode,
 * algorithm and size, partitioned and not, with values and indices, with counts on the
 * GPU and the caller's scratch; the comparisons' floats (NaN, -0, inf); the errors.
 *
 * Every output is poisoned and downloaded whole: what the call writes must match the twin
 * bit for bit, everything else keep its poison. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/plans.h"
#include "algo/select.h"
#include "ref/ref.h"
#include "testlib.h"

static gpgpu_context *ctx;

enum { F_RANDOM, F_ALL, F_NONE, F_ALTERNATE, F_SPARSE, F_KINDS };
static const char *const flag_names[] = {"random flags", "all set", "none set", "alternating",
                                         "1 in 97"};

/* n flags of a kind; nonzero ones of several values (any nonzero keeps). */
static uint32_t *make_flags(int kind, size_t n, uint64_t seed)
{
    uint32_t *f = xmalloc(n * sizeof *f);
    uint64_t s = seed * 0x9e3779b97f4a7c15u + 7;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint32_t r = (uint32_t)(s >> 33);
        switch (kind) {
        case F_RANDOM: f[i] = r % 2 ? r | 1u : 0; break;
        case F_ALL: f[i] = 1 + r % 3; break;
        case F_NONE: f[i] = 0; break;
        case F_ALTERNATE: f[i] = i % 2 == 0; break;
        default: f[i] = i % 97 == 5 ? 0x80000000u : 0; break;
        }
    }
    return f;
}

/* A comparison's constant near the middle of test_random's values (about half kept). */
static double middle(gpgpu_type t)
{
    return t == GPGPU_TYPE_U32 ? 500.0 : t == GPGPU_TYPE_I32 ? -3.0 : 0.25;
}

/* One selection as both sides see it. */
typedef struct sel_case {
    gpgpu_type t;
    size_t n;          /* the bound with a count on the GPU */
    unsigned keep;     /* SELECT_KEEP_FLAGS or a gpgpu_compare */
    double value;
    int flags_kind;
    bool partition, values, indices;
    gpgpu_algo algo;
    int counted;       /* -1: no count_buffer; else the count it holds */
    bool count_out, scratch;
    const void *data;  /* NULL: random */
} sel_case;

static void describe(const sel_case *c, char *what, size_t size)
{
    static const char *const ops[] = {"", "<", "<=", ">", ">=", "==", "!="};
    char keep[64];
    if (c->keep == SELECT_KEEP_FLAGS)
        snprintf(keep, sizeof keep, "%s", flag_names[c->flags_kind]);
    else
        snprintf(keep, sizeof keep, "x %s %g", ops[c->keep], c->value);
    char counted[48] = "";
    if (c->counted >= 0)
        snprintf(counted, sizeof counted, ", count_buffer %d", c->counted);
    snprintf(what, size, "gpgpu_select %s %s n=%zu %s%s%s%s%s%s%s", gpgpu_type_name(c->t),
             algo_name(c->algo), c->n, keep, c->partition ? ", partition" : "",
             c->values ? ", values" : "", c->indices ? ", indices" : "", counted,
             c->count_out ? ", count_out" : "", c->scratch ? ", scratch" : "");
}

/* Runs a case through gpgpu_select at odd offsets and checks every buffer it touches. */
static void run_case(const sel_case *c)
{
    if (c->n > test_max_n())
        return;
    char what[300];
    describe(c, what, sizeof what);
    gpgpu_type t = c->t;
    size_t n = c->n, es = gpgpu_type_size(t);
    size_t real = c->counted < 0 ? n : (size_t)c->counted < n ? (size_t)c->counted : n;
    slab in = slab_make(ctx, t, 3, n, 2, c->data);
    uint32_t *flags = make_flags(c->flags_kind, n, test_seed++);
    slab fl = {0};
    if (c->keep == SELECT_KEEP_FLAGS)
        fl = slab_make(ctx, GPGPU_TYPE_U32, 1, n, 1, flags);
    slab out = slab_make(ctx, t, 5 + n + 2, 0, 0, NULL);
    slab vin = {0}, vout = {0}, idx = {0};
    if (c->values) {
        vin = slab_make(ctx, GPGPU_TYPE_U32, 2, n, 1, NULL);
        vout = slab_make(ctx, GPGPU_TYPE_U32, 4 + n + 1, 0, 0, NULL);
    }
    if (c->indices)
        idx = slab_make(ctx, GPGPU_TYPE_U32, 1 + n + 3, 0, 0, NULL);
    /* The count in, the count out: one buffer, words 1 and 3 among poison. */
    slab counts = slab_make(ctx, GPGPU_TYPE_U32, 5, 0, 0, NULL);
    if (c->counted >= 0) {
        ((uint32_t *)counts.host)[1] = (uint32_t)c->counted;
        EXPECT_STATUS(ctx, gpgpu_buffer_upload(counts.buf, 4, &c->counted, 4), GPGPU_SUCCESS);
    }
    gpgpu_select_desc d = {.type = t, .compare = (gpgpu_compare)c->keep, .value = c->value,
                           .partition = c->partition, .algo = c->algo};
    if (c->keep == SELECT_KEEP_FLAGS) {
        d.flags = fl.buf;
        d.flags_offset = 1;
    }
    if (c->values) {
        d.values_in = vin.buf;
        d.values_in_offset = 2;
        d.values_out = vout.buf;
        d.values_out_offset = 4;
    }
    if (c->indices) {
        d.indices_out = idx.buf;
        d.indices_out_offset = 1;
    }
    if (c->counted >= 0) {
        d.count_buffer = counts.buf;
        d.count_offset = 1;
    }
    if (c->count_out) {
        d.count_out = counts.buf;
        d.count_out_offset = 3;
    }
    slab scratch = {0};
    size_t need = 0;
    if (c->scratch) {
        EXPECT_STATUS(ctx, gpgpu_select_scratch_size(ctx, &d, n, &need), GPGPU_SUCCESS);
        scratch = slab_make(ctx, GPGPU_TYPE_U32, 2 + need / 4 + 3, 0, 0, NULL);
        d.scratch = scratch.buf;
        d.scratch_offset = 8;
        /* One word short: refused, nothing written. */
        gpgpu_select_desc d2 = d;
        gpgpu_buffer *small = test_buffer(ctx, NULL, 8 + need - 4);
        d2.scratch = small;
        EXPECT_STATUS(ctx, gpgpu_select(ctx, &d2, in.buf, 3, out.buf, 5, n, NULL),
                      GPGPU_ERROR_OUT_OF_MEMORY);
        gpgpu_buffer_destroy(small);
    }
    size_t selected = 12345;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, in.buf, 3, out.buf, 5, n, &selected),
                  GPGPU_SUCCESS);

    size_t k = ref_select(t, c->keep, c->value, c->partition, slab_at(&in, 3), flags,
                          c->values ? slab_at(&vin, 2) : NULL, real, slab_at(&out, 5),
                          c->values ? slab_at(&vout, 4) : NULL, c->indices ? slab_at(&idx, 1)
                                                                            : NULL);
    EXPECT(selected == k, "%s: selected %zu, expected %zu", what, selected, k);
    slab_check(&out, NULL, what);
    if (c->values)
        slab_check(&vout, NULL, what);
    if (c->indices)
        slab_check(&idx, NULL, what);
    if (c->count_out)
        ((uint32_t *)counts.host)[3] = (uint32_t)k;
    slab_check(&counts, NULL, what);
    char w[340];
    snprintf(w, sizeof w, "%s: inputs unchanged", what);
    slab_check(&in, NULL, w);
    if (c->keep == SELECT_KEEP_FLAGS)
        slab_check(&fl, NULL, w);
    if (c->values)
        slab_check(&vin, NULL, w);
    if (c->scratch) {
        /* Only [8, 8 + need) of the scratch may change. */
        uint32_t *got = xmalloc(scratch.len * 4);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(scratch.buf, 0, got, scratch.len * 4),
                      GPGPU_SUCCESS);
        size_t bad = 0;
        for (size_t i = 0; i < scratch.len; i++)
            bad += (i < 2 || i >= 2 + need / 4) && got[i] != 0xA5A5A5A5u;
        EXPECT(bad == 0, "%s: %zu words outside the scratch range changed", w, bad);
        free(got);
        slab_free(&scratch);
    }
    (void)es;
    free(flags);
    slab_free(&in);
    slab_free(&out);
    slab_free(&counts);
    if (c->keep == SELECT_KEEP_FLAGS)
        slab_free(&fl);
    if (c->values) {
        slab_free(&vin);
        slab_free(&vout);
    }
    if (c->indices)
        slab_free(&idx);
}

/* ------------------------------------------------------------- stages */

/* A job on slabs: input at 3, flags at 1, output at 5, values 2 -> 4, indices at 1. */
typedef struct staged {
    slab in, fl, out, vin, vout, idx;
    uint32_t *flags;
    select_job job;
} staged;

static staged staged_make(gpgpu_type t, size_t n, unsigned keep, int kind, bool partition)
{
    staged s = {0};
    s.in = slab_make(ctx, t, 3, n, 2, NULL);
    s.flags = make_flags(kind, n, test_seed++);
    s.fl = slab_make(ctx, GPGPU_TYPE_U32, 1, n, 1, s.flags);
    s.out = slab_make(ctx, t, 5 + n + 2, 0, 0, NULL);
    s.vin = slab_make(ctx, GPGPU_TYPE_U32, 2, n, 1, NULL);
    s.vout = slab_make(ctx, GPGPU_TYPE_U32, 4 + n + 1, 0, 0, NULL);
    s.idx = slab_make(ctx, GPGPU_TYPE_U32, 1 + n + 3, 0, 0, NULL);
    s.job = (select_job){.type = t, .keep = keep, .value = middle(t), .partition = partition,
                         .in = s.in.buf, .in_off = 3, .flags = s.fl.buf, .flags_off = 1,
                         .out = s.out.buf, .out_off = 5, .pay_in = s.vin.buf, .pay_in_off = 2,
                         .pay_out = s.vout.buf, .pay_out_off = 4, .idx_out = s.idx.buf,
                         .idx_out_off = 1, .n = n};
    return s;
}

/* The outputs against the twin (the state is the caller's to check). */
static void staged_check(staged *s, const char *what)
{
    const select_job *j = &s->job;
    ref_select(j->type, j->keep, j->value, j->partition, slab_at(&s->in, 3), s->flags,
               slab_at(&s->vin, 2), j->n, slab_at(&s->out, 5), slab_at(&s->vout, 4),
               slab_at(&s->idx, 1));
    slab_check(&s->out, NULL, what);
    slab_check(&s->vout, NULL, what);
    slab_check(&s->idx, NULL, what);
}

static void staged_free(staged *s)
{
    slab_free(&s->in);
    slab_free(&s->fl);
    slab_free(&s->out);
    slab_free(&s->vin);
    slab_free(&s->vout);
    slab_free(&s->idx);
    free(s->flags);
}

/* COUNT then SCATTER on a plan (tiles_per_group forced where asked), the partial counts
 * and the total against the twin's, the state's poison around them kept. */
static void stage_rts(gpgpu_type t, size_t n, unsigned keep, int kind, bool partition,
                      uint32_t tiles_per_group)
{
    select_plan p = select_plan_for(ctx, t, n, GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN, partition);
    if (tiles_per_group) {
        p.tiles_per_group = tiles_per_group;
        p.groups = (uint32_t)ceil_div(p.tiles, tiles_per_group);
        p.state_words = p.groups + 1;
    }
    char what[200];
    snprintf(what, sizeof what, "%s COUNT+SCATTER n=%zu keep %u %s%s groups=%u x %u tiles",
             gpgpu_type_name(t), n, keep, keep ? "" : flag_names[kind],
             partition ? " partition" : "", p.groups, p.tiles_per_group);
    staged s = staged_make(t, n, keep, kind, partition);
    slab state = slab_make(ctx, GPGPU_TYPE_U32, 2 + p.state_words + 2, 0, 0, NULL);
    s.job.state = state.buf;
    s.job.state_off = 2;
    EXPECT_STATUS(ctx, select_stage_count(ctx, &s.job, p), GPGPU_SUCCESS);
    uint32_t *part = (uint32_t *)state.host + 2;
    ref_select_count(t, keep, s.job.value, slab_at(&s.in, 3), s.flags, n, p.groups,
                     p.tiles_per_group, p.wg * p.items, part);
    char cw[220];
    snprintf(cw, sizeof cw, "%s: COUNT", what);
    slab_check(&state, NULL, cw);
    EXPECT_STATUS(ctx, select_stage_scatter(ctx, &s.job, p), GPGPU_SUCCESS);
    uint32_t total = 0;
    for (uint32_t g = 0; g < p.groups; g++)
        total += part[g];
    part[p.groups] = total;
    slab_check(&state, NULL, what);
    staged_check(&s, what);
    slab_free(&state);
    staged_free(&s);
}

/* CLEAR and CHAINED, the look-back as it runs or forced to count every predecessor again
 * (FORCED_TILES tiles at most: that costs tiles^2 / 2 tile reads), the tiles taken by
 * ticket or by group index. */
enum { FORCED_TILES = 40 };
static void stage_chained(gpgpu_type t, size_t n, unsigned keep, int kind, bool force,
                          bool ticket)
{
    select_plan p = select_plan_for(ctx, t, n, GPGPU_ALGO_SCAN_SINGLE_PASS, false);
    p.ticket = ticket;
    char what[200];
    snprintf(what, sizeof what, "%s CHAINED n=%zu keep %u %s tiles=%u%s%s", gpgpu_type_name(t),
             n, keep, keep ? "" : flag_names[kind], p.tiles, force ? " recounting" : "",
             ticket ? " by ticket" : "");
    staged s = staged_make(t, n, keep, kind, false);
    slab state = slab_make(ctx, GPGPU_TYPE_U32, 1 + p.state_words + 2, 0, 0, NULL);
    s.job.state = state.buf;
    s.job.state_off = 1;
    uint32_t *st = (uint32_t *)state.host + 1;
    if (p.tiles > 1) {
        EXPECT_STATUS(ctx, select_stage_clear(ctx, &s.job, p), GPGPU_SUCCESS);
        memset(st, 0, p.state_words * 4);
        char cw[220];
        snprintf(cw, sizeof cw, "%s: CLEAR", what);
        slab_check(&state, NULL, cw);
    }
    EXPECT_STATUS(ctx, select_stage_chained(ctx, &s.job, p, force), GPGPU_SUCCESS);
    uint32_t *want = xmalloc(p.state_words * 4);
    ref_select_chained_state(t, keep, s.job.value, slab_at(&s.in, 3), s.flags, n,
                             p.wg * p.items, p.tiles, p.ticket, want);
    if (p.tiles > 1)
        memcpy(st, want, p.state_words * 4);
    else
        st[1] = want[1]; /* one tile: no ticket, no status, only the total */
    slab_check(&state, NULL, what);
    staged_check(&s, what);
    free(want);
    slab_free(&state);
    staged_free(&s);
}

/* -------------------------------------------------------------- sweeps */

static const gpgpu_algo algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_SCAN_SINGLE_PASS,
                                   GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN};

/* Every size for a type: flags of a kind and a comparison, options varied with the size. */
static void sizes(size_t ti)
{
    gpgpu_type t = test_types[ti];
    for (size_t s = 0; test_sizes[s] != SIZE_MAX; s++) {
        if (!test_runs_size(s, ti))
            continue;
        size_t n = test_sizes[s];
        for (size_t a = 0; a < 3; a++) {
            sel_case c = {.t = t, .n = n, .keep = SELECT_KEEP_FLAGS,
                          .flags_kind = (int)((s + a) % F_KINDS), .partition = (s + a) % 3 == 1,
                          .values = (s + a) % 2 == 0, .indices = (s + ti + a) % 2 == 0,
                          .algo = algos[a], .counted = -1, .count_out = s % 4 == 1};
            if (c.partition && c.algo == GPGPU_ALGO_SCAN_SINGLE_PASS)
                c.algo = GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN;
            run_case(&c);
            c.keep = 1 + (unsigned)((s + ti + a) % 6);
            c.value = middle(t);
            c.partition = (s + a) % 3 == 2 && c.algo != GPGPU_ALGO_SCAN_SINGLE_PASS;
            run_case(&c);
        }
    }
}

/* Every flag kind and comparison, partitioned and not, on a few sizes. */
static void kinds(size_t ti)
{
    gpgpu_type t = test_types[ti];
    static const size_t ns[] = {1000, 65537};
    for (size_t s = 0; s < 2; s++)
        for (int part = 0; part < 2; part++) {
            for (int k = 0; k < F_KINDS; k++) {
                sel_case c = {.t = t, .n = ns[s], .flags_kind = k, .partition = part,
                              .values = (k + part) % 2 == 1, .indices = k % 2 == 0,
                              .counted = -1};
                run_case(&c);
            }
            for (unsigned op = 1; op <= 6; op++) {
                sel_case c = {.t = t, .n = ns[s], .keep = op, .value = middle(t),
                              .partition = part, .values = op % 2 == 0, .indices = op % 3 == 0,
                              .counted = -1};
                run_case(&c);
            }
        }
}

/* Comparisons against the floats C treats apart: NaN (kept by != alone), -0 and +0
 * (equal), infinities, the smallest denormals of f32 and f64 (above -0, below +0: a device
 * that flushes them must not compare them as 0); constants NaN, -0, inf and a denormal too. */
static void float_cases(gpgpu_type t)
{
    enum { N = 5003 };
    void *data = xmalloc(N * 8);
    test_random(t, data, N, test_seed++);
    static const double special[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 0.25, -NAN,
                                     1e-45, -1e-45, 5e-324, -5e-324};
    enum { SPECIALS = sizeof special / sizeof special[0] };
    for (size_t i = 0; i < N; i += 3) {
        double v = special[(i / 3) % SPECIALS];
        if (t == GPGPU_TYPE_F32)
            ((float *)data)[i] = (float)v;
        else
            ((double *)data)[i] = v;
    }
    static const double values[] = {0.0, -0.0, NAN, INFINITY, 0.25, -1e-45};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
        for (unsigned op = 1; op <= 6; op++) {
            sel_case c = {.t = t, .n = N, .keep = op, .value = values[v],
                          .partition = (op + v) % 2 == 0, .indices = true, .counted = -1,
                          .data = data, .algo = algos[(op + v) % 3]};
            if (c.partition && c.algo == GPGPU_ALGO_SCAN_SINGLE_PASS)
                c.algo = GPGPU_ALGO_DEFAULT;
            run_case(&c);
        }
    free(data);
}

/* Integer comparisons at the type's ends. */
static void integer_cases(gpgpu_type t)
{
    enum { N = 3001 };
    uint32_t *data = xmalloc(N * 4);
    test_random(t, data, N, test_seed++);
    bool u = t == GPGPU_TYPE_U32;
    for (size_t i = 0; i < N; i += 5)
        data[i] = i % 2 ? (u ? 0xFFFFFFFFu : 0x80000000u) : (u ? 0u : 0x7FFFFFFFu);
    double ends[] = {u ? 0.0 : -2147483648.0, u ? 4294967295.0 : 2147483647.0};
    for (int e = 0; e < 2; e++)
        for (unsigned op = 1; op <= 6; op++) {
            sel_case c = {.t = t, .n = N, .keep = op, .value = ends[e], .partition = op % 2,
                          .values = true, .counted = -1, .data = data};
            run_case(&c);
        }
    free(data);
}

/* Counts on the GPU: 0, 1, between, the bound and past it (clamped), with count_out. */
static void device_counts(size_t ti)
{
    gpgpu_type t = test_types[ti];
    static const size_t bounds[] = {1, 4096, 70001};
    for (size_t b = 0; b < 3; b++) {
        size_t n = bounds[b];
        int reals[] = {0, 1, (int)(n / 3 + 1), (int)n, (int)n + 9};
        for (size_t r = 0; r < 5; r++)
            for (size_t a = 0; a < 3; a++) {
                sel_case c = {.t = t, .n = n, .keep = (r + a) % 2 ? 3 : SELECT_KEEP_FLAGS,
                              .value = middle(t), .flags_kind = (int)(r % F_KINDS),
                              .partition = a == 2 && r % 2 == 0, .values = (r + ti) % 2 == 1,
                              .indices = true, .algo = algos[a], .counted = reals[r],
                              .count_out = true};
                run_case(&c);
            }
    }
}

/* The caller's scratch, for each algorithm and partition. */
static void scratch_cases(size_t ti)
{
    for (size_t a = 0; a < 3; a++)
        for (int part = 0; part < 2; part++) {
            if (part && algos[a] == GPGPU_ALGO_SCAN_SINGLE_PASS)
                continue;
            sel_case c = {.t = test_types[ti], .n = 20011, .flags_kind = F_RANDOM,
                          .partition = part, .values = true, .algo = algos[a], .counted = -1,
                          .count_out = true, .scratch = true};
            run_case(&c);
        }
}

/* ------------------------------------------------------------- errors */

#define EXPECT_MESSAGE(text)                                                                 \
    EXPECT(strstr(gpgpu_last_error(ctx), text) != NULL, "expected a message with '%s': '%s'", \
           text, gpgpu_last_error(ctx))

static void errors(void)
{
    const gpgpu_status E_NULL = GPGPU_ERROR_NULL_POINTER,
                       E_INVALID = GPGPU_ERROR_INVALID_ARGUMENT,
                       E_COMBO = GPGPU_ERROR_UNSUPPORTED_COMBINATION,
                       E_RANGE = GPGPU_ERROR_OUT_OF_RANGE, E_OVERLAP = GPGPU_ERROR_OVERLAP,
                       E_ALIGN = GPGPU_ERROR_MISALIGNED, E_OOM = GPGPU_ERROR_OUT_OF_MEMORY;
    slab a = slab_make(ctx, GPGPU_TYPE_U32, 0, 100, 0, NULL);
    slab b = slab_make(ctx, GPGPU_TYPE_U32, 0, 100, 0, NULL);
    slab f = slab_make(ctx, GPGPU_TYPE_U32, 0, 100, 0, NULL);
    const gpgpu_select_desc ok = {.type = GPGPU_TYPE_U32, .flags = f.buf};
    gpgpu_select_desc d = ok;
    size_t k = 0, bytes = 0;

    EXPECT_STATUS(NULL, gpgpu_select(NULL, &d, a.buf, 0, b.buf, 0, 10, &k), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_select(ctx, NULL, a.buf, 0, b.buf, 0, 10, &k), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, NULL, 0, b.buf, 0, 10, &k), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, NULL, 0, 10, &k), E_NULL);
    d.type = (gpgpu_type)9;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_INVALID);
    d = ok;
    d.algo = GPGPU_ALGO_RADIX;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_COMBO);
    EXPECT_MESSAGE("is not a selection's");
    d.algo = (gpgpu_algo)99;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_INVALID);
    d = ok;
    d.partition = true;
    d.algo = GPGPU_ALGO_SCAN_SINGLE_PASS;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_COMBO);
    EXPECT_MESSAGE("a partition runs reduce-then-scan");
    d = ok;
    d.compare = GPGPU_COMPARE_LT;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_INVALID);
    EXPECT_MESSAGE("both flags and a comparison");
    d.flags = NULL;
    d.compare = GPGPU_COMPARE_NONE;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_INVALID);
    EXPECT_MESSAGE("neither flags nor a comparison");
    d.compare = (gpgpu_compare)7;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_INVALID);
    EXPECT_MESSAGE("unknown comparison 7");
    static const double bad_u32[] = {0.5, -1.0, 4294967296.0, NAN};
    for (int i = 0; i < 4; i++) {
        d = (gpgpu_select_desc){.type = GPGPU_TYPE_U32, .compare = GPGPU_COMPARE_EQ,
                                .value = bad_u32[i]};
        EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_INVALID);
        EXPECT_MESSAGE("is not one of type u32");
    }
    d = (gpgpu_select_desc){.type = GPGPU_TYPE_I32, .compare = GPGPU_COMPARE_EQ,
                            .value = 2147483648.0};
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_INVALID);
    EXPECT_MESSAGE("is not one of type i32");
    d = ok;
    d.values_in = b.buf;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 50, 10, &k), E_INVALID);
    EXPECT_MESSAGE("values_in without values_out");
    d = ok;
    d.values_out = b.buf;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 50, 10, &k), E_INVALID);
    EXPECT_MESSAGE("values_out without values_in");
    /* Ranges. */
    d = ok;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 95, b.buf, 0, 10, &k), E_RANGE);
    EXPECT_MESSAGE("gpgpu_select (input)");
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 91, 10, &k), E_RANGE);
    EXPECT_MESSAGE("gpgpu_select (output)");
    d.flags_offset = 91;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_RANGE);
    EXPECT_MESSAGE("gpgpu_select (flags)");
    d = ok;
    d.indices_out = f.buf;
    d.indices_out_offset = 99;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_RANGE);
    EXPECT_MESSAGE("gpgpu_select (indices_out)");
    d = ok;
    d.count_buffer = f.buf;
    d.count_offset = 100;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_RANGE);
    EXPECT_MESSAGE("gpgpu_select (count_buffer)");
    d = ok;
    d.count_out = f.buf;
    d.count_out_offset = 100;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_RANGE);
    EXPECT_MESSAGE("gpgpu_select (count_out)");
    /* Overlaps: every written range against the others. */
    d = ok;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, a.buf, 5, 10, &k), E_OVERLAP);
    EXPECT_MESSAGE("the output and the input overlap");
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, f.buf, 5, 10, &k), E_OVERLAP);
    EXPECT_MESSAGE("the output and the flags overlap");
    d.indices_out = b.buf;
    d.indices_out_offset = 9;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_OVERLAP);
    EXPECT_MESSAGE("indices_out and the output overlap");
    d = ok;
    d.count_out = b.buf;
    d.count_out_offset = 3;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_OVERLAP);
    EXPECT_MESSAGE("count_out and the output overlap");
    d.count_out_offset = 20;
    d.count_buffer = b.buf;
    d.count_offset = 20; /* the count in and out in one word: allowed */
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, NULL), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(b.buf, 0, b.host, b.len * 4), GPGPU_SUCCESS);
    /* Scratch. */
    d = ok;
    d.scratch = b.buf;
    d.scratch_offset = 2;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, f.buf, 50, 10, &k), E_ALIGN);
    d.scratch_offset = 400;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, f.buf, 50, 10, &k), E_OOM);
    EXPECT_MESSAGE("this selection needs");
    d.scratch_offset = 0;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 10, &k), E_OVERLAP);
    EXPECT_MESSAGE("the scratch memory and the output overlap");
    EXPECT_STATUS(ctx, gpgpu_select_scratch_size(ctx, &d, 10, NULL), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_select_scratch_size(ctx, NULL, 10, &bytes), E_NULL);
    d.algo = GPGPU_ALGO_BITONIC;
    EXPECT_STATUS(ctx, gpgpu_select_scratch_size(ctx, &d, 10, &bytes), E_COMBO);
    d.algo = GPGPU_ALGO_SCAN_SINGLE_PASS;
    d.partition = true;
    EXPECT_STATUS(ctx, gpgpu_select_scratch_size(ctx, &d, 10, &bytes), E_COMBO);
    d.partition = false;
    EXPECT_STATUS(ctx, gpgpu_select_scratch_size(ctx, &d, 8192, &bytes), GPGPU_SUCCESS);
    EXPECT(bytes == 4 * (2 + 2), "the single pass over 8192 elements: %zu bytes of scratch, "
           "expected a ticket, the total and 2 tiles' words", bytes);
    /* n = 0: nothing written but count_out, *selected 0. */
    d = ok;
    d.count_out = f.buf;
    d.count_out_offset = 7;
    k = 99;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, a.buf, 0, b.buf, 0, 0, &k), GPGPU_SUCCESS);
    EXPECT(k == 0, "n = 0: selected %zu", k);
    ((uint32_t *)f.host)[7] = 0;
    slab_check(&f, NULL, "n = 0: count_out 0, nothing else");
    slab_check(&b, NULL, "n = 0: the output untouched");
    slab_check(&a, NULL, "the refused calls touch nothing");
    /* A buffer of another context. */
    gpgpu_context *other = test_context();
    gpgpu_buffer *theirs = test_buffer(other, NULL, 64);
    d = ok;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &d, theirs, 0, b.buf, 0, 10, &k), E_INVALID);
    gpgpu_buffer_destroy(theirs);
    gpgpu_context_destroy(other);
    slab_free(&a);
    slab_free(&b);
    slab_free(&f);
}

/* The stages and whole calls at other plans (algo_plans_set, as GPGPU_TUNE makes them):
 * every element stored by its invocation (select_staged=0), the whole tile staged at once
 * (the single pass's values then held in shared memory through its look-back), small
 * tiles of many groups staged and not, a tile of 32 rows (every bit of the keep mask) in 8
 * parts, the single pass staged and the counting-first scatter not (NVIDIA GL's default). */
static void other_plans(void)
{
    static const struct {
        unsigned wg, items;
        algo_mode staged, scatter_staged;
        unsigned parts;
    } plans[] = {{SELECT_WG, SELECT_ITEMS, ALGO_NEVER, ALGO_NEVER, 1},
                 {SELECT_WG, SELECT_ITEMS, ALGO_ALWAYS, ALGO_ALWAYS, 1},
                 {64, 4, ALGO_ALWAYS, ALGO_ALWAYS, 2},
                 {32, 2, ALGO_NEVER, ALGO_NEVER, 1},
                 {128, 32, ALGO_ALWAYS, ALGO_ALWAYS, 8},
                 {SELECT_WG, SELECT_ITEMS, ALGO_ALWAYS, ALGO_NEVER, SELECT_STAGED_PARTS}};
    static const size_t ns[] = {1, 4097, 65537};
    algo_plans saved = algo_plans_get(ctx);
    EXPECT(saved.select.staged == ALGO_ALWAYS &&
               (select_plan_for(ctx, GPGPU_TYPE_F64, 100, GPGPU_ALGO_DEFAULT, false).staged ||
                ctx->info.max_shared_memory_bytes < 32768),
           "the default plan stores no selection staged");
    for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
        algo_plans p = saved;
        p.select.wg = plans[i].wg;
        p.select.items = plans[i].items;
        p.select.staged = plans[i].staged;
        p.select.scatter_staged = plans[i].scatter_staged;
        p.select.staged_parts = plans[i].parts;
        algo_plans_set(ctx, &p);
        for (size_t ti = i % 2; ti < 4; ti += 2) { /* half the types a plan, in turn */
            gpgpu_type t = test_types[ti];
            select_plan sp = select_plan_for(ctx, t, 1000, GPGPU_ALGO_DEFAULT, true);
            EXPECT((plans[i].staged == ALGO_ALWAYS || !sp.staged) &&
                       (plans[i].scatter_staged == ALGO_ALWAYS || !sp.scatter_staged),
                   "select_staged=0: a %s plan still staged", gpgpu_type_name(t));
            for (size_t s = 0; s < sizeof ns / sizeof *ns; s++) {
                size_t n = ns[s];
                if (n > test_max_n() || !test_runs_large(n, s + ti + i))
                    continue;
                unsigned keep = (s + ti) % 2 ? 1 + (unsigned)((s + ti + i) % 6)
                                             : SELECT_KEEP_FLAGS;
                int kind = (int)((s + ti + i) % F_KINDS);
                stage_rts(t, n, keep, kind, (s + i) % 2 == 0, 0);
                stage_chained(t, n, keep, kind, false,
                              select_plan_for(ctx, t, n, GPGPU_ALGO_DEFAULT, false).ticket);
                sel_case c = {.t = t, .n = n, .keep = keep, .value = middle(t),
                              .flags_kind = kind, .partition = (s + i) % 2 == 1,
                              .values = true, .indices = (s + ti) % 2 == 0,
                              .algo = algos[(s + ti + i) % 3], .counted = -1};
                if (c.partition && c.algo == GPGPU_ALGO_SCAN_SINGLE_PASS)
                    c.algo = GPGPU_ALGO_DEFAULT;
                run_case(&c);
            }
        }
    }
    algo_plans_set(ctx, &saved);
}

int main(void)
{
    ctx = test_context();
    /* The stages alone. */
    static const size_t stage_sizes[] = {0, 1, 33, 4095, 4096, 4097, 65537, 262145};
    for (size_t ti = 0; ti < 4; ti++) {
        gpgpu_type t = test_types[ti];
        for (size_t s = 0; s < sizeof stage_sizes / sizeof *stage_sizes; s++) {
            size_t n = stage_sizes[s];
            if (n > test_max_n() || !test_runs_large(n, s + ti))
                continue;
            unsigned keep = (s + ti) % 2 ? 1 + (unsigned)((s + ti) % 6) : SELECT_KEEP_FLAGS;
            int kind = (int)((s + ti) % F_KINDS);
            stage_rts(t, n, keep, kind, s % 2 == 0, 0);
            stage_rts(t, n, SELECT_KEEP_FLAGS, (kind + 1) % F_KINDS, s % 2 == 1, 3);
            select_plan p = select_plan_for(ctx, t, n, GPGPU_ALGO_SCAN_SINGLE_PASS, false);
            stage_chained(t, n, keep, kind, false, s % 2 == 1);
            if (p.tiles <= FORCED_TILES)
                stage_chained(t, n, SELECT_KEEP_FLAGS, (kind + 2) % F_KINDS, true, s % 2 == 0);
        }
    }
    for (size_t ti = 0; ti < 4; ti++) {
        sizes(ti);
        kinds(ti);
        device_counts(ti);
        scratch_cases(ti);
        if (is_float(test_types[ti]))
            float_cases(test_types[ti]);
        else
            integer_cases(test_types[ti]);
    }
    other_plans();
    errors();
    gpgpu_context_destroy(ctx);
    return test_finish();
}
