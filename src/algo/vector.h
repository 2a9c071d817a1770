/* The vector family (glsl/vector.comp): what an iterative solver does
 * between its sparse products, y = alpha*x + beta*y, on f32/f64 vectors;
 * its dot products are the reduce family's TILES over products
 * (reduce_source.times). Offsets and counts in elements. */
#ifndef GPGPU_ALGO_VECTOR_H
#define GPGPU_ALGO_VECTOR_H

#include "algo/algo.h"
#include "algo/ids/vector_ids.h"

enum { VECTOR_STAGES(ALGO_ID) };
enum { VECTOR_PARAMS(ALGO_ID) };

enum {
    AXPBY_WG = 256,
    AXPBY_ITEMS = 4 /* default elements per invocation (GPGPU_TUNE=axpby_items) */
};

/* AXPBY: y[i] = alpha*x[i] + beta*y[i] for i < n; beta = 0 writes y
 * without reading it. */
gpgpu_status vector_stage_axpby(gpgpu_context *ctx, gpgpu_type type, size_t n, double alpha,
                                gpgpu_buffer *x, size_t x_off, double beta, gpgpu_buffer *y,
                                size_t y_off);

#endif /* GPGPU_ALGO_VECTOR_H */
