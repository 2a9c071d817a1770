// reduce.comp: the reduction family (sum, min, max, min+max).
// variants: TYPE=U32,I32,F32,F64 OP=SUM,MIN,MAX,MINMAX
//
// Stages (STAGE = params[0], numbered in src/algo/ids/reduce_ids.h); src is binding 0, dst
// binding 1, offsets and counts in elements of T. A "V element" is one T, or a (min, max)
// pair of consecutive T for OP_MINMAX.
//   TILES       fast: group g reduces blocks g, g+G, g+2G, ... of
//               WG_SIZE*ITEMS source elements and writes V element g of dst.
//               With FOLD, the last group to finish (an atomic counter at
//               binding 3 tells) also folds dst's G values into V element 0
//               of binding 2 and sets the counter back to 0: one dispatch.
//   EXPAND      classic: dst V element i = v_from(src[i]), a scratch copy.
//   HALVING     classic GPUSumUp step on dst: a[i] op= a[i + ceil(n/2)].
//   STRIDE      classic GPUAltSumUp step on dst: a[2qt] op= a[2qt + q].
//   PAIRS       classic GPUfindMinMax, first step: comparators on pairs.
//   QUADS       classic GPUfindMinMax, later steps: pairs of pairs.
//   COUNTER     the fold's counter (binding 3) = 0, once when it is made.
//   DOT         TILES (OP_SUM) over the products src[i] * times[i] (binding
//               4): a dot product.
//   UPDATE_DOT  TILES (OP_SUM, f32/f64) after a vector update: e = alpha *
//               src[i] + beta * y[i] (binding 5; UPDATE 2: beta = 0, y not
//               read) is written to y[i], and e * times[i] is summed, or
//               e * e without TIMES (a Krylov step's update and dot product
//               in one pass).

layout(std430, binding = 0) restrict readonly buffer Src { T src[]; };
// Coherent: with FOLD the last group reads what the others wrote.
layout(std430, binding = 1) coherent buffer Dst { T dst[]; };
layout(std430, binding = 2) restrict writeonly buffer Result { T result[]; };
layout(std430, binding = 3) coherent buffer Counter { uint counter[]; };
layout(std430, binding = 4) restrict readonly buffer Times { T times[]; };
layout(std430, binding = 5) restrict buffer Update { T upd[]; };

// Elements (TILES, EXPAND) or V elements left (classic steps): params[REDUCE_P_N], or with
// bit 31 set the count on the GPU it bounds (device_count, common.glsl; TILES inside other
// families' calls), read once by main.
uint g_n;
#define N         g_n
#define SRC_OFF   params[REDUCE_P_SRC_OFF]
#define DST_OFF   params[REDUCE_P_DST_OFF]
#define SRC_PAIRS params[REDUCE_P_SRC_PAIRS]
#define Q         params[REDUCE_P_Q]
#define FOLD      params[REDUCE_P_FOLD]
#define RESULT_OFF params[REDUCE_P_RESULT_OFF]
#define TIMES     params[REDUCE_P_TIMES]
#define TIMES_OFF params[REDUCE_P_TIMES_OFF]
#define UPDATE    params[REDUCE_P_UPDATE]
#define UPD_OFF   params[REDUCE_P_UPDATE_OFF]
// alpha and beta at REDUCE_P_ALPHA and REDUCE_P_BETA (param_t in common.glsl).

// Where TILES' elements come from: a constant argument, so that each stage's
// inlined copy of stage_tiles carries no branch (and no store) for the
// others; a runtime flag here cost the plain f32 sum a quarter of its speed.
// Min+max's later passes read (min, max) pairs (SRC_PAIRS): a source of their own too, so that
// the first pass's loads carry no branch on it.
const uint FROM_SRC = 0u, FROM_PRODUCTS = 1u, FROM_UPDATE = 2u, FROM_PAIRS = 3u;

V load_src(uint i, const uint from)
{
#if defined(OP_SUM) && (defined(TYPE_F32) || defined(TYPE_F64))
    if (from == FROM_UPDATE) {
        T e = param_t(REDUCE_P_ALPHA) * src[SRC_OFF + i];
        if (UPDATE == 1u)
            e += param_t(REDUCE_P_BETA) * upd[UPD_OFF + i];
        upd[UPD_OFF + i] = e;
        return e * (TIMES != 0u ? times[TIMES_OFF + i] : e);
    }
#endif
#ifdef OP_SUM
    if (from == FROM_PRODUCTS)
        return src[SRC_OFF + i] * times[TIMES_OFF + i];
#endif
#ifdef OP_MINMAX
    if (from == FROM_PAIRS)
        return T2(src[SRC_OFF + 2u * i], src[SRC_OFF + 2u * i + 1u]);
#endif
    return v_from(src[SRC_OFF + i]);
}

#ifdef OP_MINMAX
V load_dst(uint i) { return T2(dst[DST_OFF + 2u * i], dst[DST_OFF + 2u * i + 1u]); }
void store_dst(uint i, V v) { dst[DST_OFF + 2u * i] = v.x; dst[DST_OFF + 2u * i + 1u] = v.y; }
#else
V load_dst(uint i) { return dst[DST_OFF + i]; }
void store_dst(uint i, V v) { dst[DST_OFF + i] = v; }
#endif

shared bool s_last;

#if defined(OP_MINMAX) && defined(TYPE_F32)
// A tile's min and max by the hardware's min and max, with a NaN among the elements found
// apart, from the largest magnitude's bits (a NaN's exceed infinity's), and put back at the
// end: six instructions an element instead of t_min and t_max's dozen with their NaN tests.
#define FOLD_LEAN 1
#define LEAN_MASK 0x7fffffffu
void fold_lean(inout V acc, inout uint mag, V x)
{
    acc = V(min(acc.x, x.x), max(acc.y, x.y));
    mag = max(mag, max(floatBitsToUint(x.x) & LEAN_MASK, floatBitsToUint(x.y) & LEAN_MASK));
}
#endif

