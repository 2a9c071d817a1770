/* The CPU reference: every algorithm, and every stage of it, as the tests'
 * oracle. Arrays are host memory of the given type; offsets and counts are
 * in elements (a V element is one element, or a (min, max) pair of two for
 * GPGPU_OP_MINMAX), as in src/algo/reduce.h and src/algo/scan.h.
 *
 * Stages that apply one operation per output element (the classic steps,
 * copies, min/max) compute in the type's own precision, so the GPU must
 * match them bit for bit. Stages that sum many floats accumulate in long
 * double and also return, per output, the sum of absolute values: the tests
 * turn it into an error bound for the GPU's summation order. */
#ifndef GPGPU_REF_H
#define GPGPU_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpgpu/gpgpu.h"
#include "gpgpu/sparse.h"

/* ---- reduce (glsl/reduce.comp) ---- */

/* TILES: for g < groups, V element g of dst = op over the V elements of src
 * (n of them; T elements, or pairs when src_pairs) in blocks b with
 * b % groups == g, blocks of `block` elements. abs_sum[g] (if not NULL)
 * receives the sum of |x| over those elements (sums of floats only). */
void ref_reduce_tiles(gpgpu_type type, gpgpu_op op, const void *src, size_t n, bool src_pairs,
                      uint32_t groups, uint32_t block, void *dst, long double *abs_sum);
void ref_reduce_expand(gpgpu_type type, gpgpu_op op, const void *src, size_t n, void *dst);
void ref_reduce_halving(gpgpu_type type, gpgpu_op op, void *a, size_t n);
void ref_reduce_stride(gpgpu_type type, gpgpu_op op, void *a, size_t n, size_t q);
void ref_reduce_pairs(gpgpu_type type, void *a, size_t n);
void ref_reduce_quads(gpgpu_type type, void *a, size_t n);

/* The whole reduction of n elements into result (1 or 2 elements); floats
 * summed in long double, *abs_sum (if not NULL) = sum of |x|. */
void ref_reduce(gpgpu_type type, gpgpu_op op, const void *src, size_t n, void *result,
                long double *abs_sum);
/* The classic drivers replayed step by step (bit-exact twins). */
void ref_reduce_classic(gpgpu_type type, gpgpu_op op, gpgpu_algo algo, const void *src, size_t n,
                        void *result);

/* ---- scan (glsl/scan.comp) ---- */

/* REDUCE: part[g] = sum of src[g * per_group, min(n, (g+1) * per_group)) with
 * per_group = tiles_per_group * tile; abs_sum[g] as above. */
void ref_scan_reduce(gpgpu_type type, const void *src, size_t n, uint32_t groups,
                     uint32_t tiles_per_group, uint32_t tile, void *part, long double *abs_sum);
/* PARTIALS: part[0..groups) becomes its exclusive prefix sum. */
void ref_scan_partials(gpgpu_type type, void *part, uint32_t groups, long double *abs_prefix);
/* TILES: dst[i] = part[g] + (inclusive or exclusive) prefix of src within
 * group g's run; abs_prefix[i] (if not NULL) = sum of |x| that went into it. */
void ref_scan_tiles(gpgpu_type type, bool exclusive, const void *src, size_t n, const void *part,
                    uint32_t tiles_per_group, uint32_t tile, void *dst, long double *abs_prefix);
void ref_scan_copy(gpgpu_type type, bool exclusive, const void *src, size_t n, void *dst);
void ref_scan_step(gpgpu_type type, void *a, size_t n, unsigned k);

/* The whole scan (floats in long double), abs_prefix as for TILES. */
void ref_scan(gpgpu_type type, bool exclusive, const void *src, size_t n, void *dst,
              long double *abs_prefix);
/* CHAINED's state after a single pass over n u32 or i32 elements in tiles
 * of `tile` (more than one tile): word 0 the tickets drawn (`groups`), then
 * per tile t the 16-bit chunks of its inclusive prefix and of its own sum,
 * each with the mark bit 0x10000 (tile 0 publishes no separate sum: 0).
 * `state` has 4 + 4 * tiles words; words 1..3 stay 0. */
void ref_scan_chained_state(const uint32_t *src, size_t n, uint32_t tile, uint32_t groups,
                            uint32_t *state);
