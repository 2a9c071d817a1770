#!/usr/bin/env bash
# One call on the NVIDIA machine (see docs/PERFORMANCE.md): unpack the GL/EGL
# and Vulkan loaders carried in .gl/, print the platform, run the GPU tests on
# both backends (with and without subgroups), then gpgpu-bench on each
# backend and the CUB peer on the same sizes, and print the joined tables
# (the sort summary last). With spmv in PRIMITIVES: gpgpu-bench --only spmv
# on the generated and the real matrices, and bench/cusparse_peer.py (CuPy)
# on the same matrices, then compare.py --spmv. With spgemm: the same for
# gpgpu-bench --only spgemm, the peer's --mode spgemm and compare.py --spgemm.
# With gemm: bench/cublas_peer.py (CuPy: SGEMM, DGEMM, HGEMM), gpgpu-bench
# --only gemm per backend, type and size, and compare.py --gemm.
# Expects build-device/ (built here with -Dglfw=disabled) and
# build-device/cub_peer (nvcc, see bench/README.md; not needed for spmv and
# spgemm).
#
# Environment (defaults in brackets):
#   RUN_TESTS [1]      0 skips the tests; TESTS ["reduce scan sort api"] which
#                      (a missing tests/test_X is skipped)
#   RUN_BENCH [1]      0 skips the benchmarks
#   PRIMITIVES ["sort reduce scan"]  what the benchmarks run, in this order;
#                      "spmv" runs SpMV (first, before the others), "spgemm"
#                      SpGEMM (after SpMV), "select" compaction, partition and
#                      gather, "histogram", "segreduce", "rle" (gpgpu-bench
#                      --only P, one process per primitive and size; CUB's
#                      same cases in cub_peer)
#   SPMV_GENS ["laplace3d_7:128 rmat:20"]  generated matrices (gpgpu-bench
#                      --gen), one gpgpu-bench process each per backend
#   MATRIX_DIR [""]    real matrices: every *.mtx and *.mtx.gz in it, one
#                      process per backend (bench/README.md: which to carry)
#   GEN_DIR [/tmp/spmv_gen]  where the generated matrices are written for the
#                      peer (not under $OUT: hundreds of MB of text)
#   SPMV_RUNS [20], SPMV_WARMUP [3]; PEER_TIMEOUT [300] seconds for the peer;
#   SPMV_EXTRA [""]  more gpgpu-bench arguments (e.g. "--case csr --algos default,balanced")
#   SPGEMM_GENS ["laplace3d_7:64 laplace3d_7:128 banded:1048576:4
#                power_law:262144:8 rmat:15:16"]  generated matrices of
#                      SpGEMM (C = A*A), one gpgpu-bench process each per backend
#   SPGEMM_GEN_DIR [/tmp/spgemm_gen]  where they are written for the peer
#   SPGEMM_RUNS [10], SPGEMM_WARMUP [2]; SPGEMM_EXTRA [""]  more gpgpu-bench
#                      arguments (e.g. "--algos rows --case f32")
#   GEMM_SIZES ["64 128 256 512 1024 2048 4096 8192"]  dense products, one
#                      gpgpu-bench process per backend, type and size (--gemm-tune)
#   GEMM_RUNS [5], GEMM_WARMUP [1]; GEMM_ALGOS ["" = all]
#   BACKENDS ["gl vulkan"]
#   MIN_LOG2, MAX_LOG2, STEP [10, 28, 2]  reduce/scan sizes (one process each)
#   SORT_SIZES ["16 18 20 22 24 26 28"]   sort sizes, one process per size
#                      and key type (like reduce/scan: fresh exact buffers)
#   SORT_SMALL ["10,11,12,13,14"]  small sorts, all in one process per
#                      backend and key type ("" skips them)
#   CLASSIC_SORT_MAX_LOG2 [24]  netsort (GPGPU_ALGO_CLASSIC_NETSORT, one
#                      dispatch per network step) up to 2^K only
#   SORT_ALGOS ["netsort,bitonic,radix"]; SORT_RUNS [20], SORT_WARMUP [3]
#   BUDGET_S [480]     no new benchmark process starts after this many seconds
#                      of the script (the tables are still made and packed)
#   PROC_TIMEOUT [150] seconds one gpgpu-bench process may run
#   SWEEP_REDUCE / SWEEP_SCAN: GPGPU_TUNE settings to sweep (bench/sweep.sh)
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
nv=/usr/local/nvidia/share
[ -f $nv/glvnd/egl_vendor.d/10_nvidia.json ] &&
    export __EGL_VENDOR_LIBRARY_FILENAMES=$nv/glvnd/egl_vendor.d/10_nvidia.json
