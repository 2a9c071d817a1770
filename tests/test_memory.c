/* GPU memory exhaustion, on the backend GPGPU_BACKEND names: allocating
 * buffers until creation fails gives GPGPU_ERROR_OUT_OF_MEMORY, a call that
 * needs scratch memory then fails the same way and changes nothing, and once
 * buffers are freed the context works on (a reduce gives the right sum, a
 * sort sorts).
 *
 * Against the library's own limit (gpgpu_context_desc.memory_limit and
 * GPGPU_MEMORY_LIMIT), which exhausts quickly and safely on any device; and
 * against the driver: one allocation larger than any device, then, where the
 * device's memory is host memory (Mesa's llvmpipe and lavapipe, as on CI),
 * allocation until the driver fails, with the process's address space capped
 * (RLIMIT_AS) about 1 GiB above what it uses. The suite does not exhaust a
 * real GPU: that would take the whole device from whatever else runs on it.
 * Under AddressSanitizer the cap is left out (its shadow needs the address
 * space), as in test_mtx. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "asan.h"
#include "core/internal.h"
#include "testlib.h"

#define S_OK GPGPU_SUCCESS
#define E_OOM GPGPU_ERROR_OUT_OF_MEMORY
#define U32 GPGPU_TYPE_U32

/* Handles the library must set to NULL on failure start as this. */
static int sentinel_target;
#define SENTINEL ((void *)&sentinel_target)

/* As testlib's callback, but a GL_OUT_OF_MEMORY is this test's point: GL
 * reports it through debug output too. */
static void on_error(gpgpu_status status, const char *message, void *user)
{
    (void)user;
    if (status != E_OOM && strstr(message, "GL debug output: ")) {
        test_gl_debug_failures++;
        fprintf(stderr, "%s\n", message);
    }
}

static gpgpu_context *make(size_t memory_limit)
{
    return test_context_with(
        &(gpgpu_context_desc){.memory_limit = memory_limit, .error_callback = on_error});
}

/* n keys in [1, 1000] in a buffer of their own, and their sum. */
static gpgpu_buffer *data_buffer(gpgpu_context *ctx, size_t n, uint64_t seed, uint32_t *sum)
{
    uint32_t *data = xmalloc(n * 4);
    test_random(U32, data, n, seed);
    *sum = 0;
    for (size_t i = 0; i < n; i++)
        *sum += data[i];
    gpgpu_buffer *buf = test_buffer(ctx, data, n * 4);
    free(data);
    return buf;
}

static void expect_sum(gpgpu_context *ctx, gpgpu_buffer *buf, size_t n, uint32_t want,
                       const char *when)
{
    uint32_t got = 0;
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, GPGPU_OP_SUM, 0}, buf, 0, n,
                                    &got),
                  S_OK);
    EXPECT(got == want, "%s: the sum is %u, expected %u", when, got, want);
}

/* Sorted, and the same keys (the sum tells a lost or doubled key). */
static void expect_sorted(gpgpu_context *ctx, gpgpu_buffer *buf, size_t n, uint32_t sum,
                          const char *when)
{
    uint32_t *keys = xmalloc(n * 4);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(buf, 0, keys, n * 4), S_OK);
    size_t bad = 0;
    uint32_t total = keys[0];
    for (size_t i = 1; i < n; i++) {
        bad += keys[i - 1] > keys[i];
        total += keys[i];
    }
    EXPECT(bad == 0 && total == sum, "%s: %zu keys out of order, sum %u (expected %u)", when, bad,
           total, sum);
    free(keys);
}

/* ------------------------------------------------------ the library's limit */

