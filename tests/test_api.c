/* The public API's behaviour apart from numeric results: every documented
 * error code, the error message and callback, empty inputs, and several
 * contexts at once, on the backend that GPGPU_BACKEND names (meson runs it
 * once per backend). On GL also: the GL platform choices, wrapped GL buffers
 * (ranges at unaligned offsets, nothing outside the written range touched),
 * adopting the caller's context and restoring its GL state; the test makes
 * its own GL objects through its own glad table on the library's current
 * (headless) context. On Vulkan, gpgpu_buffer_wrap_gl is refused (the
 * Vulkan side of wrapping and adopting is test_vulkan.c's). A build without
 * the GL backend (GPGPU_HAVE_GL unset) refuses a GL context and makes Vulkan
 * ones by default.
 *
 * The GL side (wrapped GL buffers, adopting) is test_api_gl.c. This file stays
 * over 800 lines as one concern: every call's argument checks and codes on any
 * backend, each section a family of calls. */
#include "test_api.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu/sparse.h"

#ifdef GPGPU_HAVE_GL
#include <EGL/egl.h>
#endif

/* Handles the library must set to NULL on failure start as this. */
int sentinel_target;

/* ------------------------------------------------------------ callbacks */

/* cb_record and record_error: testlib.h. */

/* ------------------------------------------------- statuses and types */

static const gpgpu_status all_statuses[] = {
    GPGPU_SUCCESS, GPGPU_ERROR_INVALID_ARGUMENT, GPGPU_ERROR_NULL_POINTER,
    GPGPU_ERROR_OUT_OF_RANGE, GPGPU_ERROR_UNSUPPORTED_COMBINATION, GPGPU_ERROR_OVERLAP,
    GPGPU_ERROR_MISALIGNED, GPGPU_ERROR_TOO_LARGE, GPGPU_ERROR_NO_CONTEXT,
    GPGPU_ERROR_GL_VERSION, GPGPU_ERROR_UNSUPPORTED_FEATURE, GPGPU_ERROR_BACKEND_UNAVAILABLE,
    GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_SHADER_COMPILE, GPGPU_ERROR_OUT_OF_MEMORY, GPGPU_ERROR_BACKEND,
    GPGPU_ERROR_IO, GPGPU_ERROR_PARSE,
};
enum { STATUS_COUNT = sizeof all_statuses / sizeof all_statuses[0] };

static void check_status_strings(void)
{
    for (size_t i = 0; i < STATUS_COUNT; i++) {
        const char *s = gpgpu_status_string(all_statuses[i]);
        EXPECT(s && *s && strcmp(s, "unknown status") != 0, "status %d has no name",
               (int)all_statuses[i]);
        for (size_t j = 0; s && j < i; j++)
            EXPECT(strcmp(s, gpgpu_status_string(all_statuses[j])) != 0,
                   "statuses %d and %d share the name \"%s\"", (int)all_statuses[i],
                   (int)all_statuses[j], s);
    }
    const gpgpu_status unknown[] = {(gpgpu_status)1, (gpgpu_status)99, (gpgpu_status)-1,
                                    (gpgpu_status)999};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        EXPECT(strcmp(gpgpu_status_string(unknown[i]), "unknown status") == 0,
               "status %d is named \"%s\"", (int)unknown[i], gpgpu_status_string(unknown[i]));
}

static void check_type_names(void)
{
    static const struct {
        gpgpu_type type;
        const char *name;
        size_t size;
    } types[] = {
        {GPGPU_TYPE_U32, "u32", 4}, {GPGPU_TYPE_I32, "i32", 4}, {GPGPU_TYPE_F32, "f32", 4},
        {GPGPU_TYPE_F64, "f64", 8}, {(gpgpu_type)0, NULL, 0},   {(gpgpu_type)5, NULL, 0},
        {(gpgpu_type)-1, NULL, 0},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        const char *name = gpgpu_type_name(types[i].type);
        EXPECT(types[i].name ? name && strcmp(name, types[i].name) == 0 : name == NULL,
               "gpgpu_type_name(%d) is %s", (int)types[i].type, name ? name : "NULL");
        EXPECT(gpgpu_type_size(types[i].type) == types[i].size, "gpgpu_type_size(%d) is %zu",
               (int)types[i].type, gpgpu_type_size(types[i].type));
    }
}

/* ---------------------------------------------------- context creation */

/* Sets (or, with value NULL, clears) an environment variable and gives back
 * what it was, for restore_env. */
static char *swap_env(const char *name, const char *value)
{
    const char *old = getenv(name);
    char *saved = old ? strdup(old) : NULL;
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    return saved;
}

static void restore_env(const char *name, char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
}

typedef struct create_case {
    bool gl_only; /* about GL platforms: run on the GL backend only */
    const char *what;
    const char *env_name, *env_value; /* set around the call when env_name is set */
    gpgpu_context_desc desc;
    gpgpu_status expected;
    const char *message_has; /* gpgpu_last_error(NULL) contains it */
} create_case;

/* Run while no context exists: the last case needs nothing current. */
static const create_case create_cases[] = {
    {false, "unknown backend", NULL, NULL, {.backend = (gpgpu_backend)99}, E_INVALID, "backend"},
    {true, "unknown GL platform", NULL, NULL, {.gl_platform = (gpgpu_gl_platform)99}, E_INVALID,
     "platform"},
    {true, "GPGPU_GL_PLATFORM=bogus", "GPGPU_GL_PLATFORM", "bogus", {0}, E_INVALID,
     "GPGPU_GL_PLATFORM=bogus"},
    {false, "GPGPU_BACKEND=bogus", "GPGPU_BACKEND", "bogus", {0}, E_INVALID,
     "GPGPU_BACKEND=bogus"},
    /* GPGPU_TUNE: each entry a plan field's name and a value in its range, or no context */
    {false, "GPGPU_TUNE of an unknown name", "GPGPU_TUNE", "scan_items=8,bogus=1", {0},
     E_INVALID, "GPGPU_TUNE: 'bogus=1': no plan field is named bogus (docs/GUIDE.md, Tuning)"},
    {false, "GPGPU_TUNE without a value", "GPGPU_TUNE", "reduce_fold", {0}, E_INVALID,
     "GPGPU_TUNE: 'reduce_fold': expected name=value"},
    {false, "GPGPU_TUNE not a power of two", "GPGPU_TUNE", "reduce_items=3", {0}, E_INVALID,
     "GPGPU_TUNE: 'reduce_items=3': expected a power of two in 1..65536"},
    {false, "GPGPU_TUNE not a number", "GPGPU_TUNE", "scan_items=8x", {0}, E_INVALID,
     "GPGPU_TUNE: 'scan_items=8x': expected a power of two in 1..65536"},
    {false, "GPGPU_TUNE empty value", "GPGPU_TUNE", "radix_polls=", {0}, E_INVALID,
     "GPGPU_TUNE: 'radix_polls=': expected a power of two in 1..65536"},
    {false, "GPGPU_TUNE count out of range", "GPGPU_TUNE", "radix_os_items=65", {0}, E_INVALID,
     "GPGPU_TUNE: 'radix_os_items=65': expected a whole number in 1..64"},
    {false, "GPGPU_TUNE mode out of range", "GPGPU_TUNE", "spgemm_rank=5", {0}, E_INVALID,
     "GPGPU_TUNE: 'spgemm_rank=5': expected a whole number in 0..4"},
    {false, "GPGPU_TUNE negative", "GPGPU_TUNE", "radix_small=-1", {0}, E_INVALID,
     "GPGPU_TUNE: 'radix_small=-1': expected a whole number in 0..1"},
    {true, "adopt without gl_get_proc_address", NULL, NULL,
     {.gl_platform = GPGPU_GL_PLATFORM_ADOPT}, E_NULL, "gl_get_proc_address"},
#ifdef GPGPU_HAVE_GL
    {true, "adopt with no current context", NULL, NULL,
     {.gl_get_proc_address = (gpgpu_get_proc_address)eglGetProcAddress},
     GPGPU_ERROR_NO_CONTEXT, "current"},
#else
    {false, "GL in a build without it", NULL, NULL, {.backend = GPGPU_BACKEND_GL},
     GPGPU_ERROR_BACKEND_UNAVAILABLE, "no GL backend (meson -Dgl)"},
    {false, "GPGPU_BACKEND=gl in a build without GL", "GPGPU_BACKEND", "gl", {0},
     GPGPU_ERROR_BACKEND_UNAVAILABLE, "no GL backend (meson -Dgl)"},
    {false, "adopting GL in a build without it", NULL, NULL,
     {.gl_platform = GPGPU_GL_PLATFORM_ADOPT}, GPGPU_ERROR_BACKEND_UNAVAILABLE,
     "no GL backend (meson -Dgl)"},
#endif
};

