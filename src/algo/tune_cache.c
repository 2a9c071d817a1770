#include "algo/tune_cache.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

/* Lines "key<TAB>v0 v1 v2 v3 gpu_ns"; lines that do not parse are skipped. */
static void read_cache(gpgpu_context *ctx)
{
    ctx->tune_cache_read = true;
    char path[4096], line[CTX_TUNE_KEY_SIZE + 128];
    FILE *f = cache_path(path, sizeof path) ? fopen(path, "r") : NULL;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *tab = strrchr(line, '\t');
        ctx_tune_choice c = {0};
        if (!tab || (size_t)(tab - line) >= sizeof c.key ||
            sscanf(tab + 1, "%u %u %u %u %lf", &c.v[0], &c.v[1], &c.v[2], &c.v[3], &c.gpu_ns) != 5)
            continue;
        memcpy(c.key, line, (size_t)(tab - line));
        if (keep(ctx, &c) != GPGPU_SUCCESS)
            break;
    }
    fclose(f);
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

gpgpu_status tune_cache_remember(gpgpu_context *ctx, const ctx_tune_choice *c)
{
    if (!ctx->tune_cache_read)
        read_cache(ctx);
    TRY(keep(ctx, c));
    char path[4096];
    if (!cache_path(path, sizeof path))
        return GPGPU_SUCCESS;
    make_parents(path);
    FILE *f = fopen(path, "a");
    if (!f)
        return GPGPU_SUCCESS;
    fprintf(f, "%s\t%u %u %u %u %.0f\n", c->key, c->v[0], c->v[1], c->v[2], c->v[3], c->gpu_ns);
    fclose(f);
    return GPGPU_SUCCESS;
}
