/* GPU selection: gpgpu_device_count, gpgpu_context_desc.device and gpgpu_info's device and
 * UUID, on each backend this build and machine have: every listed device makes a context that
 * says its number, the numbers past the list and the platforms that take no device are
 * refused, the device variables keep their meaning (and desc.device outranks them), and
 * where both backends give UUIDs one number names one GPU on both. */
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static bool make(gpgpu_context_desc desc, gpgpu_info *info)
{
    gpgpu_context *ctx = NULL;
    desc.debug = true;
    gpgpu_status s = gpgpu_context_create(&desc, &ctx);
    EXPECT(s == GPGPU_SUCCESS, "backend %d device %u: %s (%s)", (int)desc.backend, desc.device,
           gpgpu_status_string(s), gpgpu_last_error(NULL));
    if (s != GPGPU_SUCCESS)
        return false;
    gpgpu_context_get_info(ctx, info);
    gpgpu_context_destroy(ctx);
    return true;
}

static void expect_refused(gpgpu_context_desc desc, const char *text)
{
    gpgpu_context *ctx = (gpgpu_context *)&desc; /* not NULL: must become NULL */
    gpgpu_status s = gpgpu_context_create(&desc, &ctx);
    EXPECT(s == GPGPU_ERROR_INVALID_ARGUMENT && ctx == NULL &&
               strstr(gpgpu_last_error(NULL), text) != NULL,
           "backend %d device %u: %s, '%s', expected '%s'", (int)desc.backend, desc.device,
           gpgpu_status_string(s), gpgpu_last_error(NULL), text);
}

/* Every device of the backend by number; returns the count (0: the backend is not here). */
static uint32_t check_backend(gpgpu_backend backend, gpgpu_info *first)
{
    uint32_t count = 99;
    gpgpu_status s = gpgpu_device_count(backend, &count);
    gpgpu_context *probe = NULL;

    if (s == GPGPU_ERROR_BACKEND_UNAVAILABLE ||
        gpgpu_context_create(&(gpgpu_context_desc){ .backend = backend }, &probe) !=
            GPGPU_SUCCESS) {
        fprintf(stderr, "backend %d: no context here, its devices not checked\n", (int)backend);
        return 0;
    }
    gpgpu_info def;
    gpgpu_context_get_info(probe, &def);
    gpgpu_context_destroy(probe);
    EXPECT(s == GPGPU_SUCCESS && count >= 1 && count <= 16, "backend %d: %s, %u devices",
           (int)backend, gpgpu_status_string(s), count);
    /* The library's own choice is one of the list (or, off egl-device, none of it). */
    bool listed_platform = strcmp(def.platform, "egl-device") == 0 ||
                           strcmp(def.platform, "vulkan") == 0;
    EXPECT(listed_platform ? def.device >= 1 && def.device <= count : def.device == 0,
           "backend %d: the default context on %s says device %u of %u", (int)backend,
           def.platform, def.device, count);
    for (uint32_t k = 1; k <= count && s == GPGPU_SUCCESS; k++) {
        gpgpu_info info;
        if (!make((gpgpu_context_desc){ .backend = backend, .device = k }, &info))
            continue;
        EXPECT(info.device == k, "backend %d: device %u says %u", (int)backend, k, info.device);
        if (k == 1)
            *first = info;
        if (k > 1 && info.has_uuid && first->has_uuid)
            EXPECT(memcmp(info.uuid, first->uuid, 16) > 0,
                   "backend %d: device %u's UUID does not follow device 1's", (int)backend, k);
    }
    char want[64];
    snprintf(want, sizeof want, "device %u: there are %u", count + 1, count);
    expect_refused((gpgpu_context_desc){ .backend = backend, .device = count + 1 }, want);
    return count;
}

int main(void)
{
    gpgpu_info gl = { 0 }, vk = { 0 }, info;
    uint32_t n;

    EXPECT(gpgpu_device_count(GPGPU_BACKEND_GL, NULL) == GPGPU_ERROR_NULL_POINTER,
           "a NULL count");
    EXPECT(gpgpu_device_count((gpgpu_backend)7, &n) == GPGPU_ERROR_INVALID_ARGUMENT,
           "an unknown backend");
    uint32_t gl_count = check_backend(GPGPU_BACKEND_GL, &gl);
    uint32_t vk_count = check_backend(GPGPU_BACKEND_VULKAN, &vk);
    if (gl_count == 0 && vk_count == 0) {
        fprintf(stderr, "skipped: no context of either backend\n");
        return TEST_SKIPPED;
    }
    if (gl_count > 0) {
        /* A device is an EGL device: the other platforms take none. */
        expect_refused((gpgpu_context_desc){ .backend = GPGPU_BACKEND_GL, .device = 1,
                                             .gl_platform = GPGPU_GL_PLATFORM_EGL_SURFACELESS },
                       "on the egl-device platform, not egl-surfaceless");
        /* GPGPU_EGL_DEVICE keeps its meaning, and desc.device outranks it. */
        setenv("GPGPU_EGL_DEVICE", "99", 1);
        expect_refused((gpgpu_context_desc){ .backend = GPGPU_BACKEND_GL,
                                             .gl_platform = GPGPU_GL_PLATFORM_EGL_DEVICE },
                       "GPGPU_EGL_DEVICE=99");
        if (make((gpgpu_context_desc){ .backend = GPGPU_BACKEND_GL, .device = 1 }, &info))
            EXPECT(info.device == 1, "device 1 under GPGPU_EGL_DEVICE=99: %u", info.device);
        unsetenv("GPGPU_EGL_DEVICE");
    }
    if (vk_count > 0) {
        EXPECT(vk.has_uuid, "a Vulkan device without its UUID");
        setenv("GPGPU_VK_DEVICE", "99", 1);
        expect_refused((gpgpu_context_desc){ .backend = GPGPU_BACKEND_VULKAN }, "GPGPU_VK_DEVICE=99");
        if (make((gpgpu_context_desc){ .backend = GPGPU_BACKEND_VULKAN, .device = 1 }, &info))
            EXPECT(info.device == 1, "device 1 under GPGPU_VK_DEVICE=99: %u", info.device);
        setenv("GPGPU_VK_DEVICE", "0", 1);
        if (make((gpgpu_context_desc){ .backend = GPGPU_BACKEND_VULKAN }, &info))
            EXPECT(info.device >= 1 && info.device <= vk_count,
                   "GPGPU_VK_DEVICE=0: device %u of %u", info.device, vk_count);
        unsetenv("GPGPU_VK_DEVICE");
    }
    /* One number, one GPU: where both backends give the first device's UUID, it is one. */
    if (gl_count > 0 && vk_count > 0 && gl.has_uuid && vk.has_uuid)
        EXPECT(memcmp(gl.uuid, vk.uuid, 16) == 0, "device 1 of GL and of Vulkan differ: %s, %s",
               gl.renderer, vk.renderer);
    else
        fprintf(stderr, "GL and Vulkan not both with a UUID here: the same-GPU check skipped\n");
    return test_finish();
}
