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
 * refused like a value that does. */
static gpgpu_status add_value(const mtx_reader *r, gpgpu_type type, void *data, size_t idx,
                              mtx_value v)
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
    if (overflow) {
        return mtx_fail(r, GPGPU_ERROR_PARSE, "the sum of duplicate entries is out of range for %s",
                    gpgpu_type_name(type));
    }
    return GPGPU_SUCCESS;
}

/* ----------------------------------------------------------------- header */

/* What a vector can be: integer, real or double, general or symmetric ... */
static gpgpu_status check_banner(const mtx_reader *r, const mtx_banner *b)
{
    if (b->field == MTX_PATTERN || b->field == MTX_COMPLEX) {
        return mtx_fail(r, GPGPU_ERROR_PARSE,
                        "field '%s' is not supported (only integer, real or double)",
                        mtx_field_name(b->field));
    }
    if (b->symmetry == MTX_SKEW_SYMMETRIC || b->symmetry == MTX_HERMITIAN) {
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

/* Where the values go: an array of `type`, zeroed, so that missing
 * coordinate entries read as zero. */
typedef struct vector_sink {
    gpgpu_type type;
    void *data;
    size_t rows;
} vector_sink;

static gpgpu_status array_value(const mtx_reader *r, size_t index, const char *tok, void *user)
{
    const vector_sink *sink = user;
    mtx_value v;
    gpgpu_status s = parse_value(r, sink->type, tok, &v);
    if (s == GPGPU_SUCCESS) {
        store_value(sink->type, sink->data, index, v);
    }
    return s;
}

static gpgpu_status coordinate_entry(const mtx_reader *r, size_t i, size_t j, const char *tok,
                                     void *user)
{
    const vector_sink *sink = user;
    mtx_value v;
    gpgpu_status s = parse_value(r, sink->type, tok, &v);
    return s != GPGPU_SUCCESS ? s : add_value(r, sink->type, sink->data, i + j * sink->rows, v);
}

/* On failure *data may hold a partial array for the caller to free. */
static gpgpu_status read_file(mtx_reader *r, gpgpu_type type, void **data, size_t *count)
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
    if (s != GPGPU_SUCCESS) {
        return s;
    }
    /* No overflow: one of the two is 0 or 1. */
    *count = shape.rows * shape.cols;
    if (*count > 0) {
        *data = calloc(*count, gpgpu_type_size(type));
        if (*data == NULL) {
            return mtx_fail(r, GPGPU_ERROR_OUT_OF_MEMORY, "cannot allocate %zu values", *count);
        }
    }
    vector_sink sink = {.type = type, .data = *data, .rows = shape.rows};
    return b.coordinate ? mtx_read_coordinate(r, &shape, false, coordinate_entry, &sink)
                        : mtx_read_array(r, *count, array_value, &sink);
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
    void *values = NULL;
    size_t n = 0;
    s = read_file(&r, type, &values, &n);
    mtx_close(&r);
    if (s != GPGPU_SUCCESS) {
        free(values);
        return s;
    }
    *data = values;
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
