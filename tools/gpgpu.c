/* gpgpu: command-line front end of libgpgpu (info, reduce, scan). */
#include "tool_common.h"

#include <gpgpu/io.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char main_help[] =
    "Usage: gpgpu COMMAND [OPTIONS]\n"
    "\n"
    "GPU compute primitives on OpenGL compute shaders.\n"
    "\n"
    "Commands:\n"
    "  info      print what the context runs on\n"
    "  reduce    sum, min, max or min and max of a vector\n"
    "  scan      inclusive or exclusive prefix sums of a vector\n"
    "  help [COMMAND]\n"
    "\n"
    "'gpgpu COMMAND --help' describes a command.\n";

static const char info_help[] =
    "Usage: gpgpu info [OPTIONS]\n"
    "\n"
    "Creates a context and prints what it runs on, one 'key: value' per line.\n"
    "Without --backend (or GPGPU_BACKEND), reports every backend, a block each;\n"
    "one that cannot start prints 'unavailable:' and why. Exits 77 only when\n"
    "no backend starts.\n"
    "\n";

static const char reduce_help[] =
    "Usage: gpgpu reduce --op OP --type TYPE [OPTIONS] (IN.mtx | --random N)\n"
    "\n"
    "Reduces a vector on the GPU and prints the result: integers exactly, floats\n"
    "with 17 significant digits; --op minmax prints 'MIN MAX'. An empty vector\n"
    "gives the identity (0; the largest, smallest value or +-inf for min, max).\n"
    "\n"
    "  --op OP           sum, min, max or minmax\n"
    "  --algo ALGO       fast (default), halving, stride, or minmax (--op minmax)\n";

static const char scan_help[] =
    "Usage: gpgpu scan (--inclusive | --exclusive) --type TYPE [OPTIONS]\n"
    "                  (IN.mtx | --random N) -o OUT.mtx\n"
    "\n"
    "Prefix sums of a vector on the GPU, written as a MatrixMarket array.\n"
    "\n"
    "  --inclusive       out[i] = in[0] + ... + in[i]\n"
    "  --exclusive       out[i] = in[0] + ... + in[i-1], out[0] = 0\n"
    "  -o, --output OUT  the output file; - is standard output\n"
    "  --algo ALGO       fast (default) or classic\n";

static const char vector_options_help[] =
    "  --type TYPE       u32, i32, f32 or f64\n"
    "  IN.mtx            a MatrixMarket vector (one column or one row)\n"
    "  --random N        N random nonzero values instead of a file: u32 in\n"
    "                    [1, 1000], i32 in [-1000, 1000], f32 and f64 in\n"
    "                    [0.5, 1.5) with a random sign\n"
    "  --seed S          seed of --random (default 1); the same N and S give\n"
    "                    the same values on every machine\n"
    "  --quiet           no progress lines on stderr (given above 2^24 values)\n";

static void print_help(const char *command_help, bool vector_input)
{
    fputs(command_help, stdout);
    if (vector_input)
        fputs(vector_options_help, stdout);
    fputs(tool_context_options_help, stdout);
    fputs(tool_help_footer, stdout);
}

static bool is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

/* ------------------------------------------------------------------ info */

static const char *yes_no(bool value)
{
    return value ? "yes" : "no";
}

static void print_info(const gpgpu_info *info)
{
    printf("backend: %s\n", info->backend);
    printf("platform: %s\n", info->platform);
    printf("vendor: %s\n", info->vendor);
    printf("renderer: %s\n", info->renderer);
    printf("version: %s\n", info->version);
    printf("version_major: %d\n", info->version_major);
    printf("version_minor: %d\n", info->version_minor);
    printf("has_f64: %s\n", yes_no(info->has_f64));
    printf("has_subgroups: %s\n", yes_no(info->has_subgroups));
    printf("subgroup_size: %u\n", info->subgroup_size);
    printf("max_workgroup_invocations: %u\n", info->max_workgroup_invocations);
    printf("max_workgroup_count_x: %u\n", info->max_workgroup_count_x);
    printf("max_shared_memory_bytes: %zu\n", info->max_shared_memory_bytes);
    printf("max_storage_block_bytes: %zu\n", info->max_storage_block_bytes);
    printf("max_storage_range_bytes: %zu\n", info->max_storage_range_bytes);
    printf("storage_offset_alignment: %zu\n", info->storage_offset_alignment);
}