static void run_create_case(const create_case *c)
{
    cb_record r = {0};
    gpgpu_context_desc desc = c->desc;
    desc.error_callback = record_error;
    desc.user_data = &r;
    char *saved = c->env_name ? swap_env(c->env_name, c->env_value) : NULL;
    gpgpu_context *out = SENTINEL;
    gpgpu_status s = gpgpu_context_create(&desc, &out);
    if (c->env_name)
        restore_env(c->env_name, saved);
    EXPECT(s == c->expected, "%s: gpgpu_context_create returned %d (%s), expected %d: %s",
           c->what, (int)s, gpgpu_status_string(s), (int)c->expected, gpgpu_last_error(NULL));
    EXPECT(out == NULL, "%s: *out is not NULL after a failure", c->what);
    EXPECT(strstr(gpgpu_last_error(NULL), c->message_has) != NULL,
           "%s: gpgpu_last_error(NULL) \"%s\" does not name \"%s\"", c->what,
           gpgpu_last_error(NULL), c->message_has);
    EXPECT(r.calls == 1 && r.status == c->expected, "%s: callback called %d times, status %d",
           c->what, r.calls, (int)r.status);
    EXPECT(strcmp(r.message, gpgpu_last_error(NULL)) == 0,
           "%s: callback message \"%s\" is not the last error \"%s\"", c->what, r.message,
           gpgpu_last_error(NULL));
    if (out && out != SENTINEL)
        gpgpu_context_destroy(out);
}

static void check_create_failures(bool gl)
{
    for (size_t i = 0; i < sizeof create_cases / sizeof create_cases[0]; i++)
        if (gl || !create_cases[i].gl_only)
            run_create_case(&create_cases[i]);

    /* out == NULL: the callback of this call's descriptor hears of it, never
     * the callback of an earlier call (whose user_data may be gone by now). */
    static cb_record earlier;
    gpgpu_context *out = SENTINEL;
    EXPECT_STATUS(NULL,
                  gpgpu_context_create(&(gpgpu_context_desc){.backend = (gpgpu_backend)99,
                                                             .error_callback = record_error,
                                                             .user_data = &earlier},
                                       &out),
                  E_INVALID);
    cb_record r = {0};
    EXPECT_STATUS(NULL,
                  gpgpu_context_create(
                      &(gpgpu_context_desc){.error_callback = record_error, .user_data = &r},
                      NULL),
                  E_NULL);
    EXPECT(*gpgpu_last_error(NULL) != '\0', "no message for out == NULL");
    EXPECT(r.calls == 1 && r.status == E_NULL,
           "out == NULL: the descriptor's callback was called %d times", r.calls);
    EXPECT_STATUS(NULL, gpgpu_context_create(NULL, NULL), E_NULL);
    EXPECT(earlier.calls == 1, "an earlier call's callback was called %d times", earlier.calls);
}

/* -------------------------------------------------------- context calls */

/* The backend GPGPU_BACKEND asks for, as gpgpu_info names it. */
static const char *backend_asked(void)
{
    const char *env = getenv("GPGPU_BACKEND");
    return env && strcmp(env, "vulkan") == 0 ? "vulkan" : "gl";
}

