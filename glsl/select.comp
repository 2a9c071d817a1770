// select.comp: stream compaction and partition (gpgpu_select). The elements whose flag is
// set, or whose value compares true with a constant, are written in input order, with a
// u32 payload and their input indices where asked; partitioning, the rejected ones follow
// them, in input order too.
// variants: TYPE=U32,I32,F32,F64
//
// Stages (STAGE = params[0], numbered in src/algo/ids/select_ids.h); offsets and counts in
// elements. A tile is WG_SIZE * ITEMS elements; N may be a count on the GPU (device_count,
// common.glsl).
//   COUNT     reduce-then-scan, pass 1: group g counts the kept elements of its run of
//             TILES_PER_GROUP tiles into state[g] (g < GROUPS).
//   SCATTER   pass 2: group g sums state[0..GROUPS) into the kept elements before its
//             run and the total (each group reads the few partial counts itself: no
//             scan between the passes), then writes its run tile by tile: a kept
//             element at its rank among the kept, a rejected one (PARTITION) at the
//             total plus its rank among the rejected. Group 0 leaves the total at
//             state[GROUPS].
//   CLEAR     single pass: state words [0, N) = 0.
//   CHAINED   single pass (no partition): group i takes tile i (MODE's BY_GROUP) or a
//             group draws its tile by ticket (state[0]); it counts its kept elements,
//             publishes the count at state[2 + t], learns the count before its tile by a
//             decoupled look-back over those words (a silent predecessor is counted again
//             from its input after POLLS reads, so no group waits on another), and
//             writes; the last tile leaves the total at state[1].
// SCATTER and CHAINED write staged (SELECT_SHAPE_STAGED: through shared memory in output
// order, stored by consecutive invocations) or each element from its invocation.
// Keep modes (MODE bits 0-3): 0 the flag (binding 1) is nonzero; 1-6 the value compares
// <, <=, >, >=, ==, != with VALUE (gpgpu_compare), floats as C compares them: a NaN on
// either side makes every comparison false but !=, and -0 equals +0; 7 (HEADS) the element
// starts a run of equal elements (the first, or one that differs from its predecessor in
// the sort's total order: every NaN one value, -0 and +0 two; programs of SELECT_SHAPE_HEADS
// alone), which makes a selection the run-length encoding's (src/algo/rle.c). NO_OUT: only
// the payload and indices are written.

layout(std430, binding = 0) restrict readonly buffer Src { T src[]; };
layout(std430, binding = 1) restrict readonly buffer Flags { uint flags[]; };
layout(std430, binding = 2) restrict writeonly buffer Dst { T dst[]; };
layout(std430, binding = 3) restrict readonly buffer PayIn { uint pay_in[]; };
layout(std430, binding = 4) restrict writeonly buffer PayOut { uint pay_out[]; };
layout(std430, binding = 5) restrict writeonly buffer IdxOut { uint idx_out[]; };
// COUNT's and SCATTER's partial counts, or CHAINED's ticket, total and tile statuses.
layout(std430, binding = 6) coherent buffer State { uint state[]; };

uint g_n; // the count (main reads it once)
#define N             g_n
#define SRC_OFF       params[SELECT_P_SRC_OFF]
#define DST_OFF       params[SELECT_P_DST_OFF]
#define FLAGS_OFF     params[SELECT_P_FLAGS_OFF]
#define PAY_IN_OFF    params[SELECT_P_PAY_IN_OFF]
#define PAY_OUT_OFF   params[SELECT_P_PAY_OUT_OFF]
#define IDX_OFF       params[SELECT_P_IDX_OFF]
#define STATE_OFF     params[SELECT_P_STATE_OFF]
#define MODE          params[SELECT_P_MODE]
// VALUE: params[SELECT_P_VALUE] (and the next for f64)
#define POLLS         params[SELECT_P_POLLS]
#define TILES_PER_GROUP params[SELECT_P_TILES_PER_GROUP] /* COUNT, SCATTER */
#define GROUPS        params[SELECT_P_GROUPS]   /* COUNT, SCATTER: the partial counts */
#define FORCE_RECOUNT params[SELECT_P_FORCE_RECOUNT]   /* CHAINED (tests): every look-back counts again */

