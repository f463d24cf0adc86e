"""A model of a file's conditional preprocessor directives (`#if`/`#ifdef`/`#elif`/`#else`).

It evaluates each branch in two worlds, HIP-Clang for AMD ("amd") and nvcc ("nv"), knowing which
macros each defines and that a project's vendor flags (`USE_ROCM`, `GGML_USE_HIP`) name AMD. The
rules use it to find guards that silently change meaning on AMD; the rewriter uses it to leave
the NVIDIA side of a dual-vendor file alone.

`PPState(view)` takes any object with `.data` (bytes): its directives are decided from the bytes
alone (`porter.rewrite.lex.Directives`, as the preprocessor decides them), so the rewriter, the
project pre-pass (no parse) and the rules read the same model of the same file, parsed or not.
`porter.analysis.vendor` turns it into the question rules ask ("is this byte compiled for AMD, for
NVIDIA, for both?").
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate

from ..rewrite.lex import directives

# -- macro worlds ------------------------------------------------------------------------------
# Verified with clang-22 -x hip -dM -E (host and device passes, --offload-arch=gfx942): HIP-Clang
# defines __HIP__, __HIPCC__, __clang__, __AMDGCN__ and, in the device pass, __HIP_DEVICE_COMPILE__,
# __GFX9__, __gfx942__; it defines none of __CUDA_ARCH__, __CUDACC__, __NVCC__, __CUDA__.
# hip/hip_common.h defines __HIP_PLATFORM_AMD__ under clang+HIP.
NV_ONLY_MACROS = frozenset(
    {
        "__CUDA_ARCH__",
        "__CUDA_ARCH_LIST__",
        "__CUDA_ARCH_SPECIFIC__",
        "__CUDA_ARCH_FAMILY_SPECIFIC__",
        "__NVCC__",
        "__CUDACC__",
        "__CUDACC_RTC__",
        "__CUDACC_VER_MAJOR__",
        "__CUDACC_VER_MINOR__",
        "__CUDACC_VER_BUILD__",
        "__CUDACC_VER__",
        "__CUDACC_DEBUG__",
        "__CUDACC_RDC__",
        "__CUDACC_EWP__",
        "__CUDACC_RELAXED_CONSTEXPR__",
        "__CUDACC_EXTENDED_LAMBDA__",
        "__CUDA__",
        "__NVCOMPILER",
        "__NVCOMPILER_CUDA__",
        "__HIP_PLATFORM_NVIDIA__",
        "__HIP_PLATFORM_NVCC__",
        "CUDART_VERSION",
        "CUDA_VERSION",
        "__CUDA_API_VERSION",
    }
)
_NV_PREFIX = ("__CUDA_ARCH_FEAT_", "__CUDACC_VER")
# defined on the NVIDIA side when compiling with nvcc (value unknown or 1)
_NV_DEFINED = {"__NVCC__": 1, "__CUDACC__": 1}
_AMD_TOKENS = frozenset(
    {
        "HIP",
        "ROCM",
        "AMD",
        "HCC",
        "AMDGCN",
        "AMDGPU",
        "HIPCC",
        "HIPBLAS",
        "HIPBLASLT",
        "HIPRTC",
        "ROCBLAS",
        "MIOPEN",
        "CDNA",
        "RDNA",
    }
)
_AMD_OFFICIAL = {"__HIP_PLATFORM_AMD__": 1, "__HIP_PLATFORM_HCC__": 1, "__HIP__": 1, "__HIPCC__": 1}
_AMD_UNKNOWN = re.compile(
    r"^(?:__HIP_DEVICE_COMPILE__|__AMDGCN__|__AMDGCN_\w+|__gfx\w+__"
    r"|__GFX\d+\w*__"
    r"|__HIP_NO_\w+|__HIP_ARCH_\w+|__HIPCC_RTC__|\w*VERSION\w*)$"
)


#: Distinct macro names the classifications below remember per process (a tree's #if conditions
#: name a few thousand).
_NAME_CACHE = 16384
_GFX_TOKEN = re.compile(r"GFX\d+\w*")


@lru_cache(maxsize=_NAME_CACHE)
def is_amd_macro(name: str) -> bool:
    """A macro that names AMD/HIP/ROCm: official (`__HIP_PLATFORM_AMD__`, `__HIPCC__`, `__gfx942__`)
    or a project's own flag (`USE_ROCM`, `GGML_USE_HIP`)."""
    if name in ("__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__"):
        return False
    toks = [t.upper() for t in name.split("_") if t]
    return any(t in _AMD_TOKENS or _GFX_TOKEN.fullmatch(t) for t in toks)


