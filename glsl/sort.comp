// sort.comp: the sort family. Kiciak's bitonic network (one step per
// dispatch), the same network's steps inside a tile in shared memory, the
// LSD radix sort's histogram and stable scatter, and the driver's helpers.
// variants: TYPE=U32,I32,F32,F64
//
// Keys are only moved and compared, never computed with, so they are bound
// as their bits: uint for u32/i32/f32, uvec2 (low word first) for f64.
// Comparisons and digits use the "ordered key" of src/algo/sort.h.
//
// Stages (STAGE = params[0], numbered in src/algo/ids/sort_ids.h); offsets and counts in
// elements. None is 0, which as ONLY_STAGE means the shared program (OWN_PROGRAM below).
//   LOCAL_SORT   every tile of BTILE: all steps with h <= min(BTILE, nn)
//   LOCAL_MERGE  every tile: the plain steps of blocks BTILE .. 2
//   HIST         radix pass PASS: per-group digit counts into aux
//   SCATTER      radix pass PASS: keys_a/pay_a -> keys_b/pay_b at the scanned offsets
//   IOTA         pay_b[i] = i
//   GATHER       pay_b[i] = aux[pay_a[i]]
//   STEPS        COUNT network steps of blocks H, H/2, ..., in registers (the
//                first may be the reverse one)
//   OS_CLEAR     one-sweep radix: zero the digit counts and tickets in aux
//   OS_HIST      one-sweep radix: every key pass's digit counts in one read
//   OS_SCAN      one-sweep radix (a group per range): counts -> each digit's start
//   ONESWEEP     one-sweep radix pass PASS: rank a tile, look back, scatter
//   SMALL        one work-group: every radix pass (PASSES) of the whole array
//   STEP         one network step (block H, REVERSE) on keys_a / pay_a, in place

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
// layout (below, "Regions of s_mem") keeps the stages of a tile small:
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

// ---------------------------------------------------------------- order

