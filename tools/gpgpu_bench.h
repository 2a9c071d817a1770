/* What the files of gpgpu-bench share: gpgpu_bench.c (the harness: options, timing, the
 * table, main), bench_json.c (the JSON records), bench_copy.c (the copy ceiling and the
 * shared buffers), one file per primitive (bench_reduce.c, bench_scan.c, bench_sort.c,
 * bench_spmv.c, bench_spgemm.c, bench_gemm.c, bench_select.c, bench_histogram.c,
 * bench_segreduce.c, bench_rle.c) and bench_matrices.c (the matrices of --matrix and
 * --gen): the options, the run's state, timing and the records. */
#ifndef GPGPU_BENCH_H
#define GPGPU_BENCH_H

#include "tool_common.h"

/* The primitives --only picks; indexes bench_options.kinds. */
typedef enum bench_kind {
    KIND_REDUCE,
    KIND_SCAN,
    KIND_SORT,
    KIND_SPMV,
    KIND_SPGEMM,
    KIND_GEMM,
    KIND_SELECT,
    KIND_HISTOGRAM,
    KIND_SEGREDUCE,
    KIND_RLE,
    KIND_COUNT
} bench_kind;

#define MAX_SIZES 31
#define BENCH_MAX_MATRICES 256

/* The elements of an array (not of a pointer). */
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* One --matrix or --gen argument of the SpMV and SpGEMM cases. */
typedef struct bench_matrix_arg {
    const char *text; /* the path, or NAME[:SIZE[:AVG]] */
    bool file;
} bench_matrix_arg;

typedef struct bench_matrix_options {
    bench_matrix_arg args[BENCH_MAX_MATRICES]; /* in the order given */
    int arg_count;
    const char *write_gen_dir; /* --write-gen: write the generated matrices there, no GPU */
} bench_matrix_options;

typedef struct bench_options {
    int min_log2, max_log2, step, runs, warmup, warmup_ms, classic_max_log2, bitonic_max_log2;
    int check_max_log2;
    int burst_ms;       /* --burst-ms: back-to-back copies before each case's timed runs */
    int sizes[MAX_SIZES]; /* the log2 sizes to run, from the range or --sizes */
    int size_count;
    const char *case_filter; /* only cases whose name contains it, or NULL */
    const char *algo_filter; /* only algorithms in this comma-separated list, or NULL */
    bool max_log2_given;
    bool kinds[KIND_COUNT];
    bool own_scratch;
    bool trace;         /* --trace: every run's GPU time on stderr */
    const char *json_path;
    bench_matrix_options matrices; /* those of the SpMV and SpGEMM cases */
    size_t gemm_sizes[MAX_SIZES]; /* the dense products' n (--gemm-sizes) */
    int gemm_size_count;
    bool gemm_tune;               /* --gemm-tune */
    gpgpu_context_desc desc;
} bench_options;

/* The clock burst's default length, and the bytes of each of its copies. */
#define BENCH_BURST_MS 300
#define BENCH_BURST_BYTES ((size_t)32 << 20)

/* An idle span longer than this ends the GPU's busy span: the next job warms up in full. */
#define BENCH_IDLE_GAP_MS 20

typedef struct bench {
    const bench_options *opt;
    gpgpu_context *ctx;
    gpgpu_info info;
    char device[512];
    size_t cap_bytes; /* the largest input buffer a case may use */
    /* One input and one output buffer of the largest size, made once and
     * reused by every case and size: on an H100, buffers made late in a run
     * of many allocations read at half the bandwidth of early ones. Sorts of
     * pairs also take values from vin to vout, and with --own-scratch every
     * sort uses scratch (else NULL: the context's own, made by the first
     * sort). All are made before anything is timed. */
    gpgpu_buffer *in, *out, *vin, *vout, *scratch;
    gpgpu_buffer *burst_in, *burst_out; /* the clock burst's (NULL: none) */
    size_t buffer_bytes;
    double copy_gbps;
    double started_ns;        /* bench_now_ns() when the process began (--trace) */
    double gpu_busy_since_ns; /* bench_now_ns() where the GPU's present busy span began */
    double gpu_idle_since_ns; /* ... and where the last timed job ended */
    double *samples;  /* opt->runs GPU times in ns */
    double *walls;    /* opt->runs wall-clock times in ns, call to result */
    bool wall_clock;  /* the GPU timer misses the work: GB/s from wall_ns */
    FILE *json;
    bool json_empty;  /* no record written yet */
    bool json_opened; /* the context block and the array's start written */
    int argc;         /* the command line, for the JSON's context */
    char **argv;
    bool stopped;     /* out of GPU memory: larger sizes cannot fit either */
    bool check_failed;/* a result was wrong: the exit code says so */
    char step[128];   /* what runs now, for progress and error messages */
} bench;

/* Medians and minimum of one timed job, in ns. */
typedef struct timing {
    double median_ns, min_ns, max_ns; /* GPU time (timer query) */
    double wall_ns;           /* median wall-clock time of a whole call, its wait included */
} timing;

