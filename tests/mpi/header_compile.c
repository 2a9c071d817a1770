/* gpgpu/mpi.h compiles on its own (built as a test target). */
#include "gpgpu/mpi.h"

int main(void)
{
    return gpgpu_mpi_last_error() != NULL ? 0 : 1;
}
