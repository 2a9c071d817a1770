/* SpGEMM's fast stages replayed one by one against their twins (src/ref/ref_spgemm_fast.c),
 * bit for bit, in run_fast's order: counts, bins, ROWS_RANK and ROWS per bin (symbolic,
 * numeric, one phase, ordered), the global path's chunks, ROWS_COMPACT; each GPU array a
 * test buffer with a poisoned guard. test_spgemm_fast_inputs.c has the matrices. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "test_plans.h"
#include "test_spgemm.h"

/* ------------------------------------------------------------ the fast stages */

/* The arrays the fast stages write, as the twin (src/ref/ref.h) holds them: the product's
 * aux words, C's ints and values, a chunk's words and expanded values, the one phase's
 * temporary. */
enum { FAST_AUX, FAST_C_INTS, FAST_C_VALS, FAST_UX, FAST_VALS, FAST_ALT, FAST_T_INTS,
       FAST_T_VALS, FAST_ARRAYS };
static const char *const fast_names[FAST_ARRAYS] = {"aux",        "c_ints", "c_vals",
                                                    "chunk ux",   "chunk vals", "chunk alt",
                                                    "one-phase ints", "one-phase vals"};

/* A fast product replayed stage by stage on the GPU alongside its twin. Each GPU array is
 * a buffer of the test's with GUARD poisoned elements past the twin's length, put in the
 * product (or chunk, or C) in place of its own, which is kept in `own` and put back before
 * the library frees it: a write past an array's end shows. */
typedef struct fast_replay {
    const char *name;
    gpgpu_type t;
    spgemm_product p;       /* the GPU's */
    spgemm_chunk ch;        /* the GPU's chunk of long rows, while one is open */
    ref_spgemm_fast_state s;
    ref_spgemm_chunk rch;   /* the twin's chunk (zeroed when none is open) */
    gpgpu_buffer *bufs[FAST_ARRAYS], *own[FAST_ARRAYS];
    bool failed;            /* a step differed: the later ones are not run */
    unsigned steps;
} fast_replay;

/* The twin's array k (NULL when it has none now), its length and element type. */
static void *fast_array(fast_replay *r, int k, size_t *len, gpgpu_type *et)
{
    ref_spgemm_fast_state *s = &r->s;
    *et = GPGPU_TYPE_U32;
    switch (k) {
    case FAST_AUX: *len = s->words; return s->aux;
    case FAST_C_INTS: *len = (size_t)s->a->rows + 1 + s->nnz_c; return s->c_ints;
    case FAST_C_VALS: *len = s->nnz_c, *et = r->t; return s->c_vals;
    case FAST_UX: *len = r->rch.words; return r->rch.ux;
    case FAST_VALS: *len = r->rch.products, *et = r->t; return r->rch.vals;
    case FAST_ALT: *len = r->rch.flag_off; return r->rch.alt; /* until the sort */
    case FAST_T_INTS: *len = s->t_len; return s->t_ints;
    default: *len = s->t_len, *et = r->t; return s->t_vals;
    }
}

/* Where the GPU's stages find array k. */
static gpgpu_buffer **fast_slot(fast_replay *r, int k)
{
    switch (k) {
    case FAST_AUX: return &r->p.aux;
    case FAST_C_INTS: return &r->p.c->owned_ints;
    case FAST_C_VALS: return &r->p.c->owned_values;
    case FAST_UX: return &r->ch.ux;
    case FAST_VALS: return &r->ch.vals;
    case FAST_ALT: return &r->ch.alt;
    case FAST_T_INTS: return &r->p.t_ints;
    default: return &r->p.t_vals;
    }
}

static void fast_guard(fast_replay *r, int k)
{
    size_t len;
    gpgpu_type et;
    fast_array(r, k, &len, &et);
    gpgpu_buffer **slot = fast_slot(r, k);
    r->own[k] = *slot;
    r->bufs[k] = test_buffer(ctx, NULL, (len + GUARD) * gpgpu_type_size(et));
    *slot = r->bufs[k];
}

static void fast_unguard(fast_replay *r, int k)
{
    if (!r->bufs[k])
        return;
    *fast_slot(r, k) = r->own[k];
    gpgpu_buffer_destroy(r->bufs[k]);
    r->bufs[k] = r->own[k] = NULL;
}

/* Before a step: false once one has differed (the first differing step is the one to
 * read); else the twin's state (the step's outputs poisoned by the caller) uploaded. */
static bool fast_begin(fast_replay *r)
{
    if (r->failed)
        return false;
    for (int k = 0; k < FAST_ARRAYS; k++) {
        size_t len;
        gpgpu_type et;
        void *host = fast_array(r, k, &len, &et);
        if (r->bufs[k] && host && len)
            EXPECT_STATUS(ctx, gpgpu_buffer_upload(r->bufs[k], 0, host, len * gpgpu_type_size(et)),
                          GPGPU_SUCCESS);
    }
    return true;
}

