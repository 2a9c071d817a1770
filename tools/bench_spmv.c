/* gpgpu-bench --only spmv: y = A*x on MatrixMarket files and generated
 * matrices, every format and algorithm, f32 and f64, each result checked once
 * against a CPU product in double. Records join bench/cusparse_peer.py's on
 * (matrix, type). */
#include "gpgpu_bench.h"

#include <gpgpu/sparse.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char bench_spmv_help[] =
    "\n"
    "SpMV (--only spmv, which --matrix and --gen imply): y = A*x (alpha 1, beta 0)\n"
    "on each matrix in every format (csr, coo, csc, ell, sell, bsr, default\n"
    "parameters; ell is skipped with a note where its padding passes 8x nnz) and\n"
    "type (f32, f64): csr by classic, scalar, vector (the heuristic's shape),\n"
    "vector_tuned (the shape gpgpu_spmv_tune picks; its gain over the heuristic is\n"
    "printed), balanced and default (what GPGPU_ALGO_DEFAULT picks for csr from\n"
    "the row lengths: balanced, scalar or vector), the other\n"
    "formats by their kernel (algo \"default\"). Per row: median GPU time, the\n"
    "latency of one call with gpgpu_finish (wall clock), GFLOP/s (2 nnz / time),\n"
    "the format's bytes (gpgpu_format_bytes), GB/s (those bytes + x read + y\n"
    "written, over the time) and its ratio to the copy ceiling, and Radomski's\n"
    "memory efficiency k = 1/(t s) in 1/(s GB) (compare within one matrix). Every\n"
    "result is checked once against a CPU product in double (bound: 4 (len + 2)\n"
    "ulp of the row's sum of |a_ij x_j|); a wrong one is not reported, prints\n"
    "CHECK FAILED and the exit code is 1. --case matches spmv_FORMAT_TYPE (e.g.\n"
    "--case _f32, --case csr), --algos the algo column.\n"
    "  --matrix FILE         a MatrixMarket file, .mtx or .mtx.gz (repeatable),\n"
    "                        named by its file name without .mtx[.gz]; complex\n"
    "                        and hermitian files are skipped with a note\n"
    "  --gen NAME[:SIZE[:AVG]]  a generated matrix (gpgpu_generate, seed 1;\n"
    "                        repeatable), named NAME-SIZE[-AVG]:\n"
    "                          laplace3d_7:N, laplace3d_27:N  N^3 rows (N 32)\n"
    "                          rmat:SCALE:AVG   2^SCALE rows, AVG per row (14, 16)\n"
    "                          random:ROWS:AVG, power_law:ROWS:AVG,\n"
    "                          dense_row:ROWS:AVG   (65536, 16)\n"
    "                          banded:ROWS:HALF_WIDTH   (65536, 8)\n"
    "                          dense:N          N x N (1024)\n"
    "                        without --matrix and --gen: laplace3d_7:32, rmat:14\n"
    "  --write-gen DIR       write the --gen matrices (or those two) as\n"
    "                        DIR/NAME.mtx (gpgpu_mtx_write_matrix, values exact)\n"
    "                        and exit, no GPU: what a peer reads to time the\n"
    "                        same matrices (bench/cusparse_peer.py)\n";

/* ------------------------------------------------------------- matrices */

/* Without --matrix and --gen (bench_spmv_help says so). */
static const bench_matrix_arg default_matrices[] = {
    { .text = "laplace3d_7:32", .file = false },
    { .text = "rmat:14", .file = false },
};

/* x's seed: every run and device times the same x. */
#define SPMV_SEED 1

int bench_spmv_write_gen(const bench_matrix_options *o)
{
    return bench_matrix_write_gen(o, default_matrices, (int)COUNT_OF(default_matrices));
}

/* ---------------------------------------------------------------- cases */

typedef enum spmv_shape { SHAPE_NONE, SHAPE_HEURISTIC, SHAPE_TUNED } spmv_shape;

