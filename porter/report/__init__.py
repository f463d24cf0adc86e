"""Reports: every format renders the same findings and statistics."""

from __future__ import annotations

from collections.abc import Callable

from .model import (
    RunReport,
    attach_sources,
    clean,
    docs_base_url,
    rule_anchor,
    rule_url,
    unified_diff,
)

__all__ = [
    "FORMATS",
    "RunReport",
    "attach_sources",
    "clean",
    "docs_base_url",
    "render",
    "rule_anchor",
    "rule_url",
    "unified_diff",
]

FORMATS = ("terminal", "markdown", "json", "sarif", "github", "html")


def render(fmt: str, report: RunReport, *, color: bool = False, **terminal) -> str:
    """The report in one format; `terminal` takes the terminal's options (statistics, grouped,
    quiet)."""
    r: Callable[[RunReport], str]
    if fmt == "json":
        from .json import render as r
    elif fmt == "sarif":
        from .sarif import render as r
    elif fmt == "markdown":
        from .markdown import render as r
    elif fmt == "github":
        from .github import render as r
    elif fmt == "html":
        from .html import render as r
    else:
        from .terminal import render as terminal_render

        return terminal_render(report, color=color, **terminal)
    return r(report)
