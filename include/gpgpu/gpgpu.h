/**
 * @file gpgpu.h
 * @brief libgpgpu: GPU compute primitives on OpenGL 4.5 compute shaders, with
 * Vulkan as a second backend (see gpgpu/vulkan.h).
 *
 * One context, buffers that the library owns or that wrap the caller's GL
 * (or Vulkan) buffers, and primitives (reduce, scan, sort) that run staged compute
 * shaders on an element range of a buffer and leave everything outside it
 * untouched.
 *
 * Every function that can fail returns a ::gpgpu_status (0 = success). The
 * context keeps the message of its last failure (gpgpu_last_error()) and
 * passes each failure to the optional callback of its descriptor; what it
 * ignores without failing goes to gpgpu_last_warning().
 *
 * Thread safety: a context and everything made from it belong to one thread
 * at a time. A headless GL context is current only during its calls, so
 * threads may take turns with it (a call made while another thread is inside
 * one fails with GPGPU_ERROR_NO_CONTEXT); an adopted one is used in the thread
 * where the caller made it current. Distinct contexts may be used from
 * distinct threads at once, of one backend or of both.
 *
 * An adopted GL context (gpgpu_context_desc.gl_get_proc_address) is checked at
 * every call that touches GL, before any GL call: with another GL context current
 * the call fails with GPGPU_ERROR_WRONG_CONTEXT, with none GPGPU_ERROR_NO_CONTEXT
 * ("not in the adopted context" below; the calls of gpgpu/sparse.h alike), and
 * the other context is left untouched (docs/GUIDE.md, "Adopting a GL context").
 */
#ifndef GPGPU_GPGPU_H
#define GPGPU_GPGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(GPGPU_STATIC)
#define GPGPU_API
#elif defined(_WIN32)
#ifdef GPGPU_BUILDING
#define GPGPU_API __declspec(dllexport)
#else
#define GPGPU_API __declspec(dllimport)
#endif
#else
#define GPGPU_API __attribute__((visibility("default")))
#endif

#include <gpgpu/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The version of the library that runs, "MAJOR.MINOR.PATCH": meson's project version, as
 * GPGPU_VERSION_STRING of gpgpu/version.h is for the headers a program was built with
 * (a newer shared library may run under it). Any thread, no context needed.
 * @return a constant string, never NULL.
 * @pointer_lifetime static.
 */
GPGPU_API const char *gpgpu_version(void);

/** Result of every call that can fail; codes are grouped by kind in hundreds. */
typedef enum gpgpu_status {
    GPGPU_SUCCESS = 0,

    /* 1xx: the caller passed something wrong */
    GPGPU_ERROR_INVALID_ARGUMENT = 100, /**< a value makes no sense (bad enum, flag, size) */
    GPGPU_ERROR_NULL_POINTER = 101,     /**< a required pointer is NULL */
    GPGPU_ERROR_OUT_OF_RANGE = 102,     /**< offset + count runs past the end of a buffer */
    GPGPU_ERROR_UNSUPPORTED_COMBINATION = 103, /**< type, operator and algorithm do not fit together */
    GPGPU_ERROR_OVERLAP = 104,          /**< input and output ranges overlap without being equal */
    GPGPU_ERROR_MISALIGNED = 105,       /**< a byte offset is not a multiple of the element size */
    GPGPU_ERROR_TOO_LARGE = 106,        /**< a count beyond what the shaders index (2^31 - 1 elements) */

    /* 2xx: the platform cannot do it */
    GPGPU_ERROR_NO_CONTEXT = 200,       /**< no GL context could be made or none is current */
    GPGPU_ERROR_GL_VERSION = 201,       /**< GL older than 4.5 */
    GPGPU_ERROR_UNSUPPORTED_FEATURE = 202, /**< e.g. f64 where shaders have no double */
    GPGPU_ERROR_BACKEND_UNAVAILABLE = 203, /**< the backend asked for was not built or cannot start */
    GPGPU_ERROR_WRONG_CONTEXT = 204,    /**< another GL context than the adopted one is current */

    /* 3xx: the GPU or driver failed */
    GPGPU_ERROR_SHADER_COMPILE = 300,   /**< compile or link failure; the message holds the info log */
    GPGPU_ERROR_OUT_OF_MEMORY = 301,    /**< a buffer could not be allocated */
    GPGPU_ERROR_BACKEND = 302,          /**< the GL (or Vulkan) implementation reported an error */

    /* 4xx: files */
    GPGPU_ERROR_IO = 400,               /**< a file could not be opened, read or written */
    GPGPU_ERROR_PARSE = 401             /**< a file is malformed; the message names the line */
} gpgpu_status;

/** Element types. */
typedef enum gpgpu_type {
    GPGPU_TYPE_U32 = 1,
    GPGPU_TYPE_I32 = 2,
    GPGPU_TYPE_F32 = 3,
    GPGPU_TYPE_F64 = 4
} gpgpu_type;

/** Reduction operators. NaN propagates through min and max (as through sum). */
typedef enum gpgpu_op {
    GPGPU_OP_SUM = 1,
    GPGPU_OP_MIN = 2,
    GPGPU_OP_MAX = 3,
    GPGPU_OP_MINMAX = 4 /**< min and max together; the result holds two elements, min first */
} gpgpu_op;

