/*
 * Tests of gpgpu_mtx_read_matrix / gpgpu_mtx_write_matrix: every file of
 * GPGPU_MATRIX_DIR (real or generated: tests/matrices/matrices.py) read (or
 * refused by name) and compared with a slow, independent parse; the corners
 * of the format on small texts; .gz files (in a build without zlib: that they
 * are refused); the writer's round trip. Exit status 0 when every check passes.
 */
#include "gpgpu/io.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifdef GPGPU_HAVE_ZLIB
#include <zlib.h>
#endif

#include "cpu_test.h"

static char tmp_dir[64];

static const char *tmp_path(const char *name)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    return path;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

/* Reads `text` through a file; the message, when msg is given. */
static gpgpu_status read_text(const char *text, gpgpu_csr *a, char *msg, size_t msg_size)
{
    const char *path = tmp_path("in.mtx");
    write_file(path, text);
    gpgpu_status s = gpgpu_mtx_read_matrix(path, a, NULL, msg, msg_size);
    remove(path);
    return s;
}

/* The status of reading text, with msg containing `needle` (when not NULL)
 * and nothing left in the CSR. */
static void expect_error(const char *text, gpgpu_status expected, const char *needle)
{
    char msg[512] = "";
    gpgpu_csr a = {.rows = 7};
    gpgpu_status s = read_text(text, &a, msg, sizeof msg);
    CHECK(s == expected);
    CHECK(a.rows == 0 && a.row_ptr == NULL && a.values == NULL);
    if (needle != NULL && !CHECK(strstr(msg, needle) != NULL)) {
        fprintf(stderr, "  expected '%s' in: %s\n", needle, msg);
    }
    gpgpu_csr_free(&a);
}

/* a equals the dense rows x cols matrix given row by row, where present[i*cols+j] marks the
 * stored entries (NULL: the nonzeros). */
static void expect_dense(const gpgpu_csr *a, uint32_t rows, uint32_t cols, const double *dense,
                         const bool *present)
{
    if (!CHECK(a->rows == rows && a->cols == cols) ||
        !CHECK(gpgpu_csr_check(a, true, NULL, 0) == GPGPU_SUCCESS)) {
        return;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t j = 0; j < cols; j++) {
            bool stored = present != NULL ? present[i * cols + j] : dense[i * cols + j] != 0;
            if (!stored) {
                continue;
            }
            bool here = k < a->row_ptr[i + 1] && a->col_idx[k] == j;
            if (!CHECK(here && a->values[k] == dense[i * cols + j])) {
                fprintf(stderr, "  at (%u, %u)\n", i, j);
                return;
            }
            k++;
        }
        CHECK(a->row_ptr[i + 1] == k);
    }
}

/* ------------------------------------------------------- the slow parser */

/* One entry of the slow parse; seq keeps the file's order for summing. */
typedef struct slow_entry {
    uint32_t row, col;
    size_t seq;
    double value;
} slow_entry;

