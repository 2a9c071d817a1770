/* Freed buffers kept for reuse (gpgpu_context_desc.memory_cache).
 *
 * Why: where a driver clears the memory it allocates, a large allocation costs a pass over it
 * before any work: NVIDIA's vkAllocateMemory on an H100 gave about 40 GB/s, so SpGEMM's
 * temporaries and C took 13 ms of a 25 ms call for laplace3d_7:128 and freeing them 10 ms more
 * (docs/DECISIONS.md); GL's large buffers come from the same allocator
 * (gl_vkmem.c). So a backend keeps what its buffers held when they are freed, up to a limit,
 * and a later buffer of the same size class takes it, as CUDA's pooling allocators do.
 *
 * A size class: up to KEPT_ROUNDED_MAX, the size rounded up to an eighth of its power of two
 * (4 KiB at least), so like sizes share one and a buffer is at most 1/8 larger than asked;
 * above, the exact size, so that no large allocation fails for the rounding. Kept bytes count
 * against the context's memory_limit (they are given back first when a new buffer needs the
 * room), and all of them go at gpgpu_context_trim, when an allocation fails, and at destroy.
 * The backend owns what `impl` points to; the list only orders and counts it. */
#ifndef GPGPU_CORE_KEPT_H
#define GPGPU_CORE_KEPT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/internal.h"

#define KEPT_ROUNDED_MAX ((size_t)256 << 20)

/* The default limit: an eighth of a GPU's memory (kept memory is idle for everything else on
 * the device: another context, the caller's renderer); 256 MiB where the device's memory is
 * the host's (Mesa's llvmpipe and lavapipe, where an allocation is a malloc and keeping it
 * buys little) or the API does not say how much there is. */
#define KEPT_DEFAULT_LIMIT(device_bytes, host_device) \
    ((host_device) || !(device_bytes) ? (size_t)256 << 20 : (device_bytes) / 8)

typedef struct kept_entry {
    void *impl;   /* the backend's buffer (memory and object) */
    size_t bytes; /* what it was made with */
} kept_entry;

typedef struct kept_list {
    kept_entry *entries; /* oldest first */
    size_t count, capacity, bytes, limit;
    /* Frees one kept buffer for good. */
    void (*free_one)(gpgpu_context *ctx, void *impl);
    /* Before kept buffers are freed: makes sure no recorded work still uses them (Vulkan
     * submits what it recorded); NULL where the API orders frees itself (GL). */
    void (*settle)(gpgpu_context *ctx);
} kept_list;

/* The size a buffer of `size` bytes is made with. */
size_t kept_size_class(size_t size);
/* An empty list whose limit is ctx->memory_cache, or for CTX_CACHE_DEFAULT the backend's
 * `default_limit` (KEPT_DEFAULT_LIMIT). */
kept_list kept_list_for(const gpgpu_context *ctx, size_t default_limit,
                        void (*free_one)(gpgpu_context *, void *),
                        void (*settle)(gpgpu_context *));
/* The kept buffer a buffer of `size` bytes fits best (made with at least `size`, at most its
 * class), out of the list; NULL if none. */
void *kept_take(kept_list *k, size_t size);
/* Keeps a freed buffer made with `bytes` if it fits under the limit and, with memory_limit,
 * beside the context's live buffers (older ones go to make room); false: free it yourself. */
bool kept_add(gpgpu_context *ctx, kept_list *k, void *impl, size_t bytes);
/* Frees kept buffers, oldest first, until at most `keep` bytes are kept. */
void kept_release(gpgpu_context *ctx, kept_list *k, size_t keep);
/* Before a new buffer of `bytes` is allocated: with memory_limit, frees what the live
 * buffers, the kept ones and it would hold past the limit. */
void kept_make_room(gpgpu_context *ctx, kept_list *k, size_t bytes);
/* Frees them all and the list itself (at the context's destroy). */
void kept_list_free(gpgpu_context *ctx, kept_list *k);

#endif /* GPGPU_CORE_KEPT_H */