#define KEEP_OP       (MODE & 15u)
#define PARTITION     ((MODE & SELECT_MODE_PARTITION) != 0u)
#define HAS_PAY       ((MODE & SELECT_MODE_PAY) != 0u)
#define HAS_IDX       ((MODE & SELECT_MODE_IDX) != 0u)
#define HAS_OUT       ((MODE & SELECT_MODE_NO_OUT) == 0u)
// The run heads' test lives in programs of its own: beside the comparisons and the flags in
// one program it slowed them (H200 Vulkan, x < 1 at 2^24: 93 -> 137 us).
#define HEADS_PROGRAM (SELECT_SHAPE_HEADS != 0u)

#define TILE (WG_SIZE * ITEMS)

#if defined(TYPE_U32)
T value() { return params[SELECT_P_VALUE]; }
#elif defined(TYPE_I32)
T value() { return int(params[SELECT_P_VALUE]); }
#else
T value() { return param_t(SELECT_P_VALUE); }
#endif

// The outcomes a comparison keeps (SELECT_KEEP_LT .. _NE with the constant c), as bits: 1 below
// c, 2 equal to it, 4 above it, 8 a NaN (only != keeps one: floats compare as in C, and -0
// equals +0); with c a NaN every element is a NaN's outcome. One uniform table, so that each
// element's test is a few selects, no branch.
uint keep_table(uint op, T c)
{
    uint want = op == SELECT_KEEP_LT ? 1u : op == SELECT_KEEP_LE ? 3u : op == SELECT_KEEP_GT ? 4u
              : op == SELECT_KEEP_GE ? 6u : op == SELECT_KEEP_EQ ? 2u : 13u;
    return t_isnan(c) ? (op == SELECT_KEEP_NE ? 15u : 0u) : want;
}

// Whether v is kept by the table `want` of keep_table(op, c). Every operand a local, so that
// glslang makes each `?:` and `&&` a select rather than a branch.
bool keeps(T v, T c, uint want)
{
    bool lt = t_lt(v, c), eq = t_eq(v, c), nan = t_isnan(v);
    bool le = lt || eq;
    uint o = lt ? 1u : 0u;
    o |= eq ? 2u : 0u;
    o |= le ? 0u : 4u;
    o = nan ? 8u : o;
    return (want & o) != 0u;
}

// Equal in the sort's total order, bits compared (no fast-math setting folds it): the run
// heads' test.
#if defined(TYPE_F32)
bool same(T a, T b)
{
    bool bits = floatBitsToUint(a) == floatBitsToUint(b), nans = t_isnan(a) && t_isnan(b);
    return bits || nans;
}
#elif defined(TYPE_F64)
bool same(T a, T b)
{
    bool bits = unpackDouble2x32(a) == unpackDouble2x32(b), nans = t_isnan(a) && t_isnan(b);
    return bits || nans;
}
#else
bool same(T a, T b) { return a == b; }
#endif

// Whether element g (with x its value, p its predecessor's, loaded whatever g) starts a run.
bool is_head(uint g, T x, T p)
{
    bool differs = !same(x, p), first = g == 0u;
    return first || differs;
}

// An invocation's ITEMS elements of a tile: with subgroups in subgroup rows (subgroup s
// owns the s-th run of width * ITEMS elements, lane l holds element r * width + l of it in
// row r), so that each row's loads and its kept elements' stores are one contiguous
// stretch per subgroup; without, ITEMS consecutive elements per invocation.
#ifdef SUBGROUPS
#define AT(r) (gl_SubgroupID * gl_SubgroupSize * ITEMS + (r) * gl_SubgroupSize + \
               gl_SubgroupInvocationID)
#else
#define AT(r) (gl_LocalInvocationID.x * ITEMS + (r))
#endif

// Where row r loads from in a tile of `count` elements (at least 1): its element, clamped
// to the last one. Every row loads, with no branch around its load, and the rows past the
// count are left out of the keep mask instead: a load under `inside ? src[i] : 0` or
// `inside && flags[i] != 0` is a branch in SPIR-V (glslang branches around any operand
// that reads memory), and NVIDIA's compilers gave each such row a block of its own and
// waited for its load before the next row's, so a tile took ITEMS load latencies in turn
// instead of one (docs/DECISIONS.md, "Selection loads every row at once").
uint row_at(uint r, uint count)
{
    return min(AT(r), count - 1u);
}

