/* spmv_check: checks a y written by `gpgpu spmv` against y = alpha*A*x + beta*y0
 * computed here on the CPU in double, row by row, from the host CSR of the
 * library's reader (the CLI's own path to the GPU is what is under test).
 *
 * Usage: spmv_check f32|f64 A.mtx Y.mtx [--x X.mtx] [--alpha A]
 *                   [--beta B --y0 Y0.mtx]
 * Exit status 0 when every entry is within the bound, 1 when one is not (the
 * worst ones are printed), 2 for bad usage or an unreadable file.
 *
 * The bound is the classic one for a sum of k products evaluated in any order
 * (Higham, Accuracy and Stability, 3.1): |fl(s) - s| <= gamma(k) * sum|terms|,
 * gamma(k) = k*u / (1 - k*u). Rounding A, x and y0 to the GPU type adds a
 * relative u to each term, and alpha, beta one more product each: hence
 * (k + 4) * u, doubled for the reference's own rounding in double. */
#include <gpgpu/io.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *read_vector(const char *path, size_t expected, const char *what)
{
    char msg[512] = "";
    void *v = NULL;
    size_t count = 0;

    if (gpgpu_mtx_read_vector(path, GPGPU_TYPE_F64, &v, &count, msg, sizeof(msg)) !=
        GPGPU_SUCCESS) {
        fprintf(stderr, "spmv_check: %s\n", msg);
        exit(2);
    }
    if (count != expected) {
        fprintf(stderr, "spmv_check: %s has %zu entries, expected %zu (%s)\n", path, count,
                expected, what);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    const char *x_path = NULL, *y0_path = NULL;
    double alpha = 1, beta = 0, u, worst = 0;
    double *x = NULL, *y, *y0 = NULL;
    gpgpu_csr a;
    char msg[512] = "";
    size_t bad = 0;

    if (argc < 4 || (strcmp(argv[1], "f32") != 0 && strcmp(argv[1], "f64") != 0)) {
        fprintf(stderr, "usage: spmv_check f32|f64 A.mtx Y.mtx [--x X.mtx] [--alpha A] "
                        "[--beta B --y0 Y0.mtx]\n");
        return 2;
    }
    u = strcmp(argv[1], "f32") == 0 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    for (int i = 4; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--x") == 0)
            x_path = argv[i + 1];
        else if (strcmp(argv[i], "--y0") == 0)
            y0_path = argv[i + 1];
        else if (strcmp(argv[i], "--alpha") == 0)
            alpha = strtod(argv[i + 1], NULL);
        else if (strcmp(argv[i], "--beta") == 0)
            beta = strtod(argv[i + 1], NULL);
        else {
            fprintf(stderr, "spmv_check: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (gpgpu_mtx_read_matrix(argv[2], &a, NULL, msg, sizeof(msg)) != GPGPU_SUCCESS) {
        fprintf(stderr, "spmv_check: %s\n", msg);
        return 2;
    }
    y = read_vector(argv[3], a.rows, "the matrix's rows");
    if (x_path != NULL)
        x = read_vector(x_path, a.cols, "the matrix's columns");
    if (y0_path != NULL)
        y0 = read_vector(y0_path, a.rows, "the matrix's rows");

    for (uint32_t i = 0; i < a.rows; i++) {
        size_t k = a.row_ptr[i + 1] - a.row_ptr[i];
        double sum = 0, magnitude = 0, want, bound, err;

        for (uint32_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; e++) {
            double term = a.values[e] * (x != NULL ? x[a.col_idx[e]] : 1.0);
            sum += term;
            magnitude += fabs(term);
        }
        want = alpha * sum + (y0 != NULL ? beta * y0[i] : 0);
        magnitude = fabs(alpha) * magnitude + (y0 != NULL ? fabs(beta * y0[i]) : 0);
        /* The floor covers subnormal results, which GPUs may flush to zero. */
        bound = 2 * (double)(k + 4) * u * magnitude + (u == FLT_EPSILON / 2 ? FLT_MIN : DBL_MIN);
        err = fabs(y[i] - want);
        if (!(err <= bound)) {
            if (bad < 5)
                fprintf(stderr, "spmv_check: %s row %u: got %.17g, expected %.17g (bound %.3g)\n",
                        argv[3], i + 1, y[i], want, bound);
            bad++;
        }
        if (bound > 0 && err / bound > worst)
            worst = err / bound;
    }
    if (bad > 0)
        fprintf(stderr, "spmv_check: %zu of %u rows outside the bound\n", bad, a.rows);
    else
        printf("spmv_check: %u rows within the bound (worst error %.3g of it)\n", a.rows, worst);
    free(y0);
    free(x);
    free(y);
    gpgpu_csr_free(&a);
    return bad > 0 ? 1 : 0;
}
