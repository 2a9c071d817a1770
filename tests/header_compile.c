/* The public headers compile on their own (built as a test target). */
#include "gpgpu/gpgpu.h"
#include "gpgpu/io.h"
#include "gpgpu/sparse.h"

int main(void)
{
    return gpgpu_type_size(GPGPU_TYPE_F32) == 4 ? 0 : 1;
}
