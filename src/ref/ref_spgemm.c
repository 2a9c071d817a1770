/* The SpGEMM oracle (C = A*B by Gustavson's rows, with an error bound per
 * entry), the transpose, and twins of Kiciak's 13 classic stages
 * (glsl/spgemm.comp stages 1-13, specified in src/algo/spgemm.h) with their
 * driver replayed, so the tests compare the GPU's classic product bit for bit.
 *
 * The twins run a dispatch's invocations one after another. That gives what
 * the GPU's simultaneous ones give because no invocation of a step reads what
 * another writes: the max and sum steps read at or past ceil(t/2) and write
 * below t/2, a sort step's pairs are disjoint, and the other stages read
 * arrays they do not write.
 *
 * The fast product's twins are in ref_spgemm_fast.c. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"

uint64_t ref_spgemm_products(const gpgpu_csr *a, const gpgpu_csr *b)
{
    uint64_t p = 0;
    for (size_t k = 0; k < a->nnz; k++) {
        uint32_t j = a->col_idx[k];
        p += b->row_ptr[j + 1] - b->row_ptr[j];
    }
    return p;
}

/* ---------------------------------------------------------------- Gustavson */

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability, 3.1). */
static long double gamma_n(long double n, long double u)
{
    return n * u < 1 ? n * u / (1 - n * u) : INFINITY;
}

/* An entry of k products summed on the GPU in `type` (unit roundoff u): each
 * product is rounded once and passes through at most k - 1 rounded additions
 * in any summation order, so |gpu - exact| <= gamma_k * sum |a_ik b_kj|. The
 * reference itself is off by at most gamma_k(2^-64) * sum (its long double
 * products and additions) plus one rounding to double, 2^-53 |c| <= u sum:
 * hence gamma_{k+1}(u) + gamma_k(2^-64). Underflow adds at most the smallest
 * normal per operation (devices may flush subnormal results): 2k of them. A
 * device may also flush a subnormal operand to zero (the H100 does in f32),
 * losing that product whole: `lost` is the sum of |a b| over such products. */
static double entry_bound(gpgpu_type type, uint32_t k, long double abs_sum, long double lost)
{
    long double u = type == GPGPU_TYPE_F32 ? 0x1p-24L : 0x1p-53L;
    long double tiny = type == GPGPU_TYPE_F32 ? FLT_MIN : DBL_MIN;
    return (double)((gamma_n(k + 1.0L, u) + gamma_n(k, 0x1p-64L)) * abs_sum + 2.0L * k * tiny +
                    lost);
}

bool ref_subnormal(gpgpu_type type, double v)
{
    double a = fabs(type == GPGPU_TYPE_F32 ? (double)(float)v : v);
    return a != 0 && a < (type == GPGPU_TYPE_F32 ? FLT_MIN : DBL_MIN);
}

/* Row pointers of C: the columns each row reaches, counted with a marker
 * (mark[j] = i + 1 once row i has reached column j). */
static bool symbolic(const gpgpu_csr *a, const gpgpu_csr *b, uint32_t *mark, uint32_t *row_ptr)
{
    size_t nnz = 0;
    for (uint32_t i = 0; i < a->rows; i++) {
        row_ptr[i] = (uint32_t)nnz;
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            uint32_t r = a->col_idx[k];
            for (uint32_t q = b->row_ptr[r]; q < b->row_ptr[r + 1]; q++) {
                uint32_t j = b->col_idx[q];
                if (mark[j] != i + 1) {
                    mark[j] = i + 1;
                    nnz++;
                }
            }
        }
        if (nnz > UINT32_MAX)
            return false;
    }
    row_ptr[a->rows] = (uint32_t)nnz;
    return true;
}

