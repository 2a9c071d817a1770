#!/usr/bin/env python3
"""Charts of a device run: the JSON of gpgpu-bench (per backend) and of the CUDA peers
into PNG files, one per primitive.

usage: python3 bench/plot.py OUT_DIR [--cub CUB.json] [--cublas CUBLAS.json]
                             [--cases CASE,...] BACKEND=GPGPU.json [BACKEND=GPGPU.json ...]

Needs matplotlib (Debian: python3-matplotlib, run with /usr/bin/python3). For every case
of the bandwidth primitives (reduce_*, scan_*, sort_*) found in the records it draws GB/s
against n (log2 axis) for each backend's fast algorithm (radix for sorts), CUB on the same
case and the copy ceilings (our compute-shader copy per backend, CUDA's device-to-device
copy), and writes OUT_DIR/CASE.png; for the dense products (gemm_f32, gemm_f64) GFLOP/s of
each backend's fast method (and the cooperative-matrix one where it ran) against cuBLAS.
--cases draws only those. docs/PERFORMANCE.md shows the charts of the last device run,
made with: /usr/bin/python3 bench/plot.py docs/img --cub cub.json --cublas cublas.json
--cases reduce_sum_f32,scan_exclusive_u32,sort_keys_u32,sort_pairs_u32,gemm_f32,gemm_f64
gl=bench_gl.json vulkan=bench_vulkan.json gl=gemm_gl.json vulkan=gemm_vulkan.json
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FAST = {"reduce": "fast", "scan": "fast", "sort": "radix"}
COLORS = {"gl": "tab:blue", "vulkan": "tab:red", "cub": "black", "copy": "tab:gray"}


def load(path):
    return json.load(open(path)) if path and os.path.exists(path) else []


def series(records, key_x, key_y):
    pts = sorted((r[key_x], r[key_y]) for r in records if r.get(key_y))
    return [p[0] for p in pts], [p[1] for p in pts]


def save(fig, ax, out_dir, case, xlabel, ylabel):
    """The axes' labels, title and legend, then OUT_DIR/CASE.png; returns its path."""
    ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(case)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    path = os.path.join(out_dir, f"{case}.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def bandwidth_chart(out_dir, case, runs, cub):
    family = case.split("_")[0]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for be, records in runs:
        mine = [r for r in records if r["case"] == case and r.get("algo") == FAST[family]]
        if mine:
            x, y = series(mine, "n", "gbps")
            ax.plot(x, y, "o-", color=COLORS.get(be), label=f"{be} {FAST[family]}")
        copies = [r for r in records if r["case"] == case and r.get("copy_gbps")]
        if copies:
            x, y = series(copies, "n", "copy_gbps")
            ax.plot(x, y, ":", color=COLORS.get(be), label=f"{be} copy ceiling")
    peer = [r for r in cub if r["case"] == case]
    if peer:
        x, y = series(peer, "n", "gbps")
        ax.plot(x, y, "s--", color=COLORS["cub"], label="CUB")
    cuda_copy = [r for r in cub if r["case"].startswith("copy")]
    if cuda_copy:
        x, y = series(cuda_copy, "n", "gbps")
        ax.plot(x, y, ":", color=COLORS["copy"], label="CUDA copy")
    return save(fig, ax, out_dir, case, "n (elements)", "GB/s (bytes read + written)")


def gemm_chart(out_dir, case, runs, cublas):
    t = case.split("_")[1]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for be, records in runs:
        for algo, style in (("fast", "o-"), ("coopmat", "^-")):
            mine = [r for r in records if r["case"] == case and r.get("algo") == algo]
            if mine:
                x, y = series(mine, "n", "gflops")
                ax.plot(x, y, style, color=COLORS.get(be), label=f"{be} {algo}")
    for peer_t, style, name in ((t, "s--", "cuBLAS " + ("SGEMM" if t == "f32" else "DGEMM")),
                                ("f16" if t == "f32" else None, "d:", "cuBLAS f16 GEMM")):
        peer = [r for r in cublas if r["case"] == f"gemm_{peer_t}"]
        if peer:
            x, y = series(peer, "n", "gflops")
            ax.plot(x, y, style, color=COLORS["cub"], label=name)
    ax.set_yscale("log")
    return save(fig, ax, out_dir, case, "n (n x n x n product)", "GFLOP/s")


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    out_dir, cub_path, cublas_path, wanted, runs = args[0], None, None, None, []
    i = 1
    while i < len(args):
        if args[i] == "--cub":
            cub_path, i = args[i + 1], i + 2
        elif args[i] == "--cublas":
            cublas_path, i = args[i + 1], i + 2
        elif args[i] == "--cases":
            wanted, i = set(args[i + 1].split(",")), i + 2
        else:
            be, path = args[i].split("=", 1)
            known = [r for b, r in runs if b == be]
            if known:
                known[0].extend(load(path))
            else:
                runs.append((be, load(path)))
            i += 1
    os.makedirs(out_dir, exist_ok=True)
    cub, cublas = load(cub_path), load(cublas_path)
    cases = sorted({r["case"] for _, records in runs for r in records
                    if wanted is None or r["case"] in wanted})
    for case in cases:
        family = case.split("_")[0]
        if family in FAST:
            print(bandwidth_chart(out_dir, case, runs, cub))
        elif family == "gemm":
            print(gemm_chart(out_dir, case, runs, cublas))


if __name__ == "__main__":
    main()
