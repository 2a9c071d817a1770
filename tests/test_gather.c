/* The gather family against its CPU twin (src/ref/ref_gather.c): the GATHER and SCATTER
 * stage alone (every unit width), then gpgpu_gather and gpgpu_scatter for records of 4 to
 * 32 bytes, sorted, permuted, repeated and reversed indices, every size; the index check
 * (a host count fails the call, a count on the GPU skips the writes and says so in
 * status_out), counts on the GPU, duplicate scatter targets, the errors.
 *
 * Outputs are poisoned and downloaded whole: the records written must match the twin bit
 * for bit, every other word keep its poison. */
#include <stdlib.h>
#include <string.h>

#include "algo/gather.h"
#include "ref/ref.h"
#include "testlib.h"

static gpgpu_context *ctx;

enum { I_SORTED, I_PERM, I_REPEATS, I_REVERSED, I_KINDS };
static const char *const idx_names[] = {"sorted", "a permutation", "with repeats", "reversed"};

static uint64_t rng = 99;
static uint32_t rnd(uint32_t below)
{
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    return below ? (uint32_t)((rng >> 33) % below) : 0;
}

/* n indices below `range` of a kind (a permutation only where n == range). */
static uint32_t *make_indices(int kind, size_t n, size_t range)
{
    uint32_t *p = xmalloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = kind == I_REPEATS ? rnd((uint32_t)range)
               : kind == I_REVERSED ? (uint32_t)((range - 1 - i % range))
                                    : (uint32_t)(i % range);
    if (kind == I_PERM)
        for (size_t i = n; i > 1; i--) {
            size_t j = rnd((uint32_t)i);
            uint32_t s = p[i - 1];
            p[i - 1] = p[j];
            p[j] = s;
        }
    return p;
}

/* Records of `words` u32 at a record offset: a slab of u32 words. */
static slab records(size_t pre, size_t n, size_t post, size_t words, const void *data)
{
    return slab_make(ctx, GPGPU_TYPE_U32, pre * words, n * words, post * words, data);
}

/* ------------------------------------------------------------- the stage */

/* GATHER or SCATTER alone, with the largest index given (not computed): the records move
 * unless it reaches the limit; then nothing does, and the status says 1. */
static void stage_move(size_t words, size_t n, bool scatter, size_t in_off, size_t out_off,
                       bool too_large)
{
    char what[200];
    size_t limit = n + 3;
    uint32_t *ix = make_indices(scatter ? I_PERM : I_REPEATS, n, scatter ? n : limit);
    gather_job job = {.words = words, .in_off = in_off, .idx_off = 2, .out_off = out_off,
                      .n = n, .limit = scatter ? n : limit};
    slab in = records(in_off, scatter ? n : limit, 1, words, NULL);
    slab out = records(out_off, scatter ? n : n, 2, words, NULL);
    slab idx = slab_make(ctx, GPGPU_TYPE_U32, 2, n, 1, ix);
    uint32_t largest = 0;
    for (size_t i = 0; i < n; i++)
        largest = ix[i] > largest ? ix[i] : largest;
    uint32_t words3[3] = {0xA5A5A5A5u, too_large ? (uint32_t)job.limit : largest, 0xA5A5A5A5u};
    slab big = slab_make(ctx, GPGPU_TYPE_U32, 0, 3, 0, words3);
    slab status = slab_make(ctx, GPGPU_TYPE_U32, 4, 0, 0, NULL);
    job.in = in.buf;
    job.out = out.buf;
    job.idx = idx.buf;
    job.largest = big.buf;
    job.largest_off = 1;
    job.status = status.buf;
    job.status_off = 2;
    snprintf(what, sizeof what, "%s stage: %zu records of %zu words, unit %u, in at %zu, out "
             "at %zu%s", scatter ? "SCATTER" : "GATHER", n, words, gather_unit(&job), in_off,
             out_off, too_large ? ", an index too large" : "");
    EXPECT_STATUS(ctx, gather_stage_move(ctx, &job, scatter), GPGPU_SUCCESS);
    if (!too_large || n == 0) {
        if (scatter)
            ref_scatter(words, slab_at(&in, in_off * words), ix, n,
                        slab_at(&out, out_off * words));
        else
            ref_gather(words, slab_at(&in, in_off * words), ix, n,
                       slab_at(&out, out_off * words));
    }
    if (n > 0) /* no records: no dispatch, no status */
        ((uint32_t *)status.host)[2] = too_large;
    slab_check(&out, NULL, what);
    slab_check(&status, NULL, what);
    slab_check(&in, NULL, what);
    free(ix);
    slab_free(&in);
    slab_free(&out);
    slab_free(&idx);
    slab_free(&big);
    slab_free(&status);
}

