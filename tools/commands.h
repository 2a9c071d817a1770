/* What the gpgpu commands share: one cmd_*.c file per command, the table of
 * commands and the vector input options (an input file or --random) that
 * reduce, scan and sort take, in commands.c; main in gpgpu.c. */
#ifndef GPGPU_TOOL_COMMANDS_H
#define GPGPU_TOOL_COMMANDS_H

#include "tool_common.h"

#include <gpgpu/io.h>

/* A command: its entry point (argv[0] is the command's name) and help text. */
typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    /* Parses argv as run does and stops there: no file read, no context; a
     * usage error exits through tool_usage_error. False when it printed the
     * help. For tests/fuzz/fuzz_cli_args.c, which calls nothing else. */
    bool (*parse)(int argc, char **argv);
    const char *help;
    const char *options_help; /* shared option lines after the help, or NULL */
    bool context_options;     /* it makes a context: --backend and the like */
    const char *help_hint;    /* what a usage error suggests */
    const char *summary;      /* its line in `gpgpu --help` */
} command;

int cmd_info(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_sort(int argc, char **argv);
int cmd_matinfo(int argc, char **argv);
int cmd_spmv(int argc, char **argv);
int cmd_cg(int argc, char **argv);
int cmd_spgemm(int argc, char **argv);
int cmd_gemm(int argc, char **argv);
int cmd_select(int argc, char **argv);
int cmd_gather(int argc, char **argv);
int cmd_histogram(int argc, char **argv);
int cmd_segreduce(int argc, char **argv);
int cmd_rle(int argc, char **argv);

bool cmd_info_parse(int argc, char **argv);
bool cmd_reduce_parse(int argc, char **argv);
bool cmd_scan_parse(int argc, char **argv);
bool cmd_sort_parse(int argc, char **argv);
bool cmd_matinfo_parse(int argc, char **argv);
bool cmd_spmv_parse(int argc, char **argv);
bool cmd_cg_parse(int argc, char **argv);
bool cmd_spgemm_parse(int argc, char **argv);
bool cmd_gemm_parse(int argc, char **argv);
bool cmd_select_parse(int argc, char **argv);
bool cmd_gather_parse(int argc, char **argv);
bool cmd_histogram_parse(int argc, char **argv);
bool cmd_segreduce_parse(int argc, char **argv);
bool cmd_rle_parse(int argc, char **argv);

/* Every command, in the order of the main help. */
extern const command gpgpu_commands[];
extern const size_t gpgpu_command_count;

extern const char info_help[];
extern const char reduce_help[];
extern const char scan_help[];
extern const char sort_help[];
extern const char matinfo_help[];
extern const char spmv_help[];
extern const char cg_help[];
extern const char spgemm_help[];
extern const char gemm_help[];
extern const char select_help[];
extern const char gather_help[];
extern const char histogram_help[];
extern const char segreduce_help[];
extern const char rle_help[];

/* Help lines of the vector input options. */
extern const char vector_options_help[];

/* Prints a command's help, the shared option lines (may be NULL), the
 * context options' when the command makes a context, --quiet's and the
 * common footer. */
void print_help_sections(const char *command_help, const char *options_help,
                         bool context_options);

/* print_help_sections for the commands that make a context, with the vector
 * input options when they take them. */
void print_help(const char *command_help, bool vector_input);

/* -h or --help. */
bool is_help(const char *arg);

/* The options reduce, scan and sort share. */
typedef struct vector_args {
    gpgpu_context_desc desc;
    gpgpu_type type; /* 0 until --type */
    gpgpu_algo algo;
    const char *path; /* the input file; NULL with --random */
    bool random;
    size_t random_count;
    uint64_t seed;
    bool quiet;
} vector_args;

/* Returns true when argv[*i] was one of the shared options; --algo, whose
 * names are each command's own, is the command's to parse. */
bool parse_vector_option(int argc, char **argv, int *i, vector_args *a);

/* An argument that no option took: the input file. */
void parse_vector_operand(const char *arg, vector_args *a);

/* Usage errors for a missing --type or input, or both a file and --random. */
void check_vector_args(const vector_args *a);

/* Whether a step on `count` values (or bytes) takes seconds: tool_progress_step's
 * long_step. */
bool long_step(size_t count);

/* Reads the input file (*data malloc'ed, NULL when empty); with --random
 * there is nothing to read, only a count. Runs before the context is made,
 * so that a bad file is reported without starting the GPU. */
int read_input(const vector_args *a, void **data, size_t *count);

/* Creates a buffer of at least one element and fills it with data or the
 * random values. */
int upload_input(gpgpu_context *ctx, const vector_args *a, const void *data, size_t count,
                 gpgpu_buffer **buf);

/* Reads or generates the input, makes the context and uploads; the
 * command's work then runs on *buf. */
int prepare(const vector_args *a, gpgpu_context **ctx, gpgpu_buffer **buf, size_t *count);

/* Downloads `count` elements of `size` bytes from buf into a malloc'ed
 * *host (NULL for count 0). */
int download_output(gpgpu_context *ctx, gpgpu_buffer *buf, size_t count, size_t size,
                    void **host);

/* Reads a one-column u32 file of segment offsets (sort --segments, segreduce) and checks them
 * against the number of values n: S + 1 of them, 0 first, n last, nondecreasing; anything
 * else prints why and gives TOOL_EXIT_USAGE. *offsets is malloc'ed (NULL on failure). */
int read_offsets(const char *path, size_t n, uint32_t **offsets, size_t *count);

/* Creates a buffer of at least one element of `size` bytes holding data[0..count). */
int upload_array(gpgpu_context *ctx, const void *data, size_t count, size_t size,
                 gpgpu_buffer **buf);

/* Downloads `count` elements of `type` from buf and writes them to path (with progress
 * lines where the size says it takes seconds). */
int write_output(gpgpu_context *ctx, gpgpu_buffer *buf, gpgpu_type type, size_t count,
                 const char *path);

/* ------------------------------------------------ sparse matrices: spmv, cg */

/* The options spmv and cg share: the matrix's type and format on the GPU and
 * how the products run. */
typedef struct sparse_args {
    gpgpu_context_desc desc;
    gpgpu_matrix_desc matrix; /* type 0 until --type (check_sparse_args: f32) */
    gpgpu_spmv_desc spmv;     /* algo and the vector kernel's shape */
    bool tune;
    bool quiet;
} sparse_args;

/* Help lines of the sparse options (FORMAT_OPTIONS_HELP included). */
extern const char sparse_options_help[];

/* Help lines of the format parameters, for string literals. */
#define FORMAT_OPTIONS_HELP                                                        \
    "  --sell-c C, --sell-sigma S, --bsr-block B, --ell-max-fill F\n"              \
    "                    format parameters (defaults 32, 32*C, 4, 8)\n"

/* Returns true when argv[*i] was a format parameter (--sell-c and the like). */
bool parse_format_option(int argc, char **argv, int *i, gpgpu_format_params *p);

/* Returns true when argv[*i] was one of the sparse options (context options
 * included). */
bool parse_sparse_option(int argc, char **argv, int *i, sparse_args *s);

/* Resolves the defaults (f32) and refuses combinations of options that mean
 * nothing (--tune or a kernel shape with an algorithm other than vector). */
void check_sparse_args(sparse_args *s);

/* A matrix operand: one, not an option. */
void parse_matrix_operand(const char *arg, const char **path);

/* Reads a MatrixMarket matrix whose values go to the GPU as `type` (f64 for
 * none: every value taken; f32 refuses those out of its range), a progress
 * line first for a big file; a complex or malformed file is a usage error
 * (exit 2) with the reader's message. */
int read_matrix(const char *path, gpgpu_type type, gpgpu_csr *a, gpgpu_mtx_header *header);

/* Reads a dense vector for the GPU's `type` into doubles (an f32 file value
 * out of f32's range is refused with its line) and checks that it has
 * `expected` entries: the message says both lengths, "the matrix has N
 * <what>". */
int read_vector_of_length(const char *path, gpgpu_type type, size_t expected, const char *what,
                          double **v);

/* Creates a buffer of `type` holding v[0..n), converted from f64 (rounded to
 * nearest for f32); with v NULL, every element is `fill`. Returns a status
 * (GPGPU_ERROR_OUT_OF_MEMORY for host memory) and prints nothing, so that it
 * joins a chain of library calls. */
gpgpu_status upload_values(gpgpu_context *ctx, gpgpu_type type, const double *v, double fill,
                           size_t n, gpgpu_buffer **buf);

/* Downloads n elements of `type` into a malloc'ed f64 array. */
int download_values(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf, size_t n,
                    double **v);

/* Writes v as a one-column MatrixMarket array (%.17g); "-" is stdout. */
int write_values(const char *path, const double *v, size_t n);

/* Uploads A in the format of s (a progress line for a big one) and, with
 * --tune, times the vector kernel's shapes (progress lines, and the choice
 * unless quiet). */
int create_matrix(gpgpu_context *ctx, const sparse_args *s, const gpgpu_csr *a,
                  gpgpu_matrix **m);

/* ---------------------- the arguments of spmv and cg, which gpgpu-mpi shares */

typedef struct spmv_args {
    sparse_args m;
    const char *matrix_path;
    const char *x_path;  /* NULL: all ones */
    const char *y0_path; /* NULL: no y0 */
    const char *out_path;
    double alpha, beta;
    const char *alpha_text, *beta_text; /* as given, for the range check of the type */
    bool beta_given;
    uint64_t repeat;
} spmv_args;

typedef struct cg_args {
    sparse_args m;
    const char *matrix_path; /* NULL with --laplace3d */
    uint32_t laplace_n;
    const char *b_path; /* NULL: b = A*ones */
    const char *out_path;
    double tol;         /* 0 until resolved by the type */
    uint64_t max_iter;  /* 0 until resolved by the size */
    uint64_t every;
    bool jacobi;
} cg_args;

/* Parse the arguments of `gpgpu spmv` and `gpgpu cg` (argv[0] the command) with every default
 * resolved that needs no file; usage errors exit. Return false when they printed the help. */
bool parse_spmv_args(int argc, char **argv, spmv_args *s);
bool parse_cg_args(int argc, char **argv, cg_args *c);

/* The matrix file of `gpgpu cg`, checked to be square and finite (a warning if it is not
 * symmetric); check_finite_vector refuses a NaN or infinity in b as cg does. On failure they
 * print why and return the exit code. */
int load_cg_matrix(const cg_args *c, gpgpu_csr *a);
int check_finite_vector(const char *path, const double *v, size_t n);

#endif /* GPGPU_TOOL_COMMANDS_H */
