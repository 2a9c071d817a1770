#!/usr/bin/env python3
"""Charts of the measured results: bench/results/*.json (or the files given) into one PNG
per family (reduce, scan, sort, spmv, spgemm, gemm) in OUT_DIR (default docs/img).

usage: /usr/bin/python3 bench/plot.py [OUT_DIR] [--family F,...] [RESULTS.json ...]

Needs matplotlib (Debian: python3-matplotlib, run with /usr/bin/python3). The files are
gpgpu-bench's JSON (google-benchmark's shape) or a CUDA peer's records (bench/compare.py's
load_records reads both); a peer's records carry backend "cuda". Where several files hold
the same case on the same device and backend, the latest date wins, so the charts show the
current figures; each family is drawn for the device of its latest results beside a peer
(else of its latest results). The rates:
reduce and scan in GB/s (bytes read + written), sorts in Gkeys/s, sparse products as our
speed over cuSPARSE's, dense products in GFLOP/s; sizes on log2 axes and rates on log axes
wherever they span decades, ratios to the peer beside them ("x peer": the peer's time over
ours, above 1 we are faster). docs/PERFORMANCE.md shows them.
"""
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import load_records  # noqa: E402

FAMILIES = ["reduce", "scan", "sort", "spmv", "spgemm", "gemm"]
COLORS = {"vulkan": "tab:red", "gl": "tab:blue", "cuda": "black"}
# CUB has no inclusive f32 scan case of its own: ours is drawn against its exclusive one
PEER_CASE = {"scan_inclusive_f32": "scan_exclusive_f32"}


def family(r):
    case = r.get("case", "")
    return case.split("_")[0]


def current(paths):
    """The latest record for every (device, backend, name), with its family."""
    latest = {}
    for path in paths:
        for r in load_records(path):
            key = (r.get("device"), r.get("backend"), r.get("name") or
                   f"{r['case']}/{r.get('algo')}/{r.get('matrix', r.get('n'))}")
            if key not in latest or (r.get("date") or "") >= (latest[key].get("date") or ""):
                latest[key] = r
    return list(latest.values())


def of_device(records, fam):
    """The family's records on the device of its latest results, and that device."""
    mine = [r for r in records if family(r) == fam]
    if not mine:
        return [], None
    # the device of the latest results beside a peer (the CUDA libraries' run on the same
    # GPU), else of the latest results
    peered = [r for r in mine if r.get("backend") == "cuda"] or mine
    device = max(peered, key=lambda r: r.get("date") or "")["device"]
    return [r for r in mine if r["device"] == device], device


def pick(records, backend, case, algo):
    rs = [r for r in records if r.get("backend") == backend and r.get("case") == case
          and r.get("algo") == algo]
    return sorted(rs, key=lambda r: r["n"])


def us(r):
    """The time rates come from: the GPU timer's, or the wall clock where it misses the work."""
    return r.get("wall_us") if r.get("timer") == "wall" else r["median_us"]


def log2_axis(ax):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"$2^{{{int(round(v).bit_length() - 1)}}}$"
                                               if v >= 1 else ""))


def dates(records):
    ds = sorted({r["date"][:10] for r in records if r.get("date")})
    return ds[0] if len(ds) == 1 else f"{ds[0]} to {ds[-1]}"


def finish(fig, records, device, fam, out_dir):
    fig.suptitle(f"{fam}: {device}, {dates(records)}", fontsize=11)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{fam}.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def ratio_axis(ax, peer):
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_ylabel(f"x {peer} ({peer}'s time / ours)")
    ax.grid(True, alpha=0.3)


