/* The other ways to make a distributed matrix: a whole matrix on one rank split by nonzeros
 * and scattered, a MatrixMarket file read there, and the 3D Laplacians generated row block by
 * row block on every rank. Each ends in gpgpu_mpi_matrix_create on the rows of each rank. */
#include "dist_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the split */

/* begin[r]: the first row of rank r; rank r starts at the first row whose entries before it
 * reach r/p of all, so every block holds about nnz/p of them (rows evenly without any). */
static void split_by_nonzeros(const gpgpu_csr *a, int p, uint64_t *begin)
{
    begin[0] = 0;
    for (int r = 1; r < p; r++) {
        if (a->nnz == 0) {
            begin[r] = (uint64_t)r * a->rows / (uint64_t)p;
            continue;
        }
        /* The least i with row_ptr[i] * p >= r * nnz (row_ptr does not decrease). */
        uint64_t lo = begin[r - 1], hi = a->rows, target = (uint64_t)r * a->nnz;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if ((uint64_t)a->row_ptr[mid] * (uint64_t)p >= target)
                hi = mid;
            else
                lo = mid + 1;
        }
        begin[r] = lo;
    }
    begin[p] = a->rows;
}

static void split_evenly(uint64_t n, int p, uint64_t *begin)
{
    for (int r = 0; r <= p; r++)
        begin[r] = (uint64_t)r * n / (uint64_t)p;
}

/* ---------------------------------------------------------- the scatter */

/* The root's checks. */
static gpgpu_status check_whole(const gpgpu_csr *a)
{
    char msg[256] = "";

    DIST_CHECK(a != NULL, GPGPU_ERROR_NULL_POINTER, "the matrix is NULL on the root");
    gpgpu_status status = gpgpu_csr_check(a, true, msg, sizeof msg);
    DIST_CHECK(status == GPGPU_SUCCESS, status, "the matrix: %s", msg);
    return GPGPU_SUCCESS;
}

/* The row lengths of every rank's rows, its entries and their values, from root. */
typedef struct piece {
    uint64_t *row_begin, *col_begin; /* p + 1 each, on every rank */
    int *row_counts, *row_displs;    /* root only */
    int *nnz_counts, *nnz_displs;
    uint32_t *lengths;               /* root: every row's length */
} piece;

static void piece_free(piece *pc)
{
    free(pc->row_begin);
    free(pc->col_begin);
    free(pc->row_counts);
    free(pc->row_displs);
    free(pc->nnz_counts);
    free(pc->nnz_displs);
    free(pc->lengths);
}

/* On root: the split and what Scatterv needs; on every rank, the split (MPI_Bcast). */
static gpgpu_status plan_scatter(MPI_Comm comm, int root, const gpgpu_csr *a, piece *pc,
                                 uint64_t shape[3])
{
    int rank, p;
    gpgpu_status status = GPGPU_SUCCESS;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    pc->row_begin = malloc(((size_t)p + 1) * sizeof(uint64_t));
    pc->col_begin = malloc(((size_t)p + 1) * sizeof(uint64_t));
    if (pc->row_begin == NULL || pc->col_begin == NULL)
        status = dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    if (status == GPGPU_SUCCESS && rank == root) {
        pc->row_counts = malloc((size_t)p * sizeof(int));
        pc->row_displs = malloc((size_t)p * sizeof(int));
        pc->nnz_counts = malloc((size_t)p * sizeof(int));
        pc->nnz_displs = malloc((size_t)p * sizeof(int));
        pc->lengths = malloc(((size_t)a->rows + 1) * sizeof(uint32_t));
        if (!pc->row_counts || !pc->row_displs || !pc->nnz_counts || !pc->nnz_displs ||
            !pc->lengths) {
            status = dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
        } else {
            shape[0] = a->rows;
            shape[1] = a->cols;
            shape[2] = a->nnz;
            split_by_nonzeros(a, p, pc->row_begin);
            if (a->rows == a->cols)
                memcpy(pc->col_begin, pc->row_begin, ((size_t)p + 1) * sizeof(uint64_t));
            else
                split_evenly(a->cols, p, pc->col_begin);
            for (int r = 0; r < p; r++) {
                uint64_t r0 = pc->row_begin[r], r1 = pc->row_begin[r + 1];
                pc->row_counts[r] = (int)(r1 - r0);
                pc->row_displs[r] = (int)r0;
                pc->nnz_counts[r] = (int)(a->row_ptr[r1] - a->row_ptr[r0]);
                pc->nnz_displs[r] = (int)a->row_ptr[r0];
            }
            for (uint32_t i = 0; i < a->rows; i++)
                pc->lengths[i] = a->row_ptr[i + 1] - a->row_ptr[i];
        }
    }
    DIST_TRY(dist_agree(comm, status));
    DIST_TRY(dist_mpi_check(MPI_Bcast(shape, 3, MPI_UINT64_T, root, comm), "MPI_Bcast"));
    DIST_TRY(dist_mpi_check(MPI_Bcast(pc->row_begin, p + 1, MPI_UINT64_T, root, comm),
                            "MPI_Bcast"));
    return dist_mpi_check(MPI_Bcast(pc->col_begin, p + 1, MPI_UINT64_T, root, comm),
                          "MPI_Bcast");
}

