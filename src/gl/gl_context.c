/* Where the GL context comes from: EGL on a device with no display, EGL
 * surfaceless (Mesa), a hidden GLFW window, or the caller's own context; the
 * check, before every GL call, that the adopted context is the current one; and
 * for a context of the library's own, the thread's current context saved when a
 * call makes its own current and put back when the call ends. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl/gl_internal.h"

#include <EGL/eglext.h>

#ifdef _WIN32
#include <windows.h>
#endif

#ifdef GPGPU_HAVE_GLFW
#include <GLFW/glfw3.h>
#endif

static const char *platform_name(gpgpu_gl_platform p)
{
    switch (p) {
    case GPGPU_GL_PLATFORM_EGL_DEVICE: return "egl-device";
    case GPGPU_GL_PLATFORM_EGL_SURFACELESS: return "egl-surfaceless";
    case GPGPU_GL_PLATFORM_GLFW: return "glfw";
    case GPGPU_GL_PLATFORM_ADOPT: return "adopt";
    case GPGPU_GL_PLATFORM_DEFAULT: break;
    }
    return "default";
}

static void hold_thread(gl_state *st, bool glfw);
static void egl_release(EGLDisplay display);

static bool has_extension(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return true;
    return false;
}

/* GL 4.5 at least: the library uses its direct state access everywhere (glCreateBuffers,
 * glNamedBufferStorage, ...) and GLSL 4.50, and glad loads no function of a version newer
 * than the context's, so an older one would fail at the first such call. Read from the
 * version string, which every GL version has. */
static gpgpu_status check_version(gpgpu_context *ctx, gl_state *st, const char *what)
{
    const GLubyte *text = st->gl.GetString(GL_VERSION);
    const char *version = text ? (const char *)text : "";
    int major = 0, minor = 0;
    CHECK(sscanf(version, "%d.%d", &major, &minor) == 2, ctx, GPGPU_ERROR_GL_VERSION,
          "%s: GL_VERSION \"%s\" names no version; libgpgpu needs GL 4.5", what, version);
    CHECK(major > 4 || (major == 4 && minor >= 5), ctx, GPGPU_ERROR_GL_VERSION,
          "%s: GL %d.%d (%s) is older than 4.5, which libgpgpu needs", what, major, minor,
          version);
    return GPGPU_SUCCESS;
}

/* Creates a GL 4.6 (else 4.5) core context on an initialized display and
 * makes it current without a surface. Where the driver has neither, the newest
 * core context it makes (asked for as 3.2, which EGL may raise to any
 * compatible version) is made instead, only so that the version check names
 * the version the driver has. */
static gpgpu_status egl_context_on(gpgpu_context *ctx, gl_state *st, bool debug)
{
    const char *exts = eglQueryString(st->display, EGL_EXTENSIONS);
    CHECK(has_extension(exts, "EGL_KHR_surfaceless_context"), ctx, GPGPU_ERROR_NO_CONTEXT,
          "EGL display has no EGL_KHR_surfaceless_context");
    EGLConfig config = (EGLConfig)0; /* EGL_NO_CONFIG_KHR */
    if (!has_extension(exts, "EGL_KHR_no_config_context")) {
        const EGLint want[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                               EGL_OPENGL_BIT, EGL_NONE};
        EGLint found = 0;
        CHECK(eglChooseConfig(st->display, want, &config, 1, &found) && found == 1, ctx,
              GPGPU_ERROR_NO_CONTEXT, "EGL: no config renders OpenGL");
    }
    /* eglCreateContext makes a context of the thread's bound API, which is the application's
     * to choose (OpenGL ES unless it chose): OpenGL is bound for the call, and the choice put
     * back. */
    EGLenum api = eglQueryAPI();
    CHECK(eglBindAPI(EGL_OPENGL_API), ctx, GPGPU_ERROR_NO_CONTEXT,
          "eglBindAPI(EGL_OPENGL_API) failed (0x%x)", (unsigned)eglGetError());
    static const int versions[][2] = {{4, 6}, {4, 5}, {3, 2}};
    EGLint error = EGL_SUCCESS;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, versions[i][0],
                                  EGL_CONTEXT_MINOR_VERSION, versions[i][1],
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                  EGL_CONTEXT_OPENGL_DEBUG, debug ? EGL_TRUE : EGL_FALSE,
                                  EGL_NONE};
        st->egl_context = eglCreateContext(st->display, config, EGL_NO_CONTEXT, attribs);
        if (st->egl_context != EGL_NO_CONTEXT)
            break;
        error = eglGetError();
    }
    if (api != EGL_OPENGL_API && api != EGL_NONE)
        eglBindAPI(api);
    CHECK(st->egl_context != EGL_NO_CONTEXT, ctx, GPGPU_ERROR_GL_VERSION,
          "EGL: no OpenGL 4.5 core context (0x%x)", (unsigned)error);
    TRY(gl_platform_make_current(ctx, st));
    CHECK(gladLoadGLContext(&st->gl, (GLADloadfunc)eglGetProcAddress), ctx,
          GPGPU_ERROR_NO_CONTEXT, "could not load GL functions through EGL");
    return check_version(ctx, st, platform_name(st->platform));
}

