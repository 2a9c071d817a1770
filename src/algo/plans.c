/* The tuning plans' defaults, GPGPU_TUNE's table of names, and their resolution for a
 * device (plans.h). */
#include "algo/plans.h"

#include <ctype.h>
#include <string.h>

#include "algo/copy.h"
#include "algo/histogram.h"
#include "algo/reduce.h"
#include "algo/scan.h"
#include "algo/select.h"
#include "algo/sort.h"
#include "algo/spgemm.h"
#include "algo/spmv.h"
#include "algo/vector.h"
#include "core/internal.h"

/* Zero (and AUTO) where the device decides: algo_plans_resolve. */
static const algo_plans defaults = {
    .copy = {.max_groups = COPY_MAX_GROUPS, .items = COPY_ITEMS},
    .reduce = {.items = REDUCE_ITEMS, .max_groups = 0 /* by size: reduce_plan_for */,
               .fold = true},
    .scan = {.items = SCAN_ITEMS, .max_groups = SCAN_MAX_GROUPS, .pass = SCAN_PASS_AUTO,
             .polls = SCAN_POLLS, .reload = SCAN_RELOAD_AUTO},
    .radix = {.items = RADIX_ITEMS, .max_groups = RADIX_MAX_GROUPS, .onesweep = ALGO_AUTO,
              .polls = RADIX_POLLS, .os_keys_program = ALGO_AUTO, .ballot32 = true,
              .os_rank_first = ALGO_AUTO, .small = true, .small_items = RADIX_SMALL_ITEMS},
    .bitonic = {.registers = ALGO_AUTO},
    .spmv = {.merge = true, .merge_wg = SPMV_MERGE_WG, .merge_items = SPMV_MERGE_ITEMS,
             .merge_tiles = SPMV_MERGE_TILES, .merge_slack = SPMV_MERGE_SLACK},
    .vector = {.axpby_items = AXPBY_ITEMS},
    .histogram = {.items = HIST_ITEMS, .max_groups = HIST_MAX_GROUPS, .vec = false, .copies = 1,
                  .runs = false},
    .spgemm = {.rows_tile = true, .rank = SPGEMM_RANK_AUTO, .one_phase = true,
               .esc_keep = SPGEMM_KEEP_VALUES, .esc_packed = true, .esc_carry = true,
               .esc_split = SPGEMM_SPLIT_PRODUCTS, .esc_walk = ALGO_AUTO,
               .compact_entries = 2, .rows_ordered = ALGO_AUTO},
    .select = {.items = SELECT_ITEMS, .wg = SELECT_WG, .single_pass = ALGO_AUTO,
               .staged = ALGO_AUTO,
               .scatter_staged = ALGO_AUTO,
               .staged_parts = SELECT_STAGED_PARTS, .polls = SELECT_POLLS,
               .heads_staged = ALGO_AUTO, .ticket = ALGO_AUTO,
               .heads_single_pass = ALGO_AUTO},
};

/* GPGPU_TUNE's names: (name, plan field, least, most, power of two). Powers of two keep the
 * shaders' index arithmetic and shared arrays simple; the one-sweep and one-group tiles'
 * shapes take any count of 1..64, the histogram's work-groups any count (to fill a device
 * of any number of multiprocessors); modes their enum's values. */