#if defined(TYPE_F64)
#define ORD uvec2 /* (low, high) */
ORD key_order(KEY raw)
{
    uint hi = raw.y & 0x7fffffffu;
    ORD o;
    if (hi > 0x7ff00000u || (hi == 0x7ff00000u && raw.x != 0u))
        o = uvec2(0xffffffffu); // every NaN, last
    else if ((raw.y & 0x80000000u) != 0u)
        o = ~raw;
    else
        o = uvec2(raw.x, raw.y | 0x80000000u);
    return flag(SORT_DESCENDING) ? ~o : o;
}
bool ord_less(ORD a, ORD b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
uint ord_byte(ORD o, uint p) { return ((p < 4u ? o.x : o.y) >> ((p & 3u) * 8u)) & 0xffu; }
#else
#define ORD uint
ORD key_order(KEY raw)
{
#if defined(TYPE_U32)
    uint o = raw;
#elif defined(TYPE_I32)
    uint o = raw ^ 0x80000000u;
#else
    uint o = (raw & 0x7fffffffu) > 0x7f800000u ? 0xffffffffu
             : (raw & 0x80000000u) != 0u      ? ~raw
                                               : raw | 0x80000000u;
#endif
    return flag(SORT_DESCENDING) ? ~o : o;
}
bool ord_less(ORD a, ORD b) { return a < b; }
uint ord_byte(ORD o, uint p) { return (o >> (p * 8u)) & 0xffu; }
#endif

// The segment of input index x: the largest s < NSEG with segs[s] <= x.
uint segment_of(uint x)
{
    uint lo = 0u, hi = NSEG;
    while (hi - lo > 1u) {
        uint mid = (lo + hi) >> 1;
        if (segs[SEG_OFF + mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// Whether element a must come after element b: by segment (of the payload,
// an input index), then by ordered key, then by payload when ties count.
bool after(KEY ka, uint pa, KEY kb, uint pb)
{
    if (flag(SORT_SEGMENTED)) {
        uint sa = segment_of(pa), sb = segment_of(pb);
        if (sa != sb)
            return sa > sb;
    }
    ORD oa = key_order(ka), ob = key_order(kb);
    if (oa != ob)
        return ord_less(ob, oa);
    return flag(SORT_TIES_BY_PAYLOAD) && pa > pb;
}

uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

// --------------------------------------------------------- bitonic network

// The pair p of a step of block h (a power of two, log2 of dist in lh2):
// i in the first dist, j its partner (mirrored when reverse).
uvec2 pair_of(uint p, uint h, uint lh2, bool reverse)
{
    uint b = p >> lh2, l = p & ((h >> 1) - 1u);
    uint i = b * h + l;
    return uvec2(i, reverse ? b * h + h - 1u - l : i + (h >> 1));
}

void stage_step()
{
    uvec2 ij = pair_of(invocation_index(), H, uint(findMSB(H >> 1)), REVERSE != 0u);
    if (ij.y >= N)
        return; // the partner is past the end: +inf, no exchange
    uint i = KEY_OFF_A + ij.x, j = KEY_OFF_A + ij.y;
    KEY ki = keys_a[i], kj = keys_a[j];
    bool payload = flag(SORT_FLAG_PAYLOAD);
    uint pi = payload ? pay_a[PAY_OFF_A + ij.x] : 0u;
    uint pj = payload ? pay_a[PAY_OFF_A + ij.y] : 0u;
    if (after(ki, pi, kj, pj)) {
        keys_a[i] = kj;
        keys_a[j] = ki;
        if (payload) {
            pay_a[PAY_OFF_A + ij.x] = pj;
            pay_a[PAY_OFF_A + ij.y] = pi;
        }
    }
}

// Steps of blocks H, H/2, ..., H/2^(COUNT-1) fused, plain ones, or with
// STEPS_REVERSE the first the reverse step of block H (the rest plain): the
// elements they pair form groups of 2^COUNT, and each invocation takes one
// group through all of them in registers: the same compare-exchanges as
// COUNT STEP dispatches, with one read and one write of the data. With
// span = H/2^COUNT, the group of x (x < span) in a block is x + j * span
// (j < 2^COUNT), closed under plain steps of distances span .. H/2. The
// reverse step pairs x + j * span of the block's first half with its mirror,
// (span - 1 - x) + (2^COUNT - 1 - j) * span, so with it the group's upper
// half is that mirror residue's (both halves ascending in j, the whole
// group too, so the elements below N are the first cnt).
// Every index into k and pv is a constant of the unrolled loops (the steps'
// distances run over 8, 4, 2, 1, skipping those the call does not take; the
// reverse pairs are unrolled for each COUNT): an index known only at run
// time would put both arrays in memory.
// REGISTER_STAGES (SORT_SHAPE_REGISTER_STAGES, bitonic.c's register_stages): STEPS
// may take the reverse step, LOCAL_MERGE runs in registers; without, the code of
// both is the shared-memory form, which NVIDIA's GL compiler runs faster.
// STEPS runs only in the family's program; ONESWEEP's own program holds its
// code unused, and there the word holds ONESWEEP's fields: that code follows
// SORT_SHAPE_BALLOT32, which keeps it the form it had when the program was
// measured (docs/DECISIONS.md).
#define REGISTER_STAGES (ONLY_STAGE == SORT_STAGE_ONESWEEP ? SORT_SHAPE_BALLOT32 != 0u \
                                                         : SORT_SHAPE_REGISTER_STAGES != 0u)
#define MAX_FUSED_LOG2 SORT_MAX_FUSED_LOG2
#define MAX_FUSED (1u << MAX_FUSED_LOG2)
// Registers k[A], pv[A] and k[B], pv[B] (A below B) in order (STEPS, LOCAL_MERGE).
#define EXCHANGE_IN_REGISTERS(A, B)                                                           \
    if (after(k[A], pv[A], k[B], pv[B])) {                                                    \
        KEY tk = k[A];                                                                        \
        k[A] = k[B];                                                                          \
        k[B] = tk;                                                                            \
        uint tp = pv[A];                                                                      \
        pv[A] = pv[B];                                                                        \
        pv[B] = tp;                                                                           \
    }
// Element J's index (of the invocation's block, x and mirror below).
#define STEPS_AT(J) (block + ((J) >= upper ? mirror : x) + (J) * span)
void stage_steps()
{
    uint m = COUNT, span = H >> m, t = invocation_index();
    bool reverse = REGISTER_STAGES && STEPS_REVERSE != 0u;
    uint block = (t / span) * H, x = t % span;
    uint upper = 1u << (m - 1u); // the group's upper half: j >= upper
    uint mirror = reverse ? span - 1u - x : x; // the residue of the upper half
    if (block + x >= N)
        return;
    bool payload = flag(SORT_FLAG_PAYLOAD);
    uint cnt = min(1u << m, (N - block - x + span - 1u) / span); // the group's elements below N
    if (reverse) {
        cnt = 0u;
        UNROLL for (uint j = 0u; j < MAX_FUSED; j++)
            if (j < (1u << m) && STEPS_AT(j) < N)
                cnt = j + 1u;
    }
    KEY k[MAX_FUSED];
    uint pv[MAX_FUSED];
    UNROLL for (uint j = 0u; j < MAX_FUSED; j++) {
        if (j < cnt) {
            k[j] = keys_a[KEY_OFF_A + STEPS_AT(j)];
            pv[j] = payload ? pay_a[PAY_OFF_A + STEPS_AT(j)] : 0u;
        }
    }
    if (reverse) {
        // Bounds that are constants, as everywhere here: with one that
        // depended on c every STEPS dispatch ran slower on an H200 (94 ->
        // 167 us a plain one), as arrays in memory would.
        UNROLL for (uint c = 1u; c <= MAX_FUSED_LOG2; c++) {
            UNROLL for (uint j = 0u; j < MAX_FUSED / 2u; j++) {
                if (c != m || j >= (1u << (c - 1u)) || (1u << c) - 1u - j >= cnt)
                    continue; // not this COUNT's pair, or past the end: +inf, no exchange
                EXCHANGE_IN_REGISTERS(j, (1u << c) - 1u - j)
            }
        }
    }
    UNROLL for (uint e = MAX_FUSED_LOG2; e-- > 0u;) {
        uint dist = 1u << e;
        if (dist >= (1u << m) || (reverse && dist == upper))
            continue; // not one of this call's plain steps
        UNROLL for (uint j = 0u; j < MAX_FUSED; j++) {
            if ((j & dist) != 0u || j + dist >= cnt)
                continue; // the partner is past the end: +inf, no exchange
            EXCHANGE_IN_REGISTERS(j, j + dist)
        }
    }
    UNROLL for (uint j = 0u; j < MAX_FUSED; j++) {
        if (j < cnt) {
            keys_a[KEY_OFF_A + STEPS_AT(j)] = k[j];
            if (payload)
                pay_a[PAY_OFF_A + STEPS_AT(j)] = pv[j];
        }
    }
}

#define S_PAY (BTILE * KEY_WORDS)
#if defined(TYPE_F64)
KEY s_key(uint i) { return uvec2(s_mem[2u * i], s_mem[2u * i + 1u]); }
void s_key_set(uint i, KEY k) { s_mem[2u * i] = k.x; s_mem[2u * i + 1u] = k.y; }
#else
KEY s_key(uint i) { return s_mem[i]; }
void s_key_set(uint i, KEY k) { s_mem[i] = k; }
#endif

void tile_load(uint base)
{
    for (uint k = gl_LocalInvocationID.x; k < BTILE && base + k < N; k += WG_SIZE) {
        s_key_set(k, keys_a[KEY_OFF_A + base + k]);
        if (flag(SORT_FLAG_PAYLOAD))
            s_mem[S_PAY + k] = pay_a[PAY_OFF_A + base + k];
    }
    SYNC();
}

void tile_store(uint base)
{
    for (uint k = gl_LocalInvocationID.x; k < BTILE && base + k < N; k += WG_SIZE) {
        keys_a[KEY_OFF_A + base + k] = s_key(k);
        if (flag(SORT_FLAG_PAYLOAD))
            pay_a[PAY_OFF_A + base + k] = s_mem[S_PAY + k];
    }
}

// One network step of block h on the tile that starts at element `base`.
void tile_step(uint base, uint h, bool reverse)
{
    uint lh2 = uint(findMSB(h >> 1));
    bool payload = flag(SORT_FLAG_PAYLOAD);
    for (uint p = gl_LocalInvocationID.x; p < BTILE / 2u; p += WG_SIZE) {
        uvec2 ij = pair_of(p, h, lh2, reverse);
        if (base + ij.y >= N)
            continue;
        KEY ki = s_key(ij.x), kj = s_key(ij.y);
        uint pi = payload ? s_mem[S_PAY + ij.x] : 0u;
        uint pj = payload ? s_mem[S_PAY + ij.y] : 0u;
        if (after(ki, pi, kj, pj)) {
            s_key_set(ij.x, kj);
            s_key_set(ij.y, ki);
            if (payload) {
                s_mem[S_PAY + ij.x] = pj;
                s_mem[S_PAY + ij.y] = pi;
            }
        }
    }
    SYNC();
}

// The padded length nn = 2^ceil(log2 N) (N >= 2 here).
uint padded_length() { return 1u << (uint(findMSB(N - 1u)) + 1u); }

void stage_local_sort()
{
    uint base = group_index() * BTILE;
    tile_load(base);
    uint top = min(BTILE, padded_length());
    for (uint h = 2u; h <= top; h <<= 1) {
        tile_step(base, h, true);
        for (uint k = h >> 1; k >= 2u; k >>= 1)
            tile_step(base, k, false);
    }
    tile_store(base);
}

// LOCAL_MERGE: the plain steps of blocks BTILE .. 2, i.e. of the index bits
// 10 down to 0. With REGISTER_STAGES in registers (else by tile_step): each
// invocation holds 8 of the tile's 2048 elements, first those of index
// x + 256 j (j < 8: bits 8-10 its own, so the steps of bits 10, 9, 8 pair
// its own registers), then, through shared memory, those whose bits 5-7,
// then 2-4, then 0-2 are j, the rest of the index from x (the layouts
// below). Four exchanges (seven barriers) in place of eleven steps each
// through shared memory and a barrier. Each exchange
// writes and reads s_mem through a swizzle of the index that keeps 32
// consecutive invocations on 32 banks in both its layouts, with no room
// added. Needs WG_SIZE * MERGE_ITEMS == BTILE (sort.h: BITONIC_WG x BITONIC_ITEMS).
#define MERGE_ITEMS SORT_BITONIC_ITEMS
// The index of element j of invocation x in layout L: bits of j, of x's
// low five bits (lane) and of x's high three (w):
//   0: j at 8-10, lane at 0-4, w at 5-7 (x + 256 j, the tile in order)
//   1: j at 5-7,  lane at 0-4, w at 8-10
//   2: j at 2-4,  lane's 0-1 at 0-1 and its 2-4 at 5-7, w at 8-10
//   3: j at 0-2,  lane at 3-7, w at 8-10
uint merge_index(uint form, uint x, uint j)
{
    uint lane = x & 31u, w = x >> 5;
    switch (form) {
    case 0u: return x + (j << 8);
    case 1u: return lane | (j << 5) | (w << 8);
    case 2u: return (lane & 3u) | (j << 2) | ((lane >> 2) << 5) | (w << 8);
    default: return j | (lane << 3) | (w << 8);
    }
}
// The shared word of index i in the exchange from layout L to the next (to
// layout 0 after 3): a bijection whose low five bits take five index bits
// that both layouts give to their lanes, each xor-ed with bits a layout
// fixes per j, so that both sides hit 32 banks (f64 keys take two words:
// two lanes a bank, as anywhere).
uint merge_slot(uint form, uint i)
{
    switch (form) {
    case 0u: return i;                             // 0 -> 1: lanes at bits 0-4 in both
    case 1u: return i ^ (((i >> 5) & 7u) << 2);    // 1 -> 2: bits 2-4 xor 5-7
    case 2u:                                       // 2 -> 3: bits (0^3, 1^4, 5, 6, 7, 2, 3, 4)
        return (i & ~0xffu) | ((i ^ (i >> 3)) & 3u) | (((i >> 5) & 7u) << 2) |
               (((i >> 2) & 7u) << 5);
    default: return i ^ ((i >> 5) & 7u);           // 3 -> 0: bits 0-2 xor 5-7
    }
}
// One layout's steps: of its j-bits e (highest first, layout 3 from bit 1),
// pairs j and j + 2^e whose partner is below len.
void merge_steps(uint form, uint x, uint len, inout KEY k[MERGE_ITEMS], inout uint pv[MERGE_ITEMS])
{
    UNROLL for (uint e = 3u; e-- > 0u;) {
        uint dist = 1u << e;
        if (form == 3u && e == 2u)
            continue; // bit 2, done in layout 2
        UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
            if ((j & dist) != 0u || merge_index(form, x, j + dist) >= len)
                continue; // the partner is past the end: +inf, no exchange
            EXCHANGE_IN_REGISTERS(j, j + dist)
        }
    }
}
// From layout `form` to the next (after 3, to 0): written, then read back.
void merge_exchange(uint form, uint x, bool payload, inout KEY k[MERGE_ITEMS],
                    inout uint pv[MERGE_ITEMS])
{
    uint next = (form + 1u) & 3u;
    UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
        uint a = merge_slot(form, merge_index(form, x, j));
        s_key_set(a, k[j]);
        if (payload)
            s_mem[S_PAY + a] = pv[j];
    }
    SYNC();
    UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
        uint a = merge_slot(form, merge_index(next, x, j));
        k[j] = s_key(a);
        pv[j] = payload ? s_mem[S_PAY + a] : 0u;
    }
}
// The four layouts written out, not a loop over them: with the layout a loop
// variable NVIDIA's GL compiler took 3.4x the shared-memory steps' time on an
// H200, written out still 1.7x (GL keeps those); Vulkan's 0.75x either way.
void stage_local_merge()
{
    // A group past the last tile (a dispatch spread over y rounds the groups
    // up) has nothing to merge; uniform, so before any barrier.
    uint base = group_index() * BTILE;
    if (base >= N)
        return;
    if (!REGISTER_STAGES) { // the steps through shared memory
        tile_load(base);
        for (uint k = BTILE; k >= 2u; k >>= 1)
            tile_step(base, k, false);
        tile_store(base);
        return;
    }
    uint x = gl_LocalInvocationID.x;
    uint len = min(BTILE, N - base); // elements of this tile below N
    bool payload = flag(SORT_FLAG_PAYLOAD);
    KEY k[MERGE_ITEMS];
    uint pv[MERGE_ITEMS];
    UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
        uint i = merge_index(0u, x, j);
        k[j] = i < len ? keys_a[KEY_OFF_A + base + i] : KEY(0u);
        pv[j] = i < len && payload ? pay_a[PAY_OFF_A + base + i] : 0u;
    }
    merge_steps(0u, x, len, k, pv);
    merge_exchange(0u, x, payload, k, pv);
    merge_steps(1u, x, len, k, pv);
    SYNC(); // the exchange before is read
    merge_exchange(1u, x, payload, k, pv);
    merge_steps(2u, x, len, k, pv);
    SYNC();
    merge_exchange(2u, x, payload, k, pv);
    merge_steps(3u, x, len, k, pv);
    SYNC();
    merge_exchange(3u, x, payload, k, pv);
    UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
        uint i = merge_index(0u, x, j);
        if (i < len) {
            keys_a[KEY_OFF_A + base + i] = k[j];
            if (payload)
                pay_a[PAY_OFF_A + base + i] = pv[j];
        }
    }
}
// ------------------------------------------------------------------ radix

