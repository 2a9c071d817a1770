// Part of glsl/sort.comp: the bitonic network: STEP, STEPS, LOCAL_SORT and LOCAL_MERGE.

// --------------------------------------------------------- bitonic network

// The pair p of a step of block h (a power of two, log2 of dist in lh2):
// i in the first dist, j its partner (mirrored when reverse).
uvec2 pair_of(uint p, uint h, uint lh2, bool reverse)
{
    uint b = p >> lh2, l = p & ((h >> 1) - 1u);
    uint i = b * h + l;
    return uvec2(i, reverse ? b * h + h - 1u - l : i + (h >> 1));
}

void stage_step()
{
    uvec2 ij = pair_of(invocation_index(), H, uint(findMSB(H >> 1)), REVERSE != 0u);
    if (ij.y >= N)
        return; // the partner is past the end: +inf, no exchange
    uint i = KEY_OFF_A + ij.x, j = KEY_OFF_A + ij.y;
    KEY ki = keys_a[i], kj = keys_a[j];
    bool payload = flag(SORT_FLAG_PAYLOAD);
    uint pi = payload ? pay_a[PAY_OFF_A + ij.x] : 0u;
    uint pj = payload ? pay_a[PAY_OFF_A + ij.y] : 0u;
    if (after(ki, pi, kj, pj)) {
        keys_a[i] = kj;
        keys_a[j] = ki;
        if (payload) {
            pay_a[PAY_OFF_A + ij.x] = pj;
            pay_a[PAY_OFF_A + ij.y] = pi;
        }
    }
}

// Steps of blocks H, H/2, ..., H/2^(COUNT-1) fused, plain ones, or with
// STEPS_REVERSE the first the reverse step of block H (the rest plain): the
// elements they pair form groups of 2^COUNT, and each invocation takes one
// group through all of them in registers: the same compare-exchanges as
// COUNT STEP dispatches, with one read and one write of the data. With
// span = H/2^COUNT, the group of x (x < span) in a block is x + j * span
// (j < 2^COUNT), closed under plain steps of distances span .. H/2. The
// reverse step pairs x + j * span of the block's first half with its mirror,
// (span - 1 - x) + (2^COUNT - 1 - j) * span, so with it the group's upper
// half is that mirror residue's (both halves ascending in j, the whole
// group too, so the elements below N are the first cnt).
// Every index into k and pv is a constant of the unrolled loops (the steps'
// distances run over 8, 4, 2, 1, skipping those the call does not take; the
// reverse pairs are unrolled for each COUNT): an index known only at run
// time would put both arrays in memory.
// REGISTER_STAGES (SORT_SHAPE_REGISTER_STAGES, bitonic.c's register_stages): STEPS
// may take the reverse step, LOCAL_MERGE runs in registers; without, the code of
// both is the shared-memory form, which NVIDIA's GL compiler runs faster.
// STEPS runs only in the family's program; ONESWEEP's own program holds its
// code unused, and there the word holds ONESWEEP's fields: that code follows
// SORT_SHAPE_BALLOT32, which keeps it the form it had when the program was
// measured (docs/DECISIONS.md).
#define REGISTER_STAGES (ONLY_STAGE == SORT_STAGE_ONESWEEP ? SORT_SHAPE_BALLOT32 != 0u \
                                                         : SORT_SHAPE_REGISTER_STAGES != 0u)
#define MAX_FUSED_LOG2 SORT_MAX_FUSED_LOG2
#define MAX_FUSED (1u << MAX_FUSED_LOG2)
// Registers k[A], pv[A] and k[B], pv[B] (A below B) in order (STEPS, LOCAL_MERGE).
#define EXCHANGE_IN_REGISTERS(A, B)                                                           \
    if (after(k[A], pv[A], k[B], pv[B])) {                                                    \
        KEY tk = k[A];                                                                        \
        k[A] = k[B];                                                                          \
        k[B] = tk;                                                                            \
        uint tp = pv[A];                                                                      \
        pv[A] = pv[B];                                                                        \
        pv[B] = tp;                                                                           \
    }
