"""A small lexer for CMake's language (cmake-language(7)): command invocations with their
arguments, comments and bracket/quoted/unquoted arguments, as byte ranges.

It only builds a token list; it never edits. Grammar followed (cmake-language(7), "Syntax"):

* ``#[=*[ ... ]=*]`` bracket comments and ``#`` line comments;
* ``identifier ( arguments )`` command invocations, where arguments are bracket arguments
  ``[=*[ ... ]=*]``, quoted arguments ``"..."`` (with ``\\`` escapes), unquoted arguments (any
  characters but whitespace, ``()#"\\``, plus escapes; a quote inside an unquoted argument keeps
  the legacy ``-Da="b c"`` form together) and nested parentheses.

Variable references ``${...}`` and generator expressions ``$<...>`` are left inside their
argument; :func:`words` splits an argument's text further where a rewriter needs it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET_OPEN = re.compile(rb"\[(=*)\[")
_SPACE = b" \t\r\n"
_UNQUOTED_STOP = frozenset(b' \t\r\n()#"')


@dataclass
class Arg:
    """One argument: ``kind`` is ``unquoted``, ``quoted`` or ``bracket``; ``start``/``end`` span
    the whole token (quotes included), ``depth`` is the parenthesis nesting inside the command."""

    kind: str
    start: int
    end: int
    depth: int = 0

    def inner(self) -> tuple[int, int]:
        """The argument's value span (without quotes or brackets)."""
        if self.kind == "quoted":
            return self.start + 1, self.end - 1
        return self.start, self.end


@dataclass
class Command:
    name: str  # as written
    start: int  # the name's first byte
    open: int  # the '(' byte
    close: int  # the ')' byte (or len(data) when unterminated)
    args: list[Arg] = field(default_factory=list)

    @property
    def lname(self) -> str:
        return self.name.lower()

    def values(self, data: bytes) -> list[str]:
        """Each argument's value text (quotes stripped, no unescaping)."""
        out = []
        for a in self.args:
            s, e = a.inner()
            out.append(data[s:e].decode("utf-8", "replace"))
        return out


@dataclass
class CMakeFile:
    data: bytes
    commands: list[Command] = field(default_factory=list)
    comments: list[tuple[int, int]] = field(default_factory=list)


def _bracket_end(data: bytes, i: int) -> int | None:
    """End (exclusive) of the bracket construct opening at *i* (``[==[``), or None."""
    m = _BRACKET_OPEN.match(data, i)
    if m is None:
        return None
    close = b"]" + m.group(1) + b"]"
    j = data.find(close, m.end())
    return len(data) if j < 0 else j + len(close)


def _quoted_end(data: bytes, i: int) -> int:
    """End (exclusive) of the quoted argument opening at *i*."""
    j, n = i + 1, len(data)
    while j < n:
        c = data[j]
        if c == 0x5C:  # backslash escape (also line continuation)
            j += 2
            continue
        if c == 0x22:
            return j + 1
        j += 1
    return n


def _unquoted_end(data: bytes, i: int) -> int:
    j, n = i, len(data)
    while j < n:
        c = data[j]
        if c == 0x5C:
            j += 2
            continue
        if c == 0x22:  # legacy: a quote inside an unquoted argument
            j = _quoted_end(data, j)
            continue
        if c in _UNQUOTED_STOP:
            break
        j += 1
    return min(j, n)


def _comment_end(data: bytes, i: int) -> int:
    end = _bracket_end(data, i + 1)
    if end is not None:
        return end
    j = data.find(b"\n", i)
    return len(data) if j < 0 else j


def lex(data: bytes) -> CMakeFile:
    """Commands and comments of a CMake file. Never raises: text that is not CMake (a stray
    character, an unterminated command) is skipped or closed at the end of the file."""
    out = CMakeFile(data)
    i, n = 0, len(data)
    while i < n:
        c = data[i]
        if c in _SPACE:
            i += 1
            continue
        if c == 0x23:  # '#'
            j = _comment_end(data, i)
            out.comments.append((i, j))
            i = j
            continue
        m = _IDENT.match(data, i)
        if m is None:
            i += 1
            continue
        j = m.end()
        while j < n and data[j] in b" \t":
            j += 1
        if j >= n or data[j] != 0x28:  # '(' must follow the name
            i = m.end()
            continue
        cmd = Command(m.group(0).decode("ascii"), i, j, n)
        depth = 0
        k = j + 1
        while k < n:
            c = data[k]
            if c in _SPACE:
                k += 1
            elif c == 0x23:
                e = _comment_end(data, k)
                out.comments.append((k, e))
                k = e
            elif c == 0x28:
                depth += 1
                k += 1
            elif c == 0x29:
                if depth == 0:
                    cmd.close = k
                    k += 1
                    break
                depth -= 1
                k += 1
            elif c == 0x22:
                e = _quoted_end(data, k)
                cmd.args.append(Arg("quoted", k, e, depth))
                k = e
            elif c == 0x5B and _BRACKET_OPEN.match(data, k):
                e = _bracket_end(data, k) or n
                cmd.args.append(Arg("bracket", k, e, depth))
                k = e
            else:
                e = _unquoted_end(data, k)
                if e == k:  # a lone backslash at the end of the file
                    e = k + 1
                cmd.args.append(Arg("unquoted", k, e, depth))
                k = e
        out.commands.append(cmd)
        i = k
    return out


# -- inside an argument -----------------------------------------------------------------------
_VARREF = re.compile(rb"\$(?:ENV)?\{([A-Za-z0-9_./+-]+)\}")


def variable_refs(data: bytes, start: int, end: int):
    """``${NAME}`` references in ``data[start:end]``: (name start, name end, name)."""
    for m in _VARREF.finditer(data, start, end):
        yield m.start(1), m.end(1), m.group(1).decode("ascii")


_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)?")


def identifiers(data: bytes, start: int, end: int):
    """Identifier-like words (``CMAKE_CUDA_FLAGS``, ``CUDA::cublas``) of one argument, split at
    CMake's list and generator-expression delimiters: (start, end, text)."""
    for m in _WORD.finditer(data, start, end):
        s, e = m.start(), m.end()
        # whole words only: not the tail of a path component or a flag (-lcuda)
        if s > start and (data[s - 1 : s].isalnum() or data[s - 1] in b"-._/+"):
            continue
        if e < end and (data[e : e + 1].isalnum() or data[e] in b"-./+"):
            continue
        yield s, e, m.group(0).decode("ascii")


def split_words(data: bytes, start: int, end: int):
    """Whitespace-separated words of ``data[start:end]`` (a quoted argument's value holds
    several flags): (start, end)."""
    i = start
    while i < end:
        while i < end and data[i] in _SPACE:
            i += 1
        if i >= end:
            break
        j = i
        while j < end and data[j] not in _SPACE:
            j += 1
        yield i, j
        i = j
