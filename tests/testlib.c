#include "testlib.h"

#include "algo/spmv.h" /* gpgpu_matrix's stats */

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Atomic int test_failures, test_checks, test_gl_debug_failures;

const size_t test_sizes[] = {
    0, 1, 2, 3, 5, 7, 31, 32, 33, 1000,
    63, 64, 65, 1023, 1024, 1025, 8191, 8192, 8193, 65535, 65536, 65537,
    262143, 262144, 262145, (1u << 20) + 3, 1u << 22,
    SIZE_MAX,
};

size_t test_max_n(void)
{
    static size_t max_n;
    if (!max_n) {
        const char *env = getenv("GPGPU_TEST_MAX_N");
        char *end = NULL;
        unsigned long long v = env && *env ? strtoull(env, &end, 10) : 0;
        max_n = env && *env && !*end && v > 0 ? (size_t)v : SIZE_MAX;
        if (max_n != SIZE_MAX)
            fprintf(stderr, "GPGPU_TEST_MAX_N: sizes above %zu are left out\n", max_n);
    }
    return max_n;
}

bool test_runs_large(size_t n, size_t k)
{
    static int all = -1;
    if (all < 0) {
        const char *env = getenv("GPGPU_TEST_ALL_SIZES");
        all = env && *env && strcmp(env, "0") != 0;
    }
    return all || n < TEST_SHARED_FROM || k % 2 == 0;
}

bool test_runs_size(size_t size_index, size_t type_index)
{
    size_t n = test_sizes[size_index];
    return n <= test_max_n() && test_runs_large(n, size_index + type_index);
}

/* Counts the failures that GL debug output caused (GPGPU_GL_DEBUG), so that
 * a message fails the test even from a call whose status it does not check. */
void test_on_error(gpgpu_status status, const char *message, void *user)
{
    (void)status;
    (void)user;
    if (strstr(message, "GL debug output: ")) {
        test_gl_debug_failures++;
        fprintf(stderr, "%s\n", message);
    }
}

void record_error(gpgpu_status status, const char *message, void *user_data)
{
    cb_record *r = user_data;
    r->calls++;
    r->status = status;
    snprintf(r->message, sizeof r->message, "%s", message);
}

gpgpu_context *test_context(void)
{
    return test_context_with(&(gpgpu_context_desc){0});
}

gpgpu_context *test_context_with(const gpgpu_context_desc *caller_desc)
{
    gpgpu_context_desc desc = *caller_desc;
    desc.debug = true;
    if (!desc.error_callback)
        desc.error_callback = test_on_error;
    /* The stage tests drive the executor outside any public call, and some tests make GL
     * calls of their own in a headless context between calls: both need it to stay current
     * (test_gl_contexts and test_threads test the default, which puts back what was). */
    setenv("GPGPU_GL_KEEP_CURRENT", "1", 1);
    gpgpu_context *ctx = NULL;
    gpgpu_status s = gpgpu_context_create(&desc, &ctx);
    if (s == GPGPU_ERROR_NO_CONTEXT || s == GPGPU_ERROR_GL_VERSION ||
        s == GPGPU_ERROR_BACKEND_UNAVAILABLE) {
        fprintf(stderr, "skipped: %s\n", gpgpu_last_error(NULL));
        exit(TEST_SKIPPED);
    }
    if (s != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu_context_create: %s\n", gpgpu_last_error(NULL));
        exit(1);
    }
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    fprintf(stderr, "%s on %s (%s), subgroups %s\n", info.backend, info.renderer, info.platform,
            info.has_subgroups ? "yes" : "no");
    return ctx;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void test_random(gpgpu_type type, void *out, size_t n, uint64_t seed)
{
    uint64_t state = seed * 0x2545f4914f6cdd1du + 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(&state);
        int sign = (r >> 63) ? -1 : 1;
        double unit = (double)(r >> 11 & ((1u << 30) - 1)) / (double)(1u << 30); /* [0, 1) */
        uint32_t small = 1 + (uint32_t)(r % 1000);
        switch (type) {
        case GPGPU_TYPE_U32: ((uint32_t *)out)[i] = small; break;
        case GPGPU_TYPE_I32: ((int32_t *)out)[i] = sign * (int32_t)small; break;
        case GPGPU_TYPE_F32: ((float *)out)[i] = (float)(sign * (0.5 + unit)); break;
        case GPGPU_TYPE_F64: ((double *)out)[i] = sign * (0.5 + unit); break;
        }
    }
}

void test_poison(void *p, size_t bytes)
{
    memset(p, 0xA5, bytes);
}

