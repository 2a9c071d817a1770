/* SpMV against the CPU reference (src/ref): Kiciak's five classic stages alone
 * against their twins (bit for bit, on poisoned buffers), then every format and
 * algorithm in f32 and f64 against ref_spmv_csr within ref_spmv_bound, on
 * generated matrices, MatrixMarket files (tests/matrices/matrices.py) and
 * hand-made edge cases, then wrapped buffers and their validation, the tuner, and misuse.
 *
 * y always lies between poisoned guard elements, which must keep their bits.
 * Reference inputs are what the GPU sees: x drawn as f32 values, the matrix's
 * values rounded to f32 for f32 products, alpha and beta exact in f32.
 *
 * Wrapped buffers and misuse are test_spmv_wrapped.c; test_spmv.h holds what they share. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo/spmv.h"
#ifdef GPGPU_HAVE_GL
#include "gl/gl_internal.h"
#endif
#include "gpgpu/io.h"
#include "gpgpu/sparse.h"
#include "ref/ref.h"
#include "matrices/matrices.h"
#include "test_spmv.h"

gpgpu_context *ctx;
gpgpu_type types[2] = {GPGPU_TYPE_F32, GPGPU_TYPE_F64};
size_t type_count = 2;

/* ------------------------------------------------------------ host helpers */

/* A deep copy of a, its values rounded to f32 when t is. */
gpgpu_csr as_type(const gpgpu_csr *a, gpgpu_type t)
{
    gpgpu_csr b = test_csr_of(a->rows, a->cols, a->nnz, a->row_ptr, a->col_idx, a->values);
    for (size_t k = 0; t == GPGPU_TYPE_F32 && k < a->nnz; k++)
        b.values[k] = (double)(float)a->values[k];
    return b;
}

/* n doubles, each a random f32 (so x is the same in both types). */
static double *random_doubles(size_t n)
{
    float *f = xmalloc(n * sizeof *f);
    double *d = xmalloc(n * sizeof *d);
    test_random(GPGPU_TYPE_F32, f, n, test_seed++);
    for (size_t i = 0; i < n; i++)
        d[i] = f[i];
    free(f);
    return d;
}

void *typed(gpgpu_type t, const double *v, size_t n)
{
    void *out = xmalloc(n * gpgpu_type_size(t));
    for (size_t i = 0; i < n; i++) {
        if (t == GPGPU_TYPE_F32)
            ((float *)out)[i] = (float)v[i];
        else
            ((double *)out)[i] = v[i];
    }
    return out;
}

static void put(gpgpu_type t, void *p, size_t i, double v)
{
    if (t == GPGPU_TYPE_F32)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = v;
}

/* ------------------------------------------------------- one checked product */

enum { X_PRE = 3, X_POST = 1, Y_PRE = 2, Y_POST = 3 };

