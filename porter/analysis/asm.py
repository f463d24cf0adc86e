"""Inline assembly sites: every `asm`/`asm volatile`/`__asm__ __volatile__` statement of a file
(in code and in `#define` bodies, decided from the bytes as the preprocessor lexes them: no tree
is read) and `cuda::ptx::` wrapper calls, each lexed, classified as PTX or not (AMD GCN, x86
and ARM asm have no PTX opcodes such as `mov.u32` or PTX special registers) and given one family
(TMA, wgmma, cluster, PDL, mbarrier, cp.async, mma, special register, other PTX). `ctx.asm` is
the per-file `AsmSites`.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from ..parse.cuda import COMMENT_TYPES, STRING_TYPES
from ..rewrite.lex import directives, in_spans, matches_after
from .lazyre import re

if TYPE_CHECKING:
    from re import Match

    from tree_sitter import Node

# -- PTX recognition ---------------------------------------------------------------------------
_PTX_OPS = (
    "mov|ld|ldu|st|cvt|cvta|add|sub|mul|mad|fma|div|rem|abs|neg|min|max|setp|selp|set|slct|and|or|"
    "xor|not|shl|shr|prmt|bfe|bfi|brev|bfind|clz|popc|lop3|shf|shfl|vote|bar|barrier|membar|fence|"
    "red|atom|cp|mma|wmma|ldmatrix|stmatrix|movmatrix|wgmma|tcgen05|mbarrier|griddepcontrol|elect|"
    "setmaxnreg|tex|tld4|suld|sust|sured|prefetch|prefetchu|discard|applypriority|createpolicy|"
    "isspacep|match|redux|activemask|nanosleep|bra|call|ret|rcp|sqrt|rsqrt|sin|cos|lg2|ex2|tanh|"
    "testp|copysign|dp4a|dp2a|multimem|mapa|getctarank|tensormap|clusterlaunchcontrol|fns|szext|"
    "bmsk|cp\\.async|istypep|stacksave|stackrestore|alloca|trap|brkpt|exit|pmevent"
)
# the parts after an opcode that make it PTX (`ld.global`, `mov.u32`), each a whole part
_PTX_SUFFIXES = (
    r"[usbf]\d+(?:x\d+)?|bf16(?:x2)?|tf32|e[45]m[23]|pred|global|shared|local|const|param|generic|"
    r"nc|sync|aligned|rn|rz|rm|rp|rni|rzi|rmi|rpi|ftz|sat|satfinite|approx|full|lo|hi|wide|cta|gpu|"
    r"sys|cluster|acquire|release|relaxed|acq_rel|sc|ca|cg|cs|lu|cv|wb|wt|v\d|x\d|trans|row|col|up|"
    r"down|bfly|idx|ballot|any|all|uni|eq|ne|lt|le|gt|ge|inc|dec|exch|cas|async|bulk|tensor|"
    r"commit_group|wait_group|wait_all|arrive|expect_tx|try_wait|test_wait|init|L2|L1|evict_\w+|"
    r"volatile|weak|mmio|to|f4e|b4e|rc8|ecl|ecr|rc16|clamp|wrap|l|r|pack|relu|m\d+n\d+k\d+|"
    r"sp|proxy|tile|im2col|mbarrier|complete_tx|bytes|shared::\w+|global::\w+|noftz|mode|oob|"
    r"launch_dependents|wait|red|or|and|popc|pred|b4|b2|leaky|mask|ptx|fetch|or_sync"
)
# a `.` and a suffix that is its whole part: no suffix holds a `.` (not even `\w`), so one that
# ends before a `.` or at the end is the part
_PTX_SUFFIX_PART = re.compile(r"\.(?:" + _PTX_SUFFIXES + r")(?![^.])")
_DOTTED = re.compile(r"(?<![\w.%$])(" + _PTX_OPS + r")((?:\.[A-Za-z0-9_:]+)+)")
# _DOTTED without its look-behind, which would cost the regex engine its fast scan for the first
# letters of the opcodes: `_dotted` tests the byte before each match instead
_DOTTED_OP = re.compile(r"(" + _PTX_OPS + r")((?:\.[A-Za-z0-9_:]+)+)")
SPECIAL_REGS = (
    "laneid|warpid|nwarpid|smid|nsmid|gridid|clock64|clock_hi|clock|globaltimer_lo|"
    "globaltimer_hi|globaltimer|dynamic_smem_size|total_smem_size|aggr_smem_size|"
    "lanemask_eq|lanemask_lt|lanemask_le|lanemask_gt|lanemask_ge|pm[0-7](?:_64)?|"
    "envreg\\d+|cluster_\\w+|clusterid|nclusterid|is_explicit_cluster|ctaid|nctaid|tid|ntid"
)
_SPECIAL = re.compile(r"%%?(" + SPECIAL_REGS + r")\b")
_REG_DECL = re.compile(r"\.reg\s+\.[a-z]\w*|\.pred\b")
_DEBUG_ONLY = re.compile(r"^\s*(?:trap|brkpt)\s*;?\s*$")
_EXIT_ONLY = re.compile(r"^\s*exit\s*;?\s*$")

# family -> (pattern, rule code). First match wins, in this order.
FAMILIES = [
    (
        "tma",
        re.compile(
            r"cp\.async\.bulk|cp\.reduce\.async\.bulk|tensormap|prefetch\.tensor"
            r"|prefetch\.global\.tensormap"
        ),
    ),
    ("hopper", re.compile(r"wgmma\.|tcgen05\.|setmaxnreg\.|elect\.sync|fence\.proxy\.async")),
    (
        "cluster",
        re.compile(
            r"barrier\.cluster|%%?cluster_\w+|%%?n?clusterid|%%?is_explicit_cluster"
            r"|(?<![\w.])mapa\.|getctarank\.|shared::cluster|st\.async|red\.async"
        ),
    ),
    ("pdl", re.compile(r"griddepcontrol")),
    ("mbarrier", re.compile(r"mbarrier\.")),
    ("cp_async", re.compile(r"cp\.async\.")),
    (
        "mma",
        re.compile(
            r"(?<![\w.])mma\.(?:sync|sp)|ldmatrix\.|stmatrix\.|movmatrix\.|(?<![\w.])wmma\."
        ),
    ),
]
FAMILY_CODE = {
    "tma": "PT207",
    "hopper": "PT206",
    "cluster": "PT209",
    "pdl": "PT210",
    "mbarrier": "PT208",
    "cp_async": "PT203",
    "mma": "PT204",
    "special": "PT202",
    "generic": "PT201",
}

_ASM_KW = re.compile(
    rb"(asm|__asm__|__asm)(?:(?:\s|\\\r?\n)+(?:volatile|__volatile__|__volatile"
    rb"|inline|goto))*(?:\s|\\\r?\n)*\("
)
_PTX_NS = re.compile(rb"ptx(\s*::\s*)([A-Za-z_]\w*)")
_WORDCH = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")


def _word_start(data: bytes, pos: int) -> bool:
    """No identifier character right before pos (the regexes above have no look-behind, which
    would cost Python's re its fast literal-prefix scan)."""
    return pos == 0 or data[pos - 1] not in _WORDCH


@dataclass
class AsmSite:
    start: int
    end: int
    template: str  # concatenated template strings (escapes kept as text)
    in_macro: bool = False
    ptx: bool = False
    family: str | None = None
    ops: list[str] = field(default_factory=list)  # dotted PTX opcodes, in order
    special: list[str] = field(default_factory=list)  # special registers read
    libcu_ptx: str = ""  # `cuda::ptx::name` wrapper instead of asm

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end

    def what(self) -> str:
        if self.libcu_ptx:
            return f"`cuda::ptx::{self.libcu_ptx}` (a PTX wrapper)"
        ops = list(dict.fromkeys(self.ops))  # each once, in order
        shown = ", ".join(f"`{o}`" for o in ops[:3]) + (", ..." if len(ops) > 3 else "")
        return f"inline PTX {shown}" if shown else "inline PTX"


_ASM_TOKEN = re.compile(
    rb'"[^"\\]*(?:\\.[^"\\]*)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)|[():]|[A-Za-z_]\w*', re.S
)


# After the template (the first `:` at depth 1) only strings, comments and parentheses matter:
# the operands' names and colons are skipped by the regex engine, not one token at a time.
_ASM_REST = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)|[()]', re.S)


