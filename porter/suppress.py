"""What becomes of a file's findings after the rules, in every language's pipeline: suppression
comments (`porter: ignore[CODE]`) drop them, severity overrides (`--severity`, config) change
them."""

from __future__ import annotations

import re

from .findings import Finding, Severity
from .source import SourceFile

SUPPRESS = re.compile(rb"porter:\s*ignore(?:\[([A-Za-z0-9_,\s-]*)\])?")


def suppress(
    src: SourceFile, findings: list[Finding], selected: tuple[str, ...] | None
) -> list[Finding]:
    """Drop findings suppressed by `porter: ignore[CODE]` (same line or the line above) and
    report suppressions that suppress nothing (PT005, when `selected`, the rule codes chosen,
    is None or holds it)."""
    if b"porter:" not in src.data:
        return findings
    marks: dict[int, tuple[int, set[str] | None]] = {}
    for m in SUPPRESS.finditer(src.data):
        line, col = src.position(m.start())
        text = src.line_text(line)
        # only inside a comment: the marker must follow // or /* on that line
        before = text[: col - 1]
        if "//" not in before and "/*" not in before and "#" not in before:
            continue
        codes = None
        if m.group(1) is not None:
            codes = {c.strip().upper() for c in m.group(1).decode().split(",") if c.strip()}
        marks[line] = (col, codes)
    if not marks:
        return findings
    used: set[int] = set()
    kept = []
    for f in findings:
        hit = None
        for line in (f.line, f.line - 1):
            mk = marks.get(line)
            if mk is None:
                continue
            codes = mk[1]
            if line == f.line - 1 and not _comment_only_line(src.line_text(line)):
                continue
            if codes is None or f.code in codes:
                hit = line
                break
        if hit is None:
            kept.append(f)
        else:
            used.add(hit)
    if selected is None or "PT005" in selected:
        for line, (col, codes) in sorted(marks.items()):
            if line not in used:
                what = ", ".join(sorted(codes)) if codes else "all codes"
                kept.append(
                    Finding(
                        "PT005",
                        Severity.INFO,
                        f"suppression comment ({what}) suppresses nothing",
                        src.path,
                        line,
                        col,
                    )
                )
    return kept


def _comment_only_line(text: str) -> bool:
    t = text.strip()
    return (
        t.startswith("//")
        or t.startswith("/*")
        or t.startswith("*")
        or bool(re.match(r"#\s*porter:", t))
    )  # Python comment


def override(findings: list[Finding], overrides: dict[str, Severity]) -> None:
    """Give each finding whose code `overrides` names the severity it names."""
    if overrides:
        for f in findings:
            if f.code in overrides:
                f.severity = overrides[f.code]
