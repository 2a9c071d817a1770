#!/usr/bin/env python3
"""cuSPARSE peer of `gpgpu-bench --only spmv` and `--only spgemm`: times, on the
same MatrixMarket files, in f32 and f64, y = A @ x (--mode spmv, the default)
or C = A @ A (A @ A.T where A is not square; --mode spgemm) with CuPy's
cupyx.scipy.sparse.csr_matrix (cuSPARSE), and writes JSON records that
bench/compare.py --spmv / --spgemm joins with gpgpu-bench's on (matrix, type).

usage: python3 bench/cusparse_peer.py [--mode spmv|spgemm] [--runs R] [--warmup W]
                                      [--types f32,f64] [--json OUT.json]
                                      FILE.mtx[.gz] ...

Generated matrices: write them first with `gpgpu-bench --write-gen DIR --gen
...` and pass DIR/NAME.mtx here; a file's matrix name is its file name without
.mtx[.gz], as in gpgpu-bench, so both sides time the same matrix under the same
name. Files are read with scipy.io.mmread where SciPy has its fast reader
(fast_matrix_market, SciPy 1.12+), else with the reader below (numpy); either
way symmetric files are expanded, pattern entries are 1 and duplicates summed,
as gpgpu_mtx_read_matrix does. Complex and hermitian files are skipped.

SpMV: each (matrix, type) is checked once against a CPU product in double (the
bound gpgpu-bench uses), warmed up, then timed --runs times between CUDA events
(median and minimum), and --runs times more on the host clock, each call
followed by a stream synchronize (latency_us: what one call costs a caller).
GFLOP/s = 2 nnz / time; GB/s counts the CSR arrays (row pointers and column
indices u32, values) + x read + y written.

SpGEMM: `a @ b` for two csr_matrix in canonical form (int32 indices), which
CuPy runs as cusparseSpGEMM (workEstimation, compute, copy; CUSPARSE_SPGEMM_
DEFAULT, ALG2 where the default's memory estimate fails; csrgemm2 on old
CUDA: `path` says which), its buffers and C allocated from CuPy's memory pool.
B = A^T is made once, untimed. Timed as SpMV: whole calls between CUDA events
(the host work between cuSPARSE's phases, and its reads of the sizes, count:
gpgpu-bench times gpgpu_spgemm whole too), median and minimum of --runs after
--warmup; latency_us on the host clock. GFLOP/s = 2 x products / time, products
= sum over A's entries a_ik of the length of B's row k (gpgpu-bench's count).
peak_bytes: the growth of the pool's total_bytes() over one product, measured
after free_all_blocks() with A and B held: the pool keeps every block it got
from cudaMalloc until free_all_blocks, and takes a new one only when no free
block fits, so the growth is the most the product held at once (C and
cuSPARSE's buffers), rounded up by the pool's 512-byte blocks and any
fragmentation; c_bytes: what the pool still holds after it (C). Checked once
where products <= 2^27 and SciPy is there: the structure of C must be the
structural product's (every (i, j) that some a_ik b_kj reaches, zeros kept, as
cuSPARSE keeps them), each value within gamma(kmax+1) x (|A| |B|)_ij of a
SciPy product in double from the values the GPU holds (kmax the most products
an entry sums).

Exit code 1 when a file could not be read or a check failed (the other matrices
still run).
"""
import argparse
import gzip
import json
import os
import statistics
import sys
import time

TYPES = {"f32": "float32", "f64": "float64"}
ULP = {"f32": 2.0 ** -24, "f64": 2.0 ** -53}


class Unsupported(Exception):
    """A file that SpMV and SpGEMM on real values do not take (complex, hermitian)."""


def matrix_name(path):
    name = os.path.basename(path)
    for ext in (".gz", ".mtx"):
        if name.endswith(ext) and len(name) > len(ext):
            name = name[: -len(ext)]
    return name


