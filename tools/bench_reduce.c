/* gpgpu-bench's reduce cases (--only reduce): sums, minima and ranges of f32, u32 and f64 by
 * the fast reduction and the classic ones, each result left in a GPU buffer. */
#include "gpgpu_bench.h"

#define REDUCE(name_, type_, op_, algo_)                                                        \
    { .name = name_, .kind = KIND_REDUCE, .type = GPGPU_TYPE_##type_, .op = GPGPU_OP_##op_,    \
      .algo = GPGPU_ALGO_##algo_ }

const bench_case bench_reduce_cases[] = {
    REDUCE("reduce_sum_f32", F32, SUM, FAST),
    REDUCE("reduce_sum_f32", F32, SUM, CLASSIC_HALVING),
    REDUCE("reduce_sum_f32", F32, SUM, CLASSIC_STRIDE),
    REDUCE("reduce_sum_u32", U32, SUM, FAST),
    REDUCE("reduce_min_f32", F32, MIN, FAST),
    REDUCE("reduce_minmax_f32", F32, MINMAX, FAST),
    REDUCE("reduce_minmax_f32", F32, MINMAX, CLASSIC_MINMAX),
    REDUCE("reduce_sum_f64", F64, SUM, FAST),
};
const size_t bench_reduce_case_count = COUNT_OF(bench_reduce_cases);

gpgpu_status bench_reduce_call(bench *b, const bench_case *c, gpgpu_buffer *in,
                               gpgpu_buffer *out, size_t n)
{
    /* The result stays in a GPU buffer, as CUB's does: the GPU time is the
     * reduction's alone (gpgpu_reduce would add a copy to the host). */
    gpgpu_reduce_desc desc = { .type = c->type, .op = c->op, .algo = c->algo };
    return gpgpu_reduce_to_buffer(b->ctx, &desc, in, 0, n, out, 0);
}
