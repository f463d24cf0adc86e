"""PT4xx: on-chip memory (LDS), launch configuration and registers.

Also holds the small helpers these rules and the coherence rules (PT5xx) share: an evaluator of
integer constant expressions over the tree (literals, `#define`s, `constexpr`/`const` integers,
enumerators, `sizeof` of known types) and a classifier of preprocessor branches (AMD-only,
NVIDIA-only, other).
"""
from __future__ import annotations

from .lazyre import re
from typing import Iterator

from ..findings import Applicability, Edit, Severity
from ..parse import cuda as P
from .base import Rule, RuleContext
from .registry import register

KIB = 1024

# -- constant evaluation ----------------------------------------------------------------------
# Sizes in bytes of element types whose size does not depend on the target (LP64 Linux hosts,
# both vendors' vector types are packed structs of the scalar).
TYPE_SIZES: dict[str, int] = {}
for _names, _size in (
        (("char", "signed char", "unsigned char", "bool", "int8_t", "uint8_t", "char1", "uchar1",
          "__nv_fp8_e4m3", "__nv_fp8_e5m2", "__hip_fp8_e4m3", "__hip_fp8_e5m2",
          "__hip_fp8_e4m3_fnuz", "__hip_fp8_e5m2_fnuz", "std::int8_t", "std::uint8_t"), 1),
        (("short", "unsigned short", "short int", "unsigned short int", "int16_t", "uint16_t",
          "half", "__half", "__nv_bfloat16", "__hip_bfloat16", "hip_bfloat16", "nv_bfloat16",
          "char2", "uchar2", "std::int16_t", "std::uint16_t", "_Float16"), 2),
        (("int", "unsigned", "unsigned int", "signed", "signed int", "float", "int32_t",
          "uint32_t", "half2", "__half2", "__nv_bfloat162", "__hip_bfloat162", "nv_bfloat162",
          "char4", "uchar4", "short2", "ushort2", "int1", "uint1", "float1", "std::int32_t",
          "std::uint32_t"), 4),
        (("long", "unsigned long", "long int", "unsigned long int", "long long",
          "unsigned long long", "long long int", "unsigned long long int", "double", "int64_t",
          "uint64_t", "size_t", "std::size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int2",
          "uint2", "float2", "short4", "ushort4", "long1", "ulong1", "longlong1", "ulonglong1",
          "double1", "std::int64_t", "std::uint64_t"), 8),
        (("int3", "uint3", "float3"), 12),
        (("int4", "uint4", "float4", "double2", "long2", "ulong2", "longlong2", "ulonglong2"), 16),
        (("double3", "long3", "ulong3", "longlong3", "ulonglong3"), 24),
        (("double4", "long4", "ulong4", "longlong4", "ulonglong4"), 32)):
    for _n in _names:
        TYPE_SIZES[_n] = _size

_INT_TYPES = {n for n, s in TYPE_SIZES.items() if n not in (
    "float", "double", "half", "__half", "half2", "__half2", "_Float16") and "float" not in n
    and "double" not in n and "bfloat" not in n and "fp8" not in n and not n[-1].isdigit()}
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
        return int(digits[2:], 2)
    if len(digits) > 1 and digits[0] == "0":
        return int(digits, 8)
    return int(digits)


class Consts:
    """Integer constants of one file, and an evaluator of constant expressions.

    A name is known only when every definition of it in the file gives the same value (so
    `#if`-dependent or per-kernel constants with different values stay unknown)."""

    def __init__(self, ctx: RuleContext):
        self.ctx = ctx
        self.defs: dict[str, list] = {}       # name -> [("macro", text) | ("node", expr node)]
        self._memo: dict[str, int | None] = {}
        self._busy: set[str] = set()
        for d in ctx.nodes("preproc_def"):
            name, val = d.child_by_field_name("name"), d.child_by_field_name("value")
            if name is not None:
                self.defs.setdefault(ctx.text(name), []).append(
                    ("macro", ctx.text(val).strip() if val is not None else ""))
        for d in ctx.nodes("declaration", "field_declaration"):
            quals = {ctx.text(c) for c in d.children if c.type == "type_qualifier"}
            t = d.child_by_field_name("type")
            if not (quals & {"const", "constexpr"}) or t is None:
                continue
            if " ".join(ctx.text(t).split()) not in _INT_TYPES:
                continue
            for decl in d.children_by_field_name("declarator"):
                if decl.type == "init_declarator":
                    name, val = decl.child_by_field_name("declarator"), decl.child_by_field_name("value")
                    if name is not None and name.type == "identifier" and val is not None:
                        if val.type in ("initializer_list", "argument_list") and val.named_child_count == 1:
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
                    prev = None       # evaluated lazily; implicit successors stay unknown
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
                return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                        "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
                        "|": lambda: a | b, "^": lambda: a ^ b, "<": lambda: int(a < b),
                        ">": lambda: int(a > b), "<=": lambda: int(a <= b),
                        ">=": lambda: int(a >= b), "==": lambda: int(a == b),
                        "!=": lambda: int(a != b), "&&": lambda: int(bool(a and b)),
                        "||": lambda: int(bool(a or b))}[op]()
            except KeyError:
                return None
        return None


def consts(ctx: RuleContext) -> Consts:
    c = ctx.cache.get("consts")
    if c is None:
        c = ctx.cache["consts"] = Consts(ctx)
    return c


