/* Sorting, one shader family (glsl/sort.comp) driven by the bitonic network
 * (src/algo/bitonic.c), the LSD radix sort (src/algo/radix.c) and the public
 * driver with its helper stages (src/algo/sort.c). Each stage can
 * be run alone for the tests; offsets and counts are in elements.
 *
 * Every algorithm compares keys through one total order, the "ordered key":
 * an unsigned integer (32 bits, 64 for f64) that sorts like the key.
 *   u32: x;  i32: x ^ 0x80000000;
 *   f32/f64: any NaN -> all ones (NaNs equal and last); else negative -> ~bits,
 *            positive -> bits | sign bit (so -inf < ... < -0 < +0 < ... < +inf).
 *   descending: ~ordered (the exact reverse, NaNs first).
 * Keys are moved, never rewritten: only comparisons and digits use the
 * ordered form. */
#ifndef GPGPU_ALGO_SORT_H
#define GPGPU_ALGO_SORT_H

#include "algo/algo.h"
#include "algo/ids/sort_ids.h"

/* The stages of glsl/sort.comp (none is 0, which as only_stage means the family's shared
 * program: sort_dispatch), the parameters they read, and the sort_keys.flags bits. */
enum { SORT_STAGES(ALGO_ID) };
enum { SORT_PARAMS(ALGO_ID) };
enum { SORT_SHAPES(ALGO_SHAPE) };
enum { SORT_CONSTS(ALGO_ID) };

enum {
    BITONIC_WG = 256,
    BITONIC_ITEMS = SORT_BITONIC_ITEMS, /* elements per invocation in the shared-memory stages */
    BITONIC_TILE = SORT_BITONIC_TILE,
    BITONIC_MAX_FUSED_LOG2 = SORT_MAX_FUSED_LOG2, /* STEPS holds 2^4 elements per invocation */
    RADIX_BITS = 8,
    RADIX_DIGITS = SORT_DIGITS,
    RADIX_MAX_SUBGROUPS = SORT_MAX_SUBGROUPS, /* subgroups a work-group's rank counters take */
    RADIX_ITEMS = 16,        /* default (f64, or n < RADIX_LARGE: half); see ctx->plans.radix */
    RADIX_LARGE = 1 << 19,   /* sorts of fewer keys take tiles of half as many keys (radix.c) */
    RADIX_TILE_MAX = SORT_RADIX_TILE_MAX,
    RADIX_OS_ITEMS = 16,     /* default keys per invocation of a one-sweep tile (halved as RADIX_ITEMS) */
    RADIX_OS_ITEMS_GL = 6,   /* the same under GL (radix_plan_for says why) */
    RADIX_OS_PART_WORDS = SORT_OS_PART_WORDS,
    RADIX_OS_SUBGROUPS = 8,  /* default subgroups of a one-sweep work-group */
    RADIX_OS_SUBGROUPS_GL = 24, /* the same under GL */
    RADIX_OS_KEYS_ITEMS = 20,     /* a one-sweep tile of keys alone (radix_plan_for_keys says why) */
    RADIX_OS_KEYS_SUBGROUPS = 12, /* likewise; GL keeps the tile of sorts with payloads */
    RADIX_OS_KEYS_LARGE = 1 << 23, /* and only sorts of at least this many keys take it */
    RADIX_OS_TILE_MAX = 8192, /* a one-sweep tile stages its keys in parts: not bound by RADIX_TILE_MAX */
    RADIX_MAX_GROUPS = 2048, /* default, likewise */
    RADIX_ONESWEEP_MAX = 1 << 30, /* the one-sweep's status words count in 30 bits */
    RADIX_OS_HIST_GROUPS = 1024, /* work-groups counting the digits of every pass at once */
    RADIX_OS_TICKETS = SORT_OS_TICKETS, /* ticket words after the one-sweep's digit starts */
    RADIX_POLLS = 64,            /* default; ctx->plans.radix has the value in use */
    RADIX_SMALL_ITEMS = 16, /* default: at most this many keys per invocation of SMALL */
    RADIX_SMALL_SUBGROUPS = SORT_SMALL_SUBGROUPS, /* default subgroups of SMALL's group (at
                                 * least the shader's room; more through SORT_SHAPE_SUBGROUPS) */
    RADIX_SMALL_SUBGROUPS_GL = 32 /* NVIDIA's GL (H100): 2^12 keys in 32.4 us against 39.3 with
                                   * 16; Vulkan's 16 are 5-10% faster at 2^10-2^11 */
};
_Static_assert(BITONIC_WG * BITONIC_ITEMS == BITONIC_TILE && 1 << RADIX_BITS == RADIX_DIGITS,
               "the shader's tiles (sort_ids.h)");

