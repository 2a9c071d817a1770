/* libgpgpu_mpi's internals: the objects behind the handles of gpgpu/mpi.h and what its
 * files share. It calls libgpgpu through its public API only. Internal names start with
 * dist_: MPI reserves MPI_ and PMPI_, and its Fortran bindings export mpi_* symbols. */
#ifndef GPGPU_DIST_INTERNAL_H
#define GPGPU_DIST_INTERNAL_H

#include <gpgpu/mpi.h>

#include <pthread.h>

#if defined(__GNUC__)
#define DIST_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define DIST_PRINTF(fmt, args)
#endif

/* ------------------------------------------------------------------ errors */

/* Sets this thread's last error (printf-like) and returns status. */
gpgpu_status dist_fail(gpgpu_status status, const char *fmt, ...) DIST_PRINTF(2, 3);

/* A failed call of libgpgpu: "what: <its message>" as the last error; returns status. */
gpgpu_status dist_fail_core(gpgpu_status status, gpgpu_context *ctx, const char *what);

/* A failed MPI call (rc != MPI_SUCCESS: the communicator returns errors): GPGPU_ERROR_BACKEND
 * with MPI's error string; MPI_SUCCESS gives GPGPU_SUCCESS. */
gpgpu_status dist_mpi_check(int rc, const char *what);

/* The worst (largest) status over the ranks of comm, on every rank, with the last error of
 * the first rank that had it, prefixed "rank R: " on every rank. Collective: one
 * MPI_Allreduce, and a broadcast of the message when some rank failed. */
gpgpu_status dist_agree(MPI_Comm comm, gpgpu_status local);

/* Sums `count` (at most DIST_MAX_SUM) doubles over the ranks in one MPI_Allreduce that also
 * carries whether `local` failed, and agrees on the status (dist_agree) when some rank did.
 * A rank that failed contributes zeros. */
#define DIST_MAX_SUM 4
gpgpu_status dist_sum(MPI_Comm comm, double *values, int count, gpgpu_status local);

/* The CHECK and TRY of libgpgpu's own files (src/core/internal.h), on this library's error. */
#define DIST_CHECK(cond, code, ...)                          \
    do {                                                     \
        if (!(cond))                                         \
            return dist_fail((code), __VA_ARGS__);           \
    } while (0)

#define DIST_TRY(expr)                                       \
    do {                                                     \
        gpgpu_status dist_try_status_ = (expr);              \
        if (dist_try_status_ != GPGPU_SUCCESS)               \
            return dist_try_status_;                         \
    } while (0)

/* Wall-clock time in nanoseconds (CLOCK_MONOTONIC). */
double dist_now_ns(void);

/* MPI_FLOAT or MPI_DOUBLE. */
MPI_Datatype dist_mpi_type(gpgpu_type type);

/* Host arrays of the element type: n doubles rounded into `out` (f32 or f64), and back. */
void dist_from_double(gpgpu_type type, const double *in, size_t n, void *out);
void dist_to_double(gpgpu_type type, const void *in, size_t n, double *out);

/* -------------------------------------------------------------- vectors */

struct gpgpu_mpi_vector {
    gpgpu_context *ctx;
    MPI_Comm comm;
    gpgpu_type type;
    uint32_t local_size;
    uint64_t first, size;
    gpgpu_buffer *buffer;
    size_t offset;
    bool owned; /* the buffer is the vector's */
};

/* A vector whose layout is known already (no collective): the matrices' vectors. */
gpgpu_status dist_vector_make(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type type,
                              uint32_t local_size, uint64_t first, uint64_t size,
                              gpgpu_mpi_vector **out);

/* GPGPU_SUCCESS when x and y can go into one operation on this rank (one type, context and
 * slice size), else GPGPU_ERROR_INVALID_ARGUMENT with the last error naming `what`. Local. */
gpgpu_status dist_vectors_match(const char *what, const gpgpu_mpi_vector *x,
                                const gpgpu_mpi_vector *y);

/* Whether the slices of x and y share bytes of one buffer (wraps of one GL or Vulkan object
 * are libgpgpu's to find). Local. */
bool dist_slices_overlap(const gpgpu_mpi_vector *x, const gpgpu_mpi_vector *y);

/* ----------------------------------------------------------- the matrix */

/* Rows of the off-diagonal block that have entries, in ranges: each range is one product
 * over the ghost values into y from its first row. */
typedef struct dist_range {
    uint32_t first, rows;
    gpgpu_matrix *block;
} dist_range;

/* The helper thread of GPGPU_MPI_OVERLAP_THREAD (dist_spmv.c). */
typedef struct dist_progress dist_progress;

struct gpgpu_mpi_matrix {
    gpgpu_context *ctx;
    MPI_Comm user_comm; /* the caller's: the matrix's vectors and reductions */
    MPI_Comm comm;      /* a duplicate: the exchange's messages never meet the caller's */
    int rank, size;
    gpgpu_type type;
    gpgpu_spmv_desc spmv;
    gpgpu_mpi_overlap overlap;
    bool split_timing;
    uint64_t rows, cols, nnz;
    uint64_t *row_begin, *col_begin; /* size + 1 each: every rank's first row and column */
    uint32_t local_rows, local_cols;
    size_t diag_nnz, offd_nnz;
    double *diagonal;   /* a_ii of each local row whose column is local (0 where none) */
    gpgpu_matrix *diag; /* local_rows x local_cols */
    uint32_t range_count;
    dist_range *ranges;
    uint32_t offd_rows;

    /* The exchange: ghost values come from recv_ranks[k], recv_counts[k] of them, into
     * recv_host from recv_displs[k]; sends go to send_ranks[k] from send_host. */
    uint32_t ghost_count;
    uint32_t *ghosts;       /* global columns, ascending */
    int recv_rank_count, send_rank_count;
    int *recv_ranks, *recv_counts, *recv_displs;
    int *send_ranks, *send_counts, *send_displs;
    uint32_t send_count;    /* values sent in all */
    gpgpu_matrix *gather;   /* send_count x local_cols: one 1 a row, at the value to send */
    gpgpu_buffer *send_gpu, *ghost_gpu;
    void *send_host, *recv_host;
    MPI_Request *requests;  /* persistent: the receives, then the sends */
    dist_progress *progress;

    gpgpu_mpi_spmv_times times;
};

/* y = alpha*A*x + beta*y without the agreement on the arguments (the caller checked them on
 * every rank): GPU steps run while `status` is GPGPU_SUCCESS, the messages always, so that a
 * rank whose GPU failed still sends (stale values) and receives. Returns the first failure
 * (or status itself). fence: wait for the GPU at the end (split timing). *call (may be NULL)
 * gets the call's times, which are added to the matrix's too. */
gpgpu_status dist_spmv_run(gpgpu_mpi_matrix *a, double alpha, const gpgpu_mpi_vector *x,
                           double beta, gpgpu_mpi_vector *y, bool fence, gpgpu_status status,
                           gpgpu_mpi_spmv_times *call);

/* A vector laid out as the matrix's rows or columns, made on this rank alone. */
gpgpu_status dist_matrix_vector(const gpgpu_mpi_matrix *a, gpgpu_mpi_side side,
                                gpgpu_mpi_vector **out);

/* Checks for a product on this rank (local). */
gpgpu_status dist_spmv_check(const gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *x,
                             const gpgpu_mpi_vector *y);

/* The helper thread: made and ended with the matrix. */
gpgpu_status dist_progress_create(dist_progress **out);
void dist_progress_destroy(dist_progress *p);

#endif /* GPGPU_DIST_INTERNAL_H */
