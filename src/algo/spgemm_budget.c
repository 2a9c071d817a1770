/* The GPU memory a fast product holds, counted against its budget as buffers come and go,
 * and what fits in it: the bytes of a chunk of long rows, whether it fits the storage
 * bindings, and whether the short rows take one phase. spgemm_esc.c cuts the long rows into
 * chunks by these; spgemm.c falls back to two phases, or drops the kept chunk, where C would
 * not fit beside them. */
#include "algo/scan.h"
#include "algo/sort.h"
#include "algo/spgemm_internal.h"

gpgpu_status spgemm_mem_create(gpgpu_context *ctx, spgemm_memory *mem, size_t bytes,
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

void spgemm_mem_destroy(spgemm_memory *mem, gpgpu_buffer **buf)
{
    if (*buf)
        mem->held -= (*buf)->size;
    buffer_destroy_internal(*buf);
    *buf = NULL;
}

/* C counts against the budget from when it is made. */
void spgemm_mem_take(spgemm_memory *mem, size_t bytes)
{
    mem->held += bytes;
    mem->peak = mem->held > mem->peak ? mem->held : mem->peak;
}

/* Half the device, and no more than the context's memory limit leaves: the budget's
 * fallbacks (chunks, the kept chunk dropped, two phases) then act before an allocation
 * fails on the limit. */
size_t spgemm_default_budget(const gpgpu_context *ctx)
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

/* The radix sort's counters for a chunk of `products` products, in as many parts as
 * plan_sort_parts (spgemm_esc.c) may make of them. */
static size_t chunk_sort_words(const spgemm_product *p, size_t products)
{
    const algo_plans *t = &p->ctx->plans;
    size_t split = t->spgemm.esc_split, parts = SPGEMM_SORT_PARTS;
    if (split > 0 && products / split < parts)
        parts = products / split;
    size_t words = radix_hist_count(p->ctx, GPGPU_TYPE_U32, products) +
                   radix_part_count(p->ctx, GPGPU_TYPE_U32, products) +
                   radix_ranges_extra(GPGPU_TYPE_U32, parts);
    if (parts > 1 && !radix_onesweep(p->ctx, products)) {
        /* parts sorted one at a time by reduce-then-scan: a shorter sort may take more
         * groups (radix_plan_for halves its tiles), at most radix_max_groups digit columns */
        size_t table = (size_t)RADIX_DIGITS * t->radix.max_groups;
        words += table + scan_plan_for(p->ctx, table).groups;
    }
    return words;
}

/* Bytes of a global-path chunk of `rows` rows and `products` products: per product the
 * key, payload and flag, the radix sort's other keys and payload, and in the numeric phase
 * the value; then the sort's counters, the rows' ids and segments (twice: alt holds them
 * too). */
size_t spgemm_esc_chunk_bytes(const spgemm_product *p, size_t products, size_t rows,
                              bool numeric)
{
    /* carried values live in the payload's words: no array of their own */
    bool vals = numeric && !spgemm_chunk_carries(p->ctx, p->type, numeric);
    size_t per = 5 * 4 + (vals ? gpgpu_type_size(p->type) : 0);
    return products * per + (chunk_sort_words(p, products) + 5 * rows + 4) * 4 + 64;
}

/* The long rows' products in all (from the host copy of their pairs) and, where `largest`,
 * the most that one of them has. */
uint64_t spgemm_long_row_products(const spgemm_product *p, uint64_t *largest)
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
bool spgemm_chunk_fits_bindings(const spgemm_product *p, uint64_t products, size_t rows,
                                bool numeric)
{
    size_t range = p->ctx->info.max_storage_range_bytes;
    if (products > ALGO_MAX_COUNT / 4)
        return false;
    size_t n = (size_t)products, ux_words = 2 * rows + 2 + 3 * n;
    bool vals = numeric && !spgemm_chunk_carries(p->ctx, p->type, numeric);
    size_t counts = chunk_sort_words(p, n);
    return ux_words <= range / 4 && counts <= range / 4 && /* alt: ux's words up to the flags */
           (!vals || n <= range / gpgpu_type_size(p->type));
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
    uint64_t products = spgemm_header64(p, SPGEMM_H_PRODUCTS), largest;
    uint64_t long_products = spgemm_long_row_products(p, &largest);
    if (!ctx->plans.spgemm.one_phase || products == long_products ||
        long_products > products - long_products || products > UINT32_MAX)
        return false;
    size_t t_bytes = (size_t)products * (4 + gpgpu_type_size(p->type));
    size_t chunk = largest ? spgemm_esc_chunk_bytes(p, (size_t)largest, 1, false) : 0;
    return (size_t)products * gpgpu_type_size(p->type) <= ctx->info.max_storage_range_bytes &&
           p->mem.held + t_bytes + chunk <= p->mem.budget;
}