/* An array of keys and their optional u32 payload as the stages see it.
 * With SORT_SEGMENTED the payload is each key's input index, and the key's
 * segment is the s with segs[s] <= index < segs[s + 1] (s < nseg). */
typedef struct sort_keys {
    gpgpu_type type;
    gpgpu_buffer *keys;
    size_t keys_off;
    gpgpu_buffer *pay; /* NULL: keys only */
    size_t pay_off;
    size_t n;
    unsigned flags;
    gpgpu_buffer *segs;
    size_t segs_off;
    size_t nseg;
    /* The radix sort's key passes, lowest byte first (0: every byte of the type), for a
     * caller who knows the higher bytes of the ordered key are alike in every key (SpGEMM's
     * columns below the column count): a pass over a byte that never differs keeps the order
     * it finds, so skipping it gives the same sort. The one-group sort (SMALL) runs them all. */
    unsigned key_passes;
    /* With SORT_PAYLOAD_IS_INDEX: the index the first element reads as its payload (a caller
     * sorting a range of a larger array in parts: SpGEMM's long rows, spgemm_esc_sort). */
    uint32_t index_base;
    /* The radix sort's ranges (0: none): elements [range_at[r], range_at[r + 1]) for r <
     * ranges (range_at[0] = 0, range_at[ranges] = n, nondecreasing) each sorted alone,
     * every element staying in its range. One-sweep passes take every range at once, each
     * in tiles of its own (radix_stage_os_counts); elsewhere each range is a sort of its
     * own. Not with SORT_SEGMENTED. SpGEMM's long rows sort in ranges of rows a pass
     * shorter (spgemm_esc_sort). */
    size_t ranges;
    const size_t *range_at;
    /* NULL, or a staged device count (algo/count.h): n is then the bound that sizes the
     * plans and dispatches, and the radix stages sort the first min(count, n) elements
     * alone, leaving the rest unread and unwritten. Radix stages only, without ranges. */
    gpgpu_buffer *count;
} sort_keys;

/* A dispatch of `stage` on a (keys at binding 0, payload at 2, segment
 * offsets at 5) with the parameters every stage reads. */
exec_dispatch sort_dispatch(const sort_keys *a, unsigned stage, unsigned wg, unsigned items);

/* ---------------------------------------------------------- bitonic */

/* The network over n elements, padded (virtually, by +inf) to nn = 2^ceil(log2 n):
 * for h = 2, 4, ..., nn: a REVERSE step of block h, then plain steps of block
 * h/2, h/4, ..., 2 (Kiciak's GPUNetSort; 1/2 log n (log n + 1) steps).
 *
 * STEP (h, reverse): for every pair index p < nn / 2, with b = p / (h/2) and
 * l = p % (h/2): i = b*h + l, j = reverse ? b*h + h-1-l : i + h/2; if j < n
 * and key i is greater than key j, the two (and their payloads) swap.
 * `classic` runs it with Kiciak's work-group size. */
gpgpu_status bitonic_stage_step(gpgpu_context *ctx, const sort_keys *a, uint32_t h, bool reverse,
                                bool classic);
/* STEPS: `count` (1..BITONIC_MAX_FUSED_LOG2) steps of blocks h, h/2, ...,
 * h/2^(count-1), all plain, or with `reverse` the first the reverse step of
 * block h, with exactly the compare-exchanges of that many STEPs, for
 * 2^count <= h <= nn (the padded length: the dispatch covers nn elements). */
gpgpu_status bitonic_stage_steps(gpgpu_context *ctx, const sort_keys *a, uint32_t h,
                                 unsigned count, bool reverse);
/* LOCAL_SORT: every aligned tile of BITONIC_TILE elements runs, in shared
 * memory, all steps of the network with h <= min(BITONIC_TILE, nn). */
