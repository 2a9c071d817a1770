/* Sparse x sparse products (C = A * B, CSR), one shader family
 * (glsl/spgemm.comp, its ids in src/algo/ids/spgemm_ids.h): Kiciak's 13 classic
 * stages (src/algo/spgemm_classic.c), the fast two-phase row product
 * (src/algo/spgemm.c), its global expand-sort-compress path for long rows
 * (src/algo/spgemm_esc.c) and its memory budget (src/algo/spgemm_budget.c); and
 * the GPU transpose (src/algo/transpose.c, glsl/transpose.comp). Stages can be
 * run alone for the tests; offsets and counts are in elements. */
#ifndef GPGPU_ALGO_SPGEMM_H
#define GPGPU_ALGO_SPGEMM_H

#include "algo/ids/spgemm_ids.h"
#include "algo/spmv.h"

/* The ids of glsl/spgemm.comp. */
enum { SPGEMM_STAGES(ALGO_ID) };
enum { SPGEMM_PARAMS(ALGO_ID) };
enum { SPGEMM_SHAPES(ALGO_SHAPE) };
enum { SPGEMM_CONSTS(ALGO_ID) };

/* ------------------------------------------------------------------ classic */

/* Everything the classic stages read and write. A (rows x inner) and B
 * (inner x cols) are CSR gpgpu_matrix objects of one type; the work arrays
 * are library buffers, u32 except prod (of the matrices' type):
 *   off[nnz(A) + 1]          stage 1's counts, then (after an in-place inclusive scan of
 *                            off[1..nnz(A)], Kiciak's iPrefixSum) each nonzero's first product
 *   pairs[2 * products]      pairi(t) = pairs[2t] (row i), pairj(t) = pairs[2t + 1] (column j)
 *   prod[products]           the product values a_ik * b_kj (then the partial sums)
 *   tab[3 * tablgt]          tab1(x) = tab[x], tab2(x) = tab[tablgt + x], tab3(x) = tab[2 * tablgt + x],
 *                            tablgt = max(products, rows) + 1
 *   c_ints[rows + 1 + nnz_c] C's row pointers, then its columns (as gpgpu_matrix_create lays
 *                            them out); c_vals[nnz_c] C's values.
 * `products` and `nnz_c` are filled in by the driver as it reads them back. */
typedef struct spgemm_classic {
    const gpgpu_matrix *a, *b;
    gpgpu_buffer *off, *pairs, *prod, *tab, *c_ints, *c_vals;
    size_t products, tablgt, nnz_c;
    gpgpu_progress_callback progress; /* gpgpu_spgemm_desc's: a line a step, or NULL */
    void *user_data;
    unsigned steps; /* dispatches reported so far */
} spgemm_classic;

