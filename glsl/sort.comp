// sort.comp: the sort family. Kiciak's bitonic network (one step per
// dispatch), the same network's steps inside a tile in shared memory, the
// LSD radix sort's histogram and stable scatter, and the driver's helpers.
// variants: TYPE=U32,I32,F32,F64
//
// Keys are only moved and compared, never computed with, so they are bound
// as their bits: uint for u32/i32/f32, uvec2 (low word first) for f64.
// Comparisons and digits use the "ordered key" of src/algo/sort.h.
//
// Stages (STAGE = params[0], numbered in src/algo/ids/sort_ids.h), by the part of
// glsl/sort/ that holds them; offsets and counts in elements. None is 0, which as
// ONLY_STAGE means the shared program (OWN_PROGRAM below). sort/order.glsl holds the
// ordered key and the comparison that every stage shares.
// sort/bitonic.glsl:
//   LOCAL_SORT   every tile of BTILE: all steps with h <= min(BTILE, nn)
//   LOCAL_MERGE  every tile: the plain steps of blocks BTILE .. 2
//   STEPS        COUNT network steps of blocks H, H/2, ..., in registers (the
//                first may be the reverse one)
//   STEP         one network step (block H, REVERSE) on keys_a / pay_a, in place
// sort/radix.glsl (and the tile ranking the other radix parts share):
//   HIST         radix pass PASS: per-group digit counts into aux
//   SCATTER      radix pass PASS: keys_a/pay_a -> keys_b/pay_b at the scanned offsets
// sort/onesweep.glsl:
//   OS_CLEAR     one-sweep radix: zero the digit counts and tickets in aux
//   OS_HIST      one-sweep radix: every key pass's digit counts in one read
//   OS_SCAN      one-sweep radix (a group per range): counts -> each digit's start
//   ONESWEEP     one-sweep radix pass PASS: rank a tile, look back, scatter
// sort/small.glsl:
//   SMALL        one work-group: every radix pass (PASSES) of the whole array
// main (here):
//   IOTA         pay_b[i] = i
//   GATHER       pay_b[i] = aux[pay_a[i]]

#if defined(TYPE_F64)
#define KEY uvec2
#define KEY_PASSES 8u
#else
#define KEY uint
#define KEY_PASSES 4u
#endif

// No `restrict`: in-place sorts bind one buffer to several points.
layout(std430, binding = 0) buffer KeysA { KEY keys_a[]; };
layout(std430, binding = 1) buffer KeysB { KEY keys_b[]; };
layout(std430, binding = 2) buffer PayA { uint pay_a[]; };
layout(std430, binding = 3) buffer PayB { uint pay_b[]; };
layout(std430, binding = 4) buffer Aux { uint aux[]; };
layout(std430, binding = 5) readonly buffer Segs { uint segs[]; };

// The count: params[SORT_P_N], or with bit 31 set the count on the GPU it bounds (device_count,
// common.glsl; the radix stages of a sort given a count_buffer), read once by main.
uint g_n;
#define N               g_n
#define KEY_OFF_A       params[SORT_P_KEY_OFF_A]
#define KEY_OFF_B       params[SORT_P_KEY_OFF_B]
#define PAY_OFF_A       params[SORT_P_PAY_OFF_A]
#define PAY_OFF_B       params[SORT_P_PAY_OFF_B]
#define AUX_OFF         params[SORT_P_AUX_OFF]
#define SEG_OFF         params[SORT_P_SEG_OFF]
#define NSEG            params[SORT_P_NSEG]
#define FLAGS           params[SORT_P_FLAGS]
#define H               params[SORT_P_H] /* network stages: the block */
#define PASS            params[SORT_P_PASS] /* radix stages: the pass */
#define PASSES          params[SORT_P_PASSES] /* SMALL: how many passes */
#define REVERSE         params[SORT_P_REVERSE] /* STEP */
#define TILES_PER_GROUP params[SORT_P_TILES_PER_GROUP] /* radix stages */
#define GROUPS          params[SORT_P_GROUPS] /* radix stages */
#define STEPS_REVERSE   params[SORT_P_STEPS_REVERSE] /* STEPS: the first step is the reverse one */
#define COUNT           params[SORT_P_COUNT] /* STEPS: how many steps */
#define OS_POLLS        params[SORT_P_POLLS] /* ONESWEEP: reads of a missing status */
#define IOTA_BASE       params[SORT_P_INDEX_BASE] /* PAYLOAD_IS_INDEX: the first element's index */
#define NRANGES         params[SORT_P_RANGES] /* one-sweep stages: ranges (0: one, all N) */

