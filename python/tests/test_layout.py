"""Every struct, enum value and prototype that gpgpu._lib mirrors against a C program
compiled from the public headers: sizeof, offsetof and the size of every field, every enum
value, every function's argument and result kinds; and every field and enum value of the
headers mirrored (none missing, none extra)."""
import ctypes
import os
import re
import shlex
import subprocess

import pytest

from gpgpu import _lib

HERE = os.path.dirname(os.path.abspath(__file__))
# The public headers' folders (os.pathsep between them): the source tree's, and the build's
# where meson writes gpgpu/version.h. The first holds the headers whose text is parsed.
INCLUDES = os.environ.get("GPGPU_INCLUDE_DIR", os.path.join(HERE, "../../include")).split(os.pathsep)
INCLUDE = INCLUDES[0]
HEADERS = ["gpgpu.h", "sparse.h", "io.h"]


def header_text():
    text = "".join(open(os.path.join(INCLUDE, "gpgpu", h)).read() for h in HEADERS)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def header_structs(text):
    out = {}
    for name, body, tail in re.findall(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;",
                                       text, flags=re.S):
        assert name == tail
        fields = []
        for decl in body.split(";"):
            decl = re.sub(r"\[[^\]]*\]", "", decl).strip()
            if not decl:
                continue
            first, *rest = decl.split(",")
            fields.append(re.findall(r"\w+", first)[-1])
            fields += [re.findall(r"\w+", r)[-1] for r in rest]
        out[name] = fields
    return out


def header_enums(text):
    out = {}
    for name, body, tail in re.findall(r"typedef\s+enum\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;",
                                       text, flags=re.S):
        out[name] = re.findall(r"\b(GPGPU_\w+)\s*(?:=|,|$)", body)
    return out


def header_prototypes(text):
    out = {}
    for ret, name, params in re.findall(r"GPGPU_API\s+([\w\s\*]+?)\s*\b(gpgpu_\w+)\s*\((.*?)\)\s*;",
                                        text, flags=re.S):
        ps = [p.strip() for p in params.split(",")]
        out[name] = (ret.strip(), [] if ps == ["void"] else ps)
    return out


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """{key: value} printed by a C program over every mirrored struct field and enum."""
    text = header_text()
    structs = header_structs(text)
    lines = []
    for cname, cls in _lib.STRUCTS.items():
        if cname not in structs:
            continue
        lines.append(f'printf("sizeof {cname} %zu\\n", sizeof({cname}));')
        # Fields the header lacks fail test_struct_fields_all_mirrored, not the compile.
        for f in [f for f, _ in cls._fields_ if f in structs[cname]]:
            lines.append(f'printf("offsetof {cname}.{f} %zu\\n", offsetof({cname}, {f}));')
            lines.append(f'printf("fieldsize {cname}.{f} %zu\\n", '
                         f'sizeof((({cname} *)0)->{f}));')
    declared = {v for vs in header_enums(text).values() for v in vs}
    for name in _lib.enum_values():
        if name in declared:
            lines.append(f'printf("enum {name} %lld\\n", (long long){name});')
    for name in _lib.DEFINES:
        lines.append(f'printf("define {name} %llu\\n", (unsigned long long){name});')
    src = ("#include <stddef.h>\n#include <stdio.h>\n#include <gpgpu/gpgpu.h>\n"
           "#include <gpgpu/sparse.h>\n#include <gpgpu/io.h>\nint main(void)\n{\n    " +
           "\n    ".join(lines) + "\n    return 0;\n}\n")
    d = tmp_path_factory.mktemp("layout")
    (d / "probe.c").write_text(src)
    cc = shlex.split(os.environ.get("GPGPU_CC", "cc"))
    subprocess.run(cc + ["-std=c11"] + [f"-I{d}" for d in INCLUDES] + ["-o", str(d / "probe"), str(d / "probe.c")],
                   check=True)
    out = subprocess.run([str(d / "probe")], capture_output=True, text=True, check=True).stdout
    return {k: int(v) for k, v in (line.rsplit(" ", 1) for line in out.splitlines())}


