/* SpGEMM under memory budgets (chunks, one phase given up, too small for C), with storage
 * bindings smaller than the device's (the long rows' chunks, the transpose), the tuning
 * that changes the long rows' path, and the calls' misuse: exact codes and messages. */
#include <stdlib.h>
#include <string.h>

#include "algo/sort.h"
#include "test_plans.h"
#include "test_spgemm.h"

/* ---------------------------------------------------------- memory budgets */

/* The largest number written in msg (0 if none). */
static unsigned long long largest_number(const char *msg)
{
    unsigned long long best = 0;
    for (const char *p = msg; *p; p++) {
        if (*p < '0' || *p > '9')
            continue;
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        best = v > best ? v : best;
        p = end - 1;
    }
    return best;
}

/* 48 rows of about 2500 products each (past the shared-memory path) over a wide B: the
 * global path's temporaries dwarf C, so a budget a little above C must split them. */
void budgets(void)
{
    gpgpu_type t = types[type_count - 1];
    gpgpu_csr a = random_csr(48, 3000, 50, 0, false), b = random_csr(3000, 20000, 50, 0, false);
    reference r = make_reference(&a, &b, t);
    gpgpu_matrix *ma = upload(&r.ar, t), *mb = upload(&r.br, t);
    static const gpgpu_algo algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_SPGEMM_ESC};
    size_t c_bytes = csr_bytes(r.c.rows, r.c.nnz, t);
    for (size_t k = 0; ma && mb && k < 2; k++) {
        char what[200];
        gpgpu_spgemm_stats full = {0}, st = {0};
        gpgpu_matrix *mc = NULL;
        snprintf(what, sizeof what, "budget %s unlimited", algo_name(algos[k]));
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = algos[k]}, ma, mb, &mc,
                                        &full),
                      GPGPU_SUCCESS);
        gpgpu_matrix_destroy(mc);
        mc = NULL;
        EXPECT(full.chunks >= 1 && full.peak_bytes > c_bytes,
               "%s: %u chunks, peak %zu bytes (C %zu)", what, full.chunks, full.peak_bytes,
               c_bytes);
        if (full.peak_bytes <= c_bytes)
            continue; /* no product to take a budget from */

        /* C and a quarter of what the unlimited product took besides it */
        size_t budget = c_bytes + (full.peak_bytes - c_bytes) / 4;
        snprintf(what, sizeof what, "budget %s %zu bytes", algo_name(algos[k]), budget);
        gpgpu_spgemm_desc d = {.algo = algos[k], .memory_budget = budget};
        gpgpu_status s = gpgpu_spgemm(ctx, &d, ma, mb, &mc, &st);
        EXPECT(s == GPGPU_SUCCESS, "%s: %s", what, gpgpu_last_error(ctx));
        if (mc)
            check_matrix(what, mc, &r.c, r.bound, t);
        EXPECT(st.chunks > full.chunks && st.chunks > 1 && st.peak_bytes <= budget &&
                   st.products == r.products && st.nnz == r.c.nnz,
               "%s: %u chunks (unlimited %u), peak %zu", what, st.chunks, full.chunks,
               st.peak_bytes);
        gpgpu_matrix_destroy(mc);
        mc = NULL;

        /* less than C itself */
        d.memory_budget = c_bytes / 2;
        snprintf(what, sizeof what, "budget %s %zu bytes (C takes %zu)", algo_name(algos[k]),
                 d.memory_budget, c_bytes);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ma, mb, &mc, &st), GPGPU_ERROR_OUT_OF_MEMORY);
        EXPECT(mc == NULL, "%s: a matrix came back", what);
        unsigned long long needed = largest_number(gpgpu_last_error(ctx));
        EXPECT(needed >= c_bytes, "%s: the message '%s' does not say the bytes needed", what,
               gpgpu_last_error(ctx));
        gpgpu_matrix_destroy(mc);
    }
    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    free_reference(&r);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
}

/* Whether a chunk packs its keys: the chunk row's bits and the column's must fit 32 together
 * (spgemm_chunk_packs), and spgemm_bits_below counts them. No GPU. */
