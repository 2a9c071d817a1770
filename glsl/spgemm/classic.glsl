// Part of glsl/spgemm.comp: Kiciak's classic product, stages CLASSIC_COUNT .. CLASSIC_ROW_PTRS.

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