def _scan_parens(
    tokens: Iterator[Match[bytes]], depth: int, parts: list[str] | None
) -> tuple[int, int]:
    """Read `tokens` (strings and comments are single tokens, so their parentheses do not
    count) from `depth` open parentheses to the `)` that closes them: (0, offset after it).
    With `parts` (the template), its strings and macro names are collected and the scan also
    stops at the first `:` at depth 1: (1, offset after it). (depth, -1) if the tokens end."""
    for m in tokens:
        tok = m.group()
        c = tok[:1]
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
            if depth == 0:
                return 0, m.end()
        elif parts is None or c == b"/":
            continue  # the operands' strings and comments; comments in the template
        elif c == b'"':
            body = tok[1:-1] if len(tok) > 1 and tok.endswith(b'"') else tok[1:]
            parts.append(body.decode("utf-8", "replace"))
        elif c == b":":
            if depth == 1:
                return 1, m.end()
        else:
            parts.append(" {" + tok.decode() + "} ")
    return depth, -1


# The common template: string literals separated by white space, then the `:` or `)` that ends
# it. Matched at once, it gives what `_scan_parens` gives for it (the bodies of the strings), with
# no Python step per token; anything else in the template (a macro name, a comment, a line
# continuation) makes it fail, and the tokens are read one at a time.
# (`[^"\\]*(?:\\.[^"\\]*)*` is `(?:\\.|[^"\\])*` with a run of plain bytes read in one step)
_STRINGS = rb'\s*((?:"[^"\\]*(?:\\.[^"\\]*)*"\s*)*)'
_TEMPLATE_STRINGS = re.compile(_STRINGS + rb"([:)])", re.S)
_STRING_BODY = re.compile(rb'"([^"\\]*(?:\\.[^"\\]*)*)"', re.S)


