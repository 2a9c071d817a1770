#!/usr/bin/env python3
"""Embeds the glsl/ sources into C, after validating every variant.

usage: embed.py GLSLANG OUT.c DIR IDS_DIR FILE...                      (GL: source text)
       embed.py --spirv GLSLANG SPIRV_VAL OUT.c DIR IDS_DIR FILE...   (Vulkan: SPIR-V)

FILE... are the prelude (common.glsl, ops.glsl), the families (*.comp) and the parts the
families include (*.glsl under a family's folder), all relative to DIR.

A family's text is its .comp file with two things done to it, here and nowhere else, so that
GL (which compiles the text at run time) and Vulkan (compiled here) see the same program:

- Its ids: the stage ids, parameter slots, shape fields and constants that the C drivers use
  too, written once in an X-macro header, IDS_DIR/<family>_ids.h (read_ids below says the
  format), become #defines in front of it. A `// ids:` line names the tables of a family that
  reads another's too (gemm_coopmat reads gemm's parameter slots); without it, its own.
- Its parts: a line `#include "sort/radix.glsl"` is replaced by that file's text, between
  #line directives, so that a compiler's message names the right source-string number and
  line (the numbers: `files`, embedded beside the text for the GL executor's messages).

Each family file names its variants in a `// variants:` line (and the GLSL extensions it
cannot do without in an `// extensions:` line); every combination is assembled as the GL
executor assembles it at run time (#version, #defines, common.glsl, ops.glsl, the family)
and checked with glslangValidator, with and without SUBGROUPS, so that a shader error fails
the build instead of a user's run. With --spirv the same combinations are compiled for
Vulkan 1.1 (where glslang predefines VULKAN, and WG_SIZE and ITEMS are specialization
constants) and embedded as "<family>.<TYPE>.<OP>[.sg]", each module first checked with
spirv-val (SPIRV_VAL; "" where it is not installed): glslang has written invalid modules from
valid GLSL (a `&&` of specialization constants in an array size), which drivers then reject
at pipeline creation, or crash on.

glsl/check_same.py imports this file (program_text) to compare two trees' programs.
"""
import itertools
import os
import re
import subprocess
import sys
import tempfile

PRELUDE = ["common.glsl", "ops.glsl"]
# The GL executor's #defines of a variant (gl_exec.c, variant_header), as the build checks it.
GL_DEFINES = ("#define WG_SIZE 256u\n#define ITEMS 4u\n#define ONLY_STAGE 0u\n"
              "#define SHAPE0 0u\n#define SHAPE1 0u\n#define SHAPE2 0u\n#define SHAPE3 0u\n")
PARAM_COUNT = 16  # EXEC_PARAM_COUNT in src/exec.h: params[0] is the stage
SHAPE_COUNT = 4   # EXEC_SHAPE_COUNT
KINDS = ("STAGES", "PARAMS", "SHAPES", "CONSTS")
INCLUDE = re.compile(r'^#include "([^"]+)"[ \t]*$')


class GlslError(Exception):
    pass


# ------------------------------------------------------------------------------------ ids

def read_ids(path, table):
    """The ids table `table` (a family's name) from its X-macro header: a dict of the lists
    <TABLE>_STAGES, _PARAMS, _SHAPES, _CONSTS (each may be absent), every entry X(NAME, ...):
      STAGES  X(NAME, id)                 ids 1, 2, ... in order: 0 as ONLY_STAGE is the
                                          family's shared program (src/exec.h)
      PARAMS  X(NAME, slot)               params[slot], 1..15; two names may share a slot
      SHAPES  X(NAME, word, shift, bits)  bits [shift, shift + bits) of SHAPE<word>
      CONSTS  X(NAME, value)              a number both sides use (a record's word, a flag)
    Every name starts with the table's name in capitals and an underscore."""
    with open(path) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S).replace("\\\n", " ")
    prefix = table.upper() + "_"
    found = {}
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(X\)(.*)$", text, re.M):
        macro, body = m.groups()
        kind = macro[len(prefix):] if macro.startswith(prefix) else ""
        if kind not in KINDS:
            raise GlslError(f"{path}: {macro}(X) is not one of {prefix}STAGES, _PARAMS, "
                            f"_SHAPES, _CONSTS")
        entries = []
        for args in re.findall(r"\bX\(([^()]*)\)", body):
            parts = [a.strip() for a in args.split(",")]
            if not parts[0].startswith(prefix):
                raise GlslError(f"{path}: {parts[0]} does not start with {prefix}")
            try:
                values = [int(v, 0) for v in parts[1:]]
            except ValueError:
                raise GlslError(f"{path}: {parts[0]}: the values must be integers")
            want = 3 if kind == "SHAPES" else 1
            if len(values) != want:
                raise GlslError(f"{path}: {parts[0]}: X(NAME, {'word, shift, bits' if want == 3 else 'value'})")
            entries.append((parts[0], parts[1:], values))
        found[kind] = entries
    check_ids(path, found)
    return found


