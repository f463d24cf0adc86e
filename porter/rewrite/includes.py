"""#include directives: which are CUDA headers, where a missing HIP runtime include goes, and
which replaced lines became duplicates."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import NamedTuple

from ..findings import Edit
from .lex import Directives, directives, line_end

# Include paths that belong to the CUDA toolkit or its libraries (CUTLASS & co. are reported by
# their own rules, not as unconverted CUDA headers).
CUDA_HEADER = re.compile(
    r"(cuda|cu(?:blas|fft|rand|sparse|solver|dnn|tensor|pti|file|Complex)|nvtx|nvToolsExt|nvrtc"
    r"|nvml|nvperf|cub/|thrust/system/cuda|cooperative_groups|sm_\d\d_(?:intrinsics|atomic)"
    r"|device_(?:functions|launch_parameters|atomic_functions)|crt/)"
)
INCLUDE_LINE = re.compile(
    rb"(?:^|(?<=\r))(?:\xef\xbb\xbf)?[ \t]*#[ \t]*include[ \t]*"
    rb"([<\"][^>\"\r\n]*[>\"])",
    re.MULTILINE,
)
_INCLUDE_TEXT = re.compile(rb"#[ \t]*include")
CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b", re.MULTILINE)
HIP_RUNTIME = "hip/hip_runtime.h"
# what a file that uses the runtime API (but no device code) may include instead: the runtime
# headers, and the library headers that include <hip/hip_runtime_api.h> themselves (read in
# ROCm 7.2's include/ folder)
RUNTIME_API_HEADERS = frozenset(
    {
        HIP_RUNTIME,
        "hip/hip_runtime_api.h",
        "hipblas/hipblas.h",
        "hipblaslt/hipblaslt.h",
        "hipfft/hipfft.h",
        "hiprand/hiprand.h",
        "hiprand/hiprand_kernel.h",
        "hipsparse/hipsparse.h",
        "miopen/miopen.h",
        "rccl/rccl.h",
    }
)
# HIP headers that use hip_runtime.h's declarations without including it (ROCm 7.2's
# hip/hip_gl_interop.h includes only hip/hip_common.h)
NEEDS_RUNTIME_FIRST = frozenset({"hip/hip_gl_interop.h"})
# files nvcc compiles as CUDA (or that only such files include): nvcc puts
# `#include "cuda_runtime.h"` before their first line (nvcc documentation, "CUDA source files")
CUDA_SOURCE_SUFFIXES = (".cu", ".cuh")
# mapping areas whose CUDA names that implicit include declares (runtime API, device functions)
IMPLICIT_AREAS = frozenset({"runtime", "device"})
HIP_RUNTIME_INCLUDE = b"#include <hip/hip_runtime.h>\n"


# With --roc, rocBLAS and rocSOLVER are included with ROCM_MATHLIBS_API_USE_HIP_COMPLEX defined:
# then rocblas-complex-types.h (ROCm 6.4 and 7.2, included by rocblas.h and so by rocsolver.h)
# declares `typedef hipFloatComplex rocblas_float_complex;` and `typedef hipDoubleComplex
# rocblas_double_complex;` instead of its own classes, so the hipComplex / hipDoubleComplex
# porter gives cuComplex / cuDoubleComplex pass to the complex functions as they are. The macro
# is defined with every such include, whether or not the file names a complex type: a type a
# project header declares with rocBLAS's complex types is then the same in every translation unit
# of the project (the macro changes nothing else in these headers: rocblas-complex-types.h is
# the only file of rocblas/ and rocsolver/ that tests it).
HIP_COMPLEX_MACRO = "ROCM_MATHLIBS_API_USE_HIP_COMPLEX"
HIP_COMPLEX_HEADERS = ("rocblas/", "rocsolver/")
_HIP_COMPLEX_DEFINED = re.compile(rb"#[ \t]*define[ \t]+" + HIP_COMPLEX_MACRO.encode() + rb"\b")


def hip_complex_define(
    data: bytes, path_start: int, new: str, earlier: Mapping[str, int]
) -> Edit | None:
    """The `#ifndef`-guarded `#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX` on the lines before the
    include whose path starts at `path_start`, when that include becomes a rocBLAS / rocSOLVER
    header (`new`) that no earlier line surely includes (`earlier`: header -> end of the line
    that includes it after the port; an include behind a conditional directive between the two
    may not be seen, so this one gets its own) and the file does not define the macro already (a
    second port adds nothing)."""
    if not new.startswith(HIP_COMPLEX_HEADERS) or _HIP_COMPLEX_DEFINED.search(data):
        return None
    lf = data.rfind(b"\n", 0, path_start)
    start = max(lf, data.rfind(b"\r", lf + 1, path_start)) + 1
    if any(
        h.startswith(HIP_COMPLEX_HEADERS) and not CONDITIONAL.search(data, min(end, start), start)
        for h, end in earlier.items()
    ):
        return None
    if start == 0 and data.startswith(_BOM):
        start = len(_BOM)
    if not re.fullmatch(rb"[ \t]*#[ \t]*include[ \t]*", data[start:path_start]):
        return None  # more than the directive on its line: no place for a line of its own
    nl = newline_of(data)
    macro = HIP_COMPLEX_MACRO.encode()
    text = nl.join((b"#ifndef " + macro, b"#define " + macro, b"#endif")) + nl
    return Edit(start, start, text)


def quoted_like(raw: bytes, new: str) -> bytes:
    """The replacement path in the delimiters the user wrote (`"cuda_runtime.h"` becomes
    `"hip/hip_runtime.h"`, `<cuda.h>` becomes `<hip/hip_runtime.h>`): as hipify-clang does, so a
    diff changes only the path. Includes porter adds use angle brackets."""
    if raw[:1] == b'"':
        return b'"' + new.encode() + b'"'
    return b"<" + new.encode() + b">"


class IncludeDirective(NamedTuple):
    """An `#include` directive of a file (the rewriter's and the rules' `ctx.includes`)."""

    start: int  # offset of the `#`
    end: int  # end of the path (after `>` or the closing quote)
    path: str  # the path without `<>`/quotes
    path_start: int  # offset of the path (`<` or the opening quote)

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end

    @property
    def path_span(self) -> tuple[int, int]:
        return self.path_start, self.end


def include_directives(
    data: bytes, keep: Callable[[str], bool] | None = None
) -> list[IncludeDirective]:
    """Each `#include <path>` / `#include "path"` line of the file that is a directive, in order.
    Decided from the bytes as the preprocessor decides it (`lex.Directives`: splices, comments,
    string and raw-string literals, digit separators, header names), with the arguments the
    rewriter's `_includes` gives it: the rules (`ctx.includes`) and the rewriter see the same
    directives, whether or not the file was parsed. A computed include (`#include MACRO`) names
    no path and is not listed. `keep`: only the paths it accepts are decided (the rewriter's
    relevant ones: a file without one is not lexed)."""
    out: list[IncludeDirective] = []
    lexed: Directives | None = None
    for m in include_lines(data):
        path = m.group(1)[1:-1].decode("utf-8", "replace").strip()
        if keep is not None and not keep(path):
            continue
        if lexed is None:
            lexed = directives(data)
        hash_pos = data.index(b"#", m.start())
        if not lexed.starts_directive(hash_pos, m.start()):
            continue  # in a comment, a literal or a macro body (a continued line)
        out.append(IncludeDirective(hash_pos, m.end(1), path, m.start(1)))
    return out


def duplicate_include_line(data: bytes, path_node, earlier_end: int | None) -> Edit | None:
    """An edit deleting this #include line when an earlier line already includes the same
    HIP header (`cuda.h` and `cuda_runtime.h` both become hip/hip_runtime.h), provided no
    conditional directive lies between them and the line holds nothing else."""
    if earlier_end is None:
        return None
    start = data.rfind(b"\n", 0, path_node.start_byte) + 1
    end = line_end(data, path_node.end_byte)
    if not re.fullmatch(rb"[ \t]*#[ \t]*include[ \t]*", data[start : path_node.start_byte]):
        return None
    if data[path_node.end_byte : end].strip():
        return None
    if earlier_end > start or CONDITIONAL.search(data, earlier_end, start):
        return None
    return Edit(start, end, b"")


_BOM = b"\xef\xbb\xbf"


def newline_of(data: bytes) -> bytes:
    """The file's line ending: CRLF, a lone CR (classic Mac) or LF."""
    if b"\r" not in data:  # most files: one search instead of two
        return b"\n"
    if b"\r\n" in data:
        return b"\r\n"
    if b"\r" in data and b"\n" not in data:
        return b"\r"
    return b"\n"


