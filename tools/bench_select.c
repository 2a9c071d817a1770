/* gpgpu-bench --only select: stream compaction (select_flagged_u32, select_if_f32), the
 * partition (partition_flagged_u32) and gathers of 4- and 16-byte records through sorted
 * and random indices, each gather next to a copy of the same record bytes. The inputs
 * are bench/cub_peer.cu's for its DeviceSelect::Flagged, ::If and
 * DevicePartition::Flagged cases (the same hash of the index), so that bench/compare.py
 * can join the records on (case, n). */
#include "gpgpu_bench.h"

#include "ref/ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char bench_select_help[] =
    "\n"
    "Stream compaction (--only select): select_flagged_u32 (half the flags set),\n"
    "select_if_f32 (x < 1 on values in [0.5, 1.5)), partition_flagged_u32, by the\n"
    "algorithms fast, single-pass and reduce-then-scan (partition: fast), the count\n"
    "left on the GPU; gather_4B and gather_16B through sorted (identity) and random\n"
    "indices, algo `sorted` or `random`, each next to a copy of the same record\n"
    "bytes (the ratio column: the copy's time over the gather's). GB/s counts the\n"
    "bytes a call must move: the flags and values read, the kept values written;\n"
    "for a gather the indices too. Outputs up to --check-max-log2 are checked\n"
    "against the CPU.\n";

/* lowbias32, as bench/cub_peer.cu's hash32. */
static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

enum { FILL_U32, FILL_F32, FILL_FLAGS, FILL_IOTA, FILL_RANDOM_INDEX };

/* Element i of an input, as cub_peer's kernels make it. */
static uint32_t input_word(int kind, size_t i, size_t n)
{
    uint32_t h = hash32((uint32_t)i ^ hash32((uint32_t)((uint64_t)i >> 32) + 0x9e3779b9u));
    float f;
    switch (kind) {
    case FILL_U32:
        return 1u + h % 1000u;
    case FILL_F32:
        f = 0.5f + (float)(h >> 8) * (1.0f / 16777216.0f);
        memcpy(&h, &f, 4);
        return h;
    case FILL_FLAGS:
        return hash32((uint32_t)i ^ 0x5bd1e995u) & 1u;
    case FILL_IOTA:
        return (uint32_t)i;
    default:
        return (uint32_t)(((uint64_t)h * n) >> 32);
    }
}

/* `words` words of an input into buf, made a piece at a time; a copy in *host when it is
 * not NULL (for the check). */
static int fill(bench *b, gpgpu_buffer *buf, int kind, size_t words, size_t range,
                uint32_t **host)
{
    const size_t piece = (size_t)1 << 20;
    uint32_t *p = malloc((words < piece ? words : piece) * 4 + 4);
    if (host)
        *host = malloc(words * 4 + 4);
    if (!p || (host && !*host)) {
        free(p);
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot make the input", "out of host memory");
    }
    for (size_t first = 0; first < words; first += piece) {
        size_t m = words - first < piece ? words - first : piece;
        for (size_t k = 0; k < m; k++)
            p[k] = input_word(kind, first + k, range);
        if (host)
            memcpy(*host + first, p, m * 4);
        gpgpu_status s = gpgpu_buffer_upload(buf, first * 4, p, m * 4);
        if (s != GPGPU_SUCCESS) {
            free(p);
            return bench_check(b, s);
        }
    }
    free(p);
    return TOOL_EXIT_OK;
}

/* One size's buffers and the call being timed. */
typedef struct select_run {
    bench *b;
    size_t n;
    gpgpu_buffer *in, *flags, *out, *count, *recs, *idx, *gathered;
    uint32_t *host_in, *host_flags, *host_recs, *host_idx;
    gpgpu_select_desc desc;
    gpgpu_gather_desc gather;
    size_t words; /* a gather's record */
    bool check;
} select_run;