/* gpgpu_spmv of m (holding a) against ref_spmv_csr; y_in NaN when beta is 0. */
static void check_product(const char *what, const gpgpu_matrix *m, const gpgpu_csr *a,
                          gpgpu_type t, const gpgpu_spmv_desc *desc, double alpha, double beta)
{
    double *x = random_doubles(a->cols), *y = random_doubles(a->rows);
    for (size_t i = 0; beta == 0 && i < a->rows; i++)
        y[i] = NAN;
    void *xt = typed(t, x, a->cols), *yt = typed(t, y, a->rows);
    slab xs = slab_make(ctx, t, X_PRE, a->cols, X_POST, xt);
    slab ys = slab_make(ctx, t, Y_PRE, a->rows, Y_POST, yt);
    gpgpu_status s = gpgpu_spmv(ctx, desc, alpha, m, xs.buf, X_PRE, beta, ys.buf, Y_PRE);
    EXPECT(s == GPGPU_SUCCESS, "%s: gpgpu_spmv: %s", what, gpgpu_last_error(ctx));

    gpgpu_csr ar = as_type(a, t);
    double *want = xmalloc((a->rows + 1) * sizeof *want);
    double *b = xmalloc((a->rows + 1) * sizeof *b), *b64 = xmalloc((a->rows + 1) * sizeof *b64);
    memcpy(want, y, a->rows * sizeof *want);
    ref_spmv_bound(&ar, x, alpha, beta, y, t == GPGPU_TYPE_F32 ? 0x1p-24 : 0x1p-53, b);
    ref_spmv_bound(&ar, x, alpha, beta, y, 0x1p-53, b64);
    ref_spmv_csr(&ar, alpha, x, beta, want);
    double *tol = exact(ys.len);
    for (size_t i = 0; i < a->rows; i++) {
        put(t, slab_at(&ys, Y_PRE + i), 0, want[i]);
        /* the GPU's bound, the reference's own (double), and rounding want to T */
        double u = t == GPGPU_TYPE_F32 ? 0x1p-24 : 0x1p-53;
        tol[Y_PRE + i] = b[i] + b64[i] + u * fabs(want[i]) + (t == GPGPU_TYPE_F32 ? 1e-37 : 1e-300);
    }
    if (s == GPGPU_SUCCESS)
        slab_check(&ys, tol, what);
    free(tol);
    free(want);
    free(b);
    free(b64);
    gpgpu_csr_free(&ar);
    slab_free(&xs);
    slab_free(&ys);
    free(xt);
    free(yt);
    free(x);
    free(y);
}

/* The alpha and beta pairs every product cycles through (exact in f32). */
static const double coefs[][2] = {{1, 0}, {1.5, -0.75}, {-2, 0}, {0.5, 2}};
static size_t coef_turn;

void check_algo(const char *name, const gpgpu_matrix *m, const gpgpu_csr *a, gpgpu_type t,
                gpgpu_format f, gpgpu_algo algo, uint32_t tpr, uint32_t rpg)
{
    const double *c = coefs[coef_turn++ % (sizeof coefs / sizeof *coefs)];
    gpgpu_spmv_desc desc = {.algo = algo, .threads_per_row = tpr, .rows_per_group = rpg};
    char what[256];
    snprintf(what, sizeof what, "%s %ux%u nnz=%zu %s %s %s tpr=%u rpg=%u alpha=%g beta=%g", name,
             a->rows, a->cols, a->nnz, gpgpu_type_name(t), gpgpu_format_name(f),
             algo_name(algo), tpr, rpg, c[0], c[1]);
    check_product(what, m, a, t, &desc, c[0], c[1]);
}

/* Every algorithm the format has, on a matrix made in it from a. */
static void check_format(const char *name, const gpgpu_csr *a, gpgpu_type t, gpgpu_format f,
                         const gpgpu_format_params *params)
{
    gpgpu_matrix *m = NULL;
    gpgpu_matrix_desc md = {.type = t, .format = f};
    if (params)
        md.params = *params;
    gpgpu_status s = gpgpu_matrix_create(ctx, &md, a, &m);
    if (f == GPGPU_FORMAT_ELL && s == GPGPU_ERROR_TOO_LARGE)
        return; /* past ELL's fill limit, as documented */
    EXPECT(s == GPGPU_SUCCESS, "%s %s %s: gpgpu_matrix_create: %s", name, gpgpu_format_name(f),
           gpgpu_type_name(t), gpgpu_last_error(ctx));
    if (s != GPGPU_SUCCESS)
        return;
    gpgpu_matrix_info info;
    EXPECT_STATUS(ctx, gpgpu_matrix_get_info(m, &info), GPGPU_SUCCESS);
    EXPECT(info.rows == a->rows && info.cols == a->cols && info.nnz == a->nnz &&
               info.format == f && info.type == t && info.stored >= a->nnz,
           "%s %s: gpgpu_matrix_get_info", name, gpgpu_format_name(f));
    check_algo(name, m, a, t, f, GPGPU_ALGO_DEFAULT, 0, 0);
    check_algo(name, m, a, t, f, GPGPU_ALGO_SPMV_SCALAR, 0, 0);
    if (f == GPGPU_FORMAT_CSR) {
        check_algo(name, m, a, t, f, GPGPU_ALGO_SPMV_BALANCED, 0, 0);
        check_algo(name, m, a, t, f, GPGPU_ALGO_CLASSIC_SPMV, 0, 0);
        check_algo(name, m, a, t, f, GPGPU_ALGO_SPMV_VECTOR, 0, 0); /* the heuristic's shape */
        static const uint32_t shapes[][2] = {{1, 64}, {4, 32}, {8, 8}, {32, 4}, {2, 1}};
        for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
            check_algo(name, m, a, t, f, GPGPU_ALGO_SPMV_VECTOR, shapes[k][0], shapes[k][1]);
    }
    gpgpu_matrix_destroy(m);
}

