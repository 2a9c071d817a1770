/* gpgpu cg: solves A*x = b by the conjugate-gradient method, every vector
 * operation on the GPU through the library's primitives: gpgpu_spmv for the
 * products, gpgpu_dot, gpgpu_axpby and gpgpu_axpby_dot (the residual's
 * update and r.r in one pass) for the rest. Only the dot products' scalars
 * come back each step. */
#include "commands.h"

#include <gpgpu/io.h>

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char cg_help[] =
    "Usage: gpgpu cg (A.mtx | --laplace3d N) [--type f32|f64] [--tol T]\n"
    "                [--max-iter K] [--backend gl|vulkan] [-o X.mtx] [--b B.mtx]\n"
    "\n"
    "Solves A*x = b for a symmetric positive definite A by conjugate gradients\n"
    "from x = 0, every vector operation on the GPU (gpgpu_spmv, gpgpu_dot,\n"
    "gpgpu_axpby, gpgpu_axpby_dot; only the dot products come back). A step is\n"
    "Ap = A*p, p.Ap, x += a*p, r -= a*Ap with r.r in the same pass, p = r + b*p\n"
    "(with --jacobi also z = r/diag(A) and r.z). Prints one line per\n"
    "iteration: the iteration, ||r||/||b|| (r the recurrence's residual), the\n"
    "GPU time and the wall time of the step; then a summary with the true residual\n"
    "||b - A*x||/||b|| and, for the default b = A*ones (whose solution is all\n"
    "ones), the largest |x_i - 1|. The lines go to standard output, or to\n"
    "standard error with -o -. A matrix that is not symmetric gets a warning;\n"
    "an A or b with a NaN or infinite entry is refused (exit 2, naming it).\n"
    "Exits 1 when it does not converge within --max-iter, or when it breaks\n"
    "down, which stops it with the iteration and the reason on standard error:\n"
    "p.Ap <= 0 (A is not positive definite, or the precision ran out), or p.Ap\n"
    "or r.r infinite or NaN (the values overflowed TYPE).\n"
    "\n"
    "  A.mtx             a square MatrixMarket matrix\n"
    "  --laplace3d N     instead: the 7-point 3D Laplacian of an N^3 grid\n"
    "                    (GPGPU_GEN_LAPLACE3D_7, N^3 rows); N up to 674, whose\n"
    "                    7 N^3 - 6 N^2 entries the shaders index, and made once\n"
    "                    the device is known to hold it\n"
    "  --b B.mtx         the right-hand side, rows(A) entries; default A*ones\n"
    "  --tol T           stop when ||r||/||b|| <= T; default 1e-8 for f64 and\n"
    "                    1e-5 for f32: in f32 the recurrence's residual keeps\n"
    "                    falling while the true one stalls near 1e-6 or above\n"
    "                    (f32 rounding times the condition), so a smaller tol\n"
    "                    spends iterations on nothing\n"
    "  --max-iter K      default: the rows of A, at least 1000 (in exact\n"
    "                    arithmetic CG ends within rows steps)\n"
    "  --jacobi          preconditions with diag(A) (z = r / a_ii, one more\n"
    "                    product and dot product a step): the cure for badly\n"
    "                    scaled rows such as the structural bcsstk matrices'\n"
    "  --every K         prints every K-th iteration (and the last); default 1\n"
    "  -o, --output X    writes x as a one-column MatrixMarket array (%.17g)\n";

/* The largest --laplace3d N whose 7 N^3 - 6 N^2 entries stay within the 2^31 - 1 the shaders
 * index (675 passes it). */
#define LAPLACE_MAX_N 674

