/* gpgpu-bench's copy ceiling: a buffer-to-buffer copy of at least 256 MiB by compute shader
 * (copy_d2d_u32, what ratio_to_copy divides by) and by the driver's copy command, the copy
 * of each size's bytes (copy_u32), and the shared input and output buffers, made before
 * anything is timed. */
#include "gpgpu_bench.h"

#include <math.h>
#include <stdlib.h>

/* The copy ceiling moves at least this much: enough to leave every cache. */
#define COPY_MIN_BYTES ((size_t)1 << 28)
/* Below this a copy says nothing about bandwidth; give up instead. */
#define COPY_SMALLEST_BYTES ((size_t)1 << 20)

static size_t largest_input_bytes(const bench *b)
{
    return bench_largest_bytes(b, false);
}

/* A buffer-to-buffer copy of `bytes` bytes, reported as case copy_u32. */
int bench_copy_run(bench *b, gpgpu_buffer *in, gpgpu_buffer *out, size_t bytes)
{
    bench_job job = { .c = NULL, .in = in, .out = out, .n = bytes };
    timing t;

    snprintf(b->step, sizeof(b->step), "copy_u32 of %zu bytes", bytes);
    tool_message("%s", b->step);
    int rc = bench_check(b, bench_time_job(b, &job, &t));
    if (rc == TOOL_EXIT_OK && !b->stopped)
        bench_report(b, &(bench_row){ .name = "copy_u32", .algo = "copy", .n = bytes / 4,
                                      .t = t, .bytes = 2.0 * (double)bytes,
                                      .ratio = 2.0 * (double)bytes / bench_rate_ns(b, t) /
                                               b->copy_gbps,
                                      .copy_ns = NAN });
    return rc;
}

/* Times a copy of `bytes` bytes (halved while two buffers of it do not fit)
 * on ctx, the bench's context or one that copies with the driver's copy
 * command; *t and *bytes receive what was measured. */
static gpgpu_status time_big_copy(bench *b, gpgpu_context *ctx, size_t *bytes, timing *t)
{
    gpgpu_buffer *src = NULL, *dst = NULL;
    gpgpu_status status;

    for (;;) {
        status = gpgpu_buffer_create(ctx, *bytes, &src);
        if (status == GPGPU_SUCCESS) {
            status = gpgpu_buffer_create(ctx, *bytes, &dst);
            if (status != GPGPU_SUCCESS) {
                gpgpu_buffer_destroy(src);
                src = NULL;
            }
        }
        if (status != GPGPU_ERROR_OUT_OF_MEMORY || *bytes / 2 < COPY_SMALLEST_BYTES)
            break;
        *bytes /= 2;
    }
    if (status == GPGPU_SUCCESS) {
        /* Contents do not matter to a copy, so the buffers are not filled. */
        gpgpu_context *bench_ctx = b->ctx;
        b->ctx = ctx;
        status = bench_time_job(b, &(bench_job){ .c = NULL, .in = src, .out = dst, .n = *bytes },
                                t);
        b->ctx = bench_ctx;
    }
    gpgpu_buffer_destroy(dst);
    gpgpu_buffer_destroy(src);
    return status;
}

/* The shared input and output buffers, made before anything else: the
 * largest input, at least *copy_bytes (the copy ceiling's size, halved
 * while two buffers of it do not fit; *copy_bytes follows). Then the sort's
 * values and scratch buffers. */
static gpgpu_status make_buffers(bench *b, size_t *copy_bytes)
{
    size_t bytes = largest_input_bytes(b);
    gpgpu_status status;
    if (bytes < *copy_bytes)
        bytes = *copy_bytes;
    for (;;) {
        status = gpgpu_buffer_create(b->ctx, bytes, &b->in);
        if (status == GPGPU_SUCCESS)
            status = gpgpu_buffer_create(b->ctx, bytes, &b->out);
        if (status != GPGPU_ERROR_OUT_OF_MEMORY || bytes / 2 < COPY_SMALLEST_BYTES)
            break;
        gpgpu_buffer_destroy(b->in);
        b->in = NULL;
        bytes /= 2;
    }
    b->buffer_bytes = bytes;
    if (*copy_bytes > bytes)
        *copy_bytes = bytes;
    if (bytes < largest_input_bytes(b))
        b->cap_bytes = bytes; /* the largest sizes do not fit */
    if (status == GPGPU_SUCCESS)
        status = bench_sort_buffers(b);
    return status;
}