def is_nv_macro(name: str) -> bool:
    return name in NV_ONLY_MACROS or name.startswith(_NV_PREFIX)


# HIP's own NVIDIA-platform macros: a test of one of them is a vendor switch like an AMD one.
_NV_PLATFORM = frozenset({"__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__"})


@lru_cache(maxsize=_NAME_CACHE)
def is_vendor_macro(name: str) -> bool:
    """A macro whose test picks a vendor: an AMD/HIP/ROCm one (`is_amd_macro`) or HIP's
    NVIDIA-platform macros (`#ifdef __HIP_PLATFORM_NVIDIA__ ... #else ... #endif`)."""
    return name in _NV_PLATFORM or is_amd_macro(name)


@lru_cache(maxsize=_NAME_CACHE)
def macro(name: str, world: str) -> tuple[bool | None, int | None]:
    """(defined?, value) of a macro in world "amd" (HIP-Clang) or "nv" (nvcc); None = unknown."""
    if world == "amd":
        if is_nv_macro(name):
            return False, 0
        if name in _AMD_OFFICIAL:
            return True, _AMD_OFFICIAL[name]
        if is_amd_macro(name):
            if _AMD_UNKNOWN.match(name):
                return (True, None) if "VERSION" in name else (None, None)
            return True, 1  # project flag set by its ROCm build
        return None, None
    # nvcc
    if name in _NV_DEFINED:
        return True, _NV_DEFINED[name]
    if (
        name in ("__HIPCC__", "__HIP_DEVICE_COMPILE__", "__HIP_PLATFORM_NVIDIA__")
        or "VERSION" in name
    ):
        return None, None  # HIP-on-NVIDIA defines some of these
    if is_amd_macro(name):
        return False, 0
    return None, None


#: Distinct condition texts parse_cond remembers per process.
_COND_CACHE = 4096

# -- preprocessor expressions ------------------------------------------------------------------
_TOK = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*|(?P<id>[A-Za-z_]\w*)"
    r"|(?P<chr>'(?:\\.|[^'])*')|(?P<op>&&|\|\||==|!=|>=|<=|<<|>>|[-+*/%<>!~&|^()?:,]))"
)


_OCTAL = re.compile(r"0\d+")


def _tokens(text: str):
    out: list[tuple[str, object]] = []
    pos = 0
    while pos < len(text):
        m = _TOK.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == "":
                break
            out.append(("bad", text[pos]))
            pos += 1
            continue
        pos = m.end()
        if m.group("num"):
            s = m.group("num")
            try:
                out.append(("num", int(s, 8) if _OCTAL.fullmatch(s) else int(s, 0)))
            except ValueError:  # `09`: not an octal constant (the preprocessor rejects it)
                out.append(("bad", s))
        elif m.group("id"):
            out.append(("id", m.group("id")))
        elif m.group("chr"):
            out.append(("num", None))
        else:
            out.append(("op", m.group("op")))
    return out


#: Overridden values one Cond keeps (a handful in practice: bounded all the same).
_OVERRIDDEN_MAX = 64


