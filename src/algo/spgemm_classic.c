/* Kiciak's sparse x sparse product (GPUMultSparseMatricesf), stage by stage:
 * every product a_ik * b_kj expanded into an (i, j, value) triple, each row's
 * triples sorted by column with the bitonic network (all rows at once, one
 * step per dispatch), runs of equal (i, j) flagged, counted and summed
 * pairwise, then C's columns, values and row pointers written. src/algo/spgemm.h
 * says what each stage does; docs/ALGORITHMS.md why it costs what it costs. */
#include <stdio.h>
#include <stdlib.h>

#include "algo/scan.h"
#include "algo/spgemm.h"

/* The classic stages index invocations in 32 bits, padding groups included. */
#define CLASSIC_MAX_INVOCATIONS ((size_t)1 << 31)

static gpgpu_status classic_dispatch(gpgpu_context *ctx, const spgemm_classic *s,
                                     const spgemm_operand *a, const spgemm_operand *b,
                                     unsigned stage, uint32_t t, uint32_t nn, bool reverse,
                                     size_t invocations)
{
    CHECK(invocations <= CLASSIC_MAX_INVOCATIONS, ctx, GPGPU_ERROR_TOO_LARGE,
          "gpgpu_spgemm (classic): stage %u needs %zu invocations in one step, more than its "
          "32-bit indices reach; use the fast algorithm",
          stage, invocations);
    exec_dispatch d = spgemm_dispatch(s->a->type, stage, CLASSIC_WG, 1, a, b);
    d.bind[4] = stage == SPGEMM_STAGE_CLASSIC_COUNT ? s->off
              : stage == SPGEMM_STAGE_CLASSIC_EXPAND ? s->off : s->tab;
    d.bind[5] = s->prod;
    d.bind[6] = s->pairs;
    d.params[SPGEMM_P_PRODUCTS] = (uint32_t)s->products;
    d.params[SPGEMM_P_TABLGT] = (uint32_t)s->tablgt;
    d.params[SPGEMM_P_NNZ_C] = (uint32_t)s->nnz_c;
    d.params[SPGEMM_P_STEP_T] = t;
    d.params[SPGEMM_P_NN] = nn;
    d.params[SPGEMM_P_REVERSE] = reverse;
    d.params[SPGEMM_P_C_IDX] = s->a->rows + 1;
    /* Kiciak binds C where A was: its ints for COLUMNS and ROW_PTRS, its values for VALUES. */
    if (stage == SPGEMM_STAGE_CLASSIC_COLUMNS || stage == SPGEMM_STAGE_CLASSIC_ROW_PTRS)
        d.bind[0] = s->c_ints;
    if (stage == SPGEMM_STAGE_CLASSIC_VALUES)
        d.bind[1] = s->c_vals;
    d.groups = algo_groups(invocations, CLASSIC_WG);
    return algo_stage(ctx, &d);
}

/* How many invocations a stage covers (Kiciak's EXECSTAGE sizes). */
static size_t invocations_of(const spgemm_classic *s, unsigned stage, uint32_t t, uint32_t nn)
{
    size_t rows = s->a->rows;
    switch (stage) {
    case SPGEMM_STAGE_CLASSIC_COUNT: return s->a->nnz ? s->a->nnz : 1;
    case SPGEMM_STAGE_CLASSIC_EXPAND: return s->products;
    case SPGEMM_STAGE_CLASSIC_ROW_STARTS: return rows ? rows : 1;
    case SPGEMM_STAGE_CLASSIC_ROW_LENGTHS: return rows;
    case SPGEMM_STAGE_CLASSIC_ROW_MAX:
    case SPGEMM_STAGE_CLASSIC_RUN_MAX: return t / 2;
    case SPGEMM_STAGE_CLASSIC_SORT: return rows * (size_t)(nn / 2);
    case SPGEMM_STAGE_CLASSIC_FLAGS: return s->products;
    case SPGEMM_STAGE_CLASSIC_COLUMNS: return s->products + 1;
    case SPGEMM_STAGE_CLASSIC_RUNS: return s->nnz_c;
    case SPGEMM_STAGE_CLASSIC_SUMS: return s->nnz_c * (size_t)(t / 2);
    case SPGEMM_STAGE_CLASSIC_VALUES: return s->nnz_c;
    case SPGEMM_STAGE_CLASSIC_ROW_PTRS: return rows ? rows : 1;
    default: return 0;
    }
}