gpgpu_status bitonic_stage_local_sort(gpgpu_context *ctx, const sort_keys *a);
/* LOCAL_MERGE: every tile runs the plain steps of blocks BITONIC_TILE,
 * BITONIC_TILE/2, ..., 2 (the end of a level h > tile): in shared memory, or in registers
 * where the tuning knob bitonic_registers says so (bitonic.c: Vulkan). A STEPS with
 * `reverse` runs that form's program whatever the knob. */
gpgpu_status bitonic_stage_local_merge(gpgpu_context *ctx, const sort_keys *a);

/* Whole sorts in place on a (payload as set up by the caller). */
gpgpu_status bitonic_sort_classic(gpgpu_context *ctx, const sort_keys *a);
gpgpu_status bitonic_sort_fast(gpgpu_context *ctx, const sort_keys *a);

/* ------------------------------------------------------------ radix */

/* How the radix stages split n elements: group g owns the contiguous run of
 * tiles [g * tiles_per_group, (g + 1) * tiles_per_group) of wg * items
 * elements. */
typedef struct radix_plan {
    uint32_t groups;
    uint32_t tiles_per_group;
    uint32_t wg, items;
    uint32_t os_wg, os_items; /* a one-sweep tile (ONESWEEP: one tile a group) */
    uint32_t os_subgroups;    /* the subgroups of os_wg its counters take (SORT_SHAPE_SUBGROUPS) */
    uint32_t os_rank_first;   /* ranks before counting the tile's digits (SORT_SHAPE_RANK_FIRST) */
    uint32_t small_subgroups; /* SMALL's plan: likewise for wg (0: the shader's 16) */
} radix_plan;

radix_plan radix_plan_for(gpgpu_context *ctx, gpgpu_type type, size_t n);
/* The plan of a sort of `keys`: radix_plan_for's, with a one-sweep tile of
 * its own where no payload is carried. */
radix_plan radix_plan_for_keys(gpgpu_context *ctx, const sort_keys *keys);

/* Passes over the key (4, or 8 for f64) and then over the segment index
 * (ceil(bits(nseg - 1) / 8), none for one segment). */
unsigned radix_key_passes(gpgpu_type type);
unsigned radix_passes(gpgpu_type type, size_t nseg);
/* The passes radix_sort runs for keys (past one work-group): the key passes it asks for
 * (sort_keys.key_passes), then the segment passes. Their parity says where the first pass
 * must read for the last to land in dst without a copy first. */
unsigned radix_sort_passes(const sort_keys *keys);

/* The digit of an element in pass p: byte p of the ordered key for
 * p < key passes, else byte (p - key passes) of its segment index. */

/* HIST: hist[hist_off + d * groups + g] = how many elements of group g's run
 * have digit d in pass `pass`. */
gpgpu_status radix_stage_hist(gpgpu_context *ctx, const sort_keys *src, unsigned pass,
                              radix_plan plan, gpgpu_buffer *hist, size_t hist_off);
/* SCATTER (after an exclusive scan of hist): element i of group g with digit
 * d goes to hist[d * groups + g] + (how many elements before it in g's run
 * have digit d), key and payload, into dst (dst->flags is not read). */
gpgpu_status radix_stage_scatter(gpgpu_context *ctx, const sort_keys *src, const sort_keys *dst,
                                 unsigned pass, radix_plan plan, gpgpu_buffer *hist,
                                 size_t hist_off);

/* Whether the key passes of a sort of n keys run one-sweep: the tuning knob
 * radix_onesweep and n < RADIX_ONESWEEP_MAX. */
bool radix_onesweep(const gpgpu_context *ctx, size_t n);
/* The one-sweep's words at hist_off: the digit starts of each key pass
 * (256 per pass; with ranges, of each range's passes in turn), RADIX_OS_TICKETS tickets
 * (tiles drawn in each pass), then two status regions of `tiles` x 256 words
 * (tile-major): bit 31 INCLUSIVE, bit 30 AGGREGATE, bits 0-29 the count; with ranges,
 * then each range's first tile and first element, and the tiles and n after the last. A
 * range's tiles are its own (radix_onesweep_tiles), the first tile of each range is
 * INCLUSIVE and none looks back past it. */
