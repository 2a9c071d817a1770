/* The matrices the fast stages are replayed on (test_spgemm_fast.c): values whose sums are
 * exact or round, rows at every bin's edges and past the shared path, rows of more nonzeros
 * than their bin's width, products without products; and the list of cases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_spgemm.h"

/* A value exact in f32: +-{1, 2, 3} times 2^{-1, 0, 1}. Products are then multiples of 1/4
 * below 36 in magnitude, and any sum of a few thousand of them is exact in f32 (20 bits),
 * so C has one right value whatever the order, and the stages can be compared bit for bit
 * with Gustavson's too. Not `exact`: mostly an f32 of +-[0.001, 2], whose sums round, so
 * only the twin's order of additions (product order, the network's, the sort's) matches
 * the GPU's bit for bit. */
static double fast_value(uint64_t x, bool exact)
{
    /* and a few signed zeros: a column of only -0 products sums to +0 in ROWS_RANK (which
     * adds from 0), to -0 in ROWS and ESC_WRITE (which add from the first product) */
    if (!exact && x % 61 == 0)
        return (x >> 16) & 1 ? -0.0 : 0.0;
    if (!exact)
        return (double)(float)((double)(x % 2000 + 1) / 1000.0 * ((x >> 16) & 1 ? -1 : 1));
    return (double)(1 + x % 3) * ldexp(1, (int)((x >> 8) % 3) - 1) * ((x >> 16) & 1 ? -1 : 1);
}

/* One row of A with `target` products from B rows not used yet in it (only B rows of one
 * product when `ones`) and `empties` nonzeros on empty B rows between them; appended to
 * ci/v at *n, columns ascending. */
static void fast_row(const gpgpu_csr *b, uint32_t row, uint32_t target, uint32_t empties,
                     bool ones, bool exact, uint64_t *state, uint32_t *mark, uint32_t *ci,
                     double *v, size_t *n)
{
    uint32_t inner = b->rows, left = target, start = (uint32_t)*n;
    for (uint32_t tries = 0; left > 0; tries++) {
        if (tries > 100 * inner) {
            fprintf(stderr, "fast_row: no %u products for row %u\n", target, row);
            exit(1);
        }
        uint32_t j = (uint32_t)(splitmix(state) % inner), len = b->row_ptr[j + 1] - b->row_ptr[j];
        if (mark[j] == row + 1 || len == 0 || len > left || (ones && len != 1))
            continue;
        mark[j] = row + 1;
        ci[(*n)++] = j;
        left -= len;
    }
    for (uint32_t e = 0, tries = 0; e < empties; tries++) {
        uint32_t j = (uint32_t)(splitmix(state) % inner);
        if (tries > 100 * inner) {
            fprintf(stderr, "fast_row: no %u empty rows of B for row %u\n", empties, row);
            exit(1);
        }
        if (mark[j] == row + 1 || b->row_ptr[j + 1] != b->row_ptr[j])
            continue;
        mark[j] = row + 1;
        ci[(*n)++] = j;
        e++;
    }
    qsort(ci + start, *n - start, 4, cmp_first_u32);
    for (size_t k = start; k < *n; k++)
        v[k] = fast_value(splitmix(state), exact);
}

/* A (rows x inner) and B (inner x cols) for the fast stages. B: every third row empty, the
 * others 1 to 150 distinct columns, half drawn from the first 64 columns so A's rows meet
 * the same columns often (runs in every bin). A: the first `specials` of these rows, at
 * every 11th row: rows of few products but more nonzeros than their bin's CAP (most on
 * empty B rows: ROWS_RANK without its spread; 33 nonzeros for CAP 32 at its edge), rows of
 * every bin at its edges (1, 32, 33, 64, 65, 128, 129, ..., 2048 products, and 2049 and
 * 4500 past the shared path), rows of nonzeros but no products; every 13th row empty; the
 * rest random in a random bin with a few empty B rows between their nonzeros. Values
 * fast_value's. Returns whether the special rows fitted in A. */
