#!/usr/bin/env python3
"""Joins gpgpu-bench and cub_peer JSON results from one run into tables.

usage: compare.py GPGPU.json CUB.json [OUT.md]
       compare.py --sort CUB.json OUT.md BACKEND=GPGPU.json [BACKEND=GPGPU.json ...]
       compare.py --spmv CUSPARSE.json OUT.md BACKEND=GPGPU.json [BACKEND=GPGPU.json ...]
       compare.py --spgemm CUSPARSE.json OUT.md BACKEND=GPGPU.json [BACKEND=GPGPU.json ...]
       compare.py --gemm CUBLAS.json OUT.md BACKEND=GPGPU.json [BACKEND=GPGPU.json ...]

The first form prints, for every gpgpu-bench record, the CUB time on the same
case and size and the ratio CUB time / our time (above 1: we are faster), next
to each one's bandwidth and the copy ceilings both measured, and our ratio to
a copy (see gpgpu-bench --help: for reduce and scan against the big copy's
bandwidth, for sort a copy of the same bytes timed in the same process).

The second form prints the sort summary over backends and algorithms: small
sorts' time per call (GPU and wall, against CUB's), the ratio to a copy of the
same bytes, and last, throughput in Gkeys/s (pairs/s for sort_pairs_u32) with
the ratio to CUB's DeviceRadixSort on the same data.

The third form joins gpgpu-bench --only spmv records with bench/cusparse_peer.py's
on (matrix, type) and prints the summary: the default CSR path (what
GPGPU_ALGO_DEFAULT runs: the records marked "default") against cuSPARSE as the
geometric mean of GFLOP/s ratios over the generated matrices and over the
files (real matrices), per backend and type; the same for every format and
algorithm and for the best of them per matrix; the autotuner's gain over the
heuristic's shape; and the generated matrices' rows. OUT.md gets all of it and
then every row (GFLOP/s and x cuSPARSE, GB/s and x copy, Radomski's k over
the default CSR path's k) of every matrix.

The fourth form joins gpgpu-bench --only spgemm records with
bench/cusparse_peer.py --mode spgemm's on (matrix, type) (a matrix whose
products or nnz(C) differ from the peer's is left out and named) and prints
the geometric mean of GFLOP/s ratios (ours / cuSPARSE) over the real matrices
(files) and over the large generated ones (at least 2^24 products), per
backend and type: for the default algorithm (rows), every algorithm, and the
best of ours per matrix; the geometric mean of peak GPU memory over
cuSPARSE's, per algorithm; then the generated matrices' rows: products,
nnz(C), cuSPARSE's GFLOP/s and peak MB, per backend and algorithm GFLOP/s and
peak MB with their ratios to cuSPARSE's, and for rows the time of a copy of
A's, B's and C's bytes over the product's (x copy). OUT.md adds every file's
rows.

Every input is either gpgpu-bench's JSON (google-benchmark's shape: a "context" and a
"benchmarks" array, times in ns) or a CUDA peer's flat array of records (times in us);
load_records reads both into the peers' flat records, which the tables use.

The fifth form joins gpgpu-bench --only gemm records with bench/cublas_peer.py's
on (type, n) and prints, per type, the lab report's table: a row per backend,
method, tile and outputs, a column per size, GFLOP/s in each cell with the CGMA
of the method; then cuBLAS's GFLOP/s (SGEMM, DGEMM; HGEMM f16 where the peer ran
it) and, per backend, the fast method's ratio to cuBLAS.
"""
import json
import math
import sys

SORT_CASES = ["sort_keys_u32", "sort_keys_f32", "sort_pairs_u32"]
SORT_ALGOS = ["netsort", "bitonic", "radix"]
SMALL_MAX = 1 << 14  # "small sorts": time per call matters more than throughput


# google-benchmark's time units, in us
TIME_UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
# gpgpu-bench's time fields (in the record's time_unit) and the flat records' names (in us)
TIMES = {"gpu_time": "median_us", "min_time": "min_us", "wall_time": "wall_us",
         "latency_time": "latency_us", "copy_time": "copy_us", "tuner_time": "tuner_us",
         "tuner_heuristic_time": "tuner_heuristic_us"}