static int compare_slow(const void *pa, const void *pb)
{
    const slow_entry *a = pa, *b = pb;
    if (a->row != b->row) {
        return a->row < b->row ? -1 : 1;
    }
    if (a->col != b->col) {
        return a->col < b->col ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Coordinate files only: fgets, sscanf, qsort; nothing shared with the library. */
static bool slow_compare(const char *path, const gpgpu_csr *a)
{
    FILE *f = fopen(path, "r");
    static char line[1 << 16];
    char field[32] = "", symmetry[32] = "";
    if (f == NULL || fgets(line, sizeof line, f) == NULL ||
        sscanf(line, "%%%%MatrixMarket matrix coordinate %31s %31s", field, symmetry) != 2) {
        if (f != NULL) {
            fclose(f);
        }
        return false;
    }
    unsigned long rows = 0, cols = 0, entries = 0;
    while (fgets(line, sizeof line, f) != NULL &&
           (line[0] == '%' || sscanf(line, "%lu %lu %lu", &rows, &cols, &entries) != 3)) {
    }
    bool pattern = strcasecmp(field, "pattern") == 0;
    /* Real hermitian is symmetric (the values have no imaginary part to conjugate). */
    bool sym = strcasecmp(symmetry, "symmetric") == 0 || strcasecmp(symmetry, "hermitian") == 0;
    bool skew = strcasecmp(symmetry, "skew-symmetric") == 0;
    slow_entry *e = malloc((2 * entries + 1) * sizeof *e);
    size_t n = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long i, j;
        double v = 1;
        if (line[0] == '%' || sscanf(line, "%lu %lu %lf", &i, &j, &v) < 2) {
            continue;
        }
        v = pattern ? 1 : v;
        e[n] = (slow_entry){(uint32_t)i - 1, (uint32_t)j - 1, n, v};
        n++;
        if ((sym || skew) && i != j) {
            e[n] = (slow_entry){(uint32_t)j - 1, (uint32_t)i - 1, n, skew ? -v : v};
            n++;
        }
    }
    fclose(f);
    qsort(e, n, sizeof *e, compare_slow);
    size_t k = 0;
    bool same = a->rows == rows && a->cols == cols;
    for (size_t p = 0; same && p < n; k++) {
        double sum = e[p].value;
        size_t q = p + 1;
        for (; q < n && e[q].row == e[p].row && e[q].col == e[p].col; q++) {
            sum += e[q].value;
        }
        same = k < a->nnz && a->col_idx[k] == e[p].col && k >= a->row_ptr[e[p].row] &&
               k < a->row_ptr[e[p].row + 1] && memcmp(&a->values[k], &sum, sizeof sum) == 0;
        p = q;
    }
    free(e);
    return same && k == a->nnz;
}

/* --------------------------------------------------------------- the files */

/* The banner's words, lower case, for what the reader must refuse. */
static void banner_of(const char *path, char *banner, size_t size)
{
    FILE *f = fopen(path, "r");
    banner[0] = '\0';
    if (f != NULL && fgets(banner, (int)size, f) != NULL) {
        for (char *p = banner; *p != '\0'; p++) {
            *p = (char)tolower((unsigned char)*p);
        }
    }
    if (f != NULL) {
        fclose(f);
    }
}

static void check_file(const char *path, const char *name)
{
    (void)name;
    char banner[256], msg[512] = "";
    banner_of(path, banner, sizeof banner);
    gpgpu_csr a;
    gpgpu_mtx_header h;
    gpgpu_status s = gpgpu_mtx_read_matrix(path, &a, &h, msg, sizeof msg);
    const char *refused = strstr(banner, " complex ") != NULL ? "complex" : NULL;
    if (refused != NULL) {
        if (!CHECK(s == GPGPU_ERROR_PARSE && strstr(msg, refused) != NULL)) {
            fprintf(stderr, "  %s: %s\n", path, msg);
        }
        return;
    }
    if (!CHECK(s == GPGPU_SUCCESS)) {
        fprintf(stderr, "  %s: %s\n", path, msg);
        return;
    }
    CHECK(gpgpu_csr_check(&a, true, NULL, 0) == GPGPU_SUCCESS);
    CHECK(!h.array && h.rows == a.rows && h.cols == a.cols && strstr(banner, h.field) != NULL &&
          strstr(banner, h.symmetry) != NULL);
    if (!CHECK(slow_compare(path, &a))) {
        fprintf(stderr, "  %s differs from the slow parse\n", path);
    }
    gpgpu_csr_free(&a);
}

static void test_all_files(void)
{
    CHECK(cpu_test_each_matrix(check_file) >= test_matrix_min_files());
}

/* -------------------------------------------------------------- the texts */

static void test_symmetric(void)
{
    gpgpu_csr a;
    gpgpu_mtx_header h;
    const char *path = tmp_path("sym.mtx");
    /* (1, 3) is above the diagonal: mirrored all the same, as USPowerGrid needs. */
    write_file(path, "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n"
                     "1 1 2\n2 1 -1\n3 2 0.5\n1 3 7\n");
    CHECK(gpgpu_mtx_read_matrix(path, &a, &h, NULL, 0) == GPGPU_SUCCESS);
    const double sym[] = {2, -1, 7, -1, 0, 0.5, 7, 0.5, 0};
    expect_dense(&a, 3, 3, sym, NULL);
    CHECK(h.entries == 4 && strcmp(h.symmetry, "symmetric") == 0 && strcmp(h.field, "real") == 0);
    gpgpu_csr_free(&a);
    remove(path);

    CHECK(read_text("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n"
                    "2 1 1.5\n3 1 -2\n",
                    &a, NULL, 0) == GPGPU_SUCCESS);
    const double skew[] = {0, -1.5, 2, 1.5, 0, 0, -2, 0, 0};
    expect_dense(&a, 3, 3, skew, NULL);
    gpgpu_csr_free(&a);
    expect_error("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n",
                 GPGPU_ERROR_PARSE, ":4: ");
    expect_error("%%MatrixMarket matrix coordinate real symmetric\n3 2 1\n1 1 1\n",
                 GPGPU_ERROR_PARSE, "square");

    /* Real hermitian is symmetric (A = A^H with real entries), as SciPy reads it; the header
     * keeps what the file declared. Array files store the lower triangle, diagonal included. */
    write_file(path, "%%MatrixMarket matrix coordinate real hermitian\n3 3 4\n"
                     "1 1 2\n2 1 -1\n3 2 0.5\n1 3 7\n");
    CHECK(gpgpu_mtx_read_matrix(path, &a, &h, NULL, 0) == GPGPU_SUCCESS);
    expect_dense(&a, 3, 3, sym, NULL);
    CHECK(strcmp(h.symmetry, "hermitian") == 0);
    gpgpu_csr_free(&a);
    remove(path);
    CHECK(read_text("%%MatrixMarket matrix array integer hermitian\n2 2\n1\n2\n3\n", &a, NULL,
                    0) == GPGPU_SUCCESS);
    const double herm[] = {1, 2, 2, 3};
    expect_dense(&a, 2, 2, herm, NULL);
    gpgpu_csr_free(&a);
    CHECK(read_text("%%MatrixMarket matrix coordinate pattern hermitian\n2 2 1\n2 1\n", &a,
                    NULL, 0) == GPGPU_SUCCESS);
    const double pattern[] = {0, 1, 1, 0};
    expect_dense(&a, 2, 2, pattern, NULL);
    gpgpu_csr_free(&a);
}

static void test_fields(void)
{
    gpgpu_csr a;
    /* Pattern: every value 1; the duplicate (2, 1) and its mirror count twice. */
    CHECK(read_text("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 3\n"
                    "1 1\n2 1\n2 1\n",
                    &a, NULL, 0) == GPGPU_SUCCESS);
    const double pattern[] = {1, 2, 2, 0};
    expect_dense(&a, 2, 2, pattern, NULL);
    gpgpu_csr_free(&a);
    /* A value after a pattern entry is checked and ignored (Pajek/Ragusa16). */
    CHECK(read_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 2 5\n", &a, NULL,
                    0) == GPGPU_SUCCESS);
    CHECK(a.nnz == 1 && a.values[0] == 1);
    gpgpu_csr_free(&a);
    expect_error("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 2 x\n",
                 GPGPU_ERROR_PARSE, ":3: ");
    expect_error("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2\n",
                 GPGPU_ERROR_PARSE, ":3: ");

    CHECK(read_text("%%MatrixMarket matrix coordinate integer general\n2 3 3\n"
                    "1 3 -4\n2 1 +9007199254740993\n1 3 10\n",
                    &a, NULL, 0) == GPGPU_SUCCESS);
    const double integer[] = {0, 0, 6, 9007199254740992.0, 0, 0};
    expect_dense(&a, 2, 3, integer, NULL);
    gpgpu_csr_free(&a);
    expect_error("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
                 GPGPU_ERROR_PARSE, "integer");
    CHECK(read_text("%%MatrixMarket matrix coordinate double general\n1 2 2\n1 2 -inf\n"
                    "1 1 -0\n",
                    &a, NULL, 0) == GPGPU_SUCCESS);
    CHECK(a.nnz == 2 && a.values[0] == 0 && signbit(a.values[0]) && a.values[1] == -INFINITY);
    gpgpu_csr_free(&a);
}