void packing_rule(void)
{
    static const struct {
        size_t bound;
        unsigned bits;
    } bits[] = {{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {65536, 16}, {65537, 17},
                {(size_t)1 << 31, 31}, {((size_t)1 << 31) + 1, 32}, {(size_t)1 << 32, 32},
                {((size_t)1 << 32) + 1, 33}, {SIZE_MAX, 64}};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        EXPECT(spgemm_bits_below(bits[i].bound) == bits[i].bits,
               "spgemm_bits_below(%zu) = %u, want %u", bits[i].bound,
               spgemm_bits_below(bits[i].bound), bits[i].bits);
    static const struct {
        size_t rows;
        uint32_t cols;
        bool packs;
    } shapes[] = {{1, 1, true},          {65536, 65536, true},       {65537, 65536, false},
                  {65536, 65537, false}, {1, 0x80000000u, true},     {1, 0x80000001u, false},
                  {2, 0x80000000u, true},  {9901, 32768, true},      {1u << 20, 4096, true},
                  {(1u << 20) + 1, 4096, false}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        EXPECT(spgemm_chunk_packs(ctx, shapes[i].rows, shapes[i].cols) == shapes[i].packs,
               "spgemm_chunk_packs(%zu rows, %u columns) should be %s", shapes[i].rows,
               shapes[i].cols, shapes[i].packs ? "true" : "false");
}

/* The bytes of a CSR matrix's largest array as a binding holds it (ints: row pointers and
 * columns together, as the library keeps them; values). */
static size_t csr_largest_array(uint32_t rows, size_t nnz, gpgpu_type t)
{
    size_t ints = ((size_t)rows + 1 + nnz) * 4, vals = nnz * gpgpu_type_size(t);
    return ints > vals ? ints : vals;
}

/* A device whose storage bindings are small (as llvmpipe's 128 MiB are for large products):
 * the long rows' one chunk (its ux, 12 bytes a product) would pass one binding, while A, B
 * and C fit, so the long rows go in several chunks, each array within the binding, and C
 * comes out right. The context's limit is lowered for the call and put back. */
static void long_rows_bindings(const gpgpu_matrix *ma, const gpgpu_matrix *mb,
                               const reference *r, const gpgpu_spgemm_stats *full)
{
    size_t saved = ctx->info.max_storage_range_bytes;
    size_t range = csr_largest_array(r->ar.rows, r->ar.nnz, r->t);
    size_t b = csr_largest_array(r->br.rows, r->br.nnz, r->t);
    size_t c = csr_largest_array(r->c.rows, r->c.nnz, r->t);
    range = range > b ? range : b;
    range = range > c ? range : c;
    size_t long_products = 0; /* the products of the rows past the shared-memory path */
    for (uint32_t i = 0; i < r->ar.rows; i++) {
        size_t n = 0;
        for (uint32_t e = r->ar.row_ptr[i]; e < r->ar.row_ptr[i + 1]; e++) {
            uint32_t k = r->ar.col_idx[e];
            n += r->br.row_ptr[k + 1] - r->br.row_ptr[k];
        }
        long_products += n > SHARED_MAX_PRODUCTS ? n : 0;
    }
    size_t one_chunk = (2 * (size_t)full->long_rows + 2 + 3 * long_products) * 4;
    range = range > one_chunk * 2 / 3 ? range : one_chunk * 2 / 3;
    EXPECT(range < one_chunk && full->long_rows == r->long_rows,
           "long rows, bindings: the one chunk (%zu bytes) fits a binding of %zu: no test",
           one_chunk, range);
    ctx->info.max_storage_range_bytes = range;
    gpgpu_spgemm_stats st = {0};
    char what[120];
    snprintf(what, sizeof what, "long rows, storage bindings of %zu bytes", range);
    if (check_spgemm(what, ma, mb, r, &(gpgpu_spgemm_desc){0}, &st))
        EXPECT(st.chunks >= 2, "%s: %u chunks (one chunk's ux: %zu bytes)", what, st.chunks,
               one_chunk);
    ctx->info.max_storage_range_bytes = saved;
}

/* Long rows (most of 48 of ~2500 products over a wide B, as budgets() has them): one chunk
 * holds them and the symbolic phase keeps it for the numeric: kept with its sort reused;
 * with a budget a byte short of what that took (the kept chunk dropped, or the symbolic
 * phase split, and the long rows sorted again in chunks); and with the radix sort's
 * reduce-then-scan passes (GPGPU_TUNE=radix_onesweep=0), which sort only the column bytes
 * too; and kept with its keys alone, the values expanded in the numeric phase
 * (spgemm_esc_keep=1), in one chunk and at no more memory than with them. Each against
 * Gustavson's C. */
void long_rows_paths(void)
{
    gpgpu_type t = types[type_count - 1];
    gpgpu_csr a = random_csr(48, 3000, 50, 0, false), b = random_csr(3000, 20000, 50, 0, false);
    reference r = make_reference(&a, &b, t);
    gpgpu_matrix *ma = upload(&r.ar, t), *mb = upload(&r.br, t);
    gpgpu_spgemm_stats full = {0}, st = {0};
    if (check_spgemm("long rows kept", ma, mb, &r, &(gpgpu_spgemm_desc){0}, &full))
        EXPECT(full.chunks == 1 && full.long_rows >= 10,
               "long rows kept: %u chunks, %u long rows", full.chunks, full.long_rows);

    size_t budget = full.peak_bytes - 1;
    if (check_spgemm("long rows, a byte short of the kept chunk's peak", ma, mb, &r,
                     &(gpgpu_spgemm_desc){.memory_budget = budget}, &st))
        EXPECT(st.peak_bytes <= budget && st.chunks >= 2,
               "long rows, budget %zu (kept: peak %zu): peak %zu, %u chunks", budget,
               full.peak_bytes, st.peak_bytes, st.chunks);

    algo_plans saved = algo_plans_get(ctx);
    TEST_PLAN(ctx, radix.onesweep, ALGO_NEVER);
    check_spgemm("long rows, reduce-then-scan sort", ma, mb, &r, &(gpgpu_spgemm_desc){0}, NULL);
    algo_plans_set(ctx, &saved);
    /* the keys kept, the values expanded in the numeric phase */
    TEST_PLAN(ctx, spgemm.esc_keep, SPGEMM_KEEP_KEYS);
    gpgpu_spgemm_stats keys_only = {0};
    if (check_spgemm("long rows kept, values late", ma, mb, &r, &(gpgpu_spgemm_desc){0},
                     &keys_only))
        EXPECT(keys_only.chunks == 1 && keys_only.peak_bytes <= full.peak_bytes,
               "long rows kept, values late: %u chunks, peak %zu (values early: %zu)",
               keys_only.chunks, keys_only.peak_bytes, full.peak_bytes);
    algo_plans_set(ctx, &saved);
    long_rows_bindings(ma, mb, &r, &full);
    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    free_reference(&r);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
}

/* Long rows sorted in parts one radix pass shorter (spgemm_esc_split=1: whatever the parts'
 * size): 48 rows over 2^15 columns pack into 21 bits, 3 passes, or 2 over 24 parts of 2 rows.
 * In each type, with the values expanded before the sort (f32 carried through it, f64
 * gathered through each part's indices, which start at the part) and after it (every type
 * gathered). Each against Gustavson's C. */
void long_rows_parts(void)
{
    algo_plans saved = algo_plans_get(ctx);
    gpgpu_csr a = random_csr(48, 3000, 50, 5, false), b = random_csr(3000, 20000, 50, 0, false);
    TEST_PLAN(ctx, spgemm.esc_split, 1);
    for (size_t ti = 0; ti < type_count; ti++) {
        reference r = make_reference(&a, &b, types[ti]);
        gpgpu_matrix *ma = upload(&r.ar, types[ti]), *mb = upload(&r.br, types[ti]);
        for (unsigned keep = 1; keep <= 2; keep++) {
            TEST_PLAN(ctx, spgemm.esc_keep, (spgemm_keep_mode)keep);
            char what[120];
            snprintf(what, sizeof what, "long rows sorted in parts, values %s the sort",
                     keep == 2 ? "before" : "after");
            check_spgemm(what, ma, mb, &r, &(gpgpu_spgemm_desc){0}, NULL);
        }
        gpgpu_matrix_destroy(ma);
        gpgpu_matrix_destroy(mb);
        free_reference(&r);
    }
    algo_plans_set(ctx, &saved);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
}

/* The GPU transpose with storage bindings that hold one word per nonzero (and the row
 * pointers) but not two: every work array of the transpose is one word per nonzero, so
 * it must still give A^T bit for bit, where an array of (key, entry) pairs would not fit. */
void transpose_bindings(void)
{
    gpgpu_type t = GPGPU_TYPE_F32;
    gpgpu_csr any = random_csr(300, 280, 60, 0, true), a = as_type(&any, t);
    gpgpu_matrix *ma = upload(&a, t);
    size_t saved = ctx->info.max_storage_range_bytes;
    size_t rows = a.rows > a.cols ? a.rows : a.cols;
    size_t range = ((size_t)rows + 1 + a.nnz) * 4; /* A's or A^T's ints, the larger */
    /* The sort's status words (the one-sweep radix's, a binding of their own) follow
     * the sort's tiles, not the transpose: where a device's small tiles make them the
     * larger array, the binding must hold them too. */
    size_t status = radix_hist_count(ctx, GPGPU_TYPE_U32, a.nnz) * 4;
    range = range > status ? range : status;
    EXPECT(2 * a.nnz * 4 > range, "transpose, bindings: %zu nonzeros in %zu bytes", a.nnz,
           range);
    ctx->info.max_storage_range_bytes = range;
    char name[80];
    snprintf(name, sizeof name, "bindings of %zu bytes", range);
    gpgpu_matrix *mt = ma ? checked_transpose(name, ma, &a, t) : NULL;
    ctx->info.max_storage_range_bytes = saved;
    gpgpu_matrix_destroy(mt);
    gpgpu_matrix_destroy(ma);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&any);
}

/* Short rows only (~36 products each), so the product takes one phase where its temporary
 * fits: with the budget it took less one byte, the temporary fits but C no longer fits
 * beside it, and the rows are summed again into C (two phases); with just what two phases
 * take, the temporary is never made. Each gives the same C within the budget. */
static void one_phase_budgets_of(const char *name, const gpgpu_csr *a, gpgpu_type t);
void one_phase_budgets(void)
{
    algo_plans saved = algo_plans_get(ctx);
    TEST_PLAN(ctx, spgemm.one_phase, true); /* one phase where it fits (the default) */
    gpgpu_csr a = random_csr(600, 600, 6, 0, false);
    one_phase_budgets_of("random", &a, types[type_count - 1]);
    gpgpu_csr_free(&a);
    /* rows alike: the ordered one phase, which runs no BIN_FILL, sent back to two phases */
    gpgpu_csr band = test_generated(GPGPU_GEN_BANDED, 700, 4);
    one_phase_budgets_of("banded", &band, types[0]);
    gpgpu_csr_free(&band);
    algo_plans_set(ctx, &saved);
}

/* A*A with one phase, unlimited, then under budgets that make the temporary and then find
 * no room for C beside it (two phases after all), and that leave no room for it at all. */
static void one_phase_budgets_of(const char *name, const gpgpu_csr *a, gpgpu_type t)
{
    reference r = make_reference(a, a, t);
    gpgpu_matrix *ma = upload(&r.ar, t);
    gpgpu_spgemm_stats full = {0}, st = {0};
    char what[200];
    snprintf(what, sizeof what, "%s: one phase, unlimited", name);
    check_spgemm(what, ma, ma, &r, &(gpgpu_spgemm_desc){0}, &full);
    size_t t_bytes = (size_t)r.products * (4 + gpgpu_type_size(t));
    EXPECT(full.one_phase == 1 && full.long_rows == 0 && full.peak_bytes > t_bytes,
           "%s: one_phase %u, %u long rows, peak %zu (temporary %zu)", what, full.one_phase,
           full.long_rows, full.peak_bytes, t_bytes);
    size_t budgets[2] = {full.peak_bytes - 1, full.peak_bytes - t_bytes};
    for (int k = 0; k < 2 && full.peak_bytes > t_bytes; k++) {
        snprintf(what, sizeof what, "%s: one phase, budget %zu (peak unlimited %zu)", name,
                 budgets[k], full.peak_bytes);
        if (!check_spgemm(what, ma, ma, &r, &(gpgpu_spgemm_desc){.memory_budget = budgets[k]},
                          &st))
            continue;
        EXPECT(st.one_phase == 0 && st.peak_bytes <= budgets[k] && st.nnz == r.c.nnz,
               "%s: one_phase %u, peak %zu", what, st.one_phase, st.peak_bytes);
        /* the first budget made the temporary, which C then sent back */
        EXPECT(k != 0 || st.peak_bytes >= t_bytes,
               "%s: peak %zu: the temporary (%zu) was never made", what, st.peak_bytes, t_bytes);
    }
    gpgpu_matrix_destroy(ma);
    free_reference(&r);
}

/* ------------------------------------------------------------------ misuse */

void misuse(void)
{
    gpgpu_csr a = random_csr(3, 41, 3, 0, false), b = random_csr(43, 2, 2, 0, false);
    gpgpu_csr sq = test_generated(GPGPU_GEN_BANDED, 20, 2);
    gpgpu_matrix *ma = upload(&a, GPGPU_TYPE_F32), *mb = upload(&b, GPGPU_TYPE_F32);
    gpgpu_matrix *ms = upload(&sq, GPGPU_TYPE_F32), *mc = NULL, *ell = NULL;
    gpgpu_spgemm_desc d = {0};
    EXPECT_STATUS(ctx,
                  gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32,
                                                                .format = GPGPU_FORMAT_ELL},
                                      &sq, &ell),
                  GPGPU_SUCCESS);

    EXPECT_STATUS(NULL, gpgpu_spgemm(NULL, &d, ms, ms, &mc, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, NULL, ms, ms, &mc, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, NULL, ms, &mc, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, NULL, &mc, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, ms, NULL, NULL), GPGPU_ERROR_NULL_POINTER);

    /* 3x41 times 43x2: the message names both sizes */
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ma, mb, &mc, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(gpgpu_last_error(ctx), "41") && strstr(gpgpu_last_error(ctx), "43"),
           "dimension mismatch: '%s' does not name 41 and 43", gpgpu_last_error(ctx));
    EXPECT(mc == NULL, "a refused product leaves *c NULL");
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = 99}, ms, ms, &mc, NULL),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx,
                  gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = GPGPU_ALGO_RADIX}, ms, ms, &mc,
                               NULL),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx,
                  gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = GPGPU_ALGO_SPMV_VECTOR}, ms, ms,
                               &mc, NULL),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ell, ms, &mc, NULL),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, ell, &mc, NULL),
                  GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    if (type_count > 1) {
        gpgpu_matrix *m64 = upload(&sq, GPGPU_TYPE_F64);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, m64, &mc, NULL),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, m64, ms, &mc, NULL),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        gpgpu_matrix_destroy(m64);
    }
    EXPECT(mc == NULL, "a refused product leaves *c NULL");

    /* download and transpose */
    gpgpu_csr h = {0};
    EXPECT_STATUS(ctx, gpgpu_matrix_download(NULL, &h), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_download(ms, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_download(ell, &h), GPGPU_ERROR_UNSUPPORTED_COMBINATION);
    EXPECT_STATUS(ctx, gpgpu_matrix_transpose(NULL, ms, &mc), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_transpose(ctx, NULL, &mc), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_transpose(ctx, ms, NULL), GPGPU_ERROR_NULL_POINTER);
    EXPECT_STATUS(ctx, gpgpu_matrix_transpose(ctx, ell, &mc), GPGPU_ERROR_UNSUPPORTED_COMBINATION);

    /* matrices of another context */
    gpgpu_context *other = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(NULL, &other), GPGPU_SUCCESS);
    gpgpu_matrix *om = NULL;
    if (other) {
        EXPECT_STATUS(other,
                      gpgpu_matrix_create(other, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32},
                                          &sq, &om),
                      GPGPU_SUCCESS);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, om, &mc, NULL),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, om, ms, &mc, NULL),
                      GPGPU_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(ctx, gpgpu_matrix_transpose(ctx, om, &mc), GPGPU_ERROR_INVALID_ARGUMENT);
        gpgpu_matrix_destroy(om);
        gpgpu_context_destroy(other);
    }
    EXPECT(mc == NULL, "a refused call leaves *out NULL");

    /* A and B the same object, stats NULL, FAST as DEFAULT */
    EXPECT_STATUS(ctx, gpgpu_spgemm(ctx, &d, ms, ms, &mc, NULL), GPGPU_SUCCESS);
    gpgpu_matrix_destroy(mc);
    mc = NULL;
    EXPECT_STATUS(ctx,
                  gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = GPGPU_ALGO_FAST}, ms, ms, &mc,
                               NULL),
                  GPGPU_SUCCESS);
    gpgpu_matrix_destroy(mc);

    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    gpgpu_matrix_destroy(ms);
    gpgpu_matrix_destroy(ell);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
    gpgpu_csr_free(&sq);
}