def _operands_pattern(levels: int) -> bytes:
    """The operands after the template's `:` up to the `)` that closes `asm(`, as `_scan_parens`
    reads `_ASM_REST`'s tokens from depth 1, when they hold no unterminated string or comment
    and parentheses nested at most `levels` deep: runs of other bytes (a `/` that opens no
    comment is one), whole strings and comments (`//` to the line's end, `/*` to the first
    `*/`), and parenthesized groups of the same. Each step is decided by its first byte and
    each token has one end (no backtracking into a comment finds a `)` in it), so a failed
    match backtracks linearly."""
    other = rb'[^()"/]*'
    step = (
        rb'"[^"\\]*(?:\\.[^"\\]*)*"'
        rb"|/\*[^*]*\*+(?:[^/*][^*]*\*+)*/"
        rb"|//[^\n]*(?![^\n])"
        rb"|/(?![/*])"
    )
    group = b""
    for _ in range(levels):
        inner = step + (rb"|\(" + group + rb"\)" if group else b"")
        group = other + rb"(?:(?:" + inner + rb")" + other + rb")*"
    return group + rb"\)"


#: Parentheses nested in the operands that `_OPERANDS` reads at once (deeper ones are scanned).
_OPERAND_LEVELS = 4
_OPERANDS = re.compile(_operands_pattern(_OPERAND_LEVELS), re.S)
# The common statement at once: `_TEMPLATE_STRINGS`, then `)`, or `:` and `_OPERANDS` (the
# template's strings split one way only: a string given back leaves a `"` before the `:`/`)`)
_STATEMENT = re.compile(_STRINGS + rb"(?:\)|:" + _operands_pattern(_OPERAND_LEVELS) + rb")", re.S)