/* ------------------------------------------------------------- the calls */

typedef struct move_case {
    size_t words, n;  /* n: the bound with a count on the GPU */
    int kind;
    bool scatter;
    int counted;      /* -1: none; else the count in the count_buffer */
    bool status;
    size_t in_off, out_off;
} move_case;

static void run_case(const move_case *c)
{
    /* At most 2^22 words a side (16 MiB; the gather's input a third more): the sizes'
     * records of 4 bytes, fewer of the wider ones. */
    if (c->n * c->words > test_max_n() || c->n * c->words > ((size_t)1 << 22) + 8)
        return;
    size_t words = c->words, n = c->n;
    size_t real = c->counted < 0 ? n : (size_t)c->counted < n ? (size_t)c->counted : n;
    /* gather: in holds `range` records, scatter: out does. */
    size_t range = c->scatter ? (c->kind == I_REPEATS ? n / 2 + 1 : n) : n + n / 3 + 1;
    uint32_t *ix = make_indices(c->kind, n, range);
    char what[240];
    snprintf(what, sizeof what, "%s %zu records of %zu bytes, indices %s%s, in at %zu, out at "
             "%zu", c->scatter ? "gpgpu_scatter" : "gpgpu_gather", n, words * 4,
             idx_names[c->kind], c->counted >= 0 ? ", count_buffer" : "", c->in_off, c->out_off);
    if (c->counted >= 0) {
        char more[40];
        snprintf(more, sizeof more, " %d", c->counted);
        strncat(what, more, sizeof what - strlen(what) - 1);
    }
    size_t in_n = c->scatter ? n : range, out_n = c->scatter ? range : n;
    slab in = records(c->in_off, in_n, 2, words, NULL);
    slab out = records(c->out_off, out_n, 1, words, NULL);
    slab idx = slab_make(ctx, GPGPU_TYPE_U32, 3, n, 2, ix);
    slab misc = slab_make(ctx, GPGPU_TYPE_U32, 4, 0, 0, NULL); /* count at 1, status at 3 */
    gpgpu_gather_desc d = {.record_bytes = words * 4};
    if (c->counted >= 0) {
        ((uint32_t *)misc.host)[1] = (uint32_t)c->counted;
        EXPECT_STATUS(ctx, gpgpu_buffer_upload(misc.buf, 4, &c->counted, 4), GPGPU_SUCCESS);
        d.count_buffer = misc.buf;
        d.count_offset = 1;
    }
    if (c->status) {
        d.status_out = misc.buf;
        d.status_out_offset = 3;
        ((uint32_t *)misc.host)[3] = 0;
    }
    if (c->scatter)
        EXPECT_STATUS(ctx, gpgpu_scatter(ctx, &d, in.buf, c->in_off, idx.buf, 3, out.buf,
                                         c->out_off, out_n, n),
                      GPGPU_SUCCESS);
    else
        EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, in.buf, c->in_off, in_n, idx.buf, 3, out.buf,
                                        c->out_off, n),
                      GPGPU_SUCCESS);
    uint32_t *src = slab_at(&in, c->in_off * words), *dst = slab_at(&out, c->out_off * words);
    if (c->scatter && c->kind == I_REPEATS) {
        /* Each word of a target: that word of one of the records sent there. */
        uint32_t *got = xmalloc(out.len * 4);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(out.buf, 0, got, out.len * 4), GPGPU_SUCCESS);
        uint32_t *gdst = got + c->out_off * words;
        unsigned char *hit = calloc(out_n * words + 1, 1);
        size_t bad = 0;
        for (size_t i = 0; i < real; i++)
            for (size_t w = 0; w < words; w++) {
                size_t at = (size_t)ix[i] * words + w;
                hit[at] |= gdst[at] == src[i * words + w];
            }
        for (size_t i = 0; i < real; i++)
            for (size_t w = 0; w < words; w++)
                bad += !hit[(size_t)ix[i] * words + w];
        /* Targets nobody sent to: poison, as the image says; make the image agree on hits. */
        for (size_t at = 0; at < out_n * words; at++)
            if (hit[at])
                dst[at] = gdst[at];
        EXPECT(bad == 0, "%s: %zu words of targets hold none of their records' words", what,
               bad);
        free(hit);
        free(got);
    } else if (c->scatter) {
        ref_scatter(words, src, ix, real, dst);
    } else {
        ref_gather(words, src, ix, real, dst);
    }
    slab_check(&out, NULL, what);
    slab_check(&misc, NULL, what);
    char w[280];
    snprintf(w, sizeof w, "%s: inputs unchanged", what);
    slab_check(&in, NULL, w);
    slab_check(&idx, NULL, w);
    free(ix);
    slab_free(&in);
    slab_free(&out);
    slab_free(&idx);
    slab_free(&misc);
}

