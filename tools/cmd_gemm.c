/* gpgpu gemm: a dense product C = op(A) * op(B) on the GPU, of MatrixMarket
 * files (C written as an array file) or of generated matrices (timed, with
 * GFLOP/s and the lab report's CGMA). */
#include "commands.h"

#include <gpgpu/io.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char gemm_help[] =
    "Usage: gpgpu gemm A.mtx B.mtx -o C.mtx [--type f32|f64]\n"
    "                  [--method 1|2|6|fast|coopmat] [--backend gl|vulkan]\n"
    "       gpgpu gemm --m M --n N --k K [--type f32|f64]\n"
    "                  [--method 1|2|6|fast|coopmat] [--backend gl|vulkan]\n"
    "\n"
    "Multiplies two dense matrices on the GPU, C = alpha * op(A) * op(B)\n"
    "(gpgpu_gemm). With files, A and B are MatrixMarket files (array files, which\n"
    "are column-major as the format defines; coordinate files are read as dense\n"
    "matrices with zeros where no entry is given), their values rounded once to\n"
    "TYPE, and C is written as an array real general file with %.17g values.\n"
    "op(A)'s columns must equal op(B)'s rows. With --m --n --k, A (M x K) and B\n"
    "(K x N) are random (values of magnitude 0.5 to 1.5, seeded), the product is\n"
    "timed after one untimed run, and one 'key: value' a line is printed: the\n"
    "sizes, the method and its block, the GPU time per product (median of the\n"
    "repeats), GFLOP/s (2 M N K flops; from the wall time, with timer: wall,\n"
    "where the GPU timer measures nothing, as GL on llvmpipe) and CGMA, the lab\n"
    "report's flops per global memory access of the method.\n"
    "\n"
    "  -o, --output C    where C goes (required with files); - is standard output\n"
    "  --type TYPE       f32 (default) or f64\n"
    "  --method METHOD   fast (the default: register tiles over shared-memory\n"
    "                    slices, its block tuned or estimated per device), the\n"
    "                    CUDA lab report's 1 (one work-group, global memory), 2\n"
    "                    (one output per invocation, global memory) or 6 (shared-\n"
    "                    memory slices loaded ahead, 2 or 4 outputs per invocation),\n"
    "                    or coopmat (f32 only: the products of A and B rounded to\n"
    "                    f16, summed in f32 on the matrix units, where gpgpu info\n"
    "                    says has_coopmat_f16: yes; --check then allows the f16\n"
    "                    rounding of the inputs)\n"
    "  --tile T          methods 1, 2, 6: the work-group's side, 8, 16 (default) or 32\n"
    "  --outputs O       method 6: 2 or 4 (default) outputs per invocation\n"
    "  --transpose-a     op(A) = A^T (A is stored K x M)\n"
    "  --transpose-b     op(B) = B^T (B is stored N x K)\n"
    "  --alpha A         scales the product (default 1)\n"
    "  --tune            times the fast method's block shapes on this size first\n"
    "                    (gpgpu_gemm_tune; progress on stderr) and keeps the best in\n"
    "                    the tuning cache ($GPGPU_TUNE_CACHE)\n"
    "  --m M, --n N, --k K\n"
    "                    generated input of these sizes instead of files\n"
    "  --seed S          generated input: the random sequence (default 1)\n"
    "  --repeat R        generated input: timed products (default 5)\n"
    "  --check           generated input: compares up to 64 rows of C with a CPU\n"
    "                    product in long double, within the error bound of K\n"
    "                    products (exit 1 when one is off)\n";

typedef struct gemm_args {
    gpgpu_context_desc desc;
    gpgpu_gemm_desc gemm;
    const char *a_path, *b_path, *out_path;
    size_t m, n, k;     /* generated input when m > 0 */
    double alpha;
    const char *alpha_text; /* as given, for the range check of the type */
    uint64_t seed;
    unsigned repeat;
    bool tune, check, quiet;
} gemm_args;