bool ref_spgemm_gustavson(gpgpu_type type, const gpgpu_csr *a, const gpgpu_csr *b, gpgpu_csr *c,
                          double **bound)
{
    size_t cols = b->cols ? b->cols : 1;
    *c = (gpgpu_csr){.rows = a->rows, .cols = b->cols};
    if (bound)
        *bound = NULL;
    uint32_t *mark = calloc(cols, sizeof *mark), *count = malloc(cols * sizeof *count);
    long double *sum = malloc(cols * sizeof *sum), *abs_sum = malloc(cols * sizeof *abs_sum);
    long double *lost = malloc(cols * sizeof *lost);
    c->row_ptr = malloc(((size_t)a->rows + 1) * sizeof *c->row_ptr);
    bool ok = mark && count && sum && abs_sum && lost && c->row_ptr &&
              symbolic(a, b, mark, c->row_ptr);
    if (ok) {
        c->nnz = c->row_ptr[a->rows];
        size_t n = c->nnz ? c->nnz : 1;
        c->col_idx = malloc(n * sizeof *c->col_idx);
        c->values = malloc(n * sizeof *c->values);
        if (bound)
            *bound = malloc(n * sizeof **bound);
        ok = c->col_idx && c->values && (!bound || *bound);
        memset(mark, 0, cols * sizeof *mark); /* the numeric pass marks rows again */
    }
    for (uint32_t i = 0; ok && i < a->rows; i++) {
        uint32_t start = c->row_ptr[i], len = 0;
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            uint32_t r = a->col_idx[k];
            for (uint32_t q = b->row_ptr[r]; q < b->row_ptr[r + 1]; q++) {
                uint32_t j = b->col_idx[q];
                if (mark[j] != i + 1) {
                    mark[j] = i + 1;
                    c->col_idx[start + len++] = j;
                    sum[j] = abs_sum[j] = lost[j] = 0;
                    count[j] = 0;
                }
                long double p = (long double)a->values[k] * b->values[q];
                sum[j] += p;
                abs_sum[j] += fabsl(p);
                if (ref_subnormal(type, a->values[k]) || ref_subnormal(type, b->values[q]))
                    lost[j] += fabsl(p);
                count[j]++;
            }
        }
        qsort(c->col_idx + start, len, sizeof *c->col_idx, cmp_u32);
        for (uint32_t e = start; e < start + len; e++) {
            uint32_t j = c->col_idx[e];
            c->values[e] = (double)sum[j];
            if (bound)
                (*bound)[e] = entry_bound(type, count[j], abs_sum[j], lost[j]);
        }
    }
    free(mark);
    free(count);
    free(sum);
    free(abs_sum);
    free(lost);
    if (!ok) {
        gpgpu_csr_free(c);
        if (bound) {
            free(*bound);
            *bound = NULL;
        }
    }
    return ok;
}

bool ref_transpose(const gpgpu_csr *a, gpgpu_csr *t)
{
    *t = (gpgpu_csr){.rows = a->cols, .cols = a->rows, .nnz = a->nnz};
    size_t n = a->nnz ? a->nnz : 1;
    t->row_ptr = calloc((size_t)a->cols + 1, sizeof *t->row_ptr);
    t->col_idx = malloc(n * sizeof *t->col_idx);
    t->values = malloc(n * sizeof *t->values);
    uint32_t *next = malloc(((size_t)a->cols + 1) * sizeof *next);
    if (!t->row_ptr || !t->col_idx || !t->values || !next) {
        free(next);
        gpgpu_csr_free(t);
        return false;
    }
    for (size_t k = 0; k < a->nnz; k++)
        t->row_ptr[a->col_idx[k] + 1]++;
    for (uint32_t j = 0; j < a->cols; j++)
        t->row_ptr[j + 1] += t->row_ptr[j];
    memcpy(next, t->row_ptr, ((size_t)a->cols + 1) * sizeof *next);
    for (uint32_t i = 0; i < a->rows; i++) { /* rows ascending: each column's list is sorted */
        for (uint32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            uint32_t at = next[a->col_idx[k]]++;
            t->col_idx[at] = i;
            t->values[at] = a->values[k];
        }
    }
    free(next);
    return true;
}

/* ---------------------------------------------------------- classic stages */

#define TAB1(S, I) ((S)->tab[(I)])
#define TAB2(S, I) ((S)->tab[(S)->tablgt + (I)])
#define TAB3(S, I) ((S)->tab[2 * (S)->tablgt + (I)])
#define PAIRI(S, I) ((S)->pairs[2 * (size_t)(I)])
#define PAIRJ(S, I) ((S)->pairs[2 * (size_t)(I) + 1])