/* iPrefixSum replayed step by step (bit-exact twin of the classic scan). */
void ref_scan_classic(gpgpu_type type, bool exclusive, const void *src, size_t n, void *dst);

/* ---- sort (glsl/sort.comp; src/algo/sort.h) ---- */

/* The ordered key of *key (src/algo/sort.h): an unsigned integer that sorts
 * like the key in the library's total order (descending: its complement). */
uint64_t ref_sort_order(gpgpu_type type, const void *key, bool descending);

/* Host twin of sort_keys: keys of `type`, optional u32 payload, flags
 * SORT_* from src/algo/sort.h, segment offsets (nseg + 1) when segmented. */
typedef struct ref_sort_keys {
    gpgpu_type type;
    void *keys;
    uint32_t *pay; /* NULL: keys only */
    size_t n;
    unsigned flags;
    const uint32_t *segs;
    size_t nseg;
    uint32_t index_base; /* SORT_PAYLOAD_IS_INDEX: the index of element 0 (sort_keys') */
} ref_sort_keys;

/* The bitonic stages, bit-exact twins of the GPU's (same compare-exchanges). */
void ref_bitonic_step(const ref_sort_keys *a, uint32_t h, bool reverse);
void ref_bitonic_local_sort(const ref_sort_keys *a, uint32_t tile);
void ref_bitonic_local_merge(const ref_sort_keys *a, uint32_t tile);
/* GPUNetSort replayed step by step. */
void ref_bitonic_classic(const ref_sort_keys *a);

/* The radix stages: group g owns elements [g * per_group, (g + 1) * per_group). */
unsigned ref_radix_digit(const ref_sort_keys *a, size_t i, unsigned pass);
void ref_radix_hist(const ref_sort_keys *src, unsigned pass, uint32_t groups, size_t per_group,
                    uint32_t *hist);
/* hist holds the exclusive scan of ref_radix_hist's counts; dst's keys and
 * payload (if src has one) receive the scattered elements. */
void ref_radix_scatter(const ref_sort_keys *src, const ref_sort_keys *dst, unsigned pass,
                       const uint32_t *hist, uint32_t groups, size_t per_group);

/* The oracle: a stable merge sort of keys (and values, if not NULL) in the
 * library's order, each segment alone when segs is not NULL (nseg + 1 offsets). */
void ref_sort(gpgpu_type type, bool descending, void *keys, uint32_t *values, size_t n,
              const uint32_t *segs, size_t nseg);

/* ---- sparse matrix-vector product ---- */

/* y = alpha*A*x + beta*y in double, each row's products summed left to right
 * from 0 (the order a host format's loop can match exactly); beta == 0
 * ignores y, NaN included. */
void ref_spmv_csr(const gpgpu_csr *a, double alpha, const double *x, double beta, double *y);

/* Per row, the error bound of y = alpha*A*x + beta*y computed in a float of
 * unit roundoff u in any summation order: gamma_{len+2} * (|alpha| * sum
 * |a_ij| |x_j| + |beta| |y_i|), gamma_k = k u / (1 - k u); y_in is not read
 * when beta == 0. */
void ref_spmv_bound(const gpgpu_csr *a, const double *x, double alpha, double beta,
                    const double *y_in, double unit_roundoff, double *bound);

/* ---- Kiciak's classic SpMV, stage by stage (glsl/spmv.comp; src/algo/spmv.h) ----
 * Twins of the GPU's stages, bit for bit: values, x, products, sums and y in `type`
 * (f32 or f64; the matrix's double values rounded to it), one operation per element. */
void ref_spmv_classic_lengths(const gpgpu_csr *a, uint32_t *lgt);
void ref_spmv_classic_max(uint32_t *lgt, uint32_t t);
void ref_spmv_classic_products(gpgpu_type type, const gpgpu_csr *a, const void *x, void *work);
void ref_spmv_classic_sums(gpgpu_type type, const gpgpu_csr *a, const uint32_t *lgt, void *work,
                           uint32_t t);
void ref_spmv_classic_copy(gpgpu_type type, const gpgpu_csr *a, const uint32_t *lgt,
                           const void *work, double alpha, double beta, void *y);
