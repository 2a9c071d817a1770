/* gpgpu-bench --only segreduce: gpgpu_segmented_reduce (sum of f32) on millions of tiny
 * segments and on a few huge ones at n = 2^k, and on the row pointers of the matrices of
 * --matrix and --gen, as bench/cub_peer.cu times cub::DeviceSegmentedReduce::Sum on the same
 * offsets. */
#include "gpgpu_bench.h"

#include "ref/ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char bench_segreduce_help[] =
    "\n"
    "Segmented sums (--only segreduce): gpgpu_segmented_reduce of n = 2^k f32 values\n"
    "(hash32(i + 0x9e3779b9) >> 8) / 2^24, case segreduce_sum_f32_tiny (segment s has\n"
    "hash32(s + 0x85ebca6b) % 8 values: about n / 3.5 segments, an eighth empty) and\n"
    "segreduce_sum_f32_huge (4 equal segments); then segreduce_csr_sum_f32 on the row\n"
    "pointers and values of each --matrix and --gen matrix (default laplace3d_7:32,\n"
    "rmat:14). GB/s counts the values and offsets read and the sums written; the sums\n"
    "are checked against the CPU up to --check-max-log2 values.\n";

static const bench_matrix_arg default_matrices[] = {
    { "laplace3d_7:32", false },
    { "rmat:14", false },
};

static void fill_values(size_t first, size_t count, void *out, const void *user)
{
    (void)user;
    for (size_t k = 0; k < count; k++)
        ((float *)out)[k] =
            (float)(bench_hash32((uint32_t)(first + k) + 0x9e3779b9u) >> 8) * (1.0f / 16777216.0f);
}

/* The offsets of a layout over n values (malloc'ed, *nseg + 1 of them; NULL when out of
 * memory), as bench/cub_peer.cu's segment_offsets makes them. */
static uint32_t *make_offsets(bool tiny, size_t n, size_t *nseg)
{
    size_t cap = tiny ? n + 2 : 5, k = 0;
    uint32_t *o = malloc(cap * 4);
    if (o == NULL)
        return NULL;
    o[k++] = 0;
    if (tiny) {
        for (size_t at = 0, s = 0; at < n; s++) {
            size_t len = bench_hash32((uint32_t)s + 0x85ebca6bu) % 8;
            at = at + len < n ? at + len : n;
            o[k++] = (uint32_t)at;
        }
    } else {
        for (int q = 1; q <= 4; q++)
            o[k++] = (uint32_t)(n / 4 * q + (q == 4 ? n % 4 : 0));
    }
    *nseg = k - 1;
    return o;
}

typedef struct seg_run {
    bench *b;
    gpgpu_segmented_reduce_desc desc;
    gpgpu_buffer *in, *out;
    size_t n, nseg;
} seg_run;

static gpgpu_status seg_once(void *user)
{
    seg_run *r = user;
    return gpgpu_segmented_reduce(r->b->ctx, &r->desc, r->in, 0, r->n, r->out, 0, r->nseg);
}

/* The sums against the twin's, each within gamma_len of its sum of |x|. */
static const char *seg_check(seg_run *r, const float *values, const uint32_t *offsets)
{
    if (r->n > ((size_t)1 << r->b->opt->check_max_log2))
        return "skipped";
    float *got = malloc(r->nseg * 4 + 4), *want = malloc(r->nseg * 4 + 4);
    long double *abs = malloc((r->nseg + 1) * sizeof *abs);
    const char *verdict = "failed";
    if (got && want && abs &&
        gpgpu_buffer_download(r->out, 0, got, r->nseg * 4) == GPGPU_SUCCESS) {
        ref_segreduce(GPGPU_TYPE_F32, GPGPU_OP_SUM, values, r->n, offsets, r->nseg, want, abs);
        verdict = "ok";
        for (size_t s = 0; s < r->nseg; s++) {
            double d = (double)(offsets[s + 1] - offsets[s]) + 2, u = 0x1p-24;
            if (fabs((double)got[s] - (double)want[s]) > d * u / (1 - d * u) * (double)abs[s])
                verdict = "failed";
        }
    }
    free(got);
    free(want);
    free(abs);
    return verdict;
}