bool parse_cg_args(int argc, char **argv, cg_args *c)
{
    *c = (cg_args){ .every = 1 };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help_sections(cg_help, sparse_options_help, true);
            return false;
        }
        if ((value = tool_option_value(argc, argv, &i, "--laplace3d")) != NULL)
            c->laplace_n = (uint32_t)tool_parse_uint("--laplace3d", value, 1, LAPLACE_MAX_N);
        else if ((value = tool_option_value(argc, argv, &i, "--b")) != NULL)
            c->b_path = value;
        else if ((value = tool_output_option(argc, argv, &i)) != NULL)
            c->out_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--tol")) != NULL)
            c->tol = tool_parse_double("--tol", value);
        else if ((value = tool_option_value(argc, argv, &i, "--max-iter")) != NULL)
            c->max_iter = tool_parse_uint("--max-iter", value, 1, UINT32_MAX);
        else if ((value = tool_option_value(argc, argv, &i, "--every")) != NULL)
            c->every = tool_parse_uint("--every", value, 1, UINT32_MAX);
        else if (strcmp(argv[i], "--jacobi") == 0)
            c->jacobi = true;
        else if (!parse_sparse_option(argc, argv, &i, &c->m))
            parse_matrix_operand(argv[i], &c->matrix_path);
    }
    if ((c->matrix_path == NULL) == (c->laplace_n == 0))
        tool_usage_error("give a matrix file or --laplace3d N (one of them)");
    if (c->tol < 0)
        tool_usage_error("--tol: %g is negative", c->tol);
    check_sparse_args(&c->m);
    if (c->tol == 0)
        c->tol = c->m.matrix.type == GPGPU_TYPE_F64 ? 1e-8 : 1e-5;
    return true;
}

bool cmd_cg_parse(int argc, char **argv)
{
    cg_args c;

    return parse_cg_args(argc, argv, &c);
}

/* ----------------------------------------------------------------- the solver */

typedef struct cg_state {
    gpgpu_context *ctx;
    gpgpu_type type;
    uint32_t n;
    const cg_args *args;
    FILE *log;
    gpgpu_matrix *a;
    gpgpu_spmv_desc spmv;   /* A's products: the options' algorithm */
    gpgpu_matrix *inv_diag; /* --jacobi: diag(1/a_ii), else NULL */
    gpgpu_buffer *x, *b, *r, *p, *ap, *ones;
    gpgpu_buffer *z;        /* the preconditioned residual; r itself without --jacobi */
    double b_norm;
    double rr, rz; /* r.r and r.z (the same without --jacobi) */
    uint64_t iterations;
    bool started;   /* the iterations have begun (a breakdown before is at iteration 0) */
    bool breakdown;
    double gpu_ns, wall_ns; /* of all the iterations */
} cg_state;

/* y = a*x + b*y and x.y over the solver's n elements. */
static gpgpu_status axpby(const cg_state *s, double a, gpgpu_buffer *x, double b,
                          gpgpu_buffer *y)
{
    return gpgpu_axpby(s->ctx, s->type, s->n, a, x, 0, b, y, 0);
}

static gpgpu_status dot(const cg_state *s, gpgpu_buffer *x, gpgpu_buffer *y, double *result)
{
    return gpgpu_dot(s->ctx, s->type, s->n, x, 0, y, 0, result);
}

/* r = a*x + b*r and, in the same pass, rr = r.r (gpgpu_axpby_dot). */
static gpgpu_status update_residual(cg_state *s, double a, gpgpu_buffer *x, double b)
{
    return gpgpu_axpby_dot(s->ctx, s->type, s->n, a, x, 0, b, s->r, 0, s->r, 0, &s->rr);
}

/* Stops the solve at the step under way (0: before the first) and says why. Returns
 * GPGPU_SUCCESS: a breakdown is the solve's outcome, not a failed call. */