/* The whole classic driver replayed (its max steps from t = rows, its sums from lmax). */
void ref_spmv_classic(gpgpu_type type, const gpgpu_csr *a, const void *x, double alpha,
                      double beta, void *y);

/* ---- sparse x sparse products (glsl/spgemm.comp; src/algo/spgemm.h) ---- */

/* The intermediate products a_ik * b_kj of A*B: the sum over A's nonzeros of
 * the length of B's row at their column (A's cols must be B's rows). */
uint64_t ref_spgemm_products(const gpgpu_csr *a, const gpgpu_csr *b);

/* C = A*B by Gustavson's rows (a dense accumulator and a marker per column):
 * every (i, j) with some a_ik b_kj stored, even where the sum is zero, columns
 * ascending; the products summed in long double, then rounded to double.
 * *bound (when bound is not NULL; malloc'ed, nnz(C) entries, free it) gets per
 * entry what a GPU sum in `type` (f32 or f64) may differ from c's value, for A
 * and B whose values are exact in `type` (the caller rounds them first, as the
 * GPU's matrices do): see ref_spgemm.c. c is filled by the function (free it
 * with gpgpu_csr_free). Returns false when out of memory (nothing left
 * allocated) or past 2^32 - 1 entries. */
bool ref_spgemm_gustavson(gpgpu_type type, const gpgpu_csr *a, const gpgpu_csr *b, gpgpu_csr *c,
                          double **bound);

/* Whether v, rounded to `type`, is subnormal: a device may read such an operand as zero
 * (the H100 does in f32) and so lose a product whole, which the SpGEMM bounds allow for. */
bool ref_subnormal(gpgpu_type type, double v);

/* A^T by a stable counting sort on the columns: rows of A^T with their
 * columns ascending, values copied bit for bit. false when out of memory. */
bool ref_transpose(const gpgpu_csr *a, gpgpu_csr *t);

/* Kiciak's classic product, stage by stage: host twins of the GPU's stages,
 * bit for bit, on arrays laid out as struct spgemm_classic lays out its buffers
 * (tab1(x) = tab[x], tab2(x) = tab[tablgt + x], tab3(x) = tab[2 * tablgt + x];
 * pairi(t) = pairs[2t], pairj(t) = pairs[2t + 1]; c_ints = C's row pointers,
 * then its columns). prod and c_vals hold elements of `type` (f32 or f64), and
 * every product and partial sum is rounded to it, one operation per element. */
typedef struct ref_spgemm_classic_state {
    gpgpu_type type;
    const gpgpu_csr *a, *b; /* A rows x inner, B inner x cols; values exact in type */
    uint32_t *off;          /* nnz(A) + 1 */
    uint32_t *pairs;        /* 2 * products */
    void *prod;             /* products */
    uint32_t *tab;          /* 3 * tablgt */
    uint32_t *c_ints;       /* rows + 1 + nnz_c */
    void *c_vals;           /* nnz_c */
    size_t products, tablgt, nnz_c;
} ref_spgemm_classic_state;

/* One dispatch of stage 1..13 (SPGEMM_STAGE_CLASSIC_*), as spgemm_classic_stage does
 * it: t, nn and reverse as there. */
void ref_spgemm_classic_stage(ref_spgemm_classic_state *s, unsigned stage, uint32_t t,
                              uint32_t nn, bool reverse);

/* The twin of spgemm_classic_scan: n u32 inclusively scanned in place (modulo 2^32). */
void ref_spgemm_classic_scan(uint32_t *a, size_t n);

/* Called by ref_spgemm_classic_run before (after = false) and after (true) each
 * step it replays: stage 1..13 with its t, nn and reverse, or stage 0 for the
 * scan that follows stage t (1: off + 1, nnz(A) words; 7: tab + 1, products
 * words). The arrays a step uses are allocated by then (new ones filled with
 * 0xA5 bytes); the hook may change the state's contents between steps. */
typedef void (*ref_spgemm_classic_hook)(ref_spgemm_classic_state *s, unsigned stage, uint32_t t,
                                        uint32_t nn, bool reverse, bool after, void *user);

