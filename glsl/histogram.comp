// histogram.comp: counts of samples in bins: even bins over [lo, hi) (CUB's HistogramEven), or
// bins between sorted levels (HistogramRange).
// variants: TYPE=U32,I32,F32,F64
//
// Stages (STAGE = params[0], numbered in src/algo/ids/histogram_ids.h); the samples at
// binding 0 (from SRC_OFF), the u32 counts at binding 1 (from DST_OFF), the levels at
// binding 2 (from LEVELS_OFF), the sample count at binding 3 (COUNT_OFF, where HAS_COUNT).
//   CLEAR   counts[b] = 0, b < BINS
//   BINS    dst[i] = the bin of sample i, or ~0 where none counts it (u32, at binding 1)
//   SHARED  each group counts its tiles into counters in shared memory (CAPACITY of them,
//           COPIES times over; the levels there too where LEVELS), then adds each bin's
//           nonzero sum to counts. Tiles of WG_SIZE x ITEMS samples, loaded 4 to a uvec4
//           where VEC; group g takes tiles g, g + G, ..., or where QUEUE claims each next
//           tile from the counter at binding 4 (queue[0]; queue[1] counts the groups done)
//   GLOBAL  each sample's bin counted by an atomic on counts itself
// A sample counts in bin b of even bins when lo <= v < hi: integers at floor((v - lo) * B /
// (hi - lo)) exactly, floats at (v - lo) * scale in the type, scale = B / (hi - lo) rounded in
// the type as CUB computes it (the last bin where that rounds up to B). Of levels, in the
// bin i with levels[i] <= v < levels[i + 1] (IEEE comparisons: NaN in none, -0 = +0).
// The executor defines OP_SUM for this family (ops.glsl needs it first).

layout(std430, binding = 0) restrict readonly buffer Src { T src[]; };
layout(std430, binding = 1) restrict buffer Counts { uint counts[]; };
layout(std430, binding = 2) restrict readonly buffer Levels { T levels[]; };
layout(std430, binding = 3) restrict readonly buffer Count { uint count_in[]; };
// The samples of a 4-byte type 4 at a time (VEC): the same binding (as gather.comp's).
layout(std430, binding = 0) restrict readonly buffer Src4 { uvec4 src4[]; };
layout(std430, binding = 4) restrict buffer Queue { uint queue[]; };

// NVIDIA's GL compiler has no GL_EXT_control_flow_attributes, so UNROLL means nothing
// there; its own pragma unrolls the constant-bound loops over a tile's loads and samples,
// which keeps them in registers as Vulkan's [[unroll]] does (gemm.comp). Not f64's: that
// compiler's f64 samples loaded ahead lost precision (count_tile).
#if !defined(VULKAN) && !defined(TYPE_F64)
#pragma optionNV(unroll all)
#endif

#define N          params[HISTOGRAM_P_N]
#define SRC_OFF    params[HISTOGRAM_P_SRC_OFF]
#define DST_OFF    params[HISTOGRAM_P_DST_OFF]
#define BINS       params[HISTOGRAM_P_BINS]
#define LEVELS_OFF params[HISTOGRAM_P_LEVELS_OFF]
#define COUNT_OFF  params[HISTOGRAM_P_COUNT_OFF]
#define HAS_COUNT  params[HISTOGRAM_P_HAS_COUNT]
// lo, hi and scale at HISTOGRAM_P_LO, _HI, _SCALE: a T's bits (param_t, common.glsl);
// integers' lo and hi, and their reciprocal at _SCALE and _WHOLE (bin_of_even).
#define RANGE      params[HISTOGRAM_P_RANGE] /* bins between levels, not even ones */
#define NONE       0xffffffffu

