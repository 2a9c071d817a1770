/* The public calls at the extremes of their counts and dimensions: SIZE_MAX, SIZE_MAX / 8,
 * 2^31, 2^32 and the products that pass 2^31 - 1 or 2^64, in every argument that is a count,
 * an offset or a size. Each gets its exact status (GPGPU_ERROR_TOO_LARGE naming the quantity
 * where the count itself is past what the library takes, OUT_OF_RANGE where it runs past a
 * buffer), never a crash or a size that wrapped into a small one, and the largest counts that
 * are taken give sizes at least as large as the data they describe. Then the scalars at the
 * extremes of their types: alpha and beta of gpgpu_axpby, gpgpu_axpby_dot, gpgpu_gemm and
 * gpgpu_spmv past f32's range, infinite or NaN are refused, naming the value and which scalar,
 * with nothing written; FLT_MAX itself, and 1e300 in f64, are taken. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu/io.h"
#include "testlib.h"

static gpgpu_context *ctx;

#define TOO_LARGE GPGPU_ERROR_TOO_LARGE
#define RANGE GPGPU_ERROR_OUT_OF_RANGE

/* The counts past what any call takes, and the largest one a sort takes. */
static const size_t huge[] = {SIZE_MAX, SIZE_MAX / 8, (size_t)1 << 31, (size_t)1 << 32};
enum { HUGE_COUNT = sizeof huge / sizeof huge[0] };
#define MAX_KEYS ((size_t)0x7fffffff)

#define EXPECT_MESSAGE_HAS(ctx, text)                                                    \
    EXPECT(strstr(gpgpu_last_error(ctx), text) != NULL, "last error \"%s\" lacks \"%s\"", \
           gpgpu_last_error(ctx), text)

/* ------------------------------------------------------------- sort scratch */

enum { VALUES_NONE, VALUES_IN_PLACE, VALUES_OUT, VALUES_KINDS };

/* The bytes a sort of n keys keeps in scratch at the least: the radix sort's second copy of
 * the keys (and of the payload it carries: the values, or the input index for segments), the
 * index a stable network or a segmented sort sorts by, and a copy of values gathered in
 * place through it. */
static size_t least_scratch(const gpgpu_sort_desc *d, size_t n, bool radix)
{
    bool by_index = d->segments != NULL || (!radix && d->stable);
    bool in_place = d->values_in && !d->values_out;
    size_t bytes = by_index ? n * 4 : 0;
    if (radix)
        bytes += n * gpgpu_type_size(d->type) + (d->values_in || by_index ? n * 4 : 0);
    if (by_index && in_place)
        bytes += n * 4;
    return bytes;
}

static void check_scratch_sizes(void)
{
    static const gpgpu_algo algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_FAST,
                                       GPGPU_ALGO_CLASSIC_NETSORT, GPGPU_ALGO_BITONIC,
                                       GPGPU_ALGO_RADIX};
    gpgpu_buffer *values_in = test_buffer(ctx, NULL, 64), *values_out = test_buffer(ctx, NULL, 64);
    gpgpu_buffer *segments = test_buffer(ctx, NULL, 64);
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t ai = 0; ai < sizeof algos / sizeof algos[0]; ai++)
            for (int values = 0; values < VALUES_KINDS; values++)
                for (int segs = 0; segs < 2; segs++)
                    for (int stable = 0; stable < 2; stable++) {
                        gpgpu_sort_desc d = {.type = test_types[ti], .algo = algos[ai],
                                             .stable = stable};
                        d.values_in = values != VALUES_NONE ? values_in : NULL;
                        d.values_out = values == VALUES_OUT ? values_out : NULL;
                        d.segments = segs ? segments : NULL;
                        d.segment_count = segs ? 3 : 0;
                        char what[160];
                        snprintf(what, sizeof what, "%s, algo %d, values %d, segments %d, "
                                 "stable %d", gpgpu_type_name(d.type), (int)d.algo, values,
                                 segs, stable);
                        for (size_t h = 0; h < HUGE_COUNT; h++) {
                            size_t bytes = 12345;
                            EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &d, huge[h], &bytes),
                                          TOO_LARGE);
                            char count[64];
                            snprintf(count, sizeof count, "%zu keys", huge[h]);
                            EXPECT_MESSAGE_HAS(ctx, count);
                            EXPECT(bytes == 12345, "%s: %zu keys: *bytes set to %zu on failure",
                                   what, huge[h], bytes);
                        }
                        size_t bytes = 0;
                        EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &d, MAX_KEYS, &bytes),
                                      GPGPU_SUCCESS);
                        /* 2^31 - 1 keys is past one tile: DEFAULT and FAST take the radix sort */
                        bool radix = d.algo <= GPGPU_ALGO_FAST || d.algo == GPGPU_ALGO_RADIX;
                        size_t least = least_scratch(&d, MAX_KEYS, radix);
                        EXPECT(bytes >= least && bytes % 8 == 0,
                               "%s: 2^31 - 1 keys: scratch size %zu, below the %zu the sort "
                               "keeps there (or not a multiple of 8)", what, bytes, least);
                    }
    gpgpu_buffer_destroy(values_in);
    gpgpu_buffer_destroy(values_out);
    gpgpu_buffer_destroy(segments);
}

