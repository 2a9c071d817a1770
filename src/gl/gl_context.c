/* Where the GL context comes from: EGL on a device with no display, EGL
 * surfaceless (Mesa), a hidden GLFW window, or the caller's own context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl/gl_internal.h"

#include <EGL/eglext.h>

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

static gpgpu_status adopt(gpgpu_context *ctx, gl_state *st, const gpgpu_context_desc *desc)
{
    CHECK(desc->gl_get_proc_address, ctx, GPGPU_ERROR_NULL_POINTER,
          "adopt: gl_get_proc_address is NULL");
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
    /* An adopted context is the caller's to make current; GL calls with none current do
     * nothing (GLVND) and would pass for a success, so that much is checked. */
    if (st->platform == GPGPU_GL_PLATFORM_ADOPT)
        CHECK(st->gl.GetString(GL_VERSION), ctx, GPGPU_ERROR_NO_CONTEXT,
              "adopt: no GL context is current in this thread");
    return GPGPU_SUCCESS;
}

const char *gl_platform_name(gpgpu_gl_platform p) { return platform_name(p); }
