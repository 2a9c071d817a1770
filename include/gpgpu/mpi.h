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
/** Open MPI's mpi.h without its C++ bindings. */
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
/** MPICH's mpi.h without its C++ bindings. */
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include "gpgpu.h"
#include "io.h"
#include "sparse.h"

/* libgpgpu_mpi's exports, as GPGPU_API is libgpgpu's: a program or a static build sees them
 * plainly; on Windows the DLL exports them and its users import them. */
/** @cond */
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
/** @endcond */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup mpi Distributed matrices, vectors, SpMV and CG (libgpgpu_mpi)
 * @brief A sparse matrix and its vectors over the ranks of an MPI communicator, each rank's
 * part on its own context (docs/DISTRIBUTED.md).
 * @{
 */

/**
 * @brief The message of the last failed call of libgpgpu_mpi on this thread.
 *
 * What was wrong and on which rank ("rank 2: ..."), with libgpgpu's own message where it
 * failed. Local.
 * @return the message, "" if no call failed.
 * @thread_safety Any thread: each thread has its own.
 * @pointer_lifetime valid until the next failing call on this thread.
 */
GPGPU_MPI_API const char *gpgpu_mpi_last_error(void);

/* --------------------------------------------------------------- contexts */

/**
 * @brief This rank's place among the ranks of comm on its node.
 *
 * MPI_Comm_split_type with MPI_COMM_TYPE_SHARED: its index and their count. Collective.
 * @param comm the communicator.
 * @param[out] node_rank this rank's index among the node's ranks.
 * @param[out] node_size the node's ranks.
 * @retval GPGPU_SUCCESS both are set.
 * @retval GPGPU_ERROR_NULL_POINTER node_rank or node_size is NULL.
 * @retval GPGPU_ERROR_BACKEND an MPI call failed (a communicator that returns errors).
 * @thread_safety As MPI's thread level allows.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_node_rank(MPI_Comm comm, int *node_rank, int *node_size);

/**
 * @brief Creates this rank's context, on the GPU of its place on the node.
 *
 * The ranks of a node take the node's GPUs in turn: desc.device = node rank modulo
 * gpgpu_device_count, plus one; unless the caller chose already (desc->device, the backend's
 * device variable GPGPU_EGL_DEVICE or GPGPU_VK_DEVICE, an adopted context or device, a GL
 * platform other than egl-device), when desc is used as it is. Collective: if one rank cannot
 * make its context, none keeps one.
 * @param comm the communicator.
 * @param[in] desc what to make (NULL: every field zero).
 * @param[out] out receives the context; NULL on failure.
 * @retval GPGPU_SUCCESS *out is this rank's context, on every rank.
 * @retval other the worst status of gpgpu_context_create over the ranks, on every rank (and
 *   GPGPU_ERROR_NULL_POINTER for out NULL, GPGPU_ERROR_BACKEND where MPI failed).
 * @thread_safety As gpgpu_context_create, and MPI's thread level.
 * @pointer_lifetime desc is read during the call only.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_context_create(MPI_Comm comm, const gpgpu_context_desc *desc,
                                                gpgpu_context **out);

/* ---------------------------------------------------------------- vectors */

/** A vector spread over the ranks: each rank's slice in a buffer of its context. */
typedef struct gpgpu_mpi_vector gpgpu_mpi_vector;

/** What a distributed vector holds. */
typedef struct gpgpu_mpi_vector_info {
    gpgpu_type type;      /**< f32 or f64 */
    uint32_t local_size;  /**< elements on this rank */
    uint64_t first;       /**< the global index of this rank's first element */
    uint64_t size;        /**< elements on all ranks */
    gpgpu_buffer *buffer; /**< this rank's slice, from element `offset` */
    size_t offset;        /**< the slice's first element in buffer */
} gpgpu_mpi_vector_info;

/**
 * @brief Creates a distributed vector of f32 or f64, its values undefined.
 *
 * Each rank's slice in a buffer of its own, the slices in rank order. Collective.
 * @param[in] ctx this rank's context.
 * @param comm the communicator, which must outlive the vector.
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param local_size this rank's elements (0 is fine).
 * @param[out] out receives the vector; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the vector, on every rank.
 * @retval GPGPU_ERROR_NULL_POINTER ctx or out is NULL (on some rank: every status here is
 *   every rank's, the worst).
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a type other than f32 and f64.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY the buffer could not be made.
 * @retval GPGPU_ERROR_BACKEND an MPI call failed.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_create(gpgpu_context *ctx, MPI_Comm comm,
                                               gpgpu_type type, uint32_t local_size,
                                               gpgpu_mpi_vector **out);

/**
 * @brief A distributed vector on the caller's buffer, not copied.
 *
 * A buffer of another context is the caller's error, which the first operation on the
 * vector reports. Collective.
 * @param[in] ctx this rank's context.
 * @param comm the communicator, which must outlive the vector.
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param local_size this rank's elements.
 * @param[in] buffer holds them, from element `offset`; it must outlive the vector.
 * @param offset the slice's first element in the buffer.
 * @param[out] out receives the vector; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the vector, on every rank.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, buffer or out is NULL.
 * @retval GPGPU_ERROR_OUT_OF_RANGE the slice runs past the buffer.
 * @retval other as gpgpu_mpi_vector_create.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_wrap(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type type,
                                             uint32_t local_size, gpgpu_buffer *buffer,
                                             size_t offset, gpgpu_mpi_vector **out);

/**
 * @brief Destroys a vector (a wrapped buffer is left alone). Local.
 * @param v the vector; NULL is accepted.
 * @thread_safety The thread that uses its context.
 */
GPGPU_MPI_API void gpgpu_mpi_vector_destroy(gpgpu_mpi_vector *v);

/**
 * @brief What a distributed vector holds. Local.
 * @param[in] v the vector.
 * @param[out] info receives it.
 * @retval GPGPU_SUCCESS *info is filled.
 * @retval GPGPU_ERROR_NULL_POINTER v or info is NULL.
 * @thread_safety Any thread.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_get_info(const gpgpu_mpi_vector *v,
                                                 gpgpu_mpi_vector_info *info);

/**
 * @brief Sets every element to value (rounded to the type). Collective.
 * @param[in,out] v the vector.
 * @param value the value.
 * @retval GPGPU_SUCCESS the elements are set.
 * @retval GPGPU_ERROR_NULL_POINTER v is NULL.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @retval other the errors of gpgpu_buffer_upload, on some rank.
 * @thread_safety The thread that uses the vector's context.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_fill(gpgpu_mpi_vector *v, double value);

/**
 * @brief Sets the vector from the whole vector on one rank: each rank gets its slice.
 *
 * Collective (MPI_Scatterv).
 * @param[in,out] v the vector.
 * @param root the rank that holds the values.
 * @param[in] values the vector's size doubles on root (rounded to the type); ignored elsewhere.
 * @retval GPGPU_SUCCESS the slices are set.
 * @retval GPGPU_ERROR_NULL_POINTER v is NULL, or values on root.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT root is not a rank of the vector's communicator.
 * @retval GPGPU_ERROR_TOO_LARGE the vector is past 2^31 - 1 elements (MPI's int counts).
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @retval GPGPU_ERROR_BACKEND an MPI call failed; the errors of gpgpu_buffer_upload.
 * @thread_safety The thread that uses the vector's context.
 * @pointer_lifetime values is read during the call only.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_scatter(gpgpu_mpi_vector *v, int root,
                                                const double *values);

/**
 * @brief The whole vector into `values` on one rank (MPI_Gatherv). Collective.
 * @param[in] v the vector.
 * @param root the rank that gets the values.
 * @param[out] values the vector's size doubles on root; ignored elsewhere.
 * @retval GPGPU_SUCCESS values holds the vector on root.
 * @retval other as gpgpu_mpi_vector_scatter (gpgpu_buffer_download's errors).
 * @thread_safety The thread that uses the vector's context.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_vector_gather(const gpgpu_mpi_vector *v, int root,
                                               double *values);

/**
 * @brief The dot product of two vectors of one type and layout, on every rank.
 *
 * gpgpu_dot on each rank's slices, then one MPI_Allreduce of the partial sums in double,
 * which also carries whether a rank failed. Collective.
 * @param[in] x a vector.
 * @param[in] y a vector of x's type and layout (x itself is fine).
 * @param[out] result receives x.y.
 * @retval GPGPU_SUCCESS *result is set, the same on every rank.
 * @retval GPGPU_ERROR_NULL_POINTER x, y or result is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT types, contexts or slice sizes that differ.
 * @retval other the errors of gpgpu_dot on some rank; GPGPU_ERROR_BACKEND where MPI failed.
 * @thread_safety The thread that uses the vectors' context.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_dot(const gpgpu_mpi_vector *x, const gpgpu_mpi_vector *y,
                                     double *result);

/** Norms for gpgpu_mpi_norm. */
typedef enum gpgpu_mpi_norm_kind {
    GPGPU_MPI_NORM_2 = 1,  /**< sqrt(x.x) */
    GPGPU_MPI_NORM_INF = 2 /**< max |x_i| (0 for an empty vector); NaN if any element is NaN */
} gpgpu_mpi_norm_kind;

/**
 * @brief A norm of the vector, on every rank. Collective (one MPI_Allreduce).
 * @param[in] x the vector.
 * @param kind GPGPU_MPI_NORM_2 or GPGPU_MPI_NORM_INF.
 * @param[out] result receives the norm.
 * @retval GPGPU_SUCCESS *result is set, the same on every rank.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown kind.
 * @retval other as gpgpu_mpi_dot (gpgpu_reduce's errors for the inf-norm).
 * @thread_safety The thread that uses the vector's context.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_norm(const gpgpu_mpi_vector *x, gpgpu_mpi_norm_kind kind,
                                      double *result);

/**
 * @brief y = alpha*x + beta*y on each rank's slices.
 *
 * gpgpu_axpby; no message but the agreement on the status (one MPI_Allreduce). Collective.
 * @param alpha the factor of x.
 * @param[in] x a vector.
 * @param beta the factor of y (0: y is only written).
 * @param[in,out] y a vector of x's type and layout.
 * @retval GPGPU_SUCCESS y is updated.
 * @retval GPGPU_ERROR_OVERLAP x and y overlap without being the same range.
 * @retval other as gpgpu_mpi_dot; the errors of gpgpu_axpby.
 * @thread_safety The thread that uses the vectors' context.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_axpby(double alpha, const gpgpu_mpi_vector *x, double beta,
                                       gpgpu_mpi_vector *y);

/**
 * @brief y = alpha*x + beta*y, then the new y's dot product with w, on every rank.
 *
 * One pass over each rank's slices (gpgpu_axpby_dot) and one MPI_Allreduce. Collective.
 * @param alpha the factor of x.
 * @param[in] x a vector.
 * @param beta the factor of y.
 * @param[in,out] y a vector of x's type and layout.
 * @param[in] w a vector of their type and layout (y itself is fine).
 * @param[out] result receives y.w.
 * @retval GPGPU_SUCCESS y is updated and *result set, the same on every rank.
 * @retval other as gpgpu_mpi_axpby; the errors of gpgpu_axpby_dot.
 * @thread_safety The thread that uses the vectors' context.
 */
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
    gpgpu_mpi_overlap overlap; /**< how the exchange overlaps the diagonal product */
    /** Every product waits for its GPU work before it returns (gpgpu_finish), so that
     *  gpgpu_mpi_matrix_times splits its wall time exactly into the local products and the
     *  exchange; on GL a call returns once its work is queued, and that work's time would
     *  otherwise fall to whatever waits next. One wait more a product. */
    bool split_timing;
} gpgpu_mpi_matrix_desc;