/* An index past the limit among the first `at_most` (or just past them, where the count
 * on the GPU ends first): with a host count the call fails and writes nothing; with a
 * count on the GPU it succeeds, writes nothing, and status_out says 1; an index past the
 * count's end is never looked at. */
static void bad_index(bool scatter, bool counted, size_t bad_at, size_t words)
{
    enum { N = 5000 };
    size_t limit = N, real = counted ? 3000 : N;
    uint32_t *ix = make_indices(I_PERM, N, N);
    ix[bad_at] = (uint32_t)limit + (uint32_t)bad_at;
    bool skipped = bad_at < real;
    char what[200];
    snprintf(what, sizeof what, "%s, %zu-byte records, index %u at %zu of %zu%s",
             scatter ? "gpgpu_scatter" : "gpgpu_gather", words * 4, ix[bad_at], bad_at, real,
             counted ? " (count_buffer)" : "");
    slab in = records(1, N, 0, words, NULL), out = records(2, N, 0, words, NULL);
    slab idx = slab_make(ctx, GPGPU_TYPE_U32, 0, N, 0, ix);
    slab misc = slab_make(ctx, GPGPU_TYPE_U32, 4, 0, 0, NULL);
    gpgpu_gather_desc d = {.record_bytes = words * 4, .status_out = misc.buf,
                           .status_out_offset = 2};
    if (counted) {
        uint32_t c = (uint32_t)real;
        EXPECT_STATUS(ctx, gpgpu_buffer_upload(misc.buf, 0, &c, 4), GPGPU_SUCCESS);
        ((uint32_t *)misc.host)[0] = c;
        d.count_buffer = misc.buf;
    }
    gpgpu_status want = skipped && !counted ? GPGPU_ERROR_OUT_OF_RANGE : GPGPU_SUCCESS;
    gpgpu_status got = scatter ? gpgpu_scatter(ctx, &d, in.buf, 1, idx.buf, 0, out.buf, 2,
                                               limit, N)
                               : gpgpu_gather(ctx, &d, in.buf, 1, limit, idx.buf, 0, out.buf, 2,
                                              N);
    EXPECT_STATUS(ctx, got, want);
    if (want != GPGPU_SUCCESS) {
        char msg[80];
        snprintf(msg, sizeof msg, "index %u (the largest) is past the %s's %zu records",
                 ix[bad_at], scatter ? "output" : "input", limit);
        EXPECT(strstr(gpgpu_last_error(ctx), msg) != NULL, "%s: message '%s'", what,
               gpgpu_last_error(ctx));
    } else {
        ((uint32_t *)misc.host)[2] = skipped;
    }
    if (!skipped) { /* the index past the count is never read */
        uint32_t *s = slab_at(&in, words), *o = slab_at(&out, 2 * words);
        if (scatter)
            ref_scatter(words, s, ix, real, o);
        else
            ref_gather(words, s, ix, real, o);
    }
    slab_check(&out, NULL, what);
    slab_check(&misc, NULL, what);
    free(ix);
    slab_free(&in);
    slab_free(&out);
    slab_free(&idx);
    slab_free(&misc);
}

