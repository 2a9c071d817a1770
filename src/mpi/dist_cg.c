/* Distributed conjugate gradients: `gpgpu cg`'s iteration on each rank's slices, the dot
 * products completed by MPI_Allreduce. Each reduction also carries whether a rank failed, so
 * a failure anywhere ends the solve on every rank at the next reduction with one status; a
 * rank whose GPU failed skips its GPU work but still takes its part in every message. */
#include "dist_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

typedef struct cg {
    gpgpu_mpi_matrix *a;
    const gpgpu_mpi_cg_desc *desc;
    double tol;
    uint64_t max_iter;
    gpgpu_context *ctx;
    gpgpu_type type;
    uint32_t n;
    const gpgpu_mpi_vector *b;
    gpgpu_mpi_vector *x;
    gpgpu_mpi_vector *r, *p, *q, *z, *s, *w; /* z is r without Jacobi; s, w: single reduction */
    gpgpu_matrix *inv_diag;
    gpgpu_status status; /* this rank's first failure: its GPU steps stop there */
    bool iterating;      /* the products' times count (not the setup's) */
    gpgpu_mpi_cg_stats st;
} cg;

/* --------------------------------------------------------- the steps */

/* A GPU call on this rank's slices, skipped once one failed. */
#define LOCAL(c, call, what)                                                 \
    do {                                                                     \
        if ((c)->status == GPGPU_SUCCESS) {                                  \
            gpgpu_status local_ = (call);                                    \
            if (local_ != GPGPU_SUCCESS)                                     \
                (c)->status = dist_fail_core(local_, (c)->ctx, (what));      \
        }                                                                    \
    } while (0)

static void axpby(cg *c, double alpha, const gpgpu_mpi_vector *x, double beta,
                  gpgpu_mpi_vector *y)
{
    LOCAL(c, gpgpu_axpby(c->ctx, c->type, c->n, alpha, x->buffer, x->offset, beta, y->buffer,
                         y->offset),
          "cg: gpgpu_axpby");
}

static double dot(cg *c, const gpgpu_mpi_vector *x, const gpgpu_mpi_vector *y)
{
    double result = 0;
    LOCAL(c, gpgpu_dot(c->ctx, c->type, c->n, x->buffer, x->offset, y->buffer, y->offset, &result),
          "cg: gpgpu_dot");
    return result;
}

/* y = alpha*x + beta*y, and y.y of the new y (the residual's update and r.r). */
static double update_dot(cg *c, double alpha, const gpgpu_mpi_vector *x, double beta,
                         gpgpu_mpi_vector *y)
{
    double result = 0;
    LOCAL(c, gpgpu_axpby_dot(c->ctx, c->type, c->n, alpha, x->buffer, x->offset, beta, y->buffer,
                             y->offset, y->buffer, y->offset, &result),
          "cg: gpgpu_axpby_dot");
    return result;
}

/* z = r / diag(A), as `gpgpu cg --jacobi` scales: a product with diag(1/a_ii). */
static void precondition(cg *c)
{
    static const gpgpu_spmv_desc scale = { .algo = GPGPU_ALGO_SPMV_SCALAR };

    if (c->inv_diag != NULL)
        LOCAL(c, gpgpu_spmv(c->ctx, &scale, 1, c->inv_diag, c->r->buffer, c->r->offset, 0,
                                 c->z->buffer, c->z->offset),
              "cg: the Jacobi scaling");
}

/* With split timing, the phase's GPU work ends before the next phase's clock starts. */
static void fence(cg *c)
{
    if (c->desc->split_timing)
        LOCAL(c, gpgpu_finish(c->ctx), "cg: gpgpu_finish");
}

static void product(cg *c, double alpha, const gpgpu_mpi_vector *x, double beta,
                    gpgpu_mpi_vector *y)
{
    gpgpu_mpi_spmv_times t;
    c->status = dist_spmv_run(c->a, alpha, x, beta, y, c->desc->split_timing, c->status, &t);
    if (c->iterating) {
        c->st.spmv_ns += t.local_ns;
        c->st.halo_ns += t.halo_ns;
        c->st.wait_ns += t.wait_ns;
    }
}

/* The partial sums of every rank added (one MPI_Allreduce); false when a rank failed, with
 * c->status then the status every rank agreed on. */
