/* The Vulkan executor: device buffers with a staging buffer for transfers,
 * one compute pipeline per variant (SPIR-V built from glsl/ at build time,
 * work-group size and ITEMS as specialization constants), and one command
 * buffer per public call: every stage is recorded with its pipeline barrier
 * and the whole sequence is submitted once, at a readback or at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spirv_blobs.h"
#include "vk/vk_internal.h"

/* ------------------------------------------------------------- memory */

/* The first memory type in `bits` with every flag of `want` and, where one has them, every
 * flag of `prefer` too. */
static gpgpu_status memory_type(gpgpu_context *ctx, uint32_t bits, VkMemoryPropertyFlags want,
                                VkMemoryPropertyFlags prefer, uint32_t *out)
{
    const VkPhysicalDeviceMemoryProperties *m = &vk_of(ctx)->memory;
    for (int pass = 0; pass < 2; pass++) {
        VkMemoryPropertyFlags need = pass == 0 ? want | prefer : want;
        for (uint32_t i = 0; i < m->memoryTypeCount; i++) {
            if ((bits & (1u << i)) && (m->memoryTypes[i].propertyFlags & need) == need) {
                *out = i;
                return GPGPU_SUCCESS;
            }
        }
    }
    return ctx_fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "vulkan: no memory type with flags 0x%x",
                    (unsigned)want);
}

static void free_buffer(VkDevice device, vk_buffer *b)
{
    if (b->memory) { /* owned */
        vkDestroyBuffer(device, b->buffer, NULL);
        vkFreeMemory(device, b->memory, NULL);
    }
    *b = (vk_buffer){0};
}

static gpgpu_status make_buffer(gpgpu_context *ctx, VkDeviceSize size, VkMemoryPropertyFlags want,
                                vk_buffer *out)
{
    vk_state *st = vk_of(ctx);
    double since = vk_profile_clock(st);
    out->bytes = size;
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    TRY(vk_check(ctx, vkCreateBuffer(st->device, &info, NULL, &out->buffer), "vkCreateBuffer"));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(st->device, out->buffer, &req);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                  .allocationSize = req.size};
    /* Host memory the CPU caches where there is such: downloads are memcpy'd out of it, and
     * uncached (write-combined) memory reads at a fraction of the speed. */
    VkMemoryPropertyFlags prefer =
        want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0;
    gpgpu_status s =
        memory_type(ctx, req.memoryTypeBits, want, prefer, &alloc.memoryTypeIndex);
    if (s == GPGPU_SUCCESS) {
        VkResult r = vkAllocateMemory(st->device, &alloc, NULL, &out->memory);
        if ((r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) &&
            st->kept.count) {
            kept_release(ctx, &st->kept, 0); /* kept memory goes before an allocation fails */
            r = vkAllocateMemory(st->device, &alloc, NULL, &out->memory);
        }
        s = vk_check(ctx, r, "vkAllocateMemory");
    }
    if (s == GPGPU_SUCCESS)
        s = vk_check(ctx, vkBindBufferMemory(st->device, out->buffer, out->memory, 0),
                     "vkBindBufferMemory");
    if (s != GPGPU_SUCCESS) {
        vkDestroyBuffer(st->device, out->buffer, NULL);
        if (out->memory)
            vkFreeMemory(st->device, out->memory, NULL);
        *out = (vk_buffer){0};
    }
    vk_profile_host(st, want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT ? "allocate (host)" : "allocate",
                    size, since);
    return s;
}

/* ------------------------------------------------------ command buffers */

/* The command buffer that work goes into, begun if need be. */
static gpgpu_status recording(gpgpu_context *ctx, VkCommandBuffer *out)
{
    vk_state *st = vk_of(ctx);
    if (!st->recording) {
        VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        TRY(vk_check(ctx, vkBeginCommandBuffer(st->cmd, &begin), "vkBeginCommandBuffer"));
        st->recording = st->cmd;
        if (st->timing) {
            vkCmdResetQueryPool(st->cmd, st->timestamps, 0, VK_TIMESTAMPS);
            vkCmdWriteTimestamp(st->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, st->timestamps, 0);
        }
        if (!st->caller_cmd)
            vk_profile_begin(st, st->cmd);
    }
    *out = st->recording;
    return GPGPU_SUCCESS;
}