/** Algorithms. 0 picks the fast default; the classic ones follow Kiciak's slides. */
typedef enum gpgpu_algo {
    GPGPU_ALGO_DEFAULT = 0,
    GPGPU_ALGO_FAST = 1,             /**< few passes, many elements per thread, shared memory / subgroups */
    GPGPU_ALGO_CLASSIC_HALVING = 2,  /**< GPUSumUp: a[i] op= a[i + ceil(n/2)]; operator must commute */
    GPGPU_ALGO_CLASSIC_STRIDE = 3,   /**< GPUAltSumUp: a[i] op= a[i + q], q doubling; keeps operand order */
    GPGPU_ALGO_CLASSIC_MINMAX = 4,   /**< GPUfindMinMax: comparators on pairs, then pairs of pairs */
    GPGPU_ALGO_CLASSIC_SCAN = 5,     /**< iPrefixSum: ceil(log2 n) in-place steps */
    GPGPU_ALGO_CLASSIC_NETSORT = 6,  /**< GPUNetSort: the bitonic network, one step per dispatch */
    GPGPU_ALGO_BITONIC = 7,          /**< the same network, steps within a tile in shared memory */
    GPGPU_ALGO_RADIX = 8,            /**< LSD radix sort, 8-bit digits: histogram, scan, stable scatter */
    GPGPU_ALGO_CLASSIC_SPMV = 9,     /**< Kiciak's 5-stage CSR SpMV (gpgpu/sparse.h) */
    GPGPU_ALGO_SPMV_SCALAR = 10,     /**< one invocation per row (CSR); the format's own kernel otherwise */
    GPGPU_ALGO_SPMV_VECTOR = 11,     /**< CSR, rows per work-group x invocations per row (tunable) */
    GPGPU_ALGO_SPMV_BALANCED = 12,   /**< CSR, nonzeros split evenly over work-groups */
    GPGPU_ALGO_CLASSIC_SPGEMM = 13,  /**< Kiciak's 13-stage sparse x sparse product (gpgpu/sparse.h) */
    GPGPU_ALGO_SPGEMM_ROWS = 14,     /**< two-phase: rows binned by products, sorted in shared memory */
    GPGPU_ALGO_SPGEMM_ESC = 15,      /**< every row expanded, segment-sorted and compressed in global memory */
    GPGPU_ALGO_GEMM_METHOD1 = 16,    /**< dense product, the CUDA lab's method 1: one work-group, global memory */
    GPGPU_ALGO_GEMM_METHOD2 = 17,    /**< method 2: a work-group per tile of C, one output per invocation */
    GPGPU_ALGO_GEMM_METHOD6 = 18,    /**< method 6: shared-memory slices loaded ahead, 2 or 4 outputs per invocation */
    GPGPU_ALGO_GEMM_TILED = 19,      /**< register tiles over double-buffered shared slices (the default) */
    GPGPU_ALGO_GEMM_COOPMAT_F16 = 20, /**< f32 matrices, products of their f16 roundings summed in f32 on
                                           the matrix units (gpgpu_info.has_coopmat_f16) */
    GPGPU_ALGO_SCAN_SINGLE_PASS = 21, /**< scan: one pass, tiles chained by a decoupled look-back that
                                           never waits on another work-group (reads n, writes n) */
    GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN = 22 /**< scan: three stages, no communication between work-groups
                                               within a dispatch (reads 2n, writes n) */
} gpgpu_algo;

/** Backends. */
typedef enum gpgpu_backend {
    GPGPU_BACKEND_DEFAULT = 0, /**< GPGPU_BACKEND env var (gl or vulkan), else GL */
    GPGPU_BACKEND_GL = 1,
    GPGPU_BACKEND_VULKAN = 2   /**< needs a build with Vulkan (-Dvulkan); see gpgpu/vulkan.h */
} gpgpu_backend;

/** How a GL context is obtained. */
typedef enum gpgpu_gl_platform {
    GPGPU_GL_PLATFORM_DEFAULT = 0,   /**< GPGPU_GL_PLATFORM env var, else the first that works of the three below */
    GPGPU_GL_PLATFORM_EGL_DEVICE = 1, /**< EGL_EXT_platform_device: a GPU with no display (NVIDIA, Mesa) */
    GPGPU_GL_PLATFORM_EGL_SURFACELESS = 2, /**< EGL_MESA_platform_surfaceless */
    GPGPU_GL_PLATFORM_GLFW = 3,      /**< a hidden GLFW window, where a display exists */
    GPGPU_GL_PLATFORM_ADOPT = 4      /**< the caller's current context (set gl_get_proc_address) */
} gpgpu_gl_platform;

typedef struct gpgpu_context gpgpu_context;
typedef struct gpgpu_buffer gpgpu_buffer;
typedef struct gpgpu_vk_adopt gpgpu_vk_adopt; /* defined in gpgpu/vulkan.h */

/** Called on every failure with the status and the full message. */
typedef void (*gpgpu_error_callback)(gpgpu_status status, const char *message, void *user_data);

/** Looks up a GL function, e.g. glfwGetProcAddress or eglGetProcAddress. */
typedef void (*(*gpgpu_get_proc_address)(const char *name))(void);

/** The handle of the GL context current in the calling thread, NULL when none (e.g. a wrapper
 *  of SDL_GL_GetCurrentContext or glfwGetCurrentContext); called with the desc's user_data. */
typedef void *(*gpgpu_gl_current_context)(void *user_data);

/**
 * Context descriptor; zero means default for every field.
 * Fill it with designated initializers: `&(gpgpu_context_desc){ .debug = true }`.
 */