static void check_all_formats(const char *name, const gpgpu_csr *a)
{
    for (size_t ti = 0; ti < type_count; ti++) {
        gpgpu_type t = types[ti];
        for (gpgpu_format f = GPGPU_FORMAT_CSR; f <= GPGPU_FORMAT_BSR; f++)
            check_format(name, a, t, f, NULL);
        /* SELL with small slices and no sorting, BSR with blocks that do not divide */
        check_format(name, a, t, GPGPU_FORMAT_SELL,
                     &(gpgpu_format_params){.sell_c = 4, .sell_sigma = 1});
        check_format(name, a, t, GPGPU_FORMAT_SELL,
                     &(gpgpu_format_params){.sell_c = 8, .sell_sigma = 64});
        check_format(name, a, t, GPGPU_FORMAT_BSR, &(gpgpu_format_params){.bsr_block = 3});
    }
}

/* The zero desc follows "zero means default" as every desc does: the default kernel, with
 * alpha and beta as passed. gpgpu_spmv(ctx, &(gpgpu_spmv_desc){0}, 1, ..., 0, ...) is y = A*x;
 * alpha = 0 is simply passed (y = beta*y). On every format, on rows the scalar kernel takes
 * and on rows the vector kernel takes (the 27-point Laplacian: 15.6 a row on average). */
static void zero_desc(void)
{
    const gpgpu_spmv_desc zero = {0};
    gpgpu_csr mats[2] = {test_generated(GPGPU_GEN_RANDOM, 40, 4),
                         test_generated(GPGPU_GEN_LAPLACE3D_27, 4, 0)};
    for (size_t i = 0; i < 2; i++)
        for (gpgpu_format f = GPGPU_FORMAT_CSR; f <= GPGPU_FORMAT_BSR; f++) {
            gpgpu_matrix *m = NULL;
            gpgpu_matrix_desc md = {.type = GPGPU_TYPE_F32, .format = f};
            EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &md, &mats[i], &m), GPGPU_SUCCESS);
            if (!m)
                continue;
            char what[160];
            snprintf(what, sizeof what, "zero desc, %s %s, alpha 1, beta 0", i ? "laplace27" :
                     "random", gpgpu_format_name(f));
            check_product(what, m, &mats[i], GPGPU_TYPE_F32, &zero, 1, 0);
            snprintf(what, sizeof what, "zero desc, %s %s, alpha 0, beta 1.5", i ? "laplace27" :
                     "random", gpgpu_format_name(f));
            check_product(what, m, &mats[i], GPGPU_TYPE_F32, &zero, 0, 1.5);
            gpgpu_matrix_destroy(m);
        }
    gpgpu_csr_free(&mats[0]);
    gpgpu_csr_free(&mats[1]);
}

/* ------------------------------------------------------ the classic stages */

/* Each of Kiciak's stages alone on a's arrays, against its twin; arrays at offsets
 * between poisoned guards, and the WHOLE buffer compared bit for bit. */