/* The largest x in [0, n) with key[x * stride] <= v, for a nondecreasing key
 * with key[0] <= v: the shader's LAST_AT_MOST. */
static uint32_t last_at_most(const uint32_t *key, size_t stride, uint32_t n, uint32_t v)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key[mid * stride] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The first x in [0, n) with key[x * stride] >= v, n if none: FIRST_AT_LEAST. */
static uint32_t first_at_least(const uint32_t *key, size_t stride, uint32_t n, uint32_t v)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key[mid * stride] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void set_prod(const ref_spgemm_classic_state *s, void *arr, size_t i, double a, double b)
{
    if (s->type == GPGPU_TYPE_F32)
        ((float *)arr)[i] = (float)a * (float)b;
    else
        ((double *)arr)[i] = a * b;
}

static void swap_prod(const ref_spgemm_classic_state *s, size_t u, size_t v)
{
    if (s->type == GPGPU_TYPE_F32) {
        float *p = s->prod, w = p[u];
        p[u] = p[v], p[v] = w;
    } else {
        double *p = s->prod, w = p[u];
        p[u] = p[v], p[v] = w;
    }
}

/* prod[dst] += prod[src], rounded to the type. */
static void add_prod(const ref_spgemm_classic_state *s, size_t dst, size_t src)
{
    if (s->type == GPGPU_TYPE_F32)
        ((float *)s->prod)[dst] += ((float *)s->prod)[src];
    else
        ((double *)s->prod)[dst] += ((double *)s->prod)[src];
}

static void copy_value(const ref_spgemm_classic_state *s, size_t e, size_t t)
{
    if (s->type == GPGPU_TYPE_F32)
        ((float *)s->c_vals)[e] = ((float *)s->prod)[t];
    else
        ((double *)s->c_vals)[e] = ((double *)s->prod)[t];
}

static void stage_count(ref_spgemm_classic_state *s)
{
    const gpgpu_csr *a = s->a, *b = s->b;
    s->off[0] = 0; /* invocation 0's write (the driver dispatches it even for nnz(A) = 0) */
    for (size_t k = 0; k < a->nnz; k++) {
        uint32_t j = a->col_idx[k];
        s->off[k + 1] = b->row_ptr[j + 1] - b->row_ptr[j];
    }
}

static void stage_expand(ref_spgemm_classic_state *s)
{
    const gpgpu_csr *a = s->a, *b = s->b;
    for (uint32_t t = 0; t < s->products; t++) {
        uint32_t p = last_at_most(s->off, 1, (uint32_t)a->nnz, t);
        uint32_t i = last_at_most(a->row_ptr, 1, a->rows, p);
        uint32_t q = b->row_ptr[a->col_idx[p]] + t - s->off[p];
        PAIRI(s, t) = i;
        PAIRJ(s, t) = b->col_idx[q];
        set_prod(s, s->prod, t, a->values[p], b->values[q]);
    }
}

static void stage_row_starts(ref_spgemm_classic_state *s)
{
    uint32_t rows = s->a->rows;
    TAB1(s, 0) = 0;
    TAB1(s, rows) = (uint32_t)s->products;
    for (uint32_t i = 1; i < rows; i++)
        TAB1(s, i) = first_at_least(s->pairs, 2, (uint32_t)s->products, i);
}

/* ROW_MAX and RUN_MAX: one pairwise-max step over the t words at w. */
static void max_step(uint32_t *w, uint32_t t)
{
    for (uint32_t i = 0; i + (t + 1) / 2 < t; i++)
        if (w[i] < w[i + (t + 1) / 2])
            w[i] = w[i + (t + 1) / 2];
}

static void stage_sort(ref_spgemm_classic_state *s, uint32_t h, uint32_t nn, bool reverse)
{
    uint32_t h2 = h / 2;
    for (uint32_t r = 0; r < s->a->rows; r++) {
        uint32_t base = TAB1(s, r), end = TAB1(s, r + 1);
        for (uint32_t np = 0; np < nn / 2; np++) {
            uint32_t l = np % h2, blk = np / h2;
            uint32_t u = base + blk * h + l;
            uint32_t v = reverse ? base + blk * h + h - 1 - l : u + h2;
            if (v < end && PAIRJ(s, u) > PAIRJ(s, v)) {
                uint32_t c = PAIRJ(s, u);
                PAIRJ(s, u) = PAIRJ(s, v);
                PAIRJ(s, v) = c;
                swap_prod(s, u, v);
            }
        }
    }
}

