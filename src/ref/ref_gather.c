/* The CPU twin of the gather family (glsl/gather.comp). */
#include <string.h>

#include "ref/ref.h"

void ref_gather(size_t words, const uint32_t *in, const uint32_t *idx, size_t n, uint32_t *out)
{
    for (size_t i = 0; i < n; i++)
        memcpy(out + i * words, in + (size_t)idx[i] * words, words * 4);
}

void ref_scatter(size_t words, const uint32_t *in, const uint32_t *idx, size_t n,
                 uint32_t *out)
{
    for (size_t i = 0; i < n; i++)
        memcpy(out + (size_t)idx[i] * words, in + i * words, words * 4);
}