/* Everything written before it (shaders, copies) is visible to everything
 * after it: one global barrier, as glMemoryBarrier would be. */
static void barrier(VkCommandBuffer cmd)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                         VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                         VK_ACCESS_HOST_READ_BIT,
    };
    VkPipelineStageFlags stages =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(cmd, stages, stages | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
                         NULL);
}

/* Work is followed by a barrier only once something comes after it: the
 * next command recorded, or the end of the call. So a call's GPU time (the
 * timestamps around it) ends when its last dispatch ends, not after the
 * barrier that makes its writes visible to the host, as a CUDA event after a
 * kernel does; on an H100 that barrier was ~1.5 us of every call's time
 * (docs/DECISIONS.md). */
static void settle(vk_state *st, VkCommandBuffer cmd)
{
    if (st->barrier_due)
        barrier(cmd);
    st->barrier_due = false;
}

/* Polls the fence for a short while before sleeping on it: a blocking wait
 * wakes tens of microseconds after small work has ended, which would be most
 * of a small call's latency. */
static gpgpu_status wait_fence(gpgpu_context *ctx)
{
    vk_state *st = vk_of(ctx);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        VkResult r = vkGetFenceStatus(st->device, st->fence);
        if (r == VK_SUCCESS)
            return GPGPU_SUCCESS;
        if (r != VK_NOT_READY)
            return vk_check(ctx, r, "vkGetFenceStatus");
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) > 200000L)
            break; /* 200 us: long work, sleep instead */
    }
    return vk_check(ctx, vkWaitForFences(st->device, 1, &st->fence, VK_TRUE, UINT64_MAX),
                    "vkWaitForFences");
}

