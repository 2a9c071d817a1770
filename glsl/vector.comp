// vector.comp: the vector operations of iterative solvers (conjugate
// gradients and the like) on f32/f64 vectors.
// variants: TYPE=F32,F64
//
// Stages (STAGE = params[0]); x is binding 0, y binding 1, the partial sums
// binding 2; offsets and counts in elements of T.
//   0 AXPBY  y[i] = alpha * x[i] + beta * y[i]; with beta = 0, y is only
//            written (a NaN or garbage in y does not leak into the result).
//   1 DOT    group g sums x[i] * y[i] over blocks g, g+G, ... of
//            WG_SIZE*ITEMS elements (the reduce family's TILES layout) into
//            part[g]; the reduce family then sums the G partial sums.

layout(std430, binding = 0) readonly buffer X { T x[]; };
layout(std430, binding = 1) buffer Y { T y[]; };
layout(std430, binding = 2) writeonly buffer Part { T part[]; };

#define N        params[1]
#define X_OFF    params[2]
#define Y_OFF    params[3]
#define PART_OFF params[4]
// alpha at params[5..6], beta at params[7..8]: the scalar's bits in the
// element type (param_t in common.glsl).
#define BETA_IS_ZERO (params[9] != 0u)

void stage_axpby()
{
    uint i = invocation_index();
    if (i >= N)
        return;
    T ax = param_t(5u) * x[X_OFF + i];
    y[Y_OFF + i] = BETA_IS_ZERO ? ax : ax + param_t(7u) * y[Y_OFF + i];
}

void stage_dot()
{
    const uint chunk = WG_SIZE * ITEMS;
    uint groups = gl_NumWorkGroups.x, g = gl_WorkGroupID.x, lid = gl_LocalInvocationID.x;
    uint full = N / chunk;
    T acc = T_ZERO;
    for (uint b = g; b < full; b += groups) {
        T p[ITEMS];
        UNROLL for (uint k = 0u; k < ITEMS; k++) {
            uint i = b * chunk + k * WG_SIZE + lid;
            p[k] = x[X_OFF + i] * y[Y_OFF + i];
        }
        UNROLL for (uint k = 0u; k < ITEMS; k++)
            acc += p[k];
    }
    if (full % groups == g) { // the last, partial block
        for (uint k = 0u; k < ITEMS; k++) {
            uint i = full * chunk + k * WG_SIZE + lid;
            if (i < N)
                acc += x[X_OFF + i] * y[Y_OFF + i];
        }
    }
    acc = wg_reduce(acc);
    if (lid == 0u)
        part[PART_OFF + g] = acc;
}

void main()
{
    switch (STAGE) {
    case 0u:
        stage_axpby();
        return;
    case 1u:
        stage_dot();
        return;
    default:
        return;
    }
}
