// onesweep_port.cu: a CUDA port of glsl/sort.comp's one-sweep radix sort
// (OS_CLEAR, OS_HIST, OS_SCAN, ONESWEEP), u32 keys only, ascending, no
// payload, no ranges, as a diagnostic against cub::DeviceRadixSort on one
// device. The shader's names and structure are kept (stage_onesweep,
// rank_in_subgroup / match_digit32, cnt_add / cnt_get / cnt_word / cnt_clear,
// tile_totals, digit_starts, read_window / take_status / take_window /
// lookback_walk, write_staged_key, os_count / os_flush, stage_os_hist,
// stage_os_scan); the compile-time variants (struct Cfg) switch single
// traits of the pass, one at a time, towards CUB's one-sweep kernel.
//
// Build:  nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -o onesweep_port onesweep_port.cu
// Run:    onesweep_port [--sizes 24,28] [--n N,...] [--variants a,b,...]
//                       [--runs 8] [--warmup 2] [--warmup-ms 200] [--polls 64] [--vk48]
//                       [--no-selftest]
//
// The kernel code also compiles as host C++ with EMU defined (emu_test.cpp in
// this folder runs it on fibers, one per invocation, to check it without a GPU).

#include <cstdint>
#include <cstdio>

typedef uint32_t u32;

#ifndef EMU
#define DEV __device__ __forceinline__
#else
#define DEV inline
#endif

namespace os {

// ------------------------------------------------------------------ constants

constexpr u32 DIGITS = 256u;
constexpr u32 KEY_PASSES = 4u;
constexpr u32 OS_FLAG_AGG = 0x40000000u;
constexpr u32 OS_FLAG_INCL = 0x80000000u;
constexpr u32 OS_FLAGS = OS_FLAG_AGG | OS_FLAG_INCL;
constexpr u32 OS_EPOCH = 0x20000000u; // EPOCH variants: the pass's parity
constexpr u32 LB_WINDOW = 4u;
constexpr u32 OS_TICKET_WORDS = 8u;
constexpr u32 NO_RANK = 0xffffu;
constexpr u32 SGS = 32u; // the subgroup: one warp

// aux (no ranges): each pass's digit starts (OS_STARTS), a ticket per pass
// (OS_TICKETS), then two status regions of `tiles` x 256 words.
constexpr u32 OS_STARTS = 0u;
constexpr u32 OS_TICKETS = KEY_PASSES * DIGITS;
constexpr u32 OS_CLEARED = KEY_PASSES * DIGITS + OS_TICKET_WORDS; // OS_CLEAR's words
DEV u32 os_status(u32 region, u32 tiles) { return OS_TICKETS + OS_TICKET_WORDS + region * tiles * DIGITS; }
DEV u32 os_start(u32 pass, u32 d) { return OS_STARTS + pass * DIGITS + d; }
inline size_t aux_words(u32 tiles) { return (size_t)OS_CLEARED + 2u * (size_t)tiles * DIGITS; }

DEV u32 umin(u32 a, u32 b) { return a < b ? a : b; }

// u32, ascending: the ordered key is the key (the shader's key_order also
// selects ~o under a run-time F_DESCENDING flag; not ported, see the notes).
DEV u32 key_order(u32 raw) { return raw; }
DEV u32 ord_byte(u32 o, u32 p) { return (o >> (p * 8u)) & 0xffu; }

// --------------------------------------------------------- device primitives

#ifndef EMU
// The status words: relaxed device-scope atomic loads and stores (the
// shader's atomicLoad / atomicStore, gl_ScopeDevice, gl_SemanticsRelaxed).
// (ld/st.relaxed.gpu.global: what cuda::atomic_ref<u32, thread_scope_device>
// with memory_order_relaxed emits, less its generic addressing.)
DEV u32 status_load(u32 *p)
{
    u32 v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
DEV void status_store(u32 *p, u32 v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v));
}
DEV u32 lanemask_lt()
{
    u32 m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}
#define SYNC() __syncthreads()
#define SUBGROUP_BARRIER() __syncwarp() /* subgroupMemoryBarrierShared(); subgroupBarrier() */
#define BALLOT(p) __ballot_sync(0xffffffffu, (p))
#define SHUFFLE(v, l) __shfl_sync(0xffffffffu, (v), (l))
#define SHUFFLE_UP(v, o) __shfl_up_sync(0xffffffffu, (v), (o))
#define UNROLL _Pragma("unroll")
#define ROLLED _Pragma("unroll 1")
#else
// emu_test.cpp defines these before including this file.
DEV u32 lanemask_lt() { return (1u << (threadIdx.x % 32u)) - 1u; }
#define UNROLL
#define ROLLED
#endif

// ------------------------------------------------------------------ variants
//
// WG x ITEMS        the tile (the shader: WG_SIZE x ITEMS, subgroups of 32)
// RANK_FIRST        rank each warp's keys from zero, then tile_totals (the shader's
//                   SHAPE3, default on Vulkan); else count first, rank from offsets
// WIDE              32-bit counters, a word per (warp, digit); else 16-bit halves,
//                   two warps a word (the shader)
// SLOTS             keys staged at once (OS_SLOTS; the shader's 2048: two parts)
// STAGE_EARLY       stage the whole tile in shared memory before the look-back
//                   (CUB's order), the look-back state in a region of its own
// PACK              16-bit ranks two to a register (the shader); else a word each
// PAD               CUB's partial tile: missing keys are 0xffffffff (digit 255,
//                   ranked after every real key), no ballot of the valid lanes
// DS_WARP           digit_starts by warp scans for any WG >= 256 (the shader
//                   takes that path only when WG == 256)
// MINB              __launch_bounds__ minimum blocks (1: none)
// EPOCH             the status scheme of the working tree's sort.comp (not HEAD's):
//                   one region that no pass clears, each status carrying its
//                   pass's parity (OS_EPOCH), counts in 29 bits; else HEAD's two
//                   regions, each pass clearing the next one's statuses
template <u32 WG_, u32 ITEMS_, bool RANK_FIRST_, bool WIDE_, u32 SLOTS_, bool STAGE_EARLY_, bool PACK_,
          bool PAD_, bool DS_WARP_, u32 MINB_, bool EPOCH_ = false, bool UNION_ = false>