/* This rank's rows, with global columns, from root's matrix. */
static gpgpu_status receive_rows(MPI_Comm comm, int root, const gpgpu_csr *a, const piece *pc,
                                 const uint64_t shape[3], gpgpu_csr *mine)
{
    int rank, p;
    int nnz_counts = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    uint32_t rows = (uint32_t)(pc->row_begin[rank + 1] - pc->row_begin[rank]);
    DIST_TRY(dist_mpi_check(MPI_Scatter(pc->nnz_counts, 1, MPI_INT, &nnz_counts, 1, MPI_INT,
                                        root, comm),
                            "MPI_Scatter"));
    *mine = (gpgpu_csr){ .rows = rows, .cols = (uint32_t)shape[1], .nnz = (size_t)nnz_counts };
    mine->row_ptr = malloc(((size_t)rows + 1) * sizeof(uint32_t));
    mine->col_idx = malloc((mine->nnz + 1) * sizeof(uint32_t));
    mine->values = malloc((mine->nnz + 1) * sizeof(double));
    gpgpu_status status = mine->row_ptr && mine->col_idx && mine->values
                              ? GPGPU_SUCCESS
                              : dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    DIST_TRY(dist_agree(comm, status));
    /* The lengths land after row_ptr[0]; their running sum makes the pointers. */
    DIST_TRY(dist_mpi_check(MPI_Scatterv(pc->lengths, pc->row_counts, pc->row_displs,
                                         MPI_UINT32_T, mine->row_ptr + 1, (int)rows,
                                         MPI_UINT32_T, root, comm),
                            "MPI_Scatterv"));
    DIST_TRY(dist_mpi_check(MPI_Scatterv(rank == root ? a->col_idx : NULL, pc->nnz_counts,
                                         pc->nnz_displs, MPI_UINT32_T, mine->col_idx,
                                         nnz_counts, MPI_UINT32_T, root, comm),
                            "MPI_Scatterv"));
    DIST_TRY(dist_mpi_check(MPI_Scatterv(rank == root ? a->values : NULL, pc->nnz_counts,
                                         pc->nnz_displs, MPI_DOUBLE, mine->values, nnz_counts,
                                         MPI_DOUBLE, root, comm),
                            "MPI_Scatterv"));
    mine->row_ptr[0] = 0;
    for (uint32_t i = 0; i < rows; i++)
        mine->row_ptr[i + 1] += mine->row_ptr[i];
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_mpi_matrix_scatter(gpgpu_context *ctx, MPI_Comm comm,
                                      const gpgpu_mpi_matrix_desc *desc, int root,
                                      const gpgpu_csr *a, gpgpu_mpi_matrix **out)
{
    int rank, p;
    piece pc = { 0 };
    gpgpu_csr mine = { 0 };
    uint64_t shape[3] = { 0, 0, 0 };
    gpgpu_status status = GPGPU_SUCCESS;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    if (out != NULL)
        *out = NULL;
    if (root < 0 || root >= p)
        status = dist_fail(GPGPU_ERROR_INVALID_ARGUMENT, "root %d of %d ranks", root, p);
    else if (rank == root)
        status = check_whole(a);
    status = dist_agree(comm, status);
    if (status == GPGPU_SUCCESS)
        status = plan_scatter(comm, root, a, &pc, shape);
    if (status == GPGPU_SUCCESS)
        status = receive_rows(comm, root, a, &pc, shape, &mine);
    if (status == GPGPU_SUCCESS) {
        uint32_t local_cols = (uint32_t)(pc.col_begin[rank + 1] - pc.col_begin[rank]);
        status = gpgpu_mpi_matrix_create(ctx, comm, desc, &mine, local_cols, out);
    }
    gpgpu_csr_free(&mine);
    piece_free(&pc);
    return status;
}

gpgpu_status gpgpu_mpi_matrix_read(gpgpu_context *ctx, MPI_Comm comm,
                                   const gpgpu_mpi_matrix_desc *desc, int root, const char *path,
                                   gpgpu_mtx_header *header, gpgpu_mpi_matrix **out)
{
    int rank, p;
    gpgpu_csr a = { 0 };
    gpgpu_mtx_header h = { 0 };
    gpgpu_status status = GPGPU_SUCCESS;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    if (out != NULL)
        *out = NULL;
    if (root < 0 || root >= p) {
        status = dist_fail(GPGPU_ERROR_INVALID_ARGUMENT, "root %d of %d ranks", root, p);
    } else if (rank == root) {
        char msg[512] = "";
        status = path == NULL ? dist_fail(GPGPU_ERROR_NULL_POINTER, "the path is NULL")
                              : gpgpu_mtx_read_matrix(path, &a, &h, msg, sizeof msg);
        if (status != GPGPU_SUCCESS && path != NULL)
            dist_fail(status, "%s", msg);
    }
    status = dist_agree(comm, status);
    if (status == GPGPU_SUCCESS)
        status = dist_mpi_check(MPI_Bcast(&h, (int)sizeof h, MPI_BYTE, root, comm), "MPI_Bcast");
    if (status == GPGPU_SUCCESS && header != NULL)
        *header = h;
    if (status == GPGPU_SUCCESS)
        status = gpgpu_mpi_matrix_scatter(ctx, comm, desc, root, &a, out);
    gpgpu_csr_free(&a);
    return status;
}

/* ------------------------------------------------------------ generated */

/* Row i of the n^3 Laplacian, as gpgpu_generate writes it (src/sparse/generate.c): the
 * neighbours in (dz, dy, dx) order, so the columns ascend; those outside the cube dropped
 * (Dirichlet), 6 (26) on the diagonal and -1 around. cols NULL: only counts them. */
static uint32_t laplace_row(uint64_t n, bool full, uint64_t i, uint32_t *cols, double *values)
{
    int64_t m = (int64_t)n;
    int64_t x = (int64_t)(i % n), y = (int64_t)(i / n % n), z = (int64_t)(i / n / n);
    uint32_t count = 0;

    for (int dz = -1; dz <= 1; dz++) {
        for (int dy = -1; dy <= 1; dy++) {
            for (int dx = -1; dx <= 1; dx++) {
                int far = abs(dz) + abs(dy) + abs(dx);
                if ((!full && far > 1) || z + dz < 0 || z + dz >= m || y + dy < 0 ||
                    y + dy >= m || x + dx < 0 || x + dx >= m)
                    continue;
                if (cols != NULL) {
                    cols[count] = (uint32_t)(((z + dz) * m + y + dy) * m + x + dx);
                    values[count] = far == 0 ? (full ? 26.0 : 6.0) : -1.0;
                }
                count++;
            }
        }
    }
    return count;
}

static gpgpu_status generate_rows(gpgpu_generator gen, uint32_t size, uint64_t first,
                                  uint32_t rows, gpgpu_csr *out)
{
    bool full = gen == GPGPU_GEN_LAPLACE3D_27;
    uint64_t total = (uint64_t)size * size * size;
    size_t nnz = 0;

    for (uint32_t i = 0; i < rows; i++)
        nnz += laplace_row(size, full, first + i, NULL, NULL);
    *out = (gpgpu_csr){ .rows = rows, .cols = (uint32_t)total, .nnz = nnz };
    out->row_ptr = malloc(((size_t)rows + 1) * sizeof(uint32_t));
    out->col_idx = malloc((nnz + 1) * sizeof(uint32_t));
    out->values = malloc((nnz + 1) * sizeof(double));
    DIST_CHECK(out->row_ptr && out->col_idx && out->values, GPGPU_ERROR_OUT_OF_MEMORY,
               "out of host memory");
    DIST_CHECK(nnz <= GPGPU_SPARSE_MAX_INDEX, GPGPU_ERROR_TOO_LARGE,
               "%zu entries on one rank, past 2^31 - 1", nnz);
    out->row_ptr[0] = 0;
    for (uint32_t i = 0; i < rows; i++) {
        uint32_t at = out->row_ptr[i];
        out->row_ptr[i + 1] =
            at + laplace_row(size, full, first + i, out->col_idx + at, out->values + at);
    }
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_mpi_matrix_generate(gpgpu_context *ctx, MPI_Comm comm,
                                       const gpgpu_mpi_matrix_desc *desc, gpgpu_generator gen,
                                       uint32_t size, gpgpu_mpi_matrix **out)
{
    int rank, p;
    gpgpu_csr mine = { 0 };
    uint64_t total = (uint64_t)size * size * size;
    gpgpu_status status = GPGPU_SUCCESS;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    if (out != NULL)
        *out = NULL;
    if (gen != GPGPU_GEN_LAPLACE3D_7 && gen != GPGPU_GEN_LAPLACE3D_27)
        status = dist_fail(GPGPU_ERROR_UNSUPPORTED_COMBINATION,
                           "gpgpu_mpi_matrix_generate makes the 3D Laplacians (7 and 27 "
                           "points), not generator %d", (int)gen);
    else if (total > GPGPU_SPARSE_MAX_INDEX)
        status = dist_fail(GPGPU_ERROR_TOO_LARGE, "%u^3 rows are past 2^31 - 1 (as for "
                           "gpgpu_generate)", size);
    uint64_t first = (uint64_t)rank * total / (uint64_t)p;
    uint64_t last = (uint64_t)(rank + 1) * total / (uint64_t)p;
    if (status == GPGPU_SUCCESS)
        status = generate_rows(gen, size, first, (uint32_t)(last - first), &mine);
    status = dist_agree(comm, status);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_mpi_matrix_create(ctx, comm, desc, &mine, (uint32_t)(last - first), out);
    gpgpu_csr_free(&mine);
    return status;
}
