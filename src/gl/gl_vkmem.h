/* GL buffers on memory allocated through Vulkan (gl_vkmem.c says why). */
#ifndef GPGPU_GL_VKMEM_H
#define GPGPU_GL_VKMEM_H

#include <stdbool.h>
#include <stddef.h>

#include "gl/gl_internal.h"

/* Library buffers from this size on (GPGPU_GL_VULKAN_MEMORY=0: none, =all:
 * every one) take their memory from Vulkan where the context can. Below it
 * GL's own buffers are as fast (measured on the H100 up to 256 MiB). */
enum { GL_VKMEM_MIN_BYTES = 256u << 20 };

/* Makes b->name a buffer of `bytes` on imported Vulkan memory; false (and
 * nothing made, no GL error left) where it cannot: the caller then uses
 * glNamedBufferStorage. The context must be current. */
bool gl_vkmem_buffer_create(gl_state *st, gl_buffer *b, size_t bytes);
/* Whether a buffer of `bytes` goes to Vulkan memory (so that its failure there is one of
 * memory: the caller may give kept memory back and try again). */
bool gl_vkmem_wanted(const gl_state *st, size_t bytes);
/* Frees the Vulkan memory of a buffer gl_vkmem_buffer_create made and, `with_gl` (its GL
 * context current), deletes the GL buffer and memory object too. */
void gl_vkmem_buffer_destroy(gl_state *st, gl_buffer *b, bool with_gl);
/* Releases the context's Vulkan device, if one was made. */
void gl_vkmem_close(gl_state *st);

#endif /* GPGPU_GL_VKMEM_H */
