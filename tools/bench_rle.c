/* gpgpu-bench --only rle: gpgpu_run_length_encode and gpgpu_reduce_by_key at n = 2^k on keys
 * in runs of 1 and of 16, the run count left on the GPU, as bench/cub_peer.cu times
 * cub::DeviceRunLengthEncode::Encode and cub::DeviceReduce::ReduceByKey on the same keys. */
#include "gpgpu_bench.h"

#include "ref/ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char bench_rle_help[] =
    "\n"
    "Run-length encoding (--only rle): n = 2^k u32 keys hash32(i / L + 0x9e3779b9),\n"
    "runs of L = 1 (every key its own run) and L = 16; cases rle_encode_u32_runsL\n"
    "(unique keys, lengths and the run count to GPU buffers) and\n"
    "reduce_by_key_u32_f32_runsL (f32 values (hash32(i + 0x7f4a7c15) >> 8) / 2^24\n"
    "summed per run). GB/s counts the keys (and values) read and the outputs written\n"
    "for the runs found; the outputs are checked against the CPU up to\n"
    "--check-max-log2.\n";

typedef struct rle_case {
    bool by_key;
    uint32_t run;
} rle_case;

static const rle_case rle_cases[] = { { false, 1 }, { false, 16 }, { true, 1 }, { true, 16 } };

static void fill_keys(size_t first, size_t count, void *out, const void *user)
{
    uint32_t run = *(const uint32_t *)user;
    for (size_t k = 0; k < count; k++)
        ((uint32_t *)out)[k] = bench_hash32((uint32_t)((first + k) / run) + 0x9e3779b9u);
}

static void fill_values(size_t first, size_t count, void *out, const void *user)
{
    (void)user;
    for (size_t k = 0; k < count; k++)
        ((float *)out)[k] =
            (float)(bench_hash32((uint32_t)(first + k) + 0x7f4a7c15u) >> 8) * (1.0f / 16777216.0f);
}

typedef struct rle_run {
    bench *b;
    const rle_case *c;
    gpgpu_rle_desc desc;
    gpgpu_buffer *keys, *values, *unique, *out, *count;
    size_t n;
} rle_run;

static gpgpu_status rle_once(void *user)
{
    rle_run *r = user;
    if (r->c->by_key)
        return gpgpu_reduce_by_key(r->b->ctx, &r->desc, r->keys, 0, r->values, 0, r->n,
                                   r->unique, 0, r->out, 0, NULL);
    return gpgpu_run_length_encode(r->b->ctx, &r->desc, r->keys, 0, r->n, r->unique, 0, r->out,
                                   0, NULL);
}

/* The run count, unique keys and lengths (or sums) against the twin's. */
static const char *rle_check(rle_run *r, uint32_t runs)
{
    size_t n = r->n;
    if (n > ((size_t)1 << r->b->opt->check_max_log2))
        return "skipped";
    uint32_t *keys = malloc(n * 4 + 4), *uk = malloc(n * 4 + 4), *want_uk = malloc(n * 4 + 4);
    uint32_t *out = malloc(n * 4 + 4), *lengths = malloc(n * 4 + 4), *starts = malloc(n * 4 + 8);
    float *values = malloc(n * 4 + 4), *sums = malloc(n * 4 + 4);
    long double *abs = malloc((n + 1) * sizeof *abs);
    const char *verdict = "failed";
    if (keys && uk && want_uk && out && lengths && starts && values && sums && abs &&
        gpgpu_buffer_download(r->unique, 0, uk, runs * 4) == GPGPU_SUCCESS &&
        gpgpu_buffer_download(r->out, 0, out, runs * 4) == GPGPU_SUCCESS) {
        fill_keys(0, n, keys, &r->c->run);
        size_t want = ref_rle(GPGPU_TYPE_U32, keys, n, want_uk, lengths, starts);
        verdict = want == runs && memcmp(uk, want_uk, runs * 4) == 0 ? "ok" : "failed";
        if (!r->c->by_key && memcmp(out, lengths, runs * 4) != 0)
            verdict = "failed";
        if (r->c->by_key) {
            fill_values(0, n, values, NULL);
            ref_segreduce(GPGPU_TYPE_F32, GPGPU_OP_SUM, values, n, starts, want, sums, abs);
            for (size_t k = 0; k < want && k < runs; k++) {
                double d = (double)lengths[k] + 2, u = 0x1p-24, got;
                float g;
                memcpy(&g, &out[k], 4);
                got = g;
                if (fabs(got - (double)sums[k]) > d * u / (1 - d * u) * (double)abs[k])
                    verdict = "failed";
            }
        }
    }
    free(keys);
    free(uk);
    free(want_uk);
    free(out);
    free(lengths);
    free(starts);
    free(values);
    free(sums);
    free(abs);
    return verdict;
}

