/* C = A * B on CSR matrices, the fast way, and gpgpu_spgemm itself.
 *
 * Two phases over the same row kernels (Gustavson's product, one row of C at
 * a time): a symbolic phase counts each row's entries, a scan makes C's row
 * pointers, C is allocated exactly, and a numeric phase fills it. Rows are
 * binned by their count of products p (the sum over the row of A of the
 * lengths of the rows of B it selects):
 *  - p <= 2048: the ROWS stage. A work-group holds 2048 (column, value) slots
 *    in shared memory, 2048 / CAP rows of CAP = 32..2048 slots (the bin's
 *    power of two); each row's products are sorted by column with the
 *    bitonic network and each run of one column is counted or summed.
 *  - p > 2048 (or every row, with SPGEMM_ESC): expand-sort-compress in global
 *    memory: the rows' products written out, sorted by column within each row
 *    by the segmented radix sort, runs counted or summed. These rows go in
 *    chunks whose temporaries fit the memory budget; they are expanded and
 *    sorted in both phases, so nothing but C outlives a chunk.
 * Sorting rather than hashing keeps the sums deterministic without float
 * atomics (which GL on Mesa lacks): a run's products are added in the order
 * the sort leaves them, the same on every run. docs/ALGORITHMS.md has the
 * alternatives and their numbers.
 *
 * This file holds the call, the short rows and C; the long rows' global path
 * is spgemm_esc.c, the memory a product holds and what fits in it
 * spgemm_budget.c, the classic product spgemm_classic.c. */
#include <stdlib.h>
#include <string.h>

#include "algo/copy.h"
#include "algo/scan.h"
#include "algo/spgemm_internal.h"

/* ------------------------------------------------------------- shared helpers */

unsigned spgemm_bits_below(size_t bound)
{
    unsigned bits = 0;
    while (bits < 64 && bound > 1 && ((bound - 1) >> bits) != 0)
        bits++;
    return bits;
}

unsigned spgemm_key_passes_for(unsigned bits)
{
    return bits > 8 ? (bits + 7) / 8 : 1;
}

unsigned spgemm_key_passes_below(uint32_t bound)
{
    return spgemm_key_passes_for(spgemm_bits_below(bound));
}

gpgpu_status spgemm_operand_open(gpgpu_context *ctx, const gpgpu_matrix *m, spgemm_operand *op)
{
    *op = (spgemm_operand){.m = m, .vals = m->val.buf};
    op->val = algo_index(m->val.buf, m->val.off, m->type);
    if (m->ptr.buf == m->idx.buf) {
        op->ints = m->ptr.buf;
        op->ptr = algo_index(m->ptr.buf, m->ptr.off, GPGPU_TYPE_U32);
        op->idx = algo_index(m->idx.buf, m->idx.off, GPGPU_TYPE_U32);
        return GPGPU_SUCCESS;
    }
    size_t ptr_bytes = ((size_t)m->rows + 1) * 4, idx_bytes = m->nnz * 4;
    TRY(buffer_create_internal(ctx, ptr_bytes + idx_bytes, &op->merged));
    op->ints = op->merged;
    op->ptr = 0;
    op->idx = m->rows + 1;
    TRY(copy_stage(ctx, m->ptr.buf, m->ptr.off * 4, op->merged, 0, ptr_bytes));
    if (idx_bytes)
        TRY(copy_stage(ctx, m->idx.buf, m->idx.off * 4, op->merged, ptr_bytes, idx_bytes));
    return GPGPU_SUCCESS;
}

void spgemm_operand_close(spgemm_operand *op)
{
    buffer_destroy_internal(op->merged);
    op->merged = NULL;
}

exec_dispatch spgemm_dispatch(gpgpu_type type, unsigned stage, unsigned wg, unsigned items,
                              const spgemm_operand *a, const spgemm_operand *b)
{
    exec_dispatch d = {.variant = {"spgemm", type, 0, wg, items}};
    d.params[0] = stage;
    if (a) {
        d.bind[0] = a->ints;
        d.bind[1] = a->vals;
        d.params[SPGEMM_P_ROWS] = a->m->rows;
        d.params[SPGEMM_P_NNZ_A] = (uint32_t)a->m->nnz;
        d.params[SPGEMM_P_A_PTR] = a->ptr;
        d.params[SPGEMM_P_A_IDX] = a->idx;
        d.params[SPGEMM_P_A_VAL] = a->val;
    }
    if (b) {
        d.bind[2] = b->ints;
        d.bind[3] = b->vals;
        d.params[SPGEMM_P_B_PTR] = b->ptr;
        d.params[SPGEMM_P_B_IDX] = b->idx;
        d.params[SPGEMM_P_B_VAL] = b->val;
    }
    return d;
}