/* The classic driver replayed (src/algo/spgemm_classic.c): stage 1, the scan,
 * products read (without products, C is rows + 1 zero row pointers and no
 * entries: the driver stops there); stages 2, 3, 4; stage 5's steps t = rows,
 * ceil(t/2), ..., 2; the sort with nn = the power of two >= tab2(0), for
 * h = 2, 4, ..., nn its reverse step h, then plain steps h/2, ..., 2; stage 7,
 * the scan, nnz_c read; 8; 9; stage 10's steps t = nnz_c, ..., 2; 9 again;
 * stage 11's steps t = tab3(0) (the longest run), ceil(t/2), ..., 2; 12; 13.
 * C is then c_ints / c_vals. hook may be NULL. false when out of memory (s
 * freed). */
bool ref_spgemm_classic_run(gpgpu_type type, const gpgpu_csr *a, const gpgpu_csr *b,
                            ref_spgemm_classic_state *s, ref_spgemm_classic_hook hook,
                            void *user);

/* Frees the arrays ref_spgemm_classic_run allocated and zeroes *s. */
void ref_spgemm_classic_free(ref_spgemm_classic_state *s);

/* n elements of `size` bytes filled with 0xA5 (at least one element): every array of the
 * classic and the fast twins, so that an element a stage does not write shows. */
void *ref_spgemm_poisoned(size_t n, size_t size);

/* ---- the fast product, stage by stage (glsl/spgemm.comp stages 14..21, 28 and 29) ----
 * Host twins of the stages src/algo/spgemm.h calls "fast", bit for bit, on arrays laid
 * out as struct spgemm_product and struct spgemm_chunk lay out their buffers. The
 * header's word indices and sizes are repeated here (the reference does not include the
 * library's headers; the tests check they agree). Products and sums are in `type` (f32
 * or f64), one rounding per operation.
 *
 * Where the GPU's order is not defined the twins pick one: BIN_FILL lists each bin's
 * rows ascending and the long pairs in the same order; a caller comparing with a GPU
 * compares those as sets and then copies the GPU's order into the twin's aux, so the
 * later stages (which take rows in list order) see what the GPU's see. */
enum {
    REF_SPGEMM_BINS = 8, REF_SPGEMM_LONG_BIN = 7, REF_SPGEMM_MIN_CAP = 32,
    REF_SPGEMM_SHARED_MAX = 2048, /* the longest row ROWS takes (its tile) */
    REF_SPGEMM_RANK_MAX = 128,    /* bins of CAP up to this go through ROWS_RANK */
    REF_SPGEMM_RECORD = 4,        /* words of a row's record in the list */
    REF_SPGEMM_H_COUNT = 0, REF_SPGEMM_H_FILL = 8, REF_SPGEMM_H_PRODUCTS = 16,
    REF_SPGEMM_H_B_LEFT = 18, REF_SPGEMM_H_B_RIGHT = 19, REF_SPGEMM_H_LONGEST = 20,
    REF_SPGEMM_H_WINDOW = 28, REF_SPGEMM_HEADER = 32,
    REF_SPGEMM_SORT_PARTS = 256 /* the most parts a chunk's sort is split into */
};

/* One product. aux holds `words` u32: the header (zeroed by open), then
 * apos[nnz(A) + 1] at apos_off, rptr[rows + 1] at rptr_off, list[rows] at list_off (a
 * record of REF_SPGEMM_RECORD words a row: the row, its first nonzero of A, its nonzeros
 * of A, its products) and the long rows' (row, products) pairs at pairs_off; open
 * fills everything past the header with 0xA5 bytes. C (ref_spgemm_fast_make_c) is
 * c_ints (rows + 1 row pointers, then nnz_c columns) and c_vals (nnz_c of type); the one
 * phase's temporary (ref_spgemm_one_phase_open) t_ints and t_vals, t_len = the header's
 * products each. */