/* One call that bench_time_call times. */
typedef gpgpu_status (*bench_call)(void *user);

/* One case of the power-of-two sizes (reduce, scan, sort): an operation, a type and an
 * algorithm. */
typedef struct bench_case {
    const char *name;
    bench_kind kind;
    gpgpu_type type; /* the element type; for sort the key type */
    gpgpu_op op;     /* reduce only */
    bool exclusive;  /* scan only */
    bool pairs;      /* sort only: u32 values move with the keys */
    gpgpu_algo algo;
} bench_case;

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

/* One fixed seed: every run and device times the same data. */
#define BENCH_SEED 1

/* Warm-up calls, then opt->runs timed calls of call(user), into *t. */
gpgpu_status bench_time_call(bench *b, bench_call call, void *user, timing *t);
/* The same of a job (a case, a copy or a call). */
gpgpu_status bench_time_job(bench *b, const bench_job *job, timing *t);
/* Names the step (for progress and failure messages) and times the job of a case. */
int bench_time_step(bench *b, bench_job *job, int log2n, timing *t);

/* bench_time_call's warm-up alone (opt->warmup calls, more until the GPU has worked
 * opt->warmup_ms, the clock burst), for a case that times its runs itself; it sets
 * b->gpu_idle_since_ns when they end. */
gpgpu_status bench_warm_up(bench *b, bench_call call, void *user);

/* The time that rates are computed from: GPU time where the timer works. */
double bench_rate_ns(const bench *b, timing t);

/* TOOL_EXIT_OK on success; out of GPU memory stops the benchmark cleanly
 * (b->stopped); other failures print why and give the exit code. */
int bench_check(bench *b, gpgpu_status status);

double bench_median(double *v, int count); /* sorts v */
double bench_now_ns(void);

/* Whether the comma-separated `list` holds `word`. */
bool bench_list_has(const char *list, const char *word);

/* The power-of-two cases: the options pick them (--only, --case, --algos, the classic and
 * bitonic limits, f64 where the device has it), and the input must fit the cap. */
bool bench_case_enabled(const bench *b, const bench_case *c, int log2n);
/* The largest input buffer that an enabled case uses, 0 if none; with
 * values_only, the largest values buffer of an enabled sort of pairs. */
size_t bench_largest_bytes(const bench *b, bool values_only);
/* Algorithm names: the tools' names for reduce and scan, the sort's (netsort, bitonic,
 * radix). */
const char *bench_algo_name(gpgpu_algo algo);

/* One row of the power-of-two cases and the copies. */
typedef struct bench_row {
    const char *name, *algo;
    size_t n;
    timing t;
    double bytes;   /* moved by one call, read plus written */
    double ratio;   /* to the copy: see bench_help */
    double copy_ns; /* sort: the copy of the same bytes; NAN for others */
    const char *check; /* sort: "ok", "failed" or "skipped"; NULL for others */
} bench_row;
/* Prints a table row (stdout is flushed so a long run shows its progress)
 * and appends the JSON record (bench_json_row, at gbps and gkeys). */
void bench_report(bench *b, const bench_row *r);
void bench_json_row(bench *b, const bench_row *r, double gbps, double gkeys);

/* --json FILE is google-benchmark's JSON shape: a "context" object (date, host, device,
 * driver, backend, the run's options) and a "benchmarks" array, so that tools made for
 * google-benchmark's output read it (bench/README.md lists the fields). A record: begin
 * writes the separator, the context first of all, '{' and the fields of a timed run
 * (name, run_type, iterations, real_time, cpu_time, gpu_time, ... in ns); the caller then
 * adds its own ", \"key\": value" pairs (bench_json_field, bench_json_text); end adds the
 * fields every record has (copy_gbps, timer, backend) and '}'. bench_json_close ends the
 * file, after a failure too (the records so far stay valid); false on a write error. */
void bench_json_begin(bench *b, const char *name, timing t);
void bench_json_end(bench *b);
bool bench_json_close(bench *b);
void bench_json_number(FILE *f, double value);
void bench_json_string(FILE *f, const char *s);

/* A step that this matrix or device cannot take (too large for a kernel or
 * for memory, a format or algorithm it has not) prints a note and gives
 * TOOL_EXIT_OK, so that the run goes on with the next; other failures print
 * why and give the exit code. For the SpMV and SpGEMM cases, where one matrix
 * out of many may not fit. */
int bench_skip_or_fail(bench *b, gpgpu_status status);

/* ", \"key\": value" with 6 significant digits (null where not finite): the
 * rates and sizes of tiny matrices need more than bench_json_number's 3
 * decimals. */
void bench_json_field(FILE *f, const char *key, double value);
/* ", \"key\": \"value\"". */
void bench_json_text(FILE *f, const char *key, const char *value);

/* Reduce, scan, sort (bench_reduce.c, bench_scan.c, bench_sort.c): their cases in the order
 * they run, and one call of a case on n elements from in to out. */
