/* The reduction family against the CPU reference (src/ref): each stage of
 * glsl/reduce.comp alone, then gpgpu_reduce for every type, operator,
 * algorithm and size, then edge cases (n = 0, NaN, wrapping, infinities).
 *
 * Every stage runs on poisoned buffers, and the WHOLE buffer is downloaded
 * and held against a host image to which the reference applied the same
 * stage: elements the stage writes must match, all others keep their poison
 * (or, for in-place steps, their old value). Integers and single-operation
 * stages match bit for bit; float sums within the bound of tolerance(). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/reduce.h"
#include "ref/ref.h"
#include "testlib.h"

static gpgpu_context *ctx;
static unsigned wg_depth; /* depth of a work-group combine, see depth_of_wg in testlib.c */

/* ------------------------------------------------------------ reduce */

static const gpgpu_op ops[] = {GPGPU_OP_SUM, GPGPU_OP_MIN, GPGPU_OP_MAX, GPGPU_OP_MINMAX};
static const char *const op_names[] = {"?", "sum", "min", "max", "minmax"};
static const char *const algo_names[] = {"DEFAULT", "FAST", "CLASSIC_HALVING", "CLASSIC_STRIDE",
                                         "CLASSIC_MINMAX", "CLASSIC_SCAN"};
enum { CLASSIC_LIMIT = 1 << 20 };

/* TILES' block (REDUCE_WG * items per invocation), from the plan so that the
 * test follows whatever the driver uses. */
static size_t block_size(void) { return reduce_plan_for(ctx, 1).block; }

/* Depth of TILES' summation tree with `groups` groups over n elements: each
 * invocation adds block / REDUCE_WG elements per block serially into one
 * accumulator, over the ceil(blocks / groups) blocks of its group (the
 * first addition, to the identity 0, is exact but counted), then the
 * work-group combine. */
static size_t tiles_depth(size_t n, size_t groups)
{
    return block_size() / REDUCE_WG * ceil_div(ceil_div(n, block_size()), groups) + wg_depth;
}

/* The fast driver: TILES over the plan, then (groups > 1) TILES over the
 * groups' results in one group; the depths add. */
static size_t fast_depth(size_t n)
{
    reduce_plan p = reduce_plan_for(ctx, n);
    return tiles_depth(n, p.groups) + (p.groups > 1 ? tiles_depth(p.groups, 1) : 0);
}

static bool float_sum(gpgpu_type t, gpgpu_op op) { return op == GPGPU_OP_SUM && is_float(t); }

#define LABEL(buf, t, op, fmt, ...)                                                      \
    snprintf(buf, sizeof buf, "%s %s " fmt, gpgpu_type_name(t), op_names[op], __VA_ARGS__)

/* TILES from element 3 of a source into V elements from element 1 of dst. */
static void stage_tiles(gpgpu_type t, gpgpu_op op, size_t n, uint32_t groups, bool pairs)
{
    size_t w = reduce_width(op), ns = pairs && op == GPGPU_OP_MINMAX ? 2 * n : n;
    char what[160];
    LABEL(what, t, op, "TILES n=%zu groups=%u pairs=%d", n, groups, pairs);
    slab src = slab_make(ctx, t, 3, ns, 2, NULL), dst = slab_make(ctx, t, 1 + groups * w + 2, 0, 0, NULL);
    reduce_source from = {.buf = src.buf, .off = 3};
    EXPECT_STATUS(ctx, reduce_stage_tiles(ctx, t, op, from, n, pairs, dst.buf, 1, groups),
                  GPGPU_SUCCESS);
    long double *abs = xmalloc(groups * sizeof *abs);
    ref_reduce_tiles(t, op, slab_at(&src, 3), n, pairs, groups, (uint32_t)block_size(),
                     slab_at(&dst, 1), abs);
    double *tol = exact(dst.len);
    for (uint32_t g = 0; float_sum(t, op) && g < groups; g++)
        tol[1 + g] = tolerance(t, tiles_depth(n, groups), abs[g]);
    slab_check(&dst, tol, what);
    slab_check(&src, NULL, what); /* the source is read only */
    free(tol);
    free(abs);
    slab_free(&src);
    slab_free(&dst);
}

/* TILES with the fold, from element 3 of a source: part as TILES (from
 * element 0), the fold's result at element 2 of out (poison around it), the
 * counter back at 0 with its neighbour untouched; min/max bit-exact, float
 * sums within the two levels' depth (the fold reads the groups' values as
 * one group's blocks would, ITEMS per invocation at a time, then the
 * work-group combine: the depth of TILES with one group over them). */
