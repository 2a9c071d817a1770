/**
 * @file vulkan.h
 * @brief The Vulkan side of libgpgpu: adopting the caller's device, wrapping
 * its VkBuffers, and recording into its command buffers.
 *
 * Available when the library was built with Vulkan (meson -Dvulkan=enabled or
 * auto with libvulkan-dev present); otherwise these functions return
 * GPGPU_ERROR_BACKEND_UNAVAILABLE.
 */
#ifndef GPGPU_VULKAN_H
#define GPGPU_VULKAN_H

#include <vulkan/vulkan.h>

#include "gpgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The caller's Vulkan objects, for gpgpu_context_desc.vk_adopt. The device
 * must have been created with Vulkan 1.1 or newer, a queue of
 * `queue_family_index` that supports compute, and (for f64) the
 * shaderFloat64 feature. The library creates its own command pool, pipelines
 * and descriptor pool on the device and never destroys the adopted objects.
 * The queue is used from the thread that calls the library only; the caller
 * must not use it at the same time (external synchronization, as Vulkan says).
 *
 * Checked at gpgpu_context_create (GPGPU_ERROR_INVALID_ARGUMENT otherwise): the
 * physical device is one of the instance's, the family has compute and a queue
 * of index queue_index, the queue was made from the device (its dispatch table
 * is the device's, as the Vulkan loader sets it) and is what vkGetDeviceQueue
 * gives for (queue_family_index, queue_index), which must be a family and index
 * the device was created with.
 */
struct gpgpu_vk_adopt {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family_index;
    uint32_t queue_index; /**< the queue's index in its family (0 for most devices) */
};

/**
 * Wraps `bytes` bytes of the caller's VkBuffer from byte `offset` (a multiple
 * of 4), without copying. The buffer needs STORAGE_BUFFER, TRANSFER_SRC and
 * TRANSFER_DST usage; the caller keeps it alive until gpgpu_buffer_destroy.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (VK_NULL_HANDLE,
 *   0 bytes, or a context of another backend); GPGPU_ERROR_MISALIGNED;
 *   GPGPU_ERROR_OUT_OF_RANGE (offset + bytes past SIZE_MAX; the VkBuffer's own size is the
 *   caller's to respect, as Vulkan cannot be asked for it);
 *   GPGPU_ERROR_BACKEND_UNAVAILABLE.
 */
GPGPU_API gpgpu_status gpgpu_buffer_wrap_vk(gpgpu_context *ctx, VkBuffer buffer, size_t offset,
                                            size_t bytes, gpgpu_buffer **out);

/**
 * From now on, record the work of gpgpu_scan, gpgpu_reduce_to_buffer and
 * gpgpu_buffer_copy into the caller's command buffer `cmd` (in the recording
 * state) instead of submitting it; the caller submits it. Calls that must
 * read back to the host (gpgpu_reduce, upload, download) then return
 * GPGPU_ERROR_UNSUPPORTED_COMBINATION. Each recorded dispatch is followed by
 * a compute-to-compute/transfer barrier. Pass VK_NULL_HANDLE to go back to
 * the library's own submissions. Scratch buffers that recorded work uses live
 * until the context is destroyed (after vkDeviceWaitIdle). `cmd` must have been
 * allocated from the context's device (checked: its dispatch table is the
 * device's) from a pool of a family that supports compute.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (a context of
 *   another backend, or a command buffer of another device); GPGPU_ERROR_BACKEND_UNAVAILABLE.
 */
GPGPU_API gpgpu_status gpgpu_vk_record_into(gpgpu_context *ctx, VkCommandBuffer cmd);

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_VULKAN_H */
