// gemm.comp: dense matrix product C = alpha * op(A) * op(B) + beta * C, row-major.
// variants: TYPE=F32,F64
//
// op(A) is M x K, op(B) is K x N, C is M x N; element (i, j) of a stored matrix is at
// OFF + i * LD + j, and op = transpose reads the stored matrix the other way round. With
// beta = 0 (flag bit 2) C is only written: a NaN or garbage in C does not leak into it.
//
// Stages (STAGE = params[0], numbered in src/algo/ids/gemm_ids.h), each one dispatch, each
// built as a program of its own (ONLY_STAGE), since their work-group shapes and shared
// memory differ:
//   METHOD1  the lab report's method 1: ONE work-group of TILE x TILE invocations walks
//            over every TILE x TILE block of C; each output summed from global memory.
//   METHOD2  method 2: a work-group per TILE x TILE block of C, one output per
//            invocation, summed from global memory.
//   METHOD6  method 6: a work-group per block of TILE x 2 TILE (ITEMS = 2 outputs per
//            invocation, side by side) or 2 TILE x 2 TILE (ITEMS = 4) outputs; the
//            K x TILE strips of A and B pass through shared memory a TILE-wide slice at
//            a time, the next slice loaded while the current one is used (the report's
//            A_shared / As pairs: two barriers per slice).
//   TILED    the fast default: a work-group per BM x BN block of C, K in slices of BK
//            through two shared buffers (one barrier per slice: the next slice goes from
//            registers into the other buffer while this one is used); each invocation
//            keeps a TM x TN block of C in registers (BM, BN, BK, TM: GEMM_SHAPE_*,
//            TN = BM BN / (WG_SIZE TM)) as pieces of VW (4 floats, 2 doubles), read
//            from shared memory as pieces, so every shared read feeds VW (or VW^2)
//            fused multiply-adds.
// TILE (methods 1, 2, 6) is the side of the square work-group: 8, 16 or 32 for WG_SIZE
// 64, 256, 1024. Edges: elements outside op(A) or op(B) read as 0, outputs outside C are
// not written, so any M, N, K work.

// NVIDIA's GL compiler has no GL_EXT_control_flow_attributes, so UNROLL means nothing
// there; its own pragma unrolls the constant-bound loops that keep the blocks in registers.
#ifndef VULKAN
#pragma optionNV(unroll all)
#endif

#if defined(TYPE_F64)
#define T4 dvec4
#else
#define T4 vec4
#endif

// The tiled stage's pieces: VW consecutive elements of a row of C, of a slice's row of A
// or B, moved and read as one vector. 16 bytes either way: a double piece of 4 (32 bytes)
// had the 8 invocations of a phase of a 16-byte shared read land two to a bank, which
// left the f64 product bound by its shared reads (docs/DECISIONS.md).
#if defined(TYPE_F64)
#define VW 2u
#define TV dvec2
#else
#define VW 4u
#define TV vec4
#endif

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) readonly buffer B { T b[]; };
layout(std430, binding = 2) buffer C { T c[]; };
// The same A and B read 4 elements at a time (TILED, where a piece's elements are
// consecutive and 4-aligned in the buffer: flags bits 3 and 4).
layout(std430, binding = 0) readonly buffer A4 { T4 a4[]; };
layout(std430, binding = 1) readonly buffer B4 { T4 b4[]; };

#define M      params[GEMM_P_M]
#define N      params[GEMM_P_N]
#define K      params[GEMM_P_K]
#define A_OFF  params[GEMM_P_A_OFF]
#define B_OFF  params[GEMM_P_B_OFF]
#define C_OFF  params[GEMM_P_C_OFF]
#define LDA    params[GEMM_P_LDA]
#define LDB    params[GEMM_P_LDB]
#define LDC    params[GEMM_P_LDC]
#define TRANS_A      ((params[GEMM_P_FLAGS] & GEMM_FLAG_TRANS_A) != 0u)
#define TRANS_B      ((params[GEMM_P_FLAGS] & GEMM_FLAG_TRANS_B) != 0u)
#define BETA_IS_ZERO ((params[GEMM_P_FLAGS] & GEMM_FLAG_BETA_IS_ZERO) != 0u)
#define VEC_A        ((params[GEMM_P_FLAGS] & GEMM_FLAG_VEC_A) != 0u)
#define VEC_B        ((params[GEMM_P_FLAGS] & GEMM_FLAG_VEC_B) != 0u)
// alpha and beta at GEMM_P_ALPHA and GEMM_P_BETA (param_t, common.glsl)

