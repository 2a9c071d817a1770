/* SpGEMM against the CPU reference (src/ref/ref_spgemm.c): Kiciak's 13 classic
 * stages alone against their twins, bit for bit (each step run on the twin's
 * state uploaded, the step's pure outputs poisoned, every buffer compared with
 * poisoned guards after it); the fast product's stages (counts, bins, ROWS_RANK
 * and ROWS per bin, the global path's chunks) the same way; then whole products
 * with every algorithm in f32 and f64 against ref_spgemm_gustavson: C's
 * structure exact, its values within the reference's bound, the classic
 * product bit for bit against the replayed driver; the GPU transpose exact;
 * zeros kept and dropped; memory budgets (chunks, and too small for C); misuse;
 * and the MatrixMarket files of GPGPU_MATRIX_DIR, A*A for square ones and A*A^T
 * for the others.
 *
 * Reference inputs are what the GPU sees: A's and B's values rounded to f32
 * for f32 products, so the reference's bound (which assumes inputs exact in
 * the type) applies.
 *
 * This file holds main and the fixtures the parts share (test_spgemm.h names
 * the parts and their files). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_spgemm.h"

gpgpu_context *ctx;
gpgpu_type types[2] = {GPGPU_TYPE_F32, GPGPU_TYPE_F64};
size_t type_count = 2;

/* ------------------------------------------------------------ host helpers */

void ref_or_die(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "%s: out of host memory\n", what);
        exit(1);
    }
}

uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* rows x cols, row lengths uniform in [0, 2 avg] (columns drawn with replacement,
 * duplicates summed), every `empty`-th row empty (none when 0); values random f32,
 * or +-1 when `signs` (then every sum of products is an exact small integer). */
gpgpu_csr random_csr(uint32_t rows, uint32_t cols, uint32_t avg, uint32_t empty,
                     bool signs)
{
    uint64_t state = test_seed++;
    size_t cap = (size_t)rows * (2 * avg + 1) + 1, n = 0;
    uint32_t *r = xmalloc(cap * sizeof *r), *c = xmalloc(cap * sizeof *c);
    double *v = xmalloc(cap * sizeof *v);
    for (uint32_t i = 0; i < rows && cols > 0; i++) {
        uint32_t len = (uint32_t)(splitmix(&state) % (2 * avg + 1));
        if (empty && i % empty == empty - 1)
            len = 0;
        for (uint32_t k = 0; k < len; k++, n++) {
            uint64_t x = splitmix(&state);
            r[n] = i;
            c[n] = (uint32_t)(x % cols);
            v[n] = signs ? ((x >> 40) & 1 ? 1.0 : -1.0)
                         : (double)(float)((double)((x >> 40) % 2000 + 1) / 1000.0 *
                                           ((x >> 39) & 1 ? 1 : -1));
        }
    }
    gpgpu_csr a = {0};
    char msg[256];
    test_die_on(gpgpu_csr_from_coo(rows, cols, n, r, c, v, &a, msg, sizeof msg), msg);
    if (signs) /* duplicates summed may give 0 or +-2: still exact integers */
        for (size_t k = 0; k < a.nnz; k++)
            a.values[k] = a.values[k] == 0 ? 1 : a.values[k];
    free(r);
    free(c);
    free(v);
    return a;
}

/* A deep copy of a, its values rounded to f32 when t is. */
gpgpu_csr as_type(const gpgpu_csr *a, gpgpu_type t)
{
    gpgpu_csr b = test_csr_of(a->rows, a->cols, a->nnz, a->row_ptr, a->col_idx, a->values);
    for (size_t k = 0; t == GPGPU_TYPE_F32 && k < a->nnz; k++)
        b.values[k] = (double)(float)a->values[k];
    return b;
}

gpgpu_matrix *upload(const gpgpu_csr *a, gpgpu_type t)
{
    gpgpu_matrix *m = NULL;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = t}, a, &m),
                  GPGPU_SUCCESS);
    return m;
}

/* Bytes of a CSR matrix of `type` on the GPU: row pointers, columns, values. */
size_t csr_bytes(uint32_t rows, size_t nnz, gpgpu_type t)
{
    return ((size_t)rows + 1 + nnz) * sizeof(uint32_t) + nnz * gpgpu_type_size(t);
}

/* ---------------------------------------------------------- CSR comparisons */

/* got has exactly want's structure (dimensions, row pointers, columns); prints the first
 * difference. */
bool same_structure(const char *what, const gpgpu_csr *got, const gpgpu_csr *want)
{
    if (got->rows != want->rows || got->cols != want->cols || got->nnz != want->nnz) {
        EXPECT(false, "%s: C is %ux%u with %zu entries, expected %ux%u with %zu", what,
               got->rows, got->cols, got->nnz, want->rows, want->cols, want->nnz);
        return false;
    }
    for (uint32_t i = 0; i <= want->rows; i++) {
        if (got->row_ptr[i] != want->row_ptr[i]) {
            EXPECT(false, "%s: row_ptr[%u] = %u, expected %u", what, i, got->row_ptr[i],
                   want->row_ptr[i]);
            return false;
        }
    }
    for (size_t e = 0; e < want->nnz; e++) {
        if (got->col_idx[e] != want->col_idx[e]) {
            uint32_t row = 0;
            while (want->row_ptr[row + 1] <= e)
                row++;
            EXPECT(false, "%s: entry %zu (row %u): column %u, expected %u", what, e, row,
                   got->col_idx[e], want->col_idx[e]);
            return false;
        }
    }
    test_checks++;
    return true;
}

