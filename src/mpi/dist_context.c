/* Each rank's context, on the GPU its place on the node gives it. */
#include "dist_internal.h"

#include <stdlib.h>
#include <string.h>

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

/* Whether the caller chose the device already: desc->device, the backend's device variable,
 * an adopted context or device, or a GL platform other than egl-device (which takes no
 * device). */
static bool device_given(const gpgpu_context_desc *desc, gpgpu_backend backend)
{
    const char *var = getenv(backend == GPGPU_BACKEND_VULKAN ? "GPGPU_VK_DEVICE"
                                                             : "GPGPU_EGL_DEVICE");
    const char *platform = getenv("GPGPU_GL_PLATFORM");
    bool other_platform = backend == GPGPU_BACKEND_GL &&
                          ((desc->gl_platform != GPGPU_GL_PLATFORM_DEFAULT &&
                            desc->gl_platform != GPGPU_GL_PLATFORM_EGL_DEVICE) ||
                           (desc->gl_platform == GPGPU_GL_PLATFORM_DEFAULT && platform &&
                            *platform && strcmp(platform, "egl-device") != 0));
    return desc->device != 0 || (var && *var) || desc->gl_get_proc_address ||
           desc->vk_adopt || other_platform;
}

/* The backend the context will have (as gpgpu_context_create picks it). */
static gpgpu_backend backend_of(const gpgpu_context_desc *desc)
{
    const char *env = getenv("GPGPU_BACKEND");
    if (desc->backend != GPGPU_BACKEND_DEFAULT)
        return desc->backend;
    if (desc->vk_adopt)
        return GPGPU_BACKEND_VULKAN;
    if (desc->gl_get_proc_address)
        return GPGPU_BACKEND_GL;
    return env && strcmp(env, "vulkan") == 0 ? GPGPU_BACKEND_VULKAN : GPGPU_BACKEND_GL;
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
    gpgpu_backend backend = backend_of(&mine);
    uint32_t count = 0;
    /* The node's ranks take its GPUs in turn. */
    if (status == GPGPU_SUCCESS && !device_given(&mine, backend) &&
        gpgpu_device_count(backend, &count) == GPGPU_SUCCESS && count > 0)
        mine.device = (uint32_t)node_rank % count + 1;
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
