// Part of glsl/spgemm.comp: ROWS_RANK, short rows ranked in shared memory, and ROWS_COMPACT.

// ------------------------------------------------------------------ fast: short rows ranked
// Rows of up to RANK_MAX products (bins with CAP <= RANK_MAX), one invocation per product slot,
// each row ROW_W slots: its bin's longest row (at least 32), so WG_SIZE / ROW_W rows per
// work-group (laplace3d's rows of 49 products: 5 rows in 245 slots, where CAP 64 gave 4). The
// row's products are loaded into its slots, then every product finds out whether it leads its
// column (no earlier product has it), its sum (all of the column's products added in product
// order, as Gustavson's row accumulator adds them) and its place in C (the leaders of smaller
// columns). Programs (SPGEMM_SHAPE_RANK, spgemm.h's spgemm_rank_program): COMPARE compares with
// every product of the row, n compares for n products; SEARCH uses the runs a row's products come
// in, one per nonzero of A, each a row of B and so sorted by column without repeats: it looks for
// the column in each other run by binary search, about m log(n / m) compares for m runs, and scans
// the row's leader flags after; MERGE (the default) merges the runs pairwise into column order,
// ceil(log2 m) levels of one binary search each, then reads leaders, sums and places off the
// sorted row. On the H100 the merge took 8-14% off the best of the other two on every large
// product (docs/DECISIONS.md, "ROWS_RANK merges a row's runs"). A row of more nonzeros of A than
// ROW_W (most of whose rows of B are empty) always compares. A few barriers, where ROWS's bitonic
// network and scan take dozens.
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
    if (NUMERIC == SPGEMM_ONE_PHASE_ORDERED)
        return s_row_out[s];
    return NUMERIC == SPGEMM_ONE_PHASE ? base : aux[RPTR_OFF + r];
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
        if (NUMERIC == SPGEMM_ONE_PHASE_ORDERED) {
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
    if (NUMERIC != SPGEMM_NUMERIC)
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

// The merge program (SPGEMM_SHAPE_RANK = MERGE): a row's runs are merged pairwise in shared
// memory, level by level: at level L the segments are runs [j 2^L, (j + 1) 2^L), each merged with
// its partner (j ^ 1) into the slots both held, every element placed by a binary search in the
// partner (stable: the left segment's equal columns first). So the row ends sorted by column, each
// column's products adjacent in product order. The slot an invocation owns keeps its original run
// t, and slot ranges never cross segments: the element at the slot belongs to segment t >> L at
// every level. s_levels: the most levels a row of the group needs.
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
    if (NUMERIC != SPGEMM_NUMERIC)
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

// The search program (SPGEMM_SHAPE_RANK = SEARCH): a product leads if no earlier run holds its
// column; its place counts, in every other run, the leaders below its column's lower bound, and in
// its own run the leaders before it. Rows of more nonzeros of A than ROW_W compare.
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
    if (NUMERIC != SPGEMM_NUMERIC)
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

// The window program (SPGEMM_SHAPE_RANK = WINDOW): the merge program, except in a group whose rows
// each span fewer columns than ROW_W (max - min, banded rows say) and come from at most 32
// nonzeros of A: there a row's slots double as its columns min, min + 1, ... Each product sets its
// run's bit in its column's mask (s_mask, an atomic OR: the order does not matter), and the masks
// give everything the merge sorted for: a column leads where its mask is not empty, its products
// are the mask's runs in order (the product of run t comes after those of the runs below t), and
// one scan of (products << 16 | leads) over the columns places both the values (each at its
// column's start plus its rank in the mask) and the leaders in C. So a row costs a few barriers
// and no binary search; the sums are added in product order as the other programs add them, and C
// is bit for bit theirs. s_win_lo / s_win_hi: each row's least and greatest column; s_no_window: a
// row of the group has more than 32 nonzeros of A or walks its rows of B. The masks live in s_part
// until its scan: no more shared memory than the merge's, so as many groups to a multiprocessor.
#define s_mask s_part
shared uint s_win_lo[TILE / 32u + 1u], s_win_hi[TILE / 32u + 1u];
shared uint s_no_window;
#define WINDOW (SPGEMM_SHAPE_RANK == SPGEMM_RANK_WINDOW)
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
    if (NUMERIC != SPGEMM_NUMERIC)
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
    bool numeric = NUMERIC != SPGEMM_SYMBOLIC;
    if (g * rows_per_group >= COUNT)
        return; // the whole group: no barrier is skipped by part of it
    uint s = lid / width, lane = lid - s * width, at = g * rows_per_group + s;
    uint row_first = s * width;
    bool live = s < rows_per_group && at < COUNT;
    // the row's record: its row, nonzeros of A [lo, hi) and products (ordered: row `at`)
    bool ordered = NUMERIC == SPGEMM_ONE_PHASE_ORDERED;
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
    if (SPGEMM_SHAPE_RANK >= SPGEMM_RANK_MERGE && spread && lane == 0u && hi - lo > 1u)
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
    if (SPGEMM_SHAPE_RANK == SPGEMM_RANK_COMPARE)
        rows_rank_compare(lid, s, lane, row_first, rows_per_group, live, r, n, numeric, base);
    else if (SPGEMM_SHAPE_RANK == SPGEMM_RANK_SEARCH)
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
// the ordered one phase: the rows a group of ROWS_RANK took
#define COMPACT_ROWS params[SPGEMM_P_COMPACT_ROWS]
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
