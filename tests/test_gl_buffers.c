/* The GL executor's own ways with buffer memory.
 *
 * Buffers on memory allocated through Vulkan (src/gl/gl_vkmem.c). With
 * GPGPU_GL_VULKAN_MEMORY=all every library buffer of a GL context takes its
 * memory from a Vulkan device on the same GPU where the GL driver imports it:
 * such buffers upload and download, copy, reduce, scan and sort as GL's own
 * do, against the CPU; with =0 none is imported; a wrapped GL buffer is the
 * caller's and never one. Mesa's llvmpipe (22.3) offers GL_EXT_memory_object_fd
 * but refuses a buffer on imported memory (GL_OUT_OF_MEMORY from
 * glNamedBufferStorageMemEXT): there every buffer must fall back to GL's own
 * storage, with no error left behind (GL debug output is on), and the same
 * checks run on those; every other driver that offers the extension (NVIDIA's,
 * in the device runs) must take the import.
 *
 * Uploads and downloads through the staging buffer (src/gl/gl_transfer.c):
 * transfers of several staging chunks at odd offsets, partial reads across a
 * chunk's end, and the order against dispatches (a download right after a
 * dispatch wrote the range, an upload over a range a dispatch just wrote).
 *
 * Skips (77) without a GL context; the Vulkan-memory part without the
 * extension. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gl/gl_internal.h"
#include "gl/gl_transfer.h"
#include "testlib.h"

static bool imported(const gpgpu_buffer *buf)
{
    return ((const gl_buffer *)buf->impl)->memory_object != 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Reduce, scan and sort of n random u32 on imported buffers, against the CPU. */
static bool expect_import;

static void primitives_on_imported(gpgpu_context *ctx, size_t n)
{
    uint32_t *in = xmalloc(n * 4), *got = xmalloc(n * 4), *want = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++)
        in[i] = (uint32_t)((i * 2654435761u) ^ (i >> 3)) % 100000u;
    gpgpu_buffer *a = test_buffer(ctx, in, n * 4), *b = test_buffer(ctx, NULL, n * 4);
    EXPECT(imported(a) == expect_import && imported(b) == expect_import,
           "n=%zu: the buffers are %son Vulkan memory", n, expect_import ? "not " : "");

    EXPECT_STATUS(ctx, gpgpu_buffer_download(a, 0, got, n * 4), GPGPU_SUCCESS);
    EXPECT(memcmp(got, in, n * 4) == 0, "n=%zu: the upload did not come back", n);

    EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, 0, b, 0, n * 4), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(b, 0, got, n * 4), GPGPU_SUCCESS);
    EXPECT(memcmp(got, in, n * 4) == 0, "n=%zu: the copy differs", n);

    uint32_t sum = 0, want_sum = 0;
    for (size_t i = 0; i < n; i++)
        want_sum += in[i];
    EXPECT_STATUS(ctx,
                  gpgpu_reduce(ctx, &(gpgpu_reduce_desc){GPGPU_TYPE_U32, GPGPU_OP_SUM, GPGPU_ALGO_DEFAULT}, a, 0, n,
                               &sum),
                  GPGPU_SUCCESS);
    EXPECT(sum == want_sum, "n=%zu: reduce %u, want %u", n, sum, want_sum);

    EXPECT_STATUS(ctx,
                  gpgpu_scan(ctx, &(gpgpu_scan_desc){GPGPU_TYPE_U32, .exclusive = true}, a, 0, b,
                             0, n),
                  GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(b, 0, got, n * 4), GPGPU_SUCCESS);
    uint32_t run = 0;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += got[i] != run;
        run += in[i];
    }
    EXPECT(bad == 0, "n=%zu: %zu scan elements wrong", n, bad);

    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = GPGPU_TYPE_U32}, a, 0, b, 0, n),
                  GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(b, 0, got, n * 4), GPGPU_SUCCESS);
    memcpy(want, in, n * 4);
    qsort(want, n, 4, cmp_u32);
    EXPECT(memcmp(got, want, n * 4) == 0, "n=%zu: the sort differs", n);

    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
    free(in);
    free(got);
    free(want);
}

/* Transfers larger than the staging buffer, at offsets that are not multiples of 16, and
 * against dispatches on the same range. */
