/* SpGEMM's classic stages: Kiciak's 13 stages alone against their twins
 * (src/ref/ref_spgemm.c), bit for bit: each step of the twin's driver run on the GPU on the
 * twin's state uploaded, the step's pure outputs poisoned, every buffer compared with
 * poisoned guards after it; then the whole classic product against the replayed driver. */
#include <stdlib.h>
#include <string.h>

#include "test_spgemm.h"

/* ------------------------------------------------------ the classic stages */

/* The six arrays of struct spgemm_classic, in its order. */
enum { ARR_OFF, ARR_PAIRS, ARR_PROD, ARR_TAB, ARR_C_INTS, ARR_C_VALS, ARRAYS };
static const char *const array_names[ARRAYS] = {"off", "pairs", "prod", "tab", "c_ints",
                                                "c_vals"};

/* A product replayed stage by stage on the GPU alongside its twin. */
typedef struct stage_replay {
    const char *name;
    gpgpu_type t;
    spgemm_classic g;            /* the GPU's state */
    gpgpu_buffer *bufs[ARRAYS];  /* the same buffers as g's, by index */
    size_t lens[ARRAYS];         /* elements the twin's arrays hold */
    gpgpu_status status;         /* of the GPU's step */
    bool failed;                 /* a step differed: the later ones are not compared */
    unsigned steps;
} stage_replay;

static void *array_of(ref_spgemm_classic_state *s, int k, size_t *len, size_t *size)
{
    size_t prec = gpgpu_type_size(s->type), rows = s->a->rows;
    switch (k) {
    case ARR_OFF: *len = s->a->nnz + 1, *size = 4; return s->off;
    case ARR_PAIRS: *len = 2 * s->products, *size = 4; return s->pairs;
    case ARR_PROD: *len = s->products, *size = prec; return s->prod;
    case ARR_TAB: *len = 3 * s->tablgt, *size = 4; return s->tab;
    case ARR_C_INTS: *len = rows + 1 + s->nnz_c, *size = 4; return s->c_ints;
    default: *len = s->nnz_c, *size = prec; return s->c_vals;
    }
}

/* The arrays a stage only writes: poisoned before it, so an element it should write and
 * does not shows. Stages 5, 6, 10, 11 and the scan work in place. */
static void poison_outputs(ref_spgemm_classic_state *s, unsigned stage)
{
    size_t rows = s->a->rows, tl = s->tablgt, prec = gpgpu_type_size(s->type);
    switch (stage) {
    case 1: poison_u32(s->off, 0, s->a->nnz + 1); break;
    case 2:
        poison_u32(s->pairs, 0, 2 * s->products);
        test_poison(s->prod, s->products * prec);
        break;
    case 3: poison_u32(s->tab, 0, rows + 1); break;
    case 4: poison_u32(s->tab, tl, rows); break;
    case 7: poison_u32(s->tab, 0, s->products + 1); break;
    case 8:
        poison_u32(s->c_ints, rows + 1, s->nnz_c);
        poison_u32(s->tab, tl, s->nnz_c + 1);
        break;
    case 9: poison_u32(s->tab, 2 * tl, s->nnz_c); break;
    case 12:
        test_poison(s->c_vals, s->nnz_c * prec);
        poison_u32(s->tab, 0, s->nnz_c);
        break;
    case 13: poison_u32(s->c_ints, 0, rows + 1); break;
    default: break;
    }
}

static void step_label(char *out, size_t size, const stage_replay *r, unsigned stage,
                       uint32_t t, uint32_t nn, bool reverse)
{
    if (stage == 0)
        snprintf(out, size, "%s %s classic scan after stage %u", r->name,
                 gpgpu_type_name(r->t), t);
    else
        snprintf(out, size, "%s %s classic stage %u t=%u nn=%u%s", r->name,
                 gpgpu_type_name(r->t), stage, t, nn, reverse ? " reverse" : "");
}

