/* The distributed product and its halo exchange on the ranks of the run (the suite runs 1, 2,
 * 3 and 4):
 * - the exchange alone against its CPU twin: each rank's ghost columns, the counts of its
 *   plan, and the values that arrive, bit for bit;
 * - y = alpha*A*x + beta*y against libgpgpu's serial product of the whole matrix on the
 *   rank's own context and against src/ref: integer-valued data bit for bit (f32 and f64),
 *   real data within the summation bound (each product within gamma(len + 4) of the exact
 *   one: the distributed one adds the two blocks' sums, one rounding more);
 * - every overlap mode gives the same bits;
 * - the vector operations against the CPU;
 * on partitions by nonzeros (a file read on rank 0, a matrix scattered), rows evenly, more
 * ranks than rows, an empty rank between others, rows without off-diagonal entries on every
 * rank, and ranks whose every column is a ghost. */
#include "mpi_testlib.h"

#include "ref/ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ partitions */

static uint64_t *partition_even(uint64_t n)
{
    uint64_t *begin = xmalloc(((size_t)test_ranks + 1) * sizeof *begin);
    for (int r = 0; r <= test_ranks; r++)
        begin[r] = (uint64_t)r * n / (uint64_t)test_ranks;
    return begin;
}

/* Rank P/2 has no rows; the others share them (with one rank, it has them all). */
static uint64_t *partition_hole(uint64_t n)
{
    uint64_t *begin = xmalloc(((size_t)test_ranks + 1) * sizeof *begin);
    int others = test_ranks > 1 ? test_ranks - 1 : 1, hole = test_ranks > 1 ? test_ranks / 2 : -1;
    for (int r = 0, k = 0; r <= test_ranks; r++) {
        begin[r] = (uint64_t)k * n / (uint64_t)others;
        if (r != hole)
            k++;
    }
    begin[test_ranks] = n;
    return begin;
}

/* --------------------------------------------------------- the CPU twin */

static int owner(const uint64_t *begin, uint64_t col)
{
    int r = 0;
    while (col >= begin[r + 1])
        r++;
    return r;
}

/* The ghost columns of rank `me`: the distinct columns of its rows outside its range. */
static uint32_t *twin_ghosts(const gpgpu_csr *a, const uint64_t *rb, const uint64_t *cb, int me,
                             uint32_t *count)
{
    bool *seen = calloc((size_t)a->cols + 1, 1);
    uint32_t *ghosts = xmalloc(((size_t)a->cols + 1) * sizeof *ghosts);
    *count = 0;
    for (uint64_t i = rb[me]; i < rb[me + 1]; i++) {
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            uint32_t c = a->col_idx[k];
            if ((c < cb[me] || c >= cb[me + 1]) && !seen[c])
                seen[c] = true;
        }
    }
    for (uint32_t c = 0; c < a->cols; c++) {
        if (seen[c])
            ghosts[(*count)++] = c;
    }
    free(seen);
    return ghosts;
}

/* What the plan of rank `me` holds: the values it sends and to how many ranks, the ranks it
 * receives from. */
static void twin_plan(const gpgpu_csr *a, const uint64_t *rb, const uint64_t *cb, int me,
                      uint32_t *sends, int *send_ranks, int *recv_ranks)
{
    *sends = 0;
    *send_ranks = *recv_ranks = 0;
    for (int q = 0; q < test_ranks; q++) {
        uint32_t count, mine = 0;
        uint32_t *g = twin_ghosts(a, rb, cb, q, &count);
        for (uint32_t k = 0; k < count; k++)
            mine += owner(cb, g[k]) == me;
        if (q != me) {
            *sends += mine;
            *send_ranks += mine > 0;
        }
        free(g);
    }
    uint32_t count;
    uint32_t *g = twin_ghosts(a, rb, cb, me, &count);
    for (int q = 0; q < test_ranks; q++) {
        bool any = false;
        for (uint32_t k = 0; k < count; k++)
            any |= owner(cb, g[k]) == q;
        *recv_ranks += any;
    }
    free(g);
}

/* -------------------------------------------------------------- the checks */

static double unit(gpgpu_type t)
{
    return t == GPGPU_TYPE_F32 ? 0x1p-24 : 0x1p-53;
}

