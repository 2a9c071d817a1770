/*
 * MatrixMarket vectors: reading array or coordinate files of one row or one
 * column, writing array files of one column.
 */
#include "gpgpu/io.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/mtx_internal.h"

static gpgpu_status parse_integer(const mtx_reader *r, gpgpu_type type, const char *tok,
                                  mtx_value *v)
{
    bool is_u32 = type == GPGPU_TYPE_U32;
    long long lo = is_u32 ? 0 : INT32_MIN;
    long long hi = is_u32 ? (long long)UINT32_MAX : INT32_MAX;
    if (!mtx_all_digits(mtx_skip_sign(tok))) {
        return mtx_fail(r, GPGPU_ERROR_PARSE,
                    "'%s' is not an integer (%s takes whole numbers, no fraction or exponent)",
                    tok, gpgpu_type_name(type));
    }
    errno = 0;
    long long x = strtoll(tok, NULL, 10);
    if (errno == ERANGE || x < lo || x > hi) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "%s is out of range for %s (%lld..%lld)", tok,
                    gpgpu_type_name(type), lo, hi);
    }
    if (is_u32) {
        v->u = (uint32_t)x;
    } else {
        v->i = (int32_t)x;
    }
    return GPGPU_SUCCESS;
}

static gpgpu_status parse_value(const mtx_reader *r, gpgpu_type type, const char *tok,
                                mtx_value *v)
{
    if (type == GPGPU_TYPE_U32 || type == GPGPU_TYPE_I32) {
        return parse_integer(r, type, tok, v);
    }
    return mtx_parse_float(r, type, tok, v);
}

static void store_value(gpgpu_type type, void *data, size_t idx, mtx_value v)
{
    size_t size = gpgpu_type_size(type);
    memcpy((char *)data + idx * size, &v, size);
}

/* Coordinate duplicates are summed; a sum that leaves the type's range is
 * refused like a value that does. Returns false on overflow. */
static bool add_value(gpgpu_type type, void *data, size_t idx, mtx_value v)
{
    bool overflow = false;
    switch (type) {
    case GPGPU_TYPE_U32: {
        uint64_t sum = (uint64_t)((uint32_t *)data)[idx] + v.u;
        overflow = sum > UINT32_MAX;
        ((uint32_t *)data)[idx] = (uint32_t)sum;
        break;
    }
    case GPGPU_TYPE_I32: {
        int64_t sum = (int64_t)((int32_t *)data)[idx] + v.i;
        overflow = sum < INT32_MIN || sum > INT32_MAX;
        ((int32_t *)data)[idx] = (int32_t)sum;
        break;
    }
    case GPGPU_TYPE_F32: {
        float *p = (float *)data + idx;
        overflow = isinf(*p + v.f) && !isinf(*p) && !isinf(v.f);
        *p += v.f;
        break;
    }
    case GPGPU_TYPE_F64: {
        double *p = (double *)data + idx;
        overflow = isinf(*p + v.d) && !isinf(*p) && !isinf(v.d);
        *p += v.d;
        break;
    }
    }
    return !overflow;
}

/* ----------------------------------------------------------------- header */

/* What a vector can be: integer, real or double, general or symmetric (hermitian too: with
 * real values it is symmetric) ... */
static gpgpu_status check_banner(const mtx_reader *r, const mtx_banner *b)
{
    if (b->field == MTX_PATTERN || b->field == MTX_COMPLEX) {
        return mtx_fail(r, GPGPU_ERROR_PARSE,
                        "field '%s' is not supported (only integer, real or double)",
                        mtx_field_name(b->field));
    }
    if (b->symmetry == MTX_SKEW_SYMMETRIC) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "symmetry '%s' is not supported for a vector",
                        mtx_symmetry_name(b->symmetry));
    }
    return GPGPU_SUCCESS;
}

