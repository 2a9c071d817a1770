/**
 * @file vulkan.h
 * @brief The Vulkan side of libgpgpu: adopting the caller's device, wrapping
 * its VkBuffers, and recording into its command buffers.
 *
 * Available when the library was built with Vulkan (meson -Dvulkan=enabled or
 * auto with libvulkan-dev present); a build without it installs no gpgpu/vulkan.h and
 * exports none of these functions (gpgpu_context_create then refuses
 * GPGPU_BACKEND_VULKAN with GPGPU_ERROR_BACKEND_UNAVAILABLE). The calls follow gpgpu.h's
 * rules (@ref errors "Errors", @ref threads "Thread safety").
 */
#ifndef GPGPU_VULKAN_H
#define GPGPU_VULKAN_H

#include <vulkan/vulkan.h>

#include "gpgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup vulkan Vulkan interop
 * @brief Adopting the caller's device, wrapping its VkBuffers, recording into its command
 * buffers.
 * @{
 */

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
    VkInstance instance;              /**< the instance the device was made from */
    VkPhysicalDevice physical_device; /**< one of the instance's physical devices */
    VkDevice device;                  /**< the device the library makes its objects on */
    VkQueue queue;                    /**< the queue its work is submitted to */
    uint32_t queue_family_index;      /**< the queue's family, which must support compute */
    uint32_t queue_index; /**< the queue's index in its family (0 for most devices) */
};

/**
 * @brief Wraps `bytes` bytes of the caller's VkBuffer from byte `offset` (a multiple
 * of 4), without copying.
 *
 * The buffer needs STORAGE_BUFFER, TRANSFER_SRC and
 * TRANSFER_DST usage; the caller keeps it alive until gpgpu_buffer_destroy.
 * @param[in] ctx a Vulkan context.
 * @param buffer the caller's buffer, made on the context's device.
 * @param offset the first byte of the wrap in it, a multiple of 4.
 * @param bytes the size of the wrap, at least 1.
 * @param[out] out receives the wrap; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the wrap.
 * @retval GPGPU_ERROR_NULL_POINTER ctx or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT buffer is VK_NULL_HANDLE, bytes is 0, or the context
 *   is of another backend.
 * @retval GPGPU_ERROR_MISALIGNED offset is not a multiple of 4.
 * @retval GPGPU_ERROR_OUT_OF_RANGE offset + bytes past SIZE_MAX (the VkBuffer's own size is
 *   the caller's to respect, as Vulkan cannot be asked for it).
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime The wrap lives until gpgpu_buffer_destroy; the VkBuffer must outlive it
 *   and the work recorded with it.
 */
GPGPU_API gpgpu_status gpgpu_buffer_wrap_vk(gpgpu_context *ctx, VkBuffer buffer, size_t offset,
                                            size_t bytes, gpgpu_buffer **out);

/**
 * @brief From now on, record the context's work into the caller's command buffer `cmd`
 * instead of submitting it; the caller submits it.
 *
 * `cmd` is in the recording state. The calls that need nothing back from the GPU are
 * recorded: gpgpu_scan, gpgpu_reduce_to_buffer, gpgpu_buffer_copy, gpgpu_sort, gpgpu_select
 * (with `selected` NULL: its count goes to desc.count_out), gpgpu_gather and gpgpu_scatter
 * (their index check then reports through desc.status_out), gpgpu_histogram,
 * gpgpu_segmented_reduce, gpgpu_run_length_encode and gpgpu_reduce_by_key (with `runs`
 * NULL), gpgpu_axpby, gpgpu_dot_to_buffer, gpgpu_gemm, gpgpu_spmv (not CLASSIC_SPMV) and
 * gpgpu_matrix_create of arrays of at most 64 KiB each (docs/GUIDE.md, "What can be
 * recorded"). Counts can stay
 * on the GPU between the recorded calls (their descs' count_buffer). Calls that must
 * read back to the host (gpgpu_reduce, gpgpu_dot, gpgpu_axpby_dot, gpgpu_select with
 * `selected`, upload, download, gpgpu_matrix_wrap_csr and _validate, SpGEMM, the tuners)
 * then return
 * GPGPU_ERROR_UNSUPPORTED_COMBINATION. Each recorded dispatch is followed by
 * a compute-to-compute/transfer barrier. Pass VK_NULL_HANDLE to go back to
 * the library's own submissions. Scratch buffers that recorded work uses live
 * until the context is destroyed (after vkDeviceWaitIdle). `cmd` must have been
 * allocated from the context's device (checked: its dispatch table is the
 * device's) from a pool of a family that supports compute. Work the library recorded
 * before is submitted and waited for first.
 * @param[in] ctx a Vulkan context.
 * @param cmd the command buffer, or VK_NULL_HANDLE.
 * @retval GPGPU_SUCCESS the context records into cmd (or submits again).
 * @retval GPGPU_ERROR_NULL_POINTER ctx is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a context of another backend, or a command buffer of
 *   another device.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY submitting earlier work, or a new descriptor pool, ran
 *   out of memory.
 * @retval GPGPU_ERROR_BACKEND submitting earlier work failed.
 * @thread_safety The thread that uses `ctx`; cmd is the caller's to synchronize, as Vulkan
 *   says of command buffers.
 * @pointer_lifetime cmd must stay in the recording state while calls record into it, until
 *   gpgpu_vk_record_into names another (or VK_NULL_HANDLE); the buffers and descriptor sets
 *   the recorded work uses are kept until the context's destroy.
 */
GPGPU_API gpgpu_status gpgpu_vk_record_into(gpgpu_context *ctx, VkCommandBuffer cmd);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_VULKAN_H */
