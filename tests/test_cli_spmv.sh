#!/usr/bin/env bash
# `gpgpu matinfo`, `gpgpu spmv` and `gpgpu cg` end to end on small
# MatrixMarket files, real or generated (tests/matrices/matrices.py names each
# role's file in GPGPU_MATRIX_<ROLE>). Every y of spmv (f32 and f64, every
# --format with each of its --algo, x from a file, alpha/beta/y0, --tune, the
# kernel shape) is checked by spmv_check, which recomputes it on the CPU within
# a rounding-error bound;
# then the exit-2 cases, matinfo on a pattern symmetric file, and cg
# converging on the 3D Laplacian and on an SPD file.
#
# Usage: test_cli_spmv.sh GPGPU SPMV_CHECK BACKEND (through matrices.py run)
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C
# --tune must not write the user's cache file.
export GPGPU_TUNE_CACHE=

gpgpu=$1
check=$2
backend=$3
need="is not set: run the test through tests/matrices/matrices.py (meson test does)"
general=${GPGPU_MATRIX_GENERAL:?$need}
rectangular=${GPGPU_MATRIX_RECTANGULAR:?$need}
pattern_sym=${GPGPU_MATRIX_PATTERN_SYMMETRIC:?$need}
integer=${GPGPU_MATRIX_INTEGER:?$need}
spd=${GPGPU_MATRIX_SPD:?$need}
complex=${GPGPU_MATRIX_COMPLEX:?$need}
hermitian=${GPGPU_MATRIX_HERMITIAN:?$need}
. "$(dirname "$0")/cli_common.sh"
read -r rows cols entries <<<"$(mtx_size "$general")"
read -r _ rect_cols _ <<<"$(mtx_size "$rectangular")"
read -r spd_rows _ _ <<<"$(mtx_size "$spd")"
# f64 only where the shaders have doubles.
types=f32
grep -q '^has_f64: yes' "$tmp/info" && types="f32 f64"

# mtx FILE VALUE... : a one-column real array file.
mtx() {
    local file=$1
    shift
    {
        echo "%%MatrixMarket matrix array real general"
        echo "$# 1"
        for v in "$@"; do echo "$v"; done
    } >"$file"
}

# vec FILE N SEED : N reproducible values in [-1, 1) (Park-Miller keeps awk's
# doubles exact).
vec() {
    awk -v n="$2" -v x="$3" 'BEGIN { print "%%MatrixMarket matrix array real general";
        print n, 1; for (i = 0; i < n; i++) { x = (x * 16807) % 2147483647;
        printf "%.6f\n", x / 1073741823.5 - 1 } }' >"$1"
}