def read_header(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        words = f.readline().decode("ascii", "replace").lower().split()
    if len(words) < 5 or words[0] != "%%matrixmarket" or words[1] != "matrix":
        raise ValueError(f"{path}: not a MatrixMarket matrix file")
    layout, field, symmetry = words[2], words[3], words[4]
    if field == "complex" or symmetry == "hermitian":
        raise Unsupported(f"{path}: {field} {symmetry} (SpMV and SpGEMM here are on real values)")
    return layout, field, symmetry


def read_own(np, path, layout, field, symmetry):
    """(rows, cols, row, col, value) of a coordinate file, 0-based,
    symmetric entries mirrored (not the diagonal)."""
    if layout != "coordinate":
        raise Unsupported(f"{path}: {layout} files are not read here")
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        line = f.readline()  # the banner, read by read_header
        line = f.readline()
        while line and (line.startswith(b"%") or not line.strip()):
            line = f.readline()
        rows, cols, entries = (int(v) for v in line.split()[:3])
        text = f.read().decode("ascii")
    numbers = np.fromstring(text, dtype=np.float64, sep=" ") if entries else np.zeros(0)
    del text
    # Pattern files carry 2 numbers per entry (some published ones 3: the
    # value is ignored), the others 3.
    per = len(numbers) // entries if entries else 3
    if entries and (len(numbers) % entries or per not in ((2, 3) if field == "pattern" else (3,))):
        raise ValueError(f"{path}: {len(numbers)} numbers for {entries} entries of {field}")
    numbers = numbers.reshape(entries, per)
    row = numbers[:, 0].astype(np.int64) - 1
    col = numbers[:, 1].astype(np.int64) - 1
    value = np.ones(entries) if field == "pattern" else numbers[:, 2].copy()
    del numbers
    if entries and (row.min() < 0 or row.max() >= rows or col.min() < 0 or col.max() >= cols):
        raise ValueError(f"{path}: an index is out of the declared {rows} x {cols}")
    if symmetry in ("symmetric", "skew-symmetric"):
        off = row != col
        sign = -1.0 if symmetry == "skew-symmetric" else 1.0
        row, col = np.concatenate([row, col[off]]), np.concatenate([col, row[off]])
        value = np.concatenate([value, sign * value[off]])
    return rows, cols, row, col, value


def to_csr(np, rows, cols, row, col, value):
    """CSR with sorted columns, duplicates summed (explicit zeros kept)."""
    key = row * cols + col
    unique, inverse = np.unique(key, return_inverse=True)
    data = np.bincount(inverse.ravel(), weights=value, minlength=len(unique))
    row_of = unique // cols if cols else unique
    indptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of, minlength=rows), out=indptr[1:])
    return indptr, (unique % cols if cols else unique), data


def read_scipy(path):
    """scipy.io.mmread when SciPy has the fast reader, else None."""
    try:
        import scipy.io
        import scipy.io._fast_matrix_market  # noqa: F401 (only the fast reader is worth it)
        import scipy.sparse
    except ImportError:
        return None
    m = scipy.sparse.csr_matrix(scipy.io.mmread(path))
    m.sum_duplicates()
    m.sort_indices()
    return m.shape[0], m.shape[1], m.indptr, m.indices, m.data


def read_matrix(np, path):
    """(rows, cols, indptr, indices, data in double, reader name)."""
    layout, field, symmetry = read_header(path)
    if layout == "coordinate":
        got = read_scipy(path)
        if got is not None:
            return got + ("scipy",)
    rows, cols, row, col, value = read_own(np, path, layout, field, symmetry)
    return (rows, cols) + to_csr(np, rows, cols, row, col, value) + ("own",)


def reference(np, indptr, indices, data, x, ulp):
    """y = A x in double from the values the GPU holds, and the check's
    bound per row: 4 (len + 2) ulp of the sum of |a_ij x_j| (gpgpu-bench's)."""
    rows = len(indptr) - 1
    lengths = np.diff(indptr)
    row_of = np.repeat(np.arange(rows), lengths)
    products = data * x[indices]
    y = np.bincount(row_of, weights=products, minlength=rows)
    abs_sum = np.bincount(row_of, weights=np.abs(products), minlength=rows)
    return y, 4.0 * (lengths + 2) * ulp * abs_sum


