#!/usr/bin/env bash
# Sets up a fresh Debian machine (as root), builds libgpgpu and runs the
# demos: `gpgpu info`, a reduce and a scan from the command line, and the
# particle demo (a GLFW app whose own buffers the library reduces and scans)
# under a virtual display.
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
if [ -x build/demos/particles ]; then
    xvfb-run -a build/demos/particles --hidden
fi