# its rates per second and the flat records' names (per ns: GB/s, G/s, GFLOP/s)
RATES = {"bytes_per_second": "gbps", "items_per_second": "gkeys_per_s",
         "flops_per_second": "gflops"}


def load_records(path):
    """The records of one JSON file as flat dicts with times in us (median_us, min_us,
    wall_us, ...) and rates per ns (gbps, gkeys_per_s, gflops), whichever shape it has;
    google-benchmark's records keep their own fields too and take the context's device."""
    data = json.load(open(path))
    if isinstance(data, list):  # a CUDA peer's records (or an older gpgpu-bench's)
        return data
    ctx = data.get("context", {})
    device = ", ".join(v for v in (ctx.get("device"), ctx.get("driver")) if v) or "?"
    out = []
    for b in data.get("benchmarks", []):
        r = dict(b)
        scale = TIME_UNITS.get(b.get("time_unit", "ns"), 1e-3)
        if "gpu_time" not in b and "real_time" in b:  # a record of another tool
            r["gpu_time"] = b["real_time"]
        for key, flat in TIMES.items():
            if r.get(key) is not None:
                r[flat] = r[key] * scale
        for key, flat in RATES.items():
            if b.get(key) is not None:
                r[flat] = b[key] / 1e9
        r.setdefault("device", device)
        r.setdefault("backend", ctx.get("backend"))
        r.setdefault("timer", ctx.get("timer", "gpu"))
        r.setdefault("copy_gbps", ctx.get("copy_gbps"))
        r.setdefault("date", ctx.get("date"))
        out.append(r)
    return out


