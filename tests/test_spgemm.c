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
 * the type) applies. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "algo/sort.h"
#include "algo/spgemm.h"
#include "algo/tuning.h"
#include "gpgpu/io.h"
#include "gpgpu/sparse.h"
#include "ref/ref.h"
#include "matrices/matrices.h"
#include "testlib.h"

static gpgpu_context *ctx;
static gpgpu_type types[2] = {GPGPU_TYPE_F32, GPGPU_TYPE_F64};
static size_t type_count = 2;

/* Test time on llvmpipe. The classic product's sort runs rows x nn/2 invocations in each
 * of its log2(nn) (log2(nn) + 1) / 2 steps, nn the longest row's products rounded up to a
 * power of two (a 2500-row matrix with one row of 7543 products: 10^9 invocations, minutes):
 * it is tried where that stays below CLASSIC_MAX_SORT. The matrix files are tried up to
 * FILE_MAX_PRODUCTS products, in f32 too up to FILE_F32_MAX_PRODUCTS. */
#define CLASSIC_MAX_SORT 2e7
enum { FILE_MAX_PRODUCTS = 3000000, FILE_F32_MAX_PRODUCTS = 50000 };

/* The longest row (in products) the shared-memory path of SPGEMM_ROWS takes. */
enum { SHARED_MAX_PRODUCTS = 2048 };

/* ------------------------------------------------------------ host helpers */

static void ref_or_die(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "%s: out of host memory\n", what);
        exit(1);
    }
}

static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* rows x cols, row lengths uniform in [0, 2 avg] (columns drawn with replacement,
 * duplicates summed), every `empty`-th row empty (none when 0); values random f32,
 * or +-1 when `signs` (then every sum of products is an exact small integer). */
static gpgpu_csr random_csr(uint32_t rows, uint32_t cols, uint32_t avg, uint32_t empty,
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
static gpgpu_csr as_type(const gpgpu_csr *a, gpgpu_type t)
{
    gpgpu_csr b = test_csr_of(a->rows, a->cols, a->nnz, a->row_ptr, a->col_idx, a->values);
    for (size_t k = 0; t == GPGPU_TYPE_F32 && k < a->nnz; k++)
        b.values[k] = (double)(float)a->values[k];
    return b;
}

static gpgpu_matrix *upload(const gpgpu_csr *a, gpgpu_type t)
{
    gpgpu_matrix *m = NULL;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = t}, a, &m),
                  GPGPU_SUCCESS);
    return m;
}

/* Bytes of a CSR matrix of `type` on the GPU: row pointers, columns, values. */
static size_t csr_bytes(uint32_t rows, size_t nnz, gpgpu_type t)
{
    return ((size_t)rows + 1 + nnz) * sizeof(uint32_t) + nnz * gpgpu_type_size(t);
}

/* ---------------------------------------------------------- CSR comparisons */

/* got has exactly want's structure (dimensions, row pointers, columns); prints the first
 * difference. */
static bool same_structure(const char *what, const gpgpu_csr *got, const gpgpu_csr *want)
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
static void close_values(const char *what, const gpgpu_csr *got, const gpgpu_csr *want,
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
static void check_matrix(const char *what, const gpgpu_matrix *m, const gpgpu_csr *want,
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

/* ------------------------------------------------------ the classic stages */

/* The six arrays of struct spgemm_classic, in its order. */
enum { ARR_OFF, ARR_PAIRS, ARR_PROD, ARR_TAB, ARR_C_INTS, ARR_C_VALS, ARRAYS };
static const char *const array_names[ARRAYS] = {"off", "pairs", "prod", "tab", "c_ints",
                                                "c_vals"};
enum { GUARD = 3 }; /* poisoned elements after each array in its buffer */

/* A product replayed stage by stage on the GPU alongside its twin. */
typedef struct stage_replay {
    const char *name;
    gpgpu_type t;
    spgemm_classic g;            /* the GPU's state */
    gpgpu_buffer *bufs[ARRAYS];  /* the same buffers as g's, by index */
    size_t lens[ARRAYS];         /* elements the twin's arrays hold */
    gpgpu_status status;         /* of the GPU's step */
    bool failed;                 /* a step differed: the later ones are not compared */
    unsigned steps;
} stage_replay;

static void *array_of(ref_spgemm_classic_state *s, int k, size_t *len, size_t *size)
{
    size_t prec = gpgpu_type_size(s->type), rows = s->a->rows;
    switch (k) {
    case ARR_OFF: *len = s->a->nnz + 1, *size = 4; return s->off;
    case ARR_PAIRS: *len = 2 * s->products, *size = 4; return s->pairs;
    case ARR_PROD: *len = s->products, *size = prec; return s->prod;
    case ARR_TAB: *len = 3 * s->tablgt, *size = 4; return s->tab;
    case ARR_C_INTS: *len = rows + 1 + s->nnz_c, *size = 4; return s->c_ints;
    default: *len = s->nnz_c, *size = prec; return s->c_vals;
    }
}

/* Poisons words [from, from + n) of a u32 array (the twin's and, once uploaded, the GPU's). */
static void poison_u32(uint32_t *a, size_t from, size_t n)
{
    test_poison(a + from, n * sizeof *a);
}

/* The arrays a stage only writes: poisoned before it, so an element it should write and
 * does not shows. Stages 5, 6, 10, 11 and the scan work in place. */
static void poison_outputs(ref_spgemm_classic_state *s, unsigned stage)
{
    size_t rows = s->a->rows, tl = s->tablgt, prec = gpgpu_type_size(s->type);
    switch (stage) {
    case 1: poison_u32(s->off, 0, s->a->nnz + 1); break;
    case 2:
        poison_u32(s->pairs, 0, 2 * s->products);
        test_poison(s->prod, s->products * prec);
        break;
    case 3: poison_u32(s->tab, 0, rows + 1); break;
    case 4: poison_u32(s->tab, tl, rows); break;
    case 7: poison_u32(s->tab, 0, s->products + 1); break;
    case 8:
        poison_u32(s->c_ints, rows + 1, s->nnz_c);
        poison_u32(s->tab, tl, s->nnz_c + 1);
        break;
    case 9: poison_u32(s->tab, 2 * tl, s->nnz_c); break;
    case 12:
        test_poison(s->c_vals, s->nnz_c * prec);
        poison_u32(s->tab, 0, s->nnz_c);
        break;
    case 13: poison_u32(s->c_ints, 0, rows + 1); break;
    default: break;
    }
}

static void step_label(char *out, size_t size, const stage_replay *r, unsigned stage,
                       uint32_t t, uint32_t nn, bool reverse)
{
    if (stage == 0)
        snprintf(out, size, "%s %s classic scan after stage %u", r->name,
                 gpgpu_type_name(r->t), t);
    else
        snprintf(out, size, "%s %s classic stage %u t=%u nn=%u%s", r->name,
                 gpgpu_type_name(r->t), stage, t, nn, reverse ? " reverse" : "");
}

/* Before a step: the twin's state (outputs poisoned) uploaded into buffers made to its
 * sizes, then the GPU's step. */
static void gpu_step(ref_spgemm_classic_state *s, stage_replay *r, unsigned stage, uint32_t t,
                     uint32_t nn, bool reverse)
{
    poison_outputs(s, stage);
    for (int k = 0; k < ARRAYS; k++) {
        size_t len, size;
        void *host = array_of(s, k, &len, &size);
        if (!host)
            continue;
        if (!r->bufs[k]) {
            r->bufs[k] = test_buffer(ctx, NULL, (len + GUARD) * size);
            r->lens[k] = len;
        }
        EXPECT(r->lens[k] == len, "%s: the twin's %s changed size", r->name, array_names[k]);
        EXPECT_STATUS(ctx, gpgpu_buffer_upload(r->bufs[k], 0, host, len * size), GPGPU_SUCCESS);
    }
    r->g.off = r->bufs[ARR_OFF], r->g.pairs = r->bufs[ARR_PAIRS], r->g.prod = r->bufs[ARR_PROD];
    r->g.tab = r->bufs[ARR_TAB], r->g.c_ints = r->bufs[ARR_C_INTS];
    r->g.c_vals = r->bufs[ARR_C_VALS];
    r->g.products = s->products, r->g.tablgt = s->tablgt, r->g.nnz_c = s->nnz_c;
    if (stage == 0 && t == 1)
        r->status = spgemm_classic_scan(ctx, r->g.off, 1, s->a->nnz);
    else if (stage == 0)
        r->status = spgemm_classic_scan(ctx, r->g.tab, 1, s->products);
    else
        r->status = spgemm_classic_stage(ctx, &r->g, stage, t, nn, reverse);
}

/* After the twin's step: every buffer downloaded and compared with the twin's array and
 * its poisoned guards. */
static void compare_step(ref_spgemm_classic_state *s, stage_replay *r, unsigned stage,
                         uint32_t t, uint32_t nn, bool reverse)
{
    char what[256], label[300];
    step_label(what, sizeof what, r, stage, t, nn, reverse);
    r->steps++;
    if (r->status != GPGPU_SUCCESS) {
        EXPECT(false, "%s: %s: %s", what, gpgpu_status_string(r->status),
               gpgpu_last_error(ctx));
        r->failed = true;
        return;
    }
    int before = test_failures;
    for (int k = 0; k < ARRAYS; k++) {
        size_t len, size;
        void *host = array_of(s, k, &len, &size);
        if (!host)
            continue;
        char *want = xmalloc((len + GUARD) * size), *got = xmalloc((len + GUARD) * size);
        memcpy(want, host, len * size);
        test_poison(want + len * size, GUARD * size);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(r->bufs[k], 0, got, (len + GUARD) * size),
                      GPGPU_SUCCESS);
        gpgpu_type et = size == 4 ? (k == ARR_PROD || k == ARR_C_VALS ? GPGPU_TYPE_F32
                                                                      : GPGPU_TYPE_U32)
                                  : GPGPU_TYPE_F64;
        snprintf(label, sizeof label, "%s: %s (%zu + %d guard)", what, array_names[k], len,
                 GUARD);
        check_elems(label, et, got, want, len + GUARD, NULL);
        free(want);
        free(got);
    }
    r->failed = test_failures != before;
}

static void stage_hook(ref_spgemm_classic_state *s, unsigned stage, uint32_t t, uint32_t nn,
                       bool reverse, bool after, void *user)
{
    stage_replay *r = user;
    if (r->failed)
        return; /* the first differing step is the one to read */
    if (after)
        compare_step(s, r, stage, t, nn, reverse);
    else
        gpu_step(s, r, stage, t, nn, reverse);
}

/* Every step of the classic driver, GPU against twin, on a's and b's values rounded to t;
 * then the whole classic product through gpgpu_spgemm against the replayed driver, bit for
 * bit. */
static void classic_stages(const char *name, const gpgpu_csr *a, const gpgpu_csr *b,
                           gpgpu_type t)
{
    gpgpu_csr ar = as_type(a, t), br = as_type(b, t);
    gpgpu_matrix *ma = upload(&ar, t), *mb = upload(&br, t);
    if (!ma || !mb) {
        gpgpu_matrix_destroy(ma);
        gpgpu_matrix_destroy(mb);
        gpgpu_csr_free(&ar);
        gpgpu_csr_free(&br);
        return;
    }
    stage_replay r = {.name = name, .t = t, .g = {.a = ma, .b = mb}};
    ref_spgemm_classic_state s;
    ref_or_die(ref_spgemm_classic_run(t, &ar, &br, &s, stage_hook, &r), "classic twin");
    EXPECT(r.steps >= 13 || s.products == 0, "%s: only %u steps replayed", name, r.steps);

    char what[200];
    snprintf(what, sizeof what, "%s %s CLASSIC driver", name, gpgpu_type_name(t));
    gpgpu_matrix *mc = NULL;
    gpgpu_spgemm_stats st;
    gpgpu_status status =
        gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = GPGPU_ALGO_CLASSIC_SPGEMM}, ma, mb, &mc,
                     &st);
    EXPECT(status == GPGPU_SUCCESS, "%s: %s", what, gpgpu_last_error(ctx));
    if (mc) {
        gpgpu_csr want = {ar.rows, br.cols, s.nnz_c, s.c_ints, s.c_ints + ar.rows + 1,
                          xmalloc((s.nnz_c + 1) * sizeof(double))};
        for (size_t e = 0; e < s.nnz_c; e++)
            want.values[e] = t == GPGPU_TYPE_F32 ? ((float *)s.c_vals)[e]
                                                 : ((double *)s.c_vals)[e];
        check_matrix(what, mc, &want, NULL, t);
        EXPECT(st.products == s.products && st.nnz == s.nnz_c,
               "%s: stats say %llu products and %zu entries, the twin %zu and %zu", what,
               (unsigned long long)st.products, st.nnz, s.products, s.nnz_c);
        free(want.values);
    }
    for (int k = 0; k < ARRAYS; k++)
        gpgpu_buffer_destroy(r.bufs[k]);
    gpgpu_matrix_destroy(mc);
    ref_spgemm_classic_free(&s);
    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    gpgpu_csr_free(&ar);
    gpgpu_csr_free(&br);
}