struct Cfg {
    static constexpr u32 WG = WG_, ITEMS = ITEMS_, TILE = WG * ITEMS, MINB = MINB_;
    static constexpr bool EPOCH = EPOCH_, UNION = UNION_;
    static constexpr u32 OS_COUNT = EPOCH ? 0x1fffffffu : 0x3fffffffu;
    static constexpr u32 REGIONS = EPOCH ? 1u : 2u;
    static constexpr bool RANK_FIRST = RANK_FIRST_, WIDE = WIDE_, STAGE_EARLY = STAGE_EARLY_,
                          PACK = PACK_, PAD = PAD_;
    static constexpr u32 SG = WG / SGS;                       // gl_NumSubgroups
    static constexpr u32 OS_SG = (SG + 1u) & ~1u;             // made even
    static constexpr u32 MAX_SG = OS_SG > 8u ? OS_SG : 8u;    // the counters' room
    static constexpr u32 CNT_WORDS = WIDE ? MAX_SG * DIGITS : MAX_SG / 2u * DIGITS;
    static constexpr u32 OS_SLOTS = SLOTS_;
    static constexpr u32 RTILE = TILE < OS_SLOTS ? TILE : OS_SLOTS;
    static constexpr u32 OS_PARTS = (TILE + OS_SLOTS - 1u) / OS_SLOTS;
    static constexpr u32 DIG_WORDS = 32u;
    static constexpr u32 LB_WORDS = 3u * DIGITS;
    static constexpr u32 STAGE_WORDS = STAGE_EARLY ? RTILE : (RTILE > LB_WORDS ? RTILE : LB_WORDS);
    // Regions of s_mem (words), as the shader's; UNION (with STAGE_EARLY): the
    // staged tile over the counters, which the ranks no longer need then (as
    // CUB's temporary storage), so a group needs about its tile's keys and
    // 5 KB of state.
    static constexpr u32 CNT_ROOM = UNION ? (CNT_WORDS > STAGE_WORDS ? CNT_WORDS : STAGE_WORDS) : CNT_WORDS;
    static constexpr u32 S_CNT = 0u;
    static constexpr u32 S_TOT = S_CNT + CNT_ROOM;
    static constexpr u32 S_START = S_TOT + DIGITS;
    static constexpr u32 S_DIG = S_START + DIGITS;
    static constexpr u32 S_STAGE = UNION ? S_CNT : S_DIG + DIG_WORDS;
    static constexpr u32 S_LB = UNION ? S_DIG + DIG_WORDS : STAGE_EARLY ? S_STAGE + STAGE_WORDS : S_STAGE;
    static constexpr u32 S_WORDS = UNION ? S_LB + LB_WORDS
                                         : S_STAGE + STAGE_WORDS + (STAGE_EARLY ? LB_WORDS : 0u);
    static constexpr u32 S_LB_SUM = S_LB;
    static constexpr u32 S_LB_LEFT = S_LB + DIGITS;
    static constexpr u32 S_RECOUNT = S_LB + 2u * DIGITS;
    static constexpr u32 S_ONESWEEP_OUT = S_TOT;
    static constexpr u32 S_LB_STUCK = S_DIG;
    static constexpr u32 S_TICKET = S_DIG;
    static constexpr u32 S_RANGE = S_DIG + 1u;
    static constexpr bool DS_WARP = WG == DIGITS || (DS_WARP_ && WG > DIGITS);
    static constexpr u32 RANK_WORDS = PACK ? (ITEMS + 1u) / 2u : ITEMS;
    static_assert(WG % SGS == 0u, "whole warps");
    static_assert(TILE <= 32768u || (WIDE && !PACK), "16-bit counters and ranks: a tile of at most 32768 keys");
    static_assert(!STAGE_EARLY || OS_PARTS == 1u, "staging before the look-back needs the whole tile");
    static_assert(!UNION || STAGE_EARLY, "the tile over the counters: staged once, after the ranks");
    static_assert(SG <= 32u, "digit_starts keeps 32 subgroup sums");
};

// MINB: the shader's Vulkan build has 80 registers (docs/PERFORMANCE.md, 3
// groups of 256 a multiprocessor); nvcc left alone gives this kernel 154 (one
// group of 256 a multiprocessor), so the 256-wide variants are held to 80 by
// __launch_bounds__(256, 3), and the 384-wide ones to 80 by (384, 2), the
// occupancy CUB's own one-sweep kernel has (74 registers, 2 groups of 384).
//                  WG  ITEMS RANK1  WIDE   SLOTS STAGE1 PACK   PAD    DSWARP MINB
using C_ours    = Cfg<256, 16, true,  false, 2048, false, true,  false, false, 3>;
using C_count   = Cfg<256, 16, false, false, 2048, false, true,  false, false, 3>;
using C_wide    = Cfg<256, 16, true,  true,  2048, false, true,  false, false, 3>;
using C_whole   = Cfg<256, 16, true,  false, 4096, false, true,  false, false, 3>;
using C_cubsh   = Cfg<384, 20, true,  true,  7680, false, true,  false, false, 2>;
using C_occ4    = Cfg<256, 16, true,  false, 2048, false, true,  false, false, 4>;
using C_cublike = Cfg<384, 20, false, true,  7680, true,  false, true,  true,  2>;
// CUB's traits that take no shared memory of their own, one at a time on ours:
// PAD (no ballot of the valid lanes: 8 ballots a key, not 9; the last tile's
// missing keys rank as digit 255 after every real key, their writes skipped)
// is the only one ours lacks. Ours already takes the warp-scan digit_starts
// (DS_WARP: WG == DIGITS), and count_first already publishes the tile's
// AGGREGATE statuses right after its count (tile_totals), before ranking;
// so no variants of those, and no "all of them" beyond no_valid_ballot.
using C_noval   = Cfg<256, 16, true,  false, 2048, false, true,  true,  false, 3>;
// Not in the list (at most 7): ours with the working tree's status scheme, and
// occ4; add make_variant<os::C_epoch>("epoch", ...) to all_variants() to time it.
using C_epoch   = Cfg<256, 16, true,  false, 2048, false, true,  false, false, 3, true>;
// cub_like in the room Vulkan's ~48 KB rule leaves (UNION: the staged tile over
// the counters): two groups of 384 in 22 KB each, three of 256 in 14 KB, or
// one of 768 / 512 with CUB's whole multiprocessor tile.
//                  WG  ITEMS RANK1  WIDE   SLOTS STAGE1 PACK   PAD    DSWARP MINB EPOCH  UNION
using C_u384x11 = Cfg<384, 11, false, true,  4224, true,  false, true,  true,  2,   false, true>;
using C_u256x9  = Cfg<256,  9, false, true,  2304, true,  false, true,  true,  3,   false, true>;
using C_u768x10 = Cfg<768, 10, false, true,  7680, true,  false, true,  true,  1,   false, true>;
using C_u512x15 = Cfg<512, 15, false, true,  7680, true,  false, true,  true,  1,   false, true>;
using C_u384x20 = Cfg<384, 20, false, true,  7680, true,  false, true,  true,  2,   false, true>;
// More keys a multiprocessor in registers, staged in parts of ours (2048 or
// 2560 slots) so the ~48 KB rule still holds 3 groups of 256 (14 KB each) or 2
// of 384 (18 KB): CUB has 15360 keys a multiprocessor in flight, ours 12288.
using C_i256x20 = Cfg<256, 20, true,  false, 2048, false, true,  true,  false, 3>;
using C_i256x24 = Cfg<256, 24, true,  false, 2048, false, true,  true,  false, 3>;
using C_i256x24b= Cfg<256, 24, true,  false, 2048, false, true,  true,  false, 2>;
using C_i256x32b= Cfg<256, 32, true,  false, 2048, false, true,  true,  false, 2>;
using C_i384x20 = Cfg<384, 20, true,  false, 2560, false, true,  true,  true,  2>;
using C_i384x20c= Cfg<384, 20, false, false, 2560, false, true,  true,  true,  2>;
// Registers capped by the group's size alone (what a shader compiler must do;
// NVIDIA's Vulkan compiler gave 256 x 24 128 registers, 2 groups): one group
// of 768 has at most 85.
using C_w768x16 = Cfg<768, 16, true,  false, 2048, false, true,  true,  true,  1>;
using C_w768x20 = Cfg<768, 20, true,  false, 2048, false, true,  true,  true,  1>;
using C_w768x24 = Cfg<768, 24, true,  false, 2048, false, true,  true,  true,  1>;
using C_w768x24c= Cfg<768, 24, false, false, 2048, false, true,  true,  true,  1>;
using C_i384x24 = Cfg<384, 24, true,  false, 2048, false, true,  true,  true,  2>;

struct OsParams {
    const u32 *keys_a; // this pass's input
    u32 *keys_b;       // its output
    u32 *aux;
    u32 n;             // N
    u32 pass;          // PASS
    u32 tiles;         // GROUPS (OS_TILES)
    u32 polls;         // OS_POLLS
};

