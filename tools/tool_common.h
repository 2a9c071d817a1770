/* Helpers shared by the gpgpu and gpgpu-bench command-line tools. */
#ifndef GPGPU_TOOL_COMMON_H
#define GPGPU_TOOL_COMMON_H

#include <gpgpu/gpgpu.h>
#include <gpgpu/sparse.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define TOOL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TOOL_PRINTF(fmt, args)
#endif

/* Exit codes. 77 is what meson and automake read as "test skipped", so test
 * scripts pass on machines without a usable GPU. */
enum {
    TOOL_EXIT_OK = 0,
    TOOL_EXIT_FAILURE = 1, /* GPU, driver or file I/O failure */
    TOOL_EXIT_USAGE = 2,   /* bad option, value or input file */
    TOOL_EXIT_NO_GPU = 77  /* no context could be made */
};

/* Sizes above this take seconds: the step that works on them is announced at once
 * (tool_progress_step). */
#define TOOL_PROGRESS_THRESHOLD ((size_t)1 << 24)

/* Seconds a command runs before progress lines are printed, then at most one a second:
 * a short run prints none, a long one is never silent for long. GPGPU_PROGRESS_AFTER (seconds)
 * overrides it, and at 0 every line is printed (as the tests ask). */
#define TOOL_PROGRESS_AFTER_S 2.0

/* Sets the name that prefixes every message ("gpgpu") and the command that a
 * usage error suggests ("gpgpu reduce --help"). */
void tool_set_program(const char *name, const char *help_command);

/* Prints "<program>: <message>" and a --help hint to stderr, then exits with
 * TOOL_EXIT_USAGE. Only for argument parsing, which runs before anything
 * needs releasing. */
_Noreturn void tool_usage_error(const char *fmt, ...) TOOL_PRINTF(1, 2);

/* Makes tool_usage_error call leave() instead of exiting; leave must not
 * return (the argument fuzzer longjmps back to its next input). NULL exits. */
void tool_set_usage_exit(void (*leave)(void));

/* Prints "<program>: <message>" to stderr. */
void tool_message(const char *fmt, ...) TOOL_PRINTF(1, 2);

/* A gpgpu_progress_callback that prints each line as tool_message does. */
void tool_progress(const char *line, void *user_data);

/* Progress lines on stderr for the gpgpu commands, which call tool_progress_init once their
 * options are parsed (the clock starts then); none at all with quiet (--quiet), and none
 * before it is called (gpgpu-bench prints its own). */
void tool_progress_init(bool quiet);

/* Whether a progress line would be printed now: TOOL_PROGRESS_AFTER_S after the start, and a
 * second after the last one. */
bool tool_progress_due(void);

/* Prints "<program>: <line>" when tool_progress_due. */
void tool_progress_line(const char *fmt, ...) TOOL_PRINTF(1, 2);

/* A step about to start: printed at once when long_step (its size says it takes seconds,
 * and no line may come during it), else as tool_progress_line. */
void tool_progress_step(bool long_step, const char *fmt, ...) TOOL_PRINTF(2, 3);

/* Prints "<program>: note: <line>" unless quiet: what a result was measured with. */
void tool_note(const char *fmt, ...) TOOL_PRINTF(1, 2);

/* A gpgpu_progress_callback for the library's long calls (tuning, SpGEMM's chunks and
 * classic stages): each line through tool_progress_line. */
void tool_progress_callback(const char *line, void *user_data);

/* How long the GPU is kept busy, untimed, before a measurement: an idle H100 needs well
 * over 100 ms of load to come back to full speed, L2-bound kernels up to 0.4 s
 * (docs/DECISIONS.md). */
#define TOOL_WARM_UP_MS 1000

/* The exit code for a failure of the given status. */
int tool_exit_code(gpgpu_status status);

/* Prints "<program>: <what>: <detail>" (the status name when detail is NULL
 * or empty) and returns tool_exit_code(status). */
int tool_fail(gpgpu_status status, const char *what, const char *detail);

