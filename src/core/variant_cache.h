/* A small map from exec_variant to what a backend compiled for it (a GL
 * program, a Vulkan pipeline): both executors keep one. */
#ifndef GPGPU_VARIANT_CACHE_H
#define GPGPU_VARIANT_CACHE_H

#include "core/internal.h"

typedef struct variant_entry {
    exec_variant key;
    uint64_t handle; /* the backend's object (program name, pipeline handle) */
    int64_t extra;   /* anything else it needs (GL: the params uniform location) */
} variant_entry;

typedef struct variant_cache {
    variant_entry *entries;
    size_t count, capacity;
} variant_cache;

/* The entry for v, or NULL. */
const variant_entry *variant_cache_find(const variant_cache *cache, const exec_variant *v);

/* Adds an entry (v must not be there yet). */
gpgpu_status variant_cache_add(gpgpu_context *ctx, variant_cache *cache, variant_entry entry);

void variant_cache_free(variant_cache *cache);

#endif /* GPGPU_VARIANT_CACHE_H */