// ------------------------------------------------------------------ counters
//
// Subgroup s's counter of digit d: a 16-bit half of a word (two subgroups a
// word), or a word of its own (WIDE).
template <class C> DEV u32 cnt_word(u32 s, u32 d)
{
    return C::WIDE ? C::S_CNT + s * DIGITS + d : C::S_CNT + (s >> 1) * DIGITS + d;
}
template <class C> DEV u32 cnt_shift(u32 s) { return C::WIDE ? 0u : (s & 1u) * 16u; }
template <class C> DEV u32 cnt_get(u32 *s_mem, u32 s, u32 d)
{
    if (C::WIDE)
        return s_mem[cnt_word<C>(s, d)];
    return (s_mem[cnt_word<C>(s, d)] >> cnt_shift<C>(s)) & 0xffffu;
}
template <class C> DEV u32 cnt_add(u32 *s_mem, u32 s, u32 d, u32 v)
{
    if (C::WIDE)
        return atomicAdd(&s_mem[cnt_word<C>(s, d)], v);
    return (atomicAdd(&s_mem[cnt_word<C>(s, d)], v << cnt_shift<C>(s)) >> cnt_shift<C>(s)) & 0xffffu;
}
template <class C> DEV void cnt_clear(u32 *s_mem)
{
    for (u32 w = threadIdx.x; w < C::CNT_WORDS; w += C::WG)
        s_mem[C::S_CNT + w] = 0u;
}

// The valid lanes of this warp holding digit d (BALLOT32's match_digit32);
// every lane calls it. PAD: every lane is valid, no ballot of them.
template <class C> DEV u32 match_digit32(u32 d, bool valid)
{
    u32 m = C::PAD ? 0xffffffffu : BALLOT(valid);
    UNROLL for (u32 b = 0u; b < 8u; b++) {
        bool bit = ((d >> b) & 1u) != 0u;
        u32 v = BALLOT(bit);
        m &= bit ? v : ~v;
    }
    return m;
}

// The rank of this lane's key (digit d) among the keys of digit d its warp
// has ranked so far; the warp's counter of d grows by their number: the last
// of them adds it and passes the count before to the others.
template <class C> DEV u32 rank_in_subgroup(u32 *s_mem, u32 d, bool valid)
{
    u32 lane = threadIdx.x % SGS, sg = threadIdx.x / SGS;
    u32 m = match_digit32<C>(d, valid);
    u32 last = valid ? 31u - (u32)__clz(m) : lane;
    u32 seen = 0u;
    if (valid && lane == last)
        seen = cnt_add<C>(s_mem, sg, d, (u32)__popc(m));
    SUBGROUP_BARRIER();
    return SHUFFLE(seen, last) + (u32)__popc(m & lanemask_lt());
}

// Each warp's counters become its offset among the tile's keys of each digit
// (an exclusive scan over warps), S_TOT the tile's totals.
template <class C> DEV void tile_totals(u32 *s_mem)
{
    for (u32 d = threadIdx.x; d < DIGITS; d += C::WG) {
        u32 run = 0u;
        if (C::WIDE) {
            for (u32 s = 0u; s < C::SG; s++) {
                u32 c = s_mem[cnt_word<C>(s, d)];
                s_mem[cnt_word<C>(s, d)] = run;
                run += c;
            }
        } else {
            // A pair of warps a word (the half of a missing one holds 0).
            for (u32 s = 0u; s < C::SG; s += 2u) {
                u32 w = s_mem[cnt_word<C>(s, d)];
                u32 lo = w & 0xffffu, hi = w >> 16;
                s_mem[cnt_word<C>(s, d)] = run | ((run + lo) << 16);
                run += lo + hi;
            }
        }
        s_mem[C::S_TOT + d] = run;
    }
}

// The exclusive scan of the inclusive warp sums below: subgroupExclusiveAdd.
DEV u32 subgroup_exclusive_add(u32 t)
{
    u32 lane = threadIdx.x % SGS, v = t;
    UNROLL for (u32 o = 1u; o < SGS; o <<= 1) {
        u32 y = SHUFFLE_UP(v, o);
        if (lane >= o)
            v += y;
    }
    return v - t;
}

// S_START = the exclusive prefix sums of S_TOT. WG == DIGITS (or DS_WARP): a
// warp scan per 32 digits and the sums of the warps before; else the
// shader's 32 sums of 8 digits scanned Hillis-Steele (a dozen barriers).
template <u32 WG, bool DS_WARP, u32 S_TOT, u32 S_START, u32 S_DIG> DEV void digit_starts(u32 *s_mem)
{
    u32 lid = threadIdx.x;
    if (DS_WARP) {
        u32 t = 0u, x = 0u;
        if (lid < DIGITS) {
            t = s_mem[S_TOT + lid];
            x = subgroup_exclusive_add(t);
            if (lid % SGS == SGS - 1u)
                s_mem[S_DIG + lid / SGS] = x + t;
        }
        SYNC();
        if (lid < DIGITS) {
            for (u32 s = 0u; s < lid / SGS; s++)
                x += s_mem[S_DIG + s];
            s_mem[S_START + lid] = x;
        }
        SYNC();
        return;
    }
    u32 sum = 0u;
    if (lid < 32u) {
        for (u32 k = 0u; k < 8u; k++)
            sum += s_mem[S_TOT + lid * 8u + k];
        s_mem[S_DIG + lid] = sum;
    }
    SYNC();
    for (u32 step = 1u; step < 32u; step <<= 1) {
        u32 v = lid < 32u && lid >= step ? s_mem[S_DIG + lid - step] : 0u;
        SYNC();
        if (lid < 32u)
            s_mem[S_DIG + lid] += v;
        SYNC();
    }
    if (lid < 32u) {
        u32 run = s_mem[S_DIG + lid] - sum;
        for (u32 k = 0u; k < 8u; k++) {
            u32 d = lid * 8u + k;
            u32 t = s_mem[S_TOT + d];
            s_mem[S_START + d] = run;
            run += t;
        }
    }
    SYNC();
}

// ------------------------------------------------------------------ look-back

// EPOCH: this pass's parity bit; whether status st was written in this pass.
template <class C> DEV u32 os_epoch(u32 pass) { return C::EPOCH && (pass & 1u) != 0u ? OS_EPOCH : 0u; }
template <class C> DEV bool os_published(u32 st, u32 epoch)
{
    if (C::EPOCH)
        return (st & OS_FLAGS) != 0u && (st & OS_EPOCH) == epoch;
    return (st & OS_FLAGS) != 0u;
}

// The statuses of tiles left - 1, left - 2, ... (LB_WINDOW of them) for digit
// d; before tile lo an inclusive zero.
template <class C>
DEV void read_window(u32 *aux, u32 region, u32 epoch, u32 d, u32 lo, u32 left, u32 (&st)[LB_WINDOW])
{
    UNROLL for (u32 j = 0u; j < LB_WINDOW; j++)
        st[j] = j < left - lo ? status_load(&aux[region + (left - 1u - j) * DIGITS + d]) : OS_FLAG_INCL | epoch;
}

// Adds the count of a published status of tile left - 1 and steps past it
// (to lo when it is inclusive).
template <class C> DEV void take_status(u32 st, u32 lo, u32 &left, u32 &sum)
{
    sum += st & C::OS_COUNT;
    left = (st & OS_FLAG_INCL) != 0u ? lo : left - 1u;
}

