/* The segmented reduction against its CPU twin (src/ref/ref_segreduce.c): PLAN (bit for bit),
 * TILES and FIX each alone, then gpgpu_segmented_reduce, for sum, min and max of every type on
 * segments empty, single, huge and millions of tiny ones (GPGPU_TEST_MAX_N caps them), the row
 * pointers of shared and generated matrices, offsets that start past 0 and end before the input's
 * end, NaN, infinities and -0 in min and max, the segment count from a GPU buffer (0, some, all,
 * past the bound), a scratch of the caller's, and the argument checks. Integers and min/max match
 * exactly (min/max of -0 and +0 as equals), float sums within gamma_d times the sum of |x| (d the
 * terms summed: any order of pairwise sums keeps that bound). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu/io.h"

#include "algo/segreduce.h"
#include "ref/ref.h"
#include "matrices/matrices.h"
#include "testlib.h"

static gpgpu_context *ctx;
static bool has_f64;

static const gpgpu_op ops[] = {GPGPU_OP_SUM, GPGPU_OP_MIN, GPGPU_OP_MAX};
static const char *const op_names[] = {"?", "sum", "min", "max"};

static uint64_t rng_state = 7;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------- segments */

/* How segments are laid over n elements. */
typedef enum {
    GEN_TINY,   /* lengths 0 to 3: about n / 1.5 segments, a quarter of them empty */
    GEN_SINGLE, /* one segment of all n */
    GEN_HUGE,   /* three huge segments between empty ones */
    GEN_MIXED,  /* mostly short, now and then up to 20000 long */
    GEN_INNER,  /* mixed, from element n / 10 to 9 n / 10 (offsets past 0, before n) */
    GEN_COUNT
} gen;

static const char *const gen_names[] = {"tiny", "single", "huge", "mixed", "inner"};

/* The offsets (malloc'ed, *nseg + 1 of them) of a layout over n elements. */
static uint32_t *make_segments(gen g, size_t n, size_t *nseg)
{
    size_t cap = n + 16, k = 0;
    uint32_t *o = xmalloc((cap + 1) * sizeof *o);
    size_t at = g == GEN_INNER ? n / 10 : 0, end = g == GEN_INNER ? n - n / 10 : n;
    o[k++] = (uint32_t)at;
    if (g == GEN_SINGLE) {
        o[k++] = (uint32_t)n;
    } else if (g == GEN_HUGE) {
        size_t cuts[] = {0, n / 2, n / 2 + 1, n};
        for (int c = 1; c < 4; c++) {
            o[k++] = (uint32_t)cuts[c - 1]; /* an empty segment before each */
            o[k++] = (uint32_t)cuts[c];
        }
        o[k++] = (uint32_t)n;
    } else {
        while (at < end && k < cap) {
            uint64_t r = rng();
            size_t len = g == GEN_TINY ? r % 4 : r % 64 == 0 ? r % 20000 : r % 12;
            at = at + len < end ? at + len : end;
            o[k++] = (uint32_t)at;
        }
    }
    *nseg = k - 1;
    return o;
}

/* n input values: test_random's, and for floats under min/max now and then NaN, +-inf, -0,
 * +0, so that they propagate (NaN) and compare (the rest) per segment. */
static void *make_input(gpgpu_type t, gpgpu_op op, size_t n)
{
    void *data = xmalloc(n * gpgpu_type_size(t) + 8);
    test_random(t, data, n, test_seed++);
    if (!is_float(t) || op == GPGPU_OP_SUM)
        return data;
    static const double special[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0};
    for (size_t i = 0; i < n; i++) {
        if (rng() % 512 != 0)
            continue;
        double v = special[rng() % 5];
        if (t == GPGPU_TYPE_F32)
            ((float *)data)[i] = (float)v;
        else
            ((double *)data)[i] = v;
    }
    return data;
}

/* Tolerances of float sums (bit-exact, or 0 for min/max, elsewhere): gamma_len * abs. */
static double *sum_tolerances(gpgpu_type t, gpgpu_op op, size_t len, size_t first, size_t count,
                              const long double *abs, const size_t *terms, size_t terms_fixed)
{
    double *tol = exact(len);
    if (!is_float(t))
        return tol;
    for (size_t i = 0; i < count; i++)
        tol[first + i] = op == GPGPU_OP_SUM
                             ? tolerance(t, terms ? terms[i] : terms_fixed, abs[i])
                             : 0;
    return tol;
}