static gpgpu_status egl_initialize(gpgpu_context *ctx, gl_state *st, const char *what)
{
    EGLint major, minor;
    if (st->display == EGL_NO_DISPLAY || !eglInitialize(st->display, &major, &minor)) {
        st->display = EGL_NO_DISPLAY;
        return ctx_fail(ctx, GPGPU_ERROR_NO_CONTEXT, "%s: no EGL display (0x%x)", what,
                        (unsigned)eglGetError());
    }
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------ the EGL devices */

#define GL_MAX_EGL_DEVICES 16

typedef struct egl_device_entry {
    EGLDeviceEXT device;
    bool has_uuid;
    uint8_t uuid[16];
} egl_device_entry;

/* Whether a sorts before b: a device with a UUID before one without, UUIDs ascending. */
static bool egl_before(const egl_device_entry *a, const egl_device_entry *b)
{
    if (a->has_uuid != b->has_uuid)
        return a->has_uuid;
    return a->has_uuid && memcmp(a->uuid, b->uuid, sizeof a->uuid) < 0;
}

/* The EGL devices in gpgpu_context_desc.device's order: those that give a UUID
 * (EGL_EXT_device_persistent_id) ascending by it, then the others in EGL's order. Vulkan's
 * list is sorted by UUID too (vk_context.c), and a GPU's EGL and Vulkan UUIDs are one, so one
 * index names one GPU on both backends. 0 without EGL_EXT_platform_device. */
static int list_egl_devices(egl_device_entry *out)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLQUERYDEVICESTRINGEXTPROC query_string =
        (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
    PFNEGLQUERYDEVICEBINARYEXTPROC query_binary =
        (PFNEGLQUERYDEVICEBINARYEXTPROC)eglGetProcAddress("eglQueryDeviceBinaryEXT");
    EGLDeviceEXT devices[GL_MAX_EGL_DEVICES];
    EGLint count = 0;

    if (!has_extension(client, "EGL_EXT_platform_device") || !query_devices ||
        !query_devices(GL_MAX_EGL_DEVICES, devices, &count))
        return 0;
    for (EGLint i = 0; i < count; i++) {
        egl_device_entry e = {.device = devices[i]};
        const char *exts = query_string ? query_string(devices[i], EGL_EXTENSIONS) : NULL;
        EGLint size = 0;
        e.has_uuid = query_binary && has_extension(exts, "EGL_EXT_device_persistent_id") &&
                     query_binary(devices[i], EGL_DEVICE_UUID_EXT, (EGLint)sizeof e.uuid,
                                  e.uuid, &size) &&
                     size == (EGLint)sizeof e.uuid;
        /* insertion: stable, so devices without a UUID keep EGL's order */
        EGLint at = i;
        while (at > 0 && egl_before(&e, &out[at - 1])) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = e;
    }
    return count;
}

uint32_t gl_device_count(void)
{
    egl_device_entry list[GL_MAX_EGL_DEVICES];
    return (uint32_t)list_egl_devices(list);
}

/* desc->device's EGL device (1-based in the list), else GPGPU_EGL_DEVICE's (an index into
 * eglQueryDevicesEXT, as ever), else the first that gives a context. */
static gpgpu_status open_egl_device(gpgpu_context *ctx, gl_state *st, bool debug,
                                    uint32_t device)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    CHECK(has_extension(client, "EGL_EXT_platform_device"), ctx, GPGPU_ERROR_NO_CONTEXT,
          "egl-device: EGL_EXT_platform_device is missing");
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    CHECK(query_devices && get_display, ctx, GPGPU_ERROR_NO_CONTEXT,
          "egl-device: eglQueryDevicesEXT is missing");
    EGLDeviceEXT devices[GL_MAX_EGL_DEVICES];
    EGLint count = 0;
    CHECK(query_devices(GL_MAX_EGL_DEVICES, devices, &count) && count > 0, ctx,
          GPGPU_ERROR_NO_CONTEXT, "egl-device: no EGL device");
    egl_device_entry list[GL_MAX_EGL_DEVICES];
    int listed = list_egl_devices(list);
    CHECK(device <= (uint32_t)listed, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "device %u: there are %d EGL devices", device, listed);
    if (device > 0) {
        devices[0] = list[device - 1].device;
        count = 1;
    }
    /* The first device that gives a context wins; GPGPU_EGL_DEVICE picks one. */
    const char *pick = device > 0 ? NULL : getenv("GPGPU_EGL_DEVICE");
    EGLint first = pick ? atoi(pick) : 0, last = pick ? first + 1 : count;
    CHECK(first >= 0 && first < count, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "GPGPU_EGL_DEVICE=%s: there are %d EGL devices", pick, (int)count);
    gpgpu_status status = GPGPU_ERROR_NO_CONTEXT;
    EGLint i = first;
    for (; i < last && status != GPGPU_SUCCESS; i++) {
        st->display = get_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
        status = egl_initialize(ctx, st, "egl-device");
        if (status == GPGPU_SUCCESS)
            status = egl_context_on(ctx, st, debug);
        if (status != GPGPU_SUCCESS)
            gl_platform_close(st);
    }
    for (int k = 0; status == GPGPU_SUCCESS && k < listed; k++) {
        if (list[k].device == devices[i - 1]) {
            st->device_index = (uint32_t)k + 1;
            st->egl_has_uuid = list[k].has_uuid;
            memcpy(st->egl_uuid, list[k].uuid, sizeof st->egl_uuid);
        }
    }
    return status;
}