@dataclass
class Cond:
    """A parsed #if condition: an evaluator per world, and the macro names it mentions."""

    text: str
    names: list[str]
    ast: object
    # world -> value with no override: a Cond is shared by every branch of every file whose
    # condition reads the same (parse_cond's cache), and its value in a world never changes
    _values: dict[str, int | None] = field(default_factory=dict, repr=False, compare=False)
    # (world, the override's items) -> value: the rules that override macros (PT301, PT302,
    # PT304) override the same names of the same condition in every file that holds it
    _overridden: dict[tuple, int | None] = field(default_factory=dict, repr=False, compare=False)

    def eval(self, world: str, override: dict | None = None) -> int | None:
        if override:
            try:
                key = (world, frozenset(override.items()))
            except TypeError:  # an unhashable override value: not kept
                return _eval(self.ast, world, override)
            found = self._overridden
            if key not in found:
                if len(found) >= _OVERRIDDEN_MAX:
                    found.clear()
                found[key] = _eval(self.ast, world, override)
            return found[key]
        values = self._values
        if world not in values:
            values[world] = _eval(self.ast, world, {})
        return values[world]


_BIN_PREC = [
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
]

_PREC = {op: level for level, ops in enumerate(_BIN_PREC) for op in ops}


class _Parser:
    def __init__(self, toks: list[tuple[str, object]]) -> None:
        self.t = toks
        self.i = 0
        self.names: list[str] = []

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else ("end", None)

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def expr(self):
        c = self.binary(0)
        if self.peek() == ("op", "?"):
            self.take()
            a = self.expr()
            if self.peek() == ("op", ":"):
                self.take()
            b = self.expr()
            return ("?", c, a, b)
        return c

    def binary(self, level):
        """The operators of `level` (an index of _BIN_PREC) and tighter ones, left-associative:
        the tree a recursive descent per level builds, by precedence climbing (one call per
        operand, not one per operand and level)."""
        return self._climb(self.unary(), level)

    def _climb(self, left, level):
        while True:
            kind, op = self.peek()
            op_level = _PREC.get(op) if kind == "op" else None
            if op_level is None or op_level < level:
                return left
            self.i += 1
            right = self.unary()
            while True:
                kind, nxt = self.peek()
                if kind != "op" or _PREC.get(nxt, -1) <= op_level:
                    break
                right = self._climb(right, op_level + 1)
            left = ("bin", op, left, right)

    def unary(self):
        kind, val = self.take()
        if kind == "op" and val in ("!", "-", "+", "~"):
            return ("un", val, self.unary())
        if kind == "op" and val == "(":
            e = self.expr()
            if self.peek() == ("op", ")"):
                self.take()
            return e
        if kind == "num":
            return ("num", val)
        if kind == "id":
            if val == "defined":
                paren = self.peek() == ("op", "(")
                if paren:
                    self.take()
                k2, name = self.take()
                if paren and self.peek() == ("op", ")"):
                    self.take()
                if k2 != "id":
                    return ("unk",)
                self.names.append(name)
                return ("def", name)
            if self.peek() == ("op", "("):  # function-like macro / __has_include(...)
                depth = 0
                while self.peek()[0] != "end":
                    k, v = self.take()
                    if (k, v) == ("op", "("):
                        depth += 1
                    elif (k, v) == ("op", ")"):
                        depth -= 1
                        if depth == 0:
                            break
                return ("unk",)
            self.names.append(val)
            return ("id", val)
        return ("unk",)


