#include "tool_common.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

static const char *program_name = "gpgpu";
static const char *program_help = "gpgpu --help";
static void (*usage_exit)(void);

void tool_set_program(const char *name, const char *help_command)
{
    program_name = name;
    program_help = help_command;
}

void tool_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s'.\n", program_help);
    if (usage_exit != NULL)
        usage_exit();
    exit(TOOL_EXIT_USAGE);
}

void tool_set_usage_exit(void (*leave)(void))
{
    usage_exit = leave;
}

void tool_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int tool_exit_code(gpgpu_status status)
{
    switch (status) {
    case GPGPU_SUCCESS:
        return TOOL_EXIT_OK;
    case GPGPU_ERROR_NO_CONTEXT:
    case GPGPU_ERROR_GL_VERSION:
    case GPGPU_ERROR_BACKEND_UNAVAILABLE:
        return TOOL_EXIT_NO_GPU;
    case GPGPU_ERROR_PARSE:
        return TOOL_EXIT_USAGE;
    default:
        /* 1xx: the request itself was wrong (a bad combination, a count too
         * large), which is the user's input, not a failure of the machine. */
        return status >= 100 && status < 200 ? TOOL_EXIT_USAGE : TOOL_EXIT_FAILURE;
    }
}

int tool_fail(gpgpu_status status, const char *what, const char *detail)
{
    if (detail == NULL || detail[0] == '\0')
        detail = gpgpu_status_string(status);
    tool_message("%s: %s", what, detail);
    return tool_exit_code(status);
}

const char *tool_option_value(int argc, char **argv, int *i, const char *name)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);

    if (strncmp(arg, name, len) != 0)
        return NULL;
    if (arg[len] == '=')
        return arg + len + 1;
    if (arg[len] != '\0')
        return NULL;
    if (*i + 1 >= argc)
        tool_usage_error("option %s needs a value", name);
    ++*i;
    return argv[*i];
}

/* Name tables; a new backend or platform is one more line. */
typedef struct name_value {
    const char *name;
    int value;
} name_value;

static const name_value backend_names[] = {
    { "gl", GPGPU_BACKEND_GL },
    { "vulkan", GPGPU_BACKEND_VULKAN },
};

static const name_value platform_names[] = {
    { "egl-device", GPGPU_GL_PLATFORM_EGL_DEVICE },
    { "egl-surfaceless", GPGPU_GL_PLATFORM_EGL_SURFACELESS },
    { "glfw", GPGPU_GL_PLATFORM_GLFW },
};

/* Each command's --algo names only its own algorithms: one table for both let `scan --algo
 * stride` through to the library, whose refusal named an enum value. */
static const name_value reduce_algo_names[] = {
    { "fast", GPGPU_ALGO_FAST },
    { "halving", GPGPU_ALGO_CLASSIC_HALVING },
    { "stride", GPGPU_ALGO_CLASSIC_STRIDE },
    { "minmax", GPGPU_ALGO_CLASSIC_MINMAX },
};

static const name_value scan_algo_names[] = {
    { "fast", GPGPU_ALGO_FAST },
    { "single-pass", GPGPU_ALGO_SCAN_SINGLE_PASS },
    { "reduce-then-scan", GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN },
    { "classic", GPGPU_ALGO_CLASSIC_SCAN },
};

/* select's: the scan's without the classic one (the slides have no compaction). */
static const name_value select_algo_names[] = {
    { "fast", GPGPU_ALGO_FAST },
    { "single-pass", GPGPU_ALGO_SCAN_SINGLE_PASS },
    { "reduce-then-scan", GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN },
};

/* SpMV's own names: "classic" is Kiciak's 5-stage SpMV here. */
static const name_value spmv_algo_names[] = {
    { "classic", GPGPU_ALGO_CLASSIC_SPMV },
    { "scalar", GPGPU_ALGO_SPMV_SCALAR },
    { "vector", GPGPU_ALGO_SPMV_VECTOR },
    { "balanced", GPGPU_ALGO_SPMV_BALANCED },
};