/* --------------------------------------------------- buffers and primitives */

static void check_buffers(void)
{
    gpgpu_buffer *a = test_buffer(ctx, NULL, 64), *b = test_buffer(ctx, NULL, 64);
    char host[64] = {0};
    for (size_t h = 0; h < HUGE_COUNT; h++) {
        EXPECT_STATUS(ctx, gpgpu_buffer_upload(a, huge[h], host, 1), RANGE);
        EXPECT_STATUS(ctx, gpgpu_buffer_upload(a, 8, host, huge[h]), RANGE);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(a, huge[h], host, 1), RANGE);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(a, 8, host, huge[h]), RANGE);
        size_t aligned = huge[h] & ~(size_t)3;
        EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, aligned, b, 0, 4), RANGE);
        EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, 0, b, aligned, 4), RANGE);
        EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, 4, b, 0, aligned), RANGE);
    }
    /* No device holds SIZE_MAX bytes: refused before any driver call (smaller sizes reach
     * the driver, whose refusal GL debug output reports; 2^31 and 2^32 may well fit). */
    gpgpu_buffer *none = a;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, SIZE_MAX, &none), GPGPU_ERROR_OUT_OF_MEMORY);
    EXPECT(none == NULL, "a refused gpgpu_buffer_create of SIZE_MAX bytes left a buffer");
    /* An offset and a size whose sum wraps past SIZE_MAX to a small number. */
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(a, 16, host, SIZE_MAX - 7), RANGE);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, 16, b, 0, (SIZE_MAX & ~(size_t)3) - 12), RANGE);
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
}

static void check_primitives(void)
{
    gpgpu_buffer *a = test_buffer(ctx, NULL, 256), *b = test_buffer(ctx, NULL, 256);
    const gpgpu_type f = GPGPU_TYPE_F32;
    float r[2];
    double dot;
    gpgpu_reduce_desc rd = {.type = f, .op = GPGPU_OP_SUM};
    gpgpu_scan_desc sd = {.type = f};
    gpgpu_sort_desc so = {.type = GPGPU_TYPE_U32};
    for (size_t h = 0; h < HUGE_COUNT; h++) {
        size_t n = huge[h];
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &rd, a, 0, n, r), RANGE);
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &rd, a, n, 1, r), RANGE);
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &rd, a, 1, n, r), RANGE);
        EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &rd, a, 0, 4, b, n), RANGE);
        EXPECT_STATUS(ctx, gpgpu_scan(ctx, &sd, a, 0, b, 0, n), RANGE);
        EXPECT_STATUS(ctx, gpgpu_scan(ctx, &sd, a, n, b, 0, 1), RANGE);
        EXPECT_STATUS(ctx, gpgpu_scan(ctx, &sd, a, 0, b, n, 1), RANGE);
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &so, a, 0, NULL, 0, n), RANGE);
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &so, a, n, b, 0, 1), RANGE);
        gpgpu_sort_desc with = so;
        with.values_in = b;
        with.values_in_offset = n;
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &with, a, 0, NULL, 0, 4), RANGE);
        with = so;
        with.segments = b;
        with.segments_offset = n;
        with.segment_count = 1;
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &with, a, 0, NULL, 0, 4), RANGE);
        with.segments_offset = 0;
        with.segment_count = n - 1; /* n offsets */
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &with, a, 0, NULL, 0, 4), RANGE);
        EXPECT_STATUS(ctx, gpgpu_axpby(ctx, f, n, 1, a, 0, 1, b, 0), RANGE);
        EXPECT_STATUS(ctx, gpgpu_axpby(ctx, f, 1, 1, a, n, 1, b, 0), RANGE);
        EXPECT_STATUS(ctx, gpgpu_axpby(ctx, f, 1, 1, a, 0, 1, b, n), RANGE);
        EXPECT_STATUS(ctx, gpgpu_dot(ctx, f, n, a, 0, b, 0, &dot), RANGE);
        EXPECT_STATUS(ctx, gpgpu_dot(ctx, f, 1, a, n, b, 0, &dot), RANGE);
        EXPECT_STATUS(ctx, gpgpu_axpby_dot(ctx, f, n, 1, a, 0, 1, b, 0, b, 0, &dot), RANGE);
        EXPECT_STATUS(ctx, gpgpu_axpby_dot(ctx, f, 1, 1, a, 0, 1, b, 0, a, n, &dot), RANGE);
    }
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
}

