/* The bitonic sorting network: Kiciak's GPUNetSort (one step per dispatch)
 * and the fast variant that runs every step whose pairs lie inside a tile
 * in shared memory, so that only blocks larger than a tile go through
 * global memory. Both run the same compare-exchanges, so they give the same
 * result bit for bit. The network is not stable; the driver (sort.c) makes
 * it so by sorting (key, input index) pairs. */
#include "algo/sort.h"

/* The padded length 2^ceil(log2 n) of the network. */
static size_t padded_length(size_t n)
{
    size_t nn = 1;
    while (nn < n)
        nn <<= 1;
    return nn;
}

/* Whether the fast network takes its register stages (plan bitonic_registers): LOCAL_MERGE
 * in registers and each level's reverse step fused into STEPS. Measured on an H200
 * (docs/DECISIONS.md): on Vulkan 2^24 keys 7327 -> 6313 us, pairs 9255 -> 7058; NVIDIA's GL
 * compiler made both stages slower (keys 9942 -> 13454), so GL keeps the shared-memory steps. */
static bool register_stages(const gpgpu_context *ctx)
{
    return ctx->plans.bitonic.registers == ALGO_ALWAYS;
}

gpgpu_status bitonic_stage_step(gpgpu_context *ctx, const sort_keys *a, uint32_t h, bool reverse,
                                bool classic)
{
    unsigned wg = classic ? CLASSIC_WG : BITONIC_WG;
    exec_dispatch d = sort_dispatch(a, SORT_STAGE_STEP, wg, 1);
    d.params[SORT_P_H] = h;
    d.params[SORT_P_REVERSE] = reverse;
    d.groups = algo_groups(padded_length(a->n) / 2, wg); /* one invocation per pair */
    return algo_stage(ctx, &d);
}

gpgpu_status bitonic_stage_steps(gpgpu_context *ctx, const sort_keys *a, uint32_t h,
                                 unsigned count, bool reverse)
{
    exec_dispatch d = sort_dispatch(a, SORT_STAGE_STEPS, BITONIC_WG, 1);
    d.params[SORT_P_H] = h;
    d.params[SORT_P_COUNT] = count;
    d.params[SORT_P_STEPS_REVERSE] = reverse;
    exec_shape_set(&d.variant, SORT_SHAPE_REGISTER_STAGES, reverse || register_stages(ctx));
    d.groups = algo_groups(padded_length(a->n) >> count, BITONIC_WG); /* a group of 2^count each */
    return algo_stage(ctx, &d);
}

static gpgpu_status tile_stage(gpgpu_context *ctx, const sort_keys *a, unsigned stage,
                               bool registers)
{
    /* A program of its own (sort_dispatch): a sort of up to a tile, the
     * default for n <= BITONIC_TILE, then builds only this stage. On
     * llvmpipe that cut the shader work of a 10-key `gpgpu sort` from 11.9 s
     * to 0.3 s of CPU (lavapipe 4.6 s to 0.3 s); on the H100 it changed no
     * time measurably. */
    exec_dispatch d = sort_dispatch(a, stage, BITONIC_WG, BITONIC_ITEMS);
    d.groups = algo_groups(a->n, BITONIC_TILE);
    exec_shape_set(&d.variant, SORT_SHAPE_REGISTER_STAGES, registers);
    return algo_stage(ctx, &d);
}

gpgpu_status bitonic_stage_local_sort(gpgpu_context *ctx, const sort_keys *a)
{
    return tile_stage(ctx, a, SORT_STAGE_LOCAL_SORT, false);
}

gpgpu_status bitonic_stage_local_merge(gpgpu_context *ctx, const sort_keys *a)
{
    return tile_stage(ctx, a, SORT_STAGE_LOCAL_MERGE, register_stages(ctx));
}

/* GPUNetSort: for each level h, the reverse step merges two sorted halves
 * into one bitonic block, the plain steps clean it. Elements past n are
 * +inf that never move, so any n works. */
gpgpu_status bitonic_sort_classic(gpgpu_context *ctx, const sort_keys *a)
{
    size_t nn = padded_length(a->n);
    for (size_t h = 2; a->n > 1 && h <= nn; h <<= 1) {
        TRY(bitonic_stage_step(ctx, a, (uint32_t)h, true, true));
        for (size_t k = h >> 1; k >= 2; k >>= 1)
            TRY(bitonic_stage_step(ctx, a, (uint32_t)k, false, true));
    }
    return GPGPU_SUCCESS;
}

/* The same network: levels up to a tile in one dispatch, then for each
 * larger level its steps of blocks above a tile (the reverse step of block
 * h, then the plain ones) four at a time, and the rest of the level in one
 * more dispatch. With the register stages (register_stages) STEPS takes
 * the reverse step first: alone, it is a pass more for 9 of the 13 levels
 * above a tile at 2^24. */
gpgpu_status bitonic_sort_fast(gpgpu_context *ctx, const sort_keys *a)
{
    if (a->n < 2)
        return GPGPU_SUCCESS;
    TRY(bitonic_stage_local_sort(ctx, a));
    size_t nn = padded_length(a->n);
    for (size_t h = 2 * (size_t)BITONIC_TILE; h <= nn; h <<= 1) {
        /* Steps of blocks h .. 2 * tile, up to 2^4 elements per invocation: the reverse
         * one alone unless STEPS takes it first (register_stages). */
        bool reverse = register_stages(ctx);
        if (!reverse)
            TRY(bitonic_stage_step(ctx, a, (uint32_t)h, true, false));
        for (size_t k = reverse ? h : h >> 1; k > BITONIC_TILE;) {
            unsigned count = 0;
            for (size_t b = k; b > BITONIC_TILE && count < BITONIC_MAX_FUSED_LOG2; b >>= 1)
                count++;
            TRY(bitonic_stage_steps(ctx, a, (uint32_t)k, count, reverse));
            reverse = false;
            k >>= count;
        }
        TRY(bitonic_stage_local_merge(ctx, a));
    }
    return GPGPU_SUCCESS;
}