/* The dense product's methods, named as the CUDA lab report numbers them. */
static const name_value gemm_method_names[] = {
    { "1", GPGPU_ALGO_GEMM_METHOD1 },
    { "2", GPGPU_ALGO_GEMM_METHOD2 },
    { "6", GPGPU_ALGO_GEMM_METHOD6 },
    { "fast", GPGPU_ALGO_GEMM_TILED },
    { "coopmat", GPGPU_ALGO_GEMM_COOPMAT_F16 },
};

static const name_value format_names[] = {
    { "csr", GPGPU_FORMAT_CSR },   { "coo", GPGPU_FORMAT_COO },  { "csc", GPGPU_FORMAT_CSC },
    { "ell", GPGPU_FORMAT_ELL },   { "sell", GPGPU_FORMAT_SELL }, { "bsr", GPGPU_FORMAT_BSR },
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The value named `text` in the table; otherwise a usage error that lists
 * the names (those of `command`, when not NULL). */
static int lookup_name(const name_value *table, size_t count, const char *option,
                       const char *command, const char *text)
{
    char choices[256] = "";

    for (size_t k = 0; k < count; k++) {
        if (strcmp(table[k].name, text) == 0)
            return table[k].value;
    }
    for (size_t k = 0; k < count; k++) {
        if (k > 0)
            strncat(choices, ", ", sizeof(choices) - strlen(choices) - 1);
        strncat(choices, table[k].name, sizeof(choices) - strlen(choices) - 1);
    }
    tool_usage_error("%s: unknown value '%s'%s%s (expected %s)", option, text,
                     command != NULL ? " for " : "", command != NULL ? command : "", choices);
}

const char tool_context_options_help[] =
    "  --backend NAME    gl or vulkan (default: $GPGPU_BACKEND, else gl where\n"
    "                    the library has it, else vulkan)\n"
    "  --platform NAME   egl-device, egl-surfaceless or glfw (default:\n"
    "                    $GPGPU_GL_PLATFORM, else the first that works)\n"
    "  --device N        the backend's N-th device, 1 for the first (gpgpu info\n"
    "                    --all lists them); default: the library's choice\n"
    "  --debug           GL debug output and extra checks in the library\n";

const char tool_help_footer[] =
    "  -h, --help        this help\n"
    "\n"
    "Exit status: 0 success, 1 GPU, driver or I/O failure, 2 bad usage or\n"
    "input, 77 no GPU context could be made.\n";

bool tool_context_option(int argc, char **argv, int *i, gpgpu_context_desc *desc)
{
    const char *value;

    if ((value = tool_option_value(argc, argv, i, "--backend")) != NULL) {
        desc->backend = (gpgpu_backend)lookup_name(backend_names, COUNT_OF(backend_names),
                                                   "--backend", NULL, value);
    } else if ((value = tool_option_value(argc, argv, i, "--platform")) != NULL) {
        desc->gl_platform = (gpgpu_gl_platform)lookup_name(
            platform_names, COUNT_OF(platform_names), "--platform", NULL, value);
    } else if ((value = tool_option_value(argc, argv, i, "--device")) != NULL) {
        desc->device = (uint32_t)tool_parse_uint("--device", value, 1, UINT32_MAX);
    } else if (strcmp(argv[*i], "--debug") == 0) {
        desc->debug = true;
    } else {
        return false;
    }
    return true;
}

const char *tool_output_option(int argc, char **argv, int *i)
{
    const char *value = tool_option_value(argc, argv, i, "-o");
    return value ? value : tool_option_value(argc, argv, i, "--output");
}

int tool_context_create(const gpgpu_context_desc *desc, gpgpu_context **ctx)
{
    gpgpu_status status = gpgpu_context_create(desc, ctx);

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot create a context", gpgpu_last_error(NULL));
    return TOOL_EXIT_OK;
}

void tool_context_destroy(gpgpu_context *ctx)
{
    const char *warning = ctx ? gpgpu_last_warning(ctx) : "";

    if (warning[0] != '\0')
        fprintf(stderr, "%s: warning: %s\n", program_name, warning);
    gpgpu_context_destroy(ctx);
}

int tool_fit_begin(gpgpu_context *ctx, tool_fit *fit)
{
    gpgpu_status status = gpgpu_context_get_info(ctx, &fit->info);

    fit->total = 0;
    return status == GPGPU_SUCCESS ? TOOL_EXIT_OK
                                   : tool_fail(status, "cannot query the context",
                                               gpgpu_last_error(ctx));
}

int tool_fit_array(tool_fit *fit, const char *what, size_t count, size_t size)
{
    char msg[512];

    if (count > GPGPU_SPARSE_MAX_INDEX) {
        snprintf(msg, sizeof(msg), "%s has %zu elements, more than the 2^31 - 1 the shaders "
                 "index", what, count);
        return tool_fail(GPGPU_ERROR_TOO_LARGE, "too large", msg);
    }
    if (count * size > fit->info.max_storage_range_bytes) {
        snprintf(msg, sizeof(msg), "%s would take %zu bytes, more than one storage binding of "
                 "%s (%s) holds (%zu)", what, count * size, fit->info.renderer,
                 fit->info.backend, fit->info.max_storage_range_bytes);
        return tool_fail(GPGPU_ERROR_TOO_LARGE, "too large", msg);
    }
    fit->total += count * size;
    return TOOL_EXIT_OK;
}

int tool_fit_end(const tool_fit *fit)
{
    char msg[512];
    size_t memory = fit->info.device_memory_bytes;

    if (memory == 0 || fit->total <= memory)
        return TOOL_EXIT_OK;
    snprintf(msg, sizeof(msg), "the arrays would take %zu bytes together, more than the %zu "
             "bytes of memory of %s (%s)", fit->total, memory, fit->info.renderer,
             fit->info.backend);
    return tool_fail(GPGPU_ERROR_TOO_LARGE, "too large", msg);
}

uint64_t tool_parse_uint(const char *option, const char *text, uint64_t min, uint64_t max)
{
    char *end;
    unsigned long long value;

    /* strtoull accepts leading blanks and a minus sign (negating the value),
     * so insist on a digit first. */
    if (text[0] < '0' || text[0] > '9')
        tool_usage_error("%s: '%s' is not a non-negative integer", option, text);
    errno = 0;
    value = strtoull(text, &end, 10);
    if (*end != '\0')
        tool_usage_error("%s: '%s' is not a non-negative integer", option, text);
    if (errno == ERANGE || value < min || value > max)
        tool_usage_error("%s: %s is out of range [%" PRIu64 ", %" PRIu64 "]", option, text, min,
                         max);
    return (uint64_t)value;
}

double tool_parse_double(const char *option, const char *text)
{
    char *end;
    double value;

    errno = 0;
    value = strtod(text, &end);
    /* strtod also takes nan, inf and hexadecimal: a factor or a tolerance
     * that is not a plain finite number is a typo, never a wish. */
    if (end == text || *end != '\0' || errno == ERANGE || !(value - value == 0) ||
        strpbrk(text, "xX") != NULL)
        tool_usage_error("%s: '%s' is not a finite decimal number", option, text);
    return value;
}

void tool_check_value_range(const char *option, const char *text, gpgpu_type type)
{
    /* strtof rounds the decimal once, as the readers do (a double cast could round twice). */
    if (type == GPGPU_TYPE_F32 && isinf(strtof(text, NULL)))
        tool_usage_error("%s: %s is out of range for f32 (its largest value is %.9g)", option,
                         text, (double)FLT_MAX);
}

gpgpu_type tool_parse_type(const char *text)
{
    static const gpgpu_type types[] = { GPGPU_TYPE_U32, GPGPU_TYPE_I32, GPGPU_TYPE_F32,
                                        GPGPU_TYPE_F64 };

    for (size_t k = 0; k < COUNT_OF(types); k++) {
        if (strcmp(gpgpu_type_name(types[k]), text) == 0)
            return types[k];
    }
    tool_usage_error("--type: unknown type '%s' (expected u32, i32, f32 or f64)", text);
}

gpgpu_type tool_parse_float_type(const char *text, const char *what)
{
    gpgpu_type type = tool_parse_type(text);
    if (type != GPGPU_TYPE_F32 && type != GPGPU_TYPE_F64)
        tool_usage_error("--type: %s are f32 or f64, not %s", what, text);
    return type;
}

gpgpu_algo tool_parse_reduce_algo(const char *text)
{
    return (gpgpu_algo)lookup_name(reduce_algo_names, COUNT_OF(reduce_algo_names), "--algo",
                                   "reduce", text);
}

gpgpu_algo tool_parse_scan_algo(const char *text)
{
    return (gpgpu_algo)lookup_name(scan_algo_names, COUNT_OF(scan_algo_names), "--algo", "scan",
                                   text);
}

gpgpu_algo tool_parse_select_algo(const char *text)
{
    return (gpgpu_algo)lookup_name(select_algo_names, COUNT_OF(select_algo_names), "--algo",
                                   "select", text);
}

const char *tool_algo_name(gpgpu_algo algo)
{
    for (size_t k = 0; k < COUNT_OF(reduce_algo_names); k++) {
        if (reduce_algo_names[k].value == (int)algo)
            return reduce_algo_names[k].name;
    }
    for (size_t k = 0; k < COUNT_OF(scan_algo_names); k++) {
        if (scan_algo_names[k].value == (int)algo)
            return scan_algo_names[k].name;
    }
    return "default";
}

gpgpu_algo tool_parse_spmv_algo(const char *text)
{
    return (gpgpu_algo)lookup_name(spmv_algo_names, COUNT_OF(spmv_algo_names), "--algo", "spmv",
                                   text);
}

const char *tool_spmv_algo_name(gpgpu_algo algo)
{
    for (size_t k = 0; k < COUNT_OF(spmv_algo_names); k++) {
        if (spmv_algo_names[k].value == (int)algo)
            return spmv_algo_names[k].name;
    }
    return "default";
}

void tool_progress(const char *line, void *user_data)
{
    (void)user_data;
    tool_message("%s", line);
}

static struct {
    bool on;             /* tool_progress_init was called without quiet */
    double start_ns;     /* when it was */
    double last_ns;      /* the last line, 0 before the first */
    double after_ns, every_ns;
} progress;

void tool_progress_init(bool quiet)
{
    const char *env = getenv("GPGPU_PROGRESS_AFTER");
    char *end;
    double after = env != NULL && *env != '\0' ? strtod(env, &end) : TOOL_PROGRESS_AFTER_S;

    if (env != NULL && *env != '\0' && (*end != '\0' || !(after >= 0)))
        after = TOOL_PROGRESS_AFTER_S; /* not a number of seconds: the default */
    progress.on = !quiet;
    progress.start_ns = tool_now_ns();
    progress.last_ns = 0;
    progress.after_ns = after * 1e9;
    /* A second between lines, or less where the first comes sooner (0 for the tests). */
    progress.every_ns = after < 1 ? after * 1e9 : 1e9;
}

bool tool_progress_due(void)
{
    double now = tool_now_ns();

    return progress.on && now - progress.start_ns >= progress.after_ns &&
           (progress.last_ns == 0 || now - progress.last_ns >= progress.every_ns);
}

/* Prints the line and restarts the gap to the next. */
static void progress_print(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    progress.last_ns = tool_now_ns();
}

void tool_progress_line(const char *fmt, ...)
{
    va_list ap;

    if (!tool_progress_due())
        return;
    va_start(ap, fmt);
    progress_print(fmt, ap);
    va_end(ap);
}

void tool_progress_step(bool long_step, const char *fmt, ...)
{
    va_list ap;

    if (!progress.on || (!long_step && !tool_progress_due()))
        return;
    va_start(ap, fmt);
    progress_print(fmt, ap);
    va_end(ap);
}

void tool_note(const char *fmt, ...)
{
    va_list ap;

    if (!progress.on)
        return;
    fprintf(stderr, "%s: note: ", program_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void tool_progress_callback(const char *line, void *user_data)
{
    (void)user_data;
    tool_progress_line("%s", line);
}

void tool_matrix_operand(const char *arg, const char **a, const char **b)
{
    if (arg[0] == '-' && arg[1] != '\0')
        tool_usage_error("unknown option '%s'", arg);
    if (*a == NULL)
        *a = arg;
    else if (*b == NULL)
        *b = arg;
    else
        tool_usage_error("more than two matrices ('%s', '%s' and '%s')", *a, *b, arg);
}

gpgpu_algo tool_parse_gemm_method(const char *text)
{
    return (gpgpu_algo)lookup_name(gemm_method_names, COUNT_OF(gemm_method_names), "--method",
                                   "gemm", text);
}

const char *tool_gemm_method_name(gpgpu_algo algo)
{
    for (size_t k = 0; k < COUNT_OF(gemm_method_names); k++) {
        if (gemm_method_names[k].value == (int)algo)
            return gemm_method_names[k].name;
    }
    return "fast";
}

/* Global loads per method (the lab report's count: what each invocation reads from
 * global memory), and one store per output of C (a load more with beta != 0). */
double tool_gemm_cgma(const gpgpu_gemm_desc *d, const gpgpu_gemm_tuning *shape, size_t m,
                      size_t n, size_t k, bool reads_c)
{
    double mm = (double)m, nn = (double)n, kk = (double)k, loads;
    double tile = d->tile ? d->tile : 16, outputs = d->outputs ? d->outputs : 4;

    switch (d->algo) {
    case GPGPU_ALGO_GEMM_METHOD1:
    case GPGPU_ALGO_GEMM_METHOD2:
        loads = 2 * mm * nn * kk; /* a row of A and a column of B per output */
        break;
    case GPGPU_ALGO_GEMM_METHOD6: {
        /* per slice, each invocation loads 3 (2 outputs) or 4 (4 outputs) elements */
        double rows = outputs == 4 ? 2 * tile : tile;
        double groups = ceil(mm / rows) * ceil(nn / (2 * tile));
        loads = groups * ceil(kk / tile) * tile * tile * (outputs == 4 ? 4 : 3);
        break;
    }
    case GPGPU_ALGO_GEMM_COOPMAT_F16: {
        /* a 128 x 128 block per work-group, K in slices of 32 through shared memory; A and
         * B read once and written as f16 first, the f32 product written and read after */
        double groups = ceil(mm / 128) * ceil(nn / 128);
        loads = groups * ceil(kk / 32) * 32 * 256 + 2 * (mm * kk + kk * nn) + 2 * mm * nn;
        break;
    }
    default: {
        double groups = ceil(mm / shape->block_m) * ceil(nn / shape->block_n);
        loads = groups * ceil(kk / shape->block_k) * shape->block_k *
                (double)(shape->block_m + shape->block_n);
        break;
    }
    }
    double accesses = loads + mm * nn * (reads_c ? 2 : 1);
    return accesses > 0 ? 2 * mm * nn * kk / accesses : 0;
}

/* Element i of a host array of type t (f32 or f64) as a long double. */
static long double element(gpgpu_type t, const void *p, size_t i)
{
    return t == GPGPU_TYPE_F32 ? (long double)((const float *)p)[i]
                               : (long double)((const double *)p)[i];
}

/* Row i of C against the CPU: counts the entries off into *out. */
static void check_row(const gpgpu_gemm_desc *d, size_t i, size_t n, size_t k, long double alpha,
                      const void *a, const void *b, const void *c, tool_gemm_check *out)
{
    gpgpu_type t = d->type;
    size_t lda = d->transpose_a ? 0 : k, ldb = d->transpose_b ? k : n;
    double u = t == GPGPU_TYPE_F32 ? 0x1p-24 : 0x1p-53;
    double g = (double)(k + 5) * u / (1 - (double)(k + 5) * u);
    /* The cooperative-matrix product multiplies A and B rounded to f16: each factor within
     * one f16 ulp (2^-10 relative, whatever the rounding mode) of its f32 value. */
    if (d->algo == GPGPU_ALGO_GEMM_COOPMAT_F16)
        g += 0x1p-9 + 0x1p-20;

    for (size_t j = 0; j < n; j++) {
        long double sum = 0, abs = 0;
        for (size_t p = 0; p < k; p++) {
            /* A stored m x k, or k x m transposed (lda is then m: see the caller) */
            size_t ai = d->transpose_a ? p * d->lda + i : i * lda + p;
            size_t bi = d->transpose_b ? j * ldb + p : p * ldb + j;
            long double x = element(t, a, ai), y = element(t, b, bi);
            sum += x * y;
            abs += fabsl(x * y);
        }
        double got = (double)element(t, c, j), bound = g * (double)(fabsl(alpha) * abs);
        double err = fabs(got - (double)(alpha * sum));
        if (!(err <= bound + 1e-300) && ++out->errors <= 3)
            tool_message("check: C[%zu][%zu] = %.17g, expected %.17Lg (bound %.3g)", i, j, got,
                         alpha * sum, bound);
        if (bound > 0 && err / bound > out->worst)
            out->worst = err / bound;
    }
}

int tool_gemm_check_rows(gpgpu_context *ctx, const gpgpu_gemm_desc *d, size_t m, size_t n,
                         size_t k, double alpha, uint64_t seed, gpgpu_buffer *c,
                         size_t max_rows, tool_gemm_check *out)
{
    gpgpu_type t = d->type;
    gpgpu_gemm_desc tight = *d;
    size_t size = gpgpu_type_size(t), rows = m < max_rows ? m : max_rows;
    void *a = malloc(m * k * size + 1), *b = malloc(k * n * size + 1), *row = malloc(n * size + 1);
    long double al = t == GPGPU_TYPE_F32 ? (long double)(float)alpha : (long double)alpha;
    int rc = TOOL_EXIT_OK;

    *out = (tool_gemm_check){ 0 };
    if (a == NULL || b == NULL || row == NULL) {
        free(a), free(b), free(row);
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "check", "no host memory");
    }
    tight.lda = m; /* the stride of a transposed A, k x m */
    tool_random_fill(t, seed, 0, m * k, a);
    tool_random_fill(t, seed + 1, 0, k * n, b);
    for (size_t r = 0; r < rows; r++) {
        size_t i = rows == m ? r : r * (m - 1) / (rows - 1);
        tool_progress_line("check: row %zu of %zu", r + 1, rows);
        gpgpu_status status = gpgpu_buffer_download(c, i * n * size, row, n * size);
        if (status != GPGPU_SUCCESS) {
            rc = tool_fail(status, "check", gpgpu_last_error(ctx));
            break;
        }
        check_row(&tight, i, n, k, al, a, b, row, out);
        out->rows++;
    }
    free(a), free(b), free(row);
    return rc;
}

gpgpu_format tool_parse_format(const char *text)
{
    return (gpgpu_format)lookup_name(format_names, COUNT_OF(format_names), "--format", NULL, text);
}

double tool_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

bool tool_timer_missed(double gpu_ns, double wall_ns, double calls)
{
    return gpu_ns < 100 * calls && gpu_ns * 1000 < wall_ns;
}

double tool_rate_ns(double gpu_ns, double wall_ns, double calls)
{
    return tool_timer_missed(gpu_ns, wall_ns, calls) ? wall_ns : gpu_ns;
}

const char tool_timer_missed_note[] =
    "the GPU timer measured nothing (this driver's timer queries miss compute work), "
    "so rates come from the wall time";

/* Element i of the sequence is the (i+1)-th output of splitmix64 seeded with
 * `seed`; splitmix64's state is a plain counter, so any element can be made
 * without the ones before it. */
static uint64_t splitmix64_at(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * UINT64_C(0x9E3779B97F4A7C15);

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void tool_random_fill(gpgpu_type type, uint64_t seed, size_t first, size_t count, void *data)
{
    for (size_t k = 0; k < count; k++) {
        uint64_t r = splitmix64_at(seed, (uint64_t)(first + k));
        /* Bit 63 is the sign; the mantissa bits come from below it. Taking
         * 23 (52) bits keeps 0.5 + u exact and below 1.5 in float (double):
         * with one bit more, the largest values would round up to 1.5. */
        bool negative = (r >> 63) != 0;

        switch (type) {
        case GPGPU_TYPE_U32:
            ((uint32_t *)data)[k] = 1 + (uint32_t)(r % 1000);
            break;
        case GPGPU_TYPE_I32: {
            int32_t v = (int32_t)(r % 2000); /* 0..999 -> -1000..-1, 1000..1999 -> 1..1000 */
            ((int32_t *)data)[k] = v < 1000 ? v - 1000 : v - 999;
            break;
        }
        case GPGPU_TYPE_F32: {
            float v = 0.5f + (float)((r >> 40) & 0x7FFFFF) * 0x1p-23f;
            ((float *)data)[k] = negative ? -v : v;
            break;
        }
        case GPGPU_TYPE_F64: {
            double v = 0.5 + (double)((r >> 11) & UINT64_C(0xFFFFFFFFFFFFF)) * 0x1p-52;
            ((double *)data)[k] = negative ? -v : v;
            break;
        }
        }
    }
}

int tool_upload_random(gpgpu_context *ctx, gpgpu_buffer *buf, gpgpu_type type, size_t count,
                       uint64_t seed)
{
    const size_t piece = (size_t)1 << 20;
    size_t size = gpgpu_type_size(type);
    void *host;

    if (count == 0)
        return TOOL_EXIT_OK;
    host = malloc((count < piece ? count : piece) * size);
    if (host == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot generate random data",
                         "out of host memory");
    for (size_t first = 0; first < count; first += piece) {
        size_t n = count - first < piece ? count - first : piece;
        gpgpu_status status;

        tool_progress_line("generating and uploading: %zu of %zu values", first, count);
        tool_random_fill(type, seed, first, n, host);
        status = gpgpu_buffer_upload(buf, first * size, host, n * size);
        if (status != GPGPU_SUCCESS) {
            free(host);
            return tool_fail(status, "cannot upload", gpgpu_last_error(ctx));
        }
    }
    free(host);
    return TOOL_EXIT_OK;
}

void tool_uuid_text(const uint8_t uuid[16], char text[37])
{
    const uint8_t *u = uuid;
    snprintf(text, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
}

void tool_print_value(FILE *out, gpgpu_type type, const void *value)
{
    switch (type) {
    case GPGPU_TYPE_U32:
        fprintf(out, "%" PRIu32, *(const uint32_t *)value);
        break;
    case GPGPU_TYPE_I32:
        fprintf(out, "%" PRId32, *(const int32_t *)value);
        break;
    case GPGPU_TYPE_F32:
        fprintf(out, "%.17g", (double)*(const float *)value);
        break;
    case GPGPU_TYPE_F64:
        fprintf(out, "%.17g", *(const double *)value);
        break;
    }
}
