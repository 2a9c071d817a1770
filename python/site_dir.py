"""Prints the folder the gpgpu package is installed into, and on a second line "searched"
or "not searched" (whether the interpreter looks there). Meson's choice for the
interpreter (argv[1]) where the interpreter searches it, else the interpreter's own
site-packages folder under the prefix (argv[2]): Debian's python3 searches
/usr/local/lib/python3.X/dist-packages and /usr/lib/python3/dist-packages, while meson puts
a /usr/local prefix's pure modules in /usr/local/lib/python3/dist-packages, which it does
not search."""
import os
import site
import sys

chosen, prefix = (os.path.normpath(p) for p in sys.argv[1:3])
searched = [os.path.normpath(p) for p in sys.path if p]
under = [os.path.normpath(p) for p in site.getsitepackages()
         if os.path.normpath(p).startswith(prefix.rstrip("/") + "/")]
folder = chosen if chosen in searched or not under else under[0]
print(folder)
print("searched" if folder in searched else "not searched")
