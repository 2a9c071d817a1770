#!/usr/bin/env bash
# The distributed CG's time per iteration on one node, against the single-process gpgpu cg
# in the same run (docs/DISTRIBUTED.md, "Measuring"). For each backend, size and type:
#   1. gpgpu cg --laplace3d N (the baseline: one process, no MPI);
#   2. gpgpu-mpi cg on 1 rank with --no-split (the same waits for the GPU as gpgpu cg: the
#      cost of libgpgpu_mpi and MPI alone);
#   3. gpgpu-mpi cg on each of RANKS ranks, each variant and overlap, with the split: local
#      products, the exchange's exposed part (and of it the wait for messages), the
#      reductions (and of them MPI_Allreduce) and the vector updates, per iteration, the
#      mean of the ranks.
# Each run stops after ITER iterations (not converging is expected: exit 1 is taken).
# MODE=weak pairs each rank count with the cube that keeps about 2^24 rows a rank
# (256, 323, 406, 512 for 1, 2, 4, 8 ranks) instead of SIZES.
#
# Usage: bench/mpi_scaling.sh            (from the repository root)
# Environment (defaults in brackets):
#   B [build-device]        the build with gpgpu and gpgpu-mpi
#   BACKENDS ["gl vulkan"], SIZES ["128 256"], TYPES ["f32 f64"], RANKS ["1 2 4"]
#   VARIANTS ["classic single"], OVERLAPS ["thread"] (also: inline none), ITER [200]
#   MODE [strong]           or weak
#   OUT [/tmp/out]          the logs (one per run) and table.txt
#   MPI_DEBS [.mpi]         Open MPI's .deb files, unpacked with dpkg -x where they are
#   MPIRUN [mpirun]; MPI_FLAGS ["--allow-run-as-root --oversubscribe --mca pml ob1
#                            --mca btl self,vader --bind-to none"]: one node's shared
#                            memory, and no binding, so that each rank's exchange thread
#                            and its GPU driver's threads find free cores
#   PROC_TIMEOUT [300]      seconds one run may take
#   PMIX_MCA_preg [native]  PMIx's regex component: on a host whose PMIx leaves it to choose
#                           (gVisor sandboxes, Debian 12's PMIx 4.2.2) mpirun's daemon died in
#                           pmix_preg_base_generate_ppn before any rank; naming one works
set -uo pipefail
export PMIX_MCA_preg=${PMIX_MCA_preg:-native}
if compgen -G "${MPI_DEBS:-.mpi}/*.deb" >/dev/null; then
    for f in "${MPI_DEBS:-.mpi}"/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
B=${B:-build-device}
OUT=${OUT:-/tmp/out}
BACKENDS=${BACKENDS:-gl vulkan}
SIZES=${SIZES:-128 256}
TYPES=${TYPES:-f32 f64}
RANKS=${RANKS:-1 2 4}
VARIANTS=${VARIANTS:-classic single}
OVERLAPS=${OVERLAPS:-thread}
ITER=${ITER:-200}
MODE=${MODE:-strong}
MPIRUN=${MPIRUN:-mpirun}
MPI_FLAGS=${MPI_FLAGS:---allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader --bind-to none}
PROC_TIMEOUT=${PROC_TIMEOUT:-300}
mkdir -p "$OUT"
table=$OUT/table.txt

# The cube of about 2^24 rows a rank: round((2^24 P)^(1/3)).
weak_size() {
    awk -v p="$1" 'BEGIN { printf "%d\n", exp(log(16777216 * p) / 3) + 0.5 }'
}

# The per-iteration wall time (us) a log's "time:" line gives, gpgpu cg's or gpgpu-mpi cg's.
per_iteration() {
    sed -n 's/.*per iteration \(.* us GPU, \)\{0,1\}\([0-9.]*\) us wall.*/\2/p' "$1" | head -1
}

# The per-iteration GPU time (us) of a log's "time:" line: the rank's own work on the GPU, "-"
# where the line has none.
per_iteration_gpu() {
    local v
    v=$(sed -n 's/.*per iteration \([0-9.]*\) us GPU, .*/\1/p' "$1" | head -1)
    echo "${v:--}"
}