static void check_context_calls(gpgpu_context *ctx)
{
    EXPECT(strcmp(gpgpu_last_error(ctx), "") == 0, "a new context's last error is \"%s\"",
           gpgpu_last_error(ctx));
    gpgpu_info info;
    EXPECT_STATUS(NULL, gpgpu_context_get_info(NULL, &info), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_context_get_info(ctx, NULL), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_context_get_info");
    EXPECT_STATUS(ctx, gpgpu_context_get_info(ctx, &info), S_OK);
    bool vk = strcmp(info.backend, "vulkan") == 0;
    EXPECT(strcmp(info.backend, backend_asked()) == 0, "info: backend %s, GPGPU_BACKEND asks for %s",
           info.backend, backend_asked());
    EXPECT(info.storage_offset_alignment > 0 && info.max_storage_block_bytes > 0 &&
               info.max_storage_range_bytes > 0 &&
               info.max_workgroup_invocations >= 256 && info.platform && info.renderer &&
               info.vendor && info.version,
           "info: alignment %zu, storage block %zu, storage range %zu, work-group invocations %u",
           info.storage_offset_alignment, info.max_storage_block_bytes,
           info.max_storage_range_bytes, info.max_workgroup_invocations);
    EXPECT(vk ? info.version_major > 1 || (info.version_major == 1 && info.version_minor >= 1)
              : info.version_major >= 4,
           "info: %s %d.%d (%s)", info.backend, info.version_major, info.version_minor,
           info.version);
    EXPECT(vk ? strcmp(info.platform, "vulkan") == 0
              : strcmp(info.platform, "egl-device") == 0 ||
                    strcmp(info.platform, "egl-surfaceless") == 0 ||
                    strcmp(info.platform, "glfw") == 0,
           "info: platform %s of a headless %s context", info.platform, info.backend);
    EXPECT_STATUS(NULL, gpgpu_finish(NULL), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_finish(ctx), S_OK);
    gpgpu_context_destroy(NULL);
    gpgpu_buffer_destroy(NULL);
    EXPECT(gpgpu_buffer_size(NULL) == 0, "gpgpu_buffer_size(NULL) is not 0");
}

static void check_timer(gpgpu_context *ctx)
{
    double ns = -1;
    EXPECT_STATUS(NULL, gpgpu_timer_begin(NULL), E_NULL);
    EXPECT_STATUS(NULL, gpgpu_timer_end(NULL, &ns), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_timer_end(ctx, NULL), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_timer_end");
    EXPECT_STATUS(ctx, gpgpu_timer_end(ctx, &ns), E_INVALID); /* without begin */
    EXPECT_NAMED(ctx, "gpgpu_timer_end");
    EXPECT_STATUS(ctx, gpgpu_timer_begin(ctx), S_OK);
    EXPECT_STATUS(ctx, gpgpu_timer_begin(ctx), E_INVALID); /* twice */
    EXPECT_NAMED(ctx, "gpgpu_timer_begin");
    EXPECT_STATUS(ctx, gpgpu_timer_end(ctx, NULL), E_NULL); /* keeps the measurement */
    EXPECT_STATUS(ctx, gpgpu_timer_end(ctx, &ns), S_OK);
    EXPECT(ns >= 0, "gpu time %g ns", ns);
    EXPECT_STATUS(ctx, gpgpu_timer_end(ctx, &ns), E_INVALID); /* already ended */
    EXPECT_STATUS(ctx, gpgpu_timer_begin(ctx), S_OK);         /* a new one may start */
    EXPECT_STATUS(ctx, gpgpu_timer_end(ctx, &ns), S_OK);
}

/* -------------------------------------------------------------- buffers */

static void check_buffer_create(gpgpu_context *ctx)
{
    gpgpu_buffer *b = SENTINEL;
    EXPECT_STATUS(NULL, gpgpu_buffer_create(NULL, 4, &b), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, 4, NULL), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_buffer_create");
    static const struct {
        size_t bytes;
        gpgpu_status expected;
    } cases[] = {
        {0, E_INVALID}, {SIZE_MAX, E_OOM}, {(size_t)PTRDIFF_MAX + 1, E_OOM},
        {1, S_OK},      {5, S_OK},         {4096, S_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        b = SENTINEL;
        gpgpu_status s = gpgpu_buffer_create(ctx, cases[i].bytes, &b);
        EXPECT(s == cases[i].expected, "gpgpu_buffer_create(%zu) returned %d (%s), expected %d: %s",
               cases[i].bytes, (int)s, gpgpu_status_string(s), (int)cases[i].expected,
               gpgpu_last_error(ctx));
        if (s == S_OK) {
            EXPECT(gpgpu_buffer_size(b) == cases[i].bytes, "size %zu", gpgpu_buffer_size(b));
            gpgpu_buffer_destroy(b);
        } else {
            EXPECT(b == NULL, "gpgpu_buffer_create(%zu): *out is not NULL", cases[i].bytes);
        }
        if (s == E_INVALID)
            EXPECT_NAMED(ctx, "gpgpu_buffer_create");
    }
}

typedef struct range_case {
    size_t offset, bytes;
    gpgpu_status expected;
} range_case;

/* Against a 64-byte buffer. */
static const range_case transfer_cases[] = {
    {0, 64, S_OK},           {60, 4, S_OK},          {1, 3, S_OK},
    {64, 0, S_OK},           {0, 0, S_OK},           {65, 0, E_RANGE},
    {0, 65, E_RANGE},        {60, 8, E_RANGE},       {64, 1, E_RANGE},
    {SIZE_MAX, 1, E_RANGE},  {SIZE_MAX, 0, E_RANGE}, {4, SIZE_MAX, E_RANGE},
    {SIZE_MAX, SIZE_MAX, E_RANGE}, {64, SIZE_MAX - 63, E_RANGE}, {1, SIZE_MAX, E_RANGE},
};

static void check_transfers(gpgpu_context *ctx)
{
    uint8_t pattern[64], got[64], scratch[64];
    for (int i = 0; i < 64; i++)
        pattern[i] = (uint8_t)(i * 37 + 11);
    gpgpu_buffer *b = test_buffer(ctx, pattern, 64);
    for (size_t i = 0; i < sizeof transfer_cases / sizeof transfer_cases[0]; i++) {
        const range_case *c = &transfer_cases[i];
        /* A successful upload writes what is there already. */
        const void *src = c->expected == S_OK ? pattern + c->offset : pattern;
        gpgpu_status s = gpgpu_buffer_upload(b, c->offset, src, c->bytes);
        EXPECT(s == c->expected, "upload [%zu, +%zu) returned %d (%s), expected %d", c->offset,
               c->bytes, (int)s, gpgpu_status_string(s), (int)c->expected);
        if (s != S_OK)
            EXPECT_NAMED(ctx, "gpgpu_buffer_upload");
        s = gpgpu_buffer_download(b, c->offset, scratch, c->bytes);
        EXPECT(s == c->expected, "download [%zu, +%zu) returned %d (%s), expected %d",
               c->offset, c->bytes, (int)s, gpgpu_status_string(s), (int)c->expected);
        if (s != S_OK)
            EXPECT_NAMED(ctx, "gpgpu_buffer_download");
        else
            EXPECT(memcmp(scratch, pattern + c->offset, c->bytes) == 0,
                   "download [%zu, +%zu) differs", c->offset, c->bytes);
    }
    EXPECT_STATUS(NULL, gpgpu_buffer_upload(NULL, 0, pattern, 4), E_NULL);
    EXPECT_STATUS(NULL, gpgpu_buffer_download(NULL, 0, got, 4), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(b, 0, NULL, 4), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_buffer_upload");
    EXPECT_STATUS(ctx, gpgpu_buffer_download(b, 0, NULL, 4), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_buffer_download");
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(b, 0, NULL, 0), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(b, 0, NULL, 0), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(b, 0, got, 64), S_OK);
    EXPECT(memcmp(got, pattern, 64) == 0, "failed uploads changed the buffer");
    gpgpu_buffer_destroy(b);
}

typedef struct copy_case {
    bool same; /* copy within one buffer */
    size_t src_off, dst_off, bytes;
    gpgpu_status expected;
} copy_case;

/* Between 64-byte buffers. */
static const copy_case copy_cases[] = {
    {false, 0, 0, 64, S_OK},       {false, 4, 8, 52, S_OK},        {false, 0, 0, 0, S_OK},
    {false, 64, 64, 0, S_OK},      {true, 0, 32, 32, S_OK},        {true, 32, 0, 32, S_OK},
    {true, 8, 8, 0, S_OK},         {false, 2, 0, 4, E_ALIGN},      {false, 0, 2, 4, E_ALIGN},
    {false, 0, 0, 6, E_ALIGN},     {false, 1, 1, 1, E_ALIGN},      {false, 4, 0, 64, E_RANGE},
    {false, 0, 4, 64, E_RANGE},    {false, 68, 0, 0, E_RANGE},     {false, 0, 68, 0, E_RANGE},
    {false, SIZE_MAX - 3, 0, 4, E_RANGE}, {false, 0, SIZE_MAX - 3, 4, E_RANGE},
    {false, 4, 0, SIZE_MAX - 3, E_RANGE}, {false, 64, 0, SIZE_MAX - 63, E_RANGE},
    {true, 0, 4, 8, E_OVERLAP},    {true, 4, 0, 8, E_OVERLAP},     {true, 0, 0, 4, E_OVERLAP},
    {true, 0, 28, 32, E_OVERLAP},  {true, 32, 4, 32, E_OVERLAP},
};

static void check_copy(gpgpu_context *ctx)
{
    uint32_t data[16];
    test_random(GPGPU_TYPE_U32, data, 16, 1);
    gpgpu_buffer *a = test_buffer(ctx, data, 64), *b = test_buffer(ctx, NULL, 64);
    for (size_t i = 0; i < sizeof copy_cases / sizeof copy_cases[0]; i++) {
        const copy_case *c = &copy_cases[i];
        gpgpu_status s = gpgpu_buffer_copy(a, c->src_off, c->same ? a : b, c->dst_off, c->bytes);
        EXPECT(s == c->expected, "copy %s [%zu] -> [%zu] of %zu bytes returned %d (%s), expected %d",
               c->same ? "within a buffer" : "between buffers", c->src_off, c->dst_off, c->bytes,
               (int)s, gpgpu_status_string(s), (int)c->expected);
        if (s != S_OK)
            EXPECT_NAMED(ctx, "gpgpu_buffer_copy");
    }
    /* The successful copies within a moved halves around; between, b got a. */
    uint32_t got[16];
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, 0, b, 0, 64), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(a, 0, data, 64), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_copy(a, 8, b, 4, 16), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(b, 4, got, 16), S_OK);
    EXPECT(memcmp(got, data + 2, 16) == 0, "gpgpu_buffer_copy moved the wrong bytes");
    EXPECT_STATUS(NULL, gpgpu_buffer_copy(NULL, 0, b, 0, 4), E_NULL);
    EXPECT_STATUS(NULL, gpgpu_buffer_copy(a, 0, NULL, 0, 4), E_NULL);
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
}

/* --------------------------------------------------------------- reduce */

typedef struct reduce_case {
    gpgpu_reduce_desc desc;
    size_t offset, count;
    gpgpu_status expected;
} reduce_case;

/* Against a 64-byte buffer: 16 u32 or 8 f64. */
static const reduce_case reduce_cases[] = {
    {{U32, SUM, GPGPU_ALGO_DEFAULT}, 0, 16, S_OK},
    {{U32, MINMAX, GPGPU_ALGO_CLASSIC_MINMAX}, 3, 13, S_OK},
    {{U32, MIN, GPGPU_ALGO_CLASSIC_HALVING}, 0, 16, S_OK},
    {{U32, MAX, GPGPU_ALGO_CLASSIC_STRIDE}, 0, 16, S_OK},
    {{F64, SUM, GPGPU_ALGO_FAST}, 0, 8, S_OK},
    {{(gpgpu_type)0, SUM, 0}, 0, 1, E_INVALID},
    {{(gpgpu_type)5, SUM, 0}, 0, 1, E_INVALID},
    {{(gpgpu_type)-1, SUM, 0}, 0, 1, E_INVALID},
    {{U32, (gpgpu_op)0, 0}, 0, 1, E_INVALID},
    {{U32, (gpgpu_op)5, 0}, 0, 1, E_INVALID},
    {{U32, (gpgpu_op)-1, 0}, 0, 1, E_INVALID},
    {{U32, SUM, GPGPU_ALGO_CLASSIC_NETSORT}, 0, 1, E_COMBO},
    {{U32, SUM, (gpgpu_algo)23}, 0, 1, E_INVALID},
    {{U32, SUM, (gpgpu_algo)-1}, 0, 1, E_INVALID},
    {{U32, SUM, GPGPU_ALGO_CLASSIC_MINMAX}, 0, 1, E_COMBO},
    {{U32, MIN, GPGPU_ALGO_CLASSIC_MINMAX}, 0, 1, E_COMBO},
    {{U32, MAX, GPGPU_ALGO_CLASSIC_MINMAX}, 0, 1, E_COMBO},
    {{U32, SUM, GPGPU_ALGO_CLASSIC_SCAN}, 0, 1, E_COMBO},
    {{U32, MINMAX, GPGPU_ALGO_CLASSIC_SCAN}, 0, 1, E_COMBO},
    {{U32, SUM, GPGPU_ALGO_SCAN_SINGLE_PASS}, 0, 1, E_COMBO},
    {{U32, SUM, GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN}, 0, 1, E_COMBO},
    {{U32, SUM, 0}, 0, 17, E_RANGE},
    {{U32, SUM, 0}, 15, 2, E_RANGE},
    {{U32, SUM, 0}, 17, 0, E_RANGE},
    {{U32, SUM, 0}, SIZE_MAX, 1, E_RANGE},
    {{U32, SUM, 0}, SIZE_MAX, 0, E_RANGE},
    {{U32, SUM, 0}, 1, SIZE_MAX, E_RANGE},
    {{U32, SUM, 0}, SIZE_MAX, SIZE_MAX, E_RANGE},
    {{U32, SUM, 0}, 16, SIZE_MAX - 15, E_RANGE}, /* offset + count wraps to 0 */
    {{U32, MINMAX, GPGPU_ALGO_CLASSIC_MINMAX}, 8, 9, E_RANGE},
    {{F64, SUM, 0}, 0, 9, E_RANGE},
    {{F64, SUM, 0}, 4, 5, E_RANGE},
};

static void check_reduce_errors(gpgpu_context *ctx)
{
    gpgpu_buffer *b = test_buffer(ctx, NULL, 64);
    double result[2];
    for (size_t i = 0; i < sizeof reduce_cases / sizeof reduce_cases[0]; i++) {
        const reduce_case *c = &reduce_cases[i];
        gpgpu_status s = gpgpu_reduce(ctx, &c->desc, b, c->offset, c->count, result);
        EXPECT(s == c->expected,
               "reduce case %zu (type %d op %d algo %d, [%zu, +%zu)) returned %d (%s), expected %d: %s",
               i, (int)c->desc.type, (int)c->desc.op, (int)c->desc.algo, c->offset, c->count,
               (int)s, gpgpu_status_string(s), (int)c->expected, gpgpu_last_error(ctx));
        if (s != S_OK)
            EXPECT_NAMED(ctx, "gpgpu_reduce");
    }
    const gpgpu_reduce_desc ok = {U32, SUM, 0};
    EXPECT_STATUS(NULL, gpgpu_reduce(NULL, &ok, b, 0, 1, result), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, NULL, b, 0, 1, result), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_reduce");
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &ok, NULL, 0, 1, result), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_reduce");
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &ok, b, 0, 1, NULL), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_reduce");
    gpgpu_buffer *out = test_buffer(ctx, NULL, 64);
    EXPECT_STATUS(NULL, gpgpu_reduce_to_buffer(NULL, &ok, b, 0, 1, out, 0), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, NULL, b, 0, 1, out, 0), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &ok, NULL, 0, 1, out, 0), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &ok, b, 0, 1, NULL, 0), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_reduce_to_buffer");
    /* The desc's checks are gpgpu_reduce's; the output's range is its own. */
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &(gpgpu_reduce_desc){U32, (gpgpu_op)9, 0}, b, 0,
                                              1, out, 0),
                  E_INVALID);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &(gpgpu_reduce_desc){U32, MINMAX, 0}, b, 0, 1,
                                              out, 15),
                  E_RANGE); /* two elements from 15 of 16 */
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &ok, b, 0, 16, b, 3), E_OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_reduce_to_buffer(ctx, &ok, b, 0, 15, b, 15), S_OK);
    gpgpu_buffer_destroy(out);
    gpgpu_buffer_destroy(b);

    /* A buffer whose size is no multiple of the element size: 6 bytes hold one u32. */
    gpgpu_buffer *odd = test_buffer(ctx, NULL, 6);
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &ok, odd, 0, 1, result), S_OK);
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &ok, odd, 0, 2, result), E_RANGE);
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){F64, SUM, 0}, odd, 0, 1, result),
                  E_RANGE);
    gpgpu_buffer_destroy(odd);
}