typedef struct spmv_case {
    gpgpu_format format;
    gpgpu_algo algo;
    const char *name; /* the algo column */
    spmv_shape shape; /* SPMV_VECTOR: whose shape */
    bool is_default;  /* what GPGPU_ALGO_DEFAULT runs on this format (sparse.h) */
} spmv_case;

#define SPMV_CASE(format_, algo_, name_, shape_, default_)                                      \
    { .format = GPGPU_FORMAT_##format_, .algo = GPGPU_ALGO_##algo_, .name = name_,              \
      .shape = SHAPE_##shape_, .is_default = default_ }

static const spmv_case spmv_cases[] = {
    SPMV_CASE(CSR, CLASSIC_SPMV, "classic", NONE, false),
    SPMV_CASE(CSR, SPMV_SCALAR, "scalar", NONE, false),
    SPMV_CASE(CSR, SPMV_VECTOR, "vector", HEURISTIC, false),
    SPMV_CASE(CSR, SPMV_VECTOR, "vector_tuned", TUNED, false),
    SPMV_CASE(CSR, SPMV_BALANCED, "balanced", NONE, false),
    SPMV_CASE(CSR, DEFAULT, "default", NONE, true),
    SPMV_CASE(COO, DEFAULT, "default", NONE, true),
    SPMV_CASE(CSC, DEFAULT, "default", NONE, true),
    SPMV_CASE(ELL, DEFAULT, "default", NONE, true),
    SPMV_CASE(SELL, DEFAULT, "default", NONE, true),
    SPMV_CASE(BSR, DEFAULT, "default", NONE, true),
};

static const gpgpu_format spmv_formats[] = { GPGPU_FORMAT_CSR, GPGPU_FORMAT_COO,
                                             GPGPU_FORMAT_CSC, GPGPU_FORMAT_ELL,
                                             GPGPU_FORMAT_SELL, GPGPU_FORMAT_BSR };

static const gpgpu_type spmv_types[] = { GPGPU_TYPE_F32, GPGPU_TYPE_F64 };

static void case_name(gpgpu_format format, gpgpu_type type, char *out, size_t size)
{
    snprintf(out, size, "spmv_%s_%s", gpgpu_format_name(format), gpgpu_type_name(type));
}

static bool spmv_case_enabled(const bench *b, const spmv_case *c, gpgpu_type type)
{
    const bench_options *o = b->opt;
    char name[32];

    case_name(c->format, type, name, sizeof(name));
    return (type != GPGPU_TYPE_F64 || b->info.has_f64) &&
           (o->case_filter == NULL || strstr(name, o->case_filter) != NULL) &&
           (o->algo_filter == NULL || bench_list_has(o->algo_filter, c->name));
}

/* One matrix in one type: the vectors, the CPU reference and the shapes. */
typedef struct spmv_run {
    bench *b;
    const bench_matrix *m;
    gpgpu_type type;
    gpgpu_buffer *x, *y;
    void *host;          /* rows (at least cols) elements: x, then y's NaN fill and results */
    double *ref, *bound; /* the CPU product and the check's bound, per row */
    gpgpu_spmv_tuning heuristic, tuned;
    double heuristic_ns; /* the vector case's time with the heuristic's shape, NAN before */
} spmv_run;

/* The element of a host array of the run's type as double. */
static double element(gpgpu_type type, const void *data, size_t i)
{
    return type == GPGPU_TYPE_F32 ? (double)((const float *)data)[i] : ((const double *)data)[i];
}

/* x (tool_random_fill: [0.5, 1.5) with a random sign) uploaded, and the
 * reference product in double from the values the GPU holds (A and x rounded
 * to the type). The bound: any order of summing len terms in the type errs
 * by at most about (len - 1) ulp of the sum of |a_ij x_j|, and rounding the
 * products by one more; 4 (len + 2) leaves room and still catches a kernel
 * that drops or doubles a term of a row of thousands. */
static gpgpu_status run_prepare(spmv_run *r)
{
    const gpgpu_csr *a = &r->m->a;
    double ulp = r->type == GPGPU_TYPE_F32 ? 0x1p-24 : 0x1p-53;

    tool_random_fill(r->type, SPMV_SEED, 0, a->cols, r->host);
    for (uint32_t i = 0; i < a->rows; i++) {
        double sum = 0.0, abs_sum = 0.0;

        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            double v = r->type == GPGPU_TYPE_F32 ? (double)(float)a->values[k] : a->values[k];
            double p = v * element(r->type, r->host, a->col_idx[k]);
            sum += p;
            abs_sum += fabs(p);
        }
        r->ref[i] = sum;
        r->bound[i] = 4.0 * (double)(a->row_ptr[i + 1] - a->row_ptr[i] + 2) * ulp * abs_sum;
    }
    return gpgpu_buffer_upload(r->x, 0, r->host, (size_t)a->cols * gpgpu_type_size(r->type));
}