/* ------------------------------------------------------------ dense products */

static void check_gemm(void)
{
    gpgpu_buffer *a = test_buffer(ctx, NULL, 256), *b = test_buffer(ctx, NULL, 256),
                 *c = test_buffer(ctx, NULL, 256);
    gpgpu_gemm_desc d = {.type = GPGPU_TYPE_F32};
    gpgpu_gemm_tuning shape;
    const size_t big = (size_t)1 << 16; /* big x big passes 2^31 - 1 elements */
    for (size_t h = 0; h < HUGE_COUNT; h++) {
        size_t n = huge[h];
        EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, n, 1, 1, 1, a, 0, b, 0, 0, c, 0), TOO_LARGE);
        EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 1, n, 1, 1, a, 0, b, 0, 0, c, 0), TOO_LARGE);
        EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 1, 1, n, 1, a, 0, b, 0, 0, c, 0), TOO_LARGE);
        EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, n, n, n, 1, a, 0, b, 0, 0, c, 0), TOO_LARGE);
        gpgpu_gemm_desc strided = d;
        strided.lda = n;
        EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &strided, 2, 1, 1, 1, a, 0, b, 0, 0, c, 0), TOO_LARGE);
        EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 1, 1, 1, 1, a, n, b, 0, 0, c, 0), RANGE);
        EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, 1, 1, 1, 1, a, 0, b, 0, 0, c, n), RANGE);
        /* Sizes whose products wrap: gpgpu_gemm_shape's estimate counted blocks of them. */
        EXPECT_STATUS(ctx, gpgpu_gemm_shape(ctx, GPGPU_TYPE_F32, n, n, 1, &shape), TOO_LARGE);
        EXPECT_MESSAGE_HAS(ctx, "gpgpu_gemm_shape");
        EXPECT_STATUS(ctx, gpgpu_gemm_shape(ctx, GPGPU_TYPE_F32, 1, n, n, &shape), TOO_LARGE);
        EXPECT_STATUS(ctx, gpgpu_gemm_tune(ctx, GPGPU_TYPE_F32, n, 1, 1, NULL, NULL, &shape),
                      TOO_LARGE);
        EXPECT_STATUS(ctx, gpgpu_gemm_tune(ctx, GPGPU_TYPE_F32, n, n, n, NULL, NULL, &shape),
                      TOO_LARGE);
    }
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, big, big, 1, 1, a, 0, b, 0, 0, c, 0), TOO_LARGE);
    EXPECT_STATUS(ctx, gpgpu_gemm_shape(ctx, GPGPU_TYPE_F32, big, big, 1, &shape), TOO_LARGE);
    /* A product with no elements anywhere has a shape, however long its other side. */
    EXPECT_STATUS(ctx, gpgpu_gemm_shape(ctx, GPGPU_TYPE_F32, 0, SIZE_MAX, 0, &shape),
                  GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_gemm_shape(ctx, GPGPU_TYPE_F32, 46340, 46340, 1, &shape),
                  GPGPU_SUCCESS);
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
    gpgpu_buffer_destroy(c);
}

/* ------------------------------------------------------------ sparse matrices */

