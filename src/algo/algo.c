#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algo/algo.h"

gpgpu_status algo_check_type(gpgpu_context *ctx, gpgpu_type type, const char *what)
{
    CHECK(gpgpu_type_size(type) != 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s: unknown type %d",
          what, (int)type);
    CHECK(type != GPGPU_TYPE_F64 || ctx->info.has_f64, ctx, GPGPU_ERROR_UNSUPPORTED_FEATURE,
          "%s: f64 needs shader doubles, which %s does not have", what, ctx->info.renderer);
    return GPGPU_SUCCESS;
}

gpgpu_status algo_check_range(gpgpu_context *ctx, const gpgpu_buffer *buf, size_t offset,
                              size_t count, gpgpu_type type, const char *what)
{
    CHECK(buf, ctx, GPGPU_ERROR_NULL_POINTER, "%s: buffer is NULL", what);
    CHECK(buf->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: the buffer belongs to another context", what);
    size_t size = gpgpu_type_size(type);
    size_t elements = buf->size / size;
    CHECK(offset <= elements && count <= elements - offset, ctx, GPGPU_ERROR_OUT_OF_RANGE,
          "%s: elements [%zu, %zu + %zu) of %s run past the buffer's %zu elements", what, offset,
          offset, count, gpgpu_type_name(type), elements);
    size_t shift = ctx->exec->binding_shift(buf);
    CHECK(shift % size == 0, ctx, GPGPU_ERROR_MISALIGNED,
          "%s: the buffer's offset is not a multiple of %zu bytes (the size of %s)", what, size,
          gpgpu_type_name(type));
    /* Stages bind the whole buffer: it must fit in one storage binding. */
    CHECK(buf->size + shift <= ctx->info.max_storage_range_bytes, ctx, GPGPU_ERROR_TOO_LARGE,
          "%s: a buffer of %zu bytes is larger than one storage binding of %s can hold (%zu "
          "bytes); split the data into several buffers",
          what, buf->size, ctx->info.renderer, ctx->info.max_storage_range_bytes);
    CHECK(count <= ALGO_MAX_COUNT && shift / size + offset + count <= 0xffffffffu, ctx,
          GPGPU_ERROR_TOO_LARGE, "%s: %zu elements at offset %zu: the shaders index at most 2^31 - 1 elements below 2^32",
          what, count, offset);
    return GPGPU_SUCCESS;
}

gpgpu_status algo_check_scalar(gpgpu_context *ctx, gpgpu_type type, double v, const char *name,
                               const char *what)
{
    CHECK(isfinite(v), ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s: %s is %g; alpha and beta must be "
          "finite", what, name, v);
    CHECK(type != GPGPU_TYPE_F32 || fabs(v) <= FLT_MAX, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: %s = %g does not fit f32 (|%s| <= %g): it would round to inf", what, name, v,
          name, (double)FLT_MAX);
    return GPGPU_SUCCESS;
}

const char *algo_name(gpgpu_algo algo)
{
    static const char *const names[] = {
        [GPGPU_ALGO_DEFAULT] = "DEFAULT",
        [GPGPU_ALGO_FAST] = "FAST",
        [GPGPU_ALGO_CLASSIC_HALVING] = "CLASSIC_HALVING",
        [GPGPU_ALGO_CLASSIC_STRIDE] = "CLASSIC_STRIDE",
        [GPGPU_ALGO_CLASSIC_MINMAX] = "CLASSIC_MINMAX",
        [GPGPU_ALGO_CLASSIC_SCAN] = "CLASSIC_SCAN",
        [GPGPU_ALGO_CLASSIC_NETSORT] = "CLASSIC_NETSORT",
        [GPGPU_ALGO_BITONIC] = "BITONIC",
        [GPGPU_ALGO_RADIX] = "RADIX",
        [GPGPU_ALGO_CLASSIC_SPMV] = "CLASSIC_SPMV",
        [GPGPU_ALGO_SPMV_SCALAR] = "SPMV_SCALAR",
        [GPGPU_ALGO_SPMV_VECTOR] = "SPMV_VECTOR",
        [GPGPU_ALGO_SPMV_BALANCED] = "SPMV_BALANCED",
        [GPGPU_ALGO_CLASSIC_SPGEMM] = "CLASSIC_SPGEMM",
        [GPGPU_ALGO_SPGEMM_ROWS] = "SPGEMM_ROWS",
        [GPGPU_ALGO_SPGEMM_ESC] = "SPGEMM_ESC",
        [GPGPU_ALGO_GEMM_METHOD1] = "GEMM_METHOD1",
        [GPGPU_ALGO_GEMM_METHOD2] = "GEMM_METHOD2",
        [GPGPU_ALGO_GEMM_METHOD6] = "GEMM_METHOD6",
        [GPGPU_ALGO_GEMM_TILED] = "GEMM_TILED",
        [GPGPU_ALGO_GEMM_COOPMAT_F16] = "GEMM_COOPMAT_F16",
        [GPGPU_ALGO_SCAN_SINGLE_PASS] = "SCAN_SINGLE_PASS",
        [GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN] = "SCAN_REDUCE_THEN_SCAN",
    };
    return (unsigned)algo < sizeof names / sizeof names[0] ? names[algo] : NULL;
}

gpgpu_status algo_check_algo(gpgpu_context *ctx, gpgpu_algo algo, const gpgpu_algo *runs,
                             size_t count, const char *what)
{
    if (algo == GPGPU_ALGO_DEFAULT || algo == GPGPU_ALGO_FAST)
        return GPGPU_SUCCESS;
    for (size_t i = 0; i < count; i++)
        if (runs[i] == algo)
            return GPGPU_SUCCESS;
    char list[256] = "DEFAULT, FAST";
    for (size_t i = 0, used = strlen(list); i < count && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, ", %s", algo_name(runs[i]));
    const char *name = algo_name(algo);
    CHECK(name, ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s: unknown algorithm %d (it runs %s)", what,
          (int)algo, list);
    return ctx_fail(ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
                    "%s: %s is another primitive's algorithm (it runs %s)", what, name, list);
}

uint32_t algo_index(const gpgpu_buffer *buf, size_t offset, gpgpu_type type)
{
    return (uint32_t)(buf->ctx->exec->binding_shift(buf) / gpgpu_type_size(type) + offset);
}

void algo_bind_io(exec_dispatch *d, gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                  size_t dst_off, size_t n)
{
    gpgpu_type type = d->variant.type;
    d->bind[0] = src;
    d->bind[1] = dst;
    d->params[1] = (uint32_t)n;
    d->params[2] = algo_index(src, src_off, type);
    d->params[3] = dst ? algo_index(dst, dst_off, type) : 0;
}

void algo_put_scalar(exec_dispatch *d, unsigned at, gpgpu_type type, double v)
{
    if (type == GPGPU_TYPE_F32) {
        float f = (float)v;
        memcpy(&d->params[at], &f, sizeof f);
    } else {
        memcpy(&d->params[at], &v, sizeof v); /* little-endian: the low word first */
    }
}

/* The identity of min is the largest value, of max the smallest. */
static void extreme(gpgpu_type type, bool largest, void *out)
{
    switch (type) {
    case GPGPU_TYPE_U32: *(uint32_t *)out = largest ? UINT32_MAX : 0; break;
    case GPGPU_TYPE_I32: *(int32_t *)out = largest ? INT32_MAX : INT32_MIN; break;
    case GPGPU_TYPE_F32: *(float *)out = largest ? INFINITY : -INFINITY; break;
    case GPGPU_TYPE_F64: *(double *)out = largest ? (double)INFINITY : -(double)INFINITY; break;
    }
}

void algo_identity(gpgpu_type type, gpgpu_op op, void *out)
{
    size_t size = gpgpu_type_size(type);
    switch (op) {
    case GPGPU_OP_SUM: memset(out, 0, size); break; /* all-zero bits are 0 and 0.0 */
    case GPGPU_OP_MIN: extreme(type, true, out); break;
    case GPGPU_OP_MAX: extreme(type, false, out); break;
    case GPGPU_OP_MINMAX:
        extreme(type, true, out);
        extreme(type, false, (char *)out + size);
        break;
    }
}