static void classic_stages(const char *name, const gpgpu_csr *a, gpgpu_type t)
{
    char what[200];
    gpgpu_matrix *m = NULL;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = t}, a, &m),
                  GPGPU_SUCCESS);
    if (!m)
        return;
    gpgpu_csr ar = as_type(a, t);

    /* LENGTHS */
    snprintf(what, sizeof what, "%s %s LENGTHS", name, gpgpu_type_name(t));
    slab lgt = slab_make(ctx, GPGPU_TYPE_U32, 2, a->rows, 3, NULL);
    EXPECT_STATUS(ctx, spmv_stage_lengths(ctx, m, lgt.buf, 2), GPGPU_SUCCESS);
    ref_spmv_classic_lengths(a, slab_at(&lgt, 2));
    slab_check(&lgt, NULL, what);
    uint32_t *lengths = xmalloc((a->rows + 1) * sizeof *lengths);
    memcpy(lengths, slab_at(&lgt, 2), a->rows * sizeof *lengths);

    /* MAX, every step of the driver, on random lengths (so the steps matter) */
    slab mx = slab_make(ctx, GPGPU_TYPE_U32, 1, a->rows, 2, NULL);
    for (uint32_t tt = a->rows; tt > 1; tt = (tt + 1) / 2) {
        snprintf(what, sizeof what, "%s MAX t=%u", name, tt);
        EXPECT_STATUS(ctx, spmv_stage_max(ctx, mx.buf, 1, tt), GPGPU_SUCCESS);
        ref_spmv_classic_max(slab_at(&mx, 1), tt);
        slab_check(&mx, NULL, what);
    }
    uint32_t lmax = 0;
    for (uint32_t i = 0; i < a->rows; i++)
        lmax = lengths[i] > lmax ? lengths[i] : lmax;

    /* PRODUCTS */
    snprintf(what, sizeof what, "%s %s PRODUCTS", name, gpgpu_type_name(t));
    slab x = slab_make(ctx, t, 3, a->cols, 1, NULL);
    slab work = slab_make(ctx, t, 1, a->nnz, 2, NULL);
    test_poison(slab_at(&work, 0), work.len * gpgpu_type_size(t));
    gpgpu_buffer_upload(work.buf, 0, work.host, work.len * gpgpu_type_size(t));
    EXPECT_STATUS(ctx, spmv_stage_products(ctx, m, x.buf, 3, work.buf, 1), GPGPU_SUCCESS);
    ref_spmv_classic_products(t, &ar, slab_at(&x, 3), slab_at(&work, 1));
    slab_check(&work, NULL, what);

    /* SUMS, every step from lmax, each on the previous one's result */
    for (uint32_t tt = lmax; tt > 1; tt = (tt + 1) / 2) {
        snprintf(what, sizeof what, "%s %s SUMS t=%u", name, gpgpu_type_name(t), tt);
        EXPECT_STATUS(ctx, spmv_stage_sums(ctx, m, lgt.buf, 2, work.buf, 1, tt), GPGPU_SUCCESS);
        ref_spmv_classic_sums(t, &ar, lengths, slab_at(&work, 1), tt);
        slab_check(&work, NULL, what);
    }

    /* COPY with beta (y read) and with beta = 0 over NaN (y only written) */
    for (int zero = 0; zero < 2; zero++) {
        double alpha = zero ? -2 : 1.5, beta = zero ? 0 : -0.75;
        snprintf(what, sizeof what, "%s %s COPY beta=%g", name, gpgpu_type_name(t), beta);
        slab y = slab_make(ctx, t, 2, a->rows, 2, NULL);
        for (uint32_t i = 0; zero && i < a->rows; i++)
            put(t, slab_at(&y, 2), i, NAN);
        gpgpu_buffer_upload(y.buf, 0, y.host, y.len * gpgpu_type_size(t));
        EXPECT_STATUS(ctx, spmv_stage_copy(ctx, m, lgt.buf, 2, work.buf, 1, alpha, beta, y.buf, 2),
                      GPGPU_SUCCESS);
        ref_spmv_classic_copy(t, &ar, lengths, slab_at(&work, 1), alpha, beta, slab_at(&y, 2));
        slab_check(&y, NULL, what);
        slab_free(&y);
    }

    /* the whole classic driver replays the stages: bit for bit too */
    snprintf(what, sizeof what, "%s %s CLASSIC driver", name, gpgpu_type_name(t));
    slab y = slab_make(ctx, t, 2, a->rows, 2, NULL);
    EXPECT_STATUS(ctx,
                  gpgpu_spmv(ctx, &(gpgpu_spmv_desc){.algo = GPGPU_ALGO_CLASSIC_SPMV}, 0.5, m,
                             x.buf, 3, 2, y.buf, 2),
                  GPGPU_SUCCESS);
    ref_spmv_classic(t, &ar, slab_at(&x, 3), 0.5, 2, slab_at(&y, 2));
    slab_check(&y, NULL, what);

    slab_free(&y);
    slab_free(&x);
    slab_free(&work);
    slab_free(&mx);
    slab_free(&lgt);
    free(lengths);
    gpgpu_csr_free(&ar);
    gpgpu_matrix_destroy(m);
}

