/* gpgpu_sort's and gpgpu_sort_scratch_size's argument errors: exact codes and messages,
 * and nothing touched by a refused call. */
#include <stdio.h>
#include <string.h>

#include "test_plans.h"
#include "test_sort.h"

void errors(void)
{
    const gpgpu_status E_NULL = GPGPU_ERROR_NULL_POINTER, E_INVALID = GPGPU_ERROR_INVALID_ARGUMENT,
                       E_COMBO = GPGPU_ERROR_UNSUPPORTED_COMBINATION,
                       E_OVERLAP = GPGPU_ERROR_OVERLAP, E_RANGE = GPGPU_ERROR_OUT_OF_RANGE,
                       E_ALIGN = GPGPU_ERROR_MISALIGNED, E_OOM = GPGPU_ERROR_OUT_OF_MEMORY;
    gpgpu_type t = GPGPU_TYPE_U32;
    slab a = slab_make(ctx, t, 0, 100, 0, NULL);
    slab v = slab_make(ctx, t, 0, 100, 0, NULL);
    gpgpu_sort_desc d = {.type = t};
    size_t bytes = 0;

    EXPECT_STATUS(ctx, gpgpu_sort(ctx, NULL, a.buf, 0, NULL, 0, 10), E_NULL);
    EXPECT_STATUS(NULL, gpgpu_sort(NULL, &d, a.buf, 0, NULL, 0, 10), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, NULL, 0, NULL, 0, 10), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, NULL, 10, &bytes), E_NULL);
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &d, 10, NULL), E_NULL);

    gpgpu_sort_desc bad = d;
    bad.type = (gpgpu_type)99;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_INVALID);
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &bad, 10, &bytes), E_INVALID);
    bad = d;
    bad.algo = (gpgpu_algo)99;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_INVALID);
    static const gpgpu_algo reduce_algos[] = {GPGPU_ALGO_CLASSIC_HALVING, GPGPU_ALGO_CLASSIC_STRIDE,
                                              GPGPU_ALGO_CLASSIC_MINMAX, GPGPU_ALGO_CLASSIC_SCAN};
    for (size_t i = 0; i < 4; i++) {
        bad.algo = reduce_algos[i];
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_COMBO);
        EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &bad, 10, &bytes), E_COMBO);
    }
    /* values_out without values_in */
    bad = d;
    bad.values_out = v.buf;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_INVALID);

    /* Ranges. */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 0, NULL, 0, 101), E_RANGE);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 91, NULL, 0, 10), E_RANGE);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 0, v.buf, 95, 10), E_RANGE);
    bad = (gpgpu_sort_desc){.type = GPGPU_TYPE_F64};
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 51), E_RANGE);
    bad = d;
    bad.values_in = v.buf;
    bad.values_in_offset = 95;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_RANGE);
    bad.values_in_offset = 0;
    bad.values_out = v.buf;
    bad.values_out_offset = 91;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_RANGE);
    bad = d;
    bad.segments = v.buf;
    bad.segments_offset = 95;
    bad.segment_count = 5; /* 6 offsets from 95: one past the end */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_RANGE);
    bad.segments_offset = 0;
    bad.segment_count = SIZE_MAX; /* SIZE_MAX + 1 offsets, a count that wraps to 0 */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_RANGE);

    /* Overlaps: keys_out overlapping keys_in without being equal, values
     * likewise, keys with values. */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 0, a.buf, 1, 10), E_OVERLAP);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &d, a.buf, 10, a.buf, 1, 10), E_OVERLAP);
    bad = d;
    bad.values_in = v.buf;
    bad.values_out = v.buf;
    bad.values_out_offset = 5;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_OVERLAP);
    bad = d;
    bad.values_in = a.buf;
    bad.values_in_offset = 5;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 10), E_OVERLAP);

    /* Scratch: misaligned, too small, overlapping the keys. A radix sort of
     * up to a tile (one work-group) needs none; the multi-pass one does. */
    bad = d;
    bad.algo = GPGPU_ALGO_RADIX;
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &bad, 100, &bytes), GPGPU_SUCCESS);
    EXPECT(bytes == 0, "RADIX of 100 keys (one group): scratch size %zu, expected 0", bytes);
    TEST_PLAN(ctx, radix.small, false);
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &bad, 100, &bytes), GPGPU_SUCCESS);
    EXPECT(bytes > 0, "RADIX needs scratch memory, got a size of %zu", bytes);
    gpgpu_buffer *s;
    EXPECT_STATUS(ctx, gpgpu_buffer_create(ctx, bytes + 64, &s), GPGPU_SUCCESS);
    bad.scratch = s;
    bad.scratch_offset = 4;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 100), E_ALIGN);
    bad.scratch_offset = 72;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 100), E_OOM);
    size_t need = bytes;
    char text[200];
    snprintf(text, sizeof text, "hold %zu from scratch_offset 72; this sort needs %zu",
             need - 8, need);
    EXPECT(strstr(gpgpu_last_error(ctx), text), "scratch 8 bytes short: \"%s\" lacks \"%s\"",
           gpgpu_last_error(ctx), text);
    bad.scratch_offset = 64;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 100), GPGPU_SUCCESS);
    /* An offset past the buffer's end is out of range, with the real sizes, whether the sort
     * needs scratch memory or (one work-group) none. */
    for (int one_group = 0; one_group < 2; one_group++) {
        TEST_PLAN(ctx, radix.small, one_group);
        bad.scratch_offset = need + 64 + 8;
        EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 100), E_RANGE);
        snprintf(text, sizeof text, "scratch_offset %zu is past the end of the scratch "
                 "buffer's %zu bytes (this sort needs %zu bytes there)", need + 72, need + 64,
                 one_group ? (size_t)0 : need);
        EXPECT(strstr(gpgpu_last_error(ctx), text), "scratch offset past the end: \"%s\" lacks "
               "\"%s\"", gpgpu_last_error(ctx), text);
    }
    TEST_PLAN(ctx, radix.small, false);
    bad.scratch_offset = 64;
    /* Keys inside the scratch range of the same buffer. */
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, s, 20, NULL, 0, 10), E_OVERLAP);
    gpgpu_buffer_destroy(s);
    TEST_PLAN(ctx, radix.small, true);
    /* Keys only, the network, no stability: no scratch at all. */
    EXPECT_STATUS(ctx, gpgpu_sort_scratch_size(ctx, &(gpgpu_sort_desc){.type = t,
                  .algo = GPGPU_ALGO_BITONIC}, 1 << 20, &bytes), GPGPU_SUCCESS);
    EXPECT(bytes == 0, "BITONIC keys only: scratch size %zu, expected 0", bytes);

    /* Nothing above touched the keys it refused: a only holds what the one
     * successful radix sort left (sorted), v is untouched. */
    ref_sort(t, false, slab_at(&a, 0), NULL, 100, NULL, 0);
    slab_check(&a, NULL, "errors: keys after the refused calls");
    slab_check(&v, NULL, "errors: values after the refused calls");

    /* n = 0 and n = 1 with everything set, and n = 0 with no segments. */
    bad = d;
    bad.segments = v.buf;
    bad.segment_count = 0;
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 0), GPGPU_SUCCESS);
    EXPECT_STATUS(ctx, gpgpu_sort(ctx, &bad, a.buf, 0, NULL, 0, 1), E_INVALID);
    slab_check(&a, NULL, "errors: n = 0");
    slab_free(&a);
    slab_free(&v);
}