static void test_arrays(void)
{
    gpgpu_csr a;
    gpgpu_mtx_header h;
    const char *path = tmp_path("array.mtx");
    /* Column-major, a zero kept, two values on one line. */
    write_file(path, "%%MatrixMarket matrix array real general\n% c\n2 3\n1\n2\n3 0\n5\n6\n");
    CHECK(gpgpu_mtx_read_matrix(path, &a, &h, NULL, 0) == GPGPU_SUCCESS);
    const double general[] = {1, 3, 5, 2, 0, 6};
    const bool all[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    expect_dense(&a, 2, 3, general, all);
    CHECK(h.array && h.entries == 6 && h.rows == 2 && h.cols == 3);
    gpgpu_csr_free(&a);
    remove(path);

    CHECK(read_text("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", &a,
                    NULL, 0) == GPGPU_SUCCESS);
    const double sym[] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
    expect_dense(&a, 3, 3, sym, all);
    gpgpu_csr_free(&a);
    CHECK(read_text("%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n", &a,
                    NULL, 0) == GPGPU_SUCCESS);
    const double skew[] = {0, -1, -2, 1, 0, -3, 2, 3, 0};
    expect_dense(&a, 3, 3, skew, all);
    gpgpu_csr_free(&a);
    CHECK(read_text("%%MatrixMarket matrix array real general\n0 4\n", &a, NULL, 0) ==
          GPGPU_SUCCESS);
    CHECK(a.rows == 0 && a.cols == 4 && a.nnz == 0 && a.row_ptr != NULL && a.row_ptr[0] == 0);
    gpgpu_csr_free(&a);
    expect_error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", GPGPU_ERROR_PARSE,
                 "expected 4 values, found 3");
    expect_error("%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", GPGPU_ERROR_PARSE,
                 ":5: ");
    expect_error("%%MatrixMarket matrix array real general\n65536 65536\n1\n",
                 GPGPU_ERROR_TOO_LARGE, NULL);
}