TOOL_PRINTF(2, 3)
static gpgpu_status breakdown(cg_state *s, const char *fmt, ...)
{
    char reason[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    tool_message("breakdown at iteration %llu: %s",
                 (unsigned long long)s->iterations + (s->started ? 1 : 0), reason);
    s->breakdown = true;
    return GPGPU_SUCCESS;
}

/* r.r and r.z as the residual's update left them: a sum that overflowed the type (or NaN
 * from one) would end the loop as if converged, or never. */
static gpgpu_status check_residual(cg_state *s)
{
    const char *type = gpgpu_type_name(s->type);

    if (!isfinite(s->rr))
        return breakdown(s, "r.r = %g: %s overflowed (the values are too large for it)",
                         s->rr, type);
    if (!isfinite(s->rz))
        return breakdown(s, "r.z = %g with z = r/diag(A): %s overflowed", s->rz, type);
    return GPGPU_SUCCESS;
}

/* z = M^-1 r and r.z (r.r itself without --jacobi). */
static gpgpu_status precondition(cg_state *s)
{
    gpgpu_spmv_desc scale = { .algo = GPGPU_ALGO_SPMV_SCALAR };
    gpgpu_status status;

    if (s->inv_diag == NULL) {
        s->rz = s->rr;
        return GPGPU_SUCCESS;
    }
    status = gpgpu_spmv(s->ctx, &scale, 1, s->inv_diag, s->r, 0, 0, s->z, 0);
    if (status == GPGPU_SUCCESS)
        status = dot(s, s->r, s->z, &s->rz);
    return status;
}

/* Whether a step's scalar can be handed to the vector updates, which refuse what the type
 * cannot hold (a tiny p.Ap makes the step overflow f32 long before double): a breakdown then,
 * not a failed call. */
static bool scalar_fits(const cg_state *s, double v)
{
    return isfinite(v) && (s->type != GPGPU_TYPE_F32 || fabs(v) <= FLT_MAX);
}

/* One (preconditioned) CG step: x, r, z and p move on, and rr, rz. */
static gpgpu_status cg_step(cg_state *s)
{
    double pap = 0, alpha, rz = s->rz;
    gpgpu_status status = gpgpu_spmv(s->ctx, &s->spmv, 1, s->a, s->p, 0, 0, s->ap, 0);

    if (status == GPGPU_SUCCESS)
        status = dot(s, s->p, s->ap, &pap);
    if (status != GPGPU_SUCCESS)
        return status;
    /* p.Ap > 0 for every p != 0 is what positive definite means. */
    if (!isfinite(pap))
        return breakdown(s, "p.Ap = %g: %s overflowed (the values are too large for it)", pap,
                         gpgpu_type_name(s->type));
    if (!(pap > 0))
        return breakdown(s, "p.Ap = %g, so A is not positive definite (or %s ran out of "
                         "precision)", pap, gpgpu_type_name(s->type));
    alpha = rz / pap;
    if (!scalar_fits(s, alpha))
        return breakdown(s, "the step r.z / p.Ap = %g / %g is beyond %s's range", rz, pap,
                         gpgpu_type_name(s->type));
    status = axpby(s, alpha, s->p, 1, s->x);
    if (status == GPGPU_SUCCESS)
        status = update_residual(s, -alpha, s->ap, 1);
    if (status == GPGPU_SUCCESS)
        status = precondition(s);
    if (status == GPGPU_SUCCESS)
        status = check_residual(s);
    if (status != GPGPU_SUCCESS || s->breakdown)
        return status;
    if (!scalar_fits(s, s->rz / rz))
        return breakdown(s, "the direction's factor r.z / r.z(previous) = %g / %g is beyond %s's "
                         "range", s->rz, rz, gpgpu_type_name(s->type));
    return axpby(s, 1, s->z, s->rz / rz, s->p);
}

/* One iteration's line; a GPU time that measured nothing (tool_timer_missed) is '-'. */
static void print_step(const cg_state *s, double rel, double gpu_ns, double wall_ns)
{
    char gpu[32] = "-";

    if (!tool_timer_missed(gpu_ns, wall_ns, 1))
        snprintf(gpu, sizeof(gpu), "%.1f", gpu_ns / 1e3);
    fprintf(s->log, "%8llu  %-14.6e %12s %12.1f\n", (unsigned long long)s->iterations, rel, gpu,
            wall_ns / 1e3);
}

/* Runs the steps and prints their lines; false with *status success when it
 * did not converge. */
static bool cg_iterate(cg_state *s, gpgpu_status *status)
{
    const cg_args *c = s->args;
    double rel = s->b_norm > 0 ? sqrt(s->rr) / s->b_norm : 0;

    fprintf(s->log, "%8s  %-14s %12s %12s\n", "iter", "||r||/||b||", "gpu_us", "wall_us");
    fprintf(s->log, "%8d  %-14.6e %12s %12s\n", 0, rel, "-", "-");
    *status = GPGPU_SUCCESS;
    s->started = true;
    while (rel > c->tol && s->iterations < c->max_iter) {
        double gpu_ns = 0, wall_ns = tool_now_ns();

        *status = gpgpu_timer_begin(s->ctx);
        if (*status == GPGPU_SUCCESS)
            *status = cg_step(s);
        if (*status == GPGPU_SUCCESS)
            *status = gpgpu_timer_end(s->ctx, &gpu_ns);
        if (*status != GPGPU_SUCCESS || s->breakdown)
            return false;
        wall_ns = tool_now_ns() - wall_ns;
        s->iterations++;
        s->gpu_ns += gpu_ns;
        s->wall_ns += wall_ns;
        rel = sqrt(s->rr) / s->b_norm;
        tool_progress_line("cg: iteration %llu, ||r||/||b|| = %.3e",
                           (unsigned long long)s->iterations, rel);
        if (s->iterations % c->every == 0 || rel <= c->tol || s->iterations == c->max_iter)
            print_step(s, rel, gpu_ns, wall_ns);
    }
    return rel <= c->tol;
}

/* ||b - A*x|| / ||b|| (in r, free once the steps are done). */
static gpgpu_status true_residual(cg_state *s, double *rel)
{
    double rr = 0;
    gpgpu_status status = axpby(s, 1, s->b, 0, s->r);

    if (status == GPGPU_SUCCESS)
        status = gpgpu_spmv(s->ctx, &s->spmv, -1, s->a, s->x, 0, 1, s->r, 0);
    if (status == GPGPU_SUCCESS)
        status = dot(s, s->r, s->r, &rr);
    *rel = s->b_norm > 0 ? sqrt(rr) / s->b_norm : 0;
    return status;
}

/* max |x_i - 1| (x - ones in r), from the min and max of x - 1. */
static gpgpu_status max_error_from_one(cg_state *s, double *error)
{
    gpgpu_reduce_desc minmax = { .type = s->type, .op = GPGPU_OP_MINMAX };
    tool_reduce_result result = { .f64 = { 0, 0 } };
    gpgpu_status status = axpby(s, 1, s->x, 0, s->r);

    if (status == GPGPU_SUCCESS)
        status = axpby(s, -1, s->ones, 1, s->r);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_reduce(s->ctx, &minmax, s->r, 0, s->n, &result);
    if (s->type == GPGPU_TYPE_F32)
        *error = fmax(fabs((double)result.f32[0]), fabs((double)result.f32[1]));
    else
        *error = fmax(fabs(result.f64[0]), fabs(result.f64[1]));
    return status;
}

/* The summary's first line: how the solve ended. */
static const char *outcome(const cg_state *s, bool converged)
{
    return converged ? "converged" : s->breakdown ? "broke down" : "not converged";
}

static gpgpu_status print_summary(cg_state *s, bool converged)
{
    double rel = s->b_norm > 0 ? sqrt(s->rr) / s->b_norm : 0, true_rel, error;
    double per = s->iterations > 0 ? (double)s->iterations : 1;
    gpgpu_status status = true_residual(s, &true_rel);

    if (status != GPGPU_SUCCESS)
        return status;
    fprintf(s->log, "%s after %llu iterations: ||r||/||b|| = %.3e (tol %.3g)\n",
            outcome(s, converged), (unsigned long long)s->iterations, rel, s->args->tol);
    fprintf(s->log, "true residual ||b - A*x||/||b|| = %.3e\n", true_rel);
    if (s->iterations > 0 && tool_timer_missed(s->gpu_ns, s->wall_ns, per))
        fprintf(s->log, "time: %.3f ms wall, per iteration %.1f us wall (the GPU timer measured "
                "nothing: this driver's timer queries miss compute work)\n",
                s->wall_ns / 1e6, s->wall_ns / per / 1e3);
    else
        fprintf(s->log, "time: %.3f ms GPU, %.3f ms wall; per iteration %.1f us GPU, %.1f us "
                "wall\n", s->gpu_ns / 1e6, s->wall_ns / 1e6, s->gpu_ns / per / 1e3,
                s->wall_ns / per / 1e3);
    if (s->args->b_path != NULL)
        return GPGPU_SUCCESS;
    if (s->n == 0) { /* the reduction's identity (-inf, +inf) would print as an error */
        fprintf(s->log, "max |x_i - 1|: none (A is 0 x 0: x has no entries)\n");
        return GPGPU_SUCCESS;
    }
    status = max_error_from_one(s, &error);
    if (status == GPGPU_SUCCESS)
        fprintf(s->log, "max |x_i - 1| = %.3e (b = A*ones: the solution is all ones)\n", error);
    return status;
}

/* The vectors: b (given or A*ones), x = 0, r = b, z = M^-1 r, p = z. */
static gpgpu_status cg_setup(cg_state *s, const double *b_host)
{
    /* x starts at 0 and ones is 1; the others are written before they are read. */
    gpgpu_buffer **vectors[] = { &s->x, &s->r, &s->p, &s->ap, &s->b, &s->ones, &s->z };
    gpgpu_status status = GPGPU_SUCCESS;

    for (size_t k = 0; k < sizeof(vectors) / sizeof(vectors[0]); k++) {
        if (status == GPGPU_SUCCESS && (vectors[k] != &s->z || s->inv_diag != NULL))
            status = upload_values(s->ctx, s->type, vectors[k] == &s->b ? b_host : NULL,
                                   vectors[k] == &s->ones ? 1 : 0, s->n, vectors[k]);
    }
    if (s->inv_diag == NULL)
        s->z = s->r;
    if (status == GPGPU_SUCCESS && b_host == NULL)
        status = gpgpu_spmv(s->ctx, &s->spmv, 1, s->a, s->ones, 0, 0, s->b, 0);
    if (status == GPGPU_SUCCESS)
        status = update_residual(s, 1, s->b, 0);
    if (status == GPGPU_SUCCESS)
        status = precondition(s);
    if (status == GPGPU_SUCCESS)
        status = axpby(s, 1, s->z, 0, s->p);
    s->b_norm = sqrt(s->rr);
    if (status == GPGPU_SUCCESS && !isfinite(s->rr))
        return breakdown(s, "||b||^2 = %g: %s overflowed (b%s is too large for it)", s->rr,
                         gpgpu_type_name(s->type), b_host == NULL ? " = A*ones" : "");
    if (status == GPGPU_SUCCESS)
        status = check_residual(s);
    return status;
}

/* diag(1/a_ii) on the GPU, for --jacobi; a diagonal entry that is missing
 * or not positive makes it no preconditioner (and A not SPD). */
static int create_inv_diag(gpgpu_context *ctx, const cg_args *c, const gpgpu_csr *a,
                           gpgpu_matrix **out)
{
    gpgpu_matrix_desc desc = { .type = c->m.matrix.type, .format = GPGPU_FORMAT_CSR };
    gpgpu_csr d = { .rows = a->rows, .cols = a->cols, .nnz = a->rows };
    gpgpu_status status = GPGPU_SUCCESS;
    int rc = TOOL_EXIT_OK;

    d.row_ptr = malloc(((size_t)a->rows + 1) * sizeof(uint32_t));
    d.col_idx = malloc(((size_t)a->rows + 1) * sizeof(uint32_t));
    d.values = malloc(((size_t)a->rows + 1) * sizeof(double));
    if (d.row_ptr == NULL || d.col_idx == NULL || d.values == NULL)
        status = GPGPU_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < a->rows && status == GPGPU_SUCCESS; i++) {
        double diag = 0;

        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
            diag = a->col_idx[k] == i ? a->values[k] : diag;
        if (!(diag > 0)) {
            char msg[160];
            snprintf(msg, sizeof(msg), "row %u has the diagonal entry %g; --jacobi needs "
                     "every one positive", i + 1, diag);
            rc = tool_fail(GPGPU_ERROR_INVALID_ARGUMENT, "cannot precondition", msg);
            break;
        }
        d.row_ptr[i] = i;
        d.col_idx[i] = i;
        d.values[i] = 1 / diag;
    }
    if (status == GPGPU_SUCCESS && rc == TOOL_EXIT_OK) {
        d.row_ptr[a->rows] = a->rows;
        status = gpgpu_matrix_create(ctx, &desc, &d, out);
    }
    if (status != GPGPU_SUCCESS)
        rc = tool_fail(status, "cannot upload the preconditioner", gpgpu_last_error(ctx));
    gpgpu_csr_free(&d);
    return rc;
}