static gpgpu_status open_egl_surfaceless(gpgpu_context *ctx, gl_state *st, bool debug)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    CHECK(has_extension(client, "EGL_MESA_platform_surfaceless"), ctx, GPGPU_ERROR_NO_CONTEXT,
          "egl-surfaceless: EGL_MESA_platform_surfaceless is missing");
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    CHECK(get_display, ctx, GPGPU_ERROR_NO_CONTEXT, "egl-surfaceless: no eglGetPlatformDisplayEXT");
    st->display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    gpgpu_status status = egl_initialize(ctx, st, "egl-surfaceless");
    if (status == GPGPU_SUCCESS)
        status = egl_context_on(ctx, st, debug);
    if (status != GPGPU_SUCCESS)
        gl_platform_close(st);
    return status;
}

static gpgpu_status open_glfw(gpgpu_context *ctx, gl_state *st, bool debug)
{
#ifdef GPGPU_HAVE_GLFW
    CHECK(glfwInit(), ctx, GPGPU_ERROR_NO_CONTEXT, "glfw: glfwInit failed (no display?)");
    /* glfwCreateWindow makes the new context current for a moment, then the one GLFW had: what
     * the thread has current is saved before (and an EGL context released, which GLVND would
     * not let a GLX one replace), and put back at the end of the creation. */
    hold_thread(st, true);
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, debug ? GLFW_TRUE : GLFW_FALSE);
    /* 4.5, else the newest core context there is, for the version check to name (as EGL). */
    GLFWwindow *window = NULL;
    char why[512] = "";
    int code = GLFW_NO_ERROR;
    static const int versions[][2] = {{4, 5}, {3, 2}};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0] && !window; i++) {
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, versions[i][0]);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, versions[i][1]);
        window = glfwCreateWindow(16, 16, "libgpgpu", NULL, NULL);
        const char *text = NULL;
        if (!window && i == 0 && (code = glfwGetError(&text)) != GLFW_NO_ERROR && text)
            snprintf(why, sizeof why, "%s", text);
    }
    if (!window)
        return ctx_fail(ctx, code == GLFW_VERSION_UNAVAILABLE ? GPGPU_ERROR_GL_VERSION
                                                              : GPGPU_ERROR_NO_CONTEXT,
                        "glfw: no GL 4.5 window: %s", why);
    st->glfw_window = window;
    glfwMakeContextCurrent(window);
    CHECK(glfwGetCurrentContext() == window, ctx, GPGPU_ERROR_NO_CONTEXT,
          "glfw: glfwMakeContextCurrent failed");
    CHECK(gladLoadGLContext(&st->gl, (GLADloadfunc)glfwGetProcAddress), ctx,
          GPGPU_ERROR_NO_CONTEXT, "glfw: could not load GL functions");
    return check_version(ctx, st, "glfw");
