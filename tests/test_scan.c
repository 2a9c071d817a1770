/* The prefix-sum family against the CPU reference (src/ref): each stage of
 * glsl/scan.comp alone, then gpgpu_scan for every type, algorithm, inclusive
 * and exclusive, in place and out of place, and size, then edge cases
 * (n = 0, NaN, wrapping, infinities).
 *
 * Every stage runs on poisoned buffers, and the WHOLE buffer is downloaded
 * and held against a host image to which the reference applied the same
 * stage: elements the stage writes must match, all others keep their poison
 * (or, for in-place steps, their old value). Integers and the classic
 * stages match bit for bit; fast float sums within tolerance(). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/scan.h"
#include "ref/ref.h"
#include "testlib.h"

static gpgpu_context *ctx;
static unsigned wg_depth; /* depth of a work-group combine, see depth_of_wg in testlib.c */

/* -------------------------------------------------------------- scan */

enum { CLASSIC_LIMIT = 1 << 20 };

/* Depths of the fast stages' summation trees (see depth_of_wg for wg_depth):
 * REDUCE: each invocation adds its tiles_per_group * SCAN_ITEMS elements of
 * the group's run serially, then the work-group combine. */
static size_t reduce_depth(scan_plan p)
{
    return (size_t)p.tiles_per_group * p.items + wg_depth;
}

/* PARTIALS: part[i] = carry + e, e from a work-group scan of the chunk of
 * SCAN_WG values; carry is a chain over the ceil(G / SCAN_WG) chunks' totals
 * (each a work-group combine). */
static size_t partials_depth(size_t groups) { return wg_depth + ceil_div(groups, SCAN_WG) + 1; }

/* TILES: an element of tile j of a group is carry_j + E + (up to SCAN_ITEMS
 * serial additions of the invocation's own elements), E the work-group scan
 * of the invocations' serial sums of SCAN_ITEMS elements each, carry_j =
 * part[g] + the totals of tiles 0..j-1 (a chain of <= tiles_per_group).
 * part[g]: tiles_per_group + 1 + SCAN_ITEMS; an element of an earlier tile:
 * SCAN_ITEMS + wg_depth + tiles_per_group + 1 + SCAN_ITEMS; of its own tile
 * less. */
static size_t tiles_depth(scan_plan p) { return 2 * p.items + wg_depth + p.tiles_per_group + 1; }

/* Reduce-then-scan: an input of an earlier group goes through REDUCE, then
 * PARTIALS, then TILES as part[g]; the depths add (a safe upper bound). */
static size_t rts_depth(size_t n)
{
    scan_plan p = scan_plan_for(ctx, n);
    return reduce_depth(p) + partials_depth(p.groups) + tiles_depth(p);
}

/* CHAINED: an input reaches an output of a later tile through its tile's sum
 * (ITEMS serial additions and a work-group combine, or a recount of the
 * same depth), then through a chain of at most `tiles` published inclusive
 * prefixes, each the walk's subgroup sums over a window (a tree of at most
 * 6 levels for 32 lanes, one more per window) plus the tile's sum; an
 * output of its own tile as in TILES. */
static size_t chained_depth(gpgpu_type t, size_t n)
{
    scan_chained_plan p = scan_chained_plan_for(ctx, t, n);
    return 2 * ((size_t)p.items + depth_of_wg(ctx, p.wg)) + 8 * (size_t)p.tiles;
}

static size_t fast_depth(gpgpu_type t, size_t n)
{
    size_t a = rts_depth(n), b = chained_depth(t, n);
    return a > b ? a : b;
}

/* Tolerances for a range of float sums, bit-exact for integers. */
static void fill_tol(gpgpu_type t, double *tol, const long double *abs, size_t n, size_t depth)
{
    for (size_t i = 0; is_float(t) && i < n; i++)
        tol[i] = tolerance(t, depth, abs[i]);
}

static const char *kind(bool exclusive) { return exclusive ? "exclusive" : "inclusive"; }

/* The fast stages on the driver's plan for n, from element 3 of the source
 * into element 5 of the destination. */
