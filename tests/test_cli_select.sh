#!/usr/bin/env bash
# `gpgpu select` end to end on small files: --flags and every --where
# operator, --partition, --indices, every --algo, nan/inf/-0 through the
# files and as the value, the count on stderr; a few thousand values against
# awk; the exit-2 cases (a flags file of another length, a malformed one, a
# value of the wrong type, usage errors).
#
# Usage: test_cli_select.sh GPGPU BACKEND   (BACKEND: gl or vulkan)
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

gpgpu=$1
backend=$2
. "$(dirname "$0")/cli_common.sh"

# select_case NAME TYPE FIELD "IN" "EXPECTED OUT" "EXPECTED IDX" K ARGS...
# Selects from IN with ARGS and --indices; both outputs and the stderr count must match.
select_case() {
    local name=$1 type=$2 field=$3 in=$4 want=$5 want_idx=$6 k=$7
    shift 7
    # shellcheck disable=SC2086 # the lists split on purpose
    {
        mtx "$tmp/in.mtx" "$field" $in
        mtx "$tmp/want.mtx" "$field" $want
        mtx "$tmp/want_idx.mtx" integer $want_idx
    }
    rm -f "$tmp/out.mtx" "$tmp/idx.mtx"
    if ! "$gpgpu" select --backend "$backend" --type "$type" "$tmp/in.mtx" -o "$tmp/out.mtx" \
        --indices "$tmp/idx.mtx" "$@" 2>"$tmp/stderr"; then
        fail "$name: gpgpu select $* failed: $(cat "$tmp/stderr")"
        return
    fi
    same "$name (values)" "$tmp/out.mtx" "$tmp/want.mtx"
    same "$name (indices)" "$tmp/idx.mtx" "$tmp/want_idx.mtx"
    grep -qx "selected: $k" "$tmp/stderr" ||
        fail "$name: stderr '$(cat "$tmp/stderr")' does not say 'selected: $k'"
}

algos="fast single-pass reduce-then-scan"

# ---- flags: nonzero keeps; partition keeps both halves in input order
mtx "$tmp/flags.mtx" integer 0 7 1 0 0 4294967295 1 0
u_in="10 11 12 13 14 15 16 17"
for algo in $algos; do
    select_case "u32 flags $algo" u32 integer "$u_in" "11 12 15 16" "1 2 5 6" 4 \
        --flags "$tmp/flags.mtx" --algo "$algo"
done
for algo in fast reduce-then-scan; do
    select_case "u32 flags partition $algo" u32 integer "$u_in" "11 12 15 16 10 13 14 17" \
        "1 2 5 6 0 3 4 7" 4 --flags "$tmp/flags.mtx" --partition --algo "$algo"
done

# ---- i32 against each operator
i_in="5 -3 0 2147483647 -2147483648 5 -1"
select_case "i32 lt" i32 integer "$i_in" "-3 -2147483648 -1" "1 4 6" 3 --where lt 0
select_case "i32 le" i32 integer "$i_in" "-3 0 -2147483648 -1" "1 2 4 6" 4 --where le 0
select_case "i32 gt" i32 integer "$i_in" "5 2147483647 5" "0 3 5" 3 --where gt 0
select_case "i32 ge" i32 integer "$i_in" "5 0 2147483647 5" "0 2 3 5" 4 --where ge 0
select_case "i32 eq" i32 integer "$i_in" "5 5" "0 5" 2 --where eq 5
select_case "i32 ne partition" i32 integer "$i_in" "-3 0 2147483647 -2147483648 -1 5 5" \
    "1 2 3 4 6 0 5" 5 --where ne 5 --partition
select_case "i32 extreme" i32 integer "$i_in" "-2147483648" "4" 1 --where le -2147483648

# ---- floats as C compares them: a NaN kept by ne alone, -0 equal to 0 (f64
# where the shaders have doubles)
f_in="1.5 -0 nan -inf 0 inf -1 -nan 2"
float_types=f32
grep -q '^has_f64: yes' "$tmp/info" && float_types="f32 f64"
for type in $float_types; do
    select_case "$type eq 0" "$type" real "$f_in" "-0 0" "1 4" 2 --where eq 0
    select_case "$type eq -0" "$type" real "$f_in" "-0 0" "1 4" 2 --where eq -0
    select_case "$type ne 0" "$type" real "$f_in" "1.5 nan -inf inf -1 -nan 2" "0 2 3 5 6 7 8" 7 \
        --where ne 0
    select_case "$type lt 0" "$type" real "$f_in" "-inf -1" "3 6" 2 --where lt 0
    select_case "$type ge -inf" "$type" real "$f_in" "1.5 -0 -inf 0 inf -1 2" "0 1 3 4 5 6 8" 7 \
        --where ge -inf
    select_case "$type gt nan" "$type" real "$f_in" "" "" 0 --where gt nan
    select_case "$type ne nan" "$type" real "$f_in" "$f_in" "0 1 2 3 4 5 6 7 8" 9 --where ne nan
    select_case "$type le inf partition" "$type" real "$f_in" "1.5 -0 -inf 0 inf -1 2 nan -nan" \
        "0 1 3 4 5 6 8 2 7" 7 --where le inf --partition
done

# ---- empty input
mtx "$tmp/empty.mtx" real
mtx "$tmp/empty_flags.mtx" integer
select_case "empty" f32 real "" "" "" 0 --flags "$tmp/empty_flags.mtx"

