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

/* How an adopted context is told from others (gl_context.c): the window system's handle of
 * the current context, or the caller's gpgpu_context_desc.gl_current_context. */
typedef enum gl_handle_kind {
    GL_HANDLE_CALLER,
    GL_HANDLE_EGL,
    GL_HANDLE_GLX,
    GL_HANDLE_WGL
} gl_handle_kind;

/* Where GL's debug callback (gl_exec.c) keeps the first bad message for gl_check_error. Its
 * own allocation: when a context is destroyed where the callback cannot be put back (another
 * GL context current), the sink stays with the adopted context, which still calls into it. */
enum { GL_DEBUG_MESSAGE_SIZE = 1024 };
typedef struct gl_debug_sink {
    char message[GL_DEBUG_MESSAGE_SIZE];
    struct gl_debug_sink *next_left; /* in the list of sinks left to their GL contexts */
} gl_debug_sink;

/* GLX's functions, looked up at run time in the GLX library the process has loaded (the
 * library does not link GLX), which is held open while they are used. Xlib's types as
 * their ABI has them: a Display * is a pointer, a GLXDrawable an XID (unsigned long). */
typedef struct gl_glx {
    void *library;
    void *(*get_context)(void);
    void *(*get_display)(void);
    unsigned long (*get_drawable)(void);
    unsigned long (*get_read_drawable)(void);
    int (*make_current)(void *display, unsigned long drawable, void *context);
    int (*make_context_current)(void *display, unsigned long draw, unsigned long read,
                                void *context);
} gl_glx;

/* What the thread had current when a call made a headless context's own one current
 * (gl_platform_make_current), made current again when the call ends (gl_platform_put_back):
 * an EGL context with its display, surfaces; a GLX one with its display, drawables; for a
 * GLFW context, GLFW's own record too. Nothing saved: nothing was current. */
typedef struct gl_outer {
    bool held;     /* a call made the library's context current and has not put back */
    bool was_own;  /* the library's context was current already: nothing to put back */
    EGLDisplay egl_display;
    EGLContext egl_context;
    EGLSurface egl_draw, egl_read;
    void *glx_display, *glx_context;
    unsigned long glx_draw, glx_read;
    void *glfw_window;
} gl_outer;

typedef struct gl_state {
    GladGLContext gl; /* one function table per context: no global GL symbols */
    gpgpu_gl_platform platform;
    EGLDisplay display;
    EGLContext egl_context;
    uint32_t device_index;  /* gpgpu_info.device: the EGL device's number in the list, or 0 */
    bool egl_has_uuid;      /* the EGL device's persistent id, where it gives one */
    uint8_t egl_uuid[16];
    void *glfw_window;
    gl_outer outer;    /* headless: what a call found current in the thread */
    bool keep_current; /* GPGPU_GL_KEEP_CURRENT: stays current where none was */
    gl_glx glx;        /* found where a GLX context may be current (gl_context.c) */

    /* Adopt: the adopted context's handle and how the current one is asked for
     * (gl_platform_make_current compares them at every call). */
    gl_handle_kind handle_kind;
    void *adopted;
    gpgpu_gl_current_context current_context;
    void *current_user;
    /* Adopt with gl_accept_shared_contexts: a buffer of the adopted context, labelled
     * share_label, which a context sharing its objects sees too; `foreign` is set while the
     * current call runs in such a context (not the adopted one), `current` is the context
     * the check found. handoff is the fence the last call ended with, in handoff_context:
     * a call in another context waits for it first. */
    bool accept_shared, foreign;
    bool unreachable; /* destroy found the objects out of reach: no GL call (kept_free) */
    void *current;
    GLuint share_probe;
    char share_label[96];
    GLsync handoff;
    void *handoff_context;

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
    gl_debug_sink *debug;

    char vendor[256], renderer[256], version[256];
    kept_list kept; /* freed library buffers kept for reuse (core/kept.h): gl_buffer * */
} gl_state;

static inline gl_state *gl_of(gpgpu_context *ctx) { return ctx->impl; }

/* gl_context.c: context creation for each platform (refusing GL below 4.5), and making it
 * current. gl_platform_make_current is the one gate of every GL path: a library-made
 * context is made current, what the thread had current saved (once per call: later ones
 * find it held); for an adopted one the current context is checked against it
 * (GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT) before any GL call, and st->foreign
 * says whether it is a context that shares its objects. gl_platform_put_back ends the call
 * of a library-made context: what the thread had current is current again (nothing: none
 * is, unless GPGPU_GL_KEEP_CURRENT); a no-op for an adopted one. gl_platform_open leaves the
 * new context held for the rest of the creation, which puts back at its end; close puts back
 * before it destroys. */
gpgpu_status gl_platform_open(gpgpu_context *ctx, gl_state *st, const gpgpu_context_desc *desc);
void gl_platform_close(gl_state *st);
gpgpu_status gl_platform_make_current(gpgpu_context *ctx, gl_state *st);
void gl_platform_put_back(gl_state *st);
const char *gl_platform_name(gpgpu_gl_platform platform);
/* Adopt with gl_accept_shared_contexts: makes the buffer that tells contexts sharing objects
 * with the adopted one (the adopted context is current). */
void gl_platform_share_probe(gl_state *st);

/* gl_profile.c: per-stage GPU times under GPGPU_PROFILE (each a no-op without it): open
 * with the context; begin at a call's start (a stamp), mark after each dispatch, collect
 * at the call's end and before transfers (reads the stamps, waiting; false if none were
 * pending); close reports, and deletes the queries where they can be reached. A call in
 * a context that shares the adopted one's objects is not profiled: queries are not
 * shared. */
typedef struct gl_profile gl_profile;
void gl_profile_open(gl_state *st);
void gl_profile_begin(gl_state *st);
void gl_profile_mark(gl_state *st, const exec_dispatch *d);
bool gl_profile_collect(gl_state *st);
void gl_profile_close(gl_state *st, bool delete_queries);
/* GPGPU_GL_PROGRAM_DIR: writes the program's binary there (gl_profile.c). */
void gl_program_dump(gl_state *st, const exec_variant *v, unsigned program);

/* Turns a pending GL error into a status with `what` in the message. */
gpgpu_status gl_check_error(gpgpu_context *ctx, const char *what);
/* The same for an error already taken from glGetError (the rest are drained). */
gpgpu_status gl_report_error(gpgpu_context *ctx, const char *what, GLenum err);

#endif /* GPGPU_GL_INTERNAL_H */
