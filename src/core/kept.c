/* Freed buffers kept for reuse: see kept.h. */
#include "core/kept.h"

#include <stdlib.h>
#include <string.h>

size_t kept_size_class(size_t size)
{
    if (size > KEPT_ROUNDED_MAX)
        return size;
    size_t step = 4096;
    while (step * 16 <= size)
        step *= 2;
    return (size + step - 1) / step * step;
}

kept_list kept_list_for(const gpgpu_context *ctx, size_t default_limit,
                        void (*free_one)(gpgpu_context *, void *),
                        void (*settle)(gpgpu_context *))
{
    size_t limit = ctx->memory_cache == CTX_CACHE_DEFAULT ? default_limit : ctx->memory_cache;
    return (kept_list){.limit = limit, .free_one = free_one, .settle = settle};
}

void *kept_take(kept_list *k, size_t size)
{
    size_t best = k->count, most = kept_size_class(size);
    for (size_t i = 0; i < k->count; i++) {
        size_t b = k->entries[i].bytes;
        if (b >= size && b <= most && (best == k->count || b < k->entries[best].bytes))
            best = i;
    }
    if (best == k->count)
        return NULL;
    void *impl = k->entries[best].impl;
    k->bytes -= k->entries[best].bytes;
    memmove(k->entries + best, k->entries + best + 1,
            (k->count - best - 1) * sizeof *k->entries);
    k->count--;
    return impl;
}

void kept_release(gpgpu_context *ctx, kept_list *k, size_t keep)
{
    if (k->bytes <= keep)
        return;
    if (k->settle)
        k->settle(ctx);
    size_t gone = 0;
    while (gone < k->count && k->bytes > keep) {
        k->bytes -= k->entries[gone].bytes;
        k->free_one(ctx, k->entries[gone++].impl);
    }
    k->count -= gone;
    memmove(k->entries, k->entries + gone, k->count * sizeof *k->entries);
}

/* The bytes memory_limit leaves beside the context's live buffers (SIZE_MAX: no limit). */
static size_t limit_room(const gpgpu_context *ctx)
{
    if (!ctx->memory_limit)
        return SIZE_MAX;
    return ctx->memory_limit > ctx->memory_used ? ctx->memory_limit - ctx->memory_used : 0;
}

/* The most bytes that may stay kept now: the limit and the room beside the live buffers. */
static size_t kept_room(const gpgpu_context *ctx, const kept_list *k)
{
    size_t free_bytes = limit_room(ctx);
    return free_bytes < k->limit ? free_bytes : k->limit;
}

bool kept_add(gpgpu_context *ctx, kept_list *k, void *impl, size_t bytes)
{
    size_t room = kept_room(ctx, k);
    if (bytes > room)
        return false;
    /* not ctx_reserve: a free that goes on without the room must not report a failure */
    if (!array_reserve((void **)&k->entries, &k->capacity, k->count + 1, sizeof *k->entries))
        return false;
    kept_release(ctx, k, room - bytes);
    k->entries[k->count++] = (kept_entry){impl, bytes};
    k->bytes += bytes;
    return true;
}

void kept_make_room(gpgpu_context *ctx, kept_list *k, size_t bytes)
{
    if (!ctx->memory_limit || !k->bytes)
        return;
    size_t free_bytes = limit_room(ctx);
    kept_release(ctx, k, free_bytes > bytes ? free_bytes - bytes : 0);
}

void kept_list_free(gpgpu_context *ctx, kept_list *k)
{
    kept_release(ctx, k, 0);
    free(k->entries);
    *k = (kept_list){0};
}
