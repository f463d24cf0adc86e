"""Small tree-sitter helpers: ancestors, a document-order walk, parentheses, code or not; and
the same question asked of the bytes (`in_comment`, `code_byte_before`), which rules ask
before they read the tree."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from ..parse import cuda as P
from ..rewrite.lex import BLANKS, comment_and_literal_spans, find_word


def ancestors(node) -> Iterator:
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def walk(node) -> Iterator:
    """`node` and all its descendants, in document order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def strip_parens(node):
    while (
        node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1
    ):
        node = node.named_children[0]
    return node


def in_code(ctx, start: int, end: int) -> bool:
    """The byte range is not in a comment, a string or a `#define`."""
    node = ctx.root.descendant_for_byte_range(start, end)
    while node is not None:
        if (
            node.type in P.COMMENT_TYPES
            or node.type in P.STRING_TYPES
            or node.type in ("preproc_arg", "preproc_def", "preproc_function_def")
        ):
            return False
        node = node.parent
    return True


# -- code or not, from the bytes ---------------------------------------------------------------
# (data, spans, their starts) of the last file asked about: the rules of one file ask in turn
_last_lexed: list = [None, [], []]
_SLASH = 0x2F


def lexical_spans(data: bytes) -> tuple[list[tuple[int, int]], list[int]]:
    """The file's comment and literal spans as the preprocessor lexes them
    (`lex.comment_and_literal_spans`) and their starts, for bisecting."""
    if data is _last_lexed[0]:
        return _last_lexed[1], _last_lexed[2]
    spans = comment_and_literal_spans(data, len(data))
    starts = [a for a, _ in spans]
    _last_lexed[:] = (data, spans, starts)
    return spans, starts


def _span_at(data: bytes, pos: int) -> tuple[int, int] | None:
    spans, starts = lexical_spans(data)
    k = bisect.bisect_right(starts, pos) - 1
    if k >= 0 and pos < spans[k][1]:
        return spans[k]
    return None


def in_comment(data: bytes, pos: int) -> bool:
    """Is the byte at `pos` inside a comment (a `//` one, or a closed `/* */` one), as the
    preprocessor lexes the file? Where this says True, tree-sitter has no code token either:
    its comments are lexed the same way (tests/test_rules_speed.py checks every code token of
    the sources). Not so for string literals: misled by a macro, tree-sitter's error recovery
    reads the words of some strings (`static_assert`'s messages in CCCL) as identifiers, and
    the rules read what the tree reads. An unclosed `/*` the lexer runs to the end of the
    file is an error to the grammar, which may read code after it: not a comment here."""
    span = _span_at(data, pos)
    return span is not None and _closed_comment(data, span)


def _closed_comment(data: bytes, span: tuple[int, int]) -> bool:
    a, b = span
    return data[a] == _SLASH and (
        data[a + 1] == _SLASH or (b - a >= 4 and data.endswith(b"*/", a, b))
    )


def code_byte_before(data: bytes, pos: int, skip: frozenset[int] = BLANKS) -> int:
    """The offset of the last byte before `pos` that is neither in `skip` (blanks and splices'
    backslashes by default) nor in a comment: the end of the code token before `pos` (-1 when
    none)."""
    i = pos - 1
    while i >= 0:
        if data[i] in skip:
            i -= 1
            continue
        span = _span_at(data, i)
        if span is None or not _closed_comment(data, span):
            return i
        i = span[0] - 1  # a comment: the byte before it
    return -1


def word_outside_comments(data: bytes, word: bytes) -> bool:
    """Does `word` occur as a whole word somewhere outside comments (in code, a literal or a
    macro body)? Where not, the tree has no code token of it (see `in_comment`)."""
    return any(not in_comment(data, pos) for pos in find_word(data, word))


def code_byte_after(data: bytes, pos: int, skip: frozenset[int] = BLANKS) -> int:
    """The offset of the first byte from `pos` on that is neither in `skip` nor in a comment:
    the start of the next code token (len(data) when none)."""
    i, n = pos, len(data)
    while i < n:
        if data[i] in skip:
            i += 1
            continue
        if data[i] == _SLASH:
            span = _span_at(data, i)
            if span is not None and span[0] == i and _closed_comment(data, span):
                i = span[1]
                continue
        return i
    return n