#else
    (void)st;
    (void)debug;
    return ctx_fail(ctx, GPGPU_ERROR_BACKEND_UNAVAILABLE, "glfw: this build has no GLFW");
#endif
}

/* ------------------------------------------------ the adopted context */

/* GL calls go to whichever context is current in the thread, so a call made while the caller
 * has another context current would work on that context's objects of the same names. The
 * window system says which context is current without a GL call: the adopted one's handle is
 * recorded, and compared at every call. */

static const char *kind_name(gl_handle_kind kind)
{
    switch (kind) {
    case GL_HANDLE_CALLER: return "gl_current_context";
    case GL_HANDLE_EGL: return "EGL";
    case GL_HANDLE_GLX: return "GLX";
    case GL_HANDLE_WGL: return "WGL";
    }
    return "?";
}

/* eglGetCurrentContext answers for the thread's bound API, which a thread that never called
 * eglBindAPI has as OpenGL ES: the OpenGL API is asked for, and the binding put back. */
static void *egl_current(void)
{
    EGLenum api = eglQueryAPI();
    if (api == EGL_OPENGL_API)
        return eglGetCurrentContext();
    if (!eglBindAPI(EGL_OPENGL_API))
        return NULL;
    EGLContext current = eglGetCurrentContext();
    eglBindAPI(api);
    return current;
}

/* GLX's functions in the GLX library the process has loaded (GLVND's libGLX.so.0, else a
 * libGL.so.1 of its own), into st->glx and kept; false where none is loaded, so that no GLX
 * context can be current. The library does not link GLX: a process without X needs none.
 * Where none is loaded the loader's answer takes tens of microseconds, so it is asked only
 * where a GLX context may be current: adopting, a refused call, a headless call that EGL
 * refused (GLVND's answer while a GLX context is current), a GLFW context. */
static bool glx_lookup(gl_state *st)
{
    static const char *const names[] = {"libGLX.so.0", "libGL.so.1"};
    static const char *const symbols[] = {"glXGetCurrentContext", "glXGetCurrentDisplay",
                                          "glXGetCurrentDrawable", "glXGetCurrentReadDrawable",
                                          "glXMakeCurrent", "glXMakeContextCurrent"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !st->glx.library; i++) {
        void *lib = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD), *sym[6] = {NULL};
        bool all = lib != NULL;
        for (size_t j = 0; j < 6 && all; j++)
            all = (sym[j] = dlsym(lib, symbols[j])) != NULL;
        if (!all) {
            if (lib)
                dlclose(lib);
            continue;
        }
        /* ISO C has no cast from void * to a function pointer: the bytes are copied. */
        memcpy(&st->glx.get_context, &sym[0], sizeof sym[0]);
        memcpy(&st->glx.get_display, &sym[1], sizeof sym[1]);
        memcpy(&st->glx.get_drawable, &sym[2], sizeof sym[2]);
        memcpy(&st->glx.get_read_drawable, &sym[3], sizeof sym[3]);
        memcpy(&st->glx.make_current, &sym[4], sizeof sym[4]);
        memcpy(&st->glx.make_context_current, &sym[5], sizeof sym[5]);
        st->glx.library = lib;
    }
    return st->glx.library != NULL;
}

static void *wgl_current(void)
{
#ifdef _WIN32
    /* opengl32.dll is loaded wherever a WGL context can be current. */
    HMODULE gl = GetModuleHandleA("opengl32.dll");
    FARPROC fn = gl ? GetProcAddress(gl, "wglGetCurrentContext") : NULL;
    HGLRC (WINAPI *get)(void) = NULL;
    memcpy(&get, &fn, sizeof get);
    return get ? (void *)get() : NULL;
#else
    return NULL;
#endif
}

/* The handle of the context current in this thread, asked the way the adopted one was. */
static void *current_of(gl_state *st, gl_handle_kind kind)
{
    switch (kind) {
    case GL_HANDLE_CALLER: return st->current_context(st->current_user);
    case GL_HANDLE_EGL: return egl_current();
    case GL_HANDLE_GLX: return glx_lookup(st) ? st->glx.get_context() : NULL;
    case GL_HANDLE_WGL: return wgl_current();
    }
    return NULL;
}

