/* The matrices of gpgpu-bench's SpMV and SpGEMM cases (--matrix, --gen,
 * --write-gen): one generator table and one naming, so that a matrix has the
 * same name in both cases' records and in the files --write-gen makes for
 * the peer (bench/cusparse_peer.py joins on it). */
#include "gpgpu_bench.h"

#include <gpgpu/io.h>
#include <gpgpu/sparse.h>

#include <string.h>

/* One fixed seed: every run and device times the same matrices. */
#define GEN_SEED 1

/* The --gen spellings; bench_spmv_help lists them with these defaults. */
typedef struct gen_kind {
    const char *name;
    gpgpu_generator gen;
    uint32_t size, avg; /* defaults; avg 0: the generator takes none */
} gen_kind;

static const gen_kind gen_kinds[] = {
    { "laplace3d_7", GPGPU_GEN_LAPLACE3D_7, 32, 0 },
    { "laplace3d_27", GPGPU_GEN_LAPLACE3D_27, 32, 0 },
    { "rmat", GPGPU_GEN_RMAT, 14, 16 },
    { "random", GPGPU_GEN_RANDOM, 65536, 16 },
    { "power_law", GPGPU_GEN_POWER_LAW, 65536, 16 },
    { "dense_row", GPGPU_GEN_DENSE_ROW, 65536, 16 },
    { "banded", GPGPU_GEN_BANDED, 65536, 8 },
    { "dense", GPGPU_GEN_DENSE, 1024, 0 },
};

typedef struct gen_spec {
    const gen_kind *kind;
    uint32_t size, avg;
    char name[64]; /* NAME-SIZE[-AVG] */
} gen_spec;

/* Parses NAME[:SIZE[:AVG]]; anything else is a usage error. */
static void gen_parse(const char *text, gen_spec *spec)
{
    char copy[64], *save = NULL;

    if (strlen(text) >= sizeof(copy))
        tool_usage_error("--gen: '%s' is too long", text);
    strcpy(copy, text);
    const char *name = strtok_r(copy, ":", &save);
    const char *size = strtok_r(NULL, ":", &save), *avg = strtok_r(NULL, ":", &save);
    size_t k = 0;

    while (name != NULL && k < COUNT_OF(gen_kinds) && strcmp(name, gen_kinds[k].name) != 0)
        k++;
    if (name == NULL || k == COUNT_OF(gen_kinds))
        tool_usage_error("--gen: unknown generator in '%s' (see --help)", text);
    if (strtok_r(NULL, ":", &save) != NULL || (avg != NULL && gen_kinds[k].avg == 0))
        tool_usage_error("--gen: too many values in '%s'", text);
    spec->kind = &gen_kinds[k];
    spec->size = size ? (uint32_t)tool_parse_uint("--gen", size, 1, UINT32_MAX) : spec->kind->size;
    spec->avg = avg ? (uint32_t)tool_parse_uint("--gen", avg, 1, UINT32_MAX) : spec->kind->avg;
    if (spec->kind->avg == 0)
        snprintf(spec->name, sizeof(spec->name), "%s-%u", name, spec->size);
    else
        snprintf(spec->name, sizeof(spec->name), "%s-%u-%u", name, spec->size, spec->avg);
}

bool bench_matrix_option(int argc, char **argv, int *i, bench_matrix_options *o)
{
    const char *value;
    bool file;

    if ((value = tool_option_value(argc, argv, i, "--write-gen")) != NULL) {
        o->write_gen_dir = value;
        return true;
    }
    if ((value = tool_option_value(argc, argv, i, "--matrix")) != NULL) {
        file = true;
    } else if ((value = tool_option_value(argc, argv, i, "--gen")) != NULL) {
        gen_spec spec;
        gen_parse(value, &spec); /* usage errors now, before any work */
        file = false;
    } else {
        return false;
    }
    if (o->arg_count == BENCH_MAX_MATRICES)
        tool_usage_error("at most %d --matrix and --gen", BENCH_MAX_MATRICES);
    o->args[o->arg_count++] = (bench_matrix_arg){ .text = value, .file = file };
    return true;
}

