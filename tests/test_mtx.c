/*
 * Tests of gpgpu_mtx_read_vector / gpgpu_mtx_write_vector on small files
 * under /tmp. Exit status 0 when every check passes, 1 otherwise.
 * GPGPU_MATRIX_GENERAL (tests/matrices/matrices.py) names a sparse matrix
 * file, which must be refused as a vector.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#endif

#include "asan.h"
#include "gpgpu/io.h"
#include "matrices/matrices.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                                \
        }                                                                              \
    } while (0)

typedef struct tmp_file {
    char path[32];
} tmp_file;

/* An empty file of our own, so that parallel runs do not collide. */
static tmp_file make_temp(void)
{
    tmp_file t;
    strcpy(t.path, "/tmp/test_mtx_XXXXXX");
    int fd = mkstemp(t.path);
    if (fd < 0) {
        perror("mkstemp");
        exit(1);
    }
    close(fd);
    return t;
}

static tmp_file write_temp(const char *text)
{
    tmp_file t = make_temp();
    FILE *f = fopen(t.path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(t.path);
        exit(1);
    }
    return t;
}

/* Reads `text` as a vector; *data and *count as the reader left them. */
static gpgpu_status read_text(const char *text, gpgpu_type type, void **data, size_t *count,
                              char *msg, size_t msg_size)
{
    tmp_file t = write_temp(text);
    gpgpu_status s = gpgpu_mtx_read_vector(t.path, type, data, count, msg, msg_size);
    remove(t.path);
    return s;
}

/* The status of reading `text`; a failure must leave no data behind. */
static gpgpu_status read_status(const char *text, gpgpu_type type)
{
    void *data = (void *)&data;
    size_t count = 99;
    char msg[256];
    gpgpu_status s = read_text(text, type, &data, &count, msg, sizeof msg);
    if (s != GPGPU_SUCCESS) {
        CHECK(data == NULL && count == 0);
    }
    free(data);
    return s;
}

/* Writes count elements, reads them back and compares the bytes. */
static void check_round_trip(gpgpu_type type, const void *values, size_t count, size_t size)
{
    int before = failures;
    tmp_file t = make_temp();
    char msg[256] = "";
    CHECK(gpgpu_mtx_write_vector(t.path, type, values, count, msg, sizeof msg) == GPGPU_SUCCESS);
    void *back = NULL;
    size_t n = 0;
    CHECK(gpgpu_mtx_read_vector(t.path, type, &back, &n, msg, sizeof msg) == GPGPU_SUCCESS);
    CHECK(n == count);
    CHECK(back != NULL && memcmp(back, values, count * size) == 0);
    if (failures > before && msg[0] != '\0') {
        fprintf(stderr, "  message: %s\n", msg);
    }
    free(back);
    remove(t.path);
}

static void test_round_trips(void)
{
    const uint32_t u[] = {0, 1, 4294967295u, 2147483648u, 123456789};
    const int32_t i[] = {0, -1, INT32_MIN, INT32_MAX, -123456};
    const float f[] = {0.0f,    -0.0f,   1e-30f,    3.4e38f,  FLT_MAX,  -FLT_MIN,
                       1e-45f /* subnormal */, 0.1f, -1.0f / 3, INFINITY, -INFINITY};
    const double d[] = {0.0,     -0.0,      0.1,     1.0 / 3, 0.30000000000000004, DBL_MAX,
                        DBL_MIN, 4.9e-324, -5e-320, 1e-30,   INFINITY,            -INFINITY};
    check_round_trip(GPGPU_TYPE_U32, u, sizeof u / sizeof *u, sizeof *u);
    check_round_trip(GPGPU_TYPE_I32, i, sizeof i / sizeof *i, sizeof *i);
    check_round_trip(GPGPU_TYPE_F32, f, sizeof f / sizeof *f, sizeof *f);
    check_round_trip(GPGPU_TYPE_F64, d, sizeof d / sizeof *d, sizeof *d);
}

