/* A shader that cannot be built gives GPGPU_ERROR_SHADER_COMPILE with the
 * driver's info log, never a crash or a silent result. meson runs this with
 * GPGPU_TUNE=scan_items=1024: a scan tile of 256 x 1024 elements needs 1 MiB
 * of shared memory, more than any implementation gives a work-group. */
#include <string.h>

#include "testlib.h"

int main(void)
{
    gpgpu_context *ctx = test_context();
    gpgpu_buffer *buf = test_buffer(ctx, NULL, 4096);
    gpgpu_scan_desc desc = {.type = GPGPU_TYPE_U32};
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &desc, buf, 0, buf, 0, 1024), GPGPU_ERROR_SHADER_COMPILE);
    const char *msg = gpgpu_last_error(ctx);
    EXPECT(strstr(msg, "scan") != NULL, "the message names the shader: %s", msg);
    EXPECT(strlen(msg) > 60, "the message carries the driver's log: %s", msg);
    /* The failure is not sticky: another family still builds and runs. */
    uint32_t sum = 1;
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){.type = GPGPU_TYPE_U32, .op = GPGPU_OP_SUM},
                                    buf, 0, 0, &sum),
                  GPGPU_SUCCESS);
    EXPECT(sum == 0, "an empty sum is 0, got %u", sum);
    gpgpu_buffer_destroy(buf);
    gpgpu_context_destroy(ctx);
    return test_finish();
}
