/* GL against Vulkan: one context of each, the same integer inputs, every
 * reduce operator and algorithm and every scan (fast and classic, inclusive
 * and exclusive) on both; the results must be bit for bit the same on both
 * backends (integer arithmetic is exact, wrapping modulo 2^32) and equal to
 * the CPU reference (src/ref). Also: a buffer of one backend's context is
 * refused by the other's. */
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "testlib.h"

enum { BACKENDS = 2 };
static const char *const backend_names[BACKENDS] = {"gl", "vulkan"};
static gpgpu_context *ctxs[BACKENDS];

static const size_t sizes[] = {1, 1000, 65537, 1u << 20};
static const char *const op_names[] = {"?", "sum", "min", "max", "minmax"};
static const char *const algo_names[] = {"DEFAULT", "FAST", "CLASSIC_HALVING", "CLASSIC_STRIDE",
                                         "CLASSIC_MINMAX", "CLASSIC_SCAN"};

static gpgpu_context *make(gpgpu_backend backend, const char *name)
{
    gpgpu_context *ctx = NULL;
    gpgpu_status s = gpgpu_context_create(&(gpgpu_context_desc){.backend = backend}, &ctx);
    if (s != GPGPU_SUCCESS) {
        fprintf(stderr, "skipped: no %s context: %s (%s)\n", name, gpgpu_status_string(s),
                gpgpu_last_error(NULL));
        gpgpu_context_destroy(ctxs[0]);
        exit(TEST_SKIPPED);
    }
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    fprintf(stderr, "%s on %s (%s), subgroups %s\n", info.backend, info.renderer, info.platform,
            info.has_subgroups ? "yes" : "no");
    return ctx;
}

/* Random 32-bit words over the whole range (wrapping sums, negative i32,
 * extremes for min and max); a few fixed extremes where there is room. */
static void random_words(uint32_t *out, size_t n, uint64_t seed)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15u + 0x1234567u;
    for (size_t i = 0; i < n; i++) {
        z += 0x9e3779b97f4a7c15u;
        uint64_t r = z;
        r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9u;
        r = (r ^ (r >> 27)) * 0x94d049bb133111ebu;
        out[i] = (uint32_t)(r ^ (r >> 31));
    }
    if (n >= 1000) {
        out[17] = 0;
        out[n / 2] = 0xFFFFFFFFu;
        out[n - 3] = 0x80000000u;
        out[n - 2] = 0x7FFFFFFFu;
    }
}

/* Element ranges start at OFF in every buffer, so the offsets are exercised too. */
enum { OFF = 3 };

static gpgpu_buffer *upload(gpgpu_context *ctx, const uint32_t *data, size_t n)
{
    size_t bytes = (OFF + n + 2) * 4;
    uint32_t *image = xmalloc(bytes);
    test_poison(image, bytes);
    memcpy(image + OFF, data, n * 4);
    gpgpu_buffer *buf = test_buffer(ctx, image, bytes);
    free(image);
    return buf;
}

static void reduce_all(gpgpu_type t, const uint32_t *data, size_t n, gpgpu_buffer *const in[])
{
    for (gpgpu_op op = GPGPU_OP_SUM; op <= GPGPU_OP_MINMAX; op++) {
        static const gpgpu_algo algos[] = {GPGPU_ALGO_FAST, GPGPU_ALGO_CLASSIC_HALVING,
                                           GPGPU_ALGO_CLASSIC_STRIDE, GPGPU_ALGO_CLASSIC_MINMAX};
        for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
            gpgpu_algo algo = algos[a];
            if (algo == GPGPU_ALGO_CLASSIC_MINMAX && op != GPGPU_OP_MINMAX)
                continue;
            char what[160];
            snprintf(what, sizeof what, "%s %s %s n=%zu", gpgpu_type_name(t), op_names[op],
                     algo_names[algo], n);
            size_t width = op == GPGPU_OP_MINMAX ? 2 : 1;
            uint32_t want[2], got[BACKENDS][2];
            if (algo == GPGPU_ALGO_FAST)
                ref_reduce(t, op, data, n, want, NULL);
            else
                ref_reduce_classic(t, op, algo, data, n, want);
            for (int b = 0; b < BACKENDS; b++) {
                test_poison(got[b], sizeof got[b]);
                EXPECT_STATUS(ctxs[b],
                              gpgpu_reduce(ctxs[b], &(gpgpu_reduce_desc){t, op, algo}, in[b], OFF,
                                           n, got[b]),
                              GPGPU_SUCCESS);
                char label[200];
                snprintf(label, sizeof label, "%s on %s against the reference", what,
                         backend_names[b]);
                check_elems(label, t, got[b], want, width, NULL);
            }
            char label[200];
            snprintf(label, sizeof label, "%s: gl against vulkan", what);
            check_elems(label, t, got[0], got[1], width, NULL);
        }
    }
}