// Adds the counts of a window read at `left`, nearest first, up to the first
// inclusive one or the first missing one; whether one was missing.
template <class C> DEV bool take_window(const u32 (&st)[LB_WINDOW], u32 epoch, u32 lo, u32 &left, u32 &sum)
{
    bool open = true, missing = false;
    UNROLL for (u32 j = 0u; j < LB_WINDOW; j++) {
        if (!open)
            continue;
        if (!os_published<C>(st[j], epoch)) {
            missing = true;
            open = false;
            continue;
        }
        take_status<C>(st[j], lo, left, sum);
        open = left > lo;
    }
    return missing;
}

// Walks back from tile `left` - 1 for digit d until an inclusive count, the
// first tile, or a tile with no status after OS_POLLS reads (then S_LB_STUCK).
template <class C>
DEV void lookback_walk(const OsParams &P, u32 *s_mem, u32 region, u32 epoch, u32 d, u32 lo)
{
    u32 left = s_mem[C::S_LB_LEFT + d], sum = s_mem[C::S_LB_SUM + d];
    while (left > lo) {
        u32 st[LB_WINDOW];
        read_window<C>(P.aux, region, epoch, d, lo, left, st);
        if (!take_window<C>(st, epoch, lo, left, sum))
            continue;
        u32 st1 = 0u;
        for (u32 poll = 0u; poll < P.polls && !os_published<C>(st1, epoch); poll++)
            st1 = status_load(&P.aux[region + (left - 1u) * DIGITS + d]);
        if (!os_published<C>(st1, epoch)) {
            atomicMax(&s_mem[C::S_LB_STUCK], left);
            break;
        }
        take_status<C>(st1, lo, left, sum);
    }
    s_mem[C::S_LB_LEFT + d] = left;
    s_mem[C::S_LB_SUM + d] = sum;
}

// ------------------------------------------------------------------ ONESWEEP

template <class C> DEV void rank_set(u32 (&rank)[C::RANK_WORDS], u32 it, u32 v)
{
    if (C::PACK)
        rank[it / 2u] |= v << (it % 2u * 16u);
    else
        rank[it] = v;
}
template <class C> DEV void rank_add(u32 (&rank)[C::RANK_WORDS], u32 it, u32 v)
{
    if (C::PACK)
        rank[it / 2u] += v << (it % 2u * 16u);
    else
        rank[it] += v;
}
template <class C> DEV u32 rank_of(const u32 (&rank)[C::RANK_WORDS], u32 it)
{
    return C::PACK ? (rank[it / 2u] >> (it % 2u * 16u)) & 0xffffu : rank[it];
}

// The key of tile slot q, staged at q - first, goes to where its digit's run
// of the tile goes (s_mem[runs + d], less the run's start in the tile) plus q.
template <class C> DEV u32 write_staged_key(const OsParams &P, u32 *s_mem, u32 runs, u32 q, u32 first)
{
    u32 kq = s_mem[C::S_STAGE + q - first];
    u32 d = ord_byte(key_order(kq), P.pass);
    u32 at = s_mem[runs + d] + q; // mod 2^32: runs + d holds start + before - (start in tile)
    P.keys_b[at] = kq;
    return d;
}

// One pass on the tile whose ticket this block draws: rank (RANK_FIRST) or
// count, publish the tile's counts (AGGREGATE, or INCLUSIVE for tile 0) and
// clear its status for the next pass, read the look-back's first window,
// complete the ranks, look back (recounting a tile whose status is still
// missing after OS_POLLS reads), publish INCLUSIVE, then write the keys
// through shared memory OS_SLOTS slots at a time.
template <class C> DEV void stage_onesweep(const OsParams &P, u32 *s_mem)
{
    constexpr u32 WG = C::WG, ITEMS = C::ITEMS, TILE = C::TILE;
    const u32 lid = threadIdx.x;
    const u32 sg = lid / SGS, lane = lid % SGS, sgs = SGS;
    // HEAD: region PASS % 2, the next pass's cleared; EPOCH: one region, no clear.
    const u32 cur = os_status(C::EPOCH ? 0u : P.pass & 1u, P.tiles), next = os_status((P.pass + 1u) & 1u, P.tiles);
    const u32 epoch = os_epoch<C>(P.pass);
    if (lid == 0u)
        s_mem[C::S_TICKET] = atomicAdd(&P.aux[OS_TICKETS + P.pass], 1u);
    if (lid == 1u)
        s_mem[C::S_RANGE] = 0u;
    SYNC();
    const u32 t = s_mem[C::S_TICKET];
    const u32 lo = 0u, begin = 0u, stop = P.n; // no ranges: range 0, [0, N)
    const u32 tile = begin + (t - lo) * TILE, end = umin(stop, tile + TILE);
    const u32 chunk = tile + sg * sgs * ITEMS;
    const bool one_digit = WG >= DIGITS && lid < DIGITS; // invocation lid owns digit lid
    u32 k[ITEMS];
    UNROLL for (u32 it = 0u; it < ITEMS; it++) {
        u32 i = chunk + it * sgs + lane;
        k[it] = i < end ? P.keys_a[i] : (C::PAD ? 0xffffffffu : 0u);
    }
    u32 digit_start = one_digit ? P.aux[os_start(P.pass, lid)] : 0u;
    cnt_clear<C>(s_mem);
    SYNC();
    // RANK_FIRST: ranks within each warp's chunk first, its counters from
    // zero, which then hold the warp's count of each digit; else a count of
    // their own first (a shared-memory atomic per key).
    u32 rank[C::RANK_WORDS]; // the slot in the tile, or NO_RANK
    UNROLL for (u32 w = 0u; w < C::RANK_WORDS; w++)
        rank[w] = 0u;
    UNROLL for (u32 it = 0u; it < ITEMS; it++) {
        bool valid = C::PAD || chunk + it * sgs + lane < end;
        u32 d = valid ? ord_byte(key_order(k[it]), P.pass) : 0u;
        if (C::RANK_FIRST) { // every lane calls it
            u32 r = rank_in_subgroup<C>(s_mem, d, valid);
            rank_set<C>(rank, it, valid ? r : NO_RANK);
        } else if (valid) {
            cnt_add<C>(s_mem, sg, d, 1u);
        }
    }
    SYNC();
    tile_totals<C>(s_mem); // S_CNT: each warp's offset among the tile's equal digits
    // Publish this tile's counts; clear its status for the next pass.
    for (u32 d = lid; d < DIGITS; d += WG) {
        u32 kind = t == lo ? OS_FLAG_INCL : OS_FLAG_AGG; // the first tile: INCLUSIVE
        status_store(&P.aux[cur + t * DIGITS + d], kind | epoch | s_mem[C::S_TOT + d]);
        if (!C::EPOCH)
            P.aux[next + t * DIGITS + d] = 0u;
    }
    u32 window[LB_WINDOW];
    const bool early = one_digit;
    if (early)
        read_window<C>(P.aux, cur, epoch, lid, lo, t, window);
    SYNC();
    digit_starts<WG, C::DS_WARP, C::S_TOT, C::S_START, C::S_DIG>(s_mem);
    // Each slot: the rank among the warp's keys of its digit, plus the warp's
    // offset among the tile's (RANK_FIRST: read; else where the counter
    // starts), plus where the digit starts in the tile.
    UNROLL for (u32 it = 0u; it < ITEMS; it++) {
        bool valid = C::PAD || chunk + it * sgs + lane < end;
        u32 d = valid ? ord_byte(key_order(k[it]), P.pass) : 0u;
        if (C::RANK_FIRST) {
            if (valid)
                rank_add<C>(rank, it, cnt_get<C>(s_mem, sg, d) + s_mem[C::S_START + d]);
        } else {
            u32 r = rank_in_subgroup<C>(s_mem, d, valid) + s_mem[C::S_START + d];
            rank_set<C>(rank, it, valid ? r : NO_RANK);
        }
    }
    if (C::STAGE_EARLY) {
        // CUB's order: the tile's keys in digit order before the look-back
        // (S_STAGE is no other region's here, or UNION: the counters', read
        // by the ranks above, so a barrier first).
        if (C::UNION)
            SYNC();
        UNROLL for (u32 it = 0u; it < ITEMS; it++) {
            u32 r = rank_of<C>(rank, it);
            if (r != NO_RANK)
                s_mem[C::S_STAGE + r] = k[it];
        }
    }
    for (u32 d = lid; d < DIGITS; d += WG) {
        u32 left = t, sum = 0u;
        if (early) // then d == lid
            take_window<C>(window, epoch, lo, left, sum);
        s_mem[C::S_LB_LEFT + d] = left;
        s_mem[C::S_LB_SUM + d] = sum;
    }
    for (;;) {
        if (lid == 0u)
            s_mem[C::S_LB_STUCK] = 0u;
        SYNC();
        for (u32 d = lid; d < DIGITS; d += WG)
            lookback_walk<C>(P, s_mem, cur, epoch, d, lo);
        SYNC();
        u32 stuck = s_mem[C::S_LB_STUCK];
        if (stuck == 0u)
            break;
        // Count the digits of tile stuck - 1 from its keys.
        for (u32 d = lid; d < DIGITS; d += WG)
            s_mem[C::S_RECOUNT + d] = 0u;
        SYNC();
        u32 from = begin + (stuck - 1u - lo) * TILE, to = umin(stop, from + TILE);
        for (u32 i = from + lid; i < to; i += WG)
            atomicAdd(&s_mem[C::S_RECOUNT + ord_byte(key_order(P.keys_a[i]), P.pass)], 1u);
        SYNC();
        for (u32 d = lid; d < DIGITS; d += WG)
            if (s_mem[C::S_LB_LEFT + d] == stuck) {
                s_mem[C::S_LB_SUM + d] += s_mem[C::S_RECOUNT + d];
                s_mem[C::S_LB_LEFT + d] = stuck - 1u;
            }
    }
    // Every digit's earlier count is known: publish the inclusive count, and
    // where this tile's run of each digit goes (minus its start in the tile).
    for (u32 d = lid; d < DIGITS; d += WG) {
        u32 before = s_mem[C::S_LB_SUM + d], total = s_mem[C::S_TOT + d];
        if (t != lo)
            status_store(&P.aux[cur + t * DIGITS + d], OS_FLAG_INCL | epoch | (before + total));
        u32 start = one_digit ? digit_start : P.aux[os_start(P.pass, d)];
        s_mem[C::S_ONESWEEP_OUT + d] = start + before - s_mem[C::S_START + d];
    }
    const u32 count = end - tile;
    if constexpr (C::STAGE_EARLY) {
        SYNC();
        UNROLL for (u32 it = 0u; it < ITEMS; it++) {
            u32 q = it * WG + lid;
            if (q < count)
                write_staged_key<C>(P, s_mem, C::S_ONESWEEP_OUT, q, 0u);
        }
    } else {
        ROLLED for (u32 part = 0u; part < C::OS_PARTS; part++) {
            u32 first = part * C::OS_SLOTS;
            SYNC(); // the look-back's state, or the part before, is read
            UNROLL for (u32 it = 0u; it < ITEMS; it++) {
                u32 r = rank_of<C>(rank, it);
                if (r != NO_RANK && r - first < C::OS_SLOTS)
                    s_mem[C::S_STAGE + r - first] = k[it];
            }
            SYNC();
            UNROLL for (u32 it = 0u; it < ITEMS; it++) {
                u32 q = it * WG + lid;
                if (q < count && q - first < C::OS_SLOTS)
                    write_staged_key<C>(P, s_mem, C::S_ONESWEEP_OUT, q, first);
            }
        }
    }
}