// HEADS_PROGRAM's load_tile: each row's element and its predecessor (a cached line mostly)
// loaded at once, the heads among the first `count` as the keep mask.
uint load_heads(uint first, uint count, out T x[ITEMS])
{
    T p[ITEMS];
    uint mask = 0u;
    UNROLL for (uint r = 0u; r < ITEMS; r++) {
        uint at = first + row_at(r, count);
        x[r] = src[SRC_OFF + at];
        p[r] = src[SRC_OFF + max(at, 1u) - 1u];
    }
    UNROLL for (uint r = 0u; r < ITEMS; r++) {
        bool inside = AT(r) < count, head = is_head(first + AT(r), x[r], p[r]);
        uint bit = 1u << r;
        mask |= inside && head ? bit : 0u;
    }
    return mask;
}

// Loads the elements of the tile's first `count` (at least 1) from `first` into x (the
// values are needed to compare, and to be written) and returns which are kept (bit r: row
// r). The keep mode is tested once, outside the rows, so that each form's loads are one
// block.
uint load_tile(uint first, uint count, out T x[ITEMS])
{
    uint op = KEEP_OP, mask = 0u;
    if (HEADS_PROGRAM) {
        mask = load_heads(first, count, x);
    } else if (op == SELECT_KEEP_FLAGS) {
        uint f[ITEMS];
        UNROLL for (uint r = 0u; r < ITEMS; r++) {
            uint at = first + row_at(r, count);
            x[r] = src[SRC_OFF + at];
            f[r] = flags[FLAGS_OFF + at];
        }
        UNROLL for (uint r = 0u; r < ITEMS; r++) {
            bool inside = AT(r) < count, set = f[r] != 0u;
            uint bit = 1u << r;
            mask |= inside && set ? bit : 0u;
        }
    } else {
        T c = value();
        uint want = keep_table(op, c);
        UNROLL for (uint r = 0u; r < ITEMS; r++)
            x[r] = src[SRC_OFF + first + row_at(r, count)];
        UNROLL for (uint r = 0u; r < ITEMS; r++) {
            bool inside = AT(r) < count, keep = keeps(x[r], c, want);
            uint bit = 1u << r;
            mask |= inside && keep ? bit : 0u;
        }
    }
    return mask;
}

// The kept elements among the first `count` (at least 1) from `first`, counted only (the
// values are read only where a comparison needs them), loaded as load_tile loads.
uint count_kept(uint first, uint count)
{
    uint op = KEEP_OP, kept = 0u;
    if (HEADS_PROGRAM) {
        T x[ITEMS];
        kept = bitCount(load_heads(first, count, x));
    } else if (op == SELECT_KEEP_FLAGS) {
        uint f[ITEMS];
        UNROLL for (uint r = 0u; r < ITEMS; r++)
            f[r] = flags[FLAGS_OFF + first + row_at(r, count)];
        UNROLL for (uint r = 0u; r < ITEMS; r++) {
            bool inside = AT(r) < count, set = f[r] != 0u;
            kept += inside && set ? 1u : 0u;
        }
    } else {
        T c = value(), x[ITEMS];
        uint want = keep_table(op, c);
        UNROLL for (uint r = 0u; r < ITEMS; r++)
            x[r] = src[SRC_OFF + first + row_at(r, count)];
        UNROLL for (uint r = 0u; r < ITEMS; r++) {
            bool inside = AT(r) < count, keep = keeps(x[r], c, want);
            kept += inside && keep ? 1u : 0u;
        }
    }
    return kept;
}

shared uint s_part[WG_SIZE];
shared uint s_total;

// Sum of one value per invocation over the work-group (valid in every invocation). Every
// invocation must call it.
uint wg_sum(uint v)
{
#ifdef SUBGROUPS
    v = subgroupAdd(v);
    if (subgroupElect())
        s_part[gl_SubgroupID] = v;
    SYNC();
    if (gl_LocalInvocationID.x == 0u) {
        uint t = 0u;
        for (uint i = 0u; i < gl_NumSubgroups; i++)
            t += s_part[i];
        s_total = t;
    }
#else
    s_part[gl_LocalInvocationID.x] = v;
    SYNC();
    for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1) {
        if (gl_LocalInvocationID.x < s)
            s_part[gl_LocalInvocationID.x] += s_part[gl_LocalInvocationID.x + s];
        SYNC();
    }
    if (gl_LocalInvocationID.x == 0u)
        s_total = s_part[0];
#endif
    SYNC();
    uint r = s_total;
    SYNC();
    return r;
}

