/* y = alpha*A*x + beta*y on every format: Kiciak's classic five stages, one
 * invocation per row (CSR, ELL, SELL, BSR: Radomski's kernels), Mossaiby's
 * vector kernel, and the balanced tiles of nonzeros (CSR, and COO whose rows
 * are sorted). See docs/ALGORITHMS.md. */
#include <string.h>

#include "algo/spmv.h"

/* Parameters of glsl/spmv.comp after the stage. */

/* A dispatch of `stage` on a's arrays as CSR-like kernels bind them: ptr at 0, idx at 1,
 * values at 2; `entries` is what the stage may index in idx and values. */
static exec_dispatch matrix_stage(const gpgpu_matrix *a, unsigned stage, unsigned wg,
                                  unsigned items, spmv_array ptr, spmv_array idx,
                                  size_t entries)
{
    exec_dispatch d = {.variant = {"spmv", a->type, 0, wg, items}};
    d.params[0] = stage;
    d.params[SPMV_P_ROWS] = a->rows;
    d.params[SPMV_P_COLS] = a->cols;
    d.params[SPMV_P_NNZ] = (uint32_t)entries;
    d.bind[0] = ptr.buf;
    d.bind[1] = idx.buf;
    d.bind[2] = a->val.buf;
    if (ptr.buf)
        d.params[SPMV_P_PTR_OFF] = algo_index(ptr.buf, ptr.off, SPMV_U32);
    if (idx.buf)
        d.params[SPMV_P_IDX_OFF] = algo_index(idx.buf, idx.off, SPMV_U32);
    d.params[SPMV_P_VAL_OFF] = algo_index(a->val.buf, a->val.off, a->type);
    return d;
}

static exec_dispatch csr_stage(const gpgpu_matrix *a, unsigned stage, unsigned wg,
                               unsigned items)
{
    return matrix_stage(a, stage, wg, items, a->ptr, a->idx, a->nnz);
}

static void bind_x(exec_dispatch *d, gpgpu_type type, gpgpu_buffer *x, size_t x_off)
{
    d->bind[3] = x;
    d->params[SPMV_P_X_OFF] = algo_index(x, x_off, type);
}

static void bind_y(exec_dispatch *d, gpgpu_type type, double alpha, double beta,
                   gpgpu_buffer *y, size_t y_off)
{
    d->bind[4] = y;
    d->params[SPMV_P_Y_OFF] = algo_index(y, y_off, type);
    algo_put_scalar(d, SPMV_P_ALPHA, type, alpha);
    algo_put_scalar(d, SPMV_P_BETA, type, beta);
}

static void bind_aux(exec_dispatch *d, gpgpu_buffer *aux, size_t aux_off)
{
    d->bind[5] = aux;
    d->params[SPMV_P_AUX_OFF] = algo_index(aux, aux_off, SPMV_U32);
}

static void bind_work(exec_dispatch *d, gpgpu_type type, gpgpu_buffer *work, size_t work_off)
{
    d->bind[6] = work;
    d->params[SPMV_P_WORK_OFF] = algo_index(work, work_off, type);
}

/* ------------------------------------------------------- classic, stage by stage */