// op(A)[i][k] and op(B)[k][j], 0 outside.
T load_a(uint i, uint k)
{
    if (i >= M || k >= K)
        return T_ZERO;
    return a[A_OFF + (TRANS_A ? k * LDA + i : i * LDA + k)];
}

T load_b(uint k, uint j)
{
    if (k >= K || j >= N)
        return T_ZERO;
    return b[B_OFF + (TRANS_B ? j * LDB + k : k * LDB + j)];
}

void store_c(uint i, uint j, T sum)
{
    if (i >= M || j >= N)
        return;
    uint at = C_OFF + i * LDC + j;
    T v = param_t(GEMM_P_ALPHA) * sum;
    c[at] = BETA_IS_ZERO ? v : v + param_t(GEMM_P_BETA) * c[at];
}

// The work-group's index in a dispatch of gx * gy groups (the executor spreads wide
// dispatches over y).
uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

// ------------------------------------------------------------ methods 1 and 2

const uint TILE = WG_SIZE == 64u ? 8u : WG_SIZE == 256u ? 16u : 32u;

T dot_global(uint i, uint j)
{
    T sum = T_ZERO;
    for (uint k = 0u; k < K; k++)
        sum += load_a(i, k) * load_b(k, j);
    return sum;
}

void stage_method1()
{
    uint tx = gl_LocalInvocationID.x % TILE, ty = gl_LocalInvocationID.x / TILE;
    for (uint by = 0u; by < M; by += TILE)
        for (uint bx = 0u; bx < N; bx += TILE)
            if (by + ty < M && bx + tx < N)
                store_c(by + ty, bx + tx, dot_global(by + ty, bx + tx));
}

void stage_method2()
{
    uint tiles_n = (N + TILE - 1u) / TILE, g = group_index();
    uint i = (g / tiles_n) * TILE + gl_LocalInvocationID.x / TILE;
    uint j = (g % tiles_n) * TILE + gl_LocalInvocationID.x % TILE;
    if (i < M && j < N)
        store_c(i, j, dot_global(i, j));
}

// ------------------------------------------------- shared memory of methods 6 and tiled

// Rows of A per slice: TILE with 2 outputs, 2 TILE with 4; B slices are TILE x 2 TILE.
const uint M6_ROWS = ITEMS == 4u ? 2u * TILE : TILE;
// The report's A_shared (being loaded) and As (in use), then B_shared and Bs, as T
// elements of the program's one shared pool (smem, below).
const uint M6_A_NEXT = 0u, M6_A_NOW = M6_ROWS * TILE, M6_B_NEXT = 2u * M6_ROWS * TILE,
           M6_B_NOW = M6_B_NEXT + 2u * TILE * TILE;
const uint M6_ELEMENTS = M6_B_NOW + 2u * TILE * TILE;