static void limit_until_failure(void)
{
    enum { LIMIT = 64 << 20, PIECE = 4 << 20, FIT = LIMIT / PIECE, N = 1 << 18 };
    gpgpu_context *ctx = make(LIMIT);
    gpgpu_buffer *pieces[FIT + 1] = {NULL};
    size_t made = 0;
    gpgpu_status s = S_OK;
    while (made <= FIT && (s = gpgpu_buffer_create(ctx, PIECE, &pieces[made])) == S_OK)
        made++;
    EXPECT(s == E_OOM && made == FIT,
           "allocating %d-byte buffers under a limit of %d: %zu made, then %d (%s), expected %d "
           "made, then %d",
           PIECE, LIMIT, made, (int)s, gpgpu_status_string(s), FIT, (int)E_OOM);
    EXPECT(made > FIT || pieces[made] == NULL, "a refused buffer left *out set");
    EXPECT(strstr(gpgpu_last_error(ctx), "memory limit"),
           "the message does not name the memory limit: %s", gpgpu_last_error(ctx));
    if (made < 2) {
        gpgpu_context_destroy(ctx);
        return;
    }

    /* Keys in the first piece; every call that needs scratch memory now fails alike. */
    uint32_t *data = xmalloc(N * 4), sum = 0, got = 0;
    test_random(U32, data, N, 7);
    for (size_t i = 0; i < N; i++)
        sum += data[i];
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(pieces[0], 0, data, N * 4), S_OK);
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, GPGPU_OP_SUM, 0}, pieces[0], 0,
                                    N, &got),
                  E_OOM);
    const gpgpu_sort_desc radix = {.type = U32, .algo = GPGPU_ALGO_RADIX};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &radix, pieces[0], 0, NULL, 0, N), E_OOM);
    uint32_t *back = xmalloc(N * 4);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(pieces[0], 0, back, N * 4), S_OK);
    EXPECT(memcmp(back, data, N * 4) == 0, "a call refused for memory changed its input");
    free(back);

    /* One piece freed: both run. */
    gpgpu_buffer_destroy(pieces[made - 1]);
    pieces[made - 1] = NULL;
    expect_sum(ctx, pieces[0], N, sum, "after freeing a piece");
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &radix, pieces[0], 0, NULL, 0, N), S_OK);
    expect_sorted(ctx, pieces[0], N, sum, "after freeing a piece");
    for (size_t i = 0; i < made; i++)
        gpgpu_buffer_destroy(pieces[i]);

    /* Everything freed: the whole limit is there again, but for the scratch memory the
     * context keeps (the sort's: a copy of the keys and its tables, under 2 pieces). */
    made = 0;
    while (made <= FIT && (s = gpgpu_buffer_create(ctx, PIECE, &pieces[made])) == S_OK)
        made++;
    EXPECT(s == E_OOM && made >= FIT - 2 && made < FIT,
           "allocating again after freeing everything: %zu made (limit %d, the sort's scratch "
           "held), then %d (%s)", made, FIT, (int)s, gpgpu_status_string(s));
    for (size_t i = 0; i < made; i++)
        gpgpu_buffer_destroy(pieces[i]);

    /* gpgpu_context_trim gives the scratch back: the whole limit again. */
    gpgpu_context_trim(ctx);
    made = 0;
    while (made <= FIT && (s = gpgpu_buffer_create(ctx, PIECE, &pieces[made])) == S_OK)
        made++;
    EXPECT(s == E_OOM && made == FIT, "allocating after gpgpu_context_trim: %zu made (limit %d)",
           made, FIT);
    for (size_t i = 0; i < made; i++)
        gpgpu_buffer_destroy(pieces[i]);
    expect_sum(ctx, pieces[0] = data_buffer(ctx, N, 7, &sum), N, sum, "after the trim");
    gpgpu_buffer_destroy(pieces[0]);
    free(data);
    gpgpu_context_destroy(ctx);
}

/* Every malformed size in environment variable `name` fails gpgpu_context_create, naming it;
 * the variable is unset after. */
static void refused_sizes(const char *name)
{
    static const char *const bad[] = {"bogus", "-1", " 5", "1T", "12MB", "1k", "0x10",
                                      "99999999999999999999", "18446744073709551615G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(name, bad[i], 1);
        gpgpu_context *c = NULL;
        gpgpu_status s = gpgpu_context_create(&(gpgpu_context_desc){0}, &c);
        EXPECT(s == GPGPU_ERROR_INVALID_ARGUMENT && !c && strstr(gpgpu_last_error(NULL), name),
               "%s=%s: %d (%s): %s", name, bad[i], (int)s, gpgpu_status_string(s),
               gpgpu_last_error(NULL));
        gpgpu_context_destroy(c);
    }
    unsetenv(name);
}