@lru_cache(maxsize=1)
def _lexers():
    """The compiled patterns' methods the lexing calls per site, looked up once (each look-up
    through a lazily compiled pattern costs a Python call)."""
    return (
        _STATEMENT.match,
        _TEMPLATE_STRINGS.match,
        _STRING_BODY.findall,
        _OPERANDS.match,
        _PLAIN_HEAD.match,
    )


def _lex_asm(data: bytes, pos: int, limit: int, need_end: bool = True) -> tuple[str, int]:
    """From the `(` after `asm`: (template text, end offset after the matching `)`). Without
    `need_end` (the caller knows the end: the tree's asm node) the operands are not read and the
    offset returned is the template's end."""
    assert data[pos : pos + 1] == b"("
    n = min(limit, len(data))
    statement, template, string_bodies, operands, _ = _lexers()
    m = statement(data, pos + 1, n) if need_end else None
    if m is not None:  # the whole statement
        bodies = string_bodies(m.group(1))
        joined = b"".join(bodies)  # ASCII: decoded at once as each part would be
        parts = (
            [joined.decode("ascii")]
            if joined.isascii()
            else [b.decode("utf-8", "replace") for b in bodies]
        )
        at = m.end()
    else:
        m = template(data, pos + 1, n)
        ops = None
        if m is not None:  # its operands are not `_OPERANDS` (or not needed)
            parts = [b.decode("utf-8", "replace") for b in string_bodies(m.group(1))]
            depth, at = (0 if m.group(2) == b")" else 1), m.end()
        else:
            parts = []
            depth, at = _scan_parens(_ASM_TOKEN.finditer(data, pos + 1, n), 1, parts)
            if depth and at >= 0 and need_end:  # at once when it can (depth is 1 here)
                ops = operands(data, at, n)
        if ops is not None:
            at = ops.end()
        elif depth and at >= 0 and need_end:  # stopped at the template's `:`: skip the operands
            _, at = _scan_parens(_ASM_REST.finditer(data, at, n), depth, None)
    text = "".join(parts)
    if "\\" in text:  # escaped newlines and tabs, and splices, are blanks
        text = text.replace("\\n", " ").replace("\\t", " ").replace("\\\n", " ")
    return text, at if at >= 0 else n


def _ptx_suffixes(dotted: str) -> bool:
    """Is one of the `.x.y` parts after a PTX opcode a PTX suffix?"""
    return _matchers()[6](dotted) is not None


def classify(site: AsmSite) -> None:
    """Set the site's ops, special registers, ptx and family from its template (a function of
    the template alone: a header repeats the same few templates, each classified once)."""
    ops, special, ptx, family = _classify(site.template)
    site.ops, site.special, site.ptx, site.family = list(ops), list(special), ptx, family


#: Distinct asm templates classify remembers per process.
_TEMPLATE_CACHE = 4096


# family -> substrings one of which every match of its FAMILIES pattern contains: a template
# holding none of them is not searched with the pattern (most templates are of no family)
FAMILY_HINTS = {
    "tma": ("cp.", "tensormap", "prefetch.tensor"),
    "hopper": ("wgmma.", "tcgen05.", "setmaxnreg.", "elect.sync", "fence.proxy.async"),
    "cluster": ("cluster", "mapa.", "getctarank.", "st.async", "red.async"),
    "pdl": ("griddepcontrol",),
    "mbarrier": ("mbarrier.",),
    "cp_async": ("cp.async.",),
    "mma": ("mma.", "matrix."),
}


class _WordOrMark:
    """The characters `_dotted` rejects a match after: `.`, `%`, `$`, and what `\\w` matches
    in a str pattern (`_` or alphanumeric)."""

    def __contains__(self, c: str) -> bool:
        return c in ".%$_" or c.isalnum()


_WORD_OR_MARK = _WordOrMark()