/* One dispatch of a classic stage. `t` is the step's prN (ROW_MAX, RUN_MAX, SUMS) or the
 * bitonic block h (SORT), `nn` the padded run length of SORT (a power of two >= the
 * longest row's triples), `reverse` SORT's flag; other stages ignore them.
 *
 * The stages (SPGEMM_STAGE_CLASSIC_COUNT .. _ROW_PTRS, numbered as on Kiciak's slides):
 *  1 COUNT       invocations k < max(nnz(A), 1): k == 0 writes off[0] = 0; for k < nnz(A),
 *                off[k + 1] = row length in B of column col_A[k].
 *  2 EXPAND      t < products: p = the largest index with off[p] <= t (the nonzero of A),
 *                i = the largest row with row_ptr_A[i] <= p, q = row_ptr_B[col_A[p]] + t - off[p]:
 *                pairi(t) = i, pairj(t) = col_B[q], prod[t] = val_A[p] * val_B[q].
 *  3 ROW_STARTS  i < rows: i == 0 writes tab1(0) = 0 and tab1(rows) = products; 0 < i < rows:
 *                tab1(i) = the first t with pairi(t) >= i (products if none).
 *  4 ROW_LENGTHS i < rows: tab2(i) = tab1(i + 1) - tab1(i).
 *  5 ROW_MAX     i with j = i + ceil(t/2) < t: tab2(i) = max(tab2(i), tab2(j)); after
 *                t = rows, ceil(rows/2), ..., 2: tab2(0) is the longest row's triples.
 *  6 SORT        invocation x < rows * nn/2: row r = x / (nn/2), pair np = x % (nn/2),
 *                h2 = h/2, l = np % h2, blk = np / h2, u = tab1(r) + blk*h + l,
 *                v = reverse ? tab1(r) + blk*h + h-1-l : u + h2; if v < tab1(r + 1) and
 *                pairj(u) > pairj(v): pairj and prod of u and v swap.
 *  7 FLAGS       t < products (run only when products > 0): t == 0 writes tab1(0) = 0,
 *                tab1(1) = 1; t > 0:
 *                tab1(t + 1) = (pairi(t), pairj(t)) != (pairi(t-1), pairj(t-1)).
 *                (Then an in-place inclusive scan of tab1(1..products): tab1(t) = the
 *                entry of C that triple t adds to, tab1(products) = nnz_c.)
 *  8 COLUMNS     t <= products: t == products writes tab2(nnz_c) = products; else if
 *                tab1(t + 1) > tab1(t): col_C[tab1(t)] = pairj(t), tab2(tab1(t)) = t.
 *  9 RUNS        e < nnz_c: tab3(e) = tab2(e + 1) - tab2(e).
 * 10 RUN_MAX     as ROW_MAX, on tab3.
 * 11 SUMS        invocation x < nnz_c * floor(t/2): p = floor(t/2), j = x % p, e = x / p,
 *                k = j + t - p; if k < tab3(e): prod[tab2(e) + j] += prod[tab2(e) + k].
 *                After t = longest run, ceil(t/2), ..., 2 each run's sum is at its start.
 * 12 VALUES      e < nnz_c: val_C[e] = prod[tab2(e)]; tab1(e) = pairi(tab2(e)).
 * 13 ROW_PTRS    i < rows: i == 0 writes row_ptr_C[0] = 0, row_ptr_C[rows] = nnz_c;
 *                0 < i < rows: row_ptr_C[i] = the first e with tab1(e) >= i (nnz_c if none).
 */
gpgpu_status spgemm_classic_stage(gpgpu_context *ctx, const spgemm_classic *s, unsigned stage,
                                  uint32_t t, uint32_t nn, bool reverse);

/* Kiciak's iPrefixSum (the classic scan's steps) in place on n u32 at element `off` of buf,
 * inclusive; what stages 1 and 7 are followed by. */
gpgpu_status spgemm_classic_scan(gpgpu_context *ctx, gpgpu_buffer *buf, size_t off, size_t n);

/* The whole classic product into a new matrix (*c NULL when it has no entries is never
 * returned: an empty C is a matrix with nnz 0); with `progress`, each step is waited for
 * and reported. */
gpgpu_status spgemm_run_classic(gpgpu_context *ctx, const gpgpu_matrix *a, const gpgpu_matrix *b,
                                gpgpu_matrix **c, gpgpu_spgemm_stats *stats,
                                gpgpu_progress_callback progress, void *user_data);

/* --------------------------------------------------- helpers shared by both */

enum {
    SPGEMM_WG = 256,
    SPGEMM_ROW_ITEMS = 8, /* the ROWS stage's largest tile: 2048 slots */
    SPGEMM_HEAD_ITEMS = 4, /* NNZ_PRODUCTS, ROW_BINS, BIN_FILL: indices per invocation */
    SPGEMM_WRITE_ITEMS = 8, /* ESC_WRITE: consecutive products per invocation (carried values) */
    SPGEMM_SPLIT_PRODUCTS = 1 << 22, /* default of the knob spgemm_esc_split */
    SPGEMM_SORT_PARTS = 256, /* the most parts a chunk's sort is split into */
    SPGEMM_WALK_GROUPS = 4096, /* ESC_EXPAND's walk over nonzeros: its most work-groups */
    SPGEMM_WALK_MIN = 32 /* the walk where A's nonzeros take this many products on average */
};