/* Before a step: the twin's state (outputs poisoned) uploaded into buffers made to its
 * sizes, then the GPU's step. */
static void gpu_step(ref_spgemm_classic_state *s, stage_replay *r, unsigned stage, uint32_t t,
                     uint32_t nn, bool reverse)
{
    poison_outputs(s, stage);
    for (int k = 0; k < ARRAYS; k++) {
        size_t len, size;
        void *host = array_of(s, k, &len, &size);
        if (!host)
            continue;
        if (!r->bufs[k]) {
            r->bufs[k] = test_buffer(ctx, NULL, (len + GUARD) * size);
            r->lens[k] = len;
        }
        EXPECT(r->lens[k] == len, "%s: the twin's %s changed size", r->name, array_names[k]);
        EXPECT_STATUS(ctx, gpgpu_buffer_upload(r->bufs[k], 0, host, len * size), GPGPU_SUCCESS);
    }
    r->g.off = r->bufs[ARR_OFF], r->g.pairs = r->bufs[ARR_PAIRS], r->g.prod = r->bufs[ARR_PROD];
    r->g.tab = r->bufs[ARR_TAB], r->g.c_ints = r->bufs[ARR_C_INTS];
    r->g.c_vals = r->bufs[ARR_C_VALS];
    r->g.products = s->products, r->g.tablgt = s->tablgt, r->g.nnz_c = s->nnz_c;
    if (stage == 0 && t == 1)
        r->status = spgemm_classic_scan(ctx, r->g.off, 1, s->a->nnz);
    else if (stage == 0)
        r->status = spgemm_classic_scan(ctx, r->g.tab, 1, s->products);
    else
        r->status = spgemm_classic_stage(ctx, &r->g, stage, t, nn, reverse);
}

/* After the twin's step: every buffer downloaded and compared with the twin's array and
 * its poisoned guards. */
static void compare_step(ref_spgemm_classic_state *s, stage_replay *r, unsigned stage,
                         uint32_t t, uint32_t nn, bool reverse)
{
    char what[256], label[300];
    step_label(what, sizeof what, r, stage, t, nn, reverse);
    r->steps++;
    if (r->status != GPGPU_SUCCESS) {
        EXPECT(false, "%s: %s: %s", what, gpgpu_status_string(r->status),
               gpgpu_last_error(ctx));
        r->failed = true;
        return;
    }
    int before = test_failures;
    for (int k = 0; k < ARRAYS; k++) {
        size_t len, size;
        void *host = array_of(s, k, &len, &size);
        if (!host)
            continue;
        char *want = xmalloc((len + GUARD) * size), *got = xmalloc((len + GUARD) * size);
        memcpy(want, host, len * size);
        test_poison(want + len * size, GUARD * size);
        EXPECT_STATUS(ctx, gpgpu_buffer_download(r->bufs[k], 0, got, (len + GUARD) * size),
                      GPGPU_SUCCESS);
        gpgpu_type et = size == 4 ? (k == ARR_PROD || k == ARR_C_VALS ? GPGPU_TYPE_F32
                                                                      : GPGPU_TYPE_U32)
                                  : GPGPU_TYPE_F64;
        snprintf(label, sizeof label, "%s: %s (%zu + %d guard)", what, array_names[k], len,
                 GUARD);
        check_elems(label, et, got, want, len + GUARD, NULL);
        free(want);
        free(got);
    }
    r->failed = test_failures != before;
}

static void stage_hook(ref_spgemm_classic_state *s, unsigned stage, uint32_t t, uint32_t nn,
                       bool reverse, bool after, void *user)
{
    stage_replay *r = user;
    if (r->failed)
        return; /* the first differing step is the one to read */
    if (after)
        compare_step(s, r, stage, t, nn, reverse);
    else
        gpu_step(s, r, stage, t, nn, reverse);
}

/* Every step of the classic driver, GPU against twin, on a's and b's values rounded to t;
 * then the whole classic product through gpgpu_spgemm against the replayed driver, bit for
 * bit. */
