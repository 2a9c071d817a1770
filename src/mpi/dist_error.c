/* The last error of this thread, the agreement of the ranks on a status, and the small
 * helpers the other files share. */
#include "dist_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define DIST_MESSAGE 1024

static _Thread_local char last_error[DIST_MESSAGE];
/* The message came from dist_agree: it names its rank already, and every rank holds it. */
static _Thread_local bool last_agreed;

const char *gpgpu_mpi_last_error(void)
{
    return last_error;
}

static gpgpu_status set_error(gpgpu_status status, bool agreed, const char *fmt, va_list ap)
{
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    last_agreed = agreed;
    return status;
}

gpgpu_status dist_fail(gpgpu_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(status, false, fmt, ap);
    va_end(ap);
    return status;
}

static gpgpu_status fail_agreed(gpgpu_status status, const char *fmt, ...) DIST_PRINTF(2, 3);

static gpgpu_status fail_agreed(gpgpu_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(status, true, fmt, ap);
    va_end(ap);
    return status;
}

gpgpu_status dist_fail_core(gpgpu_status status, gpgpu_context *ctx, const char *what)
{
    const char *detail = gpgpu_last_error(ctx);
    return dist_fail(status, "%s: %s", what,
                     detail != NULL && detail[0] != '\0' ? detail : gpgpu_status_string(status));
}

gpgpu_status dist_mpi_check(int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int length = 0;

    if (rc == MPI_SUCCESS)
        return GPGPU_SUCCESS;
    MPI_Error_string(rc, text, &length);
    return dist_fail(GPGPU_ERROR_BACKEND, "%s failed: %s", what, text);
}

gpgpu_status dist_agree(MPI_Comm comm, gpgpu_status local)
{
    int rank = 0, in[2], out[2];
    char message[DIST_MESSAGE + 1];

    MPI_Comm_rank(comm, &rank);
    in[0] = (int)local;
    in[1] = rank;
    /* MAXLOC: the largest status and, of the ranks that have it, the lowest. */
    gpgpu_status status = dist_mpi_check(MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, comm),
                                         "MPI_Allreduce (the agreement on a status)");
    if (status != GPGPU_SUCCESS || out[0] == GPGPU_SUCCESS)
        return status;
    if (rank == out[1]) {
        message[0] = last_agreed ? 1 : 0;
        memcpy(message + 1, last_error, sizeof last_error);
    }
    status = dist_mpi_check(MPI_Bcast(message, (int)sizeof message, MPI_CHAR, out[1], comm),
                            "MPI_Bcast (the message of a failure)");
    if (status != GPGPU_SUCCESS)
        return status;
    message[DIST_MESSAGE] = '\0';
    if (message[0])
        return fail_agreed((gpgpu_status)out[0], "%s", message + 1);
    return fail_agreed((gpgpu_status)out[0], "rank %d: %s", out[1], message + 1);
}

gpgpu_status dist_sum(MPI_Comm comm, double *values, int count, gpgpu_status local)
{
    double sums[DIST_MAX_SUM + 1];

    for (int k = 0; k < count; k++)
        sums[k] = local == GPGPU_SUCCESS ? values[k] : 0;
    /* A count of the ranks that failed rides along: the agreement's own reduction is needed
     * only when it is not 0, which keeps the common case at one MPI_Allreduce. */
    sums[count] = local == GPGPU_SUCCESS ? 0 : 1;
    gpgpu_status status = dist_mpi_check(
        MPI_Allreduce(MPI_IN_PLACE, sums, count + 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
    if (status != GPGPU_SUCCESS)
        return status;
    if (sums[count] != 0)
        return dist_agree(comm, local);
    memcpy(values, sums, (size_t)count * sizeof *values);
    return GPGPU_SUCCESS;
}

double dist_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

MPI_Datatype dist_mpi_type(gpgpu_type type)
{
    return type == GPGPU_TYPE_F32 ? MPI_FLOAT : MPI_DOUBLE;
}

void dist_from_double(gpgpu_type type, const double *in, size_t n, void *out)
{
    for (size_t i = 0; i < n; i++) {
        if (type == GPGPU_TYPE_F32)
            ((float *)out)[i] = (float)in[i];
        else
            ((double *)out)[i] = in[i];
    }
}

void dist_to_double(gpgpu_type type, const void *in, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = type == GPGPU_TYPE_F32 ? (double)((const float *)in)[i]
                                        : ((const double *)in)[i];
}