static gpgpu_status select_once(void *user)
{
    select_run *r = user;
    return gpgpu_select(r->b->ctx, &r->desc, r->in, 0, r->out, 0, r->n, NULL);
}

static gpgpu_status gather_once(void *user)
{
    select_run *r = user;
    return gpgpu_gather(r->b->ctx, &r->gather, r->recs, 0, r->n, r->idx, 0, r->gathered, 0,
                        r->n);
}

static gpgpu_status copy_once(void *user)
{
    select_run *r = user;
    return gpgpu_buffer_copy(r->recs, 0, r->gathered, 0, r->n * r->words * 4);
}

static void row(bench *b, const char *name, const char *algo, size_t n, timing t, double bytes,
                double ratio, const char *check)
{
    double gbps = bytes / bench_rate_ns(b, t);
    printf("%-24s %-16s %11zu %12.1f %12.1f %10.1f %8.3f %s\n", name, algo, n, t.median_ns / 1e3,
           t.wall_ns / 1e3, gbps, ratio, check);
    fflush(stdout);
    if (b->json == NULL)
        return;
    FILE *f = b->json;
    char full[192];
    snprintf(full, sizeof full, "%s/%s/%zu", name, algo, n);
    bench_json_begin(b, full, t);
    bench_json_text(f, "case", name);
    bench_json_text(f, "algo", algo);
    fprintf(f, ", \"n\": %zu", n);
    bench_json_field(f, "bytes_per_second", gbps * 1e9);
    bench_json_field(f, "gbps", gbps);
    bench_json_field(f, "ratio_to_copy", ratio);
    bench_json_text(f, "check", check);
    bench_json_end(b);
}

/* The output of the last timed selection against ref_select. */
static const char *check_select(select_run *r, unsigned keep, double value, bool partition,
                                gpgpu_type type)
{
    if (!r->check)
        return "-";
    size_t n = r->n;
    uint32_t *want = malloc(n * 4 + 4), *got = malloc(n * 4 + 4), count = 0;
    const char *verdict = "FAILED";
    if (want && got &&
        gpgpu_buffer_download(r->count, 0, &count, 4) == GPGPU_SUCCESS &&
        gpgpu_buffer_download(r->out, 0, got, n * 4) == GPGPU_SUCCESS) {
        size_t k = ref_select(type, keep, value, partition, r->host_in, r->host_flags, NULL, n,
                              want, NULL, NULL);
        size_t written = partition ? n : k;
        if (count == k && memcmp(got, want, written * 4) == 0)
            verdict = "ok";
    }
    free(want);
    free(got);
    if (strcmp(verdict, "ok") != 0) {
        printf("CHECK FAILED: %s\n", r->b->step);
        r->b->check_failed = true;
    }
    return verdict;
}

typedef struct select_case {
    const char *name;
    gpgpu_type type;
    unsigned keep; /* 0: the flags; else a gpgpu_compare */
    bool partition;
} select_case;

static const select_case select_cases[] = {
    { "select_flagged_u32", GPGPU_TYPE_U32, 0, false },
    { "select_if_f32", GPGPU_TYPE_F32, GPGPU_COMPARE_LT, false },
    { "partition_flagged_u32", GPGPU_TYPE_U32, 0, true },
};

static const struct {
    const char *name;
    gpgpu_algo algo;
} select_algos[] = {
    { "fast", GPGPU_ALGO_DEFAULT },
    { "single-pass", GPGPU_ALGO_SCAN_SINGLE_PASS },
    { "reduce-then-scan", GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN },
};

static bool wanted(const bench *b, const char *name, const char *algo)
{
    return (!b->opt->case_filter || strstr(name, b->opt->case_filter)) &&
           (!b->opt->algo_filter || bench_list_has(b->opt->algo_filter, algo));
}

