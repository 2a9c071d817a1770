// transpose.comp: A^T of a CSR matrix (gpgpu_matrix_transpose, src/algo/transpose.c), after a
// radix sort of A's entries by column.
// variants: TYPE=F32,F64
//
// Stages (STAGE = params[0], numbered in src/algo/ids/transpose_ids.h):
//   ROW_OF    per entry of A: its row
//   PERMUTE   A^T's columns and values through the sorted permutation
//   COL_PTRS  A^T's row pointers by binary search in the sorted columns
//
// A at bindings 0/1; A^T's ints at 2 (row pointers at 0, columns at C_IDX), values at 3;
// the entries sorted by column: keys in ux (at KEY_OFF), each key's entry index in aux.
// ROW_OF writes each entry's row into a buffer of its own bound at 4 (aux); PERMUTE reads
// it at 0, in place of A's ints (it reads no row pointers), so no array holds more than one
// word a nonzero (keys and entry indices in one array of two were more than one binding
// holds for a large A on a small-binding device). COUNT = A's columns.
layout(std430, binding = 0) buffer IA { uint ia[]; };  // A's ints; PERMUTE: the rows
layout(std430, binding = 1) buffer VA { T va[]; };     // A's values
layout(std430, binding = 2) buffer IB { uint ib[]; };  // A^T's ints
layout(std430, binding = 3) buffer VB { T vb[]; };     // A^T's values
layout(std430, binding = 4) buffer Aux { uint aux[]; };// the rows; PERMUTE: entry indices
layout(std430, binding = 6) buffer UX { uint ux[]; };  // the sorted keys

#define ROWS    params[TRANSPOSE_P_ROWS]
#define NNZ_A   params[TRANSPOSE_P_NNZ]
#define A_PTR   params[TRANSPOSE_P_PTR]
#define A_VAL   params[TRANSPOSE_P_VAL]
#define COUNT   params[TRANSPOSE_P_COLS]
#define KEY_OFF params[TRANSPOSE_P_KEY_OFF]
#define C_IDX   params[TRANSPOSE_P_T_IDX]

#include "spgemm/search.glsl"

#define RA(I) ia[A_PTR + (I)]

void row_of(uint e)
{
    if (e < NNZ_A) {
        uint r;
        LAST_AT_MOST(r, 0u, ROWS, RA, e);
        aux[e] = r;
    }
}

void transpose(uint t)
{
    if (t < NNZ_A) {
        uint e = aux[t];
        ib[C_IDX + t] = ia[e];
        vb[t] = va[A_VAL + e];
    }
}

#define SORTED_KEY(I) ux[KEY_OFF + (I)]
void col_ptrs(uint j)
{
    if (j <= COUNT) {
        uint p;
        FIRST_AT_LEAST(p, 0u, NNZ_A, SORTED_KEY, j);
        ib[j] = p;
    }
}

void main()
{
    uint i = invocation_index();
    switch (STAGE) {
    case TRANSPOSE_STAGE_ROW_OF: row_of(i); break;
    case TRANSPOSE_STAGE_PERMUTE: transpose(i); break;
    case TRANSPOSE_STAGE_COL_PTRS: col_ptrs(i); break;
    default: break;
    }
}
