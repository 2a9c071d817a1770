#include "algo/tune_cache.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void clean(char *key)
{
    for (char *p = key; *p; p++)
        if (*p == '\t' || *p == '\n')
            *p = ' ';
}

void tune_key_start(const gpgpu_context *ctx, const char *family, char key[CTX_TUNE_KEY_SIZE])
{
    snprintf(key, CTX_TUNE_KEY_SIZE, "%s|%s|%s", family, ctx->info.renderer, ctx->info.backend);
    clean(key);
}

void tune_key_add(char key[CTX_TUNE_KEY_SIZE], const char *fmt, ...)
{
    size_t used = strlen(key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(key + used, CTX_TUNE_KEY_SIZE - used, fmt, ap);
    va_end(ap);
    clean(key);
}

double tune_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

gpgpu_status tune_check_can_time(gpgpu_context *ctx, const char *what)
{
    CHECK(!ctx->exec->recording_for_caller(ctx), ctx, GPGPU_ERROR_UNSUPPORTED_COMBINATION,
          "%s: timing needs the GPU's results, which work recorded into the caller's command "
          "buffer cannot give", what);
    CHECK(!ctx->timing, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s: a measurement (gpgpu_timer_begin) is running", what);
    return GPGPU_SUCCESS;
}

/* $GPGPU_TUNE_CACHE, else ~/.cache/libgpgpu/tune; false when there is to be no file
 * (the variable set but empty, or no home). */
static bool cache_path(char *out, size_t size)
{
    const char *env = getenv("GPGPU_TUNE_CACHE");
    if (env)
        return *env && snprintf(out, size, "%s", env) < (int)size;
    const char *home = getenv("HOME");
    return home && *home && snprintf(out, size, "%s/.cache/libgpgpu/tune", home) < (int)size;
}

static ctx_tune_choice *find(gpgpu_context *ctx, const char *key)
{
    for (size_t i = 0; i < ctx->tune_choice_count; i++)
        if (strcmp(ctx->tune_choices[i].key, key) == 0)
            return &ctx->tune_choices[i];
    return NULL;
}

/* Adds or replaces (a later line of the file wins over an earlier one). */
static gpgpu_status keep(gpgpu_context *ctx, const ctx_tune_choice *c)
{
    ctx_tune_choice *known = find(ctx, c->key);
    if (!known) {
        TRY(ctx_reserve(ctx, (void **)&ctx->tune_choices, &ctx->tune_choice_capacity,
                        ctx->tune_choice_count + 1, sizeof *ctx->tune_choices));
        known = &ctx->tune_choices[ctx->tune_choice_count++];
    }
    *known = *c;
    return GPGPU_SUCCESS;
}

/* An unsigned decimal below 2^32 at *p, which moves past it. */
static bool parse_u32(const char **p, uint32_t *out)
{
    char *end;
    if (!isdigit((unsigned char)**p))
        return false;
    errno = 0;
    unsigned long long v = strtoull(*p, &end, 10);
    if (errno != 0 || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    *p = end;
    return true;
}

/* "key<TAB>v0 v1 v2 v3 gpu_ns" exactly (the key without tabs, NUL or more than fits, the
 * values unsigned 32-bit, the time a finite number, nothing after): what remember writes. */
static bool parse_line(const char *line, size_t len, ctx_tune_choice *c)
{
    const char *tab = memchr(line, '\t', len);
    if (!tab || tab == line || (size_t)(tab - line) >= sizeof c->key ||
        memchr(line, '\0', len) || memchr(tab + 1, '\t', len - (size_t)(tab - line) - 1))
        return false;
    char text[128];
    size_t rest = len - (size_t)(tab - line) - 1;
    if (rest >= sizeof text)
        return false;
    memcpy(text, tab + 1, rest);
    text[rest] = '\0';
    *c = (ctx_tune_choice){0};
    const char *p = text;
    for (int i = 0; i < 4; i++)
        if (!parse_u32(&p, &c->v[i]) || *p++ != ' ')
            return false;
    char *end;
    c->gpu_ns = strtod(p, &end);
    if (end == p || !isfinite(c->gpu_ns) || (*end != '\0' && strcmp(end, "\r") != 0))
        return false;
    memcpy(c->key, line, (size_t)(tab - line));
    return true;
}

/* The file's text, or NULL with a warning where it is not a regular file of at most
 * TUNE_CACHE_MAX_BYTES (a missing one says nothing: no tuner has run). Opened with
 * O_NONBLOCK so that a FIFO there cannot hold the call up, and read at most that far, so
 * that a file growing as it is read cannot either. */
static char *read_text(gpgpu_context *ctx, const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            ctx_warn(ctx, "tune cache %s: cannot open it (%s); not read", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    char *text = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        ctx_warn(ctx, "tune cache %s: not a regular file; not read", path);
    else if ((uintmax_t)st.st_size > TUNE_CACHE_MAX_BYTES)
        ctx_warn(ctx, "tune cache %s: %jd bytes, past the %zu a cache may hold; not read "
                 "(remove it to start afresh)", path, (intmax_t)st.st_size,
                 (size_t)TUNE_CACHE_MAX_BYTES);
    else if (!(text = malloc(TUNE_CACHE_MAX_BYTES + 1)))
        ctx_warn(ctx, "tune cache %s: out of host memory; not read", path);
    *len = 0;
    while (text && *len <= TUNE_CACHE_MAX_BYTES) {
        ssize_t got = read(fd, text + *len, TUNE_CACHE_MAX_BYTES + 1 - *len);
        if (got == 0)
            break;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 || *len + (size_t)got > TUNE_CACHE_MAX_BYTES) {
            ctx_warn(ctx, "tune cache %s: %s; not read", path,
                     got < 0 ? strerror(errno) : "it grew past the limit as it was read");
            free(text);
            text = NULL;
            break;
        }
        *len += (size_t)got;
    }
    close(fd);
    return text;
}

/* Lines "key<TAB>v0 v1 v2 v3 gpu_ns"; lines that do not parse are skipped, with a warning. */
static void read_cache(gpgpu_context *ctx)
{
    ctx->tune_cache_read = true;
    char path[4096];
    size_t len;
    char *text = cache_path(path, sizeof path) ? read_text(ctx, path, &len) : NULL;
    if (!text)
        return;
    size_t bad = 0, first_bad = 0, line_no = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        ctx_tune_choice c;
        line_no++;
        if (end == at) {
            /* an empty line: nothing to keep, nothing wrong */
        } else if (!parse_line(text + at, end - at, &c)) {
            if (bad++ == 0)
                first_bad = line_no;
        } else if (keep(ctx, &c) != GPGPU_SUCCESS) {
            break;
        }
        at = end + 1;
    }
    free(text);
    if (bad)
        ctx_warn(ctx, "tune cache %s: %zu lines are not \"key<TAB>v0 v1 v2 v3 gpu_ns\" and were "
                 "ignored (the first: line %zu)", path, bad, first_bad);
}

bool tune_cache_find(gpgpu_context *ctx, const char *key, ctx_tune_choice *out)
{
    if (!ctx->tune_cache_read)
        read_cache(ctx);
    const ctx_tune_choice *c = find(ctx, key);
    if (c)
        *out = *c;
    return c != NULL;
}

/* Makes the directories above path (mkdir -p of its dirname). */
static void make_parents(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return;
        *p = '/';
    }
}

/* Appends one line to the file, which must be a regular file that stays within
 * TUNE_CACHE_MAX_BYTES: O_NONBLOCK makes opening a FIFO without a reader fail at once
 * instead of waiting, and nothing is written into a FIFO, device or directory there. */
static void append_line(gpgpu_context *ctx, const char *path, const char *line, size_t len)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                  0644);
    if (fd < 0) {
        ctx_warn(ctx, "tune cache %s: cannot open it for writing (%s); the choice is kept "
                 "in this context only", path, strerror(errno));
        return;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    else if ((uintmax_t)st.st_size + len > TUNE_CACHE_MAX_BYTES)
        why = "full (remove it to start afresh)";
    for (size_t done = 0; !why && done < len;) {
        ssize_t put = write(fd, line + done, len - done);
        if (put > 0)
            done += (size_t)put;
        else if (put == 0 || errno != EINTR)
            why = put == 0 ? "nothing could be written" : strerror(errno);
    }
    close(fd);
    if (why)
        ctx_warn(ctx, "tune cache %s: %s; the choice is kept in this context only", path, why);
}

