// cub_peer: CUDA/CUB reference numbers for the libgpgpu GL benchmarks.
//
// Times cub::DeviceReduce / cub::DeviceScan / cub::DeviceRadixSort (and a
// plain device-to-device copy as the bandwidth ceiling) over power-of-two
// sizes and reports the median GPU time per call, measured with CUDA events,
// and the median wall-clock time of a call followed by a stream sync; also
// cub::DeviceHistogram::HistogramEven, cub::DeviceSegmentedReduce::Sum (on
// power-of-two sizes and on the row pointers of --matrix files),
// cub::DeviceRunLengthEncode::Encode and cub::DeviceReduce::ReduceByKey on the
// inputs gpgpu-bench makes for its cases of the same names.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_peer bench/cub_peer.cu
// Usage: cub_peer [--min-log2 10] [--max-log2 28] [--step 2] [--sizes LIST]
//                 [--only reduce,scan,sort,histogram,segreduce,rle] [--runs 20]
//                 [--matrix FILE.mtx]... [--json FILE] [--help]

#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <tuple>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "%s:%d: CUDA error: %s (%s)\n", __FILE__,   \
                         __LINE__, cudaGetErrorString(err_), #call);         \
            std::exit(1);                                                    \
        }                                                                    \
    } while (0)

namespace {

constexpr int kWarmupRuns = 3;

// Odd, not a multiple of any CUB tile size, so the check also covers the
// partial last tile and more than one thread block.
constexpr int kCheckN = (1 << 16) + 37;

// Relative tolerances for floating-point checks. CUB accumulates in a tree /
// tile order, the CPU reference sequentially in higher precision; 1e-5 leaves
// ample margin for float at kCheckN, 1e-10 for double.
constexpr double kTolF32 = 1e-5;
constexpr double kTolF64 = 1e-10;

enum class Op {
    ReduceSum,
    ReduceMin,
    ScanExclusive,
    ScanInclusive,
    Copy,
    SortKeys,   // cub::DeviceRadixSort::SortKeys, out of place, all key bits
    SortPairs,  // cub::DeviceRadixSort::SortPairs, u32 values (element index)
};
enum class DType { U32, F32, F64 };

// Note: there is no reduce_minmax_f32 case; CUB has no single-pass min+max.
struct Case {
    const char *name;
    Op op;
    DType type;
};

const Case kCases[] = {
    {"reduce_sum_f32", Op::ReduceSum, DType::F32},
    {"reduce_sum_u32", Op::ReduceSum, DType::U32},
    {"reduce_min_f32", Op::ReduceMin, DType::F32},
    {"reduce_sum_f64", Op::ReduceSum, DType::F64},
    {"scan_exclusive_u32", Op::ScanExclusive, DType::U32},
    {"scan_inclusive_u32", Op::ScanInclusive, DType::U32},
    {"scan_exclusive_f32", Op::ScanExclusive, DType::F32},
    {"scan_inclusive_f64", Op::ScanInclusive, DType::F64},
    {"copy_d2d_u32", Op::Copy, DType::U32},
    {"sort_keys_u32", Op::SortKeys, DType::U32},
    {"sort_keys_f32", Op::SortKeys, DType::F32},
    {"sort_pairs_u32", Op::SortPairs, DType::U32},
};

bool is_sort(Op op) { return op == Op::SortKeys || op == Op::SortPairs; }

// The primitive a case belongs to, for --only; the copy always runs.
const char *family(Op op) {
    switch (op) {
    case Op::ReduceSum:
    case Op::ReduceMin: return "reduce";
    case Op::ScanExclusive:
    case Op::ScanInclusive: return "scan";
    case Op::SortKeys:
    case Op::SortPairs: return "sort";
    case Op::Copy: break;
    }
    return "copy";
}

size_t elem_bytes(DType t) { return t == DType::F64 ? 8 : 4; }

// Bytes a call must move at minimum: reduce reads n elements; scan, copy and
// sort read and write n elements (keys), a sort of pairs also n u32 values.
double bytes_moved(Op op, DType t, size_t n) {
    double b = double(n) * double(elem_bytes(t));
    if (op == Op::SortPairs) b += double(n) * 4.0;
    return op == Op::ReduceSum || op == Op::ReduceMin ? b : 2.0 * b;
}

// ---------------------------------------------------------------------------
// Input generation on the GPU (no host-side upload, so large sizes are fast).

__device__ __forceinline__ uint32_t hash32(uint32_t x) {
    // lowbias32 (Chris Wellons): cheap, well-mixed.
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

__device__ __forceinline__ void make_value(uint32_t h, uint32_t *out) {
    *out = 1u + h % 1000u;  // [1, 1000]: nonzero, no overflow at check size
}
__device__ __forceinline__ void make_value(uint32_t h, float *out) {
    *out = 0.5f + float(h >> 8) * (1.0f / 16777216.0f);  // [0.5, 1.5)
}
__device__ __forceinline__ void make_value(uint32_t h, double *out) {
    *out = 0.5 + double(h) * (1.0 / 4294967296.0);  // [0.5, 1.5)
}

template <typename T>
__global__ void fill_kernel(T *p, size_t n, uint32_t seed) {
    size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        make_value(hash32(uint32_t(i) ^ hash32(uint32_t(i >> 32) + seed)),
                   &p[i]);
    }
}

template <typename T>
void fill(T *p, size_t n, cudaStream_t s) {
    const int block = 256;
    const size_t blocks = std::min<size_t>((n + block - 1) / block, 65536);
    fill_kernel<<<unsigned(blocks), block, 0, s>>>(p, n, 0x9e3779b9u);
    CUDA_CHECK(cudaGetLastError());
}

// Sort keys: bit-identical to gpgpu-bench's (tools/gpgpu_bench.c,
// sort_key_bits): key i is the high 32 bits of splitmix64 output i + 1 of
// seed 1, all 32 bits random for u32; for f32 the same bits with an all-ones
// exponent (infinity, NaN) made 0xFE, so every key is finite. Values are the
// element index.
constexpr uint64_t kSortSeed = 1;

__host__ __device__ __forceinline__ uint32_t sort_key_bits(uint64_t i,
                                                           bool f32) {
    uint64_t z = kSortSeed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    uint32_t bits = uint32_t(z >> 32);
    if (f32 && (bits & 0x7F800000u) == 0x7F800000u) bits ^= 0x00800000u;
    return bits;
}

__global__ void fill_sort_kernel(uint32_t *keys, uint32_t *values, size_t n,
                                 bool f32) {
    size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        keys[i] = sort_key_bits(i, f32);
        if (values) values[i] = uint32_t(i);
    }
}

