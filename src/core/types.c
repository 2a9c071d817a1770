#include "core/internal.h"

const char *gpgpu_type_name(gpgpu_type type)
{
    switch (type) {
    case GPGPU_TYPE_U32: return "u32";
    case GPGPU_TYPE_I32: return "i32";
    case GPGPU_TYPE_F32: return "f32";
    case GPGPU_TYPE_F64: return "f64";
    }
    return NULL;
}

size_t gpgpu_type_size(gpgpu_type type)
{
    switch (type) {
    case GPGPU_TYPE_U32:
    case GPGPU_TYPE_I32:
    case GPGPU_TYPE_F32: return 4;
    case GPGPU_TYPE_F64: return 8;
    }
    return 0;
}
