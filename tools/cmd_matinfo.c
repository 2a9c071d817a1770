/* gpgpu matinfo: what a MatrixMarket matrix file holds and what each storage
 * format would take on the GPU. Host only: no context is made. */
#include "commands.h"

#include <gpgpu/io.h>

#include <string.h>

const char matinfo_help[] =
    "Usage: gpgpu matinfo [OPTIONS] A.mtx\n"
    "\n"
    "Reads a MatrixMarket matrix (coordinate or array; real, double, integer or\n"
    "pattern; general, symmetric, skew-symmetric, or hermitian, which with real\n"
    "values is symmetric; .mtx.gz too) and prints, one 'key: value' per line:\n"
    "its shape, nnz after symmetric expansion, what the file declared, the\n"
    "row-length statistics, and then a table of the bytes\n"
    "each format (csr, coo, csc, ell, sell, bsr) would take on the GPU with f32\n"
    "and with f64 values, with the entries it stores (padding included). ELL is\n"
    "'refused' when its padding passes the fill limit (8 x nnz by default),\n"
    "since gpgpu_matrix_create would refuse it. Needs no GPU.\n"
    "\n"
    FORMAT_OPTIONS_HELP;

/* The library's default fill limit (gpgpu_format_params.ell_max_fill, "default 8"):
 * gpgpu_format_bytes measures ELL past it, so the refusal is decided here. */
#define ELL_DEFAULT_MAX_FILL 8.0

static void print_header(const char *path, const gpgpu_csr *a, const gpgpu_mtx_header *h)
{
    printf("file: %s\n", path);
    printf("rows: %u\n", a->rows);
    printf("cols: %u\n", a->cols);
    printf("nnz: %zu\n", a->nnz);
    printf("file_entries: %zu\n", h->entries);
    printf("storage: %s\n", h->array ? "array" : "coordinate");
    printf("field: %s\n", h->field);
    printf("symmetry: %s\n", h->symmetry);
}

static int print_row_stats(const gpgpu_csr *a)
{
    gpgpu_row_stats st;
    gpgpu_status status = gpgpu_csr_row_stats(a, &st);

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot measure the rows", NULL);
    printf("row_length_min: %u\n", st.min);
    printf("row_length_max: %u\n", st.max);
    printf("row_length_mean: %.6g\n", st.mean);
    printf("row_length_stddev: %.6g\n", st.stddev);
    printf("empty_rows: %u\n", st.empty_rows);
    return TOOL_EXIT_OK;
}

/* One line of the table: stored entries, f32 bytes, f64 bytes, or why not. */
static void print_format(const gpgpu_csr *a, gpgpu_format format,
                         const gpgpu_format_params *params)
{
    size_t bytes[2], stored = 0;
    static const gpgpu_type types[2] = { GPGPU_TYPE_F32, GPGPU_TYPE_F64 };
    double max_fill = params->ell_max_fill != 0 ? params->ell_max_fill : ELL_DEFAULT_MAX_FILL;

    printf("%-6s", gpgpu_format_name(format));
    for (int t = 0; t < 2; t++) {
        gpgpu_status status = gpgpu_format_bytes(a, format, params, types[t], &bytes[t], &stored);

        if (status != GPGPU_SUCCESS) {
            printf("  refused: %s\n", gpgpu_status_string(status));
            return;
        }
    }
    if (format == GPGPU_FORMAT_ELL && (double)stored > max_fill * (double)a->nnz) {
        printf("  refused: every row padded to the longest gives %zu entries for %zu "
               "nonzeros, past the fill limit of %g x nnz (use sell or csr)\n",
               stored, a->nnz, max_fill);
        return;
    }
    printf("  %12zu  %14zu  %14zu\n", stored, bytes[0], bytes[1]);
}

typedef struct matinfo_args {
    gpgpu_format_params params;
    bool quiet;
    const char *path;
} matinfo_args;

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_matinfo_args(int argc, char **argv, matinfo_args *m)
{
    *m = (matinfo_args){ 0 };
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            print_help_sections(matinfo_help, NULL, false);
            return false;
        }
        if (strcmp(argv[i], "--quiet") == 0)
            m->quiet = true;
        else if (!parse_format_option(argc, argv, &i, &m->params))
            parse_matrix_operand(argv[i], &m->path);
    }
    if (m->path == NULL)
        tool_usage_error("a matrix file is required");
    return true;
}

bool cmd_matinfo_parse(int argc, char **argv)
{
    matinfo_args m;

    return parse_matinfo_args(argc, argv, &m);
}

int cmd_matinfo(int argc, char **argv)
{
    static const gpgpu_format formats[] = { GPGPU_FORMAT_CSR, GPGPU_FORMAT_COO,
                                            GPGPU_FORMAT_CSC, GPGPU_FORMAT_ELL,
                                            GPGPU_FORMAT_SELL, GPGPU_FORMAT_BSR };
    matinfo_args m;
    gpgpu_csr a = { 0 };
    gpgpu_mtx_header h;
    int rc;

    if (!parse_matinfo_args(argc, argv, &m))
        return TOOL_EXIT_OK;
    tool_progress_init(m.quiet);
    rc = read_matrix(m.path, GPGPU_TYPE_F64, &a, &h);
    if (rc == TOOL_EXIT_OK) {
        print_header(m.path, &a, &h);
        rc = print_row_stats(&a);
    }
    if (rc == TOOL_EXIT_OK) {
        printf("format        stored       f32_bytes       f64_bytes\n");
        for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++) {
            /* SELL and BSR are built to be measured: seconds for a large matrix. */
            tool_progress_line("measuring %s...", gpgpu_format_name(formats[k]));
            print_format(&a, formats[k], &m.params);
        }
    }
    gpgpu_csr_free(&a);
    return rc;
}
