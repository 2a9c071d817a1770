/* gpgpu sort: sorts a vector, whole or by segments, with its permutation. */
#include "commands.h"

#include <gpgpu/io.h>

#include <stdlib.h>
#include <string.h>

const char sort_help[] =
    "Usage: gpgpu sort --type TYPE [OPTIONS] (IN.mtx | --random N) -o OUT.mtx\n"
    "                  [--perm PERM.mtx] [--segments OFFSETS.mtx]\n"
    "\n"
    "Sorts a vector on the GPU and writes it as a MatrixMarket array. Floats\n"
    "sort by one total order, -inf < negatives < -0 < +0 < positives < inf <\n"
    "nan, all NaNs equal; keys are moved, never rewritten, so -0 and -nan come\n"
    "out as they went in. Files may hold nan, inf and -inf (any case; also\n"
    "+inf, infinity, -nan, nan(...)), and -0 is written as -0.\n"
    "\n"
    "  -o, --output OUT  the sorted keys; - is standard output\n"
    "  --descending      largest first: the exact reverse order (NaNs first)\n"
    "  --stable          equal keys keep their input order (radix always does)\n"
    "  --algo ALGO       classic (the slides' GPUNetSort, one dispatch per\n"
    "                    step), bitonic, radix, or fast (the default: the\n"
    "                    library picks by size)\n"
    "  --perm PERM       writes the 0-based input index of each output key (u32)\n"
    "  --segments OFFS   a one-column integer file of S + 1 offsets, 0 first,\n"
    "                    N (the number of keys) last, nondecreasing: each\n"
    "                    [OFFS[s], OFFS[s+1]) is sorted alone, and PERM holds\n"
    "                    indices into the whole input\n";

typedef struct sort_args {
    vector_args in;
    bool descending;
    bool stable;
    const char *out_path;
    const char *perm_path;     /* NULL: no permutation */
    const char *segments_path; /* NULL: one segment */
} sort_args;

/* The sort's own names: "classic" is the classic sort here, not the scan. */
static gpgpu_algo parse_sort_algo(const char *text)
{
    static const struct {
        const char *name;
        gpgpu_algo algo;
    } algos[] = {
        { "classic", GPGPU_ALGO_CLASSIC_NETSORT },
        { "bitonic", GPGPU_ALGO_BITONIC },
        { "radix", GPGPU_ALGO_RADIX },
        { "fast", GPGPU_ALGO_DEFAULT },
    };

    for (size_t k = 0; k < sizeof(algos) / sizeof(algos[0]); k++) {
        if (strcmp(algos[k].name, text) == 0)
            return algos[k].algo;
    }
    tool_usage_error("--algo: unknown value '%s' for sort (expected classic, bitonic, radix, "
                     "fast)", text);
}

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_sort_args(int argc, char **argv, sort_args *s)
{
    *s = (sort_args){ .in = { .seed = 1 } };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(sort_help, true);
            return false;
        }
        if (strcmp(argv[i], "--descending") == 0)
            s->descending = true;
        else if (strcmp(argv[i], "--stable") == 0)
            s->stable = true;
        else if ((value = tool_option_value(argc, argv, &i, "--algo")) != NULL)
            s->in.algo = parse_sort_algo(value);
        else if ((value = tool_output_option(argc, argv, &i)) != NULL)
            s->out_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--perm")) != NULL)
            s->perm_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--segments")) != NULL)
            s->segments_path = value;
        else if (!parse_vector_option(argc, argv, &i, &s->in))
            parse_vector_operand(argv[i], &s->in);
    }
    if (s->out_path == NULL)
        tool_usage_error("-o OUT.mtx is required (- for standard output)");
    /* One file cannot hold both (/dev/null can take anything). */
    if (s->perm_path != NULL && strcmp(s->perm_path, s->out_path) == 0 &&
        strcmp(s->out_path, "/dev/null") != 0)
        tool_usage_error("-o and --perm name the same file ('%s')", s->out_path);
    check_vector_args(&s->in);
    return true;
}

bool cmd_sort_parse(int argc, char **argv)
{
    sort_args s;

    return parse_sort_args(argc, argv, &s);
}