typedef struct ref_spgemm_fast_state {
    gpgpu_type type;
    const gpgpu_csr *a, *b; /* values exact in type */
    uint32_t shared_max;    /* REF_SPGEMM_SHARED_MAX, or 0: every row is long (ESC) */
    uint32_t *aux;
    size_t words, apos_off, rptr_off, list_off, pairs_off;
    uint32_t *c_ints;
    void *c_vals;
    size_t nnz_c;
    uint32_t *t_ints;
    void *t_vals;
    size_t t_len;
    uint32_t group_rows; /* after ref_spgemm_rows_ordered: its rows a group, else 0 */
    size_t row_at;       /* ref_spgemm_rows_ordered: where the row's entries start */
} ref_spgemm_fast_state;

/* What ref_spgemm_rows writes (spgemm_rows_mode). */
enum {
    REF_SPGEMM_SYMBOLIC,
    REF_SPGEMM_NUMERIC,
    REF_SPGEMM_ONE_PHASE,
    REF_SPGEMM_ONE_PHASE_ORDERED
};

/* false when out of memory (nothing left allocated). */
bool ref_spgemm_fast_open(gpgpu_type type, const gpgpu_csr *a, const gpgpu_csr *b,
                          uint32_t shared_max, ref_spgemm_fast_state *s);
void ref_spgemm_fast_free(ref_spgemm_fast_state *s);

/* The bin of a row of p > 0 products: LONG_BIN past shared_max, else the smallest b with
 * p <= 32 << b. */
unsigned ref_spgemm_bin_of(uint32_t p, uint32_t shared_max);
/* A row's products from the scanned apos (modulo 2^32). */
uint32_t ref_spgemm_row_products(const ref_spgemm_fast_state *s, uint32_t r);
/* The header's 64-bit total at word `at` (H_PRODUCTS). */
uint64_t ref_spgemm_header64(const uint32_t *aux, unsigned at);

/* NNZ_PRODUCTS: apos[k] = |row col_A[k] of B|, apos[nnz(A)] = 0. */
void ref_spgemm_nnz_products(ref_spgemm_fast_state *s);
/* spgemm_scan_words: n u32 scanned exclusively in place (modulo 2^32). */
void ref_spgemm_scan_words(uint32_t *w, size_t n);
/* ROW_BINS: rptr[0..rows] = 0; per row with products, its bin's count += 1, its bin's
 * longest row at least its products, and the 64-bit products += its products. */
void ref_spgemm_row_bins(ref_spgemm_fast_state *s);
/* BIN_FILL: the records of the rows with products listed bin by bin (ascending within a
 * bin), each bin's fill counter += its rows; the long rows also as (row, products) pairs. */
void ref_spgemm_bin_fill(ref_spgemm_fast_state *s);
/* spgemm_stage_rows on `count` rows of bin (< LONG_BIN) from list position `start`.
 * Each row's products are taken in Gustavson's order (A's nonzeros in order, each B row
 * in order). For CAP = 32 << bin <= RANK_MAX (ROWS_RANK, stage 28) a column's sum is 0
 * plus each of its products in that order, one rounding per add in type (the shader's
 * accumulator starts at 0, so a lone -0 product gives +0). Past it (ROWS, stage 17) the
 * products fill CAP slots padded with 0xffffffff keys, the shader's bitonic network is
 * replayed on them (so equal columns end in the GPU's order) and each run is added left
 * to right from its first product. SYMBOLIC: rptr[r] = the row's distinct columns;
 * NUMERIC: C's columns ascending and their sums at rptr[r] (the
 * scanned row pointer), into c_ints / c_vals; ONE_PHASE: both, the columns and sums at
 * apos[row_ptr[r]] of t_ints / t_vals. */
void ref_spgemm_rows(ref_spgemm_fast_state *s, unsigned bin, uint32_t count, size_t start,
                     unsigned mode);
/* spgemm_stage_rows_ordered: ROWS_RANK (as ref_spgemm_rows ranks and sums) on every row of
 * A in row order, rptr[r] = its entries, and the entries of rows [g R, (g + 1) R) (R =
 * group_rows) one after another from apos[row_ptr[g R]] of t_ints / t_vals, row by row;
 * ref_spgemm_rows_compact then moves each group's entries as one run. */
void ref_spgemm_rows_ordered(ref_spgemm_fast_state *s, uint32_t group_rows);
/* C's arrays for nnz_c = the header's nnz: row pointers copied from the scanned rptr,
 * columns and values filled with 0xA5 bytes. false when out of memory. */