/* A 6x5 and B 5x7 by hand: A's rows 0 and 4 empty; row 2 reaches only B's empty row 1 (no
 * products), row 3 every row of B (collisions in every column), row 1 rows 0, 2, 4 of B. */
static void hand_pair(gpgpu_csr *a, gpgpu_csr *b)
{
    static const uint32_t arp[] = {0, 0, 3, 4, 9, 9, 10};
    static const uint32_t aci[] = {0, 2, 4, 1, 0, 1, 2, 3, 4, 3};
    static const uint32_t brp[] = {0, 3, 3, 6, 7, 14};
    static const uint32_t bci[] = {1, 3, 6, 0, 1, 3, 6, 0, 1, 2, 3, 4, 5, 6};
    *a = test_csr_of(6, 5, 10, arp, aci, NULL);
    *b = test_csr_of(5, 7, 14, brp, bci, NULL);
}

static void classic_stage_tests(void)
{
    gpgpu_csr a, b;
    hand_pair(&a, &b);
    gpgpu_csr ra = random_csr(23, 41, 3, 5, false), rb = random_csr(41, 17, 2, 4, false);
    gpgpu_csr pl = test_generated(GPGPU_GEN_POWER_LAW, 80, 5);
    static const uint32_t drp[] = {0, 1, 2, 3, 4, 5}, dci[] = {3, 0, 4, 1, 2};
    /* one product per row: no sort, no sums */
    gpgpu_csr perm = test_csr_of(5, 5, 5, drp, dci, NULL);
    struct {
        const char *name;
        const gpgpu_csr *a, *b;
    } cases[] = {
        {"hand", &a, &b},
        {"rectangular", &ra, &rb},
        {"power-law A*A", &pl, &pl},
        {"permutation", &perm, &perm},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (size_t ti = 0; ti < type_count; ti++)
            classic_stages(cases[c].name, cases[c].a, cases[c].b, types[ti]);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
    gpgpu_csr_free(&ra);
    gpgpu_csr_free(&rb);
    gpgpu_csr_free(&pl);
    gpgpu_csr_free(&perm);
}

/* --------------------------------------------------------- whole products */

/* A product's reference in one type: C, its bound, the products per row. */
typedef struct reference {
    gpgpu_type t;
    gpgpu_csr ar, br, c;
    double *bound;
    uint64_t products;
    uint32_t long_rows;    /* rows past the shared-memory path */
    uint32_t busy_rows;    /* rows with products */
    double classic_sort;   /* invocations of the classic sort's steps */
} reference;

static reference make_reference(const gpgpu_csr *a, const gpgpu_csr *b, gpgpu_type t)
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

static void free_reference(reference *r)
{
    gpgpu_csr_free(&r->ar);
    gpgpu_csr_free(&r->br);
    gpgpu_csr_free(&r->c);
    free(r->bound);
}

/* gpgpu_spgemm of ma * mb (holding r's A and B) with desc, against r: structure exact,
 * values within the bound, the statistics. Returns whether the product was made; its
 * statistics in *out (may be NULL). */
static bool check_spgemm(const char *name, const gpgpu_matrix *ma, const gpgpu_matrix *mb,
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

static const gpgpu_algo all_algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_SPGEMM_ROWS,
                                       GPGPU_ALGO_SPGEMM_ESC, GPGPU_ALGO_CLASSIC_SPGEMM};

/* A*B (b NULL: A*A with one matrix object for both) with each algorithm in each type;
 * CLASSIC only on products it can do quickly. */
static void check_algos(const char *name, const gpgpu_csr *a, const gpgpu_csr *b)
{
    for (size_t ti = 0; ti < type_count; ti++) {
        gpgpu_type t = types[ti];
        reference r = make_reference(a, b ? b : a, t);
        gpgpu_matrix *ma = upload(&r.ar, t), *mb = b ? upload(&r.br, t) : ma;
        for (size_t k = 0; ma && mb && k < sizeof all_algos / sizeof *all_algos; k++) {
            if (all_algos[k] == GPGPU_ALGO_CLASSIC_SPGEMM && r.classic_sort > CLASSIC_MAX_SORT)
                continue;
            check_spgemm(name, ma, mb, &r, &(gpgpu_spgemm_desc){.algo = all_algos[k]}, NULL);
        }
        if (b)
            gpgpu_matrix_destroy(mb);
        gpgpu_matrix_destroy(ma);
        free_reference(&r);
    }
}

/* The GPU transpose of m (holding ar) against ref_transpose, bit for bit; returns it. */
static gpgpu_matrix *checked_transpose(const char *name, const gpgpu_matrix *m,
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

/* A*A^T with A^T made on the GPU (checked first), every algorithm. */
static void check_a_at(const char *name, const gpgpu_csr *a)
{
    for (size_t ti = 0; ti < type_count; ti++) {
        gpgpu_type t = types[ti];
        gpgpu_csr at;
        ref_or_die(ref_transpose(a, &at), "ref_transpose");
        reference r = make_reference(a, &at, t);
        gpgpu_matrix *ma = upload(&r.ar, t), *mt = ma ? checked_transpose(name, ma, &r.ar, t)
                                                      : NULL;
        for (size_t k = 0; mt && k < sizeof all_algos / sizeof *all_algos; k++) {
            if (all_algos[k] == GPGPU_ALGO_CLASSIC_SPGEMM && r.classic_sort > CLASSIC_MAX_SORT)
                continue;
            char what[200];
            snprintf(what, sizeof what, "%s A*At", name);
            check_spgemm(what, ma, mt, &r, &(gpgpu_spgemm_desc){.algo = all_algos[k]}, NULL);
        }
        gpgpu_matrix_destroy(mt);
        gpgpu_matrix_destroy(ma);
        free_reference(&r);
        gpgpu_csr_free(&at);
    }
}

/* ------------------------------------------------------------ the fast stages */

/* The arrays the fast stages write, as the twin (src/ref/ref.h) holds them: the product's
 * aux words, C's ints and values, a chunk's words and expanded values, the one phase's
 * temporary. */
enum { FAST_AUX, FAST_C_INTS, FAST_C_VALS, FAST_UX, FAST_VALS, FAST_ALT, FAST_T_INTS,
       FAST_T_VALS, FAST_ARRAYS };
static const char *const fast_names[FAST_ARRAYS] = {"aux",        "c_ints", "c_vals",
                                                    "chunk ux",   "chunk vals", "chunk alt",
                                                    "one-phase ints", "one-phase vals"};

/* A fast product replayed stage by stage on the GPU alongside its twin. Each GPU array is
 * a buffer of the test's with GUARD poisoned elements past the twin's length, put in the
 * product (or chunk, or C) in place of its own, which is kept in `own` and put back before
 * the library frees it: a write past an array's end shows. */
typedef struct fast_replay {
    const char *name;
    gpgpu_type t;
    spgemm_product p;       /* the GPU's */
    spgemm_chunk ch;        /* the GPU's chunk of long rows, while one is open */
    ref_spgemm_fast_state s;
    ref_spgemm_chunk rch;   /* the twin's chunk (zeroed when none is open) */
    gpgpu_buffer *bufs[FAST_ARRAYS], *own[FAST_ARRAYS];
    bool failed;            /* a step differed: the later ones are not run */
    unsigned steps;
} fast_replay;

/* The twin's array k (NULL when it has none now), its length and element type. */
static void *fast_array(fast_replay *r, int k, size_t *len, gpgpu_type *et)
{
    ref_spgemm_fast_state *s = &r->s;
    *et = GPGPU_TYPE_U32;
    switch (k) {
    case FAST_AUX: *len = s->words; return s->aux;
    case FAST_C_INTS: *len = (size_t)s->a->rows + 1 + s->nnz_c; return s->c_ints;
    case FAST_C_VALS: *len = s->nnz_c, *et = r->t; return s->c_vals;
    case FAST_UX: *len = r->rch.words; return r->rch.ux;
    case FAST_VALS: *len = r->rch.products, *et = r->t; return r->rch.vals;
    case FAST_ALT: *len = r->rch.flag_off; return r->rch.alt; /* until the sort */
    case FAST_T_INTS: *len = s->t_len; return s->t_ints;
    default: *len = s->t_len, *et = r->t; return s->t_vals;
    }
}

/* Where the GPU's stages find array k. */
static gpgpu_buffer **fast_slot(fast_replay *r, int k)
{
    switch (k) {
    case FAST_AUX: return &r->p.aux;
    case FAST_C_INTS: return &r->p.c->owned_ints;
    case FAST_C_VALS: return &r->p.c->owned_values;
    case FAST_UX: return &r->ch.ux;
    case FAST_VALS: return &r->ch.vals;
    case FAST_ALT: return &r->ch.alt;
    case FAST_T_INTS: return &r->p.t_ints;
    default: return &r->p.t_vals;
    }
}

static void fast_guard(fast_replay *r, int k)
{
    size_t len;
    gpgpu_type et;
    fast_array(r, k, &len, &et);
    gpgpu_buffer **slot = fast_slot(r, k);
    r->own[k] = *slot;
    r->bufs[k] = test_buffer(ctx, NULL, (len + GUARD) * gpgpu_type_size(et));
    *slot = r->bufs[k];
}

static void fast_unguard(fast_replay *r, int k)
{
    if (!r->bufs[k])
        return;
    *fast_slot(r, k) = r->own[k];
    gpgpu_buffer_destroy(r->bufs[k]);
    r->bufs[k] = r->own[k] = NULL;
}

/* Before a step: false once one has differed (the first differing step is the one to
 * read); else the twin's state (the step's outputs poisoned by the caller) uploaded. */
static bool fast_begin(fast_replay *r)
{
    if (r->failed)
        return false;
    for (int k = 0; k < FAST_ARRAYS; k++) {
        size_t len;
        gpgpu_type et;
        void *host = fast_array(r, k, &len, &et);
        if (r->bufs[k] && host && len)
            EXPECT_STATUS(ctx, gpgpu_buffer_upload(r->bufs[k], 0, host, len * gpgpu_type_size(et)),
                          GPGPU_SUCCESS);
    }
    return true;
}

/* After the GPU's step (status st) and the twin's: every array downloaded and compared with
 * the twin's and its poisoned guard, bit for bit. */
static void fast_end(fast_replay *r, gpgpu_status st, const char *fmt, ...)
{
    char stage[160], what[300], label[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(stage, sizeof stage, fmt, ap);
    va_end(ap);
    snprintf(what, sizeof what, "%s %s fast %s", r->name, gpgpu_type_name(r->t), stage);
    r->steps++;
    if (st != GPGPU_SUCCESS) {
        EXPECT(false, "%s: %s: %s", what, gpgpu_status_string(st), gpgpu_last_error(ctx));
        r->failed = true;
        return;
    }
    int before = test_failures;
    for (int k = 0; k < FAST_ARRAYS; k++) {
        size_t len;
        gpgpu_type et;
        void *host = fast_array(r, k, &len, &et);
        if (!r->bufs[k] || !host)
            continue;
        size_t size = gpgpu_type_size(et);
        char *want = xmalloc((len + GUARD) * size), *got = xmalloc((len + GUARD) * size);
        memcpy(want, host, len * size);
        test_poison(want + len * size, GUARD * size);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(r->bufs[k], 0, got, (len + GUARD) * size),
                      GPGPU_SUCCESS);
        snprintf(label, sizeof label, "%s: %s (%zu + %d guard)", what, fast_names[k], len,
                 GUARD);
        check_elems(label, et, got, want, len + GUARD, NULL);
        free(want);
        free(got);
    }
    r->failed = test_failures != before;
}

static int cmp_first_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* `count` items of `words` u32 each, in the GPU's order at got and the twin's (ascending by
 * first word) at want: compared as sets, then the GPU's order copied into the twin. */
static void same_set_in_gpu_order(const char *label, const uint32_t *got, uint32_t *want,
                                  size_t count, size_t words)
{
    size_t bytes = count * words * 4;
    uint32_t *sorted = xmalloc(bytes);
    memcpy(sorted, got, bytes);
    qsort(sorted, count, words * 4, cmp_first_u32);
    check_elems(label, GPGPU_TYPE_U32, sorted, want, count * words, NULL);
    memcpy(want, got, bytes);
    free(sorted);
}

/* BIN_FILL: the GPU hands out slots by atomics, so each bin's part of the list (its rows'
 * records), and the long (row, products) pairs, are compared as sets; then the GPU's order
 * is copied into the twin, whose later stages take rows in list order, and the whole of aux
 * compared (fill counters, and nothing written outside the list's filled parts). */
static void fast_bin_fill(fast_replay *r)
{
    ref_spgemm_fast_state *s = &r->s;
    uint32_t *aux = s->aux, *list = aux + s->list_off, *pairs = aux + s->pairs_off;
    poison_u32(aux, s->list_off, s->words - s->list_off);
    if (!fast_begin(r))
        return;
    int before = test_failures;
    gpgpu_status st = spgemm_stage_bin_fill(&r->p);
    ref_spgemm_bin_fill(s);
    uint32_t *got = xmalloc(s->words * 4);
    if (st == GPGPU_SUCCESS)
        EXPECT_STATUS(ctx, gpgpu_buffer_download(r->bufs[FAST_AUX], 0, got, s->words * 4),
                      GPGPU_SUCCESS);
    char label[300];
    size_t at = 0;
    for (unsigned b = 0; st == GPGPU_SUCCESS && b < REF_SPGEMM_BINS; b++) {
        size_t count = aux[REF_SPGEMM_H_COUNT + b];
        snprintf(label, sizeof label, "%s %s fast BIN_FILL: bin %u's %zu row records (as a set)",
                 r->name, gpgpu_type_name(r->t), b, count);
        same_set_in_gpu_order(label, got + s->list_off + at * REF_SPGEMM_RECORD,
                              list + at * REF_SPGEMM_RECORD, count, REF_SPGEMM_RECORD);
        at += count;
    }
    if (st == GPGPU_SUCCESS) {
        size_t n = aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN];
        snprintf(label, sizeof label, "%s %s fast BIN_FILL: %zu long (row, products) pairs "
                 "(as a set)", r->name, gpgpu_type_name(r->t), n);
        same_set_in_gpu_order(label, got + s->pairs_off, pairs, n, 2);
    }
    free(got);
    fast_end(r, st, "BIN_FILL");
    r->failed = r->failed || test_failures != before;
}

/* Copies of the twin's arrays (fast_array), to put back with fast_restore: each of several
 * programs of one stage then starts from the same state, poison included. */
static void fast_snapshot(fast_replay *r, void *copies[FAST_ARRAYS])
{
    for (int k = 0; k < FAST_ARRAYS; k++) {
        size_t len;
        gpgpu_type et;
        void *host = fast_array(r, k, &len, &et);
        copies[k] = host ? xmalloc(len * gpgpu_type_size(et) + 1) : NULL;
        if (host)
            memcpy(copies[k], host, len * gpgpu_type_size(et));
    }
}

static void fast_restore(fast_replay *r, void *const copies[FAST_ARRAYS])
{
    for (int k = 0; k < FAST_ARRAYS; k++) {
        size_t len;
        gpgpu_type et;
        void *host = fast_array(r, k, &len, &et);
        if (host && copies[k])
            memcpy(host, copies[k], len * gpgpu_type_size(et));
    }
}

/* spgemm_stage_rows on every bin with rows, as run_fast's shared_rows calls it; ROWS_RANK's
 * bins once with each of its programs (compare, search, merge, window), each from the same state
 * against the one twin, so that an entry one program leaves unwritten shows as poison.
 * Symbolic and one phase: the bin's rows' counts (zeros from ROW_BINS) poisoned first, so a
 * row left uncounted shows. */
static void fast_rows(fast_replay *r, spgemm_rows_mode mode)
{
    static const char *const mode_names[] = {"symbolic", "numeric", "one-phase"};
    static const char *const rank_names[] = {"compare", "search", "merge", "window"};
    ref_spgemm_fast_state *s = &r->s;
    algo_tuning *tuning = (algo_tuning *)algo_tuning_get();
    unsigned saved = tuning->spgemm_rank;
    size_t start = 0;
    if (r->failed)
        return; /* the list may not be filled: its rows are not to be poisoned */
    for (unsigned b = 0; b < REF_SPGEMM_LONG_BIN; start += s->aux[REF_SPGEMM_H_COUNT + b], b++) {
        uint32_t count = s->aux[REF_SPGEMM_H_COUNT + b], cap = REF_SPGEMM_MIN_CAP << b;
        bool rank = cap <= REF_SPGEMM_RANK_MAX;
        if (count == 0)
            continue;
        for (uint32_t at = 0; at < count && mode != SPGEMM_NUMERIC; at++)
            poison_u32(s->aux,
                       s->rptr_off + s->aux[s->list_off + (start + at) * REF_SPGEMM_RECORD],
                       1);
        void *before[FAST_ARRAYS];
        fast_snapshot(r, before);
        for (unsigned program = 0; program < (rank ? 4u : 1u); program++) {
            tuning->spgemm_rank = program;
            fast_restore(r, before);
            if (!fast_begin(r))
                break;
            gpgpu_status st = spgemm_stage_rows(&r->p, b, count, start, mode);
            ref_spgemm_rows(s, b, count, start, (unsigned)mode);
            fast_end(r, st, "%s%s %s bin %u (CAP %u): %u rows from %zu",
                     rank ? "ROWS_RANK " : "ROWS", rank ? rank_names[program] : "",
                     mode_names[mode], b, cap, count, start);
        }
        for (int k = 0; k < FAST_ARRAYS; k++)
            free(before[k]);
    }
    tuning->spgemm_rank = saved;
}

/* The ordered one phase (spgemm_stage_rows_ordered, rows `width` slots wide), once with each
 * of ROWS_RANK's programs from the same state against the one twin, every row's count
 * poisoned first. */
static bool replayed_ordered; /* whether fast_replay_product's last replay took it */
static void fast_rows_ordered(fast_replay *r, uint32_t width)
{
    static const char *const rank_names[] = {"compare", "search", "merge", "window"};
    ref_spgemm_fast_state *s = &r->s;
    algo_tuning *tuning = (algo_tuning *)algo_tuning_get();
    unsigned saved = tuning->spgemm_rank;
    if (r->failed)
        return;
    poison_u32(s->aux, s->rptr_off, s->a->rows);
    void *before[FAST_ARRAYS];
    fast_snapshot(r, before);
    for (unsigned program = 0; program < 4; program++) {
        tuning->spgemm_rank = program;
        fast_restore(r, before);
        if (!fast_begin(r))
            break;
        gpgpu_status st = spgemm_stage_rows_ordered(&r->p, width);
        ref_spgemm_rows_ordered(s, SPGEMM_WG / width);
        fast_end(r, st, "ROWS_RANK %s ordered one phase: %u rows, %u slots a row",
                 rank_names[program], s->a->rows, width);
    }
    for (int k = 0; k < FAST_ARRAYS; k++)
        free(before[k]);
    tuning->spgemm_rank = saved;
}

/* Whether the library may pack a chunk's keys (GPGPU_TUNE's spgemm_esc_packed): the twin
 * decides from the chunk's shape itself. */
static bool esc_may_pack(void)
{
    return algo_tuning_get()->spgemm_esc_packed != 0;
}

/* Whether the library may carry a chunk's f32 values through its sort (spgemm_esc_carry):
 * the twin decides from the chunk's type and phase itself. */
static bool esc_may_carry(void)
{
    return algo_tuning_get()->spgemm_esc_carry != 0;
}

/* The least mean products of the parts a chunk's sort may be split into (spgemm_esc_split):
 * the twin decides from the chunk's shape itself. */
static size_t esc_split(void)
{
    return algo_tuning_get()->spgemm_esc_split;
}

/* A chunk's expansion, sort, run flags and their scan, each against its twin, as the
 * symbolic and numeric phases run them (fast_chunk, fast_long_kept). */
static void fast_chunk_runs(fast_replay *r, const char *phase, size_t rows)
{
    ref_spgemm_fast_state *s = &r->s;
    ref_spgemm_chunk *c = &r->rch;
    gpgpu_status st;
    if (fast_begin(r)) {
        st = spgemm_stage_esc_expand(&r->p, &r->ch);
        ref_spgemm_esc_expand(s, c);
        fast_end(r, st, "%s ESC_EXPAND (%zu rows, %zu products)", phase, rows, c->products);
    }
    if (!c->carried) /* the keys are sorted in place; carried values are the payload */
        poison_u32(c->ux, c->pay_off, c->products);
    if (fast_begin(r)) {
        st = spgemm_esc_sort(&r->p, &r->ch);
        ref_spgemm_esc_sort(c);
        fast_end(r, st, "%s ESC sort (%zu rows, %zu products)", phase, rows, c->products);
    }
    poison_u32(c->ux, c->flag_off, c->products + 1);
    if (fast_begin(r)) {
        st = spgemm_stage_esc_flags(&r->p, &r->ch);
        ref_spgemm_esc_flags(c);
        fast_end(r, st, "%s ESC_FLAGS (%zu rows)", phase, rows);
    }
    if (fast_begin(r)) {
        st = spgemm_scan_flags(ctx, &r->ch);
        ref_spgemm_scan_words(c->ux + c->flag_off, c->products + 1);
        fast_end(r, st, "%s ESC flags' scan (%zu rows)", phase, rows);
    }
}

/* One chunk of long rows through the global path, as esc_chunk runs it: the chunk's ids
 * and segments as spgemm_chunk_open uploads them, then expand, sort, flags, their scan, and
 * count (symbolic: the rows' counts poisoned first) or write. */
static void fast_chunk(fast_replay *r, const uint32_t *pairs, size_t rows, bool numeric)
{
    if (r->failed)
        return;
    ref_spgemm_fast_state *s = &r->s;
    ref_spgemm_chunk *c = &r->rch;
    ref_or_die(ref_spgemm_chunk_open(s, pairs, rows, numeric, esc_may_pack(), esc_may_carry(),
                                     esc_split(), c),
               "fast twin chunk");
    char what[300];
    snprintf(what, sizeof what, "%s %s fast %s chunk of %zu rows (%zu products)", r->name,
             gpgpu_type_name(r->t), numeric ? "numeric" : "symbolic", rows, c->products);
    gpgpu_status st = spgemm_chunk_open(&r->p, pairs, rows, numeric, &r->ch);
    EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_chunk_open: %s", what, gpgpu_last_error(ctx));
    if (st == GPGPU_SUCCESS) {
        spgemm_chunk *g = &r->ch;
        EXPECT(g->products == c->products && g->seg_off == c->seg_off &&
                   g->key_off == c->key_off && g->pay_off == c->pay_off &&
                   g->flag_off == c->flag_off && g->ux->size == c->words * 4 &&
                   g->packed == c->packed && g->col_bits == c->col_bits &&
                   g->carried == c->carried && g->key_passes == c->key_passes &&
                   g->expand_in_alt == (c->alt != NULL) &&
                   (c->carried ? !g->vals
                               : !numeric || (g->vals && g->vals->size ==
                                                             c->products * gpgpu_type_size(r->t))),
               "%s: the chunk's layout differs from the twin's", what);
        uint32_t *head = xmalloc((2 * rows + 1) * 4);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(g->ux, 0, head, (2 * rows + 1) * 4),
                      GPGPU_SUCCESS);
        char label[400];
        snprintf(label, sizeof label, "%s: ids and segments", what);
        check_elems(label, GPGPU_TYPE_U32, head, c->ux, 2 * rows + 1, NULL);
        free(head);
        fast_guard(r, FAST_UX);
        if (numeric && !c->carried)
            fast_guard(r, FAST_VALS);
        if (c->alt)
            fast_guard(r, FAST_ALT);
    } else {
        r->failed = true;
    }
    uint32_t *ux = c->ux;
    fast_chunk_runs(r, numeric ? "numeric" : "symbolic", rows);
    for (size_t k = 0; k < rows && !numeric; k++)
        poison_u32(s->aux, s->rptr_off + ux[k], 1);
    if (fast_begin(r)) {
        st = numeric ? spgemm_stage_esc_write(&r->p, &r->ch)
                     : spgemm_stage_esc_count(&r->p, &r->ch);
        if (numeric)
            ref_spgemm_esc_write(s, c);
        else
            ref_spgemm_esc_count(s, c);
        fast_end(r, st, "%s (%zu rows)", numeric ? "ESC_WRITE" : "ESC_COUNT", rows);
    }
    fast_unguard(r, FAST_ALT);
    fast_unguard(r, FAST_VALS);
    fast_unguard(r, FAST_UX);
    spgemm_chunk_close(&r->p, &r->ch);
    ref_spgemm_chunk_free(c);
}