// ------------------------------------------------------------------ OS_CLEAR, OS_HIST, OS_SCAN

constexpr u32 HIST_WG = 256u, HIST_ITEMS = 16u; // the sort plan's wg x items (radix_plan_for)
constexpr u32 HIST_TILE = HIST_WG * HIST_ITEMS;
constexpr u32 HIST_GROUPS = 1024u;              // RADIX_OS_HIST_GROUPS
constexpr u32 SCAN_WG = 256u;

// OS_CLEAR: the digit counts and the tickets start at zero.
DEV void stage_os_clear(u32 *aux, u32 i)
{
    if (i < OS_CLEARED)
        aux[OS_STARTS + i] = 0u;
}

DEV void os_count(const u32 *keys, u32 from, u32 to, u32 *s_mem)
{
    u32 lid = threadIdx.x;
    for (u32 base = from; base < to; base += HIST_TILE) {
        u32 k[HIST_ITEMS];
        UNROLL for (u32 it = 0u; it < HIST_ITEMS; it++) {
            u32 i = base + it * HIST_WG + lid;
            k[it] = i < to ? keys[i] : 0u;
        }
        UNROLL for (u32 it = 0u; it < HIST_ITEMS; it++) {
            if (base + it * HIST_WG + lid >= to)
                continue;
            u32 o = key_order(k[it]);
            for (u32 p = 0u; p < KEY_PASSES; p++)
                atomicAdd(&s_mem[p * DIGITS + ord_byte(o, p)], 1u);
        }
    }
}
DEV void os_flush(u32 *aux, u32 *s_mem)
{
    SYNC();
    for (u32 w = threadIdx.x; w < KEY_PASSES * DIGITS; w += HIST_WG) {
        if (s_mem[w] != 0u)
            atomicAdd(&aux[OS_STARTS + w], s_mem[w]);
        s_mem[w] = 0u;
    }
    SYNC();
}
// OS_HIST: every pass's digit counts in one read of the keys, and both
// status regions cleared (EPOCH: its one). Each group counts one block of
// whole tiles.
DEV void stage_os_hist(const u32 *keys, u32 n, u32 *aux, u32 tiles, u32 regions, u32 *s_mem)
{
    u32 lid = threadIdx.x, g = blockIdx.x;
    u32 groups = gridDim.x, stride = groups * HIST_WG;
    for (u32 w = lid; w < KEY_PASSES * DIGITS; w += HIST_WG)
        s_mem[w] = 0u;
    SYNC();
    for (u32 i = g * HIST_WG + lid; i < regions * tiles * DIGITS; i += stride)
        aux[os_status(0u, tiles) + i] = 0u;
    u32 block = (n + groups * HIST_TILE - 1u) / (groups * HIST_TILE) * HIST_TILE;
    u32 from = umin(n, g * block), to = umin(n, from + block);
    if (from < to) { // the shader's loop over ranges, one range
        os_count(keys, from, to, s_mem);
        os_flush(aux, s_mem);
    }
}
// OS_SCAN (one group): each pass's counts become its digits' starts.
constexpr u32 SCAN_S_TOT = 0u, SCAN_S_START = DIGITS, SCAN_S_DIG = 2u * DIGITS, SCAN_S_WORDS = 2u * DIGITS + 32u;
DEV void stage_os_scan(u32 *aux, u32 *s_mem)
{
    u32 lid = threadIdx.x, first = 0u;
    for (u32 p = 0u; p < KEY_PASSES; p++) {
        u32 at = OS_STARTS + p * DIGITS;
        for (u32 d = lid; d < DIGITS; d += SCAN_WG)
            s_mem[SCAN_S_TOT + d] = aux[at + d];
        SYNC();
        digit_starts<SCAN_WG, true, SCAN_S_TOT, SCAN_S_START, SCAN_S_DIG>(s_mem);
        for (u32 d = lid; d < DIGITS; d += SCAN_WG)
            aux[at + d] = first + s_mem[SCAN_S_START + d];
        SYNC();
    }
}

} // namespace os

