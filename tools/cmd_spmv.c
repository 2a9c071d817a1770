/* gpgpu spmv: y = alpha*A*x + beta*y0 on the GPU for a MatrixMarket matrix. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

const char spmv_help[] =
    "Usage: gpgpu spmv A.mtx [--x X.mtx] [-o Y.mtx] [--type f32|f64]\n"
    "                  [--format csr|coo|csc|ell|sell|bsr]\n"
    "                  [--algo classic|scalar|vector|balanced] [--backend gl|vulkan]\n"
    "\n"
    "Multiplies a sparse matrix (any MatrixMarket file that gpgpu matinfo reads;\n"
    "complex ones are refused) by a vector on the GPU: y = alpha*A*x + beta*y0.\n"
    "y is written as a one-column MatrixMarket array with %.17g, converted to\n"
    "double from the GPU's type (so f32 results print their exact value).\n"
    "\n"
    "  --x X.mtx         x, a one-column (or one-row) MatrixMarket vector of\n"
    "                    cols(A) entries; default: every entry 1\n"
    "  -o, --output Y    where y goes; - (the default) is standard output\n"
    "  --alpha A         default 1\n"
    "  --y0 Y0.mtx       y0, rows(A) entries; with it beta defaults to 1\n"
    "  --beta B          default 0 (y0 is not read); nonzero needs --y0\n"
    "  --repeat N        then times N more products (after y is saved) and\n"
    "                    prints to stderr the GPU and wall time per product and\n"
    "                    GFLOP/s (2 x nnz flops a product), from the GPU time,\n"
    "                    or from the wall time where the GPU timer measures\n"
    "                    nothing (GL on llvmpipe; a note says so)\n";

bool parse_spmv_args(int argc, char **argv, spmv_args *s)
{
    *s = (spmv_args){ .alpha = 1, .out_path = "-" };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help_sections(spmv_help, sparse_options_help, true);
            return false;
        }
        if ((value = tool_option_value(argc, argv, &i, "--x")) != NULL)
            s->x_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--y0")) != NULL)
            s->y0_path = value;
        else if ((value = tool_output_option(argc, argv, &i)) != NULL)
            s->out_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--alpha")) != NULL) {
            s->alpha = tool_parse_double("--alpha", value);
            s->alpha_text = value;
        } else if ((value = tool_option_value(argc, argv, &i, "--beta")) != NULL) {
            s->beta = tool_parse_double("--beta", value);
            s->beta_text = value;
            s->beta_given = true;
        } else if ((value = tool_option_value(argc, argv, &i, "--repeat")) != NULL)
            s->repeat = tool_parse_uint("--repeat", value, 1, 1000000);
        else if (!parse_sparse_option(argc, argv, &i, &s->m))
            parse_matrix_operand(argv[i], &s->matrix_path);
    }
    if (s->matrix_path == NULL)
        tool_usage_error("a matrix file is required");
    if (!s->beta_given && s->y0_path != NULL)
        s->beta = 1;
    if (s->beta != 0 && s->y0_path == NULL)
        tool_usage_error("--beta %g needs --y0 Y0.mtx (the y it scales)", s->beta);
    if (s->beta == 0 && s->y0_path != NULL)
        tool_usage_error("--y0 with --beta 0 would not be read");
    check_sparse_args(&s->m);
    if (s->alpha_text != NULL)
        tool_check_value_range("--alpha", s->alpha_text, s->m.matrix.type);
    if (s->beta_text != NULL)
        tool_check_value_range("--beta", s->beta_text, s->m.matrix.type);
    return true;
}

bool cmd_spmv_parse(int argc, char **argv)
{
    spmv_args s;

    return parse_spmv_args(argc, argv, &s);
}

/* Times s->repeat more products into y, which was downloaded already: with
 * beta nonzero they accumulate there, which changes the values, not the time. */
