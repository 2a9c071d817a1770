#!/usr/bin/env bash
# `gpgpu sort` end to end on small files: keys, --perm, --stable,
# --descending, --segments, every --algo, nan/inf/-0 through the files, and
# the usage errors (exit 2) for bad offsets files. Results are compared
# exactly, against hand-written files or, for a few thousand keys, against
# the stable `sort` of coreutils.
#
# Usage: test_cli_sort.sh GPGPU BACKEND   (BACKEND: gl or vulkan)
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

gpgpu=$1
backend=$2
. "$(dirname "$0")/cli_common.sh"

# mtx FILE FIELD VALUE... : a one-column array file.
mtx() {
    local file=$1 field=$2
    shift 2
    {
        echo "%%MatrixMarket matrix array $field general"
        echo "$# 1"
        for v in "$@"; do echo "$v"; done
    } >"$file"
}

# sort_ok NAME ARGS... : runs gpgpu sort on the backend; it must succeed.
sort_ok() {
    local name=$1
    shift
    if ! "$gpgpu" sort --backend "$backend" "$@" 2>"$tmp/stderr"; then
        fail "$name: gpgpu sort $* failed: $(cat "$tmp/stderr")"
        return 1
    fi
}

# same NAME GOT EXPECTED : two files must be equal.
same() {
    if ! cmp -s "$2" "$3"; then
        fail "$1: $2 differs from the expected"
        diff "$3" "$2" | head -20 >&2
    fi
}

# case_exact NAME TYPE FIELD "KEYS" "EXPECTED KEYS" "EXPECTED PERM" ARGS...
# Sorts KEYS with ARGS and --perm, and compares both outputs.
case_exact() {
    local name=$1 type=$2 field=$3 keys=$4 want_keys=$5 want_perm=$6
    shift 6
    # shellcheck disable=SC2086 # the lists split on purpose
    {
        mtx "$tmp/in.mtx" "$field" $keys
        mtx "$tmp/want_keys.mtx" "$field" $want_keys
        mtx "$tmp/want_perm.mtx" integer $want_perm
    }
    rm -f "$tmp/out.mtx" "$tmp/perm.mtx"
    sort_ok "$name" --type "$type" "$tmp/in.mtx" -o "$tmp/out.mtx" --perm "$tmp/perm.mtx" "$@" ||
        return
    same "$name (keys)" "$tmp/out.mtx" "$tmp/want_keys.mtx"
    same "$name (perm)" "$tmp/perm.mtx" "$tmp/want_perm.mtx"
}

# The small cases run each algorithm by name (the default picks bitonic for
# them); the few-thousand-key cases add the default, which picks radix there.
algos="classic bitonic radix"

# ---- u32 with ties: stable, ascending and descending, every algorithm
for algo in $algos; do
    case_exact "u32 stable $algo" u32 integer "5 3 5 0 4294967295 3 5 1" \
        "0 1 3 3 5 5 5 4294967295" "3 7 1 5 0 2 6 4" --stable --algo "$algo"
    case_exact "u32 stable descending $algo" u32 integer "5 3 5 0 4294967295 3 5 1" \
        "4294967295 5 5 5 3 3 1 0" "4 0 2 6 1 5 7 3" --stable --descending --algo "$algo"
done

# ---- i32, distinct keys: the permutation is exact without --stable
case_exact "i32" i32 integer "7 -2147483648 0 -1 2147483647 3" \
    "-2147483648 -1 0 3 7 2147483647" "1 3 2 5 0 4"
case_exact "i32 descending bitonic" i32 integer "7 -2147483648 0 -1 2147483647 3" \
    "2147483647 7 3 0 -1 -2147483648" "4 0 5 2 3 1" --descending --algo bitonic

# ---- floats: nan, inf, -inf and -0 through the files; -0 < +0, NaNs last and
# equal (so --stable keeps nan before -nan), the sign of each kept
f_in="1.5 -0 nan -inf 0 inf -1 -nan -0 2"
f_asc="-inf -1 -0 -0 0 1.5 2 inf nan -nan"
f_asc_perm="3 6 1 8 4 0 9 5 2 7"
f_desc="nan -nan inf 2 1.5 0 -0 -0 -1 -inf"
f_desc_perm="2 7 5 9 0 4 1 8 6 3"
for algo in $algos; do
    case_exact "f32 specials $algo" f32 real "$f_in" "$f_asc" "$f_asc_perm" --stable --algo "$algo"
