/**
 * @file mpi.h
 * @brief libgpgpu_mpi: sparse matrices and vectors spread over the ranks of an MPI
 * communicator, each rank's part on its own GPU context; SpMV with the halo exchange
 * overlapped by the local product, and conjugate gradients (docs/DISTRIBUTED.md).
 *
 * A separate library (libgpgpu_mpi, pkg-config gpgpu-mpi) over libgpgpu's public API, built
 * where meson finds MPI (-Dmpi=auto). The design is PETSc's MATMPIAIJ and Ginkgo's
 * distributed::Matrix: rows are split into contiguous blocks, one per rank in rank order, and
 * so are the columns (the entries of x); each rank keeps the entries of its rows whose
 * columns it owns (the diagonal block) apart from the others (the off-diagonal block), whose
 * columns are compressed to the sorted list of those "ghost" columns. Which values each rank
 * sends to which is worked out once, when the matrix is made.
 *
 * Collective calls: every function that takes a communicator, a distributed matrix or a
 * distributed vector is collective over that communicator (every rank calls it, in the same
 * order), except where it says "local". Each collective call first agrees on the arguments:
 * a call that one rank refuses (a vector of the wrong size there) is refused on every rank
 * with the same status, before any message of the operation is sent, so no rank waits
 * forever for another; gpgpu_mpi_last_error() then says which rank refused and why. A
 * failure of the GPU during an operation is returned on the rank where it happened, after
 * that rank has still taken its part in the exchange; the reductions (dot products, CG)
 * carry it to every rank.
 *
 * Threads: the library calls MPI from the thread that calls it and, during a product with
 * the GPGPU_MPI_OVERLAP_THREAD exchange, from a helper thread of its own while the calling
 * thread makes no MPI call; that needs MPI initialized with MPI_THREAD_SERIALIZED or more.
 * The contexts follow gpgpu.h's rule: one thread at a time.
 *
 * Sizes: global row and column counts below 2^32 (the column indices of gpgpu_csr are
 * 32-bit); each rank's part within libgpgpu's limits (2^31 - 1 rows and entries).
 */
#ifndef GPGPU_MPI_H
#define GPGPU_MPI_H

/* The C API is all this header needs: in C++, the MPI-2 C++ bindings (removed from the
 * standard in MPI-3.0, and not warning-free) stay out, as PETSc keeps them out. */
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include "gpgpu.h"
#include "io.h"
#include "sparse.h"

/* libgpgpu_mpi's exports, as GPGPU_API is libgpgpu's: a program or a static build sees them
 * plainly; on Windows the DLL exports them and its users import them. */
#if defined(GPGPU_STATIC)
#define GPGPU_MPI_API
#elif defined(_WIN32)
#ifdef GPGPU_MPI_BUILDING
#define GPGPU_MPI_API __declspec(dllexport)
#else
#define GPGPU_MPI_API __declspec(dllimport)
#endif
#else
#define GPGPU_MPI_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The message of the last failed call of libgpgpu_mpi on this thread ("" if none): what was
 * wrong and on which rank ("rank 2: ..."), with libgpgpu's own message where it failed.
 * Local.
 * @pointer_lifetime valid until the next failing call on this thread.
 */
GPGPU_MPI_API const char *gpgpu_mpi_last_error(void);

/* --------------------------------------------------------------- contexts */

/**
 * This rank's place among the ranks of comm on its node (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED): its index and their count.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_BACKEND (MPI failed).
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_node_rank(MPI_Comm comm, int *node_rank, int *node_size);

/**
 * Creates this rank's context from desc (NULL: every field zero), on the GPU of its node
 * rank: the ranks of a node take the node's GPUs in turn (node rank modulo the devices of
 * the backend), unless told otherwise by desc->device or by the backend's device variable
 * (GPGPU_EGL_DEVICE, GPGPU_VK_DEVICE), which are then used as they are. Every rank gets
 * the same status: if one cannot make its context, none keeps one.
 * @return as gpgpu_context_create, on every rank; GPGPU_ERROR_BACKEND (MPI failed).
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_context_create(MPI_Comm comm, const gpgpu_context_desc *desc,
                                                gpgpu_context **out);

/* ---------------------------------------------------------------- vectors */

/** A vector spread over the ranks: each rank's slice in a buffer of its context. */
typedef struct gpgpu_mpi_vector gpgpu_mpi_vector;

