"""GitHub Actions workflow commands (annotations on the pull request): one per finding, then
one `notice` with the run's counts and effort estimate."""

from __future__ import annotations

from .model import RunReport

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
        props = (
            f"file={_esc_prop(f.path)},line={f.line},col={f.col}"
            + (f",endLine={f.end_line}" if f.end_line and f.end_line != f.line else "")
            + f",title={_esc_prop(title)}"
        )
        out.append(f"::{_LEVEL[str(f.severity)]} {props}::{_esc(f.message)} [{f.code}]")
    out.append(f"::notice title=porter summary::{_esc(summary(report))}")
    return "\n".join(out) + "\n"


def summary(report: RunReport) -> str:
    """One line for the run's annotation: the counts and the effort estimate."""
    from .effort import estimate
    from .terminal import plural

    fnd = report.summary()["findings"]
    eff = estimate(report).overall_dict()
    share = (
        "no CUDA API references"
        if eff["converted_share"] is None
        else f"porter converts {eff['converted_share']:.0%} of the CUDA API references"
    )
    return (
        f"{plural(fnd['error'], 'error')}, {plural(fnd['warning'], 'warning')}, "
        f"{fnd['info']} info; effort: {share}; manual work left: {eff['manual']} "
        f"({plural(eff['points'], 'point')})"
    )
