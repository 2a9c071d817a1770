/* The Vulkan side of the API (include/gpgpu/vulkan.h), on Vulkan objects the
 * test makes itself: its own instance (API 1.1), device and queue, adopted
 * by the library; its own host-visible VkBuffers, wrapped at unaligned
 * offsets, which the test reads and writes by mapping them (so every byte
 * outside what a call may write is seen to be untouched); its own command
 * buffer, which the library records into and nothing happens until the test
 * submits it (also past 256 recorded dispatches, where the library moves to
 * a new descriptor pool); the documented error codes; a clean teardown.
 *
 * With GPGPU_VK_VALIDATION=1 (set or not, a library-made instance gets the
 * layer then) the test enables VK_LAYER_KHRONOS_validation on its own
 * instance with a debug messenger, and fails on any warning or error it
 * reports, so what the library does on the adopted device is validated.
 *
 * Exit 77 where no Vulkan instance or device with a compute queue can be made,
 * or the library has no Vulkan backend.
 *
 * Over 800 lines as one concern: every check runs on the one set of Vulkan
 * objects the test makes first (instance, device, queue, host-visible
 * buffers, command buffer), whose making is most of its first part. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpgpu/vulkan.h"
#include "ref/ref.h"
#include "testlib.h"
#include "wrap_overlap.h"

#define S_OK GPGPU_SUCCESS
#define E_INVALID GPGPU_ERROR_INVALID_ARGUMENT
#define E_NULL GPGPU_ERROR_NULL_POINTER
#define E_RANGE GPGPU_ERROR_OUT_OF_RANGE
#define E_COMBO GPGPU_ERROR_UNSUPPORTED_COMBINATION
#define E_ALIGN GPGPU_ERROR_MISALIGNED
#define U32 GPGPU_TYPE_U32
#define F32 GPGPU_TYPE_F32
#define F64 GPGPU_TYPE_F64
#define SUM GPGPU_OP_SUM
#define MINMAX GPGPU_OP_MINMAX
#define FAST GPGPU_ALGO_FAST
#define CLASSIC GPGPU_ALGO_CLASSIC_SCAN

static int sentinel_target;
#define SENTINEL ((void *)&sentinel_target)

/* After a failure the context's message names the function that failed. */
#define EXPECT_NAMED(ctx, name)                                                   \
    EXPECT(strstr(gpgpu_last_error(ctx), name) != NULL,                           \
           "last error \"%s\" does not name %s", gpgpu_last_error(ctx), name)

static void skip(const char *why, int result)
{
    fprintf(stderr, "skipped: %s (VkResult %d)\n", why, result);
    exit(TEST_SKIPPED);
}

/* A Vulkan call the test cannot go on without. */
#define VK_OK(call)                                                                   \
    do {                                                                              \
        VkResult r_ = (call);                                                         \
        if (r_ != VK_SUCCESS) {                                                       \
            fprintf(stderr, "%s:%d: %s failed (VkResult %d)\n", __FILE__, __LINE__, #call, \
                    (int)r_);                                                         \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

/* ------------------------------------------------ the test's own Vulkan */

static struct {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    uint32_t family;
    bool f64;
    VkPhysicalDeviceMemoryProperties memory;
    VkCommandPool pool;
    VkFence fence;
} vk;

static int validation_messages;
static bool deliberate; /* check_messenger's mistake is being made */

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                   void *user)
{
    (void)types;
    (void)user;
    validation_messages++;
    if (deliberate)
        fprintf(stderr, "the layer reports the test's deliberate mistake (%s), as it should\n",
                data->pMessageIdName ? data->pMessageIdName : "?");
    else
        fprintf(stderr, "VALIDATION %s: %s\n",
                severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "ERROR" : "WARNING",
                data->pMessage);
    return VK_FALSE;
}

static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static bool has_layer(const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS || count == 0)
        return false;
    VkLayerProperties *layers = xmalloc(count * sizeof *layers);
    bool found = false;
    if (vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++)
            found = strcmp(layers[i].layerName, name) == 0;
    free(layers);
    return found;
}

static uint32_t compute_family(VkPhysicalDevice device)
{
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, NULL);
    VkQueueFamilyProperties *families = xmalloc((count ? count : 1) * sizeof *families);
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families);
    uint32_t found = UINT32_MAX;
    for (uint32_t i = 0; i < count && found == UINT32_MAX; i++)
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            found = i;
    free(families);
    return found;
}

static void vk_open(void)
{
    static const char *const layer = "VK_LAYER_KHRONOS_validation";
    static const char *const debug_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    bool validate = env_on("GPGPU_VK_VALIDATION");
    if (validate && !has_layer(layer)) {
        fprintf(stderr, "GPGPU_VK_VALIDATION is set, but %s is not installed\n", layer);
        validate = false;
    }
    VkDebugUtilsMessengerCreateInfoEXT messenger = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_validation,
    };
    /* Synchronization validation too: the barriers of recorded work. */
    static const VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                        .enabledValidationFeatureCount = 1,
                                        .pEnabledValidationFeatures = enables,
                                        .pNext = &messenger};
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "test_vulkan",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validate ? &features : NULL, /* the messenger hears instance creation too */
        .pApplicationInfo = &app,
        .enabledLayerCount = validate ? 1 : 0,
        .ppEnabledLayerNames = validate ? &layer : NULL,
        .enabledExtensionCount = validate ? 1 : 0,
        .ppEnabledExtensionNames = validate ? &debug_ext : NULL,
    };
    VkResult r = vkCreateInstance(&info, NULL, &vk.instance);
    if (r != VK_SUCCESS)
        skip("no Vulkan instance", r);
    if (validate) {
        PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(vk.instance, "vkCreateDebugUtilsMessengerEXT");
        VK_OK(create ? create(vk.instance, &messenger, NULL, &vk.messenger)
                     : VK_ERROR_EXTENSION_NOT_PRESENT);
        fprintf(stderr, "validation: %s on the test's instance\n", layer);
    }

    uint32_t count = 0;
    vkEnumeratePhysicalDevices(vk.instance, &count, NULL);
    VkPhysicalDevice *devices = xmalloc((count ? count : 1) * sizeof *devices);
    vkEnumeratePhysicalDevices(vk.instance, &count, devices);
    for (uint32_t i = 0; i < count && !vk.physical; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devices[i], &p);
        if (p.apiVersion >= VK_API_VERSION_1_1 && compute_family(devices[i]) != UINT32_MAX) {
            vk.physical = devices[i];
            vk.family = compute_family(devices[i]);
            fprintf(stderr, "the test's device: %s\n", p.deviceName);
        }
    }
    free(devices);
    if (!vk.physical)
        skip("no Vulkan 1.1 device with a compute queue", (int)count);

    VkPhysicalDeviceFeatures have;
    vkGetPhysicalDeviceFeatures(vk.physical, &have);
    vk.f64 = have.shaderFloat64;
    VkPhysicalDeviceFeatures want = {.shaderFloat64 = have.shaderFloat64};
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                     .queueFamilyIndex = vk.family,
                                     .queueCount = 1,
                                     .pQueuePriorities = &priority};
    VkDeviceCreateInfo dev = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &queue,
                              .pEnabledFeatures = &want};
    r = vkCreateDevice(vk.physical, &dev, NULL, &vk.device);
    if (r != VK_SUCCESS)
        skip("no Vulkan device", r);
    vkGetDeviceQueue(vk.device, vk.family, 0, &vk.queue);
    vkGetPhysicalDeviceMemoryProperties(vk.physical, &vk.memory);

    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = vk.family};
    VK_OK(vkCreateCommandPool(vk.device, &pool, NULL, &vk.pool));
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_OK(vkCreateFence(vk.device, &fence, NULL, &vk.fence));
}

static void vk_close(void)
{
    vkDestroyFence(vk.device, vk.fence, NULL);
    vkDestroyCommandPool(vk.device, vk.pool, NULL);
    /* The validation layer reports here what the library left on the device. */
    vkDestroyDevice(vk.device, NULL);
    if (vk.messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(vk.instance, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy)
            destroy(vk.instance, vk.messenger, NULL);
    }
    vkDestroyInstance(vk.instance, NULL);
}

/* A buffer of the test's: storage and transfer, host-visible and coherent,
 * mapped for as long as it lives. */
