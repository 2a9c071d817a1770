/* Segmented sorts: the kinds of segment offsets the tests make (one, skewed, with empties,
 * singles, long, tiny, random), and gpgpu_sort over each with every algorithm. */
#include <stdlib.h>

#include "test_sort.h"

const char *const seg_names[S_COUNT] = {"one",  "skewed", "with empties", "singles",
                                        "long", "tiny",   "random"};

uint32_t *gen_segs(int kind, size_t n, size_t *nseg)
{
    size_t cap = 2 * n + 16, k = 0;
    uint32_t *s = xmalloc((cap + 1) * 4);
    s[0] = 0;
    size_t pos = 0;
    while (pos < n && k + 2 < cap) {
        size_t len;
        uint64_t r = rnd();
        switch (kind) {
        case S_ONE: len = n; break;
        case S_SKEWED: /* lengths spread over orders of magnitude, a few huge */
            len = r % 50 == 0 ? (size_t)(r >> 20) % (n / 3 + 1) : (size_t)1 << (r >> 8) % 12;
            len = len > 1 ? (size_t)(r >> 32) % len : len;
            break;
        case S_EMPTIES: len = r % 3 ? 0 : 1 + (size_t)(r >> 16) % 40; break;
        case S_SINGLES: len = 1; break;
        case S_LONG: /* a short one, one far longer than a tile, then the rest */
            len = k == 0 ? 3 : k == 1 ? 3 * (size_t)BITONIC_TILE + 5 : 1 + (size_t)(r % 100);
            break;
        case S_TINY: len = (size_t)(r % 33); break;
        default: len = (size_t)(r % 600); break;
        }
        if (len > n - pos)
            len = n - pos;
        pos += len;
        s[++k] = (uint32_t)pos;
    }
    if (pos < n)
        s[++k] = (uint32_t)n;
    if (k == 0) /* n = 0: one empty segment */
        s[++k] = 0;
    if (kind == S_EMPTIES && k + 2 <= cap) { /* and empty segments at the end */
        s[k + 1] = s[k];
        s[k + 2] = s[k];
        k += 2;
    }
    *nseg = k;
    return s;
}

/* Segmented, every kind of segments, every algorithm. */
void segmented_sorts(void)
{
    for (size_t ai = 0; ai < 4; ai++)
        for (int sk = 0; sk < S_COUNT; sk++)
            for (size_t ti = 0; ti < 4; ti++) {
                gpgpu_algo a = sort_algos[ai];
                /* S_TINY: 100k segments of 0-32 for RADIX, 10k for DEFAULT and
                 * BITONIC, 1k for the classic network. */
                bool classic = a == GPGPU_ALGO_CLASSIC_NETSORT;
                size_t n = sk == S_TINY ? (a == GPGPU_ALGO_RADIX ? 1600000
                                           : classic             ? 16000
                                                                 : 160000)
                           : sk == S_SINGLES ? 3001
                           : classic ? 5003
                           : 20011;
                if (sk == S_TINY && ti != (ai + 1) % 4)
                    continue; /* the large one: one type per algorithm (RADIX: u32) */
                sort_case c = {test_types[ti], a, ti % 2 == 1, ti == 2, n,
                               (int)((ti + (size_t)sk) % D_COUNT), (int)(ti % 3),
                               (int)((ti + ai) % 5), sk, 0};
                run_case(&c);
            }
    for (size_t ai = 0; ai < 4; ai++) /* small n with segments */
        for (size_t n = 0; n < 40; n += 13) {
            sort_case c = {test_types[ai], sort_algos[ai], n % 2, false, n, D_DUPS, K_OUT,
                           V_IN_PLACE, S_EMPTIES, 0};
            run_case(&c);
        }
}