def stream_chart(records, device, fam, cases, out_dir):
    """Throughput against n and the ratio to the peer, one line per backend and case."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    rate, unit = ("gkeys_per_s", "Gkeys/s (pairs/s for pairs)") if fam == "sort" else \
        ("gbps", "GB/s (bytes read + written)")
    styles = ["o-", "s--", "^:"]
    for (case, algo), style in zip(cases, styles):
        label = case.split("_", 1)[1].replace("_", " ")
        for be in ("vulkan", "gl"):
            rs = pick(records, be, case, algo)
            if rs:
                left.plot([r["n"] for r in rs], [r[rate] for r in rs], style, color=COLORS[be],
                          label=f"{be} {label}", ms=4)
            peer = {r["n"]: r for r in pick(records, "cuda", PEER_CASE.get(case, case), "cub")}
            both = [r for r in rs if r["n"] in peer]
            if both:
                right.plot([r["n"] for r in both],
                           [us(peer[r["n"]]) / us(r) for r in both], style,
                           color=COLORS[be], label=f"{be} {label}", ms=4)
        peer = pick(records, "cuda", case, "cub")
        if peer:
            left.plot([r["n"] for r in peer], [r[rate] for r in peer], style, color="black",
                      label=f"CUB {label}", ms=3, alpha=0.7)
    if fam != "sort":
        for be in ("vulkan", "gl"):
            ceiling = next((r["copy_gbps"] for r in records if r.get("backend") == be
                            and r.get("copy_gbps")), None)
            if ceiling:
                left.axhline(ceiling, color=COLORS[be], ls=":", lw=1,
                             label=f"{be} copy ceiling ({ceiling:.0f} GB/s)" if ceiling >= 10
                             else f"{be} copy ceiling ({ceiling:.2g} GB/s)")
    for ax in (left, right):
        log2_axis(ax)
        ax.set_xlabel("n (elements)")
    left.set_yscale("log")
    left.set_ylabel(unit)
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7)
    if len(right.lines):
        ratio_axis(right, "CUB")
        right.legend(fontsize=7)
    else:  # no peer in these results
        fig.delaxes(right)
    return finish(fig, records, device, fam, out_dir)


def sparse_chart(records, device, fam, out_dir):
    """Our speed over cuSPARSE's per matrix and type, a bar per backend."""
    peer = {(r["matrix"], r["type"]): r for r in records if r.get("backend") == "cuda"}
    keys = sorted({(r["matrix"], r["type"]) for r in records if r.get("backend") != "cuda"
                   and r.get("default") and (r["matrix"], r["type"]) in peer})
    fig, ax = plt.subplots(figsize=(11, 4.2))
    width = 0.38
    for i, be in enumerate(("vulkan", "gl")):
        xs, ys = [], []
        for k, (m, t) in enumerate(keys):
            r = next((r for r in records if r.get("backend") == be and r.get("default")
                      and (r["matrix"], r["type"]) == (m, t)
                      and (fam != "spmv" or r.get("format") == "csr")), None)
            if r:
                xs.append(k + (i - 0.5) * width)
                ys.append(us(peer[(m, t)]) / us(r))
        bars = ax.bar(xs, ys, width, color=COLORS[be], label=be)
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.set_xticks(range(len(keys)), [f"{m}\n{t}" for m, t in keys], fontsize=8)
    ratio_axis(ax, "cuSPARSE")
    ax.legend(fontsize=8)
    return finish(fig, records, device, fam, out_dir)


def gemm_chart(records, device, out_dir):
    """GFLOP/s against n for f32 and f64, ours beside cuBLAS."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, t in zip(axes, ("f32", "f64")):
        for be, algo, style in (("vulkan", "fast", "o-"), ("vulkan", "coopmat", "^-"),
                                ("gl", "fast", "o-")):
            rs = pick(records, be, f"gemm_{t}", algo)
            if rs:
                label = f"{be} {algo}" + (" (f16 inputs)" if algo == "coopmat" else "")
                ax.plot([r["n"] for r in rs], [r["gflops"] for r in rs], style,
                        color=COLORS[be], label=label, ms=4)
        for pt, style, name in ((t, "s--", "cuBLAS " + ("SGEMM" if t == "f32" else "DGEMM")),
                                ("f16" if t == "f32" else None, "d:", "cuBLAS f16 inputs")):
            rs = pick(records, "cuda", f"gemm_{pt}", "cublas")
            if rs:
                ax.plot([r["n"] for r in rs], [r["gflops"] for r in rs], style, color="black",
                        label=name, ms=4)
        log2_axis(ax)
        ax.set_yscale("log")
        ax.set_xlabel("n (n x n x n product)")
        ax.set_ylabel(f"GFLOP/s, {t}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    return finish(fig, records, device, "gemm", out_dir)


def main():
    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir, wanted, paths = os.path.normpath(os.path.join(here, "..", "docs", "img")), FAMILIES, []
    i = 0
    while i < len(args):
        if args[i] == "--family":
            wanted, i = args[i + 1].split(","), i + 2
        elif args[i].endswith(".json"):
            paths.append(args[i])
            i += 1
        else:
            out_dir, i = args[i], i + 1
    paths = paths or sorted(glob.glob(os.path.join(here, "results", "*.json")))
    os.makedirs(out_dir, exist_ok=True)
    records = current(paths)
    streams = {"reduce": [("reduce_sum_f32", "fast")],
               "scan": [("scan_exclusive_u32", "fast"), ("scan_inclusive_f32", "fast")],
               "sort": [("sort_keys_u32", "radix"), ("sort_pairs_u32", "radix"),
                        ("sort_keys_f32", "radix")]}
    for fam in wanted:
        rs, device = of_device(records, fam)
        if not rs:
            continue
        if fam in streams:
            print(stream_chart(rs, device, fam, streams[fam], out_dir))
        elif fam in ("spmv", "spgemm"):
            print(sparse_chart(rs, device, fam, out_dir))
        elif fam == "gemm":
            print(gemm_chart(rs, device, out_dir))


if __name__ == "__main__":
    main()
