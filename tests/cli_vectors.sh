# What the CLI scripts of the vector commands share beyond cli_common.sh (sourced after it,
# which gives them mtx, same and fail, with $gpgpu, $backend and $tmp set): running a command
# that must succeed or exit 2, and the scripts' exit status.

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