#define POW2_MAX 65536u
#define GROUPS_MAX (1u << 24)
#define PLAN_FIELDS(X)                                                        \
    X(copy_groups, copy.max_groups, 1, GROUPS_MAX, true)                      \
    X(copy_items, copy.items, 1, POW2_MAX, true)                              \
    X(reduce_items, reduce.items, 1, POW2_MAX, true)                          \
    X(reduce_groups, reduce.max_groups, 1, POW2_MAX, true)                    \
    X(reduce_fold, reduce.fold, 0, 1, false)                                  \
    X(scan_items, scan.items, 1, POW2_MAX, true)                              \
    X(scan_groups, scan.max_groups, 1, POW2_MAX, true)                        \
    X(scan_single_pass, scan.pass, 0, 2, false)                               \
    X(scan_chained_items, scan.chained_items, 1, POW2_MAX, true)              \
    X(scan_chained_wg, scan.chained_wg, 1, POW2_MAX, true)                    \
    X(scan_polls, scan.polls, 1, POW2_MAX, true)                              \
    X(scan_chained_reload, scan.reload, 0, 3, false)                          \
    X(radix_items, radix.items, 1, POW2_MAX, true)                            \
    X(radix_groups, radix.max_groups, 1, POW2_MAX, true)                      \
    X(radix_onesweep, radix.onesweep, 0, 2, false)                            \
    X(radix_polls, radix.polls, 1, POW2_MAX, true)                            \
    X(radix_os_items, radix.os_items, 1, 64, false)                           \
    X(radix_os_subgroups, radix.os_subgroups, 1, 64, false)                   \
    X(radix_os_keys_items, radix.os_keys_items, 1, 64, false)                 \
    X(radix_os_keys_subgroups, radix.os_keys_subgroups, 1, 64, false)         \
    X(radix_os_keys_program, radix.os_keys_program, 0, 2, false)              \
    X(radix_ballot32, radix.ballot32, 0, 1, false)                            \
    X(radix_os_rank_first, radix.os_rank_first, 0, 2, false)                  \
    X(bitonic_registers, bitonic.registers, 0, 2, false)                      \
    X(radix_small, radix.small, 0, 1, false)                                  \
    X(radix_small_items, radix.small_items, 1, POW2_MAX, true)                \
    X(radix_small_subgroups, radix.small_subgroups, 1, 64, false)             \
    X(spmv_merge, spmv.merge, 0, 1, false)                                    \
    X(spmv_merge_wg, spmv.merge_wg, 1, POW2_MAX, true)                        \
    X(spmv_merge_items, spmv.merge_items, 1, POW2_MAX, true)                  \
    X(spmv_merge_tiles, spmv.merge_tiles, 1, POW2_MAX, true)                  \
    X(spmv_merge_slack, spmv.merge_slack, 1, POW2_MAX, true)                  \
    X(axpby_items, vector.axpby_items, 1, POW2_MAX, true)                     \
    X(histogram_items, histogram.items, 1, 64, true)                          \
    X(histogram_groups, histogram.max_groups, 1, GROUPS_MAX, false)           \
    X(histogram_vec, histogram.vec, 0, 1, false)                              \
    X(histogram_copies, histogram.copies, 1, 32, true)                        \
    X(histogram_runs, histogram.runs, 0, 1, false)                            \
    X(histogram_queue, histogram.queue, 0, 1, false)                          \
    X(spgemm_rows_tile, spgemm.rows_tile, 0, 1, false)                        \
    X(spgemm_rank, spgemm.rank, 0, SPGEMM_RANK_AUTO, false)                   \
    X(spgemm_one_phase, spgemm.one_phase, 0, 1, false)                        \
    X(spgemm_esc_keep, spgemm.esc_keep, 0, 2, false)                          \
    X(spgemm_esc_packed, spgemm.esc_packed, 0, 1, false)                      \
    X(spgemm_esc_carry, spgemm.esc_carry, 0, 1, false)                        \
    X(spgemm_esc_split, spgemm.esc_split, 1, GROUPS_MAX, true)                \
    X(spgemm_esc_walk, spgemm.esc_walk, 0, 2, false)                          \
    X(spgemm_compact_entries, spgemm.compact_entries, 1, POW2_MAX, true)      \
    X(spgemm_rows_ordered, spgemm.rows_ordered, 0, 2, false)                  \
    X(select_items, select.items, 1, 32, true)                                \
    X(select_wg, select.wg, 1, 1024, true)                                    \
    X(select_single_pass, select.single_pass, 0, 2, false)                    \
    X(select_staged, select.staged, 0, 2, false)                              \
    X(select_scatter_staged, select.scatter_staged, 0, 2, false)              \
    X(select_staged_parts, select.staged_parts, 1, 32, true)                  \
    X(select_polls, select.polls, 1, POW2_MAX, true)                          \
    X(select_heads_staged, select.heads_staged, 0, 2, false)                  \
    X(select_ticket, select.ticket, 0, 2, false)                              \
    X(select_heads_single_pass, select.heads_single_pass, 0, 2, false)

typedef struct plan_name {
    const char *name;
    unsigned least, most;
    bool pow2;
} plan_name;

#define PLAN_INDEX(name, field, least, most, pow2) PLAN_##name,
enum { PLAN_FIELDS(PLAN_INDEX) PLAN_COUNT };
#define PLAN_ENTRY(name, field, least, most, pow2) {#name, least, most, pow2},
static const plan_name names[PLAN_COUNT] = {PLAN_FIELDS(PLAN_ENTRY)};

/* Sets field `which` of p: a switch, so that bool and enum fields take the value by
 * conversion as any assignment does. */
