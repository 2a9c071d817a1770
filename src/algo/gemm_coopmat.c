/* The dense product on cooperative matrices (glsl/gemm_coopmat.comp): op(A)
 * and op(B) rounded to f16 into padded scratch matrices, their product summed
 * in f32 by the matrix units, then alpha and beta applied into C. Each stage
 * is one dispatch. */
#include "algo/gemm.h"

enum {
    P_M = 1, P_N, P_K, P_A_OFF, P_B_OFF, P_C_OFF, P_LDA, P_LDB, P_LDC, P_FLAGS, P_ALPHA, P_BETA
};
enum { FLAG_TRANS_A = 1, FLAG_TRANS_B = 2, FLAG_BETA_IS_ZERO = 4 };
/* The shader's block of C per work-group (8 subgroups of 32 invocations, each 4 x 2 tiles
 * of 16) and its K slice. */
enum { COOPMAT_WG = 256, COOPMAT_BM = 128, COOPMAT_BN = 128, COOPMAT_BK = 32 };
enum { CONVERT_WG = 256 };

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

gemm_coopmat_sizes gemm_coopmat_padded(size_t m, size_t n, size_t k)
{
    return (gemm_coopmat_sizes){round_up(m, COOPMAT_BM), round_up(n, COOPMAT_BN),
                                round_up(k, COOPMAT_BK)};
}

static exec_dispatch coopmat_dispatch(const gemm_problem *p, const gemm_coopmat_scratch *s,
                                      unsigned stage, unsigned wg)
{
    exec_dispatch d = {.variant = {"gemm_coopmat", GPGPU_TYPE_F32, GPGPU_OP_SUM, wg, 1, stage}};
    d.params[0] = stage;
    d.params[P_M] = p->m;
    d.params[P_N] = p->n;
    d.params[P_K] = p->k;
    d.bind[0] = p->a;
    d.bind[1] = p->b;
    d.bind[2] = p->c;
    d.bind[3] = s->a16;
    d.bind[4] = s->b16;
    d.bind[5] = s->c32;
    d.params[P_A_OFF] = algo_index(p->a, p->a_off, GPGPU_TYPE_F32);
    d.params[P_B_OFF] = algo_index(p->b, p->b_off, GPGPU_TYPE_F32);
    d.params[P_C_OFF] = algo_index(p->c, p->c_off, GPGPU_TYPE_F32);
    d.params[P_LDA] = p->lda;
    d.params[P_LDB] = p->ldb;
    d.params[P_LDC] = p->ldc;
    d.params[P_FLAGS] = (p->trans_a ? FLAG_TRANS_A : 0) | (p->trans_b ? FLAG_TRANS_B : 0) |
                        (p->beta == 0.0 ? FLAG_BETA_IS_ZERO : 0);
    algo_put_scalar(&d, P_ALPHA, GPGPU_TYPE_F32, p->alpha);
    algo_put_scalar(&d, P_BETA, GPGPU_TYPE_F32, p->beta);
    return d;
}

gpgpu_status gemm_coopmat_stage(gpgpu_context *ctx, const gemm_problem *p,
                                const gemm_coopmat_scratch *s, unsigned stage)
{
    gemm_coopmat_sizes z = gemm_coopmat_padded(p->m, p->n, p->k);
    exec_dispatch d = coopmat_dispatch(p, s, stage, stage == GEMM_COOPMAT_PRODUCT ? COOPMAT_WG
                                                                                   : CONVERT_WG);
    switch (stage) {
    case GEMM_COOPMAT_A_TO_F16: d.groups = algo_groups(z.m * z.k / 8, CONVERT_WG); break;
    case GEMM_COOPMAT_B_TO_F16: d.groups = algo_groups(z.k * z.n / 8, CONVERT_WG); break;
    case GEMM_COOPMAT_PRODUCT: d.groups = (uint32_t)((z.m / COOPMAT_BM) * (z.n / COOPMAT_BN)); break;
    default: d.groups = algo_groups((size_t)p->m * (z.n / 8), CONVERT_WG); break;
    }
    return d.groups ? algo_stage(ctx, &d) : GPGPU_SUCCESS;
}

gpgpu_status gemm_coopmat_run(gpgpu_context *ctx, const gemm_problem *p)
{
    gemm_coopmat_sizes z = gemm_coopmat_padded(p->m, p->n, p->k);
    gemm_coopmat_scratch s;
    /* the scratch slots of no other family in this call; an empty K still binds a buffer */
    TRY(ctx_scratch(ctx, 1, (z.m * z.k + 2) * 2, &s.a16));
    TRY(ctx_scratch(ctx, 2, (z.k * z.n + 2) * 2, &s.b16));
    TRY(ctx_scratch(ctx, 3, z.m * z.n * 4, &s.c32));
    for (unsigned stage = GEMM_COOPMAT_A_TO_F16; stage <= GEMM_COOPMAT_FINISH; stage++)
        TRY(gemm_coopmat_stage(ctx, p, &s, stage));
    return GPGPU_SUCCESS;
}
