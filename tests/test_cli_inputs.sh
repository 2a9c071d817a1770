#!/usr/bin/env bash
# Hostile inputs to the gpgpu commands that read files: each stops with exit
# code 2 and the reader's message before any GPU work (the files are read
# before a context is made, so this runs in the cpu suite): /dev/zero, an
# endless pipe, a size line past 2^31 - 1 and one that promises 2^31 - 1
# values in a few bytes (read under a 256 MiB address-space cap).
#
# Usage: test_cli_inputs.sh GPGPU
# Exit status 0 on success, 1 on a failure.
set -u
gpgpu=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_inputs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# expect WORDS -- COMMAND...: exit code 2 and a message holding WORDS.
expect() {
    local words=$1 rc
    shift 2
    # ASan reserves terabytes of address space for its shadow, so a cap on the
    # address space aborts it: under the sanitizer pass (ASAN_OPTIONS set, with
    # a per-allocation limit of its own) the cap is left out.
    if [ -n "${ASAN_OPTIONS:-}" ]; then
        "$@" >/dev/null 2>"$tmp/err"
    else
        (ulimit -v 262144; "$@") >/dev/null 2>"$tmp/err"
    fi
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q -- "$words" "$tmp/err"; then
        echo "FAIL: $* gave $rc: $(cat "$tmp/err")" >&2
        failures=$((failures + 1))
    fi
}

printf '%%%%MatrixMarket matrix array real general\n4000000000 1\n1\n' >"$tmp/huge.mtx"
printf '%%%%MatrixMarket matrix array real general\n2147483647 1\n1\n' >"$tmp/claim.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2147483648\n' >"$tmp/nnz.mtx"

expect "NUL byte" -- "$gpgpu" reduce --op sum --type f64 /dev/zero
expect "NUL byte" -- "$gpgpu" sort --type u32 -o - /dev/zero
expect "NUL byte" -- "$gpgpu" matinfo /dev/zero
expect "past 2^31 - 1" -- "$gpgpu" reduce --op sum --type f64 "$tmp/huge.mtx"
expect "found 1" -- "$gpgpu" scan --inclusive --type f32 -o - "$tmp/claim.mtx"
expect "past 2^31 - 1" -- "$gpgpu" matinfo "$tmp/nnz.mtx"
expect "comments" -- bash -c "(echo '%%MatrixMarket matrix array real general'; yes %) |
    '$gpgpu' reduce --op max --type f32 /dev/stdin"
expect "longer than" -- bash -c "(echo '%%MatrixMarket matrix coordinate real general';
    yes ' ' | tr -d '\n') | '$gpgpu' matinfo /dev/stdin"

# A .gz cut short or corrupt is bad input (exit 2), the path named once.
# GPGPU_TEST_NO_ZLIB: the library has no zlib (tests/meson.build).
awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print "300 300 3000"
             for (k = 0; k < 3000; k++) print k % 300 + 1, (k * 7) % 300 + 1, k * 0.37 }' |
    gzip -c >"$tmp/full.mtx.gz"
head -c 2000 "$tmp/full.mtx.gz" >"$tmp/cut.mtx.gz"
{ head -c 20 "$tmp/full.mtx.gz"; head -c 200 /dev/zero | tr '\0' '\377'
  tail -c +221 "$tmp/full.mtx.gz"; } >"$tmp/bad.mtx.gz"
awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print "5000 1"
             for (k = 0; k < 5000; k++) print k * 0.37 }' | gzip -c | head -c 2000 >"$tmp/v.mtx.gz"
if [ -z "${GPGPU_TEST_NO_ZLIB:-}" ]; then
    expect "ends early" -- "$gpgpu" matinfo "$tmp/cut.mtx.gz"
    expect "corrupt gzip data" -- "$gpgpu" spmv "$tmp/bad.mtx.gz"
    expect "ends early" -- "$gpgpu" sort --type f32 -o - "$tmp/v.mtx.gz"
    for f in cut bad; do
        "$gpgpu" matinfo "$tmp/$f.mtx.gz" >/dev/null 2>"$tmp/err"
        [ "$(grep -o "$f.mtx.gz" "$tmp/err" | wc -l)" -eq 1 ] ||
            fail "$f.mtx.gz not named once: $(cat "$tmp/err")"
    done