def _dotted(t: str) -> Iterator[Match[str]]:
    """What `_DOTTED.finditer(t)` finds: a match after a word character, `.`, `%` or `$` is
    dropped and the search goes on from the next character, as the look-behind would."""
    return matches_after(_DOTTED_OP, t, _WORD_OR_MARK)


# A dotted word: a run of identifier characters that no `\w`, `.`, `%` or `$` precedes, then
# its `.x.y` parts (`_DOTTED`'s group 2). Where every such word of a template is a PTX opcode,
# the words are `_DOTTED`'s matches: `_DOTTED` matches where a word is an opcode (an opcode is
# a whole word: a shorter one is followed by a letter, not `.`; `cp\.async` comes after `cp`,
# which always matches first), and nowhere else (a position inside a matched word follows an
# identifier character or `.`, as inside an opcode's match). A word that is no opcode sends the
# template to the `_DOTTED` scan: after its `::` an opcode may start (`x.shared::mov.u32`).
_DOTTED_WORD = re.compile(r"(?<![\w.%$])([A-Za-z0-9_]+)((?:\.[A-Za-z0-9_:]+)+)")
_PTX_OP_NAMES = frozenset(o for o in _PTX_OPS.split("|") if o.isalnum())


def _dotted_ops(t: str) -> list[str]:
    """The dotted PTX opcodes of a template (`_DOTTED` matches with a PTX suffix), in order."""
    matchers = _matchers()
    suffix = matchers[6]
    ops = []
    for w, parts in matchers[0](t):
        if w not in _PTX_OP_NAMES:
            return [m.group(1) + m.group(2) for m in _dotted(t) if suffix(m.group(2))]
        if suffix(parts):
            ops.append(w + parts)
    return ops


@lru_cache(maxsize=1)
def _matchers():
    """The compiled patterns' methods classify calls per template, looked up once (each look-up
    through the lazily compiled pattern costs a Python call)."""
    families = tuple((fam, FAMILY_HINTS[fam], rx.search) for fam, rx in FAMILIES)
    return (
        _DOTTED_WORD.findall,
        _EXIT_ONLY.match,
        _SPECIAL.findall,
        _REG_DECL.search,
        _DEBUG_ONLY.match,
        families,
        _PTX_SUFFIX_PART.search,
    )


@lru_cache(maxsize=_TEMPLATE_CACHE)
def _classify(t: str) -> tuple[tuple[str, ...], tuple[str, ...], bool, str | None]:
    _, exit_only, special_regs, reg_decl, debug_only, families, _ = _matchers()
    ops = _dotted_ops(t)
    if exit_only(t):
        ops = ["exit"]
    special = special_regs(t)  # `_SPECIAL`'s one group: the register names
    ptx = bool(ops or special or reg_decl(t))
    if not ptx or debug_only(t):
        # not PTX, or `trap;`/`brkpt;` (the debug-intrinsics rule)
        return tuple(ops), tuple(special), ptx, None
    for fam, hints, search in families:
        for h in hints:
            if h in t:
                if search(t):
                    return tuple(ops), tuple(special), ptx, fam
                break
    return tuple(ops), tuple(special), ptx, "special" if special else "generic"


def _ptx_name_to_template(name: str) -> str:
    if name.startswith("get_sreg_"):
        return "mov.u32 %0, %" + name[len("get_sreg_") :] + ";"
    return name.replace("_", ".") + ".b32"


def _asm_keywords(data: bytes) -> Iterator[Match[bytes]]:
    """What `_ASM_KW.finditer(data)` finds, from the `asm` inside every keyword: the pattern
    starts with an alternation (`asm|__asm__|__asm`), so the regex engine would try it at every
    `a` and `_` of the file. A match starts at an `asm` or two bytes before it (`__asm`), and
    nothing after its keyword holds `asm`."""
    match = _ASM_KW.match
    pos, find = 0, data.find
    while True:
        i = find(b"asm", pos)
        if i < 0:
            return
        m = None
        if i >= pos + 2 and data[i - 2 : i] == b"__":
            m = match(data, i - 2)
        if m is None:
            m = match(data, i)
        if m is None:
            pos = i + 1
            continue
        yield m
        pos = m.end()


