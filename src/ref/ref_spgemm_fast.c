/* Twins of the fast product's stages (14..21 and 28, the "fast" section of
 * src/algo/spgemm.h), run as the classic twins of ref_spgemm.c are: a
 * dispatch's invocations one after another. The same argument holds (ROWS'
 * network steps pair disjoint slots; ROW_BINS, ESC_COUNT and the rows'
 * symbolic passes add to the header's counters, which any order sums alike),
 * except for BIN_FILL, whose slots the GPU hands out in atomic order: the twin
 * lists rows ascending (see ref.h). The rows' sums are bit-exact because the
 * twin adds in the shader's order: ROWS_RANK's (bins of CAP <= RANK_MAX) is
 * product order from 0; for ROWS the twin replays the bitonic network on each
 * row's slots, so equal columns meet in the GPU's order. */
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"

/* Values of the fast twins travel as doubles holding elements of the type: an f32 product
 * or sum is rounded to float at each operation, then widened (exactly). */
static double fast_mul(gpgpu_type type, double a, double b)
{
    return type == GPGPU_TYPE_F32 ? (double)((float)a * (float)b) : a * b;
}

static double fast_add(gpgpu_type type, double x, double y)
{
    return type == GPGPU_TYPE_F32 ? (double)((float)x + (float)y) : x + y;
}

static double fast_get(gpgpu_type type, const void *arr, size_t i)
{
    return type == GPGPU_TYPE_F32 ? ((const float *)arr)[i] : ((const double *)arr)[i];
}

static void fast_set(gpgpu_type type, void *arr, size_t i, double v)
{
    if (type == GPGPU_TYPE_F32)
        ((float *)arr)[i] = (float)v;
    else
        ((double *)arr)[i] = v;
}

static size_t fast_size(gpgpu_type type) { return type == GPGPU_TYPE_F32 ? 4 : 8; }

#define FAST_PAD 0xffffffffu

bool ref_spgemm_fast_open(gpgpu_type type, const gpgpu_csr *a, const gpgpu_csr *b,
                          uint32_t shared_max, ref_spgemm_fast_state *s)
{
    *s = (ref_spgemm_fast_state){.type = type, .a = a, .b = b, .shared_max = shared_max};
    s->apos_off = REF_SPGEMM_HEADER;
    s->rptr_off = s->apos_off + a->nnz + 1;
    s->list_off = s->rptr_off + a->rows + 1;
    s->pairs_off = s->list_off + (size_t)a->rows * REF_SPGEMM_RECORD;
    s->words = s->pairs_off + (size_t)a->rows * 2;
    s->aux = ref_spgemm_poisoned(s->words, sizeof *s->aux);
    if (!s->aux)
        return false;
    memset(s->aux, 0, REF_SPGEMM_HEADER * sizeof *s->aux);
    return true;
}

void ref_spgemm_fast_free(ref_spgemm_fast_state *s)
{
    free(s->aux);
    free(s->c_ints);
    free(s->c_vals);
    ref_spgemm_one_phase_free(s);
    *s = (ref_spgemm_fast_state){0};
}

unsigned ref_spgemm_bin_of(uint32_t p, uint32_t shared_max)
{
    if (p > shared_max)
        return REF_SPGEMM_LONG_BIN;
    unsigned b = 0;
    while (((uint32_t)REF_SPGEMM_MIN_CAP << b) < p)
        b++;
    return b;
}

uint32_t ref_spgemm_row_products(const ref_spgemm_fast_state *s, uint32_t r)
{
    const uint32_t *apos = s->aux + s->apos_off;
    return apos[s->a->row_ptr[r + 1]] - apos[s->a->row_ptr[r]];
}

uint64_t ref_spgemm_header64(const uint32_t *aux, unsigned at)
{
    return aux[at] | (uint64_t)aux[at + 1] << 32;
}