static bool reduce(cg *c, double *values, int count)
{
    double t = dist_now_ns();
    gpgpu_status status = dist_sum(c->a->user_comm, values, count, c->status);
    if (c->iterating) {
        c->st.allreduces++;
        c->st.allreduce_ns += dist_now_ns() - t;
    }
    c->status = status;
    return status == GPGPU_SUCCESS;
}

static double since(double t)
{
    return dist_now_ns() - t;
}

/* Stops the solve (a result, not a failure: every rank has the same sums and stops alike) at
 * the step under way (0: the setup). Returns false, for the step to return. */
static bool breakdown(cg *c, gpgpu_mpi_cg_breakdown why, double v0, double v1)
{
    c->st.breakdown = why;
    c->st.breakdown_iteration = c->iterating ? c->st.iterations + 1 : 0;
    c->st.breakdown_values[0] = v0;
    c->st.breakdown_values[1] = v1;
    return false;
}

/* Whether a scalar can go into the vector updates, which refuse what the type cannot hold
 * (a tiny p.Ap makes a step overflow f32 long before double). */
static bool fits(const cg *c, double v)
{
    return isfinite(v) && (c->type != GPGPU_TYPE_F32 || fabs(v) <= FLT_MAX);
}

/* r.r and r.z as the residual's update left them: a sum that overflowed (or NaN from one)
 * would end the loop as if converged, or never. */
static bool residual_finite(cg *c, double rr, double rz)
{
    if (!isfinite(rr))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_RR_OVERFLOW, rr, 0);
    if (!isfinite(rz))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_RZ_OVERFLOW, rz, 0);
    return true;
}

/* ------------------------------------------------------------ classic */

/* The scalars carried from one iteration to the next. */
typedef struct cg_scalars {
    double rr, rz;        /* r.r, r.z (r.z = r.r without Jacobi) */
    double zw;            /* single reduction: z.Az */
    double rz_old, alpha_old;
    bool first;
} cg_scalars;

/* From the x given: r = b - A*x, z = M^-1 r, p = z; ||b||, r.r and r.z in one reduction. */
static bool classic_setup(cg *c, cg_scalars *k)
{
    double sums[3];

    axpby(c, 1, c->b, 0, c->r);
    product(c, -1, c->x, 1, c->r);
    precondition(c);
    axpby(c, 1, c->z, 0, c->p);
    sums[0] = dot(c, c->b, c->b);
    sums[1] = dot(c, c->r, c->r);
    sums[2] = c->desc->jacobi ? dot(c, c->r, c->z) : sums[1];
    if (!reduce(c, sums, 3))
        return false;
    c->st.b_norm = sqrt(sums[0]);
    k->rr = sums[1];
    k->rz = sums[2];
    if (!isfinite(sums[0]))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_RHS_OVERFLOW, sums[0], 0);
    return residual_finite(c, k->rr, k->rz);
}

/* q = A*p; p.q (the first reduction); x += a*p, r -= a*q with r.r, z = M^-1 r; r.z (the
 * second reduction, with r.r); p = z + b*p: `gpgpu cg`'s step. Each step returns false where
 * the solve stops: a failure (in c->status, the same on every rank) or a breakdown (c->st). */
static bool classic_step(cg *c, cg_scalars *k)
{
    bool jacobi = c->desc->jacobi;
    double pq, sums[2], t;

    product(c, 1, c->p, 0, c->q);
    t = dist_now_ns();
    pq = dot(c, c->p, c->q);
    if (!reduce(c, &pq, 1))
        return false;
    c->st.reduce_ns += since(t);
    /* p.Ap > 0 for every p != 0 is what positive definite means. */
    if (!isfinite(pq))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_PAP_OVERFLOW, pq, 0);
    if (!(pq > 0))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_PAP, pq, 0);
    double alpha = k->rz / pq;
    if (!fits(c, alpha))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_STEP, k->rz, pq);
    t = dist_now_ns();
    axpby(c, alpha, c->p, 1, c->x);
    sums[0] = update_dot(c, -alpha, c->q, 1, c->r);
    precondition(c);
    if (jacobi)
        fence(c); /* without it, update_dot's result read back waited for the updates */
    c->st.update_ns += since(t);
    t = dist_now_ns();
    sums[1] = jacobi ? dot(c, c->r, c->z) : sums[0];
    if (!reduce(c, sums, jacobi ? 2 : 1))
        return false;
    c->st.reduce_ns += since(t);
    double rz = jacobi ? sums[1] : sums[0], rz_old = k->rz;
    k->rr = sums[0];
    k->rz = rz;
    if (!residual_finite(c, sums[0], rz))
        return false;
    if (!fits(c, rz / rz_old))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_DIRECTION, rz, rz_old);
    t = dist_now_ns();
    axpby(c, 1, c->z, rz / rz_old, c->p);
    fence(c);
    c->st.update_ns += since(t);
    return true;
}