static size_t parse_size(const char *option, const char *value)
{
    return (size_t)tool_parse_uint(option, value, 1, 0x7fffffff);
}

/* The option loop; returns false on --help. */
static bool parse_options(int argc, char **argv, gemm_args *s)
{
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help_sections(gemm_help, NULL, true);
            return false;
        }
        if (tool_context_option(argc, argv, &i, &s->desc))
            continue;
        if ((value = tool_output_option(argc, argv, &i)) != NULL)
            s->out_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--type")) != NULL) {
            s->gemm.type = tool_parse_float_type(value, "dense products");
        } else if ((value = tool_option_value(argc, argv, &i, "--method")) != NULL)
            s->gemm.algo = tool_parse_gemm_method(value);
        else if ((value = tool_option_value(argc, argv, &i, "--tile")) != NULL) {
            s->gemm.tile = (unsigned)tool_parse_uint("--tile", value, 8, 32);
            if (s->gemm.tile != 8 && s->gemm.tile != 16 && s->gemm.tile != 32)
                tool_usage_error("--tile: 8, 16 or 32, not %s", value);
        } else if ((value = tool_option_value(argc, argv, &i, "--outputs")) != NULL) {
            s->gemm.outputs = (unsigned)tool_parse_uint("--outputs", value, 2, 4);
            if (s->gemm.outputs == 3)
                tool_usage_error("--outputs: 2 or 4, not 3");
        } else if ((value = tool_option_value(argc, argv, &i, "--alpha")) != NULL) {
            s->alpha = tool_parse_double("--alpha", value);
            s->alpha_text = value;
        } else if ((value = tool_option_value(argc, argv, &i, "--m")) != NULL)
            s->m = parse_size("--m", value);
        else if ((value = tool_option_value(argc, argv, &i, "--n")) != NULL)
            s->n = parse_size("--n", value);
        else if ((value = tool_option_value(argc, argv, &i, "--k")) != NULL)
            s->k = parse_size("--k", value);
        else if ((value = tool_option_value(argc, argv, &i, "--seed")) != NULL)
            s->seed = tool_parse_uint("--seed", value, 0, UINT64_MAX);
        else if ((value = tool_option_value(argc, argv, &i, "--repeat")) != NULL)
            s->repeat = (unsigned)tool_parse_uint("--repeat", value, 1, 100000);
        else if (strcmp(argv[i], "--transpose-a") == 0)
            s->gemm.transpose_a = true;
        else if (strcmp(argv[i], "--transpose-b") == 0)
            s->gemm.transpose_b = true;
        else if (strcmp(argv[i], "--tune") == 0)
            s->tune = true;
        else if (strcmp(argv[i], "--check") == 0)
            s->check = true;
        else if (strcmp(argv[i], "--quiet") == 0)
            s->quiet = true;
        else
            tool_matrix_operand(argv[i], &s->a_path, &s->b_path);
    }
    return true;
}

/* Options the method does not read are refused: silently ignoring one would time or
 * test something other than what was asked. */