static void cg_free(cg_state *s)
{
    gpgpu_buffer **vectors[] = { &s->x, &s->r, &s->p, &s->ap, &s->b, &s->ones };

    if (s->z != s->r)
        gpgpu_buffer_destroy(s->z);
    for (size_t k = 0; k < sizeof(vectors) / sizeof(vectors[0]); k++)
        gpgpu_buffer_destroy(*vectors[k]);
    gpgpu_matrix_destroy(s->inv_diag);
    gpgpu_matrix_destroy(s->a);
}

/* Sets up, iterates, summarizes and writes x. */
static int run_cg(gpgpu_context *ctx, const cg_args *c, const gpgpu_csr *a, const double *b_host)
{
    cg_state s = {
        .ctx = ctx,
        .type = c->m.matrix.type,
        .n = a->rows,
        .args = c,
        .log = c->out_path != NULL && strcmp(c->out_path, "-") == 0 ? stderr : stdout,
        .spmv = c->m.spmv,
    };
    gpgpu_status status = GPGPU_SUCCESS;
    bool converged = false;
    int rc = create_matrix(ctx, &c->m, a, &s.a);

    if (rc == TOOL_EXIT_OK && c->jacobi)
        rc = create_inv_diag(ctx, c, a, &s.inv_diag);
    if (rc == TOOL_EXIT_OK)
        status = cg_setup(&s, b_host);
    if (rc == TOOL_EXIT_OK && status == GPGPU_SUCCESS && !s.breakdown)
        converged = cg_iterate(&s, &status);
    if (rc == TOOL_EXIT_OK && status == GPGPU_SUCCESS)
        status = print_summary(&s, converged);
    if (rc == TOOL_EXIT_OK && status != GPGPU_SUCCESS)
        rc = tool_fail(status, "cg", gpgpu_last_error(ctx));
    if (rc == TOOL_EXIT_OK && c->out_path != NULL) {
        double *x;

        rc = download_values(ctx, s.type, s.x, s.n, &x);
        if (rc == TOOL_EXIT_OK)
            rc = write_values(c->out_path, x, s.n);
        free(x);
    }
    if (rc == TOOL_EXIT_OK && !converged) {
        if (!s.breakdown)
            tool_message("did not converge within %llu iterations",
                         (unsigned long long)c->max_iter);
        rc = TOOL_EXIT_FAILURE;
    }
    cg_free(&s);
    return rc;
}

