// spmv.comp: sparse matrix times vector, y = alpha*A*x + beta*y, every format.
// variants: TYPE=F32,F64
//
// Stages (STAGE = params[0], numbered in src/algo/ids/spmv_ids.h); offsets in elements of
// each binding's type. Kiciak's classic CSR product, one stage per dispatch:
//   LENGTHS   aux[i] = ptr[i+1] - ptr[i] (row lengths), i < ROWS
//   MAX       one pairwise-max step on aux with T_ = K: aux[i] = max(aux[i], aux[i + ceil(t/2)])
//   PRODUCTS  work[k] = val[k] * x[idx[k]], k < NNZ (all products at once)
//   SUMS      one pairwise-sum step within every row, t = K (see stage_sums)
//   COPY      y[i] <- the row's sum work[ptr[i]] (0 for an empty row)
// The other kernels, each one dispatch unless said:
//   SCALE         y[i] <- alpha*0 + beta*y[i] (a matrix without entries)
//   CSR_SCALAR    one invocation per row
//   CSR_VECTOR    ITEMS invocations per row, WG_SIZE/ITEMS rows per work-group
//   CSR_TILES     balanced: WG_SIZE*ITEMS nonzeros per work-group, rows found by search
//   COO_TILES     the same on COO, rows read from the row array
//   TILE_FIX      rows that cross tiles: their partial sums added, one work-group per tile
//   ELL, SELL, BSR: one invocation per (scalar) row
//   CSC_PRODUCTS  per column, work[e] = val[e] * x[j] (Radomski's loop, stored)
//   CSC_GATHER    per row, the sum of work[perm[k]] over the row's entries
// Balanced CSR by the merge path, then TILE_FIX:
//   PATH_SEARCH   where each tile of the path begins (the plan at aux[PLAN_OFF], t <= K
//                 tiles), made once per matrix and tile
//   CSR_MERGE     MERGE_TILES tiles of up to WG_SIZE*ITEMS path steps (rows ended or
//                 entries taken) per work-group, staged through shared memory; a program
//                 of its own
// A caller's CSR is checked by glsl/matrix_check.comp before these run on it.
//
// Every index read from a matrix array is clamped before it is used (row pointers to NNZ,
// columns to COLS - 1, permutations to ROWS - 1), so that arrays a caller changed after
// validation give wrong numbers, never an access outside the buffers.

layout(std430, binding = 0) readonly buffer Ptr { uint ptr[]; };
layout(std430, binding = 1) readonly buffer Idx { uint idx[]; };
layout(std430, binding = 2) readonly buffer Val { T val[]; };
layout(std430, binding = 3) readonly buffer X { T x[]; };
layout(std430, binding = 4) buffer Y { T y[]; };
layout(std430, binding = 5) buffer Aux { uint aux[]; };
layout(std430, binding = 6) buffer Work { T work[]; };

#define ROWS     params[SPMV_P_ROWS]
#define COLS     params[SPMV_P_COLS]
#define NNZ      params[SPMV_P_NNZ]  /* entries stored in idx/val (blocks for BSR) */
#define PTR_OFF  params[SPMV_P_PTR_OFF]
#define IDX_OFF  params[SPMV_P_IDX_OFF]
#define VAL_OFF  params[SPMV_P_VAL_OFF]
#define X_OFF    params[SPMV_P_X_OFF]
#define Y_OFF    params[SPMV_P_Y_OFF]
#define AUX_OFF  params[SPMV_P_AUX_OFF]
#define WORK_OFF params[SPMV_P_WORK_OFF]
#define K        params[SPMV_P_K] /* t (classic), ELL width, SELL C, BSR b, tiles */
#define PATH_STEP params[SPMV_P_PATH_STEP]   /* PATH_SEARCH, where the others have alpha */
#define PATH_SLACK params[SPMV_P_PATH_SLACK]

// alpha at SPMV_P_ALPHA, beta at SPMV_P_BETA: the bits of a T (param_t, common.glsl).

// y[r] = alpha*s + beta*y[r]; with beta == 0, y[r] is not read (NaN there is ignored).
// precise: three roundings, no fused multiply-add, as the CPU twin of COPY computes it.
void write_row(uint r, T s)
{
    T alpha = param_t(SPMV_P_ALPHA), beta = param_t(SPMV_P_BETA);
    uint at = Y_OFF + r;
    precise T v = alpha * s;
    if (beta != T_ZERO)
        v = v + beta * y[at];
    y[at] = v;
}

uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

#include "spmv/row_ptr.glsl"

// The product of entry k (CSR or COO order): value times x at its clamped column.
T product(uint k) { return val[VAL_OFF + k] * x[X_OFF + min(idx[IDX_OFF + k], COLS - 1u)]; }

// ------------------------------------------------------------------ classic (Kiciak)

// One step of the pairwise sums of every row at once, invocation = (row, j) with
// j < t/2: the row's products at j and j + ceil(t/2) are added, where the second
// exists both in the row and among the t still to be summed. After the steps for
// t = lmax, ceil(lmax/2), ..., 2, each row's sum is at its first product.
void stage_sums(uint iid)
{
    uint t = K, p = t / 2u, j = iid % p, row = iid / p;
    if (row >= ROWS)
        return;
    uint k = j + t - p, base = rp(row);
    if (k < aux[AUX_OFF + row] && k < t && base + k < NNZ)
        work[WORK_OFF + base + j] += work[WORK_OFF + base + k];
}

// ------------------------------------------------------------ one row per invocation

T csr_row(uint i)
{
    uint b = rp(i), e = max(b, rp(i + 1u));
    T s = T_ZERO;
    for (uint k = b; k < e; k++)
        s += product(k);
    return s;
}

// ELL: entry k of row i at k*ROWS + i; a row's padding (column ~0) ends it.
T ell_row(uint i)
{
    T s = T_ZERO;
    for (uint k = 0u; k < K; k++) {
        uint e = k * ROWS + i, c = idx[IDX_OFF + e];
        if (c >= COLS)
            break;
        s += val[VAL_OFF + e] * x[X_OFF + c];
    }
    return s;
}

// SELL: sorted row i is row i % C of slice i / C, whose width is its entries over C.
void sell_row(uint i)
{
    uint c = K, s = i / c, r = i % c;
    uint base = min(ptr[PTR_OFF + s], NNZ), end = max(base, min(ptr[PTR_OFF + s + 1u], NNZ));
    uint width = (end - base) / c;
    T sum = T_ZERO;
    for (uint k = 0u; k < width; k++) {
        uint e = base + k * c + r, col = idx[IDX_OFF + e];
        if (col >= COLS)
            break; // padding: the row has ended
        sum += val[VAL_OFF + e] * x[X_OFF + col];
    }
    write_row(min(aux[AUX_OFF + i], ROWS - 1u), sum);
}

// BSR: scalar row i is row i % b of block row i / b; each block is b x b, row-major.
T bsr_row(uint i)
{
    uint b = K, br = i / b, rr = i % b;
    uint k0 = min(ptr[PTR_OFF + br], NNZ), k1 = max(k0, min(ptr[PTR_OFF + br + 1u], NNZ));
    T s = T_ZERO;
    for (uint k = k0; k < k1; k++) {
        uint col0 = idx[IDX_OFF + k] * b, at = VAL_OFF + (k * b + rr) * b;
        for (uint cc = 0u; cc < b; cc++)
            if (col0 + cc < COLS)
                s += val[at + cc] * x[X_OFF + col0 + cc];
    }
    return s;
}

// CSC without float atomics: Radomski's per-column loop stores its products, and each
// row gathers its own through perm (the CSC position of each entry in row order, ptr
// holding the row pointers) in a second stage: no two invocations write one element.
void csc_products(uint j)
{
    uint b = rp(j), e = max(b, rp(j + 1u));
    T xj = x[X_OFF + j];
    for (uint k = b; k < e; k++)
        work[WORK_OFF + k] = val[VAL_OFF + k] * xj;
}

T csc_gather(uint i)
{
    uint b = rp(i), e = max(b, rp(i + 1u));
    T s = T_ZERO;
    for (uint k = b; k < e; k++)
        s += work[WORK_OFF + min(idx[IDX_OFF + k], NNZ - 1u)];
    return s;
}

// --------------------------------------------------------------------- CSR vector

// Mossaiby's kernel: ITEMS invocations per row (a power of two), WG_SIZE/ITEMS rows per
// group; lane l sums entries l, l + ITEMS, ... of its row, then the lanes' sums are added,
// by one subgroup operation when a row is exactly one subgroup, else by a shared tree.
T vector_lane(uint row, uint lane)
{
    uint b = rp(row), e = max(b, rp(row + 1u));
    T s = T_ZERO;
    for (uint k = b + lane; k < e; k += ITEMS)
        s += product(k);
    return s;
}