/* |y_i - want_i| <= bound_i for this rank's rows; exact (bits) where integers. */
static void check_y(const char *what, const double *got, const double *want, const double *bound,
                    uint64_t first, uint32_t n, bool exact)
{
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        double d = fabs(got[i] - want[first + i]);
        /* Exact: the same value; a zero's sign may differ, as the blocks sum in two groups. */
        bool ok = exact ? got[i] == want[first + i] : d <= bound[i];
        if (!ok && bad++ < 3)
            EXPECT(ok, "%s: y[%llu] = %.17g, expected %.17g (bound %.3g)", what,
                   (unsigned long long)(first + i), got[i], want[first + i],
                   exact ? 0.0 : bound[i]);
    }
    EXPECT(bad == 0, "%s: %u of %u entries off", what, bad, n);
}

/* The serial product of the whole matrix on this rank's context: libgpgpu's own SpMV. */
static double *serial_product(gpgpu_context *ctx, gpgpu_type type, const gpgpu_csr *a,
                              double alpha, const double *x, double beta, const double *y0)
{
    size_t size = gpgpu_type_size(type);
    gpgpu_matrix *m = NULL;
    gpgpu_buffer *bx = NULL, *by = NULL;
    void *raw = xmalloc(((size_t)a->cols + a->rows + 1) * size);
    double *y = xmalloc(((size_t)a->rows + 1) * sizeof *y);
    gpgpu_spmv_desc d = { 0 };

    test_die_on(gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){ .type = type }, a, &m),
                "gpgpu_matrix_create (serial)");
    test_die_on(gpgpu_buffer_create(ctx, ((size_t)a->cols + 1) * size, &bx), "buffer");
    test_die_on(gpgpu_buffer_create(ctx, ((size_t)a->rows + 1) * size, &by), "buffer");
    for (int pass = 0; pass < 2; pass++) {
        const double *src = pass == 0 ? x : y0;
        size_t n = pass == 0 ? a->cols : a->rows;
        for (size_t i = 0; i < n; i++) {
            if (type == GPGPU_TYPE_F32)
                ((float *)raw)[i] = (float)src[i];
            else
                ((double *)raw)[i] = src[i];
        }
        if (n > 0)
            test_die_on(gpgpu_buffer_upload(pass == 0 ? bx : by, 0, raw, n * size), "upload");
    }
    test_die_on(gpgpu_spmv(ctx, &d, alpha, m, bx, 0, beta, by, 0), "gpgpu_spmv (serial)");
    if (a->rows > 0)
        test_die_on(gpgpu_buffer_download(by, 0, raw, a->rows * size), "download");
    for (uint32_t i = 0; i < a->rows; i++)
        y[i] = type == GPGPU_TYPE_F32 ? (double)((float *)raw)[i] : ((double *)raw)[i];
    gpgpu_buffer_destroy(bx);
    gpgpu_buffer_destroy(by);
    gpgpu_matrix_destroy(m);
    free(raw);
    return y;
}

/* The matrix's values as the GPU holds them (rounded to f32 for f32). */
static gpgpu_csr rounded(const gpgpu_csr *a, gpgpu_type type)
{
    gpgpu_csr r = test_csr(a->rows, a->cols, a->nnz, a->row_ptr, a->col_idx, a->values);
    for (size_t k = 0; type == GPGPU_TYPE_F32 && k < r.nnz; k++)
        r.values[k] = (double)(float)r.values[k];
    return r;
}

typedef struct spmv_case {
    const char *name;
    const gpgpu_csr *a;        /* the whole matrix, on every rank */
    const uint64_t *rb, *cb;   /* the row and column blocks */
    bool integers;
    gpgpu_mpi_matrix *m;       /* made by the caller's way, for this partition */
} spmv_case;

