// vector.comp: the vector update of iterative solvers (conjugate gradients
// and the like) on f32/f64 vectors. Their dot products are the reduce
// family's sums over products (reduce.comp, TIMES).
// variants: TYPE=F32,F64
//
// Stages (STAGE = params[0], numbered in src/algo/ids/vector_ids.h); x is binding 0,
// y binding 1; offsets and counts in elements of T.
//   AXPBY  y[i] = alpha * x[i] + beta * y[i]; with beta = 0, y is only written (a NaN or
//          garbage in y does not leak into the result). Group g takes the block of
//          WG_SIZE*ITEMS elements from g*WG_SIZE*ITEMS, invocation l elements l,
//          l + WG_SIZE, ...: all its loads issued before the first store.

layout(std430, binding = 0) readonly buffer X { T x[]; };
layout(std430, binding = 1) buffer Y { T y[]; };

#define N        params[VECTOR_P_N]
#define X_OFF    params[VECTOR_P_X_OFF]
#define Y_OFF    params[VECTOR_P_Y_OFF]
// alpha and beta: the scalar's bits in the element type (param_t in common.glsl).
#define BETA_IS_ZERO (params[VECTOR_P_BETA_IS_ZERO] != 0u)

void stage_axpby()
{
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint base = group * WG_SIZE * ITEMS + gl_LocalInvocationID.x;
    T alpha = param_t(VECTOR_P_ALPHA), beta = param_t(VECTOR_P_BETA);
    T ax[ITEMS], yv[ITEMS];
    UNROLL for (uint k = 0u; k < ITEMS; k++) {
        uint i = base + k * WG_SIZE;
        ax[k] = i < N ? alpha * x[X_OFF + i] : T_ZERO;
        yv[k] = i < N && !BETA_IS_ZERO ? y[Y_OFF + i] : T_ZERO;
    }
    UNROLL for (uint k = 0u; k < ITEMS; k++) {
        uint i = base + k * WG_SIZE;
        if (i < N)
            y[Y_OFF + i] = BETA_IS_ZERO ? ax[k] : ax[k] + beta * yv[k];
    }
}

void main()
{
    switch (STAGE) {
    case VECTOR_STAGE_AXPBY:
        stage_axpby();
        return;
    default:
        return;
    }
}
