#include "mpi_testlib.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int test_rank, test_ranks;
int test_failures, test_checks;

gpgpu_context *test_init(int *argc, char ***argv)
{
    return test_init_level(argc, argv, MPI_THREAD_SERIALIZED);
}

gpgpu_context *test_init_level(int *argc, char ***argv, int level)
{
    int provided, skip;
    gpgpu_context *ctx = NULL;

    MPI_Init_thread(argc, argv, level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &test_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &test_ranks);
    gpgpu_status s = gpgpu_mpi_context_create(MPI_COMM_WORLD, &(gpgpu_context_desc){ .debug = true },
                                              &ctx);
    skip = s == GPGPU_ERROR_NO_CONTEXT || s == GPGPU_ERROR_GL_VERSION ||
           s == GPGPU_ERROR_BACKEND_UNAVAILABLE;
    if (skip) {
        if (test_rank == 0)
            fprintf(stderr, "skipped: %s\n", gpgpu_mpi_last_error());
        MPI_Finalize();
        exit(TEST_SKIPPED);
    }
    test_die_on(s, "gpgpu_mpi_context_create");
    return ctx;
}

int test_finish(gpgpu_context *ctx)
{
    int mine[2] = { test_checks, test_failures }, all[2];

    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (test_rank == 0)
        printf("%d ranks: %d passed, %d failed\n", test_ranks, all[0] - all[1], all[1]);
    gpgpu_context_destroy(ctx);
    MPI_Finalize();
    return all[1] ? 1 : 0;
}

void test_note(const char *fmt, ...)
{
    va_list ap;

    if (test_rank != 0)
        return;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

void test_die_on(gpgpu_status s, const char *what)
{
    if (s == GPGPU_SUCCESS)
        return;
    fprintf(stderr, "rank %d: %s failed: %s (%s)\n", test_rank, what, gpgpu_status_string(s),
            gpgpu_mpi_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "rank %d: out of host memory\n", test_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

bool test_has_f64(gpgpu_context *ctx)
{
    gpgpu_info info;
    return gpgpu_context_get_info(ctx, &info) == GPGPU_SUCCESS && info.has_f64;
}

/* splitmix64: element i depends on seed and i only. */
static uint64_t mix(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void test_values(gpgpu_type type, bool integers, uint64_t seed, double *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = mix(seed, i);
        double v;
        if (integers) {
            v = (double)(r % 8 + 1);
        } else {
            v = 0.5 + (double)((r >> 11) & UINT64_C(0xFFFFFFFFFFFFF)) * 0x1p-52;
            if (type == GPGPU_TYPE_F32)
                v = (double)(float)v;
        }
        out[i] = (r >> 63) ? -v : v;
    }
}

gpgpu_csr test_rows_of(const gpgpu_csr *a, uint64_t first, uint32_t count)
{
    uint32_t base = a->row_ptr[first];
    gpgpu_csr r = { .rows = count, .cols = a->cols,
                    .nnz = a->row_ptr[first + count] - base };

    r.row_ptr = xmalloc(((size_t)count + 1) * sizeof(uint32_t));
    r.col_idx = xmalloc(r.nnz * sizeof(uint32_t));
    r.values = xmalloc(r.nnz * sizeof(double));
    for (uint32_t i = 0; i <= count; i++)
        r.row_ptr[i] = a->row_ptr[first + i] - base;
    if (r.nnz > 0) {
        memcpy(r.col_idx, a->col_idx + base, r.nnz * sizeof(uint32_t));
        memcpy(r.values, a->values + base, r.nnz * sizeof(double));
    }
    return r;
}

gpgpu_csr test_csr(uint32_t rows, uint32_t cols, size_t nnz, const uint32_t *row_ptr,
                   const uint32_t *col_idx, const double *values)
{
    gpgpu_csr r = { .rows = rows, .cols = cols, .nnz = nnz };

    r.row_ptr = xmalloc(((size_t)rows + 1) * sizeof(uint32_t));
    r.col_idx = xmalloc(nnz * sizeof(uint32_t));
    r.values = xmalloc(nnz * sizeof(double));
    memcpy(r.row_ptr, row_ptr, ((size_t)rows + 1) * sizeof(uint32_t));
    if (nnz > 0) {
        memcpy(r.col_idx, col_idx, nnz * sizeof(uint32_t));
        memcpy(r.values, values, nnz * sizeof(double));
    }
    return r;
}

void test_integer_values(gpgpu_csr *a, uint64_t seed)
{
    test_values(GPGPU_TYPE_F64, true, seed, a->values, a->nnz);
}

double *test_download(const gpgpu_mpi_vector *v)
{
    gpgpu_mpi_vector_info info;
    gpgpu_mpi_vector_get_info(v, &info);
    size_t size = gpgpu_type_size(info.type);
    void *raw = xmalloc((size_t)info.local_size * size);
    double *out = xmalloc((size_t)info.local_size * sizeof *out);

    if (info.local_size > 0)
        test_die_on(gpgpu_buffer_download(info.buffer, info.offset * size, raw,
                                          (size_t)info.local_size * size),
                    "gpgpu_buffer_download");
    for (uint32_t i = 0; i < info.local_size; i++)
        out[i] = info.type == GPGPU_TYPE_F32 ? (double)((float *)raw)[i] : ((double *)raw)[i];
    free(raw);
    return out;
}

gpgpu_mpi_vector *test_vector(gpgpu_mpi_matrix *a, gpgpu_mpi_side side, const double *global)
{
    gpgpu_mpi_vector *v = NULL;
    gpgpu_mpi_vector_info info;

    test_die_on(gpgpu_mpi_matrix_vector(a, side, &v), "gpgpu_mpi_matrix_vector");
    gpgpu_mpi_vector_get_info(v, &info);
    size_t size = gpgpu_type_size(info.type);
    void *raw = xmalloc((size_t)info.local_size * size);
    for (uint32_t i = 0; i < info.local_size; i++) {
        if (info.type == GPGPU_TYPE_F32)
            ((float *)raw)[i] = (float)global[info.first + i];
        else
            ((double *)raw)[i] = global[info.first + i];
    }
    if (info.local_size > 0)
        test_die_on(gpgpu_buffer_upload(info.buffer, info.offset * size, raw,
                                        (size_t)info.local_size * size),
                    "gpgpu_buffer_upload");
    free(raw);
    return v;
}

const char *test_matrix_role(const char *role)
{
    char name[64];
    struct stat st;

    snprintf(name, sizeof name, "GPGPU_MATRIX_%s", role);
    const char *path = getenv(name);
    return path != NULL && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? path : NULL;
}
