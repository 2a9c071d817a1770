/* gpgpu spgemm: C = A*B on the GPU for MatrixMarket matrices (B a file, A
 * itself, or A's transpose made on the GPU), C written as a MatrixMarket
 * file. */
#include "commands.h"

#include <gpgpu/io.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char spgemm_help[] =
    "Usage: gpgpu spgemm A.mtx B.mtx -o C.mtx [--type f32|f64]\n"
    "                    [--algo fast|rows|esc|classic] [--backend gl|vulkan]\n"
    "\n"
    "Multiplies two sparse matrices on the GPU, C = A*B (gpgpu_spgemm), and writes\n"
    "C as a MatrixMarket coordinate real general file: 1-based, columns ascending\n"
    "within each row, values with %.17g, converted to double from the GPU's type\n"
    "(so f32 results print their exact value). C keeps every entry that some\n"
    "a_ik * b_kj reaches, even where the sum is 0 (as cuSPARSE does), unless\n"
    "--drop-zeros. A and B are any MatrixMarket files that gpgpu matinfo reads\n"
    "(complex ones are refused); their values are read as doubles and rounded\n"
    "once to TYPE on upload. A's columns must equal B's rows.\n"
    "\n"
    "  B.mtx             a file, or the word A (A*A: one matrix on the GPU serves\n"
    "                    both) or At (A*A^T: the transpose made on the GPU by\n"
    "                    gpgpu_matrix_transpose); a file named A or At: ./A\n"
    "  -o, --output C    where C goes (required); - is standard output. Plain\n"
    "                    text only: for a .gz, -o - | gzip >C.mtx.gz\n"
    "  --type TYPE       f32 (default, as for spmv: every GPU has it) or f64\n"
    "  --algo ALGO       fast (the default: the library's fast path, which is\n"
    "                    rows), rows (rows binned by their count of products,\n"
    "                    up to 2048 sorted in shared memory, longer ones through\n"
    "                    the global path), esc (every row expanded, sorted and\n"
    "                    compressed in global memory) or classic (Kiciak's 13\n"
    "                    stages; ignores --memory-budget)\n"
    "  --drop-zeros      leaves out the entries of C that come out exactly 0\n"
    "  --memory-budget BYTES\n"
    "                    GPU memory the product's temporaries and C may take\n"
    "                    (suffix K, M or G: times 2^10, 2^20, 2^30); the fast\n"
    "                    paths work through chunks of rows to stay below it;\n"
    "                    default: half the device's memory (1 GiB where the\n"
    "                    device does not say)\n"
    "  --stats           prints what the product did, one 'key: value' a line,\n"
    "                    on standard output (standard error with -o -):\n"
    "                    products (FLOP = 2 x products), entries of C, dropped\n"
    "                    zeros, row chunks and long rows of the global path,\n"
    "                    whether the short rows took one pass (one_phase: 1)\n"
    "                    or two, peak GPU bytes, the product's GPU and wall\n"
    "                    time (the wall time of this first product includes\n"
    "                    building the shaders) and GFLOP/s from each; timer:\n"
    "                    gpu, or wall where the GPU timer measures nothing (GL\n"
    "                    on llvmpipe): gflops then comes from the wall time\n";

typedef struct spgemm_args {
    gpgpu_context_desc desc;
    gpgpu_type type;
    gpgpu_spgemm_desc spgemm;
    const char *a_path;
    const char *b_path; /* a file, or the word A or At */
    const char *out_path;
    bool stats;
    bool quiet;
} spgemm_args;

/* What B is: a file, A itself, or A's transpose. */
typedef enum b_operand { B_FILE, B_A, B_AT } b_operand;

static b_operand b_kind(const spgemm_args *s)
{
    if (strcmp(s->b_path, "A") == 0)
        return B_A;
    return strcmp(s->b_path, "At") == 0 ? B_AT : B_FILE;
}

