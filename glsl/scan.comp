// scan.comp: the prefix-sum family (inclusive and exclusive, operator +).
// variants: TYPE=U32,I32,F32,F64
//
// Stages (STAGE = params[0]); src is binding 0, dst binding 1, the per-group
// partial sums binding 2; offsets and counts in elements of T.
//   0 REDUCE    fast: group g sums its contiguous run of tiles (TILES_PER_GROUP
//               tiles of WG_SIZE*ITEMS elements) into part[g].
//   1 PARTIALS  fast, one group: part[0..G) becomes its exclusive prefix sum.
//   2 TILES     fast: group g scans its run tile by tile, starting from part[g].
//   3 COPY      classic: dst = src (inclusive) or src shifted right by one (exclusive).
//   4 STEP      classic iPrefixSum step k on dst: a[ib] += a[ia].
//   5 CLEAR     chained: flag[0..N) = 0 (no tile has published anything).
//   6 CHAINED   chained, one pass: group t scans tile t; its prefix comes from
//               the tiles before it (decoupled look-back: each tile publishes its
//               sum, then its inclusive prefix, in part[2t], part[2t+1] and
//               flag[t]). A predecessor that has published nothing after a
//               bounded wait is summed from its input by this group itself
//               (Smith, Levien and Owens' fallback), so no group ever depends on
//               another group making progress.
// The executor defines OP_SUM for this family (ops.glsl needs it first).

// No `restrict`: an in-place scan binds src and dst to the same memory.
layout(std430, binding = 0) readonly buffer Src { T src[]; };
layout(std430, binding = 1) buffer Dst { T dst[]; };
layout(std430, binding = 2) coherent buffer Part { T part[]; };
layout(std430, binding = 3) coherent buffer Flags { uint flag[]; };

#define N               params[1]
#define SRC_OFF         params[2]
#define DST_OFF         params[3]
#define EXCLUSIVE       params[4]
#define TILES_PER_GROUP params[5]
#define STEP_K          params[5] /* STEP: k, the step of iPrefixSum */
#define GROUPS          params[6] /* PARTIALS: how many partial sums */
#define FALLBACK_ONLY   params[7] /* CHAINED, for tests: ignore what others published */

#define FLAG_NONE 0u      /* CHAINED: nothing published yet */
#define FLAG_SUM 1u       /* part[2t] holds tile t's own sum */
#define FLAG_INCLUSIVE 2u /* part[2t + 1] holds the sum of tiles 0..t */
// Polls of a predecessor's flag before summing its tile here: a running
// predecessor publishes within this; one not yet scheduled costs a bounded
// wait, never a hang.
#define SPIN_POLLS 256u

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
        part[g] = acc;
}

