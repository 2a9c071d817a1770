/* gpgpu-bench --only spgemm: C = A*A (A*A^T for a rectangular A) on
 * MatrixMarket files and generated matrices, by the classic, rows and esc
 * algorithms, f32 and f64, each C checked once against a CPU product. Records
 * join bench/cusparse_peer.py --mode spgemm's on (matrix, type). */
#include "gpgpu_bench.h"

#include <gpgpu/sparse.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"

/* The classic algorithm's temporaries grow with the products, and its sort
 * (stage 6) runs every bitonic step over rows x nn/2 invocations, nn the
 * longest row's products padded to a power of two: above either limit it is
 * skipped with a note (seconds to minutes a product on an H100: memplus, with
 * a row of 39523 products, needs 8e10 invocations). */
#define CLASSIC_MAX_PRODUCTS ((uint64_t)1 << 25)
#define CLASSIC_MAX_SORT_WORK ((uint64_t)1 << 32)
/* The CPU reference costs about a second per 2^27 products (long double sums). */
#define CHECK_MAX_PRODUCTS ((uint64_t)1 << 27)

const char bench_spgemm_help[] =
    "\n"
    "SpGEMM (--only spgemm): C = A*A on each matrix (--matrix, --gen as for SpMV;\n"
    "without them laplace3d_7:16 and rmat:8:4), A*A^T where A is not square (A^T\n"
    "made by gpgpu_matrix_transpose, untimed), in f32 and f64, by classic\n"
    "(GPGPU_ALGO_CLASSIC_SPGEMM; skipped with a note above 2^25 products, or\n"
    "where its sort would run more than 2^32 invocations: rows x nn/2 per\n"
    "bitonic step, nn the longest row's products padded to a power of two), rows\n"
    "(GPGPU_ALGO_SPGEMM_ROWS, what DEFAULT runs) and esc (GPGPU_ALGO_SPGEMM_ESC),\n"
    "default desc otherwise (memory budget: half the device's memory). Per row:\n"
    "products (FLOP = 2 x products), nnz(C), the median GPU time of one call\n"
    "(gpgpu_spgemm alone between a timer begin and end; C destroyed after each,\n"
    "untimed), the median wall time of a call, GFLOP/s, the peak GPU bytes of the\n"
    "call (gpgpu_spgemm_stats), the chunks and long rows of the global path, and\n"
    "x_copy: the time of a buffer copy of the bytes of A, B and C (their CSR\n"
    "arrays; in pieces of the copy buffers), timed in the same process, over the\n"
    "product's time. Each C (of the last timed run) is checked against a CPU\n"
    "product up to 2^27 products: the structure exactly, each value within\n"
    "gamma(k+1) x sum |a_ik b_kj| of its k products (inputs rounded to the\n"
    "type); a wrong one is not reported, prints CHECK FAILED and the exit code\n"
    "is 1. --case matches spgemm_TYPE, --algos the algo column.\n";

/* ------------------------------------------------------------- matrices */

/* Without --matrix and --gen (bench_spgemm_help says so): smaller than
 * SpMV's, as a product's cost grows with the products of a row. */
static const bench_matrix_arg default_matrices[] = {
    { .text = "laplace3d_7:16", .file = false },
    { .text = "rmat:8:4", .file = false },
};

static const gpgpu_type spgemm_types[] = { GPGPU_TYPE_F32, GPGPU_TYPE_F64 };

/* One algorithm of the table. */
typedef struct spgemm_case {
    gpgpu_algo algo;
    const char *name;
    bool is_default; /* what GPGPU_ALGO_DEFAULT runs (sparse.h) */
} spgemm_case;

static const spgemm_case spgemm_cases[] = {
    { GPGPU_ALGO_CLASSIC_SPGEMM, "classic", false },
    { GPGPU_ALGO_SPGEMM_ROWS, "rows", true },
    { GPGPU_ALGO_SPGEMM_ESC, "esc", false },
};

/* A host matrix (bench_run_matrices loads it), and its B (A, or A^T on the
 * host for the products and the reference). */