static void header_add64(uint32_t *aux, unsigned at, uint64_t v)
{
    uint64_t x = ref_spgemm_header64(aux, at) + v;
    aux[at] = (uint32_t)x;
    aux[at + 1] = (uint32_t)(x >> 32);
}

void ref_spgemm_nnz_products(ref_spgemm_fast_state *s)
{
    const gpgpu_csr *a = s->a, *b = s->b;
    uint32_t *apos = s->aux + s->apos_off;
    for (size_t k = 0; k < a->nnz; k++) {
        uint32_t j = a->col_idx[k];
        apos[k] = b->row_ptr[j + 1] - b->row_ptr[j];
    }
    apos[a->nnz] = 0;
    for (uint32_t k = 0; k < b->rows; k++) { /* biased by 2^31; 0 where B has no entries */
        uint32_t lo = b->row_ptr[k], hi = b->row_ptr[k + 1];
        if (lo == hi)
            continue;
        uint32_t left = k - b->col_idx[lo] + 0x80000000u;
        uint32_t right = b->col_idx[hi - 1] - k + 0x80000000u;
        uint32_t *h = s->aux;
        h[REF_SPGEMM_H_B_LEFT] = left > h[REF_SPGEMM_H_B_LEFT] ? left : h[REF_SPGEMM_H_B_LEFT];
        h[REF_SPGEMM_H_B_RIGHT] =
            right > h[REF_SPGEMM_H_B_RIGHT] ? right : h[REF_SPGEMM_H_B_RIGHT];
    }
}

/* ROW_BINS' window test (glsl/spgemm.comp's fits_window). */
static bool fits_window(const ref_spgemm_fast_state *s, uint32_t r, uint32_t p)
{
    const gpgpu_csr *a = s->a;
    uint32_t lo = a->row_ptr[r], hi = a->row_ptr[r + 1];
    if (hi - lo > 32)
        return false;
    uint32_t reach = (s->aux[REF_SPGEMM_H_B_LEFT] - 0x80000000u) +
                     (s->aux[REF_SPGEMM_H_B_RIGHT] - 0x80000000u);
    uint32_t span_a = a->col_idx[hi - 1] - a->col_idx[lo];
    return reach < p && span_a < p && span_a + reach < p;
}

void ref_spgemm_scan_words(uint32_t *w, size_t n)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = w[i];
        w[i] = sum;
        sum += x;
    }
}

void ref_spgemm_row_bins(ref_spgemm_fast_state *s)
{
    uint32_t rows = s->a->rows, *rptr = s->aux + s->rptr_off;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t p = ref_spgemm_row_products(s, r);
        rptr[r] = 0;
        if (p == 0)
            continue;
        unsigned b = ref_spgemm_bin_of(p, s->shared_max);
        s->aux[REF_SPGEMM_H_COUNT + b]++;
        if ((REF_SPGEMM_MIN_CAP << b) <= REF_SPGEMM_RANK_MAX && fits_window(s, r, p))
            s->aux[REF_SPGEMM_H_WINDOW + b]++;
        uint32_t *longest = &s->aux[REF_SPGEMM_H_LONGEST + b];
        *longest = p > *longest ? p : *longest;
        header_add64(s->aux, REF_SPGEMM_H_PRODUCTS, p);
    }
    rptr[rows] = 0;
}

void ref_spgemm_bin_fill(ref_spgemm_fast_state *s)
{
    uint32_t rows = s->a->rows, *list = s->aux + s->list_off, *pairs = s->aux + s->pairs_off;
    uint32_t start[REF_SPGEMM_BINS], at = 0;
    for (unsigned b = 0; b < REF_SPGEMM_BINS; b++) {
        start[b] = at;
        at += s->aux[REF_SPGEMM_H_COUNT + b];
    }
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t p = ref_spgemm_row_products(s, r);
        if (p == 0)
            continue;
        unsigned b = ref_spgemm_bin_of(p, s->shared_max);
        uint32_t slot = s->aux[REF_SPGEMM_H_FILL + b]++;
        uint32_t *record = list + (size_t)(start[b] + slot) * REF_SPGEMM_RECORD;
        record[0] = r;
        record[1] = s->a->row_ptr[r];
        record[2] = s->a->row_ptr[r + 1] - s->a->row_ptr[r];
        record[3] = p;
        if (b == REF_SPGEMM_LONG_BIN) {
            pairs[2 * (size_t)slot] = r;
            pairs[2 * (size_t)slot + 1] = p;
        }
    }
}

