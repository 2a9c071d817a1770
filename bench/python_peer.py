#!/usr/bin/env python3
"""The gpgpu Python package against CuPy, and the package's own cost per call.

usage: PYTHONPATH=python GPGPU_LIBRARY=build/libgpgpu.so \\
       python3 bench/python_peer.py [--mode overhead|peer|all] [--backend gl|vulkan]
           [--sizes 20,22,24,26,28] [--only sum,cumsum,sort,argsort,spmv,spgemm,matmul]
           [--matrix-dir DIR [--matrices A,B]] [--gen laplace3d_7:128,rmat:20:16]
           [--gemm 4096]
           [--runs 10] [--warmup 2] [--warmup-ms 300] [--budget 480] [--json OUT.json]

--mode overhead (on any machine, llvmpipe included): for each call, on small DeviceArrays
(2^10 elements; 64 x 64 for matmul), the package's wall time per call (pkg_us), the same C
call(s) made through prebuilt ctypes arguments (c_us: what a caller of the C library pays,
plus the foreign call), and the foreign call alone (ffi_us: the same C functions given a
NULL context, which return at once). The package's overhead on top of the C call is
overhead_us = median over blocks of (pkg - c) + ffi_us; python_us is the package's Python
work alone, timed with the C calls replaced by no-ops (a check on overhead_us where the
device's own time jitters, as llvmpipe's does by tens of microseconds). Calls with "out"
write into a preallocated result; the others allocate theirs (gpgpu_buffer_create and
_destroy, which the C caller would also need once).

--mode peer: for each case, the package with DeviceArrays in and out (GPU time through the
library's timer, gpgpu_timer_begin/end, summed over the call's submissions; wall time per
call with a gpgpu_finish after it), and with numpy in and out (wall: upload, call,
download); CuPy, where `import cupy` works, on the same data in the same run: GPU time
between CUDA events, wall time with a synchronize, and numpy in and out through
cupy.asarray / cupy.asnumpy. Cases: sum (f32), cumsum (f32, u32), sort (f32, u32), argsort
(f32) at 2^sizes; Matrix @ x and M @ M on the matrices of --matrix-dir and --gen (f32 and
f64); matmul at --gemm (f32, f64). A case that fails (llvmpipe's 128 MiB storage binding
refuses 2^26 floats) is recorded with its error and the run goes on. Each case's result is
checked once against CuPy's or numpy's where it is cheap (sizes up to 2^24).

Output: a table on stdout, progress on stderr, and with --json an array of
{"case", "dtype", "n", "impl" (gpgpu|cupy), "io" (device|numpy), "gpu_us", "wall_us",
"backend", "device", ...} records (overhead records: "pkg_us", "c_us", "ffi_us",
"overhead_us", "python_us", "spread_us"). GPU times are medians of --runs after --warmup;
a timer that reads nothing (Mesa's llvmpipe in GL: 0 or 1 ns) gives gpu_us null.
"""
import argparse
import json
import os
import statistics
import sys
import time
from ctypes import byref, c_void_p

import numpy as np

import gpgpu
from gpgpu import _context, _lib

try:
    import cupy
    import cupyx.scipy.sparse as cusparse
    cupy.cuda.runtime.getDeviceCount()
except Exception:  # no CUDA here: the package alone
    cupy = None

F32, F64, U32 = np.float32, np.float64, np.uint32
DT = {F32: "f32", F64: "f64", U32: "u32"}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def median(xs):
    return statistics.median(xs) if xs else None


def warm(f, sync, ms):
    """Calls f for ms milliseconds: a GPU that idled needs over 100 ms of load to come back
    to full speed (bench/README.md, "Warming up")."""
    end = time.perf_counter() + ms / 1e3
    while time.perf_counter() < end:
        f()
        sync()


def wall_us(f, runs, warmup, sync):
    for _ in range(warmup):
        f()
    sync()
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        sync()
        out.append((time.perf_counter() - t) * 1e6)
    return median(out)


