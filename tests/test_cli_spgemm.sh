#!/usr/bin/env bash
# `gpgpu spgemm` end to end on small MatrixMarket files, real or generated
# (tests/matrices/matrices.py names each role's file in GPGPU_MATRIX_<ROLE>).
# Every C (A*A by each --algo, A*At, a file B, a rectangular A, f32 and f64, a
# small memory budget, --drop-zeros on a crafted cancellation) is checked by
# spgemm_check, which recomputes it on the CPU: the structure exactly, the
# values within a rounding-error bound; the file's entries must come in CSR
# order. Then --stats, standard output, and the exit-2 cases.
#
# Usage: test_cli_spgemm.sh GPGPU SPGEMM_CHECK BACKEND (through matrices.py run)
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

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
. "$(dirname "$0")/cli_common.sh"
# f64 only where the shaders have doubles.
types=f32
grep -q '^has_f64: yes' "$tmp/info" && types="f32 f64"

# in_order FILE : the entries of a coordinate file come row by row, columns
# ascending within each row (what the CSR of gpgpu_spgemm promises).
in_order() {
    awk '/^%/ { next } !size { size = 1; next }
         { if ($1 < r || ($1 == r && $2 <= c)) exit 1; r = $1; c = $2 }' "$1"
}

# spgemm_ok NAME TYPE A B [CHECK-FLAG] -- GPGPU-ARGS... : runs gpgpu spgemm A B
# on the backend into $tmp/c.mtx; it must succeed, write the entries in order,
# and spgemm_check must accept C.
spgemm_ok() {
    local name=$1 type=$2 a=$3 b=$4 flag=""
    shift 4
    [ "$1" != "--" ] && { flag=$1; shift; }
    shift
    rm -f "$tmp/c.mtx"
    if ! "$gpgpu" spgemm "$a" "$b" -o "$tmp/c.mtx" --type "$type" --backend "$backend" "$@" \
        >"$tmp/stdout" 2>"$tmp/stderr"; then
        fail "$name: gpgpu spgemm $a $b --type $type $* failed: $(cat "$tmp/stderr")"
        return 1
    fi
    in_order "$tmp/c.mtx" || fail "$name: C's entries are not in row and column order"
    if ! "$check" "$type" "$a" "$b" "$tmp/c.mtx" $flag >/dev/null 2>"$tmp/check"; then
        fail "$name: $(cat "$tmp/check")"
        return 1
    fi
}

# stat NAME : the value of one --stats line of the last run.
stat() {
    awk -v k="$1:" '$1 == k { print $2 }' "$tmp/stdout"
}

# B as a file: the rectangular A (R x C) transposed, so A * B is R x R.
awk '/^%/ { print; next } !size { size = 1; print $2, $1, $3; next } { print $2, $1, $3 }' \
    "$rectangular" >"$tmp/rect_t.mtx"

# ---- A*A by every algorithm, A*At, a file B, f32 and f64: a square general
# matrix, a symmetric pattern one, a rectangular one and an integer one
spgemm_ok "general A*A fast" f32 "$general" A -- --algo fast
for type in $types; do
    for algo in "" rows esc classic; do
        spgemm_ok "general A*A $type ${algo:-default}" "$type" "$general" A -- \
            ${algo:+--algo "$algo"}
    done
    for algo in "" esc classic; do
        spgemm_ok "pattern symmetric A*A $type ${algo:-default}" "$type" "$pattern_sym" A -- \
            ${algo:+--algo "$algo"}
        spgemm_ok "rectangular A*At $type ${algo:-default}" "$type" "$rectangular" At -- \
            ${algo:+--algo "$algo"}
    done
    spgemm_ok "rectangular * file $type" "$type" "$rectangular" "$tmp/rect_t.mtx" --
    spgemm_ok "rect_t * rectangular $type rows" "$type" "$tmp/rect_t.mtx" "$rectangular" \
        -- --algo rows
    spgemm_ok "integer A*At $type" "$type" "$integer" At --
    spgemm_ok "spd * file spd $type esc" "$type" "$spd" "$spd" -- --algo esc
done

# ---- a budget far below the temporaries of one pass: the fast paths go
# through row chunks (--stats says how many) and C is the same
spgemm_ok "spd budget esc" f32 "$spd" A -- --algo esc --memory-budget 256K --stats
chunks=$(stat chunks)
[ "${chunks:-0}" -ge 2 ] || fail "spd esc in 256 KiB: chunks '${chunks:-}', expected >= 2"
spgemm_ok "spd budget rows" f32 "$spd" A -- --memory-budget 256K