void stage_vector()
{
    uint rows_per_group = WG_SIZE / ITEMS, first = group_index() * rows_per_group;
#ifdef SUBGROUPS
    if (gl_SubgroupSize == ITEMS) { // uniform: the same for every invocation
        uint row = first + gl_SubgroupID;
        T s = subgroupAdd(row < ROWS ? vector_lane(row, gl_SubgroupInvocationID) : T_ZERO);
        if (row < ROWS && subgroupElect())
            write_row(row, s);
        return;
    }
#endif
    uint lid = gl_LocalInvocationID.x, lane = lid % ITEMS, row = first + lid / ITEMS;
    s_reduce[lid] = row < ROWS ? vector_lane(row, lane) : T_ZERO;
    SYNC();
    for (uint o = ITEMS / 2u; o > 0u; o >>= 1) {
        if (lane < o)
            s_reduce[lid] += s_reduce[lid + o];
        SYNC();
    }
    if (lane == 0u && row < ROWS)
        write_row(row, s_reduce[lid]);
}

// ------------------------------------------------------------ balanced (CSR and COO)

// Tile g holds entries [g*TILE, (g+1)*TILE) whatever the rows; invocation l of it the
// ITEMS consecutive entries from l*ITEMS (its chunk). Each invocation sums its entries
// row by row: a row that starts and ends in its chunk is written at once; the sum of
// the row it ends in, if that row began before the chunk, waits for the sums of the
// chunks before it (its "head"), and the row open at the chunk's end is its "tail".
// A segmented scan over the chunks' tails (flag: a row began in the chunk) gives every
// head what came before it in the tile. A row that crosses a tile boundary leaves its
// partial sums in the tile records (aux: the row open at the tile's end, or ~0, and
// whether it began in the tile; work: that row's partial sum, and the head partial of
// the row the tile began inside), and TILE_FIX adds them in tile order. No float
// atomics: the order of every addition is fixed, so results repeat exactly.

shared uint s_flag[WG_SIZE];
shared uint s_rows[2];

// Segmented scan of (flag, sum) over the work-group: a set flag starts a segment. Every
// invocation must call it (barriers); afterwards flag and sum are the invocation's
// inclusive values and ex_flag, ex_sum those of the invocation before it (0 for the first).
// With subgroups: a segmented Hillis-Steele scan in registers by shuffles within each
// subgroup, then each subgroup takes the carry of the subgroups before it from their totals
// in shared memory (one barrier). Without: Hillis-Steele through shared memory (two
// barriers per step). Additions keep the order of the entries either way: results repeat
// exactly on a device, though the two paths may round differently.
void segmented_scan(uint lid, inout uint flag, inout T sum, out uint ex_flag, out T ex_sum)
{
#ifdef SUBGROUPS
    uint lane = gl_SubgroupInvocationID;
    for (uint d = 1u; d < gl_SubgroupSize; d <<= 1) {
        uint pf = subgroupShuffleUp(flag, d);
        T pv = subgroupShuffleUp(sum, d);
        if (lane >= d) {
            if (flag == 0u)
                sum = pv + sum;
            flag |= pf;
        }
    }
    if (lane == gl_SubgroupSize - 1u) {
        s_flag[gl_SubgroupID] = flag;
        s_reduce[gl_SubgroupID] = sum;
    }
    SYNC();
    uint cf = 0u; // the carry into this subgroup: its predecessors' totals back to a flag
    T cv = T_ZERO;
    for (uint g = gl_SubgroupID; g > 0u && cf == 0u; g--) {
        cv = s_reduce[g - 1u] + cv;
        cf = s_flag[g - 1u];
    }
    if (flag == 0u)
        sum = cv + sum;
    flag |= cf;
    ex_flag = subgroupShuffleUp(flag, 1u);
    ex_sum = subgroupShuffleUp(sum, 1u);
    if (lane == 0u) {
        ex_flag = cf;
        ex_sum = cv;
    }
#else
    s_flag[lid] = flag;
    s_reduce[lid] = sum;
    SYNC();
    for (uint d = 1u; d < WG_SIZE; d <<= 1) {
        uint pf = 0u;
        T pv = T_ZERO;
        if (lid >= d) {
            pf = s_flag[lid - d];
            pv = s_reduce[lid - d];
        }
        SYNC();
        if (lid >= d) {
            if (flag == 0u)
                sum = pv + sum;
            flag |= pf;
            s_flag[lid] = flag;
            s_reduce[lid] = sum;
        }
        SYNC();
    }
    ex_flag = lid > 0u ? s_flag[lid - 1u] : 0u;
    ex_sum = lid > 0u ? s_reduce[lid - 1u] : T_ZERO;
#endif
}