/**
 * @brief Creates a distributed matrix from each rank's rows.
 *
 * Rank r's rows follow rank r-1's, and so do the columns each rank owns. The ghost columns,
 * and the send and receive lists of the exchange (MPI_Alltoall, MPI_Alltoallv), are built
 * here once, on a duplicate of comm; the blocks are uploaded to ctx. Collective.
 * @param[in] ctx this rank's context.
 * @param comm the communicator, which must outlive the matrix.
 * @param[in] desc the blocks' type and format, the products' kernel, the overlap.
 * @param[in] rows this rank's rows (rows->rows of them, 0 is fine), columns as global indices
 *   sorted within each row (gpgpu_csr_check with need_sorted), rows->cols the global column
 *   count, the same on every rank.
 * @param local_cols how many entries of x (the columns) this rank owns (a square matrix split
 *   as its rows: rows->rows).
 * @param[out] out receives the matrix; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the matrix, on every rank.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, rows or out is NULL (on some rank: every status
 *   here is every rank's, the worst).
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a malformed CSR (the rank and row named); local_cols
 *   that do not add up to rows->cols; column counts that differ between ranks; an unknown
 *   type or overlap.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles;
 *   GPGPU_MPI_OVERLAP_THREAD where MPI's thread level is below MPI_THREAD_SERIALIZED.
 * @retval GPGPU_ERROR_TOO_LARGE more values to send than MPI's int counts.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host or device memory ran out.
 * @retval GPGPU_ERROR_BACKEND an MPI call failed, or the helper thread could not start.
 * @retval other the errors of gpgpu_matrix_create.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime desc and rows are read during the call only.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_create(gpgpu_context *ctx, MPI_Comm comm,
                                               const gpgpu_mpi_matrix_desc *desc,
                                               const gpgpu_csr *rows, uint32_t local_cols,
                                               gpgpu_mpi_matrix **out);

/**
 * @brief Creates a distributed matrix from a whole host CSR on one rank.
 *
 * Split into row blocks of about equal nonzeros: rank r's block starts at the first row whose
 * entries before it reach r/P of all (rows evenly where there are no entries). A square
 * matrix's columns are split as its rows, a rectangular one's evenly. Collective.
 * @param[in] ctx this rank's context.
 * @param comm the communicator, which must outlive the matrix.
 * @param[in] desc as for gpgpu_mpi_matrix_create.
 * @param root the rank that holds the matrix.
 * @param[in] a the whole matrix on root (sorted columns); ignored elsewhere.
 * @param[out] out receives the matrix; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the matrix, on every rank.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT root is not a rank of comm; a malformed CSR.
 * @retval other as gpgpu_mpi_matrix_create.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime desc and a are read during the call only.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_scatter(gpgpu_context *ctx, MPI_Comm comm,
                                                const gpgpu_mpi_matrix_desc *desc, int root,
                                                const gpgpu_csr *a, gpgpu_mpi_matrix **out);

/**
 * @brief Reads a MatrixMarket file on one rank and scatters it as gpgpu_mpi_matrix_scatter.
 * @param[in] ctx this rank's context.
 * @param comm the communicator, which must outlive the matrix.
 * @param[in] desc as for gpgpu_mpi_matrix_create.
 * @param root the rank that reads the file (gpgpu_mtx_read_matrix).
 * @param[in] path the file, on root.
 * @param[out] header receives what the file declared, on every rank (may be NULL).
 * @param[out] out receives the matrix; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the matrix, on every rank.
 * @retval GPGPU_ERROR_IO the file could not be read.
 * @retval GPGPU_ERROR_PARSE the file is malformed (the reader's message, naming the line).
 * @retval other as gpgpu_mpi_matrix_scatter.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_read(gpgpu_context *ctx, MPI_Comm comm,
                                             const gpgpu_mpi_matrix_desc *desc, int root,
                                             const char *path, gpgpu_mtx_header *header,
                                             gpgpu_mpi_matrix **out);

/**
 * @brief Creates gpgpu_generate's 3D Laplacian, each rank generating only its own rows.
 *
 * The rows split evenly (rank r's start at r * rows / P), so no rank ever holds the whole
 * matrix; they are gpgpu_generate's rows. Collective.
 * @param[in] ctx this rank's context.
 * @param comm the communicator, which must outlive the matrix.
 * @param[in] desc as for gpgpu_mpi_matrix_create.
 * @param gen GPGPU_GEN_LAPLACE3D_7 or GPGPU_GEN_LAPLACE3D_27.
 * @param size the grid's side n (n^3 rows).
 * @param[out] out receives the matrix; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the matrix, on every rank.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION another generator.
 * @retval GPGPU_ERROR_TOO_LARGE n^3 past 2^31 - 1 (as gpgpu_generate), or one rank's entries.
 * @retval other as gpgpu_mpi_matrix_create.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_generate(gpgpu_context *ctx, MPI_Comm comm,
                                                 const gpgpu_mpi_matrix_desc *desc,
                                                 gpgpu_generator gen, uint32_t size,
                                                 gpgpu_mpi_matrix **out);

/**
 * @brief Destroys the matrix, its GPU blocks and its exchange.
 *
 * Local, but every rank destroys its part before MPI_Finalize (the matrix holds a duplicate
 * of its communicator).
 * @param a the matrix; NULL is accepted.
 * @thread_safety The thread that uses its context.
 */