/* Submits what the library recorded and waits for it: the only wait there is. */
static gpgpu_status flush(gpgpu_context *ctx)
{
    vk_state *st = vk_of(ctx);
    if (!st->recording)
        return GPGPU_SUCCESS;
    if (st->caller_cmd) {
        settle(st, st->recording); /* the caller's later commands see the call's writes */
        return GPGPU_SUCCESS;
    }
    double since = vk_profile_clock(st);
    if (st->timing)
        vkCmdWriteTimestamp(st->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, st->timestamps, 1);
    settle(st, st->cmd);
    st->recording = VK_NULL_HANDLE;
    TRY(vk_check(ctx, vkEndCommandBuffer(st->cmd), "vkEndCommandBuffer"));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &st->cmd};
    TRY(vk_check(ctx, vkQueueSubmit(st->queue, 1, &submit, st->fence), "vkQueueSubmit"));
    TRY(wait_fence(ctx));
    vk_profile_host(st, "submit and wait", 0, since);
    vkResetFences(st->device, 1, &st->fence);
    vk_profile_collect(st);
    vkResetCommandBuffer(st->cmd, 0);
    vkResetDescriptorPool(st->device, st->descriptor_pool, 0);
    st->sets_used = 0;
    if (st->timing) {
        uint64_t t[VK_TIMESTAMPS];
        TRY(vk_check(ctx, vkGetQueryPoolResults(st->device, st->timestamps, 0, VK_TIMESTAMPS,
                                                sizeof t, t, sizeof t[0],
                                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                     "vkGetQueryPoolResults"));
        st->timed_ns += (double)(t[1] - t[0]) * st->props.limits.timestampPeriod;
    }
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------ buffers */

static vk_buffer *buf_of(const gpgpu_buffer *buf) { return buf->impl; }

/* A VkBuffer as gpgpu_buffer.storage: a pointer on 64-bit hosts, a uint64_t on 32-bit ones. */
static uint64_t storage_of(VkBuffer buffer)
{
    uint64_t id = 0;
    memcpy(&id, &buffer, sizeof buffer);
    return id;
}

/* Freed device buffers are kept for reuse (core/kept.h). A kept buffer may be taken while
 * work recorded before its free is not yet submitted: every dispatch and copy is ordered after
 * the one before by a full barrier (settle), so its new use comes after its old one. Only
 * freeing it for good needs that work submitted first (kept_settle). */
static void kept_free(gpgpu_context *ctx, void *impl)
{
    free_buffer(vk_of(ctx)->device, impl);
    free(impl);
}

/* Work the library recorded and has not yet submitted may use memory about to be freed (a
 * temporary of the call that is running): it runs first. A failed flush leaves the device
 * idle or lost, so the memory is free to go either way. */
static void kept_settle(gpgpu_context *ctx)
{
    vk_state *st = vk_of(ctx);
    if (st->recording && !st->caller_cmd && flush(ctx) != GPGPU_SUCCESS)
        vkDeviceWaitIdle(st->device);
}

static void vk_trim(gpgpu_context *ctx) { kept_release(ctx, &vk_of(ctx)->kept, 0); }

static gpgpu_status vk_buffer_create(gpgpu_buffer *buf)
{
    gpgpu_context *ctx = buf->ctx;
    vk_state *st = vk_of(ctx);
    double since = vk_profile_clock(st);
    vk_buffer *b = kept_take(&st->kept, buf->size);
    if (b) {
        vk_profile_host(st, "allocate (kept)", buf->size, since);
    } else {
        b = calloc(1, sizeof *b);
        CHECK(b, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
        size_t size = kept_size_class(buf->size);
        kept_make_room(ctx, &st->kept, size);
        gpgpu_status s = make_buffer(ctx, size, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, b);
        if (s != GPGPU_SUCCESS) {
            free(b);
            return s;
        }
    }
    buf->impl = b;
    buf->storage = storage_of(b->buffer);
    buf->storage_offset = 0;
    return GPGPU_SUCCESS;
}

static void vk_buffer_destroy(gpgpu_buffer *buf)
{
    vk_state *st = vk_of(buf->ctx);
    vk_buffer *b = buf_of(buf);
    if (!b)
        return;
    /* Work recorded for the caller may still use it: keep it until destroy. */
    bool caller = st->caller_cmd || b->caller_used;
    if (b->memory && caller) {
        if (ctx_reserve(buf->ctx, (void **)&st->retired, &st->retired_capacity,
                        st->retired_count + 1, sizeof *st->retired) == GPGPU_SUCCESS) {
            st->retired[st->retired_count++] = *b;
            free(b);
            return;
        }
        vkDeviceWaitIdle(st->device); /* no room to keep it: make sure it is unused */
    }
    double since = vk_profile_clock(st);
    /* a caller's buffer is here only if it could not be retired: never kept for reuse */
    if (b->memory && !caller && kept_add(buf->ctx, &st->kept, b, (size_t)b->bytes)) {
        vk_profile_host(st, "free (kept)", buf->size, since);
        return;
    }
    if (b->memory && st->recording && !st->caller_cmd) {
        kept_settle(buf->ctx);
        vk_profile_host(st, "a free's flush", 0, since);
    }
    since = vk_profile_clock(st);
    free_buffer(st->device, b);
    vk_profile_host(st, "free", buf->size, since);
    free(b);
}

static gpgpu_status ensure_staging(gpgpu_context *ctx, VkDeviceSize bytes)
{
    vk_state *st = vk_of(ctx);
    if (st->staging_size >= bytes)
        return GPGPU_SUCCESS;
    if (st->staging.buffer) {
        vkUnmapMemory(st->device, st->staging.memory);
        free_buffer(st->device, &st->staging);
    }
    st->staging_size = 0;
    TRY(make_buffer(ctx, bytes,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                    &st->staging));
    TRY(vk_check(ctx, vkMapMemory(st->device, st->staging.memory, 0, bytes, 0, &st->staging_map),
                 "vkMapMemory"));
    st->staging_size = bytes;
    return GPGPU_SUCCESS;
}

static void record_copy(vk_state *st, VkCommandBuffer cmd, VkBuffer src, VkDeviceSize src_offset,
                        VkBuffer dst, VkDeviceSize dst_offset, VkDeviceSize bytes)
{
    VkBufferCopy region = {.srcOffset = src_offset, .dstOffset = dst_offset, .size = bytes};
    settle(st, cmd);
    vkCmdCopyBuffer(cmd, src, dst, 1, &region);
    st->barrier_due = true;
}

/* Transfers go through the staging buffer in pieces of at most this size. */
#define STAGING_PIECE ((VkDeviceSize)64 << 20)

/* Moves `bytes` bytes between host memory and buf through the staging
 * buffer, a piece at a time: each piece is one submission, since the staging
 * buffer is reused by the next. */
static gpgpu_status staged_transfer(gpgpu_buffer *buf, size_t offset, void *host, size_t bytes,
                                    bool to_device)
{
    gpgpu_context *ctx = buf->ctx;
    vk_state *st = vk_of(ctx);
    vk_buffer *b = buf_of(buf);
    /* A piece is copied when the command buffer runs, which for the caller's is after the
     * next piece (or the next call) has reused the staging memory. */
    CHECK(!st->caller_cmd, ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "a transfer of %zu bytes through the staging buffer cannot be recorded into the "
          "caller's command buffer (writes of whole words up to 64 KiB can); call "
          "gpgpu_vk_record_into with VK_NULL_HANDLE first", bytes);
    double since = vk_profile_clock(st);
    for (size_t done = 0; done < bytes;) {
        VkDeviceSize piece = bytes - done < STAGING_PIECE ? bytes - done : STAGING_PIECE;
        VkDeviceSize at = b->offset + offset + done;
        TRY(ensure_staging(ctx, piece));
        if (to_device)
            memcpy(st->staging_map, (char *)host + done, piece);
        VkCommandBuffer cmd;
        TRY(recording(ctx, &cmd));
        if (to_device)
            record_copy(st, cmd, st->staging.buffer, 0, b->buffer, at, piece);
        else
            record_copy(st, cmd, b->buffer, at, st->staging.buffer, 0, piece);
        TRY(flush(ctx));
        if (!to_device)
            memcpy((char *)host + done, st->staging_map, piece);
        done += piece;
    }
    vk_profile_host(st, to_device ? "write" : "read", bytes, since);
    return GPGPU_SUCCESS;
}

/* A write of at most this many bytes (and whole words at a word offset) is recorded into the
 * command buffer itself: vkCmdUpdateBuffer copies the data when it is recorded, so the write
 * needs no submission of its own. The work after it sees it, and the call's end submits it.
 * Inside a call (SpGEMM's header, SpMV's status words, a chunk's row ids) each such write
 * was a submission and a wait: tens of microseconds of a small product's wall time on an
 * H100 (docs/DECISIONS.md, Backends). 65536 is the command's limit. */
#define RECORDED_WRITE_MAX 65536

static gpgpu_status vk_buffer_write(gpgpu_buffer *buf, size_t offset, const void *data,
                                    size_t bytes)
{
    vk_state *st = vk_of(buf->ctx);
    vk_buffer *b = buf_of(buf);
    VkDeviceSize at = b->offset + offset;
    if (bytes == 0)
        return GPGPU_SUCCESS;
    if (bytes > RECORDED_WRITE_MAX || bytes % 4 != 0 || at % 4 != 0)
        return staged_transfer(buf, offset, (void *)data, bytes, true); /* only read from */
    double since = vk_profile_clock(st);
    VkCommandBuffer cmd;
    TRY(recording(buf->ctx, &cmd));
    b->caller_used |= st->caller_cmd;
    settle(st, cmd);
    vkCmdUpdateBuffer(cmd, b->buffer, at, bytes, data);
    st->barrier_due = true;
    vk_profile_host(st, "write (recorded)", bytes, since);
    return GPGPU_SUCCESS;
}

static gpgpu_status vk_buffer_read(gpgpu_buffer *buf, size_t offset, void *data, size_t bytes)
{
    return staged_transfer(buf, offset, data, bytes, false);
}

static gpgpu_status vk_buffer_copy(gpgpu_buffer *src, size_t src_offset, gpgpu_buffer *dst,
                                   size_t dst_offset, size_t bytes)
{
    VkCommandBuffer cmd;
    TRY(recording(src->ctx, &cmd));
    bool for_caller = vk_of(src->ctx)->caller_cmd;
    buf_of(src)->caller_used |= for_caller;
    buf_of(dst)->caller_used |= for_caller;
    record_copy(vk_of(src->ctx), cmd, buf_of(src)->buffer, buf_of(src)->offset + src_offset,
                buf_of(dst)->buffer, buf_of(dst)->offset + dst_offset, bytes);
    return GPGPU_SUCCESS;
}

/* Bindings start at a multiple of the device's storage offset alignment and
 * of 8, so that the shift tells whether a wrap suits 8-byte elements too. */
static size_t vk_binding_shift(const gpgpu_buffer *buf)
{
    size_t align = (size_t)vk_of(buf->ctx)->props.limits.minStorageBufferOffsetAlignment;
    return (size_t)buf_of(buf)->offset % (align > 8 ? align : 8);
}

/* ------------------------------------------------------------ pipelines */

static gpgpu_status module_for(gpgpu_context *ctx, const exec_variant *v, VkShaderModule *out)
{
    vk_state *st = vk_of(ctx);
    char name[96];
    snprintf(name, sizeof name, "%s.%s.%s%s", v->family, exec_type_tag(v->type), exec_op_tag(v->op),
             st->subgroups ? ".sg" : "");
    for (size_t i = 0; i < spirv_blob_count; i++) {
        if (strcmp(spirv_blobs[i].name, name) != 0)
            continue;
        if (!st->modules[i]) {
            VkShaderModuleCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                             .codeSize = spirv_blobs[i].size_bytes,
                                             .pCode = spirv_blobs[i].words};
            TRY(vk_check(ctx, vkCreateShaderModule(st->device, &info, NULL, &st->modules[i]),
                         "vkCreateShaderModule"));
        }
        *out = st->modules[i];
        return GPGPU_SUCCESS;
    }
    return ctx_fail(ctx, GPGPU_ERROR_SHADER_COMPILE, "vulkan: no SPIR-V built for %s", name);
}

static gpgpu_status pipeline_for(gpgpu_context *ctx, const exec_variant *v, VkPipeline *out)
{
    vk_state *st = vk_of(ctx);
    const variant_entry *known = variant_cache_find(&st->pipelines, v);
    if (known) {
        *out = (VkPipeline)(uintptr_t)known->handle;
        return GPGPU_SUCCESS;
    }
    VkShaderModule module = VK_NULL_HANDLE;
    TRY(module_for(ctx, v, &module));
    /* WG_SIZE, ITEMS, ONLY_STAGE, SHAPE0..3 in common.glsl: constant i at byte 4 i */
    const uint32_t constants[3 + EXEC_SHAPE_COUNT] = {v->wg_size, v->items, v->only_stage,
                                                      v->shape[0], v->shape[1], v->shape[2],
                                                      v->shape[3]};
    VkSpecializationMapEntry entries[3 + EXEC_SHAPE_COUNT];
    for (uint32_t i = 0; i < 3 + EXEC_SHAPE_COUNT; i++)
        entries[i] = (VkSpecializationMapEntry){i, 4 * i, 4};
    VkSpecializationInfo spec = {.mapEntryCount = 3 + EXEC_SHAPE_COUNT, .pMapEntries = entries,
                                 .dataSize = sizeof constants, .pData = constants};
    VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main",
                  .pSpecializationInfo = &spec},
        .layout = st->pipeline_layout,
        .flags = st->pipeline_stats ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0,
    };
    TRY(vk_check(ctx, vkCreateComputePipelines(st->device, VK_NULL_HANDLE, 1, &info, NULL, out),
                 "vkCreateComputePipelines"));
    if (st->pipeline_stats)
        vk_pipeline_stats_print(st, v, *out);
    gpgpu_status s = variant_cache_add(ctx, &st->pipelines,
                                       (variant_entry){.key = *v, .handle = (uintptr_t)*out});
    if (s != GPGPU_SUCCESS)
        vkDestroyPipeline(st->device, *out, NULL);
    return s;
}

