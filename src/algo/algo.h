/* Helpers every algorithm driver shares: argument checks, element indices
 * for the shaders, one EXECSTAGE. */
#ifndef GPGPU_ALGO_H
#define GPGPU_ALGO_H

#include <string.h>

#include "core/checked.h"
#include "core/internal.h"

/* Largest element count a primitive takes: shader indices are 32-bit. */
#define ALGO_MAX_COUNT ((size_t)0x7fffffff)

/* A family's ids table (src/algo/ids/<family>_ids.h) as C enumerators, in the family's
 * header: enum { REDUCE_STAGES(ALGO_ID) }; enum { SORT_SHAPES(ALGO_SHAPE) }. glsl/embed.py
 * writes the same tables as #defines for the shader. */
#define ALGO_ID(name, value) name = (value),
#define ALGO_SHAPE(name, word, shift, bits) name = EXEC_SHAPE_FIELD(word, shift, bits),

/* Kiciak's GROUP_SIZE: the classic algorithms run with his work-group size. */
enum { CLASSIC_WG = 64 };

/* Checks a type (and that the device has it) for a public call. */
gpgpu_status algo_check_type(gpgpu_context *ctx, gpgpu_type type, const char *what);

/* Checks that elements [offset, offset + count) of `type` lie in buf, that the
 * buffer belongs to ctx and is aligned for the type, and that the shaders can
 * index the range. */
gpgpu_status algo_check_range(gpgpu_context *ctx, const gpgpu_buffer *buf, size_t offset,
                              size_t count, gpgpu_type type, const char *what);

/* The index, in elements of `type`, that element `offset` of buf has inside
 * its binding (wrapped buffers may be bound from below their first byte). */
uint32_t algo_index(const gpgpu_buffer *buf, size_t offset, gpgpu_type type);

/* Binds src and dst to bindings 0 and 1 and sets the parameters the reduce
 * and scan families share: params[1] = n, params[2] and params[3] the
 * element indices of src_off and dst_off (dst may be NULL: index 0). */
void algo_bind_io(exec_dispatch *d, gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                  size_t dst_off, size_t n);

/* Checks a call's scalar (alpha or beta, named by `name`) for `type`: finite, and for f32
 * within its range (|v| <= FLT_MAX), where a double past it would round to inf and spread
 * inf and NaN through the result without a word. */
gpgpu_status algo_check_scalar(gpgpu_context *ctx, gpgpu_type type, double v, const char *name,
                               const char *what);

/* The algorithm's name as gpgpu.h spells it without GPGPU_ALGO_ ("RADIX"), NULL for a value
 * that names none. */
const char *algo_name(gpgpu_algo algo);

/* Checks a call's algorithm against the `count` ones its primitive runs (DEFAULT and FAST,
 * "the fast default", always run): a value that names no algorithm is
 * GPGPU_ERROR_INVALID_ARGUMENT, an algorithm of another primitive
 * GPGPU_ERROR_UNSUPPORTED_COMBINATION, each message naming it and the ones that run. One rule
 * for every primitive, whatever the enum's order. */
gpgpu_status algo_check_algo(gpgpu_context *ctx, gpgpu_algo algo, const gpgpu_algo *runs,
                             size_t count, const char *what);
#define ALGO_CHECK(ctx, algo, what, ...)                                                  \
    algo_check_algo((ctx), (algo), (const gpgpu_algo[]){__VA_ARGS__},                     \
                    sizeof((const gpgpu_algo[]){__VA_ARGS__}) / sizeof(gpgpu_algo), (what))

/* Puts a float scalar's bits, rounded to `type`, in d->params[at] (and params[at + 1]
 * for f64, low word first): the shaders read it back with param_t (common.glsl). */
void algo_put_scalar(exec_dispatch *d, unsigned at, gpgpu_type type, double v);

/* Writes the identity of op for type (two elements for MINMAX) to out. */
void algo_identity(gpgpu_type type, gpgpu_op op, void *out);