done
case_exact "f32 specials descending" f32 real "$f_in" "$f_desc" "$f_desc_perm" --stable --descending
case_exact "f64 specials descending radix" f64 real "$f_in" "$f_desc" "$f_desc_perm" \
    --stable --descending --algo radix
# Every spelling the reader takes; the writer's are nan, -nan, inf, -inf.
case_exact "f64 spellings" f64 real "NaN -INF +inf Infinity nan(12) 0.1 -0.0 -NAN 1e-300" \
    "-inf -0 1e-300 0.10000000000000001 inf inf nan nan -nan" "1 6 8 5 2 3 0 4 7" --stable
case_exact "f32 values" f32 real "3.40282347e+38 -1.17549435e-38 1e-45 0.1 -2.5" \
    "-2.5 -1.17549435e-38 1.40129846e-45 0.100000001 3.40282347e+38" "4 1 2 3 0"

# ---- segments: an empty one, ties; perm holds global indices
mtx "$tmp/seg.mtx" integer 0 4 4 7 8
seg_in="5 3 9 1 7 7 2 4"
for algo in $algos; do
    case_exact "segments $algo" u32 integer "$seg_in" "1 3 5 9 2 7 7 4" "3 1 0 2 6 4 5 7" \
        --segments "$tmp/seg.mtx" --stable --algo "$algo"
done
case_exact "segments descending" u32 integer "$seg_in" "9 5 3 1 7 7 2 4" "2 0 1 3 4 5 6 7" \
    --segments "$tmp/seg.mtx" --stable --descending
mtx "$tmp/seg1.mtx" integer 0 3 6
case_exact "segments f32" f32 real "2 nan -0 0 -inf 1" "-0 2 nan -inf 0 1" "2 0 1 4 3 5" \
    --segments "$tmp/seg1.mtx" --algo radix

# ---- standard output, keys only
mtx "$tmp/in.mtx" integer 3 1 2
mtx "$tmp/want.mtx" integer 1 2 3
if "$gpgpu" sort --backend "$backend" --type i32 "$tmp/in.mtx" -o - >"$tmp/stdout" 2>"$tmp/stderr"; then
    same "-o -" "$tmp/stdout" "$tmp/want.mtx"
else
    fail "-o -: $(cat "$tmp/stderr")"
fi

# ---- empty input, with and without the one offset of no segment
mtx "$tmp/empty.mtx" real
mtx "$tmp/seg0.mtx" integer 0
mtx "$tmp/empty_perm.mtx" integer
for segs in "" "--segments $tmp/seg0.mtx"; do
    # shellcheck disable=SC2086
    if sort_ok "empty $segs" --type f64 "$tmp/empty.mtx" -o "$tmp/out.mtx" --perm "$tmp/perm.mtx" $segs; then
        same "empty $segs (keys)" "$tmp/out.mtx" "$tmp/empty.mtx"
        same "empty $segs (perm)" "$tmp/perm.mtx" "$tmp/empty_perm.mtx"
    fi
done