# spmv_ok NAME CHECK-ARGS -- SPMV-ARGS... : runs gpgpu spmv on the backend
# into $tmp/y.mtx; it must succeed, and spmv_check must accept y.
spmv_ok() {
    local name=$1 type=f32 matrix=""
    local -a check_args=()
    shift
    while [ "$1" != "--" ]; do check_args+=("$1"); shift; done
    shift
    for ((k = 1; k <= $#; k++)); do
        [ "${!k}" = "--type" ] && { k=$((k + 1)); type=${!k}; }
        case "${!k}" in *.mtx) [ -z "$matrix" ] && matrix=${!k} ;; esac
    done
    rm -f "$tmp/y.mtx"
    if ! "$gpgpu" spmv --backend "$backend" "$@" -o "$tmp/y.mtx" 2>"$tmp/stderr"; then
        fail "$name: gpgpu spmv $* failed: $(cat "$tmp/stderr")"
        return 1
    fi
    if ! "$check" "$type" "$matrix" "$tmp/y.mtx" "${check_args[@]}" >/dev/null 2>"$tmp/check"; then
        fail "$name: $(cat "$tmp/check")"
        return 1
    fi
}

# ---- every format with each algorithm it has, f32 and f64: a square general
# matrix, a rectangular one, a pattern file, an integer one
for file in "$general" "$rectangular" "$pattern_sym" "$integer"; do
    m=$(basename "$file" .mtx)
    for type in $types; do
        for algo in "" classic scalar vector balanced; do
            spmv_ok "$m $type csr ${algo:-default}" -- "$file" --type "$type" \
                ${algo:+--algo "$algo"}
        done
        for format in coo csc ell sell bsr; do
            for algo in "" scalar; do
                spmv_ok "$m $type $format ${algo:-default}" -- "$file" --type "$type" \
                    --format "$format" ${algo:+--algo "$algo"}
            done
        done
    done
done

# ---- x from a file, alpha, beta and y0, format parameters, the vector kernel's
# shape and --tune; a larger symmetric matrix
vec "$tmp/x_gen.mtx" "$cols" 4242
vec "$tmp/y0_gen.mtx" "$rows" 777
vec "$tmp/x_rect.mtx" "$rect_cols" 99
vec "$tmp/x_spd.mtx" "$spd_rows" 5
for type in $types; do
    spmv_ok "x file $type" --x "$tmp/x_gen.mtx" -- "$general" --type "$type" --x "$tmp/x_gen.mtx"
    spmv_ok "x file rectangular $type csc" --x "$tmp/x_rect.mtx" -- "$rectangular" \
        --type "$type" --x "$tmp/x_rect.mtx" --format csc
    spmv_ok "alpha beta y0 $type" --x "$tmp/x_gen.mtx" --alpha -2.5 --beta 0.5 \
        --y0 "$tmp/y0_gen.mtx" -- "$general" --type "$type" --x "$tmp/x_gen.mtx" --alpha -2.5 \
        --beta 0.5 --y0 "$tmp/y0_gen.mtx"
    spmv_ok "y0 alone (beta 1) $type sell" --beta 1 --y0 "$tmp/y0_gen.mtx" -- "$general" \
        --type "$type" --y0 "$tmp/y0_gen.mtx" --format sell
    spmv_ok "spd $type bsr 3" --x "$tmp/x_spd.mtx" -- "$spd" --type "$type" \
        --x "$tmp/x_spd.mtx" --format bsr --bsr-block 3
    spmv_ok "spd $type sell 8" --x "$tmp/x_spd.mtx" -- "$spd" --type "$type" \
        --x "$tmp/x_spd.mtx" --format sell --sell-c 8 --sell-sigma 16
    spmv_ok "spd $type vector 4x16" --x "$tmp/x_spd.mtx" -- "$spd" \
        --type "$type" --x "$tmp/x_spd.mtx" --algo vector --threads-per-row 4 --rows-per-group 16
done
spmv_ok "tune" --x "$tmp/x_spd.mtx" -- "$spd" --x "$tmp/x_spd.mtx" --tune
grep -q "spmv tune" "$tmp/stderr" || fail "--tune printed no progress line"
spmv_ok "tune quiet" -- "$spd" --tune --quiet
[ -s "$tmp/stderr" ] && fail "--tune --quiet printed: $(cat "$tmp/stderr")"
spmv_ok "repeat" -- "$general" --repeat 5
grep -q "GFLOP/s" "$tmp/stderr" || fail "--repeat printed no rate: $(cat "$tmp/stderr")"
# The rate is one the wall clock allows (within its 1000x of launch overhead): where the
# GPU timer measures nothing (GL on llvmpipe), it comes from the wall time and says so.
awk -v nnz="$entries" '/GFLOP\/s/ { for (i = 1; i <= NF; i++) { if ($i == "wall") wall = $(i - 2)
                                                 if ($i == "GFLOP/s") rate = $(i - 1) } }
     END { exit !(rate > 0 && rate <= 1000 * 2 * nnz / (wall * 1e3)) }' "$tmp/stderr" ||
    fail "--repeat: a rate the wall time does not allow: $(cat "$tmp/stderr")"

# ---- the checker itself refuses a wrong y (the last row off by 1e-3)
"$gpgpu" spmv --backend "$backend" "$general" -o "$tmp/y.mtx" 2>/dev/null
awk -v last=$((rows + 2)) 'NR == last { $1 = $1 + 1e-3 } { print }' "$tmp/y.mtx" >"$tmp/bad_y.mtx"
if "$check" f32 "$general" "$tmp/bad_y.mtx" >/dev/null 2>&1; then
    fail "spmv_check accepted a wrong y"