#include "spmv/row_search.glsl"

// COO: the row array is bound where CSR has its row pointers.
uint coo_row(uint e) { return min(ptr[PTR_OFF + e], ROWS - 1u); }

// The first row, counting back from r (which holds entry c0), that is empty and sits at
// position c0: those rows belong to the chunk that begins at c0.
uint csr_empty_before(uint r, uint c0)
{
    if (rp(r) != c0)
        return r;
    while (r > 0u && rp(r - 1u) == c0)
        r--;
    return r;
}

void stage_tiles(bool coo)
{
    const uint tile = WG_SIZE * ITEMS;
    uint g = group_index(), lid = gl_LocalInvocationID.x;
    uint t0 = g * tile, t1 = min(t0 + tile, NNZ);
    if (!coo) { // the tile's rows bound every chunk's search
        if (lid == 0u)
            s_rows[0] = row_search(t0, 0u, ROWS - 1u);
        if (lid == WG_SIZE - 1u)
            s_rows[1] = row_search(t1 - 1u, 0u, ROWS - 1u);
        SYNC();
    }
    uint c0 = min(t0 + lid * ITEMS, t1), c1 = min(c0 + ITEMS, t1);
    uint flag = 0u, r = 0u, head_row = 0u;
    T sum = T_ZERO, head_sum = T_ZERO;
    bool has_head = false, open_tail = false;
    if (c0 < c1) {
        r = coo ? coo_row(c0) : row_search(c0, s_rows[0], s_rows[1]);
        uint empty = coo ? (c0 == 0u ? 0u : min(coo_row(c0 - 1u) + 1u, r)) : csr_empty_before(r, c0);
        for (uint e = empty; e < r; e++)
            write_row(e, T_ZERO);
        bool before = coo ? c0 > 0u && coo_row(c0 - 1u) == r : rp(r) < c0;
        uint next = coo ? 0u : rp(r + 1u); // CSR: where row r ends
        for (uint e = c0; e < c1; e++) {
            uint re = r;
            if (coo) {
                re = max(coo_row(e), r);
            } else {
                while (re + 1u < ROWS && next <= e)
                    next = rp(++re + 1u);
            }
            if (re != r) { // row r ended before e
                if (before) {
                    has_head = true;
                    head_row = r;
                    head_sum = sum;
                } else {
                    write_row(r, sum);
                }
                for (uint x = r + 1u; x < re; x++)
                    write_row(x, T_ZERO);
                r = re;
                sum = T_ZERO;
                before = false;
            }
            sum += product(e);
        }
        bool ends = coo ? c1 >= NNZ || coo_row(c1) != r : next <= c1;
        if (ends) {
            if (before) {
                has_head = true;
                head_row = r;
                head_sum = sum;
            } else {
                write_row(r, sum);
            }
            sum = T_ZERO;
            if (c1 == NNZ) // the empty rows after the last entry
                for (uint x = r + 1u; x < ROWS; x++)
                    write_row(x, T_ZERO);
        }
        open_tail = !ends;
        flag = ends || !before ? 1u : 0u;
    }
    // A segment begins at each chunk where a row began.
    uint ef;
    T ev;
    segmented_scan(lid, flag, sum, ef, ev);
    if (has_head) {
        if (ef != 0u)
            write_row(head_row, ev + head_sum);
        else // the row began in an earlier tile
            work[WORK_OFF + 2u * g + 1u] = ev + head_sum;
    }
    if (c0 < c1 && c1 == t1) { // the tile's last chunk writes its record
        aux[AUX_OFF + 2u * g] = open_tail ? r : 0xffffffffu;
        aux[AUX_OFF + 2u * g + 1u] = flag;
        work[WORK_OFF + 2u * g] = sum;
    }
}

// A tile g works only if its last row began in it and goes on. The row's partials of the
// tiles after g: tile h belongs to the row's run while tile h - 1 still has the row open
// at its end, and gives its whole partial if the row is open at its own end too, else its
// head. With subgroups a subgroup takes a tile (lanes read every sg-th tile of the run,
// TILE_FIX_UNROLL at a time), else a work-group; either strides over the tiles, so that
// the launch need not be one group per tile (most tiles have nothing to do). A row of 10^7
// nonzeros (~10^4 tiles) is ~40 rounds of loads either way.
#define TILE_FIX_UNROLL 8u

