/* Size arithmetic that says when it overflows: every count the library takes from a caller, a
 * file or a generator's parameters goes through these before it becomes a byte count, an
 * allocation or a loop bound, so that a huge count is refused (GPGPU_ERROR_TOO_LARGE) instead
 * of wrapping into a small one. */
#ifndef GPGPU_CORE_CHECKED_H
#define GPGPU_CORE_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Counts the checks admit (2^31 - 1 elements of at most 8 bytes, 32-bit sparse indices, a
 * few arrays of them side by side) give byte counts far below 2^64: once those checks passed, the
 * products and sums of such counts need no check of their own. That holds for a 64-bit
 * size_t, not a 32-bit one. */
_Static_assert(SIZE_MAX / 8 >= UINT32_MAX, "libgpgpu's byte counts need a 64-bit size_t");

/* *out = a * b; false when the product does not fit a size_t (*out is then SIZE_MAX). */
static inline bool size_mul(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b) {
        *out = SIZE_MAX;
        return false;
    }
    *out = a * b;
    return true;
}

/* *out = a + b; false when the sum does not fit a size_t (*out is then SIZE_MAX). */
static inline bool size_add(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b) {
        *out = SIZE_MAX;
        return false;
    }
    *out = a + b;
    return true;
}

/* ceil(a / b) for b > 0, without the a + b - 1 that wraps for a near SIZE_MAX. */
static inline size_t size_ceil_div(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}

#endif /* GPGPU_CORE_CHECKED_H */