typedef struct gpgpu_context_desc {
    gpgpu_backend backend;
    gpgpu_gl_platform gl_platform;
    /** Adopt the caller's current GL context (4.5 or newer). Implies GPGPU_GL_PLATFORM_ADOPT.
     *  The library records which context that is (its EGL, GLX or WGL handle, or what
     *  gl_current_context returns) and refuses calls while another is current. */
    gpgpu_get_proc_address gl_get_proc_address;
    /** Adopt: how to tell the current context, for toolkits whose contexts are not EGL, GLX
     *  or WGL ones; NULL asks EGL, then GLX, then WGL. Read only when adopting. */
    gpgpu_gl_current_context gl_current_context;
    /** Adopt: also accept calls while a context that shares objects with the adopted one is
     *  current (checked at each call through a buffer object the library makes for it), not
     *  only the adopted context itself. The timer is refused there (its queries are objects of
     *  the adopted context alone); each call ends with a fence that the next call, made in
     *  another of the contexts, waits for. Read only when adopting. */
    bool gl_accept_shared_contexts;
    gpgpu_error_callback error_callback;
    void *user_data;
    /** Turn on GL debug output (a message of type error or undefined behaviour fails the
     *  call with GPGPU_ERROR_BACKEND and goes into the last error; GPGPU_GL_DEBUG=1 does the
     *  same for every GL context), Vulkan validation layers where installed, and a check of
     *  the GL error state after every dispatch. */
    bool debug;
    /** Vulkan: use the caller's instance, device and queue instead of making them. */
    const gpgpu_vk_adopt *vk_adopt;
    /** gpgpu_buffer_copy uses the driver's copy command (glCopyNamedBufferSubData,
     *  vkCmdCopyBuffer) instead of a compute shader. Drivers may run those on DMA
     *  engines: at a fraction of a shader copy's bandwidth (docs/PERFORMANCE.md), but
     *  able to overlap with compute. */
    bool transfer_copies;
    /** The most bytes of GPU memory the library may hold for this context in buffers it
     *  allocates: gpgpu_buffer_create's, its scratch, matrices and products (not the
     *  caller's wrapped buffers, the Vulkan staging buffer of at most 64 MiB, nor programs).
     *  An allocation past it fails with GPGPU_ERROR_OUT_OF_MEMORY, as one the driver refuses
     *  does, and the context works on. 0: GPGPU_MEMORY_LIMIT from the environment (bytes, or
     *  with a K, M or G suffix for KiB, MiB, GiB), else no limit. */
    size_t memory_limit;
    /** The most bytes of freed library buffers the context keeps for reuse, so that a later
     *  buffer of a like size (within an eighth) takes one instead of a new allocation, which
     *  a driver may clear first, a pass over the memory before any work (NVIDIA's does:
     *  docs/DECISIONS.md, "Freed memory kept by the library"). Kept memory counts against
     *  memory_limit and is given back first when an allocation needs the room or fails, at
     *  gpgpu_context_trim and at destroy. 0: GPGPU_MEMORY_CACHE from the environment (bytes,
     *  K, M or G as for GPGPU_MEMORY_LIMIT; 0 keeps none), else an eighth of the GPU's
     *  memory (256 MiB on a CPU device or where GL does not say how much there is);
     *  GPGPU_MEMORY_CACHE_OFF: none. Kept memory is this context's alone: another context or
     *  your own allocations do not get it back when they run short; gpgpu_context_trim does.
     *  memory_limit counts each buffer at the size it is made with (its class). */
    size_t memory_cache;
    /** Which GPU (a context of the library's own making): 0 lets the library choose as it
     *  always has (GPGPU_EGL_DEVICE or GPGPU_VK_DEVICE, else the first EGL device that gives a
     *  context, the first discrete Vulkan GPU with compute); N >= 1 the N-th of the backend's
     *  gpgpu_device_count devices. Both backends list their devices by UUID, ascending, where
     *  the driver gives one (Vulkan always; EGL with EGL_EXT_device_persistent_id, as NVIDIA's
     *  does), then the others in the API's order: so one N, or one UUID (gpgpu_info.uuid), is
     *  one GPU on GL and on Vulkan. GL: the egl-device platform only. */
    uint32_t device;
} gpgpu_context_desc;

/** gpgpu_context_desc.memory_cache: keep no freed memory. */
#define GPGPU_MEMORY_CACHE_OFF ((size_t)-1)

/**
 * Creates a context.
 *
 * Headless (no gl_get_proc_address): the library makes and owns a GL 4.5 core
 * context through EGL (device platform, then surfaceless) or a hidden GLFW
 * window; `GPGPU_GL_PLATFORM=egl-device|egl-surfaceless|glfw` forces one.
 * Adopt: the caller's context must be current now and whenever the library
 * is called. Neither way changes the caller's GL state between calls: see
 * docs/GUIDE.md for the bindings a call uses and restores.
 *
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER if out is NULL;
 *   GPGPU_ERROR_INVALID_ARGUMENT for an unknown enum or env value (GPGPU_BACKEND,
 *   GPGPU_GL_PLATFORM, GPGPU_MEMORY_LIMIT);
 *   GPGPU_ERROR_NULL_POINTER also for gl_platform ADOPT without gl_get_proc_address;
 *   GPGPU_ERROR_INVALID_ARGUMENT also when both a GL context and a Vulkan device are adopted
 *   (adopting either one picks its backend);
 *   GPGPU_ERROR_NO_CONTEXT if none could be made (or none is current to adopt, or
 *   gl_current_context returns NULL); GPGPU_ERROR_GL_VERSION if GL is older than 4.5 (the
 *   message names the version); GPGPU_ERROR_BACKEND_UNAVAILABLE;
 *   Vulkan adopt: GPGPU_ERROR_INVALID_ARGUMENT if the queue is not queue queue_index of family
 *   queue_family_index of the device, or the physical device not one of the instance's;
 *   GPGPU_ERROR_INVALID_ARGUMENT also for a device past gpgpu_device_count, one without a
 *   compute queue (Vulkan), or a device with an adopted context or a GL platform other than
 *   egl-device.
 *   On failure *out is NULL and gpgpu_last_error(NULL) says why.
 * @pointer_lifetime desc is read during the call only.
 */
