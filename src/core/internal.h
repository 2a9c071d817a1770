/* State behind the public handles, and the error helpers every file uses. */
#ifndef GPGPU_INTERNAL_H
#define GPGPU_INTERNAL_H

#include "algo/plans.h"
#include "exec.h"
#include "gpgpu/gpgpu.h"

/* Scratch slots: 0-7 the reduce, scan, sort and sparse families' (sort.c takes 2-7), 8 a
 * call's staged device count (algo/count.h), 9 and 10 the select and gather families', the
 * last the reduce fold's counter. */
enum { CTX_SCRATCH_SLOTS = 16, CTX_MESSAGE_SIZE = 16384, CTX_TUNE_KEY_SIZE = 256 };
/* ctx->memory_cache when neither the desc nor the environment sets it: the backend's own
 * default (core/kept.h's KEPT_DEFAULT_LIMIT). */
#define CTX_CACHE_DEFAULT SIZE_MAX

/* One choice of a tuner (src/algo/tune_cache.c): a key (family, device, problem shape)
 * and the kernel shape found fastest for it, in the family's own words. */
typedef struct ctx_tune_choice {
    char key[CTX_TUNE_KEY_SIZE];
    uint32_t v[4];
    double gpu_ns;
} ctx_tune_choice;

struct gpgpu_context {
    const exec_backend *exec;
    void *impl; /* the backend's state */
    gpgpu_info info;
    exec_facts facts;  /* set by the backend's creation */
    algo_plans plans;  /* resolved from facts and GPGPU_TUNE at creation (algo/plans.h) */
    gpgpu_error_callback callback;
    void *user_data;
    bool debug;
    bool transfer_copies; /* gpgpu_buffer_copy through exec->buffer_copy */
    bool timing;
    /* desc.memory_limit or GPGPU_MEMORY_LIMIT (0: none), and the bytes of the library's
     * buffers of this context now, which buffer_create_internal keeps under it. */
    size_t memory_limit, memory_used;
    /* desc.memory_cache or GPGPU_MEMORY_CACHE: the most bytes of freed buffers' memory a
     * backend keeps for reuse (0: none; CTX_CACHE_DEFAULT: the backend's default). */
    size_t memory_cache;
    /* Library-owned temporaries, grown on demand and kept between calls. */
    gpgpu_buffer *scratch[CTX_SCRATCH_SLOTS];
    /* The tuners' choices, and whether the cache file has been read into them. */
    ctx_tune_choice *tune_choices;
    size_t tune_choice_count, tune_choice_capacity;
    bool tune_cache_read;
    char message[CTX_MESSAGE_SIZE];
    char warning[CTX_MESSAGE_SIZE]; /* gpgpu_last_warning */
};

struct gpgpu_buffer {
    gpgpu_context *ctx;
    size_t size;
    void *impl; /* the backend's handle */
    /* The memory behind it, for the overlap checks (algo_overlap): the backend's object (a GL
     * buffer name, a VkBuffer) and the byte of that object where this buffer starts. Two
     * wraps of one GL buffer or VkBuffer share `storage`; a library buffer has its own. The
     * backend sets both when it creates or wraps the buffer. */
    uint64_t storage;
    size_t storage_offset;
    size_t counted; /* bytes in ctx->memory_used: its size if the library allocated it, else 0 */
};

/* Records a failure: formats the message into ctx (or the thread's
 * creation message when ctx is NULL), calls the callback, returns status. */
gpgpu_status ctx_fail(gpgpu_context *ctx, gpgpu_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Records a warning: something the library ignored or worked around while the call goes on
 * (a tuning cache file it will not read). Kept for gpgpu_last_warning, never printed: the
 * caller decides what its users see. */
void ctx_warn(gpgpu_context *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Whether environment variable `name` is set to something other than "" or "0"
 * (the GPGPU_NO_* switches of the backends). */
bool env_on(const char *name);

/* Remembers the callback used by ctx_fail(NULL, ...) during context creation. */
void ctx_set_creation_callback(gpgpu_error_callback callback, void *user_data);

#define CHECK(cond, ctx, code, ...)                          \
    do {                                                     \
        if (!(cond))                                         \
            return ctx_fail((ctx), (code), __VA_ARGS__);     \
    } while (0)

#define TRY(expr)                                            \
    do {                                                     \
        gpgpu_status try_status_ = (expr);                   \
        if (try_status_ != GPGPU_SUCCESS)                    \
            return try_status_;                              \
    } while (0)

/* Makes room for at least `needed` elements of `size` bytes in *array (capacity in
 * *capacity), doubling: the one growth rule of every list. array_reserve says false, with the
 * array as it was, when the host is out of memory, for callers that must not report it (a
 * free that goes on without the room); ctx_reserve reports it as the context's failure. */
bool array_reserve(void **array, size_t *capacity, size_t needed, size_t size);
gpgpu_status ctx_reserve(gpgpu_context *ctx, void **array, size_t *capacity, size_t needed,
                         size_t size);

/* Closes a public call opened with exec->begin: restores the caller's state
 * and returns the call's status, or end's if the call itself succeeded. */
static inline gpgpu_status ctx_end(gpgpu_context *ctx, gpgpu_status status)
{
    gpgpu_status end = ctx->exec->end(ctx);
    return status != GPGPU_SUCCESS ? status : end;
}

/* A library-owned buffer of at least `bytes` bytes in scratch slot `slot`;
 * its contents are undefined. */
gpgpu_status ctx_scratch(gpgpu_context *ctx, unsigned slot, size_t bytes, gpgpu_buffer **out);

/* What every wrap of a caller's buffer shares: argument checks (the context
 * must be of `backend`) and the handle; `attach`
 * points buf (ctx and size set) at the caller's object `handle` from byte
 * `offset`. */
gpgpu_status buffer_wrap(gpgpu_context *ctx, const exec_backend *backend, size_t offset,
                         size_t bytes, gpgpu_buffer **out, const char *what,
                         gpgpu_status (*attach)(gpgpu_buffer *buf, const void *handle,
                                                size_t offset),
                         const void *handle);

/* Creates and destroys library buffers (the public calls and scratch). */
gpgpu_status buffer_create_internal(gpgpu_context *ctx, size_t bytes, gpgpu_buffer **out);
void buffer_destroy_internal(gpgpu_buffer *buf);

#endif /* GPGPU_INTERNAL_H */
