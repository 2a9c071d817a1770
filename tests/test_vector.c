/* The vector family (gpgpu_axpby, gpgpu_dot and their stages) against the
 * CPU, f32 and f64, on the sizes every primitive is tested on: AXPBY within
 * the two roundings of alpha*x + beta*y (one where beta = 0, bit for bit,
 * with y poisoned by NaN), DOT within a bound derived from the summation
 * depth of its two passes, and the errors of misuse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/vector.h"
#include "testlib.h"

static gpgpu_context *ctx;

static double get(gpgpu_type t, const void *p, size_t i)
{
    return t == GPGPU_TYPE_F64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

static void put(gpgpu_type t, void *p, size_t i, double v)
{
    if (t == GPGPU_TYPE_F64)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

static double unit(gpgpu_type t) { return t == GPGPU_TYPE_F64 ? 0x1p-53 : 0x1p-24; }

static void check_axpby(gpgpu_type t, size_t n, double alpha, double beta)
{
    char what[160];
    snprintf(what, sizeof what, "%s axpby n=%zu alpha=%g beta=%g", gpgpu_type_name(t), n, alpha,
             beta);
    size_t s = gpgpu_type_size(t);
    void *x = xmalloc(n * s), *y = xmalloc(n * s);
    test_random(t, x, n, test_seed++);
    test_random(t, y, n, test_seed++);
    if (beta == 0.0)
        for (size_t i = 0; i < n; i++)
            put(t, y, i, NAN);
    slab sx = slab_make(ctx, t, 3, n, 2, x);
    slab sy = slab_make(ctx, t, 5, n, 1, y);
    double *tol = exact(sy.len);
    for (size_t i = 0; i < n; i++) {
        /* alpha and beta are rounded to the type first, as the call documents. */
        double a = alpha, b = beta;
        if (t == GPGPU_TYPE_F32) {
            a = (float)alpha;
            b = (float)beta;
        }
        double ax = a * get(t, x, i), want = beta == 0.0 ? ax : ax + b * get(t, y, i);
        put(t, slab_at(&sy, 5), i, want);
        /* beta = 0: one rounding of a product the CPU rounds alike: exact.
         * Otherwise at most two roundings (or one, fused) of terms this big. */
        if (beta != 0.0)
            tol[5 + i] = 2 * unit(t) * (fabs(ax) + fabs(b * get(t, y, i))) * (1 + 4 * unit(t));
    }
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, t, n, alpha, sx.buf, 3, beta, sy.buf, 5), GPGPU_SUCCESS);
    slab_check(&sy, tol, what);
    slab_check(&sx, NULL, what);
    free(tol);
    slab_free(&sx);
    slab_free(&sy);
    free(x);
    free(y);
}

static void check_dot(gpgpu_type t, size_t n, bool same, bool with_nan)
{
    size_t s = gpgpu_type_size(t);
    void *x = xmalloc(n * s), *y = xmalloc(n * s);
    test_random(t, x, n, test_seed++);
    test_random(t, y, n, test_seed++);
    if (with_nan && n > 0)
        put(t, x, n / 2, NAN);
    slab sx = slab_make(ctx, t, 1, n, 3, x);
    slab sy = slab_make(ctx, t, 2, n, 2, y);
    const void *yy = same ? x : y;
    long double want = 0, abs = 0;
    for (size_t i = 0; i < n; i++) {
        long double p = (long double)get(t, x, i) * get(t, yy, i);
        want += p;
        abs += fabsl(p);
    }
    /* Depth of an input in the sum: its product, the adds of its invocation
     * over its group's blocks, the group's tree, the second pass's adds over
     * the partial sums and its tree. */
    reduce_plan p = reduce_plan_for(n);
    size_t blocks = ceil_div(ceil_div(n, p.block), p.groups);
    size_t d = 1 + blocks * 4 + depth_of_wg(ctx, 256) + ceil_div(p.groups, 1024) * 4 +
               depth_of_wg(ctx, 256) + 2;
    double got = -1;
    EXPECT_STATUS(ctx,
                  gpgpu_dot(ctx, t, n, sx.buf, 1, same ? sx.buf : sy.buf, same ? 1 : 2, &got),
                  GPGPU_SUCCESS);
    double bound = tolerance(t, d, abs);
    if (with_nan && n > 0)
        EXPECT(isnan(got), "%s dot n=%zu: a NaN input gave %g", gpgpu_type_name(t), n, got);
    else
        EXPECT(fabsl(got - want) <= bound, "%s dot n=%zu%s: %.17g, want %.17Lg (bound %g)",
               gpgpu_type_name(t), n, same ? " (x, x)" : "", got, want, bound);
    slab_check(&sx, NULL, "dot leaves x alone");
    slab_check(&sy, NULL, "dot leaves y alone");
    slab_free(&sx);
    slab_free(&sy);
    free(x);
    free(y);
}