static void stage_flags(ref_spgemm_classic_state *s)
{
    if (s->products == 0)
        return;
    TAB1(s, 0) = 0;
    TAB1(s, 1) = 1;
    for (uint32_t t = 1; t < s->products; t++)
        TAB1(s, t + 1) = PAIRI(s, t) != PAIRI(s, t - 1) || PAIRJ(s, t) != PAIRJ(s, t - 1);
}

static void stage_columns(ref_spgemm_classic_state *s)
{
    uint32_t *col_c = s->c_ints + s->a->rows + 1;
    for (uint32_t t = 0; t < s->products; t++) {
        if (TAB1(s, t + 1) > TAB1(s, t)) {
            col_c[TAB1(s, t)] = PAIRJ(s, t);
            TAB2(s, TAB1(s, t)) = t;
        }
    }
    TAB2(s, s->nnz_c) = (uint32_t)s->products;
}

static void stage_runs(ref_spgemm_classic_state *s)
{
    for (size_t e = 0; e < s->nnz_c; e++)
        TAB3(s, e) = TAB2(s, e + 1) - TAB2(s, e);
}

static void stage_sums(ref_spgemm_classic_state *s, uint32_t t)
{
    uint32_t p = t / 2;
    for (size_t e = 0; e < s->nnz_c; e++)
        for (uint32_t j = 0; j < p; j++) {
            uint32_t k = j + t - p;
            if (k < TAB3(s, e))
                add_prod(s, (size_t)TAB2(s, e) + j, (size_t)TAB2(s, e) + k);
        }
}

static void stage_values(ref_spgemm_classic_state *s)
{
    for (uint32_t e = 0; e < s->nnz_c; e++) {
        uint32_t t = TAB2(s, e);
        copy_value(s, e, t);
        TAB1(s, e) = PAIRI(s, t);
    }
}

static void stage_row_ptrs(ref_spgemm_classic_state *s)
{
    uint32_t rows = s->a->rows;
    s->c_ints[0] = 0;
    s->c_ints[rows] = (uint32_t)s->nnz_c;
    for (uint32_t i = 1; i < rows; i++)
        s->c_ints[i] = first_at_least(s->tab, 1, (uint32_t)s->nnz_c, i);
}

void ref_spgemm_classic_stage(ref_spgemm_classic_state *s, unsigned stage, uint32_t t,
                              uint32_t nn, bool reverse)
{
    switch (stage) {
    case 1: stage_count(s); break;
    case 2: stage_expand(s); break;
    case 3: stage_row_starts(s); break;
    case 4:
        for (uint32_t i = 0; i < s->a->rows; i++)
            TAB2(s, i) = TAB1(s, i + 1) - TAB1(s, i);
        break;
    case 5: max_step(&TAB2(s, 0), t); break;
    case 6: stage_sort(s, t, nn, reverse); break;
    case 7: stage_flags(s); break;
    case 8: stage_columns(s); break;
    case 9: stage_runs(s); break;
    case 10: max_step(&TAB3(s, 0), t); break;
    case 11: stage_sums(s, t); break;
    case 12: stage_values(s); break;
    case 13: stage_row_ptrs(s); break;
    default: break;
    }
}

void ref_spgemm_classic_scan(uint32_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        a[i] += a[i - 1];
}

/* ------------------------------------------------------------ the driver */

typedef struct replay {
    ref_spgemm_classic_state *s;
    ref_spgemm_classic_hook hook;
    void *user;
} replay;

static void step(const replay *r, unsigned stage, uint32_t t, uint32_t nn, bool reverse)
{
    if (r->hook)
        r->hook(r->s, stage, t, nn, reverse, false, r->user);
    ref_spgemm_classic_stage(r->s, stage, t, nn, reverse);
    if (r->hook)
        r->hook(r->s, stage, t, nn, reverse, true, r->user);
}

