"""A source file in memory: bytes, language, and byte offset -> line/column."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from itertools import accumulate

CUDA_EXTS = frozenset(
    {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hxx", ".inl", ".cuinl", ".hip"}
)


@dataclass
class SourceFile:
    path: str  # display path (relative to the input root when possible)
    data: bytes
    _lines: list[int] | None = field(default=None, repr=False)
    _ascii: bool | None = field(default=None, repr=False)
    # (offset, its 0-based line, the line's start) of the last `position` counted without
    # line_starts, and the bytes counted so far (see _line)
    _at: tuple[int, int, int] = field(default=(0, 0, 0), repr=False, compare=False)
    _counted: int = field(default=0, repr=False, compare=False)

    @property
    def line_starts(self) -> list[int]:
        if self._lines is None:
            # 0, then one past each newline: the running sum of the lines' lengths (split and
            # accumulate run in C; a find per line cost ~0.1 s over CCCL's 450,000 lines)
            lines = self.data.split(b"\n")
            lines.pop()
            self._lines = list(accumulate([len(line) + 1 for line in lines], initial=0))
        return self._lines

    def _line(self, offset: int) -> tuple[int, int]:
        """(0-based line, offset of its start) of a byte offset: the newlines before it,
        counted on from the last offset asked (from the start when it is before that; findings
        come mostly in order), until that has counted twice the file's bytes; then, as for
        offsets before the file, from `line_starts`. The line's start is searched for back to
        the last offset only (a long line holds many findings)."""
        data = self.data
        if self._lines is None and offset >= 0:
            at, line, start = self._at
            if offset < at:
                at, line, start = 0, 0, 0
            self._counted += offset - at
            if self._counted <= 2 * len(data):
                newlines = data.count(b"\n", at, offset)
                if newlines:
                    line += newlines
                    start = data.rfind(b"\n", at, offset) + 1
                self._at = (offset, line, start)
                return line, start
        starts = self.line_starts
        line = bisect.bisect_right(starts, offset) - 1
        return line, starts[line]

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a byte offset; the column counts characters."""
        line, start = self._line(offset)
        if self._ascii is None:
            self._ascii = self.data.isascii()
        if self._ascii:  # one byte, one character: no decoding (a 256 KB line has many columns)
            return line + 1, offset - start + 1
        prefix = self.data[start:offset]
        try:
            col = len(prefix.decode("utf-8")) + 1
        except UnicodeDecodeError:
            col = len(prefix) + 1
        return line + 1, col

    def line_text(self, line: int) -> str:
        starts = self.line_starts
        if not 1 <= line <= len(starts):
            return ""
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.data)
        return self.data[start:end].decode("utf-8", "replace").rstrip("\r")


BINARY_SNIFF = 8192  # a NUL in the first 8 KiB: binary (git looks at its first 8,000 bytes)


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF]


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def display_path(path: str) -> str:
    """A path as text that is valid Unicode. A file name that is not UTF-8 reaches Python with
    lone surrogates (os.fsdecode's surrogateescape), which JSON, SARIF and terminals cannot
    carry; each undecodable byte becomes a readable `\\xNN` escape instead (Python's
    backslashreplace), so `k\\xff.cu` still names the file."""
    return escape_undecodable(path)


def escape_undecodable(text: str) -> str:
    """`text` with each lone surrogate (an undecodable byte of a file name or source line,
    decoded with surrogateescape) written as a `\\xNN` escape: valid Unicode, so it can be
    encoded as UTF-8 (report files, JSON)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no undecodable byte makes (not from a file name)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
