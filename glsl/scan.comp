// scan.comp: the prefix-sum family (inclusive and exclusive, operator +).
// variants: TYPE=U32,I32,F32,F64
//
// Stages (STAGE = params[0]); src is binding 0, dst binding 1, the per-group
// partial sums binding 2 (from PART_OFF); offsets and counts in elements of T.
//   0 REDUCE    fast: group g sums its contiguous run of tiles (TILES_PER_GROUP
//               tiles of WG_SIZE*ITEMS elements) into part[g].
//   1 PARTIALS  fast, one group: part[0..G) becomes its exclusive prefix sum.
//   2 TILES     fast: group g scans its run tile by tile, starting from part[g].
//   3 COPY      classic: dst = src (inclusive) or src shifted right by one (exclusive).
//   4 STEP      classic iPrefixSum step k on dst: a[ib] += a[ia].
// The executor defines OP_SUM for this family (ops.glsl needs it first).

// No `restrict`: an in-place scan binds src and dst to the same memory.
layout(std430, binding = 0) readonly buffer Src { T src[]; };
layout(std430, binding = 1) buffer Dst { T dst[]; };
layout(std430, binding = 2) restrict buffer Part { T part[]; };

#define N               params[1]
#define SRC_OFF         params[2]
#define DST_OFF         params[3]
#define EXCLUSIVE       params[4]
#define TILES_PER_GROUP params[5]
#define STEP_K          params[5] /* STEP: k, the step of iPrefixSum */
#define GROUPS          params[6] /* PARTIALS: how many partial sums */
#define PART_OFF        params[7] /* where the partial sums start in part */

#define TILE (WG_SIZE * ITEMS)
// One padding slot every 32 keeps the ITEMS-strided reads of a thread's own
// elements free of shared-memory bank conflicts.
#define PAD(i) ((i) + ((i) >> 5))
shared T s_tile[PAD(TILE)];
shared T s_scan[WG_SIZE];
shared T s_total;

// Exclusive prefix sum of one value per invocation across the work-group;
// `total` receives the sum of all of them. Every invocation must call it.
T wg_exclusive_scan(T x, out T total)
{
    uint lid = gl_LocalInvocationID.x;
#ifdef SUBGROUPS
    T in_sg = subgroupExclusiveAdd(x);
    T sg_sum = subgroupAdd(x);
    if (subgroupElect())
        s_scan[gl_SubgroupID] = sg_sum;
    SYNC();
    if (gl_SubgroupID == 0u) {
        // Scan the subgroup sums, in strides when there are more than lanes.
        T run = T_ZERO;
        for (uint base = 0u; base < gl_NumSubgroups; base += gl_SubgroupSize) {
            uint i = base + gl_SubgroupInvocationID;
            T v = i < gl_NumSubgroups ? s_scan[i] : T_ZERO;
            T e = subgroupExclusiveAdd(v);
            if (i < gl_NumSubgroups)
                s_scan[i] = run + e;
            run += subgroupAdd(v);
        }
        if (subgroupElect())
            s_total = run;
    }
    SYNC();
    T r = s_scan[gl_SubgroupID] + in_sg;
    total = s_total;
    SYNC();
    return r;
#else
    // Hillis-Steele inclusive scan; the exclusive value is the neighbour's
    // inclusive one, so no subtraction (exact for floats too).
    s_scan[lid] = x;
    SYNC();
    for (uint d = 1u; d < WG_SIZE; d <<= 1) {
        T v = lid >= d ? s_scan[lid - d] : T_ZERO;
        SYNC();
        s_scan[lid] += v;
        SYNC();
    }
    T r = lid > 0u ? s_scan[lid - 1u] : T_ZERO;
    total = s_scan[WG_SIZE - 1u];
    SYNC();
    return r;
#endif
}

void stage_reduce()
{
    uint g = gl_WorkGroupID.x, lid = gl_LocalInvocationID.x;
    uint begin = g * TILES_PER_GROUP * TILE;
    uint end = min(N, begin + TILES_PER_GROUP * TILE);
    T acc = T_ZERO;
    uint i = begin + lid;
    for (; i + (ITEMS - 1u) * WG_SIZE < end; i += TILE) {
        T x[ITEMS];
        for (uint k = 0u; k < ITEMS; k++)
            x[k] = src[SRC_OFF + i + k * WG_SIZE];
        for (uint k = 0u; k < ITEMS; k++)
            acc += x[k];
    }
    for (; i < end; i += WG_SIZE)
        acc += src[SRC_OFF + i];
    acc = wg_reduce(acc);
    if (lid == 0u)
        part[PART_OFF + g] = acc;
}

