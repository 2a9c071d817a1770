/* The SpMV oracle: y = alpha*A*x + beta*y in double, each row summed left to
 * right, and the bound a float SpMV must stay within. */
#include <math.h>

#include "ref/ref.h"

void ref_spmv_csr(const gpgpu_csr *a, double alpha, const double *x, double beta, double *y)
{
    for (uint32_t i = 0; i < a->rows; i++) {
        double sum = 0;
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            sum += a->values[k] * x[a->col_idx[k]];
        }
        /* beta == 0 writes y without reading it: NaN there must not leak in. */
        y[i] = beta == 0 ? alpha * sum : alpha * sum + beta * y[i];
    }
}

/* A row of len products summed in any order, then scaled by alpha and added
 * to beta*y, is a sum of len + 1 terms each with one rounded product: every
 * term carries at most len + 2 roundings, hence gamma_{len+2} (Higham,
 * Accuracy and Stability, 3.1 and 3.5) times the sum of the absolute terms. */
void ref_spmv_bound(const gpgpu_csr *a, const double *x, double alpha, double beta,
                    const double *y_in, double unit_roundoff, double *bound)
{
    for (uint32_t i = 0; i < a->rows; i++) {
        double abs_sum = 0;
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            abs_sum += fabs(a->values[k]) * fabs(x[a->col_idx[k]]);
        }
        double terms = fabs(alpha) * abs_sum + (beta == 0 ? 0 : fabs(beta) * fabs(y_in[i]));
        double k = (double)(a->row_ptr[i + 1] - a->row_ptr[i]) + 2;
        double gamma = k * unit_roundoff < 1 ? k * unit_roundoff / (1 - k * unit_roundoff)
                                             : INFINITY;
        bound[i] = gamma * terms;
    }
}
