/* The prefix-sum family (glsl/scan.comp): drivers and their stages, each
 * callable alone for the tests. Offsets and counts are in elements. */
#ifndef GPGPU_ALGO_SCAN_H
#define GPGPU_ALGO_SCAN_H

#include "algo/algo.h"

enum {
    SCAN_WG = 256,
    SCAN_ITEMS = 8,        /* default; algo_tuning_get() has the value in use */
    SCAN_MAX_GROUPS = 1024 /* default, likewise */
};

/* How the fast scan splits n elements: group g owns the contiguous run of
 * tiles [g * tiles_per_group, (g + 1) * tiles_per_group) of SCAN_WG * items elements. */
typedef struct scan_plan {
    uint32_t groups;
    uint32_t tiles_per_group;
    uint32_t items; /* elements per invocation per tile: tiles hold SCAN_WG * items */
} scan_plan;

scan_plan scan_plan_for(size_t n);

/* REDUCE: part[g] = sum of group g's run of src, g < plan.groups. */
gpgpu_status scan_stage_reduce(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *src,
                               size_t src_off, size_t n, gpgpu_buffer *part, scan_plan plan);
/* PARTIALS: part[0..groups) becomes its exclusive prefix sum (one work-group). */
gpgpu_status scan_stage_partials(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *part,
                                 uint32_t groups);
/* TILES: dst = part[g] + prefix sums of group g's run of src. */
gpgpu_status scan_stage_tiles(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                              gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                              size_t dst_off, size_t n, gpgpu_buffer *part, scan_plan plan);
/* The fast scan of integers is one chained pass (their sums are exact in any
 * order); floats keep reduce-then-scan, whose order of additions is fixed,
 * so a float scan repeats its result bit for bit. */
static inline bool scan_is_chained(gpgpu_type type)
{
    return type == GPGPU_TYPE_U32 || type == GPGPU_TYPE_I32;
}

/* Tiles of the chained scan of n elements (at least 1). */
uint32_t scan_chained_tiles(size_t n);

/* CLEAR (chained): flags[0..tiles) = 0, nothing published. */
gpgpu_status scan_stage_clear(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *flags,
                              uint32_t tiles);
/* CHAINED: the whole scan of n elements in one pass, tile t by group t,
 * each tile's prefix from its predecessors' published sums (part: two
 * values per tile, its sum and its inclusive prefix; flags: one per tile,
 * cleared by CLEAR first). With fallback_only (for tests) every tile sums
 * all its predecessors' input itself, as it does for a predecessor that
 * publishes nothing in time: O(tiles^2). */
gpgpu_status scan_stage_chained(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                                gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                                size_t dst_off, size_t n, gpgpu_buffer *part,
                                gpgpu_buffer *flags, bool fallback_only);
/* COPY (classic): dst = src, or src shifted right by one with a 0 in front. */
gpgpu_status scan_stage_copy(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                             gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                             size_t dst_off, size_t n);
/* STEP (classic iPrefixSum step k): a[ib] += a[ia] with
 * ia = 2^(k+1) floor(i / 2^k) + 2^k - 1, ib = ia + (i mod 2^k) + 1. */
gpgpu_status scan_stage_step(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf, size_t off,
                             size_t n, unsigned k);

#endif /* GPGPU_ALGO_SCAN_H */
