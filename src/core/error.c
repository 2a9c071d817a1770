/* Status strings and the per-context last message. */
#include <stdarg.h>
#include <stdio.h>

#include "core/internal.h"

/* Failures of gpgpu_context_create have no context to keep them. */
static _Thread_local char creation_message[CTX_MESSAGE_SIZE];
static _Thread_local gpgpu_error_callback creation_callback;
static _Thread_local void *creation_user_data;

void ctx_set_creation_callback(gpgpu_error_callback callback, void *user_data)
{
    creation_callback = callback;
    creation_user_data = user_data;
}

gpgpu_status ctx_fail(gpgpu_context *ctx, gpgpu_status status, const char *fmt, ...)
{
    char *message = ctx ? ctx->message : creation_message;
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, CTX_MESSAGE_SIZE, fmt, args);
    va_end(args);
    gpgpu_error_callback callback = ctx ? ctx->callback : creation_callback;
    void *user_data = ctx ? ctx->user_data : creation_user_data;
    if (callback)
        callback(status, message, user_data);
    return status;
}

const char *gpgpu_last_error(const gpgpu_context *ctx)
{
    return ctx ? ctx->message : creation_message;
}

void ctx_warn(gpgpu_context *ctx, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(ctx->warning, sizeof ctx->warning, fmt, args);
    va_end(args);
}

const char *gpgpu_last_warning(const gpgpu_context *ctx)
{
    return ctx ? ctx->warning : "";
}

const char *gpgpu_status_string(gpgpu_status status)
{
    switch (status) {
    case GPGPU_SUCCESS: return "success";
    case GPGPU_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case GPGPU_ERROR_NULL_POINTER: return "null pointer";
    case GPGPU_ERROR_OUT_OF_RANGE: return "out of range";
    case GPGPU_ERROR_UNSUPPORTED_COMBINATION: return "unsupported combination";
    case GPGPU_ERROR_OVERLAP: return "overlapping ranges";
    case GPGPU_ERROR_MISALIGNED: return "misaligned offset";
    case GPGPU_ERROR_TOO_LARGE: return "too large";
    case GPGPU_ERROR_NO_CONTEXT: return "no context";
    case GPGPU_ERROR_GL_VERSION: return "GL version too old";
    case GPGPU_ERROR_UNSUPPORTED_FEATURE: return "unsupported feature";
    case GPGPU_ERROR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case GPGPU_ERROR_WRONG_CONTEXT: return "wrong GL context current";
    case GPGPU_ERROR_SHADER_COMPILE: return "shader compile error";
    case GPGPU_ERROR_OUT_OF_MEMORY: return "out of memory";
    case GPGPU_ERROR_BACKEND: return "backend error";
    case GPGPU_ERROR_IO: return "I/O error";
    case GPGPU_ERROR_PARSE: return "parse error";
    }
    return "unknown status";
}