def find_asm_sites(ctx) -> list[AsmSite]:
    """Every asm statement (and `cuda::ptx::` wrapper call) of the file, classified. Decided
    from the bytes as the preprocessor lexes them (`_Lexed`), with no tree: a keyword in a
    comment or literal is no site, one in a `#define` body is a site in a macro (its scan stops
    at the body's end), and a statement ends at the `)` that closes the one after `asm`."""
    data = ctx.data
    lexed: _Lexed | None = None  # the file's comments and literals, lexed at the first candidate
    out: list[AsmSite] = []
    asm, wrappers = _candidates(data)
    for m in asm:
        kw0 = m.start(1)
        if lexed is None:
            lexed = _Lexed(data)
        where = lexed.site_at(kw0)
        if where is None:
            continue
        in_macro, limit = where
        template, end = _lex_asm(data, m.end() - 1, limit)
        ops, special, ptx, family = _classify(template)  # what `classify` sets
        out.append(AsmSite(kw0, end, template, in_macro, ptx, family, list(ops), list(special)))
    # libcu++ PTX wrappers: cuda::ptx::cp_async_bulk_tensor(...), ptx::mbarrier_arrive(...)
    for m in wrappers:
        if lexed is None:
            lexed = _Lexed(data)
        if lexed.in_comment_or_literal(m.start()):
            continue
        name = m.group(2).decode()
        site = AsmSite(m.start(), m.end(), _ptx_name_to_template(name), libcu_ptx=name)
        classify(site)
        if not site.ptx:  # wrappers are PTX by definition
            site.ptx, site.family = True, "generic"
        out.append(site)
    return out


_SPLICE_ENDS = (b"\\\n", b"\\\r\n")  # a splice: what a line that the next continues ends with
_BLANK = frozenset(b" \t")


