"""Plain text for pipes and logs; the same text in colour on a terminal.

Modes: one line per finding (default; `path:line:col: severity: message [CODE]`, as compilers
print them), grouped under each file (`--group-by-file`), counts per rule (`--statistics`), or
the summary alone (`-q`). Every mode ends with the same summary.
"""

from __future__ import annotations

from .model import RunReport

_COLORS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_BOLD = "\033[1m"
_RESET = "\033[0m"


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 file`, `2 files`; `info` stays `info`."""
    if word == "info":
        return f"{n} info"
    return f"{n} {word if n == 1 else (many or word + 's')}"


def render(
    report: RunReport,
    *,
    color: bool = False,
    statistics: bool = False,
    grouped: bool = False,
    quiet: bool = False,
) -> str:
    lines: list[str] = []
    if statistics:
        lines += statistics_lines(report)
    elif not quiet:
        lines += grouped_lines(report, color) if grouped else finding_lines(report, color)
    if not quiet:
        for rel, why in report.skipped:
            lines.append(f"{rel}: skipped: {why}")
    if not quiet and report.verify is not None:
        if lines:
            lines.append("")
        lines += verify_lines(report.verify)
    for rel, why in report.errors:
        lines.append(f"{rel}: error: {why}")
    if lines:
        lines.append("")
    lines.extend(summary_lines(report))
    return "\n".join(lines) + "\n"


def _note(f) -> str:
    reason = f.extra.get("severity_reason")
    if reason:
        return f" ({reason})"
    if f.targets:
        return f" (targets: {', '.join(f.targets)})"
    return ""


def _sev(sev: str, color: bool) -> str:
    return f"{_COLORS[sev]}{sev}{_RESET}" if color else sev


def finding_lines(report: RunReport, color: bool) -> list[str]:
    return [
        f"{f.path}:{f.line}:{f.col}: {_sev(str(f.severity), color)}: {f.message} "
        f"[{f.code}]{_note(f)}"
        for f in report.open_findings
    ]


def grouped_lines(report: RunReport, color: bool) -> list[str]:
    out: list[str] = []
    current = None
    for f in report.open_findings:
        if f.path != current:
            if current is not None:
                out.append("")
            out.append(f"{_BOLD}{f.path}{_RESET}:" if color else f"{f.path}:")
            current = f.path
        out.append(
            f"  {f.line}:{f.col}: {_sev(str(f.severity), color)}: {f.message} [{f.code}]{_note(f)}"
        )
    return out


def statistics_lines(report: RunReport) -> list[str]:
    """Counts per rule and severity, most frequent first (Ruff's --statistics); `[*]` marks
    rules whose findings `porter port` fixes, `[-]` those only --unsafe-fixes fixes."""
    from ..findings import Applicability
    from ..rules.registry import get

    counts: dict[tuple[str, str], list] = {}
    for f in report.open_findings:
        counts.setdefault((f.code, str(f.severity)), []).append(f)
    rows = sorted(counts.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    width = len(str(max((len(v) for v in counts.values()), default=1)))
    out = []
    for (code, sev), fs in rows:
        kinds = {f.fix.applicability for f in fs if f.fix is not None}
        mark = (
            "[*]"
            if Applicability.SAFE in kinds
            else "[-]"
            if Applicability.UNSAFE in kinds
            else "   "
        )
        rule = get(code)
        out.append(
            f"{len(fs):>{width}}  {code}  {sev:<7}  {mark} {rule.name if rule else ''}".rstrip()
        )
    return out


def _by_code(findings) -> str:
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    return ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in sorted(counts.items()))


def fix_lines(report: RunReport) -> list[str]:
    """Which fixes were applied, and how many more --unsafe-fixes would apply."""
    from ..findings import Applicability

    fixed = [f for f in report.findings if f.extra.get("fixed")]
    kinds = [(f, f.fix.applicability) for f in report.open_findings if f.fix is not None]
    safe = [f for f, kind in kinds if kind is Applicability.SAFE]
    unsafe = [f for f, kind in kinds if kind is Applicability.UNSAFE]
    out = []
    if report.command == "port":
        if fixed:  # port --check writes nothing: its fixes are the ones it would apply
            done = (
                "fixes the port would apply" if report.would_change is not None else "fixes applied"
            )
            out.append(f"{done}: {len(fixed)} ({_by_code(fixed)})")
        if safe:
            out.append(f"safe fixes not applied: {len(safe)} ({_by_code(safe)})")
        if unsafe:
            out.append(
                f"{plural(len(unsafe), 'more fix', 'more fixes')} with --unsafe-fixes "
                f"({_by_code(unsafe)})"
            )
    elif safe or unsafe:
        text = f"fixable by `porter port`: {len(safe)}" + (f" ({_by_code(safe)})" if safe else "")
        if unsafe:
            text += f"; {len(unsafe)} more with --unsafe-fixes ({_by_code(unsafe)})"
        out.append(text)
    return out


def summary_lines(report: RunReport) -> list[str]:
    from .effort import estimate

    s = report.summary()
    files, fnd, api = s["files"], s["findings"], s["api"]
    porting = report.command == "port"
    dry = report.would_change is not None  # port --check: nothing is written
    out = []
    n = files["files"]
    if porting:
        label = {"ported": "to port", "copied": "to copy"} if dry else {}
        parts = [
            f"{files[k]} {label.get(k, k)}" for k in ("ported", "unchanged", "copied") if files[k]
        ]
        if files["error"]:
            parts.append(f"{files['error']} failed")
        out.append(f"{plural(n, 'file')}: {', '.join(parts) or 'nothing to do'}")
    elif report.command == "review" and report.review is not None:
        changed = len(report.review.get("changed_files", []))
        out.append(
            f"{plural(n, 'file')} reviewed ({plural(changed, 'file')} changed since "
            f"{report.review.get('base')}; findings: {report.review.get('filter_mode')})"
        )
    else:
        out.append(f"{plural(n, 'file')} checked ({files['cuda_files']} with CUDA code)")
    areas = ", ".join(f"{a} {v['converted']}" for a, v in api["by_area"].items() if v["converted"])
    verb = "converted" if porting and not dry else "porter would convert"
    out.append(f"API references {verb}: {api['converted']}" + (f" ({areas})" if areas else ""))
    out.append(f"left unconverted: {api['unconverted']}; unsupported on HIP: {api['unsupported']}")
    if s["launches"] or s["includes_added"]:
        added = "added" if porting and not dry else "to add"
        out.append(
            f"kernel launches: {s['launches']}; hip_runtime.h includes {added}: "
            f"{s['includes_added']}"
        )
    out.extend(fix_lines(report))
    if report.would_change is not None:
        k = len(report.would_change)
        out.append(
            f"{plural(k, 'file')} would be changed by the port"
            if k
            else "the port would change nothing"
        )
    if report.verify is not None:
        out.append(report.verify.summary_line())
    out.append(
        f"findings: {plural(fnd['error'], 'error')}, {plural(fnd['warning'], 'warning')}, "
        f"{fnd['info']} info"
    )
    eff = estimate(report).overall_dict()
    share = (
        "no CUDA API references"
        if eff["converted_share"] is None
        else f"porter converts {eff['converted_share']:.0%} of the CUDA API references"
    )
    out.append(
        f"effort: {share}; manual work left: {eff['manual']} "
        f"({plural(eff['points'], 'point')}; error 3, warning 1)"
    )
    return out


_VERIFY_LABEL = {"compiled": "ok", "failed": "FAILED", "assisted": "FLAG", "skipped": "SKIP"}


def verify_lines(verify) -> list[str]:
    """`port --verify`: one line per translation unit (its status per target when they
    differ), the first error lines of a failure with the ported and the original location."""
    out = [
        f"compile check ({', '.join(verify.targets)}; HIP {verify.hip_version}; {verify.compiler}):"
    ]
    width = max((len(u.path) for u in verify.units), default=0)
    for u in verify.units:
        per = set(u.targets.values())
        detail = ""
        if len(per) > 1:
            detail = "  [" + ", ".join(f"{t}: {st}" for t, st in u.targets.items()) + "]"
        if u.status == "skipped":
            detail += f"  ({u.skipped})"
        elif u.status == "assisted":
            detail += f"  (compiles only with {u.only_with} added)"
        out.append(f"  {_VERIFY_LABEL[u.status]:<6} {u.path:<{width}}{detail}".rstrip())
        if u.status in ("failed", "assisted"):
            errors = u.shown_errors
            if errors:
                out += [f"         {d.where()}: {d.message}" for d in errors]
            else:
                out += [f"         {e}" for e in u.errors]
    return out