static void check_method_options(const gemm_args *s)
{
    gpgpu_algo algo = s->gemm.algo;
    bool lab = algo == GPGPU_ALGO_GEMM_METHOD1 || algo == GPGPU_ALGO_GEMM_METHOD2 ||
               algo == GPGPU_ALGO_GEMM_METHOD6;

    if (s->gemm.tile != 0 && !lab)
        tool_usage_error("--tile is the work-group side of methods 1, 2 and 6, not of "
                         "--method %s", tool_gemm_method_name(algo));
    if (s->gemm.outputs != 0 && algo != GPGPU_ALGO_GEMM_METHOD6)
        tool_usage_error("--outputs is method 6's, not --method %s's",
                         tool_gemm_method_name(algo));
    if (algo == GPGPU_ALGO_GEMM_COOPMAT_F16 && s->gemm.type != GPGPU_TYPE_F32)
        tool_usage_error("--method coopmat multiplies f32 matrices (rounded to f16), not %s",
                         gpgpu_type_name(s->gemm.type));
    if (s->tune && algo != GPGPU_ALGO_DEFAULT && algo != GPGPU_ALGO_GEMM_TILED)
        tool_usage_error("--tune times the fast method's blocks: it does not go with "
                         "--method %s", tool_gemm_method_name(algo));
}

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_gemm_args(int argc, char **argv, gemm_args *s)
{
    *s = (gemm_args){ .alpha = 1.0, .seed = 1, .repeat = 5 };
    if (!parse_options(argc, argv, s))
        return false;
    bool generated = s->m || s->n || s->k;
    if (generated && (!s->m || !s->n || !s->k))
        tool_usage_error("generated input needs all of --m, --n and --k");
    if (generated && (s->a_path || s->out_path))
        tool_usage_error("--m/--n/--k make the input: no matrix files or -o with them");
    if (!generated && (s->a_path == NULL || s->b_path == NULL))
        tool_usage_error("two matrices are required (A.mtx B.mtx), or --m M --n N --k K");
    if (!generated && s->out_path == NULL)
        tool_usage_error("-o C.mtx is required (- for standard output)");
    /* The writer makes plain text, which a .gz name would misname. */
    size_t len = s->out_path ? strlen(s->out_path) : 0;
    if (len > 3 && strcmp(s->out_path + len - 3, ".gz") == 0)
        tool_usage_error("-o %s: C is written as plain text; use -o - | gzip >%s", s->out_path,
                         s->out_path);
    if (!generated && s->check)
        tool_usage_error("--check is for generated input (--m --n --k)");
    if (s->gemm.type == 0)
        s->gemm.type = GPGPU_TYPE_F32;
    check_method_options(s);
    if (s->alpha_text != NULL)
        tool_check_value_range("--alpha", s->alpha_text, s->gemm.type);
    return true;
}

bool cmd_gemm_parse(int argc, char **argv)
{
    gemm_args s;

    return parse_gemm_args(argc, argv, &s);
}

/* ------------------------------------------------------------------ files */

/* A file's matrix as row-major doubles (zeros where a coordinate file has no entry), its
 * values within the range of `type`. */
static int read_dense(const char *path, gpgpu_type type, uint32_t *rows, uint32_t *cols,
                      double **out)
{
    gpgpu_csr a = { 0 };
    char msg[1024];
    int rc = read_matrix(path, type, &a, NULL);

    if (rc != TOOL_EXIT_OK)
        return rc;
    *rows = a.rows;
    *cols = a.cols;
    /* A coordinate file's few entries can stand for a dense matrix of any size. */
    if ((size_t)a.rows * a.cols > GPGPU_SPARSE_MAX_INDEX) {
        snprintf(msg, sizeof(msg), "%s is %u x %u: as a dense matrix, %zu entries, more than "
                 "the 2^31 - 1 the shaders index", path, a.rows, a.cols, (size_t)a.rows * a.cols);
        gpgpu_csr_free(&a);
        return tool_fail(GPGPU_ERROR_TOO_LARGE, "too large", msg);
    }
    *out = calloc((size_t)a.rows * a.cols + 1, sizeof(double));
    if (*out == NULL) {
        gpgpu_csr_free(&a);
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, path, "no host memory for the dense matrix");
    }
    for (uint32_t i = 0; i < a.rows; i++)
        for (uint32_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; e++)
            (*out)[(size_t)i * a.cols + a.col_idx[e]] = a.values[e];
    gpgpu_csr_free(&a);
    return TOOL_EXIT_OK;
}