gpgpu_status spmv_stage_lengths(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_buffer *lgt,
                                size_t lgt_off)
{
    exec_dispatch d = csr_stage(a, SPMV_STAGE_LENGTHS, CLASSIC_WG, 1);
    bind_aux(&d, lgt, lgt_off);
    d.groups = algo_groups(a->rows, CLASSIC_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status spmv_stage_max(gpgpu_context *ctx, gpgpu_buffer *lgt, size_t lgt_off, uint32_t t)
{
    exec_dispatch d = {.variant = {"spmv", GPGPU_TYPE_F32, 0, CLASSIC_WG, 1}};
    d.params[0] = SPMV_STAGE_MAX;
    d.params[SPMV_P_K] = t;
    bind_aux(&d, lgt, lgt_off);
    d.groups = algo_groups(t / 2, CLASSIC_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status spmv_stage_products(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_buffer *x,
                                 size_t x_off, gpgpu_buffer *work, size_t work_off)
{
    exec_dispatch d = csr_stage(a, SPMV_STAGE_PRODUCTS, CLASSIC_WG, 1);
    bind_x(&d, a->type, x, x_off);
    bind_work(&d, a->type, work, work_off);
    d.groups = algo_groups(a->nnz, CLASSIC_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status spmv_stage_sums(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_buffer *lgt,
                             size_t lgt_off, gpgpu_buffer *work, size_t work_off, uint32_t t)
{
    exec_dispatch d = csr_stage(a, SPMV_STAGE_SUMS, CLASSIC_WG, 1);
    bind_aux(&d, lgt, lgt_off);
    bind_work(&d, a->type, work, work_off);
    d.params[SPMV_P_K] = t;
    d.groups = algo_groups((size_t)a->rows * (t / 2), CLASSIC_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status spmv_stage_copy(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_buffer *lgt,
                             size_t lgt_off, gpgpu_buffer *work, size_t work_off, double alpha,
                             double beta, gpgpu_buffer *y, size_t y_off)
{
    exec_dispatch d = csr_stage(a, SPMV_STAGE_COPY, CLASSIC_WG, 1);
    bind_aux(&d, lgt, lgt_off);
    bind_work(&d, a->type, work, work_off);
    bind_y(&d, a->type, alpha, beta, y, y_off);
    d.groups = algo_groups(a->rows, CLASSIC_WG);
    return algo_stage(ctx, &d);
}

/* ------------------------------------------------------------------ drivers */

/* One product's arguments. */
typedef struct spmv_call {
    const gpgpu_matrix *a;
    double alpha, beta;
    gpgpu_buffer *x, *y;
    size_t x_off, y_off;
} spmv_call;

/* Kiciak's GPUMultSparseMatrixVectorf with *lmax = 0: the longest row is found on the
 * GPU (stage 1 spoils the lengths, so stage 0 runs again), then all products, the
 * pairwise sums within rows, and the copy out. Scratch 0 holds the row lengths,
 * scratch 1 the products. */
static gpgpu_status run_classic(gpgpu_context *ctx, const spmv_call *c)
{
    const gpgpu_matrix *a = c->a;
    gpgpu_buffer *lgt, *work;
    TRY(ctx_scratch(ctx, 0, (size_t)a->rows * sizeof(uint32_t), &lgt));
    TRY(ctx_scratch(ctx, 1, a->nnz * gpgpu_type_size(a->type), &work));
    TRY(spmv_stage_lengths(ctx, a, lgt, 0));
    for (uint32_t t = a->rows; t > 1; t = (t + 1) / 2)
        TRY(spmv_stage_max(ctx, lgt, 0, t));
    uint32_t lmax;
    TRY(ctx->exec->buffer_read(lgt, 0, &lmax, sizeof lmax));
    CHECK((uint64_t)a->rows * (lmax / 2) <= UINT32_MAX, ctx, GPGPU_ERROR_TOO_LARGE,
          "gpgpu_spmv: CLASSIC_SPMV sums %u rows of up to %u products with one invocation "
          "per pair, more than 2^32 invocations; use SPMV_BALANCED",
          a->rows, lmax);
    TRY(spmv_stage_lengths(ctx, a, lgt, 0));
    TRY(spmv_stage_products(ctx, a, c->x, c->x_off, work, 0));
    for (uint32_t t = lmax; t > 1; t = (t + 1) / 2)
        TRY(spmv_stage_sums(ctx, a, lgt, 0, work, 0, t));
    return spmv_stage_copy(ctx, a, lgt, 0, work, 0, c->alpha, c->beta, c->y, c->y_off);
}

/* A kernel of one invocation per row (or column, for CSC's products). */
static gpgpu_status per_row(gpgpu_context *ctx, const spmv_call *c, exec_dispatch d,
                            size_t invocations)
{
    bind_x(&d, c->a->type, c->x, c->x_off);
    bind_y(&d, c->a->type, c->alpha, c->beta, c->y, c->y_off);
    d.groups = algo_groups(invocations, SPMV_WG);
    return algo_stage(ctx, &d);
}

gpgpu_status spmv_run_vector(gpgpu_context *ctx, const gpgpu_matrix *a, double alpha,
                             double beta, gpgpu_buffer *x, size_t x_off, gpgpu_buffer *y,
                             size_t y_off, uint32_t threads_per_row, uint32_t rows_per_group)
{
    exec_dispatch d = csr_stage(a, SPMV_STAGE_CSR_VECTOR, threads_per_row * rows_per_group,
                                threads_per_row);
    bind_x(&d, a->type, x, x_off);
    bind_y(&d, a->type, alpha, beta, y, y_off);
    d.groups = algo_groups(a->rows, rows_per_group);
    return algo_stage(ctx, &d);
}

/* Work-groups of SPMV_WG for a stage that gives each of `count` items a subgroup where the
 * device has them (PATH_SEARCH, TILE_FIX), else `per_item` invocations (1 or a group).
 * The shaders stride over the items, so a subgroup size other than the one reported
 * costs speed, not results. */
static uint32_t subgroup_groups(const gpgpu_context *ctx, size_t count, unsigned per_item)
{
    unsigned sg = ctx->info.subgroup_size;
    if (ctx->info.has_subgroups && sg >= 1 && sg <= SPMV_WG)
        per_item = sg;
    return algo_groups(count * per_item, SPMV_WG);
}

/* TILE_FIX over `tiles` tile records (left by CSR_TILES, COO_TILES or CSR_MERGE in d's
 * scratch): a subgroup (or a group) per tile, working where a crossing row begins. */
static gpgpu_status tile_fix(gpgpu_context *ctx, exec_dispatch d, size_t tiles)
{
    if (tiles == 1)
        return GPGPU_SUCCESS; /* the only tile ends with the last row */
    d.variant = (exec_variant){.family = "spmv", .type = d.variant.type, .wg_size = SPMV_WG,
                               .items = 1};
    d.params[0] = SPMV_STAGE_TILE_FIX;
    d.params[SPMV_P_K] = (uint32_t)tiles;
    d.groups = subgroup_groups(ctx, tiles, SPMV_WG);
    return algo_stage(ctx, &d);
}

/* Balanced CSR and COO: tiles of SPMV_TILE nonzeros, then the rows that cross tiles.
 * Scratch 0 holds two u32 per tile, scratch 1 two partial sums per tile. */
static gpgpu_status run_tiles(gpgpu_context *ctx, const spmv_call *c, bool coo)
{
    const gpgpu_matrix *a = c->a;
    size_t tiles = (a->nnz + SPMV_TILE - 1) / SPMV_TILE;
    gpgpu_buffer *rec, *part;
    TRY(ctx_scratch(ctx, 0, 2 * tiles * sizeof(uint32_t), &rec));
    TRY(ctx_scratch(ctx, 1, 2 * tiles * gpgpu_type_size(a->type), &part));
    exec_dispatch d = coo ? matrix_stage(a, SPMV_STAGE_COO_TILES, SPMV_TILE_WG, SPMV_TILE_ITEMS,
                                         a->row, a->idx, a->nnz)
                          : csr_stage(a, SPMV_STAGE_CSR_TILES, SPMV_TILE_WG, SPMV_TILE_ITEMS);
    bind_x(&d, a->type, c->x, c->x_off);
    bind_y(&d, a->type, c->alpha, c->beta, c->y, c->y_off);
    bind_aux(&d, rec, 0);
    bind_work(&d, a->type, part, 0);
    d.groups = (uint32_t)tiles;
    TRY(algo_stage(ctx, &d));
    return tile_fix(ctx, d, tiles);
}

/* The merge path's tiles: at most `tile` steps each, starting every tile - slack steps or
 * up to slack steps earlier, at the start of a row (glsl/spmv.comp plan_write). */
static size_t merge_slack(const gpgpu_matrix *a, size_t tile)
{
    unsigned div = a->ctx->plans.spmv.merge_slack;
    return tile / (div < 4 ? 4 : div);
}

static size_t merge_tiles(const gpgpu_matrix *a, size_t tile)
{
    size_t step = tile - merge_slack(a, tile), steps = (size_t)a->rows + a->nnz;
    return steps ? (steps + step - 1) / step : 1;
}

/* The plan of a's merge path for this tile (made by PATH_SEARCH and kept with the matrix:
 * the row pointers stand until gpgpu_matrix_validate, which drops it), then room for two
 * u32 records per tile. Work recorded into a caller's command buffer may never run, so
 * there the plan is made again on every product and not kept. */
static gpgpu_status merge_plan(gpgpu_context *ctx, const gpgpu_matrix *a, size_t tile,
                               gpgpu_buffer **out)
{
    gpgpu_matrix *m = (gpgpu_matrix *)a; /* the plan is a cache, not part of A's value */
    size_t slack = merge_slack(a, tile), tiles = merge_tiles(a, tile);
    bool keep = !ctx->exec->recording_for_caller(ctx);
    if (keep && m->plan && m->plan_tile == tile && m->plan_slack == slack) {
        *out = m->plan;
        return GPGPU_SUCCESS;
    }
    size_t bytes = (4 * tiles + 2) * sizeof(uint32_t);
    if (!m->plan || m->plan->size < bytes) {
        buffer_destroy_internal(m->plan);
        m->plan = NULL;
        TRY(buffer_create_internal(ctx, bytes, &m->plan));
    }
    m->plan_tile = 0; /* none kept until this one is recorded */
    exec_dispatch d = csr_stage(a, SPMV_STAGE_PATH_SEARCH, SPMV_WG, 1);
    bind_aux(&d, m->plan, 0);
    d.params[SPMV_P_K] = (uint32_t)tiles;
    d.params[SPMV_P_PATH_STEP] = (uint32_t)(tile - slack);
    d.params[SPMV_P_PATH_SLACK] = (uint32_t)slack;
    d.groups = subgroup_groups(ctx, tiles + 1, 1);
    TRY(algo_stage(ctx, &d));
    if (keep) {
        m->plan_tile = tile;
        m->plan_slack = slack;
    }
    *out = m->plan;
    return GPGPU_SUCCESS;
}

/* Balanced CSR by the merge path: tiles of at most wg * items steps of the merge of row
 * ends with entries, cut where the plan says (made on the first product), `per_group` of
 * them to a work-group (CSR_MERGE, a program of its own for its shared arrays), then the
 * rows that cross tiles, where a row is longer than the slack. The plan's buffer holds the
 * tiles' records, scratch 1 two partial sums per tile. */
static gpgpu_status run_merge(gpgpu_context *ctx, const spmv_call *c, unsigned wg,
                              unsigned items)
{
    const gpgpu_matrix *a = c->a;
    unsigned per_group = ctx->plans.spmv.merge_tiles;
    per_group = per_group < 1 ? 1 : per_group > 16 ? 16 : per_group;
    size_t tile = (size_t)wg * items, tiles = merge_tiles(a, tile);
    gpgpu_buffer *plan, *part;
    TRY(merge_plan(ctx, a, tile, &plan));
    TRY(ctx_scratch(ctx, 1, 2 * tiles * gpgpu_type_size(a->type), &part));
    exec_dispatch d = csr_stage(a, SPMV_STAGE_CSR_MERGE, wg, items);
    d.variant.only_stage = SPMV_STAGE_CSR_MERGE;
    exec_shape_set(&d.variant, SPMV_SHAPE_MERGE_TILES, per_group);
    bind_x(&d, a->type, c->x, c->x_off);
    bind_y(&d, a->type, c->alpha, c->beta, c->y, c->y_off);
    bind_aux(&d, plan, 0);
    bind_work(&d, a->type, part, 0);
    d.params[SPMV_P_K] = (uint32_t)tiles;
    d.groups = algo_groups(tiles, per_group);
    TRY(algo_stage(ctx, &d));
    if (a->stats.max <= merge_slack(a, tile))
        return GPGPU_SUCCESS; /* no row crosses a tile */
    return tile_fix(ctx, d, tiles);
}

/* The shared memory of CSR_MERGE's tile: row ends (tile + 1), products (tile), the
 * scan's flag and value per invocation, and a few words of its own. */
static size_t merge_shared_bytes(gpgpu_type type, unsigned wg, unsigned items)
{
    size_t tile = (size_t)wg * items, t = gpgpu_type_size(type);
    return (tile + 1) * sizeof(uint32_t) + tile * t + wg * (sizeof(uint32_t) + t) + 64;
}

/* Whether the merge path of a (rows + nnz steps) and one more tile index in 32 bits. */
static bool merge_fits(const gpgpu_matrix *a, size_t tile)
{
    return (uint64_t)a->rows + a->nnz + tile <= UINT32_MAX;
}

/* The merge path's tile for a on ctx: the tuned one, its work-group and then its steps per
 * invocation halved until the device holds it (a Vulkan pipeline over the shared-memory
 * limit may lose the device instead of failing); false where it is turned off
 * (GPGPU_TUNE=spmv_merge=0), cannot fit, or the path outgrows 32-bit indices. */
static bool merge_shape(const gpgpu_context *ctx, const gpgpu_matrix *a, unsigned *wg,
                        unsigned *items)
{
    const algo_spmv_plan *tune = &ctx->plans.spmv;
    *wg = tune->merge_wg;
    *items = tune->merge_items;
    while (*wg > 1 && *wg > ctx->info.max_workgroup_invocations)
        *wg /= 2;
    while (*items > 1 && merge_shared_bytes(a->type, *wg, *items) >
                             ctx->info.max_shared_memory_bytes)
        *items /= 2;
    return tune->merge &&
           merge_shared_bytes(a->type, *wg, *items) <= ctx->info.max_shared_memory_bytes &&
           merge_fits(a, (size_t)*wg * *items);
}

/* The balanced CSR kernel: the merge path where merge_shape allows, else the tiles of
 * nonzeros. */
static gpgpu_status run_balanced(gpgpu_context *ctx, const spmv_call *c)
{
    unsigned wg, items;
    if (merge_shape(ctx, c->a, &wg, &items))
        return run_merge(ctx, c, wg, items);
    return run_tiles(ctx, c, false);
}

/* CSC: the products per column into scratch 1, then each row gathers its own. */
static gpgpu_status run_csc(gpgpu_context *ctx, const spmv_call *c)
{
    const gpgpu_matrix *a = c->a;
    gpgpu_buffer *work;
    TRY(ctx_scratch(ctx, 1, a->nnz * gpgpu_type_size(a->type), &work));
    exec_dispatch d = csr_stage(a, SPMV_STAGE_CSC_PRODUCTS, SPMV_WG, 1);
    bind_x(&d, a->type, c->x, c->x_off);
    bind_work(&d, a->type, work, 0);
    d.groups = algo_groups(a->cols, SPMV_WG);
    TRY(algo_stage(ctx, &d));
    d = matrix_stage(a, SPMV_STAGE_CSC_GATHER, SPMV_WG, 1, a->row_ptr, a->perm, a->nnz);
    bind_work(&d, a->type, work, 0);
    return per_row(ctx, c, d, a->rows);
}

/* The format's own kernel (DEFAULT and SPMV_SCALAR on formats other than CSR). */
static gpgpu_status run_format(gpgpu_context *ctx, const spmv_call *c)
{
    const gpgpu_matrix *a = c->a;
    spmv_array none = {0};
    exec_dispatch d;
    switch (a->format) {
    case GPGPU_FORMAT_COO:
        return run_tiles(ctx, c, true);
    case GPGPU_FORMAT_CSC:
        return run_csc(ctx, c);
    case GPGPU_FORMAT_ELL:
        d = matrix_stage(a, SPMV_STAGE_ELL, SPMV_WG, 1, none, a->idx, a->stored);
        break;
    case GPGPU_FORMAT_SELL:
        d = matrix_stage(a, SPMV_STAGE_SELL, SPMV_WG, 1, a->ptr, a->idx, a->stored);
        bind_aux(&d, a->perm.buf, a->perm.off);
        break;
    case GPGPU_FORMAT_BSR:
        d = matrix_stage(a, SPMV_STAGE_BSR, SPMV_WG, 1, a->ptr, a->idx, a->idx_count);
        break;
    default:
        d = csr_stage(a, SPMV_STAGE_CSR_SCALAR, SPMV_WG, 1);
        break;
    }
    d.params[SPMV_P_K] = a->k;
    return per_row(ctx, c, d, a->rows);
}

/* DEFAULT on CSR: the balanced kernel where rows are uneven (it splits the
 * nonzeros evenly whatever the rows), and where every row is within a few
 * times the mean, the kernels that need no row search: one invocation per
 * row for short rows, the vector kernel (tuned or heuristic shape) for
 * longer ones. Measured on an H100 (docs/DECISIONS.md): on a 3D Laplacian
 * one invocation per row took 33 us where balanced took 75 us. */
static gpgpu_status run_default(gpgpu_context *ctx, const spmv_call *c)
{
    const gpgpu_matrix *a = c->a;
    switch (spmv_default_kernel(a)) {
    case GPGPU_ALGO_SPMV_SCALAR:
        return run_format(ctx, c);
    case GPGPU_ALGO_SPMV_VECTOR: {
        gpgpu_spmv_tuning shape;
        spmv_vector_shape(ctx, a, &shape);
        return spmv_run_vector(ctx, a, c->alpha, c->beta, c->x, c->x_off, c->y, c->y_off,
                               shape.threads_per_row, shape.rows_per_group);
    }
    default:
        return run_balanced(ctx, c);
    }
}

gpgpu_algo spmv_default_kernel(const gpgpu_matrix *a)
{
    double mean = a->stats.mean;
    if (a->format != GPGPU_FORMAT_CSR)
        return GPGPU_ALGO_SPMV_SCALAR; /* the format's own kernel */
    if (a->stats.max > SPMV_REGULAR_FACTOR * mean + SPMV_REGULAR_SLACK)
        return GPGPU_ALGO_SPMV_BALANCED;
    return mean < SPMV_SHORT_ROW ? GPGPU_ALGO_SPMV_SCALAR : GPGPU_ALGO_SPMV_VECTOR;
}

static gpgpu_status run(gpgpu_context *ctx, const gpgpu_spmv_desc *desc, const spmv_call *c,
                        const gpgpu_spmv_tuning *shape)
{
    const gpgpu_matrix *a = c->a;
    if (a->rows == 0)
        return GPGPU_SUCCESS;
    if (a->nnz == 0 || a->cols == 0) /* y = beta*y; no kernel may index x */
        return per_row(ctx, c, csr_stage(a, SPMV_STAGE_SCALE, SPMV_WG, 1), a->rows);
    switch (desc->algo) {
    case GPGPU_ALGO_CLASSIC_SPMV:
        return run_classic(ctx, c);
    case GPGPU_ALGO_SPMV_VECTOR:
        return spmv_run_vector(ctx, a, c->alpha, c->beta, c->x, c->x_off, c->y, c->y_off,
                               shape->threads_per_row, shape->rows_per_group);
    case GPGPU_ALGO_SPMV_SCALAR:
        return run_format(ctx, c);
    case GPGPU_ALGO_SPMV_BALANCED:
        return run_balanced(ctx, c);
    default:
        return run_default(ctx, c);
    }
}

/* ------------------------------------------------------------------ checks */

uint32_t spmv_max_threads_per_row(const gpgpu_context *ctx)
{
    unsigned sg = ctx->info.subgroup_size;
    return sg > SPMV_MAX_THREADS_PER_ROW && (sg & (sg - 1)) == 0 && sg <= 128
               ? sg
               : SPMV_MAX_THREADS_PER_ROW;
}

static bool power_of_two(uint32_t v) { return v && (v & (v - 1)) == 0; }

static gpgpu_status check_algo(gpgpu_context *ctx, const gpgpu_spmv_desc *desc,
                               const gpgpu_matrix *a)
{
    gpgpu_algo algo = desc->algo;
    TRY(ALGO_CHECK(ctx, algo, "gpgpu_spmv", GPGPU_ALGO_CLASSIC_SPMV, GPGPU_ALGO_SPMV_SCALAR,
                   GPGPU_ALGO_SPMV_VECTOR, GPGPU_ALGO_SPMV_BALANCED));
    bool csr_only = algo == GPGPU_ALGO_CLASSIC_SPMV || algo == GPGPU_ALGO_SPMV_VECTOR ||
                    algo == GPGPU_ALGO_SPMV_BALANCED;
    CHECK(!csr_only || a->format == GPGPU_FORMAT_CSR, ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_spmv: %s works on CSR matrices, this one is %s; use DEFAULT or SPMV_SCALAR "
          "(the format's own kernel)",
          algo == GPGPU_ALGO_CLASSIC_SPMV ? "CLASSIC_SPMV"
          : algo == GPGPU_ALGO_SPMV_VECTOR ? "SPMV_VECTOR"
                                           : "SPMV_BALANCED",
          gpgpu_format_name(a->format));
    CHECK(algo != GPGPU_ALGO_CLASSIC_SPMV || !ctx->exec->recording_for_caller(ctx), ctx,
          GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "gpgpu_spmv: CLASSIC_SPMV reads the longest row back between its stages, which work "
          "recorded into the caller's command buffer cannot");
    return GPGPU_SUCCESS;
}

/* The vector kernel's shape: the desc's where given, else the tuned or heuristic one. */
static gpgpu_status vector_shape(gpgpu_context *ctx, const gpgpu_spmv_desc *desc,
                                 const gpgpu_matrix *a, gpgpu_spmv_tuning *shape)
{
    uint32_t tpr = desc->threads_per_row, rpg = desc->rows_per_group;
    uint32_t max_tpr = spmv_max_threads_per_row(ctx);
    CHECK(tpr == 0 || (power_of_two(tpr) && tpr <= max_tpr), ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_spmv: threads_per_row %u is not a power of two from 1 to %u", tpr, max_tpr);
    CHECK(rpg == 0 || power_of_two(rpg), ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_spmv: rows_per_group %u is not a power of two", rpg);
    *shape = (gpgpu_spmv_tuning){0};
    if (desc->algo != GPGPU_ALGO_SPMV_VECTOR)
        return GPGPU_SUCCESS;
    if (tpr == 0 || rpg == 0) {
        gpgpu_spmv_tuning chosen;
        spmv_vector_shape(ctx, a, &chosen);
        tpr = tpr ? tpr : chosen.threads_per_row;
        rpg = rpg ? rpg : chosen.rows_per_group;
    }
    unsigned limit = ctx->info.max_workgroup_invocations < SPMV_MAX_VECTOR_WG
                         ? ctx->info.max_workgroup_invocations
                         : SPMV_MAX_VECTOR_WG;
    CHECK((uint64_t)tpr * rpg <= limit, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_spmv: %u threads per row x %u rows per group = %llu invocations, more than a "
          "work-group of the vector kernel has on %s (%u)",
          tpr, rpg, (unsigned long long)tpr * rpg, ctx->info.renderer, limit);
    shape->threads_per_row = tpr;
    shape->rows_per_group = rpg;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_spmv(gpgpu_context *ctx, const gpgpu_spmv_desc *desc, double alpha,
                        const gpgpu_matrix *a, gpgpu_buffer *x, size_t x_offset, double beta,
                        gpgpu_buffer *y, size_t y_offset)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_spmv: desc is NULL");
    CHECK(a, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_spmv: the matrix is NULL");
    CHECK(a->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_spmv: the matrix belongs to another context");
    TRY(check_algo(ctx, desc, a));
    TRY(algo_check_scalar(ctx, a->type, alpha, "alpha", "gpgpu_spmv"));
    TRY(algo_check_scalar(ctx, a->type, beta, "beta", "gpgpu_spmv"));
    gpgpu_spmv_tuning shape;
    TRY(vector_shape(ctx, desc, a, &shape));
    TRY(algo_check_range(ctx, x, x_offset, a->cols, a->type, "gpgpu_spmv (x)"));
    TRY(algo_check_range(ctx, y, y_offset, a->rows, a->type, "gpgpu_spmv (y)"));
    size_t size = gpgpu_type_size(a->type);
    CHECK(!algo_overlap(x, x_offset * size, (size_t)a->cols * size, y, y_offset * size,
                        (size_t)a->rows * size),
          ctx, GPGPU_ERROR_OVERLAP, "gpgpu_spmv: x and y overlap");
    CHECK(!matrix_overlaps(a, y, y_offset * size, (size_t)a->rows * size), ctx,
          GPGPU_ERROR_OVERLAP, "gpgpu_spmv: y overlaps the arrays of the (wrapped) matrix");
    spmv_call c = {a, alpha, beta, x, y, x_offset, y_offset};
    TRY(ctx->exec->begin(ctx));
    return ctx_end(ctx, run(ctx, desc, &c, &shape));
}
