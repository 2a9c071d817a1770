// count.comp: counts that stay on the GPU (src/algo/count.h).
// variants: TYPE=U32
//
// Stages (STAGE = params[0]), one invocation each:
//   0 LOAD   dst[DST_OFF] = min(src[SRC_OFF], BOUND): a call's count, staged where its
//            stages read it (device_count in common.glsl, binding 7 of their programs).
//   1 PUT    dst[DST_OFF] = VALUE.

layout(std430, binding = 0) restrict readonly buffer Src { uint src[]; };
layout(std430, binding = 1) restrict writeonly buffer Dst { uint dst[]; };

#define BOUND   params[1]
#define SRC_OFF params[2]
#define DST_OFF params[3]
#define VALUE   params[4]

void main()
{
    if (invocation_index() != 0u)
        return;
    if (STAGE == 0u)
        dst[DST_OFF] = min(src[SRC_OFF], BOUND);
    else
        dst[DST_OFF] = VALUE;
}
