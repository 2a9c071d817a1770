// Part of glsl/spgemm.comp: the long rows' global path (ESC_NZ, ESC_EXPAND, ESC_FLAGS, ESC_COUNT,
// ESC_WRITE).

// ------------------------------------------------------------------ fast: expand, sort, compress
// A chunk of long rows lives in ux: the rows' ids at 0, their segment starts (within the
// chunk's expansion, CHUNK_ROWS + 1 words) at CHUNK_ROWS, keys at KEY_OFF, the sort's
// payload (each key's expansion index) at PAY_OFF, run flags (then their scan) at FLAG_OFF.
// A key is the product's column, or packed (ROW_SHIFT < 32, spgemm.h's spgemm_chunk) the
// chunk row s above it, s << ROW_SHIFT | column: one plain sort then orders every row, and a
// run's row comes from its key instead of a search in the segments.
#define CHUNK_ROWS params[SPGEMM_P_CHUNK_ROWS]
#define KEY_OFF    params[SPGEMM_P_KEY_OFF]
#define PAY_OFF    params[SPGEMM_P_PAY_OFF]  /* FLAGS, COUNT, WRITE: they read neither A nor B */
#define FLAG_OFF   params[SPGEMM_P_FLAG_OFF]
#define ROW_SHIFT  params[SPGEMM_P_ROW_SHIFT] /* a packed key's column bits; 32: keys are columns */
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

// NUMERIC: SPGEMM_ESC_KEYS the keys, _KEYS_VALUES keys and values, _VALUES the values alone
// (a chunk kept from the symbolic phase, whose keys are sorted by now: ESC_WRITE reads each
// value through the sort's payload, the product's expansion index), _CARRIED keys and the
// (f32) values' bits where the sort takes its payload (at KEY_OFF + COUNT: PAY_OFF's word is
// A's here), which then carries them.
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
    if (NUMERIC != SPGEMM_ESC_VALUES)
        ux[KEY_OFF + t] = PACKED ? s << ROW_SHIFT | CB(q) : CB(q);
    if (NUMERIC == SPGEMM_ESC_CARRIED)
        ux[KEY_OFF + COUNT + t] = floatBitsToUint(float(va[A_VAL + k] * vb[B_VAL + q]));
    else if (NUMERIC != SPGEMM_ESC_KEYS)
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

// ESC_EXPAND's walk (SPGEMM_SHAPE_WALK = 1, after ESC_NZ): the same keys and values, found the
// other
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
        T a = NUMERIC != SPGEMM_ESC_KEYS ? va[A_VAL + k] : T_ZERO;
        uint high = PACKED ? s << ROW_SHIFT : 0u;
        for (uint q = lo + lane; q < hi; q += WALK_TEAM) {
            uint t = at + q;
            if (NUMERIC != SPGEMM_ESC_VALUES)
                ux[KEY_OFF + t] = high | CB(q);
            if (NUMERIC == SPGEMM_ESC_CARRIED)
                ux[KEY_OFF + COUNT + t] = floatBitsToUint(float(a * vb[B_VAL + q]));
            else if (NUMERIC != SPGEMM_ESC_KEYS)
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

// C's ints are bound at 0 (in place of A's), its values at 7. NUMERIC SPGEMM_ESC_CARRIED:
// the sort carried the (f32) values as its payload, in order beside their keys; else the
// payload is each key's expansion index, and its value is gathered from wv through it.
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
    if (NUMERIC == SPGEMM_ESC_CARRIED) {
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
    if (NUMERIC == SPGEMM_ESC_CARRIED) {
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
        sum += NUMERIC == SPGEMM_ESC_CARRIED ? T(uintBitsToFloat(ux[PAY_OFF + u]))
                                             : wv[ux[PAY_OFF + u]];
    esc_put(dst, run_key, sum);
}
