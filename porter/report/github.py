"""GitHub Actions workflow commands (annotations on the pull request)."""
from __future__ import annotations

from . import RunReport

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _esc(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render(report: RunReport) -> str:
    out = []
    for f in report.open_findings:
        props = f"file={_esc(f.path)},line={f.line},col={f.col},title={f.code}"
        out.append(f"::{_LEVEL[str(f.severity)]} {props}::{_esc(f.message)} [{f.code}]")
    return "\n".join(out) + ("\n" if out else "")
