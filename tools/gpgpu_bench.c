/* gpgpu-bench: GPU time of libgpgpu's reduce, scan and sort over power-of-two
 * sizes, compared with the bandwidth of a plain buffer copy. Case names match
 * bench/cub_peer.cu so the two JSON outputs can be joined on them. The SpMV
 * cases (--only spmv) are in bench_spmv.c, the SpGEMM ones (--only spgemm) in
 * bench_spgemm.c, the matrices of both (--matrix, --gen) in bench_matrices.c.
 *
 * This file is the harness: the options, the timing, the table, and the loop
 * over sizes and types. The JSON records are bench_json.c's, the copy ceiling
 * bench_copy.c's, and the cases of each primitive are in bench_reduce.c,
 * bench_scan.c and bench_sort.c. */
#include "gpgpu_bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char bench_help[] =
    "Usage: gpgpu-bench [OPTIONS]\n"
    "\n"
    "Times each case once per size n = 2^k with GPU timer queries (warm-up runs\n"
    "first) and prints the median and minimum GPU time, the median wall-clock\n"
    "time of a call, the effective bandwidth (n * element size / time for\n"
    "reduce, twice that for scan and sort: read and write; a sort of pairs moves\n"
    "keys and values) and Gkeys/s (n / time, elements per second for reduce and\n"
    "scan). The first row, copy_d2d_u32, is a buffer-to-buffer copy of at least\n"
    "256 MiB (n counts its 4-byte words): the ceiling that ratio_to_copy\n"
    "compares reduce and scan with. A sort's ratio_to_copy is the time of a copy\n"
    "of the same bytes (keys, and values for pairs), timed in the same process\n"
    "just before, over the sort's time. Reductions write their result to a GPU\n"
    "buffer (gpgpu_reduce_to_buffer), as CUB's does; `gpgpu reduce` shows the\n"
    "time of a call that brings it to the host.\n"
    "\n"
    "Sort cases (u32 keys with full 32-bit random bits, f32 keys with random\n"
    "bits made finite, u32 values = element index; out of place, the input is\n"
    "never changed, so every run sorts the same unsorted data): sort_keys_u32,\n"
    "sort_keys_f32, sort_pairs_u32, each by netsort (GPGPU_ALGO_CLASSIC_NETSORT),\n"
    "bitonic and radix.\n"
    "\n"
    "  --min-log2 K          smallest size 2^K (default 10)\n"
    "  --max-log2 K          largest size 2^K (default 28, at most 30); without\n"
    "                        it, buffers are also kept within 1/4 of the\n"
    "                        device's max_storage_block_bytes\n"
    "  --step S              log2 size step (default 2)\n"
    "  --sizes K1,K2,...     these sizes 2^K1, 2^K2, ... instead of the range\n"
    "                        (counts as --max-log2 for the cap)\n"
    "  --runs R              timed runs per case and size (default 20)\n"
    "  --warmup W            untimed runs before them (default 3)\n"
    "  --warmup-ms MS        and more untimed runs until the GPU has worked that long\n"
    "                        since it was last idle for 20 ms (default 1000: an idle\n"
    "                        H100 runs SpMV up to 4x slow for 0.4 s; 0: the W runs\n"
    "                        only)\n"
    "  --burst-ms MS         right before each case's timed runs, that long of\n"
    "                        back-to-back 32 MiB copies, so that the GPU runs them\n"
    "                        at its working clock (default 300; 0: none; not where\n"
    "                        the timer misses the work): an H100 left at low duty\n"
    "                        (small calls, shader builds) drops its SM clock from\n"
    "                        1980 to 345 MHz within seconds\n"
    "  --trace               print every timed run's GPU time to stderr, in order,\n"
    "                        with the seconds since the process began\n"
    "  --classic-max-log2 K  run the classic algorithms (dozens of passes; for\n"
    "                        sort the netsort, 1/2 log n (log n + 1) passes) up\n"
    "                        to 2^K only (default 24)\n"
    "  --bitonic-max-log2 K  run the bitonic sort up to 2^K only (default 30)\n"
    "  --only LIST           only these primitives, comma-separated: reduce,\n"
    "                        scan, sort, spmv, spgemm, gemm, select, histogram,\n"
    "                        segreduce, rle (default: reduce,scan,sort;\n"
    "                        spmv where --matrix or --gen is given)\n"
    "  --case TEXT           only cases whose name contains TEXT (e.g. reduce_sum_f32)\n"
    "  --algos LIST          only these algorithms, comma-separated (e.g.\n"
    "                        fast,radix; names as in the algo column)\n"
    "  --check-max-log2 K    check the sorted output against the CPU up to 2^K\n"
    "                        (default 20; the output of the last timed run)\n"
    "  --own-scratch         give gpgpu_sort one scratch buffer made up front,\n"
    "                        next to the others (desc.scratch, sized by\n"
    "                        gpgpu_sort_scratch_size), instead of the context's\n"
    "                        own, made at its first call\n"
    "  --json FILE           also write the results as JSON in google-benchmark's shape\n"
    "  --version             print the version of the library and exit\n";