// Regions of s_mem in the radix stages (words):
//   S_CNT    the subgroups' digit counters, two 16-bit halves a word
//            (subgroups 2s and 2s + 1: a count or offset never passes a
//            tile, at most 8192 keys); HIST, whose counts span many tiles,
//            keeps a whole word per counter instead. Once a tile's slots
//            are known the counters are dead, and the region holds
//            SCATTER's digit bytes of the staged slots (segment passes).
//   S_TOT    the tile's digit totals; SCATTER and ONESWEEP, once the
//            starts are known, where the tile's run of each digit goes,
//            less its start
//   S_START  their exclusive scan: where each digit's run starts in the tile
//   S_DIG    digit_starts' subgroup sums, ONESWEEP's ticket, range and stuck tile;
//            without subgroups the emulated ballot's digit of each invocation
//   S_STAGE  the tile's keys or payloads in digit order; ONESWEEP's
//            look-back state first, and then its tile a part at a time
// So a tile of 256 x 8 u32 keys takes 14.1 KB: three groups to a
// multiprocessor on an H100 where the earlier 22.5 KB allowed two; a
// one-sweep tile of 256 x 16 keys takes as much.
#define S_CNT   0u
#define S_TOT   (S_CNT + S_CNT_WORDS)
#define S_START (S_TOT + DIGITS)
#define S_DIG   (S_START + DIGITS)
#define S_STAGE (S_DIG + S_DIG_WORDS)
#define S_DGT   S_CNT

// Subgroup s's counter of digit d: the half of a word, read and added to.
uint cnt_word(uint s, uint d) { return S_CNT + (s >> 1) * DIGITS + d; }
uint cnt_shift(uint s) { return (s & 1u) * 16u; }
uint cnt_get(uint s, uint d) { return (s_mem[cnt_word(s, d)] >> cnt_shift(s)) & 0xffffu; }
uint cnt_add(uint s, uint d, uint v)
{
    return (atomicAdd(s_mem[cnt_word(s, d)], v << cnt_shift(s)) >> cnt_shift(s)) & 0xffffu;
}
void cnt_clear()
{
    for (uint w = gl_LocalInvocationID.x; w < S_CNT_WORDS; w += WG_SIZE)
        s_mem[S_CNT + w] = 0u;
}

uint payload_of(uint i)
{
    return flag(SORT_PAYLOAD_IS_INDEX) ? IOTA_BASE + i : pay_a[PAY_OFF_A + i];
}

uint digit_in(KEY k, uint payload, uint pass)
{
    if (pass < KEY_PASSES)
        return ord_byte(key_order(k), pass);
    return (segment_of(payload) >> ((pass - KEY_PASSES) * 8u)) & 0xffu;
}
uint digit_of(KEY k, uint payload) { return digit_in(k, payload, PASS); }

bool pass_needs_payload() { return PASS >= KEY_PASSES; }

