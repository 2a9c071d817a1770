/* Each rank's context, on the GPU its place on the node gives it. */
#include "dist_internal.h"

gpgpu_status gpgpu_mpi_node_rank(MPI_Comm comm, int *node_rank, int *node_size)
{
    MPI_Comm node;

    DIST_CHECK(node_rank != NULL && node_size != NULL, GPGPU_ERROR_NULL_POINTER,
               "gpgpu_mpi_node_rank: a NULL pointer");
    DIST_TRY(dist_mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                                &node),
                            "MPI_Comm_split_type"));
    MPI_Comm_rank(node, node_rank);
    MPI_Comm_size(node, node_size);
    MPI_Comm_free(&node);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_mpi_context_create(MPI_Comm comm, const gpgpu_context_desc *desc,
                                      gpgpu_context **out)
{
    gpgpu_context_desc mine = desc != NULL ? *desc : (gpgpu_context_desc){ 0 };
    int node_rank = 0, node_size = 1;
    gpgpu_status status = GPGPU_SUCCESS;

    /* MPI_Comm_split_type is collective: every rank takes it, whatever else it found. */
    status = gpgpu_mpi_node_rank(comm, &node_rank, &node_size);
    if (out == NULL)
        status = dist_fail(GPGPU_ERROR_NULL_POINTER, "gpgpu_mpi_context_create: out is NULL");
    else
        *out = NULL;
    if (status == GPGPU_SUCCESS) {
        status = gpgpu_context_create(&mine, out);
        if (status != GPGPU_SUCCESS)
            status = dist_fail_core(status, NULL, "cannot create a context");
    }
    status = dist_agree(comm, status);
    if (status != GPGPU_SUCCESS && out != NULL) {
        gpgpu_context_destroy(*out);
        *out = NULL;
    }
    return status;
}