/* Fills y with NaN (all bits set) before a case, so that rows a kernel
 * leaves unwritten cannot pass the check with an earlier case's result. */
static gpgpu_status clear_y(spmv_run *r)
{
    size_t bytes = (size_t)r->m->a.rows * gpgpu_type_size(r->type);

    memset(r->host, 0xff, bytes);
    return gpgpu_buffer_upload(r->y, 0, r->host, bytes);
}

/* "ok" or "failed" (with a message) for y of the last run; NULL when the
 * download failed. */
static const char *spmv_check(spmv_run *r)
{
    const gpgpu_csr *a = &r->m->a;
    gpgpu_status status =
        gpgpu_buffer_download(r->y, 0, r->host, (size_t)a->rows * gpgpu_type_size(r->type));

    if (status != GPGPU_SUCCESS) {
        tool_fail(status, "cannot download y", gpgpu_last_error(r->b->ctx));
        return NULL;
    }
    for (uint32_t i = 0; i < a->rows; i++) {
        double y = element(r->type, r->host, i);

        if (!(fabs(y - r->ref[i]) <= r->bound[i])) {
            tool_message("CHECK FAILED: %s: y[%u] = %.17g, expected %.17g within %.3g",
                         r->b->step, i, y, r->ref[i], r->bound[i]);
            return "failed";
        }
    }
    return "ok";
}

/* What bench_time_call times: one product. */
typedef struct spmv_call {
    gpgpu_context *ctx;
    gpgpu_spmv_desc desc;
    const gpgpu_matrix *a;
    gpgpu_buffer *x, *y;
} spmv_call;

static gpgpu_status spmv_once(void *user)
{
    spmv_call *c = user;
    return gpgpu_spmv(c->ctx, &c->desc, 1, c->a, c->x, 0, 0, c->y, 0);
}

/* The latency a caller sees where launch cost dominates: the wall time of
 * one call and gpgpu_finish, without a timer query around it (median). */
static gpgpu_status time_latency(bench *b, spmv_call *c, double *ns)
{
    for (int k = 0; k < b->opt->runs; k++) {
        double start = bench_now_ns();
        gpgpu_status status = spmv_once(c);

        if (status == GPGPU_SUCCESS)
            status = gpgpu_finish(c->ctx);
        b->walls[k] = bench_now_ns() - start;
        if (status != GPGPU_SUCCESS)
            return status;
    }
    *ns = bench_median(b->walls, b->opt->runs);
    return GPGPU_SUCCESS;
}

/* ---------------------------------------------------------------- output */

typedef struct spmv_row {
    const spmv_case *c;
    timing t;
    double latency_ns;
    size_t format_bytes, stored;
    uint32_t threads_per_row, rows_per_group; /* the vector cases */
    double gain;      /* vector_tuned: the heuristic shape's time over this one's; NAN else */
    const char *check;
} spmv_row;

static void print_header(void)
{
    printf("\n%-24s %-4s %-12s %-4s %-6s %10s %10s %10s %9s %9s %9s %7s %10s %s\n", "matrix",
           "fmt", "algo", "type", "shape", "median_us", "wall_us", "latency_us", "GFLOP/s",
           "MB", "GB/s", "x_copy", "k", "check");
}