typedef struct spgemm_matrix {
    const bench_matrix *input; /* A as --matrix or --gen gave it, and its name */
    gpgpu_csr at;       /* A^T when A is not square, else empty */
    const gpgpu_csr *b;
    uint64_t products;  /* sum over A's entries a_ik of the length of B's row k */
    uint64_t longest;   /* the most products of one row */
} spgemm_matrix;

/* A^T's arrays were made here (ref_transpose); A is the caller's. */
static void matrix_free(spgemm_matrix *m)
{
    free(m->at.row_ptr);
    free(m->at.col_idx);
    free(m->at.values);
    *m = (spgemm_matrix){ 0 };
}

/* A's B and products into *m. */
static int matrix_prepare(const bench_matrix *input, spgemm_matrix *m)
{
    const gpgpu_csr *a = &input->a;

    *m = (spgemm_matrix){ .input = input, .b = a };
    if (a->rows != a->cols) {
        gpgpu_status status =
            ref_transpose(a, &m->at) ? GPGPU_SUCCESS : GPGPU_ERROR_OUT_OF_MEMORY;

        m->b = &m->at;
        if (status != GPGPU_SUCCESS) {
            char msg[128];
            snprintf(msg, sizeof(msg), "A^T: %s", gpgpu_status_string(status));
            return tool_fail(status, input->arg, msg);
        }
    }
    for (uint32_t i = 0; i < a->rows; i++) {
        uint64_t row = 0;

        for (uint32_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
            uint32_t k = a->col_idx[e];
            row += m->b->row_ptr[k + 1] - m->b->row_ptr[k];
        }
        m->products += row;
        m->longest = row > m->longest ? row : m->longest;
    }
    return TOOL_EXIT_OK;
}

/* ------------------------------------------------------------ reference */

/* C = A*B on the CPU from the values the GPU holds (A and B rounded to the
 * type), as CSR, with each entry's bound: an entry of k products summed in
 * any order (fused or not) in the type errs by at most gamma(k) x sum |a b|
 * (Higham 3.1), gamma(k) = k u / (1 - k u); gamma(k + 1) leaves a rounding to
 * spare, and the type's smallest normal per product and per addition (2k in
 * all) covers subnormal results flushed to zero; a product with a subnormal
 * operand, which a device may read as zero (the H100 does in f32), may be
 * lost whole (`lost`), as in src/ref/ref_spgemm.c's bound. The sums run in
 * long double, whose own error is far below. */
typedef struct reference {
    uint32_t rows;
    uint32_t *row_ptr, *col_idx;
    double *value, *bound;
    size_t nnz;
} reference;

static void reference_free(reference *r)
{
    free(r->row_ptr);
    free(r->col_idx);
    free(r->value);
    free(r->bound);
    *r = (reference){ 0 };
}

static int compare_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static double rounded(gpgpu_type type, double v)
{
    return type == GPGPU_TYPE_F32 ? (double)(float)v : v;
}

/* Row i's entries into the dense accumulators; returns their count (the
 * columns in cols, ascending). */
static size_t reference_row(const spgemm_matrix *m, gpgpu_type type, uint32_t i, uint32_t *cols,
                            long double *sum, long double *abs_sum, long double *lost,
                            uint64_t *terms, unsigned char *seen)
{
    const gpgpu_csr *a = &m->input->a, *b = m->b;
    size_t count = 0;

    for (uint32_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
        uint32_t k = a->col_idx[e];
        long double av = rounded(type, a->values[e]);
        bool a_sub = ref_subnormal(type, a->values[e]);

        for (uint32_t f = b->row_ptr[k]; f < b->row_ptr[k + 1]; f++) {
            uint32_t j = b->col_idx[f];
            long double p = av * (long double)rounded(type, b->values[f]);

            if (!seen[j]) {
                seen[j] = 1;
                cols[count++] = j;
                sum[j] = abs_sum[j] = lost[j] = 0;
                terms[j] = 0;
            }
            sum[j] += p;
            abs_sum[j] += fabsl(p);
            if (a_sub || ref_subnormal(type, b->values[f]))
                lost[j] += fabsl(p);
            terms[j]++;
        }
    }
    qsort(cols, count, sizeof(uint32_t), compare_u32);
    return count;
}

