// rle.comp: what a run-length encoding writes once its run heads are compacted. The heads are
// a selection (glsl/select.comp, keep mode HEADS: each key that differs from its predecessor
// in the sort's total order), which writes each run's first key and, as its index, where the
// run starts; this stage turns the starts into lengths and leaves the run count where the
// calls and reduce-by-key's segmented sum read it (src/algo/rle.c).
// variants: TYPE=U32
//
// Stages (STAGE = params[0], numbered in src/algo/ids/rle_ids.h); the run starts and the run
// count at binding 4 (STARTS_OFF, RUNS_AT), the lengths at binding 2 (LENGTHS_OFF, where
// OUTPUTS has RLE_OUT_LENGTHS), the selection's total at binding 3 (TOTAL_AT), the run
// count's copy at binding 6 (COUNT_OUT_OFF, where OUTPUTS has RLE_OUT_COUNT); N the key
// count, which may be a count on the GPU (device_count, common.glsl).
//   FINISH  with R = the selection's total: lengths[r] = (r + 1 < R ? starts[r + 1] : N) -
//           starts[r] for r < R; invocation 0 writes starts[R] = N, starts[RUNS_AT] = R and
//           count_out = R (no read of a word another invocation writes)

layout(std430, binding = 2) restrict writeonly buffer Lengths { uint lengths[]; };
layout(std430, binding = 3) restrict readonly buffer Total { uint total[]; };
layout(std430, binding = 4) restrict buffer Starts { uint starts[]; };
layout(std430, binding = 6) restrict writeonly buffer CountOut { uint count_out[]; };

#define LENGTHS_OFF   params[RLE_P_LENGTHS_OFF]
#define STARTS_OFF    params[RLE_P_STARTS_OFF]
#define OUTPUTS       params[RLE_P_OUTPUTS] /* RLE_OUT_* bits */
#define COUNT_OUT_OFF params[RLE_P_COUNT_OUT_OFF]
#define RUNS_AT       params[RLE_P_RUNS_AT]
#define TOTAL_AT      params[RLE_P_TOTAL_AT]

void stage_finish()
{
    uint i = invocation_index(), n = device_count(params[RLE_P_N]), runs = total[TOTAL_AT];
    // The runs by the dispatch's stride: with a group per 256 keys, the groups that found
    // no run cost the pass more than its loads where runs are long.
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * WG_SIZE;
    if ((OUTPUTS & RLE_OUT_LENGTHS) != 0u) {
        for (uint r = i; r < runs; r += stride) {
            uint end = r + 1u < runs ? starts[STARTS_OFF + r + 1u] : n;
            lengths[LENGTHS_OFF + r] = end - starts[STARTS_OFF + r];
        }
    }
    if (i == 0u) {
        starts[STARTS_OFF + runs] = n;
        starts[RUNS_AT] = runs;
        if ((OUTPUTS & RLE_OUT_COUNT) != 0u)
            count_out[COUNT_OUT_OFF] = runs;
    }
}

void main()
{
    switch (STAGE) {
    case RLE_STAGE_FINISH:
        stage_finish();
        return;
    default:
        return;
    }
}