// rank[r] = how many kept elements come before row r's element in the tile, from the
// keep mask; returns the tile's kept count. Every invocation must call it.
uint tile_ranks(uint mask, out uint rank[ITEMS])
{
    uint lid = gl_LocalInvocationID.x;
#ifdef SUBGROUPS
    // Within the subgroup's run, row by row: a ballot per row.
    uint run = 0u;
    UNROLL for (uint r = 0u; r < ITEMS; r++) {
        uvec4 b = subgroupBallot((mask >> r & 1u) != 0u);
        rank[r] = run + subgroupBallotExclusiveBitCount(b);
        run += subgroupBallotBitCount(b);
    }
    // Then the subgroups' runs across the group: an exclusive sum of their counts.
    if (subgroupElect())
        s_part[gl_SubgroupID] = run;
    SYNC();
    if (gl_SubgroupID == 0u) {
        uint carry = 0u;
        for (uint base = 0u; base < gl_NumSubgroups; base += gl_SubgroupSize) {
            uint i = base + gl_SubgroupInvocationID;
            uint v = i < gl_NumSubgroups ? s_part[i] : 0u;
            uint e = subgroupExclusiveAdd(v);
            if (i < gl_NumSubgroups)
                s_part[i] = carry + e;
            carry += subgroupAdd(v);
        }
        if (subgroupElect())
            s_total = carry;
    }
    SYNC();
    uint before = s_part[gl_SubgroupID];
#else
    // Hillis-Steele over the invocations' counts (inclusive; the exclusive value is the
    // neighbour's), then within the invocation's consecutive elements.
    s_part[lid] = bitCount(mask);
    SYNC();
    for (uint d = 1u; d < WG_SIZE; d <<= 1) {
        uint v = lid >= d ? s_part[lid - d] : 0u;
        SYNC();
        s_part[lid] += v;
        SYNC();
    }
    if (lid == WG_SIZE - 1u)
        s_total = s_part[lid];
    uint before = lid > 0u ? s_part[lid - 1u] : 0u;
    SYNC();
    UNROLL for (uint r = 0u; r < ITEMS; r++) {
        rank[r] = before;
        before += mask >> r & 1u;
    }
    before = 0u;
#endif
    uint total = s_total;
    UNROLL for (uint r = 0u; r < ITEMS; r++)
        rank[r] += before;
    SYNC();
    return total;
}

// Row r's slot, and whether it is written (inside the count, and kept or partitioned).
void tile_slots(uint count, uint mask, uint rank[ITEMS], uint kept, out uint slot[ITEMS],
                out bool put[ITEMS])
{
    bool parted = PARTITION;
    UNROLL for (uint r = 0u; r < ITEMS; r++) {
        bool keep = (mask >> r & 1u) != 0u;
        uint rejected_slot = kept + (AT(r) - rank[r]);
        slot[r] = keep ? rank[r] : rejected_slot;
        bool inside = AT(r) < count, wanted = keep || parted;
        put[r] = inside && wanted;
    }
}

// Where slot i goes: a kept one at kept_before + its rank, and partitioning a rejected one
// at total + the rejected before it (those before the tile, first - kept_before, and those
// before it in the tile, its slot less the tile's kept).
uint slot_to(uint i, uint first, uint kept, uint kept_before, uint total)
{
    uint rejected_to = total + (first - kept_before) + (i - kept);
    return i < kept ? kept_before + i : rejected_to;
}

// The slots written: the kept, and partitioning the tile's every element.
uint slots_used(uint count, uint kept) { return PARTITION ? count : kept; }

// Writes the tile's elements (the first `count` from `first`; `kept`, of them kept, and
// `kept_before` kept elements before the tile) from the invocations that hold them, each at
// its slot's place (slot_to). The payload is loaded as the tile was, every row at once,
// before any of it is stored.
void write_direct(uint first, uint count, T x[ITEMS], uint mask, uint rank[ITEMS], uint kept,
                  uint kept_before, uint total)
{
    uint to[ITEMS], slot[ITEMS];
    bool put[ITEMS];
    tile_slots(count, mask, rank, kept, slot, put);
    UNROLL for (uint r = 0u; r < ITEMS; r++)
        to[r] = slot_to(slot[r], first, kept, kept_before, total);
    if (HAS_OUT) {
        UNROLL for (uint r = 0u; r < ITEMS; r++)
            if (put[r])
                dst[DST_OFF + to[r]] = x[r];
    }
    if (HAS_PAY) {
        uint pay[ITEMS];
        UNROLL for (uint r = 0u; r < ITEMS; r++)
            pay[r] = pay_in[PAY_IN_OFF + first + row_at(r, count)];
        UNROLL for (uint r = 0u; r < ITEMS; r++)
            if (put[r])
                pay_out[PAY_OUT_OFF + to[r]] = pay[r];
    }
    if (HAS_IDX) {
        UNROLL for (uint r = 0u; r < ITEMS; r++)
            if (put[r])
                idx_out[IDX_OFF + to[r]] = first + AT(r);
    }
}

