#!/usr/bin/env bash
# Hostile inputs to the gpgpu commands that read files (reduce, sort, scan,
# matinfo, select's flags, gather's indices): each stops with exit
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
printf '%%%%MatrixMarket matrix array integer general\n2 1\n1\n2\n' >"$tmp/two.mtx"
expect "NUL byte" -- "$gpgpu" select --type u32 --flags /dev/zero "$tmp/two.mtx" -o -
expect "NUL byte" -- "$gpgpu" gather --type u32 --indices /dev/zero "$tmp/two.mtx" -o -
expect "found 1" -- "$gpgpu" gather --type u32 --indices "$tmp/claim.mtx" "$tmp/two.mtx" -o -
expect "comments" -- bash -c "(echo '%%MatrixMarket matrix array real general'; yes %) |
    '$gpgpu' reduce --op max --type f32 /dev/stdin"
expect "longer than" -- bash -c "(echo '%%MatrixMarket matrix coordinate real general';
    yes ' ' | tr -d '\n') | '$gpgpu' matinfo /dev/stdin"

[ "$failures" -eq 0 ] && echo "all passed" || echo "$failures failed" >&2
exit $((failures > 0))