// Keys of T (u32 or f32, written as bits) and, if values is not null, the
// values 0..n-1.
template <typename T>
void fill_sort(T *keys, uint32_t *values, size_t n, cudaStream_t s) {
    static_assert(sizeof(T) == 4, "sort keys are 32-bit");
    const int block = 256;
    const size_t blocks = std::min<size_t>((n + block - 1) / block, 65536);
    fill_sort_kernel<<<unsigned(blocks), block, 0, s>>>(
        reinterpret_cast<uint32_t *>(keys), values, n,
        std::is_same<T, float>::value);
    CUDA_CHECK(cudaGetLastError());
}

// Input of a case: sort keys (and values) or the reduce/scan/copy values.
template <typename T>
void fill_case(Op op, T *in, uint32_t *values, size_t n, cudaStream_t s) {
    if constexpr (sizeof(T) == 4) {
        if (is_sort(op)) {
            fill_sort(in, op == Op::SortPairs ? values : nullptr, n, s);
            return;
        }
    }
    fill(in, n, s);
}

// ---------------------------------------------------------------------------
// One call of the operation under test. With temp == nullptr this is CUB's
// size query: it only sets temp_bytes and launches nothing. vin/vout: the
// values of SortPairs (unused otherwise). Sorts are out of place: the input
// is never changed, so every timed call sorts the same unsorted data.

template <typename T>
cudaError_t launch(Op op, void *temp, size_t &temp_bytes, const T *in, T *out,
                   const uint32_t *vin, uint32_t *vout, int n, cudaStream_t s) {
    switch (op) {
    case Op::SortKeys:
    case Op::SortPairs:
        if constexpr (std::is_same<T, double>::value) {
            return cudaErrorInvalidValue;  // no f64 sort case
        } else if (op == Op::SortKeys) {
            return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, n,
                                                  0, int(sizeof(T) * 8), s);
        } else {
            return cub::DeviceRadixSort::SortPairs(temp, temp_bytes, in, out,
                                                   vin, vout, n, 0,
                                                   int(sizeof(T) * 8), s);
        }
    case Op::ReduceSum:
        return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, s);
    case Op::ReduceMin:
        return cub::DeviceReduce::Min(temp, temp_bytes, in, out, n, s);
    case Op::ScanExclusive:
        return cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, s);
    case Op::ScanInclusive:
        return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n, s);
    case Op::Copy:
        if (temp == nullptr) {
            temp_bytes = 0;
            return cudaSuccess;
        }
        return cudaMemcpyAsync(out, in, size_t(n) * sizeof(T),
                               cudaMemcpyDeviceToDevice, s);
    }
    return cudaErrorInvalidValue;
}

// Queries and allocates temp storage. Always allocates at least one byte:
// passing nullptr to CUB later would turn the timed call into a size query.
template <typename T>
void *alloc_temp(Op op, const T *in, T *out, const uint32_t *vin,
                 uint32_t *vout, int n, cudaStream_t s, size_t *bytes) {
    size_t temp_bytes = 0;
    CUDA_CHECK(launch<T>(op, nullptr, temp_bytes, in, out, vin, vout, n, s));
    temp_bytes = std::max<size_t>(temp_bytes, 1);
    void *temp = nullptr;
    CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
    *bytes = temp_bytes;
    return temp;
}

// ---------------------------------------------------------------------------
// Correctness check against a CPU reference, on the same input (copied back
// from the device, so the CPU needs no copy of the hash).

// Accumulator for the CPU reference: wraps like the GPU for u32 (exact
// comparison), carries more precision than the GPU for floating point.
template <typename T> struct RefAcc;
template <> struct RefAcc<uint32_t> { using type = uint32_t; };
template <> struct RefAcc<float> { using type = double; };
template <> struct RefAcc<double> { using type = long double; };

bool close_enough(uint32_t got, uint32_t ref) { return got == ref; }
bool close_enough(float got, double ref) {
    return std::fabs(double(got) - ref) <= kTolF32 * std::fabs(ref);
}
bool close_enough(double got, long double ref) {
    return std::fabs((long double)got - ref) <= kTolF64 * std::fabs(ref);
}