/* SpGEMM's algorithm names: fast is the library's choice among the fast ones. */
static const struct {
    const char *name;
    gpgpu_algo algo;
} spgemm_algos[] = {
    { "fast", GPGPU_ALGO_FAST },
    { "rows", GPGPU_ALGO_SPGEMM_ROWS },
    { "esc", GPGPU_ALGO_SPGEMM_ESC },
    { "classic", GPGPU_ALGO_CLASSIC_SPGEMM },
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static gpgpu_algo parse_spgemm_algo(const char *text)
{
    for (size_t k = 0; k < COUNT_OF(spgemm_algos); k++) {
        if (strcmp(spgemm_algos[k].name, text) == 0)
            return spgemm_algos[k].algo;
    }
    tool_usage_error("--algo: unknown value '%s' for spgemm (expected fast, rows, esc, classic)",
                     text);
}

/* BYTES with an optional suffix K, M or G (powers of 1024, either case). */
static size_t parse_bytes(const char *option, const char *text)
{
    static const char suffixes[] = "KMG";
    char *end;
    unsigned long long value;
    unsigned shift = 0;

    if (!isdigit((unsigned char)text[0]))
        tool_usage_error("%s: '%s' is not a byte count (digits, then K, M or G)", option, text);
    errno = 0;
    value = strtoull(text, &end, 10);
    if (*end != '\0') {
        const char *p = strchr(suffixes, toupper((unsigned char)*end));
        if (p == NULL || end[1] != '\0')
            tool_usage_error("%s: '%s' is not a byte count (digits, then K, M or G)", option,
                             text);
        shift = 10 * (unsigned)(p - suffixes + 1);
    }
    if (errno == ERANGE || value == 0 || value > (SIZE_MAX >> shift))
        tool_usage_error("%s: %s is out of range (1 byte up to %zu)", option, text, SIZE_MAX);
    return (size_t)value << shift;
}

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_spgemm_args(int argc, char **argv, spgemm_args *s)
{
    *s = (spgemm_args){ 0 };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help_sections(spgemm_help, NULL, true);
            return false;
        }
        if (tool_context_option(argc, argv, &i, &s->desc))
            continue;
        if ((value = tool_output_option(argc, argv, &i)) != NULL)
            s->out_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--type")) != NULL) {
            s->type = tool_parse_float_type(value, "matrix values");
        } else if ((value = tool_option_value(argc, argv, &i, "--algo")) != NULL)
            s->spgemm.algo = parse_spgemm_algo(value);
        else if ((value = tool_option_value(argc, argv, &i, "--memory-budget")) != NULL)
            s->spgemm.memory_budget = parse_bytes("--memory-budget", value);
        else if (strcmp(argv[i], "--drop-zeros") == 0)
            s->spgemm.drop_zeros = true;
        else if (strcmp(argv[i], "--stats") == 0)
            s->stats = true;
        else if (strcmp(argv[i], "--quiet") == 0)
            s->quiet = true;
        else
            tool_matrix_operand(argv[i], &s->a_path, &s->b_path);
    }
    if (s->a_path == NULL || s->b_path == NULL)
        tool_usage_error("two matrices are required: A.mtx and B.mtx (or the word A or At)");
    if (s->out_path == NULL)
        tool_usage_error("-o C.mtx is required (- for standard output)");
    /* The writer makes plain text: a .gz name would hold text that only
     * zlib's transparent reading takes for a gzip file. */
    size_t len = strlen(s->out_path);
    if (len > 3 && strcmp(s->out_path + len - 3, ".gz") == 0)
        tool_usage_error("-o %s: C is written as plain text; use -o - | gzip >%s",
                         s->out_path, s->out_path);
    if (s->type == 0)
        s->type = GPGPU_TYPE_F32;
    if (s->spgemm.memory_budget != 0 && s->spgemm.algo == GPGPU_ALGO_CLASSIC_SPGEMM)
        tool_usage_error("--memory-budget bounds the fast algorithms' chunks: --algo classic "
                         "takes none");
    return true;
}

bool cmd_spgemm_parse(int argc, char **argv)
{
    spgemm_args s;

    return parse_spgemm_args(argc, argv, &s);
}

/* A's columns must meet B's rows: checked on the host, before the GPU starts. */
static int check_shapes(const spgemm_args *s, const gpgpu_csr *a, const gpgpu_csr *b)
{
    char msg[1024];

    if (b_kind(s) == B_AT)
        return TOOL_EXIT_OK;
    if (b_kind(s) == B_A && a->rows != a->cols)
        snprintf(msg, sizeof(msg), "A (%s) is %u x %u and B is A: A*A needs a square A "
                 "(At gives A*A^T)", s->a_path, a->rows, a->cols);
    else if (b_kind(s) == B_FILE && a->cols != b->rows)
        snprintf(msg, sizeof(msg), "A (%s) is %u x %u and B (%s) is %u x %u: A's %u columns "
                 "must equal B's %u rows", s->a_path, a->rows, a->cols, s->b_path, b->rows,
                 b->cols, a->cols, b->rows);
    else
        return TOOL_EXIT_OK;
    return tool_fail(GPGPU_ERROR_INVALID_ARGUMENT, "dimension mismatch", msg);
}

