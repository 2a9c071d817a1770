/* The tuners' cache file ($GPGPU_TUNE_CACHE) when what is there is not a cache: a FIFO with
 * no writer, /dev/zero, a 100 MB sparse file, a directory, and a file of garbage lines among
 * valid ones. In a fresh context for each, every call that looks a shape up there (the default
 * SpMV of a matrix whose rows take the vector kernel, a dense product, gpgpu_gemm_shape) or
 * adds one (gpgpu_gemm_tune) returns promptly and works, as without a file; the context warns
 * (gpgpu_last_warning) naming the file and why; the file is left as it was. Each case runs
 * under an alarm, so that a call that blocks fails the test instead of stalling the suite.
 * The garbage file's valid lines are still read, and a tuned choice appended to it is found by
 * the next context. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

enum { CASE_SECONDS = 120 };

static char dir[64];

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_tune_cache: FAILED: a call blocked on the cache file\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

static gpgpu_context *context_for(const char *cache)
{
    setenv("GPGPU_TUNE_CACHE", cache, 1);
    return test_context();
}

#define EXPECT_WARNING_HAS(ctx, text)                                                     \
    EXPECT(strstr(gpgpu_last_warning(ctx), text) != NULL,                                 \
           "%s: last warning \"%s\" lacks \"%s\"", what, gpgpu_last_warning(ctx), text)

/* The 27-point Laplacian of a 4^3 grid: 15.6 entries a row on average, within 4x of the
 * longest, so the default SpMV takes the vector kernel, whose shape it looks up. y = A*ones
 * is 27 - (the row's length), exactly. */
static void check_spmv(gpgpu_context *ctx, const char *what)
{
    gpgpu_csr host = test_generated(GPGPU_GEN_LAPLACE3D_27, 4, 0);
    gpgpu_matrix *m = NULL;
    test_die_on(gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32}, &host, &m),
                "gpgpu_matrix_create");
    float *x = xmalloc(host.rows * sizeof *x), *y = xmalloc(host.rows * sizeof *y);
    for (uint32_t i = 0; i < host.rows; i++)
        x[i] = 1;
    gpgpu_buffer *xb = test_buffer(ctx, x, host.rows * sizeof *x);
    gpgpu_buffer *yb = test_buffer(ctx, NULL, host.rows * sizeof *y);
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &(gpgpu_spmv_desc){0}, 1, m, xb, 0, 0, yb, 0),
                  GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(yb, 0, y, host.rows * sizeof *y), GPGPU_SUCCESS);
    for (uint32_t i = 0; i < host.rows; i++) {
        float want = 27.0f - (float)(host.row_ptr[i + 1] - host.row_ptr[i]);
        if (y[i] != want) {
            EXPECT(false, "%s: SpMV row %u is %g, expected %g", what, i, (double)y[i],
                   (double)want);
            break;
        }
    }
    gpgpu_buffer_destroy(xb);
    gpgpu_buffer_destroy(yb);
    gpgpu_matrix_destroy(m);
    gpgpu_csr_free(&host);
    free(x);
    free(y);
}

/* C = A*B for 24 x 24 matrices of ones: every entry 24, exactly. */
static void check_gemm(gpgpu_context *ctx, const char *what)
{
    enum { N = 24 };
    float ones[N * N], c[N * N];
    for (int i = 0; i < N * N; i++)
        ones[i] = 1;
    gpgpu_buffer *ab = test_buffer(ctx, ones, sizeof ones), *cb = test_buffer(ctx, NULL, sizeof c);
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &(gpgpu_gemm_desc){.type = GPGPU_TYPE_F32}, N, N, N, 1, ab,
                                  0, ab, 0, 0, cb, 0), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(cb, 0, c, sizeof c), GPGPU_SUCCESS);
    for (int i = 0; i < N * N; i++) {
        if (c[i] != N) {
            EXPECT(false, "%s: C[%d] is %g, expected %d", what, i, (double)c[i], N);
            break;
        }
    }
    gpgpu_buffer_destroy(ab);
    gpgpu_buffer_destroy(cb);
}

static bool same_shape(const gpgpu_gemm_tuning *a, const gpgpu_gemm_tuning *b)
{
    return a->block_m == b->block_m && a->block_n == b->block_n && a->block_k == b->block_k &&
           a->thread_m == b->thread_m && a->invocations == b->invocations;
}