/* Row r's products in ROWS' (and ESC_EXPAND's) order: A's nonzeros in order, each B row
 * in order; key[o] = the column, val[o] = a_ik * b_kj in type, for o < limit (the room the
 * caller has: a row the list or a chunk gives a wrong count still stays in it). Returns
 * how many it wrote. */
static uint32_t row_expansion(const ref_spgemm_fast_state *s, uint32_t r, uint32_t *key,
                              double *val, uint32_t limit)
{
    const gpgpu_csr *a = s->a, *b = s->b;
    uint32_t n = 0;
    for (uint32_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++) {
        uint32_t j = a->col_idx[k];
        for (uint32_t q = b->row_ptr[j]; q < b->row_ptr[j + 1] && n < limit; q++, n++) {
            key[n] = b->col_idx[q];
            val[n] = fast_mul(s->type, a->values[k], b->values[q]);
        }
    }
    return n;
}

/* rows_sort on one row's cap slots: the shader's compare-exchanges in its order (its
 * pairs of one step are disjoint, and a row's blocks never leave its cap slots). */
static void rows_network(uint32_t *key, double *val, uint32_t cap)
{
    for (uint32_t h = 2; h <= cap; h <<= 1)
        for (uint32_t b = h; b >= 2; b >>= 1) {
            bool reverse = b == h;
            uint32_t b2 = b >> 1;
            for (uint32_t p = 0; p < cap / 2; p++) {
                uint32_t l = p & (b2 - 1), blk = p / b2;
                uint32_t i = blk * b + l, j = reverse ? blk * b + b - 1 - l : i + b2;
                if (key[i] > key[j]) {
                    uint32_t k = key[i];
                    key[i] = key[j], key[j] = k;
                    double w = val[i];
                    val[i] = val[j], val[j] = w;
                }
            }
        }
}

/* Entry `pos` of row r: at C's row pointer, or (one phase) at the row's first product. */
static void put_entry(ref_spgemm_fast_state *s, uint32_t r, uint32_t pos, uint32_t key,
                      double sum, unsigned mode)
{
    if (mode == REF_SPGEMM_ONE_PHASE || mode == REF_SPGEMM_ONE_PHASE_ORDERED) {
        size_t dst = (mode == REF_SPGEMM_ONE_PHASE_ORDERED
                          ? s->row_at
                          : (size_t)s->aux[s->apos_off + s->a->row_ptr[r]]) +
                     pos;
        s->t_ints[dst] = key;
        fast_set(s->type, s->t_vals, dst, sum);
    } else {
        size_t dst = (size_t)s->aux[s->rptr_off + r] + pos;
        s->c_ints[s->a->rows + 1 + dst] = key;
        fast_set(s->type, s->c_vals, dst, sum);
    }
}

/* ROWS_RANK on one row of n <= RANK_MAX products: a product leads its column if no earlier
 * product has it; the leader's sum is 0 plus every product of its column in product order
 * (the shader's accumulator: each invocation adds all its row's products of its column),
 * and its place is the count of leaders of smaller columns. Returns the leaders. */