/* A context current through another window system than the adopted one's (none: NULL). */
static void *other_current(gl_state *st, gl_handle_kind *kind)
{
    static const gl_handle_kind kinds[] = {GL_HANDLE_EGL, GL_HANDLE_GLX, GL_HANDLE_WGL};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        void *current = kinds[i] == st->handle_kind ? NULL : current_of(st, kinds[i]);
        if (current) {
            *kind = kinds[i];
            return current;
        }
    }
    return NULL;
}

/* Records the current context as the adopted one: the caller's callback, else the first of
 * EGL, GLX and WGL that has one current. */
static gpgpu_status record_adopted(gpgpu_context *ctx, gl_state *st,
                                   const gpgpu_context_desc *desc)
{
    if (desc->gl_current_context) {
        st->handle_kind = GL_HANDLE_CALLER;
        st->current_context = desc->gl_current_context;
        st->current_user = desc->user_data;
        st->adopted = current_of(st, GL_HANDLE_CALLER);
        CHECK(st->adopted, ctx, GPGPU_ERROR_NO_CONTEXT,
              "adopt: no GL context is current (gl_current_context returned NULL)");
        return GPGPU_SUCCESS;
    }
    st->handle_kind = GL_HANDLE_EGL;
    st->adopted = egl_current();
    if (!st->adopted) {
        st->handle_kind = GL_HANDLE_GLX;
        st->adopted = current_of(st, GL_HANDLE_GLX);
    }
    if (!st->adopted) {
        st->handle_kind = GL_HANDLE_WGL;
        st->adopted = wgl_current();
    }
    CHECK(st->adopted, ctx, GPGPU_ERROR_NO_CONTEXT,
          "adopt: no GL context is current in this thread (EGL, GLX and WGL have none; a "
          "toolkit's own contexts need gl_current_context)");
    return GPGPU_SUCCESS;
}

/* Whether the current context shares objects with the adopted one: it sees the adopted
 * context's probe buffer, under its label (a context of its own may have a buffer of that
 * name). Queries that change nothing in the context. */
static bool shares_objects(gl_state *st)
{
    if (!st->share_probe || !st->gl.IsBuffer(st->share_probe))
        return false;
    char label[sizeof st->share_label] = "";
    st->gl.GetObjectLabel(GL_BUFFER, st->share_probe, (GLsizei)sizeof label, NULL, label);
    return strcmp(label, st->share_label) == 0;
}

void gl_platform_share_probe(gl_state *st)
{
    if (!st->accept_shared)
        return;
    snprintf(st->share_label, sizeof st->share_label,
             "libgpgpu: the probe of adopted %s context %p", kind_name(st->handle_kind),
             st->adopted);
    st->gl.CreateBuffers(1, &st->share_probe);
    st->gl.ObjectLabel(GL_BUFFER, st->share_probe, -1, st->share_label);
}

/* The adopted context, or with gl_accept_shared_contexts one that shares its objects, must be
 * current. Nothing but the window system (or the caller's callback) is asked before the
 * answer, so a refused call makes no GL call. */
static gpgpu_status check_adopted(gpgpu_context *ctx, gl_state *st)
{
    st->foreign = false;
    gl_handle_kind kind = st->handle_kind;
    void *now = current_of(st, kind);
    st->current = now;
    if (now == st->adopted)
        return GPGPU_SUCCESS;
    if (!now)
        now = other_current(st, &kind);
    CHECK(now, ctx, GPGPU_ERROR_NO_CONTEXT,
          "adopt: no GL context is current in this thread (the adopted one is %s context %p)",
          kind_name(st->handle_kind), st->adopted);
    if (st->accept_shared && kind == st->handle_kind && shares_objects(st)) {
        /* GL_TIME_ELAPSED queries are objects of the context that made them alone. */
        CHECK(!st->timing, ctx, GPGPU_ERROR_WRONG_CONTEXT,
              "adopt: %s context %p shares objects with the adopted %s context %p, but a "
              "measurement runs (gpgpu_timer_begin) and its GL queries are the adopted "
              "context's alone", kind_name(kind), now, kind_name(st->handle_kind), st->adopted);
        st->foreign = true;
        return GPGPU_SUCCESS;
    }
    return ctx_fail(ctx, GPGPU_ERROR_WRONG_CONTEXT,
                    "adopt: the GL context current in this thread (%s context %p) is not the "
                    "adopted one (%s context %p)%s", kind_name(kind), now,
                    kind_name(st->handle_kind), st->adopted,
                    !st->accept_shared ? "; make that one current (gl_accept_shared_contexts "
                                         "also accepts a context that shares its objects)"
                    : kind == st->handle_kind ? ", nor shares its objects"
                                              : ", nor can share its objects");
}

