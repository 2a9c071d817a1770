/* The long rows of a fast product (more than SPGEMM_SHARED_MAX products, or every row with
 * SPGEMM_ESC): expand-sort-compress in global memory. A chunk of rows has its products
 * written out (ESC_EXPAND), sorted by column within each row by the radix sort (packed keys,
 * or segmented), their runs flagged and numbered (ESC_FLAGS and a scan), then counted
 * (ESC_COUNT, symbolic) or summed into C (ESC_WRITE, numeric). The chunks are cut to fit the
 * memory budget (spgemm_budget.c); where one chunk holds every long row, the symbolic phase
 * keeps it for the numeric, which then skips the expansion's keys and the sort. */
#include <stdio.h>
#include <stdlib.h>

#include "algo/scan.h"
#include "algo/sort.h"
#include "algo/spgemm_internal.h"

/* Products of a product past which each chunk prints a progress line. */
#define PROGRESS_PRODUCTS ((uint64_t)1 << 26)

bool spgemm_chunk_packs(const gpgpu_context *ctx, size_t rows, uint32_t cols)
{
    unsigned col_bits = spgemm_bits_below(cols); /* 32 would leave no room, even for row 0 */
    return ctx->plans.spgemm.esc_packed && col_bits < 32 &&
           spgemm_bits_below(rows) + col_bits <= 32;
}

bool spgemm_chunk_carries(const gpgpu_context *ctx, gpgpu_type type, bool numeric)
{
    return numeric && type == GPGPU_TYPE_F32 && ctx->plans.spgemm.esc_carry;
}

/* A chunk's run flags, scanned in place by reduce-then-scan: with the default scan here as
 * for the others, rmat:15:16's product (147M flags, at an odd word of ux) ran 2.2% slower
 * on the H200 where the smaller scans gained (docs/DECISIONS.md, SpGEMM). */
gpgpu_status spgemm_scan_flags(gpgpu_context *ctx, const spgemm_chunk *ch)
{
    return scan_reduce_then_scan(ctx, GPGPU_TYPE_U32, true, ch->ux, ch->flag_off, ch->ux,
                                 ch->flag_off, ch->products + 1);
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
    ch->key_passes = spgemm_key_passes_below(p->b.m->cols);
    if (!ch->packed)
        return;
    ch->key_passes = spgemm_key_passes_for(ch->col_bits + spgemm_bits_below(ch->rows));
    unsigned fewer = ch->key_passes - 1;
    if (fewer == 0 || 8 * fewer < ch->col_bits)
        return;
    size_t part_rows = (size_t)1 << (8 * fewer - ch->col_bits);
    size_t parts = (ch->rows + part_rows - 1) / part_rows;
    if (parts > SPGEMM_SORT_PARTS || ch->products / parts < p->ctx->plans.spgemm.esc_split)
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
    algo_mode mode = p->ctx->plans.spgemm.esc_walk;
    uint64_t nnz = p->a.m->nnz;
    return mode == ALGO_ALWAYS || (mode == ALGO_AUTO && nnz > 0 &&
                         spgemm_header64(p, SPGEMM_H_PRODUCTS) >= (uint64_t)SPGEMM_WALK_MIN * nnz);
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
                         .packed = spgemm_chunk_packs(ctx, rows, p->b.m->cols),
                         .carried = spgemm_chunk_carries(ctx, p->type, numeric)};
    ch->pay_off = ch->key_off + products;
    ch->flag_off = ch->pay_off + products;
    plan_sort_parts(p, pairs, ch);
    sort_keys keys = chunk_sort_keys(ch);
    ch->expand_in_alt = radix_sort_passes(&keys) % 2 == 1;
    ch->hist_words = radix_hist_count_for(ctx, &keys);
    size_t part_words = radix_part_count_for(ctx, &keys);
    TRY(spgemm_mem_create(ctx, &p->mem, (ch->flag_off + products + 1) * 4, &ch->ux));
    /* alt: ux's words up to the flags */
    TRY(spgemm_mem_create(ctx, &p->mem, ch->flag_off * 4, &ch->alt));
    TRY(spgemm_mem_create(ctx, &p->mem, (ch->hist_words + part_words) * 4, &ch->hist));
    if (numeric && !ch->carried)
        TRY(spgemm_mem_create(ctx, &p->mem, products * gpgpu_type_size(p->type), &ch->vals));
    if (chunk_walks(p))
        TRY(spgemm_mem_create(ctx, &p->mem, (rows + 1) * 4, &ch->nz));
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
    spgemm_mem_destroy(&p->mem, &ch->nz);
    spgemm_mem_destroy(&p->mem, &ch->ux);
    spgemm_mem_destroy(&p->mem, &ch->alt);
    spgemm_mem_destroy(&p->mem, &ch->hist);
    spgemm_mem_destroy(&p->mem, &ch->vals);
}