bool ref_spgemm_fast_make_c(ref_spgemm_fast_state *s);
/* The one phase's temporary, t_len = the header's products, filled with 0xA5 bytes (and
 * freed by ref_spgemm_one_phase_free or ref_spgemm_fast_free). false when out of memory. */
bool ref_spgemm_one_phase_open(ref_spgemm_fast_state *s);
void ref_spgemm_one_phase_free(ref_spgemm_fast_state *s);
/* ROWS_COMPACT (after C is made): every row of 0 < products <= shared_max has its
 * entries copied from t_ints / t_vals at apos[row_ptr[r]] to C at its row pointer; after
 * ref_spgemm_rows_ordered, each group of rows its entries as one run from the group's
 * first product. */
void ref_spgemm_rows_compact(ref_spgemm_fast_state *s);

/* A chunk of long rows, as spgemm_chunk_open lays out its ux words: the rows' ids at 0,
 * their segment starts (rows + 1) at seg_off = rows, keys at key_off = 2 rows + 1,
 * payload at pay_off, flags (products + 1) at flag_off; vals (numeric, not carried) the
 * expanded values; alt (where the sort takes an odd number of radix passes) the words of ux
 * up to flag_off, which ESC_EXPAND fills and the sort reads. open fills ids and segments
 * (in both) and the rest with 0xA5 bytes. */
typedef struct ref_spgemm_chunk {
    size_t rows, products, words;
    size_t seg_off, key_off, pay_off, flag_off;
    uint32_t *ux;
    void *vals; /* NULL when not numeric, or carried */
    unsigned col_bits; /* bits of a column below B's column count */
    bool numeric, packed;
    bool carried; /* the sort's payload is the f32 values' bits (ESC_EXPAND puts them there),
                   * not their indices */
    unsigned key_passes; /* the radix passes over the keys' low bytes (spgemm_esc_sort) */
    uint32_t *alt; /* NULL where ESC_EXPAND writes into ux; the sort frees it */
} ref_spgemm_chunk;

/* From `rows` (row, products) pairs. Packed keys (chunk row << col_bits | column) where
 * `may_pack` and the chunk's row index and B's columns fit 32 bits together; values carried
 * through the sort where `may_carry`, numeric and f32. A packed chunk is sorted one pass
 * short in parts of 2^(8 (passes - 1) - col_bits) rows where at most REF_SPGEMM_SORT_PARTS
 * such parts hold at least `split` products on average (0: never). false when out of
 * memory. */
bool ref_spgemm_chunk_open(const ref_spgemm_fast_state *s, const uint32_t *pairs, size_t rows,
                           bool numeric, bool may_pack, bool may_carry, size_t split,
                           ref_spgemm_chunk *ch);
void ref_spgemm_chunk_free(ref_spgemm_chunk *ch);
/* ESC_EXPAND: key[t] = the column of product t - seg[s] of row ids[s] (ROWS' order; packed:
 * s << col_bits | column), vals[t] = a_ik * b_kj in type (numeric; carried: pay[t] = its
 * f32 bits). */
void ref_spgemm_esc_expand(const ref_spgemm_fast_state *s, ref_spgemm_chunk *ch);
/* spgemm_esc_sort: keys stably sorted within each segment into ux (from alt where there is
 * one, which it then frees), payload = each key's value's bits (carried: moved with the
 * keys), else its expansion index. */
void ref_spgemm_esc_sort(ref_spgemm_chunk *ch);
/* ESC_FLAGS: flag[t] = t starts its segment or key[t] != key[t - 1]; flag[products] = 0. */
void ref_spgemm_esc_flags(ref_spgemm_chunk *ch);
/* ESC_COUNT (after the flags' exclusive scan): rptr[ids[s]] = runs of segment s, header
 * nnz += them. */
void ref_spgemm_esc_count(ref_spgemm_fast_state *s, const ref_spgemm_chunk *ch);
/* ESC_WRITE: each run's column (a packed key's low col_bits), and its values (pay[u]'s bits
 * where carried, else vals[pay[u]]) added left to right in type, to C at rptr[row] + its run
 * index within the row. */