static bool fast_pair(uint32_t rows, uint32_t inner, uint32_t cols, bool exact,
                      size_t specials, gpgpu_csr *a, gpgpu_csr *b)
{
    static const uint32_t lens[] = {1, 1, 1, 1, 2, 3, 5, 8, 13, 21, 40, 77, 150};
    static const struct { uint32_t products, empties; bool ones; } special[] = {
        {32, 1, true},    {50, 30, true},    {100, 60, true},   {3, 29, true},
        {120, 9, true},   {10, 190, true},   {32, 0, true},     {1, 0, false},
        {33, 0, false},   {64, 2, false},    {65, 1, false},    {128, 0, false},
        {129, 3, false},  {256, 0, false},   {257, 2, false},   {512, 0, false},
        {513, 1, false},  {1024, 0, false},  {1025, 2, false},  {2048, 1, false},
        {2049, 0, false}, {4500, 3, false},  {0, 5, false},     {0, 0, false},
    };
    uint64_t state = test_seed++;
    uint32_t *mark = xmalloc((size_t)(inner > cols ? inner : cols) * 4);
    memset(mark, 0, (size_t)(inner > cols ? inner : cols) * 4);
    size_t cap = (size_t)inner * 150 + 1, n = 0;
    *b = (gpgpu_csr){inner, cols, 0, xmalloc(((size_t)inner + 1) * 4), xmalloc(cap * 4),
                     xmalloc(cap * sizeof(double))};
    for (uint32_t j = 0; j < inner; j++) {
        b->row_ptr[j] = (uint32_t)n;
        uint32_t len = j % 3 == 0 ? 0 : lens[splitmix(&state) % (sizeof lens / sizeof *lens)];
        len = len < cols ? len : cols;
        size_t start = n;
        for (uint32_t k = 0; k < len; k++) {
            uint64_t x = splitmix(&state);
            uint32_t c = (uint32_t)(x & 1 ? (x >> 8) % (cols < 64 ? cols : 64) : (x >> 8) % cols);
            while (mark[c] == j + 1)
                c = (c + 1) % cols;
            mark[c] = j + 1;
            b->col_idx[n] = c;
            b->values[n++] = fast_value(splitmix(&state), exact);
        }
        qsort(b->col_idx + start, n - start, 4, cmp_first_u32);
    }
    b->row_ptr[inner] = (uint32_t)n;
    b->nnz = n;

    memset(mark, 0, (size_t)inner * 4);
    size_t acap = (size_t)rows * inner + 1;
    *a = (gpgpu_csr){rows, inner, 0, xmalloc(((size_t)rows + 1) * 4), xmalloc(acap * 4),
                     xmalloc(acap * sizeof(double))};
    size_t nspecial = sizeof special / sizeof *special, used = 0;
    nspecial = specials < nspecial ? specials : nspecial;
    n = 0;
    for (uint32_t i = 0; i < rows; i++) {
        a->row_ptr[i] = (uint32_t)n;
        if (i % 11 == 4 && used < nspecial) { /* spread through A, not all in one group */
            fast_row(b, i, special[used].products, special[used].empties, special[used].ones,
                     exact, &state, mark, a->col_idx, a->values, &n);
            used++;
        } else if (i % 13 != 7) {
            unsigned bin = (unsigned)(splitmix(&state) % 7);
            uint32_t lo = bin ? (32u << (bin - 1)) + 1 : 1, hi = 32u << bin;
            uint32_t p = lo + (uint32_t)(splitmix(&state) % (hi - lo + 1));
            fast_row(b, i, p, (uint32_t)(splitmix(&state) % 4), false, exact, &state, mark,
                     a->col_idx, a->values, &n);
        }
    }
    a->row_ptr[rows] = (uint32_t)n;
    a->nnz = n;
    free(mark);
    return used == nspecial;
}

