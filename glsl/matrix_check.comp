// matrix_check.comp: the checks of a CSR matrix a caller wraps (gpgpu_matrix_validate,
// src/algo/matrix.c), before any product reads it.
// variants: TYPE=F32
//
// Stages (STAGE = params[0], numbered in src/algo/ids/matrix_check_ids.h); offsets in u32:
//   PTRS     per row pointer i <= ROWS: whether it is out of order (0 first, nondecreasing,
//            NNZ last), and the rows' longest, shortest and empty ones
//   ENTRIES  per entry, after PTRS found the pointers sound: whether its column is below
//            COLS and above the one before it in its row (found by search on the pointers)
// into the status record at binding 5 (AUX_OFF): the first bad row of each kind (atomicMin,
// ~0 = none), then the longest and the shortest row and the count of empty ones
// (gpgpu_row_stats); its words are MATRIX_CHECK_V_* of the ids.

layout(std430, binding = 0) readonly buffer Ptr { uint ptr[]; };
layout(std430, binding = 1) readonly buffer Idx { uint idx[]; };
layout(std430, binding = 5) buffer Aux { uint aux[]; };

#define ROWS     params[MATRIX_CHECK_P_ROWS]
#define COLS     params[MATRIX_CHECK_P_COLS]
#define NNZ      params[MATRIX_CHECK_P_NNZ]
#define PTR_OFF  params[MATRIX_CHECK_P_PTR_OFF]
#define IDX_OFF  params[MATRIX_CHECK_P_IDX_OFF]
#define AUX_OFF  params[MATRIX_CHECK_P_AUX_OFF]

#include "spmv/row_ptr.glsl"
#include "spmv/row_search.glsl"

void validate_ptrs(uint i)
{
    if (i > ROWS)
        return;
    uint p = ptr[PTR_OFF + i];
    if (i == 0u && p != 0u)
        atomicMin(aux[AUX_OFF + MATRIX_CHECK_V_FIRST], 0u);
    if (i == ROWS) {
        if (p != NNZ)
            atomicMin(aux[AUX_OFF + MATRIX_CHECK_V_LAST], ROWS > 0u ? ROWS - 1u : 0u);
        return;
    }
    uint q = ptr[PTR_OFF + i + 1u];
    if (q < p) {
        atomicMin(aux[AUX_OFF + MATRIX_CHECK_V_DECREASE], i);
        return;
    }
    uint len = q - p;
#ifdef SUBGROUPS
    // One atomic per subgroup and word: a row each took 2 ms for C's 2M rows on an H100.
    uint most = subgroupMax(len), least = subgroupMin(len);
    uint empty = subgroupAdd(len == 0u ? 1u : 0u);
    if (subgroupElect()) {
        atomicMax(aux[AUX_OFF + MATRIX_CHECK_V_MAX_LEN], most);
        atomicMin(aux[AUX_OFF + MATRIX_CHECK_V_MIN_LEN], least);
        if (empty > 0u)
            atomicAdd(aux[AUX_OFF + MATRIX_CHECK_V_EMPTY], empty);
    }
#else
    atomicMax(aux[AUX_OFF + MATRIX_CHECK_V_MAX_LEN], len);
    atomicMin(aux[AUX_OFF + MATRIX_CHECK_V_MIN_LEN], len);
    if (len == 0u)
        atomicAdd(aux[AUX_OFF + MATRIX_CHECK_V_EMPTY], 1u);
#endif
}

// Run only after validate_ptrs found the pointers sound (nondecreasing, 0 to NNZ).
void validate_entry(uint k)
{
    if (k >= NNZ)
        return;
    uint r = row_search(k, 0u, ROWS - 1u), c = idx[IDX_OFF + k];
    if (c >= COLS)
        atomicMin(aux[AUX_OFF + MATRIX_CHECK_V_COLUMN], r);
    if (k > rp(r) && idx[IDX_OFF + k - 1u] >= c)
        atomicMin(aux[AUX_OFF + MATRIX_CHECK_V_UNSORTED], r);
}

void main()
{
    uint iid = invocation_index();
    switch (STAGE) {
    case MATRIX_CHECK_STAGE_PTRS:
        validate_ptrs(iid);
        return;
    case MATRIX_CHECK_STAGE_ENTRIES:
        validate_entry(iid);
        return;
    default:
        return;
    }
}
