/* The tuning plans (src/algo/plans.h): the facts each backend reports and the plans they
 * resolve to (the tiles and forms of a stage each backend has measured fastest), GPGPU_TUNE
 * parsed into them by name, what set by name keeps its backend default or not, and
 * algo_plans_set. The failures of a bad GPGPU_TUNE are test_api's (context creation). */
#include <stdlib.h>
#include <string.h>

#include "algo/copy.h"
#include "algo/histogram.h"
#include "algo/scan.h"
#include "algo/select.h"
#include "algo/sort.h"
#include "algo/spgemm.h"
#include "core/internal.h"
#include "testlib.h"

static const exec_facts gl_facts = {.shallow_tiles_pay = true, .reload_after_lookback = true,
                                    .direct_scatter_stores_pay = true};
static const exec_facts vk_facts = {.rank_before_count_pays = true,
                                    .bitonic_registers_pay = true,
                                    .keys_alone_program_pays = true,
                                    .direct_scatter_stores_pay = true};

static algo_plans parsed(const char *tune, const exec_facts *facts)
{
    algo_plans p;
    memset(&p, 0xab, sizeof p); /* a field parse leaves unset shows */
    EXPECT_STATUS(NULL, algo_plans_parse(tune, &p), GPGPU_SUCCESS);
    algo_plans_resolve(&p, facts);
    return p;
}

/* The context's facts are its backend's, and its plans the defaults resolved for them. */
static void check_backend(gpgpu_context *ctx)
{
    gpgpu_info info;
    EXPECT_STATUS(ctx, gpgpu_context_get_info(ctx, &info), GPGPU_SUCCESS);
    bool gl = strcmp(info.backend, "gl") == 0;
    const exec_facts *want = gl ? &gl_facts : &vk_facts;
    const exec_facts *f = &ctx->facts;
    EXPECT(f->shallow_tiles_pay == want->shallow_tiles_pay &&
               f->reload_after_lookback == want->reload_after_lookback &&
               f->rank_before_count_pays == want->rank_before_count_pays &&
               f->bitonic_registers_pay == want->bitonic_registers_pay &&
               f->keys_alone_program_pays == want->keys_alone_program_pays &&
               f->direct_scatter_stores_pay == want->direct_scatter_stores_pay,
           "%s: facts %d %d %d %d %d %d", info.backend, f->shallow_tiles_pay,
           f->reload_after_lookback, f->rank_before_count_pays, f->bitonic_registers_pay,
           f->keys_alone_program_pays, f->direct_scatter_stores_pay);
    algo_plans p = algo_plans_get(ctx);
    /* Whether groups start in order is the device's (a CPU device's do not); GL names no
     * device kind, so it keeps the tickets. */
    EXPECT(!gl || !f->groups_start_in_order, "GL: groups start in order");
    EXPECT(p.select.ticket == (f->groups_start_in_order ? ALGO_NEVER : ALGO_ALWAYS),
           "%s: select_ticket %d with groups in order %d", info.backend, p.select.ticket,
           f->groups_start_in_order);
    EXPECT(p.radix.os_items == (gl ? 6u : 16u) && p.radix.os_subgroups == (gl ? 24u : 8u),
           "%s: one-sweep tile %u x %u", info.backend, p.radix.os_subgroups, p.radix.os_items);
    EXPECT(p.radix.os_keys_items == (gl ? 6u : 20u) &&
               p.radix.os_keys_subgroups == (gl ? 24u : 12u),
           "%s: keys-alone tile %u x %u", info.backend, p.radix.os_keys_subgroups,
           p.radix.os_keys_items);
    algo_mode vk_only = gl ? ALGO_NEVER : ALGO_ALWAYS;
    EXPECT(p.radix.os_rank_first == vk_only && p.radix.os_keys_program == vk_only &&
               p.bitonic.registers == vk_only && p.radix.onesweep == ALGO_ALWAYS,
           "%s: rank first %d, keys program %d, bitonic registers %d, one-sweep %d",
           info.backend, p.radix.os_rank_first, p.radix.os_keys_program, p.bitonic.registers,
           p.radix.onesweep);
    EXPECT(p.radix.small_subgroups == (gl ? 32u : 16u), "%s: one-group sort of %u subgroups",
           info.backend, p.radix.small_subgroups);
    EXPECT(p.scan.reload == (gl ? SCAN_RELOAD_LARGE : SCAN_RELOAD_NEVER) &&
               p.scan.chained_small_max == (gl ? 1u << 22 : 0u),
           "%s: scan reload %d up to %u", info.backend, p.scan.reload, p.scan.chained_small_max);
    /* The single pass's tiles by size: GL 512 x 8 held up to 2^22, then 256 x 32 reloaded;
     * Vulkan 256 x 32 held at every size (large enough that no halving applies). */
    scan_chained_plan small = scan_chained_plan_for(ctx, GPGPU_TYPE_U32, 1u << 22);
    scan_chained_plan large = scan_chained_plan_for(ctx, GPGPU_TYPE_U32, (1u << 22) + 1);
    EXPECT(small.wg == (gl ? 512u : 256u) && small.items == (gl ? 8u : 32u) && !small.reload,
           "%s: scan of 2^22: %u x %u, reload %d", info.backend, small.wg, small.items,
           small.reload);
    EXPECT(large.wg == 256 && large.items == 32 && large.reload == gl,
           "%s: scan of 2^22 + 1: %u x %u, reload %d", info.backend, large.wg, large.items,
           large.reload);
}

