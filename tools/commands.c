/* The help printing and the vector input options shared by the commands. */
#include "commands.h"

#include <gpgpu/io.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const command gpgpu_commands[] = {
    { .name = "info", .summary = "print what the context runs on",
      .run = cmd_info, .parse = cmd_info_parse, .help = info_help, .options_help = NULL,
      .context_options = true, .help_hint = "gpgpu info --help" },
    { .name = "reduce", .summary = "sum, min, max or min and max of a vector",
      .run = cmd_reduce, .parse = cmd_reduce_parse, .help = reduce_help, .options_help = vector_options_help,
      .context_options = true, .help_hint = "gpgpu reduce --help" },
    { .name = "scan", .summary = "inclusive or exclusive prefix sums of a vector",
      .run = cmd_scan, .parse = cmd_scan_parse, .help = scan_help, .options_help = vector_options_help,
      .context_options = true, .help_hint = "gpgpu scan --help" },
    { .name = "sort", .summary = "sort a vector (and its permutation), whole or by segments",
      .run = cmd_sort, .parse = cmd_sort_parse, .help = sort_help, .options_help = vector_options_help,
      .context_options = true, .help_hint = "gpgpu sort --help" },
    { .name = "matinfo", .summary = "shape, row lengths and format sizes of a sparse matrix file",
      .run = cmd_matinfo, .parse = cmd_matinfo_parse, .help = matinfo_help, .options_help = NULL,
      .context_options = false, .help_hint = "gpgpu matinfo --help" },
    { .name = "spmv", .summary = "sparse matrix times vector, y = alpha*A*x + beta*y0",
      .run = cmd_spmv, .parse = cmd_spmv_parse, .help = spmv_help, .options_help = sparse_options_help,
      .context_options = true, .help_hint = "gpgpu spmv --help" },
    { .name = "cg", .summary = "conjugate-gradient solve of A*x = b, every step on the GPU",
      .run = cmd_cg, .parse = cmd_cg_parse, .help = cg_help, .options_help = sparse_options_help,
      .context_options = true, .help_hint = "gpgpu cg --help" },
    { .name = "spgemm", .summary = "sparse matrix times sparse matrix, C = A*B",
      .run = cmd_spgemm, .parse = cmd_spgemm_parse, .help = spgemm_help, .options_help = NULL,
      .context_options = true, .help_hint = "gpgpu spgemm --help" },
    { .name = "gemm", .summary = "dense matrix times dense matrix, C = op(A)*op(B)",
      .run = cmd_gemm, .parse = cmd_gemm_parse, .help = gemm_help, .options_help = NULL,
      .context_options = true, .help_hint = "gpgpu gemm --help" },
    { .name = "histogram", .summary = "counts of a vector's values in even bins or between levels",
      .run = cmd_histogram, .parse = cmd_histogram_parse, .help = histogram_help, .options_help = vector_options_help,
      .context_options = true, .help_hint = "gpgpu histogram --help" },
    { .name = "segreduce", .summary = "sum, min or max of each segment of a vector",
      .run = cmd_segreduce, .parse = cmd_segreduce_parse, .help = segreduce_help, .options_help = vector_options_help,
      .context_options = true, .help_hint = "gpgpu segreduce --help" },
    { .name = "rle", .summary = "run-length encoding of a vector (and reduce-by-key)",
      .run = cmd_rle, .parse = cmd_rle_parse, .help = rle_help, .options_help = vector_options_help,
      .context_options = true, .help_hint = "gpgpu rle --help" },
};
const size_t gpgpu_command_count = sizeof(gpgpu_commands) / sizeof(gpgpu_commands[0]);

const char vector_options_help[] =
    "  --type TYPE       u32, i32, f32 or f64\n"
    "  IN.mtx            a MatrixMarket vector (one column or one row)\n"
    "  --random N        N random nonzero values instead of a file: u32 in\n"
    "                    [1, 1000], i32 in [-1000, 1000], f32 and f64 in\n"
    "                    [0.5, 1.5) with a random sign\n"
    "  --seed S          seed of --random (default 1); the same N and S give\n"
    "                    the same values on every machine\n";