gpgpu_status spgemm_classic_stage(gpgpu_context *ctx, const spgemm_classic *s, unsigned stage,
                                  uint32_t t, uint32_t nn, bool reverse)
{
    CHECK(stage >= SPGEMM_STAGE_CLASSIC_COUNT && stage <= SPGEMM_STAGE_CLASSIC_ROW_PTRS, ctx,
          GPGPU_ERROR_INVALID_ARGUMENT, "spgemm_classic_stage: no stage %u", stage);
    CHECK(stage != SPGEMM_STAGE_CLASSIC_SORT || nn >= 2, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "spgemm_classic_stage: SORT needs nn >= 2");
    CHECK(stage != SPGEMM_STAGE_CLASSIC_SUMS || t >= 2, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "spgemm_classic_stage: SUMS needs t >= 2");
    spgemm_operand a, b;
    TRY(spgemm_operand_open(ctx, s->a, &a));
    gpgpu_status st = spgemm_operand_open(ctx, s->b, &b);
    if (st == GPGPU_SUCCESS)
        st = classic_dispatch(ctx, s, &a, &b, stage, t, nn, reverse,
                              invocations_of(s, stage, t, nn));
    spgemm_operand_close(&a);
    spgemm_operand_close(&b);
    return st;
}

gpgpu_status spgemm_classic_scan(gpgpu_context *ctx, gpgpu_buffer *buf, size_t off, size_t n)
{
    unsigned k = 0;
    for (size_t m = n ? n - 1 : 0; m > 0; m >>= 1, k++)
        TRY(scan_stage_step(ctx, GPGPU_TYPE_U32, buf, off, n, k));
    return GPGPU_SUCCESS;
}

static gpgpu_status read_word(gpgpu_context *ctx, gpgpu_buffer *buf, size_t at, uint32_t *out)
{
    return ctx->exec->buffer_read(buf, at * sizeof(uint32_t), out, sizeof *out);
}

/* A work buffer of `count` elements of `size` bytes, within one binding's reach. */
static gpgpu_status work_buffer(gpgpu_context *ctx, size_t count, size_t size, const char *what,
                                gpgpu_buffer **out)
{
    size_t bytes = count * size;
    CHECK(count <= ALGO_MAX_COUNT && bytes <= ctx->info.max_storage_range_bytes, ctx,
          GPGPU_ERROR_TOO_LARGE,
          "gpgpu_spgemm (classic): its %s array needs %zu bytes, more than one storage binding "
          "of %s holds (%zu); use the fast algorithm",
          what, bytes, ctx->info.renderer, ctx->info.max_storage_range_bytes);
    return buffer_create_internal(ctx, bytes ? bytes : 16, out);
}

static const char *const stage_names[] = {
    [SPGEMM_STAGE_CLASSIC_COUNT] = "stage 1, COUNT",
    [SPGEMM_STAGE_CLASSIC_EXPAND] = "stage 2, EXPAND",
    [SPGEMM_STAGE_CLASSIC_ROW_STARTS] = "stage 3, ROW_STARTS",
    [SPGEMM_STAGE_CLASSIC_ROW_LENGTHS] = "stage 4, ROW_LENGTHS",
    [SPGEMM_STAGE_CLASSIC_ROW_MAX] = "stage 5, ROW_MAX",
    [SPGEMM_STAGE_CLASSIC_SORT] = "stage 6, SORT",
    [SPGEMM_STAGE_CLASSIC_FLAGS] = "stage 7, FLAGS",
    [SPGEMM_STAGE_CLASSIC_COLUMNS] = "stage 8, COLUMNS",
    [SPGEMM_STAGE_CLASSIC_RUNS] = "stage 9, RUNS",
    [SPGEMM_STAGE_CLASSIC_RUN_MAX] = "stage 10, RUN_MAX",
    [SPGEMM_STAGE_CLASSIC_SUMS] = "stage 11, SUMS",
    [SPGEMM_STAGE_CLASSIC_VALUES] = "stage 12, VALUES",
    [SPGEMM_STAGE_CLASSIC_ROW_PTRS] = "stage 13, ROW_PTRS",
};

