// gemm_coopmat.comp: the dense product C = alpha * op(A) * op(B) + beta * C on the
// device's matrix units (cooperative matrices), with f16 inputs and f32 accumulation.
// variants: TYPE=F32
// ids: gemm_coopmat gemm
// extensions: GL_NV_cooperative_matrix GL_KHR_memory_scope_semantics GL_EXT_shader_explicit_arithmetic_types_float16 GL_KHR_shader_subgroup_basic
//
// A, B and C are f32, laid out as for gemm.comp (row-major, offsets, strides, transposes).
// The products are of A and B rounded to f16 (to nearest), summed in f32: a reduced-
// precision variant, reported apart from the f32 product, which stays f32 throughout.
//
// Stages (STAGE = params[0], numbered in src/algo/ids/gemm_coopmat_ids.h; the parameters are
// gemm's, src/algo/ids/gemm_ids.h):
//   A_TO_F16  a16[i][k] = f16(op(A)[i][k]), MP x KP, zero outside op(A); 8 a invocation
//   B_TO_F16  b16[k][j] = f16(op(B)[k][j]), KP x NP, zero outside op(B); 8 a invocation
//   PRODUCT   c32 = a16 * b16: a work-group of 8 subgroups per BM x BN block of C, each
//             subgroup SM x SN tiles of 16 x 16; K in slices of BK through two shared
//             buffers (the next slice goes from registers into the other buffer while
//             this one is used, one barrier per slice), from which the matrix units load
//             their tiles
//   FINISH    C[i][j] = alpha * c32[i][j] + beta * C[i][j] inside C (beta = 0: C only
//             written); 8 a invocation
// MP, NP and KP are M, N and K rounded up to BM, BN and 16, so that every tile the matrix
// units load or store lies inside the padded matrices and no tile needs a bounds check.

layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) buffer C { float c[]; };
// The f16 copies, 8 halves (16 bytes) a uvec4: written and read 16 bytes at a time.
layout(std430, binding = 3) buffer A16x8 { uvec4 a16x8[]; };
layout(std430, binding = 4) buffer B16x8 { uvec4 b16x8[]; };
layout(std430, binding = 5) buffer C32 { float c32[]; };

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
// alpha at GEMM_P_ALPHA, beta at GEMM_P_BETA (f32 bits)

const uint TILE = 16u;            // the matrix units' M, N and K
const uint SM = 4u, SN = 2u;      // tiles per subgroup: 64 x 32 of C
const uint BM = 2u * SM * TILE, BN = 4u * SN * TILE, BK = 32u; // 8 subgroups, 2 x 4
const uint HALVES = 8u;           // f16 per uvec4
// Shared rows of the A slice (BK halves) and the B slice (BN halves), in uvec4, each
// padded by one so that the tiles' rows fall in different banks.
const uint A_ROW = BK / HALVES + 1u, B_ROW = BN / HALVES + 1u;
const uint A_SLICE = BM * A_ROW, B_SLICE = BK * B_ROW;
shared uvec4 sa[2u * A_SLICE];
shared uvec4 sb[2u * B_SLICE];

uint MP() { return (M + BM - 1u) / BM * BM; }
uint NP() { return (N + BN - 1u) / BN * BN; }
uint KP() { return (K + BK - 1u) / BK * BK; }

// Eight f32 values as eight f16 (to nearest) in 16 bytes.
uvec4 pack8(float v[8])
{
    return uvec4(packFloat2x16(f16vec2(v[0], v[1])), packFloat2x16(f16vec2(v[2], v[3])),
                 packFloat2x16(f16vec2(v[4], v[5])), packFloat2x16(f16vec2(v[6], v[7])));
}

// Each invocation converts 8 consecutive elements of a row of the padded copy.
void stage_a_to_f16()
{
    uint e = invocation_index(), kp8 = KP() / 8u;
    if (e >= MP() * kp8)
        return;
    uint i = e / kp8, k0 = (e % kp8) * 8u;
    float v[8];
    UNROLL for (uint q = 0u; q < 8u; q++) {
        uint k = k0 + q;
        v[q] = i < M && k < K ? a[A_OFF + (TRANS_A ? k * LDA + i : i * LDA + k)] : 0.0;
    }
    a16x8[e] = pack8(v);
}

void stage_b_to_f16()
{
    uint e = invocation_index(), np8 = NP() / 8u;
    if (e >= KP() * np8)
        return;
    uint k = e / np8, j0 = (e % np8) * 8u;
    float v[8];
    UNROLL for (uint q = 0u; q < 8u; q++) {
        uint j = j0 + q;
        v[q] = k < K && j < N ? b[B_OFF + (TRANS_B ? j * LDB + k : k * LDB + j)] : 0.0;
    }
    b16x8[e] = pack8(v);
}

uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

// Block (row, column) of this work-group: bands of 8 block rows, as in gemm.comp.
uvec2 product_block(uint tiles_m, uint tiles_n)
{
    uint g = group_index(), band = 8u * tiles_n, first = (g / band) * 8u;
    uint rows = min(tiles_m - first, 8u);
    return uvec2(first + (g % band) % rows, (g % band) / rows);
}

