/* The CPU reference (src/ref/ref.h): every stage of glsl/reduce.comp and
 * glsl/scan.comp, and the drivers of src/algo, on host memory.
 *
 * Values of any type travel as an `elem` (a union of the four types, loaded
 * and stored by type); a `vel` is a V element (one elem, or a (min, max) pair
 * for GPGPU_OP_MINMAX). Single operations run in the type's own precision
 * (integer sums in uint32_t, wrapping mod 2^32 for i32 too), so they are
 * bit-exact twins of the shaders. Sums of many floats go through an `acc`:
 * a compensated (Neumaier) sum in long double plus the sum of |x|. */
#include "ref/ref.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* float + float must round to float, not to a wider type. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "the reference needs FLT_EVAL_METHOD == 0 (e.g. x86-64 SSE)"
#endif

/* ------------------------------------------------------------ elements */

typedef union elem {
    uint32_t u;
    int32_t i;
    float f;
    double d;
} elem;

static size_t tsize(gpgpu_type t) { return t == GPGPU_TYPE_F64 ? 8 : 4; }

static elem load(gpgpu_type t, const void *p, size_t i)
{
    elem e = {.d = 0};
    memcpy(&e, (const char *)p + i * tsize(t), tsize(t)); /* every member starts at byte 0 */
    return e;
}

static void store(gpgpu_type t, void *p, size_t i, elem e)
{
    memcpy((char *)p + i * tsize(t), &e, tsize(t));
}

static bool is_nan(gpgpu_type t, elem a)
{
    return t == GPGPU_TYPE_F32 ? isnan(a.f) : t == GPGPU_TYPE_F64 ? isnan(a.d) : false;
}

static bool less(gpgpu_type t, elem a, elem b)
{
    switch (t) {
    case GPGPU_TYPE_U32: return a.u < b.u;
    case GPGPU_TYPE_I32: return a.i < b.i;
    case GPGPU_TYPE_F32: return a.f < b.f;
    default: return a.d < b.d;
    }
}

/* t_min / t_max of glsl/common.glsl, operand for operand. */
static elem e_min(gpgpu_type t, elem a, elem b)
{
    return is_nan(t, a) ? a : (is_nan(t, b) || less(t, b, a)) ? b : a;
}

static elem e_max(gpgpu_type t, elem a, elem b)
{
    return is_nan(t, a) ? a : (is_nan(t, b) || less(t, a, b)) ? b : a;
}

static elem e_add(gpgpu_type t, elem a, elem b)
{
    elem r = {.d = 0};
    switch (t) {
    case GPGPU_TYPE_F32: r.f = a.f + b.f; break;
    case GPGPU_TYPE_F64: r.d = a.d + b.d; break;
    default: r.u = a.u + b.u; break; /* i32 too: two's complement wraps like u32 */
    }
    return r;
}

static elem e_zero(void) { return (elem){.d = 0}; }

/* The largest (min's identity) or smallest (max's identity) value of t. */
static elem e_extreme(gpgpu_type t, bool largest)
{
    elem r = {.d = 0};
    switch (t) {
    case GPGPU_TYPE_U32: r.u = largest ? UINT32_MAX : 0; break;
    case GPGPU_TYPE_I32: r.i = largest ? INT32_MAX : INT32_MIN; break;
    case GPGPU_TYPE_F32: r.f = largest ? INFINITY : -INFINITY; break;
    default: r.d = largest ? (double)INFINITY : -(double)INFINITY; break;
    }
    return r;
}

static long double to_ld(gpgpu_type t, elem a)
{
    switch (t) {
    case GPGPU_TYPE_U32: return a.u;
    case GPGPU_TYPE_I32: return a.i;
    case GPGPU_TYPE_F32: return a.f;
    default: return a.d;
    }
}

/* ---------------------------------------------------------- V elements */

typedef struct vel {
    elem lo, hi; /* hi only for MINMAX */
} vel;

static size_t width(gpgpu_op op) { return op == GPGPU_OP_MINMAX ? 2 : 1; }

static vel v_from(elem x) { return (vel){x, x}; }

static vel v_load(gpgpu_type t, gpgpu_op op, const void *p, size_t i)
{
    if (op == GPGPU_OP_MINMAX)
        return (vel){load(t, p, 2 * i), load(t, p, 2 * i + 1)};
    return v_from(load(t, p, i));
}

static void v_store(gpgpu_type t, gpgpu_op op, void *p, size_t i, vel v)
{
    if (op == GPGPU_OP_MINMAX) {
        store(t, p, 2 * i, v.lo);
        store(t, p, 2 * i + 1, v.hi);
    } else {
        store(t, p, i, v.lo);
    }
}