[ -f $nv/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=$nv/vulkan/icd.d/nvidia_icd.json
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
B=${B:-build-device}
BACKENDS=${BACKENDS:-gl vulkan}
PRIMITIVES=${PRIMITIVES-sort reduce scan}
[ "${RUN_BENCH:-1}" = 1 ] || PRIMITIVES=""
SORT_SIZES=${SORT_SIZES-16 18 20 22 24 26 28}
SORT_SMALL=${SORT_SMALL-10,11,12,13,14}
BUDGET_S=${BUDGET_S:-480}
PROC_TIMEOUT=${PROC_TIMEOUT:-150}
has() { [[ " $PRIMITIVES " == *" $1 "* ]]; }
rs=""  # reduce and scan, as gpgpu-bench --only takes them
has reduce && rs=reduce
has scan && rs=${rs:+$rs,}scan
# Starts nothing more once the budget is spent; says what it skipped.
in_budget() {
    [ "$SECONDS" -lt "$BUDGET_S" ] && return 0
    echo "budget of ${BUDGET_S}s spent (${SECONDS}s): skipped $*"
    return 1
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for be in $BACKENDS; do
    GPGPU_BACKEND=$be $B/tools/gpgpu info >"$OUT/info_$be.txt" 2>&1
    echo "== $be: $(grep -E '^(renderer|version|has_subgroups|subgroup_size)' "$OUT/info_$be.txt" | tr '\n' ' ')"
done
if [ "${RUN_TESTS:-1}" = 1 ]; then
    # the tests that read the shared matrices (spmv, spgemm, mtx) read MATRIX_DIR's
    [ -n "${MATRIX_DIR:-}" ] && export GPGPU_MATRIX_DIR=$(realpath "$MATRIX_DIR")
    for be in $BACKENDS; do
        for t in ${TESTS:-reduce scan sort api}; do
            [ -x "$B/tests/test_$t" ] || { echo "test_$t: not built, skipped"; continue; }
            for sg in 0 1; do
                log="$OUT/test_${t}_${be}_nosg$sg.log"
                GPGPU_BACKEND=$be GPGPU_NO_SUBGROUPS=$sg timeout 300 $B/tests/test_$t >"$log" 2>&1
                echo "test_$t $be no_subgroups=$sg: rc=$? $(tail -1 "$log")"
                grep -m3 FAILED "$log"
            done
        done
    done
    echo "tests done at ${SECONDS}s"
fi
if [ -n "${SWEEP_REDUCE:-}" ]; then
    bench/sweep.sh reduce_sum_f32 "$SWEEP_REDUCE" "${MIN_LOG2:-24}" "${MAX_LOG2:-28}" "${STEP:-2}"
fi
if [ -n "${SWEEP_SCAN:-}" ]; then
    bench/sweep.sh scan_exclusive_u32 "$SWEEP_SCAN" "${MIN_LOG2:-24}" "${MAX_LOG2:-28}" "${STEP:-2}"
fi
# CUB on every size that any of ours runs (the copy always; a few seconds).
rs_sizes=$(seq -s, "${MIN_LOG2:-10}" "${STEP:-2}" "${MAX_LOG2:-28}")
cub_sizes=$( { { [ -n "$rs" ] || has select || has histogram || has segreduce || has rle; } &&
                echo "$rs_sizes"
              has sort && echo "$SORT_SMALL ${SORT_SIZES// /,}"; } |
    tr ', ' '\n\n' | grep -E '^[0-9]+$' | sort -nu | paste -sd, -)
cub_only=${rs}
for p in sort select histogram segreduce rle; do
    has "$p" && cub_only=${cub_only:+$cub_only,}$p
done
if [ -n "$cub_only" ] && [ -n "$cub_sizes" ]; then
    $B/cub_peer --sizes "$cub_sizes" --only "$cub_only" --json "$OUT/cub.json" \
        >"$OUT/cub.txt" 2>"$OUT/cub.err" || tail -5 "$OUT/cub.err"
    echo "cub_peer done at ${SECONDS}s"
fi
[ -f "$OUT/cub.json" ] || echo '[]' >"$OUT/cub.json"
# One gpgpu-bench process, with a time limit, its table appended to
# bench_$be.txt. usage: bench1 BACKEND JSON_NAME ARGS...
# (JSON in bench_BACKEND_JSON_NAME.json)
bench1() {
    local be=$1 name=$2
    shift 2
    in_budget "$be $name" || return 0
    GPGPU_BACKEND=$be timeout "$PROC_TIMEOUT" $B/tools/gpgpu-bench "$@" \
        --json "$OUT/bench_${be}_$name.json" >>"$OUT/bench_$be.txt" 2>>"$OUT/bench_$be.err"
    local rc=$?
    [ $rc = 0 ] || { echo "gpgpu-bench $be $name: rc=$rc"; tail -3 "$OUT/bench_$be.err"; }
}
# Joins the JSON of several gpgpu-bench processes (google-benchmark's shape) into one
# file, the first one's context and every process's benchmarks, then removes them.
# usage: merge_json OUT.json IN.json...
merge_json() {
    local out=$1
    shift
    python3 -c 'import json, sys
runs = [json.load(open(f)) for f in sys.argv[1:]]
print(json.dumps({"context": runs[0]["context"],
                  "benchmarks": [r for run in runs for r in run["benchmarks"]]}, indent=1))' \
        "$@" >"$out" && rm -f "$@"
}
for be in $BACKENDS; do
    [ -n "$PRIMITIVES" ] || break
    : >"$OUT/bench_$be.txt"
done
# SpMV and SpGEMM against cuSPARSE, one function for both: the generated
# matrices written for the peer, the peer on them and on MATRIX_DIR's files,
# then gpgpu-bench per backend on the same (generating its own: the same
# matrices, faster than reading the text), its records in KIND_BACKEND.json,
# the peer's in PEER.json, both joined by compare.py into table_KIND.md.
# sparse_vs_cusparse KIND GENS GEN_DIR RUNS WARMUP PEER [more gpgpu-bench args]
sparse_vs_cusparse() {
    local kind=$1 gens=$2 gen_dir=$3 runs=$4 warmup=$5 peer=$6
    shift 6
    local gen_args=() real=() mtx_args=() peer_mode=() joined=() g f be files
    [ "$kind" = spgemm ] && peer_mode=(--mode spgemm)
    mkdir -p "$gen_dir" && rm -f "$gen_dir"/*.mtx
    for g in $gens; do gen_args+=(--gen "$g"); done
    if [ -n "${MATRIX_DIR:-}" ]; then
        for f in "$MATRIX_DIR"/*.mtx "$MATRIX_DIR"/*.mtx.gz; do
            [ -e "$f" ] && real+=("$f") && mtx_args+=(--matrix "$f")
        done
    fi
    echo "$kind: generated '$gens', ${#real[@]} files from '${MATRIX_DIR:-}'"
    [ ${#gen_args[@]} -gt 0 ] &&
        { $B/tools/gpgpu-bench --write-gen "$gen_dir" "${gen_args[@]}" || echo "--write-gen failed"; }
    local args=(--only "$kind" --runs "$runs" --warmup "$warmup" "$@")
    local peer_files=("$gen_dir"/*.mtx "${real[@]}")
    if [ -e "${peer_files[0]}" ]; then
        timeout "${PEER_TIMEOUT:-300}" python3 bench/cusparse_peer.py "${peer_mode[@]}" \
            --runs "$runs" --warmup "$warmup" --json "$OUT/$peer.json" "${peer_files[@]}" \
            >"$OUT/$peer.txt" 2>"$OUT/$peer.err" ||
            { echo "cusparse_peer $kind: rc=$?"; tail -5 "$OUT/$peer.err"; }
        echo "cusparse_peer $kind done at ${SECONDS}s"
    fi
    [ -f "$OUT/$peer.json" ] || echo '[]' >"$OUT/$peer.json"
    for be in $BACKENDS; do
        for g in $gens; do
            bench1 "$be" "${kind}_gen_${g//:/-}" "${args[@]}" --gen "$g"
        done
        [ ${#real[@]} -gt 0 ] && bench1 "$be" "${kind}_files" "${args[@]}" "${mtx_args[@]}"
        files=("$OUT"/bench_"${be}"_"${kind}"_*.json)
        [ -e "${files[0]}" ] && merge_json "$OUT/${kind}_$be.json" "${files[@]}" &&
            joined+=("$be=$OUT/${kind}_$be.json")
        echo "$kind $be done at ${SECONDS}s"
    done
    if [ ${#joined[@]} -gt 0 ]; then
        echo "== $kind vs cuSPARSE"
        python3 bench/compare.py "--$kind" "$OUT/$peer.json" "$OUT/table_$kind.md" "${joined[@]}"
    fi
}
if has spmv; then
    # Each run tunes afresh: no tuner cache file read or written.
    export GPGPU_TUNE_CACHE=
    sparse_vs_cusparse spmv "${SPMV_GENS-laplace3d_7:128 rmat:20}" "${GEN_DIR:-/tmp/spmv_gen}" \
        "${SPMV_RUNS:-20}" "${SPMV_WARMUP:-3}" cusparse ${SPMV_EXTRA:-}
fi
if has spgemm; then
    sparse_vs_cusparse spgemm \
        "${SPGEMM_GENS-laplace3d_7:64 laplace3d_7:128 banded:1048576:4 power_law:262144:8 rmat:15:16}" \
        "${SPGEMM_GEN_DIR:-/tmp/spgemm_gen}" "${SPGEMM_RUNS:-10}" "${SPGEMM_WARMUP:-2}" \
        cusparse_spgemm ${SPGEMM_EXTRA:-}
fi
# Dense products: cuBLAS (CuPy) on the same sizes, then one gpgpu-bench process per
# backend, type and size (the fast method tuned first in each), records in
# gemm_BACKEND.json.
if has gemm; then
    gemm_sizes=${GEMM_SIZES:-64 128 256 512 1024 2048 4096 8192}
    export GPGPU_TUNE_CACHE=
    timeout "${PEER_TIMEOUT:-300}" python3 bench/cublas_peer.py --sizes "${gemm_sizes// /,}" \
        --runs "${GEMM_RUNS:-5}" --json "$OUT/cublas.json" >"$OUT/cublas.txt" 2>"$OUT/cublas.err" ||
        { echo "cublas_peer: rc=$?"; tail -5 "$OUT/cublas.err"; }
    [ -f "$OUT/cublas.json" ] || echo '[]' >"$OUT/cublas.json"
    echo "cublas_peer done at ${SECONDS}s"
    gemm_args=(--only gemm --gemm-tune --runs "${GEMM_RUNS:-5}" --warmup "${GEMM_WARMUP:-1}")
    [ -n "${GEMM_ALGOS:-}" ] && gemm_args+=(--algos "$GEMM_ALGOS")
    gemm_joined=()
    for be in $BACKENDS; do
        for t in f32 f64; do
            for n in $gemm_sizes; do
                bench1 "$be" "gemm_${t}_$n" "${gemm_args[@]}" --gemm-sizes "$n" --case "gemm_$t"
            done
        done
        files=("$OUT"/bench_"${be}"_gemm_*.json)
        [ -e "${files[0]}" ] && merge_json "$OUT/gemm_$be.json" "${files[@]}" &&
            gemm_joined+=("$be=$OUT/gemm_$be.json")
        echo "gemm $be done at ${SECONDS}s"
    done
    if [ ${#gemm_joined[@]} -gt 0 ]; then
        echo "== gemm vs cuBLAS"
        python3 bench/compare.py --gemm "$OUT/cublas.json" "$OUT/table_gemm.md" "${gemm_joined[@]}"
    fi
fi
# Sort first (the budget cuts the end of the run). One process per size and
# key type: sort_keys_u32 and sort_pairs_u32 share one, sort_keys_f32 has its
# own. The small sizes share one process per key type.
sort_args=(--only sort --runs "${SORT_RUNS:-20}" --warmup "${SORT_WARMUP:-3}"
           --classic-max-log2 "${CLASSIC_SORT_MAX_LOG2:-24}"
           --algos "${SORT_ALGOS:-netsort,bitonic,radix}")
if has sort; then
    for be in $BACKENDS; do
        for t in u32 f32; do
            [ -n "$SORT_SMALL" ] &&
                bench1 "$be" "sort_small_$t" "${sort_args[@]}" --sizes "$SORT_SMALL" --case "_$t"
        done
        for k in $SORT_SIZES; do
            for t in u32 f32; do
                bench1 "$be" "sort_${k}_$t" "${sort_args[@]}" --sizes "$k" --case "_$t"
            done
        done
        echo "sort $be done at ${SECONDS}s"
    done
fi
# One process per size and element type, with buffers of exactly that size:
# on the H100 a 1 GiB range read 2x slower inside a 2 GiB buffer, or in a
# buffer made after many others, than in a fresh exact one (PERFORMANCE.md).
if [ -n "$rs" ]; then
    for be in $BACKENDS; do
        for k in $(seq "${MIN_LOG2:-10}" "${STEP:-2}" "${MAX_LOG2:-28}"); do
            for t in u32 f32 f64; do
                bench1 "$be" "${k}_$t" --only "$rs" --min-log2 "$k" --max-log2 "$k" --case "_$t"
            done
        done
        echo "reduce/scan $be done at ${SECONDS}s"
    done
fi
# Compaction, partition and gather, histograms, segmented sums and run-length
# encoding: one process per primitive and size, as reduce and scan.
for p in select histogram segreduce rle; do
    has "$p" || continue
    for be in $BACKENDS; do
        for k in $(seq "${MIN_LOG2:-10}" "${STEP:-2}" "${MAX_LOG2:-28}"); do
            bench1 "$be" "${p}_$k" --only "$p" --sizes "$k"
        done
        echo "$p $be done at ${SECONDS}s"
    done
done
joined=()
for be in $BACKENDS; do
    { [ -n "$rs" ] || has sort || has select || has histogram || has segreduce || has rle; } ||
        break
    files=("$OUT"/bench_"${be}"_*.json)
    [ -e "${files[0]}" ] || { echo "== gpgpu-bench $be: no results"; continue; }
    merge_json "$OUT/bench_$be.json" "${files[@]}"
    echo "== gpgpu-bench $be vs CUB"
    python3 bench/compare.py "$OUT/bench_$be.json" "$OUT/cub.json" "$OUT/table_$be.md"
    joined+=("$be=$OUT/bench_$be.json")
done
if has sort && [ ${#joined[@]} -gt 0 ]; then
    echo "== sort summary"
    python3 bench/compare.py --sort "$OUT/cub.json" "$OUT/table_sort.md" "${joined[@]}"
fi
echo "device run done at ${SECONDS}s"
# $OUT brings back few files: keep everything in one archive.
tar -C "$OUT" -czf /tmp/device-out.tgz . && rm -rf "${OUT:?}"/* && mv /tmp/device-out.tgz "$OUT/"
