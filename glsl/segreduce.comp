// segreduce.comp: a reduction (sum, min, max) of every segment of a vector, the segments given
// by offsets (CSR row pointers), split by segments and elements together: the merge path of
// balanced SpMV (glsl/spmv.comp), with the operator in place of the product's sum.
// variants: TYPE=U32,I32,F32,F64 OP=SUM,MIN,MAX
//
// Stages (STAGE = params[0], numbered in src/algo/ids/segreduce_ids.h); the input at binding
// 0 (from SRC_OFF), the output at binding 1 (DST_OFF), the offsets at binding 2 (SEG_OFF),
// the plan and tile records at binding 3 (AUX_OFF, u32), the tiles' partial values at
// binding 4 (WORK_OFF), the segment count at binding 5 (COUNT_OFF, where HAS_COUNT).
//   PLAN   where each tile of the path begins: K + 1 (segments ended, elements taken)
//   TILES  a tile of up to WG_SIZE * ITEMS path steps per work-group, staged in shared
//          memory (a program of its own): each segment that ends in the tile and began in
//          it is written; the tile's records keep the rest (below)
//   FIX    the segments that cross tiles: their partial values combined in tile order
//
// The path merges the segment ends with the elements: NSEG + E steps, each either "take
// element j into segment i" or "end segment i" (E elements from the first offset). Cutting it
// into tiles of nearly equal length bounds a tile's work by segments and elements together:
// a million empty segments cost what a million elements do, and a segment of any length is
// spread over as many tiles as it needs. A cut moves back to the start of the segment it
// falls in where that is at most SLACK steps back, so that short segments never cross a tile
// (and FIX finds nothing to do for them). Records of tile g, as glsl/spmv.comp's TILE_FIX
// reads them: aux[2g] the segment open at the tile's end (with steps in the tile) or ~0,
// aux[2g + 1] whether its first step is in the tile; work[2g] its partial value, work[2g + 1]
// the partial of the segment the tile began inside, where that ends in the tile.
//
// Offsets are clamped to [first offset, count] before use (the first to count), and every
// index into the shared arrays to their size, so that offsets out of order give wrong
// values, never an access outside the buffers.

layout(std430, binding = 0) restrict readonly buffer Src { T src[]; };
layout(std430, binding = 1) restrict buffer Dst { T dst[]; };
layout(std430, binding = 2) restrict readonly buffer Seg { uint seg[]; };
layout(std430, binding = 3) restrict buffer Aux { uint aux[]; };
layout(std430, binding = 4) restrict buffer Work { T work[]; };
layout(std430, binding = 5) restrict readonly buffer Count { uint count_in[]; };

#define N          params[SEGREDUCE_P_N]  /* the input's elements: offsets are clamped to it */
#define SRC_OFF    params[SEGREDUCE_P_SRC_OFF]
#define DST_OFF    params[SEGREDUCE_P_DST_OFF]
#define SEG_OFF    params[SEGREDUCE_P_SEG_OFF]
#define NSEG_MAX   params[SEGREDUCE_P_NSEG]  /* the segments, or their bound where HAS_COUNT */
#define AUX_OFF    params[SEGREDUCE_P_AUX_OFF]
#define WORK_OFF   params[SEGREDUCE_P_WORK_OFF]
#define K          params[SEGREDUCE_P_K]  /* tiles */
#define HAS_COUNT  params[SEGREDUCE_P_HAS_COUNT]
#define COUNT_OFF  params[SEGREDUCE_P_COUNT_OFF]
#define PATH_STEP  params[SEGREDUCE_P_PATH_STEP] /* path steps between tile starts */
#define SLACK      params[SEGREDUCE_P_SLACK] /* how far back a start may move */
#define NONE 0xffffffffu

const uint TILE = ONLY_STAGE == SEGREDUCE_STAGE_TILES ? WG_SIZE * ITEMS : 1u;
shared uint s_end[TILE + 1u]; // the tile's segment ends, relative to the first offset
shared T s_val[TILE];         // its elements
shared uint s_flag[WG_SIZE];

uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

uint nseg() { return HAS_COUNT != 0u ? min(count_in[COUNT_OFF], NSEG_MAX) : NSEG_MAX; }

// The path's coordinates: the first offset (clamped to N), the end of the last segment
// (clamped to [base, N]), and offset k clamped to that, as an element index from base.
uint base_off() { return min(seg[SEG_OFF], N); }
uint end_off(uint base, uint ns) { return clamp(seg[SEG_OFF + ns], base, N); }
uint rp(uint k, uint base, uint end) { return clamp(seg[SEG_OFF + k], base, end) - base; }

// Whether segment m ends before step d of the path (its end step is e(m) + m).
bool ends_before(uint m, uint d, uint base, uint end) { return rp(m + 1u, base, end) + m < d; }

// ----------------------------------------------------------------------- PLAN

#define PLAN_OFF (AUX_OFF + 2u * K) // the plan after the tile records: 2 words per tile start

void plan_write(uint t, uint i, uint d, uint ns, uint base, uint end)
{
    uint j = d - i; // elements taken at d: rp(i) <= j
    if (i < ns) {
        uint start = min(rp(i, base, end), j);
        if (j - start <= SLACK)
            j = start;
    }
    aux[PLAN_OFF + 2u * t] = i;
    aux[PLAN_OFF + 2u * t + 1u] = j;
}

// Tile t begins near step d = t * PATH_STEP: i = the segments ending before d (a prefix of
// the segments), found by a subgroup's ballots over evenly spaced probes where there are
// subgroups (5 dependent loads for 2^24 segments), else by bisection.
void stage_plan()
{
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint ns = nseg(), base = base_off(), end = end_off(base, ns), len = ns + (end - base);
#ifdef SUBGROUPS
    uint sg = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
    for (uint t = group_index() * gl_NumSubgroups + gl_SubgroupID; t <= K;
         t += groups * gl_NumSubgroups) { // uniform in the subgroup
        uint d = min(t * PATH_STEP, len);
        uint lo = d > end - base ? d - (end - base) : 0u, hi = min(d, ns);
        while (lo < hi) {
            uint stride = (hi - lo + sg - 1u) / sg, p = lo + lane * stride;
            uint c = subgroupBallotBitCount(subgroupBallot(p < hi && ends_before(p, d, base, end)));
            uint next_lo = c > 0u ? lo + (c - 1u) * stride + 1u : lo;
            hi = min(hi, lo + c * stride);
            lo = next_lo;
        }
        if (subgroupElect())
            plan_write(t, lo, d, ns, base, end);
    }
#else
    for (uint t = invocation_index(); t <= K; t += groups * WG_SIZE) {
        uint d = min(t * PATH_STEP, len);
        uint lo = d > end - base ? d - (end - base) : 0u, hi = min(d, ns);
        while (lo < hi) {
            uint mid = (lo + hi) / 2u;
            if (ends_before(mid, d, base, end))
                lo = mid + 1u;
            else
                hi = mid;
        }
        plan_write(t, lo, d, ns, base, end);
    }
#endif
}

// ---------------------------------------------------------------------- TILES

