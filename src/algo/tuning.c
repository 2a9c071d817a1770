#include "algo/tuning.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "algo/copy.h"
#include "algo/reduce.h"
#include "algo/scan.h"
#include "algo/sort.h"
#include "algo/spgemm.h"
#include "algo/spmv.h"
#include "algo/vector.h"

static algo_tuning tuning = {
    .copy_max_groups = COPY_MAX_GROUPS,
    .copy_items = COPY_ITEMS,
    .reduce_items = REDUCE_ITEMS,
    .reduce_max_groups = 0, /* by size: reduce_plan_for */
    .reduce_fold = 1,
    .scan_items = SCAN_ITEMS,
    .scan_max_groups = SCAN_MAX_GROUPS,
    .scan_single_pass = 1,
    .scan_chained_items = 0, /* by backend: scan_chained_plan_for */
    .scan_chained_wg = 0,    /* likewise */
    .scan_polls = SCAN_POLLS,
    .scan_chained_reload = 1, /* GL's large tiles: scan_chained_plan_for */
    .radix_items = RADIX_ITEMS,
    .radix_max_groups = RADIX_MAX_GROUPS,
    .radix_onesweep = 1,
    .radix_polls = RADIX_POLLS,
    .radix_os_items = 0,     /* by backend: radix_plan_for */
    .radix_os_subgroups = 0, /* likewise */
    .radix_os_keys_items = 0,     /* likewise, keys alone */
    .radix_os_keys_subgroups = 0, /* likewise */
    .radix_ballot32 = 1,
    .radix_os_rank_first = 1, /* by backend: radix_plan_for */
    .bitonic_registers = 1, /* by backend: bitonic.c */
    .radix_small = 1,
    .radix_small_items = RADIX_SMALL_ITEMS,
    .spmv_merge = 1,
    .spmv_merge_wg = SPMV_MERGE_WG,
    .spmv_merge_items = SPMV_MERGE_ITEMS,
    .spmv_merge_tiles = SPMV_MERGE_TILES,
    .spmv_merge_slack = SPMV_MERGE_SLACK,
    .axpby_items = AXPBY_ITEMS,
    .spgemm_rows_tile = 1,
    .spgemm_rank = SPGEMM_RANK_AUTO,
    .spgemm_one_phase = 1, /* where it fits: spgemm_one_phase_fits */
    .spgemm_esc_keep = 2,
    .spgemm_esc_packed = 1,
    .spgemm_esc_carry = 1,
    .spgemm_esc_split = SPGEMM_SPLIT_PRODUCTS,
    .spgemm_esc_walk = 1,
    .spgemm_compact_entries = 2,
    .spgemm_rows_ordered = 1,
};
static once_flag tuning_once = ONCE_FLAG_INIT;

/* Powers of two keep the shaders' index arithmetic and shared arrays simple;
 * modes take 0, 1 or 2 (programs 0 to 4); counts (the one-sweep tile's shape) any of 1..64. */
enum knob_kind { KNOB_POW2, KNOB_MODE, KNOB_PROGRAM, KNOB_COUNT, KNOB_GROUPS };
static void set(unsigned *field, const char *value, enum knob_kind kind)
{
    if (kind == KNOB_COUNT) {
        unsigned long v = strtoul(value, NULL, 10);
        if (v >= 1 && v <= 64)
            *field = (unsigned)v;
        else
            fprintf(stderr, "libgpgpu: GPGPU_TUNE: %s is not in 1..64, ignored\n", value);
        return;
    }
    if (kind == KNOB_MODE || kind == KNOB_PROGRAM) {
        char last = kind == KNOB_MODE ? '2' : '4';
        if (value[0] >= '0' && value[0] <= last && value[1] == '\0')
            *field = (unsigned)(value[0] - '0');
        else
            fprintf(stderr, "libgpgpu: GPGPU_TUNE: %s is not in 0..%c, ignored\n", value, last);
        return;
    }
    unsigned long v = strtoul(value, NULL, 10), most = kind == KNOB_GROUPS ? 1ul << 24 : 65536;
    if (v >= 1 && v <= most && (v & (v - 1)) == 0)
        *field = (unsigned)v;
    else
        fprintf(stderr, "libgpgpu: GPGPU_TUNE: %s is not a power of two in 1..%lu, ignored\n",
                value, most);
}