static gpgpu_status adopt(gpgpu_context *ctx, gl_state *st, const gpgpu_context_desc *desc)
{
    CHECK(desc->gl_get_proc_address, ctx, GPGPU_ERROR_NULL_POINTER,
          "adopt: gl_get_proc_address is NULL");
    TRY(record_adopted(ctx, st, desc));
    st->accept_shared = desc->gl_accept_shared_contexts;
    CHECK(gladLoadGLContext(&st->gl, (GLADloadfunc)desc->gl_get_proc_address), ctx,
          GPGPU_ERROR_NO_CONTEXT, "adopt: no current GL context (glGetString failed)");
    return check_version(ctx, st, "adopt");
}

static gpgpu_status platform_from_env(gpgpu_context *ctx, gpgpu_gl_platform *out)
{
    static const gpgpu_gl_platform named[] = {GPGPU_GL_PLATFORM_EGL_DEVICE,
                                              GPGPU_GL_PLATFORM_EGL_SURFACELESS,
                                              GPGPU_GL_PLATFORM_GLFW};
    const char *env = getenv("GPGPU_GL_PLATFORM");
    *out = GPGPU_GL_PLATFORM_DEFAULT;
    if (!env || !*env)
        return GPGPU_SUCCESS;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(env, platform_name(named[i])) == 0)
            *out = named[i];
    CHECK(*out != GPGPU_GL_PLATFORM_DEFAULT, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "GPGPU_GL_PLATFORM=%s: expected egl-device, egl-surfaceless or glfw", env);
    return GPGPU_SUCCESS;
}

/* A context of platform p, of GL 4.5 or newer (each platform checks the version: the
 * device platform goes on to its next device). A failed one is closed again, so that the
 * next platform may be tried. */
static gpgpu_status open_one(gpgpu_context *ctx, gl_state *st, const gpgpu_context_desc *desc,
                             gpgpu_gl_platform p)
{
    st->platform = p;
    gpgpu_status status = GPGPU_ERROR_INVALID_ARGUMENT;
    switch (p) {
    case GPGPU_GL_PLATFORM_EGL_DEVICE:
        status = open_egl_device(ctx, st, desc->debug, desc->device);
        break;
    case GPGPU_GL_PLATFORM_EGL_SURFACELESS:
        status = open_egl_surfaceless(ctx, st, desc->debug);
        break;
    case GPGPU_GL_PLATFORM_GLFW: status = open_glfw(ctx, st, desc->debug); break;
    case GPGPU_GL_PLATFORM_ADOPT: status = adopt(ctx, st, desc); break;
    case GPGPU_GL_PLATFORM_DEFAULT:
        return ctx_fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "unknown GL platform %d", (int)p);
    }
    if (status != GPGPU_SUCCESS)
        gl_platform_close(st);
    return status;
}

gpgpu_status gl_platform_open(gpgpu_context *ctx, gl_state *st, const gpgpu_context_desc *desc)
{
    st->keep_current = env_on("GPGPU_GL_KEEP_CURRENT");
    gpgpu_gl_platform p = desc->gl_platform;
    if (desc->gl_get_proc_address)
        p = GPGPU_GL_PLATFORM_ADOPT;
    if (p == GPGPU_GL_PLATFORM_DEFAULT)
        TRY(platform_from_env(ctx, &p));
    /* A device is an EGL device: the other platforms cannot say which GPU they take. */
    CHECK(desc->device == 0 || p == GPGPU_GL_PLATFORM_DEFAULT || p == GPGPU_GL_PLATFORM_EGL_DEVICE,
          ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "device %u: a GL device is chosen on the egl-device platform, not %s", desc->device,
          platform_name(p));
    if (desc->device > 0)
        p = GPGPU_GL_PLATFORM_EGL_DEVICE;
    if (p != GPGPU_GL_PLATFORM_DEFAULT)
        return open_one(ctx, st, desc, p);

    /* No choice made: the first platform that gives a context, with every
     * reason kept for the message if none does. */
    static const gpgpu_gl_platform order[] = {GPGPU_GL_PLATFORM_EGL_DEVICE,
                                              GPGPU_GL_PLATFORM_EGL_SURFACELESS,
                                              GPGPU_GL_PLATFORM_GLFW};
    char reasons[CTX_MESSAGE_SIZE / 2] = "";
    bool too_old = false; /* a platform made a context, of too old a version */
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        gpgpu_status status = open_one(ctx, st, desc, order[i]);
        if (status == GPGPU_SUCCESS)
            return status;
        too_old |= status == GPGPU_ERROR_GL_VERSION;
        size_t used = strlen(reasons);
        snprintf(reasons + used, sizeof reasons - used, "%s%.2000s", used ? "; " : "", ctx->message);
    }
    return ctx_fail(ctx, too_old ? GPGPU_ERROR_GL_VERSION : GPGPU_ERROR_NO_CONTEXT,
                    "no GL context could be made: %s", reasons);
}

