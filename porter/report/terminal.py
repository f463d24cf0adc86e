"""Plain text for pipes and logs; the same text in colour on a terminal."""
from __future__ import annotations

from . import RunReport

_COLORS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_RESET = "\033[0m"


def render(report: RunReport, *, color: bool = False) -> str:
    lines = []
    for f in report.findings:
        if f.extra.get("fixed"):
            continue
        text = f.render()
        if f.targets:
            text += f" (targets: {', '.join(f.targets)})"
        if color:
            sev = str(f.severity)
            text = text.replace(f": {sev}: ", f": {_COLORS[sev]}{sev}{_RESET}: ", 1)
        lines.append(text)
    for rel, why in report.skipped:
        lines.append(f"{rel}: skipped: {why}")
    for rel, why in report.errors:
        lines.append(f"{rel}: error: {why}")
    lines.append("")
    lines.extend(summary_lines(report))
    return "\n".join(lines).lstrip("\n") + "\n"


def summary_lines(report: RunReport) -> list[str]:
    s = report.summary()
    files, fnd, api = s["files"], s["findings"], s["api"]
    out = []
    if report.command == "port":
        out.append(f"{files['files']} file{'' if files['files'] == 1 else 's'}: {files['ported']} ported, {files['unchanged']} unchanged"
                   f", {files['copied']} copied" + (f", {files['error']} failed" if files["error"] else ""))
    else:
        out.append(f"{files['files']} files checked ({files['cuda_files']} with CUDA code)")
    if api["by_area"]:
        areas = ", ".join(f"{a} {v['converted']}" for a, v in api["by_area"].items() if v["converted"])
        verb = "converted" if report.command == "port" else "that port mechanically"
        out.append(f"API references {verb}: {api['converted']}" + (f" ({areas})" if areas else ""))
    out.append(f"left unconverted: {api['unconverted']}; unsupported on HIP: {api['unsupported']}")
    if s["launches"] or s["includes_added"]:
        out.append(f"kernel launches: {s['launches']}; hip_runtime.h includes added: {s['includes_added']}")
    if report.would_change is not None:
        n = len(report.would_change)
        out.append(f"{n} file{'' if n == 1 else 's'} would be changed by the port" if n
                   else "the port would change nothing")
    out.append(f"findings: {fnd['error']} errors, {fnd['warning']} warnings, {fnd['info']} info"
               + (f"; {fnd['fixed']} fixed automatically" if fnd["fixed"] else ""))
    return out
