/* Context creation: picks the backend and keeps what every call shares. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "core/internal.h"
#ifdef GPGPU_HAVE_GL
#include "gl/gl_backend.h"
#endif
#ifdef GPGPU_HAVE_VULKAN
#include "vk/vk_backend.h"
#endif

/* The backend of GPGPU_BACKEND_DEFAULT when GPGPU_BACKEND is unset: GL where the build has
 * it (meson -Dgl), else Vulkan. */
#ifdef GPGPU_HAVE_GL
#define DEFAULT_BACKEND GPGPU_BACKEND_GL
#else
#define DEFAULT_BACKEND GPGPU_BACKEND_VULKAN
#endif

bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static gpgpu_status pick_backend(const gpgpu_context_desc *desc, gpgpu_backend *out)
{
    *out = desc->backend;
    CHECK(desc->gl_platform >= GPGPU_GL_PLATFORM_DEFAULT &&
              desc->gl_platform <= GPGPU_GL_PLATFORM_ADOPT,
          NULL, GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_context_create: unknown GL platform %d",
          (int)desc->gl_platform);
    /* What is adopted names the backend. */
    bool adopt_gl = desc->gl_get_proc_address || desc->gl_platform == GPGPU_GL_PLATFORM_ADOPT;
    CHECK(!(adopt_gl && desc->vk_adopt), NULL, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_context_create: a GL context and a Vulkan device cannot both be adopted");
    if (*out == GPGPU_BACKEND_DEFAULT && desc->vk_adopt)
        *out = GPGPU_BACKEND_VULKAN;
    if (*out == GPGPU_BACKEND_DEFAULT && adopt_gl)
        *out = GPGPU_BACKEND_GL;
    if (*out == GPGPU_BACKEND_DEFAULT) {
        const char *env = getenv("GPGPU_BACKEND");
        if (!env || !*env)
            *out = DEFAULT_BACKEND;
        else if (strcmp(env, "gl") == 0)
            *out = GPGPU_BACKEND_GL;
        else if (strcmp(env, "vulkan") == 0)
            *out = GPGPU_BACKEND_VULKAN;
        else
            return ctx_fail(NULL, GPGPU_ERROR_INVALID_ARGUMENT,
                            "GPGPU_BACKEND=%s: expected gl or vulkan", env);
    }
    CHECK(*out == GPGPU_BACKEND_GL || *out == GPGPU_BACKEND_VULKAN, NULL,
          GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_context_create: unknown backend %d", (int)*out);
    return GPGPU_SUCCESS;
}

/* A byte count from environment variable `name`: bytes, or KiB, MiB, GiB with a K, M or G
 * suffix; *set says whether it was given. A value that is none of these is refused, as a
 * misspelt GPGPU_BACKEND is, rather than silently ignored. */
static gpgpu_status env_bytes(const char *name, size_t *out, bool *set)
{
    const char *env = getenv(name);
    *set = env && *env;
    if (!*set)
        return GPGPU_SUCCESS;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (shift)
        end++;
    CHECK(isdigit((unsigned char)env[0]) && *end == '\0' && errno == 0 &&
              v <= (unsigned long long)(SIZE_MAX >> shift),
          NULL, GPGPU_ERROR_INVALID_ARGUMENT,
          "%s=%s: expected a number of bytes, with an optional K, M or G suffix", name, env);
    *out = (size_t)v << shift;
    return GPGPU_SUCCESS;
}

/* desc.memory_limit, else GPGPU_MEMORY_LIMIT (0 or unset: no limit). */
static gpgpu_status pick_memory_limit(const gpgpu_context_desc *desc, size_t *out)
{
    *out = desc->memory_limit;
    bool set;
    return *out ? GPGPU_SUCCESS : env_bytes("GPGPU_MEMORY_LIMIT", out, &set);
}

/* desc.memory_cache, else GPGPU_MEMORY_CACHE, else CTX_CACHE_DEFAULT (the backend's default);
 * GPGPU_MEMORY_CACHE_OFF or an environment value of 0: none. */
static gpgpu_status pick_memory_cache(const gpgpu_context_desc *desc, size_t *out)
{
    *out = desc->memory_cache;
    if (*out == GPGPU_MEMORY_CACHE_OFF)
        *out = 0;
    else if (*out == 0) {
        bool set;
        TRY(env_bytes("GPGPU_MEMORY_CACHE", out, &set));
        if (!set)
            *out = CTX_CACHE_DEFAULT;
        else if (*out == CTX_CACHE_DEFAULT)
            *out = CTX_CACHE_DEFAULT - 1; /* as much as asked, not the default */
    }
    return GPGPU_SUCCESS;
}

static gpgpu_status create_backend(gpgpu_context *ctx, const gpgpu_context_desc *desc,
                                   gpgpu_backend backend)
{
    if (backend == GPGPU_BACKEND_GL) {
#ifdef GPGPU_HAVE_GL
        return gl_backend_create(ctx, desc);
#else
        return ctx_fail(ctx, GPGPU_ERROR_BACKEND_UNAVAILABLE,
                        "gl: this build of libgpgpu has no GL backend (meson -Dgl)");
#endif
    }
#ifdef GPGPU_HAVE_VULKAN
    return vk_backend_create(ctx, desc);
#else
    return ctx_fail(ctx, GPGPU_ERROR_BACKEND_UNAVAILABLE,
                    "vulkan: this build of libgpgpu has no Vulkan backend (meson -Dvulkan)");
#endif
}

gpgpu_status gpgpu_device_count(gpgpu_backend backend, uint32_t *count)
{
    CHECK(count, NULL, GPGPU_ERROR_NULL_POINTER, "gpgpu_device_count: count is NULL");
    *count = 0;
    gpgpu_backend b;
    TRY(pick_backend(&(gpgpu_context_desc){.backend = backend}, &b));
    if (b == GPGPU_BACKEND_GL) {
#ifdef GPGPU_HAVE_GL
        *count = gl_device_count();
        return GPGPU_SUCCESS;
#else
        return ctx_fail(NULL, GPGPU_ERROR_BACKEND_UNAVAILABLE,
                        "gl: this build of libgpgpu has no GL backend (meson -Dgl)");
#endif
    }
#ifdef GPGPU_HAVE_VULKAN
    *count = vk_device_count();
    return GPGPU_SUCCESS;
#else
    return ctx_fail(NULL, GPGPU_ERROR_BACKEND_UNAVAILABLE,
                    "vulkan: this build of libgpgpu has no Vulkan backend (meson -Dvulkan)");
#endif
}

gpgpu_status gpgpu_context_create(const gpgpu_context_desc *desc, gpgpu_context **out)
{
    static const gpgpu_context_desc defaults;
    if (!desc)
        desc = &defaults;
    /* Before the first check: a failure must reach this call's callback, never
     * an earlier call's (whose user_data may be gone). */
    ctx_set_creation_callback(desc->error_callback, desc->user_data);
    CHECK(out, NULL, GPGPU_ERROR_NULL_POINTER, "gpgpu_context_create: out is NULL");
    *out = NULL;
    gpgpu_backend backend;
    TRY(pick_backend(desc, &backend));
    size_t memory_limit, memory_cache;
    TRY(pick_memory_limit(desc, &memory_limit));
    TRY(pick_memory_cache(desc, &memory_cache));
    /* GPGPU_TUNE before the device: a misspelt entry fails at once, as GPGPU_BACKEND does. */
    algo_plans plans;
    TRY(algo_plans_parse(getenv("GPGPU_TUNE"), &plans));

    gpgpu_context *ctx = calloc(1, sizeof *ctx);
    CHECK(ctx, NULL, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_context_create: out of host memory");
    ctx->debug = desc->debug;
    ctx->transfer_copies = desc->transfer_copies;
    ctx->memory_limit = memory_limit;
    ctx->memory_cache = memory_cache;
    gpgpu_status status = create_backend(ctx, desc, backend);
    if (status != GPGPU_SUCCESS) {
        /* The backend reported into ctx (no callback set yet); move the
         * message where the caller can read it, calling the callback once. */
        ctx_fail(NULL, status, "%s", ctx->message);
        free(ctx);
        return status;
    }
    /* The plans from what the executor now reports of its device. */
    algo_plans_resolve(&plans, &ctx->facts);
    ctx->plans = plans;
    ctx->callback = desc->error_callback;
    ctx->user_data = desc->user_data;
    *out = ctx;
    return GPGPU_SUCCESS;
}

void gpgpu_context_destroy(gpgpu_context *ctx)
{
    if (!ctx)
        return;
    for (unsigned i = 0; i < CTX_SCRATCH_SLOTS; i++)
        buffer_destroy_internal(ctx->scratch[i]);
    free(ctx->tune_choices);
    ctx->exec->destroy(ctx);
    free(ctx);
}

void gpgpu_context_trim(gpgpu_context *ctx)
{
    if (!ctx)
        return;
    for (unsigned i = 0; i < CTX_SCRATCH_SLOTS; i++) {
        buffer_destroy_internal(ctx->scratch[i]);
        ctx->scratch[i] = NULL;
    }
    if (ctx->exec->trim)
        ctx->exec->trim(ctx);
}

gpgpu_status gpgpu_context_get_info(gpgpu_context *ctx, gpgpu_info *info)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(info, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_context_get_info: info is NULL");
    *info = ctx->info;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_timer_begin(gpgpu_context *ctx)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(!ctx->timing, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_timer_begin: a measurement is already running");
    TRY(ctx->exec->timer_begin(ctx));
    ctx->timing = true;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_timer_end(gpgpu_context *ctx, double *gpu_ns)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    CHECK(gpu_ns, ctx, GPGPU_ERROR_NULL_POINTER, "gpgpu_timer_end: gpu_ns is NULL");
    CHECK(ctx->timing, ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_timer_end: no measurement is running");
    ctx->timing = false;
    return ctx->exec->timer_end(ctx, gpu_ns);
}

gpgpu_status gpgpu_finish(gpgpu_context *ctx)
{
    if (!ctx)
        return GPGPU_ERROR_NULL_POINTER;
    return ctx->exec->finish(ctx);
}

gpgpu_status ctx_scratch(gpgpu_context *ctx, unsigned slot, size_t bytes, gpgpu_buffer **out)
{
    CHECK(bytes <= ctx->info.max_storage_range_bytes, ctx, GPGPU_ERROR_TOO_LARGE,
          "this algorithm needs a scratch buffer of %zu bytes, more than one storage binding "
          "of %s holds (%zu); use the fast algorithm or less data",
          bytes, ctx->info.renderer, ctx->info.max_storage_range_bytes);
    gpgpu_buffer **held = &ctx->scratch[slot];
    if (!*held || (*held)->size < bytes) {
        buffer_destroy_internal(*held);
        *held = NULL;
        TRY(buffer_create_internal(ctx, bytes < 4096 ? 4096 : bytes, held));
    }
    *out = *held;
    return GPGPU_SUCCESS;
}

bool array_reserve(void **array, size_t *capacity, size_t needed, size_t size)
{
    if (needed <= *capacity)
        return true;
    size_t cap = *capacity ? *capacity : 8, bytes;
    while (cap < needed)
        cap = cap <= SIZE_MAX / 2 ? cap * 2 : needed;
    if (!size_mul(cap, size, &bytes))
        return false;
    void *grown = realloc(*array, bytes);
    if (!grown)
        return false;
    *array = grown;
    *capacity = cap;
    return true;
}

gpgpu_status ctx_reserve(gpgpu_context *ctx, void **array, size_t *capacity, size_t needed,
                         size_t size)
{
    CHECK(array_reserve(array, capacity, needed, size), ctx, GPGPU_ERROR_OUT_OF_MEMORY,
          "out of host memory");
    return GPGPU_SUCCESS;
}