template <typename T>
bool check_case(const Case &c, cudaStream_t s) {
    using Acc = typename RefAcc<T>::type;
    const int n = kCheckN;
    T *d_in = nullptr, *d_out = nullptr;
    uint32_t *d_vin = nullptr, *d_vout = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(T)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(T)));
    if (c.op == Op::SortPairs) {
        CUDA_CHECK(cudaMalloc(&d_vin, n * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&d_vout, n * sizeof(uint32_t)));
    }
    fill_case(c.op, d_in, d_vin, n, s);

    size_t temp_bytes = 0;
    void *temp = alloc_temp<T>(c.op, d_in, d_out, d_vin, d_vout, n, s,
                               &temp_bytes);
    CUDA_CHECK(launch<T>(c.op, temp, temp_bytes, d_in, d_out, d_vin, d_vout,
                         n, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<T> in(n), out(n);
    std::vector<uint32_t> vout(d_vout ? n : 0);
    CUDA_CHECK(cudaMemcpy(in.data(), d_in, n * sizeof(T),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(T),
                          cudaMemcpyDeviceToHost));
    if (d_vout)
        CUDA_CHECK(cudaMemcpy(vout.data(), d_vout, n * sizeof(uint32_t),
                              cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(temp));
    CUDA_CHECK(cudaFree(d_vout));
    CUDA_CHECK(cudaFree(d_vin));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));

    int bad = -1;  // first mismatching index
    switch (c.op) {
    case Op::ReduceSum: {
        Acc acc = 0;
        for (int i = 0; i < n; ++i) acc += Acc(in[i]);
        if (!close_enough(out[0], acc)) bad = 0;
        break;
    }
    case Op::ReduceMin: {
        T m = in[0];
        for (int i = 1; i < n; ++i) m = std::min(m, in[i]);
        if (out[0] != m) bad = 0;  // min is exact for any type
        break;
    }
    case Op::ScanExclusive:
    case Op::ScanInclusive: {
        const bool inclusive = c.op == Op::ScanInclusive;
        Acc acc = 0;
        for (int i = 0; i < n && bad < 0; ++i) {
            if (inclusive) acc += Acc(in[i]);
            if (!close_enough(out[i], acc)) bad = i;
            if (!inclusive) acc += Acc(in[i]);
        }
        break;
    }
    case Op::Copy:
        for (int i = 0; i < n && bad < 0; ++i)
            if (std::memcmp(&in[i], &out[i], sizeof(T)) != 0) bad = i;
        break;
    case Op::SortKeys:
    case Op::SortPairs: {
        // CUB's radix sort is stable and (CUB 2.x+) orders -0.0 and +0.0 as
        // equal: a stable sort by operator< is the exact reference, for the
        // keys' bits and for the values (the input index of each key).
        std::vector<uint32_t> idx(n);
        for (int i = 0; i < n; ++i) idx[i] = uint32_t(i);
        std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
            return in[a] < in[b];
        });
        for (int i = 0; i < n && bad < 0; ++i) {
            if (std::memcmp(&in[idx[i]], &out[i], sizeof(T)) != 0) bad = i;
            if (c.op == Op::SortPairs && vout[i] != idx[i]) bad = i;
        }
        break;
    }
    }
    if (bad >= 0) {
        std::fprintf(stderr, "CHECK FAILED: %s n=%d at index %d (got %.17g)\n",
                     c.name, n, bad, double(out[bad]));
        return false;
    }
    std::fprintf(stderr, "[cub_peer] check ok: %s n=%d\n", c.name, n);
    return true;
}

// ---------------------------------------------------------------------------
// Timing.

double median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (double(v[m - 1]) + double(v[m]));
}

struct Timing {
    double median_us;  // GPU time between CUDA events
    double wall_us;    // host wall clock of a call and a stream sync
};