# ---- a few thousand keys (several tiles; radix for the default), against
# coreutils' stable sort. Park-Miller keeps awk's doubles exact.
n=5000
awk -v n=$n 'BEGIN { x = 12345; for (i = 0; i < n; i++) { x = (x * 16807) % 2147483647;
                     print x % 2001 - 1000, i } }' >"$tmp/big_pairs"
{
    echo "%%MatrixMarket matrix array integer general"
    echo "$n 1"
    cut -d' ' -f1 "$tmp/big_pairs"
} >"$tmp/big.mtx"
big_want() { # SORTED-PAIRS: the expected keys and perm files
    {
        echo "%%MatrixMarket matrix array integer general"
        echo "$n 1"
        cut -d' ' -f1 "$1"
    } >"$tmp/big_want_keys.mtx"
    {
        echo "%%MatrixMarket matrix array integer general"
        echo "$n 1"
        cut -d' ' -f2 "$1"
    } >"$tmp/big_want_perm.mtx"
}
big_check() { # NAME ARGS...
    local name=$1
    shift
    sort_ok "$name" --type i32 "$tmp/big.mtx" -o "$tmp/out.mtx" --perm "$tmp/perm.mtx" "$@" ||
        return
    same "$name (keys)" "$tmp/out.mtx" "$tmp/big_want_keys.mtx"
    same "$name (perm)" "$tmp/perm.mtx" "$tmp/big_want_perm.mtx"
}
sort -s -k1,1n "$tmp/big_pairs" >"$tmp/big_sorted"
big_want "$tmp/big_sorted"
for algo in $algos fast; do
    big_check "big stable $algo" --stable --algo "$algo"
done
sort -s -k1,1nr "$tmp/big_pairs" >"$tmp/big_sorted"
big_want "$tmp/big_sorted"
big_check "big stable descending" --stable --descending
# Segments of 0 to 700 keys, each sorted alone.
awk -v n=$n 'BEGIN { x = 777; o = 0; print 0; while (o < n) { x = (x * 16807) % 2147483647;
                     o += x % 701; if (o > n) o = n; print o } }' >"$tmp/big_offsets"
{
    echo "%%MatrixMarket matrix array integer general"
    echo "$(wc -l <"$tmp/big_offsets") 1"
    cat "$tmp/big_offsets"
} >"$tmp/big_seg.mtx"
awk 'BEGIN { s = 0 } NR == FNR { off[NR - 1] = $1 + 0; next }
     { while (FNR - 1 >= off[s + 1]) s++; print s, $0 }' "$tmp/big_offsets" "$tmp/big_pairs" |
    sort -s -k1,1n -k2,2n | cut -d' ' -f2- >"$tmp/big_sorted"
big_want "$tmp/big_sorted"
for algo in $algos fast; do
    big_check "big segments $algo" --segments "$tmp/big_seg.mtx" --stable --algo "$algo"
done

# ---- bad offsets files: exit 2 with a message naming the problem, before
# any output is written
mtx "$tmp/in.mtx" integer 4 3 2 1 0 5
bad_offsets() { # NAME EXPECTED-TEXT (the offsets file is $tmp/bad.mtx)
    rm -f "$tmp/out.mtx"
    "$gpgpu" sort --backend "$backend" --type u32 "$tmp/in.mtx" -o "$tmp/out.mtx" \
        --segments "$tmp/bad.mtx" 2>"$tmp/stderr"
    local rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$1: exit $rc, expected 2"
    elif ! grep -q -- "$2" "$tmp/stderr"; then
        fail "$1: the message '$(cat "$tmp/stderr")' does not say '$2'"
    fi
    [ -e "$tmp/out.mtx" ] && fail "$1: an output was written"
}
mtx "$tmp/bad.mtx" integer 1 3 6
bad_offsets "first offset" "the first offset is 1, not 0"
mtx "$tmp/bad.mtx" integer 0 3 5
bad_offsets "last offset" "the last offset is 5, not 6"
mtx "$tmp/bad.mtx" integer 0 3 7
bad_offsets "last offset beyond" "the last offset is 7, not 6"
mtx "$tmp/bad.mtx" integer 0 4 2 6
bad_offsets "decreasing" "offsets decrease: offset 2 is 2, after 4"
mtx "$tmp/bad.mtx" integer
bad_offsets "no offsets" "no offsets"
mtx "$tmp/bad.mtx" integer 0
bad_offsets "one offset" "the last offset is 0, not 6"
printf '%%%%MatrixMarket matrix array integer general\n4 1\n0\n3\n6\n' >"$tmp/bad.mtx"
bad_offsets "count below the size line" "expected 4 values, found 3"
printf '%%%%MatrixMarket matrix array integer general\n2 1\n0\n3\n6\n' >"$tmp/bad.mtx"
bad_offsets "count above the size line" "more values than the 2"
printf '%%%%MatrixMarket matrix array integer general\n2 2\n0\n3\n3\n6\n' >"$tmp/bad.mtx"
bad_offsets "two columns" "not a vector"
mtx "$tmp/bad.mtx" real 0 2.5 6
bad_offsets "fraction" "'2.5' is not an integer"
mtx "$tmp/bad.mtx" real 0 3e0 6
bad_offsets "exponent" "'3e0' is not an integer"
mtx "$tmp/bad.mtx" integer 0 -1 6
bad_offsets "negative" "-1 is out of range"
mtx "$tmp/bad.mtx" real 0 nan 6
bad_offsets "nan" "'nan' is not an integer"