// FLAGS: sort_keys.flags (SORT_DESCENDING ..., sort_ids.h), and SORT_FLAG_PAYLOAD where a
// payload is bound.

bool flag(uint f) { return (FLAGS & f) != 0u; }

#define BTILE SORT_BITONIC_TILE // the bitonic tile
#define DIGITS SORT_DIGITS
// Subgroups (or virtual ones) per work-group in the radix stages: SMALL,
// one group alone on the device, takes at least twice as many. SMALL's and
// ONESWEEP's work-groups may hold more (SORT_SHAPE_SUBGROUPS from the driver,
// made even: the counters of two subgroups share a word). (No `&&` in it:
// glslang wrote invalid SPIR-V for that, which the build now catches with
// spirv-val.)
#define OS_SG ((SORT_SHAPE_SUBGROUPS + 1u) & ~1u)
#define SMALL_SG (OS_SG > SORT_SMALL_SUBGROUPS ? OS_SG : SORT_SMALL_SUBGROUPS)
#define OS_MAX_SG (OS_SG > SORT_MAX_SUBGROUPS ? OS_SG : SORT_MAX_SUBGROUPS)
#define MAX_SG (ONLY_STAGE == SORT_STAGE_SMALL      ? SMALL_SG                         \
                : ONLY_STAGE == SORT_STAGE_ONESWEEP ? OS_MAX_SG : SORT_MAX_SUBGROUPS)
#define RTILE_MAX SORT_RADIX_TILE_MAX // the largest radix tile (WG_SIZE * ITEMS) the driver uses

// Shared memory, one array for every stage (a program holds all stages, so
// separate arrays would add up): the bitonic tile's keys and payloads, or
// the radix stages' counters.
#if defined(TYPE_F64)
#define KEY_WORDS 2u
#else
#define KEY_WORDS 1u
#endif
// The radix regions grow with the dispatch's tile (WG_SIZE * ITEMS, at most
// RTILE_MAX; radix_shared_bytes in src/algo/radix.c is the same sum), so the
// array's size is a specialization-constant expression under Vulkan. The
// layout (sort/radix.glsl, "Regions of s_mem") keeps the stages of a tile small:
// subgroup counters two to a word, regions reused once they are dead.
#define S_WORDS_BITONIC (BTILE * (KEY_WORDS + 1u))
// ONESWEEP (in its own program) stages its tile in parts of OS_PART_WORDS words
// (OS_SLOTS keys), which hold the look-back's three words per digit before that.
#define OS_PART_WORDS SORT_OS_PART_WORDS
#define OS_SLOTS (OS_PART_WORDS / KEY_WORDS)
#define S_RTILE_CAP (ONLY_STAGE == SORT_STAGE_ONESWEEP ? OS_SLOTS : RTILE_MAX)
#define S_RTILE (WG_SIZE * ITEMS < S_RTILE_CAP ? WG_SIZE * ITEMS : S_RTILE_CAP)
#define S_STAGE_WORDS \
    S_WORDS_MAX2(S_RTILE * KEY_WORDS, ONLY_STAGE == SORT_STAGE_ONESWEEP ? 3u * DIGITS : 0u)