/* perm[i] = i for i < n, uploaded a piece at a time. */
static int upload_iota(gpgpu_context *ctx, size_t n, gpgpu_buffer **buf)
{
    const size_t piece = (size_t)1 << 20;
    gpgpu_status status = gpgpu_buffer_create(ctx, (n > 0 ? n : 1) * sizeof(uint32_t), buf);
    uint32_t *host;

    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot create a buffer", gpgpu_last_error(ctx));
    if (n == 0)
        return TOOL_EXIT_OK;
    host = malloc((n < piece ? n : piece) * sizeof(uint32_t));
    if (host == NULL)
        return tool_fail(GPGPU_ERROR_OUT_OF_MEMORY, "cannot number the input",
                         "out of host memory");
    for (size_t first = 0; first < n; first += piece) {
        size_t m = n - first < piece ? n - first : piece;

        tool_progress_line("numbering for --perm: %zu of %zu values", first, n);
        for (size_t k = 0; k < m; k++)
            host[k] = (uint32_t)(first + k);
        status = gpgpu_buffer_upload(*buf, first * sizeof(uint32_t), host,
                                     m * sizeof(uint32_t));
        if (status != GPGPU_SUCCESS) {
            free(host);
            return tool_fail(status, "cannot upload", gpgpu_last_error(ctx));
        }
    }
    free(host);
    return TOOL_EXIT_OK;
}

/* Downloads `count` elements of buf and writes them to path. */
static int write_result(gpgpu_context *ctx, gpgpu_buffer *buf, gpgpu_type type, size_t count,
                        const char *path)
{
    void *host;
    char msg[512] = "";
    gpgpu_status status;
    int rc;

    tool_progress_step(long_step(count), "downloading %zu values...", count);
    rc = download_output(ctx, buf, count, gpgpu_type_size(type), &host);
    if (rc != TOOL_EXIT_OK)
        return rc;
    tool_progress_step(long_step(count), "writing %s...", path);
    status = gpgpu_mtx_write_vector(path, type, host, count, msg, sizeof(msg));
    free(host);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot write the output", msg);
    return TOOL_EXIT_OK;
}

/* Sorts the keys in place (and the numbering with them, for --perm), then
 * downloads and writes. */
static int run_sort(gpgpu_context *ctx, const sort_args *s, size_t count, gpgpu_buffer *keys,
                    gpgpu_buffer *perm, gpgpu_buffer *segments, size_t segment_count)
{
    gpgpu_sort_desc desc = {
        .type = s->in.type,
        .descending = s->descending,
        .stable = s->stable,
        .algo = s->in.algo,
        .values_in = perm,
        .segments = segments,
        .segment_count = segment_count,
    };
    gpgpu_status status;
    int rc;

    tool_progress_step(long_step(count), "running sort on %zu keys...", count);
    status = gpgpu_sort(ctx, &desc, keys, 0, NULL, 0, count);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "sort", gpgpu_last_error(ctx));
    rc = write_result(ctx, keys, s->in.type, count, s->out_path);
    if (rc == TOOL_EXIT_OK && perm != NULL)
        rc = write_result(ctx, perm, GPGPU_TYPE_U32, count, s->perm_path);
    return rc;
}

int cmd_sort(int argc, char **argv)
{
    sort_args s;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *keys = NULL, *perm = NULL, *segments = NULL;
    uint32_t *offsets = NULL;
    size_t offset_count = 0, segment_count = 0;
    void *data = NULL;
    size_t count;
    int rc;

    if (!parse_sort_args(argc, argv, &s))
        return TOOL_EXIT_OK;
    tool_progress_init(s.in.quiet);

    /* Every file is read and checked before the GPU starts. */
    rc = read_input(&s.in, &data, &count);
    if (rc == TOOL_EXIT_OK && s.segments_path != NULL) {
        rc = read_offsets(s.segments_path, count, &offsets, &offset_count);
        segment_count = offset_count > 0 ? offset_count - 1 : 0;
    }
    if (rc == TOOL_EXIT_OK)
        rc = tool_context_create(&s.in.desc, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = upload_input(ctx, &s.in, data, count, &keys);
    free(data);
    if (rc == TOOL_EXIT_OK && s.perm_path != NULL) {
        tool_progress_step(long_step(count), "numbering %zu values for --perm...", count);
        rc = upload_iota(ctx, count, &perm);
    }
    /* No segment at all (the offsets "0" of an empty input) is no keys:
     * nothing to pass. */
    if (rc == TOOL_EXIT_OK && segment_count > 0) {
        gpgpu_status status =
            gpgpu_buffer_create(ctx, offset_count * sizeof(uint32_t), &segments);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_upload(segments, 0, offsets, offset_count * sizeof(uint32_t));
        if (status != GPGPU_SUCCESS)
            rc = tool_fail(status, "cannot upload the segment offsets", gpgpu_last_error(ctx));
    }
    free(offsets);
    if (rc == TOOL_EXIT_OK)
        rc = run_sort(ctx, &s, count, keys, perm, segments, segment_count);
    gpgpu_buffer_destroy(segments);
    gpgpu_buffer_destroy(perm);
    gpgpu_buffer_destroy(keys);
    tool_context_destroy(ctx);
    return rc;
}