static vel v_identity(gpgpu_type t, gpgpu_op op)
{
    switch (op) {
    case GPGPU_OP_MIN: return v_from(e_extreme(t, true));
    case GPGPU_OP_MAX: return v_from(e_extreme(t, false));
    case GPGPU_OP_MINMAX: return (vel){e_extreme(t, true), e_extreme(t, false)};
    default: return v_from(e_zero());
    }
}

/* v_op of glsl/ops.glsl: a op b, in this operand order. */
static vel v_op(gpgpu_type t, gpgpu_op op, vel a, vel b)
{
    switch (op) {
    case GPGPU_OP_MIN: return v_from(e_min(t, a.lo, b.lo));
    case GPGPU_OP_MAX: return v_from(e_max(t, a.lo, b.lo));
    case GPGPU_OP_MINMAX: return (vel){e_min(t, a.lo, b.lo), e_max(t, a.hi, b.hi)};
    default: return v_from(e_add(t, a.lo, b.lo));
    }
}

/* ------------------------------------------------------- long sums */

/* A sum of many elements: integers wrap in uint32_t; floats are summed with
 * Neumaier's compensation in long double, so the reference's own error
 * (about 2^-63 of the sum of |x|) is far below any GPU bound. `raw`, the
 * plain sum, carries inf and NaN, which the compensation would spoil. */
typedef struct acc {
    gpgpu_type t;
    uint32_t isum;
    long double sum, comp, raw, abs;
} acc;

static acc acc_begin(gpgpu_type t) { return (acc){.t = t}; }

static void acc_add(acc *a, elem x)
{
    if (a->t == GPGPU_TYPE_U32 || a->t == GPGPU_TYPE_I32) {
        a->isum += x.u;
        a->abs += fabsl(to_ld(a->t, x));
        return;
    }
    long double v = to_ld(a->t, x), s = a->sum + v;
    a->comp += fabsl(a->sum) >= fabsl(v) ? (a->sum - s) + v : (v - s) + a->sum;
    a->sum = s;
    a->raw += v;
    a->abs += fabsl(v);
}

static elem acc_value(const acc *a)
{
    elem r = {.d = 0};
    long double v = isfinite(a->raw) ? a->sum + a->comp : a->raw;
    switch (a->t) {
    case GPGPU_TYPE_F32: r.f = (float)v; break;
    case GPGPU_TYPE_F64: r.d = (double)v; break;
    default: r.u = a->isum; break;
    }
    return r;
}

/* Folds V elements into one: float sums through an acc, all else by v_op. */
typedef struct fold {
    gpgpu_type t;
    gpgpu_op op;
    vel v;
    acc sum;
} fold;

static fold fold_begin(gpgpu_type t, gpgpu_op op)
{
    return (fold){.t = t, .op = op, .v = v_identity(t, op), .sum = acc_begin(t)};
}

static void fold_add(fold *f, vel x)
{
    if (f->op == GPGPU_OP_SUM)
        acc_add(&f->sum, x.lo);
    else
        f->v = v_op(f->t, f->op, f->v, x);
}

static vel fold_value(const fold *f)
{
    return f->op == GPGPU_OP_SUM ? v_from(acc_value(&f->sum)) : f->v;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "ref: out of memory (%zu bytes)\n", bytes);
        abort();
    }
    return p;
}

/* ------------------------------------------------------------- reduce */

void ref_reduce_tiles(gpgpu_type type, gpgpu_op op, const void *src, size_t n, bool src_pairs,
                      uint32_t groups, uint32_t block, void *dst, long double *abs_sum)
{
    /* SRC_PAIRS only means something to the MINMAX shader. */
    gpgpu_op src_op = src_pairs && op == GPGPU_OP_MINMAX ? GPGPU_OP_MINMAX : GPGPU_OP_SUM;
    if (block == 0)
        n = 0; /* no blocks to read (and no endless loop) */
    for (uint32_t g = 0; g < groups; g++) {
        fold f = fold_begin(type, op);
        for (size_t b = g; b * block < n; b += groups) { /* blocks with b % groups == g */
            size_t end = (b + 1) * block < n ? (b + 1) * block : n;
            for (size_t i = b * block; i < end; i++)
                fold_add(&f, v_load(type, src_op, src, i));
        }
        v_store(type, op, dst, g, fold_value(&f));
        if (abs_sum)
            abs_sum[g] = op == GPGPU_OP_SUM ? f.sum.abs : 0;
    }
}

