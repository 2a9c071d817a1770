#!/usr/bin/env bash
# `gpgpu rle` end to end on small files: runs of every type (length 1 and all the input,
# nan runs, -0 beside +0 through the files), --counts, reduce-by-key (--values, --sums), the
# run count on stderr, and the exit-2 cases (malformed files, a values file of another
# length). Results are compared exactly with hand-written files.
#
# Usage: test_cli_rle.sh GPGPU BACKEND   (BACKEND: gl or vulkan)
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

gpgpu=$1
backend=$2
. "$(dirname "$0")/cli_common.sh"
. "$(dirname "$0")/cli_vectors.sh"

# rle_exact NAME TYPE FIELD "KEYS" "EXPECTED VALUES" "EXPECTED COUNTS" ARGS...
rle_exact() {
    local name=$1 type=$2 field=$3 keys=$4 want=$5 counts=$6
    shift 6
    # shellcheck disable=SC2086 # the lists split on purpose
    {
        mtx "$tmp/in.mtx" "$field" $keys
        mtx "$tmp/want.mtx" "$field" $want
        mtx "$tmp/want_counts.mtx" integer $counts
    }
    rm -f "$tmp/out.mtx" "$tmp/counts.mtx"
    run_ok "$name" rle --type "$type" "$tmp/in.mtx" -o "$tmp/out.mtx" --counts "$tmp/counts.mtx" \
        "$@" || return
    same "$name (values)" "$tmp/out.mtx" "$tmp/want.mtx"
    same "$name (counts)" "$tmp/counts.mtx" "$tmp/want_counts.mtx"
    # shellcheck disable=SC2086
    set -- $counts
    grep -q "runs: $#\$" "$tmp/stderr" || fail "$name: stderr does not say 'runs: $#'"
}

rle_exact "u32" u32 integer "5 5 5 3 3 4294967295 5 0 0" "5 3 4294967295 5 0" "3 2 1 1 2"
rle_exact "u32 all distinct" u32 integer "1 2 3 4" "1 2 3 4" "1 1 1 1"
rle_exact "u32 all equal" u32 integer "7 7 7 7 7" "7" "5"
rle_exact "u32 one" u32 integer "9" "9" "1"
rle_exact "i32" i32 integer "-1 -1 2147483647 -2147483648 -2147483648" \
    "-1 2147483647 -2147483648" "2 1 2"
# Every NaN is one value (the first one's sign written), -0 and +0 two, as the sort orders.
f_in="nan -nan nan -0 0 0 inf inf -inf 1.5 1.5"
f_out="nan -0 0 inf -inf 1.5"
rle_exact "f32 specials" f32 real "$f_in" "$f_out" "3 1 2 2 1 2"
rle_exact "f64 specials" f64 real "-nan nan 1e-300 1e-300" "-nan 1e-300" "2 2"

# ---- reduce-by-key: the sums of each run's values, of another type too
mtx "$tmp/keys.mtx" integer 4 4 4 9 1 1
mtx "$tmp/vals.mtx" real 0.5 0.25 0.125 -2 1e30 -1e30
mtx "$tmp/want_sums.mtx" real 0.875 -2 0
rm -f "$tmp/sums.mtx"
run_ok "reduce-by-key" rle --type u32 "$tmp/keys.mtx" -o "$tmp/out.mtx" --values "$tmp/vals.mtx" \
    --value-type f64 --sums "$tmp/sums.mtx" &&
    same "reduce-by-key" "$tmp/sums.mtx" "$tmp/want_sums.mtx"
mtx "$tmp/ivals.mtx" integer 4294967295 1 7 1 2 3
mtx "$tmp/want_isums.mtx" integer 7 1 5
run_ok "reduce-by-key u32" rle --type u32 "$tmp/keys.mtx" -o "$tmp/out.mtx" \
    --values "$tmp/ivals.mtx" --sums "$tmp/sums.mtx" &&
    same "reduce-by-key u32" "$tmp/sums.mtx" "$tmp/want_isums.mtx"

# ---- no values at all: no runs
printf '%%%%MatrixMarket matrix array integer general\n0 1\n' >"$tmp/empty.mtx"
run_ok "empty" rle --type u32 "$tmp/empty.mtx" -o "$tmp/out.mtx" && same "empty" "$tmp/out.mtx" "$tmp/empty.mtx"

# ---- exit 2 with the reason
mtx "$tmp/in.mtx" integer 1 1 2
mtx "$tmp/short.mtx" integer 1 2
exits_2 "values length" "has 2 values, but the input has 3" rle --type u32 "$tmp/in.mtx" \
    -o "$tmp/out.mtx" --values "$tmp/short.mtx" --sums "$tmp/sums.mtx"
exits_2 "values without sums" "--values and --sums go together" rle --type u32 "$tmp/in.mtx" \
    -o "$tmp/out.mtx" --values "$tmp/short.mtx"
exits_2 "value type alone" "--value-type is the type of --values" rle --type u32 "$tmp/in.mtx" \
    -o "$tmp/out.mtx" --value-type f32
mtx "$tmp/bad.mtx" real 1 0.5
exits_2 "malformed input" "'0.5' is not an integer" rle --type i32 "$tmp/bad.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad.mtx" real 1 1e39
exits_2 "f32 out of range" "out of range" rle --type f32 "$tmp/bad.mtx" -o "$tmp/out.mtx"
exits_2 "no output" "-o VALUES.mtx is required" rle --type u32 "$tmp/in.mtx"
exits_2 "no type" "--type is required" rle "$tmp/in.mtx" -o "$tmp/out.mtx"
if ! "$gpgpu" rle --help | grep -q -- "--counts"; then
    fail "--help does not describe --counts"
fi
finish
