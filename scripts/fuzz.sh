#!/usr/bin/env bash
# Builds the libFuzzer harnesses in build-fuzz/ (clang, -Dfuzz=true) and runs
# each for a given CPU time, then prints what each did: CPU seconds, runs,
# coverage (cov: edges, ft: features) and findings.
#
#   scripts/fuzz.sh [-t CPU_SECONDS] [-u HH:MM] [-r] [HARNESS...]
#
# CPU_SECONDS defaults to 1800 per harness; HARNESS defaults to every
# fuzz_*-fuzzer. A harness runs again (resuming its corpus) until it has had
# its CPU time: libFuzzer's -max_total_time counts wall time, which on a
# shared machine is more. -u stops every run by that wall-clock time (date -d
# reads it), whatever CPU time it had; the report says how much. -r only
# prints the report of the runs so far (build-fuzz/logs). The corpus grows in build-fuzz/corpus/NAME, seeded
# from tests/fuzz/corpus_NAME, tests/fuzz/regressions/NAME and, for the
# MatrixMarket readers, the small files of ../shared/data/matrices (copied at
# run time, never committed); logs go to build-fuzz/logs/NAME.log and
# findings (crash-, leak-, timeout-, oom- files) to build-fuzz/findings/NAME/.
# A finding is fixed, then copied to tests/fuzz/regressions/NAME/ so that
# the cpu suite replays it.
set -euo pipefail
cd "$(dirname "$0")/.."

cpu_budget=1800
until_epoch=0
report_only=false
while [ $# -gt 0 ]; do
    case $1 in
    -t) cpu_budget=$2; shift 2 ;;
    -u) until_epoch=$(date -d "$2" +%s); shift 2 ;;
    -r) report_only=true; shift ;;
    *) break ;;
    esac
done
all=(fuzz_mtx_vector fuzz_mtx_matrix fuzz_sparse_validate fuzz_cli_args)
harnesses=("${@:-${all[@]}}")

build=build-fuzz

shared=../shared/data/matrices

# The seeds of one harness in its corpus folder; reader inputs start with a
# mode byte (fuzz_mtx_*.c), so each shared file gets one, plain and gzip'ed.
seed() {
    local name=$1 corpus=$build/corpus/$1
    mkdir -p "$corpus" "$build/findings/$name" "$build/logs"
    cp tests/fuzz/corpus_"${name#fuzz_}"/* "$corpus"/ 2>/dev/null || true
    find tests/fuzz/regressions/"$name" -type f ! -name '.*' -exec cp {} "$corpus"/ \;
    case $name in
    fuzz_mtx_*)
        [ -d "$shared" ] || return 0
        find "$shared" -name '*.mtx' -size -8k | while read -r f; do
            base=$(basename "$f" .mtx)
            { printf '\003'; cat "$f"; } >"$corpus/shared_${base}"
            { printf '\001'; cat "$f"; } >"$corpus/shared_${base}_gz"
        done ;;
    esac
}

# CPU seconds (user + system) the children of this shell have used so far;
# `times` runs in this shell, not in a $(...) subshell, which has no children.
children_cpu() {
    times >"$build/logs/times"
    tail -n 1 "$build/logs/times" | awk '{ split($1, u, "m"); split($2, s, "m");
        printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

run() {
    local name=$1 exe=$build/tests/fuzz/$1-fuzzer log=$build/logs/$1.log
    local extra=() start used=0
    case $name in
    fuzz_mtx_*) extra=(-dict=tests/fuzz/mtx.dict) ;;
    fuzz_cli_args) extra=(-close_fd_mask=3) ;; # the parsers' help and errors
    esac
    seed "$name"
    children_cpu >"$build/logs/$name.start"
    start=$(cat "$build/logs/$name.start")
    : >"$log"
    while [ "$used" -lt "$cpu_budget" ]; do
        local wall=$((cpu_budget - used))
        if [ "$until_epoch" -gt 0 ]; then
            local left=$((until_epoch - $(date +%s)))
            [ "$left" -gt 0 ] || break
            [ "$left" -lt "$wall" ] && wall=$left
        fi
        # A finding stops the engine: the loop goes on from the corpus.
        nice -n 19 "$exe" "$build/corpus/$name" "${extra[@]}" \
            -max_total_time=$wall -rss_limit_mb=2048 -malloc_limit_mb=2048 \
            -timeout=10 -max_len=8192 -print_final_stats=1 \
            -artifact_prefix="$build/findings/$name/" >>"$log" 2>&1 || true
        children_cpu >"$build/logs/$name.now"
        used=$(($(cat "$build/logs/$name.now") - start))
        echo "$used" >"$build/logs/$name.cpu" # so far, should this script be stopped
    done
}

report() {
    local name=$1 log=$build/logs/$1.log
    local runs cov ft findings
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{ n += $2 } END { print n + 0 }')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | awk '{ print $2 }')
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | awk '{ print $2 }')
    findings=$(find "$build/findings/$name" -type f | wc -l)
    printf '%-22s %8s %12s %6s %7s %9s\n' "$name" "$(cat "$build/logs/$name.cpu" 2>/dev/null)" "$runs" \
        "${cov:-?}" "${ft:-?}" "$findings"
}

if ! $report_only; then
    [ -d "$build" ] || CC=clang meson setup "$build" -Dfuzz=true -Dvulkan=disabled -Dglfw=disabled
    nice -n 10 meson compile -C "$build" "${harnesses[@]/%/-fuzzer}" >/dev/null
    for name in "${harnesses[@]}"; do
        run "$name"
    done
fi
printf '%-22s %8s %12s %6s %7s %9s\n' harness cpu_s runs cov ft findings
for name in "${harnesses[@]}"; do
    report "$name"
done
