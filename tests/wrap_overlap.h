/* Two wraps of one GL buffer or VkBuffer are one memory to the overlap
 * checks: every call that refuses overlapping ranges refuses them across two
 * wraps, and runs in place where it allows equal ranges. test_api passes GL
 * wraps, test_vulkan VkBuffer wraps. */
#ifndef GPGPU_TEST_WRAP_OVERLAP_H
#define GPGPU_TEST_WRAP_OVERLAP_H

#include "testlib.h"

enum { WRAP_OBJECT_BYTES = 4096 };

/* w: four wraps of one object of WRAP_OBJECT_BYTES bytes, made by the caller:
 * bytes [0, 2048), [1024, 3072), [2048, 4096), and [0, 2048) again. Its
 * contents are overwritten. */
void test_wrap_overlaps(gpgpu_context *ctx, gpgpu_buffer *const w[4]);

#endif /* GPGPU_TEST_WRAP_OVERLAP_H */