static uint32_t rank_row(ref_spgemm_fast_state *s, uint32_t r, const uint32_t *key,
                         const double *val, uint32_t n, unsigned mode)
{
    bool leads[REF_SPGEMM_RANK_MAX];
    uint32_t leaders = 0;
    for (uint32_t o = 0; o < n; o++) {
        leads[o] = true;
        for (uint32_t q = 0; q < o && leads[o]; q++)
            leads[o] = key[q] != key[o];
        leaders += leads[o];
    }
    for (uint32_t o = 0; o < n && mode != REF_SPGEMM_SYMBOLIC; o++) {
        if (!leads[o])
            continue;
        double sum = 0;
        uint32_t pos = 0;
        for (uint32_t q = 0; q < n; q++) {
            if (key[q] == key[o])
                sum = fast_add(s->type, sum, val[q]);
            pos += leads[q] && key[q] < key[o];
        }
        put_entry(s, r, pos, key[o], sum, mode);
    }
    return leaders;
}

/* ROWS on one row: its CAP slots through the network, then each run of one column summed
 * left to right from its first product. Returns the runs. */
static uint32_t network_row(ref_spgemm_fast_state *s, uint32_t r, uint32_t *key, double *val,
                            uint32_t cap, unsigned mode)
{
    uint32_t runs = 0;
    rows_network(key, val, cap);
    for (uint32_t e = 0; e < cap; e++) {
        if (key[e] == FAST_PAD || (e > 0 && key[e - 1] == key[e]))
            continue;
        if (mode != REF_SPGEMM_SYMBOLIC) {
            double sum = val[e];
            for (uint32_t v = e + 1; v < cap && key[v] == key[e]; v++)
                sum = fast_add(s->type, sum, val[v]);
            put_entry(s, r, runs, key[e], sum, mode);
        }
        runs++;
    }
    return runs;
}

void ref_spgemm_rows(ref_spgemm_fast_state *s, unsigned bin, uint32_t count, size_t start,
                     unsigned mode)
{
    uint32_t cap = (uint32_t)REF_SPGEMM_MIN_CAP << bin;
    bool rank = cap <= REF_SPGEMM_RANK_MAX;
    uint32_t *key = malloc(cap * sizeof *key);
    double *val = malloc(cap * sizeof *val);
    if (!key || !val) {
        free(key);
        free(val);
        return;
    }
    uint32_t *rptr = s->aux + s->rptr_off;
    for (uint32_t at = 0; at < count; at++) {
        uint32_t r = s->aux[s->list_off + (start + at) * REF_SPGEMM_RECORD];
        for (uint32_t o = 0; o < cap; o++)
            key[o] = FAST_PAD, val[o] = 0;
        uint32_t n = row_expansion(s, r, key, val, cap);
        uint32_t entries = rank ? rank_row(s, r, key, val, n, mode)
                                : network_row(s, r, key, val, cap, mode);
        if (mode != REF_SPGEMM_NUMERIC) {
            rptr[r] = entries;
        }
    }
    free(key);
    free(val);
}

void ref_spgemm_rows_ordered(ref_spgemm_fast_state *s, uint32_t group_rows)
{
    uint32_t key[REF_SPGEMM_RANK_MAX];
    double val[REF_SPGEMM_RANK_MAX];
    uint32_t *rptr = s->aux + s->rptr_off;
    for (uint32_t r = 0; r < s->a->rows; r++) {
        if (r % group_rows == 0)
            s->row_at = s->aux[s->apos_off + s->a->row_ptr[r]];
        uint32_t n = row_expansion(s, r, key, val, REF_SPGEMM_RANK_MAX);
        rptr[r] = rank_row(s, r, key, val, n, REF_SPGEMM_ONE_PHASE_ORDERED);
        s->row_at += rptr[r];
    }
    s->group_rows = group_rows;
}