/* DOT alone: every group's partial sum against the CPU's sum of its blocks. */
static void stage_dot(gpgpu_type t, size_t n)
{
    size_t s = gpgpu_type_size(t);
    void *x = xmalloc(n * s), *y = xmalloc(n * s);
    test_random(t, x, n, test_seed++);
    test_random(t, y, n, test_seed++);
    reduce_plan p = reduce_plan_for(n);
    slab sx = slab_make(ctx, t, 0, n, 1, x), sy = slab_make(ctx, t, 4, n, 0, y);
    slab part = slab_make(ctx, t, 2, p.groups, 3, NULL);
    double *tol = exact(part.len);
    size_t blocks = ceil_div(n, p.block);
    for (uint32_t g = 0; g < p.groups; g++) {
        long double sum = 0, abs = 0;
        for (size_t b = g; b < blocks; b += p.groups)
            for (size_t i = b * p.block; i < (b + 1) * p.block && i < n; i++) {
                long double v = (long double)get(t, x, i) * get(t, y, i);
                sum += v;
                abs += fabsl(v);
            }
        put(t, slab_at(&part, 2), g, (double)sum);
        tol[2 + g] = tolerance(t, 1 + ceil_div(blocks, p.groups) * 4 + depth_of_wg(ctx, 256), abs);
    }
    EXPECT_STATUS(ctx, vector_stage_dot(ctx, t, n, sx.buf, 0, sy.buf, 4, part.buf, 2, p.groups),
                  GPGPU_SUCCESS);
    char what[96];
    snprintf(what, sizeof what, "%s DOT stage n=%zu groups=%u", gpgpu_type_name(t), n, p.groups);
    slab_check(&part, tol, what);
    free(tol);
    slab_free(&sx);
    slab_free(&sy);
    slab_free(&part);
    free(x);
    free(y);
}

static void errors(void)
{
    gpgpu_buffer *b = test_buffer(ctx, NULL, 64);
    double r;
    EXPECT_STATUS(ctx, gpgpu_dot(ctx, GPGPU_TYPE_U32, 4, b, 0, b, 4, &r),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, GPGPU_TYPE_I32, 4, 1, b, 0, 1, b, 4),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_dot(ctx, GPGPU_TYPE_F32, 4, b, 0, b, 4, NULL),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_dot(ctx, GPGPU_TYPE_F32, 17, b, 0, b, 0, &r),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, GPGPU_TYPE_F32, 8, 1, b, 0, 1, b, 4), GPGPU_ERROR_OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, GPGPU_TYPE_F32, 8, 2, b, 4, 1, b, 4), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, GPGPU_TYPE_F32, 1, 2, NULL, 0, 1, b, 4),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, GPGPU_TYPE_F32, 1, 2, b, 0, 1, NULL, 4),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(NULL, gpgpu_axpby(NULL, GPGPU_TYPE_F32, 1, 2, b, 0, 1, b, 4),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_dot(ctx, GPGPU_TYPE_F32, 1, NULL, 0, b, 0, &r),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_dot(ctx, GPGPU_TYPE_F32, 1, b, 0, NULL, 0, &r),
                  GPGPU_ERROR_NULL_POINTER);
    /* Unknown types are invalid arguments; known ones other than f32 and f64 unsupported. */
    static const gpgpu_type unknown[] = {(gpgpu_type)0, (gpgpu_type)5, (gpgpu_type)-1};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        EXPECT_STATUS(ctx, gpgpu_axpby(ctx, unknown[i], 1, 2, b, 0, 1, b, 4),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_dot(ctx, unknown[i], 1, b, 0, b, 4, &r),
                      GPGPU_ERROR_INVALID_ARGUMENT);
    }
    r = 5;
    EXPECT_STATUS(ctx, gpgpu_dot(ctx, GPGPU_TYPE_F32, 0, b, 0, b, 0, &r), GPGPU_SUCCESS);
    EXPECT(r == 0.0, "dot of no elements gave %g", r);
    EXPECT_STATUS(NULL, gpgpu_dot(NULL, GPGPU_TYPE_F32, 0, b, 0, b, 0, &r),
                  GPGPU_ERROR_NULL_POINTER);
    gpgpu_buffer_destroy(b);
}

int main(void)
{
    ctx = test_context();
    gpgpu_info info;
    gpgpu_context_info(ctx, &info);
    for (int ti = 0; ti < 2; ti++) {
        gpgpu_type t = ti ? GPGPU_TYPE_F64 : GPGPU_TYPE_F32;
        if (t == GPGPU_TYPE_F64 && !info.has_f64) {
            double r;
            gpgpu_buffer *b = test_buffer(ctx, NULL, 64);
            EXPECT_STATUS(ctx, gpgpu_dot(ctx, t, 2, b, 0, b, 0, &r),
                          GPGPU_ERROR_UNSUPPORTED_FEATURE);
            gpgpu_buffer_destroy(b);
            continue;
        }
        for (size_t si = 0; test_sizes[si] != SIZE_MAX; si++) {
            size_t n = test_sizes[si];
            if (n > test_max_n())
                continue;
            check_axpby(t, n, 1.5, -0.75);
            check_axpby(t, n, -3.0, 0.0);
            check_dot(t, n, false, false);
            if (si % 3 == 0)
                check_dot(t, n, true, si % 2 == 0);
            if (si % 4 == 0)
                stage_dot(t, n);
        }
    }
    errors();
    gpgpu_context_destroy(ctx);
    return test_finish();
}