/* The long rows as run_fast takes them when one chunk holds them all (spgemm_esc_keep), in
 * the numeric phase (after fast_long's symbolic chunks replayed the counts): the chunk of all
 * of them opened symbolic, expanded, sorted, flagged and scanned as the symbolic phase left
 * it, then its values alone (the keys stay sorted) and ESC_WRITE. With spgemm_esc_keep=2
 * the symbolic expansion makes the values too, as run_fast does where they fit: f32 values
 * carried through the sort in its payload (spgemm_esc_carry), and ESC_WRITE follows; values
 * not carried get ESC_EXPAND of the values alone replayed over them (poisoned first), as
 * run_fast runs it where they did not fit, before ESC_WRITE. */
static void fast_long_kept(fast_replay *r)
{
    ref_spgemm_fast_state *s = &r->s;
    ref_spgemm_chunk *c = &r->rch;
    size_t rows = s->aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN];
    if (r->failed || rows == 0)
        return;
    bool early = algo_tuning_get()->spgemm_esc_keep >= 2;
    const uint32_t *pairs = s->aux + s->pairs_off;
    ref_or_die(ref_spgemm_chunk_open(s, pairs, rows, early, esc_may_pack(), esc_may_carry(),
                                     esc_split(), c),
               "fast twin chunk");
    char what[300];
    snprintf(what, sizeof what, "%s %s fast kept chunk of %zu rows (%zu products)", r->name,
             gpgpu_type_name(r->t), rows, c->products);
    gpgpu_status st = spgemm_chunk_open(&r->p, pairs, rows, early, &r->ch);
    EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_chunk_open: %s", what, gpgpu_last_error(ctx));
    EXPECT(st != GPGPU_SUCCESS || r->ch.carried == c->carried,
           "%s: the chunk carries its values %s, the twin's %s", what,
           r->ch.carried ? "yes" : "no", c->carried ? "yes" : "no");
    EXPECT(st != GPGPU_SUCCESS || r->ch.expand_in_alt == (c->alt != NULL),
           "%s: the chunk expands into alt %s, the twin %s", what,
           r->ch.expand_in_alt ? "yes" : "no", c->alt ? "yes" : "no");
    r->failed = st != GPGPU_SUCCESS;
    if (!r->failed)
        fast_guard(r, FAST_UX);
    if (!r->failed && c->alt)
        fast_guard(r, FAST_ALT);
    if (!r->failed && early && !c->carried)
        fast_guard(r, FAST_VALS);
    fast_chunk_runs(r, "kept", rows);
    if (early && !c->carried && !r->failed) /* the values alone, again, must fill them */
        memset(c->vals, 0xA5, c->products * gpgpu_type_size(r->t));
    if (!r->failed && !early) {
        st = spgemm_chunk_values(&r->p, &r->ch);
        EXPECT(st == GPGPU_SUCCESS && r->ch.vals->size == c->products * gpgpu_type_size(r->t),
               "%s: spgemm_chunk_values: %s", what, gpgpu_last_error(ctx));
        ref_or_die(ref_spgemm_chunk_values(s, c), "fast twin values");
        r->failed = st != GPGPU_SUCCESS;
        if (!r->failed)
            fast_guard(r, FAST_VALS);
    }
    if (!c->carried && fast_begin(r)) { /* carried values went through the sort already */
        st = spgemm_stage_esc_values(&r->p, &r->ch);
        ref_spgemm_esc_values(s, c);
        fast_end(r, st, "kept ESC_EXPAND values (%zu rows)", rows);
    }
    if (fast_begin(r)) {
        st = spgemm_stage_esc_write(&r->p, &r->ch);
        ref_spgemm_esc_write(s, c);
        fast_end(r, st, "kept ESC_WRITE (%zu rows)", rows);
    }
    fast_unguard(r, FAST_ALT);
    fast_unguard(r, FAST_VALS);
    fast_unguard(r, FAST_UX);
    spgemm_chunk_close(&r->p, &r->ch);
    ref_spgemm_chunk_free(c);
}

