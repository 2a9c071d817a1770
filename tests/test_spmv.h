/* What test_spmv.c (main, the checked product, the classic stages, the matrices, the tuner)
 * and test_spmv_wrapped.c (wrapped buffers and misuse) share. One executable, test_spmv. */
#ifndef TEST_SPMV_H
#define TEST_SPMV_H

#include "algo/spmv.h"
#include "gpgpu/sparse.h"
#include "ref/ref.h"
#include "testlib.h"

extern gpgpu_context *ctx;
extern gpgpu_type types[2];
extern size_t type_count; /* 1 where the device has no f64 */

gpgpu_csr as_type(const gpgpu_csr *a, gpgpu_type t);
void *typed(gpgpu_type t, const double *v, size_t n);
gpgpu_csr of_lengths(const uint32_t *lens, uint32_t rows, uint32_t cols);
uint32_t lcg_next(uint64_t *state);
/* One product of m (holding a) with the algorithm and shape, against the reference. */
void check_algo(const char *name, const gpgpu_matrix *m, const gpgpu_csr *a, gpgpu_type t,
                gpgpu_format f, gpgpu_algo algo, uint32_t tpr, uint32_t rpg);

/* test_spmv_wrapped.c */
void plan_kept(void);
void wrapped_matrices(void);
void misuse(void);
void misaligned(void);

#endif /* TEST_SPMV_H */