/* GPGPU_TUNE by name: a field set by name holds, a later entry wins, empty entries say
 * nothing; fields set by name change what the device's defaults would be. */
static void check_parse(void)
{
    algo_plans p = parsed("reduce_items=8,,scan_single_pass=2,scan_chained_reload=0,"
                          "bitonic_registers=2,spgemm_esc_keep=1,reduce_items=16,",
                          &gl_facts);
    EXPECT(p.reduce.items == 16 && p.scan.pass == SCAN_PASS_SINGLE &&
               p.scan.reload == SCAN_RELOAD_NEVER && p.bitonic.registers == ALGO_ALWAYS &&
               p.spgemm.esc_keep == SPGEMM_KEEP_KEYS,
           "parsed: reduce_items %u, pass %d, reload %d, registers %d, keep %d",
           p.reduce.items, p.scan.pass, p.scan.reload, p.bitonic.registers, p.spgemm.esc_keep);
    EXPECT(p.copy.items == COPY_ITEMS && p.radix.polls == RADIX_POLLS &&
               p.spgemm.esc_split == SPGEMM_SPLIT_PRODUCTS && p.reduce.fold,
           "parsed: defaults of the fields not named lost");
    /* A general one-sweep tile set by name is every sort's, keys alone too ... */
    p = parsed("radix_os_items=5", &vk_facts);
    EXPECT(p.radix.os_items == 5 && p.radix.os_subgroups == 8 && p.radix.os_keys_items == 5 &&
               p.radix.os_keys_subgroups == 8,
           "radix_os_items=5 on Vulkan: %u x %u, keys alone %u x %u", p.radix.os_subgroups,
           p.radix.os_items, p.radix.os_keys_subgroups, p.radix.os_keys_items);
    /* ... unless keys alone have one of their own; the other one then the general tile's */
    p = parsed("radix_os_keys_items=20", &gl_facts);
    EXPECT(p.radix.os_keys_items == 20 && p.radix.os_keys_subgroups == 24 &&
               p.radix.os_keys_program == ALGO_NEVER,
           "radix_os_keys_items=20 on GL: keys alone %u x %u, program %d",
           p.radix.os_keys_subgroups, p.radix.os_keys_items, p.radix.os_keys_program);
    p = parsed("radix_os_keys_subgroups=16", &vk_facts);
    EXPECT(p.radix.os_keys_items == RADIX_OS_KEYS_ITEMS && p.radix.os_keys_subgroups == 16,
           "radix_os_keys_subgroups=16 on Vulkan: keys alone %u x %u",
           p.radix.os_keys_subgroups, p.radix.os_keys_items);
    /* The single pass's tile set by name is the small scans' too. */
    p = parsed("scan_chained_items=16", &gl_facts);
    EXPECT(p.scan.chained_items == 16 && p.scan.chained_small_items == 16 &&
               p.scan.chained_wg == 256 && p.scan.chained_small_wg == 512,
           "scan_chained_items=16 on GL: %u x %u, small %u x %u", p.scan.chained_wg,
           p.scan.chained_items, p.scan.chained_small_wg, p.scan.chained_small_items);
    /* The selection's tile and polls by name; its items at most 32 (a bit a row of the keep
     * mask). */
    p = parsed("select_items=8,select_wg=512,select_polls=4,select_staged=0,"
               "select_staged_parts=1",
               &vk_facts);
    EXPECT(p.select.items == 8 && p.select.wg == 512 && p.select.polls == 4 &&
               p.select.staged == ALGO_NEVER && p.select.scatter_staged == ALGO_NEVER &&
               p.select.staged_parts == 1,
           "select_items=8,select_wg=512,select_polls=4,select_staged=0,select_staged_parts=1: "
           "%u x %u, polls %u, staged %d in %u parts",
           p.select.wg, p.select.items, p.select.polls, p.select.staged,
           p.select.staged_parts);
    p = parsed("", &gl_facts);
    EXPECT(p.select.items == SELECT_ITEMS && p.select.wg == SELECT_WG &&
               p.select.polls == SELECT_POLLS && p.select.staged == ALGO_ALWAYS &&
               p.select.staged_parts == SELECT_STAGED_PARTS,
           "select defaults: %u x %u, polls %u, staged %d", p.select.wg, p.select.items,
           p.select.polls, p.select.staged);
    /* The counting-first scatter: its own stores on GL, staged on Vulkan, unless set. */
    EXPECT(p.select.scatter_staged == ALGO_NEVER, "GL: the scatter staged by default (%d)",
           p.select.scatter_staged);
    p = parsed("", &vk_facts);
    EXPECT(p.select.scatter_staged == ALGO_NEVER, "Vulkan: the scatter staged (%d)",
           p.select.scatter_staged);
    /* Selections count first everywhere; the run heads take one pass where tiles are held
     * well across the look-back. */
    EXPECT(p.select.single_pass == ALGO_NEVER && p.select.heads_single_pass == ALGO_ALWAYS,
           "Vulkan: select single pass %d, heads single pass %d", p.select.single_pass,
           p.select.heads_single_pass);
    exec_facts staged_facts = vk_facts;
    staged_facts.direct_scatter_stores_pay = false;
    p = parsed("", &staged_facts);
    EXPECT(p.select.scatter_staged == ALGO_ALWAYS, "stores not paying: the scatter not staged (%d)",
           p.select.scatter_staged);
    p = parsed("", &gl_facts);
    EXPECT(p.select.single_pass == ALGO_NEVER && p.select.heads_single_pass == ALGO_NEVER,
           "GL: select single pass %d, heads single pass %d", p.select.single_pass,
           p.select.heads_single_pass);
    p = parsed("select_scatter_staged=2", &gl_facts);
    EXPECT(p.select.scatter_staged == ALGO_ALWAYS && p.select.staged == ALGO_ALWAYS,
           "select_scatter_staged=2 on GL: %d, staged %d", p.select.scatter_staged,
           p.select.staged);
    /* The run heads' selection stores from its invocations unless told to stage. */
    EXPECT(p.select.heads_staged == ALGO_NEVER, "the run heads staged by default (%d)",
           p.select.heads_staged);
    /* A selection's tiles by group index where groups start in order, else by ticket. */
    exec_facts in_order = vk_facts;
    in_order.groups_start_in_order = true;
    p = parsed("", &in_order);
    EXPECT(p.select.ticket == ALGO_NEVER, "groups in order: select_ticket %d", p.select.ticket);
    p = parsed("", &vk_facts);
    EXPECT(p.select.ticket == ALGO_ALWAYS, "groups out of order: select_ticket %d",
           p.select.ticket);
    p = parsed("select_ticket=2", &in_order);
    EXPECT(p.select.ticket == ALGO_ALWAYS, "select_ticket=2: %d", p.select.ticket);
    p = parsed("select_heads_staged=2", &vk_facts);
    EXPECT(p.select.heads_staged == ALGO_ALWAYS && p.select.staged == ALGO_ALWAYS,
           "select_heads_staged=2: %d, staged %d", p.select.heads_staged, p.select.staged);
    algo_plans before = p;
    EXPECT_STATUS(NULL, algo_plans_parse("select_items=64", &p), GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(strcmp(gpgpu_last_error(NULL),
                  "GPGPU_TUNE: 'select_items=64': expected a power of two in 1..32") == 0,
           "select_items=64: '%s'", gpgpu_last_error(NULL));
    EXPECT(memcmp(&p, &before, sizeof p) == 0, "a refused GPGPU_TUNE changed the plans");
    /* A resolved plan resolves to itself. */
    p = parsed("scan_chained_items=16", &gl_facts);
    algo_plans again = p;
    algo_plans_resolve(&again, &vk_facts);
    EXPECT(again.scan.chained_small_items == 16 && again.scan.chained_small_wg == 512 &&
               again.radix.os_keys_items == p.radix.os_keys_items &&
               again.radix.os_keys_subgroups == p.radix.os_keys_subgroups &&
               again.scan.reload == p.scan.reload && again.bitonic.registers == ALGO_NEVER,
           "a GL plan resolved again for Vulkan changed");
}

/* The histogram's fields: their defaults, each by name, any count of work-groups (a
 * multiple of a device's multiprocessors), powers of two for the samples and copies. */
static void check_histogram(void)
{
    algo_plans p = parsed("", &vk_facts);
    const algo_histogram_plan *h = &p.histogram;
    EXPECT(h->items == HIST_ITEMS && h->max_groups == HIST_MAX_GROUPS && !h->vec &&
               h->copies == 1 && !h->runs && !h->queue,
           "histogram defaults: items %u, groups %u, vec %d, copies %u, runs %d, queue %d",
           h->items, h->max_groups, h->vec, h->copies, h->runs, h->queue);
    p = parsed("histogram_items=32,histogram_groups=792,histogram_vec=1,histogram_copies=8,"
               "histogram_runs=1,histogram_queue=1",
               &gl_facts);
    EXPECT(h->items == 32 && h->max_groups == 792 && h->vec && h->copies == 8 && h->runs &&
               h->queue,
           "histogram by name: items %u, groups %u, vec %d, copies %u, runs %d, queue %d",
           h->items, h->max_groups, h->vec, h->copies, h->runs, h->queue);
    static const struct {
        const char *tune, *message;
    } bad[] = {
        {"histogram_copies=3", "GPGPU_TUNE: 'histogram_copies=3': expected a power of two in 1..32"},
        {"histogram_items=128",
         "GPGPU_TUNE: 'histogram_items=128': expected a power of two in 1..64"},
        {"histogram_groups=0", "GPGPU_TUNE: 'histogram_groups=0': expected a whole number in "
                               "1..16777216"},
        {"histogram_queue=2", "GPGPU_TUNE: 'histogram_queue=2': expected a whole number in 0..1"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        algo_plans q = p;
        EXPECT_STATUS(NULL, algo_plans_parse(bad[k].tune, &q), GPGPU_ERROR_INVALID_ARGUMENT);
        const char *got = gpgpu_last_error(NULL);
        EXPECT(got && strcmp(got, bad[k].message) == 0, "%s: message '%s'", bad[k].tune,
               got ? got : "(none)");
        EXPECT(q.histogram.items == 32 && q.histogram.copies == 8, "%s changed the plans",
               bad[k].tune);
    }
}

/* algo_plans_set: later calls read it, AUTO resolves as at creation. */
static void check_set(gpgpu_context *ctx)
{
    algo_plans saved = algo_plans_get(ctx), p = saved;
    p.radix.small = false;
    p.bitonic.registers = ALGO_AUTO;
    algo_plans_set(ctx, &p);
    algo_plans got = algo_plans_get(ctx);
    EXPECT(!got.radix.small && !radix_small(ctx, GPGPU_TYPE_U32, 100),
           "radix.small set false: the one-group sort still taken");
    EXPECT(got.bitonic.registers == saved.bitonic.registers,
           "bitonic.registers set AUTO: %d, at creation %d", got.bitonic.registers,
           saved.bitonic.registers);
    /* The selection's tile from the plan, f64's items halved. */
    p = saved;
    p.select.wg = 64;
    p.select.items = 4;
    algo_plans_set(ctx, &p);
    select_plan sp = select_plan_for(ctx, GPGPU_TYPE_F64, 1000, GPGPU_ALGO_DEFAULT, true);
    EXPECT(sp.wg == 64 && sp.items == 2 && sp.tiles == 8 && !sp.single_pass && sp.parts == 2,
           "select_wg=64,select_items=4: f64 partition of 1000 in %u tiles of %u x %u, "
           "single pass %d, staged in %u parts (at most the items)", sp.tiles, sp.wg, sp.items,
           sp.single_pass, sp.parts);
    algo_plans_set(ctx, &saved);
    EXPECT(radix_small(ctx, GPGPU_TYPE_U32, 100), "the plans put back: no one-group sort");
}

/* A context made with GPGPU_TUNE set holds what it names, the rest as the device's. */
static void check_env(gpgpu_context *ctx)
{
    algo_plans plain = algo_plans_get(ctx);
    setenv("GPGPU_TUNE", "radix_os_items=5,scan_chained_reload=2", 1);
    gpgpu_context *tuned = test_context();
    unsetenv("GPGPU_TUNE");
    algo_plans p = algo_plans_get(tuned);
    EXPECT(p.radix.os_items == 5 && p.scan.reload == SCAN_RELOAD_ALWAYS &&
               p.radix.os_subgroups == plain.radix.os_subgroups &&
               p.bitonic.registers == plain.bitonic.registers,
           "GPGPU_TUNE=radix_os_items=5,scan_chained_reload=2: os_items %u, reload %d",
           p.radix.os_items, p.scan.reload);
    gpgpu_context_destroy(tuned);
}

int main(void)
{
    unsetenv("GPGPU_TUNE"); /* the defaults first */
    gpgpu_context *ctx = test_context();
    check_backend(ctx);
    check_parse();
    check_histogram();
    check_set(ctx);
    check_env(ctx);
    gpgpu_context_destroy(ctx);
    return test_finish();
}