extern const bench_case bench_reduce_cases[], bench_scan_cases[], bench_sort_cases[];
extern const size_t bench_reduce_case_count, bench_scan_case_count, bench_sort_case_count;
gpgpu_status bench_reduce_call(bench *b, const bench_case *c, gpgpu_buffer *in,
                               gpgpu_buffer *out, size_t n);
gpgpu_status bench_scan_call(bench *b, const bench_case *c, gpgpu_buffer *in, gpgpu_buffer *out,
                             size_t n);
gpgpu_status bench_sort_call(bench *b, const bench_case *c, gpgpu_buffer *in, gpgpu_buffer *out,
                             size_t n);
/* The enabled sort cases of one key type at one size. */
int bench_sort_run_type(bench *b, gpgpu_type type, int log2n);
/* The sorts' values buffers and, with --own-scratch, their scratch buffer. */
gpgpu_status bench_sort_buffers(bench *b);

/* The copy ceiling (bench_copy.c): the shared buffers made and the copy measured, before
 * any case; the copy of one size's bytes, reported as copy_u32. */
int bench_copy_measure(bench *b);
int bench_copy_run(bench *b, gpgpu_buffer *in, gpgpu_buffer *out, size_t bytes);

/* The matrices (bench_matrices.c). */

/* A host matrix and its name in the results: the file name without the
 * directory and .mtx[.gz], or NAME-SIZE[-AVG] for --gen NAME[:SIZE[:AVG]]. */
typedef struct bench_matrix {
    char name[128];
    const char *arg; /* the --matrix or --gen text it came from, for messages */
    bool generated;
    gpgpu_csr a;
} bench_matrix;

/* Handles --matrix, --gen (its spelling checked now: a usage error before any
 * work) and --write-gen into *o; true when argv[*i] was one. */
bool bench_matrix_option(int argc, char **argv, int *i, bench_matrix_options *o);
/* What a case file runs on one matrix; returns the exit code. */
typedef int (*bench_matrix_run)(bench *b, const bench_matrix *m);
/* Reads or generates (gpgpu_generate, seed 1) each matrix of --matrix and
 * --gen in turn, or the caller's defaults without them (each case has its own
 * sizes), and runs `run` on it; stops at the first failure. A file of a field
 * the cases do not take (complex, hermitian) is skipped with a note. */
int bench_run_matrices(bench *b, const bench_matrix_arg *defaults, int default_count,
                       bench_matrix_run run);
/* --write-gen: writes the generated ones of those matrices as DIR/NAME.mtx
 * (gpgpu_mtx_write_matrix), no GPU. */
int bench_matrix_write_gen(const bench_matrix_options *o, const bench_matrix_arg *defaults,
                           int default_count);

/* SpMV (bench_spmv.c). */
extern const char bench_spmv_help[]; /* with --matrix, --gen and --write-gen */
/* --write-gen: bench_matrix_write_gen with SpMV's defaults (as --help says). */
int bench_spmv_write_gen(const bench_matrix_options *o);
/* Runs the SpMV cases on every matrix (after the copy ceiling is measured). */
int bench_spmv_run(bench *b);

/* SpGEMM (bench_spgemm.c). */
extern const char bench_spgemm_help[];
/* Runs the SpGEMM cases on every matrix (after the copy ceiling is measured). */
int bench_spgemm_run(bench *b);

extern const char bench_gemm_help[]; /* with --gemm-sizes and --gemm-tune */
int bench_gemm_run(bench *b);

/* Compaction, partition, gather against a copy (bench_select.c). */
extern const char bench_select_help[];
int bench_select_run(bench *b);
/* Histograms, segmented sums and run-length encoding (bench_histogram.c, bench_segreduce.c,
 * bench_rle.c): their inputs made on the host from one hash, as bench/cub_peer.cu makes them
 * on the GPU, so that both time the same data. */
extern const char bench_histogram_help[], bench_segreduce_help[], bench_rle_help[];
int bench_histogram_run(bench *b);
int bench_segreduce_run(bench *b); /* also on the matrices of --matrix and --gen */
int bench_rle_run(bench *b);
/* lowbias32 (Chris Wellons), bench/cub_peer.cu's hash32. */
uint32_t bench_hash32(uint32_t x);
/* Fills the first n elements (of `size` bytes) of buf a piece at a time: fill(first, count,
 * out, user) writes elements [first, first + count). */
typedef void (*bench_fill)(size_t first, size_t count, void *out, const void *user);
int bench_upload_fill(bench *b, gpgpu_buffer *buf, size_t size, size_t n, bench_fill fill,
                      const void *user);
/* One row of these cases: the table line and the JSON record. */
typedef struct bench_segmented_row {
    const char *name, *matrix; /* matrix: NULL for the power-of-two sizes */
    size_t n, segments;        /* segments: of a segmented sum, the runs of an encoding */
    timing t;
    double bytes;              /* read plus written by one call */
    const char *check;         /* "ok", "failed" (the exit code says so) or "skipped" */
} bench_segmented_row;
void bench_segmented_header(void);
void bench_segmented_report(bench *b, const bench_segmented_row *r);

#endif /* GPGPU_BENCH_H */