/* CG assumes A = A^T; the transpose is A's CSC read as a CSR. */
static void warn_unless_symmetric(const char *name, const gpgpu_csr *a)
{
    gpgpu_sparse t = { 0 };
    char msg[256] = "";
    bool symmetric = gpgpu_sparse_from_csr(a, GPGPU_FORMAT_CSC, NULL, &t, msg, sizeof(msg)) ==
                         GPGPU_SUCCESS &&
                     memcmp(t.ptr, a->row_ptr, ((size_t)a->rows + 1) * sizeof(uint32_t)) == 0 &&
                     memcmp(t.idx, a->col_idx, a->nnz * sizeof(uint32_t)) == 0 &&
                     memcmp(t.values, a->values, a->nnz * sizeof(double)) == 0;

    if (!symmetric)
        tool_message("warning: %s is not symmetric: CG needs a symmetric positive definite "
                     "matrix and may not converge", name);
    gpgpu_sparse_free(&t);
}

/* A NaN or an infinity in A or b makes every residual NaN, which the stopping test would
 * take for convergence: such input is refused, by entry (1-based, as in the file). */
static int refuse_non_finite(const char *what, const char *where, double v)
{
    char msg[512];

    snprintf(msg, sizeof(msg), "%s: %s is %g; CG needs finite values", what, where, v);
    return tool_fail(GPGPU_ERROR_INVALID_ARGUMENT, "cannot solve", msg);
}

