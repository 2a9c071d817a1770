/* gpgpu-bench --only histogram: gpgpu_histogram with even bins, 256 and 4096 of them, over
 * uniform and skewed u32 and f32 samples, as bench/cub_peer.cu times
 * cub::DeviceHistogram::HistogramEven on the same samples. Also the helpers the histogram,
 * segmented reduce and run-length cases share (gpgpu_bench.h). */
#include "gpgpu_bench.h"

#include "ref/ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char bench_histogram_help[] =
    "\n"
    "Histograms (--only histogram): gpgpu_histogram of n = 2^k samples in even bins,\n"
    "cases histogram_even_{u32,f32}_{256,4096}_{uniform,skewed}: u32 samples h_i =\n"
    "hash32(i + 0x9e3779b9) over [0, 2^32 - 1), f32 samples (h_i >> 8) / 2^24 over\n"
    "[0, 1); skewed: h_i & rotl(h_i, 11) & rotl(h_i, 21) instead of h_i (each bit set\n"
    "one time in eight: most samples in the low bins), as bench/cub_peer.cu makes them.\n"
    "GB/s counts the samples read; the counts are checked against the CPU up to\n"
    "--check-max-log2.\n";

/* -------------------------------------------------------- shared helpers */

uint32_t bench_hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

int bench_upload_fill(bench *b, gpgpu_buffer *buf, size_t size, size_t n, bench_fill fill,
                      const void *user)
{
    const size_t piece = (size_t)1 << 20;
    void *host = malloc((n < piece ? n : piece) * size + 1);

    if (host == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, b->step, "out of host memory");
    for (size_t first = 0; first < n; first += piece) {
        size_t m = n - first < piece ? n - first : piece;
        fill(first, m, host, user);
        gpgpu_status status = gpgpu_buffer_upload(buf, first * size, host, m * size);
        if (status != GPGPU_SUCCESS) {
            free(host);
            return bench_check(b, status);
        }
    }
    free(host);
    return TOOL_EXIT_OK;
}

void bench_segmented_header(void)
{
    printf("\n%-34s %11s %12s %12s %12s %9s %13s %9s %s\n", "case", "n", "median_us", "min_us",
           "wall_us", "GB/s", "ratio_to_copy", "Gkeys/s", "check");
}

void bench_segmented_report(bench *b, const bench_segmented_row *r)
{
    double ns = bench_rate_ns(b, r->t), gbps = r->bytes / ns, gkeys = (double)r->n / ns;

    printf("%-34s %11zu %12.2f %12.2f %12.2f %9.2f %13.3f %9.4f %s\n", r->name, r->n,
           r->t.median_ns / 1e3, r->t.min_ns / 1e3, r->t.wall_ns / 1e3, gbps,
           gbps / b->copy_gbps, gkeys, r->check);
    fflush(stdout);
    if (strcmp(r->check, "failed") == 0)
        b->check_failed = true;
    if (b->json == NULL)
        return;
    char name[256];
    if (r->matrix != NULL)
        snprintf(name, sizeof name, "%s/fast/%s", r->name, r->matrix);
    else
        snprintf(name, sizeof name, "%s/fast/%zu", r->name, r->n);
    bench_json_begin(b, name, r->t);
    bench_json_text(b->json, "case", r->name);
    bench_json_text(b->json, "algo", "fast");
    fprintf(b->json, ", \"n\": %zu", r->n);
    if (r->matrix != NULL)
        bench_json_text(b->json, "matrix", r->matrix);
    if (r->segments > 0)
        fprintf(b->json, ", \"segments\": %zu", r->segments);
    bench_json_field(b->json, "bytes_per_second", gbps * 1e9);
    bench_json_field(b->json, "items_per_second", gkeys * 1e9);
    bench_json_field(b->json, "gbps", gbps);
    bench_json_field(b->json, "gkeys_per_s", gkeys);
    bench_json_field(b->json, "ratio_to_copy", gbps / b->copy_gbps);
    bench_json_text(b->json, "check", r->check);
    bench_json_end(b);
}

/* ----------------------------------------------------------------- cases */

typedef struct hist_case {
    gpgpu_type type;
    uint32_t bins;
    bool skewed;
} hist_case;

static const hist_case hist_cases[] = {
    { GPGPU_TYPE_U32, 256, false },  { GPGPU_TYPE_U32, 256, true },
    { GPGPU_TYPE_U32, 4096, false }, { GPGPU_TYPE_U32, 4096, true },
    { GPGPU_TYPE_F32, 256, false },  { GPGPU_TYPE_F32, 256, true },
    { GPGPU_TYPE_F32, 4096, false }, { GPGPU_TYPE_F32, 4096, true },
};

