// scan.comp: the prefix-sum family (inclusive and exclusive, operator +).
// variants: TYPE=U32,I32,F32,F64
//
// Stages (STAGE = params[0], numbered in src/algo/ids/scan_ids.h); src is binding 0, dst
// binding 1, the per-group partial sums binding 2 (from PART_OFF); offsets and counts in
// elements of T.
//   REDUCE    fast: group g sums its contiguous run of tiles (TILES_PER_GROUP
//             tiles of WG_SIZE*ITEMS elements) into part[g].
//   PARTIALS  fast, one group: part[0..G) becomes its exclusive prefix sum.
//   TILES     fast: group g scans its run tile by tile, starting from part[g].
//   COPY      classic: dst = src (inclusive) or src shifted right by one (exclusive).
//   STEP      classic iPrefixSum step k on dst: a[ib] += a[ia].
//   CLEAR     single pass: state words [0, N) = 0 (no tile has published).
//   CHAINED   single pass: each group draws a tile by ticket, scans it, and
//             takes the sum of the tiles before it from their published
//             states (decoupled look-back); a predecessor that publishes
//             nothing within POLLS reads is summed from its input instead,
//             so no group ever waits on another's progress.
// The executor defines OP_SUM for this family (ops.glsl needs it first).

// No `restrict`: an in-place scan binds src and dst to the same memory.
layout(std430, binding = 0) readonly buffer Src { T src[]; };
layout(std430, binding = 1) buffer Dst { T dst[]; };
// The same memory 16 bytes at a time (VW elements), for CHAINED's loads and
// stores where both offsets are multiples of VW (VEC).
#if defined(TYPE_U32)
#define TV uvec4
#elif defined(TYPE_I32)
#define TV ivec4
#elif defined(TYPE_F32)
#define TV vec4
#else
#define TV dvec2
#endif
// A vector's elements to and from x[i..i+VW), by name: NVIDIA's GL compiler
// failed to link f64 programs that index a dvec2 with a loop variable ("can't
// find __setVectorIndex function in stdlib").
#if defined(TYPE_F64)
#define VW 2u
#define TV_OF(x, i) TV(x[i], x[(i) + 1u])
#define TV_TO(v, x, i) { x[i] = v.x; x[(i) + 1u] = v.y; }
#else
#define VW 4u
#define TV_OF(x, i) TV(x[i], x[(i) + 1u], x[(i) + 2u], x[(i) + 3u])
#define TV_TO(v, x, i) { x[i] = v.x; x[(i) + 1u] = v.y; x[(i) + 2u] = v.z; x[(i) + 3u] = v.w; }
#endif
layout(std430, binding = 0) readonly buffer SrcV { TV srcv[]; };
layout(std430, binding = 1) buffer DstV { TV dstv[]; };
layout(std430, binding = 2) restrict buffer Part { T part[]; };
// CHAINED's ticket (state[0].x) and each tile's published values (below).
layout(std430, binding = 3) coherent volatile buffer State { uvec4 state[]; };

// The count: params[SCAN_P_N], or with bit 31 set the count on the GPU it bounds
// (device_count, common.glsl); main reads it once.
uint g_n;
#define N               g_n
#define SRC_OFF         params[SCAN_P_SRC_OFF]
#define DST_OFF         params[SCAN_P_DST_OFF]
#define EXCLUSIVE       params[SCAN_P_EXCLUSIVE]
#define TILES_PER_GROUP params[SCAN_P_TILES_PER_GROUP]
#define STEP_K          params[SCAN_P_STEP_K]   /* STEP: k, the step of iPrefixSum */
#define GROUPS          params[SCAN_P_GROUPS]   /* PARTIALS: how many partial sums */
#define PART_OFF        params[SCAN_P_PART_OFF] /* where the partial sums start in part */
// CHAINED, tests: 1 ignores every published state, 2 the look-back's reads only (see
// look_back), 3 every inclusive prefix but tile 0's (walks go back to tile 0).
#define FALLBACK        params[SCAN_P_FALLBACK]
#define POLLS           params[SCAN_P_POLLS]    /* CHAINED: reads of a silent predecessor */
#define VEC             params[SCAN_P_VEC]      /* CHAINED: 16-byte loads and stores */
#define IN_PLACE        params[SCAN_P_IN_PLACE] /* CHAINED: src and dst overlap */
#define FALLBACK_SUMS 3u
#define FORCED (FALLBACK == 1u || FALLBACK == 2u) /* the look-back reads nothing */

