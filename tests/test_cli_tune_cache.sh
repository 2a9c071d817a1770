#!/usr/bin/env bash
# `gpgpu cg` with $GPGPU_TUNE_CACHE naming a FIFO without a writer, /dev/zero, a 100 MB
# sparse file, a directory and a file of garbage lines, each named in a warning. The SPD
# file's rows (more than 12 entries on average: tests/matrices/matrices.py) take the vector
# SpMV by default, which looks its shape up in the cache: each run must end as it does
# without a file (the same iterations), within a minute, and leave the path as it was.
#
# Usage: test_cli_tune_cache.sh GPGPU BACKEND (through matrices.py run)
# Exit status 0 on success, 1 on a failure, 77 when BACKEND cannot start.
set -u
export LC_ALL=C

gpgpu=$1
backend=$2
spd=${GPGPU_MATRIX_SPD:?is not set: run the test through tests/matrices/matrices.py}
. "$(dirname "$0")/cli_common.sh"

# cg CACHE: the solve with that cache file; its output in $tmp/out, its exit status back.
cg() {
    GPGPU_TUNE_CACHE=$1 timeout 60 "$gpgpu" cg "$spd" --jacobi --every 1000 \
        --backend "$backend" >"$tmp/out" 2>"$tmp/err"
}

cg ""
rc=$?
want=$(grep '^converged after' "$tmp/out" | cut -d: -f1)
[ "$rc" -eq 0 ] && [ -n "$want" ] || fail "cg without a cache file: exit $rc, no convergence"

mkfifo "$tmp/fifo"
truncate -s 100M "$tmp/big"
mkdir "$tmp/dir"
printf 'not a cache line\n\001\002\377\n\tgemm 1 2 3\n' >"$tmp/garbage"
garbage_bytes=$(stat -c %s "$tmp/garbage")
for cache in "$tmp/fifo" /dev/zero "$tmp/big" "$tmp/dir" "$tmp/garbage"; do
    cg "$cache"
    rc=$?
    if [ "$rc" -eq 124 ]; then
        fail "cg with GPGPU_TUNE_CACHE=$cache did not end within 60 s"
        continue
    fi
    got=$(grep '^converged after' "$tmp/out" | cut -d: -f1)
    [ "$rc" -eq 0 ] && [ "$got" = "$want" ] ||
        fail "cg with GPGPU_TUNE_CACHE=$cache: exit $rc, '$got' (expected '$want'): $(cat "$tmp/err")"
    # The library only records why it left the file alone; the command says it.
    grep -q "^gpgpu: warning: tune cache $cache" "$tmp/err" ||
        fail "cg with GPGPU_TUNE_CACHE=$cache printed no warning: $(cat "$tmp/err")"
done
[ -p "$tmp/fifo" ] || fail "the FIFO is no longer a FIFO"
[ "$(stat -c %s "$tmp/big")" -eq $((100 << 20)) ] || fail "the 100 MB file changed size"
[ -d "$tmp/dir" ] || fail "the directory is no longer a directory"
[ "$(stat -c %s "$tmp/garbage")" -eq "$garbage_bytes" ] || fail "the garbage file changed"

[ "$failures" -eq 0 ]