/* ------------------------------------------------------------- the matrices */

/* Rows 0, 1, 4 and the last two empty, column 2 empty too; a row of 5. */
static gpgpu_csr with_empty_rows(void)
{
    static const uint32_t rp[] = {0, 0, 0, 2, 7, 7, 8, 10, 10, 10};
    static const uint32_t ci[] = {0, 5, 0, 1, 3, 4, 6, 6, 1, 3};
    return test_csr_of(9, 7, 10, rp, ci, NULL);
}

/* A rows x cols matrix of the given row lengths (each at most cols), columns 0, 1, ...
 * in each row. */
gpgpu_csr of_lengths(const uint32_t *lens, uint32_t rows, uint32_t cols)
{
    uint32_t *rp = xmalloc((rows + 1) * sizeof *rp);
    rp[0] = 0;
    for (uint32_t i = 0; i < rows; i++)
        rp[i + 1] = rp[i] + lens[i];
    uint32_t *ci = xmalloc((rp[rows] + 1) * sizeof *ci);
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t k = 0; k < lens[i]; k++)
            ci[rp[i] + k] = k;
    gpgpu_csr a = test_csr_of(rows, cols, rp[rows], rp, ci, NULL);
    free(ci);
    free(rp);
    return a;
}

/* Long rows crossing tiles, each beginning and ending mid-tile, between short and empty
 * rows: 3 + 2500 + 0 + 1 + 1500 + 0 + 3000 + 2. */
static gpgpu_csr long_rows(void)
{
    static const uint32_t lens[] = {3, 2500, 0, 1, 1500, 0, 3000, 2, 0};
    return of_lengths(lens, sizeof lens / sizeof *lens, 3001);
}

/* The next 31 random bits of a 64-bit LCG (Knuth's MMIX constants): row lengths that the
 * matrices below draw, the same on every run. */
uint32_t lcg_next(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 33);
}

/* The merge path's tiles (SPMV_MERGE_WG * SPMV_MERGE_ITEMS steps; a row of L entries is
 * L + 1 steps): rows that end exactly where tiles end, thousands of empty rows filling
 * whole tiles, and a random mix of lengths around the tile's. */