/* ----------------------------------------------------------------- stages */

typedef struct fixture {
    gpgpu_type t;
    gpgpu_op op;
    size_t n, nseg;
    void *data;
    uint32_t *segs;
    slab in, seg;
} fixture;

static fixture fixture_make(gpgpu_type t, gpgpu_op op, gen g, size_t n)
{
    fixture f = {.t = t, .op = op, .n = n};
    f.segs = make_segments(g, n, &f.nseg);
    f.data = make_input(t, op, n);
    f.in = slab_make(ctx, t, 3, n, 1, f.data);
    f.seg = slab_make(ctx, GPGPU_TYPE_U32, 2, f.nseg + 1, 1, f.segs);
    return f;
}

static void fixture_free(fixture *f)
{
    slab_free(&f->in);
    slab_free(&f->seg);
    free(f->data);
    free(f->segs);
}

/* Each segment's element count (how many terms its sum has). */
static size_t *segment_lengths(const fixture *f)
{
    size_t *len = xmalloc((f->nseg + 1) * sizeof *len);
    for (size_t s = 0; s < f->nseg; s++)
        len[s] = f->segs[s + 1] - f->segs[s];
    return len;
}

/* PLAN, TILES and FIX one after another on the driver's plan, each checked against its twin
 * on the GPU's own output of the stage before (downloaded), output from element 1. */
static void stages(const fixture *f, const char *name)
{
    gpgpu_type t = f->t;
    size_t size = gpgpu_type_size(t);
    segreduce_plan p = segreduce_plan_for(f->n, f->nseg);
    char what[200];
    slab aux = slab_make(ctx, GPGPU_TYPE_U32, 1, 0, segreduce_aux_words(p) + 1, NULL);
    slab work = slab_make(ctx, t, 2, 0, segreduce_work_elems(p) + 1, NULL);
    slab out = slab_make(ctx, t, 1, 0, f->nseg + 2, NULL);
    segreduce_args a = {.type = t, .op = f->op, .in = f->in.buf, .in_off = 3, .n = f->n,
                        .seg = f->seg.buf, .seg_off = 2, .nseg = f->nseg, .out = out.buf,
                        .out_off = 1, .aux = aux.buf, .aux_off = 1, .work = work.buf,
                        .work_off = 2};
    uint32_t *rec = slab_at(&aux, 1), *plan = rec + 2 * (size_t)p.tiles;

    snprintf(what, sizeof what, "%s PLAN tiles=%u", name, p.tiles);
    EXPECT_STATUS(ctx, segreduce_stage_plan(ctx, &a, p), GPGPU_SUCCESS);
    ref_segreduce_plan(f->n, f->segs, f->nseg, p.step, p.slack, p.tiles, plan);
    slab_check(&aux, NULL, what);

    snprintf(what, sizeof what, "%s TILES tiles=%u", name, p.tiles);
    EXPECT_STATUS(ctx, segreduce_stage_tiles(ctx, &a, p), GPGPU_SUCCESS);
    long double *abs_out = xmalloc((f->nseg + 1) * sizeof *abs_out);
    long double *abs_work = xmalloc(segreduce_work_elems(p) * sizeof *abs_work);
    for (size_t i = 0; i < segreduce_work_elems(p); i++)
        abs_work[i] = 0;
    for (size_t s = 0; s < f->nseg; s++)
        abs_out[s] = 0;
    ref_segreduce_tiles(t, f->op, f->data, f->n, f->segs, f->nseg, plan, p.tiles, p.tile,
                        slab_at(&out, 1), abs_out, rec, slab_at(&work, 2), abs_work);
    size_t *len = segment_lengths(f);
    double *tol_out = sum_tolerances(t, f->op, out.len, 1, f->nseg, abs_out, len, 0);
    double *tol_work = sum_tolerances(t, f->op, work.len, 2, segreduce_work_elems(p), abs_work,
                                      NULL, p.tile);
    slab_check(&aux, NULL, what);
    slab_check(&work, tol_work, what);
    slab_check(&out, tol_out, what);

    /* FIX on the GPU's records and partials: the twin sums those (not its own). */
    gpgpu_buffer_download(work.buf, 0, work.host, work.len * size);
    if (p.tiles > 1) {
        snprintf(what, sizeof what, "%s FIX tiles=%u", name, p.tiles);
        EXPECT_STATUS(ctx, segreduce_stage_fix(ctx, &a, p), GPGPU_SUCCESS);
        long double *abs_fix = xmalloc((f->nseg + 1) * sizeof *abs_fix);
        for (size_t s = 0; s < f->nseg; s++)
            abs_fix[s] = 0;
        ref_segreduce_fix(t, f->op, f->nseg, rec, slab_at(&work, 2), p.tiles, slab_at(&out, 1),
                          abs_fix);
        /* A crossing segment's partials: at most one per tile of the run. */
        for (size_t s = 0; is_float(t) && f->op == GPGPU_OP_SUM && s < f->nseg; s++)
            if (abs_fix[s] > 0)
                tol_out[1 + s] = tolerance(t, p.tiles, abs_fix[s]);
        slab_check(&out, tol_out, what);
        free(abs_fix);
    }
    free(len);
    free(tol_out);
    free(tol_work);
    free(abs_out);
    free(abs_work);
    slab_free(&out);
    slab_free(&work);
    slab_free(&aux);
}

