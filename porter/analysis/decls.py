"""Declarations of variables and parameters, and the integer width of their types."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from .functions import enclosing_function
from .tree import ancestors

TYPES32 = frozenset(
    {
        "int",
        "unsigned",
        "unsigned int",
        "signed",
        "signed int",
        "uint32_t",
        "int32_t",
        "std::uint32_t",
        "std::int32_t",
        "uint",
        "unsigned int32_t",
        "u32",
        "s32",
        "int32",
        "uint32",
    }
)
TYPES64 = frozenset(
    {
        "long long",
        "unsigned long long",
        "long long int",
        "unsigned long long int",
        "long",
        "unsigned long",
        "long int",
        "unsigned long int",
        "uint64_t",
        "int64_t",
        "std::uint64_t",
        "std::int64_t",
        "size_t",
        "lane_mask",
        "u64",
        "uint64",
        "int64",
        "unsigned __int64",
        "__int64",
    }
)
_SPACE = re.compile(r"\s+")


def type_text(ctx, node) -> str:
    """A type node's text with runs of white space folded ("" for None)."""
    return _SPACE.sub(" ", ctx.text(node)).strip() if node is not None else ""


def type_width(text: str) -> int | None:
    """32 or 64 for the integer types of TYPES32/TYPES64 (cv-qualifiers ignored), else None."""
    t = text.replace("const ", "").replace("volatile ", "").strip()
    if t in TYPES32:
        return 32
    if t in TYPES64:
        return 64
    return None


class Decl:
    """One declared name: `name`, its declaration node `node`, the type node `type`, the
    initialiser (or default argument) `value`, whether it is a pointer/array (`pointer`), the
    declaration's type qualifiers and the identifier node `ident`."""

    __slots__ = ("ident", "name", "node", "pointer", "qualifiers", "type", "value")

    def __init__(self, name, node, type_, value, pointer, qualifiers, ident):
        self.name, self.node, self.type, self.value = name, node, type_, value
        self.pointer, self.qualifiers, self.ident = pointer, qualifiers, ident


def _declarators(ctx, decl):
    type_node = decl.child_by_field_name("type")
    quals = [ctx.text(c) for c in decl.children if c.type == "type_qualifier"]
    for d in decl.children_by_field_name("declarator"):
        value = None
        pointer = False
        node = d
        if node.type == "init_declarator":
            value = node.child_by_field_name("value")
            node = node.child_by_field_name("declarator")
        elif decl.type == "optional_parameter_declaration":
            value = decl.child_by_field_name("default_value")
        while node is not None and node.type in (
            "pointer_declarator",
            "array_declarator",
            "reference_declarator",
        ):
            pointer = pointer or node.type != "reference_declarator"
            inner = node.child_by_field_name("declarator")
            if inner is None and node.type == "reference_declarator":
                inner = next((c for c in node.named_children if c.type == "identifier"), None)
            node = inner
        if node is not None and node.type == "identifier":
            yield Decl(ctx.text(node), decl, type_node, value, pointer, quals, node)


_DECL_TYPES = (
    "declaration",
    "parameter_declaration",
    "optional_parameter_declaration",
    "field_declaration",
)


class Declarations:
    """Variable, parameter and field declarations of one file, per scope (computed on demand)."""

    def __init__(self, ctx):
        self._ctx = ctx
        self._by_scope: dict[int, list[Decl]] = {}
        # (the file's walked declarations, their start bytes), for `_within`
        self._starts: tuple[list, list[int]] | None = None

    def in_scope(self, scope) -> list[Decl]:
        """Declarations in `scope` (a function node), or in the whole file for None."""
        key = scope.start_byte if scope is not None else -1
        found = self._by_scope.get(key)
        if found is None:
            ctx = self._ctx
            # (the file's one walk for the node types the rules ask for: a query of these
            # types alone would be compiled once per process, at about 14 ms)
            walked = ctx.nodes(*_DECL_TYPES)
            if scope is not None:
                walked = self._within(walked, scope)
            found = [x for d in walked for x in _declarators(ctx, d)]
            self._by_scope[key] = found
        return found

    def _within(self, walked: list, scope) -> list:
        """The nodes of `walked` (the file's, in document order) in `scope`'s subtree, which a
        query on `scope` finds. A node starting and ending strictly inside the scope is in its
        subtree (nodes that are neither ancestor nor descendant do not overlap); one at an end
        of it is asked its ancestors."""
        if self._starts is None or self._starts[0] is not walked:
            self._starts = (walked, [n.start_byte for n in walked])
        starts = self._starts[1]
        s, e = scope.start_byte, scope.end_byte
        out = []
        for n in walked[bisect_left(starts, s) : bisect_right(starts, e)]:
            if s < n.start_byte and n.end_byte < e:
                out.append(n)
            elif n == scope or any(a == scope for a in ancestors(n)):
                out.append(n)
        return out

    def find(self, ident) -> Decl | None:
        """The declaration an identifier node refers to (`find_name` of its text)."""
        return self.find_name(self._ctx.text(ident), ident)

    def find_name(self, name: str, at) -> Decl | None:
        """The declaration of `name` visible at node `at`: the nearest preceding one in its
        innermost function or lambda (a lambda is its own scope here: captured names are not
        followed), else a file-level one."""
        fn = enclosing_function(at, lambdas=True)
        best = None
        if fn is not None:
            for d in self.in_scope(fn):
                if (
                    d.name == name
                    and d.ident.start_byte <= at.start_byte
                    and (best is None or d.ident.start_byte > best.ident.start_byte)
                ):
                    best = d
            if best is not None:
                return best
        for d in self.in_scope(None):
            if d.name == name and enclosing_function(d.node, lambdas=True) is None:
                return d
        return None

    def type_of(self, name: str, at) -> str | None:
        """Type text of the declaration of `name` visible at `at` ("" when it has no type
        node, None when there is no declaration)."""
        d = self.find_name(name, at)
        if d is None:
            return None
        return self._ctx.text(d.type) if d.type is not None else ""