GPGPU_MPI_API void gpgpu_mpi_matrix_destroy(gpgpu_mpi_matrix *a);

/** What a distributed matrix holds, globally and on this rank. */
typedef struct gpgpu_mpi_matrix_info {
    gpgpu_type type;           /**< the blocks' values: f32 or f64 */
    uint64_t rows;             /**< the whole matrix's rows */
    uint64_t cols;             /**< the whole matrix's columns */
    uint64_t nnz;              /**< the whole matrix's entries */
    uint64_t first_row;        /**< this rank's first row */
    uint64_t first_col;        /**< this rank's first column (of x) */
    uint32_t local_rows;       /**< this rank's rows */
    uint32_t local_cols;       /**< this rank's columns */
    size_t diag_nnz;           /**< this rank's entries in its diagonal block */
    size_t offd_nnz;           /**< this rank's entries in its off-diagonal block */
    uint32_t ghosts;           /**< columns of other ranks that this rank's rows use */
    uint32_t sends;            /**< values this rank sends a product (one per rank that needs it) */
    int recv_ranks;            /**< the ranks it receives ghost values from */
    int send_ranks;            /**< the ranks it sends values to */
    uint32_t offd_ranges;      /**< row ranges the off-diagonal products cover (one product each) */
    uint32_t offd_rows;        /**< rows those ranges hold */
    gpgpu_mpi_overlap overlap; /**< as resolved: THREAD, INLINE or NONE */
} gpgpu_mpi_matrix_info;

