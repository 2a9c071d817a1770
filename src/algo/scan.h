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
    size_t part_off; /* where the partial sums start in their buffer, in elements (0 by default) */
} scan_plan;

scan_plan scan_plan_for(size_t n);

/* REDUCE: part[g] = sum of group g's run of src, g < plan.groups. */
gpgpu_status scan_stage_reduce(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *src,
                               size_t src_off, size_t n, gpgpu_buffer *part, scan_plan plan);
/* PARTIALS: part[0..groups) becomes its exclusive prefix sum (one work-group). */
gpgpu_status scan_stage_partials(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *part,
                                 size_t part_off, uint32_t groups);
/* TILES: dst = part[g] + prefix sums of group g's run of src. */
gpgpu_status scan_stage_tiles(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                              gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                              size_t dst_off, size_t n, gpgpu_buffer *part, scan_plan plan);
/* COPY (classic): dst = src, or src shifted right by one with a 0 in front. */
gpgpu_status scan_stage_copy(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                             gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                             size_t dst_off, size_t n);
/* STEP (classic iPrefixSum step k): a[ib] += a[ia] with
 * ia = 2^(k+1) floor(i / 2^k) + 2^k - 1, ib = ia + (i mod 2^k) + 1. */
gpgpu_status scan_stage_step(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf, size_t off,
                             size_t n, unsigned k);

#endif /* GPGPU_ALGO_SCAN_H */
