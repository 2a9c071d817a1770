/* The dense product on cooperative matrices (glsl/gemm_coopmat.comp): op(A)
 * and op(B) rounded to f16 into padded scratch matrices, their product summed
 * in f32 by the matrix units, then alpha and beta applied into C. Each stage
 * is one dispatch. */
#include "algo/gemm.h"

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

gpgpu_status gemm_coopmat_stage(gpgpu_context *ctx, const gemm_problem *p,
                                const gemm_coopmat_scratch *s, unsigned stage)
{
    gemm_coopmat_sizes z = gemm_coopmat_padded(p->m, p->n, p->k);
    exec_dispatch d = gemm_dispatch(p, "gemm_coopmat", stage,
                                    stage == GEMM_COOPMAT_PRODUCT ? COOPMAT_WG : CONVERT_WG, 1);
    d.bind[3] = s->a16;
    d.bind[4] = s->b16;
    d.bind[5] = s->c32;
    switch (stage) {
    case GEMM_COOPMAT_A_TO_F16: d.groups = algo_groups(z.m * z.k / 8, CONVERT_WG); break;
    case GEMM_COOPMAT_B_TO_F16: d.groups = algo_groups(z.k * z.n / 8, CONVERT_WG); break;
    case GEMM_COOPMAT_PRODUCT:
        d.groups = (uint32_t)((z.m / COOPMAT_BM) * (z.n / COOPMAT_BN));
        break;
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
