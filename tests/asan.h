/* Whether this test runs under AddressSanitizer: an address-space cap (setrlimit) leaves
 * ASan's shadow memory no room, so the tests that cap their address space skip that part
 * there (scripts/test.sh gives ASan a per-allocation limit instead). */
#ifndef GPGPU_TESTS_ASAN_H
#define GPGPU_TESTS_ASAN_H

#include <stdbool.h>

static inline bool test_under_asan(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

#endif /* GPGPU_TESTS_ASAN_H */
