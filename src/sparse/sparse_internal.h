/* What the host sparse files (csr.c, formats.c, generate.c) and the matrix
 * reader share. */
#ifndef GPGPU_SPARSE_INTERNAL_H
#define GPGPU_SPARSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpgpu/sparse.h"

#if defined(__GNUC__)
#define SPARSE_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SPARSE_PRINTF(fmt, args)
#endif

/* Writes the message into msg (when there is room) and hands status back. */
SPARSE_PRINTF(4, 5)
gpgpu_status sparse_fail(char *msg, size_t msg_size, gpgpu_status status, const char *fmt, ...);

/* malloc of count elements, never NULL for count 0 (so NULL only means failure). */
void *sparse_alloc(size_t count, size_t size);

/* out[k] = the line (row of a CSR, column of a CSC) of entry k. */
void sparse_expand_ptr(const uint32_t *ptr, uint32_t lines, uint32_t *out);

/* Stable counting sort of n entries by key[k] < buckets: ptr[buckets + 1] receives each
 * bucket's start, (other[k], val[k]) land in out_other, out_val in key order. Entries of one
 * bucket keep their order, so sorting by column, then by row, leaves rows with ascending
 * columns in linear time. */
void sparse_bucket(size_t n, uint32_t buckets, const uint32_t *key, const uint32_t *other,
                   const double *val, uint32_t *ptr, uint32_t *out_other, double *out_val);

/* (row, col, value) triples in the order they come, turned into a CSR at the end
 * (gpgpu_csr_from_coo sums the duplicates). */
typedef struct sparse_triples {
    uint32_t *row, *col;
    double *val;
    size_t n;
    size_t cap_row, cap_col, cap_val; /* equal but for a failed growth */
} sparse_triples;

/* Room for exactly cap triples; GPGPU_ERROR_TOO_LARGE past 2^31 - 1. */
gpgpu_status sparse_triples_init(sparse_triples *t, uint64_t cap);

/* Doubles the room of a full list (for lists whose final length is unknown). */
gpgpu_status sparse_triples_grow(sparse_triples *t);

/* Appends a triple; false when the list is full. */
static inline bool sparse_triples_add(sparse_triples *t, uint32_t i, uint32_t j, double v)
{
    if (t->n == t->cap_val) {
        return false;
    }
    t->row[t->n] = i;
    t->col[t->n] = j;
    t->val[t->n] = v;
    t->n++;
    return true;
}

void sparse_triples_free(sparse_triples *t);

/* The CSR of the triples (gpgpu_csr_from_coo); frees them either way. */
gpgpu_status sparse_triples_to_csr(sparse_triples *t, uint32_t rows, uint32_t cols,
                                   gpgpu_csr *out, char *msg, size_t msg_size);

#endif /* GPGPU_SPARSE_INTERNAL_H */
