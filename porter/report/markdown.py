"""Markdown compatibility report."""
from __future__ import annotations

from . import RunReport


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def render(report: RunReport) -> str:
    s = report.summary()
    files, fnd, api = s["files"], s["findings"], s["api"]
    out = ["# porter compatibility report", ""]
    opts = report.options
    if opts:
        out.append("Targets: " + ", ".join(opts.get("offload_arch", [])) +
                   f"; ROCm {opts.get('rocm_version', '')}")
        out.append("")
    out += ["| | count |", "|---|---:|",
            f"| files | {files['files']} |", f"| files with CUDA code | {files['cuda_files']} |"]
    if report.command == "port":
        out.append(f"| files ported | {files['ported']} |")
    out += [f"| API references converted | {api['converted']} |",
            f"| references left unconverted | {api['unconverted']} |",
            f"| references unsupported on HIP | {api['unsupported']} |",
            f"| errors | {fnd['error']} |", f"| warnings | {fnd['warning']} |",
            f"| info | {fnd['info']} |", f"| fixed automatically | {fnd['fixed']} |", ""]
    if api["by_area"]:
        out += ["## API areas", "", "| area | converted | unsupported |", "|---|---:|---:|"]
        for a, v in api["by_area"].items():
            out.append(f"| {a} | {v['converted']} | {v['unsupported']} |")
        out.append("")
    open_f = report.open_findings
    if open_f:
        out += ["## Findings", "", "| location | severity | code | message |", "|---|---|---|---|"]
        for f in open_f:
            out.append(f"| `{_cell(f.path)}:{f.line}:{f.col}` | {f.severity} | {f.code} | {_cell(f.message)} |")
        out.append("")
    if report.skipped or report.errors:
        out += ["## Not ported", ""]
        for p, w in report.skipped + report.errors:
            out.append(f"- `{_cell(p)}`: {_cell(w)}")
        out.append("")
    return "\n".join(out)