void gl_platform_close(gl_state *st)
{
    gl_platform_put_back(st);
    if (st->display != EGL_NO_DISPLAY) {
        /* Current still only where a call found it so (nothing to put back then): a context
         * destroyed while current lives on until it is released. */
        if (st->egl_context != EGL_NO_CONTEXT && eglGetCurrentContext() == st->egl_context)
            egl_release(st->display);
        if (st->egl_context != EGL_NO_CONTEXT)
            eglDestroyContext(st->display, st->egl_context);
        /* No eglTerminate: an EGLDisplay is one per device and process, so
         * terminating it would destroy every other context on it (another
         * gpgpu_context's, or the application's own). */
    }
    st->display = EGL_NO_DISPLAY;
    st->egl_context = EGL_NO_CONTEXT;
#ifdef GPGPU_HAVE_GLFW
    /* No glfwTerminate (here or when a window cannot be made): it would
     * destroy every GLFW window of the process, other contexts' and the
     * application's. */
    if (st->glfw_window)
        glfwDestroyWindow(st->glfw_window);
#endif
    st->glfw_window = NULL;
    if (st->glx.library)
        dlclose(st->glx.library);
    st->glx = (gl_glx){0};
}

/* ------------------------------------------- the thread's current context, put back */

/* A context of the library's own is current in the thread during a call only. What the
 * thread had current (the application's EGL or GLX context, a GLFW window's, or none) is
 * saved when a call makes the library's context current, and is current again when the call
 * ends: the application's next GL call goes where it went before, an adopted gpgpu context
 * finds its own context still current, and where none was current none is. A context left
 * current where none was would not stay unnoticed: GLVND refuses glXMakeCurrent while an EGL
 * context is current in the thread (BadAccess, an X error that ends the process under Xlib's
 * default handler), and a context current in one thread cannot be made current in another
 * (docs/DECISIONS.md, "A headless context is current during its calls only"). */

