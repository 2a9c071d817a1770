/* State shared by the GL context code (gl_context.c) and executor (gl_exec.c). */
#ifndef GPGPU_GL_INTERNAL_H
#define GPGPU_GL_INTERNAL_H

#include <EGL/egl.h>

#include "core/kept.h"
#include "core/variant_cache.h"
#include "glad_gl.h"
#include "gl/gl_backend.h"

typedef struct gl_buffer {
    GLuint name;
    size_t offset; /* byte offset of the range in the GL buffer */
    bool owned;    /* created by the library, deleted with it */
    size_t bytes;  /* the size an owned one was made with (core/kept.h's class) */
    /* Storage imported from Vulkan (gl_vkmem.c): the GL memory object and
     * the Vulkan allocation behind it; 0 and NULL for GL's own storage. */
    GLuint memory_object;
    void *vk_allocation;
} gl_buffer;

typedef struct gl_state {
    GladGLContext gl; /* one function table per context: no global GL symbols */
    gpgpu_gl_platform platform;
    EGLDisplay display;
    EGLContext egl_context;
    void *glfw_window;

    variant_cache programs; /* handle: program name, extra: location of params */

    /* gpgpu_timer_begin .. _end: a GL_TIME_ELAPSED query around each outermost call (from
     * after its opening barrier to before its closing one, as Vulkan's timestamps), summed
     * at the end; call_depth tells the outermost call. */
    bool timing;
    GLuint *timed_queries;
    size_t timed_count, timed_cap;
    unsigned call_depth;
    /* A dispatch's writes still need a storage barrier before anything reads them: it is
     * issued when something follows (gl_dispatch, a copy) or by the call's closing barrier,
     * so the last dispatch of a call is not followed by two. */
    bool storage_barrier_due;
    /* Large buffers' memory from a Vulkan device on the same GPU (gl_vkmem.c),
     * made on first use; NULL where there is none. */
    struct gl_vkmem *vkmem;
    bool vkmem_tried;
    /* Uploads and downloads go through this buffer in host memory (gl_transfer.c), mapped
     * at staging_map; staging_fence follows its last copy; made on first use. */
    GLuint staging;
    void *staging_map;
    GLsync staging_fence;
    bool staging_failed;
    struct gl_profile *profile; /* gl_profile.c: NULL unless GPGPU_PROFILE is set */
    size_t ssbo_alignment;
    GLint max_groups_x;
    bool subgroups; /* arithmetic subgroup ops in compute shaders, and not turned off */

    /* The caller's state that a call changes, saved by begin, restored by end. */
    GLint saved_program;
    GLint saved_generic_ssbo;
    GLint64 saved_ssbo[EXEC_MAX_BINDINGS][3]; /* name, start, size */

    /* Adopt + debug: the caller's debug callback, put back by destroy. */
    bool debug_installed;
    void *saved_debug_callback; /* a GLDEBUGPROC, as glGetPointerv gives it */
    void *saved_debug_user;
    GLboolean saved_debug_output, saved_debug_synchronous;
    /* Debug: the first debug message of type error or undefined behaviour
     * since the last check; gl_check_error turns it into the call's failure. */
    char debug_error[1024];

    char vendor[256], renderer[256], version[256];
    kept_list kept; /* freed library buffers kept for reuse (core/kept.h): gl_buffer * */
} gl_state;

static inline gl_state *gl_of(gpgpu_context *ctx) { return ctx->impl; }

/* gl_context.c: context creation for each platform, and making it current. */
gpgpu_status gl_platform_open(gpgpu_context *ctx, gl_state *st, const gpgpu_context_desc *desc);
void gl_platform_close(gl_state *st);
gpgpu_status gl_platform_make_current(gpgpu_context *ctx, gl_state *st);
const char *gl_platform_name(gpgpu_gl_platform platform);

/* gl_profile.c: per-stage GPU times under GPGPU_PROFILE (each a no-op without it): open
 * with the context; begin at a call's start (a stamp), mark after each dispatch, collect
 * at the call's end and before transfers (reads the stamps, waiting; false if none were
 * pending); close reports. */
typedef struct gl_profile gl_profile;
void gl_profile_open(gl_state *st);
void gl_profile_begin(gl_state *st);
void gl_profile_mark(gl_state *st, const exec_dispatch *d);
bool gl_profile_collect(gl_state *st);
void gl_profile_close(gl_state *st);
/* GPGPU_GL_PROGRAM_DIR: writes the program's binary there (gl_profile.c). */
void gl_program_dump(gl_state *st, const exec_variant *v, unsigned program);

/* Turns a pending GL error into a status with `what` in the message. */
gpgpu_status gl_check_error(gpgpu_context *ctx, const char *what);
/* The same for an error already taken from glGetError (the rest are drained). */
gpgpu_status gl_report_error(gpgpu_context *ctx, const char *what, GLenum err);

#endif /* GPGPU_GL_INTERNAL_H */
