#!/usr/bin/env bash
# `gpgpu-mpi cg` and `gpgpu-mpi spmv` on NP ranks against `gpgpu cg` and `gpgpu spmv` on the
# same inputs: cg reaches gpgpu cg's iteration count within one and its true residual (the
# 3D Laplacian, f64 and f32, both variants and overlaps; the SPD matrix with --jacobi), x
# from -o is ones; spmv writes the same file as gpgpu spmv for integer data and a y that
# spmv_check accepts for real data (a rectangular matrix, --alpha, --beta, --y0); --repeat
# prints its split; the exit codes and messages are gpgpu's (said once, by rank 0). The
# matrices are the roles of tests/matrices/matrices.py (GPGPU_MATRIX_<ROLE>).
#
# Usage: test_mpi_cli.sh MPIRUN NP GPGPU GPGPU_MPI SPMV_CHECK BACKEND
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

mpirun=$1
np=$2
gpgpu=$3
gpgpu_mpi=$4
check=$5
backend=$6
need="is not set: run the test through tests/matrices/matrices.py (meson test does)"
general=${GPGPU_MATRIX_GENERAL:?$need}
rectangular=${GPGPU_MATRIX_RECTANGULAR:?$need}
integer=${GPGPU_MATRIX_INTEGER:?$need}
spd=${GPGPU_MATRIX_SPD:?$need}
complex=${GPGPU_MATRIX_COMPLEX:?$need}
. "$(dirname "$0")/../cli_common.sh"
read -r rect_rows rect_cols _ <<<"$(mtx_size "$rectangular")"
read -r _ int_cols _ <<<"$(mtx_size "$integer")"
types=f32
grep -q '^has_f64: yes' "$tmp/info" && types="f32 f64"

mpi() { # ARGS...: gpgpu-mpi on NP ranks, stdout and stderr into $tmp/out and $tmp/err
    "$mpirun" --allow-run-as-root --oversubscribe -np "$np" "$gpgpu_mpi" "$@" \
        >"$tmp/out" 2>"$tmp/err"
}

# field FILE PATTERN N: the N-th word of the first line that starts with PATTERN
field() {
    awk -v p="$2" -v n="$3" 'index($0, p) == 1 { print $n; exit }' "$1"
}

# ---- cg against gpgpu cg: iterations within one, true residual within twice (+ tol/10)
cg_same() { # NAME TOL "GPGPU-MPI'S OWN OPTIONS" ARGS...
    local name=$1 tol=$2 own=$3
    shift 3
    if ! "$gpgpu" cg --backend "$backend" --every 1000 "$@" >"$tmp/serial" 2>"$tmp/serr"; then
        fail "$name: gpgpu cg $* failed: $(cat "$tmp/serr")"
        return
    fi
    # shellcheck disable=SC2086 # own is a word list
    if ! mpi cg --backend "$backend" --every 1000 $own "$@"; then
        fail "$name: gpgpu-mpi cg $* failed: $(grep -v '^-\|^ \|^$' "$tmp/err" | head -3)"
        return
    fi
    local n1 n2 r1 r2
    n1=$(field "$tmp/serial" "converged after" 3)
    n2=$(field "$tmp/out" "converged after" 3)
    r1=$(field "$tmp/serial" "true residual" 7)
    r2=$(field "$tmp/out" "true residual" 7)
    if [ -z "$n1" ] || [ -z "$n2" ] || [ -z "$r2" ]; then
        fail "$name: no 'converged' or 'true residual' line: $(head -20 "$tmp/out")"
        return
    fi
    awk -v a="$n1" -v b="$n2" 'BEGIN { exit !(b >= a - 1 && b <= a + 1) }' ||
        fail "$name: $n2 iterations on $np ranks, gpgpu cg $n1"
    awk -v a="$r1" -v b="$r2" -v t="$tol" 'BEGIN { exit !(b <= 2 * a + t / 10) }' ||
        fail "$name: true residual $r2 on $np ranks, gpgpu cg $r1"
    [ "$(grep -Ec "^rank [0-9]+: (rows [0-9]+-[0-9]+|no rows), .* device [0-9]+, .*, uuid " "$tmp/out")" -eq "$np" ] ||
        fail "$name: not one line per rank: $(grep '^rank' "$tmp/out")"
    grep -q "^per iteration (mean of $np ranks): local spmv .* us, halo exchange (exposed) .* us (.* waiting for messages), reductions .* us (.* in MPI_Allreduce), vector updates .* us" \
        "$tmp/out" || fail "$name: no split line: $(tail -3 "$tmp/out")"
    grep -q "^split_us ranks=$np iterations=$n2 spmv=" "$tmp/out" ||
        fail "$name: no split_us line: $(tail -3 "$tmp/out")"
}
cg_same "laplace3d 6 f32" 1e-5 "" --laplace3d 6
cg_same "laplace3d 6 f32 single inline no-split" 1e-5 \
    "--variant single --overlap inline --no-split" --laplace3d 6
if [ "$types" = "f32 f64" ]; then
    cg_same "laplace3d 6 f64 overlap none" 1e-8 "--overlap none" --laplace3d 6 --type f64
    cg_same "spd jacobi" 1e-8 "" "$spd" --type f64 --jacobi
    grep -q "^cg classic: 2 MPI_Allreduce an iteration; exchange overlap thread" "$tmp/out" ||
        fail "spd: no 'cg classic' line: $(tail -2 "$tmp/out")"
    # x written from rank 0 (-o), the lines then on stderr: all ones
    if mpi cg --backend "$backend" --laplace3d 4 --type f64 -o "$tmp/x.mtx"; then
        awk 'NR > 2 { if ($1 < 1 - 1e-6 || $1 > 1 + 1e-6) bad = 1; n++ }
             END { exit bad || n != 64 }' "$tmp/x.mtx" || fail "cg -o: x is not ones"
    else
        fail "cg -o: $(cat "$tmp/err")"
    fi
    mpi cg --backend "$backend" --laplace3d 4 --type f64 -o -
    grep -q "^converged after" "$tmp/err" || fail "cg -o -: no 'converged' on stderr"
    [ "$(awk 'NR > 2' "$tmp/out" | wc -l)" -eq 64 ] || fail "cg -o -: x is not on stdout"