/* The exchange alone: the ghost list and plan against the twin, the values that arrive. */
static void check_halo(const spmv_case *c, gpgpu_type type, const double *x, gpgpu_mpi_vector *vx)
{
    gpgpu_mpi_matrix_info info;
    const uint32_t *ghosts;
    uint32_t count, twin_count, sends;
    int send_ranks, recv_ranks;
    gpgpu_buffer *g = NULL;

    gpgpu_mpi_matrix_get_info(c->m, &info);
    uint32_t *twin = twin_ghosts(c->a, c->rb, c->cb, test_rank, &twin_count);
    twin_plan(c->a, c->rb, c->cb, test_rank, &sends, &send_ranks, &recv_ranks);
    EXPECT_STATUS(gpgpu_mpi_matrix_ghosts(c->m, &ghosts, &count), GPGPU_SUCCESS);
    EXPECT(count == twin_count && info.ghosts == twin_count &&
               (count == 0 || memcmp(ghosts, twin, count * sizeof *twin) == 0),
           "%s: %u ghosts, the twin %u (or a different list)", c->name, count, twin_count);
    EXPECT(info.sends == sends && info.send_ranks == send_ranks && info.recv_ranks == recv_ranks,
           "%s: sends %u to %d ranks, receives from %d; the twin %u, %d, %d", c->name,
           info.sends, info.send_ranks, info.recv_ranks, sends, send_ranks, recv_ranks);
    EXPECT(info.first_row == c->rb[test_rank] && info.local_rows == c->rb[test_rank + 1] -
                                                                       c->rb[test_rank] &&
               info.first_col == c->cb[test_rank],
           "%s: rows from %llu, %u of them", c->name, (unsigned long long)info.first_row,
           info.local_rows);
    EXPECT_STATUS(gpgpu_mpi_halo(c->m, vx, &g), GPGPU_SUCCESS);
    if (count > 0 && count == twin_count && g != NULL) {
        size_t size = gpgpu_type_size(type);
        void *raw = xmalloc(count * size);
        test_die_on(gpgpu_buffer_download(g, 0, raw, count * size), "download ghosts");
        uint32_t bad = 0;
        for (uint32_t k = 0; k < count; k++) {
            double got = type == GPGPU_TYPE_F32 ? (double)((float *)raw)[k] : ((double *)raw)[k];
            bad += memcmp(&got, &x[twin[k]], sizeof got) != 0;
        }
        EXPECT(bad == 0, "%s: %u of %u ghost values differ from x", c->name, bad, count);
        free(raw);
    }
    free(twin);
}

/* y = alpha*A*x + beta*y0 in every overlap mode (the same bits), against the serial
 * product and src/ref. */
static void check_product(gpgpu_context *ctx, const spmv_case *c, gpgpu_type type,
                          gpgpu_mpi_overlap overlap)
{
    const gpgpu_csr *a = c->a;
    gpgpu_mpi_matrix_info info;
    double alpha = c->integers ? -2 : -2.5, beta = c->integers ? 3 : 0.5;
    double *x = xmalloc(((size_t)a->cols + 1) * sizeof *x);
    double *y0 = xmalloc(((size_t)a->rows + 1) * sizeof *y0);

    gpgpu_mpi_matrix_get_info(c->m, &info);
    test_values(type, c->integers, 11, x, a->cols);
    test_values(type, c->integers, 12, y0, a->rows);
    gpgpu_mpi_vector *vx = test_vector(c->m, GPGPU_MPI_COLS, x);
    gpgpu_mpi_vector *vy = test_vector(c->m, GPGPU_MPI_ROWS, y0);
    check_halo(c, type, x, vx);
    EXPECT_STATUS(gpgpu_mpi_spmv(c->m, alpha, vx, beta, vy), GPGPU_SUCCESS);
    double *got = test_download(vy);

    /* the same product with beta = 0 (y only written) over a poisoned y */
    gpgpu_mpi_vector *vz = test_vector(c->m, GPGPU_MPI_ROWS, y0);
    EXPECT_STATUS(gpgpu_mpi_vector_fill(vz, NAN), GPGPU_SUCCESS);
    EXPECT_STATUS(gpgpu_mpi_spmv(c->m, alpha, vx, 0, vz), GPGPU_SUCCESS);
    double *got0 = test_download(vz);

    gpgpu_csr ar = rounded(a, type);
    double *serial = serial_product(ctx, type, a, alpha, x, beta, y0);
    double *serial0 = serial_product(ctx, type, a, alpha, x, 0, y0);
    double *cpu = xmalloc(((size_t)a->rows + 1) * sizeof *cpu);
    double *bound = xmalloc(((size_t)a->rows + 1) * sizeof *bound);
    memcpy(cpu, y0, a->rows * sizeof *cpu);
    ref_spmv_csr(&ar, alpha, x, beta, cpu);
    /* Each product within gamma(len + 3) of the exact one (the blocks' two sums add one
     * rounding to ref_spmv_bound's len + 2): two of them within gamma(len + 2) at 3u. */
    ref_spmv_bound(&ar, x, alpha, beta, y0, 3 * unit(type), bound);
    char what[160];
    snprintf(what, sizeof what, "%s %s overlap %d vs serial", c->name, gpgpu_type_name(type),
             (int)overlap);
    uint64_t first = info.first_row;
    double *mine = bound + first;
    check_y(what, got, serial, mine, first, info.local_rows, c->integers);
    snprintf(what, sizeof what, "%s %s overlap %d vs ref", c->name, gpgpu_type_name(type),
             (int)overlap);
    check_y(what, got, cpu, mine, first, info.local_rows, c->integers);
    snprintf(what, sizeof what, "%s %s overlap %d, beta 0", c->name, gpgpu_type_name(type),
             (int)overlap);
    check_y(what, got0, serial0, mine, first, info.local_rows, c->integers);
    gpgpu_csr_free(&ar);
    free(serial);
    free(serial0);
    free(cpu);
    free(bound);
    free(got);
    free(got0);
    free(x);
    free(y0);
    gpgpu_mpi_vector_destroy(vx);
    gpgpu_mpi_vector_destroy(vy);
    gpgpu_mpi_vector_destroy(vz);
}