/* Every command takes --quiet (tool_progress_init). */
static const char quiet_help[] =
    "  --quiet           no progress lines on stderr: without it, a run that takes\n"
    "                    more than 2 s says what it is doing, at most once a second\n"
    "                    (a step known to take seconds, such as reading a file of\n"
    "                    over 16 MiB, at once)\n";

void print_help_sections(const char *command_help, const char *options_help,
                         bool context_options)
{
    fputs(command_help, stdout);
    if (options_help != NULL)
        fputs(options_help, stdout);
    if (context_options)
        fputs(tool_context_options_help, stdout);
    fputs(quiet_help, stdout);
    fputs(tool_help_footer, stdout);
}

void print_help(const char *command_help, bool vector_input)
{
    print_help_sections(command_help, vector_input ? vector_options_help : NULL, true);
}

bool is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

bool parse_vector_option(int argc, char **argv, int *i, vector_args *a)
{
    const char *value;

    if (tool_context_option(argc, argv, i, &a->desc))
        return true;
    if ((value = tool_option_value(argc, argv, i, "--type")) != NULL) {
        a->type = tool_parse_type(value);
    } else if ((value = tool_option_value(argc, argv, i, "--random")) != NULL) {
        /* The library takes at most 2^31 - 1 elements (GPGPU_ERROR_TOO_LARGE);
         * refusing more here saves generating gigabytes first. */
        a->random = true;
        a->random_count = (size_t)tool_parse_uint("--random", value, 0, INT32_MAX);
    } else if ((value = tool_option_value(argc, argv, i, "--seed")) != NULL) {
        a->seed = tool_parse_uint("--seed", value, 0, UINT64_MAX);
    } else if (strcmp(argv[*i], "--quiet") == 0) {
        a->quiet = true;
    } else {
        return false;
    }
    return true;
}

void parse_vector_operand(const char *arg, vector_args *a)
{
    if (arg[0] == '-')
        tool_usage_error("unknown option '%s'", arg);
    if (a->path != NULL)
        tool_usage_error("more than one input file ('%s' and '%s')", a->path, arg);
    a->path = arg;
}

void check_vector_args(const vector_args *a)
{
    if (a->type == 0)
        tool_usage_error("--type is required");
    if (a->random && a->path != NULL)
        tool_usage_error("give an input file or --random, not both");
    if (!a->random && a->path == NULL)
        tool_usage_error("an input file or --random N is required");
}

bool long_step(size_t count)
{
    return count > TOOL_PROGRESS_THRESHOLD;
}

/* Reading runs at some tens of MB/s: a big file takes seconds. */
static void announce_reading(const char *path)
{
    struct stat st;

    if (stat(path, &st) == 0)
        tool_progress_step(long_step((size_t)st.st_size), "reading %s (%.0f MiB)...", path,
                           (double)st.st_size / (1 << 20));
}

int read_input(const vector_args *a, void **data, size_t *count)
{
    char msg[512] = "";
    gpgpu_status status;

    *data = NULL;
    if (a->random) {
        *count = a->random_count;
        return TOOL_EXIT_OK;
    }
    announce_reading(a->path);
    status = gpgpu_mtx_read_vector(a->path, a->type, data, count, msg, sizeof(msg));
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot read the input", msg);
    return TOOL_EXIT_OK;
}

/* The buffer holds at least one element: buffers cannot be empty, but the
 * count given to the primitives can be 0. It is checked against the device
 * first: --random would otherwise generate gigabytes for a primitive to refuse. */
