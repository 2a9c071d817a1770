/* gpgpu_axpby, gpgpu_dot (_to_buffer) and gpgpu_axpby_dot: the vector updates and dot
 * products of iterative solvers (see `gpgpu cg`): the update on the vector
 * family's stage, the dot products the reduce family's sums over products
 * (after an update, for gpgpu_axpby_dot). */
#include <string.h>

#include "algo/reduce.h"
#include "algo/vector.h"

gpgpu_status vector_stage_axpby(gpgpu_context *ctx, gpgpu_type type, size_t n, double alpha,
                                gpgpu_buffer *x, size_t x_off, double beta, gpgpu_buffer *y,
                                size_t y_off)
{
    unsigned items = ctx->plans.vector.axpby_items;
    exec_dispatch d = {.variant = {"vector", type, GPGPU_OP_SUM, AXPBY_WG, items}};
    d.params[0] = VECTOR_STAGE_AXPBY;
    d.params[VECTOR_P_N] = (uint32_t)n;
    d.bind[0] = x;
    d.bind[1] = y;
    d.params[VECTOR_P_X_OFF] = algo_index(x, x_off, type);
    d.params[VECTOR_P_Y_OFF] = algo_index(y, y_off, type);
    algo_put_scalar(&d, VECTOR_P_ALPHA, type, alpha);
    algo_put_scalar(&d, VECTOR_P_BETA, type, beta);
    d.params[VECTOR_P_BETA_IS_ZERO] = beta == 0.0;
    d.groups = algo_groups(n, (size_t)AXPBY_WG * items);
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
    TRY(algo_check_scalar(ctx, type, alpha, "alpha", "gpgpu_axpby"));
    TRY(algo_check_scalar(ctx, type, beta, "beta", "gpgpu_axpby"));
    size_t size = gpgpu_type_size(type);
    CHECK(!algo_overlap(x, x_offset * size, count * size, y, y_offset * size, count * size) ||
              algo_same_range(x, x_offset * size, y, y_offset * size),
          ctx, GPGPU_ERROR_OVERLAP, "gpgpu_axpby: x and y overlap without being the same range");
    if (count == 0)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    return ctx_end(ctx, vector_stage_axpby(ctx, type, count, alpha, x, x_offset, beta, y, y_offset));
}

/* The sum over src's elements (products, after an update where src says
 * so), reduced as gpgpu_reduce sums (one dispatch with the fold) into
 * scratch slot 2 and read back as a double; count = 0 gives 0. */
static gpgpu_status dot(gpgpu_context *ctx, gpgpu_type type, size_t count, reduce_source src,
                        const char *what, double *result)
{
    CHECK(!ctx->exec->recording_for_caller(ctx), ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "%s: work is recorded into the caller's command buffer, so no result can come back",
          what);
    *result = 0.0;
    if (count == 0)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->begin(ctx));
    gpgpu_buffer *out;
    union {
        float f;
        double d;
    } r;
    gpgpu_status st = ctx_scratch(ctx, 2, gpgpu_type_size(type), &out);
    if (st == GPGPU_SUCCESS)
        st = reduce_fast(ctx, type, GPGPU_OP_SUM, src, count, out, 0);
    if (st == GPGPU_SUCCESS)
        st = ctx->exec->buffer_read(out, 0, &r, gpgpu_type_size(type));
    if (st == GPGPU_SUCCESS)
        *result = type == GPGPU_TYPE_F64 ? r.d : (double)r.f;
    return ctx_end(ctx, st);
}

gpgpu_status gpgpu_dot(gpgpu_context *ctx, gpgpu_type type, size_t count, gpgpu_buffer *x,
                       size_t x_offset, gpgpu_buffer *y, size_t y_offset, double *result)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(result, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_dot: result is NULL");
    TRY(check_vectors(ctx, type, count, x, x_offset, y, y_offset, "gpgpu_dot"));
    reduce_source src = {.buf = x, .off = x_offset, .times = y, .times_off = y_offset};
    return dot(ctx, type, count, src, "gpgpu_dot", result);
}

gpgpu_status gpgpu_dot_to_buffer(gpgpu_context *ctx, gpgpu_type type, size_t count,
                                 gpgpu_buffer *x, size_t x_offset, gpgpu_buffer *y,
                                 size_t y_offset, gpgpu_buffer *out, size_t out_offset)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    TRY(check_vectors(ctx, type, count, x, x_offset, y, y_offset, "gpgpu_dot_to_buffer"));
    TRY(algo_check_range(ctx, out, out_offset, 1, type, "gpgpu_dot_to_buffer (result)"));
    /* The reduction reads x and y and writes the result through restrict bindings. */
    size_t size = gpgpu_type_size(type);
    CHECK(!algo_overlap(x, x_offset * size, count * size, out, out_offset * size, size) &&
              !algo_overlap(y, y_offset * size, count * size, out, out_offset * size, size),
          ctx, GPGPU_ERROR_OVERLAP, "gpgpu_dot_to_buffer: the result overlaps x or y");
    reduce_source src = {.buf = x, .off = x_offset, .times = y, .times_off = y_offset};
    TRY(ctx->exec->begin(ctx));
    if (count == 0) { /* 0, written by the shader's own empty sum */
        reduce_source none = {.buf = x, .off = x_offset};
        return ctx_end(ctx, reduce_stage_tiles(ctx, type, GPGPU_OP_SUM, none, 0, false, out,
                                               out_offset, 1));
    }
    return ctx_end(ctx, reduce_fast(ctx, type, GPGPU_OP_SUM, src, count, out, out_offset));
}

gpgpu_status gpgpu_axpby_dot(gpgpu_context *ctx, gpgpu_type type, size_t count, double alpha,
                             gpgpu_buffer *x, size_t x_offset, double beta, gpgpu_buffer *y,
                             size_t y_offset, gpgpu_buffer *w, size_t w_offset, double *result)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(result, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_axpby_dot: result is NULL");
    TRY(check_vectors(ctx, type, count, x, x_offset, y, y_offset, "gpgpu_axpby_dot"));
    TRY(algo_check_scalar(ctx, type, alpha, "alpha", "gpgpu_axpby_dot"));
    TRY(algo_check_scalar(ctx, type, beta, "beta", "gpgpu_axpby_dot"));
    TRY(algo_check_range(ctx, w, w_offset, count, type, "gpgpu_axpby_dot"));
    size_t size = gpgpu_type_size(type), bytes = count * size;
    /* y is written while x and w are read through restrict bindings. */
    CHECK(!algo_overlap(x, x_offset * size, bytes, y, y_offset * size, bytes), ctx,
          GPGPU_ERROR_OVERLAP, "gpgpu_axpby_dot: x and y overlap (gpgpu_axpby scales a vector "
          "in place)");
    bool w_is_y = algo_same_range(w, w_offset * size, y, y_offset * size);
    CHECK(w_is_y || !algo_overlap(w, w_offset * size, bytes, y, y_offset * size, bytes), ctx,
          GPGPU_ERROR_OVERLAP, "gpgpu_axpby_dot: w and y overlap without being the same range");
    reduce_source src = {.buf = x, .off = x_offset, .update = y, .update_off = y_offset,
                         .alpha = alpha, .beta = beta};
    if (!w_is_y) {
        src.times = w;
        src.times_off = w_offset;
    }
    return dot(ctx, type, count, src, "gpgpu_axpby_dot", result);
}
