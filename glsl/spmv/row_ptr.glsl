// Part of glsl/spmv.comp and glsl/matrix_check.comp, which bind the row pointers as ptr and
// define PTR_OFF and NNZ.

// Row pointer r, clamped to the entries there are.
uint rp(uint r) { return min(ptr[PTR_OFF + r], NNZ); }
