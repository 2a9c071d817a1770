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
 * alternatives and their numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/copy.h"
#include "algo/scan.h"
#include "algo/sort.h"
#include "algo/spgemm.h"
#include "algo/tuning.h"

/* Stages of glsl/spgemm.comp after the classic ones. */
enum {
    STAGE_NNZ_PRODUCTS = 14,
    STAGE_ROW_BINS,
    STAGE_BIN_FILL,
    STAGE_ROWS,
    STAGE_ESC_EXPAND,
    STAGE_ESC_FLAGS,
    STAGE_ESC_COUNT,
    STAGE_ESC_WRITE,
    STAGE_ZERO_FLAGS,
    STAGE_ZERO_PTRS,
    STAGE_ZERO_COMPACT,
    STAGE_ROW_OF,
    STAGE_TRANSPOSE,
    STAGE_COL_PTRS,
    STAGE_ROWS_RANK,
    STAGE_ROWS_COMPACT,
    STAGE_ESC_NZ
};
/* Parameters (glsl/spgemm.comp names them). */
enum {
    P_ROWS = 1, P_NNZ_A, P_A_PTR, P_A_IDX, P_A_VAL, P_B_PTR, P_B_IDX, P_B_VAL,
    P_COUNT = 9, P_CAP, P_LIST_OFF, P_APOS_OFF, P_NUMERIC, P_RPTR_OFF, P_C_IDX,
    P_CHUNK_ROWS = 10, P_KEY_OFF = 11, P_PAY_OFF = 3, P_FLAG_OFF = 4,
    P_ZFLAG_OFF = 12, P_NEW_IDX = 14, P_ROW_SHIFT = 2, P_COMPACT_SHIFT = 13,
    P_COMPACT_ROWS = 10
};
/* Products of a product past which each chunk prints a progress line. */
#define PROGRESS_PRODUCTS ((uint64_t)1 << 26)

/* ------------------------------------------------------------- shared helpers */

unsigned spgemm_bits_below(size_t bound)
{
    unsigned bits = 0;
    while (bits < 64 && bound > 1 && ((bound - 1) >> bits) != 0)
        bits++;
    return bits;
}

/* The radix passes that sort u32 keys of `bits` bits: the bytes that can differ, at least one
 * (sort_keys.key_passes). */
static unsigned key_passes_for(unsigned bits)
{
    return bits > 8 ? (bits + 7) / 8 : 1;
}

/* Those of keys below `bound` (column indices): a matrix of 2^15 columns takes two of four. */
static unsigned key_passes_below(uint32_t bound)
{
    return key_passes_for(spgemm_bits_below(bound));
}

bool spgemm_chunk_packs(size_t rows, uint32_t cols)
{
    unsigned col_bits = spgemm_bits_below(cols); /* 32 would leave no room, even for row 0 */
    return algo_tuning_get()->spgemm_esc_packed && col_bits < 32 &&
           spgemm_bits_below(rows) + col_bits <= 32;
}