static const char *const kind_names[KIND_COUNT] = { "reduce", "scan", "sort", "spmv",
                                                     "spgemm", "gemm", "select", "histogram",
                                                     "segreduce", "rle" };

/* Input buffers are made per type, so that each holds data of its type. */
static const gpgpu_type input_types[] = { GPGPU_TYPE_U32, GPGPU_TYPE_F32, GPGPU_TYPE_F64 };

/* Algorithm names: the tools' names for reduce and scan, the sort's here. */
const char *bench_algo_name(gpgpu_algo algo)
{
    switch (algo) {
    case GPGPU_ALGO_CLASSIC_NETSORT:
        return "netsort";
    case GPGPU_ALGO_BITONIC:
        return "bitonic";
    case GPGPU_ALGO_RADIX:
        return "radix";
    default:
        return tool_algo_name(algo);
    }
}

/* ---------------------------------------------------------------- options */

bool bench_list_has(const char *list, const char *word)
{
    size_t len = strlen(word);

    for (const char *p = list; p != NULL; p = strchr(p, ',')) {
        if (*p == ',')
            p++;
        if (strncmp(p, word, len) == 0 && (p[len] == ',' || p[len] == '\0'))
            return true;
    }
    return false;
}

static void parse_only(bench_options *o, const char *value)
{
    char copy[64];
    char *save = NULL;

    if (strlen(value) >= sizeof(copy))
        tool_usage_error("--only: '%s' is too long", value);
    strcpy(copy, value);
    for (int k = 0; k < KIND_COUNT; k++)
        o->kinds[k] = false;
    for (char *word = strtok_r(copy, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
        int k = 0;

        while (k < KIND_COUNT && strcmp(word, kind_names[k]) != 0)
            k++;
        if (k == KIND_COUNT)
            tool_usage_error("--only: unknown value '%s' (expected reduce, scan, sort, spmv,"
                             " spgemm, gemm, select, histogram, segreduce or rle,"
                             " comma-separated)", word);
        o->kinds[k] = true;
    }
}

static void parse_sizes(bench_options *o, const char *value)
{
    const char *p = value;

    o->size_count = 0;
    while (*p != '\0') {
        char *end;
        long k;

        errno = 0;
        k = strtol(p, &end, 10);
        if (end == p || errno != 0 || k < 0 || k > 30 || (*end != ',' && *end != '\0'))
            tool_usage_error("--sizes: expected log2 sizes 0..30, comma-separated, not '%s'",
                             value);
        if (o->size_count == MAX_SIZES)
            tool_usage_error("--sizes: at most %d sizes", MAX_SIZES);
        o->sizes[o->size_count++] = (int)k;
        p = *end == ',' ? end + 1 : end;
    }
    if (o->size_count == 0)
        tool_usage_error("--sizes: no size given");
}

/* --gemm-sizes: the n of the dense products. */
static void parse_gemm_sizes(bench_options *o, const char *value)
{
    char copy[512], *save = NULL;

    if (strlen(value) >= sizeof(copy))
        tool_usage_error("--gemm-sizes: '%s' is too long", value);
    strcpy(copy, value);
    o->gemm_size_count = 0;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (o->gemm_size_count == MAX_SIZES)
            tool_usage_error("--gemm-sizes: at most %d sizes", MAX_SIZES);
        o->gemm_sizes[o->gemm_size_count++] = (size_t)tool_parse_uint("--gemm-sizes", w, 1, 46340);
    }
    if (o->gemm_size_count == 0)
        tool_usage_error("--gemm-sizes: no size given");
}

