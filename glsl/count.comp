// count.comp: counts that stay on the GPU (src/algo/count.h).
// variants: TYPE=U32
//
// Stages (STAGE = params[0], numbered in src/algo/ids/count_ids.h), one invocation each:
//   LOAD   dst[DST_OFF] = min(src[SRC_OFF], BOUND): a call's count, staged where its
//          stages read it (device_count in common.glsl, binding 7 of their programs).
//   PUT    dst[DST_OFF] = VALUE.

layout(std430, binding = 0) restrict readonly buffer Src { uint src[]; };
layout(std430, binding = 1) restrict writeonly buffer Dst { uint dst[]; };

#define BOUND   params[COUNT_P_BOUND]
#define SRC_OFF params[COUNT_P_SRC_OFF]
#define DST_OFF params[COUNT_P_DST_OFF]
#define VALUE   params[COUNT_P_VALUE]

void main()
{
    if (invocation_index() != 0u)
        return;
    if (STAGE == COUNT_STAGE_LOAD)
        dst[DST_OFF] = min(src[SRC_OFF], BOUND);
    else
        dst[DST_OFF] = VALUE;
}