/* Prints one backend's info; a backend that cannot start says why. */
static int info_for(const gpgpu_context_desc *desc, bool quiet_failure)
{
    gpgpu_context *ctx;
    gpgpu_info info;
    if (quiet_failure) {
        gpgpu_status status = gpgpu_context_create(desc, &ctx);
        if (status != GPGPU_SUCCESS) {
            printf("backend: %s\nunavailable: %s\n",
                   desc->backend == GPGPU_BACKEND_VULKAN ? "vulkan" : "gl",
                   gpgpu_last_error(NULL));
            return tool_exit_code(status);
        }
    } else {
        int rc = tool_context_create(desc, &ctx);
        if (rc != TOOL_EXIT_OK)
            return rc;
    }
    gpgpu_status status = gpgpu_context_info(ctx, &info);
    int rc = TOOL_EXIT_OK;
    if (status == GPGPU_SUCCESS)
        print_info(&info);
    else
        rc = tool_fail(status, "cannot query the context", gpgpu_last_error(ctx));
    gpgpu_context_destroy(ctx);
    return rc;
}

static int cmd_info(int argc, char **argv)
{
    gpgpu_context_desc desc = { 0 };

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            print_help(info_help, false);
            return TOOL_EXIT_OK;
        }
        if (!tool_context_option(argc, argv, &i, &desc))
            tool_usage_error("unknown argument '%s'", argv[i]);
    }
    const char *env = getenv("GPGPU_BACKEND");
    if (desc.backend != GPGPU_BACKEND_DEFAULT || (env && *env))
        return info_for(&desc, false);
    /* No backend named: report every backend, one block each. */
    static const gpgpu_backend all[] = { GPGPU_BACKEND_GL, GPGPU_BACKEND_VULKAN };
    int best = TOOL_EXIT_NO_GPU;
    for (size_t b = 0; b < sizeof(all) / sizeof(all[0]); b++) {
        if (b > 0)
            putchar('\n');
        desc.backend = all[b];
        if (info_for(&desc, true) == TOOL_EXIT_OK)
            best = TOOL_EXIT_OK;
    }
    return best;
}

/* ---------------------------------------------------- vector input (reduce, scan) */

/* The options reduce and scan share. */
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