# A split_us line's value of KEY (gpgpu-mpi cg), "-" where there is none.
split_value() {
    local v
    v=$(grep -m1 '^split_us ' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p")
    echo "${v:--}"
}

# run LOG COMMAND...: one run under the time limit; 0 and 1 (not converged) are results.
run() {
    local log=$1 rc
    shift
    timeout "$PROC_TIMEOUT" "$@" >"$log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
        echo "rc=$rc: $*" >&2
        grep -v '^-\|^ \|^$' "$log" | tail -3 >&2
        return 1
    fi
}

# The table's row of one run: its parts per iteration and the ratio to gpgpu cg's.
row() { # BACKEND N TYPE TOOL RANKS VARIANT OVERLAP LOG BASELINE_US
    local us ratio
    us=$(per_iteration "$8")
    ratio=$(awk -v a="$us" -v b="$9" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / b; else print "-" }')
    printf '%-7s %4s %-4s %-10s %5s %-7s %-7s %9s %9s %9s %9s %9s %9s %9s %9s %9s %7s\n' \
        "$1" "$2" "$3" "$4" "$5" "$6" "$7" "${us:--}" "$(per_iteration_gpu "$8")" \
        "$(split_value "$8" spmv)" \
        "$(split_value "$8" halo)" "$(split_value "$8" wait)" "$(split_value "$8" reduce)" \
        "$(split_value "$8" allreduce)" "$(split_value "$8" update)" \
        "$(split_value "$8" other)" "$ratio" | tee -a "$table"
}

printf '%-7s %4s %-4s %-10s %5s %-7s %-7s %9s %9s %9s %9s %9s %9s %9s %9s %9s %7s\n' backend N type \
    tool ranks variant overlap us/iter gpu_us spmv halo wait reduce allreduce update other \
    vs_cg | tee "$table"
for be in $BACKENDS; do
    GPGPU_BACKEND=$be "$B/tools/gpgpu" info --backend "$be" >"$OUT/info_$be.txt" 2>&1
    for type in $TYPES; do
        if [ "$MODE" = weak ]; then
            pairs=""
            for p in $RANKS; do pairs="$pairs $(weak_size "$p"):$p"; done
        else
            pairs=""
            for n in $SIZES; do for p in $RANKS; do pairs="$pairs $n:$p"; done; done
        fi
        last_n=""
        for pair in $pairs; do
            n=${pair%:*} p=${pair#*:}
            common=(cg --laplace3d "$n" --type "$type" --backend "$be" --max-iter "$ITER"
                    --every "$ITER" --quiet)
            if [ "$n" != "$last_n" ]; then
                base=$OUT/cg_${be}_${n}_$type.log
                run "$base" "$B/tools/gpgpu" "${common[@]}"
                base_us=$(per_iteration "$base")
                row "$be" "$n" "$type" "gpgpu" 1 classic - "$base" "$base_us"
                log=$OUT/mpi_${be}_${n}_${type}_p1_nosplit.log
                # shellcheck disable=SC2086 # MPI_FLAGS is a word list
                run "$log" "$MPIRUN" $MPI_FLAGS -np 1 "$B/tools/mpi/gpgpu-mpi" "${common[@]}" \
                    --no-split
                row "$be" "$n" "$type" "mpi-nosplit" 1 classic thread "$log" "$base_us"
                last_n=$n
            fi
            for variant in $VARIANTS; do
                for overlap in $OVERLAPS; do
                    log=$OUT/mpi_${be}_${n}_${type}_p${p}_${variant}_$overlap.log
                    # shellcheck disable=SC2086
                    run "$log" "$MPIRUN" $MPI_FLAGS -np "$p" "$B/tools/mpi/gpgpu-mpi" \
                        "${common[@]}" --variant "$variant" --overlap "$overlap" &&
                        row "$be" "$n" "$type" "mpi" "$p" "$variant" "$overlap" "$log" \
                            "$base_us"
                done
            done
        done
    done
done
echo "table: $table (us per iteration; gpu_us: rank 0's own GPU work; the parts are the mean of"
echo "the ranks; vs_cg: the wall time per iteration over gpgpu cg's on the same N and type)"