static void read_env(void)
{
    static const struct {
        const char *name;
        unsigned *field;
        enum knob_kind kind;
    } knobs[] = {
        {"copy_groups", &tuning.copy_max_groups, KNOB_GROUPS},
        {"copy_items", &tuning.copy_items, KNOB_POW2},
        {"reduce_items", &tuning.reduce_items, KNOB_POW2},
        {"reduce_groups", &tuning.reduce_max_groups, KNOB_POW2},
        {"reduce_fold", &tuning.reduce_fold, KNOB_MODE},
        {"scan_items", &tuning.scan_items, KNOB_POW2},
        {"scan_groups", &tuning.scan_max_groups, KNOB_POW2},
        {"scan_single_pass", &tuning.scan_single_pass, KNOB_MODE},
        {"scan_chained_items", &tuning.scan_chained_items, KNOB_POW2},
        {"scan_chained_wg", &tuning.scan_chained_wg, KNOB_POW2},
        {"scan_polls", &tuning.scan_polls, KNOB_POW2},
        {"scan_chained_reload", &tuning.scan_chained_reload, KNOB_MODE},
        {"radix_items", &tuning.radix_items, KNOB_POW2},
        {"radix_groups", &tuning.radix_max_groups, KNOB_POW2},
        {"radix_onesweep", &tuning.radix_onesweep, KNOB_MODE},
        {"radix_polls", &tuning.radix_polls, KNOB_POW2},
        {"radix_os_items", &tuning.radix_os_items, KNOB_COUNT},
        {"radix_os_subgroups", &tuning.radix_os_subgroups, KNOB_COUNT},
        {"radix_os_keys_items", &tuning.radix_os_keys_items, KNOB_COUNT},
        {"radix_os_keys_subgroups", &tuning.radix_os_keys_subgroups, KNOB_COUNT},
        {"radix_ballot32", &tuning.radix_ballot32, KNOB_MODE},
        {"radix_os_rank_first", &tuning.radix_os_rank_first, KNOB_MODE},
        {"bitonic_registers", &tuning.bitonic_registers, KNOB_MODE},
        {"radix_small", &tuning.radix_small, KNOB_MODE},
        {"radix_small_items", &tuning.radix_small_items, KNOB_POW2},
        {"radix_small_subgroups", &tuning.radix_small_subgroups, KNOB_COUNT},
        {"spmv_merge", &tuning.spmv_merge, KNOB_MODE},
        {"spmv_merge_wg", &tuning.spmv_merge_wg, KNOB_POW2},
        {"spmv_merge_items", &tuning.spmv_merge_items, KNOB_POW2},
        {"spmv_merge_tiles", &tuning.spmv_merge_tiles, KNOB_POW2},
        {"spmv_merge_slack", &tuning.spmv_merge_slack, KNOB_POW2},
        {"axpby_items", &tuning.axpby_items, KNOB_POW2},
        {"spgemm_rows_tile", &tuning.spgemm_rows_tile, KNOB_MODE},
        {"spgemm_rank", &tuning.spgemm_rank, KNOB_PROGRAM},
        {"spgemm_one_phase", &tuning.spgemm_one_phase, KNOB_MODE},
        {"spgemm_esc_keep", &tuning.spgemm_esc_keep, KNOB_MODE},
        {"spgemm_esc_packed", &tuning.spgemm_esc_packed, KNOB_MODE},
        {"spgemm_esc_carry", &tuning.spgemm_esc_carry, KNOB_MODE},
        {"spgemm_esc_split", &tuning.spgemm_esc_split, KNOB_GROUPS},
        {"spgemm_esc_walk", &tuning.spgemm_esc_walk, KNOB_MODE},
        {"spgemm_compact_entries", &tuning.spgemm_compact_entries, KNOB_POW2},
        {"spgemm_rows_ordered", &tuning.spgemm_rows_ordered, KNOB_MODE},
    };
    const char *env = getenv("GPGPU_TUNE");
    char copy[256];
    if (!env || strlen(env) >= sizeof copy)
        return;
    strcpy(copy, env);
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        bool known = false;
        for (size_t i = 0; eq && i < sizeof knobs / sizeof knobs[0]; i++) {
            if (strncmp(item, knobs[i].name, (size_t)(eq - item)) == 0 &&
                knobs[i].name[eq - item] == '\0') {
                set(knobs[i].field, eq + 1, knobs[i].kind);
                known = true;
            }
        }
        if (!known)
            fprintf(stderr, "libgpgpu: GPGPU_TUNE: unknown knob '%s', ignored\n", item);
    }
}

const algo_tuning *algo_tuning_get(void)
{
    call_once(&tuning_once, read_env);
    return &tuning;
}