// Returns the median GPU time of one call in microseconds. in/out must hold
// n elements of T, vin/vout n u32 values (SortPairs). All timed calls are
// queued back to back, each between its own event pair, so host launch
// overhead is not included. Then each call is timed again alone on the host,
// launch to the end of a cudaStreamSynchronize: the latency a caller sees.
template <typename T>
Timing time_case(const Case &c, void *in_raw, void *out_raw, uint32_t *vin,
                 uint32_t *vout, int n, int runs, cudaStream_t s) {
    T *in = static_cast<T *>(in_raw);
    T *out = static_cast<T *>(out_raw);
    fill_case(c.op, in, vin, size_t(n), s);

    size_t temp_bytes = 0;
    void *temp = alloc_temp<T>(c.op, in, out, vin, vout, n, s, &temp_bytes);

    for (int i = 0; i < kWarmupRuns; ++i)
        CUDA_CHECK(launch<T>(c.op, temp, temp_bytes, in, out, vin, vout, n, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<cudaEvent_t> start(runs), stop(runs);
    for (int i = 0; i < runs; ++i) {
        CUDA_CHECK(cudaEventCreate(&start[i]));
        CUDA_CHECK(cudaEventCreate(&stop[i]));
    }
    for (int i = 0; i < runs; ++i) {
        CUDA_CHECK(cudaEventRecord(start[i], s));
        CUDA_CHECK(launch<T>(c.op, temp, temp_bytes, in, out, vin, vout, n, s));
        CUDA_CHECK(cudaEventRecord(stop[i], s));
    }
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<float> ms(runs);
    for (int i = 0; i < runs; ++i) {
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], start[i], stop[i]));
        CUDA_CHECK(cudaEventDestroy(start[i]));
        CUDA_CHECK(cudaEventDestroy(stop[i]));
    }
    std::vector<float> wall(runs);
    for (int i = 0; i < runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        CUDA_CHECK(launch<T>(c.op, temp, temp_bytes, in, out, vin, vout, n, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        auto t1 = std::chrono::steady_clock::now();
        wall[i] = std::chrono::duration<float, std::milli>(t1 - t0).count();
    }
    CUDA_CHECK(cudaFree(temp));
    return {median(ms) * 1000.0, median(wall) * 1000.0};
}

// ---------------------------------------------------------------------------
// Histograms, segmented sums and run-length encoding, on the inputs of
// gpgpu-bench's cases of the same names (tools/bench_histogram.c,
// bench_segreduce.c, bench_rle.c): the same hash of the element index, so the
// two programs time the same data.

__host__ __device__ __forceinline__ uint32_t rotl32(uint32_t x, unsigned k) {
    return x << k | x >> (32 - k);
}

// Histogram sample i (bits): h = hash32(i + 0x9e3779b9), skewed h & rotl(h,
// 11) & rotl(h, 21); as f32, (h >> 8) / 2^24.
__host__ __device__ __forceinline__ uint32_t histogram_sample(uint64_t i, bool f32,
                                                              bool skewed) {
    uint32_t x = uint32_t(i) + 0x9e3779b9u;
    x ^= x >> 16;  // hash32, repeated here for the host
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    if (skewed) x = x & rotl32(x, 11) & rotl32(x, 21);
    if (!f32) return x;
    float f = float(x >> 8) * (1.0f / 16777216.0f);
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

__host__ __device__ __forceinline__ uint32_t hash32_host(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// RLE key i: hash32(i / run + 0x9e3779b9); reduce-by-key value i: (hash32(i +
// 0x7f4a7c15) >> 8) / 2^24.
__global__ void fill_ext_kernel(uint32_t *p, size_t n, int kind, uint32_t a, uint32_t b) {
    size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t v;
        if (kind == 0) {
            v = histogram_sample(i, a != 0, b != 0);
        } else if (kind == 1) {
            v = hash32_host(uint32_t(i / a) + 0x9e3779b9u);
        } else {
            float f = float(hash32_host(uint32_t(i) + 0x7f4a7c15u) >> 8) * (1.0f / 16777216.0f);
            memcpy(&v, &f, 4);
        }
        p[i] = v;
    }
}

enum { FILL_HISTOGRAM = 0, FILL_KEYS = 1, FILL_VALUES = 2 };

void fill_ext(uint32_t *p, size_t n, int kind, uint32_t a, uint32_t b, cudaStream_t s) {
    const size_t blocks = std::min<size_t>((n + 255) / 256, 65536);
    fill_ext_kernel<<<unsigned(blocks ? blocks : 1), 256, 0, s>>>(p, n, kind, a, b);
    CUDA_CHECK(cudaGetLastError());
}

// Segment offsets over n values, as gpgpu-bench's make_offsets: tiny, segment
// s has hash32(s + 0x85ebca6b) % 8 values; else 4 equal segments.
std::vector<uint32_t> segment_offsets(bool tiny, size_t n) {
    std::vector<uint32_t> o{0};
    if (tiny) {
        for (size_t at = 0, s = 0; at < n; s++) {
            size_t len = hash32_host(uint32_t(s) + 0x85ebca6bu) % 8;
            at = std::min(at + len, n);
            o.push_back(uint32_t(at));
        }
    } else {
        for (int q = 1; q <= 4; q++) o.push_back(uint32_t(n / 4 * q + (q == 4 ? n % 4 : 0)));
    }
    return o;
}

// Times launch(temp, bytes) as time_case times the others: a size query,
// warm-up calls, event pairs around back-to-back calls, then each call alone on
// the host clock with a stream sync.
template <typename Launch>
Timing time_launch(Launch &&launch, int runs, cudaStream_t s) {
    size_t temp_bytes = 0;
    CUDA_CHECK(launch(nullptr, temp_bytes));
    temp_bytes = std::max<size_t>(temp_bytes, 1);
    void *temp = nullptr;
    CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
    for (int i = 0; i < kWarmupRuns; ++i) CUDA_CHECK(launch(temp, temp_bytes));
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<cudaEvent_t> start(runs), stop(runs);
    for (int i = 0; i < runs; ++i) {
        CUDA_CHECK(cudaEventCreate(&start[i]));
        CUDA_CHECK(cudaEventCreate(&stop[i]));
    }
    for (int i = 0; i < runs; ++i) {
        CUDA_CHECK(cudaEventRecord(start[i], s));
        CUDA_CHECK(launch(temp, temp_bytes));
        CUDA_CHECK(cudaEventRecord(stop[i], s));
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<float> ms(runs), wall(runs);
    for (int i = 0; i < runs; ++i) {
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], start[i], stop[i]));
        CUDA_CHECK(cudaEventDestroy(start[i]));
        CUDA_CHECK(cudaEventDestroy(stop[i]));
    }
    for (int i = 0; i < runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        CUDA_CHECK(launch(temp, temp_bytes));
        CUDA_CHECK(cudaStreamSynchronize(s));
        auto t1 = std::chrono::steady_clock::now();
        wall[i] = std::chrono::duration<float, std::milli>(t1 - t0).count();
    }
    CUDA_CHECK(cudaFree(temp));
    return {median(ms) * 1000.0, median(wall) * 1000.0};
}

// One run of an extended case: what it timed, and whether its output (read
// back after the timed calls) matched the CPU's where it was checked.
struct ExtResult {
    std::string name, matrix;
    size_t n = 0, segments = 0;
    Timing t{};
    double bytes = 0;
    const char *check = "skipped";
};

