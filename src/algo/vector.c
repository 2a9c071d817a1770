/* gpgpu_axpby and gpgpu_dot: the vector updates and dot products of
 * iterative solvers (see demos of conjugate gradients), on the vector
 * family's stages and, for the dot product's second pass, the reduce
 * family's TILES. */
#include <string.h>

#include "algo/vector.h"

enum { VECTOR_WG = 256, VECTOR_ITEMS = 4 };
enum { P_N = 1, P_X_OFF, P_Y_OFF, P_PART_OFF, P_ALPHA, P_BETA = P_ALPHA + 2, P_BETA_IS_ZERO = P_BETA + 2 };

static exec_dispatch vector_dispatch(gpgpu_type type, unsigned stage, size_t n, gpgpu_buffer *x,
                                     size_t x_off, gpgpu_buffer *y, size_t y_off)
{
    exec_dispatch d = {.variant = {"vector", type, GPGPU_OP_SUM, VECTOR_WG, VECTOR_ITEMS}};
    d.params[0] = stage;
    d.params[P_N] = (uint32_t)n;
    d.bind[0] = x;
    d.bind[1] = y;
    d.params[P_X_OFF] = algo_index(x, x_off, type);
    d.params[P_Y_OFF] = algo_index(y, y_off, type);
    return d;
}

gpgpu_status vector_stage_axpby(gpgpu_context *ctx, gpgpu_type type, size_t n, double alpha,
                                gpgpu_buffer *x, size_t x_off, double beta, gpgpu_buffer *y,
                                size_t y_off)
{
    exec_dispatch d = vector_dispatch(type, 0, n, x, x_off, y, y_off);
    algo_put_scalar(&d, P_ALPHA, type, alpha);
    algo_put_scalar(&d, P_BETA, type, beta);
    d.params[P_BETA_IS_ZERO] = beta == 0.0;
    d.bind[2] = y; /* unused; bound so the program sees a valid buffer */
    d.groups = algo_groups(n, VECTOR_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status vector_stage_dot(gpgpu_context *ctx, gpgpu_type type, size_t n, gpgpu_buffer *x,
                              size_t x_off, gpgpu_buffer *y, size_t y_off, gpgpu_buffer *part,
                              size_t part_off, uint32_t groups)
{
    exec_dispatch d = vector_dispatch(type, 1, n, x, x_off, y, y_off);
    d.bind[2] = part;
    d.params[P_PART_OFF] = algo_index(part, part_off, type);
    d.groups = groups;
    return algo_stage(ctx, &d);
}

/* The checks both calls share: a float type the device has, x and y in range. */
static gpgpu_status check_vectors(gpgpu_context *ctx, gpgpu_type type, size_t n,
                                  const gpgpu_buffer *x, size_t x_off, const gpgpu_buffer *y,
                                  size_t y_off, const char *what)
{
    TRY(algo_check_type(ctx, type, what)); /* first: an unknown type is an invalid argument */
    CHECK(type == GPGPU_TYPE_F32 || type == GPGPU_TYPE_F64, ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION, "%s: the type must be f32 or f64", what);
    TRY(algo_check_range(ctx, x, x_off, n, type, what));
    return algo_check_range(ctx, y, y_off, n, type, what);
}

gpgpu_status gpgpu_axpby(gpgpu_context *ctx, gpgpu_type type, size_t count, double alpha,
                         gpgpu_buffer *x, size_t x_offset, double beta, gpgpu_buffer *y,
                         size_t y_offset)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    TRY(check_vectors(ctx, type, count, x, x_offset, y, y_offset, "gpgpu_axpby"));
    size_t size = gpgpu_type_size(type);
    CHECK(!algo_overlap(x, x_offset * size, count * size, y, y_offset * size, count * size) ||
              algo_same_range(x, x_offset * size, y, y_offset * size),
          ctx, GPGPU_ERROR_OVERLAP, "gpgpu_axpby: x and y overlap without being the same range");
    if (count == 0)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    return ctx_end(ctx, vector_stage_axpby(ctx, type, count, alpha, x, x_offset, beta, y, y_offset));
}

/* Partial sums per group in scratch slot 1, their sum in slot 2, read back. */
static gpgpu_status dot(gpgpu_context *ctx, gpgpu_type type, size_t n, gpgpu_buffer *x,
                        size_t x_off, gpgpu_buffer *y, size_t y_off, void *result)
{
    size_t size = gpgpu_type_size(type);
    reduce_plan p = reduce_plan_for(n);
    gpgpu_buffer *part, *out;
    TRY(ctx_scratch(ctx, 1, p.groups * size, &part));
    TRY(ctx_scratch(ctx, 2, size, &out));
    TRY(vector_stage_dot(ctx, type, n, x, x_off, y, y_off, part, 0, p.groups));
    TRY(reduce_stage_tiles(ctx, type, GPGPU_OP_SUM, part, 0, p.groups, false, out, 0, 1));
    return ctx->exec->buffer_read(out, 0, result, size);
}

gpgpu_status gpgpu_dot(gpgpu_context *ctx, gpgpu_type type, size_t count, gpgpu_buffer *x,
                       size_t x_offset, gpgpu_buffer *y, size_t y_offset, double *result)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(result, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_dot: result is NULL");
    TRY(check_vectors(ctx, type, count, x, x_offset, y, y_offset, "gpgpu_dot"));
    CHECK(!ctx->exec->recording_for_caller(ctx), ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_dot: work is recorded into the caller's command buffer, so no result can "
          "come back");
    *result = 0.0;
    if (count == 0)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    union {
        float f;
        double d;
    } r;
    gpgpu_status st = dot(ctx, type, count, x, x_offset, y, y_offset, &r);
    if (st == GPGPU_SUCCESS)
        *result = type == GPGPU_TYPE_F64 ? r.d : (double)r.f;
    return ctx_end(ctx, st);
}