/* Returns true when argv[*i] was one of the shared options. */
static bool parse_vector_option(int argc, char **argv, int *i, vector_args *a)
{
    const char *value;

    if (tool_context_option(argc, argv, i, &a->desc))
        return true;
    if ((value = tool_option_value(argc, argv, i, "--type")) != NULL) {
        a->type = tool_parse_type(value);
    } else if ((value = tool_option_value(argc, argv, i, "--algo")) != NULL) {
        a->algo = tool_parse_algo(value);
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

/* An argument that no option took: the input file. */
static void parse_vector_operand(const char *arg, vector_args *a)
{
    if (arg[0] == '-')
        tool_usage_error("unknown option '%s'", arg);
    if (a->path != NULL)
        tool_usage_error("more than one input file ('%s' and '%s')", a->path, arg);
    a->path = arg;
}

static void check_vector_args(const vector_args *a)
{
    if (a->type == 0)
        tool_usage_error("--type is required");
    if (a->random && a->path != NULL)
        tool_usage_error("give an input file or --random, not both");
    if (!a->random && a->path == NULL)
        tool_usage_error("an input file or --random N is required");
}

static bool show_progress(const vector_args *a, size_t count)
{
    return !a->quiet && count > TOOL_PROGRESS_THRESHOLD;
}

/* Reads the input file; with --random there is nothing to read, only a count.
 * Runs before the context is made, so that a bad file is reported without
 * starting the GPU. */
static int read_input(const vector_args *a, void **data, size_t *count)
{
    char msg[512] = "";
    gpgpu_status status;

    *data = NULL;
    if (a->random) {
        *count = a->random_count;
        return TOOL_EXIT_OK;
    }
    status = gpgpu_mtx_read_vector(a->path, a->type, data, count, msg, sizeof(msg));
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot read the input", msg);
    return TOOL_EXIT_OK;
}

/* Creates the buffer and fills it with the file's data or random values. The
 * buffer holds at least one element: buffers cannot be empty, but the count
 * given to the primitives can be 0. */
static int upload_input(gpgpu_context *ctx, const vector_args *a, const void *data, size_t count,
                        gpgpu_buffer **buf)
{
    size_t size = gpgpu_type_size(a->type);
    gpgpu_status status = gpgpu_buffer_create(ctx, (count > 0 ? count : 1) * size, buf);

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot create a buffer", gpgpu_last_error(ctx));
    if (a->random) {
        if (show_progress(a, count))
            tool_message("generating and uploading %zu random values...", count);
        return tool_upload_random(ctx, *buf, a->type, count, a->seed);
    }
    if (count == 0)
        return TOOL_EXIT_OK;
    if (show_progress(a, count))
        tool_message("uploading %zu values...", count);
    status = gpgpu_buffer_upload(*buf, 0, data, count * size);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot upload", gpgpu_last_error(ctx));
    return TOOL_EXIT_OK;
}

/* Reads or generates the input, makes the context and uploads; the
 * command's work then runs on *buf. */
static int prepare(const vector_args *a, gpgpu_context **ctx, gpgpu_buffer **buf, size_t *count)
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

/* ----------------------------------------------------------------- reduce */

static gpgpu_op parse_op(const char *text)
{
    static const struct {
        const char *name;
        gpgpu_op op;
    } ops[] = {
        { "sum", GPGPU_OP_SUM },
        { "min", GPGPU_OP_MIN },
        { "max", GPGPU_OP_MAX },
        { "minmax", GPGPU_OP_MINMAX },
    };

    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        if (strcmp(ops[k].name, text) == 0)
            return ops[k].op;
    }
    tool_usage_error("--op: unknown operator '%s' (expected sum, min, max or minmax)", text);
}

static int run_reduce(gpgpu_context *ctx, const vector_args *a, gpgpu_op op, gpgpu_buffer *buf,
                      size_t count)
{
    gpgpu_reduce_desc desc = { .type = a->type, .op = op, .algo = a->algo };
    tool_reduce_result result;
    gpgpu_status status;

    if (show_progress(a, count))
        tool_message("running reduce...");
    status = gpgpu_reduce(ctx, &desc, buf, 0, count, &result);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "reduce", gpgpu_last_error(ctx));
    tool_print_value(stdout, a->type, &result);
    if (op == GPGPU_OP_MINMAX) {
        putchar(' ');
        tool_print_value(stdout, a->type,
                         (const unsigned char *)&result + gpgpu_type_size(a->type));
    }
    putchar('\n');
    return TOOL_EXIT_OK;
}

static int cmd_reduce(int argc, char **argv)
{
    vector_args a = { .seed = 1 };
    gpgpu_op op = 0;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *buf = NULL;
    size_t count;
    int rc;

    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(reduce_help, true);
            return TOOL_EXIT_OK;
        }
        if ((value = tool_option_value(argc, argv, &i, "--op")) != NULL)
            op = parse_op(value);
        else if (!parse_vector_option(argc, argv, &i, &a))
            parse_vector_operand(argv[i], &a);
    }
    if (op == 0)
        tool_usage_error("--op is required");
    check_vector_args(&a);

    rc = prepare(&a, &ctx, &buf, &count);
    if (rc == TOOL_EXIT_OK)
        rc = run_reduce(ctx, &a, op, buf, count);
    gpgpu_buffer_destroy(buf);
    gpgpu_context_destroy(ctx);
    return rc;
}

/* ------------------------------------------------------------------- scan */

