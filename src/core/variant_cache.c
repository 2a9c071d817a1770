#include "core/variant_cache.h"

#include <stdlib.h>
#include <string.h>

static bool same_variant(const exec_variant *a, const exec_variant *b)
{
    return strcmp(a->family, b->family) == 0 && a->type == b->type && a->op == b->op &&
           a->wg_size == b->wg_size && a->items == b->items &&
           a->only_stage == b->only_stage && memcmp(a->shape, b->shape, sizeof a->shape) == 0;
}

/* A linear search: a context compiles a few dozen variants at most. */
const variant_entry *variant_cache_find(const variant_cache *cache, const exec_variant *v)
{
    for (size_t i = 0; i < cache->count; i++)
        if (same_variant(&cache->entries[i].key, v))
            return &cache->entries[i];
    return NULL;
}

gpgpu_status variant_cache_add(gpgpu_context *ctx, variant_cache *cache, variant_entry entry)
{
    TRY(ctx_reserve(ctx, (void **)&cache->entries, &cache->capacity, cache->count + 1,
                    sizeof entry));
    cache->entries[cache->count++] = entry;
    return GPGPU_SUCCESS;
}

void variant_cache_free(variant_cache *cache)
{
    free(cache->entries);
    *cache = (variant_cache){0};
}
