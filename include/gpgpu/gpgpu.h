/**
 * @file gpgpu.h
 * @brief libgpgpu: GPU compute primitives on OpenGL 4.5 compute shaders, with
 * Vulkan as a second backend (see gpgpu/vulkan.h).
 *
 * One context, buffers that the library owns or that wrap the caller's GL
 * (or Vulkan) buffers, and primitives (reduce, scan, sort, select, gather and
 * scatter, histograms, segmented reductions, run-length encoding, vector
 * operations, dense products; sparse matrices in gpgpu/sparse.h) that run staged
 * compute shaders on an element range of a buffer and leave everything outside
 * it untouched; their counts may stay on the GPU. docs/GUIDE.md says how the
 * pieces fit, docs/INTERNALS.md how the library is built.
 *
 * @anchor errors
 * <b>Errors.</b> Every function that can fail returns a ::gpgpu_status (0 = success); each
 * function lists every status it can return, and why. The context keeps the message of its
 * last failure (gpgpu_last_error()) and passes each failure to the optional callback of its
 * descriptor; what it ignores without failing goes to gpgpu_last_warning(). A NULL handle
 * that a call takes its context from (`ctx`, or the buffer or matrix a call works on) returns
 * GPGPU_ERROR_NULL_POINTER without a message, as there is no context to keep one. A call
 * that fails leaves its outputs unspecified but for what it says (an `out` set to NULL).
 * The calls that run work on the GPU share these statuses, listed with each of them:
 * - GPGPU_ERROR_OUT_OF_MEMORY: device or host memory for the call's work (scratch buffers,
 *   programs) ran out, or the context's gpgpu_context_desc.memory_limit was reached;
 * - GPGPU_ERROR_SHADER_COMPILE: a program did not build (GL: the message holds the info log);
 * - GPGPU_ERROR_BACKEND: the GL or Vulkan implementation reported an error (with
 *   gpgpu_context_desc.debug, also a GL debug message of type error);
 * - GPGPU_ERROR_UNSUPPORTED_FEATURE: the device's work-groups hold fewer invocations than a
 *   stage needs (256 for most; Vulkan promises 128);
 * - GPGPU_ERROR_TOO_LARGE: a buffer, or a work array the call makes, larger than one storage
 *   binding holds (gpgpu_info.max_storage_range_bytes);
 * - GPGPU_ERROR_WRONG_CONTEXT, GPGPU_ERROR_NO_CONTEXT: see the GL notes below.
 *
 * @anchor threads
 * <b>Thread safety.</b> A context and everything made from it belong to one thread at a
 * time. A headless GL context is current only during its calls, so threads may take turns
 * with it (a call made while another thread is inside one fails with
 * GPGPU_ERROR_NO_CONTEXT); an adopted one is used in the thread where the caller made it
 * current. Distinct contexts may be used from distinct threads at once, of one backend or
 * of both. Functions that take no context (names, sizes, the host formats of
 * gpgpu/sparse.h, the files of gpgpu/io.h) may be called from any thread.
 *
 * @anchor adopted
 * <b>An adopted GL context</b> (gpgpu_context_desc.gl_get_proc_address) is checked at
 * every call that touches GL, before any GL call: with another GL context current
 * the call fails with GPGPU_ERROR_WRONG_CONTEXT, with none GPGPU_ERROR_NO_CONTEXT
 * ("not in the adopted context" below; the calls of gpgpu/sparse.h alike), and
 * the other context is left untouched (docs/GUIDE.md, "Adopting a GL context").
 *
 * @anchor lifetimes
 * <b>Pointer lifetime.</b> What a call is given by pointer (descriptors, host arrays,
 * results) is read or written during the call only, unless the function says otherwise.
 * Handles (contexts, buffers, matrices) live until their destroy call; a context's buffers
 * and matrices must be destroyed before it.
 */