int upload_input(gpgpu_context *ctx, const vector_args *a, const void *data, size_t count,
                 gpgpu_buffer **buf)
{
    size_t size = gpgpu_type_size(a->type);
    tool_fit fit;
    int rc = tool_fit_begin(ctx, &fit);
    gpgpu_status status;

    if (rc == TOOL_EXIT_OK)
        rc = tool_fit_array(&fit, a->random ? "the --random input" : "the input", count, size);
    if (rc == TOOL_EXIT_OK)
        rc = tool_fit_end(&fit);
    if (rc != TOOL_EXIT_OK)
        return rc;
    status = gpgpu_buffer_create(ctx, (count > 0 ? count : 1) * size, buf);

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot create a buffer", gpgpu_last_error(ctx));
    if (a->random) {
        tool_progress_step(long_step(count), "generating and uploading %zu random values...",
                           count);
        return tool_upload_random(ctx, *buf, a->type, count, a->seed);
    }
    if (count == 0)
        return TOOL_EXIT_OK;
    tool_progress_step(long_step(count), "uploading %zu values...", count);
    status = gpgpu_buffer_upload(*buf, 0, data, count * size);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot upload", gpgpu_last_error(ctx));
    return TOOL_EXIT_OK;
}

int prepare(const vector_args *a, gpgpu_context **ctx, gpgpu_buffer **buf, size_t *count)
{
    void *data;
    int rc = read_input(a, &data, count);

    if (rc != TOOL_EXIT_OK)
        return rc;
    rc = tool_context_create(&a->desc, ctx);
    if (rc == TOOL_EXIT_OK)
        rc = upload_input(*ctx, a, data, *count, buf);
    free(data);
    return rc;
}

int download_output(gpgpu_context *ctx, gpgpu_buffer *buf, size_t count, size_t size,
                    void **host)
{
    gpgpu_status status;

    *host = NULL;
    if (count == 0)
        return TOOL_EXIT_OK;
    *host = malloc(count * size);
    if (*host == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot download the result",
                         "out of host memory");
    status = gpgpu_buffer_download(buf, 0, *host, count * size);
    if (status != GPGPU_SUCCESS) {
        free(*host);
        *host = NULL;
        return tool_fail(status, "cannot download the result", gpgpu_last_error(ctx));
    }
    return TOOL_EXIT_OK;
}

/* ------------------------------------------------ sparse matrices: spmv, cg */

const char sparse_options_help[] =
    "  --type TYPE       f32 (default: every GPU has it, doubles are often slow\n"
    "                    or missing) or f64; the file's values are read as\n"
    "                    doubles and rounded once to TYPE on upload\n"
    "  --format FORMAT   csr (default), coo, csc, ell, sell or bsr\n"
    "  --algo ALGO       classic (Kiciak's 5-stage CSR SpMV), scalar (a row per\n"
    "                    invocation; the format's own kernel for the others),\n"
    "                    vector or balanced (CSR only); default: the library's\n"
    "                    choice (balanced for CSR, the format's kernel otherwise)\n"
    "  --threads-per-row T, --rows-per-group R\n"
    "                    the vector kernel's shape (powers of two; T*R <= 1024);\n"
    "                    default: the tuned shape, else the heuristic's\n"
    "  --tune            times the vector kernel's shapes on this matrix first\n"
    "                    and remembers the fastest ($GPGPU_TUNE_CACHE); implies\n"
    "                    --algo vector; CSR only\n"
    FORMAT_OPTIONS_HELP;


bool parse_format_option(int argc, char **argv, int *i, gpgpu_format_params *p)
{
    const char *value;

    if ((value = tool_option_value(argc, argv, i, "--sell-c")) != NULL)
        p->sell_c = (uint32_t)tool_parse_uint("--sell-c", value, 1, GPGPU_SELL_MAX_C);
    else if ((value = tool_option_value(argc, argv, i, "--sell-sigma")) != NULL)
        p->sell_sigma = (uint32_t)tool_parse_uint("--sell-sigma", value, 1, INT32_MAX);
    else if ((value = tool_option_value(argc, argv, i, "--bsr-block")) != NULL)
        p->bsr_block = (uint32_t)tool_parse_uint("--bsr-block", value, 1, GPGPU_BSR_MAX_BLOCK);
    else if ((value = tool_option_value(argc, argv, i, "--ell-max-fill")) != NULL)
        p->ell_max_fill = tool_parse_double("--ell-max-fill", value);
    else
        return false;
    /* ELL stores at least nnz entries: a limit below 1 refuses everything
     * (and 0 would mean the default). */
    if (p->ell_max_fill != 0 && p->ell_max_fill < 1)
        tool_usage_error("--ell-max-fill: %g is below 1 (ELL stores at least nnz entries)",
                         p->ell_max_fill);
    return true;
}