/* NaN bits need not survive, only NaN-ness ("-nan" is what printf may write). */
static void test_nan(void)
{
    const double d[] = {NAN, -NAN};
    const float f[] = {NAN, -NAN};
    tmp_file t = make_temp();
    double *db = NULL;
    float *fb = NULL;
    size_t n = 0;
    CHECK(gpgpu_mtx_write_vector(t.path, GPGPU_TYPE_F64, d, 2, NULL, 0) == GPGPU_SUCCESS);
    CHECK(gpgpu_mtx_read_vector(t.path, GPGPU_TYPE_F64, (void **)&db, &n, NULL, 0) ==
          GPGPU_SUCCESS);
    CHECK(n == 2 && db != NULL && isnan(db[0]) && isnan(db[1]));
    CHECK(gpgpu_mtx_write_vector(t.path, GPGPU_TYPE_F32, f, 2, NULL, 0) == GPGPU_SUCCESS);
    CHECK(gpgpu_mtx_read_vector(t.path, GPGPU_TYPE_F32, (void **)&fb, &n, NULL, 0) ==
          GPGPU_SUCCESS);
    CHECK(n == 2 && fb != NULL && isnan(fb[0]) && isnan(fb[1]));
    free(db);
    free(fb);
    remove(t.path);
}

/* The text the writer makes for the special values, the same on every C
 * library, and bit-equal read-back up to a NaN's payload (the sign stays). */
static void test_special_values(void)
{
    const float f[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 1.5f};
    const double d[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0, -2.25};
    const char *body = "nan\n-nan\ninf\n-inf\n-0\n0\n";
    char text[256], expected[256];
    tmp_file t = make_temp();

    CHECK(gpgpu_mtx_write_vector(t.path, GPGPU_TYPE_F32, f, 7, NULL, 0) == GPGPU_SUCCESS);
    FILE *in = fopen(t.path, "r");
    size_t len = in != NULL ? fread(text, 1, sizeof text - 1, in) : 0;
    text[len] = '\0';
    if (in != NULL) {
        fclose(in);
    }
    snprintf(expected, sizeof expected, "%%%%MatrixMarket matrix array real general\n7 1\n%s1.5\n",
             body);
    CHECK(strcmp(text, expected) == 0);
    float *fb = NULL;
    size_t n = 0;
    CHECK(gpgpu_mtx_read_vector(t.path, GPGPU_TYPE_F32, (void **)&fb, &n, NULL, 0) ==
          GPGPU_SUCCESS);
    CHECK(n == 7 && fb != NULL);
    if (n == 7 && fb != NULL) {
        const float qnan = NAN;
        CHECK(memcmp(&fb[0], &qnan, sizeof qnan) == 0); /* the default quiet NaN */
        CHECK(isnan(fb[1]) && signbit(fb[1]));
        CHECK(memcmp(fb + 2, f + 2, 5 * sizeof *f) == 0);
    }
    free(fb);

    CHECK(gpgpu_mtx_write_vector(t.path, GPGPU_TYPE_F64, d, 7, NULL, 0) == GPGPU_SUCCESS);
    in = fopen(t.path, "r");
    len = in != NULL ? fread(text, 1, sizeof text - 1, in) : 0;
    text[len] = '\0';
    if (in != NULL) {
        fclose(in);
    }
    snprintf(expected, sizeof expected, "%%%%MatrixMarket matrix array real general\n7 1\n%s-2.25\n",
             body);
    CHECK(strcmp(text, expected) == 0);
    double *db = NULL;
    CHECK(gpgpu_mtx_read_vector(t.path, GPGPU_TYPE_F64, (void **)&db, &n, NULL, 0) ==
          GPGPU_SUCCESS);
    CHECK(n == 7 && db != NULL);
    if (n == 7 && db != NULL) {
        const double qnan = NAN;
        CHECK(memcmp(&db[0], &qnan, sizeof qnan) == 0);
        CHECK(isnan(db[1]) && signbit(db[1]));
        CHECK(memcmp(db + 2, d + 2, 5 * sizeof *d) == 0);
    }
    free(db);
    remove(t.path);
}

