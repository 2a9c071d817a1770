// Part of glsl/sort.comp: ranking a radix tile (SCATTER, ONESWEEP, SMALL), HIST, SCATTER.

// ------------------------------------------------------------------ radix

// Regions of s_mem in the radix stages (words):
//   S_CNT    the subgroups' digit counters, two 16-bit halves a word
//            (subgroups 2s and 2s + 1: a count or offset never passes a
//            tile, at most 8192 keys); HIST, whose counts span many tiles,
//            keeps a whole word per counter instead. Once a tile's slots
//            are known the counters are dead, and the region holds
//            SCATTER's digit bytes of the staged slots (segment passes).
//   S_TOT    the tile's digit totals; SCATTER and ONESWEEP, once the
//            starts are known, where the tile's run of each digit goes,
//            less its start
//   S_START  their exclusive scan: where each digit's run starts in the tile
//   S_DIG    digit_starts' subgroup sums, ONESWEEP's ticket, range and stuck tile;
//            without subgroups the emulated ballot's digit of each invocation
//   S_STAGE  the tile's keys or payloads in digit order; ONESWEEP's
//            look-back state first, and then its tile a part at a time
// So a tile of 256 x 8 u32 keys takes 14.1 KB: three groups to a
// multiprocessor on an H100 where the earlier 22.5 KB allowed two; a
// one-sweep tile of 256 x 16 keys takes as much.
#define S_CNT   0u
#define S_TOT   (S_CNT + S_CNT_WORDS)
#define S_START (S_TOT + DIGITS)
#define S_DIG   (S_START + DIGITS)
#define S_STAGE (S_DIG + S_DIG_WORDS)
#define S_DGT   S_CNT

// Subgroup s's counter of digit d: the half of a word, read and added to.
uint cnt_word(uint s, uint d) { return S_CNT + (s >> 1) * DIGITS + d; }
uint cnt_shift(uint s) { return (s & 1u) * 16u; }
uint cnt_get(uint s, uint d) { return (s_mem[cnt_word(s, d)] >> cnt_shift(s)) & 0xffffu; }
uint cnt_add(uint s, uint d, uint v)
{
    return (atomicAdd(s_mem[cnt_word(s, d)], v << cnt_shift(s)) >> cnt_shift(s)) & 0xffffu;
}
void cnt_clear()
{
    for (uint w = gl_LocalInvocationID.x; w < S_CNT_WORDS; w += WG_SIZE)
        s_mem[S_CNT + w] = 0u;
}

uint payload_of(uint i)
{
    return flag(SORT_PAYLOAD_IS_INDEX) ? IOTA_BASE + i : pay_a[PAY_OFF_A + i];
}

uint digit_in(KEY k, uint payload, uint pass)
{
    if (pass < KEY_PASSES)
        return ord_byte(key_order(k), pass);
    return (segment_of(payload) >> ((pass - KEY_PASSES) * 8u)) & 0xffu;
}
uint digit_of(KEY k, uint payload) { return digit_in(k, payload, PASS); }

bool pass_needs_payload() { return PASS >= KEY_PASSES; }

// Ranking inside a tile is done by "subgroups" of SGS invocations that each
// own a contiguous chunk of the tile: real subgroups where the device has
// ballots, else virtual ones of WG_SIZE / MAX_SG invocations whose ballots
// go through shared memory. Either way an element's rank among the equal
// digits of its chunk counts only lanes before it, so the scatter is stable.
#ifdef SUBGROUPS
uint sg_id() { return gl_SubgroupID; }
uint sg_lane() { return gl_SubgroupInvocationID; }
uint sg_size() { return gl_SubgroupSize; }
uint sg_count() { return gl_NumSubgroups; }

// The valid lanes of this subgroup holding digit d (a lane that is not valid
// gets a set that holds no valid lane, or is empty). Every lane calls it.
// SORT_SHAPE_BALLOT32 (ONESWEEP's): the subgroup has at most 32 lanes, so
// a ballot's first word holds it all and the match takes 32-bit operations.
// Written twice on purpose: one uvec4 form, with the other words masked off
// by the constant BALLOT32 or left unread, measured 1% slower at 2^24-2^28
// on an H100, where the 32-bit form gains 0.2-1%.
#define BALLOT32 (ONLY_STAGE == SORT_STAGE_ONESWEEP && SORT_SHAPE_BALLOT32 != 0u)
uint match_digit32(uint d, bool valid)
{
    uint m = subgroupBallot(valid).x;
    for (uint b = 0u; b < 8u; b++) {
        bool bit = ((d >> b) & 1u) != 0u;
        uint v = subgroupBallot(bit).x;
        m &= bit ? v : ~v;
    }
    return m;
}
uvec4 match_digit(uint d, bool valid)
{
    // Eight ballots: NV_shader_subgroup_partitioned's one-instruction match
    // was slower on an H100 (docs/DECISIONS.md).
    uvec4 m = subgroupBallot(valid);
    for (uint b = 0u; b < 8u; b++) {
        bool bit = ((d >> b) & 1u) != 0u;
        uvec4 v = subgroupBallot(bit);
        m &= bit ? v : ~v;
    }
    return m;
}