/* ------------------------------------------------- single reduction */

/* Chronopoulos and Gear's CG (method 1 of D'Azevedo, Eijkhout and Romine, 1993): with w = A*z
 * at hand, p.Ap = z.w - b*r.z/a_old, so the step's scalars need r.z and z.w only, which go into
 * one reduction with r.r; s = A*p follows from s = w + b*s. Setup: as classic, and w = A*z. */
static bool single_setup(cg *c, cg_scalars *k)
{
    double sums[4];

    axpby(c, 1, c->b, 0, c->r);
    product(c, -1, c->x, 1, c->r);
    precondition(c);
    product(c, 1, c->z, 0, c->w);
    sums[0] = dot(c, c->b, c->b);
    sums[1] = dot(c, c->r, c->r);
    sums[2] = c->desc->jacobi ? dot(c, c->r, c->z) : sums[1];
    sums[3] = dot(c, c->z, c->w);
    if (!reduce(c, sums, 4))
        return false;
    c->st.b_norm = sqrt(sums[0]);
    k->rr = sums[1];
    k->rz = sums[2];
    k->zw = sums[3];
    k->first = true;
    if (!isfinite(sums[0]))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_RHS_OVERFLOW, sums[0], 0);
    return residual_finite(c, k->rr, k->rz);
}

/* p = z + b*p, s = w + b*s, x += a*p, r -= a*s with r.r, z = M^-1 r; w = A*z; r.z, z.w and r.r
 * in one reduction. */
static bool single_step(cg *c, cg_scalars *k)
{
    bool jacobi = c->desc->jacobi;
    double sums[3], t = dist_now_ns();
    double beta = k->first ? 0 : k->rz / k->rz_old;
    double pap = k->first ? k->zw : k->zw - beta * k->rz / k->alpha_old;

    if (!fits(c, beta))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_DIRECTION, k->rz, k->rz_old);
    if (!isfinite(pap))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_PAP_OVERFLOW, pap, 0);
    if (!(pap > 0))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_PAP, pap, 0);
    double alpha = k->rz / pap;
    if (!fits(c, alpha))
        return breakdown(c, GPGPU_MPI_CG_BREAKDOWN_STEP, k->rz, pap);
    /* beta = 0 writes p and s without reading them: the first step needs no p or s before. */
    axpby(c, 1, c->z, beta, c->p);
    axpby(c, 1, c->w, beta, c->s);
    axpby(c, alpha, c->p, 1, c->x);
    sums[0] = update_dot(c, -alpha, c->s, 1, c->r);
    precondition(c);
    if (jacobi)
        fence(c);
    c->st.update_ns += since(t);
    product(c, 1, c->z, 0, c->w);
    t = dist_now_ns();
    sums[1] = jacobi ? dot(c, c->r, c->z) : sums[0];
    sums[2] = dot(c, c->z, c->w);
    if (!reduce(c, sums, 3))
        return false;
    c->st.reduce_ns += since(t);
    k->rz_old = k->rz;
    k->alpha_old = alpha;
    k->rr = sums[0];
    k->rz = sums[1];
    k->zw = sums[2];
    k->first = false;
    return residual_finite(c, sums[0], sums[1]);
}

/* ------------------------------------------------------------ the solve */

/* diag(1/a_ii) of this rank's rows; a diagonal entry missing or not positive is refused, as
 * `gpgpu cg --jacobi` refuses it, with its global row (1-based). */