static void parse_options(int argc, char **argv, bench_options *o)
{
    bool sizes_given = false, only_given = false;

    *o = (bench_options){ .min_log2 = 10, .max_log2 = 28, .step = 2, .runs = 20,
                          .warmup = 3, .warmup_ms = TOOL_WARM_UP_MS, .burst_ms = BENCH_BURST_MS,
                          .classic_max_log2 = 24,
                          .bitonic_max_log2 = 30,
                          .check_max_log2 = 20, .kinds = { true, true, true } };

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;

        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(bench_help, stdout);
            fputs(bench_spmv_help, stdout);
            fputs(bench_spgemm_help, stdout);
            fputs(bench_gemm_help, stdout);
            fputs(bench_select_help, stdout);
            fputs(bench_histogram_help, stdout);
            fputs(bench_segreduce_help, stdout);
            fputs(bench_rle_help, stdout);
            fputs(tool_context_options_help, stdout);
            fputs(tool_help_footer, stdout);
            exit(TOOL_EXIT_OK);
        }
        if (strcmp(arg, "--version") == 0) {
            printf("gpgpu-bench %s\n", gpgpu_version());
            exit(TOOL_EXIT_OK);
        }
        /* n = 2^30 is the largest power of two below the library's limit of
         * 2^31 - 1 elements. */
        if ((value = tool_option_value(argc, argv, &i, "--min-log2")) != NULL) {
            o->min_log2 = (int)tool_parse_uint(arg, value, 0, 30);
        } else if ((value = tool_option_value(argc, argv, &i, "--max-log2")) != NULL) {
            o->max_log2 = (int)tool_parse_uint(arg, value, 0, 30);
            o->max_log2_given = true;
        } else if ((value = tool_option_value(argc, argv, &i, "--step")) != NULL) {
            o->step = (int)tool_parse_uint(arg, value, 1, 30);
        } else if ((value = tool_option_value(argc, argv, &i, "--sizes")) != NULL) {
            parse_sizes(o, value);
            sizes_given = true;
        } else if ((value = tool_option_value(argc, argv, &i, "--runs")) != NULL) {
            o->runs = (int)tool_parse_uint(arg, value, 1, 1000000);
        } else if ((value = tool_option_value(argc, argv, &i, "--warmup")) != NULL) {
            o->warmup = (int)tool_parse_uint(arg, value, 0, 1000000);
        } else if ((value = tool_option_value(argc, argv, &i, "--warmup-ms")) != NULL) {
            o->warmup_ms = (int)tool_parse_uint(arg, value, 0, 60000);
        } else if ((value = tool_option_value(argc, argv, &i, "--burst-ms")) != NULL) {
            o->burst_ms = (int)tool_parse_uint(arg, value, 0, 60000);
        } else if (strcmp(arg, "--trace") == 0) {
            o->trace = true;
        } else if ((value = tool_option_value(argc, argv, &i, "--classic-max-log2")) != NULL) {
            o->classic_max_log2 = (int)tool_parse_uint(arg, value, 0, 30);
        } else if ((value = tool_option_value(argc, argv, &i, "--bitonic-max-log2")) != NULL) {
            o->bitonic_max_log2 = (int)tool_parse_uint(arg, value, 0, 30);
        } else if ((value = tool_option_value(argc, argv, &i, "--check-max-log2")) != NULL) {
            o->check_max_log2 = (int)tool_parse_uint(arg, value, 0, 30);
        } else if ((value = tool_option_value(argc, argv, &i, "--case")) != NULL) {
            o->case_filter = value;
        } else if ((value = tool_option_value(argc, argv, &i, "--algos")) != NULL) {
            o->algo_filter = value;
        } else if ((value = tool_option_value(argc, argv, &i, "--only")) != NULL) {
            parse_only(o, value);
            only_given = true;
        } else if (bench_matrix_option(argc, argv, &i, &o->matrices)) {
            /* matrices: without --only, only spmv runs (below) */
        } else if ((value = tool_option_value(argc, argv, &i, "--gemm-sizes")) != NULL) {
            parse_gemm_sizes(o, value);
        } else if (strcmp(arg, "--gemm-tune") == 0) {
            o->gemm_tune = true;
        } else if (strcmp(arg, "--own-scratch") == 0) {
            o->own_scratch = true;
        } else if ((value = tool_option_value(argc, argv, &i, "--json")) != NULL) {
            o->json_path = value;
        } else if (!tool_context_option(argc, argv, &i, &o->desc)) {
            tool_usage_error("unknown argument '%s'", arg);
        }
    }
    if (!only_given && o->matrices.arg_count > 0) {
        parse_only(o, "spmv");
    }
    if (o->gemm_size_count == 0)
        parse_gemm_sizes(o, "64,128,256,512,1024,2048,4096,8192");
    if (sizes_given) {
        o->max_log2_given = true; /* explicit sizes: no cap */
        return;
    }
    if (o->min_log2 > o->max_log2)
        tool_usage_error("--min-log2 %d is above --max-log2 %d", o->min_log2, o->max_log2);
    for (int k = o->min_log2; k <= o->max_log2; k += o->step)
        o->sizes[o->size_count++] = k;
}

