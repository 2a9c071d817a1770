/* The MatrixMarket matrix reader on any bytes: bit 0 of the first byte says
 * whether the rest is read gzip'ed (raw bytes reach zlib's error paths, this
 * its inflation). A success must be a CSR that gpgpu_csr_check takes sorted,
 * of the declared shape, and that the writer writes back. */
#include "fuzz.h"

#include <stdlib.h>

#include "gpgpu/io.h"

/* Coordinate files with more declared rows or columns are skipped
 * (fuzz_declares_large_result): their row pointers are rightly that long. */
#define MAX_DECLARED ((uint64_t)1 << 22)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || fuzz_declares_large_result(data + 1, size - 1, MAX_DECLARED)) {
        return 0;
    }
    const char *path = fuzz_file(data + 1, size - 1, (data[0] & 1) != 0);
    if (path == NULL) {
        return 0;
    }
    gpgpu_csr a;
    gpgpu_mtx_header h;
    char msg[256];
    gpgpu_status s = gpgpu_mtx_read_matrix(path, &a, &h, msg, sizeof msg);
    if (s != GPGPU_SUCCESS && a.row_ptr != NULL) {
        abort();
    }
    if (s == GPGPU_SUCCESS &&
        (gpgpu_csr_check(&a, true, NULL, 0) != GPGPU_SUCCESS || a.rows != h.rows ||
         a.cols != h.cols ||
         gpgpu_mtx_write_matrix("/dev/null", &a, msg, sizeof msg) != GPGPU_SUCCESS)) {
        abort();
    }
    gpgpu_csr_free(&a);
    return 0;
}