/* The intermediate products a_ik * b_kj: the sum over A's entries of the
 * length of the row of B they meet (for B = A^T, of A's column). 0 when the
 * host is out of memory for A^T's column counts (it only picks a message). */
static uint64_t count_products(const spgemm_args *s, const gpgpu_csr *a, const gpgpu_csr *b)
{
    const gpgpu_csr *rows_of = b_kind(s) == B_FILE ? b : a;
    uint32_t *lengths = NULL;
    uint64_t products = 0;

    if (b_kind(s) == B_AT) {
        lengths = calloc((size_t)a->cols + 1, sizeof(uint32_t));
        if (lengths == NULL)
            return 0;
        for (size_t e = 0; e < a->nnz; e++)
            lengths[a->col_idx[e]]++;
    }
    for (size_t e = 0; e < a->nnz; e++) {
        uint32_t k = a->col_idx[e];
        products += lengths != NULL ? lengths[k] : rows_of->row_ptr[k + 1] - rows_of->row_ptr[k];
    }
    free(lengths);
    return products;
}

/* What the product took, for --stats. */
typedef struct spgemm_timing {
    double gpu_ns, wall_ns;
} spgemm_timing;

/* The product alone between a timer begin and end (A and B are on the GPU
 * already). The timer is ended even after a failed product, so that none
 * stays open; the product's failure is the one reported. */
static int multiply(gpgpu_context *ctx, const spgemm_args *s, const gpgpu_matrix *a,
                    const gpgpu_matrix *b, uint64_t products, gpgpu_matrix **c,
                    gpgpu_spgemm_stats *stats, spgemm_timing *t)
{
    gpgpu_spgemm_desc desc = s->spgemm;
    gpgpu_status status, end;

    desc.progress = s->quiet ? NULL : tool_progress_callback;
    tool_progress_step(products > TOOL_PROGRESS_THRESHOLD, "multiplying: %llu products...",
                       (unsigned long long)products);
    t->wall_ns = tool_now_ns();
    status = gpgpu_timer_begin(ctx);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot start the timer", gpgpu_last_error(ctx));
    status = gpgpu_spgemm(ctx, &desc, a, b, c, stats);
    end = gpgpu_timer_end(ctx, &t->gpu_ns);
    t->wall_ns = tool_now_ns() - t->wall_ns;
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "spgemm", gpgpu_last_error(ctx));
    if (end != GPGPU_SUCCESS)
        return tool_fail(end, "cannot read the timer", gpgpu_last_error(ctx));
    return TOOL_EXIT_OK;
}

/* B on the GPU: its own matrix, A itself, or A^T made there (*owned: to
 * destroy); b_host is B's file, or A for the words A and At. */
static int make_b(gpgpu_context *ctx, const spgemm_args *s, const sparse_args *m,
                  const gpgpu_csr *b_host, gpgpu_matrix *a, gpgpu_matrix **b, gpgpu_matrix **owned)
{
    gpgpu_status status;

    *owned = NULL;
    switch (b_kind(s)) {
    case B_A:
        *b = a;
        return TOOL_EXIT_OK;
    case B_FILE: {
        int rc = create_matrix(ctx, m, b_host, owned);
        *b = *owned;
        return rc;
    }
    case B_AT:
    default:
        tool_progress_step(long_step(b_host->nnz), "transposing A (%zu nonzeros) on the GPU...",
                           b_host->nnz);
        status = gpgpu_matrix_transpose(ctx, a, owned);
        *b = *owned;
        return status == GPGPU_SUCCESS
                   ? TOOL_EXIT_OK
                   : tool_fail(status, "cannot transpose A", gpgpu_last_error(ctx));
    }
}

/* C back to the host and into the file (progress lines for a big one). */
static int save(gpgpu_context *ctx, const spgemm_args *s, const gpgpu_matrix *c)
{
    gpgpu_csr host = { 0 };
    gpgpu_matrix_info info = { 0 };
    char msg[512] = "";
    gpgpu_status status = gpgpu_matrix_get_info(c, &info);
    if (status == GPGPU_SUCCESS)
        tool_progress_step(long_step(info.nnz), "downloading C (%zu entries)...", info.nnz);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_matrix_download(c, &host);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot download C", gpgpu_last_error(ctx));
    tool_progress_step(long_step(info.nnz), "writing %s...", s->out_path);
    status = gpgpu_mtx_write_matrix(s->out_path, &host, msg, sizeof(msg));
    gpgpu_csr_free(&host);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot write C", msg);
    return TOOL_EXIT_OK;
}