static void plan_put(algo_plans *p, unsigned which, unsigned value)
{
    switch (which) {
#define PLAN_CASE(name, field, least, most, pow2) \
    case PLAN_##name:                             \
        p->field = value;                         \
        break;
        PLAN_FIELDS(PLAN_CASE)
    default:
        break;
    }
}

/* The value of an entry: decimal digits alone, within the field's range. */
static bool plan_value(const plan_name *n, const char *text, size_t len, unsigned *out)
{
    if (len == 0 || len > 10)
        return false;
    unsigned long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)text[i]))
            return false;
        v = v * 10 + (unsigned)(text[i] - '0');
    }
    if (v < n->least || v > n->most || (n->pow2 && (v & (v - 1)) != 0))
        return false;
    *out = (unsigned)v;
    return true;
}

static gpgpu_status plan_entry(algo_plans *p, const char *entry, size_t len)
{
    const char *eq = memchr(entry, '=', len);
    int shown = len > 200 ? 200 : (int)len; /* a message's worth of it */
    CHECK(eq, NULL, GPGPU_ERROR_INVALID_ARGUMENT, "GPGPU_TUNE: '%.*s': expected name=value",
          shown, entry);
    size_t name_len = (size_t)(eq - entry);
    for (unsigned i = 0; i < PLAN_COUNT; i++) {
        const plan_name *n = &names[i];
        if (strlen(n->name) != name_len || memcmp(n->name, entry, name_len) != 0)
            continue;
        unsigned v;
        if (plan_value(n, eq + 1, len - name_len - 1, &v)) {
            plan_put(p, i, v);
            return GPGPU_SUCCESS;
        }
        return ctx_fail(NULL, GPGPU_ERROR_INVALID_ARGUMENT,
                        "GPGPU_TUNE: '%.*s': expected %s in %u..%u", shown, entry,
                        n->pow2 ? "a power of two" : "a whole number", n->least, n->most);
    }
    return ctx_fail(NULL, GPGPU_ERROR_INVALID_ARGUMENT,
                    "GPGPU_TUNE: '%.*s': no plan field is named %.*s (docs/GUIDE.md, Tuning)",
                    shown, entry, (int)(name_len > 64 ? 64 : name_len), entry);
}

gpgpu_status algo_plans_parse(const char *tune, algo_plans *out)
{
    algo_plans p = defaults;
    /* Entries apart by commas; empty ones (a trailing comma) say nothing. A later entry of
     * one name wins. */
    for (const char *at = tune; at && *at;) {
        size_t len = strcspn(at, ",");
        if (len > 0)
            TRY(plan_entry(&p, at, len));
        at += len + (at[len] == ',');
    }
    *out = p;
    return GPGPU_SUCCESS;
}

/* AUTO by the device: ALWAYS where the fact holds, else NEVER. */
static algo_mode by_fact(algo_mode mode, bool fact)
{
    return mode != ALGO_AUTO ? mode : fact ? ALGO_ALWAYS : ALGO_NEVER;
}

static unsigned or_default(unsigned value, unsigned fallback)
{
    return value ? value : fallback;
}

/* The single pass's tiles: on NVIDIA's GL (H100) 512 x 8 held across the look-back up to
 * 2^22 elements, above it 256 x 32 loaded again after it; on Vulkan 256 x 32 held at every
 * size (scan_chained_plan_for says why). */
static void resolve_scan(algo_scan_plan *s, const exec_facts *f)
{
    bool shallow = f->shallow_tiles_pay;
    if (!s->chained_small_max)
        s->chained_small_max = shallow ? SCAN_CHAINED_GL_SMALL_MAX : 0;
    if (!s->chained_small_items)
        s->chained_small_items =
            or_default(s->chained_items, shallow ? SCAN_CHAINED_ITEMS_GL : SCAN_CHAINED_ITEMS);
    if (!s->chained_small_wg)
        s->chained_small_wg = or_default(s->chained_wg, shallow ? SCAN_CHAINED_WG_GL
                                                                : SCAN_CHAINED_WG);
    s->chained_items = or_default(s->chained_items, SCAN_CHAINED_ITEMS);
    s->chained_wg = or_default(s->chained_wg, SCAN_CHAINED_WG);
    if (s->reload == SCAN_RELOAD_AUTO)
        s->reload = f->reload_after_lookback ? SCAN_RELOAD_LARGE : SCAN_RELOAD_NEVER;
}