typedef struct host_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    uint8_t *map;
    size_t bytes;
} host_buffer;

static host_buffer hb_make(size_t bytes)
{
    host_buffer b = {.bytes = bytes};
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                               .size = bytes,
                               .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VK_OK(vkCreateBuffer(vk.device, &info, NULL, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(vk.device, b.buffer, &req);
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < vk.memory.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) &&
            (vk.memory.memoryTypes[i].propertyFlags & want) == want)
            type = i;
    if (type == UINT32_MAX) {
        fprintf(stderr, "no host-visible coherent memory for a storage buffer\n");
        exit(1);
    }
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                  .allocationSize = req.size,
                                  .memoryTypeIndex = type};
    VK_OK(vkAllocateMemory(vk.device, &alloc, NULL, &b.memory));
    VK_OK(vkBindBufferMemory(vk.device, b.buffer, b.memory, 0));
    void *map = NULL;
    VK_OK(vkMapMemory(vk.device, b.memory, 0, VK_WHOLE_SIZE, 0, &map));
    b.map = map;
    return b;
}

static void hb_free(host_buffer *b)
{
    vkUnmapMemory(vk.device, b->memory);
    vkDestroyBuffer(vk.device, b->buffer, NULL);
    vkFreeMemory(vk.device, b->memory, NULL);
    *b = (host_buffer){0};
}

/* A byte pattern that no primitive writes by chance. */
static void pattern(uint8_t *p, size_t bytes, unsigned salt)
{
    for (size_t i = 0; i < bytes; i++)
        p[i] = (uint8_t)(i * 131 + 7 + salt * 29);
}

static gpgpu_buffer *wrap(gpgpu_context *ctx, const host_buffer *b, size_t offset, size_t bytes)
{
    gpgpu_buffer *w = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_vk(ctx, b->buffer, offset, bytes, &w), S_OK);
    if (!w) {
        fprintf(stderr, "cannot go on without the wrap\n");
        exit(1);
    }
    EXPECT(gpgpu_buffer_size(w) == bytes, "wrapped size %zu, expected %zu", gpgpu_buffer_size(w),
           bytes);
    return w;
}

/* Every byte of the mapped buffer is want's: exactly outside [lo, hi), and
 * inside as elements of t within tol (NULL: exactly). */
static void expect_mapped(const host_buffer *b, const uint8_t *want, size_t lo, size_t hi,
                          gpgpu_type t, const double *tol, const char *what)
{
    for (size_t i = 0; i < b->bytes; i++) {
        if ((i < lo || i >= hi) && b->map[i] != want[i]) {
            EXPECT(false, "%s: byte %zu (outside the written range [%zu, %zu)) is 0x%02x, expected 0x%02x",
                   what, i, lo, hi, b->map[i], want[i]);
            return;
        }
    }
    if (hi > lo)
        check_elems(what, t, b->map + lo, want + lo, (hi - lo) / gpgpu_type_size(t), tol);
    else
        EXPECT(true, "%s", what);
}

static void submit_and_wait(VkCommandBuffer cmd)
{
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &cmd};
    VK_OK(vkQueueSubmit(vk.queue, 1, &submit, vk.fence));
    VK_OK(vkWaitForFences(vk.device, 1, &vk.fence, VK_TRUE, UINT64_MAX));
    VK_OK(vkResetFences(vk.device, 1, &vk.fence));
}

static VkCommandBuffer begin_cmd(void)
{
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = vk.pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    VkCommandBuffer cmd;
    VK_OK(vkAllocateCommandBuffers(vk.device, &alloc, &cmd));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_OK(vkBeginCommandBuffer(cmd, &begin));
    return cmd;
}

/* Under validation: the messenger hears the layer. One deliberate mistake
 * (mapping mapped memory, harmless to the driver) must be reported once;
 * then the count starts again from 0. */
static void check_messenger(void)
{
    if (!vk.messenger)
        return;
    host_buffer b = hb_make(64);
    void *again = NULL;
    deliberate = true;
    (void)vkMapMemory(vk.device, b.memory, 0, VK_WHOLE_SIZE, 0, &again);
    deliberate = false;
    EXPECT(validation_messages == 1, "the layer reported %d messages for one mistake",
           validation_messages);
    hb_free(&b);
    validation_messages = 0;
}

/* ------------------------------------------------------------ adopting */

static gpgpu_context *adopt(void)
{
    gpgpu_vk_adopt objects = {vk.instance, vk.physical, vk.device, vk.queue, vk.family, 0};
    gpgpu_context *ctx = NULL;
    gpgpu_status s = gpgpu_context_create(&(gpgpu_context_desc){.vk_adopt = &objects}, &ctx);
    if (s == GPGPU_ERROR_BACKEND_UNAVAILABLE) {
        fprintf(stderr, "skipped: %s\n", gpgpu_last_error(NULL));
        vk_close();
        exit(TEST_SKIPPED);
    }
    if (s != S_OK) {
        fprintf(stderr, "adopting the test's device: %s: %s\n", gpgpu_status_string(s),
                gpgpu_last_error(NULL));
        exit(1);
    }
    gpgpu_info info;
    EXPECT_STATUS(ctx, gpgpu_context_get_info(ctx, &info), S_OK);
    EXPECT(strcmp(info.backend, "vulkan") == 0 && strcmp(info.platform, "vulkan-adopt") == 0,
           "adopted context: backend %s, platform %s", info.backend, info.platform);
    EXPECT(info.has_f64 == vk.f64, "adopted context: has_f64 %d, the device %d", info.has_f64,
           vk.f64);
    fprintf(stderr, "adopted: %s (%s), subgroups %s, storage offset alignment %zu\n",
            info.renderer, info.version, info.has_subgroups ? "yes" : "no",
            info.storage_offset_alignment);
    return ctx;
}

/* ----------------------------------------------- wrapped ranges, direct */

/* The test's buffer: a byte pattern, with N elements at element IN_OFF of
 * the wrapped range [offset, offset + WRAP_BYTES); scans write at OUT_OFF. */
enum {
    WRAP_BYTES = 40960, /* 10240 elements: several work-groups for both primitives */
    HB_BYTES = WRAP_BYTES + 128,
    IN_OFF = 5,
    OUT_OFF = 4600,
    N = 4500
};

static _Alignas(16) uint8_t image[HB_BYTES], want_image[HB_BYTES];

static void make_image(gpgpu_type t, size_t offset)
{
    pattern(image, HB_BYTES, (unsigned)offset);
    test_random(t, image + offset + 4 * IN_OFF, N, test_seed++);
}

static void wrapped_reduce(gpgpu_context *ctx, const host_buffer *hb, gpgpu_buffer *w,
                           size_t offset, gpgpu_type t)
{
    static const gpgpu_algo algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_CLASSIC_HALVING,
                                       GPGPU_ALGO_CLASSIC_STRIDE, GPGPU_ALGO_CLASSIC_MINMAX};
    make_image(t, offset);
    memcpy(hb->map, image, HB_BYTES);
    for (gpgpu_op op = SUM; op <= MINMAX; op++)
        for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
            if (algos[a] == GPGPU_ALGO_CLASSIC_MINMAX && op != MINMAX)
                continue;
            uint8_t got[16], want[16];
            long double abs = 0;
            double tol[2] = {-1, -1};
            test_poison(got, sizeof got);
            if (algos[a] == GPGPU_ALGO_DEFAULT) {
                ref_reduce(t, op, image + offset + 4 * IN_OFF, N, want, &abs);
                if (op == SUM && is_float(t))
                    tol[0] = tolerance(t, N, abs); /* any summation tree has depth < N */
            } else {
                ref_reduce_classic(t, op, algos[a], image + offset + 4 * IN_OFF, N, want);
            }
            EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){t, op, algos[a]}, w, IN_OFF,
                                            N, got),
                          S_OK);
            char what[160];
            snprintf(what, sizeof what, "wrap at %zu: %s reduce op %d algo %d", offset,
                     gpgpu_type_name(t), (int)op, (int)algos[a]);
            check_elems(what, t, got, want, op == MINMAX ? 2 : 1, tol);
        }
    char what[96];
    snprintf(what, sizeof what, "wrap at %zu: after the %s reductions", offset, gpgpu_type_name(t));
    expect_mapped(hb, image, 0, 0, t, NULL, what);
}