# ---- --stats: products (the sum over A's entries of the length of B's row
# they meet) and C's entries as the file has them
spgemm_ok "pattern symmetric stats" f32 "$pattern_sym" A -- --stats
# A is symmetric: row j of A has deg(j) entries and column j meets it deg(j)
# times, so products = sum of deg(j)^2 (the file stores one triangle).
want=$(awk '/^%/ { next } !size { size = 1; next } { d[$1]++; if ($1 != $2) d[$2]++ }
            END { for (j in d) s += d[j] * d[j]; print s }' "$pattern_sym")
[ "$(stat products)" = "$want" ] || fail "--stats: products '$(stat products)', expected $want"
[ "$(stat flops)" = "$((2 * want))" ] || fail "--stats: flops '$(stat flops)'"
[ "$(stat nnz)" = "$(awk '/^%/ { next } { print $3; exit }' "$tmp/c.mtx")" ] ||
    fail "--stats: nnz '$(stat nnz)' is not C's"
for key in dropped chunks long_rows one_phase peak_bytes gpu_us wall_us gflops gflops_wall; do
    [ -n "$(stat $key)" ] || fail "--stats: no '$key:' line in $(cat "$tmp/stdout")"
done
[ "$(stat peak_bytes)" -gt 0 ] 2>/dev/null || fail "--stats: peak_bytes '$(stat peak_bytes)'"
# gflops from the GPU time, or from the wall time where the timer measured nothing (GL on
# llvmpipe): never a rate the wall time does not allow (within its 1000x of overhead).
case $(stat timer) in gpu|wall) ;; *) fail "--stats: timer '$(stat timer)'" ;; esac
awk -v r="$(stat gflops)" -v w="$(stat gflops_wall)" 'BEGIN { exit !(r > 0 && r <= 1000 * w) }' ||
    fail "--stats: gflops $(stat gflops) against gflops_wall $(stat gflops_wall)"