/* Rows of A that ROWS_RANK takes without its spread: products in a bin of CAP <= RANK_MAX,
 * more nonzeros of A than the bin's row width (its longest row's products, at least 32). */
static uint32_t unspread_rows(const gpgpu_csr *a, const gpgpu_csr *b)
{
    uint32_t count = 0, longest[REF_SPGEMM_BINS] = {0};
    for (int pass = 0; pass < 2; pass++) { /* the bins' longest rows, then the count */
        for (uint32_t i = 0; i < a->rows; i++) {
            uint32_t p = 0, nz = a->row_ptr[i + 1] - a->row_ptr[i];
            for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
                p += b->row_ptr[a->col_idx[k] + 1] - b->row_ptr[a->col_idx[k]];
            unsigned bin = p ? ref_spgemm_bin_of(p, REF_SPGEMM_SHARED_MAX) : REF_SPGEMM_LONG_BIN;
            uint32_t cap = (uint32_t)REF_SPGEMM_MIN_CAP << bin;
            uint32_t width = longest[bin] > REF_SPGEMM_MIN_CAP ? longest[bin] : REF_SPGEMM_MIN_CAP;
            if (pass == 0)
                longest[bin] = p > longest[bin] ? p : longest[bin];
            else
                count += cap <= REF_SPGEMM_RANK_MAX && nz > width;
        }
    }
    return count;
}

/* The fast stages one by one (on both backends, f32 and f64): the hand pair (every row in
 * bin 0, one reaching only an empty row of B), a product without products, the generated
 * pair covering every bin through DEFAULT with exact sums; then, with sums that round (so
 * each stage's order of additions is what is compared), a smaller pair of every shared bin
 * and one through SPGEMM_ESC (every row long: chunks only). First, the twin's copies of
 * the library's constants. */