bool spgemm_chunk_carries(gpgpu_type type, bool numeric)
{
    return numeric && type == GPGPU_TYPE_F32 && algo_tuning_get()->spgemm_esc_carry;
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
        d.params[P_ROWS] = a->m->rows;
        d.params[P_NNZ_A] = (uint32_t)a->m->nnz;
        d.params[P_A_PTR] = a->ptr;
        d.params[P_A_IDX] = a->idx;
        d.params[P_A_VAL] = a->val;
    }
    if (b) {
        d.bind[2] = b->ints;
        d.bind[3] = b->vals;
        d.params[P_B_PTR] = b->ptr;
        d.params[P_B_IDX] = b->idx;
        d.params[P_B_VAL] = b->val;
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

/* A chunk's run flags, scanned in place by reduce-then-scan: with the default scan here as
 * for the others, rmat:15:16's product (147M flags, at an odd word of ux) ran 2.2% slower
 * on the H200 where the smaller scans gained (docs/DECISIONS.md, SpGEMM). */
gpgpu_status spgemm_scan_flags(gpgpu_context *ctx, const spgemm_chunk *ch)
{
    return scan_reduce_then_scan(ctx, GPGPU_TYPE_U32, true, ch->ux, ch->flag_off, ch->ux,
                                 ch->flag_off, ch->products + 1);
}

static gpgpu_status read_words(gpgpu_context *ctx, gpgpu_buffer *buf, size_t at, void *out,
                               size_t count)
{
    return ctx->exec->buffer_read(buf, at * 4, out, count * 4);
}

/* The row statistics SpMV's kernel choice reads, from C's row pointers, on the GPU: reading
 * the pointers back and going over them here took 2.1 ms of laplace3d_7:128's 7.5 ms wall
 * time (2M rows) on the H100, GL's 2.2 ms (docs/DECISIONS.md, SpGEMM). */
static gpgpu_status fill_stats(gpgpu_context *ctx, gpgpu_matrix *c)
{
    return matrix_row_stats(ctx, c, "gpgpu_spgemm (internal: C's row pointers)");
}

/* ------------------------------------------------------------- GPU memory */

static gpgpu_status mem_create(gpgpu_context *ctx, spgemm_memory *mem, size_t bytes,
                               gpgpu_buffer **out)
{
    bytes = bytes ? bytes : 16;
    CHECK(bytes <= ctx->info.max_storage_range_bytes, ctx, GPGPU_ERROR_TOO_LARGE,
          "gpgpu_spgemm: a work array of %zu bytes is more than one storage binding of %s "
          "holds (%zu)",
          bytes, ctx->info.renderer, ctx->info.max_storage_range_bytes);
    TRY(buffer_create_internal(ctx, bytes, out));
    mem->held += bytes;
    mem->peak = mem->held > mem->peak ? mem->held : mem->peak;
    return GPGPU_SUCCESS;
}

static void mem_destroy(spgemm_memory *mem, gpgpu_buffer **buf)
{
    if (*buf)
        mem->held -= (*buf)->size;
    buffer_destroy_internal(*buf);
    *buf = NULL;
}

/* C counts against the budget from when it is made. */
static void mem_take(spgemm_memory *mem, size_t bytes)
{
    mem->held += bytes;
    mem->peak = mem->held > mem->peak ? mem->held : mem->peak;
}

/* Half the device, and no more than the context's memory limit leaves: the budget's
 * fallbacks (chunks, the kept chunk dropped, two phases) then act before an allocation
 * fails on the limit. */
static size_t default_budget(const gpgpu_context *ctx)
{
    size_t device = ctx->info.device_memory_bytes;
    size_t budget = device ? device / 2 : (size_t)1 << 30;
    if (ctx->memory_limit) {
        size_t left = ctx->memory_limit > ctx->memory_used ? ctx->memory_limit - ctx->memory_used
                                                           : 0;
        budget = budget < left ? budget : left;
    }
    return budget;
}

/* ------------------------------------------------------------- the stages */

gpgpu_status spgemm_product_open(gpgpu_context *ctx, const gpgpu_spgemm_desc *desc,
                                 const gpgpu_matrix *a, const gpgpu_matrix *b,
                                 spgemm_product *p)
{
    *p = (spgemm_product){.ctx = ctx, .desc = desc, .type = a->type};
    p->mem.budget = desc->memory_budget ? desc->memory_budget : default_budget(ctx);
    p->shared_max = desc->algo == GPGPU_ALGO_SPGEMM_ESC ? 0 : SPGEMM_SHARED_MAX;
    TRY(spgemm_operand_open(ctx, a, &p->a));
    TRY(spgemm_operand_open(ctx, b, &p->b));
    size_t words = SPGEMM_HEADER + (a->nnz + 1) + ((size_t)a->rows + 1) +
                   (size_t)a->rows * (SPGEMM_RECORD + 2);
    TRY(mem_create(ctx, &p->mem, words * 4, &p->aux));
    p->apos_off = SPGEMM_HEADER;
    p->rptr_off = p->apos_off + a->nnz + 1;
    p->list_off = p->rptr_off + a->rows + 1;
    p->pairs_off = p->list_off + (size_t)a->rows * SPGEMM_RECORD;
    memset(p->header, 0, sizeof p->header);
    return ctx->exec->buffer_write(p->aux, 0, p->header, sizeof p->header);
}

static void drop_kept(spgemm_product *p);

void spgemm_product_close(spgemm_product *p)
{
    drop_kept(p);
    spgemm_one_phase_close(p);
    mem_destroy(&p->mem, &p->aux);
    spgemm_operand_close(&p->a);
    spgemm_operand_close(&p->b);
    free(p->long_rows);
    p->long_rows = NULL;
}

static exec_dispatch product_dispatch(spgemm_product *p, unsigned stage, unsigned items)
{
    exec_dispatch d = spgemm_dispatch(p->type, stage, SPGEMM_WG, items, &p->a, &p->b);
    d.bind[4] = p->aux;
    d.params[P_APOS_OFF] = (uint32_t)p->apos_off;
    d.params[P_RPTR_OFF] = (uint32_t)p->rptr_off;
    d.params[P_LIST_OFF] = (uint32_t)p->list_off;
    d.params[P_CAP] = p->shared_max;
    return d;
}

static uint64_t header64(const spgemm_product *p, unsigned at)
{
    return p->header[at] | (uint64_t)p->header[at + 1] << 32;
}

/* NNZ_PRODUCTS, ROW_BINS and BIN_FILL: SPGEMM_HEAD_ITEMS indices per invocation, each stage a
 * program of its own (none of ROWS's shared tiles), a work-group's counts gathered before
 * they reach the header (glsl/spgemm.comp says why). */
static gpgpu_status head_stage(spgemm_product *p, unsigned stage, size_t n, uint32_t count)
{
    exec_dispatch d = product_dispatch(p, stage, SPGEMM_HEAD_ITEMS);
    d.variant.only_stage = stage;
    d.params[P_COUNT] = count;
    d.groups = algo_groups((n + SPGEMM_HEAD_ITEMS - 1) / SPGEMM_HEAD_ITEMS, SPGEMM_WG);
    return algo_stage(p->ctx, &d);
}

gpgpu_status spgemm_stage_nnz_products(spgemm_product *p)
{
    size_t b_rows = p->b.m->rows, n = p->a.m->nnz + 1 > b_rows ? p->a.m->nnz + 1 : b_rows;
    return head_stage(p, STAGE_NNZ_PRODUCTS, n, (uint32_t)b_rows);
}

gpgpu_status spgemm_stage_row_bins(spgemm_product *p)
{
    return head_stage(p, STAGE_ROW_BINS, (size_t)p->a.m->rows + 1, 0);
}

gpgpu_status spgemm_stage_bin_fill(spgemm_product *p)
{
    return head_stage(p, STAGE_BIN_FILL, p->a.m->rows, 0);
}

/* ROWS's tile for rows of cap slots: two rows per group (at least 512 slots, so that every
 * network step keeps the 256 invocations busy), one row of SPGEMM_SHARED_MAX. The groups
 * on a multiprocessor share ~48 KB of shared memory on NVIDIA (docs/PERFORMANCE.md): a
 * 2048-slot tile (19.5 KB in f32, 27.5 in f64) let 2 (f64: 1) run at once, 512 slots 5.
 * GPGPU_TUNE=spgemm_rows_tile=0 keeps 2048 slots for every bin. */
static uint32_t rows_tile(uint32_t cap)
{
    uint32_t tile = 2 * cap < 2 * SPGEMM_WG ? 2 * SPGEMM_WG : 2 * cap;
    if (!algo_tuning_get()->spgemm_rows_tile || tile > SPGEMM_SHARED_MAX)
        tile = SPGEMM_SHARED_MAX;
    return tile;
}

static void bind_rows_output(spgemm_product *p, exec_dispatch *d, spgemm_rows_mode mode);

/* ROWS_RANK's way to rank a row's products, a program each (SHAPE0): spgemm_rank, whose auto
 * takes the window program where all `rows` fit their window (`fit` of them), else merges. */
static unsigned rank_program(uint32_t rows, uint32_t fit)
{
    unsigned program = algo_tuning_get()->spgemm_rank;
    if (program != SPGEMM_RANK_AUTO)
        return program;
    return fit == rows ? SPGEMM_RANK_WINDOW : SPGEMM_RANK_MERGE;
}

gpgpu_status spgemm_stage_rows(spgemm_product *p, unsigned bin, uint32_t count, size_t start,
                               spgemm_rows_mode mode)
{
    uint32_t cap = SPGEMM_MIN_CAP << bin;
    bool rank = cap <= SPGEMM_RANK_MAX;
    uint32_t tile = rows_tile(cap);
    exec_dispatch d = product_dispatch(p, rank ? STAGE_ROWS_RANK : STAGE_ROWS,
                                       rank ? 1 : tile / SPGEMM_WG);
    d.variant.only_stage = d.params[0]; /* a program of its own: see exec_variant */
    d.params[P_COUNT] = count;
    /* ROWS_RANK's rows take the bin's longest row's slots (at least 32), not CAP: more
     * rows a group where the longest fills its bin's CAP only in part */
    uint32_t width = rank ? p->header[SPGEMM_H_LONGEST + bin] : cap;
    width = width < SPGEMM_MIN_CAP ? SPGEMM_MIN_CAP : width > cap ? cap : width;
    d.params[P_CAP] = cap | width << 16;
    d.params[P_LIST_OFF] = (uint32_t)(p->list_off + start * SPGEMM_RECORD);
    d.variant.shape[0] = rank ? rank_program(count, p->header[SPGEMM_H_WINDOW + bin]) : 0;
    d.params[P_NUMERIC] = mode;
    bind_rows_output(p, &d, mode);
    d.groups = algo_groups(count, rank ? SPGEMM_WG / width : tile / cap);
    return algo_stage(p->ctx, &d);
}

uint32_t spgemm_ordered_width(const spgemm_product *p)
{
    unsigned mode = algo_tuning_get()->spgemm_rows_ordered;
    uint64_t rows = p->a.m->rows, products = header64(p, SPGEMM_H_PRODUCTS), listed = 0;
    uint32_t width = SPGEMM_MIN_CAP;
    for (unsigned b = 0; b < SPGEMM_BINS; b++) {
        uint32_t count = p->header[SPGEMM_H_COUNT + b];
        if (count && (SPGEMM_MIN_CAP << b) > SPGEMM_RANK_MAX)
            return 0; /* a row for ROWS or the long rows' path */
        if (count && p->header[SPGEMM_H_LONGEST + b] > width)
            width = p->header[SPGEMM_H_LONGEST + b];
        listed += count;
    }
    if (mode == 0 || !p->t_ints || listed == 0 || rows / (SPGEMM_WG / width) >= UINT32_MAX)
        return 0;
    /* empty rows take their slots too: where most rows are far shorter than the longest,
     * the bins' narrower rows are worth their per-row compaction */
    return mode == 2 || 2 * products >= rows * width ? width : 0;
}

gpgpu_status spgemm_stage_rows_ordered(spgemm_product *p, uint32_t width)
{
    uint32_t rows = p->a.m->rows;
    exec_dispatch d = product_dispatch(p, STAGE_ROWS_RANK, 1);
    d.variant.only_stage = d.params[0];
    d.params[P_COUNT] = rows;
    d.params[P_CAP] = SPGEMM_RANK_MAX | width << 16;
    /* every row with products is in a ROWS_RANK bin; those without have no columns to span */
    uint32_t listed = 0, fit = 0;
    for (unsigned b = 0; (SPGEMM_MIN_CAP << b) <= SPGEMM_RANK_MAX; b++) {
        listed += p->header[SPGEMM_H_COUNT + b];
        fit += p->header[SPGEMM_H_WINDOW + b];
    }
    d.variant.shape[0] = rank_program(listed, fit);
    d.params[P_NUMERIC] = SPGEMM_ONE_PHASE_ORDERED;
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
        d->params[P_C_IDX] = p->c->rows + 1;
    } else if (mode != SPGEMM_SYMBOLIC) {
        d->bind[6] = p->t_ints;
        d->bind[7] = p->t_vals;
        d->params[P_C_IDX] = 0;
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
    size_t products = (size_t)header64(p, SPGEMM_H_PRODUCTS);
    TRY(mem_create(p->ctx, &p->mem, products * 4, &p->t_ints));
    return mem_create(p->ctx, &p->mem, products * gpgpu_type_size(p->type), &p->t_vals);
}

void spgemm_one_phase_close(spgemm_product *p)
{
    mem_destroy(&p->mem, &p->t_ints);
    mem_destroy(&p->mem, &p->t_vals);
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
    size_t per = algo_tuning_get()->spgemm_compact_entries;
    unsigned shift = 0;
    while (shift < 5 && (per << shift) * rows < nnz)
        shift++;
    while (shift > 0 && (rows << shift) > ((size_t)1 << 31))
        shift--;
    exec_dispatch d = product_dispatch(p, STAGE_ROWS_COMPACT, 1);
    d.bind[2] = p->c->owned_ints; /* C where B was: COMPACT reads neither B nor A's values */
    d.bind[3] = p->c->owned_values;
    d.bind[6] = p->t_ints;
    d.bind[7] = p->t_vals;
    d.params[P_COUNT] = (uint32_t)rows;
    d.params[P_COMPACT_SHIFT] = shift;
    d.params[P_COMPACT_ROWS] = group_rows;
    d.params[P_C_IDX] = p->c->rows + 1;
    d.groups = algo_groups(rows << shift, SPGEMM_WG);
    return algo_stage(p->ctx, &d);
}

/* The radix sort's counters for a chunk of `products` products, in as many parts as
 * plan_sort_parts may make of them. */
static size_t chunk_sort_words(const spgemm_product *p, size_t products)
{
    const algo_tuning *t = algo_tuning_get();
    size_t split = t->spgemm_esc_split, parts = SPGEMM_SORT_PARTS;
    if (split > 0 && products / split < parts)
        parts = products / split;
    size_t words = radix_hist_count(p->ctx, GPGPU_TYPE_U32, products) +
                   radix_part_count(p->ctx, GPGPU_TYPE_U32, products) +
                   radix_ranges_extra(GPGPU_TYPE_U32, parts);
    if (parts > 1 && !radix_onesweep(products)) {
        /* parts sorted one at a time by reduce-then-scan: a shorter sort may take more
         * groups (radix_plan_for halves its tiles), at most radix_max_groups digit columns */
        size_t table = (size_t)RADIX_DIGITS * t->radix_max_groups;
        words += table + scan_plan_for(table).groups;
    }
    return words;
}

/* Bytes of a global-path chunk of `rows` rows and `products` products: per product the
 * key, payload and flag, the radix sort's other keys and payload, and in the numeric phase
 * the value; then the sort's counters, the rows' ids and segments (twice: alt holds them
 * too). */
static size_t esc_chunk_bytes(const spgemm_product *p, size_t products, size_t rows,
                              bool numeric)
{
    /* carried values live in the payload's words: no array of their own */
    bool vals = numeric && !spgemm_chunk_carries(p->type, numeric);
    size_t per = 5 * 4 + (vals ? gpgpu_type_size(p->type) : 0);
    return products * per + (chunk_sort_words(p, products) + 5 * rows + 4) * 4 + 64;
}

/* How a chunk's keys are sorted. A packed key is the chunk row above the column, and the
 * products lie in row order, so the rows [q 2^s, (q + 1) 2^s) hold a range of products whose
 * keys agree above bit s + col_bits: each such part sorted alone over its low bytes is the
 * same stable sort. Where 2^s rows (s = 8 (passes - 1) - col_bits) make few enough parts,
 * each of at least spgemm_esc_split products on average (a sort's fixed cost against the
 * pass it saves), the chunk is sorted in parts one radix pass shorter: rmat:15:16's 15-bit
 * columns and 14-bit rows take 3 passes over 512-row parts instead of 4 over the whole. */
static void plan_sort_parts(const spgemm_product *p, const uint32_t *pairs, spgemm_chunk *ch)
{
    ch->parts = 1;
    ch->part_at[0] = 0;
    ch->part_at[1] = ch->products;
    ch->key_passes = key_passes_below(p->b.m->cols);
    if (!ch->packed)
        return;
    ch->key_passes = key_passes_for(ch->col_bits + spgemm_bits_below(ch->rows));
    unsigned fewer = ch->key_passes - 1;
    if (fewer == 0 || 8 * fewer < ch->col_bits)
        return;
    size_t part_rows = (size_t)1 << (8 * fewer - ch->col_bits);
    size_t parts = (ch->rows + part_rows - 1) / part_rows;
    if (parts > SPGEMM_SORT_PARTS || ch->products / parts < algo_tuning_get()->spgemm_esc_split)
        return;
    size_t at = 0;
    for (size_t s = 0; s < ch->rows; s++) {
        if (s % part_rows == 0)
            ch->part_at[s / part_rows] = at;
        at += pairs[2 * s + 1];
    }
    ch->part_at[parts] = at;
    ch->parts = (unsigned)parts;
    ch->key_passes = fewer;
}

/* The sorted keys of a chunk's products where the sort leaves them, in ux: packed, the row
 * is in the key (the bytes up to its top bit, no segments), sorted in the chunk's parts as
 * ranges; else the chunk's rows are segments. */
static sort_keys chunk_sort_keys(const spgemm_chunk *ch)
{
    sort_keys k = {.type = GPGPU_TYPE_U32, .keys = ch->ux, .keys_off = ch->key_off,
                   .pay = ch->ux, .pay_off = ch->pay_off, .n = ch->products,
                   .key_passes = ch->key_passes};
    if (ch->parts > 1) {
        k.ranges = ch->parts;
        k.range_at = ch->part_at;
    }
    if (!ch->packed) {
        k.flags = SORT_SEGMENTED;
        k.segs = ch->ux;
        k.segs_off = ch->seg_off;
        k.nseg = ch->rows;
    }
    return k;
}

/* The buffer ESC_EXPAND writes the keys (and carried values) into: where the sort takes an
 * odd number of passes, alt, so that the sort's first pass reads alt and its last lands in ux
 * (in place it would first copy them to alt: rmat:15:16's 147M keys and values, a pass's
 * worth of traffic, on the H200 as much as the pass saved). Never with an even number: the
 * first pass would then write alt where it reads. */
static gpgpu_buffer *expand_buffer(const spgemm_chunk *ch)
{
    return ch->expand_in_alt ? ch->alt : ch->ux;
}

/* Whether ESC_EXPAND walks the nonzeros of A (spgemm_esc_walk: 2 always, 0 never, 1 where
 * the product's nonzeros of A take SPGEMM_WALK_MIN products each on average, enough to keep
 * a team's lanes busy). On the H200 the walk took rmat:15:16's expansion (286 products a
 * nonzero) from 1.98 to 0.77 ms, and doubled power_law:262144:8's whole product (about 5 a
 * nonzero: a team's search and loads for a few entries of B; docs/DECISIONS.md). */
static bool chunk_walks(const spgemm_product *p)
{
    unsigned mode = algo_tuning_get()->spgemm_esc_walk;
    uint64_t nnz = p->a.m->nnz;
    return mode == 2 || (mode == 1 && nnz > 0 &&
                         header64(p, SPGEMM_H_PRODUCTS) >= (uint64_t)SPGEMM_WALK_MIN * nnz);
}

gpgpu_status spgemm_chunk_open(spgemm_product *p, const uint32_t *pairs, size_t rows,
                               bool numeric, spgemm_chunk *ch)
{
    gpgpu_context *ctx = p->ctx;
    size_t products = 0;
    for (size_t s = 0; s < rows; s++)
        products += pairs[2 * s + 1];
    *ch = (spgemm_chunk){.rows = rows, .products = products, .numeric = numeric,
                         .seg_off = rows, .key_off = 2 * rows + 1,
                         .col_bits = spgemm_bits_below(p->b.m->cols),
                         .packed = spgemm_chunk_packs(rows, p->b.m->cols),
                         .carried = spgemm_chunk_carries(p->type, numeric)};
    ch->pay_off = ch->key_off + products;
    ch->flag_off = ch->pay_off + products;
    plan_sort_parts(p, pairs, ch);
    sort_keys keys = chunk_sort_keys(ch);
    ch->expand_in_alt = radix_sort_passes(&keys) % 2 == 1;
    ch->hist_words = radix_hist_count_for(ctx, &keys);
    size_t part_words = radix_part_count_for(ctx, &keys);
    TRY(mem_create(ctx, &p->mem, (ch->flag_off + products + 1) * 4, &ch->ux));
    TRY(mem_create(ctx, &p->mem, ch->flag_off * 4, &ch->alt)); /* ux's words up to the flags */
    TRY(mem_create(ctx, &p->mem, (ch->hist_words + part_words) * 4, &ch->hist));
    if (numeric && !ch->carried)
        TRY(mem_create(ctx, &p->mem, products * gpgpu_type_size(p->type), &ch->vals));
    if (chunk_walks(p))
        TRY(mem_create(ctx, &p->mem, (rows + 1) * 4, &ch->nz));
    uint32_t *host = malloc((2 * rows + 1) * 4);
    CHECK(host, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_spgemm: out of host memory");
    host[ch->seg_off] = 0;
    for (size_t s = 0; s < rows; s++) {
        host[s] = pairs[2 * s];
        host[ch->seg_off + s + 1] = host[ch->seg_off + s] + pairs[2 * s + 1];
    }
    gpgpu_status st = ctx->exec->buffer_write(ch->ux, 0, host, (2 * rows + 1) * 4);
    if (st == GPGPU_SUCCESS && ch->expand_in_alt)
        st = ctx->exec->buffer_write(ch->alt, 0, host, (2 * rows + 1) * 4);
    free(host);
    return st;
}

void spgemm_chunk_close(spgemm_product *p, spgemm_chunk *ch)
{
    mem_destroy(&p->mem, &ch->nz);
    mem_destroy(&p->mem, &ch->ux);
    mem_destroy(&p->mem, &ch->alt);
    mem_destroy(&p->mem, &ch->hist);
    mem_destroy(&p->mem, &ch->vals);
}

static exec_dispatch chunk_dispatch(spgemm_product *p, const spgemm_chunk *ch, unsigned stage,
                                    size_t invocations)
{
    exec_dispatch d = product_dispatch(p, stage, 1);
    d.bind[5] = ch->vals;
    d.bind[6] = ch->ux;
    d.params[P_COUNT] = (uint32_t)ch->products;
    d.params[P_CHUNK_ROWS] = (uint32_t)ch->rows;
    d.params[P_KEY_OFF] = (uint32_t)ch->key_off;
    d.params[P_NUMERIC] = ch->numeric;
    d.params[P_ROW_SHIFT] = ch->packed ? ch->col_bits : 32;
    if (stage != STAGE_ESC_EXPAND && stage != STAGE_ESC_NZ) { /* the stages after it read
                                                                * neither A nor B */
        d.params[P_PAY_OFF] = (uint32_t)ch->pay_off;
        d.params[P_FLAG_OFF] = (uint32_t)ch->flag_off;
    }
    d.groups = algo_groups(invocations, SPGEMM_WG);
    return d;
}

/* ESC_EXPAND with the chunk's words in `words` and NUMERIC `mode`: by products (each finds
 * its nonzero of A and entry of B by binary search), or where the chunk has its nonzeros'
 * starts (ch->nz), by nonzeros of A: a team of 32 invocations per nonzero copies its row of
 * B, coalesced, with one search a team instead of two a product. The teams go round the
 * nonzeros (however many there are; the host does not know), SPGEMM_WALK_GROUPS groups at
 * most. */
static gpgpu_status esc_expand(spgemm_product *p, const spgemm_chunk *ch, gpgpu_buffer *words,
                               uint32_t mode)
{
    exec_dispatch d = chunk_dispatch(p, ch, STAGE_ESC_EXPAND, ch->products);
    d.bind[6] = words;
    d.params[P_NUMERIC] = mode;
    if (ch->nz) {
        d.variant.only_stage = STAGE_ESC_EXPAND;
        d.variant.shape[0] = 1; /* the walk */
        d.bind[7] = ch->nz;
        d.groups = d.groups < SPGEMM_WALK_GROUPS ? d.groups : SPGEMM_WALK_GROUPS;
    }
    return algo_stage(p->ctx, &d);
}

gpgpu_status spgemm_stage_esc_expand(spgemm_product *p, const spgemm_chunk *ch)
{
    if (ch->nz) { /* each chunk row's nonzeros of A, scanned into their starts */
        exec_dispatch d = chunk_dispatch(p, ch, STAGE_ESC_NZ, ch->rows + 1);
        d.bind[6] = expand_buffer(ch);
        d.bind[7] = ch->nz;
        TRY(algo_stage(p->ctx, &d));
        TRY(spgemm_scan_words(p->ctx, ch->nz, 0, ch->rows + 1));
    }
    /* carried: the values' bits into the payload's words (3), else with the keys (1) or not */
    return esc_expand(p, ch, expand_buffer(ch), ch->carried ? 3 : ch->numeric);
}

gpgpu_status spgemm_stage_esc_values(spgemm_product *p, const spgemm_chunk *ch)
{
    return esc_expand(p, ch, ch->ux, 2); /* the values alone: the keys are sorted */
}

gpgpu_status spgemm_chunk_keep(spgemm_product *p, spgemm_chunk *ch)
{
    mem_destroy(&p->mem, &ch->alt);
    mem_destroy(&p->mem, &ch->hist);
    p->kept = malloc(sizeof *p->kept);
    if (!p->kept) {
        spgemm_chunk_close(p, ch);
        return ctx_fail(p->ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_spgemm: out of host memory");
    }
    *p->kept = *ch;
    return GPGPU_SUCCESS;
}

gpgpu_status spgemm_chunk_values(spgemm_product *p, spgemm_chunk *ch)
{
    ch->numeric = true;
    return mem_create(p->ctx, &p->mem, ch->products * gpgpu_type_size(p->type), &ch->vals);
}

/* Frees the kept chunk, if any. */
static void drop_kept(spgemm_product *p)
{
    if (!p->kept)
        return;
    spgemm_chunk_close(p, p->kept);
    free(p->kept);
    p->kept = NULL;
}

gpgpu_status spgemm_esc_sort(spgemm_product *p, const spgemm_chunk *ch)
{
    sort_keys dst = chunk_sort_keys(ch), src = dst, other = dst;
    other.keys = other.pay = ch->alt; /* at ux's offsets */
    src.keys = src.pay = expand_buffer(ch);
    if (!ch->carried) /* else the values ride along, in their bits, from ESC_EXPAND */
        src.flags |= SORT_PAYLOAD_IS_INDEX;
    if (ch->products == 0)
        return GPGPU_SUCCESS;
    return radix_sort(p->ctx, &src, &dst, &other, ch->hist, 0, ch->hist, ch->hist_words);
}

gpgpu_status spgemm_stage_esc_flags(spgemm_product *p, const spgemm_chunk *ch)
{
    exec_dispatch d = chunk_dispatch(p, ch, STAGE_ESC_FLAGS, ch->products + 1);
    return algo_stage(p->ctx, &d);
}

gpgpu_status spgemm_stage_esc_count(spgemm_product *p, const spgemm_chunk *ch)
{
    exec_dispatch d = chunk_dispatch(p, ch, STAGE_ESC_COUNT, ch->rows);
    return algo_stage(p->ctx, &d);
}

gpgpu_status spgemm_stage_esc_write(spgemm_product *p, const spgemm_chunk *ch)
{
    /* Carried values: several products an invocation; gathered ones: one (glsl/spgemm.comp
     * says why). A program of its own either way: register arrays of ITEMS. */
    unsigned items = ch->carried ? SPGEMM_WRITE_ITEMS : 1;
    exec_dispatch d = chunk_dispatch(p, ch, STAGE_ESC_WRITE, (ch->products + items - 1) / items);
    d.variant.items = items;
    d.variant.only_stage = STAGE_ESC_WRITE;
    d.bind[0] = p->c->owned_ints; /* C where A was: WRITE reads neither A nor B */
    d.bind[7] = p->c->owned_values;
    d.params[P_C_IDX] = p->c->rows + 1;
    if (ch->carried)
        d.params[P_NUMERIC] = 3; /* the payload holds the values, not their indices */
    return algo_stage(p->ctx, &d);
}

/* One chunk of long rows: expand, sort, flag runs, scan, then count or write; a symbolic
 * chunk with `keep` stays open in p->kept for the numeric phase, its values expanded with
 * its keys where `values` (so the numeric phase repeats no search). */
static gpgpu_status esc_chunk(spgemm_product *p, const uint32_t *pairs, size_t rows,
                              bool numeric, bool keep, bool values)
{
    spgemm_chunk ch;
    gpgpu_status s = spgemm_chunk_open(p, pairs, rows, numeric || values, &ch);
    if (s == GPGPU_SUCCESS)
        s = spgemm_stage_esc_expand(p, &ch);
    if (s == GPGPU_SUCCESS)
        s = spgemm_esc_sort(p, &ch);
    if (s == GPGPU_SUCCESS)
        s = spgemm_stage_esc_flags(p, &ch);
    if (s == GPGPU_SUCCESS)
        s = spgemm_scan_flags(p->ctx, &ch);
    if (s == GPGPU_SUCCESS)
        s = numeric ? spgemm_stage_esc_write(p, &ch) : spgemm_stage_esc_count(p, &ch);
    if (s == GPGPU_SUCCESS && keep)
        return spgemm_chunk_keep(p, &ch);
    spgemm_chunk_close(p, &ch);
    return s;
}

/* The numeric phase on the kept chunk: its keys are sorted and its runs flagged and numbered
 * already, so it needs only its values (unless the symbolic phase expanded them too) before
 * ESC_WRITE. *done stays false where the values do not fit beside what the product holds
 * (the chunk is then dropped, and the long rows go round again). */
static gpgpu_status kept_numeric(spgemm_product *p, bool *done)
{
    spgemm_chunk *ch = p->kept;
    *done = false;
    gpgpu_status s = GPGPU_SUCCESS;
    if (!ch->numeric) {
        if (p->mem.held + ch->products * gpgpu_type_size(p->type) > p->mem.budget) {
            drop_kept(p);
            return GPGPU_SUCCESS;
        }
        s = spgemm_chunk_values(p, ch);
        if (s == GPGPU_SUCCESS)
            s = spgemm_stage_esc_values(p, ch);
    }
    if (s == GPGPU_SUCCESS)
        s = spgemm_stage_esc_write(p, ch);
    drop_kept(p);
    *done = s == GPGPU_SUCCESS;
    return s;
}

/* The long rows' products in all (from the host copy of their pairs) and, where `largest`,
 * the most that one of them has. */
static uint64_t long_row_products(const spgemm_product *p, uint64_t *largest)
{
    uint64_t all = 0, most = 0;
    for (size_t i = 0; i < p->header[SPGEMM_H_COUNT + SPGEMM_LONG_BIN]; i++) {
        uint64_t n = p->long_rows[2 * i + 1];
        all += n;
        most = n > most ? n : most;
    }
    if (largest)
        *largest = most;
    return all;
}

/* Whether a chunk of `products` products in `rows` rows has each of its arrays within one
 * storage binding (ux's ids, segments, keys, payload and flags; alt; vals; the sort's
 * counts) and its words within the shaders' 32-bit indices. Taking products per binding as
 * if each were one 8-byte array let a chunk's ux (12 bytes a product) past the binding on a
 * device whose bindings are small (llvmpipe's 128 MiB: rmat:15:16 failed there). */
static bool chunk_fits_bindings(const spgemm_product *p, uint64_t products, size_t rows,
                                bool numeric)
{
    size_t range = p->ctx->info.max_storage_range_bytes;
    if (products > ALGO_MAX_COUNT / 4)
        return false;
    size_t n = (size_t)products, ux_words = 2 * rows + 2 + 3 * n;
    bool vals = numeric && !spgemm_chunk_carries(p->type, numeric);
    size_t counts = chunk_sort_words(p, n);
    return ux_words <= range / 4 && counts <= range / 4 && /* alt: ux's words up to the flags */
           (!vals || n <= range / gpgpu_type_size(p->type));
}

/* The long rows in chunks under the budget (what aux, and C in the numeric phase, leave). */
static gpgpu_status long_rows(spgemm_product *p, bool numeric)
{
    gpgpu_context *ctx = p->ctx;
    size_t n = p->header[SPGEMM_H_COUNT + SPGEMM_LONG_BIN];
    if (n == 0)
        return GPGPU_SUCCESS;
    if (numeric && p->kept) {
        bool done;
        TRY(kept_numeric(p, &done));
        if (done)
            return GPGPU_SUCCESS;
    }
    size_t room = p->mem.budget > p->mem.held ? p->mem.budget - p->mem.held : 0;
    uint32_t chunks = 0;
    /* All of them in one symbolic chunk, values too where they fit beside the keys
     * (spgemm_esc_keep=2): the numeric phase then only writes C. */
    bool values = false;
    if (!numeric && algo_tuning_get()->spgemm_esc_keep >= 2) {
        uint64_t all = long_row_products(p, NULL);
        values = chunk_fits_bindings(p, all, n, true) &&
                 esc_chunk_bytes(p, (size_t)all, n, true) <= room;
    }
    for (size_t first = 0; first < n;) {
        size_t products = 0, last = first;
        while (last < n) {
            size_t next = products + p->long_rows[2 * last + 1];
            if (!chunk_fits_bindings(p, next, last + 1 - first, numeric || values) ||
                esc_chunk_bytes(p, next, last + 1 - first, numeric || values) > room)
                break;
            products = next;
            last++;
        }
        if (last == first) {
            size_t one = p->long_rows[2 * first + 1];
            CHECK(chunk_fits_bindings(p, one, 1, numeric || values), ctx,
                  GPGPU_ERROR_TOO_LARGE,
                  "gpgpu_spgemm: row %u has %zu products, more than one pass of the global "
                  "path takes within a storage binding of %zu bytes",
                  p->long_rows[2 * first], one, ctx->info.max_storage_range_bytes);
            return ctx_fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                            "gpgpu_spgemm: the product needs %zu bytes of GPU memory (row %u "
                            "alone has %zu products), more than its budget of %zu bytes",
                            p->mem.held + esc_chunk_bytes(p, one, 1, numeric),
                            p->long_rows[2 * first], one, p->mem.budget);
        }
        /* All of them in one symbolic chunk: kept for the numeric phase, which then skips
         * the expansion's keys, the sort, the flags and their scan. */
        bool keep = !numeric && first == 0 && last == n && algo_tuning_get()->spgemm_esc_keep;
        TRY(esc_chunk(p, p->long_rows + 2 * first, last - first, numeric, keep, values));
        chunks++;
        if (p->desc->progress && p->stats.products > PROGRESS_PRODUCTS) {
            char line[200];
            snprintf(line, sizeof line,
                     "spgemm: %s chunk %u: long rows %zu..%zu of %zu, %zu products",
                     numeric ? "numeric" : "symbolic", chunks, first + 1, last, n, products);
            p->desc->progress(line, p->desc->user_data);
        }
        first = last;
    }
    p->stats.chunks = chunks > p->stats.chunks ? chunks : p->stats.chunks;
    return GPGPU_SUCCESS;
}

/* C without its exact zeros: flags, a scan, new row pointers, the entries compacted. */
static gpgpu_status drop_zeros(spgemm_product *p)
{
    gpgpu_context *ctx = p->ctx;
    gpgpu_matrix *c = p->c, *out = NULL;
    size_t n = c->nnz;
    gpgpu_buffer *flags = NULL;
    TRY(mem_create(ctx, &p->mem, (n + 1) * 4, &flags));
    spgemm_operand oc = {.m = c, .ints = c->owned_ints, .vals = c->owned_values,
                         .idx = c->rows + 1};
    exec_dispatch d = spgemm_dispatch(c->type, STAGE_ZERO_FLAGS, SPGEMM_WG, 1, &oc, NULL);
    d.bind[4] = flags;
    d.params[P_COUNT] = (uint32_t)n;
    d.params[P_C_IDX] = c->rows + 1;
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
        mem_take(&p->mem, out->bytes);
        d.bind[6] = out->owned_ints;
        d.bind[7] = out->owned_values;
        d.params[P_NEW_IDX] = c->rows + 1;
        d.params[0] = STAGE_ZERO_PTRS;
        d.groups = algo_groups((size_t)c->rows + 1, SPGEMM_WG);
        s = algo_stage(ctx, &d);
    }
    if (s == GPGPU_SUCCESS && kept > 0) {
        d.params[0] = STAGE_ZERO_COMPACT;
        d.groups = algo_groups(n, SPGEMM_WG);
        s = algo_stage(ctx, &d);
    }
    mem_destroy(&p->mem, &flags);
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

/* Whether the short rows take one pass (spgemm_rows_mode ONE_PHASE) instead of two: each
 * row's entries are then written, with its count, to a temporary of one element per product
 * (no row waits for the others' counts: it writes at its first product) and moved into C
 * once C's row pointers are known, so the rows' products are loaded, ranked and summed
 * once, not twice. Taken (the default; GPGPU_TUNE's spgemm_one_phase=0 turns it off) where the
 * temporary fits beside what the long rows' largest chunk needs (budget, one binding, 32-bit
 * product offsets) and the short rows hold at least half the products (the temporary is sized
 * for all of them). With the temporary's memory kept between calls (core/kept.h) it took
 * 13-35% off the GPU time of the short-row products on the H100 on both backends (banded f32
 * 5842 -> 3946 us, laplace3d_7:128 6080 -> 5137) and most of their wall time too; allocated
 * afresh on every call, it would cost more wall time than the pass it saves
 * (docs/DECISIONS.md, "One phase for short rows"). It holds more memory: products x (4 + sizeof T)
 * bytes beside C (laplace3d_7:128 f32: 1351 MB at the peak against 539). */
bool spgemm_one_phase_fits(const spgemm_product *p)
{
    gpgpu_context *ctx = p->ctx;
    uint64_t products = header64(p, SPGEMM_H_PRODUCTS), largest;
    uint64_t long_products = long_row_products(p, &largest);
    if (!algo_tuning_get()->spgemm_one_phase || products == long_products ||
        long_products > products - long_products || products > UINT32_MAX)
        return false;
    size_t t_bytes = (size_t)products * (4 + gpgpu_type_size(p->type));
    size_t chunk = largest ? esc_chunk_bytes(p, (size_t)largest, 1, false) : 0;
    return (size_t)products * gpgpu_type_size(p->type) <= ctx->info.max_storage_range_bytes &&
           p->mem.held + t_bytes + chunk <= p->mem.budget;
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
    p->stats.products = header64(p, SPGEMM_H_PRODUCTS);
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
    TRY(long_rows(p, false));
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
        mem_destroy(&p->mem, &p->kept->vals);
        p->kept->numeric = false;
    }
    if (one_phase && p->mem.held + c_bytes > p->mem.budget) {
        spgemm_one_phase_close(p); /* C and the temporary do not fit together: sum again */
        one_phase = false;
        if (ordered) /* which ran no BIN_FILL: the second pass takes the rows from the list */
            TRY(spgemm_stage_bin_fill(p));
    }
    if (p->kept && p->mem.held + c_bytes > p->mem.budget)
        drop_kept(p); /* likewise the long rows' kept chunk */
    CHECK(p->mem.held + c_bytes <= p->mem.budget, ctx, GPGPU_ERROR_OUT_OF_MEMORY,
          "gpgpu_spgemm: the product needs %zu bytes of GPU memory (C alone takes %zu), more "
          "than its budget of %zu bytes",
          p->mem.held + c_bytes, c_bytes, p->mem.budget);
    TRY(spgemm_new_matrix(ctx, p->type, a->rows, p->b.m->cols, nnz, &p->c));
    mem_take(&p->mem, p->c->bytes);
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
    TRY(long_rows(p, true));
    if (p->desc->drop_zeros)
        TRY(drop_zeros(p));
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------- public calls */

static gpgpu_status check_matrix(gpgpu_context *ctx, const gpgpu_matrix *m, const char *name,
                                 const char *what)
{
    CHECK(m, ctx, GPGPU_ERROR_NULL_POINTER, "%s: %s is NULL", what, name);
    CHECK(m->ctx == ctx, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: %s belongs to another context", what, name);
    CHECK(m->format == GPGPU_FORMAT_CSR, ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "%s: %s is %s; this takes CSR matrices", what, name, gpgpu_format_name(m->format));
    return GPGPU_SUCCESS;
}

static gpgpu_status check_readback(gpgpu_context *ctx, const char *what)
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
    TRY(check_matrix(ctx, a, "A", what));
    TRY(check_matrix(ctx, b, "B", what));
    CHECK(a->type == b->type, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: A holds %s and B %s; both must be of one type", what, gpgpu_type_name(a->type),
          gpgpu_type_name(b->type));
    CHECK(a->cols == b->rows, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: A is %u x %u and B is %u x %u: A's columns must equal B's rows", what, a->rows,
          a->cols, b->rows, b->cols);
    return check_readback(ctx, what);
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
        s = fill_stats(ctx, p.c);
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
            s = fill_stats(ctx, *c);
        if (s == GPGPU_SUCCESS && desc->drop_zeros) {
            spgemm_product p = {.ctx = ctx, .desc = desc, .type = a->type, .c = *c};
            p.mem.budget = SIZE_MAX;
            s = drop_zeros(&p);
            *c = p.c;
            if (stats)
                stats->dropped = p.stats.dropped, stats->nnz = p.c->nnz;
            if (s == GPGPU_SUCCESS)
                s = fill_stats(ctx, *c);
        }
        if (s != GPGPU_SUCCESS) {
            gpgpu_matrix_destroy(*c);
            *c = NULL;
        }
        return ctx_end(ctx, s);
    }
    return ctx_end(ctx, spgemm_fast(ctx, desc, a, b, c, stats));
}

/* A^T: the entries sorted by column (stable: rows stay ascending), each entry's row, then
 * A^T's columns, values and row pointers. Every work array is one word a nonzero (so each
 * fits a binding wherever A's values do): the sorted keys and their entry indices, the
 * sort's other two, and the rows, in the sort's other keys once it is done. */
static gpgpu_status transpose(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_matrix **out)
{
    size_t n = a->nnz;
    TRY(spgemm_new_matrix(ctx, a->type, a->cols, a->rows, n, out));
    if (n == 0)
        return GPGPU_SUCCESS;
    spgemm_operand oa;
    TRY(spgemm_operand_open(ctx, a, &oa));
    gpgpu_buffer *keys = NULL, *entries = NULL, *alt_keys = NULL, *alt_entries = NULL;
    gpgpu_buffer *hist = NULL, *part = NULL; /* apart, so each is a binding of its own */
    size_t hist_words = radix_hist_count(ctx, GPGPU_TYPE_U32, n),
           part_words = radix_part_count(ctx, GPGPU_TYPE_U32, n);
    gpgpu_status s = buffer_create_internal(ctx, n * 4, &keys);
    if (s == GPGPU_SUCCESS)
        s = buffer_create_internal(ctx, n * 4, &entries);
    if (s == GPGPU_SUCCESS)
        s = buffer_create_internal(ctx, n * 4, &alt_keys);
    if (s == GPGPU_SUCCESS)
        s = buffer_create_internal(ctx, n * 4, &alt_entries);
    if (s == GPGPU_SUCCESS && hist_words > 0) /* none: one work-group sorts */
        s = buffer_create_internal(ctx, hist_words * 4, &hist);
    if (s == GPGPU_SUCCESS && part_words > 0)
        s = buffer_create_internal(ctx, part_words * 4, &part);
    sort_keys dst = {.type = GPGPU_TYPE_U32, .keys = keys, .keys_off = 0, .pay = entries,
                     .pay_off = 0, .n = n, .key_passes = key_passes_below(a->cols)};
    sort_keys src = dst, other = dst;
    src.keys = a->idx.buf;
    src.keys_off = a->idx.off;
    src.flags = SORT_PAYLOAD_IS_INDEX;
    other.keys = alt_keys;
    other.pay = alt_entries;
    if (s == GPGPU_SUCCESS)
        s = radix_sort(ctx, &src, &dst, &other, hist, 0, part, 0);
    gpgpu_buffer *rows = alt_keys; /* free once the sort is done */
    exec_dispatch d = spgemm_dispatch(a->type, STAGE_ROW_OF, SPGEMM_WG, 1, &oa, NULL);
    d.bind[4] = rows;
    d.groups = algo_groups(n, SPGEMM_WG);
    if (s == GPGPU_SUCCESS)
        s = algo_stage(ctx, &d);
    d.params[0] = STAGE_TRANSPOSE;
    d.bind[0] = rows;
    d.bind[2] = (*out)->owned_ints;
    d.bind[3] = (*out)->owned_values;
    d.bind[4] = entries;
    d.params[P_C_IDX] = a->cols + 1;
    if (s == GPGPU_SUCCESS)
        s = algo_stage(ctx, &d);
    d.params[0] = STAGE_COL_PTRS;
    d.bind[6] = keys;
    d.params[P_COUNT] = a->cols;
    d.params[P_KEY_OFF] = 0;
    d.groups = algo_groups((size_t)a->cols + 1, SPGEMM_WG);
    if (s == GPGPU_SUCCESS)
        s = algo_stage(ctx, &d);
    buffer_destroy_internal(keys);
    buffer_destroy_internal(entries);
    buffer_destroy_internal(alt_keys);
    buffer_destroy_internal(alt_entries);
    buffer_destroy_internal(hist);
    buffer_destroy_internal(part);
    spgemm_operand_close(&oa);
    if (s == GPGPU_SUCCESS)
        s = fill_stats(ctx, *out);
    return s;
}

gpgpu_status gpgpu_matrix_transpose(gpgpu_context *ctx, const gpgpu_matrix *a,
                                    gpgpu_matrix **out)
{
    static const char what[] = "gpgpu_matrix_transpose";
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(out, ctx, GPGPU_ERROR_NULL_POINTER, "%s: out is NULL", what);
    *out = NULL;
    TRY(check_matrix(ctx, a, "the matrix", what));
    TRY(check_readback(ctx, what));
    TRY(ctx->exec->begin(ctx));
    gpgpu_status s = transpose(ctx, a, out);
    if (s != GPGPU_SUCCESS) {
        gpgpu_matrix_destroy(*out);
        *out = NULL;
    }
    return ctx_end(ctx, s);
}

static gpgpu_status download(gpgpu_context *ctx, const gpgpu_matrix *a, gpgpu_csr *out)
{
    size_t n = a->nnz, vs = gpgpu_type_size(a->type);
    out->rows = a->rows;
    out->cols = a->cols;
    out->nnz = n;
    out->row_ptr = malloc(((size_t)a->rows + 1) * 4);
    out->col_idx = malloc(n ? n * 4 : 1);
    out->values = malloc(n ? n * sizeof(double) : 1);
    void *raw = malloc(n ? n * vs : 1);
    gpgpu_status s = out->row_ptr && out->col_idx && out->values && raw
                         ? GPGPU_SUCCESS
                         : ctx_fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                                    "gpgpu_matrix_download: out of host memory");
    if (s == GPGPU_SUCCESS)
        s = ctx->exec->buffer_read(a->ptr.buf, a->ptr.off * 4, out->row_ptr,
                                   ((size_t)a->rows + 1) * 4);
    if (s == GPGPU_SUCCESS && n)
        s = ctx->exec->buffer_read(a->idx.buf, a->idx.off * 4, out->col_idx, n * 4);
    if (s == GPGPU_SUCCESS && n)
        s = ctx->exec->buffer_read(a->val.buf, a->val.off * vs, raw, n * vs);
    for (size_t k = 0; s == GPGPU_SUCCESS && k < n; k++)
        out->values[k] = a->type == GPGPU_TYPE_F32 ? ((float *)raw)[k] : ((double *)raw)[k];
    free(raw);
    return s;
}

gpgpu_status gpgpu_matrix_download(const gpgpu_matrix *a, gpgpu_csr *out)
{
    if (!a)
        return GPGPU_ERROR_NULL_POINTER;
    gpgpu_context *ctx = a->ctx;
    CHECK(out, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_matrix_download: out is NULL");
    *out = (gpgpu_csr){0};
    TRY(check_matrix(ctx, a, "the matrix", "gpgpu_matrix_download"));
    TRY(check_readback(ctx, "gpgpu_matrix_download"));
    TRY(ctx->exec->begin(ctx));
    gpgpu_status s = ctx_end(ctx, download(ctx, a, out));
    if (s != GPGPU_SUCCESS)
        gpgpu_csr_free(out);
    return s;
}