# -- scopes, functions, preprocessor branches ---------------------------------------------------
HIP_GUARD = re.compile(r"\b(__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIP_PLATFORM_AMDGCN__|"
                       r"__HIPCC__|__HIP__|__HIP_DEVICE_COMPILE__|USE_ROCM|__AMDGCN__|__gfx\w+__|"
                       r"GGML_USE_HIP|USE_HIP|HIP_PLATFORM_AMD|__HIP_PLATFORM_AMD|CUDA_IS_HIP|"
                       r"PORTER_HIP)\b")
_PREPROC_COND = ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef")


def _branch_sense(ctx: RuleContext, cond_node, child) -> str:
    """'amd', 'nv' or 'other' for `child` (a node inside cond_node's body or alternative)."""
    alt = cond_node.child_by_field_name("alternative")
    in_alt = alt is not None and alt.start_byte <= child.start_byte and child.end_byte <= alt.end_byte
    if in_alt:
        return "other"      # handled when the walk reaches the alternative itself
    if cond_node.type in ("preproc_ifdef", "preproc_elifdef"):
        name = cond_node.child_by_field_name("name")
        if name is None or not HIP_GUARD.fullmatch(ctx.text(name)):
            return "other"
        neg = ctx.text(cond_node.children[0]).replace(" ", "") in ("#ifndef", "#elifndef")
        return "nv" if neg else "amd"
    cond = cond_node.child_by_field_name("condition")
    if cond is None:
        return "other"
    text = " ".join(ctx.text(cond).split())
    m = re.fullmatch(r"(!\s*)?(?:defined\s*\(?\s*)?(\w+)\s*\)?", text)
    if m and HIP_GUARD.fullmatch(m.group(2)):
        return "nv" if m.group(1) else "amd"
    return "other"


def _else_sense(ctx: RuleContext, else_node) -> str:
    """Sense of a `#else`: the opposite of its `#if`/`#ifdef` when that is a plain HIP guard."""
    owner = else_node.parent
    if owner is None or owner.type not in ("preproc_if", "preproc_ifdef"):
        return "other"
    body = _branch_sense(ctx, owner, owner.child_by_field_name("condition")
                         or owner.child_by_field_name("name") or owner)
    return {"amd": "nv", "nv": "amd"}.get(body, "other")


def branches(ctx: RuleContext, node, stop=None) -> list[str]:
    """Senses of the preprocessor branches enclosing `node` (innermost first), up to `stop`."""
    out = []
    child = node
    for anc in P.ancestors(node):
        if stop is not None and anc == stop:
            break
        if anc.type in _PREPROC_COND:
            s = _branch_sense(ctx, anc, child)
            alt = anc.child_by_field_name("alternative")
            if not (alt is not None and alt.start_byte <= child.start_byte
                    and child.end_byte <= alt.end_byte):
                out.append(s)
        elif anc.type == "preproc_else":
            out.append(_else_sense(ctx, anc))
        child = anc
    return out


def nvidia_only(ctx: RuleContext, node) -> bool:
    """Inside a branch that the AMD compilation does not see (`#ifndef __HIP_PLATFORM_AMD__`...)."""
    return "nv" in branches(ctx, node)


def amd_only(ctx: RuleContext, node) -> bool:
    return "amd" in branches(ctx, node)


def in_code(ctx: RuleContext, start: int, end: int) -> bool:
    """Not in a comment, a string or a `#define`."""
    node = ctx.root.descendant_for_byte_range(start, end)
    while node is not None:
        if node.type in P.COMMENT_TYPES or node.type in P.STRING_TYPES or node.type in (
                "preproc_arg", "preproc_def", "preproc_function_def"):
            return False
        node = node.parent
    return True


def function_qualifiers(ctx: RuleContext, fn) -> set[str]:
    out = {ctx.text(c) for c in fn.children if c.type in ("__global__", "__device__", "__host__")}
    for c in fn.children:       # some qualifiers arrive as attribute/identifier tokens
        if c.type in ("attribute_specifier", "ms_declspec_modifier", "type_qualifier"):
            out.add(ctx.text(c))
    return out


def function_name(ctx: RuleContext, fn) -> str | None:
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


def enclosing_function(node):
    return P.enclosing_function(node, lambdas=False)


def shadowed_names(ctx: RuleContext, fn) -> frozenset[str]:
    """Template and function parameter names visible in `fn` (their values are unknown)."""
    names = set()
    for a in [fn, *P.ancestors(fn)]:
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


def call_name(ctx: RuleContext, call) -> str | None:
    f = call.child_by_field_name("function")
    if f is None:
        return None
    if f.type == "template_function":
        f = f.child_by_field_name("name")
    if f is not None and f.type == "qualified_identifier":
        while f is not None and f.type == "qualified_identifier":
            f = f.child_by_field_name("name")
    return ctx.text(f) if f is not None and f.type == "identifier" else None