static void stage_fold(gpgpu_type t, gpgpu_op op, size_t n, uint32_t groups)
{
    size_t w = reduce_width(op);
    char what[160];
    LABEL(what, t, op, "TILES+FOLD n=%zu groups=%u", n, groups);
    slab src = slab_make(ctx, t, 3, n, 2, NULL);
    slab part = slab_make(ctx, t, groups * w + 2, 0, 0, NULL);
    slab out = slab_make(ctx, t, 2 + w + 1, 0, 0, NULL);
    uint32_t zero[2] = {0, 7};
    slab counter = slab_make(ctx, GPGPU_TYPE_U32, 0, 2, 0, zero);
    reduce_source from = {.buf = src.buf, .off = 3};
    EXPECT_STATUS(ctx,
                  reduce_stage_fold(ctx, t, op, from, n, part.buf, counter.buf, out.buf, 2, groups),
                  GPGPU_SUCCESS);
    long double *abs = xmalloc(groups * sizeof *abs), abs_all = 0;
    ref_reduce_tiles(t, op, slab_at(&src, 3), n, false, groups, (uint32_t)block_size(),
                     part.host, abs);
    double *tol = exact(part.len);
    for (uint32_t g = 0; float_sum(t, op) && g < groups; g++) {
        tol[g] = tolerance(t, tiles_depth(n, groups), abs[g]);
        abs_all += abs[g];
    }
    slab_check(&part, tol, what);
    free(tol);
    ref_reduce_tiles(t, op, part.host, groups, op == GPGPU_OP_MINMAX, 1,
                     (uint32_t)block_size(), slab_at(&out, 2), NULL);
    tol = exact(out.len);
    if (float_sum(t, op))
        tol[2] = tolerance(t, tiles_depth(n, groups) + tiles_depth(groups, 1), abs_all);
    slab_check(&out, tol, what);
    slab_check(&counter, NULL, what); /* 0 again, 7 untouched */
    free(tol);
    free(abs);
    slab_free(&src);
    slab_free(&part);
    slab_free(&out);
    slab_free(&counter);
}

/* The classic steps, each once on fresh random data; bit-exact. */
static void stage_classic(gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t w = reduce_width(op);
    char what[160];

    LABEL(what, t, op, "EXPAND n=%zu", n);
    slab src = slab_make(ctx, t, 3, n, 2, NULL), dst = slab_make(ctx, t, 1 + n * w + 2, 0, 0, NULL);
    EXPECT_STATUS(ctx, reduce_stage_expand(ctx, t, op, src.buf, 3, n, dst.buf, 1), GPGPU_SUCCESS);
    ref_reduce_expand(t, op, slab_at(&src, 3), n, slab_at(&dst, 1));
    slab_check(&dst, NULL, what);
    slab_check(&src, NULL, what);
    slab_free(&src);
    slab_free(&dst);

    /* HALVING on all n, STRIDE as the driver's first, a middle and its last step. */
    size_t last_q = 1;
    while (2 * last_q < n)
        last_q *= 2;
    size_t qs[] = {0, 1, 4, last_q};
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
        size_t q = qs[k], m = q ? ceil_div(n, q) : n;
        if (q > 1 && q >= n)
            continue;
        if (q)
            LABEL(what, t, op, "STRIDE n=%zu m=%zu q=%zu", n, m, q);
        else
            LABEL(what, t, op, "HALVING n=%zu", n);
        slab a = slab_make(ctx, t, 2, n * w, 3, NULL);
        EXPECT_STATUS(ctx,
                      q ? reduce_stage_stride(ctx, t, op, a.buf, 2, m, q)
                        : reduce_stage_halving(ctx, t, op, a.buf, 2, n),
                      GPGPU_SUCCESS);
        if (q)
            ref_reduce_stride(t, op, slab_at(&a, 2), m, q);
        else
            ref_reduce_halving(t, op, slab_at(&a, 2), n);
        slab_check(&a, NULL, what);
        slab_free(&a);
    }

    if (op != GPGPU_OP_MINMAX)
        return;
    for (int quads = 0; quads < 2; quads++) { /* PAIRS on n, QUADS on n rounded down to even */
        size_t m = quads ? n & ~(size_t)1 : n;
        LABEL(what, t, op, "%s n=%zu", quads ? "QUADS" : "PAIRS", m);
        slab a = slab_make(ctx, t, 2, m, 3, NULL);
        EXPECT_STATUS(ctx,
                      quads ? reduce_stage_quads(ctx, t, a.buf, 2, m)
                            : reduce_stage_pairs(ctx, t, a.buf, 2, m),
                      GPGPU_SUCCESS);
        (quads ? ref_reduce_quads : ref_reduce_pairs)(t, slab_at(&a, 2), m);
        slab_check(&a, NULL, what);
        slab_free(&a);
    }
}

