/* The vector operations (gpgpu_axpby, gpgpu_dot, gpgpu_axpby_dot and their
 * stages) against the CPU, f32 and f64, on the sizes every primitive is
 * tested on: AXPBY within the two roundings of alpha*x + beta*y (one where
 * beta = 0, bit for bit, with y poisoned by NaN), dot products within a
 * bound derived from the depth of their sums, the first pass of each (the
 * reduce family's TILES over products, after an update) alone, and the
 * errors of misuse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/reduce.h"
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

/* y = alpha*x + beta*y of the CPU (alpha and beta rounded to the type first,
 * as the call documents; the caller rounds the result to the type) and the
 * bound on the GPU's difference from it, -1 for none: where beta = 0 one
 * rounding of a product the CPU rounds alike, else at most two roundings (or
 * one, fused) of terms this big. */
/* A scalar of the calls as they use it: rounded to the type first. */
static double in_type(gpgpu_type t, double v) { return t == GPGPU_TYPE_F32 ? (float)v : v; }

/* alpha*x + beta*y in long double, the scalars rounded to the type (beta = 0:
 * y not read): the update before the GPU rounds it. */
static long double exact_update(gpgpu_type t, double alpha, double xi, double beta, double yi)
{
    long double e = (long double)in_type(t, alpha) * xi;
    return beta == 0.0 ? e : e + (long double)in_type(t, beta) * yi;
}

static double axpby_twin(gpgpu_type t, double alpha, double xi, double beta, double yi,
                         double *tol)
{
    double a = in_type(t, alpha), b = in_type(t, beta);
    double ax = a * xi;
    *tol = beta == 0.0 ? -1 : 2 * unit(t) * (fabs(ax) + fabs(b * yi)) * (1 + 4 * unit(t));
    return beta == 0.0 ? ax : ax + b * yi;
}

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
    for (size_t i = 0; i < n; i++)
        put(t, slab_at(&sy, 5), i,
            axpby_twin(t, alpha, get(t, x, i), beta, get(t, y, i), &tol[5 + i]));
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, t, n, alpha, sx.buf, 3, beta, sy.buf, 5), GPGPU_SUCCESS);
    slab_check(&sy, tol, what);
    slab_check(&sx, NULL, what);
    free(tol);
    slab_free(&sx);
    slab_free(&sy);
    free(x);
    free(y);
}

/* Depth of an input in a dot product's sum after its product: the adds of
 * its invocation over its group's blocks, the group's tree, the fold's adds
 * over the partial sums and its tree. */
static size_t sum_depth(size_t n)
{
    reduce_plan p = reduce_plan_for(ctx, n);
    size_t blocks = ceil_div(ceil_div(n, p.block), p.groups);
    return blocks * 4 + depth_of_wg(ctx, 256) + ceil_div(p.groups, 1024) * 4 +
           depth_of_wg(ctx, 256) + 2;
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
    size_t d = 1 + sum_depth(n);
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
    /* gpgpu_dot_to_buffer: the same sum, rounded to the type, at its element of a poisoned
     * slab (everything around it untouched). */
    slab so = slab_make(ctx, t, 2, 1, 3, NULL);
    put(t, slab_at(&so, 2), 0, got);
    EXPECT_STATUS(ctx,
                  gpgpu_dot_to_buffer(ctx, t, n, sx.buf, 1, same ? sx.buf : sy.buf,
                                      same ? 1 : 2, so.buf, 2),
                  GPGPU_SUCCESS);
    slab_check(&so, NULL, "dot_to_buffer writes gpgpu_dot's value at its element");
    slab_free(&so);
    slab_check(&sx, NULL, "dot leaves x alone");
    slab_check(&sy, NULL, "dot leaves y alone");
    slab_free(&sx);
    slab_free(&sy);
    free(x);
    free(y);
}

/* How the first pass of a dot product reads: products x*y, or an update of
 * y first and then the products of the new y with w or with itself. */
enum dot_mode { PRODUCTS, UPDATE_TIMES_W, UPDATE_SQUARED };

