// rle.comp: run-length encoding: the heads of runs of equal keys compacted, either staged (flags,
// their inclusive scan by the library's scan, a scatter) or in one pass whose tiles are chained
// by a decoupled look-back, as glsl/scan.comp's CHAINED.
// variants: TYPE=U32,I32,F32,F64
//
// Keys are equal by the sort's total order: integers by value, floats bit for bit except
// that every NaN is one value (-0 and +0 differ).
//
// Stages (STAGE = params[0], numbered in src/algo/ids/rle_ids.h); the keys at binding 0
// (KEYS_OFF), the first key of each run at binding 1 (UNIQUE_OFF), the run lengths at
// binding 2 (LENGTHS_OFF), the flags at binding 3 (FLAGS_OFF), the run starts and the run
// count at binding 4 (STARTS_OFF, RUNS_AT), the key count at binding 5 (COUNT_OFF, where
// HAS_COUNT), the run count's copy at binding 6 (COUNT_OUT_OFF), the single pass's tile
// states at binding 7 (STATE_OFF); all but the keys and unique keys are u32. OUTPUTS says which outputs are bound.
//   HEADS    flags[i] = 1 where key i starts a run, else 0, for i < BOUND (0 past the count)
//   SCATTER  on the flags' inclusive scan: each head i of run r = flags[i] - 1 writes its
//            key to unique[r] and i to starts[r]; the last key writes the run count R to
//            starts[RUNS_AT] (and count_out) and the key count to starts[R]
//   LENGTHS  lengths[r] = starts[r + 1] - starts[r], r < the run count
//   CLEAR    state words [0, N) = 0 (no tile has published)
//   CHAINED  single pass: each group draws a tile of WG_SIZE * ITEMS keys by ticket, finds
//            its heads, and takes from the tiles before it (their published states, or their
//            keys where a predecessor stays silent) the runs they hold and where the last of
//            them starts; then it writes its heads' keys and starts, the lengths of the runs
//            they end, and (the tile of the last key) what SCATTER's last key writes
// The executor defines OP_SUM for this family (ops.glsl needs it first).

layout(std430, binding = 0) restrict readonly buffer Keys { T keys[]; };
layout(std430, binding = 1) restrict writeonly buffer Unique { T unique_keys[]; };
layout(std430, binding = 2) restrict writeonly buffer Lengths { uint lengths[]; };
layout(std430, binding = 3) restrict buffer Flags { uint flags[]; };
layout(std430, binding = 4) restrict buffer Starts { uint starts[]; };
layout(std430, binding = 5) restrict readonly buffer Count { uint count_in[]; };
layout(std430, binding = 6) restrict writeonly buffer CountOut { uint count_out[]; };
layout(std430, binding = 7) coherent volatile buffer State { uint state[]; };

#define BOUND         params[RLE_P_BOUND]
#define KEYS_OFF      params[RLE_P_KEYS_OFF]
#define UNIQUE_OFF    params[RLE_P_UNIQUE_OFF]
#define LENGTHS_OFF   params[RLE_P_LENGTHS_OFF]
#define FLAGS_OFF     params[RLE_P_FLAGS_OFF]
#define STARTS_OFF    params[RLE_P_STARTS_OFF]
#define HAS_COUNT     params[RLE_P_HAS_COUNT]
#define COUNT_OFF     params[RLE_P_COUNT_OFF]
#define OUTPUTS       params[RLE_P_OUTPUTS]  /* RLE_OUT_* bits */
#define COUNT_OUT_OFF params[RLE_P_COUNT_OUT_OFF]
#define RUNS_AT       params[RLE_P_RUNS_AT]
#define FALLBACK      params[RLE_P_FALLBACK] /* CHAINED, tests: 1 ignores every published state */
#define POLLS         params[RLE_P_POLLS] /* CHAINED: reads of a silent predecessor */
#define STATE_OFF     params[RLE_P_STATE_OFF]

#define TILE (WG_SIZE * ITEMS)

uint key_count() { return HAS_COUNT != 0u ? min(count_in[COUNT_OFF], BOUND) : BOUND; }

// Equal in the sort's total order (bits compared, so no fast-math setting folds it).
#if defined(TYPE_F32)
bool same(T a, T b)
{
    return floatBitsToUint(a) == floatBitsToUint(b) || (t_isnan(a) && t_isnan(b));
}
#elif defined(TYPE_F64)
bool same(T a, T b)
{
    return unpackDouble2x32(a) == unpackDouble2x32(b) || (t_isnan(a) && t_isnan(b));
}
#else
bool same(T a, T b) { return a == b; }
#endif

// The last key writes what the whole encoding ends with (the first, for no keys at all).
void finish(uint runs, uint n)
{
    starts[STARTS_OFF + runs] = n;
    starts[RUNS_AT] = runs;
    if ((OUTPUTS & RLE_OUT_COUNT) != 0u)
        count_out[COUNT_OUT_OFF] = runs;
}

// A head of run r at key i: its key and start.
void write_head(uint r, uint i, T key)
{
    if ((OUTPUTS & RLE_OUT_UNIQUE) != 0u)
        unique_keys[UNIQUE_OFF + r] = key;
    starts[STARTS_OFF + r] = i;
}

