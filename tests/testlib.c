#include "testlib.h"

#include <stdlib.h>
#include <string.h>

int test_failures, test_checks;

const size_t test_sizes[] = {
    0, 1, 2, 3, 5, 7, 31, 32, 33, 1000,
    63, 64, 65, 1023, 1024, 1025, 8191, 8192, 8193, 65535, 65536, 65537,
    262143, 262144, 262145, (1u << 20) + 3, 1u << 22,
    SIZE_MAX,
};

gpgpu_context *test_context(void)
{
    gpgpu_context *ctx = NULL;
    gpgpu_status s = gpgpu_context_create(&(gpgpu_context_desc){.debug = true}, &ctx);
    if (s == GPGPU_ERROR_NO_CONTEXT || s == GPGPU_ERROR_GL_VERSION ||
        s == GPGPU_ERROR_BACKEND_UNAVAILABLE) {
        fprintf(stderr, "skipped: %s\n", gpgpu_last_error(NULL));
        exit(TEST_SKIPPED);
    }
    if (s != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu_context_create: %s\n", gpgpu_last_error(NULL));
        exit(1);
    }
    gpgpu_info info;
    gpgpu_context_info(ctx, &info);
    fprintf(stderr, "%s on %s (%s), subgroups %s\n", info.backend, info.renderer, info.platform,
            info.has_subgroups ? "yes" : "no");
    return ctx;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void test_random(gpgpu_type type, void *out, size_t n, uint64_t seed)
{
    uint64_t state = seed * 0x2545f4914f6cdd1du + 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(&state);
        int sign = (r >> 63) ? -1 : 1;
        double unit = (double)(r >> 11 & ((1u << 30) - 1)) / (double)(1u << 30); /* [0, 1) */
        uint32_t small = 1 + (uint32_t)(r % 1000);
        switch (type) {
        case GPGPU_TYPE_U32: ((uint32_t *)out)[i] = small; break;
        case GPGPU_TYPE_I32: ((int32_t *)out)[i] = sign * (int32_t)small; break;
        case GPGPU_TYPE_F32: ((float *)out)[i] = (float)(sign * (0.5 + unit)); break;
        case GPGPU_TYPE_F64: ((double *)out)[i] = sign * (0.5 + unit); break;
        }
    }
}

void test_poison(void *p, size_t bytes)
{
    memset(p, 0xA5, bytes);
}

gpgpu_buffer *test_buffer(gpgpu_context *ctx, const void *data, size_t bytes)
{
    gpgpu_buffer *buf = NULL;
    size_t size = bytes ? bytes : 4;
    if (gpgpu_buffer_create(ctx, size, &buf) != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu_buffer_create(%zu): %s\n", size, gpgpu_last_error(ctx));
        exit(1);
    }
    void *poison = NULL;
    if (!data) {
        poison = malloc(size);
        test_poison(poison, size);
        data = poison;
    }
    if (gpgpu_buffer_upload(buf, 0, data, bytes ? bytes : 0) != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu_buffer_upload: %s\n", gpgpu_last_error(ctx));
        exit(1);
    }
    free(poison);
    return buf;
}

int test_finish(void)
{
    printf("%d passed, %d failed\n", test_checks - test_failures, test_failures);
    return test_failures ? 1 : 0;
}
