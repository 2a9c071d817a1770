#!/usr/bin/env bash
# Builds in build/ and runs every test: the CPU suite, the GPU suites on
# whatever GL (and Vulkan) the machine gives (Mesa's llvmpipe without a
# GPU), and the GLFW demo under a virtual display when xvfb-run exists.
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