bool parse_sparse_option(int argc, char **argv, int *i, sparse_args *s)
{
    const char *value;

    if (tool_context_option(argc, argv, i, &s->desc) ||
        parse_format_option(argc, argv, i, &s->matrix.params))
        return true;
    if ((value = tool_option_value(argc, argv, i, "--type")) != NULL)
        s->matrix.type = tool_parse_float_type(value, "matrix values");
    else if ((value = tool_option_value(argc, argv, i, "--format")) != NULL)
        s->matrix.format = tool_parse_format(value);
    else if ((value = tool_option_value(argc, argv, i, "--algo")) != NULL)
        s->spmv.algo = tool_parse_spmv_algo(value);
    else if ((value = tool_option_value(argc, argv, i, "--threads-per-row")) != NULL)
        s->spmv.threads_per_row = (uint32_t)tool_parse_uint("--threads-per-row", value, 1, 1024);
    else if ((value = tool_option_value(argc, argv, i, "--rows-per-group")) != NULL)
        s->spmv.rows_per_group = (uint32_t)tool_parse_uint("--rows-per-group", value, 1, 1024);
    else if (strcmp(argv[*i], "--tune") == 0)
        s->tune = true;
    else if (strcmp(argv[*i], "--quiet") == 0)
        s->quiet = true;
    else
        return false;
    return true;
}

/* The format a format parameter shapes, or 0 (csr) when p sets none. */
static gpgpu_format shaped_format(const gpgpu_format_params *p, const char **option)
{
    if (p->sell_c != 0 || p->sell_sigma != 0) {
        *option = p->sell_c != 0 ? "--sell-c" : "--sell-sigma";
        return GPGPU_FORMAT_SELL;
    }
    if (p->bsr_block != 0) {
        *option = "--bsr-block";
        return GPGPU_FORMAT_BSR;
    }
    if (p->ell_max_fill != 0) {
        *option = "--ell-max-fill";
        return GPGPU_FORMAT_ELL;
    }
    return 0;
}

void check_sparse_args(sparse_args *s)
{
    bool shape = s->spmv.threads_per_row != 0 || s->spmv.rows_per_group != 0;
    gpgpu_format format = s->matrix.format ? s->matrix.format : GPGPU_FORMAT_CSR;
    gpgpu_algo algo = s->spmv.algo;
    const char *option = NULL;
    gpgpu_format shaped = shaped_format(&s->matrix.params, &option);

    if (s->matrix.type == 0)
        s->matrix.type = GPGPU_TYPE_F32;
    /* Refused here, in the options' words, rather than by gpgpu_spmv once the matrix is on
     * the GPU. */
    if (format != GPGPU_FORMAT_CSR && (algo == GPGPU_ALGO_CLASSIC_SPMV ||
                                       algo == GPGPU_ALGO_SPMV_VECTOR ||
                                       algo == GPGPU_ALGO_SPMV_BALANCED))
        tool_usage_error("--algo %s works on CSR matrices, not --format %s (use --algo scalar, "
                         "the format's own kernel, or no --algo)",
                         tool_spmv_algo_name(algo), gpgpu_format_name(format));
    if (s->tune && format != GPGPU_FORMAT_CSR)
        tool_usage_error("--tune times the CSR vector kernel: it does not go with --format %s",
                         gpgpu_format_name(format));
    if (shaped != 0 && shaped != format)
        tool_usage_error("%s shapes --format %s, not --format %s", option,
                         gpgpu_format_name(shaped), gpgpu_format_name(format));
    if (s->tune && s->spmv.algo == GPGPU_ALGO_DEFAULT)
        s->spmv.algo = GPGPU_ALGO_SPMV_VECTOR;
    if (s->tune && s->spmv.algo != GPGPU_ALGO_SPMV_VECTOR)
        tool_usage_error("--tune times the vector kernel; it does not go with --algo %s",
                         tool_spmv_algo_name(s->spmv.algo));
    if (s->tune && shape)
        tool_usage_error("--tune chooses --threads-per-row and --rows-per-group: give one or "
                         "the other");
    /* Only the vector kernel has a shape: silently ignoring one would time
     * or test something other than what was asked. */
    if (shape && s->spmv.algo != GPGPU_ALGO_SPMV_VECTOR)
        tool_usage_error("--threads-per-row and --rows-per-group shape the vector kernel: "
                         "add --algo vector");
}

