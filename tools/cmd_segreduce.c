/* gpgpu segreduce: the sum, minimum or maximum of each segment of a vector. */
#include "commands.h"

#include <gpgpu/io.h>

#include <stdlib.h>
#include <string.h>

const char segreduce_help[] =
    "Usage: gpgpu segreduce --op OP --type TYPE --segments OFFSETS.mtx [OPTIONS]\n"
    "                       (IN.mtx | --random N) -o OUT.mtx\n"
    "\n"
    "Reduces each segment of a vector on the GPU and writes one value per segment\n"
    "as a MatrixMarket array. An empty segment gives the identity (0 for sum, the\n"
    "largest value or inf for min, the smallest or -inf for max); integer sums\n"
    "wrap modulo 2^32; NaN propagates through min and max.\n"
    "\n"
    "  --op OP           sum, min or max\n"
    "  --segments OFFS   a one-column integer file of S + 1 offsets, 0 first,\n"
    "                    N (the number of values) last, nondecreasing (a CSR\n"
    "                    matrix's row pointers): segment s is [OFFS[s], OFFS[s+1])\n"
    "  -o, --output OUT  the S values; - is standard output\n";

typedef struct segreduce_args {
    vector_args in;
    gpgpu_op op;
    const char *segments_path;
    const char *out_path;
} segreduce_args;

static gpgpu_op parse_op(const char *text)
{
    if (strcmp(text, "sum") == 0)
        return GPGPU_OP_SUM;
    if (strcmp(text, "min") == 0)
        return GPGPU_OP_MIN;
    if (strcmp(text, "max") == 0)
        return GPGPU_OP_MAX;
    tool_usage_error("--op: unknown operator '%s' (expected sum, min or max)", text);
}

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_segreduce_args(int argc, char **argv, segreduce_args *s)
{
    *s = (segreduce_args){ .in = { .seed = 1 } };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(segreduce_help, true);
            return false;
        }
        if ((value = tool_option_value(argc, argv, &i, "--op")) != NULL)
            s->op = parse_op(value);
        else if ((value = tool_option_value(argc, argv, &i, "--segments")) != NULL)
            s->segments_path = value;
        else if ((value = tool_output_option(argc, argv, &i)) != NULL)
            s->out_path = value;
        else if (strncmp(argv[i], "--algo", 6) == 0)
            tool_usage_error("unknown option '%s' (segreduce has one algorithm)", argv[i]);
        else if (!parse_vector_option(argc, argv, &i, &s->in))
            parse_vector_operand(argv[i], &s->in);
    }
    if (s->op == 0)
        tool_usage_error("--op is required");
    if (s->segments_path == NULL)
        tool_usage_error("--segments OFFSETS.mtx is required");
    if (s->out_path == NULL)
        tool_usage_error("-o OUT.mtx is required (- for standard output)");
    check_vector_args(&s->in);
    return true;
}

bool cmd_segreduce_parse(int argc, char **argv)
{
    segreduce_args s;

    return parse_segreduce_args(argc, argv, &s);
}

static int run_segreduce(gpgpu_context *ctx, const segreduce_args *s, gpgpu_buffer *in,
                         size_t count, gpgpu_buffer *segments, size_t segment_count)
{
    gpgpu_segmented_reduce_desc desc = { .type = s->in.type, .op = s->op, .segments = segments };
    size_t size = gpgpu_type_size(s->in.type);
    gpgpu_buffer *out = NULL;
    void *host = NULL;
    char msg[512] = "";
    gpgpu_status status =
        gpgpu_buffer_create(ctx, (segment_count > 0 ? segment_count : 1) * size, &out);
    int rc;

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot create a buffer", gpgpu_last_error(ctx));
    tool_progress_step(long_step(count), "running segreduce on %zu values...", count);
    status = gpgpu_segmented_reduce(ctx, &desc, in, 0, count, out, 0, segment_count);
    if (status != GPGPU_SUCCESS) {
        gpgpu_buffer_destroy(out);
        return tool_fail(status, "segreduce", gpgpu_last_error(ctx));
    }
    rc = download_output(ctx, out, segment_count, size, &host);
    gpgpu_buffer_destroy(out);
    if (rc != TOOL_EXIT_OK)
        return rc;
    status = gpgpu_mtx_write_vector(s->out_path, s->in.type, host, segment_count, msg,
                                    sizeof(msg));
    free(host);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot write the output", msg);
    return TOOL_EXIT_OK;
}

int cmd_segreduce(int argc, char **argv)
{
    segreduce_args s;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *in = NULL, *segments = NULL;
    uint32_t *offsets = NULL;
    void *data = NULL;
    size_t count = 0, offset_count = 0;
    int rc;

    if (!parse_segreduce_args(argc, argv, &s))
        return TOOL_EXIT_OK;
    tool_progress_init(s.in.quiet);
    /* Every file is read and checked before the GPU starts. */
    rc = read_input(&s.in, &data, &count);
    if (rc == TOOL_EXIT_OK)
        rc = read_offsets(s.segments_path, count, &offsets, &offset_count);
    if (rc == TOOL_EXIT_OK)
        rc = tool_context_create(&s.in.desc, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = upload_input(ctx, &s.in, data, count, &in);
    if (rc == TOOL_EXIT_OK) {
        gpgpu_status status = gpgpu_buffer_create(ctx, offset_count * 4, &segments);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_upload(segments, 0, offsets, offset_count * 4);
        if (status != GPGPU_SUCCESS)
            rc = tool_fail(status, "cannot upload the segment offsets", gpgpu_last_error(ctx));
    }
    free(data);
    free(offsets);
    if (rc == TOOL_EXIT_OK)
        rc = run_segreduce(ctx, &s, in, count, segments, offset_count - 1);
    gpgpu_buffer_destroy(segments);
    gpgpu_buffer_destroy(in);
    tool_context_destroy(ctx);
    return rc;
}