/* The long rows (from the list's pairs, in the GPU's order) in chunks of 1, 2, 3, ... rows,
 * so segments start past 0 and chunks end mid-list, as a budget splits them. */
static void fast_long(fast_replay *r, bool numeric)
{
    ref_spgemm_fast_state *s = &r->s;
    if (r->failed)
        return;
    size_t n = s->aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN];
    uint32_t *pairs = xmalloc(2 * n * 4 + 4);
    memcpy(pairs, s->aux + s->pairs_off, 2 * n * 4);
    for (size_t first = 0, size = 1; first < n; size++) {
        size_t m = size < n - first ? size : n - first;
        fast_chunk(r, pairs + 2 * first, m, numeric);
        first += m;
    }
    free(pairs);
}

_Static_assert((int)SPGEMM_SYMBOLIC == REF_SPGEMM_SYMBOLIC &&
                   (int)SPGEMM_NUMERIC == REF_SPGEMM_NUMERIC &&
                   (int)SPGEMM_ONE_PHASE == REF_SPGEMM_ONE_PHASE,
               "the twin's row modes are the library's");

/* The fast product of a and b (values rounded to t) with desc's algorithm, every stage on
 * the GPU against its twin in run_fast's order: NNZ_PRODUCTS, apos's scan, ROW_BINS,
 * BIN_FILL, the short rows counted (ROWS_RANK or ROWS per bin; in one phase also summed
 * into the temporary; or the ordered one phase, every row at once, where
 * spgemm_ordered_width takes it) and the long-row chunks counted, rptr's scan, C made, the
 * short rows summed into C (one phase: ROWS_COMPACT) and the long-row chunks summed. Then the twin's C
 * against Gustavson's (bit for bit when `exact`: the values make every sum exact; else
 * within its bound) and the whole product through gpgpu_spgemm against the twin, bit for
 * bit. `bins` says which bins must have rows (bit b: bin b), so a matrix meant to cover
 * them is checked to. `keep_long`: the numeric phase's long rows as one kept chunk
 * (fast_long_kept, as spgemm_esc_keep=1 or 2 runs them), else in chunks of 1, 2, 3, ... rows.
 * Returns whether another replay would differ: the product took one phase
 * (spgemm_one_phase_fits, under the tuning in force) or has long rows. */