/* ----------------------------------------------------------------- scan */

typedef struct scan_case {
    gpgpu_scan_desc desc;
    bool same; /* out is in */
    size_t in_off, out_off, count;
    gpgpu_status expected;
} scan_case;

#define INCL(a) {.type = U32, .exclusive = false, .algo = (a)}
#define EXCL(a) {.type = U32, .exclusive = true, .algo = (a)}

/* Against 64-byte buffers: 16 u32. */
static const scan_case scan_cases[] = {
    {INCL(0), false, 0, 0, 16, S_OK},
    {EXCL(CLASSIC), false, 3, 5, 11, S_OK},
    {INCL(FAST), true, 2, 2, 14, S_OK},          /* in place */
    {EXCL(CLASSIC), true, 0, 0, 16, S_OK},
    {INCL(FAST), true, 0, 4, 4, S_OK},           /* adjacent ranges */
    {INCL(CLASSIC), true, 8, 4, 4, S_OK},
    {INCL(FAST), true, 0, 1, 0, S_OK},           /* empty ranges never overlap */
    {{.type = (gpgpu_type)0}, false, 0, 0, 1, E_INVALID},
    {{.type = (gpgpu_type)5}, false, 0, 0, 1, E_INVALID},
    {INCL(GPGPU_ALGO_CLASSIC_NETSORT), false, 0, 0, 1, E_COMBO},
    {INCL((gpgpu_algo)-1), false, 0, 0, 1, E_INVALID},
    {INCL(GPGPU_ALGO_GEMM_COOPMAT_F16), false, 0, 0, 1, E_COMBO},
    {INCL((gpgpu_algo)23), false, 0, 0, 1, E_INVALID},
    {INCL(GPGPU_ALGO_SCAN_SINGLE_PASS), true, 0, 0, 16, S_OK},
    {EXCL(GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN), false, 0, 0, 16, S_OK},
    {INCL(GPGPU_ALGO_CLASSIC_HALVING), false, 0, 0, 1, E_COMBO},
    {INCL(GPGPU_ALGO_CLASSIC_STRIDE), false, 0, 0, 1, E_COMBO},
    {EXCL(GPGPU_ALGO_CLASSIC_MINMAX), false, 0, 0, 1, E_COMBO},
    {INCL(0), false, 10, 0, 7, E_RANGE},
    {INCL(0), false, 0, 10, 7, E_RANGE},
    {INCL(0), false, 17, 0, 0, E_RANGE},
    {INCL(0), false, 0, 17, 0, E_RANGE},
    {INCL(0), false, SIZE_MAX, 0, 1, E_RANGE},
    {INCL(0), false, 0, SIZE_MAX, 1, E_RANGE},
    {INCL(0), false, 0, 0, SIZE_MAX, E_RANGE},
    {INCL(0), false, 16, 0, SIZE_MAX - 15, E_RANGE},
    {INCL(CLASSIC), true, SIZE_MAX, SIZE_MAX, 1, E_RANGE},
    {INCL(FAST), true, 0, 1, 4, E_OVERLAP},
    {INCL(FAST), true, 4, 1, 4, E_OVERLAP},
    {EXCL(FAST), true, 0, 3, 4, E_OVERLAP},
    {INCL(CLASSIC), true, 0, 1, 4, E_OVERLAP},
    {EXCL(CLASSIC), true, 1, 0, 15, E_OVERLAP},
};

