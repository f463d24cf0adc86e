"""Integer constants: literals, and constant expressions over a file's `#define`s,
`constexpr`/`const` integers, enumerators and `sizeof` of known types (`Consts`, `ctx.consts`);
object-like macro bodies (`file_macros`, `ctx.macros`)."""

from __future__ import annotations

import re

from ..parse import cuda as P

# -- constant evaluation ----------------------------------------------------------------------
# Sizes in bytes of element types whose size does not depend on the target (LP64 Linux hosts,
# both vendors' vector types are packed structs of the scalar).
TYPE_SIZES: dict[str, int] = {}
for _names, _size in (
    (
        (
            "char",
            "signed char",
            "unsigned char",
            "bool",
            "int8_t",
            "uint8_t",
            "char1",
            "uchar1",
            "__nv_fp8_e4m3",
            "__nv_fp8_e5m2",
            "__hip_fp8_e4m3",
            "__hip_fp8_e5m2",
            "__hip_fp8_e4m3_fnuz",
            "__hip_fp8_e5m2_fnuz",
            "std::int8_t",
            "std::uint8_t",
        ),
        1,
    ),
    (
        (
            "short",
            "unsigned short",
            "short int",
            "unsigned short int",
            "int16_t",
            "uint16_t",
            "half",
            "__half",
            "__nv_bfloat16",
            "__hip_bfloat16",
            "hip_bfloat16",
            "nv_bfloat16",
            "char2",
            "uchar2",
            "std::int16_t",
            "std::uint16_t",
            "_Float16",
        ),
        2,
    ),
    (
        (
            "int",
            "unsigned",
            "unsigned int",
            "signed",
            "signed int",
            "float",
            "int32_t",
            "uint32_t",
            "half2",
            "__half2",
            "__nv_bfloat162",
            "__hip_bfloat162",
            "nv_bfloat162",
            "char4",
            "uchar4",
            "short2",
            "ushort2",
            "int1",
            "uint1",
            "float1",
            "std::int32_t",
            "std::uint32_t",
        ),
        4,
    ),
    (
        (
            "long",
            "unsigned long",
            "long int",
            "unsigned long int",
            "long long",
            "unsigned long long",
            "long long int",
            "unsigned long long int",
            "double",
            "int64_t",
            "uint64_t",
            "size_t",
            "std::size_t",
            "ptrdiff_t",
            "intptr_t",
            "uintptr_t",
            "int2",
            "uint2",
            "float2",
            "short4",
            "ushort4",
            "long1",
            "ulong1",
            "longlong1",
            "ulonglong1",
            "double1",
            "std::int64_t",
            "std::uint64_t",
        ),
        8,
    ),
    (("int3", "uint3", "float3"), 12),
    (("int4", "uint4", "float4", "double2", "long2", "ulong2", "longlong2", "ulonglong2"), 16),
    (("double3", "long3", "ulong3", "longlong3", "ulonglong3"), 24),
    (("double4", "long4", "ulong4", "longlong4", "ulonglong4"), 32),
):
    for _n in _names:
        TYPE_SIZES[_n] = _size

_INT_TYPES = {
    n
    for n, s in TYPE_SIZES.items()
    if n not in ("float", "double", "half", "__half", "half2", "__half2", "_Float16")
    and "float" not in n
    and "double" not in n
    and "bfloat" not in n
    and "fp8" not in n
    and not n[-1].isdigit()
}
_INT_TYPES |= {"auto", "std::size_t", "uint32_t", "int32_t", "uint64_t", "int64_t", "index_t"}
_NUM = re.compile(r"^(0[xX][0-9a-fA-F']+|0[bB][01']+|0[0-7']*|[1-9][0-9']*)([uUlLzZ]*)$")
_MAX_DEPTH = 24


def type_size(text: str) -> int | None:
    return TYPE_SIZES.get(" ".join(text.replace("::", " :: ").split()).replace(" :: ", "::"))