@lru_cache(maxsize=_COND_CACHE)
def parse_cond(text: str) -> Cond:
    """The parsed condition (cached: a tree's files repeat their guards; a Cond is not changed
    after parsing)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.DOTALL)
    text = re.sub(r"//.*", "", text)
    toks = _tokens(text)
    if any(k == "bad" for k, _ in toks) or any(
        k == "id" and v in ("__has_include", "__has_include_next") for k, v in toks
    ):
        p = _Parser([t for t in toks if t[0] == "id"])
        names = [v for k, v in toks if k == "id" and v != "defined"]
        return Cond(text.strip(), names, ("unk",))
    p = _Parser(toks)
    ast = p.expr()
    if p.i < len(toks):
        ast = ("unk",)
    return Cond(text.strip(), p.names, ast)


def _eval(node, world, override):
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "unk":
        return None
    if kind == "def":
        if node[1] in override:
            d = override[node[1]][0]
        else:
            d = macro(node[1], world)[0]
        return None if d is None else int(d)
    if kind == "id":
        if node[1] in ("true",):
            return 1
        if node[1] in ("false",):
            return 0
        return override[node[1]][1] if node[1] in override else macro(node[1], world)[1]
    if kind == "un":
        v = _eval(node[2], world, override)
        if v is None:
            return None
        return {"!": int(not v), "-": -v, "+": v, "~": ~v}[node[1]]
    if kind == "?":
        c = _eval(node[1], world, override)
        a, b = _eval(node[2], world, override), _eval(node[3], world, override)
        if c is None:
            return a if a == b else None
        return a if c else b
    op, lhs, r = node[1], node[2], node[3]
    a = _eval(lhs, world, override)
    if op in ("&&", "||"):
        b = _eval(r, world, override)
        if op == "&&":
            if a == 0 or b == 0:
                return 0
            return 1 if a is not None and b is not None else None
        if (a is not None and a != 0) or (b is not None and b != 0):
            return 1
        return 0 if a is not None and b is not None else None
    b = _eval(r, world, override)
    if a is None or b is None:
        return None
    try:
        return {
            "==": lambda: int(a == b),
            "!=": lambda: int(a != b),
            "<": lambda: int(a < b),
            ">": lambda: int(a > b),
            "<=": lambda: int(a <= b),
            ">=": lambda: int(a >= b),
            "+": lambda: a + b,
            "-": lambda: a - b,
            "*": lambda: a * b,
            "/": lambda: int(a / b),
            "%": lambda: a % b,
            "<<": lambda: a << b,
            ">>": lambda: a >> b,
            "&": lambda: a & b,
            "|": lambda: a | b,
            "^": lambda: a ^ b,
        }[op]()
    except (ZeroDivisionError, ValueError, KeyError):
        return None


def _and(a, b):
    if a == 0 or b == 0:
        return 0
    return 1 if a is not None and b is not None else None


def _not(a):
    return None if a is None else int(not a)


# -- directive structure -----------------------------------------------------------------------
# Which `#` begin a directive, and where its name and its line end, is decided by
# `porter.rewrite.lex.Directives` (translation phases 1-3: splices, comments, string, character
# and raw-string literals, digit separators), the decider the rewriter's `#include`s use too.
# The conditional directives' names; `_CANDIDATE` finds each `#` that may begin one: a `#` then
# blanks and the start of such a name, or a splice or a comment that may hide one (`#i`
# backslash-newline `f`, `# /* c */ if`). Found from the `#` (a literal prefix Python's re scans
# for quickly), not with a `^`-anchored pattern tried at every byte.
_KINDS = {
    k.encode(): k for k in ("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif")
}
_CONDITIONAL = frozenset(_KINDS)
_CANDIDATE = re.compile(rb"#[ \t]*+(?:if|el|endif|[A-Za-z_]*+\\|/)")


def _directives(data: bytes) -> list[tuple[int, bytes, int, int]]:
    """(start of the `#`'s physical line, directive name, offset after the name, offset after
    its logical line) of each conditional directive of the file, in order."""
    if b"#" not in data:
        return []
    return directives(data).directive_lines(_CANDIDATE, _CONDITIONAL)


@dataclass(eq=False)
class Branch:
    """One branch of an `#if` chain. Its condition is parsed when first read (`cond`, `raw`):
    most files are asked about a few positions, and parsing every directive's condition up front
    cost as much as the rules that ask."""

    kind: str  # if / ifdef / ifndef / elif / elifdef / elifndef / else
    text: bytes  # the directive's text after the keyword
    start: int  # byte offset of the directive
    line_end: int  # byte offset after the directive line (body start)
    cond_start: int = 0  # byte range of the condition text
    cond_end: int = 0
    end: int = 0  # byte offset of the next directive of the group (body end)
    group: Group | None = None
    index: int = 0
    _cond: Cond | None | bool = field(default=False, repr=False)
    _raw: str | None = field(default=None, repr=False)

    @property
    def cond(self) -> Cond | None:
        """The parsed condition; None for #else."""
        c = self._cond
        if c is False:
            c = self._cond = _branch_cond(self.kind, self._src())
        return c  # type: ignore[return-value]

    @property
    def raw(self) -> str:
        """The condition as written (comments dropped, white space collapsed)."""
        r = self._raw
        if r is None:
            r = self._raw = _raw(self._src())
        return r

    def _src(self) -> str:
        """The condition text with its splices removed (phase 2 joins the lines)."""
        return self.text.decode("utf-8", "replace").replace("\\\r\n", "").replace("\\\n", "")


