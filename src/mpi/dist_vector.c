/* Distributed vectors: each rank's slice in a buffer of its context; dot products and norms
 * as libgpgpu's on the slices and one MPI_Allreduce, updates on the slices. */
#include "dist_internal.h"

#include <math.h>
#include <stdlib.h>

static gpgpu_status check_type(gpgpu_context *ctx, gpgpu_type type)
{
    gpgpu_info info;

    DIST_CHECK(type == GPGPU_TYPE_F32 || type == GPGPU_TYPE_F64, GPGPU_ERROR_INVALID_ARGUMENT,
               "distributed vectors are f32 or f64, not type %d", (int)type);
    DIST_CHECK(gpgpu_context_get_info(ctx, &info) == GPGPU_SUCCESS, GPGPU_ERROR_NULL_POINTER,
               "no context");
    DIST_CHECK(type != GPGPU_TYPE_F64 || info.has_f64, GPGPU_ERROR_UNSUPPORTED_FEATURE,
               "f64 vectors need shader doubles, which %s has not", info.renderer);
    return GPGPU_SUCCESS;
}

/* A vector over `buffer` (NULL: a buffer of its own, made here). */
static gpgpu_status make(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type type,
                         uint32_t local_size, uint64_t first, uint64_t size,
                         gpgpu_buffer *buffer, size_t offset, gpgpu_mpi_vector **out)
{
    gpgpu_mpi_vector *v = calloc(1, sizeof *v);

    DIST_CHECK(v != NULL, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    *v = (gpgpu_mpi_vector){ .ctx = ctx, .comm = comm, .type = type, .local_size = local_size,
                             .first = first, .size = size, .buffer = buffer, .offset = offset };
    if (buffer == NULL) {
        /* Buffers cannot be empty: a rank without elements still gets one. */
        size_t bytes = (local_size > 0 ? local_size : 1) * gpgpu_type_size(type);
        gpgpu_status status = gpgpu_buffer_create(ctx, bytes, &v->buffer);
        if (status != GPGPU_SUCCESS) {
            free(v);
            return dist_fail_core(status, ctx, "a vector's buffer");
        }
        v->owned = true;
    }
    *out = v;
    return GPGPU_SUCCESS;
}

gpgpu_status dist_vector_make(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type type,
                              uint32_t local_size, uint64_t first, uint64_t size,
                              gpgpu_mpi_vector **out)
{
    return make(ctx, comm, type, local_size, first, size, NULL, 0, out);
}

/* Every rank's slice size: this one's first index and the sum. */
static gpgpu_status layout(MPI_Comm comm, uint32_t local_size, uint64_t *first, uint64_t *size)
{
    uint64_t mine = local_size, before = 0;

    DIST_TRY(dist_mpi_check(MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, comm),
                            "MPI_Exscan"));
    DIST_TRY(dist_mpi_check(MPI_Allreduce(&mine, size, 1, MPI_UINT64_T, MPI_SUM, comm),
                            "MPI_Allreduce"));
    int rank;
    MPI_Comm_rank(comm, &rank);
    *first = rank == 0 ? 0 : before; /* MPI_Exscan leaves rank 0's result undefined */
    return GPGPU_SUCCESS;
}

static gpgpu_status vector_create(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type type,
                                  uint32_t local_size, gpgpu_buffer *buffer, size_t offset,
                                  gpgpu_mpi_vector **out)
{
    gpgpu_status status = GPGPU_SUCCESS;
    uint64_t first = 0, size = 0;

    if (out != NULL)
        *out = NULL;
    if (ctx == NULL || out == NULL)
        status = dist_fail(GPGPU_ERROR_NULL_POINTER, "a vector needs a context and out");
    if (status == GPGPU_SUCCESS)
        status = check_type(ctx, type);
    if (status == GPGPU_SUCCESS && buffer != NULL) {
        size_t bytes = gpgpu_buffer_size(buffer), element = gpgpu_type_size(type);
        if (offset > bytes / element || local_size > bytes / element - offset)
            status = dist_fail(GPGPU_ERROR_OUT_OF_RANGE,
                               "%u elements from %zu run past the buffer's %zu bytes",
                               local_size, offset, bytes);
    }
    DIST_TRY(dist_agree(comm, status));
    DIST_TRY(layout(comm, local_size, &first, &size));
    status = make(ctx, comm, type, local_size, first, size, buffer, offset, out);
    return dist_agree(comm, status);
}