// Ranking inside a tile is done by "subgroups" of SGS invocations that each
// own a contiguous chunk of the tile: real subgroups where the device has
// ballots, else virtual ones of WG_SIZE / MAX_SG invocations whose ballots
// go through shared memory. Either way an element's rank among the equal
// digits of its chunk counts only lanes before it, so the scatter is stable.
#ifdef SUBGROUPS
uint sg_id() { return gl_SubgroupID; }
uint sg_lane() { return gl_SubgroupInvocationID; }
uint sg_size() { return gl_SubgroupSize; }
uint sg_count() { return gl_NumSubgroups; }

// The valid lanes of this subgroup holding digit d (a lane that is not valid
// gets a set that holds no valid lane, or is empty). Every lane calls it.
// SORT_SHAPE_BALLOT32 (ONESWEEP's): the subgroup has at most 32 lanes, so
// a ballot's first word holds it all and the match takes 32-bit operations.
// Written twice on purpose: one uvec4 form, with the other words masked off
// by the constant BALLOT32 or left unread, measured 1% slower at 2^24-2^28
// on an H100, where the 32-bit form gains 0.2-1%.
#define BALLOT32 (ONLY_STAGE == SORT_STAGE_ONESWEEP && SORT_SHAPE_BALLOT32 != 0u)
uint match_digit32(uint d, bool valid)
{
    uint m = subgroupBallot(valid).x;
    for (uint b = 0u; b < 8u; b++) {
        bool bit = ((d >> b) & 1u) != 0u;
        uint v = subgroupBallot(bit).x;
        m &= bit ? v : ~v;
    }
    return m;
}
uvec4 match_digit(uint d, bool valid)
{
    // Eight ballots: NV_shader_subgroup_partitioned's one-instruction match
    // was slower on an H100 (docs/DECISIONS.md).
    uvec4 m = subgroupBallot(valid);
    for (uint b = 0u; b < 8u; b++) {
        bool bit = ((d >> b) & 1u) != 0u;
        uvec4 v = subgroupBallot(bit);
        m &= bit ? v : ~v;
    }
    return m;
}

// The rank of this lane's element (digit d) among the elements of digit d
// that its subgroup has ranked so far, counting the valid lanes before it
// in this call; every lane of the subgroup calls it, and the subgroup's
// counter of d grows by their number: the last of them adds it and passes
// the count before to the others. The barrier orders this call's additions
// before the next call's, whichever lanes make them.
uint rank_in_subgroup(uint d, bool valid)
{
    uint lane = gl_SubgroupInvocationID;
    if (BALLOT32) {
        uint m = match_digit32(d, valid);
        uint last = valid ? uint(findMSB(m)) : lane;
        uint seen = 0u;
        if (valid && lane == last)
            seen = cnt_add(gl_SubgroupID, d, uint(bitCount(m)));
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        return subgroupShuffle(seen, last) + uint(bitCount(m & gl_SubgroupLtMask.x));
    }
    uvec4 m = match_digit(d, valid);
    uint last = valid ? subgroupBallotFindMSB(m) : lane;
    uint seen = 0u;
    if (valid && lane == last)
        seen = cnt_add(gl_SubgroupID, d, subgroupBallotBitCount(m));
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    return subgroupShuffle(seen, last) + subgroupBallotExclusiveBitCount(m);
}
#else
#define VSG (WG_SIZE / MAX_SG)
uint sg_id() { return gl_LocalInvocationID.x / VSG; }
uint sg_lane() { return gl_LocalInvocationID.x % VSG; }
uint sg_size() { return VSG; }
uint sg_count() { return MAX_SG; }

// As above, with the match through shared memory; every invocation of the
// work-group must call it (it holds barriers).
uint rank_in_subgroup(uint d, bool valid)
{
    uint lid = gl_LocalInvocationID.x;
    s_mem[S_DIG + lid] = valid ? d : 0xffffffffu;
    SYNC();
    uint first = sg_id() * VSG, lane = sg_lane();
    uint before = 0u, count = 0u;
    bool last = valid;
    // A bound the compiler cannot fold (it is VSG): with VSG itself llvmpipe
    // unrolls this loop inside the tile's unrolled loop over its keys, and
    // LLVM took 34 s to build a one-sweep tile of 32 keys an invocation,
    // 4 s with this bound, whose runs are 25% slower (docs/TESTING.md).
    // Devices with subgroups never take this path.
    uint bound = min(VSG, N | VSG);
    for (uint q = 0u; q < bound; q++) {
        if (valid && s_mem[S_DIG + first + q] == d) {
            count++;
            before += q < lane ? 1u : 0u;
            last = last && q <= lane;
        }
    }
    uint seen = valid ? cnt_get(sg_id(), d) : 0u;
    SYNC();
    if (last)
        cnt_add(sg_id(), d, count); // the other half of the word is another's
    SYNC();
    return seen + before;
}
#endif

// Each subgroup's counters become its offset among the tile's elements of
// each digit (an exclusive scan over subgroups), S_TOT the tile's totals.
void tile_totals()
{
    for (uint d = gl_LocalInvocationID.x; d < DIGITS; d += WG_SIZE) {
        uint run = 0u;
        // A pair of subgroups a word (the half of a missing one holds 0).
        for (uint s = 0u; s < sg_count(); s += 2u) {
            uint w = s_mem[cnt_word(s, d)];
            uint lo = w & 0xffffu, hi = w >> 16;
            s_mem[cnt_word(s, d)] = run | ((run + lo) << 16);
            run += lo + hi;
        }
        s_mem[S_TOT + d] = run;
    }
}

#define TILE (WG_SIZE * ITEMS)

// Counts into one histogram per subgroup (S_CNT), so that equal digits
// contend only within a subgroup, with ITEMS loads in flight per invocation.
void stage_hist()
{
    uint g = group_index(), lid = gl_LocalInvocationID.x;
    for (uint w = lid; w < MAX_SG * DIGITS; w += WG_SIZE)
        s_mem[S_CNT + w] = 0u;
    SYNC();
    uint begin = g * TILES_PER_GROUP * TILE;
    uint end = min(N, begin + TILES_PER_GROUP * TILE);
    bool need_payload = pass_needs_payload();
    uint counters = S_CNT + (lid % MAX_SG) * DIGITS;
    for (uint tile = begin; tile < end; tile += TILE) {
        KEY k[ITEMS];
        uint pv[ITEMS];
        for (uint it = 0u; it < ITEMS; it++) {
            uint i = tile + it * WG_SIZE + lid;
            k[it] = i < end ? keys_a[KEY_OFF_A + i] : KEY(0u);
            pv[it] = i < end && need_payload ? payload_of(i) : 0u;
        }
        for (uint it = 0u; it < ITEMS; it++)
            if (tile + it * WG_SIZE + lid < end)
                atomicAdd(s_mem[counters + digit_of(k[it], pv[it])], 1u);
    }
    SYNC();
    for (uint d = lid; d < DIGITS; d += WG_SIZE) {
        uint sum = 0u;
        for (uint s = 0u; s < MAX_SG; s++)
            sum += s_mem[S_CNT + s * DIGITS + d];
        aux[AUX_OFF + d * GROUPS + g] = sum;
    }
}

