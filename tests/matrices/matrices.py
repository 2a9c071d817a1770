#!/usr/bin/python3
"""The MatrixMarket files the tests read (docs/TESTING.md, "Matrices").

A test names the matrices it picks by role, a list of properties (GENERAL: real, general,
square, not symmetric). Each role stands for a file of the shared collection
(../shared/data/matrices beside the source tree) and for a generated file of the same
properties, so that a clone without the shared folder runs the same checks.

  matrices.py generate OUTDIR
      writes the generated collection into OUTDIR: a file per role, one for each other
      case the readers meet in the shared collection or must handle (skew-symmetric, real
      hermitian, an upper triangle stored, empty rows and columns, explicit zeros,
      duplicates, ...), and GENERATED.txt, which lists them and marks the folder as
      generated. The build runs it (tests/matrices/meson.build).

  matrices.py run SHARED GENERATED -- COMMAND [ARG...]
      runs one test: takes the folder GPGPU_MATRIX_DIR names when it is set, else SHARED
      when it exists, else GENERATED (the folder, or its GENERATED.txt); says on stderr
      which folder and whether its matrices are real or generated; then runs COMMAND with
      GPGPU_MATRIX_DIR (the folder), GPGPU_MATRIX_<ROLE> (the path of the role's file) and
      GPGPU_MATRIX_MIN_FILES (how many .mtx files the folder holds at least) set.
"""
import os
import sys

# role: (its file in the shared collection, the properties a file of the role has)
ROLES = {
    "GENERAL": ("west0067.mtx", "real general, square, not symmetric"),
    "RECTANGULAR": ("lp_afiro.mtx", "real general, wider than tall"),
    "TALL": ("ash219.mtx", "pattern general, taller than wide"),
    "PATTERN": ("gent113.mtx", "pattern general, square"),
    "PATTERN_SYMMETRIC": ("karate.mtx", "pattern symmetric, the lower triangle without a "
                          "diagonal, one row far longer than the others"),
    "INTEGER": ("n3c4-b4.mtx", "integer general, wider than tall"),
    "SPD": ("bcsstk04.mtx", "real symmetric positive definite, the lower triangle, rows of "
            "more than 12 entries (SpMV's vector kernel by default)"),
    "COMPLEX": ("qc324.mtx", "complex general, which the readers refuse"),
    "HERMITIAN": ("mhd1280b.mtx", "complex hermitian, which the readers refuse"),
}

# The shared collection holds 71 files; a folder with fewer is not all of it.
SHARED_MIN_FILES = 70

INDEX = "GENERATED.txt"


class Lcg:
    """A 64-bit LCG (Knuth's MMIX constants, as tests/test_spmv.c draws): the same files
    from every Python."""

    def __init__(self, seed):
        self.state = seed

    def below(self, n):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.state >> 33) % n

    def real(self):
        """A value of 6 digits, magnitude in [0.1, 10), either sign: exact in neither
        type, so the products round."""
        v = (1 + self.below(99000)) / 10000.0
        return "%.6g" % (-v if self.below(2) else v)

    def columns(self, k, n, exclude=()):
        """k distinct indices in [1, n], none of exclude (fewer when n runs out)."""
        out = set()
        while len(out) < min(k, n - len(exclude)):
            j = 1 + self.below(n)
            if j not in exclude:
                out.add(j)
        return sorted(out)


# ---------------------------------------------------------------- the files

def general(r):
    n = 53
    es = [(i, i, r.real()) for i in range(1, n + 1)]
    es += [(i, j, r.real()) for i in range(1, n + 1) for j in r.columns(4, n, {i})]
    return "real", "general", n, n, es


def rectangular(r):
    rows, cols = 19, 44
    return "real", "general", rows, cols, [(i, j, r.real()) for i in range(1, rows + 1)
                                           for j in r.columns(5, cols)]


def tall(r):
    rows, cols = 70, 23
    return "pattern", "general", rows, cols, [(i, j, None) for i in range(1, rows + 1)
                                              for j in r.columns(2, cols)]


def pattern(r):
    n = 31
    es = [(i, i, None) for i in range(1, n + 1)]
    es += [(i, j, None) for i in range(1, n + 1) for j in r.columns(3, n, {i})]
    return "pattern", "general", n, n, es


def pattern_symmetric(r):
    """A graph (no loops) whose node 1 meets 2..22 and whose other nodes meet two earlier
    ones: every row has an entry, and row 1 is far longer than the mean, so that ELL's
    padding passes twice the entries (as karate's hub rows do)."""
    n = 37
    edges = {(i, 1) for i in range(2, 23)}
    edges |= {(i, j) for i in range(23, n + 1) for j in r.columns(2, i - 1, {1})}
    return "pattern", "symmetric", n, n, [(i, j, None) for i, j in sorted(edges)]


