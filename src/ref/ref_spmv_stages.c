/* Twins of Kiciak's five SpMV stages (glsl/spmv.comp stages 0-4): the same
 * operation on each element, in the GPU's precision, so the tests compare them
 * bit for bit. Stage 3's steps read only products at or past ceil(t/2) and
 * write only below it, so doing a step's additions one after another gives
 * what the GPU's simultaneous ones give. */
#include <stdlib.h>

#include "ref/ref.h"

void ref_spmv_classic_lengths(const gpgpu_csr *a, uint32_t *lgt)
{
    for (uint32_t i = 0; i < a->rows; i++)
        lgt[i] = a->row_ptr[i + 1] - a->row_ptr[i];
}

void ref_spmv_classic_max(uint32_t *lgt, uint32_t t)
{
    for (uint32_t i = 0; i + (t + 1) / 2 < t; i++)
        if (lgt[i + (t + 1) / 2] > lgt[i])
            lgt[i] = lgt[i + (t + 1) / 2];
}

void ref_spmv_classic_products(gpgpu_type type, const gpgpu_csr *a, const void *x, void *work)
{
    for (size_t k = 0; k < a->nnz; k++) {
        uint32_t c = a->col_idx[k];
        if (type == GPGPU_TYPE_F32)
            ((float *)work)[k] = (float)a->values[k] * ((const float *)x)[c];
        else
            ((double *)work)[k] = a->values[k] * ((const double *)x)[c];
    }
}

void ref_spmv_classic_sums(gpgpu_type type, const gpgpu_csr *a, const uint32_t *lgt, void *work,
                           uint32_t t)
{
    uint32_t p = t / 2;
    for (uint32_t row = 0; row < a->rows; row++) {
        size_t base = a->row_ptr[row];
        for (uint32_t j = 0; j < p; j++) {
            uint32_t k = j + t - p;
            if (k >= lgt[row])
                continue;
            if (type == GPGPU_TYPE_F32)
                ((float *)work)[base + j] += ((float *)work)[base + k];
            else
                ((double *)work)[base + j] += ((double *)work)[base + k];
        }
    }
}

/* y = alpha*s + beta*y with three roundings (the shader's write_row is `precise`). */
void ref_spmv_classic_copy(gpgpu_type type, const gpgpu_csr *a, const uint32_t *lgt,
                           const void *work, double alpha, double beta, void *y)
{
    for (uint32_t i = 0; i < a->rows; i++) {
        uint32_t r = a->row_ptr[i];
        if (type == GPGPU_TYPE_F32) {
            float s = lgt[i] > 0 ? ((const float *)work)[r] : 0.0f;
            float v = (float)alpha * s, *yi = &((float *)y)[i];
            *yi = beta == 0 ? v : v + (float)beta * *yi;
        } else {
            double s = lgt[i] > 0 ? ((const double *)work)[r] : 0.0;
            double v = alpha * s, *yi = &((double *)y)[i];
            *yi = beta == 0 ? v : v + beta * *yi;
        }
    }
}

void ref_spmv_classic(gpgpu_type type, const gpgpu_csr *a, const void *x, double alpha,
                      double beta, void *y)
{
    size_t size = type == GPGPU_TYPE_F32 ? sizeof(float) : sizeof(double);
    uint32_t *lgt = malloc((a->rows ? a->rows : 1) * sizeof *lgt);
    void *work = malloc(a->nnz ? a->nnz * size : size);
    if (!lgt || !work)
        abort();
    ref_spmv_classic_lengths(a, lgt);
    uint32_t lmax = 0;
    for (uint32_t i = 0; i < a->rows; i++)
        lmax = lgt[i] > lmax ? lgt[i] : lmax;
    ref_spmv_classic_products(type, a, x, work);
    for (uint32_t t = lmax; t > 1; t = (t + 1) / 2)
        ref_spmv_classic_sums(type, a, lgt, work, t);
    ref_spmv_classic_copy(type, a, lgt, work, alpha, beta, y);
    free(lgt);
    free(work);
}