/* After the GPU's step (status st) and the twin's: every array downloaded and compared with
 * the twin's and its poisoned guard, bit for bit. */
static void fast_end(fast_replay *r, gpgpu_status st, const char *fmt, ...)
{
    char stage[160], what[300], label[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(stage, sizeof stage, fmt, ap);
    va_end(ap);
    snprintf(what, sizeof what, "%s %s fast %s", r->name, gpgpu_type_name(r->t), stage);
    r->steps++;
    if (st != GPGPU_SUCCESS) {
        EXPECT(false, "%s: %s: %s", what, gpgpu_status_string(st), gpgpu_last_error(ctx));
        r->failed = true;
        return;
    }
    int before = test_failures;
    for (int k = 0; k < FAST_ARRAYS; k++) {
        size_t len;
        gpgpu_type et;
        void *host = fast_array(r, k, &len, &et);
        if (!r->bufs[k] || !host)
            continue;
        size_t size = gpgpu_type_size(et);
        char *want = xmalloc((len + GUARD) * size), *got = xmalloc((len + GUARD) * size);
        memcpy(want, host, len * size);
        test_poison(want + len * size, GUARD * size);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(r->bufs[k], 0, got, (len + GUARD) * size),
                      GPGPU_SUCCESS);
        snprintf(label, sizeof label, "%s: %s (%zu + %d guard)", what, fast_names[k], len,
                 GUARD);
        check_elems(label, et, got, want, len + GUARD, NULL);
        free(want);
        free(got);
    }
    r->failed = test_failures != before;
}

/* `count` items of `words` u32 each, in the GPU's order at got and the twin's (ascending by
 * first word) at want: compared as sets, then the GPU's order copied into the twin. */
static void same_set_in_gpu_order(const char *label, const uint32_t *got, uint32_t *want,
                                  size_t count, size_t words)
{
    size_t bytes = count * words * 4;
    uint32_t *sorted = xmalloc(bytes);
    memcpy(sorted, got, bytes);
    qsort(sorted, count, words * 4, cmp_first_u32);
    check_elems(label, GPGPU_TYPE_U32, sorted, want, count * words, NULL);
    memcpy(want, got, bytes);
    free(sorted);
}

/* BIN_FILL: the GPU hands out slots by atomics, so each bin's part of the list (its rows'
 * records), and the long (row, products) pairs, are compared as sets; then the GPU's order
 * is copied into the twin, whose later stages take rows in list order, and the whole of aux
 * compared (fill counters, and nothing written outside the list's filled parts). */
static void fast_bin_fill(fast_replay *r)
{
    ref_spgemm_fast_state *s = &r->s;
    uint32_t *aux = s->aux, *list = aux + s->list_off, *pairs = aux + s->pairs_off;
    poison_u32(aux, s->list_off, s->words - s->list_off);
    if (!fast_begin(r))
        return;
    int before = test_failures;
    gpgpu_status st = spgemm_stage_bin_fill(&r->p);
    ref_spgemm_bin_fill(s);
    uint32_t *got = xmalloc(s->words * 4);
    if (st == GPGPU_SUCCESS)
        EXPECT_STATUS(ctx, gpgpu_buffer_download(r->bufs[FAST_AUX], 0, got, s->words * 4),
                      GPGPU_SUCCESS);
    char label[300];
    size_t at = 0;
    for (unsigned b = 0; st == GPGPU_SUCCESS && b < REF_SPGEMM_BINS; b++) {
        size_t count = aux[REF_SPGEMM_H_COUNT + b];
        snprintf(label, sizeof label, "%s %s fast BIN_FILL: bin %u's %zu row records (as a set)",
                 r->name, gpgpu_type_name(r->t), b, count);
        same_set_in_gpu_order(label, got + s->list_off + at * REF_SPGEMM_RECORD,
                              list + at * REF_SPGEMM_RECORD, count, REF_SPGEMM_RECORD);
        at += count;
    }
    if (st == GPGPU_SUCCESS) {
        size_t n = aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN];
        snprintf(label, sizeof label, "%s %s fast BIN_FILL: %zu long (row, products) pairs "
                 "(as a set)", r->name, gpgpu_type_name(r->t), n);
        same_set_in_gpu_order(label, got + s->pairs_off, pairs, n, 2);
    }
    free(got);
    fast_end(r, st, "BIN_FILL");
    r->failed = r->failed || test_failures != before;
}

/* Copies of the twin's arrays (fast_array), to put back with fast_restore: each of several
 * programs of one stage then starts from the same state, poison included. */
static void fast_snapshot(fast_replay *r, void *copies[FAST_ARRAYS])
{
    for (int k = 0; k < FAST_ARRAYS; k++) {
        size_t len;
        gpgpu_type et;
        void *host = fast_array(r, k, &len, &et);
        copies[k] = host ? xmalloc(len * gpgpu_type_size(et) + 1) : NULL;
        if (host)
            memcpy(copies[k], host, len * gpgpu_type_size(et));
    }
}

