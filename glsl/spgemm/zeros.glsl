// Part of glsl/spgemm.comp: C without its exact zeros (ZERO_FLAGS, ZERO_PTRS, ZERO_COMPACT).

// ------------------------------------------------------------------ C without exact zeros
// C at bindings 0 (ints) and 1 (values); the new C's ints at 6, values at 7; flags in aux.
#define ZFLAG_OFF params[SPGEMM_P_ZFLAG_OFF]
#define NEW_IDX   params[SPGEMM_P_NEW_IDX]

void zero_flags(uint e)
{
    if (e < COUNT)
        aux[ZFLAG_OFF + e] = va[e] != T_ZERO ? 1u : 0u;
    else if (e == COUNT)
        aux[ZFLAG_OFF + e] = 0u;
}

void zero_ptrs(uint i)
{
    if (i <= ROWS)
        ux[i] = aux[ZFLAG_OFF + ia[i]];
}

void zero_compact(uint e)
{
    if (e < COUNT && va[e] != T_ZERO) {
        uint p = aux[ZFLAG_OFF + e];
        ux[NEW_IDX + p] = ia[C_IDX + e];
        cv[p] = va[e];
    }
}
