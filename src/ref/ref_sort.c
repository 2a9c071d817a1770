/* The CPU reference of the sort (src/ref/ref.h): the ordered key, every
 * stage of glsl/bitonic.comp and glsl/radix.comp, and the oracle, a stable
 * merge sort, on host memory. The semantics are those of src/algo/sort.h.
 *
 * The bitonic twins perform the very compare-exchanges of the GPU's network
 * (a swap only when key i is strictly greater than key j), so they land
 * equal keys (NaNs of different bits, equal keys with different payloads)
 * exactly where the GPU does. */
#include "ref/ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/sort.h" /* the SORT_* flags and RADIX_DIGITS only */

static size_t tsize(gpgpu_type t) { return t == GPGPU_TYPE_F64 ? 8 : 4; }

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "ref_sort: out of host memory\n");
        abort();
    }
    return p;
}

/* ------------------------------------------------------- ordered key */

uint64_t ref_sort_order(gpgpu_type type, const void *key, bool descending)
{
    uint64_t o;
    if (type == GPGPU_TYPE_F64) {
        uint64_t b;
        memcpy(&b, key, 8);
        const uint64_t sign = UINT64_C(1) << 63, exp = UINT64_C(0x7ff) << 52;
        bool nan = (b & exp) == exp && (b & ~(sign | exp)) != 0;
        o = nan ? UINT64_MAX : (b & sign) ? ~b : (b | sign);
        return descending ? ~o : o;
    }
    uint32_t b;
    memcpy(&b, key, 4);
    uint32_t o32;
    switch (type) {
    case GPGPU_TYPE_I32: o32 = b ^ 0x80000000u; break;
    case GPGPU_TYPE_F32: {
        bool nan = (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0;
        o32 = nan ? UINT32_MAX : (b & 0x80000000u) ? ~b : (b | 0x80000000u);
        break;
    }
    default: o32 = b; break;
    }
    o = descending ? (uint32_t)~o32 : o32;
    return o;
}

/* -------------------------------------------------------- comparison */

/* The segment s of index x: segs[s] <= x < segs[s + 1], i.e. the last s in
 * [0, nseg] with segs[s] <= x (upper_bound over segs[0..nseg], minus one),
 * kept in [0, nseg - 1] as the shader's search is for offsets that do not
 * cover x. */
static size_t segment_of(const uint32_t *segs, size_t nseg, uint32_t x)
{
    size_t lo = 0, hi = nseg + 1; /* the first index with segs[i] > x lies in [lo, hi] */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (segs[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    return lo - 1 < nseg ? lo - 1 : (nseg ? nseg - 1 : 0);
}

static uint64_t key_at(const ref_sort_keys *a, size_t i)
{
    return ref_sort_order(a->type, (const char *)a->keys + i * tsize(a->type),
                          (a->flags & SORT_DESCENDING) != 0);
}

/* The payload element i carries: its index with SORT_PAYLOAD_IS_INDEX. */
static uint32_t pay_at(const ref_sort_keys *a, size_t i)
{
    return (a->flags & SORT_PAYLOAD_IS_INDEX) ? a->index_base + (uint32_t)i : a->pay[i];
}

/* Element i of a is greater than element j: (segment of the payload if
 * SORT_SEGMENTED), then the ordered key, then the payload if
 * SORT_TIES_BY_PAYLOAD. */
static bool greater(const ref_sort_keys *a, size_t i, size_t j)
{
    if (a->flags & SORT_SEGMENTED) {
        size_t si = segment_of(a->segs, a->nseg, a->pay[i]);
        size_t sj = segment_of(a->segs, a->nseg, a->pay[j]);
        if (si != sj)
            return si > sj;
    }
    uint64_t ki = key_at(a, i), kj = key_at(a, j);
    if (ki != kj)
        return ki > kj;
    return (a->flags & SORT_TIES_BY_PAYLOAD) && a->pay[i] > a->pay[j];
}

static void swap_elems(const ref_sort_keys *a, size_t i, size_t j)
{
    size_t s = tsize(a->type);
    char tmp[8];
    char *ki = (char *)a->keys + i * s, *kj = (char *)a->keys + j * s;
    memcpy(tmp, ki, s);
    memcpy(ki, kj, s);
    memcpy(kj, tmp, s);
    if (a->pay) {
        uint32_t p = a->pay[i];
        a->pay[i] = a->pay[j];
        a->pay[j] = p;
    }
}

/* ----------------------------------------------------------- bitonic */

/* nn = 2^ceil(log2 n), the padded size of the network (1 for n <= 1). */
static size_t padded(size_t n)
{
    size_t nn = 1;
    while (nn < n)
        nn *= 2;
    return nn;
}

/* The compare-exchange of pair p of STEP (h, reverse). */
static void exchange(const ref_sort_keys *a, size_t p, size_t h, bool reverse)
{
    size_t half = h / 2, b = p / half, l = p % half;
    size_t i = b * h + l, j = reverse ? b * h + h - 1 - l : i + half;
    if (j < a->n && greater(a, i, j))
        swap_elems(a, i, j);
}

void ref_bitonic_step(const ref_sort_keys *a, uint32_t h, bool reverse)
{
    if (h < 2)
        return;
    size_t pairs = padded(a->n) / 2;
    for (size_t p = 0; p < pairs; p++)
        exchange(a, p, h, reverse);
}

/* Pairs [first, first + count) of STEP (h, reverse): the pairs of one tile
 * when the tile is a multiple of h. */
static void step_range(const ref_sort_keys *a, size_t first, size_t count, size_t h, bool reverse)
{
    for (size_t p = first; p < first + count; p++)
        exchange(a, p, h, reverse);
}

void ref_bitonic_local_sort(const ref_sort_keys *a, uint32_t tile)
{
    size_t nn = padded(a->n), top = nn < tile ? nn : tile;
    for (size_t t0 = 0; t0 < a->n; t0 += tile) {
        size_t first = t0 / 2, count = top / 2; /* the tile's pairs */
        for (size_t h = 2; h <= top; h *= 2) {
            step_range(a, first, count, h, true);
            for (size_t k = h / 2; k >= 2; k /= 2)
                step_range(a, first, count, k, false);
        }
    }
}

void ref_bitonic_local_merge(const ref_sort_keys *a, uint32_t tile)
{
    for (size_t t0 = 0; t0 < a->n; t0 += tile)
        for (size_t h = tile; h >= 2; h /= 2)
            step_range(a, t0 / 2, tile / 2, h, false);
}

void ref_bitonic_classic(const ref_sort_keys *a)
{
    size_t nn = padded(a->n);
    for (size_t h = 2; h <= nn; h *= 2) {
        ref_bitonic_step(a, (uint32_t)h, true);
        for (size_t k = h / 2; k >= 2; k /= 2)
            ref_bitonic_step(a, (uint32_t)k, false);
    }
}

/* ------------------------------------------------------------- radix */

static unsigned key_passes(gpgpu_type t) { return t == GPGPU_TYPE_F64 ? 8 : 4; }

unsigned ref_radix_digit(const ref_sort_keys *a, size_t i, unsigned pass)
{
    unsigned kp = key_passes(a->type);
    uint64_t v = pass < kp ? key_at(a, i)
                 : a->segs ? segment_of(a->segs, a->nseg, pay_at(a, i)) : 0;
    unsigned byte = pass < kp ? pass : pass - kp;
    return byte < 8 ? (unsigned)(v >> (8 * byte)) & (RADIX_DIGITS - 1) : 0;
}

void ref_radix_hist(const ref_sort_keys *src, unsigned pass, uint32_t groups, size_t per_group,
                    uint32_t *hist)
{
    memset(hist, 0, (size_t)RADIX_DIGITS * groups * sizeof *hist);
    for (uint32_t g = 0; g < groups; g++)
        for (size_t i = g * per_group; i < (g + 1) * per_group && i < src->n; i++)
            hist[(size_t)ref_radix_digit(src, i, pass) * groups + g]++;
}

void ref_radix_scatter(const ref_sort_keys *src, const ref_sort_keys *dst, unsigned pass,
                       const uint32_t *hist, uint32_t groups, size_t per_group)
{
    size_t s = tsize(src->type);
    bool has_pay = src->pay || (src->flags & SORT_PAYLOAD_IS_INDEX);
    uint32_t *next = xmalloc((size_t)RADIX_DIGITS * groups * sizeof *next);
    memcpy(next, hist, (size_t)RADIX_DIGITS * groups * sizeof *next);
    for (uint32_t g = 0; g < groups; g++)
        for (size_t i = g * per_group; i < (g + 1) * per_group && i < src->n; i++) {
            uint32_t pos = next[(size_t)ref_radix_digit(src, i, pass) * groups + g]++;
            memcpy((char *)dst->keys + (size_t)pos * s, (const char *)src->keys + i * s, s);
            if (has_pay && dst->pay)
                dst->pay[pos] = pay_at(src, i);
        }
    free(next);
}

/* ------------------------------------------------------------ oracle */

typedef struct ord_idx {
    uint64_t key;
    size_t idx;
} ord_idx;

/* Stable: on equal keys the left run's element goes first. */
static void merge_sort(ord_idx *a, ord_idx *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t m = n / 2;
    merge_sort(a, tmp, m);
    merge_sort(a + m, tmp, n - m);
    if (a[m - 1].key <= a[m].key)
        return;
    size_t i = 0, j = m, k = 0;
    while (i < m && j < n)
        tmp[k++] = a[j].key < a[i].key ? a[j++] : a[i++];
    while (i < m)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

void ref_sort(gpgpu_type type, bool descending, void *keys, uint32_t *values, size_t n,
              const uint32_t *segs, size_t nseg)
{
    size_t s = tsize(type);
    ord_idx *a = xmalloc(n * sizeof *a), *tmp = xmalloc(n * sizeof *tmp);
    for (size_t i = 0; i < n; i++)
        a[i] = (ord_idx){ref_sort_order(type, (const char *)keys + i * s, descending), i};
    if (segs) {
        for (size_t g = 0; g < nseg; g++)
            if (segs[g] < segs[g + 1] && segs[g + 1] <= n)
                merge_sort(a + segs[g], tmp, segs[g + 1] - segs[g]);
    } else {
        merge_sort(a, tmp, n);
    }
    char *k0 = xmalloc(n * s);
    memcpy(k0, keys, n * s);
    for (size_t i = 0; i < n; i++)
        memcpy((char *)keys + i * s, k0 + a[i].idx * s, s);
    free(k0);
    if (values) {
        uint32_t *v0 = xmalloc(n * sizeof *v0);
        memcpy(v0, values, n * sizeof *v0);
        for (size_t i = 0; i < n; i++)
            values[i] = v0[a[i].idx];
        free(v0);
    }
    free(a);
    free(tmp);
}
