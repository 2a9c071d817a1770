// spgemm.comp: sparse x sparse products C = A * B (CSR), and the transpose.
// variants: TYPE=F32,F64
// ids:
//
// Stages (STAGE = params[0]); src/algo/spgemm.h says exactly what each does.
//  1..13  Kiciak's classic product, one stage (or one step of one) per dispatch
//  14 NNZ_PRODUCTS  apos[k] = |B row col_A[k]| (then an exclusive scan: each nonzero's first
//                   product within the whole expansion, modulo 2^32)
//  15 ROW_BINS      per row: its products, its bin (by products), bin counts, total products
//  16 BIN_FILL      the rows' records listed bin by bin; the long rows with their products
//  17 ROWS          the rows of one bin, TILE / CAP rows per work-group, each row's products
//                   sorted by column in shared memory: counted (symbolic) or summed into C
//  18 ESC_EXPAND    a chunk of long rows expanded into (column, value) in global memory
//  19 ESC_FLAGS     after the sort (rows, then columns): 1 where a run of one column starts
//  20 ESC_COUNT     per long row: its entries of C (symbolic)
//  21 ESC_WRITE     per run: C's column and the run's sum (numeric)
//  22 ZERO_FLAGS, 23 ZERO_PTRS, 24 ZERO_COMPACT: C without its exact zeros
//  25 ROW_OF        per entry of a CSR: its row (the transpose)
//  26 TRANSPOSE     A^T's columns and values through the sorted permutation
//  27 COL_PTRS      A^T's row pointers by binary search in the sorted columns
//  28 ROWS_RANK     ROWS for short rows: WG_SIZE / ROW_W rows per work-group, each product
//                   ranked among its row's others: counted or summed into C
//  29 ROWS_COMPACT  one phase: each shared row's entries from the temporary into C
//  30 ESC_NZ        per chunk row: its nonzeros of A (then scanned: ESC_EXPAND's walk)
//
// Bindings: matrices' index arrays (row pointers and columns) are u32, values T.
layout(std430, binding = 0) buffer IA { uint ia[]; };  // A's ints (classic 8, 13: C's)
layout(std430, binding = 1) buffer VA { T va[]; };     // A's values (classic 12: C's)
layout(std430, binding = 2) buffer IB { uint ib[]; };  // B's ints
layout(std430, binding = 3) buffer VB { T vb[]; };     // B's values
layout(std430, binding = 4) buffer Aux { uint aux[]; };// work words
layout(std430, binding = 5) buffer WV { T wv[]; };     // work values (products)
layout(std430, binding = 6) buffer UX { uint ux[]; };  // second work words (pairs, keys)
layout(std430, binding = 7) buffer CV { T cv[]; };     // C's values (fast stages)
layout(std430, binding = 7) buffer NZ { uint nz[]; };  // ESC_NZ, ESC_EXPAND: rows' nonzeros

#define ROWS   params[1]
#define NNZ_A  params[2]
#define A_PTR  params[3]
#define A_IDX  params[4]
#define A_VAL  params[5]
#define B_PTR  params[6]
#define B_IDX  params[7]
#define B_VAL  params[8]
// classic
#define PRODUCTS params[9]
#define TABLGT   params[10]
#define NNZ_C    params[11]
#define STEP_T   params[12] /* prN of a max or sum step; h of a sort step */
#define NN       params[13] /* the padded run of the sort */
#define REVERSE  params[14]
#define C_IDX    params[15] /* where C's columns start in its ints */
// fast (the same slots, other names)
#define COUNT    params[9]  /* rows of the bin, products of the chunk, entries */
#define CAP      (params[10] & 0xffffu) /* ROWS: shared slots per row (a power of two) */
#define ROW_W    (params[10] >> 16u)    /* ROWS_RANK: slots a row takes (<= CAP, >= 32) */
#define LIST_OFF params[11] /* ROWS: this bin's first row in the list; ESC: the chunk's rows */
#define APOS_OFF params[12]
#define NUMERIC  params[13] /* ROWS: SYMBOLIC, NUMERIC, ONE_PHASE (ROWS_RANK also
                             * ONE_PHASE_ORDERED); ESC_EXPAND: values */
#define COMPACT_SHIFT params[13] /* ROWS_COMPACT: log2 of the invocations a row takes */
#define RPTR_OFF params[14] /* per-row counts, then C's row pointers (exclusive scan) */
// ROWS and ROWS_RANK: counts only; C's entries at its row pointers (after the counts'
// scan); or both at once, the entries at the row's first product in a temporary
// (products-sized, so no row needs another's count: ROWS_COMPACT moves them into C).
#define SYMBOLIC 0u
#define NUMERIC_C 1u
#define ONE_PHASE 2u
// ROWS_RANK only: the one phase over every row of A in row order, ROW_W slots a row, so
// that a group's rows are consecutive: their entries go to the temporary from the group's
// first product, one after another (ROWS_COMPACT then moves a group's entries as one run).
#define ONE_PHASE_ORDERED 3u

uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

// The largest x in [lo, hi) with key(x) <= v, for a key nondecreasing in x and key(lo) <= v.
#define LAST_AT_MOST(RESULT, LO, HI, KEY, V)                 \
    {                                                        \
        uint lo_ = (LO), hi_ = (HI);                         \
        while (hi_ - lo_ > 1u) {                             \
            uint mid_ = lo_ + (hi_ - lo_) / 2u;              \
            if ((KEY(mid_)) <= (V)) lo_ = mid_; else hi_ = mid_; \
        }                                                    \
        RESULT = lo_;                                        \
    }
// The first x in [lo, hi) with key(x) >= v (hi if none).
#define FIRST_AT_LEAST(RESULT, LO, HI, KEY, V)               \
    {                                                        \
        uint lo_ = (LO), hi_ = (HI);                         \
        while (lo_ < hi_) {                                  \
            uint mid_ = lo_ + (hi_ - lo_) / 2u;              \
            if ((KEY(mid_)) < (V)) lo_ = mid_ + 1u; else hi_ = mid_; \
        }                                                    \
        RESULT = lo_;                                        \
    }

#define RA(I) ia[A_PTR + (I)]
#define CA(I) ia[A_IDX + (I)]
#define RB(I) ib[B_PTR + (I)]
#define CB(I) ib[B_IDX + (I)]

// ------------------------------------------------------------------ classic (Kiciak)
// off = aux[0..], tab1/2/3 = aux (a separate binding of the same role), pairs = ux.
#define OFF(I)   aux[(I)]
#define PAIRI(I) ux[2u * (I)]
#define PAIRJ(I) ux[2u * (I) + 1u]
#define TAB1(I)  aux[(I)]
#define TAB2(I)  aux[TABLGT + (I)]
#define TAB3(I)  aux[2u * TABLGT + (I)]

void classic_count(uint i)
{
    if (i == 0u)
        OFF(0u) = 0u;
    if (i < NNZ_A) {
        uint j = CA(i);
        OFF(i + 1u) = RB(j + 1u) - RB(j);
    }
}

void classic_expand(uint i)
{
    if (i >= PRODUCTS)
        return;
    uint p, j;
    LAST_AT_MOST(p, 0u, NNZ_A, OFF, i);
    LAST_AT_MOST(j, 0u, ROWS, RA, p);
    uint q = RB(CA(p)) + i - OFF(p);
    PAIRI(i) = j;
    PAIRJ(i) = CB(q);
    wv[i] = va[A_VAL + p] * vb[B_VAL + q];
}

void classic_row_starts(uint i)
{
    if (i == 0u) {
        TAB1(0u) = 0u;
        TAB1(ROWS) = PRODUCTS;
    } else if (i < ROWS) {
        uint k;
        FIRST_AT_LEAST(k, 0u, PRODUCTS, PAIRI, i);
        TAB1(i) = k;
    }
}