template <typename T> std::vector<T> download(const T *d, size_t n) {
    std::vector<T> h(n);
    if (n) CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

// HistogramEven of n samples in `bins` even bins over [0, 2^32 - 1) (u32) or
// [0, 1) (f32); the counts checked exactly (the bins are CUB's formula, which
// gpgpu-bench's twin computes too) when check.
ExtResult run_histogram(bool f32, uint32_t bins, bool skewed, size_t n, int runs, bool check,
                        cudaStream_t s) {
    ExtResult r;
    r.name = std::string("histogram_even_") + (f32 ? "f32_" : "u32_") + std::to_string(bins) +
             (skewed ? "_skewed" : "_uniform");
    r.n = n;
    r.bytes = double(n) * 4;
    uint32_t *in = nullptr, *counts = nullptr;
    CUDA_CHECK(cudaMalloc(&in, std::max<size_t>(n, 1) * 4));
    CUDA_CHECK(cudaMalloc(&counts, bins * 4));
    fill_ext(in, n, FILL_HISTOGRAM, f32, skewed, s);
    auto launch = [&](void *temp, size_t &bytes) {
        if (f32)
            return cub::DeviceHistogram::HistogramEven(temp, bytes, reinterpret_cast<float *>(in),
                                                       reinterpret_cast<int *>(counts),
                                                       int(bins) + 1, 0.0f, 1.0f, int(n), s);
        return cub::DeviceHistogram::HistogramEven(temp, bytes, in, reinterpret_cast<int *>(counts),
                                                   int(bins) + 1, 0u, 4294967295u, int(n), s);
    };
    r.t = time_launch(launch, runs, s);
    if (check) {
        std::vector<uint32_t> got = download(counts, bins), want(bins, 0);
        float scale = float(bins) / 1.0f;
        for (size_t i = 0; i < n; i++) {
            uint32_t v = histogram_sample(i, f32, skewed);
            uint32_t b;
            if (f32) {
                float f;
                memcpy(&f, &v, 4);
                if (!(f >= 0.0f && f < 1.0f)) continue;
                b = std::min<uint32_t>(uint32_t(f * scale), bins - 1);
            } else {
                if (v >= 4294967295u) continue;
                b = uint32_t(uint64_t(v) * bins / 4294967295u);
            }
            want[b]++;
        }
        r.check = got == want ? "ok" : "failed";
    }
    CUDA_CHECK(cudaFree(counts));
    CUDA_CHECK(cudaFree(in));
    return r;
}

// DeviceSegmentedReduce::Sum of f32 values over offsets (begin = offsets, end
// = offsets + 1); the sums checked against a double sum, each within
// (len + 2) 2^-24 of its sum of |x|, when check.
ExtResult run_segreduce(const std::string &name, const std::string &matrix,
                        const std::vector<float> *host_values, size_t n,
                        const std::vector<uint32_t> &offsets, int runs, bool check,
                        cudaStream_t s) {
    ExtResult r;
    r.name = name;
    r.matrix = matrix;
    r.n = n;
    r.segments = offsets.size() - 1;
    r.bytes = double(n) * 4 + double(2 * r.segments + 1) * 4;
    float *in = nullptr, *out = nullptr;
    uint32_t *off = nullptr;
    CUDA_CHECK(cudaMalloc(&in, std::max<size_t>(n, 1) * 4));
    CUDA_CHECK(cudaMalloc(&out, std::max<size_t>(r.segments, 1) * 4));
    CUDA_CHECK(cudaMalloc(&off, offsets.size() * 4));
    CUDA_CHECK(cudaMemcpy(off, offsets.data(), offsets.size() * 4, cudaMemcpyHostToDevice));
    if (host_values)
        CUDA_CHECK(cudaMemcpy(in, host_values->data(), n * 4, cudaMemcpyHostToDevice));
    else
        fill_ext(reinterpret_cast<uint32_t *>(in), n, FILL_HISTOGRAM, 1, 0, s);
    auto launch = [&](void *temp, size_t &bytes) {
        return cub::DeviceSegmentedReduce::Sum(temp, bytes, in, out, int(r.segments), off,
                                               off + 1, s);
    };
    r.t = time_launch(launch, runs, s);
    if (check) {
        std::vector<float> got = download(out, r.segments), vals = download(in, n);
        r.check = "ok";
        for (size_t k = 0; k < r.segments; k++) {
            double sum = 0, abs = 0;
            for (uint32_t e = offsets[k]; e < offsets[k + 1]; e++) {
                sum += vals[e];
                abs += std::fabs(double(vals[e]));
            }
            double d = double(offsets[k + 1] - offsets[k]) + 2;
            if (std::fabs(double(got[k]) - sum) > d * 0x1p-24 * abs) r.check = "failed";
        }
    }
    CUDA_CHECK(cudaFree(off));
    CUDA_CHECK(cudaFree(out));
    CUDA_CHECK(cudaFree(in));
    return r;
}

// Encode (unique keys, lengths) or ReduceByKey (unique keys, f32 sums) of n
// keys in runs of `run`, the run count in device memory; checked when check.
ExtResult run_rle(bool by_key, uint32_t run, size_t n, int runs, bool check, cudaStream_t s) {
    ExtResult r;
    r.name = (by_key ? "reduce_by_key_u32_f32_runs" : "rle_encode_u32_runs") + std::to_string(run);
    r.n = n;
    uint32_t *keys = nullptr, *unique = nullptr, *out = nullptr, *values = nullptr;
    int *num = nullptr;
    size_t bytes_n = std::max<size_t>(n, 1) * 4;
    CUDA_CHECK(cudaMalloc(&keys, bytes_n));
    CUDA_CHECK(cudaMalloc(&unique, bytes_n));
    CUDA_CHECK(cudaMalloc(&out, bytes_n));
    CUDA_CHECK(cudaMalloc(&values, bytes_n));
    CUDA_CHECK(cudaMalloc(&num, sizeof(int)));
    fill_ext(keys, n, FILL_KEYS, run, 0, s);
    fill_ext(values, n, FILL_VALUES, 0, 0, s);
    auto launch = [&](void *temp, size_t &bytes) {
        if (by_key)
            return cub::DeviceReduce::ReduceByKey(temp, bytes, keys, unique,
                                                  reinterpret_cast<float *>(values),
                                                  reinterpret_cast<float *>(out), num,
                                                  ::cuda::std::plus<float>{}, int(n), s);
        return cub::DeviceRunLengthEncode::Encode(temp, bytes, keys, unique,
                                                  reinterpret_cast<int *>(out), num, int(n), s);
    };
    r.t = time_launch(launch, runs, s);
    int got_runs = 0;
    CUDA_CHECK(cudaMemcpy(&got_runs, num, sizeof(int), cudaMemcpyDeviceToHost));
    r.segments = size_t(got_runs);
    r.bytes = double(n) * (by_key ? 8 : 4) + double(got_runs) * 8 + 4;
    if (check) {
        std::vector<uint32_t> k = download(keys, n), uk = download(unique, size_t(got_runs)),
                              o = download(out, size_t(got_runs));
        std::vector<float> v = download(reinterpret_cast<float *>(values), n);
        std::vector<uint32_t> want_k;
        std::vector<uint32_t> want_len;
        std::vector<double> want_sum, want_abs;
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || k[i] != k[i - 1]) {
                want_k.push_back(k[i]);
                want_len.push_back(0);
                want_sum.push_back(0);
                want_abs.push_back(0);
            }
            want_len.back()++;
            want_sum.back() += v[i];
            want_abs.back() += std::fabs(double(v[i]));
        }
        bool ok = want_k.size() == size_t(got_runs) && uk == want_k;
        for (size_t q = 0; ok && q < want_k.size(); q++) {
            if (!by_key) {
                ok = o[q] == want_len[q];
            } else {
                float g;
                memcpy(&g, &o[q], 4);
                ok = std::fabs(double(g) - want_sum[q]) <=
                     (double(want_len[q]) + 2) * 0x1p-24 * want_abs[q];
            }
        }
        r.check = ok ? "ok" : "failed";
    }
    CUDA_CHECK(cudaFree(num));
    CUDA_CHECK(cudaFree(values));
    CUDA_CHECK(cudaFree(out));
    CUDA_CHECK(cudaFree(unique));
    CUDA_CHECK(cudaFree(keys));
    return r;
}