/**
 * @brief What a distributed matrix holds, globally and on this rank. Local.
 * @param[in] a the matrix.
 * @param[out] info receives it.
 * @retval GPGPU_SUCCESS *info is filled.
 * @retval GPGPU_ERROR_NULL_POINTER a or info is NULL.
 * @thread_safety Any thread.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_get_info(const gpgpu_mpi_matrix *a,
                                                 gpgpu_mpi_matrix_info *info);

/**
 * @brief This rank's ghost columns. Local.
 * @param[in] a the matrix.
 * @param[out] global_cols receives the global column indices, ascending, in the order their
 *   values take in gpgpu_mpi_halo's buffer.
 * @param[out] count receives how many.
 * @retval GPGPU_SUCCESS both are set.
 * @retval GPGPU_ERROR_NULL_POINTER a pointer is NULL.
 * @thread_safety Any thread.
 * @pointer_lifetime *global_cols lives as long as the matrix.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_ghosts(const gpgpu_mpi_matrix *a,
                                               const uint32_t **global_cols, uint32_t *count);

/** Which side of a matrix a vector fits (gpgpu_mpi_matrix_vector). */
typedef enum gpgpu_mpi_side {
    GPGPU_MPI_ROWS = 1, /**< y of y = A*x: this rank's rows */
    GPGPU_MPI_COLS = 2  /**< x: this rank's columns */
} gpgpu_mpi_side;