static void fast_restore(fast_replay *r, void *const copies[FAST_ARRAYS])
{
    for (int k = 0; k < FAST_ARRAYS; k++) {
        size_t len;
        gpgpu_type et;
        void *host = fast_array(r, k, &len, &et);
        if (host && copies[k])
            memcpy(host, copies[k], len * gpgpu_type_size(et));
    }
}

/* spgemm_stage_rows on every bin with rows, as run_fast's shared_rows calls it; ROWS_RANK's
 * bins once with each of its programs (compare, search, merge, window), each from the same state
 * against the one twin, so that an entry one program leaves unwritten shows as poison.
 * Symbolic and one phase: the bin's rows' counts (zeros from ROW_BINS) poisoned first, so a
 * row left uncounted shows. */
static void fast_rows(fast_replay *r, spgemm_rows_mode mode)
{
    static const char *const mode_names[] = {"symbolic", "numeric", "one-phase"};
    static const char *const rank_names[] = {"compare", "search", "merge", "window"};
    ref_spgemm_fast_state *s = &r->s;
    algo_plans saved = algo_plans_get(ctx);
    size_t start = 0;
    if (r->failed)
        return; /* the list may not be filled: its rows are not to be poisoned */
    for (unsigned b = 0; b < REF_SPGEMM_LONG_BIN; start += s->aux[REF_SPGEMM_H_COUNT + b], b++) {
        uint32_t count = s->aux[REF_SPGEMM_H_COUNT + b], cap = REF_SPGEMM_MIN_CAP << b;
        bool rank = cap <= REF_SPGEMM_RANK_MAX;
        if (count == 0)
            continue;
        for (uint32_t at = 0; at < count && mode != SPGEMM_NUMERIC; at++)
            poison_u32(s->aux,
                       s->rptr_off + s->aux[s->list_off + (start + at) * REF_SPGEMM_RECORD],
                       1);
        void *before[FAST_ARRAYS];
        fast_snapshot(r, before);
        for (unsigned program = 0; program < (rank ? 4u : 1u); program++) {
            TEST_PLAN(ctx, spgemm.rank, program);
            fast_restore(r, before);
            if (!fast_begin(r))
                break;
            gpgpu_status st = spgemm_stage_rows(&r->p, b, count, start, mode);
            ref_spgemm_rows(s, b, count, start, (unsigned)mode);
            fast_end(r, st, "%s%s %s bin %u (CAP %u): %u rows from %zu",
                     rank ? "ROWS_RANK " : "ROWS", rank ? rank_names[program] : "",
                     mode_names[mode], b, cap, count, start);
        }
        for (int k = 0; k < FAST_ARRAYS; k++)
            free(before[k]);
    }
    algo_plans_set(ctx, &saved);
}

/* The ordered one phase (spgemm_stage_rows_ordered, rows `width` slots wide), once with each
 * of ROWS_RANK's programs from the same state against the one twin, every row's count
 * poisoned first. */
static bool replayed_ordered; /* whether fast_replay_product's last replay took it */
static void fast_rows_ordered(fast_replay *r, uint32_t width)
{
    static const char *const rank_names[] = {"compare", "search", "merge", "window"};
    ref_spgemm_fast_state *s = &r->s;
    algo_plans saved = algo_plans_get(ctx);
    if (r->failed)
        return;
    poison_u32(s->aux, s->rptr_off, s->a->rows);
    void *before[FAST_ARRAYS];
    fast_snapshot(r, before);
    for (unsigned program = 0; program < 4; program++) {
        TEST_PLAN(ctx, spgemm.rank, program);
        fast_restore(r, before);
        if (!fast_begin(r))
            break;
        gpgpu_status st = spgemm_stage_rows_ordered(&r->p, width);
        ref_spgemm_rows_ordered(s, SPGEMM_WG / width);
        fast_end(r, st, "ROWS_RANK %s ordered one phase: %u rows, %u slots a row",
                 rank_names[program], s->a->rows, width);
    }
    for (int k = 0; k < FAST_ARRAYS; k++)
        free(before[k]);
    algo_plans_set(ctx, &saved);
}

/* Whether the library may pack a chunk's keys (GPGPU_TUNE's spgemm_esc_packed): the twin
 * decides from the chunk's shape itself. */
static bool esc_may_pack(void)
{
    return algo_plans_get(ctx).spgemm.esc_packed;
}

/* Whether the library may carry a chunk's f32 values through its sort (spgemm_esc_carry):
 * the twin decides from the chunk's type and phase itself. */
static bool esc_may_carry(void)
{
    return algo_plans_get(ctx).spgemm.esc_carry;
}

/* The least mean products of the parts a chunk's sort may be split into (spgemm_esc_split):
 * the twin decides from the chunk's shape itself. */