// The rank of this lane's element (digit d) among the elements of digit d
// that its subgroup has ranked so far, counting the valid lanes before it
// in this call; every lane of the subgroup calls it, and the subgroup's
// counter of d grows by their number: the last of them adds it and passes
// the count before to the others. The barrier orders this call's additions
// before the next call's, whichever lanes make them.
uint rank_in_subgroup(uint d, bool valid)
{
    uint lane = gl_SubgroupInvocationID;
    if (BALLOT32) {
        uint m = match_digit32(d, valid);
        uint last = valid ? uint(findMSB(m)) : lane;
        uint seen = 0u;
        if (valid && lane == last)
            seen = cnt_add(gl_SubgroupID, d, uint(bitCount(m)));
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        return subgroupShuffle(seen, last) + uint(bitCount(m & gl_SubgroupLtMask.x));
    }
    uvec4 m = match_digit(d, valid);
    uint last = valid ? subgroupBallotFindMSB(m) : lane;
    uint seen = 0u;
    if (valid && lane == last)
        seen = cnt_add(gl_SubgroupID, d, subgroupBallotBitCount(m));
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    return subgroupShuffle(seen, last) + subgroupBallotExclusiveBitCount(m);
}
#else
#define VSG (WG_SIZE / MAX_SG)
uint sg_id() { return gl_LocalInvocationID.x / VSG; }
uint sg_lane() { return gl_LocalInvocationID.x % VSG; }
uint sg_size() { return VSG; }
uint sg_count() { return MAX_SG; }

// As above, with the match through shared memory; every invocation of the
// work-group must call it (it holds barriers).
uint rank_in_subgroup(uint d, bool valid)
{
    uint lid = gl_LocalInvocationID.x;
    s_mem[S_DIG + lid] = valid ? d : 0xffffffffu;
    SYNC();
    uint first = sg_id() * VSG, lane = sg_lane();
    uint before = 0u, count = 0u;
    bool last = valid;
    // A bound the compiler cannot fold (it is VSG): with VSG itself llvmpipe
    // unrolls this loop inside the tile's unrolled loop over its keys, and
    // LLVM took 34 s to build a one-sweep tile of 32 keys an invocation,
    // 4 s with this bound, whose runs are 25% slower (docs/TESTING.md).
    // Devices with subgroups never take this path.
    uint bound = min(VSG, N | VSG);
    for (uint q = 0u; q < bound; q++) {
        if (valid && s_mem[S_DIG + first + q] == d) {
            count++;
            before += q < lane ? 1u : 0u;
            last = last && q <= lane;
        }
    }
    uint seen = valid ? cnt_get(sg_id(), d) : 0u;
    SYNC();
    if (last)
        cnt_add(sg_id(), d, count); // the other half of the word is another's
    SYNC();
    return seen + before;
}
#endif

// Each subgroup's counters become its offset among the tile's elements of
// each digit (an exclusive scan over subgroups), S_TOT the tile's totals.
void tile_totals()
{
    for (uint d = gl_LocalInvocationID.x; d < DIGITS; d += WG_SIZE) {
        uint run = 0u;
        // A pair of subgroups a word (the half of a missing one holds 0).
        for (uint s = 0u; s < sg_count(); s += 2u) {
            uint w = s_mem[cnt_word(s, d)];
            uint lo = w & 0xffffu, hi = w >> 16;
            s_mem[cnt_word(s, d)] = run | ((run + lo) << 16);
            run += lo + hi;
        }
        s_mem[S_TOT + d] = run;
    }
}

#define TILE (WG_SIZE * ITEMS)