/* The spellings of inf and nan that strtod reads, in any case. */
static void test_special_spellings(void)
{
    double *d = NULL;
    size_t n = 0;
    CHECK(read_text("%%MatrixMarket matrix array real general\n12 1\n"
                    "NaN\nNAN\n+nan\n-nan\nnan(123)\n-NaN(abc_XYZ)\nnan()\n"
                    "INF\n+inf\n-Inf\nInfinity\n-INFINITY\n",
                    GPGPU_TYPE_F64, (void **)&d, &n, NULL, 0) == GPGPU_SUCCESS);
    CHECK(n == 12 && d != NULL);
    if (n == 12 && d != NULL) {
        for (int k = 0; k < 7; k++) {
            CHECK(isnan(d[k]));
            CHECK(!signbit(d[k]) == (k != 3 && k != 5));
        }
        CHECK(d[7] == INFINITY && d[8] == INFINITY && d[9] == -INFINITY);
        CHECK(d[10] == INFINITY && d[11] == -INFINITY);
    }
    free(d);
    float *f = NULL;
    CHECK(read_text("%%MatrixMarket matrix array real general\n4 1\n-0\n-0.0e5\nInf\n-nan\n",
                    GPGPU_TYPE_F32, (void **)&f, &n, NULL, 0) == GPGPU_SUCCESS);
    CHECK(n == 4 && f != NULL);
    if (n == 4 && f != NULL) {
        CHECK(f[0] == 0 && signbit(f[0]) && f[1] == 0 && signbit(f[1]));
        CHECK(f[2] == INFINITY && isnan(f[3]) && signbit(f[3]));
    }
    free(f);
    /* Coordinate entries take them too. */
    d = NULL;
    CHECK(read_text("%%MatrixMarket matrix coordinate real general\n3 1 2\n1 1 -inf\n3 1 nan\n",
                    GPGPU_TYPE_F64, (void **)&d, &n, NULL, 0) == GPGPU_SUCCESS);
    CHECK(n == 3 && d != NULL && d[0] == -INFINITY && d[1] == 0 && isnan(d[2]));
    free(d);

    const gpgpu_type f32 = GPGPU_TYPE_F32, f64 = GPGPU_TYPE_F64, i32 = GPGPU_TYPE_I32;
    const gpgpu_status parse = GPGPU_ERROR_PARSE;
    const char *bad[] = {"in", "infinit", "infinityx", "nana", "nan(", "nan(1", "nan(1-2)",
                         "nan)", "nan(1)x", "--inf", "+-nan", "i nf", "0x1p3", "nan ("};
    char text[128];
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        snprintf(text, sizeof text, "%%%%MatrixMarket matrix array real general\n1 1\n%s\n",
                 bad[k]);
        CHECK(read_status(text, f64) == parse);
        CHECK(read_status(text, f32) == parse);
    }
    CHECK(read_status("%%MatrixMarket matrix array integer general\n1 1\nnan\n", i32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array integer general\n1 1\ninf\n", i32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array integer general\n1 1\ninf\n",
                      GPGPU_TYPE_U32) == parse);
}

static void test_empty(void)
{
    tmp_file t = make_temp();
    void *data = (void *)&data;
    size_t n = 99;
    CHECK(gpgpu_mtx_write_vector(t.path, GPGPU_TYPE_F64, NULL, 0, NULL, 0) == GPGPU_SUCCESS);
    CHECK(gpgpu_mtx_read_vector(t.path, GPGPU_TYPE_F64, &data, &n, NULL, 0) == GPGPU_SUCCESS);
    CHECK(data == NULL && n == 0);
    remove(t.path);
}

