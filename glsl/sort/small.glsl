// Part of glsl/sort.comp (after sort/radix.glsl): the one-group radix sort, SMALL.

// ------------------------------------------------------- one-group radix
//
// SMALL: a sort of up to one tile (WG_SIZE * ITEMS elements) by one
// work-group, every pass in shared memory: keys_a/pay_a -> keys_b/pay_b in
// one dispatch, where the other radix sorts take a pass's two or three. Each
// pass ranks the elements as SCATTER does (by subgroup chunks, stable), puts
// them in their slot in shared memory and reads them back in chunk order,
// so the next pass sees them in this pass's order. Every element is read
// before any is written: in place is fine.
void stage_small()
{
    uint lid = gl_LocalInvocationID.x;
    uint sg = sg_id(), lane = sg_lane(), sgs = sg_size();
    uint chunk = sg * sgs * ITEMS;
    bool payload = flag(SORT_FLAG_PAYLOAD) || flag(SORT_PAYLOAD_IS_INDEX);
    KEY k[ITEMS];
    uint pv[ITEMS];
    // Every row loads, clamped to the last element (the rows past N are not `valid` below),
    // with no branch around a load (onesweep.glsl's pass says why).
    uint last = N > 0u ? N - 1u : 0u; // N = 0: a count on the GPU, the buffer's bound still >= 1
    UNROLL for (uint it = 0u; it < ITEMS; it++)
        k[it] = keys_a[KEY_OFF_A + min(chunk + it * sgs + lane, last)];
    UNROLL for (uint it = 0u; it < ITEMS; it++)
        pv[it] = 0u;
    if (payload) {
        UNROLL for (uint it = 0u; it < ITEMS; it++)
            pv[it] = payload_of(min(chunk + it * sgs + lane, last));
    }
    for (uint pass = 0u; pass < PASSES; pass++) {
        cnt_clear();
        SYNC();
        uint dg[ITEMS], slot[ITEMS];
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            bool valid = chunk + it * sgs + lane < N;
            dg[it] = valid ? digit_in(k[it], pv[it], pass) : 0u;
            slot[it] = rank_in_subgroup(dg[it], valid);
        }
        SYNC();
        tile_totals();
        SYNC();
        digit_starts();
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            if (chunk + it * sgs + lane >= N)
                continue;
            uint d = dg[it];
            slot[it] += s_mem[S_START + d] + cnt_get(sg, d);
            stage_key(slot[it], k[it]);
        }
        SYNC();
        UNROLL for (uint it = 0u; it < ITEMS; it++) {
            uint q = chunk + it * sgs + lane;
            if (q < N)
                k[it] = staged_key(q);
        }
        if (payload) {
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++)
                if (chunk + it * sgs + lane < N)
                    s_mem[S_STAGE + slot[it]] = pv[it];
            SYNC();
            UNROLL for (uint it = 0u; it < ITEMS; it++) {
                uint q = chunk + it * sgs + lane;
                if (q < N)
                    pv[it] = s_mem[S_STAGE + q];
            }
        }
        SYNC();
    }
    UNROLL for (uint it = 0u; it < ITEMS; it++) {
        uint i = chunk + it * sgs + lane;
        if (i < N) {
            keys_b[KEY_OFF_B + i] = k[it];
            if (payload)
                pay_b[PAY_OFF_B + i] = pv[it];
        }
    }
}