#ifdef SUBGROUPS
#define S_DIG_WORDS 32u
#else
#define S_DIG_WORDS (WG_SIZE > 32u ? WG_SIZE : 32u)
#endif
#define S_CNT_WORDS (MAX_SG / 2u * DIGITS)
// SCATTER, ONESWEEP and SMALL: counters, tile totals and starts, S_DIG, the
// staged tile.
#define S_WORDS_RADIX (S_CNT_WORDS + 2u * DIGITS + S_DIG_WORDS + S_STAGE_WORDS)
#define S_WORDS_HIST (MAX_SG * DIGITS)
// A program declares the shared memory of the stages it runs: on NVIDIA the
// groups on a multiprocessor share about 48 KB of it (docs/PERFORMANCE.md),
// so a stage that needs little runs more groups at once in a program of its
// own (ONLY_STAGE): LOCAL_SORT and LOCAL_MERGE the bitonic tile, HIST the
// subgroups' counters, OS_HIST every pass's counts, SCATTER, ONESWEEP and
// SMALL the radix tile. Vulkan only: there ONLY_STAGE is a specialization constant
// and the other stages' code stays unchecked; GL compilers (NVIDIA's and
// Mesa's) reject their constant indices past the smaller array, dead or not.
#define S_WORDS_MAX2(a, b) ((a) > (b) ? (a) : (b))
#define S_WORDS_FAMILY S_WORDS_MAX2(S_WORDS_MAX2(S_WORDS_BITONIC, S_WORDS_RADIX), S_WORDS_HIST)
#ifdef VULKAN
#define S_WORDS                                                                          \
    (ONLY_STAGE == SORT_STAGE_LOCAL_SORT || ONLY_STAGE == SORT_STAGE_LOCAL_MERGE         \
         ? S_WORDS_BITONIC                                                               \
     : ONLY_STAGE == SORT_STAGE_HIST    ? S_WORDS_HIST                                   \
     : ONLY_STAGE == SORT_STAGE_OS_HIST ? KEY_PASSES * DIGITS                            \
     : ONLY_STAGE == SORT_STAGE_SCATTER || ONLY_STAGE == SORT_STAGE_ONESWEEP ||          \
               ONLY_STAGE == SORT_STAGE_SMALL                                            \
         ? S_WORDS_RADIX                                                                 \
         : S_WORDS_FAMILY)
#else
#define S_WORDS S_WORDS_FAMILY
#endif
shared uint s_mem[S_WORDS];

#include "sort/order.glsl"

uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

#include "sort/bitonic.glsl"
#include "sort/radix.glsl"
#include "sort/onesweep.glsl"
#include "sort/small.glsl"

// ---------------------------------------------------------------- helpers

// The tile stages and STEP run in programs of their own only (ONLY_STAGE:
// the driver's sort_dispatch builds them so); the family's shared program
// leaves their code out, and builds in a fraction of the time on a CPU
// driver.
#define OWN_PROGRAM (ONLY_STAGE != 0u)

void main()
{
    uint iid = invocation_index();
    g_n = device_count(params[SORT_P_N]);
    switch (STAGE) {
    case SORT_STAGE_LOCAL_SORT:
        if (OWN_PROGRAM)
            stage_local_sort();
        return;
    case SORT_STAGE_LOCAL_MERGE:
        if (OWN_PROGRAM)
            stage_local_merge();
        return;
    case SORT_STAGE_HIST:
        if (OWN_PROGRAM)
            stage_hist();
        return;
    case SORT_STAGE_SCATTER:
        if (OWN_PROGRAM)
            stage_scatter();
        return;
    case SORT_STAGE_IOTA:
        if (iid < N)
            pay_b[PAY_OFF_B + iid] = iid;
        return;
    case SORT_STAGE_STEPS:
        stage_steps();
        return;
    case SORT_STAGE_OS_CLEAR:
        stage_os_clear();
        return;
    case SORT_STAGE_OS_HIST:
        if (OWN_PROGRAM)
            stage_os_hist();
        return;
    case SORT_STAGE_OS_SCAN:
        stage_os_scan();
        return;
    case SORT_STAGE_ONESWEEP:
        if (OWN_PROGRAM)
            stage_onesweep();
        return;
    case SORT_STAGE_SMALL:
        if (OWN_PROGRAM)
            stage_small();
        return;
    case SORT_STAGE_STEP:
        if (OWN_PROGRAM)
            stage_step();
        return;
    case SORT_STAGE_GATHER:
        if (iid < N)
            pay_b[PAY_OFF_B + iid] = aux[AUX_OFF + pay_a[PAY_OFF_A + iid]];
        return;
    default:
        return;
    }
}