/* ------------------------------------------------------------- errors */

#define EXPECT_MESSAGE(text)                                                                 \
    EXPECT(strstr(gpgpu_last_error(ctx), text) != NULL, "expected a message with '%s': '%s'", \
           text, gpgpu_last_error(ctx))

static void errors(void)
{
    slab a = slab_make(ctx, GPGPU_TYPE_U32, 0, 400, 0, NULL);
    slab b = slab_make(ctx, GPGPU_TYPE_U32, 0, 400, 0, NULL);
    uint32_t zeros[100] = {0};
    slab ix = slab_make(ctx, GPGPU_TYPE_U32, 0, 100, 0, zeros);
    gpgpu_gather_desc d = {.record_bytes = 16};
    const gpgpu_status E_NULL = GPGPU_ERROR_NULL_POINTER, E_RANGE = GPGPU_ERROR_OUT_OF_RANGE,
                       E_OVERLAP = GPGPU_ERROR_OVERLAP;
    EXPECT_STATUS(NULL, gpgpu_gather(NULL, &d, a.buf, 0, 100, ix.buf, 0, b.buf, 0, 10), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, NULL, a.buf, 0, 100, ix.buf, 0, b.buf, 0, 10), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, NULL, 0, 100, ix.buf, 0, b.buf, 0, 10), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, a.buf, 0, 100, NULL, 0, b.buf, 0, 10), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_scatter(ctx, &d, a.buf, 0, ix.buf, 0, NULL, 0, 10, 10), E_NULL);
    d.record_bytes = 6;
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, a.buf, 0, 100, ix.buf, 0, b.buf, 0, 10),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("records of 6 bytes: give a multiple of 4");
    d.record_bytes = 16;
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, a.buf, 0, 101, ix.buf, 0, b.buf, 0, 10), E_RANGE);
    EXPECT_MESSAGE("gpgpu_gather (input)");
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, a.buf, 0, 100, ix.buf, 0, b.buf, 91, 10), E_RANGE);
    EXPECT_MESSAGE("gpgpu_gather (output)");
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, a.buf, 0, 100, ix.buf, 95, b.buf, 0, 10), E_RANGE);
    EXPECT_MESSAGE("gpgpu_gather (indices)");
    EXPECT_STATUS(ctx, gpgpu_scatter(ctx, &d, a.buf, 0, ix.buf, 0, b.buf, 0, 101, 10), E_RANGE);
    EXPECT_MESSAGE("gpgpu_scatter (output)");
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, a.buf, SIZE_MAX / 2, 1, ix.buf, 0, b.buf, 0, 10),
                  E_RANGE);
    EXPECT_MESSAGE("run past any buffer");
    gpgpu_gather_desc dc = d;
    dc.count_buffer = ix.buf;
    dc.count_offset = 100;
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &dc, a.buf, 0, 100, ix.buf, 0, b.buf, 0, 10), E_RANGE);
    EXPECT_MESSAGE("gpgpu_gather (count_buffer)");
    dc = d;
    dc.status_out = b.buf;
    dc.status_out_offset = 400;
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &dc, a.buf, 0, 100, ix.buf, 0, b.buf, 0, 10), E_RANGE);
    EXPECT_MESSAGE("gpgpu_gather (status_out)");
    /* Overlaps: the output against the input and the indices; status_out against all. */
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, a.buf, 0, 50, ix.buf, 0, a.buf, 49, 10), E_OVERLAP);
    EXPECT_MESSAGE("gpgpu_gather: the output and the input overlap");
    EXPECT_STATUS(ctx, gpgpu_scatter(ctx, &d, a.buf, 0, ix.buf, 0, ix.buf, 0, 25, 10),
                  E_OVERLAP);
    EXPECT_MESSAGE("gpgpu_scatter: the output and the indices overlap");
    dc = d;
    dc.status_out = ix.buf;
    dc.status_out_offset = 5;
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &dc, a.buf, 0, 100, ix.buf, 0, b.buf, 0, 10), E_OVERLAP);
    EXPECT_MESSAGE("status_out and the indices overlap");
    slab_check(&b, NULL, "refused calls write nothing");
    /* count 0: only status_out (0). */
    dc = d;
    dc.status_out = b.buf;
    dc.status_out_offset = 399;
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &dc, a.buf, 0, 0, ix.buf, 0, b.buf, 0, 0), GPGPU_SUCCESS);
    ((uint32_t *)b.host)[399] = 0;
    slab_check(&b, NULL, "count 0 writes status_out 0 alone");
    /* A buffer of another context. */
    gpgpu_context *other = test_context();
    gpgpu_buffer *theirs = test_buffer(other, NULL, 1600);
    EXPECT_STATUS(ctx, gpgpu_gather(ctx, &d, theirs, 0, 100, ix.buf, 0, b.buf, 0, 10),
                  GPGPU_ERROR_INVALID_ARGUMENT);
    gpgpu_buffer_destroy(theirs);
    gpgpu_context_destroy(other);
    slab_free(&a);
    slab_free(&b);
    slab_free(&ix);
}