// Element J's index (of the invocation's block, x and mirror below).
#define STEPS_AT(J) (block + ((J) >= upper ? mirror : x) + (J) * span)
void stage_steps()
{
    uint m = COUNT, span = H >> m, t = invocation_index();
    bool reverse = REGISTER_STAGES && STEPS_REVERSE != 0u;
    uint block = (t / span) * H, x = t % span;
    uint upper = 1u << (m - 1u); // the group's upper half: j >= upper
    uint mirror = reverse ? span - 1u - x : x; // the residue of the upper half
    if (block + x >= N)
        return;
    bool payload = flag(SORT_FLAG_PAYLOAD);
    uint cnt = min(1u << m, (N - block - x + span - 1u) / span); // the group's elements below N
    if (reverse) {
        cnt = 0u;
        UNROLL for (uint j = 0u; j < MAX_FUSED; j++)
            if (j < (1u << m) && STEPS_AT(j) < N)
                cnt = j + 1u;
    }
    KEY k[MAX_FUSED];
    uint pv[MAX_FUSED];
    UNROLL for (uint j = 0u; j < MAX_FUSED; j++) {
        if (j < cnt) {
            k[j] = keys_a[KEY_OFF_A + STEPS_AT(j)];
            pv[j] = payload ? pay_a[PAY_OFF_A + STEPS_AT(j)] : 0u;
        }
    }
    if (reverse) {
        // Bounds that are constants, as everywhere here: with one that
        // depended on c every STEPS dispatch ran slower on an H200 (94 ->
        // 167 us a plain one), as arrays in memory would.
        UNROLL for (uint c = 1u; c <= MAX_FUSED_LOG2; c++) {
            UNROLL for (uint j = 0u; j < MAX_FUSED / 2u; j++) {
                if (c != m || j >= (1u << (c - 1u)) || (1u << c) - 1u - j >= cnt)
                    continue; // not this COUNT's pair, or past the end: +inf, no exchange
                EXCHANGE_IN_REGISTERS(j, (1u << c) - 1u - j)
            }
        }
    }
    UNROLL for (uint e = MAX_FUSED_LOG2; e-- > 0u;) {
        uint dist = 1u << e;
        if (dist >= (1u << m) || (reverse && dist == upper))
            continue; // not one of this call's plain steps
        UNROLL for (uint j = 0u; j < MAX_FUSED; j++) {
            if ((j & dist) != 0u || j + dist >= cnt)
                continue; // the partner is past the end: +inf, no exchange
            EXCHANGE_IN_REGISTERS(j, j + dist)
        }
    }
    UNROLL for (uint j = 0u; j < MAX_FUSED; j++) {
        if (j < cnt) {
            keys_a[KEY_OFF_A + STEPS_AT(j)] = k[j];
            if (payload)
                pay_a[PAY_OFF_A + STEPS_AT(j)] = pv[j];
        }
    }
}

#define S_PAY (BTILE * KEY_WORDS)
#if defined(TYPE_F64)
KEY s_key(uint i) { return uvec2(s_mem[2u * i], s_mem[2u * i + 1u]); }
void s_key_set(uint i, KEY k) { s_mem[2u * i] = k.x; s_mem[2u * i + 1u] = k.y; }
#else
KEY s_key(uint i) { return s_mem[i]; }
void s_key_set(uint i, KEY k) { s_mem[i] = k; }
#endif

void tile_load(uint base)
{
    for (uint k = gl_LocalInvocationID.x; k < BTILE && base + k < N; k += WG_SIZE) {
        s_key_set(k, keys_a[KEY_OFF_A + base + k]);
        if (flag(SORT_FLAG_PAYLOAD))
            s_mem[S_PAY + k] = pay_a[PAY_OFF_A + base + k];
    }
    SYNC();
}