// This invocation's two pieces (uvec4) of a slice of A (BM x BK) and of B (BK x BN):
// consecutive invocations read consecutive 16 bytes.
const uint LOADS = 2u; // (BM * BK / HALVES) / WG_SIZE = (BK * BN / HALVES) / WG_SIZE

void stage_product()
{
    uint tiles_m = MP() / BM, tiles_n = NP() / BN;
    if (group_index() >= tiles_m * tiles_n)
        return;
    uvec2 block = product_block(tiles_m, tiles_n);
    uint sg = gl_LocalInvocationID.x / gl_SubgroupSize, lid = gl_LocalInvocationID.x;
    uint im = (sg / 4u) * SM * TILE, jn = (sg % 4u) * SN * TILE; // the subgroup's tiles
    uint kp8 = KP() / HALVES, np8 = NP() / HALVES;
    fcoopmatNV<32, gl_ScopeSubgroup, TILE, TILE> acc[SM * SN];
    UNROLL for (uint t = 0u; t < SM * SN; t++)
        acc[t] = fcoopmatNV<32, gl_ScopeSubgroup, TILE, TILE>(0.0);
    uvec4 next_a[LOADS], next_b[LOADS];
    uint slices = KP() / BK;
    for (uint s = 0u; s <= slices; s++) {
        if (s < slices) {
            UNROLL for (uint r = 0u; r < LOADS; r++) {
                uint u = lid + r * WG_SIZE; // A: row u / 4, piece u % 4; B: row u / 16
                next_a[r] = a16x8[(block.x * BM + u / (BK / HALVES)) * kp8 + s * (BK / HALVES) +
                                  u % (BK / HALVES)];
                next_b[r] = b16x8[(s * BK + u / (BN / HALVES)) * np8 + block.y * (BN / HALVES) +
                                  u % (BN / HALVES)];
            }
        }
        if (s > 0u) {
            uint a0 = ((s - 1u) & 1u) * A_SLICE, b0 = ((s - 1u) & 1u) * B_SLICE;
            UNROLL for (uint kk = 0u; kk < BK; kk += TILE) {
                fcoopmatNV<16, gl_ScopeSubgroup, TILE, TILE> ta[SM], tb[SN];
                UNROLL for (uint r = 0u; r < SM; r++)
                    coopMatLoadNV(ta[r], sa, a0 + (im + r * TILE) * A_ROW + kk / HALVES, A_ROW,
                                  false);
                UNROLL for (uint c = 0u; c < SN; c++)
                    coopMatLoadNV(tb[c], sb, b0 + kk * B_ROW + (jn + c * TILE) / HALVES, B_ROW,
                                  false);
                UNROLL for (uint r = 0u; r < SM; r++)
                    UNROLL for (uint c = 0u; c < SN; c++)
                        acc[r * SN + c] = coopMatMulAddNV(ta[r], tb[c], acc[r * SN + c]);
            }
        }
        if (s < slices) {
            uint a0 = (s & 1u) * A_SLICE, b0 = (s & 1u) * B_SLICE;
            UNROLL for (uint r = 0u; r < LOADS; r++) {
                uint u = lid + r * WG_SIZE;
                sa[a0 + (u / (BK / HALVES)) * A_ROW + u % (BK / HALVES)] = next_a[r];
                sb[b0 + (u / (BN / HALVES)) * B_ROW + u % (BN / HALVES)] = next_b[r];
            }
        }
        barrier(); // slice s is in place for all; nobody reads slice s - 1's buffer any more
    }
    uint np = NP();
    UNROLL for (uint r = 0u; r < SM; r++)
        UNROLL for (uint c = 0u; c < SN; c++)
            coopMatStoreNV(acc[r * SN + c], c32,
                           (block.x * BM + im + r * TILE) * np + block.y * BN + jn + c * TILE,
                           np, false);
}

// Each invocation finishes 8 consecutive outputs of a row (two 4-wide reads of c32).
void stage_finish()
{
    uint e = invocation_index(), np8 = NP() / 8u;
    if (e >= M * np8)
        return;
    uint i = e / np8, j0 = (e % np8) * 8u, row = i * NP() + j0;
    float alpha = uintBitsToFloat(params[GEMM_P_ALPHA]),
          beta = uintBitsToFloat(params[GEMM_P_BETA]);
    float v[8];
    UNROLL for (uint q = 0u; q < 8u; q++)
        v[q] = c32[row + q];
    UNROLL for (uint q = 0u; q < 8u; q++) {
        uint j = j0 + q, at = C_OFF + i * LDC + j;
        if (j < N)
            c[at] = BETA_IS_ZERO ? alpha * v[q] : alpha * v[q] + beta * c[at];
    }
}

void main()
{
    switch (STAGE) {
    case GEMM_COOPMAT_A_TO_F16:
        stage_a_to_f16();
        return;
    case GEMM_COOPMAT_B_TO_F16:
        stage_b_to_f16();
        return;
    case GEMM_COOPMAT_PRODUCT:
        stage_product();
        return;
    case GEMM_COOPMAT_FINISH:
        stage_finish();
        return;
    default:
        return;
    }
}
