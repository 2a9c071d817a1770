/* gpgpu histogram: counts of a vector's values in even bins or between given levels. */
#include "commands.h"

#include <gpgpu/io.h>

#include <stdlib.h>
#include <string.h>

const char histogram_help[] =
    "Usage: gpgpu histogram --type TYPE --bins B (--range LO HI | --levels LEVELS.mtx)\n"
    "                       [OPTIONS] (IN.mtx | --random N) -o COUNTS.mtx\n"
    "\n"
    "Counts the values of a vector in B bins on the GPU and writes the B counts\n"
    "as a MatrixMarket integer array. Values outside the bins and NaN count in\n"
    "none; -0 equals +0.\n"
    "\n"
    "  --bins B          1 to 65536 bins\n"
    "  --range LO HI     even bins over [LO, HI): for u32 and i32 (LO, HI values of\n"
    "                    the type) the bin of v is floor((v - LO) * B / (HI - LO));\n"
    "                    for f32 and f64 CUB's (v - LO) * (B / (HI - LO)) in the type\n"
    "  --levels FILE     B + 1 nondecreasing values of TYPE instead: bin i holds\n"
    "                    LEVELS[i] <= v < LEVELS[i + 1]\n"
    "  -o, --output OUT  the counts; - is standard output\n";

typedef struct histogram_args {
    vector_args in;
    uint32_t bins;
    bool range;
    double lo, hi;
    const char *levels_path;
    const char *out_path;
} histogram_args;

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_histogram_args(int argc, char **argv, histogram_args *h)
{
    *h = (histogram_args){ .in = { .seed = 1 } };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(histogram_help, true);
            return false;
        }
        if (strcmp(argv[i], "--range") == 0) {
            if (i + 2 >= argc)
                tool_usage_error("option --range needs two values, LO and HI");
            h->lo = tool_parse_double("--range", argv[i + 1]);
            h->hi = tool_parse_double("--range", argv[i + 2]);
            h->range = true;
            i += 2;
        } else if ((value = tool_option_value(argc, argv, &i, "--bins")) != NULL) {
            h->bins = (uint32_t)tool_parse_uint("--bins", value, 1, GPGPU_HISTOGRAM_MAX_BINS);
        } else if ((value = tool_option_value(argc, argv, &i, "--levels")) != NULL) {
            h->levels_path = value;
        } else if ((value = tool_output_option(argc, argv, &i)) != NULL) {
            h->out_path = value;
        } else if (strncmp(argv[i], "--algo", 6) == 0) {
            tool_usage_error("unknown option '%s' (histogram has one algorithm)", argv[i]);
        } else if (!parse_vector_option(argc, argv, &i, &h->in)) {
            parse_vector_operand(argv[i], &h->in);
        }
    }
    if (h->bins == 0)
        tool_usage_error("--bins is required");
    if (h->range == (h->levels_path != NULL))
        tool_usage_error("give one of --range LO HI and --levels FILE");
    if (h->out_path == NULL)
        tool_usage_error("-o COUNTS.mtx is required (- for standard output)");
    check_vector_args(&h->in);
    return true;
}

bool cmd_histogram_parse(int argc, char **argv)
{
    histogram_args h;

    return parse_histogram_args(argc, argv, &h);
}

/* Reads the levels: bins + 1 of them. Their order the library does not check (unsorted
 * levels give it unspecified counts), so it is checked here. */
