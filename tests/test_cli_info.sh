#!/usr/bin/env bash
# `gpgpu info` on one backend: the device and uuid lines; --all, a block per device of the
# backend numbered 1.. as --device counts them, each with its UUID where the driver gives one;
# --device N as every command takes it; the exit-2 cases.
#
# Usage: test_cli_info.sh GPGPU BACKEND
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

gpgpu=$1
backend=$2
. "$(dirname "$0")/cli_common.sh"

grep -Eq '^device: [0-9]+$' "$tmp/info" || fail "info: no 'device:' line"
grep -Eq '^uuid: ([0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}|none)$' "$tmp/info" ||
    fail "info: no 'uuid:' line"
if ! "$gpgpu" info --backend "$backend" --all >"$tmp/all" 2>"$tmp/stderr"; then
    fail "info --all: $(cat "$tmp/stderr")"
fi
n=$(awk '/^devices: / { print $2; exit }' "$tmp/all")
if [ -z "$n" ] || [ "$n" -lt 1 ]; then
    fail "info --all: no 'devices: N' line: $(head -3 "$tmp/all")"
else
    seq 1 "$n" >"$tmp/want"
    awk '/^device: / { print $2 }' "$tmp/all" >"$tmp/got"
    cmp -s "$tmp/want" "$tmp/got" || fail "info --all: devices $(tr '\n' ' ' <"$tmp/got"), expected 1..$n"
    [ "$(grep -c '^uuid: ' "$tmp/all")" -eq "$n" ] || fail "info --all: not a uuid line per device"
fi
"$gpgpu" info --backend "$backend" --device 1 >"$tmp/one" 2>"$tmp/stderr" ||
    fail "info --device 1: $(cat "$tmp/stderr")"
grep -qx 'device: 1' "$tmp/one" || fail "info --device 1 does not say 'device: 1'"
"$gpgpu" info --backend "$backend" --device 99 >/dev/null 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] && grep -q "device 99: there are" "$tmp/stderr" ||
    fail "info --device 99: exit $rc, $(cat "$tmp/stderr")"
"$gpgpu" info --all --device 1 >/dev/null 2>"$tmp/stderr"
[ $? -eq 2 ] || fail "info --all --device 1 is not a usage error"
"$gpgpu" info --device 0 >/dev/null 2>"$tmp/stderr"
[ $? -eq 2 ] || fail "info --device 0 is not a usage error"

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
exit 0