gpgpu_buffer *test_buffer(gpgpu_context *ctx, const void *data, size_t bytes)
{
    gpgpu_buffer *buf = NULL;
    size_t size = bytes ? bytes : 4;
    if (gpgpu_buffer_create(ctx, size, &buf) != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu_buffer_create(%zu): %s\n", size, gpgpu_last_error(ctx));
        exit(1);
    }
    void *poison = NULL;
    if (!data) {
        poison = malloc(size);
        test_poison(poison, size);
        data = poison;
    }
    if (gpgpu_buffer_upload(buf, 0, data, bytes ? bytes : 0) != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu_buffer_upload: %s\n", gpgpu_last_error(ctx));
        exit(1);
    }
    free(poison);
    return buf;
}

int test_finish(void)
{
    EXPECT(test_gl_debug_failures == 0, "GL debug output failed %d calls", test_gl_debug_failures);
    printf("%d passed, %d failed\n", test_checks - test_failures, test_failures);
    return test_failures ? 1 : 0;
}

/* ------------------------------------------- helpers of the numeric tests */

const gpgpu_type test_types[4] = {GPGPU_TYPE_U32, GPGPU_TYPE_I32, GPGPU_TYPE_F32,
                                  GPGPU_TYPE_F64};

uint64_t test_seed = 1;

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}

/* How many roundings lie, at most, between one input of wg_reduce or
 * wg_exclusive_scan (glsl/ops.glsl, glsl/scan.comp) and their results.
 * Shared memory: a tree of log2(WG_SIZE) levels (wg_reduce halves s each
 * level; Hillis-Steele adds one term per level), so log2(256) = 8.
 * Subgroups of S lanes: the subgroup operation's order is the driver's, and
 * any tree over at most S values has depth <= S - 1; the subgroup results
 * are then folded in strides (a chain of ceil(WG/S) additions, `run +=` in
 * the scan) and reduced (or scanned) by a second subgroup operation
 * (<= S - 1), and the scan adds `run + e` and `s_scan + in_sg` (2 more):
 * 2 (S - 1) + ceil(WG / S) + 2, with S = WG when the driver does not say. */
unsigned depth_of_wg(gpgpu_context *ctx, unsigned wg)
{
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    if (!info.has_subgroups) {
        unsigned d = 0;
        while ((1u << d) < wg)
            d++;
        return d;
    }
    unsigned s = info.subgroup_size ? info.subgroup_size : wg;
    return 2 * (s - 1) + (wg + s - 1) / s + 2;
}

/* Higham's bound for any summation tree of depth d, gamma(d) * sum|x| with
 * gamma(d) = d u / (1 - d u); one more u for rounding the reference's long
 * double result to T, one more for the reference's own error (compensated
 * long double: about 2^-63 sum|x|), so gamma(d + 2); and the smallest
 * normal of T against underflow. */
double tolerance(gpgpu_type t, size_t d, long double abs)
{
    long double u = t == GPGPU_TYPE_F32 ? 0x1p-24L : 0x1p-53L;
    long double du = (long double)(d + 2) * u;
    return (double)(du / (1 - du) * abs) + (t == GPGPU_TYPE_F32 ? FLT_MIN : DBL_MIN);
}

const char *show(gpgpu_type t, const void *p, size_t i, char *out, size_t size)
{
    const char *e = (const char *)p + i * gpgpu_type_size(t);
    uint32_t u;
    uint64_t b;
    float f;
    double d;
    switch (t) {
    case GPGPU_TYPE_U32: memcpy(&u, e, 4); snprintf(out, size, "%" PRIu32, u); break;
    case GPGPU_TYPE_I32: memcpy(&u, e, 4); snprintf(out, size, "%" PRId32, (int32_t)u); break;
    case GPGPU_TYPE_F32:
        memcpy(&f, e, 4), memcpy(&u, e, 4);
        snprintf(out, size, "%.9g (0x%08" PRIx32 ")", f, u);
        break;
    default:
        memcpy(&d, e, 8), memcpy(&b, e, 8);
        snprintf(out, size, "%.17g (0x%016" PRIx64 ")", d, b);
        break;
    }
    return out;
}

