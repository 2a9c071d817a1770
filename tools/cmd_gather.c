/* gpgpu gather: out[i] = in[idx[i]] for a vector and a file of indices. */
#include "commands.h"

#include <gpgpu/io.h>

#include <stdlib.h>
#include <string.h>

const char gather_help[] =
    "Usage: gpgpu gather --type TYPE --indices IDX.mtx [OPTIONS] (IN.mtx | --random N)\n"
    "                    -o OUT.mtx\n"
    "\n"
    "Gathers on the GPU: OUT[i] = IN[IDX[i]] for each of the M indices, written as a\n"
    "MatrixMarket array of M values (IN's values are moved as they are: -0 and the\n"
    "bits of a NaN too). An index past IN's last value is refused (exit 2) before\n"
    "anything is written.\n"
    "\n"
    "  --indices IDX     a one-column integer file of 0-based indices (u32)\n"
    "  -o, --output OUT  the output; - is standard output\n";

typedef struct gather_args {
    vector_args in;
    const char *indices_path;
    const char *out_path;
} gather_args;

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_gather_args(int argc, char **argv, gather_args *g)
{
    *g = (gather_args){ .in = { .seed = 1 } };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(gather_help, true);
            return false;
        }
        if ((value = tool_option_value(argc, argv, &i, "--indices")) != NULL)
            g->indices_path = value;
        else if ((value = tool_output_option(argc, argv, &i)) != NULL)
            g->out_path = value;
        else if (!parse_vector_option(argc, argv, &i, &g->in))
            parse_vector_operand(argv[i], &g->in);
    }
    if (g->out_path == NULL)
        tool_usage_error("-o OUT.mtx is required (- for standard output)");
    if (g->indices_path == NULL)
        tool_usage_error("--indices IDX.mtx is required");
    check_vector_args(&g->in);
    return true;
}

bool cmd_gather_parse(int argc, char **argv)
{
    gather_args g;

    return parse_gather_args(argc, argv, &g);
}

static int run_gather(gpgpu_context *ctx, const gather_args *g, gpgpu_buffer *in,
                      size_t in_count, gpgpu_buffer *indices, size_t count)
{
    size_t size = gpgpu_type_size(g->in.type);
    gpgpu_gather_desc desc = { .record_bytes = size };
    gpgpu_buffer *out = NULL;
    gpgpu_status status = gpgpu_buffer_create(ctx, (count > 0 ? count : 1) * size, &out);
    int rc;

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot create a buffer", gpgpu_last_error(ctx));
    tool_progress_step(long_step(count), "running gather on %zu values...", count);
    status = gpgpu_gather(ctx, &desc, in, 0, in_count, indices, 0, out, 0, count);
    if (status != GPGPU_SUCCESS)
        rc = tool_fail(status, "gather", gpgpu_last_error(ctx));
    else
        rc = write_output(ctx, out, g->in.type, count, g->out_path);
    gpgpu_buffer_destroy(out);
    return rc;
}

int cmd_gather(int argc, char **argv)
{
    gather_args g;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *in = NULL, *indices = NULL;
    uint32_t *index_data = NULL;
    void *data = NULL;
    size_t count = 0, index_count = 0;
    char msg[512] = "";
    int rc;

    if (!parse_gather_args(argc, argv, &g))
        return TOOL_EXIT_OK;
    tool_progress_init(g.in.quiet);
    /* Both files are read and checked before the GPU starts. */
    rc = read_input(&g.in, &data, &count);
    if (rc == TOOL_EXIT_OK) {
        gpgpu_status status = gpgpu_mtx_read_vector(g.indices_path, GPGPU_TYPE_U32,
                                                    (void **)&index_data, &index_count, msg,
                                                    sizeof(msg));
        if (status != GPGPU_SUCCESS)
            rc = tool_fail(status, "cannot read the indices", msg);
    }
    if (rc == TOOL_EXIT_OK)
        rc = tool_context_create(&g.in.desc, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = upload_input(ctx, &g.in, data, count, &in);
    free(data);
    if (rc == TOOL_EXIT_OK)
        rc = upload_array(ctx, index_data, index_count, sizeof(uint32_t), &indices);
    free(index_data);
    if (rc == TOOL_EXIT_OK)
        rc = run_gather(ctx, &g, in, count, indices, index_count);
    gpgpu_buffer_destroy(indices);
    gpgpu_buffer_destroy(in);
    tool_context_destroy(ctx);
    return rc;
}