// The block shape; 0 takes 64 x 64 x 8 with 4 rows per invocation (the build's check of
// the sources, and a shape every device can hold).
const uint BM = GEMM_SHAPE_BLOCK_M != 0u ? GEMM_SHAPE_BLOCK_M : 64u;
const uint BN = GEMM_SHAPE_BLOCK_N != 0u ? GEMM_SHAPE_BLOCK_N : 64u;
const uint BK = GEMM_SHAPE_BLOCK_K != 0u ? GEMM_SHAPE_BLOCK_K : 8u;
const uint TM = GEMM_SHAPE_THREAD_M != 0u ? GEMM_SHAPE_THREAD_M : 4u;
// (clamped so that a program of another stage, whose WG_SIZE does not fit the block, still
// declares arrays of at least one element)
const uint TN = BM * BN / (WG_SIZE * TM) >= 4u ? BM * BN / (WG_SIZE * TM) : 4u;
const uint THREADS_N = BN / TN;                 // invocations along a row of the block
const uint SUB_M = TM / VW, SUB_N = TN / VW;    // pieces of an invocation's block
// A slice is loaded as VW-wide pieces along i (of A) and j (of B), so that each lands in
// shared memory as one vector: UNITS_A of them per slice, LOADS_A per invocation (the
// last round may leave some invocations idle).
const uint UNITS_A = BM / VW * BK, UNITS_B = BN / VW * BK;
const uint LOADS_A = (UNITS_A + WG_SIZE - 1u) / WG_SIZE;
const uint LOADS_B = (UNITS_B + WG_SIZE - 1u) / WG_SIZE;
// Two buffers of a BK-deep slice of A, stored k-major ([buffer][k][i]), then two of B
// ([buffer][k][j]), as pieces of the shared pool, so that both operands are read as rows
// of pieces.
const uint TILED_B = 2u * BK * BM / VW; // where B's buffers start
const uint TILED_VECTORS = TILED_B + 2u * BK * BN / VW;

// The shared pool: each program (ONLY_STAGE) holds only what its stage needs, so that
// one stage's tile never takes shared memory from another's.
const uint SMEM_VECTORS = ONLY_STAGE == GEMM_STAGE_METHOD6 ? (M6_ELEMENTS + VW - 1u) / VW
                        : ONLY_STAGE == GEMM_STAGE_TILED   ? TILED_VECTORS : 1u;
shared TV smem[SMEM_VECTORS];

// Method 6 keeps single elements in the pool. A write names its component by a switch:
// NVIDIA's GL compiler cannot write a double vector's component by a run-time index.
T smem_get(uint e) { return smem[e / VW][e % VW]; }
void smem_set(uint e, T v)
{
#if defined(TYPE_F64)
    if (e % VW == 0u)
        smem[e / VW].x = v;
    else
        smem[e / VW].y = v;
#else
    switch (e % VW) {
    case 0u: smem[e / VW].x = v; break;
    case 1u: smem[e / VW].y = v; break;
    case 2u: smem[e / VW].z = v; break;
    default: smem[e / VW].w = v; break;
    }
#endif
}

// ---------------------------------------------------------------- method 6

// The slice of K from k0: this invocation's elements of A (rows ty, ty + TILE) and B
// (columns tx, tx + TILE).
void method6_load(uint i0, uint j0, uint k0, uint tx, uint ty)
{
    smem_set(M6_A_NEXT + ty * TILE + tx, load_a(i0 + ty, k0 + tx));
    if (ITEMS == 4u)
        smem_set(M6_A_NEXT + (ty + TILE) * TILE + tx, load_a(i0 + ty + TILE, k0 + tx));
    smem_set(M6_B_NEXT + ty * 2u * TILE + tx, load_b(k0 + ty, j0 + tx));
    smem_set(M6_B_NEXT + ty * 2u * TILE + tx + TILE, load_b(k0 + ty, j0 + tx + TILE));
}

