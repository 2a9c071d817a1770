/* What every GPU test shares: a context (or exit 77), random nonzero data,
 * poisoned outputs, checks that count failures instead of stopping. */
#ifndef GPGPU_TESTLIB_H
#define GPGPU_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpgpu/gpgpu.h"
#include "gpgpu/sparse.h"

enum { TEST_SKIPPED = 77 };

/* Atomic: EXPECT may be used from several threads at once (test_threads). */
extern _Atomic int test_failures, test_checks;

/* Calls of the test's context that GL debug output failed (test_finish
 * fails the test if any). */
extern _Atomic int test_gl_debug_failures;

#define EXPECT(cond, ...)                                                    \
    do {                                                                     \
        test_checks++;                                                       \
        if (!(cond)) {                                                       \
            test_failures++;                                                 \
            fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

/* Asserts an exact status; on a mismatch prints the context's message. */
#define EXPECT_STATUS(ctx, expr, code)                                       \
    do {                                                                     \
        gpgpu_status got_ = (expr);                                          \
        EXPECT(got_ == (code), "%s returned %d (%s), expected %d (%s): %s", #expr, \
               (int)got_, gpgpu_status_string(got_), (int)(code),           \
               gpgpu_status_string(code), gpgpu_last_error(ctx));           \
    } while (0)

/* A headless context for the backend chosen by GPGPU_BACKEND, with
 * desc.debug; exits with 77 when no context of that kind can be made at all. */
gpgpu_context *test_context(void);

/* The same from the caller's desc (debug set; without an error_callback of the
 * caller's, test_on_error). */
gpgpu_context *test_context_with(const gpgpu_context_desc *desc);

/* The error callback of test_context: counts the failures that GL debug output
 * caused in test_gl_debug_failures. */
void test_on_error(gpgpu_status status, const char *message, void *user);

/* What an error callback saw: how often it ran, and the last status and message. */
typedef struct cb_record {
    int calls;
    gpgpu_status status;
    char message[2048];
} cb_record;

/* An error callback whose user_data is a cb_record: counts the call and keeps both. */
void record_error(gpgpu_status status, const char *message, void *user_data);

/* n random nonzero elements of `type`: integers in [1, 1000] (u32) or
 * +-[1, 1000] (i32), floats of magnitude in [0.5, 1.5) with random sign. */
void test_random(gpgpu_type type, void *out, size_t n, uint64_t seed);

/* Fills bytes with a pattern no algorithm writes here (0xA5 bytes: a large
 * integer, a small negative float), so unwritten elements show; compare bits. */
void test_poison(void *p, size_t bytes);

/* A buffer of `bytes` bytes holding `data` (poisoned when data is NULL). */
gpgpu_buffer *test_buffer(gpgpu_context *ctx, const void *data, size_t bytes);

/* The awkward sizes every test runs: 0, 1, 2, 3, 5, 7, 31, 32, 33, 1000, 2^k - 1,
 * 2^k, 2^k + 1 for several k, and a few up to 2^22; ends with SIZE_MAX. */
extern const size_t test_sizes[];

/* The largest element count the size sweeps run: GPGPU_TEST_MAX_N (the
 * sanitizer pass of scripts/test.sh sets it; docs/TESTING.md), else SIZE_MAX. */
size_t test_max_n(void);

/* Whether a size sweep runs test_sizes[size_index] for test_types[type_index].
 * Sizes from TEST_SHARED_FROM up, where llvmpipe spends most of a suite's
 * time, are shared out: each runs for two of the four types, alternately,
 * so every type still meets several of them (the multi-level paths) and
 * each size one integer and one float type, at half the cost.
 * GPGPU_TEST_ALL_SIZES=1 runs every pair; GPGPU_TEST_MAX_N still applies. */
enum { TEST_SHARED_FROM = 262143 };
bool test_runs_size(size_t size_index, size_t type_index);

/* The rule underneath, for sweeps of their own sizes: whether size n runs
 * for the k-th case of a sweep that alternates k over its cases (always
 * below TEST_SHARED_FROM, for even k above; GPGPU_TEST_ALL_SIZES=1 always). */
bool test_runs_large(size_t n, size_t k);

/* Prints "N passed, M failed" and returns the exit code. */
int test_finish(void);

/* ------------------------------------------- helpers of the numeric tests */

/* The four element types, in enum order. */
extern const gpgpu_type test_types[4];

/* The seed of the next random input (test_random); each use takes one. */
extern uint64_t test_seed;

/* malloc that exits on failure (0 bytes gives a valid pointer). */
void *xmalloc(size_t bytes);

static inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static inline bool is_float(gpgpu_type t) { return t == GPGPU_TYPE_F32 || t == GPGPU_TYPE_F64; }

/* How many roundings lie, at most, between one input of a work-group
 * combine of `wg` invocations on ctx's device and its result (see testlib.c). */
unsigned depth_of_wg(gpgpu_context *ctx, unsigned wg);

/* |gpu - ref| allowed for a float sum whose GPU summation tree puts every
 * input at depth <= d, given the sum of absolute values `abs`. */
double tolerance(gpgpu_type t, size_t d, long double abs);

/* Element i of p as text (floats with their bits); returns out. */
const char *show(gpgpu_type t, const void *p, size_t i, char *out, size_t size);

/* Element i matches: bit for bit where tol < 0 (any NaN matches any NaN),
 * else within tol (an expected inf exactly, an expected NaN as a NaN). */
bool matches(gpgpu_type t, const void *got, const void *want, size_t i, double tol);

/* One check: n elements of got against want (tol NULL: all bit-exact);
 * prints the first few differences. */
void check_elems(const char *what, gpgpu_type t, const void *got, const void *want, size_t n,
                 const double *tol);

/* The row statistics a GPU matrix holds (longest, shortest, empty rows, mean; found on the
 * GPU) against gpgpu_csr_row_stats of the CSR it should equal. */
void check_row_stats(const char *what, const gpgpu_matrix *m, const gpgpu_csr *want);

/* n tolerances of -1: bit-exact everywhere until a range is filled in. */
double *exact(size_t n);

/* A GPU buffer and its expected image on the host. */
typedef struct slab {
    gpgpu_context *ctx;
    gpgpu_type t;
    size_t len; /* elements */
    void *host;
    gpgpu_buffer *buf;
} slab;

/* `pre` poisoned elements, n elements of data (random nonzero from
 * test_seed when NULL), `post` poisoned; the buffer holds the same. */
slab slab_make(gpgpu_context *ctx, gpgpu_type t, size_t pre, size_t n, size_t post,
               const void *data);

/* The host image's element i. */
void *slab_at(const slab *s, size_t i);

/* Downloads the whole buffer and checks it against the host image. */
void slab_check(const slab *s, const double *tol, const char *what);

void slab_free(slab *s);

/* ------------------------------------------ helpers of the sparse tests */

/* Exits with the library's last error when s is not GPGPU_SUCCESS. */
void test_die_on(gpgpu_status s, const char *what);

/* A CSR from explicit arrays (copied into malloc'ed ones, so gpgpu_csr_free
 * applies), with the given values or random f32 ones when values is NULL. */
gpgpu_csr test_csr_of(uint32_t rows, uint32_t cols, size_t nnz, const uint32_t *rp,
                      const uint32_t *ci, const double *values);

/* gpgpu_generate's matrix of that kind, size and average row length, with
 * a seed fixed by the size. */
gpgpu_csr test_generated(gpgpu_generator gen, uint32_t size, uint32_t avg);

#endif /* GPGPU_TESTLIB_H */