/* A matrix's arrays as the stages bind them: its row pointers and columns in one u32
 * buffer (as Kiciak keeps r and c), its values in another. A wrapped matrix whose two
 * arrays are separate buffers is copied into `merged` (owned) first. */
typedef struct spgemm_operand {
    const gpgpu_matrix *m;
    gpgpu_buffer *ints, *vals, *merged;
    uint32_t ptr, idx, val; /* offsets within the bindings */
} spgemm_operand;

gpgpu_status spgemm_operand_open(gpgpu_context *ctx, const gpgpu_matrix *m, spgemm_operand *op);
void spgemm_operand_close(spgemm_operand *op);

/* A dispatch of `stage` of glsl/spgemm.comp with A at bindings 0/1 and B at 2/3 (either
 * may be NULL) and their offsets and counts set. */
exec_dispatch spgemm_dispatch(gpgpu_type type, unsigned stage, unsigned wg, unsigned items,
                              const spgemm_operand *a, const spgemm_operand *b);

/* An empty rows x cols CSR matrix of `type` with room for nnz entries: row pointers and
 * columns in one u32 buffer (ptr at 0, idx at rows + 1), values in another. */
gpgpu_status spgemm_new_matrix(gpgpu_context *ctx, gpgpu_type type, uint32_t rows,
                               uint32_t cols, size_t nnz, gpgpu_matrix **out);

/* ------------------------------------------------------------------ fast */

/* The aux header's words are the ids table's SPGEMM_H_* (and SPGEMM_BINS, _LONG_BIN,
 * _MIN_CAP, _RECORD, _HEADER). */
enum {
    SPGEMM_SHARED_MAX = SPGEMM_WG * SPGEMM_ROW_ITEMS, /* the longest row ROWS takes */
    /* bins of CAP up to this go through ROWS_RANK instead */
    SPGEMM_RANK_MAX = SPGEMM_MIN_CAP << (SPGEMM_RANK_BINS - 1)
};

/* How ROWS_RANK ranks a row's products, a program each (SPGEMM_SHAPE_RANK; the
 * tuning knob spgemm_rank): compare every product with all of the row's; search each of
 * the row's other runs for its column; merge the runs pairwise into column order (faster
 * than the other two on every product measured, docs/DECISIONS.md); or merge, except in
 * a work-group whose rows each span fewer columns than their slots (banded rows): there a
 * column mask per slot places every product without sorting. All four give C bit for bit
 * alike. */
typedef uint32_t spgemm_rank_program; /* SPGEMM_RANK_COMPARE .. _WINDOW (the ids table) */
/* The default: window on a bin whose every row ROW_BINS found to fit it (a bound from A's row
 * and how far B's rows reach), merge on the others. Window's check and fallback cost its
 * groups 5-6% where no row fits (laplace3d_7, docs/DECISIONS.md). */
enum { SPGEMM_RANK_AUTO = SPGEMM_RANK_WINDOW + 1 };

/* The GPU memory a product holds, counted against its budget as buffers come and go. */
typedef struct spgemm_memory {
    size_t budget, held, peak;
} spgemm_memory;

/* One fast product's state. aux (u32) holds the header, then
 *   apos[nnz(A) + 1] at apos_off: each nonzero's first product in the whole expansion
 *                    (modulo 2^32: differences within a row are exact),
 *   rptr[rows + 1] at rptr_off:  each row's count of entries of C, then (scanned) C's
 *                    row pointers,
 *   list[RECORD * rows] at list_off: the rows with products, bin by bin (in any order within
 *                    a bin), each a record of SPGEMM_RECORD words: the row, its first
 *                    nonzero of A, its nonzeros of A and its products (so that a row's
 *                    stage starts two dependent loads further on),
 *   pairs at pairs_off:          the long rows again, as (row, products) pairs. */