static void wrapped_scan(gpgpu_context *ctx, const host_buffer *hb, gpgpu_buffer *w,
                         size_t offset, gpgpu_type t)
{
    make_image(t, offset);
    long double *abs = xmalloc(N * sizeof *abs);
    double *tol = xmalloc(N * sizeof *tol);
    for (int classic = 0; classic < 2; classic++)
        for (int ex = 0; ex < 2; ex++)
            for (int in_place = 0; in_place < 2; in_place++) {
                size_t dst = in_place ? IN_OFF : OUT_OFF, lo = offset + 4 * dst;
                memcpy(hb->map, image, HB_BYTES);
                memcpy(want_image, image, HB_BYTES);
                const uint8_t *src = image + offset + 4 * IN_OFF;
                if (classic) {
                    ref_scan_classic(t, ex, src, N, want_image + lo);
                } else {
                    ref_scan(t, ex, src, N, want_image + lo, abs);
                    for (size_t i = 0; i < N; i++)
                        tol[i] = is_float(t) ? tolerance(t, N, abs[i]) : -1;
                }
                EXPECT_STATUS(ctx, gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = t, .exclusive = ex, .algo = classic ? CLASSIC : FAST},
                                              w, IN_OFF, w, dst, N),
                              S_OK);
                char what[160];
                snprintf(what, sizeof what, "wrap at %zu: %s %s %s scan %s", offset,
                         gpgpu_type_name(t), classic ? "classic" : "fast",
                         ex ? "exclusive" : "inclusive", in_place ? "in place" : "out of place");
                expect_mapped(hb, want_image, lo, lo + 4 * N, t, classic ? NULL : tol, what);
            }
    free(tol);
    free(abs);
}

/* Transfers and copies through the wrap are relative to its offset too. */
static void wrapped_transfers(gpgpu_context *ctx, const host_buffer *hb, gpgpu_buffer *w,
                              size_t offset)
{
    static uint8_t got[WRAP_BYTES];
    make_image(U32, offset);
    memcpy(hb->map, image, HB_BYTES);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(w, 0, got, WRAP_BYTES), S_OK);
    EXPECT(memcmp(got, image + offset, WRAP_BYTES) == 0, "wrap at %zu: download differs", offset);
    const uint32_t marks[2] = {0x01020304u, 0x05060708u};
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(w, 8, marks, sizeof marks), S_OK);
    memcpy(want_image, image, HB_BYTES);
    memcpy(want_image + offset + 8, marks, sizeof marks);
    char what[96];
    snprintf(what, sizeof what, "wrap at %zu: after an upload through it", offset);
    expect_mapped(hb, want_image, 0, 0, U32, NULL, what);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(w, 16, w, 1024, 64), S_OK);
    memcpy(want_image + offset + 1024, want_image + offset + 16, 64);
    snprintf(what, sizeof what, "wrap at %zu: after a copy within it", offset);
    expect_mapped(hb, want_image, 0, 0, U32, NULL, what);
    uint32_t r[2];
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, SUM, 0}, w, 1, WRAP_BYTES / 4, r),
                  E_RANGE); /* past the wrap, though not past the VkBuffer */
    EXPECT_STATUS(ctx, gpgpu_buffer_download(w, 4, got, WRAP_BYTES), E_RANGE);
}

/* f64 needs a binding offset that is a multiple of 8: a wrap at 4 mod 8 is refused. */
static void wrapped_f64(gpgpu_context *ctx)
{
    double values[256];
    for (int i = 0; i < 256; i++)
        values[i] = i + 1; /* sum 32896, exact */
    host_buffer hb = hb_make(8192);
    pattern(hb.map, hb.bytes, 3);
    memcpy(hb.map + 24, values, sizeof values);
    memcpy(hb.map + 4100, values, sizeof values);
    memcpy(want_image, hb.map, hb.bytes);
    static const struct {
        size_t offset;
        gpgpu_status expected;
    } cases[] = {{24, S_OK}, {4100, E_ALIGN}, {20, E_ALIGN}, {36, E_ALIGN}, {4, E_ALIGN}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpgpu_buffer *w = wrap(ctx, &hb, cases[i].offset, sizeof values); /* a wrap needs 4 only */
        gpgpu_status expected = vk.f64 ? cases[i].expected : GPGPU_ERROR_UNSUPPORTED_FEATURE;
        double sum[2] = {0, 0};
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){F64, SUM, 0}, w, 0, 256, sum),
                      expected);
        if (expected == S_OK)
            EXPECT(sum[0] == 32896.0, "f64 sum through a wrap at 24 is %.17g", sum[0]);
        else
            EXPECT_NAMED(ctx, "gpgpu_reduce");
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){F64, MINMAX, 0}, w, 0, 256, sum),
                      expected);
        if (expected == S_OK)
            EXPECT(sum[0] == 1.0 && sum[1] == 256.0, "f64 minmax through a wrap at 24: %g %g",
                   sum[0], sum[1]);
        EXPECT_STATUS(ctx, gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = F64}, w, 0, w, 0, 256),
                      expected);
        if (expected != S_OK)
            EXPECT_NAMED(ctx, "gpgpu_scan");
        /* u32 data at the same offset is fine. */
        uint32_t r;
        EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, SUM, 0}, w, 0, 512, &r),
                      S_OK);
        gpgpu_buffer_destroy(w);
    }
    /* Only the scan at 24 wrote: the prefix sums of 1..256. */
    if (vk.f64) {
        double acc = 0;
        for (int i = 0; i < 256; i++) {
            acc += i + 1;
            memcpy(want_image + 24 + 8 * i, &acc, 8);
        }
    }
    expect_mapped(&hb, want_image, 0, 0, F64, NULL, "f64 wraps: only the aligned scan wrote");
    hb_free(&hb);
}

/* Wraps of one VkBuffer are one memory to the overlap checks. */
static void check_wrap_overlaps(gpgpu_context *ctx)
{
    host_buffer hb = hb_make(WRAP_OBJECT_BYTES);
    gpgpu_buffer *w[4] = {wrap(ctx, &hb, 0, 2048), wrap(ctx, &hb, 1024, 2048),
                          wrap(ctx, &hb, 2048, 2048), wrap(ctx, &hb, 0, 2048)};
    test_wrap_overlaps(ctx, w);
    for (int i = 0; i < 4; i++)
        gpgpu_buffer_destroy(w[i]);
    hb_free(&hb);
}

static void check_wrapped(gpgpu_context *ctx)
{
    static const size_t offsets[] = {20, 36, 4, 64};
    host_buffer hb = hb_make(HB_BYTES);
    for (size_t i = 0; i < sizeof offsets / sizeof *offsets; i++) {
        gpgpu_buffer *w = wrap(ctx, &hb, offsets[i], WRAP_BYTES);
        wrapped_reduce(ctx, &hb, w, offsets[i], U32);
        wrapped_reduce(ctx, &hb, w, offsets[i], F32);
        wrapped_scan(ctx, &hb, w, offsets[i], U32);
        wrapped_scan(ctx, &hb, w, offsets[i], F32);
        wrapped_transfers(ctx, &hb, w, offsets[i]);
        gpgpu_buffer_destroy(w);
    }
    hb_free(&hb);
    wrapped_f64(ctx);
    check_wrap_overlaps(ctx);
}

/* ---------------------------------------------- recording into the test's */

static uint32_t u32_at(const uint8_t *p, size_t i)
{
    uint32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
}

static void put_u32(uint8_t *p, size_t i, uint32_t v) { memcpy(p + 4 * i, &v, 4); }

/* One command buffer with scans and reductions into wrapped ranges; while it
 * records, nothing reads back and nothing happens to the buffers. */