/* The one-sweep and one-group tiles (radix_plan_for, radix_plan_for_keys and
 * radix_small_plan say why). Keys alone take a tile of their own only where their program
 * pays and no general tile is set by name, unless one of their own fields is. */
static void resolve_radix(algo_radix_plan *r, const exec_facts *f)
{
    bool shallow = f->shallow_tiles_pay;
    bool general_by_name = r->os_subgroups || r->os_items;
    unsigned sub = or_default(r->os_subgroups,
                              shallow ? RADIX_OS_SUBGROUPS_GL : RADIX_OS_SUBGROUPS);
    unsigned items = or_default(r->os_items, shallow ? RADIX_OS_ITEMS_GL : RADIX_OS_ITEMS);
    if (!r->os_keys_subgroups && !r->os_keys_items &&
        (!f->keys_alone_program_pays || general_by_name)) {
        r->os_keys_subgroups = sub;
        r->os_keys_items = items;
    } else {
        /* one of them left unset: the general tile's where that is set or the device's,
         * else the tile for keys alone */
        bool general = general_by_name || shallow;
        r->os_keys_subgroups =
            or_default(r->os_keys_subgroups, general ? sub : RADIX_OS_KEYS_SUBGROUPS);
        r->os_keys_items = or_default(r->os_keys_items, general ? items : RADIX_OS_KEYS_ITEMS);
    }
    r->os_subgroups = sub;
    r->os_items = items;
    r->small_subgroups = or_default(r->small_subgroups, shallow ? RADIX_SMALL_SUBGROUPS_GL
                                                                : RADIX_SMALL_SUBGROUPS);
    /* Below 2^30 keys one-sweep is faster on every device measured (radix_onesweep). */
    r->onesweep = by_fact(r->onesweep, true);
    r->os_rank_first = by_fact(r->os_rank_first, f->rank_before_count_pays);
    r->os_keys_program = by_fact(r->os_keys_program, f->keys_alone_program_pays);
}

void algo_plans_resolve(algo_plans *p, const exec_facts *facts)
{
    resolve_scan(&p->scan, facts);
    resolve_radix(&p->radix, facts);
    p->bitonic.registers = by_fact(p->bitonic.registers, facts->bitonic_registers_pay);
    /* A selection's single pass stages its writes on every device (select.c says why), its
     * counting-first scatter where the device's own stores do not pay (H200 GL, 2^24:
     * reduce-then-scan flagged 115.8 -> 88.9 us, partition 138.2 -> 98.1; Vulkan 2^28:
     * 1041.5 -> 948.0, partition 1245.3 -> 1136.8). */
    if (p->select.scatter_staged == ALGO_AUTO && p->select.staged != ALGO_AUTO)
        p->select.scatter_staged = p->select.staged;
    p->select.scatter_staged =
        by_fact(p->select.scatter_staged, !facts->direct_scatter_stores_pay);
    p->select.staged = by_fact(p->select.staged, true);
    /* Selections count first. H200 GL, 2^24: flagged 177 us in one pass against 88.9, x < 1
     * 128.3 against 110.1; Vulkan (the scatter from the invocations), 2^20 / 2^24 / 2^28:
     * flagged 19.3 / 89.8 / 1137 against 18.0 / 85.3 / 948, x < 1 19.2 / 98.0 / 1290 against
     * 19.0 / 98.4 / 1234. The run heads keep the single pass where it holds its tile well:
     * Vulkan 2^24 / 2^28 runs of 1 159.1 / 2264 us against 171.5 / 2319 counting first. */
    p->select.single_pass = by_fact(p->select.single_pass, false);
    p->select.heads_single_pass =
        by_fact(p->select.heads_single_pass, !facts->reload_after_lookback);
    p->select.heads_staged = by_fact(p->select.heads_staged, false);
    /* Tiles by group index where groups start in order. H200 Vulkan, 2^24 / 2^28: flagged
     * 87.6 / 1119 us against 91.0 / 1155 by ticket, x < 1 97.1 / 1267 against 99.4 / 1305
     * (the ticket's atomic is a round trip before a tile's first load). */
    p->select.ticket = by_fact(p->select.ticket, !facts->groups_start_in_order);
}

algo_plans algo_plans_get(const gpgpu_context *ctx)
{
    return ctx->plans;
}

void algo_plans_set(gpgpu_context *ctx, const algo_plans *plans)
{
    ctx->plans = *plans;
    algo_plans_resolve(&ctx->plans, &ctx->facts);
}