gpgpu_status spgemm_new_matrix(gpgpu_context *ctx, gpgpu_type type, uint32_t rows,
                               uint32_t cols, size_t nnz, gpgpu_matrix **out)
{
    *out = NULL;
    size_t int_bytes = ((size_t)rows + 1 + nnz) * 4, val_bytes = nnz * gpgpu_type_size(type);
    size_t limit = ctx->info.max_storage_range_bytes;
    CHECK(int_bytes <= limit && val_bytes <= limit, ctx, GPGPU_ERROR_TOO_LARGE,
          "gpgpu_spgemm: C's arrays take %zu and %zu bytes, more than one storage binding of "
          "%s holds (%zu)",
          int_bytes, val_bytes, ctx->info.renderer, limit);
    gpgpu_matrix *m = calloc(1, sizeof *m);
    CHECK(m, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_spgemm: out of host memory");
    *m = (gpgpu_matrix){.ctx = ctx, .type = type, .format = GPGPU_FORMAT_CSR, .rows = rows,
                        .cols = cols, .nnz = nnz, .stored = nnz, .idx_count = nnz,
                        .bytes = int_bytes + val_bytes};
    m->stats.mean = rows ? (double)nnz / rows : 0;
    gpgpu_status s = buffer_create_internal(ctx, int_bytes, &m->owned_ints);
    if (s == GPGPU_SUCCESS)
        s = buffer_create_internal(ctx, val_bytes ? val_bytes : 16, &m->owned_values);
    if (s == GPGPU_SUCCESS && nnz == 0) { /* no entries: every row pointer is 0 */
        uint32_t *zeros = calloc((size_t)rows + 1, 4);
        s = zeros ? ctx->exec->buffer_write(m->owned_ints, 0, zeros, ((size_t)rows + 1) * 4)
                  : ctx_fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_spgemm: out of host memory");
        free(zeros);
    }
    if (s != GPGPU_SUCCESS) {
        gpgpu_matrix_destroy(m);
        return s;
    }
    m->ptr = (spmv_array){m->owned_ints, 0};
    m->idx = (spmv_array){m->owned_ints, (size_t)rows + 1};
    m->val = (spmv_array){m->owned_values, 0};
    *out = m;
    return GPGPU_SUCCESS;
}

/* The default exclusive scan, in place: one pass where the device has subgroups. */
gpgpu_status spgemm_scan_words(gpgpu_context *ctx, gpgpu_buffer *buf, size_t off, size_t n)
{
    return scan_default(ctx, GPGPU_TYPE_U32, true, buf, off, buf, off, n);
}

static gpgpu_status read_words(gpgpu_context *ctx, gpgpu_buffer *buf, size_t at, void *out,
                               size_t count)
{
    return ctx->exec->buffer_read(buf, at * 4, out, count * 4);
}

/* The row statistics SpMV's kernel choice reads, from C's row pointers, on the GPU: reading
 * the pointers back and going over them here took 2.1 ms of laplace3d_7:128's 7.5 ms wall
 * time (2M rows) on the H100, GL's 2.2 ms (docs/DECISIONS.md, SpGEMM). */
gpgpu_status spgemm_fill_stats(gpgpu_context *ctx, gpgpu_matrix *c)
{
    return matrix_row_stats(ctx, c, "gpgpu_spgemm (internal: C's row pointers)");
}

/* ------------------------------------------------------------- the stages */

gpgpu_status spgemm_product_open(gpgpu_context *ctx, const gpgpu_spgemm_desc *desc,
                                 const gpgpu_matrix *a, const gpgpu_matrix *b,
                                 spgemm_product *p)
{
    *p = (spgemm_product){.ctx = ctx, .desc = desc, .type = a->type};
    p->mem.budget = desc->memory_budget ? desc->memory_budget : spgemm_default_budget(ctx);
    p->shared_max = desc->algo == GPGPU_ALGO_SPGEMM_ESC ? 0 : SPGEMM_SHARED_MAX;
    TRY(spgemm_operand_open(ctx, a, &p->a));
    TRY(spgemm_operand_open(ctx, b, &p->b));
    size_t words = SPGEMM_HEADER + (a->nnz + 1) + ((size_t)a->rows + 1) +
                   (size_t)a->rows * (SPGEMM_RECORD + 2);
    TRY(spgemm_mem_create(ctx, &p->mem, words * 4, &p->aux));
    p->apos_off = SPGEMM_HEADER;
    p->rptr_off = p->apos_off + a->nnz + 1;
    p->list_off = p->rptr_off + a->rows + 1;
    p->pairs_off = p->list_off + (size_t)a->rows * SPGEMM_RECORD;
    memset(p->header, 0, sizeof p->header);
    return ctx->exec->buffer_write(p->aux, 0, p->header, sizeof p->header);
}

void spgemm_drop_kept(spgemm_product *p);

void spgemm_product_close(spgemm_product *p)
{
    spgemm_drop_kept(p);
    spgemm_one_phase_close(p);
    spgemm_mem_destroy(&p->mem, &p->aux);
    spgemm_operand_close(&p->a);
    spgemm_operand_close(&p->b);
    free(p->long_rows);
    p->long_rows = NULL;
}

exec_dispatch spgemm_product_dispatch(spgemm_product *p, unsigned stage, unsigned items)
{
    exec_dispatch d = spgemm_dispatch(p->type, stage, SPGEMM_WG, items, &p->a, &p->b);
    d.bind[4] = p->aux;
    d.params[SPGEMM_P_APOS_OFF] = (uint32_t)p->apos_off;
    d.params[SPGEMM_P_RPTR_OFF] = (uint32_t)p->rptr_off;
    d.params[SPGEMM_P_LIST_OFF] = (uint32_t)p->list_off;
    d.params[SPGEMM_P_CAP] = p->shared_max;
    return d;
}

uint64_t spgemm_header64(const spgemm_product *p, unsigned at)
{
    return p->header[at] | (uint64_t)p->header[at + 1] << 32;
}

/* NNZ_PRODUCTS, ROW_BINS and BIN_FILL: SPGEMM_HEAD_ITEMS indices per invocation, each stage a
 * program of its own (none of ROWS's shared tiles), a work-group's counts gathered before
 * they reach the header (glsl/spgemm.comp says why). */
static gpgpu_status head_stage(spgemm_product *p, unsigned stage, size_t n, uint32_t count)
{
    exec_dispatch d = spgemm_product_dispatch(p, stage, SPGEMM_HEAD_ITEMS);
    d.variant.only_stage = stage;
    d.params[SPGEMM_P_COUNT] = count;
    d.groups = algo_groups((n + SPGEMM_HEAD_ITEMS - 1) / SPGEMM_HEAD_ITEMS, SPGEMM_WG);
    return algo_stage(p->ctx, &d);
}

gpgpu_status spgemm_stage_nnz_products(spgemm_product *p)
{
    size_t b_rows = p->b.m->rows, n = p->a.m->nnz + 1 > b_rows ? p->a.m->nnz + 1 : b_rows;
    return head_stage(p, SPGEMM_STAGE_NNZ_PRODUCTS, n, (uint32_t)b_rows);
}

gpgpu_status spgemm_stage_row_bins(spgemm_product *p)
{
    return head_stage(p, SPGEMM_STAGE_ROW_BINS, (size_t)p->a.m->rows + 1, 0);
}

gpgpu_status spgemm_stage_bin_fill(spgemm_product *p)
{
    return head_stage(p, SPGEMM_STAGE_BIN_FILL, p->a.m->rows, 0);
}

/* ROWS's tile for rows of cap slots: two rows per group (at least 512 slots, so that every
 * network step keeps the 256 invocations busy), one row of SPGEMM_SHARED_MAX. The groups
 * on a multiprocessor share ~48 KB of shared memory on NVIDIA (docs/PERFORMANCE.md): a
 * 2048-slot tile (19.5 KB in f32, 27.5 in f64) let 2 (f64: 1) run at once, 512 slots 5.
 * GPGPU_TUNE=spgemm_rows_tile=0 keeps 2048 slots for every bin. */
static uint32_t rows_tile(const gpgpu_context *ctx, uint32_t cap)
{
    uint32_t tile = 2 * cap < 2 * SPGEMM_WG ? 2 * SPGEMM_WG : 2 * cap;
    if (!ctx->plans.spgemm.rows_tile || tile > SPGEMM_SHARED_MAX)
        tile = SPGEMM_SHARED_MAX;
    return tile;
}

static void bind_rows_output(spgemm_product *p, exec_dispatch *d, spgemm_rows_mode mode);

/* ROWS_RANK's way to rank a row's products, a program each (SHAPE0): spgemm_rank, whose auto
 * takes the window program where all `rows` fit their window (`fit` of them), else merges. */
static unsigned rank_program(const gpgpu_context *ctx, uint32_t rows, uint32_t fit)
{
    unsigned program = ctx->plans.spgemm.rank;
    if (program != SPGEMM_RANK_AUTO)
        return program;
    return fit == rows ? SPGEMM_RANK_WINDOW : SPGEMM_RANK_MERGE;
}

gpgpu_status spgemm_stage_rows(spgemm_product *p, unsigned bin, uint32_t count, size_t start,
                               spgemm_rows_mode mode)
{
    uint32_t cap = SPGEMM_MIN_CAP << bin;
    bool rank = cap <= SPGEMM_RANK_MAX;
    uint32_t tile = rows_tile(p->ctx, cap);
    exec_dispatch d = spgemm_product_dispatch(
        p, rank ? SPGEMM_STAGE_ROWS_RANK : SPGEMM_STAGE_ROWS, rank ? 1 : tile / SPGEMM_WG);
    d.variant.only_stage = d.params[0]; /* a program of its own: see exec_variant */
    d.params[SPGEMM_P_COUNT] = count;
    /* ROWS_RANK's rows take the bin's longest row's slots (at least 32), not CAP: more
     * rows a group where the longest fills its bin's CAP only in part */
    uint32_t width = rank ? p->header[SPGEMM_H_LONGEST + bin] : cap;
    width = width < SPGEMM_MIN_CAP ? SPGEMM_MIN_CAP : width > cap ? cap : width;
    d.params[SPGEMM_P_CAP] = cap | width << 16;
    d.params[SPGEMM_P_LIST_OFF] = (uint32_t)(p->list_off + start * SPGEMM_RECORD);
    if (rank)
        exec_shape_set(&d.variant, SPGEMM_SHAPE_RANK,
                       rank_program(p->ctx, count, p->header[SPGEMM_H_WINDOW + bin]));
    d.params[SPGEMM_P_NUMERIC] = mode;
    bind_rows_output(p, &d, mode);
    d.groups = algo_groups(count, rank ? SPGEMM_WG / width : tile / cap);
    return algo_stage(p->ctx, &d);
}

uint32_t spgemm_ordered_width(const spgemm_product *p)
{
    algo_mode mode = p->ctx->plans.spgemm.rows_ordered;
    uint64_t rows = p->a.m->rows, products = spgemm_header64(p, SPGEMM_H_PRODUCTS), listed = 0;
    uint32_t width = SPGEMM_MIN_CAP;
    for (unsigned b = 0; b < SPGEMM_BINS; b++) {
        uint32_t count = p->header[SPGEMM_H_COUNT + b];
        if (count && (SPGEMM_MIN_CAP << b) > SPGEMM_RANK_MAX)
            return 0; /* a row for ROWS or the long rows' path */
        if (count && p->header[SPGEMM_H_LONGEST + b] > width)
            width = p->header[SPGEMM_H_LONGEST + b];
        listed += count;
    }
    if (mode == ALGO_NEVER || !p->t_ints || listed == 0 || rows / (SPGEMM_WG / width) >= UINT32_MAX)
        return 0;
    /* empty rows take their slots too: where most rows are far shorter than the longest,
     * the bins' narrower rows are worth their per-row compaction */
    return mode == ALGO_ALWAYS || 2 * products >= rows * width ? width : 0;
}

gpgpu_status spgemm_stage_rows_ordered(spgemm_product *p, uint32_t width)
{
    uint32_t rows = p->a.m->rows;
    exec_dispatch d = spgemm_product_dispatch(p, SPGEMM_STAGE_ROWS_RANK, 1);
    d.variant.only_stage = d.params[0];
    d.params[SPGEMM_P_COUNT] = rows;
    d.params[SPGEMM_P_CAP] = SPGEMM_RANK_MAX | width << 16;
    /* every row with products is in a ROWS_RANK bin; those without have no columns to span */
    uint32_t listed = 0, fit = 0;
    for (unsigned b = 0; (SPGEMM_MIN_CAP << b) <= SPGEMM_RANK_MAX; b++) {
        listed += p->header[SPGEMM_H_COUNT + b];
        fit += p->header[SPGEMM_H_WINDOW + b];
    }
    exec_shape_set(&d.variant, SPGEMM_SHAPE_RANK, rank_program(p->ctx, listed, fit));
    d.params[SPGEMM_P_NUMERIC] = SPGEMM_ONE_PHASE_ORDERED;
    bind_rows_output(p, &d, SPGEMM_ONE_PHASE_ORDERED);
    d.groups = algo_groups(rows, SPGEMM_WG / width);
    return algo_stage(p->ctx, &d);
}

/* Where ROWS and ROWS_RANK write entries: C (numeric), the one phase's temporary, or
 * nowhere (symbolic: counts only). */
static void bind_rows_output(spgemm_product *p, exec_dispatch *d, spgemm_rows_mode mode)
{
    if (mode == SPGEMM_NUMERIC) {
        d->bind[6] = p->c->owned_ints;
        d->bind[7] = p->c->owned_values;
        d->params[SPGEMM_P_C_IDX] = p->c->rows + 1;
    } else if (mode != SPGEMM_SYMBOLIC) {
        d->bind[6] = p->t_ints;
        d->bind[7] = p->t_vals;
        d->params[SPGEMM_P_C_IDX] = 0;
    }
}

/* The ROWS stage on every shared-memory bin. */
static gpgpu_status shared_rows(spgemm_product *p, spgemm_rows_mode mode)
{
    size_t start = 0;
    for (unsigned b = 0; b < SPGEMM_LONG_BIN; b++) {
        uint32_t count = p->header[SPGEMM_H_COUNT + b];
        if (count)
            TRY(spgemm_stage_rows(p, b, count, start, mode));
        start += count;
    }
    return GPGPU_SUCCESS;
}

gpgpu_status spgemm_one_phase_open(spgemm_product *p)
{
    size_t products = (size_t)spgemm_header64(p, SPGEMM_H_PRODUCTS);
    TRY(spgemm_mem_create(p->ctx, &p->mem, products * 4, &p->t_ints));
    return spgemm_mem_create(p->ctx, &p->mem, products * gpgpu_type_size(p->type), &p->t_vals);
}

void spgemm_one_phase_close(spgemm_product *p)
{
    spgemm_mem_destroy(&p->mem, &p->t_ints);
    spgemm_mem_destroy(&p->mem, &p->t_vals);
}

gpgpu_status spgemm_stage_rows_compact(spgemm_product *p, uint32_t width)
{
    size_t nnz = p->c->nnz, rows = 0; /* the runs: rows of the list, or groups of rows */
    for (unsigned b = 0; b < SPGEMM_LONG_BIN; b++)
        rows += p->header[SPGEMM_H_COUNT + b];
    uint32_t group_rows = width ? SPGEMM_WG / width : 0;
    if (width)
        rows = (p->a.m->rows + group_rows - 1) / group_rows;
    if (nnz == 0 || rows == 0)
        return GPGPU_SUCCESS;
    /* A row to 2^shift invocations (1 to 32), each moving about spgemm_compact_entries of
     * the mean row's entries (the long rows' entries counted in too: an overestimate, which
     * costs only idle lanes), and fewer where the invocations would pass 2^31. */
    size_t per = p->ctx->plans.spgemm.compact_entries;
    unsigned shift = 0;
    while (shift < 5 && (per << shift) * rows < nnz)
        shift++;
    while (shift > 0 && (rows << shift) > ((size_t)1 << 31))
        shift--;
    exec_dispatch d = spgemm_product_dispatch(p, SPGEMM_STAGE_ROWS_COMPACT, 1);
    d.bind[2] = p->c->owned_ints; /* C where B was: COMPACT reads neither B nor A's values */
    d.bind[3] = p->c->owned_values;
    d.bind[6] = p->t_ints;
    d.bind[7] = p->t_vals;
    d.params[SPGEMM_P_COUNT] = (uint32_t)rows;
    d.params[SPGEMM_P_COMPACT_SHIFT] = shift;
    d.params[SPGEMM_P_COMPACT_ROWS] = group_rows;
    d.params[SPGEMM_P_C_IDX] = p->c->rows + 1;
    d.groups = algo_groups(rows << shift, SPGEMM_WG);
    return algo_stage(p->ctx, &d);
}

/* C without its exact zeros: flags, a scan, new row pointers, the entries compacted. */
static gpgpu_status drop_zeros(spgemm_product *p)
{
    gpgpu_context *ctx = p->ctx;
    gpgpu_matrix *c = p->c, *out = NULL;
    size_t n = c->nnz;
    gpgpu_buffer *flags = NULL;
    TRY(spgemm_mem_create(ctx, &p->mem, (n + 1) * 4, &flags));
    spgemm_operand oc = {.m = c, .ints = c->owned_ints, .vals = c->owned_values,
                         .idx = c->rows + 1};
    exec_dispatch d = spgemm_dispatch(c->type, SPGEMM_STAGE_ZERO_FLAGS, SPGEMM_WG, 1, &oc, NULL);
    d.bind[4] = flags;
    d.params[SPGEMM_P_COUNT] = (uint32_t)n;
    d.params[SPGEMM_P_C_IDX] = c->rows + 1;
    d.groups = algo_groups(n + 1, SPGEMM_WG);
    gpgpu_status s = algo_stage(ctx, &d);
    if (s == GPGPU_SUCCESS)
        s = spgemm_scan_words(ctx, flags, 0, n + 1);
    uint32_t kept = 0;
    if (s == GPGPU_SUCCESS)
        s = read_words(ctx, flags, n, &kept, 1);
    if (s == GPGPU_SUCCESS)
        s = spgemm_new_matrix(ctx, c->type, c->rows, c->cols, kept, &out);
    if (s == GPGPU_SUCCESS) {
        spgemm_mem_take(&p->mem, out->bytes);
        d.bind[6] = out->owned_ints;
        d.bind[7] = out->owned_values;
        d.params[SPGEMM_P_NEW_IDX] = c->rows + 1;
        d.params[0] = SPGEMM_STAGE_ZERO_PTRS;
        d.groups = algo_groups((size_t)c->rows + 1, SPGEMM_WG);
        s = algo_stage(ctx, &d);
    }
    if (s == GPGPU_SUCCESS && kept > 0) {
        d.params[0] = SPGEMM_STAGE_ZERO_COMPACT;
        d.groups = algo_groups(n, SPGEMM_WG);
        s = algo_stage(ctx, &d);
    }
    spgemm_mem_destroy(&p->mem, &flags);
    if (s != GPGPU_SUCCESS) {
        gpgpu_matrix_destroy(out);
        return s;
    }
    p->stats.dropped = n - kept;
    p->mem.held -= c->bytes;
    gpgpu_matrix_destroy(c);
    p->c = out;
    return GPGPU_SUCCESS;
}

/* The one phase's temporary, where spgemm_one_phase_fits takes it. */
static gpgpu_status take_one_phase(spgemm_product *p)
{
    return spgemm_one_phase_fits(p) ? spgemm_one_phase_open(p) : GPGPU_SUCCESS;
}

/* nnz(C), with rptr (each row's count of entries) scanned into C's row pointers. nnz(C) <=
 * products, so below 2^32 products the 32-bit scan's last word is exact; past them the
 * counts are read back and added on the host first. (A header total of every row's count,
 * by a 64-bit atomic add per work-group on one address, would cost 2-4% of the
 * short-row products' time on the H100, docs/DECISIONS.md, SpGEMM.) */
static gpgpu_status count_entries(spgemm_product *p, uint64_t *nnz)
{
    gpgpu_context *ctx = p->ctx;
    size_t rows = p->a.m->rows;
    if (p->stats.products >> 32) {
        uint32_t *counts = malloc(rows * 4 + 4);
        CHECK(counts, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_spgemm: out of host memory");
        gpgpu_status st = read_words(ctx, p->aux, p->rptr_off, counts, rows);
        uint64_t sum = 0;
        for (size_t r = 0; st == GPGPU_SUCCESS && r < rows; r++)
            sum += counts[r];
        free(counts);
        TRY(st);
        *nnz = sum;
        return spgemm_scan_words(ctx, p->aux, p->rptr_off, rows + 1);
    }
    TRY(spgemm_scan_words(ctx, p->aux, p->rptr_off, rows + 1));
    uint32_t last;
    TRY(read_words(ctx, p->aux, p->rptr_off + rows, &last, 1));
    *nnz = last;
    return GPGPU_SUCCESS;
}

/* Counts and bins; then the short rows counted (or counted and summed into the one
 * phase's temporary) and the long rows counted; C; the short rows summed into C (or moved
 * there from the temporary) and the long rows summed. */
static gpgpu_status run_fast(spgemm_product *p)
{
    gpgpu_context *ctx = p->ctx;
    const gpgpu_matrix *a = p->a.m;
    CHECK(p->mem.held <= p->mem.budget, ctx, GPGPU_ERROR_OUT_OF_MEMORY,
          "gpgpu_spgemm: the product needs at least %zu bytes of GPU memory for its row "
          "counts alone, more than its budget of %zu bytes",
          p->mem.held, p->mem.budget);
    TRY(spgemm_stage_nnz_products(p));
    TRY(spgemm_scan_words(ctx, p->aux, p->apos_off, a->nnz + 1));
    TRY(spgemm_stage_row_bins(p));
    TRY(read_words(ctx, p->aux, 0, p->header, SPGEMM_HEADER));
    p->stats.products = spgemm_header64(p, SPGEMM_H_PRODUCTS);
    size_t n_long = p->header[SPGEMM_H_COUNT + SPGEMM_LONG_BIN];
    p->stats.long_rows = (uint32_t)n_long;
    /* The one phase: without long rows decided before BIN_FILL, which the ordered one
     * phase does without (its rows come from A's row pointers, not the list); with them
     * once their pairs are read back. */
    if (n_long == 0)
        TRY(take_one_phase(p));
    uint32_t ordered = spgemm_ordered_width(p);
    if (!ordered)
        TRY(spgemm_stage_bin_fill(p));
    if (n_long) {
        p->long_rows = malloc(2 * n_long * 4);
        CHECK(p->long_rows, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_spgemm: out of host memory");
        TRY(read_words(ctx, p->aux, p->pairs_off, p->long_rows, 2 * n_long));
        TRY(take_one_phase(p));
    }
    bool one_phase = p->t_ints != NULL;
    /* Symbolic: every row's count of entries, then C's row pointers. */
    if (ordered)
        TRY(spgemm_stage_rows_ordered(p, ordered));
    else
        TRY(shared_rows(p, one_phase ? SPGEMM_ONE_PHASE : SPGEMM_SYMBOLIC));
    TRY(spgemm_long_rows(p, false));
    uint64_t nnz = 0;
    TRY(count_entries(p, &nnz));
    CHECK(nnz <= GPGPU_SPARSE_MAX_INDEX, ctx, GPGPU_ERROR_TOO_LARGE,
          "gpgpu_spgemm: C has %llu entries, more than the 2^31 - 1 the shaders index",
          (unsigned long long)nnz);
    size_t c_bytes = ((size_t)a->rows + 1 + nnz) * 4 + nnz * gpgpu_type_size(p->type);
    if (p->kept && p->kept->numeric && !p->kept->carried &&
        p->mem.held + c_bytes > p->mem.budget) {
        /* the kept chunk's values first: the numeric phase expands them again, which costs
         * less than the one phase's temporary or the kept sort (carried values hold no
         * memory of their own: they are the sort's payload) */
        spgemm_mem_destroy(&p->mem, &p->kept->vals);
        p->kept->numeric = false;
    }
    if (one_phase && p->mem.held + c_bytes > p->mem.budget) {
        spgemm_one_phase_close(p); /* C and the temporary do not fit together: sum again */
        one_phase = false;
        if (ordered) /* which ran no BIN_FILL: the second pass takes the rows from the list */
            TRY(spgemm_stage_bin_fill(p));
    }
    if (p->kept && p->mem.held + c_bytes > p->mem.budget)
        spgemm_drop_kept(p); /* likewise the long rows' kept chunk */
    CHECK(p->mem.held + c_bytes <= p->mem.budget, ctx, GPGPU_ERROR_OUT_OF_MEMORY,
          "gpgpu_spgemm: the product needs %zu bytes of GPU memory (C alone takes %zu), more "
          "than its budget of %zu bytes",
          p->mem.held + c_bytes, c_bytes, p->mem.budget);
    TRY(spgemm_new_matrix(ctx, p->type, a->rows, p->b.m->cols, nnz, &p->c));
    spgemm_mem_take(&p->mem, p->c->bytes);
    TRY(copy_stage(ctx, p->aux, p->rptr_off * 4, p->c->owned_ints, 0,
                   ((size_t)a->rows + 1) * 4));
    /* Numeric: the short rows moved or summed into C, the long rows summed. */
    if (one_phase) {
        TRY(spgemm_stage_rows_compact(p, ordered));
        spgemm_one_phase_close(p);
    } else {
        TRY(shared_rows(p, SPGEMM_NUMERIC));
    }
    p->stats.one_phase = one_phase;
    TRY(spgemm_long_rows(p, true));
    if (p->desc->drop_zeros)
        TRY(drop_zeros(p));
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------- public calls */

gpgpu_status spgemm_check_matrix(gpgpu_context *ctx, const gpgpu_matrix *m, const char *name,
                                 const char *what)
{
    CHECK(m, ctx, GPGPU_ERROR_NULL_POINTER, "%s: %s is NULL", what, name);
    CHECK(m->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: %s belongs to another context", what, name);
    CHECK(m->format == GPGPU_FORMAT_CSR, ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "%s: %s is %s; this takes CSR matrices", what, name, gpgpu_format_name(m->format));
    return GPGPU_SUCCESS;
}

gpgpu_status spgemm_check_readback(gpgpu_context *ctx, const char *what)
{
    CHECK(!ctx->exec->recording_for_caller(ctx), ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "%s: work is recorded into the caller's command buffer, but this call reads sizes "
          "back as it goes; call gpgpu_vk_record_into with VK_NULL_HANDLE first",
          what);
    return GPGPU_SUCCESS;
}

static gpgpu_status check_spgemm(gpgpu_context *ctx, const gpgpu_spgemm_desc *desc,
                                 const gpgpu_matrix *a, const gpgpu_matrix *b)
{
    static const char what[] = "gpgpu_spgemm";
    CHECK(desc, ctx, GPGPU_ERROR_NULL_POINTER, "%s: desc is NULL", what);
    TRY(ALGO_CHECK(ctx, desc->algo, what, GPGPU_ALGO_CLASSIC_SPGEMM, GPGPU_ALGO_SPGEMM_ROWS,
                   GPGPU_ALGO_SPGEMM_ESC));
    TRY(spgemm_check_matrix(ctx, a, "A", what));
    TRY(spgemm_check_matrix(ctx, b, "B", what));
    CHECK(a->type == b->type, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: A holds %s and B %s; both must be of one type", what, gpgpu_type_name(a->type),
          gpgpu_type_name(b->type));
    CHECK(a->cols == b->rows, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: A is %u x %u and B is %u x %u: A's columns must equal B's rows", what, a->rows,
          a->cols, b->rows, b->cols);
    return spgemm_check_readback(ctx, what);
}

static gpgpu_status spgemm_fast(gpgpu_context *ctx, const gpgpu_spgemm_desc *desc,
                                const gpgpu_matrix *a, const gpgpu_matrix *b, gpgpu_matrix **c,
                                gpgpu_spgemm_stats *stats)
{
    spgemm_product p;
    gpgpu_status s = spgemm_product_open(ctx, desc, a, b, &p);
    if (s == GPGPU_SUCCESS)
        s = run_fast(&p);
    if (s == GPGPU_SUCCESS)
        s = spgemm_fill_stats(ctx, p.c);
    spgemm_product_close(&p);
    if (s != GPGPU_SUCCESS) {
        gpgpu_matrix_destroy(p.c);
        return s;
    }
    p.stats.nnz = p.c->nnz;
    p.stats.peak_bytes = p.mem.peak;
    if (stats)
        *stats = p.stats;
    *c = p.c;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_spgemm(gpgpu_context *ctx, const gpgpu_spgemm_desc *desc,
                          const gpgpu_matrix *a, const gpgpu_matrix *b, gpgpu_matrix **c,
                          gpgpu_spgemm_stats *stats)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(c, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_spgemm: c is NULL");
    *c = NULL;
    TRY(check_spgemm(ctx, desc, a, b));
    TRY(ctx->exec->begin(ctx));
    if (desc->algo == GPGPU_ALGO_CLASSIC_SPGEMM) {
        gpgpu_status s = spgemm_run_classic(ctx, a, b, c, stats, desc->progress,
                                            desc->user_data);
        if (s == GPGPU_SUCCESS)
            s = spgemm_fill_stats(ctx, *c);
        if (s == GPGPU_SUCCESS && desc->drop_zeros) {
            spgemm_product p = {.ctx = ctx, .desc = desc, .type = a->type, .c = *c};
            p.mem.budget = SIZE_MAX;
            s = drop_zeros(&p);
            *c = p.c;
            if (stats)
                stats->dropped = p.stats.dropped, stats->nnz = p.c->nnz;
            if (s == GPGPU_SUCCESS)
                s = spgemm_fill_stats(ctx, *c);
        }
        if (s != GPGPU_SUCCESS) {
            gpgpu_matrix_destroy(*c);
            *c = NULL;
        }
        return ctx_end(ctx, s);
    }
    return ctx_end(ctx, spgemm_fast(ctx, desc, a, b, c, stats));
}