static void check_record_into(gpgpu_context *ctx)
{
    enum { NR = 100003, A = 5, B = A + NR + 3, C = B + NR + 3, ELEMS = C + NR + 4 };
    const size_t wrap_off = 36, res_off = 12, res_bytes = 40;
    host_buffer hb = hb_make(wrap_off + 4 * ELEMS + 40), rb = hb_make(64);
    uint8_t *img = xmalloc(hb.bytes), *want = xmalloc(hb.bytes);
    uint8_t res_img[64], res_want[64];
    pattern(img, hb.bytes, 5);
    pattern(res_img, sizeof res_img, 6);
    uint8_t *base = img + wrap_off;
    test_random(U32, base + 4 * A, NR, test_seed++);
    test_random(U32, base + 4 * C, NR, test_seed++);
    for (size_t i = 0; i < NR; i += 997)
        put_u32(base, A + i, 0xFFFFFF00u + (uint32_t)i % 256); /* sums wrap, extremes move */
    memcpy(hb.map, img, hb.bytes);
    memcpy(rb.map, res_img, sizeof res_img);
    gpgpu_buffer *w = wrap(ctx, &hb, wrap_off, 4 * ELEMS), *res = wrap(ctx, &rb, res_off, res_bytes);

    /* What the command buffer must do. */
    memcpy(want, img, hb.bytes);
    memcpy(res_want, res_img, sizeof res_img);
    uint8_t *wbase = want + wrap_off, *rbase = res_want + res_off;
    uint32_t acc = 0, lo = UINT32_MAX, hi = 0, acc_b = 0;
    for (size_t i = 0; i < NR; i++) {
        uint32_t v = u32_at(base, A + i);
        acc += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        put_u32(wbase, B + i, acc); /* inclusive scan of A */
        acc_b += acc;
    }
    put_u32(rbase, 2, acc);
    put_u32(rbase, 4, lo);
    put_u32(rbase, 5, hi);
    put_u32(rbase, 7, acc_b);
    put_u32(rbase, 9, UINT32_MAX);          /* the min of nothing */
    put_u32(rbase, 0, u32_at(base, A + 1)); /* a recorded copy */
    acc = 0;
    for (size_t i = 0; i < NR; i++) { /* exclusive scan of C in place */
        uint32_t v = u32_at(base, C + i);
        put_u32(wbase, C + i, acc);
        acc += v;
    }

    VkCommandBuffer cmd = begin_cmd();
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, cmd), S_OK);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = U32, .algo = FAST}, w, A, w, B, NR), S_OK);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &(gpgpu_reduce_desc){U32, SUM, FAST}, w, A, NR,
                                              res, 2),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx,
                                              &(gpgpu_reduce_desc){U32, MINMAX,
                                                                   GPGPU_ALGO_CLASSIC_MINMAX},
                                              w, A, NR, res, 4),
                  S_OK);
    /* Reads what the scan above writes: the barriers order recorded calls. */
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx,
                                              &(gpgpu_reduce_desc){U32, SUM,
                                                                   GPGPU_ALGO_CLASSIC_HALVING},
                                              w, B, NR, res, 7),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = U32, .exclusive = true, .algo = CLASSIC}, w, C, w, C, NR),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &(gpgpu_reduce_desc){U32, GPGPU_OP_MIN, 0}, w,
                                              A, 0, res, 9),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(w, 4 * (A + 1), res, 0, 4), S_OK);
    /* Nothing can come back to the host meanwhile. */
    uint32_t r[2] = {0, 0};
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, SUM, 0}, w, A, NR, r), E_COMBO);
    EXPECT_NAMED(ctx, "gpgpu_reduce");
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(w, 0, r, 4), E_COMBO);
    EXPECT_NAMED(ctx, "gpgpu_buffer_upload");
    EXPECT_STATUS(ctx, gpgpu_buffer_download(w, 0, r, 4), E_COMBO);
    EXPECT_NAMED(ctx, "gpgpu_buffer_download");
    /* Recorded, not run. */
    EXPECT(memcmp(hb.map, img, hb.bytes) == 0, "recorded work changed the data before the submit");
    EXPECT(memcmp(rb.map, res_img, sizeof res_img) == 0,
           "recorded work changed the results before the submit");
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), S_OK); /* submits nothing of the caller's */
    EXPECT(memcmp(hb.map, img, hb.bytes) == 0, "gpgpu_finish ran the caller's recorded work");

    VK_OK(vkEndCommandBuffer(cmd));
    submit_and_wait(cmd);
    expect_mapped(&hb, want, 0, 0, U32, NULL, "recorded scans, after the submit");
    check_elems("recorded reductions (bytes outside them untouched too)", U32, rb.map, res_want,
                sizeof res_want / 4, NULL);

    /* Back to the library's own submissions. */
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, VK_NULL_HANDLE), S_OK);
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, SUM, 0}, w, A, NR, r), S_OK);
    EXPECT(r[0] == u32_at(rbase, 2), "a reduce after recording: %u, expected %u", r[0],
           u32_at(rbase, 2));
    EXPECT_STATUS(ctx, gpgpu_buffer_download(res, 8, r, 4), S_OK);
    EXPECT(r[0] == u32_at(rbase, 2), "a download after recording: %u, expected %u", r[0],
           u32_at(rbase, 2));
    vkFreeCommandBuffers(vk.device, vk.pool, 1, &cmd);
    gpgpu_buffer_destroy(w);
    gpgpu_buffer_destroy(res);
    hb_free(&hb);
    hb_free(&rb);
    free(img);
    free(want);
}

/* Counts that stay on the GPU, recorded: reduce-by-key writes its run count to a wrapped
 * word, and a histogram of the unique keys takes its sample count from that word, in one
 * command buffer of the caller's with no readback; asking for the run count on the host
 * meanwhile is refused. */
static void check_recorded_counts(gpgpu_context *ctx)
{
    enum { NR = 30011, BINS = 64, K = 4, U = K + NR + 2, S = U + NR + 2, H = S + NR + 2,
           CW = H + BINS + 1, ELEMS = CW + 2 };
    host_buffer hb = hb_make(4 * ELEMS);
    uint8_t *img = xmalloc(hb.bytes), *want = xmalloc(hb.bytes);
    pattern(img, hb.bytes, 9);
    uint32_t keys[NR];
    for (size_t i = 0; i < NR; i++) /* runs of 1 to 5 keys in [0, BINS) */
        keys[i] = (uint32_t)((i / (1 + i % 5)) % BINS);
    memcpy(img + 4 * K, keys, sizeof keys);
    memcpy(hb.map, img, hb.bytes);
    memcpy(want, img, hb.bytes);
    uint32_t runs = 0, hist[BINS] = {0};
    for (size_t i = 0; i < NR; i++) {
        if (i == 0 || keys[i] != keys[i - 1]) {
            put_u32(want, U + runs, keys[i]);
            put_u32(want, S + runs, 0);
            hist[keys[i]]++;
            runs++;
        }
        put_u32(want, S + runs - 1, u32_at(want, S + runs - 1) + keys[i]);
    }
    for (size_t b = 0; b < BINS; b++)
        put_u32(want, H + b, hist[b]);
    put_u32(want, CW, runs);
    gpgpu_buffer *w = wrap(ctx, &hb, 0, hb.bytes);

    VkCommandBuffer cmd = begin_cmd();
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, cmd), S_OK);
    gpgpu_rle_desc rd = {.type = U32, .count_out = w, .count_out_offset = CW};
    EXPECT_STATUS(ctx, gpgpu_reduce_by_key(ctx, &rd, w, K, w, K, NR, w, U, w, S, NULL), S_OK);
    gpgpu_histogram_desc hd = {.type = U32, .bins = BINS, .lower = 0, .upper = BINS,
                               .count_buffer = w, .count_offset = CW};
    EXPECT_STATUS(ctx, gpgpu_histogram(ctx, &hd, w, U, NR, w, H), S_OK);
    size_t host_runs;
    EXPECT_STATUS(ctx, gpgpu_run_length_encode(ctx, &rd, w, K, NR, w, U, NULL, 0, &host_runs),
                  E_COMBO);
    EXPECT_NAMED(ctx, "gpgpu_run_length_encode");
    EXPECT(memcmp(hb.map, img, hb.bytes) == 0, "recorded work changed the data before the submit");
    VK_OK(vkEndCommandBuffer(cmd));
    submit_and_wait(cmd);
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, VK_NULL_HANDLE), S_OK);
    /* The outputs past the run count keep their pattern. */
    expect_mapped(&hb, want, 0, 0, U32, NULL, "recorded reduce-by-key and histogram");
    vkFreeCommandBuffers(vk.device, vk.pool, 1, &cmd);
    gpgpu_buffer_destroy(w);
    hb_free(&hb);
    free(img);
    free(want);
}