// Segmented scan of (flag, value) over the work-group with the operator: a set flag starts a
// segment. Every invocation must call it (barriers); afterwards flag and v are the
// invocation's inclusive values and ex_flag, ex_v those of the invocation before it
// (identity for the first). The operator's operands keep the elements' order.
void segmented_scan(uint lid, inout uint flag, inout V v, out uint ex_flag, out V ex_v)
{
#ifdef SUBGROUPS
    uint lane = gl_SubgroupInvocationID;
    for (uint d = 1u; d < gl_SubgroupSize; d <<= 1) {
        uint pf = subgroupShuffleUp(flag, d);
        V pv = subgroupShuffleUp(v, d);
        if (lane >= d) {
            if (flag == 0u)
                v = v_op(pv, v);
            flag |= pf;
        }
    }
    if (lane == gl_SubgroupSize - 1u) {
        s_flag[gl_SubgroupID] = flag;
        s_reduce[gl_SubgroupID] = v;
    }
    SYNC();
    uint cf = 0u; // the carry into this subgroup: its predecessors' totals back to a flag
    V cv = V_IDENTITY;
    for (uint g = gl_SubgroupID; g > 0u && cf == 0u; g--) {
        cv = v_op(s_reduce[g - 1u], cv);
        cf = s_flag[g - 1u];
    }
    if (flag == 0u)
        v = v_op(cv, v);
    flag |= cf;
    ex_flag = subgroupShuffleUp(flag, 1u);
    ex_v = subgroupShuffleUp(v, 1u);
    if (lane == 0u) {
        ex_flag = cf;
        ex_v = cv;
    }
    SYNC();
#else
    s_flag[lid] = flag;
    s_reduce[lid] = v;
    SYNC();
    for (uint d = 1u; d < WG_SIZE; d <<= 1) {
        uint pf = 0u;
        V pv = V_IDENTITY;
        if (lid >= d) {
            pf = s_flag[lid - d];
            pv = s_reduce[lid - d];
        }
        SYNC();
        if (lid >= d) {
            if (flag == 0u)
                v = v_op(pv, v);
            flag |= pf;
            s_flag[lid] = flag;
            s_reduce[lid] = v;
        }
        SYNC();
    }
    ex_flag = lid > 0u ? s_flag[lid - 1u] : 0u;
    ex_v = lid > 0u ? s_reduce[lid - 1u] : V_IDENTITY;
    SYNC();
#endif
}