static bool fast_replay_product(const char *name, const gpgpu_csr *a, const gpgpu_csr *b,
                                gpgpu_type t, gpgpu_algo algo, bool exact, unsigned bins,
                                bool keep_long)
{
    gpgpu_csr ar = as_type(a, t), br = as_type(b, t);
    gpgpu_matrix *ma = upload(&ar, t), *mb = upload(&br, t);
    gpgpu_spgemm_desc desc = {.algo = algo};
    fast_replay r = {.name = name, .t = t};
    char what[300];
    snprintf(what, sizeof what, "%s %s fast %s", name, gpgpu_type_name(t), algo_name(algo));
    gpgpu_status st = ma && mb ? spgemm_product_open(ctx, &desc, ma, mb, &r.p)
                               : GPGPU_ERROR_INVALID_ARGUMENT;
    EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_product_open: %s", what, gpgpu_last_error(ctx));
    if (st != GPGPU_SUCCESS) {
        spgemm_product_close(&r.p);
        gpgpu_matrix_destroy(ma);
        gpgpu_matrix_destroy(mb);
        gpgpu_csr_free(&ar);
        gpgpu_csr_free(&br);
        return false;
    }
    ref_spgemm_fast_state *s = &r.s;
    ref_or_die(ref_spgemm_fast_open(t, &ar, &br, r.p.shared_max, s), "fast twin");
    EXPECT(s->apos_off == r.p.apos_off && s->rptr_off == r.p.rptr_off &&
               s->list_off == r.p.list_off && s->pairs_off == r.p.pairs_off &&
               s->words * 4 == r.p.aux->size &&
               r.p.shared_max == (algo == GPGPU_ALGO_SPGEMM_ESC ? 0 : REF_SPGEMM_SHARED_MAX),
           "%s: aux's layout differs from the twin's (shared_max %u)", what, r.p.shared_max);
    fast_guard(&r, FAST_AUX);
    uint32_t rows = ar.rows, *aux = s->aux;

    poison_u32(aux, s->apos_off, ar.nnz + 1); /* as open leaves them: the stage writes all */
    if (fast_begin(&r)) {
        st = spgemm_stage_nnz_products(&r.p);
        ref_spgemm_nnz_products(s);
        fast_end(&r, st, "NNZ_PRODUCTS");
    }
    if (fast_begin(&r)) {
        st = spgemm_scan_words(ctx, r.p.aux, r.p.apos_off, ar.nnz + 1);
        ref_spgemm_scan_words(aux + s->apos_off, ar.nnz + 1);
        fast_end(&r, st, "apos' scan");
    }
    poison_u32(aux, s->rptr_off, (size_t)rows + 1);
    if (fast_begin(&r)) {
        st = spgemm_stage_row_bins(&r.p);
        ref_spgemm_row_bins(s);
        fast_end(&r, st, "ROW_BINS");
    }
    for (unsigned k = 0; !r.failed && k < REF_SPGEMM_BINS; k++)
        EXPECT(!(bins >> k & 1) || aux[REF_SPGEMM_H_COUNT + k] > 0,
               "%s: no row in bin %u: the matrix misses what it is meant to cover", what, k);
    fast_bin_fill(&r);

    /* the host's copies run_fast reads back (header, long pairs), from the twin's aux
     * (the GPU's list order by now); then its choice of one phase */
    bool one_phase = false;
    if (!r.failed) {
        size_t n_long = aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN];
        memcpy(r.p.header, aux, sizeof r.p.header);
        r.p.long_rows = xmalloc(2 * n_long * 4 + 4);
        memcpy(r.p.long_rows, aux + s->pairs_off, 2 * n_long * 4);
        one_phase = spgemm_one_phase_fits(&r.p);
    }
    if (one_phase) {
        st = spgemm_one_phase_open(&r.p);
        EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_one_phase_open: %s", what,
               gpgpu_last_error(ctx));
        r.failed = st != GPGPU_SUCCESS;
        ref_or_die(ref_spgemm_one_phase_open(s), "fast twin temporary");
        EXPECT(r.failed || (r.p.t_ints->size == s->t_len * 4 &&
                            r.p.t_vals->size == s->t_len * gpgpu_type_size(t)),
               "%s: the one phase's temporary differs from the twin's", what);
        if (!r.failed) {
            fast_guard(&r, FAST_T_INTS);
            fast_guard(&r, FAST_T_VALS);
        }
    }

    /* counts (one phase: and entries; ordered, every row in row order), then C's row
     * pointers */
    uint32_t ordered = one_phase && !r.failed ? spgemm_ordered_width(&r.p) : 0;
    replayed_ordered = ordered != 0;
    if (ordered)
        fast_rows_ordered(&r, ordered);
    else
        fast_rows(&r, one_phase ? SPGEMM_ONE_PHASE : SPGEMM_SYMBOLIC);
    fast_long(&r, false);
    if (fast_begin(&r)) {
        st = spgemm_scan_words(ctx, r.p.aux, r.p.rptr_off, (size_t)rows + 1);
        ref_spgemm_scan_words(aux + s->rptr_off, (size_t)rows + 1);
        fast_end(&r, st, "rptr's scan");
    }
    /* C as run_fast makes it, its row pointers the scanned rptr (uploaded from the twin's,
     * columns and values poisoned) */
    if (!r.failed) {
        ref_or_die(ref_spgemm_fast_make_c(s), "fast twin C");
        st = spgemm_new_matrix(ctx, t, rows, br.cols, s->nnz_c, &r.p.c);
        EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_new_matrix: %s", what, gpgpu_last_error(ctx));
        r.failed = st != GPGPU_SUCCESS;
    }
    if (r.p.c) {
        fast_guard(&r, FAST_C_INTS);
        fast_guard(&r, FAST_C_VALS);
    }
    if (one_phase) {
        /* Each invocation's share of a mean row (spgemm_compact_entries): 1 (the most
         * invocations a row, 32), the default, and 8 (few, each through its batches of 4
         * loads), each from the same state, C poisoned again. */
        algo_tuning *tuning = (algo_tuning *)algo_tuning_get();
        unsigned saved = tuning->spgemm_compact_entries;
        void *before[FAST_ARRAYS];
        fast_snapshot(&r, before);
        static const unsigned per[] = {1, 2, 8};
        for (size_t k = 0; k < sizeof per / sizeof per[0]; k++) {
            tuning->spgemm_compact_entries = per[k];
            fast_restore(&r, before);
            if (fast_begin(&r)) {
                st = spgemm_stage_rows_compact(&r.p, ordered);
                ref_spgemm_rows_compact(s);
                fast_end(&r, st, "ROWS_COMPACT (%zu entries, %u a mean row's share)", s->nnz_c,
                         per[k]);
            }
        }
        tuning->spgemm_compact_entries = saved;
        for (int k = 0; k < FAST_ARRAYS; k++)
            free(before[k]);
        fast_unguard(&r, FAST_T_INTS);
        fast_unguard(&r, FAST_T_VALS);
        spgemm_one_phase_close(&r.p);
        ref_spgemm_one_phase_free(s);
    } else {
        fast_rows(&r, SPGEMM_NUMERIC);
    }
    if (keep_long)
        fast_long_kept(&r);
    else
        fast_long(&r, true);
    bool has_long = aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN] > 0;

    if (!r.failed) {
        gpgpu_csr want = {rows, br.cols, s->nnz_c, s->c_ints, s->c_ints + rows + 1,
                          xmalloc((s->nnz_c + 1) * sizeof(double))};
        for (size_t e = 0; e < s->nnz_c; e++)
            want.values[e] = t == GPGPU_TYPE_F32 ? ((float *)s->c_vals)[e]
                                                 : ((double *)s->c_vals)[e];
        reference ref = make_reference(&ar, &br, t);
        char label[400];
        snprintf(label, sizeof label, "%s: the twin's C against Gustavson's", what);
        if (same_structure(label, &want, &ref.c))
            close_values(label, &want, &ref.c, exact ? NULL : ref.bound, t);
        EXPECT(ref_spgemm_header64(aux, REF_SPGEMM_H_PRODUCTS) == ref.products,
               "%s: the header's products %llu, Gustavson's %llu", what,
               (unsigned long long)ref_spgemm_header64(aux, REF_SPGEMM_H_PRODUCTS),
               (unsigned long long)ref.products);
        free_reference(&ref);

        snprintf(label, sizeof label, "%s: gpgpu_spgemm against the twin", what);
        gpgpu_matrix *mc = NULL;
        gpgpu_spgemm_stats stats;
        st = gpgpu_spgemm(ctx, &desc, ma, mb, &mc, &stats);
        EXPECT(st == GPGPU_SUCCESS, "%s: %s", label, gpgpu_last_error(ctx));
        if (mc)
            check_matrix(label, mc, &want, NULL, t);
        EXPECT(st != GPGPU_SUCCESS ||
                   (stats.products == ref_spgemm_header64(aux, REF_SPGEMM_H_PRODUCTS) &&
                    stats.nnz == s->nnz_c &&
                    stats.long_rows == aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN]),
               "%s: stats say %llu products, %zu entries, %u long rows", label,
               (unsigned long long)stats.products, stats.nnz, stats.long_rows);
        EXPECT(st != GPGPU_SUCCESS || stats.one_phase == one_phase,
               "%s: one phase %u, the replay's %d", label, stats.one_phase, one_phase);
        gpgpu_matrix_destroy(mc);
        free(want.values);
    }
    EXPECT(r.failed || r.steps >= 5, "%s: only %u steps replayed", what, r.steps);

    for (int k = 0; k < FAST_ARRAYS; k++)
        fast_unguard(&r, k);
    gpgpu_matrix_destroy(r.p.c);
    spgemm_product_close(&r.p);
    ref_spgemm_fast_free(s);
    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    gpgpu_csr_free(&ar);
    gpgpu_csr_free(&br);
    return one_phase || has_long;
}

/* fast_replay_product with one phase wherever it fits (GPGPU_TUNE's spgemm_one_phase=1), the
 * long rows' chunk kept (f32: with its values from the symbolic phase, spgemm_esc_keep=2,
 * carried through the sort; f64: its keys alone, spgemm_esc_keep=1) and their keys packed,
 * sorted in parts one pass shorter wherever the rows allow (spgemm_esc_split=1), and where
 * any applied, again in two phases with the long rows sorted again in the numeric
 * phase (spgemm_esc_keep=0), their keys columns alone under a segmented sort
 * (spgemm_esc_packed=0) whose payload is each key's index (spgemm_esc_carry=0), and each
 * product expanded by its own search (spgemm_esc_walk=0) where the first replay's
 * ESC_EXPAND walks the nonzeros of A. The first replay takes the ordered one phase wherever
 * it can (spgemm_rows_ordered=2), and where it did, one more goes bin by bin. */
static void fast_stages(const char *name, const gpgpu_csr *a, const gpgpu_csr *b, gpgpu_type t,
                        gpgpu_algo algo, bool exact, unsigned bins)
{
    algo_tuning *tuning = (algo_tuning *)algo_tuning_get();
    unsigned saved = tuning->spgemm_one_phase, saved_keep = tuning->spgemm_esc_keep;
    unsigned saved_packed = tuning->spgemm_esc_packed, saved_carry = tuning->spgemm_esc_carry;
    unsigned saved_split = tuning->spgemm_esc_split, saved_walk = tuning->spgemm_esc_walk;
    unsigned saved_ordered = tuning->spgemm_rows_ordered;
    tuning->spgemm_one_phase = 1;
    tuning->spgemm_esc_split = 1;
    tuning->spgemm_esc_walk = 2;
    tuning->spgemm_esc_keep = t == GPGPU_TYPE_F32 ? 2 : 1; /* values early, or late */
    tuning->spgemm_esc_packed = 1;
    tuning->spgemm_esc_carry = 1;
    tuning->spgemm_rows_ordered = 2; /* every row in row order wherever it can */
    bool again = fast_replay_product(name, a, b, t, algo, exact, bins, true);
    if (replayed_ordered) { /* and the one phase bin by bin */
        tuning->spgemm_rows_ordered = 0;
        fast_replay_product(name, a, b, t, algo, exact, bins, true);
    }
    tuning->spgemm_rows_ordered = saved_ordered;
    if (again) {
        tuning->spgemm_one_phase = 0;
        tuning->spgemm_esc_keep = 0;
        tuning->spgemm_esc_packed = 0;
        tuning->spgemm_esc_carry = 0;
        tuning->spgemm_esc_walk = 0;
        fast_replay_product(name, a, b, t, algo, exact, bins, false);
    }
    tuning->spgemm_one_phase = saved;
    tuning->spgemm_esc_keep = saved_keep;
    tuning->spgemm_esc_packed = saved_packed;
    tuning->spgemm_esc_carry = saved_carry;
    tuning->spgemm_esc_split = saved_split;
    tuning->spgemm_esc_walk = saved_walk;
}

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
static void fast_stage_tests(void)
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

