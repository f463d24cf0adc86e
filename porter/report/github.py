"""GitHub Actions workflow commands (annotations on the pull request)."""
from __future__ import annotations

from . import RunReport

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _esc(s: str) -> str:
    """Escape a message (GitHub's workflow-command format: %, CR, LF)."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _esc_prop(s: str) -> str:
    """Escape a property value: also `:` and `,`, which separate properties."""
    return _esc(s).replace(":", "%3A").replace(",", "%2C")


def render(report: RunReport) -> str:
    from ..rules.registry import get
    out = []
    for f in report.open_findings:
        rule = get(f.code)
        title = f"{f.code} {rule.name}" if rule is not None else f.code
        props = (f"file={_esc_prop(f.path)},line={f.line},col={f.col}"
                 + (f",endLine={f.end_line}" if f.end_line and f.end_line != f.line else "")
                 + f",title={_esc_prop(title)}")
        out.append(f"::{_LEVEL[str(f.severity)]} {props}::{_esc(f.message)} [{f.code}]")
    return "\n".join(out) + ("\n" if out else "")
