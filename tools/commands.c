/* The help printing and the vector input options shared by the commands. */
#include "commands.h"

#include <gpgpu/io.h>

#include <stdlib.h>
#include <string.h>

const char vector_options_help[] =
    "  --type TYPE       u32, i32, f32 or f64\n"
    "  IN.mtx            a MatrixMarket vector (one column or one row)\n"
    "  --random N        N random nonzero values instead of a file: u32 in\n"
    "                    [1, 1000], i32 in [-1000, 1000], f32 and f64 in\n"
    "                    [0.5, 1.5) with a random sign\n"
    "  --seed S          seed of --random (default 1); the same N and S give\n"
    "                    the same values on every machine\n"
    "  --quiet           no progress lines on stderr (given above 2^24 values)\n";

void print_help(const char *command_help, bool vector_input)
{
    fputs(command_help, stdout);
    if (vector_input)
        fputs(vector_options_help, stdout);
    fputs(tool_context_options_help, stdout);
    fputs(tool_help_footer, stdout);
}

bool is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

bool parse_vector_option(int argc, char **argv, int *i, vector_args *a)
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

void parse_vector_operand(const char *arg, vector_args *a)
{
    if (arg[0] == '-')
        tool_usage_error("unknown option '%s'", arg);
    if (a->path != NULL)
        tool_usage_error("more than one input file ('%s' and '%s')", a->path, arg);
    a->path = arg;
}

void check_vector_args(const vector_args *a)
{
    if (a->type == 0)
        tool_usage_error("--type is required");
    if (a->random && a->path != NULL)
        tool_usage_error("give an input file or --random, not both");
    if (!a->random && a->path == NULL)
        tool_usage_error("an input file or --random N is required");
}

bool show_progress(const vector_args *a, size_t count)
{
    return !a->quiet && count > TOOL_PROGRESS_THRESHOLD;
}

int read_input(const vector_args *a, void **data, size_t *count)
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

/* The buffer holds at least one element: buffers cannot be empty, but the
 * count given to the primitives can be 0. */
int upload_input(gpgpu_context *ctx, const vector_args *a, const void *data, size_t count,
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

int prepare(const vector_args *a, gpgpu_context **ctx, gpgpu_buffer **buf, size_t *count)
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

int download_output(gpgpu_context *ctx, gpgpu_buffer *buf, size_t count, size_t size,
                    void **host)
{
    gpgpu_status status;

    *host = NULL;
    if (count == 0)
        return TOOL_EXIT_OK;
    *host = malloc(count * size);
    if (*host == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot download the result",
                         "out of host memory");
    status = gpgpu_buffer_download(buf, 0, *host, count * size);
    if (status != GPGPU_SUCCESS) {
        free(*host);
        *host = NULL;
        return tool_fail(status, "cannot download the result", gpgpu_last_error(ctx));
    }
    return TOOL_EXIT_OK;
}