#ifndef EMU
// =================================================================== CUDA side

#include <cub/cub.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d: CUDA error: %s (%s)\n", __FILE__, __LINE__,       \
                         cudaGetErrorString(err_), #call);                                 \
            std::fflush(stdout);                                                           \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

template <class C> __global__ void __launch_bounds__(C::WG, C::MINB) k_onesweep(os::OsParams p)
{
    __shared__ u32 s_mem[C::S_WORDS];
    os::stage_onesweep<C>(p, s_mem);
}
__global__ void __launch_bounds__(256) k_os_clear(u32 *aux)
{
    os::stage_os_clear(aux, blockIdx.x * blockDim.x + threadIdx.x);
}
__global__ void __launch_bounds__(os::HIST_WG) k_os_hist(const u32 *keys, u32 n, u32 *aux, u32 tiles, u32 regions)
{
    __shared__ u32 s_mem[os::KEY_PASSES * os::DIGITS];
    os::stage_os_hist(keys, n, aux, tiles, regions, s_mem);
}
__global__ void __launch_bounds__(os::SCAN_WG) k_os_scan(u32 *aux)
{
    __shared__ u32 s_mem[os::SCAN_S_WORDS];
    os::stage_os_scan(aux, s_mem);
}
__global__ void k_fill(u32 *keys, size_t n, unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull; // splitmix64
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        keys[i] = (u32)(z >> 32);
    }
}
__global__ void k_compare(const u32 *a, const u32 *b, size_t n, unsigned long long *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (a[i] != b[i]) {
            atomicAdd(&out[0], 1ull);
            atomicMin(&out[1], (unsigned long long)i);
        }
}

namespace {

struct Variant {
    const char *name;
    const char *what;
    u32 wg, items, tile, regions;
    size_t max_n; // the status counts' bits
    const void *kernel;
    void (*launch)(const os::OsParams &, u32 grid, size_t dyn, cudaStream_t);
    size_t dyn = 0;  // dynamic shared bytes: a pad that caps the groups a multiprocessor (--vk48)
    cudaFuncAttributes attr{};
    int occupancy = 0;
};

template <class C> void launch_os(const os::OsParams &p, u32 grid, size_t dyn, cudaStream_t s)
{
    k_onesweep<C><<<grid, C::WG, dyn, s>>>(p);
}
template <class C> Variant make_variant(const char *name, const char *what)
{
    Variant v;
    v.name = name;
    v.what = what;
    v.wg = C::WG;
    v.items = C::ITEMS;
    v.tile = C::TILE;
    v.regions = C::REGIONS;
    v.max_n = (size_t)C::OS_COUNT + 1u;
    v.kernel = (const void *)k_onesweep<C>;
    v.launch = launch_os<C>;
    return v;
}

std::vector<Variant> all_variants()
{
    return {
        make_variant<os::C_ours>("ours", "256x16, 16-bit counters, 2 parts of 2048, rank first; <=80 regs (3 groups/SM)"),
        make_variant<os::C_count>("count_first", "ours, count first (RANK_FIRST=0)"),
        make_variant<os::C_wide>("wide_counters", "ours, 32-bit counters (8x256 words)"),
        make_variant<os::C_whole>("whole_tile", "ours, whole tile staged (1 part of 4096)"),
        make_variant<os::C_cubsh>("cub_shape", "384x20, whole tile, 32-bit counters, rank first; <=80 regs (2 groups/SM)"),
        make_variant<os::C_noval>("no_valid_ballot", "ours, padded tail (8 ballots, no ballot of the valid lanes)"),
        make_variant<os::C_cublike>("cub_like",
                                    "cub_shape, count first, keys staged before the look-back, ranks a word each, "
                                    "padded tail (8 ballots), warp-scan digit starts"),
        make_variant<os::C_u384x11>("u384x11", "cub_like, 384x11, tile over the counters (2 groups in 48 KB)"),
        make_variant<os::C_u256x9>("u256x9", "cub_like, 256x9, tile over the counters (3 groups in 48 KB)"),
        make_variant<os::C_u768x10>("u768x10", "cub_like, 768x10, tile over the counters (1 group of 24 warps)"),
        make_variant<os::C_u512x15>("u512x15", "cub_like, 512x15, tile over the counters (1 group of 16 warps)"),
        make_variant<os::C_u384x20>("u384x20", "cub_like with the tile over the counters (CUB's 384x20, 2 x 35 KB)"),
        make_variant<os::C_i256x20>("i256x20", "no_valid_ballot, 256x20 (3 parts; 3 groups)"),
        make_variant<os::C_i256x24>("i256x24", "no_valid_ballot, 256x24 (3 parts; 3 groups, <=80 regs)"),
        make_variant<os::C_i256x24b>("i256x24b", "no_valid_ballot, 256x24 (3 parts; 2 groups, <=128 regs)"),
        make_variant<os::C_i256x32b>("i256x32b", "no_valid_ballot, 256x32 (4 parts; 2 groups, <=128 regs)"),
        make_variant<os::C_i384x20>("i384x20", "no_valid_ballot, 384x20, 16-bit counters, 3 parts of 2560 (2 groups)"),
        make_variant<os::C_i384x20c>("i384x20c", "i384x20, count first"),
        make_variant<os::C_w768x16>("w768x16", "no_valid_ballot, 768x16 (1 group, <=85 regs)"),
        make_variant<os::C_w768x20>("w768x20", "no_valid_ballot, 768x20 (1 group, <=85 regs)"),
        make_variant<os::C_w768x24>("w768x24", "no_valid_ballot, 768x24 (1 group, <=85 regs)"),
        make_variant<os::C_w768x24c>("w768x24c", "w768x24, count first"),
        make_variant<os::C_i384x24>("i384x24", "no_valid_ballot, 384x24 (2 groups, <=85 regs)"),
    };
}

u32 tiles_of(size_t n, u32 tile) { return n == 0 ? 1u : (u32)((n + tile - 1) / tile); }

struct Bufs {
    u32 *in = nullptr, *a = nullptr, *b = nullptr, *aux = nullptr, *cub_out = nullptr;
    void *cub_temp = nullptr;
    size_t cub_temp_bytes = 0, aux_cap = 0;
    unsigned long long *cmp = nullptr;
};

// The full sort: OS_CLEAR, OS_HIST, OS_SCAN, then four ONESWEEP passes
// in -> b -> a -> b -> a (the input is kept; the result is in a).
void run_sort(const Variant &v, Bufs &B, size_t n, u32 polls, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1,
              cudaEvent_t e2)
{
    u32 tiles = tiles_of(n, v.tile);
    if (e0)
        CUDA_CHECK(cudaEventRecord(e0, s));
    k_os_clear<<<(os::OS_CLEARED + 255u) / 256u, 256, 0, s>>>(B.aux);
    k_os_hist<<<std::min(tiles, os::HIST_GROUPS), os::HIST_WG, 0, s>>>(B.in, (u32)n, B.aux, tiles, v.regions);
    k_os_scan<<<1, os::SCAN_WG, 0, s>>>(B.aux);
    if (e1)
        CUDA_CHECK(cudaEventRecord(e1, s));
    const u32 *src[4] = {B.in, B.b, B.a, B.b};
    u32 *dst[4] = {B.b, B.a, B.b, B.a};
    for (u32 p = 0; p < os::KEY_PASSES; p++) {
        os::OsParams prm{src[p], dst[p], B.aux, (u32)n, p, tiles, polls};
        v.launch(prm, tiles, v.dyn, s);
    }
    if (e2)
        CUDA_CHECK(cudaEventRecord(e2, s));
    CUDA_CHECK(cudaGetLastError());
}

float median(std::vector<float> x)
{
    if (x.empty())
        return 0.f;
    std::sort(x.begin(), x.end());
    size_t m = x.size() / 2;
    return x.size() % 2 ? x[m] : 0.5f * (x[m - 1] + x[m]);
}

void cub_sort(Bufs &B, size_t n, cudaStream_t s)
{
    size_t bytes = B.cub_temp_bytes;
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(B.cub_temp, bytes, B.in, B.cub_out, (int)n, 0, 32, s));
}

