#!/usr/bin/env python3
"""Only the public API leaves the libraries.

usage: check_exports.py NM HEADERS_DIR [--static libgpgpu.a] [--shared libgpgpu.so]
                        [--macro GPGPU_MPI_API]

Lists the global defined symbols of the static archive (nm -g) and the
dynamic ones of the shared library (nm -D), and fails on any that is not a
function declared GPGPU_API in the public headers, and on any such function
that is missing: a helper that leaked would clash with a host's own name
(tests/link/host_app.c shows how), a missing one would not link.
"""
import argparse
import os
import re
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("nm")
parser.add_argument("headers")
parser.add_argument("--static")
parser.add_argument("--shared")
parser.add_argument("--no-vulkan", action="store_true", help="a build without gpgpu/vulkan.h")
parser.add_argument("--macro", default="GPGPU_API",
                    help="the export macro of the library's functions (libgpgpu_mpi's: GPGPU_MPI_API)")
args = parser.parse_args()
if args.static is None and args.shared is None:
    sys.exit("neither library given")


def declared_in(name):
    with open(os.path.join(args.headers, name)) as f:
        return set(re.findall(r"^" + args.macro + r"\b[^(]*?\b(\w+)\(", f.read(), re.M))


declared = set()
for name in sorted(os.listdir(args.headers)):
    if name.endswith(".h") and not (args.no_vulkan and name == "vulkan.h"):
        declared |= declared_in(name)


def exported(nm_args, path):
    out = subprocess.run([args.nm] + nm_args + [path], check=True, capture_output=True,
                         text=True).stdout
    # "ADDRESS TYPE NAME" lines; archive member headers ("x.o:") and blank
    # lines have fewer fields. A versioned name would read NAME@VERSION.
    return {line.split()[2].split("@")[0] for line in out.splitlines()
            if len(line.split()) == 3}


failed = False
for flag, path in (("-g", args.static), ("-D", args.shared)):
    if path is None:
        continue
    names = exported([flag, "--defined-only"], path)
    unprefixed = sorted(n for n in names if not n.startswith("gpgpu_"))
    undeclared = sorted(n for n in names - declared if n.startswith("gpgpu_"))
    missing = sorted(declared - names)
    print("%s: %d global symbols, %d public functions declared"
          % (path, len(names), len(declared)))
    for what, found in (("symbols without the gpgpu_ prefix", unprefixed),
                        ("gpgpu_ symbols no public header declares", undeclared),
                        ("public functions missing", missing)):
        if found:
            failed = True
            print("%s: %d %s: %s" % (path, len(found), what, " ".join(found)))
sys.exit(1 if failed else 0)