/* ------------------------------------------------------- calls and stages */

static gpgpu_status create_descriptor_pool(gpgpu_context *ctx, VkDescriptorPool *out)
{
    VkDescriptorPoolSize sizes = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  VK_SETS_PER_POOL * EXEC_MAX_BINDINGS};
    VkDescriptorPoolCreateInfo dp = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = VK_SETS_PER_POOL,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &sizes};
    return vk_check(ctx, vkCreateDescriptorPool(vk_of(ctx)->device, &dp, NULL, out),
                    "vkCreateDescriptorPool");
}

/* Sets in a caller's command buffer live as long as it may be pending: their
 * pool is kept until destroy, and a new one takes over. */
static gpgpu_status retire_descriptor_pool(gpgpu_context *ctx)
{
    vk_state *st = vk_of(ctx);
    TRY(ctx_reserve(ctx, (void **)&st->retired_pools, &st->retired_pool_capacity,
                    st->retired_pool_count + 1, sizeof *st->retired_pools));
    st->retired_pools[st->retired_pool_count++] = st->descriptor_pool;
    st->descriptor_pool = VK_NULL_HANDLE;
    st->sets_used = 0;
    return create_descriptor_pool(ctx, &st->descriptor_pool);
}

static gpgpu_status descriptor_set(gpgpu_context *ctx, const exec_dispatch *d, VkDescriptorSet *out)
{
    vk_state *st = vk_of(ctx);
    if (st->sets_used == VK_SETS_PER_POOL) {
        if (st->caller_cmd) {
            TRY(retire_descriptor_pool(ctx));
        } else {
            /* A long classic run: submit what is recorded so the pool can be reset. */
            TRY(flush(ctx));
        }
    }
    VkDescriptorSetAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = st->descriptor_pool,
                                         .descriptorSetCount = 1,
                                         .pSetLayouts = &st->set_layout};
    TRY(vk_check(ctx, vkAllocateDescriptorSets(st->device, &alloc, out), "vkAllocateDescriptorSets"));
    st->sets_used++;
    VkDescriptorBufferInfo infos[EXEC_MAX_BINDINGS];
    VkWriteDescriptorSet writes[EXEC_MAX_BINDINGS];
    for (uint32_t i = 0; i < EXEC_MAX_BINDINGS; i++) {
        const gpgpu_buffer *buf = d->bind[i];
        if (buf) {
            size_t shift = vk_binding_shift(buf); /* algo_check_range checked the range */
            infos[i] = (VkDescriptorBufferInfo){buf_of(buf)->buffer, buf_of(buf)->offset - shift,
                                                buf->size + shift};
            buf_of(buf)->caller_used |= st->caller_cmd;
        } else {
            infos[i] = (VkDescriptorBufferInfo){st->dummy.buffer, 0, VK_WHOLE_SIZE};
        }
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                           .dstSet = *out,
                                           .dstBinding = i,
                                           .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .pBufferInfo = &infos[i]};
    }
    vkUpdateDescriptorSets(st->device, EXEC_MAX_BINDINGS, writes, 0, NULL);
    return GPGPU_SUCCESS;
}