def integer(r):
    rows, cols = 7, 18
    return "integer", "general", rows, cols, [
        (i, j, str((1 + r.below(4)) * (-1 if r.below(2) else 1)))
        for i in range(1, rows + 1) for j in r.columns(5, cols)]


def spd(r):
    """Strictly diagonally dominant with a positive diagonal: symmetric positive definite,
    and well conditioned (CG converges in f32 too)."""
    n = 144
    lower = {}
    for i in range(2, n + 1):
        for j in r.columns(11, i - 1):
            lower[(i, j)] = "%.6g" % (float(r.real()) / 10)
    row_sum = [0.0] * (n + 1)
    for (i, j), v in lower.items():
        row_sum[i] += abs(float(v))
        row_sum[j] += abs(float(v))
    es = [(i, i, "%.6g" % (row_sum[i] + 1)) for i in range(1, n + 1)]
    es += [(i, j, v) for (i, j), v in lower.items()]
    return "real", "symmetric", n, n, es


def complex_general(r):
    n = 9
    es = [(i, j, r.real() + " " + r.real()) for i in range(1, n + 1) for j in r.columns(2, n)]
    return "complex", "general", n, n, es


def complex_hermitian(r):
    n = 8
    es = [(i, i, r.real() + " 0") for i in range(1, n + 1)]
    es += [(i, j, r.real() + " " + r.real()) for i in range(2, n + 1)
           for j in r.columns(1, i - 1)]
    return "complex", "hermitian", n, n, es


def skew_symmetric(r):
    n = 25
    return "real", "skew-symmetric", n, n, [(i, j, r.real()) for i in range(2, n + 1)
                                            for j in r.columns(2, i - 1)]


def real_hermitian(r):
    """A = A^H with real entries: symmetric, which the readers read it as."""
    n = 18
    es = [(i, i, r.real()) for i in range(1, n + 1)]
    es += [(i, j, r.real()) for i in range(2, n + 1) for j in r.columns(2, i - 1)]
    return "real", "hermitian", n, n, es


def symmetric_upper(r):
    """A symmetric file that stores the upper triangle (as USPowerGrid does): mirrored all
    the same."""
    n = 30
    es = [(i, i, r.real()) for i in range(1, n + 1, 3)]
    es += [(j, i, r.real()) for i in range(2, n + 1) for j in r.columns(2, i - 1)]
    return "real", "symmetric", n, n, es


def integer_symmetric(r):
    n = 22
    es = [(i, i, str(2 + r.below(5))) for i in range(1, n + 1)]
    es += [(i, j, str(r.below(7) - 3)) for i in range(2, n + 1) for j in r.columns(1, i - 1)]
    return "integer", "symmetric", n, n, es


def empty_rows_cols(r):
    """Rows 1, 17 and 40 and columns 1, 20 and 33 (the first and the last of each among
    them) without an entry."""
    rows, cols = 40, 33
    return "real", "general", rows, cols, [
        (i, j, r.real()) for i in range(1, rows + 1) if i not in (1, 17, rows)
        for j in r.columns(3, cols, {1, 20, cols})]


def explicit_zeros(r):
    """Stored entries whose value is zero, in each spelling (a format keeps them as
    entries; BSR's blocks may drop them)."""
    n = 20
    zeros = ["0", "0.0", "-0", "0e0", "-0.0e+00"]
    es = []
    for i in range(1, n + 1):
        for j in r.columns(4, n):
            es.append((i, j, zeros[len(es) % 5] if len(es) % 3 == 0 else r.real()))
    return "real", "general", n, n, es


def duplicates(r):
    """Entries out of order, some of them given twice or three times: summed, in the file's
    order."""
    n = 15
    es = [(i, j, r.real()) for i in range(1, n + 1) for j in r.columns(2, n)]
    es += [(i, j, r.real()) for i, j, _ in es[::3]]
    es += [(i, j, r.real()) for i, j, _ in es[::7]]
    order = sorted(range(len(es)), key=lambda k: r.below(1 << 30))
    return "real", "general", n, n, [es[k] for k in order]


def pattern_values(r):
    """A pattern file with a value after some entries (as Pajek/Ragusa16 has): checked as
    a number and ignored."""
    n = 24
    es = [(i, j, str(1 + r.below(3)) if (i + j) % 2 else None) for i in range(1, n + 1)
          for j in r.columns(3, n)]
    return "pattern", "general", n, n, es


def no_entries(r):
    return "real", "general", 6, 9, []


def long_row(r):
    """Row 8 and column 5 full, the rest two entries a row: far from regular (SpMV's
    balanced kernel by default)."""
    n = 300
    es = {(8, j): r.real() for j in range(1, n + 1)}
    es.update({(i, 5): r.real() for i in range(1, n + 1)})
    for i in range(1, n + 1):
        es.update({(i, j): r.real() for j in r.columns(2, n, {5})})
    return "real", "general", n, n, [(i, j, v) for (i, j), v in sorted(es.items())]