// ------------------------------------------------------------- staged writes
//
// STAGED (SCATTER's and CHAINED's programs, SELECT_SHAPE_STAGED): the tile's written
// elements go to shared memory first, in output order (slot: the kept ones from 0 by rank,
// partitioning the rejected after them in input order), and invocation i of the group then
// stores slots i, i + WG_SIZE, ...: a subgroup's store is one run of consecutive words, whole
// sectors but at its ends (CUB's two-phase scatter), where a row stored from registers
// covers only its kept lanes' words. The slots pass through shared memory PART at a time
// (PARTS = 2^SELECT_SHAPE_PARTS_LOG2 parts a tile), so that the stage takes a part's words,
// not a tile's: NVIDIA's Vulkan driver gives the groups on a multiprocessor about 48 KB
// together (docs/DECISIONS.md, "The radix sort under ~48 KB of shared memory"), and a whole
// 16 KB tile would leave two groups there. The payload and the indices follow through the
// same slots, one array at a time. f64 keeps its low words in the first half and its high
// words in the second, each conflict-free.
#define STAGED (SELECT_SHAPE_STAGED != 0u)
#define PARTS  (1u << SELECT_SHAPE_PARTS_LOG2) /* 1 .. ITEMS */
#define PART   (TILE >> SELECT_SHAPE_PARTS_LOG2)
#if defined(TYPE_F64)
#define WORDS 2u
#else
#define WORDS 1u
#endif
shared uint s_stage[STAGED ? PART * WORDS : 1u];

void stage_put(uint at, T v)
{
#if defined(TYPE_F64)
    uvec2 w = unpackDouble2x32(v);
    s_stage[at] = w.x;
    s_stage[PART + at] = w.y;
#elif defined(TYPE_F32)
    s_stage[at] = floatBitsToUint(v);
#else
    s_stage[at] = uint(v);
#endif
}

T stage_get(uint at)
{
#if defined(TYPE_F64)
    return packDouble2x32(uvec2(s_stage[at], s_stage[PART + at]));
#elif defined(TYPE_F32)
    return uintBitsToFloat(s_stage[at]);
#else
    return T(s_stage[at]);
#endif
}

// Whether an element of `slot`, written where `put`, is staged in the part from slot `base`
// (a slot below it wraps past PART), and where in it.
bool in_part(uint slot, bool put, uint base, out uint at)
{
    at = slot - base;
    bool here = at < PART;
    return put && here;
}

// The values of the part from `base` to shared memory (no barrier: the caller's, before
// and after).
void stage_values(uint base, T x[ITEMS], uint slot[ITEMS], bool put[ITEMS])
{
    UNROLL for (uint r = 0u; r < ITEMS; r++) {
        uint at;
        if (in_part(slot[r], put[r], base, at))
            stage_put(at, x[r]);
    }
}

// The staged part from `base` stored (after the barrier behind stage_values).
void store_values(uint base, uint used, uint first, uint kept, uint kept_before, uint total)
{
    uint lid = gl_LocalInvocationID.x;
    UNROLL for (uint k = 0u; k < (ITEMS >> SELECT_SHAPE_PARTS_LOG2); k++) {
        uint i = base + k * WG_SIZE + lid;
        if (i < used)
            dst[DST_OFF + slot_to(i, first, kept, kept_before, total)] = stage_get(i - base);
    }
}