/* GPGPU_MEMORY_LIMIT: the same limit for a program that cannot set desc.memory_limit. */
static void limit_from_env(void)
{
    setenv("GPGPU_MEMORY_LIMIT", "1M", 1);
    gpgpu_context *ctx = make(0);
    gpgpu_buffer *a = NULL, *b = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, (1 << 20) + 4, &a), E_OOM);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 1 << 20, &a), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 4, &b), E_OOM);
    gpgpu_buffer_destroy(a);
    gpgpu_context_destroy(ctx);

    ctx = make(2 << 20); /* desc.memory_limit wins over the environment */
    a = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 2 << 20, &a), S_OK);
    gpgpu_buffer_destroy(a);
    gpgpu_context_destroy(ctx);

    setenv("GPGPU_MEMORY_LIMIT", "0", 1); /* no limit */
    ctx = make(0);
    a = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 8 << 20, &a), S_OK);
    gpgpu_buffer_destroy(a);
    gpgpu_context_destroy(ctx);

    refused_sizes("GPGPU_MEMORY_LIMIT");
}

/* ------------------------------------------------------ memory kept for reuse */

/* Both backends keep freed buffers' memory (gpgpu_context_desc.memory_cache): a buffer of the
 * same size class takes it (the same VkBuffer or GL buffer object), kept memory never makes
 * the library's limit refuse a buffer that fits beside the live ones, and
 * gpgpu_context_trim gives it back. */
static void kept_memory(void)
{
    enum { MB = 1 << 20, N = 1 << 16 };
    gpgpu_context *ctx = make(8 * MB);
    gpgpu_buffer *a = NULL, *b = NULL, *c = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 5 * MB, &a), S_OK);
    uint64_t storage = a ? a->storage : 0;
    gpgpu_buffer_destroy(a);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 5 * MB - 4096, &b), S_OK); /* the same class */
    EXPECT(b && b->storage == storage,
           "a buffer of the freed one's size class did not take its memory");
    gpgpu_buffer_destroy(b);
    /* 5 MiB kept: 6 + 2 fit the 8 MiB limit only once it is given back. */
    a = b = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 6 * MB, &a), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 2 * MB, &b), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 4, &c), E_OOM);
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
    /* A kept buffer holds stale data: a reduce on reused memory sums what was uploaded. */
    uint32_t sum;
    for (int round = 0; round < 3; round++) {
        gpgpu_buffer *d = data_buffer(ctx, N, 20 + (uint64_t)round, &sum);
        expect_sum(ctx, d, N, sum, "on memory kept for reuse");
        gpgpu_buffer_destroy(d);
    }
    gpgpu_context_trim(ctx);
    gpgpu_context_trim(ctx); /* twice, and on NULL: nothing to give back */
    gpgpu_context_trim(NULL);
    a = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 8 * MB, &a), S_OK);
    gpgpu_buffer_destroy(a);
    gpgpu_context_destroy(ctx);

    /* The limit counts buffers at the size they are made with: 8 MiB + 1 byte is made as 9 MiB
     * (an eighth of 8 MiB rounds it), so 11 fit 100 MiB, not 12. */
    ctx = make(100 * MB);
    gpgpu_buffer *pieces[12] = {NULL};
    size_t made = 0;
    while (made < 12 && gpgpu_buffer_create(ctx, 8 * MB + 1, &pieces[made]) == S_OK)
        made++;
    EXPECT(made == 11, "buffers of 8 MiB + 1 under a 100 MiB limit: %zu made, expected 11", made);
    for (size_t i = 0; i < made; i++)
        gpgpu_buffer_destroy(pieces[i]);
    gpgpu_context_destroy(ctx);

    /* None kept: GPGPU_MEMORY_CACHE_OFF, or GPGPU_MEMORY_CACHE=0; the desc wins. */
    setenv("GPGPU_MEMORY_CACHE", "0", 1);
    for (int off = 0; off < 2; off++) {
        ctx = test_context_with(&(gpgpu_context_desc){
            .memory_cache = off ? GPGPU_MEMORY_CACHE_OFF : 0, .error_callback = on_error});
        gpgpu_buffer *d = data_buffer(ctx, N, 30, &sum);
        expect_sum(ctx, d, N, sum, "with no memory kept");
        gpgpu_buffer_destroy(d);
        gpgpu_context_destroy(ctx);
    }
    refused_sizes("GPGPU_MEMORY_CACHE");
}