#define TILE (WG_SIZE * ITEMS)
#define RELOAD (ONLY_STAGE == SCAN_STAGE_CHAINED && SCAN_SHAPE_RELOAD != 0u)
// CHAINED: an invocation's elements in ROWS runs of RUN consecutive ones
// (16 bytes where ITEMS allows).
#define RUN (ITEMS % VW == 0u ? VW : ITEMS)
#define ROWS (ITEMS / RUN)
// One padding slot every 32 keeps the ITEMS-strided reads of a thread's own
// elements free of shared-memory bank conflicts.
#define PAD(i) ((i) + ((i) >> 5))
// CHAINED keeps its tile in registers and runs in a program of its own
// (ONLY_STAGE): there it declares no tile, so that the shared memory does
// not bound how many groups share a multiprocessor (on the H100 19 KB per
// group allowed 2, 2 KB allow 5: the single pass 1.5x faster). CLEAR, on
// CHAINED's shape, has a program without the tile too: a 256 x 32 tile of
// the family's stages would take 33.8 KB (35.9 with the rest), more than
// llvmpipe's 32 KB.
shared T s_tile[ONLY_STAGE == SCAN_STAGE_CHAINED || ONLY_STAGE == SCAN_STAGE_CLEAR ? 1u
                                                                          : PAD(TILE)];
shared T s_scan[WG_SIZE];
shared T s_total;

