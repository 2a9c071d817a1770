#include "wrap_overlap.h"

#include <math.h>
#include <string.h>

#include "gpgpu/sparse.h"

#define U32 GPGPU_TYPE_U32
#define F32 GPGPU_TYPE_F32
#define OK GPGPU_SUCCESS
#define OVERLAP GPGPU_ERROR_OVERLAP

/* In u32 words: wrap a is words [0, HALF) of the object, b [QUARTER, QUARTER + HALF), c
 * [HALF, WORDS), a2 [0, HALF) again. */
enum { WORDS = WRAP_OBJECT_BYTES / 4, HALF = WORDS / 2, QUARTER = WORDS / 4 };

static uint32_t img[WORDS]; /* what the object must hold */

/* The image into the object, through the two wraps that cover it. */
static void upload_image(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(w[0], 0, img, HALF * 4), OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(w[2], 0, img + HALF, HALF * 4), OK);
}

static void expect_image(gpgpu_context *ctx, gpgpu_buffer *const w[4], const char *what)
{
    static uint32_t got[WORDS];
    EXPECT_STATUS(ctx, gpgpu_buffer_download(w[0], 0, got, HALF * 4), OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(w[2], 0, got + HALF, HALF * 4), OK);
    check_elems(what, U32, got, img, WORDS, NULL);
}

static float fget(size_t i)
{
    float f;
    memcpy(&f, &img[i], 4);
    return f;
}

static void fset(size_t i, float f) { memcpy(&img[i], &f, 4); }

static void copies(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    gpgpu_buffer *a = w[0], *b = w[1], *c = w[2], *a2 = w[3];
    test_random(U32, img, WORDS, 101);
    upload_image(ctx, w);
    /* b's first half is a's second half; c starts where a ends. */
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, 1024, b, 0, 512), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, 1024, b, 256, 512), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(b, 1020, c, 0, 8), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(a2, 0, a, 4, 8), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, 0, b, 0, 1024), OK); /* adjacent */
    memcpy(img + QUARTER, img, 1024);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(b, 1024, a2, 0, 1024), OK);
    memcpy(img, img + HALF, 1024);
    expect_image(ctx, w, "copies between wraps of one object");
}

/* Prefix sums of src into dst, which may be src itself. */
static void cpu_scan(uint32_t *dst, const uint32_t *src, size_t n, bool exclusive)
{
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = src[i];
        dst[i] = exclusive ? acc : acc + v;
        acc += v;
    }
}

static void scans(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    gpgpu_buffer *a = w[0], *b = w[1], *c = w[2], *a2 = w[3];
    const gpgpu_scan_desc incl = {U32, false, GPGPU_ALGO_FAST},
                          excl = {U32, true, GPGPU_ALGO_FAST},
                          classic_incl = {U32, false, GPGPU_ALGO_CLASSIC_SCAN},
                          classic_excl = {U32, true, GPGPU_ALGO_CLASSIC_SCAN};
    test_random(U32, img, WORDS, 102);
    upload_image(ctx, w);
    /* The same words through two wraps: in place. The classic exclusive scan
     * must then shift from a copy, as it does in one buffer. */
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &incl, a, QUARTER, b, 0, 256), OK);
    cpu_scan(img + QUARTER, img + QUARTER, 256, false);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &classic_excl, a, 0, a2, 0, 200), OK);
    cpu_scan(img, img, 200, true);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &classic_incl, a2, 10, a, 10, 100), OK);
    cpu_scan(img + 10, img + 10, 100, false);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &excl, a, 0, c, 0, 300), OK); /* disjoint */
    cpu_scan(img + HALF, img, 300, true);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &incl, a, QUARTER, b, 1, 100), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &classic_incl, b, 0, a, 0, 300), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &excl, b, QUARTER - 1, c, 0, 2), OVERLAP);
    expect_image(ctx, w, "scans between wraps of one object");
}

/* The result may not land among the inputs: the shaders read and write
 * through `restrict` bindings. */