static void check_scan_errors(gpgpu_context *ctx)
{
    gpgpu_buffer *a = test_buffer(ctx, NULL, 64), *b = test_buffer(ctx, NULL, 64);
    for (size_t i = 0; i < sizeof scan_cases / sizeof scan_cases[0]; i++) {
        const scan_case *c = &scan_cases[i];
        gpgpu_status s = gpgpu_scan(ctx, &c->desc, a, c->in_off, c->same ? a : b, c->out_off,
                                    c->count);
        EXPECT(s == c->expected,
               "scan case %zu (algo %d, %s [%zu] -> [%zu] x %zu) returned %d (%s), expected %d: %s",
               i, (int)c->desc.algo, c->same ? "same buffer" : "two buffers", c->in_off,
               c->out_off, c->count, (int)s, gpgpu_status_string(s), (int)c->expected,
               gpgpu_last_error(ctx));
        if (s != S_OK)
            EXPECT_NAMED(ctx, "gpgpu_scan");
    }
    const gpgpu_scan_desc ok = INCL(0);
    EXPECT_STATUS(NULL, gpgpu_scan(NULL, &ok, a, 0, b, 0, 1), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, NULL, a, 0, b, 0, 1), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_scan");
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &ok, NULL, 0, b, 0, 1), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_scan");
    EXPECT_STATUS(ctx, gpgpu_scan(ctx, &ok, a, 0, NULL, 0, 1), E_NULL);
    EXPECT_NAMED(ctx, "gpgpu_scan");
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
}

/* ---------------------------------------------------------- empty input */

static void identity(gpgpu_type type, gpgpu_op op, void *out)
{
    for (int k = 0; k < (op == MINMAX ? 2 : 1); k++) {
        bool largest = op == MIN || (op == MINMAX && k == 0);
        void *p = (char *)out + k * gpgpu_type_size(type);
        switch (type) {
        case GPGPU_TYPE_U32: *(uint32_t *)p = op == SUM ? 0 : largest ? UINT32_MAX : 0; break;
        case GPGPU_TYPE_I32: *(int32_t *)p = op == SUM ? 0 : largest ? INT32_MAX : INT32_MIN; break;
        case GPGPU_TYPE_F32: *(float *)p = op == SUM ? 0.0f : largest ? INFINITY : -INFINITY; break;
        case GPGPU_TYPE_F64:
            *(double *)p = op == SUM ? 0.0 : largest ? (double)INFINITY : -(double)INFINITY;
            break;
        }
    }
}

