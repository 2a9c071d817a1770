// spgemm.comp: sparse x sparse products C = A * B (CSR).
// variants: TYPE=F32,F64
//
// Stages (STAGE = params[0], numbered in src/algo/ids/spgemm_ids.h); src/algo/spgemm.h says
// exactly what each does. Its parts, in glsl/spgemm/:
//  CLASSIC_COUNT .. CLASSIC_ROW_PTRS  Kiciak's classic product, one stage (or one step of
//                   one) per dispatch (classic.glsl)
//  NNZ_PRODUCTS     apos[k] = |B row col_A[k]| (then an exclusive scan: each nonzero's first
//                   product within the whole expansion, modulo 2^32) (bins.glsl)
//  ROW_BINS         per row: its products, its bin (by products), bin counts, total products
//  BIN_FILL         the rows' records listed bin by bin; the long rows with their products
//  ROWS             the rows of one bin, TILE / CAP rows per work-group, each row's products
//                   sorted by column in shared memory: counted (symbolic) or summed into C
//                   (rows.glsl)
//  ROWS_RANK        ROWS for short rows: WG_SIZE / ROW_W rows per work-group, each product
//                   ranked among its row's others: counted or summed into C (rank.glsl)
//  ROWS_COMPACT     one phase: each shared row's entries from the temporary into C
//  ESC_NZ           per chunk row: its nonzeros of A (then scanned: ESC_EXPAND's walk)
//                   (esc.glsl)
//  ESC_EXPAND       a chunk of long rows expanded into (column, value) in global memory
//  ESC_FLAGS        after the sort (rows, then columns): 1 where a run of one column starts
//  ESC_COUNT        per long row: its entries of C (symbolic)
//  ESC_WRITE        per run: C's column and the run's sum (numeric)
//  ZERO_FLAGS, ZERO_PTRS, ZERO_COMPACT: C without its exact zeros (zeros.glsl)
// The transpose that SpGEMM's callers use is glsl/transpose.comp.
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

#define ROWS   params[SPGEMM_P_ROWS]
#define NNZ_A  params[SPGEMM_P_NNZ_A]
#define A_PTR  params[SPGEMM_P_A_PTR]
#define A_IDX  params[SPGEMM_P_A_IDX]
#define A_VAL  params[SPGEMM_P_A_VAL]
#define B_PTR  params[SPGEMM_P_B_PTR]
#define B_IDX  params[SPGEMM_P_B_IDX]
#define B_VAL  params[SPGEMM_P_B_VAL]
// classic
#define PRODUCTS params[SPGEMM_P_PRODUCTS]
#define TABLGT   params[SPGEMM_P_TABLGT]
#define NNZ_C    params[SPGEMM_P_NNZ_C]
#define STEP_T   params[SPGEMM_P_STEP_T] /* prN of a max or sum step; h of a sort step */
#define NN       params[SPGEMM_P_NN]     /* the padded run of the sort */
#define REVERSE  params[SPGEMM_P_REVERSE]
#define C_IDX    params[SPGEMM_P_C_IDX]  /* where C's columns start in its ints */
// fast (the same slots, other names)
#define COUNT    params[SPGEMM_P_COUNT]  /* rows of the bin, products of the chunk, entries */
#define CAP      (params[SPGEMM_P_CAP] & 0xffffu) /* ROWS: shared slots per row (a power of
                                                  * two) */
#define ROW_W    (params[SPGEMM_P_CAP] >> 16u)    /* ROWS_RANK: slots a row takes (<= CAP,
                                                  * >= 32) */
#define LIST_OFF params[SPGEMM_P_LIST_OFF] /* ROWS: this bin's first row in the list; ESC: the
                                            * chunk's rows */
#define APOS_OFF params[SPGEMM_P_APOS_OFF]
#define NUMERIC  params[SPGEMM_P_NUMERIC] /* ROWS: SPGEMM_SYMBOLIC, _NUMERIC, _ONE_PHASE
                                           * (ROWS_RANK also _ONE_PHASE_ORDERED); ESC_EXPAND:
                                           * SPGEMM_ESC_* */