void ref_reduce_expand(gpgpu_type type, gpgpu_op op, const void *src, size_t n, void *dst)
{
    for (size_t i = 0; i < n; i++)
        v_store(type, op, dst, i, v_from(load(type, src, i)));
}

void ref_reduce_halving(gpgpu_type type, gpgpu_op op, void *a, size_t n)
{
    size_t half = (n + 1) / 2; /* reads [half, n) never overlap writes [0, n/2) */
    for (size_t i = 0; i < n / 2; i++)
        v_store(type, op, a, i,
                v_op(type, op, v_load(type, op, a, i), v_load(type, op, a, i + half)));
}

void ref_reduce_stride(gpgpu_type type, gpgpu_op op, void *a, size_t n, size_t q)
{
    for (size_t t = 0; t < n / 2; t++) {
        size_t i = 2 * q * t;
        v_store(type, op, a, i, v_op(type, op, v_load(type, op, a, i), v_load(type, op, a, i + q)));
    }
}

/* reduce.comp's choose(): reads all four operands, then writes two. */
static void choose(gpgpu_type t, void *a, size_t lo, size_t hi, size_t from_lo, size_t from_hi)
{
    elem x = load(t, a, lo), y = load(t, a, hi), c = load(t, a, from_lo), d = load(t, a, from_hi);
    store(t, a, lo, e_min(t, x, c));
    store(t, a, hi, e_max(t, y, d));
}

void ref_reduce_pairs(gpgpu_type type, void *a, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2) /* the comparator of (i, i+1) */
        choose(type, a, i, i + 1, i + 1, i);
    if (n & 1) /* invocation 0, after its own pair: the element without a pair */
        choose(type, a, 0, n > 1 ? 1 : 0, n - 1, n - 1);
}

void ref_reduce_quads(gpgpu_type type, void *a, size_t n)
{
    size_t shift = 2 * ((n + 3) / 4); /* pair t takes pair t + ceil(n/4) */
    for (size_t i = 0; i + shift < n; i += 2)
        choose(type, a, i, i + 1, i + shift, i + shift + 1);
}

void ref_reduce(gpgpu_type type, gpgpu_op op, const void *src, size_t n, void *result,
                long double *abs_sum)
{
    fold f = fold_begin(type, op);
    for (size_t i = 0; i < n; i++)
        fold_add(&f, v_from(load(type, src, i)));
    v_store(type, op, result, 0, fold_value(&f));
    if (abs_sum)
        *abs_sum = op == GPGPU_OP_SUM ? f.sum.abs : 0;
}

/* reduce_classic_minmax of src/algo/reduce.c. */
static void classic_minmax(gpgpu_type type, const void *src, size_t n, void *result)
{
    void *a = xmalloc(n * tsize(type));
    memcpy(a, src, n * tsize(type));
    if (n == 1) {
        store(type, result, 0, load(type, a, 0));
        store(type, result, 1, load(type, a, 0));
    } else {
        ref_reduce_pairs(type, a, n);
        for (size_t m = n & ~(size_t)1; m > 2; m = 2 * ((m + 3) / 4))
            ref_reduce_quads(type, a, m);
        memcpy(result, a, 2 * tsize(type));
    }
    free(a);
}

void ref_reduce_classic(gpgpu_type type, gpgpu_op op, gpgpu_algo algo, const void *src, size_t n,
                        void *result)
{
    if (n == 0) {
        v_store(type, op, result, 0, v_identity(type, op));
        return;
    }
    if (algo == GPGPU_ALGO_CLASSIC_MINMAX) {
        classic_minmax(type, src, n, result);
        return;
    }
    if (algo != GPGPU_ALGO_CLASSIC_HALVING && algo != GPGPU_ALGO_CLASSIC_STRIDE) {
        ref_reduce(type, op, src, n, result, NULL); /* not a classic algorithm */
        return;
    }
    /* reduce_classic of src/algo/reduce.c */
    void *a = xmalloc(n * width(op) * tsize(type));
    ref_reduce_expand(type, op, src, n, a);
    for (size_t q = 1, m = n; m > 1; q += q, m = (m + 1) / 2) {
        if (algo == GPGPU_ALGO_CLASSIC_STRIDE)
            ref_reduce_stride(type, op, a, m, q);
        else
            ref_reduce_halving(type, op, a, m);
    }
    memcpy(result, a, width(op) * tsize(type));
    free(a);
}

/* --------------------------------------------------------------- scan */

/* Scans src[begin, end) into dst, starting from *a. Reads each element
 * before writing its output, so dst may be src (in place). */