/* ------------------------------------------------------------------ calls */

/* gpgpu_segmented_reduce into element 2 of a poisoned output, checked whole against the
 * oracle; with `device` the segment count comes from a GPU buffer (clamped to nseg); with
 * `own` a scratch buffer of the caller's, poisoned, at offset 8. */
static void call(const fixture *f, const char *name, const uint32_t *device, bool own)
{
    gpgpu_type t = f->t;
    char what[240];
    snprintf(what, sizeof what, "%s gpgpu_segmented_reduce%s%u%s", name,
             device ? " count_buffer=" : "", device ? *device : 0, own ? " own scratch" : "");
    slab out = slab_make(ctx, t, 2, 0, f->nseg + 1, NULL);
    gpgpu_buffer *cb = NULL, *scratch = NULL;
    if (device) {
        uint32_t words[2] = {0xA5A5A5A5u, *device};
        cb = test_buffer(ctx, words, sizeof words);
    }
    gpgpu_segmented_reduce_desc desc = {.type = t, .op = f->op, .segments = f->seg.buf,
                                        .segments_offset = 2, .count_buffer = cb,
                                        .count_offset = 1};
    if (own) {
        size_t bytes;
        EXPECT_STATUS(ctx, gpgpu_segmented_reduce_scratch_size(ctx, &desc, f->n, f->nseg, &bytes),
                      GPGPU_SUCCESS);
        scratch = test_buffer(ctx, NULL, bytes + 16);
        desc.scratch = scratch;
        desc.scratch_offset = 8;
    }
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &desc, f->in.buf, 3, f->n, out.buf, 2, f->nseg),
                  GPGPU_SUCCESS);
    size_t real = device && *device < f->nseg ? *device : f->nseg;
    long double *abs = xmalloc((real + 1) * sizeof *abs);
    ref_segreduce(t, f->op, f->data, f->n, f->segs, real, slab_at(&out, 2), abs);
    size_t *len = segment_lengths(f);
    double *tol = sum_tolerances(t, f->op, out.len, 2, real, abs, len, 0);
    slab_check(&out, tol, what);
    slab_check(&f->in, NULL, what);
    free(tol);
    free(len);
    free(abs);
    gpgpu_buffer_destroy(scratch);
    gpgpu_buffer_destroy(cb);
    slab_free(&out);
}

static void run(gpgpu_type t, gpgpu_op op, gen g, size_t n, bool with_stages)
{
    char name[120];
    fixture f = fixture_make(t, op, g, n);
    snprintf(name, sizeof name, "%s %s %s n=%zu segments=%zu", gpgpu_type_name(t), op_names[op],
             gen_names[g], n, f.nseg);
    if (with_stages)
        stages(&f, name);
    call(&f, name, NULL, false);
    fixture_free(&f);
}