def _branch_cond(kind: str, text: str) -> Cond | None:
    if kind == "else":
        return None
    if kind in ("ifdef", "elifdef", "ifndef", "elifndef"):
        words = _uncomment(text).split()  # `#ifdef /* c */ X`: X
        test = f"defined({words[0] if words else ''})"
        return parse_cond(test if kind.endswith("ifdef") else "!" + test)
    return parse_cond(text)


# a comment in a condition's text (its splices removed): a block comment may span lines
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


def _uncomment(text: str) -> str:
    """The text with each comment a space (phase 3)."""
    return _COMMENT.sub(" ", text) if "/" in text else text


@lru_cache(maxsize=_COND_CACHE)
def _raw(text: str) -> str:
    return re.sub(r"\s+", " ", _uncomment(text)).strip()


@dataclass
class Group:
    branches: list[Branch] = field(default_factory=list)
    end: int = 0  # end of the #endif line
    parent: Branch | None = None
    _vendor: bool | None = field(default=None, repr=False, compare=False)

    def mentions_amd(self) -> bool:
        return any(
            b.cond is not None and any(is_amd_macro(n) for n in b.cond.names) for b in self.branches
        )

    def mentions(self, pred) -> bool:
        """Does a condition of this `#if` chain name a macro for which `pred(name)` is true?"""
        return any(b.cond is not None and any(pred(n) for n in b.cond.names) for b in self.branches)

    def mentions_vendor(self) -> bool:
        v = self._vendor
        if v is None:  # (asked again for each position the vendor model is asked about)
            v = self._vendor = self.mentions(is_vendor_macro)
        return v


#: (bytes, PPState of them) of the last file modelled: the rewriter builds the model of a file,
#: then its rules ask for it again when the rewriter kept none (no vendor switch)
_last_model: list = [None, None]