/* ------------------------------------------------------------- the driver */

/* More than any device has: the driver refuses it at once, on any device. */
static void one_too_large(void)
{
    gpgpu_context *ctx = make(0);
    uint32_t sum;
    gpgpu_buffer *data = data_buffer(ctx, 1000, 11, &sum), *huge = SENTINEL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, (size_t)1 << 40, &huge), E_OOM);
    EXPECT(huge == NULL, "a refused buffer left *out set");
    expect_sum(ctx, data, 1000, sum, "after the driver refused 1 TiB");
    gpgpu_buffer_destroy(data);
    gpgpu_context_destroy(ctx);
}

/* Bytes of address space the process holds now (/proc/self/statm counts pages). */
static size_t address_space(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static void driver_until_failure(void)
{
    enum { PIECE = 16 << 20, MAX = 1024, N = 1 << 16 }; /* the cap stops it near 64 pieces */
    gpgpu_context *ctx = make(0);
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    size_t space = address_space();
    if (!strstr(info.renderer, "llvmpipe") || test_under_asan() || space == 0) {
        fprintf(stderr, "driver exhaustion: skipped (%s)\n",
                test_under_asan() ? "AddressSanitizer needs the address space"
                : space == 0 ? "no /proc/self/statm"
                             : "a device of its own memory: the suite does not exhaust it");
        gpgpu_context_destroy(ctx);
        return;
    }
    /* Before the cap: the programs a reduce runs, its scratch, the data. */
    uint32_t sum;
    gpgpu_buffer *data = data_buffer(ctx, N, 13, &sum);
    expect_sum(ctx, data, N, sum, "before the cap");

    struct rlimit old, cap;
    getrlimit(RLIMIT_AS, &old);
    cap = (struct rlimit){.rlim_cur = space + ((size_t)1 << 30), .rlim_max = old.rlim_max};
    EXPECT(setrlimit(RLIMIT_AS, &cap) == 0, "cannot cap the address space");
    static gpgpu_buffer *pieces[MAX];
    size_t made = 0;
    gpgpu_status s = S_OK;
    while (made < MAX && (s = gpgpu_buffer_create(ctx, PIECE, &pieces[made])) == S_OK)
        made++;
    /* Exhausted: a call either has what it needs already or fails for memory. */
    uint32_t got = 0;
    gpgpu_status r = gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, GPGPU_OP_SUM, 0}, data, 0, N,
                                  &got);
    for (size_t i = 0; i < made; i++)
        gpgpu_buffer_destroy(pieces[i]);
    setrlimit(RLIMIT_AS, &old);
    fprintf(stderr, "driver exhaustion: %zu buffers of %d bytes, then %s: %s\n", made, PIECE,
            gpgpu_status_string(s), gpgpu_last_error(ctx));
    EXPECT(s == E_OOM && made > 0 && made < MAX,
           "allocating until the driver fails: %zu made, then %d (%s), expected %d", made,
           (int)s, gpgpu_status_string(s), (int)E_OOM);
    EXPECT((r == S_OK && got == sum) || r == E_OOM,
           "a reduce with the memory exhausted: %d (%s), sum %u (expected %u)", (int)r,
           gpgpu_status_string(r), got, sum);

    /* Freed: the context works on, on old buffers and new. */
    expect_sum(ctx, data, N, sum, "after the driver's memory ran out");
    uint32_t sum2;
    gpgpu_buffer *fresh = data_buffer(ctx, 4 * N, 17, &sum2);
    expect_sum(ctx, fresh, 4 * N, sum2, "a new buffer after the driver's memory ran out");
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = U32}, fresh, 0, NULL, 0, 4 * N),
                  S_OK);
    expect_sorted(ctx, fresh, 4 * N, sum2, "a sort after the driver's memory ran out");
    gpgpu_buffer_destroy(fresh);
    gpgpu_buffer_destroy(data);
    gpgpu_context_destroy(ctx);
}

int main(void)
{
    limit_until_failure();
    limit_from_env();
    kept_memory();
    one_too_large();
    driver_until_failure();
    return test_finish();
}
