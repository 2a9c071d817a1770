/* A main for the fuzz harnesses without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named, or in a folder named, and
 * fails when none was found. With the sanitizers off it still catches what
 * the checks of each harness abort on; the meson test runs it over the
 * regressions and the hand-made corpus. */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, size = 0, got;
    uint8_t *data = malloc(cap);
    while (data != NULL && (got = fread(data + size, 1, cap - size, f)) > 0) {
        size += got;
        if (size == cap) {
            uint8_t *grown = realloc(data, cap *= 2);
            if (grown == NULL) {
                free(data);
            }
            data = grown;
        }
    }
    fclose(f);
    if (data == NULL) {
        fprintf(stderr, "%s: out of memory\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 1;
}

/* How many inputs ran; -1 on an error. */
static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return run_file(path);
    }
    DIR *d = opendir(path);
    int count = d != NULL ? 0 : -1;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && count >= 0;) {
        char child[4096];
        if (e->d_name[0] == '.' ||
            snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= (int)sizeof child) {
            continue;
        }
        int n = run_path(child);
        count = n < 0 ? -1 : count + n;
    }
    if (d != NULL) {
        closedir(d);
    }
    return count;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int k = 1; k < argc; k++) {
        int n = run_path(argv[k]);
        if (n < 0) {
            return 1;
        }
        total += n;
    }
    printf("%d inputs ran\n", total);
    return total > 0 ? 0 : 1;
}