static gpgpu_status vk_dispatch(gpgpu_context *ctx, const exec_dispatch *d)
{
    vk_state *st = vk_of(ctx);
    if (d->groups == 0)
        return GPGPU_SUCCESS;
    VkPipeline pipeline;
    TRY(pipeline_for(ctx, &d->variant, &pipeline));
    VkDescriptorSet set;
    TRY(descriptor_set(ctx, d, &set));
    VkCommandBuffer cmd;
    TRY(recording(ctx, &cmd));
    settle(st, cmd);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, st->pipeline_layout, 0, 1, &set,
                            0, NULL);
    vkCmdPushConstants(cmd, st->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       sizeof d->params, d->params);
    /* Wider than the x limit: spread over y; shaders use invocation_index(). */
    uint32_t gx = d->groups, gy = 1;
    if (gx > st->props.limits.maxComputeWorkGroupCount[0]) {
        gx = 32768;
        gy = (d->groups + gx - 1) / gx;
    }
    vkCmdDispatch(cmd, gx, gy, 1);
    st->barrier_due = true;
    vk_profile_mark(st, cmd, d);
    if (vk_profile_full(st))
        return flush(ctx);
    return GPGPU_SUCCESS;
}

static gpgpu_status vk_begin(gpgpu_context *ctx)
{
    (void)ctx;
    return GPGPU_SUCCESS;
}