// The run's sum from tile g + 1 + first, every `stride`-th tile, for row r.
T tile_run(uint g, uint r, uint first, uint stride)
{
    uint tiles = K;
    T s = T_ZERO;
    for (uint h0 = g + 1u + first; h0 < tiles; h0 += stride * TILE_FIX_UNROLL) {
        bool more = true;
        UNROLL for (uint u = 0u; u < TILE_FIX_UNROLL; u++) {
            uint h = h0 + u * stride;
            if (more && h < tiles && aux[AUX_OFF + 2u * (h - 1u)] == r)
                s += work[WORK_OFF + 2u * h + (aux[AUX_OFF + 2u * h] == r ? 0u : 1u)];
            else
                more = false; // past the row's run, as every later h of this invocation
        }
        if (!more)
            break;
    }
    return s;
}

void stage_tile_fix()
{
    uint tiles = K, groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
#ifdef SUBGROUPS
    for (uint g = group_index() * gl_NumSubgroups + gl_SubgroupID; g < tiles;
         g += groups * gl_NumSubgroups) { // uniform in the subgroup
        uint r = aux[AUX_OFF + 2u * g];
        if (r == 0xffffffffu || aux[AUX_OFF + 2u * g + 1u] == 0u)
            continue;
        T s = subgroupAdd(tile_run(g, r, gl_SubgroupInvocationID, gl_SubgroupSize));
        if (subgroupElect())
            write_row(min(r, ROWS - 1u), work[WORK_OFF + 2u * g] + s);
    }
#else
    uint lid = gl_LocalInvocationID.x;
    for (uint g = group_index(); g < tiles; g += groups) { // uniform in the group
        uint r = aux[AUX_OFF + 2u * g];
        if (r == 0xffffffffu || aux[AUX_OFF + 2u * g + 1u] == 0u)
            continue;
        T s = wg_reduce(tile_run(g, r, lid, WG_SIZE));
        if (lid == 0u)
            write_row(min(r, ROWS - 1u), work[WORK_OFF + 2u * g] + s);
    }
#endif
}

// ------------------------------------------------------- merge path (CSR, balanced)

// Merrill and Garland's merge-based CSR product: the merge of the row ends rp(1..ROWS)
// with the entry indices 0..NNZ-1 is a path of ROWS + NNZ steps, each either "take
// entry j into row i" (while j < rp(i + 1)) or "end row i". Cutting the path into tiles
// of nearly equal length bounds the work of a tile by rows and entries together, so a
// million empty rows cost no more than a million entries, and a row of any length is
// spread over as many tiles as it needs. The cuts move back to the start of a row where
// that is near (plan_write), so that short rows never cross tiles, and are kept with the
// matrix (its structure does not change between products: one search per matrix, not one
// per product). The tile's row ends and products are loaded coalesced into
// shared memory; each invocation finds its ITEMS steps there by a binary search and walks
// them. Rows crossing tiles leave the same records as stage_tiles, for TILE_FIX:
// aux[2g] the row open at the tile's end (it has steps in the tile and ends after it)
// or ~0, aux[2g + 1] whether its first step is in the tile, work[2g] its partial sum,
// work[2g + 1] the partial of the row the tile began inside, where it ends in the tile.

// Whether row m ends before step d of the path, i.e. among its first d steps (m < d).
bool ends_before(uint m, uint d) { return rp(m + 1u) <= d - m - 1u; }

// The plan: tile t of the path begins with rows i (ended before it) and entries j (taken)
// at aux[PLAN_OFF + 2t], aux[PLAN_OFF + 2t + 1], t <= K; the tile records come first.
#define PLAN_OFF (AUX_OFF + 2u * K)

// The tile start near step d = t * PATH_STEP: the start of the row being walked at d when
// that is at most PATH_SLACK steps back, else d itself (inside a row longer than that).
// So rows of up to PATH_SLACK entries never cross a tile, and a tile holds at most
// PATH_STEP + PATH_SLACK steps (the caller makes that the tile's capacity).
void plan_write(uint t, uint i, uint d)
{
    uint j = d - i; // entries taken at d: rp(i) <= j <= rp(i + 1)
    if (i < ROWS && j - min(rp(i), j) <= PATH_SLACK)
        j = min(rp(i), j);
    aux[PLAN_OFF + 2u * t] = i;
    aux[PLAN_OFF + 2u * t + 1u] = j;
}