/* ------------------------------------------------------------ the matrices */

/* Rows 0, 1, 4 and the last two empty, column 2 empty too. */
static gpgpu_csr with_empty_rows(void)
{
    static const uint32_t rp[] = {0, 0, 0, 2, 7, 7, 8, 10, 10, 10};
    static const uint32_t ci[] = {0, 5, 0, 1, 3, 4, 6, 6, 1, 3};
    return test_csr_of(9, 7, 10, rp, ci, NULL);
}

/* 7 x 6: rows 1, 2 and 5 empty, columns 0 and 4 empty. */
static gpgpu_csr empty_rows_b(void)
{
    static const uint32_t rp[] = {0, 2, 2, 2, 5, 6, 6, 8};
    static const uint32_t ci[] = {1, 5, 1, 2, 3, 5, 2, 3};
    return test_csr_of(7, 6, 8, rp, ci, NULL);
}

static void edge_products(void)
{
    static const uint32_t zeros[8] = {0};
    static const uint32_t one_rp[] = {0, 1}, one_ci[] = {0};
    /* A's columns 1 and 3 meet only B's empty rows 1 and 3: no products at all */
    static const uint32_t np_arp[] = {0, 1, 1, 3}, np_aci[] = {1, 1, 3};
    static const uint32_t np_brp[] = {0, 2, 2, 3, 3}, np_bci[] = {0, 4, 2};
    struct {
        const char *name;
        gpgpu_csr a, b;
    } cases[] = {
        {"1x1", test_csr_of(1, 1, 1, one_rp, one_ci, NULL),
         test_csr_of(1, 1, 1, one_rp, one_ci, NULL)},
        {"no products", test_csr_of(3, 4, 3, np_arp, np_aci, NULL),
         test_csr_of(4, 5, 3, np_brp, np_bci, NULL)},
        {"A without entries", test_csr_of(4, 4, 0, zeros, NULL, NULL),
         test_csr_of(4, 5, 3, np_brp, np_bci, NULL)},
        {"0 rows", test_csr_of(0, 3, 0, zeros, NULL, NULL),
         test_csr_of(3, 2, 0, zeros, NULL, NULL)},
        {"inner 0", test_csr_of(4, 0, 0, zeros, NULL, NULL),
         test_csr_of(0, 3, 0, zeros, NULL, NULL)},
        {"empty rows and columns", with_empty_rows(), empty_rows_b()},
        {"rectangular", random_csr(37, 53, 2, 6, false), random_csr(53, 19, 2, 5, false)},
        {"dense", test_generated(GPGPU_GEN_DENSE, 12, 0), test_generated(GPGPU_GEN_DENSE, 12, 0)},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        check_algos(cases[c].name, &cases[c].a, &cases[c].b);
        gpgpu_csr_free(&cases[c].a);
        gpgpu_csr_free(&cases[c].b);
    }
}

static void generated_products(void)
{
    static const struct {
        const char *name;
        gpgpu_generator gen;
        uint32_t size, avg;
    } gens[] = {
        {"power-law", GPGPU_GEN_POWER_LAW, 600, 8}, {"dense-row", GPGPU_GEN_DENSE_ROW, 2500, 2},
        {"banded", GPGPU_GEN_BANDED, 300, 3},        {"laplace7", GPGPU_GEN_LAPLACE3D_7, 6, 0},
        {"rmat", GPGPU_GEN_RMAT, 9, 4},
    };
    for (size_t g = 0; g < sizeof gens / sizeof *gens; g++) {
        gpgpu_csr a = test_generated(gens[g].gen, gens[g].size, gens[g].avg);
        check_algos(gens[g].name, &a, NULL);
        gpgpu_csr_free(&a);
    }
    gpgpu_csr pl = test_generated(GPGPU_GEN_POWER_LAW, 500, 6);
    check_a_at("power-law", &pl);
    gpgpu_csr_free(&pl);
    gpgpu_csr rect = random_csr(70, 300, 4, 7, false);
    check_a_at("rectangular", &rect);
    gpgpu_csr_free(&rect);
}

/* ------------------------------------------------------------------ zeros */

/* Entries of C that sum to exactly zero: kept by default, dropped with drop_zeros. */
static void crafted_zeros(void)
{
    static const uint32_t arp[] = {0, 2}, aci[] = {0, 1}, brp[] = {0, 1, 2}, bci[] = {0, 0};
    static const double ones[] = {1, 1}, plus_minus[] = {1, -1};
    static const double minus_two[] = {-1, 2}, zero_pair[] = {0, -0.0};
    struct {
        const char *name;
        const double *av, *bv;
    } cases[] = {{"1 - 1", ones, plus_minus}, {"-0 + -0", minus_two, zero_pair}};
    for (size_t c = 0; c < 2; c++)
        for (size_t ti = 0; ti < type_count; ti++) {
            gpgpu_type t = types[ti];
            gpgpu_csr a = test_csr_of(1, 2, 2, arp, aci, cases[c].av);
            gpgpu_csr b = test_csr_of(2, 1, 2, brp, bci, cases[c].bv);
            gpgpu_matrix *ma = upload(&a, t), *mb = upload(&b, t);
            for (size_t k = 0; ma && mb && k < sizeof all_algos / sizeof *all_algos; k++) {
                for (int drop = 0; drop < 2; drop++) {
                    char what[200];
                    snprintf(what, sizeof what, "zeros %s %s %s%s", cases[c].name,
                             gpgpu_type_name(t), algo_name(all_algos[k]),
                             drop ? " drop_zeros" : "");
                    gpgpu_matrix *mc = NULL;
                    gpgpu_spgemm_stats st = {0};
                    gpgpu_spgemm_desc d = {.algo = all_algos[k], .drop_zeros = drop};
                    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ma, mb, &mc, &st), GPGPU_SUCCESS);
                    gpgpu_csr got = {0};
                    if (!mc || gpgpu_matrix_download(mc, &got) != GPGPU_SUCCESS) {
                        EXPECT(false, "%s: no C to download", what);
                        gpgpu_matrix_destroy(mc);
                        continue;
                    }
                    if (drop)
                        EXPECT(got.nnz == 0 && got.row_ptr[0] == 0 && got.row_ptr[1] == 0 &&
                                   st.dropped == 1 && st.nnz == 0 && st.products == 2,
                               "%s: %zu entries, row_ptr %u %u, stats %zu dropped, %zu entries, "
                               "%llu products", what, got.nnz, got.row_ptr[0], got.row_ptr[1],
                               st.dropped, st.nnz, (unsigned long long)st.products);
                    else
                        EXPECT(got.nnz == 1 && got.row_ptr[1] == 1 && got.col_idx[0] == 0 &&
                                   got.values[0] == 0 && st.dropped == 0 && st.nnz == 1,
                               "%s: %zu entries, value %g, stats %zu dropped", what, got.nnz,
                               got.nnz ? got.values[0] : NAN, st.dropped);
                    gpgpu_csr_free(&got);
                    gpgpu_matrix_destroy(mc);
                }
            }
            gpgpu_matrix_destroy(ma);
            gpgpu_matrix_destroy(mb);
            gpgpu_csr_free(&a);
            gpgpu_csr_free(&b);
        }
}

/* c without its exact zeros; returns how many there were. */
static size_t without_zeros(const gpgpu_csr *c, gpgpu_csr *out)
{
    *out = test_csr_of(c->rows, c->cols, c->nnz, c->row_ptr, c->col_idx, c->values);
    size_t n = 0;
    for (uint32_t i = 0; i < c->rows; i++) {
        out->row_ptr[i] = (uint32_t)n;
        for (uint32_t e = c->row_ptr[i]; e < c->row_ptr[i + 1]; e++)
            if (c->values[e] != 0) {
                out->col_idx[n] = c->col_idx[e];
                out->values[n++] = c->values[e];
            }
    }
    out->row_ptr[c->rows] = (uint32_t)n;
    size_t dropped = c->nnz - n;
    out->nnz = n;
    return dropped;
}

/* Matrices of +-1 (and +-2): every sum is an exact integer in any order, so which entries
 * are zero does not depend on the summation; with long rows for the global path. */
static void integer_zeros(void)
{
    gpgpu_csr a = random_csr(300, 300, 4, 9, true);
    gpgpu_csr d = test_generated(GPGPU_GEN_DENSE_ROW, 2500, 2);
    for (size_t k = 0; k < d.nnz; k++)
        d.values[k] = d.col_idx[k] % 3 == 0 ? -1 : 1;
    const gpgpu_csr *mats[] = {&a, &d};
    for (size_t m = 0; m < 2; m++)
        for (size_t ti = 0; ti < type_count; ti++) {
            gpgpu_type t = types[ti];
            reference r = make_reference(mats[m], mats[m], t);
            gpgpu_csr want;
            size_t zeros = without_zeros(&r.c, &want);
            EXPECT(zeros > 0, "integer zeros: the test matrix %zu has no zero in A*A", m);
            gpgpu_matrix *ma = upload(&r.ar, t);
            for (size_t k = 0; ma && k < sizeof all_algos / sizeof *all_algos; k++) {
                if (all_algos[k] == GPGPU_ALGO_CLASSIC_SPGEMM && r.classic_sort > CLASSIC_MAX_SORT)
                    continue;
                char what[200];
                snprintf(what, sizeof what, "integer A*A %zu %s %s drop_zeros", m,
                         gpgpu_type_name(t), algo_name(all_algos[k]));
                gpgpu_matrix *mc = NULL;
                gpgpu_spgemm_stats st = {0};
                gpgpu_spgemm_desc desc = {.algo = all_algos[k], .drop_zeros = true};
                EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &desc, ma, ma, &mc, &st), GPGPU_SUCCESS);
                if (mc)
                    check_matrix(what, mc, &want, NULL, t);
                EXPECT(st.dropped == zeros && st.nnz == want.nnz &&
                           st.products == r.products,
                       "%s: stats %zu dropped, %zu entries; expected %zu, %zu", what,
                       st.dropped, st.nnz, zeros, want.nnz);
                gpgpu_matrix_destroy(mc);
            }
            gpgpu_matrix_destroy(ma);
            gpgpu_csr_free(&want);
            free_reference(&r);
        }
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&d);
}

/* ---------------------------------------------------------- memory budgets */

/* The largest number written in msg (0 if none). */
static unsigned long long largest_number(const char *msg)
{
    unsigned long long best = 0;
    for (const char *p = msg; *p; p++) {
        if (*p < '0' || *p > '9')
            continue;
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        best = v > best ? v : best;
        p = end - 1;
    }
    return best;
}

/* 48 rows of about 2500 products each (past the shared-memory path) over a wide B: the
 * global path's temporaries dwarf C, so a budget a little above C must split them. */
