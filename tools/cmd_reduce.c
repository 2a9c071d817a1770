/* gpgpu reduce: sum, min, max or min and max of a vector. */
#include "commands.h"

#include <string.h>

const char reduce_help[] =
    "Usage: gpgpu reduce --op OP --type TYPE [OPTIONS] (IN.mtx | --random N)\n"
    "\n"
    "Reduces a vector on the GPU and prints the result: integers in full, floats\n"
    "with 17 significant digits; --op minmax prints 'MIN MAX'. Integer sums\n"
    "wrap modulo 2^32, as the GPU adds them (a u32 sum past 4294967295 prints\n"
    "its remainder, i32 sums are two's complement): use f64 for larger sums.\n"
    "An empty vector gives the identity (0; the largest, smallest value or\n"
    "+-inf for min, max).\n"
    "\n"
    "  --op OP           sum, min, max or minmax\n"
    "  --algo ALGO       fast (default), halving, stride, or minmax (--op minmax)\n";

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

typedef struct reduce_args {
    vector_args in;
    gpgpu_op op;
} reduce_args;

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_reduce_args(int argc, char **argv, reduce_args *r)
{
    *r = (reduce_args){ .in = { .seed = 1 } };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(reduce_help, true);
            return false;
        }
        if ((value = tool_option_value(argc, argv, &i, "--op")) != NULL)
            r->op = parse_op(value);
        else if ((value = tool_option_value(argc, argv, &i, "--algo")) != NULL)
            r->in.algo = tool_parse_reduce_algo(value);
        else if (!parse_vector_option(argc, argv, &i, &r->in))
            parse_vector_operand(argv[i], &r->in);
    }
    if (r->op == 0)
        tool_usage_error("--op is required");
    if (r->in.algo == GPGPU_ALGO_CLASSIC_MINMAX && r->op != GPGPU_OP_MINMAX)
        tool_usage_error("--algo minmax (GPUfindMinMax) computes min and max together: it "
                         "needs --op minmax");
    check_vector_args(&r->in);
    return true;
}

bool cmd_reduce_parse(int argc, char **argv)
{
    reduce_args r;

    return parse_reduce_args(argc, argv, &r);
}

static int run_reduce(gpgpu_context *ctx, const vector_args *a, gpgpu_op op, gpgpu_buffer *buf,
                      size_t count)
{
    gpgpu_reduce_desc desc = { .type = a->type, .op = op, .algo = a->algo };
    tool_reduce_result result;
    gpgpu_status status;

    tool_progress_step(long_step(count), "running reduce on %zu values...", count);
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

int cmd_reduce(int argc, char **argv)
{
    reduce_args r;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *buf = NULL;
    size_t count;
    int rc;

    if (!parse_reduce_args(argc, argv, &r))
        return TOOL_EXIT_OK;
    tool_progress_init(r.in.quiet);
    rc = prepare(&r.in, &ctx, &buf, &count);
    if (rc == TOOL_EXIT_OK)
        rc = run_reduce(ctx, &r.in, r.op, buf, count);
    gpgpu_buffer_destroy(buf);
    tool_context_destroy(ctx);
    return rc;
}
