#!/usr/bin/env bash
# `gpgpu --version` and `gpgpu-bench --version` print the project's version
# (VERSION, meson's, passed by tests/link/meson.build) and exit 0 before any
# GPU work; each tool's --help names --version.
#
# Usage: test_tool_version.sh VERSION GPGPU GPGPU_BENCH
# Exit status 0 on success, 1 on a failure.
set -u
version=$1
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

for tool in "$2" "$3"; do
    name=$(basename "$tool")
    out=$("$tool" --version 2>&1)
    rc=$?
    [ "$rc" -eq 0 ] || fail "$name --version exited $rc: $out"
    [ "$out" = "$name $version" ] || fail "$name --version printed '$out', not '$name $version'"
    help=$("$tool" --help 2>&1)
    rc=$?
    [ "$rc" -eq 0 ] || fail "$name --help exited $rc"
    grep -q -- '--version' <<<"$help" || fail "$name --help does not mention --version"
done
[ "$failures" -eq 0 ] && echo "ok: both tools say $version"
exit $((failures > 0))