/* Measures the copy ceiling, by compute shader (gpgpu_buffer_copy): the
 * largest input benchmarked, at least COPY_MIN_BYTES. Beside it, the same
 * copy by the driver's copy command (glCopyNamedBufferSubData or
 * vkCmdCopyBuffer, a context made with transfer_copies), which some drivers
 * run on DMA engines at a fraction of the bandwidth. */
int bench_copy_measure(bench *b)
{
    size_t bytes = largest_input_bytes(b);
    timing t;

    if (bytes < COPY_MIN_BYTES)
        bytes = COPY_MIN_BYTES;
    if (bytes > b->info.max_storage_range_bytes) /* what one binding holds */
        bytes = b->info.max_storage_range_bytes / 4 * 4;
    snprintf(b->step, sizeof(b->step), "copy of %zu bytes", bytes);
    tool_message("%s", b->step);
    gpgpu_status status = make_buffers(b, &bytes);
    if (status == GPGPU_SUCCESS)
        status = bench_time_job(b, &(bench_job){ .c = NULL, .in = b->in, .out = b->out,
                                                 .n = bytes }, &t);
    if (status != GPGPU_SUCCESS)
        return tool_fail(status, b->step, gpgpu_last_error(b->ctx));
    /* Some drivers' timer queries do not cover compute work or copies
     * (llvmpipe reports about 1 ns): tool_timer_missed, the rule every tool
     * uses. Then every GB/s figure is taken from the wall clock instead. */
    b->wall_clock = tool_timer_missed(t.median_ns, t.wall_ns, 1);
    if (b->wall_clock)
        tool_message("note: the GPU timer reports %.0f ns for a copy that took %.0f ns"
                     " by the wall clock: this driver's timer queries miss the work,"
                     " so GB/s below come from wall_us", t.median_ns, t.wall_ns);
    b->copy_gbps = 2.0 * (double)bytes / (b->wall_clock ? t.wall_ns : t.median_ns);
    /* The clock burst's buffers, where the timer sees the GPU's work (a CPU
     * driver has no clock to raise). Without them, no burst. */
    if (!b->wall_clock && b->opt->burst_ms > 0 &&
        (gpgpu_buffer_create(b->ctx, BENCH_BURST_BYTES, &b->burst_in) != GPGPU_SUCCESS ||
         gpgpu_buffer_create(b->ctx, BENCH_BURST_BYTES, &b->burst_out) != GPGPU_SUCCESS)) {
        tool_message("note: no room for the clock burst's buffers: no burst");
        gpgpu_buffer_destroy(b->burst_in);
        b->burst_in = NULL;
    }
    bench_report(b, &(bench_row){ .name = "copy_d2d_u32", .algo = "copy", .n = bytes / 4,
                                  .t = t, .bytes = 2.0 * (double)bytes, .ratio = 1.0,
                                  .copy_ns = NAN });

    gpgpu_context_desc desc = b->opt->desc;
    desc.transfer_copies = true;
    gpgpu_context *transfer = NULL;
    snprintf(b->step, sizeof(b->step), "driver copy command of %zu bytes", bytes);
    tool_message("%s", b->step);
    status = gpgpu_context_create(&desc, &transfer);
    if (status == GPGPU_SUCCESS)
        status = time_big_copy(b, transfer, &bytes, &t);
    if (status == GPGPU_SUCCESS)
        bench_report(b, &(bench_row){ .name = "copy_d2d_u32", .algo = "transfer",
                                      .n = bytes / 4, .t = t, .bytes = 2.0 * (double)bytes,
                                      .ratio = 2.0 * (double)bytes / bench_rate_ns(b, t) /
                                               b->copy_gbps,
                                      .copy_ns = NAN });
    else
        tool_message("%s: %s", b->step, gpgpu_last_error(transfer));
    gpgpu_context_destroy(transfer);
    return TOOL_EXIT_OK;
}