/* The matrix from each rank's rows (gpgpu_mpi_matrix_create) for the partition. */
static gpgpu_mpi_matrix *from_rows(gpgpu_context *ctx, const gpgpu_csr *a, const uint64_t *rb,
                                   const uint64_t *cb, gpgpu_type type,
                                   gpgpu_mpi_overlap overlap)
{
    gpgpu_mpi_matrix *m = NULL;
    gpgpu_mpi_matrix_desc desc = { .local = { .type = type }, .overlap = overlap };
    gpgpu_csr rows = test_rows_of(a, rb[test_rank], (uint32_t)(rb[test_rank + 1] - rb[test_rank]));

    test_die_on(gpgpu_mpi_matrix_create(ctx, MPI_COMM_WORLD, &desc, &rows,
                                        (uint32_t)(cb[test_rank + 1] - cb[test_rank]), &m),
                "gpgpu_mpi_matrix_create");
    gpgpu_csr_free(&rows);
    return m;
}

/* The row (and column) blocks that gpgpu_mpi_matrix_scatter makes, read back from it. */
static void blocks_of(gpgpu_mpi_matrix *m, uint64_t *rb, uint64_t *cb)
{
    gpgpu_mpi_matrix_info info;
    uint64_t mine[2], *all = xmalloc((size_t)test_ranks * sizeof mine);

    gpgpu_mpi_matrix_get_info(m, &info);
    mine[0] = info.first_row;
    mine[1] = info.first_col;
    MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int r = 0; r < test_ranks; r++) {
        rb[r] = all[2 * r];
        cb[r] = all[2 * r + 1];
    }
    rb[test_ranks] = info.rows;
    cb[test_ranks] = info.cols;
    free(all);
}

/* One matrix on one partition (rb NULL: gpgpu_mpi_matrix_scatter's), every float type the
 * context has; every overlap mode for the first. */
static void run_case(gpgpu_context *ctx, const char *name, const gpgpu_csr *a, const uint64_t *rb,
                     const uint64_t *cb, bool integers)
{
    gpgpu_type types[2] = { GPGPU_TYPE_F32, GPGPU_TYPE_F64 };
    uint64_t *srb = xmalloc(((size_t)test_ranks + 1) * sizeof *srb);
    uint64_t *scb = xmalloc(((size_t)test_ranks + 1) * sizeof *scb);

    for (int t = 0; t < (test_has_f64(ctx) ? 2 : 1); t++) {
        for (gpgpu_mpi_overlap o = GPGPU_MPI_OVERLAP_THREAD; o <= GPGPU_MPI_OVERLAP_NONE; o++) {
            if (o != GPGPU_MPI_OVERLAP_THREAD && strcmp(name, "random, rows evenly") != 0 &&
                strcmp(name, "laplace3d 6, generated") != 0)
                continue;
            spmv_case c = { .name = name, .a = a, .rb = rb, .cb = cb, .integers = integers };
            if (rb == NULL) {
                gpgpu_mpi_matrix_desc desc = { .local = { .type = types[t] }, .overlap = o };
                test_die_on(gpgpu_mpi_matrix_scatter(ctx, MPI_COMM_WORLD, &desc, 0,
                                                     test_rank == 0 ? a : NULL, &c.m),
                            "gpgpu_mpi_matrix_scatter");
                blocks_of(c.m, srb, scb);
                c.rb = srb;
                c.cb = scb;
            } else {
                c.m = from_rows(ctx, a, rb, cb, types[t], o);
            }
            check_product(ctx, &c, types[t], o);
            gpgpu_mpi_matrix_destroy(c.m);
        }
    }
    free(srb);
    free(scb);
}

