/* A call that one rank refuses is refused on every rank with the same status and message,
 * and none waits forever (meson's timeout ends the run if one did): a vector of the wrong
 * size, a NULL one, overlapping ones, a malformed block of rows, column counts that do not
 * add up, each on the last rank only; a failure in the middle of a solve (a GPU timer that
 * cannot start on the last rank) ends the solve on every rank at the next reduction. After
 * each refusal a correct call still gives the right result: no message of the refused call
 * was left in flight. With the argument "single", MPI is initialized with
 * MPI_THREAD_SINGLE, where the exchange's helper thread is refused and the default overlap
 * is inline. */
#include "mpi_testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every rank got `status`, `want` as the expected one, and the same message as rank 0, which
 * names the last rank (the one that refused). */
static void expect_agreed(const char *what, gpgpu_status status, gpgpu_status want)
{
    char mine[512], rank0[512], prefix[32];

    EXPECT(status == want, "%s: status %d (%s), expected %d: %s", what, (int)status,
           gpgpu_status_string(status), (int)want, gpgpu_mpi_last_error());
    snprintf(mine, sizeof mine, "%s", gpgpu_mpi_last_error());
    memcpy(rank0, mine, sizeof mine);
    MPI_Bcast(rank0, (int)sizeof rank0, MPI_CHAR, 0, MPI_COMM_WORLD);
    EXPECT(strcmp(mine, rank0) == 0, "%s: the message '%s' differs from rank 0's '%s'", what,
           mine, rank0);
    snprintf(prefix, sizeof prefix, "rank %d: ", test_ranks - 1);
    EXPECT(strncmp(mine, prefix, strlen(prefix)) == 0, "%s: '%s' does not name rank %d", what,
           mine, test_ranks - 1);
}

static bool last_rank(void)
{
    return test_rank == test_ranks - 1;
}

/* y = A*ones on a correct call, against the row sums of the 1D Laplacian (2 -1 ...). */
static void expect_product_works(const char *what, gpgpu_mpi_matrix *a)
{
    gpgpu_mpi_vector *x = NULL, *y = NULL;
    gpgpu_mpi_matrix_info info;
    double dot = -1;

    gpgpu_mpi_matrix_get_info(a, &info);
    test_die_on(gpgpu_mpi_matrix_vector(a, GPGPU_MPI_COLS, &x), "vector");
    test_die_on(gpgpu_mpi_matrix_vector(a, GPGPU_MPI_ROWS, &y), "vector");
    test_die_on(gpgpu_mpi_vector_fill(x, 1), "fill");
    EXPECT_STATUS(gpgpu_mpi_spmv(a, 1, x, 0, y), GPGPU_SUCCESS);
    /* A*ones of the 1D Laplacian is 1 at both ends and 0 inside: y.y = 2. */
    EXPECT_STATUS(gpgpu_mpi_dot(y, y, &dot), GPGPU_SUCCESS);
    EXPECT(dot == 2, "%s: then a correct product: y.y = %g, expected 2", what, dot);
    gpgpu_mpi_vector_destroy(x);
    gpgpu_mpi_vector_destroy(y);
}

/* The 1D Laplacian, n rows split evenly; the last rank's rows taken as they are or spoiled. */
static gpgpu_csr laplacian_rows(uint32_t n, uint64_t *first)
{
    uint32_t *rp = xmalloc(((size_t)n + 1) * sizeof *rp), *ci = xmalloc(3 * (size_t)n * 4);
    double *v = xmalloc(3 * (size_t)n * sizeof *v);
    uint32_t k = 0;
    rp[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (int64_t j = (int64_t)i - 1; j <= (int64_t)i + 1; j++) {
            if (j >= 0 && j < n) {
                ci[k] = (uint32_t)j;
                v[k++] = j == i ? 2 : -1;
            }
        }
        rp[i + 1] = k;
    }
    gpgpu_csr a = test_csr(n, n, k, rp, ci, v);
    *first = (uint64_t)test_rank * n / (uint64_t)test_ranks;
    uint64_t last = (uint64_t)(test_rank + 1) * n / (uint64_t)test_ranks;
    gpgpu_csr rows = test_rows_of(&a, *first, (uint32_t)(last - *first));
    gpgpu_csr_free(&a);
    free(rp);
    free(ci);
    free(v);
    return rows;
}

