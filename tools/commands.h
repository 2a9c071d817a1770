/* What the gpgpu commands share: one cmd_*.c file per command, the table of
 * commands in gpgpu.c, and the vector input options (an input file or
 * --random) that reduce, scan and sort take, in commands.c. */
#ifndef GPGPU_TOOL_COMMANDS_H
#define GPGPU_TOOL_COMMANDS_H

#include "tool_common.h"

/* A command: its entry point (argv[0] is the command's name) and help text. */
typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
    bool vector_input; /* the help goes on with vector_options_help */
    const char *help_hint; /* what a usage error suggests */
} command;

int cmd_info(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_sort(int argc, char **argv);

extern const char info_help[];
extern const char reduce_help[];
extern const char scan_help[];
extern const char sort_help[];

/* Help lines of the vector input options. */
extern const char vector_options_help[];

/* Prints a command's help, the vector input options' (when it takes them),
 * the context options' and the common footer. */
void print_help(const char *command_help, bool vector_input);

/* -h or --help. */
bool is_help(const char *arg);

/* The options reduce, scan and sort share. */
typedef struct vector_args {
    gpgpu_context_desc desc;
    gpgpu_type type; /* 0 until --type */
    gpgpu_algo algo;
    const char *path; /* the input file; NULL with --random */
    bool random;
    size_t random_count;
    uint64_t seed;
    bool quiet;
} vector_args;

/* Returns true when argv[*i] was one of the shared options. --algo takes
 * the names of tool_parse_algo: a command with names of its own parses
 * --algo before calling this. */
bool parse_vector_option(int argc, char **argv, int *i, vector_args *a);

/* An argument that no option took: the input file. */
void parse_vector_operand(const char *arg, vector_args *a);

/* Usage errors for a missing --type or input, or both a file and --random. */
void check_vector_args(const vector_args *a);

/* Whether to print progress lines for `count` values. */
bool show_progress(const vector_args *a, size_t count);

/* Reads the input file (*data malloc'ed, NULL when empty); with --random
 * there is nothing to read, only a count. Runs before the context is made,
 * so that a bad file is reported without starting the GPU. */
int read_input(const vector_args *a, void **data, size_t *count);

/* Creates a buffer of at least one element and fills it with data or the
 * random values. */
int upload_input(gpgpu_context *ctx, const vector_args *a, const void *data, size_t count,
                 gpgpu_buffer **buf);

/* Reads or generates the input, makes the context and uploads; the
 * command's work then runs on *buf. */
int prepare(const vector_args *a, gpgpu_context **ctx, gpgpu_buffer **buf, size_t *count);

/* Downloads `count` elements of `size` bytes from buf into a malloc'ed
 * *host (NULL for count 0). */
int download_output(gpgpu_context *ctx, gpgpu_buffer *buf, size_t count, size_t size,
                    void **host);

#endif /* GPGPU_TOOL_COMMANDS_H */