/* Every type, op and layout on a few sizes with the stages, then test_sizes in turn. */
static void sweep(size_t ti)
{
    gpgpu_type t = test_types[ti];
    static const size_t stage_sizes[] = {0, 1, 1000, 65537};
    for (size_t o = 0; o < 3; o++)
        for (int g = 0; g < GEN_COUNT; g++)
            for (size_t s = 0; s < sizeof stage_sizes / sizeof *stage_sizes; s++)
                if (stage_sizes[s] <= test_max_n())
                    run(t, ops[o], (gen)g, stage_sizes[s], true);
    for (size_t s = 0; test_sizes[s] != SIZE_MAX; s++)
        if (test_runs_size(s, ti))
            run(t, ops[s % 3], (gen)(s % GEN_COUNT), test_sizes[s], test_sizes[s] <= 65537);
}

/* Millions of tiny segments (as many as GPGPU_TEST_MAX_N allows) and a few huge ones. */
static void large(gpgpu_type t)
{
    size_t n = (size_t)1 << 21;
    if (n > test_max_n())
        n = test_max_n();
    run(t, GPGPU_OP_SUM, GEN_TINY, n, true);
    run(t, GPGPU_OP_MAX, GEN_HUGE, n, true);
}

/* The segment count from a GPU buffer, and the caller's own scratch. */
static void device_counts(gpgpu_type t)
{
    size_t n = 50000 < test_max_n() ? 50000 : test_max_n();
    fixture f = fixture_make(t, GPGPU_OP_SUM, GEN_MIXED, n);
    uint32_t counts[] = {0, 1, (uint32_t)f.nseg / 2, (uint32_t)f.nseg, (uint32_t)f.nseg + 1,
                         UINT32_MAX};
    char name[80];
    snprintf(name, sizeof name, "%s sum mixed n=%zu segments=%zu", gpgpu_type_name(t), n, f.nseg);
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
        call(&f, name, &counts[k], k % 2 == 1);
    call(&f, name, NULL, true);
    fixture_free(&f);
}

/* The row pointers of CSR matrices as segments and their values as the input (rounded to
 * f32 and as f64): a few of the shared matrices (GPGPU_MATRIX_DIR) and generated ones with
 * skewed rows. */
static void csr_case(const gpgpu_csr *a, const char *label)
{
    gpgpu_type types[] = {GPGPU_TYPE_F32, GPGPU_TYPE_F64};
    for (int k = 0; k < (has_f64 ? 2 : 1); k++) {
        gpgpu_type t = types[k];
        fixture f = {.t = t, .op = k ? GPGPU_OP_MAX : GPGPU_OP_SUM, .n = a->nnz, .nseg = a->rows};
        f.segs = xmalloc(((size_t)a->rows + 1) * 4);
        memcpy(f.segs, a->row_ptr, ((size_t)a->rows + 1) * 4);
        f.data = xmalloc(a->nnz * gpgpu_type_size(t) + 8);
        for (size_t e = 0; e < a->nnz; e++) {
            if (t == GPGPU_TYPE_F32)
                ((float *)f.data)[e] = (float)a->values[e];
            else
                ((double *)f.data)[e] = a->values[e];
        }
        f.in = slab_make(ctx, t, 3, f.n, 1, f.data);
        f.seg = slab_make(ctx, GPGPU_TYPE_U32, 2, f.nseg + 1, 1, f.segs);
        char name[200];
        snprintf(name, sizeof name, "%s %s %s rows=%u nnz=%zu", gpgpu_type_name(t),
                 op_names[f.op], label, a->rows, a->nnz);
        stages(&f, name);
        call(&f, name, NULL, false);
        fixture_free(&f);
    }
}