/** What a distributed vector holds. */
typedef struct gpgpu_mpi_vector_info {
    gpgpu_type type;
    uint32_t local_size;  /**< elements on this rank */
    uint64_t first;       /**< the global index of this rank's first element */
    uint64_t size;        /**< elements on all ranks */
    gpgpu_buffer *buffer; /**< this rank's slice, from element `offset` */
    size_t offset;
} gpgpu_mpi_vector_info;

/**
 * Creates a vector of f32 or f64 with local_size elements on this rank (0 is fine), the
 * slices in rank order; the values are undefined. The vector keeps comm, which must outlive
 * it.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (a type
 *   other than f32 and f64); GPGPU_ERROR_UNSUPPORTED_FEATURE (f64 without shader doubles);
 *   GPGPU_ERROR_OUT_OF_MEMORY; GPGPU_ERROR_BACKEND.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_create(gpgpu_context *ctx, MPI_Comm comm,
                                               gpgpu_type type, uint32_t local_size,
                                               gpgpu_mpi_vector **out);

/**
 * A vector on the caller's buffer: local_size elements from element `offset`, not copied;
 * the buffer must outlive the vector.
 * @return as gpgpu_mpi_vector_create; GPGPU_ERROR_NULL_POINTER (buffer NULL);
 *   GPGPU_ERROR_OUT_OF_RANGE (the buffer is too small). A buffer of another context is the
 *   caller's error, which the first operation on the vector reports.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_wrap(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type type,
                                             uint32_t local_size, gpgpu_buffer *buffer,
                                             size_t offset, gpgpu_mpi_vector **out);

/** Destroys a vector (a wrapped buffer is left alone); NULL is accepted. Local. */
GPGPU_MPI_API void gpgpu_mpi_vector_destroy(gpgpu_mpi_vector *v);

/** Fills *info. Local. @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER. */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_get_info(const gpgpu_mpi_vector *v,
                                                 gpgpu_mpi_vector_info *info);

/**
 * Sets every element to value (rounded to the type).
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_OUT_OF_MEMORY;
 *   GPGPU_ERROR_BACKEND.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_fill(gpgpu_mpi_vector *v, double value);

/**
 * Sets the vector from `values` on rank `root` (size doubles there, rounded to the type;
 * ignored on the other ranks): each rank gets its slice.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER (values NULL on root);
 *   GPGPU_ERROR_INVALID_ARGUMENT (root out of range); GPGPU_ERROR_OUT_OF_MEMORY;
 *   GPGPU_ERROR_BACKEND.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_scatter(gpgpu_mpi_vector *v, int root,
                                                const double *values);

/** The inverse of gpgpu_mpi_vector_scatter: the whole vector into `values` (size doubles) on
 *  rank root. @return as gpgpu_mpi_vector_scatter. */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_gather(const gpgpu_mpi_vector *v, int root,
                                               double *values);

/**
 * The dot product of two vectors of one type and layout: gpgpu_dot on each rank's slices,
 * then one MPI_Allreduce of the partial sums (in double, so the result does not depend on
 * the ranks' order beyond the rounding of each partial sum). Every rank gets it.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (types,
 *   contexts or slice sizes that differ, on any rank); the errors of gpgpu_dot.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_dot(const gpgpu_mpi_vector *x, const gpgpu_mpi_vector *y,
                                     double *result);

/** Norms for gpgpu_mpi_norm. */
typedef enum gpgpu_mpi_norm_kind {
    GPGPU_MPI_NORM_2 = 1,  /**< sqrt(x.x) */
    GPGPU_MPI_NORM_INF = 2 /**< max |x_i| (0 for an empty vector); NaN if any element is NaN */
} gpgpu_mpi_norm_kind;

/** A norm of the vector, on every rank.
 *  @return as gpgpu_mpi_dot; GPGPU_ERROR_INVALID_ARGUMENT (an unknown kind). */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_norm(const gpgpu_mpi_vector *x, gpgpu_mpi_norm_kind kind,
                                      double *result);