/* Appends a row's entries to r (growing its arrays by doubling). */
static bool reference_append(reference *r, size_t *room, size_t count, const uint32_t *cols,
                             const long double *sum, const long double *abs_sum,
                             const long double *lost, const uint64_t *terms, double u,
                             double floor_)
{
    if (r->nnz + count > *room) {
        size_t want = *room * 2 > r->nnz + count ? *room * 2 : r->nnz + count;
        uint32_t *ci = realloc(r->col_idx, want * sizeof(uint32_t));
        if (ci != NULL)
            r->col_idx = ci;
        double *v = realloc(r->value, want * sizeof(double));
        if (v != NULL)
            r->value = v;
        double *bd = realloc(r->bound, want * sizeof(double));
        if (bd != NULL)
            r->bound = bd;
        if (ci == NULL || v == NULL || bd == NULL)
            return false;
        *room = want;
    }
    for (size_t k = 0; k < count; k++) {
        uint32_t j = cols[k];
        double k1 = (double)(terms[j] + 1);

        r->col_idx[r->nnz] = j;
        r->value[r->nnz] = (double)sum[j];
        r->bound[r->nnz] =
            k1 * u / (1 - k1 * u) * (double)abs_sum[j] + 2.0 * (double)terms[j] * floor_ +
            (double)lost[j];
        r->nnz++;
    }
    return true;
}

static gpgpu_status reference_make(const spgemm_matrix *m, gpgpu_type type, reference *r)
{
    uint32_t cols_b = m->b->cols;
    double u = type == GPGPU_TYPE_F32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    double floor_ = type == GPGPU_TYPE_F32 ? FLT_MIN : DBL_MIN;
    uint32_t *cols = malloc(((size_t)cols_b + 1) * sizeof(uint32_t));
    long double *sum = malloc(((size_t)cols_b + 1) * sizeof(long double));
    long double *abs_sum = malloc(((size_t)cols_b + 1) * sizeof(long double));
    long double *lost = malloc(((size_t)cols_b + 1) * sizeof(long double));
    uint64_t *terms = malloc(((size_t)cols_b + 1) * sizeof(uint64_t));
    unsigned char *seen = calloc((size_t)cols_b + 1, 1);
    size_t room = m->input->a.nnz + 1;
    bool ok = cols && sum && abs_sum && lost && terms && seen;

    *r = (reference){ .rows = m->input->a.rows };
    r->row_ptr = malloc(((size_t)m->input->a.rows + 1) * sizeof(uint32_t));
    r->col_idx = malloc(room * sizeof(uint32_t));
    r->value = malloc(room * sizeof(double));
    r->bound = malloc(room * sizeof(double));
    ok = ok && r->row_ptr && r->col_idx && r->value && r->bound;
    if (ok)
        r->row_ptr[0] = 0;
    for (uint32_t i = 0; i < m->input->a.rows && ok; i++) {
        size_t count = reference_row(m, type, i, cols, sum, abs_sum, lost, terms, seen);

        for (size_t k = 0; k < count; k++)
            seen[cols[k]] = 0;
        ok = reference_append(r, &room, count, cols, sum, abs_sum, lost, terms, u, floor_) &&
             r->nnz <= UINT32_MAX;
        if (ok)
            r->row_ptr[i + 1] = (uint32_t)r->nnz;
    }
    free(cols);
    free(sum);
    free(abs_sum);
    free(lost);
    free(terms);
    free(seen);
    if (!ok)
        reference_free(r);
    return ok ? GPGPU_SUCCESS : GPGPU_ERROR_OUT_OF_MEMORY;
}

/* ---------------------------------------------------------------- runs */

/* One matrix in one type on the GPU. */
typedef struct spgemm_run {
    bench *b;
    const spgemm_matrix *m;
    gpgpu_type type;
    gpgpu_matrix *a, *bt; /* bt: A^T made on the GPU, or NULL (B = A) */
    reference ref;        /* made at the first check */
    double copy_ns;       /* the copy of A's, B's and C's bytes; NAN before */
    size_t bytes;         /* those bytes */
} spgemm_run;