void stage_partials()
{
    uint lid = gl_LocalInvocationID.x;
    T carry = T_ZERO;
    for (uint base = 0u; base < GROUPS; base += WG_SIZE) {
        uint i = base + lid;
        T x = i < GROUPS ? part[PART_OFF + i] : T_ZERO;
        T total;
        T e = wg_exclusive_scan(x, total);
        if (i < GROUPS)
            part[PART_OFF + i] = carry + e;
        carry += total;
    }
}

// Loads tile elements [first, first + count) into registers, coalesced:
// invocation lid holds elements k * WG_SIZE + lid.
void load_tile(uint first, uint count, out T x[ITEMS])
{
    uint lid = gl_LocalInvocationID.x;
    for (uint k = 0u; k < ITEMS; k++) {
        uint i = k * WG_SIZE + lid;
        x[k] = i < count ? src[SRC_OFF + first + i] : T_ZERO;
    }
}

// Scans the tile held in x (count elements from `first`), adding `carry`,
// while the loads of the next tile (from `next`, next_count elements) are
// issued into x: they are in flight during this tile's barriers. Returns the
// new carry.
T scan_tile(inout T x[ITEMS], uint first, uint count, uint next, uint next_count, T carry)
{
    uint lid = gl_LocalInvocationID.x;
    for (uint k = 0u; k < ITEMS; k++)
        s_tile[PAD(k * WG_SIZE + lid)] = x[k];
    if (next_count > 0u)
        load_tile(next, next_count, x);
    SYNC();
    T sum = T_ZERO; // each invocation owns ITEMS consecutive elements
    for (uint k = 0u; k < ITEMS; k++)
        sum += s_tile[PAD(lid * ITEMS + k)];
    T total;
    T run = carry + wg_exclusive_scan(sum, total);
    for (uint k = 0u; k < ITEMS; k++) {
        uint i = PAD(lid * ITEMS + k);
        T v = s_tile[i];
        if (EXCLUSIVE != 0u) {
            s_tile[i] = run;
            run += v;
        } else {
            run += v;
            s_tile[i] = run;
        }
    }
    SYNC();
    for (uint k = 0u; k < ITEMS; k++) { // coalesced store
        uint i = k * WG_SIZE + lid;
        if (i < count)
            dst[DST_OFF + first + i] = s_tile[PAD(i)];
    }
    SYNC();
    return carry + total;
}

void stage_tiles()
{
    uint g = gl_WorkGroupID.x;
    uint begin = g * TILES_PER_GROUP * TILE;
    uint end = min(N, begin + TILES_PER_GROUP * TILE);
    T carry = part[PART_OFF + g];
    T x[ITEMS];
    if (begin < end)
        load_tile(begin, min(TILE, end - begin), x);
    for (uint first = begin; first < end; first += TILE) {
        uint next = first + TILE;
        uint next_count = next < end ? min(TILE, end - next) : 0u;
        carry = scan_tile(x, first, min(TILE, end - first), next, next_count, carry);
    }
}

void main()
{
    uint iid = invocation_index();
    switch (STAGE) {
    case 0u:
        stage_reduce();
        return;
    case 1u:
        stage_partials();
        return;
    case 2u:
        stage_tiles();
        return;
    case 3u:
        if (iid < N) {
            if (EXCLUSIVE != 0u)
                dst[DST_OFF + iid] = iid > 0u ? src[SRC_OFF + iid - 1u] : T_ZERO;
            else
                dst[DST_OFF + iid] = src[SRC_OFF + iid];
        }
        return;
    case 4u: {
        // Kiciak: i_a = 2^(k+1) floor(i / 2^k) + 2^k - 1, i_b = i_a + (i mod 2^k) + 1.
        uint m = 1u << STEP_K;
        uint ia = ((iid >> STEP_K) << (STEP_K + 1u)) + m - 1u;
        uint ib = ia + (iid & (m - 1u)) + 1u;
        if (ib < N)
            dst[DST_OFF + ib] += dst[DST_OFF + ia];
        return;
    }
    default:
        return;
    }
}