// One pairwise-max step over t = STEP_T words at `base`.
void max_step(uint i, uint base)
{
    uint t = STEP_T, j = i + (t + 1u) / 2u;
    if (j < t && aux[base + i] < aux[base + j])
        aux[base + i] = aux[base + j];
}

// Kiciak's SortIt: pair np of row ns's run of triples, block h = STEP_T.
void classic_sort(uint x)
{
    uint half_nn = NN / 2u;
    uint ns = x / half_nn, np = x % half_nn;
    if (ns >= ROWS)
        return;
    uint h = STEP_T, h2 = h >> 1u;
    uint l = np % h2, blk = np / h2;
    uint u = TAB1(ns) + blk * h + l;
    uint v = REVERSE != 0u ? TAB1(ns) + blk * h + h - 1u - l : u + h2;
    if (v < TAB1(ns + 1u) && PAIRJ(u) > PAIRJ(v)) {
        uint c = PAIRJ(u);
        PAIRJ(u) = PAIRJ(v);
        PAIRJ(v) = c;
        T w = wv[u];
        wv[u] = wv[v];
        wv[v] = w;
    }
}

void classic_flags(uint i)
{
    if (i == 0u) {
        TAB1(0u) = 0u;
        TAB1(1u) = 1u;
    } else if (i < PRODUCTS) {
        TAB1(i + 1u) = PAIRI(i) != PAIRI(i - 1u) || PAIRJ(i) != PAIRJ(i - 1u) ? 1u : 0u;
    }
}

// C's ints are bound where A's were (binding 0): row pointers at 0, columns at C_IDX.
void classic_columns(uint i)
{
    if (i > PRODUCTS)
        return;
    if (i == PRODUCTS)
        TAB2(NNZ_C) = PRODUCTS;
    else if (TAB1(i + 1u) > TAB1(i)) {
        ia[C_IDX + TAB1(i)] = PAIRJ(i);
        TAB2(TAB1(i)) = i;
    }
}

void classic_runs(uint e)
{
    if (e < NNZ_C)
        TAB3(e) = TAB2(e + 1u) - TAB2(e);
}

void classic_sums(uint x)
{
    uint t = STEP_T, p = t / 2u;
    uint j = x % p, e = x / p;
    if (e < NNZ_C) {
        uint k = j + t - p;
        if (k < TAB3(e))
            wv[TAB2(e) + j] += wv[TAB2(e) + k];
    }
}

// C's values are bound where A's were (binding 1).
void classic_values(uint e)
{
    if (e < NNZ_C) {
        uint t = TAB2(e);
        va[e] = wv[t];
        TAB1(e) = PAIRI(t);
    }
}

void classic_row_ptrs(uint i)
{
    if (i == 0u) {
        ia[0] = 0u;
        ia[ROWS] = NNZ_C;
    } else if (i < ROWS) {
        uint p;
        FIRST_AT_LEAST(p, 0u, NNZ_C, TAB1, i);
        ia[i] = p;
    }
}

// ------------------------------------------------------------------ fast: counts and bins
// aux: a header of HEADER words at 0 (bin counts, bin fill counters, 64-bit totals), then
// the regions whose offsets the driver passes.
#define BINS 8u            /* bins 0..6: CAP = 32 << b; bin 7: the long rows */
#define LONG_BIN 7u
#define H_COUNT 0u
#define H_FILL 8u
#define H_PRODUCTS 16u     /* two words: low, high */
#define H_LONGEST 20u      /* per bin: its longest row's products */
#define H_B_LEFT 18u       /* B's rows: the most row - first column, + 2^31 */
#define H_B_RIGHT 19u      /* the most last column - row, + 2^31 */
#define H_WINDOW 28u       /* per bin of ROWS_RANK (0..2): its rows that fit the window */
#define BIAS 0x80000000u
#define RANK_BINS 3u       /* the bins of CAP <= 128: ROWS_RANK's */
#define B_ROWS params[9]   /* NNZ_PRODUCTS */
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
#define HEADER 32u
#define NO_BIN BINS
shared uint s_head[HEADER];

// This invocation's index number `it` of the stage's.
uint head_index(uint it)
{
    return (group_index() * ITEMS + it) * WG_SIZE + gl_LocalInvocationID.x;
}

void head_clear()
{
    if (gl_LocalInvocationID.x < HEADER)
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
    if (w >= HEADER || w == H_PRODUCTS + 1u)
        return;
    uint v = s_head[w];
    if (w == H_PRODUCTS) {
        uint high = s_head[w + 1u], sum = v + (high << 16u);
        if ((v | high) != 0u)
            add64(H_PRODUCTS, sum, (high >> 16u) + (sum < v ? 1u : 0u));
    } else if (v != 0u) {
        if (w == H_B_LEFT || w == H_B_RIGHT || (w >= H_LONGEST && w < H_LONGEST + BINS))
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
            atomicMax(s_head[H_B_LEFT], left);
        if (right != 0u)
            atomicMax(s_head[H_B_RIGHT], right);
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
    uint reach = (aux[H_B_LEFT] - BIAS) + (aux[H_B_RIGHT] - BIAS); // >= 0: one row's span
    uint span_a = CA(hi - 1u) - CA(lo);
    return reach < p && span_a < p && span_a + reach < p;
}

// A row's products (the expansion's offsets are modulo 2^32; a row's own count is below it).
uint row_products(uint r) { return APOS(RA(r + 1u)) - APOS(RA(r)); }

// The bin of a row of p > 0 products: the smallest b with p <= 32 << b, or LONG_BIN past
// the largest shared row (CAP param: 0 sends every row to LONG_BIN).
uint bin_of(uint p, uint shared_max)
{
    if (p > shared_max)
        return LONG_BIN;
    uint b = 0u;
    while ((32u << b) < p)
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
            fits = b < RANK_BINS && fits_window(lo[it], hi[it], p);
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
                atomicAdd(s_head[H_COUNT + first], rows);
                if (fitting != 0u) // only in bins below RANK_BINS
                    atomicAdd(s_head[H_WINDOW + first], fitting);
                atomicMax(s_head[H_LONGEST + first], longest);
            }
            todo = todo && !mine;
        }
        if (subgroupElect()) {
            atomicAdd(s_head[H_PRODUCTS], low);
            atomicAdd(s_head[H_PRODUCTS + 1u], high);
        }
#else
        if (b == NO_BIN)
            continue;
        atomicAdd(s_head[H_COUNT + b], 1u);
        if (fits)
            atomicAdd(s_head[H_WINDOW + b], 1u);
        atomicMax(s_head[H_LONGEST + b], p);
        atomicAdd(s_head[H_PRODUCTS], p & 0xffffu);
        atomicAdd(s_head[H_PRODUCTS + 1u], p >> 16u);
#endif
    }
    head_flush();
}

// The list: bin 0's rows, then bin 1's, ..., each a record of RECORD words (the row, its
// first nonzero of A, its nonzeros of A, its products: what RA and APOS would give a row's
// stage two dependent loads later); the long rows also as (row, products) pairs at
// LIST_OFF + RECORD * ROWS. A bin's rows are listed group by group, in no set order.
#define RECORD 4u
#define LIST_WORD(AT, W) aux[LIST_OFF + RECORD * (AT) + (W)]
#define LIST_ROW(AT) LIST_WORD(AT, 0u)
#define PAIR_WORD(SLOT, W) aux[LIST_OFF + RECORD * ROWS + 2u * (SLOT) + (W)]
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
                base = atomicAdd(s_head[H_FILL + first], rows);
            base = subgroupBroadcastFirst(base);
            if (mine)
                slot[it] = base + subgroupBallotExclusiveBitCount(ballot);
            todo = todo && !mine;
        }