gpgpu_status gpgpu_mpi_vector_create(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type type,
                                     uint32_t local_size, gpgpu_mpi_vector **out)
{
    gpgpu_status status = vector_create(ctx, comm, type, local_size, NULL, 0, out);
    if (status != GPGPU_SUCCESS && out != NULL) {
        gpgpu_mpi_vector_destroy(*out);
        *out = NULL;
    }
    return status;
}

gpgpu_status gpgpu_mpi_vector_wrap(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type type,
                                   uint32_t local_size, gpgpu_buffer *buffer, size_t offset,
                                   gpgpu_mpi_vector **out)
{
    gpgpu_status status = buffer == NULL
                              ? dist_fail(GPGPU_ERROR_NULL_POINTER, "the wrapped buffer is NULL")
                              : GPGPU_SUCCESS;
    if (status != GPGPU_SUCCESS) {
        if (out != NULL)
            *out = NULL;
        return dist_agree(comm, status);
    }
    status = vector_create(ctx, comm, type, local_size, buffer, offset, out);
    if (status != GPGPU_SUCCESS && out != NULL) {
        gpgpu_mpi_vector_destroy(*out);
        *out = NULL;
    }
    return status;
}

void gpgpu_mpi_vector_destroy(gpgpu_mpi_vector *v)
{
    if (v == NULL)
        return;
    if (v->owned)
        gpgpu_buffer_destroy(v->buffer);
    free(v);
}

gpgpu_status gpgpu_mpi_vector_get_info(const gpgpu_mpi_vector *v, gpgpu_mpi_vector_info *info)
{
    DIST_CHECK(v != NULL && info != NULL, GPGPU_ERROR_NULL_POINTER, "vector or info is NULL");
    *info = (gpgpu_mpi_vector_info){ .type = v->type, .local_size = v->local_size,
                                     .first = v->first, .size = v->size, .buffer = v->buffer,
                                     .offset = v->offset };
    return GPGPU_SUCCESS;
}

gpgpu_status dist_vectors_match(const char *what, const gpgpu_mpi_vector *x,
                                const gpgpu_mpi_vector *y)
{
    DIST_CHECK(x->type == y->type, GPGPU_ERROR_INVALID_ARGUMENT, "%s: vectors of %s and %s",
               what, gpgpu_type_name(x->type), gpgpu_type_name(y->type));
    DIST_CHECK(x->ctx == y->ctx, GPGPU_ERROR_INVALID_ARGUMENT,
               "%s: vectors of two contexts", what);
    DIST_CHECK(x->local_size == y->local_size, GPGPU_ERROR_INVALID_ARGUMENT,
               "%s: slices of %u and %u elements", what, x->local_size, y->local_size);
    return GPGPU_SUCCESS;
}

/* The bytes of a vector's slice in its buffer. */
static size_t slice_bytes(const gpgpu_mpi_vector *v)
{
    return (size_t)v->local_size * gpgpu_type_size(v->type);
}

static size_t slice_start(const gpgpu_mpi_vector *v)
{
    return v->offset * gpgpu_type_size(v->type);
}

bool dist_slices_overlap(const gpgpu_mpi_vector *x, const gpgpu_mpi_vector *y)
{
    return x->buffer == y->buffer && x->local_size > 0 && y->local_size > 0 &&
           slice_start(x) < slice_start(y) + slice_bytes(y) &&
           slice_start(y) < slice_start(x) + slice_bytes(x);
}

/* Overlapping slices that are not the same range: what an update refuses. */
static bool partly_overlap(const gpgpu_mpi_vector *x, const gpgpu_mpi_vector *y)
{
    return dist_slices_overlap(x, y) && !(x->offset == y->offset && x->type == y->type);
}

/* The communicator of a call on x and y. A rank that passes NULL for both has none and takes
 * MPI_COMM_WORLD, which meets the others' agreement only where they work on it too: a NULL
 * handle is a programming error that the agreement catches where it can. */
static MPI_Comm comm_of(const gpgpu_mpi_vector *x, const gpgpu_mpi_vector *y)
{
    return x != NULL ? x->comm : y != NULL ? y->comm : MPI_COMM_WORLD;
}

