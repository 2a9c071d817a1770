/* The tuners' memory (gpgpu_spmv_tune, gpgpu_gemm_tune): a choice per key (the family,
 * the device and the problem's shape), kept in the context and in one cache file,
 * $GPGPU_TUNE_CACHE (default ~/.cache/libgpgpu/tune; no file when the variable is set
 * but empty), so that a later process does not tune again. */
#ifndef GPGPU_ALGO_TUNE_CACHE_H
#define GPGPU_ALGO_TUNE_CACHE_H

#include "core/internal.h"

/* The most bytes of cache file the tuners read or let it grow to: a few thousand choices. A
 * file past it, one that is not a regular file (a FIFO, a device, a directory), or lines that
 * do not parse are ignored with a warning (gpgpu_last_warning), never waited on or read
 * without end: every dense product and vector SpMV looks its shape up there. */
#define TUNE_CACHE_MAX_BYTES ((size_t)1 << 20)

/* Starts a key with the family, the device and the backend; the caller appends the
 * problem's shape with tune_key_add. Tabs and newlines (the file's separators) become
 * spaces. */
void tune_key_start(const gpgpu_context *ctx, const char *family, char key[CTX_TUNE_KEY_SIZE]);
void tune_key_add(char key[CTX_TUNE_KEY_SIZE], const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* What a tuner needs of the context before it times anything: results it can read back (no
 * recording into a caller's command buffer) and no measurement of the caller's running. */
gpgpu_status tune_check_can_time(gpgpu_context *ctx, const char *what);

/* An idle GPU needs over 100 ms of load to come back to full speed (an H100: kernels 4-5x
 * slow before that; docs/DECISIONS.md), so a tuner runs its first candidate untimed until
 * the GPU has worked this long before it times any. */
#define TUNE_WARM_UP_NS 2e8

/* A tuner times its candidates in this many rounds, one after another, and keeps each
 * candidate's best: on an H200 the GEMM tuner's first candidate, timed right after the
 * warm-up, once took 11.2 ms where it takes 7.5 (a 4096 f64 product), and a single round
 * chose another shape by it. */
#define TUNE_ROUNDS 2

/* A monotonic clock, in nanoseconds (only differences mean anything). */
double tune_now_ns(void);

/* A candidate's program built by one untimed run, waited for. A tuner builds all its
 * candidates before it warms the GPU up and times any: a build between two timed candidates
 * leaves the GPU idle long enough to slow down again (on an H200 the GEMM tuner's later
 * candidates at 4096 timed 2-6x slow, each after its own build). */
typedef gpgpu_status (*tune_run_fn)(gpgpu_context *ctx, const void *data);
gpgpu_status tune_build(gpgpu_context *ctx, tune_run_fn run, const void *data);

/* One candidate of a tuner, built (tune_build): runs `run(ctx, data)` `reps` times inside
 * one call and gives the mean time of one run. The time is the GPU timer's, or the wall
 * clock's (the runs waited for) where that timer measured nothing: some drivers' timer
 * queries miss compute work (GL on Mesa's llvmpipe reads 0), and a tuner choosing by zeros
 * would choose at random. */
gpgpu_status tune_time_runs(gpgpu_context *ctx, tune_run_fn run, const void *data, int reps,
                            double *ns);

/* The choice remembered for key (the file is read on the first look-up); false if none.
 * The caller checks that the values still make a shape its kernel takes. */
bool tune_cache_find(gpgpu_context *ctx, const char *key, ctx_tune_choice *out);

/* Remembers a choice in the context and appends it to the file (a file that cannot be
 * written only costs the next process a tuning run, so it is not an error). */
gpgpu_status tune_cache_remember(gpgpu_context *ctx, const ctx_tune_choice *choice);

#endif /* GPGPU_ALGO_TUNE_CACHE_H */