static void test_array_shapes(void)
{
    int32_t *v = NULL;
    size_t n = 0;
    /* Case-insensitive keywords, comments and blank lines before the size line. */
    CHECK(read_text("%%matrixmarket MATRIX Array INTEGER General\n% comment\n\n  \n3 1\n"
                    "-4\n+5\n6\n\n",
                    GPGPU_TYPE_I32, (void **)&v, &n, NULL, 0) == GPGPU_SUCCESS);
    CHECK(n == 3 && v != NULL && v[0] == -4 && v[1] == 5 && v[2] == 6);
    free(v);
    v = NULL;
    CHECK(read_text("%%MatrixMarket matrix array real general\r\n1 4\r\n1\r\n2\r\n3\r\n4\r\n",
                    GPGPU_TYPE_I32, (void **)&v, &n, NULL, 0) == GPGPU_SUCCESS);
    CHECK(n == 4 && v != NULL && v[0] == 1 && v[3] == 4);
    free(v);
    v = NULL;
    CHECK(read_text("%%MatrixMarket matrix array integer symmetric\n1 1\n7\n", GPGPU_TYPE_I32,
                    (void **)&v, &n, NULL, 0) == GPGPU_SUCCESS);
    CHECK(n == 1 && v != NULL && v[0] == 7);
    free(v);
}

static void test_coordinate(void)
{
    double *v = NULL;
    size_t n = 0;
    /* Rows 1 and 4 are missing; row 2 appears twice. */
    CHECK(read_text("%%MatrixMarket matrix coordinate real general\n5 1 4\n"
                    "2 1 1.5\n3 1 -2\n2 1 0.25\n5 1 1e-300\n",
                    GPGPU_TYPE_F64, (void **)&v, &n, NULL, 0) == GPGPU_SUCCESS);
    CHECK(n == 5 && v != NULL && v[0] == 0 && v[1] == 1.75 && v[2] == -2 && v[3] == 0 &&
          v[4] == 1e-300);
    free(v);
    uint32_t *u = NULL;
    CHECK(read_text("%%MatrixMarket matrix coordinate integer general\n1 3 2\n1 3 9\n1 1 4\n",
                    GPGPU_TYPE_U32, (void **)&u, &n, NULL, 0) == GPGPU_SUCCESS);
    CHECK(n == 3 && u != NULL && u[0] == 4 && u[1] == 0 && u[2] == 9);
    free(u);
}

