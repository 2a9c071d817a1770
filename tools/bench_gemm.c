/* gpgpu-bench --only gemm: dense C = A*B of square random matrices, every
 * method of the CUDA lab report (1, 2, 6 with 2 and 4 outputs) with tiles 8,
 * 16 and 32, and the register-tiled default (tuned per size first with
 * --gemm-tune), f32 and f64: GPU time, GFLOP/s and the report's CGMA. Records
 * join bench/cublas_peer.py's on (type, n) in bench/compare.py --gemm. */
#include "gpgpu_bench.h"

#include <stdlib.h>
#include <string.h>

const char bench_gemm_help[] =
    "\n"
    "Dense products (--only gemm): C = A*B of n x n random matrices (values of\n"
    "magnitude 0.5 to 1.5), f32 and f64, n from --gemm-sizes (default\n"
    "64,128,256,512,1024,2048,4096,8192), by method1, method2 and method6 (the CUDA\n"
    "lab report's; tiles 8, 16 and 32; method6 with 2 and 4 outputs per invocation;\n"
    "coopmat, f32 on devices with cooperative matrices: products of f16 roundings;\n"
    "method1, one work-group, up to n = 1024 and method2 up to 4096: minutes a\n"
    "product beyond) and fast (GPGPU_ALGO_GEMM_TILED with the shape gpgpu_gemm_shape\n"
    "gives: with --gemm-tune, gpgpu_gemm_tune runs first for each type and size, its\n"
    "progress on stderr). Per row: the median GPU time, GFLOP/s (2 n^3 flops),\n"
    "the CGMA of the method (flops per global load or store it makes) and, for\n"
    "fast, the block. The last C of each case is checked against a CPU product on\n"
    "up to 4 rows; a wrong one prints CHECK FAILED and the exit code is 1.\n"
    "--case matches gemm_TYPE, --algos the algo column (method1, method2,\n"
    "method6, fast, coopmat).\n"
    "  --gemm-sizes LIST     the sizes n, comma-separated\n"
    "  --gemm-tune           tune the fast method for each type and size first\n";

#define METHOD1_MAX_N 1024
#define METHOD2_MAX_N 4096

static const gpgpu_type gemm_types[] = { GPGPU_TYPE_F32, GPGPU_TYPE_F64 };

typedef struct gemm_case {
    gpgpu_algo algo;
    const char *name;
    unsigned tile, outputs;
} gemm_case;

static const gemm_case gemm_cases[] = {
    { GPGPU_ALGO_GEMM_TILED, "fast", 0, 0 },
    { GPGPU_ALGO_GEMM_COOPMAT_F16, "coopmat", 0, 0 },
    { GPGPU_ALGO_GEMM_METHOD6, "method6", 8, 2 },  { GPGPU_ALGO_GEMM_METHOD6, "method6", 16, 2 },
    { GPGPU_ALGO_GEMM_METHOD6, "method6", 32, 2 }, { GPGPU_ALGO_GEMM_METHOD6, "method6", 8, 4 },
    { GPGPU_ALGO_GEMM_METHOD6, "method6", 16, 4 }, { GPGPU_ALGO_GEMM_METHOD6, "method6", 32, 4 },
    { GPGPU_ALGO_GEMM_METHOD2, "method2", 8, 0 },  { GPGPU_ALGO_GEMM_METHOD2, "method2", 16, 0 },
    { GPGPU_ALGO_GEMM_METHOD2, "method2", 32, 0 }, { GPGPU_ALGO_GEMM_METHOD1, "method1", 8, 0 },
    { GPGPU_ALGO_GEMM_METHOD1, "method1", 16, 0 }, { GPGPU_ALGO_GEMM_METHOD1, "method1", 32, 0 },
};

/* One size and type: the matrices on the GPU. */
typedef struct gemm_run {
    bench *b;
    gpgpu_type type;
    size_t n;
    gpgpu_buffer *a, *bm, *c;
    gpgpu_gemm_desc desc;
} gemm_run;

static gpgpu_status gemm_once(void *user)
{
    gemm_run *r = user;
    return gpgpu_gemm(r->b->ctx, &r->desc, r->n, r->n, r->n, 1.0, r->a, 0, r->bm, 0, 0.0, r->c,
                      0);
}

static void gemm_json(gemm_run *r, const gemm_case *c, const gpgpu_gemm_tuning *shape,
                      timing t, double gflops, double cgma, const char *check)
{
    FILE *f = r->b->json;
    char name[32], block[48] = "", full[160];

    snprintf(name, sizeof(name), "gemm_%s", gpgpu_type_name(r->type));
    if (c->tile != 0)
        snprintf(full, sizeof(full), "%s/%s/tile:%u/outputs:%u/%zu", name, c->name, c->tile,
                 c->outputs, r->n);
    else
        snprintf(full, sizeof(full), "%s/%s/%zu", name, c->name, r->n);
    if (c->algo == GPGPU_ALGO_GEMM_TILED)
        snprintf(block, sizeof(block), "%ux%ux%u/%ux%u", shape->block_m, shape->block_n,
                 shape->block_k, shape->thread_m,
                 shape->block_m * shape->block_n / (shape->invocations * shape->thread_m));
    bench_json_begin(r->b, full, t);
    bench_json_text(f, "case", name);
    bench_json_text(f, "algo", c->name);
    bench_json_text(f, "type", gpgpu_type_name(r->type));
    fprintf(f, ", \"n\": %zu, \"tile\": %u, \"outputs\": %u", r->n, c->tile, c->outputs);
    bench_json_text(f, "block", block);
    bench_json_field(f, "flops_per_second", gflops * 1e9);
    bench_json_field(f, "cgma", cgma);
    bench_json_text(f, "check", check);
    bench_json_end(r->b);
}