def calls(ctx: RuleContext, names) -> list[tuple[str, object, list]]:
    """(name, call_expression, argument nodes) for calls of the given function names, except
    the forwarding call inside a wrapper overload of the same name."""
    out = []
    for ident in ctx.identifiers(names):
        call = ident.parent
        while call is not None and call.type in ("template_function", "qualified_identifier"):
            call = call.parent
        if call is None or call.type != "call_expression":
            continue
        if call_name(ctx, call) != ctx.text(ident):
            continue
        fn = enclosing_function(call)
        if fn is not None and function_name(ctx, fn) == ctx.text(ident):
            continue        # an overload wrapper (`T** p` -> `void** p`) forwarding to the API
        args = call.child_by_field_name("arguments")
        argv = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        out.append((ctx.text(ident), call, argv))
    return out


def fmt_bytes(n: int) -> str:
    if n < KIB:
        return f"{n} bytes"
    return f"{n} bytes ({n // KIB} KiB)" if n % KIB == 0 else f"{n} bytes ({n / KIB:.1f} KiB)"


def _lds_targets(ctx: RuleContext, size: int) -> list:
    return [t for t in ctx.options.targets if size > t.lds]


def _limits(over) -> str:
    groups: dict[int, list[str]] = {}
    for t in over:
        groups.setdefault(t.lds, []).append(t.arch)
    return ", ".join(f"{lds // KIB} KiB on {'/'.join(a)}" for lds, a in sorted(groups.items()))


# -- PT401 ------------------------------------------------------------------------------------
def _is_shared_decl(ctx: RuleContext, d) -> bool:
    quals = [ctx.text(c) for c in d.children if c.type == "type_qualifier"]
    if "__shared__" not in quals:
        return False
    return not any(c.type == "storage_class_specifier" and ctx.text(c) == "extern" for c in d.children)


def _shared_decl_sizes(ctx: RuleContext, d, shadow) -> list[tuple[str, int | None]]:
    """(variable name, size in bytes or None) for each declarator of a __shared__ declaration."""
    c = consts(ctx)
    ty = d.child_by_field_name("type")
    elem = type_size(ctx.text(ty)) if ty is not None else None
    decls = list(d.children_by_field_name("declarator"))
    if ty is not None and ctx.text(ty) == "__align__":
        # `__shared__ __align__(16) T x[N]`: tree-sitter-cuda puts `16) T` in an ERROR node
        elem = None
        for dd in decls:
            for n in _walk(dd):
                if n.type == "ERROR":
                    kinds = [k for k in n.named_children if k.type in
                             ("primitive_type", "type_identifier", "sized_type_specifier",
                              "qualified_identifier")]
                    if kinds:
                        elem = type_size(ctx.text(kinds[-1]))
        decls = [x for dd in decls for x in _walk(dd) if x.type == "array_declarator"
                 and (x.parent is None or x.parent.type != "array_declarator")][:1] or decls
    out = []
    for dd in decls:
        if dd.type == "init_declarator":
            dd = dd.child_by_field_name("declarator")
        count = 1
        ok = elem is not None
        while dd is not None and dd.type == "array_declarator":
            size = dd.child_by_field_name("size")
            v = c.eval(size, shadow) if size is not None else None
            if v is None or v < 0:
                ok = False
            else:
                count *= v
            dd = dd.child_by_field_name("declarator")
        if dd is None or dd.type != "identifier":
            ok = False
        name = ctx.text(dd) if dd is not None else "?"
        out.append((name, elem * count if ok else None))
    return out


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