#define TILE (WG_SIZE * ITEMS)
const bool IN_SHARED = ONLY_STAGE == HISTOGRAM_STAGE_SHARED;
// SHARED's forms (src/algo/histogram.c, shared_form), in its own program only (ONLY_STAGE).
const uint COPIES = IN_SHARED ? (HISTOGRAM_SHAPE_COPIES > 1u ? HISTOGRAM_SHAPE_COPIES : 1u) : 1u;
#if defined(TYPE_F64)
const uint VEC = 1u; // 8-byte samples load one at a time
#else
const uint VEC = IN_SHARED ? (HISTOGRAM_SHAPE_VEC != 0u ? 4u : 1u) : 1u;
#endif
const uint LOADS = ITEMS >= VEC ? ITEMS / VEC : 1u; // an invocation's loads of a tile
const bool RUNS = IN_SHARED ? HISTOGRAM_SHAPE_RUNS != 0u : true;
const bool QUEUE = IN_SHARED ? HISTOGRAM_SHAPE_QUEUE != 0u : false;
// SHARED's counters and levels, sized by CAPACITY.
const uint CAP = IN_SHARED ? HISTOGRAM_SHAPE_CAPACITY * COPIES : 1u;
// (Nested ?: rather than &&: glslang has written invalid SPIR-V for an && of specialization
// constants in an array size, glsl/embed.py.)
const uint LEVEL_CAP = IN_SHARED
                           ? (HISTOGRAM_SHAPE_LEVELS != 0u ? HISTOGRAM_SHAPE_CAPACITY + 1u : 1u)
                           : 1u;
shared uint s_count[CAP];
shared T s_level[LEVEL_CAP];
shared uint s_claim[2]; // QUEUE: the tile claimed next, in turn

// The samples this dispatch counts: N, or fewer where the count comes from a buffer.
uint sample_count() { return HAS_COUNT != 0u ? min(count_in[COUNT_OFF], N) : N; }

T level(uint i) { return LEVEL_CAP > 1u ? s_level[i] : levels[LEVELS_OFF + i]; }

