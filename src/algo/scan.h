/* The prefix-sum family (glsl/scan.comp): drivers and their stages, each
 * callable alone for the tests. Offsets and counts are in elements. */
#ifndef GPGPU_ALGO_SCAN_H
#define GPGPU_ALGO_SCAN_H

#include "algo/algo.h"
#include "algo/ids/scan_ids.h"

enum { SCAN_STAGES(ALGO_ID) };
enum { SCAN_PARAMS(ALGO_ID) };
enum { SCAN_SHAPES(ALGO_SHAPE) };
_Static_assert(SCAN_P_N == 1 && SCAN_P_SRC_OFF == 2 && SCAN_P_DST_OFF == 3,
               "the slots algo_bind_io sets");

enum {
    SCAN_WG = 256,
    SCAN_ITEMS = 8,        /* default; ctx->plans.scan has the value in use */
    SCAN_MAX_GROUPS = 1024, /* default, likewise */
    SCAN_CHAINED_WG = 256,   /* single pass: invocations per tile; at most SCAN_CHAINED_WG_MAX */
    SCAN_CHAINED_WG_GL = 512, /* the same under GL up to SCAN_CHAINED_GL_SMALL_MAX (scan_chained_plan_for) */
    SCAN_CHAINED_WG_MAX = 512, /* 1024-wide f64 tiles lost the device on the H100 */
    SCAN_CHAINED_ITEMS = 32, /* single pass, 4-byte types (f64: a quarter, or half reloaded) */
    SCAN_CHAINED_ITEMS_GL = 8, /* the same under GL */
    SCAN_CHAINED_GL_SMALL_MAX = 1 << 22, /* GL: 512 x 8 tiles up to this n, then 256 x 32 reloaded */
    SCAN_CHAINED_SHORT_MAX = 1 << 20, /* single pass: half the items from 2 tiles up to this n */
    SCAN_POLLS = 32          /* single pass: reads of a silent predecessor before summing it */
};

/* The single pass's tiles: wg * items elements each (SCAN_CHAINED_WG x SCAN_CHAINED_ITEMS unless
 * tuned; f64: halved, or quartered where a large tile is held across the look-back; halved
 * again for n of more than one such tile up to
 * SCAN_CHAINED_SHORT_MAX), tiles = ceil(n / that)
 * (at least 1); its state buffer holds state_words u32 (a ticket, then 4 per
 * tile, 8 for f64), zeroed by CLEAR when there is more than one tile. */
typedef struct scan_chained_plan {
    uint32_t wg, items, tiles; /* tiles of wg * items elements */
    bool reload; /* the tile is loaded again after its look-back (scan_chained_plan_for says why) */
    size_t state_words;
    gpgpu_buffer *count; /* NULL, or the staged device count (algo/count.h): n is its bound */
} scan_chained_plan;

scan_chained_plan scan_chained_plan_for(gpgpu_context *ctx, gpgpu_type type, size_t n);

/* How CHAINED is made to sum its predecessors from their input (the tests'
 * way to reach the fallback on every tile): NONE as in use; ALL ignores every
 * published state (out of place only: the input must stay); WINDOW ignores
 * what the look-back reads but takes a value published by the time a
 * predecessor has been summed (in place too). SUMS is no fallback: the
 * look-back takes tiles' own sums only (an inclusive prefix counts at tile 0
 * alone), so every walk goes back to tile 0, window after window. */
typedef enum {
    SCAN_FALLBACK_NONE,
    SCAN_FALLBACK_ALL,
    SCAN_FALLBACK_WINDOW,
    SCAN_FALLBACK_SUMS
} scan_fallback;

/* How the fast scan splits n elements: group g owns the contiguous run of
 * tiles [g * tiles_per_group, (g + 1) * tiles_per_group) of SCAN_WG * items elements. */
typedef struct scan_plan {
    uint32_t groups;
    uint32_t tiles_per_group;
    uint32_t items; /* elements per invocation per tile: tiles hold SCAN_WG * items */
    size_t part_off; /* where the partial sums start in their buffer, in elements (0 by default) */
    gpgpu_buffer *count; /* NULL, or the staged device count (algo/count.h) that REDUCE and
                          * TILES read their n from: n is its bound */
} scan_plan;

scan_plan scan_plan_for(const gpgpu_context *ctx, size_t n);

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

/* CLEAR: words [0, p.state_words) of state = 0, on CHAINED's type and plan,
 * in a program of its own that declares no shared tile (so that it fits
 * every device CHAINED's own program fits). */
gpgpu_status scan_stage_clear(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *state,
                              scan_chained_plan p);
/* CHAINED: dst = prefix sums of src in one pass on plan p (state cleared
 * first when p.tiles > 1); afterwards state holds the ticket count and each
 * tile's published sum and inclusive prefix (ref_scan_chained_state). */
gpgpu_status scan_stage_chained(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                                gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                                size_t dst_off, size_t n, gpgpu_buffer *state,
                                scan_chained_plan p, scan_fallback fallback);

/* What gpgpu_scan runs by default (the single pass where it is the default, else
 * reduce-then-scan), inside a call of another primitive; in place too (in == out). */
gpgpu_status scan_default(gpgpu_context *ctx, gpgpu_type type, bool exclusive, gpgpu_buffer *in,
                          size_t in_off, gpgpu_buffer *out, size_t out_off, size_t n);
/* Reduce-then-scan (REDUCE, PARTIALS, TILES), inside a call; in place too. */
gpgpu_status scan_reduce_then_scan(gpgpu_context *ctx, gpgpu_type type, bool exclusive,
                                   gpgpu_buffer *in, size_t in_off, gpgpu_buffer *out,
                                   size_t out_off, size_t n);

#endif /* GPGPU_ALGO_SCAN_H */