fi

# ---- standard output by default and with -o -, the same values as a file
"$gpgpu" spmv --backend "$backend" "$general" -o "$tmp/y_file.mtx" 2>"$tmp/stderr" ||
    fail "general to a file: $(cat "$tmp/stderr")"
"$gpgpu" spmv --backend "$backend" "$general" >"$tmp/y_stdout.mtx" 2>"$tmp/stderr" ||
    fail "general to stdout: $(cat "$tmp/stderr")"
"$gpgpu" spmv --backend "$backend" "$general" -o - >"$tmp/y_dash.mtx" 2>"$tmp/stderr" ||
    fail "general to -o -: $(cat "$tmp/stderr")"
cmp -s "$tmp/y_file.mtx" "$tmp/y_stdout.mtx" || fail "standard output differs from -o FILE"
cmp -s "$tmp/y_file.mtx" "$tmp/y_dash.mtx" || fail "-o - differs from -o FILE"
"$check" f32 "$general" "$tmp/y_stdout.mtx" >/dev/null 2>&1 || fail "general stdout: wrong y"

# ---- exit 2 with the reason
usage() { # NAME EXPECTED-TEXT COMMAND ARGS...
    local name=$1 text=$2
    shift 2
    "$gpgpu" "$@" >/dev/null 2>"$tmp/stderr"
    local rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name: exit $rc, expected 2 ($(cat "$tmp/stderr"))"
    elif ! grep -q -- "$text" "$tmp/stderr"; then
        fail "$name: the message '$(cat "$tmp/stderr")' does not say '$text'"
    fi
}
mtx "$tmp/x3.mtx" 1 2 3
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 2 2.0\n' >"$tmp/bad.mtx"
usage "complex" "complex" spmv "$complex" --backend "$backend"
usage "hermitian" "complex" spmv "$hermitian" --backend "$backend"
usage "x length" "has 3 entries, but the matrix has $cols columns" \
    spmv "$general" --x "$tmp/x3.mtx" --backend "$backend"
usage "y0 length" "has 3 entries, but the matrix has $rows rows" \
    spmv "$general" --y0 "$tmp/x3.mtx" --backend "$backend"
usage "malformed" "bad.mtx" spmv "$tmp/bad.mtx" --backend "$backend"
usage "bad format" "unknown value 'dia'" spmv "$general" --format dia
usage "unknown algo" "unknown value 'radix'" spmv "$general" --algo radix
usage "algo of another format" "--algo vector works on CSR matrices, not --format ell" \
    spmv "$general" --format ell --algo vector --backend "$backend"
usage "classic on coo" "CSR" spmv "$general" --format coo --algo classic --backend "$backend"
usage "integer type" "f32 or f64" spmv "$general" --type u32
usage "beta without y0" "needs --y0" spmv "$general" --beta 2
usage "shape without vector" "add --algo vector" spmv "$general" --threads-per-row 4
usage "ell past its fill" "ell_max_fill" \
    spmv "$pattern_sym" --format ell --ell-max-fill 2 --backend "$backend"
usage "no matrix" "a matrix file is required" spmv
usage "matinfo complex" "complex" matinfo "$complex"
usage "cg not square" "CG needs a square matrix" cg "$integer" --backend "$backend"
usage "cg b length" "has 3 entries, but the matrix has $rows rows" \
    cg "$general" --b "$tmp/x3.mtx" --backend "$backend"
usage "cg both inputs" "one of them" cg "$general" --laplace3d 4
# Beyond f32's range, for an f32 product: refused with the value and where it is, one rule
# for the matrix, the vectors and the numeric options (f64 takes them).
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e39\n' >"$tmp/big.mtx"
mtx "$tmp/big_x.mtx" 1 -4e38
mtx "$tmp/x2.mtx" 1 1
usage "f32 matrix value" "big.mtx:4: 1e39 is out of range for f32" spmv "$tmp/big.mtx"
usage "f32 x value" "big_x.mtx:4: -4e38 is out of range for f32" \
    spmv "$general" --type f32 --x "$tmp/big_x.mtx"