def log2(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def per_backend(ours_path, cub_path, out_path):
    ours = load_records(ours_path)
    # Reduce and scan by size as they ran, then the sorts by size (stable).
    ours.sort(key=lambda r: (r["case"] in SORT_CASES, r["n"] if r["case"] != "copy_d2d_u32" else 0))
    cub = {(r["case"], r["n"]): r for r in load_records(cub_path)}
    cub_copy = max((r["gbps"] for r in cub.values() if r["case"].startswith("copy")), default=0)
    device = ours[0]["device"] if ours else "?"
    lines = [f"device: {device}; CUB device: {next(iter(cub.values()))['device'] if cub else '?'}",
             f"copy ceiling: ours {max((r['copy_gbps'] or 0 for r in ours), default=0):.0f} GB/s, "
             f"CUDA {cub_copy:.0f} GB/s",
             "",
             "| case | algo | n | ours us | ours wall us | ours GB/s | CUB us | CUB GB/s | vs CUB "
             "| Gkeys/s | x copy |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in ours:
        if r["case"] == "copy_d2d_u32":  # each process's ceiling; copy_u32 is per size
            continue
        peer = cub.get(("copy_d2d_u32" if r["case"] == "copy_u32" else r["case"], r["n"]))
        us = r["median_us"] if r.get("timer") != "wall" else r["wall_us"]
        cub_us = f"{peer['median_us']:.1f}" if peer else "-"
        cub_gbps = f"{peer['gbps']:.0f}" if peer else "-"
        ratio = f"{peer['median_us'] / us:.2f}x" if peer and us else "-"
        lines.append(f"| {r['case']} | {r['algo']} | {log2(r['n'])} | "
                     f"{fmt(r['median_us'], '.1f')} | {fmt(r.get('wall_us'), '.1f')} | "
                     f"{fmt(r['gbps'], '.0f')} | {cub_us} | {cub_gbps} | {ratio} | "
                     f"{fmt(r.get('gkeys_per_s'), '.3f')} | {fmt(r.get('ratio_to_copy'), '.2f')} |")
    return "\n".join(lines)


def sort_summary(cub_path, runs):
    cub = {(r["case"], r["n"]): r for r in load_records(cub_path)}
    ours = {}  # (backend, case, algo, n) -> record
    for be, path in runs:
        for r in load_records(path):
            if r["case"] in SORT_CASES:
                ours[(be, r["case"], r["algo"], r["n"])] = r
    backends = [be for be, _ in runs]
    cols = [(be, a) for be in backends for a in SORT_ALGOS
            if any(k[0] == be and k[2] == a for k in ours)]
    keys = sorted({(c, n) for (_, c, _, n) in ours} |
                  {(c, n) for (c, n) in cub if c in SORT_CASES},
                  key=lambda k: (SORT_CASES.index(k[0]), k[1]))
    head = " | ".join(f"{be} {a}" for be, a in cols)
    sep = "|---|---:|---:|" + "---:|" * len(cols)
    wall_timer = sorted({be for (be, *_), r in ours.items() if r.get("timer") == "wall"})
    out = []
    if wall_timer:
        out.append(f"({', '.join(wall_timer)}: the GPU timer misses the work there, "
                   "rates come from the wall clock)")
        out.append("")

    out += ["Small sorts, time per call: GPU us / wall us (CUB: event us / launch+sync us)",
            "", f"| case | n | CUB | {head} |", sep]
    for c, n in keys:
        if n > SMALL_MAX:
            continue
        p = cub.get((c, n))
        row = [c, log2(n), f"{p['median_us']:.1f} / {fmt(p.get('wall_us'), '.1f')}" if p else "-"]
        for be, a in cols:
            r = ours.get((be, c, a, n))
            row.append(f"{fmt(r['median_us'], '.1f')} / {fmt(r.get('wall_us'), '.1f')}" if r else "-")
        out.append("| " + " | ".join(row) + " |")

    out += ["", "Ratio to a copy of the same bytes (keys, + values for pairs) timed in the "
            "same process (CUB: its copy_d2d_u32 of those bytes)", "",
            f"| case | n | CUB | {head} |", sep]
    for c, n in keys:
        p = cub.get((c, n))
        words = 2 * n if c == "sort_pairs_u32" else n
        pc = cub.get(("copy_d2d_u32", words))
        row = [c, log2(n), f"{pc['median_us'] / p['median_us']:.3f}" if p and pc else "-"]
        for be, a in cols:
            r = ours.get((be, c, a, n))
            row.append(fmt(r.get("ratio_to_copy"), ".3f") if r else "-")
        out.append("| " + " | ".join(row) + " |")

    out += ["", "Sort throughput: Gkeys/s (pairs/s for sort_pairs_u32) and ratio to CUB "
            "DeviceRadixSort (SortKeys / SortPairs) on the same data", "",
            f"| case | n | CUB | {head} |", sep]
    for c, n in keys:
        p = cub.get((c, n))
        cub_g = p.get("gkeys_per_s") if p else None
        if p and cub_g is None and p["median_us"]:
            cub_g = n / p["median_us"] / 1e3
        row = [c, log2(n), fmt(cub_g, ".3f")]
        for be, a in cols:
            r = ours.get((be, c, a, n))
            g = r.get("gkeys_per_s") if r else None
            if g is None:
                row.append("-")
            elif cub_g:
                row.append(f"{g:.3f} ({g / cub_g:.2f}x)")
            else:
                row.append(f"{g:.3f}")
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def spmv_records(path):
    return [r for r in load_records(path) if r.get("case", "").startswith("spmv_")]


def spmv_summary(peer_path, runs):
    """(summary text, full text) of the SpMV comparison."""
    peer = {(r["matrix"], r["type"]): r for r in spmv_records(peer_path)}
    ours = {}  # (backend, matrix, format, algo, type) -> record
    by_matrix = {}  # (backend, matrix, type) -> its records
    for be, path in runs:
        for r in spmv_records(path):
            ours[(be, r["matrix"], r["format"], r["algo"], r["type"])] = r
            by_matrix.setdefault((be, r["matrix"], r["type"]), []).append(r)
    backends = sorted((be for be, _ in runs), key=lambda be: be != "vulkan")  # Vulkan first
    types = [t for t in ("f32", "f64") if any(k[4] == t for k in ours)]
    mismatch = sorted({m for (_, m, _, _, t), r in ours.items()
                       if (m, t) in peer and peer[(m, t)]["nnz"] != r["nnz"]})
    gen = {k[1]: r["source"] == "gen" for k, r in ours.items()}
    groups = [("generated", True), ("real (files)", False)]

    def vs_peer(r):
        p = peer.get((r["matrix"], r["type"]))
        if not p or r["matrix"] in mismatch or not p.get("gflops") or not r.get("gflops"):
            return None
        return r["gflops"] / p["gflops"]

    def default_csr(be, m, t):
        return next((r for r in by_matrix.get((be, m, t), [])
                     if r["format"] == "csr" and r.get("default")), None)

    def cell(ratios):
        g = geomean(ratios)
        return f"{g:.3g}x (n={len([v for v in ratios if v])})" if g else "-"

    out = ["SpMV: ours vs cuSPARSE (cusparseSpMV via CuPy), GFLOP/s ratio: above 1 we are faster"]
    if mismatch:
        out.append(f"(left out: nnz differs from the peer's for {', '.join(mismatch)})")
    walls = sorted({be for (be, *_), r in ours.items() if r.get("timer") == "wall"})
    if walls:
        out.append(f"({', '.join(walls)}: the GPU timer misses the work, rates from the wall clock)")
    for be in backends:
        copy = max((r.get("copy_gbps") or 0 for k, r in ours.items() if k[0] == be), default=0)
        out.append(f"{be}: {next((r['device'] for k, r in ours.items() if k[0] == be), '?')}, "
                   f"copy ceiling {copy:.0f} GB/s")
    cuda = next(iter(peer.values()), None)
    out.append(f"cuSPARSE: {cuda['device'] if cuda else 'no results'}")

    out += ["", "Default CSR path (GPGPU_ALGO_DEFAULT: csr balanced) vs cuSPARSE, geometric mean "
            "of GFLOP/s ratios", "",
            "| matrices | type | " + " | ".join(backends) + " |",
            "|---|---|" + "---:|" * len(backends)]
    for label, is_gen in groups:
        for t in types:
            row = [label, t]
            for be in backends:
                row.append(cell([vs_peer(default_csr(be, m, t)) for m in sorted(gen)
                                 if gen[m] == is_gen and default_csr(be, m, t)]))
            out.append("| " + " | ".join(row) + " |")

    combos = sorted({(k[2], k[3]) for k in ours},
                    key=lambda c: ("csr coo csc ell sell bsr".split().index(c[0])
                                   if c[0] in "csr coo csc ell sell bsr".split() else 9, c[1]))
    out += ["", "Every format and algorithm vs cuSPARSE (geometric mean; best: the fastest of "
            "ours per matrix)", "",
            "| format | algo | type | " + " | ".join(f"{be} {label}" for be in backends
                                                      for label, _ in groups) + " |",
            "|---|---|---|" + "---:|" * (len(backends) * len(groups))]
    for fmt_, algo in combos + [("best", "")]:
        for t in types:
            row = [fmt_, algo, t]
            for be in backends:
                for _, is_gen in groups:
                    ratios = []
                    for m in sorted(gen):
                        if gen[m] != is_gen:
                            continue
                        rs = [r for r in by_matrix.get((be, m, t), [])
                              if fmt_ == "best" or (r["format"], r["algo"]) == (fmt_, algo)]
                        best = max(rs, key=lambda r: r.get("gflops") or 0, default=None)
                        ratios.append(vs_peer(best) if best else None)
                    row.append(cell(ratios))
            out.append("| " + " | ".join(row) + " |")

    out += ["", "Autotuner: vector kernel, tuned shape's time over the heuristic's "
            "(geometric mean of the gain, largest gain)", "",
            "| type | " + " | ".join(backends) + " |", "|---|" + "---:|" * len(backends)]
    for t in types:
        row = [t]
        for be in backends:
            gains = [r.get("gain_vs_heuristic") for k, r in ours.items()
                     if k[0] == be and k[4] == t and k[3] == "vector_tuned"]
            g = geomean(gains)
            row.append(f"{g:.3f}x, max {max(v for v in gains if v):.2f}x (n={len(gains)})"
                       if g else "-")
        out.append("| " + " | ".join(row) + " |")

    def table(matrices):
        lines = ["| matrix | format | algo | type | shape | MB | cuSPARSE GFLOP/s | "
                 + " | ".join(f"{be} GFLOP/s (x cuSPARSE) | {be} GB/s (x copy) | {be} k/k_csr"
                              for be in backends) + " |",
                 "|---|---|---|---|---|---:|---:|" + "---:|" * (3 * len(backends))]
        for m in matrices:
            for t in types:
                p = peer.get((m, t))
                for fmt_, algo in combos:
                    rs = [ours.get((be, m, fmt_, algo, t)) for be in backends]
                    first = next((r for r in rs if r), None)
                    if not first:
                        continue
                    shape = (f"{first['threads_per_row']}x{first['rows_per_group']}"
                             if "threads_per_row" in first else "")
                    row = [m, fmt_, algo, t, shape, fmt(first["bytes"] / 1e6, ".4g"),
                           fmt(p.get("gflops") if p else None, ".4g")]
                    for be, r in zip(backends, rs):
                        if not r:
                            row += ["-", "-", "-"]
                            continue
                        v, base = vs_peer(r), default_csr(be, m, t)
                        row.append(f"{fmt(r['gflops'], '.4g')}" + (f" ({v:.3g}x)" if v else ""))
                        row.append(f"{fmt(r['gbps'], '.4g')} ({fmt(r['ratio_to_copy'], '.3f')})")
                        row.append(fmt(r["k_per_s_gb"] / base["k_per_s_gb"]
                                       if base and base.get("k_per_s_gb") and r.get("k_per_s_gb")
                                       else None, ".3f"))
                    lines.append("| " + " | ".join(row) + " |")
        return lines

    out += ["", "Generated matrices", ""] + table(sorted(m for m in gen if gen[m]))
    full = ["", "Every matrix", ""] + table(sorted(m for m in gen if not gen[m]))
    return "\n".join(out), "\n".join(full)


SPGEMM_ALGOS = ["rows", "esc", "classic"]
SPGEMM_LARGE = 1 << 24  # products: a generated matrix counts as large from here


def spgemm_records(path):
    return [r for r in load_records(path) if r.get("case", "").startswith("spgemm_")]


def spgemm_summary(peer_path, runs):
    """(summary text, full text) of the SpGEMM comparison."""
    peer = {(r["matrix"], r["type"]): r for r in spgemm_records(peer_path)}
    ours = {}  # (backend, matrix, algo, type) -> record
    for be, path in runs:
        for r in spgemm_records(path):
            ours[(be, r["matrix"], r["algo"], r["type"])] = r
    backends = sorted((be for be, _ in runs), key=lambda be: be != "vulkan")  # Vulkan first
    types = [t for t in ("f32", "f64") if any(k[3] == t for k in ours)]
    algos = [a for a in SPGEMM_ALGOS if any(k[2] == a for k in ours)]
    mismatch = sorted({m for (_, m, _, t), r in ours.items() if (m, t) in peer and
                       (peer[(m, t)]["products"], peer[(m, t)]["nnz_c"]) !=
                       (r["products"], r["nnz_c"])})
    first = {}  # matrix -> one of our records (source, products, shape)
    for (_, m, _, _), r in ours.items():
        first.setdefault(m, r)
    groups = [("generated, >= 2^24 products",
               lambda m: first[m]["source"] == "gen" and first[m]["products"] >= SPGEMM_LARGE),
              ("real (files)", lambda m: first[m]["source"] != "gen")]

    def vs_peer(r, key="gflops"):
        p = peer.get((r["matrix"], r["type"])) if r else None
        if not p or r["matrix"] in mismatch or not p.get(key) or not r.get(key):
            return None
        return r[key] / p[key]

    def cell(ratios, digits=".3g"):
        g = geomean(ratios)
        return f"{g:{digits}}x (n={len([v for v in ratios if v])})" if g else "-"

    def best(be, m, t):
        rs = [ours.get((be, m, a, t)) for a in algos]
        return max((r for r in rs if r), key=lambda r: r.get("gflops") or 0, default=None)

    out = ["SpGEMM: ours vs cuSPARSE (cusparseSpGEMM via CuPy), C = A*A (A*A^T for a "
           "rectangular A), GFLOP/s = 2 x products / time: above 1 we are faster"]
    if mismatch:
        out.append(f"(left out: products or nnz(C) differ from the peer's for "
                   f"{', '.join(mismatch)})")
    walls = sorted({be for (be, *_), r in ours.items() if r.get("timer") == "wall"})
    if walls:
        out.append(f"({', '.join(walls)}: the GPU timer misses the work, rates from the wall clock)")
    for be in backends:
        copy = max((r.get("copy_gbps") or 0 for k, r in ours.items() if k[0] == be), default=0)
        out.append(f"{be}: {next((r['device'] for k, r in ours.items() if k[0] == be), '?')}, "
                   f"copy ceiling {copy:.0f} GB/s")
    cuda = next(iter(peer.values()), None)
    out.append(f"cuSPARSE: {cuda['device'] + ' (' + cuda.get('path', '?') + ')' if cuda else 'no results'}")

    out += ["", "GFLOP/s vs cuSPARSE, geometric mean (best: the fastest of ours per matrix)", "",
            "| algo | type | " + " | ".join(f"{be} {label}" for be in backends
                                           for label, _ in groups) + " |",
            "|---|---|" + "---:|" * (len(backends) * len(groups))]
    for algo in algos + ["best"]:
        for t in types:
            row = [algo + (" (default)" if algo == "rows" else ""), t]
            for be in backends:
                for _, member in groups:
                    rs = [best(be, m, t) if algo == "best" else ours.get((be, m, algo, t))
                          for m in sorted(first) if member(m)]
                    row.append(cell([vs_peer(r) for r in rs if r]))
            out.append("| " + " | ".join(row) + " |")

    def ratio_table(title, ratio):
        """A geometric-mean table of ratio(record) per algo, type, backend and group."""
        lines = ["", title, "", "| algo | type | " + " | ".join(
            f"{be} {label}" for be in backends for label, _ in groups) + " |",
                 "|---|---|" + "---:|" * (len(backends) * len(groups))]
        for algo in algos:
            for t in types:
                row = [algo, t]
                for be in backends:
                    for _, member in groups:
                        row.append(cell([ratio(ours.get((be, m, algo, t)))
                                         for m in sorted(first) if member(m)]))
                lines.append("| " + " | ".join(row) + " |")
        return lines

    out += ratio_table("Peak GPU memory of a product over cuSPARSE's (ours: gpgpu_spgemm_stats."
                       "peak_bytes; cuSPARSE: the CuPy pool's growth), geometric mean: below 1 "
                       "we take less", lambda r: vs_peer(r, "peak_bytes"))

    def table(matrices):
        lines = ["| matrix | B | type | products | nnz(C) | cuSPARSE GFLOP/s / peak MB | "
                 + " | ".join(f"{be} {a}: GFLOP/s (x cuSPARSE) / peak MB (x)" if a else
                              f"{be} rows x copy" for be in backends for a in algos + [None])
                 + " |",
                 "|---|---|---|---:|---:|---:|" + "---:|" * ((len(algos) + 1) * len(backends))]
        for m in matrices:
            for t in types:
                base = next((r for r in (ours.get((be, m, a, t)) for be in backends
                                         for a in algos) if r), None)
                if not base:
                    continue
                p = peer.get((m, t))
                row = [m, base.get("b", ""), t, str(base["products"]), str(base["nnz_c"]),
                       f"{fmt(p.get('gflops'), '.4g')} / {fmt(p.get('peak_bytes', 0) / 1e6, '.4g')}"
                       if p else "-"]
                for be in backends:
                    for a in algos:
                        r = ours.get((be, m, a, t))
                        if not r:
                            row.append("-")
                            continue
                        v, mem = vs_peer(r), vs_peer(r, "peak_bytes")
                        row.append(fmt(r.get("gflops"), ".4g") + (f" ({v:.3g}x)" if v else "")
                                   + " / " + fmt(r.get("peak_bytes", 0) / 1e6, ".4g")
                                   + (f" ({mem:.3g}x)" if mem else ""))
                    r = ours.get((be, m, "rows", t))
                    row.append(fmt(r.get("ratio_to_copy") if r else None, ".3f"))
                lines.append("| " + " | ".join(row) + " |")
        return lines

    # What a caller waits for: our wall clock around gpgpu_spgemm (allocations of the
    # temporaries and of C included) against the peer's call followed by a synchronize.
    def vs_latency(r):
        p = peer.get((r["matrix"], r["type"])) if r else None
        if not p or r["matrix"] in mismatch or not p.get("latency_us") or not r.get("wall_us"):
            return None
        return p["latency_us"] / r["wall_us"]

    out += ratio_table("Wall time of a call over cuSPARSE's (its call and a stream synchronize, "
                       "host clock), geometric mean of cuSPARSE's time / ours: above 1 we are "
                       "faster", vs_latency)

    out += ["", "Generated matrices", ""] + table(sorted(m for m in first
                                                         if first[m]["source"] == "gen"))
    full = ["", "Every file", ""] + table(sorted(m for m in first if first[m]["source"] != "gen"))
    return "\n".join(out), "\n".join(full)


def gemm_summary(peer_path, runs):
    """The dense product tables (text)."""
    peer = {(r["case"][len("gemm_"):], r["n"]): r for r in load_records(peer_path)
            if r.get("case", "").startswith("gemm_")}
    ours = []
    for be, path in runs:
        ours += [dict(r, backend=be) for r in load_records(path)
                 if r.get("case", "").startswith("gemm_")]
    out = []
    for t in ("f32", "f64"):
        rows = [r for r in ours if r["type"] == t]
        if not rows:
            continue
        sizes = sorted({r["n"] for r in rows})
        keys = []
        for r in rows:
            k = (r["backend"], r["algo"], r["tile"], r["outputs"])
            if k not in keys:
                keys.append(k)
        by = {(r["backend"], r["algo"], r["tile"], r["outputs"], r["n"]): r for r in rows}
        out.append(f"\n### {t}: GFLOP/s (CGMA)\n")
        out.append("| backend | method | tile | outputs | " + " | ".join(str(n) for n in sizes) + " |")
        out.append("|---|---|---|---|" + "---:|" * len(sizes))
        for k in keys:
            cells = []
            for n in sizes:
                r = by.get(k + (n,))
                cells.append(f"{r['gflops']:.1f} ({fmt(r.get('cgma'), '.3g')})" if r and r.get("gflops")
                             else "-")
            label = [k[0], k[1], str(k[2] or "-"), str(k[3] or "-")]
            if k[1] == "fast":
                blocks = {by[k + (n,)].get("block") for n in sizes if k + (n,) in by}
                label[2] = "/".join(sorted(b for b in blocks if b)) or "-"
            out.append("| " + " | ".join(label) + " | " + " | ".join(cells) + " |")
        peer_t = "f32" if t == "f32" else "f64"
        out.append("| cuBLAS | " + ("SGEMM" if t == "f32" else "DGEMM") + " | | | " +
                   " | ".join(f"{peer[(peer_t, n)]['gflops']:.1f}" if (peer_t, n) in peer else "-"
                              for n in sizes) + " |")
        for be in sorted({k[0] for k in keys}, key=lambda b: b != "vulkan"):
            k = (be, "fast", 0, 0)
            cells = []
            for n in sizes:
                r, p = by.get(k + (n,)), peer.get((peer_t, n))
                cells.append(f"{r['gflops'] / p['gflops']:.2f}x" if r and p and r.get("gflops") else "-")
            out.append(f"| {be} | fast / cuBLAS | | | " + " | ".join(cells) + " |")
    if any(t == "f16" for t, _ in peer):
        sizes = sorted(n for t, n in peer if t == "f16")
        out.append("\ncuBLAS f16 inputs, f32 accumulation (HGEMM), GFLOP/s: " +
                   ", ".join(f"{n}: {peer[('f16', n)]['gflops']:.0f}" for n in sizes))
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    if args and args[0] == "--gemm":
        if len(args) < 4:
            sys.exit(__doc__)
        text = gemm_summary(args[1], [tuple(a.split("=", 1)) for a in args[3:]])
        print(text)
        with open(args[2], "w") as f:
            f.write(text + "\n")
        return
    if args and args[0] in ("--spmv", "--spgemm"):
        if len(args) < 4:
            sys.exit(__doc__)
        summary = spmv_summary if args[0] == "--spmv" else spgemm_summary
        text, full = summary(args[1], [tuple(a.split("=", 1)) for a in args[3:]])
        print(text)
        with open(args[2], "w") as f:
            f.write(text + "\n" + full + "\n")
        return
    if args and args[0] == "--sort":
        if len(args) < 4:
            sys.exit(__doc__)
        runs = [tuple(a.split("=", 1)) for a in args[3:]]
        text = sort_summary(args[1], runs)
        out_path = args[2]
    else:
        if len(args) < 2:
            sys.exit(__doc__)
        text = per_backend(args[0], args[1], args[2] if len(args) > 2 else None)
        out_path = args[2] if len(args) > 2 else None
    print(text)
    if out_path:
        with open(out_path, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
