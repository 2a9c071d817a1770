/* gemm_check: checks a C written by `gpgpu gemm` against C = alpha op(A) op(B)
 * computed here on the CPU in long double, from the dense matrices of the
 * library's reader (the CLI's own path to the GPU is what is under test).
 *
 * Usage: gemm_check f32|f64 A.mtx B.mtx C.mtx [--transpose-a] [--transpose-b]
 *                   [--alpha A]
 * Exit status 0 when C has op(A)'s rows and op(B)'s columns and every entry is
 * within the bound, 1 when not (the worst ones are printed), 2 for bad usage or
 * an unreadable file.
 *
 * The bound is that of a sum of k products in any order (Higham, Accuracy and
 * Stability, 3.1): gamma(k) * sum|terms|; rounding A and B to the GPU type adds
 * a relative u to each term, alpha one more product, the file's %.17g nothing:
 * gamma(k + 4). */
#include <gpgpu/io.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dense {
    uint32_t rows, cols;
    double *v;
} dense;

static dense read_dense(const char *path)
{
    gpgpu_csr a;
    char msg[512] = "";
    if (gpgpu_mtx_read_matrix(path, &a, NULL, msg, sizeof(msg)) != GPGPU_SUCCESS) {
        fprintf(stderr, "gemm_check: %s\n", msg);
        exit(2);
    }
    dense d = {a.rows, a.cols, calloc((size_t)a.rows * a.cols + 1, sizeof(double))};
    if (!d.v)
        exit(2);
    for (uint32_t i = 0; i < a.rows; i++)
        for (uint32_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; e++)
            d.v[(size_t)i * a.cols + a.col_idx[e]] = a.values[e];
    gpgpu_csr_free(&a);
    return d;
}

/* The value the GPU got: rounded to the type on upload. */
static long double as_type(bool f32, double v) { return f32 ? (long double)(float)v : v; }

int main(int argc, char **argv)
{
    bool ta = false, tb = false, f32;
    double alpha = 1, worst = 0;
    size_t bad = 0;

    if (argc < 5 || (strcmp(argv[1], "f32") != 0 && strcmp(argv[1], "f64") != 0)) {
        fprintf(stderr, "usage: gemm_check f32|f64 A.mtx B.mtx C.mtx [--transpose-a] "
                        "[--transpose-b] [--alpha A]\n");
        return 2;
    }
    f32 = strcmp(argv[1], "f32") == 0;
    for (int i = 5; i < argc; i++) {
        if (strcmp(argv[i], "--transpose-a") == 0)
            ta = true;
        else if (strcmp(argv[i], "--transpose-b") == 0)
            tb = true;
        else if (strcmp(argv[i], "--alpha") == 0 && i + 1 < argc)
            alpha = atof(argv[++i]);
        else {
            fprintf(stderr, "gemm_check: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    dense a = read_dense(argv[2]), b = read_dense(argv[3]), c = read_dense(argv[4]);
    size_t m = ta ? a.cols : a.rows, k = ta ? a.rows : a.cols, n = tb ? b.rows : b.cols;
    if (c.rows != m || c.cols != n || (tb ? b.cols : b.rows) != k) {
        fprintf(stderr, "gemm_check: C is %u x %u, expected %zu x %zu\n", c.rows, c.cols, m, n);
        return 1;
    }
    long double u = f32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2, al = as_type(f32, alpha);
    long double g = (k + 4) * u / (1 - (k + 4) * u);
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            long double sum = 0, abs = 0;
            for (size_t p = 0; p < k; p++) {
                long double x = as_type(f32, ta ? a.v[p * a.cols + i] : a.v[i * a.cols + p]);
                long double y = as_type(f32, tb ? b.v[j * b.cols + p] : b.v[p * b.cols + j]);
                sum += x * y;
                abs += fabsl(x * y);
            }
            long double want = al * sum, bound = g * fabsl(al) * abs + (f32 ? FLT_MIN : DBL_MIN);
            long double err = fabsl(c.v[i * n + j] - want);
            if (!(err <= bound)) {
                if (++bad <= 5)
                    fprintf(stderr, "gemm_check: C[%zu][%zu] = %.17g, expected %.17Lg (bound %.3Lg)\n",
                            i, j, c.v[i * n + j], want, bound);
            }
            if (bound > 0 && (double)(err / bound) > worst)
                worst = (double)(err / bound);
        }
    }
    printf("gemm_check: %zu x %zu, %zu off, worst %.3g of the bound\n", m, n, bad, worst);
    free(a.v);
    free(b.v);
    free(c.v);
    return bad ? 1 : 0;
}