static void merge_tiles(void)
{
    const uint32_t tile = SPMV_MERGE_WG * SPMV_MERGE_ITEMS, cols = 3 * tile + 1;
    uint32_t lens[7000];
    for (uint32_t i = 0; i < 6; i++)
        lens[i] = tile - 1; /* each row ends a tile */
    lens[6] = 2 * tile - 1;
    lens[7] = 0;
    lens[8] = tile - 2;
    gpgpu_csr a = of_lengths(lens, 9, cols);
    check_all_formats("rows ending tiles", &a);
    gpgpu_csr_free(&a);

    for (uint32_t i = 0; i < 7000; i++)
        lens[i] = i == 3000 ? 5 : i >= 6990 ? 1 : 0;
    a = of_lengths(lens, 7000, cols);
    check_all_formats("empty tiles", &a);
    gpgpu_csr_free(&a);

    /* rows as long as the plan's slack (none crosses a tile, no TILE_FIX) and one longer */
    for (uint32_t len = tile / SPMV_MERGE_SLACK; len <= tile / SPMV_MERGE_SLACK + 1; len++) {
        for (uint32_t i = 0; i < 3000; i++)
            lens[i] = len;
        a = of_lengths(lens, 3000, cols);
        check_all_formats("rows of the slack's length", &a);
        gpgpu_csr_free(&a);
    }

    static const uint32_t picks[] = {0, 0, 0, 1, 2, 7};
    uint64_t state = 99;
    for (uint32_t i = 0; i < 400; i++) {
        uint32_t r = lcg_next(&state);
        uint32_t near[] = {tile - 1, tile, tile + 1, 3 * tile, picks[r % 6]};
        lens[i] = r % 3 == 0 ? near[(r / 3) % 5] : picks[(r / 3) % 6];
    }
    a = of_lengths(lens, 400, cols);
    check_all_formats("merge mix", &a);
    gpgpu_csr_free(&a);
}

static void generated_matrices(void)
{
    static const struct {
        const char *name;
        gpgpu_generator gen;
        uint32_t size, avg;
    } gens[] = {
        {"laplace7", GPGPU_GEN_LAPLACE3D_7, 5, 0},  {"laplace27", GPGPU_GEN_LAPLACE3D_27, 4, 0},
        {"random", GPGPU_GEN_RANDOM, 700, 6},        {"power-law", GPGPU_GEN_POWER_LAW, 600, 8},
        {"rmat", GPGPU_GEN_RMAT, 8, 4},              {"banded", GPGPU_GEN_BANDED, 300, 3},
        {"dense-row", GPGPU_GEN_DENSE_ROW, 2500, 2}, {"dense", GPGPU_GEN_DENSE, 37, 0},
    };
    for (size_t g = 0; g < sizeof gens / sizeof *gens; g++) {
        gpgpu_csr a = test_generated(gens[g].gen, gens[g].size, gens[g].avg);
        check_all_formats(gens[g].name, &a);
        gpgpu_csr_free(&a);
    }
}

/* A small file of each kind (tests/matrices/matrices.py's roles), every format. */
static void file_matrices(void)
{
    static const char *const roles[] = {"SPD", "RECTANGULAR", "GENERAL", "INTEGER", "PATTERN",
                                        "TALL"};
    for (size_t f = 0; f < sizeof roles / sizeof *roles; f++) {
        const char *path = test_matrix(roles[f]);
        char msg[256] = "";
        gpgpu_csr a = {0};
        gpgpu_status s = path ? gpgpu_mtx_read_matrix(path, &a, NULL, msg, sizeof msg)
                              : GPGPU_ERROR_NULL_POINTER;
        EXPECT(s == GPGPU_SUCCESS, "%s: %s", path ? path : roles[f], msg);
        if (s == GPGPU_SUCCESS)
            check_all_formats(strrchr(path, '/') ? strrchr(path, '/') + 1 : path, &a);
        gpgpu_csr_free(&a);
    }
}

/* Every file of GPGPU_MATRIX_DIR: read (the complex and hermitian ones
 * refused by name), then DEFAULT, SCALAR and BALANCED on CSR in each type. */
