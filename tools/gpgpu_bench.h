/* What gpgpu_bench.c (the driver, reduce, scan, sort, the copy ceiling),
 * bench_spmv.c (the SpMV cases) and bench_spgemm.c (the SpGEMM cases) share:
 * the options, the run's state, timing and the JSON records. */
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
    KIND_COUNT
} bench_kind;

#define MAX_SIZES 31
#define BENCH_SPMV_MAX_INPUTS 256

/* One matrix of the SpMV cases: a MatrixMarket file or a generator spec. */
typedef struct bench_spmv_input {
    const char *text; /* the path, or NAME[:SIZE[:AVG]] */
    bool file;
} bench_spmv_input;

typedef struct bench_spmv_options {
    bench_spmv_input inputs[BENCH_SPMV_MAX_INPUTS]; /* in the order given */
    int input_count;
    const char *write_gen_dir; /* --write-gen: write the generated matrices there, no GPU */
} bench_spmv_options;

typedef struct bench_options {
    int min_log2, max_log2, step, runs, warmup, classic_max_log2, bitonic_max_log2;
    int check_max_log2;
    int sizes[MAX_SIZES]; /* the log2 sizes to run, from the range or --sizes */
    int size_count;
    const char *case_filter; /* only cases whose name contains it, or NULL */
    const char *algo_filter; /* only algorithms in this comma-separated list, or NULL */
    bool max_log2_given;
    bool kinds[KIND_COUNT];
    bool own_scratch;
    const char *json_path;
    bench_spmv_options spmv;
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
     * of many allocations read at half the bandwidth of early ones. Sorts of
     * pairs also take values from vin to vout, and with --own-scratch every
     * sort uses scratch (else NULL: the context's own, made by the first
     * sort). All are made before anything is timed. */
    gpgpu_buffer *in, *out, *vin, *vout, *scratch;
    size_t buffer_bytes;
    double copy_gbps;
    double *samples;  /* opt->runs GPU times in ns */
    double *walls;    /* opt->runs wall-clock times in ns, call to result */
    bool wall_clock;  /* the GPU timer misses the work: GB/s from wall_ns */
    FILE *json;
    bool json_empty;
    bool stopped;     /* out of GPU memory: larger sizes cannot fit either */
    bool check_failed;/* a result was wrong: the exit code says so */
    char step[128];   /* what runs now, for progress and error messages */
} bench;

/* Medians and minimum of one timed job, in ns. */
typedef struct timing {
    double median_ns, min_ns; /* GPU time (timer query) */
    double wall_ns;           /* median wall-clock time of a whole call, its wait included */
} timing;

/* One call that bench_time_call times. */
typedef gpgpu_status (*bench_call)(void *user);

/* Warm-up calls, then opt->runs timed calls of call(user), into *t. */
gpgpu_status bench_time_call(bench *b, bench_call call, void *user, timing *t);

/* The time that rates are computed from: GPU time where the timer works. */
double bench_rate_ns(const bench *b, timing t);

/* TOOL_EXIT_OK on success; out of GPU memory stops the benchmark cleanly
 * (b->stopped); other failures print why and give the exit code. */
int bench_check(bench *b, gpgpu_status status);

double bench_median(double *v, int count); /* sorts v */
double bench_now_ns(void);

/* Whether the comma-separated `list` holds `word`. */
bool bench_list_has(const char *list, const char *word);

/* A JSON record: begin writes the separator and '{' (the caller then writes
 * "key": value pairs, the first without a comma), end adds the fields every
 * record has (copy_gbps, timer, device, backend) and '}'. */
void bench_json_begin(bench *b);
void bench_json_end(bench *b);
void bench_json_number(FILE *f, double value);
void bench_json_string(FILE *f, const char *s);

/* SpMV (bench_spmv.c). */
extern const char bench_spmv_help[];
/* Handles --matrix, --gen and --write-gen into *o; true when argv[*i] was one. */
bool bench_spmv_option(int argc, char **argv, int *i, bench_spmv_options *o);
/* --write-gen: writes the generated matrices as MatrixMarket files, no GPU. */
int bench_spmv_write_gen(const bench_spmv_options *o);
/* Runs the SpMV cases on every matrix (after the copy ceiling is measured). */
int bench_spmv_run(bench *b);

/* SpGEMM (bench_spgemm.c): the matrices of --matrix and --gen (bench_spmv_options). */
extern const char bench_spgemm_help[];
/* Runs the SpGEMM cases on every matrix (after the copy ceiling is measured). */
int bench_spgemm_run(bench *b);

#endif /* GPGPU_BENCH_H */
