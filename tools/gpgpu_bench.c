/* gpgpu-bench: GPU time of libgpgpu's reduce and scan over power-of-two
 * sizes, compared with the bandwidth of a plain buffer copy. Case names match
 * bench/cub_peer.cu so the two JSON outputs can be joined on them. */
#include "tool_common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char bench_help[] =
    "Usage: gpgpu-bench [OPTIONS]\n"
    "\n"
    "Times each case once per size n = 2^k with GPU timer queries (warm-up runs\n"
    "first) and prints the median and minimum GPU time and the effective\n"
    "bandwidth: n * element size / time for reduce, twice that for scan (read\n"
    "and write). The first row, copy_d2d_u32, is a buffer-to-buffer copy of at\n"
    "least 256 MiB (n counts its 4-byte words): the ceiling that ratio_to_copy\n"
    "compares with.\n"
    "\n"
    "  --min-log2 K          smallest size 2^K (default 10)\n"
    "  --max-log2 K          largest size 2^K (default 28, at most 30); without\n"
    "                        it, buffers are also kept within 1/4 of the\n"
    "                        device's max_storage_block_bytes\n"
    "  --step S              log2 size step (default 2)\n"
    "  --runs R              timed runs per case and size (default 20)\n"
    "  --warmup W            untimed runs before them (default 3)\n"
    "  --classic-max-log2 K  run the classic algorithms (dozens of passes) up\n"
    "                        to 2^K only (default 24)\n"
    "  --only WHAT           reduce or scan cases only\n"
    "  --case TEXT           only cases whose name contains TEXT (e.g. reduce_sum_f32)\n"
    "  --json FILE           also write the results as a JSON array\n";

/* One benchmark case: an operation, a type and an algorithm. */
typedef struct bench_case {
    const char *name;
    bool scan;
    gpgpu_type type;
    gpgpu_op op;    /* reduce only */
    bool exclusive; /* scan only */
    gpgpu_algo algo;
} bench_case;

static const bench_case cases[] = {
    { "reduce_sum_f32", false, GPGPU_TYPE_F32, GPGPU_OP_SUM, false, GPGPU_ALGO_FAST },
    { "reduce_sum_f32", false, GPGPU_TYPE_F32, GPGPU_OP_SUM, false, GPGPU_ALGO_CLASSIC_HALVING },
    { "reduce_sum_f32", false, GPGPU_TYPE_F32, GPGPU_OP_SUM, false, GPGPU_ALGO_CLASSIC_STRIDE },
    { "reduce_sum_u32", false, GPGPU_TYPE_U32, GPGPU_OP_SUM, false, GPGPU_ALGO_FAST },
    { "reduce_min_f32", false, GPGPU_TYPE_F32, GPGPU_OP_MIN, false, GPGPU_ALGO_FAST },
    { "reduce_minmax_f32", false, GPGPU_TYPE_F32, GPGPU_OP_MINMAX, false, GPGPU_ALGO_FAST },
    { "reduce_minmax_f32", false, GPGPU_TYPE_F32, GPGPU_OP_MINMAX, false,
      GPGPU_ALGO_CLASSIC_MINMAX },
    { "reduce_sum_f64", false, GPGPU_TYPE_F64, GPGPU_OP_SUM, false, GPGPU_ALGO_FAST },
    { "scan_exclusive_u32", true, GPGPU_TYPE_U32, 0, true, GPGPU_ALGO_FAST },
    { "scan_exclusive_u32", true, GPGPU_TYPE_U32, 0, true, GPGPU_ALGO_CLASSIC_SCAN },
    { "scan_inclusive_f32", true, GPGPU_TYPE_F32, 0, false, GPGPU_ALGO_FAST },
    { "scan_inclusive_f64", true, GPGPU_TYPE_F64, 0, false, GPGPU_ALGO_FAST },
};

#define CASE_COUNT (sizeof(cases) / sizeof(cases[0]))