static size_t esc_split(void)
{
    return algo_plans_get(ctx).spgemm.esc_split;
}

/* A chunk's expansion, sort, run flags and their scan, each against its twin, as the
 * symbolic and numeric phases run them (fast_chunk, fast_long_kept). */
static void fast_chunk_runs(fast_replay *r, const char *phase, size_t rows)
{
    ref_spgemm_fast_state *s = &r->s;
    ref_spgemm_chunk *c = &r->rch;
    gpgpu_status st;
    if (fast_begin(r)) {
        st = spgemm_stage_esc_expand(&r->p, &r->ch);
        ref_spgemm_esc_expand(s, c);
        fast_end(r, st, "%s ESC_EXPAND (%zu rows, %zu products)", phase, rows, c->products);
    }
    if (!c->carried) /* the keys are sorted in place; carried values are the payload */
        poison_u32(c->ux, c->pay_off, c->products);
    if (fast_begin(r)) {
        st = spgemm_esc_sort(&r->p, &r->ch);
        ref_spgemm_esc_sort(c);
        fast_end(r, st, "%s ESC sort (%zu rows, %zu products)", phase, rows, c->products);
    }
    poison_u32(c->ux, c->flag_off, c->products + 1);
    if (fast_begin(r)) {
        st = spgemm_stage_esc_flags(&r->p, &r->ch);
        ref_spgemm_esc_flags(c);
        fast_end(r, st, "%s ESC_FLAGS (%zu rows)", phase, rows);
    }
    if (fast_begin(r)) {
        st = spgemm_scan_flags(ctx, &r->ch);
        ref_spgemm_scan_words(c->ux + c->flag_off, c->products + 1);
        fast_end(r, st, "%s ESC flags' scan (%zu rows)", phase, rows);
    }
}

/* One chunk of long rows through the global path, as esc_chunk runs it: the chunk's ids
 * and segments as spgemm_chunk_open uploads them, then expand, sort, flags, their scan, and
 * count (symbolic: the rows' counts poisoned first) or write. */
static void fast_chunk(fast_replay *r, const uint32_t *pairs, size_t rows, bool numeric)
{
    if (r->failed)
        return;
    ref_spgemm_fast_state *s = &r->s;
    ref_spgemm_chunk *c = &r->rch;
    ref_or_die(ref_spgemm_chunk_open(s, pairs, rows, numeric, esc_may_pack(), esc_may_carry(),
                                     esc_split(), c),
               "fast twin chunk");
    char what[300];
    snprintf(what, sizeof what, "%s %s fast %s chunk of %zu rows (%zu products)", r->name,
             gpgpu_type_name(r->t), numeric ? "numeric" : "symbolic", rows, c->products);
    gpgpu_status st = spgemm_chunk_open(&r->p, pairs, rows, numeric, &r->ch);
    EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_chunk_open: %s", what, gpgpu_last_error(ctx));
    if (st == GPGPU_SUCCESS) {
        spgemm_chunk *g = &r->ch;
        EXPECT(g->products == c->products && g->seg_off == c->seg_off &&
                   g->key_off == c->key_off && g->pay_off == c->pay_off &&
                   g->flag_off == c->flag_off && g->ux->size == c->words * 4 &&
                   g->packed == c->packed && g->col_bits == c->col_bits &&
                   g->carried == c->carried && g->key_passes == c->key_passes &&
                   g->expand_in_alt == (c->alt != NULL) &&
                   (c->carried ? !g->vals
                               : !numeric || (g->vals && g->vals->size ==
                                                             c->products * gpgpu_type_size(r->t))),
               "%s: the chunk's layout differs from the twin's", what);
        uint32_t *head = xmalloc((2 * rows + 1) * 4);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(g->ux, 0, head, (2 * rows + 1) * 4),
                      GPGPU_SUCCESS);
        char label[400];
        snprintf(label, sizeof label, "%s: ids and segments", what);
        check_elems(label, GPGPU_TYPE_U32, head, c->ux, 2 * rows + 1, NULL);
        free(head);
        fast_guard(r, FAST_UX);
        if (numeric && !c->carried)
            fast_guard(r, FAST_VALS);
        if (c->alt)
            fast_guard(r, FAST_ALT);
    } else {
        r->failed = true;
    }
    uint32_t *ux = c->ux;
    fast_chunk_runs(r, numeric ? "numeric" : "symbolic", rows);
    for (size_t k = 0; k < rows && !numeric; k++)
        poison_u32(s->aux, s->rptr_off + ux[k], 1);
    if (fast_begin(r)) {
        st = numeric ? spgemm_stage_esc_write(&r->p, &r->ch)
                     : spgemm_stage_esc_count(&r->p, &r->ch);
        if (numeric)
            ref_spgemm_esc_write(s, c);
        else
            ref_spgemm_esc_count(s, c);
        fast_end(r, st, "%s (%zu rows)", numeric ? "ESC_WRITE" : "ESC_COUNT", rows);
    }
    fast_unguard(r, FAST_ALT);
    fast_unguard(r, FAST_VALS);
    fast_unguard(r, FAST_UX);
    spgemm_chunk_close(&r->p, &r->ch);
    ref_spgemm_chunk_free(c);
}