def gpgpu_gpu_us(ctx, f, runs, warmup):
    for _ in range(warmup):
        f()
    out = []
    for _ in range(runs):
        with ctx.timer() as t:
            f()
        out.append(t.ns / 1e3)
    m = median(out)
    # Mesa's llvmpipe reads 0 or 1 ns a call in GL: no GPU time to report.
    return m if m is not None and m >= 0.01 else None


def cupy_gpu_us(f, runs, warmup):
    for _ in range(warmup):
        f()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    out = []
    for _ in range(runs):
        start.record()
        f()
        end.record()
        end.synchronize()
        out.append(cupy.cuda.get_elapsed_time(start, end) * 1e3)
    return median(out)


def cupy_sync():
    cupy.cuda.Stream.null.synchronize()


# ------------------------------------------------------------------------ overhead


def _block_means(f, calls, blocks):
    f()
    means = []
    for _ in range(blocks):
        t = time.perf_counter()
        for _ in range(calls):
            f()
        means.append((time.perf_counter() - t) / calls * 1e6)
    return means


def _python_only(ctx, f, calls, blocks):
    """f's time with every C call it makes replaced by a Python no-op (buffer creation
    hands out a fake pointer that the fake destroy ignores)."""
    names = ["gpgpu_reduce_to_buffer", "gpgpu_reduce", "gpgpu_scan", "gpgpu_sort", "gpgpu_dot",
             "gpgpu_dot_to_buffer",
             "gpgpu_gemm", "gpgpu_spmv", "gpgpu_buffer_copy", "gpgpu_buffer_upload",
             "gpgpu_buffer_download", "gpgpu_buffer_create"]
    saved = {n: getattr(_lib, n) for n in names}
    saved_destroy = dict(_context._destroy)

    def fake_create(c, nbytes, out):
        out._obj.value = 0x1000
        return 0
    try:
        for n in names:
            setattr(_lib, n, lambda *a: 0)
        _lib.gpgpu_buffer_create = fake_create
        _context._destroy[_context._BUFFER] = lambda p: None
        return median(_block_means(f, calls, blocks))
    finally:
        for n, v in saved.items():
            setattr(_lib, n, v)
        _context._destroy.update(saved_destroy)