# ---- a few thousand values (several tiles), against awk; Park-Miller keeps awk exact
n=5000
awk -v n=$n 'BEGIN { x = 4242; for (i = 0; i < n; i++) { x = (x * 16807) % 2147483647;
                     print x % 2001 - 1000, i } }' >"$tmp/big_pairs"
{ echo "%%MatrixMarket matrix array integer general"; echo "$n 1"
  cut -d' ' -f1 "$tmp/big_pairs"; } >"$tmp/big.mtx"
awk '$1 > 17' "$tmp/big_pairs" >"$tmp/big_kept"
awk '!($1 > 17)' "$tmp/big_pairs" >"$tmp/big_rejected"
k=$(wc -l <"$tmp/big_kept")
to_mtx() { # FILE COLUMN LINES...: a column of the pairs files as an array file
    local file=$1 col=$2
    shift 2
    { echo "%%MatrixMarket matrix array integer general"; cat "$@" | wc -l | sed 's/$/ 1/';
      cat "$@" | cut -d' ' -f"$col"; } >"$file"
}
to_mtx "$tmp/big_want.mtx" 1 "$tmp/big_kept"
to_mtx "$tmp/big_want_idx.mtx" 2 "$tmp/big_kept"
to_mtx "$tmp/big_part.mtx" 1 "$tmp/big_kept" "$tmp/big_rejected"
to_mtx "$tmp/big_part_idx.mtx" 2 "$tmp/big_kept" "$tmp/big_rejected"
for algo in $algos; do
    if "$gpgpu" select --backend "$backend" --type i32 --where gt 17 --algo "$algo" \
        "$tmp/big.mtx" -o "$tmp/out.mtx" --indices "$tmp/idx.mtx" 2>"$tmp/stderr"; then
        same "big $algo" "$tmp/out.mtx" "$tmp/big_want.mtx"
        same "big $algo (indices)" "$tmp/idx.mtx" "$tmp/big_want_idx.mtx"
        grep -qx "selected: $k" "$tmp/stderr" || fail "big $algo: $(cat "$tmp/stderr")"
    else
        fail "big $algo: $(cat "$tmp/stderr")"
    fi
done
if "$gpgpu" select --backend "$backend" --type i32 --where gt 17 --partition "$tmp/big.mtx" \
    -o "$tmp/out.mtx" --indices "$tmp/idx.mtx" 2>"$tmp/stderr"; then
    same "big partition" "$tmp/out.mtx" "$tmp/big_part.mtx"
    same "big partition (indices)" "$tmp/idx.mtx" "$tmp/big_part_idx.mtx"
else
    fail "big partition: $(cat "$tmp/stderr")"
fi

# ---- exit 2 with the reason, before any output is written
usage() { # NAME EXPECTED-TEXT ARGS...
    local name=$1 text=$2
    shift 2
    rm -f "$tmp/out.mtx"
    "$gpgpu" select "$@" 2>"$tmp/stderr" >/dev/null
    local rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name: exit $rc, expected 2"
    elif ! grep -q -- "$text" "$tmp/stderr"; then
        fail "$name: the message '$(cat "$tmp/stderr")' does not say '$text'"
    fi
    [ -e "$tmp/out.mtx" ] && fail "$name: an output was written"
}
mtx "$tmp/in.mtx" integer 1 2 3
mtx "$tmp/flags2.mtx" integer 1 0
usage "flags of another length" "holds 2 flags, the input 3 values" --backend "$backend" \
    --type u32 --flags "$tmp/flags2.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/flags_bad.mtx" integer 1 -1 0
usage "negative flag" "-1 is out of range" --backend "$backend" --type u32 \
    --flags "$tmp/flags_bad.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
printf '%%%%MatrixMarket matrix array integer general\n3 1\n1\n0\n' >"$tmp/flags_short.mtx"
usage "short flags file" "expected 3 values, found 2" --backend "$backend" --type u32 \
    --flags "$tmp/flags_short.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/in_bad.mtx" integer 1 x 3
usage "malformed input" "'x' is not an integer" --type u32 --where eq 1 "$tmp/in_bad.mtx" \
    -o "$tmp/out.mtx" --backend "$backend"
usage "fractional value" "'2.5' is not an integer of type u32" --type u32 --where lt 2.5 \
    "$tmp/in.mtx" -o -
usage "negative u32 value" "'-1' is not an integer of type u32" --type u32 --where lt -1 \
    "$tmp/in.mtx" -o -
usage "i32 value too large" "'2147483648' is not an integer of type i32" --type i32 \
    --where lt 2147483648 "$tmp/in.mtx" -o -
usage "not a number" "'one' is not a number" --type f32 --where lt one "$tmp/in.mtx" -o -
usage "unknown operator" "unknown operator 'lte'" --type u32 --where lte 1 "$tmp/in.mtx" -o -
usage "both flags and where" "give one of --flags" --type u32 --where lt 1 \
    --flags "$tmp/flags2.mtx" "$tmp/in.mtx" -o -
usage "neither" "give one of --flags" --type u32 "$tmp/in.mtx" -o -
usage "no -o" "-o OUT.mtx is required" --type u32 --where lt 1 "$tmp/in.mtx"
usage "where without a value" "--where needs an operator and a value" --type u32 "$tmp/in.mtx" \
    -o - --where lt
usage "same outputs" "same file" --type u32 --where lt 1 "$tmp/in.mtx" -o "$tmp/x.mtx" \
    --indices "$tmp/x.mtx"
usage "single pass partition" "a partition runs reduce-then-scan" --backend "$backend" \
    --type u32 --where lt 2 --partition --algo single-pass "$tmp/in.mtx" -o "$tmp/out.mtx"
"$gpgpu" select --help | grep -q -- "--partition" || fail "--help does not describe --partition"

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
exit 0
