/* gpgpu select: stream compaction and partition of a vector. */
#include "commands.h"

#include <gpgpu/io.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char select_help[] =
    "Usage: gpgpu select --type TYPE (--flags FLAGS.mtx | --where OP VALUE) [OPTIONS]\n"
    "                    (IN.mtx | --random N) -o OUT.mtx\n"
    "\n"
    "Stream compaction on the GPU: the elements whose flag is nonzero, or for which\n"
    "x OP VALUE holds, in input order, written as a MatrixMarket array. The kept\n"
    "count goes to stderr as 'selected: K'.\n"
    "\n"
    "  --flags FLAGS     a one-column integer file of N flags (u32, N the input's\n"
    "                    length): a nonzero flag keeps its element\n"
    "  --where OP VALUE  keeps x OP VALUE, OP one of lt, le, gt, ge, eq, ne; VALUE\n"
    "                    of the element type (floats: also nan, inf, -inf, -0), to\n"
    "                    which it is rounded; as C compares, a NaN is kept by ne\n"
    "                    alone and -0 equals 0\n"
    "  --partition       OUT holds all N elements: the kept ones, then the others,\n"
    "                    both in input order\n"
    "  --indices IDX     writes the 0-based input index of each output element (u32)\n"
    "  -o, --output OUT  the output; - is standard output\n"
    "  --algo ALGO       fast (the default: one pass where the GPU has subgroups),\n"
    "                    single-pass or reduce-then-scan\n";

typedef struct select_args {
    vector_args in;
    const char *flags_path;
    const char *op;    /* --where: the operator's name and the value as given */
    const char *value;
    bool partition;
    const char *out_path;
    const char *indices_path;
} select_args;

static gpgpu_compare parse_op(const char *text)
{
    static const char *const names[] = { "lt", "le", "gt", "ge", "eq", "ne" };

    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        if (strcmp(names[k], text) == 0)
            return (gpgpu_compare)(GPGPU_COMPARE_LT + k);
    }
    tool_usage_error("--where: unknown operator '%s' (expected lt, le, gt, ge, eq or ne)", text);
}

/* VALUE as the type takes it: an integer of the type's range, or any number strtod reads
 * (nan and inf included) for floats. */
static double parse_value(gpgpu_type type, const char *text)
{
    char *end;
    double value;

    errno = 0;
    if (type == GPGPU_TYPE_F32 || type == GPGPU_TYPE_F64) {
        value = strtod(text, &end);
        if (end == text || *end != '\0')
            tool_usage_error("--where: '%s' is not a number", text);
        return value;
    }
    long long v = strtoll(text, &end, 10);
    long long lo = type == GPGPU_TYPE_U32 ? 0 : INT32_MIN;
    long long hi = type == GPGPU_TYPE_U32 ? (long long)UINT32_MAX : INT32_MAX;
    if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        tool_usage_error("--where: '%s' is not an integer of type %s", text,
                         gpgpu_type_name(type));
    return (double)v;
}

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_select_args(int argc, char **argv, select_args *s)
{
    *s = (select_args){ .in = { .seed = 1 } };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(select_help, true);
            return false;
        }
        if (strcmp(argv[i], "--partition") == 0) {
            s->partition = true;
        } else if (strcmp(argv[i], "--where") == 0) {
            if (i + 2 >= argc)
                tool_usage_error("--where needs an operator and a value");
            s->op = argv[++i];
            s->value = argv[++i];
        } else if ((value = tool_option_value(argc, argv, &i, "--flags")) != NULL) {
            s->flags_path = value;
        } else if ((value = tool_option_value(argc, argv, &i, "--indices")) != NULL) {
            s->indices_path = value;
        } else if ((value = tool_option_value(argc, argv, &i, "--algo")) != NULL) {
            s->in.algo = tool_parse_select_algo(value);
        } else if ((value = tool_output_option(argc, argv, &i)) != NULL) {
            s->out_path = value;
        } else if (!parse_vector_option(argc, argv, &i, &s->in)) {
            parse_vector_operand(argv[i], &s->in);
        }
    }
    if (s->out_path == NULL)
        tool_usage_error("-o OUT.mtx is required (- for standard output)");
    if ((s->flags_path != NULL) == (s->op != NULL))
        tool_usage_error("give one of --flags FLAGS.mtx and --where OP VALUE");
    if (s->indices_path != NULL && strcmp(s->indices_path, s->out_path) == 0 &&
        strcmp(s->out_path, "/dev/null") != 0)
        tool_usage_error("-o and --indices name the same file ('%s')", s->out_path);
    check_vector_args(&s->in);
    if (s->op != NULL) { /* checked now, before any file is read */
        parse_op(s->op);
        parse_value(s->in.type, s->value);
    }
    return true;
}

