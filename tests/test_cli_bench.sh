#!/usr/bin/env bash
# `gpgpu-bench --json` in google-benchmark's shape: a context (date, device, driver,
# backend) and a benchmarks array whose records have the fields google-benchmark's tools
# read (name, run_name, run_type, iterations, real_time, cpu_time, time_unit) beside
# gpgpu-bench's own; then bench/compare.py reads the file back (its flat records in us)
# and joins it with itself. A reduce, a scan and a small SpMV case, once per backend.
#
# Usage: test_cli_bench.sh GPGPU_BENCH BACKEND BENCH_DIR
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

bench=$1
backend=$2
bench_dir=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

run() {
    "$bench" --backend "$backend" --runs 3 --warmup 1 --warmup-ms 0 --burst-ms 0 "$@" \
        >"$tmp/stdout" 2>"$tmp/stderr"
}

run --only reduce,scan --sizes 10 --case _f32 --algos fast --json "$tmp/a.json"
rc=$?
if [ "$rc" -eq 77 ]; then
    echo "backend $backend unavailable: skipped" >&2
    exit 77
elif [ "$rc" -ne 0 ]; then
    cat "$tmp/stderr" >&2
    exit 1
fi
run --only spmv --gen laplace3d_7:4 --case csr_f32 --algos default --json "$tmp/s.json" || {
    cat "$tmp/stderr" >&2
    exit 1
}

python3 - "$tmp/a.json" "$tmp/s.json" "$backend" "$bench_dir" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[4])
from compare import load_records, per_backend

failures = []
def check(cond, what):
    if not cond:
        failures.append(what)

for path, want in ((sys.argv[1], {"copy_d2d_u32/copy/", "reduce_sum_f32/fast/1024",
                                  "scan_inclusive_f32/fast/1024"}),
                   (sys.argv[2], {"spmv_csr_f32/default/laplace3d_7-4"})):
    data = json.load(open(path))
    ctx = data.get("context", {})
    for key in ("date", "host_name", "executable", "device", "driver", "backend", "timer"):
        check(key in ctx, f"{path}: context without {key}")
    check(ctx.get("backend") == sys.argv[3], f"{path}: context backend {ctx.get('backend')}")
    check(len(ctx.get("date", "")) == 25 and ctx["date"][10] == "T" and ctx["date"][22] == ":",
          f"{path}: date {ctx.get('date')!r} is not ISO 8601 with +HH:MM")
    names = [b.get("name") for b in data["benchmarks"]]
    check(len(names) == len(set(names)), f"{path}: names repeat: {names}")
    for n in want:
        check(any(x == n or (n.endswith("/") and x.startswith(n)) for x in names),
              f"{path}: no record {n} in {names}")
    for b in data["benchmarks"]:
        for key in ("name", "run_name", "run_type", "iterations", "real_time", "cpu_time",
                    "time_unit", "gpu_time", "min_time", "max_time", "wall_time", "case",
                    "algo", "copy_gbps", "timer", "backend"):
            check(key in b, f"{b.get('name')}: no {key}")
        check(b.get("run_type") == "iteration" and b.get("iterations") == 3
              and b.get("time_unit") == "ns", f"{b.get('name')}: run fields {b}")
        check(b.get("real_time", 0) > 0 and b.get("cpu_time", 0) > 0,
              f"{b.get('name')}: times {b.get('real_time')} {b.get('cpu_time')}")
        check(b.get("min_time", 1) <= b.get("gpu_time", 0) <= b.get("max_time", 0),
              f"{b.get('name')}: min {b.get('min_time')} gpu {b.get('gpu_time')} "
              f"max {b.get('max_time')}")
    flat = load_records(path)
    for r, b in zip(flat, data["benchmarks"]):
        check(abs(r["median_us"] - b["gpu_time"] / 1e3) < 1e-9 and r["device"].startswith(
              ctx["device"]), f"{b['name']}: read back as {r}")
        rate = "gflops" if b["case"].startswith("spmv") else "gbps"
        check(r.get(rate) is not None and r[rate] > 0, f"{b['name']}: no {rate} read back")
table = per_backend(sys.argv[1], sys.argv[1], None)
check("| reduce_sum_f32 | fast | 2^10 |" in table, "compare.py's table lacks the reduce row")
for f in failures:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if failures else 0)
EOF