def prepared_spmv(np, cp, a, x):
    """y = A x by cusparseSpMV with its descriptors and work buffer made once,
    as `a @ x` calls it (cupyx.cusparse.spmv on CUDA 11+) less the Python
    work of each call: between two CUDA events that work would leave the GPU
    idle and count as SpMV time on small matrices. (call, y, path); `a @ x`
    where this CuPy lacks the pieces."""
    try:
        from cupy._core import _dtype
        from cupy.cuda import device
        from cupy_backends.cuda.libs import cusparse as lib
        from cupyx import cusparse

        if not cusparse.check_availability("spmv") or a.nnz == 0:
            raise RuntimeError("no generic SpMV")
        y = cp.zeros(a.shape[0], a.dtype)
        handle = device.get_cusparse_handle()
        op = lib.CUSPARSE_OPERATION_NON_TRANSPOSE
        alpha = np.array(1, a.dtype).ctypes
        beta = np.array(0, a.dtype).ctypes
        desc_a = cusparse.SpMatDescriptor.create(a)
        desc_x = cusparse.DnVecDescriptor.create(x)
        desc_y = cusparse.DnVecDescriptor.create(y)
        cuda_dtype = _dtype.to_cuda_dtype(a.dtype)
        alg = getattr(lib, "CUSPARSE_SPMV_ALG_DEFAULT", getattr(lib, "CUSPARSE_MV_ALG_DEFAULT", 0))
        size = lib.spMV_bufferSize(handle, op, alpha.data, desc_a.desc, desc_x.desc, beta.data,
                                   desc_y.desc, cuda_dtype, alg)
        work = cp.empty(max(size, 1), cp.int8)

        def call():
            # The descriptors and buffers stay alive with this closure.
            lib.spMV(handle, op, alpha.data, desc_a.desc, desc_x.desc, beta.data, desc_y.desc,
                     cuda_dtype, alg, work.data.ptr)
            return y

        call()
        return call, "cusparseSpMV"
    except Exception as e:  # an older or newer CuPy: its own path
        print(f"prepared cusparseSpMV unavailable ({type(e).__name__}: {e}); timing a @ x",
              file=sys.stderr)
        return (lambda: a @ x), "a @ x"


def time_calls(cp, call, runs, warmup):
    """Median and minimum event time (us), median latency (us) of call(); what
    a call returns is dropped after each (a product's C goes back to the pool
    untimed)."""
    stream = cp.cuda.get_current_stream()
    for _ in range(warmup):
        call()
    stream.synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    events = []
    for _ in range(runs):
        start.record(stream)
        result = call()
        end.record(stream)
        end.synchronize()
        del result  # back to the pool, untimed
        events.append(cp.cuda.get_elapsed_time(start, end) * 1e3)
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = call()
        stream.synchronize()
        walls.append((time.perf_counter() - t0) * 1e6)
        del result
    return statistics.median(events), min(events), statistics.median(walls)


def run_type(np, cp, cps, m, type_name, args, device):
    """One record for matrix m in one type, or None when the check failed."""
    rows, cols, indptr, indices, data = m["csr"]
    dtype = np.dtype(TYPES[type_name])
    rng = np.random.default_rng(1)
    x_host = (rng.uniform(0.5, 1.5, cols) * rng.choice([-1.0, 1.0], cols)).astype(dtype)
    data_t = data.astype(dtype)
    a = cps.csr_matrix((cp.asarray(data_t), cp.asarray(indices.astype(np.int32)),
                        cp.asarray(indptr.astype(np.int32))), shape=(rows, cols))
    x = cp.asarray(x_host)
    call, path = prepared_spmv(np, cp, a, x)
    y = cp.asnumpy(call()).astype(np.float64)
    ref, bound = reference(np, indptr, indices, data_t.astype(np.float64),
                           x_host.astype(np.float64), ULP[type_name])
    bad = np.flatnonzero(~(np.abs(y - ref) <= bound))
    if len(bad):
        i = bad[0]
        print(f"CHECK FAILED: {m['name']} {type_name}: y[{i}] = {y[i]!r}, expected {ref[i]!r}"
              f" within {bound[i]:.3g}", file=sys.stderr)
        return None
    median_us, min_us, latency_us = time_calls(cp, call, args.runs, args.warmup)
    nnz = len(data)
    elem = dtype.itemsize
    format_bytes = (rows + 1) * 4 + nnz * (4 + elem)
    moved = format_bytes + (rows + cols) * elem
    return {"case": f"spmv_csr_{type_name}", "matrix": m["name"], "source": "file",
            "rows": rows, "cols": cols, "nnz": nnz, "n": nnz, "format": "csr",
            "algo": "cusparse", "type": type_name, "default": True,
            "median_us": median_us, "min_us": min_us, "wall_us": latency_us,
            "latency_us": latency_us,
            "gflops": 2.0 * nnz / (median_us * 1e3) if median_us > 0 else None,
            "bytes": format_bytes,
            "gbps": moved / (median_us * 1e3) if median_us > 0 else None,
            "check": "ok", "reader": m["reader"], "path": path, "timer": "gpu", "device": device,
            "backend": "cuda"}


