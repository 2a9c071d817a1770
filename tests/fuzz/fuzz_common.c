/* The helpers of fuzz.h. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef GPGPU_HAVE_ZLIB
#include <zlib.h>

/* data as one gzip member (deflate with a gzip header: window bits 16 + 15). */
static unsigned char *gzip_bytes(const uint8_t *data, size_t size, size_t *out_size)
{
    z_stream z = {0};
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        return NULL;
    }
    size_t cap = deflateBound(&z, (uLong)size);
    unsigned char *out = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = out != NULL ? deflate(&z, Z_FINISH) : Z_MEM_ERROR;
    *out_size = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}
#else
/* A build without zlib refuses a gzip file by its header (src/io/mtx_common.c): data behind
 * one reaches that refusal. */
static unsigned char *gzip_bytes(const uint8_t *data, size_t size, size_t *out_size)
{
    static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    unsigned char *out = malloc(sizeof header + size);
    if (out == NULL) {
        return NULL;
    }
    memcpy(out, header, sizeof header);
    if (size > 0) {
        memcpy(out + sizeof header, data, size);
    }
    *out_size = sizeof header + size;
    return out;
}
#endif

const char *fuzz_file(const uint8_t *data, size_t size, bool gzip)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz_input", 0);
        if (fd < 0) {
            perror("memfd_create");
            return NULL;
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    unsigned char *packed = NULL;
    if (gzip) {
        packed = gzip_bytes(data, size, &size);
        if (packed == NULL) {
            return NULL;
        }
        data = packed;
    }
    bool ok = ftruncate(fd, 0) == 0 && (size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size);
    free(packed);
    return ok ? path : NULL;
}

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* One whitespace-separated run of digits at *p, as a number (saturating). */
static bool number(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    while (*p < end && is_space(**p)) {
        ++*p;
    }
    if (*p == end || **p < '0' || **p > '9') {
        return false;
    }
    uint64_t v = 0;
    for (; *p < end && **p >= '0' && **p <= '9'; ++*p) {
        v = v > UINT64_MAX / 10 - 9 ? UINT64_MAX : v * 10 + (uint64_t)(**p - '0');
    }
    *out = v;
    return true;
}

/* Whether the first line names the coordinate format, any case. */
static bool coordinate_banner(const uint8_t *data, size_t size)
{
    static const char word[] = "coordinate";
    size_t n = sizeof word - 1;
    for (size_t k = 0; k + n <= size && data[k] != '\n'; k++) {
        if (strncasecmp((const char *)data + k, word, n) == 0) {
            return true;
        }
    }
    return false;
}

bool fuzz_declares_large_result(const uint8_t *data, size_t size, uint64_t limit)
{
    if (!coordinate_banner(data, size)) {
        return false;
    }
    const uint8_t *end = data + size;
    const uint8_t *line = memchr(data, '\n', size);
    while (line != NULL) {
        const uint8_t *p = line + 1;
        while (p < end && is_space(*p)) {
            p++;
        }
        if (p < end && *p != '\n' && *p != '%') {
            uint64_t rows = 0, cols = 0;
            bool shape = number(&p, end, &rows) && number(&p, end, &cols);
            bool rows_large = rows > limit && rows <= 0x7fffffff;
            bool cols_large = cols > limit && cols <= 0x7fffffff;
            return shape && (rows_large || cols_large);
        }
        line = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
    }
    return false;
}

uint8_t fuzz_u8(fuzz_input *in)
{
    if (in->size == 0) {
        return 0;
    }
    in->size--;
    return *in->data++;
}

uint32_t fuzz_u32(fuzz_input *in)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        v |= (uint32_t)fuzz_u8(in) << (8 * k);
    }
    return v;
}