/* Scans in place (halving the GPU memory needed), downloads and writes. */
static int run_scan(gpgpu_context *ctx, const vector_args *a, bool exclusive, gpgpu_buffer *buf,
                    size_t count, const char *out_path)
{
    gpgpu_scan_desc desc = { .type = a->type, .exclusive = exclusive, .algo = a->algo };
    size_t size = gpgpu_type_size(a->type);
    bool progress = show_progress(a, count);
    void *host = NULL;
    char msg[512] = "";
    gpgpu_status status;

    if (progress)
        tool_message("running scan...");
    status = gpgpu_scan(ctx, &desc, buf, 0, buf, 0, count);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "scan", gpgpu_last_error(ctx));
    if (count > 0) {
        host = malloc(count * size);
        if (host == NULL)
            return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot download the result",
                             "out of host memory");
        if (progress)
            tool_message("downloading...");
        status = gpgpu_buffer_download(buf, 0, host, count * size);
        if (status != GPGPU_SUCCESS) {
            free(host);
            return tool_fail(status, "cannot download the result", gpgpu_last_error(ctx));
        }
    }
    if (progress)
        tool_message("writing %s...", out_path);
    status = gpgpu_mtx_write_vector(out_path, a->type, host, count, msg, sizeof(msg));
    free(host);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot write the output", msg);
    return TOOL_EXIT_OK;
}

static int cmd_scan(int argc, char **argv)
{
    vector_args a = { .seed = 1 };
    bool inclusive = false, exclusive = false;
    const char *out_path = NULL;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *buf = NULL;
    size_t count;
    int rc;

    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(scan_help, true);
            return TOOL_EXIT_OK;
        }
        if (strcmp(argv[i], "--inclusive") == 0)
            inclusive = true;
        else if (strcmp(argv[i], "--exclusive") == 0)
            exclusive = true;
        else if ((value = tool_option_value(argc, argv, &i, "-o")) != NULL ||
                 (value = tool_option_value(argc, argv, &i, "--output")) != NULL)
            out_path = value;
        else if (!parse_vector_option(argc, argv, &i, &a))
            parse_vector_operand(argv[i], &a);
    }
    if (inclusive == exclusive)
        tool_usage_error("give one of --inclusive and --exclusive");
    if (out_path == NULL)
        tool_usage_error("-o OUT.mtx is required (- for standard output)");
    check_vector_args(&a);

    rc = prepare(&a, &ctx, &buf, &count);
    if (rc == TOOL_EXIT_OK)
        rc = run_scan(ctx, &a, exclusive, buf, count, out_path);
    gpgpu_buffer_destroy(buf);
    gpgpu_context_destroy(ctx);
    return rc;
}

/* ------------------------------------------------------------------- main */

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
    bool vector_input;
    const char *help_hint; /* what a usage error suggests */
} command;

static const command commands[] = {
    { "info", cmd_info, info_help, false, "gpgpu info --help" },
    { "reduce", cmd_reduce, reduce_help, true, "gpgpu reduce --help" },
    { "scan", cmd_scan, scan_help, true, "gpgpu scan --help" },
};

static const command *find_command(const char *name)
{
    for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
        if (strcmp(commands[k].name, name) == 0)
            return &commands[k];
    }
    tool_usage_error("unknown command '%s'", name);
}

int main(int argc, char **argv)
{
    const command *cmd;
    int rc;

    tool_set_program("gpgpu", "gpgpu --help");
    if (argc < 2) {
        fputs(main_help, stderr);
        return TOOL_EXIT_USAGE;
    }
    if (is_help(argv[1]) || (strcmp(argv[1], "help") == 0 && argc == 2)) {
        fputs(main_help, stdout);
        return TOOL_EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) {
        cmd = find_command(argv[2]);
        print_help(cmd->help, cmd->vector_input);
        return TOOL_EXIT_OK;
    }
    cmd = find_command(argv[1]);
    tool_set_program("gpgpu", cmd->help_hint);
    rc = cmd->run(argc - 1, argv + 1);
    /* Results go to stdout through stdio buffers: a full disk or a closed
     * pipe shows up only here. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int err = errno;
        if (rc == TOOL_EXIT_OK)
            rc = tool_fail(GPGPU_ERROR_IO, "cannot write to standard output", strerror(err));
    }
    return rc;
}
