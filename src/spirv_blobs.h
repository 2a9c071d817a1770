/* SPIR-V of every glsl/ family variant, built by glsl/embed.py for Vulkan. */
#ifndef GPGPU_SPIRV_BLOBS_H
#define GPGPU_SPIRV_BLOBS_H

#include <stddef.h>
#include <stdint.h>

typedef struct spirv_blob {
    const char *name; /* "<family>.<TYPE>.<OP>[.sg]", e.g. "reduce.F32.MINMAX.sg" */
    const uint32_t *words;
    size_t size_bytes;
} spirv_blob;

extern const spirv_blob spirv_blobs[];
extern const size_t spirv_blob_count;

#endif /* GPGPU_SPIRV_BLOBS_H */