static void expect_shape(gpgpu_context *ctx, size_t n, const gpgpu_gemm_tuning *want,
                         const char *what)
{
    gpgpu_gemm_tuning got = {0};
    EXPECT_STATUS(ctx, gpgpu_gemm_shape(ctx, GPGPU_TYPE_F32, n, n, n, &got), GPGPU_SUCCESS);
    EXPECT(same_shape(&got, want), "%s: the %zu^3 product's shape is %ux%ux%u/%u/%u, expected "
           "%ux%ux%u/%u/%u", what, n, got.block_m, got.block_n, got.block_k, got.thread_m,
           got.invocations, want->block_m, want->block_n, want->block_k, want->thread_m,
           want->invocations);
}

typedef struct cache_case {
    const char *name;
    char path[128];
    const char *read_warning;  /* what the warning after the first look-up says */
    const char *write_warning; /* after gpgpu_gemm_tune; NULL: it is written */
    mode_t type;               /* S_IFIFO, ...: what the path must still be */
    off_t size;                /* a regular file's size, which must not change */
} cache_case;

/* One case in a fresh context: look-ups, products, a tuning run, then the file as it was. */
static void run_case(const cache_case *c, const gpgpu_gemm_tuning *plain)
{
    char what[160];
    snprintf(what, sizeof what, "cache %s (%s)", c->name, c->path);
    alarm(CASE_SECONDS);
    gpgpu_context *ctx = context_for(c->path);
    EXPECT(*gpgpu_last_warning(ctx) == '\0', "%s: a warning before any call: %s", what,
           gpgpu_last_warning(ctx));
    check_spmv(ctx, what);
    EXPECT_WARNING_HAS(ctx, c->path);
    EXPECT_WARNING_HAS(ctx, c->read_warning);
    check_gemm(ctx, what);
    expect_shape(ctx, 64, plain, what);
    gpgpu_gemm_tuning tuned;
    EXPECT_STATUS(ctx, gpgpu_gemm_tune(ctx, GPGPU_TYPE_F32, 32, 32, 32, NULL, NULL, &tuned),
                  GPGPU_SUCCESS);
    EXPECT_WARNING_HAS(ctx, c->write_warning);
    expect_shape(ctx, 32, &tuned, what); /* kept in the context all the same */
    gpgpu_context_destroy(ctx);
    alarm(0);
    struct stat st;
    EXPECT(lstat(c->path, &st) == 0 && (st.st_mode & S_IFMT) == c->type &&
               (c->type != S_IFREG || st.st_size == c->size),
           "%s: the path changed (mode %o, %lld bytes)", what, (unsigned)st.st_mode,
           (long long)st.st_size);
}

/* A cache of lines that do not parse (each for its own reason) around two that do: a shape
 * for the 64^3 product (the smallest candidate) and one for another device. */