static void test_coordinate(void)
{
    gpgpu_csr a;
    /* Out of order, duplicates summed in file order, an empty row and column. */
    CHECK(read_text("%%MatrixMarket matrix coordinate real general\n4 4 5\n"
                    "4 2 1e-300\n1 4 0.5\n1 1 1\n1 4 0.25\n4 1 -3\n",
                    &a, NULL, 0) == GPGPU_SUCCESS);
    const double dense[] = {1, 0, 0, 0.75, 0, 0, 0, 0, 0, 0, 0, 0, -3, 1e-300, 0, 0};
    expect_dense(&a, 4, 4, dense, NULL);
    gpgpu_csr_free(&a);
    CHECK(read_text("%%MatrixMarket matrix coordinate real general\n0 0 0\n", &a, NULL, 0) ==
          GPGPU_SUCCESS);
    CHECK(a.rows == 0 && a.cols == 0 && a.nnz == 0 && a.row_ptr != NULL);
    gpgpu_csr_free(&a);
    /* A size line promising far more entries than come: refused for what is
     * missing, without reserving for what was promised. */
    expect_error("%%MatrixMarket matrix coordinate real general\n5 5 2000000000\n1 1 1\n",
                 GPGPU_ERROR_PARSE, "expected 2000000000 entries, found 1");
}

