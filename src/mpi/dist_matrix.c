/* Distributed matrices: each rank's rows split into the diagonal block (its own columns)
 * and the off-diagonal block over the sorted ghost columns, the send and receive lists of
 * the halo exchange, and the objects a product uses, all made once here. */
#include "dist_internal.h"

#include <stdlib.h>
#include <string.h>

/* Ranges of the off-diagonal block's rows: two ranges of rows with entries are merged when
 * fewer empty rows than this lie between them, and the closest ranges are merged until at
 * most DIST_MAX_RANGES remain. A range costs one product call (a few microseconds on a
 * discrete GPU, tens on llvmpipe); an empty row inside one costs a read and a write of its
 * y (16 bytes in f64: 65536 of them are ~0.3 us at 4 TB/s). A row block of a stencil matrix
 * has two ranges with entries, its first and its last planes, far apart. */
#define DIST_RANGE_GAP 65536u
#define DIST_MAX_RANGES 8u

/* Every message of the exchange has this tag, on the matrix's own communicator. */
#define DIST_HALO_TAG 7

/* ------------------------------------------------------------- the checks */

static gpgpu_status check_desc(gpgpu_context *ctx, const gpgpu_mpi_matrix_desc *desc)
{
    gpgpu_info info;
    gpgpu_type type = desc->local.type;

    DIST_CHECK(type == GPGPU_TYPE_F32 || type == GPGPU_TYPE_F64, GPGPU_ERROR_INVALID_ARGUMENT,
               "distributed matrices are f32 or f64 (desc.local.type), not %d", (int)type);
    DIST_CHECK(desc->overlap >= GPGPU_MPI_OVERLAP_DEFAULT &&
                   desc->overlap <= GPGPU_MPI_OVERLAP_NONE,
               GPGPU_ERROR_INVALID_ARGUMENT, "unknown overlap %d", (int)desc->overlap);
    DIST_CHECK(gpgpu_context_get_info(ctx, &info) == GPGPU_SUCCESS, GPGPU_ERROR_NULL_POINTER,
               "no context");
    DIST_CHECK(type != GPGPU_TYPE_F64 || info.has_f64, GPGPU_ERROR_UNSUPPORTED_FEATURE,
               "f64 matrices need shader doubles, which %s has not", info.renderer);
    return GPGPU_SUCCESS;
}

static gpgpu_status check_create(gpgpu_context *ctx, const gpgpu_mpi_matrix_desc *desc,
                                 const gpgpu_csr *rows, gpgpu_mpi_matrix **out)
{
    char msg[256] = "";

    DIST_CHECK(ctx != NULL && desc != NULL && rows != NULL && out != NULL,
               GPGPU_ERROR_NULL_POINTER, "gpgpu_mpi_matrix_create: a NULL pointer");
    DIST_TRY(check_desc(ctx, desc));
    gpgpu_status status = gpgpu_csr_check(rows, true, msg, sizeof msg);
    DIST_CHECK(status == GPGPU_SUCCESS, status, "this rank's rows: %s", msg);
    return GPGPU_SUCCESS;
}

