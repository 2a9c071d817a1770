#!/usr/bin/env python3
"""Joins gpgpu-bench and cub_peer JSON results from one run into one table.

usage: compare.py GPGPU.json CUB.json [OUT.md]

Prints, for every gpgpu-bench record, the CUB time on the same case and size
and the ratio CUB time / our time (above 1: we are faster), next to each
one's bandwidth and the copy ceilings both measured.
"""
import json
import sys


def main():
    ours = json.load(open(sys.argv[1]))
    cub = {(r["case"], r["n"]): r for r in json.load(open(sys.argv[2]))}
    cub_copy = max((r["gbps"] for r in cub.values() if r["case"].startswith("copy")), default=0)
    device = ours[0]["device"] if ours else "?"
    lines = [f"device: {device}; CUB device: {next(iter(cub.values()))['device'] if cub else '?'}",
             f"copy ceiling: ours {max(r['copy_gbps'] for r in ours):.0f} GB/s, CUDA {cub_copy:.0f} GB/s",
             "",
             "| case | algo | n | ours us | ours wall us | ours GB/s | CUB us | CUB GB/s | vs CUB |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in ours:
        if r["case"] == "copy_d2d_u32":  # each process's ceiling; copy_u32 is per size
            continue
        peer = cub.get(("copy_d2d_u32" if r["case"] == "copy_u32" else r["case"], r["n"]))
        cub_us = f"{peer['median_us']:.1f}" if peer else "-"
        cub_gbps = f"{peer['gbps']:.0f}" if peer else "-"
        ratio = f"{peer['median_us'] / r['median_us']:.2f}x" if peer and r["median_us"] > 0 else "-"
        lines.append(f"| {r['case']} | {r['algo']} | 2^{r['n'].bit_length() - 1} | "
                     f"{r['median_us']:.1f} | {r.get('wall_us', 0):.1f} | {r['gbps']:.0f} | {cub_us} | "
                     f"{cub_gbps} | {ratio} |")
    text = "\n".join(lines)
    print(text)
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            f.write(text + "\n")


main()