/**
 * y = alpha*x + beta*y, gpgpu_axpby on each rank's slices (no message but the agreement on
 * the arguments, one MPI_Allreduce of a status).
 * @return as gpgpu_mpi_dot; GPGPU_ERROR_OVERLAP; the errors of gpgpu_axpby.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_axpby(double alpha, const gpgpu_mpi_vector *x, double beta,
                                       gpgpu_mpi_vector *y);

/** y = alpha*x + beta*y and then the dot product of the new y with w, in one pass over each
 *  rank's slices (gpgpu_axpby_dot) and one MPI_Allreduce. @return as gpgpu_mpi_axpby. */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_axpby_dot(double alpha, const gpgpu_mpi_vector *x, double beta,
                                           gpgpu_mpi_vector *y, const gpgpu_mpi_vector *w,
                                           double *result);

/* --------------------------------------------------------------- matrices */

/** A sparse matrix whose rows are spread over the ranks. */
typedef struct gpgpu_mpi_matrix gpgpu_mpi_matrix;

/** How the halo exchange of a product overlaps the diagonal block's product. */
typedef enum gpgpu_mpi_overlap {
    /** THREAD where MPI was initialized with MPI_THREAD_SERIALIZED or more, else INLINE. */
    GPGPU_MPI_OVERLAP_DEFAULT = 0,
    /** A helper thread waits for the messages (MPI_Waitall) while the calling thread runs the
     *  diagonal product: the messages progress whether or not the backend's call waits for the
     *  GPU (a Vulkan call does; a GL call returns once its work is queued). */
    GPGPU_MPI_OVERLAP_THREAD = 1,
    /** The messages are started, the diagonal product is queued, then the calling thread
     *  waits for the messages: they overlap the GPU's work only where the call does not wait
     *  for it, and progress only inside MPI calls. */
    GPGPU_MPI_OVERLAP_INLINE = 2,
    /** The messages arrive before the diagonal product starts: the baseline that shows what
     *  the overlap saves. */
    GPGPU_MPI_OVERLAP_NONE = 3
} gpgpu_mpi_overlap;

/** How a distributed matrix is kept and multiplied; zero means default for every field. */
typedef struct gpgpu_mpi_matrix_desc {
    /** Each rank's blocks: the type (f32 or f64) of both, the format of the diagonal block
     *  (the off-diagonal block is always CSR). */
    gpgpu_matrix_desc local;
    /** How the diagonal block's products run (algo, the vector kernel's shape; alpha and
     *  beta are the product's own). The off-diagonal block takes libgpgpu's default. */
    gpgpu_spmv_desc spmv;
    gpgpu_mpi_overlap overlap;
    /** Every product waits for its GPU work before it returns (gpgpu_finish), so that
     *  gpgpu_mpi_matrix_times splits its wall time exactly into the local products and the
     *  exchange; on GL a call returns once its work is queued, and that work's time would
     *  otherwise fall to whatever waits next. One wait more a product. */
    bool split_timing;
} gpgpu_mpi_matrix_desc;