/* ... and one row or column. */
static gpgpu_status check_shape(const mtx_reader *r, const mtx_shape *shape)
{
    if (shape->rows > 1 && shape->cols > 1) {
        return mtx_fail(r, GPGPU_ERROR_PARSE,
                        "shape %zux%zu is not a vector (one row or column)", shape->rows,
                        shape->cols);
    }
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------------- body */

/* Where the values go as they arrive: an array of `type` that doubles up to
 * the declared count, so that a size line alone allocates nothing. Array
 * files fill it in order; coordinate files first gather (index, value)
 * pairs, then lay them over zeros once the whole file has been checked. */
typedef struct vector_sink {
    gpgpu_type type;
    void *data;      /* the values as they came (array files: in place) */
    uint32_t *index; /* coordinate files: where each value goes */
    size_t n, cap;
    size_t count;   /* declared: rows * cols */
    size_t entries; /* declared: coordinate files' entry lines */
    size_t rows;
} vector_sink;

enum { FIRST_VALUES = 1 << 12 };

/* Room for one more value (index too for coordinate files), at most `limit`:
 * the declared count, which the body readers never let the values pass. */
static gpgpu_status reserve_value(const mtx_reader *r, vector_sink *sink, size_t limit,
                                  bool with_index)
{
    if (sink->n < sink->cap) {
        return GPGPU_SUCCESS;
    }
    size_t cap = sink->cap > 0 ? 2 * sink->cap : FIRST_VALUES;
    cap = cap < limit ? cap : limit;
    void *data = realloc(sink->data, cap * gpgpu_type_size(sink->type));
    sink->data = data != NULL ? data : sink->data;
    uint32_t *index = with_index && data != NULL ? realloc(sink->index, cap * sizeof *index)
                                                 : sink->index;
    sink->index = index != NULL ? index : sink->index;
    if (data == NULL || (with_index && index == NULL)) {
        return mtx_fail(r, GPGPU_ERROR_OUT_OF_MEMORY, "cannot allocate %zu values", cap);
    }
    sink->cap = cap;
    return GPGPU_SUCCESS;
}

static gpgpu_status array_value(const mtx_reader *r, size_t index, const char *tok, void *user)
{
    vector_sink *sink = user;
    mtx_value v;
    /* mtx_read_array stops at the declared count: index is below it. */
    gpgpu_status s = reserve_value(r, sink, sink->count, false);
    if (s == GPGPU_SUCCESS) {
        s = parse_value(r, sink->type, tok, &v);
    }
    if (s == GPGPU_SUCCESS) {
        store_value(sink->type, sink->data, index, v);
        sink->n = index + 1;
    }
    return s;
}

static gpgpu_status coordinate_entry(const mtx_reader *r, size_t i, size_t j, const char *tok,
                                     void *user)
{
    vector_sink *sink = user;
    mtx_value v;
    gpgpu_status s = reserve_value(r, sink, sink->entries, true);
    if (s == GPGPU_SUCCESS) {
        s = parse_value(r, sink->type, tok, &v);
    }
    if (s == GPGPU_SUCCESS) {
        /* One of i and j is 0; the shape bounds the other below 2^31. */
        sink->index[sink->n] = (uint32_t)(i + j * sink->rows);
        store_value(sink->type, sink->data, sink->n++, v);
    }
    return s;
}

/* The gathered pairs over `count` zeros, summed in the order of the file. */
static gpgpu_status lay_out(const mtx_reader *r, vector_sink *sink, size_t count)
{
    size_t size = gpgpu_type_size(sink->type);
    void *dense = calloc(count, size);
    if (dense == NULL) {
        return mtx_fail(r, GPGPU_ERROR_OUT_OF_MEMORY, "cannot allocate %zu values", count);
    }
    for (size_t k = 0; k < sink->n; k++) {
        mtx_value v = {0};
        memcpy(&v, (const char *)sink->data + k * size, size);
        if (!add_value(sink->type, dense, sink->index[k], v)) {
            free(dense);
            mtx_report(r->msg, r->msg_size, r->path, 0,
                       "the duplicate entries of element %u sum past the range of %s",
                       sink->index[k] + 1, gpgpu_type_name(sink->type));
            return GPGPU_ERROR_PARSE;
        }
    }
    free(sink->data);
    sink->data = dense;
    return GPGPU_SUCCESS;
}

/* On failure sink->data may hold a partial array for the caller to free. */
static gpgpu_status read_file(mtx_reader *r, vector_sink *sink, size_t *count)
{
    mtx_banner b = {0};
    mtx_shape shape = {0};
    gpgpu_status s = mtx_parse_banner(r, &b);
    if (s == GPGPU_SUCCESS) {
        s = check_banner(r, &b);
    }
    if (s == GPGPU_SUCCESS) {
        s = mtx_parse_size_line(r, &b, &shape);
    }
    if (s == GPGPU_SUCCESS) {
        s = check_shape(r, &shape);
    }
    if (s == GPGPU_SUCCESS) {
        s = mtx_check_counts(r, &shape);
    }
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    /* No overflow: one of the two is 0 or 1, the other below 2^31. */
    *count = shape.rows * shape.cols;
    sink->count = *count;
    sink->entries = shape.entries;
    sink->rows = shape.rows;
    if (!b.coordinate) {
        return mtx_read_array(r, *count, array_value, sink);
    }
    s = mtx_read_coordinate(r, &shape, false, coordinate_entry, sink);
    return s != GPGPU_SUCCESS || *count == 0 ? s : lay_out(r, sink, *count);
}

GPGPU_API gpgpu_status gpgpu_mtx_read_vector(const char *path, gpgpu_type type, void **data,
                                             size_t *count, char *msg, size_t msg_size)
{
    if (data != NULL) {
        *data = NULL;
    }
    if (count != NULL) {
        *count = 0;
    }
    if (path == NULL || data == NULL || count == NULL) {
        mtx_report(msg, msg_size, NULL, 0,
                   "gpgpu_mtx_read_vector: path, data and count are required");
        return GPGPU_ERROR_NULL_POINTER;
    }
    if (gpgpu_type_size(type) == 0) {
        mtx_report(msg, msg_size, NULL, 0, "gpgpu_mtx_read_vector: unknown type %d", (int)type);
        return GPGPU_ERROR_INVALID_ARGUMENT;
    }
    mtx_reader r;
    gpgpu_status s = mtx_open(&r, path, msg, msg_size);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    vector_sink sink = {.type = type};
    size_t n = 0;
    s = read_file(&r, &sink, &n);
    mtx_close(&r);
    free(sink.index);
    if (s != GPGPU_SUCCESS) {
        free(sink.data);
        return s;
    }
    *data = n > 0 ? sink.data : NULL;
    *count = n;
    return GPGPU_SUCCESS;
}

/* ---------------------------------------------------------------- writing */

/* One value and its newline. */
static int write_float(FILE *f, double x, int digits)
{
    return mtx_write_float(f, x, digits) < 0 ? -1 : fputc('\n', f);
}

static int write_value(FILE *f, gpgpu_type type, const void *data, size_t i)
{
    switch (type) {
    case GPGPU_TYPE_U32: return fprintf(f, "%" PRIu32 "\n", ((const uint32_t *)data)[i]);
    case GPGPU_TYPE_I32: return fprintf(f, "%" PRId32 "\n", ((const int32_t *)data)[i]);
    case GPGPU_TYPE_F32: return write_float(f, (double)((const float *)data)[i], 9);
    case GPGPU_TYPE_F64: return write_float(f, ((const double *)data)[i], 17);
    }
    return -1;
}

static bool write_values(FILE *f, gpgpu_type type, const void *data, size_t count)
{
    bool integer = type == GPGPU_TYPE_U32 || type == GPGPU_TYPE_I32;
    if (fprintf(f, "%%%%MatrixMarket matrix array %s general\n%zu 1\n",
                integer ? "integer" : "real", count) < 0) {
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        if (write_value(f, type, data, i) < 0) {
            return false;
        }
    }
    return true;
}

GPGPU_API gpgpu_status gpgpu_mtx_write_vector(const char *path, gpgpu_type type, const void *data,
                                              size_t count, char *msg, size_t msg_size)
{
    if (path == NULL || (data == NULL && count > 0)) {
        mtx_report(msg, msg_size, NULL, 0, "gpgpu_mtx_write_vector: path and data are required");
        return GPGPU_ERROR_NULL_POINTER;
    }
    if (gpgpu_type_size(type) == 0) {
        mtx_report(msg, msg_size, NULL, 0, "gpgpu_mtx_write_vector: unknown type %d", (int)type);
        return GPGPU_ERROR_INVALID_ARGUMENT;
    }
    FILE *f;
    gpgpu_status s = mtx_create(path, &f, msg, msg_size);
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    return mtx_finish(path, f, write_values(f, type, data, count), msg, msg_size);
}