/* Values within bound (bit for bit where bound is NULL); a value of an f32 matrix must
 * be an f32. */
void close_values(const char *what, const gpgpu_csr *got, const gpgpu_csr *want,
                  const double *bound, gpgpu_type t)
{
    size_t bad = 0;
    for (size_t e = 0; e < want->nnz; e++) {
        double g = got->values[e], w = want->values[e];
        bool ok = bound ? fabs(g - w) <= bound[e] : memcmp(&g, &w, sizeof g) == 0;
        ok = ok && (t != GPGPU_TYPE_F32 || (double)(float)g == g || isnan(g));
        if (!ok && ++bad <= 5)
            fprintf(stderr, "  %s: entry %zu (column %u): got %.17g, expected %.17g (%s %g)\n",
                    what, e, want->col_idx[e], g, w, bound ? "bound" : "bit-exact",
                    bound ? bound[e] : 0.0);
    }
    EXPECT(bad == 0, "%s: %zu of %zu values differ", what, bad, want->nnz);
}

/* The host image of a GPU matrix, checked against want (values within bound, or bit for
 * bit where bound is NULL). */
void check_matrix(const char *what, const gpgpu_matrix *m, const gpgpu_csr *want,
                  const double *bound, gpgpu_type t)
{
    gpgpu_csr got = {0};
    gpgpu_status s = gpgpu_matrix_download(m, &got);
    EXPECT(s == GPGPU_SUCCESS, "%s: gpgpu_matrix_download: %s", what, gpgpu_last_error(ctx));
    if (s != GPGPU_SUCCESS)
        return;
    gpgpu_matrix_info info;
    EXPECT_STATUS(ctx, gpgpu_matrix_get_info(m, &info), GPGPU_SUCCESS);
    EXPECT(info.type == t && info.format == GPGPU_FORMAT_CSR && info.rows == want->rows &&
               info.cols == want->cols && info.nnz == want->nnz,
           "%s: gpgpu_matrix_get_info: %s %s %ux%u nnz %zu", what, gpgpu_type_name(info.type),
           gpgpu_format_name(info.format), info.rows, info.cols, info.nnz);
    if (same_structure(what, &got, want))
        close_values(what, &got, want, bound, t);
    gpgpu_csr_free(&got);
}

/* Poisons words [from, from + n) of a u32 array (the twin's and, once uploaded, the GPU's). */
void poison_u32(uint32_t *a, size_t from, size_t n)
{
    test_poison(a + from, n * sizeof *a);
}

/* A 6x5 and B 5x7 by hand: A's rows 0 and 4 empty; row 2 reaches only B's empty row 1 (no
 * products), row 3 every row of B (collisions in every column), row 1 rows 0, 2, 4 of B. */
void hand_pair(gpgpu_csr *a, gpgpu_csr *b)
{
    static const uint32_t arp[] = {0, 0, 3, 4, 9, 9, 10};
    static const uint32_t aci[] = {0, 2, 4, 1, 0, 1, 2, 3, 4, 3};
    static const uint32_t brp[] = {0, 3, 3, 6, 7, 14};
    static const uint32_t bci[] = {1, 3, 6, 0, 1, 3, 6, 0, 1, 2, 3, 4, 5, 6};
    *a = test_csr_of(6, 5, 10, arp, aci, NULL);
    *b = test_csr_of(5, 7, 14, brp, bci, NULL);
}

/* --------------------------------------------------------- whole products */

reference make_reference(const gpgpu_csr *a, const gpgpu_csr *b, gpgpu_type t)
{
    reference r = {.t = t, .ar = as_type(a, t), .br = as_type(b, t)};
    uint64_t longest = 0;
    ref_or_die(ref_spgemm_gustavson(t, &r.ar, &r.br, &r.c, &r.bound), "ref_spgemm_gustavson");
    r.products = ref_spgemm_products(&r.ar, &r.br);
    for (uint32_t i = 0; i < r.ar.rows; i++) {
        uint64_t p = 0;
        for (uint32_t k = r.ar.row_ptr[i]; k < r.ar.row_ptr[i + 1]; k++)
            p += r.br.row_ptr[r.ar.col_idx[k] + 1] - r.br.row_ptr[r.ar.col_idx[k]];
        r.long_rows += p > SHARED_MAX_PRODUCTS;
        r.busy_rows += p > 0;
        longest = p > longest ? p : longest;
    }
    double nn = 1, steps = 0;
    for (unsigned k = 1; nn < longest; k++, nn *= 2)
        steps += k;
    r.classic_sort = r.ar.rows * nn / 2 * steps;
    return r;
}