static void reductions(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    gpgpu_buffer *a = w[0], *b = w[1];
    const gpgpu_reduce_desc sum = {U32, GPGPU_OP_SUM, 0}, minmax = {U32, GPGPU_OP_MINMAX, 0};
    test_random(U32, img, WORDS, 106);
    upload_image(ctx, w);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &sum, a, QUARTER, 100, b, 50), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &minmax, a, QUARTER, 100, b, 99), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &sum, b, 0, 100, a, QUARTER + 10), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &sum, a, QUARTER, 100, b, 100), OK);
    uint32_t total = 0;
    for (size_t i = QUARTER; i < QUARTER + 100; i++)
        total += img[i];
    img[QUARTER + 100] = total;
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &minmax, a, 0, 100, a, 100), OK);
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < 100; i++) {
        lo = img[i] < lo ? img[i] : lo;
        hi = img[i] > hi ? img[i] : hi;
    }
    img[100] = lo;
    img[101] = hi;
    expect_image(ctx, w, "reduce_to_buffer between wraps of one object");
}

/* A stable insertion sort of keys, and of vals with them (vals may be NULL). */
static void cpu_sort(uint32_t *keys, uint32_t *vals, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t k = keys[i], v = vals ? vals[i] : 0;
        size_t j = i;
        for (; j > 0 && keys[j - 1] > k; j--) {
            keys[j] = keys[j - 1];
            if (vals)
                vals[j] = vals[j - 1];
        }
        keys[j] = k;
        if (vals)
            vals[j] = v;
    }
}

static void sorts(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    gpgpu_buffer *a = w[0], *b = w[1], *c = w[2], *a2 = w[3];
    test_random(U32, img, WORDS, 103);
    for (size_t i = 0; i < WORDS; i++)
        img[i] %= 16; /* ties, so that a lost stability shows */
    upload_image(ctx, w);
    /* The same keys through two wraps: in place, radix and network. */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = U32, .algo = GPGPU_ALGO_RADIX},
                                  a, QUARTER, b, 0, 200),
                  OK);
    cpu_sort(img + QUARTER, NULL, 200);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = U32, .algo = GPGPU_ALGO_BITONIC},
                                  a2, 0, a, 0, 100),
                  OK);
    cpu_sort(img, NULL, 100);
    /* Values in and out the same words through two wraps: sorted in place,
     * by the network through the input index and by radix. */
    gpgpu_sort_desc d = {.type = U32, .stable = true, .algo = GPGPU_ALGO_BITONIC,
                         .values_in = a, .values_in_offset = 100,
                         .values_out = a2, .values_out_offset = 100};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, c, 0, NULL, 0, 100), OK);
    cpu_sort(img + HALF, img + 100, 100);
    d = (gpgpu_sort_desc){.type = U32, .algo = GPGPU_ALGO_RADIX, .values_in = a,
                          .values_in_offset = 300, .values_out = b,
                          .values_out_offset = 300 - QUARTER};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, c, 100, c, 100, 100), OK);
    cpu_sort(img + HALF + 100, img + 300, 100);
    /* Scratch (the network's input index, 4 bytes a key) apart from the keys. */
    d = (gpgpu_sort_desc){.type = U32, .stable = true, .algo = GPGPU_ALGO_BITONIC, .scratch = c,
                          .scratch_offset = 1024};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a, QUARTER, NULL, 0, 100), OK);
    cpu_sort(img + QUARTER, NULL, 100);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(c, 1024, img + HALF + 256, 400), OK); /* its own */

    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = U32}, a, QUARTER, b, 10, 100),
                  OVERLAP);
    d = (gpgpu_sort_desc){.type = U32, .values_in = b, .values_in_offset = 50};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a, QUARTER, NULL, 0, 100), OVERLAP); /* keys, values */
    d = (gpgpu_sort_desc){.type = U32, .values_in = a, .values_out = a2, .values_out_offset = 50};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, c, 0, NULL, 0, 100), OVERLAP); /* values in, out */
    d = (gpgpu_sort_desc){.type = U32, .stable = true, .algo = GPGPU_ALGO_BITONIC, .scratch = b};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a, QUARTER, NULL, 0, 100), OVERLAP); /* scratch, keys */

    /* Segment offsets (two segments of 50) are read by every pass. */
    const uint32_t offsets[3] = {0, 50, 100};
    memcpy(img + HALF, offsets, sizeof offsets);
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(c, 0, offsets, sizeof offsets), OK);
    d = (gpgpu_sort_desc){.type = U32, .segments = c, .segment_count = 2};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, b, QUARTER - 10, NULL, 0, 100), OVERLAP); /* keys */
    d.values_in = b;
    d.values_in_offset = QUARTER + 1;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a, 0, NULL, 0, 100), OVERLAP); /* values */
    d = (gpgpu_sort_desc){.type = U32, .segments = c, .segment_count = 2, .scratch = b,
                          .scratch_offset = 1024};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a, 0, NULL, 0, 100), OVERLAP); /* scratch */
    d.scratch = NULL;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, b, QUARTER, a, 0, 100), OK); /* keys in read only */
    memcpy(img, img + HALF, 400);
    cpu_sort(img, NULL, 50);
    cpu_sort(img + 50, NULL, 50);
    expect_image(ctx, w, "sorts between wraps of one object");
}