int main(void)
{
    ctx = test_context();
    /* The stage: every unit width (4 words where the record and offsets allow, else 2 or
     * 1), gather and scatter, with and without an index too large. */
    static const size_t stage_words[] = {1, 2, 3, 4, 8, 5};
    static const size_t stage_n[] = {0, 1, 1000, 65537};
    for (size_t w = 0; w < 6; w++)
        for (size_t s = 0; s < 4; s++) {
            size_t words = stage_words[w];
            stage_move(words, stage_n[s], (w + s) % 2 == 1, s % 2, (w + s) % 3, false);
            if (s % 2 == 1)
                stage_move(words, stage_n[s], w % 2 == 0, 1, 2, true);
        }
    /* The calls: records of 4, 8, 12, 16 and 32 bytes over the sizes, shared out. */
    static const size_t call_words[] = {1, 2, 3, 4, 8};
    for (size_t s = 0; test_sizes[s] != SIZE_MAX; s++)
        for (size_t w = 0; w < 5; w++) {
            size_t n = test_sizes[s];
            if (!test_runs_large(n, s + w))
                continue;
            move_case c = {.words = call_words[w], .n = n, .kind = (int)((s + w) % I_KINDS),
                           .scatter = (s + w) % 2 == 1, .counted = -1, .status = s % 3 == 0,
                           .in_off = w % 2, .out_off = s % 3};
            run_case(&c);
        }
    for (size_t w = 0; w < 5; w++)
        for (int k = 0; k < I_KINDS; k++)
            for (int sc = 0; sc < 2; sc++) {
                move_case c = {.words = call_words[w], .n = 20011, .kind = k, .scatter = sc,
                               .counted = -1, .in_off = 3, .out_off = (size_t)k};
                run_case(&c);
            }
    /* Counts on the GPU: 0, 1, between, the bound, past it. */
    static const size_t bounds[] = {1, 4099, 70001};
    for (size_t b = 0; b < 3; b++) {
        int reals[] = {0, 1, (int)(bounds[b] / 2 + 1), (int)bounds[b], (int)bounds[b] + 3};
        for (size_t r = 0; r < 5; r++) {
            move_case c = {.words = call_words[(b + r) % 5], .n = bounds[b],
                           .kind = (int)(r % I_KINDS), .scatter = r % 2 == 1,
                           .counted = reals[r], .status = true, .in_off = 1, .out_off = r % 2};
            run_case(&c);
        }
    }
    /* The index check. */
    for (int sc = 0; sc < 2; sc++)
        for (int counted = 0; counted < 2; counted++) {
            bad_index(sc, counted, 17, sc ? 4 : 3);
            bad_index(sc, counted, 4999, sc ? 1 : 8);
        }
    errors();
    gpgpu_context_destroy(ctx);
    return test_finish();
}
