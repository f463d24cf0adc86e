"""tree-sitter-cuda parsing (one parser per process)."""

from __future__ import annotations

import re
from functools import lru_cache
from operator import attrgetter

# Node types whose text is a comment or a string: never rewritten unless asked.
COMMENT_TYPES = frozenset({"comment"})
STRING_TYPES = frozenset(
    {
        "string_literal",
        "string_content",
        "raw_string_literal",
        "raw_string_content",
        "char_literal",
        "escape_sequence",
        "concatenated_string",
        "system_lib_string",
        "character",
    }
)
# Opaque text that porter lexes itself.
OPAQUE_TYPES = frozenset({"preproc_arg", "ERROR"})
IDENT_TYPES = frozenset(
    {
        "identifier",
        "type_identifier",
        "namespace_identifier",
        "field_identifier",
        "statement_identifier",
        "primitive_type",
    }
)


@lru_cache(maxsize=1)
def language():
    import tree_sitter
    import tree_sitter_cuda

    return tree_sitter.Language(tree_sitter_cuda.language())


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter

    return tree_sitter.Parser(language())


# Attribute-like macros tree-sitter-cuda does not know; each turns a whole declaration into an
# ERROR node. They are blanked with spaces of the same length before parsing (byte offsets do not
# move, and the text rules and rewriter read is the original). Only forms with no names inside.
_BLANK = re.compile(rb"\b__align__\s*\(\s*\d+\s*\)|\bCUDART_CB\b|\bCUDA_CB\b")


def parse(data: bytes, keep: bool = False):
    """The tree of `data`. `keep`: hold the tree for the next parse of the same bytes (the
    project pre-pass parses the few files that define table names, which the port then parses
    again): the next call with equal bytes takes it instead of parsing (once; trees are read,
    never changed). At most _KEPT_FILES trees of at most _KEPT_BYTES bytes of source are held."""
    if _kept:
        tree = _kept.pop(data, None)
        if tree is not None:
            return tree
    source = data
    if b"__align__" in data or b"_CB" in data:
        data = _BLANK.sub(lambda m: b" " * (m.end() - m.start()), data)
    tree = _parser().parse(data)
    if keep and len(_kept) < _KEPT_FILES and sum(map(len, _kept)) + len(source) <= _KEPT_BYTES:
        _kept[source] = tree
    return tree


#: Trees `parse(..., keep=True)` holds for the next parse of the same bytes (source -> tree).
_kept: dict[bytes, object] = {}
_KEPT_FILES = 16
_KEPT_BYTES = 4 * 2**20


@lru_cache(maxsize=256)
def query(pattern: str):
    import tree_sitter

    return tree_sitter.Query(language(), pattern)


# A query costs a fixed compile (tens of milliseconds for the union of node types the rules ask
# for) the first time a process uses it; on a small file that is most of a one-file `porter check`
# (the pre-commit case). Queries made only of `(type) @name` patterns are answered by a walk of
# the subtree instead while the subtree is small and the query not yet compiled.
_SIMPLE_PATTERN = re.compile(r"\s*\(([A-Za-z_]\w*)\)\s*@([\w.-]+)")
_WALK_LIMIT = 32 * 1024  # bytes of source under the node
_compiled: set[str] = set()


def _simple(pattern: str) -> dict[str, str] | None:
    """{node type: capture name} when `pattern` is only `(type) @name` items, else None."""
    out: dict[str, str] = {}
    pos = 0
    while pos < len(pattern):
        m = _SIMPLE_PATTERN.match(pattern, pos)
        if m is None:
            return None if pattern[pos:].strip() else out
        if m.group(1) in out:
            return None
        out[m.group(1)] = m.group(2)
        pos = m.end()
    return out


def _walk_captures(types: dict[str, str], node) -> dict[str, list]:
    found: dict[str, list] = {}
    cursor = node.walk()
    while True:
        n = cursor.node
        if n is not None and n.is_named:
            cap = types.get(n.type)
            if cap is not None:
                found.setdefault(cap, []).append(n)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent() or cursor.node == node:
                return found
        if cursor.node == node:
            return found


def captures(pattern: str, node) -> dict[str, list]:
    """Run a (cached) query on a node: {capture name: [nodes]} in document order."""
    if pattern not in _compiled and node.end_byte - node.start_byte <= _WALK_LIMIT:
        simple = _simple(pattern)
        if simple:
            return _walk_captures(simple, node)
    import tree_sitter

    _compiled.add(pattern)
    cur = tree_sitter.QueryCursor(query(pattern))
    found = cur.captures(node)
    for nodes in found.values():
        sort_document_order(nodes)
    return found


_START = attrgetter("start_byte")
_END = attrgetter("end_byte")


def sort_document_order(nodes: list) -> None:
    """Sort in place by `_document_order` (start, outer node first; stable), with two stable
    sorts on C-level keys: a Python key function per node cost more than the query."""
    nodes.sort(key=_END, reverse=True)
    nodes.sort(key=_START)


def _document_order(n) -> tuple[int, int]:
    """Start, outer node first: the order of a preorder walk (a query's own order among nodes
    that start at the same byte is an implementation detail)."""
    return (n.start_byte, -n.end_byte)


def matches(pattern: str, node):
    import tree_sitter

    cur = tree_sitter.QueryCursor(query(pattern))
    return cur.matches(node)


def in_comment_or_string(root, start: int, end: int) -> bool:
    node = root.descendant_for_byte_range(start, end)
    while node is not None:
        if node.type in COMMENT_TYPES or node.type in STRING_TYPES:
            return True
        node = node.parent
    return False


def enclosing_function(node, lambdas: bool = True):
    """The function definition (or, with `lambdas`, the lambda) that contains `node`."""
    kinds = ("function_definition", "lambda_expression") if lambdas else ("function_definition",)
    for a in ancestors(node):
        if a.type in kinds:
            return a
    return None


def ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def error_nodes(root) -> list:
    """Outermost ERROR (and MISSING) nodes, visiting only subtrees that contain errors."""
    out = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            out.append(n)
            continue
        if n.has_error:
            # only children with errors (an ERROR or MISSING node has_error itself)
            stack.extend([c for c in reversed(n.children) if c.has_error])
    out.sort(key=lambda n: n.start_byte)
    return out