static void staged_transfers(gpgpu_context *ctx)
{
    const size_t words = GL_STAGING_BYTES / 4 * 2 + 12345, bytes = words * 4, off = 12;
    uint32_t *in = xmalloc(bytes), *got = xmalloc(bytes);
    for (size_t i = 0; i < words; i++)
        in[i] = (uint32_t)(i * 2246822519u + 7u);
    gpgpu_buffer *buf = test_buffer(ctx, NULL, bytes + 64);
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(buf, off, in, bytes), GPGPU_SUCCESS);
    test_poison(got, bytes);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(buf, off, got, bytes), GPGPU_SUCCESS);
    EXPECT(memcmp(got, in, bytes) == 0, "%zu bytes through the staging buffer differ", bytes);
    /* GL 4.4's persistent mappings are core in the 4.5 the library asks for: no fallback. */
    EXPECT(gl_of(ctx)->staging_map != NULL, "the transfers did not go through a staging buffer");

    /* A read that starts before a chunk's end and runs past it. */
    size_t from = GL_STAGING_BYTES - 1000, part = 5000;
    EXPECT_STATUS(ctx, gpgpu_buffer_download(buf, off + from, got, part), GPGPU_SUCCESS);
    EXPECT(memcmp(got, (const char *)in + from, part) == 0, "a read across a chunk's end differs");

    /* A download right after a dispatch that wrote the range, then an upload over part of
     * it: the download sees the scan, the last download the upload. */
    gpgpu_buffer *out = test_buffer(ctx, NULL, 4096 * 4);
    const gpgpu_scan_desc inclusive = {GPGPU_TYPE_U32, false, GPGPU_ALGO_DEFAULT};
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &inclusive, buf, off / 4, out, 0, 1000), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(out, 0, got, 1000 * 4), GPGPU_SUCCESS);
    uint32_t run = 0;
    size_t bad = 0;
    for (size_t i = 0; i < 1000; i++)
        bad += got[i] != (run += in[i]);
    EXPECT(bad == 0, "a download after a scan missed %zu of its sums", bad);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &inclusive, buf, off / 4, out, 0, 1000), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(out, 400, in, 400), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(out, 400, got, 400), GPGPU_SUCCESS);
    EXPECT(memcmp(got, in, 400) == 0, "an upload after a scan of the range was overwritten");

    gpgpu_buffer_destroy(buf);
    gpgpu_buffer_destroy(out);
    free(in);
    free(got);
}

int main(void)
{
    setenv("GPGPU_GL_VULKAN_MEMORY", "all", 1);
    gpgpu_context *ctx = test_context();
    gpgpu_info info;
    gpgpu_context_get_info(ctx, &info);
    if (strcmp(info.backend, "gl") != 0) {
        printf("%s: not a GL context, nothing to test\n", info.renderer);
        gpgpu_context_destroy(ctx);
        return TEST_SKIPPED;
    }
    staged_transfers(ctx);
    if (!gl_of(ctx)->gl.EXT_memory_object_fd) {
        printf("%s: no GL_EXT_memory_object_fd here, buffers on Vulkan memory untested\n",
               info.renderer);
        gpgpu_context_destroy(ctx);
        return test_finish();
    }
    expect_import = strstr(info.renderer, "llvmpipe") == NULL;
    printf("gl on %s: buffers %s Vulkan memory\n", info.renderer,
           expect_import ? "on" : "falling back from");

    const size_t sizes[] = {1, 1000, 65537, 1u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        primitives_on_imported(ctx, sizes[i]);

    /* Off: GL's own storage. */
    setenv("GPGPU_GL_VULKAN_MEMORY", "0", 1);
    gpgpu_buffer *own = test_buffer(ctx, NULL, 4096);
    EXPECT(!imported(own), "GPGPU_GL_VULKAN_MEMORY=0 still imported a buffer");
    gpgpu_buffer_destroy(own);

    /* A wrapped buffer is the caller's storage, whatever the setting. */
    setenv("GPGPU_GL_VULKAN_MEMORY", "all", 1);
    const GladGLContext *gl = &gl_of(ctx)->gl;
    GLuint name = 0;
    gl->CreateBuffers(1, &name);
    gl->NamedBufferStorage(name, 4096, NULL, GL_DYNAMIC_STORAGE_BIT);
    gpgpu_buffer *wrapped = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, name, 0, 4096, &wrapped), GPGPU_SUCCESS);
    if (wrapped) {
        EXPECT(!imported(wrapped), "a wrapped GL buffer was given Vulkan memory");
        gpgpu_buffer_destroy(wrapped);
    }
    gl->DeleteBuffers(1, &name);

    gpgpu_context_destroy(ctx);
    return test_finish();
}