/* A buffer holding count doubles rounded to type. */
static int upload(gpgpu_context *ctx, gpgpu_type type, const double *values, size_t count,
                  gpgpu_buffer **buf)
{
    size_t size = gpgpu_type_size(type);
    void *data = malloc(count * size + 1);
    gpgpu_status status;

    if (data == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "upload", "no host memory");
    for (size_t i = 0; i < count; i++) {
        if (type == GPGPU_TYPE_F32)
            ((float *)data)[i] = (float)values[i];
        else
            ((double *)data)[i] = values[i];
    }
    status = gpgpu_buffer_create(ctx, count * size + size, buf);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_upload(*buf, 0, data, count * size);
    free(data);
    return status == GPGPU_SUCCESS ? TOOL_EXIT_OK
                                   : tool_fail(status, "upload", gpgpu_last_error(ctx));
}

/* C back from the GPU as doubles. */
static int download(gpgpu_context *ctx, gpgpu_type type, gpgpu_buffer *buf, size_t count,
                    double *out)
{
    size_t size = gpgpu_type_size(type);
    void *data = malloc(count * size + 1);
    gpgpu_status status;

    if (data == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "download", "no host memory");
    status = gpgpu_buffer_download(buf, 0, data, count * size);
    for (size_t i = 0; status == GPGPU_SUCCESS && i < count; i++)
        out[i] = type == GPGPU_TYPE_F32 ? (double)((float *)data)[i] : ((double *)data)[i];
    free(data);
    return status == GPGPU_SUCCESS ? TOOL_EXIT_OK
                                   : tool_fail(status, "download", gpgpu_last_error(ctx));
}

typedef struct dense {
    uint32_t rows, cols;
    double *values;
} dense;

/* op(A)'s columns must meet op(B)'s rows: checked on the host, before the GPU starts. */
static int check_shapes(const gemm_args *s, const dense *a, const dense *b, size_t *m,
                        size_t *n, size_t *k)
{
    size_t ak = s->gemm.transpose_a ? a->rows : a->cols, bk = s->gemm.transpose_b ? b->cols : b->rows;
    char msg[1024];

    *m = s->gemm.transpose_a ? a->cols : a->rows;
    *n = s->gemm.transpose_b ? b->rows : b->cols;
    *k = ak;
    if (ak == bk && *m * *n > GPGPU_SPARSE_MAX_INDEX) {
        snprintf(msg, sizeof(msg), "C is %zu x %zu: %zu entries, more than the 2^31 - 1 the "
                 "shaders index", *m, *n, *m * *n);
        return tool_fail(GPGPU_ERROR_TOO_LARGE, "too large", msg);
    }
    if (ak == bk)
        return TOOL_EXIT_OK;
    snprintf(msg, sizeof(msg), "op(A) (%s%s, %u x %u) has %zu columns and op(B) (%s%s, %u x %u) "
             "has %zu rows: they must be equal", s->a_path, s->gemm.transpose_a ? " transposed" : "",
             a->rows, a->cols, ak, s->b_path, s->gemm.transpose_b ? " transposed" : "", b->rows,
             b->cols, bk);
    return tool_fail(GPGPU_ERROR_INVALID_ARGUMENT, "dimension mismatch", msg);
}

/* A product that takes seconds (2^30 flops: a fraction of a second on a GPU, seconds on a
 * CPU driver): announced before it starts, since no line can come during it. */
static bool long_product(size_t m, size_t n, size_t k)
{
    return 2.0 * (double)m * (double)n * (double)k > (double)TOOL_PROGRESS_THRESHOLD * 64;
}

/* --tune: the candidates' lines as progress, the choice unless --quiet. */
static int tune(gpgpu_context *ctx, const gemm_args *s, size_t m, size_t n, size_t k)
{
    gpgpu_gemm_tuning best;
    gpgpu_status status = gpgpu_gemm_tune(ctx, s->gemm.type, m, n, k, tool_progress_callback,
                                          NULL, &best);

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "tune", gpgpu_last_error(ctx));
    if (!s->quiet)
        tool_message("gemm tune: chose the block %ux%ux%u (%u rows an invocation, %u "
                     "invocations): %.1f us", best.block_m, best.block_n, best.block_k,
                     best.thread_m, best.invocations, best.gpu_ns / 1e3);
    return TOOL_EXIT_OK;
}