static void csr_offsets(void)
{
    /* The row pointers of real matrices as segments: by role, so that a clone without the
     * shared files runs the same cases on generated ones (tests/matrices). */
    static const char *const roles[] = {"GENERAL", "SPD", "PATTERN_SYMMETRIC", "RECTANGULAR"};
    for (size_t k = 0; k < sizeof roles / sizeof *roles; k++) {
        const char *path = test_matrix(roles[k]);
        EXPECT(path != NULL, "no matrix for the role %s", roles[k]);
        if (path == NULL)
            continue;
        char msg[512];
        gpgpu_csr a = {0};
        gpgpu_status st = gpgpu_mtx_read_matrix(path, &a, NULL, msg, sizeof msg);
        EXPECT(st == GPGPU_SUCCESS, "%s: %s", path, msg);
        if (st == GPGPU_SUCCESS && a.nnz <= test_max_n())
            csr_case(&a, roles[k]);
        gpgpu_csr_free(&a);
    }
    gpgpu_generator gens[] = {GPGPU_GEN_POWER_LAW, GPGPU_GEN_DENSE_ROW, GPGPU_GEN_RMAT};
    const char *gen_labels[] = {"power_law", "dense_row", "rmat"};
    uint32_t sizes[] = {20000, 20000, 12};
    for (int g = 0; g < 3; g++) {
        gpgpu_csr a = test_generated(gens[g], sizes[g], 16);
        if (a.nnz <= test_max_n())
            csr_case(&a, gen_labels[g]);
        gpgpu_csr_free(&a);
    }
}

/* Written out: empty segments give the identity, integer sums wrap, NaN propagates. */
static void written_out(void)
{
    uint32_t u[] = {0xfffffff0u, 0x20u, 7, 3, 9};
    uint32_t segs[] = {0, 2, 2, 5, 5};
    struct { gpgpu_op op; uint32_t want[4]; } cases[] = {
        {GPGPU_OP_SUM, {0x10u, 0, 19, 0}},
        {GPGPU_OP_MIN, {0x20u, UINT32_MAX, 3, UINT32_MAX}},
        {GPGPU_OP_MAX, {0xfffffff0u, 0, 9, 0}},
    };
    slab in = slab_make(ctx, GPGPU_TYPE_U32, 0, 5, 0, u),
         seg = slab_make(ctx, GPGPU_TYPE_U32, 0, 5, 0, segs);
    for (int c = 0; c < 3; c++) {
        slab out = slab_make(ctx, GPGPU_TYPE_U32, 0, 0, 4, NULL);
        gpgpu_segmented_reduce_desc d = {.type = GPGPU_TYPE_U32, .op = cases[c].op,
                                         .segments = seg.buf};
        EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in.buf, 0, 5, out.buf, 0, 4),
                      GPGPU_SUCCESS);
        memcpy(out.host, cases[c].want, sizeof cases[c].want);
        char what[80];
        snprintf(what, sizeof what, "u32 %s written out", op_names[cases[c].op]);
        slab_check(&out, NULL, what);
        slab_free(&out);
    }
    slab_free(&in);
    float f[] = {1, NAN, 2, -INFINITY, 5};
    slab fin = slab_make(ctx, GPGPU_TYPE_F32, 0, 5, 0, f);
    float want_min[] = {NAN, INFINITY, -INFINITY, INFINITY},
          want_max[] = {NAN, -INFINITY, 5, -INFINITY};
    for (int c = 0; c < 2; c++) {
        slab out = slab_make(ctx, GPGPU_TYPE_F32, 0, 0, 4, NULL);
        gpgpu_segmented_reduce_desc d = {.type = GPGPU_TYPE_F32,
                                         .op = c ? GPGPU_OP_MAX : GPGPU_OP_MIN,
                                         .segments = seg.buf};
        EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, fin.buf, 0, 5, out.buf, 0, 4),
                      GPGPU_SUCCESS);
        memcpy(out.host, c ? want_max : want_min, sizeof want_min);
        slab_check(&out, NULL, c ? "f32 max written out" : "f32 min written out");
        slab_free(&out);
    }
    slab_free(&fin);
    slab_free(&seg);
}

/* Offsets out of order or past the input: values unspecified, but nothing written outside
 * the output and the call succeeds. */
static void bad_offsets(void)
{
    uint32_t segs[] = {5, 3, 900000, 2, 7, 0xffffffffu, 1};
    slab in = slab_make(ctx, GPGPU_TYPE_F32, 0, 10, 0, NULL);
    slab seg = slab_make(ctx, GPGPU_TYPE_U32, 0, 7, 0, segs);
    slab out = slab_make(ctx, GPGPU_TYPE_F32, 1, 0, 8, NULL);
    gpgpu_segmented_reduce_desc d = {
        .type = GPGPU_TYPE_F32, .op = GPGPU_OP_SUM, .segments = seg.buf};
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in.buf, 0, 10, out.buf, 1, 6),
                  GPGPU_SUCCESS);
    void *got = xmalloc(9 * 4);
    gpgpu_buffer_download(out.buf, 0, got, 9 * 4);
    EXPECT(memcmp(got, out.host, 4) == 0 &&
               memcmp((char *)got + 7 * 4, (char *)out.host + 7 * 4, 8) == 0,
           "offsets out of order: written outside the output");
    free(got);
    slab_free(&out);
    slab_free(&seg);
    slab_free(&in);
}