GPGPU_API gpgpu_status gpgpu_context_create(const gpgpu_context_desc *desc, gpgpu_context **out);

/**
 * Destroys the context and every program it compiled; NULL is accepted. Destroy its buffers
 * and matrices first: any use of them afterwards, their destroy calls included, is undefined
 * behaviour (as of memory after free). A GL context must be destroyed in the thread where it
 * is current. An adopted GL context must be current (or, with gl_accept_shared_contexts, one
 * sharing its objects, which cannot take back the adopted context's own queries and debug
 * callback): otherwise no GL call is made, the library's GL objects are left to the adopted
 * context (GL deletes them with it), host memory is freed, and the error callback is called
 * once with GPGPU_ERROR_WRONG_CONTEXT or GPGPU_ERROR_NO_CONTEXT.
 */
GPGPU_API void gpgpu_context_destroy(gpgpu_context *ctx);

/**
 * Gives back the GPU memory the context keeps between calls: its scratch buffers (grown by
 * the primitives and kept for the next call) and the memory of freed buffers kept for reuse
 * (gpgpu_context_desc.memory_cache). The next call that needs them allocates
 * again. NULL is accepted. Not in the adopted GL context: nothing of GL's is freed (the
 * scratch buffers' GL buffers are left to the adopted context) and the error callback hears
 * why.
 */
GPGPU_API void gpgpu_context_trim(gpgpu_context *ctx);

/**
 * The message of the context's last failure ("" if none). With ctx NULL, the
 * message of the last failed gpgpu_context_create on this thread.
 * @pointer_lifetime valid until the next failing call on that context.
 */
GPGPU_API const char *gpgpu_last_error(const gpgpu_context *ctx);

/**
 * The context's last warning ("" if none; "" for ctx NULL): something the library ignored
 * and worked around without failing the call, such as a tuners' cache file
 * ($GPGPU_TUNE_CACHE) that is not a regular file of at most 1 MiB, or lines of it that do not
 * parse. The library never prints: read this after a call to show it. A later warning
 * replaces it; successful calls leave it as it is.
 * @pointer_lifetime valid until the next warning on that context or its destroy.
 */
GPGPU_API const char *gpgpu_last_warning(const gpgpu_context *ctx);

/** A constant English name for a status code ("unknown status" for others). */
GPGPU_API const char *gpgpu_status_string(gpgpu_status status);

/** A constant name for a type ("u32", ...), NULL for an unknown value. */
GPGPU_API const char *gpgpu_type_name(gpgpu_type type);

/** Size in bytes of one element of a type, 0 for an unknown value. */
GPGPU_API size_t gpgpu_type_size(gpgpu_type type);

/** What the context runs on. Strings live as long as the context. */
typedef struct gpgpu_info {
    const char *backend;      /**< "gl" or "vulkan" */
    const char *platform;     /**< GL: "egl-device", "egl-surfaceless", "glfw", "adopt";
                                   Vulkan: "vulkan" (own device) or "vulkan-adopt" */
    const char *vendor;
    const char *renderer;
    const char *version;      /**< the implementation's version string */
    int version_major, version_minor;
    bool has_f64;             /**< shaders have double */
    bool has_subgroups;       /**< subgroup arithmetic, ballots and shuffles in compute shaders */
    /** Cooperative matrices: 16 x 16 x 16 f16 tile products into f32 per subgroup
     *  (VK_NV_cooperative_matrix; GL_NV_cooperative_matrix in GL), which
     *  GPGPU_ALGO_GEMM_COOPMAT_F16 runs on. An adopted Vulkan device: false. */
    bool has_coopmat_f16;
    unsigned subgroup_size;   /**< 0 when unknown */
    unsigned max_workgroup_invocations;
    unsigned max_workgroup_count_x;
    size_t max_shared_memory_bytes;
    size_t max_storage_block_bytes;
    size_t storage_offset_alignment;
    size_t max_storage_range_bytes; /**< largest range one binding can hold */
    size_t device_memory_bytes; /**< device-local memory (0 when the API does not say) */
    /** The device's number in gpgpu_context_desc.device's list (1 for the first), whichever
     *  way it was chosen; 0 where the context was adopted or made on a platform other than
     *  egl-device. */
    uint32_t device;
    /** The device's UUID (Vulkan's deviceUUID; GL's GL_DEVICE_UUID_EXT, which names the same
     *  GPU, else the EGL device's persistent id), where the driver gives one. */
    bool has_uuid;
    uint8_t uuid[16];
} gpgpu_info;

/** Fills *info. @return GPGPU_SUCCESS or GPGPU_ERROR_NULL_POINTER. */
GPGPU_API gpgpu_status gpgpu_context_info(gpgpu_context *ctx, gpgpu_info *info);

/**
 * How many devices a backend lists for gpgpu_context_desc.device (GPGPU_BACKEND_DEFAULT:
 * GPGPU_BACKEND, else GL): GL's EGL devices (0 without EGL_EXT_platform_device), Vulkan's
 * physical devices (0 without a Vulkan driver). No context is made. Any thread.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (an unknown
 *   backend, or GPGPU_BACKEND value); GPGPU_ERROR_BACKEND_UNAVAILABLE (Vulkan in a build
 *   without it). A failure's message is gpgpu_last_error(NULL)'s.
 */
GPGPU_API gpgpu_status gpgpu_device_count(gpgpu_backend backend, uint32_t *count);

/* ---------------------------------------------------------------- buffers */