static void write_garbage(const char *path, const char *device, const gpgpu_gemm_tuning *s)
{
    FILE *f = fopen(path, "w");
    test_die_on(f ? GPGPU_SUCCESS : GPGPU_ERROR_IO, "fopen of the garbage cache");
    fprintf(f, "gemm|another GPU|vulkan|f32|64|64|64\t128 128 8 %u 12345\n", 8u | 256u << 16);
    fprintf(f, "not a cache line\n");
    fprintf(f, "gemm|x\t1 2 3\n");
    fprintf(f, "\t1 2 3 4 5\n");
    fprintf(f, "gemm|x\t-1 2 3 4 5\n");
    fprintf(f, "gemm|x\t1 2 3 4 5 6\n");
    fprintf(f, "gemm|x\t1 2 3 4 nan\n");
    fprintf(f, "gemm|x\t99999999999 2 3 4 5\n");
    fprintf(f, "%0300d\t1 2 3 4 5\n", 7); /* a key longer than a key can be */
    fputs("gemm|\x01\x02\xff\xfe\t\x80\x81 2 3 4 5\n", f);
    fprintf(f, "\n"); /* an empty line is no error */
    fprintf(f, "gemm|%s|f32|64|64|64\t%u %u %u %u 1000\n", device, s->block_m, s->block_n,
            s->block_k, s->thread_m | s->invocations << 16);
    fwrite("gemm|x\t1 2\0 3 4 5\n", 1, 18, f); /* a NUL inside */
    fclose(f);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    snprintf(dir, sizeof dir, "%s", "/tmp/test_tune_cache.XXXXXX");
    test_die_on(mkdtemp(dir) ? GPGPU_SUCCESS : GPGPU_ERROR_IO, "mkdtemp");

    EXPECT(strcmp(gpgpu_last_warning(NULL), "") == 0, "gpgpu_last_warning(NULL) is \"%s\"",
           gpgpu_last_warning(NULL));
    /* What the shapes are without a file. */
    alarm(CASE_SECONDS);
    gpgpu_context *ctx = context_for("");
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    char device[320]; /* the key's device part, kept past the context that names it */
    snprintf(device, sizeof device, "%s|%s", info.renderer, info.backend);
    gpgpu_gemm_tuning plain, smallest = {32, 32, 8, 4, 64, 0};
    EXPECT_STATUS(ctx, gpgpu_gemm_shape(ctx, GPGPU_TYPE_F32, 64, 64, 64, &plain), GPGPU_SUCCESS);
    EXPECT(!same_shape(&plain, &smallest), "the 64^3 estimate is the smallest shape already");
    gpgpu_context_destroy(ctx);
    alarm(0);

    enum { CASES = 5 };
    cache_case cases[CASES] = {
        {"fifo", "", "not a regular file", "cannot open it for writing", S_IFIFO, 0},
        {"/dev/zero", "/dev/zero", "not a regular file", "not a regular file", S_IFCHR, 0},
        {"100 MB sparse file", "", "104857600 bytes, past the 1048576", "full", S_IFREG,
         100 << 20},
        {"directory", "", "not a regular file", "cannot open it for writing", S_IFDIR, 0},
        {"garbage", "", "10 lines are not", NULL, S_IFREG, 0},
    };
    snprintf(cases[0].path, sizeof cases[0].path, "%s/fifo", dir);
    snprintf(cases[2].path, sizeof cases[2].path, "%s/big", dir);
    snprintf(cases[3].path, sizeof cases[3].path, "%s/dir", dir);
    snprintf(cases[4].path, sizeof cases[4].path, "%s/garbage", dir);
    test_die_on(mkfifo(cases[0].path, 0600) == 0 ? GPGPU_SUCCESS : GPGPU_ERROR_IO, "mkfifo");
    int fd = open(cases[2].path, O_WRONLY | O_CREAT, 0600);
    test_die_on(fd >= 0 && ftruncate(fd, cases[2].size) == 0 ? GPGPU_SUCCESS : GPGPU_ERROR_IO,
                "the sparse file");
    close(fd);
    test_die_on(mkdir(cases[3].path, 0700) == 0 ? GPGPU_SUCCESS : GPGPU_ERROR_IO, "mkdir");
    write_garbage(cases[4].path, device, &smallest);
    struct stat st;
    stat(cases[4].path, &st);
    cases[4].size = st.st_size;

    for (int i = 0; i < CASES - 1; i++)
        run_case(&cases[i], &plain);

    /* The garbage file's valid line gives the 64^3 product its shape, and a tuning run
     * appends one line that the next context finds. */
    cache_case *g = &cases[4];
    char what[160];
    snprintf(what, sizeof what, "cache %s (%s)", g->name, g->path);
    alarm(CASE_SECONDS);
    ctx = context_for(g->path);
    check_spmv(ctx, what);
    EXPECT_WARNING_HAS(ctx, g->path);
    EXPECT_WARNING_HAS(ctx, g->read_warning);
    EXPECT_WARNING_HAS(ctx, "(the first: line 2)");
    check_gemm(ctx, what);
    expect_shape(ctx, 64, &smallest, what);
    gpgpu_gemm_tuning tuned;
    EXPECT_STATUS(ctx, gpgpu_gemm_tune(ctx, GPGPU_TYPE_F32, 32, 32, 32, NULL, NULL, &tuned),
                  GPGPU_SUCCESS);
    gpgpu_context_destroy(ctx);
    EXPECT(stat(g->path, &st) == 0 && st.st_size > g->size,
           "%s: the tuned choice was not appended (%lld bytes, %lld before)", what,
           (long long)st.st_size, (long long)g->size);
    ctx = context_for(g->path);
    expect_shape(ctx, 32, &tuned, what);
    expect_shape(ctx, 64, &smallest, what);
    gpgpu_context_destroy(ctx);
    alarm(0);

    for (int i = 0; i < CASES; i++)
        if (i != 1)
            (i == 3 ? rmdir : unlink)(cases[i].path);
    rmdir(dir);
    return test_finish();
}
