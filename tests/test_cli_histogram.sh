#!/usr/bin/env bash
# `gpgpu histogram` end to end on small files: even bins of every type (bin edges, values
# below LO and at HI, nan, inf, -0 through the files), levels, and the exit-2 cases
# (malformed files, bad bins, ranges and levels). Results are compared exactly with
# hand-written files.
#
# Usage: test_cli_histogram.sh GPGPU BACKEND   (BACKEND: gl or vulkan)
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

gpgpu=$1
backend=$2
. "$(dirname "$0")/cli_common.sh"
. "$(dirname "$0")/cli_vectors.sh"

# hist_exact NAME TYPE FIELD "VALUES" "EXPECTED COUNTS" ARGS...
hist_exact() {
    local name=$1 type=$2 field=$3 values=$4 want=$5
    shift 5
    # shellcheck disable=SC2086 # the lists split on purpose
    {
        mtx "$tmp/in.mtx" "$field" $values
        mtx "$tmp/want.mtx" integer $want
    }
    rm -f "$tmp/out.mtx"
    run_ok "$name" histogram --type "$type" "$tmp/in.mtx" -o "$tmp/out.mtx" "$@" || return
    same "$name" "$tmp/out.mtx" "$tmp/want.mtx"
}

# ---- integers: floor((v - lo) * B / (hi - lo)) exactly; lo counts, hi does not
hist_exact "u32 3 bins" u32 integer "9 10 13 14 16 17 19 20 4294967295 0" "2 2 2" \
    --bins 3 --range 10 20
hist_exact "u32 whole range" u32 integer "0 2147483647 2147483648 4294967294 4294967295" "2 2" \
    --bins 2 --range 0 4294967295
hist_exact "i32 3 bins" i32 integer "-11 -10 -7 -6 0 9 10 -2147483648 2147483647" "3 1 1" \
    --bins 3 --range -10 10
hist_exact "i32 one bin" i32 integer "-2147483648 0 2147483646 2147483647" "3" \
    --bins 1 --range -2147483648 2147483647

# ---- floats: CUB's (v - lo) * (B / (hi - lo)); nan, inf and values outside count nowhere,
# -0 is 0, a value just below hi lands in the last bin
f_in="0 -0 0.25 0.5 0.75 1 -1e-30 nan -nan inf -inf 0.99999994 0.3"
hist_exact "f32 4 bins" f32 real "$f_in" "2 2 1 2" --bins 4 --range 0 1
hist_exact "f64 4 bins" f64 real "$f_in" "2 2 1 2" --bins 4 --range 0 1
hist_exact "f64 2 bins negative" f64 real "-3 -2.5 -2 -1.0000001 -1 0 nan" "2 2" \
    --bins 2 --range -3 -1

# ---- levels: bin i holds levels[i] <= v < levels[i+1]; an empty bin between equal levels
mtx "$tmp/levels.mtx" real -1 0 0 2.5 10
hist_exact "f32 levels" f32 real "-2 -1 -0.5 -0 0 1 2.5 9.99 10 nan inf" "2 0 3 2" \
    --bins 4 --levels "$tmp/levels.mtx"
mtx "$tmp/ilevels.mtx" integer 5 7 100
hist_exact "u32 levels" u32 integer "4 5 6 7 99 100 4294967295" "2 2" --bins 2 --levels "$tmp/ilevels.mtx"

# ---- a larger input against a count made here: 3000 values 0..2999 in 7 bins of [0, 3000)
seq 0 2999 >"$tmp/vals"
{
    echo "%%MatrixMarket matrix array integer general"
    echo "3000 1"
    cat "$tmp/vals"
} >"$tmp/big.mtx"
awk '{ b = int($1 * 7 / 3000); c[b]++ } END { for (i = 0; i < 7; i++) print c[i] }' \
    "$tmp/vals" >"$tmp/counts"
{
    echo "%%MatrixMarket matrix array integer general"
    echo "7 1"
    cat "$tmp/counts"
} >"$tmp/want_big.mtx"
run_ok "3000 values" histogram --type u32 --bins 7 --range 0 3000 "$tmp/big.mtx" -o "$tmp/out.mtx" &&
    same "3000 values" "$tmp/out.mtx" "$tmp/want_big.mtx"

# ---- exit 2 with the reason
mtx "$tmp/in.mtx" real 1 2 3
exits_2 "no bins" "--bins is required" histogram --type f32 --range 0 1 "$tmp/in.mtx" -o "$tmp/out.mtx"
exits_2 "0 bins" "--bins" histogram --type f32 --bins 0 --range 0 1 "$tmp/in.mtx" -o "$tmp/out.mtx"
exits_2 "65537 bins" "--bins" histogram --type f32 --bins 65537 --range 0 1 "$tmp/in.mtx" -o "$tmp/out.mtx"
exits_2 "no range" "give one of --range" histogram --type f32 --bins 2 "$tmp/in.mtx" -o "$tmp/out.mtx"
exits_2 "range and levels" "give one of --range" histogram --type f32 --bins 2 --range 0 1 \
    --levels "$tmp/levels.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
exits_2 "range with one value" "needs two values" histogram --type f32 --bins 2 "$tmp/in.mtx" \
    -o "$tmp/out.mtx" --range 0
exits_2 "range reversed" "is not below upper" histogram --type f32 --bins 2 --range 1 0 \
    "$tmp/in.mtx" -o "$tmp/out.mtx"
exits_2 "range not a number" "not a finite decimal" histogram --type f32 --bins 2 --range 0 nan \
    "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/uin.mtx" integer 1 2 3
exits_2 "u32 range fraction" "must be u32 values" histogram --type u32 --bins 2 --range 0 2.5 \
    "$tmp/uin.mtx" -o "$tmp/out.mtx"
exits_2 "u32 range negative" "must be u32 values" histogram --type u32 --bins 2 --range -1 5 \
    "$tmp/uin.mtx" -o "$tmp/out.mtx"
exits_2 "levels count" "has 5 levels; 3 bins need 4" histogram --type f32 --bins 3 \
    --levels "$tmp/levels.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad_levels.mtx" real 0 2 1
exits_2 "levels decrease" "must be nondecreasing" histogram --type f32 --bins 2 \
    --levels "$tmp/bad_levels.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad_in.mtx" real 1 0.5
exits_2 "malformed input" "'0.5' is not an integer" histogram --type u32 --bins 2 --range 0 4 \
    "$tmp/bad_in.mtx" -o "$tmp/out.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n' >"$tmp/short.mtx"
exits_2 "short input" "expected 3 values, found 2" histogram --type f32 --bins 2 --range 0 4 \
    "$tmp/short.mtx" -o "$tmp/out.mtx"
exits_2 "no output" "-o COUNTS.mtx is required" histogram --type f32 --bins 2 --range 0 1 "$tmp/in.mtx"
exits_2 "algo" "histogram has one algorithm" histogram --type f32 --bins 2 --range 0 1 --algo fast \
    "$tmp/in.mtx" -o "$tmp/out.mtx"
if ! "$gpgpu" histogram --help | grep -q -- "--levels"; then
    fail "--help does not describe --levels"
fi
finish