class _Lexed:
    """One file's comments and literals as the preprocessor lexes them (`lex.Directives`:
    translation phases 1-3, so splices, raw strings, digit separators and header names count),
    and what they say of a position: in a comment or literal, or on a directive's logical line
    (a `#` that is the first token of a line joined by splices and by comments' newlines)."""

    def __init__(self, data: bytes):
        self.data = data
        self.directives = directives(data)
        self._spans: list[tuple[int, int]] | None = None
        self._head = _lexers()[4]  # `_PLAIN_HEAD.match`
        # logical line start -> (in a #define body from this offset on (-1: not a #define),
        # the end of its text); None: the line is no directive
        self._lines: dict[int, tuple[int, int] | None] = {}

    @property
    def spans(self) -> list[tuple[int, int]]:
        """The file's comment and literal spans, lexed on first use (most files' sites are
        decided by `_plain` without them)."""
        if self._spans is None:
            self._spans = self.directives.spans()
        return self._spans

    def _plain(self, pos: int) -> bool:
        """Is `pos` (an identifier's first byte) plain code on a line of its own: in no
        comment or literal, on no directive line, and the first physical line of its logical
        line? It is when the line before ends with no splice, no block comment and no raw
        string opened before the line is still open there (`Directives`' own tests for a `#`),
        and the line up to `pos` holds no `"`, `'` or `/` (no comment or literal starts on it
        before `pos`: one that starts on an earlier line and holds the newline before it is a
        block comment, a raw string or a spliced one) and does not start with `#` after
        blanks (a backslash there starts no splice: the line's newline is after `pos`).
        Otherwise the spans decide."""
        data = self.data
        line = data.rfind(b"\n", 0, pos) + 1
        if line:
            if data.endswith(_SPLICE_ENDS, 0, line):
                return False
        elif data.startswith(_BOM):
            return False
        head = self._head(data, line, pos)
        if head is None or head.end() != pos:
            return False
        return self.directives.no_long_token_open(line)

    def in_comment_or_literal(self, pos: int) -> bool:
        return not self._plain(pos) and in_spans(self.spans, pos)

    def site_at(self, kw: int) -> tuple[bool, int] | None:
        """For an asm keyword at `kw`: None when it is no asm statement (in a comment or
        literal, or on a directive line other than a `#define`'s body, such as the macro's own
        name in `#define asm(x) ...`), else (in a macro body, where its scan stops)."""
        if self._plain(kw):
            return False, len(self.data)
        if in_spans(self.spans, kw):
            return None
        line = self._logical_start(kw)
        if line in self._lines:
            found = self._lines[line]
        else:
            found = self._lines[line] = self._directive(line)
        if found is None:
            return False, len(self.data)
        body, end = found
        if body < 0 or kw < body:
            return None
        return True, end

    def _logical_start(self, pos: int) -> int:
        """Where the logical line holding `pos` starts: back over spliced newlines and newlines
        inside comments or literals (a block comment, a raw string)."""
        data, spans = self.data, self.spans
        line = data.rfind(b"\n", 0, pos) + 1
        while line and (data.endswith(_SPLICE_ENDS, 0, line) or in_spans(spans, line - 1)):
            line = data.rfind(b"\n", 0, line - 1) + 1
        return line

    def _skip(self, i: int) -> int:
        """From `i`, past blanks, splices and comments."""
        data, spans, n = self.data, self.spans, len(self.data)
        while i < n:
            c = data[i]
            if c in _BLANK:
                i += 1
            elif c == 0x5C and data.startswith(_SPLICE_ENDS, i):  # a splice
                i = data.index(b"\n", i) + 1
            elif c == 0x2F and in_spans(spans, i):  # a comment's `/`
                k = bisect.bisect_right(spans, (i, n + 1)) - 1
                i = spans[k][1]
            else:
                break
        return i

    def _directive(self, line: int) -> tuple[int, int] | None:
        """Is the logical line at `line` a directive? None if not; else (where its `#define`
        body starts, -1 for any other directive; where its text ends, before the newline)."""
        data = self.data
        i = self._skip(3 if line == 0 and data.startswith(_BOM) else line)
        if data[i : i + 1] != b"#" or not self.directives.starts_directive(i):
            return None
        name, name_end = self.directives.name_after(i)
        end = self.directives.logical_end(name_end)
        if end and data[end - 1] == 0x0A:
            end -= 1  # the text ends before its newline (a `\r` before it is text)
        if name != b"define":
            return -1, end
        # the body follows the macro's name (and its parameter list, which holds no `asm(`)
        j = self._skip(name_end)
        ident = _MACRO_NAME.match(data, j)
        return (ident.end() if ident is not None else j), end


_BOM = b"\xef\xbb\xbf"
# a line's bytes before a position that leave it plain code (`_Lexed._plain`): no `#` first
# after blanks, and no `"`, `'` or `/` (matched with the position as endpos)
_PLAIN_HEAD = re.compile(rb"(?![ \t]*#)[^\"'/]*")
_MACRO_NAME = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")


def _asm_candidates(data: bytes) -> Iterator[Match[bytes]]:
    """The asm keywords (`_ASM_KW` matches) that start a word: a site is each of them that is
    code (`_Lexed.site_at` decides)."""
    for m in _asm_keywords(data):
        if _word_start(data, m.start(1)):
            yield m