/* A pipeline with its counts on the GPU, recorded into one command buffer: a selection
 * writes its count into an indirect draw's command, a sort, a gather of 16-byte records
 * and a scan take their count from there; nothing comes back to the host until the
 * submit, and a call that would read back is refused meanwhile. */
static void check_record_counts(gpgpu_context *ctx)
{
    enum { NC = 50020, RW = 4 }; /* the records start at word 2 NC: a whole record */
    const size_t wrap_off = 20;
    /* The test's buffer: keys, flags, then records, from wrap_off. */
    host_buffer hb = hb_make(wrap_off + 4 * (size_t)NC * (2 + RW) + 16);
    pattern(hb.map, hb.bytes, 11);
    float *keys = (float *)(hb.map + wrap_off);
    uint32_t *flags = (uint32_t *)keys + NC, *recs = flags + NC;
    test_random(F32, keys, NC, test_seed++);
    for (size_t i = 0; i < NC; i++)
        flags[i] = (i * 2654435761u >> 7) % 3 != 0;
    test_random(U32, recs, (size_t)NC * RW, test_seed++);
    gpgpu_buffer *w = wrap(ctx, &hb, wrap_off, 4 * (size_t)NC * (2 + RW));
    gpgpu_buffer *sel_keys, *sel_idx, *gathered, *scanned, *cmd_words;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 4 * NC, &sel_keys), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 4 * NC, &sel_idx), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 16 * NC, &gathered), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 4 * NC, &scanned), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 16, &cmd_words), S_OK);
    uint32_t draw[4] = {0xA5A5A5A5u, 1, 0, 0}; /* count, instanceCount, first, baseInstance */
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(cmd_words, 0, draw, sizeof draw), S_OK);

    VkCommandBuffer cmd = begin_cmd();
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, cmd), S_OK);
    gpgpu_select_desc sd = {.type = F32, .flags = w, .flags_offset = NC, .indices_out = sel_idx,
                            .count_out = cmd_words};
    size_t selected;
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &sd, w, 0, sel_keys, 0, NC, &selected), E_COMBO);
    EXPECT_NAMED(ctx, "gpgpu_select");
    EXPECT_STATUS(ctx, gpgpu_select(ctx, &sd, w, 0, sel_keys, 0, NC, NULL), S_OK);
    gpgpu_sort_desc so = {.type = F32, .descending = true, .values_in = sel_idx,
                          .count_buffer = cmd_words};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &so, sel_keys, 0, NULL, 0, NC), S_OK);
    gpgpu_gather_desc gd = {.record_bytes = 4 * RW, .count_buffer = cmd_words};
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &gd, w, 2 * NC / RW, NC, sel_idx, 0, gathered, 0, NC),
                  S_OK);
    gpgpu_scan_desc sc = {.type = U32, .count_buffer = cmd_words};
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &sc, sel_idx, 0, scanned, 0, NC), S_OK);
    VK_OK(vkEndCommandBuffer(cmd));
    submit_and_wait(cmd);
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, VK_NULL_HANDLE), S_OK);

    /* The CPU's pipeline. */
    float *want_k = xmalloc(4 * NC);
    uint32_t *want_i = xmalloc(4 * NC), *want_r = xmalloc(16 * (size_t)NC);
    size_t k = ref_select(F32, 0, 0, false, keys, flags, NULL, NC, want_k, NULL, want_i);
    ref_sort(F32, true, want_k, want_i, k, NULL, 0);
    ref_gather(RW, recs, want_i, k, want_r);
    uint32_t got_cmd[4];
    EXPECT_STATUS(ctx, gpgpu_buffer_download(cmd_words, 0, got_cmd, sizeof got_cmd), S_OK);
    EXPECT(got_cmd[0] == k && got_cmd[1] == 1 && got_cmd[2] == 0 && got_cmd[3] == 0,
           "the draw command after the recorded selection: {%u, %u, %u, %u}, expected {%zu, 1, "
           "0, 0}", got_cmd[0], got_cmd[1], got_cmd[2], got_cmd[3], k);
    float *got_k = xmalloc(4 * NC);
    uint32_t *got_i = xmalloc(4 * NC), *got_r = xmalloc(16 * (size_t)NC), *got_s = xmalloc(4 * NC);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(sel_keys, 0, got_k, 4 * k), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(sel_idx, 0, got_i, 4 * k), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(gathered, 0, got_r, 16 * k), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(scanned, 0, got_s, 4 * k), S_OK);
    check_elems("recorded select + sort: keys", F32, got_k, want_k, k, NULL);
    check_elems("recorded select + sort: indices", U32, got_i, want_i, k, NULL);
    check_elems("recorded gather of the sorted records", U32, got_r, want_r, RW * k, NULL);
    uint32_t acc = 0;
    for (size_t i = 0; i < k; i++)
        want_i[i] = acc += want_i[i];
    check_elems("recorded scan of the sorted indices", U32, got_s, want_i, k, NULL);
    vkFreeCommandBuffers(vk.device, vk.pool, 1, &cmd);
    gpgpu_buffer *bufs[] = {w, sel_keys, sel_idx, gathered, scanned, cmd_words};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        gpgpu_buffer_destroy(bufs[i]);
    hb_free(&hb);
    free(want_k);
    free(want_i);
    free(want_r);
    free(got_k);
    free(got_i);
    free(got_r);
    free(got_s);
}

/* More dispatches in one command buffer than one descriptor pool holds
 * (256 sets): 14 classic in-place scans of 2^20 elements, 20 steps each,
 * and fast scans between them. Repeated inclusive scans of the same range
 * are exact in u32 (mod 2^32). */
static void check_many_dispatches(gpgpu_context *ctx)
{
    enum { NM = 1 << 20, ROUNDS = 14 };
    const size_t wrap_off = 4;
    host_buffer hb = hb_make(wrap_off + 4 * (size_t)NM + 16);
    pattern(hb.map, hb.bytes, 9);
    uint32_t *data = xmalloc(4 * (size_t)NM);
    test_random(U32, data, NM, test_seed++);
    memcpy(hb.map + wrap_off, data, 4 * (size_t)NM);
    uint8_t *want = xmalloc(hb.bytes);
    memcpy(want, hb.map, hb.bytes);
    gpgpu_buffer *w = wrap(ctx, &hb, wrap_off, 4 * (size_t)NM);

    VkCommandBuffer cmd = begin_cmd();
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, cmd), S_OK);
    for (int round = 0; round < ROUNDS; round++) {
        bool fast = round % 4 == 3;
        EXPECT_STATUS(ctx, gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = U32, .algo = fast ? FAST : CLASSIC},
                                      w, 0, w, 0, NM),
                      S_OK);
        uint32_t acc = 0;
        for (size_t i = 0; i < NM; i++)
            data[i] = acc += data[i];
    }
    EXPECT(memcmp(hb.map, want, hb.bytes) == 0, "recorded work ran before the submit");
    VK_OK(vkEndCommandBuffer(cmd));
    submit_and_wait(cmd);
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, VK_NULL_HANDLE), S_OK);
    memcpy(want + wrap_off, data, 4 * (size_t)NM);
    expect_mapped(&hb, want, 0, 0, U32, NULL, "14 recorded scans of 2^20 elements");
    uint32_t r;
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, GPGPU_OP_MAX, 0}, w, NM - 1, 1, &r),
                  S_OK);
    EXPECT(r == data[NM - 1], "the last element reads back as %u, expected %u", r, data[NM - 1]);
    vkFreeCommandBuffers(vk.device, vk.pool, 1, &cmd);
    gpgpu_buffer_destroy(w);
    hb_free(&hb);
    free(data);
    free(want);
}

/* A scratch buffer that recorded work names must outlive the recording:
 * after going back to the library's own submissions, a larger classic
 * reduce grows scratch slot 0 before the caller has even ended its command
 * buffer (the validation layer reports a destroyed buffer otherwise). */