/* Whether bytes [a_off, a_off + a_bytes) of a and [b_off, b_off + b_bytes) of
 * b share a byte of memory: ranges of one buffer, or of two buffers that wrap
 * one GL buffer or VkBuffer (gpgpu_buffer.storage), compared where they lie in
 * it. An empty range shares none, nor do buffers of two contexts (whose GL
 * names may coincide). */
static inline bool algo_overlap(const gpgpu_buffer *a, size_t a_off, size_t a_bytes,
                                const gpgpu_buffer *b, size_t b_off, size_t b_bytes)
{
    size_t a_at = a->storage_offset + a_off, b_at = b->storage_offset + b_off;
    return a_bytes > 0 && b_bytes > 0 && a->ctx == b->ctx && a->storage == b->storage &&
           a_at < b_at + b_bytes && b_at < a_at + a_bytes;
}

/* Whether byte a_off of a and byte b_off of b are the same byte of memory
 * (a call with equal ranges works in place), by the same rule. */
static inline bool algo_same_range(const gpgpu_buffer *a, size_t a_off, const gpgpu_buffer *b,
                                   size_t b_off)
{
    return a->ctx == b->ctx && a->storage == b->storage &&
           a->storage_offset + a_off == b->storage_offset + b_off;
}

/* A range of a call's buffers, in bytes, for algo_check_disjoint (buf NULL: none). */
typedef struct algo_range {
    const gpgpu_buffer *buf;
    size_t off, bytes;
    const char *name;
} algo_range;

/* GPGPU_ERROR_OVERLAP, naming both, where a range of r[first_written..count) (what the
 * call writes) shares a byte with any other range of r (algo_overlap). */
gpgpu_status algo_check_disjoint(gpgpu_context *ctx, const char *what, const algo_range *r,
                                 size_t count, size_t first_written);

/* Work-groups of `size` invocations that cover n invocations. */
static inline uint32_t algo_groups(size_t n, unsigned size)
{
    return (uint32_t)((n + size - 1) / size);
}

/* The least power of two >= v (1 for 0), at most 2^31. */
static inline uint32_t algo_ceil_pow2(size_t v)
{
    uint32_t p = 1;
    while (p < v && p < 0x80000000u)
        p *= 2;
    return p;
}

/* EXECSTAGE: one dispatch of a stage, then the storage barrier. A work-group larger
 * than the device allows (Vulkan guarantees only 128 invocations) is a clear error,
 * not a failed dispatch; so is a bound buffer (each is bound whole) larger than one
 * storage binding holds: past it a GL shader reads zeros or garbage and a Vulkan
 * descriptor is invalid. Callers' buffers are checked where they come in
 * (algo_check_range); this catches a work array an algorithm sized past the device. */
static inline gpgpu_status algo_stage(gpgpu_context *ctx, const exec_dispatch *d)
{
    CHECK(d->variant.wg_size <= ctx->info.max_workgroup_invocations, ctx,
          GPGPU_ERROR_UNSUPPORTED_FEATURE,
          "%s stage %u: work-groups of %u invocations, the device allows %u per work-group",
          d->variant.family, d->params[0], d->variant.wg_size,
          ctx->info.max_workgroup_invocations);
    for (int i = 0; i < EXEC_MAX_BINDINGS; i++) {
        const gpgpu_buffer *b = d->bind[i];
        size_t bytes = b ? b->size + ctx->exec->binding_shift(b) : 0;
        CHECK(bytes <= ctx->info.max_storage_range_bytes, ctx, GPGPU_ERROR_TOO_LARGE,
              "%s stage %u: binding %d holds %zu bytes, more than one storage binding of %s "
              "holds (%zu)",
              d->variant.family, d->params[0], i, bytes, ctx->info.renderer,
              ctx->info.max_storage_range_bytes);
    }
    return ctx->exec->dispatch(ctx, d);
}

#endif /* GPGPU_ALGO_H */
