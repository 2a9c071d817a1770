/* Run-length encoding's CPU twin (glsl/rle.comp): FINISH bit for bit, and the oracle.
 * Keys are equal when their ordered keys (ref_sort_order) are: all NaNs one value, -0 and +0
 * two. */
#include <string.h>

#include "ref/ref.h"

static size_t tsize(gpgpu_type t) { return t == GPGPU_TYPE_F64 ? 8 : 4; }

static bool same(gpgpu_type t, const void *keys, size_t i, size_t j)
{
    const char *k = keys;
    return ref_sort_order(t, k + i * tsize(t), false) == ref_sort_order(t, k + j * tsize(t), false);
}

void ref_rle_finish(uint32_t *starts, uint32_t runs, size_t n, uint32_t *lengths)
{
    for (uint32_t r = 0; lengths && r < runs; r++)
        lengths[r] = (r + 1 < runs ? starts[r + 1] : (uint32_t)n) - starts[r];
    starts[runs] = (uint32_t)n;
}

size_t ref_rle(gpgpu_type type, const void *keys, size_t n, void *unique, uint32_t *lengths,
               uint32_t *starts)
{
    size_t ks = tsize(type), runs = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !same(type, keys, i, i - 1)) {
            if (unique)
                memcpy((char *)unique + runs * ks, (const char *)keys + i * ks, ks);
            if (starts)
                starts[runs] = (uint32_t)i;
            if (lengths)
                lengths[runs] = 0;
            runs++;
        }
        if (lengths)
            lengths[runs - 1]++;
    }
    if (starts)
        starts[runs] = (uint32_t)n;
    return runs;
}