@pytest.mark.parametrize("cname", sorted(_lib.STRUCTS))
def test_struct_layout(probe, cname):
    cls = _lib.STRUCTS[cname]
    assert "sizeof " + cname in probe, f"the headers declare no struct {cname}"
    got = {"sizeof " + cname: ctypes.sizeof(cls)}
    want = {"sizeof " + cname: probe["sizeof " + cname]}
    for f, _ in cls._fields_:
        got[f"offsetof {cname}.{f}"] = getattr(cls, f).offset
        got[f"fieldsize {cname}.{f}"] = getattr(cls, f).size
        for k in ("offsetof", "fieldsize"):
            want[f"{k} {cname}.{f}"] = probe.get(f"{k} {cname}.{f}")
    assert got == want


@pytest.mark.parametrize("cname", sorted(_lib.STRUCTS))
def test_struct_fields_all_mirrored(cname):
    fields = header_structs(header_text())[cname]
    assert [f for f, _ in _lib.STRUCTS[cname]._fields_] == fields


def test_enum_values(probe):
    text = header_text()
    declared = {v for vs in header_enums(text).values() for v in vs}
    mirrored = _lib.enum_values()
    wrong = {n: (v, probe["enum " + n]) for n, v in mirrored.items()
             if n in declared and probe["enum " + n] != v}
    assert wrong == {}


@pytest.mark.parametrize("name", _lib.DEFINES)
def test_define(probe, name):
    assert getattr(_lib, name) == probe["define " + name]


@pytest.mark.parametrize("enum", sorted(_lib.ENUMS))
def test_enums_all_mirrored(enum):
    declared = set(header_enums(header_text())[enum])
    prefix = re.compile(_lib.ENUMS[enum])
    mirrored = {n for n in _lib.enum_values() if prefix.match(n)}
    assert declared - mirrored == set(), "values of the header the package lacks"
    assert mirrored - declared == set(), "values the header lacks"


def _c_kind(decl, enums, callbacks):
    """(kind, size, signed) of a C parameter or result declaration, by the ABI."""
    decl = re.sub(r"\b(const|struct)\b", " ", decl)
    if "*" in decl:
        return ("pointer", 8, False)
    words = re.findall(r"\w+", decl)
    base = " ".join(words[:-1]) if len(words) > 1 and words[-1] not in (
        "void", "int", "double", "size_t", "bool", "unsigned") else " ".join(words)
    if base in callbacks:
        return ("pointer", 8, False)
    if base in enums or base == "int":
        return ("int", 4, True)
    table = {"size_t": ("int", 8, False), "double": ("float", 8, True),
             "uint32_t": ("int", 4, False), "unsigned": ("int", 4, False),
             "uint64_t": ("int", 8, False), "bool": ("int", 1, False), "void": None}
    return table[base]


def _ctypes_kind(t):
    if t is None:
        return None
    if t in (ctypes.c_void_p, ctypes.c_char_p) or issubclass(t, (ctypes._Pointer,
                                                                  ctypes._CFuncPtr)):
        return ("pointer", 8, False)
    if t is ctypes.c_double:
        return ("float", 8, True)
    if t is ctypes.c_bool:
        return ("int", 1, False)
    signed = t(-1).value < 0
    return ("int", ctypes.sizeof(t), signed)


@pytest.mark.parametrize("name", sorted(_lib.PROTOTYPES))
def test_prototype(name):
    text = header_text()
    protos = header_prototypes(text)
    table = _lib.PROTOTYPES
    assert name in protos, f"{name} is not declared by the headers"
    enums = set(header_enums(text))
    callbacks = set(re.findall(r"typedef\s+[\w\s\*]*\(\s*\*\s*\(?\s*\*?\s*(\w+)\)", text))
    ret, params = protos[name]
    res, args = table[name]
    want = [_c_kind(ret + " r", enums, callbacks)] + [_c_kind(p, enums, callbacks)
                                                      for p in params]
    got = [_ctypes_kind(res)] + [_ctypes_kind(a) for a in args]
    assert got == want