static int time_products(gpgpu_context *ctx, const spmv_args *s, const gpgpu_spmv_desc *desc,
                         const gpgpu_matrix *a, gpgpu_buffer *x, gpgpu_buffer *y)
{
    gpgpu_matrix_info info;
    double gpu_ns = 0, wall_ns = tool_now_ns();
    gpgpu_status status = gpgpu_timer_begin(ctx);

    for (uint64_t k = 0; k < s->repeat && status == GPGPU_SUCCESS; k++) {
        tool_progress_line("timing: product %llu of %llu", (unsigned long long)k + 1,
                           (unsigned long long)s->repeat);
        status = gpgpu_spmv(ctx, desc, s->alpha, a, x, 0, s->beta, y, 0);
    }
    if (status == GPGPU_SUCCESS)
        status = gpgpu_timer_end(ctx, &gpu_ns);
    wall_ns = tool_now_ns() - wall_ns;
    if (status == GPGPU_SUCCESS)
        status = gpgpu_matrix_get_info(a, &info);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "timed products", gpgpu_last_error(ctx));
    bool missed = tool_timer_missed(gpu_ns, wall_ns, (double)s->repeat);
    double rate_ns = tool_rate_ns(gpu_ns, wall_ns, (double)s->repeat) / (double)s->repeat;
    gpu_ns /= (double)s->repeat;
    wall_ns /= (double)s->repeat;
    char gpu[32] = "no";

    if (missed)
        tool_note("%s", tool_timer_missed_note);
    else
        snprintf(gpu, sizeof(gpu), "%.3f us", gpu_ns / 1e3);
    /* Flops per nanosecond are GFLOP/s. */
    tool_message("%s %s, algo %s: %llu products: %s GPU time, %.3f us wall each; "
                 "%.4g GFLOP/s (%s time)",
                 gpgpu_format_name(info.format), gpgpu_type_name(info.type),
                 tool_spmv_algo_name(desc->algo), (unsigned long long)s->repeat, gpu,
                 wall_ns / 1e3, rate_ns > 0 ? 2.0 * (double)info.nnz / rate_ns : 0.0,
                 missed ? "wall" : "GPU");
    return TOOL_EXIT_OK;
}

/* The product on the GPU, then y back to the host and out. */
static int run_spmv(const spmv_args *s, const gpgpu_csr *a, const double *x_host,
                    const double *y0_host)
{
    gpgpu_spmv_desc desc = s->m.spmv;
    gpgpu_type type = s->m.matrix.type;
    gpgpu_context *ctx = NULL;
    gpgpu_matrix *m = NULL;
    gpgpu_buffer *x = NULL, *y = NULL;
    double *y_host = NULL;
    int rc;

    rc = tool_context_create(&s->m.desc, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = create_matrix(ctx, &s->m, a, &m);
    if (rc == TOOL_EXIT_OK) {
        gpgpu_status status = upload_values(ctx, type, x_host, 1, a->cols, &x);
        if (status == GPGPU_SUCCESS)
            status = upload_values(ctx, type, y0_host, 0, a->rows, &y);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_spmv(ctx, &desc, s->alpha, m, x, 0, s->beta, y, 0);
        if (status != GPGPU_SUCCESS)
            rc = tool_fail(status, "spmv", gpgpu_last_error(ctx));
    }
    if (rc == TOOL_EXIT_OK)
        rc = download_values(ctx, type, y, a->rows, &y_host);
    /* Timed after the first product, which built the shaders: the rates are
     * then the products' own. */
    if (rc == TOOL_EXIT_OK && s->repeat > 0)
        rc = time_products(ctx, s, &desc, m, x, y);
    if (rc == TOOL_EXIT_OK)
        rc = write_values(s->out_path, y_host, a->rows);
    free(y_host);
    gpgpu_buffer_destroy(y);
    gpgpu_buffer_destroy(x);
    gpgpu_matrix_destroy(m);
    tool_context_destroy(ctx);
    return rc;
}

int cmd_spmv(int argc, char **argv)
{
    spmv_args s;
    gpgpu_csr a = { 0 };
    double *x = NULL, *y0 = NULL;
    int rc;

    if (!parse_spmv_args(argc, argv, &s))
        return TOOL_EXIT_OK;
    tool_progress_init(s.m.quiet);
    /* Every file is read and checked before the GPU starts. */
    rc = read_matrix(s.matrix_path, s.m.matrix.type, &a, NULL);
    if (rc == TOOL_EXIT_OK && s.x_path != NULL)
        rc = read_vector_of_length(s.x_path, s.m.matrix.type, a.cols, "columns", &x);
    if (rc == TOOL_EXIT_OK && s.y0_path != NULL)
        rc = read_vector_of_length(s.y0_path, s.m.matrix.type, a.rows, "rows", &y0);
    if (rc == TOOL_EXIT_OK)
        rc = run_spmv(&s, &a, x, y0);
    free(y0);
    free(x);
    gpgpu_csr_free(&a);
    return rc;
}