/* The long rows as run_fast takes them when one chunk holds them all (spgemm_esc_keep), in
 * the numeric phase (after fast_long's symbolic chunks replayed the counts): the chunk of all
 * of them opened symbolic, expanded, sorted, flagged and scanned as the symbolic phase left
 * it, then its values alone (the keys stay sorted) and ESC_WRITE. With spgemm_esc_keep=2
 * the symbolic expansion makes the values too, as run_fast does where they fit: f32 values
 * carried through the sort in its payload (spgemm_esc_carry), and ESC_WRITE follows; values
 * not carried get ESC_EXPAND of the values alone replayed over them (poisoned first), as
 * run_fast runs it where they did not fit, before ESC_WRITE. */
static void fast_long_kept(fast_replay *r)
{
    ref_spgemm_fast_state *s = &r->s;
    ref_spgemm_chunk *c = &r->rch;
    size_t rows = s->aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN];
    if (r->failed || rows == 0)
        return;
    bool early = algo_plans_get(ctx).spgemm.esc_keep == SPGEMM_KEEP_VALUES;
    const uint32_t *pairs = s->aux + s->pairs_off;
    ref_or_die(ref_spgemm_chunk_open(s, pairs, rows, early, esc_may_pack(), esc_may_carry(),
                                     esc_split(), c),
               "fast twin chunk");
    char what[300];
    snprintf(what, sizeof what, "%s %s fast kept chunk of %zu rows (%zu products)", r->name,
             gpgpu_type_name(r->t), rows, c->products);
    gpgpu_status st = spgemm_chunk_open(&r->p, pairs, rows, early, &r->ch);
    EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_chunk_open: %s", what, gpgpu_last_error(ctx));
    EXPECT(st != GPGPU_SUCCESS || r->ch.carried == c->carried,
           "%s: the chunk carries its values %s, the twin's %s", what,
           r->ch.carried ? "yes" : "no", c->carried ? "yes" : "no");
    EXPECT(st != GPGPU_SUCCESS || r->ch.expand_in_alt == (c->alt != NULL),
           "%s: the chunk expands into alt %s, the twin %s", what,
           r->ch.expand_in_alt ? "yes" : "no", c->alt ? "yes" : "no");
    r->failed = st != GPGPU_SUCCESS;
    if (!r->failed)
        fast_guard(r, FAST_UX);
    if (!r->failed && c->alt)
        fast_guard(r, FAST_ALT);
    if (!r->failed && early && !c->carried)
        fast_guard(r, FAST_VALS);
    fast_chunk_runs(r, "kept", rows);
    if (early && !c->carried && !r->failed) /* the values alone, again, must fill them */
        memset(c->vals, 0xA5, c->products * gpgpu_type_size(r->t));
    if (!r->failed && !early) {
        st = spgemm_chunk_values(&r->p, &r->ch);
        EXPECT(st == GPGPU_SUCCESS && r->ch.vals->size == c->products * gpgpu_type_size(r->t),
               "%s: spgemm_chunk_values: %s", what, gpgpu_last_error(ctx));
        ref_or_die(ref_spgemm_chunk_values(s, c), "fast twin values");
        r->failed = st != GPGPU_SUCCESS;
        if (!r->failed)
            fast_guard(r, FAST_VALS);
    }
    if (!c->carried && fast_begin(r)) { /* carried values went through the sort already */
        st = spgemm_stage_esc_values(&r->p, &r->ch);
        ref_spgemm_esc_values(s, c);
        fast_end(r, st, "kept ESC_EXPAND values (%zu rows)", rows);
    }
    if (fast_begin(r)) {
        st = spgemm_stage_esc_write(&r->p, &r->ch);
        ref_spgemm_esc_write(s, c);
        fast_end(r, st, "kept ESC_WRITE (%zu rows)", rows);
    }
    fast_unguard(r, FAST_ALT);
    fast_unguard(r, FAST_VALS);
    fast_unguard(r, FAST_UX);
    spgemm_chunk_close(&r->p, &r->ch);
    ref_spgemm_chunk_free(c);
}

/* The long rows (from the list's pairs, in the GPU's order) in chunks of 1, 2, 3, ... rows,
 * so segments start past 0 and chunks end mid-list, as a budget splits them. */
static void fast_long(fast_replay *r, bool numeric)
{
    ref_spgemm_fast_state *s = &r->s;
    if (r->failed)
        return;
    size_t n = s->aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN];
    uint32_t *pairs = xmalloc(2 * n * 4 + 4);
    memcpy(pairs, s->aux + s->pairs_off, 2 * n * 4);
    for (size_t first = 0, size = 1; first < n; size++) {
        size_t m = size < n - first ? size : n - first;
        fast_chunk(r, pairs + 2 * first, m, numeric);
        first += m;
    }
    free(pairs);
}