static int read_levels(const histogram_args *h, void **levels)
{
    char msg[512] = "", detail[600];
    size_t count;
    gpgpu_status status = gpgpu_mtx_read_vector(h->levels_path, h->in.type, levels, &count, msg,
                                                sizeof(msg));

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot read the levels", msg);
    detail[0] = '\0';
    if (count != (size_t)h->bins + 1) {
        snprintf(detail, sizeof(detail), "%s has %zu levels; %u bins need %u", h->levels_path,
                 count, h->bins, h->bins + 1);
    } else {
        for (size_t k = 1; k < count && detail[0] == '\0'; k++) {
            double a, b;
            const char *p = *levels;

            switch (h->in.type) {
            case GPGPU_TYPE_U32:
                a = ((const uint32_t *)p)[k - 1], b = ((const uint32_t *)p)[k];
                break;
            case GPGPU_TYPE_I32:
                a = ((const int32_t *)p)[k - 1], b = ((const int32_t *)p)[k];
                break;
            case GPGPU_TYPE_F32: a = ((const float *)p)[k - 1], b = ((const float *)p)[k]; break;
            default: a = ((const double *)p)[k - 1], b = ((const double *)p)[k]; break;
            }
            if (!(a <= b))
                snprintf(detail, sizeof(detail),
                         "%s: level %zu (%.17g) is below level %zu (%.17g) or NaN: the levels "
                         "must be nondecreasing", h->levels_path, k, b, k - 1, a);
        }
    }
    if (detail[0] != '\0') {
        free(*levels);
        *levels = NULL;
        return tool_fail(GPGPU_ERROR_PARSE, "bad levels", detail);
    }
    return TOOL_EXIT_OK;
}

static int run_histogram(gpgpu_context *ctx, const histogram_args *h, gpgpu_buffer *in,
                         size_t count, gpgpu_buffer *levels)
{
    gpgpu_histogram_desc desc = { .type = h->in.type, .bins = h->bins, .lower = h->lo,
                                  .upper = h->hi, .levels = levels };
    gpgpu_buffer *counts = NULL;
    void *host = NULL;
    char msg[512] = "";
    gpgpu_status status = gpgpu_buffer_create(ctx, (size_t)h->bins * 4, &counts);
    int rc;

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot create a buffer", gpgpu_last_error(ctx));
    tool_progress_step(long_step(count), "running histogram on %zu values...", count);
    status = gpgpu_histogram(ctx, &desc, in, 0, count, counts, 0);
    if (status != GPGPU_SUCCESS) {
        gpgpu_buffer_destroy(counts);
        return tool_fail(status, "histogram", gpgpu_last_error(ctx));
    }
    rc = download_output(ctx, counts, h->bins, 4, &host);
    gpgpu_buffer_destroy(counts);
    if (rc != TOOL_EXIT_OK)
        return rc;
    status = gpgpu_mtx_write_vector(h->out_path, GPGPU_TYPE_U32, host, h->bins, msg, sizeof(msg));
    free(host);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot write the output", msg);
    return TOOL_EXIT_OK;
}

int cmd_histogram(int argc, char **argv)
{
    histogram_args h;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *in = NULL, *levels = NULL;
    void *data = NULL, *level_data = NULL;
    size_t count = 0;
    int rc;

    if (!parse_histogram_args(argc, argv, &h))
        return TOOL_EXIT_OK;
    tool_progress_init(h.in.quiet);
    /* Every file is read and checked before the GPU starts. */
    rc = read_input(&h.in, &data, &count);
    if (rc == TOOL_EXIT_OK && h.levels_path != NULL)
        rc = read_levels(&h, &level_data);
    if (rc == TOOL_EXIT_OK)
        rc = tool_context_create(&h.in.desc, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = upload_input(ctx, &h.in, data, count, &in);
    if (rc == TOOL_EXIT_OK && level_data != NULL) {
        size_t bytes = ((size_t)h.bins + 1) * gpgpu_type_size(h.in.type);
        gpgpu_status status = gpgpu_buffer_create(ctx, bytes, &levels);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_upload(levels, 0, level_data, bytes);
        if (status != GPGPU_SUCCESS)
            rc = tool_fail(status, "cannot upload the levels", gpgpu_last_error(ctx));
    }
    free(data);
    free(level_data);
    if (rc == TOOL_EXIT_OK)
        rc = run_histogram(ctx, &h, in, count, levels);
    gpgpu_buffer_destroy(levels);
    gpgpu_buffer_destroy(in);
    tool_context_destroy(ctx);
    return rc;
}