else
    # A build without zlib (meson -Dzlib=disabled) refuses every gzip file, whole or not,
    # as a failure to read it (exit 1), naming it once.
    echo "skipped: the .gz cases (a build without zlib); checked that gzip files are refused" >&2
    for f in full cut v; do
        "$gpgpu" matinfo "$tmp/$f.mtx.gz" >/dev/null 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 1 ] && grep -q "without zlib" "$tmp/err" &&
            [ "$(grep -o "$f.mtx.gz" "$tmp/err" | wc -l)" -eq 1 ] ||
            fail "$f.mtx.gz in a build without zlib gave $rc: $(cat "$tmp/err")"
    done
fi

# Every command has --help (and gpgpu help COMMAND): exit 0, its usage, --quiet and the exit
# status.
commands=$("$gpgpu" --help |
    awk '/^Commands:/ { on = 1; next } on && !NF { exit } on && $1 != "help" { print $1 }')
for c in $commands; do
    "$gpgpu" "$c" --help >"$tmp/help" 2>&1 || fail "$c --help: exit $?"
    grep -q "^Usage: gpgpu $c" "$tmp/help" && grep -q -- "--quiet" "$tmp/help" &&
        grep -q "^Exit status: 0 success" "$tmp/help" || fail "$c --help: $(head -3 "$tmp/help")"
    "$gpgpu" help "$c" | cmp -s - "$tmp/help" || fail "gpgpu help $c differs from $c --help"
done
# The list is the table of commands: every command the project documents, each once.
want="info reduce scan sort matinfo spmv cg spgemm gemm histogram segreduce rle"
[ "$(echo $commands)" = "$want" ] || fail "gpgpu --help lists: $(echo $commands) (expected: $want)"

# Integer sums wrap, and the help says so where it says how results print.
"$gpgpu" reduce --help | tr '\n' ' ' | grep -q "Integer sums *wrap modulo 2^32" ||
    fail "reduce --help does not say that integer sums wrap"
grep -q "sums wrap modulo 2^32" "$(dirname "$0")/../README.md" ||
    fail "README's command list does not say that integer sums wrap"

# Options that do not go together are refused in the options' words, before any file is
# read: each command's --algo names only its own algorithms, and lists them.
expect "unknown value 'stride' for scan (expected fast, single-pass, reduce-then-scan, classic)" \
    -- "$gpgpu" scan --inclusive --type u32 --random 4 --algo stride -o -
expect "unknown value 'classic' for reduce (expected fast, halving, stride, minmax)" \
    -- "$gpgpu" reduce --op sum --type u32 --random 4 --algo classic
expect "--algo minmax (GPUfindMinMax) computes min and max together: it needs --op minmax" \
    -- "$gpgpu" reduce --op sum --type u32 --random 4 --algo minmax
expect "unknown value 'halving' for sort" -- "$gpgpu" sort --type u32 --random 4 --algo halving -o -
expect "--algo vector works on CSR matrices, not --format ell" \
    -- "$gpgpu" spmv "$tmp/none.mtx" --format ell --algo vector
expect "--algo balanced works on CSR matrices, not --format coo" \
    -- "$gpgpu" cg "$tmp/none.mtx" --format coo --algo balanced
expect "--tune times the CSR vector kernel: it does not go with --format sell" \
    -- "$gpgpu" spmv "$tmp/none.mtx" --format sell --tune
expect "--sell-c shapes --format sell, not --format csr" -- "$gpgpu" spmv "$tmp/none.mtx" --sell-c 4
expect "--bsr-block shapes --format bsr, not --format ell" \
    -- "$gpgpu" spmv "$tmp/none.mtx" --format ell --bsr-block 2
expect "--tile is the work-group side of methods 1, 2 and 6, not of --method fast" \
    -- "$gpgpu" gemm --m 4 --n 4 --k 4 --tile 8
expect "--outputs is method 6's, not --method 2's" \
    -- "$gpgpu" gemm --m 4 --n 4 --k 4 --method 2 --outputs 2
expect "--method coopmat multiplies f32 matrices" \
    -- "$gpgpu" gemm --m 4 --n 4 --k 4 --method coopmat --type f64
expect "unknown value '3' for gemm" -- "$gpgpu" gemm --m 4 --n 4 --k 4 --method 3
expect "--memory-budget bounds the fast algorithms' chunks" \
    -- "$gpgpu" spgemm "$tmp/none.mtx" A -o - --algo classic --memory-budget 1M

[ "$failures" -eq 0 ] && echo "all passed" || echo "$failures failed" >&2
exit $((failures > 0))