/* With a progress callback, each step is waited for and then reported: the classic product
 * can run for minutes (a large sort is hundreds of steps), and where work is recorded
 * (Vulkan) the steps would otherwise all run after the last line. */
static gpgpu_status report(gpgpu_context *ctx, spgemm_classic *s, const char *what)
{
    char line[160];

    if (s->progress == NULL)
        return GPGPU_SUCCESS;
    TRY(ctx->exec->finish(ctx));
    snprintf(line, sizeof line, "spgemm (classic): step %u done (%s, %zu products)", ++s->steps,
             what, s->products);
    s->progress(line, s->user_data);
    return GPGPU_SUCCESS;
}

/* The pairwise-max steps of stage 5 or 10 over t words, then the maximum read back. */
static gpgpu_status pairwise_max(gpgpu_context *ctx, spgemm_classic *s, const spgemm_operand *a,
                                 const spgemm_operand *b, unsigned stage, size_t t,
                                 size_t at, uint32_t *max)
{
    for (; t > 1; t = (t + 1) / 2) {
        TRY(classic_dispatch(ctx, s, a, b, stage, (uint32_t)t, 0, false, t / 2));
        TRY(report(ctx, s, stage_names[stage]));
    }
    return read_word(ctx, s->tab, at, max);
}

/* Kiciak's driver after stage 1: the product is known to have `products` > 0 triples. */
static gpgpu_status run_stages(gpgpu_context *ctx, spgemm_classic *s, const spgemm_operand *a,
                               const spgemm_operand *b, gpgpu_matrix **c)
{
    gpgpu_type type = s->a->type;
    uint32_t rows = s->a->rows;
    TRY(work_buffer(ctx, 2 * s->products, 4, "pairs", &s->pairs));
    TRY(work_buffer(ctx, s->products, gpgpu_type_size(type), "products", &s->prod));
    s->tablgt = (s->products > rows ? s->products : rows) + 1;
    TRY(work_buffer(ctx, 3 * s->tablgt, 4, "tab", &s->tab));
#define STAGE(N, T, NN, REV)                                                         \
    do {                                                                             \
        TRY(classic_dispatch(ctx, s, a, b, N, T, NN, REV, invocations_of(s, N, T, NN))); \
        TRY(report(ctx, s, stage_names[N]));                                         \
    } while (0)
    STAGE(SPGEMM_STAGE_CLASSIC_EXPAND, 0, 0, false);
    STAGE(SPGEMM_STAGE_CLASSIC_ROW_STARTS, 0, 0, false);
    STAGE(SPGEMM_STAGE_CLASSIC_ROW_LENGTHS, 0, 0, false);
    uint32_t longest, nn;
    TRY(pairwise_max(ctx, s, a, b, SPGEMM_STAGE_CLASSIC_ROW_MAX, rows, s->tablgt, &longest));
    nn = algo_ceil_pow2(longest);
    for (uint32_t h = 2; h <= nn; h <<= 1) { /* NetSort on every row at once */
        STAGE(SPGEMM_STAGE_CLASSIC_SORT, h, nn, true);
        for (uint32_t g = h / 2; g >= 2; g >>= 1)
            STAGE(SPGEMM_STAGE_CLASSIC_SORT, g, nn, false);
    }
    STAGE(SPGEMM_STAGE_CLASSIC_FLAGS, 0, 0, false);
    TRY(spgemm_classic_scan(ctx, s->tab, 1, s->products));
    TRY(report(ctx, s, "iPrefixSum of the flags"));
    uint32_t nnz_c;
    TRY(read_word(ctx, s->tab, s->products, &nnz_c));
    s->nnz_c = nnz_c;
    TRY(spgemm_new_matrix(ctx, type, rows, s->b->cols, nnz_c, c));
    s->c_ints = (*c)->owned_ints;
    s->c_vals = (*c)->owned_values;
    STAGE(SPGEMM_STAGE_CLASSIC_COLUMNS, 0, 0, false);
    STAGE(SPGEMM_STAGE_CLASSIC_RUNS, 0, 0, false);
    uint32_t longest_run;
    TRY(pairwise_max(ctx, s, a, b, SPGEMM_STAGE_CLASSIC_RUN_MAX, nnz_c, 2 * s->tablgt,
                     &longest_run));
    STAGE(SPGEMM_STAGE_CLASSIC_RUNS, 0, 0, false); /* tab3 again: the maxima overwrote it */
    for (size_t t = longest_run; t > 1; t = (t + 1) / 2)
        STAGE(SPGEMM_STAGE_CLASSIC_SUMS, (uint32_t)t, 0, false);
    STAGE(SPGEMM_STAGE_CLASSIC_VALUES, 0, 0, false);
    STAGE(SPGEMM_STAGE_CLASSIC_ROW_PTRS, 0, 0, false);
#undef STAGE
    return GPGPU_SUCCESS;
}

