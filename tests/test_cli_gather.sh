#!/usr/bin/env bash
# `gpgpu gather` end to end on small files: every type, repeated and reversed
# indices, nan/-0 moved bit for bit, no indices; a few thousand values against
# awk; the exit-2 cases (an index past the input, a malformed indices file,
# usage errors), with no output written.
#
# Usage: test_cli_gather.sh GPGPU BACKEND   (BACKEND: gl or vulkan)
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

gpgpu=$1
backend=$2
. "$(dirname "$0")/cli_common.sh"

# gather_case NAME TYPE FIELD "IN" "INDICES" "EXPECTED"
gather_case() {
    local name=$1 type=$2 field=$3
    # shellcheck disable=SC2086 # the lists split on purpose
    {
        mtx "$tmp/in.mtx" "$field" $4
        mtx "$tmp/idx.mtx" integer $5
        mtx "$tmp/want.mtx" "$field" $6
    }
    rm -f "$tmp/out.mtx"
    if "$gpgpu" gather --backend "$backend" --type "$type" --indices "$tmp/idx.mtx" \
        "$tmp/in.mtx" -o "$tmp/out.mtx" 2>"$tmp/stderr"; then
        same "$name" "$tmp/out.mtx" "$tmp/want.mtx"
    else
        fail "$name: $(cat "$tmp/stderr")"
    fi
}

gather_case "u32" u32 integer "10 11 12 4294967295" "3 0 0 2 1 3" \
    "4294967295 10 10 12 11 4294967295"
gather_case "i32 reversed" i32 integer "-5 0 2147483647 -2147483648" "3 2 1 0" \
    "-2147483648 2147483647 0 -5"
gather_case "f32 specials" f32 real "1.5 -0 nan -inf -nan" "4 3 2 1 0 1" "-nan -inf nan -0 1.5 -0"
gather_case "f64 specials" f64 real "2.5 -0 nan inf 1e-300" "4 1 2 3 0" "1e-300 -0 nan inf 2.5"
gather_case "no indices" f32 real "1 2 3" "" ""

# ---- a few thousand values and indices, against awk
n=5000
awk -v n=$n 'BEGIN { x = 99; for (i = 0; i < n; i++) { x = (x * 16807) % 2147483647;
                     print x % 100003 } }' >"$tmp/big_values"
awk -v n=$n 'BEGIN { x = 7; for (i = 0; i < 2 * n; i++) { x = (x * 16807) % 2147483647;
                     print x % n } }' >"$tmp/big_idx"
{ echo "%%MatrixMarket matrix array integer general"; echo "$n 1"; cat "$tmp/big_values"; } \
    >"$tmp/big.mtx"
{ echo "%%MatrixMarket matrix array integer general"; echo "$((2 * n)) 1"; cat "$tmp/big_idx"; } \
    >"$tmp/big_idx.mtx"
{ echo "%%MatrixMarket matrix array integer general"; echo "$((2 * n)) 1"
  awk 'NR == FNR { v[FNR - 1] = $1; next } { print v[$1] }' "$tmp/big_values" "$tmp/big_idx"; } \
    >"$tmp/big_want.mtx"
if "$gpgpu" gather --backend "$backend" --type u32 --indices "$tmp/big_idx.mtx" "$tmp/big.mtx" \
    -o "$tmp/out.mtx" 2>"$tmp/stderr"; then
    same "big" "$tmp/out.mtx" "$tmp/big_want.mtx"
else
    fail "big: $(cat "$tmp/stderr")"
fi

# ---- exit 2 with the reason, before any output is written
usage() { # NAME EXPECTED-TEXT ARGS...
    local name=$1 text=$2
    shift 2
    rm -f "$tmp/out.mtx"
    "$gpgpu" gather "$@" 2>"$tmp/stderr" >/dev/null
    local rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name: exit $rc, expected 2"
    elif ! grep -q -- "$text" "$tmp/stderr"; then
        fail "$name: the message '$(cat "$tmp/stderr")' does not say '$text'"
    fi
    [ -e "$tmp/out.mtx" ] && fail "$name: an output was written"
}
mtx "$tmp/in.mtx" real 1 2 3
mtx "$tmp/idx.mtx" integer 0 3 1
usage "index past the input" "index 3 (the largest) is past the input's 3 records" \
    --backend "$backend" --type f32 --indices "$tmp/idx.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/empty.mtx" real
mtx "$tmp/idx0.mtx" integer 0
usage "index into nothing" "index 0 (the largest) is past the input's 0 records" \
    --backend "$backend" --type f64 --indices "$tmp/idx0.mtx" "$tmp/empty.mtx" -o "$tmp/out.mtx"
mtx "$tmp/idx_bad.mtx" integer 0 -2
usage "negative index" "-2 is out of range" --backend "$backend" --type f32 \
    --indices "$tmp/idx_bad.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/idx_frac.mtx" real 0 1.5
usage "fractional index" "'1.5' is not an integer" --backend "$backend" --type f32 \
    --indices "$tmp/idx_frac.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
printf '%%%%MatrixMarket matrix array integer general\n2 2\n0\n1\n0\n1\n' >"$tmp/idx_2col.mtx"
usage "two columns" "not a vector" --backend "$backend" --type f32 --indices "$tmp/idx_2col.mtx" \
    "$tmp/in.mtx" -o "$tmp/out.mtx"
usage "no indices" "--indices IDX.mtx is required" --type f32 "$tmp/in.mtx" -o -
usage "no -o" "-o OUT.mtx is required" --type f32 --indices "$tmp/idx.mtx" "$tmp/in.mtx"
usage "no type" "--type is required" --indices "$tmp/idx.mtx" "$tmp/in.mtx" -o -
"$gpgpu" gather --help | grep -q -- "--indices" || fail "--help does not describe --indices"

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
exit 0