static void check_scratch_outlives_recording(gpgpu_context *ctx)
{
    /* BIG exceeds every earlier use of scratch in this test, so slot 0 grows. */
    enum { NS = 1 << 12, BIG = 1 << 21 };
    host_buffer hb = hb_make(4 * (size_t)BIG + 16);
    uint32_t *data = (uint32_t *)hb.map;
    test_random(U32, data, BIG, test_seed++);
    uint32_t small = 0, big = 0;
    for (size_t i = 0; i < BIG - 1; i++)
        big += data[i];
    for (size_t i = 0; i < NS; i++)
        small += data[i];
    gpgpu_buffer *w = wrap(ctx, &hb, 0, 4 * (size_t)BIG);
    const gpgpu_reduce_desc halving = {U32, GPGPU_OP_SUM, GPGPU_ALGO_CLASSIC_HALVING};

    VkCommandBuffer cmd = begin_cmd();
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, cmd), S_OK);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &halving, w, 0, NS, w, BIG - 1), S_OK);
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, VK_NULL_HANDLE), S_OK);
    uint32_t got = 0;
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &halving, w, 0, BIG - 1, &got), S_OK);
    EXPECT(got == big, "classic reduce after a recording: %u, expected %u", got, big);
    VK_OK(vkEndCommandBuffer(cmd));
    submit_and_wait(cmd);
    EXPECT(data[BIG - 1] == small, "recorded reduce_to_buffer wrote %u, expected %u",
           data[BIG - 1], small);
    vkFreeCommandBuffers(vk.device, vk.pool, 1, &cmd);
    gpgpu_buffer_destroy(w);
    hb_free(&hb);
}

/* -------------------------------------------- objects of another device */

/* A second device on the test's physical device, with a queue and a command buffer: handles
 * that look right but belong to another device, which adopting and recording refuse. */
typedef struct other_device {
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
} other_device;

static other_device other_open(void)
{
    other_device o = {0};
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                     .queueFamilyIndex = vk.family,
                                     .queueCount = 1,
                                     .pQueuePriorities = &priority};
    VkDeviceCreateInfo dev = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &queue};
    VK_OK(vkCreateDevice(vk.physical, &dev, NULL, &o.device));
    vkGetDeviceQueue(o.device, vk.family, 0, &o.queue);
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .queueFamilyIndex = vk.family};
    VK_OK(vkCreateCommandPool(o.device, &pool, NULL, &o.pool));
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = o.pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    VK_OK(vkAllocateCommandBuffers(o.device, &alloc, &o.cmd));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_OK(vkBeginCommandBuffer(o.cmd, &begin));
    return o;
}

static void other_close(other_device *o)
{
    VK_OK(vkEndCommandBuffer(o->cmd));
    vkDestroyCommandPool(o->device, o->pool, NULL);
    vkDestroyDevice(o->device, NULL);
}

/* Adopting refuses a queue of another device, family or index, and a physical device of
 * another instance; recording refuses another device's command buffer. */
static void check_foreign_objects(gpgpu_context *ctx)
{
    other_device o = other_open();
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(vk.physical, &families, NULL);
    VkQueueFamilyProperties *props = xmalloc(families * sizeof *props);
    vkGetPhysicalDeviceQueueFamilyProperties(vk.physical, &families, props);
    uint32_t queues = props[vk.family].queueCount;
    free(props);

    VkInstance second = VK_NULL_HANDLE;
    VkPhysicalDevice second_physical = VK_NULL_HANDLE;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    uint32_t one = 1;
    VK_OK(vkCreateInstance(&info, NULL, &second));
    VkResult r = vkEnumeratePhysicalDevices(second, &one, &second_physical);
    EXPECT(r >= VK_SUCCESS && second_physical, "the second instance has no device (%d)", (int)r);

    const struct {
        const char *what, *message;
        gpgpu_vk_adopt objects;
    } cases[] = {
        {"another device's queue", "not one of the device's",
         {vk.instance, vk.physical, vk.device, o.queue, vk.family, 0}},
        {"a family past the device's", "not a compute family",
         {vk.instance, vk.physical, vk.device, vk.queue, families, 0}},
        /* one past the family's queues; or, where it has more, a queue index the test's
         * queue is not (the test's device was made with one queue: index 1 would not be
         * valid to ask for) */
        {"a queue index past the family's", queues == 1 ? "has 1 queues" : "is not queue",
         {vk.instance, vk.physical, vk.device, queues == 1 ? vk.queue : o.queue, vk.family,
          queues}},
        {"another instance's physical device", "not one of the instance's",
         {vk.instance, second_physical, vk.device, vk.queue, vk.family, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpgpu_context *bad = SENTINEL;
        gpgpu_status s =
            gpgpu_context_create(&(gpgpu_context_desc){.vk_adopt = &cases[i].objects}, &bad);
        EXPECT(s == E_INVALID && bad == NULL &&
                   strstr(gpgpu_last_error(NULL), cases[i].message),
               "adopting %s returned %d (%s): %s", cases[i].what, (int)s, gpgpu_status_string(s),
               gpgpu_last_error(NULL));
        if (bad && bad != SENTINEL)
            gpgpu_context_destroy(bad);
    }
    vkDestroyInstance(second, NULL);

    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, o.cmd), E_INVALID);
    EXPECT_NAMED(ctx, "gpgpu_vk_record_into");
    EXPECT(strstr(gpgpu_last_error(ctx), "not allocated from the context's device"),
           "the message does not say whose command buffer: %s", gpgpu_last_error(ctx));
    /* Still the library's own submissions. */
    uint32_t data[4] = {1, 2, 3, 4}, sum = 0;
    gpgpu_buffer *b = test_buffer(ctx, data, sizeof data);
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, SUM, 0}, b, 0, 4, &sum), S_OK);
    EXPECT(sum == 10, "a reduce after a refused command buffer: %u", sum);
    gpgpu_buffer_destroy(b);
    other_close(&o);
}

/* ------------------------------------------- more calls recorded */

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The other calls that need nothing back from the GPU are recorded too: sorts (the one-tile
 * bitonic sort, radix sort of pairs, a segmented sort), axpby, a dot product left on the GPU,
 * a dense product, a small matrix
 * and SpMV; a write of more than the command buffer holds is refused; the timer reads 0 of
 * recorded work. */
