/* Two contexts driven from two threads at once: each thread makes its own
 * context (a GL context is current in the thread that made it), waits at a
 * barrier for the other, then runs rounds of reduce, scan, sort and SpMV on
 * data of its own, each result checked against the CPU, and destroys its
 * context. Both threads count how often the other was inside a round at the
 * same time, so that a run that happened to be sequential fails.
 *
 * Without arguments both contexts are of the backend GPGPU_BACKEND names
 * (suites gl and vulkan), and first a context made in the main thread is
 * called from another: a headless GL context, current in its thread during its
 * calls only, and a Vulkan context run there; a GL context that stays current
 * in the main thread (GPGPU_GL_KEEP_CURRENT, as testlib's are), or an adopted
 * one where the other thread has none current, fails with
 * GPGPU_ERROR_NO_CONTEXT and works on in the main thread. With "mixed", one GL
 * and one Vulkan (suite backends). Exit 77 when a context of a kind asked for
 * cannot be made. */
#ifdef GPGPU_HAVE_GL
#include <EGL/egl.h>
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu/sparse.h"
#include "testlib.h"

#define S_OK GPGPU_SUCCESS
#define U32 GPGPU_TYPE_U32
#define F32 GPGPU_TYPE_F32

enum { WORKERS = 2, ROUNDS = 16 };

static pthread_barrier_t start;
static atomic_int in_round; /* workers inside a round now */

typedef struct worker {
    int index;
    gpgpu_backend backend;
    char name[32];
    bool skipped;          /* no context of its kind */
    int rounds, overlapped; /* rounds run, and those the other worker was in too */
} worker;

/* ------------------------------------------------------------ one round */

static gpgpu_buffer *upload(gpgpu_context *ctx, const void *data, size_t bytes)
{
    gpgpu_buffer *buf = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, bytes, &buf), S_OK);
    if (buf)
        EXPECT_STATUS(ctx, gpgpu_buffer_upload(buf, 0, data, bytes), S_OK);
    return buf;
}

static void download(gpgpu_context *ctx, gpgpu_buffer *buf, void *out, size_t bytes)
{
    EXPECT_STATUS(ctx, gpgpu_buffer_download(buf, 0, out, bytes), S_OK);
}

static void reduce_and_scan(gpgpu_context *ctx, const char *who, const uint32_t *data, size_t n)
{
    uint32_t sum = 0, got = 0, *want = xmalloc(n * 4), *out = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        want[i] = sum; /* exclusive */
        sum += data[i];
    }
    gpgpu_buffer *in = upload(ctx, data, n * 4), *res = upload(ctx, want, n * 4);
    if (in && res) {
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, GPGPU_OP_SUM, 0}, in, 0, n,
                                        &got),
                      S_OK);
        EXPECT(got == sum, "%s: reduce of %zu gives %u, expected %u", who, n, got, sum);
        EXPECT_STATUS(ctx, gpgpu_scan(ctx, &(gpgpu_scan_desc){U32, true, 0}, in, 0, res, 0, n),
                      S_OK);
        download(ctx, res, out, n * 4);
        char what[96];
        snprintf(what, sizeof what, "%s: exclusive scan of %zu", who, n);
        check_elems(what, U32, out, want, n, NULL);
    }
    gpgpu_buffer_destroy(in);
    gpgpu_buffer_destroy(res);
    free(want);
    free(out);
}

