/* A GL context of the test program's own, made through EGL as an application makes its
 * context (Mesa's surfaceless platform, else the device platform's first device): the tests
 * that adopt a context, or check that the library leaves the application's alone, use it.
 * Header-only, so that the link tests' hosts need nothing but the public library. */
#ifndef GPGPU_TESTS_EGL_HOST_H
#define GPGPU_TESTS_EGL_HOST_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdbool.h>
#include <string.h>

static inline bool egl_host_has_extension(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return true;
    return false;
}

/* Opens and initialises a display with the OpenGL API bound, and a config for pbuffers (or
 * none where EGL_KHR_no_config_context lets a context have none); false if it cannot. */
static inline bool egl_host_open(EGLDisplay *display, EGLConfig *config)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    *display = EGL_NO_DISPLAY;
    if (!get_display)
        return false;
    if (egl_host_has_extension(client, "EGL_MESA_platform_surfaceless"))
        *display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (*display == EGL_NO_DISPLAY && egl_host_has_extension(client, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC query =
            (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        EGLDeviceEXT device;
        EGLint count = 0;
        if (query && query(1, &device, &count) && count == 1)
            *display = get_display(EGL_PLATFORM_DEVICE_EXT, device, NULL);
    }
    if (*display == EGL_NO_DISPLAY || !eglInitialize(*display, NULL, NULL) ||
        !eglBindAPI(EGL_OPENGL_API))
        return false;
    const EGLint want[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                           EGL_OPENGL_BIT, EGL_NONE};
    EGLint found = 0;
    if (!egl_host_has_extension(eglQueryString(*display, EGL_EXTENSIONS),
                                "EGL_KHR_no_config_context"))
        return eglChooseConfig(*display, want, config, 1, &found) && found == 1;
    *config = (EGLConfig)0;
    return true;
}

/* A core-profile context of GL major.minor sharing objects with `share` (EGL_NO_CONTEXT: none). */
static inline EGLContext egl_host_context(EGLDisplay display, EGLConfig config, EGLContext share,
                                          EGLint major, EGLint minor)
{
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, major, EGL_CONTEXT_MINOR_VERSION, minor,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK,
                              EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    return eglCreateContext(display, config, share, attribs);
}

#endif /* GPGPU_TESTS_EGL_HOST_H */