static bool case_enabled(const gemm_run *r, const gemm_case *c)
{
    const bench_options *o = r->b->opt;

    if (o->algo_filter && !bench_list_has(o->algo_filter, c->name))
        return false;
    if (c->algo == GPGPU_ALGO_GEMM_METHOD1 && r->n > METHOD1_MAX_N)
        return false;
    if (c->algo == GPGPU_ALGO_GEMM_COOPMAT_F16 &&
        (r->type != GPGPU_TYPE_F32 || !r->b->info.has_coopmat_f16))
        return false;
    return c->algo != GPGPU_ALGO_GEMM_METHOD2 || r->n <= METHOD2_MAX_N;
}

/* Times, checks and reports one case. */
static int run_case(gemm_run *r, const gemm_case *c)
{
    bench *b = r->b;
    gpgpu_gemm_tuning shape = { 0 };
    timing t;
    tool_gemm_check check;
    const char *verdict = "ok";
    int rc;

    r->desc = (gpgpu_gemm_desc){ .type = r->type, .algo = c->algo, .tile = c->tile,
                                 .outputs = c->outputs };
    snprintf(b->step, sizeof(b->step), "gemm %s n=%zu %s tile %u outputs %u",
             gpgpu_type_name(r->type), r->n, c->name, c->tile, c->outputs);
    gpgpu_status status = bench_time_call(b, gemm_once, r, &t);
    if (status != GPGPU_SUCCESS)
        return bench_skip_or_fail(b, status);
    rc = tool_gemm_check_rows(b->ctx, &r->desc, r->n, r->n, r->n, 1.0, 1, r->c, 4, &check);
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (check.errors) {
        printf("CHECK FAILED: %s\n", b->step);
        b->check_failed = true;
        verdict = "FAILED";
    }
    if (c->algo == GPGPU_ALGO_GEMM_TILED)
        gpgpu_gemm_shape(b->ctx, r->type, r->n, r->n, r->n, &shape);
    double ns = bench_rate_ns(b, t), n = (double)r->n;
    double gflops = 2 * n * n * n / ns;
    double cgma = tool_gemm_cgma(&r->desc, &shape, r->n, r->n, r->n, false);
    char block[48] = "-";
    if (c->algo == GPGPU_ALGO_GEMM_TILED)
        snprintf(block, sizeof(block), "%ux%ux%u", shape.block_m, shape.block_n, shape.block_k);
    printf("%-8s %-4s %6zu %4u %4u %-12s %12.1f %12.1f %10.1f %8.1f %s\n", c->name,
           gpgpu_type_name(r->type), r->n, c->tile, c->outputs, block, t.median_ns / 1e3,
           t.wall_ns / 1e3, gflops, cgma, verdict);
    fflush(stdout);
    if (b->json != NULL)
        gemm_json(r, c, &shape, t, gflops, cgma, verdict);
    return TOOL_EXIT_OK;
}

/* The matrices of one size, then every case on them. */
static int run_size(bench *b, gpgpu_type type, size_t n)
{
    gemm_run r = { .b = b, .type = type, .n = n };
    size_t bytes = n * n * gpgpu_type_size(type);
    gpgpu_status status = gpgpu_buffer_create(b->ctx, bytes, &r.a);
    int rc = TOOL_EXIT_OK;

    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_create(b->ctx, bytes, &r.bm);
    if (status == GPGPU_SUCCESS)
        status = gpgpu_buffer_create(b->ctx, bytes, &r.c);
    if (status != GPGPU_SUCCESS)
        rc = bench_skip_or_fail(b, status);
    if (rc == TOOL_EXIT_OK && r.c != NULL)
        rc = tool_upload_random(b->ctx, r.a, type, n * n, 1);
    if (rc == TOOL_EXIT_OK && r.c != NULL)
        rc = tool_upload_random(b->ctx, r.bm, type, n * n, 2);
    if (rc == TOOL_EXIT_OK && r.c != NULL && b->opt->gemm_tune) {
        status = gpgpu_gemm_tune(b->ctx, type, n, n, n, tool_progress, NULL, NULL);
        if (status != GPGPU_SUCCESS)
            rc = bench_skip_or_fail(b, status);
    }
    for (size_t i = 0; i < COUNT_OF(gemm_cases) && rc == TOOL_EXIT_OK && r.c != NULL; i++)
        if (case_enabled(&r, &gemm_cases[i]))
            rc = run_case(&r, &gemm_cases[i]);
    gpgpu_buffer_destroy(r.a);
    gpgpu_buffer_destroy(r.bm);
    gpgpu_buffer_destroy(r.c);
    return rc;
}

int bench_gemm_run(bench *b)
{
    int rc = TOOL_EXIT_OK;

    printf("\n%-8s %-4s %6s %4s %4s %-12s %12s %12s %10s %8s %s\n", "algo", "type", "n", "tile",
           "outs", "block", "gpu_us", "wall_us", "GFLOP/s", "CGMA", "check");
    for (size_t t = 0; t < COUNT_OF(gemm_types) && rc == TOOL_EXIT_OK; t++) {
        gpgpu_type type = gemm_types[t];
        char name[16];

        snprintf(name, sizeof(name), "gemm_%s", gpgpu_type_name(type));
        if (b->opt->case_filter && !strstr(name, b->opt->case_filter))
            continue;
        if (type == GPGPU_TYPE_F64 && !b->info.has_f64)
            continue;
        for (int s = 0; s < b->opt->gemm_size_count && rc == TOOL_EXIT_OK && !b->stopped; s++)
            rc = run_size(b, type, b->opt->gemm_sizes[s]);
    }
    return rc;
}