// Words of the payload (pay) or the indices through the parts, a barrier before each part
// is staged and after. Every invocation must call it.
void store_words(bool pay, uint w[ITEMS], uint slot[ITEMS], bool put[ITEMS], uint used,
                 uint first, uint kept, uint kept_before, uint total)
{
    uint lid = gl_LocalInvocationID.x;
    for (uint base = 0u; base < used; base += PART) {
        SYNC();
        UNROLL for (uint r = 0u; r < ITEMS; r++) {
            uint at;
            if (in_part(slot[r], put[r], base, at))
                s_stage[at] = w[r];
        }
        SYNC();
        UNROLL for (uint k = 0u; k < (ITEMS >> SELECT_SHAPE_PARTS_LOG2); k++) {
            uint i = base + k * WG_SIZE + lid;
            uint to = slot_to(i, first, kept, kept_before, total);
            if (i >= used)
                continue;
            if (pay)
                pay_out[PAY_OUT_OFF + to] = s_stage[i - base];
            else
                idx_out[IDX_OFF + to] = s_stage[i - base];
        }
    }
}

// The payload and the indices through the slots, after the values. Every invocation must
// call it (barriers).
void store_extras(uint first, uint count, uint mask, uint rank[ITEMS], uint kept,
                  uint kept_before, uint total)
{
    if (!HAS_PAY && !HAS_IDX)
        return;
    uint used = slots_used(count, kept), slot[ITEMS], w[ITEMS];
    bool put[ITEMS];
    tile_slots(count, mask, rank, kept, slot, put);
    if (HAS_PAY) {
        UNROLL for (uint r = 0u; r < ITEMS; r++)
            w[r] = pay_in[PAY_IN_OFF + first + row_at(r, count)];
        store_words(true, w, slot, put, used, first, kept, kept_before, total);
    }
    if (HAS_IDX) {
        UNROLL for (uint r = 0u; r < ITEMS; r++)
            w[r] = first + AT(r);
        store_words(false, w, slot, put, used, first, kept, kept_before, total);
    }
}

// The tile written, staged or from its invocations (the tile's `kept` from tile_ranks).
// Every invocation must call it (barriers).
void write_tile(uint first, uint count, T x[ITEMS], uint mask, uint rank[ITEMS], uint kept,
                uint kept_before, uint total)
{
    if (!STAGED) {
        write_direct(first, count, x, mask, rank, kept, kept_before, total);
        return;
    }
    uint used = HAS_OUT ? slots_used(count, kept) : 0u, slot[ITEMS];
    bool put[ITEMS];
    tile_slots(count, mask, rank, kept, slot, put);
    for (uint base = 0u; base < used; base += PART) {
        SYNC(); // the slots' last reads (a part's, or the tile's before) are done
        stage_values(base, x, slot, put);
        SYNC();
        store_values(base, used, first, kept, kept_before, total);
    }
    store_extras(first, count, mask, rank, kept, kept_before, total);
}

uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

// ----------------------------------------------------------- reduce-then-scan

void stage_count()
{
    uint g = group_index();
    if (g >= GROUPS)
        return;
    uint begin = g * TILES_PER_GROUP * TILE;
    uint end = min(N, begin + TILES_PER_GROUP * TILE);
    uint kept = 0u;
    for (uint first = begin; first < end; first += TILE)
        kept += count_kept(first, min(TILE, end - first));
    kept = wg_sum(kept);
    if (gl_LocalInvocationID.x == 0u)
        state[STATE_OFF + g] = kept;
}

void stage_scatter()
{
    uint g = group_index(), lid = gl_LocalInvocationID.x;
    if (g >= GROUPS)
        return;
    uint before = 0u, total = 0u;
    for (uint i = lid; i < GROUPS; i += WG_SIZE) {
        uint c = state[STATE_OFF + i];
        total += c;
        before += i < g ? c : 0u;
    }
    before = wg_sum(before);
    total = wg_sum(total);
    if (g == 0u && lid == 0u)
        state[STATE_OFF + GROUPS] = total;
    uint begin = g * TILES_PER_GROUP * TILE;
    uint end = min(N, begin + TILES_PER_GROUP * TILE);
    for (uint first = begin; first < end; first += TILE) {
        uint count = min(TILE, end - first);
        T x[ITEMS];
        uint rank[ITEMS];
        uint mask = load_tile(first, count, x);
        uint kept = tile_ranks(mask, rank);
        write_tile(first, count, x, mask, rank, kept, before, total);
        before += kept;
    }
}