static const gpgpu_matrix *run_b(const spgemm_run *r)
{
    return r->bt != NULL ? r->bt : r->a;
}

/* What a case measured. */
typedef struct spgemm_row {
    const spgemm_case *c;
    timing t;
    gpgpu_spgemm_stats stats;
    const char *check;
} spgemm_row;

/* A warm-up product, its C destroyed. */
typedef struct spgemm_warm_call {
    const spgemm_run *r;
    const gpgpu_spgemm_desc *desc;
    gpgpu_spgemm_stats *stats;
} spgemm_warm_call;

static gpgpu_status spgemm_warm_product(void *user)
{
    const spgemm_warm_call *w = user;
    gpgpu_matrix *cm = NULL;
    gpgpu_status status = gpgpu_spgemm(w->r->b->ctx, w->desc, w->r->a, run_b(w->r), &cm, w->stats);
    gpgpu_matrix_destroy(cm);
    return status;
}

/* The warm-up (bench_warm_up: without it, a product after the previous case's CPU check ran
 * at an idle H100's clock, up to 4x slow), then opt->runs timed products, each alone between
 * a timer begin and end; every C but the last timed one is destroyed after its run, untimed. */
static gpgpu_status time_products(spgemm_run *r, const spgemm_case *c, spgemm_row *row,
                                  gpgpu_matrix **last)
{
    bench *b = r->b;
    gpgpu_spgemm_desc desc = { .algo = c->algo };
    int runs = b->opt->runs;
    gpgpu_status status = GPGPU_SUCCESS;

    *last = NULL;
    spgemm_warm_call warm = { r, &desc, &row->stats };
    status = bench_warm_up(b, spgemm_warm_product, &warm);
    for (int k = 0; k < runs && status == GPGPU_SUCCESS; k++) {
        gpgpu_matrix *cm = NULL;
        gpgpu_status end;
        double start = bench_now_ns();

        status = gpgpu_timer_begin(b->ctx);
        if (status != GPGPU_SUCCESS)
            break;
        status = gpgpu_spgemm(b->ctx, &desc, r->a, run_b(r), &cm, &row->stats);
        /* End the measurement even after a failed call, so that none stays
         * open; the call's failure is the one to report. */
        end = gpgpu_timer_end(b->ctx, &b->samples[k]);
        b->walls[k] = bench_now_ns() - start;
        if (status == GPGPU_SUCCESS)
            status = end;
        if (k + 1 < runs || status != GPGPU_SUCCESS)
            gpgpu_matrix_destroy(cm);
        else
            *last = cm;
    }
    b->gpu_idle_since_ns = bench_now_ns();
    if (status != GPGPU_SUCCESS)
        return status;
    row->t.median_ns = bench_median(b->samples, runs);
    row->t.min_ns = b->samples[0]; /* sorted by bench_median */
    row->t.max_ns = b->samples[runs - 1];
    row->t.wall_ns = bench_median(b->walls, runs);
    return GPGPU_SUCCESS;
}

/* "ok", "failed" (with a message) or "skipped" (too many products for the
 * CPU) for C; NULL when the download or the reference failed. */