// Bins between levels: with c the number of levels <= v (a binary search, which stays in
// range whatever order the levels are in), the bin is c - 1 where 1 <= c <= BINS.
uint bin_of_levels(T v)
{
    uint lo = 0u, hi = BINS + 1u;
    while (lo < hi) {
        uint mid = (lo + hi) >> 1;
        T l = level(mid);
        if (!t_isnan(l) && t_le(l, v))
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo == 0u || lo > BINS ? NONE : lo - 1u;
}

#if defined(TYPE_F32)
// An f32's order key: its bits with the sign flipped, all of them where negative, so that
// keys compare as unsigned numbers in IEEE's order (-0 just below +0); NaNs key above +inf
// and below -inf. Compared as integers, denormals keep their order, which NVIDIA's float
// comparisons lose (t_order, common.glsl).
uint f32_key(uint b) { return b ^ (uint(int(b) >> 31) | 0x80000000u); }

// A bound's key, -0's for a zero bound: both zeros then lie at or above a zero lower bound
// and neither below a zero upper bound.
uint bound_key(uint b) { return (b & 0x7fffffffu) == 0u ? 0x7fffffffu : f32_key(b); }

// CUB's float bin: (v - lo) * scale truncated, each operation rounded in T (precise: no
// contraction or reassociation), below B. lo <= v < hi as one unsigned comparison of keys,
// which NaN fails: lo and hi are finite, NaNs key beyond the infinities.
uint bin_of_even(T v)
{
    uint lo_key = bound_key(params[HISTOGRAM_P_LO]);
    if (f32_key(floatBitsToUint(v)) - lo_key >= bound_key(params[HISTOGRAM_P_HI]) - lo_key)
        return NONE;
    precise T d = v - param_t(HISTOGRAM_P_LO);
    precise T t = d * param_t(HISTOGRAM_P_SCALE);
    return min(uint(t), BINS - 1u);
}
#elif defined(TYPE_F64)
// As f32's, by double comparisons (NaN tested by its bits: GLSL does not promise that
// comparisons with NaN are false, and llvmpipe's counted it).
uint bin_of_even(T v)
{
    T lo = param_t(HISTOGRAM_P_LO), hi = param_t(HISTOGRAM_P_HI),
      scale = param_t(HISTOGRAM_P_SCALE);
    if (t_isnan(v) || !(t_le(lo, v) && t_lt(v, hi)))
        return NONE;
    precise T d = v - lo;
    precise T t = d * scale;
    return min(uint(t), BINS - 1u);
}
#else
// floor(d * B / r) for d < r (r = hi - lo), exactly: d * W + floor(d * F / 2^64) with
// W = floor(B / r) and F = ceil(2^64 (B mod r) / r) (histogram.c, even_reciprocal). F
// exceeds 2^64 (B mod r) / r by less than 1, so d * F / 2^64 exceeds d (B mod r) / r by
// less than d / 2^64 < 1 / r: never up to the next whole number, which is at least 1 / r
// above it. Three multiplications, no float estimate and no correction.
uint bin_of_even(T v)
{
    uint lo = params[HISTOGRAM_P_LO];
    // The offset from lo as an unsigned number (two's complement: exact for i32 too); a
    // sample below lo wraps past the range.
    uint d = uint(v) - lo;
    if (d >= params[HISTOGRAM_P_HI] - lo)
        return NONE;
    uint ph, pl, qh, ql, carry;
    umulExtended(d, params[HISTOGRAM_P_SCALE + 1u], ph, pl);
    umulExtended(d, params[HISTOGRAM_P_SCALE], qh, ql);
    uaddCarry(pl, qh, carry);
    return d * params[HISTOGRAM_P_WHOLE] + ph + carry;
}
#endif

// Each stage's bin of a sample: NaN counts in no bin (bin_of_even tests it as its type
// needs; between levels by its bits).
uint bin_of(T v)
{
    if (RANGE != 0u)
        return t_isnan(v) ? NONE : bin_of_levels(v);
    return bin_of_even(v);
}

void add_global(uint bin, uint n)
{
    if (bin != NONE && n > 0u)
        atomicAdd(counts[DST_OFF + bin], n);
}

// SHARED's counter of a bin for this invocation: copy lid mod COPIES, a bin's copies side by
// side. The lanes of one shared atomic that meet one bin then add to up to COPIES distinct
// words, so fewer of them serialise on one (with 32 copies each lane has a bank of its own).
uint counter(uint bin)
{
    return COPIES > 1u ? bin * COPIES + (gl_LocalInvocationID.x & (COPIES - 1u)) : bin;
}

// Where RUNS, runs of samples of one bin in an invocation's samples become one addition
// each: skewed or sorted data (many samples of a bin together) costs few atomics on a
// counter. Without, each sample's atomic, and no compare and select per sample.
uint g_run_bin = NONE, g_run = 0u;

void add_run()
{
    if (g_run_bin != NONE)
        atomicAdd(s_count[counter(g_run_bin)], g_run);
}

void count(uint bin)
{
    if (!RUNS) {
        if (bin != NONE)
            atomicAdd(s_count[counter(bin)], 1u);
    } else if (bin == g_run_bin) {
        g_run++;
    } else {
        add_run();
        g_run_bin = bin;
        g_run = 1u;
    }
}

#if defined(TYPE_F32)
T sample_of(uint bits) { return uintBitsToFloat(bits); }
#elif defined(TYPE_I32)
T sample_of(uint bits) { return int(bits); }
#elif defined(TYPE_U32)
T sample_of(uint bits) { return bits; }
#endif

// Full tile t of the samples from `head` on: no bounds to check. All of an invocation's
// loads before any sample is binned (memory parallelism), but for f64.
void count_tile(uint t, uint head)
{
    uint lid = gl_LocalInvocationID.x;
#if defined(TYPE_F64)
    // Each sample binned as it is loaded: NVIDIA's GL compiler gave an array of doubles
    // loaded ahead (as x below) single precision (H200, 580), which moved samples next to a
    // bin's edge across it (docs/DECISIONS.md).
    uint first = SRC_OFF + head + t * TILE + lid;
    UNROLL for (uint k = 0u; k < ITEMS; k++)
        count(bin_of(src[first + k * WG_SIZE]));
#else
    if (VEC > 1u) {
        // head makes the first vector's sample SRC_OFF + head a multiple of 4.
        uint first = (SRC_OFF + head) / 4u + t * (TILE / 4u) + lid;
        uvec4 x[LOADS];
        UNROLL for (uint k = 0u; k < LOADS; k++)
            x[k] = src4[first + k * WG_SIZE];
        UNROLL for (uint k = 0u; k < LOADS; k++)
            UNROLL for (uint c = 0u; c < 4u; c++)
                count(bin_of(sample_of(x[k][c])));
    } else {
        uint first = SRC_OFF + head + t * TILE + lid;
        T x[ITEMS];
        UNROLL for (uint k = 0u; k < ITEMS; k++)
            x[k] = src[first + k * WG_SIZE];
        UNROLL for (uint k = 0u; k < ITEMS; k++)
            count(bin_of(x[k]));
    }
#endif
}

// QUEUE: each group claims its next tile while it counts the one it holds (one barrier a
// tile, the claims alternating between two words), until the tiles run out; the last group
// done puts the counter back to zero for the next dispatch. Every group claims once past
// the end, after all its other claims, before it counts itself done.
void count_claimed_tiles(uint full, uint head, uint groups)
{
    uint lid = gl_LocalInvocationID.x, slot = 0u;
    if (lid == 0u)
        s_claim[0] = atomicAdd(queue[0], 1u);
    SYNC();
    uint t = s_claim[0];
    while (t < full) {
        uint next = 0u;
        if (lid == 0u)
            next = atomicAdd(queue[0], 1u);
        count_tile(t, head);
        slot ^= 1u;
        if (lid == 0u)
            s_claim[slot] = next;
        SYNC();
        t = s_claim[slot];
    }
    if (lid == 0u && atomicAdd(queue[1], 1u) == groups - 1u) {
        queue[0] = 0u;
        queue[1] = 0u;
    }
}

void stage_shared()
{
    if (!IN_SHARED)
        return; // no counters in a program shared with the other stages
    uint lid = gl_LocalInvocationID.x, groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    for (uint b = lid; b < BINS * COPIES; b += WG_SIZE)
        s_count[b] = 0u;
    if (LEVEL_CAP > 1u)
        for (uint b = lid; b <= BINS; b += WG_SIZE)
            s_level[b] = levels[LEVELS_OFF + b];
    SYNC();
    // The full tiles from sample `head` on (VEC: the first whose index SRC_OFF + head is a
    // multiple of 4), then the samples before head and after the full tiles, strided over
    // every invocation of the dispatch.
    uint n = sample_count();
    uint head = VEC > 1u ? min((0u - SRC_OFF) & 3u, n) : 0u;
    uint full = (n - head) / TILE;
    if (QUEUE)
        count_claimed_tiles(full, head, groups);
    else
        for (uint t = g; t < full; t += groups)
            count_tile(t, head);
    for (uint j = g * WG_SIZE + lid; j < n - full * TILE; j += groups * WG_SIZE)
        count(bin_of(src[SRC_OFF + (j < head ? j : j + full * TILE)]));
    if (RUNS)
        add_run();
    SYNC();
    for (uint b = lid; b < BINS; b += WG_SIZE) {
        uint c = 0u;
        for (uint k = 0u; k < COPIES; k++)
            c += s_count[b * COPIES + k];
        if (c != 0u)
            atomicAdd(counts[DST_OFF + b], c);
    }
}

void stage_global(uint iid)
{
    uint n = sample_count(), first = (iid / WG_SIZE) * TILE + iid % WG_SIZE;
    uint run_bin = NONE, run = 0u;
    UNROLL for (uint k = 0u; k < ITEMS; k++) {
        uint i = first + k * WG_SIZE;
        uint bin = i < n ? bin_of(src[SRC_OFF + i]) : NONE;
        if (bin == run_bin) {
            run++;
        } else {
            add_global(run_bin, run);
            run_bin = bin;
            run = 1u;
        }
    }
    add_global(run_bin, run);
}

void main()
{
    uint iid = invocation_index();
    switch (STAGE) {
    case HISTOGRAM_STAGE_CLEAR:
        if (iid < BINS)
            counts[DST_OFF + iid] = 0u;
        return;
    case HISTOGRAM_STAGE_BINS:
        if (iid < sample_count())
            counts[DST_OFF + iid] = bin_of(src[SRC_OFF + iid]);
        return;
    case HISTOGRAM_STAGE_SHARED:
        stage_shared();
        return;
    case HISTOGRAM_STAGE_GLOBAL:
        stage_global(iid);
        return;
    default:
        return;
    }
}