@register
class LdsStaticLimit(Rule):
    """Static `__shared__` arrays of a kernel exceed the target's LDS.

    ## What it finds
    Kernels whose static `__shared__` arrays (declared in the kernel, and in `__device__`
    functions of the same file that it calls directly) add up to more bytes than one workgroup
    may allocate on a selected `--offload-arch`. Sizes are computed only from known element types
    and constant dimensions (literals, `#define`, `constexpr`/`const` integers, enumerators);
    arrays sized by template parameters or anything unknown are left out of the sum, and arrays
    in preprocessor branches other than AMD ones are not counted.

    ## Why it breaks on AMD
    LDS per workgroup is 64 KiB on MI200 (gfx90a) and MI300 (gfx942) and 160 KiB on MI350
    (gfx950); porter assumes 64 KiB for RDNA. Kernels sized for Hopper or Blackwell shared
    memory (well above 100 KiB per block) fail to compile or to launch.

    ## Example
    ```cpp
    #define TILE 128
    __global__ void gemm(const float* a, const float* b, float* c) {
        __shared__ float As[TILE][TILE];   // 64 KiB
        __shared__ float Bs[TILE][TILE];   // 64 KiB: 128 KiB in total
    }
    ```

    ## Use instead
    Re-tile (smaller tiles, fewer pipeline stages, fp16 staging) so the kernel fits the LDS of
    every target, or select tile sizes per architecture at compile time.

    ## References
    - AMD GPU hardware specifications table (`gpu-arch-specs`: LDS 64 KiB on MI250X/MI300X,
      160 KiB on MI350X/MI355X)
    - porter `../shared/hazards.md` LDS-STATIC-LIMIT
    """
    code = "PT401"
    name = "lds-static-limit"
    severity = Severity.ERROR
    triggers = (b"__shared__",)

    def check(self, ctx: RuleContext) -> Iterator:
        fns = [n for n in ctx.nodes("function_definition")]
        device_fns: dict[str, list] = {}
        for fn in fns:
            q = function_qualifiers(ctx, fn)
            if "__device__" in q and "__global__" not in q:
                name = function_name(ctx, fn)
                if name:
                    device_fns.setdefault(name, []).append(fn)
        shared = [d for d in ctx.nodes("declaration") if _is_shared_decl(ctx, d)]
        if not shared:
            return
        by_fn: dict[int, list] = {}
        for d in shared:
            fn = enclosing_function(d)
            if fn is not None:
                by_fn.setdefault(fn.start_byte, []).append(d)
        for fn in fns:
            if "__global__" not in function_qualifiers(ctx, fn):
                continue
            parts: list[tuple[str, int]] = []
            unknown = 0
            sources = [(fn, by_fn.get(fn.start_byte, []))]
            body = fn.child_by_field_name("body")
            seen = set()
            if body is not None:
                for call in _walk(body):
                    if call.type != "call_expression":
                        continue
                    name = call_name(ctx, call)
                    if name in device_fns and len(device_fns[name]) == 1 and name not in seen:
                        seen.add(name)
                        callee = device_fns[name][0]
                        sources.append((callee, by_fn.get(callee.start_byte, [])))
            for owner, decls in sources:
                shadow = shadowed_names(ctx, owner)
                for d in decls:
                    senses = branches(ctx, d, owner)
                    if any(s != "amd" for s in senses):
                        continue
                    for name, size in _shared_decl_sizes(ctx, d, shadow):
                        if size is None:
                            unknown += 1
                        else:
                            parts.append((name, size))
            total = sum(s for _, s in parts)
            over = _lds_targets(ctx, total)
            if not over:
                continue
            kname = function_name(ctx, fn) or "kernel"
            detail = ", ".join(f"{n}: {s}" for n, s in parts[:6]) + (", ..." if len(parts) > 6 else "")
            least = "at least " if unknown else ""
            where = fn.child_by_field_name("declarator") or fn
            yield self.finding(
                ctx, (fn.start_byte, where.end_byte if where is not fn else fn.start_byte + 1),
                f"kernel `{kname}` declares {least}{fmt_bytes(total)} of static __shared__ memory "
                f"({detail}), more than the LDS per workgroup ({_limits(over)}); re-tile or "
                f"reduce stages so it fits",
                targets=tuple(t.arch for t in over))


# -- PT402 ------------------------------------------------------------------------------------
_SETATTR = ("cudaFuncSetAttribute", "hipFuncSetAttribute", "cuFuncSetAttribute")
_DYN_ATTR = ("cudaFuncAttributeMaxDynamicSharedMemorySize", "hipFuncAttributeMaxDynamicSharedMemorySize",
             "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
             "HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES")


@register
class LdsDynamicOptin(Rule):
    """Dynamic shared memory request above the target's LDS.

    ## What it finds
    `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)` (and the
    `hipFuncSetAttribute` / `cuFuncSetAttribute` spellings), kernel launches whose dynamic
    shared-memory argument (`k<<<g, b, bytes>>>`, `hipLaunchKernelGGL`, `cudaLaunchKernel`) and
    `cudaLaunchConfig_t::dynamicSmemBytes` assignments, when `bytes` is a constant expression
    larger than the LDS of a selected target.

    ## Why it breaks on AMD
    HIP maps the calls, but the hardware caps one workgroup at 64 KiB of LDS on gfx90a and
    gfx942 and 160 KiB on gfx950. Sizes computed for NVIDIA's opt-in shared memory (up to
    about 227 KiB per block on Hopper) fail at launch.

    ## Example
    ```cpp
    cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);
    gemm<<<grid, 256, 96 * 1024, stream>>>(a, b, c);
    ```

    ## Use instead
    Query the limit at run time (`hipDeviceAttributeSharedMemPerBlockOptin` or
    `sharedMemPerBlock`) and choose tile sizes per architecture.

    ## References
    - HIPIFY runtime API support table (`hipFuncSetAttribute`,
      `hipDeviceAttributeSharedMemPerBlockOptin`)
    - AMD GPU hardware specifications table (LDS per workgroup)
    """
    code = "PT402"
    name = "lds-dynamic-optin"
    severity = Severity.ERROR
    triggers = (b"MaxDynamicSharedMemorySize", b"MAX_DYNAMIC_SHARED_SIZE_BYTES", b"<<<",
                b"hipLaunchKernelGGL", b"LaunchKernel", b"dynamicSmemBytes")

    def check(self, ctx: RuleContext) -> Iterator:
        c = consts(ctx)

        def report(node, value_node, what):
            fn = enclosing_function(node)
            shadow = shadowed_names(ctx, fn) if fn is not None else frozenset()
            v = c.eval(value_node, shadow)
            if v is None or nvidia_only(ctx, node):
                return None
            over = _lds_targets(ctx, v)
            if not over:
                return None
            return self.finding(
                ctx, value_node,
                f"{what} {fmt_bytes(v)} of dynamic shared memory, more than the LDS per "
                f"workgroup ({_limits(over)}); query the limit at run time and pick a smaller "
                f"tile for these targets", targets=tuple(t.arch for t in over))

        for name, call, args in calls(ctx, _SETATTR):
            if len(args) >= 3 and ctx.text(args[1]).split("::")[-1] in _DYN_ATTR:
                f = report(call, args[2], f"`{name}` opts in to")
                if f:
                    yield f
        for ks in ctx.nodes("kernel_call_syntax"):
            exprs = [n for n in ks.named_children if n.type != "comment"]
            if len(exprs) >= 3:
                f = report(ks, exprs[2], "this launch requests")
                if f:
                    yield f
        for name, call, args in calls(ctx, ("hipLaunchKernelGGL",)):
            if len(args) >= 4:
                f = report(call, args[3], "this launch requests")
                if f:
                    yield f
        for name, call, args in calls(ctx, ("cudaLaunchKernel", "hipLaunchKernel",
                                            "cudaLaunchCooperativeKernel",
                                            "hipLaunchCooperativeKernel")):
            if len(args) >= 5:
                f = report(call, args[4], f"`{name}` requests")
                if f:
                    yield f
        for fld in ctx.identifiers(("dynamicSmemBytes",), kinds={"field_identifier"}):
            fe = fld.parent
            asg = fe.parent if fe is not None else None
            if asg is not None and asg.type == "assignment_expression" and \
                    asg.child_by_field_name("left") == fe:
                f = report(asg, asg.child_by_field_name("right"), "`dynamicSmemBytes` requests")
                if f:
                    yield f