static void stage_fast(gpgpu_type t, size_t n)
{
    scan_plan p = scan_plan_for(ctx, n);
    const char *tn = gpgpu_type_name(t);
    char what[160];
    long double *abs = xmalloc((n + p.groups) * sizeof *abs);

    snprintf(what, sizeof what, "%s REDUCE n=%zu groups=%u", tn, n, p.groups);
    slab src = slab_make(ctx, t, 3, n, 2, NULL), part = slab_make(ctx, t, p.groups + 2, 0, 0, NULL);
    EXPECT_STATUS(ctx, scan_stage_reduce(ctx, t, src.buf, 3, n, part.buf, p), GPGPU_SUCCESS);
    ref_scan_reduce(t, slab_at(&src, 3), n, p.groups, p.tiles_per_group, SCAN_WG * p.items, part.host, abs);
    double *tol = exact(part.len);
    fill_tol(t, tol, abs, p.groups, reduce_depth(p));
    slab_check(&part, tol, what);
    slab_check(&src, NULL, what);
    free(tol);
    slab_free(&part);

    /* TILES with random partial sums: inclusive and exclusive. */
    slab parts = slab_make(ctx, t, 0, p.groups, 1, NULL);
    for (int ex = 0; ex < 2; ex++) {
        snprintf(what, sizeof what, "%s TILES %s n=%zu groups=%u tiles/group=%u", tn, kind(ex), n,
                 p.groups, p.tiles_per_group);
        slab dst = slab_make(ctx, t, 5 + n + 2, 0, 0, NULL);
        EXPECT_STATUS(ctx, scan_stage_tiles(ctx, t, ex, src.buf, 3, dst.buf, 5, n, parts.buf, p),
                      GPGPU_SUCCESS);
        ref_scan_tiles(t, ex, slab_at(&src, 3), n, parts.host, p.tiles_per_group, SCAN_WG * p.items,
                       slab_at(&dst, 5), abs);
        tol = exact(dst.len);
        fill_tol(t, tol + 5, abs, n, tiles_depth(p));
        slab_check(&dst, tol, what);
        slab_check(&src, NULL, what);
        slab_check(&parts, NULL, what);
        free(tol);
        slab_free(&dst);
    }
    slab_free(&parts);
    slab_free(&src);
    free(abs);
}

static const char *const fallback_names[] = {"", " fallback=all", " fallback=window",
                                             " sums only"};

/* CLEAR, then CHAINED from element 3 of the source into element 5 of the
 * destination (or in place at 3), with the fallback forced as asked, and the
 * tile loaded again after its look-back or not (`reload`, whatever the plan
 * chose). The state is poisoned around its words; for integers it must equal
 * the twin's publication (floats: their association order is the run's). */
static void chained_once(gpgpu_type t, size_t n, bool ex, bool in_place, scan_fallback fb,
                         bool reload)
{
    scan_chained_plan p = scan_chained_plan_for(ctx, t, n);
    p.reload = reload;
    const char *tn = gpgpu_type_name(t);
    char what[200];
    snprintf(what, sizeof what, "%s CHAINED %s%s%s%s n=%zu tiles=%u", tn, kind(ex),
             in_place ? " in place" : "", fallback_names[fb], reload ? " reloaded" : "", n,
             p.tiles);
    slab src = slab_make(ctx, t, 3, n, 2, NULL), dst = src;
    size_t dst_off = in_place ? 3 : 5;
    if (!in_place)
        dst = slab_make(ctx, t, 5 + n + 2, 0, 0, NULL);
    slab state = slab_make(ctx, GPGPU_TYPE_U32, p.state_words + 2, 0, 0, NULL);
    if (p.tiles > 1) {
        char cw[220];
        snprintf(cw, sizeof cw, "%s: CLEAR", what);
        EXPECT_STATUS(ctx, scan_stage_clear(ctx, t, state.buf, p), GPGPU_SUCCESS);
        memset(state.host, 0, p.state_words * sizeof(uint32_t));
        slab_check(&state, NULL, cw);
    }
    size_t size = gpgpu_type_size(t);
    void *input = xmalloc(n * size + 1);
    memcpy(input, slab_at(&src, 3), n * size);
    EXPECT_STATUS(ctx,
                  scan_stage_chained(ctx, t, ex, src.buf, 3, dst.buf, dst_off, n, state.buf, p,
                                     fb),
                  GPGPU_SUCCESS);
    long double *abs = xmalloc((n + 1) * sizeof *abs);
    ref_scan(t, ex, input, n, slab_at(&dst, dst_off), abs);
    double *tol = exact(dst.len);
    fill_tol(t, tol + dst_off, abs, n, chained_depth(t, n));
    slab_check(&dst, tol, what);
    if (!in_place) {
        char iw[220];
        snprintf(iw, sizeof iw, "%s: input unchanged", what);
        slab_check(&src, NULL, iw);
        slab_free(&dst);
    }
    if (p.tiles > 1 && !is_float(t)) {
        char sw[220];
        snprintf(sw, sizeof sw, "%s: published state", what);
        ref_scan_chained_state(input, n, p.wg * p.items, p.tiles, state.host);
        slab_check(&state, NULL, sw);
    } else if (p.tiles == 1) {
        char sw[220]; /* one tile publishes nothing: the state keeps its poison */
        snprintf(sw, sizeof sw, "%s: state untouched", what);
        slab_check(&state, NULL, sw);
    }
    free(tol);
    free(abs);
    free(input);
    slab_free(&state);
    slab_free(&src);
}

