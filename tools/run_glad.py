#!/usr/bin/env python3
"""Runs Debian's glad generator and flattens its output for meson.

glad writes OUT/include/glad/gl.h, OUT/include/KHR/khrplatform.h and
OUT/src/gl.c; meson's custom_target wants its outputs directly in OUT, so
the files are moved there as glad_gl.{c,h} (a name no system header has)
and the includes are pointed at them.
"""
import os
import shutil
import subprocess
import sys
import tempfile

glad, outdir = sys.argv[1], sys.argv[2]
# GL 4.5 core plus the extensions the library queries: subgroups, and memory
# objects (GL buffers on memory allocated through Vulkan, src/gl/gl_vkmem.c).
EXTENSIONS = "GL_KHR_shader_subgroup,GL_EXT_memory_object,GL_EXT_memory_object_fd"
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([glad, "--api", "gl:core=4.5", "--extensions", EXTENSIONS,
                    "--out-path", tmp, "--reproducible", "--quiet", "c", "--mx"],
                   check=True)
    shutil.copy(os.path.join(tmp, "include", "KHR", "khrplatform.h"), outdir)
    with open(os.path.join(tmp, "include", "glad", "gl.h")) as f:
        header = f.read().replace("<KHR/khrplatform.h>", '"khrplatform.h"')
    with open(os.path.join(outdir, "glad_gl.h"), "w") as f:
        f.write(header)
    with open(os.path.join(tmp, "src", "gl.c")) as f:
        source = f.read().replace("<glad/gl.h>", '"glad_gl.h"')
    with open(os.path.join(outdir, "glad_gl.c"), "w") as f:
        f.write(source)
