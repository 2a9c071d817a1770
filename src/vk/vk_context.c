/* Where the Vulkan device comes from: the library's own instance and device
 * (a device with a compute queue; GPGPU_VK_DEVICE=<index> picks one), or
 * the caller's (gpgpu_context_desc.vk_adopt). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk/vk_internal.h"

gpgpu_status vk_check(gpgpu_context *ctx, VkResult result, const char *what)
{
    if (result == VK_SUCCESS)
        return GPGPU_SUCCESS;
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
        return ctx_fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: out of memory (VkResult %d)", what,
                        (int)result);
    return ctx_fail(ctx, GPGPU_ERROR_BACKEND, "%s failed (VkResult %d)", what, (int)result);
}

static bool has_layer(const char *name)
{
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, NULL);
    VkLayerProperties *layers = calloc(count ? count : 1, sizeof *layers);
    bool found = false;
    if (layers && vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++)
            found = strcmp(layers[i].layerName, name) == 0;
    free(layers);
    return found;
}

static gpgpu_status create_instance(gpgpu_context *ctx, vk_state *st, bool validation)
{
    static const char *const layer = "VK_LAYER_KHRONOS_validation";
    bool with_layer = validation && has_layer(layer);
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "libgpgpu",
        .pEngineName = "libgpgpu",
        .apiVersion = VK_API_VERSION_1_1, /* subgroups are core from 1.1 */
    };
    VkInstanceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pApplicationInfo = &app,
        .enabledLayerCount = with_layer ? 1 : 0,
        .ppEnabledLayerNames = with_layer ? &layer : NULL,
    };
    VkResult r = vkCreateInstance(&info, NULL, &st->instance);
    CHECK(r == VK_SUCCESS, ctx, GPGPU_ERROR_BACKEND_UNAVAILABLE,
          "vulkan: vkCreateInstance failed (VkResult %d): no Vulkan driver?", (int)r);
    return GPGPU_SUCCESS;
}

/* A queue family with compute, or UINT32_MAX. */
static uint32_t compute_family(VkPhysicalDevice device)
{
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, NULL);
    VkQueueFamilyProperties families[32];
    if (count > 32)
        count = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families);
    for (uint32_t i = 0; i < count; i++)
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].timestampValidBits)
            return i;
    return UINT32_MAX;
}

#define VK_MAX_DEVICES 16

/* The physical devices in gpgpu_context_desc.device's order: ascending by deviceUUID (every
 * Vulkan 1.1 device has one), as gl_context.c sorts the EGL devices that give theirs, so that
 * one index names one GPU on both backends. */
static uint32_t list_devices(VkInstance instance, VkPhysicalDevice *out)
{
    VkPhysicalDevice raw[VK_MAX_DEVICES];
    uint8_t uuids[VK_MAX_DEVICES][VK_UUID_SIZE];
    uint32_t count = VK_MAX_DEVICES;

    if (vkEnumeratePhysicalDevices(instance, &count, raw) < 0)
        return 0;
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                         .pNext = &id};
        vkGetPhysicalDeviceProperties2(raw[i], &p);
        uint32_t at = i;
        while (at > 0 && memcmp(id.deviceUUID, uuids[at - 1], VK_UUID_SIZE) < 0) {
            out[at] = out[at - 1];
            memcpy(uuids[at], uuids[at - 1], VK_UUID_SIZE);
            at--;
        }
        out[at] = raw[i];
        memcpy(uuids[at], id.deviceUUID, VK_UUID_SIZE);
    }
    return count;
}

uint32_t vk_device_count(void)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "libgpgpu (device count)",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    VkInstance instance;
    VkPhysicalDevice devices[VK_MAX_DEVICES];

    if (vkCreateInstance(&info, NULL, &instance) != VK_SUCCESS)
        return 0;
    uint32_t count = list_devices(instance, devices);
    vkDestroyInstance(instance, NULL);
    return count;
}

/* desc->device's (1-based in the list), else GPGPU_VK_DEVICE (an index into
 * vkEnumeratePhysicalDevices, as ever), else the first discrete GPU with compute, else the
 * first with compute. */