// Counts into one histogram per subgroup (S_CNT), so that equal digits
// contend only within a subgroup, with ITEMS loads in flight per invocation.
void stage_hist()
{
    uint g = group_index(), lid = gl_LocalInvocationID.x;
    for (uint w = lid; w < MAX_SG * DIGITS; w += WG_SIZE)
        s_mem[S_CNT + w] = 0u;
    SYNC();
    uint begin = g * TILES_PER_GROUP * TILE;
    uint end = min(N, begin + TILES_PER_GROUP * TILE);
    bool need_payload = pass_needs_payload();
    uint counters = S_CNT + (lid % MAX_SG) * DIGITS;
    for (uint tile = begin; tile < end; tile += TILE) {
        KEY k[ITEMS];
        uint pv[ITEMS];
        for (uint it = 0u; it < ITEMS; it++) {
            uint i = tile + it * WG_SIZE + lid;
            k[it] = i < end ? keys_a[KEY_OFF_A + i] : KEY(0u);
            pv[it] = i < end && need_payload ? payload_of(i) : 0u;
        }
        for (uint it = 0u; it < ITEMS; it++)
            if (tile + it * WG_SIZE + lid < end)
                atomicAdd(s_mem[counters + digit_of(k[it], pv[it])], 1u);
    }
    SYNC();
    for (uint d = lid; d < DIGITS; d += WG_SIZE) {
        uint sum = 0u;
        for (uint s = 0u; s < MAX_SG; s++)
            sum += s_mem[S_CNT + s * DIGITS + d];
        aux[AUX_OFF + d * GROUPS + g] = sum;
    }
}

// S_START = the exclusive prefix sums of S_TOT: where each digit's run
// starts in the tile. 32 invocations sum 8 digits each, then scan the 32
// sums (Hillis-Steele, in S_DIG, free here).
void digit_starts()
{
    uint lid = gl_LocalInvocationID.x;
#ifdef SUBGROUPS
    // One digit per invocation of the first DIGITS (whole subgroups): a
    // subgroup scan and the sums of the subgroups before, two barriers
    // instead of a dozen. In SMALL's wider groups too: on an H100 a sort of
    // 2^12 keys 7% faster on GL, 6% on Vulkan; GL's one-sweep tile (768
    // invocations) keeps the dozen, with which its f32 keys ran 7% faster
    // (docs/DECISIONS.md). S_DIG holds 32 subgroup sums: a wide group of
    // 4-lane subgroups (lavapipe on 128-bit vectors; no plan makes one
    // today, knobs could) takes the path below.
    if ((WG_SIZE == DIGITS || (ONLY_STAGE == SORT_STAGE_SMALL && WG_SIZE > DIGITS)) &&
        gl_SubgroupSize * S_DIG_WORDS >= DIGITS) {
        uint t = 0u, x = 0u;
        if (lid < DIGITS) {
            t = s_mem[S_TOT + lid];
            x = subgroupExclusiveAdd(t);
            if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u)
                s_mem[S_DIG + gl_SubgroupID] = x + t;
        }
        SYNC();
        if (lid < DIGITS) {
            for (uint s = 0u; s < gl_SubgroupID; s++)
                x += s_mem[S_DIG + s];
            s_mem[S_START + lid] = x;
        }
        SYNC();
        return;
    }
#endif
    uint sum = 0u;
    if (lid < 32u) {
        for (uint k = 0u; k < 8u; k++)
            sum += s_mem[S_TOT + lid * 8u + k];
        s_mem[S_DIG + lid] = sum;
    }
    SYNC();
    for (uint step = 1u; step < 32u; step <<= 1) {
        uint v = lid < 32u && lid >= step ? s_mem[S_DIG + lid - step] : 0u;
        SYNC();
        if (lid < 32u)
            s_mem[S_DIG + lid] += v;
        SYNC();
    }
    if (lid < 32u) {
        uint run = s_mem[S_DIG + lid] - sum;
        for (uint k = 0u; k < 8u; k++) {
            uint d = lid * 8u + k;
            uint t = s_mem[S_TOT + d];
            s_mem[S_START + d] = run;
            run += t;
        }
    }
    SYNC();
}

// The digit of the element staged at tile slot q (bytes packed in S_DGT).
uint staged_digit(uint q) { return (s_mem[S_DGT + (q >> 2)] >> ((q & 3u) * 8u)) & 0xffu; }

#if defined(TYPE_F64)
void stage_key(uint q, KEY k) { s_mem[S_STAGE + 2u * q] = k.x; s_mem[S_STAGE + 2u * q + 1u] = k.y; }
KEY staged_key(uint q) { return uvec2(s_mem[S_STAGE + 2u * q], s_mem[S_STAGE + 2u * q + 1u]); }
#else
void stage_key(uint q, KEY k) { s_mem[S_STAGE + q] = k; }
KEY staged_key(uint q) { return s_mem[S_STAGE + q]; }
#endif

// The last step of SCATTER and ONESWEEP, slot by slot: the element of tile
// slot q, staged at q - first, goes to where its digit's run of the tile goes
// (s_mem[runs + d], less the run's start in the tile) plus q. The key's
// writer returns the digit (a segment pass's from S_DGT: the staged key does
// not tell it), which the payload's writer gets back once the payloads are
// staged over the keys.
uint write_staged_key(uint runs, uint q, uint first, bool segment_pass)
{
    KEY kq = staged_key(q - first);
    uint d = segment_pass ? staged_digit(q) : ord_byte(key_order(kq), PASS);
    keys_b[KEY_OFF_B + s_mem[runs + d] + q] = kq;
    return d;
}
void write_staged_payload(uint runs, uint q, uint first, uint d)
{
    pay_b[PAY_OFF_B + s_mem[runs + d] + q] = s_mem[S_STAGE + q - first];
}