/* ---------------------------------------------------------------- table */

static void print_table_header(void)
{
    printf("%-20s %-8s %11s %12s %12s %12s %9s %13s %9s\n", "case", "algo", "n", "median_us",
           "min_us", "wall_us", "GB/s", "ratio_to_copy", "Gkeys/s");
}

double bench_rate_ns(const bench *b, timing t)
{
    return b->wall_clock ? t.wall_ns : t.median_ns;
}

/* Prints a table row (stdout is flushed so a long run shows its progress)
 * and appends the JSON record. Bytes (elements) per ns are GB/s (G/s). */
void bench_report(bench *b, const bench_row *r)
{
    double ns = bench_rate_ns(b, r->t);
    double gbps = r->bytes / ns, gkeys = (double)r->n / ns;

    printf("%-20s %-8s %11zu %12.2f %12.2f %12.2f %9.2f %13.3f %9.4f\n", r->name, r->algo, r->n,
           r->t.median_ns / 1e3, r->t.min_ns / 1e3, r->t.wall_ns / 1e3, gbps, r->ratio, gkeys);
    fflush(stdout);
    if (b->json != NULL)
        bench_json_row(b, r, gbps, gkeys);
}

/* ---------------------------------------------------------------- timing */

/* Checks the status of a library call. Out of GPU memory stops the benchmark
 * cleanly (b->stopped, exit code 0); other failures fail it. */
int bench_check(bench *b, gpgpu_status status)
{
    if (status == GPGPU_SUCCESS)
        return TOOL_EXIT_OK;
    if (status == GPGPU_ERROR_OUT_OF_MEMORY) {
        tool_message("%s: out of GPU memory, stopping: %s", b->step, gpgpu_last_error(b->ctx));
        b->stopped = true;
        return TOOL_EXIT_OK;
    }
    return tool_fail(status, b->step, gpgpu_last_error(b->ctx));
}

int bench_skip_or_fail(bench *b, gpgpu_status status)
{
    if (status != GPGPU_ERROR_TOO_LARGE && status != GPGPU_ERROR_OUT_OF_MEMORY &&
        status != GPGPU_ERROR_UNSUPPORTED_COMBINATION)
        return tool_fail(status, b->step, gpgpu_last_error(b->ctx));
    printf("# %s: skipped: %s\n", b->step, gpgpu_last_error(b->ctx));
    fflush(stdout); /* the note in its place among the rows, which flush too */
    return TOOL_EXIT_OK;
}