/* When argv[*i] is the option `name`, returns its value, given either as the
 * next argument or after '=', and leaves *i on the last argument used; a
 * missing value is a usage error. Returns NULL for any other argument. */
const char *tool_option_value(int argc, char **argv, int *i, const char *name);

/* Handles the context options both tools take (--backend, --platform,
 * --debug) into *desc. Returns true when argv[*i] was one of them. */
bool tool_context_option(int argc, char **argv, int *i, gpgpu_context_desc *desc);

/* The value of -o or --output when argv[*i] is one of them (as
 * tool_option_value), else NULL. */
const char *tool_output_option(int argc, char **argv, int *i);

/* Help text lines for the options of tool_context_option. */
extern const char tool_context_options_help[];

/* The end of every help text: --help and the exit codes. */
extern const char tool_help_footer[];

/* Creates a context; on failure prints why and returns the exit code. */
int tool_context_create(const gpgpu_context_desc *desc, gpgpu_context **ctx);

/* Prints the context's last warning (gpgpu_last_warning: a tuning cache it ignored, ...), if
 * any, as "<program>: warning: ..." (--quiet too: it is not progress), then destroys it. */
void tool_context_destroy(gpgpu_context *ctx);

/* What the device takes, checked before anything is allocated so that a request too
 * large fails at once, the same way on every backend (GPGPU_ERROR_TOO_LARGE, exit 2),
 * rather than after generating or uploading gigabytes, or with whatever the driver says. */
typedef struct tool_fit {
    gpgpu_info info; /* of the context */
    size_t total;    /* bytes of the arrays checked so far */
} tool_fit;

/* Starts the checks of a context's arrays. */
int tool_fit_begin(gpgpu_context *ctx, tool_fit *fit);

/* An array of `count` elements of `size` bytes (`what` names it: "A", "the input") as one
 * library buffer: at most 2^31 - 1 elements (what the shaders index) and bytes within one
 * storage binding (stages bind whole buffers); its bytes count towards tool_fit_end. On
 * failure prints why and returns the exit code. */
int tool_fit_array(tool_fit *fit, const char *what, size_t count, size_t size);

/* All the arrays together within the device's memory, where it says how much it has. */
int tool_fit_end(const tool_fit *fit);

/* Parses a decimal integer in [min, max] given to `option`; anything else is a
 * usage error. */
uint64_t tool_parse_uint(const char *option, const char *text, uint64_t min, uint64_t max);

/* Parses a finite decimal number given to `option` (strtod's syntax without
 * nan, inf and hexadecimal); anything else is a usage error. */
double tool_parse_double(const char *option, const char *text);

/* A number that tool_parse_double took from `text` for a value of `type` on the GPU: one
 * that rounds to an infinity in f32 is a usage error naming it, as the file readers refuse
 * such a value. */
void tool_check_value_range(const char *option, const char *text, gpgpu_type type);

/* A command's next operand of two matrices (A.mtx, then B.mtx) into *a or *b; an unknown
 * option or a third matrix is a usage error. */
void tool_matrix_operand(const char *arg, const char **a, const char **b);

/* Parses "u32", "i32", "f32" or "f64"; anything else is a usage error. */
gpgpu_type tool_parse_type(const char *text);

/* tool_parse_type for commands on floats only: f32 or f64, else a usage
 * error that names what the type is of ("matrix values"). */
gpgpu_type tool_parse_float_type(const char *text, const char *what);

/* reduce's --algo names: fast, halving, stride, minmax; scan's: fast, single-pass,
 * reduce-then-scan, classic (the classic scan); select's: scan's but classic. Each refuses
 * the others' names.
 * tool_algo_name names any of them, "default" for GPGPU_ALGO_DEFAULT. */
gpgpu_algo tool_parse_reduce_algo(const char *text);
gpgpu_algo tool_parse_scan_algo(const char *text);
gpgpu_algo tool_parse_select_algo(const char *text);
const char *tool_algo_name(gpgpu_algo algo);

/* SpMV algorithm names: classic (CLASSIC_SPMV), scalar, vector, balanced;
 * tool_spmv_algo_name gives "default" for GPGPU_ALGO_DEFAULT. */
