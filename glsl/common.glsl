// Prelude of every libgpgpu compute shader. The executor puts `#version 450`,
// the variant's #defines (TYPE_*, OP_*, SUBGROUPS, VULKAN) and then this file
// in front of the family's .comp file.

// UNROLL before a loop over a thread's ITEMS keeps its arrays in registers
// (a loop with barriers inside may otherwise stay a loop, and its arrays go
// to memory), where the compiler takes the hint.
#extension GL_EXT_control_flow_attributes : enable
#ifdef GL_EXT_control_flow_attributes
#define UNROLL [[unroll]]
#else
#define UNROLL
#endif

// Relaxed atomic loads and stores (the sort's look-back), where SPIR-V has them.
#ifdef VULKAN
#extension GL_KHR_memory_scope_semantics : require
#endif

#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#endif

// Per-dispatch parameters: params[0] is the stage (Kiciak's `stage` uniform),
// the rest are named by each family. One array keeps the GL side to a single
// glUniform1uiv and maps one to one onto a Vulkan push-constant block.
#define PARAM_COUNT 16
#ifdef VULKAN
layout(push_constant) uniform Params { uint params[PARAM_COUNT]; };
#else
uniform uint params[PARAM_COUNT];
#endif
// The stage: params[0], unless the program was built for one stage only (ONLY_STAGE, see
// exec_variant in src/exec.h), when a switch on it keeps that stage's code alone.
#define STAGE (ONLY_STAGE != 0u ? ONLY_STAGE : params[0])

// Element type T, its neutral elements, a quiet NaN (T_NAN; 0 for integers,
// where it is never used) and a NaN test that no fast-math
// setting may fold away (bit patterns, not isnan()).
#if defined(TYPE_U32)
#define T uint
#define T2 uvec2
#define T_ZERO 0u
#define T_HIGHEST 0xffffffffu
#define T_LOWEST 0u
#define T_NAN 0u
bool t_isnan(uint x) { return false; }
#elif defined(TYPE_I32)
#define T int
#define T2 ivec2
#define T_ZERO 0
#define T_HIGHEST 0x7fffffff
#define T_LOWEST (-0x7fffffff - 1)
#define T_NAN 0
bool t_isnan(int x) { return false; }
#elif defined(TYPE_F32)
#define T float
#define T2 vec2
#define T_ZERO 0.0
#define T_HIGHEST uintBitsToFloat(0x7f800000u)
#define T_LOWEST uintBitsToFloat(0xff800000u)
#define T_NAN uintBitsToFloat(0x7fc00000u)
bool t_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
#elif defined(TYPE_F64)
#define T double
#define T2 dvec2
#define T_ZERO 0.0lf
#define T_HIGHEST packDouble2x32(uvec2(0u, 0x7ff00000u))
#define T_LOWEST packDouble2x32(uvec2(0u, 0xfff00000u))
#define T_NAN packDouble2x32(uvec2(0u, 0x7ff80000u))
bool t_isnan(double x)
{
    uvec2 b = unpackDouble2x32(x);
    uint hi = b.y & 0x7fffffffu;
    return hi > 0x7ff00000u || (hi == 0x7ff00000u && b.x != 0u);
}
#else
#error "no TYPE_* defined"
#endif

// A scalar of type T passed in params[at] (and params[at + 1], low word first, for f64):
// its bits, so that an f32 program needs no double support.
#if defined(TYPE_F64)
T param_t(uint at) { return packDouble2x32(uvec2(params[at], params[at + 1u])); }
#elif defined(TYPE_F32)
T param_t(uint at) { return uintBitsToFloat(params[at]); }
#endif

// a < b, a <= b and a == b of two values that are not NaN, in IEEE's order (-0 = +0). f32
// compares by its bits as an unsigned key: NVIDIA's GL and Vulkan compilers flush f32
// denormals to zero in comparisons (H200, driver 580), which would put -1e-45 in the bin of
// 0 and select it with == 0 (docs/DECISIONS.md, "Denormal floats compare exactly").
#if defined(TYPE_F32)
uint t_order(float x)
{
    uint b = floatBitsToUint(x);
    b = b == 0x80000000u ? 0u : b;
    return (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
}
bool t_lt(T a, T b) { return t_order(a) < t_order(b); }
bool t_le(T a, T b) { return t_order(a) <= t_order(b); }
bool t_eq(T a, T b) { return t_order(a) == t_order(b); }
#else
bool t_lt(T a, T b) { return a < b; }
bool t_le(T a, T b) { return a <= b; }
bool t_eq(T a, T b) { return a == b; }
#endif

// min and max that propagate NaN (any NaN operand gives a NaN), so that the
// result does not depend on the order in which an algorithm meets elements.
T t_min(T a, T b) { return t_isnan(a) ? a : (t_isnan(b) || b < a) ? b : a; }
T t_max(T a, T b) { return t_isnan(a) ? a : (t_isnan(b) || b > a) ? b : a; }

// Work-group size and elements per invocation: #defines from the GL
// executor, specialization constants under Vulkan (one SPIR-V module serves
// every tuning), so that the C drivers alone choose them.
#ifdef VULKAN
layout(constant_id = 0) const uint WG_SIZE = 256u;
layout(constant_id = 1) const uint ITEMS = 1u;
layout(constant_id = 2) const uint ONLY_STAGE = 0u;
// A family's own tile constants (exec_variant.shape in src/exec.h); 0 where unused.
layout(constant_id = 3) const uint SHAPE0 = 0u;
layout(constant_id = 4) const uint SHAPE1 = 0u;
layout(constant_id = 5) const uint SHAPE2 = 0u;
layout(constant_id = 6) const uint SHAPE3 = 0u;
layout(local_size_x_id = 0) in;
#else
#if !defined(WG_SIZE) || !defined(ITEMS) || !defined(ONLY_STAGE) || !defined(SHAPE3)
#error "the executor defines WG_SIZE, ITEMS, ONLY_STAGE and SHAPE0..SHAPE3"
#endif
layout(local_size_x = WG_SIZE) in;
#endif

// Counts that stay on the GPU (src/algo/count.h): a count parameter with bit 31 set is an
// upper bound, and the count is the word a call staged at binding 7, clamped to the bound.
// Families that take such counts leave binding 7 to it; others never read it.
layout(std430, binding = 7) readonly buffer DeviceCount { uint device_count_word[]; };
uint device_count(uint n)
{
    return (n & 0x80000000u) != 0u ? min(device_count_word[0], n & 0x7fffffffu) : n;
}

// The invocation's index in a dispatch of gx * gy groups: the executor spreads
// dispatches wider than the implementation's x limit over y.
uint invocation_index()
{
    return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WG_SIZE;
}
