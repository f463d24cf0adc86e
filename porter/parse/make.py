"""A small lexer for Makefiles (GNU make syntax): logical lines, comments, and the words of
variable assignments, rules and recipes, as byte ranges.

It only builds a token list; it never edits. Followed from the GNU make manual:

* a backslash-newline joins physical lines into one logical line ("Splitting Long Lines");
* a line starting with a tab is a recipe line, passed to the shell ("Recipe Syntax"): there,
  ``#`` starts a comment only as the shell sees it (at the start of a word), and quotes group
  words;
* elsewhere ``#`` (not escaped as ``\\#``) starts a comment ("Makefile Contents");
* ``VAR = v``, ``:=``, ``::=``, ``?=``, ``+=``, ``!=`` (optionally after ``override``/``export``)
  are assignments; the words are those of the value ("Setting Variables");
* ``$(...)`` and ``${...}`` references (function calls included) are never split: their words are
  make's to expand, so a rewriter leaves them alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ASSIGN = re.compile(
    rb"[ \t]*(?:(?:override|export|private)[ \t]+)*([^\s:=#?+!$]+|\$[({][^)}]*[)}])[ \t]*"
    rb"(=|:=|::=|:::=|\?=|\+=|!=)"
)
_DIRECTIVES = frozenset(
    {
        b"ifeq",
        b"ifneq",
        b"ifdef",
        b"ifndef",
        b"else",
        b"endif",
        b"include",
        b"-include",
        b"sinclude",
        b"define",
        b"endef",
        b"vpath",
        b"unexport",
        b"undefine",
    }
)


@dataclass
class Word:
    start: int
    end: int
    quoted: bool = False  # contains shell quotes (a string: not rewritten)
    ref: bool = False  # contains a $(...) / ${...} reference


@dataclass
class Line:
    start: int  # first byte of the logical line
    end: int  # end of the logical line (before its newline)
    kind: str  # recipe | assign | rule | directive | blank
    words: list[Word] = field(default_factory=list)
    var: str = ""  # assignments: the variable's name
    op: str = ""


@dataclass
class MakeFile:
    data: bytes
    lines: list[Line] = field(default_factory=list)
    comments: list[tuple[int, int]] = field(default_factory=list)


def _logical_lines(data: bytes):
    i, n = 0, len(data)
    while i < n:
        j = i
        while True:
            k = data.find(b"\n", j)
            if k < 0:
                k = n
                break
            # an odd number of backslashes before the newline continues the line
            b = k
            while b > i and data[b - 1] == 0x5C:
                b -= 1
            if (k - b) % 2 == 1:
                j = k + 1
                continue
            break
        end = k
        if end > i and data[end - 1] == 0x0D:
            end -= 1
        yield i, end
        i = k + 1


def _ref_end(data: bytes, i: int, end: int) -> int:
    """End (exclusive) of the reference opening at data[i] == '$' followed by ( or {."""
    open_c = data[i + 1]
    close_c = 0x29 if open_c == 0x28 else 0x7D
    depth, j = 0, i + 1
    while j < end:
        c = data[j]
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return end


def _words(data: bytes, start: int, end: int, shell: bool, comments: list) -> list[Word]:
    out: list[Word] = []
    i = start
    while i < end:
        c = data[i]
        if c in b" \t\r\n" or (c == 0x5C and i + 1 < end and data[i + 1] in b"\r\n"):
            i += 1
            continue
        if c == 0x23 and (shell or i == start or data[i - 1] != 0x5C):
            comments.append((i, end))
            break
        w = Word(i, i)
        j = i
        while j < end:
            c = data[j]
            if c in b" \t\r\n":
                break
            if c == 0x5C and j + 1 < end and data[j + 1] in b"\r\n":
                break
            if c == 0x24 and j + 1 < end and data[j + 1] in b"({":
                j = _ref_end(data, j, end)
                w.ref = True
                continue
            if c in b"'\"":
                k = data.find(bytes([c]), j + 1, end)
                j = end if k < 0 else k + 1
                w.quoted = True
                continue
            if c == 0x5C:
                j += 2
                continue
            if c == 0x23 and not shell:
                break
            j += 1
        w.end = min(j, end)
        out.append(w)
        i = w.end
    return out


def lex(data: bytes) -> MakeFile:
    """Logical lines of a Makefile with their words. Never raises."""
    out = MakeFile(data)
    for start, end in _logical_lines(data):
        if start == end:
            continue
        if data[start] == 0x09:  # a recipe line
            line = Line(start, end, "recipe")
            line.words = _words(data, start + 1, end, True, out.comments)
            out.lines.append(line)
            continue
        stripped = data[start:end].lstrip()
        if not stripped or stripped.startswith(b"#"):
            if stripped:
                out.comments.append((data.find(b"#", start, end), end))
            continue
        first = stripped.split(None, 1)[0]
        if first in _DIRECTIVES:
            line = Line(start, end, "directive")
            line.words = _words(
                data,
                start + len(data[start:end]) - len(stripped) + len(first),
                end,
                False,
                out.comments,
            )
            out.lines.append(line)
            continue
        m = _ASSIGN.match(data, start, end)
        if m is not None:
            line = Line(
                start,
                end,
                "assign",
                var=m.group(1).decode("utf-8", "replace"),
                op=m.group(2).decode("ascii"),
            )
            line.words = _words(data, m.end(), end, False, out.comments)
            out.lines.append(line)
            continue
        line = Line(start, end, "rule")
        colon = _rule_colon(data, start, end)
        line.words = _words(data, colon + 1 if colon >= 0 else start, end, False, out.comments)
        if colon >= 0:
            # a target-specific assignment `t: VAR += value`
            m = _ASSIGN.match(data, colon + 1, end)
            if m is not None:
                line.kind = "assign"
                line.var = m.group(1).decode("utf-8", "replace")
                line.op = m.group(2).decode("ascii")
                line.words = _words(data, m.end(), end, False, out.comments)
        out.lines.append(line)
    return out


def _rule_colon(data: bytes, start: int, end: int) -> int:
    """The colon separating a rule's targets from its prerequisites (outside references)."""
    i = start
    while i < end:
        c = data[i]
        if c == 0x24 and i + 1 < end and data[i + 1] in b"({":
            i = _ref_end(data, i, end)
            continue
        if c == 0x3A:
            return i
        if c == 0x23:
            return -1
        i += 1
    return -1
