"""PT909: a PyTorch extension's sources hold what PyTorch's build-time hipify will not port.

The finding connects a build file (setup.py, a JIT `load(...)` call) to its sources' own
findings, so it is made after every file of the run has been checked (`link_extensions`, called
by porter.commands), not by a per-file check.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..findings import Finding, Severity
from .base import Rule
from .registry import register

CODE = "PT909"
#: the inline-PTX rules (porter/rules/asm.py): inline assembly, PTX special registers,
#: cp.async, mma/ldmatrix
INLINE_PTX = frozenset({"PT201", "PT202", "PT203", "PT204"})
_SHOWN = 3  # findings named in the message


@register
class TorchExtensionSourceUnhandled(Rule):
    """PyTorch extension source that PyTorch's build-time hipify will not make build on AMD.

    ## What it finds
    In a Python build file (`setup.py` with `CUDAExtension`, a JIT
    `torch.utils.cpp_extension.load(...)`), each source the extension compiles that holds
    inline PTX (PT201–PT204) or another error-severity finding, reported at the line that
    names the source. The `sources=` list is resolved statically: string literals,
    `os.path.join(...)`, `glob.glob(...)` of a literal pattern, and names assigned those in
    the same file. The sources must be part of the same run (`porter check .`), since their
    findings are what the build file's finding points to.

    ## Why it breaks on AMD
    On a ROCm build of PyTorch, `CUDAExtension` and `load` run PyTorch's hipify over the
    sources at build time, then compile them with hipcc. That hipify renames CUDA API names;
    it does not touch inline PTX, 32-lane warp assumptions or NVIDIA-only intrinsics, so those
    reach hipcc as they are and the extension does not build (or builds wrong).

    ## Example
    ```python
    CUDAExtension("ops", sources=["ops.cpp", "ops_kernel.cu"])  # ops_kernel.cu: asm("mov.u32 ...")
    ```

    ## Use instead
    Fix the findings porter reports in `ops_kernel.cu` (here: `__lane_id()` instead of
    reading `%laneid` with inline PTX); the build file itself can stay as it is.

    ## References
    - PyTorch 2.13 `torch/utils/cpp_extension.py`: `CUDAExtension` hipifies `sources` with
      `hipify_python.hipify(...)` when `IS_HIP_EXTENSION`; `.cu` files are compiled with hipcc
    - PyTorch `torch/utils/hipify/hipify_python.py` (what the build-time hipify rewrites)
    """

    code = CODE
    name = "torch-extension-source-unhandled"
    severity = Severity.WARNING
    languages = ("python",)
    emitted_by_engine = True


def _key(path: str | os.PathLike[str]) -> str:
    return os.path.normcase(os.path.abspath(path))


def _counts(findings: Sequence[Finding]) -> str:
    by: dict[str, int] = {}
    for f in findings:
        by[f.code] = by.get(f.code, 0) + 1
    return ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in sorted(by.items()))


def _message(
    src_rel: str, call: str, name: str | None, ptx: list[Finding], errors: list[Finding]
) -> str:
    what = []
    if ptx:
        first = ptx[0]
        what.append(f"inline PTX ({_counts(ptx)}; first at {src_rel}:{first.line})")
    if errors:
        shown = ", ".join(f"{f.code} at line {f.line}" for f in errors[:_SHOWN])
        more = f" and {len(errors) - _SHOWN} more" if len(errors) > _SHOWN else ""
        what.append(f"{len(errors)} other error{'' if len(errors) == 1 else 's'} ({shown}{more})")
    ext = f"{call} `{name}`" if name else call
    return (
        f"`{src_rel}`, compiled by {ext}, has {' and '.join(what)}: PyTorch's build-time "
        "hipify does not port these, so the extension will not build on ROCm as it is; fix "
        "them in the source"
    )


def link_extensions(
    jobs: Sequence,
    results: Sequence,
    rule_codes: Iterable[str] | None = None,
    severity: Severity | None = None,
) -> None:
    """Add a PT909 finding to each Python build file whose PyTorch extension compiles a source
    of this run that has inline PTX or error-severity findings. *jobs* and *results* are the
    run's engine jobs and results, in the same order; *severity* overrides the rule's."""
    if rule_codes is not None and CODE not in set(rule_codes):
        return
    from ..parse.pyext import find_extensions
    from ..parse.python import PySyntaxError, parse

    by_path = {_key(j.entry.path): r for j, r in zip(jobs, results)}
    for job, res in zip(jobs, results):
        if res.kind != "python" or res.status == "error":
            continue
        path = Path(job.entry.path)
        original = (
            Path(job.backup)
            if getattr(job, "backup", None) and Path(job.backup).is_file()
            else path
        )  # --in-place: the lines as they were
        try:
            data = original.read_bytes()
        except OSError:
            continue
        if b"cpp_extension" not in data:
            continue
        try:
            src = parse(data)
        except PySyntaxError:
            continue
        added = False
        for ext in find_extensions(src, path.parent):
            if not ext.gpu:
                continue
            for s in ext.sources:
                other = by_path.get(_key(path.parent / s.path))
                if other is None or other is res:
                    continue
                open_ = [f for f in other.findings if not f.extra.get("fixed")]
                ptx = [f for f in open_ if f.code in INLINE_PTX]
                errors = [
                    f for f in open_ if f.code not in INLINE_PTX and f.severity is Severity.ERROR
                ]
                if not ptx and not errors:
                    continue
                res.findings.append(
                    Finding(
                        CODE,
                        severity or TorchExtensionSourceUnhandled.severity,
                        _message(other.rel, ext.call, ext.name, ptx, errors),
                        res.rel,
                        s.line,
                        s.col,
                        name=s.path,
                    )
                )
                added = True
        if added:
            res.findings.sort(key=Finding.sort_key)
