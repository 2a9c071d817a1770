/* spgemm_check: checks a C written by `gpgpu spgemm` against C = A*B computed
 * here on the CPU (Gustavson's row-by-row product, sums in long double), from
 * the host CSRs of the library's reader (the CLI's own path to the GPU is what
 * is under test).
 *
 * Usage: spgemm_check f32|f64 A.mtx B.mtx|A|At C.mtx [--drop-zeros]
 * B is a file, or the word A (B = A) or At (B = A^T).
 * Exit status 0 when C is right, 1 when it is not (the first differences are
 * printed), 2 for bad usage or an unreadable file.
 *
 * Structure: without --drop-zeros, C holds exactly the (i, j) that some stored
 * a_ik and b_kj reach, each once (a file entry given twice would be summed by
 * the reader, so the file's entry count must equal the CSR's). With it, C holds
 * a subset of them and no zero: every entry left out must be one whose sum can
 * be zero within the bound below.
 * Values: an entry summing k products, evaluated in any order (fused or not)
 * in the GPU type from inputs rounded to it, errs by at most gamma(k) *
 * sum |a_ik b_kj| (Higham, Accuracy and Stability, 3.1), gamma(k) = k*u / (1 -
 * k*u); gamma(k + 1) leaves a rounding to spare. The reference uses the
 * rounded inputs (f32: each a and b rounded to float first) and long double
 * sums, whose own error is far below the bound. Underflow adds at most the type's
 * smallest normal per product and per addition (GPUs may flush subnormal results to
 * zero): 2k of them; and a product with a subnormal operand, which a GPU may read as
 * zero (the H100 does in f32), may be lost whole: as src/ref/ref_spgemm.c's bound. */
#include <gpgpu/io.h>

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"

/* Printed before giving up: enough to see a pattern. */
#define MAX_REPORTS 5

static void *checked_calloc(size_t n, size_t size)
{
    void *p = calloc(n > 0 ? n : 1, size);

    if (p == NULL) {
        fprintf(stderr, "spgemm_check: out of memory\n");
        exit(2);
    }
    return p;
}

static void read_csr(const char *path, gpgpu_csr *m, gpgpu_mtx_header *header)
{
    char msg[512] = "";

    if (gpgpu_mtx_read_matrix(path, m, header, msg, sizeof(msg)) != GPGPU_SUCCESS) {
        fprintf(stderr, "spgemm_check: %s\n", msg);
        exit(2);
    }
}

static void round_to_float(gpgpu_csr *m)
{
    for (size_t e = 0; e < m->nnz; e++)
        m->values[e] = (double)(float)m->values[e];
}

static int compare_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* One row of the reference product: its columns ascending, and per column the
 * sum, the sum of |products| and the count of products. */
typedef struct reference {
    uint32_t *cols;      /* the row's columns, `count` of them */
    size_t count;
    long double *sum, *abs_sum; /* dense over B's columns */
    long double *lost;           /* |products| with a subnormal operand */
    gpgpu_type type;
    size_t *terms;
    unsigned char *seen;
} reference;

static void reference_row(const gpgpu_csr *a, const gpgpu_csr *b, uint32_t i, reference *r)
{
    for (size_t k = 0; k < r->count; k++) {
        uint32_t j = r->cols[k];
        r->seen[j] = 0;
        r->sum[j] = r->abs_sum[j] = r->lost[j] = 0;
        r->terms[j] = 0;
    }
    r->count = 0;
    for (uint32_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
        uint32_t k = a->col_idx[e];
        long double av = a->values[e];
        bool a_sub = ref_subnormal(r->type, a->values[e]);

        for (uint32_t f = b->row_ptr[k]; f < b->row_ptr[k + 1]; f++) {
            uint32_t j = b->col_idx[f];
            long double p = av * (long double)b->values[f];

            if (!r->seen[j]) {
                r->seen[j] = 1;
                r->cols[r->count++] = j;
            }
            r->sum[j] += p;
            r->abs_sum[j] += fabsl(p);
            if (a_sub || ref_subnormal(r->type, b->values[f]))
                r->lost[j] += fabsl(p);
            r->terms[j]++;
        }
    }
    qsort(r->cols, r->count, sizeof(uint32_t), compare_u32);
}

typedef struct verdict {
    size_t bad, checked;
    double worst; /* the largest error over its bound */
    double u, floor;
    const char *c_path;
} verdict;