def after_line(data: bytes, pos: int) -> int:
    """The start of the line after the one holding `pos` (pos itself when a line starts
    there: tree-sitter ends a directive after its newline)."""
    if pos > 0 and data[pos - 1 : pos] in (b"\n", b"\r") and data[pos : pos + 1] != b"\n":
        return pos
    nl = newline_of(data)[-1:]
    j = data.find(nl, pos)
    return len(data) if j < 0 else j + 1


def include_edit_text(data: bytes, pos: int, line: bytes = HIP_RUNTIME_INCLUDE) -> bytes:
    """`line` (ending in LF) in the file's line ending, on a line of its own at `pos`."""
    nl = newline_of(data)
    text = line.rstrip(b"\n") + nl
    at_top = pos == 0 or (pos == len(_BOM) and data.startswith(_BOM))
    if not at_top and data[pos - 1 : pos] not in (b"\n", b"\r"):
        text = nl + text  # after a last line with no newline
    return text


def include_position(data: bytes, root) -> int:
    """Where to add `#include <hip/hip_runtime.h>`: before the first top-level include (or the
    first include inside the header guard), else after the guard / `#pragma once`, else after
    the leading comments (when nothing else shares their last line), else at the top."""
    top = len(_BOM) if data.startswith(_BOM) else 0
    after = top
    children = root.children
    i = 0
    while i < len(children) and children[i].type == "comment":
        end = children[i].end_byte
        nxt = after_line(data, end)
        if data[end:nxt].strip() or (i + 1 < len(children) and children[i + 1].start_byte < nxt):
            # code (or a stray `*/`, or another comment) shares the comment's last line
            return after if i else top
        after = nxt
        i += 1
    while i < len(children):
        c = children[i]
        if c.type == "preproc_include":
            return c.start_byte
        if c.type == "preproc_call" and b"once" in data[c.start_byte : c.end_byte]:
            after = after_line(data, c.end_byte)
            i += 1
            continue
        if (
            c.type == "preproc_ifdef"
            and i == len(children) - 1
            or (c.type == "preproc_ifdef" and all(x.type == "comment" for x in children[i + 1 :]))
        ):
            inner = c.named_children
            for j, g in enumerate(inner):
                if g.type == "preproc_def":
                    pos = after_line(data, g.end_byte)
                    for h in inner[j + 1 :]:
                        if h.type == "preproc_include":
                            return h.start_byte
                        if h.type != "comment":
                            break
                    return pos
            return after
        if c.type == "comment":
            i += 1
            continue
        break
    return after


def include_lines(data: bytes) -> list[re.Match]:
    """The matches of ``INCLUDE_LINE.finditer(data)``, found from each `#include` text: a
    line-start pattern is tried at every byte of the file, which cost as much as a third of
    porting time; the directives themselves are few."""
    if data is _last_lines[0]:
        return _last_lines[1]
    out = []
    last = -1
    match, rfind = INCLUDE_LINE.match, data.rfind
    for hit in _INCLUDE_TEXT.finditer(data):
        at = hit.start()
        if at and data[at - 1] != 0x0A:
            # the line starts after its last \n or \r: a \r is looked for after the \n only
            # (the same answer as searching the whole file before it for one)
            nl = rfind(b"\n", 0, at)
            line = max(nl, rfind(b"\r", nl + 1, at)) + 1
            if line <= last:
                continue  # a second `#include` text on a line that was tried already
        else:
            line = at  # the `#` starts its line (most directives): a line not tried yet
        m = match(data, line)
        if m is not None and m.end() > at:
            out.append(m)
            last = line
    _last_lines[:] = (data, out)
    return out


# the last file's include_lines (the file's bytes, its matches): the rewriter, the rules and the
# completeness check ask about the same bytes object of an unchanged file, one after another
_last_lines: list = [None, []]
