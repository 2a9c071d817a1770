/* gpgpu-bench's scan cases (--only scan): exclusive u32 and inclusive f32 and f64 scans by
 * the fast scan, the single-pass and reduce-then-scan ones, and the classic scan, from the
 * input buffer into the output (in place, repeated runs would sum the sums). */
#include "gpgpu_bench.h"

#define SCAN(name_, type_, exclusive_, algo_)                                                  \
    { .name = name_, .kind = KIND_SCAN, .type = GPGPU_TYPE_##type_, .exclusive = exclusive_,   \
      .algo = GPGPU_ALGO_##algo_ }

const bench_case bench_scan_cases[] = {
    SCAN("scan_exclusive_u32", U32, true, FAST),
    SCAN("scan_exclusive_u32", U32, true, SCAN_SINGLE_PASS),
    SCAN("scan_exclusive_u32", U32, true, SCAN_REDUCE_THEN_SCAN),
    SCAN("scan_exclusive_u32", U32, true, CLASSIC_SCAN),
    SCAN("scan_inclusive_f32", F32, false, FAST),
    SCAN("scan_inclusive_f32", F32, false, SCAN_SINGLE_PASS),
    SCAN("scan_inclusive_f32", F32, false, SCAN_REDUCE_THEN_SCAN),
    SCAN("scan_inclusive_f64", F64, false, FAST),
    SCAN("scan_inclusive_f64", F64, false, SCAN_SINGLE_PASS),
    SCAN("scan_inclusive_f64", F64, false, SCAN_REDUCE_THEN_SCAN),
};
const size_t bench_scan_case_count = COUNT_OF(bench_scan_cases);

gpgpu_status bench_scan_call(bench *b, const bench_case *c, gpgpu_buffer *in, gpgpu_buffer *out,
                             size_t n)
{
    gpgpu_scan_desc desc = { .type = c->type, .exclusive = c->exclusive, .algo = c->algo };
    return gpgpu_scan(b->ctx, &desc, in, 0, out, 0, n);
}
