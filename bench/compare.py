#!/usr/bin/env python3
"""Joins gpgpu-bench and cub_peer JSON results from one run into tables.

usage: compare.py GPGPU.json CUB.json [OUT.md]
       compare.py --sort CUB.json OUT.md BACKEND=GPGPU.json [BACKEND=GPGPU.json ...]

The first form prints, for every gpgpu-bench record, the CUB time on the same
case and size and the ratio CUB time / our time (above 1: we are faster), next
to each one's bandwidth and the copy ceilings both measured, and our ratio to
a copy (see gpgpu-bench --help: for reduce and scan against the big copy's
bandwidth, for sort a copy of the same bytes timed in the same process).

The second form prints the sort summary over backends and algorithms: small
sorts' time per call (GPU and wall, against CUB's), the ratio to a copy of the
same bytes, and last, throughput in Gkeys/s (pairs/s for sort_pairs_u32) with
the ratio to CUB's DeviceRadixSort on the same data.
"""
import json
import sys

SORT_CASES = ["sort_keys_u32", "sort_keys_f32", "sort_pairs_u32"]
SORT_ALGOS = ["netsort", "bitonic", "radix"]
SMALL_MAX = 1 << 14  # "small sorts": time per call matters more than throughput


def log2(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def per_backend(ours_path, cub_path, out_path):
    ours = json.load(open(ours_path))
    # Reduce and scan by size as they ran, then the sorts by size (stable).
    ours.sort(key=lambda r: (r["case"] in SORT_CASES, r["n"] if r["case"] != "copy_d2d_u32" else 0))
    cub = {(r["case"], r["n"]): r for r in json.load(open(cub_path))}
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
    cub = {(r["case"], r["n"]): r for r in json.load(open(cub_path))}
    ours = {}  # (backend, case, algo, n) -> record
    for be, path in runs:
        for r in json.load(open(path)):
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
            row.append(f"{fmt(r['median_us'], '.1f')} / {fmt(r['wall_us'], '.1f')}" if r else "-")
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


def main():
    args = sys.argv[1:]
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


main()
