#!/usr/bin/env python3
"""cuBLAS peer of `gpgpu gemm --m --n --k` and `gpgpu-bench --only gemm`: times
C = A @ B with CuPy (cuBLAS: SGEMM for f32 with TF32 off, as CuPy does unless
CUPY_TF32=1; DGEMM for f64; HGEMM for f16 and bf16 inputs with f32 output, the
peer of a reduced-precision variant) on square sizes, and writes JSON records
{"case": "gemm_TYPE", "n", "median_us", "min_us", "gflops", "device"} that
bench/compare.py --gemm joins with gpgpu-bench's.

usage: python3 bench/cublas_peer.py [--sizes 64,128,...] [--types f32,f64,f16]
                                    [--runs R] [--json OUT.json]

Inputs are random in [-1, 1) (a product of zeros can run faster); each case is
checked once against the same product in float64 on the GPU (relative error of
the Frobenius norm under 1e-5 for f32, 1e-12 for f64, 1e-2 for f16/bf16),
warmed up 3 times, then timed R times between CUDA events: median and minimum.
GFLOP/s = 2 n^3 / median time.
"""
import argparse
import json
import os
import sys

os.environ.setdefault("CUPY_TF32", "0")
import cupy as cp  # noqa: E402

TOLERANCE = {"f32": 1e-5, "f64": 1e-12, "f16": 1e-2, "bf16": 1e-2}


def make(n, dtype, seed):
    rng = cp.random.default_rng(seed)
    return (rng.random((n, n), dtype=cp.float32) * 2 - 1).astype(dtype)


def product(a, b, kind):
    if kind in ("f16", "bf16"):  # f16 inputs, f32 accumulation and output
        return cp.matmul(a, b, dtype=cp.float32) if kind == "f16" else cp.matmul(a, b)
    return a @ b


def one(n, kind, runs):
    dtype = {"f32": cp.float32, "f64": cp.float64, "f16": cp.float16}[kind]
    a, b = make(n, dtype, 1), make(n, dtype, 2)
    c = product(a, b, kind)
    ref = a.astype(cp.float64) @ b.astype(cp.float64)
    err = float(cp.linalg.norm(c.astype(cp.float64) - ref) / cp.linalg.norm(ref))
    if not err < TOLERANCE[kind]:
        print(f"gemm_{kind} n={n}: relative error {err:.3g} over {TOLERANCE[kind]}", file=sys.stderr)
        return None
    for _ in range(3):
        product(a, b, kind)
    times = []
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(runs):
        start.record()
        product(a, b, kind)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1000.0)
    times.sort()
    med = times[len(times) // 2]
    return {"case": f"gemm_{kind}", "n": n, "median_us": med, "min_us": times[0],
            "gflops": 2.0 * n ** 3 / med / 1e3, "rel_error": err,
            "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="64,128,256,512,1024,2048,4096,8192")
    p.add_argument("--types", default="f32,f64,f16")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--json")
    args = p.parse_args()
    records, failed = [], False
    for kind in args.types.split(","):
        for n in [int(s) for s in args.sizes.split(",")]:
            r = one(n, kind, args.runs)
            if r is None:
                failed = True
                continue
            records.append(r)
            print(f"{r['case']:10s} {n:6d} {r['median_us']:12.1f} us {r['gflops']:10.1f} GFLOP/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