void stage_tiles()
{
    if (ONLY_STAGE != SEGREDUCE_STAGE_TILES)
        return; // no room in a program shared with the other stages
    uint lid = gl_LocalInvocationID.x, g = group_index();
    if (g >= K)
        return; // the whole group: a dispatch spread over y has spare groups
    uint ns = nseg(), base = base_off(), end = end_off(base, ns), ents_all = end - base;
    // Tile g takes segments i0 .. i1 and elements j0 .. j1, clamped so that every index stays
    // in range whatever the offsets hold.
    uint i0 = min(aux[PLAN_OFF + 2u * g], ns), j0 = min(aux[PLAN_OFF + 2u * g + 1u], ents_all);
    uint i1 = clamp(aux[PLAN_OFF + 2u * g + 2u], i0, min(ns, i0 + TILE));
    uint j1 = clamp(aux[PLAN_OFF + 2u * g + 3u], j0, ents_all);
    uint rows = i1 - i0, ents = min(j1 - j0, TILE - rows);
    UNROLL for (uint i = 0u; i <= ITEMS; i++) {
        uint k = lid + i * WG_SIZE;
        if (k <= rows)
            s_end[k] = i0 + k < ns ? rp(i0 + k + 1u, base, end) : ents_all;
    }
    UNROLL for (uint i = 0u; i < ITEMS; i++) {
        uint k = lid + i * WG_SIZE;
        if (k < ents)
            s_val[k] = src[SRC_OFF + base + j0 + k];
    }
    SYNC();
    // This invocation's steps: from local step s0, at most ITEMS, within the tile; where they
    // start: the segments ended before s0, by bisection in shared memory.
    uint s0 = min(lid * ITEMS, rows + ents), s1 = min(s0 + ITEMS, rows + ents);
    uint lo = s0 > ents ? s0 - ents : 0u, hi = min(s0, rows);
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (s_end[mid] + mid < j0 + s0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    uint ri = lo, j = j0 + s0 - lo, stop = s_end[min(ri, TILE)];
    bool emitted = false;
    uint first_row = 0u;
    V acc = V_IDENTITY, first_acc = V_IDENTITY;
    UNROLL for (uint s = 0u; s < ITEMS; s++) {
        if (s0 + s < s1) {
            if (j < stop) {
                acc = v_op(acc, v_from(s_val[min(j - j0, TILE - 1u)]));
                j++;
            } else if (ri < rows) { // segment i0 + ri ends here
                if (emitted) {
                    dst[DST_OFF + i0 + ri] = acc;
                } else {
                    emitted = true;
                    first_row = i0 + ri;
                    first_acc = acc;
                }
                acc = V_IDENTITY;
                stop = s_end[min(++ri, TILE)];
            }
        }
    }
    // A segment begins at each invocation that ended one: a first emitted segment gets the
    // values of the invocations before it since the last that ended one.
    uint flag = emitted ? 1u : 0u, ex_flag;
    V ex_v;
    segmented_scan(lid, flag, acc, ex_flag, ex_v);
    if (emitted) {
        V v = v_op(ex_v, first_acc);
        if (first_row == i0 && rp(i0, base, end) < j0) // began in an earlier tile: its head
            work[WORK_OFF + 2u * g + 1u] = v;
        else
            dst[DST_OFF + first_row] = v;
    }
    if (lid == WG_SIZE - 1u) { // the segment open at the tile's end, if it has steps here
        bool open = i1 < ns && rp(i1, base, end) < j1;
        aux[AUX_OFF + 2u * g] = open ? i1 : NONE;
        aux[AUX_OFF + 2u * g + 1u] = open && (i1 > i0 || rp(i0, base, end) >= j0) ? 1u : 0u;
        work[WORK_OFF + 2u * g] = acc;
    }
}

// ------------------------------------------------------------------------ FIX

// A tile g works only if its last segment began in it and goes on. The segment's partials of
// the tiles after g: tile h belongs to its run while tile h - 1 still has it open at its end,
// and gives its whole partial if it is open at its own end too, else its head. A work-group
// takes a tile (its invocations read every WG_SIZE-th tile of the run, FIX_UNROLL at a time:
// a segment of 2^26 elements, about 70000 tiles, is about 35 rounds of loads with 256
// invocations) and strides over the tiles, so the launch need not be one group per tile (most
// tiles have nothing to do).
#define FIX_UNROLL 8u

// The run's value from tile g + 1 + first, every `stride`-th tile, for segment r.
V tile_run(uint g, uint r, uint first, uint stride)
{
    V v = V_IDENTITY;
    for (uint h0 = g + 1u + first; h0 < K; h0 += stride * FIX_UNROLL) {
        bool more = true;
        UNROLL for (uint u = 0u; u < FIX_UNROLL; u++) {
            uint h = h0 + u * stride;
            if (more && h < K && aux[AUX_OFF + 2u * (h - 1u)] == r)
                v = v_op(v, work[WORK_OFF + 2u * h + (aux[AUX_OFF + 2u * h] == r ? 0u : 1u)]);
            else
                more = false; // past the run, as every later h of this invocation
        }
        if (!more)
            break;
    }
    return v;
}

void stage_fix()
{
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y, lid = gl_LocalInvocationID.x;
    uint ns = nseg();
    for (uint g = group_index(); g < K; g += groups) { // uniform in the group
        uint r = aux[AUX_OFF + 2u * g];
        if (r == NONE || aux[AUX_OFF + 2u * g + 1u] == 0u)
            continue;
        // (An invocation's tiles are in order, but a reduction across invocations mixes the
        // order for sums: fixed by the layout, so a device repeats its result.)
        V v = wg_reduce(tile_run(g, r, lid, WG_SIZE));
        if (lid == 0u && r < ns)
            dst[DST_OFF + r] = v_op(work[WORK_OFF + 2u * g], v);
    }
}

void main()
{
    switch (STAGE) {
    case SEGREDUCE_STAGE_PLAN:
        stage_plan();
        return;
    case SEGREDUCE_STAGE_TILES:
        stage_tiles();
        return;
    case SEGREDUCE_STAGE_FIX:
        stage_fix();
        return;
    default:
        return;
    }
}
