/* GPGPU_PROFILE=1: the GPU time of every dispatch on the Vulkan backend, summed per
 * (family, type, stage) and printed to stderr when the context is destroyed. A developer's
 * tool for finding which stage of a primitive takes the time: a timestamp follows every
 * dispatch (after its barrier), so a dispatch's time is the gap to the previous stamp and
 * includes any copy recorded between the two. It costs a query per dispatch and an early
 * submission every VK_PROFILE_SLOTS - 1 dispatches, so it is off unless asked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk/vk_internal.h"

typedef struct vk_profile_row {
    const char *family;
    gpgpu_type type;
    uint32_t stage;
    uint64_t dispatches, groups;
    double ns;
} vk_profile_row;

struct vk_profile {
    VkQueryPool pool;
    uint32_t used; /* stamps written in the recording: 0 = the start, i = after dispatch i */
    struct {
        const char *family;
        gpgpu_type type;
        uint32_t stage, groups;
    } label[VK_PROFILE_SLOTS];
    vk_profile_row *rows;
    size_t count, capacity;
};

void vk_profile_open(vk_state *st)
{
    const char *env = getenv("GPGPU_PROFILE");
    if (!env || !*env || !strcmp(env, "0"))
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
    p->label[p->used].family = d->variant.family;
    p->label[p->used].type = d->variant.type;
    p->label[p->used].stage = d->params[0];
    p->label[p->used].groups = d->groups;
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, p->pool, p->used++);
}

static vk_profile_row *row_for(vk_profile *p, const char *family, gpgpu_type type,
                               uint32_t stage)
{
    for (size_t i = 0; i < p->count; i++)
        if (p->rows[i].family == family && p->rows[i].type == type && p->rows[i].stage == stage)
            return &p->rows[i];
    if (p->count == p->capacity) {
        size_t cap = p->capacity ? 2 * p->capacity : 64;
        vk_profile_row *r = realloc(p->rows, cap * sizeof *r);
        if (!r)
            return NULL;
        p->rows = r;
        p->capacity = cap;
    }
    p->rows[p->count] = (vk_profile_row){.family = family, .type = type, .stage = stage};
    return &p->rows[p->count++];
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
    for (uint32_t i = 1; i < n; i++) {
        vk_profile_row *r = row_for(p, p->label[i].family, p->label[i].type, p->label[i].stage);
        if (!r)
            return;
        r->dispatches++;
        r->groups += p->label[i].groups;
        r->ns += (double)(t[i] - t[i - 1]) * st->props.limits.timestampPeriod;
    }
}

static int by_time(const void *x, const void *y)
{
    double a = ((const vk_profile_row *)x)->ns, b = ((const vk_profile_row *)y)->ns;
    return (a < b) - (a > b);
}

static void report(const vk_state *st, vk_profile *p)
{
    double total = 0;
    for (size_t i = 0; i < p->count; i++)
        total += p->rows[i].ns;
    qsort(p->rows, p->count, sizeof *p->rows, by_time);
    fprintf(stderr, "GPGPU_PROFILE (%s): %.1f us of dispatches\n", st->device_name, total / 1e3);
    fprintf(stderr, "%-10s %-4s %6s %10s %12s %12s %6s\n", "family", "type", "stage",
            "dispatches", "groups", "us", "%");
    for (size_t i = 0; i < p->count; i++) {
        const vk_profile_row *r = &p->rows[i];
        fprintf(stderr, "%-10s %-4s %6u %10llu %12llu %12.1f %6.1f\n", r->family,
                exec_type_tag(r->type), r->stage, (unsigned long long)r->dispatches,
                (unsigned long long)r->groups, r->ns / 1e3, total > 0 ? 100 * r->ns / total : 0);
    }
}

void vk_profile_close(vk_state *st)
{
    vk_profile *p = st->profile;
    if (!p)
        return;
    st->profile = NULL;
    vkDestroyQueryPool(st->device, p->pool, NULL);
    if (p->count)
        report(st, p);
    free(p->rows);
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