gpgpu_status gpgpu_mpi_vector_fill(gpgpu_mpi_vector *v, double value)
{
    gpgpu_status status = GPGPU_SUCCESS;
    void *host = NULL;

    if (v == NULL)
        return dist_agree(comm_of(v, NULL), dist_fail(GPGPU_ERROR_NULL_POINTER,
                                                      "gpgpu_mpi_vector_fill: the vector is NULL"));
    if (v->local_size > 0) {
        double *values = malloc((size_t)v->local_size * sizeof *values);
        host = malloc(slice_bytes(v));
        if (values == NULL || host == NULL)
            status = dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
        for (uint32_t i = 0; status == GPGPU_SUCCESS && i < v->local_size; i++)
            values[i] = value;
        if (status == GPGPU_SUCCESS) {
            dist_from_double(v->type, values, v->local_size, host);
            status = gpgpu_buffer_upload(v->buffer, slice_start(v), host, slice_bytes(v));
            if (status != GPGPU_SUCCESS)
                status = dist_fail_core(status, v->ctx, "gpgpu_mpi_vector_fill");
        }
        free(values);
    }
    free(host);
    return dist_agree(v->comm, status);
}

/* The counts and displacements of every rank's slice, on root (for Scatterv and Gatherv);
 * NULL elsewhere. Free them whatever it returns. */
static gpgpu_status slice_layout(const gpgpu_mpi_vector *v, int root, int **counts,
                                 int **displs)
{
    int rank, size, mine = (int)v->local_size;
    gpgpu_status status = GPGPU_SUCCESS;

    MPI_Comm_rank(v->comm, &rank);
    MPI_Comm_size(v->comm, &size);
    *counts = *displs = NULL;
    if (rank == root) {
        *counts = malloc((size_t)size * sizeof **counts);
        *displs = malloc((size_t)size * sizeof **displs);
        if (*counts == NULL || *displs == NULL)
            status = dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
        /* MPI counts and displacements are int. */
        else if (v->size > INT32_MAX)
            status = dist_fail(GPGPU_ERROR_TOO_LARGE,
                               "a vector of %llu elements is past what one MPI_Scatterv moves",
                               (unsigned long long)v->size);
    }
    DIST_TRY(dist_agree(v->comm, status));
    DIST_TRY(dist_mpi_check(MPI_Gather(&mine, 1, MPI_INT, *counts, 1, MPI_INT, root, v->comm),
                            "MPI_Gather"));
    for (int r = 0, at = 0; rank == root && r < size; r++) {
        (*displs)[r] = at;
        at += (*counts)[r];
    }
    return GPGPU_SUCCESS;
}

/* The checks every rank can make of a scatter or gather, the root's values too, agreed. */
static gpgpu_status check_root(const gpgpu_mpi_vector *v, int root, const void *values,
                               const char *what)
{
    int rank, size;
    gpgpu_status status = GPGPU_SUCCESS;

    if (v == NULL)
        return dist_agree(comm_of(v, NULL),
                          dist_fail(GPGPU_ERROR_NULL_POINTER, "%s: the vector is NULL", what));
    MPI_Comm_rank(v->comm, &rank);
    MPI_Comm_size(v->comm, &size);
    if (root < 0 || root >= size)
        status = dist_fail(GPGPU_ERROR_INVALID_ARGUMENT, "%s: root %d of %d ranks", what, root,
                           size);
    else if (rank == root && values == NULL)
        status = dist_fail(GPGPU_ERROR_NULL_POINTER, "%s: the values are NULL on the root",
                           what);
    return dist_agree(v->comm, status);
}

/* The host arrays of a scatter or gather: the slice as doubles and in the type; agreed, so
 * that either every rank takes its part in the messages or none does. */