/* The dot product's first pass alone (the reduce family's TILES over
 * products, after an update where the mode says so): every group's partial
 * sum against the CPU's sum of its blocks, within the depth of its sum plus
 * the roundings of the update and the product (3, or 5 squared); the
 * updated y as gpgpu_axpby's bound; x (and w) untouched. */
static void stage_dot(gpgpu_type t, size_t n, enum dot_mode mode)
{
    const double alpha = -0.625, beta = mode == UPDATE_SQUARED ? 0.0 : 1.25;
    size_t s = gpgpu_type_size(t);
    void *x = xmalloc(n * s), *y = xmalloc(n * s), *w = xmalloc(n * s);
    test_random(t, x, n, test_seed++);
    test_random(t, y, n, test_seed++);
    test_random(t, w, n, test_seed++);
    if (mode == UPDATE_SQUARED)
        for (size_t i = 0; i < n; i++)
            put(t, y, i, NAN); /* beta = 0: y must not be read */
    reduce_plan p = reduce_plan_for(ctx, n);
    slab sx = slab_make(ctx, t, 0, n, 1, x), sy = slab_make(ctx, t, 4, n, 0, y);
    slab sw = slab_make(ctx, t, 1, n, 2, w);
    slab part = slab_make(ctx, t, 2, p.groups, 3, NULL);
    double *tol = exact(part.len), *ytol = exact(sy.len);
    /* the factor each product multiplies x (or the new y) by */
    long double *e = xmalloc(n * sizeof *e), *by = xmalloc(n * sizeof *by);
    for (size_t i = 0; i < n; i++) {
        if (mode == PRODUCTS) {
            e[i] = get(t, x, i);
            by[i] = get(t, y, i);
            continue;
        }
        put(t, slab_at(&sy, 4), i, axpby_twin(t, alpha, get(t, x, i), beta, get(t, y, i),
                                               &ytol[4 + i]));
        /* the update in exact arithmetic; the GPU's rounding is in the bound */
        e[i] = exact_update(t, alpha, get(t, x, i), beta, get(t, y, i));
        by[i] = mode == UPDATE_SQUARED ? e[i] : (long double)get(t, w, i);
    }
    size_t blocks = ceil_div(n, p.block);
    size_t extra = mode == PRODUCTS ? 1 : mode == UPDATE_SQUARED ? 5 : 3;
    for (uint32_t g = 0; g < p.groups; g++) {
        long double sum = 0, abs = 0;
        for (size_t b = g; b < blocks; b += p.groups)
            for (size_t i = b * p.block; i < (b + 1) * p.block && i < n; i++) {
                sum += e[i] * by[i];
                abs += fabsl(e[i] * by[i]);
            }
        put(t, slab_at(&part, 2), g, (double)sum);
        size_t depth = extra + ceil_div(blocks, p.groups) * 4 + depth_of_wg(ctx, 256);
        tol[2 + g] = tolerance(t, depth, abs);
    }
    reduce_source src = {.buf = sx.buf, .off = 0, .times = sy.buf, .times_off = 4};
    if (mode != PRODUCTS) {
        src = (reduce_source){.buf = sx.buf, .update = sy.buf, .update_off = 4, .alpha = alpha,
                              .beta = beta};
        if (mode == UPDATE_TIMES_W) {
            src.times = sw.buf;
            src.times_off = 1;
        }
    }
    EXPECT_STATUS(ctx,
                  reduce_stage_tiles(ctx, t, GPGPU_OP_SUM, src, n, false, part.buf, 2, p.groups),
                  GPGPU_SUCCESS);
    static const char *const mode_names[] = {"x*y", "update, new y*w", "update (beta 0), new y^2"};
    char what[128];
    snprintf(what, sizeof what, "%s TILES of products (%s) n=%zu groups=%u", gpgpu_type_name(t),
             mode_names[mode], n, p.groups);
    slab_check(&part, tol, what);
    slab_check(&sy, ytol, what);
    slab_check(&sx, NULL, what);
    slab_check(&sw, NULL, what);
    free(tol);
    free(ytol);
    free(e);
    free(by);
    slab_free(&sx);
    slab_free(&sy);
    slab_free(&sw);
    slab_free(&part);
    free(x);
    free(y);
    free(w);
}