static void errors(void)
{
    gpgpu_buffer *in = test_buffer(ctx, NULL, 4096), *out = test_buffer(ctx, NULL, 4096);
    uint32_t segs[] = {0, 4, 10};
    gpgpu_buffer *seg = test_buffer(ctx, segs, sizeof segs);
    gpgpu_segmented_reduce_desc d = {.type = GPGPU_TYPE_F32, .op = GPGPU_OP_SUM, .segments = seg};
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(NULL, &d, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, NULL, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, NULL, 0, 10, out, 0, 2),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in, 0, 10, NULL, 0, 2),
                  GPGPU_ERROR_NULL_POINTER);
    gpgpu_segmented_reduce_desc bad = d;
    bad.segments = NULL;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &bad, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_NULL_POINTER);
    bad = d;
    bad.op = GPGPU_OP_MINMAX;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &bad, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    bad.op = (gpgpu_op)7;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &bad, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    bad = d;
    bad.type = (gpgpu_type)0;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &bad, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    /* Three offsets hold two segments, not three; ranges past the buffers. */
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in, 0, 10, out, 0, 3),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in, 1020, 10, out, 0, 2),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in, 0, 10, out, 1023, 2),
                  GPGPU_ERROR_OUT_OF_RANGE);
    /* Too many segments for the shaders' 32-bit indices: TOO_LARGE, as every count past
     * 2^31 - 2, before any range is looked at. */
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in, 0, 10, out, 0, SIZE_MAX),
                  GPGPU_ERROR_TOO_LARGE);
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in, 0, 10, out, 0, (size_t)1 << 31),
                  GPGPU_ERROR_TOO_LARGE);
    EXPECT(strstr(gpgpu_last_error(ctx), "2147483648 segments (at most 2^31 - 2)") != NULL,
           "the message names the segment count: %s", gpgpu_last_error(ctx));
    /* Overlaps: the output and the input, the offsets, the count. */
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in, 0, 10, in, 5, 2), GPGPU_ERROR_OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &d, in, 0, 10, seg, 1, 1), GPGPU_ERROR_OVERLAP);
    bad = d;
    bad.count_buffer = out;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &bad, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_OVERLAP);
    bad.count_offset = 1024;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &bad, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_OUT_OF_RANGE);
    /* The caller's scratch: too small, misaligned, overlapping. */
    size_t need;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce_scratch_size(ctx, &d, 10, 2, &need), GPGPU_SUCCESS);
    EXPECT(need > 0, "scratch size %zu", need);
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce_scratch_size(ctx, &d, 10, 2, NULL),
                  GPGPU_ERROR_NULL_POINTER);
    gpgpu_buffer *small = test_buffer(ctx, NULL, need);
    bad = d;
    bad.scratch = small;
    bad.scratch_offset = 8;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &bad, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_OUT_OF_MEMORY);
    bad.scratch_offset = 4;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &bad, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_MISALIGNED);
    bad.scratch = out;
    bad.scratch_offset = 0;
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &bad, in, 0, 10, out, 0, 2),
                  GPGPU_ERROR_OVERLAP);
    gpgpu_buffer_destroy(small);
    gpgpu_buffer_destroy(seg);
    gpgpu_buffer_destroy(in);
    gpgpu_buffer_destroy(out);
}

int main(void)
{
    ctx = test_context();
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    has_f64 = info.has_f64;
    errors();
    written_out();
    bad_offsets();
    csr_offsets();
    for (size_t ti = 0; ti < sizeof test_types / sizeof *test_types; ti++) {
        gpgpu_type t = test_types[ti];
        if (t == GPGPU_TYPE_F64 && !has_f64)
            continue;
        sweep(ti);
        device_counts(t);
        if (ti % 2 == 0)
            large(t);
    }
    gpgpu_context_destroy(ctx);
    return test_finish();
}