# ---- progress: a line a step of the classic algorithm where every line is due
# (GPGPU_PROGRESS_AFTER=0), none with --quiet, none in a run shorter than 2 s
# A*A's products: each entry (i, k) of A meets the entries of row k.
products=$(awk '/^%/ { next } !size { size = 1; next } { len[$1]++; col[NR] = $2 }
                END { for (k in col) s += len[col[k]]; print s }' "$general")
GPGPU_PROGRESS_AFTER=0 "$gpgpu" spgemm "$general" A --algo classic -o "$tmp/c.mtx" \
    --backend "$backend" >/dev/null 2>"$tmp/stderr" || fail "classic progress: $(cat "$tmp/stderr")"
grep -q "spgemm (classic): step 1 done (stage 2, EXPAND, $products products)" "$tmp/stderr" &&
    grep -q "stage 13, ROW_PTRS" "$tmp/stderr" ||
    fail "classic progress: no line a step: $(cat "$tmp/stderr")"
GPGPU_PROGRESS_AFTER=0 "$gpgpu" spgemm "$general" A --algo classic -o "$tmp/c.mtx" \
    --backend "$backend" --quiet >/dev/null 2>"$tmp/stderr" || fail "classic --quiet failed"
[ -s "$tmp/stderr" ] && fail "classic --quiet printed: $(cat "$tmp/stderr")"
"$gpgpu" spgemm "$general" A -o "$tmp/c.mtx" --backend "$backend" >/dev/null \
    2>"$tmp/stderr" || fail "a short product failed"
[ -s "$tmp/stderr" ] && fail "a short product printed: $(cat "$tmp/stderr")"

# ---- --drop-zeros: [1 1; 1 -1]^2 = [2 0; 0 2], where both zeros are exact
# (1*1 + 1*(-1)): kept as structural entries by default, dropped on request
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1\n1 2 1\n2 1 1\n2 2 -1\n' \
    >"$tmp/cancel.mtx"
for algo in rows esc classic; do
    spgemm_ok "cancel $algo" f32 "$tmp/cancel.mtx" A -- --algo "$algo"
    grep -q "^2 2 4$" "$tmp/c.mtx" || fail "cancel $algo: C should keep 4 entries, zeros too"
    spgemm_ok "cancel $algo --drop-zeros" f32 "$tmp/cancel.mtx" A --drop-zeros -- \
        --algo "$algo" --drop-zeros --stats
    grep -q "^2 2 2$" "$tmp/c.mtx" || fail "cancel $algo --drop-zeros: C should have 2 entries"
    [ "$(stat dropped)" = 2 ] || fail "cancel $algo --drop-zeros: dropped '$(stat dropped)'"
done
# The checker refuses a C that kept the zeros under --drop-zeros, and one
# that lost a nonzero.
"$gpgpu" spgemm "$tmp/cancel.mtx" A -o "$tmp/c.mtx" --backend "$backend" 2>/dev/null
"$check" f32 "$tmp/cancel.mtx" A "$tmp/c.mtx" --drop-zeros >/dev/null 2>&1 &&
    fail "spgemm_check --drop-zeros accepted kept zeros"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 2\n' >"$tmp/lost.mtx"
"$check" f32 "$tmp/cancel.mtx" A "$tmp/lost.mtx" --drop-zeros >/dev/null 2>&1 &&
    fail "spgemm_check --drop-zeros accepted a lost nonzero"

# ---- the checker refuses a wrong value and a missing entry
"$gpgpu" spgemm "$general" A -o "$tmp/c.mtx" --backend "$backend" 2>/dev/null
awk 'NR == 10 { $3 = $3 * 1.001 } { print }' "$tmp/c.mtx" >"$tmp/bad.mtx"
"$check" f32 "$general" A "$tmp/bad.mtx" >/dev/null 2>&1 &&
    fail "spgemm_check accepted a wrong value"
awk 'NR != 10' "$tmp/c.mtx" | awk 'NR == 2 { $3 = $3 - 1 } { print }' >"$tmp/bad.mtx"
"$check" f32 "$general" A "$tmp/bad.mtx" >/dev/null 2>&1 &&
    fail "spgemm_check accepted a missing entry"

# ---- standard output with -o - (--stats then on stderr), the same C as a
# file; gzip'ed through a pipe reads back
"$gpgpu" spgemm "$general" A -o "$tmp/c_file.mtx" --backend "$backend" 2>"$tmp/stderr" ||
    fail "general to a file: $(cat "$tmp/stderr")"
"$gpgpu" spgemm "$general" A -o - --stats --backend "$backend" >"$tmp/c_stdout.mtx" \
    2>"$tmp/stderr" || fail "general to -o -: $(cat "$tmp/stderr")"
cmp -s "$tmp/c_file.mtx" "$tmp/c_stdout.mtx" || fail "-o - differs from -o FILE"
grep -q "^products: " "$tmp/stderr" || fail "-o - --stats: no products line on stderr"
# (GPGPU_TEST_NO_ZLIB: a library without zlib, whose refusal cli-inputs checks)
if [ -z "${GPGPU_TEST_NO_ZLIB:-}" ]; then
    gzip -c "$tmp/c_stdout.mtx" >"$tmp/c.mtx.gz"
    "$check" f32 "$general" A "$tmp/c.mtx.gz" >/dev/null 2>"$tmp/check" ||
        fail "general gzip'ed: $(cat "$tmp/check")"
else
    echo "skipped: C gzip'ed read back (a build without zlib)" >&2
fi

# ---- exit 2 with the reason
usage() { # NAME EXPECTED-TEXT ARGS...
    local name=$1 text=$2
    shift 2
    "$gpgpu" spgemm "$@" >/dev/null 2>"$tmp/stderr"
    local rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name: exit $rc, expected 2 ($(cat "$tmp/stderr"))"
    elif ! grep -q -- "$text" "$tmp/stderr"; then
        fail "$name: the message '$(cat "$tmp/stderr")' does not say '$text'"
    fi
}
af=$rectangular
read -r af_rows af_cols _ <<<"$(mtx_size "$af")"
usage "dimension mismatch" "is $af_rows x $af_cols and B ($af) is $af_rows x $af_cols" "$af" "$af" \
    -o "$tmp/c.mtx" --backend "$backend"
usage "A*A not square" "A\*A needs a square A" "$af" A -o "$tmp/c.mtx" --backend "$backend"
usage "complex A" "complex" "$complex" A -o "$tmp/c.mtx" --backend "$backend"
usage "complex B" "complex" "$general" "$complex" -o "$tmp/c.mtx"
usage "unknown algo" "unknown value 'radix'" "$af" At -o "$tmp/c.mtx" --algo radix
usage "spmv algo" "unknown value 'balanced'" "$af" At -o "$tmp/c.mtx" --algo balanced
usage "integer type" "f32 or f64" "$af" At -o "$tmp/c.mtx" --type u32
usage "no -o" "-o C.mtx is required" "$af" At
usage "one matrix" "two matrices are required" "$af" -o "$tmp/c.mtx"
usage "three matrices" "more than two matrices" "$af" At A -o "$tmp/c.mtx"
usage "gz output" "plain text" "$af" At -o "$tmp/c.mtx.gz"
usage "bad budget" "not a byte count" "$af" At -o "$tmp/c.mtx" --memory-budget 12X
usage "zero budget" "out of range" "$af" At -o "$tmp/c.mtx" --memory-budget 0
usage "unknown option" "unknown option '--fast'" "$af" At -o "$tmp/c.mtx" --fast
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e39\n' >"$tmp/big.mtx"
usage "f32 value" "big.mtx:4: 1e39 is out of range for f32" "$tmp/big.mtx" A -o "$tmp/c.mtx"
usage "f32 value of B" "big.mtx:4: 1e39 is out of range for f32" "$tmp/big.mtx" "$tmp/big.mtx" \
    -o "$tmp/c.mtx" --type f32
# A missing file is an I/O failure (exit 1, as for spmv), named in the message.
"$gpgpu" spgemm "$tmp/none.mtx" A -o "$tmp/c.mtx" >/dev/null 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] || fail "missing file: exit $rc, expected 1"
grep -q "none.mtx" "$tmp/stderr" || fail "missing file: '$(cat "$tmp/stderr")' does not name it"

# ---- help
"$gpgpu" spgemm --help >"$tmp/help" || fail "spgemm --help: exit $?"
grep -q -- "--drop-zeros" "$tmp/help" || fail "spgemm --help does not name --drop-zeros"
"$gpgpu" help spgemm | grep -q -- "--memory-budget" || fail "gpgpu help spgemm"
"$gpgpu" --help | grep -q "spgemm" || fail "gpgpu --help does not list spgemm"

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
exit 0
