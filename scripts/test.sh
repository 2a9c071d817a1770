#!/usr/bin/env bash
# Builds in build/ and runs every test: the CPU suite, the GPU suites on
# whatever GL (and Vulkan) the machine gives (Mesa's llvmpipe without a
# GPU), and the GLFW demo under a virtual display when xvfb-run exists.
# Then builds again in build-asan/ with AddressSanitizer and
# UndefinedBehaviorSanitizer and runs the suite once more, at sizes up to
# GPGPU_TEST_MAX_N, without the Vulkan validation layer's second run of
# test_vulkan, without test_sort (cli-sort runs the sort driver) and with
# SpMV, SpGEMM and the command-line scripts on GL only (suite
# sanitize-once): any report fails
# (docs/TESTING.md, "The sanitizer pass").
# GPGPU_TEST_SANITIZE=0 leaves the second pass out. GPGPU_MATRIX_DIR, when set,
# names the folder of MatrixMarket files the tests read, instead of
# ../shared/data/matrices or the generated ones (docs/TESTING.md, "Matrices").
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d build ] || meson setup build
meson compile -C build
# The demo needs a display: give it a virtual one where none exists.
run=()
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
    run=(xvfb-run -a)
fi
"${run[@]}" meson test -C build --print-errorlogs --num-processes 2

[ "${GPGPU_TEST_SANITIZE:-1}" != 0 ] || exit 0
# UBSan recovers and goes on unless built not to; ASan stops at its first report.
[ -d build-asan ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fno-sanitize-recover=all
meson compile -C build-asan
# Reports go to files (the process still fails): a CLI test that expects a
# nonzero exit could otherwise take a report's exit status for its own.
logs=$PWD/build-asan/sanitizer-reports
rm -rf "$logs"
mkdir -p "$logs"
status=0
# A quarantine of 16 MiB instead of 256: freed memory is reused sooner, which
# halves the CPU time of a GPU test (llvmpipe's many large buffers: test_vector
# 9.6 -> 4.4 s, 600 -> 150 MB) and still catches use after a recent free.
# A single allocation above 2 GiB fails (returns NULL) instead of being
# tried: what the address-space cap of test_mtx and cli-inputs does outside
# the sanitizers, where ASan's shadow memory leaves no room for such a cap.
# The Vulkan loader unloads the ICD (lavapipe) at vkDestroyInstance, before
# LeakSanitizer looks at exit: blocks the driver's globals still held then
# show as a leak "in <unknown module>" (128 bytes with Debian's mesa
# 22.3.6-1+deb12u2), which no suppression can name. Preloaded, the driver
# stays loaded and those blocks stay reachable; ASan's runtime then no longer
# comes first in the library list, hence verify_asan_link_order=0.
preload=()
for icd in /usr/lib/*/libvulkan_lvp.so; do
    [ -e "$icd" ] && preload=(env "LD_PRELOAD=$icd") && break
done
# No suite python: the interpreter is not built with ASan, so a sanitized libgpgpu loaded
# through ctypes would need libasan preloaded into it; the package's C calls are the
# library's, which the rest of the pass runs under the sanitizers.
"${preload[@]}" \
ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:quarantine_size_mb=16:log_path=$logs/asan:allocator_may_return_null=1:max_allocation_size_mb=2048:verify_asan_link_order=0" \
LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0" \
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan" \
GPGPU_TEST_MAX_N=${GPGPU_TEST_MAX_N:-20000} \
    "${run[@]}" meson test -C build-asan --print-errorlogs --num-processes 2 --timeout-multiplier 3 \
    --no-suite validation --no-suite sanitize-once --no-suite python || status=$?
if compgen -G "$logs/*" >/dev/null; then
    echo "sanitizer reports (in $logs):" >&2
    cat "$logs"/* >&2
    exit 1
fi
exit "$status"