/* gpgpu_reduce of n elements at `off` (data, or random when NULL) against
 * the reference; checks that the input is unchanged; leaves the result in
 * `result` (two elements) for the caller's own checks. */
static void call(gpgpu_type t, gpgpu_op op, gpgpu_algo algo, size_t n, size_t off,
                 const void *data, void *result)
{
    char what[160];
    LABEL(what, t, op, "%s n=%zu offset=%zu", algo_names[algo], n, off);
    slab in = slab_make(ctx, t, off, n, 2, data);
    unsigned char want[16];
    long double abs = 0;
    double tol[2] = {-1, -1};
    test_poison(result, 16);
    EXPECT_STATUS(ctx,
                  gpgpu_reduce(ctx, &(gpgpu_reduce_desc){t, op, algo}, in.buf, off, n, result),
                  GPGPU_SUCCESS);
    if (algo == GPGPU_ALGO_FAST) {
        ref_reduce(t, op, slab_at(&in, off), n, want, &abs);
        if (float_sum(t, op))
            tol[0] = tolerance(t, fast_depth(n), abs);
    } else {
        ref_reduce_classic(t, op, algo, slab_at(&in, off), n, want);
    }
    check_elems(what, t, result, want, reduce_width(op), tol);
    char in_what[200];
    snprintf(in_what, sizeof in_what, "%s: input unchanged", what);
    slab_check(&in, NULL, in_what);
    slab_free(&in);
}

static size_t algos_of(gpgpu_op op, gpgpu_algo *out)
{
    size_t k = 0;
    out[k++] = GPGPU_ALGO_FAST;
    out[k++] = GPGPU_ALGO_CLASSIC_HALVING;
    out[k++] = GPGPU_ALGO_CLASSIC_STRIDE;
    if (op == GPGPU_OP_MINMAX)
        out[k++] = GPGPU_ALGO_CLASSIC_MINMAX;
    return k;
}

/* ------------------------------------------------------- edge cases */

static bool elem_isnan(gpgpu_type t, const void *p, size_t i)
{
    if (t == GPGPU_TYPE_F32)
        return isnan(((const float *)p)[i]);
    return t == GPGPU_TYPE_F64 && isnan(((const double *)p)[i]);
}

/* x as an element of t (exact for the values used here). */
static void put(gpgpu_type t, void *p, size_t i, double x)
{
    switch (t) {
    case GPGPU_TYPE_U32: ((uint32_t *)p)[i] = (uint32_t)x; break;
    case GPGPU_TYPE_I32: ((int32_t *)p)[i] = (int32_t)x; break;
    case GPGPU_TYPE_F32: ((float *)p)[i] = (float)x; break;
    default: ((double *)p)[i] = x; break;
    }
}

/* The identities the header promises, written out independently. */
static void check_identity(gpgpu_type t, gpgpu_op op, gpgpu_algo algo, const void *got)
{
    double lo = op == GPGPU_OP_MAX ? -INFINITY : op == GPGPU_OP_SUM ? 0 : INFINITY;
    double hi = -INFINITY;
    unsigned char want[16];
    for (int k = 0; k < 2; k++) {
        double x = k ? hi : lo;
        if (t == GPGPU_TYPE_U32)
            ((uint32_t *)want)[k] = x > 0 ? UINT32_MAX : 0;
        else if (t == GPGPU_TYPE_I32)
            ((int32_t *)want)[k] = x > 0 ? INT32_MAX : x < 0 ? INT32_MIN : 0;
        else
            put(t, want, k, x);
    }
    char what[160];
    LABEL(what, t, op, "%s n=0: identity", algo_names[algo]);
    check_elems(what, t, got, want, reduce_width(op), NULL);
}