/**
 * @brief Creates a vector of the matrix's type laid out as its rows or its columns.
 *
 * Its values are undefined; no message but the agreement on the status. Collective.
 * @param[in] a the matrix.
 * @param side GPGPU_MPI_ROWS or GPGPU_MPI_COLS.
 * @param[out] out receives the vector; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the vector, on every rank.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown side.
 * @retval other as gpgpu_mpi_vector_create.
 * @thread_safety The thread that uses the matrix's context.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_matrix_vector(const gpgpu_mpi_matrix *a, gpgpu_mpi_side side,
                                               gpgpu_mpi_vector **out);

/**
 * @brief The halo exchange alone: the values of x at this rank's ghost columns.
 *
 * From the ranks that own them, into a buffer of the matrix. Collective.
 * @param[in,out] a the matrix (its exchange's buffers).
 * @param[in] x a vector laid out as the matrix's columns.
 * @param[out] ghosts receives the buffer (gpgpu_mpi_matrix_ghosts' order; NULL on a rank
 *   without ghosts).
 * @retval GPGPU_SUCCESS the ghosts' values are in *ghosts.
 * @retval GPGPU_ERROR_NULL_POINTER a, x or ghosts is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT x of another type, context or size than the matrix's
 *   columns.
 * @retval GPGPU_ERROR_BACKEND an MPI call failed.
 * @retval other the errors of libgpgpu's calls (the gather, the transfers), on the rank where
 *   they happened, after it took its part in the messages.
 * @thread_safety The thread that uses the matrix's context.
 * @pointer_lifetime *ghosts is valid until the next product or exchange of the matrix.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_halo(gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *x,
                                      gpgpu_buffer **ghosts);

/**
 * @brief y = alpha*A*x + beta*y.
 *
 * Each rank gathers on its GPU the values of x that others need, downloads them and starts
 * its sends and receives (persistent requests made with the matrix), runs its diagonal
 * block's product while they fly (as desc.overlap says), uploads the ghost values that
 * arrived and adds its off-diagonal block's product. Collective.
 * @param[in,out] a the matrix.
 * @param alpha the factor of A*x.
 * @param[in] x a vector laid out as the matrix's columns.
 * @param beta the factor of y (0: y is only written, NaN in it ignored).
 * @param[in,out] y a vector laid out as the matrix's rows, not overlapping x.
 * @retval GPGPU_SUCCESS y holds the product.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT x or y of another type, context or size than the
 *   matrix's.
 * @retval GPGPU_ERROR_OVERLAP x and y share a buffer's range.
 * @retval other as gpgpu_mpi_halo; the errors of gpgpu_spmv.
 * @thread_safety The thread that uses the matrix's context.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_spmv(gpgpu_mpi_matrix *a, double alpha,
                                      const gpgpu_mpi_vector *x, double beta,
                                      gpgpu_mpi_vector *y);

/** Wall time of this rank's products since the matrix was made or last reset. */
typedef struct gpgpu_mpi_spmv_times {
    uint64_t products;         /**< the products timed */
    /** The block products: the diagonal one that overlaps the exchange, the off-diagonal ones
     *  after it (with split_timing, until the GPU has done them). */
    double local_ns;
    /** The exchange's part of the critical path: the gather and its download, the wait for
     *  the messages that the diagonal product did not hide, the upload of the ghosts. */
    double halo_ns;
    /** Of halo_ns, the wait for the messages alone (MPI_Waitall, or the helper thread's). */
    double wait_ns;
} gpgpu_mpi_spmv_times;

