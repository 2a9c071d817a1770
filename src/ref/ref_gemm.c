/* The dense product's CPU twin (glsl/gemm.comp): every method computes the same
 * function, C = alpha op(A) op(B) + beta C, so one twin serves them all. */
#include <math.h>
#include <string.h>

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

uint16_t ref_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xffu) /* inf, or a quiet NaN */
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    uint32_t half, rem, halfway;
    if (e <= 0) { /* a subnormal half, or zero */
        if (e < -10)
            return (uint16_t)sign;
        unsigned shift = (unsigned)(14 - e);
        man |= 0x800000u;
        half = man >> shift;
        rem = man & ((1u << shift) - 1);
        halfway = 1u << (shift - 1);
    } else {
        half = ((uint32_t)e << 10) | (man >> 13);
        rem = man & 0x1fffu;
        halfway = 0x1000u;
    }
    if (rem > halfway || (rem == halfway && (half & 1u)))
        half++; /* a carry into the exponent is the right result */
    return (uint16_t)(sign | half);
}

float ref_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    float v;
    if (exp == 0x1fu) {
        uint32_t bits = sign | 0x7f800000u | (man << 13);
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    v = exp == 0 ? ldexpf((float)man, -24) : ldexpf((float)(man | 0x400u), (int)exp - 25);
    return sign ? -v : v;
}
