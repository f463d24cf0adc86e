"""Call expressions of a file, by the callee's plain name.

One definition for every rule: a call's *name* is the unqualified name of the function called,
through template arguments and namespaces (`f(x)`, `ns::f(x)`, `f<T>(x)`, `ns::f<T>(x)` are all
`f`) and, for member calls (`tile.shfl_down(v, 1)`, `p->f()`), the member's name with
`Call.member` set. `CallIndex.named(names)` returns `Call` records (name, node, callee,
member, args) in document order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from tree_sitter import Node

from ..rewrite.lex import BLANKS, find_word
from .functions import enclosing_function, function_name
from .tree import in_comment


def callee(call):
    """(name node, is a member call) of a call_expression, or (None, False)."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return None, False
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name")
    while fn is not None and fn.type == "qualified_identifier":
        fn = fn.child_by_field_name("name")
        if fn is not None and fn.type == "template_function":
            fn = fn.child_by_field_name("name")
    if fn is not None and fn.type == "field_expression":
        f = fn.child_by_field_name("field")
        return (f, True) if f is not None and f.type == "field_identifier" else (None, False)
    if fn is not None and fn.type in ("identifier", "field_identifier"):
        return fn, False
    return None, False


def call_name(ctx, call) -> str:
    """The plain name of the function a call_expression calls ("" when it has none, e.g.
    `(*fp)(x)` or `T(x)` with a type); for other nodes, ""."""
    if call is None or call.type != "call_expression":
        return ""
    node, _ = callee(call)
    return ctx.text(node) if node is not None else ""


def call_args(call) -> list:
    """The argument nodes of a call_expression (comments left out)."""
    args = call.child_by_field_name("arguments")
    if args is None or args.type != "argument_list":
        return []
    return [c for c in args.named_children if c.type != "comment"]


@dataclass(eq=False)
class Call:
    name: str  # plain callee name (see the module docstring)
    node: Node  # the call_expression
    callee: Node  # the name node (identifier or field_identifier): where to report
    member: bool  # `obj.f()` / `p->f()`

    @cached_property
    def args(self) -> tuple[Node, ...]:
        """The argument nodes (comments left out)."""
        return tuple(call_args(self.node))

    @property
    def function(self):
        """The call's `function` child (`ns::f<T>`, `obj.f`)."""
        return self.node.child_by_field_name("function")


#: A plain identifier: a callee named so is one of the file's identifier tokens (ctx.idents).
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


#: the bytes after blanks and splices (lex.BLANKS) that may go on to a call: its arguments,
#: its template arguments, a comment
_CALL_NEXT = frozenset(b"(</")


def _followed_by_call(data: bytes, word: bytes) -> bool:
    """May some occurrence of `word` be a callee's name? A call_expression's name node (see
    `callee`) is a code token (not in a comment: `tree.in_comment`) followed by its argument
    list or its template arguments: `(` or `<` after blanks and splices (a `/` may start a
    comment before them: it counts as may)."""
    n = len(data)
    for pos in find_word(data, word):
        i = pos + len(word)
        while i < n and data[i] in BLANKS:
            i += 1
        if i < n and data[i] in _CALL_NEXT and not in_comment(data, pos):
            return True
    return False


class CallIndex:
    """All call_expressions of one file, indexed by name on first need: asked only for names
    none of which is an identifier token of the file, it answers without the tree."""

    def __init__(self, ctx):
        self._ctx = ctx
        self._index: dict[str, list[Call]] | None = None

    @property
    def _by(self) -> dict[str, list[Call]]:
        if self._index is None:
            ctx = self._ctx
            by: dict[str, list[Call]] = {}
            for c in ctx.nodes("call_expression"):
                node, member = callee(c)
                if node is None:
                    continue
                name = ctx.text(node)
                by.setdefault(name, []).append(Call(name, c, node, member))
            self._index = by
        return self._index

    def names(self) -> frozenset[str]:
        """Every callee name of the file."""
        return frozenset(self._by)

    def may_call(self, names: Iterable[str]) -> bool:
        """False when no call of the file can have one of these names: a callee's name node is
        an identifier token of the file's bytes (`ctx.idents`), so a plain name missing from
        them is called nowhere. (A name of other characters counts as present.)"""
        idents = self._ctx.idents
        data = self._ctx.data
        for n in names:
            if not _PLAIN_NAME.fullmatch(n):
                return True
            word = n.encode()
            if word in idents and _followed_by_call(data, word):
                return True
        return False

    def named(
        self, names: Iterable[str], *, members: bool = False, forwarding: bool = True
    ) -> list[Call]:
        """Calls of the named functions, in document order. `members=True` includes member
        calls (`obj.f()`); `forwarding=False` leaves out the call inside a function of the same
        name (an overload wrapper `f(T** p) { return f((void**)p); }` forwarding to the API)."""
        if isinstance(names, str):
            names = (names,)
        names = set(names)
        if self._index is None and not self.may_call(names):
            return []
        by = self._by
        out = [c for n in names for c in by.get(n, ()) if members or not c.member]
        if not forwarding:
            out = [c for c in out if not self.is_forwarding(c)]
        out.sort(key=lambda c: c.node.start_byte)
        return out

    def is_forwarding(self, c: Call) -> bool:
        fn = enclosing_function(c.node, lambdas=False)
        return fn is not None and function_name(self._ctx, fn) == c.name