_Static_assert((int)SPGEMM_SYMBOLIC == REF_SPGEMM_SYMBOLIC &&
                   (int)SPGEMM_NUMERIC == REF_SPGEMM_NUMERIC &&
                   (int)SPGEMM_ONE_PHASE == REF_SPGEMM_ONE_PHASE,
               "the twin's row modes are the library's");

/* The fast product of a and b (values rounded to t) with desc's algorithm, every stage on
 * the GPU against its twin in run_fast's order: NNZ_PRODUCTS, apos's scan, ROW_BINS,
 * BIN_FILL, the short rows counted (ROWS_RANK or ROWS per bin; in one phase also summed
 * into the temporary; or the ordered one phase, every row at once, where
 * spgemm_ordered_width takes it) and the long-row chunks counted, rptr's scan, C made, the
 * short rows summed into C (one phase: ROWS_COMPACT) and the long-row chunks summed. Then the twin's C
 * against Gustavson's (bit for bit when `exact`: the values make every sum exact; else
 * within its bound) and the whole product through gpgpu_spgemm against the twin, bit for
 * bit. `bins` says which bins must have rows (bit b: bin b), so a matrix meant to cover
 * them is checked to. `keep_long`: the numeric phase's long rows as one kept chunk
 * (fast_long_kept, as spgemm_esc_keep=1 or 2 runs them), else in chunks of 1, 2, 3, ... rows.
 * Returns whether another replay would differ: the product took one phase
 * (spgemm_one_phase_fits, under the tuning in force) or has long rows. */
