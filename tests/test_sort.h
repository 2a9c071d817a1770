/* What the parts of the sort test share: the context, the keys and segments the tests make,
 * the buffers of a stage test, whole sorts (run_case), and each part's entry, in the order
 * main runs them (test_sort.c, with the data and the stage fixtures; test_sort_bitonic.c,
 * test_sort_radix.c, test_sort_onesweep.c: the stages; test_sort_whole.c: gpgpu_sort;
 * test_sort_segmented.c: segments; test_sort_errors.c: the argument errors). One
 * executable, test_sort. */
#ifndef TEST_SORT_H
#define TEST_SORT_H

#include "algo/sort.h"
#include "ref/ref.h"
#include "testlib.h"

extern gpgpu_context *ctx;

/* ------------------------------------------------------------- data */

uint64_t rnd(void);
size_t ksize(gpgpu_type t);
uint64_t ord(gpgpu_type t, const void *p, size_t i, bool desc);
enum { D_RANDOM, D_DUPS, D_SORTED, D_REVERSE, D_EQUAL, D_SPECIAL, D_COUNT };
extern const char *const data_names[D_COUNT];
void gen_keys(gpgpu_type t, int mode, void *p, size_t n);
uint32_t *gen_u32(size_t n);

/* Segment offsets (nseg + 1 of them, 0 to n) of a kind; *nseg receives the count
 * (test_sort_segmented.c). */
enum { S_ONE, S_SKEWED, S_EMPTIES, S_SINGLES, S_LONG, S_TINY, S_RANDOM, S_COUNT };
extern const char *const seg_names[S_COUNT];
uint32_t *gen_segs(int kind, size_t n, size_t *nseg);

/* ------------------------------------------------------- stage tests */

/* Flag sets of the stage tests: whether a payload is bound, and SORT_*. */
typedef struct flagset {
    int pay; /* 0: keys only; 1: a payload; 2 (radix): PAYLOAD_IS_INDEX without pay;
                3 (radix): PAYLOAD_IS_INDEX with a pay buffer that must not be read */
    unsigned flags;
} flagset;

void flag_text(flagset f, char *out, size_t size);

/* The buffers of one stage test: keys at 3, payload at 5, segment offsets
 * at 2, each with poison around; their host twins. */
typedef struct staged {
    slab keys, pay, segs;
    bool has_pay, has_segs;
    sort_keys gpu;
    ref_sort_keys host;
} staged;

staged staged_make(gpgpu_type t, size_t n, flagset f, int data);
void staged_check(const staged *s, const char *what);
void staged_free(staged *s);

/* The radix stages' flag sets, sources and destinations (test_sort_radix.c), which the
 * one-sweep's take too. */
extern const flagset radix_sets[7];
staged radix_source(gpgpu_type t, size_t n, flagset f, unsigned extra, int data);

/* Where a radix scatter writes: keys at 1 and payloads (when f has them) at
 * 4, poisoned all around, and their host twin. */
typedef struct scatter_dest {
    slab keys, pay;
    sort_keys gpu;
    ref_sort_keys host;
} scatter_dest;

scatter_dest scatter_dest_make(gpgpu_type t, size_t n, flagset f);
void scatter_dest_check_free(scatter_dest *d, const char *what);
uint32_t exclusive_scan(uint32_t *a, size_t n);

/* The sizes the radix, one-sweep and helper stages run at. */
extern const size_t stage_sizes[12];

/* --------------------------------------------------------- gpgpu_sort */

/* Where the keys and the values go. */
enum { K_NULL, K_SAME, K_OUT };                     /* keys_out NULL, = keys_in, another buffer */
enum { V_NONE, V_IN_PLACE, V_SAME, V_OUT, V_OUT_BUF }; /* values: none, values_out NULL, =
                                                          values_in, another range of the
                                                          values' buffer, another buffer */

typedef struct sort_case {
    gpgpu_type t;
    gpgpu_algo algo;
    bool desc, stable;
    size_t n;
    int data;
    int keys, values;
    int segs;     /* S_* or -1: not segmented */
    int scratch; /* desc.scratch of exactly the size asked: 0 none, 1 at offset 16, 2 at 0 */
} sort_case;

extern const gpgpu_algo sort_algos[4];
void run_case(const sort_case *c); /* test_sort_whole.c */

double now(void);
extern bool show_times; /* SORT_TEST_TIMES set: print the slow cases */

/* ------------------------------------------------------- the parts */

void bitonic_stage_tests(void);    /* test_sort_bitonic.c */
void radix_stage_tests(void);      /* test_sort_radix.c */
void onesweep_stage_tests(void);   /* test_sort_onesweep.c */
void small_stage_tests(void);      /* test_sort_radix.c */
void helper_stage_tests(void);     /* test_sort.c */
void size_sweep(void);             /* test_sort_whole.c */
void data_set_sorts(void);
void placement_sorts(void);
void segmented_sorts(void);        /* test_sort_segmented.c */
void reduce_then_scan_sorts(void); /* test_sort_whole.c */
void radix_range_sorts(void);      /* test_sort_onesweep.c */
void scratch_sorts(void);          /* test_sort_whole.c */
void sort_times_report(void);
void device_counts(void);
void errors(void);                 /* test_sort_errors.c */

#endif /* TEST_SORT_H */