/**
 * Creates a library-owned device buffer of `bytes` bytes (contents undefined).
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT for 0 bytes;
 *   GPGPU_ERROR_OUT_OF_MEMORY when the driver cannot allocate it, or it would take the
 *   context past gpgpu_context_desc.memory_limit; *out is then NULL and the context usable;
 *   GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_buffer_create(gpgpu_context *ctx, size_t bytes, gpgpu_buffer **out);

/**
 * Wraps `bytes` bytes of the caller's GL buffer object `name` from byte
 * `offset`, without copying. The library never deletes the GL buffer; the
 * caller keeps it alive until gpgpu_buffer_destroy. Element ranges passed to
 * primitives are relative to `offset`, which must be a multiple of 4 (8 for
 * f64 data).
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT if name is not
 *   a buffer object, bytes is 0, or the context is not a GL one; GPGPU_ERROR_MISALIGNED if
 *   offset % 4;
 *   GPGPU_ERROR_OUT_OF_RANGE if offset + bytes exceeds the GL buffer;
 *   GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context): `name` is looked up in the adopted context only.
 */
GPGPU_API gpgpu_status gpgpu_buffer_wrap_gl(gpgpu_context *ctx, unsigned name, size_t offset,
                                            size_t bytes, gpgpu_buffer **out);

/** Destroys a buffer (a wrapped GL buffer is left alone); NULL is accepted. A library buffer
 *  of an adopted GL context destroyed while it is not current keeps its GL buffer (GL deletes
 *  it with the adopted context) and the error callback hears why. */
GPGPU_API void gpgpu_buffer_destroy(gpgpu_buffer *buf);

/** Size in bytes of the buffer (of the wrapped range). */
GPGPU_API size_t gpgpu_buffer_size(const gpgpu_buffer *buf);

/**
 * Copies `bytes` bytes from host memory into the buffer at byte `offset`.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_OUT_OF_RANGE; GPGPU_ERROR_BACKEND;
 *   GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_buffer_upload(gpgpu_buffer *buf, size_t offset, const void *data,
                                           size_t bytes);

/** Copies `bytes` bytes from the buffer at byte `offset` into host memory; errors as upload. */
GPGPU_API gpgpu_status gpgpu_buffer_download(gpgpu_buffer *buf, size_t offset, void *data,
                                             size_t bytes);

/* ----------------------------------------------------------------- reduce */

/** What to reduce and how; zero algo means the fast default. */
typedef struct gpgpu_reduce_desc {
    gpgpu_type type;
    gpgpu_op op;
    gpgpu_algo algo; /**< DEFAULT/FAST, CLASSIC_HALVING, CLASSIC_STRIDE (any op); CLASSIC_MINMAX (op MINMAX only) */
} gpgpu_reduce_desc;

/**
 * Reduces elements [offset, offset + count) of `in` (element units) and
 * writes the result to host memory `result`: one element, or two (min, max)
 * for GPGPU_OP_MINMAX. `in` is not modified (the classic algorithms work on
 * a scratch copy). Empty input gives the identity: 0 for sum, the largest
 * value (+inf for floats) for min, the smallest (-inf) for max. Integer sums
 * wrap modulo 2^32. Float sums are not bit-reproducible between algorithms
 * (the order of additions differs); each algorithm's order is fixed, so one
 * algorithm on one device repeats its result.
 *
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (unknown
 *   type/op/algo, a buffer of another context); GPGPU_ERROR_UNSUPPORTED_COMBINATION
 *   (CLASSIC_MINMAX with an op other than MINMAX, or a scan algorithm);
 *   GPGPU_ERROR_OUT_OF_RANGE; GPGPU_ERROR_TOO_LARGE; GPGPU_ERROR_MISALIGNED (a wrapped
 *   buffer's offset is not a multiple of the element size);
 *   GPGPU_ERROR_UNSUPPORTED_FEATURE (f64 without shader doubles); GPGPU_ERROR_OUT_OF_MEMORY;
 *   GPGPU_ERROR_SHADER_COMPILE; GPGPU_ERROR_BACKEND; GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_reduce(gpgpu_context *ctx, const gpgpu_reduce_desc *desc,
                                    gpgpu_buffer *in, size_t offset, size_t count, void *result);

/**
 * Like gpgpu_reduce, but writes the result (one element, or min and max) into
 * element `out_offset` of the device buffer `out` instead of host memory:
 * nothing is read back, so the call does not wait for the GPU, and it can be
 * recorded into a caller's Vulkan command buffer. The result must not land
 * inside the input range.
 * @return as gpgpu_reduce, GPGPU_ERROR_OUT_OF_RANGE / GPGPU_ERROR_MISALIGNED for `out`, and
 *   GPGPU_ERROR_OVERLAP (the result's place overlaps the input).
 */
GPGPU_API gpgpu_status gpgpu_reduce_to_buffer(gpgpu_context *ctx, const gpgpu_reduce_desc *desc,
                                              gpgpu_buffer *in, size_t offset, size_t count,
                                              gpgpu_buffer *out, size_t out_offset);

/* ------------------------------------------------------------------- scan */

/** What to scan and how. The operator is +; integers wrap modulo 2^32. */
typedef struct gpgpu_scan_desc {
    gpgpu_type type;
    bool exclusive; /**< out[i] = sum of in[0..i-1] (out[0] = 0) instead of in[0..i] */
    gpgpu_algo algo; /**< DEFAULT/FAST (the single pass up to 2^21 elements where the device
                          has subgroups, else reduce-then-scan), SCAN_SINGLE_PASS, SCAN_REDUCE_THEN_SCAN or CLASSIC_SCAN.
                          Float sums of the single pass may differ in the last bits from run to
                          run (the look-back adds the tiles' sums in an order that depends on
                          timing, as CUB's does); the other algorithms are deterministic. */
} gpgpu_scan_desc;

