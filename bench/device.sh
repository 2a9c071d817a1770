#!/usr/bin/env bash
# One call on the NVIDIA machine (see docs/PERFORMANCE.md): unpack the GL/EGL
# and Vulkan loaders carried in .gl/, print the platform, run the GPU tests on
# both backends (with and without subgroups), then gpgpu-bench on each
# backend and the CUB peer on the same sizes, and print the joined tables.
# Expects build-device/ (built here with -Dglfw=disabled) and
# build-device/cub_peer (nvcc, see bench/README.md).
# Environment: RUN_TESTS=0 skips the tests, RUN_BENCH=0 the benchmarks;
# SWEEP_REDUCE / SWEEP_SCAN: GPGPU_TUNE settings to sweep (bench/sweep.sh);
# MIN_LOG2, MAX_LOG2, STEP, BACKENDS.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
nv=/usr/local/nvidia/share
[ -f $nv/glvnd/egl_vendor.d/10_nvidia.json ] &&
    export __EGL_VENDOR_LIBRARY_FILENAMES=$nv/glvnd/egl_vendor.d/10_nvidia.json
[ -f $nv/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=$nv/vulkan/icd.d/nvidia_icd.json
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
B=build-device
BACKENDS=${BACKENDS:-gl vulkan}
range=(--min-log2 "${MIN_LOG2:-10}" --max-log2 "${MAX_LOG2:-28}" --step "${STEP:-2}")
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for be in $BACKENDS; do
    GPGPU_BACKEND=$be $B/tools/gpgpu info >"$OUT/info_$be.txt" 2>&1
    echo "== $be: $(grep -E '^(renderer|version|has_subgroups|subgroup_size)' "$OUT/info_$be.txt" | tr '\n' ' ')"
done
if [ "${RUN_TESTS:-1}" = 1 ]; then
    for be in $BACKENDS; do
        for t in reduce scan api; do
            for sg in 0 1; do
                log="$OUT/test_${t}_${be}_nosg$sg.log"
                GPGPU_BACKEND=$be GPGPU_NO_SUBGROUPS=$sg timeout 300 $B/tests/test_$t >"$log" 2>&1
                echo "test_$t $be no_subgroups=$sg: rc=$? $(tail -1 "$log")"
                grep -m3 FAILED "$log"
            done
        done
    done
fi
if [ -n "${SWEEP_REDUCE:-}" ]; then
    bench/sweep.sh reduce_sum_f32 "$SWEEP_REDUCE" "${MIN_LOG2:-24}" "${MAX_LOG2:-28}" "${STEP:-2}"
fi
if [ -n "${SWEEP_SCAN:-}" ]; then
    bench/sweep.sh scan_exclusive_u32 "$SWEEP_SCAN" "${MIN_LOG2:-24}" "${MAX_LOG2:-28}" "${STEP:-2}"
fi
[ "${RUN_BENCH:-1}" = 1 ] &&
    { $B/cub_peer "${range[@]}" --json "$OUT/cub.json" >"$OUT/cub.txt" 2>"$OUT/cub.err" ||
          tail -5 "$OUT/cub.err"; }
# One process per size and element type, with buffers of exactly that size:
# on the H100 a 1 GiB range read 2x slower inside a 2 GiB buffer, or in a
# buffer made after many others, than in a fresh exact one (PERFORMANCE.md).
for be in $BACKENDS; do
    [ "${RUN_BENCH:-1}" = 1 ] || break
    : >"$OUT/bench_$be.txt"
    for k in $(seq "${MIN_LOG2:-10}" "${STEP:-2}" "${MAX_LOG2:-28}"); do
        for t in u32 f32 f64; do
            GPGPU_BACKEND=$be $B/tools/gpgpu-bench --min-log2 "$k" --max-log2 "$k" --case "_$t" \
                --json "$OUT/bench_${be}_${k}_$t.json" >>"$OUT/bench_$be.txt" \
                2>>"$OUT/bench_$be.err" || tail -3 "$OUT/bench_$be.err"
        done
    done
    python3 -c 'import json,sys; print(json.dumps([r for f in sys.argv[1:] for r in json.load(open(f))], indent=1))' \
        "$OUT"/bench_"${be}"_*.json >"$OUT/bench_$be.json"
    rm -f "$OUT"/bench_"${be}"_*.json
    echo "== gpgpu-bench $be vs CUB"
    python3 bench/compare.py "$OUT/bench_$be.json" "$OUT/cub.json" "$OUT/table_$be.md"
done
# $OUT brings back few files: keep everything in one archive.
tar -C "$OUT" -czf /tmp/device-out.tgz . && rm -rf "${OUT:?}"/* && mv /tmp/device-out.tgz "$OUT/"
