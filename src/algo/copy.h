/* The copy family (glsl/copy.comp): copies by compute shader. */
#ifndef GPGPU_ALGO_COPY_H
#define GPGPU_ALGO_COPY_H

#include "algo/algo.h"
#include "algo/ids/copy_ids.h"

enum { COPY_STAGES(ALGO_ID) };
enum { COPY_PARAMS(ALGO_ID) };

enum { COPY_WG = 256, COPY_ITEMS = 4, COPY_MAX_ITEMS = 16, COPY_MAX_GROUPS = 1 << 24 };

/* COPY: `bytes` bytes (a multiple of 4) from byte src_off of src to byte
 * dst_off of dst (both multiples of 4); the ranges must not overlap. */
gpgpu_status copy_stage(gpgpu_context *ctx, gpgpu_buffer *src, size_t src_off, gpgpu_buffer *dst,
                        size_t dst_off, size_t bytes);

#endif /* GPGPU_ALGO_COPY_H */
