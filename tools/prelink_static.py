#!/usr/bin/env python3
"""Makes libgpgpu.a: one prelinked object in which only gpgpu_* stay global.

usage: prelink_static.py LD OBJCOPY AR OUTPUT ARCHIVE...

A plain archive of the library's objects gives the host's link every
internal helper (ctx_fail, radix_sort, ...), the embedded shaders and glad's
loader as global symbols: one of the host's own of the same name either
fails the link or, worse, silently replaces ours (a host's GL 3.3
gladLoadGLContext filling the library's GL 4.5 table). Hidden visibility
does not help there: it only keeps a symbol out of a shared object's table,
and two hidden definitions in one static link still collide.

So the archives' objects are linked into one relocatable object (ld -r),
where every reference between them is now inside one object, and its hidden
symbols (everything but the GPGPU_API functions, -fvisibility=hidden) are
made local (objcopy --localize-hidden), as the version script does for the
shared library. tests/link checks that only gpgpu_* remain.
"""
import os
import subprocess
import sys

ld, objcopy, ar, output = sys.argv[1:5]
archives = sys.argv[5:]
obj = os.path.join(os.path.dirname(output) or ".", "libgpgpu-prelinked.o")
subprocess.run([ld, "-r", "-o", obj, "--whole-archive"] + archives + ["--no-whole-archive"],
               check=True)
subprocess.run([objcopy, "--localize-hidden", obj], check=True)
if os.path.exists(output):
    os.remove(output)  # ar would add to an old archive, not replace it
subprocess.run([ar, "rcsD", output, obj], check=True)
os.remove(obj)
