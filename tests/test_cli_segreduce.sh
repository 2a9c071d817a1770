#!/usr/bin/env bash
# `gpgpu segreduce` end to end on small files: sum, min and max of every type over segments
# empty, single and long, wrapping integer sums, nan/inf/-0 through the files, and the
# exit-2 cases (malformed files, offsets that do not
# fit the input). Results are compared exactly with hand-written files.
#
# Usage: test_cli_segreduce.sh GPGPU BACKEND   (BACKEND: gl or vulkan)
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

gpgpu=$1
backend=$2
. "$(dirname "$0")/cli_common.sh"
. "$(dirname "$0")/cli_vectors.sh"

# seg_exact NAME OP TYPE FIELD "VALUES" "OFFSETS" "EXPECTED"
seg_exact() {
    local name=$1 op=$2 type=$3 field=$4 values=$5 offsets=$6 want=$7
    # shellcheck disable=SC2086 # the lists split on purpose
    {
        mtx "$tmp/in.mtx" "$field" $values
        mtx "$tmp/seg.mtx" integer $offsets
        mtx "$tmp/want.mtx" "$field" $want
    }
    rm -f "$tmp/out.mtx"
    run_ok "$name" segreduce --op "$op" --type "$type" --segments "$tmp/seg.mtx" "$tmp/in.mtx" \
        -o "$tmp/out.mtx" || return
    same "$name" "$tmp/out.mtx" "$tmp/want.mtx"
}

# ---- integers: an empty segment in the middle and at the end; sums wrap
u_in="4294967295 2 7 3 9 1"
u_off="0 2 2 5 6 6"
seg_exact "u32 sum" sum u32 integer "$u_in" "$u_off" "1 0 19 1 0"
seg_exact "u32 min" min u32 integer "$u_in" "$u_off" "2 4294967295 3 1 4294967295"
seg_exact "u32 max" max u32 integer "$u_in" "$u_off" "4294967295 0 9 1 0"
i_in="2147483647 1 -5 -2147483648 3 0"
seg_exact "i32 sum (wrapped)" sum i32 integer "$i_in" "0 2 5 6" "-2147483648 2147483646 0"
seg_exact "i32 min" min i32 integer "$i_in" "$u_off" "1 2147483647 -2147483648 0 2147483647"
seg_exact "i32 max" max i32 integer "$i_in" "$u_off" "2147483647 -2147483648 3 0 -2147483648"

# ---- floats: nan propagates through min and max; empty segments give +-inf (0 for sum)
f_in="1.5 -0 nan 2 -inf 0.25 inf -1"
f_off="0 2 4 4 6 8"
seg_exact "f32 sum" sum f32 real "$f_in" "$f_off" "1.5 nan 0 -inf inf"
seg_exact "f32 min" min f32 real "$f_in" "$f_off" "-0 nan inf -inf -1"
seg_exact "f64 max" max f64 real "$f_in" "$f_off" "1.5 nan -inf 0.25 inf"
seg_exact "f64 sum single" sum f64 real "0.5 0.25 0.125" "0 3" "0.875"

# ---- a long segment and many short ones: 2000 ones in [0, 1500) and 500 segments of one
seq_values() { for ((k = 0; k < $1; k++)); do echo 1; done; }
{
    echo "%%MatrixMarket matrix array integer general"
    echo "2000 1"
    seq_values 2000
} >"$tmp/ones.mtx"
{
    echo "%%MatrixMarket matrix array integer general"
    echo "502 1"
    echo 0
    seq 1500 2000
} >"$tmp/seg.mtx"
{
    echo "%%MatrixMarket matrix array integer general"
    echo "501 1"
    echo 1500
    seq_values 500
} >"$tmp/want.mtx"
run_ok "long and short" segreduce --op sum --type u32 --segments "$tmp/seg.mtx" "$tmp/ones.mtx" \
    -o "$tmp/out.mtx" && same "long and short" "$tmp/out.mtx" "$tmp/want.mtx"

# ---- exit 2 with the reason
mtx "$tmp/in.mtx" real 1 2 3
mtx "$tmp/seg.mtx" integer 0 1 3
exits_2 "no op" "--op is required" segreduce --type f32 --segments "$tmp/seg.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
exits_2 "minmax" "unknown operator 'minmax'" segreduce --op minmax --type f32 --segments "$tmp/seg.mtx" \
    "$tmp/in.mtx" -o "$tmp/out.mtx"
exits_2 "no segments" "--segments OFFSETS.mtx is required" segreduce --op sum --type f32 \
    "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad.mtx" integer 0 1 4
exits_2 "last offset beyond" "the last offset is 4, not 3" segreduce --op sum --type f32 \
    --segments "$tmp/bad.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad.mtx" integer 0 1 2
exits_2 "last offset short" "the last offset is 2, not 3" segreduce --op sum --type f32 \
    --segments "$tmp/bad.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad.mtx" integer 0 2 1 3
exits_2 "decreasing" "offsets decrease" segreduce --op sum --type f32 --segments "$tmp/bad.mtx" \
    "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad.mtx" integer 1 3
exits_2 "first offset" "the first offset is 1, not 0" segreduce --op sum --type f32 \
    --segments "$tmp/bad.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad.mtx" real 0 1.5 3
exits_2 "fraction offset" "'1.5' is not an integer" segreduce --op sum --type f32 \
    --segments "$tmp/bad.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad.mtx" integer 0 -1 3
exits_2 "negative offset" "-1 is out of range" segreduce --op sum --type f32 \
    --segments "$tmp/bad.mtx" "$tmp/in.mtx" -o "$tmp/out.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n' >"$tmp/bad_in.mtx"
exits_2 "two columns" "not a vector" segreduce --op sum --type f32 --segments "$tmp/seg.mtx" \
    "$tmp/bad_in.mtx" -o "$tmp/out.mtx"
mtx "$tmp/bad_in.mtx" integer 1 2 4294967296
exits_2 "u32 out of range" "out of range" segreduce --op sum --type u32 --segments "$tmp/seg.mtx" \
    "$tmp/bad_in.mtx" -o "$tmp/out.mtx"
if ! "$gpgpu" segreduce --help | grep -q -- "--segments"; then
    fail "--help does not describe --segments"
fi
finish