usage "f32 y0 value" "big_x.mtx:4: -4e38 is out of range for f32" \
    spmv "$general" --y0 "$tmp/big_x.mtx"
usage "f32 alpha" "--alpha: 1e39 is out of range for f32" spmv "$general" --alpha 1e39
usage "f32 beta" "--beta: -1e39 is out of range for f32" \
    spmv "$general" --beta -1e39 --y0 "$tmp/x3.mtx"
usage "cg f32 matrix value" "big.mtx:4: 1e39 is out of range for f32" cg "$tmp/big.mtx"
usage "cg f32 b value" "big_x.mtx:4: -4e38 is out of range for f32" \
    cg "$general" --b "$tmp/big_x.mtx"
if [ "$types" = "f32 f64" ]; then
    "$gpgpu" spmv --backend "$backend" "$tmp/big.mtx" --type f64 --x "$tmp/x2.mtx" --alpha 1e39 \
        -o "$tmp/y.mtx" 2>"$tmp/stderr" || fail "f64 past f32's range: $(cat "$tmp/stderr")"
fi

# ---- matinfo on the pattern symmetric file, against what awk counts in it: the
# stored entries, and each row's length once the triangle is mirrored
read -r p_rows p_cols p_entries p_nnz p_min p_max p_empty <<<"$(awk '/^%/ { next }
    !size { size = 1; rows = $1; cols = $2; entries = $3; next }
    { len[$1]++; if ($1 != $2) len[$2]++ }
    END { min = -1
          for (i = 1; i <= rows; i++) { n = len[i] + 0; nnz += n; empty += n == 0
                                        if (min < 0 || n < min) min = n; if (n > max) max = n }
          print rows, cols, entries, nnz, min, max + 0, empty + 0 }' "$pattern_sym")"
"$gpgpu" matinfo "$pattern_sym" >"$tmp/matinfo" 2>"$tmp/stderr" ||
    fail "matinfo $pattern_sym: $(cat "$tmp/stderr")"
for line in "rows: $p_rows" "cols: $p_cols" "nnz: $p_nnz" "file_entries: $p_entries" \
    "field: pattern" "symmetry: symmetric" "row_length_min: $p_min" "row_length_max: $p_max" \
    "empty_rows: $p_empty"; do
    grep -qx "$line" "$tmp/matinfo" || fail "matinfo $pattern_sym does not say '$line'"
done
# CSR bytes: (rows + 1 + nnz) u32 + nnz values.
index_bytes=$((4 * (p_rows + 1 + p_nnz)))
grep -Eq "^csr +$p_nnz +$((index_bytes + 4 * p_nnz)) +$((index_bytes + 8 * p_nnz))$" \
    "$tmp/matinfo" || fail "matinfo $pattern_sym: csr line wrong: $(grep '^csr' "$tmp/matinfo")"
# A real hermitian file is symmetric: read as one (the lower triangle mirrored).
printf '%%%%MatrixMarket matrix coordinate real hermitian\n3 3 3\n1 1 4\n2 1 1\n3 3 2\n' \
    >"$tmp/herm.mtx"
"$gpgpu" matinfo "$tmp/herm.mtx" >"$tmp/matinfo" 2>"$tmp/stderr" ||
    fail "matinfo real hermitian: $(cat "$tmp/stderr")"
grep -qx "nnz: 4" "$tmp/matinfo" && grep -qx "symmetry: hermitian" "$tmp/matinfo" ||
    fail "matinfo real hermitian: $(cat "$tmp/matinfo")"
"$gpgpu" matinfo --ell-max-fill 2 "$pattern_sym" >"$tmp/matinfo" 2>&1
grep -q "^ell  *refused: " "$tmp/matinfo" || fail "matinfo: ell not refused past --ell-max-fill 2"
"$gpgpu" matinfo --help | grep -q -- "--ell-max-fill" || fail "matinfo --help"
"$gpgpu" spmv --help | grep -q -- "--format" || fail "spmv --help"
"$gpgpu" help cg | grep -q -- "--laplace3d" || fail "gpgpu help cg"