#else
        if (b[it] != NO_BIN)
            slot[it] = atomicAdd(s_head[H_FILL + b[it]], 1u);
#endif
    }
    barrier();
    // The group's first slot in each bin, from one atomic; each bin's first record.
    uint lid = gl_LocalInvocationID.x;
    if (lid < BINS) {
        uint start = 0u;
        for (uint c = 0u; c < lid; c++)
            start += aux[H_COUNT + c];
        s_head[H_COUNT + lid] = start;
        if (s_head[H_FILL + lid] != 0u)
            s_head[H_FILL + lid] = atomicAdd(aux[H_FILL + lid], s_head[H_FILL + lid]);
    }
    barrier();
    for (uint it = 0u; it < ITEMS; it++) {
        if (b[it] == NO_BIN)
            continue;
        uint in_bin = s_head[H_FILL + b[it]] + slot[it], at = s_head[H_COUNT + b[it]] + in_bin;
        LIST_WORD(at, 0u) = head_index(it);
        LIST_WORD(at, 1u) = lo[it];
        LIST_WORD(at, 2u) = hi[it] - lo[it];
        LIST_WORD(at, 3u) = p[it];
        if (b[it] == LONG_BIN) {
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
uint entries_at(uint r) { return NUMERIC == ONE_PHASE ? APOS(RA(r)) : aux[RPTR_OFF + r]; }

// ------------------------------------------------------------------ fast: rows in shared memory
// A work-group holds TILE = WG_SIZE * ITEMS (column, value) slots: TILE / CAP rows of one
// bin, CAP slots each, padded with PAD keys (which sort last). Each row's slots are sorted
// by the bitonic network (blocks up to CAP), then the first slot of each run of equal
// columns is flagged and the flags scanned: a row's count, and each entry's place in C.
#define TILE (WG_SIZE * ITEMS)
#define PAD 0xffffffffu
shared uint s_key[TILE];
shared T s_val[TILE];
shared uint s_part[WG_SIZE];
shared uint s_row_start[TILE / 32u + 1u]; // runs before each row slot, and the total
shared uint s_first_slot[WG_SIZE], s_first_b[WG_SIZE]; // ROWS_RANK: per nonzero of A

void rows_load(uint g, uint lid, uint rows_per_group, uint log_cap, bool numeric)
{
    for (uint e = lid; e < TILE; e += WG_SIZE) {
        uint s = e >> log_cap, o = e & (CAP - 1u), at = g * rows_per_group + s;
        uint key = PAD;
        T v = T_ZERO;
        if (at < COUNT) {
            uint r = LIST_ROW(at);
            if (o < row_products(r)) {
                uint k, q;
                find_product(r, o, k, q);
                key = CB(q);
                if (numeric)
                    v = va[A_VAL + k] * vb[B_VAL + q];
            }
        }
        s_key[e] = key;
        if (numeric)
            s_val[e] = v;
    }
}

void rows_sort(uint lid, bool numeric)
{
    for (uint h = 2u; h <= CAP; h <<= 1u) {
        for (uint b = h; b >= 2u; b >>= 1u) {
            bool reverse = b == h;
            uint b2 = b >> 1u;
            for (uint p = lid; p < TILE / 2u; p += WG_SIZE) {
                uint l = p & (b2 - 1u), blk = p / b2;
                uint i = blk * b + l;
                uint j = reverse ? blk * b + b - 1u - l : i + b2;
                uint ki = s_key[i], kj = s_key[j];
                if (ki > kj) {
                    s_key[i] = kj;
                    s_key[j] = ki;
                    if (numeric) {
                        T w = s_val[i];
                        s_val[i] = s_val[j];
                        s_val[j] = w;
                    }
                }
            }
            barrier();
        }
    }
}

// Whether slot e starts a run of one column in its row.
bool run_starts(uint e)
{
    uint key = s_key[e];
    return key != PAD && ((e & (CAP - 1u)) == 0u || s_key[e - 1u] != key);
}

// Invocation lid owns the ITEMS consecutive slots from lid * ITEMS (CAP >= 32 is a multiple
// of ITEMS, so each row slot starts at an invocation's first). Returns how many runs start
// before its first slot; s_row_start[s] gets the runs before row slot s, and
// s_row_start[rows_per_group] all of them.
uint rows_scan(uint lid, uint log_cap, uint rows_per_group)
{
    uint first = lid * ITEMS, count = 0u;
    for (uint u = 0u; u < ITEMS; u++)
        count += run_starts(first + u) ? 1u : 0u;
    s_part[lid] = count;
    barrier();
    for (uint d = 1u; d < WG_SIZE; d <<= 1u) {
        uint add = lid >= d ? s_part[lid - d] : 0u;
        barrier();
        s_part[lid] += add;
        barrier();
    }
    uint before = s_part[lid] - count;
    if ((first & (CAP - 1u)) == 0u)
        s_row_start[first >> log_cap] = before;
    if (lid == WG_SIZE - 1u)
        s_row_start[rows_per_group] = s_part[lid];
    barrier();
    return before;
}

void rows_stage(uint lid)
{
    uint log_cap = findLSB(CAP), rows_per_group = TILE >> log_cap, g = group_index();
    bool numeric = NUMERIC != SYMBOLIC;
    if (g * rows_per_group >= COUNT)
        return; // the whole group: no barrier is skipped by part of it
    rows_load(g, lid, rows_per_group, log_cap, numeric);
    barrier();
    rows_sort(lid, numeric);
    uint pos = rows_scan(lid, log_cap, rows_per_group);
    uint first = lid * ITEMS, s = first >> log_cap, at = g * rows_per_group + s;
    if (at >= COUNT)
        return; // past the bin's last row: nothing to write (no barrier follows)
    uint r = LIST_ROW(at), row_first = s << log_cap;
    if (NUMERIC != NUMERIC_C) { // the counts
        if (first == row_first)
            aux[RPTR_OFF + r] = s_row_start[s + 1u] - s_row_start[s];
    }
    if (!numeric)
        return;
    uint base = entries_at(r) - s_row_start[s];
    for (uint u = 0u; u < ITEMS; u++) {
        uint e = first + u;
        if (!run_starts(e))
            continue;
        uint key = s_key[e];
        T sum = s_val[e];
        for (uint v = e + 1u; v < row_first + CAP && s_key[v] == key; v++)
            sum += s_val[v];
        ux[C_IDX + base + pos] = key;
        cv[base + pos] = sum;
        pos++;
    }
}

// ------------------------------------------------------------------ fast: short rows ranked
// Rows of up to RANK_MAX products (bins with CAP <= RANK_MAX), one invocation per product slot,
// each row ROW_W slots: its bin's longest row (at least 32), so WG_SIZE / ROW_W rows per
// work-group (laplace3d's rows of 49 products: 5 rows in 245 slots, where CAP 64 gave 4).
// The row's products are loaded into its slots, then every product finds out whether it
// leads its column (no earlier product has it), its sum (all of the column's products added
// in product order, as Gustavson's row accumulator adds them) and its place in C (the leaders of smaller columns). Three programs (SHAPE0, spgemm.h's
// spgemm_rank_program): 0 compares with every product of the row, n compares for n products;
// 1 (search) uses the runs a row's products come in, one per nonzero of A, each a row of B and
// so sorted by column without repeats: it looks for the column in each other run by binary
// search, about m log(n / m) compares for m runs, and scans the row's leader flags after;
// 2 (merge, the default) merges the runs pairwise into column order, ceil(log2 m) levels of
// one binary search each, then reads leaders, sums and places off the sorted row. On the H100
// the merge took 8-14% off the best of the other two on every large product (docs/DECISIONS.md,
// "ROWS_RANK merges a row's runs"). A row of more nonzeros of A than
// ROW_W (most of whose rows of B are empty) always compares. A few barriers, where ROWS's
// bitonic network and scan take dozens.
//
// The runs of the row at row_first: run u starts at slot s_first_slot[row_first + u]; a row
// of m runs and n products.
uint run_start(uint row_first, uint u) { return s_first_slot[row_first + u]; }
uint run_end(uint row_first, uint u, uint m, uint n)
{
    return u + 1u < m ? s_first_slot[row_first + u + 1u] : n;
}
// The first slot of run u whose column is not below key (the run's end if none).
uint run_lower_bound(uint row_first, uint u, uint m, uint n, uint key)
{
    uint at;
#define ROW_KEY(X) s_key[row_first + (X)]
    FIRST_AT_LEAST(at, run_start(row_first, u), run_end(row_first, u, m, n), ROW_KEY, key);
#undef ROW_KEY
    return at;
}
// s_part[lid] = the sum of v over the row's slots up to lid (an inclusive scan within each
// row of ROW_W slots); s_first_b is free by then and holds subgroup totals.
void scan_row(uint lid, uint lane, uint row_first, uint v)
{
#ifdef SUBGROUPS
    // Subgroups of consecutive invocations (as sort.comp's scan): three barriers, not 2 log CAP.
    uint sg = gl_SubgroupID, width = gl_SubgroupSize, incl = subgroupInclusiveAdd(v);
    s_part[lid] = incl;
    if (gl_SubgroupInvocationID == width - 1u)
        s_first_b[sg] = incl;
    barrier();
    // the totals of the subgroups from the row's first one, less what came before the row in
    // that one (rows start anywhere: a row is ROW_W slots)
    uint sum = incl;
    for (uint k = row_first / width; k < sg; k++)
        sum += s_first_b[k];
    if (row_first % width != 0u)
        sum -= s_part[row_first - 1u];
    barrier();
    s_part[lid] = sum;
    barrier();
#else
    s_part[lid] = v;
    barrier();
    for (uint d = 1u; d < ROW_W; d <<= 1u) {
        uint add = lane >= d ? s_part[lid - d] : 0u;
        barrier();
        s_part[lid] += add;
        barrier();
    }
#endif
}
// s_part[lid] = the leaders among the row's slots up to lid.
void scan_row_leaders(uint lid, uint lane, uint row_first, bool leads)
{
    scan_row(lid, lane, row_first, leads ? 1u : 0u);
}

// After scan_row_leaders: how many of the row's slots [0, x) lead.
uint leaders_before(uint row_first, uint x) { return x == 0u ? 0u : s_part[row_first + x - 1u]; }

// Whether the slot (key at lane, below n) leads its column, by comparing with every product of
// the row; in the numeric phase also the column's sum, added in product order.
bool compare_leads(uint row_first, uint lane, uint n, uint key, bool numeric, inout T sum)
{
    bool leads = lane < n;
    if (numeric) {
        for (uint q = 0u; q < n; q++) {
            if (s_key[row_first + q] == key) {
                leads = leads && q >= lane;
                sum += s_val[row_first + q];
            }
        }
    } else {
        for (uint q = 0u; q < lane && leads; q++)
            leads = s_key[row_first + q] != key;
    }
    return leads;
}

// ROWS_RANK's entries_at: in the one phase the row's first product's offset, `base`, which the
// stage holds already; in the two phases C's row pointer, loaded by the leaders after the
// ranking (loaded with the record, it sat in a register through the ranking's barriers and
// laplace3d_7:128 took 6198 us on the H100 where 6084: docs/DECISIONS.md, SpGEMM).
// In the ordered one phase: the group's first product, and (count_leaders) where each row
// slot's entries go: after the entries of the group's rows before it.
shared uint s_group_from, s_row_out[TILE / 32u];
uint rank_entries_at(uint r, uint s, uint base)
{
    if (NUMERIC == ONE_PHASE_ORDERED)
        return s_row_out[s];
    return NUMERIC == ONE_PHASE ? base : aux[RPTR_OFF + r];
}

// After scan_row_leaders, in a row that compares: the leaders of columns below key.
uint compared_place(uint row_first, uint n, uint key)
{
    uint pos = 0u;
    for (uint q = 0u; q < n; q++)
        if (s_key[row_first + q] < key)
            pos += leaders_before(row_first, q + 1u) - leaders_before(row_first, q);
    return pos;
}

// The symbolic phase's end: each row's leaders are its entries of C.
void count_leaders(uint lid, uint s, uint lane, uint rows_per_group, bool live, uint r,
                   bool leads)
{
    if (leads)
        atomicAdd(s_row_start[s], 1u);
    barrier();
    if (live && lane == 0u) {
        aux[RPTR_OFF + r] = s_row_start[s];
        // read by the row's leaders after a barrier of each program's (its scan, or the
        // compare program's own)
        if (NUMERIC == ONE_PHASE_ORDERED) {
            uint at = s_group_from;
            for (uint x = 0u; x < s; x++)
                at += s_row_start[x];
            s_row_out[s] = at;
        }
    }
}

// The program without search: every product compares with all of the row's, after the load.
void rows_rank_compare(uint lid, uint s, uint lane, uint row_first, uint rows_per_group,
                       bool live, uint r, uint n, bool numeric, uint base)
{
    uint key = s_key[lid];
    T sum = T_ZERO;
    bool leads = compare_leads(row_first, lane, n, key, numeric, sum);
    if (NUMERIC != NUMERIC_C)
        count_leaders(lid, s, lane, rows_per_group, live, r, leads);
    if (!numeric)
        return;
    s_part[lid] = leads ? 1u : 0u;
    barrier();
    if (!leads)
        return;
    uint pos = 0u;
    for (uint q = 0u; q < n; q++)
        pos += s_key[row_first + q] < key && s_part[row_first + q] != 0u ? 1u : 0u;
    uint c = rank_entries_at(r, s, base) + pos;
    ux[C_IDX + c] = key;
    cv[c] = sum;
}

// The merge program (SHAPE0 = 2): a row's runs are merged pairwise in shared memory, level by
// level: at level L the segments are runs [j 2^L, (j + 1) 2^L), each merged with its partner
// (j ^ 1) into the slots both held, every element placed by a binary search in the partner
// (stable: the left segment's equal columns first). So the row ends sorted by column, each
// column's products adjacent in product order. The slot an invocation owns keeps its
// original run t, and slot ranges never cross segments: the element at the slot belongs to
// segment t >> L at every level. s_levels: the most levels a row of the group needs.
shared uint s_levels;
// Where the segment from run u starts: the run's first slot, or n past the last run.
uint merge_bound(uint row_first, uint u, uint m, uint n)
{
    return u < m ? run_start(row_first, u) : n;
}
void merge_runs(uint lid, uint lane, uint row_first, bool merging, uint t, uint m, uint n,
                bool numeric)
{
    uint levels = s_levels; // one value for the whole group (set before the last barrier)
    for (uint level = 0u; level < levels; level++) {
        uint key = s_key[lid], dest = lid;
        T val = numeric ? s_val[lid] : T_ZERO;
        if (merging) {
            uint seg = t >> level, other = seg ^ 1u;
            uint a = merge_bound(row_first, seg << level, m, n);
            uint c = merge_bound(row_first, other << level, m, n);
            uint d = merge_bound(row_first, (other + 1u) << level, m, n);
            bool left = (seg & 1u) == 0u;
            uint at = c, len = d - c;
            while (len > 0u) { // the partner's keys below key (left) or not above it (right)
                uint mid = len >> 1u, k = s_key[row_first + at + mid];
                if (left ? k < key : k <= key) {
                    at += mid + 1u;
                    len -= mid + 1u;
                } else {
                    len = mid;
                }
            }
            dest = row_first + (left ? a : c) + (lane - a) + (at - c);
        }
        barrier();
        if (merging) {
            s_key[dest] = key;
            if (numeric)
                s_val[dest] = val;
        }
        barrier();
    }
}

// The merge program's ranking: after the merge a slot leads where its column differs from the
// slot before, sums its run of equal columns in order, and goes after the row's leaders
// before it. Rows of more nonzeros of A than ROW_W compare, as in the other programs.
void rows_rank_merge(uint lid, uint s, uint lane, uint row_first, uint rows_per_group,
                     bool live, uint r, uint n, bool numeric, bool spread, uint t, uint m,
                     uint base)
{
    merge_runs(lid, lane, row_first, spread && lane < n, t, m, n, numeric);
    uint key = s_key[lid];
    T sum = T_ZERO;
    bool leads;
    if (spread) {
        leads = lane < n && (lane == 0u || s_key[lid - 1u] != key);
        if (numeric && leads)
            for (uint v = lid; v < row_first + n && s_key[v] == key; v++)
                sum += s_val[v];
    } else {
        leads = compare_leads(row_first, lane, n, key, numeric, sum);
    }
    if (NUMERIC != NUMERIC_C)
        count_leaders(lid, s, lane, rows_per_group, live, r, leads);
    if (!numeric)
        return;
    scan_row_leaders(lid, lane, row_first, leads);
    if (!leads)
        return;
    uint pos = 0u;
    if (spread) {
        pos = leaders_before(row_first, lane);
    } else {
        pos = compared_place(row_first, n, key);
    }
    uint c = rank_entries_at(r, s, base) + pos;
    ux[C_IDX + c] = key;
    cv[c] = sum;
}

// The search program (SHAPE0 = 1): a product leads if no earlier run holds its column; its
// place counts, in every other run, the leaders below its column's lower bound, and in its own
// run the leaders before it. Rows of more nonzeros of A than ROW_W compare.
void rows_rank_search(uint lid, uint s, uint lane, uint row_first, uint rows_per_group,
                      bool live, uint r, uint n, bool numeric, bool spread, uint t, uint m,
                      uint base)
{
    uint key = s_key[lid];
    T sum = T_ZERO;
    bool leads = lane < n;
    if (spread) {
        // the product leads if no earlier run holds its column
        for (uint u = 0u; u < t && leads; u++) {
            uint at = run_lower_bound(row_first, u, m, n, key);
            leads = at == run_end(row_first, u, m, n) || s_key[row_first + at] != key;
        }
    } else {
        leads = compare_leads(row_first, lane, n, key, numeric, sum);
    }
    if (NUMERIC != NUMERIC_C)
        count_leaders(lid, s, lane, rows_per_group, live, r, leads);
    if (!numeric)
        return;
    scan_row_leaders(lid, lane, row_first, leads);
    if (!leads)
        return;
    // Its place in C: the leaders of smaller columns. In a sorted run they lie before the
    // column's lower bound; in the slot's own run, before the slot.
    uint pos = 0u;
    if (spread) {
        pos = leaders_before(row_first, lane) - leaders_before(row_first, run_start(row_first, t));
        sum += s_val[lid];
        for (uint u = 0u; u < m; u++) {
            if (u == t)
                continue;
            uint at = run_lower_bound(row_first, u, m, n, key);
            pos += leaders_before(row_first, at) -
                   leaders_before(row_first, run_start(row_first, u));
            // the later runs' products of the column, in product order (no earlier run has it)
            if (u > t && at < run_end(row_first, u, m, n) && s_key[row_first + at] == key)
                sum += s_val[row_first + at];
        }
    } else {
        pos = compared_place(row_first, n, key);
    }
    uint c = rank_entries_at(r, s, base) + pos;
    ux[C_IDX + c] = key;
    cv[c] = sum;
}

// The window program (SHAPE0 = 3): the merge program, except in a group whose rows each
// span fewer columns than ROW_W (max - min, banded rows say) and come from at most 32
// nonzeros of A: there a row's slots double as its columns min, min + 1, ... Each product
// sets its run's bit in its column's mask (s_mask, an atomic OR: the order does not
// matter), and the masks give everything the merge sorted for: a column leads where its
// mask is not empty, its products are the mask's runs in order (the product of run t comes
// after those of the runs below t), and one scan of (products << 16 | leads) over the
// columns places both the values (each at its column's start plus its rank in the mask) and
// the leaders in C. So a row costs a few barriers and no binary search; the sums are added
// in product order as the other programs add them, and C is bit for bit theirs.
// s_win_lo / s_win_hi: each row's least and greatest column; s_no_window: a row of the group
// has more than 32 nonzeros of A or walks its rows of B. The masks live in s_part until its
// scan: no more shared memory than the merge's, so as many groups to a multiprocessor.
#define s_mask s_part
shared uint s_win_lo[TILE / 32u + 1u], s_win_hi[TILE / 32u + 1u];
shared uint s_no_window;
#define WINDOW (SHAPE0 == 3u)
// Whether every row of the group fits its slots (after the products' barrier).
bool group_fits_window(uint width, uint rows_per_group)
{
    if (s_no_window != 0u)
        return false;
    for (uint x = 0u; x < rows_per_group; x++)
        if (s_win_lo[x] != PAD && s_win_hi[x] - s_win_lo[x] >= width)
            return false;
    return true;
}
void rows_rank_window(uint lid, uint s, uint lane, uint row_first, uint rows_per_group,
                      bool live, uint r, uint n, bool numeric, uint t, uint base)
{
    uint lo_col = s_win_lo[s];
    bool product = live && lane < n;
    uint w = s_key[lid] - lo_col; // the product's column in the row's window
    T val = numeric ? s_val[lid] : T_ZERO;
    if (product)
        atomicOr(s_mask[row_first + w], 1u << t);
    barrier();
    uint mask = s_mask[lid]; // slot `lane` as the row's column lo_col + lane
    uint own = product ? s_mask[row_first + w] : 0u; // the product's column's
    bool leads = live && mask != 0u;
    if (NUMERIC != NUMERIC_C)
        count_leaders(lid, s, lane, rows_per_group, live, r, leads); // holds a barrier
    else
        barrier(); // every mask read before the scan writes over them
    if (!numeric)
        return;
    uint count = uint(bitCount(mask));
    scan_row(lid, lane, row_first, count << 16 | (leads ? 1u : 0u));
    if (product) { // every value was read before the scan's barriers
        uint at = (s_part[row_first + w] >> 16) - uint(bitCount(own)) +
                  uint(bitCount(own & ((1u << t) - 1u)));
        s_val[row_first + at] = val;
    }
    barrier();
    if (!leads)
        return;
    uint first = (s_part[lid] >> 16) - count;
    T sum = T_ZERO;
    for (uint v = 0u; v < count; v++)
        sum += s_val[row_first + first + v];
    uint c = rank_entries_at(r, s, base) + (s_part[lid] & 0xffffu) - 1u;
    ux[C_IDX + c] = lo_col + lane;
    cv[c] = sum;
}

void rows_rank_stage(uint lid)
{
    // Rows of ROW_W slots (the bin's longest row, or ordered every bin's, at least 32) packed
    // from slot 0; the slots past the last whole row (s == rows_per_group) idle.
    uint width = ROW_W, rows_per_group = WG_SIZE / width, g = group_index();
    bool numeric = NUMERIC != SYMBOLIC;
    if (g * rows_per_group >= COUNT)
        return; // the whole group: no barrier is skipped by part of it
    uint s = lid / width, lane = lid - s * width, at = g * rows_per_group + s;
    uint row_first = s * width;
    bool live = s < rows_per_group && at < COUNT;
    // the row's record: its row, nonzeros of A [lo, hi) and products (ordered: row `at`)
    bool ordered = NUMERIC == ONE_PHASE_ORDERED;
    uint r = live ? (ordered ? at : LIST_ROW(at)) : 0u;
    uint lo = live ? (ordered ? RA(at) : LIST_WORD(at, 1u)) : 0u;
    uint hi = live ? (ordered ? RA(at + 1u) : lo + LIST_WORD(at, 2u)) : 0u;
    uint n = live ? (ordered ? APOS(hi) - APOS(lo) : LIST_WORD(at, 3u)) : 0u;
    s_key[lid] = PAD;
    if (lane == 0u)
        s_row_start[s] = 0u; // the row's leaders (symbolic)
    if (lid == 0u)
        s_levels = 0u;
    if (WINDOW) {
        s_mask[lid] = 0u;
        if (lid <= rows_per_group) {
            s_win_lo[lid] = PAD;
            s_win_hi[lid] = 0u;
        }
        if (lid == 0u)
            s_no_window = 0u;
    }
    barrier();
    // A row of at most ROW_W nonzeros of A (all but the rarest) puts each one's first slot and
    // first entry of B in shared memory, and then every slot finds its own by binary search
    // there: all loads at once. A longer one has its nonzeros walk their rows of B.
    uint base = live ? APOS(lo) : 0u;
    if (ordered && lid == 0u)
        s_group_from = base; // row slot 0 is live in every group that runs
    bool spread = hi - lo <= width;
    if (spread && lane < hi - lo) {
        s_first_slot[lid] = APOS(lo + lane) - base;
        s_first_b[lid] = RB(CA(lo + lane));
    }
    if (SHAPE0 >= 2u && spread && lane == 0u && hi - lo > 1u)
        atomicMax(s_levels, uint(findMSB(hi - lo - 1u)) + 1u);
    if (WINDOW && live && lane == 0u && (!spread || hi - lo > 32u))
        s_no_window = 1u;
    barrier();
    uint t = 0u; // the slot's run
    if (spread) {
        if (lane < n) {
            uint len = hi - lo; // >= 1: the row has products
            for (uint step = 1u << uint(findMSB(len)); step > 0u; step >>= 1u)
                if (t + step < len && s_first_slot[row_first + t + step] <= lane)
                    t += step;
            // equal first slots (nonzeros of A whose B row is empty) end at the last of them
            uint q = s_first_b[row_first + t] + (lane - s_first_slot[row_first + t]);
            uint col = CB(q);
            s_key[lid] = col;
            if (numeric)
                s_val[lid] = va[A_VAL + lo + t] * vb[B_VAL + q];
            // a run (a row of B) is sorted: its first product has its least column, its
            // last its greatest (the row's products in one word took 6% more time)
            if (WINDOW && lane == s_first_slot[row_first + t])
                atomicMin(s_win_lo[s], col);
            if (WINDOW && (t + 1u < len ? s_first_slot[row_first + t + 1u] : n) == lane + 1u)
                atomicMax(s_win_hi[s], col);
        }
    } else if (live) {
        for (uint k = lo + lane; k < hi; k += width) {
            uint j = CA(k), o = row_first + (APOS(k) - base), q1 = RB(j + 1u);
            T a = numeric ? va[A_VAL + k] : T_ZERO;
            for (uint q = RB(j); q < q1; q++, o++) {
                s_key[o] = CB(q);
                if (numeric)
                    s_val[o] = a * vb[B_VAL + q];
            }
        }
    }
    barrier();
    if (WINDOW && group_fits_window(width, rows_per_group)) {
        rows_rank_window(lid, s, lane, row_first, rows_per_group, live, r, n, numeric, t,
                         base);
        return;
    }
    if (SHAPE0 == 0u)
        rows_rank_compare(lid, s, lane, row_first, rows_per_group, live, r, n, numeric, base);
    else if (SHAPE0 == 1u)
        rows_rank_search(lid, s, lane, row_first, rows_per_group, live, r, n, numeric, spread,
                         t, hi - lo, base);
    else
        rows_rank_merge(lid, s, lane, row_first, rows_per_group, live, r, n, numeric, spread,
                        t, hi - lo, base);
}

// One phase: the entries of C of the short rows (those ROWS and ROWS_RANK summed; a long
// row's are ESC_WRITE's), from the temporary (ints at 6, values at 7) into C (ints at 2,
// where B's were, columns from C_IDX; values at 3). rptr holds C's row pointers by now.
// COUNT = the list's short rows, each taken by 1 << COMPACT_SHIFT consecutive invocations
// that stride its entries: from the row's first product in the temporary to its row
// pointer. After the ordered one phase (COMPACT_ROWS), COUNT = ROWS_RANK's groups, each a
// run of consecutive rows whose entries lie one after another from its first product. A row
// found from its record this way costs three loads; an entry that found its row by binary
// search on rptr cost a chain of ~log2(rows) of them, and laplace3d_7:128's
// compaction took 1.2 ms on the H100 where its copy alone is a third of that
// (docs/DECISIONS.md, SpGEMM).
// 2^COMPACT_SHIFT invocations a row, each moving every 2^COMPACT_SHIFT-th entry, COMPACT_BATCH
// at a time: their loads in flight together. The stage is bound by latency more than by
// bandwidth: a row's record, then its first product and pointers, then its entries, three
// dependent loads before anything moves, so each invocation moves several entries
// (src/algo/spgemm.c chooses the shift).
#define COMPACT_BATCH 4u
#define COMPACT_ROWS params[10] /* the ordered one phase: rows a group of ROWS_RANK took */
void rows_compact(uint i)
{
    uint at = i >> COMPACT_SHIFT, lane = i & ((1u << COMPACT_SHIFT) - 1u);
    if (at >= COUNT)
        return;
    // a row of the list; or (ordered) the rows of ROWS_RANK's group `at`, one run
    uint first = COMPACT_ROWS != 0u ? at * COMPACT_ROWS : LIST_ROW(at);
    uint last = COMPACT_ROWS != 0u ? min(first + COMPACT_ROWS, ROWS) : first + 1u;
    uint from = APOS(COMPACT_ROWS != 0u ? RA(first) : LIST_WORD(at, 1u));
    uint to = aux[RPTR_OFF + first], n = aux[RPTR_OFF + last] - to, step = 1u << COMPACT_SHIFT;
    uint j = lane;
    for (; j + (COMPACT_BATCH - 1u) * step < n; j += COMPACT_BATCH * step) {
        uint col[COMPACT_BATCH];
        T val[COMPACT_BATCH];
        UNROLL for (uint k = 0u; k < COMPACT_BATCH; k++) {
            col[k] = ux[from + j + k * step];
            val[k] = cv[from + j + k * step];
        }
        UNROLL for (uint k = 0u; k < COMPACT_BATCH; k++) {
            ib[C_IDX + to + j + k * step] = col[k];
            vb[to + j + k * step] = val[k];
        }
    }
    for (; j < n; j += step) {
        ib[C_IDX + to + j] = ux[from + j];
        vb[to + j] = cv[from + j];
    }
}

// ------------------------------------------------------------------ fast: expand, sort, compress
// A chunk of long rows lives in ux: the rows' ids at 0, their segment starts (within the
// chunk's expansion, CHUNK_ROWS + 1 words) at CHUNK_ROWS, keys at KEY_OFF, the sort's
// payload (each key's expansion index) at PAY_OFF, run flags (then their scan) at FLAG_OFF.
// A key is the product's column, or packed (ROW_SHIFT < 32, spgemm.h's spgemm_chunk) the
// chunk row s above it, s << ROW_SHIFT | column: one plain sort then orders every row, and a
// run's row comes from its key instead of a search in the segments.
#define CHUNK_ROWS params[10]
#define KEY_OFF    params[11]
#define PAY_OFF    params[3]  /* FLAGS, COUNT, WRITE: they read neither A nor B */
#define FLAG_OFF   params[4]
#define ROW_SHIFT  params[2]  /* ESC: a packed key's column bits; 32: keys are columns */
#define PACKED     (ROW_SHIFT < 32u)
#define SEG(I) ux[CHUNK_ROWS + (I)]
#define KEY_COLUMN(K) (PACKED ? (K) & ((1u << ROW_SHIFT) - 1u) : (K))

// The chunk row whose segment holds expansion index t.
uint chunk_row(uint t)
{
    uint s;
    LAST_AT_MOST(s, 0u, CHUNK_ROWS, SEG, t);
    return s;
}

// NUMERIC: 0 the keys, 1 keys and values, 2 the values alone (a chunk kept from the
// symbolic phase, whose keys are sorted by now: ESC_WRITE reads each value through the
// sort's payload, the product's expansion index), 3 keys and the (f32) values' bits where
// the sort takes its payload (at KEY_OFF + COUNT: PAY_OFF's word is A's here), which then
// carries them.
// The group's first and last products are found first, by a search over the whole chunk and
// row; the others search only between them: a group's consecutive products of long rows lie
// in one or two rows and, there, among a few nonzeros of A, where the whole searches take
// about log2(rows) + log2(row's nonzeros) dependent loads each.
shared uint s_span[4]; // the group's first product's chunk row and nonzero of A, its last's
void esc_span_end(uint e, uint at)
{
    uint s = chunk_row(e), k, q;
    find_product(ux[s], e - SEG(s), k, q);
    s_span[at] = s;
    s_span[at + 1u] = k;
}
void esc_expand(uint t)
{
    if (COUNT == 0u)
        return; // uniform
    uint lid = gl_LocalInvocationID.x, first = group_index() * WG_SIZE;
    if (lid == 0u)
        esc_span_end(min(first, COUNT - 1u), 0u);
    if (lid == WG_SIZE - 1u)
        esc_span_end(min(first + lid, COUNT - 1u), 2u);
    barrier();
    if (t >= COUNT)
        return;
    uint s0 = s_span[0], s1 = s_span[2], s, k, q;
    LAST_AT_MOST(s, s0, s1 + 1u, SEG, t);
    uint r = ux[s];
    find_product_in(r, t - SEG(s), s == s0 ? s_span[1] : RA(r),
                    s == s1 ? s_span[3] + 1u : RA(r + 1u), k, q);
    if (NUMERIC != 2u)
        ux[KEY_OFF + t] = PACKED ? s << ROW_SHIFT | CB(q) : CB(q);
    if (NUMERIC == 3u)
        ux[KEY_OFF + COUNT + t] = floatBitsToUint(float(va[A_VAL + k] * vb[B_VAL + q]));
    else if (NUMERIC != 0u)
        wv[t] = va[A_VAL + k] * vb[B_VAL + q];
}

// ESC_NZ: nz[s] = chunk row s's nonzeros of A, nz[CHUNK_ROWS] = 0 (then an exclusive scan:
// each row's first nonzero counted from the chunk's first).
void esc_nz(uint s)
{
    if (s < CHUNK_ROWS)
        nz[s] = RA(ux[s] + 1u) - RA(ux[s]);
    else if (s == CHUNK_ROWS)
        nz[s] = 0u;
}

// ESC_EXPAND's walk (SHAPE0 = 1, after ESC_NZ): the same keys and values, found the other
// way round. A team of WALK_TEAM invocations takes nonzero z of the chunk (z counted over
// its rows' nonzeros: row s holds [nz[s], nz[s + 1])), finds its row by one search, and
// copies the nonzero's row of B to where the expansion puts its products (the row's
// segment, past its earlier nonzeros' products), consecutive lanes consecutive entries:
// no search a product, and coalesced loads and stores. The teams go round the nonzeros.
#define WALK_TEAM 32u
#define NZ_AT(X) nz[(X)]
void esc_expand_walk(uint i)
{
    uint lane = i % WALK_TEAM;
    uint teams = gl_NumWorkGroups.x * gl_NumWorkGroups.y * WG_SIZE / WALK_TEAM;
    uint total = nz[CHUNK_ROWS];
    for (uint z = i / WALK_TEAM; z < total; z += teams) {
        uint s;
        LAST_AT_MOST(s, 0u, CHUNK_ROWS, NZ_AT, z); // nz[0] = 0 <= z
        uint first = RA(ux[s]), k = first + (z - nz[s]);
        uint j = CA(k), lo = RB(j), hi = RB(j + 1u);
        uint at = SEG(s) + (APOS(k) - APOS(first)) - lo; // product t of entry q: at + q
        T a = NUMERIC != 0u ? va[A_VAL + k] : T_ZERO;
        uint high = PACKED ? s << ROW_SHIFT : 0u;
        for (uint q = lo + lane; q < hi; q += WALK_TEAM) {
            uint t = at + q;
            if (NUMERIC != 2u)
                ux[KEY_OFF + t] = high | CB(q);
            if (NUMERIC == 3u)
                ux[KEY_OFF + COUNT + t] = floatBitsToUint(float(a * vb[B_VAL + q]));
            else if (NUMERIC != 0u)
                wv[t] = a * vb[B_VAL + q];
        }
    }
}
#undef NZ_AT

// After the sort (keys ascending within each row's segment, ties in expansion order). A
// packed key differs from the one before wherever a segment starts.
void esc_flags(uint t)
{
    if (t < COUNT) {
        bool first = PACKED ? t == 0u : t == SEG(chunk_row(t));
        ux[FLAG_OFF + t] = first || ux[KEY_OFF + t] != ux[KEY_OFF + t - 1u] ? 1u : 0u;
    } else if (t == COUNT) {
        ux[FLAG_OFF + t] = 0u;
    }
}

// After an exclusive scan of the flags.
void esc_count(uint s)
{
    if (s < CHUNK_ROWS) {
        uint n = ux[FLAG_OFF + SEG(s + 1u)] - ux[FLAG_OFF + SEG(s)];
        aux[RPTR_OFF + ux[s]] = n;
    }
}

// C's ints are bound at 0 (in place of A's), its values at 7. NUMERIC 3: the sort carried
// the (f32) values as its payload, in order beside their keys; else the payload is each
// key's expansion index, and its value is gathered from wv through it.
// An invocation takes ITEMS consecutive products (src/algo/spgemm.c: SPGEMM_WRITE_ITEMS
// where the values were carried, else 1) and writes every run that starts among them, each
// summed left to right; the last may go on past them. One product an invocation walks a
// chain of dependent loads (its key, its row's segment and C offset, its run's flag, then
// its value); 8 an invocation walk it once with their loads in flight together (rmat:15:16's
// ESC_WRITE on the H200: 2.4 ms one at a time, 2.0 in eights). Gathered f64 values run slower
// in eights, so they keep one product an invocation (docs/DECISIONS.md, "ESC_WRITE eight
// products at a time").
#define WRITE_BATCH 8u

// The values of sorted products u .. u + ITEMS - 1 (each index clamped to the chunk's last
// product). The branch on NUMERIC is uniform, outside the loads.
void window_values(uint u, out T v[ITEMS])
{
    if (NUMERIC == 3u) {
        UNROLL for (uint k = 0u; k < ITEMS; k++)
            v[k] = T(uintBitsToFloat(ux[PAY_OFF + min(u + k, COUNT - 1u)]));
    } else {
        UNROLL for (uint k = 0u; k < ITEMS; k++)
            v[k] = wv[ux[PAY_OFF + min(u + k, COUNT - 1u)]];
    }
}

// The sum of sorted products u .. u + WRITE_BATCH - 1 added to `sum` left to right, their
// loads in flight together.
T batch_sum(uint u, T sum)
{
    T v[WRITE_BATCH];
    if (NUMERIC == 3u) {
        UNROLL for (uint k = 0u; k < WRITE_BATCH; k++)
            v[k] = T(uintBitsToFloat(ux[PAY_OFF + u + k]));
    } else {
        UNROLL for (uint k = 0u; k < WRITE_BATCH; k++)
            v[k] = wv[ux[PAY_OFF + u + k]];
    }
    UNROLL for (uint k = 0u; k < WRITE_BATCH; k++)
        sum += v[k];
    return sum;
}

// C's offset of chunk row s's first run: its row pointer less the runs before the row.
uint esc_row_base(uint s)
{
    return aux[RPTR_OFF + ux[s]] - ux[FLAG_OFF + SEG(s)];
}

void esc_put(uint dst, uint key, T sum)
{
    ia[C_IDX + dst] = KEY_COLUMN(key);
    cv[dst] = sum;
}

void esc_write(uint i)
{
    uint first = i * ITEMS;
    if (first >= COUNT)
        return;
    uint n = min(ITEMS, COUNT - first);
    uint key[ITEMS];
    UNROLL for (uint k = 0u; k < ITEMS; k++)
        key[k] = ux[KEY_OFF + min(first + k, COUNT - 1u)];
    uint before = first > 0u ? ux[KEY_OFF + first - 1u] : 0u;
    // Unpacked keys: the chunk row of each product, and where the row after it starts.
    uint s = 0u, start = 0u, next = COUNT;
    if (!PACKED) {
        s = chunk_row(first);
        start = SEG(s);
        next = SEG(s + 1u);
    }
    // The first product here that starts a run: a key unlike the one before (a packed key
    // differs wherever its row starts), or, unpacked, the first row's start or the next's.
    uint lead = first == 0u || key[0] != before || (!PACKED && first == start) ? 0u : ITEMS;
    UNROLL for (uint k = 1u; k < ITEMS; k++)
        if (lead == ITEMS && k < n && key[k] != key[k - 1u])
            lead = k;
    if (!PACKED && next - first < lead)
        lead = next - first;
    if (lead >= n)
        return; // every product here belongs to a run that started before
    T val[ITEMS];
    window_values(first, val);
    uint runs = ux[FLAG_OFF + first]; // the runs that start before `first` in the chunk
    uint base_row = ~0u, base = 0u, run_key = 0u, dst = 0u;
    T sum = T_ZERO;
    UNROLL for (uint k = 0u; k < ITEMS; k++) {
        if (k >= lead && k < n) {
            uint t = first + k;
            while (!PACKED && t >= next) { // past the row (empty rows between too)
                s++;
                start = next;
                next = SEG(s + 1u);
            }
            // (max: an index the compiler sees in bounds where ITEMS is 1; k == lead there)
            if (k == lead || key[k] != key[max(k, 1u) - 1u] || (!PACKED && t == start)) {
                if (k > lead)
                    esc_put(dst, run_key, sum);
                uint row = PACKED ? key[k] >> ROW_SHIFT : s;
                if (row != base_row) {
                    base_row = row;
                    base = esc_row_base(row);
                }
                run_key = key[k];
                dst = base + runs;
                runs++;
                sum = val[k];
            } else {
                sum += val[k];
            }
        }
    }
    // The last run may go on: WRITE_BATCH products at a time while it does (keys are sorted
    // within a row, so the batch's last key tells; unpacked, `next` ends the row), added in
    // order as one at a time would. A heavy column's run in a long row is up to thousands
    // of products.
    uint end = PACKED ? COUNT : next, u = first + n;
    for (; u + (WRITE_BATCH - 1u) < end && ux[KEY_OFF + u + (WRITE_BATCH - 1u)] == run_key;
         u += WRITE_BATCH)
        sum = batch_sum(u, sum);
    for (; u < end && ux[KEY_OFF + u] == run_key; u++)
        sum += NUMERIC == 3u ? T(uintBitsToFloat(ux[PAY_OFF + u])) : wv[ux[PAY_OFF + u]];
    esc_put(dst, run_key, sum);
}

// ------------------------------------------------------------------ C without exact zeros
// C at bindings 0 (ints) and 1 (values); the new C's ints at 6, values at 7; flags in aux.
#define ZFLAG_OFF params[12]
#define NEW_IDX   params[14]

void zero_flags(uint e)
{
    if (e < COUNT)
        aux[ZFLAG_OFF + e] = va[e] != T_ZERO ? 1u : 0u;
    else if (e == COUNT)
        aux[ZFLAG_OFF + e] = 0u;
}

void zero_ptrs(uint i)
{
    if (i <= ROWS)
        ux[i] = aux[ZFLAG_OFF + ia[i]];
}

void zero_compact(uint e)
{
    if (e < COUNT && va[e] != T_ZERO) {
        uint p = aux[ZFLAG_OFF + e];
        ux[NEW_IDX + p] = ia[C_IDX + e];
        cv[p] = va[e];
    }
}

// ------------------------------------------------------------------ transpose
// A at bindings 0/1; A^T's ints at 2 (row pointers at 0, columns at C_IDX), values at 3;
// the entries sorted by column: keys in ux (at KEY_OFF), each key's entry index in aux.
// ROW_OF writes each entry's row into a buffer of its own bound at 4 (aux); TRANSPOSE reads
// it at 0, in place of A's ints (it reads no row pointers), so no array holds more than one
// word a nonzero (keys and entry indices in one array of two were more than one binding
// holds for a large A on a small-binding device). COUNT = A's columns.

void row_of(uint e)
{
    if (e < NNZ_A) {
        uint r;
        LAST_AT_MOST(r, 0u, ROWS, RA, e);
        aux[e] = r;
    }
}

void transpose(uint t)
{
    if (t < NNZ_A) {
        uint e = aux[t];
        ib[C_IDX + t] = ia[e];
        vb[t] = va[A_VAL + e];
    }
}

#define SORTED_KEY(I) ux[KEY_OFF + (I)]
void col_ptrs(uint j)
{
    if (j <= COUNT) {
        uint p;
        FIRST_AT_LEAST(p, 0u, NNZ_A, SORTED_KEY, j);
        ib[j] = p;
    }
}

void main()
{
    uint i = invocation_index();
    switch (STAGE) {
    case 1u: classic_count(i); break;
    case 2u: classic_expand(i); break;
    case 3u: classic_row_starts(i); break;
    case 4u: if (i < ROWS) TAB2(i) = TAB1(i + 1u) - TAB1(i); break;
    case 5u: max_step(i, TABLGT); break;
    case 6u: classic_sort(i); break;
    case 7u: classic_flags(i); break;
    case 8u: classic_columns(i); break;
    case 9u: classic_runs(i); break;
    case 10u: max_step(i, 2u * TABLGT); break;
    case 11u: classic_sums(i); break;
    case 12u: classic_values(i); break;
    case 13u: classic_row_ptrs(i); break;
    case 14u: nnz_products(); break;
    case 15u: row_bins(); break;
    case 16u: bin_fill(); break;
    case 17u: rows_stage(gl_LocalInvocationID.x); break;
    case 18u: if (SHAPE0 == 1u) esc_expand_walk(i); else esc_expand(i); break;
    case 19u: esc_flags(i); break;
    case 20u: esc_count(i); break;
    case 21u: esc_write(i); break;
    case 22u: zero_flags(i); break;
    case 23u: zero_ptrs(i); break;
    case 24u: zero_compact(i); break;
    case 25u: row_of(i); break;
    case 26u: transpose(i); break;
    case 27u: col_ptrs(i); break;
    case 28u: rows_rank_stage(gl_LocalInvocationID.x); break;
    case 29u: rows_compact(i); break;
    case 30u: esc_nz(i); break;
    default: break;
    }
}