/* ---------------------------------------------------------------- matrices */

/* Rank r's rows use only columns of rank (r + 1) % P: three entries a row in that block. */
static gpgpu_csr all_ghosts(uint64_t n, const uint64_t *begin)
{
    gpgpu_csr a = { .rows = (uint32_t)n, .cols = (uint32_t)n };
    a.row_ptr = xmalloc((n + 1) * sizeof(uint32_t));
    a.col_idx = xmalloc(3 * n * sizeof(uint32_t));
    a.values = xmalloc(3 * n * sizeof(double));
    a.row_ptr[0] = 0;
    for (uint64_t i = 0; i < n; i++) {
        int r = owner(begin, i), q = (r + 1) % test_ranks;
        uint64_t c0 = begin[q], width = begin[q + 1] - begin[q];
        uint32_t k = a.row_ptr[i];
        for (uint64_t j = 0; j < 3 && j < width; j++)
            a.col_idx[k++] = (uint32_t)(c0 + (i + j * 7) % width);
        /* ascending, without repeats */
        for (uint32_t s = a.row_ptr[i]; s < k; s++)
            for (uint32_t t = s + 1; t < k; t++)
                if (a.col_idx[t] < a.col_idx[s]) {
                    uint32_t tmp = a.col_idx[s];
                    a.col_idx[s] = a.col_idx[t];
                    a.col_idx[t] = tmp;
                }
        uint32_t w = a.row_ptr[i];
        for (uint32_t s = a.row_ptr[i]; s < k; s++)
            if (s == a.row_ptr[i] || a.col_idx[s] != a.col_idx[w - 1])
                a.col_idx[w++] = a.col_idx[s];
        a.row_ptr[i + 1] = w;
    }
    a.nnz = a.row_ptr[n];
    test_integer_values(&a, 21);
    return a;
}

/* Every rank's rows use its own columns only: the blocks of the partition on the diagonal. */
static gpgpu_csr block_diagonal(uint64_t n, const uint64_t *begin)
{
    gpgpu_csr a = { .rows = (uint32_t)n, .cols = (uint32_t)n };
    a.row_ptr = xmalloc((n + 1) * sizeof(uint32_t));
    a.col_idx = xmalloc(3 * n * sizeof(uint32_t));
    a.values = xmalloc(3 * n * sizeof(double));
    a.row_ptr[0] = 0;
    for (uint64_t i = 0; i < n; i++) {
        int r = owner(begin, i);
        uint32_t k = a.row_ptr[i];
        for (int64_t j = (int64_t)i - 1; j <= (int64_t)i + 1; j++) {
            if (j >= (int64_t)begin[r] && j < (int64_t)begin[r + 1])
                a.col_idx[k++] = (uint32_t)j;
        }
        a.row_ptr[i + 1] = k;
    }
    a.nnz = a.row_ptr[n];
    test_integer_values(&a, 22);
    return a;
}

static gpgpu_csr generated(gpgpu_generator gen, uint32_t size, uint32_t avg, uint64_t seed)
{
    gpgpu_csr a;
    test_die_on(gpgpu_generate(gen, size, avg, seed, &a), "gpgpu_generate");
    return a;
}

/* -------------------------------------------------------------------- cases */

