/* The histogram's CPU twin (glsl/histogram.comp): the bin of one sample, bit for bit as the
 * shader finds it, and the counts every counting stage adds. */
#include <math.h>
#include <string.h>

#include "ref/ref.h"

static double value(gpgpu_type type, const void *p, size_t i)
{
    switch (type) {
    case GPGPU_TYPE_U32: return ((const uint32_t *)p)[i];
    case GPGPU_TYPE_I32: return ((const int32_t *)p)[i];
    case GPGPU_TYPE_F32: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

/* Of levels: c = the number of levels <= v by the shader's binary search (IEEE comparisons
 * in the type: u32 and i32 exact in double, f32 widened exactly). */
static uint32_t bin_of_levels(gpgpu_type type, uint32_t bins, const void *levels, double v)
{
    uint32_t lo = 0, hi = bins + 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (value(type, levels, mid) <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 || lo > bins ? REF_HISTOGRAM_NONE : lo - 1;
}

uint32_t ref_histogram_bin(gpgpu_type type, uint32_t bins, double lo, double hi,
                           const void *levels, const void *sample)
{
    double v = value(type, sample, 0);
    if (levels)
        return bin_of_levels(type, bins, levels, v);
    if (!(v >= lo && v < hi))
        return REF_HISTOGRAM_NONE;
    uint32_t bin;
    if (type == GPGPU_TYPE_F32) {
        /* CUB: scale = T(bins) / T(hi - lo), bin = (v - lo) * scale, each rounded to float. */
        float scale = (float)bins / ((float)hi - (float)lo);
        float d = (float)v - (float)lo;
        float t = d * scale;
        bin = (uint32_t)t;
    } else if (type == GPGPU_TYPE_F64) {
        double scale = (double)bins / (hi - lo);
        double d = v - lo;
        double t = d * scale;
        bin = (uint32_t)t;
    } else {
        uint64_t d = (uint64_t)((int64_t)v - (int64_t)lo),
                 r = (uint64_t)((int64_t)hi - (int64_t)lo);
        bin = (uint32_t)(d * bins / r);
    }
    return bin < bins ? bin : bins - 1;
}

void ref_histogram_bins(gpgpu_type type, uint32_t bins, double lo, double hi, const void *levels,
                        const void *src, size_t n, uint32_t *out)
{
    size_t size = type == GPGPU_TYPE_F64 ? 8 : 4;
    for (size_t i = 0; i < n; i++)
        out[i] = ref_histogram_bin(type, bins, lo, hi, levels, (const char *)src + i * size);
}

void ref_histogram_count(gpgpu_type type, uint32_t bins, double lo, double hi,
                         const void *levels, const void *src, size_t n, uint32_t *counts)
{
    size_t size = type == GPGPU_TYPE_F64 ? 8 : 4;
    for (size_t i = 0; i < n; i++) {
        uint32_t b = ref_histogram_bin(type, bins, lo, hi, levels, (const char *)src + i * size);
        if (b != REF_HISTOGRAM_NONE)
            counts[b]++;
    }
}
