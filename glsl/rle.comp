// rle.comp: run-length encoding: the heads of runs of equal keys compacted, as flags, their
// inclusive scan (the library's scan) and a scatter.
// variants: TYPE=U32,I32,F32,F64
//
// Keys are equal by the sort's total order: integers by value, floats bit for bit except
// that every NaN is one value (-0 and +0 differ).
//
// Stages (STAGE = params[0]); the keys at binding 0 (KEYS_OFF), the first key of each run
// at binding 1 (UNIQUE_OFF), the run lengths at binding 2 (LENGTHS_OFF), the flags at
// binding 3 (FLAGS_OFF), the run starts and the run count at binding 4 (STARTS_OFF, RUNS_AT),
// the key count at binding 5 (COUNT_OFF, where HAS_COUNT), the run count's copy at binding 6
// (COUNT_OUT_OFF, where HAS_COUNT_OUT); all but the keys and unique keys are u32.
//   0 HEADS    flags[i] = 1 where key i starts a run, else 0, for i < BOUND (0 past the count)
//   1 SCATTER  on the flags' inclusive scan: each head i of run r = flags[i] - 1 writes its
//              key to unique[r] and i to starts[r]; the last key writes the run count R to
//              starts[RUNS_AT] (and count_out) and the key count to starts[R]
//   2 LENGTHS  lengths[r] = starts[r + 1] - starts[r], r < the run count
// The executor defines OP_SUM for this family (ops.glsl needs it first).

layout(std430, binding = 0) restrict readonly buffer Keys { T keys[]; };
layout(std430, binding = 1) restrict writeonly buffer Unique { T unique_keys[]; };
layout(std430, binding = 2) restrict writeonly buffer Lengths { uint lengths[]; };
layout(std430, binding = 3) restrict buffer Flags { uint flags[]; };
layout(std430, binding = 4) restrict buffer Starts { uint starts[]; };
layout(std430, binding = 5) restrict readonly buffer Count { uint count_in[]; };
layout(std430, binding = 6) restrict writeonly buffer CountOut { uint count_out[]; };

#define BOUND         params[1]
#define KEYS_OFF      params[2]
#define UNIQUE_OFF    params[3]
#define LENGTHS_OFF   params[4]
#define FLAGS_OFF     params[5]
#define STARTS_OFF    params[6]
#define HAS_COUNT     params[7]
#define COUNT_OFF     params[8]
#define HAS_UNIQUE    params[9]
#define HAS_COUNT_OUT params[10]
#define COUNT_OUT_OFF params[11]
#define RUNS_AT       params[12]

uint key_count() { return HAS_COUNT != 0u ? min(count_in[COUNT_OFF], BOUND) : BOUND; }

// Equal in the sort's total order (bits compared, so no fast-math setting folds it).
#if defined(TYPE_F32)
bool same(T a, T b) { return floatBitsToUint(a) == floatBitsToUint(b) || (t_isnan(a) && t_isnan(b)); }
#elif defined(TYPE_F64)
bool same(T a, T b)
{
    return unpackDouble2x32(a) == unpackDouble2x32(b) || (t_isnan(a) && t_isnan(b));
}
#else
bool same(T a, T b) { return a == b; }
#endif

// The last key writes what the whole encoding ends with (the first, for no keys at all).
void finish(uint runs, uint n)
{
    starts[STARTS_OFF + runs] = n;
    starts[RUNS_AT] = runs;
    if (HAS_COUNT_OUT != 0u)
        count_out[COUNT_OUT_OFF] = runs;
}

void main()
{
    uint i = invocation_index();
    switch (STAGE) {
    case 0u:
        if (i < BOUND) {
            bool head = i < key_count() && (i == 0u || !same(keys[KEYS_OFF + i], keys[KEYS_OFF + i - 1u]));
            flags[FLAGS_OFF + i] = head ? 1u : 0u;
        }
        return;
    case 1u: {
        uint n = key_count();
        if (i == 0u && n == 0u)
            finish(0u, 0u);
        if (i >= n)
            return;
        uint incl = flags[FLAGS_OFF + i];
        if (i == 0u || incl != flags[FLAGS_OFF + i - 1u]) {
            uint r = incl - 1u;
            if (HAS_UNIQUE != 0u)
                unique_keys[UNIQUE_OFF + r] = keys[KEYS_OFF + i];
            starts[STARTS_OFF + r] = i;
        }
        if (i == n - 1u)
            finish(incl, n);
        return;
    }
    case 2u:
        if (i < starts[RUNS_AT])
            lengths[LENGTHS_OFF + i] = starts[STARTS_OFF + i + 1u] - starts[STARTS_OFF + i];
        return;
    default:
        return;
    }
}