static gpgpu_status staging(const gpgpu_mpi_vector *v, double **mine, void **host)
{
    *mine = malloc(((size_t)v->local_size + 1) * sizeof **mine);
    *host = malloc(slice_bytes(v) + 1);
    return dist_agree(v->comm, *mine != NULL && *host != NULL
                                   ? GPGPU_SUCCESS
                                   : dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory"));
}

gpgpu_status gpgpu_mpi_vector_scatter(gpgpu_mpi_vector *v, int root, const double *values)
{
    int *counts = NULL, *displs = NULL;
    double *mine = NULL;
    void *host = NULL;
    gpgpu_status status = check_root(v, root, values, "gpgpu_mpi_vector_scatter");

    if (status == GPGPU_SUCCESS)
        status = slice_layout(v, root, &counts, &displs);
    if (status == GPGPU_SUCCESS)
        status = staging(v, &mine, &host);
    if (status == GPGPU_SUCCESS)
        status = dist_mpi_check(MPI_Scatterv(values, counts, displs, MPI_DOUBLE, mine,
                                             (int)v->local_size, MPI_DOUBLE, root, v->comm),
                                "MPI_Scatterv");
    if (status == GPGPU_SUCCESS && v->local_size > 0) {
        dist_from_double(v->type, mine, v->local_size, host);
        status = gpgpu_buffer_upload(v->buffer, slice_start(v), host, slice_bytes(v));
        if (status != GPGPU_SUCCESS)
            status = dist_fail_core(status, v->ctx, "gpgpu_mpi_vector_scatter");
        status = dist_agree(v->comm, status);
    } else if (status == GPGPU_SUCCESS) {
        status = dist_agree(v->comm, status);
    }
    free(host);
    free(mine);
    free(counts);
    free(displs);
    return status;
}

gpgpu_status gpgpu_mpi_vector_gather(const gpgpu_mpi_vector *v, int root, double *values)
{
    int *counts = NULL, *displs = NULL;
    double *mine = NULL;
    void *host = NULL;
    gpgpu_status status = check_root(v, root, values, "gpgpu_mpi_vector_gather");

    if (status == GPGPU_SUCCESS)
        status = slice_layout(v, root, &counts, &displs);
    if (status == GPGPU_SUCCESS)
        status = staging(v, &mine, &host);
    if (status == GPGPU_SUCCESS) {
        gpgpu_status read = GPGPU_SUCCESS;
        if (v->local_size > 0) {
            read = gpgpu_buffer_download(v->buffer, slice_start(v), host, slice_bytes(v));
            if (read != GPGPU_SUCCESS)
                read = dist_fail_core(read, v->ctx, "gpgpu_mpi_vector_gather");
            else
                dist_to_double(v->type, host, v->local_size, mine);
        }
        /* A rank whose download failed still sends (what it has), so root never waits on a
         * missing slice; the agreement after says whether the values can be trusted. */
        status = dist_mpi_check(MPI_Gatherv(mine, (int)v->local_size, MPI_DOUBLE, values, counts,
                                            displs, MPI_DOUBLE, root, v->comm),
                                "MPI_Gatherv");
        status = dist_agree(v->comm, read != GPGPU_SUCCESS ? read : status);
    }
    free(host);
    free(mine);
    free(counts);
    free(displs);
    return status;
}

/* ------------------------------------------------------- reductions, updates */

/* The local checks of an operation on x, y (and w), each may be NULL only where said. */
static gpgpu_status check_vectors(const char *what, const gpgpu_mpi_vector *x,
                                  const gpgpu_mpi_vector *y, const gpgpu_mpi_vector *w)
{
    DIST_CHECK(x != NULL && y != NULL, GPGPU_ERROR_NULL_POINTER, "%s: a vector is NULL", what);
    DIST_TRY(dist_vectors_match(what, x, y));
    if (w != NULL)
        DIST_TRY(dist_vectors_match(what, y, w));
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_mpi_dot(const gpgpu_mpi_vector *x, const gpgpu_mpi_vector *y, double *result)
{
    gpgpu_status status = check_vectors("gpgpu_mpi_dot", x, y, NULL);
    double sum = 0;

    if (status == GPGPU_SUCCESS && result == NULL)
        status = dist_fail(GPGPU_ERROR_NULL_POINTER, "gpgpu_mpi_dot: result is NULL");
    if (status == GPGPU_SUCCESS) {
        status = gpgpu_dot(x->ctx, x->type, x->local_size, x->buffer, x->offset, y->buffer,
                           y->offset, &sum);
        if (status != GPGPU_SUCCESS)
            status = dist_fail_core(status, x->ctx, "gpgpu_mpi_dot");
    }
    DIST_TRY(dist_sum(comm_of(x, y), &sum, 1, status));
    *result = sum;
    return GPGPU_SUCCESS;
}

/* The largest |x_i| of this rank's slice from its min and max (0 when empty); *nan when one
 * is NaN. */
static gpgpu_status slice_max_abs(const gpgpu_mpi_vector *x, double *top, bool *nan)
{
    gpgpu_reduce_desc minmax = { .type = x->type, .op = GPGPU_OP_MINMAX };
    union {
        float f32[2];
        double f64[2];
    } range;

    *top = 0;
    *nan = false;
    if (x->local_size == 0)
        return GPGPU_SUCCESS;
    gpgpu_status status = gpgpu_reduce(x->ctx, &minmax, x->buffer, x->offset, x->local_size,
                                       &range);
    if (status != GPGPU_SUCCESS)
        return dist_fail_core(status, x->ctx, "gpgpu_mpi_norm");
    double lo = x->type == GPGPU_TYPE_F32 ? range.f32[0] : range.f64[0];
    double hi = x->type == GPGPU_TYPE_F32 ? range.f32[1] : range.f64[1];
    *nan = isnan(lo) || isnan(hi);
    *top = *nan ? 0 : fmax(fabs(lo), fabs(hi));
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_mpi_norm(const gpgpu_mpi_vector *x, gpgpu_mpi_norm_kind kind, double *result)
{
    gpgpu_status status = GPGPU_SUCCESS;
    MPI_Comm comm = comm_of(x, NULL);

    if (x == NULL || result == NULL)
        status = dist_fail(GPGPU_ERROR_NULL_POINTER, "gpgpu_mpi_norm: a NULL pointer");
    else if (kind != GPGPU_MPI_NORM_2 && kind != GPGPU_MPI_NORM_INF)
        status = dist_fail(GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_mpi_norm: unknown kind %d",
                           (int)kind);
    if (kind == GPGPU_MPI_NORM_2) {
        double dot = 0;
        if (status == GPGPU_SUCCESS) {
            status = gpgpu_dot(x->ctx, x->type, x->local_size, x->buffer, x->offset, x->buffer,
                               x->offset, &dot);
            if (status != GPGPU_SUCCESS)
                status = dist_fail_core(status, x->ctx, "gpgpu_mpi_norm");
        }
        DIST_TRY(dist_sum(comm, &dot, 1, status));
        *result = sqrt(dot);
        return GPGPU_SUCCESS;
    }
    /* MPI_MAX over the slices: a NaN goes as a flag, since MPI_MAX's comparisons would drop
     * it, and a failure as another. */
    double top[3] = { 0, 0, 0 };
    bool nan = false;
    if (status == GPGPU_SUCCESS)
        status = slice_max_abs(x, &top[0], &nan);
    top[1] = nan ? 1 : 0;
    top[2] = status == GPGPU_SUCCESS ? 0 : 1;
    DIST_TRY(dist_mpi_check(MPI_Allreduce(MPI_IN_PLACE, top, 3, MPI_DOUBLE, MPI_MAX, comm),
                            "MPI_Allreduce"));
    if (top[2] != 0)
        return dist_agree(comm, status);
    *result = top[1] != 0 ? NAN : top[0];
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_mpi_axpby(double alpha, const gpgpu_mpi_vector *x, double beta,
                             gpgpu_mpi_vector *y)
{
    gpgpu_status status = check_vectors("gpgpu_mpi_axpby", x, y, NULL);

    if (status == GPGPU_SUCCESS && partly_overlap(x, y))
        status = dist_fail(GPGPU_ERROR_OVERLAP, "gpgpu_mpi_axpby: x and y overlap");
    if (status == GPGPU_SUCCESS) {
        status = gpgpu_axpby(x->ctx, x->type, x->local_size, alpha, x->buffer, x->offset, beta,
                             y->buffer, y->offset);
        if (status != GPGPU_SUCCESS)
            status = dist_fail_core(status, x->ctx, "gpgpu_mpi_axpby");
    }
    return dist_agree(comm_of(x, y), status);
}

gpgpu_status gpgpu_mpi_axpby_dot(double alpha, const gpgpu_mpi_vector *x, double beta,
                                 gpgpu_mpi_vector *y, const gpgpu_mpi_vector *w, double *result)
{
    gpgpu_status status = check_vectors("gpgpu_mpi_axpby_dot", x, y, w);
    double sum = 0;

    if (status == GPGPU_SUCCESS && result == NULL)
        status = dist_fail(GPGPU_ERROR_NULL_POINTER, "gpgpu_mpi_axpby_dot: result is NULL");
    if (status == GPGPU_SUCCESS && partly_overlap(x, y))
        status = dist_fail(GPGPU_ERROR_OVERLAP, "gpgpu_mpi_axpby_dot: x and y overlap");
    if (status == GPGPU_SUCCESS) {
        status = gpgpu_axpby_dot(x->ctx, x->type, x->local_size, alpha, x->buffer, x->offset,
                                 beta, y->buffer, y->offset, w->buffer, w->offset, &sum);
        if (status != GPGPU_SUCCESS)
            status = dist_fail_core(status, x->ctx, "gpgpu_mpi_axpby_dot");
    }
    DIST_TRY(dist_sum(comm_of(x, y), &sum, 1, status));
    *result = sum;
    return GPGPU_SUCCESS;
}
