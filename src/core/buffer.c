/* Public buffer calls: argument checks here, storage in the backend. */
#include <stdlib.h>

#include "core/internal.h"
#include "core/kept.h"
#ifdef GPGPU_HAVE_GL
#include "gl/gl_backend.h"
#endif

gpgpu_status buffer_create_internal(gpgpu_context *ctx, size_t bytes, gpgpu_buffer **out)
{
    /* Drivers refuse (GL) or crash on (lavapipe) empty buffers: a caller sizing
     * scratch that turned out empty gets an error, not a fault. */
    CHECK(bytes > 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT, "internal: a buffer of 0 bytes requested");
    /* Counted at the size the backend makes it with (core/kept.h's class), so that the
     * limit bounds what the device holds. */
    size_t made = kept_size_class(bytes);
    CHECK(!ctx->memory_limit ||
              (made <= ctx->memory_limit && ctx->memory_used <= ctx->memory_limit - made),
          ctx, GPGPU_ERROR_OUT_OF_MEMORY,
          "a buffer of %zu bytes (%zu as allocated) does not fit this context's memory limit of "
          "%zu bytes (gpgpu_context_desc.memory_limit or GPGPU_MEMORY_LIMIT), %zu of which its "
          "buffers hold", bytes, made, ctx->memory_limit, ctx->memory_used);
    /* NVIDIA's GL accepted a 1 TiB glNamedBufferStorage without an error on an 80 GB H100;
     * a buffer no device memory can hold is refused here, for every backend alike. */
    CHECK(!ctx->info.device_memory_bytes || bytes <= ctx->info.device_memory_bytes, ctx,
          GPGPU_ERROR_OUT_OF_MEMORY,
          "a buffer of %zu bytes is larger than the device's memory (%zu bytes, %s)", bytes,
          ctx->info.device_memory_bytes, ctx->info.renderer);
    gpgpu_buffer *buf = calloc(1, sizeof *buf);
    CHECK(buf, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    buf->ctx = ctx;
    buf->size = bytes;
    gpgpu_status status = ctx->exec->buffer_create(buf);
    if (status != GPGPU_SUCCESS) {
        free(buf);
        return status;
    }
    buf->counted = made;
    ctx->memory_used += made;
    *out = buf;
    return GPGPU_SUCCESS;
}

void buffer_destroy_internal(gpgpu_buffer *buf)
{
    if (!buf)
        return;
    buf->ctx->memory_used -= buf->counted;
    buf->ctx->exec->buffer_destroy(buf);
    free(buf);
}

gpgpu_status gpgpu_buffer_create(gpgpu_context *ctx, size_t bytes, gpgpu_buffer **out)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(out, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_buffer_create: out is NULL");
    *out = NULL;
    CHECK(bytes > 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_buffer_create: size is 0");
    return buffer_create_internal(ctx, bytes, out);
}

gpgpu_status buffer_wrap(gpgpu_context *ctx, const exec_backend *backend, size_t offset,
                         size_t bytes, gpgpu_buffer **out, const char *what,
                         gpgpu_status (*attach)(gpgpu_buffer *buf, const void *handle,
                                                size_t offset),
                         const void *handle)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(out, ctx, GPGPU_ERROR_NULL_POINTER, "%s: out is NULL", what);
    *out = NULL;
    CHECK(bytes > 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s: size is 0", what);
    CHECK(offset % 4 == 0, ctx, GPGPU_ERROR_MISALIGNED, "%s: offset %zu is not a multiple of 4",
          what, offset);
    CHECK(ctx->exec == backend, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: the context's backend is %s, not %s", what, ctx->exec->name, backend->name);
    /* The overlap checks add offsets inside the caller's object to this one. */
    CHECK(bytes <= SIZE_MAX - offset, ctx, GPGPU_ERROR_OUT_OF_RANGE,
          "%s: %zu bytes from byte %zu run past the end of any buffer", what, bytes, offset);
    gpgpu_buffer *buf = calloc(1, sizeof *buf);
    CHECK(buf, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    *buf = (gpgpu_buffer){.ctx = ctx, .size = bytes};
    gpgpu_status status = attach(buf, handle, offset);
    if (status != GPGPU_SUCCESS) {
        free(buf);
        return status;
    }
    *out = buf;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_buffer_wrap_gl(gpgpu_context *ctx, unsigned name, size_t offset, size_t bytes,
                                  gpgpu_buffer **out)
{
#ifdef GPGPU_HAVE_GL
    return buffer_wrap(ctx, &gl_exec_backend, offset, bytes, out, "gpgpu_buffer_wrap_gl",
                       gl_buffer_wrap, &name);
#else
    /* Without the GL backend no context is a GL one: the checks of every wrap, then the
     * refusal a Vulkan context gets in any build (the table is only compared, never run). */
    static const exec_backend no_gl = {.name = "gl"};
    return buffer_wrap(ctx, &no_gl, offset, bytes, out, "gpgpu_buffer_wrap_gl", NULL, &name);
#endif
}

void gpgpu_buffer_destroy(gpgpu_buffer *buf)
{
    buffer_destroy_internal(buf);
}

size_t gpgpu_buffer_size(const gpgpu_buffer *buf)
{
    return buf ? buf->size : 0;
}

static gpgpu_status check_bytes(const gpgpu_buffer *buf, size_t offset, size_t bytes,
                                const char *what)
{
    CHECK(offset <= buf->size && bytes <= buf->size - offset, buf->ctx, GPGPU_ERROR_OUT_OF_RANGE,
          "%s: bytes [%zu, %zu + %zu) run past the buffer's %zu bytes", what, offset, offset,
          bytes, buf->size);
    return GPGPU_SUCCESS;
}

/* Host transfers must wait for the GPU, which recorded work cannot. */
static gpgpu_status check_host_transfer(gpgpu_context *ctx, const char *what)
{
    CHECK(!ctx->exec->recording_for_caller(ctx), ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "%s: work is recorded into the caller's command buffer; call gpgpu_vk_record_into "
          "with VK_NULL_HANDLE first", what);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_buffer_upload(gpgpu_buffer *buf, size_t offset, const void *data, size_t bytes)
{
    if (!buf)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(data || bytes == 0, buf->ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_buffer_upload: data is NULL");
    TRY(check_bytes(buf, offset, bytes, "gpgpu_buffer_upload"));
    TRY(check_host_transfer(buf->ctx, "gpgpu_buffer_upload"));
    if (bytes == 0)
        return GPGPU_SUCCESS;
    gpgpu_context *ctx = buf->ctx;
    TRY(ctx->exec->begin(ctx));
    return ctx_end(ctx, ctx->exec->buffer_write(buf, offset, data, bytes));
}

gpgpu_status gpgpu_buffer_download(gpgpu_buffer *buf, size_t offset, void *data, size_t bytes)
{
    if (!buf)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(data || bytes == 0, buf->ctx, GPGPU_ERROR_NULL_POINTER,
          "gpgpu_buffer_download: data is NULL");
    TRY(check_bytes(buf, offset, bytes, "gpgpu_buffer_download"));
    TRY(check_host_transfer(buf->ctx, "gpgpu_buffer_download"));
    if (bytes == 0)
        return GPGPU_SUCCESS;
    gpgpu_context *ctx = buf->ctx;
    TRY(ctx->exec->begin(ctx));
    return ctx_end(ctx, ctx->exec->buffer_read(buf, offset, data, bytes));
}
