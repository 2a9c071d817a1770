/* Whole SpGEMM products with every algorithm in f32 and f64 against ref_spgemm_gustavson:
 * edge shapes, generated matrices, A*A^T through the GPU's transpose, exact zeros kept and
 * dropped, and the MatrixMarket files of GPGPU_MATRIX_DIR. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu/io.h"
#include "matrices/matrices.h"
#include "test_spgemm.h"

/* --------------------------------------------------------- whole products */

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

void edge_products(void)
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

void generated_products(void)
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
void crafted_zeros(void)
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
void integer_zeros(void)
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

/* ------------------------------------------------------- the matrix files */

/* Every file of GPGPU_MATRIX_DIR (tests/matrices/matrices.py) whose product has at most
 * FILE_MAX_PRODUCTS products: A*A (one matrix object) when square, A*A^T (the GPU's
 * transpose, checked) otherwise; DEFAULT in f64, and in f32 too for small products. The
 * complex and hermitian files are refused by the reader, by name. At most an eighth of the
 * files may be larger (6 of the shared collection's 71). */
void matrix_files(void)
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
