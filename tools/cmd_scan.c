/* gpgpu scan: inclusive or exclusive prefix sums of a vector. */
#include "commands.h"

#include <gpgpu/io.h>

#include <stdlib.h>
#include <string.h>

const char scan_help[] =
    "Usage: gpgpu scan (--inclusive | --exclusive) --type TYPE [OPTIONS]\n"
    "                  (IN.mtx | --random N) -o OUT.mtx\n"
    "\n"
    "Prefix sums of a vector on the GPU, written as a MatrixMarket array.\n"
    "Integer sums wrap modulo 2^32, as the GPU adds them (i32 in two's\n"
    "complement).\n"
    "\n"
    "  --inclusive       out[i] = in[0] + ... + in[i]\n"
    "  --exclusive       out[i] = in[0] + ... + in[i-1], out[0] = 0\n"
    "  -o, --output OUT  the output file; - is standard output\n"
    "  --algo ALGO       fast (default: single-pass where the GPU has subgroups,\n"
    "                    f64 up to 2^21 elements; else reduce-then-scan),\n"
    "                    single-pass,\n"
    "                    reduce-then-scan or\n"
    "                    classic (Kiciak's iPrefixSum)\n";

typedef struct scan_args {
    vector_args in;
    bool exclusive;
    const char *out_path;
} scan_args;

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_scan_args(int argc, char **argv, scan_args *s)
{
    bool inclusive = false;

    *s = (scan_args){ .in = { .seed = 1 } };
    for (int i = 1; i < argc; i++) {
        const char *value;

        if (is_help(argv[i])) {
            print_help(scan_help, true);
            return false;
        }
        if (strcmp(argv[i], "--inclusive") == 0)
            inclusive = true;
        else if (strcmp(argv[i], "--exclusive") == 0)
            s->exclusive = true;
        else if ((value = tool_output_option(argc, argv, &i)) != NULL)
            s->out_path = value;
        else if ((value = tool_option_value(argc, argv, &i, "--algo")) != NULL)
            s->in.algo = tool_parse_scan_algo(value);
        else if (!parse_vector_option(argc, argv, &i, &s->in))
            parse_vector_operand(argv[i], &s->in);
    }
    if (inclusive == s->exclusive)
        tool_usage_error("give one of --inclusive and --exclusive");
    if (s->out_path == NULL)
        tool_usage_error("-o OUT.mtx is required (- for standard output)");
    check_vector_args(&s->in);
    return true;
}

bool cmd_scan_parse(int argc, char **argv)
{
    scan_args s;

    return parse_scan_args(argc, argv, &s);
}

/* Scans in place (halving the GPU memory needed), downloads and writes. */
static int run_scan(gpgpu_context *ctx, const vector_args *a, bool exclusive, gpgpu_buffer *buf,
                    size_t count, const char *out_path)
{
    gpgpu_scan_desc desc = { .type = a->type, .exclusive = exclusive, .algo = a->algo };
    size_t size = gpgpu_type_size(a->type);
    bool big = long_step(count);
    void *host = NULL;
    char msg[512] = "";
    gpgpu_status status;

    tool_progress_step(big, "running scan on %zu values...", count);
    status = gpgpu_scan(ctx, &desc, buf, 0, buf, 0, count);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "scan", gpgpu_last_error(ctx));
    tool_progress_step(big, "downloading %zu values...", count);
    int rc = download_output(ctx, buf, count, size, &host);
    if (rc != TOOL_EXIT_OK)
        return rc;
    tool_progress_step(big, "writing %s...", out_path);
    status = gpgpu_mtx_write_vector(out_path, a->type, host, count, msg, sizeof(msg));
    free(host);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, "cannot write the output", msg);
    return TOOL_EXIT_OK;
}

int cmd_scan(int argc, char **argv)
{
    scan_args s;
    gpgpu_context *ctx = NULL;
    gpgpu_buffer *buf = NULL;
    size_t count;
    int rc;

    if (!parse_scan_args(argc, argv, &s))
        return TOOL_EXIT_OK;
    tool_progress_init(s.in.quiet);
    rc = prepare(&s.in, &ctx, &buf, &count);
    if (rc == TOOL_EXIT_OK)
        rc = run_scan(ctx, &s.in, s.exclusive, buf, count, s.out_path);
    gpgpu_buffer_destroy(buf);
    tool_context_destroy(ctx);
    return rc;
}
