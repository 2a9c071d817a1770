/* The matrices a C test reads: the folder and the file of each role, which
 * tests/matrices/matrices.py puts in the environment of the tests it runs (meson test runs
 * every test that reads matrices through it; docs/TESTING.md, "Matrices"). */
#ifndef GPGPU_TEST_MATRICES_H
#define GPGPU_TEST_MATRICES_H

#include <stdio.h>
#include <stdlib.h>

/* getenv(name), or NULL with a note on stderr when it is unset or empty. */
static inline const char *test_matrix_env(const char *name)
{
    const char *value = getenv(name);
    if (value == NULL || value[0] == '\0') {
        fprintf(stderr, "%s is not set: run the test through meson test "
                        "(tests/matrices/matrices.py sets it)\n", name);
        return NULL;
    }
    return value;
}

/* GPGPU_MATRIX_DIR: the folder of matrices, real or generated; NULL when unset. */
static inline const char *test_matrix_dir(void)
{
    return test_matrix_env("GPGPU_MATRIX_DIR");
}

/* The path of the file that stands for role (GENERAL, RECTANGULAR, TALL, PATTERN,
 * PATTERN_SYMMETRIC, INTEGER, SPD, COMPLEX, HERMITIAN: matrices.py's ROLES say what each
 * is), from GPGPU_MATRIX_<role>; NULL when unset. */
static inline const char *test_matrix(const char *role)
{
    char name[64];
    snprintf(name, sizeof name, "GPGPU_MATRIX_%s", role);
    return test_matrix_env(name);
}

/* How many .mtx files the folder holds at least (GPGPU_MATRIX_MIN_FILES); 1 when unset, so
 * that a test run without matrices.py still fails on finding none. */
static inline size_t test_matrix_min_files(void)
{
    const char *n = test_matrix_env("GPGPU_MATRIX_MIN_FILES");
    return n != NULL && atoi(n) > 0 ? (size_t)atoi(n) : 1;
}

#endif /* GPGPU_TEST_MATRICES_H */