// Ranks every element of the tile among the equal digits before it (by
// subgroup chunks, see match_digit), then writes keys and payloads through
// shared memory in digit order, so that each digit's run of the tile is
// written by consecutive invocations to consecutive addresses.
#define DIGITS_PER_INV ((DIGITS + WG_SIZE - 1u) / WG_SIZE)
#define S_SCATTER_OUT S_TOT
void stage_scatter()
{
    uint g = group_index(), lid = gl_LocalInvocationID.x;
    uint sg = sg_id(), lane = sg_lane(), sgs = sg_size();
    // The group's running base of digit lid + j * WG_SIZE, in registers.
    uint base[DIGITS_PER_INV];
    UNROLL for (uint j = 0u; j < DIGITS_PER_INV; j++) {
        uint d = lid + j * WG_SIZE;
        base[j] = d < DIGITS ? aux[AUX_OFF + d * GROUPS + g] : 0u;
    }
    cnt_clear();
    SYNC();
    uint begin = g * TILES_PER_GROUP * TILE;
    uint end = min(N, begin + TILES_PER_GROUP * TILE);
    bool payload = flag(SORT_FLAG_PAYLOAD) || flag(SORT_PAYLOAD_IS_INDEX);
    bool segment_pass = pass_needs_payload();
    bool need_payload = payload || segment_pass;
    for (uint tile = begin; tile < end; tile += TILE) {
        uint chunk = tile + sg * sgs * ITEMS;
        KEY k[ITEMS];
        uint pv[ITEMS], dg[ITEMS], slot[ITEMS];
        // Every load first, so that they are in flight together.
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint i = chunk + it * sgs + lane;
            k[it] = i < end ? keys_a[KEY_OFF_A + i] : KEY(0u);
            pv[it] = i < end && need_payload ? payload_of(i) : 0u;
        }
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            bool valid = chunk + it * sgs + lane < end;
            uint d = valid ? digit_of(k[it], pv[it]) : 0u;
            dg[it] = valid ? d : DIGITS;
            slot[it] = rank_in_subgroup(d, valid);
        }
        SYNC();
        tile_totals();
        SYNC();
        digit_starts();
        UNROLL for (uint it = 0u; it < ITEMS; it++)
            if (dg[it] != DIGITS)
                slot[it] += s_mem[S_START + dg[it]] + cnt_get(sg, dg[it]);
        // The totals are read for the last time: where each digit's run of
        // the tile goes, less its start, takes their place.
        UNROLL for (uint j = 0u; j < DIGITS_PER_INV; j++) {
            uint d = lid + j * WG_SIZE;
            if (d < DIGITS) {
                uint total = s_mem[S_TOT + d];
                s_mem[S_SCATTER_OUT + d] = base[j] - s_mem[S_START + d];
                base[j] += total;
            }
        }
        if (segment_pass) {
            // A segment digit comes from the segment of the payload, which the
            // staged key does not tell: keep it a byte per slot in the
            // counters' region, dead now.
            SYNC();
            for (uint w = lid; w < S_RTILE / 4u; w += WG_SIZE)
                s_mem[S_DGT + w] = 0u;
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++)
                if (dg[it] != DIGITS)
                    atomicOr(s_mem[S_DGT + (slot[it] >> 2)], dg[it] << ((slot[it] & 3u) * 8u));
        }
        UNROLL for (uint it = 0u; it < ITEMS; it++)
            if (dg[it] != DIGITS)
                stage_key(slot[it], k[it]);
        SYNC();
        uint count = min(TILE, end - tile);
        uint digits[(ITEMS + 3u) / 4u]; // the digit of slot it * WG_SIZE + lid, a byte each
        UNROLL for (uint w = 0u; w < (ITEMS + 3u) / 4u; w++)
            digits[w] = 0u;
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint q = it * WG_SIZE + lid;
            if (q < count)
                digits[it / 4u] |= write_staged_key(S_SCATTER_OUT, q, 0u, segment_pass) << (it % 4u * 8u);
        }
        if (payload) {
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++)
                if (dg[it] != DIGITS)
                    s_mem[S_STAGE + slot[it]] = pv[it];
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++) {
                uint q = it * WG_SIZE + lid;
                if (q < count)
                    write_staged_payload(S_SCATTER_OUT, q, 0u, digits[it / 4u] >> (it % 4u * 8u) & 0xffu);
            }
        }
        SYNC();
        cnt_clear();
        SYNC();
    }
}
