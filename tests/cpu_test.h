/* What the CPU-only tests of the host sparse code share: a non-fatal check
 * that counts failures, every file of the folder of matrices, CSR equality. */
#ifndef GPGPU_CPU_TEST_H
#define GPGPU_CPU_TEST_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu/sparse.h"
#include "matrices/matrices.h"

static int cpu_test_failures;

/* Counts and reports a failed check; returns ok so callers can stop early. */
static inline bool cpu_test_check(bool ok, const char *file, int line, const char *what)
{
    if (!ok) {
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
        cpu_test_failures++;
    }
    return ok;
}

#define CHECK(cond) cpu_test_check((cond), __FILE__, __LINE__, #cond)

/* The exit status: 0 when every check passed. */
static inline int cpu_test_result(void)
{
    if (cpu_test_failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", cpu_test_failures);
        return 1;
    }
    return 0;
}

/* Calls fn(path, name) for each .mtx file of GPGPU_MATRIX_DIR (a note and none when the
 * folder is not given or cannot be read); returns how many. */
static inline size_t cpu_test_each_matrix(void (*fn)(const char *path, const char *name))
{
    const char *dir = test_matrix_dir();
    DIR *d = dir != NULL ? opendir(dir) : NULL;
    if (d == NULL) {
        if (dir != NULL) {
            perror(dir);
        }
        return 0;
    }
    size_t files = 0;
    for (struct dirent *ent; (ent = readdir(d)) != NULL;) {
        char path[4096];
        size_t len = strlen(ent->d_name);
        if (len > 4 && strcmp(ent->d_name + len - 4, ".mtx") == 0 &&
            snprintf(path, sizeof path, "%s/%s", dir, ent->d_name) < (int)sizeof path) {
            fn(path, ent->d_name);
            files++;
        }
    }
    closedir(d);
    return files;
}

/* Equal bit for bit: dimensions, arrays and values (NaN payloads and -0 included). */
static inline bool same_csr(const gpgpu_csr *a, const gpgpu_csr *b)
{
    return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz &&
           memcmp(a->row_ptr, b->row_ptr, ((size_t)a->rows + 1) * sizeof *a->row_ptr) == 0 &&
           memcmp(a->col_idx, b->col_idx, a->nnz * sizeof *a->col_idx) == 0 &&
           memcmp(a->values, b->values, a->nnz * sizeof *a->values) == 0;
}

#endif /* GPGPU_CPU_TEST_H */
