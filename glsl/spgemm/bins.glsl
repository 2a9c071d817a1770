// Part of glsl/spgemm.comp: the fast product's counts and bins (NNZ_PRODUCTS, ROW_BINS,
// BIN_FILL) and the searches of a row's products the row stages share.

// ------------------------------------------------------------------ fast: counts and bins
// aux: a header of SPGEMM_HEADER words at 0 (bin counts, bin fill counters, 64-bit totals), then
// the regions whose offsets the driver passes.
#define BIAS 0x80000000u
#define B_ROWS params[SPGEMM_P_B_ROWS] /* NNZ_PRODUCTS */
#define APOS(I) aux[APOS_OFF + (I)]

// Adds high * 2^32 + low to the 64-bit total at aux[at] (low word first).
void add64(uint at, uint low, uint high)
{
    uint old = atomicAdd(aux[at], low);
    high += old + low < old ? 1u : 0u;
    if (high != 0u)
        atomicAdd(aux[at + 1u], high);
}

// NNZ_PRODUCTS, ROW_BINS and BIN_FILL each take ITEMS indices per invocation, WG_SIZE apart,
// and gather a work-group's counts, maxima and fill slots in s_head, a copy of the header,
// before one atomic per word and group on the header itself. Atomics on one word of global
// memory are done one after another: one per row, or even one per subgroup (65536 of them
// for 2M rows, several words each), took most of these stages' time (docs/DECISIONS.md,
// SpGEMM). With subgroups, a subgroup's rows are gathered first, a bin at a time: the
// loop runs once per distinct bin among them, once or twice on most matrices.
#define NO_BIN SPGEMM_BINS
shared uint s_head[SPGEMM_HEADER];

// This invocation's index number `it` of the stage's.
uint head_index(uint it)
{
    return (group_index() * ITEMS + it) * WG_SIZE + gl_LocalInvocationID.x;
}

void head_clear()
{
    if (gl_LocalInvocationID.x < SPGEMM_HEADER)
        s_head[gl_LocalInvocationID.x] = 0u;
    barrier();
}

// The group's words into the header: maxima by atomicMax, counts by atomicAdd, the total
// of products (gathered as the sums of its 16-bit halves, which stay below 2^32) as a
// 64-bit add; words the group left at 0 take no atomic.
void head_flush()
{
    barrier();
    uint w = gl_LocalInvocationID.x;
    if (w >= SPGEMM_HEADER || w == SPGEMM_H_PRODUCTS + 1u)
        return;
    uint v = s_head[w];
    if (w == SPGEMM_H_PRODUCTS) {
        uint high = s_head[w + 1u], sum = v + (high << 16u);
        if ((v | high) != 0u)
            add64(SPGEMM_H_PRODUCTS, sum, (high >> 16u) + (sum < v ? 1u : 0u));
    } else if (v != 0u) {
        if (w == SPGEMM_H_B_LEFT || w == SPGEMM_H_B_RIGHT ||
            (w >= SPGEMM_H_LONGEST && w < SPGEMM_H_LONGEST + SPGEMM_BINS))
            atomicMax(aux[w], v);
        else
            atomicAdd(aux[w], v);
    }
}

// Also, over B's rows, how far a row's columns reach on either side of the row's index
// (ROW_BINS bounds a row of C's span of columns with them).
// Each step's loads for all ITEMS indices first, so that they are in flight together, not
// one index's chain of dependent loads after another's.
void nnz_products()
{
    head_clear();
    uint j[ITEMS], lo[ITEMS], hi[ITEMS];
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        uint k = head_index(it);
        j[it] = k < NNZ_A ? CA(k) : 0u;
        lo[it] = k < B_ROWS ? RB(k) : 0u;
        hi[it] = k < B_ROWS ? RB(k + 1u) : 0u;
    }
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        uint k = head_index(it);
        if (k < NNZ_A)
            APOS(k) = RB(j[it] + 1u) - RB(j[it]);
        else if (k == NNZ_A)
            APOS(k) = 0u;
    }
    uint first[ITEMS], last[ITEMS]; // B row k's least and greatest column
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        first[it] = lo[it] < hi[it] ? CB(lo[it]) : 0u;
        last[it] = lo[it] < hi[it] ? CB(hi[it] - 1u) : 0u;
    }
    for (uint it = 0u; it < ITEMS; it++) {
        uint k = head_index(it);
        uint left = 0u, right = 0u; // 0: none (the bias makes -2^31 the least)
        if (lo[it] < hi[it]) {
            left = k - first[it] + BIAS;
            right = last[it] - k + BIAS;
        }
#ifdef SUBGROUPS
        left = subgroupMax(left);
        right = subgroupMax(right);
        if (!subgroupElect())
            continue;
#endif
        if (left != 0u)
            atomicMax(s_head[SPGEMM_H_B_LEFT], left);
        if (right != 0u)
            atomicMax(s_head[SPGEMM_H_B_RIGHT], right);
    }
    head_flush();
}

