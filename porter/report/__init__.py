"""Reports: every format renders the same findings and statistics."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..findings import Finding, Severity
from ..rewrite.cuda import Stats

FORMATS = ("terminal", "markdown", "json", "sarif", "github", "html")


@dataclass
class RunReport:
    command: str                    # port | check | review
    results: list                   # engine.FileResult
    options: dict = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    would_change: list[str] | None = None   # port --check: the files the port would change

    @property
    def findings(self) -> list[Finding]:
        out = [f for r in self.results for f in r.findings]
        out.sort(key=Finding.sort_key)
        return out

    @property
    def open_findings(self) -> list[Finding]:
        return [f for f in self.findings if not f.extra.get("fixed")]

    def stats(self) -> Stats:
        total = Stats()
        for r in self.results:
            total.add(r.stats)
        return total

    def counts(self) -> dict[str, int]:
        c = {"files": len(self.results), "ported": 0, "unchanged": 0, "copied": 0, "error": 0,
             "cuda_files": 0}
        for r in self.results:
            c[r.status] = c.get(r.status, 0) + 1
            if r.uses_cuda:
                c["cuda_files"] += 1
        return c

    def severity_counts(self) -> dict[str, int]:
        c = {"error": 0, "warning": 0, "info": 0, "fixed": 0}
        for f in self.findings:
            if f.extra.get("fixed"):
                c["fixed"] += 1
            else:
                c[str(f.severity)] += 1
        return c

    def summary(self) -> dict:
        st = self.stats()
        return {"files": self.counts(), "findings": self.severity_counts(),
                "api": {"converted": sum(st.converted.values()),
                        "unsupported": sum(st.unsupported.values()),
                        "unconverted": st.unconverted,
                        "by_area": {a: {"converted": st.converted.get(a, 0),
                                        "unsupported": st.unsupported.get(a, 0)}
                                    for a in sorted(set(st.converted) | set(st.unsupported))}},
                "launches": st.launches, "includes_added": st.includes_added}


def render(fmt: str, report: RunReport, *, color: bool = False) -> str:
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
        from .terminal import render as r
        return r(report, color=color)
    return r(report)