// PATH_SEARCH: the rows ended before step d = t * PATH_STEP of the path (or its end), for
// t <= K, then plan_write. Rows ending before d are a prefix of the rows. With subgroups,
// a subgroup finds one t: its lanes probe evenly spaced rows at once and a ballot counts
// those that end before d, so the range shrinks by the subgroup's size per dependent load
// (5 loads for 2^24 rows instead of 24).
void stage_path_search()
{
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
#ifdef SUBGROUPS
    uint sg = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
    for (uint t = group_index() * gl_NumSubgroups + gl_SubgroupID; t <= K;
         t += groups * gl_NumSubgroups) { // uniform in the subgroup, as lo and hi
        uint d = min(t * PATH_STEP, ROWS + NNZ);
        uint lo = d > NNZ ? d - NNZ : 0u, hi = min(d, ROWS);
        while (lo < hi) { // the first row not ending before d is in (p_{c-1}, p_c]
            uint step = (hi - lo + sg - 1u) / sg, p = lo + lane * step;
            uint c = subgroupBallotBitCount(subgroupBallot(p < hi && ends_before(p, d)));
            uint next_lo = c > 0u ? lo + (c - 1u) * step + 1u : lo;
            hi = min(hi, lo + c * step);
            lo = next_lo;
        }
        if (subgroupElect())
            plan_write(t, lo, d);
    }
#else
    for (uint t = invocation_index(); t <= K; t += groups * WG_SIZE) {
        uint d = min(t * PATH_STEP, ROWS + NNZ);
        uint lo = d > NNZ ? d - NNZ : 0u, hi = min(d, ROWS);
        while (lo < hi) {
            uint mid = (lo + hi) / 2u;
            if (ends_before(mid, d))
                lo = mid + 1u;
            else
                hi = mid;
        }
        plan_write(t, lo, d);
    }
#endif
}

// Sized in the merge program only; the others keep one element. A work-group takes
// MERGE_TILES consecutive tiles (SPMV_SHAPE_MERGE_TILES) and walks them one after another through the same
// shared arrays (stage_merge).
const uint MERGE_TILE = ONLY_STAGE == SPMV_STAGE_CSR_MERGE ? WG_SIZE * ITEMS : 1u;
const uint MERGE_TILES = ONLY_STAGE == SPMV_STAGE_CSR_MERGE && SPMV_SHAPE_MERGE_TILES > 1u
                             ? SPMV_SHAPE_MERGE_TILES
                             : 1u;
shared uint s_end[MERGE_TILE + 1u]; // rp(i + 1) of the tile's rows i0 .. i1
shared T s_val[MERGE_TILE];         // the products of its entries j0 .. j1 - 1

// Where tile g takes rows i0 .. i1 and entries j0 .. j1, from the plan, clamped so that
// every index stays in range whatever the arrays hold: rows = i1 - i0, ents the entries
// held in the tile's shared arrays.
struct merge_tile { uint g, i0, i1, j0, j1, rows, ents; };

merge_tile merge_bounds(uint g)
{
    merge_tile m;
    m.g = g;
    m.i0 = min(aux[PLAN_OFF + 2u * g], ROWS);
    m.j0 = min(aux[PLAN_OFF + 2u * g + 1u], NNZ);
    m.i1 = clamp(aux[PLAN_OFF + 2u * g + 2u], m.i0, min(ROWS, m.i0 + MERGE_TILE));
    m.j1 = clamp(aux[PLAN_OFF + 2u * g + 3u], m.j0, NNZ);
    m.rows = m.i1 - m.i0;
    m.ents = min(m.j1 - m.j0, MERGE_TILE - m.rows);
    return m;
}

// The row end that tile m keeps at s_end[k], k <= rows: rp(i0 + k + 1), or NNZ past the
// last row.
uint merge_end(merge_tile m, uint k) { return m.i0 + k < ROWS ? rp(m.i0 + k + 1u) : NNZ; }