static exec_dispatch chunk_dispatch(spgemm_product *p, const spgemm_chunk *ch, unsigned stage,
                                    size_t invocations)
{
    exec_dispatch d = spgemm_product_dispatch(p, stage, 1);
    d.bind[5] = ch->vals;
    d.bind[6] = ch->ux;
    d.params[SPGEMM_P_COUNT] = (uint32_t)ch->products;
    d.params[SPGEMM_P_CHUNK_ROWS] = (uint32_t)ch->rows;
    d.params[SPGEMM_P_KEY_OFF] = (uint32_t)ch->key_off;
    d.params[SPGEMM_P_NUMERIC] = ch->numeric ? SPGEMM_ESC_KEYS_VALUES : SPGEMM_ESC_KEYS;
    d.params[SPGEMM_P_ROW_SHIFT] = ch->packed ? ch->col_bits : 32;
    /* the stages after it read neither A nor B */
    if (stage != SPGEMM_STAGE_ESC_EXPAND && stage != SPGEMM_STAGE_ESC_NZ) {
        d.params[SPGEMM_P_PAY_OFF] = (uint32_t)ch->pay_off;
        d.params[SPGEMM_P_FLAG_OFF] = (uint32_t)ch->flag_off;
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
    exec_dispatch d = chunk_dispatch(p, ch, SPGEMM_STAGE_ESC_EXPAND, ch->products);
    d.bind[6] = words;
    d.params[SPGEMM_P_NUMERIC] = mode;
    if (ch->nz) {
        d.variant.only_stage = SPGEMM_STAGE_ESC_EXPAND;
        exec_shape_set(&d.variant, SPGEMM_SHAPE_WALK, 1);
        d.bind[7] = ch->nz;
        d.groups = d.groups < SPGEMM_WALK_GROUPS ? d.groups : SPGEMM_WALK_GROUPS;
    }
    return algo_stage(p->ctx, &d);
}

gpgpu_status spgemm_stage_esc_expand(spgemm_product *p, const spgemm_chunk *ch)
{
    if (ch->nz) { /* each chunk row's nonzeros of A, scanned into their starts */
        exec_dispatch d = chunk_dispatch(p, ch, SPGEMM_STAGE_ESC_NZ, ch->rows + 1);
        d.bind[6] = expand_buffer(ch);
        d.bind[7] = ch->nz;
        TRY(algo_stage(p->ctx, &d));
        TRY(spgemm_scan_words(p->ctx, ch->nz, 0, ch->rows + 1));
    }
    /* carried: the values' bits into the payload's words, else with the keys or not */
    return esc_expand(p, ch, expand_buffer(ch),
                      ch->carried   ? SPGEMM_ESC_CARRIED
                      : ch->numeric ? SPGEMM_ESC_KEYS_VALUES
                                    : SPGEMM_ESC_KEYS);
}

gpgpu_status spgemm_stage_esc_values(spgemm_product *p, const spgemm_chunk *ch)
{
    return esc_expand(p, ch, ch->ux, SPGEMM_ESC_VALUES); /* the keys are sorted */
}

gpgpu_status spgemm_chunk_keep(spgemm_product *p, spgemm_chunk *ch)
{
    spgemm_mem_destroy(&p->mem, &ch->alt);
    spgemm_mem_destroy(&p->mem, &ch->hist);
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
    return spgemm_mem_create(p->ctx, &p->mem, ch->products * gpgpu_type_size(p->type), &ch->vals);
}

/* Frees the kept chunk, if any. */
void spgemm_drop_kept(spgemm_product *p)
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
    exec_dispatch d = chunk_dispatch(p, ch, SPGEMM_STAGE_ESC_FLAGS, ch->products + 1);
    return algo_stage(p->ctx, &d);
}