/**
 * Prefix sums of elements [in_offset, in_offset + count) of `in` into
 * [out_offset, out_offset + count) of `out`. In place when in == out and the
 * offsets are equal; other overlaps are refused.
 *
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (unknown type
 *   or algorithm, a buffer of another context);
 *   GPGPU_ERROR_UNSUPPORTED_COMBINATION (a reduce-only algorithm); GPGPU_ERROR_OUT_OF_RANGE;
 *   GPGPU_ERROR_OVERLAP; GPGPU_ERROR_TOO_LARGE; GPGPU_ERROR_MISALIGNED;
 *   GPGPU_ERROR_UNSUPPORTED_FEATURE;
 *   GPGPU_ERROR_OUT_OF_MEMORY; GPGPU_ERROR_SHADER_COMPILE; GPGPU_ERROR_BACKEND;
 *   GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_scan(gpgpu_context *ctx, const gpgpu_scan_desc *desc,
                                  gpgpu_buffer *in, size_t in_offset, gpgpu_buffer *out,
                                  size_t out_offset, size_t count);

/* ------------------------------------------------------------------- sort */

/**
 * What to sort and how. Keys are u32, i32, f32 or f64; values (optional) are
 * u32, one per key, moved with it (argsort: values 0..n-1 give the
 * permutation).
 *
 * Order: integers by value; floats by one total order,
 * -inf < negatives < -0 < +0 < positives < +inf < NaN, all NaNs equal
 * whatever their sign and payload. Keys are moved, never rewritten: a NaN
 * keeps its bits. Descending is the exact reverse (NaNs first).
 *
 * Stability: RADIX is stable by nature; the bitonic network (BITONIC,
 * CLASSIC_NETSORT) is not, and with `stable` (or with segments) it sorts
 * (key, input index) pairs instead, so that equal keys keep their input order.
 */
typedef struct gpgpu_sort_desc {
    gpgpu_type type;   /**< the key type */
    bool descending;
    bool stable;       /**< equal keys keep their input order (every algorithm) */
    gpgpu_algo algo;   /**< DEFAULT/FAST (BITONIC for counts up to one tile of 2048, RADIX
                            above), CLASSIC_NETSORT, BITONIC, RADIX */
    /** u32 values, one per key, or NULL for keys only. */
    gpgpu_buffer *values_in;
    size_t values_in_offset;   /**< in elements */
    /** Where the values go; NULL sorts them in place (values_in, values_in_offset). */
    gpgpu_buffer *values_out;
    size_t values_out_offset;
    /** Segmented sort: segment_count + 1 u32 offsets (CSR row pointers), nondecreasing from 0
     *  to count; each [offsets[s], offsets[s+1]) is sorted alone. NULL: one segment. */
    gpgpu_buffer *segments;
    size_t segments_offset;    /**< in elements */
    size_t segment_count;
    /** Optional scratch memory of at least gpgpu_sort_scratch_size() bytes from
     *  scratch_offset (a multiple of 8); NULL uses the context's own, kept between calls. */
    gpgpu_buffer *scratch;
    size_t scratch_offset;
} gpgpu_sort_desc;

/**
 * Sorts keys [keys_in_offset, keys_in_offset + count) of `keys_in` into
 * [keys_out_offset, ...) of `keys_out` (offsets in elements), and the values
 * with them when desc->values_in is set. keys_out NULL, or equal to keys_in
 * at the same offset, sorts in place; other overlaps are refused. The input
 * is left unchanged when sorting out of place.
 *
 * Segment offsets that are not nondecreasing from 0 to count give an
 * unspecified permutation of the input (never an access outside the buffers);
 * the `gpgpu sort` command checks them.
 *
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (unknown type or
 *   algorithm, values_out without values_in, segments with segment_count 0 for count > 0, a
 *   buffer of another context);
 *   GPGPU_ERROR_UNSUPPORTED_COMBINATION (a reduce or scan algorithm);
 *   GPGPU_ERROR_OUT_OF_RANGE (also segment_count SIZE_MAX, a scratch_offset past the end of
 *   desc->scratch); GPGPU_ERROR_OVERLAP (keys in and
 *   out, values in and out, keys and values, the scratch and the keys, values or segment
 *   offsets, or the segment offsets and the keys or values written); GPGPU_ERROR_TOO_LARGE;
 *   GPGPU_ERROR_MISALIGNED; GPGPU_ERROR_OUT_OF_MEMORY (also: desc->scratch too small);
 *   GPGPU_ERROR_SHADER_COMPILE; GPGPU_ERROR_BACKEND; GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_sort(gpgpu_context *ctx, const gpgpu_sort_desc *desc,
                                  gpgpu_buffer *keys_in, size_t keys_in_offset,
                                  gpgpu_buffer *keys_out, size_t keys_out_offset, size_t count);

/**
 * The scratch memory, in bytes, that gpgpu_sort needs for `count` keys with
 * this desc: what it depends on is the type, the algorithm, `stable`, and
 * whether values_in, values_out and segments are set (their offsets and
 * sizes are not looked at); 0 where the sort needs none. See docs/GUIDE.md for what each algorithm keeps there.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT;
 *   GPGPU_ERROR_UNSUPPORTED_COMBINATION (as gpgpu_sort); GPGPU_ERROR_TOO_LARGE (count past
 *   2^31 - 1 keys, which gpgpu_sort refuses too).
 */
GPGPU_API gpgpu_status gpgpu_sort_scratch_size(gpgpu_context *ctx, const gpgpu_sort_desc *desc,
                                               size_t count, size_t *bytes);

