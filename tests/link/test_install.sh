#!/usr/bin/env bash
# The installed tree works from wherever it is put: `meson install --destdir`
# into a temporary folder, then, with nothing but what was installed and
# pkg-config (PKG_CONFIG_SYSROOT_DIR, as for any tree installed under a
# root):
# - the installed gpgpu and gpgpu-bench start there, on the installed
#   library (their run path is relative to them), and print the version;
# - each installed header compiles alone, first in a C and in a C++ file;
# - a program builds against the shared library (pkg-config --libs) and
#   against the static one (pkg-config --static --libs), and sorts;
# - the installed `gpgpu info` runs.
#
# Usage: test_install.sh MESON BUILDDIR VERSION CONSUMER.c
# Environment: CC, CXX (empty: no C++ check), CFLAGS (the build's sanitizer
# flags, which a program linking a sanitized library needs), PKG_CONFIG.
# Exit status 0 on success, 1 on a failure, 77 when all but the runs that
# need a GPU context passed and no context could be made.
set -u
meson=$1 build=$2 version=$3 consumer=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
no_context=0
# The installed programs must find the installed library by themselves.
unset LD_LIBRARY_PATH

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run WHAT COMMAND...: exit 0 expected; 77 (no context) is counted apart.
run() {
    local what=$1 rc
    shift
    "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -eq 77 ]; then
        no_context=1
    elif [ "$rc" -ne 0 ]; then
        fail "$what exited $rc: $(cat "$tmp/out")"
    fi
}

# The library a program loads must be the installed one.
loads_installed() {
    local lib
    lib=$(ldd "$2" | awk '/libgpgpu\.so/ { print $3 }')
    case "$(readlink -f "$lib")" in
    "$(readlink -f "$libdir")"/*) ;;
    *) fail "$1 loads libgpgpu from '$lib', not from $libdir" ;;
    esac
}

root=$tmp/root
if ! "$meson" install -C "$build" --no-rebuild --quiet --destdir "$root" >"$tmp/log" 2>&1; then
    cat "$tmp/log" >&2
    exit 1
fi
pc=$(find "$root" -path '*/pkgconfig/gpgpu.pc')
if [ -z "$pc" ]; then
    echo "FAIL: no gpgpu.pc was installed" >&2
    exit 1
fi
export PKG_CONFIG_PATH=${pc%/gpgpu.pc} PKG_CONFIG_SYSROOT_DIR=$root
# pkgconf puts the root before a variable's value, pkg-config does not.
libdir=$root$(PKG_CONFIG_SYSROOT_DIR='' $PKG_CONFIG --variable=libdir gpgpu)
includedir=$root$(PKG_CONFIG_SYSROOT_DIR='' $PKG_CONFIG --variable=includedir gpgpu)
cflags=$($PKG_CONFIG --cflags gpgpu)
if [ ! -e "$libdir/libgpgpu.so" ] && [ ! -e "$libdir/libgpgpu.a" ]; then
    echo "FAIL: no libgpgpu.so or libgpgpu.a in $libdir, gpgpu.pc's libdir" >&2
    exit 1
fi

for tool in gpgpu gpgpu-bench; do
    exe=$(find "$root" -path "*/bin/$tool" -type f)
    if [ ! -x "$exe" ]; then
        fail "$tool was not installed"
        continue
    fi
    [ -e "$libdir/libgpgpu.so" ] && loads_installed "$tool" "$exe"
    out=$("$exe" --version 2>&1)
    [ "$out" = "$tool $version" ] || fail "installed $tool --version printed '$out'"
done

# Each header first in a file of its own, as C99 and as C++11.
headers=$(cd "$includedir" && ls gpgpu/*.h)
[ -n "$headers" ] || fail "no headers in $includedir/gpgpu"
for h in $headers; do
    printf '#include <%s>\nint header_alone;\n' "$h" >"$tmp/alone.c"
    hflags=$cflags
    # gpgpu/mpi.h (a build with MPI) needs MPI's headers: the flags of what gpgpu-mpi.pc
    # requires besides gpgpu, from the system rather than the installed root.
    if [ "$h" = gpgpu/mpi.h ]; then
        for req in $($PKG_CONFIG --print-requires gpgpu-mpi | awk '$1 != "gpgpu" { print $1 }'); do
            hflags="$hflags $(PKG_CONFIG_SYSROOT_DIR='' $PKG_CONFIG --cflags "$req")"
        done
    fi
    # shellcheck disable=SC2086 # CC, CFLAGS and hflags are word lists
    $CC $CFLAGS -std=c99 -Wall -Wextra -Wpedantic -Werror $hflags -c "$tmp/alone.c" \
        -o "$tmp/alone.o" 2>"$tmp/err" || fail "$h alone in C: $(cat "$tmp/err")"
    if [ -n "$CXX" ]; then
        cp "$tmp/alone.c" "$tmp/alone.cpp"
        # shellcheck disable=SC2086
        $CXX $CFLAGS -std=c++11 -Wall -Wextra -Wpedantic -Werror $hflags -c "$tmp/alone.cpp" \
            -o "$tmp/alone.o" 2>"$tmp/err" || fail "$h alone in C++: $(cat "$tmp/err")"
    fi
done

# shellcheck disable=SC2086
if [ -e "$libdir/libgpgpu.so" ]; then
    if $CC $CFLAGS -std=c11 "$consumer" -o "$tmp/shared_app" $cflags $($PKG_CONFIG --libs gpgpu) \
        -Wl,-rpath,"$libdir" 2>"$tmp/err"; then
        loads_installed "the shared consumer" "$tmp/shared_app"
        run "the shared consumer" "$tmp/shared_app" "$version"
    else
        fail "the shared consumer does not build: $(cat "$tmp/err")"
    fi
fi
# Where both are installed, -lgpgpu would take the shared library: the
# archive is named instead (docs/GUIDE.md, "Linking: static or shared").
if [ -e "$libdir/libgpgpu.a" ]; then
    libs=$($PKG_CONFIG --static --libs gpgpu)
    libs=${libs/-lgpgpu/-l:libgpgpu.a}
    # shellcheck disable=SC2086
    if $CC $CFLAGS -std=c11 "$consumer" -o "$tmp/static_app" $cflags $libs 2>"$tmp/err"; then
        if readelf -d "$tmp/static_app" | grep -q 'NEEDED.*libgpgpu'; then
            fail "the static consumer needs libgpgpu.so"
        fi
        run "the static consumer" "$tmp/static_app" "$version"
    else
        fail "the static consumer does not build with pkg-config --static: $(cat "$tmp/err")"
    fi
fi

exe=$(find "$root" -path '*/bin/gpgpu' -type f)
[ -x "$exe" ] && run "installed gpgpu info" "$exe" info

if [ "$failures" -gt 0 ]; then
    exit 1
elif [ "$no_context" -eq 1 ]; then
    echo "no GPU context: the programs that need one were skipped" >&2
    exit 77
fi
echo "ok: installed into $root, tools, headers, shared and static consumers"