gpgpu_status spgemm_stage_esc_count(spgemm_product *p, const spgemm_chunk *ch)
{
    exec_dispatch d = chunk_dispatch(p, ch, SPGEMM_STAGE_ESC_COUNT, ch->rows);
    return algo_stage(p->ctx, &d);
}

gpgpu_status spgemm_stage_esc_write(spgemm_product *p, const spgemm_chunk *ch)
{
    /* Carried values: several products an invocation; gathered ones: one (glsl/spgemm.comp
     * says why). A program of its own either way: register arrays of ITEMS. */
    unsigned items = ch->carried ? SPGEMM_WRITE_ITEMS : 1;
    exec_dispatch d = chunk_dispatch(p, ch, SPGEMM_STAGE_ESC_WRITE,
                                     (ch->products + items - 1) / items);
    d.variant.items = items;
    d.variant.only_stage = SPGEMM_STAGE_ESC_WRITE;
    d.bind[0] = p->c->owned_ints; /* C where A was: WRITE reads neither A nor B */
    d.bind[7] = p->c->owned_values;
    d.params[SPGEMM_P_C_IDX] = p->c->rows + 1;
    if (ch->carried)
        d.params[SPGEMM_P_NUMERIC] = SPGEMM_ESC_CARRIED; /* the payload holds the values */
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
            spgemm_drop_kept(p);
            return GPGPU_SUCCESS;
        }
        s = spgemm_chunk_values(p, ch);
        if (s == GPGPU_SUCCESS)
            s = spgemm_stage_esc_values(p, ch);
    }
    if (s == GPGPU_SUCCESS)
        s = spgemm_stage_esc_write(p, ch);
    spgemm_drop_kept(p);
    *done = s == GPGPU_SUCCESS;
    return s;
}

/* The long rows in chunks under the budget (what aux, and C in the numeric phase, leave). */
gpgpu_status spgemm_long_rows(spgemm_product *p, bool numeric)
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
    if (!numeric && ctx->plans.spgemm.esc_keep == SPGEMM_KEEP_VALUES) {
        uint64_t all = spgemm_long_row_products(p, NULL);
        values = spgemm_chunk_fits_bindings(p, all, n, true) &&
                 spgemm_esc_chunk_bytes(p, (size_t)all, n, true) <= room;
    }
    for (size_t first = 0; first < n;) {
        size_t products = 0, last = first;
        while (last < n) {
            size_t next = products + p->long_rows[2 * last + 1];
            if (!spgemm_chunk_fits_bindings(p, next, last + 1 - first, numeric || values) ||
                spgemm_esc_chunk_bytes(p, next, last + 1 - first, numeric || values) > room)
                break;
            products = next;
            last++;
        }
        if (last == first) {
            size_t one = p->long_rows[2 * first + 1];
            CHECK(spgemm_chunk_fits_bindings(p, one, 1, numeric || values), ctx,
                  GPGPU_ERROR_TOO_LARGE,
                  "gpgpu_spgemm: row %u has %zu products, more than one pass of the global "
                  "path takes within a storage binding of %zu bytes",
                  p->long_rows[2 * first], one, ctx->info.max_storage_range_bytes);
            return ctx_fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                            "gpgpu_spgemm: the product needs %zu bytes of GPU memory (row %u "
                            "alone has %zu products), more than its budget of %zu bytes",
                            p->mem.held + spgemm_esc_chunk_bytes(p, one, 1, numeric),
                            p->long_rows[2 * first], one, p->mem.budget);
        }
        /* All of them in one symbolic chunk: kept for the numeric phase, which then skips
         * the expansion's keys, the sort, the flags and their scan. */
        bool keep = !numeric && first == 0 && last == n &&
                    ctx->plans.spgemm.esc_keep != SPGEMM_KEEP_NONE;
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