static void test_parse_errors(void)
{
    const gpgpu_type u32 = GPGPU_TYPE_U32, i32 = GPGPU_TYPE_I32, f32 = GPGPU_TYPE_F32;
    const gpgpu_status parse = GPGPU_ERROR_PARSE;
    CHECK(read_status("", f32) == parse);
    CHECK(read_status("MatrixMarket matrix array real general\n1 1\n1\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real\n1 1\n1\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket vector array real general\n1 1\n1\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix coordinate pattern general\n2 1 1\n1 1\n", f32) ==
          parse);
    CHECK(read_status("%%MatrixMarket matrix array complex general\n1 1\n1 0\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real skew-symmetric\n1 1\n", f32) == parse);
    /* Hermitian with real values is symmetric: a 1 x 1 vector, as a symmetric file is. */
    CHECK(read_status("%%MatrixMarket matrix array real hermitian\n1 1\n1\n", f32) ==
          GPGPU_SUCCESS);
    CHECK(read_status("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real general\n2 x\n1\n2\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real general\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real general\n3 1\n1\n2\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real general\n1 1\nabc\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real general\n1 1\n0x10\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array integer general\n1 1\n-1\n", u32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array integer general\n1 1\n4294967296\n", u32) ==
          parse);
    CHECK(read_status("%%MatrixMarket matrix array integer general\n1 1\n2147483648\n", i32) ==
          parse);
    CHECK(read_status("%%MatrixMarket matrix array real general\n1 1\n1.5\n", i32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real general\n1 1\n1e3\n", i32) == parse);
    CHECK(read_status("%%MatrixMarket matrix array real general\n1 1\n1e39\n", f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix coordinate real general\n3 1 1\n4 1 1\n", f32) ==
          parse);
    CHECK(read_status("%%MatrixMarket matrix coordinate real general\n3 1 1\n0 1 1\n", f32) ==
          parse);
    CHECK(read_status("%%MatrixMarket matrix coordinate real general\n3 1 2\n1 1 1\n", f32) ==
          parse);
    CHECK(read_status("%%MatrixMarket matrix coordinate real general\n3 1 1\n1 1 1\n2 1 1\n",
                      f32) == parse);
    CHECK(read_status("%%MatrixMarket matrix coordinate integer general\n1 1 2\n"
                      "1 1 4294967295\n1 1 1\n",
                      u32) == parse);
}

static void test_messages(void)
{
    char msg[256] = "";
    void *data = NULL;
    size_t n = 0;
    CHECK(read_text("%%MatrixMarket matrix array real general\n% c\n3 1\n1\nx\n3\n",
                    GPGPU_TYPE_F64, &data, &n, msg, sizeof msg) == GPGPU_ERROR_PARSE);
    CHECK(strstr(msg, "/tmp/test_mtx_") == msg && strstr(msg, ":5: ") != NULL);
    CHECK(read_text("%%MatrixMarket matrix coordinate real general\n3 1 1\n9 1 1\n",
                    GPGPU_TYPE_F64, &data, &n, msg, sizeof msg) == GPGPU_ERROR_PARSE);
    CHECK(strstr(msg, ":3: ") != NULL);
    /* A short buffer gets a truncated, terminated message; none at all is fine. */
    char tiny[8];
    CHECK(read_text("%%MatrixMarket matrix array real general\n1 1\nx\n", GPGPU_TYPE_F64, &data,
                    &n, tiny, sizeof tiny) == GPGPU_ERROR_PARSE);
    CHECK(strlen(tiny) == sizeof tiny - 1);
    CHECK(read_text("%%MatrixMarket matrix array real general\n1 1\nx\n", GPGPU_TYPE_F64, &data,
                    &n, NULL, 0) == GPGPU_ERROR_PARSE);
    CHECK(data == NULL);
}

static void test_arguments(void)
{
    void *data = NULL;
    size_t n = 0;
    const double one = 1.0;
    CHECK(gpgpu_mtx_read_vector("/tmp/no/such/dir/x.mtx", GPGPU_TYPE_F64, &data, &n, NULL, 0) ==
          GPGPU_ERROR_IO);
    CHECK(gpgpu_mtx_read_vector(NULL, GPGPU_TYPE_F64, &data, &n, NULL, 0) ==
          GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_mtx_read_vector("x.mtx", GPGPU_TYPE_F64, NULL, &n, NULL, 0) ==
          GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_mtx_read_vector("x.mtx", GPGPU_TYPE_F64, &data, NULL, NULL, 0) ==
          GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_mtx_read_vector("x.mtx", (gpgpu_type)99, &data, &n, NULL, 0) ==
          GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(gpgpu_mtx_write_vector(NULL, GPGPU_TYPE_F64, &one, 1, NULL, 0) ==
          GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_mtx_write_vector("/tmp/x.mtx", GPGPU_TYPE_F64, NULL, 1, NULL, 0) ==
          GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_mtx_write_vector("/tmp/x.mtx", (gpgpu_type)99, &one, 1, NULL, 0) ==
          GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(gpgpu_mtx_write_vector("/tmp/no/such/dir/x.mtx", GPGPU_TYPE_F64, &one, 1, NULL, 0) ==
          GPGPU_ERROR_IO);
}

/* A sparse matrix file is not a vector. */
static void test_matrix_file(void)
{
    const char *path = test_matrix("GENERAL");
    CHECK(path != NULL);
    if (path == NULL) {
        return;
    }
    void *data = NULL;
    size_t n = 0;
    CHECK(gpgpu_mtx_read_vector(path, GPGPU_TYPE_F64, &data, &n, NULL, 0) == GPGPU_ERROR_PARSE);
    CHECK(data == NULL);
}

/* ------------------------------------------------------------ limits */

/* A status as an exit status carries it: the codes differ in their low byte. */
#define EXIT_CODE(status) ((int)(status) & 0xff)

/* EXIT_CODE of reading path as a vector (matrix false) or a matrix, in a child whose
 * address space is capped at 256 MiB: a reader that believed a size line would fail
 * there with GPGPU_ERROR_OUT_OF_MEMORY (or die), where one that grows as the data
 * arrives reports the file's real fault. -1 when the child did not exit. */
static int read_capped(const char *path, bool matrix)
{
    pid_t pid = fork();
    if (pid == 0) {
        /* ASan's shadow takes terabytes of address space, so under the sanitizer pass
         * the cap would abort it; there ASAN_OPTIONS (scripts/test.sh) caps each
         * allocation instead. */
        struct rlimit cap = {.rlim_cur = 256u << 20, .rlim_max = 256u << 20};
        if (!test_under_asan())
            setrlimit(RLIMIT_AS, &cap);
        void *data = NULL;
        size_t n = 0;
        gpgpu_csr a;
        gpgpu_status s = matrix ? gpgpu_mtx_read_matrix(path, &a, NULL, NULL, 0)
                                : gpgpu_mtx_read_vector(path, GPGPU_TYPE_F64, &data, &n, NULL, 0);
        _exit(EXIT_CODE(s));
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        return -1;
    }
    return WEXITSTATUS(status);
}

static int read_text_capped(const char *text, bool matrix)
{
    tmp_file t = write_temp(text);
    int s = read_capped(t.path, matrix);
    remove(t.path);
    return s;
}

/* A size line is a claim: counts past 2^31 - 1 are refused before any allocation, and
 * smaller ones allocate only as the values come, so a short file fails for what it is. */
static void test_size_claims(void)
{
    const int large = EXIT_CODE(GPGPU_ERROR_TOO_LARGE), parse = EXIT_CODE(GPGPU_ERROR_PARSE);
    const char *array = "%%MatrixMarket matrix array real general\n";
    const char *coordinate = "%%MatrixMarket matrix coordinate real general\n";
    char text[256];
    snprintf(text, sizeof text, "%s4000000000 1\n1\n", array);
    CHECK(read_text_capped(text, false) == large);
    snprintf(text, sizeof text, "%s1 2147483648 1\n1 1 1\n", coordinate);
    CHECK(read_text_capped(text, false) == large);
    snprintf(text, sizeof text, "%s1 1 2147483648\n1 1 1\n", coordinate);
    CHECK(read_text_capped(text, false) == large);
    CHECK(read_text_capped(text, true) == large);
    snprintf(text, sizeof text, "%s2147483647 1\n1\n2\n", array);
    CHECK(read_text_capped(text, false) == parse);
    snprintf(text, sizeof text, "%s1 2147483647 2000000000\n1 5 1\n", coordinate);
    CHECK(read_text_capped(text, false) == parse);
    CHECK(read_text_capped(text, true) == parse);
    snprintf(text, sizeof text, "%s46340 46340\n1\n2\n", array);
    CHECK(read_text_capped(text, true) == parse);
    snprintf(text, sizeof text, "%s46341 46341\n1\n", array);
    CHECK(read_text_capped(text, true) == large);
    /* What a file does hold still reads under the cap. */
    snprintf(text, sizeof text, "%s3 1\n1\n2\n3\n", array);
    CHECK(read_text_capped(text, false) == GPGPU_SUCCESS);
}

/* Writes `chunk` into a pipe until the reader closes it, and reads the other end:
 * an input without end stops at a documented limit. */
static int read_endless(const char *chunk, bool matrix)
{
    int fds[2];
    if (pipe(fds) != 0) {
        return -1;
    }
    pid_t writer = fork();
    if (writer == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_DFL);
        /* The chunk repeated to 64 KiB, the first copy alone holding any header. */
        static char block[1 << 16];
        size_t len = strlen(chunk), full = len;
        memcpy(block, chunk, len);
        const char *rest = strchr(chunk, '\n') != NULL ? strchr(chunk, '\n') + 1 : chunk;
        for (size_t more = strlen(rest); more > 0 && full + more <= sizeof block; full += more) {
            memcpy(block + full, rest, more);
        }
        while (write(fds[1], block, full) > 0) {
        }
        _exit(0);
    }
    close(fds[1]);
    char path[32];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    int s = writer < 0 ? -1 : read_capped(path, matrix);
    close(fds[0]);
    if (writer > 0) {
        kill(writer, SIGPIPE); /* a reader that stopped early leaves the writer blocked */
        waitpid(writer, NULL, 0);
    }
    return s;
}

static void test_endless_inputs(void)
{
    const int parse = EXIT_CODE(GPGPU_ERROR_PARSE);
    CHECK(read_capped("/dev/zero", false) == parse);
    CHECK(read_capped("/dev/zero", true) == parse);
    char msg[256] = "";
    void *data = NULL;
    size_t n = 0;
    CHECK(gpgpu_mtx_read_vector("/dev/zero", GPGPU_TYPE_F64, &data, &n, msg, sizeof msg) ==
          GPGPU_ERROR_PARSE);
    CHECK(strstr(msg, "/dev/zero:1: ") == msg && strstr(msg, "NUL") != NULL);
    /* One line that never ends, and comments that never end. */
    CHECK(read_endless("          ", false) == parse);
    CHECK(read_endless("%%MatrixMarket matrix coordinate real general\n% more\n", true) ==
          parse);
    CHECK(read_endless("%%MatrixMarket matrix array real general\n\n\n\n\n", false) == parse);
    /* Data past the declared count stops at the first line too many. */
    CHECK(read_endless("%%MatrixMarket matrix array real general\n1 1\n1\n", false) == parse);
}

/* The line limit exactly: GPGPU_MTX_MAX_LINE_BYTES reads, one more byte does not. */
static void test_line_limit(void)
{
    const char *head = "%%MatrixMarket matrix array real general\n1 1\n";
    size_t head_len = strlen(head), line = GPGPU_MTX_MAX_LINE_BYTES;
    for (size_t extra = 0; extra < 2; extra++) {
        char *text = malloc(head_len + line + extra + 1);
        if (text == NULL) {
            CHECK(!"out of memory");
            return;
        }
        memcpy(text, head, head_len);
        memset(text + head_len, ' ', line + extra);
        text[head_len + line + extra - 2] = '7';
        text[head_len + line + extra - 1] = '\n';
        text[head_len + line + extra] = '\0';
        double *v = NULL;
        size_t n = 0;
        gpgpu_status s = read_text(text, GPGPU_TYPE_F64, (void **)&v, &n, NULL, 0);
        CHECK(extra == 0 ? s == GPGPU_SUCCESS && n == 1 && v[0] == 7 : s == GPGPU_ERROR_PARSE);
        free(v);
        free(text);
    }
}

int main(void)
{
    test_round_trips();
    test_nan();
    test_special_values();
    test_special_spellings();
    test_empty();
    test_array_shapes();
    test_coordinate();
    test_parse_errors();
    test_messages();
    test_arguments();
    test_matrix_file();
    test_size_claims();
    test_endless_inputs();
    test_line_limit();
    if (failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    return 0;
}
