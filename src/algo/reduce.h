/* The reduction family (glsl/reduce.comp): drivers and their stages, each
 * stage callable alone so tests can hold it against its CPU twin. Offsets
 * and counts are in elements of T; a V element is one T, or a (min, max)
 * pair of two T for GPGPU_OP_MINMAX. */
#ifndef GPGPU_ALGO_REDUCE_H
#define GPGPU_ALGO_REDUCE_H

#include "algo/algo.h"
#include "algo/ids/reduce_ids.h"

enum { REDUCE_STAGES(ALGO_ID) };
enum { REDUCE_PARAMS(ALGO_ID) };
_Static_assert(REDUCE_P_N == 1 && REDUCE_P_SRC_OFF == 2 && REDUCE_P_DST_OFF == 3,
               "the slots algo_bind_io sets");

enum {
    REDUCE_WG = 256,        /* invocations per work-group of the fast stage */
    REDUCE_ITEMS = 4,        /* default loads in flight per invocation per block */
    /* Caps on the first pass's groups, by size (reduce_plan_for; measured on
     * the H100 with the warm-up, docs/DECISIONS.md; an older measurement
     * that put 1024 groups at half speed at 2^28 met the slow 1 GiB buffer):
     * GPGPU_TUNE=reduce_groups sets one cap for every size. */
    REDUCE_MAX_GROUPS = 4096,    /* from REDUCE_MANY_FROM elements on */
    REDUCE_MID_GROUPS = 1024,    /* from REDUCE_MID_FROM to REDUCE_MANY_FROM */
    REDUCE_FEW_GROUPS = 512,     /* below REDUCE_MID_FROM */
    REDUCE_MANY_FROM = 1 << 27,
    REDUCE_MID_FROM = 1 << 24
};

/* How the fast reduction splits n elements: `groups` work-groups, group g
 * reading blocks g, g + groups, ... of `block` elements. */
typedef struct reduce_plan {
    uint32_t groups;
    uint32_t block;
} reduce_plan;

reduce_plan reduce_plan_for(const gpgpu_context *ctx, size_t n);

/* Elements per V element: 2 for MINMAX, else 1. */
static inline size_t reduce_width(gpgpu_op op) { return op == GPGPU_OP_MINMAX ? 2 : 1; }

/* What TILES reads: elements from `off` of buf; with `times` (OP_SUM only),
 * the products buf[off + i] * times[times_off + i] instead: a dot product.
 * With `update` (OP_SUM only), first e = alpha * buf[off + i] + beta *
 * update[update_off + i] (beta = 0: update not read) is written to update,
 * and e * times[...] is summed, or e * e without times. update must not
 * overlap buf or times. */
typedef struct reduce_source {
    gpgpu_buffer *buf;
    size_t off;
    gpgpu_buffer *times;
    size_t times_off;
    gpgpu_buffer *update;
    size_t update_off;
    double alpha, beta;
    /* NULL, or a staged device count (algo/count.h): TILES then reads at most n elements,
     * as many as it says (another family's call, e.g. gather's check of its indices). */
    gpgpu_buffer *count;
} reduce_source;

/* TILES: V element g of dst (from dst_off) = op over what group g reads of
 * n V elements of src (T elements, or V pairs when src_pairs). */
gpgpu_status reduce_stage_tiles(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                reduce_source src, size_t n, bool src_pairs, gpgpu_buffer *dst,
                                size_t dst_off, uint32_t groups);
/* TILES with the fold: as TILES into part (groups > 1), and the last group
 * to finish writes op over part's groups values to V element out_off of out
 * and sets counter[0] (zero before the call) back to zero. */
gpgpu_status reduce_stage_fold(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                               reduce_source src, size_t n, gpgpu_buffer *part,
                               gpgpu_buffer *counter, gpgpu_buffer *out, size_t out_off,
                               uint32_t groups);
/* The fast reduction of n elements of src into V element out_off of out: TILES
 * with the fold (one dispatch), or two TILES with GPGPU_TUNE=reduce_fold=0.
 * Uses scratch slot 0 and the fold counter's slot. */
gpgpu_status reduce_fast(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op, reduce_source src,
                         size_t n, gpgpu_buffer *out, size_t out_off);
/* EXPAND: V element i of dst = src[i] (as a pair for MINMAX), i < n. */
gpgpu_status reduce_stage_expand(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                 gpgpu_buffer *src, size_t src_off, size_t n, gpgpu_buffer *dst,
                                 size_t dst_off);
/* HALVING (GPUSumUp step): a[i] = a[i] op a[i + ceil(n/2)] for i < n/2. */
gpgpu_status reduce_stage_halving(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                  gpgpu_buffer *buf, size_t off, size_t n);
/* STRIDE (GPUAltSumUp step): a[2qt] = a[2qt] op a[2qt + q] for t < n/2. */
gpgpu_status reduce_stage_stride(gpgpu_context *ctx, gpgpu_type type, gpgpu_op op,
                                 gpgpu_buffer *buf, size_t off, size_t n, size_t q);
/* PAIRS (GPUfindMinMax, s = true): comparators on (2t, 2t+1); an odd last
 * element is folded into pair 0. On T elements. */
gpgpu_status reduce_stage_pairs(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf,
                                size_t off, size_t n);
/* QUADS (GPUfindMinMax, s = false): pair t takes pair t + ceil(n/4) (n even). */
gpgpu_status reduce_stage_quads(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf,
                                size_t off, size_t n);

#endif /* GPGPU_ALGO_REDUCE_H */
