/* Uploads and downloads through a staging buffer in host memory.
 *
 * Why: NVIDIA's GL driver (580, H100) made glGetNamedBufferSubData slow out
 * of the library's device buffers: 32-57 ms for 128 bytes and about 50 ms
 * for 4 MB read from buffers of 50-75 MB, and glNamedBufferSubData moved 42
 * MB in 33 ms (docs/DECISIONS.md, Backends), which made a SpGEMM call,
 * with its three readbacks, 12x slower on GL than on Vulkan. So the library
 * moves the bytes with glCopyNamedBufferSubData between the device buffer
 * and a buffer of its own in client memory (GL_CLIENT_STORAGE_BIT), mapped
 * once, persistently and coherently: only the bytes asked for cross the bus,
 * by the copy engine, as the Vulkan backend's staging buffer does.
 *
 * A read copies a chunk, waits on a fence and copies it out of the mapping.
 * A write copies a chunk into the mapping and issues the copy to the device
 * buffer; the fence is waited for only before the staging memory is written
 * again, so uploads stay queued behind earlier work like glNamedBufferSubData.
 * Where the staging buffer cannot be made, the plain calls are used. */
#include "gl/gl_transfer.h"

#include <stdint.h>
#include <string.h>

/* Waits for the last staging copy (if any) to finish. */
static gpgpu_status wait_pending(gpgpu_context *ctx, gl_state *st)
{
    if (!st->staging_fence)
        return GPGPU_SUCCESS;
    const GladGLContext *gl = &st->gl;
    GLenum r = gl->ClientWaitSync(st->staging_fence, GL_SYNC_FLUSH_COMMANDS_BIT, UINT64_MAX);
    gl->DeleteSync(st->staging_fence);
    st->staging_fence = NULL;
    CHECK(r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED, ctx, GPGPU_ERROR_BACKEND,
          "waiting for a transfer through the staging buffer failed (glClientWaitSync: 0x%x)",
          (unsigned)r);
    return GPGPU_SUCCESS;
}

/* The staging buffer, made on first use; false where it cannot be. */
static bool staging(gl_state *st)
{
    if (st->staging_map)
        return true;
    if (st->staging_failed)
        return false;
    const GladGLContext *gl = &st->gl;
    const GLbitfield map = GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT |
                           GL_MAP_COHERENT_BIT;
    gl->CreateBuffers(1, &st->staging);
    gl->NamedBufferStorage(st->staging, GL_STAGING_BYTES, NULL, map | GL_CLIENT_STORAGE_BIT);
    if (gl->GetError() == GL_NO_ERROR)
        st->staging_map = gl->MapNamedBufferRange(st->staging, 0, GL_STAGING_BYTES, map);
    if (!st->staging_map) {
        while (gl->GetError() != GL_NO_ERROR)
            ;
        gl->DeleteBuffers(1, &st->staging);
        st->staging = 0;
        st->staging_failed = true;
        st->debug->message[0] = '\0'; /* not the call's failure: it falls back */
        return false;
    }
    return true;
}

static gpgpu_status read_staged(gpgpu_context *ctx, gl_state *st, GLuint name, size_t offset,
                                void *data, size_t bytes)
{
    const GladGLContext *gl = &st->gl;
    if (!staging(st)) {
        gl->GetNamedBufferSubData(name, (GLintptr)offset, (GLsizeiptr)bytes, data);
        return gl_check_error(ctx, "downloading from a buffer");
    }
    for (size_t done = 0; done < bytes;) {
        size_t n = bytes - done < GL_STAGING_BYTES ? bytes - done : GL_STAGING_BYTES;
        TRY(wait_pending(ctx, st)); /* an upload may still read the staging memory */
        gl->CopyNamedBufferSubData(name, st->staging, (GLintptr)(offset + done), 0,
                                   (GLsizeiptr)n);
        st->staging_fence = gl->FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        TRY(wait_pending(ctx, st));
        memcpy((char *)data + done, st->staging_map, n);
        done += n;
    }
    return gl_check_error(ctx, "downloading from a buffer");
}

static gpgpu_status write_staged(gpgpu_context *ctx, gl_state *st, GLuint name, size_t offset,
                                 const void *data, size_t bytes)
{
    const GladGLContext *gl = &st->gl;
    if (!staging(st)) {
        gl->NamedBufferSubData(name, (GLintptr)offset, (GLsizeiptr)bytes, data);
        return gl_check_error(ctx, "uploading to a buffer");
    }
    /* Earlier shader reads and writes of the range come before the copy's writes. */
    gl->MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    for (size_t done = 0; done < bytes;) {
        size_t n = bytes - done < GL_STAGING_BYTES ? bytes - done : GL_STAGING_BYTES;
        TRY(wait_pending(ctx, st));
        memcpy(st->staging_map, (const char *)data + done, n);
        gl->CopyNamedBufferSubData(st->staging, name, 0, (GLintptr)(offset + done),
                                   (GLsizeiptr)n);
        st->staging_fence = gl->FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        done += n;
    }
    /* No barrier after: a copy command's writes are seen by the commands after it (memory
     * barriers order only shaders' incoherent writes). */
    return gl_check_error(ctx, "uploading to a buffer");
}

gpgpu_status gl_transfer_read(gpgpu_context *ctx, gl_state *st, GLuint name, size_t offset,
                              void *data, size_t bytes)
{
    const GladGLContext *gl = &st->gl;
    /* Shader writes must reach the buffer before a copy or the client reads it. */
    gl->MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    /* Under GPGPU_PROFILE the transfer's copy and wait count for no dispatch. */
    bool profiling = gl_profile_collect(st);
    gpgpu_status status = read_staged(ctx, st, name, offset, data, bytes);
    if (profiling)
        gl_profile_begin(st);
    return status;
}

gpgpu_status gl_transfer_write(gpgpu_context *ctx, gl_state *st, GLuint name, size_t offset,
                               const void *data, size_t bytes)
{
    bool profiling = gl_profile_collect(st); /* as in gl_transfer_read */
    gpgpu_status status = write_staged(ctx, st, name, offset, data, bytes);
    if (profiling)
        gl_profile_begin(st);
    return status;
}

void gl_transfer_close(gl_state *st)
{
    const GladGLContext *gl = &st->gl;
    if (st->staging_fence) {
        gl->ClientWaitSync(st->staging_fence, GL_SYNC_FLUSH_COMMANDS_BIT, UINT64_MAX);
        gl->DeleteSync(st->staging_fence);
        st->staging_fence = NULL;
    }
    if (st->staging) {
        gl->UnmapNamedBuffer(st->staging);
        gl->DeleteBuffers(1, &st->staging);
    }
    st->staging = 0;
    st->staging_map = NULL;
}