void free_reference(reference *r)
{
    gpgpu_csr_free(&r->ar);
    gpgpu_csr_free(&r->br);
    gpgpu_csr_free(&r->c);
    free(r->bound);
}

/* gpgpu_spgemm of ma * mb (holding r's A and B) with desc, against r: structure exact,
 * values within the bound, the statistics. Returns whether the product was made; its
 * statistics in *out (may be NULL). */
bool check_spgemm(const char *name, const gpgpu_matrix *ma, const gpgpu_matrix *mb,
                  const reference *r, const gpgpu_spgemm_desc *desc,
                  gpgpu_spgemm_stats *out)
{
    char what[300];
    snprintf(what, sizeof what, "%s %ux%u*%ux%u %s %s%s", name, r->ar.rows, r->ar.cols,
             r->br.rows, r->br.cols, gpgpu_type_name(r->t), algo_name(desc->algo),
             desc->memory_budget ? " (budget)" : "");
    gpgpu_matrix *mc = NULL;
    gpgpu_spgemm_stats st;
    memset(&st, 0xA5, sizeof st);
    gpgpu_status s = gpgpu_spgemm(ctx, desc, ma, mb, &mc, &st);
    if (out)
        *out = st;
    EXPECT(s == GPGPU_SUCCESS && mc, "%s: gpgpu_spgemm: %s (%s)", what, gpgpu_status_string(s),
           gpgpu_last_error(ctx));
    if (s != GPGPU_SUCCESS || !mc)
        return false;
    check_matrix(what, mc, &r->c, r->bound, r->t);
    check_row_stats(what, mc, &r->c); /* what SpMV reads, found on the GPU */
    EXPECT(st.products == r->products && st.nnz == r->c.nnz && st.dropped == 0,
           "%s: stats: %llu products, %zu entries, %zu dropped; expected %llu, %zu, 0", what,
           (unsigned long long)st.products, st.nnz, st.dropped,
           (unsigned long long)r->products, r->c.nnz);
    EXPECT(st.peak_bytes >= csr_bytes(r->c.rows, r->c.nnz, r->t) &&
               (!desc->memory_budget || desc->algo == GPGPU_ALGO_CLASSIC_SPGEMM ||
                st.peak_bytes <= desc->memory_budget),
           "%s: peak_bytes %zu (C alone takes %zu, budget %zu)", what, st.peak_bytes,
           csr_bytes(r->c.rows, r->c.nnz, r->t), desc->memory_budget);
    if (desc->algo == GPGPU_ALGO_SPGEMM_ESC)
        EXPECT(st.long_rows == r->busy_rows && (st.chunks > 0) == (r->busy_rows > 0),
               "%s: ESC: %u long rows in %u chunks, expected every row with products (%u)",
               what, st.long_rows, st.chunks, r->busy_rows);
    else if (desc->algo != GPGPU_ALGO_CLASSIC_SPGEMM)
        EXPECT(st.long_rows == r->long_rows && (st.chunks > 0) == (r->long_rows > 0),
               "%s: %u long rows in %u chunks, expected %u rows past %d products", what,
               st.long_rows, st.chunks, r->long_rows, SHARED_MAX_PRODUCTS);
    gpgpu_matrix_destroy(mc);
    return true;
}

const gpgpu_algo all_algos[4] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_SPGEMM_ROWS,
                                 GPGPU_ALGO_SPGEMM_ESC, GPGPU_ALGO_CLASSIC_SPGEMM};

/* The GPU transpose of m (holding ar) against ref_transpose, bit for bit; returns it. */
gpgpu_matrix *checked_transpose(const char *name, const gpgpu_matrix *m,
                                const gpgpu_csr *ar, gpgpu_type t)
{
    char what[200];
    snprintf(what, sizeof what, "%s %s transpose", name, gpgpu_type_name(t));
    gpgpu_matrix *mt = NULL;
    gpgpu_status s = gpgpu_matrix_transpose(ctx, m, &mt);
    EXPECT(s == GPGPU_SUCCESS && mt, "%s: %s", what, gpgpu_last_error(ctx));
    if (!mt)
        return NULL;
    gpgpu_csr want;
    ref_or_die(ref_transpose(ar, &want), "ref_transpose");
    check_matrix(what, mt, &want, NULL, t);
    gpgpu_csr_free(&want);
    return mt;
}

int cmp_first_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

int main(void)
{
    ctx = test_context();
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    if (!info.has_f64)
        type_count = 1;
    misuse();
    classic_stage_tests();
    fast_stage_tests();
    edge_products();
    crafted_zeros();
    integer_zeros();
    generated_products();
    budgets();
    packing_rule();
    long_rows_paths();
    long_rows_parts();
    transpose_bindings();
    one_phase_budgets();
    matrix_files();
    gpgpu_context_destroy(ctx);
    return test_finish();
}
