#!/usr/bin/env python3
"""Checks that two checkouts compile the same shader programs.

usage: check_same.py OLD [NEW] [--only FAMILY...] [--glslang PATH] [--verbose]

OLD and NEW are the roots of two checkouts (NEW defaults to this file's). For every family
and variant (each TYPE and OP of its `// variants:` line, with and without SUBGROUPS, as GL
and as Vulkan sees it) it assembles the program's whole text as that checkout's build does,
runs it through glslangValidator -E (the preprocessor alone) and compares the two results.
They must differ in nothing but #line directives, comments, layout (where lines break), and
the names of constants that expand to the same values: moving code between files, naming a number or
splitting a family's parts is fine; a change to what a program contains is not.

Three things are allowed beyond that, each checked for what it is:
- Stage ids a checkout renumbered: NEW's text is assembled with OLD's numbers for the ids
  that OLD has (from OLD's ids tables, or, for a checkout before the tables, the numbers
  its shaders wrote bare: LEGACY_IDS below), so the programs must then be the same text.
- A parameter slot written `12` where the other wrote `12u` (params[12u], param_t(12u)): the
  same element.
- A family split off another (SPLITS below): the family it left holds its old text less
  some lines, each of which is in the new family's text, and the new family's text is the
  old family's with lines left out (a subsequence): code moved, none added.

Not in the build: run it by hand (it needs glslangValidator) before merging a change to
glsl/ or to an ids table, e.g. `python3 glsl/check_same.py ../main .`.
"""
import argparse
import difflib
import importlib.util
import itertools
import os
import re
import subprocess
import sys
import tempfile

PRELUDE = ["common.glsl", "ops.glsl"]
# The GL executor's #defines, left as names: the text is then every value's at once (no
# shader tests them in #if, which under Vulkan, where they are specialization constants,
# cannot be).
GL_SYMBOLIC = "".join(f"#define {n} {n}\n" for n in
                      ["WG_SIZE", "ITEMS", "ONLY_STAGE", "SHAPE0", "SHAPE1", "SHAPE2", "SHAPE3"])

# The families split off another: new family -> the family its code came from.
SPLITS = {"transpose.comp": "spgemm.comp", "matrix_check.comp": "spmv.comp"}

# The ids of a checkout without ids tables (or of a family without one), as its shaders
# numbered them (stage ids that the tables renumbered or moved to another family; every other
# id kept its number).
LEGACY_IDS = {
    "COPY_STAGE_COPY": 0,
    "COUNT_STAGE_LOAD": 0, "COUNT_STAGE_PUT": 1,
    "HISTOGRAM_STAGE_CLEAR": 0, "HISTOGRAM_STAGE_BINS": 1, "HISTOGRAM_STAGE_SHARED": 2,
    "HISTOGRAM_STAGE_GLOBAL": 3,
    "REDUCE_STAGE_TILES": 0, "REDUCE_STAGE_EXPAND": 1, "REDUCE_STAGE_HALVING": 2,
    "REDUCE_STAGE_STRIDE": 3, "REDUCE_STAGE_PAIRS": 4, "REDUCE_STAGE_QUADS": 5,
    "REDUCE_STAGE_COUNTER": 6, "REDUCE_STAGE_DOT": 7, "REDUCE_STAGE_UPDATE_DOT": 8,
    "RLE_STAGE_HEADS": 0, "RLE_STAGE_SCATTER": 1, "RLE_STAGE_LENGTHS": 2, "RLE_STAGE_CLEAR": 3,
    "RLE_STAGE_CHAINED": 4,
    "SCAN_STAGE_REDUCE": 0, "SCAN_STAGE_PARTIALS": 1, "SCAN_STAGE_TILES": 2,
    "SCAN_STAGE_COPY": 3, "SCAN_STAGE_STEP": 4, "SCAN_STAGE_CLEAR": 5, "SCAN_STAGE_CHAINED": 6,
    "SEGREDUCE_STAGE_PLAN": 0, "SEGREDUCE_STAGE_TILES": 1, "SEGREDUCE_STAGE_FIX": 2,
    "VECTOR_STAGE_AXPBY": 0,
    "SPMV_STAGE_LENGTHS": 0, "SPMV_STAGE_MAX": 1, "SPMV_STAGE_PRODUCTS": 2,
    "SPMV_STAGE_SUMS": 3, "SPMV_STAGE_COPY": 4, "SPMV_STAGE_SCALE": 5,
    "SPMV_STAGE_CSR_SCALAR": 6, "SPMV_STAGE_CSR_VECTOR": 7, "SPMV_STAGE_CSR_TILES": 8,
    "SPMV_STAGE_COO_TILES": 9, "SPMV_STAGE_TILE_FIX": 10, "SPMV_STAGE_ELL": 11,
    "SPMV_STAGE_SELL": 12, "SPMV_STAGE_BSR": 13, "SPMV_STAGE_CSC_PRODUCTS": 14,
    "SPMV_STAGE_CSC_GATHER": 15, "SPMV_STAGE_PATH_SEARCH": 18, "SPMV_STAGE_CSR_MERGE": 19,
    "MATRIX_CHECK_STAGE_PTRS": 16, "MATRIX_CHECK_STAGE_ENTRIES": 17,
    "SPGEMM_STAGE_ROWS_RANK": 28, "SPGEMM_STAGE_ROWS_COMPACT": 29, "SPGEMM_STAGE_ESC_NZ": 30,
    "TRANSPOSE_STAGE_ROW_OF": 25, "TRANSPOSE_STAGE_PERMUTE": 26, "TRANSPOSE_STAGE_COL_PTRS": 27,
}