typedef struct spgemm_product {
    gpgpu_context *ctx;
    const gpgpu_spgemm_desc *desc;
    gpgpu_type type;
    spgemm_operand a, b;
    spgemm_memory mem;
    gpgpu_buffer *aux;
    size_t apos_off, rptr_off, list_off, pairs_off;
    uint32_t header[SPGEMM_HEADER]; /* read back after ROW_BINS and after the symbolic phase */
    uint32_t shared_max;            /* SPGEMM_SHARED_MAX, or 0: every row is long (ESC) */
    uint32_t *long_rows;            /* host copy of the (row, products) pairs */
    gpgpu_buffer *t_ints, *t_vals;  /* the one phase's temporary, while it is held */
    struct spgemm_chunk *kept;      /* the long rows' one chunk, kept from the symbolic phase
                                     * for the numeric (spgemm_esc.c: spgemm_long_rows) */
    gpgpu_matrix *c;
    gpgpu_spgemm_stats stats;
} spgemm_product;

/* Opens a product of a and b (checked by the caller): operands bound, aux allocated with
 * its header zeroed. Close frees everything but p->c. */
gpgpu_status spgemm_product_open(gpgpu_context *ctx, const gpgpu_spgemm_desc *desc,
                                 const gpgpu_matrix *a, const gpgpu_matrix *b,
                                 spgemm_product *p);
void spgemm_product_close(spgemm_product *p);

/* NNZ_PRODUCTS: apos[k] = |row col_A[k] of B| for k < nnz(A), apos[nnz(A)] = 0 (the driver
 * then scans apos exclusively); header B_LEFT / B_RIGHT = the most (k - first column) and
 * (last column - k) over B's nonempty rows k, + 2^31. */
gpgpu_status spgemm_stage_nnz_products(spgemm_product *p);
/* ROW_BINS: for each row i with p_i = apos[row_ptr[i+1]] - apos[row_ptr[i]] products:
 * rptr[i] = 0; if p_i > 0, header count[bin(p_i)] += 1, longest[bin(p_i)] = max(it, p_i)
 * and products (64-bit) += p_i, and for a ROWS_RANK bin window[bin] += 1 where the row has
 * at most 32 nonzeros of A and (last - first column of A's row) + B_LEFT + B_RIGHT (less
 * the biases) < p_i; rptr[rows] = 0. bin(p) = LONG_BIN past shared_max, else
 * the smallest b with p <= 32 << b. */
gpgpu_status spgemm_stage_row_bins(spgemm_product *p);
/* BIN_FILL (after ROW_BINS): each row with products gets a slot in its bin's part of the
 * list (bins in order, sized by the counts), its record (row, row_ptr[i], its nonzeros of
 * A, p_i); long rows also as (row, p_i) pairs. */
gpgpu_status spgemm_stage_bin_fill(spgemm_product *p);
/* What ROWS and ROWS_RANK write for each row r of their bin (SPGEMM_P_NUMERIC):
 * SPGEMM_SYMBOLIC, _NUMERIC, _ONE_PHASE (entries in p->t_ints / t_vals), or
 * _ONE_PHASE_ORDERED (spgemm_stage_rows_ordered); the ids table says each. */
typedef uint32_t spgemm_rows_mode;

/* ROWS on bin b (< LONG_BIN) of `count` rows starting at list position `start`. */
gpgpu_status spgemm_stage_rows(spgemm_product *p, unsigned bin, uint32_t count, size_t start,
                               spgemm_rows_mode mode);
/* The one phase's temporary: t_ints (u32) and t_vals (of the type), one element per
 * product (the header's products, read back after ROW_BINS), counted against the budget.
 * A product takes it where spgemm_one_phase_fits says so (after ROW_BINS's header is read
 * back; with long rows, after BIN_FILL and their pairs read back), and keeps it if C fits
 * beside it too. The ordered one phase (spgemm_ordered_width) runs no BIN_FILL. */