static void test_errors(void)
{
    const gpgpu_status parse = GPGPU_ERROR_PARSE, large = GPGPU_ERROR_TOO_LARGE;
    expect_error("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", parse,
                 "complex");
    expect_error("%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n", parse,
                 ":1: field 'complex'");
    expect_error("", parse, "empty");
    expect_error("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", parse, ":1: ");
    expect_error("%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", parse, ":1: ");
    expect_error("%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n", parse,
                 "quaternion");
    expect_error("%%MatrixMarket matrix coordinate real general\n", parse, "size line");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2\n", parse, ":2: ");
    expect_error("%%MatrixMarket matrix coordinate real general\n-2 2 1\n", parse, ":2: ");
    /* 1-based indices checked against the size, with the line. */
    const char *bounds[] = {"0 1 1", "1 0 1", "4 1 1", "1 3 1", "x 1 1", "1 -1 1"};
    for (size_t k = 0; k < sizeof bounds / sizeof *bounds; k++) {
        char text[256];
        snprintf(text, sizeof text,
                 "%%%%MatrixMarket matrix coordinate real general\n%% comment\n3 2 2\n"
                 "1 1 1\n%s\n",
                 bounds[k]);
        expect_error(text, parse, ":5: index");
    }
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1\n", parse, ":3: ");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1 1\n", parse, ":3: ");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 abc\n", parse,
                 ":3: 'abc'");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1e999\n", parse,
                 ":3: ");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n", parse,
                 "expected 2 entries, found 1");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n\n2 2 2\n", parse,
                 ":5: more entries");
    expect_error("%%MatrixMarket matrix coordinate real general\n2147483648 1 0\n", large, NULL);
    expect_error("%%MatrixMarket matrix coordinate real general\n1 2147483648 0\n", large, NULL);
    expect_error("%%MatrixMarket matrix coordinate real general\n1 1 2147483648\n", large, NULL);

    gpgpu_csr a;
    CHECK(gpgpu_mtx_read_matrix(NULL, &a, NULL, NULL, 0) == GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_mtx_read_matrix("x.mtx", NULL, NULL, NULL, 0) == GPGPU_ERROR_NULL_POINTER);
    char msg[256] = "";
    CHECK(gpgpu_mtx_read_matrix("/tmp/no/such/dir/x.mtx", &a, NULL, msg, sizeof msg) ==
          GPGPU_ERROR_IO);
    CHECK(strstr(msg, "/tmp/no/such/dir/x.mtx") == msg);
}

/* ------------------------------------------------------------ f32 values */

/* Reads text as a matrix of `type` values; the message, when msg is given. */
static gpgpu_status read_text_as(const char *text, gpgpu_type type, gpgpu_csr *a, char *msg,
                                 size_t msg_size)
{
    const char *path = tmp_path("as.mtx");
    write_file(path, text);
    gpgpu_status s = gpgpu_mtx_read_matrix_as(path, type, a, NULL, msg, msg_size);
    remove(path);
    return s;
}