static void check_sparse(void)
{
    gpgpu_buffer *ints = test_buffer(ctx, NULL, 256), *vals = test_buffer(ctx, NULL, 256);
    gpgpu_matrix_desc md = {.type = GPGPU_TYPE_F32};
    gpgpu_matrix *m = NULL;
    EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &md, UINT32_MAX, 1, 0, ints, 0, ints, 0, vals,
                                             0, &m), TOO_LARGE);
    EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &md, 1, UINT32_MAX, 0, ints, 0, ints, 0, vals,
                                             0, &m), TOO_LARGE);
    for (size_t h = 0; h < HUGE_COUNT; h++) {
        size_t n = huge[h];
        EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &md, 1, 1, n, ints, 0, ints, 0, vals, 0,
                                                 &m), TOO_LARGE);
        EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &md, 1, 1, 1, ints, n, ints, 0, vals, 0,
                                                 &m), RANGE);
        EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &md, 1, 1, 1, ints, 0, ints, n, vals, 0,
                                                 &m), RANGE);
        EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &md, 1, 1, 1, ints, 0, ints, 0, vals, n,
                                                 &m), RANGE);
    }
    EXPECT(m == NULL, "a refused gpgpu_matrix_wrap_csr left a matrix");

    /* Host CSRs and triples past 32-bit indices. */
    uint32_t row[1] = {0}, col[1] = {0};
    double val[1] = {1};
    gpgpu_csr csr = {0};
    char msg[256];
    for (size_t h = 0; h < HUGE_COUNT; h++) {
        EXPECT(gpgpu_csr_from_coo(1, 1, huge[h], row, col, val, &csr, msg, sizeof msg) ==
                   TOO_LARGE, "gpgpu_csr_from_coo of %zu triples: %s", huge[h], msg);
        gpgpu_sparse sp = {.format = GPGPU_FORMAT_COO, .rows = 1, .cols = 1, .nnz = 1,
                           .stored = huge[h], .idx = col, .row = row, .values = val};
        EXPECT(gpgpu_sparse_to_csr(&sp, &csr, msg, sizeof msg) == TOO_LARGE,
               "gpgpu_sparse_to_csr of %zu stored entries: %s", huge[h], msg);
    }
    gpgpu_csr wide = {.rows = UINT32_MAX, .cols = 1, .row_ptr = row};
    size_t bytes;
    EXPECT(gpgpu_csr_check(&wide, true, msg, sizeof msg) == TOO_LARGE,
           "gpgpu_csr_check of %u rows: %s", wide.rows, msg);
    EXPECT(gpgpu_format_bytes(&wide, GPGPU_FORMAT_ELL, NULL, GPGPU_TYPE_F64, &bytes, NULL) ==
               TOO_LARGE, "gpgpu_format_bytes of %u rows", wide.rows);

    /* Generators whose row or entry counts pass 2^31 - 1; (2^22)^3 = 2^66 wraps to 0 in
     * 64 bits, which made an empty matrix of it. Each is refused before it allocates. */
    static const struct {
        gpgpu_generator gen;
        uint32_t size, avg;
    } gens[] = {
        {GPGPU_GEN_LAPLACE3D_7, 1u << 22, 0},  {GPGPU_GEN_LAPLACE3D_27, 1u << 22, 0},
        {GPGPU_GEN_LAPLACE3D_7, 1291, 0},      {GPGPU_GEN_LAPLACE3D_7, 0x7fffffff, 0},
        {GPGPU_GEN_RMAT, 31, 1},               {GPGPU_GEN_RMAT, 30, 2},
        {GPGPU_GEN_BANDED, 0x7fffffff, 0x7fffffff}, {GPGPU_GEN_BANDED, 1u << 30, 1},
        {GPGPU_GEN_DENSE, 1u << 16, 0},        {GPGPU_GEN_DENSE, 0x7fffffff, 0},
        {GPGPU_GEN_RANDOM, 0x80000000u, 1},    {GPGPU_GEN_RANDOM, 1, 0x80000000u},
    };
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++) {
        gpgpu_csr out = {0};
        gpgpu_status s = gpgpu_generate(gens[i].gen, gens[i].size, gens[i].avg, 1, &out);
        EXPECT(s == TOO_LARGE && out.row_ptr == NULL && out.rows == 0,
               "gpgpu_generate(%d, %u, %u): status %d (%s), a %u x %u matrix", (int)gens[i].gen,
               gens[i].size, gens[i].avg, (int)s, gpgpu_status_string(s), out.rows, out.cols);
        gpgpu_csr_free(&out);
    }

    /* A dense array whose rows and stride span more than SIZE_MAX bytes. */
    EXPECT(gpgpu_mtx_write_dense("/dev/null", UINT32_MAX, 2, val, SIZE_MAX / 2, msg,
                                 sizeof msg) == TOO_LARGE, "gpgpu_mtx_write_dense: %s", msg);
    EXPECT(gpgpu_mtx_write_dense("/dev/null", 2, 1, val, SIZE_MAX / 8, msg, sizeof msg) ==
               TOO_LARGE, "gpgpu_mtx_write_dense (a stride of SIZE_MAX / 8 doubles): %s", msg);
    EXPECT(gpgpu_mtx_write_dense("/dev/null", 1, 1, val, SIZE_MAX, msg, sizeof msg) ==
               GPGPU_SUCCESS, "gpgpu_mtx_write_dense (one row: its stride is never used): %s",
           msg);
    gpgpu_buffer_destroy(ints);
    gpgpu_buffer_destroy(vals);
}