/**
 * @brief Reads the times of this rank's products and, with reset, starts them again. Local.
 * @param[in,out] a the matrix.
 * @param[out] times receives them.
 * @param reset zero them after reading.
 * @retval GPGPU_SUCCESS *times is filled.
 * @retval GPGPU_ERROR_NULL_POINTER a or times is NULL.
 * @thread_safety The thread that uses the matrix's context.
 */
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

/** Called by gpgpu_mpi_cg on every rank: at the start (iteration 0) and after each iteration. */
typedef void (*gpgpu_mpi_cg_callback)(const gpgpu_mpi_cg_iteration *iteration, void *user_data);

/** How gpgpu_mpi_cg runs; zero means default for every field (those of `gpgpu cg`). */
typedef struct gpgpu_mpi_cg_desc {
    gpgpu_mpi_cg_variant variant; /**< CLASSIC (default) or SINGLE_REDUCTION */
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
    void *user_data; /**< passed to callback */
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
    uint64_t iterations;  /**< iterations done */
    bool converged;       /**< ||r||/||b|| <= tol at the end */
    /** The solve stopped at iteration breakdown_iteration (0: before the first) for this
     *  reason; the status is still GPGPU_SUCCESS. */
    gpgpu_mpi_cg_breakdown breakdown;
    uint64_t breakdown_iteration; /**< the iteration a breakdown stopped (0: before the first) */
    double breakdown_values[2];   /**< the breakdown's values (gpgpu_mpi_cg_breakdown says which) */
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
 * @brief Solves A*x = b for a symmetric positive definite A by conjugate gradients.
 *
 * From the x given (`gpgpu-mpi cg` starts from 0); x ends as the last iterate. Not converging
 * within max_iter, and a breakdown, are results, in *stats, not failures. The scalars of a
 * step are checked as `gpgpu cg` checks them before they reach the vector updates
 * (gpgpu_axpby refuses what the type cannot hold). Collective.
 * @param[in,out] a the matrix: square, its columns split as its rows.
 * @param[in] b the right-hand side, laid out as A's rows.
 * @param[in,out] x the start, then the solution, laid out as A's columns.
 * @param[in] desc how to run (NULL: every default).
 * @param[out] stats receives what the solve did (may be NULL).
 * @retval GPGPU_SUCCESS the solve ran (converged, or stopped: *stats says), on every rank.
 * @retval GPGPU_ERROR_NULL_POINTER a, b or x is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown variant; tol negative; A not square or its
 *   rows and columns split differently; vectors that do not fit it; with jacobi, a diagonal
 *   entry that is missing or not positive (the rank and row named).
 * @retval other the errors of libgpgpu's calls on any rank, the same on every rank: the
 *   solve ends at the next reduction.
 * @thread_safety The thread that uses the matrix's context; desc's callback is called in it.
 * @pointer_lifetime desc is read during the call only.
 */
GPGPU_MPI_API gpgpu_status gpgpu_mpi_cg(gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *b,
                                    gpgpu_mpi_vector *x, const gpgpu_mpi_cg_desc *desc,
                                    gpgpu_mpi_cg_stats *stats);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_MPI_H */