void parse_matrix_operand(const char *arg, const char **path)
{
    if (arg[0] == '-' && arg[1] != '\0')
        tool_usage_error("unknown option '%s'", arg);
    if (*path != NULL)
        tool_usage_error("more than one matrix file ('%s' and '%s')", *path, arg);
    *path = arg;
}

int read_matrix(const char *path, gpgpu_type type, gpgpu_csr *a, gpgpu_mtx_header *header)
{
    char msg[512] = "";
    gpgpu_status status;

    announce_reading(path);
    status = gpgpu_mtx_read_matrix_as(path, type, a, header, msg, sizeof(msg));
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot read the matrix", msg);
    return TOOL_EXIT_OK;
}

int read_vector_of_length(const char *path, gpgpu_type type, size_t expected, const char *what,
                          double **v)
{
    char msg[512] = "";
    size_t count;
    void *data;
    gpgpu_status status = gpgpu_mtx_read_vector(path, type, &data, &count, msg, sizeof(msg));

    *v = data;
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot read a vector", msg);
    /* Read as f32, each value was rounded once and is exact as a double. */
    if (type == GPGPU_TYPE_F32 && count > 0) {
        *v = malloc(count * sizeof(double));
        for (size_t k = 0; *v != NULL && k < count; k++)
            (*v)[k] = (double)((const float *)data)[k];
        free(data);
        if (*v == NULL)
            return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot read a vector",
                             "out of host memory");
    }
    if (count != expected) {
        snprintf(msg, sizeof(msg), "%s has %zu entries, but the matrix has %zu %s", path, count,
                 expected, what);
        free(*v);
        *v = NULL;
        return tool_fail(GPGPU_ERROR_INVALID_ARGUMENT, "vector length mismatch", msg);
    }
    return TOOL_EXIT_OK;
}

gpgpu_status upload_values(gpgpu_context *ctx, gpgpu_type type, const double *v, double fill,
                           size_t n, gpgpu_buffer **buf)
{
    size_t size = gpgpu_type_size(type);
    void *host = malloc((n > 0 ? n : 1) * size);
    gpgpu_status status;

    *buf = NULL;
    if (host == NULL)
        return GPGPU_ERROR_OUT_OF_MEMORY;
    for (size_t k = 0; k < n; k++) {
        double value = v != NULL ? v[k] : fill;

        if (type == GPGPU_TYPE_F32)
            ((float *)host)[k] = (float)value;
        else
            ((double *)host)[k] = value;
    }
    /* Buffers cannot be empty; a product with 0 rows still gets one. */
    status = gpgpu_buffer_create(ctx, (n > 0 ? n : 1) * size, buf);
    if (status == GPGPU_SUCCESS && n > 0)
        status = gpgpu_buffer_upload(*buf, 0, host, n * size);
    free(host);
    return status;
}

