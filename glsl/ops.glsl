// The operator algebra shared by the reduce and scan families: the value type
// V that an algorithm carries (T, or a (min, max) pair for OP_MINMAX), its
// operator and identity, and the reduction of V across a subgroup and across
// a work-group. Needs WG_SIZE, T and one OP_* from the prelude/family.

#if defined(OP_SUM)
#define V T
#define V_IDENTITY T_ZERO
V v_op(V a, V b) { return a + b; }
V v_from(T x) { return x; }
#elif defined(OP_MIN)
#define V T
#define V_IDENTITY T_HIGHEST
V v_op(V a, V b) { return t_min(a, b); }
V v_from(T x) { return x; }
#elif defined(OP_MAX)
#define V T
#define V_IDENTITY T_LOWEST
V v_op(V a, V b) { return t_max(a, b); }
V v_from(T x) { return x; }
#elif defined(OP_MINMAX)
#define V T2
#define V_IDENTITY T2(T_HIGHEST, T_LOWEST)
V v_op(V a, V b) { return T2(t_min(a.x, b.x), t_max(a.y, b.y)); }
V v_from(T x) { return T2(x, x); }
#else
#error "no OP_* defined"
#endif

// barrier() orders execution; the explicit shared-memory barrier makes the
// writes before it visible after it on every implementation.
#define SYNC() { memoryBarrierShared(); barrier(); }

#ifdef SUBGROUPS
// Subgroup min/max leave NaN handling to the implementation, so a NaN seen by
// any lane is put back explicitly: the result stays NaN-propagating.
#if defined(OP_SUM)
V sg_reduce(V v) { return subgroupAdd(v); }
#elif defined(OP_MIN) || defined(OP_MAX) || defined(OP_MINMAX)
#if defined(OP_MINMAX)
V sg_minmax(V v) { return T2(subgroupMin(v.x), subgroupMax(v.y)); }
bool v_isnan(V v) { return t_isnan(v.x) || t_isnan(v.y); }
#elif defined(OP_MIN)
V sg_minmax(V v) { return subgroupMin(v); }
bool v_isnan(V v) { return t_isnan(v); }
#else
V sg_minmax(V v) { return subgroupMax(v); }
bool v_isnan(V v) { return t_isnan(v); }
#endif
V sg_reduce(V v)
{
    V r = sg_minmax(v);
    bool any_nan = subgroupAny(v_isnan(v));
    return any_nan ? V(T_NAN) : r;
}
#endif
#endif

shared V s_reduce[WG_SIZE];

// Reduces one V per invocation over the work-group; the result is valid in
// invocation 0. Every invocation must call it (it holds barriers).
V wg_reduce(V v)
{
    uint lid = gl_LocalInvocationID.x;
#ifdef SUBGROUPS
    v = sg_reduce(v);
    if (subgroupElect())
        s_reduce[gl_SubgroupID] = v;
    SYNC();
    V r = V_IDENTITY;
    if (gl_SubgroupID == 0u) {
        // More subgroups than lanes (small subgroups): fold them in strides.
        for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize)
            r = v_op(r, s_reduce[i]);
        r = sg_reduce(r);
    }
    SYNC();
    return r;
#else
    s_reduce[lid] = v;
    SYNC();
    for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1) {
        if (lid < s)
            s_reduce[lid] = v_op(s_reduce[lid], s_reduce[lid + s]);
        SYNC();
    }
    V r = s_reduce[0];
    SYNC();
    return r;
#endif
}
