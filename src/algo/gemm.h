/* The dense product's stages (glsl/gemm.comp), callable one by one so that
 * each can be tested alone against its CPU twin (ref_gemm in src/ref). Each
 * method is one stage: a dense product has no intermediate buffers, only the
 * way its outputs share the loads of A and B differs. */
#ifndef GPGPU_ALGO_GEMM_H
#define GPGPU_ALGO_GEMM_H

#include "algo/algo.h"
#include "algo/ids/gemm_coopmat_ids.h"
#include "algo/ids/gemm_ids.h"

enum { GEMM_STAGES(ALGO_ID) };
enum { GEMM_PARAMS(ALGO_ID) };
enum { GEMM_SHAPES(ALGO_SHAPE) };
enum { GEMM_CONSTS(ALGO_ID) };

/* One product C = alpha op(A) op(B) + beta C, checked: sizes and strides fit in the
 * shaders' 32-bit indices, offsets in elements. */
typedef struct gemm_problem {
    gpgpu_type type;
    uint32_t m, n, k;
    bool trans_a, trans_b;
    uint32_t lda, ldb, ldc;
    double alpha, beta;
    gpgpu_buffer *a, *b, *c;
    size_t a_off, b_off, c_off;
} gemm_problem;

/* One stage of a dense-product family ("gemm", "gemm_coopmat"), built for that stage alone:
 * A, B, C bound to 0, 1, 2 and the problem in params 1..14 as both shaders read it (sizes,
 * offsets, strides, flags, alpha and beta as T). */
exec_dispatch gemm_dispatch(const gemm_problem *p, const char *family, unsigned stage,
                            unsigned wg, unsigned items);

/* Method 1: one work-group of tile x tile invocations (tile 8, 16, 32). */
gpgpu_status gemm_stage_method1(gpgpu_context *ctx, const gemm_problem *p, unsigned tile);

/* Method 2: a work-group of tile x tile invocations per tile of C. */
gpgpu_status gemm_stage_method2(gpgpu_context *ctx, const gemm_problem *p, unsigned tile);

/* Method 6: outputs (2 or 4) per invocation, slices of A and B through shared memory. */
gpgpu_status gemm_stage_method6(gpgpu_context *ctx, const gemm_problem *p, unsigned tile,
                                unsigned outputs);

/* The register-tiled product with a block shape gemm_shape_check accepts. */
gpgpu_status gemm_stage_tiled(gpgpu_context *ctx, const gemm_problem *p,
                              const gpgpu_gemm_tuning *shape);

/* Whether the tiled kernel can run this shape on this device; if not, why (for messages). */
bool gemm_shape_check(const gpgpu_context *ctx, gpgpu_type type, const gpgpu_gemm_tuning *shape,
                      char *why, size_t why_size);

/* Shared memory, in bytes, that method 6 needs for a tile and output count. */
size_t gemm_method6_shared_bytes(gpgpu_type type, unsigned tile, unsigned outputs);

/* ---- src/algo/gemm_coopmat.c: f16 products on cooperative matrices ---- */

enum { GEMM_COOPMAT_STAGES(ALGO_ID) };

/* M, N, K rounded up to the shader's block (128 x 128) and slice (32). */
typedef struct gemm_coopmat_sizes {
    size_t m, n, k;
} gemm_coopmat_sizes;
gemm_coopmat_sizes gemm_coopmat_padded(size_t m, size_t n, size_t k);

/* The padded f16 copies of op(A) (m x k) and op(B) (k x n), and the f32 product (m x n). */
typedef struct gemm_coopmat_scratch {
    gpgpu_buffer *a16, *b16, *c32;
} gemm_coopmat_scratch;

/* One stage alone; the whole product (scratch slots 1 to 3), for an f32 problem. */
gpgpu_status gemm_coopmat_stage(gpgpu_context *ctx, const gemm_problem *p,
                                const gemm_coopmat_scratch *s, unsigned stage);
gpgpu_status gemm_coopmat_run(gpgpu_context *ctx, const gemm_problem *p);

#endif /* GPGPU_ALGO_GEMM_H */