SPGEMM_CHECK_MAX_PRODUCTS = 1 << 27  # gpgpu-bench's limit for its CPU reference


def spgemm_path(cp):
    """What `csr @ csr` runs in this CuPy."""
    from cupyx import cusparse
    for name, path in (("spgemm", "cusparseSpGEMM"), ("csrgemm2", "csrgemm2"),
                       ("csrgemm", "csrgemm")):
        if cusparse.check_availability(name):
            return path
    return "unknown"


def spgemm_check(np, a_host, b_host, c, type_name):
    """None when C = A B is right (structure and values, see the module's doc),
    else what is wrong. a_host, b_host: scipy CSR in double of the GPU's values."""
    import scipy.sparse as sp
    c_host = sp.csr_matrix((c.data.get().astype(np.float64), c.indices.get(), c.indptr.get()),
                           shape=c.shape)
    pattern = lambda m: sp.csr_matrix((np.ones(m.nnz), m.indices, m.indptr), shape=m.shape)
    counts = pattern(a_host) @ pattern(b_host)  # products per entry: no cancellation
    counts.sort_indices()
    c_host.sort_indices()
    if c_host.nnz != counts.nnz or not (np.array_equal(c_host.indptr, counts.indptr) and
                                        np.array_equal(c_host.indices, counts.indices)):
        return f"C has {c_host.nnz} entries, the structural product {counts.nnz}"
    u = ULP[type_name]  # unit roundoff: 2^-24, 2^-53
    k1 = (counts.data.max() if counts.nnz else 0) + 1
    bound = (k1 * u / (1 - k1 * u)) * (abs(a_host) @ abs(b_host))
    floor = np.finfo(TYPES[type_name]).tiny
    excess = abs(c_host - a_host @ b_host) - bound
    worst = excess.max() if excess.nnz else 0.0
    return None if worst <= floor else f"a value is off by {worst:.3g} beyond its bound"


def spgemm_memory(cp, call):
    """(peak bytes, C's bytes) of one product by the pool's growth (module doc)."""
    pool = cp.get_default_memory_pool()
    cp.cuda.get_current_stream().synchronize()
    pool.free_all_blocks()
    total, used = pool.total_bytes(), pool.used_bytes()
    c = call()
    cp.cuda.get_current_stream().synchronize()
    peak, c_bytes = pool.total_bytes() - total, pool.used_bytes() - used
    del c
    pool.free_all_blocks()
    return peak, c_bytes