static void spmv_json(spmv_run *r, const spmv_row *row, double gflops, double gbps, double k)
{
    bench *b = r->b;
    const gpgpu_csr *a = &r->m->a;
    FILE *f = b->json;
    char name[32], full[192];

    case_name(row->c->format, r->type, name, sizeof(name));
    snprintf(full, sizeof(full), "%s/%s/%s", name, row->c->name, r->m->name);
    bench_json_begin(b, full, row->t);
    bench_json_text(f, "case", name);
    bench_json_text(f, "matrix", r->m->name);
    bench_json_text(f, "source", r->m->generated ? "gen" : "file");
    fprintf(f, ", \"rows\": %u, \"cols\": %u, \"nnz\": %zu, \"n\": %zu", a->rows, a->cols,
            a->nnz, a->nnz);
    bench_json_text(f, "format", gpgpu_format_name(row->c->format));
    bench_json_text(f, "algo", row->c->name);
    bench_json_text(f, "type", gpgpu_type_name(r->type));
    fprintf(f, ", \"default\": %s", row->c->is_default ? "true" : "false");
    if (row->c->shape != SHAPE_NONE)
        fprintf(f, ", \"threads_per_row\": %u, \"rows_per_group\": %u", row->threads_per_row,
                row->rows_per_group);
    bench_json_field(f, "latency_time", row->latency_ns);
    bench_json_field(f, "flops_per_second", gflops * 1e9);
    fprintf(f, ", \"bytes\": %zu, \"stored\": %zu", row->format_bytes, row->stored);
    bench_json_field(f, "bytes_per_second", gbps * 1e9);
    bench_json_field(f, "ratio_to_copy", gbps / b->copy_gbps);
    bench_json_field(f, "k_per_s_gb", k);
    if (row->c->shape == SHAPE_TUNED) {
        bench_json_field(f, "gain_vs_heuristic", row->gain);
        bench_json_field(f, "tuner_time", r->tuned.gpu_ns);
        bench_json_field(f, "tuner_heuristic_time", r->tuned.heuristic_ns);
    }
    bench_json_text(f, "check", row->check);
    bench_json_end(b);
}

static void spmv_report(spmv_run *r, const spmv_row *row)
{
    const gpgpu_csr *a = &r->m->a;
    size_t elem = gpgpu_type_size(r->type);
    double ns = bench_rate_ns(r->b, row->t);
    double moved = (double)row->format_bytes + (double)(a->cols + a->rows) * (double)elem;
    double gflops = 2.0 * (double)a->nnz / ns, gbps = moved / ns;
    /* Radomski's memory efficiency of a format (BSc thesis, AGH 2023, eq. 5.1,
     * /work/shared/seeds/000_*.txt): k = 1 / (t * s), t the time of the
     * product and s the memory the matrix's representation takes; it favours
     * formats both small and fast, and compares only within one matrix. Here
     * t in seconds and s in GB (1e9 bytes). */
    double k = 1e18 / (ns * (double)row->format_bytes);
    char shape[16] = "-";

    if (row->c->shape != SHAPE_NONE)
        snprintf(shape, sizeof(shape), "%ux%u", row->threads_per_row, row->rows_per_group);
    printf("%-24s %-4s %-12s %-4s %-6s %10.2f %10.2f %10.2f %9.4g %9.4g %9.4g %7.3g %10.4g %s\n",
           r->m->name, gpgpu_format_name(row->c->format), row->c->name,
           gpgpu_type_name(r->type), shape, row->t.median_ns / 1e3, row->t.wall_ns / 1e3,
           row->latency_ns / 1e3, gflops, (double)row->format_bytes / 1e6, gbps,
           gbps / r->b->copy_gbps, k, row->check);
    if (row->c->shape == SHAPE_TUNED)
        printf("# %s %s vector: heuristic %ux%u %.2f us, tuned %ux%u %.2f us: gain %.3fx"
               " (the tuner's own times: %.2f us vs %.2f us)\n",
               r->m->name, gpgpu_type_name(r->type), r->heuristic.threads_per_row,
               r->heuristic.rows_per_group, r->heuristic_ns / 1e3, row->threads_per_row,
               row->rows_per_group, ns / 1e3, row->gain, r->tuned.gpu_ns / 1e3,
               r->tuned.heuristic_ns / 1e3);
    fflush(stdout);
    if (r->b->json != NULL)
        spmv_json(r, row, gflops, gbps, k);
}

