#!/usr/bin/env python3
"""What the ROCm math libraries' headers declare, for the `roc` column and the MIOpen names.

The `roc` column of mappings/{blas,sparse,solver,rand}.csv names rocBLAS, rocSPARSE, rocSOLVER
and rocRAND API, and the `hip` column of mappings/dnn.csv names MIOpen API. This module reads
what those libraries' own headers declare, after clang's preprocessor (so the export and
deprecation macros are expanded and only the library's own files count):

  * functions, each with the parameter counts of its declarations (C++ overloads may differ);
  * enumerators, type names (typedefs, struct/class/enum tags, aliases) and macros.

It also reads the committed list of CUDA library parameter counts
(scripts/data/api/cuda_library_arity.tsv), which `--cuda-arity` rebuilds from NVIDIA's
wheels (the CUDA side of the arity check: a roc function must take as many parameters as the
CUDA function it replaces, unless the row's transform changes the count). The wheels are the
`arity = true` ones of scripts/inputs.lock, pinned by version and sha256; the list's sha256 is
pinned there too.

    python scripts/roc_api.py --summary            # what each library's 7.2 headers declare
    python scripts/roc_api.py --cuda-arity         # rebuild the CUDA arity list from the pinned
                                                   # wheels (fetched, sha256 checked; review)
    python scripts/roc_api.py --cuda-arity WHEEL...  # ... from other wheels (then pin them)
    python scripts/roc_api.py --fetch ci|all|NAME... # fetch pinned arity wheels into the cache

Nothing here writes a mapping table.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARITY_FILE = ROOT / "scripts" / "data" / "api" / "cuda_library_arity.tsv"
CUDA_INCLUDE = Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))

# roc area -> (include folders whose declarations count, headers to preprocess). rocSOLVER takes
# rocBLAS handles, enums and types, so rocBLAS's folder counts for the solver area too.
LIBRARIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "blas": (("rocblas",), ("rocblas/rocblas.h",)),
    "sparse": (("rocsparse",), ("rocsparse/rocsparse.h",)),
    "solver": (("rocsolver", "rocblas"), ("rocsolver/rocsolver.h",)),
    "rand": (
        ("rocrand",),
        ("rocrand/rocrand.h", "rocrand/rocrand_kernel.h", "rocrand/rocrand_mtgp32_11213.h"),
    ),
    "dnn": (("miopen",), ("miopen/miopen.h",)),
}
# Macros porter defines before a library's include with --roc, so its headers are read the same
# way: porter puts `#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX` before a rocBLAS/rocSOLVER include
# (porter/rewrite/includes.py), under which rocblas-complex-types.h (ROCm 6.4 and 7.2) declares
# `typedef hipFloatComplex rocblas_float_complex;` and `typedef hipDoubleComplex
# rocblas_double_complex;`: the hipComplex / hipDoubleComplex porter gives cuComplex pass as is.
HIP_COMPLEX_MACRO = "ROCM_MATHLIBS_API_USE_HIP_COMPLEX"
DEFINES: dict[str, tuple[str, ...]] = {
    "blas": (f"-D{HIP_COMPLEX_MACRO}",),
    "solver": (f"-D{HIP_COMPLEX_MACRO}",),
}
# HIP headers whose typedefs count as aliases of the library's types (the names a ported call
# passes): amd_hip_complex.h declares `typedef float2 hipFloatComplex;`, `typedef double2
# hipDoubleComplex;`, `typedef hipFloatComplex hipComplex;` (ROCm 6.4 and 7.2)
HIP_ALIAS_FILES = ("hip/amd_detail/amd_hip_complex.h",)
_ALIAS_DEPTH = 8  # typedef chains are short (hipComplex -> hipFloatComplex -> float2)
# CUDA headers (inside a wheel's include/ folder) whose functions the arity list records
CUDA_HEADERS = (
    "cublas_v2.h",
    "cusparse.h",
    "cusolverDn.h",
    "curand.h",
    "curand_kernel.h",
    "curand_mtgp32_host.h",
    "cudnn.h",
)
_LINE_MARKER = re.compile(r'^# (\d+) "([^"]*)"')
_DEFINE = re.compile(r"^#define (\w+)(\([^)]*\))?[ \t]*(.*)$")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_NOT_NAMES = frozenset(
    "if while for switch return sizeof alignof decltype static_assert "
    "__attribute__ __declspec alignas noexcept operator defined "
    "__builtin_expect throw new delete catch".split()
)


@dataclass
class Declared:
    """What one library's headers declare."""

    functions: dict[str, set[int]] = field(default_factory=dict)  # name -> parameter counts
    params: dict[str, list[list[str]]] = field(default_factory=dict)  # name -> parameter lists
    returns: dict[str, list[str]] = field(default_factory=dict)  # name -> return types
    enumerators: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)
    macros: dict[str, str] = field(default_factory=dict)  # object-like: name -> body
    aliases: dict[str, str] = field(default_factory=dict)  # `typedef A B;` / `using B = A;`: B -> A

    def names(self) -> set[str]:
        return set(self.functions) | self.enumerators | self.types | set(self.macros)

    def has(self, name: str, kind: str) -> bool:
        """Is `name` declared as something a row of this kind can name?"""
        if kind in ("function", "device_function"):
            return name in self.functions or name in self.macros
        if kind == "type":
            return name in self.types or name in self.macros
        if kind == "enum":
            return name in self.enumerators or name in self.macros
        return name in self.names()  # a CUDA macro may stand for a function, type or value


