/* State shared by the Vulkan device code (vk_context.c) and executor (vk_exec.c). */
#ifndef GPGPU_VK_INTERNAL_H
#define GPGPU_VK_INTERNAL_H

#include <vulkan/vulkan.h>

#include "core/kept.h"
#include "core/variant_cache.h"
#include "gpgpu/vulkan.h"
#include "vk/vk_backend.h"

extern const exec_backend vk_exec_backend;

/* Whether a dispatchable handle (a VkQueue, a VkCommandBuffer) was made from `device`. The
 * loader writes the pointer to its dispatch table into the first word of every dispatchable
 * object a driver returns, and a device's queues and command buffers get the device's table
 * (docs/LoaderDriverInterface.md, "Driver Dispatchable Object Creation"); that pointer is
 * unique to a VkDevice, which is why layers key their per-device data on it
 * (docs/LoaderLayerInterface.md, "Hash Maps"), of the Khronos Vulkan-Loader. */
static inline bool vk_of_device(const void *handle, VkDevice device)
{
    return *(void *const *)handle == *(void *const *)(const void *)device;
}

typedef struct vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory; /* VK_NULL_HANDLE for a wrapped buffer */
    VkDeviceSize offset;   /* byte offset of the range in `buffer` */
    VkDeviceSize bytes;    /* the size `buffer` was made with (owned ones) */
    bool caller_used;      /* named by work recorded into a caller's command buffer */
} vk_buffer;

enum { VK_SETS_PER_POOL = 256, VK_TIMESTAMPS = 2, VK_PROFILE_SLOTS = 512 };

typedef struct vk_profile vk_profile; /* vk_profile.c: GPGPU_PROFILE */

typedef struct vk_state {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    bool owns_device; /* false when adopted */
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties memory;
    bool subgroups;
    bool coopmat; /* VK_NV_cooperative_matrix and its features enabled (vk_context.c) */
    bool pipeline_stats; /* GPGPU_PIPELINE_STATS and VK_KHR_pipeline_executable_properties */

    VkCommandPool command_pool;
    VkCommandBuffer cmd;      /* the library's own */
    VkCommandBuffer recording; /* where work goes now: cmd, the caller's, or NULL */
    bool caller_cmd;           /* recording is the caller's command buffer */
    bool barrier_due;          /* work recorded since the last barrier (settle in vk_exec.c) */
    VkFence fence;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipeline_layout;
    VkDescriptorPool descriptor_pool;
    uint32_t sets_used;
    vk_buffer dummy; /* bound where a stage names no buffer */

    variant_cache pipelines; /* handle: the VkPipeline */
    VkShaderModule *modules; /* one per embedded SPIR-V blob, made on first use */

    vk_buffer staging; /* host-visible, persistently mapped */
    VkDeviceSize staging_size;
    void *staging_map;

    /* What work recorded for the caller may still use: freed at destroy. */
    vk_buffer *retired;
    size_t retired_count, retired_capacity;
    kept_list kept; /* freed device buffers kept for reuse (core/kept.h): vk_buffer * */
    VkDescriptorPool *retired_pools;
    size_t retired_pool_count, retired_pool_capacity;

    VkQueryPool timestamps;
    bool timing;       /* a gpgpu_timer measurement is running */
    double timed_ns;   /* GPU time of the submissions so far in it */
    vk_profile *profile; /* NULL unless GPGPU_PROFILE is set */

    char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    uint32_t device_index; /* gpgpu_info.device: the device's number in the list, or 0 */
    char version[64];
    char driver[320];
} vk_state;

static inline vk_state *vk_of(gpgpu_context *ctx) { return ctx->impl; }

/* Turns a VkResult into a status with `what` in the message. */
gpgpu_status vk_check(gpgpu_context *ctx, VkResult result, const char *what);

/* vk_context.c */
gpgpu_status vk_device_open(gpgpu_context *ctx, vk_state *st, const gpgpu_context_desc *desc);
void vk_device_close(vk_state *st);

/* vk_exec.c: the objects every dispatch needs, made once per context. */
gpgpu_status vk_exec_init(gpgpu_context *ctx, vk_state *st);

/* vk_profile.c: per-stage GPU times under GPGPU_PROFILE (each a no-op without it). */
void vk_profile_open(vk_state *st);
void vk_profile_begin(vk_state *st, VkCommandBuffer cmd);
bool vk_profile_full(const vk_state *st);
void vk_profile_mark(vk_state *st, VkCommandBuffer cmd, const exec_dispatch *d);
void vk_profile_collect(vk_state *st);
void vk_profile_close(vk_state *st);
/* Host rows: the clock in ns (0 unless profiling), and a call of `what` begun at `since`. */
double vk_profile_clock(const vk_state *st);
void vk_profile_host(vk_state *st, const char *what, size_t bytes, double since);
/* GPGPU_PIPELINE_STATS=1: the driver's statistics of each pipeline as it is made. */
void vk_pipeline_stats_print(vk_state *st, const exec_variant *v, VkPipeline pipeline);

#endif /* GPGPU_VK_INTERNAL_H */