// Mismatches of a against cub_out (count, first index).
std::pair<unsigned long long, unsigned long long> compare(Bufs &B, size_t n, cudaStream_t s)
{
    unsigned long long init[2] = {0ull, ~0ull}, res[2];
    CUDA_CHECK(cudaMemcpyAsync(B.cmp, init, sizeof init, cudaMemcpyHostToDevice, s));
    if (n)
        k_compare<<<1024, 256, 0, s>>>(B.a, B.cub_out, n, B.cmp);
    CUDA_CHECK(cudaMemcpyAsync(res, B.cmp, sizeof res, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    return {res[0], res[1]};
}

void alloc_for(Bufs &B, size_t n, u32 min_tile)
{
    size_t keys = std::max<size_t>(n, 1) * sizeof(u32);
    CUDA_CHECK(cudaMalloc(&B.in, keys));
    CUDA_CHECK(cudaMalloc(&B.a, keys));
    CUDA_CHECK(cudaMalloc(&B.b, keys));
    CUDA_CHECK(cudaMalloc(&B.cub_out, keys));
    B.aux_cap = os::aux_words(tiles_of(n, min_tile));
    CUDA_CHECK(cudaMalloc(&B.aux, B.aux_cap * sizeof(u32)));
    CUDA_CHECK(cudaMalloc(&B.cmp, 2 * sizeof(unsigned long long)));
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, B.in, B.cub_out, (int)std::max<size_t>(n, 1), 0, 32));
    B.cub_temp_bytes = bytes;
    CUDA_CHECK(cudaMalloc(&B.cub_temp, std::max<size_t>(bytes, 1)));
}
void free_bufs(Bufs &B)
{
    cudaFree(B.in);
    cudaFree(B.a);
    cudaFree(B.b);
    cudaFree(B.cub_out);
    cudaFree(B.aux);
    cudaFree(B.cmp);
    cudaFree(B.cub_temp);
    B = Bufs{};
}

std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> out;
    size_t at = 0;
    while (at <= s.size()) {
        size_t c = s.find(',', at);
        if (c == std::string::npos)
            c = s.size();
        if (c > at)
            out.push_back(s.substr(at, c - at));
        at = c + 1;
    }
    return out;
}

