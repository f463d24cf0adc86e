"""Findings: what porter reports, with an optional fix."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(enum.IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (info, warning, error)") from None

    def __str__(self) -> str:
        return self.name.lower()


class Applicability(enum.StrEnum):
    SAFE = "safe"  # applied by `porter port` by default
    UNSAFE = "unsafe"  # applied only with --unsafe-fixes
    DISPLAY = "display"  # a suggestion shown in the report
    NONE = "none"  # only as `Rule.fix`: the rule offers no fix (a Fix never has it)


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace bytes [start, end) of a file with `text` (bytes)."""

    start: int
    end: int
    text: bytes


@dataclass(frozen=True)
class Fix:
    edits: tuple[Edit, ...]
    applicability: Applicability
    description: str = ""


@dataclass
class Finding:
    code: str
    severity: Severity
    message: str
    path: str
    line: int  # 1-based
    col: int  # 1-based, in characters
    end_line: int = 0
    end_col: int = 0
    fix: Fix | None = None
    targets: tuple[str, ...] = ()  # offload archs the finding applies to (empty: all)
    name: str = ""  # symbol, for API findings (unconverted/unsupported)
    extra: dict = field(default_factory=dict)
    in_diff: bool | None = None  # review mode: on a changed line?

    def sort_key(self):
        return (self.path, self.line, self.col, self.code, self.message)

    def render(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.severity}: {self.message} [{self.code}]"