/* Every fallback, both kinds, the tile held across the look-back and
 * reloaded after it; summing every predecessor from its input costs
 * tiles^2 / 2 tile reads, so the forced ones run up to FORCED_TILES tiles.
 * Walks back to tile 0 (sums only, window after window) read tiles^2 / 2
 * states: up to SUMS_TILES tiles. */
enum { FORCED_TILES = 40, SUMS_TILES = 2048 };
static void stage_chained(gpgpu_type t, size_t n)
{
    scan_chained_plan p = scan_chained_plan_for(ctx, t, n);
    for (int ex = 0; ex < 2; ex++) {
        for (int reload = 0; reload < 2; reload++) {
            chained_once(t, n, ex, false, SCAN_FALLBACK_NONE, reload);
            if (p.tiles <= FORCED_TILES) {
                chained_once(t, n, ex, false, SCAN_FALLBACK_ALL, reload);
                chained_once(t, n, ex, true, SCAN_FALLBACK_WINDOW, reload);
            }
        }
        if (p.tiles > 1 && p.tiles <= SUMS_TILES)
            chained_once(t, n, ex, ex, SCAN_FALLBACK_SUMS, p.reload);
    }
}

/* PARTIALS on `groups` random values (it takes any count, more than one
 * work-group's worth too). */
static void stage_partials(gpgpu_type t, uint32_t groups)
{
    char what[160];
    snprintf(what, sizeof what, "%s PARTIALS groups=%u", gpgpu_type_name(t), groups);
    slab part = slab_make(ctx, t, 0, groups, 2, NULL);
    long double *abs = xmalloc(groups * sizeof *abs);
    EXPECT_STATUS(ctx, scan_stage_partials(ctx, t, part.buf, 0, groups), GPGPU_SUCCESS);
    ref_scan_partials(t, part.host, groups, abs);
    double *tol = exact(part.len);
    fill_tol(t, tol, abs, groups, partials_depth(groups));
    slab_check(&part, tol, what);
    free(tol);
    free(abs);
    slab_free(&part);
}

/* COPY both ways, and STEP for its first, a middle and its last k; bit-exact. */
static void stage_classic(gpgpu_type t, size_t n)
{
    const char *tn = gpgpu_type_name(t);
    char what[160];
    slab src = slab_make(ctx, t, 3, n, 2, NULL);
    for (int ex = 0; ex < 2; ex++) {
        snprintf(what, sizeof what, "%s COPY %s n=%zu", tn, kind(ex), n);
        slab dst = slab_make(ctx, t, 1 + n + 2, 0, 0, NULL);
        EXPECT_STATUS(ctx, scan_stage_copy(ctx, t, ex, src.buf, 3, dst.buf, 1, n), GPGPU_SUCCESS);
        ref_scan_copy(t, ex, slab_at(&src, 3), n, slab_at(&dst, 1));
        slab_check(&dst, NULL, what);
        slab_check(&src, NULL, what);
        slab_free(&dst);
    }
    slab_free(&src);

    unsigned steps = 0; /* the driver's ceil(log2 n) */
    while (n > 1 && ((size_t)1 << steps) < n)
        steps++;
    unsigned ks[] = {0, steps / 2, steps ? steps - 1 : 0};
    slab a = slab_make(ctx, t, 2, n, 3, NULL);
    for (size_t i = 0; i < 3; i++) {
        if (i && ks[i] == ks[i - 1])
            continue;
        snprintf(what, sizeof what, "%s STEP n=%zu k=%u", tn, n, ks[i]);
        EXPECT_STATUS(ctx, scan_stage_step(ctx, t, a.buf, 2, n, ks[i]), GPGPU_SUCCESS);
        ref_scan_step(t, slab_at(&a, 2), n, ks[i]);
        slab_check(&a, NULL, what);
    }
    slab_free(&a);
}