#ifdef SUBGROUPS
// Exclusive prefix sum across the work-group of one value per subgroup (the
// same in all its lanes); `total` receives the sum of all of them. Every
// invocation must call it.
T wg_subgroup_prefix(T sg_value, out T total)
{
    if (subgroupElect())
        s_scan[gl_SubgroupID] = sg_value;
    SYNC();
    if (gl_SubgroupID == 0u) {
        // Scan the subgroup values, in strides when there are more than lanes.
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
    T r = s_scan[gl_SubgroupID];
    total = s_total;
    SYNC();
    return r;
}
#endif

// Exclusive prefix sum of one value per invocation across the work-group;
// `total` receives the sum of all of them. Every invocation must call it.
T wg_exclusive_scan(T x, out T total)
{
#ifdef SUBGROUPS
    return wg_subgroup_prefix(subgroupAdd(x), total) + subgroupExclusiveAdd(x);
#else
    // Hillis-Steele inclusive scan; the exclusive value is the neighbour's
    // inclusive one, so no subtraction (exact for floats too).
    uint lid = gl_LocalInvocationID.x;
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

// ----------------------------------------------------------- single pass
//
// Tile t publishes two values in state: its own sum (SUM) as soon as it has
// scanned its tile, and its inclusive prefix, the sum of tiles 0..t (INC),
// once its look-back is done. Each value is split into 16-bit chunks, one
// per word, next to a mark bit: a word is either still 0 or final, so a
// reader needs no ordering between words and one 16-byte load reads a
// 32-bit type's both values with their flags (f64: one load per value).
// Words are written once per call (CLEAR zeroes them first).
#define MARK 0x10000u
#define ST_NONE 0u
#define ST_SUM 1u
#define ST_INC 2u

#if defined(TYPE_F64)
// Per tile: the INC chunks 0..3 in one uvec4, the SUM chunks in the next.
uvec4 encode(T v)
{
    uvec2 b = unpackDouble2x32(v);
    return uvec4(b.x & 0xffffu, b.x >> 16, b.y & 0xffffu, b.y >> 16) | MARK;
}
bool decode(uvec4 w, out T v)
{
    v = packDouble2x32(uvec2((w.x & 0xffffu) | (w.y << 16), (w.z & 0xffffu) | (w.w << 16)));
    return (w.x & w.y & w.z & w.w & MARK) != 0u;
}
uint read_state(uint t, out T v)
{
    T s;
    uvec4 inc = state[1u + 2u * t], sum = state[2u + 2u * t];
    if (decode(inc, v) && (FALLBACK != FALLBACK_SUMS || t == 0u))
        return ST_INC;
    bool has_sum = decode(sum, s);
    v = has_sum ? s : T_ZERO;
    return has_sum ? ST_SUM : ST_NONE;
}
void publish(uint t, T v, uint st) { state[1u + 2u * t + (st == ST_SUM ? 1u : 0u)] = encode(v); }
#else
// Per tile one uvec4: (INC chunks 0, 1, SUM chunks 0, 1).
#if defined(TYPE_U32)
uint t_bits(T v) { return v; }
T t_of_bits(uint b) { return b; }
#elif defined(TYPE_I32)
uint t_bits(T v) { return uint(v); }
T t_of_bits(uint b) { return int(b); }
#else
uint t_bits(T v) { return floatBitsToUint(v); }
T t_of_bits(uint b) { return uintBitsToFloat(b); }
#endif
uvec2 encode(T v) { uint b = t_bits(v); return uvec2(b & 0xffffu, b >> 16) | MARK; }
uint read_state(uint t, out T v)
{
    uvec4 w = state[1u + t];
    bool inc = (w.x & w.y & MARK) != 0u && (FALLBACK != FALLBACK_SUMS || t == 0u);
    bool sum = (w.z & w.w & MARK) != 0u;
    uvec2 c = inc ? w.xy : w.zw;
    v = inc || sum ? t_of_bits((c.x & 0xffffu) | (c.y << 16)) : T_ZERO;
    return inc ? ST_INC : sum ? ST_SUM : ST_NONE;
}
// The SUM chunks are final before INC is written, so rewriting them with
// the same bits keeps one 16-byte store.
void publish(uint t, T v, uint st)
{
    if (st == ST_SUM)
        state[1u + t] = uvec4(0u, 0u, encode(v));
    else
        state[1u + t].xy = encode(v);
}
#endif

shared uint s_ticket;
shared uint s_lb_j;    // the walk's next tile to read is s_lb_j - 1
shared uint s_lb_done; // the walk met an inclusive prefix (or tile 0's sum)
shared T s_lb_sum;     // what the walk added

// One walk back from tile j-1 over published states, adding them, until an
// inclusive prefix (done) or a tile that has published nothing (stop there);
// it never waits. Leaves its result in s_lb_*: the caller's barrier makes
// the rest of the group wait once.
#ifdef SUBGROUPS
// By subgroup 0 alone: lane l reads tile j-1-l's state, ballots find the
// nearest inclusive prefix and the nearest silent tile, subgroupAdd sums
// the lanes before them; window after window while every lane found a sum.
void walk(uint j)
{
    uint lane = gl_SubgroupInvocationID, width = gl_SubgroupSize;
    T sum = T_ZERO;
    bool done = false;
    while (j > 0u) {
        // Lanes before tile 0 read as an inclusive 0: the walk ends there.
        T v = T_ZERO;
        uint st = ST_INC;
        if (lane < j)
            st = FORCED ? ST_NONE : read_state(j - 1u - lane, v);
        bool any_inc = subgroupAny(st == ST_INC), any_gap = subgroupAny(st == ST_NONE);
        uint inc = any_inc ? subgroupBallotFindLSB(subgroupBallot(st == ST_INC)) : width;
        uint gap = any_gap ? subgroupBallotFindLSB(subgroupBallot(st == ST_NONE)) : width;
        if (inc < gap) {
            sum += subgroupAdd(lane <= inc ? v : T_ZERO);
            done = true;
            break;
        }
        sum += subgroupAdd(lane < gap ? v : T_ZERO); // tiles j-1 .. j-gap
        j -= gap;
        if (gap < width)
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
// By invocation 0 alone, one tile at a time.
void walk(uint j)
{
    T sum = T_ZERO;
    bool done = false;
    for (; j > 0u; j--) {
        T v;
        uint st = FORCED ? ST_NONE : read_state(j - 1u, v);
        if (st == ST_NONE)
            break;
        sum += v;
        if (st == ST_INC) {
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

// Tile k's sum from its input, by the whole group, for a predecessor that
// stayed silent. Then its state is read again: a value published meanwhile
// wins (in an in-place scan the tile may have overwritten its input since,
// but only after publishing its sum). `inclusive`: the result is tile k's
// inclusive prefix, so the look-back ends.
T recount(uint k, out bool inclusive)
{
    uint first = k * TILE;
    T x[ITEMS];
    load_tile(first, min(TILE, N - first), x);
    T s = T_ZERO;
    for (uint i = 0u; i < ITEMS; i++)
        s += x[i];
    s = wg_reduce(s);
    memoryBarrierBuffer();
    if (gl_LocalInvocationID.x == 0u) {
        T v;
        uint st = FALLBACK == 1u ? ST_NONE : read_state(k, v);
        s_lb_done = st == ST_INC || k == 0u ? 1u : 0u;
        s_lb_sum = st != ST_NONE ? v : s;
    }
    SYNC();
    inclusive = s_lb_done != 0u;
    T r = s_lb_sum;
    SYNC();
    return r;
}

// The sum of tiles 0..t-1 (decoupled look-back): walks (no barrier per
// step); at a silent tile the group polls it up to POLLS times (a barrier
// each), then sums it from its input: a bounded wait, never a dependence on
// another group's progress. The loop is the whole group's (uniform), with
// barriers in it only: a subgroup spinning alone while the others waited at
// a barrier lost their stores on lavapipe.
T look_back(uint t)
{
    T prefix = T_ZERO;
    uint polls = 0u;
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
        if (!FORCED && ++polls < POLLS)
            continue;
        polls = 0u; // tile j-1 stays silent: sum it here
        bool inclusive;
        prefix += recount(j - 1u, inclusive);
        if (inclusive)
            break;
        j -= 1u;
    }
    return prefix;
}

// CHAINED's tile in registers: an invocation's row r starts at ROW_START(r).
// With subgroups the tile is laid out in subgroup rows: subgroup s owns the
// s-th run of width * ITEMS elements, and in row r lane l holds the RUN
// elements from r * RUN * width + RUN * l, so every load and store
// instruction covers one contiguous stretch (width x 16 bytes): on the H100
// 2^28 u32 so took 866 us in 256 x 32 tiles, where ITEMS consecutive
// elements per invocation (each 16-byte instruction using half of every
// sector it touches) took 1185 at best (docs/DECISIONS.md). Without
// subgroups an invocation holds ITEMS consecutive elements.
#ifdef SUBGROUPS
#define ROW_START(r) (gl_SubgroupID * gl_SubgroupSize * ITEMS + \
                      ((r) * gl_SubgroupSize + gl_SubgroupInvocationID) * RUN)
#else
#define ROW_START(r) (gl_LocalInvocationID.x * ITEMS + (r) * RUN)
#endif

// The test of vec stands outside the row loops: with an `if` per row, NVIDIA's GLSL
// compiler gave each row's load a block of its own and waited for it before the next
// row's (its program binary shows it), so a tile of 8 rows took 8 load latencies;
// in one block the rows' loads are in flight together.
void load_chained(uint first, uint count, bool vec, out T x[ITEMS])
{
    if (RUN == VW && vec) { // RUN == VW whenever vec: the test only folds the code away
        UNROLL for (uint r = 0u; r < ROWS; r++) {
            TV v = srcv[(SRC_OFF + first + ROW_START(r)) / VW];
            TV_TO(v, x, RUN * r)
        }
    } else {
        UNROLL for (uint r = 0u; r < ROWS; r++) {
            uint at = ROW_START(r);
            UNROLL for (uint c = 0u; c < RUN; c++)
                x[RUN * r + c] = at + c < count ? src[SRC_OFF + first + at + c] : T_ZERO;
        }
    }
}

void store_chained(uint first, uint count, bool vec, T x[ITEMS])
{
    if (RUN == VW && vec) {
        UNROLL for (uint r = 0u; r < ROWS; r++)
            dstv[(DST_OFF + first + ROW_START(r)) / VW] = TV_OF(x, RUN * r);
    } else {
        UNROLL for (uint r = 0u; r < ROWS; r++) {
            uint at = ROW_START(r);
            UNROLL for (uint c = 0u; c < RUN; c++)
                if (at + c < count)
                    dst[DST_OFF + first + at + c] = x[RUN * r + c];
        }
    }
}

// Each row's exclusive prefix for this invocation's first element in it,
// within the tile, in row_prefix[0..ROWS); `total` receives the tile's sum.
// (Arrays of a value per row are sized ITEMS: under Vulkan glslang gives
// every expression of the specialization constant a type of its own, so a
// ROWS-sized argument would match no parameter.)
void tile_prefixes(T x[ITEMS], out T row_prefix[ITEMS], out T total)
{
    T row_sum[ITEMS];
    UNROLL for (uint r = 0u; r < ROWS; r++) {
        row_sum[r] = T_ZERO;
        UNROLL for (uint c = 0u; c < RUN; c++)
            row_sum[r] += x[RUN * r + c];
    }
#ifdef SUBGROUPS
    // Every row scanned across the subgroup at once, by shuffles, one distance
    // at a time for all rows (Hillis-Steele): NVIDIA's GLSL compiler wraps each
    // subgroupExclusiveAdd in a test of its own, so rows scanned a call each ran
    // one after another there. A row's sum is its last lane's inclusive prefix,
    // its exclusive prefix the lane before's; then the subgroups' runs across
    // the group.
    T incl[ITEMS];
    uint lane = gl_SubgroupInvocationID, last = gl_SubgroupSize - 1u;
    UNROLL for (uint r = 0u; r < ROWS; r++)
        incl[r] = row_sum[r];
    for (uint d = 1u; d < gl_SubgroupSize; d <<= 1) {
        UNROLL for (uint r = 0u; r < ROWS; r++) {
            T up = subgroupShuffleUp(incl[r], d);
            if (lane >= d)
                incl[r] += up;
        }
    }
    T run = T_ZERO;
    UNROLL for (uint r = 0u; r < ROWS; r++) {
        T before = subgroupShuffleUp(incl[r], 1u);
        row_prefix[r] = lane > 0u ? run + before : run;
        run += subgroupShuffle(incl[r], last);
    }
    T group_before = wg_subgroup_prefix(run, total);
#else
    T run = T_ZERO;
    UNROLL for (uint r = 0u; r < ROWS; r++) {
        row_prefix[r] = run;
        run += row_sum[r];
    }
    T group_before = wg_exclusive_scan(run, total);
#endif
    UNROLL for (uint r = 0u; r < ROWS; r++)
        row_prefix[r] += group_before;
}

// CHAINED: a tile by ticket, scanned in registers (no shared-memory
// transposition: the tile costs the ticket's, the work-group scan's and the
// look-back's barriers only), loaded and stored 16 bytes at a time where
// the offsets allow.
void stage_chained()
{
    uint lid = gl_LocalInvocationID.x;
    uint tiles = (N + (TILE - 1u)) / TILE;
    // Tiles in the order groups start (a ticket), not by group index: a
    // predecessor has then at least started, and usually publishes soon. Tickets
    // wherever the dispatch has more than one group (the state was cleared): with a
    // count on the GPU the groups may outnumber the count's tiles.
    if (lid == 0u)
        s_ticket = gl_NumWorkGroups.x * gl_NumWorkGroups.y > 1u ? atomicAdd(state[0].x, 1u) : 0u;
    SYNC();
    uint t = s_ticket;
    if (t >= tiles)
        return; // the whole group: a dispatch spread over y has spare groups
    uint first = t * TILE, count = min(TILE, N - first);
    bool vec = VEC != 0u && count == TILE;
    T x[ITEMS];
    load_chained(first, count, vec, x);
    T row_prefix[ITEMS], total;
    tile_prefixes(x, row_prefix, total);
    T prefix = T_ZERO;
    if (tiles > 1u) {
        // The fence sends the tile's sum out before this group's own
        // look-back: without it successors found it missing longer, on the
        // H100 2^28 u32 took 829 us on Vulkan, 1022 on GL, and 773 / 913 with
        // it; a second fence after the inclusive prefix cost more than it
        // saved (779 / 967; docs/DECISIONS.md).
        if (lid == 0u) {
            publish(t, total, t == 0u ? ST_INC : ST_SUM);
            memoryBarrierBuffer();
        }
        if (t > 0u)
            prefix = look_back(t);
    }
    if (lid == 0u && tiles > 1u && t > 0u)
        publish(t, prefix + total, ST_INC);
    // RELOAD (SCAN_SHAPE_RELOAD): the tile read again, from L2 where its first load left it,
    // so that no register holds it across the look-back's loop; its place read
    // again from shared memory, so that the compiler cannot keep the first load.
    if (RELOAD)
        load_chained(s_ticket * TILE, count, vec, x);
    // In place, the inclusive prefix is published before the tile's input is
    // overwritten: a successor summing this tile from its input reads the
    // state again afterwards and takes the published value.
    if (IN_PLACE != 0u)
        memoryBarrierBuffer();
    // (EXCLUSIVE tested once, not per element: NVIDIA's GLSL compiler keeps the test.)
    if (EXCLUSIVE != 0u) {
        UNROLL for (uint r = 0u; r < ROWS; r++) {
            T run = prefix + row_prefix[r];
            UNROLL for (uint c = 0u; c < RUN; c++) {
                T v = x[RUN * r + c];
                x[RUN * r + c] = run;
                run += v;
            }
        }
    } else {
        UNROLL for (uint r = 0u; r < ROWS; r++) {
            T run = prefix + row_prefix[r];
            UNROLL for (uint c = 0u; c < RUN; c++) {
                run += x[RUN * r + c];
                x[RUN * r + c] = run;
            }
        }
    }
    store_chained(first, count, vec, x);
}

void main()
{
    uint iid = invocation_index();
    g_n = device_count(params[SCAN_P_N]);
    switch (STAGE) {
    case SCAN_STAGE_REDUCE:
        stage_reduce();
        return;
    case SCAN_STAGE_PARTIALS:
        stage_partials();
        return;
    case SCAN_STAGE_TILES:
        stage_tiles();
        return;
    case SCAN_STAGE_COPY:
        if (iid < N) {
            if (EXCLUSIVE != 0u)
                dst[DST_OFF + iid] = iid > 0u ? src[SRC_OFF + iid - 1u] : T_ZERO;
            else
                dst[DST_OFF + iid] = src[SRC_OFF + iid];
        }
        return;
    case SCAN_STAGE_CLEAR:
        if (iid < N)
            state[iid >> 2][iid & 3u] = 0u;
        return;
    case SCAN_STAGE_CHAINED:
        stage_chained();
        return;
    case SCAN_STAGE_STEP: {
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