// ------------------------------------------------------------ single pass
//
// A tile's summary is a pair: the heads it holds, and 1 + the index of its last head (0: none).
// Pairs combine as (sum, max), so the pair of tiles 0..t-1 says how many runs begin before
// tile t and where the run open at its start began. Tile t publishes its own pair (AGG) as soon
// as it has counted its heads, and the pair of tiles 0..t (INC) once its look-back is done;
// each value is split into 16-bit chunks, one per word, next to a mark bit, so that a word is
// either still 0 or final and a reader needs no ordering between words (glsl/scan.comp).
// Words are written once per call (CLEAR zeroes them first).
#define MARK 0x10000u
#define ST_NONE 0u
#define ST_AGG 1u
#define ST_INC 2u

uvec2 combine(uvec2 a, uvec2 b) { return uvec2(a.x + b.x, max(a.y, b.y)); }

// Tile t's states: INC at words 4 + 8t .. +3, AGG at +4 .. +7 (after the ticket's 4 words).
uint state_at(uint t, uint st) { return STATE_OFF + 4u + 8u * t + (st == ST_AGG ? 4u : 0u); }

void publish(uint t, uvec2 v, uint st)
{
    uint at = state_at(t, st);
    state[at] = (v.x & 0xffffu) | MARK;
    state[at + 1u] = (v.x >> 16) | MARK;
    state[at + 2u] = (v.y & 0xffffu) | MARK;
    state[at + 3u] = (v.y >> 16) | MARK;
}

bool read_pair(uint at, out uvec2 v)
{
    uint a = state[at], b = state[at + 1u], c = state[at + 2u], d = state[at + 3u];
    v = uvec2((a & 0xffffu) | (b << 16), (c & 0xffffu) | (d << 16));
    return (a & b & c & d & MARK) != 0u;
}

uint read_state(uint t, out uvec2 v)
{
    if (read_pair(state_at(t, ST_INC), v))
        return ST_INC;
    if (read_pair(state_at(t, ST_AGG), v))
        return ST_AGG;
    v = uvec2(0u);
    return ST_NONE;
}

shared uint s_ticket;
shared uvec2 s_part[WG_SIZE]; // the work-group scan's values
shared uint s_lb_j, s_lb_done;
shared uvec2 s_lb_sum;

// Exclusive (sum, max) scan of one pair per invocation across the work-group; `total`
// receives the pair of all of them. Every invocation must call it. In shared memory even
// where the device has subgroups: with subgroup scans here NVIDIA's Vulkan driver (H200,
// 580) wrote wrong run starts at subgroup boundaries, and a ballot-and-shuffle form broke
// f64 keys instead; its GL driver and Mesa ran both right (docs/DECISIONS.md).
uvec2 wg_scan_pair(uvec2 v, out uvec2 total)
{
    uint lid = gl_LocalInvocationID.x;
    s_part[lid] = v;
    SYNC();
    for (uint d = 1u; d < WG_SIZE; d <<= 1) {
        uvec2 p = lid >= d ? s_part[lid - d] : uvec2(0u);
        SYNC();
        s_part[lid] = combine(s_part[lid], p);
        SYNC();
    }
    uvec2 r = lid > 0u ? s_part[lid - 1u] : uvec2(0u);
    total = s_part[WG_SIZE - 1u];
    SYNC();
    return r;
}

// The keys of tile t that this invocation holds (ITEMS consecutive ones from `first`), their
// head flags, and its pair.
uvec2 tile_heads(uint t, uint n, out T x[ITEMS], out bool head[ITEMS], out uint first)
{
    first = t * TILE + gl_LocalInvocationID.x * ITEMS;
    T prev = first > 0u && first < n ? keys[KEYS_OFF + first - 1u] : T_ZERO;
    uvec2 pair = uvec2(0u);
    UNROLL for (uint k = 0u; k < ITEMS; k++) {
        uint i = first + k;
        x[k] = i < n ? keys[KEYS_OFF + i] : T_ZERO;
        head[k] = i < n && (i == 0u || !same(x[k], prev));
        prev = x[k];
        if (head[k])
            pair = uvec2(pair.x + 1u, i + 1u);
    }
    return pair;
}

#define FORCED (FALLBACK != 0u)

// One walk back from tile j-1 over published states, combining them, until an inclusive pair
// (done) or a tile that has published nothing (stop there); by invocation 0, without waiting.
void walk(uint j)
{
    uvec2 sum = uvec2(0u);
    bool done = false;
    for (; j > 0u; j--) {
        uvec2 v;
        uint st = FORCED ? ST_NONE : read_state(j - 1u, v);
        if (st == ST_NONE)
            break;
        sum = combine(v, sum);
        if (st == ST_INC) {
            done = true;
            break;
        }
    }
    s_lb_j = j;
    s_lb_done = done || j == 0u ? 1u : 0u;
    s_lb_sum = sum;
}

