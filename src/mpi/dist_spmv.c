/* The distributed product y = alpha*A*x + beta*y and its halo exchange: the values others
 * need gathered on the GPU and downloaded, the persistent sends and receives started, the
 * diagonal block's product run while they fly, the ghost values uploaded as they arrive and
 * the off-diagonal block's product added. GL and Vulkan buffers are not visible to MPI, so
 * the values go through host memory made once with the matrix. */
#include "dist_internal.h"

#include <stdlib.h>

/* ------------------------------------------------------- the helper thread */

/* GPGPU_MPI_OVERLAP_THREAD: the thread waits for the exchange's requests while the caller's
 * thread runs the diagonal product, so the messages progress even while a backend's call
 * blocks on the GPU (Open MPI moves a message only inside an MPI call). The caller's thread
 * makes no MPI call between handing the requests over and getting them back, which is what
 * MPI_THREAD_SERIALIZED allows. */
struct dist_progress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    enum { PROGRESS_IDLE, PROGRESS_WAIT, PROGRESS_DONE, PROGRESS_QUIT } state;
    int count;
    MPI_Request *requests;
    int rc;
};

static void *progress_main(void *arg)
{
    dist_progress *p = arg;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->state == PROGRESS_IDLE || p->state == PROGRESS_DONE)
            pthread_cond_wait(&p->changed, &p->lock);
        if (p->state == PROGRESS_QUIT)
            break;
        pthread_mutex_unlock(&p->lock);
        int rc = MPI_Waitall(p->count, p->requests, MPI_STATUSES_IGNORE);
        pthread_mutex_lock(&p->lock);
        p->rc = rc;
        p->state = PROGRESS_DONE;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

