/* What test_api.c and test_api_gl.c (its GL side: wrapped GL buffers, adopting the caller's
 * context) share: the status names, the message check and the sentinel of the failure
 * cases, and the test's own GL calls. One executable, test_api. */
#ifndef TEST_API_H
#define TEST_API_H

#include "testlib.h"

#ifdef GPGPU_HAVE_GL
#include "glad_gl.h"

extern GladGLContext gl; /* the test's own GL calls, on the current context (test_api_gl.c) */

/* The GL side, on a GL context whose functions gl has loaded. */
void check_wrap_errors(gpgpu_context *ctx);
void check_wrapped(gpgpu_context *ctx);
void check_adopt(gpgpu_context *ctx);
void check_adopt_debug(gpgpu_context *ctx);
#endif

#define S_OK GPGPU_SUCCESS
#define E_INVALID GPGPU_ERROR_INVALID_ARGUMENT
#define E_NULL GPGPU_ERROR_NULL_POINTER
#define E_RANGE GPGPU_ERROR_OUT_OF_RANGE
#define E_COMBO GPGPU_ERROR_UNSUPPORTED_COMBINATION
#define E_OVERLAP GPGPU_ERROR_OVERLAP
#define E_ALIGN GPGPU_ERROR_MISALIGNED
#define E_OOM GPGPU_ERROR_OUT_OF_MEMORY
#define U32 GPGPU_TYPE_U32
#define F64 GPGPU_TYPE_F64
#define SUM GPGPU_OP_SUM
#define MIN GPGPU_OP_MIN
#define MAX GPGPU_OP_MAX
#define MINMAX GPGPU_OP_MINMAX
#define FAST GPGPU_ALGO_FAST
#define CLASSIC GPGPU_ALGO_CLASSIC_SCAN

/* After a failure the context's message names the function that failed. */
#define EXPECT_NAMED(ctx, name)                                                   \
    EXPECT(strstr(gpgpu_last_error(ctx), name) != NULL,                           \
           "last error \"%s\" does not name %s", gpgpu_last_error(ctx), name)

/* Handles the library must set to NULL on failure start as this. */
extern int sentinel_target;
#define SENTINEL ((void *)&sentinel_target)

#endif /* TEST_API_H */