void stage_method6()
{
    uint tx = gl_LocalInvocationID.x % TILE, ty = gl_LocalInvocationID.x / TILE;
    uint tiles_n = (N + 2u * TILE - 1u) / (2u * TILE), g = group_index();
    uint i0 = (g / tiles_n) * M6_ROWS, j0 = (g % tiles_n) * 2u * TILE;
    T c00 = T_ZERO, c01 = T_ZERO, c10 = T_ZERO, c11 = T_ZERO;
    method6_load(i0, j0, 0u, tx, ty);
    for (uint k0 = 0u; k0 < K; k0 += TILE) {
        // each invocation copies what it loaded: no barrier needed before the copy
        uint mine[4] = {ty * TILE + tx, (ty + TILE) * TILE + tx, ty * 2u * TILE + tx,
                        ty * 2u * TILE + tx + TILE};
        smem_set(M6_A_NOW + mine[0], smem_get(M6_A_NEXT + mine[0]));
        if (ITEMS == 4u)
            smem_set(M6_A_NOW + mine[1], smem_get(M6_A_NEXT + mine[1]));
        smem_set(M6_B_NOW + mine[2], smem_get(M6_B_NEXT + mine[2]));
        smem_set(M6_B_NOW + mine[3], smem_get(M6_B_NEXT + mine[3]));
        barrier(); // every copy done before anyone reads the slice
        if (k0 + TILE < K)
            method6_load(i0, j0, k0 + TILE, tx, ty);
        UNROLL for (uint k = 0u; k < TILE; k++) {
            T a0 = smem_get(M6_A_NOW + ty * TILE + k);
            T b0 = smem_get(M6_B_NOW + k * 2u * TILE + tx);
            T b1 = smem_get(M6_B_NOW + k * 2u * TILE + tx + TILE);
            c00 += a0 * b0;
            c01 += a0 * b1;
            if (ITEMS == 4u) {
                T a1 = smem_get(M6_A_NOW + (ty + TILE) * TILE + k);
                c10 += a1 * b0;
                c11 += a1 * b1;
            }
        }
        barrier(); // the slice is used up before the next copy overwrites it
    }
    store_c(i0 + ty, j0 + tx, c00);
    store_c(i0 + ty, j0 + tx + TILE, c01);
    if (ITEMS == 4u) {
        store_c(i0 + ty + TILE, j0 + tx, c10);
        store_c(i0 + ty + TILE, j0 + tx + TILE, c11);
    }
}

// ------------------------------------------------------------------ tiled

// Block (row, column) of this work-group: groups of 8 block rows walk down their columns
// together, so that neighbouring work-groups share the slices of A and B in the cache.
// The groups past the last block (a dispatch spread over y) get one past the last row.
uvec2 tiled_block()
{
    uint tiles_m = (M + BM - 1u) / BM, tiles_n = (N + BN - 1u) / BN, g = group_index();
    if (g >= tiles_m * tiles_n)
        return uvec2(tiles_m, 0u);
    uint band = 8u * tiles_n, first = (g / band) * 8u;
    uint rows = min(tiles_m - first, 8u);
    return uvec2(first + (g % band) % rows, (g % band) / rows);
}

// Piece r of this invocation's share of a slice, as (first i or j of the piece, k):
// consecutive invocations take consecutive addresses of the stored matrix, whichever way
// it is read. uvec3.z: whether there is such a piece.
uvec3 a_piece(uint r)
{
    uint u = gl_LocalInvocationID.x + r * WG_SIZE;
    uvec2 p = TRANS_A ? uvec2(u % (BM / VW), u / (BM / VW)) : uvec2(u / BK, u % BK);
    return uvec3(p.x * VW, p.y, u < UNITS_A ? 1u : 0u);
}

uvec3 b_piece(uint r)
{
    uint u = gl_LocalInvocationID.x + r * WG_SIZE;
    uvec2 p = TRANS_B ? uvec2(u / BK, u % BK) : uvec2(u % (BN / VW), u / (BN / VW));
    return uvec3(p.x * VW, p.y, u < UNITS_B ? 1u : 0u);
}

// The piece of op(A) down a column from (i, k), of op(B) along a row from (k, j).
TV piece_a(uint i, uint k)
{
#if defined(TYPE_F64)
    return TV(load_a(i, k), load_a(i + 1u, k));
#else
    return TV(load_a(i, k), load_a(i + 1u, k), load_a(i + 2u, k), load_a(i + 3u, k));
#endif
}

TV piece_b(uint k, uint j)
{
#if defined(TYPE_F64)
    return TV(load_b(k, j), load_b(k, j + 1u));
#else
    return TV(load_b(k, j), load_b(k, j + 1u), load_b(k, j + 2u), load_b(k, j + 3u));
#endif
}