static gpgpu_status run_once(bench *b, const bench_job *job)
{
    const bench_case *c = job->c;

    if (job->call != NULL)
        return job->call(job->user);
    if (c == NULL) {
        gpgpu_status status = gpgpu_buffer_copy(job->in, 0, job->out, 0, job->n);
        if (status == GPGPU_SUCCESS && job->vbytes > 0)
            status = gpgpu_buffer_copy(job->vin, 0, job->vout, 0, job->vbytes);
        return status;
    }
    switch (c->kind) {
    case KIND_SCAN:
        return bench_scan_call(b, c, job->in, job->out, job->n);
    case KIND_SORT:
        return bench_sort_call(b, c, job->in, job->out, job->n);
    case KIND_REDUCE:
    default:
        return bench_reduce_call(b, c, job->in, job->out, job->n);
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int count)
{
    qsort(v, (size_t)count, sizeof(double), compare_double);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Back-to-back copies for opt->burst_ms, a few waits in all: on an H100 the
 * driver lowers the SM clock from 1980 to 345 MHz after a few seconds at low
 * duty (each small call waited for, shader builds between cases; seen with
 * nvidia-smi, docs/DECISIONS.md), and the warm-up calls of a small case do not
 * raise it again; CUB's peer launches back to back. The timed runs follow
 * within milliseconds, long before the clock could drop again. */
static gpgpu_status clock_burst(bench *b)
{
    if (b->burst_in == NULL)
        return GPGPU_SUCCESS;
    double start = bench_now_ns();
    gpgpu_status status = GPGPU_SUCCESS;
    while (status == GPGPU_SUCCESS && bench_now_ns() - start < b->opt->burst_ms * 1e6) {
        for (int i = 0; i < 16 && status == GPGPU_SUCCESS; i++)
            status = gpgpu_buffer_copy(b->burst_in, 0, b->burst_out, 0, BENCH_BURST_BYTES);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_finish(b->ctx);
    }
    return status;
}

/* The warm-up before a case's timed runs: opt->warmup calls (the first builds the shaders),
 * then more until the GPU has been busy for warmup_ms, then the clock burst. After the host's
 * own work between cases (matrices made, CPU checks), an idle H100 runs L2-bound kernels
 * (SpMV) up to 4x slow for 0.2-0.4 s of load (docs/DECISIONS.md, "gpgpu-bench warms up by
 * time"). The busy time counts from the end of the last idle gap, so that cases
 * following each other closely do not warm up again. */
static gpgpu_status warm_up(bench *b, const bench_job *job)
{
    double start = bench_now_ns();
    if (start - b->gpu_idle_since_ns > BENCH_IDLE_GAP_MS * 1e6)
        b->gpu_busy_since_ns = start;
    for (int r = 0; r < b->opt->warmup ||
                    (bench_now_ns() - b->gpu_busy_since_ns < b->opt->warmup_ms * 1e6 &&
                     r < 100000);
         r++) {
        gpgpu_status status = run_once(b, job);
        if (status == GPGPU_SUCCESS && r >= b->opt->warmup)
            status = gpgpu_finish(b->ctx);
        if (status != GPGPU_SUCCESS)
            return status;
    }
    return clock_burst(b);
}

gpgpu_status bench_warm_up(bench *b, bench_call call, void *user)
{
    return warm_up(b, &(bench_job){ .call = call, .user = user });
}

/* Warms up (warm_up), then times each
 * run alone between a timer begin and end: GPU time only, without the wait
 * for a reduce result on the host. The wall clock around the same span (the
 * timer's result is waited for, so the GPU work has ended) gives the
 * per-call latency, and the only meaningful time where the GPU timer is not
 * (llvmpipe runs compute on the CPU and reports about 0 ns). */
gpgpu_status bench_time_job(bench *b, const bench_job *job, timing *t)
{
    const int runs = b->opt->runs;
    gpgpu_status status = warm_up(b, job);

    if (status != GPGPU_SUCCESS)
        return status;
    for (int r = 0; r < runs; r++) {
        gpgpu_status end;
        double start = bench_now_ns();

        status = gpgpu_timer_begin(b->ctx);
        if (status != GPGPU_SUCCESS)
            return status;
        status = run_once(b, job);
        /* End the measurement even after a failed call, so that none stays
         * open; the call's failure is the one to report. */
        end = gpgpu_timer_end(b->ctx, &b->samples[r]);
        b->walls[r] = bench_now_ns() - start;
        if (status != GPGPU_SUCCESS)
            return status;
        if (end != GPGPU_SUCCESS)
            return end;
    }
    b->gpu_idle_since_ns = bench_now_ns();
    if (b->opt->trace) {
        fprintf(stderr, "trace %.3f s:", (bench_now_ns() - b->started_ns) / 1e9);
        for (int r = 0; r < runs; r++)
            fprintf(stderr, " %.1f", b->samples[r] / 1e3);
        fprintf(stderr, " us\n");
    }
    t->median_ns = bench_median(b->samples, runs);
    t->min_ns = b->samples[0]; /* sorted by median() */
    t->max_ns = b->samples[runs - 1];
    t->wall_ns = bench_median(b->walls, runs);
    return GPGPU_SUCCESS;
}

gpgpu_status bench_time_call(bench *b, bench_call call, void *user, timing *t)
{
    return bench_time_job(b, &(bench_job){ .call = call, .user = user }, t);
}

/* ----------------------------------------------------------------- cases */

/* Case i of the power-of-two sizes: reduce's, then scan's, then sort's; NULL past the last. */
static const bench_case *case_at(size_t i)
{
    if (i < bench_reduce_case_count)
        return &bench_reduce_cases[i];
    i -= bench_reduce_case_count;
    if (i < bench_scan_case_count)
        return &bench_scan_cases[i];
    i -= bench_scan_case_count;
    return i < bench_sort_case_count ? &bench_sort_cases[i] : NULL;
}

static bool algo_enabled(const bench_options *o, gpgpu_algo algo)
{
    return o->algo_filter == NULL || bench_list_has(o->algo_filter, bench_algo_name(algo));
}

bool bench_case_enabled(const bench *b, const bench_case *c, int log2n)
{
    const bench_options *o = b->opt;

    if (!o->kinds[c->kind])
        return false;
    if (c->kind == KIND_SORT) {
        if (c->algo == GPGPU_ALGO_CLASSIC_NETSORT && log2n > o->classic_max_log2)
            return false;
        if (c->algo == GPGPU_ALGO_BITONIC && log2n > o->bitonic_max_log2)
            return false;
    } else if (c->algo != GPGPU_ALGO_FAST && c->algo != GPGPU_ALGO_SCAN_SINGLE_PASS &&
               c->algo != GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN && log2n > o->classic_max_log2) {
        return false;
    }
    if (o->case_filter && !strstr(c->name, o->case_filter))
        return false;
    if (!algo_enabled(o, c->algo))
        return false;
    if (c->type == GPGPU_TYPE_F64 && !b->info.has_f64)
        return false;
    return ((size_t)1 << log2n) * gpgpu_type_size(c->type) <= b->cap_bytes;
}

/* The largest input buffer that an enabled case uses, 0 if none; with
 * values_only, the largest values buffer of an enabled sort of pairs. */
size_t bench_largest_bytes(const bench *b, bool values_only)
{
    size_t largest = 0;

    for (int s = 0; s < b->opt->size_count; s++) {
        int k = b->opt->sizes[s];
        for (size_t i = 0; case_at(i) != NULL; i++) {
            const bench_case *c = case_at(i);
            size_t bytes = ((size_t)1 << k) *
                           (values_only ? sizeof(uint32_t) : gpgpu_type_size(c->type));
            if ((!values_only || c->pairs) && bench_case_enabled(b, c, k) &&
                bytes > largest)
                largest = bytes;
        }
    }
    return largest;
}

/* Names the step (for progress and failure messages) and times the job. */
int bench_time_step(bench *b, bench_job *job, int log2n, timing *t)
{
    const bench_case *c = job->c;
    snprintf(b->step, sizeof(b->step), "%s %s n=2^%d", c->name, bench_algo_name(c->algo), log2n);
    tool_message("%s", b->step);
    return bench_check(b, bench_time_job(b, job, t));
}

static int run_case(bench *b, const bench_case *c, gpgpu_buffer *in, gpgpu_buffer *out,
                    int log2n)
{
    bench_job job = { .c = c, .in = in, .out = out, .n = (size_t)1 << log2n };
    timing t;
    int rc = bench_time_step(b, &job, log2n, &t);
    if (rc != TOOL_EXIT_OK || b->stopped)
        return rc;
    double bytes = (double)job.n * (double)gpgpu_type_size(c->type) *
                   (c->kind == KIND_SCAN ? 2.0 : 1.0);
    bench_report(b, &(bench_row){ .name = c->name, .algo = bench_algo_name(c->algo),
                                  .n = job.n, .t = t, .bytes = bytes,
                                  .ratio = bytes / bench_rate_ns(b, t) / b->copy_gbps,
                                  .copy_ns = NAN });
    return TOOL_EXIT_OK;
}

/* Runs the enabled reduce and scan cases of one type at one size on one
 * random input. */
static int run_type(bench *b, gpgpu_type type, int log2n)
{
    size_t n = (size_t)1 << log2n, bytes = n * gpgpu_type_size(type);
    bool any = false;
    int rc;

    for (size_t i = 0; case_at(i) != NULL; i++) {
        const bench_case *c = case_at(i);
        any = any || (c->kind != KIND_SORT && c->type == type && bench_case_enabled(b, c, log2n));
    }
    if (!any)
        return TOOL_EXIT_OK;

    snprintf(b->step, sizeof(b->step), "%s input n=2^%d", gpgpu_type_name(type), log2n);
    /* Scans write to the second buffer: in place, repeated runs would sum
     * the sums, and floats would end up as infinities. */
    rc = tool_upload_random(b->ctx, b->in, type, n, BENCH_SEED);
    for (size_t i = 0; case_at(i) != NULL && rc == TOOL_EXIT_OK && !b->stopped; i++) {
        const bench_case *c = case_at(i);
        if (c->kind != KIND_SORT && c->type == type && bench_case_enabled(b, c, log2n))
            rc = run_case(b, c, b->in, b->out, log2n);
    }
    /* The copy of the same bytes is each size's own ceiling. */
    if (rc == TOOL_EXIT_OK && !b->stopped && type == GPGPU_TYPE_U32)
        rc = bench_copy_run(b, b->in, b->out, bytes);
    return rc;
}

/* Prints the device and what is left out on it. */
static void print_device(bench *b)
{
    snprintf(b->device, sizeof(b->device), "%s / %s", b->info.renderer, b->info.version);
    printf("device: %s\n", b->device);
    printf("backend: %s (%s)\n", b->info.backend, b->info.platform);
    if (!b->info.has_f64)
        tool_message("the device has no f64 in shaders: f64 cases skipped");
    if (b->cap_bytes != SIZE_MAX)
        tool_message("inputs capped at %zu bytes (1/4 of max_storage_block_bytes);"
                     " --max-log2 lifts the cap", b->cap_bytes);
}

static int run(bench *b)
{
    int rc;

    print_device(b);
    print_table_header();
    rc = bench_copy_measure(b);
    for (int s = 0; s < b->opt->size_count && rc == TOOL_EXIT_OK && !b->stopped; s++) {
        int k = b->opt->sizes[s];

        for (size_t t = 0; t < sizeof(input_types) / sizeof(input_types[0]); t++) {
            rc = run_type(b, input_types[t], k);
            if (rc == TOOL_EXIT_OK && !b->stopped)
                rc = bench_sort_run_type(b, input_types[t], k);
            if (rc != TOOL_EXIT_OK || b->stopped)
                break;
        }
    }
    if (rc == TOOL_EXIT_OK && !b->stopped && b->opt->kinds[KIND_SPMV])
        rc = bench_spmv_run(b);
    if (rc == TOOL_EXIT_OK && !b->stopped && b->opt->kinds[KIND_SPGEMM])
        rc = bench_spgemm_run(b);
    if (rc == TOOL_EXIT_OK && !b->stopped && b->opt->kinds[KIND_GEMM])
        rc = bench_gemm_run(b);
    if (rc == TOOL_EXIT_OK && !b->stopped && b->opt->kinds[KIND_SELECT])
        rc = bench_select_run(b);
    if (rc == TOOL_EXIT_OK && !b->stopped && b->opt->kinds[KIND_HISTOGRAM])
        rc = bench_histogram_run(b);
    if (rc == TOOL_EXIT_OK && !b->stopped && b->opt->kinds[KIND_SEGREDUCE])
        rc = bench_segreduce_run(b);
    if (rc == TOOL_EXIT_OK && !b->stopped && b->opt->kinds[KIND_RLE])
        rc = bench_rle_run(b);
    if (rc == TOOL_EXIT_OK && b->check_failed) {
        tool_message("a check failed (see CHECK FAILED above)");
        rc = TOOL_EXIT_FAILURE;
    }
    return rc;
}

int main(int argc, char **argv)
{
    bench_options opt;
    bench b = { .opt = &opt, .json_empty = true, .started_ns = bench_now_ns(),
                .argc = argc, .argv = argv };
    gpgpu_status status;
    int rc;

    tool_set_program("gpgpu-bench", "gpgpu-bench --help");
    parse_options(argc, argv, &opt);
    if (opt.matrices.write_gen_dir != NULL)
        return bench_spmv_write_gen(&opt.matrices);

    b.samples = malloc((size_t)opt.runs * sizeof(double));
    b.walls = malloc((size_t)opt.runs * sizeof(double));
    if (b.samples == NULL || b.walls == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot start", "out of host memory");
    if (opt.json_path != NULL) {
        b.json = fopen(opt.json_path, "w");
        if (b.json == NULL) {
            free(b.samples);
            free(b.walls);
            return tool_fail(GPGPU_ERROR_IO, opt.json_path, strerror(errno));
        }
    }

    rc = tool_context_create(&opt.desc, &b.ctx);
    if (rc == TOOL_EXIT_OK) {
        status = gpgpu_context_get_info(b.ctx, &b.info);
        if (status != GPGPU_SUCCESS) {
            rc = tool_fail(status, "cannot query the context", gpgpu_last_error(b.ctx));
        } else {
            /* By default a buffer takes at most 1/4 of what one storage block
             * may hold; an explicit --max-log2 asks for its sizes. */
            b.cap_bytes = opt.max_log2_given || b.info.max_storage_block_bytes == 0
                              ? SIZE_MAX
                              : b.info.max_storage_block_bytes / 4;
            if (b.cap_bytes > b.info.max_storage_range_bytes)
                b.cap_bytes = b.info.max_storage_range_bytes; /* what one binding holds */
            rc = run(&b);
        }
        gpgpu_buffer_destroy(b.scratch);
        gpgpu_buffer_destroy(b.vout);
        gpgpu_buffer_destroy(b.vin);
        gpgpu_buffer_destroy(b.out);
        gpgpu_buffer_destroy(b.in);
        gpgpu_context_destroy(b.ctx);
    }

    if (b.json != NULL && !bench_json_close(&b) && rc == TOOL_EXIT_OK)
        rc = tool_fail(GPGPU_ERROR_IO, opt.json_path, "write error");
    free(b.samples);
    free(b.walls);
    if (fflush(stdout) != 0 && rc == TOOL_EXIT_OK)
        rc = tool_fail(GPGPU_ERROR_IO, "cannot write to standard output", strerror(errno));
    return rc;
}