static void budgets(void)
{
    gpgpu_type t = types[type_count - 1];
    gpgpu_csr a = random_csr(48, 3000, 50, 0, false), b = random_csr(3000, 20000, 50, 0, false);
    reference r = make_reference(&a, &b, t);
    gpgpu_matrix *ma = upload(&r.ar, t), *mb = upload(&r.br, t);
    static const gpgpu_algo algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_SPGEMM_ESC};
    size_t c_bytes = csr_bytes(r.c.rows, r.c.nnz, t);
    for (size_t k = 0; ma && mb && k < 2; k++) {
        char what[200];
        gpgpu_spgemm_stats full = {0}, st = {0};
        gpgpu_matrix *mc = NULL;
        snprintf(what, sizeof what, "budget %s unlimited", algo_name(algos[k]));
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = algos[k]}, ma, mb, &mc,
                                        &full),
                      GPGPU_SUCCESS);
        gpgpu_matrix_destroy(mc);
        mc = NULL;
        EXPECT(full.chunks >= 1 && full.peak_bytes > c_bytes,
               "%s: %u chunks, peak %zu bytes (C %zu)", what, full.chunks, full.peak_bytes,
               c_bytes);
        if (full.peak_bytes <= c_bytes)
            continue; /* no product to take a budget from */

        /* C and a quarter of what the unlimited product took besides it */
        size_t budget = c_bytes + (full.peak_bytes - c_bytes) / 4;
        snprintf(what, sizeof what, "budget %s %zu bytes", algo_name(algos[k]), budget);
        gpgpu_spgemm_desc d = {.algo = algos[k], .memory_budget = budget};
        gpgpu_status s = gpgpu_spgemm(ctx, &d, ma, mb, &mc, &st);
        EXPECT(s == GPGPU_SUCCESS, "%s: %s", what, gpgpu_last_error(ctx));
        if (mc)
            check_matrix(what, mc, &r.c, r.bound, t);
        EXPECT(st.chunks > full.chunks && st.chunks > 1 && st.peak_bytes <= budget &&
                   st.products == r.products && st.nnz == r.c.nnz,
               "%s: %u chunks (unlimited %u), peak %zu", what, st.chunks, full.chunks,
               st.peak_bytes);
        gpgpu_matrix_destroy(mc);
        mc = NULL;

        /* less than C itself */
        d.memory_budget = c_bytes / 2;
        snprintf(what, sizeof what, "budget %s %zu bytes (C takes %zu)", algo_name(algos[k]),
                 d.memory_budget, c_bytes);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ma, mb, &mc, &st), GPGPU_ERROR_OUT_OF_MEMORY);
        EXPECT(mc == NULL, "%s: a matrix came back", what);
        unsigned long long needed = largest_number(gpgpu_last_error(ctx));
        EXPECT(needed >= c_bytes, "%s: the message '%s' does not say the bytes needed", what,
               gpgpu_last_error(ctx));
        gpgpu_matrix_destroy(mc);
    }
    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    free_reference(&r);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
}

/* Whether a chunk packs its keys: the chunk row's bits and the column's must fit 32 together
 * (spgemm_chunk_packs), and spgemm_bits_below counts them. No GPU. */
static void packing_rule(void)
{
    static const struct {
        size_t bound;
        unsigned bits;
    } bits[] = {{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {65536, 16}, {65537, 17},
                {(size_t)1 << 31, 31}, {((size_t)1 << 31) + 1, 32}, {(size_t)1 << 32, 32},
                {((size_t)1 << 32) + 1, 33}, {SIZE_MAX, 64}};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        EXPECT(spgemm_bits_below(bits[i].bound) == bits[i].bits,
               "spgemm_bits_below(%zu) = %u, want %u", bits[i].bound,
               spgemm_bits_below(bits[i].bound), bits[i].bits);
    static const struct {
        size_t rows;
        uint32_t cols;
        bool packs;
    } shapes[] = {{1, 1, true},          {65536, 65536, true},       {65537, 65536, false},
                  {65536, 65537, false}, {1, 0x80000000u, true},     {1, 0x80000001u, false},
                  {2, 0x80000000u, true},  {9901, 32768, true},      {1u << 20, 4096, true},
                  {(1u << 20) + 1, 4096, false}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        EXPECT(spgemm_chunk_packs(shapes[i].rows, shapes[i].cols) == shapes[i].packs,
               "spgemm_chunk_packs(%zu rows, %u columns) should be %s", shapes[i].rows,
               shapes[i].cols, shapes[i].packs ? "true" : "false");
}

/* The bytes of a CSR matrix's largest array as a binding holds it (ints: row pointers and
 * columns together, as the library keeps them; values). */
static size_t csr_largest_array(uint32_t rows, size_t nnz, gpgpu_type t)
{
    size_t ints = ((size_t)rows + 1 + nnz) * 4, vals = nnz * gpgpu_type_size(t);
    return ints > vals ? ints : vals;
}

/* A device whose storage bindings are small (as llvmpipe's 128 MiB are for large products):
 * the long rows' one chunk (its ux, 12 bytes a product) would pass one binding, while A, B
 * and C fit, so the long rows go in several chunks, each array within the binding, and C
 * comes out right. The context's limit is lowered for the call and put back. */
static void long_rows_bindings(const gpgpu_matrix *ma, const gpgpu_matrix *mb,
                               const reference *r, const gpgpu_spgemm_stats *full)
{
    size_t saved = ctx->info.max_storage_range_bytes;
    size_t range = csr_largest_array(r->ar.rows, r->ar.nnz, r->t);
    size_t b = csr_largest_array(r->br.rows, r->br.nnz, r->t);
    size_t c = csr_largest_array(r->c.rows, r->c.nnz, r->t);
    range = range > b ? range : b;
    range = range > c ? range : c;
    size_t long_products = 0; /* the products of the rows past the shared-memory path */
    for (uint32_t i = 0; i < r->ar.rows; i++) {
        size_t n = 0;
        for (uint32_t e = r->ar.row_ptr[i]; e < r->ar.row_ptr[i + 1]; e++) {
            uint32_t k = r->ar.col_idx[e];
            n += r->br.row_ptr[k + 1] - r->br.row_ptr[k];
        }
        long_products += n > SHARED_MAX_PRODUCTS ? n : 0;
    }
    size_t one_chunk = (2 * (size_t)full->long_rows + 2 + 3 * long_products) * 4;
    range = range > one_chunk * 2 / 3 ? range : one_chunk * 2 / 3;
    EXPECT(range < one_chunk && full->long_rows == r->long_rows,
           "long rows, bindings: the one chunk (%zu bytes) fits a binding of %zu: no test",
           one_chunk, range);
    ctx->info.max_storage_range_bytes = range;
    gpgpu_spgemm_stats st = {0};
    char what[120];
    snprintf(what, sizeof what, "long rows, storage bindings of %zu bytes", range);
    if (check_spgemm(what, ma, mb, r, &(gpgpu_spgemm_desc){0}, &st))
        EXPECT(st.chunks >= 2, "%s: %u chunks (one chunk's ux: %zu bytes)", what, st.chunks,
               one_chunk);
    ctx->info.max_storage_range_bytes = saved;
}

/* Long rows (most of 48 of ~2500 products over a wide B, as budgets() has them): one chunk
 * holds them and the symbolic phase keeps it for the numeric: kept with its sort reused;
 * with a budget a byte short of what that took (the kept chunk dropped, or the symbolic
 * phase split, and the long rows sorted again in chunks); and with the radix sort's
 * reduce-then-scan passes (GPGPU_TUNE=radix_onesweep=0), which sort only the column bytes
 * too; and kept with its keys alone, the values expanded in the numeric phase
 * (spgemm_esc_keep=1), in one chunk and at no more memory than with them. Each against
 * Gustavson's C. */
static void long_rows_paths(void)
{
    gpgpu_type t = types[type_count - 1];
    gpgpu_csr a = random_csr(48, 3000, 50, 0, false), b = random_csr(3000, 20000, 50, 0, false);
    reference r = make_reference(&a, &b, t);
    gpgpu_matrix *ma = upload(&r.ar, t), *mb = upload(&r.br, t);
    gpgpu_spgemm_stats full = {0}, st = {0};
    if (check_spgemm("long rows kept", ma, mb, &r, &(gpgpu_spgemm_desc){0}, &full))
        EXPECT(full.chunks == 1 && full.long_rows >= 10,
               "long rows kept: %u chunks, %u long rows", full.chunks, full.long_rows);

    size_t budget = full.peak_bytes - 1;
    if (check_spgemm("long rows, a byte short of the kept chunk's peak", ma, mb, &r,
                     &(gpgpu_spgemm_desc){.memory_budget = budget}, &st))
        EXPECT(st.peak_bytes <= budget && st.chunks >= 2,
               "long rows, budget %zu (kept: peak %zu): peak %zu, %u chunks", budget,
               full.peak_bytes, st.peak_bytes, st.chunks);

    algo_tuning *tuning = (algo_tuning *)algo_tuning_get();
    unsigned saved = tuning->radix_onesweep, saved_keep = tuning->spgemm_esc_keep;
    tuning->radix_onesweep = 0;
    check_spgemm("long rows, reduce-then-scan sort", ma, mb, &r, &(gpgpu_spgemm_desc){0}, NULL);
    tuning->radix_onesweep = saved;
    tuning->spgemm_esc_keep = 1; /* the keys kept, the values expanded in the numeric phase */
    gpgpu_spgemm_stats keys_only = {0};
    if (check_spgemm("long rows kept, values late", ma, mb, &r, &(gpgpu_spgemm_desc){0},
                     &keys_only))
        EXPECT(keys_only.chunks == 1 && keys_only.peak_bytes <= full.peak_bytes,
               "long rows kept, values late: %u chunks, peak %zu (values early: %zu)",
               keys_only.chunks, keys_only.peak_bytes, full.peak_bytes);
    tuning->spgemm_esc_keep = saved_keep;
    long_rows_bindings(ma, mb, &r, &full);
    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    free_reference(&r);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
}

/* Long rows sorted in parts one radix pass shorter (spgemm_esc_split=1: whatever the parts'
 * size): 48 rows over 2^15 columns pack into 21 bits, 3 passes, or 2 over 24 parts of 2 rows.
 * In each type, with the values expanded before the sort (f32 carried through it, f64
 * gathered through each part's indices, which start at the part) and after it (every type
 * gathered). Each against Gustavson's C. */
static void long_rows_parts(void)
{
    algo_tuning *tuning = (algo_tuning *)algo_tuning_get();
    unsigned saved = tuning->spgemm_esc_split, saved_keep = tuning->spgemm_esc_keep;
    gpgpu_csr a = random_csr(48, 3000, 50, 5, false), b = random_csr(3000, 20000, 50, 0, false);
    tuning->spgemm_esc_split = 1;
    for (size_t ti = 0; ti < type_count; ti++) {
        reference r = make_reference(&a, &b, types[ti]);
        gpgpu_matrix *ma = upload(&r.ar, types[ti]), *mb = upload(&r.br, types[ti]);
        for (unsigned keep = 1; keep <= 2; keep++) {
            tuning->spgemm_esc_keep = keep;
            char what[120];
            snprintf(what, sizeof what, "long rows sorted in parts, values %s the sort",
                     keep == 2 ? "before" : "after");
            check_spgemm(what, ma, mb, &r, &(gpgpu_spgemm_desc){0}, NULL);
        }
        gpgpu_matrix_destroy(ma);
        gpgpu_matrix_destroy(mb);
        free_reference(&r);
    }
    tuning->spgemm_esc_split = saved;
    tuning->spgemm_esc_keep = saved_keep;
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
}

/* The GPU transpose with storage bindings that hold one word per nonzero (and the row
 * pointers) but not two: every work array of the transpose is one word per nonzero, so
 * it must still give A^T bit for bit, where an array of (key, entry) pairs would not fit. */
static void transpose_bindings(void)
{
    gpgpu_type t = GPGPU_TYPE_F32;
    gpgpu_csr any = random_csr(300, 280, 60, 0, true), a = as_type(&any, t);
    gpgpu_matrix *ma = upload(&a, t);
    size_t saved = ctx->info.max_storage_range_bytes;
    size_t rows = a.rows > a.cols ? a.rows : a.cols;
    size_t range = ((size_t)rows + 1 + a.nnz) * 4; /* A's or A^T's ints, the larger */
    /* The sort's status words (the one-sweep radix's, a binding of their own) follow
     * the sort's tiles, not the transpose: where a device's small tiles make them the
     * larger array, the binding must hold them too. */
    size_t status = radix_hist_count(ctx, GPGPU_TYPE_U32, a.nnz) * 4;
    range = range > status ? range : status;
    EXPECT(2 * a.nnz * 4 > range, "transpose, bindings: %zu nonzeros in %zu bytes", a.nnz,
           range);
    ctx->info.max_storage_range_bytes = range;
    char name[80];
    snprintf(name, sizeof name, "bindings of %zu bytes", range);
    gpgpu_matrix *mt = ma ? checked_transpose(name, ma, &a, t) : NULL;
    ctx->info.max_storage_range_bytes = saved;
    gpgpu_matrix_destroy(mt);
    gpgpu_matrix_destroy(ma);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&any);
}

/* Short rows only (~36 products each), so the product takes one phase where its temporary
 * fits: with the budget it took less one byte, the temporary fits but C no longer fits
 * beside it, and the rows are summed again into C (two phases); with just what two phases
 * take, the temporary is never made. Each gives the same C within the budget. */
static void one_phase_budgets_of(const char *name, const gpgpu_csr *a, gpgpu_type t);
static void one_phase_budgets(void)
{
    algo_tuning *tuning = (algo_tuning *)algo_tuning_get();
    unsigned saved = tuning->spgemm_one_phase;
    tuning->spgemm_one_phase = 1; /* one phase where it fits (the default) */
    gpgpu_csr a = random_csr(600, 600, 6, 0, false);
    one_phase_budgets_of("random", &a, types[type_count - 1]);
    gpgpu_csr_free(&a);
    /* rows alike: the ordered one phase, which runs no BIN_FILL, sent back to two phases */
    gpgpu_csr band = test_generated(GPGPU_GEN_BANDED, 700, 4);
    one_phase_budgets_of("banded", &band, types[0]);
    gpgpu_csr_free(&band);
    tuning->spgemm_one_phase = saved;
}

/* A*A with one phase, unlimited, then under budgets that make the temporary and then find
 * no room for C beside it (two phases after all), and that leave no room for it at all. */
static void one_phase_budgets_of(const char *name, const gpgpu_csr *a, gpgpu_type t)
{
    reference r = make_reference(a, a, t);
    gpgpu_matrix *ma = upload(&r.ar, t);
    gpgpu_spgemm_stats full = {0}, st = {0};
    char what[200];
    snprintf(what, sizeof what, "%s: one phase, unlimited", name);
    check_spgemm(what, ma, ma, &r, &(gpgpu_spgemm_desc){0}, &full);
    size_t t_bytes = (size_t)r.products * (4 + gpgpu_type_size(t));
    EXPECT(full.one_phase == 1 && full.long_rows == 0 && full.peak_bytes > t_bytes,
           "%s: one_phase %u, %u long rows, peak %zu (temporary %zu)", what, full.one_phase,
           full.long_rows, full.peak_bytes, t_bytes);
    size_t budgets[2] = {full.peak_bytes - 1, full.peak_bytes - t_bytes};
    for (int k = 0; k < 2 && full.peak_bytes > t_bytes; k++) {
        snprintf(what, sizeof what, "%s: one phase, budget %zu (peak unlimited %zu)", name,
                 budgets[k], full.peak_bytes);
        if (!check_spgemm(what, ma, ma, &r, &(gpgpu_spgemm_desc){.memory_budget = budgets[k]},
                          &st))
            continue;
        EXPECT(st.one_phase == 0 && st.peak_bytes <= budgets[k] && st.nnz == r.c.nnz,
               "%s: one_phase %u, peak %zu", what, st.one_phase, st.peak_bytes);
        /* the first budget made the temporary, which C then sent back */
        EXPECT(k != 0 || st.peak_bytes >= t_bytes,
               "%s: peak %zu: the temporary (%zu) was never made", what, st.peak_bytes, t_bytes);
    }
    gpgpu_matrix_destroy(ma);
    free_reference(&r);
}

/* ------------------------------------------------------------------ misuse */

static void misuse(void)
{
    gpgpu_csr a = random_csr(3, 41, 3, 0, false), b = random_csr(43, 2, 2, 0, false);
    gpgpu_csr sq = test_generated(GPGPU_GEN_BANDED, 20, 2);
    gpgpu_matrix *ma = upload(&a, GPGPU_TYPE_F32), *mb = upload(&b, GPGPU_TYPE_F32);
    gpgpu_matrix *ms = upload(&sq, GPGPU_TYPE_F32), *mc = NULL, *ell = NULL;
    gpgpu_spgemm_desc d = {0};
    EXPECT_STATUS(ctx,
                  gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32,
                                                                .format = GPGPU_FORMAT_ELL},
                                      &sq, &ell),
                  GPGPU_SUCCESS);

    EXPECT_STATUS(NULL, gpgpu_spgemm(NULL, &d, ms, ms, &mc, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, NULL, ms, ms, &mc, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, NULL, ms, &mc, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, NULL, &mc, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, ms, NULL, NULL), GPGPU_ERROR_NULL_POINTER);

    /* 3x41 times 43x2: the message names both sizes */
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ma, mb, &mc, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(gpgpu_last_error(ctx), "41") && strstr(gpgpu_last_error(ctx), "43"),
           "dimension mismatch: '%s' does not name 41 and 43", gpgpu_last_error(ctx));
    EXPECT(mc == NULL, "a refused product leaves *c NULL");
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = 99}, ms, ms, &mc, NULL),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx,
                  gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = GPGPU_ALGO_RADIX}, ms, ms, &mc,
                               NULL),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx,
                  gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = GPGPU_ALGO_SPMV_VECTOR}, ms, ms,
                               &mc, NULL),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ell, ms, &mc, NULL),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, ell, &mc, NULL),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    if (type_count > 1) {
        gpgpu_matrix *m64 = upload(&sq, GPGPU_TYPE_F64);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, m64, &mc, NULL),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, m64, ms, &mc, NULL),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        gpgpu_matrix_destroy(m64);
    }
    EXPECT(mc == NULL, "a refused product leaves *c NULL");

    /* download and transpose */
    gpgpu_csr h = {0};
    EXPECT_STATUS(ctx, gpgpu_matrix_download(NULL, &h), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_download(ms, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_download(ell, &h), GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_matrix_transpose(NULL, ms, &mc), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_transpose(ctx, NULL, &mc), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_transpose(ctx, ms, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_transpose(ctx, ell, &mc), GPGPU_ERROR_UNSUPPORTED_COMBINATION);

    /* matrices of another context */
    gpgpu_context *other = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(NULL, &other), GPGPU_SUCCESS);
    gpgpu_matrix *om = NULL;
    if (other) {
        EXPECT_STATUS(other,
                      gpgpu_matrix_create(other, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32},
                                          &sq, &om),
                      GPGPU_SUCCESS);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, om, &mc, NULL),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, om, ms, &mc, NULL),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_matrix_transpose(ctx, om, &mc), GPGPU_ERROR_INVALID_ARGUMENT);
        gpgpu_matrix_destroy(om);
        gpgpu_context_destroy(other);
    }
    EXPECT(mc == NULL, "a refused call leaves *out NULL");

    /* A and B the same object, stats NULL, FAST as DEFAULT */
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, ms, &mc, NULL), GPGPU_SUCCESS);
    gpgpu_matrix_destroy(mc);
    mc = NULL;
    EXPECT_STATUS(ctx,
                  gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = GPGPU_ALGO_FAST}, ms, ms, &mc,
                               NULL),
                  GPGPU_SUCCESS);
    gpgpu_matrix_destroy(mc);

    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    gpgpu_matrix_destroy(ms);
    gpgpu_matrix_destroy(ell);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
    gpgpu_csr_free(&sq);
}