static void scan_all(gpgpu_type t, const uint32_t *data, size_t n, gpgpu_buffer *const in[])
{
    size_t bytes = (OFF + n + 2) * 4;
    uint32_t *want = xmalloc(bytes), *got[BACKENDS];
    gpgpu_buffer *out[BACKENDS];
    for (int b = 0; b < BACKENDS; b++) {
        got[b] = xmalloc(bytes);
        out[b] = test_buffer(ctxs[b], NULL, bytes); /* poisoned */
    }
    test_poison(want, bytes);
    for (int classic = 0; classic < 2; classic++)
        for (int ex = 0; ex < 2; ex++) {
            gpgpu_algo algo = classic ? GPGPU_ALGO_CLASSIC_SCAN : GPGPU_ALGO_FAST;
            char what[160];
            snprintf(what, sizeof what, "%s %s %s scan n=%zu", gpgpu_type_name(t),
                     algo_names[algo], ex ? "exclusive" : "inclusive", n);
            if (classic)
                ref_scan_classic(t, ex, data, n, want + OFF);
            else
                ref_scan(t, ex, data, n, want + OFF, NULL);
            for (int b = 0; b < BACKENDS; b++) {
                EXPECT_STATUS(ctxs[b],
                              gpgpu_scan(ctxs[b], &(gpgpu_scan_desc){t, ex, algo}, in[b], OFF,
                                         out[b], OFF, n),
                              GPGPU_SUCCESS);
                EXPECT_STATUS(ctxs[b], gpgpu_buffer_download(out[b], 0, got[b], bytes),
                              GPGPU_SUCCESS);
                char label[200];
                snprintf(label, sizeof label, "%s on %s against the reference", what,
                         backend_names[b]);
                check_elems(label, t, got[b], want, OFF + n + 2, NULL); /* poison around too */
            }
            char label[200];
            snprintf(label, sizeof label, "%s: gl against vulkan", what);
            check_elems(label, t, got[0], got[1], OFF + n + 2, NULL);
        }
    for (int b = 0; b < BACKENDS; b++) {
        gpgpu_buffer_destroy(out[b]);
        free(got[b]);
    }
    free(want);
}

/* A buffer belongs to its context: the other backend's calls refuse it. */
static void check_foreign_buffers(void)
{
    uint32_t data[16] = {1, 2, 3}, result[2];
    gpgpu_buffer *mine[BACKENDS];
    for (int b = 0; b < BACKENDS; b++)
        mine[b] = test_buffer(ctxs[b], data, sizeof data);
    for (int b = 0; b < BACKENDS; b++) {
        gpgpu_context *ctx = ctxs[b];
        gpgpu_buffer *theirs = mine[1 - b];
        const gpgpu_reduce_desc sum = {GPGPU_TYPE_U32, GPGPU_OP_SUM, 0};
        const gpgpu_scan_desc scan = {GPGPU_TYPE_U32, false, 0};
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &sum, theirs, 0, 16, result),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &sum, mine[b], 0, 16, theirs, 0),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_scan(ctx, &scan, mine[b], 0, theirs, 0, 16),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_scan(ctx, &scan, theirs, 0, mine[b], 0, 16),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_buffer_copy(mine[b], 0, theirs, 0, 16),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &sum, mine[b], 0, 16, result), GPGPU_SUCCESS);
        EXPECT(result[0] == 6, "%s: sum %u, expected 6", backend_names[b], result[0]);
    }
    for (int b = 0; b < BACKENDS; b++)
        gpgpu_buffer_destroy(mine[b]);
}

int main(void)
{
    ctxs[0] = make(GPGPU_BACKEND_GL, "GL");
    ctxs[1] = make(GPGPU_BACKEND_VULKAN, "Vulkan");
    check_foreign_buffers();
    size_t max_n = sizes[sizeof sizes / sizeof *sizes - 1];
    uint32_t *data = xmalloc(max_n * 4);
    static const gpgpu_type types[] = {GPGPU_TYPE_U32, GPGPU_TYPE_I32};
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            size_t n = sizes[s];
            if (n > test_max_n())
                continue;
            random_words(data, n, test_seed++);
            gpgpu_buffer *in[BACKENDS];
            for (int b = 0; b < BACKENDS; b++)
                in[b] = upload(ctxs[b], data, n);
            reduce_all(types[ti], data, n, in);
            scan_all(types[ti], data, n, in);
            /* The inputs are read only. */
            for (int b = 0; b < BACKENDS; b++) {
                uint32_t *back = xmalloc((OFF + n + 2) * 4);
                EXPECT_STATUS(ctxs[b], gpgpu_buffer_download(in[b], OFF * 4, back, n * 4),
                              GPGPU_SUCCESS);
                char label[120];
                snprintf(label, sizeof label, "%s n=%zu on %s: input unchanged",
                         gpgpu_type_name(types[ti]), n, backend_names[b]);
                check_elems(label, types[ti], back, data, n, NULL);
                free(back);
                gpgpu_buffer_destroy(in[b]);
            }
        }
    free(data);
    gpgpu_context_destroy(ctxs[1]);
    gpgpu_context_destroy(ctxs[0]);
    return test_finish();
}
