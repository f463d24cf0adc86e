"""`porter review --base REF`: the findings a pull request brings.

The files changed between the merge base of REF and HEAD and the working tree are checked; each
finding is marked as on a changed line or not (`Finding.in_diff`), and reviewdog's filter modes
decide which are reported:

- `added` (default): findings on added or modified lines;
- `diff_context`: findings on lines inside the diff's hunks (changed lines and the 3 lines of
  context git shows around them);
- `file`: every finding in a changed file;
- `nofilter`: every finding under PATHS, changed or not.

Review also reports the CUDA API references a change adds to a file that is otherwise ported
(PT006): a reviewer wants to know "this pull request adds cudaMalloc to HIP code" even when the
name has a HIP equivalent, which `check` (run on CUDA sources) does not report.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

from .exits import UsageError
from .findings import Finding, Severity

FILTER_MODES = ("added", "diff_context", "file", "nofilter")
INTRODUCED_CODE = "PT006"
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]')
# a file that is (partly) ported already names HIP: its runtime header or a hip* API name
_HIP_HINT = re.compile(rb"hip/hip_runtime|\bhip[A-Z][A-Za-z0-9_]*\b")


def keep(f: Finding, changed, mode: str) -> bool:
    """Whether a finding in `changed` (a vcs.ChangedFile, or None for an unchanged file) is
    reported in filter `mode`."""
    if mode == "nofilter":
        return True
    if changed is None:
        return False
    if mode == "file":
        return True
    lines = changed.added if mode == "added" else changed.context
    last = max(f.line, f.end_line or f.line)
    return any(n in lines for n in range(f.line, last + 1))


def mark(f: Finding, changed) -> None:
    """Set `in_diff`: the finding touches an added or modified line."""
    if changed is None:
        f.in_diff = False
        return
    last = max(f.line, f.end_line or f.line)
    f.in_diff = any(n in changed.added for n in range(f.line, last + 1))


def ported_lines_changed(old: bytes, new: bytes) -> set[int]:
    """1-based lines of `old` that the port rewrites (inserted lines such as an added
    `#include <hip/hip_runtime.h>` change no existing line)."""
    a, b = old.splitlines(), new.splitlines()
    out: set[int] = set()
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            out.update(range(i1 + 1, i2 + 1))
    return out


def introduced_cuda(result, changed, index, version: tuple[int, ...]) -> list[Finding]:
    """PT006 findings: CUDA names with a HIP equivalent on the change's added lines, in a file
    whose other lines are ported already (the port would change only added lines, and the file
    names HIP). A file that is still CUDA is not reported: porting it is the next step, not a
    review comment."""
    old, new = result.old_data, result.new_data
    if changed is None or old is None or new is None or old == new:
        return []
    rewritten = ported_lines_changed(old, new)
    if not rewritten or not rewritten <= changed.added or not _HIP_HINT.search(old):
        return []
    lines = old.splitlines()
    out = []
    for n in sorted(rewritten):
        text = lines[n - 1]
        inc = _INCLUDE.match(text)
        if inc:
            hit = index.lookup_header(inc.group(1).decode("utf-8", "replace"), version)
            if hit is not None and hit[1]:
                out.append(
                    _introduced(result.rel, n, inc.start(1), text, inc.group(1), hit[1], "header")
                )
            continue
        seen = set()
        for m in _IDENT.finditer(text):
            name = m.group().decode("ascii")
            if name in seen:
                continue
            row = index.lookup(name, version)
            if row is not None and row.hip and row.hip != name:
                seen.add(name)
                out.append(
                    _introduced(result.rel, n, m.start(), text, m.group(), row.hip, row.area)
                )
    return out


def _introduced(
    path: str, line: int, start: int, text: bytes, name: bytes, hip: str, area: str
) -> Finding:
    col = len(text[:start].decode("utf-8", "replace")) + 1
    cuda = name.decode("utf-8", "replace")
    what = "CUDA header" if area == "header" else "CUDA API"
    return Finding(
        INTRODUCED_CODE,
        Severity.ERROR,
        f"this change adds the {what} `{cuda}` to a file that is ported to HIP: "
        f"ROCm has no `{cuda}`; use `{hip}`",
        path,
        line,
        col,
        line,
        col + len(cuda),
        name=cuda,
        extra={"hip": hip},
    )


_QUOTED = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
_HEADER_DEPTH = 3  # headers of headers, as far as this


def project_headers(sources: list[Path], tracked: list[str], root: Path) -> list[Path]:
    """The repository's files that the sources' quoted includes name (`"gpukit/common.cuh"`
    is `include/gpukit/common.cuh` when the build passes `-I include`): each include is matched
    against the tracked paths that end with it, and their own includes likewise."""
    by_tail: dict[str, list[str]] = {}
    for rel in tracked:
        by_tail.setdefault(rel.rsplit("/", 1)[-1], []).append(rel)
    found: list[Path] = []
    seen = {p.resolve() for p in sources}
    todo = [(p, 0) for p in sources]
    while todo:
        path, depth = todo.pop()
        if depth >= _HEADER_DEPTH:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        for m in _QUOTED.finditer(data):
            inc = m.group(1).decode("utf-8", "replace").lstrip("./")
            for rel in by_tail.get(inc.rsplit("/", 1)[-1], ()):
                if rel == inc or rel.endswith("/" + inc):
                    h = (root / rel).resolve()
                    if h not in seen and h.is_file():
                        seen.add(h)
                        found.append(h)
                        todo.append((h, depth + 1))
    return found


def _suppressed(data: bytes, f: Finding) -> bool:
    from .suppress import SUPPRESS

    lines = data.splitlines()
    for n in (f.line, f.line - 1):
        if 1 <= n <= len(lines):
            m = SUPPRESS.search(lines[n - 1])
            if m and (m.group(1) is None or f.code in m.group(1).decode().upper()):
                return True
    return False


def run_review(args) -> int:
    from . import vcs
    from .commands import (
        PortPlan,
        Resolved,
        _display,
        build_report,
        check_report_paths,
        collect_jobs,
        exit_status,
        print_report,
        run_pipeline,
        write_reports,
    )
    from .discover import Entry, classify
    from .engine import Job

    if args.filter_mode not in FILTER_MODES:
        raise UsageError(f"--filter-mode must be one of {', '.join(FILTER_MODES)}")
    check_report_paths(args)
    paths = args.paths or ["."]
    for p in paths:
        if not os.path.lexists(p):
            raise UsageError(f"{p}: no such file or directory")
    cwd = Path.cwd()
    root = vcs.repo_root(cwd)
    base = vcs.merge_base(root, args.base)
    specs = []
    for p in paths:
        spec = os.path.relpath(Path(p).resolve(), root)
        if spec == ".." or spec.startswith(".." + os.sep):
            raise UsageError(f"{p}: outside the repository {root}")
        specs.append(spec)
    diff = vcs.diff_since(root, base, specs)
    res = Resolved(args, "review")
    plan = PortPlan("review", "review", [Path(p) for p in paths])
    changed_by_abs = {(root / cf.path).resolve(): cf for cf in diff.files.values()}
    if args.filter_mode == "nofilter":
        collect_jobs(args, res, plan)
    else:
        from .discover import _excluded

        for cf in sorted(diff.files.values(), key=lambda c: c.path):
            path = root / cf.path
            shown = _display(path, "", None)
            if _excluded(cf.path, res.exclude):
                continue
            if cf.binary:
                plan.skipped.append((shown, "binary file"))
                continue
            if not path.is_file() or path.is_symlink():
                continue
            job = Job(
                Entry(path.resolve(), shown, classify(path.name, res.extensions)), keep_data=True
            )
            if job.entry.kind in ("cuda", "build"):
                plan.jobs.append(job)
    # the project headers a changed file includes are read for the names they declare (a
    # `CUDA_CHECK` macro is not an unknown CUDA name), not reviewed
    given = {Path(j.entry.path).resolve() for j in plan.jobs}
    for h in project_headers(
        [Path(j.entry.path) for j in plan.jobs if j.entry.kind == "cuda"],
        vcs.tracked_files(root),
        root,
    ):
        if h not in given:
            given.add(h)
            plan.jobs.append(Job(Entry(h, str(h), "cuda"), context=True))
    # C++ sources are ported in memory (PT006 compares the port with the change); build files
    # are checked as `porter check` checks them: their port would absorb the findings it fixes
    # (a change adding `enable_language(CUDA)` would pass)
    import argparse

    build = [j for j in plan.jobs if j.entry.kind == "build"]
    other = [j for j in plan.jobs if j.entry.kind != "build"]
    done_other = iter(run_pipeline(args, res, other) if other else [])
    as_check = argparse.Namespace(**{**vars(args), "command": "check"})
    done_build = iter(run_pipeline(as_check, res, build) if build else [])
    plan.jobs = [j for j in plan.jobs if not j.context]
    results = [next(done_build) if j.entry.kind == "build" else next(done_other) for j in plan.jobs]
    from .mappings.index import load_index

    index = load_index()
    want_introduced = res.rule_codes is None or INTRODUCED_CODE in res.rule_codes
    overrides = dict(res.severity)
    for job, r in zip(plan.jobs, results):
        changed = changed_by_abs.get(Path(job.entry.path).resolve())
        found = list(r.findings)
        if want_introduced:
            for f in introduced_cuda(r, changed, index, res.rocm_version):
                if not _suppressed(r.old_data or b"", f):
                    if INTRODUCED_CODE in overrides:
                        f.severity = Severity.parse(overrides[INTRODUCED_CODE])
                    found.append(f)
        for f in found:
            mark(f, changed)
        r.findings = sorted(
            (f for f in found if keep(f, changed, args.filter_mode)), key=Finding.sort_key
        )
    report = build_report(args, res, plan, results)
    for r in results:
        r.old_data = r.new_data = None
    report.review = {
        "base": args.base,
        "merge_base": base,
        "filter_mode": args.filter_mode,
        "changed_files": sorted(_display(root / p, "", None) for p in diff.files),
        "deleted_files": sorted(_display(root / p, "", None) for p in diff.deleted),
    }
    import sys

    report.exit_code = exit_status(args, res, report)
    print_report(args, plan, report, sys.stdout)
    write_reports(args, report)
    return report.exit_code