gpgpu_status tune_cache_remember(gpgpu_context *ctx, const ctx_tune_choice *c)
{
    if (!ctx->tune_cache_read)
        read_cache(ctx);
    TRY(keep(ctx, c));
    char path[4096], line[CTX_TUNE_KEY_SIZE + 128];
    if (!cache_path(path, sizeof path))
        return GPGPU_SUCCESS;
    make_parents(path);
    int len = snprintf(line, sizeof line, "%s\t%u %u %u %u %.0f\n", c->key, c->v[0], c->v[1],
                       c->v[2], c->v[3], c->gpu_ns);
    if (len > 0 && (size_t)len < sizeof line)
        append_line(ctx, path, line, (size_t)len);
    return GPGPU_SUCCESS;
}

gpgpu_status tune_build(gpgpu_context *ctx, tune_run_fn run, const void *data)
{
    TRY(ctx->exec->begin(ctx));
    TRY(ctx_end(ctx, run(ctx, data)));
    return gpgpu_finish(ctx);
}

gpgpu_status tune_time_runs(gpgpu_context *ctx, tune_run_fn run, const void *data, int reps,
                            double *ns)
{
    double wall = tune_now_ns(), gpu = 0;
    TRY(gpgpu_timer_begin(ctx));
    gpgpu_status s = ctx->exec->begin(ctx);
    for (int r = 0; r < reps && s == GPGPU_SUCCESS; r++)
        s = run(ctx, data);
    s = ctx_end(ctx, s);
    gpgpu_status t = gpgpu_timer_end(ctx, &gpu); /* waits for the result, so for the runs */
    wall = tune_now_ns() - wall;
    /* The timer missed the work when it saw under 100 ns a run while the wall clock saw a
     * thousand times more (the gpgpu commands take their rates by the same rule). */
    bool missed = gpu < 100.0 * reps && gpu * 1000 < wall;
    *ns = (missed ? wall : gpu) / reps;
    return s != GPGPU_SUCCESS ? s : t;
}
