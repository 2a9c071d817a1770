/* gpgpu rle: run-length encoding of a vector, and reduce-by-key over its runs. */
#include "commands.h"

#include <gpgpu/io.h>

#include <stdlib.h>
#include <string.h>

const char rle_help[] =
    "Usage: gpgpu rle --type TYPE [OPTIONS] (IN.mtx | --random N) -o VALUES.mtx\n"
    "                 [--counts COUNTS.mtx] [--values V.mtx --sums SUMS.mtx]\n"
    "\n"
    "Run-length encoding on the GPU: the first value of each run of equal\n"
    "consecutive values to VALUES, and the run lengths to COUNTS (integers).\n"
    "Values are equal in the sort's total order: every NaN is one value, -0\n"
    "and +0 are two. The run count is printed on stderr as 'runs: R'.\n"
    "\n"
    "  -o, --output OUT  the runs' values; - is standard output\n"
    "  --counts FILE     the run lengths\n"
    "  --values FILE     reduce-by-key: a vector of as many values as IN (of\n"
    "                    --value-type, default TYPE), summed over each run\n"
    "  --sums FILE       where those sums go (with --values)\n"
    "  --value-type T    the type of --values: u32, i32, f32 or f64\n";

typedef struct rle_args {
    vector_args in;
    const char *out_path, *counts_path, *values_path, *sums_path;
    gpgpu_type value_type;
} rle_args;

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_rle_args(int argc, char **argv, rle_args *r)
{
    *r = (rle_args){ .in = { .seed = 1 } };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(rle_help, true);
            return false;
        }
        if ((value = tool_output_option(argc, argv, &i)) != NULL)
            r->out_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--counts")) != NULL)
            r->counts_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--values")) != NULL)
            r->values_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--sums")) != NULL)
            r->sums_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--value-type")) != NULL)
            r->value_type = tool_parse_type(value);
        else if (strncmp(argv[i], "--algo", 6) == 0)
            tool_usage_error("unknown option '%s' (rle has one algorithm)", argv[i]);
        else if (!parse_vector_option(argc, argv, &i, &r->in))
            parse_vector_operand(argv[i], &r->in);
    }
    if (r->out_path == NULL)
        tool_usage_error("-o VALUES.mtx is required (- for standard output)");
    if ((r->values_path == NULL) != (r->sums_path == NULL))
        tool_usage_error("--values and --sums go together");
    if (r->value_type != 0 && r->values_path == NULL)
        tool_usage_error("--value-type is the type of --values");
    check_vector_args(&r->in);
    if (r->value_type == 0)
        r->value_type = r->in.type;
    return true;
}

bool cmd_rle_parse(int argc, char **argv)
{
    rle_args r;

    return parse_rle_args(argc, argv, &r);
}

/* Downloads `count` elements of buf and writes them to path. */
static int write_elements(gpgpu_context *ctx, gpgpu_buffer *buf, gpgpu_type type, size_t count,
                          const char *path)
{
    void *host = NULL;
    char msg[512] = "";
    int rc = download_output(ctx, buf, count, gpgpu_type_size(type), &host);

    if (rc != TOOL_EXIT_OK)
        return rc;
    gpgpu_status status = gpgpu_mtx_write_vector(path, type, host, count, msg, sizeof(msg));
    free(host);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot write the output", msg);
    return TOOL_EXIT_OK;
}

/* A buffer of at least one element of `size` bytes. */
static int make_buffer(gpgpu_context *ctx, size_t count, size_t size, gpgpu_buffer **buf)
{
    gpgpu_status status = gpgpu_buffer_create(ctx, (count > 0 ? count : 1) * size, buf);

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot create a buffer", gpgpu_last_error(ctx));
    return TOOL_EXIT_OK;
}

