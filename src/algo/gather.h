/* Gather and scatter of records (glsl/gather.comp): the drivers of gpgpu_gather and
 * gpgpu_scatter and their stage, callable alone for the tests. A record is `words` u32
 * words; record offsets and counts are in records, the indices' offset in u32. */
#ifndef GPGPU_ALGO_GATHER_H
#define GPGPU_ALGO_GATHER_H

#include "algo/algo.h"
#include "algo/ids/gather_ids.h"

enum { GATHER_STAGES(ALGO_ID) };
enum { GATHER_PARAMS(ALGO_ID) };
enum { GATHER_SHAPES(ALGO_SHAPE) };

enum {
    GATHER_WG = 256,
    GATHER_ITEMS = 4, /* units per invocation per block, loaded before any is stored */
    GATHER_SLOT = 10  /* the context's scratch slot of the largest index */
};

/* One gather or scatter: n records (the bound, with a count on the GPU) of `words` words.
 * `largest` holds the largest index at largest_off (the reduce family's MAX); `limit` the
 * records of the side the indices address (gather: in's, scatter: out's). */
typedef struct gather_job {
    size_t words;
    gpgpu_buffer *in;
    size_t in_off;
    gpgpu_buffer *idx;
    size_t idx_off;
    gpgpu_buffer *out;
    size_t out_off;
    size_t n;
    gpgpu_buffer *count; /* NULL, or the staged device count (algo/count.h) */
    gpgpu_buffer *largest;
    size_t largest_off;
    size_t limit;
    gpgpu_buffer *status; /* NULL, or where 1 (an index out of range) or 0 goes */
    size_t status_off;
} gather_job;

/* The unit a job moves: 4, 2 or 1 words, the widest that divides the record and both
 * offsets within their bindings. */
unsigned gather_unit(const gather_job *job);

/* GATHER (scatter false: SCATTER): every record moved, unless n > 0 and the largest index
 * is `limit` or more: then nothing. */
gpgpu_status gather_stage_move(gpgpu_context *ctx, const gather_job *job, bool scatter);

#endif /* GPGPU_ALGO_GATHER_H */