class PPState:
    """Conditional-directive structure of one file. Made from the same bytes object twice in
    a row, it is the same model (it reads nothing else of its view, and its memos are pure)."""

    def __new__(cls, ctx) -> PPState:
        last = _last_model[1]
        if _last_model[0] is ctx.data and type(last) is cls:
            return last
        return super().__new__(cls)

    def __init__(self, ctx) -> None:
        data: bytes = ctx.data
        if self.__dict__:  # the model of these bytes, made before (see __new__)
            return
        _last_model[:] = (data, self)
        self.data = data
        self.groups: list[Group] = []
        self.branches: list[Branch] = []
        self._starts: list[int] | None = None
        self._dstarts: list[int] | None = None
        self._memo: dict = {}
        self._paths: dict[tuple[int, str], int | None] = {}
        self._nl: list[int] | None = None
        stack: list[Group] = []
        for start, name, name_end, eol in _directives(data):
            kind = _KINDS[name]
            if kind in ("if", "ifdef", "ifndef"):
                # the new group's parent: the innermost open branch
                parent = stack[-1].branches[-1] if stack and stack[-1].branches else None
                g = Group(parent=parent)
                stack.append(g)
                self.groups.append(g)
            if not stack:
                continue  # stray #elif/#else/#endif (header fragment)
            g = stack[-1]
            if g.branches:
                g.branches[-1].end = start
            if kind == "endif":
                g.end = eol
                stack.pop()
                continue
            b = Branch(
                kind,
                data[name_end:eol],
                start,
                eol,
                name_end,
                eol,
                end=len(data),
                group=g,
                index=len(g.branches),
            )
            g.branches.append(b)
            self.branches.append(b)
        for g in stack:  # unterminated
            g.end = len(data)
            if g.branches:
                g.branches[-1].end = len(data)

    def branch_at(self, pos: int) -> Branch | None:
        """Innermost branch whose body contains `pos`."""
        if not self.branches:
            return None
        if self._starts is None:
            self._starts = [b.line_end for b in self.branches]  # ascending (document order)
        i = bisect.bisect_right(self._starts, pos) - 1
        b = self.branches[i] if i >= 0 else None
        # branch bodies nest: the innermost one holding `pos` is the last one starting before it
        # or one that encloses it (scanning back over every earlier branch was quadratic in the
        # number of #if blocks: 16,000 of them took minutes)
        while b is not None and not b.line_end <= pos < b.end:
            b = b.group.parent if b.group is not None else None
        return b

    def on_directive_line(self, pos: int) -> bool:
        """`pos` is on a conditional directive's line (its condition)."""
        if self._dstarts is None:
            self._dstarts = [b.start for b in self.branches]
        i = bisect.bisect_right(self._dstarts, pos) - 1
        return i >= 0 and self.branches[i].start <= pos < self.branches[i].line_end

    def branch_value(self, b: Branch, world: str, override: dict | None = None):
        """Is branch `b` taken (given its group is reached)?"""
        if override is None:
            key = (id(b), world)
            if key not in self._memo:
                self._memo[key] = self.branch_value(b, world, {})
            return self._memo[key]
        v: int | None = 1
        assert b.group is not None  # every Branch is made inside its Group
        for prev in b.group.branches[: b.index]:
            v = _and(v, _not(prev.cond.eval(world, override) if prev.cond else 1))
        if b.cond is not None:
            v = _and(v, b.cond.eval(world, override))
        return v

    def path_value(self, pos: int, world: str) -> int | None:
        """Is the code at `pos` compiled in `world`? (1 yes, 0 no, None unknown). Decided by
        the innermost branch around `pos` (the chain up from it): once per branch and world."""
        inner = self.branch_at(pos)
        if inner is None:
            return 1
        key = (id(inner), world)
        paths = self._paths
        if key in paths:
            return paths[key]
        v: int | None = 1
        b: Branch | None = inner
        while b is not None:
            v = _and(v, self.branch_value(b, world))
            b = b.group.parent if b.group is not None else None
        paths[key] = v
        return v

    def enclosing(self, pos: int) -> Iterator[Branch]:
        """The branches around `pos`, innermost first."""
        b = self.branch_at(pos)
        while b is not None:
            yield b
            b = b.group.parent if b.group is not None else None

    def guarded_by(self, pos: int, pred) -> bool:
        """Is `pos` inside some branch (any side) of an `#if` chain naming a macro for which
        `pred(name)` is true (`#if !defined(__HIP_NO_IMAGE_SUPPORT)` ... `#else` ...)? `pred`
        may also be a tuple of strings: a macro whose name contains one of them."""
        if isinstance(pred, tuple):
            words = pred

            def pred(n: str) -> bool:
                return any(w in n for w in words)

        return any(b.group is not None and b.group.mentions(pred) for b in self.enclosing(pos))

    def dead_on_amd(self, pos: int) -> bool:
        return self.path_value(pos, "amd") == 0

    def amd_only(self, pos: int) -> bool:
        return self.path_value(pos, "nv") == 0

    def skip(self, pos: int) -> bool:
        """Code that HIP-Clang never compiles, or that only HIP-Clang compiles (already ported)."""
        return self.dead_on_amd(pos) or self.amd_only(pos)

    def lines(self, a: int, b: int) -> str:
        la, lb = self.line(a), self.line(max(a, b - 1))
        return f"line {la}" if la == lb else f"lines {la}-{lb}"

    def line(self, pos: int) -> int:
        """The 1-based line of offset `pos`: one more than the newlines before it."""
        if self._nl is None:
            # the offset after each newline, from the lines' lengths (a split and running sums
            # in C, not a regex match per line); the last line ends with no newline
            self._nl = list(accumulate(map((1).__add__, map(len, self.data.split(b"\n")))))
            self._nl.pop()
        return bisect.bisect_right(self._nl, pos) + 1