/* A, B and C as the device takes them, before any is allocated. */
static int check_fit(gpgpu_context *ctx, gpgpu_type type, size_t a, size_t b, size_t c)
{
    size_t size = gpgpu_type_size(type);
    tool_fit fit;
    int rc = tool_fit_begin(ctx, &fit);

    if (rc == TOOL_EXIT_OK)
        rc = tool_fit_array(&fit, "A", a, size);
    if (rc == TOOL_EXIT_OK)
        rc = tool_fit_array(&fit, "B", b, size);
    if (rc == TOOL_EXIT_OK)
        rc = tool_fit_array(&fit, "C", c, size);
    return rc == TOOL_EXIT_OK ? tool_fit_end(&fit) : rc;
}

static int multiply_files(gpgpu_context *ctx, const gemm_args *s, const dense *a, const dense *b,
                          size_t m, size_t n, size_t k)
{
    gpgpu_buffer *ga = NULL, *gb = NULL, *gc = NULL;
    double *c = NULL;
    gpgpu_type type = s->gemm.type;
    int rc = check_fit(ctx, type, (size_t)a->rows * a->cols, (size_t)b->rows * b->cols, m * n);

    if (rc == TOOL_EXIT_OK)
        rc = upload(ctx, type, a->values, (size_t)a->rows * a->cols, &ga);

    if (rc == TOOL_EXIT_OK)
        rc = upload(ctx, type, b->values, (size_t)b->rows * b->cols, &gb);
    if (rc == TOOL_EXIT_OK && (c = calloc(m * n + 1, sizeof(double))) == NULL)
        rc = tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "C", "no host memory");
    if (rc == TOOL_EXIT_OK)
        rc = upload(ctx, type, c, m * n, &gc);
    if (rc == TOOL_EXIT_OK && s->tune && m && n && k)
        rc = tune(ctx, s, m, n, k);
    if (rc == TOOL_EXIT_OK) {
        tool_progress_step(long_product(m, n, k), "multiplying: %zu x %zu x %zu...", m, n, k);
        gpgpu_status status = gpgpu_gemm(ctx, &s->gemm, m, n, k, s->alpha, ga, 0, gb, 0, 0.0, gc, 0);
        if (status != GPGPU_SUCCESS)
            rc = tool_fail(status, "gemm", gpgpu_last_error(ctx));
    }
    if (rc == TOOL_EXIT_OK)
        rc = download(ctx, type, gc, m * n, c);
    if (rc == TOOL_EXIT_OK) {
        char msg[1024];
        gpgpu_status status = gpgpu_mtx_write_dense(s->out_path, (uint32_t)m, (uint32_t)n, c, n,
                                                    msg, sizeof(msg));
        if (status != GPGPU_SUCCESS)
            rc = tool_fail(status, "cannot write C", msg);
    }
    free(c);
    gpgpu_buffer_destroy(ga);
    gpgpu_buffer_destroy(gb);
    gpgpu_buffer_destroy(gc);
    return rc;
}