/* The matrices to run: those given, else the caller's defaults. */
static int matrix_args(const bench_matrix_options *o, const bench_matrix_arg *defaults,
                       int default_count, const bench_matrix_arg **args)
{
    if (o->arg_count > 0) {
        *args = o->args;
        return o->arg_count;
    }
    *args = defaults;
    return default_count;
}

/* The file name without the directory and .mtx[.gz]. */
static void file_name(const char *path, char *name, size_t size)
{
    const char *base = strrchr(path, '/');

    snprintf(name, size, "%s", base ? base + 1 : path);
    size_t len = strlen(name);
    if (len > 3 && strcmp(name + len - 3, ".gz") == 0)
        name[len -= 3] = '\0';
    if (len > 4 && strcmp(name + len - 4, ".mtx") == 0)
        name[len - 4] = '\0';
}

/* Reads or generates one matrix into *m (free m->a with gpgpu_csr_free).
 * *skip is set, with a note, for a file of a field the cases do not take. */
static int matrix_load(const bench_matrix_arg *arg, bench_matrix *m, bool *skip)
{
    char msg[512] = "";
    gpgpu_status status;

    *m = (bench_matrix){ .arg = arg->text, .generated = !arg->file };
    *skip = false;
    if (arg->file) {
        file_name(arg->text, m->name, sizeof(m->name));
        status = gpgpu_mtx_read_matrix(arg->text, &m->a, NULL, msg, sizeof(msg));
        if (status == GPGPU_ERROR_PARSE && (strstr(msg, "complex") || strstr(msg, "hermitian"))) {
            printf("# %s: skipped: %s\n", arg->text, msg);
            *skip = true;
            return TOOL_EXIT_OK;
        }
    } else {
        gen_spec spec;
        gen_parse(arg->text, &spec);
        snprintf(m->name, sizeof(m->name), "%s", spec.name);
        status = gpgpu_generate(spec.kind->gen, spec.size, spec.avg, GEN_SEED, &m->a);
        snprintf(msg, sizeof(msg), "%s", gpgpu_status_string(status));
    }
    return status == GPGPU_SUCCESS ? TOOL_EXIT_OK : tool_fail(status, arg->text, msg);
}

int bench_matrix_write_gen(const bench_matrix_options *o, const bench_matrix_arg *defaults,
                           int default_count)
{
    const bench_matrix_arg *args;
    int count = matrix_args(o, defaults, default_count, &args), rc = TOOL_EXIT_OK;

    for (int k = 0; k < count && rc == TOOL_EXIT_OK; k++) {
        bench_matrix m;
        bool skip;
        char path[1024], msg[512] = "";

        if (args[k].file)
            continue;
        rc = matrix_load(&args[k], &m, &skip);
        if (rc != TOOL_EXIT_OK)
            break;
        snprintf(path, sizeof(path), "%s/%s.mtx", o->write_gen_dir, m.name);
        gpgpu_status status = gpgpu_mtx_write_matrix(path, &m.a, msg, sizeof(msg));
        if (status == GPGPU_SUCCESS)
            printf("%s: %u x %u, nnz %zu\n", path, m.a.rows, m.a.cols, m.a.nnz);
        else
            rc = tool_fail(status, "--write-gen", msg);
        gpgpu_csr_free(&m.a);
    }
    return rc;
}

int bench_run_matrices(bench *b, const bench_matrix_arg *defaults, int default_count,
                       bench_matrix_run run)
{
    const bench_matrix_arg *args;
    int count = matrix_args(&b->opt->matrices, defaults, default_count, &args);
    int rc = TOOL_EXIT_OK;

    /* Each matrix is freed after its cases: host memory holds one at a time. */
    for (int k = 0; k < count && rc == TOOL_EXIT_OK; k++) {
        bench_matrix m;
        bool skip;

        rc = matrix_load(&args[k], &m, &skip);
        if (rc == TOOL_EXIT_OK && !skip)
            rc = run(b, &m);
        gpgpu_csr_free(&m.a);
    }
    return rc;
}