static const char *spgemm_check(spgemm_run *r, const gpgpu_matrix *c)
{
    const reference *ref = &r->ref;
    gpgpu_csr host = { 0 };
    gpgpu_status status;
    const char *verdict = "ok";

    if (r->m->products > CHECK_MAX_PRODUCTS)
        return "skipped";
    if (ref->row_ptr == NULL) {
        tool_message("%s: the CPU reference (%llu products)", r->b->step,
                     (unsigned long long)r->m->products);
        status = reference_make(r->m, r->type, &r->ref);
        if (status != GPGPU_SUCCESS) {
            tool_fail(status, "the CPU reference", "out of host memory");
            return NULL;
        }
    }
    status = gpgpu_matrix_download(c, &host);
    if (status != GPGPU_SUCCESS) {
        tool_fail(status, "cannot download C", gpgpu_last_error(r->b->ctx));
        return NULL;
    }
    if (host.rows != ref->rows || host.nnz != ref->nnz) {
        tool_message("CHECK FAILED: %s: C has %u rows and %zu entries, expected %u and %zu",
                     r->b->step, host.rows, host.nnz, ref->rows, ref->nnz);
        verdict = "failed";
    }
    for (uint32_t i = 0; i < ref->rows && strcmp(verdict, "ok") == 0; i++) {
        if (host.row_ptr[i + 1] != ref->row_ptr[i + 1]) {
            tool_message("CHECK FAILED: %s: row %u ends at entry %u, expected %u", r->b->step,
                         i, host.row_ptr[i + 1], ref->row_ptr[i + 1]);
            verdict = "failed";
            break;
        }
        for (uint32_t e = ref->row_ptr[i]; e < ref->row_ptr[i + 1]; e++) {
            if (host.col_idx[e] != ref->col_idx[e] ||
                !(fabs(host.values[e] - ref->value[e]) <= ref->bound[e])) {
                tool_message("CHECK FAILED: %s: entry %u of row %u is (%u, %.17g), expected "
                             "(%u, %.17g) within %.3g", r->b->step, e - ref->row_ptr[i], i,
                             host.col_idx[e], host.values[e], ref->col_idx[e], ref->value[e],
                             ref->bound[e]);
                verdict = "failed";
                break;
            }
        }
    }
    gpgpu_csr_free(&host);
    return verdict;
}

/* What bench_time_call times: a copy of `bytes` from the bench's input buffer
 * to its output buffer, in pieces of the buffers' size. */
typedef struct copy_call {
    gpgpu_buffer *in, *out;
    size_t bytes, piece;
} copy_call;

static gpgpu_status copy_once(void *user)
{
    const copy_call *c = user;
    gpgpu_status status = GPGPU_SUCCESS;

    for (size_t done = 0; done < c->bytes && status == GPGPU_SUCCESS; done += c->piece) {
        size_t n = c->bytes - done < c->piece ? c->bytes - done : c->piece;
        status = gpgpu_buffer_copy(c->in, 0, c->out, 0, n);
    }
    return status;
}

/* Times the copy of A's, B's and C's bytes (C from the first case). */
static gpgpu_status time_copy(spgemm_run *r, const gpgpu_matrix *c)
{
    bench *b = r->b;
    gpgpu_matrix_info ia, ib, ic;
    gpgpu_status status = gpgpu_matrix_get_info(r->a, &ia);

    if (status == GPGPU_SUCCESS)
        status = gpgpu_matrix_get_info(run_b(r), &ib);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_matrix_get_info(c, &ic);
    if (status != GPGPU_SUCCESS)
        return status;
    r->bytes = ia.bytes + (r->bt != NULL ? ib.bytes : 0) + ic.bytes;
    copy_call call = { .in = b->in, .out = b->out, .bytes = r->bytes / 4 * 4,
                       .piece = b->buffer_bytes / 4 * 4 };
    timing t;
    char step[sizeof(b->step)];

    memcpy(step, b->step, sizeof(step));
    snprintf(b->step, sizeof(b->step), "copy of %zu bytes (A, B and C)", r->bytes);
    tool_message("%s", b->step);
    status = bench_time_call(b, copy_once, &call, &t);
    memcpy(b->step, step, sizeof(step));
    r->copy_ns = bench_rate_ns(b, t);
    return status;
}

/* ---------------------------------------------------------------- output */

static void print_header(void)
{
    printf("\n%-24s %-2s %-7s %-4s %12s %11s %11s %11s %9s %9s %7s %6s %9s %s\n", "matrix", "B",
           "algo", "type", "products", "nnz_C", "median_us", "wall_us", "GFLOP/s", "peak_MB",
           "x_copy", "chunks", "long_rows", "check");
}