void usage()
{
    std::printf("usage: onesweep_port [--sizes 24,28] [--n N,...] [--variants a,b,...] [--runs 8]\n"
                "                     [--warmup 2] [--warmup-ms 200] [--polls 64] [--vk48] [--no-selftest]\n"
                "  --sizes  log2 of the key counts (default 24,28); --n exact counts (added)\n"
                "  --polls  OS_POLLS, reads of a missing status before recounting (the driver's 64)\n"
                "  --vk48   cap each variant's groups per SM at Vulkan's ~48 KB rule:\n"
                "           floor(49152 / (static shared + 4 x wg)), by a dynamic shared-memory pad\n"
                "variants:");
    for (auto &v : all_variants())
        std::printf(" %s", v.name);
    std::printf("\n");
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<size_t> sizes;
    std::vector<std::string> want;
    int runs = 8, warmup = 2, warmup_ms = 200;
    u32 polls = 64;
    bool selftest = true, sizes_given = false, vk48 = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= argc) {
                usage();
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--sizes") {
            for (auto &x : split(val()))
                sizes.push_back((size_t)1 << std::atoi(x.c_str()));
            sizes_given = true;
        } else if (a == "--n") {
            for (auto &x : split(val()))
                sizes.push_back((size_t)std::strtoull(x.c_str(), nullptr, 10));
            sizes_given = true;
        } else if (a == "--variants") {
            want = split(val());
        } else if (a == "--runs") {
            runs = std::atoi(val().c_str());
        } else if (a == "--warmup") {
            warmup = std::atoi(val().c_str());
        } else if (a == "--warmup-ms") {
            warmup_ms = std::atoi(val().c_str());
        } else if (a == "--polls") {
            polls = (u32)std::atoi(val().c_str());
        } else if (a == "--vk48") {
            vk48 = true;
        } else if (a == "--no-selftest") {
            selftest = false;
        } else {
            usage();
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    if (!sizes_given)
        sizes = {(size_t)1 << 24, (size_t)1 << 28};
    if (runs < 1)
        runs = 1;
    for (size_t n : sizes)
        if (n >= ((size_t)1 << 30)) {
            std::printf("n = %zu: the status words count in 30 bits, n must be < 2^30\n", n);
            return 2;
        }

    std::vector<Variant> vars;
    for (auto &v : all_variants())
        if (want.empty() || std::find(want.begin(), want.end(), v.name) != want.end())
            vars.push_back(v);
    for (auto &w : want) {
        bool known = false;
        for (auto &v : all_variants())
            known = known || w == v.name;
        if (!known) {
            std::printf("unknown variant %s\n", w.c_str());
            usage();
            return 2;
        }
    }

    int dev = 0;
    CUDA_CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    std::printf("device: %s, %d SMs, %zu B shared/SM, %zu B reserved/block, %d regs/SM, CUDA %d\n", prop.name,
                prop.multiProcessorCount, prop.sharedMemPerMultiprocessor, prop.reservedSharedMemPerBlock,
                prop.regsPerMultiprocessor, CUDART_VERSION);
    std::printf("CUB %d.%d.%d; polls %u, warm-up %d runs and >= %d ms, timed runs %d (median)\n", CUB_MAJOR_VERSION,
                CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, polls, warmup, warmup_ms, runs);

    // Kernel figures. --vk48: enough dynamic shared memory that no more than
    // the groups Vulkan's ~48 KB rule allows fit a multiprocessor (the
    // shader's program also declares the prelude's wg words, counted here).
    std::printf("%s", vk48 ? "\n(--vk48: groups per SM capped at floor(49152 / (static + 4 wg)))\n" : "");
    std::printf("\n%-14s %5s %5s %5s %6s %7s %7s %6s %9s %11s\n", "kernel", "wg", "items", "regs", "local",
                "static", "dyn", "grp/SM", "warps/SM", "keys/SM");
    for (auto &v : vars) {
        CUDA_CHECK(cudaFuncGetAttributes(&v.attr, v.kernel));
        if (vk48) {
            CUDA_CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
            size_t cap = 49152 / (v.attr.sharedSizeBytes + 4 * v.wg);
            cap = cap < 1 ? 1 : cap;
            size_t per_sm = prop.sharedMemPerMultiprocessor, res = prop.reservedSharedMemPerBlock;
            size_t used = v.attr.sharedSizeBytes + res;
            size_t need = per_sm / (cap + 1) + 1; // each group above this: at most cap fit
            v.dyn = need > used ? (need - used + 127) / 128 * 128 : 0;
            if (cap * (v.dyn + used) > per_sm || v.dyn + v.attr.sharedSizeBytes > prop.sharedMemPerBlockOptin)
                v.dyn = 0; // cannot cap this way on this device
            CUDA_CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)v.dyn));
        }
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v.occupancy, v.kernel, (int)v.wg, v.dyn));
        std::printf("%-14s %5u %5u %5d %6zu %7zu %7zu %6d %9d %11u\n", v.name, v.wg, v.items, v.attr.numRegs,
                    v.attr.localSizeBytes, v.attr.sharedSizeBytes, v.dyn, v.occupancy, v.occupancy * (int)v.wg / 32,
                    v.occupancy * v.tile);
    }
    {
        struct K {
            const char *name;
            const void *fn;
            int wg;
        } ks[] = {{"os_clear", (const void *)k_os_clear, 256},
                  {"os_hist", (const void *)k_os_hist, (int)os::HIST_WG},
                  {"os_scan", (const void *)k_os_scan, (int)os::SCAN_WG}};
        for (auto &k : ks) {
            cudaFuncAttributes a;
            int occ = 0;
            CUDA_CHECK(cudaFuncGetAttributes(&a, k.fn));
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k.fn, k.wg, 0));
            std::printf("%-14s %5d %5s %5d %6zu %7zu %7d %6d %9d %11s\n", k.name, k.wg, "-", a.numRegs,
                        a.localSizeBytes, a.sharedSizeBytes, 0, occ, occ * k.wg / 32, "-");
        }
    }
    for (auto &v : vars)
        std::printf("  %-14s %s\n", v.name, v.what);
    std::fflush(stdout);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1, e2;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    CUDA_CHECK(cudaEventCreate(&e2));
    u32 min_tile = ~0u;
    for (auto &v : vars)
        min_tile = std::min(min_tile, v.tile);
    const unsigned long long seed = 0x5EED2024ull;
    bool all_ok = true;

    // Self-test: small and odd sizes, every variant against CUB, with the
    // look-back's polls as given and with 0 and 1 (every missing status is
    // then recounted: the recount path runs).
    if (selftest && !vars.empty()) {
        std::printf("\nself-test (each variant vs CUB; polls %u / 1 / 0):\n", polls);
        const size_t tn[] = {1, 37, 4095, 4096, 4097, 7680 * 3 + 5, 65536 + 77, ((size_t)1 << 20) + 123,
                             ((size_t)1 << 22) - 1};
        for (size_t n : tn) {
            Bufs B;
            alloc_for(B, n, min_tile);
            k_fill<<<1024, 256, 0, s>>>(B.in, n, seed ^ n);
            CUDA_CHECK(cudaGetLastError());
            cub_sort(B, n, s);
            std::printf("  n=%-9zu", n);
            for (auto &v : vars) {
                if (n >= v.max_n)
                    continue;
                const u32 ps[3] = {polls, 1u, 0u};
                bool ok = true;
                for (u32 pl : ps) {
                    CUDA_CHECK(cudaMemsetAsync(B.a, 0xab, n * sizeof(u32), s));
                    run_sort(v, B, n, pl, s, nullptr, nullptr, nullptr);
                    auto c = compare(B, n, s);
                    if (c.first) {
                        ok = false;
                        std::printf("\n    FAIL %s n=%zu polls=%u: %llu mismatches, first at %llu", v.name, n, pl,
                                    c.first, c.second);
                    }
                }
                std::printf(" %s:%s", v.name, ok ? "OK" : "FAIL");
                all_ok = all_ok && ok;
            }
            std::printf("\n");
            std::fflush(stdout);
            free_bufs(B);
        }
    }

    struct Row {
        std::string name;
        size_t n;
        float total, passes, cub;
        bool ok;
    };
    std::vector<Row> rows;
    for (size_t n : sizes) {
        Bufs B;
        alloc_for(B, n, min_tile);
        k_fill<<<4096, 256, 0, s>>>(B.in, n, seed);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamSynchronize(s));
        // Warm-up: at least `warmup` runs and `warmup_ms` of them (clocks up).
        auto warm = [&](auto &&one) {
            auto t0 = std::chrono::steady_clock::now();
            for (int w = 0;; w++) {
                double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                if (w >= warmup && ms >= warmup_ms)
                    break;
                one();
                CUDA_CHECK(cudaStreamSynchronize(s));
            }
        };
        // CUB
        std::vector<float> ct;
        warm([&] { cub_sort(B, n, s); });
        for (int r = 0; r < runs; r++) {
            CUDA_CHECK(cudaEventRecord(e0, s));
            cub_sort(B, n, s);
            CUDA_CHECK(cudaEventRecord(e2, s));
            CUDA_CHECK(cudaEventSynchronize(e2));
            float ms;
            CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e2));
            ct.push_back(ms * 1000.f);
        }
        float cub_us = median(ct);
        std::printf("\nn=%zu (2^%.2f): cub::DeviceRadixSort::SortKeys %.1f us\n", n, std::log2((double)n), cub_us);
        std::fflush(stdout);
        for (auto &v : vars) {
            if (n >= v.max_n) {
                std::printf("  %-14s skipped: its status counts take n < %zu\n", v.name, v.max_n);
                continue;
            }
            std::vector<float> tt, tp;
            CUDA_CHECK(cudaMemsetAsync(B.a, 0xab, n * sizeof(u32), s));
            warm([&] { run_sort(v, B, n, polls, s, nullptr, nullptr, nullptr); });
            for (int r = 0; r < runs; r++) {
                run_sort(v, B, n, polls, s, e0, e1, e2);
                CUDA_CHECK(cudaEventSynchronize(e2));
                float ms_t, ms_p;
                CUDA_CHECK(cudaEventElapsedTime(&ms_t, e0, e2));
                CUDA_CHECK(cudaEventElapsedTime(&ms_p, e1, e2));
                tt.push_back(ms_t * 1000.f);
                tp.push_back(ms_p * 1000.f);
            }
            auto c = compare(B, n, s);
            bool ok = c.first == 0;
            all_ok = all_ok && ok;
            float tot = median(tt), pas = median(tp);
            std::printf("  %-14s total %9.1f us  passes %9.1f us (%7.1f a pass)  hist+scan %7.1f us  "
                        "speed vs CUB %.3fx  %s",
                        v.name, tot, pas, pas / 4.f, tot - pas, cub_us / tot, ok ? "OK" : "FAIL");
            if (!ok)
                std::printf(" (%llu mismatches, first at %llu)", c.first, c.second);
            std::printf("\n");
            std::fflush(stdout);
            rows.push_back({v.name, n, tot, pas, cub_us, ok});
        }
        free_bufs(B);
    }

    std::printf("\n%-14s %11s %11s %11s %11s %9s %6s\n", "variant", "n", "total_us", "passes_us", "cub_us",
                "speed", "check");
    for (auto &r : rows)
        std::printf("%-14s %11zu %11.1f %11.1f %11.1f %8.3fx %6s\n", r.name.c_str(), r.n, r.total, r.passes, r.cub,
                    r.cub / r.total, r.ok ? "OK" : "FAIL");
    std::printf("(speed = CUB time / variant time: the project's \"0.55x CUB\")\n");
    std::printf("%s\n", all_ok ? "ALL OK" : "SOME FAIL");
    return all_ok ? 0 : 1;
}
#endif // !EMU
