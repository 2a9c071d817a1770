// reduce.comp: the reduction family (sum, min, max, min+max).
// variants: TYPE=U32,I32,F32,F64 OP=SUM,MIN,MAX,MINMAX
//
// Stages (STAGE = params[0]); src is binding 0, dst binding 1, offsets and
// counts in elements of T. A "V element" is one T, or a (min, max) pair of
// consecutive T for OP_MINMAX.
//   0 TILES     fast: group g reduces blocks g, g+G, g+2G, ... of
//               WG_SIZE*ITEMS source elements and writes V element g of dst.
//               With FOLD, the last group to finish (an atomic counter at
//               binding 3 tells) also folds dst's G values into V element 0
//               of binding 2 and sets the counter back to 0: one dispatch.
//   1 EXPAND    classic: dst V element i = v_from(src[i]), a scratch copy.
//   2 HALVING   classic GPUSumUp step on dst: a[i] op= a[i + ceil(n/2)].
//   3 STRIDE    classic GPUAltSumUp step on dst: a[2qt] op= a[2qt + q].
//   4 PAIRS     classic GPUfindMinMax, first step: comparators on pairs.
//   5 QUADS     classic GPUfindMinMax, later steps: pairs of pairs.
//   6 COUNTER   the fold's counter (binding 3) = 0, once when it is made.
//   7 DOT       TILES (OP_SUM) over the products src[i] * times[i] (binding
//               4): a dot product.
//   8 UPDATE_DOT  TILES (OP_SUM, f32/f64) after a vector update: e = alpha *
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

// Elements (TILES, EXPAND) or V elements left (classic steps): params[1], or with bit 31 set
// the count on the GPU it bounds (device_count, common.glsl; TILES inside other families'
// calls), read once by main.
uint g_n;
#define N         g_n
#define SRC_OFF   params[2]
#define DST_OFF   params[3]
#define SRC_PAIRS params[4] /* TILES on OP_MINMAX: src already holds (min, max) pairs */
#define Q         params[5] /* STRIDE: distance between the operands */
#define FOLD      params[6] /* TILES: the last group folds the partial results */
#define RESULT_OFF params[7]
#define TIMES     params[8] /* UPDATE_DOT: the products with times[i], else squares */
#define TIMES_OFF params[9]
#define UPDATE    params[10] /* UPDATE_DOT: 1 y = alpha*src + beta*y, 2 beta = 0 */
#define UPD_OFF   params[11]
// alpha at params[12..13], beta at params[14..15] (param_t in common.glsl).

// Where TILES' elements come from: a constant argument, so that each stage's
// inlined copy of stage_tiles carries no branch (and no store) for the
// others; a runtime flag here cost the plain f32 sum a quarter of its speed.
const uint FROM_SRC = 0u, FROM_PRODUCTS = 1u, FROM_UPDATE = 2u;

V load_src(uint i, const uint from)
{
#if defined(OP_SUM) && (defined(TYPE_F32) || defined(TYPE_F64))
    if (from == FROM_UPDATE) {
        T e = param_t(12u) * src[SRC_OFF + i];
        if (UPDATE == 1u)
            e += param_t(14u) * upd[UPD_OFF + i];
        upd[UPD_OFF + i] = e;
        return e * (TIMES != 0u ? times[TIMES_OFF + i] : e);
    }
#endif
#ifdef OP_SUM
    if (from == FROM_PRODUCTS)
        return src[SRC_OFF + i] * times[TIMES_OFF + i];
#endif
#ifdef OP_MINMAX
    if (SRC_PAIRS != 0u)
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

void stage_tiles(const uint from)
{
    const uint chunk = WG_SIZE * ITEMS;
    uint groups = gl_NumWorkGroups.x, g = gl_WorkGroupID.x, lid = gl_LocalInvocationID.x;
    uint full = N / chunk;
    V acc = V_IDENTITY;
    for (uint b = g; b < full; b += groups) {
        // All ITEMS loads are issued before any is used: memory parallelism.
        V x[ITEMS];
        for (uint k = 0u; k < ITEMS; k++)
            x[k] = load_src(b * chunk + k * WG_SIZE + lid, from);
        for (uint k = 0u; k < ITEMS; k++)
            acc = v_op(acc, x[k]);
    }
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
    g_n = device_count(params[1]);
    switch (STAGE) {
    case 0u:
        stage_tiles(FROM_SRC);
        return;
    case 1u:
        if (iid < N)
            store_dst(iid, v_from(src[SRC_OFF + iid]));
        return;
    case 2u:
        if (iid < N / 2u)
            store_dst(iid, v_op(load_dst(iid), load_dst(iid + (N + 1u) / 2u)));
        return;
    case 3u: {
        uint i = 2u * Q * iid;
        if (iid < N / 2u)
            store_dst(i, v_op(load_dst(i), load_dst(i + Q)));
        return;
    }
    case 4u: {
        uint i = 2u * iid;
        if (i + 1u < N) // the comparator of the pair (i, i+1)
            choose(i, i + 1u, i + 1u, i);
        if (iid == 0u && (N & 1u) != 0u) // the element without a pair
            choose(0u, N > 1u ? 1u : 0u, N - 1u, N - 1u);
        return;
    }
    case 5u: {
        uint i = 2u * iid, j = i + 2u * ((N + 3u) / 4u);
        if (j < N)
            choose(i, i + 1u, j, j + 1u);
        return;
    }
    case 6u:
        if (iid == 0u)
            counter[0] = 0u;
        return;
    case 7u:
        stage_tiles(FROM_PRODUCTS);
        return;
    case 8u:
        stage_tiles(FROM_UPDATE);
        return;
    default:
        return;
    }
}
