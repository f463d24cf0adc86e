"""`porter port --port-build-files`: a PyTorch extension build file made right for a tree porter
has ported.

What PyTorch does on ROCm (torch 2.13 `torch/utils/cpp_extension.py`): `CUDAExtension` hipifies
its sources at build time (`hipify_python.hipify(..., extra_files=sources,
hipify_extra_files_only=True)`) and compiles `.cu`/`.cuh`/`.hip` files with `hipcc`
(`unix_wrap_single_compile`: `_join_rocm_home('bin', 'hipcc')`), passing
`extra_compile_args['nvcc']` to it unchanged apart from "CUDA" -> "HIP" inside `-D...` style
flags (`_hipify_compile_flags`), after `COMMON_HIPCC_FLAGS` and before the architecture flags
(`_get_rocm_arch_flags`: `--offload-arch` from `PYTORCH_ROCM_ARCH`, unless the flags already
hold an `--offload-arch`). `load`/`load_inline` hand `extra_cuda_cflags` to hipcc the same way
and link with `extra_ldflags`. `libraries=` are linked as named (PyTorch itself adds
`amdhip64`, `c10_hip` and `torch_hip`).

So on a ported tree the build file needs:

- no renaming: `porter port` keeps every file name (`k.cu` stays `k.cu`), and PyTorch's own
  build-time hipify renames `.cu` to `.hip` in its build folder as it does for any extension;
- the nvcc flags translated: `extra_compile_args={"nvcc": [...]}` and `extra_cuda_cflags=[...]`
  go through the same translation as a Makefile's nvcc flags (porter.rewrite.build
  .translate_flags, porter/data/build.csv): `-arch=sm_80`/`-gencode ...` become
  `--offload-arch=` for porter's targets (PyTorch then adds no architecture of its own),
  `--use_fast_math` becomes `-ffast-math` (reported), ptxas and nvlink options are removed
  (reported), what has no equivalent stays and is reported (PT905);
- the CUDA libraries it links moved to ROCm's: `libraries=["cublas"]` -> `["hipblas"]`,
  `-lcublas` in `extra_link_args`/`extra_ldflags` -> `-lhipblas`.

Edits are byte ranges on the file (the elements of those lists), so everything else is kept
byte for byte. Lists that are not all string literals are left alone.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field

from ..findings import Edit, Finding, Severity
from ..parse.pyext import CUDA_FLAG_KEYWORDS, FlagList, find_extensions
from ..parse.python import PySource, PySyntaxError, parse
from ..source import SourceFile
from .build import UNPORTED, Word, _offset, _Out, table, translate_flags
from .edits import EditSet, apply


@dataclass
class ExtPort:
    new_data: bytes
    findings: list[Finding] = field(default_factory=list)
    converted: int = 0  # list elements changed


def _literal(old_src: str, value: str) -> str:
    """A string literal for *value* in the quote style of *old_src* (an existing element)."""
    quote = "'" if old_src.lstrip("rbuRBU")[:1] == "'" else '"'
    if quote in value or "\\" in value:
        return repr(value)
    return f"{quote}{value}{quote}"


def _translated(
    values: list[str], key: str, archs: tuple[str, ...], rel: str
) -> tuple[list[str], list[tuple[int, Finding]]]:
    """The new argv of one flag list, and the findings of the translation, each with the index
    of the element it is about."""
    if key == "libraries":
        libs = table().get("library", {})
        new, notes = [], []
        for i, v in enumerate(values):
            row = libs.get(v)
            if row is None:
                new.append(v)
            elif row.hip:
                new.append(row.hip)
            else:
                new.append(v)
                notes.append(
                    (
                        i,
                        Finding(
                            UNPORTED,
                            Severity.ERROR,
                            f"library `{v}` has no ROCm library: {row.notes}",
                            rel,
                            1,
                            1,
                        ),
                    )
                )
        return new, notes
    # one synthetic command line, words at known offsets, translated as a Makefile's would be
    text, words, owner = "", [], []
    for i, v in enumerate(values):
        for part in v.split():
            if text:
                text += " "
            start = len(text.encode())
            text += part
            words.append(Word(start, len(text.encode()), part))
            owner.append(i)
    data = text.encode()
    sf = SourceFile(rel, data)
    out = _Out(sf)
    translate_flags(words, data, out, archs, make=False)
    res = out.done()
    new = apply(data, res.edits).decode("utf-8", "replace").split()
    notes = []
    for f in res.findings:
        off = _offset(sf, f.line, f.col)
        idx = next((owner[k] for k in range(len(words) - 1, -1, -1) if words[k].start <= off), 0)
        notes.append((idx, f))
    return new, notes


def _list_edits(
    src: PySource, node: ast.List | ast.Tuple, old: list[str], new: list[str]
) -> list[Edit] | None:
    """Byte edits turning the elements *old* of list *node* into *new*: changed elements are
    replaced in place, removed ones go with the comma before them, added ones follow their
    neighbour. None when the edits would overlap."""
    spans = [src.span(e) for e in node.elts]
    texts = [src.buf[s:e].decode("utf-8") for s, e in spans]
    edits: list[Edit] = []
    n = len(old)
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)

    def lit(k: int, value: str) -> bytes:
        return _literal(texts[min(k, n - 1)], value).encode()

    def delete(i1: int, i2: int) -> None:
        if i1 > 0:
            edits.append(Edit(spans[i1 - 1][1], spans[i2 - 1][1], b""))
        elif i2 < n:
            edits.append(Edit(spans[0][0], spans[i2][0], b""))
        else:  # every element: an empty list
            ls, le = src.span(node)
            edits.append(Edit(ls + 1, le - 1, b""))

    def insert(at: int, values: list[str], ref: int) -> None:
        if not values:
            return
        if at > 0:
            text = b"".join(b", " + lit(ref, v) for v in values)
            edits.append(Edit(spans[at - 1][1], spans[at - 1][1], text))
        else:
            text = b"".join(lit(ref, v) + b", " for v in values)
            edits.append(Edit(spans[0][0], spans[0][0], text))

    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete":
            delete(i1, i2)
        elif tag == "insert":
            insert(i1, new[j1:j2], max(i1 - 1, 0))
        else:  # replace
            k = min(i2 - i1, j2 - j1)
            for d in range(k):
                s, e = spans[i1 + d]
                edits.append(Edit(s, e, lit(i1 + d, new[j1 + d])))
            if i2 - i1 > k:
                delete(i1 + k, i2)
            else:
                insert(i1 + k, new[j1 + k : j2], i1 + k - 1)
    es = EditSet()
    return list(es.edits) if es.add_group(edits) else None


def _literals(node: ast.List | ast.Tuple) -> list[str] | None:
    vals = []
    for e in node.elts:
        if not (isinstance(e, ast.Constant) and isinstance(e.value, str)):
            return None
        vals.append(e.value)
    return vals


def _is_gpu_list(fl: FlagList) -> bool:
    return fl.key == "nvcc" or fl.key in CUDA_FLAG_KEYWORDS


def port_extension_build(
    rel: str, data: bytes, archs: tuple[str, ...] = ("gfx942",), folder=None
) -> ExtPort | None:
    """The build file with its extension calls' flag lists and libraries ported (see the
    module's text); None when the file builds no GPU extension or cannot be parsed."""
    try:
        src = parse(data)
    except PySyntaxError:
        return None
    exts = [e for e in find_extensions(src, folder) if e.gpu]
    if not exts:
        return None
    all_edits: list[Edit] = []
    res = ExtPort(data)
    for ext in exts:
        for fl in ext.flags:
            values = _literals(fl.node)
            if values is None or not values:
                continue
            if not (_is_gpu_list(fl) or fl.key == "libraries" or fl.key.startswith("extra_l")):
                continue
            new, notes = _translated(values, fl.key, archs, rel)
            for idx, f in notes:
                el = fl.node.elts[idx]
                f.line, f.col = el.lineno, el.col_offset + 1
                f.end_line, f.end_col = el.end_lineno or el.lineno, (el.end_col_offset or 0) + 1
                res.findings.append(f)
            if not _is_gpu_list(fl) and fl.key != "libraries":
                # link flags: only the -l names move (the rest is for the host linker)
                new = (
                    [n if (n.startswith("-l") or n == v) else v for n, v in zip(new, values)]
                    if len(new) == len(values)
                    else new
                )
            if new == values:
                continue
            edits = _list_edits(src, fl.node, values, new)
            if edits is None:
                continue
            all_edits += edits
            res.converted += sum(1 for a, b in zip(values, new) if a != b) + abs(
                len(values) - len(new)
            )
    if all_edits:
        es = EditSet()
        kept = [e for e in all_edits if es.add_group([e])]
        res.new_data = src.encode(apply(src.buf, kept))
    res.findings.sort(key=Finding.sort_key)
    return res


def port_result(res, data: bytes, folder, engine_opts) -> None:
    """The engine's hook (`--port-build-files`): port the extension build in the engine's
    FileResult *res* of a Python file (its new_data, status, stats and findings)."""
    targets = getattr(engine_opts.rules, "targets", None) or ()
    archs = tuple(t.arch for t in targets) or ("gfx942",)
    base = res.new_data if res.new_data is not None else data
    ported = port_extension_build(res.rel, base, archs, folder)
    if ported is None:
        return
    from .build import TORCH_EXT, torch_extensions

    codes = engine_opts.rule_codes
    res.findings = [f for f in res.findings if f.code != TORCH_EXT]
    res.findings.extend(
        f
        for f in torch_extensions(res.rel, data, folder, ported=True)
        if codes is None or f.code in codes
    )
    res.findings.extend(f for f in ported.findings if codes is None or f.code in codes)
    res.findings.sort(key=Finding.sort_key)
    if ported.new_data != base:
        res.new_data = ported.new_data
        res.status = "ported"
        res.stats.converted["build"] = res.stats.converted.get("build", 0) + ported.converted