/* The scan after stage `after` (1 or 7), hooked as stage 0. */
static void scan_step(const replay *r, unsigned after)
{
    ref_spgemm_classic_state *s = r->s;
    if (r->hook)
        r->hook(s, 0, after, 0, false, false, r->user);
    if (after == 1)
        ref_spgemm_classic_scan(s->off + 1, s->a->nnz);
    else
        ref_spgemm_classic_scan(s->tab + 1, s->products);
    if (r->hook)
        r->hook(s, 0, after, 0, false, true, r->user);
}

void *ref_spgemm_poisoned(size_t n, size_t size)
{
    void *p = malloc((n ? n : 1) * size);
    if (p)
        memset(p, 0xA5, (n ? n : 1) * size);
    return p;
}

bool ref_spgemm_classic_run(gpgpu_type type, const gpgpu_csr *a, const gpgpu_csr *b,
                            ref_spgemm_classic_state *s, ref_spgemm_classic_hook hook,
                            void *user)
{
    size_t size = type == GPGPU_TYPE_F32 ? sizeof(float) : sizeof(double);
    replay r = {s, hook, user};
    *s = (ref_spgemm_classic_state){.type = type, .a = a, .b = b};
    if (!(s->off = ref_spgemm_poisoned(a->nnz + 1, sizeof *s->off)))
        return false;
    step(&r, 1, 0, 0, false);
    scan_step(&r, 1);
    s->products = s->off[a->nnz];
    if (s->products == 0) {
        s->c_ints = calloc((size_t)a->rows + 1, sizeof *s->c_ints);
        s->c_vals = ref_spgemm_poisoned(0, size);
        if (!s->c_ints || !s->c_vals) {
            ref_spgemm_classic_free(s);
            return false;
        }
        return true;
    }

    s->tablgt = (s->products > a->rows ? s->products : a->rows) + 1;
    s->pairs = ref_spgemm_poisoned(2 * s->products, sizeof *s->pairs);
    s->prod = ref_spgemm_poisoned(s->products, size);
    s->tab = ref_spgemm_poisoned(3 * s->tablgt, sizeof *s->tab);
    if (!s->pairs || !s->prod || !s->tab) {
        ref_spgemm_classic_free(s);
        return false;
    }
    step(&r, 2, 0, 0, false);
    step(&r, 3, 0, 0, false);
    step(&r, 4, 0, 0, false);
    for (uint32_t t = a->rows; t > 1; t = (t + 1) / 2)
        step(&r, 5, t, 0, false);
    uint32_t longest = TAB2(s, 0), nn = 1;
    while (nn < longest)
        nn *= 2;
    for (uint32_t h = 2; h <= nn; h *= 2) {
        step(&r, 6, h, nn, true);
        for (uint32_t k = h / 2; k >= 2; k /= 2)
            step(&r, 6, k, nn, false);
    }
    step(&r, 7, 0, 0, false);
    scan_step(&r, 7);

    s->nnz_c = TAB1(s, s->products);
    s->c_ints = ref_spgemm_poisoned(a->rows + 1 + s->nnz_c, sizeof *s->c_ints);
    s->c_vals = ref_spgemm_poisoned(s->nnz_c, size);
    if (!s->c_ints || !s->c_vals) {
        ref_spgemm_classic_free(s);
        return false;
    }
    step(&r, 8, 0, 0, false);
    step(&r, 9, 0, 0, false);
    for (uint32_t t = (uint32_t)s->nnz_c; t > 1; t = (t + 1) / 2)
        step(&r, 10, t, 0, false);
    uint32_t run = TAB3(s, 0);
    step(&r, 9, 0, 0, false);
    for (uint32_t t = run; t > 1; t = (t + 1) / 2)
        step(&r, 11, t, 0, false);
    step(&r, 12, 0, 0, false);
    step(&r, 13, 0, 0, false);
    return true;
}

void ref_spgemm_classic_free(ref_spgemm_classic_state *s)
{
    free(s->off);
    free(s->pairs);
    free(s->prod);
    free(s->tab);
    free(s->c_ints);
    free(s->c_vals);
    *s = (ref_spgemm_classic_state){0};
}
