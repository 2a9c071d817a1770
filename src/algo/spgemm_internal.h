/* What the files of the fast product share: spgemm.c (gpgpu_spgemm, the short rows and C),
 * spgemm_esc.c (the long rows' global path), spgemm_budget.c (the GPU memory a product holds
 * and what fits in it) and transpose.c (gpgpu_matrix_transpose, gpgpu_matrix_download).
 * Only src/algo's SpGEMM files include it. */
#ifndef GPGPU_ALGO_SPGEMM_INTERNAL_H
#define GPGPU_ALGO_SPGEMM_INTERNAL_H

#include "algo/spgemm.h"

/* ------------------------------------------------------------------ spgemm.c */

/* The radix passes that sort u32 keys of `bits` bits: the bytes that can differ, at least one
 * (sort_keys.key_passes). */
unsigned spgemm_key_passes_for(unsigned bits);
/* Those of keys below `bound` (column indices): a matrix of 2^15 columns takes two of four. */
unsigned spgemm_key_passes_below(uint32_t bound);
/* C's row statistics, which SpMV's kernel choice reads, found on the GPU. */
gpgpu_status spgemm_fill_stats(gpgpu_context *ctx, gpgpu_matrix *c);
/* A dispatch of `stage` on the product's operands and aux, its offsets set. */
exec_dispatch spgemm_product_dispatch(spgemm_product *p, unsigned stage, unsigned items);
/* The 64-bit header word at `at` of the host copy. */
uint64_t spgemm_header64(const spgemm_product *p, unsigned at);
/* The checks of `what`'s arguments every call of the family makes: m (named `name`) a CSR
 * matrix of ctx; no recording into the caller's command buffer (the calls read sizes back). */
gpgpu_status spgemm_check_matrix(gpgpu_context *ctx, const gpgpu_matrix *m, const char *name,
                                 const char *what);
gpgpu_status spgemm_check_readback(gpgpu_context *ctx, const char *what);

/* ----------------------------------------------------------- spgemm_budget.c */

/* A buffer of `bytes` (16 for 0) counted against mem; destroy (of NULL too) gives it back;
 * take counts C from when it is made. */
gpgpu_status spgemm_mem_create(gpgpu_context *ctx, spgemm_memory *mem, size_t bytes,
                               gpgpu_buffer **out);
void spgemm_mem_destroy(spgemm_memory *mem, gpgpu_buffer **buf);
void spgemm_mem_take(spgemm_memory *mem, size_t bytes);
/* The budget of a product whose desc gives none. */
size_t spgemm_default_budget(const gpgpu_context *ctx);
/* Bytes of a global-path chunk of `rows` rows and `products` products. */
size_t spgemm_esc_chunk_bytes(const spgemm_product *p, size_t products, size_t rows,
                              bool numeric);
/* The long rows' products in all and, where `largest`, the most that one of them has. */
uint64_t spgemm_long_row_products(const spgemm_product *p, uint64_t *largest);
/* Whether such a chunk's arrays each fit one storage binding and the shaders' indices. */
bool spgemm_chunk_fits_bindings(const spgemm_product *p, uint64_t products, size_t rows,
                                bool numeric);

/* -------------------------------------------------------------- spgemm_esc.c */

/* The long rows of the symbolic (or numeric) phase, in chunks under the budget. */
gpgpu_status spgemm_long_rows(spgemm_product *p, bool numeric);
/* Frees the long rows' kept chunk, if any. */
void spgemm_drop_kept(spgemm_product *p);

#endif /* GPGPU_ALGO_SPGEMM_INTERNAL_H */