/* Keys with their indices as values (an argsort), radix or network, stable. */
static void sort(gpgpu_context *ctx, const char *who, const uint32_t *data, size_t n,
                 gpgpu_algo algo)
{
    uint32_t *keys = xmalloc(n * 4), *perm = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        keys[i] = data[i] % 64; /* ties, so that a lost stability shows */
        perm[i] = (uint32_t)i;
    }
    gpgpu_buffer *k = upload(ctx, keys, n * 4), *v = upload(ctx, perm, n * 4);
    if (k && v) {
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = U32, .stable = true,
                                                              .algo = algo, .values_in = v},
                                      k, 0, NULL, 0, n),
                      S_OK);
        uint32_t *got_k = xmalloc(n * 4), *got_v = xmalloc(n * 4);
        download(ctx, k, got_k, n * 4);
        download(ctx, v, got_v, n * 4);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            bool ok = got_v[i] < n && got_k[i] == keys[got_v[i]];
            if (i > 0)
                ok = ok && (got_k[i - 1] < got_k[i] ||
                            (got_k[i - 1] == got_k[i] && got_v[i - 1] < got_v[i]));
            bad += !ok;
        }
        EXPECT(bad == 0, "%s: stable sort (algo %d) of %zu: %zu keys out of place", who,
               (int)algo, n, bad);
        free(got_k);
        free(got_v);
    }
    gpgpu_buffer_destroy(k);
    gpgpu_buffer_destroy(v);
    free(keys);
    free(perm);
}

/* y = A x with small integers, so that f32 is exact in any order of additions. */
static void spmv(gpgpu_context *ctx, const char *who, const uint32_t *data, uint32_t rows)
{
    enum { PER_ROW = 6 };
    uint32_t cols = rows + 7, nnz = rows * PER_ROW;
    uint32_t *row_ptr = xmalloc((rows + 1) * 4), *col_idx = xmalloc(nnz * 4);
    double *values = xmalloc(nnz * sizeof *values);
    float *x = xmalloc(cols * 4), *want = xmalloc(rows * 4), *got = xmalloc(rows * 4);
    for (uint32_t c = 0; c < cols; c++)
        x[c] = (float)(data[c] % 9) - 4;
    for (uint32_t r = 0; r <= rows; r++)
        row_ptr[r] = r * PER_ROW;
    for (uint32_t r = 0; r < rows; r++) {
        want[r] = 0;
        for (uint32_t j = 0; j < PER_ROW; j++) { /* columns r, r + 1, ...: sorted */
            uint32_t e = r * PER_ROW + j;
            col_idx[e] = r + j;
            values[e] = (double)(data[e % cols] % 7) - 3;
            want[r] += (float)values[e] * x[col_idx[e]];
        }
    }
    gpgpu_matrix *m = NULL;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = F32},
                                           &(gpgpu_csr){rows, cols, nnz, row_ptr, col_idx, values},
                                           &m),
                  S_OK);
    gpgpu_buffer *xb = upload(ctx, x, cols * 4), *yb = upload(ctx, want, rows * 4);
    if (m && xb && yb) {
        EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &(gpgpu_spmv_desc){0}, 1, m, xb, 0, 0, yb, 0),
                      S_OK);
        download(ctx, yb, got, rows * 4);
        char what[96];
        snprintf(what, sizeof what, "%s: spmv of %u rows", who, rows);
        check_elems(what, F32, got, want, rows, NULL);
    }
    gpgpu_matrix_destroy(m);
    gpgpu_buffer_destroy(xb);
    gpgpu_buffer_destroy(yb);
    free(row_ptr);
    free(col_idx);
    free(values);
    free(x);
    free(want);
    free(got);
}

/* Whether the other worker is inside a round as well. */
static bool both_in_round(void) { return atomic_load(&in_round) == WORKERS; }

static void round_on(gpgpu_context *ctx, worker *w, int round, uint32_t *data)
{
    char who[64];
    snprintf(who, sizeof who, "%s round %d", w->name, round);
    size_t n = 20000 + (size_t)round * 7919; /* several work-groups, sizes differ per round */
    test_random(U32, data, n, (uint64_t)round * WORKERS + (uint64_t)w->index); /* data of its own */
    atomic_fetch_add(&in_round, 1);
    bool overlapped = both_in_round();
    reduce_and_scan(ctx, who, data, n);
    overlapped = overlapped || both_in_round();
    sort(ctx, who, data, n, GPGPU_ALGO_RADIX);
    sort(ctx, who, data, 1000 + (size_t)round, GPGPU_ALGO_BITONIC);
    overlapped = overlapped || both_in_round();
    spmv(ctx, who, data, 3000 + (uint32_t)round);
    overlapped = overlapped || both_in_round();
    atomic_fetch_sub(&in_round, 1);
    w->overlapped += overlapped;
    w->rounds++;
}

