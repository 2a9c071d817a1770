/* gpgpu-bench's sort cases (--only sort): u32 and f32 keys and u32 pairs by the classic
 * network, bitonic and radix, out of place (every run sorts the same unsorted input),
 * each size's own copy of the same bytes timed just before as its ceiling, the output of
 * the last run checked against the CPU up to --check-max-log2. */
#include "gpgpu_bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SORT(name_, type_, pairs_, algo_)                                                      \
    { .name = name_, .kind = KIND_SORT, .type = GPGPU_TYPE_##type_, .pairs = pairs_,           \
      .algo = GPGPU_ALGO_##algo_ }

const bench_case bench_sort_cases[] = {
    SORT("sort_keys_u32", U32, false, CLASSIC_NETSORT),
    SORT("sort_keys_u32", U32, false, BITONIC),
    SORT("sort_keys_u32", U32, false, RADIX),
    SORT("sort_pairs_u32", U32, true, CLASSIC_NETSORT),
    SORT("sort_pairs_u32", U32, true, BITONIC),
    SORT("sort_pairs_u32", U32, true, RADIX),
    SORT("sort_keys_f32", F32, false, CLASSIC_NETSORT),
    SORT("sort_keys_f32", F32, false, BITONIC),
    SORT("sort_keys_f32", F32, false, RADIX),
};
const size_t bench_sort_case_count = COUNT_OF(bench_sort_cases);

/* The sort descriptor of a sort case: out of place, pairs from vin to vout. */
static gpgpu_sort_desc sort_desc(const bench *b, const bench_case *c)
{
    gpgpu_sort_desc desc = { .type = c->type, .algo = c->algo, .scratch = b->scratch };

    if (c->pairs) {
        desc.values_in = b->vin;
        desc.values_out = b->vout;
    }
    return desc;
}

gpgpu_status bench_sort_call(bench *b, const bench_case *c, gpgpu_buffer *in, gpgpu_buffer *out,
                             size_t n)
{
    gpgpu_sort_desc desc = sort_desc(b, c);
    return gpgpu_sort(b->ctx, &desc, in, 0, out, 0, n);
}

/* Element i of the random sequence of `seed` (splitmix64, as tool_random_fill
 * uses; bench/cub_peer.cu makes the same on the GPU). */
static uint64_t splitmix64_at(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * UINT64_C(0x9E3779B97F4A7C15);

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* The bits of sort key i: the high 32 bits of element i, all 32 random for
 * u32 (radix sort speed depends on the key bits, so not tool_random_fill's
 * small range); for f32 the same bits with an all-ones exponent (infinity,
 * NaN) turned into 0xFE, so every key is finite (denormals and zeros stay). */
static uint32_t sort_key_bits(gpgpu_type type, uint64_t i)
{
    uint32_t bits = (uint32_t)(splitmix64_at(BENCH_SEED, i) >> 32);

    if (type == GPGPU_TYPE_F32 && (bits & UINT32_C(0x7F800000)) == UINT32_C(0x7F800000))
        bits ^= UINT32_C(0x00800000);
    return bits;
}

/* The library's order as an unsigned integer (src/algo/sort.h): NaN last,
 * negative floats reversed, -0 before +0. */
static uint32_t sort_order(gpgpu_type type, uint32_t bits)
{
    if (type != GPGPU_TYPE_F32)
        return bits;
    if ((bits & UINT32_C(0x7F800000)) == UINT32_C(0x7F800000) && (bits & UINT32_C(0x7FFFFF)))
        return UINT32_MAX;
    return (bits & UINT32_C(0x80000000)) ? ~bits : bits | UINT32_C(0x80000000);
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The keys of one type and size, made on the host, and what checks need. */
typedef struct sort_input {
    gpgpu_type type;
    size_t n;
    uint32_t *keys;    /* for checks: the input, or NULL */
    uint32_t *sorted;  /* for checks: the input's sort_order values, sorted */
    uint32_t *out, *vals;
    unsigned char *seen;
} sort_input;

static void sort_input_free(sort_input *in)
{
    free(in->keys);
    free(in->sorted);
    free(in->out);
    free(in->vals);
    free(in->seen);
    *in = (sort_input){ 0 };
}

/* Uploads the keys (and the values 0..n-1 when `pairs`) a piece at a time;
 * keeps a host copy for checks when `keep`. */
static int sort_upload(bench *b, sort_input *in, bool pairs, bool keep)
{
    const size_t piece = (size_t)1 << 20;
    size_t n = in->n, chunk = n < piece ? n : piece;
    uint32_t *host = malloc(chunk * sizeof(uint32_t));
    gpgpu_status status = GPGPU_SUCCESS;

    if (keep) {
        in->keys = malloc(n * sizeof(uint32_t));
        in->sorted = malloc(n * sizeof(uint32_t));
        in->out = malloc(n * sizeof(uint32_t));
        in->vals = malloc(n * sizeof(uint32_t));
        in->seen = malloc(n);
    }
    if (host == NULL || (keep && (!in->keys || !in->sorted || !in->out || !in->vals || !in->seen))) {
        free(host);
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot generate sort keys",
                         "out of host memory");
    }
    for (size_t first = 0; first < n && status == GPGPU_SUCCESS; first += piece) {
        size_t count = n - first < piece ? n - first : piece;

        for (size_t k = 0; k < count; k++)
            host[k] = sort_key_bits(in->type, first + k);
        if (keep) {
            memcpy(in->keys + first, host, count * sizeof(uint32_t));
            for (size_t k = 0; k < count; k++)
                in->sorted[first + k] = sort_order(in->type, host[k]);
        }
        status = gpgpu_buffer_upload(b->in, first * sizeof(uint32_t), host,
                                     count * sizeof(uint32_t));
        if (status == GPGPU_SUCCESS && pairs) {
            for (size_t k = 0; k < count; k++)
                host[k] = (uint32_t)(first + k);
            status = gpgpu_buffer_upload(b->vin, first * sizeof(uint32_t), host,
                                         count * sizeof(uint32_t));
        }
    }
    free(host);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot upload sort keys", gpgpu_last_error(b->ctx));
    if (keep)
        qsort(in->sorted, n, sizeof(uint32_t), compare_u32);
    return TOOL_EXIT_OK;
}

/* Checks the last timed run's output: keys in order and the same multiset as
 * the input; for pairs, every value an index of the input (each once) whose
 * key went to its place; for radix (stable) equal keys in index order.
 * Returns "ok" or "failed" (with a message), or NULL on a download error. */
static const char *sort_check(bench *b, const bench_case *c, sort_input *in)
{
    size_t n = in->n;
    gpgpu_status status = gpgpu_buffer_download(b->out, 0, in->out, n * sizeof(uint32_t));

    if (status == GPGPU_SUCCESS && c->pairs)
        status = gpgpu_buffer_download(b->vout, 0, in->vals, n * sizeof(uint32_t));
    if (status != GPGPU_SUCCESS) {
        tool_fail(status, "cannot download the sorted keys", gpgpu_last_error(b->ctx));
        return NULL;
    }
    if (c->pairs)
        memset(in->seen, 0, n);
    for (size_t i = 0; i < n; i++) {
        uint32_t order = sort_order(in->type, in->out[i]);

        if (order != in->sorted[i]) {
            tool_message("CHECK FAILED: %s: key %zu is 0x%08x, expected order 0x%08x", b->step,
                         i, in->out[i], in->sorted[i]);
            return "failed";
        }
        if (!c->pairs)
            continue;
        uint32_t v = in->vals[i];
        if (v >= n || in->seen[v] || in->keys[v] != in->out[i]) {
            tool_message("CHECK FAILED: %s: value %zu is %u, %s", b->step, i, v,
                         v >= n ? "not an input index" :
                         in->seen[v] ? "seen before" : "whose key is elsewhere");
            return "failed";
        }
        in->seen[v] = 1;
        if (c->algo == GPGPU_ALGO_RADIX && i > 0 && in->out[i - 1] == in->out[i] &&
            in->vals[i - 1] > v) {
            tool_message("CHECK FAILED: %s: equal keys at %zu out of input order (radix is"
                         " stable)", b->step, i);
            return "failed";
        }
    }
    return "ok";
}

/* Times a copy of the bytes that a sort of n keys (and values) reads, from
 * the input to the output buffers, into *ns. */
static int time_sort_copy(bench *b, size_t n, bool pairs, double *ns)
{
    bench_job job = { .c = NULL, .in = b->in, .out = b->out, .n = n * sizeof(uint32_t),
                      .vin = b->vin, .vout = b->vout,
                      .vbytes = pairs ? n * sizeof(uint32_t) : 0 };
    timing t;

    snprintf(b->step, sizeof(b->step), "copy of the %s of n=%zu", pairs ? "pairs" : "keys", n);
    tool_message("%s", b->step);
    int rc = bench_check(b, bench_time_job(b, &job, &t));
    *ns = bench_rate_ns(b, t);
    return rc;
}

static int run_sort_case(bench *b, const bench_case *c, int log2n, sort_input *in,
                         double copy_ns)
{
    bench_job job = { .c = c, .in = b->in, .out = b->out, .n = (size_t)1 << log2n };
    const char *verdict = "skipped";
    timing t;
    int rc = bench_time_step(b, &job, log2n, &t);
    if (rc != TOOL_EXIT_OK || b->stopped)
        return rc;
    if (in->keys != NULL) {
        verdict = sort_check(b, c, in);
        if (verdict == NULL)
            return TOOL_EXIT_FAILURE;
        b->check_failed = b->check_failed || strcmp(verdict, "ok") != 0;
    }
    double bytes = 2.0 * (double)job.n * (double)(gpgpu_type_size(c->type) +
                                                  (c->pairs ? sizeof(uint32_t) : 0));
    bench_report(b, &(bench_row){ .name = c->name, .algo = bench_algo_name(c->algo), .n = job.n,
                                  .t = t, .bytes = bytes, .ratio = copy_ns / bench_rate_ns(b, t),
                                  .copy_ns = copy_ns, .check = verdict });
    return TOOL_EXIT_OK;
}

/* Runs the enabled sort cases of one key type at one size: the keys (and
 * values) are uploaded once, each case sorts them out of place into the
 * output buffers, so the input is never changed and nothing needs restoring
 * between runs. */
int bench_sort_run_type(bench *b, gpgpu_type type, int log2n)
{
    size_t n = (size_t)1 << log2n;
    bool keys = false, pairs = false;
    double copy_keys_ns = NAN, copy_pairs_ns = NAN;
    sort_input in = { .type = type, .n = n };
    int rc;

    for (size_t c = 0; c < bench_sort_case_count; c++) {
        const bench_case *sc = &bench_sort_cases[c];
        if (sc->type == type && bench_case_enabled(b, sc, log2n)) {
            keys = keys || !sc->pairs;
            pairs = pairs || sc->pairs;
        }
    }
    if (!keys && !pairs)
        return TOOL_EXIT_OK;

    snprintf(b->step, sizeof(b->step), "sort keys %s n=2^%d", gpgpu_type_name(type), log2n);
    rc = sort_upload(b, &in, pairs, log2n <= b->opt->check_max_log2);
    if (rc == TOOL_EXIT_OK && keys)
        rc = time_sort_copy(b, n, false, &copy_keys_ns);
    if (rc == TOOL_EXIT_OK && !b->stopped && pairs)
        rc = time_sort_copy(b, n, true, &copy_pairs_ns);
    for (size_t c = 0; c < bench_sort_case_count && rc == TOOL_EXIT_OK && !b->stopped; c++) {
        const bench_case *sc = &bench_sort_cases[c];
        if (sc->type == type && bench_case_enabled(b, sc, log2n))
            rc = run_sort_case(b, sc, log2n, &in, sc->pairs ? copy_pairs_ns : copy_keys_ns);
    }
    sort_input_free(&in);
    return rc;
}

/* The values buffers for sorts of pairs and, with --own-scratch, the sort's
 * scratch buffer (the largest that any enabled sort asks for), made right
 * after the input and output buffers. */
gpgpu_status bench_sort_buffers(bench *b)
{
    size_t vbytes = bench_largest_bytes(b, true), scratch = 0;
    gpgpu_status status = GPGPU_SUCCESS;

    if (vbytes > b->buffer_bytes)
        vbytes = b->buffer_bytes;
    snprintf(b->step, sizeof(b->step), "sort buffers");
    if (vbytes > 0) {
        status = gpgpu_buffer_create(b->ctx, vbytes, &b->vin);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_create(b->ctx, vbytes, &b->vout);
        if (status != GPGPU_SUCCESS)
            return status;
    }
    if (!b->opt->own_scratch)
        return GPGPU_SUCCESS;
    for (int s = 0; s < b->opt->size_count; s++) {
        int k = b->opt->sizes[s];
        for (size_t c = 0; c < bench_sort_case_count; c++) {
            size_t bytes = 0;

            if (!bench_case_enabled(b, &bench_sort_cases[c], k))
                continue;
            gpgpu_sort_desc desc = sort_desc(b, &bench_sort_cases[c]);
            status = gpgpu_sort_scratch_size(b->ctx, &desc, (size_t)1 << k, &bytes);
            if (status != GPGPU_SUCCESS)
                return status;
            if (bytes > scratch)
                scratch = bytes;
        }
    }
    if (scratch > 0) {
        status = gpgpu_buffer_create(b->ctx, scratch, &b->scratch);
        if (status != GPGPU_SUCCESS) {
            /* Too large for one buffer here: the library manages its own. */
            tool_message("no scratch buffer of %zu bytes (%s): gpgpu_sort uses the context's",
                         scratch, gpgpu_last_error(b->ctx));
            b->scratch = NULL;
            status = GPGPU_SUCCESS;
        }
    }
    return status;
}
