/* GPGPU_PROFILE=1 on the Vulkan backend (core/profile.h): a timestamp follows every
 * dispatch (after its barrier), so a dispatch's time is the gap to the previous stamp and
 * includes any copy recorded between the two. It costs a query per dispatch and an early
 * submission every VK_PROFILE_SLOTS - 1 dispatches, so it is off unless asked for. The host
 * rows time what the executor does on the CPU (allocations, submissions and their waits). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/profile.h"
#include "vk/vk_internal.h"

struct vk_profile {
    VkQueryPool pool;
    uint32_t used; /* stamps written in the recording: 0 = the start, i = after dispatch i */
    profile_label label[VK_PROFILE_SLOTS];
    profile_table table;
    profile_table host; /* the executor's host-side calls */
};

void vk_profile_open(vk_state *st)
{
    if (!profile_wanted())
        return;
    vk_profile *p = calloc(1, sizeof *p);
    VkQueryPoolCreateInfo qp = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = VK_PROFILE_SLOTS};
    if (!p || vkCreateQueryPool(st->device, &qp, NULL, &p->pool) != VK_SUCCESS) {
        fprintf(stderr, "GPGPU_PROFILE: no query pool, profiling off\n");
        free(p);
        return;
    }
    st->profile = p;
}

void vk_profile_begin(vk_state *st, VkCommandBuffer cmd)
{
    vk_profile *p = st->profile;
    if (!p)
        return;
    vkCmdResetQueryPool(cmd, p->pool, 0, VK_PROFILE_SLOTS);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, p->pool, 0);
    p->used = 1;
}

bool vk_profile_full(const vk_state *st)
{
    return st->profile && st->profile->used == VK_PROFILE_SLOTS;
}

void vk_profile_mark(vk_state *st, VkCommandBuffer cmd, const exec_dispatch *d)
{
    vk_profile *p = st->profile;
    if (!p || p->used == 0 || p->used == VK_PROFILE_SLOTS)
        return;
    p->label[p->used] = profile_label_of(d);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, p->pool, p->used++);
}

void vk_profile_collect(vk_state *st)
{
    vk_profile *p = st->profile;
    if (!p || p->used < 2) {
        if (p)
            p->used = 0;
        return;
    }
    uint64_t t[VK_PROFILE_SLOTS];
    uint32_t n = p->used;
    p->used = 0;
    if (vkGetQueryPoolResults(st->device, p->pool, 0, n, sizeof t, t, sizeof t[0],
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
        return;
    for (uint32_t i = 1; i < n; i++)
        profile_add(&p->table, &p->label[i],
                    (double)(t[i] - t[i - 1]) * st->props.limits.timestampPeriod);
}

double vk_profile_clock(const vk_state *st)
{
    if (!st->profile)
        return 0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

void vk_profile_host(vk_state *st, const char *what, size_t bytes, double since)
{
    if (!st->profile)
        return;
    profile_label label = {.family = what, .groups = (uint32_t)(bytes >> 20), .host = true};
    profile_add(&st->profile->host, &label, vk_profile_clock(st) - since);
}

void vk_profile_close(vk_state *st)
{
    vk_profile *p = st->profile;
    if (!p)
        return;
    st->profile = NULL;
    vkDestroyQueryPool(st->device, p->pool, NULL);
    profile_report(&p->table, st->device_name);
    profile_report(&p->host, st->device_name);
    free(p);
}

/* GPGPU_PIPELINE_STATS=1: what the driver reports of each pipeline as it is made (NVIDIA:
 * registers per invocation, shared memory, local memory for spills), one line per
 * pipeline on stderr; the registers bound how many work-groups an SM holds. */
void vk_pipeline_stats_print(vk_state *st, const exec_variant *v, VkPipeline pipeline)
{
    PFN_vkGetPipelineExecutableStatisticsKHR statistics =
        (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(
            st->device, "vkGetPipelineExecutableStatisticsKHR");
    VkPipelineExecutableInfoKHR which = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                         .pipeline = pipeline};
    uint32_t count = 0;
    if (!statistics || statistics(st->device, &which, &count, NULL) != VK_SUCCESS)
        return;
    VkPipelineExecutableStatisticKHR stat[32];
    if (count > 32)
        count = 32;
    for (uint32_t i = 0; i < count; i++)
        stat[i] = (VkPipelineExecutableStatisticKHR){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
    VkResult r = statistics(st->device, &which, &count, stat);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return;
    fprintf(stderr, "GPGPU_PIPELINE_STATS %s %s wg %u items %u stage %u shape %u,%u,%u,%u:",
            v->family, exec_type_tag(v->type), v->wg_size, v->items, v->only_stage, v->shape[0],
            v->shape[1], v->shape[2], v->shape[3]);
    for (uint32_t i = 0; i < count; i++) {
        const VkPipelineExecutableStatisticKHR *s = &stat[i];
        fprintf(stderr, " %s=", s->name);
        switch (s->format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
            fprintf(stderr, "%u", s->value.b32);
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
            fprintf(stderr, "%lld", (long long)s->value.i64);
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
            fprintf(stderr, "%llu", (unsigned long long)s->value.u64);
            break;
        default:
            fprintf(stderr, "%g", s->value.f64);
            break;
        }
    }
    fputc('\n', stderr);
}