static void scan_run(acc *a, bool exclusive, const void *src, size_t begin, size_t end, void *dst,
                     long double *abs_prefix)
{
    for (size_t i = begin; i < end; i++) {
        elem x = load(a->t, src, i);
        if (!exclusive)
            acc_add(a, x);
        store(a->t, dst, i, acc_value(a));
        if (abs_prefix)
            abs_prefix[i] = a->abs;
        if (exclusive)
            acc_add(a, x);
    }
}

void ref_scan_reduce(gpgpu_type type, const void *src, size_t n, uint32_t groups,
                     uint32_t tiles_per_group, uint32_t tile, void *part, long double *abs_sum)
{
    size_t per_group = (size_t)tiles_per_group * tile;
    for (uint32_t g = 0; g < groups; g++) {
        size_t begin = g * per_group, end = begin + per_group < n ? begin + per_group : n;
        acc a = acc_begin(type);
        for (size_t i = begin; i < end; i++)
            acc_add(&a, load(type, src, i));
        store(type, part, g, acc_value(&a));
        if (abs_sum)
            abs_sum[g] = a.abs;
    }
}

void ref_scan_partials(gpgpu_type type, void *part, uint32_t groups, long double *abs_prefix)
{
    acc a = acc_begin(type);
    scan_run(&a, true, part, 0, groups, part, abs_prefix);
}

void ref_scan_tiles(gpgpu_type type, bool exclusive, const void *src, size_t n, const void *part,
                    uint32_t tiles_per_group, uint32_t tile, void *dst, long double *abs_prefix)
{
    size_t per_group = (size_t)tiles_per_group * tile;
    for (size_t g = 0, begin = 0; per_group && begin < n; g++, begin += per_group) {
        acc a = acc_begin(type);
        acc_add(&a, load(type, part, g)); /* group g starts from part[g] */
        scan_run(&a, exclusive, src, begin, begin + per_group < n ? begin + per_group : n, dst,
                 abs_prefix);
    }
}

void ref_scan_copy(gpgpu_type type, bool exclusive, const void *src, size_t n, void *dst)
{
    if (n == 0)
        return;
    size_t size = tsize(type);
    if (exclusive) { /* memmove: dst may be src */
        memmove((char *)dst + size, src, (n - 1) * size);
        store(type, dst, 0, e_zero());
    } else {
        memmove(dst, src, n * size);
    }
}

void ref_scan_step(gpgpu_type type, void *a, size_t n, unsigned k)
{
    size_t m = (size_t)1 << k;
    for (size_t i = 0; i < (n + 1) / 2; i++) { /* Kiciak: ceil(n/2) invocations */
        size_t ia = ((i >> k) << (k + 1)) + m - 1;
        size_t ib = ia + (i & (m - 1)) + 1;
        if (ib < n) /* ia < ib: this step reads no element it writes */
            store(type, a, ib, e_add(type, load(type, a, ib), load(type, a, ia)));
    }
}

void ref_scan(gpgpu_type type, bool exclusive, const void *src, size_t n, void *dst,
              long double *abs_prefix)
{
    acc a = acc_begin(type);
    scan_run(&a, exclusive, src, 0, n, dst, abs_prefix);
}

void ref_scan_chained_state(const uint32_t *src, size_t n, uint32_t tile, uint32_t groups,
                            uint32_t *state)
{
    size_t tiles = (n + tile - 1) / tile;
    memset(state, 0, (4 + 4 * tiles) * sizeof *state);
    state[0] = groups;
    uint32_t inclusive = 0;
    for (size_t t = 0; t < tiles; t++) {
        uint32_t sum = 0;
        for (size_t i = t * tile; i < n && i < (t + 1) * tile; i++)
            sum += src[i];
        inclusive += sum;
        uint32_t *w = state + 4 + 4 * t;
        w[0] = (inclusive & 0xffffu) | 0x10000u;
        w[1] = (inclusive >> 16) | 0x10000u;
        if (t > 0) {
            w[2] = (sum & 0xffffu) | 0x10000u;
            w[3] = (sum >> 16) | 0x10000u;
        }
    }
}

void ref_scan_classic(gpgpu_type type, bool exclusive, const void *src, size_t n, void *dst)
{
    ref_scan_copy(type, exclusive, src, n, dst); /* in place inclusive: a no-op move */
    unsigned k = 0;
    for (size_t m = n ? n - 1 : 0; m > 0; m >>= 1, k++)
        ref_scan_step(type, dst, n, k);
}