static uint32_t rotl(uint32_t x, unsigned k) { return x << k | x >> (32 - k); }

/* Sample i's bits, as bench/cub_peer.cu's histogram_sample makes them. */
static uint32_t sample_bits(size_t i, gpgpu_type type, bool skewed)
{
    uint32_t h = bench_hash32((uint32_t)i + 0x9e3779b9u);
    if (skewed)
        h = h & rotl(h, 11) & rotl(h, 21);
    if (type == GPGPU_TYPE_U32)
        return h;
    float f = (float)(h >> 8) * (1.0f / 16777216.0f);
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return bits;
}

static void fill_samples(size_t first, size_t count, void *out, const void *user)
{
    const hist_case *c = user;
    for (size_t k = 0; k < count; k++)
        ((uint32_t *)out)[k] = sample_bits(first + k, c->type, c->skewed);
}

typedef struct hist_run {
    bench *b;
    gpgpu_histogram_desc desc;
    gpgpu_buffer *in, *counts;
    size_t n;
} hist_run;

static gpgpu_status hist_once(void *user)
{
    hist_run *r = user;
    return gpgpu_histogram(r->b->ctx, &r->desc, r->in, 0, r->n, r->counts, 0);
}

/* The counts against the twin's on the same samples. */
static const char *hist_check(hist_run *r, const hist_case *c)
{
    if (r->n > ((size_t)1 << r->b->opt->check_max_log2))
        return "skipped";
    uint32_t *samples = malloc(r->n * 4 + 4), *got = malloc(c->bins * 4);
    uint32_t *want = calloc(c->bins, 4);
    const char *verdict = "failed";
    if (samples && got && want &&
        gpgpu_buffer_download(r->counts, 0, got, c->bins * 4) == GPGPU_SUCCESS) {
        fill_samples(0, r->n, samples, c);
        ref_histogram_count(c->type, c->bins, r->desc.lower, r->desc.upper, NULL, samples, r->n,
                            want);
        verdict = memcmp(got, want, c->bins * 4) == 0 ? "ok" : "failed";
    }
    free(samples);
    free(got);
    free(want);
    return verdict;
}

static int run_case(bench *b, const hist_case *c, int log2n, gpgpu_buffer *in,
                    gpgpu_buffer *counts)
{
    size_t n = (size_t)1 << log2n;
    char name[64];
    snprintf(name, sizeof(name), "histogram_even_%s_%u_%s", gpgpu_type_name(c->type), c->bins,
             c->skewed ? "skewed" : "uniform");
    if (b->opt->case_filter && !strstr(name, b->opt->case_filter))
        return TOOL_EXIT_OK;
    snprintf(b->step, sizeof(b->step), "%s n=2^%d", name, log2n);
    tool_message("%s", b->step);
    int rc = bench_upload_fill(b, in, 4, n, fill_samples, c);
    if (rc != TOOL_EXIT_OK || b->stopped)
        return rc;
    hist_run r = { .b = b, .in = in, .counts = counts, .n = n,
                   .desc = { .type = c->type, .bins = c->bins, .lower = 0,
                             .upper = c->type == GPGPU_TYPE_U32 ? 4294967295.0 : 1.0 } };
    timing t;
    rc = bench_check(b, bench_time_call(b, hist_once, &r, &t));
    if (rc != TOOL_EXIT_OK || b->stopped)
        return rc;
    bench_segmented_report(b, &(bench_segmented_row){ .name = name, .n = n, .t = t,
                                                       .bytes = (double)n * 4,
                                                       .check = hist_check(&r, c) });
    return TOOL_EXIT_OK;
}

int bench_histogram_run(bench *b)
{
    int rc = TOOL_EXIT_OK;

    bench_segmented_header();
    for (int s = 0; s < b->opt->size_count && rc == TOOL_EXIT_OK && !b->stopped; s++) {
        int k = b->opt->sizes[s];
        size_t n = (size_t)1 << k;
        gpgpu_buffer *in = NULL, *counts = NULL;
        if (n * 4 > b->cap_bytes)
            break;
        snprintf(b->step, sizeof(b->step), "histogram buffers n=2^%d", k);
        gpgpu_status status = gpgpu_buffer_create(b->ctx, n * 4, &in);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_create(b->ctx, 4096 * 4, &counts);
        rc = bench_check(b, status);
        for (size_t c = 0; c < COUNT_OF(hist_cases) && rc == TOOL_EXIT_OK && !b->stopped; c++)
            rc = run_case(b, &hist_cases[c], k, in, counts);
        gpgpu_buffer_destroy(counts);
        gpgpu_buffer_destroy(in);
    }
    return rc;
}