static gpgpu_status vk_end(gpgpu_context *ctx)
{
    return flush(ctx);
}

static bool vk_recording_for_caller(gpgpu_context *ctx)
{
    return vk_of(ctx)->caller_cmd;
}

static gpgpu_status vk_timer_begin(gpgpu_context *ctx)
{
    vk_state *st = vk_of(ctx);
    TRY(flush(ctx)); /* earlier work stays out of the measurement */
    st->timing = true;
    st->timed_ns = 0;
    return GPGPU_SUCCESS;
}

static gpgpu_status vk_timer_end(gpgpu_context *ctx, double *gpu_ns)
{
    vk_state *st = vk_of(ctx);
    gpgpu_status s = flush(ctx);
    st->timing = false;
    *gpu_ns = st->timed_ns;
    return s;
}

static gpgpu_status vk_finish(gpgpu_context *ctx)
{
    TRY(flush(ctx));
    return vk_check(ctx, vkQueueWaitIdle(vk_of(ctx)->queue), "vkQueueWaitIdle");
}

static void vk_destroy(gpgpu_context *ctx)
{
    vk_state *st = vk_of(ctx);
    if (!st)
        return;
    if (st->device) {
        vkDeviceWaitIdle(st->device);
        for (size_t i = 0; i < st->retired_count; i++)
            free_buffer(st->device, &st->retired[i]);
        kept_list_free(ctx, &st->kept);
        for (size_t i = 0; i < st->pipelines.count; i++)
            vkDestroyPipeline(st->device, (VkPipeline)(uintptr_t)st->pipelines.entries[i].handle,
                              NULL);
        for (size_t i = 0; st->modules && i < spirv_blob_count; i++)
            if (st->modules[i])
                vkDestroyShaderModule(st->device, st->modules[i], NULL);
        if (st->staging.buffer)
            vkUnmapMemory(st->device, st->staging.memory);
        free_buffer(st->device, &st->staging);
        free_buffer(st->device, &st->dummy);
        vk_profile_close(st);
        vkDestroyQueryPool(st->device, st->timestamps, NULL);
        vkDestroyDescriptorPool(st->device, st->descriptor_pool, NULL);
        for (size_t i = 0; i < st->retired_pool_count; i++)
            vkDestroyDescriptorPool(st->device, st->retired_pools[i], NULL);
        vkDestroyPipelineLayout(st->device, st->pipeline_layout, NULL);
        vkDestroyDescriptorSetLayout(st->device, st->set_layout, NULL);
        vkDestroyFence(st->device, st->fence, NULL);
        vkDestroyCommandPool(st->device, st->command_pool, NULL);
    }
    vk_device_close(st);
    free(st->retired);
    free(st->retired_pools);
    variant_cache_free(&st->pipelines);
    free(st->modules);
    free(st);
    ctx->impl = NULL;
}

