/* Where the GL context comes from: EGL on a device with no display, EGL
 * surfaceless (Mesa), a hidden GLFW window, or the caller's own context; and
 * the check, before every GL call, that the adopted context is the current one. */
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
    CHECK(eglBindAPI(EGL_OPENGL_API), ctx, GPGPU_ERROR_NO_CONTEXT,
          "eglBindAPI(EGL_OPENGL_API) failed (0x%x)", (unsigned)eglGetError());
    EGLConfig config = (EGLConfig)0; /* EGL_NO_CONFIG_KHR */
    if (!has_extension(exts, "EGL_KHR_no_config_context")) {
        const EGLint want[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                               EGL_OPENGL_BIT, EGL_NONE};
        EGLint found = 0;
        CHECK(eglChooseConfig(st->display, want, &config, 1, &found) && found == 1, ctx,
              GPGPU_ERROR_NO_CONTEXT, "EGL: no config renders OpenGL");
    }
    static const int versions[][2] = {{4, 6}, {4, 5}, {3, 2}};
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
    }
    CHECK(st->egl_context != EGL_NO_CONTEXT, ctx, GPGPU_ERROR_GL_VERSION,
          "EGL: no OpenGL 4.5 core context (0x%x)", (unsigned)eglGetError());
    CHECK(eglMakeCurrent(st->display, EGL_NO_SURFACE, EGL_NO_SURFACE, st->egl_context), ctx,
          GPGPU_ERROR_NO_CONTEXT, "eglMakeCurrent failed (0x%x)", (unsigned)eglGetError());
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

static gpgpu_status open_egl_device(gpgpu_context *ctx, gl_state *st, bool debug)
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
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    CHECK(query_devices(16, devices, &count) && count > 0, ctx, GPGPU_ERROR_NO_CONTEXT,
          "egl-device: no EGL device");
    /* The first device that gives a context wins; GPGPU_EGL_DEVICE picks one. */
    const char *pick = getenv("GPGPU_EGL_DEVICE");
    EGLint first = pick ? atoi(pick) : 0, last = pick ? first + 1 : count;
    CHECK(first >= 0 && first < count, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "GPGPU_EGL_DEVICE=%s: there are %d EGL devices", pick, (int)count);
    gpgpu_status status = GPGPU_ERROR_NO_CONTEXT;
    for (EGLint i = first; i < last && status != GPGPU_SUCCESS; i++) {
        st->display = get_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
        status = egl_initialize(ctx, st, "egl-device");
        if (status == GPGPU_SUCCESS)
            status = egl_context_on(ctx, st, debug);
        if (status != GPGPU_SUCCESS)
            gl_platform_close(st);
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

/* glXGetCurrentContext of the GLX library the process has loaded (GLVND's libGLX.so.0, else
 * a libGL.so.1 of its own), held open in *library; NULL where none is loaded, so that no GLX
 * context can be current. The library does not link GLX: a process without X needs none. */
static void *(*glx_lookup(void **library))(void)
{
    static const char *const names[] = {"libGLX.so.0", "libGL.so.1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *lib = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
        void *sym = lib ? dlsym(lib, "glXGetCurrentContext") : NULL;
        if (sym) {
            void *(*fn)(void);
            memcpy(&fn, &sym, sizeof fn); /* ISO C has no cast from void * to a function */
            *library = lib;
            return fn;
        }
        if (lib)
            dlclose(lib);
    }
    *library = NULL;
    return NULL;
}

static void *glx_current_now(void)
{
    void *library = NULL;
    void *(*fn)(void) = glx_lookup(&library);
    void *current = fn ? fn() : NULL;
    if (library)
        dlclose(library);
    return current;
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
static void *current_of(const gl_state *st, gl_handle_kind kind)
{
    switch (kind) {
    case GL_HANDLE_CALLER: return st->current_context(st->current_user);
    case GL_HANDLE_EGL: return egl_current();
    case GL_HANDLE_GLX: return st->glx_current ? st->glx_current() : glx_current_now();
    case GL_HANDLE_WGL: return wgl_current();
    }
    return NULL;
}

/* A context current through another window system than the adopted one's (none: NULL). */
static void *other_current(const gl_state *st, gl_handle_kind *kind)
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
        st->glx_current = glx_lookup(&st->glx_library);
        st->handle_kind = GL_HANDLE_GLX;
        st->adopted = st->glx_current ? st->glx_current() : NULL;
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
    case GPGPU_GL_PLATFORM_EGL_DEVICE: status = open_egl_device(ctx, st, desc->debug); break;
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
    gpgpu_gl_platform p = desc->gl_platform;
    if (desc->gl_get_proc_address)
        p = GPGPU_GL_PLATFORM_ADOPT;
    if (p == GPGPU_GL_PLATFORM_DEFAULT)
        TRY(platform_from_env(ctx, &p));
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
    if (st->glx_library)
        dlclose(st->glx_library);
    st->glx_library = NULL;
    st->glx_current = NULL;
    if (st->display != EGL_NO_DISPLAY) {
        eglMakeCurrent(st->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
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
}

/* A context is current in one thread at a time: made current here while another thread
 * has it, eglMakeCurrent fails (EGL_BAD_ACCESS) and so does glfwMakeContextCurrent. */
gpgpu_status gl_platform_make_current(gpgpu_context *ctx, gl_state *st)
{
    if (st->egl_context != EGL_NO_CONTEXT && eglGetCurrentContext() != st->egl_context)
        CHECK(eglMakeCurrent(st->display, EGL_NO_SURFACE, EGL_NO_SURFACE, st->egl_context), ctx,
              GPGPU_ERROR_NO_CONTEXT,
              "eglMakeCurrent failed (0x%x): is the context current in another thread?",
              (unsigned)eglGetError());
#ifdef GPGPU_HAVE_GLFW
    if (st->glfw_window && glfwGetCurrentContext() != st->glfw_window) {
        glfwMakeContextCurrent(st->glfw_window);
        CHECK(glfwGetCurrentContext() == st->glfw_window, ctx, GPGPU_ERROR_NO_CONTEXT,
              "glfwMakeContextCurrent failed: is the context current in another thread?");
    }
#endif
    /* An adopted context is the caller's to make current. */
    if (st->platform == GPGPU_GL_PLATFORM_ADOPT)
        return check_adopted(ctx, st);
    return GPGPU_SUCCESS;
}

const char *gl_platform_name(gpgpu_gl_platform p) { return platform_name(p); }