def overhead_cases(ctx):
    """(name, package call, the same C calls through ctypes, the same functions with a NULL
    context) for small DeviceArrays."""
    n = 1 << 10
    rng = np.random.default_rng(1)
    h = ctx.handle
    x = gpgpu.asarray(rng.random(n).astype(F32), ctx=ctx)
    y = gpgpu.asarray(rng.random(n).astype(F32), ctx=ctx)
    k = gpgpu.asarray(rng.integers(0, 1 << 31, n).astype(U32), ctx=ctx)
    v = gpgpu.asarray(np.arange(n, dtype=U32), ctx=ctx)
    out1, outn, outk = gpgpu.empty(1, F32, ctx=ctx), gpgpu.empty(n, F32, ctx=ctx), \
        gpgpu.empty(n, U32, ctx=ctx)
    A = gpgpu.generate("laplace3d_7", 10)  # 1000 rows
    M = gpgpu.Matrix(A, ctx=ctx)
    xm, ym = gpgpu.asarray(np.ones(1000, F32), ctx=ctx), gpgpu.empty(1000, F32, ctx=ctx)
    g = gpgpu.asarray(rng.random((64, 64)).astype(F32), ctx=ctx)
    gout = gpgpu.empty((64, 64), F32, ctx=ctx)
    b = {a: a.buffer for a in (x, y, k, v, out1, outn, outk, xm, ym, g, gout)}
    red = _lib.ReduceDesc(_lib.GPGPU_TYPE_F32, _lib.GPGPU_OP_SUM, 0)
    scan = _lib.ScanDesc(_lib.GPGPU_TYPE_F32, False, 0)
    sort_k = _lib.SortDesc(type=_lib.GPGPU_TYPE_U32)
    sort_kv = _lib.SortDesc(type=_lib.GPGPU_TYPE_U32, values_in=b[v])
    spmv = _lib.SpmvDesc(0, 0, 0)
    gemm = _lib.GemmDesc(type=_lib.GPGPU_TYPE_F32)
    mp = M._ptr()

    def new_and_free(nbytes, f):
        o = c_void_p()
        _lib.gpgpu_buffer_create(h, nbytes, byref(o))
        f(o.value)
        _lib.gpgpu_buffer_destroy(o.value)

    def null_new_and_free(nbytes, f):
        o = c_void_p()
        _lib.gpgpu_buffer_create(None, nbytes, byref(o))
        f(None)
        _lib.gpgpu_buffer_destroy(None)

    return [
        ("sum out=", lambda: gpgpu.sum(x, out=out1),
         lambda: _lib.gpgpu_reduce_to_buffer(h, byref(red), b[x], 0, n, b[out1], 0),
         lambda: _lib.gpgpu_reduce_to_buffer(None, byref(red), None, 0, n, None, 0)),
        ("sum", lambda: gpgpu.sum(x),
         lambda: new_and_free(8, lambda o: _lib.gpgpu_reduce_to_buffer(
             h, byref(red), b[x], 0, n, o, 0)),
         lambda: null_new_and_free(8, lambda o: _lib.gpgpu_reduce_to_buffer(
             None, byref(red), None, 0, n, None, 0))),
        ("cumsum out=", lambda: gpgpu.cumsum(x, out=outn),
         lambda: _lib.gpgpu_scan(h, byref(scan), b[x], 0, b[outn], 0, n),
         lambda: _lib.gpgpu_scan(None, byref(scan), None, 0, None, 0, n)),
        ("sort out=", lambda: gpgpu.sort(k, out=outk),
         lambda: _lib.gpgpu_sort(h, byref(sort_k), b[k], 0, b[outk], 0, n),
         lambda: _lib.gpgpu_sort(None, byref(sort_k), None, 0, None, 0, n)),
        ("sort_by_key in place", lambda: gpgpu.sort_by_key(k, v, out=(k, v)),
         lambda: _lib.gpgpu_sort(h, byref(sort_kv), b[k], 0, None, 0, n),
         lambda: _lib.gpgpu_sort(None, byref(sort_kv), None, 0, None, 0, n)),
        ("dot", lambda: gpgpu.dot(x, y).release(),
         lambda: new_and_free(4, lambda o: _lib.gpgpu_dot_to_buffer(
             h, _lib.GPGPU_TYPE_F32, n, b[x], 0, b[y], 0, o, 0)),
         lambda: null_new_and_free(4, lambda o: _lib.gpgpu_dot_to_buffer(
             None, _lib.GPGPU_TYPE_F32, n, None, 0, None, 0, None, 0))),
        ("spmv y=", lambda: gpgpu.spmv(M, xm, ym),
         lambda: _lib.gpgpu_spmv(h, byref(spmv), 1.0, mp, b[xm], 0, 0.0, b[ym], 0),
         lambda: _lib.gpgpu_spmv(None, byref(spmv), 1.0, None, None, 0, 0.0, None, 0)),
        ("M @ x", lambda: M @ xm,
         lambda: new_and_free(4000, lambda o: _lib.gpgpu_spmv(
             h, byref(spmv), 1.0, mp, b[xm], 0, 0.0, o, 0)),
         lambda: null_new_and_free(4000, lambda o: _lib.gpgpu_spmv(
             None, byref(spmv), 1.0, None, None, 0, 0.0, None, 0))),
        ("matmul out=", lambda: gpgpu.matmul(g, g, out=gout),
         lambda: _lib.gpgpu_gemm(h, byref(gemm), 64, 64, 64, 1.0, b[g], 0, b[g], 0, 0.0,
                                 b[gout], 0),
         lambda: _lib.gpgpu_gemm(None, byref(gemm), 64, 64, 64, 1.0, None, 0, None, 0, 0.0,
                                 None, 0)),
    ]