/* ------------------------------------------- a context in another thread */

typedef struct handover {
    gpgpu_context *ctx;
    gpgpu_buffer *buf;
    gpgpu_status status;
    uint32_t sum;
} handover;

static void *reduce_there(void *arg)
{
    handover *h = arg;
    h->status = gpgpu_reduce(h->ctx, &(gpgpu_reduce_desc){U32, GPGPU_OP_SUM, 0}, h->buf, 0, 1000,
                             &h->sum);
    return NULL;
}

/* A reduce of h's 1000 elements in a thread of its own, while this one waits. */
static gpgpu_status reduce_in_thread(handover *h)
{
    pthread_t t;
    h->status = GPGPU_ERROR_BACKEND;
    if (pthread_create(&t, NULL, reduce_there, h) == 0)
        pthread_join(t, NULL);
    return h->status;
}

static void expect_reduce_here(handover *h, uint32_t want, const char *when)
{
    uint32_t got = 0;
    EXPECT_STATUS(h->ctx, gpgpu_reduce(h->ctx, &(gpgpu_reduce_desc){U32, GPGPU_OP_SUM, 0}, h->buf,
                                       0, 1000, &got),
                  S_OK);
    EXPECT(got == want, "%s: the sum is %u, expected %u", when, got, want);
}

static void contexts_between_threads(void)
{
    gpgpu_context *ctx = test_context();
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    bool gl = strcmp(info.backend, "gl") == 0;
    uint32_t data[1000], sum = 0;
    test_random(U32, data, 1000, 99);
    for (size_t i = 0; i < 1000; i++)
        sum += data[i];
    handover h = {ctx, test_buffer(ctx, data, sizeof data), S_OK, 0};
    expect_reduce_here(&h, sum, "in the thread that made the context");
    gpgpu_status s = reduce_in_thread(&h);
    if (gl)
        EXPECT(s == GPGPU_ERROR_NO_CONTEXT && strstr(gpgpu_last_error(ctx), "another thread"),
               "a GL context current in the main thread, called from another: %d (%s): %s",
               (int)s, gpgpu_status_string(s), gpgpu_last_error(ctx));
    else
        EXPECT(s == S_OK && h.sum == sum,
               "a Vulkan context called from another thread: %d (%s), sum %u (expected %u)",
               (int)s, gpgpu_status_string(s), h.sum, sum);
    expect_reduce_here(&h, sum, "back in the thread that made it");

    if (gl) { /* without GPGPU_GL_KEEP_CURRENT (testlib sets it), nothing stays current */
        setenv("GPGPU_GL_KEEP_CURRENT", "0", 1);
        gpgpu_context *own = NULL;
        EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){
                          .backend = GPGPU_BACKEND_GL, .debug = true,
                          .error_callback = test_on_error}, &own),
                      S_OK);
        setenv("GPGPU_GL_KEEP_CURRENT", "1", 1);
        handover o = {own, own ? test_buffer(own, data, sizeof data) : NULL, S_OK, 0};
        if (own) {
            expect_reduce_here(&o, sum, "a context current during its calls only");
            s = reduce_in_thread(&o);
            EXPECT(s == S_OK && o.sum == sum,
                   "a GL context current during its calls only, called from another thread: "
                   "%d (%s), sum %u (expected %u): %s", (int)s, gpgpu_status_string(s), o.sum,
                   sum, gpgpu_last_error(own));
            expect_reduce_here(&o, sum, "that context back in the thread that made it");
        }
        gpgpu_buffer_destroy(o.buf);
        gpgpu_context_destroy(own);
    }
