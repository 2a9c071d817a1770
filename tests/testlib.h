/* What every GPU test shares: a context (or exit 77), random nonzero data,
 * poisoned outputs, checks that count failures instead of stopping. */
#ifndef GPGPU_TESTLIB_H
#define GPGPU_TESTLIB_H

#include <stdint.h>
#include <stdio.h>

#include "gpgpu/gpgpu.h"

enum { TEST_SKIPPED = 77 };

extern int test_failures, test_checks;

#define EXPECT(cond, ...)                                                    \
    do {                                                                     \
        test_checks++;                                                       \
        if (!(cond)) {                                                       \
            test_failures++;                                                 \
            fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

/* Asserts an exact status; on a mismatch prints the context's message. */
#define EXPECT_STATUS(ctx, expr, code)                                       \
    do {                                                                     \
        gpgpu_status got_ = (expr);                                          \
        EXPECT(got_ == (code), "%s returned %d (%s), expected %d (%s): %s", #expr, \
               (int)got_, gpgpu_status_string(got_), (int)(code),           \
               gpgpu_status_string(code), gpgpu_last_error(ctx));           \
    } while (0)

/* A headless context for the backend chosen by GPGPU_BACKEND; exits with 77
 * when no context of that kind can be made at all. */
gpgpu_context *test_context(void);

/* n random nonzero elements of `type`: integers in [1, 1000] (u32) or
 * +-[1, 1000] (i32), floats of magnitude in [0.5, 1.5) with random sign. */
void test_random(gpgpu_type type, void *out, size_t n, uint64_t seed);

/* Fills bytes with a pattern no algorithm writes here (0xA5 bytes: a large
 * integer, a small negative float), so unwritten elements show; compare bits. */
void test_poison(void *p, size_t bytes);

/* A buffer of `bytes` bytes holding `data` (poisoned when data is NULL). */
gpgpu_buffer *test_buffer(gpgpu_context *ctx, const void *data, size_t bytes);

/* The sizes the issue names: 0, 1, 2, 3, 5, 7, 31, 32, 33, 1000, 2^k - 1,
 * 2^k, 2^k + 1 for several k, and a few up to 2^22; ends with SIZE_MAX. */
extern const size_t test_sizes[];

/* Prints "N passed, M failed" and returns the exit code. */
int test_finish(void);

#endif /* GPGPU_TESTLIB_H */
