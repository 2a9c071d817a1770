/* The vector family (glsl/vector.comp): what an iterative solver does
 * between its sparse products, y = alpha*x + beta*y and dot products, on
 * f32/f64 vectors. Each stage callable alone for the tests; offsets and
 * counts in elements. */
#ifndef GPGPU_ALGO_VECTOR_H
#define GPGPU_ALGO_VECTOR_H

#include "algo/algo.h"
#include "algo/reduce.h"

/* AXPBY: y[i] = alpha*x[i] + beta*y[i] for i < n; beta = 0 writes y
 * without reading it. */
gpgpu_status vector_stage_axpby(gpgpu_context *ctx, gpgpu_type type, size_t n, double alpha,
                                gpgpu_buffer *x, size_t x_off, double beta, gpgpu_buffer *y,
                                size_t y_off);

/* DOT: part[part_off + g] = the sum of x[i]*y[i] over what group g of
 * `groups` reads in the reduce family's TILES layout (reduce_plan_for). */
gpgpu_status vector_stage_dot(gpgpu_context *ctx, gpgpu_type type, size_t n, gpgpu_buffer *x,
                              size_t x_off, gpgpu_buffer *y, size_t y_off, gpgpu_buffer *part,
                              size_t part_off, uint32_t groups);

#endif /* GPGPU_ALGO_VECTOR_H */