static int check_finite_matrix(const char *path, const gpgpu_csr *a)
{
    for (uint32_t i = 0; i < a->rows; i++) {
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            char where[64];

            if (isfinite(a->values[k]))
                continue;
            snprintf(where, sizeof(where), "entry (%u, %u)", i + 1, a->col_idx[k] + 1);
            return refuse_non_finite(path, where, a->values[k]);
        }
    }
    return TOOL_EXIT_OK;
}

int check_finite_vector(const char *path, const double *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char where[64];

        if (isfinite(v[k]))
            continue;
        snprintf(where, sizeof(where), "entry %zu", k + 1);
        return refuse_non_finite(path, where, v[k]);
    }
    return TOOL_EXIT_OK;
}

/* The rows of the system: the file's matrix, or the Laplacian's N^3. */
static size_t system_rows(const cg_args *c, const gpgpu_csr *a)
{
    return c->laplace_n > 0 ? (size_t)c->laplace_n * c->laplace_n * c->laplace_n : a->rows;
}

/* What the solve puts on the GPU, checked before anything is made: the Laplacian's CSR
 * arrays (a file's matrix was read, and gpgpu_matrix_create checks its own), and the
 * vectors x, r, p, Ap, b, ones and z. */
static int check_fit(gpgpu_context *ctx, const cg_args *c, size_t rows)
{
    size_t size = gpgpu_type_size(c->m.matrix.type), n = c->laplace_n;
    size_t nnz = 7 * n * n * n - 6 * n * n; /* 7 points less the 6 faces' missing ones */
    tool_fit fit;
    int rc = tool_fit_begin(ctx, &fit);

    if (rc == TOOL_EXIT_OK && n > 0)
        rc = tool_fit_array(&fit, "the Laplacian's row pointers", rows + 1, sizeof(uint32_t));
    if (rc == TOOL_EXIT_OK && n > 0)
        rc = tool_fit_array(&fit, "the Laplacian's column indices", nnz, sizeof(uint32_t));
    if (rc == TOOL_EXIT_OK && n > 0)
        rc = tool_fit_array(&fit, "the Laplacian's values", nnz, size);
    for (int k = 0; k < (c->jacobi ? 7 : 6) && rc == TOOL_EXIT_OK; k++)
        rc = tool_fit_array(&fit, "a vector of the solve", rows, size);
    return rc == TOOL_EXIT_OK ? tool_fit_end(&fit) : rc;
}

