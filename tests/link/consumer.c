/* A program built against an installed libgpgpu with pkg-config only
 * (tests/link/test_install.sh builds it shared and static): the headers'
 * version is the library's and the one expected (argv[1]), and a headless
 * context sorts. Exit 0 when it all holds, 1 on a failure, 77 when no
 * context can be made. */
#include <gpgpu/gpgpu.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COUNT = 777 };

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static uint32_t keys[COUNT], sorted[COUNT];
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *buf = NULL;
    uint32_t seed = 3;

    if (argc != 2 || strcmp(gpgpu_version(), argv[1]) != 0 ||
        strcmp(GPGPU_VERSION_STRING, argv[1]) != 0) {
        fprintf(stderr, "FAIL: library %s, headers %s, expected %s\n", gpgpu_version(),
                GPGPU_VERSION_STRING, argc == 2 ? argv[1] : "(no argument)");
        return 1;
    }
    gpgpu_status status = gpgpu_context_create(&(gpgpu_context_desc){ 0 }, &ctx);
    if (status == GPGPU_ERROR_NO_CONTEXT) {
        printf("SKIP: no context: %s\n", gpgpu_last_error(NULL));
        return 77;
    }
    for (int i = 0; i < COUNT; i++) {
        seed = seed * 1664525u + 1013904223u;
        keys[i] = seed >> 7;
    }
    memcpy(sorted, keys, sizeof keys);
    qsort(sorted, COUNT, sizeof(uint32_t), compare_u32);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_create(ctx, sizeof keys, &buf);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_upload(buf, 0, keys, sizeof keys);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_sort(ctx, &(gpgpu_sort_desc){ .type = GPGPU_TYPE_U32 }, buf, 0, NULL, 0,
                            COUNT);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_download(buf, 0, keys, sizeof keys);
    if (status != GPGPU_SUCCESS) {
        fprintf(stderr, "FAIL: %s: %s\n", gpgpu_status_string(status),
                gpgpu_last_error(ctx));
    } else if (memcmp(keys, sorted, sizeof keys) != 0) {
        fprintf(stderr, "FAIL: the sorted keys differ from the CPU's\n");
        status = GPGPU_ERROR_BACKEND;
    }
    gpgpu_buffer_destroy(buf);
    gpgpu_context_destroy(ctx);
    return status == GPGPU_SUCCESS ? 0 : 1;
}