bool ref_spgemm_fast_make_c(ref_spgemm_fast_state *s)
{
    uint32_t rows = s->a->rows;
    s->nnz_c = s->aux[s->rptr_off + rows]; /* rptr scanned: its last word (products < 2^32) */
    free(s->c_ints);
    free(s->c_vals);
    s->c_ints = ref_spgemm_poisoned(rows + 1 + s->nnz_c, sizeof *s->c_ints);
    s->c_vals = ref_spgemm_poisoned(s->nnz_c, fast_size(s->type));
    if (!s->c_ints || !s->c_vals)
        return false;
    memcpy(s->c_ints, s->aux + s->rptr_off, ((size_t)rows + 1) * sizeof *s->c_ints);
    return true;
}

bool ref_spgemm_one_phase_open(ref_spgemm_fast_state *s)
{
    ref_spgemm_one_phase_free(s);
    s->t_len = (size_t)ref_spgemm_header64(s->aux, REF_SPGEMM_H_PRODUCTS);
    s->t_ints = ref_spgemm_poisoned(s->t_len, sizeof *s->t_ints);
    s->t_vals = ref_spgemm_poisoned(s->t_len, fast_size(s->type));
    if (s->t_ints && s->t_vals)
        return true;
    ref_spgemm_one_phase_free(s);
    return false;
}

void ref_spgemm_one_phase_free(ref_spgemm_fast_state *s)
{
    free(s->t_ints);
    free(s->t_vals);
    s->t_ints = NULL;
    s->t_vals = NULL;
    s->t_len = 0;
    s->group_rows = 0;
}

void ref_spgemm_rows_compact(ref_spgemm_fast_state *s)
{
    uint32_t rows = s->a->rows;
    for (uint32_t first = 0; s->group_rows && first < rows; first += s->group_rows) {
        uint32_t last = rows - first < s->group_rows ? rows : first + s->group_rows;
        size_t from = s->aux[s->apos_off + s->a->row_ptr[first]];
        for (uint32_t e = s->c_ints[first]; e < s->c_ints[last]; e++, from++) {
            s->c_ints[rows + 1 + e] = s->t_ints[from];
            fast_set(s->type, s->c_vals, e, fast_get(s->type, s->t_vals, from));
        }
    }
    for (uint32_t r = 0; !s->group_rows && r < rows; r++) {
        uint32_t p = ref_spgemm_row_products(s, r);
        if (p == 0 || p > s->shared_max)
            continue;
        size_t from = s->aux[s->apos_off + s->a->row_ptr[r]];
        for (uint32_t e = s->c_ints[r]; e < s->c_ints[r + 1]; e++, from++) {
            s->c_ints[rows + 1 + e] = s->t_ints[from];
            fast_set(s->type, s->c_vals, e, fast_get(s->type, s->t_vals, from));
        }
    }
}

/* The bits that hold every value below `bound`. */
static unsigned bits_below(size_t bound)
{
    unsigned bits = 0;
    while (bits < 64 && bound > ((size_t)1 << bits))
        bits++;
    return bits;
}

/* The radix passes over keys of `bits` bits: the bytes that can differ, at least one. */
static unsigned passes_over(unsigned bits)
{
    return bits > 8 ? (bits + 7) / 8 : 1;
}

/* A chunk's sort: its key passes (one fewer where it goes in parts), and whether all of its
 * passes, with those over the segment index where the keys are not packed, are odd. */
static bool sort_plan(ref_spgemm_chunk *ch, size_t split)
{
    ch->key_passes = passes_over(ch->col_bits);
    unsigned seg_passes = 0;
    if (ch->packed) {
        ch->key_passes = passes_over(ch->col_bits + bits_below(ch->rows));
        unsigned fewer = ch->key_passes - 1;
        size_t part_rows = fewer > 0 && 8 * fewer >= ch->col_bits
                               ? (size_t)1 << (8 * fewer - ch->col_bits)
                               : 0;
        size_t parts = part_rows ? (ch->rows + part_rows - 1) / part_rows : 0;
        if (parts && parts <= REF_SPGEMM_SORT_PARTS && split && ch->products / parts >= split)
            ch->key_passes = fewer;
    } else {
        for (size_t top = ch->rows > 1 ? ch->rows - 1 : 0; top > 0; top >>= 8)
            seg_passes++;
    }
    return (ch->key_passes + seg_passes) % 2 == 1;
}