static void print_stats(const spgemm_args *s, const gpgpu_spgemm_stats *st,
                        const spgemm_timing *t)
{
    FILE *out = strcmp(s->out_path, "-") == 0 ? stderr : stdout;
    double flops = 2.0 * (double)st->products;
    bool missed = tool_timer_missed(t->gpu_ns, t->wall_ns, 1);
    double rate_ns = tool_rate_ns(t->gpu_ns, t->wall_ns, 1);

    fprintf(out, "products: %llu\n", (unsigned long long)st->products);
    fprintf(out, "flops: %.0f\n", flops);
    fprintf(out, "nnz: %zu\n", st->nnz);
    fprintf(out, "dropped: %zu\n", st->dropped);
    fprintf(out, "chunks: %u\n", st->chunks);
    fprintf(out, "long_rows: %u\n", st->long_rows);
    fprintf(out, "one_phase: %u\n", st->one_phase);
    fprintf(out, "peak_bytes: %zu (%.1f MiB)\n", st->peak_bytes,
            (double)st->peak_bytes / (1 << 20));
    fprintf(out, "gpu_us: %.1f\n", t->gpu_ns / 1e3);
    fprintf(out, "wall_us: %.1f\n", t->wall_ns / 1e3);
    fprintf(out, "timer: %s\n", missed ? "wall" : "gpu");
    if (missed)
        tool_note("%s", tool_timer_missed_note);
    /* Flops per nanosecond are GFLOP/s. */
    fprintf(out, "gflops: %.4g\n", rate_ns > 0 ? flops / rate_ns : 0.0);
    fprintf(out, "gflops_wall: %.4g\n", t->wall_ns > 0 ? flops / t->wall_ns : 0.0);
}

/* A (and B) to the GPU, the product, C back and out. */
static int run_spgemm(const spgemm_args *s, const gpgpu_csr *a_host, const gpgpu_csr *b_host,
                      uint64_t products)
{
    sparse_args m = { .matrix = { .type = s->type }, .quiet = s->quiet };
    gpgpu_context *ctx = NULL;
    gpgpu_matrix *a = NULL, *b = NULL, *b_owned = NULL, *c = NULL;
    gpgpu_spgemm_stats stats = { 0 };
    spgemm_timing t = { 0 };
    int rc = tool_context_create(&s->desc, &ctx);

    if (rc == TOOL_EXIT_OK)
        rc = create_matrix(ctx, &m, a_host, &a);
    if (rc == TOOL_EXIT_OK)
        rc = make_b(ctx, s, &m, b_kind(s) == B_FILE ? b_host : a_host, a, &b, &b_owned);
    if (rc == TOOL_EXIT_OK)
        rc = multiply(ctx, s, a, b, products, &c, &stats, &t);
    if (rc == TOOL_EXIT_OK)
        rc = save(ctx, s, c);
    if (rc == TOOL_EXIT_OK && s->stats)
        print_stats(s, &stats, &t);
    gpgpu_matrix_destroy(c);
    gpgpu_matrix_destroy(b_owned);
    gpgpu_matrix_destroy(a);
    tool_context_destroy(ctx);
    return rc;
}

int cmd_spgemm(int argc, char **argv)
{
    spgemm_args s;
    gpgpu_csr a = { 0 }, b = { 0 };
    int rc;

    if (!parse_spgemm_args(argc, argv, &s))
        return TOOL_EXIT_OK;
    tool_progress_init(s.quiet);
    /* Every file is read and the shapes checked before the GPU starts. */
    rc = read_matrix(s.a_path, s.type, &a, NULL);
    if (rc == TOOL_EXIT_OK && b_kind(&s) == B_FILE)
        rc = read_matrix(s.b_path, s.type, &b, NULL);
    if (rc == TOOL_EXIT_OK)
        rc = check_shapes(&s, &a, &b);
    if (rc == TOOL_EXIT_OK)
        rc = run_spgemm(&s, &a, &b, count_products(&s, &a, &b));
    gpgpu_csr_free(&b);
    gpgpu_csr_free(&a);
    return rc;
}