static gpgpu_status pick_device(gpgpu_context *ctx, vk_state *st, uint32_t device)
{
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(st->instance, &count, NULL);
    CHECK(count > 0, ctx, GPGPU_ERROR_BACKEND_UNAVAILABLE, "vulkan: no physical device");
    VkPhysicalDevice devices[VK_MAX_DEVICES], listed[VK_MAX_DEVICES];
    if (count > VK_MAX_DEVICES)
        count = VK_MAX_DEVICES;
    vkEnumeratePhysicalDevices(st->instance, &count, devices);
    uint32_t listed_count = list_devices(st->instance, listed);
    const char *pick = getenv("GPGPU_VK_DEVICE");
    if (device > 0) {
        CHECK(device <= listed_count, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
              "device %u: there are %u Vulkan devices", device, listed_count);
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(listed[device - 1], &p);
        CHECK(compute_family(listed[device - 1]) != UINT32_MAX, ctx,
              GPGPU_ERROR_INVALID_ARGUMENT,
              "device %u (%s) has no compute queue with timestamps", device, p.deviceName);
        st->physical = listed[device - 1];
    } else if (pick && *pick) {
        int i = atoi(pick);
        CHECK(i >= 0 && (uint32_t)i < count && compute_family(devices[i]) != UINT32_MAX, ctx,
              GPGPU_ERROR_INVALID_ARGUMENT,
              "GPGPU_VK_DEVICE=%s: there are %u devices, or that one has no compute queue", pick,
              count);
        st->physical = devices[i];
    }
    for (int pass = 0; pass < 2 && !st->physical; pass++) {
        for (uint32_t i = 0; i < count && !st->physical; i++) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(devices[i], &p);
            bool wanted = pass == 1 || p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
            if (wanted && compute_family(devices[i]) != UINT32_MAX)
                st->physical = devices[i];
        }
    }
    CHECK(st->physical, ctx, GPGPU_ERROR_BACKEND_UNAVAILABLE,
          "vulkan: no device has a compute queue with timestamps");
    for (uint32_t k = 0; k < listed_count; k++) {
        if (listed[k] == st->physical)
            st->device_index = k + 1;
    }
    return GPGPU_SUCCESS;
}

bool vk_has_device_extension(VkPhysicalDevice physical, const char *name)
{
    uint32_t count = 0;
    vkEnumerateDeviceExtensionProperties(physical, NULL, &count, NULL);
    VkExtensionProperties *props = calloc(count ? count : 1, sizeof *props);
    bool found = false;
    if (props && vkEnumerateDeviceExtensionProperties(physical, NULL, &count, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++)
            found = strcmp(props[i].extensionName, name) == 0;
    free(props);
    return found;
}

/* Whether the device multiplies 16 x 16 x 16 tiles of f16 into f32 accumulators, per
 * subgroup, through VK_NV_cooperative_matrix (what glsl/gemm_coopmat.comp is built for:
 * Debian's glslang has no GL_KHR_cooperative_matrix yet), with the f16 arithmetic and the
 * memory model that its SPIR-V declares. */
static bool coopmat_supported(VkInstance instance, VkPhysicalDevice physical)
{
    if (!vk_has_device_extension(physical, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) ||
        !vk_has_device_extension(physical, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME) ||
        !vk_has_device_extension(physical, VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME))
        return false;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    VkPhysicalDeviceVulkanMemoryModelFeaturesKHR model = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES_KHR, .pNext = &coop};
    VkPhysicalDeviceShaderFloat16Int8FeaturesKHR f16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR, .pNext = &model};
    VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                          .pNext = &f16};
    vkGetPhysicalDeviceFeatures2(physical, &features);
    if (!coop.cooperativeMatrix || !model.vulkanMemoryModel || !f16.shaderFloat16)
        return false;
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV properties =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)vkGetInstanceProcAddr(
            instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV");
    uint32_t count = 0;
    if (!properties || properties(physical, &count, NULL) != VK_SUCCESS)
        return false;
    VkCooperativeMatrixPropertiesNV *shapes = calloc(count ? count : 1, sizeof *shapes);
    bool found = false;
    for (uint32_t i = 0; shapes && i < count; i++)
        shapes[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
    if (shapes && properties(physical, &count, shapes) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++) {
            const VkCooperativeMatrixPropertiesNV *c = &shapes[i];
            found = c->MSize == 16 && c->NSize == 16 && c->KSize == 16 &&
                    c->AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
                    c->BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
                    c->CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
                    c->DType == VK_COMPONENT_TYPE_FLOAT32_NV && c->scope == VK_SCOPE_SUBGROUP_NV;
        }
    free(shapes);
    return found;
}

static gpgpu_status create_device(gpgpu_context *ctx, vk_state *st)
{
    st->queue_family = compute_family(st->physical);
    VkPhysicalDeviceFeatures have;
    vkGetPhysicalDeviceFeatures(st->physical, &have);
    VkPhysicalDeviceFeatures want = {.shaderFloat64 = have.shaderFloat64};
    /* The features of the cooperative-matrix product, where the device has them all. */
    st->coopmat = coopmat_supported(st->instance, st->physical) && !env_on("GPGPU_NO_COOPMAT");
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .cooperativeMatrix = VK_TRUE};
    VkPhysicalDeviceVulkanMemoryModelFeaturesKHR model = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES_KHR,
        .pNext = &coop, .vulkanMemoryModel = VK_TRUE};
    VkPhysicalDeviceShaderFloat16Int8FeaturesKHR f16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR,
        .pNext = &model, .shaderFloat16 = VK_TRUE};
    const char *extensions[4];
    uint32_t extension_count = 0;
    if (st->coopmat) {
        extensions[extension_count++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
        extensions[extension_count++] = VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME;
        extensions[extension_count++] = VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME;
    }
    /* A developer's view of register use and the like (vk_profile.c); off by default
     * because the driver may then skip its pipeline cache. */
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executables = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
        .pNext = st->coopmat ? &f16 : NULL, .pipelineExecutableInfo = VK_TRUE};
    st->pipeline_stats =
        env_on("GPGPU_PIPELINE_STATS") &&
        vk_has_device_extension(st->physical, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (st->pipeline_stats)
        extensions[extension_count++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = st->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = st->pipeline_stats ? (void *)&executables : st->coopmat ? (void *)&f16 : NULL,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extension_count ? extensions : NULL,
        .pEnabledFeatures = &want,
    };
    TRY(vk_check(ctx, vkCreateDevice(st->physical, &info, NULL, &st->device), "vkCreateDevice"));
    vkGetDeviceQueue(st->device, st->queue_family, 0, &st->queue);
    return GPGPU_SUCCESS;
}

