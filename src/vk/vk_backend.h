/* The Vulkan backend, as the rest of the library sees it. */
#ifndef GPGPU_VK_BACKEND_H
#define GPGPU_VK_BACKEND_H

#include "core/internal.h"

/* Makes or adopts a Vulkan device, fills ctx->impl, ctx->exec and ctx->info. */
gpgpu_status vk_backend_create(gpgpu_context *ctx, const gpgpu_context_desc *desc);

/* The physical devices gpgpu_context_desc.device counts (gpgpu_device_count): 0 without a
 * Vulkan driver. */
uint32_t vk_device_count(void);

#include <vulkan/vulkan.h>

/* Whether the physical device offers the device extension `name` (also for
 * the GL backend's Vulkan memory, src/gl/gl_vkmem.c). */
bool vk_has_device_extension(VkPhysicalDevice physical, const char *name);

#endif /* GPGPU_VK_BACKEND_H */
