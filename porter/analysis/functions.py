"""Functions around a node: the enclosing definition, its name, qualifiers and device/host kind."""

from __future__ import annotations

import re

from .tree import ancestors

FUNCTION_TYPES = ("function_definition",)
WITH_LAMBDAS = ("function_definition", "lambda_expression")
_DEVICE_RX = re.compile(r"(?<![\w])(__device__|__global__)(?![\w])")
_HOST_RX = re.compile(r"(?<![\w])__host__(?![\w])")


def enclosing_function(node, *, lambdas: bool):
    """The innermost `function_definition` containing `node`; with `lambdas=True` a
    `lambda_expression` counts as a function too (a lambda's body is its own scope)."""
    kinds = WITH_LAMBDAS if lambdas else FUNCTION_TYPES
    for a in ancestors(node):
        if a.type in kinds:
            return a
    return None


def function_qualifiers(ctx, fn) -> set[str]:
    """`__global__`/`__device__`/`__host__` and attribute texts of a function definition."""
    out = {ctx.text(c) for c in fn.children if c.type in ("__global__", "__device__", "__host__")}
    for c in fn.children:  # some qualifiers arrive as attribute/identifier tokens
        if c.type in ("attribute_specifier", "ms_declspec_modifier", "type_qualifier"):
            out.add(ctx.text(c))
    return out


def function_name(ctx, fn) -> str | None:
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type not in ("function_declarator",):
        d = d.child_by_field_name("declarator")
    if d is None:
        return None
    n = d.child_by_field_name("declarator")
    if n is None:
        return None
    if n.type == "template_function":
        n = n.child_by_field_name("name")
    if n.type == "qualified_identifier":
        n = n.child_by_field_name("name")
    return ctx.text(n) if n is not None and n.type in ("identifier", "field_identifier") else None


def function_head(ctx, fn) -> str:
    """Text of a function definition before its body (specifiers, attributes, declarator)."""
    body = fn.child_by_field_name("body")
    end = body.start_byte if body is not None else fn.end_byte
    return ctx.data[fn.start_byte : end].decode("utf-8", "replace")


def may_be_device_code(data: bytes) -> bool:
    """False when `device_kind` is "host" for every node of the file: the function heads it
    reads are bytes of the file, and a head names `__device__` or `__global__` for another
    answer."""
    return b"__device__" in data or b"__global__" in data


def device_kind(ctx, node) -> str:
    """'device' (only __device__/__global__), 'hd' (__host__ __device__), or 'host', from the
    function around `node` (a lambda takes the kind of the function it is written in)."""
    fn = enclosing_function(node, lambdas=True)
    while fn is not None:
        head = function_head(ctx, fn)
        if _DEVICE_RX.search(head):
            return "hd" if _HOST_RX.search(head) else "device"
        if fn.type == "lambda_expression":
            fn = enclosing_function(fn, lambdas=True)
            continue
        break
    return "host"


def shadowed_names(ctx, fn) -> frozenset[str]:
    """Template and function parameter names visible in `fn` (their values are unknown)."""
    names = set()
    for a in [fn, *ancestors(fn)]:
        if a.type == "template_declaration":
            params = a.child_by_field_name("parameters")
            if params is not None:
                for p in params.named_children:
                    for ident in _idents(p):
                        names.add(ctx.text(ident))
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    if d is not None:
        params = d.child_by_field_name("parameters")
        if params is not None:
            for p in params.named_children:
                for ident in _idents(p):
                    names.add(ctx.text(ident))
    return frozenset(names)


def _idents(node):
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("identifier", "type_identifier"):
            yield n
        stack.extend(n.named_children)