def check_ids(path, tables):
    names = [e[0] for entries in tables.values() for e in entries]
    for name in names:
        if names.count(name) > 1:
            raise GlslError(f"{path}: {name} is defined twice")
    for i, (name, _, (value,)) in enumerate(tables.get("STAGES", [])):
        if value != i + 1:
            raise GlslError(f"{path}: {name} is {value}: stages are numbered 1, 2, ... in order")
    for name, _, (slot,) in tables.get("PARAMS", []):
        if not 1 <= slot < PARAM_COUNT:
            raise GlslError(f"{path}: {name}: slot {slot} is not in 1..{PARAM_COUNT - 1}")
    for name, _, (word, shift, bits) in tables.get("SHAPES", []):
        if not (0 <= word < SHAPE_COUNT and 0 <= shift and 1 <= bits and shift + bits <= 32):
            raise GlslError(f"{path}: {name}: not a field of SHAPE0..{SHAPE_COUNT - 1}")
    for name, _, (value,) in tables.get("CONSTS", []):
        if not 0 <= value < 2 ** 31:
            raise GlslError(f"{path}: {name}: {value} is not in 0..2^31-1 (a C enum)")


def shape_expr(word, shift, bits):
    """A shape field in GLSL: the whole word; a field from bit 0, or a flag, masked in place
    (a flag is tested against 0u); any other field shifted down."""
    if bits == 32:
        return f"SHAPE{word}"
    if shift == 0 or bits == 1:
        return f"(SHAPE{word} & {((1 << bits) - 1) << shift}u)"
    return f"((SHAPE{word} >> {shift}u) & {(1 << bits) - 1}u)"


def ids_glsl(tables, values=None):
    """The #defines of ids tables; `values` (name -> number) replaces the table's numbers
    (check_same.py compares a tree whose ids were renumbered)."""
    values = values or {}
    out = []
    for kind in KINDS:
        for name, literals, numbers in tables.get(kind, []):
            if kind == "SHAPES":
                out.append(f"#define {name} {shape_expr(*numbers)}")
                continue
            literal = str(values[name]) if name in values else literals[0]
            out.append(f"#define {name} {literal}" + ("" if kind == "PARAMS" else "u"))
    return "".join(line + "\n" for line in out)


def family_tables(text, family):
    """The ids tables a family reads: its `// ids:` line, else its own."""
    for line in text.splitlines():
        if line.startswith("// ids:"):
            return line.split(":", 1)[1].split()
    return [family]


# ---------------------------------------------------------------------------- sources