# ---- cg: converges on the 3D Laplacian and small SPD matrices; x near ones
cg_ok() { # NAME MAX-ERROR ARGS...
    local name=$1 max_error=$2
    shift 2
    if ! "$gpgpu" cg --backend "$backend" --every 1000 "$@" >"$tmp/cg" 2>"$tmp/stderr"; then
        fail "$name: gpgpu cg $* failed: $(cat "$tmp/stderr") $(tail -3 "$tmp/cg")"
        return
    fi
    grep -q "^converged after" "$tmp/cg" || fail "$name: no 'converged' line"
    awk -v m="$max_error" '/^max \|x_i - 1\|/ { found = 1; if (!($5 <= m)) exit 1 }
                           END { exit !found }' "$tmp/cg" ||
        fail "$name: max error above $max_error: $(grep '^max' "$tmp/cg")"
}
cg_ok "laplace3d 8 f32" 1e-4 --laplace3d 8
# A GPU time per iteration that the wall time allows, or none where the timer measured nothing.
awk '/^time: / && /GPU/ { for (i = 1; i <= NF; i++) if ($i == "us") u[++n] = $(i - 1) }
     END { exit n == 2 && !(u[1] * 1000 >= u[2]) }' "$tmp/cg" ||
    fail "cg: a GPU time the wall time does not allow: $(grep '^time' "$tmp/cg")"
if [ "$types" = "f32 f64" ]; then
    cg_ok "laplace3d 8 f64" 1e-7 --laplace3d 8 --type f64 --format sell
    cg_ok "spd jacobi" 1e-6 "$spd" --type f64 --jacobi
    cg_ok "spd vector" 1e-2 "$spd" --type f64 --algo vector
    # x written, -o - moves the lines to stderr
    if "$gpgpu" cg --backend "$backend" --laplace3d 4 --type f64 -o - >"$tmp/x.mtx" 2>"$tmp/stderr"; then
        grep -q "^converged after" "$tmp/stderr" || fail "cg -o -: no 'converged' on stderr"
        awk 'NR > 2 { if ($1 < 1 - 1e-6 || $1 > 1 + 1e-6) bad = 1; n++ }
             END { exit bad || n != 64 }' "$tmp/x.mtx" || fail "cg -o -: x is not ones"
    else
        fail "cg -o -: $(cat "$tmp/stderr")"
    fi
fi
# NaN or inf in A or b: refused before the solve (exit 2), naming the entry.
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n2 2 nan\n3 3 4\n' \
    >"$tmp/nan_a.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n2 2 4\n3 3 4\n' \
    >"$tmp/diag.mtx"
mtx "$tmp/inf_b.mtx" 1 inf 1
mtx "$tmp/nan_b.mtx" 1 1 -nan
usage "cg nan in A" "nan_a.mtx: entry (2, 2) is nan" cg "$tmp/nan_a.mtx" --backend "$backend"
usage "cg inf in b" "inf_b.mtx: entry 2 is inf" cg "$tmp/diag.mtx" --b "$tmp/inf_b.mtx"
usage "cg nan in b" "nan_b.mtx: entry 3 is -nan" cg "$tmp/diag.mtx" --b "$tmp/nan_b.mtx"
# A breakdown stops the solve with its iteration and reason (exit 1): an indefinite A, and
# b = A*ones whose norm overflows f32.
cg_breaks() { # NAME EXPECTED-TEXT ARGS...
    local name=$1 text=$2
    shift 2
    "$gpgpu" cg --backend "$backend" "$@" >"$tmp/cg" 2>"$tmp/stderr"
    local rc=$?
    [ "$rc" -eq 1 ] || fail "$name: exit $rc, expected 1 ($(cat "$tmp/stderr"))"
    grep -q -- "$text" "$tmp/stderr" || fail "$name: '$(cat "$tmp/stderr")' lacks '$text'"
    grep -q "^broke down after" "$tmp/cg" || fail "$name: no 'broke down' line: $(cat "$tmp/cg")"
}
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 -2\n' >"$tmp/indef.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 3e38\n2 2 3e38\n' \
    >"$tmp/huge.mtx"