static void check_record_more(gpgpu_context *ctx)
{
    enum { SMALL = 1000, LARGE = 40000, M = 8, CUT = 300 };
    const size_t keys_at = 0, pairs_at = keys_at + SMALL, values_at = pairs_at + LARGE,
                 vec_at = values_at + LARGE, gemm_at = vec_at + 64, seg_at = gemm_at + 3 * M * M,
                 offsets_at = seg_at + SMALL, words = offsets_at + 4;
    host_buffer hb = hb_make(4 * words);
    uint32_t *map = (uint32_t *)(void *)hb.map;
    uint32_t *small = xmalloc(4 * SMALL), *large = xmalloc(4 * LARGE);
    test_random(U32, small, SMALL, test_seed++);
    test_random(U32, large, LARGE, test_seed++);
    for (uint32_t i = 0; i < LARGE; i++)
        large[i] = large[i] * 65536u + i; /* distinct: the pairs' order is the keys' */
    memcpy(map + keys_at, small, 4 * SMALL);
    memcpy(map + seg_at, small, 4 * SMALL);
    map[offsets_at] = 0;
    map[offsets_at + 1] = CUT;
    map[offsets_at + 2] = SMALL;
    memcpy(map + pairs_at, large, 4 * LARGE);
    for (uint32_t i = 0; i < LARGE; i++)
        map[values_at + i] = i;
    float *vec = (float *)(void *)(map + vec_at), *g = (float *)(void *)(map + gemm_at);
    for (int i = 0; i < 64; i++)
        vec[i] = (float)i;
    for (int i = 0; i < 2 * M * M; i++)
        g[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < M * M; i++)
        g[2 * M * M + i] = 0.0f;
    uint32_t row_ptr[5] = {0, 1, 2, 3, 4}, col_idx[4] = {0, 1, 2, 3};
    double values[4] = {2, 3, 4, 5};
    gpgpu_matrix *a = NULL;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = F32},
                                           &(gpgpu_csr){4, 4, 4, row_ptr, col_idx, values}, &a),
                  S_OK);
    gpgpu_buffer *w = wrap(ctx, &hb, 0, 4 * words);
    uint8_t *before = xmalloc(hb.bytes);
    memcpy(before, hb.map, hb.bytes);

    VkCommandBuffer cmd = begin_cmd();
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, cmd), S_OK);
    EXPECT_STATUS(ctx, gpgpu_timer_begin(ctx), S_OK);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = U32}, w, keys_at, NULL, 0,
                                  SMALL),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = U32, .segments = w,
                                                          .segments_offset = offsets_at,
                                                          .segment_count = 2},
                                  w, seg_at, NULL, 0, SMALL),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = U32,
                                                          .algo = GPGPU_ALGO_RADIX,
                                                          .values_in = w,
                                                          .values_in_offset = values_at},
                                  w, pairs_at, NULL, 0, LARGE),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_axpby(ctx, F32, 16, 2.0, w, vec_at, 1.0, w, vec_at + 16), S_OK);
    EXPECT_STATUS(ctx, gpgpu_dot_to_buffer(ctx, F32, 8, w, vec_at, w, vec_at, w, vec_at + 48),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_gemm(ctx, &(gpgpu_gemm_desc){.type = F32}, M, M, M, 1.0, w,
                                  gemm_at, w, gemm_at + M * M, 0.0, w, gemm_at + 2 * M * M),
                  S_OK);
    gpgpu_matrix *recorded = NULL; /* its arrays go into the command buffer */
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = F32},
                                           &(gpgpu_csr){4, 4, 4, row_ptr, col_idx, values},
                                           &recorded),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &(gpgpu_spmv_desc){0}, 1, a, w, vec_at, 0, w,
                                  vec_at + 32),
                  S_OK);
    EXPECT_STATUS(ctx, gpgpu_spmv(ctx, &(gpgpu_spmv_desc){0}, 1, recorded, w, vec_at, 0,
                                  w, vec_at + 40),
                  S_OK);
    double ns = -1;
    EXPECT_STATUS(ctx, gpgpu_timer_end(ctx, &ns), S_OK);
    EXPECT(ns == 0, "the timer gave %g ns of recorded work", ns);
    /* A matrix's arrays past 64 KiB would need the staging buffer while recording. */
    enum { BIG = 20000 };
    uint32_t *big_ptr = xmalloc(4 * (BIG + 1)), *big_idx = xmalloc(4 * BIG);
    double *big_val = xmalloc(8 * BIG);
    for (uint32_t i = 0; i < BIG; i++) {
        big_ptr[i] = i;
        big_idx[i] = i;
        big_val[i] = 1;
    }
    big_ptr[BIG] = BIG;
    gpgpu_matrix *big = SENTINEL;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = F32},
                                           &(gpgpu_csr){BIG, BIG, BIG, big_ptr, big_idx, big_val},
                                           &big),
                  E_COMBO);
    EXPECT(strstr(gpgpu_last_error(ctx), "staging buffer"), "the message does not say why: %s",
           gpgpu_last_error(ctx));
    EXPECT(memcmp(hb.map, before, hb.bytes) == 0, "recorded work ran before the submit");
    VK_OK(vkEndCommandBuffer(cmd));
    submit_and_wait(cmd);
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, VK_NULL_HANDLE), S_OK);

    uint32_t *segmented = xmalloc(4 * SMALL);
    memcpy(segmented, small, 4 * SMALL);
    qsort(segmented, CUT, 4, compare_u32);
    qsort(segmented + CUT, SMALL - CUT, 4, compare_u32);
    EXPECT(memcmp(map + seg_at, segmented, 4 * SMALL) == 0, "a recorded segmented sort: wrong");
    free(segmented);
    qsort(small, SMALL, 4, compare_u32);
    EXPECT(memcmp(map + keys_at, small, 4 * SMALL) == 0, "a recorded bitonic sort: wrong order");
    uint32_t *order = xmalloc(4 * LARGE);
    memcpy(order, large, 4 * LARGE);
    qsort(order, LARGE, 4, compare_u32);
    bool pairs_ok = memcmp(map + pairs_at, order, 4 * LARGE) == 0;
    for (uint32_t i = 0; i < LARGE && pairs_ok; i++)
        pairs_ok = large[map[values_at + i]] == map[pairs_at + i];
    EXPECT(pairs_ok, "a recorded radix sort of pairs: wrong keys or values");
    bool axpby_ok = true, spmv_ok = true;
    for (int i = 0; i < 16; i++)
        axpby_ok &= vec[16 + i] == 2.0f * (float)i + (float)(16 + i);
    for (int i = 0; i < 4; i++)
        spmv_ok &= vec[32 + i] == (float)values[i] * (float)i &&
                   vec[40 + i] == (float)values[i] * (float)i;
    EXPECT(axpby_ok, "a recorded axpby: wrong y");
    EXPECT(vec[48] == 140.0f, "a recorded dot_to_buffer wrote %g, expected 140", vec[48]);
    EXPECT(spmv_ok, "a recorded SpMV: wrong y");
    bool gemm_ok = true;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++) {
            float want = 0;
            for (int k = 0; k < M; k++)
                want += g[i * M + k] * g[M * M + k * M + j];
            gemm_ok &= g[2 * M * M + i * M + j] == want;
        }
    EXPECT(gemm_ok, "a recorded dense product: wrong C");
    vkFreeCommandBuffers(vk.device, vk.pool, 1, &cmd);
    gpgpu_matrix_destroy(recorded);
    gpgpu_matrix_destroy(a);
    gpgpu_buffer_destroy(w);
    hb_free(&hb);
    free(before);
    free(order);
    free(small);
    free(large);
    free(big_ptr);
    free(big_idx);
    free(big_val);
}

/* ---------------------------------------------------------- error codes */

static void check_errors(gpgpu_context *ctx)
{
    host_buffer hb = hb_make(256);
    gpgpu_buffer *w = SENTINEL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_vk(ctx, VK_NULL_HANDLE, 0, 16, &w), E_INVALID);
    EXPECT(w == NULL, "wrap of VK_NULL_HANDLE: *out is not NULL");
    EXPECT_NAMED(ctx, "gpgpu_buffer_wrap_vk");
    w = SENTINEL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_vk(ctx, hb.buffer, 0, 0, &w), E_INVALID);
    EXPECT(w == NULL, "wrap of 0 bytes: *out is not NULL");
    EXPECT_NAMED(ctx, "gpgpu_buffer_wrap_vk");
    static const size_t misaligned[] = {2, 1, 6, 250};
    for (size_t i = 0; i < sizeof misaligned / sizeof *misaligned; i++) {
        w = SENTINEL;
        EXPECT_STATUS(ctx, gpgpu_buffer_wrap_vk(ctx, hb.buffer, misaligned[i], 4, &w), E_ALIGN);
        EXPECT(w == NULL, "wrap at %zu: *out is not NULL", misaligned[i]);
        EXPECT_NAMED(ctx, "gpgpu_buffer_wrap_vk");
    }
    /* A range past SIZE_MAX (the VkBuffer's own size cannot be asked for). */
    w = SENTINEL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_vk(ctx, hb.buffer, SIZE_MAX - 3, 8, &w), E_RANGE);
    EXPECT(w == NULL, "wrap past SIZE_MAX: *out is not NULL");
    EXPECT_NAMED(ctx, "gpgpu_buffer_wrap_vk");
    EXPECT_STATUS(NULL, gpgpu_buffer_wrap_vk(NULL, hb.buffer, 0, 4, &w), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_vk(ctx, hb.buffer, 0, 4, NULL), E_NULL);
    EXPECT_STATUS(NULL, gpgpu_vk_record_into(NULL, VK_NULL_HANDLE), E_NULL);
    /* Leaving a recording that never began is fine. */
    EXPECT_STATUS(ctx, gpgpu_vk_record_into(ctx, VK_NULL_HANDLE), S_OK);

    /* A GL context has no VkBuffers and no command buffers. */
    gpgpu_context *gl = NULL;
    gpgpu_status s = gpgpu_context_create(&(gpgpu_context_desc){.backend = GPGPU_BACKEND_GL}, &gl);
    if (s == S_OK) {
        w = SENTINEL;
        EXPECT_STATUS(gl, gpgpu_buffer_wrap_vk(gl, hb.buffer, 0, 16, &w), E_INVALID);
        EXPECT(w == NULL, "wrap_vk on a GL context: *out is not NULL");
        EXPECT_NAMED(gl, "gpgpu_buffer_wrap_vk");
        VkCommandBuffer cmd = begin_cmd();
        EXPECT_STATUS(gl, gpgpu_vk_record_into(gl, cmd), E_INVALID);
        EXPECT_NAMED(gl, "gpgpu_vk_record_into");
        EXPECT_STATUS(gl, gpgpu_vk_record_into(gl, VK_NULL_HANDLE), E_INVALID);
        VK_OK(vkEndCommandBuffer(cmd));
        vkFreeCommandBuffers(vk.device, vk.pool, 1, &cmd);
        uint32_t one = 1, got = 0;
        gpgpu_buffer *b = test_buffer(gl, &one, 4);
        EXPECT_STATUS(gl, gpgpu_reduce(gl, &(gpgpu_reduce_desc){U32, SUM, 0}, b, 0, 1, &got), S_OK);
        EXPECT(got == 1, "the GL context after the refusals: %u", got);
        gpgpu_buffer_destroy(b);
        gpgpu_context_destroy(gl);
    } else {
        fprintf(stderr, "no GL context (%s): the checks on one are left out\n",
                gpgpu_last_error(NULL));
    }

    /* Adopting needs all four objects. */
    static const char *const missing[] = {"instance", "physical device", "device", "queue"};
    for (int m = 0; m < 4; m++) {
        gpgpu_vk_adopt objects = {vk.instance, vk.physical, vk.device, vk.queue, vk.family, 0};
        switch (m) {
        case 0: objects.instance = VK_NULL_HANDLE; break;
        case 1: objects.physical_device = VK_NULL_HANDLE; break;
        case 2: objects.device = VK_NULL_HANDLE; break;
        default: objects.queue = VK_NULL_HANDLE; break;
        }
        gpgpu_context *bad = SENTINEL;
        s = gpgpu_context_create(&(gpgpu_context_desc){.vk_adopt = &objects}, &bad);
        EXPECT(s == E_NULL, "adopt without a %s returned %d (%s), expected %d: %s", missing[m],
               (int)s, gpgpu_status_string(s), (int)E_NULL, gpgpu_last_error(NULL));
        EXPECT(bad == NULL, "adopt without a %s: *out is not NULL", missing[m]);
        EXPECT(strstr(gpgpu_last_error(NULL), "adopt") != NULL,
               "adopt without a %s: the last error \"%s\" does not say adopt", missing[m],
               gpgpu_last_error(NULL));
        if (bad && bad != SENTINEL)
            gpgpu_context_destroy(bad);
    }
    hb_free(&hb);
}