static void test_generated_laplacian(gpgpu_context *ctx)
{
    gpgpu_csr a = generated(GPGPU_GEN_LAPLACE3D_7, 6, 0, 0);
    uint64_t *begin = partition_even(a.rows);
    gpgpu_type types[2] = { GPGPU_TYPE_F32, GPGPU_TYPE_F64 };

    /* gpgpu_mpi_matrix_generate's rows are gpgpu_generate's, split evenly. */
    for (int t = 0; t < (test_has_f64(ctx) ? 2 : 1); t++) {
        for (gpgpu_mpi_overlap o = GPGPU_MPI_OVERLAP_THREAD; o <= GPGPU_MPI_OVERLAP_NONE; o++) {
            spmv_case c = { .name = "laplace3d 6, generated", .a = &a, .rb = begin, .cb = begin,
                            .integers = true };
            gpgpu_mpi_matrix_desc desc = { .local = { .type = types[t] }, .overlap = o };
            test_die_on(gpgpu_mpi_matrix_generate(ctx, MPI_COMM_WORLD, &desc,
                                                  GPGPU_GEN_LAPLACE3D_7, 6, &c.m),
                        "gpgpu_mpi_matrix_generate");
            gpgpu_mpi_matrix_info info;
            gpgpu_mpi_matrix_get_info(c.m, &info);
            EXPECT(info.nnz == a.nnz && info.rows == a.rows,
                   "generated: %llu entries, %llu rows; gpgpu_generate %zu, %u",
                   (unsigned long long)info.nnz, (unsigned long long)info.rows, a.nnz, a.rows);
            check_product(ctx, &c, types[t], o);
            gpgpu_mpi_matrix_destroy(c.m);
        }
    }
    gpgpu_mpi_matrix *m = NULL;
    EXPECT_STATUS(gpgpu_mpi_matrix_generate(ctx, MPI_COMM_WORLD,
                                            &(gpgpu_mpi_matrix_desc){ .local.type = GPGPU_TYPE_F32 },
                                            GPGPU_GEN_RANDOM, 6, &m),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT(m == NULL, "a refused generator left a matrix");
    free(begin);
    gpgpu_csr_free(&a);
}

static void test_partitions(gpgpu_context *ctx)
{
    gpgpu_csr a = generated(GPGPU_GEN_RANDOM, 200, 6, 5);
    uint64_t *even = partition_even(a.rows), *hole = partition_hole(a.rows);

    run_case(ctx, "random, rows evenly", &a, even, even, false);
    run_case(ctx, "random, an empty rank", &a, hole, hole, false);
    test_integer_values(&a, 7);
    run_case(ctx, "random integers, by nonzeros", &a, NULL, NULL, true);
    run_case(ctx, "random integers, rows evenly", &a, even, even, true);

    /* More ranks than rows: P - 1 rows (one with one rank); the split by nonzeros leaves at
     * least one rank without rows. */
    uint32_t n = test_ranks > 1 ? (uint32_t)test_ranks - 1 : 1;
    if (test_ranks == 1)
        test_note("more ranks than rows: one rank has the one row (nothing more to check)");
    gpgpu_csr few = generated(GPGPU_GEN_DENSE, n, 0, 9);
    test_integer_values(&few, 9);
    run_case(ctx, "more ranks than rows, by nonzeros", &few, NULL, NULL, true);
    uint64_t *few_even = partition_even(n);
    run_case(ctx, "more ranks than rows, rows evenly", &few, few_even, few_even, true);

    uint64_t *bd_even = partition_even(90);
    gpgpu_csr bd = block_diagonal(90, bd_even);
    run_case(ctx, "no off-diagonal entries", &bd, bd_even, bd_even, true);
    gpgpu_mpi_matrix *m = from_rows(ctx, &bd, bd_even, bd_even, GPGPU_TYPE_F32,
                                    GPGPU_MPI_OVERLAP_DEFAULT);
    gpgpu_mpi_matrix_info info;
    gpgpu_mpi_matrix_get_info(m, &info);
    EXPECT(info.ghosts == 0 && info.sends == 0 && info.offd_nnz == 0 && info.offd_ranges == 0,
           "block diagonal: %u ghosts, %u sends, %zu off-diagonal entries", info.ghosts,
           info.sends, info.offd_nnz);
    gpgpu_mpi_matrix_destroy(m);

    gpgpu_csr ag = all_ghosts(90, bd_even);
    run_case(ctx, "every column a ghost", &ag, bd_even, bd_even, true);
    m = from_rows(ctx, &ag, bd_even, bd_even, GPGPU_TYPE_F32, GPGPU_MPI_OVERLAP_DEFAULT);
    gpgpu_mpi_matrix_get_info(m, &info);
    if (test_ranks > 1)
        EXPECT(info.diag_nnz == 0 && info.offd_nnz > 0 && info.ghosts > 0,
               "every column a ghost: %zu diagonal entries, %u ghosts", info.diag_nnz,
               info.ghosts);
    else
        test_note("every column a ghost: one rank owns every column (nothing to check)");
    gpgpu_mpi_matrix_destroy(m);

    free(even);
    free(hole);
    free(few_even);
    free(bd_even);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&few);
    gpgpu_csr_free(&bd);
    gpgpu_csr_free(&ag);
}

