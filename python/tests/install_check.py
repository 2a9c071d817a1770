"""meson install --destdir into a temporary folder, then imports the package from there
with a clean environment: the files are where the interpreter looks (the folder is on
/usr/bin/python3's own sys.path once DESTDIR is taken away), nothing but the package is
installed into it, and the installed package loads the installed library (no
GPGPU_LIBRARY, no LD_LIBRARY_PATH)."""
import os
import subprocess
import sys
import tempfile

meson, build, pkg_dir = os.environ["MESON"], os.environ["BUILD_ROOT"], os.environ["PY_PKG_DIR"]
expected = {"__init__.py", "_array.py", "_config.py", "_context.py", "_errors.py", "_lib.py",
            "_ops.py", "_primitives.py", "_solver.py", "_sparse.py"}

site = os.path.dirname(os.path.normpath(pkg_dir))
searched = subprocess.run([sys.executable, "-c", "import sys; print('\\n'.join(sys.path))"],
                          env={"PATH": os.environ.get("PATH", "")}, capture_output=True,
                          text=True, check=True).stdout.split("\n")
if site not in [os.path.normpath(p) for p in searched if p]:
    sys.exit(f"{site} is not on {sys.executable}'s sys.path: `import gpgpu` would need "
             "PYTHONPATH after meson install")

with tempfile.TemporaryDirectory() as dest:
    subprocess.run([meson, "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", dest,
                    "--tags", "runtime,python-runtime"], check=True)
    installed = set(os.listdir(dest + pkg_dir))
    if installed != expected:
        sys.exit(f"installed {sorted(installed)}, expected {sorted(expected)}")
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPGPU_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH")}
    env["PYTHONPATH"] = dest + site
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    code = ("import gpgpu, gpgpu._lib as L; print(gpgpu.LIBRARY_PATH); "
            "print(gpgpu.__file__); print(gpgpu.__version__); print(L.gpgpu_type_size(4))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True)
    if out.returncode:
        sys.exit(f"import from {dest + site} failed:\n{out.stderr}")
    lib, init, version, f64_size = out.stdout.split("\n")[:4]
    if not lib.startswith(dest + "/") or not os.path.isfile(lib):
        sys.exit(f"the installed package loaded {lib}, not the library installed in {dest}")
    if not init.startswith(dest + pkg_dir):
        sys.exit(f"imported {init}, not the installed package")
    if f64_size != "8" or version.endswith("+source"):
        sys.exit(f"unexpected answers: version {version}, gpgpu_type_size(F64) {f64_size}")
    print(f"installed into {pkg_dir}; loads {lib[len(dest):]}; version {version}")