/* Two contexts on one adopted device, each with its own pipelines and pools. */
static void check_second_adopt(gpgpu_context *ctx)
{
    gpgpu_context *c2 = NULL;
    gpgpu_vk_adopt objects = {vk.instance, vk.physical, vk.device, vk.queue, vk.family, 0};
    EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){.vk_adopt = &objects}, &c2),
                  S_OK);
    if (!c2)
        return;
    host_buffer hb = hb_make(1024);
    for (uint32_t i = 0; i < 256; i++)
        memcpy(hb.map + 4 * i, &i, 4);
    gpgpu_buffer *w1 = wrap(ctx, &hb, 0, 1024), *w2 = wrap(c2, &hb, 0, 1024);
    uint32_t r1 = 0, r2 = 0;
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, SUM, 0}, w1, 0, 256, &r1), S_OK);
    EXPECT_STATUS(c2, gpgpu_reduce(c2, &(gpgpu_reduce_desc){U32, SUM, 0}, w2, 0, 256, &r2), S_OK);
    EXPECT(r1 == 32640 && r2 == 32640, "two adopting contexts: sums %u and %u, expected 32640", r1,
           r2);
    EXPECT_STATUS(c2, gpgpu_reduce(c2, &(gpgpu_reduce_desc){U32, SUM, 0}, w1, 0, 256, &r2),
                  E_INVALID); /* another context's wrap */
    gpgpu_buffer_destroy(w2);
    gpgpu_context_destroy(c2);
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){U32, SUM, 0}, w1, 0, 256, &r1), S_OK);
    EXPECT(r1 == 32640, "after destroying the second context: %u", r1);
    gpgpu_buffer_destroy(w1);
    hb_free(&hb);
}

/* The library's own instance and device, under the layer when
 * GPGPU_VK_VALIDATION is set: the layer has no messenger of the test's there
 * and prints to stdout, so stdout is caught meanwhile and searched. */
static void check_own_device(void)
{
    bool catching = vk.messenger != VK_NULL_HANDLE;
    FILE *log = catching ? tmpfile() : NULL;
    int saved = -1;
    if (log) {
        fflush(stdout);
        saved = dup(1);
        dup2(fileno(log), 1);
    }
    gpgpu_context *own = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){.backend = GPGPU_BACKEND_VULKAN},
                                             &own),
                  S_OK);
    if (own) {
        gpgpu_info info;
        EXPECT_STATUS(own, gpgpu_context_get_info(own, &info), S_OK);
        EXPECT(strcmp(info.platform, "vulkan") == 0, "the library's own device: platform %s",
               info.platform);
        enum { NO = 100000 };
        uint32_t *data = xmalloc(4 * NO), *got = xmalloc(4 * NO), r[2];
        test_random(U32, data, NO, test_seed++);
        gpgpu_buffer *a = test_buffer(own, data, 4 * NO), *b = test_buffer(own, NULL, 4 * NO);
        uint32_t sum = 0;
        for (size_t i = 0; i < NO; i++)
            sum += data[i];
        double ns = 0;
        EXPECT_STATUS(own, gpgpu_timer_begin(own), S_OK);
        for (gpgpu_algo algo = FAST; algo <= GPGPU_ALGO_CLASSIC_STRIDE; algo++) {
            r[0] = 0;
            EXPECT_STATUS(own, gpgpu_reduce(own, &(gpgpu_reduce_desc){U32, SUM, algo}, a, 0, NO, r),
                          S_OK);
            EXPECT(r[0] == sum, "own device: sum by algo %d is %u, expected %u", (int)algo, r[0],
                   sum);
        }
        EXPECT_STATUS(own, gpgpu_timer_end(own, &ns), S_OK);
        for (int classic = 0; classic < 2; classic++) {
            gpgpu_scan_desc d = {.type = U32, .exclusive = true, .algo = classic ? CLASSIC : FAST};
            EXPECT_STATUS(own, gpgpu_scan(own, &d, a, 0, b, 0, NO),
                          S_OK);
            EXPECT_STATUS(own, gpgpu_buffer_download(b, 0, got, 4 * NO), S_OK);
            EXPECT(got[0] == 0 && got[NO - 1] == sum - data[NO - 1],
                   "own device: exclusive scan ends in %u, expected %u", got[NO - 1],
                   sum - data[NO - 1]);
        }
        EXPECT_STATUS(own, gpgpu_buffer_copy(a, 0, b, 8, 4 * (NO - 2)), S_OK);
        EXPECT_STATUS(own, gpgpu_buffer_download(b, 8, got, 4 * (NO - 2)), S_OK);
        EXPECT(memcmp(got, data, 4 * (NO - 2)) == 0, "own device: the copy differs");
        EXPECT_STATUS(own, gpgpu_finish(own), S_OK);
        gpgpu_buffer_destroy(a);
        gpgpu_buffer_destroy(b);
        gpgpu_context_destroy(own);
        free(data);
        free(got);
    }
    if (log) {
        fflush(stdout);
        dup2(saved, 1);
        close(saved);
        rewind(log);
        char line[4096];
        int messages = 0;
        while (fgets(line, sizeof line, log)) {
            fputs(line, stderr);
            if (strstr(line, "Validation") || strstr(line, "VUID"))
                messages++;
        }
        fclose(log);
        EXPECT(messages == 0, "the layer reported %d messages on the library's own device",
               messages);
    }
}

int main(void)
{
    vk_open();
    check_messenger();
    gpgpu_context *ctx = adopt();
    check_errors(ctx);
    check_wrapped(ctx);
    check_record_into(ctx);
    check_record_more(ctx);
    check_foreign_objects(ctx);
    check_recorded_counts(ctx);
    check_record_counts(ctx);
    check_many_dispatches(ctx);
    check_scratch_outlives_recording(ctx);
    check_second_adopt(ctx);
    gpgpu_context_destroy(ctx);
    check_own_device();
    vk_close();
    EXPECT(validation_messages == 0, "the validation layer reported %d messages",
           validation_messages);
    return test_finish();
}