void tile_store(uint base)
{
    for (uint k = gl_LocalInvocationID.x; k < BTILE && base + k < N; k += WG_SIZE) {
        keys_a[KEY_OFF_A + base + k] = s_key(k);
        if (flag(SORT_FLAG_PAYLOAD))
            pay_a[PAY_OFF_A + base + k] = s_mem[S_PAY + k];
    }
}

// One network step of block h on the tile that starts at element `base`.
void tile_step(uint base, uint h, bool reverse)
{
    uint lh2 = uint(findMSB(h >> 1));
    bool payload = flag(SORT_FLAG_PAYLOAD);
    for (uint p = gl_LocalInvocationID.x; p < BTILE / 2u; p += WG_SIZE) {
        uvec2 ij = pair_of(p, h, lh2, reverse);
        if (base + ij.y >= N)
            continue;
        KEY ki = s_key(ij.x), kj = s_key(ij.y);
        uint pi = payload ? s_mem[S_PAY + ij.x] : 0u;
        uint pj = payload ? s_mem[S_PAY + ij.y] : 0u;
        if (after(ki, pi, kj, pj)) {
            s_key_set(ij.x, kj);
            s_key_set(ij.y, ki);
            if (payload) {
                s_mem[S_PAY + ij.x] = pj;
                s_mem[S_PAY + ij.y] = pi;
            }
        }
    }
    SYNC();
}

// The padded length nn = 2^ceil(log2 N) (N >= 2 here).
uint padded_length() { return 1u << (uint(findMSB(N - 1u)) + 1u); }

void stage_local_sort()
{
    uint base = group_index() * BTILE;
    tile_load(base);
    uint top = min(BTILE, padded_length());
    for (uint h = 2u; h <= top; h <<= 1) {
        tile_step(base, h, true);
        for (uint k = h >> 1; k >= 2u; k >>= 1)
            tile_step(base, k, false);
    }
    tile_store(base);
}

