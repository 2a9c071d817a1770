/* What the parts of the SpGEMM test share: the context and types, the host matrices and
 * their checks, the whole product against Gustavson's (test_spgemm.c, with main), and each
 * part's entry (the classic stages: test_spgemm_classic.c; the fast stages:
 * test_spgemm_fast.c and the matrices that cover them, test_spgemm_fast_inputs.c; whole
 * products, zeros and the matrix files: test_spgemm_products.c; memory budgets, bindings
 * and misuse: test_spgemm_budgets.c). One executable, test_spgemm. */
#ifndef TEST_SPGEMM_H
#define TEST_SPGEMM_H

#include "algo/spgemm.h"
#include "gpgpu/sparse.h"
#include "ref/ref.h"
#include "testlib.h"

extern gpgpu_context *ctx;
extern gpgpu_type types[2];
extern size_t type_count; /* 1 where the device has no f64 */

/* Test time on llvmpipe. The classic product's sort runs rows x nn/2 invocations in each
 * of its log2(nn) (log2(nn) + 1) / 2 steps, nn the longest row's products rounded up to a
 * power of two (a 2500-row matrix with one row of 7543 products: 10^9 invocations, minutes):
 * it is tried where that stays below CLASSIC_MAX_SORT. The matrix files are tried up to
 * FILE_MAX_PRODUCTS products, in f32 too up to FILE_F32_MAX_PRODUCTS. */
#define CLASSIC_MAX_SORT 2e7
enum { FILE_MAX_PRODUCTS = 3000000, FILE_F32_MAX_PRODUCTS = 50000 };

/* The longest row (in products) the shared-memory path of SPGEMM_ROWS takes. */
enum { SHARED_MAX_PRODUCTS = 2048 };

enum { GUARD = 3 }; /* poisoned elements after each array in its buffer (the stage replays) */

/* ------------------------------------------------------------ host helpers */

void ref_or_die(bool ok, const char *what);
uint64_t splitmix(uint64_t *state);
gpgpu_csr random_csr(uint32_t rows, uint32_t cols, uint32_t avg, uint32_t empty, bool signs);
gpgpu_csr as_type(const gpgpu_csr *a, gpgpu_type t);
gpgpu_matrix *upload(const gpgpu_csr *a, gpgpu_type t);
size_t csr_bytes(uint32_t rows, size_t nnz, gpgpu_type t);
void poison_u32(uint32_t *a, size_t from, size_t n);
int cmp_first_u32(const void *x, const void *y);
void hand_pair(gpgpu_csr *a, gpgpu_csr *b);

/* ---------------------------------------------------------- CSR comparisons */

bool same_structure(const char *what, const gpgpu_csr *got, const gpgpu_csr *want);
void close_values(const char *what, const gpgpu_csr *got, const gpgpu_csr *want,
                  const double *bound, gpgpu_type t);
void check_matrix(const char *what, const gpgpu_matrix *m, const gpgpu_csr *want,
                  const double *bound, gpgpu_type t);

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

reference make_reference(const gpgpu_csr *a, const gpgpu_csr *b, gpgpu_type t);
void free_reference(reference *r);
bool check_spgemm(const char *name, const gpgpu_matrix *ma, const gpgpu_matrix *mb,
                  const reference *r, const gpgpu_spgemm_desc *desc, gpgpu_spgemm_stats *out);
extern const gpgpu_algo all_algos[4];
gpgpu_matrix *checked_transpose(const char *name, const gpgpu_matrix *m, const gpgpu_csr *ar,
                                gpgpu_type t);

/* ------------------------------------------------------------ the parts */

void classic_stage_tests(void); /* test_spgemm_classic.c */
/* test_spgemm_fast.c: the fast product of a and b replayed stage by stage, under each
 * tuning that changes its stages; test_spgemm_fast_inputs.c: the matrices it runs on */
void fast_stages(const char *name, const gpgpu_csr *a, const gpgpu_csr *b, gpgpu_type t,
                 gpgpu_algo algo, bool exact, unsigned bins);
void fast_stage_tests(void);
/* test_spgemm_products.c */
void edge_products(void);
void generated_products(void);
void crafted_zeros(void);
void integer_zeros(void);
void matrix_files(void);
/* test_spgemm_budgets.c */
void budgets(void);
void packing_rule(void);
void long_rows_paths(void);
void long_rows_parts(void);
void transpose_bindings(void);
void one_phase_budgets(void);
void misuse(void);

#endif /* TEST_SPGEMM_H */