static int run_case(bench *b, rle_run *r, const rle_case *c, int log2n)
{
    char name[64];
    snprintf(name, sizeof(name),
             c->by_key ? "reduce_by_key_u32_f32_runs%u" : "rle_encode_u32_runs%u", c->run);
    if (b->opt->case_filter && !strstr(name, b->opt->case_filter))
        return TOOL_EXIT_OK;
    snprintf(b->step, sizeof(b->step), "%s n=2^%d", name, log2n);
    tool_message("%s", b->step);
    r->c = c;
    r->desc = (gpgpu_rle_desc){ .type = GPGPU_TYPE_U32, .value_type = GPGPU_TYPE_F32,
                                .count_out = r->count };
    int rc = bench_upload_fill(b, r->keys, 4, r->n, fill_keys, &c->run);
    if (rc != TOOL_EXIT_OK || b->stopped)
        return rc;
    timing t;
    rc = bench_check(b, bench_time_call(b, rle_once, r, &t));
    if (rc != TOOL_EXIT_OK || b->stopped)
        return rc;
    uint32_t runs = 0;
    rc = bench_check(b, gpgpu_buffer_download(r->count, 0, &runs, 4));
    if (rc != TOOL_EXIT_OK || b->stopped)
        return rc;
    double bytes = (double)r->n * (c->by_key ? 8 : 4) + (double)runs * 8 + 4;
    bench_segmented_report(b, &(bench_segmented_row){ .name = name, .n = r->n, .segments = runs,
                                                       .t = t, .bytes = bytes,
                                                       .check = rle_check(r, runs) });
    return TOOL_EXIT_OK;
}

int bench_rle_run(bench *b)
{
    int rc = TOOL_EXIT_OK;

    bench_segmented_header();
    for (int s = 0; s < b->opt->size_count && rc == TOOL_EXIT_OK && !b->stopped; s++) {
        int k = b->opt->sizes[s];
        rle_run r = { .b = b, .n = (size_t)1 << k };
        if (r.n * 4 > b->cap_bytes)
            break;
        snprintf(b->step, sizeof(b->step), "rle buffers n=2^%d", k);
        gpgpu_status status = gpgpu_buffer_create(b->ctx, r.n * 4, &r.keys);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_create(b->ctx, r.n * 4, &r.values);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_create(b->ctx, r.n * 4, &r.unique);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_create(b->ctx, r.n * 4, &r.out);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_create(b->ctx, 4, &r.count);
        rc = bench_check(b, status);
        if (rc == TOOL_EXIT_OK && !b->stopped)
            rc = bench_upload_fill(b, r.values, 4, r.n, fill_values, NULL);
        for (size_t c = 0; c < COUNT_OF(rle_cases) && rc == TOOL_EXIT_OK && !b->stopped; c++)
            rc = run_case(b, &r, &rle_cases[c], k);
        gpgpu_buffer_destroy(r.count);
        gpgpu_buffer_destroy(r.out);
        gpgpu_buffer_destroy(r.unique);
        gpgpu_buffer_destroy(r.values);
        gpgpu_buffer_destroy(r.keys);
    }
    return rc;
}