/* Times one layout: values and offsets uploaded, the sums checked. */
static int run_layout(bench *b, const char *name, const char *matrix, const float *values,
                      size_t n, const uint32_t *offsets, size_t nseg)
{
    seg_run r = { .b = b, .n = n, .nseg = nseg,
                  .desc = { .type = GPGPU_TYPE_F32, .op = GPGPU_OP_SUM } };
    gpgpu_buffer *seg = NULL;
    snprintf(b->step, sizeof(b->step), "%s %s n=%zu", name, matrix ? matrix : "", n);
    tool_message("%s", b->step);
    gpgpu_status status = gpgpu_buffer_create(b->ctx, (n ? n : 1) * 4, &r.in);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_create(b->ctx, (nseg ? nseg : 1) * 4, &r.out);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_create(b->ctx, (nseg + 1) * 4, &seg);
    if (status == GPGPU_SUCCESS && n > 0)
        status = gpgpu_buffer_upload(r.in, 0, values, n * 4);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_upload(seg, 0, offsets, (nseg + 1) * 4);
    r.desc.segments = seg;
    timing t;
    if (status == GPGPU_SUCCESS)
        status = bench_time_call(b, seg_once, &r, &t);
    int rc = matrix ? (status == GPGPU_SUCCESS ? TOOL_EXIT_OK : bench_skip_or_fail(b, status))
                    : bench_check(b, status);
    if (status == GPGPU_SUCCESS)
        bench_segmented_report(b, &(bench_segmented_row){
                                      .name = name, .matrix = matrix, .n = n, .segments = nseg,
                                      .t = t, .bytes = (double)n * 4 + (double)(2 * nseg + 1) * 4,
                                      .check = seg_check(&r, values, offsets) });
    gpgpu_buffer_destroy(seg);
    gpgpu_buffer_destroy(r.out);
    gpgpu_buffer_destroy(r.in);
    return rc;
}

static int run_size(bench *b, int log2n)
{
    size_t n = (size_t)1 << log2n;
    const char *names[] = { "segreduce_sum_f32_tiny", "segreduce_sum_f32_huge" };
    float *values = malloc(n * 4);
    int rc = TOOL_EXIT_OK;

    if (values == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "segreduce values", "out of host memory");
    fill_values(0, n, values, NULL);
    for (int tiny = 1; tiny >= 0 && rc == TOOL_EXIT_OK && !b->stopped; tiny--) {
        const char *name = names[tiny ? 0 : 1];
        if (b->opt->case_filter && !strstr(name, b->opt->case_filter))
            continue;
        size_t nseg;
        uint32_t *offsets = make_offsets(tiny, n, &nseg);
        rc = offsets ? run_layout(b, name, NULL, values, n, offsets, nseg)
                     : tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, name, "out of host memory");
        free(offsets);
    }
    free(values);
    return rc;
}

static int run_matrix(bench *b, const bench_matrix *m)
{
    const char *name = "segreduce_csr_sum_f32";
    if (b->opt->case_filter && !strstr(name, b->opt->case_filter))
        return TOOL_EXIT_OK;
    float *values = malloc(m->a.nnz * 4 + 4);
    if (values == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, name, "out of host memory");
    for (size_t e = 0; e < m->a.nnz; e++)
        values[e] = (float)m->a.values[e];
    int rc = run_layout(b, name, m->name, values, m->a.nnz, m->a.row_ptr, m->a.rows);
    free(values);
    return rc;
}

int bench_segreduce_run(bench *b)
{
    int rc = TOOL_EXIT_OK;

    bench_segmented_header();
    for (int s = 0; s < b->opt->size_count && rc == TOOL_EXIT_OK && !b->stopped; s++)
        if (((size_t)1 << b->opt->sizes[s]) * 4 <= b->cap_bytes)
            rc = run_size(b, b->opt->sizes[s]);
    if (rc == TOOL_EXIT_OK && !b->stopped)
        rc = bench_run_matrices(b, default_matrices, (int)COUNT_OF(default_matrices), run_matrix);
    return rc;
}