bool cmd_select_parse(int argc, char **argv)
{
    select_args s;

    return parse_select_args(argc, argv, &s);
}

/* Reads the flags file: one u32 per input element. */
static int read_flags(const char *path, size_t n, uint32_t **flags)
{
    char msg[512] = "";
    size_t count = 0;
    gpgpu_status status =
        gpgpu_mtx_read_vector(path, GPGPU_TYPE_U32, (void **)flags, &count, msg, sizeof(msg));

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot read the flags", msg);
    if (count != n) {
        snprintf(msg, sizeof(msg), "%s holds %zu flags, the input %zu values", path, count, n);
        free(*flags);
        *flags = NULL;
        return tool_fail(GPGPU_ERROR_PARSE, "bad flags", msg);
    }
    return TOOL_EXIT_OK;
}

static int run_select(gpgpu_context *ctx, const select_args *s, size_t count, gpgpu_buffer *in,
                      gpgpu_buffer *flags)
{
    gpgpu_buffer *out = NULL, *indices = NULL;
    size_t size = gpgpu_type_size(s->in.type), selected = 0;
    gpgpu_select_desc desc = {
        .type = s->in.type,
        .flags = flags,
        .partition = s->partition,
        .algo = s->in.algo,
    };
    gpgpu_status status = gpgpu_buffer_create(ctx, (count > 0 ? count : 1) * size, &out);
    int rc;

    if (s->op != NULL) {
        desc.compare = parse_op(s->op);
        desc.value = parse_value(s->in.type, s->value);
    }
    if (status == GPGPU_SUCCESS && s->indices_path != NULL)
        status = gpgpu_buffer_create(ctx, (count > 0 ? count : 1) * 4, &indices);
    if (status != GPGPU_SUCCESS) {
        rc = tool_fail(status, "cannot create a buffer", gpgpu_last_error(ctx));
        goto done;
    }
    desc.indices_out = indices;
    tool_progress_step(long_step(count), "running select on %zu values...", count);
    status = gpgpu_select(ctx, &desc, in, 0, out, 0, count, &selected);
    if (status != GPGPU_SUCCESS) {
        rc = tool_fail(status, "select", gpgpu_last_error(ctx));
        goto done;
    }
    /* A result, not a message: the line alone, as the help says, --quiet or not. */
    fprintf(stderr, "selected: %zu\n", selected);
    size_t written = s->partition ? count : selected;
    rc = write_output(ctx, out, s->in.type, written, s->out_path);
    if (rc == TOOL_EXIT_OK && indices != NULL)
        rc = write_output(ctx, indices, GPGPU_TYPE_U32, written, s->indices_path);
done:
    gpgpu_buffer_destroy(indices);
    gpgpu_buffer_destroy(out);
    return rc;
}

int cmd_select(int argc, char **argv)
{
    select_args s;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *in = NULL, *flags = NULL;
    uint32_t *flag_data = NULL;
    void *data = NULL;
    size_t count = 0;
    int rc;

    if (!parse_select_args(argc, argv, &s))
        return TOOL_EXIT_OK;
    tool_progress_init(s.in.quiet);
    /* Every file is read and checked before the GPU starts. */
    rc = read_input(&s.in, &data, &count);
    if (rc == TOOL_EXIT_OK && s.flags_path != NULL)
        rc = read_flags(s.flags_path, count, &flag_data);
    if (rc == TOOL_EXIT_OK)
        rc = tool_context_create(&s.in.desc, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = upload_input(ctx, &s.in, data, count, &in);
    free(data);
    if (rc == TOOL_EXIT_OK && s.flags_path != NULL)
        rc = upload_array(ctx, flag_data, count, sizeof(uint32_t), &flags);
    free(flag_data);
    if (rc == TOOL_EXIT_OK)
        rc = run_select(ctx, &s, count, in, flags);
    gpgpu_buffer_destroy(flags);
    gpgpu_buffer_destroy(in);
    tool_context_destroy(ctx);
    return rc;
}