const exec_backend vk_exec_backend = {
    .name = "vulkan",
    .destroy = vk_destroy,
    .buffer_create = vk_buffer_create,
    .buffer_destroy = vk_buffer_destroy,
    .trim = vk_trim,
    .buffer_write = vk_buffer_write,
    .buffer_read = vk_buffer_read,
    .buffer_copy = vk_buffer_copy,
    .binding_shift = vk_binding_shift,
    .begin = vk_begin,
    .end = vk_end,
    .dispatch = vk_dispatch,
    .recording_for_caller = vk_recording_for_caller,
    .timer_begin = vk_timer_begin,
    .timer_end = vk_timer_end,
    .finish = vk_finish,
};

/* ------------------------------------------------------------ creation */

gpgpu_status vk_exec_init(gpgpu_context *ctx, vk_state *st)
{
    VkDevice dev = st->device;
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = st->queue_family};
    TRY(vk_check(ctx, vkCreateCommandPool(dev, &pool, NULL, &st->command_pool), "vkCreateCommandPool"));
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = st->command_pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    TRY(vk_check(ctx, vkAllocateCommandBuffers(dev, &alloc, &st->cmd), "vkAllocateCommandBuffers"));
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    TRY(vk_check(ctx, vkCreateFence(dev, &fence, NULL, &st->fence), "vkCreateFence"));

    VkDescriptorSetLayoutBinding bindings[EXEC_MAX_BINDINGS];
    for (uint32_t i = 0; i < EXEC_MAX_BINDINGS; i++)
        bindings[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo layout = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = EXEC_MAX_BINDINGS,
        .pBindings = bindings};
    TRY(vk_check(ctx, vkCreateDescriptorSetLayout(dev, &layout, NULL, &st->set_layout),
                 "vkCreateDescriptorSetLayout"));
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                EXEC_PARAM_COUNT * sizeof(uint32_t)};
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &st->set_layout,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &push};
    TRY(vk_check(ctx, vkCreatePipelineLayout(dev, &pl, NULL, &st->pipeline_layout),
                 "vkCreatePipelineLayout"));
    TRY(create_descriptor_pool(ctx, &st->descriptor_pool));
    VkQueryPoolCreateInfo qp = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = VK_TIMESTAMPS};
    TRY(vk_check(ctx, vkCreateQueryPool(dev, &qp, NULL, &st->timestamps), "vkCreateQueryPool"));
    vk_profile_open(st);
    st->modules = calloc(spirv_blob_count, sizeof *st->modules);
    CHECK(st->modules, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    bool host_device = st->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    /* H200: a selection's tiles by group index 3-4% faster than by ticket (plans.c). */
    ctx->facts.groups_start_in_order = !host_device;
    st->kept = kept_list_for(ctx, KEPT_DEFAULT_LIMIT(ctx->info.device_memory_bytes, host_device),
                             kept_free, kept_settle);
    return make_buffer(ctx, 256, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &st->dummy);
}