void ref_spgemm_esc_write(ref_spgemm_fast_state *s, const ref_spgemm_chunk *ch);
/* A symbolic chunk kept for the numeric phase (spgemm_chunk_values): vals allocated, filled
 * with 0xA5 bytes. false when out of memory. */
bool ref_spgemm_chunk_values(const ref_spgemm_fast_state *s, ref_spgemm_chunk *ch);
/* ESC_EXPAND on a kept chunk (spgemm_stage_esc_values): vals[t] as ref_spgemm_esc_expand
 * writes them, the keys (sorted by now) left alone. */
void ref_spgemm_esc_values(const ref_spgemm_fast_state *s, ref_spgemm_chunk *ch);

/* ---- dense products (glsl/gemm.comp) ---- */

/* C = alpha op(A) op(B) + beta C, row-major with the given strides, summed in long double
 * and rounded to the type; alpha and beta rounded to the type first, as the GPU gets them.
 * beta = 0 does not read C. abs_sum[i * n + j] (if not NULL) = |alpha| sum |a b| + |beta c|,
 * for the error bound of the GPU's sums. Elements of C outside the m x n block stay. */
void ref_gemm(gpgpu_type type, size_t m, size_t n, size_t k, bool trans_a, bool trans_b,
              double alpha, const void *a, size_t lda, const void *b, size_t ldb, double beta,
              void *c, size_t ldc, long double *abs_sum);

/* A float rounded to the nearest f16 (ties to even; overflow to inf, NaN kept quiet), as
 * the cooperative-matrix product's A_TO_F16 and B_TO_F16 stages convert; and back. */
uint16_t ref_f32_to_f16(float f);
float ref_f16_to_f32(uint16_t h);

/* ---- histogram (glsl/histogram.comp; src/algo/histogram.h) ---- */

/* What BINS writes for a sample counted in no bin. */
#define REF_HISTOGRAM_NONE UINT32_MAX

/* The bin of the sample at *sample (of `type`): of the bins + 1 levels of type at `levels`, or
 * of even bins over [lo, hi) when levels is NULL (lo, hi exact in the type), as gpgpu_histogram
 * defines it, every float operation rounded as the shader rounds it; REF_HISTOGRAM_NONE where
 * the sample counts in none. */
uint32_t ref_histogram_bin(gpgpu_type type, uint32_t bins, double lo, double hi,
                           const void *levels, const void *sample);
/* BINS: out[i] = the bin of src[i], i < n. */
void ref_histogram_bins(gpgpu_type type, uint32_t bins, double lo, double hi, const void *levels,
                        const void *src, size_t n, uint32_t *out);
/* SHARED and GLOBAL: counts[b] += the samples of src[0..n) in bin b (modulo 2^32). */
void ref_histogram_count(gpgpu_type type, uint32_t bins, double lo, double hi,
                         const void *levels, const void *src, size_t n, uint32_t *counts);

/* ---- segmented reduce (glsl/segreduce.comp; src/algo/segreduce.h) ---- */

/* The oracle: out[s] = op over elements [segs[s], segs[s + 1]) of src (n elements; offsets
 * clamped as the shader clamps them), for s < nseg: integers exact (sums wrap), float min and
 * max exact (NaN propagating, +inf / -inf for an empty segment), float sums in long double
 * rounded to the type, abs_sum[s] (if not NULL) the sum of |x| over the segment. */
void ref_segreduce(gpgpu_type type, gpgpu_op op, const void *src, size_t n,
                   const uint32_t *segs, size_t nseg, void *out, long double *abs_sum);
/* PLAN, bit for bit: plan[2t], plan[2t + 1] = where tile t <= tiles of the merge path begins
 * (segments ended, elements taken), starts every `step` steps moved back to a segment start
 * by up to `slack`. */
void ref_segreduce_plan(size_t n, const uint32_t *segs, size_t nseg, uint32_t step,
                        uint32_t slack, uint32_t tiles, uint32_t *plan);
/* TILES on that plan with tiles of `tile` steps: out[r] for each segment that ends in the
 * tile it began in, rec[2g], rec[2g + 1] the tile's open segment (or UINT32_MAX) and whether
 * it began there, work[2g] its partial value (the identity where none is open) and
 * work[2g + 1] the head partial where the tile began inside a segment that ends in it (else
 * untouched); abs_out and abs_work (if not NULL) the sums of |x| of what they hold. */