/**
 * Creates a distributed matrix from this rank's rows: `rows` is a host CSR of this rank's
 * rows (rows->rows of them, 0 is fine) whose columns are global indices (rows->cols the
 * global column count, the same on every rank), sorted within each row (as gpgpu_csr_check
 * with need_sorted wants). Rank r's rows follow rank r-1's; `local_cols` is how many entries
 * of x (the columns) this rank owns, also in rank order (for a square matrix split as its
 * rows: rows->rows). The ghost columns, and the send and receive lists of the exchange
 * (MPI_Alltoall, MPI_Alltoallv), are built here once; the blocks are uploaded to ctx.
 * rows is read during the call only.
 * @return GPGPU_SUCCESS on every rank, or on every rank the worst status of them:
 *   GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (a malformed CSR, the rank and
 *   row named; local_cols that do not add up to rows->cols; column counts that differ
 *   between ranks); GPGPU_ERROR_UNSUPPORTED_FEATURE (f64 without shader doubles;
 *   GPGPU_MPI_OVERLAP_THREAD where MPI's thread level is below MPI_THREAD_SERIALIZED);
 *   GPGPU_ERROR_TOO_LARGE; GPGPU_ERROR_OUT_OF_MEMORY; GPGPU_ERROR_BACKEND (MPI failed); the
 *   errors of gpgpu_matrix_create.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_create(gpgpu_context *ctx, MPI_Comm comm,
                                               const gpgpu_mpi_matrix_desc *desc,
                                               const gpgpu_csr *rows, uint32_t local_cols,
                                               gpgpu_mpi_matrix **out);

/**
 * Creates a distributed matrix from a whole host CSR on rank root (ignored elsewhere), split
 * into row blocks of about equal nonzeros (rank r's block starts at the first row whose
 * entries before it reach r/P of all; rows evenly where there are no entries). A square
 * matrix's columns are split as its rows; a rectangular one's evenly.
 * @return as gpgpu_mpi_matrix_create; GPGPU_ERROR_INVALID_ARGUMENT (root out of range).
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_scatter(gpgpu_context *ctx, MPI_Comm comm,
                                                const gpgpu_mpi_matrix_desc *desc, int root,
                                                const gpgpu_csr *a, gpgpu_mpi_matrix **out);

/**
 * Reads a MatrixMarket file on rank root (gpgpu_mtx_read_matrix) and scatters it as
 * gpgpu_mpi_matrix_scatter does. header (may be NULL) gets what the file declared, on every
 * rank.
 * @return as gpgpu_mpi_matrix_scatter, on every rank; GPGPU_ERROR_IO; GPGPU_ERROR_PARSE (the
 *   reader's message, naming the line).
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_read(gpgpu_context *ctx, MPI_Comm comm,
                                             const gpgpu_mpi_matrix_desc *desc, int root,
                                             const char *path, gpgpu_mtx_header *header,
                                             gpgpu_mpi_matrix **out);

/**
 * Creates the matrix gpgpu_generate makes for GPGPU_GEN_LAPLACE3D_7 or GPGPU_GEN_LAPLACE3D_27
 * and `size`, each rank generating only its own rows (the rows split evenly: rank r's start
 * at r * rows / P), so no rank ever holds the whole matrix.
 * @return as gpgpu_mpi_matrix_create; GPGPU_ERROR_UNSUPPORTED_COMBINATION (another
 *   generator); GPGPU_ERROR_TOO_LARGE (as gpgpu_generate).
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_generate(gpgpu_context *ctx, MPI_Comm comm,
                                                 const gpgpu_mpi_matrix_desc *desc,
                                                 gpgpu_generator gen, uint32_t size,
                                                 gpgpu_mpi_matrix **out);

/** Destroys the matrix, its GPU blocks and its exchange; NULL is accepted. Local, but every
 *  rank destroys its part before MPI_Finalize (the matrix holds a duplicate of comm). */
GPGPU_MPI_API void gpgpu_mpi_matrix_destroy(gpgpu_mpi_matrix *a);

/** What a distributed matrix holds, globally and on this rank. */
typedef struct gpgpu_mpi_matrix_info {
    gpgpu_type type;
    uint64_t rows, cols, nnz;  /**< the whole matrix */
    uint64_t first_row, first_col;
    uint32_t local_rows, local_cols;
    size_t diag_nnz, offd_nnz; /**< this rank's entries in its diagonal and off-diagonal block */
    uint32_t ghosts;           /**< columns of other ranks that this rank's rows use */
    uint32_t sends;            /**< values this rank sends a product (one per rank that needs it) */
    int recv_ranks, send_ranks; /**< the ranks it receives from and sends to */
    uint32_t offd_ranges;      /**< row ranges the off-diagonal products cover (one product each) */
    uint32_t offd_rows;        /**< rows those ranges hold */
    gpgpu_mpi_overlap overlap; /**< as resolved: THREAD, INLINE or NONE */
} gpgpu_mpi_matrix_info;

/** Fills *info. Local. @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER. */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_get_info(const gpgpu_mpi_matrix *a,
                                                 gpgpu_mpi_matrix_info *info);

/**
 * This rank's ghost columns: *count global column indices, ascending, in the order their
 * values take in the buffer of gpgpu_mpi_halo. Local.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER.
 * @pointer_lifetime as long as the matrix.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_ghosts(const gpgpu_mpi_matrix *a,
                                               const uint32_t **global_cols, uint32_t *count);

/** Which side of a matrix a vector fits (gpgpu_mpi_matrix_vector). */
typedef enum gpgpu_mpi_side {
    GPGPU_MPI_ROWS = 1, /**< y of y = A*x: this rank's rows */
    GPGPU_MPI_COLS = 2  /**< x: this rank's columns */
} gpgpu_mpi_side;

/** Creates a vector of the matrix's type laid out as its rows or its columns (values
 *  undefined); no message but the agreement on the status. @return as
 *  gpgpu_mpi_vector_create; GPGPU_ERROR_INVALID_ARGUMENT (an unknown side). */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_vector(const gpgpu_mpi_matrix *a, gpgpu_mpi_side side,
                                               gpgpu_mpi_vector **out);