static int run_selects(select_run *r)
{
    bench *b = r->b;
    int rc = TOOL_EXIT_OK;
    for (size_t c = 0; c < COUNT_OF(select_cases) && rc == TOOL_EXIT_OK; c++) {
        const select_case *sc = &select_cases[c];
        gpgpu_buffer *in = sc->type == GPGPU_TYPE_F32 ? r->recs : r->in; /* f32 values there */
        for (size_t a = 0; a < COUNT_OF(select_algos) && rc == TOOL_EXIT_OK; a++) {
            if (!wanted(b, sc->name, select_algos[a].name) ||
                (sc->partition && select_algos[a].algo != GPGPU_ALGO_DEFAULT) ||
                (select_algos[a].algo == GPGPU_ALGO_SCAN_SINGLE_PASS &&
                 r->n > ((size_t)1 << 30) - 1))
                continue;
            r->desc = (gpgpu_select_desc){ .type = sc->type, .compare = (gpgpu_compare)sc->keep,
                                           .value = 1.0,
                                           .partition = sc->partition,
                                           .algo = select_algos[a].algo,
                                           .flags = sc->keep ? NULL : r->flags,
                                           .count_out = r->count };
            gpgpu_buffer *saved = r->in;
            r->in = in;
            snprintf(b->step, sizeof(b->step), "%s n=%zu %s", sc->name, r->n,
                     select_algos[a].name);
            timing t;
            gpgpu_status s = bench_time_call(b, select_once, r, &t);
            r->in = saved;
            if (s != GPGPU_SUCCESS)
                return bench_skip_or_fail(b, s);
            /* kept about half: each element read (and its flag), the kept ones written */
            uint32_t *host = r->host_in;
            if (sc->type == GPGPU_TYPE_F32)
                r->host_in = r->host_recs;
            const char *verdict = check_select(r, sc->keep, 1.0, sc->partition, sc->type);
            r->host_in = host;
            uint32_t kept = 0;
            gpgpu_buffer_download(r->count, 0, &kept, 4);
            double n = (double)r->n;
            double bytes = 4 * n * (sc->keep ? 1 : 2) + 4.0 * (sc->partition ? n : kept);
            row(b, sc->name, select_algos[a].name, r->n, t, bytes, NAN, verdict);
        }
    }
    return rc;
}

/* A gather of records of `words` words through sorted or random indices, then the copy of
 * the same record bytes. */
static int run_gather(select_run *r, size_t words, bool random)
{
    bench *b = r->b;
    char name[32];
    snprintf(name, sizeof(name), "gather_%zuB", words * 4);
    const char *algo = random ? "random" : "sorted";
    if (!wanted(b, name, algo))
        return TOOL_EXIT_OK;
    r->words = words;
    r->gather = (gpgpu_gather_desc){ .record_bytes = words * 4 };
    int rc = fill(b, r->idx, random ? FILL_RANDOM_INDEX : FILL_IOTA, r->n, r->n,
                  r->check ? &r->host_idx : NULL);
    if (rc != TOOL_EXIT_OK)
        return rc;
    snprintf(b->step, sizeof(b->step), "%s n=%zu %s", name, r->n, algo);
    timing t, copy;
    gpgpu_status s = bench_time_call(b, gather_once, r, &t);
    const char *verdict = "-";
    if (s == GPGPU_SUCCESS && r->check) {
        size_t bytes = r->n * words * 4;
        uint32_t *got = malloc(bytes + 4), *want = malloc(bytes + 4);
        verdict = "FAILED";
        if (got && want && gpgpu_buffer_download(r->gathered, 0, got, bytes) == GPGPU_SUCCESS) {
            ref_gather(words, r->host_recs, r->host_idx, r->n, want);
            if (memcmp(got, want, bytes) == 0)
                verdict = "ok";
        }
        free(got);
        free(want);
        if (strcmp(verdict, "ok") != 0) {
            printf("CHECK FAILED: %s\n", b->step);
            b->check_failed = true;
        }
    }
    free(r->host_idx);
    r->host_idx = NULL;
    if (s == GPGPU_SUCCESS) {
        snprintf(b->step, sizeof(b->step), "copy of %s n=%zu", name, r->n);
        s = bench_time_call(b, copy_once, r, &copy);
    }
    if (s != GPGPU_SUCCESS)
        return bench_skip_or_fail(b, s);
    double record_bytes = (double)r->n * (double)words * 4;
    row(b, name, algo, r->n, t, 2 * record_bytes + 4.0 * (double)r->n,
        bench_rate_ns(b, copy) / bench_rate_ns(b, t), verdict);
    row(b, name, "copy", r->n, copy, 2 * record_bytes, 1.0, "-");
    return TOOL_EXIT_OK;
}