TOKEN = re.compile(r"[A-Za-z_]\w*|0[xX][0-9A-Fa-f]+[uU]?"
                   r"|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?:lf|LF|[uUfF])?"
                   r"|<<=|>>=|&&|\|\||\^\^|\+\+|--|<<|>>|[-+*/%&|^<>=!]=|\S")


class Checkout:
    """How one checkout assembles a program: through its embed.py (program_text), or, for a
    checkout from before ids tables and parts, as that embed.py did (the prelude and the
    family, each after #line 1 N)."""

    def __init__(self, root, tag):
        self.root = root
        self.glsl = os.path.join(root, "glsl")
        self.ids_dir = os.path.join(root, "src", "algo", "ids")
        self.embed = None
        path = os.path.join(self.glsl, "embed.py")
        with open(path) as f:
            if "def program_text" in f.read():
                spec = importlib.util.spec_from_file_location(f"embed_{tag}", path)
                self.embed = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(self.embed)
                self.tree = self.embed.Tree(self.glsl, self.ids_dir)

    def families(self):
        return sorted(n for n in os.listdir(self.glsl) if n.endswith(".comp"))

    def read(self, name):
        with open(os.path.join(self.glsl, name)) as f:
            return f.read()

    def ids(self):
        """Every id of every table: name -> number (stages, slots, constants); for a family
        without a table yet, the numbers its shader wrote bare (LEGACY_IDS)."""
        out = dict(LEGACY_IDS)
        if not self.embed:
            return out
        for name in sorted(os.listdir(self.ids_dir)):
            if name.endswith("_ids.h"):
                tables = self.embed.read_ids(os.path.join(self.ids_dir, name), name[:-6])
                for kind, entries in tables.items():
                    if kind != "SHAPES":
                        out.update((n, v[0]) for n, _, v in entries)
        return out

    def variants(self, family):
        text = self.read(family)
        for line in text.splitlines():
            if line.startswith("// variants:"):
                axes = [item.split("=") for item in line.split(":", 1)[1].split()]
                names = [[f"{k}_{v}" for v in vs.split(",")] for k, vs in axes]
                combos = list(itertools.product(*names))
                break
        else:
            combos = [()]
        return [c if any(d.startswith("OP_") for d in c) else c + ("OP_SUM",) for c in combos]

    def text(self, family, defines, vulkan, values=None):
        if self.embed:
            return self.embed.program_text(self.tree, family, defines, vulkan, GL_SYMBOLIC,
                                           values)[0]
        sources = {n: self.read(n) for n in PRELUDE + [family]}
        exts = []
        for line in sources[family].splitlines():
            if line.startswith("// extensions:"):
                exts = line.split(":", 1)[1].split()
        head = "#version 450 core\n" + "".join(f"#extension {e} : require\n" for e in exts)
        head += "".join(f"#define {d}\n" for d in defines)
        if not vulkan:
            head += GL_SYMBOLIC
        return head + "".join(f"#line 1 {i + 1}\n{sources[n]}"
                              for i, n in enumerate(PRELUDE + [family]))