// A MatrixMarket coordinate file (real, integer or pattern; general, symmetric
// or skew-symmetric) as CSR row pointers and f32 values in row order, columns
// ascending, duplicates summed, as gpgpu_mtx_read_matrix reads it; array files
// are dense. Exits on anything else.
struct HostCsr {
    std::vector<uint32_t> row_ptr;
    std::vector<float> values;
};

HostCsr read_matrix(const std::string &path) {
    std::ifstream f(path);
    std::string line;
    if (!f || !std::getline(f, line)) {
        std::fprintf(stderr, "cub_peer: cannot read %s\n", path.c_str());
        std::exit(1);
    }
    std::istringstream head(line);
    std::string banner, object, format, field, symmetry;
    head >> banner >> object >> format >> field >> symmetry;
    bool pattern = field == "pattern", sym = symmetry == "symmetric", skew = symmetry == "skew-symmetric";
    if (field == "complex" || symmetry == "hermitian") {
        std::fprintf(stderr, "cub_peer: %s: complex matrices are not read\n", path.c_str());
        std::exit(1);
    }
    while (std::getline(f, line) && (line.empty() || line[0] == '%')) {}
    std::istringstream size(line);
    size_t rows = 0, cols = 0, entries = 0;
    size >> rows >> cols;
    std::vector<std::tuple<uint32_t, uint32_t, double>> t;
    if (format == "array") {
        for (size_t j = 0; j < cols; j++)
            for (size_t i = 0; i < rows; i++) {
                double v = 0;
                f >> v;
                t.emplace_back(uint32_t(i), uint32_t(j), v);
            }
    } else {
        size >> entries;
        for (size_t e = 0; e < entries; e++) {
            size_t i, j;
            double v = 1;
            f >> i >> j;
            if (!pattern) f >> v;
            t.emplace_back(uint32_t(i - 1), uint32_t(j - 1), v);
            if ((sym || skew) && i != j) t.emplace_back(uint32_t(j - 1), uint32_t(i - 1), skew ? -v : v);
        }
    }
    std::sort(t.begin(), t.end(), [](const auto &a, const auto &b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                                : std::get<1>(a) < std::get<1>(b);
    });
    HostCsr c;
    c.row_ptr.assign(rows + 1, 0);
    std::vector<double> vals;
    for (size_t e = 0; e < t.size(); e++) {
        if (e > 0 && std::get<0>(t[e]) == std::get<0>(t[e - 1]) &&
            std::get<1>(t[e]) == std::get<1>(t[e - 1])) {
            vals.back() += std::get<2>(t[e]);  // a duplicate: summed
            continue;
        }
        vals.push_back(std::get<2>(t[e]));
        c.row_ptr[std::get<0>(t[e]) + 1]++;
    }
    for (size_t r = 0; r < rows; r++) c.row_ptr[r + 1] += c.row_ptr[r];
    for (double v : vals) c.values.push_back(float(v));
    return c;
}

// The name gpgpu-bench gives a matrix file: without the directory and .mtx[.gz].
std::string matrix_name(const std::string &path) {
    std::string n = path.substr(path.find_last_of('/') + 1);
    if (n.size() > 3 && n.compare(n.size() - 3, 3, ".gz") == 0) n.resize(n.size() - 3);
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".mtx") == 0) n.resize(n.size() - 4);
    return n;
}

// ---------------------------------------------------------------------------
// Command line and output.

struct Options {
    int min_log2 = 10;
    int max_log2 = 28;
    int step = 2;
    int runs = 20;
    const char *json = nullptr;
    std::vector<int> sizes;  // log2 sizes: --sizes, else the range
    std::string only = "reduce,scan,sort,histogram,segreduce,rle";
    std::vector<std::string> matrices;  // --matrix: segreduce_csr_sum_f32 on each
};

bool list_has(const std::string &list, const char *word) {
    std::string padded = "," + list + ",";
    return padded.find("," + std::string(word) + ",") != std::string::npos;
}

bool case_enabled(const Options &o, const Case &c) {
    return c.op == Op::Copy || list_has(o.only, family(c.op));
}