gpgpu_status spgemm_run_classic(gpgpu_context *ctx, const gpgpu_matrix *a, const gpgpu_matrix *b,
                                gpgpu_matrix **c, gpgpu_spgemm_stats *stats,
                                gpgpu_progress_callback progress, void *user_data)
{
    /* Products are indexed in 32 bits: bound them before counting them in a u32 scan. */
    double bound = (double)a->nnz * (double)b->stats.max;
    CHECK(bound <= (double)ALGO_MAX_COUNT, ctx, GPGPU_ERROR_TOO_LARGE,
          "gpgpu_spgemm (classic): up to %.0f products (nnz(A) x B's longest row), past the "
          "2^31 - 1 its 32-bit indices reach; use the fast algorithm",
          bound);
    spgemm_operand oa = {0}, ob = {0};
    spgemm_classic s = {.a = a, .b = b, .progress = progress, .user_data = user_data};
    gpgpu_status st = spgemm_operand_open(ctx, a, &oa);
    if (st == GPGPU_SUCCESS)
        st = spgemm_operand_open(ctx, b, &ob);
    if (st == GPGPU_SUCCESS)
        st = work_buffer(ctx, a->nnz + 1, 4, "off", &s.off);
    if (st == GPGPU_SUCCESS)
        st = classic_dispatch(ctx, &s, &oa, &ob, SPGEMM_STAGE_CLASSIC_COUNT, 0, 0, false,
                              invocations_of(&s, SPGEMM_STAGE_CLASSIC_COUNT, 0, 0));
    if (st == GPGPU_SUCCESS)
        st = spgemm_classic_scan(ctx, s.off, 1, a->nnz);
    uint32_t products = 0;
    if (st == GPGPU_SUCCESS && a->nnz > 0)
        st = read_word(ctx, s.off, a->nnz, &products);
    s.products = products;
    if (st == GPGPU_SUCCESS && products == 0) /* no products: C is zero */
        st = spgemm_new_matrix(ctx, a->type, a->rows, b->cols, 0, c);
    else if (st == GPGPU_SUCCESS)
        st = run_stages(ctx, &s, &oa, &ob, c);
    if (st == GPGPU_SUCCESS && stats) {
        size_t work = (a->nnz + 1) * 4 + s.products * (8 + gpgpu_type_size(a->type)) +
                      3 * s.tablgt * 4;
        *stats = (gpgpu_spgemm_stats){.products = s.products, .nnz = s.nnz_c,
                                      .peak_bytes = work + (*c)->bytes};
    }
    if (st != GPGPU_SUCCESS) {
        gpgpu_matrix_destroy(*c);
        *c = NULL;
    }
    buffer_destroy_internal(s.off);
    buffer_destroy_internal(s.pairs);
    buffer_destroy_internal(s.prod);
    buffer_destroy_internal(s.tab);
    spgemm_operand_close(&oa);
    spgemm_operand_close(&ob);
    return st;
}