static void spgemm_json(spgemm_run *r, const spgemm_row *row, double gflops, double x_copy)
{
    bench *b = r->b;
    const gpgpu_csr *a = &r->m->input->a;
    const gpgpu_spgemm_stats *s = &row->stats;
    FILE *f = b->json;
    char name[32], full[192];

    snprintf(name, sizeof(name), "spgemm_%s", gpgpu_type_name(r->type));
    snprintf(full, sizeof(full), "%s/%s/%s", name, row->c->name, r->m->input->name);
    bench_json_begin(b, full, row->t);
    bench_json_text(f, "case", name);
    bench_json_text(f, "matrix", r->m->input->name);
    bench_json_text(f, "source", r->m->input->generated ? "gen" : "file");
    fprintf(f, ", \"rows\": %u, \"cols\": %u, \"nnz\": %zu", a->rows, a->cols, a->nnz);
    bench_json_text(f, "b", r->bt != NULL ? "At" : "A");
    bench_json_text(f, "algo", row->c->name);
    bench_json_text(f, "type", gpgpu_type_name(r->type));
    fprintf(f, ", \"default\": %s", row->c->is_default ? "true" : "false");
    fprintf(f, ", \"n\": %llu, \"products\": %llu, \"nnz_c\": %zu, \"dropped\": %zu",
            (unsigned long long)s->products, (unsigned long long)s->products, s->nnz,
            s->dropped);
    fprintf(f, ", \"chunks\": %u, \"long_rows\": %u, \"one_phase\": %u, \"peak_bytes\": %zu",
            s->chunks, s->long_rows, s->one_phase, s->peak_bytes);
    bench_json_field(f, "flops_per_second", gflops * 1e9);
    fprintf(f, ", \"bytes\": %zu", r->bytes);
    bench_json_field(f, "copy_time", r->copy_ns);
    bench_json_field(f, "ratio_to_copy", x_copy);
    bench_json_text(f, "check", row->check);
    bench_json_end(b);
}

static void spgemm_report(spgemm_run *r, const spgemm_row *row)
{
    double ns = bench_rate_ns(r->b, row->t);
    /* Flops per nanosecond are GFLOP/s. */
    double gflops = 2.0 * (double)row->stats.products / ns, x_copy = r->copy_ns / ns;

    printf("%-24s %-2s %-7s %-4s %12llu %11zu %11.1f %11.1f %9.4g %9.4g %7.3g %6u %9u %s\n",
           r->m->input->name, r->bt != NULL ? "At" : "A", row->c->name, gpgpu_type_name(r->type),
           (unsigned long long)row->stats.products, row->stats.nnz, row->t.median_ns / 1e3,
           row->t.wall_ns / 1e3, gflops, (double)row->stats.peak_bytes / 1e6, x_copy,
           row->stats.chunks, row->stats.long_rows, row->check);
    fflush(stdout);
    if (r->b->json != NULL)
        spgemm_json(r, row, gflops, x_copy);
}

/* The invocations of the classic sort's bitonic steps: log2(nn) (log2(nn) + 1)
 * / 2 steps of rows x nn/2 each. */
static double classic_sort_work(const spgemm_matrix *m)
{
    double nn = 1, steps;

    while (nn < (double)m->longest)
        nn *= 2;
    steps = log2(nn) * (log2(nn) + 1) / 2;
    return (double)m->input->a.rows * nn / 2 * steps;
}

/* Times, checks and reports one case. */
static int run_case(spgemm_run *r, const spgemm_case *c)
{
    bench *b = r->b;
    spgemm_row row = { .c = c };
    gpgpu_matrix *last = NULL;
    int rc = TOOL_EXIT_OK;

    snprintf(b->step, sizeof(b->step), "spgemm %.64s %s %s", r->m->input->name, c->name,
             gpgpu_type_name(r->type));
    if (c->algo == GPGPU_ALGO_CLASSIC_SPGEMM && r->m->products > CLASSIC_MAX_PRODUCTS) {
        printf("# %s: skipped: %llu products, above the classic algorithm's 2^25 here\n",
               b->step, (unsigned long long)r->m->products);
        return TOOL_EXIT_OK;
    }
    if (c->algo == GPGPU_ALGO_CLASSIC_SPGEMM &&
        classic_sort_work(r->m) > (double)CLASSIC_MAX_SORT_WORK) {
        printf("# %s: skipped: its sort would run %.3g invocations (a row of %llu products),"
               " above 2^32 here\n", b->step, classic_sort_work(r->m),
               (unsigned long long)r->m->longest);
        return TOOL_EXIT_OK;
    }
    tool_message("%s", b->step);
    gpgpu_status status = time_products(r, c, &row, &last);
    if (status == GPGPU_SUCCESS && isnan(r->copy_ns))
        status = time_copy(r, last);
    if (status != GPGPU_SUCCESS) {
        gpgpu_matrix_destroy(last);
        return bench_skip_or_fail(b, status);
    }
    row.check = spgemm_check(r, last);
    gpgpu_matrix_destroy(last);
    if (row.check == NULL)
        return TOOL_EXIT_FAILURE;
    if (strcmp(row.check, "failed") == 0)
        b->check_failed = true; /* a wrong product's time is not reported */
    else
        spgemm_report(r, &row);
    return rc;
}