gpgpu_algo tool_parse_spmv_algo(const char *text);
const char *tool_spmv_algo_name(gpgpu_algo algo);

/* The dense product's --method names: 1, 2, 6 (the CUDA lab report's) and fast
 * (GEMM_TILED); tool_gemm_method_name gives "fast" for DEFAULT and FAST too. */
gpgpu_algo tool_parse_gemm_method(const char *text);
const char *tool_gemm_method_name(gpgpu_algo algo);

/* The lab report's CGMA of a product: flops over global memory accesses (the loads each
 * method makes, one store per output and, with reads_c, one load per output). shape is
 * the tiled kernel's block (for DEFAULT, FAST, GEMM_TILED). */
double tool_gemm_cgma(const gpgpu_gemm_desc *d, const gpgpu_gemm_tuning *shape, size_t m,
                      size_t n, size_t k, bool reads_c);

/* What tool_gemm_check_rows found: rows compared, entries off, the worst error as a
 * fraction of its bound. */
typedef struct tool_gemm_check {
    size_t rows, errors;
    double worst;
} tool_gemm_check;

/* Compares up to max_rows rows of C (spread over m) of a product of the random
 * sequences `seed` (A, stored as d->transpose_a says) and seed + 1 (B), as
 * tool_upload_random made them, with a long double product: each entry within
 * gamma(k + 5) times the sum of |alpha a b| (the bound of k products in any order, the
 * rounding of alpha and of the result). On failure to read C prints why and returns
 * the exit code; the entries off are printed (the first 3) and counted. */
int tool_gemm_check_rows(gpgpu_context *ctx, const gpgpu_gemm_desc *d, size_t m, size_t n,
                         size_t k, double alpha, uint64_t seed, gpgpu_buffer *c,
                         size_t max_rows, tool_gemm_check *out);

/* Parses csr, coo, csc, ell, sell or bsr for --format. */
gpgpu_format tool_parse_format(const char *text);

/* Wall-clock time in nanoseconds from a monotonic clock (only differences
 * mean anything). */
double tool_now_ns(void);

/* Whether a GPU time measured around `calls` library calls is no measurement: some
 * drivers' timer queries miss compute work (llvmpipe's GL reports about 1 ns a query,
 * whatever ran). No GPU runs a call in less than 100 ns, nor a thousand times faster than
 * the wall clock around it saw. */
bool tool_timer_missed(double gpu_ns, double wall_ns, double calls);

/* The time rates come from: gpu_ns, or wall_ns where the timer missed the work. */
double tool_rate_ns(double gpu_ns, double wall_ns, double calls);

/* What the tools say when rates come from the wall time instead. */
extern const char tool_timer_missed_note[];

/* Writes elements [first, first + count) of the random sequence of `seed`:
 * u32 in [1, 1000], i32 in [-1000, 1000] without 0, f32/f64 uniform in
 * [0.5, 1.5) with a random sign. Element i depends on seed and i only, so
 * the sequence can be made in pieces and is the same on every machine. */
void tool_random_fill(gpgpu_type type, uint64_t seed, size_t first, size_t count, void *data);

/* Fills the first `count` elements of buf with the random sequence of
 * `seed`, a piece at a time so that the host never holds all of it. On
 * failure prints why and returns the exit code. */
int tool_upload_random(gpgpu_context *ctx, gpgpu_buffer *buf, gpgpu_type type, size_t count,
                       uint64_t seed);

/* Room for the result of gpgpu_reduce of any type: two elements (min, max),
 * aligned for each type. */
typedef union tool_reduce_result {
    uint32_t u32[2];
    int32_t i32[2];
    float f32[2];
    double f64[2];
} tool_reduce_result;

/* A device UUID as text, 8-4-4-4-12 hex digits (as nvidia-smi -L and vulkaninfo print it). */
void tool_uuid_text(const uint8_t uuid[16], char text[37]);

/* Prints one element: integers exactly, floats with %.17g (round-trips). */
void tool_print_value(FILE *out, gpgpu_type type, const void *value);

#endif /* GPGPU_TOOL_COMMON_H */
