# What the CLI test scripts share (sourced, after they set $gpgpu and
# $backend): a temporary directory $tmp removed on exit, fail() counting
# into $failures, and exit 77 when the backend cannot start at all; `gpgpu
# info` for the backend is left in $tmp/info.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

"$gpgpu" info --backend "$backend" >"$tmp/info" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
    echo "backend $backend unavailable: skipped" >&2
    exit 77
elif [ "$rc" -ne 0 ]; then
    cat "$tmp/info" >&2
    exit 1
fi

# mtx_size FILE : the size line of a MatrixMarket file (rows, columns and, for a
# coordinate file, the entries it stores).
mtx_size() {
    awk '/^%/ { next } { print $1, $2, $3; exit }' "$1"
}