static void edge_cases(gpgpu_type t)
{
    size_t size = gpgpu_type_size(t);
    unsigned char res[16];
    char what[160];
    void *data = xmalloc(65537 * size);
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
        gpgpu_op op = ops[o];
        gpgpu_algo algos[4];
        size_t na = algos_of(op, algos);
        for (size_t a = 0; a < na; a++) {
            call(t, op, algos[a], 0, 1, NULL, res);
            check_identity(t, op, algos[a], res);
            if (!is_float(t))
                continue;
            /* A NaN anywhere makes every result element NaN. */
            static const size_t nan_cases[][2] = {
                {1, 0}, {2, 1}, {33, 32}, {1000, 517}, {65537, 0}};
            for (size_t c = 0; c < sizeof nan_cases / sizeof *nan_cases; c++) {
                size_t n = nan_cases[c][0], at = nan_cases[c][1];
                test_random(t, data, n, test_seed++);
                put(t, data, at, NAN);
                call(t, op, algos[a], n, 3, data, res);
                LABEL(what, t, op, "%s n=%zu NaN at %zu", algo_names[algos[a]], n, at);
                EXPECT(elem_isnan(t, res, 0) && (op != GPGPU_OP_MINMAX || elem_isnan(t, res, 1)),
                       "%s: result is not NaN", what);
            }
            /* Infinities: +inf alone (sum and max +inf), then with -inf too
             * (sum NaN, min -inf, max +inf); call() also held them against ref. */
            for (int both = 0; both < 2; both++) {
                test_random(t, data, 1000, test_seed++);
                put(t, data, 10, INFINITY);
                if (both)
                    put(t, data, 990, -INFINITY);
                call(t, op, algos[a], 1000, 0, data, res);
                LABEL(what, t, op, "%s n=1000 %s", algo_names[algos[a]],
                      both ? "+inf and -inf" : "+inf");
                unsigned char want[16];
                put(t, want, 0, op == GPGPU_OP_SUM ? (both ? NAN : INFINITY)
                                : op == GPGPU_OP_MAX ? INFINITY : -INFINITY);
                put(t, want, 1, INFINITY);
                size_t first = (op == GPGPU_OP_MIN || op == GPGPU_OP_MINMAX) && !both ? 1 : 0;
                check_elems(what, t, res + first * size, want + first * size,
                            reduce_width(op) - first, NULL);
            }
        }
    }
    if (!is_float(t)) {
        /* Integer sums wrap: values near 2^32 (u32) or near INT32_MAX (i32). */
        for (size_t n = 1000; n <= 65537; n += 64537) {
            test_random(t, data, n, test_seed++);
            for (size_t i = 0; i < n; i++)
                ((uint32_t *)data)[i] += t == GPGPU_TYPE_U32 ? 0xFFFFF000u : 0x7FFFF000u;
            gpgpu_algo algos[4];
            size_t na = algos_of(GPGPU_OP_SUM, algos);
            for (size_t a = 0; a < na; a++)
                call(t, GPGPU_OP_SUM, algos[a], n, 3, data, res);
        }
        /* And one written out: 0xFFFFFFFF + 2 = 1; INT32_MAX + 1 = INT32_MIN. */
        uint32_t pair[2] = {t == GPGPU_TYPE_U32 ? 0xFFFFFFFFu : 0x7FFFFFFFu,
                            t == GPGPU_TYPE_U32 ? 2u : 1u};
        uint32_t want = t == GPGPU_TYPE_U32 ? 1u : 0x80000000u;
        for (gpgpu_algo a = GPGPU_ALGO_FAST; a <= GPGPU_ALGO_CLASSIC_STRIDE; a++) {
            call(t, GPGPU_OP_SUM, a, 2, 0, pair, res);
            LABEL(what, t, GPGPU_OP_SUM, "%s wrap", algo_names[a]);
            check_elems(what, t, res, &want, 1, NULL);
        }
    }
    free(data);
}

int main(void)
{
    ctx = test_context();
    wg_depth = depth_of_wg(ctx, REDUCE_WG);
    unsigned char res[16];
    for (size_t s = 0; test_sizes[s] != SIZE_MAX; s++) {
        size_t n = test_sizes[s];
        bool largest = n > CLASSIC_LIMIT;
        for (size_t ti = 0; ti < sizeof test_types / sizeof *test_types; ti++) {
            gpgpu_type t = test_types[ti];
            if (!test_runs_size(s, ti))
                continue;
            for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
                gpgpu_op op = ops[o];
                reduce_plan p = reduce_plan_for(ctx, n);
                stage_tiles(t, op, n, p.groups, false);
                stage_tiles(t, op, n, 7, false); /* several blocks per group */
                stage_tiles(t, op, n, 3, true);  /* pass 2's shape: pairs (MINMAX) */
                if (p.groups > 1)
                    stage_fold(t, op, n, p.groups);
                stage_fold(t, op, n, 5);
                /* The classic stages alone: single dispatches, so at the
                 * largest sizes too for MINMAX (its EXPAND of 2^22 elements
                 * needs 65536 groups, more than llvmpipe's x limit: the
                 * executor's spread over y). */
                if (!largest || op == GPGPU_OP_MINMAX)
                    stage_classic(t, op, n);
                gpgpu_algo algos[4];
                size_t na = algos_of(op, algos); /* algos[0] is FAST */
                if (largest)
                    na = 1;
                for (size_t a = 0; a < na; a++)
                    call(t, op, algos[a], n, s % 2 ? 3 : 0, NULL, res);
            }
        }
    }
    for (size_t ti = 0; ti < sizeof test_types / sizeof *test_types; ti++)
        edge_cases(test_types[ti]);
    gpgpu_context_destroy(ctx);
    return test_finish();
}