def preprocess(glslang, text, vulkan, tmp):
    path = os.path.join(tmp, "check.comp")
    with open(path, "w") as f:
        f.write(text)
    args = [glslang, "-E", path] + (["-DVULKAN=100"] if vulkan else [])
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"glslangValidator -E failed:\n{run.stdout}{run.stderr}")
    return statements(normalize(run.stdout))


def normalize(out):
    lines = []
    for line in out.splitlines():
        if line.lstrip().startswith("#line"):
            continue
        tokens = " ".join(TOKEN.findall(line))
        if tokens:
            lines.append(re.sub(r"\b(param_t \(|params \[) (\d+)u? ([)\]])", r"\1 \2 \3", tokens))
    return lines


def flat(lines):
    return " ".join(lines).split(" ")


def statements(lines):
    """The text cut after each ; { } and around directives, not where its lines break: the
    units whose order the checks of a split compare."""
    out, cur = [], []
    for line in lines:
        if line.startswith("#"):
            out.append(line)
            continue
        for token in line.split(" "):
            cur.append(token)
            if token in (";", "{", "}"):
                out.append(" ".join(cur))
                cur = []
    return out + ([" ".join(cur)] if cur else [])


def subsequence(short, long):
    """Whether `short` is `long` with lines left out."""
    it = iter(long)
    return all(any(line == other for other in it) for line in short)


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new", nargs="?", default=here)
    ap.add_argument("--glslang", default="glslangValidator")
    ap.add_argument("--only", nargs="+", metavar="FAMILY", help="these families alone (reduce)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    old, new = Checkout(args.old, "old"), Checkout(args.new, "new")
    values = old.ids()  # NEW's ids at OLD's numbers, where OLD has them
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        def program(tree, family, combo, vulkan):
            return preprocess(args.glslang, tree.text(family, combo, vulkan,
                                                      values if tree is new else None),
                              vulkan, tmp)

        split_from = {origin: split for split, origin in SPLITS.items()
                      if split in new.families()}
        for family in sorted(set(old.families()) | set(new.families())):
            if args.only and family[:-len(".comp")] not in args.only:
                continue
            if family not in new.families():
                print(f"{family}: only in {args.old}")
                failures += 1
                continue
            origin = family if family in old.families() else SPLITS.get(family)
            if origin not in old.families():
                print(f"{family}: a new family that comes from none of {args.old}'s")
                failures += 1
                continue
            if origin == family and old.variants(family) != new.variants(family):
                print(f"{family}: variants {old.variants(family)} -> {new.variants(family)}")
                failures += 1
                continue
            checked, removed, bad = 0, 0, []
            for combo in new.variants(family):
                for extra, vulkan in itertools.product([(), ("SUBGROUPS",)], [False, True]):
                    defines = combo + extra
                    what = f"{family} {' '.join(defines)} {'vulkan' if vulkan else 'gl'}"
                    a = program(old, origin, defines, vulkan)
                    b = program(new, family, defines, vulkan)
                    checked += 1
                    if family in SPLITS:  # moved here: old lines, in their order
                        if not subsequence(b, a):
                            bad.append((what, a, b))
                    elif family in split_from:  # lines moved out, each to the new family
                        split = split_from[family]
                        combos = new.variants(split)
                        moved = set(program(new, split, (combo if combo in combos else
                                                         combos[0]) + extra, vulkan))
                        out = leftover(a, b)
                        if not subsequence(b, a) or any(line not in moved for line in out):
                            bad.append((what, a, b))
                        removed = max(removed, len(out))
                    elif flat(a) != flat(b):  # the same tokens, however the lines break
                        bad.append((what, a, b))
            for what, a, b in bad[:3]:
                print(f"{what}: differs")
                diff = list(difflib.unified_diff(a, b, "old", "new", n=2, lineterm=""))
                print("\n".join(diff[:60 if args.verbose else 20]))
            failures += len(bad)
            note = ""
            if family in SPLITS:
                note = f", each a subsequence of {origin}'s"
            elif family in split_from:
                note = f", less at most {removed} lines, each now {split_from[family]}'s"
            print(f"{family}: {checked - len(bad)} of {checked} programs the same{note}")
    print("the same programs" if failures == 0 else f"{failures} programs differ")
    return 1 if failures else 0


def leftover(a, b):
    """The lines of `a` that a left-to-right match of `b` against it leaves out."""
    out, i = [], 0
    for line in a:
        if i < len(b) and line == b[i]:
            i += 1
        else:
            out.append(line)
    return out


if __name__ == "__main__":
    sys.exit(main())