void stage_tiles(const uint from)
{
    const uint chunk = WG_SIZE * ITEMS;
    uint groups = gl_NumWorkGroups.x, g = gl_WorkGroupID.x, lid = gl_LocalInvocationID.x;
    uint full = N / chunk;
    V acc = V_IDENTITY;
#ifdef FOLD_LEAN
    uint mag = 0u;
#endif
    for (uint b = g; b < full; b += groups) {
        // All ITEMS loads are issued before any is used: memory parallelism.
        V x[ITEMS];
        for (uint k = 0u; k < ITEMS; k++)
            x[k] = load_src(b * chunk + k * WG_SIZE + lid, from);
        for (uint k = 0u; k < ITEMS; k++)
#ifdef FOLD_LEAN
            fold_lean(acc, mag, x[k]);
#else
            acc = v_op(acc, x[k]);
#endif
    }
#ifdef FOLD_LEAN
    if (mag > 0x7f800000u)
        acc = V(T_NAN);
#endif
    if (full % groups == g) { // the last, partial block
        // Loads first here too: a small reduce is this block alone, and
        // loads chained through `acc` would cost a memory latency each.
        V x[ITEMS];
        for (uint k = 0u; k < ITEMS; k++) {
            uint i = full * chunk + k * WG_SIZE + lid;
            x[k] = i < N ? load_src(i, from) : V_IDENTITY;
        }
        for (uint k = 0u; k < ITEMS; k++)
            acc = v_op(acc, x[k]);
    }
    acc = wg_reduce(acc);
    if (lid == 0u) {
        store_dst(g, acc);
        if (FOLD != 0u) {
            memoryBarrierBuffer(); // the partial before the count that announces it
            s_last = atomicAdd(counter[0], 1u) == groups - 1u;
        }
    }
    if (FOLD == 0u)
        return;
    SYNC();
    if (!s_last)
        return; // the whole group
    memoryBarrierBuffer();
    // ITEMS loads in flight per invocation, as in the blocks: up to 4096
    // partials read one after another would cost a memory latency each.
    V r = V_IDENTITY;
    for (uint base = 0u; base < groups; base += WG_SIZE * ITEMS) {
        V x[ITEMS];
        for (uint k = 0u; k < ITEMS; k++) {
            uint i = base + k * WG_SIZE + lid;
            x[k] = i < groups ? load_dst(i) : V_IDENTITY;
        }
        for (uint k = 0u; k < ITEMS; k++)
            r = v_op(r, x[k]);
    }
    r = wg_reduce(r);
    if (lid == 0u) {
#ifdef OP_MINMAX
        result[RESULT_OFF] = r.x;
        result[RESULT_OFF + 1u] = r.y;
#else
        result[RESULT_OFF] = r;
#endif
        counter[0] = 0u; // ready for the next call
    }
}

// GPUfindMinMax works in place on T elements: after PAIRS, dst[2t] <= dst[2t+1];
// each QUADS step folds pair t + ceil(pairs/2) into pair t.
// Reads all four operands before writing, since the comparator's pairs overlap.
void choose(uint lo, uint hi, uint from_lo, uint from_hi)
{
    T a = dst[DST_OFF + lo], b = dst[DST_OFF + hi];
    T c = dst[DST_OFF + from_lo], d = dst[DST_OFF + from_hi];
    dst[DST_OFF + lo] = t_min(a, c);
    dst[DST_OFF + hi] = t_max(b, d);
}

void main()
{
    uint iid = invocation_index();
    g_n = device_count(params[REDUCE_P_N]);
    switch (STAGE) {
    case REDUCE_STAGE_TILES:
#ifdef OP_MINMAX
        if (SRC_PAIRS != 0u) {
            stage_tiles(FROM_PAIRS);
            return;
        }
#endif
        stage_tiles(FROM_SRC);
        return;
    case REDUCE_STAGE_EXPAND:
        if (iid < N)
            store_dst(iid, v_from(src[SRC_OFF + iid]));
        return;
    case REDUCE_STAGE_HALVING:
        if (iid < N / 2u)
            store_dst(iid, v_op(load_dst(iid), load_dst(iid + (N + 1u) / 2u)));
        return;
    case REDUCE_STAGE_STRIDE: {
        uint i = 2u * Q * iid;
        if (iid < N / 2u)
            store_dst(i, v_op(load_dst(i), load_dst(i + Q)));
        return;
    }
    case REDUCE_STAGE_PAIRS: {
        uint i = 2u * iid;
        if (i + 1u < N) // the comparator of the pair (i, i+1)
            choose(i, i + 1u, i + 1u, i);
        if (iid == 0u && (N & 1u) != 0u) // the element without a pair
            choose(0u, N > 1u ? 1u : 0u, N - 1u, N - 1u);
        return;
    }
    case REDUCE_STAGE_QUADS: {
        uint i = 2u * iid, j = i + 2u * ((N + 3u) / 4u);
        if (j < N)
            choose(i, i + 1u, j, j + 1u);
        return;
    }
    case REDUCE_STAGE_COUNTER:
        if (iid == 0u)
            counter[0] = 0u;
        return;
    case REDUCE_STAGE_DOT:
        stage_tiles(FROM_PRODUCTS);
        return;
    case REDUCE_STAGE_UPDATE_DOT:
        stage_tiles(FROM_UPDATE);
        return;
    default:
        return;
    }
}