// Tile k's pair from its keys, by the whole group, for a predecessor that stayed silent; then
// its state is read again, and a value published meanwhile wins. `inclusive`: the result is
// the pair of tiles 0..k.
uvec2 recount(uint k, uint n, out bool inclusive)
{
    T x[ITEMS];
    bool head[ITEMS];
    uint first;
    uvec2 total;
    wg_scan_pair(tile_heads(k, n, x, head, first), total);
    if (gl_LocalInvocationID.x == 0u) {
        uvec2 v;
        uint st = FORCED ? ST_NONE : read_state(k, v);
        s_lb_done = st == ST_INC || k == 0u ? 1u : 0u;
        s_lb_sum = st != ST_NONE ? v : total;
    }
    SYNC();
    inclusive = s_lb_done != 0u;
    uvec2 r = s_lb_sum;
    SYNC();
    return r;
}

// The pair of tiles 0..t-1: walks (no barrier per step); at a silent tile the group polls it up
// to POLLS times (a barrier each), then counts it from its keys: a bounded wait, never a
// dependence on another group's progress. The loop is the whole group's (uniform).
uvec2 look_back(uint t, uint n)
{
    uvec2 prefix = uvec2(0u);
    uint polls = 0u;
    for (uint j = t;;) {
        if (gl_LocalInvocationID.x == 0u)
            walk(j);
        SYNC();
        uint next = s_lb_j;
        bool done = s_lb_done != 0u;
        prefix = combine(s_lb_sum, prefix);
        SYNC();
        if (done)
            break;
        polls = next < j ? 0u : polls;
        j = next;
        if (!FORCED && ++polls < POLLS)
            continue;
        polls = 0u; // tile j-1 stays silent: count it here
        bool inclusive;
        prefix = combine(recount(j - 1u, n, inclusive), prefix);
        if (inclusive)
            break;
        j -= 1u;
    }
    return prefix;
}

void stage_chained()
{
    uint lid = gl_LocalInvocationID.x, n = key_count(), tiles = (n + TILE - 1u) / TILE;
    // Tiles in the order groups start (a ticket): a predecessor has then at least started.
    if (lid == 0u)
        s_ticket = gl_NumWorkGroups.x * gl_NumWorkGroups.y > 1u ? atomicAdd(state[STATE_OFF], 1u)
                                                                : 0u;
    SYNC();
    uint t = s_ticket;
    if (t >= tiles) {
        if (t == 0u && lid == 0u)
            finish(0u, 0u); // no keys at all
        return; // the whole group
    }
    T x[ITEMS];
    bool head[ITEMS];
    uint first;
    uvec2 mine = tile_heads(t, n, x, head, first), total;
    uvec2 before = wg_scan_pair(mine, total);
    uvec2 prefix = uvec2(0u);
    if (tiles > 1u) {
        if (lid == 0u) {
            publish(t, total, t == 0u ? ST_INC : ST_AGG);
            memoryBarrierBuffer();
        }
        if (t > 0u)
            prefix = look_back(t, n);
        if (lid == 0u && t > 0u)
            publish(t, combine(prefix, total), ST_INC);
    }
    // Run r of each head, and 1 + where the run before it started (its length ends here).
    uvec2 at = combine(prefix, before);
    uint r = at.x, last = at.y;
    UNROLL for (uint k = 0u; k < ITEMS; k++) {
        if (head[k]) {
            uint i = first + k;
            write_head(r, i, x[k]);
            if (r > 0u && (OUTPUTS & RLE_OUT_LENGTHS) != 0u)
                lengths[LENGTHS_OFF + r - 1u] = i - (last - 1u);
            r++;
            last = i + 1u;
        }
    }
    if (first <= n - 1u && n - 1u < first + ITEMS) { // the last key's invocation
        if ((OUTPUTS & RLE_OUT_LENGTHS) != 0u)
            lengths[LENGTHS_OFF + r - 1u] = n - (last - 1u);
        finish(r, n);
    }
}

void main()
{
    uint i = invocation_index();
    switch (STAGE) {
    case RLE_STAGE_HEADS:
        if (i < BOUND) {
            bool head = i < key_count() &&
                        (i == 0u || !same(keys[KEYS_OFF + i], keys[KEYS_OFF + i - 1u]));
            flags[FLAGS_OFF + i] = head ? 1u : 0u;
        }
        return;
    case RLE_STAGE_SCATTER: {
        uint n = key_count();
        if (i == 0u && n == 0u)
            finish(0u, 0u);
        if (i >= n)
            return;
        uint incl = flags[FLAGS_OFF + i];
        if (i == 0u || incl != flags[FLAGS_OFF + i - 1u]) {
            write_head(incl - 1u, i, keys[KEYS_OFF + i]);
        }
        if (i == n - 1u)
            finish(incl, n);
        return;
    }
    case RLE_STAGE_LENGTHS:
        if (i < starts[RUNS_AT])
            lengths[LENGTHS_OFF + i] = starts[STARTS_OFF + i + 1u] - starts[STARTS_OFF + i];
        return;
    case RLE_STAGE_CLEAR:
        if (i < BOUND)
            state[STATE_OFF + i] = 0u;
        return;
    case RLE_STAGE_CHAINED:
        stage_chained();
        return;
    default:
        return;
    }
}
