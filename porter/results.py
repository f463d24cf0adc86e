"""What the pipeline makes of one file (FileResult): the engine's and the Python pipeline's
(porter.rewrite.python) result, read by the commands and the reports."""

from __future__ import annotations

from dataclasses import dataclass, field

from .findings import Finding
from .rewrite.cuda import Stats


@dataclass
class FileResult:
    rel: str
    kind: str
    status: str = "unchanged"  # ported | unchanged | copied | skipped | error
    note: str = ""
    findings: list[Finding] = field(default_factory=list)
    stats: Stats = field(default_factory=Stats)
    declared: set[str] = field(default_factory=set)
    new_data: bytes | None = None  # when the caller needs the text (stdout, diff)
    old_data: bytes | None = None
    uses_cuda: bool = False
    fixes_applied: int = 0
    errors: list[str] = field(default_factory=list)  # internal errors (exit code 2)
    edits: list = field(default_factory=list)  # the edits new_data applies (Edit)