void stage_tiled()
{
    uint lid = gl_LocalInvocationID.x;
    uint tm = lid / THREADS_N, tn = lid % THREADS_N;
    uvec2 block = tiled_block();
    uint i0 = block.x * BM, j0 = block.y * BN;
    if (i0 >= M || j0 >= N)
        return; // a whole work-group: no barrier is skipped by part of one
    TV acc[TM * SUB_N];
    UNROLL for (uint r = 0u; r < TM * SUB_N; r++)
        acc[r] = TV(T_ZERO);
    TV next_a[LOADS_A], next_b[LOADS_B];

    uint slices = (K + BK - 1u) / BK;
    for (uint s = 0u; s <= slices; s++) {
        // s = 0 only fills buffer 0; from then on slice s - 1 is used from buffer
        // (s - 1) & 1 while slice s goes into the other one.
        if (s < slices) {
            UNROLL for (uint r = 0u; r < LOADS_A; r++) {
                uvec3 p = a_piece(r);
                uint i = i0 + p.x, k = s * BK + p.y;
#if defined(TYPE_F32) && defined(VULKAN)
                // a piece along i of a transposed A is 4 consecutive elements (f32 under
                // Vulkan only: f64's 64 accumulators leave no registers for the second path,
                // and NVIDIA's GL compiler made the f32 kernel 20% slower with it)
                if (VEC_A && i + 3u < M && k < K)
                    next_a[r] = a4[(A_OFF + k * LDA + i) / 4u];
                else
#endif
                    next_a[r] = piece_a(i, k);
            }
            UNROLL for (uint r = 0u; r < LOADS_B; r++) {
                uvec3 p = b_piece(r);
                uint j = j0 + p.x, k = s * BK + p.y;
#if defined(TYPE_F32) && defined(VULKAN)
                if (VEC_B && k < K && j + 3u < N)
                    next_b[r] = b4[(B_OFF + k * LDB + j) / 4u];
                else
#endif
                    next_b[r] = piece_b(k, j);
            }
        }
        if (s > 0u) {
            uint used = (s - 1u) & 1u; // the buffer of slice s - 1
            uint a_base = used * BK * (BM / VW), b_base = used * BK * (BN / VW);
            UNROLL for (uint k = 0u; k < BK; k++) {
                TV av[SUB_M], bv[SUB_N];
                UNROLL for (uint q = 0u; q < SUB_M; q++)
                    av[q] = smem[a_base + k * (BM / VW) + q * (BM / TM) + tm];
                UNROLL for (uint q = 0u; q < SUB_N; q++)
                    bv[q] = smem[TILED_B + b_base + k * (BN / VW) + q * (BN / TN) + tn];
                UNROLL for (uint r = 0u; r < TM; r++) {
                    T ar = av[r / VW][r % VW];
                    UNROLL for (uint q = 0u; q < SUB_N; q++)
                        acc[r * SUB_N + q] = fma(TV(ar), bv[q], acc[r * SUB_N + q]);
                }
            }
        }
        if (s < slices) {
            uint a_base = (s & 1u) * BK * (BM / VW), b_base = (s & 1u) * BK * (BN / VW);
            UNROLL for (uint r = 0u; r < LOADS_A; r++) {
                uvec3 p = a_piece(r);
                if (p.z != 0u)
                    smem[a_base + p.y * (BM / VW) + p.x / VW] = next_a[r];
            }
            UNROLL for (uint r = 0u; r < LOADS_B; r++) {
                uvec3 p = b_piece(r);
                if (p.z != 0u)
                    smem[TILED_B + b_base + p.y * (BN / VW) + p.x / VW] = next_b[r];
            }
        }
        // Slice s is in its buffer for everyone, and nobody reads the buffer of slice
        // s - 1 any more, which slice s + 1 will overwrite.
        barrier();
    }

    UNROLL for (uint r = 0u; r < TM; r++) {
        uint i = i0 + (r / VW) * (BM / SUB_M) + tm * VW + r % VW;
        UNROLL for (uint q = 0u; q < SUB_N; q++) {
            uint j = j0 + q * (BN / SUB_N) + tn * VW;
            UNROLL for (uint e = 0u; e < VW; e++)
                store_c(i, j + e, acc[r * SUB_N + q][e]);
        }
    }
}

void main()
{
    switch (STAGE) {
    case GEMM_STAGE_METHOD1:
        stage_method1();
        return;
    case GEMM_STAGE_METHOD2:
        stage_method2();
        return;
    case GEMM_STAGE_METHOD6:
        stage_method6();
        return;
    case GEMM_STAGE_TILED:
        stage_tiled();
        return;
    default:
        return;
    }
}
