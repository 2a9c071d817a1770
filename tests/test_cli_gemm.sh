#!/usr/bin/env bash
# `gpgpu gemm` end to end: array files (column-major, as MatrixMarket defines
# them) made here of awkward shapes, every --method, f32 and f64, transposes
# and alpha; each C checked by gemm_check, which recomputes it on the CPU
# within a rounding-error bound. Then generated input (--m --n --k, with
# --check and its report), a coordinate file read as dense, standard output,
# and the exit-2 cases (a dimension mismatch among them).
#
# Usage: test_cli_gemm.sh GPGPU GEMM_CHECK BACKEND
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

gpgpu=$1
check=$2
backend=$3
. "$(dirname "$0")/cli_common.sh"
types=f32
grep -q '^has_f64: yes' "$tmp/info" && types="f32 f64"

# array FILE ROWS COLS SEED : a dense array file of values in (-2, 2), column-major.
array() {
    awk -v r="$2" -v c="$3" -v s="$4" 'BEGIN {
        srand(s); print "%%MatrixMarket matrix array real general"; print r, c
        for (j = 0; j < c; j++) for (i = 0; i < r; i++) printf "%.17g\n", 4 * rand() - 2 }' >"$1"
}

# gemm_ok NAME TYPE A B [GPGPU-ARGS...] : gpgpu gemm A B must succeed and C pass gemm_check.
gemm_ok() {
    local name=$1 type=$2 a=$3 b=$4 flags=()
    shift 4
    for f in "$@"; do
        case $f in --transpose-a|--transpose-b) flags+=("$f") ;; esac
    done
    rm -f "$tmp/c.mtx"
    if ! "$gpgpu" gemm "$a" "$b" -o "$tmp/c.mtx" --type "$type" --backend "$backend" "$@" \
        >"$tmp/stdout" 2>"$tmp/stderr"; then
        fail "$name: gpgpu gemm failed: $(cat "$tmp/stderr")"
        return
    fi
    local alpha=()
    for ((i = 1; i <= $#; i++)); do
        [ "${!i}" = --alpha ] && { j=$((i + 1)); alpha=(--alpha "${!j}"); }
    done
    "$check" "$type" "$a" "$b" "$tmp/c.mtx" "${flags[@]}" "${alpha[@]}" >"$tmp/check" 2>&1 ||
        fail "$name: $(cat "$tmp/check")"
}

# usage_error NAME EXPECTED-TEXT -- GPGPU-ARGS... : exit 2 with the text on stderr.
usage_error() {
    local name=$1 text=$2
    shift 3
    "$gpgpu" gemm "$@" --backend "$backend" >"$tmp/stdout" 2>"$tmp/stderr"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2 ($(cat "$tmp/stderr"))"
    grep -q -- "$text" "$tmp/stderr" || fail "$name: stderr lacks '$text': $(cat "$tmp/stderr")"
}

array "$tmp/a.mtx" 37 19 1      # A: 37 x 19
array "$tmp/b.mtx" 19 23 2      # B: 19 x 23
array "$tmp/at.mtx" 19 37 3     # stored A^T: 19 x 37
array "$tmp/bt.mtx" 23 19 4     # stored B^T: 23 x 19
array "$tmp/row.mtx" 1 70 5     # 1 x 70
array "$tmp/col.mtx" 70 1 6     # 70 x 1
array "$tmp/one.mtx" 1 1 7

for type in $types; do
    for method in fast 1 2 6; do
        gemm_ok "$type $method AB" "$type" "$tmp/a.mtx" "$tmp/b.mtx" --method "$method"
    done
    gemm_ok "$type At B" "$type" "$tmp/at.mtx" "$tmp/b.mtx" --transpose-a
    gemm_ok "$type A Bt" "$type" "$tmp/a.mtx" "$tmp/bt.mtx" --transpose-b --method 6 --tile 8 --outputs 2
    gemm_ok "$type At Bt alpha" "$type" "$tmp/at.mtx" "$tmp/bt.mtx" --transpose-a --transpose-b --alpha -0.5
    gemm_ok "$type outer" "$type" "$tmp/col.mtx" "$tmp/row.mtx" --method 2 --tile 8
    gemm_ok "$type inner" "$type" "$tmp/row.mtx" "$tmp/col.mtx"
    gemm_ok "$type 1x1" "$type" "$tmp/one.mtx" "$tmp/one.mtx" --method 1 --tile 32
done

# A coordinate file is read as a dense matrix (zeros where no entry is given).
printf '%%%%MatrixMarket matrix coordinate real general\n3 2 2\n1 1 2.5\n3 2 -1\n' >"$tmp/coo.mtx"
array "$tmp/b2.mtx" 2 4 8
gemm_ok "coordinate A" f32 "$tmp/coo.mtx" "$tmp/b2.mtx"

# Standard output, and the shape C is written in.
"$gpgpu" gemm "$tmp/one.mtx" "$tmp/one.mtx" -o - --backend "$backend" >"$tmp/stdout" 2>&1 ||
    fail "-o -: $(cat "$tmp/stdout")"
head -n 2 "$tmp/stdout" | tail -n 1 | grep -qx '1 1' || fail "-o -: no 1 x 1 array: $(cat "$tmp/stdout")"

# Generated input: the report and --check.
if "$gpgpu" gemm --m 70 --n 45 --k 33 --check --backend "$backend" >"$tmp/stdout" 2>"$tmp/stderr"; then
    for key in gpu_us gflops cgma block check_errors; do
        grep -q "^$key: " "$tmp/stdout" || fail "generated: no $key line: $(cat "$tmp/stdout")"
    done
    grep -q '^check_errors: 0$' "$tmp/stdout" || fail "generated: --check found errors"
    grep -Eq '^timer: (gpu|wall)$' "$tmp/stdout" || fail "generated: no timer line"
    awk '$1 == "gflops:" { r = $2 } $1 == "gflops_wall:" { w = $2 }
         END { exit !(r > 0 && r <= 1000 * w) }' "$tmp/stdout" ||
        fail "generated: gflops is not a rate the wall time allows: $(cat "$tmp/stdout")"
else
    fail "generated: $(cat "$tmp/stderr")"
fi
"$gpgpu" gemm --m 40 --n 33 --k 20 --method 6 --tile 8 --type f32 --transpose-a --check \
    --backend "$backend" >"$tmp/stdout" 2>"$tmp/stderr" || fail "generated method 6: $(cat "$tmp/stderr")"

# Progress lines where every one is due (GPGPU_PROGRESS_AFTER=0), none with --quiet (nor
# the GPU timer's note).
GPGPU_PROGRESS_AFTER=0 "$gpgpu" gemm --m 40 --n 40 --k 40 --repeat 2 --backend "$backend" \
    >/dev/null 2>"$tmp/stderr" || fail "progress: $(cat "$tmp/stderr")"
grep -q "timing: product 2 of 2" "$tmp/stderr" || fail "progress: no line: $(cat "$tmp/stderr")"
GPGPU_PROGRESS_AFTER=0 "$gpgpu" gemm --m 40 --n 40 --k 40 --repeat 2 --check --quiet \
    --backend "$backend" >/dev/null 2>"$tmp/stderr" || fail "--quiet: $(cat "$tmp/stderr")"
[ -s "$tmp/stderr" ] && fail "--quiet printed: $(cat "$tmp/stderr")"

usage_error "mismatch" "dimension mismatch" -- "$tmp/a.mtx" "$tmp/a.mtx" -o "$tmp/c.mtx"
usage_error "no output" "-o C.mtx is required" -- "$tmp/a.mtx" "$tmp/b.mtx"
usage_error "one matrix" "two matrices are required" -- "$tmp/a.mtx" -o "$tmp/c.mtx"
usage_error "partial sizes" "needs all of --m, --n and --k" -- --m 4 --n 4
usage_error "bad method" "unknown value '3'" -- --m 4 --n 4 --k 4 --method 3
usage_error "bad tile" "8, 16 or 32" -- --m 4 --n 4 --k 4 --tile 12
usage_error "bad type" "f32 or f64" -- --m 4 --n 4 --k 4 --type u32
usage_error "zero size" "--m" -- --m 0 --n 4 --k 4
usage_error "gz output" "plain text" -- "$tmp/a.mtx" "$tmp/b.mtx" -o "$tmp/c.mtx.gz"
printf '%%%%MatrixMarket matrix array complex general\n1 1\n1 0\n' >"$tmp/cx.mtx"
usage_error "complex" "complex" -- "$tmp/cx.mtx" "$tmp/b.mtx" -o "$tmp/c.mtx"
# Sizes no device holds: refused before anything is made, with exit 2 on either backend (A:
# 16 GiB of f64, past every storage binding; C: past the 2^31 - 1 the shaders index; a
# coordinate file of one entry standing for 10^10 dense ones).
too_large() { # NAME EXPECTED-TEXT GPGPU-ARGS...
    local name=$1 text=$2
    shift 2
    timeout 60 "$gpgpu" gemm "$@" --backend "$backend" >/dev/null 2>"$tmp/stderr"
    local rc=$?
    [ "$rc" -eq 2 ] && grep -q -- "$text" "$tmp/stderr" ||
        fail "$name: exit $rc: $(cat "$tmp/stderr")"
}
too_large "A past a binding" "A would take 17179869176 bytes, more than one storage binding" \
    --m 1 --n 1 --k 2147483647 --type f64
too_large "C past the index" "C has 10000000000 elements, more than the 2^31 - 1" \
    --m 100000 --n 100000 --k 1
printf '%%%%MatrixMarket matrix coordinate real general\n100000 100000 1\n1 1 1\n' >"$tmp/wide.mtx"
too_large "dense file" "wide.mtx is 100000 x 100000: as a dense matrix" "$tmp/wide.mtx" \
    "$tmp/wide.mtx" -o "$tmp/c.mtx"

# Beyond f32's range for an f32 product: the file's value with its line, and --alpha.
printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n5e38\n' >"$tmp/big.mtx"
usage_error "f32 value" "big.mtx:4: 5e38 is out of range for f32" -- "$tmp/big.mtx" "$tmp/row.mtx" \
    -o "$tmp/c.mtx"
usage_error "f32 alpha" "--alpha: -3.5e38 is out of range for f32" -- --m 2 --n 2 --k 2 \
    --alpha -3.5e38

[ "$failures" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, $failures failed"
[ "$failures" -eq 0 ]