# -- preprocessing --------------------------------------------------------------------------------
def clang() -> str | None:
    return shutil.which("clang++-22") or shutil.which("clang++")


def preprocess(
    headers: list[Path], includes: list[Path], language: str, extra: tuple[str, ...] = ()
) -> str:
    """clang -E -dD of the headers (one translation unit), comments gone, #defines kept."""
    exe = clang()
    if exe is None:
        raise FileNotFoundError("clang++-22 not found (run scripts/setup-rocm.sh)")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "all.h"
        src.write_text("".join(f'#include "{h}"\n' for h in headers), encoding="utf-8")
        cmd = [
            exe,
            "-E",
            "-dD",
            "-std=c++17",
            *language.split(),
            *extra,
            *[f"-isystem{p}" for p in includes],
            str(src),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        raise ValueError(f"preprocessing failed: {proc.stderr.strip().splitlines()[-1:]}")
    return proc.stdout


def own_text(pre: str, keep) -> str:
    """The lines of the preprocessed output that come from files `keep(path)` accepts."""
    out: list[str] = []
    mine = False
    for line in pre.splitlines():
        m = _LINE_MARKER.match(line)
        if m:
            mine = keep(m.group(2))
            out.append("")
            continue
        if mine:
            out.append(line)
    return "\n".join(out)


# -- declarations ---------------------------------------------------------------------------------
def _matching(text: str, i: int, open_: str, close: str) -> int:
    """Index of the bracket closing the one at text[i]."""
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            i = _skip_string(text, i)
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n - 1


def _skip_string(text: str, i: int) -> int:
    q = text[i]
    i += 1
    while i < len(text) and text[i] != q:
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _strip_attributes(s: str) -> str:
    for kw in ("__attribute__", "__declspec", "alignas", "__launch_bounds__"):
        while True:
            k = s.find(kw)
            if k < 0:
                break
            p = s.find("(", k)
            if p < 0:
                break
            s = s[:k] + " " + s[_matching(s, p, "(", ")") + 1 :]
    while "[[" in s:
        k = s.find("[[")
        e = s.find("]]", k)
        s = s[:k] + " " + s[e + 2 :] if e > 0 else s[:k]
    return s


def split_params(inner: str) -> list[str]:
    """Top-level comma-separated parameters (`void` or nothing: none)."""
    parts, depth, cur = [], 0, []
    for c in inner:
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    last = "".join(cur).strip()
    if last:
        parts.append(last)
    if parts == ["void"]:
        return []
    return parts


def _statement(s: str, d: Declared) -> None:
    """One top-level declaration (text up to its `;` or its body's `{`)."""
    s = _strip_attributes(s).strip()
    if not s or s.startswith(("static_assert", "#")):
        return
    s = re.sub(r"^template\s*<", "<", s)
    if s.startswith("<"):
        s = s[_matching(s, 0, "<", ">") + 1 :].strip()
    if s.startswith("using "):
        m = re.match(r"using\s+(\w+)\s*=", s)
        if m:
            d.types.add(m.group(1))
            a = re.fullmatch(r"using\s+\w+\s*=\s*([A-Za-z_]\w*)\s*", s)
            if a:
                d.aliases[m.group(1)] = a.group(1)
        return
    if s.startswith("typedef"):
        a = re.fullmatch(r"typedef\s+([A-Za-z_]\w*)\s+([A-Za-z_]\w*)", s)
        if a:
            d.aliases[a.group(2)] = a.group(1)
        m = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", s)  # function pointer type
        if m:
            d.types.add(m.group(1))
            return
        body = re.sub(r"\[[^\]]*\]", "", s).rstrip("; ")
        names = _IDENT.findall(body.split(",")[0]) if "," not in body else None
        for part in body.split(",") if names is None else [body]:
            ids = _IDENT.findall(part)
            if ids:
                d.types.add(ids[-1])
        return
    p = s.find("(")
    if p <= 0:
        return
    before = s[:p].rstrip()
    m = re.search(r"(~?[A-Za-z_]\w*)$", before)
    if not m or m.group(1) in _NOT_NAMES or m.group(1).startswith("~"):
        return
    head = before[: m.start()]
    if not head.strip() or head.rstrip().endswith(("::", ".", "->")) or "=" in head:
        return  # a constructor, a member, or an initialised variable
    name = m.group(1)
    params = split_params(s[p + 1 : _matching(s, p, "(", ")")])
    d.functions.setdefault(name, set()).add(len(params))
    d.params.setdefault(name, []).append(params)
    d.returns.setdefault(name, []).append(head.strip())


def _tag(s: str) -> tuple[str, str] | None:
    m = re.search(
        r"\b(struct|class|union|enum(?:\s+class|\s+struct)?)\b\s*"
        r"(?:__attribute__\s*\(\([^)]*\)\)\s*)?(\w+)?\s*(?::[^{]*)?$",
        s.strip(),
    )
    if not m:
        return None
    return m.group(1).split()[0], m.group(2) or ""


def parse_declarations(text: str, d: Declared | None = None) -> Declared:
    """Functions, enumerators, types and macros of preprocessed (-dD) header text."""
    d = d or Declared()
    code_lines = []
    for line in text.splitlines():
        if line.startswith("#"):
            m = _DEFINE.match(line)
            if m and not m.group(2):
                d.macros[m.group(1)] = m.group(3).strip()
            elif m:
                d.macros.setdefault(m.group(1), "")
            code_lines.append("")
        else:
            code_lines.append(line)
    _scan(" ".join(code_lines), d)
    return d


def _scan(t: str, d: Declared) -> None:
    i, start, n = 0, 0, len(t)
    while i < n:
        c = t[i]
        if c in "\"'":
            i = _skip_string(t, i)
            continue
        if c == "(":
            i = _matching(t, i, "(", ")") + 1
            continue
        if c == ";":
            _statement(t[start:i], d)
            start = i = i + 1
            continue
        if c == "}":  # the end of a namespace / extern "C" block
            start = i = i + 1
            continue
        if c == "{":
            head = t[start:i]
            hs = _strip_attributes(head).strip()
            end = _matching(t, i, "{", "}")
            if re.search(r'(\bnamespace\b[\w:\s]*|extern\s*"C"\s*)$', hs):
                start = i = i + 1  # transparent: declarations inside count
                continue
            tag = _tag(re.sub(r"^typedef\s+", "", hs)) if "(" not in hs.split("=")[0] else None
            if tag is not None:
                kind, name = tag
                if name:
                    d.types.add(name)
                if kind == "enum":
                    for part in split_params(t[i + 1 : end]):
                        m = re.match(r"\s*(\w+)", part)
                        if m:
                            d.enumerators.add(m.group(1))
                # `typedef struct {...} name;` / `struct x {...} var;`: the rest up to `;`
                semi = t.find(";", end)
                tail = t[end + 1 : semi] if semi >= 0 else ""
                if hs.startswith("typedef"):
                    for part in tail.split(","):
                        ids = _IDENT.findall(re.sub(r"\[[^\]]*\]", "", part))
                        if ids:
                            d.types.add(ids[-1])
                start = i = (semi + 1) if semi >= 0 else end + 1
                continue
            if "(" in hs and not hs.rstrip().endswith("="):
                _statement(hs, d)  # a function definition: its signature counts
            i = end + 1
            if t[i : i + 1].strip() == "" and t[i:].lstrip().startswith(";"):
                i = t.index(";", i) + 1
            start = i
            continue
        i += 1


# -- the ROCm libraries ---------------------------------------------------------------------------
def rocm_usr(release: str) -> Path:
    env = (
        "PORTER_ROCM_PREFIX"
        if release == "7.2"
        else "PORTER_ROCM64_PREFIX"
        if release == "6.4"
        else ""
    )
    return Path(os.environ.get(env, "") or f"/opt/porter-rocm/{release}") / "usr"


@cache
def library(area: str, release: str = "7.2") -> Declared:
    """What the ROCm `release` headers of the library of `area` declare."""
    folders, headers = LIBRARIES[area]
    usr = rocm_usr(release)
    inc = usr / "include"
    if not (inc / headers[0]).is_file():
        raise FileNotFoundError(f"{headers[0]} not found under {inc} (run scripts/setup-rocm.sh)")
    present = [h for h in headers if (inc / h).is_file()]
    pre = preprocess(
        [inc / h for h in present],
        [inc],
        f"-x hip --rocm-path={usr} -nogpulib --cuda-host-only --offload-arch=gfx942",
        ("-D__HIP_PLATFORM_AMD__", *DEFINES.get(area, ())),
    )
    roots = tuple(str(inc / f) + "/" for f in folders)
    d = parse_declarations(own_text(pre, lambda p: p.startswith(roots)))
    hip_files = {str(inc / f) for f in HIP_ALIAS_FILES}
    hip = parse_declarations(own_text(pre, lambda p: p in hip_files))
    d.aliases = {**hip.aliases, **d.aliases}
    return d


def resolve(name: str, aliases: dict[str, str]) -> str:
    """The type a typedef name stands for, through a chain of aliases (hipComplex ->
    hipFloatComplex -> float2); other names as they are."""
    for _ in range(_ALIAS_DEPTH):
        if name not in aliases:
            break
        name = aliases[name]
    return name


# -- the CUDA side ---------------------------------------------------------------------------------
def read_cuda_arity(path: Path = ARITY_FILE) -> dict[str, set[int]]:
    """name -> parameter counts of the CUDA library function (macro aliases resolved)."""
    return {n: {len(p) for p in lists} for n, lists in read_cuda_params(path).items()}


def read_cuda_params(path: Path = ARITY_FILE) -> dict[str, list[list[str]]]:
    """name -> the parameter lists of the CUDA library function's declarations."""
    out: dict[str, list[list[str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        name, _counts, _header, decls = line.split("\t")
        out[name] = [[] if d == "void" else d.split(" ; ") for d in decls.split(" | ")]
    return out


# -- roc-only call transforms (porter/mappings/model.py: `roc:drop_args:I,J`, `roc:no_workspace:N`)
_ROC_DROP = re.compile(r"^roc:drop_args:(\d+(?:,\d+)*)$")
_ROC_QUERY = re.compile(r"^roc:(?:no_workspace:\d+|workspace_of:\d+:\d+)$")


def roc_dropped(transform: str) -> set[int]:
    """The CUDA arguments (0-based) a row's `roc:drop_args` parts remove from the call."""
    out: set[int] = set()
    for part in transform.split("|"):
        m = _ROC_DROP.match(part)
        if m:
            out |= {int(x) for x in m.group(1).split(",")}
    return out


def roc_query(transform: str) -> bool:
    """Does the row's roc name replace the whole call (`roc:no_workspace` / `roc:workspace_of`: a
    workspace-size query becomes `(LWORK = 0, ROC)` / `(LWORK = n, ROC)`, ROC a status
    enumerator) rather than name a function?"""
    return any(_ROC_QUERY.match(p) for p in transform.split("|"))


# -- parameter types ------------------------------------------------------------------------------
# the integer typedefs of the ROCm libraries (rocblas-types.h, rocsparse-types.h): int32_t / int64_t
SAME_TYPE = {
    "rocblas_int": "int",
    "int32_t": "int",
    "rocsparse_int": "int",
    "rocblas_stride": "int64_t",
    "rocblas_int64": "int64_t",
    "rocblas_float": "float",
    "rocblas_double": "double",
    "long long int": "long long",
    "unsigned long long int": "unsigned long long",
    "unsigned int": "unsigned",
    "long int": "long",
    "int64_t": "long",
    # miopen.h (HIP back end): typedef hipStream_t miopenAcceleratorQueue_t
    "miopenAcceleratorQueue_t": "hipStream_t",
}
INTEGERS = frozenset(
    {
        "int",
        "long",
        "long long",
        "size_t",
        "unsigned",
        "unsigned long long",
        "uint64_t",
        "short",
        "char",
        "unsigned char",
        "uint32_t",
        "signed char",
    }
)
_QUALIFIERS = frozenset(
    {"const", "struct", "enum", "volatile", "__restrict__", "restrict", "__restrict"}
)
_BUILTIN = frozenset(
    {"int", "char", "long", "short", "double", "float", "unsigned", "signed", "void", "bool"}
)


@dataclass(frozen=True)
class ParamType:
    """A parameter's type: base type name, pointer levels, const per level (base first)."""

    base: str
    levels: int
    const: tuple[bool, ...]


def param_type(param: str, rename=lambda name: name) -> ParamType:
    """The type of one declared parameter (its name dropped; `T x[]` is `T* x`); `rename` maps
    each identifier of the base type (a CUDA type to the name porter gives it)."""
    m = re.match(r"^(.*?)\b[A-Za-z_]\w*\s*((?:\[[^\]]*\]\s*)+)$", param)
    if m and m.group(1).strip():  # `T name[]`: a pointer, the name dropped
        param = m.group(1) + "*" * m.group(2).count("[")
    text = re.sub(r"\[[^\]]*\]", "*", param)
    toks = re.findall(r"[A-Za-z_]\w*|\*|&", text)
    ids = [t for t in toks if t not in _QUALIFIERS and t not in ("*", "&")]
    if len(ids) > 1 and toks and toks[-1] == ids[-1] and ids[-1] not in _BUILTIN:
        toks = toks[:-1]  # the parameter's name
    base: list[str] = []
    const = [False]
    levels = 0
    for t in toks:
        if t in ("*", "&"):
            levels += 1
            const.append(False)
        elif t == "const":
            const[-1] = True
        elif t not in _QUALIFIERS and levels == 0:
            base.append(t)
    name = " ".join(rename(b) for b in base)
    name = SAME_TYPE.get(name, name)
    return ParamType(SAME_TYPE.get(name, name), levels, tuple(const))


def passes(arg: ParamType, param: ParamType) -> bool:
    """Does C++ pass an argument declared as `arg` to a parameter declared as `param` (the same
    type, a by-value integer conversion, or const added where a qualification conversion may)?"""
    if arg.levels != param.levels:
        return False
    if arg.levels == 0:
        return arg.base == param.base or (arg.base in INTEGERS and param.base in INTEGERS)
    if arg.base != param.base:
        return False
    top = len(arg.const) - 1  # the parameter's own const does not matter
    for i in range(top):
        if arg.const[i] and not param.const[i]:
            return False
        if (
            param.const[i]
            and not arg.const[i]
            and not all(param.const[j] for j in range(i + 1, top))
        ):
            return False
    return True


MB = 1 << 20


def pinned_arity_wheels(which: list[str]) -> list[dict]:
    """The `arity = true` wheels of scripts/inputs.lock: `ci` (those marked ci = true), `all`,
    or by project name (`nvidia-curand-cu12`)."""
    import api_sources

    entries = api_sources.Lock.load().arity_wheels()
    chosen = [
        e
        for e in entries
        if "all" in which
        or ("ci" in which and e.get("ci"))
        or e["requirement"].partition("==")[0] in which
    ]
    known = {e["requirement"].partition("==")[0] for e in entries} | {"ci", "all"}
    unknown = sorted(set(which) - known)
    if unknown:
        raise ValueError(f"not an arity wheel of scripts/inputs.lock: {', '.join(unknown)}")
    return chosen


def fetch_arity_wheels(which: list[str]) -> list[Path]:
    """Download (pip, no dependencies) the chosen pinned arity wheels into the wheel cache and
    check their sha256; sorted by file name, the order --cuda-arity reads them in."""
    import api_sources

    wheels = [api_sources.fetch_wheel(e) for e in pinned_arity_wheels(which)]
    return sorted(wheels, key=lambda p: p.name)


def build_cuda_arity(wheels: list[Path]) -> str:
    """The arity list's text from NVIDIA's library wheels (their include/ folders)."""
    with tempfile.TemporaryDirectory() as tmp:
        incs: list[Path] = []
        names: list[str] = []
        for w in wheels:
            with zipfile.ZipFile(w) as z:
                for n in z.namelist():
                    if "/include/" in n and n.endswith(".h"):
                        z.extract(n, tmp)
                        inc = Path(tmp) / n.split("/include/")[0] / "include"
                        if inc not in incs:
                            incs.append(inc)
            names.append(w.name.split("-")[0] + "-" + w.name.split("-")[1])
        rows: dict[str, tuple[list[list[str]], str]] = {}
        for h in CUDA_HEADERS:
            found = [i / h for i in incs if (i / h).is_file()]
            if not found:
                continue
            pre = preprocess(
                found,
                [*incs, CUDA_INCLUDE],
                "-x cuda --cuda-host-only -nocudalib -nocudainc",
                ("-D__NV_NO_HOST_COMPILER_CHECK=1",),
            )
            roots = tuple(str(i) + "/" for i in incs)
            d = parse_declarations(own_text(pre, lambda p, r=roots: p.startswith(r)))
            for name, lists in d.params.items():
                have = rows.setdefault(name, ([], h))[0]
                have += [p for p in lists if p not in have]
            for name, body in d.macros.items():  # cublasSgemm -> cublasSgemm_v2
                if re.fullmatch(r"\w+", body) and body in d.params and name not in rows:
                    rows[name] = (list(d.params[body]), h)
    head = [
        "# name<TAB>parameter counts of the CUDA library function<TAB>header<TAB>its "
        "declarations' parameters (` ; ` between parameters, ` | ` between overloads)",
        "# made by `python scripts/roc_api.py --cuda-arity` from " + ", ".join(names),
        "# (object-like macros naming a function, e.g. cublasSgemm -> cublasSgemm_v2, "
        "take that function's declarations)",
    ]
    body = []
    for n, (lists, h) in sorted(rows.items()):
        counts = ",".join(map(str, sorted({len(p) for p in lists})))
        decls = " | ".join(" ; ".join(re.sub(r"\s+", " ", x) for x in p) or "void" for p in lists)
        body.append(f"{n}\t{counts}\t{h}\t{decls}")
    return "\n".join(head + body) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--release", default="7.2")
    ap.add_argument("--cuda-arity", nargs="*", type=Path, metavar="WHEEL")
    ap.add_argument("--fetch", nargs="+", metavar="ci|all|NAME")
    args = ap.parse_args(argv)
    try:
        if args.fetch:
            for w in fetch_arity_wheels(args.fetch):
                print(f"{w} ({w.stat().st_size / MB:.0f} MB, sha256 as pinned)")
            return 0
        if args.cuda_arity is not None:
            wheels = args.cuda_arity or fetch_arity_wheels(["all"])
            ARITY_FILE.write_text(build_cuda_arity(wheels), encoding="utf-8")
            print(f"wrote {ARITY_FILE.relative_to(ROOT)}: review the diff")
        if args.summary or args.cuda_arity is None:
            for area in LIBRARIES:
                d = library(area, args.release)
                print(
                    f"{area}: {len(d.functions)} functions, {len(d.enumerators)} enumerators, "
                    f"{len(d.types)} types, {len(d.macros)} macros"
                )
    except (FileNotFoundError, ValueError, OSError) as exc:
        print(f"roc_api: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
