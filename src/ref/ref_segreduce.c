/* The segmented reduction's CPU twin (glsl/segreduce.comp): the oracle (every segment reduced
 * alone) and each stage of the merge path: PLAN bit for bit, TILES and FIX with their sums in
 * long double (the GPU's order differs) and everything else exact. */
#include <math.h>
#include <string.h>

#include "ref/ref.h"

/* A value of any type: sums of floats in long double, min and max in the type. */
typedef struct acc {
    gpgpu_type type;
    gpgpu_op op;
    uint32_t u; /* u32 and i32 sums (wrapping), integer min/max bits */
    long double f, abs;
    bool any;   /* float min/max: f holds a value */
} acc;

static acc acc_new(gpgpu_type type, gpgpu_op op)
{
    acc a = {.type = type, .op = op};
    if (op == GPGPU_OP_MIN)
        a.u = type == GPGPU_TYPE_U32 ? UINT32_MAX : (uint32_t)INT32_MAX;
    else if (op == GPGPU_OP_MAX)
        a.u = type == GPGPU_TYPE_U32 ? 0 : (uint32_t)INT32_MIN;
    a.f = op == GPGPU_OP_MIN ? INFINITY : op == GPGPU_OP_MAX ? -INFINITY : 0;
    return a;
}

static bool is_float(gpgpu_type t) { return t == GPGPU_TYPE_F32 || t == GPGPU_TYPE_F64; }

static long double get_f(gpgpu_type t, const void *p, size_t i)
{
    return t == GPGPU_TYPE_F32 ? (long double)((const float *)p)[i]
                               : (long double)((const double *)p)[i];
}

/* Adds x (after what the acc holds). */
static void acc_add_f(acc *a, long double x)
{
    if (a->op == GPGPU_OP_SUM) {
        a->f += x;
        a->abs += fabsl(x);
    } else if (isnan(a->f) || isnan(x)) {
        a->f = NAN; /* propagates, whatever the order */
    } else if (a->op == GPGPU_OP_MIN ? x < a->f : x > a->f) {
        a->f = x;
    }
}

static void acc_add_u(acc *a, uint32_t x)
{
    if (a->op == GPGPU_OP_SUM) {
        a->u += x;
    } else if (a->type == GPGPU_TYPE_U32) {
        a->u = a->op == GPGPU_OP_MIN ? (x < a->u ? x : a->u) : (x > a->u ? x : a->u);
    } else {
        int32_t xi = (int32_t)x, ai = (int32_t)a->u;
        a->u = (uint32_t)(a->op == GPGPU_OP_MIN ? (xi < ai ? xi : ai) : (xi > ai ? xi : ai));
    }
}

static void acc_add(acc *a, const void *p, size_t i)
{
    if (is_float(a->type))
        acc_add_f(a, get_f(a->type, p, i));
    else
        acc_add_u(a, ((const uint32_t *)p)[i]);
}

static void acc_store(const acc *a, void *p, size_t i, long double *abs)
{
    if (a->type == GPGPU_TYPE_F32)
        ((float *)p)[i] = (float)a->f;
    else if (a->type == GPGPU_TYPE_F64)
        ((double *)p)[i] = (double)a->f;
    else
        ((uint32_t *)p)[i] = a->u;
    if (abs)
        abs[i] = a->abs;
}

/* Offset k clamped as the shader clamps it, relative to the first offset. */
typedef struct path {
    const uint32_t *segs;
    size_t nseg;
    uint32_t base, end, ents;
} path;

static path path_of(const uint32_t *segs, size_t nseg, size_t n)
{
    path p = {.segs = segs, .nseg = nseg};
    p.base = segs[0] < n ? segs[0] : (uint32_t)n;
    uint32_t e = segs[nseg];
    p.end = e < p.base ? p.base : e > n ? (uint32_t)n : e;
    p.ents = p.end - p.base;
    return p;
}

static uint32_t rp(const path *p, size_t k)
{
    uint32_t v = p->segs[k];
    v = v < p->base ? p->base : v > p->end ? p->end : v;
    return v - p->base;
}

static acc reduce_range(gpgpu_type type, gpgpu_op op, const void *src, uint32_t base,
                        uint32_t from, uint32_t to)
{
    acc a = acc_new(type, op);
    for (uint32_t j = from; j < to; j++)
        acc_add(&a, src, base + (size_t)j);
    return a;
}