cg_breaks "cg indefinite" "breakdown at iteration 1: p.Ap = -7, so A is not positive definite" \
    "$tmp/indef.mtx"
cg_breaks "cg f32 overflow" "breakdown at iteration 0: ||b||^2 = inf: f32 overflowed" \
    "$tmp/huge.mtx"
# A Laplacian whose values no storage binding holds (674^3 rows, 8.6 GB of f32 values) is
# refused before it is generated; one past the 2^31 - 1 entries the shaders index, at once.
timeout 60 "$gpgpu" cg --backend "$backend" --laplace3d 674 >/dev/null 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] && grep -q "more than one storage binding" "$tmp/stderr" ||
    fail "cg --laplace3d 674: exit $rc: $(cat "$tmp/stderr")"
usage "cg laplace3d past the index" "675 is out of range \[1, 674\]" cg --laplace3d 675
# 0 x 0: converged at once, and no error to report on an empty x.
printf '%%%%MatrixMarket matrix coordinate real general\n0 0 0\n' >"$tmp/empty.mtx"
"$gpgpu" cg --backend "$backend" "$tmp/empty.mtx" >"$tmp/cg" 2>"$tmp/stderr" ||
    fail "cg 0 x 0: $(cat "$tmp/stderr")"
grep -q "^max |x_i - 1|: none" "$tmp/cg" || fail "cg 0 x 0: $(cat "$tmp/cg")"
"$gpgpu" cg --help | grep -q "with a NaN or infinite entry is refused" ||
    fail "cg --help: non-finite input"
# Progress lines: none for a run shorter than 2 s, none with --quiet even where every line
# is due (GPGPU_PROGRESS_AFTER=0), and then the lines of each long step.
quiet_ok() { # NAME ARGS... : succeeds, with nothing on stderr
    local name=$1
    shift
    "$gpgpu" "$@" >/dev/null 2>"$tmp/stderr" || fail "$name: exit $?: $(cat "$tmp/stderr")"
    [ -s "$tmp/stderr" ] && fail "$name printed on stderr: $(cat "$tmp/stderr")"
}
progress_ok() { # NAME TEXT ARGS... : succeeds, TEXT among the progress lines
    local name=$1 text=$2
    shift 2
    GPGPU_PROGRESS_AFTER=0 "$gpgpu" "$@" >/dev/null 2>"$tmp/stderr" ||
        fail "$name: exit $?: $(cat "$tmp/stderr")"
    grep -q -- "$text" "$tmp/stderr" || fail "$name: no '$text' in: $(cat "$tmp/stderr")"
}
quiet_ok "spmv, a short run" spmv "$spd" --backend "$backend" -o "$tmp/y.mtx"
quiet_ok "cg, a short run" cg --laplace3d 4 --backend "$backend"
for cmd in "spmv $spd --tune -o $tmp/y.mtx" "info" \
    "cg $spd --jacobi --tol 1e-3"; do
    GPGPU_PROGRESS_AFTER=0 quiet_ok "$cmd --quiet" $cmd --quiet --backend "$backend"
done
GPGPU_PROGRESS_AFTER=0 quiet_ok "matinfo --quiet" matinfo "$spd" --quiet
progress_ok "matinfo" "measuring sell" matinfo "$spd"
progress_ok "spmv" "timing: product 3 of 3" spmv "$spd" --repeat 3 \
    --backend "$backend" -o "$tmp/y.mtx"
progress_ok "spmv --tune" "spmv tune: 1 invocations per row" spmv "$spd" --tune \
    --backend "$backend" -o "$tmp/y.mtx"
progress_ok "cg" "cg: iteration 2, ||r||/||b|| = " cg --laplace3d 6 --backend "$backend"
progress_ok "cg --laplace3d" "generating the 3D Laplacian of 6^3 rows" cg --laplace3d 6 \
    --backend "$backend"

# Not symmetric: a warning, then no convergence (exit 1).
"$gpgpu" cg --backend "$backend" "$general" --max-iter 3 >/dev/null 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] || fail "cg $general: exit $rc, expected 1"
grep -q "is not symmetric" "$tmp/stderr" || fail "cg $general: no warning"

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
exit 0