bool matches(gpgpu_type t, const void *got, const void *want, size_t i, double tol)
{
    size_t size = gpgpu_type_size(t);
    const char *g = (const char *)got + i * size, *w = (const char *)want + i * size;
    if (!is_float(t))
        return memcmp(g, w, size) == 0;
    double gv, wv;
    if (t == GPGPU_TYPE_F32) {
        float a, b;
        memcpy(&a, g, 4), memcpy(&b, w, 4), gv = a, wv = b;
    } else {
        memcpy(&gv, g, 8), memcpy(&wv, w, 8);
    }
    if (isnan(gv) || isnan(wv))
        return isnan(gv) && isnan(wv);
    if (tol < 0 || isinf(wv))
        return memcmp(g, w, size) == 0;
    return fabs(gv - wv) <= tol;
}

void check_row_stats(const char *what, const gpgpu_matrix *m, const gpgpu_csr *want)
{
    gpgpu_row_stats w;
    gpgpu_csr_row_stats(want, &w);
    const gpgpu_row_stats *got = &m->stats;
    EXPECT(got->max == w.max && got->min == w.min && got->empty_rows == w.empty_rows &&
               got->mean == w.mean,
           "%s: row stats max %u min %u empty %u mean %g; expected %u %u %u %g", what, got->max,
           got->min, got->empty_rows, got->mean, w.max, w.min, w.empty_rows, w.mean);
}

void check_elems(const char *what, gpgpu_type t, const void *got, const void *want, size_t n,
                 const double *tol)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (matches(t, got, want, i, tol ? tol[i] : -1))
            continue;
        if (++bad <= 5) {
            char a[64], b[64], c[40] = "bit-exact";
            if (tol && tol[i] >= 0)
                snprintf(c, sizeof c, "tolerance %g", tol[i]);
            fprintf(stderr, "  %s: element %zu: got %s, expected %s (%s)\n", what, i,
                    show(t, got, i, a, sizeof a), show(t, want, i, b, sizeof b), c);
        }
    }
    EXPECT(bad == 0, "%s: %zu of %zu elements differ", what, bad, n);
}

double *exact(size_t n)
{
    double *tol = xmalloc(n * sizeof *tol);
    for (size_t i = 0; i < n; i++)
        tol[i] = -1;
    return tol;
}

slab slab_make(gpgpu_context *ctx, gpgpu_type t, size_t pre, size_t n, size_t post,
               const void *data)
{
    size_t size = gpgpu_type_size(t);
    slab s = {ctx, t, pre + n + post, xmalloc((pre + n + post) * size), NULL};
    test_poison(s.host, s.len * size);
    if (data)
        memcpy((char *)s.host + pre * size, data, n * size);
    else
        test_random(t, (char *)s.host + pre * size, n, test_seed++);
    s.buf = test_buffer(ctx, s.host, s.len * size);
    return s;
}

void *slab_at(const slab *s, size_t i)
{
    return (char *)s->host + i * gpgpu_type_size(s->t);
}

void slab_check(const slab *s, const double *tol, const char *what)
{
    size_t bytes = s->len * gpgpu_type_size(s->t);
    void *got = xmalloc(bytes);
    EXPECT_STATUS(s->ctx, gpgpu_buffer_download(s->buf, 0, got, bytes), GPGPU_SUCCESS);
    check_elems(what, s->t, got, s->host, s->len, tol);
    free(got);
}

void slab_free(slab *s)
{
    gpgpu_buffer_destroy(s->buf);
    free(s->host);
}

void test_die_on(gpgpu_status s, const char *what)
{
    if (s != GPGPU_SUCCESS) {
        fprintf(stderr, "%s: %s\n", what, gpgpu_last_error(NULL));
        exit(1);
    }
}

gpgpu_csr test_csr_of(uint32_t rows, uint32_t cols, size_t nnz, const uint32_t *rp,
                      const uint32_t *ci, const double *values)
{
    gpgpu_csr a = {rows, cols, nnz, xmalloc((rows + 1) * sizeof(uint32_t)),
                   xmalloc(nnz * sizeof(uint32_t)), xmalloc(nnz * sizeof(double))};
    memcpy(a.row_ptr, rp, (rows + 1) * sizeof(uint32_t));
    if (nnz)
        memcpy(a.col_idx, ci, nnz * sizeof(uint32_t));
    if (values) {
        memcpy(a.values, values, nnz * sizeof(double));
        return a;
    }
    float *v = xmalloc(nnz * sizeof *v);
    test_random(GPGPU_TYPE_F32, v, nnz, test_seed++);
    for (size_t k = 0; k < nnz; k++)
        a.values[k] = v[k];
    free(v);
    return a;
}

gpgpu_csr test_generated(gpgpu_generator gen, uint32_t size, uint32_t avg)
{
    gpgpu_csr a = {0};
    test_die_on(gpgpu_generate(gen, size, avg, 42 + size, &a), "gpgpu_generate");
    return a;
}