void ref_segreduce(gpgpu_type type, gpgpu_op op, const void *src, size_t n,
                   const uint32_t *segs, size_t nseg, void *out, long double *abs_sum)
{
    path p = path_of(segs, nseg, n);
    for (size_t s = 0; s < nseg; s++) {
        acc a = reduce_range(type, op, src, p.base, rp(&p, s), rp(&p, s + 1));
        acc_store(&a, out, s, abs_sum);
    }
}

void ref_segreduce_plan(size_t n, const uint32_t *segs, size_t nseg, uint32_t step,
                        uint32_t slack, uint32_t tiles, uint32_t *plan)
{
    path p = path_of(segs, nseg, n);
    uint64_t len = nseg + (uint64_t)p.ents;
    for (uint32_t t = 0; t <= tiles; t++) {
        uint64_t d = (uint64_t)t * step < len ? (uint64_t)t * step : len;
        /* i: the segments whose end step rp(m + 1) + m lies before d (a prefix of them
         * for offsets in order), by the shader's bisection. */
        uint64_t lo = d > p.ents ? d - p.ents : 0, hi = d < nseg ? d : nseg;
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if (rp(&p, mid + 1) + mid < d)
                lo = mid + 1;
            else
                hi = mid;
        }
        uint32_t i = (uint32_t)lo;
        uint32_t j = (uint32_t)(d - i);
        if (i < nseg) {
            uint32_t start = rp(&p, i) < j ? rp(&p, i) : j;
            if (j - start <= slack)
                j = start;
        }
        plan[2 * t] = i;
        plan[2 * t + 1] = j;
    }
}

void ref_segreduce_tiles(gpgpu_type type, gpgpu_op op, const void *src, size_t n,
                         const uint32_t *segs, size_t nseg, const uint32_t *plan,
                         uint32_t tiles, uint32_t tile, void *out, long double *abs_out,
                         uint32_t *rec, void *work, long double *abs_work)
{
    path p = path_of(segs, nseg, n);
    for (uint32_t g = 0; g < tiles; g++) {
        uint32_t i0 = plan[2 * g] < nseg ? plan[2 * g] : (uint32_t)nseg;
        uint32_t j0 = plan[2 * g + 1] < p.ents ? plan[2 * g + 1] : p.ents;
        uint32_t i1 = plan[2 * g + 2], j1 = plan[2 * g + 3];
        uint32_t i1_most = nseg < (size_t)i0 + tile ? (uint32_t)nseg : i0 + tile;
        i1 = i1 < i0 ? i0 : i1 > i1_most ? i1_most : i1;
        j1 = j1 < j0 ? j0 : j1 > p.ents ? p.ents : j1;
        for (uint32_t r = i0; r < i1; r++) {
            uint32_t from = rp(&p, r) > j0 ? rp(&p, r) : j0;
            acc a = reduce_range(type, op, src, p.base, from, rp(&p, r + 1));
            if (r == i0 && rp(&p, i0) < j0)
                acc_store(&a, work, 2 * (size_t)g + 1, abs_work);
            else
                acc_store(&a, out, r, abs_out);
        }
        bool open = i1 < nseg && rp(&p, i1) < j1;
        rec[2 * g] = open ? i1 : UINT32_MAX;
        rec[2 * g + 1] = open && (i1 > i0 || rp(&p, i0) >= j0);
        acc tail = acc_new(type, op);
        if (open)
            tail = reduce_range(type, op, src, p.base, rp(&p, i1) > j0 ? rp(&p, i1) : j0, j1);
        acc_store(&tail, work, 2 * (size_t)g, abs_work);
    }
}

void ref_segreduce_fix(gpgpu_type type, gpgpu_op op, size_t nseg, const uint32_t *rec,
                       const void *work, uint32_t tiles, void *out, long double *abs_out)
{
    for (uint32_t g = 0; g < tiles; g++) {
        uint32_t r = rec[2 * g];
        if (r == UINT32_MAX || rec[2 * g + 1] == 0 || r >= nseg)
            continue;
        acc a = acc_new(type, op);
        acc_add(&a, work, 2 * (size_t)g);
        for (uint32_t h = g + 1; h < tiles && rec[2 * (h - 1)] == r; h++)
            acc_add(&a, work, 2 * (size_t)h + (rec[2 * h] == r ? 0 : 1));
        acc_store(&a, out, r, abs_out);
    }
}
