// Part of glsl/spgemm.comp: ROWS, a bin's rows sorted in shared memory.

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
    bool numeric = NUMERIC != SPGEMM_SYMBOLIC;
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
    if (NUMERIC != SPGEMM_NUMERIC) { // the counts
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