/* ------------------------------------------------------- the matrix files */

/* Every file of GPGPU_MATRIX_DIR (tests/matrices/matrices.py) whose product has at most
 * FILE_MAX_PRODUCTS products: A*A (one matrix object) when square, A*A^T (the GPU's
 * transpose, checked) otherwise; DEFAULT in f64, and in f32 too for small products. The
 * complex and hermitian files are refused by the reader, by name. At most an eighth of the
 * files may be larger (6 of the shared collection's 71). */
static void matrix_files(void)
{
    const char *dir = test_matrix_dir();
    DIR *d = dir ? opendir(dir) : NULL;
    EXPECT(d != NULL, "cannot list GPGPU_MATRIX_DIR (%s)", dir ? dir : "not set");
    size_t files = 0, large = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        bool mtx = len > 4 && strcmp(e->d_name + len - 4, ".mtx") == 0;
        bool gz = len > 7 && strcmp(e->d_name + len - 7, ".mtx.gz") == 0; /* bench/device.sh */
        if (!mtx && !gz)
            continue;
#ifndef GPGPU_HAVE_ZLIB
        if (gz) {
            fprintf(stderr, "skipped: %s (a build without zlib)\n", e->d_name);
            continue;
        }
#endif
        char path[1024], msg[256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gpgpu_csr a = {0}, at = {0};
        gpgpu_status st = gpgpu_mtx_read_matrix(path, &a, NULL, msg, sizeof msg);
        files++;
        if (st == GPGPU_ERROR_PARSE && (strstr(msg, "complex") || strstr(msg, "hermitian"))) {
            gpgpu_csr_free(&a);
            continue;
        }
        EXPECT(st == GPGPU_SUCCESS, "%s: %s", path, msg);
        bool square = a.rows == a.cols;
        if (st == GPGPU_SUCCESS && !square)
            ref_or_die(ref_transpose(&a, &at), "ref_transpose");
        uint64_t products = st != GPGPU_SUCCESS ? 0 : ref_spgemm_products(&a, square ? &a : &at);
        large += products > FILE_MAX_PRODUCTS;
        for (size_t ti = type_count; st == GPGPU_SUCCESS && products <= FILE_MAX_PRODUCTS &&
                                     ti-- > 0;) {
            gpgpu_type t = types[ti];
            if (t == GPGPU_TYPE_F32 && type_count > 1 && products > FILE_F32_MAX_PRODUCTS)
                continue;
            reference r = make_reference(&a, square ? &a : &at, t);
            gpgpu_matrix *ma = upload(&r.ar, t);
            gpgpu_matrix *mb = ma && !square ? checked_transpose(e->d_name, ma, &r.ar, t) : ma;
            char what[300];
            snprintf(what, sizeof what, "%s %s", e->d_name, square ? "A*A" : "A*At");
            if (mb)
                check_spgemm(what, ma, mb, &r, &(gpgpu_spgemm_desc){0}, NULL);
            if (mb != ma)
                gpgpu_matrix_destroy(mb);
            gpgpu_matrix_destroy(ma);
            free_reference(&r);
        }
        gpgpu_csr_free(&a);
        gpgpu_csr_free(&at);
    }
    if (d)
        closedir(d);
    EXPECT(files >= test_matrix_min_files() && large * 8 <= files,
           "%zu .mtx files in %s, %zu of them past %d products", files, dir ? dir : "", large,
           FILE_MAX_PRODUCTS);
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
