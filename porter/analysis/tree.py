"""Small tree-sitter helpers: ancestors, a document-order walk, parentheses, code or not."""

from __future__ import annotations

from collections.abc import Iterator

from ..parse import cuda as P


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