def run_spgemm_type(np, cp, cps, m, type_name, args, device):
    """One record of C = A B (B = A, or A^T for a rectangular A) for matrix m in
    one type, or None when the check failed."""
    rows, cols, indptr, indices, data = m["csr"]
    dtype = np.dtype(TYPES[type_name])
    data_t = data.astype(dtype)
    a = cps.csr_matrix((cp.asarray(data_t), cp.asarray(indices.astype(np.int32)),
                        cp.asarray(indptr.astype(np.int32))), shape=(rows, cols))
    a.sum_duplicates()  # canonical already: sets the flag cuSPARSE's path asks for
    square = rows == cols
    b = a if square else a.T.tocsr()
    b.sum_duplicates()
    # products: sum over A's entries a_ik of the length of B's row k
    b_lengths = np.diff(indptr) if square else np.bincount(indices, minlength=cols)
    products = int(b_lengths[indices].sum())
    call = lambda: a @ b
    c = call()
    nnz_c = int(c.nnz)
    check = "skipped"
    if products <= SPGEMM_CHECK_MAX_PRODUCTS:
        try:
            import scipy.sparse as sp
        except ImportError:
            sp = None
        if sp is not None:
            a_host = sp.csr_matrix((data_t.astype(np.float64), indices, indptr), shape=(rows, cols))
            problem = spgemm_check(np, a_host, a_host if square else a_host.T.tocsr(), c,
                                   type_name)
            if problem:
                print(f"CHECK FAILED: {m['name']} {type_name}: {problem}", file=sys.stderr)
                return None
            check = "ok"
    del c
    peak, c_bytes = spgemm_memory(cp, call)
    median_us, min_us, latency_us = time_calls(cp, call, args.runs, args.warmup)
    return {"case": f"spgemm_{type_name}", "matrix": m["name"], "source": "file",
            "rows": rows, "cols": cols, "nnz": len(data), "b": "A" if square else "At",
            "algo": "cusparse", "type": type_name, "default": True,
            "n": products, "products": products, "nnz_c": nnz_c,
            "median_us": median_us, "min_us": min_us, "wall_us": latency_us,
            "latency_us": latency_us,
            "gflops": 2.0 * products / (median_us * 1e3) if median_us > 0 else None,
            "peak_bytes": peak, "c_bytes": c_bytes, "check": check, "reader": m["reader"],
            "path": spgemm_path(cp), "timer": "gpu", "device": device, "backend": "cuda"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="MatrixMarket files (.mtx or .mtx.gz)")
    parser.add_argument("--mode", choices=("spmv", "spgemm"), default="spmv")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--types", default="f32,f64")
    parser.add_argument("--json", help="write the records here")
    args = parser.parse_args()
    types = [t for t in args.types.split(",") if t]
    if not types or any(t not in TYPES for t in types) or args.runs < 1 or args.warmup < 0:
        parser.error("--types takes f32,f64; --runs at least 1; --warmup at least 0")

    import numpy as np
    import cupy as cp
    import cupyx.scipy.sparse as cps

    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"]
    device = name.decode() if isinstance(name, bytes) else str(name)
    print(f"device: {device}; CuPy {cp.__version__}, CUDA runtime "
          f"{cp.cuda.runtime.runtimeGetVersion()}")
    if args.mode == "spgemm":
        print(f"{'matrix':24} {'B':2} {'type':4} {'products':>12} {'nnz_C':>11} {'median_us':>10} "
              f"{'latency_us':>10} {'GFLOP/s':>9} {'peak_MB':>9} check")
    else:
        print(f"{'matrix':24} {'type':4} {'nnz':>10} {'median_us':>10} {'latency_us':>10} "
              f"{'GFLOP/s':>9} {'GB/s':>9} reader")
    records, failed = [], False
    for path in args.files:
        try:
            t0 = time.perf_counter()
            *csr, reader = read_matrix(np, path)
            m = {"name": matrix_name(path), "csr": csr, "reader": reader}
            print(f"{path}: read in {time.perf_counter() - t0:.1f} s ({reader})", file=sys.stderr)
            for type_name in types:
                run = run_spgemm_type if args.mode == "spgemm" else run_type
                r = run(np, cp, cps, m, type_name, args, device)
                if r is None:
                    failed = True
                    continue
                records.append(r)
                if args.mode == "spgemm":
                    print(f"{r['matrix']:24} {r['b']:2} {type_name:4} {r['products']:>12} "
                          f"{r['nnz_c']:>11} {r['median_us']:>10.2f} {r['latency_us']:>10.2f} "
                          f"{r['gflops'] or 0:>9.4g} {r['peak_bytes'] / 1e6:>9.4g} {r['check']}",
                          flush=True)
                else:
                    print(f"{r['matrix']:24} {type_name:4} {r['nnz']:>10} {r['median_us']:>10.2f} "
                          f"{r['latency_us']:>10.2f} {r['gflops'] or 0:>9.4g} "
                          f"{r['gbps'] or 0:>9.4g} {reader}", flush=True)
        except Unsupported as e:
            print(f"# skipped: {e}", flush=True)
        except Exception as e:  # one bad file must not lose the others' results
            print(f"{path}: {type(e).__name__}: {e}", file=sys.stderr)
            failed = True
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1)
            f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
