/* gpgpu: command-line front end of libgpgpu. main; each command lives in its
 * own cmd_*.c, listed in the table of commands.c (see commands.h). */
#include "commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The usage, then a line per command of the table, then the way to more. */
static void print_main_help(FILE *f)
{
    fputs("Usage: gpgpu COMMAND [OPTIONS]\n"
          "\n"
          "GPU compute primitives on OpenGL compute shaders and Vulkan.\n"
          "\n"
          "Commands:\n", f);
    for (size_t k = 0; k < gpgpu_command_count; k++)
        fprintf(f, "  %-10s %s\n", gpgpu_commands[k].name, gpgpu_commands[k].summary);
    fputs("  help [COMMAND]\n"
          "\n"
          "'gpgpu COMMAND --help' describes a command; 'gpgpu --version' prints the\n"
          "version of the library it runs on.\n", f);
}

static const command *find_command(const char *name)
{
    for (size_t k = 0; k < gpgpu_command_count; k++) {
        if (strcmp(gpgpu_commands[k].name, name) == 0)
            return &gpgpu_commands[k];
    }
    tool_usage_error("unknown command '%s'", name);
}

int main(int argc, char **argv)
{
    const command *cmd;
    int rc;

    tool_set_program("gpgpu", "gpgpu --help");
    if (argc < 2) {
        print_main_help(stderr);
        return TOOL_EXIT_USAGE;
    }
    if (is_help(argv[1]) || (strcmp(argv[1], "help") == 0 && argc == 2)) {
        print_main_help(stdout);
        return TOOL_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("gpgpu %s\n", gpgpu_version());
        return TOOL_EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) {
        cmd = find_command(argv[2]);
        print_help_sections(cmd->help, cmd->options_help, cmd->context_options);
        return TOOL_EXIT_OK;
    }
    cmd = find_command(argv[1]);
    tool_set_program("gpgpu", cmd->help_hint);
    rc = cmd->run(argc - 1, argv + 1);
    /* Results go to stdout through stdio buffers: a full disk or a closed
     * pipe shows up only here. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int err = errno;
        if (rc == TOOL_EXIT_OK)
            rc = tool_fail(GPGPU_ERROR_IO, "cannot write to standard output", strerror(err));
    }
    return rc;
}
