/* Counts that stay on the GPU (glsl/count.comp): the element count of a call read from a
 * buffer at run time, so that a pipeline (compaction -> sort -> gather -> indirect draw)
 * needs no readback.
 *
 * A call given a count_buffer first stages min(count_buffer[count_offset], bound) into a
 * word of its own (LOAD), at element 0 of a library buffer, which every stage of the call
 * binds at COUNT_BINDING. A stage's count parameter then carries COUNT_ON_GPU above the
 * bound (the count the host sizes the dispatch and the scratch by): the shaders take
 * device_count(param) (glsl/common.glsl), the staged word clamped to the bound, and treat
 * the elements past it as absent (not read, not written). Counts stay below 2^31
 * (ALGO_MAX_COUNT), so bit 31 is free to say so. */
#ifndef GPGPU_ALGO_COUNT_H
#define GPGPU_ALGO_COUNT_H

#include "algo/algo.h"
#include "algo/ids/count_ids.h"

enum { COUNT_STAGES(ALGO_ID) };
enum { COUNT_PARAMS(ALGO_ID) };

#define COUNT_ON_GPU 0x80000000u

enum {
    COUNT_BINDING = 7, /* device_count_word in glsl/common.glsl */
    COUNT_SLOT = 8     /* the context's scratch slot of the staged word */
};

/* Checks a public call's count_buffer and count_offset (a u32 element of a buffer of ctx);
 * NULL is no device count. */
gpgpu_status count_check(gpgpu_context *ctx, const gpgpu_buffer *count_buffer,
                         size_t count_offset, const char *what);

/* LOAD: word[word_off] = min(src[src_off], bound), one invocation. */
gpgpu_status count_stage_load(gpgpu_context *ctx, gpgpu_buffer *src, size_t src_off,
                              size_t bound, gpgpu_buffer *word, size_t word_off);

/* PUT: dst[dst_off] = value, one invocation (a count of 0, a status word). */
gpgpu_status count_stage_put(gpgpu_context *ctx, gpgpu_buffer *dst, size_t dst_off,
                             uint32_t value);

/* Stages a call's count: *staged = NULL without a count_buffer, else the word LOAD wrote
 * (in COUNT_SLOT) for the call's stages to bind (count_bind). */
gpgpu_status count_stage(gpgpu_context *ctx, gpgpu_buffer *count_buffer, size_t count_offset,
                         size_t bound, gpgpu_buffer **staged);

/* Binds the staged word (NULL: none) to a dispatch whose count is params[at]. */
static inline void count_bind(exec_dispatch *d, gpgpu_buffer *staged, unsigned at)
{
    if (!staged)
        return;
    d->bind[COUNT_BINDING] = staged;
    d->params[at] |= COUNT_ON_GPU;
}

#endif /* GPGPU_ALGO_COUNT_H */