/* OS_CLEAR, OS_HIST, OS_SCAN: hist[hist_off + (r * key passes + p) * 256 + d] = where
 * the elements of digit d of range r (the whole array without ranges) start in the
 * output of key pass p (the range's first element plus the exclusive scan of the
 * range's counts of that pass); the tickets and both status regions zeroed; the ranges'
 * table written first. */
gpgpu_status radix_stage_os_counts(gpgpu_context *ctx, const sort_keys *src, radix_plan plan,
                                   gpgpu_buffer *hist, size_t hist_off);
/* ONESWEEP (after radix_stage_os_counts, status region pass % 2 zeroed
 * and ticket `pass` zero): exactly what HIST, the scan and SCATTER of key
 * pass `pass` do, in one dispatch of one work-group per tile of
 * plan.wg * plan.items elements. After it, ticket `pass` = tiles, region
 * pass % 2 holds INCLUSIVE | (count of digit d in tiles 0..t) at
 * (t, d), and region (pass + 1) % 2 is zero. */
gpgpu_status radix_stage_onesweep(gpgpu_context *ctx, const sort_keys *src, const sort_keys *dst,
                                  unsigned pass, radix_plan plan, gpgpu_buffer *hist,
                                  size_t hist_off);

/* The one-group sort (SMALL) of n elements: one work-group of plan.wg
 * invocations holding plan.items elements each, the fewest (a power of two)
 * that hold n, at most radix_small_items and what the device's shared
 * memory takes. */
radix_plan radix_small_plan(gpgpu_context *ctx, gpgpu_type type, size_t n);
/* Whether a radix sort of n elements is one SMALL dispatch: 0 < n <= its
 * tile, unless the tuning knob radix_small is 0. */
bool radix_small(gpgpu_context *ctx, gpgpu_type type, size_t n);
/* SMALL: every one of `passes` radix passes (radix_passes) of src in one
 * dispatch of one work-group, the result in dst (src may be dst); exactly
 * what the passes of HIST, the scan and SCATTER leave in the last pass's
 * destination. Needs n <= plan.wg * plan.items. */
gpgpu_status radix_stage_small(gpgpu_context *ctx, const sort_keys *src, const sort_keys *dst,
                               unsigned passes, radix_plan plan);

/* Sorts src into dst (keys and payload; src may be dst: in place), passing
 * through alt, with hist (radix_hist_count u32) and part (radix_part_count
 * u32) for the digit offsets. The first pass may take its payload as the
 * index (SORT_PAYLOAD_IS_INDEX in src->flags); dst and alt then have one. */
gpgpu_status radix_sort(gpgpu_context *ctx, const sort_keys *src, const sort_keys *dst,
                        const sort_keys *alt, gpgpu_buffer *hist, size_t hist_off,
                        gpgpu_buffer *part, size_t part_off);
size_t radix_hist_count(gpgpu_context *ctx, gpgpu_type type, size_t n);
/* The same for a sort of keys (in their ranges, if any: sort_keys.ranges). */
size_t radix_hist_count_for(gpgpu_context *ctx, const sort_keys *keys);
size_t radix_part_count_for(gpgpu_context *ctx, const sort_keys *keys);
/* At most how many words more than radix_hist_count (and radix_part_count) a sort in
 * `ranges` ranges takes, whatever their lengths, where it runs them at once. */
size_t radix_ranges_extra(gpgpu_type type, size_t ranges);
/* The tiles of a one-sweep pass over src (each range's own). */
size_t radix_onesweep_tiles(radix_plan plan, const sort_keys *src);
size_t radix_part_count(gpgpu_context *ctx, gpgpu_type type, size_t n);

/* ------------------------------------------------- helpers (sort.comp) */

/* IOTA: pay[i] = i for i < n. */
gpgpu_status sort_stage_iota(gpgpu_context *ctx, gpgpu_buffer *pay, size_t pay_off, size_t n);
/* GATHER: dst[i] = src[perm[i]] for i < n (u32). */
gpgpu_status sort_stage_gather(gpgpu_context *ctx, gpgpu_buffer *perm, size_t perm_off,
                               gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                               size_t dst_off, size_t n);

#endif /* GPGPU_ALGO_SORT_H */