static void every_file_matrix(void)
{
    const char *dir = test_matrix_dir();
    DIR *d = dir ? opendir(dir) : NULL;
    EXPECT(d != NULL, "cannot list GPGPU_MATRIX_DIR (%s)", dir ? dir : "not set");
    size_t files = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx") != 0)
            continue;
        char path[1024], msg[256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gpgpu_csr a = {0};
        gpgpu_status st = gpgpu_mtx_read_matrix(path, &a, NULL, msg, sizeof msg);
        files++;
        if (st == GPGPU_ERROR_PARSE && (strstr(msg, "complex") || strstr(msg, "hermitian"))) {
            gpgpu_csr_free(&a);
            continue;
        }
        EXPECT(st == GPGPU_SUCCESS, "%s: %s", path, msg);
        for (size_t ti = 0; st == GPGPU_SUCCESS && ti < type_count; ti++) {
            gpgpu_matrix *m = NULL;
            EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = types[ti]},
                                                   &a, &m),
                          GPGPU_SUCCESS);
            if (!m)
                continue;
            check_algo(e->d_name, m, &a, types[ti], GPGPU_FORMAT_CSR, GPGPU_ALGO_DEFAULT, 0, 0);
            check_algo(e->d_name, m, &a, types[ti], GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_SCALAR, 0,
                       0);
            check_algo(e->d_name, m, &a, types[ti], GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_BALANCED,
                       0, 0);
            gpgpu_matrix_destroy(m);
        }
        gpgpu_csr_free(&a);
    }
    if (d)
        closedir(d);
    EXPECT(files >= test_matrix_min_files(), "only %zu .mtx files in %s", files,
           dir ? dir : "");
}

static void edge_matrices(void)
{
    static const uint32_t zeros[6] = {0};
    static const uint32_t one_rp[] = {0, 1}, one_ci[] = {0};
    struct {
        const char *name;
        gpgpu_csr a;
    } cases[] = {
        {"0x0", test_csr_of(0, 0, 0, zeros, NULL, NULL)},
        {"5x0", test_csr_of(5, 0, 0, zeros, NULL, NULL)},
        {"0x5", test_csr_of(0, 5, 0, zeros, NULL, NULL)},
        {"1x1", test_csr_of(1, 1, 1, one_rp, one_ci, NULL)},
        {"1x1 empty", test_csr_of(1, 1, 0, zeros, NULL, NULL)},
        {"empty rows", with_empty_rows()},
        {"long rows", long_rows()},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        check_all_formats(cases[c].name, &cases[c].a);
        for (size_t ti = 0; ti < type_count; ti++)
            if (cases[c].a.rows > 0)
                classic_stages(cases[c].name, &cases[c].a, types[ti]);
        gpgpu_csr_free(&cases[c].a);
    }
}

/* One row of 10^6 nonzeros (GPGPU_TEST_MAX_N if less): the balanced and
 * vector kernels. */
static void one_long_row(void)
{
    const uint32_t N = (uint32_t)(test_max_n() < 1000000 ? test_max_n() : 1000000);
    uint32_t rp[2] = {0, N}, *ci = xmalloc(N * sizeof *ci);
    for (uint32_t k = 0; k < N; k++)
        ci[k] = k;
    gpgpu_csr a = test_csr_of(1, N, N, rp, ci, NULL);
    free(ci);
    for (size_t ti = 0; ti < type_count; ti++) {
        gpgpu_type t = types[ti];
        gpgpu_matrix *m = NULL;
        EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = t}, &a, &m),
                      GPGPU_SUCCESS);
        check_algo("one row", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_BALANCED, 0, 0);
        check_algo("one row", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_VECTOR, 32, 1);
        check_algo("one row", m, &a, t, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_VECTOR, 0, 0);
        gpgpu_matrix_destroy(m);
    }
    gpgpu_csr_free(&a);
}

/* ------------------------------------------------------------------- tuning */

static int progress_lines;
static void on_progress(const char *line, void *user)
{
    (void)line;
    (void)user;
    progress_lines++;
}

static bool file_has(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    char line[512];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, needle) != NULL;
    if (f)
        fclose(f);
    return found;
}