// Whether row r of C (nonzeros [lo, hi) of A, p products) must span fewer columns than p, so
// that ROWS_RANK's window program fits it whatever its bin's width: its columns lie within
// [first column of A's row - the most B reaches left, its last + the most B reaches right].
// The window also takes at most 32 nonzeros of A (a bit each).
bool fits_window(uint lo, uint hi, uint p)
{
    if (hi - lo > 32u)
        return false;
    // >= 0: one row's span
    uint reach = (aux[SPGEMM_H_B_LEFT] - BIAS) + (aux[SPGEMM_H_B_RIGHT] - BIAS);
    uint span_a = CA(hi - 1u) - CA(lo);
    return reach < p && span_a < p && span_a + reach < p;
}

// A row's products (the expansion's offsets are modulo 2^32; a row's own count is below it).
uint row_products(uint r) { return APOS(RA(r + 1u)) - APOS(RA(r)); }

// The bin of a row of p > 0 products: the smallest b with p <= 32 << b, or SPGEMM_LONG_BIN past
// the largest shared row (CAP param: 0 sends every row to SPGEMM_LONG_BIN).
uint bin_of(uint p, uint shared_max)
{
    if (p > shared_max)
        return SPGEMM_LONG_BIN;
    uint b = 0u;
    while ((SPGEMM_MIN_CAP << b) < p)
        b++;
    return b;
}

void row_bins()
{
    head_clear();
    // each row's products, the loads of every item in flight together (as NNZ_PRODUCTS)
    uint lo[ITEMS], hi[ITEMS], products[ITEMS];
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        uint r = head_index(it);
        lo[it] = r < ROWS ? RA(r) : 0u;
        hi[it] = r < ROWS ? RA(r + 1u) : 0u;
    }
    UNROLL for (uint it = 0u; it < ITEMS; it++)
        products[it] = APOS(hi[it]) - APOS(lo[it]); // row_products(r); 0 past the rows
    for (uint it = 0u; it < ITEMS; it++) {
        uint r = head_index(it), b = NO_BIN, p = products[it];
        bool fits = false;
        if (r < ROWS && p != 0u) {
            b = bin_of(p, CAP);
            fits = b < SPGEMM_RANK_BINS && fits_window(lo[it], hi[it], p);
        }
        // A row without products has no entries, the others are counted; word ROWS is the
        // exclusive scan's last: nnz(C).
        if (r <= ROWS)
            aux[RPTR_OFF + r] = 0u;
#ifdef SUBGROUPS
        uint low = subgroupAdd(p & 0xffffu), high = subgroupAdd(p >> 16u);
        bool todo = b != NO_BIN;
        while (subgroupAny(todo)) {
            uint first = subgroupMin(todo ? b : NO_BIN);
            bool mine = todo && b == first;
            uint rows = subgroupBallotBitCount(subgroupBallot(mine));
            uint fitting = subgroupBallotBitCount(subgroupBallot(mine && fits));
            uint longest = subgroupMax(mine ? p : 0u);
            if (subgroupElect()) {
                atomicAdd(s_head[SPGEMM_H_COUNT + first], rows);
                if (fitting != 0u) // only in bins below SPGEMM_RANK_BINS
                    atomicAdd(s_head[SPGEMM_H_WINDOW + first], fitting);
                atomicMax(s_head[SPGEMM_H_LONGEST + first], longest);
            }
            todo = todo && !mine;
        }
        if (subgroupElect()) {
            atomicAdd(s_head[SPGEMM_H_PRODUCTS], low);
            atomicAdd(s_head[SPGEMM_H_PRODUCTS + 1u], high);
        }
#else
        if (b == NO_BIN)
            continue;
        atomicAdd(s_head[SPGEMM_H_COUNT + b], 1u);
        if (fits)
            atomicAdd(s_head[SPGEMM_H_WINDOW + b], 1u);
        atomicMax(s_head[SPGEMM_H_LONGEST + b], p);
        atomicAdd(s_head[SPGEMM_H_PRODUCTS], p & 0xffffu);
        atomicAdd(s_head[SPGEMM_H_PRODUCTS + 1u], p >> 16u);
#endif
    }
    head_flush();
}

