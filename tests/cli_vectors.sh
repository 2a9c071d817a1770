# What the CLI scripts of the vector commands share (sourced after cli_common.sh, with
# $gpgpu, $backend and $tmp set): writing one-column files and comparing outputs.

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

# same NAME GOT EXPECTED : two files must be equal.
same() {
    if ! cmp -s "$2" "$3"; then
        fail "$1: $2 differs from the expected"
        diff "$3" "$2" | head -20 >&2
    fi
}

# run_ok NAME COMMAND ARGS... : runs a gpgpu command on the backend; it must succeed.
run_ok() {
    local name=$1 cmd=$2
    shift 2
    if ! "$gpgpu" "$cmd" --backend "$backend" "$@" 2>"$tmp/stderr"; then
        fail "$name: gpgpu $cmd $* failed: $(cat "$tmp/stderr")"
        return 1
    fi
}

# exits_2 NAME EXPECTED-TEXT COMMAND ARGS... : the command must exit 2 saying the text,
# without writing $tmp/out.mtx.
exits_2() {
    local name=$1 text=$2 cmd=$3
    shift 3
    rm -f "$tmp/out.mtx"
    "$gpgpu" "$cmd" --backend "$backend" "$@" 2>"$tmp/stderr" >/dev/null
    local rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name: exit $rc, expected 2 ($(cat "$tmp/stderr"))"
    elif ! grep -q -- "$text" "$tmp/stderr"; then
        fail "$name: the message '$(cat "$tmp/stderr")' does not say '$text'"
    fi
    [ -e "$tmp/out.mtx" ] && fail "$name: an output was written"
}

finish() {
    if [ "$failures" -gt 0 ]; then
        echo "$failures check(s) failed" >&2
        exit 1
    fi
    exit 0
}