static gpgpu_mpi_matrix *make(gpgpu_context *ctx, gpgpu_type type, gpgpu_mpi_overlap overlap)
{
    uint64_t first;
    gpgpu_csr rows = laplacian_rows(40, &first);
    gpgpu_mpi_matrix *a = NULL;
    gpgpu_mpi_matrix_desc desc = { .local = { .type = type }, .overlap = overlap };
    test_die_on(gpgpu_mpi_matrix_create(ctx, MPI_COMM_WORLD, &desc, &rows, rows.rows, &a),
                "gpgpu_mpi_matrix_create");
    gpgpu_csr_free(&rows);
    return a;
}

static void test_creation(gpgpu_context *ctx)
{
    uint64_t first;
    gpgpu_csr rows = laplacian_rows(40, &first);
    gpgpu_mpi_matrix *a = (gpgpu_mpi_matrix *)&rows; /* not NULL: must become NULL */
    gpgpu_mpi_matrix_desc desc = { .local = { .type = GPGPU_TYPE_F32 } };

    /* the last rank's columns out of order in its first row */
    if (last_rank() && rows.row_ptr[1] - rows.row_ptr[0] >= 2) {
        uint32_t c = rows.col_idx[0];
        rows.col_idx[0] = rows.col_idx[1];
        rows.col_idx[1] = c;
    }
    expect_agreed("unsorted columns on one rank",
                  gpgpu_mpi_matrix_create(ctx, MPI_COMM_WORLD, &desc, &rows, rows.rows, &a),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(a == NULL, "a refused matrix is not NULL");
    gpgpu_csr_free(&rows);

    /* local_cols that add up to more than the columns */
    rows = laplacian_rows(40, &first);
    a = NULL;
    gpgpu_status s = gpgpu_mpi_matrix_create(ctx, MPI_COMM_WORLD, &desc, &rows,
                                             rows.rows + (last_rank() ? 1 : 0), &a);
    EXPECT(s == GPGPU_ERROR_INVALID_ARGUMENT && a == NULL, "local_cols past the columns: %d", s);
    EXPECT(strstr(gpgpu_mpi_last_error(), "add up to 41, but the matrix has 40 columns") != NULL,
           "local_cols: '%s'", gpgpu_mpi_last_error());
    /* a NULL desc on the last rank */
    expect_agreed("a NULL desc on one rank",
                  gpgpu_mpi_matrix_create(ctx, MPI_COMM_WORLD, last_rank() ? NULL : &desc, &rows,
                                          rows.rows, &a),
                  GPGPU_ERROR_NULL_POINTER);
    gpgpu_csr_free(&rows);
}

static void test_products(gpgpu_context *ctx, gpgpu_type type)
{
    gpgpu_mpi_matrix *a = make(ctx, type, GPGPU_MPI_OVERLAP_DEFAULT);
    gpgpu_mpi_matrix_info info;
    gpgpu_mpi_vector *x = NULL, *y = NULL, *bad = NULL, *wide = NULL;
    gpgpu_buffer *g = NULL;
    double r = 0;

    gpgpu_mpi_matrix_get_info(a, &info);
    test_die_on(gpgpu_mpi_matrix_vector(a, GPGPU_MPI_COLS, &x), "vector");
    test_die_on(gpgpu_mpi_matrix_vector(a, GPGPU_MPI_ROWS, &y), "vector");
    test_die_on(gpgpu_mpi_vector_fill(x, 1), "fill");
    /* one element too many on the last rank */
    test_die_on(gpgpu_mpi_vector_create(ctx, MPI_COMM_WORLD, type,
                                        info.local_rows + (last_rank() ? 1 : 0), &bad),
                "vector");
    test_die_on(gpgpu_mpi_vector_fill(bad, 1), "fill");

    expect_agreed("spmv, y too long on one rank", gpgpu_mpi_spmv(a, 1, x, 0, bad),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    expect_product_works("spmv", a);
    expect_agreed("spmv, x too long on one rank", gpgpu_mpi_spmv(a, 1, bad, 0, y),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    expect_product_works("spmv x", a);
    expect_agreed("halo, x too long on one rank", gpgpu_mpi_halo(a, bad, &g),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    expect_product_works("halo", a);
    expect_agreed("dot of unlike vectors on one rank", gpgpu_mpi_dot(y, bad, &r),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    expect_agreed("axpby of unlike vectors on one rank", gpgpu_mpi_axpby(1, y, 1, bad),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    expect_agreed("axpby_dot of unlike vectors on one rank",
                  gpgpu_mpi_axpby_dot(1, y, 1, bad, bad, &r), GPGPU_ERROR_INVALID_ARGUMENT);
    expect_agreed("spmv, y NULL on one rank",
                  gpgpu_mpi_spmv(a, 1, x, 0, last_rank() ? NULL : y), GPGPU_ERROR_NULL_POINTER);
    expect_agreed("dot, result NULL on one rank",
                  gpgpu_mpi_dot(x, x, last_rank() ? NULL : &r), GPGPU_ERROR_NULL_POINTER);
    expect_product_works("after the NULLs", a);

    /* x and y on one buffer, overlapping on the last rank only */
    size_t size = gpgpu_type_size(type), n = info.local_rows;
    gpgpu_buffer *buf = NULL;
    test_die_on(gpgpu_buffer_create(ctx, (2 * n + 1) * size, &buf), "buffer");
    gpgpu_mpi_vector *vx = NULL, *vy = NULL;
    test_die_on(gpgpu_mpi_vector_wrap(ctx, MPI_COMM_WORLD, type, info.local_cols, buf, 0, &vx),
                "wrap");
    test_die_on(gpgpu_mpi_vector_wrap(ctx, MPI_COMM_WORLD, type, info.local_rows, buf,
                                      last_rank() ? 1 : n, &vy),
                "wrap");
    expect_agreed("spmv, x and y overlapping on one rank", gpgpu_mpi_spmv(a, 1, vx, 0, vy),
                  GPGPU_ERROR_OVERLAP);
    EXPECT_STATUS(gpgpu_mpi_vector_wrap(ctx, MPI_COMM_WORLD, type, (uint32_t)(3 * n + 1), buf, 0,
                                        &wide),
                  GPGPU_ERROR_OUT_OF_RANGE);
    EXPECT(wide == NULL, "a refused wrap is not NULL");
    gpgpu_mpi_vector_destroy(vx);
    gpgpu_mpi_vector_destroy(vy);
    gpgpu_buffer_destroy(buf);

    /* the solve: b too long on one rank; then a GPU call that fails on one rank mid-solve */
    gpgpu_mpi_cg_stats st;
    expect_agreed("cg, b too long on one rank", gpgpu_mpi_cg(a, bad, x, NULL, &st),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    test_die_on(gpgpu_mpi_spmv(a, 1, x, 0, y), "b = A*ones");
    test_die_on(gpgpu_mpi_vector_fill(x, 0), "fill");
    if (last_rank())
        test_die_on(gpgpu_timer_begin(ctx), "gpgpu_timer_begin");
    gpgpu_status s = gpgpu_mpi_cg(a, y, x, &(gpgpu_mpi_cg_desc){ .gpu_timer = true }, &st);
    expect_agreed("cg, a timer already running on one rank", s, GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(gpgpu_mpi_last_error(), "gpgpu_timer_begin") != NULL,
           "the mid-solve failure: '%s'", gpgpu_mpi_last_error());
    if (last_rank()) {
        double ns;
        gpgpu_timer_end(ctx, &ns);
    }
    test_die_on(gpgpu_mpi_vector_fill(x, 0), "fill");
    EXPECT_STATUS(gpgpu_mpi_cg(a, y, x, NULL, &st), GPGPU_SUCCESS);
    expect_product_works("after the solves", a);

    gpgpu_mpi_vector_destroy(bad);
    gpgpu_mpi_vector_destroy(x);
    gpgpu_mpi_vector_destroy(y);
    gpgpu_mpi_matrix_destroy(a);
}

/* Each rank's context is on its node's GPU number node rank mod the devices (plus one); a
 * device past the list on one rank leaves every rank without a context, one status. */
static void test_contexts(gpgpu_context *ctx)
{
    gpgpu_info info;
    uint32_t count = 0;
    int node_rank, node_size;

    gpgpu_context_get_info(ctx, &info);
    EXPECT_STATUS(gpgpu_device_count(GPGPU_BACKEND_DEFAULT, &count), GPGPU_SUCCESS);
    EXPECT_STATUS(gpgpu_mpi_node_rank(MPI_COMM_WORLD, &node_rank, &node_size), GPGPU_SUCCESS);
    EXPECT(node_size == test_ranks && node_rank == test_rank, "node rank %d of %d", node_rank,
           node_size);
    if (count > 0 && getenv("GPGPU_EGL_DEVICE") == NULL && getenv("GPGPU_VK_DEVICE") == NULL)
        EXPECT(info.device == (uint32_t)node_rank % count + 1,
               "rank %d on device %u of %u, expected %u", test_rank, info.device, count,
               (uint32_t)node_rank % count + 1);
    gpgpu_context *other = (gpgpu_context *)&info; /* not NULL: must become NULL */
    gpgpu_context_desc desc = { .device = last_rank() ? count + 1 : 0 };
    expect_agreed("a device past the list on one rank",
                  gpgpu_mpi_context_create(MPI_COMM_WORLD, &desc, &other),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(other == NULL, "a context left after the refusal");
}

/* MPI_THREAD_SINGLE: the helper thread is refused on every rank, the default is inline. */
static void test_thread_level(gpgpu_context *ctx)
{
    uint64_t first;
    gpgpu_csr rows = laplacian_rows(40, &first);
    gpgpu_mpi_matrix *a = NULL;
    gpgpu_mpi_matrix_info info;

    EXPECT_STATUS(gpgpu_mpi_matrix_create(
                      ctx, MPI_COMM_WORLD,
                      &(gpgpu_mpi_matrix_desc){ .local = { .type = GPGPU_TYPE_F32 },
                                                .overlap = GPGPU_MPI_OVERLAP_THREAD },
                      &rows, rows.rows, &a),
                  GPGPU_ERROR_UNSUPPORTED_FEATURE);
    EXPECT(strstr(gpgpu_mpi_last_error(), "MPI_THREAD_SERIALIZED") != NULL,
           "THREAD under MPI_THREAD_SINGLE: '%s'", gpgpu_mpi_last_error());
    gpgpu_csr_free(&rows);
    a = make(ctx, GPGPU_TYPE_F32, GPGPU_MPI_OVERLAP_DEFAULT);
    gpgpu_mpi_matrix_get_info(a, &info);
    EXPECT(info.overlap == GPGPU_MPI_OVERLAP_INLINE, "the default overlap under SINGLE: %d",
           (int)info.overlap);
    expect_product_works("inline", a);
    gpgpu_mpi_matrix_destroy(a);
}

int main(int argc, char **argv)
{
    bool single = argc > 1 && strcmp(argv[1], "single") == 0;
    gpgpu_context *ctx = test_init_level(&argc, &argv, single ? MPI_THREAD_SINGLE
                                                               : MPI_THREAD_SERIALIZED);

    if (single) {
        test_thread_level(ctx);
    } else {
        test_contexts(ctx);
        test_creation(ctx);
        test_products(ctx, GPGPU_TYPE_F32);
        if (test_has_f64(ctx))
            test_products(ctx, GPGPU_TYPE_F64);
    }
    return test_finish(ctx);
}
