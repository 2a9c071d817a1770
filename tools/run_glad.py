#!/usr/bin/env python3
"""Runs Debian's glad generator and flattens its output for meson.

glad writes OUT/include/glad/gl.h, OUT/include/KHR/khrplatform.h and
OUT/src/gl.c; meson's custom_target wants its outputs directly in OUT, so
the files are moved there as NAME.c, NAME.h and NAME_khrplatform.h (names no
system header has, and distinct for each loader of one folder) and the
includes are pointed at them.

Without options it makes the library's loader: GL 4.5 core, --mx, the
extensions below, NAME glad_gl. tests/link makes loaders of other kinds
(--api, --plain, --name) for programs that bring their own.
"""
import argparse
import os
import shutil
import subprocess
import tempfile

# GL 4.5 core plus the extensions the library queries: subgroups, and memory
# objects (GL buffers on memory allocated through Vulkan, src/gl/gl_vkmem.c).
EXTENSIONS = "GL_KHR_shader_subgroup,GL_EXT_memory_object,GL_EXT_memory_object_fd"

parser = argparse.ArgumentParser()
parser.add_argument("glad")
parser.add_argument("outdir")
parser.add_argument("--name", default="glad_gl")
parser.add_argument("--api", default="gl:core=4.5")
parser.add_argument("--extensions", default=EXTENSIONS)
parser.add_argument("--plain", action="store_true",
                    help="global function pointers (gladLoadGL) instead of --mx's struct")
args = parser.parse_args()

khr = args.name + "_khrplatform.h"
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([args.glad, "--api", args.api, "--extensions", args.extensions,
                    "--out-path", tmp, "--reproducible", "--quiet", "c"]
                   + ([] if args.plain else ["--mx"]),
                   check=True)
    shutil.copy(os.path.join(tmp, "include", "KHR", "khrplatform.h"),
                os.path.join(args.outdir, khr))
    with open(os.path.join(tmp, "include", "glad", "gl.h")) as f:
        header = f.read().replace("<KHR/khrplatform.h>", '"%s"' % khr)
    with open(os.path.join(args.outdir, args.name + ".h"), "w") as f:
        f.write(header)
    with open(os.path.join(tmp, "src", "gl.c")) as f:
        source = f.read().replace("<glad/gl.h>", '"%s.h"' % args.name)
    with open(os.path.join(args.outdir, args.name + ".c"), "w") as f:
        f.write(source)
