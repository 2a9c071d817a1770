#!/usr/bin/env bash
# Sets up a fresh Debian machine (as root), builds libgpgpu and runs the
# demos: `gpgpu info`, a reduce, a scan, a sort and a dense product from the
# command line, the particle demo (a GLFW app whose own buffers the library
# reduces and compacts) and the depth-sort demo (its particles culled to the
# view, sorted back to front and gathered into draw order every frame) under a
# virtual display.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" = 0 ]; then
    apt-get update -q
    apt-get install -y -q --no-install-recommends $(cat .ci/packages)
fi
[ -d build ] || meson setup build
meson compile -C build
build/tools/gpgpu info
echo "sum of 1,000,000 random floats:"
build/tools/gpgpu reduce --op sum --type f32 --random 1000000 --seed 42
echo "exclusive scan of 8 random integers:"
build/tools/gpgpu scan --exclusive --type u32 --random 8 --seed 1 -o -
echo "sort of 10 random floats, descending:"
build/tools/gpgpu sort --type f32 --descending --random 10 --seed 3 -o -
echo "a 256 x 256 x 256 dense product, 64 rows checked on the CPU:"
build/tools/gpgpu gemm --m 256 --n 256 --k 256 --check
if [ -x build/demos/particles ]; then
    xvfb-run -a build/demos/particles --hidden
    xvfb-run -a build/demos/depth_sort --hidden --png build/depth_sort.png
fi
