/* The MatrixMarket vector reader on any bytes: the first byte picks the type
 * (bits 0-1) and whether the rest is read gzip'ed (bit 2). Every outcome is
 * fine but a crash, a leak, a hang or memory the input did not ask for; a
 * success must give as many values as the size line declared. */
#include "fuzz.h"

#include <stdlib.h>

#include "gpgpu/io.h"

/* Longer declared coordinate vectors are skipped (fuzz_declares_large_result). */
#define MAX_DECLARED ((uint64_t)1 << 22)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const gpgpu_type types[4] = {GPGPU_TYPE_U32, GPGPU_TYPE_I32, GPGPU_TYPE_F32,
                                        GPGPU_TYPE_F64};
    if (size == 0 || fuzz_declares_large_result(data + 1, size - 1, MAX_DECLARED)) {
        return 0;
    }
    const char *path = fuzz_file(data + 1, size - 1, (data[0] & 4) != 0);
    if (path == NULL) {
        return 0;
    }
    void *values = NULL;
    size_t count = 0;
    char msg[256];
    gpgpu_status s = gpgpu_mtx_read_vector(path, types[data[0] & 3], &values, &count, msg,
                                           sizeof msg);
    if (s != GPGPU_SUCCESS && (values != NULL || count != 0)) {
        abort();
    }
    if (s == GPGPU_SUCCESS && (count > 0) != (values != NULL)) {
        abort();
    }
    free(values);
    return 0;
}