bool ref_spgemm_chunk_open(const ref_spgemm_fast_state *s, const uint32_t *pairs, size_t rows,
                           bool numeric, bool may_pack, bool may_carry, size_t split,
                           ref_spgemm_chunk *ch)
{
    size_t products = 0;
    for (size_t r = 0; r < rows; r++)
        products += pairs[2 * r + 1];
    unsigned col_bits = bits_below(s->b->cols);
    *ch = (ref_spgemm_chunk){.rows = rows, .products = products, .numeric = numeric,
                             .seg_off = rows, .key_off = 2 * rows + 1, .col_bits = col_bits,
                             .packed = may_pack && col_bits < 32 &&
                                       col_bits + bits_below(rows) <= 32,
                             .carried = may_carry && numeric && s->type == GPGPU_TYPE_F32};
    ch->pay_off = ch->key_off + products;
    ch->flag_off = ch->pay_off + products;
    ch->words = ch->flag_off + products + 1;
    ch->ux = ref_spgemm_poisoned(ch->words, sizeof *ch->ux);
    bool vals = numeric && !ch->carried; /* carried values live in the payload's words */
    ch->vals = vals ? ref_spgemm_poisoned(products, fast_size(s->type)) : NULL;
    bool alt = sort_plan(ch, split);
    ch->alt = alt ? ref_spgemm_poisoned(ch->flag_off, sizeof *ch->alt) : NULL;
    if (!ch->ux || (vals && !ch->vals) || (alt && !ch->alt)) {
        ref_spgemm_chunk_free(ch);
        return false;
    }
    ch->ux[ch->seg_off] = 0;
    for (size_t r = 0; r < rows; r++) {
        ch->ux[r] = pairs[2 * r];
        ch->ux[ch->seg_off + r + 1] = ch->ux[ch->seg_off + r] + pairs[2 * r + 1];
    }
    if (alt)
        memcpy(ch->alt, ch->ux, (2 * rows + 1) * sizeof *ch->alt);
    return true;
}

void ref_spgemm_chunk_free(ref_spgemm_chunk *ch)
{
    free(ch->ux);
    free(ch->vals);
    free(ch->alt);
    *ch = (ref_spgemm_chunk){0};
}

bool ref_spgemm_chunk_values(const ref_spgemm_fast_state *s, ref_spgemm_chunk *ch)
{
    ch->numeric = true;
    ch->vals = ref_spgemm_poisoned(ch->products, fast_size(s->type));
    return ch->vals != NULL;
}

/* ESC_EXPAND's work: the values when numeric, the keys unless `values_only`. */
static void esc_expand(const ref_spgemm_fast_state *s, ref_spgemm_chunk *ch, bool values_only)
{
    const uint32_t *seg = ch->ux + ch->seg_off;
    uint32_t *into = ch->alt && !values_only ? ch->alt : ch->ux; /* keys and carried values */
    uint32_t longest = 0;
    for (size_t r = 0; r < ch->rows; r++)
        longest = seg[r + 1] - seg[r] > longest ? seg[r + 1] - seg[r] : longest;
    double *val = malloc((longest ? longest : 1) * sizeof *val);
    if (!val)
        return;
    uint32_t *key = values_only ? malloc((longest ? longest : 1) * sizeof *key) : NULL;
    if (values_only && !key) {
        free(val);
        return;
    }
    for (size_t r = 0; r < ch->rows; r++) {
        uint32_t room = seg[r + 1] - seg[r]; /* the pair's count of products */
        uint32_t *keys = values_only ? key : into + ch->key_off + seg[r];
        uint32_t n = row_expansion(s, ch->ux[r], keys, val, room);
        for (uint32_t o = 0; ch->packed && !values_only && o < n; o++)
            keys[o] |= (uint32_t)r << ch->col_bits;
        for (uint32_t o = 0; ch->numeric && o < n; o++) {
            if (ch->carried) {
                float v = (float)val[o];
                memcpy(into + ch->pay_off + seg[r] + o, &v, sizeof v);
            } else {
                fast_set(s->type, ch->vals, seg[r] + o, val[o]);
            }
        }
    }
    free(key);
    free(val);
}