static bool case_enabled(const bench *b, const spgemm_case *c, gpgpu_type type)
{
    const bench_options *o = b->opt;
    char name[32];

    snprintf(name, sizeof(name), "spgemm_%s", gpgpu_type_name(type));
    return (type != GPGPU_TYPE_F64 || b->info.has_f64) &&
           (o->case_filter == NULL || strstr(name, o->case_filter) != NULL) &&
           (o->algo_filter == NULL || bench_list_has(o->algo_filter, c->name));
}

/* Uploads A (and makes A^T on the GPU when A is not square), then runs the
 * enabled cases. */
static int run_type(bench *b, const spgemm_matrix *m, gpgpu_type type)
{
    spgemm_run r = { .b = b, .m = m, .type = type, .copy_ns = NAN };
    bool any = false;
    int rc = TOOL_EXIT_OK;

    for (size_t c = 0; c < COUNT_OF(spgemm_cases); c++)
        any = any || case_enabled(b, &spgemm_cases[c], type);
    if (!any)
        return TOOL_EXIT_OK;
    snprintf(b->step, sizeof(b->step), "spgemm %.64s %s upload", m->input->name,
             gpgpu_type_name(type));
    gpgpu_status status =
        gpgpu_matrix_create(b->ctx, &(gpgpu_matrix_desc){ .type = type }, &m->input->a, &r.a);
    if (status == GPGPU_SUCCESS && m->b != &m->input->a)
        status = gpgpu_matrix_transpose(b->ctx, r.a, &r.bt);
    if (status != GPGPU_SUCCESS)
        rc = bench_skip_or_fail(b, status);
    for (size_t c = 0; c < COUNT_OF(spgemm_cases) && r.a != NULL && rc == TOOL_EXIT_OK; c++) {
        if (case_enabled(b, &spgemm_cases[c], type))
            rc = run_case(&r, &spgemm_cases[c]);
    }
    reference_free(&r.ref);
    gpgpu_matrix_destroy(r.bt);
    gpgpu_matrix_destroy(r.a);
    return rc;
}

static void print_matrix(const spgemm_matrix *m)
{
    const gpgpu_csr *a = &m->input->a;
    gpgpu_row_stats s = { 0 };

    gpgpu_csr_row_stats(a, &s);
    printf("# %s (%s): %u x %u, nnz %zu, row lengths %u..%u, mean %.1f; C = A*%s: %llu "
           "products, %llu in the longest row\n", m->input->name,
           m->input->generated ? "generated" : "file", a->rows, a->cols, a->nnz, s.min, s.max,
           s.mean, m->b == a ? "A" : "A^T", (unsigned long long)m->products,
           (unsigned long long)m->longest);
}

/* B and the products, then every enabled case in each type. */
static int run_matrix(bench *b, const bench_matrix *input)
{
    spgemm_matrix m;
    int rc = matrix_prepare(input, &m);

    if (rc == TOOL_EXIT_OK) {
        print_matrix(&m);
        for (size_t t = 0; t < COUNT_OF(spgemm_types) && rc == TOOL_EXIT_OK; t++)
            rc = run_type(b, &m, spgemm_types[t]);
    }
    matrix_free(&m);
    return rc;
}

int bench_spgemm_run(bench *b)
{
    print_header();
    return bench_run_matrices(b, default_matrices, (int)COUNT_OF(default_matrices), run_matrix);
}