/* -------------------------------------------------------------- generated */

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The product `repeat` times, each timed alone; returns the median GPU time. */
static int time_products(gpgpu_context *ctx, const gemm_args *s, gpgpu_buffer *ga,
                         gpgpu_buffer *gb, gpgpu_buffer *gc, double *median_ns, double *wall_ns)
{
    double *ns = calloc(s->repeat, sizeof(double));
    gpgpu_status status = ns ? GPGPU_SUCCESS : GPGPU_ERROR_OUT_OF_MEMORY;

    tool_progress_step(long_product(s->m, s->n, s->k), "timing %zu x %zu x %zu products...",
                       s->m, s->n, s->k);
    /* Untimed runs first: the first builds the program, the rest bring the GPU up to speed. */
    for (double start = tool_now_ns();
         status == GPGPU_SUCCESS && tool_now_ns() - start < TOOL_WARM_UP_MS * 1e6;) {
        tool_progress_line("warming up the GPU...");
        status = gpgpu_gemm(ctx, &s->gemm, s->m, s->n, s->k, s->alpha, ga, 0, gb, 0, 0.0, gc, 0);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_finish(ctx);
    }
    *wall_ns = tool_now_ns();
    for (unsigned r = 0; r < s->repeat && status == GPGPU_SUCCESS; r++) {
        tool_progress_line("timing: product %u of %u", r + 1, s->repeat);
        status = gpgpu_timer_begin(ctx);
        if (status != GPGPU_SUCCESS)
            break;
        status = gpgpu_gemm(ctx, &s->gemm, s->m, s->n, s->k, s->alpha, ga, 0, gb, 0, 0.0, gc, 0);
        gpgpu_status end = gpgpu_timer_end(ctx, &ns[r]);
        status = status != GPGPU_SUCCESS ? status : end;
    }
    *wall_ns = (tool_now_ns() - *wall_ns) / s->repeat;
    if (status != GPGPU_SUCCESS) {
        free(ns);
        return tool_fail(status, "gemm", gpgpu_last_error(ctx));
    }
    qsort(ns, s->repeat, sizeof(double), compare_doubles);
    *median_ns = ns[s->repeat / 2];
    free(ns);
    return TOOL_EXIT_OK;
}

static void print_report(gpgpu_context *ctx, const gemm_args *s, double gpu_ns, double wall_ns)
{
    gpgpu_gemm_tuning shape = { 0 };
    gpgpu_algo algo = s->gemm.algo;
    bool tiled = algo == GPGPU_ALGO_DEFAULT || algo == GPGPU_ALGO_FAST || algo == GPGPU_ALGO_GEMM_TILED;
    double flops = 2.0 * s->m * s->n * s->k;
    gpgpu_info info;

    gpgpu_context_get_info(ctx, &info);
    printf("backend: %s\ndevice: %s\n", info.backend, info.renderer);
    printf("type: %s\nm: %zu\nn: %zu\nk: %zu\n", gpgpu_type_name(s->gemm.type), s->m, s->n, s->k);
    printf("method: %s\n", tool_gemm_method_name(algo));
    if (tiled) {
        gpgpu_gemm_shape(ctx, s->gemm.type, s->m, s->n, s->k, &shape);
        printf("block: %ux%ux%u\nthread_block: %ux%u\ninvocations: %u\ntuned: %s\n",
               shape.block_m, shape.block_n, shape.block_k, shape.thread_m,
               shape.block_m * shape.block_n / (shape.invocations * shape.thread_m),
               shape.invocations, shape.gpu_ns > 0 ? "yes" : "no");
    } else if (algo == GPGPU_ALGO_GEMM_COOPMAT_F16) {
        printf("block: 128x128x32\ninputs: f16 (rounded from f32), sums in f32\n");
    } else {
        printf("tile: %u\n", s->gemm.tile ? s->gemm.tile : 16);
        if (algo == GPGPU_ALGO_GEMM_METHOD6)
            printf("outputs: %u\n", s->gemm.outputs ? s->gemm.outputs : 4);
    }
    printf("gpu_us: %.3f\nwall_us: %.3f\n", gpu_ns / 1e3, wall_ns / 1e3);
    bool missed = tool_timer_missed(gpu_ns, wall_ns, 1);
    double rate_ns = tool_rate_ns(gpu_ns, wall_ns, 1);
    printf("timer: %s\n", missed ? "wall" : "gpu");
    if (missed)
        tool_note("%s", tool_timer_missed_note);
    printf("gflops: %.3f\n", rate_ns > 0 ? flops / rate_ns : 0.0);
    printf("gflops_wall: %.3f\n", wall_ns > 0 ? flops / wall_ns : 0.0);
    printf("cgma: %.3f\n", tool_gemm_cgma(&s->gemm, &shape, s->m, s->n, s->k, false));
}