/* ------------------------------------------------------------------ runs */

/* The vector kernel's shape for a case: the heuristic's, or the tuner's
 * (tuned on the first such case of the matrix and type). */
static gpgpu_status case_shape(spmv_run *r, const spmv_case *c, gpgpu_matrix *a,
                               gpgpu_spmv_desc *desc)
{
    const gpgpu_spmv_tuning *shape = &r->heuristic;

    if (c->shape == SHAPE_NONE)
        return GPGPU_SUCCESS;
    if (c->shape == SHAPE_TUNED) {
        if (r->tuned.threads_per_row == 0) {
            gpgpu_status status = gpgpu_spmv_tune(r->b->ctx, a, NULL, NULL, &r->tuned);
            if (status != GPGPU_SUCCESS)
                return status;
        }
        shape = &r->tuned;
    }
    desc->threads_per_row = shape->threads_per_row;
    desc->rows_per_group = shape->rows_per_group;
    return GPGPU_SUCCESS;
}

/* Times, checks and reports one case; *skipped when it cannot run here. */
static int run_case(spmv_run *r, const spmv_case *c, gpgpu_matrix *a, spmv_row *row)
{
    bench *b = r->b;
    spmv_call call = { .ctx = b->ctx, .a = a, .x = r->x, .y = r->y,
                       .desc = { .algo = c->algo } };

    snprintf(b->step, sizeof(b->step), "spmv %.64s %s %s %s", r->m->name,
             gpgpu_format_name(c->format), c->name, gpgpu_type_name(r->type));
    tool_message("%s", b->step);
    gpgpu_status status = case_shape(r, c, a, &call.desc);
    if (status == GPGPU_SUCCESS)
        status = clear_y(r);
    if (status == GPGPU_SUCCESS)
        status = bench_time_call(b, spmv_once, &call, &row->t);
    if (status == GPGPU_SUCCESS)
        status = time_latency(b, &call, &row->latency_ns);
    if (status != GPGPU_SUCCESS)
        return bench_skip_or_fail(b, status);
    row->c = c;
    row->check = spmv_check(r);
    if (row->check == NULL)
        return TOOL_EXIT_FAILURE;
    if (strcmp(row->check, "ok") != 0) {
        b->check_failed = true; /* a wrong kernel's time is not reported */
        return TOOL_EXIT_OK;
    }
    row->threads_per_row = call.desc.threads_per_row;
    row->rows_per_group = call.desc.rows_per_group;
    row->gain = NAN;
    if (c->shape == SHAPE_HEURISTIC)
        r->heuristic_ns = bench_rate_ns(b, row->t);
    if (c->shape == SHAPE_TUNED)
        row->gain = r->heuristic_ns / bench_rate_ns(b, row->t);
    spmv_report(r, row);
    return TOOL_EXIT_OK;
}