static void check_empty_reduce(gpgpu_context *ctx, gpgpu_buffer *b, size_t at_end)
{
    static const gpgpu_algo algos[] = {GPGPU_ALGO_DEFAULT, GPGPU_ALGO_FAST,
                                       GPGPU_ALGO_CLASSIC_HALVING, GPGPU_ALGO_CLASSIC_STRIDE,
                                       GPGPU_ALGO_CLASSIC_MINMAX};
    for (gpgpu_type t = U32; t <= F64; t++)
        for (gpgpu_op op = SUM; op <= MINMAX; op++)
            for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
                if (algos[a] == GPGPU_ALGO_CLASSIC_MINMAX && op != MINMAX)
                    continue;
                uint8_t got[16], want[16];
                test_poison(got, sizeof got);
                memcpy(want, got, sizeof want);
                identity(t, op, want);
                size_t offset = t == F64 ? at_end / 2 : at_end;
                EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &(gpgpu_reduce_desc){t, op, algos[a]}, b,
                                                offset, 0, got),
                              S_OK);
                EXPECT(memcmp(got, want, sizeof got) == 0,
                       "empty reduce of %s, op %d, algo %d is not the identity", gpgpu_type_name(t),
                       (int)op, (int)algos[a]);
            }
}

static void check_empty_scan(gpgpu_context *ctx, gpgpu_buffer *a, gpgpu_buffer *b)
{
    static const gpgpu_algo algos[] = {GPGPU_ALGO_DEFAULT, FAST, CLASSIC};
    for (gpgpu_type t = U32; t <= F64; t++)
        for (size_t k = 0; k < 3; k++)
            for (int exclusive = 0; exclusive < 2; exclusive++) {
                gpgpu_scan_desc d = {.type = t, .exclusive = exclusive, .algo = algos[k]};
                EXPECT_STATUS(ctx, gpgpu_scan(ctx, &d, a, 0, b, 0, 0), S_OK);
                EXPECT_STATUS(ctx, gpgpu_scan(ctx, &d, a, 3, a, 3, 0), S_OK);
                EXPECT_STATUS(ctx, gpgpu_scan(ctx, &d, a, 0, a, 1, 0), S_OK);
                EXPECT_STATUS(ctx, gpgpu_scan(ctx, &d, a, 64 / gpgpu_type_size(t), b, 0, 0), S_OK);
            }
}

static void check_empty(gpgpu_context *ctx)
{
    uint8_t poison[64], got[64];
    test_poison(poison, sizeof poison);
    gpgpu_buffer *a = test_buffer(ctx, NULL, 64), *b = test_buffer(ctx, NULL, 64);
    check_empty_reduce(ctx, a, 0);
    check_empty_reduce(ctx, a, 16); /* offset == element count: still in range */
    check_empty_scan(ctx, a, b);
    EXPECT_STATUS(ctx, gpgpu_buffer_download(a, 0, got, 64), S_OK);
    EXPECT(memcmp(got, poison, 64) == 0, "an empty scan changed its input buffer");
    EXPECT_STATUS(ctx, gpgpu_buffer_download(b, 0, got, 64), S_OK);
    EXPECT(memcmp(got, poison, 64) == 0, "an empty scan changed its output buffer");
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
}

/* ---------------------------------------------------- wrapped GL buffers */

/* A Vulkan context has no GL buffers to wrap; the argument checks come first. */
static void check_wrap_gl_elsewhere(gpgpu_context *ctx)
{
    gpgpu_buffer *w = SENTINEL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, 1, 0, 16, &w), E_INVALID);
    EXPECT(w == NULL, "wrap_gl on a %s context: *out is not NULL", backend_asked());
    EXPECT_NAMED(ctx, "gpgpu_buffer_wrap_gl");
    w = SENTINEL;
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, 1, 4, 4096, &w), E_INVALID);
    EXPECT(w == NULL, "wrap_gl on a %s context: *out is not NULL", backend_asked());
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, 1, 0, 0, &w), E_INVALID);
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, 1, 2, 4, &w), E_ALIGN);
    EXPECT_STATUS(ctx, gpgpu_buffer_wrap_gl(ctx, 1, 0, 4, NULL), E_NULL);
    EXPECT_STATUS(NULL, gpgpu_buffer_wrap_gl(NULL, 1, 0, 4, &w), E_NULL);
}


#ifndef GPGPU_HAVE_GL
/* Without the GL backend, GPGPU_BACKEND unset means Vulkan. */
static void check_default_backend(void)
{
    char *saved = swap_env("GPGPU_BACKEND", NULL);
    gpgpu_context *ctx = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(NULL, &ctx), S_OK);
    gpgpu_info info = {0};
    if (ctx)
        EXPECT_STATUS(ctx, gpgpu_context_info(ctx, &info), S_OK);
    EXPECT(info.backend && strcmp(info.backend, "vulkan") == 0,
           "the default backend of a build without GL is %s", info.backend ? info.backend : "none");
    gpgpu_context_destroy(ctx);
    restore_env("GPGPU_BACKEND", saved);
}
#endif

/* ------------------------------------------------------ several contexts */

/* A 4 x 4 f32 matrix (2 on the diagonal) of ctx. */
static gpgpu_matrix *small_matrix(gpgpu_context *ctx)
{
    uint32_t row_ptr[5] = {0, 1, 2, 3, 4}, col_idx[4] = {0, 1, 2, 3};
    double values[4] = {2, 2, 2, 2};
    gpgpu_matrix *m = NULL;
    EXPECT_STATUS(ctx, gpgpu_matrix_create(ctx, &(gpgpu_matrix_desc){.type = GPGPU_TYPE_F32},
                                           &(gpgpu_csr){4, 4, 4, row_ptr, col_idx, values}, &m),
                  S_OK);
    return m;
}

/* One rule for the algorithm of every primitive, whatever the enum's order: each algorithm
 * value is run or refused with GPGPU_ERROR_UNSUPPORTED_COMBINATION ("another primitive's
 * algorithm"), and a value that names none is GPGPU_ERROR_INVALID_ARGUMENT. `runs` is the
 * primitive's own set (DEFAULT and FAST always run). */
enum { PRIM_REDUCE, PRIM_SCAN, PRIM_SORT, PRIM_SPMV, PRIM_SPGEMM, PRIM_GEMM, PRIM_COUNT };

static gpgpu_status call_with_algo(gpgpu_context *ctx, int prim, gpgpu_algo algo,
                                   gpgpu_buffer *a, gpgpu_buffer *b, gpgpu_matrix *m)
{
    gpgpu_matrix *c = NULL;
    gpgpu_status s;
    switch (prim) {
    case PRIM_REDUCE:
        return gpgpu_reduce(ctx, &(gpgpu_reduce_desc){.type = GPGPU_TYPE_F32, .op = GPGPU_OP_MINMAX,
                                                      .algo = algo},
                            a, 0, 16, (float[2]){0});
    case PRIM_SCAN:
        return gpgpu_scan(ctx, &(gpgpu_scan_desc){.type = GPGPU_TYPE_F32, .algo = algo}, a, 0, b, 0, 16);
    case PRIM_SORT:
        return gpgpu_sort(ctx, &(gpgpu_sort_desc){.type = GPGPU_TYPE_F32, .algo = algo}, a, 0, b, 0, 16);
    case PRIM_SPMV:
        return gpgpu_spmv(ctx, &(gpgpu_spmv_desc){.algo = algo}, 1, m, a, 0, 0, b, 0);
    case PRIM_SPGEMM:
        s = gpgpu_spgemm(ctx, &(gpgpu_spgemm_desc){.algo = algo}, m, m, &c, NULL);
        gpgpu_matrix_destroy(c);
        return s;
    default:
        return gpgpu_gemm(ctx, &(gpgpu_gemm_desc){.type = GPGPU_TYPE_F32, .algo = algo}, 2, 2, 2, 1, a, 0,
                          a, 4, 0, b, 0);
    }
}