gpgpu_status vk_backend_create(gpgpu_context *ctx, const gpgpu_context_desc *desc)
{
    vk_state *st = calloc(1, sizeof *st);
    CHECK(st, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    ctx->impl = st;
    ctx->exec = &vk_exec_backend;
    /* Measured on the H100 and H200 (docs/DECISIONS.md): NVIDIA's Vulkan compiler keeps large
     * tiles in registers across loops well, so the register-heavy forms pay: one-sweep
     * ranking first (2^28 keys u32 2.3% faster), bitonic register stages (2^24 keys 7327 ->
     * 6313 us), the keys-alone program's 384 x 20 tile (2^28 keys 11633 -> 10104 us); the
     * scan's tiles held across the look-back (2^28 u32 772 against 933 us reloaded), 256 x 32
     * at every size, and the one-sweep's 8 x 16 ahead of GL's wider 24 x 6; a selection's
     * counting-first scatter stored from its invocations (2^28 flagged 1041.5 -> 948.0 us,
     * partition 1245.3 -> 1136.8; level at 2^24). */
    ctx->facts = (exec_facts){.rank_before_count_pays = true, .bitonic_registers_pay = true,
                              .keys_alone_program_pays = true,
                              .direct_scatter_stores_pay = true};
    gpgpu_status s = vk_device_open(ctx, st, desc);
    if (s == GPGPU_SUCCESS)
        s = vk_exec_init(ctx, st);
    if (s != GPGPU_SUCCESS)
        vk_destroy(ctx);
    return s;
}

/* ------------------------------------------------------------ public API */

static gpgpu_status attach_vk(gpgpu_buffer *buf, const void *handle, size_t offset)
{
    VkBuffer buffer = *(const VkBuffer *)handle;
    CHECK(buffer != VK_NULL_HANDLE, buf->ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_buffer_wrap_vk: the buffer is VK_NULL_HANDLE");
    vk_buffer *b = calloc(1, sizeof *b);
    CHECK(b, buf->ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    *b = (vk_buffer){.buffer = buffer, .offset = offset};
    buf->impl = b;
    buf->storage = storage_of(buffer); /* a second wrap of `buffer` is the same memory */
    buf->storage_offset = offset;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_buffer_wrap_vk(gpgpu_context *ctx, VkBuffer buffer, size_t offset, size_t bytes,
                                  gpgpu_buffer **out)
{
    return buffer_wrap(ctx, &vk_exec_backend, offset, bytes, out, "gpgpu_buffer_wrap_vk",
                       attach_vk, &buffer);
}

gpgpu_status gpgpu_vk_record_into(gpgpu_context *ctx, VkCommandBuffer cmd)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(ctx->exec == &vk_exec_backend, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_vk_record_into: the context's backend is %s, not vulkan", ctx->exec->name);
    vk_state *st = vk_of(ctx);
    /* Recorded with the library's pipelines and buffers, which are this device's alone. */
    CHECK(cmd == VK_NULL_HANDLE || vk_of_device(cmd, st->device), ctx,
          GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_vk_record_into: the command buffer was not allocated from the context's "
          "device");
    TRY(flush(ctx));
    if (st->caller_cmd && st->sets_used > 0)
        TRY(retire_descriptor_pool(ctx));
    st->recording = cmd;
    st->caller_cmd = cmd != VK_NULL_HANDLE;
    return GPGPU_SUCCESS;
}