/* Files (tests/matrices/matrices.py's roles): the SPD one read on rank 0
 * (gpgpu_mpi_matrix_read), the rectangular one scattered. */
static void test_files(gpgpu_context *ctx)
{
    const char *spd = test_matrix_role("SPD"), *rectangular = test_matrix_role("RECTANGULAR");
    if (spd == NULL || rectangular == NULL) {
        test_note("GPGPU_MATRIX_SPD or _RECTANGULAR is not set (the program was not run through "
                  "tests/matrices/matrices.py): the file cases run on a generated matrix");
        gpgpu_csr a = generated(GPGPU_GEN_BANDED, 150, 4, 3);
        run_case(ctx, "banded (no files)", &a, NULL, NULL, false);
        gpgpu_csr_free(&a);
        return;
    }
    const char *path = spd;
    gpgpu_csr a;
    char msg[256];
    test_die_on(gpgpu_mtx_read_matrix(path, &a, NULL, msg, sizeof msg), path);
    gpgpu_type type = test_has_f64(ctx) ? GPGPU_TYPE_F64 : GPGPU_TYPE_F32;
    gpgpu_mpi_matrix_desc desc = { .local = { .type = type } };
    gpgpu_mtx_header h;
    spmv_case c = { .name = "the SPD file, read on rank 0", .a = &a };
    uint64_t *rb = xmalloc(((size_t)test_ranks + 1) * sizeof *rb);
    uint64_t *cb = xmalloc(((size_t)test_ranks + 1) * sizeof *cb);
    EXPECT_STATUS(gpgpu_mpi_matrix_read(ctx, MPI_COMM_WORLD, &desc, 0, path, &h, &c.m),
                  GPGPU_SUCCESS);
    EXPECT(strcmp(h.symmetry, "symmetric") == 0 && h.rows == a.rows,
           "the header on every rank: %s, %u rows, the file %u", h.symmetry, h.rows, a.rows);
    if (c.m != NULL) {
        blocks_of(c.m, rb, cb);
        c.rb = rb;
        c.cb = cb;
        check_product(ctx, &c, type, GPGPU_MPI_OVERLAP_DEFAULT);
        gpgpu_mpi_matrix_destroy(c.m);
    }
    gpgpu_csr_free(&a);

    test_die_on(gpgpu_mtx_read_matrix(rectangular, &a, NULL, msg, sizeof msg), rectangular);
    run_case(ctx, "the rectangular file, scattered", &a, NULL, NULL, false);
    gpgpu_csr_free(&a);

    gpgpu_mpi_matrix *m = NULL;
    EXPECT_STATUS(gpgpu_mpi_matrix_read(ctx, MPI_COMM_WORLD, &desc, 0, "/nonexistent.mtx", NULL,
                                        &m),
                  GPGPU_ERROR_IO);
    EXPECT(strncmp(gpgpu_mpi_last_error(), "rank 0: ", 8) == 0,
           "a file rank 0 cannot read: '%s' does not name rank 0", gpgpu_mpi_last_error());
    free(rb);
    free(cb);
}