def _wrapper_candidates(data: bytes) -> Iterator[Match[bytes]]:
    """The `ptx::name(` / `ptx::name<` wrapper calls (`_PTX_NS` matches) the text allows: a site
    is each of them that is code, in no comment or literal (`_Lexed` decides)."""
    if b"ptx" not in data:
        return
    # a bare `ptx::` counts when the file opens namespace ptx or aliases cuda::ptx (once)
    bare_ok = b"namespace ptx" in data or _PTX_ALIAS.search(data) is not None
    cuda_before, call_after = _CUDA_BEFORE.search, _CALL_AFTER.match
    for m in _PTX_NS.finditer(data):
        start, end = m.start(), m.end()
        if start and data[start - 1] in _WORDCH:
            continue
        # `cuda::` in the 12 bytes before, `(` or `<` in the 8 after (as on those slices)
        if not bare_ok and cuda_before(data, max(0, start - _CUDA_BEFORE_SPAN), start) is None:
            continue
        if call_after(data, end, end + _CALL_AFTER_SPAN) is None:
            continue  # tag constants (ptx::space_shared, ptx::sem_release)
        yield m


_PTX_ALIAS = re.compile(rb"namespace\s+\w+\s*=\s*cuda\s*::\s*ptx")
_CUDA_BEFORE = re.compile(rb"cuda\s*::\s*$")
_CUDA_BEFORE_SPAN = 12
_CALL_AFTER = re.compile(rb"\s*(?:\(|<)")
_CALL_AFTER_SPAN = 8


def _candidates(data: bytes) -> tuple[list[Match[bytes]], list[Match[bytes]]]:
    """(`_asm_candidates`, `_wrapper_candidates`) of `data`, found once: the rules' `wanted`
    tests (`may_have_sites`) and `find_asm_sites` ask for the same file in turn (the last
    file's are kept, by identity of its bytes object)."""
    if data is _last_candidates[0]:
        return _last_candidates[1]
    found = (list(_asm_candidates(data)), list(_wrapper_candidates(data)))
    _last_candidates[:] = (data, found)
    return found


_last_candidates: list = [None, ([], [])]  # (bytes, _candidates of them)


def may_have_sites(data: bytes) -> bool:
    """Can `find_asm_sites` find any site in `data`? It keeps those of its candidates (the tests
    it makes on the bytes alone) that are code: a cheap test before the parse."""
    asm, wrappers = _candidates(data)
    return bool(asm or wrappers)


def asm_node(ctx, site: AsmSite) -> Node | None:
    """The tree's `gnu_asm_expression` that starts at the site's keyword, or None (a wrapper
    call, or the grammar read the text otherwise: in a comment or string after its error
    recovery, in a macro body, in an ERROR region). This reads `ctx.root`, so the file is
    parsed: only a fix that edits around the statement asks, never the search for sites."""
    kw = _ASM_KW.match(ctx.data, site.start)
    if site.libcu_ptx or kw is None:
        return None
    node = ctx.root.descendant_for_byte_range(kw.start(1), kw.end(1))
    while node is not None:
        t = node.type
        if t == "gnu_asm_expression":
            return node if node.start_byte == site.start else None
        if t in COMMENT_TYPES or t in STRING_TYPES:
            return None
        node = node.parent
    return None


class AsmSites:
    """The asm sites of one file: `all` of them, and `live` ones, in code HIP-Clang compiles
    and that is not AMD-only (already ported)."""

    def __init__(self, ctx):
        self.all: list[AsmSite] = find_asm_sites(ctx)
        self.live: list[AsmSite] = []
        self._families: dict[str | None, list[AsmSite]] | None = None
        if not self.all:
            return
        pp = ctx.pp
        # pp.skip(pos) is decided by the #if branches around pos, the chain up from the
        # innermost one (PPState.enclosing): once per innermost branch, not once per site
        skip: dict[int, bool] = {}
        for s in self.all:
            key = id(pp.branch_at(s.start))
            hit = skip.get(key)
            if hit is None:
                hit = skip[key] = pp.skip(s.start)
            if not hit:
                self.live.append(s)

    def family(self, name: str) -> list[AsmSite]:
        """Live sites of one family (`FAMILIES` names, "special", "generic")."""
        if self._families is None:  # grouped once: each family's rule asks
            self._families = {}
            for s in self.live:
                self._families.setdefault(s.family, []).append(s)
        return list(self._families.get(name, ()))