# -- PT403 ------------------------------------------------------------------------------------
_CACHECFG = ("cudaFuncSetCacheConfig", "hipFuncSetCacheConfig", "cudaDeviceSetCacheConfig",
             "hipDeviceSetCacheConfig", "cudaDeviceSetSharedMemConfig", "hipDeviceSetSharedMemConfig",
             "cudaFuncSetSharedMemConfig", "hipFuncSetSharedMemConfig", "cuFuncSetCacheConfig",
             "cuCtxSetCacheConfig", "cuCtxSetSharedMemConfig", "hipCtxSetCacheConfig",
             "hipCtxSetSharedMemConfig")
_CARVEOUT = ("cudaFuncAttributePreferredSharedMemoryCarveout",
             "hipFuncAttributePreferredSharedMemoryCarveout",
             "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT",
             "HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT")


@register
class SmemCarveoutCacheConfig(Rule):
    """Shared-memory carveout or cache/bank configuration call.

    ## What it finds
    Calls of `cudaFuncSetCacheConfig`, `cudaDeviceSetCacheConfig`,
    `cudaDeviceSetSharedMemConfig`, `cudaFuncSetSharedMemConfig` (and their HIP and driver
    spellings) and `cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, n)`.

    ## Why it breaks on AMD
    HIP maps these calls, but AMD's LDS is a structure separate from the L1 cache, so there is
    no carveout to trade: the calls are hints with probably no effect. The bank-size
    configuration is deprecated since CUDA 12.4.

    ## Example
    ```cpp
    cudaFuncSetCacheConfig(stencil, cudaFuncCachePreferShared);
    ```

    ## Use instead
    Drop the call, or keep it under `#ifndef __HIP_PLATFORM_AMD__`; tune LDS use by tile size.

    ## References
    - HIPIFY runtime API support table (cache and shared-memory configuration rows)
    - HIP documentation, hardware implementation (LDS and cache hierarchy)
    """
    code = "PT403"
    name = "smem-carveout-cache-config"
    severity = Severity.INFO
    triggers = (b"CacheConfig", b"SharedMemConfig", b"SharedMemoryCarveout", b"SHARED_MEMORY_CARVEOUT")

    def check(self, ctx: RuleContext) -> Iterator:
        for name, call, args in calls(ctx, _CACHECFG):
            if nvidia_only(ctx, call):
                continue
            yield self.finding(
                ctx, call.child_by_field_name("function"),
                f"`{name}` configures an L1/shared-memory split or bank size that AMD GPUs do not "
                f"have (LDS is separate from L1), so it has no effect there; drop it or guard it "
                f"with #ifndef __HIP_PLATFORM_AMD__")
        for name, call, args in calls(ctx, _SETATTR):
            if len(args) >= 2 and ctx.text(args[1]).split("::")[-1] in _CARVEOUT \
                    and not nvidia_only(ctx, call):
                yield self.finding(
                    ctx, args[1],
                    f"`{ctx.text(args[1])}` sets a shared-memory carveout; AMD's LDS is separate "
                    f"from L1, so the hint has no effect there; drop it or guard it with "
                    f"#ifndef __HIP_PLATFORM_AMD__")


# -- PT404 / PT405 ----------------------------------------------------------------------------
_LB = re.compile(rb"\b__launch_bounds__\s*\(")


def _split_args(data: bytes, open_paren: int) -> tuple[list[tuple[int, int]], int] | None:
    """Top-level comma-separated argument spans of the parenthesis at `open_paren`.

    Commas inside template argument lists (`f<A, B>::value`) do not split: a `<` that follows
    an identifier opens one. Returns None when the brackets do not balance."""
    depth, angle, start, spans = 0, 0, open_paren + 1, []
    i = open_paren
    while i < len(data):
        ch = data[i:i + 1]
        if ch in (b"(", b"[", b"{"):
            depth += 1
        elif ch in (b")", b"]", b"}"):
            depth -= 1
            if depth == 0:
                if angle:
                    return None
                spans.append((start, i))
                return [s for s in spans if data[s[0]:s[1]].strip()] or [], i + 1
        elif ch == b"<" and data[i + 1:i + 2] not in (b"<", b"=") and data[i - 1:i] != b"<":
            j = i - 1
            while j > open_paren and data[j:j + 1] in (b" ", b"\t", b"\n"):
                j -= 1
            if re.match(rb"[\w]", data[j:j + 1]):
                angle += 1
        elif ch == b">" and angle and data[i - 1:i] != b"-":
            angle -= 1
        elif ch == b"," and depth == 1 and not angle:
            spans.append((start, i))
            start = i + 1
        i += 1
    return None


