/* The OpenGL backend, as the rest of the library sees it. */
#ifndef GPGPU_GL_BACKEND_H
#define GPGPU_GL_BACKEND_H

#include "core/internal.h"

extern const exec_backend gl_exec_backend;

/* Makes or adopts a GL context, fills ctx->impl, ctx->exec and ctx->info. */
gpgpu_status gl_backend_create(gpgpu_context *ctx, const gpgpu_context_desc *desc);

/* The EGL devices gpgpu_context_desc.device counts (gpgpu_device_count). */
uint32_t gl_device_count(void);

/* Points buf (ctx and size set) at bytes [offset, offset + size) of the GL
 * buffer whose name (a GLuint) `name` points to, and records that buffer as
 * its storage. */
gpgpu_status gl_buffer_wrap(gpgpu_buffer *buf, const void *name, size_t offset);

#endif /* GPGPU_GL_BACKEND_H */