static int run_size(bench *b, int log2n)
{
    select_run r = { .b = b, .n = (size_t)1 << log2n };
    size_t n = r.n;
    r.check = log2n <= b->opt->check_max_log2;
    if (n * 4 > b->cap_bytes)
        return TOOL_EXIT_OK;
    /* The 16-byte records' gathers only where their buffers stay within the cap (at 2^28
     * they take 4 GiB, a byte past a Vulkan device's largest binding): the selections and
     * the 4-byte gathers run without them. */
    size_t rec_words = n * 16 <= b->cap_bytes ? 4 : 1;
    gpgpu_status s = GPGPU_SUCCESS;
    gpgpu_buffer **bufs[] = { &r.in, &r.flags, &r.out, &r.idx };
    for (size_t i = 0; i < COUNT_OF(bufs) && s == GPGPU_SUCCESS; i++)
        s = gpgpu_buffer_create(b->ctx, n * 4, bufs[i]);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_buffer_create(b->ctx, 16, &r.count);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_buffer_create(b->ctx, n * 4 * rec_words, &r.recs);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_buffer_create(b->ctx, n * 4 * rec_words, &r.gathered);
    int rc = s == GPGPU_SUCCESS ? TOOL_EXIT_OK : bench_skip_or_fail(b, s);
    bool made = s == GPGPU_SUCCESS;
    if (made && rc == TOOL_EXIT_OK)
        rc = fill(b, r.in, FILL_U32, n, n, r.check ? &r.host_in : NULL);
    if (made && rc == TOOL_EXIT_OK)
        rc = fill(b, r.flags, FILL_FLAGS, n, n, r.check ? &r.host_flags : NULL);
    /* The records: f32 values first (select_if_f32 reads the first n words). */
    if (made && rc == TOOL_EXIT_OK)
        rc = fill(b, r.recs, FILL_F32, rec_words * n, n, r.check ? &r.host_recs : NULL);
    if (made && rc == TOOL_EXIT_OK)
        rc = run_selects(&r);
    if (made && rc == TOOL_EXIT_OK && !b->stopped)
        rc = run_gather(&r, 1, false);
    for (int random = 0; random < 2 && rec_words == 4 && made && rc == TOOL_EXIT_OK &&
                         !b->stopped; random++)
        rc = run_gather(&r, 4, random);
    if (made && rc == TOOL_EXIT_OK && !b->stopped)
        rc = run_gather(&r, 1, true);
    gpgpu_buffer *all[] = { r.in, r.flags, r.out, r.idx, r.count, r.recs, r.gathered };
    for (size_t i = 0; i < COUNT_OF(all); i++)
        gpgpu_buffer_destroy(all[i]);
    free(r.host_in);
    free(r.host_flags);
    free(r.host_recs);
    return rc;
}

int bench_select_run(bench *b)
{
    int rc = TOOL_EXIT_OK;
    printf("\n%-24s %-16s %11s %12s %12s %10s %8s %s\n", "case", "algo", "n", "gpu_us",
           "wall_us", "GB/s", "vs_copy", "check");
    for (int s = 0; s < b->opt->size_count && rc == TOOL_EXIT_OK && !b->stopped; s++)
        rc = run_size(b, b->opt->sizes[s]);
    return rc;
}
