"""Port build files: CMake (CMakeLists.txt, *.cmake) and Makefiles (Makefile, *.mk).

The rewrite is token based: :mod:`porter.parse.cmake` and :mod:`porter.parse.make` lex the file
in its own syntax, and edits replace whole tokens (a command argument, a word of a recipe).
Comments are never rewritten; quoted strings only where CMake evaluates them as values (variable
references ``${...}`` anywhere, and flags in compile-option contexts such as
``set(CMAKE_CUDA_FLAGS "...")``), or everywhere with ``rewrite_strings``.

Names come from ``porter/data/build.csv`` (every row names its source: the CMake module that
defines the CUDA name and the Debian ROCm package whose CMake config defines the HIP name).
nvcc flags are translated by :func:`translate_flags`; what has no HIP equivalent stays and is
reported at its line (PT905); what is removed or only approximated is reported too (PT906).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..findings import Edit, Finding, Severity
from ..mappings.model import Row as MappingRow
from ..parse import cmake as C
from ..parse import make as M
from ..source import SourceFile
from .edits import EditSet

UNPORTED = "PT905"  # kept as is: no HIP/ROCm equivalent
CHANGED = "PT906"  # removed or translated with a difference in behaviour
DATA = Path(__file__).resolve().parent.parent / "data" / "build.csv"


@dataclass(frozen=True)
class Row:
    kind: str
    cuda: str
    hip: str
    cmake_target: str
    package: str
    status: str
    notes: str
    source: str


@lru_cache(maxsize=1)
def table() -> dict[str, dict[str, Row]]:
    """``{kind: {cuda name: row}}`` from porter/data/build.csv."""
    out: dict[str, dict[str, Row]] = {}
    with open(DATA, newline="", encoding="utf-8") as fh:
        for rec in csv.DictReader(fh):
            row = Row(**{k: (v or "").strip() for k, v in rec.items()})
            out.setdefault(row.kind, {})[row.cuda] = row
    return out


@dataclass(frozen=True)
class BuildOptions:
    archs: tuple[str, ...] = ("gfx942",)
    rewrite_strings: bool = False
    #: ROCm CMake packages the project's build files need (found where CUDA's is found)
    project_packages: frozenset[str] = frozenset()


@dataclass
class BuildPort:
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    #: byte spans of the original that porter rewrote (rules' findings there are resolved)
    handled: list[tuple[int, int]] = field(default_factory=list)
    converted: int = 0
    packages: set[str] = field(default_factory=set)


class _Out:
    def __init__(self, src: SourceFile) -> None:
        self.src = src
        self.set = EditSet()
        self.res = BuildPort()

    def edit(self, start: int, end: int, text: str, count: bool = True) -> bool:
        ok = self.set.add_group([Edit(start, end, text.encode())])
        if ok:
            self.res.handled.append((start, max(end, start + 1)))
            if count:
                self.res.converted += 1
        return ok

    def report(
        self, code: str, severity: Severity, start: int, end: int, message: str, name: str = ""
    ) -> None:
        line, col = self.src.position(start)
        eline, ecol = self.src.position(end)
        self.res.findings.append(
            Finding(code, severity, message, self.src.path, line, col, eline, ecol, name=name)
        )
        self.res.handled.append((start, max(end, start + 1)))

    def done(self) -> BuildPort:
        self.res.edits = list(self.set.edits)
        return self.res


# -- nvcc flags ---------------------------------------------------------------------------------
@dataclass
class Word:
    start: int
    end: int
    text: str


_ARCH_OPT = ("-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code")
_ARCH_VALUE = re.compile(r"(?:sm_|compute_|lto_|arch=|native$|all$|all-major$)")
_EXT_LAMBDA = frozenset(
    {
        "--expt-relaxed-constexpr",
        "-expt-relaxed-constexpr",
        "--expt-extended-lambda",
        "-expt-extended-lambda",
        "--extended-lambda",
        "-extended-lambda",
        "-Wno-deprecated-gpu-targets",
    }
)
_SIMPLE = {
    # nvcc flag -> HIP-Clang flag (HIP-Clang's own option names, clang --help)
    "-lineinfo": "-gline-tables-only",
    "--generate-line-info": "-gline-tables-only",
    "-rdc=true": "-fgpu-rdc",
    "--relocatable-device-code=true": "-fgpu-rdc",
    "-dc": "-fgpu-rdc -c",
    "--device-c": "-fgpu-rdc -c",
    "-fmad=false": "-ffp-contract=off",
    "--fmad=false": "-ffp-contract=off",
    "-fmad=true": "-ffp-contract=fast",
    "--fmad=true": "-ffp-contract=fast",
    "--default-stream=per-thread": "-fgpu-default-stream=per-thread",
    "-default-stream=per-thread": "-fgpu-default-stream=per-thread",
    "--default-stream=legacy": "-fgpu-default-stream=legacy",
    "-default-stream=legacy": "-fgpu-default-stream=legacy",
}
_DROP_DEFAULT = frozenset({"-rdc=false", "--relocatable-device-code=false"})
_NO_EQUIVALENT = {
    "-dlink": "a separate device-link step: HIP links relocatable device code with "
    "`-fgpu-rdc --hip-link` at the final link",
    "--device-link": "a separate device-link step: HIP links relocatable device code with "
    "`-fgpu-rdc --hip-link` at the final link",
    "-ptx": "AMD builds produce no PTX",
    "--ptx": "AMD builds produce no PTX",
    "-cubin": "AMD builds produce no cubin",
    "--cubin": "AMD builds produce no cubin",
    "-fatbin": "AMD code objects come from --offload-arch; use --genco for a code object",
    "--fatbin": "AMD code objects come from --offload-arch; use --genco for a code object",
}
_WITH_VALUE = (
    "-Xptxas",
    "--ptxas-options",
    "-maxrregcount",
    "--maxrregcount",
    "-Xcompiler",
    "--compiler-options",
    "--default-stream",
    "-default-stream",
    "-ccbin",
    "--compiler-bindir",
    "-cudart",
    "--cudart",
    "-Xnvlink",
    "--nvlink-options",
    "-rdc",
    "--relocatable-device-code",
    "--fmad",
    "-fmad",
) + _ARCH_OPT


#: options whose value is itself an option (`-Xptxas -v`, `-Xcompiler -fPIC`)
_DASH_VALUE = frozenset(
    {
        "-Xptxas",
        "--ptxas-options",
        "-Xcompiler",
        "--compiler-options",
        "-Xnvlink",
        "--nvlink-options",
    }
)


def _split_opt(text: str) -> tuple[str, str | None]:
    """``-arch=sm_80`` -> (``-arch``, ``sm_80``); ``-arch`` -> (``-arch``, None)."""
    if text.startswith("-") and "=" in text:
        opt, _, val = text.partition("=")
        if opt in _WITH_VALUE:
            return opt, val
    return text, None


def translate_flags(
    words: list[Word], data: bytes, out: _Out, archs: tuple[str, ...], make: bool
) -> None:
    """Translate one sequence of nvcc command-line words (a Makefile line, a CMake compile-
    option list). The first architecture option of the sequence becomes the --offload-arch list;
    later ones are removed."""
    offload = " ".join(f"--offload-arch={a}" for a in archs)
    arch_done = False
    libs = table().get("library", {})
    i = 0
    while i < len(words):
        w = words[i]
        opt, val = _split_opt(w.text)
        nxt = words[i + 1] if i + 1 < len(words) else None
        span_end, used = w.end, 1
        if val is None and opt in _WITH_VALUE and nxt is not None and nxt.text == "\0":
            out.report(
                UNPORTED,
                Severity.ERROR,
                w.start,
                nxt.end,
                f"`{opt}` with a quoted value: porter leaves shell strings alone; "
                "translate it by hand",
            )
            i += 2
            continue
        if (
            val is None
            and opt in _WITH_VALUE
            and nxt is not None
            and (opt in _DASH_VALUE or not nxt.text.startswith("-"))
        ):
            if opt not in _ARCH_OPT or _ARCH_VALUE.match(nxt.text) or "$" in nxt.text:
                val, span_end, used = nxt.text, nxt.end, 2
        what = data[w.start : span_end].decode("utf-8", "replace")

        def remove(
            message: str | None,
            severity: Severity = Severity.WARNING,
            *,
            i: int = i,
            used: int = used,
            w: Word = w,
            span_end: int = span_end,
        ) -> None:
            _remove(out, words, i, used, data)
            if message:
                out.report(CHANGED, severity, w.start, span_end, message)

        if opt in _ARCH_OPT and val is not None:
            if not arch_done:
                out.edit(w.start, span_end, offload)
                arch_done = True
            else:
                _remove(out, words, i, used, data)
        elif opt in ("-Xptxas", "--ptxas-options") and val is not None:
            if val in ("-v", "--verbose"):
                out.edit(w.start, span_end, "-Rpass-analysis=kernel-resource-usage")
            else:
                hint = (
                    " (use __launch_bounds__ to bound register use)"
                    if "maxrregcount" in val
                    else ""
                )
                remove(
                    f"`{what}` passes options to ptxas, which AMD builds do not run: removed{hint}"
                )
        elif opt in ("-maxrregcount", "--maxrregcount") and val is not None:
            remove(
                f"`{what}` has no HIP-Clang equivalent: removed; bound register use with "
                "`__launch_bounds__` instead"
            )
        elif opt in ("--use_fast_math", "-use_fast_math"):
            out.edit(w.start, w.end, "-ffast-math")
            out.report(
                CHANGED,
                Severity.WARNING,
                w.start,
                w.end,
                f"`{opt}` became `-ffast-math`, which is not the same: it also assumes "
                "no NaN or infinity and applies to host code; check the results",
            )
        elif opt in _SIMPLE:
            out.edit(w.start, w.end, _SIMPLE[opt])
        elif opt in _DROP_DEFAULT:
            _remove(out, words, i, 1, data)
        elif opt in ("-rdc", "--relocatable-device-code", "-fmad", "--fmad") and val is not None:
            key = f"{opt}={val}"
            if key in _SIMPLE:
                out.edit(w.start, span_end, _SIMPLE[key])
            elif key in _DROP_DEFAULT:
                _remove(out, words, i, used, data)
        elif opt in ("--default-stream", "-default-stream") and val is not None:
            new = _SIMPLE.get(f"--default-stream={val}")
            if new:
                out.edit(w.start, span_end, new)
            else:
                out.report(
                    UNPORTED,
                    Severity.ERROR,
                    w.start,
                    span_end,
                    f"`{what}` has no HIP-Clang equivalent",
                )
        elif opt in ("-Xcompiler", "--compiler-options") and val is not None:
            if val[:1] in "'\"" or "$" in val:
                out.report(
                    UNPORTED,
                    Severity.ERROR,
                    w.start,
                    span_end,
                    f"`{what}`: HIP-Clang compiles host code itself; pass these options "
                    "directly (porter leaves quoted or variable values alone)",
                )
            else:
                out.edit(w.start, span_end, " ".join(p for p in val.split(",") if p))
        elif opt in ("-ccbin", "--compiler-bindir") and val is not None:
            remove(
                f"`{what}`: HIP-Clang compiles host code itself (no host compiler to "
                "choose): removed"
            )
        elif opt in ("-cudart", "--cudart") and val is not None:
            remove(
                f"`{what}`: the HIP runtime is a shared library (amdhip64): removed", Severity.INFO
            )
        elif opt in ("-Xnvlink", "--nvlink-options") and val is not None:
            remove(f"`{what}` passes options to nvlink, which AMD builds do not run: removed")
        elif opt in _EXT_LAMBDA:
            _remove(out, words, i, 1, data)
        elif opt in _NO_EQUIVALENT:
            out.report(
                UNPORTED,
                Severity.ERROR,
                w.start,
                w.end,
                f"`{opt}` has no HIP-Clang equivalent: {_NO_EQUIVALENT[opt]}",
            )
        elif opt == "-x" and nxt is not None and nxt.text == "cu":
            out.edit(nxt.start, nxt.end, "hip")
            used = 2
        elif opt.startswith("-l") and opt[2:] in libs:
            row = libs[opt[2:]]
            if row.hip:
                out.edit(w.start, w.end, f"-l{row.hip}")
            else:
                out.report(
                    UNPORTED,
                    Severity.ERROR,
                    w.start,
                    w.end,
                    f"`{opt}` has no ROCm library: {row.notes}",
                )
        elif w.text[:2] in ("-D", "-U"):
            if w.text[2:]:
                port_switch(out, w.start + 2, w.text[2:])
            elif nxt is not None:  # `-D NAME`
                port_switch(out, nxt.start, nxt.text)
                used = 2
        elif make and (opt == "nvcc" or opt.endswith("/nvcc")):
            out.edit(w.start, w.end, "hipcc")
        i += used


@lru_cache(maxsize=1)
def config_macros() -> dict[str, MappingRow]:
    """The switches projects set for the CUDA headers (mapping rows of kind `config_macro`:
    `__CUDA_NO_HALF_OPERATORS__`), by CUDA name."""
    from ..mappings.index import load_index

    out: dict[str, MappingRow] = {}
    for name, rows in load_index().by_name.items():
        config = [r for r in rows if r.kind == "config_macro"]
        if config:
            out[name] = config[-1]  # the newest row (rows are sorted by hip_since)
    return out


def port_switch(out: _Out, start: int, text: str) -> None:
    """A definition `NAME` or `NAME=V` at `start` (of `-DNAME=V`, `-UNAME`, a CMake compile
    definition): a CUDA header switch becomes the switch HIP's headers test, or is reported when
    they test none. torch's cpp_extension passes -D__CUDA_NO_HALF_OPERATORS__ to nvcc and
    -D__HIP_NO_HALF_OPERATORS__=1 to hipcc (torch 2.13, COMMON_NVCC_FLAGS / COMMON_HIP_FLAGS)."""
    name = text.split("=", 1)[0]
    row = config_macros().get(name)
    if row is None:
        return
    end = start + len(name.encode())
    if row.hip:
        out.edit(start, end, row.hip)
    else:
        out.report(
            UNPORTED,
            Severity.ERROR,
            start,
            end,
            f"`{name}` has no HIP counterpart: {row.notes or 'no switch in HIP headers'}",
            name,
        )


def _remove(out: _Out, words: list[Word], i: int, used: int, data: bytes) -> None:
    """Remove words[i:i+used] and the blank before them (or after, for the first word)."""
    start, end = words[i].start, words[i + used - 1].end
    if i > 0 and not data[words[i - 1].end : start].strip():
        start = words[i - 1].end
    elif i + used < len(words) and not data[end : words[i + used].start].strip():
        end = words[i + used].start
    out.edit(start, end, "")


# -- CMake --------------------------------------------------------------------------------------
_LANG_CMDS = frozenset({"project", "enable_language", "check_language"})
_FLAG_CMDS = frozenset(
    {"target_compile_options", "add_compile_options", "target_link_options", "add_link_options"}
)
_DEFINE_CMDS = frozenset(
    {"target_compile_definitions", "add_compile_definitions", "add_definitions"}
)
_FLAG_VARS = re.compile(r"CMAKE_(?:CUDA|HIP)_FLAGS(?:_[A-Z]+)?$|CUDA_NVCC_FLAGS(?:_[A-Z]+)?$")
_SOURCE_CMDS = frozenset(
    {
        "add_library",
        "add_executable",
        "target_sources",
        "set",
        "list",
        "cuda_add_library",
        "cuda_add_executable",
    }
)
_SET_KEYWORDS = frozenset({"CACHE", "PARENT_SCOPE", "FORCE"})
_ARCH_LITERAL = re.compile(
    r"(?:\d+[a-z]?(?:-real|-virtual)?|native|all|all-major)"
    r"(?:;(?:\d+[a-z]?(?:-real|-virtual)?|native|all|all-major))*$"
)
_VERSION = re.compile(r"\d+(?:\.\d+)*$")
_GENEX_LANG = ("COMPILE_LANGUAGE:", "LINK_LANGUAGE:", "COMPILE_LANG_AND_ID:", "LINK_LANG_AND_ID:")


def _cmake_flag_words(data: bytes, arg: C.Arg) -> list[Word]:
    """The flag words of one argument: whitespace words of a quoted value, list items of an
    unquoted one, with a generator-expression wrapper (``$<$<COMPILE_LANGUAGE:CUDA>:-x>``)
    peeled off."""
    s, e = arg.inner()
    spans = list(C.split_words(data, s, e)) if arg.kind == "quoted" else [(s, e)]
    out: list[Word] = []
    for ws, we in spans:
        text = data[ws:we].decode("utf-8", "replace")
        base = ws
        if text.startswith("$<"):
            k = text.rfind(">:")
            if k < 0:
                continue
            base += k + 2
            text = text[k + 2 :]
        stripped = text.rstrip(">")
        for part in stripped.split(";"):
            if part and "$" not in part and "<" not in part:
                out.append(Word(base, base + len(part.encode()), part))
            base += len(part.encode()) + 1
    return out


def port_cmake(src: SourceFile, opts: BuildOptions) -> BuildPort:
    data = src.data
    cf = C.lex(data)
    out = _Out(src)
    tab = table()
    targets, variables = tab.get("target", {}), tab.get("variable", {})
    props, packages = tab.get("property", {}), tab.get("package", {})
    commands, libs = tab.get("command", {}), tab.get("library", {})
    needed: set[str] = set()
    found: set[str] = set()
    hip_sources: set[str] = set()
    for cmd in cf.commands:
        if cmd.lname == "set_source_files_properties":
            vals = cmd.values(data)
            if "LANGUAGE" in vals and vals[vals.index("LANGUAGE") + 1 :][:1] == ["HIP"]:
                hip_sources.update(vals[: vals.index("PROPERTIES")] if "PROPERTIES" in vals else [])
        if cmd.lname == "find_package" and cmd.args:
            found.add(cmd.values(data)[0])
    find_sites: list[tuple[C.Command, str]] = []

    for cmd in cf.commands:
        name = cmd.lname
        vals = cmd.values(data)
        row = commands.get(name)
        if row is not None:
            if row.hip and not (name.startswith("cuda_add_") and "OPTIONS" in vals):
                out.edit(cmd.start, cmd.start + len(cmd.name), row.hip)
            else:
                out.report(
                    UNPORTED,
                    Severity.ERROR,
                    cmd.start,
                    cmd.start + len(cmd.name),
                    f"`{cmd.name}` has no HIP counterpart: {row.notes or 'port by hand'}",
                    cmd.name,
                )
        # languages
        if name in _LANG_CMDS:
            for a in cmd.args[1 if name == "project" else 0 :]:
                if a.kind == "unquoted" and data[a.start : a.end] == b"CUDA":
                    out.edit(a.start, a.end, "HIP")
        for k, v in enumerate(vals[:-1]):
            a = cmd.args[k + 1]
            if v == "LANGUAGE" and vals[k + 1] == "CUDA" and a.kind == "unquoted":
                out.edit(a.start, a.end, "HIP")
        # find_package
        if name == "find_package" and vals and vals[0] in packages:
            prow = packages[vals[0]]
            a0 = cmd.args[0]
            out.edit(a0.start, a0.end, prow.hip)
            found.add(prow.hip)
            if len(cmd.args) > 1 and _VERSION.match(vals[1]):
                _remove_arg(out, data, cmd, 1)
            if prow.hip == "hip":
                find_sites.append((cmd, " ".join(v for v in vals if v in ("REQUIRED", "QUIET"))))
        # architecture values
        _port_arch_values(cmd, vals, out, opts)
        # identifiers: variables, properties, targets, languages in generator expressions
        for a in cmd.args:
            if a.kind == "bracket":
                continue
            if a.kind == "quoted" and not opts.rewrite_strings:
                spans = [(s, e) for s, e, _ in C.variable_refs(data, a.start, a.end)]
            else:
                s, e = a.inner()
                spans = [(s, e)]
            for s, e in spans:
                for ws, we, word in C.identifiers(data, s, e):
                    _port_identifier(out, data, a, ws, we, word, targets, variables, props, needed)
            # plain library names in link commands
            if name in ("target_link_libraries", "link_libraries") and a.kind == "unquoted":
                text = data[a.start : a.end].decode("utf-8", "replace")
                lrow = libs.get(text)
                if lrow is not None and text not in ("cuda",):
                    if lrow.cmake_target:
                        out.edit(a.start, a.end, lrow.cmake_target)
                        needed.add(lrow.package)
                    elif lrow.hip:
                        out.edit(a.start, a.end, lrow.hip)
                    else:
                        out.report(
                            UNPORTED,
                            Severity.ERROR,
                            a.start,
                            a.end,
                            f"library `{text}` has no ROCm counterpart: {lrow.notes}",
                        )
            # ${CUDA_CUBLAS_LIBRARIES}-style library variables become the targets
        # compile flags
        if name in _FLAG_CMDS or (name in ("set", "string", "list") and _flag_var(vals, name)):
            words: list[Word] = []
            first = 1 if name in ("set",) else 2 if name in ("string", "list") else 0
            for a in cmd.args[first:]:
                if a.kind == "bracket":
                    continue
                words += _cmake_flag_words(data, a)
            translate_flags(words, data, out, opts.archs, make=False)
        # compile definitions: `NAME`, `NAME=V` (or `-DNAME`) items; add_definitions takes flags
        if name in _DEFINE_CMDS:
            for a in cmd.args:
                if a.kind == "bracket":
                    continue
                for wd in _cmake_flag_words(data, a):
                    if wd.text[:2] in ("-D", "-U"):
                        port_switch(out, wd.start + 2, wd.text[2:])
                    elif name != "add_definitions":
                        port_switch(out, wd.start, wd.text)
        # .cu sources
        if name in _SOURCE_CMDS:
            cu = [
                a
                for a, v in zip(cmd.args, vals)
                if v.endswith(".cu") and "$<" not in v and v not in hip_sources
            ]
            if cu and (name != "list" or vals[:1] == ["APPEND"]):
                srcs = " ".join(data[a.start : a.end].decode("utf-8", "replace") for a in cu)
                _insert_after(
                    out, data, cmd, f"set_source_files_properties({srcs} PROPERTIES LANGUAGE HIP)"
                )
                hip_sources.update(v for v in vals if v.endswith(".cu"))
        if name == "file" and vals[:1] in (["GLOB"], ["GLOB_RECURSE"]) and len(vals) > 2:
            globs = [
                v
                for v in vals[2:]
                if v not in ("CONFIGURE_DEPENDS", "LIST_DIRECTORIES", "RELATIVE", "FOLLOW_SYMLINKS")
            ]
            ref = "${" + vals[1] + "}"
            if globs and all(g.endswith(".cu") for g in globs) and ref not in hip_sources:
                _insert_after(
                    out, data, cmd, f"set_source_files_properties({ref} PROPERTIES LANGUAGE HIP)"
                )
                hip_sources.add(ref)
            elif any(g.endswith(".cu") for g in globs) and ref not in hip_sources:
                out.report(
                    UNPORTED,
                    Severity.WARNING,
                    cmd.start,
                    cmd.close,
                    f"`file({vals[0]} {vals[1]} ...)` mixes `.cu` with other sources: "
                    "CMake compiles `.cu` as HIP only with "
                    "`set_source_files_properties(... PROPERTIES LANGUAGE HIP)`",
                )
    # packages for the imported targets, next to find_package(hip)
    wanted = (needed | set(opts.project_packages)) - {"hip", ""}
    out.res.packages = needed - {""}
    for cmd, kw in find_sites:
        indent = _indent(data, cmd.start)
        for pkg in sorted(wanted - found):
            _insert_after(out, data, cmd, f"find_package({pkg}{' ' + kw if kw else ''})", indent)
    return out.done()


def _flag_var(vals: list[str], name: str) -> bool:
    if name == "set":
        return bool(vals) and _FLAG_VARS.match(vals[0]) is not None
    return len(vals) > 1 and vals[0] == "APPEND" and _FLAG_VARS.match(vals[1]) is not None


def _port_identifier(
    out: _Out,
    data: bytes,
    arg: C.Arg,
    s: int,
    e: int,
    word: str,
    targets,
    variables,
    props,
    needed: set[str],
) -> None:
    if word.startswith("CUDA::"):
        row = targets.get(word)
        if row is not None and row.hip:
            out.edit(s, e, row.hip)
            needed.add(row.package)
        else:
            note = (
                row.notes
                if row is not None
                else "FindCUDAToolkit target without a ROCm CMake target porter knows"
            )
            out.report(
                UNPORTED, Severity.ERROR, s, e, f"`{word}` has no ROCm CMake target: {note}", word
            )
        return
    if word in targets:  # CUB::CUB ...
        row = targets[word]
        if row.hip:
            out.edit(s, e, row.hip)
            needed.add(row.package)
        return
    if word == "CUDA":
        before = data[max(arg.start, s - 24) : s].decode("utf-8", "replace")
        if before.endswith(_GENEX_LANG):
            if before.endswith(("_AND_ID:",)):
                out.report(
                    UNPORTED,
                    Severity.WARNING,
                    s,
                    e,
                    "`$<..._LANG_AND_ID:CUDA,...>` names the NVIDIA compiler: the HIP "
                    "compiler id is Clang; port the condition by hand",
                )
            else:
                out.edit(s, e, "HIP")
        return
    row = variables.get(word) or props.get(word)
    if row is None:
        return
    if row.hip:
        in_ref = data[s - 2 : s] == b"${" and data[e : e + 1] == b"}"
        if row.cmake_target:  # ${CUDA_CUBLAS_LIBRARIES} -> roc::hipblas
            if in_ref:
                out.edit(s - 2, e + 1, row.cmake_target)
                needed.add(row.package)
            return
        out.edit(s, e, row.hip)
    else:
        out.report(
            UNPORTED,
            Severity.ERROR if row.kind == "property" else Severity.WARNING,
            s,
            e,
            f"`{word}` has no HIP counterpart: {row.notes}",
            word,
        )


def _port_arch_values(cmd: C.Command, vals: list[str], out: _Out, opts: BuildOptions) -> None:
    """`set(CMAKE_CUDA_ARCHITECTURES 80 90)`, `PROPERTIES CUDA_ARCHITECTURES "80;90"`,
    `PROPERTY CUDA_ARCHITECTURES 80`: the values become the --offload-arch targets."""
    name = cmd.lname
    spans: list[tuple[int, int]] = []  # argument index ranges holding values
    if name == "set" and vals[:1] == ["CMAKE_CUDA_ARCHITECTURES"] and len(vals) > 1:
        end = 1
        while end < len(vals) and vals[end] not in _SET_KEYWORDS:
            end += 1
        spans.append((1, end))
    elif name == "set_target_properties" and "PROPERTIES" in vals:
        k = vals.index("PROPERTIES") + 1
        while k + 1 < len(vals):
            if vals[k] == "CUDA_ARCHITECTURES":
                spans.append((k + 1, k + 2))
            k += 2
    elif name == "set_property" and "PROPERTY" in vals:
        k = vals.index("PROPERTY")
        if vals[k + 1 : k + 2] == ["CUDA_ARCHITECTURES"] and len(vals) > k + 2:
            spans.append((k + 2, len(vals)))
    for lo, hi in spans:
        if lo >= hi:
            continue
        args = cmd.args[lo:hi]
        values = vals[lo:hi]
        first, last = args[0], args[-1]
        if all(_ARCH_LITERAL.match(v) for v in values):
            if len(args) == 1 and first.kind == "quoted":
                out.edit(first.start, first.end, '"' + ";".join(opts.archs) + '"')
            else:
                out.edit(first.start, last.end, " ".join(opts.archs))
        else:
            out.report(
                CHANGED,
                Severity.WARNING,
                first.start,
                last.end,
                f"architecture list `{' '.join(values)}` is not a literal list of SM "
                f"numbers: give it AMD targets ({', '.join(opts.archs)})",
            )


def _remove_arg(out: _Out, data: bytes, cmd: C.Command, k: int) -> None:
    a = cmd.args[k]
    prev = cmd.args[k - 1].end if k > 0 else cmd.open + 1
    if not data[prev : a.start].strip():
        out.edit(prev, a.end, "", count=False)
    else:
        out.edit(a.start, a.end, "", count=False)


def _indent(data: bytes, pos: int) -> str:
    ls = data.rfind(b"\n", 0, pos) + 1
    lead = data[ls:pos]
    return lead.decode("utf-8", "replace") if not lead.strip() else ""


def _insert_after(
    out: _Out, data: bytes, cmd: C.Command, text: str, indent: str | None = None
) -> None:
    """Insert a new command on the line after *cmd* (after a trailing comment too)."""
    pos = cmd.close + 1
    nl = data.find(b"\n", pos)
    pos = len(data) if nl < 0 else nl
    eol = "\r\n" if pos > 0 and data[pos - 1 : pos] == b"\r" else "\n"
    if eol == "\r\n":
        pos -= 1
    ind = _indent(data, cmd.start) if indent is None else indent
    out.edit(pos, pos, f"{eol}{ind}{text}", count=False)


# -- Makefiles ---------------------------------------------------------------------------------
def port_make(src: SourceFile, opts: BuildOptions) -> BuildPort:
    data = src.data
    mf = M.lex(data)
    out = _Out(src)
    for line in mf.lines:
        if line.kind == "directive":
            continue
        words: list[Word] = []
        for w in line.words:
            text = data[w.start : w.end].decode("utf-8", "replace")
            if w.quoted and not opts.rewrite_strings:
                # a shell string: left alone, but it still separates flags from their values
                words.append(Word(w.start, w.end, "\0"))
                continue
            if w.ref and not (
                text.endswith("/nvcc")
                or text.startswith(("-arch=", "-code=", "--gpu-architecture=", "-gencode="))
            ):
                words.append(Word(w.start, w.end, "\0" if "$" in text[:1] else text))
                continue
            words.append(Word(w.start, w.end, text))
        translate_flags(words, data, out, opts.archs, make=True)
        for word in words:
            if "/usr/local/cuda" in word.text:
                out.report(
                    UNPORTED,
                    Severity.INFO,
                    word.start,
                    word.end,
                    f"`{word.text}` is a CUDA toolkit path: point it at ROCm (/opt/rocm) "
                    "or drop it (hipcc finds ROCm itself)",
                )
    return out.done()


# -- entry points ------------------------------------------------------------------------------
def is_makefile(rel: str) -> bool:
    name = rel.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.startswith(("makefile", "gnumakefile")) or name.endswith(".mk")


def port_build(rel: str, data: bytes, opts: BuildOptions) -> BuildPort:
    """Edits and findings that port one build file (CMake or Makefile by its name)."""
    src = SourceFile(rel, data)
    if is_makefile(rel):
        return port_make(src, opts)
    return port_cmake(src, opts)


def packages_needed(rel: str, data: bytes) -> set[str]:
    """ROCm CMake packages the imported targets of one CMake file need (empty for Makefiles)."""
    if is_makefile(rel):
        return set()
    return port_cmake(SourceFile(rel, data), BuildOptions()).packages


# -- the engine's hook -------------------------------------------------------------------------
_PROJECT_PACKAGES: dict[str, frozenset[str]] = {}
_BUILD_NAMES = frozenset({"cmakelists.txt"})
_SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".porter-backup", "__pycache__", "build"})
_WALK_LIMIT = 20000


def project_packages(root: Path | None) -> frozenset[str]:
    """ROCm packages needed by every CMake file under *root* (cached per root): the root's
    `find_package(CUDAToolkit)` must find the packages whose targets subfolders link."""
    if root is None:
        return frozenset()
    key = str(root)
    if key not in _PROJECT_PACKAGES:
        import os

        found: set[str] = set()
        seen = 0
        for dirpath, dirnames, filenames in os.walk(root):
            seen += len(filenames)
            if seen > _WALK_LIMIT:  # not a project folder (a single file's parent): stop
                break
            dirnames[:] = sorted(
                d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")
            )
            for f in filenames:
                if f.lower() in _BUILD_NAMES or f.lower().endswith(".cmake"):
                    try:
                        data = (Path(dirpath) / f).read_bytes()
                    except OSError:
                        continue
                    if b"CUDA" in data or b".cu" in data:
                        found |= packages_needed(f, data)
        _PROJECT_PACKAGES[key] = frozenset(found - {""})
    return _PROJECT_PACKAGES[key]


def _offset(src: SourceFile, line: int, col: int) -> int:
    starts = src.line_starts
    if not 1 <= line <= len(starts):
        return len(src.data)
    base = starts[line - 1]
    text = src.data[base : base + 4 * col].decode("utf-8", "replace")
    return base + len(text[: col - 1].encode("utf-8"))


def port_result(
    res, src: SourceFile, engine_opts, findings: list[Finding], root: Path | None = None
) -> list[Finding]:
    """Port one build file into *res*, a FileResult (new_data, status, stats), and
    return its findings: the build rules' findings the port did not resolve, plus the port's own
    (PT905/PT906) at their lines."""
    targets = getattr(engine_opts.rules, "targets", None) or ()
    archs = tuple(t.arch for t in targets) or ("gfx942",)
    port = getattr(engine_opts, "port", None)
    bopts = BuildOptions(
        archs=archs,
        rewrite_strings=bool(getattr(port, "rewrite_strings", False)),
        project_packages=project_packages(root),
    )
    bp = port_build(src.path, src.data, bopts)
    from .edits import apply

    new = apply(src.data, bp.edits) if bp.edits else src.data
    res.new_data = new
    res.status = "ported" if new != src.data else "unchanged"
    if bp.converted:
        res.stats.converted["build"] = res.stats.converted.get("build", 0) + bp.converted
    res.uses_cuda = res.uses_cuda or bool(bp.handled)
    spans = sorted(bp.handled)

    def resolved(f: Finding) -> bool:
        off = _offset(src, f.line, f.col)
        end = _offset(src, f.end_line, f.end_col) if f.end_line else off + 1
        return any(s < max(end, off + 1) and off < e for s, e in spans)

    kept = [f for f in findings if not resolved(f)]
    return kept + bp.findings


# -- PyTorch extensions ------------------------------------------------------------------------
TORCH_EXT = "PT908"


def torch_extensions(
    rel: str, data: bytes, folder: Path | None = None, ported: bool = False
) -> list[Finding]:
    """PyTorch extension builds in a Python file (`CUDAExtension(...)` in setup.py,
    `torch.utils.cpp_extension.load(...)`): one PT908 finding per call that builds GPU code,
    naming its CUDA sources (resolved statically, porter.parse.pyext). On ROCm these build
    through PyTorch's own hipify at build time, so porter leaves the build file as it is unless
    asked (`--port-build-files`); the sources' own findings (inline PTX and the other rules'
    errors) are what that path will not handle (PT909 connects them to the build file)."""
    if b"CUDAExtension" not in data and b"cpp_extension" not in data:
        return []
    from ..parse.pyext import find_extensions
    from ..parse.python import PySyntaxError, parse

    try:
        src = parse(data)
    except PySyntaxError:
        return []
    out: list[Finding] = []
    for ext in find_extensions(src, folder):
        if not ext.gpu and ext.call != "load":
            continue
        cu = [s.path for s in ext.sources if s.path.endswith((".cu", ".cuh"))]
        what = f" ({', '.join(cu)})" if cu else ""
        if ext.unresolved:
            what += f"; sources not resolved statically: {', '.join(ext.unresolved)}"
        flags = sum(1 for fl in ext.flags if fl.key in ("nvcc", "extra_cuda_cflags"))
        if ported:  # --port-build-files
            done = "porter translated its nvcc flags and CUDA libraries (--port-build-files)"
        else:
            done = "porter leaves this file alone" + (
                " (its nvcc flags reach hipcc unchanged: `porter port --port-build-files` "
                "translates them)"
                if flags
                else ""
            )
        out.append(
            Finding(
                TORCH_EXT,
                Severity.INFO,
                f"PyTorch extension `{ext.call}`: on ROCm PyTorch hipifies its CUDA sources{what} "
                f"at "
                f"build time; {done}; the sources' own findings (inline PTX, warp-size and the "
                "other errors) are what that path does not handle",
                rel,
                ext.line,
                ext.col,
                name=ext.call,
            )
        )
    return out
