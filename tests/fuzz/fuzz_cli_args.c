/* The argument parsing of every gpgpu command (command.parse: no file is
 * read, no context made). The first byte picks the command, the rest are its
 * arguments, separated by NUL bytes. A usage error, which exits the tool,
 * jumps back here instead (tool_set_usage_exit); anything else is a finding.
 * The parsers print help and errors: scripts/fuzz.sh closes stdout and stderr
 * (-close_fd_mask=3). */
#include "fuzz.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

enum { MAX_ARGS = 64 };

static jmp_buf next_input;

static void leave(void)
{
    longjmp(next_input, 1);
}

/* On its own, so that no variable changed after setjmp lives across longjmp. */
static void parse(const command *cmd, int argc, char **argv)
{
    tool_set_program("gpgpu", cmd->help_hint);
    tool_set_usage_exit(leave);
    if (setjmp(next_input) == 0) {
        cmd->parse(argc, argv);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    const command *cmd = &gpgpu_commands[data[0] % gpgpu_command_count];
    /* The arguments with a NUL after the last one. */
    char *text = malloc(size);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *argv[MAX_ARGS + 2] = {(char *)cmd->name};
    int argc = 1;
    for (char *p = text; p < text + size - 1 && argc <= MAX_ARGS; p += strlen(p) + 1) {
        argv[argc++] = p;
    }
    argv[argc] = NULL;
    parse(cmd, argc, argv);
    free(text);
    return 0;
}
