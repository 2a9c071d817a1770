/* Uploads and downloads through a staging buffer in host memory (gl_transfer.c says why). */
#ifndef GPGPU_GL_TRANSFER_H
#define GPGPU_GL_TRANSFER_H

#include "gl/gl_internal.h"

/* The staging buffer's size: larger transfers go in chunks of this. */
enum { GL_STAGING_BYTES = 16u << 20 };

/* bytes from byte `offset` of GL buffer `name` into data, once shader writes have landed. */
gpgpu_status gl_transfer_read(gpgpu_context *ctx, gl_state *st, GLuint name, size_t offset,
                              void *data, size_t bytes);
/* bytes of data to byte `offset` of GL buffer `name`, ordered after earlier work on it. */
gpgpu_status gl_transfer_write(gpgpu_context *ctx, gl_state *st, GLuint name, size_t offset,
                               const void *data, size_t bytes);
/* Waits for the last transfer and deletes the staging buffer. The context must be current. */
void gl_transfer_close(gl_state *st);

#endif /* GPGPU_GL_TRANSFER_H */