static int run_rle(gpgpu_context *ctx, const rle_args *r, gpgpu_buffer *keys, size_t count,
                   gpgpu_buffer *values)
{
    gpgpu_rle_desc desc = { .type = r->in.type, .value_type = r->value_type };
    gpgpu_buffer *unique = NULL, *lengths = NULL, *sums = NULL;
    size_t runs = 0;
    gpgpu_status status;
    int rc = make_buffer(ctx, count, gpgpu_type_size(r->in.type), &unique);

    if (rc == TOOL_EXIT_OK && r->counts_path != NULL)
        rc = make_buffer(ctx, count, 4, &lengths);
    if (rc == TOOL_EXIT_OK && values != NULL)
        rc = make_buffer(ctx, count, gpgpu_type_size(r->value_type), &sums);
    if (rc == TOOL_EXIT_OK) {
        tool_progress_step(long_step(count), "running rle on %zu values...", count);
        status = gpgpu_run_length_encode(ctx, &desc, keys, 0, count, unique, 0, lengths, 0,
                                         &runs);
        if (status == GPGPU_SUCCESS && values != NULL)
            status = gpgpu_reduce_by_key(ctx, &desc, keys, 0, values, 0, count, NULL, 0, sums,
                                         0, NULL);
        if (status != GPGPU_SUCCESS)
            rc = tool_fail(status, "rle", gpgpu_last_error(ctx));
    }
    if (rc == TOOL_EXIT_OK) {
        tool_message("runs: %zu", runs);
        rc = write_elements(ctx, unique, r->in.type, runs, r->out_path);
    }
    if (rc == TOOL_EXIT_OK && lengths != NULL)
        rc = write_elements(ctx, lengths, GPGPU_TYPE_U32, runs, r->counts_path);
    if (rc == TOOL_EXIT_OK && sums != NULL)
        rc = write_elements(ctx, sums, r->value_type, runs, r->sums_path);
    gpgpu_buffer_destroy(sums);
    gpgpu_buffer_destroy(lengths);
    gpgpu_buffer_destroy(unique);
    return rc;
}

/* Reads the values of reduce-by-key: as many as there are keys. */
static int read_values(const rle_args *r, size_t count, void **values)
{
    char msg[512] = "";
    size_t n;
    gpgpu_status status =
        gpgpu_mtx_read_vector(r->values_path, r->value_type, values, &n, msg, sizeof(msg));

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot read the values", msg);
    if (n != count) {
        snprintf(msg, sizeof(msg), "%s has %zu values, but the input has %zu", r->values_path,
                 n, count);
        free(*values);
        *values = NULL;
        return tool_fail(GPGPU_ERROR_PARSE, "length mismatch", msg);
    }
    return TOOL_EXIT_OK;
}

int cmd_rle(int argc, char **argv)
{
    rle_args r;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *keys = NULL, *values = NULL;
    void *data = NULL, *value_data = NULL;
    size_t count = 0;
    int rc;

    if (!parse_rle_args(argc, argv, &r))
        return TOOL_EXIT_OK;
    tool_progress_init(r.in.quiet);
    /* Every file is read and checked before the GPU starts. */
    rc = read_input(&r.in, &data, &count);
    if (rc == TOOL_EXIT_OK && r.values_path != NULL)
        rc = read_values(&r, count, &value_data);
    if (rc == TOOL_EXIT_OK)
        rc = tool_context_create(&r.in.desc, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = upload_input(ctx, &r.in, data, count, &keys);
    if (rc == TOOL_EXIT_OK && r.values_path != NULL) {
        size_t bytes = count * gpgpu_type_size(r.value_type);
        rc = make_buffer(ctx, count, gpgpu_type_size(r.value_type), &values);
        if (rc == TOOL_EXIT_OK && bytes > 0) {
            gpgpu_status status = gpgpu_buffer_upload(values, 0, value_data, bytes);
            if (status != GPGPU_SUCCESS)
                rc = tool_fail(status, "cannot upload the values", gpgpu_last_error(ctx));
        }
    }
    free(data);
    free(value_data);
    if (rc == TOOL_EXIT_OK)
        rc = run_rle(ctx, &r, keys, count, values);
    gpgpu_buffer_destroy(values);
    gpgpu_buffer_destroy(keys);
    tool_context_destroy(ctx);
    return rc;
}
