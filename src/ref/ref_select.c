/* The CPU twin of the select family (glsl/select.comp). */
#include <string.h>

#include "algo/select.h" /* the SELECT_KEEP_* modes only */
#include "ref/ref.h"

bool ref_select_keep(gpgpu_type type, unsigned keep, double value, const void *in,
                     const uint32_t *flags, size_t i)
{
    if (keep == SELECT_KEEP_FLAGS)
        return flags[i] != 0;
    if (keep == SELECT_KEEP_HEADS) {
        size_t ks = gpgpu_type_size(type);
        const char *k = in;
        return i == 0 || ref_sort_order(type, k + i * ks, false) !=
                             ref_sort_order(type, k + (i - 1) * ks, false);
    }
    /* -1, 0, 1 as x <, ==, > c; 2 unordered (a NaN). */
    int order;
    switch (type) {
    case GPGPU_TYPE_U32: {
        uint32_t x = ((const uint32_t *)in)[i], c = (uint32_t)value;
        order = x < c ? -1 : x > c;
        break;
    }
    case GPGPU_TYPE_I32: {
        int32_t x = ((const int32_t *)in)[i], c = (int32_t)value;
        order = x < c ? -1 : x > c;
        break;
    }
    case GPGPU_TYPE_F32: {
        float x = ((const float *)in)[i], c = (float)value;
        order = x < c ? -1 : x > c ? 1 : x == c ? 0 : 2;
        break;
    }
    default: {
        double x = ((const double *)in)[i], c = value;
        order = x < c ? -1 : x > c ? 1 : x == c ? 0 : 2;
        break;
    }
    }
    switch (keep) {
    case GPGPU_COMPARE_LT: return order == -1;
    case GPGPU_COMPARE_LE: return order == -1 || order == 0;
    case GPGPU_COMPARE_GT: return order == 1;
    case GPGPU_COMPARE_GE: return order == 1 || order == 0;
    case GPGPU_COMPARE_EQ: return order == 0;
    default: return order != 0;
    }
}

/* Element i of `from` to element `to` of the outputs. */
static void put(gpgpu_type type, const void *in, const uint32_t *pay_in, size_t i, size_t to,
                void *out, uint32_t *pay_out, uint32_t *idx_out)
{
    size_t size = gpgpu_type_size(type);
    memcpy((char *)out + to * size, (const char *)in + i * size, size);
    if (pay_out)
        pay_out[to] = pay_in[i];
    if (idx_out)
        idx_out[to] = (uint32_t)i;
}

size_t ref_select(gpgpu_type type, unsigned keep, double value, bool partition, const void *in,
                  const uint32_t *flags, const uint32_t *pay_in, size_t n, void *out,
                  uint32_t *pay_out, uint32_t *idx_out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (ref_select_keep(type, keep, value, in, flags, i))
            put(type, in, pay_in, i, k++, out, pay_out, idx_out);
    size_t r = k;
    for (size_t i = 0; partition && i < n; i++)
        if (!ref_select_keep(type, keep, value, in, flags, i))
            put(type, in, pay_in, i, r++, out, pay_out, idx_out);
    return k;
}

void ref_select_count(gpgpu_type type, unsigned keep, double value, const void *in,
                      const uint32_t *flags, size_t n, uint32_t groups,
                      uint32_t tiles_per_group, uint32_t tile, uint32_t *part)
{
    size_t run = (size_t)tiles_per_group * tile;
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t kept = 0;
        for (size_t i = g * run; i < n && i < (g + 1) * run; i++)
            kept += ref_select_keep(type, keep, value, in, flags, i);
        part[g] = kept;
    }
}

void ref_select_chained_state(gpgpu_type type, unsigned keep, double value, const void *in,
                              const uint32_t *flags, size_t n, uint32_t tile, uint32_t tiles,
                              bool ticket, uint32_t *state)
{
    size_t used = n == 0 ? 1 : (n + tile - 1) / tile;
    uint32_t kept = 0;
    memset(state, 0, (2 + (size_t)tiles) * sizeof *state);
    for (size_t t = 0; t < used; t++) {
        for (size_t i = t * tile; i < n && i < (t + 1) * tile; i++)
            kept += ref_select_keep(type, keep, value, in, flags, i);
        if (used > 1)
            state[2 + t] = 0x80000000u | kept;
    }
    state[0] = ticket && tiles > 1 ? tiles : 0;
    state[1] = kept;
}