/* The thread level MPI gives decides the default overlap; THREAD needs SERIALIZED. */
static gpgpu_status resolve_overlap(gpgpu_mpi_overlap asked, gpgpu_mpi_overlap *out)
{
    int level = MPI_THREAD_SINGLE;

    DIST_TRY(dist_mpi_check(MPI_Query_thread(&level), "MPI_Query_thread"));
    bool threads = level >= MPI_THREAD_SERIALIZED;
    DIST_CHECK(asked != GPGPU_MPI_OVERLAP_THREAD || threads, GPGPU_ERROR_UNSUPPORTED_FEATURE,
               "GPGPU_MPI_OVERLAP_THREAD calls MPI from a helper thread: it needs MPI "
               "initialized with MPI_THREAD_SERIALIZED or more (MPI_Init_thread), not level %d",
               level);
    *out = asked != GPGPU_MPI_OVERLAP_DEFAULT ? asked
           : threads                          ? GPGPU_MPI_OVERLAP_THREAD
                                              : GPGPU_MPI_OVERLAP_INLINE;
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------- the layout */

/* Every rank's rows and columns (MPI_Allgather), and the checks they allow. */
static gpgpu_status gather_layout(gpgpu_mpi_matrix *a, const gpgpu_csr *rows,
                                  uint32_t local_cols)
{
    uint32_t cols = rows->cols;
    uint64_t mine[4] = { rows->rows, local_cols, cols, rows->nnz }, *all;

    a->row_begin = calloc((size_t)a->size + 1, sizeof *a->row_begin);
    a->col_begin = calloc((size_t)a->size + 1, sizeof *a->col_begin);
    all = malloc((size_t)a->size * sizeof mine);
    gpgpu_status status = a->row_begin && a->col_begin && all
                              ? GPGPU_SUCCESS
                              : dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    status = dist_agree(a->comm, status);
    if (status == GPGPU_SUCCESS)
        status = dist_mpi_check(
            MPI_Allgather(mine, 4, MPI_UINT64_T, all, 4, MPI_UINT64_T, a->comm), "MPI_Allgather");
    for (int r = 0; status == GPGPU_SUCCESS && r < a->size; r++) {
        const uint64_t *theirs = all + 4 * r;
        a->row_begin[r + 1] = a->row_begin[r] + theirs[0];
        a->col_begin[r + 1] = a->col_begin[r] + theirs[1];
        a->nnz += theirs[3];
        /* Rank 0's count is the one every rank compares with, so all fail alike. */
        if (theirs[2] != all[2])
            status = dist_fail(GPGPU_ERROR_INVALID_ARGUMENT,
                               "rank %d's rows have %llu columns, rank 0's %llu", r,
                               (unsigned long long)theirs[2], (unsigned long long)all[2]);
    }
    if (status == GPGPU_SUCCESS && a->col_begin[a->size] != cols)
        status = dist_fail(GPGPU_ERROR_INVALID_ARGUMENT,
                           "the ranks' local_cols add up to %llu, but the matrix has %u columns",
                           (unsigned long long)a->col_begin[a->size], cols);
    free(all);
    if (status != GPGPU_SUCCESS)
        return status;
    a->rows = a->row_begin[a->size];
    a->cols = cols;
    a->local_rows = rows->rows;
    a->local_cols = local_cols;
    return status;
}

/* ---------------------------------------------------- the split of the rows */

static int compare_u32(const void *p, const void *q)
{
    uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;
    return (a > b) - (a < b);
}

/* The index of `col` in the ascending list (it is there). */
static uint32_t find_ghost(const uint32_t *ghosts, uint32_t count, uint32_t col)
{
    uint32_t lo = 0, hi = count;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ghosts[mid] <= col)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* What the split leaves on the host until the blocks are uploaded. */
typedef struct split {
    gpgpu_csr diag;       /* local columns */
    gpgpu_csr offd;       /* columns: ghost indices */
} split;

static void split_free(split *s)
{
    gpgpu_csr_free(&s->diag);
    gpgpu_csr_free(&s->offd);
}

static bool owns_col(const gpgpu_mpi_matrix *a, uint32_t col)
{
    return col >= a->col_begin[a->rank] && col < a->col_begin[a->rank + 1];
}

/* The ascending list of the columns of other ranks that the rows use. */
static gpgpu_status find_ghosts(gpgpu_mpi_matrix *a, const gpgpu_csr *rows)
{
    size_t count = 0;

    for (size_t k = 0; k < rows->nnz; k++)
        count += !owns_col(a, rows->col_idx[k]);
    a->ghosts = malloc((count > 0 ? count : 1) * sizeof *a->ghosts);
    DIST_CHECK(a->ghosts != NULL, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    count = 0;
    for (size_t k = 0; k < rows->nnz; k++) {
        if (!owns_col(a, rows->col_idx[k]))
            a->ghosts[count++] = rows->col_idx[k];
    }
    qsort(a->ghosts, count, sizeof *a->ghosts, compare_u32);
    uint32_t unique = 0;
    for (size_t k = 0; k < count; k++) {
        if (unique == 0 || a->ghosts[unique - 1] != a->ghosts[k])
            a->ghosts[unique++] = a->ghosts[k];
    }
    a->ghost_count = unique;
    return GPGPU_SUCCESS;
}

/* Each row's entries go to the diagonal block (column - first column) or the off-diagonal
 * one (the ghost's index); both keep the columns ascending, as the rows had them. */
static gpgpu_status split_rows(gpgpu_mpi_matrix *a, const gpgpu_csr *rows, split *s)
{
    uint32_t n = rows->rows, first_col = (uint32_t)a->col_begin[a->rank];

    DIST_TRY(find_ghosts(a, rows));
    s->diag = (gpgpu_csr){ .rows = n, .cols = a->local_cols };
    s->offd = (gpgpu_csr){ .rows = n, .cols = a->ghost_count };
    for (size_t k = 0; k < rows->nnz; k++) {
        if (owns_col(a, rows->col_idx[k]))
            s->diag.nnz++;
    }
    s->offd.nnz = rows->nnz - s->diag.nnz;
    s->diag.row_ptr = calloc((size_t)n + 1, sizeof(uint32_t));
    s->offd.row_ptr = calloc((size_t)n + 1, sizeof(uint32_t));
    s->diag.col_idx = malloc((s->diag.nnz + 1) * sizeof(uint32_t));
    s->offd.col_idx = malloc((s->offd.nnz + 1) * sizeof(uint32_t));
    s->diag.values = malloc((s->diag.nnz + 1) * sizeof(double));
    s->offd.values = malloc((s->offd.nnz + 1) * sizeof(double));
    a->diagonal = calloc((size_t)n + 1, sizeof *a->diagonal);
    DIST_CHECK(s->diag.row_ptr && s->offd.row_ptr && s->diag.col_idx && s->offd.col_idx &&
                   s->diag.values && s->offd.values && a->diagonal,
               GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    size_t d = 0, o = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t global_row = a->row_begin[a->rank] + i;
        for (uint32_t k = rows->row_ptr[i]; k < rows->row_ptr[i + 1]; k++) {
            uint32_t col = rows->col_idx[k];
            if (owns_col(a, col)) {
                s->diag.col_idx[d] = col - first_col;
                s->diag.values[d++] = rows->values[k];
                if (col == global_row)
                    a->diagonal[i] = rows->values[k];
            } else {
                s->offd.col_idx[o] = find_ghost(a->ghosts, a->ghost_count, col);
                s->offd.values[o++] = rows->values[k];
            }
        }
        s->diag.row_ptr[i + 1] = (uint32_t)d;
        s->offd.row_ptr[i + 1] = (uint32_t)o;
    }
    a->diag_nnz = s->diag.nnz;
    a->offd_nnz = s->offd.nnz;
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------ the exchange's plan */

/* Who sends what to whom: each rank tells each owner how many of its columns it needs
 * (MPI_Alltoall) and which (MPI_Alltoallv), as PETSc's VecScatter and Ginkgo's
 * RowGatherer are set up. */
static gpgpu_status build_plan(gpgpu_mpi_matrix *a)
{
    int p = a->size;
    int *recv_all = calloc((size_t)p, sizeof(int)), *send_all = calloc((size_t)p, sizeof(int));
    int *recv_at = calloc((size_t)p, sizeof(int)), *send_at = calloc((size_t)p, sizeof(int));
    uint32_t *asked = NULL;
    gpgpu_status status = recv_all && send_all && recv_at && send_at
                              ? GPGPU_SUCCESS
                              : dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");

    /* The ghosts ascend, and so do the owners' column ranges. */
    for (uint32_t g = 0, q = 0; status == GPGPU_SUCCESS && g < a->ghost_count; g++) {
        while (a->ghosts[g] >= a->col_begin[q + 1])
            q++;
        recv_all[q]++;
    }
    status = dist_agree(a->comm, status);
    if (status == GPGPU_SUCCESS)
        status = dist_mpi_check(MPI_Alltoall(recv_all, 1, MPI_INT, send_all, 1, MPI_INT, a->comm),
                                "MPI_Alltoall");
    uint64_t sends = 0;
    for (int q = 0; status == GPGPU_SUCCESS && q < p; q++) {
        recv_at[q] = q > 0 ? recv_at[q - 1] + recv_all[q - 1] : 0;
        send_at[q] = q > 0 ? send_at[q - 1] + send_all[q - 1] : 0;
        sends += (uint64_t)send_all[q];
        a->recv_rank_count += recv_all[q] > 0;
        a->send_rank_count += send_all[q] > 0;
    }
    if (status == GPGPU_SUCCESS && sends > INT32_MAX)
        status = dist_fail(GPGPU_ERROR_TOO_LARGE, "%llu values to send a product",
                           (unsigned long long)sends);
    if (status == GPGPU_SUCCESS) {
        asked = malloc((sends + 1) * sizeof *asked);
        a->recv_ranks = malloc(((size_t)a->recv_rank_count + 1) * 3 * sizeof(int));
        a->send_ranks = malloc(((size_t)a->send_rank_count + 1) * 3 * sizeof(int));
        if (asked == NULL || a->recv_ranks == NULL || a->send_ranks == NULL)
            status = dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    status = dist_agree(a->comm, status);
    if (status == GPGPU_SUCCESS)
        status = dist_mpi_check(MPI_Alltoallv(a->ghosts, recv_all, recv_at, MPI_UINT32_T, asked,
                                              send_all, send_at, MPI_UINT32_T, a->comm),
                                "MPI_Alltoallv");
    if (status == GPGPU_SUCCESS) {
        /* Three int arrays in one allocation each side: ranks, counts, displacements. */
        a->recv_counts = a->recv_ranks + a->recv_rank_count + 1;
        a->recv_displs = a->recv_counts + a->recv_rank_count + 1;
        a->send_counts = a->send_ranks + a->send_rank_count + 1;
        a->send_displs = a->send_counts + a->send_rank_count + 1;
        for (int q = 0, r = 0, s = 0; q < p; q++) {
            if (recv_all[q] > 0) {
                a->recv_ranks[r] = q;
                a->recv_counts[r] = recv_all[q];
                a->recv_displs[r++] = recv_at[q];
            }
            if (send_all[q] > 0) {
                a->send_ranks[s] = q;
                a->send_counts[s] = send_all[q];
                a->send_displs[s++] = send_at[q];
            }
        }
        a->send_count = (uint32_t)sends;
        /* The columns asked for are this rank's by construction (each rank found their
         * owner in the same layout); a global index becomes a local one. */
        for (uint64_t k = 0; k < sends; k++)
            asked[k] -= (uint32_t)a->col_begin[a->rank];
    }
    free(recv_all);
    free(send_all);
    free(recv_at);
    free(send_at);
    if (status == GPGPU_SUCCESS)
        status = dist_agree(a->comm, status);
    /* The gather matrix keeps them: one row per value sent, a 1 at its column. */
    if (status == GPGPU_SUCCESS && a->send_count > 0) {
        gpgpu_csr s = { .rows = a->send_count, .cols = a->local_cols, .nnz = a->send_count };
        s.row_ptr = malloc(((size_t)a->send_count + 1) * sizeof(uint32_t));
        s.values = malloc((size_t)a->send_count * sizeof(double));
        s.col_idx = asked;
        asked = NULL;
        if (s.row_ptr == NULL || s.values == NULL) {
            status = dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
        } else {
            for (uint32_t k = 0; k <= a->send_count; k++)
                s.row_ptr[k] = k;
            for (uint32_t k = 0; k < a->send_count; k++)
                s.values[k] = 1;
            gpgpu_matrix_desc csr = { .type = a->type, .format = GPGPU_FORMAT_CSR };
            status = gpgpu_matrix_create(a->ctx, &csr, &s, &a->gather);
            if (status != GPGPU_SUCCESS)
                status = dist_fail_core(status, a->ctx, "the gather matrix");
        }
        gpgpu_csr_free(&s);
    }
    free(asked);
    return status;
}

/* ------------------------------------------------------ the GPU's objects */

/* The rows of the off-diagonal block that have entries, as ranges (DIST_RANGE_GAP). */
static gpgpu_status find_ranges(gpgpu_mpi_matrix *a, const gpgpu_csr *offd)
{
    uint32_t count = 0;
    dist_range *r = malloc(((size_t)offd->rows / 2 + 2) * sizeof *r);

    DIST_CHECK(r != NULL, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (uint32_t i = 0; i < offd->rows; i++) {
        if (offd->row_ptr[i + 1] == offd->row_ptr[i])
            continue;
        if (count > 0 && i - (r[count - 1].first + r[count - 1].rows) < DIST_RANGE_GAP)
            r[count - 1].rows = i + 1 - r[count - 1].first;
        else
            r[count++] = (dist_range){ .first = i, .rows = 1 };
    }
    while (count > DIST_MAX_RANGES) {
        uint32_t best = 0, best_gap = UINT32_MAX;
        for (uint32_t k = 0; k + 1 < count; k++) {
            uint32_t gap = r[k + 1].first - (r[k].first + r[k].rows);
            if (gap < best_gap) {
                best = k;
                best_gap = gap;
            }
        }
        r[best].rows = r[best + 1].first + r[best + 1].rows - r[best].first;
        memmove(r + best + 1, r + best + 2, (count - best - 2) * sizeof *r);
        count--;
    }
    a->ranges = r;
    a->range_count = count;
    for (uint32_t k = 0; k < count; k++)
        a->offd_rows += r[k].rows;
    return GPGPU_SUCCESS;
}

/* One CSR matrix per range: its rows of the off-diagonal block, over all the ghosts. */
static gpgpu_status upload_ranges(gpgpu_mpi_matrix *a, const gpgpu_csr *offd)
{
    gpgpu_matrix_desc csr = { .type = a->type, .format = GPGPU_FORMAT_CSR };

    for (uint32_t k = 0; k < a->range_count; k++) {
        dist_range *r = &a->ranges[k];
        uint32_t base = offd->row_ptr[r->first];
        gpgpu_csr part = { .rows = r->rows, .cols = offd->cols,
                           .nnz = offd->row_ptr[r->first + r->rows] - base,
                           .col_idx = offd->col_idx + base, .values = offd->values + base };
        part.row_ptr = malloc(((size_t)r->rows + 1) * sizeof(uint32_t));
        DIST_CHECK(part.row_ptr != NULL, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
        for (uint32_t i = 0; i <= r->rows; i++)
            part.row_ptr[i] = offd->row_ptr[r->first + i] - base;
        gpgpu_status status = gpgpu_matrix_create(a->ctx, &csr, &part, &r->block);
        free(part.row_ptr);
        if (status != GPGPU_SUCCESS)
            return dist_fail_core(status, a->ctx, "the off-diagonal block");
    }
    return GPGPU_SUCCESS;
}

/* The blocks, the exchange's buffers on both sides and its persistent requests. */
static gpgpu_status make_objects(gpgpu_mpi_matrix *a, const gpgpu_mpi_matrix_desc *desc,
                                 split *s)
{
    size_t size = gpgpu_type_size(a->type);
    gpgpu_status status;

    /* A rank without rows has nothing to multiply: no block at all. */
    if (a->local_rows > 0) {
        status = gpgpu_matrix_create(a->ctx, &desc->local, &s->diag, &a->diag);
        if (status != GPGPU_SUCCESS)
            return dist_fail_core(status, a->ctx, "the diagonal block");
    }
    DIST_TRY(find_ranges(a, &s->offd));
    DIST_TRY(upload_ranges(a, &s->offd));
    if (a->send_count > 0) {
        status = gpgpu_buffer_create(a->ctx, a->send_count * size, &a->send_gpu);
        if (status != GPGPU_SUCCESS)
            return dist_fail_core(status, a->ctx, "the send buffer");
    }
    if (a->ghost_count > 0) {
        status = gpgpu_buffer_create(a->ctx, a->ghost_count * size, &a->ghost_gpu);
        if (status != GPGPU_SUCCESS)
            return dist_fail_core(status, a->ctx, "the ghost buffer");
    }
    a->send_host = malloc(((size_t)a->send_count + 1) * size);
    a->recv_host = malloc(((size_t)a->ghost_count + 1) * size);
    a->requests = malloc(((size_t)a->recv_rank_count + a->send_rank_count + 1) *
                         sizeof *a->requests);
    DIST_CHECK(a->send_host && a->recv_host && a->requests, GPGPU_ERROR_OUT_OF_MEMORY,
               "out of host memory");
    for (int k = 0; k < a->recv_rank_count + a->send_rank_count; k++)
        a->requests[k] = MPI_REQUEST_NULL;
    MPI_Datatype type = dist_mpi_type(a->type);
    int n = 0;
    for (int k = 0; k < a->recv_rank_count; k++, n++) {
        DIST_TRY(dist_mpi_check(MPI_Recv_init((char *)a->recv_host + a->recv_displs[k] * size,
                                              a->recv_counts[k], type, a->recv_ranks[k],
                                              DIST_HALO_TAG, a->comm, &a->requests[n]),
                                "MPI_Recv_init"));
    }
    for (int k = 0; k < a->send_rank_count; k++, n++) {
        DIST_TRY(dist_mpi_check(MPI_Send_init((char *)a->send_host + a->send_displs[k] * size,
                                              a->send_counts[k], type, a->send_ranks[k],
                                              DIST_HALO_TAG, a->comm, &a->requests[n]),
                                "MPI_Send_init"));
    }
    if (a->overlap == GPGPU_MPI_OVERLAP_THREAD && n > 0)
        DIST_TRY(dist_progress_create(&a->progress));
    return GPGPU_SUCCESS;
}

/* -------------------------------------------------------------- creation */

void gpgpu_mpi_matrix_destroy(gpgpu_mpi_matrix *a)
{
    if (a == NULL)
        return;
    dist_progress_destroy(a->progress);
    for (int k = 0; a->requests != NULL && k < a->recv_rank_count + a->send_rank_count; k++) {
        if (a->requests[k] != MPI_REQUEST_NULL)
            MPI_Request_free(&a->requests[k]);
    }
    for (uint32_t k = 0; a->ranges != NULL && k < a->range_count; k++)
        gpgpu_matrix_destroy(a->ranges[k].block);
    gpgpu_matrix_destroy(a->diag);
    gpgpu_matrix_destroy(a->gather);
    gpgpu_buffer_destroy(a->send_gpu);
    gpgpu_buffer_destroy(a->ghost_gpu);
    free(a->requests);
    free(a->send_host);
    free(a->recv_host);
    free(a->recv_ranks);
    free(a->send_ranks);
    free(a->ranges);
    free(a->ghosts);
    free(a->diagonal);
    free(a->row_begin);
    free(a->col_begin);
    if (a->comm != MPI_COMM_NULL)
        MPI_Comm_free(&a->comm);
    free(a);
}

/* The steps of creation after the arguments are agreed; every collective step is reached
 * by every rank (each local failure is agreed before the next one). */
static gpgpu_status create(gpgpu_mpi_matrix *a, const gpgpu_mpi_matrix_desc *desc,
                           const gpgpu_csr *rows, uint32_t local_cols)
{
    split s = { 0 };

    DIST_TRY(gather_layout(a, rows, local_cols));
    gpgpu_status status = dist_agree(a->comm, split_rows(a, rows, &s));
    if (status == GPGPU_SUCCESS)
        status = build_plan(a);
    if (status == GPGPU_SUCCESS)
        status = make_objects(a, desc, &s);
    split_free(&s);
    return dist_agree(a->comm, status);
}

gpgpu_status gpgpu_mpi_matrix_create(gpgpu_context *ctx, MPI_Comm comm,
                                     const gpgpu_mpi_matrix_desc *desc, const gpgpu_csr *rows,
                                     uint32_t local_cols, gpgpu_mpi_matrix **out)
{
    gpgpu_mpi_matrix *a = NULL;
    gpgpu_mpi_overlap overlap = GPGPU_MPI_OVERLAP_INLINE;
    gpgpu_status status = check_create(ctx, desc, rows, out);

    if (out != NULL)
        *out = NULL;
    if (status == GPGPU_SUCCESS)
        status = resolve_overlap(desc->overlap, &overlap);
    if (status == GPGPU_SUCCESS && (a = calloc(1, sizeof *a)) == NULL)
        status = dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    status = dist_agree(comm, status);
    if (status != GPGPU_SUCCESS) {
        free(a);
        return status;
    }
    *a = (gpgpu_mpi_matrix){ .ctx = ctx, .user_comm = comm, .comm = MPI_COMM_NULL,
                             .type = desc->local.type, .spmv = desc->spmv, .overlap = overlap,
                             .split_timing = desc->split_timing };
    MPI_Comm_rank(comm, &a->rank);
    MPI_Comm_size(comm, &a->size);
    status = dist_mpi_check(MPI_Comm_dup(comm, &a->comm), "MPI_Comm_dup");
    if (status == GPGPU_SUCCESS)
        status = create(a, desc, rows, local_cols);
    if (status != GPGPU_SUCCESS) {
        gpgpu_mpi_matrix_destroy(a);
        return status;
    }
    *out = a;
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------- queries */

gpgpu_status gpgpu_mpi_matrix_get_info(const gpgpu_mpi_matrix *a, gpgpu_mpi_matrix_info *info)
{
    DIST_CHECK(a != NULL && info != NULL, GPGPU_ERROR_NULL_POINTER, "matrix or info is NULL");
    *info = (gpgpu_mpi_matrix_info){
        .type = a->type, .rows = a->rows, .cols = a->cols, .nnz = a->nnz,
        .first_row = a->row_begin[a->rank], .first_col = a->col_begin[a->rank],
        .local_rows = a->local_rows, .local_cols = a->local_cols, .diag_nnz = a->diag_nnz,
        .offd_nnz = a->offd_nnz, .ghosts = a->ghost_count, .sends = a->send_count,
        .recv_ranks = a->recv_rank_count, .send_ranks = a->send_rank_count,
        .offd_ranges = a->range_count, .offd_rows = a->offd_rows, .overlap = a->overlap,
    };
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_mpi_matrix_ghosts(const gpgpu_mpi_matrix *a, const uint32_t **global_cols,
                                     uint32_t *count)
{
    DIST_CHECK(a != NULL && global_cols != NULL && count != NULL, GPGPU_ERROR_NULL_POINTER,
               "gpgpu_mpi_matrix_ghosts: a NULL pointer");
    *global_cols = a->ghosts;
    *count = a->ghost_count;
    return GPGPU_SUCCESS;
}

gpgpu_status dist_matrix_vector(const gpgpu_mpi_matrix *a, gpgpu_mpi_side side,
                                gpgpu_mpi_vector **out)
{
    bool rows = side == GPGPU_MPI_ROWS;
    return dist_vector_make(a->ctx, a->user_comm, a->type, rows ? a->local_rows : a->local_cols,
                            rows ? a->row_begin[a->rank] : a->col_begin[a->rank],
                            rows ? a->rows : a->cols, out);
}

gpgpu_status gpgpu_mpi_matrix_vector(const gpgpu_mpi_matrix *a, gpgpu_mpi_side side,
                                     gpgpu_mpi_vector **out)
{
    gpgpu_status status = GPGPU_SUCCESS;

    if (out != NULL)
        *out = NULL;
    if (a == NULL || out == NULL)
        status = dist_fail(GPGPU_ERROR_NULL_POINTER, "gpgpu_mpi_matrix_vector: a NULL pointer");
    else if (side != GPGPU_MPI_ROWS && side != GPGPU_MPI_COLS)
        status = dist_fail(GPGPU_ERROR_INVALID_ARGUMENT,
                           "gpgpu_mpi_matrix_vector: unknown side %d", (int)side);
    else
        status = dist_matrix_vector(a, side, out);
    status = dist_agree(a != NULL ? a->user_comm : MPI_COMM_WORLD, status);
    if (status != GPGPU_SUCCESS && out != NULL) {
        gpgpu_mpi_vector_destroy(*out);
        *out = NULL;
    }
    return status;
}

gpgpu_status gpgpu_mpi_matrix_times(gpgpu_mpi_matrix *a, gpgpu_mpi_spmv_times *times, bool reset)
{
    DIST_CHECK(a != NULL && times != NULL, GPGPU_ERROR_NULL_POINTER,
               "gpgpu_mpi_matrix_times: a NULL pointer");
    *times = a->times;
    if (reset)
        a->times = (gpgpu_mpi_spmv_times){ 0 };
    return GPGPU_SUCCESS;
}