int download_values(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf, size_t n,
                    double **v)
{
    void *host;
    int rc = download_output(ctx, buf, n, gpgpu_type_size(type), &host);

    *v = NULL;
    if (rc != TOOL_EXIT_OK || n == 0)
        return rc;
    *v = malloc(n * sizeof(double));
    if (*v == NULL) {
        free(host);
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot download the result",
                         "out of host memory");
    }
    for (size_t k = 0; k < n; k++)
        (*v)[k] = type == GPGPU_TYPE_F32 ? (double)((const float *)host)[k]
                                         : ((const double *)host)[k];
    free(host);
    return TOOL_EXIT_OK;
}

int write_values(const char *path, const double *v, size_t n)
{
    char msg[512] = "";
    gpgpu_status status = gpgpu_mtx_write_vector(path, GPGPU_TYPE_F64, v, n, msg, sizeof(msg));

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot write the output", msg);
    return TOOL_EXIT_OK;
}

int create_matrix(gpgpu_context *ctx, const sparse_args *s, const gpgpu_csr *a,
                  gpgpu_matrix **m)
{
    gpgpu_status status;

    gpgpu_spmv_tuning tuned;

    tool_progress_step(long_step(a->nnz), "converting %zu nonzeros to %s and uploading...",
                       a->nnz,
                       gpgpu_format_name(s->matrix.format ? s->matrix.format : GPGPU_FORMAT_CSR));
    status = gpgpu_matrix_create(ctx, &s->matrix, a, m);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot upload the matrix", gpgpu_last_error(ctx));
    if (!s->tune)
        return TOOL_EXIT_OK;
    tool_progress_line("tuning the vector kernel on %zu nonzeros...", a->nnz);
    status = gpgpu_spmv_tune(ctx, *m, tool_progress_callback, NULL, &tuned);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot tune the vector kernel", gpgpu_last_error(ctx));
    /* What --tune asked for, whatever the progress lines showed. */
    if (!s->quiet)
        tool_message("spmv tune: chose %u invocations per row x %u rows per group: %.1f us "
                     "(the heuristic's shape: %.1f us)", tuned.threads_per_row,
                     tuned.rows_per_group, tuned.gpu_ns / 1e3, tuned.heuristic_ns / 1e3);
    return TOOL_EXIT_OK;
}

/* ------------------------------------------------ segment offsets: sort, segreduce */

int read_offsets(const char *path, size_t n, uint32_t **offsets, size_t *count)
{
    char msg[512] = "";
    char detail[600];
    gpgpu_status status =
        gpgpu_mtx_read_vector(path, GPGPU_TYPE_U32, (void **)offsets, count, msg, sizeof(msg));
    const uint32_t *o = *offsets;
    size_t c = *count;

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot read the segment offsets", msg);
    detail[0] = '\0';
    if (c == 0) {
        snprintf(detail, sizeof(detail),
                 "%s: no offsets; give S + 1 of them, 0 first and %zu (the number of values) last",
                 path, n);
    } else if (o[0] != 0) {
        snprintf(detail, sizeof(detail), "%s: the first offset is %" PRIu32 ", not 0", path,
                 o[0]);
    } else if (o[c - 1] != n) {
        snprintf(detail, sizeof(detail),
                 "%s: the last offset is %" PRIu32 ", not %zu (the number of values)", path,
                 o[c - 1], n);
    } else {
        for (size_t k = 1; k < c; k++) {
            if (o[k] < o[k - 1]) {
                snprintf(detail, sizeof(detail),
                         "%s: the offsets decrease: offset %zu is %" PRIu32
                         ", after %" PRIu32 " (they must be nondecreasing)",
                         path, k, o[k], o[k - 1]);
                break;
            }
        }
    }
    if (detail[0] != '\0') {
        free(*offsets);
        *offsets = NULL;
        return tool_fail(GPGPU_ERROR_PARSE, "bad segment offsets", detail);
    }
    return TOOL_EXIT_OK;
}