void ref_spgemm_esc_expand(const ref_spgemm_fast_state *s, ref_spgemm_chunk *ch)
{
    esc_expand(s, ch, false);
}

void ref_spgemm_esc_values(const ref_spgemm_fast_state *s, ref_spgemm_chunk *ch)
{
    esc_expand(s, ch, true);
}

void ref_spgemm_esc_sort(ref_spgemm_chunk *ch)
{
    if (ch->alt) { /* the sort reads what ESC_EXPAND left there; alt is its scratch after */
        memcpy(ch->ux + ch->key_off, ch->alt + ch->key_off,
               2 * ch->products * sizeof *ch->ux);
        free(ch->alt);
        ch->alt = NULL;
    }
    uint32_t *pay = ch->ux + ch->pay_off;
    for (size_t t = 0; t < ch->products && !ch->carried; t++) /* carried: the values' bits */
        pay[t] = (uint32_t)t;
    ref_sort(GPGPU_TYPE_U32, false, ch->ux + ch->key_off, pay, ch->products,
             ch->ux + ch->seg_off, ch->rows);
}

void ref_spgemm_esc_flags(ref_spgemm_chunk *ch)
{
    const uint32_t *seg = ch->ux + ch->seg_off, *key = ch->ux + ch->key_off;
    uint32_t *flag = ch->ux + ch->flag_off;
    for (size_t r = 0; r < ch->rows; r++)
        for (uint32_t t = seg[r]; t < seg[r + 1]; t++)
            flag[t] = t == seg[r] || key[t] != key[t - 1];
    flag[ch->products] = 0;
}

void ref_spgemm_esc_count(ref_spgemm_fast_state *s, const ref_spgemm_chunk *ch)
{
    const uint32_t *seg = ch->ux + ch->seg_off, *flag = ch->ux + ch->flag_off;
    for (size_t r = 0; r < ch->rows; r++) {
        uint32_t n = flag[seg[r + 1]] - flag[seg[r]];
        s->aux[s->rptr_off + ch->ux[r]] = n;
    }
}

/* The value of sorted product u: its payload's bits (carried), else vals[payload]. */
static double run_value(const ref_spgemm_fast_state *s, const ref_spgemm_chunk *ch, uint32_t u)
{
    const uint32_t *pay = ch->ux + ch->pay_off;
    if (!ch->carried)
        return fast_get(s->type, ch->vals, pay[u]);
    float v;
    memcpy(&v, &pay[u], sizeof v);
    return v;
}

void ref_spgemm_esc_write(ref_spgemm_fast_state *s, const ref_spgemm_chunk *ch)
{
    const uint32_t *seg = ch->ux + ch->seg_off, *key = ch->ux + ch->key_off;
    uint32_t rows = s->a->rows;
    for (size_t r = 0; r < ch->rows; r++) {
        size_t dst = s->aux[s->rptr_off + ch->ux[r]];
        for (uint32_t t = seg[r]; t < seg[r + 1]; dst++) {
            double sum = run_value(s, ch, t);
            uint32_t u = t + 1;
            for (; u < seg[r + 1] && key[u] == key[t]; u++)
                sum = fast_add(s->type, sum, run_value(s, ch, u));
            s->c_ints[rows + 1 + dst] =
                ch->packed ? key[t] & (uint32_t)(((uint64_t)1 << ch->col_bits) - 1) : key[t];
            fast_set(s->type, s->c_vals, dst, sum);
            t = u;
        }
    }
}