#ifndef GPGPU_GPGPU_H
#define GPGPU_GPGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * @def GPGPU_API
 * Marks the library's exported functions: default visibility on ELF, dllexport or
 * dllimport on Windows, nothing with GPGPU_STATIC (a static build).
 */
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
 * @defgroup core Versions, statuses and element types
 * @brief What every call shares: the version, the status codes, the element types,
 * operators and algorithms.
 * @{
 */

/**
 * @brief The version of the library that runs, "MAJOR.MINOR.PATCH".
 *
 * Meson's project version, as GPGPU_VERSION_STRING of gpgpu/version.h is for the headers a
 * program was built with (a newer shared library may run under it). No context is needed.
 * @return a constant string, never NULL.
 * @thread_safety Any thread.
 * @pointer_lifetime Static: the string lives as long as the library is loaded.
 */
GPGPU_API const char *gpgpu_version(void);

/** Result of every call that can fail; codes are grouped by kind in hundreds. */
typedef enum gpgpu_status {
    GPGPU_SUCCESS = 0, /**< the call did what it says */

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
    GPGPU_TYPE_U32 = 1, /**< 32-bit unsigned integer (uint32_t) */
    GPGPU_TYPE_I32 = 2, /**< 32-bit two's-complement integer (int32_t) */
    GPGPU_TYPE_F32 = 3, /**< IEEE 754 single precision (float) */
    GPGPU_TYPE_F64 = 4  /**< IEEE 754 double precision (double); arithmetic on it needs
                             gpgpu_info.has_f64 */
} gpgpu_type;

/** Reduction operators. NaN propagates through min and max (as through sum). */
typedef enum gpgpu_op {
    GPGPU_OP_SUM = 1, /**< the sum; integers wrap modulo 2^32 */
    GPGPU_OP_MIN = 2, /**< the smallest element */
    GPGPU_OP_MAX = 3, /**< the largest element */
    GPGPU_OP_MINMAX = 4 /**< min and max together; the result holds two elements, min first */
} gpgpu_op;

/** Algorithms. 0 picks the fast default; the classic ones follow Kiciak's slides. */
typedef enum gpgpu_algo {
    GPGPU_ALGO_DEFAULT = 0,          /**< each primitive's fast default (see its desc) */
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

/** @} */

/**
 * @defgroup context Contexts and errors
 * @brief Making a context (headless or adopted), what it runs on, its messages.
 * @{
 */

/** Backends. */
typedef enum gpgpu_backend {
    GPGPU_BACKEND_DEFAULT = 0, /**< GPGPU_BACKEND env var (gl or vulkan), else GL where built, else
                                    Vulkan */
    GPGPU_BACKEND_GL = 1,      /**< OpenGL 4.5 compute shaders; needs a build with GL (-Dgl) */
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

/** A context: one GL context or Vulkan device, and what the library keeps for it (programs,
 *  scratch buffers, the last message). Opaque; made by gpgpu_context_create. */
typedef struct gpgpu_context gpgpu_context;
/** A buffer of device memory: one the library allocated (gpgpu_buffer_create) or a range of
 *  the caller's GL buffer or VkBuffer (gpgpu_buffer_wrap_gl, gpgpu_buffer_wrap_vk). Opaque. */
typedef struct gpgpu_buffer gpgpu_buffer;
/** The caller's Vulkan objects to adopt; defined in gpgpu/vulkan.h. */
typedef struct gpgpu_vk_adopt gpgpu_vk_adopt;

/**
 * Called on every failure with the status and the full message.
 * @param status the status the failing call returns.
 * @param message the message, as gpgpu_last_error() then gives it; valid during the call.
 * @param user_data gpgpu_context_desc.user_data.
 */
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
    gpgpu_backend backend;         /**< the backend; DEFAULT: the one adopted, else GPGPU_BACKEND */
    gpgpu_gl_platform gl_platform; /**< how a GL context is obtained; DEFAULT: GPGPU_GL_PLATFORM,
                                        else the first headless platform that works */
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
    /** Called on every failure of this context (and of its creation); NULL: none. */
    gpgpu_error_callback error_callback;
    /** Passed to error_callback and gl_current_context. */
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
 * @brief Creates a context.
 *
 * Headless (no gl_get_proc_address): the library makes and owns a GL 4.5 core
 * context through EGL (device platform, then surfaceless) or a hidden GLFW
 * window; `GPGPU_GL_PLATFORM=egl-device|egl-surfaceless|glfw` forces one.
 * Adopt: the caller's context must be current now and whenever the library
 * is called. Neither way changes the caller's GL state between calls: see
 * docs/GUIDE.md for the bindings a call uses and restores. Vulkan: the library
 * makes an instance and device (`GPGPU_VK_DEVICE` picks one), or adopts the
 * caller's (gpgpu/vulkan.h).
 *
 * @param[in] desc what to make; NULL takes every default.
 * @param[out] out receives the context; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the new context.
 * @retval GPGPU_ERROR_NULL_POINTER out is NULL; gl_platform ADOPT without
 *   gl_get_proc_address; a Vulkan adopt without its instance, physical device, device or
 *   queue.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown backend or GL platform; an environment
 *   value that is none of those documented (GPGPU_BACKEND, GPGPU_GL_PLATFORM,
 *   GPGPU_MEMORY_LIMIT, GPGPU_MEMORY_CACHE, GPGPU_TUNE entries (docs/GUIDE.md, Tuning), and
 *   GPGPU_EGL_DEVICE or GPGPU_VK_DEVICE past the devices there are); both a GL context and a Vulkan device adopted (adopting either one
 *   picks its backend); Vulkan adopt: the physical device is not one of the instance's, the
 *   family has no compute or no queue of queue_index, or the queue is not queue queue_index
 *   of family queue_family_index of the device; a device past gpgpu_device_count, one
 *   without a compute queue (Vulkan), or a device with an adopted context or a GL platform
 *   other than egl-device.
 * @retval GPGPU_ERROR_NO_CONTEXT no GL context could be made (the message gives each
 *   platform's reason), or none is current to adopt (or gl_current_context returns NULL).
 * @retval GPGPU_ERROR_GL_VERSION the GL context is older than 4.5 (the message names the
 *   version).
 * @retval GPGPU_ERROR_BACKEND_UNAVAILABLE Vulkan was asked for in a build without it, there
 *   is no Vulkan driver or no device with a compute queue, or the device offers less than
 *   Vulkan 1.1; the GLFW platform was asked for in a build without GLFW.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory, or the Vulkan device's memory for the
 *   library's own objects, ran out.
 * @retval GPGPU_ERROR_BACKEND a Vulkan call failed while the device was set up; GL: with
 *   debug, the driver reported an error during the setup.
 *
 * On failure gpgpu_last_error(NULL) says why.
 * @thread_safety Any thread: the EGL platforms make contexts in any thread, the GLFW
 *   platform only in the main thread (GLFW's rule). An adopted GL context must be current in
 *   the calling thread. A failure's message is kept for the calling thread.
 * @pointer_lifetime desc and what it points to (vk_adopt) are read during the call only;
 *   error_callback, gl_current_context and user_data are kept and called for the context's
 *   life.
 */
GPGPU_API gpgpu_status gpgpu_context_create(const gpgpu_context_desc *desc, gpgpu_context **out);

/**
 * @brief Destroys the context and every program it compiled; NULL is accepted.
 *
 * Destroy its buffers
 * and matrices first: any use of them afterwards, their destroy calls included, is undefined
 * behaviour (as of memory after free). A GL context must be destroyed in the thread where it
 * is current. An adopted GL context must be current (or, with gl_accept_shared_contexts, one
 * sharing its objects, which cannot take back the adopted context's own queries and debug
 * callback): otherwise no GL call is made, the library's GL objects are left to the adopted
 * context (GL deletes them with it), host memory is freed, and the error callback is called
 * once with GPGPU_ERROR_WRONG_CONTEXT or GPGPU_ERROR_NO_CONTEXT.
 * @param[in] ctx the context, or NULL.
 * @thread_safety The thread that uses `ctx` (@ref threads "Thread safety"), with no other
 *   call of it running.
 * @pointer_lifetime ctx, and every buffer and matrix made from it, are invalid afterwards.
 */
GPGPU_API void gpgpu_context_destroy(gpgpu_context *ctx);

/**
 * @brief Gives back the GPU memory the context keeps between calls.
 *
 * That is its scratch buffers (grown by
 * the primitives and kept for the next call) and the memory of freed buffers kept for reuse
 * (gpgpu_context_desc.memory_cache). The next call that needs them allocates
 * again. NULL is accepted. Not in the adopted GL context: nothing of GL's is freed (the
 * scratch buffers' GL buffers are left to the adopted context) and the error callback hears
 * why (GPGPU_ERROR_WRONG_CONTEXT or GPGPU_ERROR_NO_CONTEXT).
 * @param[in] ctx the context, or NULL.
 * @thread_safety The thread that uses `ctx` (@ref threads "Thread safety").
 */
GPGPU_API void gpgpu_context_trim(gpgpu_context *ctx);

/**
 * @brief The message of the context's last failure ("" if none).
 *
 * With ctx NULL, the
 * message of the last failed gpgpu_context_create on this thread.
 * @param[in] ctx the context, or NULL.
 * @return the message, never NULL.
 * @thread_safety The thread that uses `ctx`; with ctx NULL any thread, each one reading its
 *   own.
 * @pointer_lifetime valid until the next failing call on that context (with ctx NULL: the next
 *   failing gpgpu_context_create in this thread) or the context's destroy.
 */
GPGPU_API const char *gpgpu_last_error(const gpgpu_context *ctx);

/**
 * @brief The context's last warning ("" if none; "" for ctx NULL).
 *
 * A warning is something the library ignored
 * and worked around without failing the call, such as a tuners' cache file
 * ($GPGPU_TUNE_CACHE) that is not a regular file of at most 1 MiB, or lines of it that do not
 * parse. The library does not print them: read this after a call to show it. A later warning
 * replaces it; successful calls leave it as it is.
 * @param[in] ctx the context, or NULL.
 * @return the warning, never NULL.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime valid until the next warning on that context or its destroy.
 */
GPGPU_API const char *gpgpu_last_warning(const gpgpu_context *ctx);

/**
 * @brief A constant English name for a status code ("unknown status" for others).
 * @param status any value.
 * @return the name, never NULL.
 * @thread_safety Any thread.
 * @pointer_lifetime Static.
 */
GPGPU_API const char *gpgpu_status_string(gpgpu_status status);

/**
 * @brief A constant name for a type ("u32", "i32", "f32", "f64"), NULL for an unknown value.
 * @param type any value.
 * @return the name, or NULL.
 * @thread_safety Any thread.
 * @pointer_lifetime Static.
 */
GPGPU_API const char *gpgpu_type_name(gpgpu_type type);

/**
 * @brief Size in bytes of one element of a type, 0 for an unknown value.
 * @param type any value.
 * @return 4 or 8, or 0.
 * @thread_safety Any thread.
 */
GPGPU_API size_t gpgpu_type_size(gpgpu_type type);

/** What the context runs on. Strings live as long as the context. */
typedef struct gpgpu_info {
    const char *backend;      /**< "gl" or "vulkan" */
    const char *platform;     /**< GL: "egl-device", "egl-surfaceless", "glfw", "adopt";
                                   Vulkan: "vulkan" (own device) or "vulkan-adopt" */
    const char *vendor;       /**< GL_VENDOR, or the Vulkan device's vendor */
    const char *renderer;     /**< GL_RENDERER, or the Vulkan device's name */
    const char *version;      /**< the implementation's version string */
    int version_major;        /**< GL major version, or the Vulkan API's */
    int version_minor;        /**< GL minor version, or the Vulkan API's */
    bool has_f64;             /**< shaders have double */
    bool has_subgroups;       /**< subgroup arithmetic, ballots and shuffles in compute shaders */
    /** Cooperative matrices: 16 x 16 x 16 f16 tile products into f32 per subgroup
     *  (VK_NV_cooperative_matrix; GL_NV_cooperative_matrix in GL), which
     *  GPGPU_ALGO_GEMM_COOPMAT_F16 runs on. An adopted Vulkan device: false. */
    bool has_coopmat_f16;
    unsigned subgroup_size;   /**< 0 when unknown */
    unsigned max_workgroup_invocations; /**< most invocations in one work-group */
    unsigned max_workgroup_count_x;     /**< most work-groups of one dispatch in x */
    size_t max_shared_memory_bytes;     /**< shared memory of one work-group */
    size_t max_storage_block_bytes;     /**< largest storage block a shader declares */
    size_t storage_offset_alignment;    /**< alignment of a storage binding's start, bytes */
    size_t max_storage_range_bytes; /**< largest range one binding can hold */
    size_t device_memory_bytes; /**< device-local memory (0 when the API does not say) */
    /** The device's number in gpgpu_context_desc.device's list (1 for the first), whichever
     *  way it was chosen; 0 where the context was adopted or made on a platform other than
     *  egl-device. */
    uint32_t device;
    /** The device's UUID (Vulkan's deviceUUID; GL's GL_DEVICE_UUID_EXT, which names the same
     *  GPU, else the EGL device's persistent id), where the driver gives one. */
    bool has_uuid;
    uint8_t uuid[16]; /**< valid where has_uuid */
} gpgpu_info;

/**
 * @brief Fills *info with what the context runs on.
 *
 * Makes no GL call: it works whichever GL context is current.
 * @param[in] ctx the context.
 * @param[out] info receives the description.
 * @retval GPGPU_SUCCESS *info is filled.
 * @retval GPGPU_ERROR_NULL_POINTER ctx or info is NULL.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime The strings of *info live as long as the context.
 */
GPGPU_API gpgpu_status gpgpu_context_get_info(gpgpu_context *ctx, gpgpu_info *info);

/**
 * @brief How many devices a backend lists for gpgpu_context_desc.device.
 *
 * GL's EGL devices (0 without EGL_EXT_platform_device), Vulkan's physical devices (0 without a
 * Vulkan driver), in the order gpgpu_context_desc.device counts them; no context is made.
 * @param[in] backend GPGPU_BACKEND_GL, GPGPU_BACKEND_VULKAN, or GPGPU_BACKEND_DEFAULT
 *   (GPGPU_BACKEND, else GL).
 * @param[out] count receives the number of devices.
 * @retval GPGPU_SUCCESS *count is set (0: none to choose from).
 * @retval GPGPU_ERROR_NULL_POINTER count is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown backend, or GPGPU_BACKEND value.
 * @retval GPGPU_ERROR_BACKEND_UNAVAILABLE a backend the build has not (-Dgl, -Dvulkan).
 *
 * A failure's message is gpgpu_last_error(NULL)'s.
 * @thread_safety Any thread.
 */
GPGPU_API gpgpu_status gpgpu_device_count(gpgpu_backend backend, uint32_t *count);

/** @} */

/* ---------------------------------------------------------------- buffers */

/**
 * @defgroup buffers Buffers
 * @brief Device memory: the library's own buffers, wraps of the caller's, host transfers.
 * @{
 */

/**
 * @brief Creates a library-owned device buffer of `bytes` bytes (contents undefined).
 * @param[in] ctx the context.
 * @param bytes the size, at least 1.
 * @param[out] out receives the buffer; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the new buffer.
 * @retval GPGPU_ERROR_NULL_POINTER ctx or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT bytes is 0.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY the driver cannot allocate it, it is larger than the
 *   device's memory, or it would take the context past gpgpu_context_desc.memory_limit; the
 *   context stays usable.
 * @retval GPGPU_ERROR_BACKEND the driver reported another error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime The buffer lives until gpgpu_buffer_destroy, which must come before the
 *   context's destroy.
 */
GPGPU_API gpgpu_status gpgpu_buffer_create(gpgpu_context *ctx, size_t bytes, gpgpu_buffer **out);

/**
 * @brief Wraps `bytes` bytes of the caller's GL buffer object `name` from byte `offset`,
 * without copying.
 *
 * The library never deletes the GL buffer; the
 * caller keeps it alive until gpgpu_buffer_destroy. Element ranges passed to
 * primitives are relative to `offset`, which must be a multiple of 4 (8 for
 * f64 data). `name` is looked up in the adopted (or the library's own) context.
 * @param[in] ctx a GL context.
 * @param name the GL buffer object.
 * @param offset the first byte of the wrap in the GL buffer, a multiple of 4.
 * @param bytes the size of the wrap, at least 1.
 * @param[out] out receives the wrap; NULL on failure.
 * @retval GPGPU_SUCCESS *out is the wrap.
 * @retval GPGPU_ERROR_NULL_POINTER ctx or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT bytes is 0, the context is not a GL one, or name is
 *   not a buffer object.
 * @retval GPGPU_ERROR_MISALIGNED offset is not a multiple of 4.
 * @retval GPGPU_ERROR_OUT_OF_RANGE offset + bytes exceeds the GL buffer (or SIZE_MAX).
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host memory ran out.
 * @retval GPGPU_ERROR_BACKEND GL reported an error reading the buffer's size.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime The wrap lives until gpgpu_buffer_destroy; the GL buffer must outlive it.
 */
GPGPU_API gpgpu_status gpgpu_buffer_wrap_gl(gpgpu_context *ctx, unsigned name, size_t offset,
                                            size_t bytes, gpgpu_buffer **out);

/**
 * @brief Destroys a buffer (a wrapped GL buffer or VkBuffer is left alone); NULL is accepted.
 *
 * A library buffer
 * of an adopted GL context destroyed while it is not current keeps its GL buffer (GL deletes
 * it with the adopted context) and the error callback hears why.
 * @param[in] buf the buffer, or NULL.
 * @thread_safety The thread that uses the buffer's context.
 * @pointer_lifetime buf is invalid afterwards.
 */
GPGPU_API void gpgpu_buffer_destroy(gpgpu_buffer *buf);

/**
 * @brief Size in bytes of the buffer (of the wrapped range).
 * @param[in] buf the buffer, or NULL.
 * @return the size; 0 for NULL.
 * @thread_safety The thread that uses the buffer's context.
 */
GPGPU_API size_t gpgpu_buffer_size(const gpgpu_buffer *buf);

/**
 * @brief Copies `bytes` bytes from host memory into the buffer at byte `offset`.
 *
 * 0 bytes does nothing and touches no GL.
 * @param[in] buf the buffer.
 * @param offset the first byte written.
 * @param[in] data the bytes, or NULL when bytes is 0.
 * @param bytes how many bytes.
 * @retval GPGPU_SUCCESS the bytes are in the buffer (for later GPU work; a Vulkan write of
 *   at most 64 KiB of whole words lands with the next submission).
 * @retval GPGPU_ERROR_NULL_POINTER buf is NULL, or data is NULL with bytes > 0.
 * @retval GPGPU_ERROR_OUT_OF_RANGE [offset, offset + bytes) runs past the buffer.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION Vulkan: work is recorded into a caller's
 *   command buffer (gpgpu_vk_record_into).
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host or device memory for the transfer ran out (Vulkan:
 *   its staging buffer).
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses the buffer's context.
 */
GPGPU_API gpgpu_status gpgpu_buffer_upload(gpgpu_buffer *buf, size_t offset, const void *data,
                                           size_t bytes);

/**
 * @brief Copies `bytes` bytes from the buffer at byte `offset` into host memory.
 *
 * Waits for the GPU work that writes the buffer. 0 bytes does nothing and touches no GL.
 * @param[in] buf the buffer.
 * @param offset the first byte read.
 * @param[out] data receives the bytes, or NULL when bytes is 0.
 * @param bytes how many bytes.
 * @retval GPGPU_SUCCESS data holds the bytes.
 * @retval GPGPU_ERROR_NULL_POINTER buf is NULL, or data is NULL with bytes > 0.
 * @retval GPGPU_ERROR_OUT_OF_RANGE [offset, offset + bytes) runs past the buffer.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION Vulkan: work is recorded into a caller's
 *   command buffer.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY host or device memory for the transfer ran out (Vulkan:
 *   its staging buffer).
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses the buffer's context.
 */
GPGPU_API gpgpu_status gpgpu_buffer_download(gpgpu_buffer *buf, size_t offset, void *data,
                                             size_t bytes);

/** @} */

/* ----------------------------------------------------------------- reduce */

/**
 * @defgroup reduce Reduce
 * @brief Sum, min, max, or min and max of a range, to the host or into a buffer.
 * @{
 */

/** What to reduce and how; zero algo means the fast default. */
typedef struct gpgpu_reduce_desc {
    gpgpu_type type; /**< the element type */
    gpgpu_op op;     /**< the operator */
    gpgpu_algo algo; /**< DEFAULT/FAST, CLASSIC_HALVING, CLASSIC_STRIDE (any op); CLASSIC_MINMAX (op MINMAX only) */
} gpgpu_reduce_desc;

/**
 * @brief Reduces elements [offset, offset + count) of `in` and writes the result to host
 * memory.
 *
 * The result is one element, or two (min, max)
 * for GPGPU_OP_MINMAX. `in` is not modified (the classic algorithms work on
 * a scratch copy). Empty input gives the identity: 0 for sum, the largest
 * value (+inf for floats) for min, the smallest (-inf) for max, without GPU work. Integer sums
 * wrap modulo 2^32. Float sums are not bit-reproducible between algorithms
 * (the order of additions differs); each algorithm's order is fixed, so one
 * algorithm on one device repeats its result.
 *
 * @param[in] ctx the context.
 * @param[in] desc type, operator and algorithm.
 * @param[in] in the buffer.
 * @param offset the first element, in elements of desc->type.
 * @param count how many elements.
 * @param[out] result receives one element of desc->type, two for MINMAX.
 * @retval GPGPU_SUCCESS *result holds the reduction.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, in or result is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type or operator; a value that names no
 *   algorithm; in belongs to another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION CLASSIC_MINMAX with an op other than MINMAX;
 *   another primitive's algorithm (one rule for every call: ::gpgpu_algo); Vulkan: work is recorded into a caller's command buffer, so no result
 *   can come back (gpgpu_reduce_to_buffer can).
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE the range runs past the end of in.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1, or the range past element 2^32 - 1 of
 *   its binding; in, or a classic algorithm's scratch copy, larger than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_reduce(gpgpu_context *ctx, const gpgpu_reduce_desc *desc,
                                    gpgpu_buffer *in, size_t offset, size_t count, void *result);

/**
 * @brief Like gpgpu_reduce, but writes the result into element `out_offset` of the device
 * buffer `out`.
 *
 * Nothing is read back, so the call does not wait for the GPU, and it can be
 * recorded into a caller's Vulkan command buffer. The result must not land
 * inside the input range. Empty input writes the identity.
 * @param[in] ctx the context.
 * @param[in] desc type, operator and algorithm.
 * @param[in] in the input buffer.
 * @param offset the first element of the input.
 * @param count how many elements.
 * @param[out] out the buffer that receives the result (two elements for MINMAX).
 * @param out_offset where the result goes, in elements of desc->type.
 * @retval GPGPU_SUCCESS the result is written (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, in or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT as gpgpu_reduce, and out of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION CLASSIC_MINMAX with an op other than MINMAX;
 *   another primitive's algorithm.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE the input range or the result's place runs past its
 *   buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_OVERLAP the result's place overlaps the input.
 * @retval GPGPU_ERROR_TOO_LARGE as gpgpu_reduce, for either buffer.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_reduce_to_buffer(gpgpu_context *ctx, const gpgpu_reduce_desc *desc,
                                              gpgpu_buffer *in, size_t offset, size_t count,
                                              gpgpu_buffer *out, size_t out_offset);

/** @} */

/* ------------------------------------------------------------------- scan */

/**
 * @defgroup scan Scan
 * @brief Inclusive and exclusive prefix sums.
 * @{
 */

/** What to scan and how. The operator is +; integers wrap modulo 2^32. */
typedef struct gpgpu_scan_desc {
    gpgpu_type type; /**< the element type */
    bool exclusive; /**< out[i] = sum of in[0..i-1] (out[0] = 0) instead of in[0..i] */
    gpgpu_algo algo; /**< DEFAULT/FAST (the single pass where the device has subgroups,
                          for f64 up to 2^21 elements or where its large tile is reloaded after
                          the look-back, as on GL; else reduce-then-scan), SCAN_SINGLE_PASS, SCAN_REDUCE_THEN_SCAN or CLASSIC_SCAN.
                          Float sums of the single pass may differ in the last bits from run to
                          run (the look-back adds the tiles' sums in an order that depends on
                          timing, as CUB's does); the other algorithms are deterministic. */
    /** A count that stays on the GPU: with count_buffer set the call's `count` is an upper
     *  bound (it sizes the dispatches and must fit the ranges), and the scan covers the first
     *  min(count_buffer[count_offset], count) elements (u32, offset in elements), read on the
     *  GPU when the work runs: no readback, recordable into a caller's Vulkan command buffer.
     *  Outputs past that count are not written. Not with CLASSIC_SCAN. */
    gpgpu_buffer *count_buffer;
    size_t count_offset; /**< in elements (u32) */
} gpgpu_scan_desc;

/**
 * @brief Prefix sums of elements [in_offset, in_offset + count) of `in` into
 * [out_offset, out_offset + count) of `out`.
 *
 * In place when in == out and the
 * offsets are equal; other overlaps are refused. With desc->count_buffer, `count` bounds
 * the count read on the GPU.
 *
 * @param[in] ctx the context.
 * @param[in] desc type, inclusive or exclusive, algorithm.
 * @param[in] in the input buffer.
 * @param in_offset the first input element, in elements of desc->type.
 * @param[out] out the output buffer (may be in).
 * @param out_offset the first output element.
 * @param count how many elements.
 * @retval GPGPU_SUCCESS the sums are written (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, in or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type; a value that names no algorithm; a
 *   buffer of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION another primitive's algorithm (a reduction's,
 *   a sort's, ...); CLASSIC_SCAN with a count_buffer.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range runs past its buffer; the count_buffer's element
 *   past its buffer.
 * @retval GPGPU_ERROR_OVERLAP the ranges overlap without being equal.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1, or a range past element 2^32 - 1 of its
 *   binding; a buffer, or CLASSIC_SCAN's copy of the input, larger than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_scan(gpgpu_context *ctx, const gpgpu_scan_desc *desc,
                                  gpgpu_buffer *in, size_t in_offset, gpgpu_buffer *out,
                                  size_t out_offset, size_t count);

/** @} */

/* ------------------------------------------------------------------- sort */

/**
 * @defgroup sort Sort
 * @brief Keys, key-value pairs and segments, by bitonic networks or radix sort.
 * @{
 */

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
    bool descending;   /**< largest first (the exact reverse of the ascending order) */
    bool stable;       /**< equal keys keep their input order (every algorithm) */
    gpgpu_algo algo;   /**< DEFAULT/FAST (BITONIC for counts up to one tile of 2048, RADIX
                            above), CLASSIC_NETSORT, BITONIC, RADIX */
    /** u32 values, one per key, or NULL for keys only. */
    gpgpu_buffer *values_in;
    size_t values_in_offset;   /**< in elements */
    /** Where the values go; NULL sorts them in place (values_in, values_in_offset). */
    gpgpu_buffer *values_out;
    size_t values_out_offset;  /**< in elements */
    /** Segmented sort: segment_count + 1 u32 offsets (CSR row pointers), nondecreasing from 0
     *  to count; each [offsets[s], offsets[s+1]) is sorted alone. NULL: one segment. */
    gpgpu_buffer *segments;
    size_t segments_offset;    /**< in elements */
    size_t segment_count;      /**< segments (the offsets hold one more); at least 1 for keys */
    /** Optional scratch memory of at least gpgpu_sort_scratch_size() bytes from
     *  scratch_offset (a multiple of 8); NULL uses the context's own, kept between calls. */
    gpgpu_buffer *scratch;
    size_t scratch_offset;     /**< in bytes, a multiple of 8 */
    /** A count that stays on the GPU, as gpgpu_scan_desc.count_buffer: `count` is the upper
     *  bound that sizes the sort (and its scratch), and the first min(count_buffer
     *  [count_offset], count) keys (and values) are sorted, read on the GPU; the rest of the
     *  ranges is neither read nor written. The radix sort only (DEFAULT/FAST take it), not
     *  with segments. */
    gpgpu_buffer *count_buffer;
    size_t count_offset;       /**< in elements (u32) */
} gpgpu_sort_desc;

/**
 * @brief Sorts keys [keys_in_offset, keys_in_offset + count) of `keys_in` into
 * [keys_out_offset, ...) of `keys_out`, and the values with them when desc->values_in is set.
 *
 * keys_out NULL, or equal to keys_in
 * at the same offset, sorts in place; other overlaps are refused. The input
 * is left unchanged when sorting out of place.
 *
 * Segment offsets that are not nondecreasing from 0 to count give an
 * unspecified permutation of the input (never an access outside the buffers);
 * the `gpgpu sort` command checks them.
 *
 * @param[in] ctx the context.
 * @param[in] desc key type, order, algorithm, values, segments and scratch.
 * @param[in] keys_in the keys.
 * @param keys_in_offset the first key, in elements of desc->type.
 * @param[out] keys_out where the sorted keys go, or NULL to sort in place.
 * @param keys_out_offset the first sorted key's place.
 * @param count how many keys.
 * @retval GPGPU_SUCCESS the keys (and values) are sorted (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc or keys_in is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown key type; a value that names no algorithm;
 *   values_out without values_in; segments with segment_count 0 for count > 0; a buffer of
 *   another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION another primitive's algorithm; a count_buffer
 *   with CLASSIC_NETSORT, BITONIC or segments.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE work-groups too small (f64 keys are moved as bits
 *   and need no shader doubles).
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range runs past its buffer; segment_count SIZE_MAX; a
 *   scratch_offset past the end of desc->scratch.
 * @retval GPGPU_ERROR_OVERLAP keys in and out, values in and out, keys and values, the
 *   scratch and the keys, values or segment offsets, or the segment offsets and the keys or
 *   values written.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size; scratch_offset is not a multiple of 8.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1, or a range past element 2^32 - 1 of its
 *   binding; a buffer larger than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY see @ref errors "Errors"; also desc->scratch smaller than
 *   gpgpu_sort_scratch_size() from scratch_offset.
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_sort(gpgpu_context *ctx, const gpgpu_sort_desc *desc,
                                  gpgpu_buffer *keys_in, size_t keys_in_offset,
                                  gpgpu_buffer *keys_out, size_t keys_out_offset, size_t count);

/**
 * @brief The scratch memory, in bytes, that gpgpu_sort needs for `count` keys with this desc.
 *
 * What it depends on is the type, the algorithm, `stable`, and
 * whether values_in, values_out and segments are set (their offsets and
 * sizes are not looked at); 0 where the sort needs none. See docs/GUIDE.md for what each
 * algorithm keeps there. No GPU work.
 * @param[in] ctx the context (the size depends on its device).
 * @param[in] desc the sort's desc.
 * @param count how many keys.
 * @param[out] bytes receives the size.
 * @retval GPGPU_SUCCESS *bytes is the size.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc or bytes is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT as gpgpu_sort: an unknown key type, a value that
 *   names no algorithm, values_out without values_in.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION another primitive's algorithm.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1 keys, which gpgpu_sort refuses too.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_sort_scratch_size(gpgpu_context *ctx, const gpgpu_sort_desc *desc,
                                               size_t count, size_t *bytes);

/** @} */

/* ---------------------------------------------------------------- select */

/**
 * @defgroup select Stream compaction and partition
 * @brief The elements with a flag or a property, in input order; partitions.
 * @{
 */

/** What gpgpu_select keeps when it compares: elements x with `x OP value`, compared in the
 *  element type as C compares (a NaN on either side: false for all but NE; -0 == +0), and
 *  exactly for denormals too: f32 compares by its bits as an ordered key, so a device that
 *  flushes denormals to zero still keeps -1e-45 out of `x == 0` and in `x < 0`. */
typedef enum gpgpu_compare {
    GPGPU_COMPARE_NONE = 0, /**< no comparison: keep by gpgpu_select_desc.flags */
    GPGPU_COMPARE_LT = 1,   /**< x < value */
    GPGPU_COMPARE_LE = 2,   /**< x <= value */
    GPGPU_COMPARE_GT = 3,   /**< x > value */
    GPGPU_COMPARE_GE = 4,   /**< x >= value */
    GPGPU_COMPARE_EQ = 5,   /**< x == value */
    GPGPU_COMPARE_NE = 6    /**< x != value (true where either is NaN) */
} gpgpu_compare;

/**
 * Stream compaction (CUB's DeviceSelect::Flagged and DeviceSelect::If) and partition
 * (DevicePartition::Flagged and DevicePartition::If), stable: the kept elements in input order, and
 * partitioning, after them the rejected ones in input order too (not reversed, as CUB
 * writes them). Zero means default for every field.
 */
typedef struct gpgpu_select_desc {
    gpgpu_type type; /**< of the elements selected: u32, i32, f32 or f64 (shader doubles) */
    /** u32 flags, one per element from flags_offset: nonzero keeps. Or NULL, and: */
    gpgpu_buffer *flags;
    size_t flags_offset; /**< in elements (u32) */
    gpgpu_compare compare; /**< keeps x where `x compare value` (with flags NULL) */
    /** The comparison's constant, rounded to the type first (f32: to nearest; u32 and i32:
     *  an integer of the type's range, else GPGPU_ERROR_INVALID_ARGUMENT). */
    double value;
    bool partition; /**< the output holds all `count` elements, the kept first */
    /** DEFAULT/FAST (reduce-then-scan, the faster of the two on the devices measured; the
     *  plan's select_single_pass makes it the single pass where the device has subgroups
     *  and nothing is partitioned, up to 2^30 - 1 elements), SCAN_SINGLE_PASS (one
     *  pass over the input: tiles chained by a decoupled look-back), SCAN_REDUCE_THEN_SCAN
     *  (a counting pass first: the flags, or the values compared, are read twice;
     *  partition always runs it, so that every element is written once, where it ends). */
    gpgpu_algo algo;
    /** u32 values, one per element, moved with the elements (values_out required then). */
    gpgpu_buffer *values_in;
    size_t values_in_offset; /**< in elements (u32) */
    /** Where the output elements' values go, as the elements go to `out` (`count` u32). */
    gpgpu_buffer *values_out;
    size_t values_out_offset; /**< in elements (u32) */
    /** Where each output element's input index (0-based, from `in_offset`) goes, or NULL. */
    gpgpu_buffer *indices_out;
    size_t indices_out_offset; /**< in elements (u32) */
    /** A count that stays on the GPU, as gpgpu_scan_desc.count_buffer: `count` is then an
     *  upper bound, and the first min(count_buffer[count_offset], count) elements are
     *  selected from (partitioned: that many are written). */
    gpgpu_buffer *count_buffer;
    size_t count_offset; /**< in elements (u32) */
    /** Where the kept count goes on the GPU (a u32 at count_out_offset), or NULL: a
     *  DrawArraysIndirectCommand's `count` field, a later call's count_buffer. */
    gpgpu_buffer *count_out;
    size_t count_out_offset; /**< in elements (u32) */
    /** Optional scratch of at least gpgpu_select_scratch_size() bytes from scratch_offset
     *  (a multiple of 4); NULL uses the context's own, kept between calls. */
    gpgpu_buffer *scratch;
    size_t scratch_offset; /**< in bytes, a multiple of 4 */
} gpgpu_select_desc;

/**
 * @brief Selects from elements [in_offset, in_offset + count) of `in` the kept ones
 * (desc->flags set, or the comparison true) into `out` from out_offset, in input order.
 *
 * With desc->partition the rejected ones follow, in input order. `out` holds `count`
 * elements (any number may be kept); values_out and indices_out likewise. *selected (may be
 * NULL; NULL while recording into a caller's Vulkan command buffer) receives the kept count,
 * desc->count_out (may be NULL) too, on the GPU. Elements of the outputs past the kept
 * count (past the count, partitioning) are left as they were. No range the call writes
 * may overlap another range of the call (GPGPU_ERROR_OVERLAP); count_out may be the
 * count_buffer's element.
 *
 * @param[in] ctx the context.
 * @param[in] desc type, flags or comparison, partition, algorithm, values, indices, counts
 *   and scratch.
 * @param[in] in the elements.
 * @param in_offset the first element, in elements of desc->type.
 * @param[out] out where the kept elements go (partitioning, then the rejected ones).
 * @param out_offset the first output element.
 * @param count how many elements (with desc->count_buffer, the upper bound).
 * @param[out] selected receives the kept count (the call then waits for the GPU), or NULL.
 * @retval GPGPU_SUCCESS the outputs are written (for later GPU work), *selected is the kept
 *   count.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, in or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type or comparison; a value that names no
 *   algorithm; both flags and a comparison, or neither; values_in without values_out or the
 *   reverse; for u32 and i32, a comparison's value that is not an integer of the type; a
 *   buffer (the scratch too) of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION another primitive's algorithm; partition with
 *   SCAN_SINGLE_PASS; `selected` not NULL while recording into a caller's Vulkan command
 *   buffer.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range (input, output, flags, values, indices) runs past
 *   its buffer; the count_buffer's or count_out's element past its buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size; scratch_offset is not a multiple of 4.
 * @retval GPGPU_ERROR_OVERLAP a range the call writes (the output, values_out, indices_out,
 *   count_out, the scratch) overlaps the input, the flags, values_in or another of them.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1, or a range past element 2^32 - 1 of its
 *   binding; SCAN_SINGLE_PASS with count past 2^30 - 1; a buffer larger than one storage
 *   binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY see @ref errors "Errors"; also desc->scratch smaller than
 *   gpgpu_select_scratch_size() from scratch_offset.
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime desc is read, and *selected written, during the call only.
 */
GPGPU_API gpgpu_status gpgpu_select(gpgpu_context *ctx, const gpgpu_select_desc *desc,
                                    gpgpu_buffer *in, size_t in_offset, gpgpu_buffer *out,
                                    size_t out_offset, size_t count, size_t *selected);

/**
 * @brief The scratch memory, in bytes, that gpgpu_select needs for `count` elements with
 * this desc.
 *
 * What it depends on is the type, the algorithm and `partition` (no buffer of the desc is
 * looked at): a few words per tile of 4096 elements. No GPU work.
 * @param[in] ctx the context (the size depends on its device).
 * @param[in] desc the selection's desc.
 * @param count how many elements.
 * @param[out] bytes receives the size.
 * @retval GPGPU_SUCCESS *bytes is the size.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc or bytes is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type; a value that names no algorithm.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION another primitive's algorithm; partition with
 *   SCAN_SINGLE_PASS.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_select_scratch_size(gpgpu_context *ctx,
                                                 const gpgpu_select_desc *desc, size_t count,
                                                 size_t *bytes);

/** @} */

/* ---------------------------------------------------------------- gather */

/**
 * @defgroup gather Gather and scatter of records
 * @brief Records moved by an index buffer, indices checked first.
 * @{
 */

/** Records moved by gpgpu_gather and gpgpu_scatter. Zero means default for every field. */
typedef struct gpgpu_gather_desc {
    /** Bytes of a record: any multiple of 4 (a vec4 position is 16, a 32-byte vertex 32);
     *  0 means 4. Record offsets and counts are in records. */
    size_t record_bytes;
    /** A count that stays on the GPU, as gpgpu_scan_desc.count_buffer: `count` is then an
     *  upper bound, and the first min(count_buffer[count_offset], count) records move. */
    gpgpu_buffer *count_buffer;
    size_t count_offset; /**< in elements (u32) */
    /** Where the index check's outcome goes on the GPU (a u32: 1 when an index was out of
     *  range and nothing was written, else 0), or NULL. */
    gpgpu_buffer *status_out;
    size_t status_out_offset; /**< in elements (u32) */
} gpgpu_gather_desc;

/**
 * @brief out[i] = in[indices[i]] for i < count: records from in_offset of `in`, which holds
 * in_count records there, into records [out_offset, out_offset + count) of `out`.
 *
 * The indices are u32 from indices_offset, each below in_count. They are checked before
 * anything is written: the largest is found on the GPU first (a MAX reduction). With a
 * count from the host, and nothing recorded into a caller's Vulkan command buffer, it is
 * read back and an out-of-range index fails the call with GPGPU_ERROR_OUT_OF_RANGE, naming
 * it, before the records move. With a count_buffer, or while recording, nothing comes back
 * to the host: the GPU skips every write when an index is out of range, and only
 * desc->status_out says so; the call succeeds. `out` must not overlap `in` or the indices.
 *
 * @param[in] ctx the context.
 * @param[in] desc record size, count_buffer and status_out.
 * @param[in] in the records read.
 * @param in_offset the first record of `in`, in records.
 * @param in_count how many records `in` holds from in_offset: each index is below it.
 * @param[in] indices the u32 indices, one per record moved.
 * @param indices_offset the first index, in elements (u32).
 * @param[out] out where the records go.
 * @param out_offset the first record written, in records.
 * @param count how many records move (with desc->count_buffer, the upper bound).
 * @retval GPGPU_SUCCESS the records are moved (for later GPU work); with a count_buffer, or
 *   while recording, also where an index is out of range (then nothing is written, and
 *   desc->status_out says so).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, in, indices or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a record size that is not a multiple of 4; a buffer of
 *   another context.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range (records, indices) runs past its buffer, or its
 *   bytes past SIZE_MAX; the count_buffer's or status_out's element past its buffer; with a
 *   count from the host and nothing recorded, an index not below in_count (nothing is
 *   written).
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of 4 bytes.
 * @retval GPGPU_ERROR_OVERLAP the output or status_out overlaps the input, the indices or
 *   the other.
 * @retval GPGPU_ERROR_TOO_LARGE a range of more than 2^31 - 1 words, or past word 2^32 - 1 of
 *   its binding; a buffer larger than one storage binding.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_gather(gpgpu_context *ctx, const gpgpu_gather_desc *desc,
                                    gpgpu_buffer *in, size_t in_offset, size_t in_count,
                                    gpgpu_buffer *indices, size_t indices_offset,
                                    gpgpu_buffer *out, size_t out_offset, size_t count);

/**
 * @brief out[indices[i]] = in[i] for i < count: records [in_offset, in_offset + count) of
 * `in` into `out` from out_offset, which holds out_count records there.
 *
 * Each index is below out_count, checked as gpgpu_gather checks them. Records of `out` no
 * index names keep their contents. Where indices repeat, each word of the target record
 * holds the same word of one of the records sent there, which one unspecified (the writes
 * race; a record of several words may mix them): give distinct indices for a defined
 * result.
 *
 * @param[in] ctx the context.
 * @param[in] desc record size, count_buffer and status_out.
 * @param[in] in the records read.
 * @param in_offset the first record read, in records.
 * @param[in] indices the u32 indices, one per record moved.
 * @param indices_offset the first index, in elements (u32).
 * @param[out] out where the records go.
 * @param out_offset the first record of `out`, in records.
 * @param out_count how many records `out` holds from out_offset: each index is below it.
 * @param count how many records move (with desc->count_buffer, the upper bound).
 * @retval GPGPU_SUCCESS the records are moved (for later GPU work); with a count_buffer, or
 *   while recording, also where an index is out of range (then nothing is written, and
 *   desc->status_out says so).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, in, indices or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a record size that is not a multiple of 4; a buffer of
 *   another context.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range (records, indices) runs past its buffer, or its
 *   bytes past SIZE_MAX; the count_buffer's or status_out's element past its buffer; with a
 *   count from the host and nothing recorded, an index not below out_count (nothing is
 *   written).
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of 4 bytes.
 * @retval GPGPU_ERROR_OVERLAP the output or status_out overlaps the input, the indices or
 *   the other.
 * @retval GPGPU_ERROR_TOO_LARGE a range of more than 2^31 - 1 words, or past word 2^32 - 1 of
 *   its binding; a buffer larger than one storage binding.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_scatter(gpgpu_context *ctx, const gpgpu_gather_desc *desc,
                                     gpgpu_buffer *in, size_t in_offset,
                                     gpgpu_buffer *indices, size_t indices_offset,
                                     gpgpu_buffer *out, size_t out_offset, size_t out_count,
                                     size_t count);

/** @} */

/* -------------------------------------------------------------- histogram */

/**
 * @defgroup histogram Histograms
 * @brief Counts of samples in even bins or in bins between given levels.
 * @{
 */

/** The most bins a histogram takes. */
#define GPGPU_HISTOGRAM_MAX_BINS 65536u

/**
 * What to count and in which bins: even bins over [lower, upper) (CUB's
 * HistogramEven), or, with `levels`, the bins between bins + 1 given levels
 * (HistogramRange). Zero means default for every other field.
 */
typedef struct gpgpu_histogram_desc {
    gpgpu_type type;   /**< the samples' type (and the levels') */
    uint32_t bins;     /**< 1 to GPGPU_HISTOGRAM_MAX_BINS */
    /** Even bins: bin b holds lower + b (upper - lower) / bins <= v < ...: for u32 and i32
     *  (lower, upper: values of the type) the bin of v is floor((v - lower) * bins / (upper -
     *  lower)) computed exactly; for f32 and f64 (lower, upper rounded to the type) it is
     *  CUB's (v - lower) * scale truncated, scale = bins / (upper - lower), every operation
     *  rounded in the type (the last bin where that rounds up to bins). */
    double lower, upper; /**< upper: even bins' bound, excluded (v < upper); see lower */
    /** HistogramRange: bins + 1 levels of `type`, nondecreasing; bin i holds levels[i] <= v
     *  < levels[i + 1]. Levels out of order give unspecified counts (never an access outside
     *  the buffers). NULL: even bins. */
    gpgpu_buffer *levels;
    size_t levels_offset;      /**< in elements */
    /** The sample count on the GPU: min(count_buffer[count_offset], count) (u32, offset in
     *  elements) is read when the shaders run; `count` then bounds it. NULL: count. */
    gpgpu_buffer *count_buffer;
    size_t count_offset; /**< in elements (u32) */
} gpgpu_histogram_desc;

/**
 * @brief Counts the samples [in_offset, in_offset + count) of `in` into the bins: writes
 * `bins` u32 counts to [counts_offset, counts_offset + bins) of `counts` (overwriting them).
 *
 * A sample outside [lower, upper) (or outside [levels[0], levels[bins])) counts in no bin,
 * nor does NaN. Comparisons are IEEE's (-0 = +0) and exact for every value that is not NaN,
 * denormals included: f32 compares by its bits as an ordered key, so a device that flushes
 * denormals to zero does not change which bin a sample or a level lands in. Only the even
 * bins' arithmetic, `(v - lower) * scale`, may flush a denormal difference to zero on such a
 * device, which moves a sample only where the whole range is below about 2^-100. Counters
 * live in shared memory where the bins fit (each work-group counts its part, then adds its
 * counters to the output), else atomics count on the output itself. Needs no scratch;
 * recordable into a caller's Vulkan command buffer.
 *
 * @param[in] ctx the context.
 * @param[in] desc type, bins, even bounds or levels, count_buffer.
 * @param[in] in the samples.
 * @param in_offset the first sample, in elements of desc->type.
 * @param count how many samples (with desc->count_buffer, the upper bound).
 * @param[out] counts receives desc->bins u32 counts.
 * @param counts_offset the first count, in elements (u32).
 * @retval GPGPU_SUCCESS the counts are written (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, in or counts is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type; bins 0 or above
 *   GPGPU_HISTOGRAM_MAX_BINS; even bins (levels NULL) with bounds that are not finite, not
 *   values of the type (u32, i32) or within f32's range, not lower < upper in the type, or
 *   whose range or scale the float type holds only as infinity or a subnormal number; a
 *   buffer of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE the samples, the counts or the bins + 1 levels run past
 *   their buffer; the count_buffer's element past its buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_OVERLAP the counts overlap the samples, the levels or the
 *   count_buffer's element.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1, or a range past element 2^32 - 1 of its
 *   binding; a buffer larger than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_histogram(gpgpu_context *ctx, const gpgpu_histogram_desc *desc,
                                       gpgpu_buffer *in, size_t in_offset, size_t count,
                                       gpgpu_buffer *counts, size_t counts_offset);

/** @} */

/* ------------------------------------------------------ segmented reduce */

/**
 * @defgroup segreduce Segmented reductions
 * @brief Sum, min or max of each segment of a range given by offsets.
 * @{
 */

/**
 * A reduction of every segment of a vector: segment s is elements [segments[s],
 * segments[s + 1]) of the input range (segment_count + 1 u32 offsets, nondecreasing, each at
 * most count, as CSR row pointers or the segmented sort's offsets; the first need not be 0).
 */
typedef struct gpgpu_segmented_reduce_desc {
    gpgpu_type type;    /**< the elements' type (and the results') */
    gpgpu_op op;        /**< SUM, MIN or MAX */
    /** The segment_count + 1 u32 offsets (required). */
    gpgpu_buffer *segments;
    size_t segments_offset;    /**< in elements */
    /** The segment count on the GPU: min(count_buffer[count_offset], segment_count) (u32,
     *  offset in elements), read when the shaders run; segment_count then bounds it (and
     *  sizes the dispatch and the scratch). NULL: segment_count. */
    gpgpu_buffer *count_buffer;
    size_t count_offset;       /**< in elements (u32) */
    /** Optional scratch of at least gpgpu_segmented_reduce_scratch_size() bytes from
     *  scratch_offset (a multiple of 8); NULL uses the context's own, kept between calls. */
    gpgpu_buffer *scratch;
    size_t scratch_offset;     /**< in bytes, a multiple of 8 */
} gpgpu_segmented_reduce_desc;

/**
 * @brief out[out_offset + s] = op over segment s of the input [in_offset, in_offset + count),
 * for every s < segment_count.
 *
 * An empty segment gives the identity (0 for sum, the largest value for min, +inf for
 * floats, the smallest for max); integer sums wrap modulo 2^32; NaN propagates through min
 * and max, as gpgpu_reduce's. Float sums are deterministic on a device (a fixed order) but
 * differ from a sequential sum in the last bits. The work is split by segments and elements
 * together (a merge path over segment ends and elements), so millions of tiny segments and
 * a few huge ones go at the same speed. Offsets that are not nondecreasing and at most
 * count give unspecified values (never an access outside the buffers); the `gpgpu
 * segreduce` command checks them. Recordable into a caller's Vulkan command buffer.
 *
 * @param[in] ctx the context.
 * @param[in] desc type, operator, segment offsets, count_buffer and scratch.
 * @param[in] in the elements.
 * @param in_offset the first element, in elements of desc->type.
 * @param count how many elements (the offsets lie in [0, count]).
 * @param[out] out receives one element of desc->type per segment.
 * @param out_offset the first segment's result, in elements of desc->type.
 * @param segment_count how many segments (with desc->count_buffer, the upper bound); 0
 *   writes nothing.
 * @retval GPGPU_SUCCESS the segments' results are written (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, desc->segments, in or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type or operator; a buffer (the scratch
 *   too) of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION MINMAX (use MIN and MAX).
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles.
 * @retval GPGPU_ERROR_OUT_OF_RANGE the input, the output or the segment_count + 1 offsets run
 *   past their buffer; the count_buffer's element past its buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size; scratch_offset, or a wrapped scratch buffer's offset, not a multiple of 8.
 * @retval GPGPU_ERROR_OVERLAP the output overlaps the input, the offsets or the
 *   count_buffer's element; the scratch overlaps any of them.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1, segment_count 2^31 - 1 or more, or a
 *   range past element 2^32 - 1 of its binding; count + segment_count past 2^32 - 2049 (the
 *   merge path's steps are 32-bit); a buffer larger than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY see @ref errors "Errors"; also desc->scratch smaller than
 *   gpgpu_segmented_reduce_scratch_size() from scratch_offset.
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_segmented_reduce(gpgpu_context *ctx,
                                              const gpgpu_segmented_reduce_desc *desc,
                                              gpgpu_buffer *in, size_t in_offset, size_t count,
                                              gpgpu_buffer *out, size_t out_offset,
                                              size_t segment_count);

/**
 * @brief The scratch, in bytes, that gpgpu_segmented_reduce needs for these counts (upper
 * bounds where the segment count comes from a buffer) and desc's type.
 *
 * Only desc's type and operator are looked at. No GPU work.
 * @param[in] ctx the context.
 * @param[in] desc the segmented reduction's desc.
 * @param count how many elements.
 * @param segment_count how many segments.
 * @param[out] bytes receives the size.
 * @retval GPGPU_SUCCESS *bytes is the size.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc or bytes is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type or operator.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION MINMAX, which gpgpu_segmented_reduce refuses
 *   too.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_segmented_reduce_scratch_size(
    gpgpu_context *ctx, const gpgpu_segmented_reduce_desc *desc, size_t count,
    size_t segment_count, size_t *bytes);

/** @} */

/* ------------------------------------------------- run-length encoding */

/**
 * @defgroup rle Run-length encoding and reduce-by-key
 * @brief Runs of equal consecutive keys: their values, lengths and sums.
 * @{
 */

/**
 * Runs of equal consecutive keys. Keys are equal by the sort's total order
 * (gpgpu_sort_desc): integers by value; floats bit for bit, except that all NaNs are one
 * value whatever their sign and payload (-0 and +0 differ). Zero means default.
 */
typedef struct gpgpu_rle_desc {
    gpgpu_type type;        /**< the keys' type */
    gpgpu_type value_type;  /**< gpgpu_reduce_by_key: the values' type (0: the keys') */
    /** The key count on the GPU: min(count_buffer[count_offset], count) (u32, offset in
     *  elements) is read when the shaders run; `count` then bounds it (and sizes the
     *  dispatch and the scratch). NULL: count. */
    gpgpu_buffer *count_buffer;
    size_t count_offset;     /**< in elements (u32) */
    /** Where the run count goes on the GPU (a u32 at count_out_offset, in elements; e.g. the
     *  count field of a DrawArraysIndirectCommand), or NULL. */
    gpgpu_buffer *count_out;
    size_t count_out_offset; /**< in elements (u32) */
    /** Optional scratch of at least gpgpu_rle_scratch_size() bytes from scratch_offset (a
     *  multiple of 8); NULL uses the context's own, kept between calls. */
    gpgpu_buffer *scratch;
    size_t scratch_offset;   /**< in bytes, a multiple of 8 */
} gpgpu_rle_desc;

/**
 * @brief Run-length encoding of keys [keys_offset, keys_offset + count): the first key of
 * each run to unique_out and the run's length (u32) to lengths_out.
 *
 * The first key goes by its bits (a run of NaNs gives its first NaN); run r is at element r
 * of each output from its offset; either output may be NULL. Each must hold `count`
 * elements (the most runs there can be); elements past the run count are left as they were.
 * The run count goes to *runs (when runs is not NULL: the call then waits for the GPU) and
 * to desc->count_out (when set). With runs NULL the call is recordable into a caller's
 * Vulkan command buffer. desc->value_type is not looked at.
 *
 * @param[in] ctx the context.
 * @param[in] desc key type, count_buffer, count_out and scratch.
 * @param[in] keys the keys.
 * @param keys_offset the first key, in elements of desc->type.
 * @param count how many keys (with desc->count_buffer, the upper bound).
 * @param[out] unique_out receives each run's first key, or NULL.
 * @param unique_offset the first run's key, in elements of desc->type.
 * @param[out] lengths_out receives each run's length (u32), or NULL.
 * @param lengths_offset the first run's length, in elements (u32).
 * @param[out] runs receives the run count (the call then waits for the GPU), or NULL.
 * @retval GPGPU_SUCCESS the runs are written (for later GPU work), *runs is their count.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc or keys is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown key type; a buffer (the scratch too) of
 *   another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION `runs` not NULL while recording into a
 *   caller's Vulkan command buffer.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE the keys, unique_out or lengths_out (`count` elements
 *   each) run past their buffer; the count_buffer's or count_out's element past its buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size; scratch_offset, or a wrapped scratch buffer's offset, not a multiple of 8.
 * @retval GPGPU_ERROR_OVERLAP a range the call writes (unique_out, lengths_out, count_out,
 *   the scratch) overlaps the keys, the count_buffer's element or another of them.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1, or a range past element 2^32 - 1 of its
 *   binding; a buffer larger than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY see @ref errors "Errors"; also desc->scratch smaller than
 *   gpgpu_rle_scratch_size() (by_key false) from scratch_offset.
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime desc is read, and *runs written, during the call only.
 */
GPGPU_API gpgpu_status gpgpu_run_length_encode(gpgpu_context *ctx, const gpgpu_rle_desc *desc,
                                               gpgpu_buffer *keys, size_t keys_offset,
                                               size_t count, gpgpu_buffer *unique_out,
                                               size_t unique_offset, gpgpu_buffer *lengths_out,
                                               size_t lengths_offset, size_t *runs);

/**
 * @brief Reduce-by-key: for each run of equal keys (as gpgpu_run_length_encode finds them),
 * its first key to keys_out and the sum of the values at the run's positions to sums_out.
 *
 * The values are of desc->value_type, from values_offset of `values`, summed as
 * gpgpu_segmented_reduce sums a segment (integers wrap, floats in a fixed order). Counts
 * and outputs as for gpgpu_run_length_encode.
 *
 * @param[in] ctx the context.
 * @param[in] desc key and value types, count_buffer, count_out and scratch.
 * @param[in] keys the keys.
 * @param keys_offset the first key, in elements of desc->type.
 * @param[in] values the values, one per key.
 * @param values_offset the first value, in elements of the value type.
 * @param count how many keys and values (with desc->count_buffer, the upper bound).
 * @param[out] keys_out receives each run's first key, or NULL.
 * @param keys_out_offset the first run's key, in elements of desc->type.
 * @param[out] sums_out receives each run's sum, in the value type.
 * @param sums_out_offset the first run's sum, in elements of the value type.
 * @param[out] runs receives the run count (the call then waits for the GPU), or NULL.
 * @retval GPGPU_SUCCESS the runs' keys and sums are written (for later GPU work), *runs is
 *   their count.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, keys, values or sums_out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown key or value type; a buffer (the scratch
 *   too) of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION `runs` not NULL while recording into a
 *   caller's Vulkan command buffer.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 keys or values without shader doubles;
 *   work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE the keys, values, sums_out or keys_out (`count` elements
 *   each) run past their buffer; the count_buffer's or count_out's element past its buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size; scratch_offset, or a wrapped scratch buffer's offset, not a multiple of 8.
 * @retval GPGPU_ERROR_OVERLAP a range the call writes (keys_out, sums_out, count_out, the
 *   scratch) overlaps the keys, the values, the count_buffer's element or another of them.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1024 (the sums' merge path over keys and
 *   runs is 32-bit), or a range past element 2^32 - 1 of its binding; a buffer larger than
 *   one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY see @ref errors "Errors"; also desc->scratch smaller than
 *   gpgpu_rle_scratch_size() (by_key true) from scratch_offset.
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime desc is read, and *runs written, during the call only.
 */
GPGPU_API gpgpu_status gpgpu_reduce_by_key(gpgpu_context *ctx, const gpgpu_rle_desc *desc,
                                           gpgpu_buffer *keys, size_t keys_offset,
                                           gpgpu_buffer *values, size_t values_offset,
                                           size_t count, gpgpu_buffer *keys_out,
                                           size_t keys_out_offset, gpgpu_buffer *sums_out,
                                           size_t sums_out_offset, size_t *runs);

/**
 * @brief The scratch, in bytes, that gpgpu_run_length_encode (by_key false) or
 * gpgpu_reduce_by_key (true) needs for `count` keys with this desc.
 *
 * What it depends on is `count`, `by_key` and, with by_key, the value type (no buffer of
 * the desc is looked at). No GPU work.
 * @param[in] ctx the context.
 * @param[in] desc the encoding's desc.
 * @param count how many keys.
 * @param by_key true for gpgpu_reduce_by_key, false for gpgpu_run_length_encode.
 * @param[out] bytes receives the size.
 * @retval GPGPU_SUCCESS *bytes is the size.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc or bytes is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown key or value type (the value type is
 *   checked for either call).
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_rle_scratch_size(gpgpu_context *ctx, const gpgpu_rle_desc *desc,
                                              size_t count, bool by_key, size_t *bytes);

/** @} */

/* ---------------------------------------------------------------- vectors */

/**
 * @defgroup vectors Vector operations
 * @brief The updates and dot products of iterative solvers.
 * @{
 */

/**
 * @brief y = alpha * x + beta * y over `count` elements of f32 or f64 vectors.
 *
 * The vectors start at element offsets, as
 * an iterative solver updates its vectors; alpha and beta are rounded to the type (NaN, inf
 * and, for f32, magnitudes past FLT_MAX are refused rather than rounded to inf). beta = 0
 * writes y without reading it (NaN in y is ignored). x and y may be the same range, but must
 * not overlap otherwise.
 * @param[in] ctx the context.
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param count how many elements.
 * @param alpha the factor of x.
 * @param[in] x the buffer of x.
 * @param x_offset x's first element.
 * @param beta the factor of y.
 * @param[in,out] y the buffer of y.
 * @param y_offset y's first element.
 * @retval GPGPU_SUCCESS y is updated (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, x or y is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type, a buffer of another context, alpha or
 *   beta NaN, infinite or for f32 past FLT_MAX.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION an integer type.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range runs past its buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_OVERLAP x and y overlap without being the same range.
 * @retval GPGPU_ERROR_TOO_LARGE count past 2^31 - 1, or a range past element 2^32 - 1 of its
 *   binding; a buffer larger than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_axpby(gpgpu_context *ctx, gpgpu_type type, size_t count,
                                   double alpha, gpgpu_buffer *x, size_t x_offset, double beta,
                                   gpgpu_buffer *y, size_t y_offset);

/**
 * @brief The dot product of `count` elements of two f32 or f64 vectors, returned as a double.
 *
 * The same vector twice is fine. The products are
 * summed in the element type in a tree (as gpgpu_reduce sums; not bit-reproducible against a
 * sequential sum). count = 0 gives 0 without GPU work; NaN propagates.
 * @param[in] ctx the context.
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param count how many elements.
 * @param[in] x the buffer of x.
 * @param x_offset x's first element.
 * @param[in] y the buffer of y.
 * @param y_offset y's first element.
 * @param[out] result receives the dot product (0 on a failure after the checks).
 * @retval GPGPU_SUCCESS *result is the dot product.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, x, y or result is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type, a buffer of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION an integer type; Vulkan: work is recorded into a
 *   caller's command buffer (no result can come back).
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range runs past its buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_TOO_LARGE as gpgpu_axpby.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_dot(gpgpu_context *ctx, gpgpu_type type, size_t count,
                                 gpgpu_buffer *x, size_t x_offset, gpgpu_buffer *y,
                                 size_t y_offset, double *result);

/**
 * @brief The dot product of `count` elements of two f32 or f64 vectors, left on the GPU: one
 * element of the type at out_offset of `out`.
 *
 * The same sum as gpgpu_dot's (the same tree: the value gpgpu_dot returns, rounded to the
 * type), without its wait for the GPU and its read-back, so that a pipeline of GPU work
 * (and, on Vulkan, work recorded into the caller's command buffer) keeps it on the device.
 * count = 0 writes 0. The result must not overlap x or y.
 * @param[in] ctx the context.
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param count how many elements.
 * @param[in] x the buffer of x.
 * @param x_offset x's first element.
 * @param[in] y the buffer of y (may be x's).
 * @param y_offset y's first element.
 * @param[out] out the buffer of the result.
 * @param out_offset the result's element, in elements of the type.
 * @retval GPGPU_SUCCESS the dot product is written (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, x, y or out is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type, a buffer of another context.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION an integer type.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range (x, y, the result) runs past its buffer.
 * @retval GPGPU_ERROR_OVERLAP the result overlaps x or y.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_TOO_LARGE as gpgpu_axpby.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_dot_to_buffer(gpgpu_context *ctx, gpgpu_type type, size_t count,
                                           gpgpu_buffer *x, size_t x_offset, gpgpu_buffer *y,
                                           size_t y_offset, gpgpu_buffer *out,
                                           size_t out_offset);

/**
 * @brief y = alpha * x + beta * y as gpgpu_axpby does it, and the dot product of the new y
 * with w, in one pass over the vectors.
 *
 * One dispatch, the dot product summed as gpgpu_dot sums it: the update and the
 * dot product that follow each other in a Krylov solver's step (conjugate gradients' r -= a*Ap
 * and r.r, with w = y). w may be y itself (the same range: its squared norm) or x, but must not
 * overlap y otherwise; x must not overlap y. count = 0 gives 0 and changes nothing.
 * @param[in] ctx the context.
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param count how many elements.
 * @param alpha the factor of x.
 * @param[in] x the buffer of x.
 * @param x_offset x's first element.
 * @param beta the factor of y.
 * @param[in,out] y the buffer of y.
 * @param y_offset y's first element.
 * @param[in] w the buffer of w (may be y's).
 * @param w_offset w's first element.
 * @param[out] result receives the dot product of the new y with w.
 * @retval GPGPU_SUCCESS y is updated and *result is the dot product.
 * @retval GPGPU_ERROR_NULL_POINTER ctx, x, y, w or result is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type, a buffer of another context, alpha or
 *   beta as gpgpu_axpby refuses them.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION an integer type; Vulkan: work is recorded into a
 *   caller's command buffer.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range runs past its buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_OVERLAP x and y overlap; w and y overlap without being the same range.
 * @retval GPGPU_ERROR_TOO_LARGE as gpgpu_axpby.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_axpby_dot(gpgpu_context *ctx, gpgpu_type type, size_t count,
                                       double alpha, gpgpu_buffer *x, size_t x_offset,
                                       double beta, gpgpu_buffer *y, size_t y_offset,
                                       gpgpu_buffer *w, size_t w_offset, double *result);

/** @} */

/* ------------------------------------------------------- dense matrix products */

/**
 * @defgroup gemm Dense matrix products
 * @brief C = alpha op(A) op(B) + beta C, its methods and its tuner.
 * @{
 */

/**
 * Prints progress while tuning (may be NULL).
 * @param line one line of progress, without a newline; valid during the call.
 * @param user_data what the tuner was given.
 */
typedef void (*gpgpu_progress_callback)(const char *line, void *user_data);

/** The register-tiled product's block shape (GPGPU_ALGO_GEMM_TILED). */
typedef struct gpgpu_gemm_tuning {
    uint32_t block_m;          /**< rows of the block of C a work-group computes */
    uint32_t block_n;          /**< columns of the block of C a work-group computes */
    uint32_t block_k;          /**< the depth of the slices of A and B in shared memory */
    uint32_t thread_m;         /**< rows of the block each invocation keeps in registers */
    uint32_t invocations;      /**< the work-group's size; each invocation keeps thread_m x
                                    block_m * block_n / (invocations * thread_m) outputs */
    double gpu_ns;             /**< the tuner's time of this shape (0 from the heuristic) */
} gpgpu_gemm_tuning;

/** Dense product descriptor; zero means default for every field. */
typedef struct gpgpu_gemm_desc {
    gpgpu_type type;           /**< F32 or F64 */
    gpgpu_algo algo;           /**< DEFAULT/FAST/GEMM_TILED, GEMM_METHOD1, GEMM_METHOD2,
                                    GEMM_METHOD6, GEMM_COOPMAT_F16 */
    bool transpose_a;          /**< op(A) = A^T: A is stored k x m */
    bool transpose_b;          /**< op(B) = B^T: B is stored n x k */
    /** Row stride of the stored A in elements (as ldb and ldc), at least its width; 0 takes
     *  the width (k, or m with transpose_a). */
    size_t lda;
    size_t ldb;                /**< B's row stride, at least its width (n, or k with
                                    transpose_b); 0 takes the width */
    size_t ldc;                /**< C's row stride, at least n; 0 takes n */
    unsigned tile;             /**< methods 1, 2, 6: the work-group's side, 8, 16 or 32 (0: 16) */
    unsigned outputs;          /**< method 6: outputs per invocation, 2 or 4 (0: 4) */
    /** GEMM_TILED: this block shape; NULL takes the tuned one for the device and size class
     *  (gpgpu_gemm_tune), else the estimate from the sizes and the device's limits (both as
     *  gpgpu_gemm_shape tells). */
    const gpgpu_gemm_tuning *tuning;
} gpgpu_gemm_desc;

/**
 * @brief C = alpha * op(A) * op(B) + beta * C for row-major f32 or f64 matrices.
 *
 * op(A) is m x k,
 * op(B) is k x n, C is m x n, stored from the given element offsets with the row strides of
 * the desc. alpha and beta are rounded to the type (refused where they are NaN, infinite or,
 * for f32, past FLT_MAX, as gpgpu_axpby refuses them). beta = 0 writes C without reading it
 * (NaN in C is ignored); k = 0 gives beta * C; m = 0 or n = 0 does nothing. C must not
 * overlap A or B; A and B may be the same.
 * The f32 product is f32 arithmetic throughout (fused multiply-adds, no reduced precision),
 * but for GEMM_COOPMAT_F16.
 * @param[in] ctx the context.
 * @param[in] desc type, algorithm, transposes, strides and shape.
 * @param m rows of op(A) and C.
 * @param n columns of op(B) and C.
 * @param k columns of op(A), rows of op(B).
 * @param alpha the factor of the product.
 * @param[in] a the buffer of A.
 * @param a_offset A's first element.
 * @param[in] b the buffer of B (may be A's).
 * @param b_offset B's first element.
 * @param beta the factor of C.
 * @param[in,out] c the buffer of C.
 * @param c_offset C's first element.
 * @retval GPGPU_SUCCESS C is written (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER ctx, desc, a, b or c is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type; a value that names no algorithm; a
 *   tile other than 8/16/32, outputs other than
 *   2/4, a stride below the width, a tuning the kernel cannot run, a buffer of another
 *   context, alpha or beta as gpgpu_axpby refuses them.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION an integer type; another primitive's
 *   algorithm; f64 with GEMM_COOPMAT_F16; a
 *   tile whose shared memory or work-group the device cannot hold.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles, GEMM_COOPMAT_F16 without
 *   cooperative matrices; work-groups too small.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a matrix runs past its buffer.
 * @retval GPGPU_ERROR_MISALIGNED a wrapped buffer's offset is not a multiple of the element
 *   size.
 * @retval GPGPU_ERROR_OVERLAP C shares memory with A or B.
 * @retval GPGPU_ERROR_TOO_LARGE op(A), op(B) or C of more than 2^31 - 1 elements (before any
 *   buffer is looked at), a stored matrix's index past 2^31 - 1, GEMM_COOPMAT_F16's padded
 *   copies past it; a buffer, or those copies, larger than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY see @ref errors "Errors" (GEMM_COOPMAT_F16's f16
 *   copies).
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 * @pointer_lifetime desc and desc->tuning are read during the call only.
 */
GPGPU_API gpgpu_status gpgpu_gemm(gpgpu_context *ctx, const gpgpu_gemm_desc *desc, size_t m,
                                  size_t n, size_t k, double alpha, gpgpu_buffer *a,
                                  size_t a_offset, gpgpu_buffer *b, size_t b_offset, double beta,
                                  gpgpu_buffer *c, size_t c_offset);

/**
 * @brief Times the register-tiled product's candidate block shapes on an m x n x k product
 * and remembers the fastest.
 *
 * The product runs on scratch matrices of the type. The fastest shape is remembered for
 * the device and the size
 * class of (m, n, k) (each rounded up to a power of two), in the context and in the tuners'
 * cache file $GPGPU_TUNE_CACHE (default ~/.cache/libgpgpu/tune; none when the variable is
 * set but empty; one that is not a regular file of at most 1 MiB is neither read nor written,
 * with a warning: gpgpu_last_warning). A progress line per candidate goes to `progress`.
 * @param[in] ctx the context.
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param m rows of the product.
 * @param n columns of the product.
 * @param k its inner dimension.
 * @param progress called with a line per candidate, or NULL.
 * @param user_data passed to progress.
 * @param[out] result receives the chosen shape and its time, or NULL.
 * @retval GPGPU_SUCCESS the shape is remembered.
 * @retval GPGPU_ERROR_NULL_POINTER ctx is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type, m, n or k 0, a gpgpu_timer_begin
 *   measurement running.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION an integer type; Vulkan: work being recorded
 *   into a caller's command buffer; no candidate shape runs on the device.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE f64 without shader doubles; work-groups too small.
 * @retval GPGPU_ERROR_TOO_LARGE a matrix of the product past 2^31 - 1 elements, or larger
 *   than one storage binding.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current,
 *   or one sharing its objects (the tuner times with the adopted context's queries).
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`; the cache file is rewritten whole, so two
 *   processes tuning at once may lose one of their choices.
 */
GPGPU_API gpgpu_status gpgpu_gemm_tune(gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n,
                                       size_t k, gpgpu_progress_callback progress,
                                       void *user_data, gpgpu_gemm_tuning *result);

/**
 * @brief The block shape GEMM_TILED takes for this product without a desc->tuning.
 *
 * That is the tuned one
 * for its size class when gpgpu_gemm_tune ran (in this process or one that wrote the cache
 * file), else an estimate from the sizes and the device's limits (gpu_ns 0). No GPU work.
 * (gpgpu_spmv_heuristic, its SpMV counterpart, gives the estimate alone.)
 * @param[in] ctx the context.
 * @param type GPGPU_TYPE_F32 or GPGPU_TYPE_F64.
 * @param m rows of the product.
 * @param n columns of the product.
 * @param k its inner dimension.
 * @param[out] result receives the shape.
 * @retval GPGPU_SUCCESS *result is the shape.
 * @retval GPGPU_ERROR_NULL_POINTER ctx or result is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT an unknown type.
 * @retval GPGPU_ERROR_UNSUPPORTED_COMBINATION an integer type.
 * @retval GPGPU_ERROR_TOO_LARGE a matrix of the product past 2^31 - 1 elements.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_gemm_shape(gpgpu_context *ctx, gpgpu_type type, size_t m, size_t n,
                                        size_t k, gpgpu_gemm_tuning *result);

/** @} */

/* ----------------------------------------------------------------- timing */

/**
 * @defgroup timing Timing, waiting and copies
 * @brief GPU time of calls, waiting for the GPU, copies between buffers.
 * @{
 */

/**
 * @brief Starts measuring GPU time of the calls that follow.
 *
 * On either backend each call is timed
 * from its first command to the end of its last, without the closing barrier that makes its
 * writes visible to later work (as a CUDA event after a kernel), and the calls' times are
 * summed (GL: a GL_TIME_ELAPSED query per call; Vulkan: timestamps around each submission).
 * GL: the queries are objects of one context, so an adopted context times the calls made
 * in it alone: with gl_accept_shared_contexts, calls made meanwhile in a context that
 * shares its objects fail with GPGPU_ERROR_WRONG_CONTEXT. Vulkan: work recorded into a
 * caller's command buffer is not timed; work submitted before is waited for, outside the
 * measurement.
 * @param[in] ctx the context.
 * @retval GPGPU_SUCCESS the measurement runs.
 * @retval GPGPU_ERROR_NULL_POINTER ctx is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT a measurement is already running.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY Vulkan: submitting earlier work failed for memory.
 * @retval GPGPU_ERROR_BACKEND Vulkan: submitting earlier work failed.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current,
 *   or one sharing its objects (the timer's queries are the adopted context's).
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_timer_begin(gpgpu_context *ctx);

/**
 * @brief Ends the measurement and waits for its result, in nanoseconds of GPU time.
 *
 * A failure ends
 * the measurement too.
 * @param[in] ctx the context.
 * @param[out] gpu_ns receives the summed GPU time of the calls since gpgpu_timer_begin.
 * @retval GPGPU_SUCCESS *gpu_ns is the time.
 * @retval GPGPU_ERROR_NULL_POINTER ctx or gpu_ns is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT none is running.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY the driver ran out of memory (Vulkan: submitting the last
 *   work).
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current,
 *   or one sharing its objects (the timer's queries are the adopted context's).
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_timer_end(gpgpu_context *ctx, double *gpu_ns);

/**
 * @brief Waits until all submitted GPU work has finished.
 * @param[in] ctx the context.
 * @retval GPGPU_SUCCESS the work is done.
 * @retval GPGPU_ERROR_NULL_POINTER ctx is NULL.
 * @retval GPGPU_ERROR_OUT_OF_MEMORY the driver ran out of memory (Vulkan: submitting the last
 *   work).
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses `ctx`.
 */
GPGPU_API gpgpu_status gpgpu_finish(gpgpu_context *ctx);

/**
 * @brief Copies `bytes` bytes between two buffers on the GPU.
 *
 * The copy is a compute shader
 * (the ceiling that the benchmarks compare with), or the driver's copy
 * command when the context was made with transfer_copies. Offsets in bytes,
 * multiples of 4. 0 bytes does nothing.
 * @param[in] src the source buffer.
 * @param src_offset the first byte read.
 * @param[out] dst the destination buffer, of the same context.
 * @param dst_offset the first byte written.
 * @param bytes how many bytes, a multiple of 4.
 * @retval GPGPU_SUCCESS the copy is made (for later GPU work).
 * @retval GPGPU_ERROR_NULL_POINTER src or dst is NULL.
 * @retval GPGPU_ERROR_INVALID_ARGUMENT buffers of different contexts.
 * @retval GPGPU_ERROR_MISALIGNED an offset or bytes is not a multiple of 4.
 * @retval GPGPU_ERROR_OUT_OF_RANGE a range runs past its buffer.
 * @retval GPGPU_ERROR_OVERLAP the ranges share memory (one buffer, or two wraps of one GL
 *   buffer or VkBuffer).
 * @retval GPGPU_ERROR_TOO_LARGE a range past 2^31 - 1 words, or past word 2^32 - 1 of its
 *   binding; a buffer larger than one storage binding.
 * @retval GPGPU_ERROR_UNSUPPORTED_FEATURE work-groups too small (the shader copy).
 * @retval GPGPU_ERROR_OUT_OF_MEMORY memory for the call's work ran out (@ref errors "Errors").
 * @retval GPGPU_ERROR_SHADER_COMPILE a program did not build.
 * @retval GPGPU_ERROR_BACKEND the driver reported an error.
 * @retval GPGPU_ERROR_WRONG_CONTEXT GL: another GL context than the adopted one is current.
 * @retval GPGPU_ERROR_NO_CONTEXT GL: no GL context is current (adopted), or the headless
 *   context is inside a call in another thread.
 * @thread_safety The thread that uses the buffers' context.
 */
GPGPU_API gpgpu_status gpgpu_buffer_copy(gpgpu_buffer *src, size_t src_offset, gpgpu_buffer *dst,
                                         size_t dst_offset, size_t bytes);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_GPGPU_H */