// The list: bin 0's rows, then bin 1's, ..., each a record of SPGEMM_RECORD words (the row, its
// first nonzero of A, its nonzeros of A, its products: what RA and APOS would give a row's
// stage two dependent loads later); the long rows also as (row, products) pairs at
// LIST_OFF + SPGEMM_RECORD * ROWS. A bin's rows are listed group by group, in no set order.
#define LIST_WORD(AT, W) aux[LIST_OFF + SPGEMM_RECORD * (AT) + (W)]
#define LIST_ROW(AT) LIST_WORD(AT, 0u)
#define PAIR_WORD(SLOT, W) aux[LIST_OFF + SPGEMM_RECORD * ROWS + 2u * (SLOT) + (W)]
void bin_fill()
{
    head_clear();
    uint b[ITEMS], slot[ITEMS], lo[ITEMS], hi[ITEMS], p[ITEMS];
    for (uint it = 0u; it < ITEMS; it++) {
        uint r = head_index(it);
        b[it] = NO_BIN;
        slot[it] = lo[it] = hi[it] = p[it] = 0u;
        if (r < ROWS) {
            lo[it] = RA(r);
            hi[it] = RA(r + 1u);
            p[it] = APOS(hi[it]) - APOS(lo[it]);
            if (p[it] != 0u)
                b[it] = bin_of(p[it], CAP);
        }
        // The row's slot among the group's rows of its bin.
#ifdef SUBGROUPS
        bool todo = b[it] != NO_BIN;
        while (subgroupAny(todo)) {
            uint first = subgroupMin(todo ? b[it] : NO_BIN);
            bool mine = todo && b[it] == first;
            uvec4 ballot = subgroupBallot(mine);
            uint rows = subgroupBallotBitCount(ballot), base = 0u;
            if (subgroupElect())
                base = atomicAdd(s_head[SPGEMM_H_FILL + first], rows);
            base = subgroupBroadcastFirst(base);
            if (mine)
                slot[it] = base + subgroupBallotExclusiveBitCount(ballot);
            todo = todo && !mine;
        }
#else
        if (b[it] != NO_BIN)
            slot[it] = atomicAdd(s_head[SPGEMM_H_FILL + b[it]], 1u);
#endif
    }
    barrier();
    // The group's first slot in each bin, from one atomic; each bin's first record.
    uint lid = gl_LocalInvocationID.x;
    if (lid < SPGEMM_BINS) {
        uint start = 0u;
        for (uint c = 0u; c < lid; c++)
            start += aux[SPGEMM_H_COUNT + c];
        s_head[SPGEMM_H_COUNT + lid] = start;
        if (s_head[SPGEMM_H_FILL + lid] != 0u)
            s_head[SPGEMM_H_FILL + lid] = atomicAdd(aux[SPGEMM_H_FILL + lid],
                                                    s_head[SPGEMM_H_FILL + lid]);
    }
    barrier();
    for (uint it = 0u; it < ITEMS; it++) {
        if (b[it] == NO_BIN)
            continue;
        uint in_bin = s_head[SPGEMM_H_FILL + b[it]] + slot[it],
             at = s_head[SPGEMM_H_COUNT + b[it]] + in_bin;
        LIST_WORD(at, 0u) = head_index(it);
        LIST_WORD(at, 1u) = lo[it];
        LIST_WORD(at, 2u) = hi[it] - lo[it];
        LIST_WORD(at, 3u) = p[it];
        if (b[it] == SPGEMM_LONG_BIN) {
            PAIR_WORD(in_bin, 0u) = head_index(it);
            PAIR_WORD(in_bin, 1u) = p[it];
        }
    }
}

// Product o of row r (o below its products): the nonzero k of A it comes from and the entry
// q of B, found by binary search on the expansion offsets among the row's nonzeros [lo, hi),
// which a caller that knows more may narrow (the answer must lie inside).
void find_product_in(uint r, uint o, uint lo, uint hi, out uint k, out uint q)
{
    uint base = APOS(RA(r));
#define REL(X) (APOS(X) - base)
    LAST_AT_MOST(k, lo, hi, REL, o);
    q = RB(CA(k)) + (o - REL(k));
#undef REL
}
void find_product(uint r, uint o, out uint k, out uint q)
{
    find_product_in(r, o, RA(r), RA(r + 1u), k, q);
}

// Where row r's entries go in the numeric phases: at C's row pointer, or at the row's first
// product in the one phase's temporary (a row has no more entries than products).
uint entries_at(uint r) { return NUMERIC == SPGEMM_ONE_PHASE ? APOS(RA(r)) : aux[RPTR_OFF + r]; }