/* SpGEMM's budget at its largest: every sum it is compared with stays below it. */
static void check_spgemm_budget(void)
{
    gpgpu_csr host = test_generated(GPGPU_GEN_RANDOM, 40, 4);
    gpgpu_matrix *a = NULL, *c = NULL;
    test_die_on(gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32}, &host, &a),
                "gpgpu_matrix_create");
    gpgpu_spgemm_stats stats = {0};
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.memory_budget = SIZE_MAX}, a, a,
                                    &c, &stats), GPGPU_SUCCESS);
    EXPECT(c && stats.peak_bytes > 0, "a product under a budget of SIZE_MAX bytes");
    gpgpu_matrix_destroy(c);
    c = NULL;
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.memory_budget = 1}, a, a, &c,
                                    NULL), GPGPU_ERROR_OUT_OF_MEMORY);
    EXPECT(c == NULL, "a product refused for its budget left a matrix");
    gpgpu_matrix_destroy(a);
    gpgpu_csr_free(&host);
}

/* ------------------------------------------------------------------ scalars */

enum { CALL_AXPBY, CALL_AXPBY_DOT, CALL_GEMM, CALL_SPMV, CALLS };
static const char *const call_names[CALLS] = {"gpgpu_axpby", "gpgpu_axpby_dot", "gpgpu_gemm",
                                              "gpgpu_spmv"};

/* One call of kind `call` on 1-element vectors (a 1 x 1 x 1 product, a 1 x 1 identity):
 * x = 0.5, y poisoned but for beta != 0 (then 0.25), with alpha and beta; *y_out the y (or C)
 * after it. */
static gpgpu_status scalar_call(int call, gpgpu_type t, double alpha, double beta,
                                double *y_out)
{
    size_t size = gpgpu_type_size(t);
    unsigned char x[8], y[8], one[8];
    double xv = 0.5, yv = 0.25, ov = 1;
    float xf = 0.5f, yf = 0.25f, of = 1;
    memcpy(x, t == GPGPU_TYPE_F32 ? (void *)&xf : (void *)&xv, size);
    memcpy(one, t == GPGPU_TYPE_F32 ? (void *)&of : (void *)&ov, size);
    if (beta != 0)
        memcpy(y, t == GPGPU_TYPE_F32 ? (void *)&yf : (void *)&yv, size);
    else
        test_poison(y, size);
    gpgpu_buffer *xb = test_buffer(ctx, x, size), *yb = test_buffer(ctx, y, size);
    gpgpu_buffer *ob = test_buffer(ctx, one, size);
    gpgpu_status s = GPGPU_SUCCESS;
    double dot = 0;
    switch (call) {
    case CALL_AXPBY: s = gpgpu_axpby(ctx, t, 1, alpha, xb, 0, beta, yb, 0); break;
    case CALL_AXPBY_DOT:
        s = gpgpu_axpby_dot(ctx, t, 1, alpha, xb, 0, beta, yb, 0, yb, 0, &dot);
        break;
    case CALL_GEMM:
        s = gpgpu_gemm(ctx, &(gpgpu_gemm_desc){.type = t}, 1, 1, 1, alpha, xb, 0, ob, 0, beta,
                       yb, 0);
        break;
    case CALL_SPMV: {
        uint32_t rp[2] = {0, 1}, ci[1] = {0};
        gpgpu_csr id = test_csr_of(1, 1, 1, rp, ci, &ov);
        gpgpu_matrix *m = NULL;
        test_die_on(gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = t}, &id, &m),
                    "gpgpu_matrix_create");
        s = gpgpu_spmv(ctx, &(gpgpu_spmv_desc){0}, alpha, m, xb, 0, beta, yb, 0);
        gpgpu_matrix_destroy(m);
        gpgpu_csr_free(&id);
        break;
    }
    }
    unsigned char got[8];
    test_die_on(gpgpu_buffer_download(yb, 0, got, size), "gpgpu_buffer_download");
    float gf;
    memcpy(&gf, got, sizeof gf);
    if (t == GPGPU_TYPE_F32)
        *y_out = gf;
    else
        memcpy(y_out, got, sizeof *y_out);
    if (s != GPGPU_SUCCESS)
        EXPECT(memcmp(got, y, size) == 0, "%s %s refused alpha %g, beta %g but wrote y",
               call_names[call], gpgpu_type_name(t), alpha, beta);
    gpgpu_buffer_destroy(xb);
    gpgpu_buffer_destroy(yb);
    gpgpu_buffer_destroy(ob);
    return s;
}