void stage_partials()
{
    uint lid = gl_LocalInvocationID.x;
    T carry = T_ZERO;
    for (uint base = 0u; base < GROUPS; base += WG_SIZE) {
        uint i = base + lid;
        T x = i < GROUPS ? part[i] : T_ZERO;
        T total;
        T e = wg_exclusive_scan(x, total);
        if (i < GROUPS)
            part[i] = carry + e;
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
    T carry = part[g];
    T x[ITEMS];
    if (begin < end)
        load_tile(begin, min(TILE, end - begin), x);
    for (uint first = begin; first < end; first += TILE) {
        uint next = first + TILE;
        uint next_count = next < end ? min(TILE, end - next) : 0u;
        carry = scan_tile(x, first, min(TILE, end - first), next, next_count, carry);
    }
}

// CHAINED: publishes v as tile t's sum or inclusive prefix, each in a slot of
// its own (a reader that saw "sum" must not find the prefix written over
// it); the value is made visible before the flag that announces it.
void publish(uint t, T v, uint state)
{
    part[2u * t + (state == FLAG_INCLUSIVE ? 1u : 0u)] = v;
    memoryBarrierBuffer();
    atomicExchange(flag[t], state);
}

// The look-back reads a window of LOOK_BACK predecessors per step, one per
// invocation, as CUB reads one per lane of a warp; invocation 0 then walks
// the window in shared memory.
#define LOOK_BACK 32u
shared uint s_window_state[LOOK_BACK];
shared T s_window_value[LOOK_BACK];
shared uint s_used;   /* how many window entries the walk consumed */
shared bool s_done;   /* the walk met an inclusive prefix */
shared T s_sum, s_own;

// Reads the flags and values of tiles j-1, j-2, ..., j-len into the window.
void read_window(uint j, uint len)
{
    uint lid = gl_LocalInvocationID.x;
    if (lid < len) {
        uint k = j - 1u - lid;
        uint f = FALLBACK_ONLY != 0u ? FLAG_NONE : atomicOr(flag[k], 0u);
        memoryBarrierBuffer();
        s_window_state[lid] = f;
        s_window_value[lid] = f != FLAG_NONE ? part[2u * k + (f == FLAG_INCLUSIVE ? 1u : 0u)] : T_ZERO;
    }
    SYNC();
    if (lid == 0u) { // walk from the nearest: add until an inclusive prefix or a gap
        T sum = T_ZERO;
        uint used = 0u;
        bool done = false;
        for (; used < len && !done && s_window_state[used] != FLAG_NONE; used++) {
            sum += s_window_value[used];
            done = s_window_state[used] == FLAG_INCLUSIVE;
        }
        s_sum = sum;
        s_used = used;
        s_done = done;
    }
    SYNC();
}

// Tile j's sum from its input, by the whole group; published values win if
// they appeared meanwhile (in an in-place scan the input may be gone since).
// Returns the value to add and whether it is an inclusive prefix.
T sum_tile_here(uint j, out bool inclusive)
{
    uint first = j * TILE;
    T x[ITEMS];
    load_tile(first, min(TILE, N - first), x);
    T own = T_ZERO;
    for (uint k = 0u; k < ITEMS; k++)
        own += x[k];
    own = wg_reduce(own);
    if (gl_LocalInvocationID.x == 0u)
        s_own = own;
    SYNC();
    own = s_own;
    memoryBarrierBuffer();
    read_window(j + 1u, 1u); /* tile j again */
    bool published = s_used == 1u;
    inclusive = published ? s_done : j == 0u;
    T value = published ? s_sum : own;
    SYNC();
    return value;
}

// The sum of tiles 0..t-1: windows of published sums, walked from t-1 back
// to the first inclusive prefix. A gap (a tile that has published nothing)
// is polled SPIN_POLLS times, then that tile is summed here from its input:
// a bounded wait, never a dependence on another group's progress.
T look_back(uint t)
{
    T prefix = T_ZERO;
    uint polls = 0u;
    for (uint j = t; j > 0u;) {
        uint len = min(j, LOOK_BACK);
        read_window(j, len);
        T sum = s_sum;
        uint used = s_used;
        bool done = s_done;
        SYNC();
        prefix += sum;
        if (done)
            break;
        j -= used;
        if (used > 0u) {
            polls = 0u;
            continue;
        }
        if (++polls < SPIN_POLLS && FALLBACK_ONLY == 0u)
            continue;
        polls = 0u; /* tile j-1 is late: sum it here */
        bool inclusive;
        prefix += sum_tile_here(j - 1u, inclusive);
        if (inclusive)
            break;
        j -= 1u;
    }
    return prefix;
}

void stage_chained()
{
    uint t = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint lid = gl_LocalInvocationID.x;
    uint first = t * TILE;
    if (first >= N)
        return; /* the whole group leaves: no barrier is left waiting */
    uint count = min(TILE, N - first);
    T x[ITEMS];
    load_tile(first, count, x);
    for (uint k = 0u; k < ITEMS; k++)
        s_tile[PAD(k * WG_SIZE + lid)] = x[k];
    SYNC();
    T sum = T_ZERO; // each invocation owns ITEMS consecutive elements
    for (uint k = 0u; k < ITEMS; k++)
        sum += s_tile[PAD(lid * ITEMS + k)];
    T total;
    T excl = wg_exclusive_scan(sum, total);
    if (lid == 0u)
        publish(t, total, t == 0u ? FLAG_INCLUSIVE : FLAG_SUM);
    T prefix = look_back(t);
    if (lid == 0u && t > 0u)
        publish(t, prefix + total, FLAG_INCLUSIVE);
    T run = prefix + excl;
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
    for (uint k = 0u; k < ITEMS; k++) {
        uint i = k * WG_SIZE + lid;
        if (i < count)
            dst[DST_OFF + first + i] = s_tile[PAD(i)];
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
    case 5u:
        if (iid < N)
            flag[iid] = FLAG_NONE;
        return;
    case 6u:
        stage_chained();
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