/**
 * The halo exchange alone: the values of x at this rank's ghost columns, from the ranks that
 * own them, into a buffer of the matrix (*ghosts, gpgpu_mpi_matrix_ghosts' order; NULL on a
 * rank without ghosts), valid until the next product or exchange of the matrix.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (x of another
 *   type, context or size than the matrix's columns on some rank); GPGPU_ERROR_BACKEND;
 *   errors of libgpgpu's calls.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_halo(gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *x,
                                      gpgpu_buffer **ghosts);

/**
 * y = alpha*A*x + beta*y (beta = 0: y is only written). Each rank gathers on its GPU the
 * values of x that others need, downloads them and starts its sends and receives (persistent
 * requests made with the matrix), runs its diagonal block's product while they fly (as
 * desc.overlap says), uploads the ghost values that arrived and adds its off-diagonal
 * block's product. x and y must not overlap.
 * @return as gpgpu_mpi_halo; GPGPU_ERROR_INVALID_ARGUMENT also for y; GPGPU_ERROR_OVERLAP (x
 *   and y share a buffer's range); errors of gpgpu_spmv.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_spmv(gpgpu_mpi_matrix *a, double alpha,
                                      const gpgpu_mpi_vector *x, double beta,
                                      gpgpu_mpi_vector *y);

/** Wall time of this rank's products since the matrix was made or last reset. */
typedef struct gpgpu_mpi_spmv_times {
    uint64_t products;
    /** The block products: the diagonal one that overlaps the exchange, the off-diagonal ones
     *  after it (with split_timing, until the GPU has done them). */
    double local_ns;
    /** The exchange's part of the critical path: the gather and its download, the wait for
     *  the messages that the diagonal product did not hide, the upload of the ghosts. */
    double halo_ns;
    /** Of halo_ns, the wait for the messages alone (MPI_Waitall, or the helper thread's). */
    double wait_ns;
} gpgpu_mpi_spmv_times;

/** Reads the times of this rank's products and, with reset, starts them again. Local.
 *  @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER. */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_times(gpgpu_mpi_matrix *a, gpgpu_mpi_spmv_times *times,
                                              bool reset);

/* --------------------------------------------------------------------- CG */

/** Variants of the distributed conjugate gradients. */
typedef enum gpgpu_mpi_cg_variant {
    GPGPU_MPI_CG_DEFAULT = 0,          /**< CLASSIC */
    /** Preconditioned CG as `gpgpu cg` runs it: two MPI_Allreduce an iteration, p.Ap and
     *  then r.r with r.z. */
    GPGPU_MPI_CG_CLASSIC = 1,
    /** Chronopoulos and Gear's single-reduction CG (PETSc's -ksp_cg_single_reduction): w = Az
     *  is computed along with r, and r.r, r.z and z.w go in one MPI_Allreduce, at the price
     *  of two more vectors and one more update an iteration. */
    GPGPU_MPI_CG_SINGLE_REDUCTION = 2
} gpgpu_mpi_cg_variant;

/** One iteration, for gpgpu_mpi_cg_desc.callback. */
typedef struct gpgpu_mpi_cg_iteration {
    uint64_t iteration; /**< 1 for the first; 0: the start, before it (no times) */
    double residual;    /**< ||r||/||b||, r the recurrence's residual (the same on every rank) */
    double wall_ns;     /**< the iteration's wall time on this rank */
    double gpu_ns;      /**< with gpu_timer: this rank's GPU time of it (gpgpu_timer_end), else 0 */
} gpgpu_mpi_cg_iteration;

typedef void (*gpgpu_mpi_cg_callback)(const gpgpu_mpi_cg_iteration *iteration, void *user_data);

/** How gpgpu_mpi_cg runs; zero means default for every field (those of `gpgpu cg`). */
typedef struct gpgpu_mpi_cg_desc {
    gpgpu_mpi_cg_variant variant;
    double tol;         /**< stop when ||r||/||b|| <= tol; 0: 1e-8 for f64, 1e-5 for f32 */
    uint64_t max_iter;  /**< 0: the rows of A, at least 1000 */
    bool jacobi;        /**< z = r / diag(A); every diagonal entry must be positive */
    /** Each phase of an iteration waits for its GPU work before the next starts (gpgpu_finish
     *  after the product and after the updates, where no result read back waits already),
     *  so that the stats split the iterations' wall time into their phases exactly; one or
     *  two waits more an iteration on GL, next to nothing on Vulkan, whose calls wait. */
    bool split_timing;
    bool gpu_timer;     /**< time each iteration's GPU work (gpgpu_timer_begin/end) */
    /** Called on every rank (may be NULL): with iteration 0 and the start's residual before the
     *  first iteration, then after every iteration. */
    gpgpu_mpi_cg_callback callback;
    void *user_data;
} gpgpu_mpi_cg_desc;