def run_overhead(ctx, args):
    recs = []
    calls, blocks = args.calls, args.blocks
    for name, pkg, c_call, ffi in overhead_cases(ctx):
        log(f"overhead: {name}")
        pkg(), c_call()
        ctx.finish()
        pk, cc = [], []
        for _ in range(blocks):  # interleaved, so that drift hits both alike
            pk += _block_means(pkg, calls, 1)
            cc += _block_means(c_call, calls, 1)
        ctx.finish()
        diffs = sorted(p - c for p, c in zip(pk, cc))
        ffi_us = median(_block_means(ffi, 2000, 5))
        q = len(diffs) // 4
        recs.append({
            "case": name, "mode": "overhead", "n": 1 << 10, "impl": "gpgpu", "io": "device",
            "pkg_us": median(pk), "c_us": median(cc), "ffi_us": ffi_us,
            "overhead_us": median(diffs) + ffi_us,
            "spread_us": diffs[-q - 1] - diffs[q] if q else None,
            "python_us": _python_only(ctx, pkg, calls, blocks),
        })
    return recs


# ---------------------------------------------------------------------------- peer


def _record(case, dtype, n, impl, io, gpu, wall, **extra):
    r = {"case": case, "dtype": DT.get(dtype, str(dtype)), "n": n, "impl": impl, "io": io,
         "gpu_us": gpu, "wall_us": wall}
    r.update(extra)
    return r


def vector_cases(args):
    ops = {
        "sum": [F32], "cumsum": [F32, U32], "sort": [F32, U32], "argsort": [F32],
    }
    for op, dtypes in ops.items():
        if op not in args.only:
            continue
        for dt in dtypes:
            for k in args.sizes:
                yield op, dt, 1 << k


def _data(dt, n, rng):
    if dt == U32:
        return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(U32)
    return (rng.random(n, dtype=np.float32) + np.float32(0.5)).astype(dt)


def _ours(op, d, ctx):
    if op == "sum":
        return lambda: gpgpu.sum(d)
    if op == "cumsum":
        return lambda: gpgpu.cumsum(d)
    if op == "sort":
        return lambda: gpgpu.sort(d)
    if op == "argsort":
        return lambda: gpgpu.argsort(d)
    raise KeyError(op)


def _theirs(op, c):
    # cumsum in the input's dtype, as gpgpu's (numpy's default sums u32 into u64).
    return {"sum": lambda: cupy.sum(c), "cumsum": lambda: cupy.cumsum(c, dtype=c.dtype),
            "sort": lambda: cupy.sort(c), "argsort": lambda: cupy.argsort(c)}[op]


def _check_vector(op, got, h):
    if op == "sum":
        exact = float(h.astype(np.float64).sum())
        return abs(float(got) - exact) <= 1e-4 * abs(exact)
    if op == "cumsum":
        g = np.asarray(got)
        if h.dtype == U32:  # modulo 2^32, whatever type the peer's sums come in
            return np.array_equal(g.astype(U32), np.cumsum(h, dtype=U32))
        return np.allclose(g, np.cumsum(h.astype(F64)), rtol=1e-4, atol=0)
    if op == "sort":
        return np.array_equal(np.asarray(got), np.sort(h))
    if op == "argsort":  # a permutation that sorts (equal keys in either order)
        idx = np.asarray(got).astype(np.int64)
        return (np.array_equal(np.sort(idx), np.arange(h.size)) and
                bool(np.all(np.diff(h[idx]) >= 0)))
    return True