def launch_bounds(ctx: RuleContext):
    """(start, end, [(arg_start, arg_end), ...]) for each `__launch_bounds__(...)` in code."""
    out = []
    for m in _LB.finditer(ctx.data):
        if not in_code(ctx, m.start(), m.start() + 17):
            continue
        sp = _split_args(ctx.data, m.end() - 1)
        if sp is None:
            continue
        args, end = sp
        out.append((m.start(), end, args))
    return out


def _arg_value(ctx: RuleContext, span, shadow) -> int | None:
    node = ctx.root.descendant_for_byte_range(*span) if span else None
    text = ctx.data[span[0]:span[1]].decode("utf-8", "replace").strip()
    # prefer the tree node when it covers exactly the argument (keeps template shadowing)
    if node is not None and ctx.btext(node).strip() == text.encode() and node.type != "ERROR":
        return consts(ctx).eval(node, shadow)
    if any(tok in shadow for tok in re.findall(r"[A-Za-z_]\w*", text)):
        return None
    return consts(ctx).text(text)


def _comma_outside_parens(raw: bytes) -> bool:
    depth = 0
    for ch in raw:
        if ch == 0x28:        # (
            depth += 1
        elif ch == 0x29:      # )
            depth -= 1
        elif ch == 0x2C and depth == 0:
            return True
    return False


