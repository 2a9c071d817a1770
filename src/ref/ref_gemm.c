/* The dense product's CPU twin (glsl/gemm.comp): every method computes the same
 * function, C = alpha op(A) op(B) + beta C, so one twin serves them all. */
#include <math.h>

#include "ref/ref.h"

static long double get(gpgpu_type type, const void *p, size_t i)
{
    return type == GPGPU_TYPE_F32 ? (long double)((const float *)p)[i]
                                  : (long double)((const double *)p)[i];
}

static void put(gpgpu_type type, void *p, size_t i, long double v)
{
    if (type == GPGPU_TYPE_F32)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = (double)v;
}

/* alpha and beta as the GPU has them: rounded to the type. */
static long double rounded(gpgpu_type type, double v)
{
    return type == GPGPU_TYPE_F32 ? (long double)(float)v : (long double)v;
}

void ref_gemm(gpgpu_type type, size_t m, size_t n, size_t k, bool trans_a, bool trans_b,
              double alpha, const void *a, size_t lda, const void *b, size_t ldb, double beta,
              void *c, size_t ldc, long double *abs_sum)
{
    long double al = rounded(type, alpha), be = rounded(type, beta);
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            long double sum = 0, abs = 0;
            for (size_t p = 0; p < k; p++) {
                long double x = get(type, a, trans_a ? p * lda + i : i * lda + p);
                long double y = get(type, b, trans_b ? j * ldb + p : p * ldb + j);
                sum += x * y;
                abs += fabsl(x * y);
            }
            size_t at = i * ldc + j;
            long double v = al * sum;
            abs = fabsl(al) * abs;
            if (be != 0) { /* beta = 0: C is not read */
                long double old = get(type, c, at);
                v += be * old;
                abs += fabsl(be * old);
            }
            put(type, c, at, v);
            if (abs_sum)
                abs_sum[i * n + j] = abs;
        }
    }
}