/* ---------------------------------------------------------------- vectors */

/**
 * y = alpha * x + beta * y over `count` elements of f32 or f64 vectors (element offsets), as
 * an iterative solver updates its vectors; alpha and beta are rounded to the type (NaN, inf
 * and, for f32, magnitudes past FLT_MAX are refused rather than rounded to inf). beta = 0
 * writes y without reading it (NaN in y is ignored). x and y may be the same range, but must
 * not overlap otherwise.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (an unknown
 *   type, a buffer of another context, alpha or beta NaN, infinite or for f32 past FLT_MAX);
 *   GPGPU_ERROR_UNSUPPORTED_COMBINATION (an integer type);
 *   GPGPU_ERROR_UNSUPPORTED_FEATURE (f64 without shader doubles);
 *   GPGPU_ERROR_OUT_OF_RANGE; GPGPU_ERROR_MISALIGNED; GPGPU_ERROR_OVERLAP;
 *   GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_axpby(gpgpu_context *ctx, gpgpu_type type, size_t count,
                                   double alpha, gpgpu_buffer *x, size_t x_offset, double beta,
                                   gpgpu_buffer *y, size_t y_offset);

/**
 * The dot product of `count` elements of two f32 or f64 vectors (the same one twice is fine),
 * summed in the element type in a tree (as gpgpu_reduce sums; not bit-reproducible against a
 * sequential sum) and returned as a double. count = 0 gives 0; NaN propagates.
 * @return as gpgpu_axpby, and GPGPU_ERROR_UNSUPPORTED_COMBINATION while work is recorded into a
 *   caller's Vulkan command buffer (no result can come back).
 */
GPGPU_API gpgpu_status gpgpu_dot(gpgpu_context *ctx, gpgpu_type type, size_t count,
                                 gpgpu_buffer *x, size_t x_offset, gpgpu_buffer *y,
                                 size_t y_offset, double *result);

/**
 * y = alpha * x + beta * y as gpgpu_axpby does it, and the dot product of the new y with w,
 * summed as gpgpu_dot sums, in one pass over the vectors (one dispatch): the update and the
 * dot product that follow each other in a Krylov solver's step (conjugate gradients' r -= a*Ap
 * and r.r, with w = y). w may be y itself (the same range: its squared norm) or x, but must not
 * overlap y otherwise; x must not overlap y. count = 0 gives 0 and changes nothing.
 * @return as gpgpu_dot, GPGPU_ERROR_INVALID_ARGUMENT for alpha and beta as gpgpu_axpby, and
 *   GPGPU_ERROR_OVERLAP.
 */
GPGPU_API gpgpu_status gpgpu_axpby_dot(gpgpu_context *ctx, gpgpu_type type, size_t count,
                                       double alpha, gpgpu_buffer *x, size_t x_offset,
                                       double beta, gpgpu_buffer *y, size_t y_offset,
                                       gpgpu_buffer *w, size_t w_offset, double *result);

/* ------------------------------------------------------- dense matrix products */

/** Prints progress while tuning (may be NULL). */
typedef void (*gpgpu_progress_callback)(const char *line, void *user_data);

/** The register-tiled product's block shape (GPGPU_ALGO_GEMM_TILED). */
typedef struct gpgpu_gemm_tuning {
    uint32_t block_m, block_n; /**< the block of C a work-group computes */
    uint32_t block_k;          /**< the depth of the slices of A and B in shared memory */
    uint32_t thread_m;         /**< rows of the block each invocation keeps in registers */
    uint32_t invocations;      /**< the work-group's size; each invocation keeps thread_m x
                                    block_m * block_n / (invocations * thread_m) outputs */
    double gpu_ns;             /**< the tuner's time of this shape (0 from the heuristic) */
} gpgpu_gemm_tuning;

/** Dense product descriptor; zero means default for every field. */
typedef struct gpgpu_gemm_desc {
    gpgpu_type type;           /**< F32 or F64 */
    gpgpu_algo algo;           /**< DEFAULT/FAST/GEMM_TILED, GEMM_METHOD1, GEMM_METHOD2, GEMM_METHOD6 */
    bool transpose_a;          /**< op(A) = A^T: A is stored k x m */
    bool transpose_b;          /**< op(B) = B^T: B is stored n x k */
    /** Row strides of the stored A, B and C in elements, at least their widths; 0 takes the
     *  width (k or m for A, n or k for B, n for C). */
    size_t lda, ldb, ldc;
    unsigned tile;             /**< methods 1, 2, 6: the work-group's side, 8, 16 or 32 (0: 16) */
    unsigned outputs;          /**< method 6: outputs per invocation, 2 or 4 (0: 4) */
    /** GEMM_TILED: this block shape; NULL takes the tuned one for the device and size class
     *  (gpgpu_gemm_tune), else the estimate of gpgpu_gemm_heuristic. */
    const gpgpu_gemm_tuning *tuning;
} gpgpu_gemm_desc;

