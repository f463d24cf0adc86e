"""Python sources: the cheap relevance test, PEP 263 decoding and parsing with `ast`.

Reading uses the standard library's `ast` (fast, no import cost); writing uses libcst
(`porter.rewrite.python.write`), which re-prints every byte outside the nodes it replaces.

Positions: `ast` reports columns as UTF-8 byte offsets within a line of the decoded text, so the
analysis works on a UTF-8 buffer (`PySource.buf`) and maps results back to the file's own encoding
only when it writes (`PySource.encode`).
"""

from __future__ import annotations

import ast
import codecs
import io
import tokenize
from dataclasses import dataclass, field

# What makes a .py file worth parsing: it imports Triton, a CUDA C++ carrier (cupy, torch's
# cpp_extension) or numba.cuda. A byte test first (most Python files mention none of these),
# then the import statements decide.
_PREFILTER = (b"triton", b"cpp_extension", b"cupy", b"numba")
RELEVANT_MODULES = ("triton", "torch.utils.cpp_extension", "cupy", "numba.cuda", "cupyx")


def maybe_relevant(data: bytes) -> bool:
    """True when the file might import one of RELEVANT_MODULES (a substring test, no parsing)."""
    return any(k in data for k in _PREFILTER)


class PySyntaxError(Exception):
    """A file Python 3 cannot parse; `line`/`col` are 1-based."""

    def __init__(self, message: str, line: int, col: int):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


@dataclass
class PySource:
    data: bytes  # the file's bytes
    encoding: str  # PEP 263 / BOM encoding (e.g. "utf-8", "latin-1", "utf-8-sig")
    buf: bytes  # the text as UTF-8 (== data for UTF-8 files without a BOM)
    text: str
    tree: ast.Module
    line_starts: list[int] = field(default_factory=list)

    def offset(self, line: int, col: int) -> int:
        """Byte offset in `buf` of an ast (lineno, col_offset) pair."""
        return self.line_starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        end = self.offset(end_line, end_col) if end_col is not None else start
        return start, end

    def encode(self, new_buf: bytes) -> bytes:
        """The file's bytes for a rewritten UTF-8 buffer."""
        if new_buf == self.buf:
            return self.data
        if self.encoding == "utf-8":
            return new_buf
        return new_buf.decode("utf-8").encode(self.encoding)


def detect_encoding(data: bytes) -> str:
    """The encoding PEP 263 (or a UTF-8 BOM) declares; raises PySyntaxError for unknown ones."""
    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise PySyntaxError(str(exc.msg if hasattr(exc, "msg") else exc), 1, 1) from None
    try:
        enc = codecs.lookup(enc).name
    except LookupError:
        raise PySyntaxError(f"unknown encoding {enc!r}", 1, 1) from None
    return enc


def _line_starts(buf: bytes) -> list[int]:
    starts = [0]
    find = buf.find
    i = find(b"\n")
    while i >= 0:
        starts.append(i + 1)
        i = find(b"\n", i + 1)
    return starts


def parse(data: bytes) -> PySource:
    """Decode (PEP 263) and parse. Raises PySyntaxError with a location on any failure."""
    enc = detect_encoding(data)
    try:
        text = data.decode(enc)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise PySyntaxError(f"cannot decode as {enc}: {exc.reason}", line, 1) from None
    text = text.removeprefix("\ufeff")
    buf = text.encode("utf-8")
    try:
        # the decoded text, not `buf`: from bytes, ast would honour a PEP 263 cookie and decode
        # the UTF-8 buffer of a latin-1 file as latin-1, shifting every column after a non-ASCII
        # character (ast columns are UTF-8 byte offsets either way)
        tree = ast.parse(text, type_comments=False)
    except SyntaxError as exc:
        raise PySyntaxError(exc.msg or "invalid syntax", exc.lineno or 1, exc.offset or 1) from None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        raise PySyntaxError(str(exc) or type(exc).__name__, 1, 1) from None
    return PySource(data, enc, buf, text, tree, _line_starts(buf))


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None