bool spgemm_one_phase_fits(const spgemm_product *p);
gpgpu_status spgemm_one_phase_open(spgemm_product *p);
void spgemm_one_phase_close(spgemm_product *p);
/* The ordered one phase: where every row of the product has at most RANK_MAX products (no
 * ROWS bin, no long rows) and the one phase is taken, ROWS_RANK may take every row of A in
 * row order in one dispatch, `width` slots a row (the longest row, at least 32), so that
 * each group's WG / width rows are consecutive (spgemm_tuning's spgemm_rows_ordered: 0
 * never, 1 where the rows fill at least half their slots, 2 wherever it can). Returns the
 * width, 0 where it is not taken. */
uint32_t spgemm_ordered_width(const spgemm_product *p);
/* ROWS_RANK ordered (ONE_PHASE_ORDERED): the counts as SYMBOLIC, and group g's rows [g R,
 * (g + 1) R), R = SPGEMM_WG / width, have their entries one after another from the group's
 * first product, apos[row_ptr[g R]], row by row, in t_ints / t_vals. */
gpgpu_status spgemm_stage_rows_ordered(spgemm_product *p, uint32_t width);
/* ROWS_COMPACT (after rptr's scan and C made): the entries of C of each row of the list's
 * short bins (0 < products <= shared_max), copied from the temporary at apos[row_ptr[r]]
 * to rptr[r], a row to a few consecutive invocations; after the ordered one phase (`width`
 * > 0), those of each group of rows as one run, from the group's first product. */
gpgpu_status spgemm_stage_rows_compact(spgemm_product *p, uint32_t width);

/* A chunk of long rows on the global path: ux (u32) holds the rows' ids at 0, their
 * segment starts (rows + 1 words, within the chunk's expansion) at seg_off, then the keys,
 * the sort's payload (each key's expansion index) and run flags; vals the expanded values
 * (numeric). alt and hist are the radix sort's.
 *
 * Packed keys (`packed`, where the chunk's row index and B's columns fit 32 bits together):
 * key = s << col_bits | column for chunk row s, so one plain radix sort over the bits they
 * use orders every row's products by column, all of its passes one-sweep, and the stages
 * after it read a run's row from its key. Otherwise key = column, sorted by a segmented
 * sort (its segment passes reduce-then-scan, each key's segment found by binary search). */
typedef struct spgemm_chunk {
    size_t rows, products;
    size_t seg_off, key_off, pay_off, flag_off;
    gpgpu_buffer *ux, *vals, *alt, *hist;
    gpgpu_buffer *nz; /* rows + 1 words: each row's first nonzero of A counted from the chunk's
                       * first (ESC_NZ and a scan), for ESC_EXPAND's walk; NULL where it
                       * searches (spgemm_esc_walk=0) */
    size_t hist_words;
    unsigned col_bits; /* the bits of a column below B's column count */
    bool numeric, packed;
    bool carried; /* the f32 values' bits are the sort's payload, in ux at pay_off, and vals
                   * is NULL (spgemm_chunk_carries) */
    /* The sort (spgemm_esc_sort): key_passes radix passes over each of `parts` ranges of
     * products, part q being [part_at[q], part_at[q + 1]). */
    unsigned key_passes, parts;
    size_t part_at[SPGEMM_SORT_PARTS + 1];
    bool expand_in_alt; /* ESC_EXPAND writes into alt (laid out as ux up to the flags), the
                         * sort reads it there: an odd key_passes then ends in ux uncopied */
} spgemm_chunk;

/* The bits that hold every value below `bound` (0 for bound <= 1). */
unsigned spgemm_bits_below(size_t bound);
/* Whether a chunk of `rows` rows packs its keys against B's `cols` columns
 * (GPGPU_TUNE's spgemm_esc_packed=0: never). */