/** Why a solve stopped before converging, where it did not run out of iterations: as
 *  `gpgpu cg` breaks down (each is the same on every rank, from the same sums). */
typedef enum gpgpu_mpi_cg_breakdown {
    GPGPU_MPI_CG_BREAKDOWN_NONE = 0,
    /** p.Ap <= 0 (values[0]): A is not positive definite, or the precision ran out */
    GPGPU_MPI_CG_BREAKDOWN_PAP = 1,
    /** p.Ap (values[0]) infinite or NaN: the values overflowed the type */
    GPGPU_MPI_CG_BREAKDOWN_PAP_OVERFLOW = 2,
    /** ||b||^2 (values[0]) infinite or NaN, before the first iteration */
    GPGPU_MPI_CG_BREAKDOWN_RHS_OVERFLOW = 3,
    /** r.r (values[0]) infinite or NaN */
    GPGPU_MPI_CG_BREAKDOWN_RR_OVERFLOW = 4,
    /** r.z (values[0]) infinite or NaN, z = r/diag(A) */
    GPGPU_MPI_CG_BREAKDOWN_RZ_OVERFLOW = 5,
    /** the step r.z / p.Ap (values[0] / values[1]) beyond the type's range, which the vector
     *  updates refuse */
    GPGPU_MPI_CG_BREAKDOWN_STEP = 6,
    /** the direction's factor r.z / r.z(previous) (values[0] / values[1]) beyond the type's
     *  range */
    GPGPU_MPI_CG_BREAKDOWN_DIRECTION = 7
} gpgpu_mpi_cg_breakdown;

/** What a solve did. The times are this rank's, summed over the iterations. */
typedef struct gpgpu_mpi_cg_stats {
    uint64_t iterations;
    bool converged;
    /** The solve stopped at iteration breakdown_iteration (0: before the first) for this
     *  reason; the status is still GPGPU_SUCCESS. */
    gpgpu_mpi_cg_breakdown breakdown;
    uint64_t breakdown_iteration;
    double breakdown_values[2];
    double residual;      /**< ||r||/||b|| at the end (the recurrence's) */
    double b_norm;        /**< ||b|| */
    uint64_t allreduces;  /**< MPI_Allreduce calls of the iterations */
    double wall_ns;       /**< all the iterations */
    double spmv_ns;       /**< the block products (gpgpu_mpi_spmv_times.local_ns) */
    double halo_ns;       /**< the exchange's exposed part (gpgpu_mpi_spmv_times.halo_ns) */
    double wait_ns;       /**< of halo_ns, the wait for the messages */
    double reduce_ns;     /**< the local dot products and the MPI_Allreduce calls */
    double allreduce_ns;  /**< of reduce_ns, the MPI_Allreduce calls */
    double update_ns;     /**< the vector updates (and the Jacobi scaling) */
    double gpu_ns;        /**< with gpu_timer: the GPU time of the iterations */
} gpgpu_mpi_cg_stats;

/**
 * Solves A*x = b for a symmetric positive definite A by conjugate gradients, from the x given
 * (`gpgpu-mpi cg` starts from 0); x ends as the last iterate. b fits A's rows, x its columns
 * (A square, split alike). Not converging within max_iter, and a breakdown, are results, in
 * *stats (may be NULL), not failures. The scalars of a step are checked as `gpgpu cg` checks
 * them before they reach the vector updates (gpgpu_axpby refuses what the type cannot hold).
 * @return GPGPU_SUCCESS on every rank, or on every rank the same failure:
 *   GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (an unknown variant, tol negative,
 *   A not square or its rows and columns split differently, vectors that do not fit it, a
 *   diagonal entry that is missing or not positive with jacobi, the row named); errors of
 *   libgpgpu's calls on any rank.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_cg(gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *b,
                                    gpgpu_mpi_vector *x, const gpgpu_mpi_cg_desc *desc,
                                    gpgpu_mpi_cg_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_MPI_H */