void usage(FILE *f) {
    std::fprintf(f,
                 "usage: cub_peer [--min-log2 K] [--max-log2 K] [--step S]"
                 " [--sizes K1,K2,...] [--only LIST] [--runs R]"
                 " [--matrix FILE.mtx]... [--json FILE] [--help]\n"
                 "  --min-log2 K  smallest size 2^K elements (default 10)\n"
                 "  --max-log2 K  largest size 2^K elements (default 28,"
                 " at most 30)\n"
                 "  --step S      log2 size step (default 2)\n"
                 "  --sizes LIST  these log2 sizes (comma-separated) instead"
                 " of the range\n"
                 "  --only LIST   primitives, comma-separated: reduce, scan,"
                 " sort, histogram,\n"
                 "                segreduce, rle (default all; the copy always"
                 " runs)\n"
                 "  --matrix FILE segreduce_csr_sum_f32 on the row pointers and"
                 " values of a\n"
                 "                MatrixMarket file (not gzip'ed; repeatable;"
                 " gpgpu-bench --write-gen\n"
                 "                writes its generated matrices)\n"
                 "  --runs R      timed runs per case and size (default 20);"
                 " the median is reported\n"
                 "  --json FILE   also write results as a JSON array\n");
}

int parse_int(const char *opt, const char *s) {
    char *end = nullptr;
    long v = std::strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 0 || v > 1000000) {
        std::fprintf(stderr, "cub_peer: bad value for %s: '%s'\n", opt, s);
        std::exit(1);
    }
    return int(v);
}

Options parse_args(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
            usage(stdout);
            std::exit(0);
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "cub_peer: unknown or incomplete option '%s'\n",
                         a);
            usage(stderr);
            std::exit(1);
        }
        const char *v = argv[++i];
        if (std::strcmp(a, "--min-log2") == 0) o.min_log2 = parse_int(a, v);
        else if (std::strcmp(a, "--max-log2") == 0) o.max_log2 = parse_int(a, v);
        else if (std::strcmp(a, "--step") == 0) o.step = parse_int(a, v);
        else if (std::strcmp(a, "--runs") == 0) o.runs = parse_int(a, v);
        else if (std::strcmp(a, "--json") == 0) o.json = v;
        else if (std::strcmp(a, "--matrix") == 0) o.matrices.push_back(v);
        else if (std::strcmp(a, "--only") == 0) {
            o.only = v;
            for (size_t p = 0; p <= o.only.size();) {
                size_t e = o.only.find(',', p);
                if (e == std::string::npos) e = o.only.size();
                std::string w = o.only.substr(p, e - p);
                if (w != "reduce" && w != "scan" && w != "sort" && w != "histogram" &&
                    w != "segreduce" && w != "rle") {
                    std::fprintf(stderr, "cub_peer: --only: unknown '%s'\n",
                                 w.c_str());
                    std::exit(1);
                }
                p = e + 1;
            }
        } else if (std::strcmp(a, "--sizes") == 0) {
            const char *p = v;
            while (*p) {
                char *end = nullptr;
                long k = std::strtol(p, &end, 10);
                if (end == p || k < 0 || k > 30 || (*end != ',' && *end)) {
                    std::fprintf(stderr, "cub_peer: bad --sizes '%s'\n", v);
                    std::exit(1);
                }
                o.sizes.push_back(int(k));
                p = *end ? end + 1 : end;
            }
        } else {
            std::fprintf(stderr, "cub_peer: unknown option '%s'\n", a);
            usage(stderr);
            std::exit(1);
        }
    }
    // n is passed to CUB as int, hence the cap at 2^30.
    if (o.min_log2 > o.max_log2 || o.max_log2 > 30 || o.step < 1 ||
        o.runs < 1) {
        std::fprintf(stderr, "cub_peer: need 0 <= min-log2 <= max-log2 <= 30,"
                             " step >= 1, runs >= 1\n");
        std::exit(1);
    }
    if (o.sizes.empty())
        for (int k = o.min_log2; k <= o.max_log2; k += o.step)
            o.sizes.push_back(k);
    return o;
}

struct Result {
    std::string name;
    size_t n;
    double median_us;
    double gbps;
    double wall_us;
    double gkeys;  // n / median time: keys (elements) per second, 1e9
    std::string matrix;     // segreduce_csr_sum_f32: the matrix's name
    size_t segments = 0;    // segmented sums: segments; encodings: runs
    const char *check = nullptr;  // the extended cases: ok, failed, skipped
};

std::string json_escape(const char *s) {
    std::string r;
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\') r += '\\';
        if (static_cast<unsigned char>(*s) >= 0x20) r += *s;
    }
    return r;
}

void write_json(const char *path, const std::vector<Result> &results,
                const char *device) {
    FILE *f = std::fopen(path, "w");
    if (!f) {
        std::fprintf(stderr, "cub_peer: cannot open '%s' for writing\n", path);
        std::exit(1);
    }
    const std::string dev = json_escape(device);
    std::fprintf(f, "[\n");
    for (size_t i = 0; i < results.size(); ++i) {
        const Result &r = results[i];
        std::string extra;
        if (!r.matrix.empty()) extra += ", \"matrix\": \"" + json_escape(r.matrix.c_str()) + "\"";
        if (r.segments) extra += ", \"segments\": " + std::to_string(r.segments);
        if (r.check) extra += std::string(", \"check\": \"") + r.check + "\"";
        std::fprintf(f,
                     "  {\"case\": \"%s\", \"n\": %zu, \"median_us\": %.3f,"
                     " \"gbps\": %.3f, \"wall_us\": %.3f,"
                     " \"gkeys_per_s\": %.4f%s, \"device\": \"%s\"}%s\n",
                     r.name.c_str(), r.n, r.median_us, r.gbps, r.wall_us, r.gkeys,
                     extra.c_str(), dev.c_str(),
                     i + 1 < results.size() ? "," : "");
    }
    std::fprintf(f, "]\n");
    if (std::fclose(f) != 0) {
        std::fprintf(stderr, "cub_peer: error writing '%s'\n", path);
        std::exit(1);
    }
}

// The extended cases' outputs are checked up to this size.
constexpr int kExtCheckLog2 = 20;

