/*
 * Reproducible test and benchmark matrices (gpgpu_generate). A local
 * splitmix64 stream rather than rand(): the same seed gives the same matrix
 * on every C library and in every thread.
 */
#include <math.h>
#include <stdlib.h>

#include "core/checked.h"
#include "sparse/sparse_internal.h"

typedef struct rng {
    uint64_t state;
} rng;

static uint64_t rng_next(rng *g)
{
    uint64_t z = (g->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* [0, 1) with 53 random bits. */
static double rng_unit(rng *g)
{
    return (double)(rng_next(g) >> 11) * 0x1p-53;
}

static double rng_value(rng *g)
{
    return 2 * rng_unit(g) - 1;
}

/* [0, n) by a multiply rather than %, which would favour small values more. */
static uint32_t rng_below(rng *g, uint64_t n)
{
    return (uint32_t)(((rng_next(g) >> 32) * n) >> 32);
}

/* ------------------------------------------------------- direct CSR builds */

/* A CSR whose rows come out in order, column-sorted, from a row callback that
 * writes row i's columns (or only counts them when cols is NULL). */
typedef uint32_t (*row_fn)(const void *shape, uint32_t i, uint32_t *cols, double *values,
                           rng *g);

static gpgpu_status build_rows(uint32_t rows, uint32_t cols, const void *shape, row_fn fn,
                               rng *g, gpgpu_csr *out)
{
    size_t nnz = 0;
    for (uint32_t i = 0; i < rows; i++) {
        nnz += fn(shape, i, NULL, NULL, g);
    }
    if (nnz > GPGPU_SPARSE_MAX_INDEX) {
        return GPGPU_ERROR_TOO_LARGE;
    }
    gpgpu_csr a = {.rows = rows, .cols = cols, .nnz = nnz};
    a.row_ptr = sparse_alloc((size_t)rows + 1, sizeof *a.row_ptr);
    a.col_idx = sparse_alloc(nnz, sizeof *a.col_idx);
    a.values = sparse_alloc(nnz, sizeof *a.values);
    if (a.row_ptr == NULL || a.col_idx == NULL || a.values == NULL) {
        gpgpu_csr_free(&a);
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    a.row_ptr[0] = 0;
    for (uint32_t i = 0; i < rows; i++) {
        uint32_t at = a.row_ptr[i];
        a.row_ptr[i + 1] = at + fn(shape, i, a.col_idx + at, a.values + at, g);
    }
    *out = a;
    return GPGPU_SUCCESS;
}

typedef struct stencil {
    uint32_t n;
    bool full; /* 27 points, else 7 */
} stencil;

/* Offsets in (dz, dy, dx) order, so the columns ascend; Dirichlet boundary:
 * neighbours outside the cube are dropped, which keeps the matrix SPD. */
static uint32_t stencil_row(const void *shape, uint32_t i, uint32_t *cols, double *values,
                            rng *g)
{
    (void)g;
    const stencil *st = shape;
    int64_t n = st->n;
    int64_t x = i % n, y = i / n % n, z = i / n / n;
    uint32_t count = 0;
    for (int dz = -1; dz <= 1; dz++) {
        for (int dy = -1; dy <= 1; dy++) {
            for (int dx = -1; dx <= 1; dx++) {
                int far = abs(dz) + abs(dy) + abs(dx);
                if ((!st->full && far > 1) || z + dz < 0 || z + dz >= n || y + dy < 0 ||
                    y + dy >= n || x + dx < 0 || x + dx >= n) {
                    continue;
                }
                if (cols != NULL) {
                    cols[count] = (uint32_t)(((z + dz) * n + y + dy) * n + x + dx);
                    values[count] = far == 0 ? (st->full ? 26.0 : 6.0) : -1.0;
                }
                count++;
            }
        }
    }
    return count;
}

static gpgpu_status laplacian(uint32_t n, bool full, gpgpu_csr *out)
{
    size_t rows;
    if (!size_mul(n, n, &rows) || !size_mul(rows, n, &rows) || rows > GPGPU_SPARSE_MAX_INDEX) {
        return GPGPU_ERROR_TOO_LARGE;
    }
    stencil st = {.n = n, .full = full};
    return build_rows((uint32_t)rows, (uint32_t)rows, &st, stencil_row, NULL, out);
}

typedef struct band {
    uint32_t size, half;
} band;

static uint32_t band_row(const void *shape, uint32_t i, uint32_t *cols, double *values, rng *g)
{
    const band *b = shape;
    uint32_t first = i > b->half ? i - b->half : 0;
    uint64_t end = (uint64_t)i + b->half + 1;
    uint32_t last = end < b->size ? (uint32_t)end : b->size;
    if (cols != NULL) {
        for (uint32_t j = first; j < last; j++) {
            cols[j - first] = j;
            values[j - first] = rng_value(g);
        }
    }
    return last - first;
}

/* DENSE is the band that covers every column. The entries are counted first in closed form:
 * rows of 2h + 1 but for the h(h + 1) the two corners cut off (h at most size - 1), so that a
 * band past 2^31 - 1 entries is refused before a pass over its rows. */
static gpgpu_status banded(uint32_t size, uint32_t half, rng *g, gpgpu_csr *out)
{
    uint64_t h = size > 0 && half >= size ? size - 1u : half;
    if (size > 0 && (uint64_t)size * (2 * h + 1) - h * (h + 1) > GPGPU_SPARSE_MAX_INDEX) {
        return GPGPU_ERROR_TOO_LARGE;
    }
    band b = {.size = size, .half = half};
    return build_rows(size, size, &b, band_row, g, out);
}

/* ------------------------------------------------------ builds via triples */

/* Sums the duplicates into *out and frees the triples, whatever happened. */
static gpgpu_status finish(sparse_triples *t, gpgpu_status s, uint32_t rows, uint32_t cols,
                           gpgpu_csr *out)
{
    if (s != GPGPU_SUCCESS) {
        sparse_triples_free(t);
        return s;
    }
    return sparse_triples_to_csr(t, rows, cols, out, NULL, 0);
}

/* Uniform in [0, 2 avg], mean avg. */
static void uniform_lengths(uint32_t size, uint32_t avg, rng *g, uint32_t *lengths)
{
    for (uint32_t i = 0; i < size; i++) {
        lengths[i] = rng_below(g, 2 * (uint64_t)avg + 1);
    }
}

/* Weights w = 1/u, u uniform in (0, 1], have density w^-2 on [1, inf): the
 * exponent 2. Scaled to a total of avg * size and rounded by carrying the
 * fractions, so the mean is avg but for rows capped at size columns. The
 * stream is replayed for the second pass rather than the weights kept. */
static void power_law_lengths(uint32_t size, uint32_t avg, rng *g, uint32_t *lengths)
{
    rng start = *g;
    double sum = 0;
    for (uint32_t i = 0; i < size; i++) {
        double w = 1.0 / (1.0 - rng_unit(g));
        sum += w < size ? w : size;
    }
    *g = start;
    double scale = (double)avg * size / sum, carried = 0;
    for (uint32_t i = 0; i < size; i++) {
        double w = 1.0 / (1.0 - rng_unit(g));
        double next = carried + (w < size ? w : size) * scale;
        double len = floor(next) - floor(carried);
        lengths[i] = len < size ? (uint32_t)len : size;
        carried = next;
    }
}

typedef void (*lengths_fn)(uint32_t size, uint32_t avg, rng *g, uint32_t *lengths);

/* size x size, rows of the lengths fn draws, columns uniform (a column drawn
 * twice is summed); with full_row, row 0 holds every column instead. */
static gpgpu_status random_matrix(uint32_t size, uint32_t avg, lengths_fn fn, bool full_row,
                                  rng *g, gpgpu_csr *out)
{
    uint32_t *lengths = sparse_alloc(size, sizeof *lengths);
    if (lengths == NULL) {
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    fn(size, avg, g, lengths);
    if (full_row && size > 0) {
        lengths[0] = size;
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < size; i++) {
        total += lengths[i];
    }
    sparse_triples t;
    gpgpu_status s = sparse_triples_init(&t, total);
    for (uint32_t i = 0; s == GPGPU_SUCCESS && i < size; i++) {
        bool full = full_row && i == 0;
        for (uint32_t k = 0; k < lengths[i]; k++) {
            sparse_triples_add(&t, i, full ? k : rng_below(g, size), rng_value(g));
        }
    }
    free(lengths);
    return finish(&t, s, size, size, out);
}

/* R-MAT: each edge picks one of four quadrants per level, 16 random bits a
 * level (four levels a draw), with probabilities .57, .19, .19, .05. */
static gpgpu_status rmat(uint32_t scale, uint32_t avg, rng *g, gpgpu_csr *out)
{
    if (scale > 30) {
        return GPGPU_ERROR_TOO_LARGE;
    }
    const uint32_t a = 37355, ab = a + 12452, abc = ab + 12452; /* of 65536 */
    uint64_t edges = (uint64_t)avg << scale;
    sparse_triples t;
    gpgpu_status s = sparse_triples_init(&t, edges);
    for (uint64_t e = 0; s == GPGPU_SUCCESS && e < edges; e++) {
        uint32_t i = 0, j = 0;
        uint64_t bits = 0;
        for (uint32_t level = 0; level < scale; level++) {
            if (level % 4 == 0) {
                bits = rng_next(g);
            }
            uint32_t q = (uint32_t)(bits & 0xffff);
            bits >>= 16;
            i = i << 1 | (q >= ab);
            j = j << 1 | ((q >= a && q < ab) || q >= abc);
        }
        sparse_triples_add(&t, i, j, rng_value(g));
    }
    return finish(&t, s, 1u << scale, 1u << scale, out);
}

GPGPU_API gpgpu_status gpgpu_generate(gpgpu_generator gen, uint32_t size, uint32_t avg,
                                      uint64_t seed, gpgpu_csr *out)
{
    if (out == NULL) {
        return GPGPU_ERROR_NULL_POINTER;
    }
    *out = (gpgpu_csr){0};
    if (size > GPGPU_SPARSE_MAX_INDEX || avg > GPGPU_SPARSE_MAX_INDEX) {
        return GPGPU_ERROR_TOO_LARGE;
    }
    /* The generator in the stream too: one seed gives unrelated matrices of two kinds. */
    rng g = {.state = seed ^ ((uint64_t)gen << 56)};
    switch (gen) {
    case GPGPU_GEN_LAPLACE3D_7: return laplacian(size, false, out);
    case GPGPU_GEN_LAPLACE3D_27: return laplacian(size, true, out);
    case GPGPU_GEN_RANDOM: return random_matrix(size, avg, uniform_lengths, false, &g, out);
    case GPGPU_GEN_POWER_LAW: return random_matrix(size, avg, power_law_lengths, false, &g, out);
    case GPGPU_GEN_RMAT: return rmat(size, avg, &g, out);
    case GPGPU_GEN_BANDED: return banded(size, avg, &g, out);
    case GPGPU_GEN_DENSE_ROW: return random_matrix(size, avg, uniform_lengths, true, &g, out);
    case GPGPU_GEN_DENSE:
        if ((uint64_t)size * size > GPGPU_SPARSE_MAX_INDEX) {
            return GPGPU_ERROR_TOO_LARGE;
        }
        return banded(size, size, &g, out);
    }
    return GPGPU_ERROR_INVALID_ARGUMENT;
}