// --------------------------------------------------------------- single pass
//
// Tile t's status word at state[2 + t]: 0 while it has published nothing, then AGG | its
// own count, then INC | the count of tiles 0..t (bits 0-29: the single pass takes at most
// 2^30 - 1 elements). Words are written once each per call (CLEAR zeroes them first), by
// relaxed atomics where SPIR-V has them (the sort's one-sweep does the same).
#define ST_AGG   0x40000000u
#define ST_INC   0x80000000u
#define ST_COUNT 0x3fffffffu
#ifdef VULKAN
uint status_load(uint t)
{
    return atomicLoad(state[STATE_OFF + 2u + t], gl_ScopeDevice, gl_StorageSemanticsBuffer,
                      gl_SemanticsRelaxed);
}
void status_store(uint t, uint v)
{
    atomicStore(state[STATE_OFF + 2u + t], v, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                gl_SemanticsRelaxed);
}
#else
uint status_load(uint t) { return atomicOr(state[STATE_OFF + 2u + t], 0u); }
void status_store(uint t, uint v) { atomicExchange(state[STATE_OFF + 2u + t], v); }
#endif

shared uint s_ticket;
shared uint s_lb_j;    // the walk's next tile to read is s_lb_j - 1
shared uint s_lb_done; // the walk met an inclusive count (or went past tile 0)
shared uint s_lb_sum;  // what the walk added

// One walk back from tile j-1 over the published words, adding them, until an inclusive
// count (done) or a tile that has published nothing (stop there); it never waits. Leaves
// its result in s_lb_*: the caller's barrier makes the rest of the group wait once.
#ifdef SUBGROUPS
// By subgroup 0: lane l reads tile j-1-l's word, ballots find the nearest inclusive and
// the nearest silent one, subgroupAdd sums the lanes before them; window after window
// while every lane found a count.
void walk(uint j)
{
    uint lane = gl_SubgroupInvocationID, width = gl_SubgroupSize, sum = 0u;
    bool done = false;
    while (j > 0u) {
        uint st = lane < j ? (FORCE_RECOUNT != 0u ? 0u : status_load(j - 1u - lane)) : ST_INC;
        bool inc = (st & ST_INC) != 0u, gap = (st & (ST_INC | ST_AGG)) == 0u;
        uint first_inc = subgroupAny(inc) ? subgroupBallotFindLSB(subgroupBallot(inc)) : width;
        uint first_gap = subgroupAny(gap) ? subgroupBallotFindLSB(subgroupBallot(gap)) : width;
        if (first_inc < first_gap) {
            sum += subgroupAdd(lane <= first_inc ? st & ST_COUNT : 0u);
            done = true;
            break;
        }
        sum += subgroupAdd(lane < first_gap ? st & ST_COUNT : 0u);
        j -= first_gap;
        if (first_gap < width)
            break;
    }
    if (subgroupElect()) {
        s_lb_j = j;
        s_lb_done = done || j == 0u ? 1u : 0u;
        s_lb_sum = sum;
    }
}
#define WALKER (gl_SubgroupID == 0u)
#else
// By invocation 0, one tile at a time.
void walk(uint j)
{
    uint sum = 0u;
    bool done = false;
    for (; j > 0u; j--) {
        uint st = FORCE_RECOUNT != 0u ? 0u : status_load(j - 1u);
        if ((st & (ST_INC | ST_AGG)) == 0u)
            break;
        sum += st & ST_COUNT;
        if ((st & ST_INC) != 0u) {
            done = true;
            break;
        }
    }
    s_lb_j = j;
    s_lb_done = done || j == 0u ? 1u : 0u;
    s_lb_sum = sum;
}
#define WALKER (gl_LocalInvocationID.x == 0u)
#endif

// The kept count of tile k, counted again by the group from its input (the input is never
// written by the call, so the recount is exact); `inclusive` when tile k has published
// its inclusive count meanwhile (then taken instead) or is tile 0.
uint recount(uint k, out bool inclusive)
{
    uint first = k * TILE;
    uint kept = wg_sum(count_kept(first, min(TILE, N - first)));
    if (gl_LocalInvocationID.x == 0u) {
        uint st = FORCE_RECOUNT != 0u ? 0u : status_load(k);
        bool inc = (st & ST_INC) != 0u;
        s_lb_done = inc || k == 0u ? 1u : 0u;
        s_lb_sum = inc ? st & ST_COUNT : kept;
    }
    SYNC();
    inclusive = s_lb_done != 0u;
    uint r = s_lb_sum;
    SYNC();
    return r;
}