static void check_scalars(void)
{
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    const double above = nextafter((double)FLT_MAX, INFINITY);
    static const struct {
        double v;
        const char *shown; /* how the message shows it */
        bool f64_ok;
    } bad[] = {
        {1e300, "= 1e+300", true},           {-1e300, "= -1e+300", true},
        {0x1p128, "= 3.40282e+38", true},    {0, "= 3.40282e+38", true}, /* above FLT_MAX */
        {NAN, "is nan", false},              {INFINITY, "is inf", false},
        {-INFINITY, "is -inf", false},
    };
    for (int ti = 0; ti < 2; ti++) {
        gpgpu_type t = ti ? GPGPU_TYPE_F64 : GPGPU_TYPE_F32;
        if (t == GPGPU_TYPE_F64 && !info.has_f64)
            continue;
        for (int call = 0; call < CALLS; call++) {
            for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                double v = i == 3 ? above : bad[i].v;
                for (int which = 0; which < 2; which++) {
                    double y, alpha = which ? 1 : v, beta = which ? v : 0;
                    gpgpu_status s = scalar_call(call, t, alpha, beta, &y);
                    bool ok = t == GPGPU_TYPE_F64 && bad[i].f64_ok;
                    EXPECT(s == (ok ? GPGPU_SUCCESS : GPGPU_ERROR_INVALID_ARGUMENT),
                           "%s %s with %s = %g: status %d (%s): %s", call_names[call],
                           gpgpu_type_name(t), which ? "beta" : "alpha", v, (int)s,
                           gpgpu_status_string(s), gpgpu_last_error(ctx));
                    if (ok) {
                        double want = alpha * 0.5 + beta * 0.25;
                        EXPECT(y == want, "%s f64 with %s = %g: y = %g, expected %g",
                               call_names[call], which ? "beta" : "alpha", v, y, want);
                        continue;
                    }
                    char text[64];
                    snprintf(text, sizeof text, "%s %s", which ? "beta" : "alpha", bad[i].shown);
                    EXPECT_MESSAGE_HAS(ctx, text);
                    EXPECT_MESSAGE_HAS(ctx, call_names[call]);
                }
            }
            /* The ends of f32's range are f32 scalars: FLT_MAX * 0.5 is exact. */
            double y;
            EXPECT_STATUS(ctx, scalar_call(call, t, FLT_MAX, 0, &y), GPGPU_SUCCESS);
            EXPECT(y == FLT_MAX * 0.5, "%s %s with alpha FLT_MAX: y = %g", call_names[call],
                   gpgpu_type_name(t), y);
            EXPECT_STATUS(ctx, scalar_call(call, t, 1, -FLT_MAX, &y), GPGPU_SUCCESS);
            EXPECT(y == 0.5 - FLT_MAX * 0.25, "%s %s with beta -FLT_MAX: y = %g",
                   call_names[call], gpgpu_type_name(t), y);
        }
    }
}

int main(void)
{
    ctx = test_context();
    check_scratch_sizes();
    check_buffers();
    check_primitives();
    check_gemm();
    check_sparse();
    check_spgemm_budget();
    check_scalars();
    gpgpu_context_destroy(ctx);
    return test_finish();
}
