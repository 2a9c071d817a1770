// copy.comp: a buffer-to-buffer copy by compute, in 32-bit words.
// variants: TYPE=U32
//
// Drivers' copy commands (glCopyNamedBufferSubData, vkCmdCopyBuffer) may run
// on DMA engines that reach a fraction of the memory bandwidth (measured on
// an H100: 177 and 850 GB/s against 3 TB/s by shaders), so the library copies
// with this instead; it is also the benchmarks' bandwidth ceiling.
//   COPY   group g copies blocks g, g+G, ... of WG_SIZE*ITEMS words. The
//          library makes a group per block (copy.c), so the blocks start
//          in address order; G and g run over x and y (a dispatch wider
//          than the x limit is spread over y).

layout(std430, binding = 0) restrict readonly buffer Src { uint src[]; };
layout(std430, binding = 1) restrict writeonly buffer Dst { uint dst[]; };

#define N       params[COPY_P_N]
#define SRC_OFF params[COPY_P_SRC_OFF]
#define DST_OFF params[COPY_P_DST_OFF]

void main()
{
    const uint chunk = WG_SIZE * ITEMS;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y, lid = gl_LocalInvocationID.x;
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint full = N / chunk;
    for (uint b = group; b < full; b += groups) {
        // All loads before any store: ITEMS requests in flight per invocation.
        uint x[ITEMS];
        for (uint k = 0u; k < ITEMS; k++)
            x[k] = src[SRC_OFF + b * chunk + k * WG_SIZE + lid];
        for (uint k = 0u; k < ITEMS; k++)
            dst[DST_OFF + b * chunk + k * WG_SIZE + lid] = x[k];
    }
    if (full % groups == group) {
        for (uint k = 0u; k < ITEMS; k++) {
            uint i = full * chunk + k * WG_SIZE + lid;
            if (i < N)
                dst[DST_OFF + i] = src[SRC_OFF + i];
        }
    }
}