static bool info_has_coopmat(gpgpu_context *ctx)
{
    gpgpu_info info;
    return gpgpu_context_get_info(ctx, &info) == S_OK && info.has_coopmat_f16;
}

static void check_algorithm_rule(gpgpu_context *ctx)
{
    static const gpgpu_algo runs[PRIM_COUNT][6] = {
        [PRIM_REDUCE] = {GPGPU_ALGO_CLASSIC_HALVING, GPGPU_ALGO_CLASSIC_STRIDE,
                         GPGPU_ALGO_CLASSIC_MINMAX},
        [PRIM_SCAN] = {GPGPU_ALGO_CLASSIC_SCAN, GPGPU_ALGO_SCAN_SINGLE_PASS,
                       GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN},
        [PRIM_SORT] = {GPGPU_ALGO_CLASSIC_NETSORT, GPGPU_ALGO_BITONIC, GPGPU_ALGO_RADIX},
        [PRIM_SPMV] = {GPGPU_ALGO_CLASSIC_SPMV, GPGPU_ALGO_SPMV_SCALAR, GPGPU_ALGO_SPMV_VECTOR,
                       GPGPU_ALGO_SPMV_BALANCED},
        [PRIM_SPGEMM] = {GPGPU_ALGO_CLASSIC_SPGEMM, GPGPU_ALGO_SPGEMM_ROWS,
                         GPGPU_ALGO_SPGEMM_ESC},
        [PRIM_GEMM] = {GPGPU_ALGO_GEMM_METHOD1, GPGPU_ALGO_GEMM_METHOD2, GPGPU_ALGO_GEMM_METHOD6,
                       GPGPU_ALGO_GEMM_TILED},
    };
    static const char *const names[PRIM_COUNT] = {"reduce", "scan", "sort", "spmv", "spgemm",
                                                  "gemm"};
    float data[16];
    for (int i = 0; i < 16; i++)
        data[i] = (float)(16 - i);
    gpgpu_buffer *a = NULL, *b = NULL;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, sizeof data, &a), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, sizeof data, &b), S_OK);
    EXPECT_STATUS(ctx, gpgpu_buffer_upload(a, 0, data, sizeof data), S_OK);
    gpgpu_matrix *m = small_matrix(ctx);
    for (int prim = 0; prim < PRIM_COUNT; prim++) {
        /* The last named algorithm and one past it, and a negative value. */
        for (int v = -1; v <= GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN + 1; v++) {
            gpgpu_algo algo = (gpgpu_algo)v;
            bool own = v == GPGPU_ALGO_DEFAULT || v == GPGPU_ALGO_FAST;
            for (int k = 0; k < 6 && !own; k++)
                own = runs[prim][k] == algo && algo != GPGPU_ALGO_DEFAULT;
            bool named = v >= 0 && v <= GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN;
            gpgpu_status got = call_with_algo(ctx, prim, algo, a, b, m);
            gpgpu_status want = own ? S_OK : named ? E_COMBO : E_INVALID;
            /* The cooperative-matrix product is the dense product's own, where the device has
             * the matrix units. */
            if (prim == PRIM_GEMM && algo == GPGPU_ALGO_GEMM_COOPMAT_F16) {
                own = true;
                want = info_has_coopmat(ctx) ? S_OK : GPGPU_ERROR_UNSUPPORTED_FEATURE;
            }
            EXPECT(got == want, "%s with algorithm %d: %s, expected %s: %s", names[prim], v,
                   gpgpu_status_string(got), gpgpu_status_string(want), gpgpu_last_error(ctx));
            if (!own && named)
                EXPECT(strstr(gpgpu_last_error(ctx), "another primitive's algorithm"),
                       "%s with algorithm %d: %s", names[prim], v, gpgpu_last_error(ctx));
        }
    }
    gpgpu_matrix_destroy(m);
    gpgpu_buffer_destroy(a);
    gpgpu_buffer_destroy(b);
}

/* Every call of c2 that takes buffers or matrices refuses one of another context, in
 * each place it takes one (16-element buffers; `mine` and `mine_m` are not c2's). */
static void check_foreign_arguments(gpgpu_context *c2, gpgpu_buffer *mine, gpgpu_buffer *theirs,
                                    gpgpu_matrix *mine_m, gpgpu_matrix *theirs_m)
{
    const gpgpu_reduce_desc sum = {U32, SUM, 0};
    EXPECT_STATUS(c2, gpgpu_reduce_to_buffer(c2, &sum, mine, 0, 4, theirs, 0), E_INVALID);
    EXPECT_STATUS(c2, gpgpu_reduce_to_buffer(c2, &sum, theirs, 0, 4, mine, 0), E_INVALID);
    const gpgpu_sort_desc keys = {.type = U32};
    EXPECT_STATUS(c2, gpgpu_sort(c2, &keys, mine, 0, NULL, 0, 4), E_INVALID);
    EXPECT_STATUS(c2, gpgpu_sort(c2, &keys, theirs, 0, mine, 0, 4), E_INVALID);
    EXPECT_STATUS(c2, gpgpu_sort(c2, &(gpgpu_sort_desc){.type = U32, .values_in = mine}, theirs,
                                 0, NULL, 0, 4),
                  E_INVALID);
    EXPECT_STATUS(c2, gpgpu_sort(c2, &(gpgpu_sort_desc){.type = U32, .values_in = theirs,
                                                        .values_in_offset = 8, .values_out = mine},
                                 theirs, 0, NULL, 0, 4),
                  E_INVALID);
    EXPECT_STATUS(c2, gpgpu_sort(c2, &(gpgpu_sort_desc){.type = U32, .segments = mine,
                                                        .segment_count = 1},
                                 theirs, 0, NULL, 0, 4),
                  E_INVALID);
    EXPECT_STATUS(c2, gpgpu_sort(c2, &(gpgpu_sort_desc){.type = U32, .stable = true,
                                                        .algo = GPGPU_ALGO_BITONIC,
                                                        .scratch = mine},
                                 theirs, 0, NULL, 0, 4),
                  E_INVALID);
    const gpgpu_type f32 = GPGPU_TYPE_F32;
    EXPECT_STATUS(c2, gpgpu_axpby(c2, f32, 4, 1, mine, 0, 1, theirs, 8), E_INVALID);
    EXPECT_STATUS(c2, gpgpu_axpby(c2, f32, 4, 1, theirs, 8, 1, mine, 0), E_INVALID);
    double dot = 0;
    EXPECT_STATUS(c2, gpgpu_dot(c2, f32, 4, mine, 0, theirs, 0, &dot), E_INVALID);
    EXPECT_STATUS(c2, gpgpu_dot(c2, f32, 4, theirs, 0, mine, 0, &dot), E_INVALID);
    EXPECT_STATUS(c2, gpgpu_axpby_dot(c2, f32, 4, 1, mine, 0, 1, theirs, 0, theirs, 8, &dot),
                  E_INVALID);
    EXPECT_STATUS(c2, gpgpu_axpby_dot(c2, f32, 4, 1, theirs, 8, 1, mine, 0, theirs, 0, &dot),
                  E_INVALID);
    EXPECT_STATUS(c2, gpgpu_axpby_dot(c2, f32, 4, 1, theirs, 8, 1, theirs, 0, mine, 0, &dot),
                  E_INVALID);
    const gpgpu_spmv_desc d = {0};
    if (mine_m && theirs_m) {
        EXPECT_STATUS(c2, gpgpu_spmv(c2, &d, 1, theirs_m, mine, 0, 0, theirs, 8), E_INVALID);
        EXPECT_STATUS(c2, gpgpu_spmv(c2, &d, 1, theirs_m, theirs, 8, 0, mine, 0), E_INVALID);
        EXPECT_STATUS(c2, gpgpu_spmv(c2, &d, 1, mine_m, theirs, 0, 0, theirs, 8), E_INVALID);
        EXPECT_STATUS(c2, gpgpu_spmv_tune(c2, mine_m, NULL, NULL, NULL), E_INVALID);
        gpgpu_matrix *t = SENTINEL;
        EXPECT_STATUS(c2, gpgpu_matrix_transpose(c2, mine_m, &t), E_INVALID);
    }
    gpgpu_matrix *w = SENTINEL;
    const gpgpu_matrix_desc f32_desc = {.type = f32};
    EXPECT_STATUS(c2, gpgpu_matrix_wrap_csr(c2, &f32_desc, 2, 2, 2, mine, 0, theirs, 0, theirs, 4,
                                            &w),
                  E_INVALID);
    EXPECT_STATUS(c2, gpgpu_matrix_wrap_csr(c2, &f32_desc, 2, 2, 2, theirs, 0, mine, 0, theirs, 4,
                                            &w),
                  E_INVALID);
    EXPECT_STATUS(c2, gpgpu_matrix_wrap_csr(c2, &f32_desc, 2, 2, 2, theirs, 0, theirs, 4, mine, 0,
                                            &w),
                  E_INVALID);
    EXPECT(w == NULL, "a refused wrap of another context's buffer left *out set");
}