/* Input buffers are made per type, so that each holds data of its type. */
static const gpgpu_type input_types[] = { GPGPU_TYPE_U32, GPGPU_TYPE_F32, GPGPU_TYPE_F64 };

/* The copy ceiling moves at least this much: enough to leave every cache. */
#define COPY_MIN_BYTES ((size_t)1 << 28)
/* Below this a copy says nothing about bandwidth; give up instead. */
#define COPY_SMALLEST_BYTES ((size_t)1 << 20)

/* One fixed seed: every run and device times the same data. */
#define SEED 1

typedef struct bench_options {
    int min_log2, max_log2, step, runs, warmup, classic_max_log2;
    const char *case_filter; /* only cases whose name contains it, or NULL */
    bool max_log2_given;
    bool reduce, scan;
    const char *json_path;
    gpgpu_context_desc desc;
} bench_options;

typedef struct bench {
    const bench_options *opt;
    gpgpu_context *ctx;
    gpgpu_info info;
    char device[512];
    size_t cap_bytes; /* the largest input buffer a case may use */
    /* One input and one output buffer of the largest size, made once and
     * reused by every case and size: on an H100, buffers made late in a run
     * of many allocations read at half the bandwidth of early ones. */
    gpgpu_buffer *in, *out;
    size_t buffer_bytes;
    double copy_gbps;
    double *samples;  /* opt->runs GPU times in ns */
    double *walls;    /* opt->runs wall-clock times in ns, call to result */
    bool wall_clock;  /* the GPU timer misses the work: GB/s from wall_ns */
    FILE *json;
    bool json_empty;
    bool stopped;     /* out of GPU memory: larger sizes cannot fit either */
    char step[128];   /* what runs now, for progress and error messages */
} bench;

/* A timed call: a case on n elements, or (c NULL) a copy of n bytes. */
typedef struct bench_job {
    const bench_case *c;
    gpgpu_buffer *in, *out;
    size_t n;
} bench_job;

/* ---------------------------------------------------------------- options */

static void parse_options(int argc, char **argv, bench_options *o)
{
    *o = (bench_options){ .min_log2 = 10, .max_log2 = 28, .step = 2, .runs = 20,
                          .warmup = 3, .classic_max_log2 = 24, .reduce = true, .scan = true };

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;

        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(bench_help, stdout);
            fputs(tool_context_options_help, stdout);
            fputs(tool_help_footer, stdout);
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
        } else if ((value = tool_option_value(argc, argv, &i, "--runs")) != NULL) {
            o->runs = (int)tool_parse_uint(arg, value, 1, 1000000);
        } else if ((value = tool_option_value(argc, argv, &i, "--warmup")) != NULL) {
            o->warmup = (int)tool_parse_uint(arg, value, 0, 1000000);
        } else if ((value = tool_option_value(argc, argv, &i, "--classic-max-log2")) != NULL) {
            o->classic_max_log2 = (int)tool_parse_uint(arg, value, 0, 30);
        } else if ((value = tool_option_value(argc, argv, &i, "--case")) != NULL) {
            o->case_filter = value;
        } else if ((value = tool_option_value(argc, argv, &i, "--only")) != NULL) {
            o->reduce = strcmp(value, "reduce") == 0;
            o->scan = strcmp(value, "scan") == 0;
            if (!o->reduce && !o->scan)
                tool_usage_error("--only: unknown value '%s' (expected reduce or scan)", value);
        } else if ((value = tool_option_value(argc, argv, &i, "--json")) != NULL) {
            o->json_path = value;
        } else if (!tool_context_option(argc, argv, &i, &o->desc)) {
            tool_usage_error("unknown argument '%s'", arg);
        }
    }
    if (o->min_log2 > o->max_log2)
        tool_usage_error("--min-log2 %d is above --max-log2 %d", o->min_log2, o->max_log2);
}

/* ---------------------------------------------------------------- output */

