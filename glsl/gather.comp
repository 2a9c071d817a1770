// gather.comp: gather and scatter of records (gpgpu_gather, gpgpu_scatter): out[i] =
// in[idx[i]] and out[idx[i]] = in[i] for records of any whole number of 32-bit words.
// variants: TYPE=U32
//
// A record is UNITS units of UNIT words (GATHER_SHAPE_UNIT: 4, 2 or 1, the widest that the
// record and both offsets allow; GATHER_SHAPE_UNITS: units per record), moved a unit per
// invocation and ITEMS units per invocation per block, every load of a block before its
// stores (as copy.comp).
// Stages (STAGE = params[0], numbered in src/algo/ids/gather_ids.h); offsets in units,
// the indices' in u32; N records, which may be a count on the GPU (device_count,
// common.glsl):
//   GATHER    out record i = in record idx[i], i < N
//   SCATTER   out record idx[i] = in record i, i < N (where indices repeat, each unit of a
//             target holds that unit of one of its records, which one unspecified)
// Both first read the largest index (binding 3: the reduce family's MAX over the indices):
// when N > 0 and it is LIMIT or more (the records of the side the indices address), the
// stage writes nothing, and its first invocation writes 1 to the status word (binding 4,
// where bound; else 0).

#define UNIT (GATHER_SHAPE_UNIT == 0u ? 1u : GATHER_SHAPE_UNIT)
#define UNITS (GATHER_SHAPE_UNITS == 0u ? 1u : GATHER_SHAPE_UNITS)

layout(std430, binding = 0) restrict readonly buffer Src1 { uint src1[]; };
layout(std430, binding = 0) restrict readonly buffer Src2 { uvec2 src2[]; };
layout(std430, binding = 0) restrict readonly buffer Src4 { uvec4 src4[]; };
layout(std430, binding = 1) restrict writeonly buffer Dst1 { uint dst1[]; };
layout(std430, binding = 1) restrict writeonly buffer Dst2 { uvec2 dst2[]; };
layout(std430, binding = 1) restrict writeonly buffer Dst4 { uvec4 dst4[]; };
layout(std430, binding = 2) restrict readonly buffer Idx { uint idx[]; };
layout(std430, binding = 3) restrict readonly buffer Largest { uint largest[]; };
layout(std430, binding = 4) restrict writeonly buffer Status { uint status[]; };

uint g_n; // records (main reads it once)
#define N           g_n
#define SRC_OFF     params[GATHER_P_SRC_OFF] /* units */
#define DST_OFF     params[GATHER_P_DST_OFF] /* units */
#define IDX_OFF     params[GATHER_P_IDX_OFF]
#define LARGEST_OFF params[GATHER_P_LARGEST_OFF]
#define LIMIT       params[GATHER_P_LIMIT]
#define STATUS_OFF  params[GATHER_P_STATUS_OFF]
#define HAS_STATUS  params[GATHER_P_HAS_STATUS]

uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

// Moves ITEMS units of the block (unit u of the record's idx-th or i-th record), loads
// first. `gather`: constant in each inlined copy.
void move_block(uint block, const bool gather)
{
    const uint chunk = WG_SIZE * ITEMS;
    uint lid = gl_LocalInvocationID.x, total = N * UNITS;
    uint from[ITEMS], to[ITEMS];
    uvec4 v[ITEMS];
    UNROLL for (uint k = 0u; k < ITEMS; k++) {
        uint j = block * chunk + k * WG_SIZE + lid;
        uint rec = j / UNITS, part = j % UNITS;
        uint other = j < total ? idx[IDX_OFF + rec] : 0u;
        from[k] = SRC_OFF + (gather ? other * UNITS + part : j);
        to[k] = j < total ? DST_OFF + (gather ? j : other * UNITS + part) : 0xffffffffu;
    }
    UNROLL for (uint k = 0u; k < ITEMS; k++) {
        if (to[k] == 0xffffffffu)
            continue;
        if (UNIT == 4u)
            v[k] = src4[from[k]];
        else if (UNIT == 2u)
            v[k] = uvec4(src2[from[k]], 0u, 0u);
        else
            v[k] = uvec4(src1[from[k]], 0u, 0u, 0u);
    }
    UNROLL for (uint k = 0u; k < ITEMS; k++) {
        if (to[k] == 0xffffffffu)
            continue;
        if (UNIT == 4u)
            dst4[to[k]] = v[k];
        else if (UNIT == 2u)
            dst2[to[k]] = v[k].xy;
        else
            dst1[to[k]] = v[k].x;
    }
}

void move(const bool gather)
{
    bool bad = N > 0u && largest[LARGEST_OFF] >= LIMIT;
    if (HAS_STATUS != 0u && invocation_index() == 0u)
        status[STATUS_OFF] = bad ? 1u : 0u;
    if (bad)
        return;
    uint blocks = (N * UNITS + WG_SIZE * ITEMS - 1u) / (WG_SIZE * ITEMS);
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    for (uint b = group_index(); b < blocks; b += groups)
        move_block(b, gather);
}

void main()
{
    g_n = device_count(params[GATHER_P_N]);
    if (STAGE == GATHER_STAGE_GATHER)
        move(true);
    else if (STAGE == GATHER_STAGE_SCATTER)
        move(false);
}