static void report(verdict *v, uint32_t i, uint32_t j, const char *fmt, ...)
{
    va_list ap;

    if (v->bad++ >= MAX_REPORTS)
        return;
    fprintf(stderr, "spgemm_check: %s row %u column %u: ", v->c_path, i + 1, j + 1);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static double bound_of(const verdict *v, const reference *r, uint32_t j)
{
    double k1 = (double)(r->terms[j] + 1);
    return k1 * v->u / (1 - k1 * v->u) * (double)r->abs_sum[j] +
           2.0 * (double)r->terms[j] * v->floor + (double)r->lost[j];
}

/* Compares row i of C with the reference row. */
static void check_row(verdict *v, const gpgpu_csr *c, uint32_t i, const reference *r,
                      bool drop_zeros)
{
    uint32_t e = c->row_ptr[i], end = c->row_ptr[i + 1];
    size_t k = 0;

    while (e < end || k < r->count) {
        uint32_t cj = e < end ? c->col_idx[e] : UINT32_MAX;
        uint32_t rj = k < r->count ? r->cols[k] : UINT32_MAX;

        if (cj < rj) {
            report(v, i, cj, "C has %.17g where no a_ik * b_kj reaches", c->values[e]);
            e++;
            continue;
        }
        double want = (double)r->sum[rj], bound = bound_of(v, r, rj);
        if (rj < cj) {
            /* Left out: only a zero may be, and only with --drop-zeros. */
            if (!drop_zeros)
                report(v, i, rj, "C has no entry, expected %.17g (bound %.3g)", want, bound);
            else if (!(fabs(want) <= bound))
                report(v, i, rj, "C dropped an entry that cannot be 0: expected %.17g "
                       "(bound %.3g)", want, bound);
            k++;
            continue;
        }
        double got = c->values[e], err = fabs(got - want);
        v->checked++;
        if (drop_zeros && got == 0)
            report(v, i, cj, "C kept a zero (%.17g, expected %.17g) despite --drop-zeros", got,
                   want);
        else if (!(err <= bound))
            report(v, i, cj, "got %.17g, expected %.17g (bound %.3g)", got, want, bound);
        if (bound > 0 && err / bound > v->worst)
            v->worst = err / bound;
        e++;
        k++;
    }
}

int main(int argc, char **argv)
{
    gpgpu_csr a, b_file = { 0 }, b_t = { 0 }, c;
    const gpgpu_csr *bp = &b_file;
    gpgpu_mtx_header c_header;
    bool f32, drop_zeros = false;
    reference r = { 0 };

    if (argc < 5 || argc > 6 || (strcmp(argv[1], "f32") != 0 && strcmp(argv[1], "f64") != 0) ||
        (argc == 6 && strcmp(argv[5], "--drop-zeros") != 0)) {
        fprintf(stderr, "usage: spgemm_check f32|f64 A.mtx B.mtx|A|At C.mtx [--drop-zeros]\n");
        return 2;
    }
    f32 = strcmp(argv[1], "f32") == 0;
    drop_zeros = argc == 6;
    read_csr(argv[2], &a, NULL);
    if (f32)
        round_to_float(&a);
    if (strcmp(argv[3], "A") == 0) {
        bp = &a;
    } else if (strcmp(argv[3], "At") == 0) {
        if (!ref_transpose(&a, &b_t)) {
            fprintf(stderr, "spgemm_check: out of memory for A^T\n");
            exit(2);
        }
        bp = &b_t;
    } else {
        read_csr(argv[3], &b_file, NULL);
        if (f32)
            round_to_float(&b_file);
    }
    const gpgpu_csr b = *bp;
    read_csr(argv[4], &c, &c_header);
    if (a.cols != b.rows) {
        fprintf(stderr, "spgemm_check: A is %u x %u, B is %u x %u: no product\n", a.rows, a.cols,
                b.rows, b.cols);
        return 2;
    }
    if (c.rows != a.rows || c.cols != b.cols) {
        fprintf(stderr, "spgemm_check: C is %u x %u, expected %u x %u\n", c.rows, c.cols, a.rows,
                b.cols);
        return 1;
    }
    if (c_header.entries != c.nnz || strcmp(c_header.symmetry, "general") != 0) {
        fprintf(stderr, "spgemm_check: %s has %zu entries for %zu distinct (i, j) (%s): "
                "an entry given twice\n", argv[4], c_header.entries, c.nnz, c_header.symmetry);
        return 1;
    }

    verdict v = { .u = f32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2,
                  .floor = f32 ? FLT_MIN : DBL_MIN, .c_path = argv[4] };
    r.cols = checked_calloc((size_t)b.cols + 1, sizeof(uint32_t));
    r.sum = checked_calloc((size_t)b.cols + 1, sizeof(long double));
    r.abs_sum = checked_calloc((size_t)b.cols + 1, sizeof(long double));
    r.lost = checked_calloc((size_t)b.cols + 1, sizeof(long double));
    r.type = f32 ? GPGPU_TYPE_F32 : GPGPU_TYPE_F64;
    r.terms = checked_calloc((size_t)b.cols + 1, sizeof(size_t));
    r.seen = checked_calloc((size_t)b.cols + 1, 1);
    for (uint32_t i = 0; i < a.rows; i++) {
        reference_row(&a, &b, i, &r);
        check_row(&v, &c, i, &r, drop_zeros);
    }
    if (v.bad > 0)
        fprintf(stderr, "spgemm_check: %zu differences in %s (%u x %u, %zu entries)\n", v.bad,
                argv[4], c.rows, c.cols, c.nnz);
    else
        printf("spgemm_check: %u x %u, %zu entries: the structure matches and every value is "
               "within its bound (worst error %.3g of it)\n", c.rows, c.cols, c.nnz, v.worst);
    free(r.cols);
    free(r.sum);
    free(r.abs_sum);
    free(r.lost);
    free(r.terms);
    free(r.seen);
    free(b_t.row_ptr); /* made by ref_transpose, not by the library */
    free(b_t.col_idx);
    free(b_t.values);
    gpgpu_csr_free(&b_file);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&c);
    return v.bad > 0 ? 1 : 0;
}
