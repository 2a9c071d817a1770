#!/usr/bin/env bash
# Tuning sweep on the device machine: runs gpgpu-bench for one case over
# GPGPU_TUNE settings and prints "backend tune case n median_us GB/s" lines.
# usage: bench/sweep.sh CASE "TUNE1 TUNE2 ..." [MIN_LOG2 MAX_LOG2 STEP]
# BACKENDS (default "gl vulkan") picks the backends.
set -uo pipefail
case_name=$1 tunes=$2 lo=${3:-26} hi=${4:-28} step=${5:-2}
for be in ${BACKENDS:-gl vulkan}; do
    for tune in $tunes; do
        GPGPU_BACKEND=$be GPGPU_TUNE=$tune build-device/tools/gpgpu-bench --case "$case_name" \
            --min-log2 "$lo" --max-log2 "$hi" --step "$step" --classic-max-log2 0 2>/dev/null |
            awk -v be="$be" -v tune="$tune" '$2 == "fast" || $1 == "copy_u32" {
                printf "%-7s %-32s %-20s %11s %10s %8s\n", be, tune, $1, $3, $4, $7 }'
    done
done