/* gpgpu_scan of n elements (data, or random when NULL) at in_off into
 * out_off of another buffer, or in place; checks the whole output buffer
 * (poison outside the range) and that the input is unchanged. Leaves the
 * output's n elements in `result` when it is not NULL. */
static void call(gpgpu_type t, gpgpu_algo algo, bool ex, bool in_place, size_t n, size_t in_off,
                 size_t out_off, const void *data, void *result)
{
    char what[200];
    snprintf(what, sizeof what, "%s %s %s %s n=%zu in_offset=%zu out_offset=%zu",
             gpgpu_type_name(t), algo_name(algo), kind(ex),
             in_place ? "in place" : "out of place", n, in_off, in_place ? in_off : out_off);
    slab in = slab_make(ctx, t, in_off, n, 2, data), out = in;
    if (in_place)
        out_off = in_off;
    else
        out = slab_make(ctx, t, out_off + n + 3, 0, 0, NULL);
    EXPECT_STATUS(ctx,
                  gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = t, .exclusive = ex, .algo = algo}, in.buf, in_off, out.buf,
                             out_off, n),
                  GPGPU_SUCCESS);
    double *tol = exact(out.len);
    if (algo != GPGPU_ALGO_CLASSIC_SCAN) {
        long double *abs = xmalloc(n * sizeof *abs);
        ref_scan(t, ex, slab_at(&in, in_off), n, slab_at(&out, out_off), abs);
        size_t depth = algo == GPGPU_ALGO_SCAN_SINGLE_PASS     ? chained_depth(t, n)
                       : algo == GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN ? rts_depth(n)
                                                                 : fast_depth(t, n);
        fill_tol(t, tol + out_off, abs, n, depth);
        free(abs);
    } else {
        ref_scan_classic(t, ex, slab_at(&in, in_off), n, slab_at(&out, out_off));
    }
    slab_check(&out, tol, what);
    if (result)
        memcpy(result, slab_at(&out, out_off), n * gpgpu_type_size(t));
    if (!in_place) {
        char in_what[240];
        snprintf(in_what, sizeof in_what, "%s: input unchanged", what);
        slab_check(&in, NULL, in_what);
        slab_free(&out);
    }
    free(tol);
    slab_free(&in);
}

/* Every algorithm (the classic one when asked), both kinds, in place and
 * not, for one input. */
static const gpgpu_algo scan_algos[] = {GPGPU_ALGO_FAST, GPGPU_ALGO_SCAN_SINGLE_PASS,
                                        GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN, GPGPU_ALGO_CLASSIC_SCAN};
static void call_all(gpgpu_type t, size_t n, size_t in_off, size_t out_off, const void *data,
                     bool classic)
{
    for (size_t a = 0; a < sizeof scan_algos / sizeof *scan_algos; a++)
        for (int ex = 0; ex < 2; ex++)
            for (int ip = 0; ip < 2; ip++)
                if (classic || scan_algos[a] != GPGPU_ALGO_CLASSIC_SCAN)
                    call(t, scan_algos[a], ex, ip, n, in_off, out_off, data, NULL);
}

/* ------------------------------------------------------- edge cases */

static void put(gpgpu_type t, void *p, size_t i, double x)
{
    if (t == GPGPU_TYPE_F32)
        ((float *)p)[i] = (float)x;
    else
        ((double *)p)[i] = x;
}

static double get(gpgpu_type t, const void *p, size_t i)
{
    return t == GPGPU_TYPE_F32 ? ((const float *)p)[i] : ((const double *)p)[i];
}