fi

# ---- spmv: integers give gpgpu spmv's very file; real data within spmv_check's bound
spmv_same() { # NAME ARGS...
    local name=$1
    shift
    "$gpgpu" spmv --backend "$backend" "$@" -o "$tmp/y1.mtx" 2>"$tmp/serr" ||
        fail "$name: gpgpu spmv failed: $(cat "$tmp/serr")"
    mpi spmv --backend "$backend" "$@" -o "$tmp/y2.mtx" ||
        fail "$name: gpgpu-mpi spmv failed: $(cat "$tmp/err")"
    cmp -s "$tmp/y1.mtx" "$tmp/y2.mtx" || fail "$name: y differs from gpgpu spmv's"
}
awk -v n="$int_cols" 'BEGIN { print "%%MatrixMarket matrix array real general"; print n, 1;
             for (i = 0; i < n; i++) print (i * 7) % 11 - 5 }' >"$tmp/x_int.mtx"
for type in $types; do
    spmv_same "integer $type" "$integer" --x "$tmp/x_int.mtx" --type "$type"
done
awk -v n="$rect_cols" 'BEGIN { print "%%MatrixMarket matrix array real general"; print n, 1;
             for (i = 0; i < n; i++) printf "%.6f\n", sin(i) }' >"$tmp/x_rect.mtx"
awk -v n="$rect_rows" 'BEGIN { print "%%MatrixMarket matrix array real general"; print n, 1;
             for (i = 0; i < n; i++) printf "%.6f\n", cos(i) }' >"$tmp/y_rect.mtx"
for type in $types; do
    if mpi spmv --backend "$backend" "$rectangular" --type "$type" --x "$tmp/x_rect.mtx" \
        --alpha -2 --beta 0.5 --y0 "$tmp/y_rect.mtx" -o "$tmp/y.mtx"; then
        "$check" "$type" "$rectangular" "$tmp/y.mtx" --x "$tmp/x_rect.mtx" --alpha -2 \
            --beta 0.5 --y0 "$tmp/y_rect.mtx" >/dev/null 2>"$tmp/check" ||
            fail "rectangular $type: $(cat "$tmp/check")"
    else
        fail "rectangular $type: $(cat "$tmp/err")"
    fi
done
mpi spmv --backend "$backend" "$general" --repeat 3 -o "$tmp/y.mtx" ||
    fail "spmv --repeat: $(cat "$tmp/err")"
grep -q "3 products: .* us wall each (local .*, halo exposed .* waiting.*GFLOP/s" "$tmp/err" ||
    fail "spmv --repeat printed no split: $(cat "$tmp/err")"

# ---- exit codes and messages as gpgpu's, once
same_exit() { # NAME TEXT ARGS...: both tools exit alike and say TEXT (gpgpu-mpi once)
    local name=$1 text=$2 rc1 rc2
    shift 2
    "$gpgpu" "$@" >/dev/null 2>"$tmp/serr"
    rc1=$?
    mpi "$@"
    rc2=$?
    [ "$rc1" -eq "$rc2" ] || fail "$name: gpgpu-mpi exit $rc2, gpgpu $rc1"
    [ "$(grep -c -- "$text" "$tmp/err")" -eq 1 ] ||
        fail "$name: '$text' not said once: $(grep -v '^-\|^ \|^$' "$tmp/err")"
    grep -q -- "$text" "$tmp/serr" || fail "$name: gpgpu does not say '$text'"
}
same_exit "unknown option" "unknown option '--bogus'" cg --laplace3d 4 --bogus
same_exit "both inputs" "one of them" cg "$general" --laplace3d 4
same_exit "complex" "complex" spmv "$complex" --backend "$backend"
same_exit "not square" "CG needs a square matrix" cg "$rectangular" --backend "$backend"
same_exit "no file" "cannot read the matrix" cg "$tmp/none.mtx" --backend "$backend"
same_exit "not converged" "did not converge within 3 iterations" \
    cg --laplace3d 6 --max-iter 3 --backend "$backend"
same_exit "not symmetric" "is not symmetric" cg "$general" --max-iter 1 --backend "$backend"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 -2\n2 1 1\n2 2 -2\n3 2 1\n3 3 -2\n' \
    >"$tmp/negative.mtx"
same_exit "breakdown" "breakdown at iteration 1: p.Ap = .*, so A is not positive definite" \
    cg "$tmp/negative.mtx" --backend "$backend"
grep -q "^broke down after 0 iterations" "$tmp/out" || fail "breakdown: no 'broke down' line"
mpi cg --laplace3d 4 --variant pipelined
[ $? -eq 2 ] && [ "$(grep -c "unknown value 'pipelined'" "$tmp/err")" -eq 1 ] ||
    fail "--variant pipelined: not one usage error, exit 2"
mpi cg --laplace3d 4 --tune
[ $? -eq 2 ] && grep -q "tune is not taken" "$tmp/err" || fail "--tune: not refused"
mpi cg --help
grep -q -- "--variant" "$tmp/out" || fail "gpgpu-mpi cg --help says nothing of --variant"

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
exit 0