/**
 * C = alpha * op(A) * op(B) + beta * C for row-major f32 or f64 matrices: op(A) is m x k,
 * op(B) is k x n, C is m x n, stored from the given element offsets with the row strides of
 * the desc. alpha and beta are rounded to the type (refused where they are NaN, infinite or,
 * for f32, past FLT_MAX, as gpgpu_axpby refuses them). beta = 0 writes C without reading it
 * (NaN in C is ignored); k = 0 gives beta * C. C must not overlap A or B; A and B may be the same.
 * The f32 product is f32 arithmetic throughout (fused multiply-adds, no reduced precision).
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (unknown type
 *   or algo, a tile other than 8/16/32, outputs other than 2/4, a stride below the width, a
 *   tuning the kernel cannot run, a buffer of another context, alpha or beta as gpgpu_axpby
 *   refuses them); GPGPU_ERROR_UNSUPPORTED_COMBINATION (an integer type, another
 *   primitive's algorithm, f64 with GEMM_COOPMAT_F16, a tile whose shared memory or
 *   work-group the device cannot hold);
 *   GPGPU_ERROR_UNSUPPORTED_FEATURE (f64 without shader doubles, GEMM_COOPMAT_F16 without
 *   cooperative matrices); GPGPU_ERROR_OUT_OF_RANGE; GPGPU_ERROR_TOO_LARGE (op(A), op(B)
 *   or C of more than 2^31 - 1 elements, before any buffer is looked at, or an index of a
 *   stored matrix past 2^31 - 1); GPGPU_ERROR_MISALIGNED; GPGPU_ERROR_OVERLAP (C shares memory with
 *   A or B); GPGPU_ERROR_OUT_OF_MEMORY (GEMM_COOPMAT_F16's f16 copies);
 *   GPGPU_ERROR_SHADER_COMPILE; GPGPU_ERROR_BACKEND; GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_gemm(gpgpu_context *ctx, const gpgpu_gemm_desc *desc, size_t m,
                                  size_t n, size_t k, double alpha, gpgpu_buffer *a,
                                  size_t a_offset, gpgpu_buffer *b, size_t b_offset, double beta,
                                  gpgpu_buffer *c, size_t c_offset);

/**
 * Times the register-tiled product's candidate block shapes on an m x n x k product of
 * the type (on scratch matrices) and remembers the fastest for the device and the size
 * class of (m, n, k) (each rounded up to a power of two), in the context and in the tuners'
 * cache file $GPGPU_TUNE_CACHE (default ~/.cache/libgpgpu/tune; none when the variable is
 * set but empty; one that is not a regular file of at most 1 MiB is neither read nor written,
 * with a warning: gpgpu_last_warning). A progress line per candidate goes to `progress`. *result (may be NULL)
 * gets the chosen shape and its time.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (m, n or k
 *   0, a measurement running); GPGPU_ERROR_UNSUPPORTED_COMBINATION (an integer type, work
 *   being recorded into a caller's command buffer); GPGPU_ERROR_UNSUPPORTED_FEATURE;
 *   GPGPU_ERROR_TOO_LARGE; GPGPU_ERROR_OUT_OF_MEMORY; GPGPU_ERROR_SHADER_COMPILE;
 *   GPGPU_ERROR_BACKEND; GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_gemm_tune(gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n,
                                       size_t k, gpgpu_progress_callback progress,
                                       void *user_data, gpgpu_gemm_tuning *result);

/**
 * The block shape GEMM_TILED takes for this product without a desc->tuning: the tuned one
 * for its size class when gpgpu_gemm_tune ran (in this process or one that wrote the cache
 * file), else an estimate from the sizes and the device's limits.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (unknown
 *   type); GPGPU_ERROR_UNSUPPORTED_COMBINATION (an integer type); GPGPU_ERROR_TOO_LARGE (a
 *   matrix of the product past 2^31 - 1 elements).
 */
GPGPU_API gpgpu_status gpgpu_gemm_shape(gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n,
                                        size_t k, gpgpu_gemm_tuning *result);

/* ----------------------------------------------------------------- timing */

/**
 * Starts measuring GPU time of the calls that follow: on either backend each call is timed
 * from its first command to the end of its last, without the closing barrier that makes its
 * writes visible to later work (as a CUDA event after a kernel), and the calls' times are
 * summed (GL: a GL_TIME_ELAPSED query per call; Vulkan: timestamps around each submission).
 * GL: the queries are objects of one context, so an adopted context times the calls made
 * in it alone: with gl_accept_shared_contexts, calls made meanwhile in a context that
 * shares its objects fail with GPGPU_ERROR_WRONG_CONTEXT. Vulkan: work recorded into a
 * caller's command buffer is not timed.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT if a
 *   measurement is already running; GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context) (also in a context sharing the adopted one's objects).
 */
GPGPU_API gpgpu_status gpgpu_timer_begin(gpgpu_context *ctx);

/**
 * Ends the measurement and waits for its result, in nanoseconds of GPU time. A failure ends
 * the measurement too.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT if none is
 *   running; GPGPU_ERROR_BACKEND; GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context) (also in a context sharing the adopted one's objects).
 */
GPGPU_API gpgpu_status gpgpu_timer_end(gpgpu_context *ctx, double *gpu_ns);

/**
 * Waits until all submitted GPU work has finished.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_BACKEND; GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_finish(gpgpu_context *ctx);

/**
 * Copies `bytes` bytes between two buffers on the GPU with a compute shader
 * (the ceiling that the benchmarks compare with), or with the driver's copy
 * command when the context was made with transfer_copies. Offsets in bytes,
 * multiples of 4.
 * @return GPGPU_SUCCESS; GPGPU_ERROR_NULL_POINTER; GPGPU_ERROR_INVALID_ARGUMENT (buffers of
 *   different contexts); GPGPU_ERROR_OUT_OF_RANGE; GPGPU_ERROR_MISALIGNED; GPGPU_ERROR_OVERLAP
 *   (the ranges share memory: one buffer, or two wraps of one GL buffer or VkBuffer);
 *   GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT (GL: not in the adopted context).
 */
GPGPU_API gpgpu_status gpgpu_buffer_copy(gpgpu_buffer *src, size_t src_offset, gpgpu_buffer *dst,
                                         size_t dst_offset, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_GPGPU_H */