// LOCAL_MERGE: the plain steps of blocks BTILE .. 2, i.e. of the index bits
// 10 down to 0. With REGISTER_STAGES in registers (else by tile_step): each
// invocation holds 8 of the tile's 2048 elements, first those of index
// x + 256 j (j < 8: bits 8-10 its own, so the steps of bits 10, 9, 8 pair
// its own registers), then, through shared memory, those whose bits 5-7,
// then 2-4, then 0-2 are j, the rest of the index from x (the layouts
// below). Four exchanges (seven barriers) in place of eleven steps each
// through shared memory and a barrier. Each exchange
// writes and reads s_mem through a swizzle of the index that keeps 32
// consecutive invocations on 32 banks in both its layouts, with no room
// added. Needs WG_SIZE * MERGE_ITEMS == BTILE (sort.h: BITONIC_WG x BITONIC_ITEMS).
#define MERGE_ITEMS SORT_BITONIC_ITEMS
// The index of element j of invocation x in layout L: bits of j, of x's
// low five bits (lane) and of x's high three (w):
//   0: j at 8-10, lane at 0-4, w at 5-7 (x + 256 j, the tile in order)
//   1: j at 5-7,  lane at 0-4, w at 8-10
//   2: j at 2-4,  lane's 0-1 at 0-1 and its 2-4 at 5-7, w at 8-10
//   3: j at 0-2,  lane at 3-7, w at 8-10
uint merge_index(uint form, uint x, uint j)
{
    uint lane = x & 31u, w = x >> 5;
    switch (form) {
    case 0u: return x + (j << 8);
    case 1u: return lane | (j << 5) | (w << 8);
    case 2u: return (lane & 3u) | (j << 2) | ((lane >> 2) << 5) | (w << 8);
    default: return j | (lane << 3) | (w << 8);
    }
}
// The shared word of index i in the exchange from layout L to the next (to
// layout 0 after 3): a bijection whose low five bits take five index bits
// that both layouts give to their lanes, each xor-ed with bits a layout
// fixes per j, so that both sides hit 32 banks (f64 keys take two words:
// two lanes a bank, as anywhere).
uint merge_slot(uint form, uint i)
{
    switch (form) {
    case 0u: return i;                             // 0 -> 1: lanes at bits 0-4 in both
    case 1u: return i ^ (((i >> 5) & 7u) << 2);    // 1 -> 2: bits 2-4 xor 5-7
    case 2u:                                       // 2 -> 3: bits (0^3, 1^4, 5, 6, 7, 2, 3, 4)
        return (i & ~0xffu) | ((i ^ (i >> 3)) & 3u) | (((i >> 5) & 7u) << 2) |
               (((i >> 2) & 7u) << 5);
    default: return i ^ ((i >> 5) & 7u);           // 3 -> 0: bits 0-2 xor 5-7
    }
}
// One layout's steps: of its j-bits e (highest first, layout 3 from bit 1),
// pairs j and j + 2^e whose partner is below len.
void merge_steps(uint form, uint x, uint len, inout KEY k[MERGE_ITEMS], inout uint pv[MERGE_ITEMS])
{
    UNROLL for (uint e = 3u; e-- > 0u;) {
        uint dist = 1u << e;
        if (form == 3u && e == 2u)
            continue; // bit 2, done in layout 2
        UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
            if ((j & dist) != 0u || merge_index(form, x, j + dist) >= len)
                continue; // the partner is past the end: +inf, no exchange
            EXCHANGE_IN_REGISTERS(j, j + dist)
        }
    }
}
// From layout `form` to the next (after 3, to 0): written, then read back.
void merge_exchange(uint form, uint x, bool payload, inout KEY k[MERGE_ITEMS],
                    inout uint pv[MERGE_ITEMS])
{
    uint next = (form + 1u) & 3u;
    UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
        uint a = merge_slot(form, merge_index(form, x, j));
        s_key_set(a, k[j]);
        if (payload)
            s_mem[S_PAY + a] = pv[j];
    }
    SYNC();
    UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
        uint a = merge_slot(form, merge_index(next, x, j));
        k[j] = s_key(a);
        pv[j] = payload ? s_mem[S_PAY + a] : 0u;
    }
}
// The four layouts written out, not a loop over them: with the layout a loop
// variable NVIDIA's GL compiler took 3.4x the shared-memory steps' time on an
// H200, written out still 1.7x (GL keeps those); Vulkan's 0.75x either way.
void stage_local_merge()
{
    // A group past the last tile (a dispatch spread over y rounds the groups
    // up) has nothing to merge; uniform, so before any barrier.
    uint base = group_index() * BTILE;
    if (base >= N)
        return;
    if (!REGISTER_STAGES) { // the steps through shared memory
        tile_load(base);
        for (uint k = BTILE; k >= 2u; k >>= 1)
            tile_step(base, k, false);
        tile_store(base);
        return;
    }
    uint x = gl_LocalInvocationID.x;
    uint len = min(BTILE, N - base); // elements of this tile below N
    bool payload = flag(SORT_FLAG_PAYLOAD);
    KEY k[MERGE_ITEMS];
    uint pv[MERGE_ITEMS];
    UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
        uint i = merge_index(0u, x, j);
        k[j] = i < len ? keys_a[KEY_OFF_A + base + i] : KEY(0u);
        pv[j] = i < len && payload ? pay_a[PAY_OFF_A + base + i] : 0u;
    }
    merge_steps(0u, x, len, k, pv);
    merge_exchange(0u, x, payload, k, pv);
    merge_steps(1u, x, len, k, pv);
    SYNC(); // the exchange before is read
    merge_exchange(1u, x, payload, k, pv);
    merge_steps(2u, x, len, k, pv);
    SYNC();
    merge_exchange(2u, x, payload, k, pv);
    merge_steps(3u, x, len, k, pv);
    SYNC();
    merge_exchange(3u, x, payload, k, pv);
    UNROLL for (uint j = 0u; j < MERGE_ITEMS; j++) {
        uint i = merge_index(0u, x, j);
        if (i < len) {
            keys_a[KEY_OFF_A + base + i] = k[j];
            if (payload)
                pay_a[PAY_OFF_A + base + i] = pv[j];
        }
    }
}