# ---- usage errors: exit 2
usage() { # NAME EXPECTED-TEXT ARGS...
    local name=$1 text=$2
    shift 2
    "$gpgpu" sort "$@" 2>"$tmp/stderr" >/dev/null
    local rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name: exit $rc, expected 2"
    elif ! grep -q -- "$text" "$tmp/stderr"; then
        fail "$name: the message '$(cat "$tmp/stderr")' does not say '$text'"
    fi
}
usage "no -o" "-o OUT.mtx is required" --type u32 "$tmp/in.mtx"
usage "no type" "--type is required" "$tmp/in.mtx" -o "$tmp/out.mtx"
usage "bad algo" "unknown value 'halving'" --type u32 --algo halving "$tmp/in.mtx" -o -
usage "same outputs" "same file" --type u32 "$tmp/in.mtx" -o - --perm -
mtx "$tmp/bad_in.mtx" real 1 0.5
usage "bad input" "'0.5' is not an integer" --type u32 "$tmp/bad_in.mtx" -o -
# Progress lines where every one is due (GPGPU_PROGRESS_AFTER=0), none with --quiet, none in
# a run shorter than 2 s.
for cmd in "sort -o /dev/null --perm /dev/null" "reduce --op max" \
    "scan --exclusive -o /dev/null"; do
    GPGPU_PROGRESS_AFTER=0 "$gpgpu" $cmd --backend "$backend" --type u32 --random 3000000 \
        >/dev/null 2>"$tmp/stderr" || fail "$cmd progress: $(cat "$tmp/stderr")"
    grep -q "generating and uploading: 2097152 of 3000000 values" "$tmp/stderr" ||
        fail "$cmd progress: $(cat "$tmp/stderr")"
    GPGPU_PROGRESS_AFTER=0 "$gpgpu" $cmd --backend "$backend" --type u32 --random 3000000 \
        --quiet >/dev/null 2>"$tmp/stderr" || fail "$cmd --quiet: $(cat "$tmp/stderr")"
    [ -s "$tmp/stderr" ] && fail "$cmd --quiet printed: $(cat "$tmp/stderr")"
    "$gpgpu" $cmd --backend "$backend" --type u32 --random 1000 >/dev/null 2>"$tmp/stderr" ||
        fail "$cmd: $(cat "$tmp/stderr")"
    [ -s "$tmp/stderr" ] && fail "$cmd, a short run, printed: $(cat "$tmp/stderr")"
done
GPGPU_PROGRESS_AFTER=0 "$gpgpu" sort --backend "$backend" --type u32 --random 3000000 \
    -o /dev/null --perm /dev/null >/dev/null 2>"$tmp/stderr"
grep -q "numbering for --perm: 2097152 of 3000000 values" "$tmp/stderr" ||
    fail "sort --perm progress: $(cat "$tmp/stderr")"

# More than any device's storage binding (16 GiB of f64): refused before a value is made,
# with exit 2 on either backend (a timeout shows generating first).
for cmd in "sort -o -" "reduce --op sum" "scan --inclusive -o -"; do
    timeout 60 "$gpgpu" $cmd --backend "$backend" --type f64 --random 2147483647 \
        >/dev/null 2>"$tmp/stderr"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "the --random input would take 17179869176 bytes" "$tmp/stderr" ||
        fail "$cmd --random 2^31 - 1: exit $rc: $(cat "$tmp/stderr")"
done
if ! "$gpgpu" sort --help | grep -q -- "--segments"; then
    fail "--help does not describe --segments"
fi

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
exit 0