#ifdef GPGPU_HAVE_GL
    if (gl) { /* ctx's GL context is current here: adopt it, call it from elsewhere */
        gpgpu_context *actx = NULL;
        EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){
                          .gl_get_proc_address = (gpgpu_get_proc_address)eglGetProcAddress,
                          .error_callback = test_on_error}, &actx),
                      S_OK);
        handover a = {actx, actx ? test_buffer(actx, data, sizeof data) : NULL, S_OK, 0};
        if (actx) {
            s = reduce_in_thread(&a);
            EXPECT(s == GPGPU_ERROR_NO_CONTEXT && strstr(gpgpu_last_error(actx), "current"),
                   "an adopted context called from a thread with none current: %d (%s): %s",
                   (int)s, gpgpu_status_string(s), gpgpu_last_error(actx));
            expect_reduce_here(&a, sum, "the adopted context back in its thread");
        }
        gpgpu_buffer_destroy(a.buf);
        gpgpu_context_destroy(actx);
    }
#endif
    gpgpu_buffer_destroy(h.buf);
    gpgpu_context_destroy(ctx);
}

/* --------------------------------------------------------------- threads */

static void *run(void *arg)
{
    worker *w = arg;
    /* Made in this thread: a GL context is current in the thread that made it. */
    gpgpu_context *ctx = NULL;
    const gpgpu_context_desc desc = {.backend = w->backend, .debug = true,
                                     .error_callback = test_on_error};
    gpgpu_status s = gpgpu_context_create(&desc, &ctx);
    if (s != S_OK) {
        fprintf(stderr, "%s: no context: %s (%s)\n", w->name, gpgpu_status_string(s),
                gpgpu_last_error(NULL));
        w->skipped = s == GPGPU_ERROR_NO_CONTEXT || s == GPGPU_ERROR_GL_VERSION ||
                     s == GPGPU_ERROR_BACKEND_UNAVAILABLE;
        EXPECT(w->skipped, "%s: gpgpu_context_create failed", w->name);
    } else {
        gpgpu_info info;
        gpgpu_context_get_info(ctx, &info);
        fprintf(stderr, "%s: %s on %s (%s)\n", w->name, info.backend, info.renderer, info.platform);
    }
    pthread_barrier_wait(&start); /* both made (or failed to make) a context: go */
    if (!ctx)
        return NULL;
    uint32_t *data = xmalloc(200000 * 4);
    for (int r = 0; r < ROUNDS; r++)
        round_on(ctx, w, r, data);
    free(data);
    gpgpu_context_destroy(ctx);
    return NULL;
}

int main(int argc, char **argv)
{
    bool mixed = argc > 1 && strcmp(argv[1], "mixed") == 0;
    if (!mixed)
        contexts_between_threads();
    worker workers[WORKERS] = {0};
    for (int i = 0; i < WORKERS; i++) {
        workers[i].index = i;
        workers[i].backend = !mixed ? GPGPU_BACKEND_DEFAULT
                             : i == 0 ? GPGPU_BACKEND_GL
                                      : GPGPU_BACKEND_VULKAN;
        snprintf(workers[i].name, sizeof workers[i].name, "%s thread %d",
                 !mixed ? "a" : i == 0 ? "the GL" : "the Vulkan", i + 1);
    }
    pthread_barrier_init(&start, NULL, WORKERS);
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        if (pthread_create(&threads[i], NULL, run, &workers[i]) != 0) {
            fprintf(stderr, "cannot start a thread\n");
            return 1;
        }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&start);

    int overlapped = 0;
    for (int i = 0; i < WORKERS; i++) {
        if (workers[i].skipped) {
            fprintf(stderr, "skipped: %s has no context\n", workers[i].name);
            return TEST_SKIPPED;
        }
        EXPECT(workers[i].rounds == ROUNDS, "%s ran %d rounds of %d", workers[i].name,
               workers[i].rounds, ROUNDS);
        fprintf(stderr, "%s: %d of %d rounds with the other thread in a round too\n",
                workers[i].name, workers[i].overlapped, workers[i].rounds);
        overlapped += workers[i].overlapped;
    }
    EXPECT(overlapped > 0, "the threads never ran a round at the same time");
    return test_finish();
}
