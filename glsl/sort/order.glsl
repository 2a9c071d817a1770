// Part of glsl/sort.comp: the ordered key (src/algo/sort.h) and the comparison of elements.

// ---------------------------------------------------------------- order

#if defined(TYPE_F64)
#define ORD uvec2 /* (low, high) */
ORD key_order(KEY raw)
{
    uint hi = raw.y & 0x7fffffffu;
    ORD o;
    if (hi > 0x7ff00000u || (hi == 0x7ff00000u && raw.x != 0u))
        o = uvec2(0xffffffffu); // every NaN, last
    else if ((raw.y & 0x80000000u) != 0u)
        o = ~raw;
    else
        o = uvec2(raw.x, raw.y | 0x80000000u);
    return flag(SORT_DESCENDING) ? ~o : o;
}
bool ord_less(ORD a, ORD b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
uint ord_byte(ORD o, uint p) { return ((p < 4u ? o.x : o.y) >> ((p & 3u) * 8u)) & 0xffu; }
#else
#define ORD uint
ORD key_order(KEY raw)
{
#if defined(TYPE_U32)
    uint o = raw;
#elif defined(TYPE_I32)
    uint o = raw ^ 0x80000000u;
#else
    uint o = (raw & 0x7fffffffu) > 0x7f800000u ? 0xffffffffu
             : (raw & 0x80000000u) != 0u      ? ~raw
                                               : raw | 0x80000000u;
#endif
    return flag(SORT_DESCENDING) ? ~o : o;
}
bool ord_less(ORD a, ORD b) { return a < b; }
uint ord_byte(ORD o, uint p) { return (o >> (p * 8u)) & 0xffu; }
#endif

// The segment of input index x: the largest s < NSEG with segs[s] <= x.
uint segment_of(uint x)
{
    uint lo = 0u, hi = NSEG;
    while (hi - lo > 1u) {
        uint mid = (lo + hi) >> 1;
        if (segs[SEG_OFF + mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// Whether element a must come after element b: by segment (of the payload,
// an input index), then by ordered key, then by payload when ties count.
bool after(KEY ka, uint pa, KEY kb, uint pb)
{
    if (flag(SORT_SEGMENTED)) {
        uint sa = segment_of(pa), sb = segment_of(pb);
        if (sa != sb)
            return sa > sb;
    }
    ORD oa = key_order(ka), ob = key_order(kb);
    if (oa != ob)
        return ord_less(ob, oa);
    return flag(SORT_TIES_BY_PAYLOAD) && pa > pb;
}