def _short(raw: bytes, limit: int = 40) -> str:
    text = " ".join(raw.decode("utf-8", "replace").split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _lb_shadow(ctx: RuleContext, pos: int) -> frozenset[str]:
    node = ctx.root.descendant_for_byte_range(pos, pos + 1)
    fn = enclosing_function(node) if node is not None else None
    if node is not None and node.type == "function_definition":
        fn = node
    return shadowed_names(ctx, fn) if fn is not None else frozenset()


@register
class LaunchBoundsMinBlocks(Rule):
    """`__launch_bounds__` second argument means waves per EU on AMD, not blocks per SM.

    ## What it finds
    `__launch_bounds__(MAX_THREADS, MIN_BLOCKS)` with a second argument other than 1.

    ## Why it breaks on AMD
    In CUDA the second parameter is the minimum number of resident blocks per multiprocessor.
    HIP passes it to `amdgpu_waves_per_eu`: the minimum number of waves per execution unit
    (SIMD). Register allocation and occupancy change silently. The HIP kernel-language guide
    converts with `MIN_WARPS_PER_EU = MIN_BLOCKS_PER_MP * MAX_THREADS / 32`, which itself assumes
    32-wide warps (a block of 256 threads is 4 waves on wave64 targets, spread over 4 SIMDs per
    CU). A second argument of 1 means "no occupancy constraint" on both and is not reported.

    ## Example
    ```cpp
    __global__ void __launch_bounds__(256, 4) reduce(const float* x, float* y);
    ```

    ## Use instead
    Recompute the value for the occupancy wanted, or state it explicitly with
    `__attribute__((amdgpu_flat_work_group_size(1, 256), amdgpu_waves_per_eu(n)))` under an
    AMD guard.

    ## References
    - HIP kernel language reference, `__launch_bounds__` section
    - ROCm 7.2 `hip/amd_detail/amd_hip_runtime.h` (`launch_bounds_impl1` expands to
      `amdgpu_waves_per_eu(minBlocksPerMultiprocessor)`)
    """
    code = "PT404"
    name = "launch-bounds-min-blocks"
    severity = Severity.WARNING
    triggers = (b"__launch_bounds__",)

    def check(self, ctx: RuleContext) -> Iterator:
        for start, end, args in launch_bounds(ctx):
            if len(args) != 2:
                continue
            node = ctx.root.descendant_for_byte_range(start, end)
            if node is not None and (nvidia_only(ctx, node) or amd_only(ctx, node)):
                continue
            shadow = _lb_shadow(ctx, start)
            mx, mn = (_arg_value(ctx, a, shadow) for a in args)
            mn_text = _short(ctx.data[args[1][0]:args[1][1]])
            mx_text = _short(ctx.data[args[0][0]:args[0][1]])
            if mn is not None and mn <= 1:
                continue
            if mx is not None and mn is not None:
                conv = (f"; the HIP guide's conversion MIN_BLOCKS * MAX_THREADS / 32 gives "
                        f"{mn * mx // 32}, and {mn} blocks of {mx} threads are "
                        f"{mn * -(-mx // 64)} waves per CU on wave64 targets")
            else:
                conv = "; the HIP guide converts with MIN_BLOCKS * MAX_THREADS / 32"
            yield self.finding(
                ctx, (start, end),
                f"`__launch_bounds__({mx_text}, {mn_text})`: HIP reads the second argument "
                f"`{mn_text}` as minimum waves per execution unit (amdgpu_waves_per_eu), not "
                f"minimum blocks per multiprocessor{conv}; recompute it for the occupancy you "
                f"want or use amdgpu_waves_per_eu explicitly")


@register
class LaunchBoundsUnsupportedForm(Rule):
    """`__launch_bounds__` with a cluster argument or more than 1024 threads.

    ## What it finds
    The CUDA 12 three-argument form `__launch_bounds__(max, min, maxBlocksPerCluster)`, and a
    first argument (maximum threads per block) above 1024.

    ## Why it breaks on AMD
    HIP documents only two parameters, and AMD has no thread-block clusters. HIP's macro picks
    its implementation by argument position, so a third argument expands to a call of that
    argument: a compile error. A block holds at most 1024 threads on both vendors
    (16 wavefronts on wave64), so a larger maximum is rejected by the
    `amdgpu_flat_work_group_size` attribute.

    ## Example
    ```cpp
    __global__ void __launch_bounds__(256, 1, 2) cluster_kernel(float* x);
    ```

    ## Use instead
    Drop the cluster argument (guard it with `#ifndef __HIP_PLATFORM_AMD__`), and keep the
    maximum threads per block at 1024 or below.

    ## References
    - HIP kernel language reference, `__launch_bounds__` (two parameters)
    - ROCm 7.2 `hip/amd_detail/amd_hip_runtime.h` (`select_impl_` dispatch of
      `__launch_bounds__`)
    - HIP FAQ (maximum threads per block: 1024)
    """
    code = "PT405"
    name = "launch-bounds-unsupported-form"
    severity = Severity.ERROR
    fix = "safe"
    triggers = (b"__launch_bounds__",)

    def check(self, ctx: RuleContext) -> Iterator:
        for start, end, args in launch_bounds(ctx):
            node = ctx.root.descendant_for_byte_range(start, end)
            if node is not None and nvidia_only(ctx, node):
                continue
            text = _short(ctx.data[start:end], 80)
            # HIP's __launch_bounds__ is a variadic macro: the preprocessor splits a template
            # argument list (`Traits<A, B>::kThreads`) at its commas. Parentheses keep it whole.
            wrap = [a for a in args if _comma_outside_parens(ctx.data[a[0]:a[1]])]
            if wrap and len(args) <= 2:
                fx = self.make_fix([e for a in wrap for e in (Edit(a[0], a[0], b"("),
                                                             Edit(a[1], a[1], b")"))],
                                   Applicability.SAFE, "parenthesize the template expression")
                yield self.finding(
                    ctx, (start, end),
                    f"`{text}`: HIP's __launch_bounds__ is a macro, so the commas of the template "
                    f"arguments split it into extra arguments; wrap the expression in parentheses",
                    fix=fx)
                continue
            if len(args) >= 3:
                yield self.finding(
                    ctx, (start, end),
                    f"`{text}` has a third (cluster) argument: HIP's __launch_bounds__ takes at "
                    f"most two and AMD has no thread-block clusters; drop the extra argument")
                continue
            if args:
                mx = _arg_value(ctx, args[0], _lb_shadow(ctx, start))
                if mx is not None and mx > 1024:
                    yield self.finding(
                        ctx, (start, end),
                        f"`{text}` allows {mx} threads per block; AMD GPUs (like NVIDIA's) run "
                        f"at most 1024, so the attribute is rejected; use 1024 or less")


# -- PT406 ------------------------------------------------------------------------------------
def _dim3(ctx: RuleContext, node, shadow, fn_body) -> tuple[int, int, int] | None:
    """Values of a launch dimension: a scalar, `dim3(x, y, z)`, or a local `dim3 v(...)`."""
    c = consts(ctx)
    if node is None:
        return None
    if node.type == "call_expression" and call_name(ctx, node) == "dim3":
        args = node.child_by_field_name("arguments")
        vals = [c.eval(a, shadow) for a in args.named_children] if args is not None else []
        if not vals or any(v is None for v in vals) or len(vals) > 3:
            return None
        vals += [1] * (3 - len(vals))
        return tuple(vals)
    if node.type == "identifier" and fn_body is not None:
        name = ctx.text(node)
        found = None
        for d in _walk(fn_body):
            if d.type == "declaration" and d.child_by_field_name("type") is not None and \
                    ctx.text(d.child_by_field_name("type")) == "dim3":
                for dd in d.children_by_field_name("declarator"):
                    if dd.type == "init_declarator" and ctx.text(dd.child_by_field_name("declarator")) == name:
                        if found is not None:
                            return None
                        val = dd.child_by_field_name("value")
                        if val is None or val.type not in ("argument_list", "initializer_list"):
                            return None
                        vals = [c.eval(a, shadow) for a in val.named_children]
                        if not vals or any(v is None for v in vals) or len(vals) > 3:
                            return None
                        found = tuple(vals + [1] * (3 - len(vals)))
            elif d.type == "assignment_expression" or d.type == "update_expression":
                left = d.child_by_field_name("left") or d.child_by_field_name("argument")
                if left is not None and re.match(rf"{re.escape(name)}\b", ctx.text(left)):
                    return None
        if found is not None:
            return found
    v = c.eval(node, shadow)
    return (v, 1, 1) if v is not None else None


@register
class GridSize2p32(Rule):
    """Launch whose grid size times block size reaches 2^32 in a dimension.

    ## What it finds
    Kernel launches (`k<<<grid, block>>>`, `hipLaunchKernelGGL`) whose grid and block dimensions
    are constant expressions (literals, constants, `dim3(...)` or a local `dim3` initialised
    with constants) and `gridDim.d * blockDim.d >= 2^32` in some dimension.

    ## Why it breaks on AMD
    HIP does not support `gridDim * blockDim >= 2^32` in any dimension: AMD dispatches count
    work-items, not blocks, in 32-bit grid sizes. CUDA allows up to 2^31 - 1 blocks in x, so a
    one-thread-per-element launch over 2^32 or more elements works there and fails on AMD.

    ## Example
    ```cpp
    constexpr size_t N = 1ull << 33;
    scale<<<N / 256, 256>>>(x, N);
    ```

    ## Use instead
    A grid-stride loop with a grid capped to a few blocks per CU, or split the launch.

    ## References
    - HIP FAQ (grid dimension limits)
    - HIP kernel language reference, built-in variables (`gridDim`, `blockDim`)
    """
    code = "PT406"
    name = "grid-size-2p32"
    severity = Severity.ERROR
    triggers = (b"<<<", b"hipLaunchKernelGGL")

    def check(self, ctx: RuleContext) -> Iterator:
        launches = []
        for ks in ctx.nodes("kernel_call_syntax"):
            exprs = [n for n in ks.named_children if n.type != "comment"]
            if len(exprs) >= 2:
                launches.append((ks, exprs[0], exprs[1]))
        for name, call, args in calls(ctx, ("hipLaunchKernelGGL",)):
            if len(args) >= 3:
                launches.append((call, args[1], args[2]))
        for node, g, b in launches:
            if nvidia_only(ctx, node):
                continue
            fn = enclosing_function(node)
            shadow = shadowed_names(ctx, fn) if fn is not None else frozenset()
            body = fn.child_by_field_name("body") if fn is not None else None
            gd, bd = _dim3(ctx, g, shadow, body), _dim3(ctx, b, shadow, body)
            if gd is None or bd is None:
                continue
            for axis, gv, bv in zip("xyz", gd, bd):
                if gv * bv >= 1 << 32:
                    yield self.finding(
                        ctx, node,
                        f"this launch has gridDim.{axis} * blockDim.{axis} = {gv} * {bv} = "
                        f"{gv * bv} threads, at or above 2^32, which HIP does not support; use a "
                        f"grid-stride loop with a smaller grid")
                    break


# -- PT407 ------------------------------------------------------------------------------------
_MAXRREG_BUILD = re.compile(rb"(?<![\w-])(?:-Xptxas[ =]+)?--?maxrregcount(?:[ =]+[\w${}]+)?")
_MAXNREG = re.compile(rb"\b__maxnreg__\s*\(")


@register
class MaxRRegCount(Rule):
    """Register cap (`-maxrregcount`, `__maxnreg__`) that HIP-Clang does not support.

    ## What it finds
    `--maxrregcount` / `-maxrregcount` (also through `-Xptxas`) in CMake files and Makefiles, and
    the CUDA 12.4 `__maxnreg__(N)` kernel attribute in sources.

    ## Why it breaks on AMD
    HIP-Clang does not support `--maxrregcount`: the flag is rejected or the intent is lost, so
    register pressure and occupancy differ. `__maxnreg__` is not defined by HIP, so a source
    that uses it does not compile.

    ## Example
    ```cmake
    target_compile_options(solver PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-maxrregcount=64>)
    ```

    ## Use instead
    `__launch_bounds__(MAX_THREADS)` or `__attribute__((amdgpu_waves_per_eu(n)))` on the kernel,
    for the occupancy wanted.

    ## References
    - HIP kernel language reference, maxregcount section
    """
    code = "PT407"
    name = "maxrregcount"
    severity = Severity.WARNING
    languages = ("cuda", "build")
    triggers = (b"maxrregcount", b"__maxnreg__")

    def check(self, ctx: RuleContext) -> Iterator:
        if ctx.tree is None:
            pos = 0
            for line in ctx.data.split(b"\n"):
                code = line.split(b"#", 1)[0] if line.lstrip().startswith(b"#") else line
                for m in _MAXRREG_BUILD.finditer(code):
                    s = pos + m.start()
                    flag = m.group(0).decode("utf-8", "replace")
                    yield self.finding(
                        ctx, (s, pos + m.end()),
                        f"`{flag}` has no HIP-Clang equivalent; for the AMD build drop it and "
                        f"bound registers with __launch_bounds__ or amdgpu_waves_per_eu on the "
                        f"kernels")
                pos += len(line) + 1
            return
        for m in _MAXNREG.finditer(ctx.data):
            if not in_code(ctx, m.start(), m.start() + 11):
                continue
            node = ctx.root.descendant_for_byte_range(m.start(), m.start() + 11)
            if node is not None and nvidia_only(ctx, node):
                continue
            sp = _split_args(ctx.data, m.end() - 1)
            end = sp[1] if sp else m.end()
            yield self.finding(
                ctx, (m.start(), end),
                f"`{ctx.data[m.start():end].decode('utf-8', 'replace')}` is not defined by HIP "
                f"and does not compile; drop it (guard it with #ifndef __HIP_PLATFORM_AMD__) and "
                f"use __launch_bounds__ or amdgpu_waves_per_eu",
                severity=Severity.ERROR)