/* Uploads the matrix in one format and runs that format's enabled cases. */
static int run_format(spmv_run *r, gpgpu_format format)
{
    bench *b = r->b;
    spmv_row row = { 0 };
    gpgpu_matrix *a = NULL;
    bool any = false;
    int rc = TOOL_EXIT_OK;

    for (size_t c = 0; c < COUNT_OF(spmv_cases); c++)
        any = any || (spmv_cases[c].format == format && spmv_case_enabled(b, &spmv_cases[c], r->type));
    if (!any)
        return TOOL_EXIT_OK;
    snprintf(b->step, sizeof(b->step), "spmv %.64s %s %s upload", r->m->name,
             gpgpu_format_name(format), gpgpu_type_name(r->type));
    gpgpu_status status = gpgpu_format_bytes(&r->m->a, format, NULL, r->type, &row.format_bytes,
                                             &row.stored);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_matrix_create(b->ctx,
                                     &(gpgpu_matrix_desc){ .type = r->type, .format = format },
                                     &r->m->a, &a);
    if (status == GPGPU_SUCCESS && format == GPGPU_FORMAT_CSR)
        status = gpgpu_spmv_heuristic(a, &r->heuristic);
    if (status != GPGPU_SUCCESS)
        rc = bench_skip_or_fail(b, status);
    for (size_t c = 0; c < COUNT_OF(spmv_cases) && a != NULL && rc == TOOL_EXIT_OK; c++) {
        if (spmv_cases[c].format == format && spmv_case_enabled(b, &spmv_cases[c], r->type))
            rc = run_case(r, &spmv_cases[c], a, &row);
    }
    gpgpu_matrix_destroy(a);
    return rc;
}

static int run_type(spmv_run *r)
{
    int rc = TOOL_EXIT_OK;

    snprintf(r->b->step, sizeof(r->b->step), "spmv %.64s %s x", r->m->name,
             gpgpu_type_name(r->type));
    gpgpu_status status = run_prepare(r);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, r->b->step, gpgpu_last_error(r->b->ctx));
    for (size_t f = 0; f < COUNT_OF(spmv_formats) && rc == TOOL_EXIT_OK; f++)
        rc = run_format(r, spmv_formats[f]);
    return rc;
}

static void print_matrix(const bench_matrix *m)
{
    gpgpu_row_stats s = { 0 };

    gpgpu_csr_row_stats(&m->a, &s);
    printf("# %s (%s): %u x %u, nnz %zu, row lengths %u..%u, mean %.1f, stddev %.1f\n",
           m->name, m->generated ? "generated" : "file", m->a.rows, m->a.cols, m->a.nnz,
           s.min, s.max, s.mean, s.stddev);
}

/* Runs one matrix in both types: vectors of the f64 size serve both. */
static int run_matrix(bench *b, const bench_matrix *m)
{
    size_t longest = m->a.rows > m->a.cols ? m->a.rows : m->a.cols;
    spmv_run r = { .b = b, .m = m };
    int rc = TOOL_EXIT_OK;

    print_matrix(m);
    snprintf(b->step, sizeof(b->step), "spmv %.64s vectors", m->name);
    r.host = malloc((longest + 1) * sizeof(double));
    r.ref = malloc(((size_t)m->a.rows + 1) * sizeof(double));
    r.bound = malloc(((size_t)m->a.rows + 1) * sizeof(double));
    if (r.host == NULL || r.ref == NULL || r.bound == NULL) {
        rc = tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, b->step, "out of host memory");
    } else {
        gpgpu_status status =
            gpgpu_buffer_create(b->ctx, ((size_t)m->a.cols + 1) * sizeof(double), &r.x);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_create(b->ctx, ((size_t)m->a.rows + 1) * sizeof(double), &r.y);
        if (status != GPGPU_SUCCESS)
            rc = bench_skip_or_fail(b, status);
    }
    for (size_t t = 0; t < COUNT_OF(spmv_types) && r.y != NULL && rc == TOOL_EXIT_OK; t++) {
        r.type = spmv_types[t];
        r.tuned = (gpgpu_spmv_tuning){ 0 };
        r.heuristic_ns = NAN;
        rc = run_type(&r);
    }
    gpgpu_buffer_destroy(r.y);
    gpgpu_buffer_destroy(r.x);
    free(r.host);
    free(r.ref);
    free(r.bound);
    return rc;
}

int bench_spmv_run(bench *b)
{
    print_header();
    return bench_run_matrices(b, default_matrices, (int)COUNT_OF(default_matrices), run_matrix);
}