static void classic_stages(const char *name, const gpgpu_csr *a, const gpgpu_csr *b,
                           gpgpu_type t)
{
    gpgpu_csr ar = as_type(a, t), br = as_type(b, t);
    gpgpu_matrix *ma = upload(&ar, t), *mb = upload(&br, t);
    if (!ma || !mb) {
        gpgpu_matrix_destroy(ma);
        gpgpu_matrix_destroy(mb);
        gpgpu_csr_free(&ar);
        gpgpu_csr_free(&br);
        return;
    }
    stage_replay r = {.name = name, .t = t, .g = {.a = ma, .b = mb}};
    ref_spgemm_classic_state s;
    ref_or_die(ref_spgemm_classic_run(t, &ar, &br, &s, stage_hook, &r), "classic twin");
    EXPECT(r.steps >= 13 || s.products == 0, "%s: only %u steps replayed", name, r.steps);

    char what[200];
    snprintf(what, sizeof what, "%s %s CLASSIC driver", name, gpgpu_type_name(t));
    gpgpu_matrix *mc = NULL;
    gpgpu_spgemm_stats st;
    gpgpu_status status =
        gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = GPGPU_ALGO_CLASSIC_SPGEMM}, ma, mb, &mc,
                     &st);
    EXPECT(status == GPGPU_SUCCESS, "%s: %s", what, gpgpu_last_error(ctx));
    if (mc) {
        gpgpu_csr want = {ar.rows, br.cols, s.nnz_c, s.c_ints, s.c_ints + ar.rows + 1,
                          xmalloc((s.nnz_c + 1) * sizeof(double))};
        for (size_t e = 0; e < s.nnz_c; e++)
            want.values[e] = t == GPGPU_TYPE_F32 ? ((float *)s.c_vals)[e]
                                                 : ((double *)s.c_vals)[e];
        check_matrix(what, mc, &want, NULL, t);
        EXPECT(st.products == s.products && st.nnz == s.nnz_c,
               "%s: stats say %llu products and %zu entries, the twin %zu and %zu", what,
               (unsigned long long)st.products, st.nnz, s.products, s.nnz_c);
        free(want.values);
    }
    for (int k = 0; k < ARRAYS; k++)
        gpgpu_buffer_destroy(r.bufs[k]);
    gpgpu_matrix_destroy(mc);
    ref_spgemm_classic_free(&s);
    gpgpu_matrix_destroy(ma);
    gpgpu_matrix_destroy(mb);
    gpgpu_csr_free(&ar);
    gpgpu_csr_free(&br);
}

void classic_stage_tests(void)
{
    gpgpu_csr a, b;
    hand_pair(&a, &b);
    gpgpu_csr ra = random_csr(23, 41, 3, 5, false), rb = random_csr(41, 17, 2, 4, false);
    gpgpu_csr pl = test_generated(GPGPU_GEN_POWER_LAW, 80, 5);
    static const uint32_t drp[] = {0, 1, 2, 3, 4, 5}, dci[] = {3, 0, 4, 1, 2};
    /* one product per row: no sort, no sums */
    gpgpu_csr perm = test_csr_of(5, 5, 5, drp, dci, NULL);
    struct {
        const char *name;
        const gpgpu_csr *a, *b;
    } cases[] = {
        {"hand", &a, &b},
        {"rectangular", &ra, &rb},
        {"power-law A*A", &pl, &pl},
        {"permutation", &perm, &perm},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (size_t ti = 0; ti < type_count; ti++)
            classic_stages(cases[c].name, cases[c].a, cases[c].b, types[ti]);
    gpgpu_csr_free(&a);
    gpgpu_csr_free(&b);
    gpgpu_csr_free(&ra);
    gpgpu_csr_free(&rb);
    gpgpu_csr_free(&pl);
    gpgpu_csr_free(&perm);
}