static int multiply_generated(gpgpu_context *ctx, const gemm_args *s)
{
    size_t ac = s->m * s->k, bc = s->k * s->n, cc = s->m * s->n, size = gpgpu_type_size(s->gemm.type);
    gpgpu_buffer *ga = NULL, *gb = NULL, *gc = NULL;
    double gpu_ns = 0, wall_ns = 0;
    gpgpu_status status = GPGPU_SUCCESS;
    /* Each size is below 2^31 (parse_size): their products do not overflow a size_t. */
    int rc = check_fit(ctx, s->gemm.type, ac, bc, cc);

    if (rc == TOOL_EXIT_OK)
        status = gpgpu_buffer_create(ctx, ac * size, &ga);
    if (rc == TOOL_EXIT_OK && status == GPGPU_SUCCESS)
        status = gpgpu_buffer_create(ctx, bc * size, &gb);
    if (rc == TOOL_EXIT_OK && status == GPGPU_SUCCESS)
        status = gpgpu_buffer_create(ctx, cc * size, &gc);
    if (rc == TOOL_EXIT_OK && status != GPGPU_SUCCESS)
        rc = tool_fail(status, "cannot allocate the matrices", gpgpu_last_error(ctx));
    if (rc == TOOL_EXIT_OK)
        rc = tool_upload_random(ctx, ga, s->gemm.type, ac, s->seed);
    if (rc == TOOL_EXIT_OK)
        rc = tool_upload_random(ctx, gb, s->gemm.type, bc, s->seed + 1);
    if (rc == TOOL_EXIT_OK && s->tune)
        rc = tune(ctx, s, s->m, s->n, s->k);
    if (rc == TOOL_EXIT_OK)
        rc = time_products(ctx, s, ga, gb, gc, &gpu_ns, &wall_ns);
    if (rc == TOOL_EXIT_OK)
        print_report(ctx, s, gpu_ns, wall_ns);
    if (rc == TOOL_EXIT_OK && s->check) {
        tool_gemm_check check;
        rc = tool_gemm_check_rows(ctx, &s->gemm, s->m, s->n, s->k, s->alpha, s->seed, gc, 64,
                                  &check);
        if (rc == TOOL_EXIT_OK) {
            printf("check_rows: %zu\ncheck_errors: %zu\ncheck_worst_of_bound: %.3g\n",
                   check.rows, check.errors, check.worst);
            rc = check.errors ? TOOL_EXIT_FAILURE : TOOL_EXIT_OK;
        }
    }
    gpgpu_buffer_destroy(ga);
    gpgpu_buffer_destroy(gb);
    gpgpu_buffer_destroy(gc);
    return rc;
}

int cmd_gemm(int argc, char **argv)
{
    gemm_args s;
    gpgpu_context *ctx = NULL;
    dense a = { 0 }, b = { 0 };
    size_t m = 0, n = 0, k = 0;
    int rc;

    if (!parse_gemm_args(argc, argv, &s))
        return TOOL_EXIT_OK;
    tool_progress_init(s.quiet);
    if (s.m == 0) { /* files first: a bad file costs no GPU start */
        rc = read_dense(s.a_path, s.gemm.type, &a.rows, &a.cols, &a.values);
        if (rc == TOOL_EXIT_OK)
            rc = read_dense(s.b_path, s.gemm.type, &b.rows, &b.cols, &b.values);
        if (rc == TOOL_EXIT_OK)
            rc = check_shapes(&s, &a, &b, &m, &n, &k);
        if (rc != TOOL_EXIT_OK) {
            free(a.values);
            free(b.values);
            return rc;
        }
    }
    rc = tool_context_create(&s.desc, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = s.m ? multiply_generated(ctx, &s) : multiply_files(ctx, &s, &a, &b, m, n, k);
    free(a.values);
    free(b.values);
    tool_context_destroy(ctx);
    return rc;
}