/* dot, norms, axpby and axpby_dot against the CPU on an uneven layout. */
static void test_vectors(gpgpu_context *ctx)
{
    gpgpu_type type = test_has_f64(ctx) ? GPGPU_TYPE_F64 : GPGPU_TYPE_F32;
    uint32_t local = 17 + 5 * (uint32_t)test_rank;
    uint64_t first = 0, n = 0;
    for (int r = 0; r < test_ranks; r++) {
        first += r < test_rank ? 17 + 5 * (uint64_t)r : 0;
        n += 17 + 5 * (uint64_t)r;
    }
    double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
    test_values(type, false, 31, x, n);
    test_values(type, false, 32, y, n);
    gpgpu_mpi_vector *vx = NULL, *vy = NULL;
    test_die_on(gpgpu_mpi_vector_create(ctx, MPI_COMM_WORLD, type, local, &vx), "create");
    test_die_on(gpgpu_mpi_vector_create(ctx, MPI_COMM_WORLD, type, local, &vy), "create");
    gpgpu_mpi_vector_info info;
    gpgpu_mpi_vector_get_info(vx, &info);
    EXPECT(info.first == first && info.size == n && info.local_size == local,
           "vector layout: first %llu of %llu", (unsigned long long)info.first,
           (unsigned long long)info.size);
    EXPECT_STATUS(gpgpu_mpi_vector_scatter(vx, 0, test_rank == 0 ? x : NULL), GPGPU_SUCCESS);
    EXPECT_STATUS(gpgpu_mpi_vector_scatter(vy, test_ranks - 1, test_rank == test_ranks - 1 ? y
                                                                                      : NULL),
                  GPGPU_SUCCESS);
    double dot = 0, abs = 0, norm_inf = 0, got = 0;
    for (uint64_t i = 0; i < n; i++) {
        dot += x[i] * y[i];
        abs += fabs(x[i] * y[i]);
        norm_inf = fmax(norm_inf, fabs(x[i]));
    }
    /* a tree on each rank, the ranks' sums added in double: depth below n + P */
    double tol = 2 * (double)(n + (uint64_t)test_ranks) * unit(type) * abs;
    EXPECT_STATUS(gpgpu_mpi_dot(vx, vy, &got), GPGPU_SUCCESS);
    EXPECT(fabs(got - dot) <= tol, "dot %.17g, expected %.17g", got, dot);
    EXPECT_STATUS(gpgpu_mpi_norm(vx, GPGPU_MPI_NORM_INF, &got), GPGPU_SUCCESS);
    EXPECT(got == norm_inf, "norm inf %.17g, expected %.17g", got, norm_inf);
    EXPECT_STATUS(gpgpu_mpi_norm(vx, GPGPU_MPI_NORM_2, &got), GPGPU_SUCCESS);
    double norm2 = 0;
    for (uint64_t i = 0; i < n; i++)
        norm2 += x[i] * x[i];
    EXPECT(fabs(got - sqrt(norm2)) <= tol, "norm 2 %.17g, expected %.17g", got, sqrt(norm2));
    /* y = 2x - y, then (y = x + y).y */
    EXPECT_STATUS(gpgpu_mpi_axpby(2, vx, -1, vy), GPGPU_SUCCESS);
    double *mine = test_download(vy);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < local; i++) {
        double want = 2 * x[first + i] - y[first + i];
        if (type == GPGPU_TYPE_F32)
            want = (double)(float)want;
        bad += fabs(mine[i] - want) > 4 * unit(type) * (fabs(2 * x[first + i]) + fabs(y[first + i]));
    }
    EXPECT(bad == 0, "axpby: %u of %u elements off", bad, local);
    EXPECT_STATUS(gpgpu_mpi_axpby_dot(1, vx, 1, vy, vy, &got), GPGPU_SUCCESS);
    double want = 0, wabs = 0;
    for (uint64_t i = 0; i < n; i++) {
        double v = 3 * x[i] - y[i];
        want += v * v;
        wabs += v * v;
    }
    EXPECT(fabs(got - want) <= 8 * tol + 2 * (double)n * unit(type) * wabs,
           "axpby_dot %.17g, expected %.17g", got, want);
    /* gather back what was scattered */
    double *back = test_rank == 0 ? xmalloc(n * sizeof *back) : NULL;
    EXPECT_STATUS(gpgpu_mpi_vector_gather(vx, 0, back), GPGPU_SUCCESS);
    if (test_rank == 0)
        EXPECT(memcmp(back, x, n * sizeof *x) == 0, "gather: not the scattered vector");
    /* an empty rank's NaN and a NaN anywhere */
    EXPECT_STATUS(gpgpu_mpi_vector_fill(vx, NAN), GPGPU_SUCCESS);
    EXPECT_STATUS(gpgpu_mpi_norm(vx, GPGPU_MPI_NORM_INF, &got), GPGPU_SUCCESS);
    EXPECT(isnan(got), "norm inf of NaNs: %g", got);
    free(back);
    free(mine);
    free(x);
    free(y);
    gpgpu_mpi_vector_destroy(vx);
    gpgpu_mpi_vector_destroy(vy);
}

int main(int argc, char **argv)
{
    gpgpu_context *ctx = test_init(&argc, &argv);

    test_vectors(ctx);
    test_generated_laplacian(ctx);
    test_partitions(ctx);
    test_files(ctx);
    return test_finish(ctx);
}