static gpgpu_status make_inv_diag(cg *c)
{
    const gpgpu_mpi_matrix *a = c->a;
    gpgpu_csr d = { .rows = c->n, .cols = c->n, .nnz = c->n };
    gpgpu_matrix_desc desc = { .type = c->type, .format = GPGPU_FORMAT_CSR };
    gpgpu_status status = GPGPU_SUCCESS;

    if (c->n == 0)
        return GPGPU_SUCCESS;
    for (uint32_t i = 0; i < c->n; i++) {
        DIST_CHECK(a->diagonal[i] > 0, GPGPU_ERROR_INVALID_ARGUMENT,
                   "row %llu has the diagonal entry %g; jacobi needs every one positive",
                   (unsigned long long)(a->row_begin[a->rank] + i + 1), a->diagonal[i]);
    }
    d.row_ptr = malloc(((size_t)c->n + 1) * sizeof(uint32_t));
    d.col_idx = malloc((size_t)c->n * sizeof(uint32_t));
    d.values = malloc((size_t)c->n * sizeof(double));
    if (d.row_ptr == NULL || d.col_idx == NULL || d.values == NULL)
        status = dist_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (uint32_t i = 0; status == GPGPU_SUCCESS && i <= c->n; i++) {
        d.row_ptr[i] = i;
        if (i < c->n) {
            d.col_idx[i] = i;
            d.values[i] = 1 / a->diagonal[i];
        }
    }
    if (status == GPGPU_SUCCESS) {
        status = gpgpu_matrix_create(c->ctx, &desc, &d, &c->inv_diag);
        if (status != GPGPU_SUCCESS)
            status = dist_fail_core(status, c->ctx, "cg: the Jacobi preconditioner");
    }
    gpgpu_csr_free(&d);
    return status;
}