// Prints an extended case's row (its check last) and keeps it for the JSON.
void report_ext(const ExtResult &r, std::vector<Result> &results, bool *ok) {
    const double gbps = r.bytes / r.t.median_us / 1e3, gkeys = double(r.n) / r.t.median_us / 1e3;
    std::printf("%-34s %12zu %12.3f %10.1f %12.3f %10.4f %s%s%s\n", r.name.c_str(), r.n,
                r.t.median_us, gbps, r.t.wall_us, gkeys, r.check,
                r.matrix.empty() ? "" : " ", r.matrix.c_str());
    std::fflush(stdout);
    if (std::strcmp(r.check, "failed") == 0) {
        std::fprintf(stderr, "CHECK FAILED: %s n=%zu %s\n", r.name.c_str(), r.n, r.matrix.c_str());
        *ok = false;
    }
    Result row{r.name, r.n, r.t.median_us, gbps, r.t.wall_us, gkeys};
    row.matrix = r.matrix;
    row.segments = r.segments;
    row.check = r.check;
    results.push_back(row);
}

}  // namespace

int main(int argc, char **argv) {
    const Options opt = parse_args(argc, argv);

    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    std::printf("device: %s\n", prop.name);
    std::fflush(stdout);  // keep it ahead of the stderr progress when piped

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // Verify every case once before timing anything.
    bool ok = true;
    for (const Case &c : kCases) {
        if (!case_enabled(opt, c)) continue;
        switch (c.type) {
        case DType::U32: ok = check_case<uint32_t>(c, s) && ok; break;
        case DType::F32: ok = check_case<float>(c, s) && ok; break;
        case DType::F64: ok = check_case<double>(c, s) && ok; break;
        }
    }
    if (!ok) return 1;

    std::printf("%-20s %12s %12s %10s %12s %10s\n", "case", "n", "median_us",
                "GB/s", "wall_us", "Gkeys/s");
    bool any_sort = false;
    for (const Case &c : kCases) any_sort = any_sort || (is_sort(c.op) && case_enabled(opt, c));
    std::vector<Result> results;
    for (int k : opt.sizes) {
        const int n = 1 << k;
        // One pair of buffers per size, large enough for the widest type,
        // and the values of sorts of pairs; freed before the next size so
        // peak memory tracks the current n.
        void *in = nullptr, *out = nullptr;
        uint32_t *vin = nullptr, *vout = nullptr;
        CUDA_CHECK(cudaMalloc(&in, size_t(n) * sizeof(double)));
        CUDA_CHECK(cudaMalloc(&out, size_t(n) * sizeof(double)));
        if (any_sort) {
            CUDA_CHECK(cudaMalloc(&vin, size_t(n) * sizeof(uint32_t)));
            CUDA_CHECK(cudaMalloc(&vout, size_t(n) * sizeof(uint32_t)));
        }

        for (const Case &c : kCases) {
            if (!case_enabled(opt, c)) continue;
            std::fprintf(stderr, "[cub_peer] %s n=2^%d ...\n", c.name, k);
            Timing t{};
            switch (c.type) {
            case DType::U32: t = time_case<uint32_t>(c, in, out, vin, vout, n, opt.runs, s); break;
            case DType::F32: t = time_case<float>(c, in, out, vin, vout, n, opt.runs, s); break;
            case DType::F64: t = time_case<double>(c, in, out, vin, vout, n, opt.runs, s); break;
            }
            // bytes / (us * 1e-6) / 1e9 == bytes / us / 1e3
            const double gbps = bytes_moved(c.op, c.type, size_t(n)) / t.median_us / 1e3;
            const double gkeys = double(n) / t.median_us / 1e3;
            results.push_back({c.name, size_t(n), t.median_us, gbps, t.wall_us, gkeys});
            std::printf("%-20s %12d %12.3f %10.1f %12.3f %10.4f\n", c.name, n,
                        t.median_us, gbps, t.wall_us, gkeys);
            std::fflush(stdout);
        }
        CUDA_CHECK(cudaFree(vout));
        CUDA_CHECK(cudaFree(vin));
        CUDA_CHECK(cudaFree(out));
        CUDA_CHECK(cudaFree(in));

        // The extended cases allocate their own buffers; outputs checked up to 2^20.
        std::vector<ExtResult> ext;
        const bool check = k <= kExtCheckLog2;
        if (list_has(opt.only, "histogram"))
            for (int f32 = 0; f32 < 2; f32++)
                for (uint32_t bins : {256u, 4096u})
                    for (int skewed = 0; skewed < 2; skewed++)
                        ext.push_back(run_histogram(f32, bins, skewed, size_t(n), opt.runs, check, s));
        if (list_has(opt.only, "segreduce"))
            for (int tiny = 1; tiny >= 0; tiny--)
                ext.push_back(run_segreduce(tiny ? "segreduce_sum_f32_tiny" : "segreduce_sum_f32_huge",
                                            "", nullptr, size_t(n),
                                            segment_offsets(tiny, size_t(n)), opt.runs, check, s));
        if (list_has(opt.only, "rle"))
            for (int by_key = 0; by_key < 2; by_key++)
                for (uint32_t run : {1u, 16u})
                    ext.push_back(run_rle(by_key, run, size_t(n), opt.runs, check, s));
        for (const ExtResult &r : ext) report_ext(r, results, &ok);
    }
    if (list_has(opt.only, "segreduce"))
        for (const std::string &path : opt.matrices) {
            HostCsr a = read_matrix(path);
            std::fprintf(stderr, "[cub_peer] segreduce_csr_sum_f32 %s ...\n", path.c_str());
            report_ext(run_segreduce("segreduce_csr_sum_f32", matrix_name(path), &a.values,
                                     a.values.size(), a.row_ptr, opt.runs, true, s),
                       results, &ok);
        }

    if (opt.json) {
        write_json(opt.json, results, prop.name);
        std::fprintf(stderr, "[cub_peer] wrote %s\n", opt.json);
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    return ok ? 0 : 1;
}