bool spgemm_chunk_packs(const gpgpu_context *ctx, size_t rows, uint32_t cols);
/* Whether a chunk's sort carries its values as the payload: f32 values expanded before the
 * sort (numeric, or the symbolic phase's early values), unless GPGPU_TUNE's
 * spgemm_esc_carry=0. ESC_EXPAND then writes them where the payload goes, and the chunk has
 * no vals. Else the payload is each key's expansion index. */
bool spgemm_chunk_carries(const gpgpu_context *ctx, gpgpu_type type, bool numeric);

/* Allocates a chunk for `rows` (row, products) pairs (vals where numeric and not carried)
 * and uploads their ids and segments. */
gpgpu_status spgemm_chunk_open(spgemm_product *p, const uint32_t *pairs, size_t rows,
                               bool numeric, spgemm_chunk *ch);
void spgemm_chunk_close(spgemm_product *p, spgemm_chunk *ch);
/* ESC_EXPAND: for t < products, with s the chunk row whose segment holds t and o = t - seg[s]:
 * product o of row rows[s] (as ROWS orders them: A's nonzeros in order, each B row in
 * order): key[t] = its column (packed: s << col_bits | its column), vals[t] = a_ik * b_kj
 * (numeric; carried: pay[t] = its f32 bits). Where the chunk walks (ch->nz), ESC_NZ and a scan
 * first put each chunk row's first nonzero of A (from 0) in nz, and the expansion goes by
 * nonzeros of A instead of by products: the same words. */
gpgpu_status spgemm_stage_esc_expand(spgemm_product *p, const spgemm_chunk *ch);
/* The radix sort of the keys (columns ascending in each segment, ties in expansion order):
 * packed, one sort over the keys' bits, or one per part of the chunk where that saves a pass;
 * else segmented. Payload = each key's value's bits (ch->carried: ESC_EXPAND put them
 * there), else its expansion index. */
gpgpu_status spgemm_esc_sort(spgemm_product *p, const spgemm_chunk *ch);
/* ESC_FLAGS: flag[t] = 1 where t starts its segment or its key differs from t - 1, else 0;
 * flag[products] = 0 (the driver then scans the flags exclusively). */
gpgpu_status spgemm_stage_esc_flags(spgemm_product *p, const spgemm_chunk *ch);
/* ESC_COUNT: rptr[rows[s]] = runs in segment s. */
gpgpu_status spgemm_stage_esc_count(spgemm_product *p, const spgemm_chunk *ch);
/* ESC_WRITE: each run's column (a packed key's low col_bits) and the sum of its values
 * (pay[u]'s bits where ch->carried, else vals[pay[u]]) added left to right, to C at
 * rptr[row] + (its run index within the row). */
gpgpu_status spgemm_stage_esc_write(spgemm_product *p, const spgemm_chunk *ch);
/* A symbolic chunk kept for the numeric phase (after ESC_COUNT): the sort's alt and hist
 * freed, the chunk moved into p->kept. */
gpgpu_status spgemm_chunk_keep(spgemm_product *p, spgemm_chunk *ch);
/* The kept chunk made numeric: vals allocated (products of the type). */
gpgpu_status spgemm_chunk_values(spgemm_product *p, spgemm_chunk *ch);
/* ESC_EXPAND for a kept chunk (its keys sorted, its values not carried): vals[t] = a_ik *
 * b_kj for t < products, as spgemm_stage_esc_expand, the keys left as they are. */
gpgpu_status spgemm_stage_esc_values(spgemm_product *p, const spgemm_chunk *ch);

/* An exclusive u32 scan of n words in place. */
gpgpu_status spgemm_scan_words(gpgpu_context *ctx, gpgpu_buffer *buf, size_t off, size_t n);
/* The same on a chunk's run flags (products + 1 words at flag_off of ux). */
gpgpu_status spgemm_scan_flags(gpgpu_context *ctx, const spgemm_chunk *ch);

#endif /* GPGPU_ALGO_SPGEMM_H */