static void egl_release(EGLDisplay display)
{
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

/* The thread's GLX context (where the GLX library has been found) into st->outer, released:
 * GLVND lets no EGL context replace it. */
static void hold_glx(gl_state *st)
{
    gl_outer *o = &st->outer;
    if (!st->glx.library || !(o->glx_context = st->glx.get_context()))
        return;
    o->glx_display = st->glx.get_display();
    o->glx_draw = st->glx.get_drawable();
    o->glx_read = st->glx.get_read_drawable();
    st->glx.make_current(o->glx_display, 0, NULL);
}

/* What the thread has current into st->outer: EGL's context with its display and surfaces,
 * else GLX's, and for a GLFW context (`glfw`) GLFW's record of its current window. An EGL
 * context stays current for eglMakeCurrent to replace at once, but for a GLFW context, which
 * GLVND would not let replace it; a GLX one is released. */
static void hold_thread(gl_state *st, bool glfw)
{
    gl_outer *o = &st->outer;
    *o = (gl_outer){.held = true, .egl_display = EGL_NO_DISPLAY, .egl_context = EGL_NO_CONTEXT,
                    .egl_draw = EGL_NO_SURFACE, .egl_read = EGL_NO_SURFACE};
#ifdef GPGPU_HAVE_GLFW
    if (glfw) {
        o->glfw_window = glfwGetCurrentContext();
        glx_lookup(st); /* GLFW's contexts are GLX ones under X */
    }
#endif
    o->egl_context = eglGetCurrentContext();
    if (o->egl_context == EGL_NO_CONTEXT) {
        hold_glx(st);
        return;
    }
    if (o->egl_context == st->egl_context) {
        o->was_own = true; /* nothing to save: a call finds it so where it stays current */
        return;
    }
    o->egl_display = eglGetCurrentDisplay();
    o->egl_draw = eglGetCurrentSurface(EGL_DRAW);
    o->egl_read = eglGetCurrentSurface(EGL_READ);
    if (glfw)
        egl_release(o->egl_display);
}

void gl_platform_put_back(gl_state *st)
{
    gl_outer o = st->outer;
    st->outer.held = false;
    bool none = o.egl_context == EGL_NO_CONTEXT && !o.glx_context && !o.glfw_window;
    if (!o.held || o.was_own || (none && st->keep_current))
        return;
    if (st->platform == GPGPU_GL_PLATFORM_GLFW) {
#ifdef GPGPU_HAVE_GLFW
        glfwMakeContextCurrent(o.glfw_window); /* NULL releases the library's */
#endif
    } else if (o.egl_context == EGL_NO_CONTEXT && st->display != EGL_NO_DISPLAY) {
        egl_release(st->display);
    }
    /* glXMakeCurrent where draw and read are one (GLX 1.2's call, which takes an X window as
     * well as a GLX drawable), else GLX 1.3's glXMakeContextCurrent. */
    if (o.glx_context && st->glx.get_context() != o.glx_context) {
        if (o.glx_draw == o.glx_read)
            st->glx.make_current(o.glx_display, o.glx_draw, o.glx_context);
        else
            st->glx.make_context_current(o.glx_display, o.glx_draw, o.glx_read, o.glx_context);
    }
    if (o.egl_context != EGL_NO_CONTEXT && eglGetCurrentContext() != o.egl_context)
        eglMakeCurrent(o.egl_display, o.egl_draw, o.egl_read, o.egl_context);
}

static gpgpu_status make_own_egl(gpgpu_context *ctx, gl_state *st)
{
    gl_outer *o = &st->outer;
    hold_thread(st, false);
    if (o->was_own)
        return GPGPU_SUCCESS;
    EGLBoolean made = eglMakeCurrent(st->display, EGL_NO_SURFACE, EGL_NO_SURFACE,
                                     st->egl_context);
    EGLint error = made ? EGL_SUCCESS : eglGetError();
    /* GLVND's answer while a GLX context is current (where the GLX library was not yet
     * looked for), and also while the library's context is current in another thread. */
    if (!made && error == EGL_BAD_ACCESS && o->egl_context == EGL_NO_CONTEXT &&
        !o->glx_context && glx_lookup(st)) {
        hold_glx(st);
        if (o->glx_context) {
            made = eglMakeCurrent(st->display, EGL_NO_SURFACE, EGL_NO_SURFACE, st->egl_context);
            error = made ? EGL_SUCCESS : eglGetError();
        }
    }
    if (made)
        return GPGPU_SUCCESS;
    gl_platform_put_back(st);
    return ctx_fail(ctx, GPGPU_ERROR_NO_CONTEXT, "eglMakeCurrent failed (0x%x)%s",
                    (unsigned)error,
                    error == EGL_BAD_ACCESS ? ": is the context current in another thread?" : "");
}

static gpgpu_status make_own_glfw(gpgpu_context *ctx, gl_state *st)
{
#ifdef GPGPU_HAVE_GLFW
    if (glfwGetCurrentContext() == st->glfw_window) {
        st->outer = (gl_outer){.held = true, .was_own = true};
        return GPGPU_SUCCESS;
    }
    hold_thread(st, true);
    glfwMakeContextCurrent(st->glfw_window);
    if (glfwGetCurrentContext() == st->glfw_window)
        return GPGPU_SUCCESS;
    gl_platform_put_back(st);
#endif
    return ctx_fail(ctx, GPGPU_ERROR_NO_CONTEXT,
                    "glfwMakeContextCurrent failed: is the context current in another thread?");
}

/* A context is current in one thread at a time: made current here while another thread
 * has it, eglMakeCurrent fails (EGL_BAD_ACCESS) and so does glfwMakeContextCurrent. */
gpgpu_status gl_platform_make_current(gpgpu_context *ctx, gl_state *st)
{
    /* An adopted context is the caller's to make current. */
    if (st->platform == GPGPU_GL_PLATFORM_ADOPT)
        return check_adopted(ctx, st);
    if (st->outer.held)
        return GPGPU_SUCCESS; /* made current earlier in this call */
    return st->platform == GPGPU_GL_PLATFORM_GLFW ? make_own_glfw(ctx, st)
                                                  : make_own_egl(ctx, st);
}

const char *gl_platform_name(gpgpu_gl_platform p) { return platform_name(p); }