/* JSON has no NaN or infinity (a timer that reports 0 ns gives one). */
static void json_number(FILE *f, double value)
{
    if (isfinite(value))
        fprintf(f, "%.3f", value);
    else
        fputs("null", f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void print_table_header(void)
{
    printf("%-20s %-8s %11s %12s %12s %12s %9s %13s\n", "case", "algo", "n", "median_us",
           "min_us", "wall_us", "GB/s", "ratio_to_copy");
}

/* Prints a table row (stdout is flushed so a long run shows its progress)
 * and appends the JSON record. */
/* Medians and minimum of one timed job, in ns. */
typedef struct timing {
    double median_ns, min_ns; /* GPU time (timer query) */
    double wall_ns;           /* median wall-clock time of a whole call, its wait included */
} timing;

static void report(bench *b, const char *name, const char *algo, size_t n, timing t, double gbps)
{
    printf("%-20s %-8s %11zu %12.2f %12.2f %12.2f %9.2f %13.3f\n", name, algo, n,
           t.median_ns / 1e3, t.min_ns / 1e3, t.wall_ns / 1e3, gbps, gbps / b->copy_gbps);
    fflush(stdout);
    if (b->json == NULL)
        return;
    fputs(b->json_empty ? "\n  {" : ",\n  {", b->json);
    b->json_empty = false;
    fputs("\"case\": ", b->json);
    json_string(b->json, name);
    fputs(", \"algo\": ", b->json);
    json_string(b->json, algo);
    fprintf(b->json, ", \"n\": %zu, \"median_us\": ", n);
    json_number(b->json, t.median_ns / 1e3);
    fputs(", \"min_us\": ", b->json);
    json_number(b->json, t.min_ns / 1e3);
    fputs(", \"wall_us\": ", b->json);
    json_number(b->json, t.wall_ns / 1e3);
    fputs(", \"gbps\": ", b->json);
    json_number(b->json, gbps);
    fputs(", \"copy_gbps\": ", b->json);
    json_number(b->json, b->copy_gbps);
    fputs(", \"device\": ", b->json);
    json_string(b->json, b->device);
    fputs(", \"backend\": ", b->json);
    json_string(b->json, b->info.backend);
    fputc('}', b->json);
}

/* ---------------------------------------------------------------- timing */

/* Checks the status of a library call. Out of GPU memory stops the benchmark
 * cleanly (b->stopped, exit code 0); other failures fail it. */
static int check(bench *b, gpgpu_status status)
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

static gpgpu_status run_once(bench *b, const bench_job *job)
{
    const bench_case *c = job->c;

    if (c == NULL)
        return gpgpu_buffer_copy(job->in, 0, job->out, 0, job->n);
    if (c->scan) {
        gpgpu_scan_desc desc = { .type = c->type, .exclusive = c->exclusive, .algo = c->algo };
        return gpgpu_scan(b->ctx, &desc, job->in, 0, job->out, 0, job->n);
    } else {
        gpgpu_reduce_desc desc = { .type = c->type, .op = c->op, .algo = c->algo };
        tool_reduce_result result;
        return gpgpu_reduce(b->ctx, &desc, job->in, 0, job->n, &result);
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int count)
{
    qsort(v, (size_t)count, sizeof(double), compare_double);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Runs the warm-up calls (the first compiles the shaders), then times each
 * run alone between a timer begin and end: GPU time only, without the wait
 * for a reduce result on the host. The wall clock around the same span (the
 * timer's result is waited for, so the GPU work has ended) gives the
 * per-call latency, and the only meaningful time where the GPU timer is not
 * (llvmpipe runs compute on the CPU and reports about 0 ns). */
static gpgpu_status time_job(bench *b, const bench_job *job, timing *t)
{
    const int runs = b->opt->runs;
    gpgpu_status status;

    for (int r = 0; r < b->opt->warmup; r++) {
        status = run_once(b, job);
        if (status != GPGPU_SUCCESS)
            return status;
    }
    for (int r = 0; r < runs; r++) {
        gpgpu_status end;
        double start = now_ns();

        status = gpgpu_timer_begin(b->ctx);
        if (status != GPGPU_SUCCESS)
            return status;
        status = run_once(b, job);
        /* End the measurement even after a failed call, so that none stays
         * open; the call's failure is the one to report. */
        end = gpgpu_timer_end(b->ctx, &b->samples[r]);
        b->walls[r] = now_ns() - start;
        if (status != GPGPU_SUCCESS)
            return status;
        if (end != GPGPU_SUCCESS)
            return end;
    }
    t->median_ns = median(b->samples, runs);
    t->min_ns = b->samples[0]; /* sorted by median() */
    t->wall_ns = median(b->walls, runs);
    return GPGPU_SUCCESS;
}

/* ----------------------------------------------------------------- cases */

static bool case_enabled(const bench *b, const bench_case *c, int log2n)
{
    const bench_options *o = b->opt;

    if (c->scan ? !o->scan : !o->reduce)
        return false;
    if (c->algo != GPGPU_ALGO_FAST && log2n > o->classic_max_log2)
        return false;
    if (o->case_filter && !strstr(c->name, o->case_filter))
        return false;
    if (c->type == GPGPU_TYPE_F64 && !b->info.has_f64)
        return false;
    return ((size_t)1 << log2n) * gpgpu_type_size(c->type) <= b->cap_bytes;
}

/* The largest input buffer that an enabled case uses, 0 if none. */
static size_t largest_input_bytes(const bench *b)
{
    size_t largest = 0;

    for (int k = b->opt->min_log2; k <= b->opt->max_log2; k += b->opt->step) {
        for (size_t c = 0; c < CASE_COUNT; c++) {
            size_t bytes = ((size_t)1 << k) * gpgpu_type_size(cases[c].type);
            if (case_enabled(b, &cases[c], k) && bytes > largest)
                largest = bytes;
        }
    }
    return largest;
}

static int run_case(bench *b, const bench_case *c, gpgpu_buffer *in, gpgpu_buffer *out,
                    int log2n)
{
    bench_job job = { .c = c, .in = in, .out = out, .n = (size_t)1 << log2n };
    timing t;
    double bytes;
    int rc;

    snprintf(b->step, sizeof(b->step), "%s %s n=2^%d", c->name, tool_algo_name(c->algo), log2n);
    tool_message("%s", b->step);
    rc = check(b, time_job(b, &job, &t));
    if (rc != TOOL_EXIT_OK || b->stopped)
        return rc;
    bytes = (double)job.n * (double)gpgpu_type_size(c->type) * (c->scan ? 2.0 : 1.0);
    /* bytes per ns is GB/s */
    report(b, c->name, tool_algo_name(c->algo), job.n, t,
           bytes / (b->wall_clock ? t.wall_ns : t.median_ns));
    return TOOL_EXIT_OK;
}

/* A buffer-to-buffer copy of `bytes` bytes, reported as case copy_u32. */
static int run_copy(bench *b, gpgpu_buffer *in, gpgpu_buffer *out, size_t bytes)
{
    bench_job job = { .c = NULL, .in = in, .out = out, .n = bytes };
    timing t;

    snprintf(b->step, sizeof(b->step), "copy_u32 of %zu bytes", bytes);
    tool_message("%s", b->step);
    int rc = check(b, time_job(b, &job, &t));
    if (rc == TOOL_EXIT_OK && !b->stopped)
        report(b, "copy_u32", "copy", bytes / 4, t,
               2.0 * (double)bytes / (b->wall_clock ? t.wall_ns : t.median_ns));
    return rc;
}

/* Runs the enabled cases of one type at one size on one random input. */
static int run_type(bench *b, gpgpu_type type, int log2n)
{
    size_t n = (size_t)1 << log2n, bytes = n * gpgpu_type_size(type);
    bool any = false;
    int rc;

    for (size_t c = 0; c < CASE_COUNT; c++)
        any = any || (cases[c].type == type && case_enabled(b, &cases[c], log2n));
    if (!any)
        return TOOL_EXIT_OK;

    snprintf(b->step, sizeof(b->step), "%s input n=2^%d", gpgpu_type_name(type), log2n);
    /* Scans write to the second buffer: in place, repeated runs would sum
     * the sums, and floats would end up as infinities. */
    rc = tool_upload_random(b->ctx, b->in, type, n, SEED);
    for (size_t c = 0; c < CASE_COUNT && rc == TOOL_EXIT_OK && !b->stopped; c++) {
        if (cases[c].type == type && case_enabled(b, &cases[c], log2n))
            rc = run_case(b, &cases[c], b->in, b->out, log2n);
    }
    /* The copy of the same bytes is each size's own ceiling. */
    if (rc == TOOL_EXIT_OK && !b->stopped && type == GPGPU_TYPE_U32)
        rc = run_copy(b, b->in, b->out, bytes);
    return rc;
}

/* Times a copy of `bytes` bytes (halved while two buffers of it do not fit)
 * on ctx, the bench's context or one that copies with the driver's copy
 * command; *t and *bytes receive what was measured. */
static gpgpu_status time_big_copy(bench *b, gpgpu_context *ctx, size_t *bytes, timing *t)
{
    gpgpu_buffer *src = NULL, *dst = NULL;
    gpgpu_status status;

    for (;;) {
        status = gpgpu_buffer_create(ctx, *bytes, &src);
        if (status == GPGPU_SUCCESS) {
            status = gpgpu_buffer_create(ctx, *bytes, &dst);
            if (status != GPGPU_SUCCESS) {
                gpgpu_buffer_destroy(src);
                src = NULL;
            }
        }
        if (status != GPGPU_ERROR_OUT_OF_MEMORY || *bytes / 2 < COPY_SMALLEST_BYTES)
            break;
        *bytes /= 2;
    }
    if (status == GPGPU_SUCCESS) {
        /* Contents do not matter to a copy, so the buffers are not filled. */
        gpgpu_context *bench_ctx = b->ctx;
        b->ctx = ctx;
        status = time_job(b, &(bench_job){ .c = NULL, .in = src, .out = dst, .n = *bytes }, t);
        b->ctx = bench_ctx;
    }
    gpgpu_buffer_destroy(dst);
    gpgpu_buffer_destroy(src);
    return status;
}

/* The shared input and output buffers, made before anything else: the
 * largest input, at least *copy_bytes (the copy ceiling's size, halved
 * while two buffers of it do not fit; *copy_bytes follows). */
static gpgpu_status make_buffers(bench *b, size_t *copy_bytes)
{
    size_t bytes = largest_input_bytes(b);
    gpgpu_status status;
    if (bytes < *copy_bytes)
        bytes = *copy_bytes;
    for (;;) {
        status = gpgpu_buffer_create(b->ctx, bytes, &b->in);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_create(b->ctx, bytes, &b->out);
        if (status != GPGPU_ERROR_OUT_OF_MEMORY || bytes / 2 < COPY_SMALLEST_BYTES)
            break;
        gpgpu_buffer_destroy(b->in);
        b->in = NULL;
        bytes /= 2;
    }
    b->buffer_bytes = bytes;
    if (*copy_bytes > bytes)
        *copy_bytes = bytes;
    if (bytes < largest_input_bytes(b))
        b->cap_bytes = bytes; /* the largest sizes do not fit */
    return status;
}

/* Measures the copy ceiling, by compute shader (gpgpu_buffer_copy): the
 * largest input benchmarked, at least COPY_MIN_BYTES. Beside it, the same
 * copy by the driver's copy command (glCopyNamedBufferSubData or
 * vkCmdCopyBuffer, a context made with transfer_copies), which some drivers
 * run on DMA engines at a fraction of the bandwidth. */
static int measure_copy(bench *b)
{
    size_t bytes = largest_input_bytes(b);
    timing t;

    if (bytes < COPY_MIN_BYTES)
        bytes = COPY_MIN_BYTES;
    if (bytes > b->info.max_storage_range_bytes) /* what one binding holds */
        bytes = b->info.max_storage_range_bytes / 4 * 4;
    snprintf(b->step, sizeof(b->step), "copy of %zu bytes", bytes);
    tool_message("%s", b->step);
    gpgpu_status status = make_buffers(b, &bytes);
    if (status == GPGPU_SUCCESS)
        status = time_job(b, &(bench_job){ .c = NULL, .in = b->in, .out = b->out, .n = bytes },
                          &t);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, b->step, gpgpu_last_error(b->ctx));
    /* Some drivers' timer queries do not cover compute work or copies
     * (llvmpipe reports about 1 ns); a copy this large cannot be a thousand
     * times faster on the GPU than by the wall clock. Then every GB/s figure
     * is taken from the wall clock instead. */
    b->wall_clock = t.median_ns * 1000 < t.wall_ns;
    if (b->wall_clock)
        tool_message("note: the GPU timer reports %.0f ns for a copy that took %.0f ns"
                     " by the wall clock: this driver's timer queries miss the work,"
                     " so GB/s below come from wall_us", t.median_ns, t.wall_ns);
    b->copy_gbps = 2.0 * (double)bytes / (b->wall_clock ? t.wall_ns : t.median_ns);
    report(b, "copy_d2d_u32", "copy", bytes / 4, t, b->copy_gbps);

    gpgpu_context_desc desc = b->opt->desc;
    desc.transfer_copies = true;
    gpgpu_context *transfer = NULL;
    snprintf(b->step, sizeof(b->step), "driver copy command of %zu bytes", bytes);
    tool_message("%s", b->step);
    status = gpgpu_context_create(&desc, &transfer);
    if (status == GPGPU_SUCCESS)
        status = time_big_copy(b, transfer, &bytes, &t);
    if (status == GPGPU_SUCCESS)
        report(b, "copy_d2d_u32", "transfer", bytes / 4, t,
               2.0 * (double)bytes / (b->wall_clock ? t.wall_ns : t.median_ns));
    else
        tool_message("%s: %s", b->step, gpgpu_last_error(transfer));
    gpgpu_context_destroy(transfer);
    return TOOL_EXIT_OK;
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
    rc = measure_copy(b);
    for (int k = b->opt->min_log2; k <= b->opt->max_log2 && rc == TOOL_EXIT_OK && !b->stopped;
         k += b->opt->step) {
        for (size_t t = 0; t < sizeof(input_types) / sizeof(input_types[0]); t++) {
            rc = run_type(b, input_types[t], k);
            if (rc != TOOL_EXIT_OK || b->stopped)
                break;
        }
    }
    return rc;
}

int main(int argc, char **argv)
{
    bench_options opt;
    bench b = { .opt = &opt, .json_empty = true };
    gpgpu_status status;
    int rc;

    tool_set_program("gpgpu-bench", "gpgpu-bench --help");
    parse_options(argc, argv, &opt);

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
        fputc('[', b.json);
    }

    rc = tool_context_create(&opt.desc, &b.ctx);
    if (rc == TOOL_EXIT_OK) {
        status = gpgpu_context_info(b.ctx, &b.info);
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
        gpgpu_buffer_destroy(b.out);
        gpgpu_buffer_destroy(b.in);
        gpgpu_context_destroy(b.ctx);
    }

    /* Close the array even after a failure: the records so far are valid. */
    if (b.json != NULL) {
        fputs(b.json_empty ? "]\n" : "\n]\n", b.json);
        if ((ferror(b.json) | fclose(b.json)) != 0 && rc == TOOL_EXIT_OK)
            rc = tool_fail(GPGPU_ERROR_IO, opt.json_path, "write error");
    }
    free(b.samples);
    free(b.walls);
    if (fflush(stdout) != 0 && rc == TOOL_EXIT_OK)
        rc = tool_fail(GPGPU_ERROR_IO, "cannot write to standard output", strerror(errno));
    return rc;
}