// The steps of tile m, its row ends and products already in s_end and s_val.
void merge_walk(merge_tile m, uint lid)
{
    uint i0 = m.i0, j0 = m.j0, rows = m.rows, ents = m.ents;
    // This invocation's steps: from local step s0, at most ITEMS, within the tile.
    uint s0 = min(lid * ITEMS, rows + ents), s1 = min(s0 + ITEMS, rows + ents);
    uint lo = s0 > ents ? s0 - ents : 0u, hi = min(s0, rows);
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (s_end[mid] <= j0 + s0 - mid - 1u)
            lo = mid + 1u;
        else
            hi = mid;
    }
    uint ri = lo, j = j0 + s0 - lo, end = s_end[ri];
    bool emitted = false;
    uint first_row = 0u;
    T sum = T_ZERO, first_sum = T_ZERO;
    UNROLL for (uint s = 0u; s < ITEMS; s++) {
        if (s0 + s < s1) {
            if (j < end) {
                sum += s_val[min(j - j0, MERGE_TILE - 1u)];
                j++;
            } else if (ri < rows) { // row i0 + ri ends here
                if (emitted) {
                    write_row(i0 + ri, sum);
                } else {
                    emitted = true;
                    first_row = i0 + ri;
                    first_sum = sum;
                }
                sum = T_ZERO;
                end = s_end[++ri];
            }
        }
    }

    // A segment begins at each invocation that ended a row: a first emitted row gets the
    // partial sums of the invocations before it since the last that ended one.
    uint flag = emitted ? 1u : 0u, ex_flag;
    T ex_sum;
    segmented_scan(lid, flag, sum, ex_flag, ex_sum);
    if (emitted) {
        T s = ex_sum + first_sum;
        if (first_row == i0 && rp(i0) < j0) // began in an earlier tile: its head
            work[WORK_OFF + 2u * m.g + 1u] = s;
        else
            write_row(first_row, s);
    }
    if (lid == WG_SIZE - 1u) { // the row open at the tile's end, if it has steps here
        bool open = m.i1 < ROWS && rp(m.i1) < m.j1;
        aux[AUX_OFF + 2u * m.g] = open ? m.i1 : 0xffffffffu;
        aux[AUX_OFF + 2u * m.g + 1u] = open && (m.i1 > i0 || rp(i0) >= j0) ? 1u : 0u;
        work[WORK_OFF + 2u * m.g] = sum;
    }
}

void stage_merge()
{
    if (ONLY_STAGE != SPMV_STAGE_CSR_MERGE)
        return; // no room in a program shared with the other stages
    uint lid = gl_LocalInvocationID.x, tiles = K, first = group_index() * MERGE_TILES;
#ifndef VULKAN
    // GL: each tile loaded straight into shared memory. NVIDIA's GL compiler (580.159)
    // gave the pipeline's registers of doubles single precision (f64 products off by
    // 1e-8 relative, found by the checks on the H100); Vulkan's SPIR-V is exact.
    for (uint t = 0u; t < MERGE_TILES && first + t < tiles; t++) { // uniform
        merge_tile g = merge_bounds(first + t);
        if (t > 0u)
            SYNC(); // the walk of the tile before is done with the shared arrays
        UNROLL for (uint i = 0u; i <= ITEMS; i++) {
            uint k = lid + i * WG_SIZE;
            if (k <= g.rows)
                s_end[k] = merge_end(g, k);
        }
        UNROLL for (uint i = 0u; i < ITEMS; i++) {
            uint k = lid + i * WG_SIZE;
            if (k < g.ents)
                s_val[k] = product(g.j0 + k);
        }
        SYNC();
        merge_walk(g, lid);
    }
#else
    // A software pipeline over the group's tiles, unrolled so that every array index is a
    // constant (registers): at step s the plan of tile s is read, the row ends, columns
    // and values of tile s - 1 (which need its plan), the x of tile s - 2 (which need its
    // columns), and tile s - 3 is walked. So each dependent load has a walk to arrive in,
    // and the group keeps loads in flight while it walks instead of waiting for a chain
    // of three. The loads have constant trip counts (a loop over k < ents would wait for
    // each column before its x).
    merge_tile m[MERGE_TILES];
    uint ends[MERGE_TILES * (ITEMS + 1u)], cols[MERGE_TILES * ITEMS];
    T vals[MERGE_TILES * ITEMS], xs[MERGE_TILES * ITEMS];
    UNROLL for (uint s = 0u; s < MERGE_TILES + 3u; s++) {
        if (s < MERGE_TILES)
            m[s] = merge_bounds(min(first + s, tiles - 1u));
        if (s >= 1u && s - 1u < MERGE_TILES) {
            uint t = s - 1u;
            UNROLL for (uint i = 0u; i <= ITEMS; i++) {
                uint k = lid + i * WG_SIZE;
                ends[t * (ITEMS + 1u) + i] = k <= m[t].rows ? merge_end(m[t], k) : 0u;
            }
            UNROLL for (uint i = 0u; i < ITEMS; i++) {
                uint k = lid + i * WG_SIZE, e = VAL_OFF + m[t].j0 + k;
                bool held = k < m[t].ents;
                cols[t * ITEMS + i] = held ? min(idx[IDX_OFF + m[t].j0 + k], COLS - 1u) : 0u;
                vals[t * ITEMS + i] = held ? val[e] : T_ZERO;
            }
        }
        if (s >= 2u && s - 2u < MERGE_TILES) {
            uint t = s - 2u;
            UNROLL for (uint i = 0u; i < ITEMS; i++)
                xs[t * ITEMS + i] = lid + i * WG_SIZE < m[t].ents ? x[X_OFF + cols[t * ITEMS + i]]
                                                                  : T_ZERO;
        }
        if (s >= 3u && first + s - 3u < tiles) { // uniform: the last group may hold fewer
            uint t = s - 3u;
            if (t > 0u)
                SYNC(); // the walk of the tile before is done with the shared arrays
            UNROLL for (uint i = 0u; i <= ITEMS; i++) {
                uint k = lid + i * WG_SIZE;
                if (k <= m[t].rows)
                    s_end[k] = ends[t * (ITEMS + 1u) + i];
            }
            UNROLL for (uint i = 0u; i < ITEMS; i++) {
                uint k = lid + i * WG_SIZE;
                if (k < m[t].ents)
                    s_val[k] = vals[t * ITEMS + i] * xs[t * ITEMS + i];
            }
            SYNC();
            merge_walk(m[t], lid);
        }
    }
#endif
}

