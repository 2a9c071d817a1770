/* gpgpu/mpi.h compiles on its own as C++ (built as a test target). */
#include "gpgpu/mpi.h"

int main()
{
    return gpgpu_mpi_last_error() != nullptr ? 0 : 1;
}