class Tree:
    """The glsl/ folder and the ids headers of one checkout."""

    def __init__(self, directory, ids_dir, parts=None):
        self.directory, self.ids_dir = directory, ids_dir
        self.parts = parts  # the parts the build lists (None: any file of the folder)
        self.cache = {}

    def read(self, name):
        if name not in self.cache:
            path = os.path.join(self.directory, name)
            if not os.path.isfile(path):
                raise GlslError(f"glsl/{name}: no such file")
            with open(path) as f:
                text = f.read()
            self.cache[name] = text if text.endswith("\n") else text + "\n"
        return self.cache[name]

    def resolve(self, name, files, stack=()):
        """glsl/<name> with each #include line replaced by the file's text, between #line
        directives: `#line 1 <its number>` before, `#line <the next line> <ours>` after.
        files: the source-string numbers so far (name -> number), added to in order."""
        if name in stack:
            raise GlslError(f"glsl/{name} includes itself: {' -> '.join(stack + (name,))}")
        out = []
        for number, line in enumerate(self.read(name).splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                out.append(line + "\n")
                continue
            part = m.group(1)
            if self.parts is not None and part not in self.parts:
                raise GlslError(f"glsl/{name}:{number}: {part} is not among the parts "
                                f"glsl/meson.build lists")
            files.setdefault(part, len(files) + 1)
            out.append(f"#line 1 {files[part]}\n")
            out.append(self.resolve(part, files, stack + (name,)))
            out.append(f"#line {number + 1} {files[name]}\n")
        return "".join(out)

    def family(self, family, values=None):
        """The family's text as both backends compile it (after the prelude), and its files
        by source-string number: [(number, name)], the prelude's first."""
        files = {name: i + 1 for i, name in enumerate(PRELUDE)}
        files[family] = len(files) + 1
        body = self.resolve(family, files)
        tables = family_tables(self.read(family), family[:-len(".comp")])
        ids = ""
        for table in tables:
            path = os.path.join(self.ids_dir, f"{table}_ids.h")
            if not os.path.isfile(path):
                raise GlslError(f"glsl/{family}: no ids table {path}")
            ids += ids_glsl(read_ids(path, table), values)
        ids_name = "ids (" + ", ".join(f"{t}_ids.h" for t in tables) + ")"
        files[ids_name] = len(files) + 1
        text = f"#line 1 {files[ids_name]}\n{ids}#line 1 {files[family]}\n{body}"
        return text, sorted((n, name) for name, n in files.items())


def variants(text):
    for line in text.splitlines():
        if line.startswith("// variants:"):
            axes = [item.split("=") for item in line.split(":", 1)[1].split()]
            names = [[f"{key}_{value}" for value in values.split(",")] for key, values in axes]
            return list(itertools.product(*names))
    return [()]


def extensions(text):
    """The `// extensions:` a family needs, required right after #version (GLSL takes
    #extension only before the first declaration, and the prelude comes first)."""
    for line in text.splitlines():
        if line.startswith("// extensions:"):
            return line.split(":", 1)[1].split()
    return []


def program_text(tree, family, defines, vulkan=False, gl_defines=GL_DEFINES, values=None):
    """A variant's whole text as the GL executor assembles it at run time (gl_exec.c,
    compile): #version, the family's extensions, the variant's #defines, then common.glsl,
    ops.glsl and the family, each after `#line 1 <its number>`. Under Vulkan glslang
    defines VULKAN, and WG_SIZE .. SHAPE3 are specialization constants."""
    text, files = tree.family(family, values)
    head = "#version 450 core\n" + "".join(f"#extension {e} : require\n"
                                           for e in extensions(tree.read(family)))
    head += "".join(f"#define {d}\n" for d in defines)
    if not vulkan:
        head += gl_defines
    prelude = "".join(f"#line 1 {i + 1}\n{tree.read(name)}" for i, name in enumerate(PRELUDE))
    return head + prelude + text, files


def combinations(text, family):
    """Every (defines, blob name) of a family, with and without SUBGROUPS."""
    for combo in variants(text):
        if not any(d.startswith("OP_") for d in combo):
            combo = combo + ("OP_SUM",)  # the scan family runs on +
        tags = [d.split("_", 1)[1] for d in combo]
        for extra in [(), ("SUBGROUPS",)]:
            name = ".".join([family[:-len(".comp")]] + tags) + (".sg" if extra else "")
            yield combo + extra, name


def name_files(log, files):
    """glslang's "ERROR: 4:12:" as "ERROR: sort/radix.glsl:12:" (source 0 is the header)."""
    names = dict(files)
    names[0] = "(the variant's #defines)"
    return re.sub(r"\b(\d+):(\d+):", lambda m: f"{names.get(int(m.group(1)), m.group(1))}:"
                  f"{m.group(2)}:", log)


def compile_one(glslang, tree, family, defines, tmp, vulkan, spirv_val=""):
    path = os.path.join(tmp, "check.comp")
    text, files = program_text(tree, family, defines, vulkan)
    with open(path, "w") as f:
        f.write(text)
    args = [glslang, path]
    if vulkan:
        args = [glslang, "-V", "--target-env", "vulkan1.1", "-o", path + ".spv", path]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        raise GlslError(f"{family} {' '.join(defines)}:\n"
                        f"{name_files(run.stdout + run.stderr, files)}")
    if vulkan and spirv_val:
        run = subprocess.run([spirv_val, "--target-env", "vulkan1.1", path + ".spv"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise GlslError(f"{family} {' '.join(defines)}: spirv-val:\n{run.stdout}{run.stderr}")
    if vulkan:
        with open(path + ".spv", "rb") as f:
            return f.read()
    return None


def write_spirv(out, blobs):
    with open(out, "w") as f:
        f.write("/* Generated by glsl/embed.py --spirv from glsl/; do not edit. */\n")
        f.write('#include "spirv_blobs.h"\n\n')
        for i, (name, code) in enumerate(blobs):
            words = [int.from_bytes(code[j:j + 4], "little") for j in range(0, len(code), 4)]
            rows = [", ".join(f"0x{w:08x}" for w in words[k:k + 8]) for k in range(0, len(words), 8)]
            f.write(f"static const uint32_t blob{i}[] = {{\n    " + ",\n    ".join(rows) + "};\n")
        f.write("\nconst spirv_blob spirv_blobs[] = {\n")
        for i, (name, code) in enumerate(blobs):
            f.write(f'    {{"{name}", blob{i}, sizeof blob{i}}},\n')
        f.write("};\n")
        f.write(f"const size_t spirv_blob_count = {len(blobs)};\n")


def c_string(text):
    lines = text.replace("\\", "\\\\").replace('"', '\\"').split("\n")
    return "\n".join(f'    "{line}\\n"' for line in lines)


def write_sources(out, tree, names):
    """The embedded text (glsl_sources.h): the prelude as it is, each family as family()
    makes it, with its files by number for the GL executor's messages."""
    with open(out, "w") as f:
        f.write("/* Generated by glsl/embed.py from glsl/; do not edit. */\n")
        f.write('#include <string.h>\n#include "glsl_sources.h"\n\n')
        f.write("const glsl_source glsl_sources[] = {\n")
        for name in names:
            if name.endswith(".comp"):
                text, files = tree.family(name)
                table = ", ".join(f"{n} {file}" for n, file in files)
                f.write(f'  {{"{name}",\n{c_string(text)},\n    "{table}"}},\n')
            else:
                f.write(f'  {{"{name}",\n{c_string(tree.read(name))}, NULL}},\n')
        f.write("};\n")
        f.write(f"const size_t glsl_source_count = {len(names)};\n\n")
        for what, field in (("text", "text"), ("files", "files")):
            f.write(f"const char *glsl_source_{what}(const char *name)\n{{\n"
                    "    for (size_t i = 0; i < glsl_source_count; i++)\n"
                    "        if (strcmp(glsl_sources[i].name, name) == 0)\n"
                    f"            return glsl_sources[i].{field};\n"
                    "    return NULL;\n}\n\n")


def main():
    args = sys.argv[1:]
    vulkan = args[0] == "--spirv"
    spirv_val = ""
    if vulkan:
        spirv_val = args[2]
        args = args[1:2] + args[3:]
    glslang, out, directory, ids_dir, files = args[0], args[1], args[2], args[3], args[4:]
    families = [name for name in files if name.endswith(".comp")]
    parts = [name for name in files if name not in PRELUDE and name not in families]
    tree = Tree(directory, ids_dir, parts)
    try:
        blobs = []
        with tempfile.TemporaryDirectory() as tmp:
            for family in families:
                for defines, blob in combinations(tree.read(family), family):
                    code = compile_one(glslang, tree, family, defines, tmp, vulkan, spirv_val)
                    blobs.append((blob, code))
        if vulkan:
            write_spirv(out, blobs)
        else:
            write_sources(out, tree, PRELUDE + families)
    except GlslError as e:
        sys.exit(str(e))


if __name__ == "__main__":
    main()