# file: (its generator, what it is); the first ones are the roles' files
FILES = {
    "general.mtx": (general, ROLES["GENERAL"][1]),
    "rectangular.mtx": (rectangular, ROLES["RECTANGULAR"][1]),
    "tall.mtx": (tall, ROLES["TALL"][1]),
    "pattern.mtx": (pattern, ROLES["PATTERN"][1]),
    "pattern_symmetric.mtx": (pattern_symmetric, ROLES["PATTERN_SYMMETRIC"][1]),
    "integer.mtx": (integer, ROLES["INTEGER"][1]),
    "spd.mtx": (spd, ROLES["SPD"][1]),
    "complex.mtx": (complex_general, ROLES["COMPLEX"][1]),
    "hermitian.mtx": (complex_hermitian, ROLES["HERMITIAN"][1]),
    "skew_symmetric.mtx": (skew_symmetric, "real skew-symmetric, the strict lower triangle"),
    "real_hermitian.mtx": (real_hermitian, "real hermitian, read as symmetric"),
    "symmetric_upper.mtx": (symmetric_upper, "real symmetric, the upper triangle stored"),
    "integer_symmetric.mtx": (integer_symmetric, "integer symmetric"),
    "empty_rows_cols.mtx": (empty_rows_cols, "real general, empty rows and columns"),
    "explicit_zeros.mtx": (explicit_zeros, "real general, explicit zeros"),
    "duplicates.mtx": (duplicates, "real general, duplicate entries, out of order"),
    "pattern_values.mtx": (pattern_values, "pattern general, values after some entries"),
    "no_entries.mtx": (no_entries, "6 x 9 without an entry"),
    "long_row.mtx": (long_row, "real general, a full row and a full column"),
}


def role_file(role):
    return role.lower() + ".mtx"


def write(path, seed, make, what):
    field, symmetry, rows, cols, entries = make(Lcg(seed))
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate %s %s\n" % (field, symmetry))
        f.write("%% generated by tests/matrices/matrices.py: %s\n" % what)
        f.write("%d %d %d\n" % (rows, cols, len(entries)))
        for i, j, v in entries:
            f.write("%d %d\n" % (i, j) if v is None else "%d %d %s\n" % (i, j, v))


def generate(outdir):
    os.makedirs(outdir, exist_ok=True)
    # Files of another version of this script go: the tests read every .mtx here.
    for name in os.listdir(outdir):
        if name.endswith(".mtx") and name not in FILES:
            os.remove(os.path.join(outdir, name))
    for seed, (name, (make, what)) in enumerate(FILES.items(), start=1):
        write(os.path.join(outdir, name), seed, make, what)
    with open(os.path.join(outdir, INDEX), "w") as f:
        f.write("MatrixMarket files generated by tests/matrices/matrices.py for the tests, "
                "where the shared collection is absent (docs/TESTING.md, \"Matrices\").\n")
        for name, (_, what) in FILES.items():
            f.write("%s\t%s\n" % (name, what))


def run(shared, generated, command):
    # meson names the index relative to the build folder: the tests get absolute paths.
    generated = os.path.abspath(generated)
    if os.path.isfile(generated):
        generated = os.path.dirname(generated)
    shared = os.path.normpath(shared)
    folder = os.environ.get("GPGPU_MATRIX_DIR", "")
    if folder:
        why = " (GPGPU_MATRIX_DIR)"
    elif os.path.isdir(shared):
        folder, why = shared, ""
    else:
        folder, why = generated, ": %s is absent" % shared
    is_generated = os.path.isfile(os.path.join(folder, INDEX))
    print("using %s matrices in %s%s" % ("generated" if is_generated else "real", folder, why),
          file=sys.stderr, flush=True)
    env = dict(os.environ, GPGPU_MATRIX_DIR=folder,
               GPGPU_MATRIX_MIN_FILES=str(len(FILES) if is_generated else SHARED_MIN_FILES))
    for role, (shared_name, what) in ROLES.items():
        path = os.path.join(folder, role_file(role) if is_generated else shared_name)
        if not os.path.isfile(path):
            print("%s: no %s (%s: %s)" % (folder, os.path.basename(path), role, what),
                  file=sys.stderr)
            return 1
        env["GPGPU_MATRIX_" + role] = path
    os.execvpe(command[0], command, env)


def main(argv):
    if len(argv) == 3 and argv[1] == "generate":
        generate(argv[2])
        return 0
    if len(argv) > 5 and argv[1] == "run" and argv[4] == "--":
        return run(argv[2], argv[3], argv[5:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