void main()
{
    uint iid = invocation_index();
    switch (STAGE) {
    case SPMV_STAGE_LENGTHS:
        if (iid < ROWS)
            aux[AUX_OFF + iid] = max(rp(iid), rp(iid + 1u)) - rp(iid);
        return;
    case SPMV_STAGE_MAX: {
        uint t = K, j = iid + (t + 1u) / 2u;
        if (j < t && aux[AUX_OFF + j] > aux[AUX_OFF + iid])
            aux[AUX_OFF + iid] = aux[AUX_OFF + j];
        return;
    }
    case SPMV_STAGE_PRODUCTS:
        if (iid < NNZ)
            work[WORK_OFF + iid] = product(iid);
        return;
    case SPMV_STAGE_SUMS:
        stage_sums(iid);
        return;
    case SPMV_STAGE_COPY:
        if (iid < ROWS)
            write_row(iid, aux[AUX_OFF + iid] > 0u ? work[WORK_OFF + rp(iid)] : T_ZERO);
        return;
    case SPMV_STAGE_SCALE:
        if (iid < ROWS)
            write_row(iid, T_ZERO);
        return;
    case SPMV_STAGE_CSR_SCALAR:
        if (iid < ROWS)
            write_row(iid, csr_row(iid));
        return;
    case SPMV_STAGE_CSR_VECTOR:
        stage_vector();
        return;
    case SPMV_STAGE_CSR_TILES:
        stage_tiles(false);
        return;
    case SPMV_STAGE_COO_TILES:
        stage_tiles(true);
        return;
    case SPMV_STAGE_TILE_FIX:
        stage_tile_fix();
        return;
    case SPMV_STAGE_ELL:
        if (iid < ROWS)
            write_row(iid, ell_row(iid));
        return;
    case SPMV_STAGE_SELL:
        if (iid < ROWS)
            sell_row(iid);
        return;
    case SPMV_STAGE_BSR:
        if (iid < ROWS)
            write_row(iid, bsr_row(iid));
        return;
    case SPMV_STAGE_CSC_PRODUCTS:
        if (iid < COLS)
            csc_products(iid);
        return;
    case SPMV_STAGE_CSC_GATHER:
        if (iid < ROWS)
            write_row(iid, csc_gather(iid));
        return;
    case SPMV_STAGE_PATH_SEARCH:
        stage_path_search();
        return;
    case SPMV_STAGE_CSR_MERGE:
        stage_merge();
        return;
    default:
        return;
    }
}