static void test_f32_range(void)
{
    const gpgpu_type f32 = GPGPU_TYPE_F32, f64 = GPGPU_TYPE_F64;
    gpgpu_csr a;
    char msg[512] = "";
    const char *big = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 -1e39\n";
    CHECK(read_text_as(big, f32, &a, msg, sizeof msg) == GPGPU_ERROR_PARSE && a.values == NULL);
    if (!CHECK(strstr(msg, ":4: -1e39 is out of range for f32") != NULL)) {
        fprintf(stderr, "  %s\n", msg);
    }
    CHECK(read_text_as(big, f64, &a, msg, sizeof msg) == GPGPU_SUCCESS && a.values[1] == -1e39);
    gpgpu_csr_free(&a);
    /* Just past FLT_MAX, but rounding to it in f32; inf is a value, not an overflow. */
    CHECK(read_text_as("%%MatrixMarket matrix array real general\n2 1\n3.4028235e38\ninf\n",
                       f32, &a, msg, sizeof msg) == GPGPU_SUCCESS);
    CHECK(a.nnz == 2 && a.values[0] == FLT_MAX && isinf(a.values[1]));
    gpgpu_csr_free(&a);
    /* Duplicates summed past f32's range, each within it. */
    CHECK(read_text_as("%%MatrixMarket matrix coordinate real general\n2 2 2\n2 1 3e38\n"
                       "2 1 3e38\n",
                       f32, &a, msg, sizeof msg) == GPGPU_ERROR_PARSE);
    if (!CHECK(strstr(msg, "the duplicate entries of (2, 1) sum to 6e+38") != NULL)) {
        fprintf(stderr, "  %s\n", msg);
    }
    /* A pattern line's value is ignored, whatever its size. */
    CHECK(read_text_as("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1 1e39\n",
                       f32, &a, msg, sizeof msg) == GPGPU_SUCCESS && a.values[0] == 1);
    gpgpu_csr_free(&a);
    CHECK(read_text_as("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n",
                       GPGPU_TYPE_U32, &a, msg, sizeof msg) == GPGPU_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------- gzip */

/* A bad .gz is named once, at the start, and says what is wrong with it. */
static void expect_gz_message(const char *msg, const char *gz, const char *needle)
{
    const char *again = strstr(msg, gz) == msg ? strstr(msg + strlen(gz), gz) : msg;
    if (!CHECK(again == NULL && strstr(msg, needle) != NULL)) {
        fprintf(stderr, "  expected '%s' and the path once in: %s\n", needle, msg);
    }
}

#ifdef GPGPU_HAVE_ZLIB
static void write_gz(const char *path, const char *text, size_t len)
{
    gzFile f = gzopen(path, "wb");
    if (f == NULL || gzwrite(f, text, (unsigned)len) != (int)len || gzclose(f) != Z_OK) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

static void test_gzip(void)
{
    /* Long enough that zlib's buffers refill mid-line, and a line longer than the first 4 KiB
     * line buffer. */
    size_t cap = 1 << 22, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "%%%%MatrixMarket matrix coordinate real general\n%%");
    memset(text + len, 'x', 10000);
    len += 10000;
    len += (size_t)snprintf(text + len, cap - len, "\n300 200 20000\n");
    for (int k = 0; k < 20000; k++) {
        len += (size_t)snprintf(text + len, cap - len, "%d %d %.17g\n", k % 300 + 1,
                                (k * 7919) % 200 + 1, sin(k) * 1e3);
    }
    const char *plain = tmp_path("gz_plain.mtx"), *gz = tmp_path("gz.mtx.gz");
    write_file(plain, text);
    write_gz(gz, text, len);
    gpgpu_csr a, b;
    char msg[256] = "";
    CHECK(gpgpu_mtx_read_matrix(plain, &a, NULL, msg, sizeof msg) == GPGPU_SUCCESS);
    CHECK(gpgpu_mtx_read_matrix(gz, &b, NULL, msg, sizeof msg) == GPGPU_SUCCESS);
    CHECK(a.nnz > 0 && same_csr(&a, &b));
    gpgpu_csr_free(&b);

    /* Cut short: an error, never a smaller matrix. */
    FILE *f = fopen(gz, "rb");
    char *bytes = malloc(cap);
    size_t n = f != NULL ? fread(bytes, 1, cap, f) : 0;
    if (f != NULL) {
        fclose(f);
    }
    f = fopen(gz, "wb");
    if (f != NULL) {
        fwrite(bytes, 1, n / 2, f);
        fclose(f);
    }
    gpgpu_status s = gpgpu_mtx_read_matrix(gz, &b, NULL, msg, sizeof msg);
    CHECK(s == GPGPU_ERROR_PARSE && b.row_ptr == NULL);
    expect_gz_message(msg, gz, "ends early");
    /* Bytes that do not decode (the compressed data overwritten past the header). */
    memset(bytes + 20, 0xff, 64);
    f = fopen(gz, "wb");
    if (f != NULL) {
        fwrite(bytes, 1, n, f);
        fclose(f);
    }
    s = gpgpu_mtx_read_matrix(gz, &b, NULL, msg, sizeof msg);
    CHECK(s == GPGPU_ERROR_PARSE && b.row_ptr == NULL);
    expect_gz_message(msg, gz, "corrupt gzip data");

    /* A file of the folder, gzip'ed. */
    const char *path = test_matrix("GENERAL");
    gpgpu_csr_free(&a);
    if (CHECK(path != NULL && (f = fopen(path, "rb")) != NULL)) {
        n = fread(bytes, 1, cap, f);
        fclose(f);
        write_gz(gz, bytes, n);
        CHECK(gpgpu_mtx_read_matrix(path, &a, NULL, NULL, 0) == GPGPU_SUCCESS);
        CHECK(gpgpu_mtx_read_matrix(gz, &b, NULL, NULL, 0) == GPGPU_SUCCESS);
        CHECK(a.nnz > 0 && same_csr(&a, &b));
        gpgpu_csr_free(&a);
        gpgpu_csr_free(&b);
    }
    free(bytes);
    free(text);
    remove(plain);
    remove(gz);
}
#else
/* A build without zlib refuses a gzip file, told by its first bytes whatever its name, with
 * GPGPU_ERROR_UNSUPPORTED_FEATURE, naming the file once and the missing zlib; reading .gz
 * files is left out. */
static void test_gzip(void)
{
    /* Python's gzip.compress(b"%%MatrixMarket matrix array real general\n2 1\n1.5\n-2\n",
     * mtime=0): a vector and a matrix. */
    static const unsigned char gz_bytes[] = {
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x53, 0x55, 0xf5, 0x4d,
        0x2c, 0x29, 0xca, 0xac, 0xf0, 0x4d, 0x2c, 0xca, 0x4e, 0x2d, 0x51, 0xc8, 0x05, 0x73,
        0x14, 0x12, 0x8b, 0x8a, 0x12, 0x2b, 0x15, 0x8a, 0x52, 0x13, 0x73, 0x14, 0xd2, 0x53,
        0xf3, 0x52, 0x8b, 0x12, 0x73, 0xb8, 0x8c, 0x14, 0x0c, 0xb9, 0x0c, 0xf5, 0x4c, 0xb9,
        0x74, 0x8d, 0xb8, 0x00, 0x0f, 0x44, 0x1e, 0x69, 0x34, 0x00, 0x00, 0x00};
    const char *const names[] = {"gz.mtx.gz", "gz_named_plain.mtx"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *gz = tmp_path(names[i]);
        FILE *f = fopen(gz, "wb");
        if (f == NULL || fwrite(gz_bytes, 1, sizeof gz_bytes, f) != sizeof gz_bytes ||
            fclose(f) != 0) {
            perror(gz);
            exit(1);
        }
        gpgpu_csr b;
        char msg[256] = "";
        CHECK(gpgpu_mtx_read_matrix(gz, &b, NULL, msg, sizeof msg) ==
                  GPGPU_ERROR_UNSUPPORTED_FEATURE &&
              b.row_ptr == NULL);
        expect_gz_message(msg, gz, "without zlib");
        void *data = NULL;
        size_t count = 0;
        CHECK(gpgpu_mtx_read_vector(gz, GPGPU_TYPE_F64, &data, &count, msg, sizeof msg) ==
                  GPGPU_ERROR_UNSUPPORTED_FEATURE &&
              data == NULL);
        expect_gz_message(msg, gz, "without zlib");
        remove(gz);
    }
    fprintf(stderr, "skipped: reading .gz files (a build without zlib); checked that they are "
                    "refused\n");
}
#endif

/* ----------------------------------------------------------------- writer */

static void test_writer(void)
{
    const double v[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0, 0.1, 1.0 / 3, DBL_MAX,
                        DBL_MIN, 4.9e-324, -5e-320, 1e300};
    uint32_t row_ptr[] = {0, 4, 4, 13};
    uint32_t col_idx[] = {0, 1, 2, 5, 0, 1, 2, 3, 4, 5, 6, 7, 8};
    gpgpu_csr a = {.rows = 3, .cols = 9, .nnz = 13, .row_ptr = row_ptr, .col_idx = col_idx,
                   .values = (double *)v};
    const char *path = tmp_path("out.mtx");
    char msg[256] = "";
    CHECK(gpgpu_mtx_write_matrix(path, &a, msg, sizeof msg) == GPGPU_SUCCESS);
    char text[1024];
    FILE *f = fopen(path, "r");
    size_t len = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
    text[len] = '\0';
    if (f != NULL) {
        fclose(f);
    }
    CHECK(strncmp(text,
                  "%%MatrixMarket matrix coordinate real general\n3 9 13\n1 1 nan\n1 2 -nan\n"
                  "1 3 inf\n1 6 -inf\n3 1 -0\n3 2 0\n3 3 0.10000000000000001\n",
                  strlen("%%MatrixMarket matrix coordinate real general\n3 9 13\n1 1 nan\n"
                         "1 2 -nan\n1 3 inf\n1 6 -inf\n3 1 -0\n3 2 0\n"
                         "3 3 0.10000000000000001\n")) == 0);
    gpgpu_csr b;
    CHECK(gpgpu_mtx_read_matrix(path, &b, NULL, msg, sizeof msg) == GPGPU_SUCCESS);
    if (CHECK(b.nnz == 13 && memcmp(b.row_ptr, row_ptr, sizeof row_ptr) == 0 &&
              memcmp(b.col_idx, col_idx, sizeof col_idx) == 0)) {
        CHECK(isnan(b.values[0]) && !signbit(b.values[0]));
        CHECK(isnan(b.values[1]) && signbit(b.values[1]));
        CHECK(memcmp(b.values + 2, v + 2, 11 * sizeof *v) == 0);
    }
    gpgpu_csr_free(&b);

    /* Files of the folder back bit for bit, integer, pattern and expanded symmetric ones
     * too. */
    const char *roles[] = {"GENERAL", "SPD", "INTEGER", "PATTERN_SYMMETRIC", "RECTANGULAR",
                           "TALL"};
    for (size_t k = 0; k < sizeof roles / sizeof *roles; k++) {
        const char *in = test_matrix(roles[k]);
        gpgpu_csr c;
        if (!CHECK(in != NULL && gpgpu_mtx_read_matrix(in, &c, NULL, NULL, 0) == GPGPU_SUCCESS)) {
            continue;
        }
        CHECK(gpgpu_mtx_write_matrix(path, &c, NULL, 0) == GPGPU_SUCCESS);
        CHECK(gpgpu_mtx_read_matrix(path, &b, NULL, NULL, 0) == GPGPU_SUCCESS);
        CHECK(same_csr(&b, &c));
        gpgpu_csr_free(&b);
        gpgpu_csr_free(&c);
    }

    uint32_t one_ptr[] = {0, 1};
    uint32_t one_col[] = {0};
    double one = 2.5;
    gpgpu_csr tiny = {.rows = 1, .cols = 1, .nnz = 1, .row_ptr = one_ptr, .col_idx = one_col,
                      .values = &one};
    CHECK(gpgpu_mtx_write_matrix("-", &tiny, NULL, 0) == GPGPU_SUCCESS);
    CHECK(gpgpu_mtx_write_matrix(NULL, &tiny, NULL, 0) == GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_mtx_write_matrix(path, NULL, NULL, 0) == GPGPU_ERROR_NULL_POINTER);
    CHECK(gpgpu_mtx_write_matrix("/tmp/no/such/dir/x.mtx", &tiny, NULL, 0) == GPGPU_ERROR_IO);
    one_col[0] = 1; /* past cols */
    CHECK(gpgpu_mtx_write_matrix(path, &tiny, msg, sizeof msg) == GPGPU_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(msg, "row 0") != NULL);
    remove(path);
}

int main(void)
{
    strcpy(tmp_dir, "/tmp/test_mtx_matrix_XXXXXX");
    if (mkdtemp(tmp_dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_all_files();
    test_symmetric();
    test_fields();
    test_arrays();
    test_coordinate();
    test_errors();
    test_f32_range();
    test_gzip();
    test_writer();
    rmdir(tmp_dir);
    return cpu_test_result();
}