gpgpu_status dist_progress_create(dist_progress **out)
{
    dist_progress *p = calloc(1, sizeof *p);

    DIST_CHECK(p != NULL, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    p->state = PROGRESS_IDLE;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return dist_fail(GPGPU_ERROR_BACKEND, "pthread_mutex_init failed");
    }
    if (pthread_cond_init(&p->changed, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        return dist_fail(GPGPU_ERROR_BACKEND, "pthread_cond_init failed");
    }
    if (pthread_create(&p->thread, NULL, progress_main, p) != 0) {
        pthread_cond_destroy(&p->changed);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return dist_fail(GPGPU_ERROR_BACKEND, "pthread_create failed: the exchange's thread");
    }
    *out = p;
    return GPGPU_SUCCESS;
}

void dist_progress_destroy(dist_progress *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->state = PROGRESS_QUIT;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static void progress_start(dist_progress *p, int count, MPI_Request *requests)
{
    pthread_mutex_lock(&p->lock);
    p->count = count;
    p->requests = requests;
    p->state = PROGRESS_WAIT;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

static int progress_wait(dist_progress *p)
{
    pthread_mutex_lock(&p->lock);
    while (p->state != PROGRESS_DONE)
        pthread_cond_wait(&p->changed, &p->lock);
    p->state = PROGRESS_IDLE;
    int rc = p->rc;
    pthread_mutex_unlock(&p->lock);
    return rc;
}

/* ------------------------------------------------------------ the exchange */

/* A GPU step that runs only while nothing has failed on this rank. */
#define GPU_STEP(status, call, what)                                         \
    do {                                                                     \
        if ((status) == GPGPU_SUCCESS) {                                     \
            gpgpu_status step_ = (call);                                     \
            if (step_ != GPGPU_SUCCESS)                                      \
                (status) = dist_fail_core(step_, a->ctx, (what));            \
        }                                                                    \
    } while (0)

static int request_count(const gpgpu_mpi_matrix *a)
{
    return a->recv_rank_count + a->send_rank_count;
}

/* Receives posted, the values to send gathered (a product with the selection matrix: each of
 * its rows picks one element of x, exactly) and downloaded, sends started. A rank whose GPU
 * failed sends what its buffer holds: its neighbours wait for those messages. */
static gpgpu_status exchange_begin(gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *x,
                                   gpgpu_status status)
{
    static const gpgpu_spmv_desc pick = { .algo = GPGPU_ALGO_SPMV_SCALAR };
    size_t size = gpgpu_type_size(a->type);
    gpgpu_status mpi = GPGPU_SUCCESS;

    if (a->recv_rank_count > 0)
        mpi = dist_mpi_check(MPI_Startall(a->recv_rank_count, a->requests), "MPI_Startall");
    if (a->send_count > 0) {
        GPU_STEP(status, gpgpu_spmv(a->ctx, &pick, 1, a->gather, x->buffer, x->offset, 0,
                                         a->send_gpu, 0),
                 "the gather of the values to send");
        GPU_STEP(status, gpgpu_buffer_download(a->send_gpu, 0, a->send_host, a->send_count * size),
                 "the download of the values to send");
    }
    if (a->send_rank_count > 0 && mpi == GPGPU_SUCCESS)
        mpi = dist_mpi_check(MPI_Startall(a->send_rank_count, a->requests + a->recv_rank_count),
                             "MPI_Startall");
    return status != GPGPU_SUCCESS ? status : mpi;
}

/* The messages waited for, inline or by the helper thread. */
static gpgpu_status exchange_wait(gpgpu_mpi_matrix *a, bool threaded)
{
    int rc = threaded ? progress_wait(a->progress)
                      : MPI_Waitall(request_count(a), a->requests, MPI_STATUSES_IGNORE);
    return dist_mpi_check(rc, "MPI_Waitall (the halo exchange)");
}

/* The ghost values that arrived, to the GPU. */
static gpgpu_status exchange_end(gpgpu_mpi_matrix *a, gpgpu_status status)
{
    if (a->ghost_count > 0)
        GPU_STEP(status, gpgpu_buffer_upload(a->ghost_gpu, 0, a->recv_host,
                                             a->ghost_count * gpgpu_type_size(a->type)),
                 "the upload of the ghost values");
    return status;
}

/* The diagonal block's product (y = alpha*A_d*x + beta*y), or y = beta*y without rows. */
static gpgpu_status diagonal_product(gpgpu_mpi_matrix *a, double alpha,
                                     const gpgpu_mpi_vector *x, double beta,
                                     gpgpu_mpi_vector *y, gpgpu_status status)
{
    if (a->diag != NULL)
        GPU_STEP(status, gpgpu_spmv(a->ctx, &a->spmv, alpha, a->diag, x->buffer, x->offset,
                                         beta, y->buffer, y->offset),
                 "the diagonal block's product");
    return status;
}

/* y += alpha*A_o*ghosts, range by range. */
static gpgpu_status offdiagonal_product(gpgpu_mpi_matrix *a, double alpha, gpgpu_mpi_vector *y,
                                        gpgpu_status status)
{
    static const gpgpu_spmv_desc own = { .algo = GPGPU_ALGO_DEFAULT };

    for (uint32_t k = 0; k < a->range_count; k++)
        GPU_STEP(status, gpgpu_spmv(a->ctx, &own, alpha, a->ranges[k].block, a->ghost_gpu, 0,
                                         1, y->buffer, y->offset + a->ranges[k].first),
                 "the off-diagonal block's product");
    return status;
}

gpgpu_status dist_spmv_run(gpgpu_mpi_matrix *a, double alpha, const gpgpu_mpi_vector *x,
                           double beta, gpgpu_mpi_vector *y, bool fence, gpgpu_status status,
                           gpgpu_mpi_spmv_times *call)
{
    bool messages = request_count(a) > 0;
    bool threaded = messages && a->overlap == GPGPU_MPI_OVERLAP_THREAD;
    gpgpu_mpi_spmv_times t = { .products = 1 };
    gpgpu_status mpi = GPGPU_SUCCESS;
    double start = dist_now_ns(), mark;

    status = exchange_begin(a, x, status);
    if (messages && a->overlap == GPGPU_MPI_OVERLAP_NONE) {
        mark = dist_now_ns();
        mpi = exchange_wait(a, false);
        t.wait_ns += dist_now_ns() - mark;
    }
    if (threaded)
        progress_start(a->progress, request_count(a), a->requests);
    mark = dist_now_ns();
    t.halo_ns += mark - start;
    status = diagonal_product(a, alpha, x, beta, y, status);
    start = dist_now_ns();
    t.local_ns += start - mark;
    if (messages && a->overlap != GPGPU_MPI_OVERLAP_NONE) {
        mpi = exchange_wait(a, threaded);
        t.wait_ns += dist_now_ns() - start;
    }
    status = exchange_end(a, status);
    mark = dist_now_ns();
    t.halo_ns += mark - start;
    status = offdiagonal_product(a, alpha, y, status);
    if (fence)
        GPU_STEP(status, gpgpu_finish(a->ctx), "gpgpu_finish");
    t.local_ns += dist_now_ns() - mark;
    a->times.products++;
    a->times.local_ns += t.local_ns;
    a->times.halo_ns += t.halo_ns;
    a->times.wait_ns += t.wait_ns;
    if (call != NULL)
        *call = t;
    return status != GPGPU_SUCCESS ? status : mpi;
}

/* ---------------------------------------------------------- the public calls */

static gpgpu_status check_fits(const gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *v,
                               uint32_t expected, const char *name, const char *side)
{
    DIST_CHECK(v != NULL, GPGPU_ERROR_NULL_POINTER, "%s is NULL", name);
    DIST_CHECK(v->type == a->type, GPGPU_ERROR_INVALID_ARGUMENT, "%s is %s, the matrix %s", name,
               gpgpu_type_name(v->type), gpgpu_type_name(a->type));
    DIST_CHECK(v->ctx == a->ctx, GPGPU_ERROR_INVALID_ARGUMENT,
               "%s belongs to another context than the matrix", name);
    DIST_CHECK(v->local_size == expected, GPGPU_ERROR_INVALID_ARGUMENT,
               "%s has %u elements on this rank, the matrix %u %s", name, v->local_size,
               expected, side);
    return GPGPU_SUCCESS;
}

gpgpu_status dist_spmv_check(const gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *x,
                             const gpgpu_mpi_vector *y)
{
    DIST_TRY(check_fits(a, x, a->local_cols, "x", "columns"));
    if (y == NULL)
        return GPGPU_SUCCESS;
    DIST_TRY(check_fits(a, y, a->local_rows, "y", "rows"));
    DIST_CHECK(!dist_slices_overlap(x, y), GPGPU_ERROR_OVERLAP, "x and y overlap");
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_mpi_halo(gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *x,
                            gpgpu_buffer **ghosts)
{
    if (a == NULL)
        return dist_agree(x != NULL ? x->comm : MPI_COMM_WORLD,
                          dist_fail(GPGPU_ERROR_NULL_POINTER, "gpgpu_mpi_halo: the matrix is NULL"));
    gpgpu_status status = ghosts == NULL
                              ? dist_fail(GPGPU_ERROR_NULL_POINTER, "gpgpu_mpi_halo: ghosts is NULL")
                              : dist_spmv_check(a, x, NULL);
    DIST_TRY(dist_agree(a->user_comm, status));
    status = exchange_begin(a, x, GPGPU_SUCCESS);
    gpgpu_status mpi = request_count(a) > 0 ? exchange_wait(a, false) : GPGPU_SUCCESS;
    status = exchange_end(a, status);
    *ghosts = a->ghost_gpu;
    return status != GPGPU_SUCCESS ? status : mpi;
}

gpgpu_status gpgpu_mpi_spmv(gpgpu_mpi_matrix *a, double alpha, const gpgpu_mpi_vector *x,
                            double beta, gpgpu_mpi_vector *y)
{
    if (a == NULL)
        return dist_agree(x != NULL ? x->comm : MPI_COMM_WORLD,
                          dist_fail(GPGPU_ERROR_NULL_POINTER, "gpgpu_mpi_spmv: the matrix is NULL"));
    DIST_TRY(dist_agree(a->user_comm, y == NULL ? dist_fail(GPGPU_ERROR_NULL_POINTER, "y is NULL")
                                           : dist_spmv_check(a, x, y)));
    return dist_spmv_run(a, alpha, x, beta, y, a->split_timing, GPGPU_SUCCESS, NULL);
}