static void edge_cases(gpgpu_type t)
{
    size_t size = gpgpu_type_size(t);
    const char *tn = gpgpu_type_name(t);
    void *data = xmalloc(65537 * size), *res = xmalloc(65537 * size);
    /* n = 0 writes nothing: call() checks the poisoned output and the input. */
    call_all(t, 0, 2, 1, NULL, true);
    if (is_float(t)) {
        /* A NaN at `at`: outputs before it finite, from it on NaN (ref agrees). */
        static const size_t nan_cases[][2] = {{1, 0}, {33, 5}, {5000, 4097}, {65537, 30000}};
        for (size_t c = 0; c < sizeof nan_cases / sizeof *nan_cases; c++) {
            size_t n = nan_cases[c][0], at = nan_cases[c][1];
            test_random(t, data, n, test_seed++);
            put(t, data, at, NAN);
            for (size_t algo = 0; algo < sizeof scan_algos / sizeof *scan_algos; algo++)
                for (int ex = 0; ex < 2; ex++) {
                    gpgpu_algo a = scan_algos[algo];
                    call(t, a, ex, false, n, 1, 0, data, res);
                    size_t first_nan = at + (ex ? 1 : 0);
                    EXPECT((first_nan >= n || isnan(get(t, res, n - 1))) &&
                               (first_nan == 0 || !isnan(get(t, res, first_nan - 1))),
                           "%s %s %s n=%zu NaN at %zu: the NaN did not propagate from there", tn,
                           algo_name(a), kind(ex), n, at);
                }
        }
        /* +inf at 100, -inf at 900: +inf from there, NaN from 900 (inclusive). */
        test_random(t, data, 1000, test_seed++);
        put(t, data, 100, INFINITY);
        put(t, data, 900, -INFINITY);
        for (size_t algo = 0; algo < sizeof scan_algos / sizeof *scan_algos; algo++) {
            call(t, scan_algos[algo], false, false, 1000, 0, 0, data, res);
            EXPECT(get(t, res, 99) < INFINITY && get(t, res, 100) == INFINITY &&
                       get(t, res, 899) == INFINITY && isnan(get(t, res, 900)),
                   "%s %s inclusive n=1000 with +inf at 100, -inf at 900: got %g %g %g %g", tn,
                   algo_name(scan_algos[algo]), get(t, res, 99), get(t, res, 100),
                   get(t, res, 899), get(t, res, 900));
        }
    } else {
        /* Integer sums wrap: values near 2^32 (u32) or INT32_MAX (i32). */
        for (size_t n = 1000; n <= 65537; n += 64537) {
            test_random(t, data, n, test_seed++);
            for (size_t i = 0; i < n; i++)
                ((uint32_t *)data)[i] += t == GPGPU_TYPE_U32 ? 0xFFFFF000u : 0x7FFFF000u;
            call_all(t, n, 3, 1, data, true);
        }
        /* And written out: {0xFFFFFFFF, 1, 5} -> {0xFFFFFFFF, 0, 5}; i32 {MAX, 1, 5}. */
        uint32_t in[3] = {t == GPGPU_TYPE_U32 ? 0xFFFFFFFFu : 0x7FFFFFFFu, 1, 5};
        uint32_t want[3] = {in[0], in[0] + 1u, in[0] + 6u};
        for (size_t algo = 0; algo < sizeof scan_algos / sizeof *scan_algos; algo++) {
            call(t, scan_algos[algo], false, false, 3, 0, 0, in, res);
            char what[80];
            snprintf(what, sizeof what, "%s %s wrap", tn, algo_name(scan_algos[algo]));
            check_elems(what, t, res, want, 3, NULL);
        }
    }
    free(data);
    free(res);
}

/* ------------------------------------------------ counts on the GPU */

/* gpgpu_scan with count_buffer: `bound` sizes the call, `real` (which may exceed it: the
 * count is clamped) sits in a u32 buffer among poisoned words; the elements past the count
 * keep their poison, in place and not, for every fast algorithm. */
static void counted_once(gpgpu_type t, gpgpu_algo algo, bool ex, bool in_place, size_t bound,
                         uint32_t real)
{
    char what[200];
    snprintf(what, sizeof what, "%s %s %s%s count_buffer %u of bound %zu", gpgpu_type_name(t),
             algo_name(algo), kind(ex), in_place ? " in place" : "", real, bound);
    size_t n = real < bound ? real : bound;
    slab in = slab_make(ctx, t, 2, bound, 1, NULL), out = in;
    size_t out_off = 2;
    if (!in_place) {
        out = slab_make(ctx, t, 3 + bound + 2, 0, 0, NULL);
        out_off = 3;
    }
    uint32_t words[4] = {0xA5A5A5A5u, 0xA5A5A5A5u, real, 0xA5A5A5A5u};
    gpgpu_buffer *cb = test_buffer(ctx, words, sizeof words);
    gpgpu_scan_desc desc = {.type = t, .exclusive = ex, .algo = algo, .count_buffer = cb,
                            .count_offset = 2};
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &desc, in.buf, 2, out.buf, out_off, bound),
                  GPGPU_SUCCESS);
    long double *abs = xmalloc((n + 1) * sizeof *abs);
    void *input = xmalloc(n * gpgpu_type_size(t) + 1);
    memcpy(input, slab_at(&in, 2), n * gpgpu_type_size(t));
    ref_scan(t, ex, input, n, slab_at(&out, out_off), abs);
    double *tol = exact(out.len);
    size_t depth = algo == GPGPU_ALGO_SCAN_SINGLE_PASS       ? chained_depth(t, bound)
                   : algo == GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN ? rts_depth(bound)
                                                             : fast_depth(t, bound);
    fill_tol(t, tol + out_off, abs, n, depth);
    slab_check(&out, tol, what);
    if (!in_place) {
        char iw[240];
        snprintf(iw, sizeof iw, "%s: input unchanged", what);
        slab_check(&in, NULL, iw);
        slab_free(&out);
    }
    free(tol);
    free(abs);
    free(input);
    gpgpu_buffer_destroy(cb);
    slab_free(&in);
}