// The kept elements of tiles 0..t-1 (decoupled look-back): walks, no barrier per step; at
// a silent tile the group reads it again up to POLLS times (a barrier each), then counts
// it itself: a bounded wait, never a dependence on another group's progress. The loop is
// the whole group's (uniform), with barriers only in it.
uint look_back(uint t)
{
    uint prefix = 0u, polls = 0u;
    for (uint j = t;;) {
        if (WALKER)
            walk(j);
        SYNC();
        uint next = s_lb_j;
        bool done = s_lb_done != 0u;
        prefix += s_lb_sum;
        SYNC();
        if (done)
            break;
        polls = next < j ? 0u : polls;
        j = next;
        if (FORCE_RECOUNT == 0u && ++polls < POLLS)
            continue;
        polls = 0u; // tile j-1 stays silent: count it here
        bool inclusive;
        prefix += recount(j - 1u, inclusive);
        if (inclusive)
            break;
        j -= 1u;
    }
    return prefix;
}

void stage_chained()
{
    uint lid = gl_LocalInvocationID.x;
    uint tiles = max(1u, (N + TILE - 1u) / TILE); // N = 0: tile 0 still writes the total
    // Tile i for group i (BY_GROUP), its loads issued at once: the look-back never waits
    // on a predecessor that has not run (it counts a silent one itself), so the order in
    // which groups start only decides how often that happens; or tiles in the order groups
    // start (a ticket, where the dispatch has several groups and the state was cleared),
    // a predecessor then at least started, for an atomic's round trip before the loads.
    // With a count on the GPU the groups may outnumber the count's tiles.
    uint t = group_index();
    if ((MODE & SELECT_MODE_BY_GROUP) == 0u) { // uniform
        if (lid == 0u)
            s_ticket = gl_NumWorkGroups.x * gl_NumWorkGroups.y > 1u
                           ? atomicAdd(state[STATE_OFF], 1u)
                           : 0u;
        SYNC();
        t = s_ticket;
    }
    if (t >= tiles)
        return; // the whole group
    uint first = t * TILE, count = min(TILE, N - first);
    T x[ITEMS];
    uint rank[ITEMS], mask = 0u;
    if (count > 0u) // N = 0 (a count on the GPU): nothing to load
        mask = load_tile(first, count, x);
    uint kept = tile_ranks(mask, rank);
    // Staged in one part, the values wait in shared memory through the look-back, so that
    // no register holds the tile across its loop (the scan's GL tiles ran at 0.57x held
    // there); the look-back's barriers come after it, so its slots are all written after.
    bool early = STAGED && PARTS == 1u && HAS_OUT;
    if (early) {
        uint slot[ITEMS];
        bool put[ITEMS];
        tile_slots(count, mask, rank, kept, slot, put);
        stage_values(0u, x, slot, put);
    }
    uint before = 0u;
    if (tiles > 1u) {
        // Published before the look-back, and sent out at once, so that successors find it.
        if (lid == 0u) {
            status_store(t, (t == 0u ? ST_INC : ST_AGG) | kept);
            memoryBarrierBuffer();
        }
        if (t > 0u)
            before = look_back(t);
        if (lid == 0u && t > 0u)
            status_store(t, ST_INC | (before + kept));
    }
    if (lid == 0u && t == tiles - 1u)
        state[STATE_OFF + 1u] = before + kept;
    if (early) {
        SYNC(); // every value staged (one tile has no look-back's barriers)
        store_values(0u, kept, first, kept, before, 0u);
        if (HAS_PAY || HAS_IDX) {
            kept = tile_ranks(mask, rank); // again: so that no rank is held either
            store_extras(first, count, mask, rank, kept, before, 0u);
        }
    } else {
        write_tile(first, count, x, mask, rank, kept, before, 0u);
    }
}

void main()
{
    g_n = device_count(params[SELECT_P_N]);
    switch (STAGE) {
    case SELECT_STAGE_COUNT:
        stage_count();
        return;
    case SELECT_STAGE_SCATTER:
        stage_scatter();
        return;
    case SELECT_STAGE_CLEAR: {
        uint i = invocation_index();
        if (i < N)
            state[STATE_OFF + i] = 0u;
        return;
    }
    case SELECT_STAGE_CHAINED:
        stage_chained();
        return;
    default:
        return;
    }
}