// S_START = the exclusive prefix sums of S_TOT: where each digit's run
// starts in the tile. 32 invocations sum 8 digits each, then scan the 32
// sums (Hillis-Steele, in S_DIG, free here).
void digit_starts()
{
    uint lid = gl_LocalInvocationID.x;
#ifdef SUBGROUPS
    // One digit per invocation of the first DIGITS (whole subgroups): a
    // subgroup scan and the sums of the subgroups before, two barriers
    // instead of a dozen. In SMALL's wider groups too: on an H100 a sort of
    // 2^12 keys 7% faster on GL, 6% on Vulkan; GL's one-sweep tile (768
    // invocations) keeps the dozen, with which its f32 keys ran 7% faster
    // (docs/DECISIONS.md). S_DIG holds 32 subgroup sums: a wide group of
    // 4-lane subgroups (lavapipe on 128-bit vectors; no plan makes one
    // today, knobs could) takes the path below.
    if ((WG_SIZE == DIGITS || (ONLY_STAGE == SORT_STAGE_SMALL && WG_SIZE > DIGITS)) &&
        gl_SubgroupSize * S_DIG_WORDS >= DIGITS) {
        uint t = 0u, x = 0u;
        if (lid < DIGITS) {
            t = s_mem[S_TOT + lid];
            x = subgroupExclusiveAdd(t);
            if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u)
                s_mem[S_DIG + gl_SubgroupID] = x + t;
        }
        SYNC();
        if (lid < DIGITS) {
            for (uint s = 0u; s < gl_SubgroupID; s++)
                x += s_mem[S_DIG + s];
            s_mem[S_START + lid] = x;
        }
        SYNC();
        return;
    }
#endif
    uint sum = 0u;
    if (lid < 32u) {
        for (uint k = 0u; k < 8u; k++)
            sum += s_mem[S_TOT + lid * 8u + k];
        s_mem[S_DIG + lid] = sum;
    }
    SYNC();
    for (uint step = 1u; step < 32u; step <<= 1) {
        uint v = lid < 32u && lid >= step ? s_mem[S_DIG + lid - step] : 0u;
        SYNC();
        if (lid < 32u)
            s_mem[S_DIG + lid] += v;
        SYNC();
    }
    if (lid < 32u) {
        uint run = s_mem[S_DIG + lid] - sum;
        for (uint k = 0u; k < 8u; k++) {
            uint d = lid * 8u + k;
            uint t = s_mem[S_TOT + d];
            s_mem[S_START + d] = run;
            run += t;
        }
    }
    SYNC();
}

// The digit of the element staged at tile slot q (bytes packed in S_DGT).
uint staged_digit(uint q) { return (s_mem[S_DGT + (q >> 2)] >> ((q & 3u) * 8u)) & 0xffu; }

#if defined(TYPE_F64)
void stage_key(uint q, KEY k) { s_mem[S_STAGE + 2u * q] = k.x; s_mem[S_STAGE + 2u * q + 1u] = k.y; }
KEY staged_key(uint q) { return uvec2(s_mem[S_STAGE + 2u * q], s_mem[S_STAGE + 2u * q + 1u]); }
#else
void stage_key(uint q, KEY k) { s_mem[S_STAGE + q] = k; }
KEY staged_key(uint q) { return s_mem[S_STAGE + q]; }
#endif

// The last step of SCATTER and ONESWEEP, slot by slot: the element of tile
// slot q, staged at q - first, goes to where its digit's run of the tile goes
// (s_mem[runs + d], less the run's start in the tile) plus q. The key's
// writer returns the digit (a segment pass's from S_DGT: the staged key does
// not tell it), which the payload's writer gets back once the payloads are
// staged over the keys.
uint write_staged_key(uint runs, uint q, uint first, bool segment_pass)
{
    KEY kq = staged_key(q - first);
    uint d = segment_pass ? staged_digit(q) : ord_byte(key_order(kq), PASS);
    keys_b[KEY_OFF_B + s_mem[runs + d] + q] = kq;
    return d;
}
void write_staged_payload(uint runs, uint q, uint first, uint d)
{
    pay_b[PAY_OFF_B + s_mem[runs + d] + q] = s_mem[S_STAGE + q - first];
}