static void tuning(void)
{
    gpgpu_csr a = test_generated(GPGPU_GEN_RANDOM, 2000, 12);
    gpgpu_matrix *m = NULL;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32}, &a, &m),
                  GPGPU_SUCCESS);
    gpgpu_spmv_tuning h, r, known;
    EXPECT_STATUS(ctx, gpgpu_spmv_heuristic(m, &h), GPGPU_SUCCESS);
    EXPECT(h.threads_per_row == 8 && h.threads_per_row * h.rows_per_group <= 1024,
           "heuristic: %u x %u for rows of 12 on average", h.threads_per_row, h.rows_per_group);

    char path[256];
    snprintf(path, sizeof path, "/tmp/gpgpu-test-spmv-%d/cache/tune", (int)getpid());
    setenv("GPGPU_TUNE_CACHE", path, 1);
    EXPECT(!spmv_tuned_shape(ctx, m, &known), "a tuned shape before tuning");
    EXPECT_STATUS(ctx, gpgpu_spmv_tune(ctx, m, on_progress, NULL, &r), GPGPU_SUCCESS);
    EXPECT(progress_lines > 1, "tune: %d progress lines", progress_lines);
    /* Under a microsecond a product is a timer that missed the work (GL on llvmpipe reads
     * 0), which the tuner must not choose by. */
    EXPECT(r.threads_per_row >= 1 && r.gpu_ns >= 1000 && r.heuristic_ns >= r.gpu_ns,
           "tune: %u x %u in %g ns, heuristic %g ns", r.threads_per_row, r.rows_per_group,
           r.gpu_ns, r.heuristic_ns);
    EXPECT(spmv_tuned_shape(ctx, m, &known) && known.threads_per_row == r.threads_per_row &&
               known.rows_per_group == r.rows_per_group,
           "tune: the context does not know its choice");
    EXPECT(file_has(path, "|f32|2000|2000|"), "tune: %s does not hold the choice", path);
    check_algo("tuned", m, &a, GPGPU_TYPE_F32, GPGPU_FORMAT_CSR, GPGPU_ALGO_SPMV_VECTOR, 0, 0);

    /* a new context finds the choice in the file */
    gpgpu_context *other = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(NULL, &other), GPGPU_SUCCESS);
    gpgpu_matrix *om = NULL;
    EXPECT_STATUS(other,
                  gpgpu_matrix_create(other, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32}, &a, &om),
                  GPGPU_SUCCESS);
    EXPECT(om && spmv_tuned_shape(other, om, &known) &&
               known.threads_per_row == r.threads_per_row,
           "tune: a new context does not read %s", path);
    gpgpu_matrix_destroy(om);
    gpgpu_context_destroy(other);
    unlink(path);

    /* set but empty: nothing is written */
    setenv("GPGPU_TUNE_CACHE", "", 1);
    EXPECT_STATUS(ctx, gpgpu_spmv_tune(ctx, m, NULL, NULL, &r), GPGPU_SUCCESS);
    EXPECT(access(path, F_OK) != 0, "tune: %s written with GPGPU_TUNE_CACHE empty", path);
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/gpgpu-test-spmv-%d/cache", (int)getpid());
    rmdir(dir);
    snprintf(dir, sizeof dir, "/tmp/gpgpu-test-spmv-%d", (int)getpid());
    rmdir(dir);

    gpgpu_matrix_destroy(m);
    gpgpu_csr_free(&a);
}

int main(void)
{
    ctx = test_context();
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    if (!info.has_f64)
        type_count = 1;
    setenv("GPGPU_TUNE_CACHE", "", 1); /* no test writes the user's cache */
    misuse();
    zero_desc();
    misaligned();
    edge_matrices();
    one_long_row();
    merge_tiles();
    plan_kept();
    generated_matrices();
    file_matrices();
    every_file_matrix();
    wrapped_matrices();
    tuning();
    gpgpu_context_destroy(ctx);
    return test_finish();
}