void ref_segreduce_tiles(gpgpu_type type, gpgpu_op op, const void *src, size_t n,
                         const uint32_t *segs, size_t nseg, const uint32_t *plan,
                         uint32_t tiles, uint32_t tile, void *out, long double *abs_out,
                         uint32_t *rec, void *work, long double *abs_work);
/* FIX from those records: out[r] = work[2g] op the run's partials in tile order for each tile
 * g whose open segment r < nseg began in it; abs_out[r] the sum of |partial|. */
void ref_segreduce_fix(gpgpu_type type, gpgpu_op op, size_t nseg, const uint32_t *rec,
                       const void *work, uint32_t tiles, void *out, long double *abs_out);

/* ---- run-length encoding (glsl/rle.comp; src/algo/rle.h) ---- */

/* The heads are ref_select's with SELECT_KEEP_HEADS (the starts its indices).
 * FINISH: lengths[r] = (r + 1 < runs ? starts[r + 1] : n) - starts[r], r < runs (lengths
 * NULL: none), starts[runs] = n. */
void ref_rle_finish(uint32_t *starts, uint32_t runs, size_t n, uint32_t *lengths);
/* The oracle: unique keys, run lengths and starts (n + 1 of them: R + 1 written) of the n
 * keys, each output NULL when not wanted; returns the run count. */
size_t ref_rle(gpgpu_type type, const void *keys, size_t n, void *unique, uint32_t *lengths,
               uint32_t *starts);
/* ---- select (glsl/select.comp; src/algo/select.h) ---- */

/* Whether element i is kept: flags[i] != 0 for keep 0 (SELECT_KEEP_FLAGS); for
 * SELECT_KEEP_HEADS, i starts a run (i == 0, or in[i] differs from in[i - 1] in the sort's
 * total order: ref_sort_order); else in[i] `keep` value (a gpgpu_compare) in the type,
 * value rounded to it first, compared as C compares. */
bool ref_select_keep(gpgpu_type type, unsigned keep, double value, const void *in,
                     const uint32_t *flags, size_t i);
/* The selection of n elements: the kept ones in order into out[0..k) (pay_out, idx_out
 * alike where not NULL; pay_in is read where pay_out is set), and partitioning the
 * rejected ones in order into out[k..n); returns k. */
size_t ref_select(gpgpu_type type, unsigned keep, double value, bool partition, const void *in,
                  const uint32_t *flags, const uint32_t *pay_in, size_t n, void *out,
                  uint32_t *pay_out, uint32_t *idx_out);
/* COUNT: part[g] = the kept elements of [g * tiles_per_group * tile, ...) for g < groups. */
void ref_select_count(gpgpu_type type, unsigned keep, double value, const void *in,
                      const uint32_t *flags, size_t n, uint32_t groups,
                      uint32_t tiles_per_group, uint32_t tile, uint32_t *part);
/* CHAINED's state after a single pass over n elements in `tiles` tiles of `tile` (the
 * dispatch's: with a count on the GPU more than n needs), `total` kept: word 0 the tickets
 * drawn (tiles, when there is more than one and the tiles are taken by ticket; else 0),
 * word 1 the total, then per tile of the n elements (at least one) bit 31 | the kept
 * elements of tiles 0..t where there is more than one tile; the other tiles' words 0. */
void ref_select_chained_state(gpgpu_type type, unsigned keep, double value, const void *in,
                              const uint32_t *flags, size_t n, uint32_t tile, uint32_t tiles,
                              bool ticket, uint32_t *state);

/* ---- gather and scatter (glsl/gather.comp; src/algo/gather.h) ---- */

/* out record i = in record idx[i] (gather), or out record idx[i] = in record i (scatter,
 * later i winning where indices repeat), records of `words` u32, i < n. */
void ref_gather(size_t words, const uint32_t *in, const uint32_t *idx, size_t n,
                uint32_t *out);
void ref_scatter(size_t words, const uint32_t *in, const uint32_t *idx, size_t n,
                 uint32_t *out);

#endif /* GPGPU_REF_H */