static bool fast_replay_product(const char *name, const gpgpu_csr *a, const gpgpu_csr *b,
                                gpgpu_type t, gpgpu_algo algo, bool exact, unsigned bins,
                                bool keep_long)
{
    gpgpu_csr ar = as_type(a, t), br = as_type(b, t);
    gpgpu_matrix *ma = upload(&ar, t), *mb = upload(&br, t);
    gpgpu_spgemm_desc desc = {.algo = algo};
    fast_replay r = {.name = name, .t = t};
    char what[300];
    snprintf(what, sizeof what, "%s %s fast %s", name, gpgpu_type_name(t), algo_name(algo));
    gpgpu_status st = ma && mb ? spgemm_product_open(ctx, &desc, ma, mb, &r.p)
                               : GPGPU_ERROR_INVALID_ARGUMENT;
    EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_product_open: %s", what, gpgpu_last_error(ctx));
    if (st != GPGPU_SUCCESS) {
        spgemm_product_close(&r.p);
        gpgpu_matrix_destroy(ma);
        gpgpu_matrix_destroy(mb);
        gpgpu_csr_free(&ar);
        gpgpu_csr_free(&br);
        return false;
    }
    ref_spgemm_fast_state *s = &r.s;
    ref_or_die(ref_spgemm_fast_open(t, &ar, &br, r.p.shared_max, s), "fast twin");
    EXPECT(s->apos_off == r.p.apos_off && s->rptr_off == r.p.rptr_off &&
               s->list_off == r.p.list_off && s->pairs_off == r.p.pairs_off &&
               s->words * 4 == r.p.aux->size &&
               r.p.shared_max == (algo == GPGPU_ALGO_SPGEMM_ESC ? 0 : REF_SPGEMM_SHARED_MAX),
           "%s: aux's layout differs from the twin's (shared_max %u)", what, r.p.shared_max);
    fast_guard(&r, FAST_AUX);
    uint32_t rows = ar.rows, *aux = s->aux;

    poison_u32(aux, s->apos_off, ar.nnz + 1); /* as open leaves them: the stage writes all */
    if (fast_begin(&r)) {
        st = spgemm_stage_nnz_products(&r.p);
        ref_spgemm_nnz_products(s);
        fast_end(&r, st, "NNZ_PRODUCTS");
    }
    if (fast_begin(&r)) {
        st = spgemm_scan_words(ctx, r.p.aux, r.p.apos_off, ar.nnz + 1);
        ref_spgemm_scan_words(aux + s->apos_off, ar.nnz + 1);
        fast_end(&r, st, "apos' scan");
    }
    poison_u32(aux, s->rptr_off, (size_t)rows + 1);
    if (fast_begin(&r)) {
        st = spgemm_stage_row_bins(&r.p);
        ref_spgemm_row_bins(s);
        fast_end(&r, st, "ROW_BINS");
    }
    for (unsigned k = 0; !r.failed && k < REF_SPGEMM_BINS; k++)
        EXPECT(!(bins >> k & 1) || aux[REF_SPGEMM_H_COUNT + k] > 0,
               "%s: no row in bin %u: the matrix misses what it is meant to cover", what, k);
    fast_bin_fill(&r);

    /* the host's copies run_fast reads back (header, long pairs), from the twin's aux
     * (the GPU's list order by now); then its choice of one phase */
    bool one_phase = false;
    if (!r.failed) {
        size_t n_long = aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN];
        memcpy(r.p.header, aux, sizeof r.p.header);
        r.p.long_rows = xmalloc(2 * n_long * 4 + 4);
        memcpy(r.p.long_rows, aux + s->pairs_off, 2 * n_long * 4);
        one_phase = spgemm_one_phase_fits(&r.p);
    }
    if (one_phase) {
        st = spgemm_one_phase_open(&r.p);
        EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_one_phase_open: %s", what,
               gpgpu_last_error(ctx));
        r.failed = st != GPGPU_SUCCESS;
        ref_or_die(ref_spgemm_one_phase_open(s), "fast twin temporary");
        EXPECT(r.failed || (r.p.t_ints->size == s->t_len * 4 &&
                            r.p.t_vals->size == s->t_len * gpgpu_type_size(t)),
               "%s: the one phase's temporary differs from the twin's", what);
        if (!r.failed) {
            fast_guard(&r, FAST_T_INTS);
            fast_guard(&r, FAST_T_VALS);
        }
    }

    /* counts (one phase: and entries; ordered, every row in row order), then C's row
     * pointers */
    uint32_t ordered = one_phase && !r.failed ? spgemm_ordered_width(&r.p) : 0;
    replayed_ordered = ordered != 0;
    if (ordered)
        fast_rows_ordered(&r, ordered);
    else
        fast_rows(&r, one_phase ? SPGEMM_ONE_PHASE : SPGEMM_SYMBOLIC);
    fast_long(&r, false);
    if (fast_begin(&r)) {
        st = spgemm_scan_words(ctx, r.p.aux, r.p.rptr_off, (size_t)rows + 1);
        ref_spgemm_scan_words(aux + s->rptr_off, (size_t)rows + 1);
        fast_end(&r, st, "rptr's scan");
    }
    /* C as run_fast makes it, its row pointers the scanned rptr (uploaded from the twin's,
     * columns and values poisoned) */
    if (!r.failed) {
        ref_or_die(ref_spgemm_fast_make_c(s), "fast twin C");
        st = spgemm_new_matrix(ctx, t, rows, br.cols, s->nnz_c, &r.p.c);
        EXPECT(st == GPGPU_SUCCESS, "%s: spgemm_new_matrix: %s", what, gpgpu_last_error(ctx));
        r.failed = st != GPGPU_SUCCESS;
    }
    if (r.p.c) {
        fast_guard(&r, FAST_C_INTS);
        fast_guard(&r, FAST_C_VALS);
    }
    if (one_phase) {
        /* Each invocation's share of a mean row (spgemm_compact_entries): 1 (the most
         * invocations a row, 32), the default, and 8 (few, each through its batches of 4
         * loads), each from the same state, C poisoned again. */
        algo_plans saved = algo_plans_get(ctx);
        void *before[FAST_ARRAYS];
        fast_snapshot(&r, before);
        static const unsigned per[] = {1, 2, 8};
        for (size_t k = 0; k < sizeof per / sizeof per[0]; k++) {
            TEST_PLAN(ctx, spgemm.compact_entries, per[k]);
            fast_restore(&r, before);
            if (fast_begin(&r)) {
                st = spgemm_stage_rows_compact(&r.p, ordered);
                ref_spgemm_rows_compact(s);
                fast_end(&r, st, "ROWS_COMPACT (%zu entries, %u a mean row's share)", s->nnz_c,
                         per[k]);
            }
        }
        algo_plans_set(ctx, &saved);
        for (int k = 0; k < FAST_ARRAYS; k++)
            free(before[k]);
        fast_unguard(&r, FAST_T_INTS);
        fast_unguard(&r, FAST_T_VALS);
        spgemm_one_phase_close(&r.p);
        ref_spgemm_one_phase_free(s);
    } else {
        fast_rows(&r, SPGEMM_NUMERIC);
    }
    if (keep_long)
        fast_long_kept(&r);
    else
        fast_long(&r, true);
    bool has_long = aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN] > 0;

    if (!r.failed) {
        gpgpu_csr want = {rows, br.cols, s->nnz_c, s->c_ints, s->c_ints + rows + 1,
                          xmalloc((s->nnz_c + 1) * sizeof(double))};
        for (size_t e = 0; e < s->nnz_c; e++)
            want.values[e] = t == GPGPU_TYPE_F32 ? ((float *)s->c_vals)[e]
                                                 : ((double *)s->c_vals)[e];
        reference ref = make_reference(&ar, &br, t);
        char label[400];
        snprintf(label, sizeof label, "%s: the twin's C against Gustavson's", what);
        if (same_structure(label, &want, &ref.c))
            close_values(label, &want, &ref.c, exact ? NULL : ref.bound, t);
        EXPECT(ref_spgemm_header64(aux, REF_SPGEMM_H_PRODUCTS) == ref.products,
               "%s: the header's products %llu, Gustavson's %llu", what,
               (unsigned long long)ref_spgemm_header64(aux, REF_SPGEMM_H_PRODUCTS),
               (unsigned long long)ref.products);
        free_reference(&ref);

        snprintf(label, sizeof label, "%s: gpgpu_spgemm against the twin", what);
        gpgpu_matrix *mc = NULL;
        gpgpu_spgemm_stats stats;
        st = gpgpu_spgemm(ctx, &desc, ma, mb, &mc, &stats);
        EXPECT(st == GPGPU_SUCCESS, "%s: %s", label, gpgpu_last_error(ctx));
        if (mc)
            check_matrix(label, mc, &want, NULL, t);
        EXPECT(st != GPGPU_SUCCESS ||
                   (stats.products == ref_spgemm_header64(aux, REF_SPGEMM_H_PRODUCTS) &&
                    stats.nnz == s->nnz_c &&
                    stats.long_rows == aux[REF_SPGEMM_H_COUNT + REF_SPGEMM_LONG_BIN]),
               "%s: stats say %llu products, %zu entries, %u long rows", label,
               (unsigned long long)stats.products, stats.nnz, stats.long_rows);
        EXPECT(st != GPGPU_SUCCESS || stats.one_phase == one_phase,
               "%s: one phase %u, the replay's %d", label, stats.one_phase, one_phase);
        gpgpu_matrix_destroy(mc);
        free(want.values);
    }
    EXPECT(r.failed || r.steps >= 5, "%s: only %u steps replayed", what, r.steps);

    for (int k = 0; k < FAST_ARRAYS; k++)
        fast_unguard(&r, k);
    gpgpu_matrix_destroy(r.p.c);
    spgemm_product_close(&r.p);
    ref_spgemm_fast_free(s);
    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    gpgpu_csr_free(&ar);
    gpgpu_csr_free(&br);
    return one_phase || has_long;
}