def run_vectors(ctx, args, recs, deadline):
    rng = np.random.default_rng(1)
    fin = ctx.finish
    for op, dt, n in vector_cases(args):
        if time.monotonic() > deadline:
            log(f"budget spent: skipped {op} {DT[dt]} 2^{n.bit_length() - 1}")
            continue
        log(f"peer: {op} {DT[dt]} n={n}")
        h = _data(dt, n, rng)
        try:
            d = gpgpu.asarray(h, ctx=ctx)
            f = _ours(op, d, ctx)
            ok = _check_vector(op, f(), h) if n <= 1 << 24 else None
            warm(f, fin, args.warmup_ms)
            gpu = gpgpu_gpu_us(ctx, f, args.runs, args.warmup)
            wall = wall_us(f, args.runs, args.warmup, fin)
            recs.append(_record(op, dt, n, "gpgpu", "device", gpu, wall, checked=ok))
            host = _ours(op, h, ctx)
            recs.append(_record(op, dt, n, "gpgpu", "numpy", None,
                                wall_us(host, max(3, args.runs // 2), 1, fin)))
            d = f = None
        except (gpgpu.Error, MemoryError) as e:
            recs.append(_record(op, dt, n, "gpgpu", "device", None, None, error=str(e)))
            log(f"  gpgpu: {type(e).__name__}: {e}")
        ctx.trim()
        if cupy is not None:
            c = cupy.asarray(h)
            g = _theirs(op, c)
            ok = _check_vector(op, cupy.asnumpy(g()), h) if n <= 1 << 24 else None
            warm(g, cupy_sync, args.warmup_ms)
            recs.append(_record(op, dt, n, "cupy", "device",
                                cupy_gpu_us(g, args.runs, args.warmup),
                                wall_us(g, args.runs, args.warmup, cupy_sync), checked=ok))
            recs.append(_record(op, dt, n, "cupy", "numpy", None,
                                wall_us(lambda: cupy.asnumpy(_theirs(op, cupy.asarray(h))()),
                                        max(3, args.runs // 2), 1, cupy_sync)))
            c = g = None
            cupy.get_default_memory_pool().free_all_blocks()


def matrices(args):
    if args.matrix_dir:
        for f in sorted(os.listdir(args.matrix_dir)):
            if args.matrices and f.split(".mtx")[0] not in args.matrices:
                continue
            if f.endswith(".mtx") or f.endswith(".mtx.gz"):
                yield f.split(".mtx")[0], lambda f=f: gpgpu.read_mtx(
                    os.path.join(args.matrix_dir, f))
    for spec in args.gen:
        kind, *nums = spec.split(":")
        size = int(nums[0])
        avg = int(nums[1]) if len(nums) > 1 else 0
        yield spec, lambda kind=kind, size=size, avg=avg: gpgpu.generate(kind, size, avg, 1)


def run_sparse(ctx, args, recs, deadline):
    fin = ctx.finish
    for name, load in matrices(args):
        if time.monotonic() > deadline:
            log(f"budget spent: skipped {name}")
            continue
        try:
            A = load()
        except gpgpu.Error as e:
            log(f"{name}: skipped ({e})")
            continue
        if not hasattr(A, "tocsr"):
            log(f"{name}: skipped (SciPy is needed for the matrices)")
            continue
        for dt in (F32, F64):
            As = A.astype(dt)
            x = np.ones(A.shape[1], dt)
            extra = {"matrix": name, "rows": A.shape[0], "nnz": A.nnz}
            for case in [c for c in ("spmv", "spgemm") if c in args.only]:
                if case == "spgemm" and A.shape[0] != A.shape[1]:
                    continue
                log(f"peer: {case} {name} {DT[dt]}")
                try:
                    M = gpgpu.Matrix(As, dtype=dt, ctx=ctx)
                    xd = gpgpu.asarray(x, ctx=ctx)
                    f = (lambda: M @ xd) if case == "spmv" else (lambda: M @ M)
                    warm(f, fin, args.warmup_ms)
                    gpu = gpgpu_gpu_us(ctx, f, args.runs, args.warmup)
                    wall = wall_us(f, args.runs, args.warmup, fin)
                    recs.append(_record(case, dt, A.nnz, "gpgpu", "device", gpu, wall, **extra))
                    if case == "spmv":
                        recs.append(_record(case, dt, A.nnz, "gpgpu", "numpy", None,
                                            wall_us(lambda: M @ x, args.runs, 1, fin),
                                            **extra))
                    M = xd = f = None
                except (gpgpu.Error, MemoryError) as e:
                    recs.append(_record(case, dt, A.nnz, "gpgpu", "device", None, None,
                                        error=str(e), **extra))
                    log(f"  gpgpu: {type(e).__name__}: {e}")
                ctx.trim()
                if cupy is not None:
                    C = cusparse.csr_matrix(As)
                    cx = cupy.asarray(x)
                    g = (lambda: C @ cx) if case == "spmv" else (lambda: C @ C)
                    warm(g, cupy_sync, args.warmup_ms)
                    recs.append(_record(case, dt, A.nnz, "cupy", "device",
                                        cupy_gpu_us(g, args.runs, args.warmup),
                                        wall_us(g, args.runs, args.warmup, cupy_sync), **extra))
                    if case == "spmv":
                        recs.append(_record(case, dt, A.nnz, "cupy", "numpy", None, wall_us(
                            lambda: cupy.asnumpy(C @ cupy.asarray(x)), args.runs, 1,
                            cupy_sync), **extra))
                    C = cx = g = None
                    cupy.get_default_memory_pool().free_all_blocks()


def run_gemm(ctx, args, recs, deadline):
    fin = ctx.finish
    rng = np.random.default_rng(2)
    for n in args.gemm:
        for dt in (F32, F64):
            if time.monotonic() > deadline:
                log(f"budget spent: skipped matmul {n} {DT[dt]}")
                continue
            log(f"peer: matmul {n} {DT[dt]}")
            a = rng.random((n, n)).astype(dt)
            b = rng.random((n, n)).astype(dt)
            flop = 2.0 * n ** 3
            try:
                da, db = gpgpu.asarray(a, ctx=ctx), gpgpu.asarray(b, ctx=ctx)
                out = gpgpu.empty((n, n), dt, ctx=ctx)
                f = lambda: gpgpu.matmul(da, db, out=out)  # noqa: E731
                warm(f, fin, args.warmup_ms)
                gpu = gpgpu_gpu_us(ctx, f, args.runs, args.warmup)
                wall = wall_us(f, args.runs, args.warmup, fin)
                recs.append(_record("matmul", dt, n, "gpgpu", "device", gpu, wall,
                                    gflops=flop / (gpu or wall) / 1e3))
                recs.append(_record("matmul", dt, n, "gpgpu", "numpy", None,
                                    wall_us(lambda: gpgpu.matmul(a, b, ctx=ctx), 3, 1, fin)))
                da = db = out = f = None
            except (gpgpu.Error, MemoryError) as e:
                recs.append(_record("matmul", dt, n, "gpgpu", "device", None, None,
                                    error=str(e)))
                log(f"  gpgpu: {type(e).__name__}: {e}")
            ctx.trim()
            if cupy is not None:
                ca, cb = cupy.asarray(a), cupy.asarray(b)
                g = lambda: cupy.matmul(ca, cb)  # noqa: E731
                warm(g, cupy_sync, args.warmup_ms)
                gpu = cupy_gpu_us(g, args.runs, args.warmup)
                recs.append(_record("matmul", dt, n, "cupy", "device", gpu,
                                    wall_us(g, args.runs, args.warmup, cupy_sync),
                                    gflops=flop / gpu / 1e3))
                recs.append(_record("matmul", dt, n, "cupy", "numpy", None, wall_us(
                    lambda: cupy.asnumpy(cupy.matmul(cupy.asarray(a), cupy.asarray(b))), 3, 1,
                    cupy_sync)))
                ca = cb = g = None
                cupy.get_default_memory_pool().free_all_blocks()


# ------------------------------------------------------------------------- output


def fmt(v, width=10):
    if v is None:
        return "-".rjust(width)
    return f"{v:{width}.1f}" if isinstance(v, float) else str(v).rjust(width)


def print_tables(recs):
    over = [r for r in recs if r.get("mode") == "overhead"]
    if over:
        print(f"{'call (2^10 elements)':24} {'pkg_us':>10} {'c_us':>10} {'ffi_us':>10} "
              f"{'overhead':>10} {'spread':>10} {'python_us':>10}")
        for r in over:
            print(f"{r['case']:24} {fmt(r['pkg_us'])} {fmt(r['c_us'])} {fmt(r['ffi_us'])} "
                  f"{fmt(r['overhead_us'])} {fmt(r['spread_us'])} {fmt(r['python_us'])}")
    peer = [r for r in recs if r.get("mode") != "overhead"]
    if peer:
        print(f"\n{'case':10} {'dtype':5} {'n':>10} {'matrix':18} {'impl':6} {'io':6} "
              f"{'gpu_us':>10} {'wall_us':>10}  note")
        for r in peer:
            note = r.get("error", "")[:60] or (
                "check FAILED" if r.get("checked") is False else "")
            if "gflops" in r:
                note = f"{r['gflops']:.1f} GFLOP/s"
            print(f"{r['case']:10} {r['dtype']:5} {r['n']:>10} {r.get('matrix', ''):18} "
                  f"{r['impl']:6} {r['io']:6} {fmt(r['gpu_us'])} {fmt(r['wall_us'])}  {note}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=["overhead", "peer", "all"], default="all")
    p.add_argument("--backend", choices=["gl", "vulkan"], default=None)
    p.add_argument("--sizes", default="20,22,24,26,28",
                   help="log2 sizes of sum, cumsum, sort and argsort")
    p.add_argument("--only", default="sum,cumsum,sort,argsort,spmv,spgemm,matmul")
    p.add_argument("--matrix-dir", default=None, help="every *.mtx[.gz] in it")
    p.add_argument("--matrices", default="", help="only these of --matrix-dir (names)")
    p.add_argument("--gen", default="laplace3d_7:128,rmat:20:16",
                   help="generated matrices, kind:size[:avg] as gpgpu.generate takes them")
    p.add_argument("--gemm", default="4096", help="matmul sizes (n x n x n)")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--warmup-ms", type=float, default=300,
                   help="peer: each case runs this long untimed first (0 on llvmpipe)")
    p.add_argument("--calls", type=int, default=200, help="overhead: calls per block")
    p.add_argument("--blocks", type=int, default=30, help="overhead: blocks per call")
    p.add_argument("--budget", type=float, default=480,
                   help="seconds after which no new peer case starts")
    p.add_argument("--json", default=None)
    args = p.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    args.only = set(args.only.split(","))
    args.gen = [g for g in args.gen.split(",") if g]
    args.matrices = {m for m in args.matrices.split(",") if m}
    args.gemm = [int(s) for s in args.gemm.split(",") if s] if "matmul" in args.only else []

    ctx = gpgpu.Context(backend=args.backend)
    info = ctx.info
    device = f"{info['renderer']} ({info['backend']})"
    log(f"gpgpu {gpgpu.__version__} on {device}, library {gpgpu.LIBRARY_PATH}; CuPy: "
        f"{cupy.__version__ if cupy is not None else 'not available'}")
    deadline = time.monotonic() + args.budget
    recs = []
    with ctx:
        if args.mode in ("overhead", "all"):
            recs += run_overhead(ctx, args)
        if args.mode in ("peer", "all"):
            run_vectors(ctx, args, recs, deadline)
            run_sparse(ctx, args, recs, deadline)
            run_gemm(ctx, args, recs, deadline)
    for r in recs:
        r.setdefault("backend", info["backend"])
        r.setdefault("device", device)
    print_tables(recs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(recs, f, indent=1)
    failed = [r for r in recs if r.get("checked") is False]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
