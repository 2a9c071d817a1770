/* gpgpu-bench: GPU time of libgpgpu's reduce, scan and sort over power-of-two
 * sizes, compared with the bandwidth of a plain buffer copy. Case names match
 * bench/cub_peer.cu so the two JSON outputs can be joined on them. The SpMV
 * cases (--only spmv) are in bench_spmv.c, the SpGEMM ones (--only spgemm) in
 * bench_spgemm.c, the matrices of both (--matrix, --gen) in bench_matrices.c. */
#include "gpgpu_bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    "                        scan, sort, spmv, spgemm, gemm, histogram, segreduce,\n"
    "                        rle (default: reduce,scan,sort;\n"
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
                                                     "spgemm", "gemm", "histogram",
                                                     "segreduce", "rle" };

/* One benchmark case: an operation, a type and an algorithm. */
typedef struct bench_case {
    const char *name;
    bench_kind kind;
    gpgpu_type type; /* the element type; for sort the key type */
    gpgpu_op op;     /* reduce only */
    bool exclusive;  /* scan only */
    bool pairs;      /* sort only: u32 values move with the keys */
    gpgpu_algo algo;
} bench_case;

#define REDUCE(name_, type_, op_, algo_)                                                        \
    { .name = name_, .kind = KIND_REDUCE, .type = GPGPU_TYPE_##type_, .op = GPGPU_OP_##op_,    \
      .algo = GPGPU_ALGO_##algo_ }
#define SCAN(name_, type_, exclusive_, algo_)                                                  \
    { .name = name_, .kind = KIND_SCAN, .type = GPGPU_TYPE_##type_, .exclusive = exclusive_,   \
      .algo = GPGPU_ALGO_##algo_ }
#define SORT(name_, type_, pairs_, algo_)                                                      \
    { .name = name_, .kind = KIND_SORT, .type = GPGPU_TYPE_##type_, .pairs = pairs_,           \
      .algo = GPGPU_ALGO_##algo_ }

static const bench_case cases[] = {
    REDUCE("reduce_sum_f32", F32, SUM, FAST),
    REDUCE("reduce_sum_f32", F32, SUM, CLASSIC_HALVING),
    REDUCE("reduce_sum_f32", F32, SUM, CLASSIC_STRIDE),
    REDUCE("reduce_sum_u32", U32, SUM, FAST),
    REDUCE("reduce_min_f32", F32, MIN, FAST),
    REDUCE("reduce_minmax_f32", F32, MINMAX, FAST),
    REDUCE("reduce_minmax_f32", F32, MINMAX, CLASSIC_MINMAX),
    REDUCE("reduce_sum_f64", F64, SUM, FAST),
    SCAN("scan_exclusive_u32", U32, true, FAST),
    SCAN("scan_exclusive_u32", U32, true, SCAN_SINGLE_PASS),
    SCAN("scan_exclusive_u32", U32, true, SCAN_REDUCE_THEN_SCAN),
    SCAN("scan_exclusive_u32", U32, true, CLASSIC_SCAN),
    SCAN("scan_inclusive_f32", F32, false, FAST),
    SCAN("scan_inclusive_f32", F32, false, SCAN_SINGLE_PASS),
    SCAN("scan_inclusive_f32", F32, false, SCAN_REDUCE_THEN_SCAN),
    SCAN("scan_inclusive_f64", F64, false, FAST),
    SCAN("scan_inclusive_f64", F64, false, SCAN_SINGLE_PASS),
    SCAN("scan_inclusive_f64", F64, false, SCAN_REDUCE_THEN_SCAN),
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

#define CASE_COUNT (sizeof(cases) / sizeof(cases[0]))

/* Input buffers are made per type, so that each holds data of its type. */
static const gpgpu_type input_types[] = { GPGPU_TYPE_U32, GPGPU_TYPE_F32, GPGPU_TYPE_F64 };

/* The copy ceiling moves at least this much: enough to leave every cache. */
#define COPY_MIN_BYTES ((size_t)1 << 28)
/* Below this a copy says nothing about bandwidth; give up instead. */
#define COPY_SMALLEST_BYTES ((size_t)1 << 20)

/* One fixed seed: every run and device times the same data. */
#define SEED 1

/* A timed call: call(user) where call is set; else a case on n elements,
 * or (c NULL) a copy of n bytes from in to out and, when vbytes > 0, of
 * vbytes bytes from vin to vout. */
typedef struct bench_job {
    const bench_case *c;
    gpgpu_buffer *in, *out;
    size_t n;
    gpgpu_buffer *vin, *vout;
    size_t vbytes;
    bench_call call;
    void *user;
} bench_job;

/* Algorithm names: the tools' names for reduce and scan, the sort's here. */
static const char *bench_algo_name(gpgpu_algo algo)
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
                             " spgemm, gemm, histogram, segreduce or rle, comma-separated)",
                             word);
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

/* ---------------------------------------------------------------- output */

/* JSON has no NaN or infinity (a timer that reports 0 ns gives one). */
void bench_json_number(FILE *f, double value)
{
    if (isfinite(value))
        fprintf(f, "%.3f", value);
    else
        fputs("null", f);
}

void bench_json_string(FILE *f, const char *s)
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

void bench_json_field(FILE *f, const char *key, double value)
{
    if (isfinite(value))
        fprintf(f, ", \"%s\": %.6g", key, value);
    else
        fprintf(f, ", \"%s\": null", key);
}

void bench_json_text(FILE *f, const char *key, const char *value)
{
    fprintf(f, ", \"%s\": ", key);
    bench_json_string(f, value);
}

static void print_table_header(void)
{
    printf("%-20s %-8s %11s %12s %12s %12s %9s %13s %9s\n", "case", "algo", "n", "median_us",
           "min_us", "wall_us", "GB/s", "ratio_to_copy", "Gkeys/s");
}

/* One result row. */
typedef struct bench_row {
    const char *name, *algo;
    size_t n;
    timing t;
    double bytes;   /* moved by one call, read plus written */
    double ratio;   /* to the copy: see bench_help */
    double copy_ns; /* sort: the copy of the same bytes; NAN for others */
    const char *check; /* sort: "ok", "failed" or "skipped"; NULL for others */
} bench_row;

double bench_rate_ns(const bench *b, timing t)
{
    return b->wall_clock ? t.wall_ns : t.median_ns;
}

static void report_json(bench *b, const bench_row *r, double gbps, double gkeys);

/* Prints a table row (stdout is flushed so a long run shows its progress)
 * and appends the JSON record. Bytes (elements) per ns are GB/s (G/s). */
static void report(bench *b, const bench_row *r)
{
    double ns = bench_rate_ns(b, r->t);
    double gbps = r->bytes / ns, gkeys = (double)r->n / ns;

    printf("%-20s %-8s %11zu %12.2f %12.2f %12.2f %9.2f %13.3f %9.4f\n", r->name, r->algo, r->n,
           r->t.median_ns / 1e3, r->t.min_ns / 1e3, r->t.wall_ns / 1e3, gbps, r->ratio, gkeys);
    fflush(stdout);
    if (b->json != NULL)
        report_json(b, r, gbps, gkeys);
}

/* The context block: where and how the run was made (google-benchmark's "context"). */
static void json_context(bench *b)
{
    FILE *f = b->json;
    char date[40] = "", host[256] = "";
    time_t now = time(NULL);
    struct tm tm;

    /* ISO 8601 with the offset as +HH:MM, as google-benchmark writes it. */
    if (localtime_r(&now, &tm) != NULL && strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z",
                                                   &tm) == 24) {
        memmove(date + 23, date + 22, 3);
        date[22] = ':';
    }
    if (gethostname(host, sizeof(host) - 1) != 0)
        host[0] = '\0';
    fputs("{\n  \"context\": {\"date\": ", f);
    bench_json_string(f, date);
    bench_json_text(f, "host_name", host);
    bench_json_text(f, "executable", b->argc > 0 ? b->argv[0] : "gpgpu-bench");
    char command[2048] = "";
    for (int i = 0, used = 0; i < b->argc && used < (int)sizeof(command); i++)
        used += snprintf(command + used, sizeof(command) - (size_t)used, "%s%s", i ? " " : "",
                         b->argv[i]);
    bench_json_text(f, "command", command);
    bench_json_text(f, "library_version", gpgpu_version());
    bench_json_text(f, "device", b->info.renderer != NULL ? b->info.renderer : "");
    /* Vulkan names its driver and version apart; GL's version string carries them. */
    const char *driver = b->info.backend != NULL && strcmp(b->info.backend, "vulkan") == 0
                             ? b->info.vendor : b->info.version;
    bench_json_text(f, "driver", driver != NULL ? driver : "");
    bench_json_text(f, "api_version", b->info.version != NULL ? b->info.version : "");
    bench_json_text(f, "backend", b->info.backend != NULL ? b->info.backend : "");
    bench_json_text(f, "platform", b->info.platform != NULL ? b->info.platform : "");
    bench_json_text(f, "timer", b->wall_clock ? "wall" : "gpu");
    bench_json_field(f, "copy_gbps", b->copy_gbps);
    fprintf(f, ", \"runs\": %d, \"warmup\": %d, \"warmup_ms\": %d, \"burst_ms\": %d},\n",
            b->opt->runs, b->opt->warmup, b->opt->warmup_ms, b->opt->burst_ms);
    fputs("  \"benchmarks\": [", f);
    b->json_opened = true;
}

/* One result row's record: its rates as google-benchmark's counters, beside the case,
 * algorithm and size that bench/compare.py joins on. */
static void report_json(bench *b, const bench_row *r, double gbps, double gkeys)
{
    FILE *f = b->json;
    char name[160];

    snprintf(name, sizeof(name), "%s/%s/%zu", r->name, r->algo, r->n);
    bench_json_begin(b, name, r->t);
    bench_json_text(f, "case", r->name);
    bench_json_text(f, "algo", r->algo);
    fprintf(f, ", \"n\": %zu", r->n);
    bench_json_field(f, "bytes_per_second", gbps * 1e9);
    bench_json_field(f, "items_per_second", gkeys * 1e9);
    bench_json_field(f, "ratio_to_copy", r->ratio);
    if (!isnan(r->copy_ns))
        bench_json_field(f, "copy_time", r->copy_ns);
    if (r->check != NULL)
        bench_json_text(f, "check", r->check);
    bench_json_end(b);
}

void bench_json_begin(bench *b, const char *name, timing t)
{
    FILE *f = b->json;

    if (!b->json_opened)
        json_context(b);
    fputs(b->json_empty ? "\n    {\"name\": " : ",\n    {\"name\": ", f);
    b->json_empty = false;
    bench_json_string(f, name);
    bench_json_text(f, "run_name", name);
    fprintf(f, ", \"run_type\": \"iteration\", \"repetitions\": 1, \"repetition_index\": 0,"
               " \"threads\": 1, \"iterations\": %d", b->opt->runs);
    /* real_time is the time rates come from (the GPU timer, as google-benchmark's manual
     * time; the wall clock where the timer misses the work), cpu_time the host's wall
     * clock around one call, its wait included; spread the GPU times' range over their
     * median (null where the timer misses the work). */
    bench_json_field(f, "real_time", bench_rate_ns(b, t));
    bench_json_field(f, "cpu_time", t.wall_ns);
    fputs(", \"time_unit\": \"ns\"", f);
    bench_json_field(f, "gpu_time", t.median_ns);
    bench_json_field(f, "min_time", t.min_ns);
    bench_json_field(f, "max_time", t.max_ns);
    bench_json_field(f, "wall_time", t.wall_ns);
    bench_json_field(f, "spread", b->wall_clock ? NAN : (t.max_ns - t.min_ns) / t.median_ns);
}

void bench_json_end(bench *b)
{
    bench_json_field(b->json, "copy_gbps", b->copy_gbps);
    bench_json_text(b->json, "timer", b->wall_clock ? "wall" : "gpu");
    bench_json_text(b->json, "backend", b->info.backend != NULL ? b->info.backend : "");
    fputc('}', b->json);
}

bool bench_json_close(bench *b)
{
    if (!b->json_opened)
        json_context(b);
    fputs(b->json_empty ? "]\n}\n" : "\n  ]\n}\n", b->json);
    return (ferror(b->json) | fclose(b->json)) == 0;
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
    case KIND_SCAN: {
        gpgpu_scan_desc desc = { .type = c->type, .exclusive = c->exclusive, .algo = c->algo };
        return gpgpu_scan(b->ctx, &desc, job->in, 0, job->out, 0, job->n);
    }
    case KIND_SORT: {
        gpgpu_sort_desc desc = sort_desc(b, c);
        return gpgpu_sort(b->ctx, &desc, job->in, 0, job->out, 0, job->n);
    }
    case KIND_REDUCE:
    default: {
        /* The result stays in a GPU buffer, as CUB's does: the GPU time is the
         * reduction's alone (gpgpu_reduce would add a copy to the host). */
        gpgpu_reduce_desc desc = { .type = c->type, .op = c->op, .algo = c->algo };
        return gpgpu_reduce_to_buffer(b->ctx, &desc, job->in, 0, job->n, job->out, 0);
    }
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
static gpgpu_status time_job(bench *b, const bench_job *job, timing *t)
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
    return time_job(b, &(bench_job){ .call = call, .user = user }, t);
}

/* ----------------------------------------------------------------- cases */

static bool algo_enabled(const bench_options *o, gpgpu_algo algo)
{
    return o->algo_filter == NULL || bench_list_has(o->algo_filter, bench_algo_name(algo));
}

static bool case_enabled(const bench *b, const bench_case *c, int log2n)
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
static size_t largest_bytes(const bench *b, bool values_only)
{
    size_t largest = 0;

    for (int s = 0; s < b->opt->size_count; s++) {
        int k = b->opt->sizes[s];
        for (size_t c = 0; c < CASE_COUNT; c++) {
            size_t bytes = ((size_t)1 << k) *
                           (values_only ? sizeof(uint32_t) : gpgpu_type_size(cases[c].type));
            if ((!values_only || cases[c].pairs) && case_enabled(b, &cases[c], k) &&
                bytes > largest)
                largest = bytes;
        }
    }
    return largest;
}

static size_t largest_input_bytes(const bench *b)
{
    return largest_bytes(b, false);
}

/* Names the step (for progress and failure messages) and times the job. */
static int time_step(bench *b, bench_job *job, int log2n, timing *t)
{
    const bench_case *c = job->c;
    snprintf(b->step, sizeof(b->step), "%s %s n=2^%d", c->name, bench_algo_name(c->algo), log2n);
    tool_message("%s", b->step);
    return bench_check(b, time_job(b, job, t));
}

static int run_case(bench *b, const bench_case *c, gpgpu_buffer *in, gpgpu_buffer *out,
                    int log2n)
{
    bench_job job = { .c = c, .in = in, .out = out, .n = (size_t)1 << log2n };
    timing t;
    int rc = time_step(b, &job, log2n, &t);
    if (rc != TOOL_EXIT_OK || b->stopped)
        return rc;
    double bytes = (double)job.n * (double)gpgpu_type_size(c->type) *
                   (c->kind == KIND_SCAN ? 2.0 : 1.0);
    report(b, &(bench_row){ .name = c->name, .algo = bench_algo_name(c->algo), .n = job.n,
                            .t = t, .bytes = bytes,
                            .ratio = bytes / bench_rate_ns(b, t) / b->copy_gbps, .copy_ns = NAN });
    return TOOL_EXIT_OK;
}

/* A buffer-to-buffer copy of `bytes` bytes, reported as case copy_u32. */
static int run_copy(bench *b, gpgpu_buffer *in, gpgpu_buffer *out, size_t bytes)
{
    bench_job job = { .c = NULL, .in = in, .out = out, .n = bytes };
    timing t;

    snprintf(b->step, sizeof(b->step), "copy_u32 of %zu bytes", bytes);
    tool_message("%s", b->step);
    int rc = bench_check(b, time_job(b, &job, &t));
    if (rc == TOOL_EXIT_OK && !b->stopped)
        report(b, &(bench_row){ .name = "copy_u32", .algo = "copy", .n = bytes / 4, .t = t,
                                .bytes = 2.0 * (double)bytes,
                                .ratio = 2.0 * (double)bytes / bench_rate_ns(b, t) / b->copy_gbps,
                                .copy_ns = NAN });
    return rc;
}

/* Runs the enabled reduce and scan cases of one type at one size on one
 * random input. */
static int run_type(bench *b, gpgpu_type type, int log2n)
{
    size_t n = (size_t)1 << log2n, bytes = n * gpgpu_type_size(type);
    bool any = false;
    int rc;

    for (size_t c = 0; c < CASE_COUNT; c++)
        any = any || (cases[c].kind != KIND_SORT && cases[c].type == type &&
                      case_enabled(b, &cases[c], log2n));
    if (!any)
        return TOOL_EXIT_OK;

    snprintf(b->step, sizeof(b->step), "%s input n=2^%d", gpgpu_type_name(type), log2n);
    /* Scans write to the second buffer: in place, repeated runs would sum
     * the sums, and floats would end up as infinities. */
    rc = tool_upload_random(b->ctx, b->in, type, n, SEED);
    for (size_t c = 0; c < CASE_COUNT && rc == TOOL_EXIT_OK && !b->stopped; c++) {
        if (cases[c].kind != KIND_SORT && cases[c].type == type &&
            case_enabled(b, &cases[c], log2n))
            rc = run_case(b, &cases[c], b->in, b->out, log2n);
    }
    /* The copy of the same bytes is each size's own ceiling. */
    if (rc == TOOL_EXIT_OK && !b->stopped && type == GPGPU_TYPE_U32)
        rc = run_copy(b, b->in, b->out, bytes);
    return rc;
}

/* ------------------------------------------------------------------ sort */

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
    uint32_t bits = (uint32_t)(splitmix64_at(SEED, i) >> 32);

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
    int rc = bench_check(b, time_job(b, &job, &t));
    *ns = bench_rate_ns(b, t);
    return rc;
}

static int run_sort_case(bench *b, const bench_case *c, int log2n, sort_input *in,
                         double copy_ns)
{
    bench_job job = { .c = c, .in = b->in, .out = b->out, .n = (size_t)1 << log2n };
    const char *verdict = "skipped";
    timing t;
    int rc = time_step(b, &job, log2n, &t);
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
    report(b, &(bench_row){ .name = c->name, .algo = bench_algo_name(c->algo), .n = job.n,
                            .t = t, .bytes = bytes, .ratio = copy_ns / bench_rate_ns(b, t),
                            .copy_ns = copy_ns, .check = verdict });
    return TOOL_EXIT_OK;
}

/* Runs the enabled sort cases of one key type at one size: the keys (and
 * values) are uploaded once, each case sorts them out of place into the
 * output buffers, so the input is never changed and nothing needs restoring
 * between runs. */
static int run_sort_type(bench *b, gpgpu_type type, int log2n)
{
    size_t n = (size_t)1 << log2n;
    bool keys = false, pairs = false;
    double copy_keys_ns = NAN, copy_pairs_ns = NAN;
    sort_input in = { .type = type, .n = n };
    int rc;

    for (size_t c = 0; c < CASE_COUNT; c++) {
        if (cases[c].kind == KIND_SORT && cases[c].type == type &&
            case_enabled(b, &cases[c], log2n)) {
            keys = keys || !cases[c].pairs;
            pairs = pairs || cases[c].pairs;
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
    for (size_t c = 0; c < CASE_COUNT && rc == TOOL_EXIT_OK && !b->stopped; c++) {
        if (cases[c].kind == KIND_SORT && cases[c].type == type &&
            case_enabled(b, &cases[c], log2n))
            rc = run_sort_case(b, &cases[c], log2n, &in,
                               cases[c].pairs ? copy_pairs_ns : copy_keys_ns);
    }
    sort_input_free(&in);
    return rc;
}

/* The values buffers for sorts of pairs and, with --own-scratch, the sort's
 * scratch buffer (the largest that any enabled sort asks for), made right
 * after the input and output buffers. */
static gpgpu_status make_sort_buffers(bench *b)
{
    size_t vbytes = largest_bytes(b, true), scratch = 0;
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
        for (size_t c = 0; c < CASE_COUNT; c++) {
            size_t bytes = 0;

            if (cases[c].kind != KIND_SORT || !case_enabled(b, &cases[c], k))
                continue;
            gpgpu_sort_desc desc = sort_desc(b, &cases[c]);
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
 * while two buffers of it do not fit; *copy_bytes follows). Then the sort's
 * values and scratch buffers. */
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
    if (status == GPGPU_SUCCESS)
        status = make_sort_buffers(b);
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
     * (llvmpipe reports about 1 ns): tool_timer_missed, the rule every tool
     * uses. Then every GB/s figure is taken from the wall clock instead. */
    b->wall_clock = tool_timer_missed(t.median_ns, t.wall_ns, 1);
    if (b->wall_clock)
        tool_message("note: the GPU timer reports %.0f ns for a copy that took %.0f ns"
                     " by the wall clock: this driver's timer queries miss the work,"
                     " so GB/s below come from wall_us", t.median_ns, t.wall_ns);
    b->copy_gbps = 2.0 * (double)bytes / (b->wall_clock ? t.wall_ns : t.median_ns);
    /* The clock burst's buffers, where the timer sees the GPU's work (a CPU
     * driver has no clock to raise). Without them, no burst. */
    if (!b->wall_clock && b->opt->burst_ms > 0 &&
        (gpgpu_buffer_create(b->ctx, BENCH_BURST_BYTES, &b->burst_in) != GPGPU_SUCCESS ||
         gpgpu_buffer_create(b->ctx, BENCH_BURST_BYTES, &b->burst_out) != GPGPU_SUCCESS)) {
        tool_message("note: no room for the clock burst's buffers: no burst");
        gpgpu_buffer_destroy(b->burst_in);
        b->burst_in = NULL;
    }
    report(b, &(bench_row){ .name = "copy_d2d_u32", .algo = "copy", .n = bytes / 4, .t = t,
                            .bytes = 2.0 * (double)bytes, .ratio = 1.0, .copy_ns = NAN });

    gpgpu_context_desc desc = b->opt->desc;
    desc.transfer_copies = true;
    gpgpu_context *transfer = NULL;
    snprintf(b->step, sizeof(b->step), "driver copy command of %zu bytes", bytes);
    tool_message("%s", b->step);
    status = gpgpu_context_create(&desc, &transfer);
    if (status == GPGPU_SUCCESS)
        status = time_big_copy(b, transfer, &bytes, &t);
    if (status == GPGPU_SUCCESS)
        report(b, &(bench_row){ .name = "copy_d2d_u32", .algo = "transfer", .n = bytes / 4,
                                .t = t, .bytes = 2.0 * (double)bytes,
                                .ratio = 2.0 * (double)bytes / bench_rate_ns(b, t) / b->copy_gbps,
                                .copy_ns = NAN });
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
    for (int s = 0; s < b->opt->size_count && rc == TOOL_EXIT_OK && !b->stopped; s++) {
        int k = b->opt->sizes[s];

        for (size_t t = 0; t < sizeof(input_types) / sizeof(input_types[0]); t++) {
            rc = run_type(b, input_types[t], k);
            if (rc == TOOL_EXIT_OK && !b->stopped)
                rc = run_sort_type(b, input_types[t], k);
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