static void vectors(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    gpgpu_buffer *a = w[0], *b = w[1], *c = w[2];
    float values[WORDS];
    test_random(F32, values, WORDS, 104);
    memcpy(img, values, sizeof img);
    upload_image(ctx, w);
    /* x and y the same words through two wraps: y = x + x. */
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, F32, 100, 1.0, a, QUARTER, 1.0, b, 0), OK);
    for (size_t i = QUARTER; i < QUARTER + 100; i++)
        fset(i, fget(i) + fget(i));
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, F32, 100, 1.0, a, 0, 1.0, c, 0), OK); /* disjoint */
    for (size_t i = 0; i < 100; i++)
        fset(HALF + i, fget(i) + fget(HALF + i));
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, F32, 100, 1.0, a, QUARTER, 1.0, b, 10), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, F32, 100, 1.0, b, 0, 1.0, a, QUARTER + 99), OVERLAP);
    /* axpby_dot: w the same words as y through another wrap (y.y); x, or w
     * shifted by one, overlapping y through another wrap is refused. */
    double dot = 0, want = 0;
    EXPECT_STATUS(ctx, gpgpu_axpby_dot(ctx, F32, 100, 1.0, c, 0, 1.0, b, 0, a, QUARTER, &dot), OK);
    for (size_t i = 0; i < 100; i++) {
        fset(QUARTER + i, fget(HALF + i) + fget(QUARTER + i));
        want += (double)fget(QUARTER + i) * fget(QUARTER + i);
    }
    EXPECT(fabs(dot - want) <= 1e-5 * want, "axpby_dot y.y through two wraps: %.9g, want %.9g",
           dot, want);
    EXPECT_STATUS(ctx, gpgpu_axpby_dot(ctx, F32, 100, 1.0, a, QUARTER, 1.0, b, 0, c, 0, &dot),
                  OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_axpby_dot(ctx, F32, 100, 1.0, c, 0, 1.0, b, 0, a, QUARTER + 1, &dot),
                  OVERLAP);
    expect_image(ctx, w, "axpby and axpby_dot between wraps of one object");
}

