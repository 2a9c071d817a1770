/* What the MPI tests share: MPI and a context on every rank (or every rank exits 77), checks
 * that count a rank's failures and a finish that adds them over the ranks, reproducible
 * random data, and the global matrices every rank builds alike and cuts into its rows. The
 * tests link libgpgpu and libgpgpu_mpi as a program does (their public APIs), and src/ref. */
#ifndef GPGPU_MPI_TESTLIB_H
#define GPGPU_MPI_TESTLIB_H

#include <gpgpu/mpi.h>

#include <stdio.h>

enum { TEST_SKIPPED = 77 };

extern int test_rank, test_ranks;
extern int test_failures, test_checks;

#define EXPECT(cond, ...)                                                    \
    do {                                                                     \
        test_checks++;                                                       \
        if (!(cond)) {                                                       \
            test_failures++;                                                 \
            fprintf(stderr, "rank %d: %s:%d: FAILED: ", test_rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

/* An exact status, with libgpgpu_mpi's message on a mismatch. */
#define EXPECT_STATUS(expr, code)                                            \
    do {                                                                     \
        gpgpu_status got_ = (expr);                                          \
        EXPECT(got_ == (code), "%s returned %d (%s), expected %d (%s): %s", #expr, (int)got_, \
               gpgpu_status_string(got_), (int)(code), gpgpu_status_string(code), \
               gpgpu_mpi_last_error());                                      \
    } while (0)

/* MPI_Init_thread (SERIALIZED) and this rank's context for GPGPU_BACKEND (debug on); when
 * any rank cannot make one, every rank exits 77. */
gpgpu_context *test_init(int *argc, char ***argv);

/* The same with the thread level asked of MPI_Init_thread. */
gpgpu_context *test_init_level(int *argc, char ***argv, int level);

/* Adds the failures over the ranks; rank 0 prints "N passed, M failed"; MPI_Finalize. Returns
 * the exit code. */
int test_finish(gpgpu_context *ctx);

/* Rank 0 prints a line (the others stay quiet). */
void test_note(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Exits every rank (MPI_Abort) when s is not GPGPU_SUCCESS: what a test cannot go on without. */
void test_die_on(gpgpu_status s, const char *what);

/* malloc that aborts on failure (0 bytes gives a valid pointer). */
void *xmalloc(size_t bytes);

/* Whether the context has f64; the float types the tests run. */
bool test_has_f64(gpgpu_context *ctx);

/* n values of a reproducible sequence: magnitudes in [0.5, 1.5) with random signs (never 0,
 * so an unwritten -0 or 0 shows), or with integers, whole numbers in [-8, 8] without 0 (their
 * products and sums exact in f32 and f64). Rounded to `type` when it is f32. */
void test_values(gpgpu_type type, bool integers, uint64_t seed, double *out, size_t n);

/* The rows [first, first + count) of a global CSR, columns global, for
 * gpgpu_mpi_matrix_create. */
gpgpu_csr test_rows_of(const gpgpu_csr *a, uint64_t first, uint32_t count);

/* A CSR from arrays, copied (gpgpu_csr_free applies). */
gpgpu_csr test_csr(uint32_t rows, uint32_t cols, size_t nnz, const uint32_t *row_ptr,
                   const uint32_t *col_idx, const double *values);

/* Every value of a CSR replaced by test_values(integers). */
void test_integer_values(gpgpu_csr *a, uint64_t seed);

/* A slice of x's buffer, as doubles (local_size of them). */
double *test_download(const gpgpu_mpi_vector *v);

/* A distributed vector with this rank's slice of `global` (the whole vector, every rank has
 * it), uploaded by the rank itself. */
gpgpu_mpi_vector *test_vector(gpgpu_mpi_matrix *a, gpgpu_mpi_side side, const double *global);

/* The file of a role of tests/matrices/matrices.py (GPGPU_MATRIX_<ROLE>, which the tests run
 * under it are given: the shared collection's, else a generated one), NULL when it is not
 * set or not there (a program run by hand). */
const char *test_matrix_role(const char *role);

#endif /* GPGPU_MPI_TESTLIB_H */
