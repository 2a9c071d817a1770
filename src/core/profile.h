/* GPGPU_PROFILE=1: the GPU time of every dispatch, summed per (family, type, stage) and
 * printed to stderr when the context is destroyed; a developer's tool for finding which stage
 * of a primitive takes the time. The backends stamp their dispatches (src/vk/vk_profile.c:
 * timestamps in the command buffer; src/gl/gl_profile.c: GL timestamp queries) and add the
 * gaps between stamps here. The Vulkan backend also times its host-side calls (allocations,
 * submissions and waits), which a call's wall time holds and its GPU time does not. */
#ifndef GPGPU_CORE_PROFILE_H
#define GPGPU_CORE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec.h"

/* One dispatch's label, kept until its stamp is read. */
typedef struct profile_label {
    const char *family;
    gpgpu_type type;
    uint32_t stage, groups;
    bool host; /* a host row: family names the executor's call, groups counts megabytes; a
                  table holds only dispatch rows or only host rows */
} profile_label;

typedef struct profile_table {
    struct profile_row *rows;
    size_t count, capacity;
} profile_table;

/* Whether GPGPU_PROFILE asks for profiling (set, and not "0"). */
bool profile_wanted(void);
/* The label of dispatch d. */
profile_label profile_label_of(const exec_dispatch *d);
/* Adds one dispatch of `ns` nanoseconds to its row. */
void profile_add(profile_table *t, const profile_label *label, double ns);
/* Prints the rows (longest first) under a line naming the device, if any, and frees them. */
void profile_report(profile_table *t, const char *device);

#endif /* GPGPU_CORE_PROFILE_H */
