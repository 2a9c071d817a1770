#!/usr/bin/env bash
# One call on the NVIDIA machine (see docs/PERFORMANCE.md): unpack the GL/EGL
# loaders carried in .gl/, print the platform, run the GPU tests (with and
# without subgroups), then gpgpu-bench and the CUB peer on the same sizes,
# and print one joined table. Expects build-device/ (built here with
# -Dglfw=disabled) and build-device/cub_peer (nvcc, see bench/README.md).
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
B=build-device
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$B/tools/gpgpu info | tee "$OUT/info.txt"
if [ "${RUN_TESTS:-1}" = 1 ]; then
    for t in reduce scan api; do
        $B/tests/test_$t >"$OUT/test_$t.log" 2>&1; echo "test_$t: rc=$? $(tail -1 "$OUT/test_$t.log")"
        GPGPU_NO_SUBGROUPS=1 $B/tests/test_$t >"$OUT/test_${t}_nosg.log" 2>&1
        echo "test_$t (no subgroups): rc=$? $(tail -1 "$OUT/test_${t}_nosg.log")"
    done
fi
$B/tools/gpgpu-bench --min-log2 "${MIN_LOG2:-10}" --max-log2 "${MAX_LOG2:-28}" --step "${STEP:-2}" \
    --json "$OUT/gpgpu.json" "$@" >"$OUT/gpgpu.txt" 2>"$OUT/gpgpu.err" || { tail -5 "$OUT/gpgpu.err"; }
$B/cub_peer --min-log2 "${MIN_LOG2:-10}" --max-log2 "${MAX_LOG2:-28}" --step "${STEP:-2}" \
    --json "$OUT/cub.json" >"$OUT/cub.txt" 2>"$OUT/cub.err" || { tail -5 "$OUT/cub.err"; }
python3 bench/compare.py "$OUT/gpgpu.json" "$OUT/cub.json" "$OUT/table.md"