/* y = A x for a 4 x 4 matrix (2 on the diagonal, 1 right of it, cyclically). */
static void spmv(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    gpgpu_buffer *a = w[0], *b = w[1];
    uint32_t row_ptr[5] = {0, 2, 4, 6, 8}, col_idx[8] = {0, 1, 1, 2, 2, 3, 0, 3};
    double values[8] = {2, 1, 2, 1, 2, 1, 1, 2};
    gpgpu_csr csr = {4, 4, 8, row_ptr, col_idx, values};
    gpgpu_matrix *m = NULL;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = F32}, &csr, &m), OK);
    if (!m)
        return;
    test_random(U32, img, WORDS, 105);
    for (size_t i = 0; i < 4; i++)
        fset(QUARTER + i, (float)(i + 1));
    upload_image(ctx, w);
    const gpgpu_spmv_desc d = {0};
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &d, 1, m, a, QUARTER, 0, b, 2), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &d, 1, m, b, 0, 0, a, QUARTER + 3), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &d, 1, m, a, QUARTER, 0, b, 4), OK); /* adjacent */
    for (size_t r = 0; r < 4; r++) {
        float y = 0;
        for (uint32_t k = row_ptr[r]; k < row_ptr[r + 1]; k++)
            y += (float)values[k] * fget(QUARTER + col_idx[k]);
        fset(QUARTER + 4 + r, y);
    }
    expect_image(ctx, w, "spmv between wraps of one object");
    gpgpu_matrix_destroy(m);

    /* The same matrix wrapped from c: row pointers at word 512, columns at 524, values at
     * 536. y may not fall on its arrays; x may. */
    enum { PTR = HALF, COLS = HALF + 12, VALS = HALF + 24 };
    float fvalues[8];
    for (size_t k = 0; k < 8; k++)
        fvalues[k] = (float)values[k];
    memcpy(img + PTR, row_ptr, sizeof row_ptr);
    memcpy(img + COLS, col_idx, sizeof col_idx);
    memcpy(img + VALS, fvalues, sizeof fvalues);
    upload_image(ctx, w);
    EXPECT_STATUS(ctx, gpgpu_matrix_wrap_csr(ctx, &(gpgpu_matrix_desc){.type = F32}, 4, 4, 8, w[2],
                                             PTR - HALF, w[2], COLS - HALF, w[2], VALS - HALF, &m),
                  OK);
    if (!m)
        return;
    static const struct {
        size_t at; /* y's first word in the object */
        gpgpu_status expected;
    } ys[] = {{PTR - 4, OK},      {PTR - 3, OVERLAP},  {PTR + 4, OVERLAP}, {PTR + 6, OK},
              {COLS - 3, OVERLAP}, {COLS + 7, OVERLAP}, {COLS + 8, OK},     {VALS + 7, OVERLAP},
              {VALS + 8, OK}};
    for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++) {
        gpgpu_status s = gpgpu_spmv(ctx, &d, 1, m, a, QUARTER, 0, b, ys[i].at - QUARTER);
        EXPECT(s == ys[i].expected, "spmv with y at word %zu of the object: %d (%s), expected %d",
               ys[i].at, (int)s, gpgpu_status_string(s), (int)ys[i].expected);
        for (size_t r = 0; s == OK && r < 4; r++) {
            float y = 0;
            for (uint32_t k = row_ptr[r]; k < row_ptr[r + 1]; k++)
                y += (float)values[k] * fget(QUARTER + col_idx[k]);
            fset(ys[i].at + r, y);
        }
    }
    /* x on the values */
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &d, 1, m, b, VALS - QUARTER, 0, a, 0), OK);
    for (size_t r = 0; r < 4; r++) {
        float y = 0;
        for (uint32_t k = row_ptr[r]; k < row_ptr[r + 1]; k++)
            y += (float)values[k] * fvalues[col_idx[k]];
        fset(r, y);
    }
    gpgpu_matrix_destroy(m);
    expect_image(ctx, w, "spmv of a matrix wrapped from the same object");
}

/* C = A * B with A and B in one wrap and C in another: refused where C's words are A's or
 * B's through the other wrap, computed where they are disjoint. */
