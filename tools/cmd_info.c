/* gpgpu info: what each backend's context runs on. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

const char info_help[] =
    "Usage: gpgpu info [OPTIONS]\n"
    "\n"
    "Creates a context and prints what it runs on, one 'key: value' per line.\n"
    "Without --backend (or GPGPU_BACKEND), reports every backend, a block each;\n"
    "one that cannot start prints 'unavailable:' and why. Exits 77 only when\n"
    "no backend starts.\n"
    "\n"
    "  --all             a block for every device of the backend (or of each),\n"
    "                    numbered as --device counts them, with its UUID\n"
    "\n";

static const char *yes_no(bool value)
{
    return value ? "yes" : "no";
}

static void print_info(const gpgpu_info *info)
{
    printf("backend: %s\n", info->backend);
    printf("platform: %s\n", info->platform);
    printf("vendor: %s\n", info->vendor);
    printf("renderer: %s\n", info->renderer);
    printf("version: %s\n", info->version);
    printf("version_major: %d\n", info->version_major);
    printf("version_minor: %d\n", info->version_minor);
    printf("has_f64: %s\n", yes_no(info->has_f64));
    printf("has_subgroups: %s\n", yes_no(info->has_subgroups));
    printf("has_coopmat_f16: %s\n", yes_no(info->has_coopmat_f16));
    printf("subgroup_size: %u\n", info->subgroup_size);
    printf("max_workgroup_invocations: %u\n", info->max_workgroup_invocations);
    printf("max_workgroup_count_x: %u\n", info->max_workgroup_count_x);
    printf("max_shared_memory_bytes: %zu\n", info->max_shared_memory_bytes);
    printf("max_storage_block_bytes: %zu\n", info->max_storage_block_bytes);
    printf("max_storage_range_bytes: %zu\n", info->max_storage_range_bytes);
    printf("storage_offset_alignment: %zu\n", info->storage_offset_alignment);
    printf("device: %u\n", info->device);
    char uuid[37] = "none";
    if (info->has_uuid)
        tool_uuid_text(info->uuid, uuid);
    printf("uuid: %s\n", uuid);
}

/* Prints one backend's info; a backend that cannot start says why. */
static int info_for(const gpgpu_context_desc *desc, bool quiet_failure)
{
    gpgpu_context *ctx;
    gpgpu_info info;
    if (quiet_failure) {
        gpgpu_status status = gpgpu_context_create(desc, &ctx);
        if (status != GPGPU_SUCCESS) {
            printf("backend: %s\nunavailable: %s\n",
                   desc->backend == GPGPU_BACKEND_VULKAN ? "vulkan" : "gl",
                   gpgpu_last_error(NULL));
            return tool_exit_code(status);
        }
    } else {
        int rc = tool_context_create(desc, &ctx);
        if (rc != TOOL_EXIT_OK)
            return rc;
    }
    gpgpu_status status = gpgpu_context_get_info(ctx, &info);
    int rc = TOOL_EXIT_OK;
    if (status == GPGPU_SUCCESS)
        print_info(&info);
    else
        rc = tool_fail(status, "cannot query the context", gpgpu_last_error(ctx));
    tool_context_destroy(ctx);
    return rc;
}

/* Returns false when it printed the help (and nothing is to run). */
static bool parse_info_args(int argc, char **argv, gpgpu_context_desc *desc, bool *all)
{
    *desc = (gpgpu_context_desc){ 0 };
    *all = false;
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            print_help(info_help, false);
            return false;
        }
        if (strcmp(argv[i], "--all") == 0)
            *all = true;
        /* --quiet, as every command takes it: info has no progress to print. */
        else if (strcmp(argv[i], "--quiet") != 0 && !tool_context_option(argc, argv, &i, desc))
            tool_usage_error("unknown argument '%s'", argv[i]);
    }
    if (*all && desc->device != 0)
        tool_usage_error("--all lists every device: it does not go with --device");
    return true;
}

bool cmd_info_parse(int argc, char **argv)
{
    gpgpu_context_desc desc;
    bool all;

    return parse_info_args(argc, argv, &desc, &all);
}

/* --all: a block per device of the backend, numbered as desc.device counts them. */
static int info_devices(gpgpu_context_desc desc)
{
    uint32_t count = 0;
    gpgpu_status status = gpgpu_device_count(desc.backend, &count);
    int best = TOOL_EXIT_NO_GPU;

    if (status != GPGPU_SUCCESS) {
        printf("backend: %s\nunavailable: %s\n",
               desc.backend == GPGPU_BACKEND_VULKAN ? "vulkan" : "gl", gpgpu_last_error(NULL));
        return tool_exit_code(status);
    }
    printf("devices: %u\n", count);
    for (uint32_t k = 1; k <= count; k++) {
        desc.device = k;
        printf("\n");
        if (info_for(&desc, true) == TOOL_EXIT_OK)
            best = TOOL_EXIT_OK;
    }
    return best;
}

int cmd_info(int argc, char **argv)
{
    gpgpu_context_desc desc;
    bool all;

    if (!parse_info_args(argc, argv, &desc, &all))
        return TOOL_EXIT_OK;
    const char *env = getenv("GPGPU_BACKEND");
    if (desc.backend != GPGPU_BACKEND_DEFAULT || (env && *env))
        return all ? info_devices(desc) : info_for(&desc, false);
    /* No backend named: report every backend, one block each. */
    static const gpgpu_backend backends[] = { GPGPU_BACKEND_GL, GPGPU_BACKEND_VULKAN };
    int best = TOOL_EXIT_NO_GPU;
    for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
        if (b > 0)
            putchar('\n');
        desc.backend = backends[b];
        if ((all ? info_devices(desc) : info_for(&desc, true)) == TOOL_EXIT_OK)
            best = TOOL_EXIT_OK;
    }
    return best;
}