// Ranks every element of the tile among the equal digits before it (by
// subgroup chunks, see match_digit), then writes keys and payloads through
// shared memory in digit order, so that each digit's run of the tile is
// written by consecutive invocations to consecutive addresses.
#define DIGITS_PER_INV ((DIGITS + WG_SIZE - 1u) / WG_SIZE)
#define S_SCATTER_OUT S_TOT
void stage_scatter()
{
    uint g = group_index(), lid = gl_LocalInvocationID.x;
    uint sg = sg_id(), lane = sg_lane(), sgs = sg_size();
    // The group's running base of digit lid + j * WG_SIZE, in registers.
    uint base[DIGITS_PER_INV];
    UNROLL for (uint j = 0u; j < DIGITS_PER_INV; j++) {
        uint d = lid + j * WG_SIZE;
        base[j] = d < DIGITS ? aux[AUX_OFF + d * GROUPS + g] : 0u;
    }
    cnt_clear();
    SYNC();
    uint begin = g * TILES_PER_GROUP * TILE;
    uint end = min(N, begin + TILES_PER_GROUP * TILE);
    bool payload = flag(SORT_FLAG_PAYLOAD) || flag(SORT_PAYLOAD_IS_INDEX);
    bool segment_pass = pass_needs_payload();
    bool need_payload = payload || segment_pass;
    for (uint tile = begin; tile < end; tile += TILE) {
        uint chunk = tile + sg * sgs * ITEMS;
        KEY k[ITEMS];
        uint pv[ITEMS], dg[ITEMS], slot[ITEMS];
        // Every load first, so that they are in flight together.
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint i = chunk + it * sgs + lane;
            k[it] = i < end ? keys_a[KEY_OFF_A + i] : KEY(0u);
            pv[it] = i < end && need_payload ? payload_of(i) : 0u;
        }
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            bool valid = chunk + it * sgs + lane < end;
            uint d = valid ? digit_of(k[it], pv[it]) : 0u;
            dg[it] = valid ? d : DIGITS;
            slot[it] = rank_in_subgroup(d, valid);
        }
        SYNC();
        tile_totals();
        SYNC();
        digit_starts();
        UNROLL for (uint it = 0u; it < ITEMS; it++)
            if (dg[it] != DIGITS)
                slot[it] += s_mem[S_START + dg[it]] + cnt_get(sg, dg[it]);
        // The totals are read for the last time: where each digit's run of
        // the tile goes, less its start, takes their place.
        UNROLL for (uint j = 0u; j < DIGITS_PER_INV; j++) {
            uint d = lid + j * WG_SIZE;
            if (d < DIGITS) {
                uint total = s_mem[S_TOT + d];
                s_mem[S_SCATTER_OUT + d] = base[j] - s_mem[S_START + d];
                base[j] += total;
            }
        }
        if (segment_pass) {
            // A segment digit comes from the segment of the payload, which the
            // staged key does not tell: keep it a byte per slot in the
            // counters' region, dead now.
            SYNC();
            for (uint w = lid; w < S_RTILE / 4u; w += WG_SIZE)
                s_mem[S_DGT + w] = 0u;
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++)
                if (dg[it] != DIGITS)
                    atomicOr(s_mem[S_DGT + (slot[it] >> 2)], dg[it] << ((slot[it] & 3u) * 8u));
        }
        UNROLL for (uint it = 0u; it < ITEMS; it++)
            if (dg[it] != DIGITS)
                stage_key(slot[it], k[it]);
        SYNC();
        uint count = min(TILE, end - tile);
        uint digits[(ITEMS + 3u) / 4u]; // the digit of slot it * WG_SIZE + lid, a byte each
        UNROLL for (uint w = 0u; w < (ITEMS + 3u) / 4u; w++)
            digits[w] = 0u;
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint q = it * WG_SIZE + lid;
            if (q < count)
                digits[it / 4u] |= write_staged_key(S_SCATTER_OUT, q, 0u, segment_pass) << (it % 4u * 8u);
        }
        if (payload) {
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++)
                if (dg[it] != DIGITS)
                    s_mem[S_STAGE + slot[it]] = pv[it];
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++) {
                uint q = it * WG_SIZE + lid;
                if (q < count)
                    write_staged_payload(S_SCATTER_OUT, q, 0u, digits[it / 4u] >> (it % 4u * 8u) & 0xffu);
            }
        }
        SYNC();
        cnt_clear();
        SYNC();
    }
}
// ------------------------------------------------------- one-sweep radix
//
// The same tile ranking, with the digit offsets found in the pass itself:
// OS_HIST counts every pass's digits in one read of the keys, OS_SCAN turns
// them into each digit's start, and each ONESWEEP tile adds the counts of
// the tiles before it, read from a status word per (tile, digit) that holds
// a flag and a count (one load reads both): AGGREGATE (the tile's own count)
// or INCLUSIVE (the count of every tile up to it). A tile whose status is
// not yet written is counted again from its keys by the waiting tile, so no
// work-group ever waits for another. Tiles go by ticket, so that a tile's
// predecessors have at least started. Counts take 30 bits: n < 2^30.
//
// Status words are relaxed atomic loads and stores under Vulkan (one word
// carries both flag and count, so no other access needs ordering with it):
// read-modify-writes in their place took a quarter longer on the H100
// (docs/DECISIONS.md). GLSL for GL has no atomic load: there they are
// read-modify-writes.
#ifdef VULKAN
uint status_load(uint at)
{
    return atomicLoad(aux[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
void status_store(uint at, uint v)
{
    atomicStore(aux[at], v, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
#else
uint status_load(uint at) { return atomicOr(aux[at], 0u); }
void status_store(uint at, uint v) { atomicExchange(aux[at], v); }
#endif
#define OS_FLAG_AGG  0x40000000u
#define OS_FLAG_INCL 0x80000000u
#define OS_FLAGS     (OS_FLAG_AGG | OS_FLAG_INCL)
#define OS_COUNT     0x3fffffffu

#define OS_TILES     GROUPS
#define OS_RANGES    max(NRANGES, 1u)
#define OS_STARTS    AUX_OFF
#define OS_TICKETS   (AUX_OFF + OS_RANGES * KEY_PASSES * DIGITS)
#define OS_TICKET_WORDS SORT_OS_TICKETS
uint os_status(uint region) { return OS_TICKETS + OS_TICKET_WORDS + region * OS_TILES * DIGITS; }
// Pass PASS's start of digit d in range r.
uint os_start(uint r, uint d) { return OS_STARTS + (r * KEY_PASSES + PASS) * DIGITS + d; }

// Ranges (NRANGES > 0, sort_keys.ranges): [first, end) of the N elements, each sorted alone,
// as if each were a sort of its own, in one dispatch a pass for all of them. A range's
// tiles are its own (the last one short), numbered on from the range before; the host's
// table after the status regions holds each range's first tile and first element, and
// after the last range the tile count and N. Without ranges there is one, tile 0 to the
// last, elements 0 to N.
uint range_word(uint r, uint w) { return aux[os_status(2u) + 2u * r + w]; }
uint range_tile(uint r)
{
    return NRANGES == 0u ? (r == 0u ? 0u : OS_TILES) : range_word(r, 0u);
}
uint range_first(uint r) { return NRANGES == 0u ? (r == 0u ? 0u : N) : range_word(r, 1u); }
// The range of element i: the last one starting at or before it (an empty
// range starts where the next does).
uint range_of(uint i)
{
    uint lo = 0u, hi = OS_RANGES;
    while (hi - lo > 1u) {
        uint mid = (lo + hi) / 2u;
        if (range_first(mid) <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// OS_CLEAR: the digit counts and the tile tickets start at zero.
void stage_os_clear()
{
    uint i = invocation_index();
    if (i < OS_RANGES * KEY_PASSES * DIGITS + OS_TICKET_WORDS)
        aux[AUX_OFF + i] = 0u;
}

// OS_HIST: every pass's digit counts at once (a digit histogram does not
// depend on the order of the keys), and both status regions cleared (each
// pass clears the next one's again, tile by tile; clearing both here lets
// any pass run alone after this stage, as the tests run them). A program of
// its own (radix.c), ITEMS loads in flight per invocation: it streams the keys.
// Each group counts one block of whole tiles of the N elements, range by
// range, and adds each range's counts to that range's.
void os_count(uint from, uint to)
{
    uint lid = gl_LocalInvocationID.x;
    for (uint base = from; base < to; base += TILE) {
        KEY k[ITEMS];
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint i = base + it * WG_SIZE + lid;
            k[it] = i < to ? keys_a[KEY_OFF_A + i] : KEY(0u);
        }
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            if (base + it * WG_SIZE + lid >= to)
                continue;
            ORD o = key_order(k[it]);
            for (uint p = 0u; p < KEY_PASSES; p++)
                atomicAdd(s_mem[p * DIGITS + ord_byte(o, p)], 1u);
        }
    }
}
void os_flush(uint r)
{
    SYNC();
    for (uint w = gl_LocalInvocationID.x; w < KEY_PASSES * DIGITS; w += WG_SIZE) {
        if (s_mem[w] != 0u)
            atomicAdd(aux[OS_STARTS + r * KEY_PASSES * DIGITS + w], s_mem[w]);
        s_mem[w] = 0u;
    }
    SYNC();
}
void stage_os_hist()
{
    uint lid = gl_LocalInvocationID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y, stride = groups * WG_SIZE;
    for (uint w = lid; w < KEY_PASSES * DIGITS; w += WG_SIZE)
        s_mem[w] = 0u;
    SYNC();
    for (uint i = invocation_index(); i < 2u * OS_TILES * DIGITS; i += stride)
        aux[os_status(0u) + i] = 0u;
    uint block = (N + groups * TILE - 1u) / (groups * TILE) * TILE;
    uint from = min(N, group_index() * block), to = min(N, from + block);
    for (uint r = range_of(from); from < to; r++) {
        uint stop = min(to, range_first(r + 1u));
        os_count(from, stop);
        os_flush(r);
        from = stop;
    }
}

// OS_SCAN (a work-group per range): each pass's counts become its digits'
// starts, from the range's first element.
void stage_os_scan()
{
    uint lid = gl_LocalInvocationID.x, r = group_index(), first = range_first(r);
    for (uint p = 0u; p < KEY_PASSES; p++) {
        uint at = OS_STARTS + (r * KEY_PASSES + p) * DIGITS;
        for (uint d = lid; d < DIGITS; d += WG_SIZE)
            s_mem[S_TOT + d] = aux[at + d];
        SYNC();
        digit_starts();
        for (uint d = lid; d < DIGITS; d += WG_SIZE)
            aux[at + d] = first + s_mem[S_START + d];
        SYNC();
    }
}

// ONESWEEP stages its tile OS_SLOTS slots at a time (8 KB of keys), so that a
// tile of 256 x 16 keys takes 14.1 KB of shared memory where the whole tile
// took 22.6 KB: three groups to an H100 multiprocessor instead of two
// (docs/DECISIONS.md). The ranks stay in registers through the look-back,
// which keeps its state where the keys are staged later: per digit the count of
// earlier tiles so far (S_LB_SUM), how many earlier tiles are still to be
// counted (S_LB_LEFT, counted down from the nearest) and a missing tile's
// digit counts (S_RECOUNT); S_LB_STUCK names the nearest tile (+ 1) at which
// some digit found no status. Once the look-back is done, S_TOT (read for
// the last time) takes where the tile's run of each digit goes, less its
// start in the tile.
#define OS_PARTS ((TILE + OS_SLOTS - 1u) / OS_SLOTS)
#define S_LB_SUM   S_STAGE
#define S_LB_LEFT  (S_STAGE + DIGITS)
#define S_RECOUNT  (S_STAGE + 2u * DIGITS)
#define S_ONESWEEP_OUT S_TOT
#define S_LB_STUCK S_DIG
#define S_TICKET   S_DIG /* until digit_starts uses the region */
#define S_RANGE    (S_DIG + 1u) /* likewise */

// The statuses of LB_WINDOW tiles are read at once: with tiles of 256 x 16
// keys 4 measured 2% faster than 8 and 16 6% slower (docs/DECISIONS.md).
#define LB_WINDOW 4u

// The look-back of a tile of the range whose first tile is `lo` stops there.
// The statuses of tiles left - 1, left - 2, ... (LB_WINDOW of them) for digit
// d; before tile lo an inclusive zero.
void read_window(uint region, uint d, uint lo, uint left, out uint st[LB_WINDOW])
{
    UNROLL for (uint j = 0u; j < LB_WINDOW; j++)
        st[j] = j < left - lo ? status_load(region + (left - 1u - j) * DIGITS + d)
                              : OS_FLAG_INCL;
}

// Adds the count of a published status of tile left - 1 and steps past it
// (to lo when it is inclusive).
void take_status(uint st, uint lo, inout uint left, inout uint sum)
{
    sum += st & OS_COUNT;
    left = (st & OS_FLAG_INCL) != 0u ? lo : left - 1u;
}

// Adds the counts of a window read at `left`, nearest first, up to the first
// inclusive one or the first missing one; whether one was missing.
bool take_window(uint st[LB_WINDOW], uint lo, inout uint left, inout uint sum)
{
    bool open = true, missing = false;
    UNROLL for (uint j = 0u; j < LB_WINDOW; j++) {
        if (!open)
            continue;
        if ((st[j] & OS_FLAGS) == 0u) {
            missing = true;
            open = false;
            continue;
        }
        take_status(st[j], lo, left, sum);
        open = left > lo;
    }
    return missing;
}

// Walks back from tile `left` - 1 for digit d until an inclusive count, the
// range's first tile, or a tile with no status yet.
void lookback_walk(uint region, uint d, uint lo)
{
    uint left = s_mem[S_LB_LEFT + d], sum = s_mem[S_LB_SUM + d];
    while (left > lo) {
        if (flag(SORT_ONESWEEP_RECOUNT)) {
            atomicMax(s_mem[S_LB_STUCK], left);
            break;
        }
        uint st[LB_WINDOW];
        read_window(region, d, lo, left, st);
        if (!take_window(st, lo, left, sum))
            continue;
        // A tile that started just before this one is usually about to
        // publish: poll a bounded number of times, then count it ourselves.
        uint st1 = 0u;
        for (uint poll = 0u; poll < OS_POLLS && (st1 & OS_FLAGS) == 0u; poll++)
            st1 = status_load(region + (left - 1u) * DIGITS + d);
        if ((st1 & OS_FLAGS) == 0u) {
            atomicMax(s_mem[S_LB_STUCK], left);
            break;
        }
        take_status(st1, lo, left, sum);
    }
    s_mem[S_LB_LEFT + d] = left;
    s_mem[S_LB_SUM + d] = sum;
}

// ONESWEEP: pass PASS on the tile t whose ticket this group draws. Its
// digit counts come first (by ranking each subgroup's keys, or by a count of
// their own before the ranking) and are published at once, so that later
// tiles rarely find them missing; the first window of the look-back is read
// then too, and arrives while the ranks are completed (in registers: slots,
// not yet staged). The look-back comes
// next, then the keys are written through shared memory a part of OS_SLOTS
// slots at a time; payloads are read only once the keys are written, so
// they take no registers until then.
#define RANGED (SORT_SHAPE_RANGED != 0u) /* ONESWEEP: NRANGES > 0 (radix.c) */
#define RANK_FIRST (SORT_SHAPE_RANK_FIRST != 0u) /* ONESWEEP: radix_plan.os_rank_first */
// SORT_SHAPE_CARRIES: payloads to carry. Keys alone take a program without the
// payload's writes and the digit bytes kept for them (fewer registers: NVIDIA's
// Vulkan compiler fits a 384 x 20 tile in 80 registers without spilling into
// shared memory, radix_plan_for_keys).
#define OS_CARRIES (SORT_SHAPE_CARRIES != 0u)
#define NO_RANK 0xffffu
#define RANK_OF(IT) ((rank[(IT) / 2u] >> ((IT) % 2u * 16u)) & 0xffffu)
void stage_onesweep()
{
    uint lid = gl_LocalInvocationID.x;
    uint sg = sg_id(), lane = sg_lane(), sgs = sg_size();
    uint cur = os_status(PASS & 1u), next = os_status((PASS + 1u) & 1u);
    if (lid == 0u)
        s_mem[S_TICKET] = atomicAdd(aux[OS_TICKETS + PASS], 1u);
    if (lid == 1u)
        s_mem[S_RANGE] = 0u;
    SYNC();
    uint t = s_mem[S_TICKET];
    // The tile's range: its first tile lo and its elements [begin, stop). The
    // ranges after the first that start at or before t, counted at once (a
    // search would be a chain of loads before the keys'). A program of its own
    // (RANGED): in the one without, they are the constants they fold to.
    uint range = 0u, lo = 0u, begin = 0u, stop = N;
    if (RANGED) {
        for (uint r = lid + 1u; r < NRANGES; r += WG_SIZE)
            if (range_tile(r) <= t)
                atomicAdd(s_mem[S_RANGE], 1u);
        SYNC();
        range = s_mem[S_RANGE];
        lo = range_tile(range);
        begin = range_first(range);
        stop = range_first(range + 1u);
    }
    uint tile = begin + (t - lo) * TILE, end = min(stop, tile + TILE);
    // With a count on the GPU the dispatch covers the bound's tiles: those past the
    // count's have nothing to sort, and no later tile looks back at them.
    if (t > lo && tile >= stop)
        return; // the whole group (t is shared)
    uint chunk = tile + sg * sgs * ITEMS;
    bool one_digit = WG_SIZE >= DIGITS && lid < DIGITS; // invocation lid owns digit lid
    KEY k[ITEMS];
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        uint i = chunk + it * sgs + lane;
        k[it] = i < end ? keys_a[KEY_OFF_A + i] : KEY(0u);
    }
    uint digit_start = one_digit ? aux[os_start(range, lid)] : 0u;
    cnt_clear();
    SYNC();
    // RANK_FIRST: ranks within each subgroup's chunk first, its counters from
    // zero, which then hold the subgroup's count of each digit; else a count
    // of their own first (a shared-memory atomic per key, in any order).
    uint rank[(ITEMS + 1u) / 2u]; // the slot in the tile (16 bits), or NO_RANK
    UNROLL for (uint w = 0u; w < (ITEMS + 1u) / 2u; w++)
        rank[w] = 0u;
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        bool valid = chunk + it * sgs + lane < end;
        uint d = valid ? ord_byte(key_order(k[it]), PASS) : 0u;
        if (RANK_FIRST) { // every lane calls it
            uint r = rank_in_subgroup(d, valid);
            rank[it / 2u] |= (valid ? r : NO_RANK) << (it % 2u * 16u);
        } else if (valid) {
            cnt_add(sg, d, 1u);
        }
    }
    SYNC();
    tile_totals(); // S_CNT: each subgroup's offset among the tile's equal digits
    // Publish this tile's counts; clear its status for the next pass.
    for (uint d = lid; d < DIGITS; d += WG_SIZE) {
        uint kind = t == lo ? OS_FLAG_INCL : OS_FLAG_AGG; // a range's first tile: INCLUSIVE
        status_store(cur + t * DIGITS + d, kind | s_mem[S_TOT + d]);
        aux[next + t * DIGITS + d] = 0u;
    }
    uint window[LB_WINDOW];
    bool early = one_digit && !flag(SORT_ONESWEEP_RECOUNT);
    if (early)
        read_window(cur, lid, lo, t, window);
    SYNC();
    digit_starts();
    // Each slot: the rank among the subgroup's elements of its digit, plus
    // the subgroup's offset among the tile's (RANK_FIRST: read; else where the
    // counter starts), plus where the digit starts in the tile. They touch
    // only S_CNT and S_START, not the look-back's state; the first window's
    // loads are in flight meanwhile.
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        bool valid = chunk + it * sgs + lane < end;
        uint d = valid ? ord_byte(key_order(k[it]), PASS) : 0u;
        if (RANK_FIRST) {
            if (valid)
                rank[it / 2u] += (cnt_get(sg, d) + s_mem[S_START + d]) << (it % 2u * 16u);
        } else {
            uint r = rank_in_subgroup(d, valid) + s_mem[S_START + d];
            rank[it / 2u] |= (valid ? r : NO_RANK) << (it % 2u * 16u);
        }
    }
    for (uint d = lid; d < DIGITS; d += WG_SIZE) {
        uint left = t, sum = 0u;
        if (early) // then d == lid
            take_window(window, lo, left, sum);
        s_mem[S_LB_LEFT + d] = left;
        s_mem[S_LB_SUM + d] = sum;
    }
    for (;;) {
        if (lid == 0u)
            s_mem[S_LB_STUCK] = 0u;
        SYNC();
        for (uint d = lid; d < DIGITS; d += WG_SIZE)
            lookback_walk(cur, d, lo);
        SYNC();
        uint stuck = s_mem[S_LB_STUCK];
        if (stuck == 0u)
            break;
        // Count the digits of tile stuck - 1 from its keys.
        for (uint d = lid; d < DIGITS; d += WG_SIZE)
            s_mem[S_RECOUNT + d] = 0u;
        SYNC();
        uint from = begin + (stuck - 1u - lo) * TILE, to = min(stop, from + TILE);
        for (uint i = from + lid; i < to; i += WG_SIZE)
            atomicAdd(s_mem[S_RECOUNT + ord_byte(key_order(keys_a[KEY_OFF_A + i]), PASS)], 1u);
        SYNC();
        for (uint d = lid; d < DIGITS; d += WG_SIZE)
            if (s_mem[S_LB_LEFT + d] == stuck) {
                s_mem[S_LB_SUM + d] += s_mem[S_RECOUNT + d];
                s_mem[S_LB_LEFT + d] = stuck - 1u;
            }
    }
    // Every digit's earlier count is known: publish the inclusive count, and
    // where this tile's run of each digit goes (minus its start in the tile).
    for (uint d = lid; d < DIGITS; d += WG_SIZE) {
        uint before = s_mem[S_LB_SUM + d], total = s_mem[S_TOT + d];
        if (t != lo)
            status_store(cur + t * DIGITS + d, OS_FLAG_INCL | (before + total));
        uint start = one_digit ? digit_start : aux[os_start(range, d)];
        s_mem[S_ONESWEEP_OUT + d] = start + before - s_mem[S_START + d];
    }
    uint count = end - tile;
    uint digits[(ITEMS + 3u) / 4u]; // the digit of slot it * WG_SIZE + lid, a byte each
    UNROLL for (uint w = 0u; w < (ITEMS + 3u) / 4u; w++)
        digits[w] = 0u;
    for (uint part = 0u; part < OS_PARTS; part++) {
        uint first = part * OS_SLOTS;
        SYNC(); // the look-back's state, or the part before, is read
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint r = RANK_OF(it);
            if (r != NO_RANK && r - first < OS_SLOTS)
                stage_key(r - first, k[it]);
        }
        SYNC();
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint q = it * WG_SIZE + lid;
            if (q < count && q - first < OS_SLOTS)
                digits[it / 4u] |= write_staged_key(S_ONESWEEP_OUT, q, first, false) << (it % 4u * 8u);
        }
    }
    if (OS_CARRIES && (flag(SORT_FLAG_PAYLOAD) || flag(SORT_PAYLOAD_IS_INDEX))) {
        uint pv[ITEMS];
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint i = chunk + it * sgs + lane;
            pv[it] = RANK_OF(it) != NO_RANK ? payload_of(i) : 0u;
        }
        for (uint part = 0u; part < OS_PARTS; part++) {
            uint first = part * OS_SLOTS;
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++) {
                uint r = RANK_OF(it);
                if (r != NO_RANK && r - first < OS_SLOTS)
                    s_mem[S_STAGE + r - first] = pv[it];
            }
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++) {
                uint q = it * WG_SIZE + lid;
                if (q < count && q - first < OS_SLOTS)
                    write_staged_payload(S_ONESWEEP_OUT, q, first, digits[it / 4u] >> (it % 4u * 8u) & 0xffu);
            }
        }
    }
}
// ------------------------------------------------------- one-group radix
//
// SMALL: a sort of up to one tile (WG_SIZE * ITEMS elements) by one
// work-group, every pass in shared memory: keys_a/pay_a -> keys_b/pay_b in
// one dispatch, where the other radix sorts take a pass's two or three. Each
// pass ranks the elements as SCATTER does (by subgroup chunks, stable), puts
// them in their slot in shared memory and reads them back in chunk order,
// so the next pass sees them in this pass's order. Every element is read
// before any is written: in place is fine.
void stage_small()
{
    uint lid = gl_LocalInvocationID.x;
    uint sg = sg_id(), lane = sg_lane(), sgs = sg_size();
    uint chunk = sg * sgs * ITEMS;
    bool payload = flag(SORT_FLAG_PAYLOAD) || flag(SORT_PAYLOAD_IS_INDEX);
    KEY k[ITEMS];
    uint pv[ITEMS];
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        uint i = chunk + it * sgs + lane;
        k[it] = i < N ? keys_a[KEY_OFF_A + i] : KEY(0u);
        pv[it] = i < N && payload ? payload_of(i) : 0u;
    }
    for (uint pass = 0u; pass < PASSES; pass++) {
        cnt_clear();
        SYNC();
        uint dg[ITEMS], slot[ITEMS];
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            bool valid = chunk + it * sgs + lane < N;
            dg[it] = valid ? digit_in(k[it], pv[it], pass) : 0u;
            slot[it] = rank_in_subgroup(dg[it], valid);
        }
        SYNC();
        tile_totals();
        SYNC();
        digit_starts();
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            if (chunk + it * sgs + lane >= N)
                continue;
            uint d = dg[it];
            slot[it] += s_mem[S_START + d] + cnt_get(sg, d);
            stage_key(slot[it], k[it]);
        }
        SYNC();
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint q = chunk + it * sgs + lane;
            if (q < N)
                k[it] = staged_key(q);
        }
        if (payload) {
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++)
                if (chunk + it * sgs + lane < N)
                    s_mem[S_STAGE + slot[it]] = pv[it];
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++) {
                uint q = chunk + it * sgs + lane;
                if (q < N)
                    pv[it] = s_mem[S_STAGE + q];
            }
        }
        SYNC();
    }
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        uint i = chunk + it * sgs + lane;
        if (i < N) {
            keys_b[KEY_OFF_B + i] = k[it];
            if (payload)
                pay_b[PAY_OFF_B + i] = pv[it];
        }
    }
}

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