static void dense(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    gpgpu_buffer *a = w[0], *b = w[1], *c = w[2];
    enum { N = 8 }; /* 8 x 8 matrices: 64 words each */
    const gpgpu_gemm_desc d = {.type = F32};
    float values[WORDS];
    test_random(F32, values, WORDS, 105);
    memcpy(img, values, sizeof img);
    upload_image(ctx, w);
    /* A at word 0, B at word 64 of wrap a; C in wrap c (words HALF...): disjoint */
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, N, N, N, 1.0, a, 0, a, 64, 0.0, c, 0), OK);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            float sum = 0;
            for (size_t k = 0; k < N; k++)
                sum = fmaf(fget(i * N + k), fget(64 + k * N + j), sum);
            fset(HALF + i * N + j, sum);
        }
    /* C through wrap b at its word 0 is the object's word QUARTER, where A (wrap a at
     * QUARTER) is; wrap b's word HALF - QUARTER is the object's HALF, where B (wrap c at 0)
     * is */
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, N, N, N, 1.0, a, QUARTER, a, 0, 0.0, b, 0), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &d, N, N, N, 1.0, a, 0, c, 0, 0.0, b, HALF - QUARTER),
                  OVERLAP);
    /* wrap c's words against the CPU's product (f32 sums in another order: a bound) */
    static uint32_t got[WORDS];
    EXPECT_STATUS(ctx, gpgpu_buffer_download(w[2], 0, got, HALF * 4), OK);
    double tol[HALF];
    for (size_t i = 0; i < HALF; i++)
        tol[i] = i < N * N ? 1e-5 * (1 + fabs(fget(HALF + i))) : -1;
    check_elems("gemm between wraps of one object", F32, got, img + HALF, HALF, tol);
}

/* Histogram, segmented sum and run-length encoding: outputs refused where they share words with
 * an input through another wrap, right where they only touch. */
static void segmented(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    gpgpu_buffer *a = w[0], *b = w[1], *c = w[2], *a2 = w[3];
    test_random(U32, img, WORDS, 108);
    for (size_t i = 0; i < 100; i++)
        img[i] = img[i] % 4; /* runs */
    uint32_t offsets[] = {0, 10, 10, 60, 100};
    memcpy(img + HALF + 200, offsets, sizeof offsets);
    upload_image(ctx, w);
    const gpgpu_histogram_desc hd = {.type = U32, .bins = 16, .lower = 0, .upper = 1024};
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &hd, a, QUARTER, 100, b, 0), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &hd, a, QUARTER, 100, b, 100), OK);
    uint32_t counts[16] = {0};
    for (size_t i = QUARTER; i < QUARTER + 100; i++)
        if (img[i] < 1024)
            counts[img[i] / 64]++;
    memcpy(img + QUARTER + 100, counts, sizeof counts);
    const gpgpu_segmented_reduce_desc sd = {.type = U32, .op = GPGPU_OP_SUM, .segments = c,
                                            .segments_offset = 200};
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &sd, a, 0, 100, a2, 50, 4), OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &sd, a, 0, 100, b, HALF - QUARTER + 197, 4),
                  OVERLAP); /* the sums over the offsets */
    EXPECT_STATUS(ctx, gpgpu_segmented_reduce(ctx, &sd, a, 0, 100, c, 196, 4), OK);
    for (int s = 0; s < 4; s++) {
        uint32_t sum = 0;
        for (uint32_t i = offsets[s]; i < offsets[s + 1]; i++)
            sum += img[i];
        img[HALF + 196 + s] = sum;
    }
    const gpgpu_rle_desc rd = {.type = U32};
    size_t runs = 0;
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &rd, a, 0, 100, a2, 50, NULL, 0, &runs),
                  OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &rd, a, 0, 100, c, 0, b, HALF - QUARTER - 50,
                                               &runs),
                  OVERLAP); /* the lengths over the unique keys */
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &rd, a, 0, 100, a, 100, c, 0, &runs), OK);
    uint32_t keys[100], lengths[100];
    size_t want = 0;
    for (size_t i = 0; i < 100; i++) {
        if (i == 0 || img[i] != img[i - 1]) {
            keys[want] = img[i];
            lengths[want++] = 0;
        }
        lengths[want - 1]++;
    }
    EXPECT(runs == want, "run-length encoding between wraps: %zu runs, expected %zu", runs, want);
    memcpy(img + 100, keys, want * 4);
    memcpy(img + HALF, lengths, want * 4);
    expect_image(ctx, w, "histogram, segmented sum, run-length encoding between wraps of one object");
}

void test_wrap_overlaps(gpgpu_context *ctx, gpgpu_buffer *const w[4])
{
    dense(ctx, w);
    copies(ctx, w);
    scans(ctx, w);
    reductions(ctx, w);
    sorts(ctx, w);
    vectors(ctx, w);
    spmv(ctx, w);
    segmented(ctx, w);
}