/* gpgpu_axpby_dot: y as gpgpu_axpby leaves it, the dot product of the new
 * y with w (or with itself, beta = 0 over a NaN-poisoned y) within the
 * depth of the sum plus the update's and the product's roundings. */
static void check_axpby_dot(gpgpu_type t, size_t n, bool squared)
{
    const double alpha = 0.375, beta = squared ? 0.0 : -1.5;
    size_t s = gpgpu_type_size(t);
    void *x = xmalloc(n * s), *y = xmalloc(n * s), *w = xmalloc(n * s);
    test_random(t, x, n, test_seed++);
    test_random(t, y, n, test_seed++);
    test_random(t, w, n, test_seed++);
    if (squared)
        for (size_t i = 0; i < n; i++)
            put(t, y, i, NAN);
    slab sx = slab_make(ctx, t, 2, n, 1, x), sy = slab_make(ctx, t, 1, n, 3, y);
    slab sw = slab_make(ctx, t, 0, n, 2, w);
    double *ytol = exact(sy.len);
    long double want = 0, abs = 0;
    for (size_t i = 0; i < n; i++) {
        long double e = exact_update(t, alpha, get(t, x, i), beta, get(t, y, i));
        long double p = e * (squared ? e : (long double)get(t, w, i));
        want += p;
        abs += fabsl(p);
        put(t, slab_at(&sy, 1), i, axpby_twin(t, alpha, get(t, x, i), beta, get(t, y, i),
                                               &ytol[1 + i]));
    }
    double got = -1;
    EXPECT_STATUS(ctx,
                  gpgpu_axpby_dot(ctx, t, n, alpha, sx.buf, 2, beta, sy.buf, 1,
                                  squared ? sy.buf : sw.buf, squared ? 1 : 0, &got),
                  GPGPU_SUCCESS);
    double bound = tolerance(t, (squared ? 5 : 3) + sum_depth(n), abs);
    EXPECT(fabsl(got - want) <= bound, "%s axpby_dot n=%zu%s: %.17g, want %.17Lg (bound %g)",
           gpgpu_type_name(t), n, squared ? " (y, y)" : "", got, want, bound);
    char what[96];
    snprintf(what, sizeof what, "%s axpby_dot n=%zu%s", gpgpu_type_name(t), n,
             squared ? " (y, y)" : "");
    slab_check(&sy, ytol, what);
    slab_check(&sx, NULL, what);
    slab_check(&sw, NULL, what);
    free(ytol);
    slab_free(&sx);
    slab_free(&sy);
    slab_free(&sw);
    free(x);
    free(y);
    free(w);
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
    /* axpby_dot on 4 elements, x at 0: x must not overlap y; w may be y's own
     * range, or x, or apart from y (w_off SIZE_MAX: NULL; no_result: NULL). */
    static const struct {
        gpgpu_type type;
        size_t y_off, w_off;
        bool no_result;
        gpgpu_status want;
    } axpby_dot_cases[] = {
        {GPGPU_TYPE_F32, 0, 8, false, GPGPU_ERROR_OVERLAP},
        {GPGPU_TYPE_F32, 4, 6, false, GPGPU_ERROR_OVERLAP},
        {GPGPU_TYPE_F32, 4, 4, false, GPGPU_SUCCESS},
        {GPGPU_TYPE_F32, 4, 0, false, GPGPU_SUCCESS},
        {GPGPU_TYPE_F32, 4, 13, false, GPGPU_ERROR_OUT_OF_RANGE},
        {GPGPU_TYPE_F32, 4, SIZE_MAX, false, GPGPU_ERROR_NULL_POINTER},
        {GPGPU_TYPE_F32, 4, 8, true, GPGPU_ERROR_NULL_POINTER},
        {GPGPU_TYPE_I32, 4, 8, false, GPGPU_ERROR_UNSUPPORTED_COMBINATION},
    };
    for (size_t i = 0; i < sizeof axpby_dot_cases / sizeof axpby_dot_cases[0]; i++) {
        size_t w_off = axpby_dot_cases[i].w_off;
        EXPECT_STATUS(ctx,
                      gpgpu_axpby_dot(ctx, axpby_dot_cases[i].type, 4, 1, b, 0, 1, b,
                                      axpby_dot_cases[i].y_off, w_off == SIZE_MAX ? NULL : b,
                                      w_off == SIZE_MAX ? 0 : w_off,
                                      axpby_dot_cases[i].no_result ? NULL : &r),
                      axpby_dot_cases[i].want);
    }
    r = 5;
    EXPECT_STATUS(ctx, gpgpu_axpby_dot(ctx, GPGPU_TYPE_F32, 0, 1, b, 0, 1, b, 0, b, 0, &r),
                  GPGPU_SUCCESS);
    EXPECT(r == 0.0, "axpby_dot of no elements gave %g", r);
    r = 5;
    EXPECT_STATUS(ctx, gpgpu_dot(ctx, GPGPU_TYPE_F32, 0, b, 0, b, 0, &r), GPGPU_SUCCESS);
    EXPECT(r == 0.0, "dot of no elements gave %g", r);
    EXPECT_STATUS(NULL, gpgpu_dot(NULL, GPGPU_TYPE_F32, 0, b, 0, b, 0, &r),
                  GPGPU_ERROR_NULL_POINTER);
    /* gpgpu_dot_to_buffer: x and y of 4 at 0 and 4, the result's element (16 floats in b). */
    static const struct {
        gpgpu_type type;
        size_t out_off;
        bool no_out;
        gpgpu_status want;
    } to_buffer_cases[] = {
        {GPGPU_TYPE_F32, 8, false, GPGPU_SUCCESS},
        {GPGPU_TYPE_F32, 15, false, GPGPU_SUCCESS},
        {GPGPU_TYPE_F32, 16, false, GPGPU_ERROR_OUT_OF_RANGE},
        {GPGPU_TYPE_F32, 3, false, GPGPU_ERROR_OVERLAP},
        {GPGPU_TYPE_F32, 5, false, GPGPU_ERROR_OVERLAP},
        {GPGPU_TYPE_F32, 8, true, GPGPU_ERROR_NULL_POINTER},
        {GPGPU_TYPE_U32, 8, false, GPGPU_ERROR_UNSUPPORTED_COMBINATION},
        {(gpgpu_type)0, 8, false, GPGPU_ERROR_INVALID_ARGUMENT},
    };
    for (size_t i = 0; i < sizeof to_buffer_cases / sizeof to_buffer_cases[0]; i++)
        EXPECT_STATUS(ctx,
                      gpgpu_dot_to_buffer(ctx, to_buffer_cases[i].type, 4, b, 0, b, 4,
                                          to_buffer_cases[i].no_out ? NULL : b,
                                          to_buffer_cases[i].out_off),
                      to_buffer_cases[i].want);
    EXPECT_STATUS(ctx, gpgpu_dot_to_buffer(ctx, GPGPU_TYPE_F32, 1, NULL, 0, b, 4, b, 8),
                  GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(NULL, gpgpu_dot_to_buffer(NULL, GPGPU_TYPE_F32, 1, b, 0, b, 4, b, 8),
                  GPGPU_ERROR_NULL_POINTER);
    /* No elements: 0 written over whatever was there. */
    float five = 5, zero_back = -1;
    gpgpu_buffer_upload(b, 12 * sizeof(float), &five, sizeof five);
    EXPECT_STATUS(ctx, gpgpu_dot_to_buffer(ctx, GPGPU_TYPE_F32, 0, b, 0, b, 4, b, 12),
                  GPGPU_SUCCESS);
    gpgpu_buffer_download(b, 12 * sizeof(float), &zero_back, sizeof zero_back);
    EXPECT(zero_back == 0.0f, "dot_to_buffer of no elements wrote %g", zero_back);
    gpgpu_buffer_destroy(b);
}

int main(void)
{
    ctx = test_context();
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
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
            check_axpby_dot(t, n, si % 2 == 0);
            if (si % 4 == 0)
                for (int mode = PRODUCTS; mode <= UPDATE_SQUARED; mode++)
                    stage_dot(t, n, (enum dot_mode)mode);
        }
    }
    errors();
    gpgpu_context_destroy(ctx);
    return test_finish();
}