static int generate_laplacian(const cg_args *c, gpgpu_csr *a)
{
    size_t n = c->laplace_n;
    gpgpu_status status;

    tool_progress_step(long_step(7 * n * n * n), "generating the 3D Laplacian of %zu^3 rows...",
                       n);
    status = gpgpu_generate(GPGPU_GEN_LAPLACE3D_7, c->laplace_n, 0, 0, a);

    return status == GPGPU_SUCCESS ? TOOL_EXIT_OK
                                   : tool_fail(status, "cannot generate the Laplacian", NULL);
}

int load_cg_matrix(const cg_args *c, gpgpu_csr *a)
{
    gpgpu_mtx_header h = { 0 };
    int rc;

    rc = read_matrix(c->matrix_path, c->m.matrix.type, a, &h);
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (a->rows != a->cols) {
        char msg[256];
        snprintf(msg, sizeof(msg), "%s is %u x %u; CG needs a square matrix", c->matrix_path,
                 a->rows, a->cols);
        return tool_fail(GPGPU_ERROR_INVALID_ARGUMENT, "cannot solve", msg);
    }
    rc = check_finite_matrix(c->matrix_path, a);
    /* A file that says symmetric (or real hermitian) was expanded from one triangle. */
    if (rc == TOOL_EXIT_OK && strcmp(h.symmetry, "symmetric") != 0 &&
        strcmp(h.symmetry, "hermitian") != 0)
        warn_unless_symmetric(c->matrix_path, a);
    return rc;
}

int cmd_cg(int argc, char **argv)
{
    cg_args c;
    gpgpu_csr a = { 0 };
    gpgpu_context *ctx = NULL;
    double *b = NULL;
    int rc;

    if (!parse_cg_args(argc, argv, &c))
        return TOOL_EXIT_OK;
    tool_progress_init(c.m.quiet);
    /* Every file is read and checked before the GPU starts; the Laplacian is made once the
     * device is known to hold it. */
    rc = c.laplace_n > 0 ? TOOL_EXIT_OK : load_cg_matrix(&c, &a);
    size_t rows = system_rows(&c, &a);
    if (rc == TOOL_EXIT_OK && c.b_path != NULL)
        rc = read_vector_of_length(c.b_path, c.m.matrix.type, rows, "rows", &b);
    if (rc == TOOL_EXIT_OK && b != NULL)
        rc = check_finite_vector(c.b_path, b, rows);
    if (c.max_iter == 0)
        c.max_iter = rows > 1000 ? rows : 1000;
    if (rc == TOOL_EXIT_OK)
        rc = tool_context_create(&c.m.desc, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = check_fit(ctx, &c, rows);
    if (rc == TOOL_EXIT_OK && c.laplace_n > 0)
        rc = generate_laplacian(&c, &a);
    if (rc == TOOL_EXIT_OK)
        rc = run_cg(ctx, &c, &a, b);
    tool_context_destroy(ctx);
    free(b);
    gpgpu_csr_free(&a);
    return rc;
}
