// Part of glsl/sort.comp (after sort/radix.glsl): the one-sweep radix stages.

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
        UNROLL for (uint it = 0u; it < ITEMS; it++) // clamped, as the pass's rows (below)
            k[it] = keys_a[KEY_OFF_A + min(base + it * WG_SIZE + lid, to - 1u)];
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
    // Keys alone: every row loads, its index clamped to the tile's last key, and the rows
    // past the end are left out by `valid` below: a load under `i < end ? keys[i] : 0` is
    // a branch in SPIR-V, and NVIDIA's compilers then wait for each row's load before the
    // next's (select.comp's row_at, docs/DECISIONS.md). The pairs' program keeps the
    // tested loads and finds the digits twice: with the clamped loads and the kept
    // digits (kd, below) it sorted 6% slower on the H200's Vulkan.
    uint last = end > 0u ? end - 1u : 0u;
    KEY k[ITEMS];
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        uint i = chunk + it * sgs + lane;
        if (OS_CARRIES)
            k[it] = i < end ? keys_a[KEY_OFF_A + i] : KEY(0u);
        else
            k[it] = keys_a[KEY_OFF_A + min(i, last)];
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
    // Each key's digit, found once (a float key's order transform is a few instructions)
    // and kept a byte each for the second walk below (keys alone).
    uint kd[(ITEMS + 3u) / 4u];
    UNROLL for (uint w = 0u; w < (ITEMS + 3u) / 4u; w++)
        kd[w] = 0u;
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        bool valid = chunk + it * sgs + lane < end;
        uint d = valid ? ord_byte(key_order(k[it]), PASS) : 0u;
        if (!OS_CARRIES) // the pairs' program finds the digits again instead
            kd[it / 4u] |= d << (it % 4u * 8u);
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
        uint d = OS_CARRIES ? (valid ? ord_byte(key_order(k[it]), PASS) : 0u)
                            : kd[it / 4u] >> (it % 4u * 8u) & 0xffu;
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
        // Under a test of its rank, unlike the keys: loaded as those are, every row at once,
        // the H200's Vulkan sorted 2^24 pairs 6% slower (1015 -> 1074 us).
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
