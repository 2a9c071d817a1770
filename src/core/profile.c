/* The backend-neutral half of GPGPU_PROFILE (profile.h): rows per (family, type, stage). */
#include "core/profile.h"

#include "core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct profile_row {
    profile_label label;
    uint64_t dispatches, groups;
    double ns;
} profile_row;

bool profile_wanted(void)
{
    const char *env = getenv("GPGPU_PROFILE");
    return env && *env && strcmp(env, "0") != 0;
}

profile_label profile_label_of(const exec_dispatch *d)
{
    return (profile_label){.family = d->variant.family, .type = d->variant.type,
                           .stage = d->params[0], .groups = d->groups};
}

static profile_row *row_for(profile_table *t, const profile_label *label)
{
    for (size_t i = 0; i < t->count; i++) {
        const profile_label *l = &t->rows[i].label;
        if (l->family == label->family && l->type == label->type && l->stage == label->stage)
            return &t->rows[i];
    }
    if (!array_reserve((void **)&t->rows, &t->capacity, t->count + 1, sizeof *t->rows))
        return NULL;
    t->rows[t->count] = (profile_row){.label = *label};
    return &t->rows[t->count++];
}

void profile_add(profile_table *t, const profile_label *label, double ns)
{
    profile_row *r = row_for(t, label);
    if (!r)
        return; /* out of host memory: the row goes uncounted */
    r->dispatches++;
    r->groups += label->groups;
    r->ns += ns;
}

static int by_time(const void *x, const void *y)
{
    double a = ((const profile_row *)x)->ns, b = ((const profile_row *)y)->ns;
    return (a < b) - (a > b);
}

void profile_report(profile_table *t, const char *device)
{
    if (t->count && t->rows[0].label.host) {
        qsort(t->rows, t->count, sizeof *t->rows, by_time);
        fprintf(stderr, "GPGPU_PROFILE (%s): host time of the executor's calls\n", device);
        fprintf(stderr, "%-22s %10s %12s %12s\n", "what", "calls", "MB", "us");
        for (size_t i = 0; i < t->count; i++) {
            const profile_row *r = &t->rows[i];
            fprintf(stderr, "%-22s %10llu %12llu %12.1f\n", r->label.family,
                    (unsigned long long)r->dispatches, (unsigned long long)r->groups,
                    r->ns / 1e3);
        }
    } else if (t->count) {
        double total = 0;
        for (size_t i = 0; i < t->count; i++)
            total += t->rows[i].ns;
        qsort(t->rows, t->count, sizeof *t->rows, by_time);
        fprintf(stderr, "GPGPU_PROFILE (%s): %.1f us of dispatches\n", device, total / 1e3);
        fprintf(stderr, "%-10s %-4s %6s %10s %12s %12s %6s\n", "family", "type", "stage",
                "dispatches", "groups", "us", "%");
        for (size_t i = 0; i < t->count; i++) {
            const profile_row *r = &t->rows[i];
            fprintf(stderr, "%-10s %-4s %6u %10llu %12llu %12.1f %6.1f\n", r->label.family,
                    exec_type_tag(r->label.type), r->label.stage,
                    (unsigned long long)r->dispatches, (unsigned long long)r->groups,
                    r->ns / 1e3, total > 0 ? 100 * r->ns / total : 0);
        }
    }
    free(t->rows);
    *t = (profile_table){0};
}