void fast_stage_tests(void)
{
    static const struct { const char *name; int twin, lib; } consts[] = {
        {"BINS", REF_SPGEMM_BINS, SPGEMM_BINS},
        {"LONG_BIN", REF_SPGEMM_LONG_BIN, SPGEMM_LONG_BIN},
        {"MIN_CAP", REF_SPGEMM_MIN_CAP, SPGEMM_MIN_CAP},
        {"SHARED_MAX", REF_SPGEMM_SHARED_MAX, SPGEMM_SHARED_MAX},
        {"RANK_MAX", REF_SPGEMM_RANK_MAX, SPGEMM_RANK_MAX},
        {"RECORD", REF_SPGEMM_RECORD, SPGEMM_RECORD},
        {"H_COUNT", REF_SPGEMM_H_COUNT, SPGEMM_H_COUNT},
        {"H_FILL", REF_SPGEMM_H_FILL, SPGEMM_H_FILL},
        {"H_PRODUCTS", REF_SPGEMM_H_PRODUCTS, SPGEMM_H_PRODUCTS},
        {"H_LONGEST", REF_SPGEMM_H_LONGEST, SPGEMM_H_LONGEST},
        {"H_B_LEFT", REF_SPGEMM_H_B_LEFT, SPGEMM_H_B_LEFT},
        {"H_B_RIGHT", REF_SPGEMM_H_B_RIGHT, SPGEMM_H_B_RIGHT},
        {"H_WINDOW", REF_SPGEMM_H_WINDOW, SPGEMM_H_WINDOW},
        {"HEADER", REF_SPGEMM_HEADER, SPGEMM_HEADER},
    };
    for (size_t k = 0; k < sizeof consts / sizeof *consts; k++)
        EXPECT(consts[k].twin == consts[k].lib,
               "REF_SPGEMM_%s is %d in src/ref/ref.h, SPGEMM_%s %d in src/algo/spgemm.h",
               consts[k].name, consts[k].twin, consts[k].name, consts[k].lib);
    /* the seeds taken here are given back, so the later tests' random matrices (and their
     * time: CLASSIC runs where its sort stays small) are what they are without these */
    uint64_t seed = test_seed;
    gpgpu_csr ha, hb;
    hand_pair(&ha, &hb);
    uint64_t state = test_seed++;
    for (size_t k = 0; k < ha.nnz; k++)
        ha.values[k] = fast_value(splitmix(&state), true);
    for (size_t k = 0; k < hb.nnz; k++)
        hb.values[k] = fast_value(splitmix(&state), true);
    /* A's columns 1 and 3 meet only B's empty rows 1 and 3 */
    static const uint32_t np_arp[] = {0, 1, 1, 3}, np_aci[] = {1, 1, 3};
    static const uint32_t np_brp[] = {0, 2, 2, 3, 3}, np_bci[] = {0, 4, 2};
    gpgpu_csr na = test_csr_of(3, 4, 3, np_arp, np_aci, NULL);
    gpgpu_csr nb = test_csr_of(4, 5, 3, np_brp, np_bci, NULL);
    gpgpu_csr ba, bb, ia, ib, ea, eb;
    EXPECT(fast_pair(333, 901, 1237, true, 24, &ba, &bb) &&
               fast_pair(100, 901, 1237, false, 9, &ia, &ib), /* none long */
           "fast_pair: the special rows do not fit");
    EXPECT(unspread_rows(&ba, &bb) >= 5 && unspread_rows(&ia, &ib) >= 5,
           "fast_pair: %u and %u rows for ROWS_RANK without its spread", unspread_rows(&ba, &bb),
           unspread_rows(&ia, &ib));
    fast_pair(61, 307, 97, false, 0, &ea, &eb);
    /* ROWS_RANK's rows as wide as their bin's longest, not CAP: laplace3d's inner rows of 49
     * products (5 rows of a group in bin 1), banded rows of 81 (3 in bin 2) */
    gpgpu_csr lap = test_generated(GPGPU_GEN_LAPLACE3D_7, 7, 0);
    gpgpu_csr band = test_generated(GPGPU_GEN_BANDED, 400, 4);
    for (size_t k = 0; k < lap.nnz; k++)
        lap.values[k] = fast_value(splitmix(&state), false);
    for (size_t k = 0; k < band.nnz; k++)
        band.values[k] = fast_value(splitmix(&state), false);
    for (size_t ti = 0; ti < type_count; ti++) {
        gpgpu_type t = types[ti];
        fast_stages("hand", &ha, &hb, t, GPGPU_ALGO_DEFAULT, true, 1u);
        fast_stages("no products", &na, &nb, t, GPGPU_ALGO_DEFAULT, true, 0);
        fast_stages("every bin", &ba, &bb, t, GPGPU_ALGO_DEFAULT, true, 0xffu);
        fast_stages("every shared bin, rounding", &ia, &ib, t, GPGPU_ALGO_DEFAULT, false, 0x7fu);
        fast_stages("every row long, rounding", &ea, &eb, t, GPGPU_ALGO_SPGEMM_ESC, false,
                    1u << SPGEMM_LONG_BIN);
        fast_stages("laplace3d_7:7, rounding", &lap, &lap, t, GPGPU_ALGO_DEFAULT, false, 2u);
        fast_stages("banded:400:4, rounding", &band, &band, t, GPGPU_ALGO_DEFAULT, false, 4u);
    }
    gpgpu_csr_free(&lap);
    gpgpu_csr_free(&band);
    gpgpu_csr_free(&ha);
    gpgpu_csr_free(&hb);
    gpgpu_csr_free(&na);
    gpgpu_csr_free(&nb);
    gpgpu_csr_free(&ba);
    gpgpu_csr_free(&bb);
    gpgpu_csr_free(&ia);
    gpgpu_csr_free(&ib);
    gpgpu_csr_free(&ea);
    gpgpu_csr_free(&eb);
    test_seed = seed;
}