/* fast_replay_product with one phase wherever it fits (GPGPU_TUNE's spgemm_one_phase=1), the
 * long rows' chunk kept (f32: with its values from the symbolic phase, spgemm_esc_keep=2,
 * carried through the sort; f64: its keys alone, spgemm_esc_keep=1) and their keys packed,
 * sorted in parts one pass shorter wherever the rows allow (spgemm_esc_split=1), and where
 * any applied, again in two phases with the long rows sorted again in the numeric
 * phase (spgemm_esc_keep=0), their keys columns alone under a segmented sort
 * (spgemm_esc_packed=0) whose payload is each key's index (spgemm_esc_carry=0), and each
 * product expanded by its own search (spgemm_esc_walk=0) where the first replay's
 * ESC_EXPAND walks the nonzeros of A. The first replay takes the ordered one phase wherever
 * it can (spgemm_rows_ordered=2), and where it did, one more goes bin by bin. */
void fast_stages(const char *name, const gpgpu_csr *a, const gpgpu_csr *b, gpgpu_type t,
                 gpgpu_algo algo, bool exact, unsigned bins)
{
    algo_plans saved = algo_plans_get(ctx), plans = saved;
    plans.spgemm.one_phase = true;
    plans.spgemm.esc_split = 1;
    plans.spgemm.esc_walk = ALGO_ALWAYS;
    /* values early, or late */
    plans.spgemm.esc_keep = t == GPGPU_TYPE_F32 ? SPGEMM_KEEP_VALUES : SPGEMM_KEEP_KEYS;
    plans.spgemm.esc_packed = true;
    plans.spgemm.esc_carry = true;
    plans.spgemm.rows_ordered = ALGO_ALWAYS; /* every row in row order wherever it can */
    algo_plans_set(ctx, &plans);
    bool again = fast_replay_product(name, a, b, t, algo, exact, bins, true);
    if (replayed_ordered) { /* and the one phase bin by bin */
        TEST_PLAN(ctx, spgemm.rows_ordered, ALGO_NEVER);
        fast_replay_product(name, a, b, t, algo, exact, bins, true);
    }
    TEST_PLAN(ctx, spgemm.rows_ordered, saved.spgemm.rows_ordered);
    if (again) {
        plans = algo_plans_get(ctx);
        plans.spgemm.one_phase = false;
        plans.spgemm.esc_keep = SPGEMM_KEEP_NONE;
        plans.spgemm.esc_packed = false;
        plans.spgemm.esc_carry = false;
        plans.spgemm.esc_walk = ALGO_NEVER;
        algo_plans_set(ctx, &plans);
        fast_replay_product(name, a, b, t, algo, exact, bins, false);
    }
    algo_plans_set(ctx, &saved);
}