static void check_second_context(gpgpu_context *ctx)
{
    uint32_t data[16];
    test_random(U32, data, 16, 7);
    uint32_t want = 0, got = 0;
    for (int i = 0; i < 16; i++)
        want += data[i];
    gpgpu_buffer *mine = test_buffer(ctx, data, 64);

    cb_record r = {0};
    gpgpu_context *c2 = NULL;
    EXPECT_STATUS(NULL, gpgpu_context_create(&(gpgpu_context_desc){.error_callback = record_error,
                                                                    .user_data = &r},
                                             &c2),
                  S_OK);
    if (!c2)
        return;
    gpgpu_buffer *theirs = test_buffer(c2, data, 64);
    const gpgpu_reduce_desc sum = {U32, SUM, 0};
    EXPECT(r.calls == 0, "the callback was called %d times without a failure", r.calls);
    EXPECT_STATUS(c2, gpgpu_reduce(c2, &sum, mine, 0, 16, &got), E_INVALID);
    EXPECT(r.calls == 1 && r.status == E_INVALID && strcmp(r.message, gpgpu_last_error(c2)) == 0,
           "callback: %d calls, status %d, message \"%s\"", r.calls, (int)r.status, r.message);
    EXPECT_NAMED(c2, "gpgpu_reduce");
    EXPECT_STATUS(c2, gpgpu_scan(c2, &(gpgpu_scan_desc){.type = U32, .exclusive = false, .algo = 0}, theirs, 0, mine, 0, 16),
                  E_INVALID);
    EXPECT_STATUS(c2, gpgpu_buffer_copy(theirs, 0, mine, 0, 16), E_INVALID);
    EXPECT_STATUS(c2, gpgpu_timer_end(c2, &(double){0}), E_INVALID);
    EXPECT(r.calls == 4 && r.status == E_INVALID, "callback: %d calls", r.calls);

    EXPECT_STATUS(c2, gpgpu_reduce(c2, &sum, theirs, 0, 16, &got), S_OK);
    EXPECT(got == want && r.calls == 4, "second context: sum %u (expected %u), %d callbacks", got,
           want, r.calls);
    gpgpu_matrix *mine_m = small_matrix(ctx), *theirs_m = small_matrix(c2);
    check_foreign_arguments(c2, mine, theirs, mine_m, theirs_m);
    uint32_t back[16];
    EXPECT_STATUS(c2, gpgpu_buffer_download(theirs, 0, back, 64), S_OK);
    EXPECT(memcmp(back, data, 64) == 0, "a refused call changed the other context's buffer");
    gpgpu_matrix_destroy(theirs_m);
    gpgpu_matrix_destroy(mine_m);
    EXPECT(strcmp(gpgpu_last_error(ctx), gpgpu_last_error(c2)) != 0 ||
               strcmp(gpgpu_last_error(ctx), "") == 0,
           "the contexts share their last error");
    gpgpu_buffer_destroy(theirs);
    gpgpu_context_destroy(c2);

    /* Destroying one headless context leaves the other working. */
    got = 0;
    EXPECT_STATUS(ctx, gpgpu_reduce(ctx, &sum, mine, 0, 16, &got), S_OK);
    EXPECT(got == want, "after destroying a second context: sum %u, expected %u", got, want);
    gpgpu_buffer_destroy(mine);
}

int main(void)
{
    check_status_strings();
    check_type_names();

    /* Which backend this run is on, from a first context (or skip); none is
     * current once it is gone, as the adopt case below needs. */
    gpgpu_context *ctx = test_context();
    gpgpu_info info;
    EXPECT_STATUS(ctx, gpgpu_context_get_info(ctx, &info), S_OK);
    bool is_gl = strcmp(info.backend, "gl") == 0;
    gpgpu_context_destroy(ctx);
    check_create_failures(is_gl);

    ctx = test_context();
#ifdef GPGPU_HAVE_GL
    if (is_gl && !gladLoadGLContext(&gl, (GLADloadfunc)eglGetProcAddress)) {
        fprintf(stderr, "the test cannot load GL functions for its own buffers\n");
        return 1;
    }
#else
    check_default_backend();
#endif
    check_context_calls(ctx);
    check_timer(ctx);
    check_buffer_create(ctx);
    check_transfers(ctx);
    check_copy(ctx);
    check_reduce_errors(ctx);
    check_scan_errors(ctx);
    check_algorithm_rule(ctx);
    check_empty(ctx);
    if (is_gl) {
#ifdef GPGPU_HAVE_GL
        check_wrap_errors(ctx);
        check_wrapped(ctx);
        check_adopt(ctx);
        check_adopt_debug(ctx);
#endif
    } else {
        check_wrap_gl_elsewhere(ctx);
    }
    check_second_context(ctx); /* last: it switches the current GL context */
    gpgpu_context_destroy(ctx);
    return test_finish();
}
