// cub_peer: CUDA/CUB reference numbers for the libgpgpu GL benchmarks.
//
// Times cub::DeviceReduce / cub::DeviceScan (and a plain device-to-device
// copy as the bandwidth ceiling) over power-of-two sizes and reports the
// median GPU time per call, measured with CUDA events.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_peer bench/cub_peer.cu
// Usage: cub_peer [--min-log2 10] [--max-log2 28] [--step 2] [--runs 20]
//                 [--json FILE] [--help]

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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

enum class Op { ReduceSum, ReduceMin, ScanExclusive, ScanInclusive, Copy };
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
};

size_t elem_bytes(DType t) { return t == DType::F64 ? 8 : 4; }

// Bytes a call must move at minimum: reduce reads n elements; scan and copy
// read and write n elements.
double bytes_moved(Op op, DType t, size_t n) {
    double b = double(n) * double(elem_bytes(t));
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

// ---------------------------------------------------------------------------
// One call of the operation under test. With temp == nullptr this is CUB's
// size query: it only sets temp_bytes and launches nothing.

template <typename T>
cudaError_t launch(Op op, void *temp, size_t &temp_bytes, const T *in, T *out,
                   int n, cudaStream_t s) {
    switch (op) {
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
void *alloc_temp(Op op, const T *in, T *out, int n, cudaStream_t s,
                 size_t *bytes) {
    size_t temp_bytes = 0;
    CUDA_CHECK(launch<T>(op, nullptr, temp_bytes, in, out, n, s));
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
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(T)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(T)));
    fill(d_in, n, s);

    size_t temp_bytes = 0;
    void *temp = alloc_temp<T>(c.op, d_in, d_out, n, s, &temp_bytes);
    CUDA_CHECK(launch<T>(c.op, temp, temp_bytes, d_in, d_out, n, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<T> in(n), out(n);
    CUDA_CHECK(cudaMemcpy(in.data(), d_in, n * sizeof(T),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(T),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(temp));
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

// Returns the median GPU time of one call in microseconds. in/out must hold
// n elements of T. All timed calls are queued back to back, each between its
// own event pair, so host launch overhead is not included.
template <typename T>
double time_case(const Case &c, void *in_raw, void *out_raw, int n, int runs,
                 cudaStream_t s) {
    T *in = static_cast<T *>(in_raw);
    T *out = static_cast<T *>(out_raw);
    fill(in, size_t(n), s);

    size_t temp_bytes = 0;
    void *temp = alloc_temp<T>(c.op, in, out, n, s, &temp_bytes);

    for (int i = 0; i < kWarmupRuns; ++i)
        CUDA_CHECK(launch<T>(c.op, temp, temp_bytes, in, out, n, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<cudaEvent_t> start(runs), stop(runs);
    for (int i = 0; i < runs; ++i) {
        CUDA_CHECK(cudaEventCreate(&start[i]));
        CUDA_CHECK(cudaEventCreate(&stop[i]));
    }
    for (int i = 0; i < runs; ++i) {
        CUDA_CHECK(cudaEventRecord(start[i], s));
        CUDA_CHECK(launch<T>(c.op, temp, temp_bytes, in, out, n, s));
        CUDA_CHECK(cudaEventRecord(stop[i], s));
    }
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<float> ms(runs);
    for (int i = 0; i < runs; ++i) {
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], start[i], stop[i]));
        CUDA_CHECK(cudaEventDestroy(start[i]));
        CUDA_CHECK(cudaEventDestroy(stop[i]));
    }
    CUDA_CHECK(cudaFree(temp));
    return median(ms) * 1000.0;
}

// ---------------------------------------------------------------------------
// Command line and output.

struct Options {
    int min_log2 = 10;
    int max_log2 = 28;
    int step = 2;
    int runs = 20;
    const char *json = nullptr;
};

void usage(FILE *f) {
    std::fprintf(f,
                 "usage: cub_peer [--min-log2 K] [--max-log2 K] [--step S]"
                 " [--runs R] [--json FILE] [--help]\n"
                 "  --min-log2 K  smallest size 2^K elements (default 10)\n"
                 "  --max-log2 K  largest size 2^K elements (default 28,"
                 " at most 30)\n"
                 "  --step S      log2 size step (default 2)\n"
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
        else {
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
    return o;
}

struct Result {
    const char *name;
    size_t n;
    double median_us;
    double gbps;
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
        std::fprintf(f,
                     "  {\"case\": \"%s\", \"n\": %zu, \"median_us\": %.3f,"
                     " \"gbps\": %.3f, \"device\": \"%s\"}%s\n",
                     r.name, r.n, r.median_us, r.gbps, dev.c_str(),
                     i + 1 < results.size() ? "," : "");
    }
    std::fprintf(f, "]\n");
    if (std::fclose(f) != 0) {
        std::fprintf(stderr, "cub_peer: error writing '%s'\n", path);
        std::exit(1);
    }
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
        switch (c.type) {
        case DType::U32: ok = check_case<uint32_t>(c, s) && ok; break;
        case DType::F32: ok = check_case<float>(c, s) && ok; break;
        case DType::F64: ok = check_case<double>(c, s) && ok; break;
        }
    }
    if (!ok) return 1;

    std::printf("%-20s %12s %12s %10s\n", "case", "n", "median_us", "GB/s");
    std::vector<Result> results;
    for (int k = opt.min_log2; k <= opt.max_log2; k += opt.step) {
        const int n = 1 << k;
        // One pair of buffers per size, large enough for the widest type;
        // freed before the next size so peak memory tracks the current n.
        void *in = nullptr, *out = nullptr;
        CUDA_CHECK(cudaMalloc(&in, size_t(n) * sizeof(double)));
        CUDA_CHECK(cudaMalloc(&out, size_t(n) * sizeof(double)));

        for (const Case &c : kCases) {
            std::fprintf(stderr, "[cub_peer] %s n=2^%d ...\n", c.name, k);
            double us = 0.0;
            switch (c.type) {
            case DType::U32: us = time_case<uint32_t>(c, in, out, n, opt.runs, s); break;
            case DType::F32: us = time_case<float>(c, in, out, n, opt.runs, s); break;
            case DType::F64: us = time_case<double>(c, in, out, n, opt.runs, s); break;
            }
            // bytes / (us * 1e-6) / 1e9 == bytes / us / 1e3
            const double gbps = bytes_moved(c.op, c.type, size_t(n)) / us / 1e3;
            results.push_back({c.name, size_t(n), us, gbps});
            std::printf("%-20s %12d %12.3f %10.1f\n", c.name, n, us, gbps);
            std::fflush(stdout);
        }
        CUDA_CHECK(cudaFree(out));
        CUDA_CHECK(cudaFree(in));
    }

    if (opt.json) {
        write_json(opt.json, results, prop.name);
        std::fprintf(stderr, "[cub_peer] wrote %s\n", opt.json);
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
