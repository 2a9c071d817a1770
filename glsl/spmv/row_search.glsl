// Part of glsl/spmv.comp and glsl/matrix_check.comp (after spmv/row_ptr.glsl).

// The row holding entry e: the largest r in [lo, hi] with rp(r) <= e (rp(lo) <= e).
uint row_search(uint e, uint lo, uint hi)
{
    while (lo < hi) {
        uint mid = lo + (hi - lo + 1u) / 2u;
        if (rp(mid) <= e)
            lo = mid;
        else
            hi = mid - 1u;
    }
    return lo;
}