def int_literal(text: str) -> int | None:
    m = _NUM.match(text.strip())
    if not m:
        return None
    digits = m.group(1).replace("'", "")
    if digits[:2] in ("0x", "0X"):
        return int(digits, 16)
    if digits[:2] in ("0b", "0B"):
        return int(digits, 0)
    if len(digits) > 1 and digits[0] == "0":
        return int(digits, 8)
    return int(digits)


class Consts:
    """Integer constants of one file, and an evaluator of constant expressions.

    A name is known only when every definition of it in the file gives the same value (so
    `#if`-dependent or per-kernel constants with different values stay unknown)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.defs: dict[str, list] = {}  # name -> [("macro", text) | ("node", expr node)]
        self._memo: dict[str, int | None] = {}
        self._busy: set[str] = set()
        for d in ctx.nodes("preproc_def"):
            name, val = d.child_by_field_name("name"), d.child_by_field_name("value")
            if name is not None:
                self.defs.setdefault(ctx.text(name), []).append(
                    ("macro", ctx.text(val).strip() if val is not None else "")
                )
        for d in ctx.nodes("declaration", "field_declaration"):
            quals = {ctx.text(c) for c in d.children if c.type == "type_qualifier"}
            t = d.child_by_field_name("type")
            if not (quals & {"const", "constexpr"}) or t is None:
                continue
            if " ".join(ctx.text(t).split()) not in _INT_TYPES:
                continue
            for decl in d.children_by_field_name("declarator"):
                if decl.type == "init_declarator":
                    name = decl.child_by_field_name("declarator")
                    val = decl.child_by_field_name("value")
                    if name is not None and name.type == "identifier" and val is not None:
                        if (
                            val.type in ("initializer_list", "argument_list")
                            and val.named_child_count == 1
                        ):
                            val = val.named_children[0]
                        self.defs.setdefault(ctx.text(name), []).append(("node", val))
            dv = d.child_by_field_name("default_value")
            if d.type == "field_declaration" and dv is not None:
                for decl in d.children_by_field_name("declarator"):
                    if decl.type == "field_identifier":
                        self.defs.setdefault(ctx.text(decl), []).append(("node", dv))
        for lst in ctx.nodes("enumerator_list"):
            prev: int | None = -1
            for e in lst.named_children:
                if e.type != "enumerator":
                    continue
                name, val = e.child_by_field_name("name"), e.child_by_field_name("value")
                if val is not None:
                    self.defs.setdefault(ctx.text(name), []).append(("node", val))
                    prev = None  # evaluated lazily; implicit successors stay unknown
                elif prev is not None:
                    prev += 1
                    self.defs.setdefault(ctx.text(name), []).append(("int", prev))
                else:
                    self.defs.setdefault(ctx.text(name), []).append(("unknown", None))

    def name(self, name: str) -> int | None:
        if name in self._memo:
            return self._memo[name]
        if name in self._busy or name not in self.defs:
            return None
        self._busy.add(name)
        vals = set()
        for kind, what in self.defs[name]:
            if kind == "macro":
                v = self.text(what)
            elif kind == "node":
                v = self.eval(what)
            elif kind == "int":
                v = what
            else:
                v = None
            vals.add(v)
        self._busy.discard(name)
        v = vals.pop() if len(vals) == 1 else None
        self._memo[name] = v
        return v

    def text(self, text: str, depth: int = 0) -> int | None:
        """Evaluate expression text (a macro body, a `__launch_bounds__` argument)."""
        text = text.strip()
        if not text or len(text) > 300:
            return None
        lit = int_literal(text)
        if lit is not None:
            return lit
        tree = P.parse(b"int __porter_v = (" + text.encode() + b");")
        if tree.root_node.has_error:
            return None
        init = tree.root_node.named_children[0].child_by_field_name("declarator")
        val = init.child_by_field_name("value") if init is not None else None
        if val is None:
            return None
        return _Eval(self, lambda n: n.text.decode("utf-8", "replace")).run(val)

    def eval(self, node, shadow: frozenset[str] = frozenset()) -> int | None:
        return _Eval(self, self.ctx.text, shadow).run(node)


class _Eval:
    def __init__(self, consts: Consts, text, shadow: frozenset[str] = frozenset()):
        self.c, self.t, self.shadow = consts, text, shadow

    def run(self, n, depth: int = 0) -> int | None:
        if n is None or depth > _MAX_DEPTH:
            return None
        t = n.type
        if t == "number_literal":
            return int_literal(self.t(n))
        if t in ("identifier", "field_identifier"):
            name = self.t(n)
            return None if name in self.shadow else self.c.name(name)
        if t == "qualified_identifier":
            nm = n.child_by_field_name("name")
            return self.run(nm, depth + 1) if nm is not None and nm.type == "identifier" else None
        if t in ("parenthesized_expression", "condition_clause"):
            kids = [c for c in n.named_children if c.type != "comment"]
            return self.run(kids[0], depth + 1) if len(kids) == 1 else None
        if t == "unary_expression":
            op, arg = n.child_by_field_name("operator"), n.child_by_field_name("argument")
            v = self.run(arg, depth + 1)
            if v is None or op is None:
                return None
            return {"-": -v, "+": v, "~": ~v, "!": int(not v)}.get(self.t(op))
        if t == "sizeof_expression":
            ty = n.child_by_field_name("type")
            if ty is not None:
                inner = ty.child_by_field_name("type")
                if inner is not None and ty.child_by_field_name("declarator") is None:
                    return type_size(self.t(inner))
            return None
        if t == "conditional_expression":
            c = self.run(n.child_by_field_name("condition"), depth + 1)
            if c is None:
                return None
            return self.run(n.child_by_field_name("consequence" if c else "alternative"), depth + 1)
        if t == "cast_expression":
            ty = n.child_by_field_name("type")
            inner = ty.child_by_field_name("type") if ty is not None else None
            if inner is not None and " ".join(self.t(inner).split()) in _INT_TYPES:
                return self.run(n.child_by_field_name("value"), depth + 1)
            return None
        if t == "binary_expression":
            a = self.run(n.child_by_field_name("left"), depth + 1)
            if a is None:
                return None
            b = self.run(n.child_by_field_name("right"), depth + 1)
            if b is None:
                return None
            op = self.t(n.child_by_field_name("operator"))
            try:
                if op in ("/", "%"):
                    if b == 0:
                        return None
                    q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
                    return q if op == "/" else a - q * b
                if op in ("<<", ">>") and not 0 <= b < 128:
                    return None
                return {
                    "+": lambda: a + b,
                    "-": lambda: a - b,
                    "*": lambda: a * b,
                    "<<": lambda: a << b,
                    ">>": lambda: a >> b,
                    "&": lambda: a & b,
                    "|": lambda: a | b,
                    "^": lambda: a ^ b,
                    "<": lambda: int(a < b),
                    ">": lambda: int(a > b),
                    "<=": lambda: int(a <= b),
                    ">=": lambda: int(a >= b),
                    "==": lambda: int(a == b),
                    "!=": lambda: int(a != b),
                    "&&": lambda: int(bool(a and b)),
                    "||": lambda: int(bool(a or b)),
                }[op]()
            except KeyError:
                return None
        return None


_LITERAL = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uUlLzZ]*)")


def int_value(text: str) -> tuple[int, str] | None:
    """(value, lower-case suffix) of a (signed) integer literal such as `-1`, `0xffu`, `1'000`;
    None for anything else."""
    m = _LITERAL.fullmatch(text.replace("'", "").strip())
    if not m:
        return None
    sign, digits, suffix = m.groups()
    v = int_literal(digits)
    if v is None:
        return None
    return (-v if sign == "-" else v), suffix.lower()


def file_macros(ctx) -> dict[str, str]:
    """Object-like `#define NAME value` in the file: name -> value text (comments removed; the
    first definition of a name wins)."""
    out: dict[str, str] = {}
    for d in ctx.nodes("preproc_def"):
        name = d.child_by_field_name("name")
        value = d.child_by_field_name("value")
        if name is not None and value is not None:
            v = re.sub(r"/\*.*?\*/|//.*", "", ctx.text(value)).strip()
            out.setdefault(ctx.text(name), v)
    return out