static void query_info(gpgpu_context *ctx, vk_state *st, bool adopted)
{
    vkGetPhysicalDeviceProperties(st->physical, &st->props);
    vkGetPhysicalDeviceMemoryProperties(st->physical, &st->memory);
    VkPhysicalDeviceSubgroupProperties sub = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
                                       .pNext = &sub};
    VkPhysicalDeviceDriverProperties driver = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, .pNext = &id};
    VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                          .pNext = &driver};
    vkGetPhysicalDeviceProperties2(st->physical, &props2);
    VkPhysicalDeviceFeatures features;
    vkGetPhysicalDeviceFeatures(st->physical, &features);

    const VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT |
                                          VK_SUBGROUP_FEATURE_VOTE_BIT |
                                          VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
                                          VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                          VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                                          VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
    bool has_subgroups = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                         (sub.supportedOperations & needed) == needed;
    st->subgroups = has_subgroups && !env_on("GPGPU_NO_SUBGROUPS");
    snprintf(st->device_name, sizeof st->device_name, "%s", st->props.deviceName);
    uint32_t v = st->props.apiVersion;
    snprintf(st->version, sizeof st->version, "Vulkan %u.%u.%u", VK_API_VERSION_MAJOR(v),
             VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
    snprintf(st->driver, sizeof st->driver, "%.200s %.100s", driver.driverName, driver.driverInfo);
    const VkPhysicalDeviceLimits *lim = &st->props.limits;
    VkDeviceSize device_local = 0; /* the largest device-local heap */
    for (uint32_t h = 0; h < st->memory.memoryHeapCount; h++)
        if ((st->memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            st->memory.memoryHeaps[h].size > device_local)
            device_local = st->memory.memoryHeaps[h].size;
    ctx->info = (gpgpu_info){
        .backend = "vulkan",
        .platform = adopted ? "vulkan-adopt" : "vulkan",
        .vendor = st->driver,
        .renderer = st->device_name,
        .version = st->version,
        .version_major = (int)VK_API_VERSION_MAJOR(v),
        .version_minor = (int)VK_API_VERSION_MINOR(v),
        /* An adopted device says nothing of what it enabled: trust the support. */
        .has_f64 = features.shaderFloat64,
        .has_subgroups = has_subgroups,
        /* an adopted device: what it enabled is not known, so no cooperative matrices */
        .has_coopmat_f16 = st->coopmat,
        .subgroup_size = sub.subgroupSize,
        .max_workgroup_invocations = lim->maxComputeWorkGroupInvocations,
        .max_workgroup_count_x = lim->maxComputeWorkGroupCount[0],
        .max_shared_memory_bytes = lim->maxComputeSharedMemorySize,
        .max_storage_block_bytes = lim->maxStorageBufferRange,
        .storage_offset_alignment = (size_t)lim->minStorageBufferOffsetAlignment,
        .max_storage_range_bytes = lim->maxStorageBufferRange,
        .device_memory_bytes = (size_t)device_local,
        .device = adopted ? 0 : st->device_index,
        .has_uuid = true,
    };
    memcpy(ctx->info.uuid, id.deviceUUID, sizeof ctx->info.uuid);
}

/* The adopted objects belong together: the physical device is the instance's, the family has
 * compute and the queue index exists there, and the queue is that queue of the device. A
 * queue of another device or family would take command buffers of a pool it cannot run
 * (Vulkan's undefined behaviour, not an error). Only calls that are valid for any handles
 * the caller could have passed are made before the queue is known to be the device's. */
static gpgpu_status check_adopted(gpgpu_context *ctx, const gpgpu_vk_adopt *adopt)
{
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(adopt->instance, &count, NULL);
    VkPhysicalDevice *devices = calloc(count ? count : 1, sizeof *devices);
    CHECK(devices, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    bool found = false;
    if (vkEnumeratePhysicalDevices(adopt->instance, &count, devices) >= VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++)
            found = devices[i] == adopt->physical_device;
    free(devices);
    CHECK(found, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "vulkan adopt: the physical device is not one of the instance's");
    vkGetPhysicalDeviceQueueFamilyProperties(adopt->physical_device, &count, NULL);
    VkQueueFamilyProperties families[32];
    count = count < 32 ? count : 32;
    vkGetPhysicalDeviceQueueFamilyProperties(adopt->physical_device, &count, families);
    uint32_t family = adopt->queue_family_index, index = adopt->queue_index;
    CHECK(family < count && (families[family].queueFlags & VK_QUEUE_COMPUTE_BIT), ctx,
          GPGPU_ERROR_INVALID_ARGUMENT,
          "vulkan adopt: queue family %u is not a compute family of the device (it has %u)",
          family, count);
    CHECK(index < families[family].queueCount, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "vulkan adopt: queue family %u has %u queues, so none of index %u", family,
          families[family].queueCount, index);
    CHECK(vk_of_device(adopt->queue, adopt->device), ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "vulkan adopt: the queue is not one of the device's (made from another VkDevice)");
    VkQueue expected = VK_NULL_HANDLE;
    vkGetDeviceQueue(adopt->device, family, index, &expected);
    CHECK(expected == adopt->queue, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "vulkan adopt: the queue is not queue %u of family %u of the device (set "
          "queue_family_index and queue_index as vkGetDeviceQueue was given them)", index,
          family);
    return GPGPU_SUCCESS;
}

gpgpu_status vk_device_open(gpgpu_context *ctx, vk_state *st, const gpgpu_context_desc *desc)
{
    const gpgpu_vk_adopt *adopt = desc->vk_adopt;
    CHECK(!adopt || desc->device == 0, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "device %u: an adopted Vulkan device is the caller's choice already", desc->device);
    if (adopt) {
        CHECK(adopt->instance && adopt->physical_device && adopt->device && adopt->queue, ctx,
              GPGPU_ERROR_NULL_POINTER, "vulkan adopt: instance, physical device, device and "
              "queue must all be given");
        st->instance = adopt->instance;
        st->physical = adopt->physical_device;
        st->device = adopt->device;
        st->queue = adopt->queue;
        st->queue_family = adopt->queue_family_index;
        TRY(check_adopted(ctx, adopt));
    } else {
        st->owns_device = true;
        TRY(create_instance(ctx, st, desc->debug || env_on("GPGPU_VK_VALIDATION")));
        TRY(pick_device(ctx, st, desc->device));
        TRY(create_device(ctx, st));
    }
    query_info(ctx, st, adopt != NULL);
    CHECK(st->props.apiVersion >= VK_API_VERSION_1_1, ctx, GPGPU_ERROR_BACKEND_UNAVAILABLE,
          "vulkan: %s offers Vulkan %u.%u; 1.1 or newer is needed", st->device_name,
          VK_API_VERSION_MAJOR(st->props.apiVersion), VK_API_VERSION_MINOR(st->props.apiVersion));
    return GPGPU_SUCCESS;
}

void vk_device_close(vk_state *st)
{
    if (!st->owns_device)
        return;
    if (st->device)
        vkDestroyDevice(st->device, NULL);
    if (st->instance)
        vkDestroyInstance(st->instance, NULL);
}
