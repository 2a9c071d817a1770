#include "core/internal.h"

/* The string of the headers this file is built with: the library's own. */
const char *gpgpu_version(void)
{
    return GPGPU_VERSION_STRING;
}