/* What every rank can check of the arguments on its own. */
static gpgpu_status check_args(const gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *b,
                               const gpgpu_mpi_vector *x, const gpgpu_mpi_cg_desc *d)
{
    DIST_CHECK(a != NULL && b != NULL && x != NULL, GPGPU_ERROR_NULL_POINTER,
               "gpgpu_mpi_cg: a NULL matrix or vector");
    DIST_CHECK(d->variant >= GPGPU_MPI_CG_DEFAULT && d->variant <= GPGPU_MPI_CG_SINGLE_REDUCTION,
               GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_mpi_cg: unknown variant %d", (int)d->variant);
    DIST_CHECK(d->tol >= 0, GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_mpi_cg: tol %g", d->tol);
    DIST_CHECK(a->rows == a->cols && a->local_rows == a->local_cols,
               GPGPU_ERROR_INVALID_ARGUMENT,
               "gpgpu_mpi_cg: A (%llu x %llu, %u x %u on this rank) must be square and its "
               "columns split as its rows",
               (unsigned long long)a->rows, (unsigned long long)a->cols, a->local_rows,
               a->local_cols);
    DIST_TRY(dist_spmv_check(a, x, b));
    return GPGPU_SUCCESS;
}

/* The vectors of the iteration, all laid out as A's rows. */
static gpgpu_status make_vectors(cg *c)
{
    bool single = c->desc->variant == GPGPU_MPI_CG_SINGLE_REDUCTION;
    gpgpu_mpi_vector **all[] = { &c->r, &c->p, &c->q, &c->z, &c->s, &c->w };
    bool needed[] = { true, true, !single, c->desc->jacobi, single, single };

    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        if (needed[k])
            DIST_TRY(dist_matrix_vector(c->a, GPGPU_MPI_ROWS, all[k]));
    }
    if (!c->desc->jacobi)
        c->z = c->r;
    return GPGPU_SUCCESS;
}

static void free_vectors(cg *c)
{
    if (c->z != c->r)
        gpgpu_mpi_vector_destroy(c->z);
    gpgpu_mpi_vector_destroy(c->r);
    gpgpu_mpi_vector_destroy(c->p);
    gpgpu_mpi_vector_destroy(c->q);
    gpgpu_mpi_vector_destroy(c->s);
    gpgpu_mpi_vector_destroy(c->w);
    gpgpu_matrix_destroy(c->inv_diag);
}

/* The iterations, each timed (wall, and GPU with gpu_timer) and reported to the callback. */
static void iterate(cg *c, cg_scalars *k)
{
    bool single = c->desc->variant == GPGPU_MPI_CG_SINGLE_REDUCTION;
    double rel = c->st.b_norm > 0 ? sqrt(k->rr) / c->st.b_norm : 0;

    if (c->desc->callback != NULL) {
        gpgpu_mpi_cg_iteration start = { .iteration = 0, .residual = rel };
        c->desc->callback(&start, c->desc->user_data);
    }
    c->iterating = true;
    while (rel > c->tol && c->st.iterations < c->max_iter) {
        double gpu_ns = 0, wall = dist_now_ns();
        bool timed = false;
        if (c->desc->gpu_timer) {
            LOCAL(c, gpgpu_timer_begin(c->ctx), "cg: gpgpu_timer_begin");
            timed = c->status == GPGPU_SUCCESS;
        }
        bool ok = single ? single_step(c, k) : classic_step(c, k);
        /* Only the measurement this step began is ended (not one of the caller's). A timer
         * that fails on one rank is that rank's failure, met by the others at the next
         * reduction. */
        if (timed) {
            gpgpu_status timer = gpgpu_timer_end(c->ctx, &gpu_ns);
            if (timer != GPGPU_SUCCESS && c->status == GPGPU_SUCCESS)
                c->status = dist_fail_core(timer, c->ctx, "cg: gpgpu_timer_end");
        }
        if (!ok)
            break;
        wall = since(wall);
        c->st.iterations++;
        c->st.wall_ns += wall;
        c->st.gpu_ns += gpu_ns;
        rel = sqrt(k->rr) / c->st.b_norm;
        if (c->desc->callback != NULL) {
            gpgpu_mpi_cg_iteration it = { .iteration = c->st.iterations, .residual = rel,
                                          .wall_ns = wall, .gpu_ns = gpu_ns };
            c->desc->callback(&it, c->desc->user_data);
        }
    }
    /* After a breakdown, the residual the step left (an overflowed one too), as gpgpu cg's
     * summary has it. */
    c->st.residual = c->st.b_norm > 0 ? sqrt(k->rr) / c->st.b_norm : 0;
    c->st.converged = c->st.breakdown == GPGPU_MPI_CG_BREAKDOWN_NONE && rel <= c->tol;
}

gpgpu_status gpgpu_mpi_cg(gpgpu_mpi_matrix *a, const gpgpu_mpi_vector *b, gpgpu_mpi_vector *x,
                          const gpgpu_mpi_cg_desc *desc, gpgpu_mpi_cg_stats *stats)
{
    static const gpgpu_mpi_cg_desc defaults = { 0 };
    cg c = { .a = a, .desc = desc != NULL ? desc : &defaults, .b = b, .x = x };
    cg_scalars k = { 0 };
    MPI_Comm comm = a != NULL ? a->user_comm : b != NULL ? b->comm : MPI_COMM_WORLD;

    if (stats != NULL)
        *stats = (gpgpu_mpi_cg_stats){ 0 };
    gpgpu_status status = check_args(a, b, x, c.desc);
    if (status == GPGPU_SUCCESS) {
        c.ctx = a->ctx;
        c.type = a->type;
        c.n = a->local_rows;
        c.tol = c.desc->tol > 0 ? c.desc->tol : c.type == GPGPU_TYPE_F64 ? 1e-8 : 1e-5;
        c.max_iter = c.desc->max_iter > 0 ? c.desc->max_iter : a->rows > 1000 ? a->rows : 1000;
        if (c.desc->jacobi)
            status = make_inv_diag(&c);
    }
    if (status == GPGPU_SUCCESS)
        status = make_vectors(&c);
    status = dist_agree(comm, status);
    if (status == GPGPU_SUCCESS) {
        bool ok = c.desc->variant == GPGPU_MPI_CG_SINGLE_REDUCTION ? single_setup(&c, &k)
                                                                  : classic_setup(&c, &k);
        if (ok) {
            iterate(&c, &k);
        } else if (c.status == GPGPU_SUCCESS) {
            c.st.residual = c.st.b_norm > 0 ? sqrt(k.rr) / c.st.b_norm : 0;
        }
        /* A failure after the last reduction (a timer, the last update) is met here. */
        status = dist_agree(comm, c.status);
    }
    free_vectors(&c);
    if (stats != NULL && status == GPGPU_SUCCESS)
        *stats = c.st;
    return status;
}