#define COMPACT_SHIFT params[SPGEMM_P_COMPACT_SHIFT] /* ROWS_COMPACT: log2 of the invocations
                                                      * a row takes */
#define RPTR_OFF params[SPGEMM_P_RPTR_OFF] /* per-row counts, then C's row pointers (exclusive
                                            * scan) */
// ROWS and ROWS_RANK (NUMERIC): counts only; C's entries at its row pointers (after the
// counts' scan); or both at once, the entries at the row's first product in a temporary
// (products-sized, so no row needs another's count: ROWS_COMPACT moves them into C).
// ROWS_RANK's ONE_PHASE_ORDERED: the one phase over every row of A in row order, ROW_W
// slots a row, so that a group's rows are consecutive: their entries go to the temporary
// from the group's first product, one after another (ROWS_COMPACT then moves a group's
// entries as one run).

uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

#include "spgemm/search.glsl"

#define RA(I) ia[A_PTR + (I)]
#define CA(I) ia[A_IDX + (I)]
#define RB(I) ib[B_PTR + (I)]
#define CB(I) ib[B_IDX + (I)]

#include "spgemm/classic.glsl"
#include "spgemm/bins.glsl"
#include "spgemm/rows.glsl"
#include "spgemm/rank.glsl"
#include "spgemm/esc.glsl"
#include "spgemm/zeros.glsl"

void main()
{
    uint i = invocation_index();
    switch (STAGE) {
    case SPGEMM_STAGE_CLASSIC_COUNT: classic_count(i); break;
    case SPGEMM_STAGE_CLASSIC_EXPAND: classic_expand(i); break;
    case SPGEMM_STAGE_CLASSIC_ROW_STARTS: classic_row_starts(i); break;
    case SPGEMM_STAGE_CLASSIC_ROW_LENGTHS: if (i < ROWS) TAB2(i) = TAB1(i + 1u) - TAB1(i); break;
    case SPGEMM_STAGE_CLASSIC_ROW_MAX: max_step(i, TABLGT); break;
    case SPGEMM_STAGE_CLASSIC_SORT: classic_sort(i); break;
    case SPGEMM_STAGE_CLASSIC_FLAGS: classic_flags(i); break;
    case SPGEMM_STAGE_CLASSIC_COLUMNS: classic_columns(i); break;
    case SPGEMM_STAGE_CLASSIC_RUNS: classic_runs(i); break;
    case SPGEMM_STAGE_CLASSIC_RUN_MAX: max_step(i, 2u * TABLGT); break;
    case SPGEMM_STAGE_CLASSIC_SUMS: classic_sums(i); break;
    case SPGEMM_STAGE_CLASSIC_VALUES: classic_values(i); break;
    case SPGEMM_STAGE_CLASSIC_ROW_PTRS: classic_row_ptrs(i); break;
    case SPGEMM_STAGE_NNZ_PRODUCTS: nnz_products(); break;
    case SPGEMM_STAGE_ROW_BINS: row_bins(); break;
    case SPGEMM_STAGE_BIN_FILL: bin_fill(); break;
    case SPGEMM_STAGE_ROWS: rows_stage(gl_LocalInvocationID.x); break;
    case SPGEMM_STAGE_ESC_EXPAND:
        if (SPGEMM_SHAPE_WALK == 1u) esc_expand_walk(i); else esc_expand(i);
        break;
    case SPGEMM_STAGE_ESC_FLAGS: esc_flags(i); break;
    case SPGEMM_STAGE_ESC_COUNT: esc_count(i); break;
    case SPGEMM_STAGE_ESC_WRITE: esc_write(i); break;
    case SPGEMM_STAGE_ZERO_FLAGS: zero_flags(i); break;
    case SPGEMM_STAGE_ZERO_PTRS: zero_ptrs(i); break;
    case SPGEMM_STAGE_ZERO_COMPACT: zero_compact(i); break;
    case SPGEMM_STAGE_ROWS_RANK: rows_rank_stage(gl_LocalInvocationID.x); break;
    case SPGEMM_STAGE_ROWS_COMPACT: rows_compact(i); break;
    case SPGEMM_STAGE_ESC_NZ: esc_nz(i); break;
    default: break;
    }
}