/* Counts 0, 1, between and the bound (and past it: clamped), for bounds of one tile and of
 * many; the errors of the count_buffer's own arguments. */
static void device_counts(gpgpu_type t, size_t type_index)
{
    static const size_t bounds[] = {1, 1000, 65537, (1u << 20) + 3};
    static const gpgpu_algo algos[] = {GPGPU_ALGO_FAST, GPGPU_ALGO_SCAN_SINGLE_PASS,
                                       GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN};
    for (size_t b = 0; b < sizeof bounds / sizeof *bounds; b++) {
        size_t bound = bounds[b];
        if (bound > test_max_n() || !test_runs_large(bound * 8, type_index))
            continue;
        uint32_t reals[] = {0, 1, (uint32_t)(bound / 2 + 1), (uint32_t)bound,
                            (uint32_t)bound + 7};
        for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
            for (size_t r = 0; r < sizeof reals / sizeof *reals; r++)
                counted_once(t, algos[a], (a + r) % 2, r % 2 == 1, bound, reals[r]);
    }
    if (type_index != 0)
        return;
    gpgpu_buffer *buf = test_buffer(ctx, NULL, 64);
    gpgpu_scan_desc classic = {.type = t, .algo = GPGPU_ALGO_CLASSIC_SCAN, .count_buffer = buf};
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &classic, buf, 0, buf, 0, 4),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT(strstr(gpgpu_last_error(ctx), "CLASSIC_SCAN takes no count_buffer") != NULL,
           "classic scan with a count_buffer: message '%s'", gpgpu_last_error(ctx));
    gpgpu_scan_desc past = {.type = t, .count_buffer = buf, .count_offset = 16};
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &past, buf, 0, buf, 0, 4), GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT(strstr(gpgpu_last_error(ctx), "gpgpu_scan (count_buffer)") != NULL,
           "count_buffer past its buffer: message '%s'", gpgpu_last_error(ctx));
    gpgpu_buffer_destroy(buf);
}

int main(void)
{
    ctx = test_context();
    wg_depth = depth_of_wg(ctx, SCAN_WG);
    for (size_t ti = 0; ti < sizeof test_types / sizeof *test_types; ti++) {
        gpgpu_type t = test_types[ti];
        static const uint32_t group_counts[] = {1, 2, 255, 256, 257, 1000, 1024, 1500, 4096};
        for (size_t g = 0; g < sizeof group_counts / sizeof *group_counts; g++)
            stage_partials(t, group_counts[g]);
        for (size_t s = 0; test_sizes[s] != SIZE_MAX; s++) {
            size_t n = test_sizes[s];
            if (!test_runs_size(s, ti))
                continue;
            stage_fast(t, n);
            stage_chained(t, n);
            stage_partials(t, scan_plan_for(ctx, n).groups);
            /* The classic stages are single dispatches: every size (COPY of
             * 2^22 elements spreads its 65536 groups over y on llvmpipe);
             * the classic algorithm only up to CLASSIC_LIMIT. */
            stage_classic(t, n);
            call_all(t, n, s % 2 ? 3 : 0, s % 3, NULL, n <= CLASSIC_LIMIT);
        }
        /* Past SCAN_CHAINED_GL_SMALL_MAX GL's plan changes shape (256 x 32
         * tiles, reloaded): its CLEAR and CHAINED, and every algorithm. */
        size_t large = SCAN_CHAINED_GL_SMALL_MAX + 5;
        if (large <= test_max_n() && test_runs_large(large, ti)) {
            stage_chained(t, large);
            call_all(t, large, 1, 2, NULL, false);
        }
        edge_cases(t);
        device_counts(t, ti);
    }
    gpgpu_context_destroy(ctx);
    return test_finish();
}
