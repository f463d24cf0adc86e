"""PT101-PT119: wavefront width and warp-level programming (hazards.md section A).

Rules about 32-lane assumptions (lane masks, offsets, literal warp sizes) report only when a
wave64 target (gfx9: gfx90a, gfx942, gfx950) is selected, with ``targets=`` the wave64 archs:
on wave32 targets (gfx10/11/12) a 32-lane warp is what the hardware has, so they are not
reported at all there. Rules about what compiles (64-bit mask types, constexpr `warpSize`,
builtins per ROCm version, spin locks) apply to every target.

Code AMD does not compile (the NVIDIA side of a vendor switch: ``#ifndef USE_ROCM``, the
``#else`` of ``#ifdef __HIP_PLATFORM_AMD__``, the ``#ifdef __HIP_PLATFORM_NVIDIA__`` side) is
never reported; the branch AMD compiles is. The 32-lane rules also leave alone vendor/target
switches whose AMD side the model cannot decide (``#if __AMDGCN_WAVEFRONT_SIZE == 64``,
``#ifdef __GFX9__``): code written per target by hand (``ctx.vendor``, ``Compiled.hands_off``).
"""

from __future__ import annotations

from ..analysis.calls import call_args, call_name
from ..analysis.consts import int_value
from ..analysis.decls import Decl, type_text, type_width
from ..analysis.functions import enclosing_function
from ..analysis.lazyre import re
from ..analysis.lex import BLANKS, is_declaration_name, lex_code_spans, matches_after
from ..analysis.targets import fmt_targets, verb_for
from ..analysis.tree import (
    ancestors,
    code_byte_after,
    code_byte_before,
    in_comment,
    strip_parens,
)
from ..analysis.warp import (
    DROPPED_BEFORE_70,
    MASK_SOURCES,
    MASKED,
    MATCH_SYNC,
    SHFL,
    SHFL_SYNC,
)
from ..findings import Applicability, Edit, Severity
from ..parse import cuda as P
from .base import IdentMatcher, Rule, RuleContext
from .registry import register

NAMES32 = frozenset({"UINT_MAX", "UINT32_MAX"})
WARP_SIZE_NAME = re.compile(
    r"(?i)^_*(?:k_?|c_?|cuda_?|nv_?)?(?:warp_?size|warp_?sz|warp_?threads|threads_?per_?warp"
    r"|num_?threads_?per_?warp|n_?threads_?per_?warp|warp_?width|warp_?len(?:gth)?)_*$"
)
LANE_NAME = re.compile(
    r"(?i)^(?:lane|lane_?id|lane_?idx|lane_?index|laneid|my_?lane|lane_?in_?warp|warp_?lane"
    r"|thread_?lane|lane_?no|lane_?num|lane_?number|_lane|lane_)$"
)
TID_NAME = re.compile(
    r"(?i)^(?:tid|tidx|tid_?[xyz]|thread_?id(?:_?[xyz])?|thread_?idx(?:_?[xyz])?|ltid|local_?tid"
    r"|t_?id|tx|thread_?index|thread_?num|thread_?rank|lane|lane_?id|lane_?idx|laneid"
    r"|thread|local_?id|lidx|hipThreadIdx_[xyz])$"
)
WARPISH_TARGET = re.compile(r"(?i)(lane|warp|^wid$|^w_?id$|^wrp)")


def _names_body(rx) -> str:
    """The alternatives of a `(?i)^...$` name pattern, for joining into one pattern."""
    pat = rx.pattern
    assert pat.startswith("(?i)^") and pat.endswith("$")
    return pat[len("(?i)^") : -1]


# PT101's pre-filter: an identifier of the file every finding needs (a thread index for the
# `x & 31` forms, a warp-size name for the definitions), one search over the joined identifiers
_PT101_NAMES = IdentMatcher(
    (
        "threadIdx|blockDim|thread_rank|hipThreadIdx_\\w*|hipBlockDim_\\w*|(?:"
        + _names_body(TID_NAME)
        + ")|(?:"
        + _names_body(WARP_SIZE_NAME)
        + ")"
    ).encode(),
    re.I,
)


# PT101's other pre-filter: every finding compares with an integer literal (consts.int_value) of
# value 31, 32 or 5 (64 for `#define WARP_SIZE 64` on wave32 targets). A number_literal token of
# such a value is one of these spellings (any leading zeros, a u/l/z suffix, maybe a sign before
# it), not after a digit and not followed by a character that would continue the token; a digit
# separator (`3'2`) anywhere in the file lets it through. Each alternative starts with a digit,
# so the regex engine scans for those bytes fast; the "not after a digit" test is made on each
# match (`lex.matches_after`), not by a leading look-behind, which would cost that scan.
def _literal_rx(values: tuple[int, ...]):
    alts = (
        ["0[xX]0*(?:" + "|".join(f"(?i:{format(v, 'x')})" for v in values) + ")"]
        + ["0[bB]0*(?:" + "|".join(format(v, "b") for v in values) + ")"]
        + ["00*(?:" + "|".join(format(v, "o") for v in values) + ")"]
        + [format(v, "d") for v in values]
    )
    return re.compile(("(?:" + "|".join(alts) + ")[uUlLzZ]*(?![0-9A-Za-z_.])").encode())


_WARP_LITERAL = _literal_rx((5, 31, 32, 64))  # any options
_OP_LITERAL = _literal_rx((5, 31, 32))  # `& 31`, `& ~31`, `% 32`, `/ 32`, `>> 5`
_LITERAL_32 = _literal_rx((32,))  # the warp-size definitions
_LITERAL_64 = _literal_rx((64,))  # `#define WARP_SIZE 64` by vendor (wave32 targets)
# a digit separator (`3'2`): a quote between two hex digits. The pattern starts with the quote
# (the digit before it is a look-behind) so that the regex engine finds candidates by a fast
# scan for that byte; `[0-9A-Fa-f]'[0-9A-Fa-f]`, whose first byte is a class, tested every byte
# (all 1,606 CCCL files: 76 ms -> 4 ms). The same matches, at the quote instead of the digit.
_DIGIT_SEPARATOR = re.compile(rb"'(?<=[0-9A-Fa-f]')[0-9A-Fa-f]")
_DIGITS = frozenset(b"0123456789")


def _literal_int(spelling: bytes) -> int:
    """The value of a literal `_literal_rx` matched (any base, a suffix)."""
    iv = int_value(spelling.decode())
    assert iv is not None  # each alternative of the pattern is an integer literal
    return iv[0]


def _may_hold_literal(rx, data: bytes) -> bool:
    return (
        next(matches_after(rx, data, _DIGITS), None) is not None
        or _DIGIT_SEPARATOR.search(data) is not None
    )


_WARP_SIZE_IDENTS = IdentMatcher(_names_body(WARP_SIZE_NAME).encode(), re.I)


def _may_name_warp_size(ctx: RuleContext) -> bool:
    """Can an identifier of the file match WARP_SIZE_NAME? Its names are identifier tokens of
    the bytes when the file is ASCII without `$` (otherwise: yes)."""
    data = ctx.data
    if not data.isascii() or b"$" in data:
        return True
    return _WARP_SIZE_IDENTS(ctx.idents)


# -- generic helpers --------------------------------------------------------------------------
def literal_value(ctx: RuleContext, node):
    """Integer value of a (parenthesised) number literal or None."""
    node = strip_parens(node)
    if node is None or node.type != "number_literal":
        return None
    iv = int_value(ctx.text(node))
    return None if iv is None else iv[0]


def decl_width(ctx: RuleContext, d: Decl):
    if d.pointer or d.type is None:
        return None
    t = type_text(ctx, d.type)
    if t in ("auto", "const auto") or d.type.type == "placeholder_type_specifier":
        return expr_width(ctx, d.value, depth=1) if d.value is not None else None
    return type_width(t)


def expr_width(ctx: RuleContext, node, depth: int = 0):
    """Bit width (32/64) of an integer expression when it is evident, else None."""
    node = strip_parens(node)
    if node is None or depth > 6:
        return None
    t = node.type
    if t == "number_literal":
        iv = int_value(ctx.text(node))
        if iv is None:
            return None
        v, suffix = iv
        if "l" in suffix:
            return 64
        return 32 if -(1 << 31) <= v <= 0xFFFFFFFF else 64
    if t == "identifier":
        name = ctx.text(node)
        if name in NAMES32:
            return 32
        d = ctx.decls.find(node)
        if d is not None:
            return decl_width(ctx, d)
        return None
    if t == "call_expression":
        name = call_name(ctx, node)
        if name in MASK_SOURCES:
            return 64
        fn = node.child_by_field_name("function")
        if fn is not None and fn.type in (
            "primitive_type",
            "sized_type_specifier",
            "type_identifier",
        ):
            return type_width(type_text(ctx, fn))
        if (
            fn is not None
            and fn.type == "template_function"
            and name in ("static_cast", "reinterpret_cast")
        ):
            targs = fn.child_by_field_name("arguments")
            return type_width(type_text(ctx, targs)[1:-1]) if targs is not None else None
        return None
    if t == "cast_expression":
        return type_width(type_text(ctx, node.child_by_field_name("type")))
    if t == "unary_expression":
        return expr_width(ctx, node.child_by_field_name("argument"), depth + 1)
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        opt = op.type if op is not None else ""
        left = expr_width(ctx, node.child_by_field_name("left"), depth + 1)
        if opt in ("<<", ">>"):
            return left
        if opt in ("&", "|", "^", "+", "-", "*"):
            right = expr_width(ctx, node.child_by_field_name("right"), depth + 1)
            if left is None or right is None:
                return None
            return max(left, right)
        return None
    return None


def is_full32_mask(ctx: RuleContext, node) -> bool:
    """A 32-lane all-ones mask spelled as a literal: 0xffffffff (any suffix), ~0u, -1, -1u,
    (unsigned)-1, uint32_t(-1), static_cast<unsigned>(-1), UINT_MAX, UINT32_MAX."""
    node = strip_parens(node)
    if node is None:
        return False
    t = node.type
    if t == "number_literal":
        iv = int_value(ctx.text(node))
        if iv is None:
            return False
        v, suffix = iv
        return v == 0xFFFFFFFF or (v == -1 and "l" not in suffix)
    if t == "identifier":
        return ctx.text(node) in NAMES32
    if t == "unary_expression":
        op = node.child_by_field_name("operator")
        arg = strip_parens(node.child_by_field_name("argument"))
        if op is None or arg is None or arg.type != "number_literal":
            return False
        iv = int_value(ctx.text(arg))
        if iv is None or "l" in iv[1]:
            return False
        return (op.type == "~" and iv[0] == 0) or (op.type == "-" and iv[0] == 1)
    if t in ("cast_expression", "call_expression"):
        if expr_width(ctx, node) != 32:
            return False
        if t == "cast_expression":
            inner = node.child_by_field_name("value")
        else:
            a = call_args(node)
            inner = a[0] if len(a) == 1 else None
        return inner is not None and is_full32_mask(ctx, inner)
    return False


def is_full64_mask(ctx: RuleContext, node) -> bool:
    node = strip_parens(node)
    if node is None:
        return False
    if node.type == "call_expression" and call_name(ctx, node) == "__activemask":
        return True
    if node.type == "number_literal":
        iv = int_value(ctx.text(node))
        return iv is not None and (iv[0] == 0xFFFFFFFFFFFFFFFF or (iv[0] == -1 and "l" in iv[1]))
    if node.type == "unary_expression":
        op = node.child_by_field_name("operator")
        arg = strip_parens(node.child_by_field_name("argument"))
        if op is not None and arg is not None and arg.type == "number_literal":
            iv = int_value(ctx.text(arg))
            return (
                iv is not None
                and "l" in iv[1]
                and ((op.type == "~" and iv[0] == 0) or (op.type == "-" and iv[0] == 1))
            )
    return False


def contains_thread_idx(ctx: RuleContext, node, fields=("threadIdx",)) -> bool:
    if node is None:
        return False
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "field_expression":
            arg = n.child_by_field_name("argument")
            if arg is not None and arg.type == "identifier" and ctx.text(arg) in fields:
                return True
        elif (
            n.type == "identifier"
            and ctx.text(n) in ("hipThreadIdx_x", "hipThreadIdx_y", "hipThreadIdx_z")
            and "threadIdx" in fields
            or n.type == "call_expression"
            and call_name(ctx, n) == "thread_rank"
            and "threadIdx" in fields
        ):
            return True
        stack.extend(n.named_children)
    return False


def is_thread_index(ctx: RuleContext, node, *, allow_blockdim=False) -> bool:
    """threadIdx.* (or an arithmetic expression of it), hipThreadIdx_*, a variable named like a
    thread or lane index, or a local variable initialised from threadIdx."""
    node = strip_parens(node)
    if node is None:
        return False
    fields = ("threadIdx", "blockDim") if allow_blockdim else ("threadIdx",)
    if node.type in ("field_expression", "binary_expression", "call_expression", "cast_expression"):
        return contains_thread_idx(ctx, node, fields)
    if node.type == "identifier":
        name = ctx.text(node)
        if name.startswith("hipThreadIdx_") or (allow_blockdim and name.startswith("hipBlockDim_")):
            return True
        d = ctx.decls.find(node)
        if d is not None and d.value is not None and contains_thread_idx(ctx, d.value, fields):
            return True
        return bool(TID_NAME.match(name))
    return False


def bounded_below_32(ctx: RuleContext, node) -> bool:
    """`x & C` with C < 32, `x % C` with C <= 32 (or a variable initialised that way)."""
    node = strip_parens(node)
    if node is None:
        return False
    if node.type == "identifier":
        d = ctx.decls.find(node)
        return d is not None and d.value is not None and bounded_below_32(ctx, d.value)
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        v = literal_value(ctx, node.child_by_field_name("right"))
        if op is None or v is None:
            return False
        return (op.type == "&" and 0 <= v < 32) or (op.type == "%" and 0 < v <= 32)
    return False


def is_lane_index(ctx: RuleContext, node) -> bool:
    """An expression that indexes a lane of the whole warp/wavefront."""
    node = strip_parens(node)
    if node is None:
        return False
    if node.type == "identifier":
        return bool(LANE_NAME.match(ctx.text(node)))
    if node.type == "call_expression":
        return call_name(ctx, node) in ("__lane_id", "lane_id", "laneid", "__laneid")
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        right = strip_parens(node.child_by_field_name("right"))
        if op is None or right is None:
            return False
        rt = ctx.text(right).replace(" ", "")
        if op.type == "%" and rt == "warpSize":
            return True
        if op.type == "&" and rt in ("warpSize-1", "(warpSize-1)"):
            return True
    return False


# the identifiers is_lane_index needs one of (a lane-named variable, a lane-id call, warpSize),
# searched in the file's identifier tokens joined by newlines
_LANE_IDENTS = IdentMatcher(
    (_names_body(LANE_NAME) + "|__lane_id|lane_id|laneid|__laneid|warpSize").encode(), re.I
)


def _may_index_lanes(ctx: RuleContext) -> bool:
    return _may_index_lanes_in(ctx.data, ctx.idents)


def _may_index_lanes_in(data: bytes, idents: set[bytes]) -> bool:
    """Can is_lane_index hold anywhere in the file? Its names are identifier tokens of the
    bytes when the file is ASCII without `$` (otherwise: yes)."""
    if not data.isascii() or b"$" in data:
        return True
    return _LANE_IDENTS(idents)


_SHIFT = re.compile(rb"<<|>>")
_LANE_CALLS = frozenset({b"__lane_id", b"lane_id", b"laneid", b"__laneid"})
_OPERAND_START = BLANKS | frozenset(b"(")
_CHAIN = (b"::", b".", b"->")  # between the names of a qualified name, a member call


def _may_shift_by_lane(data: bytes, idents: set[bytes]) -> bool:
    """May some `<<` or `>>` of the file shift by a lane index as PT106 reports it? Its right
    operand (past blanks, splices, comments and `(`) is then a lane-named variable or a call of
    a lane-id function (`ns::__lane_id()`, `tile.lane_id()`: a name of the chain of names
    that starts it is one), or after `>>` a `32 - lane` (a digit starts it); `% warpSize` and
    `& (warpSize - 1)` need the `warpSize` token. A file that is not ASCII: yes."""
    if b"warpSize" in idents or not data.isascii():
        return True
    n = len(data)
    for m in _SHIFT.finditer(data):
        end = m.end()
        if end < n and data[end] == 0x3D:
            continue  # `<<=`, `>>=`: an assignment
        if _lane_operand(data, code_byte_after(data, end, _OPERAND_START), m.group() == b">>"):
            if not in_comment(data, m.start()):  # (the comments lexed only for a candidate)
                return True
    return False


def _lane_operand(data: bytes, j: int, right_shift: bool) -> bool:
    """May the operand starting at `j` be what `_may_shift_by_lane` looks for?"""
    n = len(data)
    if right_shift:
        return j < n and data[j] in _DIGITS
    while j < n:
        k = j
        while k < n and data[k] in _NAME_BYTES:
            k += 1
        name = data[j:k]
        if LANE_NAME.match(name.decode()) or name in _LANE_CALLS:
            return True
        j = code_byte_after(data, k)
        sep = next((c for c in _CHAIN if data.startswith(c, j)), None)
        if sep is None:
            break
        j = code_byte_after(data, j + len(sep))
    return False


_MASKED_BYTES = frozenset(n.encode() for n in MASKED)


def wave64_or_none(ctx: RuleContext):
    """The wave64 archs selected, or None when only wave32 targets are selected."""
    w = ctx.options.wave64()
    return w or None


def ballot_var(ctx: RuleContext, ident) -> Decl | None:
    """The declaration of a variable provably holding a ballot/activemask/match result:
    initialised from one, and only ever re-assigned from one or with `&=`/`^=`/`>>=`."""
    d = ctx.decls.find(ident)
    if d is None or d.value is None or d.pointer:
        return None
    v = strip_parens(d.value)
    if v.type != "call_expression" or call_name(ctx, v) not in MASK_SOURCES:
        return None
    scope = enclosing_function(d.node, lambdas=True)
    if scope is None:
        return None
    # the variable's own uses in the function, not every assignment of the function: a kernel
    # with a thousand ballot variables was quadratic
    for u in ctx.identifiers(
        [d.name], kinds=frozenset({"identifier"}), within=(scope.start_byte, scope.end_byte)
    ):
        if u.parent is None:
            continue
        a = u.parent
        if a.type in ("update_expression", "pointer_expression") and _is_field(a, "argument", u):
            return None
        if a.type != "assignment_expression" or not _is_field(a, "left", u):
            continue
        op = a.child_by_field_name("operator")
        if op is not None and op.type in ("&=", "^=", ">>="):
            continue
        right = strip_parens(a.child_by_field_name("right"))
        if (
            op is not None
            and op.type == "="
            and right is not None
            and right.type == "call_expression"
            and call_name(ctx, right) in MASK_SOURCES
        ):
            continue
        return None
    return d


def _is_field(parent, field: str, node) -> bool:
    child = parent.child_by_field_name(field)
    return child is not None and (child.start_byte, child.end_byte, child.type) == (
        node.start_byte,
        node.end_byte,
        node.type,
    )


# =============================================================================================
# node types between a literal and the binary expression whose right operand holds it
_UP_TO_OPERATOR = frozenset({"number_literal", "parenthesized_expression", "unary_expression"})
# what may stand between an operator and the literal `_kind` accepts as its right operand: blanks,
# splices, `(` and the `~` of `& ~31` (and comments: `code_byte_before` steps over them)
_BEFORE_LITERAL = BLANKS | frozenset(b"(")
_BEFORE_TILDE = BLANKS | frozenset(b"(~")
_AMP, _PERCENT, _SLASH, _GT, _TILDE, _PLUS = 0x26, 0x25, 0x2F, 0x3E, 0x7E, 0x2B
# the value `_kind` reports after each operator (`& ~31` aside)
_OPERAND_VALUE = {_AMP: 31, _PERCENT: 32, _SLASH: 32, _GT: 5}
# `_operator_before`'s look without comments: blanks but line breaks (a `//` comment may end at
# one), backslashes, `(`, `~`; it goes on to the comments at an operator, a `/` or a line break
_QUICK_BEFORE = frozenset(b" \t\f\v\\(~")
_OPERATOR_OR_SLASH = frozenset(_OPERAND_VALUE) | frozenset(b"\r\n")


def _operator_before(data: bytes, pos: int, value: int) -> bool:
    """May the literal of `value` at `pos` be the right operand `WarpSizeLiteral._kind`
    reports (`& 31`, `% 32`, `/ 32`, `>> 5`, `& ~31`, through parentheses)? From the code
    token before it, past blanks, splices, comments, `(` and `~`: False when that is not the
    operator this value is reported after, or the literal is in a comment."""
    # first without the comments (lexing the file is the cost): the byte before the literal on
    # its line, past blanks, `(` and `~`, is the code token before it when the literal is code,
    # unless it ends a comment (`/`); if it is no operator, the answer is no either way
    i = pos - 1
    while i >= 0 and data[i] in _QUICK_BEFORE:
        i -= 1
    if i >= 0 and data[i] not in _OPERATOR_OR_SLASH:
        return False  # (a line break stops the walk: `_OPERATOR_OR_SLASH` holds them)
    if in_comment(data, pos):
        return False
    i = code_byte_before(data, pos, _BEFORE_LITERAL)
    tilde = i >= 0 and data[i] == _TILDE
    if tilde:
        i = code_byte_before(data, i, _BEFORE_TILDE)
    if i < 0:
        return False
    c = data[i]
    if c == _AMP:  # & (not &&)
        if i > 0 and data[i - 1] == _AMP:
            return False
    elif c == _GT:  # >> (not ->, not a lone >)
        if i == 0 or data[i - 1] != _GT:
            return False
    elif tilde:
        return False  # `~31` is reported after `&` only
    return _OPERAND_VALUE.get(c) == value


def _may_define(data: bytes, rx) -> bool:
    """May a literal of `rx` be the value of a warp-size definition `_definitions` (or
    `_vendor_64`) reads: `#define NAME 32`, `NAME = 32` (an initialiser, an enumerator), with
    NAME like WARP_SIZE_NAME? From the code tokens before each literal outside comments: the
    name itself, or `=` and the name before it (past blanks, splices, comments, `(` and a sign
    on the literal: int_value reads `#define W +32` as 32). A file that is not ASCII may hold
    names the bytes do not spell plainly, one with a digit separator literals they do not:
    yes."""
    if not data.isascii() or _DIGIT_SEPARATOR.search(data) is not None:
        return True
    for m in matches_after(rx, data, _DIGITS):
        pos = m.start()
        if pos > 0 and data[pos - 1] == _PLUS:
            pos -= 1
        # first without the comments, as `_operator_before` looks: no `=` or name before the
        # literal on its line (nor a `/` or a line break, where a comment may end): no
        i = pos - 1
        while i >= 0 and data[i] in _QUICK_BEFORE:
            i -= 1
        if i >= 0 and data[i] not in _DEFINE_OR_SLASH:
            continue
        if in_comment(data, pos):
            continue
        i = code_byte_before(data, pos, _BEFORE_LITERAL)
        if i >= 0 and data[i] == 0x3D:  # `=`, not `==`, `<=`, `+=`...
            if i > 0 and data[i - 1] in _NOT_BEFORE_ASSIGN:
                continue
            i = code_byte_before(data, i)
        j = i
        while j >= 0 and data[j] in _NAME_BYTES:
            j -= 1
        if j < i and WARP_SIZE_NAME.match(data[j + 1 : i + 1].decode()):
            return True
    return False


_NOT_BEFORE_ASSIGN = frozenset(b"=!<>+-*/%&|^")
_DEFINE_OR_SLASH = frozenset(
    b"=/\r\nABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
)
_NAME_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


@register
class WarpSizeLiteral(Rule):
    """Warp size hard-coded as 32 (`& 31`, `% 32`, `/ 32`, `>> 5`, `#define WARP_SIZE 32`).

    ## What it finds
    - `threadIdx.x & 31`, `tid % 32`, `threadIdx.x / 32`, `tid >> 5`, `tid & ~31` (thread or
      lane indices split into lane and warp with a literal 32), when the enclosing function
      uses warp shuffles or votes (error) or the result is stored in a variable named like a
      lane or warp index (`lane`, `warp_id`, `wid`: warning);
    - `blockDim.x / 32` and `(blockDim.x + 31) / 32` (warps per block) under the same conditions;
    - constants that define the warp size as 32: `#define WARP_SIZE 32`,
      `constexpr int kWarpSize = 32;`, `const int warp_size = 32;`, `enum { WARP_SIZE = 32 }`
      (error when the file uses shuffles or votes, else warning);
    - `#define WARP_SIZE 64` chosen by vendor (`#ifdef __HIP_PLATFORM_AMD__`) rather than by
      architecture, when a wave32 target (gfx10-12) is selected (error for those targets).

    Reported only when a wave64 target is selected; code inside `#if` branches on AMD macros
    (`__HIP_PLATFORM_AMD__`, `__AMDGCN_WAVEFRONT_SIZE`, `USE_ROCM`, `__GFX9__`...) is skipped,
    and so are `% warpSize`, `& (warpSize - 1)` and `& 31` on values that are not thread indices.

    ## Why it breaks on AMD
    CDNA GPUs (gfx90a, gfx942, gfx950) run wavefronts of 64 lanes. With a literal 32, lane
    indices alias (threads 32-63 of a wavefront compute lanes 0-31), two "warps" share one
    wavefront, per-warp shared-memory slots collide and shuffles and ballots mix the halves.
    The HIP programming guide: "Code should not assume a warp size of 32 or 64".

    ## Example
    ```cpp
    #define WARP_SIZE 32
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    ```

    ## Use instead
    `warpSize` at run time (`threadIdx.x % warpSize`, `threadIdx.x / warpSize`), or a constant
    selected per architecture (`#if defined(__GFX9__)` → 64, otherwise 32) where a compile-time
    value is needed; on the host, `hipDeviceProp_t::warpSize` or `hipDeviceAttributeWarpSize`.

    ## References
    - HIP programming guide, section on `warpSize` (ROCm documentation)
    - HIP kernel language reference, warp cross-lane functions tip
    - HeCBench issues 167 and 180 (32-lane assumptions in ported benchmarks)
    """

    code = "PT101"
    name = "warp-size-literal"
    severity = Severity.WARNING
    fix = Applicability.NONE
    triggers = (b"31", b"32", b">> 5", b">>5", b"0x1f", b"0x1F")

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding needs a thread-index identifier (`threadIdx`, `blockDim`,
        `hipThreadIdx_x`, `thread_rank`, a name like `tid` or `lane`) or a warp-size name
        (`WARP_SIZE`): without one the file needs no tree walk for this rule."""
        return _PT101_NAMES(idents) and _may_hold_literal(_WARP_LITERAL, data)

    def check(self, ctx):
        # each part needs a literal of its value (and the definitions a warp-size name): a
        # part that cannot report does not walk the tree
        data = ctx.data
        w32 = ctx.options.wave32()
        if w32 and _may_name_warp_size(ctx) and _may_define(data, _LITERAL_64):
            yield from self._vendor_64(ctx, w32)
        w64 = wave64_or_none(ctx)
        if not w64:
            return
        if _may_hold_literal(_OP_LITERAL, data):
            yield from self._ops(ctx, w64)
        if _may_name_warp_size(ctx) and _may_define(data, _LITERAL_32):
            yield from self._definitions(ctx, w64)

    _ARCH_COND = re.compile(r"(?i)__gfx\d|GFX9|GFX1\d|WAVEFRONT_SIZE|wave64|wave32|RDNA|CDNA")

    def _vendor_64(self, ctx, w32):
        """`#define WARP_SIZE 64` chosen by vendor (`#ifdef __HIP_PLATFORM_AMD__`) rather than by
        architecture: wrong on gfx10-12, which run 32-lane wavefronts (llama.cpp's RDNA bug)."""
        for d in ctx.nodes("preproc_def"):
            name, value = d.child_by_field_name("name"), d.child_by_field_name("value")
            if name is None or value is None or not WARP_SIZE_NAME.match(ctx.text(name)):
                continue
            v = re.sub(r"/\*.*?\*/|//.*", "", ctx.text(value)).strip().strip("()").strip()
            iv = int_value(v)
            if iv is None or iv[0] != 64:
                continue
            b = ctx.pp.branch_at(d.start_byte)
            if (
                b is None
                or ctx.vendor.at(d).amd is not True
                or not b.group.mentions_vendor()
                or b.group.mentions(self._arch_macro)
            ):
                continue
            cond = next(x for x in b.group.branches if x.cond is not None)
            yield self.finding(
                ctx,
                d,
                f"`#define {ctx.text(name)} 64` is chosen by vendor (`{cond.raw}`), "
                f"but {fmt_targets(w32)} {verb_for(w32, 'run')} 32-lane wavefronts: select it by "
                f"architecture (64 under `__GFX9__`, 32 otherwise) or use `warpSize`",
                severity=Severity.ERROR,
                targets=w32,
            )

    @classmethod
    def _arch_macro(cls, name: str) -> bool:
        return cls._ARCH_COND.search(name) is not None

    @staticmethod
    def _op_candidates(ctx) -> list:
        """The binary expressions `_ops` can report, in document order: those reached from a
        literal of value 5, 31 or 32 up through parentheses and unary operators (the right
        operand `_kind` accepts is such a literal under `(`, `~`), found from the literals'
        offsets instead of a walk over every binary expression of the file."""
        data = ctx.data
        if _DIGIT_SEPARATOR.search(data) is not None:
            return ctx.nodes("binary_expression")
        literals = [
            m
            for m in matches_after(_OP_LITERAL, data, _DIGITS)
            if _operator_before(data, m.start(), _literal_int(m.group()))
        ]
        if not literals:
            return []  # no literal is the right operand of `&`, `%`, `/`, `>>`: no tree read
        root = ctx.root
        found = {}
        for m in literals:
            n = root.descendant_for_byte_range(m.start(), m.end())
            while n is not None and n.type in _UP_TO_OPERATOR:
                n = n.parent
            if n is not None and n.type == "binary_expression":
                found[n.start_byte, n.end_byte] = n
        return [found[k] for k in sorted(found, key=lambda k: (k[0], -k[1]))]

    def _ops(self, ctx, w64):
        for b in self._op_candidates(ctx):
            op = b.child_by_field_name("operator")
            if op is None or op.type not in ("&", "%", "/", ">>"):
                continue
            right = b.child_by_field_name("right")
            left = b.child_by_field_name("left")
            if right is None or left is None:
                continue
            kind = self._kind(ctx, op.type, right)
            if kind is None:
                continue
            blockdim = op.type in ("/", ">>")
            if not is_thread_index(ctx, left, allow_blockdim=blockdim):
                continue
            if ctx.vendor.at(b).hands_off:
                continue
            fn = enclosing_function(b, lambdas=True)
            collective = fn is not None and ctx.warp_collectives.present(fn)
            target = self._stored_in(ctx, b)
            if not collective and not (target and WARPISH_TARGET.search(target)):
                continue
            what = ctx.text(b)
            use = "lane" if kind == "lane" else "warp"
            alt = {"lane": "`% warpSize`", "warp": "`/ warpSize`"}[use]
            sev = Severity.ERROR if collective else Severity.WARNING
            feeds = " in a function that uses warp shuffles/votes" if collective else ""
            yield self.finding(
                ctx,
                b,
                f"`{what}` assumes a 32-lane warp{feeds}, but {fmt_targets(w64)} "
                f"{verb_for(w64, 'run')} 64-lane wavefronts: use {alt} or an arch-selected "
                "constant",
                severity=sev,
                targets=w64,
            )

    @staticmethod
    def _kind(ctx, op, right):
        r = strip_parens(right)
        if r is None:
            return None
        if r.type == "unary_expression":
            o = r.child_by_field_name("operator")
            if (
                op == "&"
                and o is not None
                and o.type == "~"
                and literal_value(ctx, r.child_by_field_name("argument")) == 31
            ):
                return "warp"
            return None
        v = literal_value(ctx, r)
        if v is None:
            return None
        if (op == "&" and v == 31) or (op == "%" and v == 32):
            return "lane"
        if (op == "/" and v == 32) or (op == ">>" and v == 5):
            return "warp"
        return None

    @staticmethod
    def _stored_in(ctx, node) -> str:
        """Name of the variable an expression is assigned to / initialises, if any."""
        for a in ancestors(node):
            if a.type in (
                "parenthesized_expression",
                "binary_expression",
                "cast_expression",
                "conditional_expression",
            ):
                continue
            if a.type == "init_declarator":
                d = a.child_by_field_name("declarator")
                return ctx.text(d) if d is not None and d.type == "identifier" else ""
            if a.type == "assignment_expression":
                left = a.child_by_field_name("left")
                return ctx.text(left) if left is not None else ""
            break
        return ""

    def _definitions(self, ctx, w64):
        def severity() -> Severity:
            # (the calls are indexed only for a definition found)
            collective = ctx.warp_collectives.present(None)
            return Severity.ERROR if collective else Severity.WARNING

        for d in ctx.nodes("preproc_def"):
            name = d.child_by_field_name("name")
            value = d.child_by_field_name("value")
            if name is None or value is None or not WARP_SIZE_NAME.match(ctx.text(name)):
                continue
            v = re.sub(r"/\*.*?\*/|//.*", "", ctx.text(value)).strip().strip("()").strip()
            iv = int_value(v)
            if iv is None or iv[0] != 32 or ctx.vendor.at(d).hands_off:
                continue
            yield self.finding(
                ctx,
                d,
                f"`#define {ctx.text(name)} 32` hard-codes the warp size, but "
                f"{fmt_targets(w64)} {verb_for(w64, 'run')} 64-lane wavefronts: use `warpSize`, or "
                "define it per "
                f"architecture (64 under `__GFX9__`)",
                severity=severity(),
                targets=w64,
            )
        for node in ctx.nodes("init_declarator", "enumerator"):
            if node.type == "init_declarator":
                ident = node.child_by_field_name("declarator")
            else:
                ident = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if ident is None or ident.type != "identifier" or value is None:
                continue
            if not WARP_SIZE_NAME.match(ctx.text(ident)) or literal_value(ctx, value) != 32:
                continue
            if ctx.vendor.at(node).hands_off:
                continue
            yield self.finding(
                ctx,
                node,
                f"`{ctx.text(ident)} = 32` hard-codes the warp size, but "
                f"{fmt_targets(w64)} {verb_for(w64, 'run')} 64-lane wavefronts: use `warpSize`, "
                "or a constant "
                f"selected per architecture (64 under `__GFX9__`)",
                severity=severity(),
                targets=w64,
            )


# =============================================================================================
@register
class WarpSizeConstexpr(Rule):
    """`warpSize` used where a compile-time constant is required.

    ## What it finds
    The identifier `warpSize` inside an array bound (`__shared__ float s[warpSize]`), a template
    argument (`tiled_partition<warpSize>`), a template parameter default, `static_assert`, a
    `constexpr` initialiser, a `case` label, an enumerator value, `__launch_bounds__`,
    `alignas` or a bit-field width, and `warpSize` in `#if` conditions. Files that declare their
    own `warpSize` (a template parameter or constant of that name) are skipped.

    ## Why it breaks on AMD
    From ROCm 7.0 `warpSize` is an ordinary device variable, no longer `constexpr`, so these
    uses fail to compile (error with `--rocm-version` 7.0 or later, warning before). The HIP
    docs already said not to assume `warpSize` is a compile-time constant; in CUDA it never was.
    In `#if`, `warpSize` is not a macro and evaluates to 0 on every version.

    ## Example
    ```cpp
    __shared__ float partial[warpSize];
    auto tile = cg::tiled_partition<warpSize>(block);
    ```

    ## Use instead
    A `constexpr` helper keyed on architecture macros (`__GFX9__` → 64, otherwise 32), or a
    template parameter chosen on the host from `hipDeviceAttributeWarpSize`; size shared arrays
    for the largest wavefront (64).

    ## References
    - HIP kernel language reference (`warpSize` is not a compile-time constant)
    - ROCm 7.0 changes: `warpSize` no longer constexpr (ROCm/apex PR 231, ROCm/bitsandbytes PR 86,
      rocHPL 7.0.2 release note)
    """

    code = "PT102"
    name = "warp-size-constexpr"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = (b"warpSize",)

    CONTEXTS = {
        "array_declarator": "an array bound",
        "template_argument_list": "a template argument",
        "static_assert_declaration": "a static_assert",
        "case_statement": "a case label",
        "enumerator": "an enumerator value",
        "launch_bounds": "__launch_bounds__",
        "bitfield_clause": "a bit-field width",
        "alignas_qualifier": "alignas",
        "alignas_specifier": "alignas",
        "optional_parameter_declaration": None,
        "preproc_if": "#if",
        "preproc_elif": "#elif",
    }
    STOP = frozenset(
        {
            "compound_statement",
            "function_definition",
            "argument_list",
            "lambda_expression",
            "new_expression",
            "expression_statement",
            "translation_unit",
            "subscript_expression",
            "call_expression",
        }
    )

    def check(self, ctx):
        idents = ctx.identifiers(["warpSize"], kinds=frozenset({"identifier", "type_identifier"}))
        if not idents:
            return
        if any(
            is_declaration_name(i)
            or (
                i.parent is not None
                and i.parent.type
                in (
                    "type_parameter_declaration",
                    "parameter_declaration",
                    "optional_parameter_declaration",
                )
                and i.parent.child_by_field_name("declarator") == i
            )
            for i in idents
        ):
            return
        v = ctx.options.rocm_version
        for ident in idents:
            what = self._context(ctx, ident)
            if what is None or ctx.vendor.at(ident).not_for_amd:
                continue
            if what in ("#if", "#elif"):
                sev, tail = (
                    Severity.ERROR,
                    (
                        "`warpSize` is not a macro and is 0 in preprocessor "
                        "conditions: use `__GFX9__`-style arch macros"
                    ),
                )
            elif v >= (7, 0):
                sev, tail = (
                    Severity.ERROR,
                    (
                        "`warpSize` is not constexpr from ROCm 7.0: use a "
                        "constexpr chosen per arch (`__GFX9__` → 64) or a "
                        "template parameter"
                    ),
                )
            else:
                sev, tail = (
                    Severity.WARNING,
                    (
                        "this compiles with ROCm "
                        f"{'.'.join(map(str, v))} but not from ROCm 7.0, "
                        "where `warpSize` is no longer constexpr"
                    ),
                )
            yield self.finding(ctx, ident, f"`warpSize` used as {what}: {tail}", severity=sev)

    def _context(self, ctx, ident):
        if ident.type == "type_identifier" and not (
            ident.parent is not None
            and ident.parent.type == "type_descriptor"
            and ident.parent.parent is not None
            and ident.parent.parent.type == "template_argument_list"
        ):
            return None
        for a in ancestors(ident):
            t = a.type
            if t == "array_declarator":
                size = a.child_by_field_name("size")
                if size is not None and size.start_byte <= ident.start_byte < size.end_byte:
                    return self.CONTEXTS[t]
                return None
            if t == "declaration" or t == "field_declaration":
                if any(
                    c.type == "type_qualifier" and ctx.text(c) == "constexpr" for c in a.children
                ):
                    return "a constexpr initialiser"
                return None
            if t == "optional_parameter_declaration":
                dv = a.child_by_field_name("default_value")
                if (
                    dv is not None
                    and a.parent is not None
                    and a.parent.type == "template_parameter_list"
                    and dv.start_byte <= ident.start_byte
                ):
                    return "a template parameter default"
                return None
            if t in ("preproc_if", "preproc_elif"):
                cond = a.child_by_field_name("condition")
                if cond is not None and cond.start_byte <= ident.start_byte < cond.end_byte:
                    return self.CONTEXTS[t]
                return None
            if self.CONTEXTS.get(t):
                if t == "case_statement":
                    val = a.child_by_field_name("value")
                    if val is None or not (val.start_byte <= ident.start_byte < val.end_byte):
                        return None
                return self.CONTEXTS[t]
            if t in self.STOP:
                return None
        return None


# =============================================================================================
@register
class WavefrontSizeMacro(Rule):
    """`__AMDGCN_WAVEFRONT_SIZE` macro (deprecated).

    ## What it finds
    Uses of `__AMDGCN_WAVEFRONT_SIZE` and `__AMDGCN_WAVEFRONT_SIZE__` in code, `#if` conditions
    and macro bodies (common in earlier hand ports).

    ## Why it breaks on AMD
    The macro was deprecated in ROCm 6.3.2 (LLVM change 112849); its removal from clang
    (llvm-project PR 157463) was reverted (PR 158566), so whether a given compiler still
    defines it varies. Code that relies on it can silently take the wave32 (or undefined = 0)
    branch.

    ## Example
    ```cpp
    #if __AMDGCN_WAVEFRONT_SIZE == 64
    constexpr int kWarp = 64;
    #endif
    ```

    ## Use instead
    Architecture macros (`__GFX9__` → wave64, `__GFX10__`/`__GFX11__`/`__GFX12__` → wave32) for
    compile-time choices, `warpSize` at run time.

    ## References
    - llama.cpp issue 11758 (deprecation warning in ROCm 6.3.2)
    - llvm-project PRs 112849, 157463 and 158566
    """

    code = "PT103"
    name = "wavefront-size-macro-deprecated"
    severity = Severity.WARNING
    fix = Applicability.NONE
    triggers = (b"__AMDGCN_WAVEFRONT_SIZE",)
    RX = re.compile(rb"(?<![\w$])__AMDGCN_WAVEFRONT_SIZE(?:__)?(?![\w$])")

    def check(self, ctx):
        spans_cache: dict = {}
        for m in self.RX.finditer(ctx.data):
            node = ctx.root.descendant_for_byte_range(m.start(), m.end())
            if node is None:
                continue
            if node.type in P.OPAQUE_TYPES:
                spans = spans_cache.get(node.start_byte)
                if spans is None:
                    spans = spans_cache[node.start_byte] = lex_code_spans(ctx.btext(node))
                rel = m.start() - node.start_byte
                if any(a <= rel < b for a, b in spans):
                    continue
            elif node.type not in P.IDENT_TYPES or ctx.in_comment_or_string(m.start(), m.end()):
                continue
            name = m.group().decode()
            yield self.finding(
                ctx,
                (m.start(), m.end()),
                f"`{name}` is deprecated (ROCm 6.3.2) and may be undefined: use arch macros "
                f"(`__GFX9__` for wave64) at compile time or `warpSize` at run time",
            )


# =============================================================================================
@register
class WarpMask32Bit(Rule):
    """32-bit lane mask passed to a `_sync` warp builtin.

    ## What it finds
    The mask argument of `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync`, `__shfl_xor_sync`,
    `__ballot_sync`, `__any_sync`, `__all_sync`, `__match_any_sync`, `__match_all_sync`,
    `__reduce_*_sync` and `__syncwarp` when it is:
    - a 32-lane full mask literal: `0xffffffff`, `0xFFFFFFFFu`, `~0u`, `-1`, `-1u`,
      `(unsigned)-1`, `uint32_t(-1)`, `UINT_MAX` (also `0xffffffffull`, which is 64-bit but names
      only lanes 0-31) — safe fix;
    - another 32-bit expression (`0x0000ffff`, `(1u << n) - 1`), a variable or parameter of a
      32-bit type (`unsigned mask = 0xffffffff;`), or a macro defined to a 32-bit literal —
      reported without a fix.

    Before ROCm 7.0 the mapping rewriter drops the mask of the shuffle and vote builtins
    (`__shfl_down_sync(m, v, d)` → `__shfl_down(v, d)`), so those calls are not reported then
    (PT109 covers what dropping the mask changes).

    ## Why it breaks on AMD
    HIP's `_sync` templates `static_assert(sizeof(MaskT) == 8, "The mask must be a 64-bit
    integer...")`, so a 32-bit mask does not compile (hipcc and hipRTC alike), on every target.
    HIP also checks (in builds without `NDEBUG`) that the mask equals the set of active lanes,
    and `__all_sync` compares the ballot with the mask: a mask naming lanes 0-31 only is wrong
    on a 64-lane wavefront even when it is 64-bit.

    ## Example
    ```cpp
    v += __shfl_down_sync(0xffffffff, v, offset);
    ```

    ## Use instead
    ```cpp
    v += __shfl_down_sync(__activemask(), v, offset);
    ```
    The fix writes `__activemask()`, not `0xffffffffffffffffull`: a CUDA full mask requires
    every lane of the warp to take part, so at a well-defined call the active lanes are
    exactly the lanes the mask meant, and `__activemask()` stays right in partial wavefronts
    (blocks of 32 or 96 threads on wave64) where an all-64-lanes literal would trip HIP's mask
    check and make `__all_sync` return false. Use a 64-bit all-ones constant (or a portable
    `FULL_MASK` macro) where you know the whole wavefront is active; keep mask variables in
    `uint64_t`/`unsigned long long`.

    ## Fix safety
    Safe. The fix replaces a 32-lane full-mask literal (`0xffffffff`, `~0u`, `-1`,
    `UINT_MAX`...) with `__activemask()`. A CUDA full mask requires all 32 lanes to take part,
    so wherever the call is well defined on NVIDIA the active lanes are exactly the lanes the
    mask named: the call computes the same thing there, and on AMD the mask becomes the 64-bit
    set of lanes that are really active. Other 32-bit masks (partial masks, mask variables,
    macros) are reported without a fix: which lanes they mean is the program's decision.

    ## References
    - HIP `amd_warp_sync_functions.h` (ROCm 6.4 and 7.2):
      `static_assert(... sizeof(MaskT) == 8 ...)`
      and `__hip_check_mask`
    - ROCm/hip issue 3667; cupy PR 9977; AMD-Ecosystem/llama.cpp PR 2
    """

    code = "PT104"
    name = "warp-mask-32bit"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = tuple(n.encode() for n in ("_sync", "__syncwarp"))

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on a call of a masked builtin, whose name is then one of the file's
        identifier tokens: without one the file needs no parse for this rule."""
        return not _MASKED_BYTES.isdisjoint(idents)

    def check(self, ctx):
        v = ctx.options.rocm_version
        for call in (k.node for k in ctx.calls.named(MASKED, members=True)):
            name = call_name(ctx, call)
            if v < (7, 0) and name in self._dropped(ctx, name):
                continue
            if ctx.vendor.at(call).not_for_amd:
                continue
            args = call_args(call)
            if not args:
                continue
            mask = args[0]
            if is_full64_mask(ctx, mask):
                continue
            text = ctx.text(mask)
            if is_full32_mask(ctx, mask):
                width = expr_width(ctx, mask)
                why = (
                    "names only lanes 0-31"
                    if width == 64
                    else "is a 32-bit value (HIP static_asserts a 64-bit mask)"
                )
                fix = self.make_fix(
                    [Edit(mask.start_byte, mask.end_byte, b"__activemask()")],
                    Applicability.SAFE,
                    "use __activemask() as the full mask",
                )
                yield self.finding(
                    ctx,
                    mask,
                    f"mask `{text}` of `{name}` {why}: use `__activemask()` or a "
                    f"64-bit all-lanes mask",
                    fix=fix,
                )
                continue
            m = strip_parens(mask)
            if m.type == "identifier":
                yield from self._identifier(ctx, name, m)
                continue
            if expr_width(ctx, mask) == 32:
                yield self.finding(
                    ctx,
                    mask,
                    f"mask `{text}` of `{name}` is a 32-bit expression, but HIP "
                    f"static_asserts a 64-bit mask and a wavefront has 64 lanes on gfx9: compute "
                    f"it in `unsigned long long` (`1ull << n`)",
                )

    @staticmethod
    def _dropped(ctx, name):
        """Builtins whose mask the rewriter drops at this ROCm version."""
        idx = ctx.index
        if idx is not None and getattr(idx, "by_name", None) is not None and name in idx.by_name:
            # pick() returns None only for an empty row list; then fall back to the default set
            row = type(idx).pick(idx.by_name[name], ctx.options.rocm_version)
            if row is not None:
                return {name} if "drop_arg0" in row.transform.split("|") else set()
        return DROPPED_BEFORE_70

    def _identifier(self, ctx, fname, ident):
        name = ctx.text(ident)
        macro = ctx.macros.get(name)
        if macro is not None and ctx.decls.find(ident) is None:
            iv = int_value(macro.strip("()").strip())
            if iv is not None and "l" not in iv[1] and -(1 << 31) <= iv[0] <= 0xFFFFFFFF:
                yield self.finding(
                    ctx,
                    ident,
                    f"mask macro `{name}` of `{fname}` is the 32-bit value "
                    f"`{macro}`: HIP static_asserts a 64-bit mask: define it as `__activemask()` "
                    f"or a 64-bit literal",
                )
            return
        d = ctx.decls.find(ident)
        if d is None or decl_width(ctx, d) != 32:
            return
        val = strip_parens(d.value) if d.value is not None else None
        if (
            val is not None
            and val.type == "call_expression"
            and call_name(ctx, val) in MASK_SOURCES
        ):
            return  # PT105 widens the declaration itself
        yield self.finding(
            ctx,
            ident,
            f"mask `{name}` of `{fname}` is declared `{type_text(ctx, d.type)}` "
            f"(32-bit), but HIP static_asserts a 64-bit mask: declare it `unsigned long long` "
            f"and give it 64-bit lane bits",
        )


# =============================================================================================
@register
class WarpBallotWidth(Rule):
    """Ballot / active-mask result truncated to 32 bits.

    ## What it finds
    Results of `__ballot`, `__ballot_sync`, `__activemask`, `__match_any(_sync)`,
    `__match_all(_sync)` and `__lanemask_*`:
    - initialising a variable of a 32-bit type (`unsigned b = __ballot_sync(m, p);`) — fix:
      the declared type becomes `unsigned long long`;
    - passed to `__popc` / `__ffs` (directly, or through a variable that provably holds such a
      result) — fix: `__popcll` / `__ffsll`;
    - passed to `__clz`, `__brev`, `__fns`, cast to a 32-bit type, or assigned to a 32-bit
      variable — reported without a fix (the arithmetic around them usually changes: `31 -
      __clz(m)` becomes `63 - __clzll(m)`).

    Reported only when a wave64 target is selected: on wave32 targets the upper 32 bits are 0.

    ## Why it breaks on AMD
    On HIP these functions return a 64-bit mask (`unsigned long long`): on a 64-lane wavefront,
    storing it in 32 bits silently drops lanes 32-63, so popcounts, leader election (`__ffs`)
    and "all lanes" tests come out wrong.

    ## Example
    ```cpp
    unsigned vote = __ballot_sync(__activemask(), x > 0);
    int n = __popc(vote);
    ```

    ## Use instead
    ```cpp
    unsigned long long vote = __ballot_sync(__activemask(), x > 0);
    int n = __popcll(vote);
    ```

    ## Fix safety
    Widening a declaration to `unsigned long long` is safe when every later use of the variable
    in its function is width-agnostic: the value keeps every bit, on wave32 targets (upper bits
    0) each use computes what it computed before, and on wave64 the only uses whose result
    changes are the ones that were wrong (they saw half the lanes). When the variable is also
    compared with anything but a literal `0`, complemented (`~`) or negated, or is declared
    outside a function, the same fix is unsafe and needs `--unsafe-fixes`: those results change
    with the width. `__popc` → `__popcll` and `__ffs` → `__ffsll` are safe: identical on any
    value whose upper 32 bits are 0, right otherwise; not offered when the argument involves a
    complement (`~ballot` sets bits 32-63 on wave32 targets, which `__popcll` would count). No
    fix for `__clz`, `__brev`, `__fns`, casts and assignments to 32-bit variables (bit positions
    change: `31 - __clz(m)` becomes `63 - __clzll(m)`), nor for a declaration that also declares
    variables that are not mask results (the shared type would change them too).

    ## References
    - HIP kernel language reference: "__ballot and __activemask ... 64-bit return value"
    - HIP `amd_warp_functions.h` / `amd_warp_sync_functions.h` (ROCm 7.2): `unsigned long long`
      return types; HeCBench issue 177
    """

    code = "PT105"
    name = "warp-ballot-width"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = (b"__ballot", b"__activemask", b"__match_a", b"__lanemask_")
    BITOPS_FIX = {"__popc": "__popcll", "__ffs": "__ffsll"}
    BITOPS = ("__popc", "__ffs", "__clz", "__brev", "__fns")

    def check(self, ctx):
        w64 = wave64_or_none(ctx)
        if not w64:
            return
        seen_decls: set = set()
        for call in (k.node for k in ctx.calls.named(MASK_SOURCES, members=True)):
            if ctx.vendor.at(call).hands_off:
                continue
            src = call_name(ctx, call)
            node, parent = call, call.parent
            while parent is not None and parent.type == "parenthesized_expression":
                node, parent = parent, parent.parent
            if parent is None:
                continue
            if parent.type == "init_declarator":
                yield from self._decl(ctx, parent, src, w64, seen_decls)
            elif parent.type == "cast_expression":
                tw = type_width(type_text(ctx, parent.child_by_field_name("type")))
                if tw == 32:
                    yield self.finding(
                        ctx,
                        parent,
                        f"`{src}` result cast to 32 bits "
                        f"(`{ctx.text(parent)}`) drops lanes 32-63 on "
                        f"{fmt_targets(w64)}: keep it `unsigned long long`",
                        targets=w64,
                    )
            elif parent.type == "assignment_expression":
                left = parent.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    d = ctx.decls.find(left)
                    if d is not None and decl_width(ctx, d) == 32:
                        yield self.finding(
                            ctx,
                            parent,
                            f"`{src}` result stored in `{d.name}`, "
                            f"declared `{type_text(ctx, d.type)}` (32-bit): lanes "
                            f"32-63 are lost on {fmt_targets(w64)}; declare it "
                            f"`unsigned long long`",
                            targets=w64,
                        )
            elif parent.type == "argument_list":
                yield from self._bitop(ctx, parent.parent, node, f"`{src}`", w64)
        # bit ops on variables that hold a ballot
        for call in (k.node for k in ctx.calls.named(self.BITOPS, members=True)):
            args = call_args(call)
            if len(args) != 1:
                continue
            a = strip_parens(args[0])
            if a is None or ctx.vendor.at(call).hands_off:
                continue
            if a.type == "identifier":
                d = ballot_var(ctx, a)
                if d is None:
                    continue
                yield from self._bitop(
                    ctx,
                    call,
                    args[0],
                    f"`{d.name}` (a `{call_name(ctx, strip_parens(d.value))}` result)",
                    w64,
                )
            elif a.type in ("binary_expression", "unary_expression"):
                # __popc(mask & ((1u << lane) - 1)): a ballot combined bitwise is still 64 bits
                d = self._ballot_operand(ctx, a)
                if d is not None:
                    # `~ballot` sets bits 32-63 on wave32 targets, where __popcll would count
                    # them: widen the count only when no complement is involved
                    fixable = b"~" not in ctx.btext(a)
                    yield from self._bitop(
                        ctx,
                        call,
                        args[0],
                        f"`{ctx.text(a)}` (built from the ballot `{d}`)",
                        w64,
                        fixable=fixable,
                    )

    @staticmethod
    def _ballot_operand(ctx, expr, depth: int = 0):
        """Name of a ballot variable (or call) combined by &, |, ^ or ~ into `expr`, or None."""
        expr = strip_parens(expr)
        if expr is None or depth > 8:
            return None
        if expr.type == "identifier":
            d = ballot_var(ctx, expr)
            return d.name if d is not None else None
        if expr.type == "call_expression":
            name = call_name(ctx, expr)
            return name if name in MASK_SOURCES else None
        if expr.type == "unary_expression":
            op = expr.child_by_field_name("operator")
            if op is not None and op.type == "~":
                return WarpBallotWidth._ballot_operand(
                    ctx, expr.child_by_field_name("argument"), depth + 1
                )
            return None
        if expr.type == "binary_expression":
            op = expr.child_by_field_name("operator")
            if op is None or op.type not in ("&", "|", "^"):
                return None
            for side in ("left", "right"):
                found = WarpBallotWidth._ballot_operand(
                    ctx, expr.child_by_field_name(side), depth + 1
                )
                if found is not None:
                    return found
        return None

    def _bitop(self, ctx, call, arg, src, w64, fixable: bool = True):
        if call is None or call.type != "call_expression":
            return
        op = call_name(ctx, call)
        if op not in self.BITOPS or len(call_args(call)) != 1:
            return
        fn = call.child_by_field_name("function")
        new = self.BITOPS_FIX.get(op)
        if fixable and new is not None and fn is not None and fn.type == "identifier":
            fix = self.make_fix(
                [Edit(fn.start_byte, fn.end_byte, new.encode())], Applicability.SAFE, f"use {new}"
            )
            yield self.finding(
                ctx,
                fn,
                f"`{op}` truncates {src} to 32 bits, dropping lanes "
                f"32-63 on {fmt_targets(w64)}: use `{new}`",
                fix=fix,
                targets=w64,
            )
        else:
            yield self.finding(
                ctx,
                fn or call,
                f"`{op}` truncates {src} to 32 bits, dropping "
                f"lanes 32-63 on {fmt_targets(w64)}: use the 64-bit variant "
                f"(`{op}ll`) and adjust bit positions (31 → 63 or warpSize - 1)",
                targets=w64,
            )

    def _decl(self, ctx, init, src, w64, seen):
        decl = init.parent
        if decl is None or decl.type != "declaration" or decl.start_byte in seen:
            return
        tnode = decl.child_by_field_name("type")
        if tnode is None or type_width(type_text(ctx, tnode)) != 32:
            return
        ident = init.child_by_field_name("declarator")
        if ident is None or ident.type != "identifier":
            return
        seen.add(decl.start_byte)
        # every declarator of the declaration must be a mask source, else changing the shared
        # type would change the other variables
        for d in decl.children_by_field_name("declarator"):
            val = (
                strip_parens(d.child_by_field_name("value"))
                if d.type == "init_declarator"
                else None
            )
            if (
                val is None
                or val.type != "call_expression"
                or call_name(ctx, val) not in MASK_SOURCES
            ):
                yield self.finding(
                    ctx,
                    init,
                    f"`{src}` result stored in 32-bit `{ctx.text(ident)}`"
                    f": lanes 32-63 are lost on {fmt_targets(w64)}; declare it "
                    f"`unsigned long long`",
                    targets=w64,
                )
                return
        safe = self._uses_width_agnostic(ctx, ident)
        start = tnode.start_byte
        end = tnode.end_byte
        fix = self.make_fix(
            [Edit(start, end, b"unsigned long long")],
            Applicability.SAFE if safe else Applicability.UNSAFE,
            "declare the mask unsigned long long",
        )
        extra = "" if safe else " (review its comparisons: they now see all 64 lanes)"
        yield self.finding(
            ctx,
            init,
            f"`{src}` result stored in `{ctx.text(ident)}`, declared "
            f"`{type_text(ctx, tnode)}` (32-bit): lanes 32-63 are lost on "
            f"{fmt_targets(w64)}; declare it `unsigned long long`{extra}",
            fix=fix,
            targets=w64,
        )

    @staticmethod
    def _uses_width_agnostic(ctx, ident) -> bool:
        name = ctx.text(ident)
        fn = enclosing_function(ident, lambdas=True)
        if fn is None:
            return False
        for u in ctx.identifiers(
            [name], kinds=frozenset({"identifier"}), within=(ident.start_byte + 1, fn.end_byte)
        ):
            p = u.parent
            while p is not None and p.type == "parenthesized_expression":
                p = p.parent
            if p is None:
                continue
            if p.type == "unary_expression":
                op = p.child_by_field_name("operator")
                if op is not None and op.type in ("~", "-"):
                    return False
            if p.type == "binary_expression":
                op = p.child_by_field_name("operator")
                if op is not None and op.type in ("==", "!=", "<", ">", "<=", ">="):
                    other = p.child_by_field_name("right")
                    if other is not None and other.start_byte <= u.start_byte:
                        other = p.child_by_field_name("left")
                    if literal_value(ctx, other) != 0:
                        return False
        return True


# =============================================================================================
@register
class WarpLaneMask32(Rule):
    """Lane bit built with a 32-bit shift (`1 << lane`).

    ## What it finds
    `1 << lane`, `1u << laneId`, `(1 << lane) - 1`, `~(-1 << lane)`, `0xffffffff >> (32 - lane)`
    where the shifted value is a 32-bit literal and the shift count is a lane index of the whole
    wavefront: a variable named `lane`, `laneId`, `lane_id`..., `__lane_id()`,
    `threadIdx.x % warpSize` or `& (warpSize - 1)`. Lane variables initialised with `& 31` /
    `% 32` (bounded below 32; PT101 reports those) and shifts by other values are skipped.
    Reported only when a wave64 target is selected.

    ## Why it breaks on AMD
    On a 64-lane wavefront the lane index reaches 63; shifting a 32-bit value by 32 or more is
    undefined behaviour in C++ and in practice yields a wrong (truncated or wrapped) mask, so
    lanes 32-63 test the wrong ballot bit.

    ## Example
    ```cpp
    unsigned long long ballot = __ballot_sync(__activemask(), pred);
    bool mine = ballot & (1u << lane);
    ```

    ## Use instead
    `1ull << lane`, or HIP's 64-bit `__lanemask_eq()`, `__lanemask_lt()`, `__lanemask_gt()`.
    The unsafe fix adds the `ull` suffix; it changes the expression's type to 64 bits, so check
    that the result is kept in a 64-bit variable.

    ## Fix safety
    Unsafe (applied only with `--unsafe-fixes`). The fix adds `ull` to the shifted literal
    (`1u << lane` → `1ull << lane`), which makes the shift defined for lanes 32-63, but it
    changes the expression's type to 64 bits: stored in or passed as a 32-bit value it is still
    truncated, and overloads, format strings and arithmetic around it see another type. Offered
    only for a non-negative integer literal shifted left; `0xffffffff >> (32 - lane)` and shifts
    of variables are reported without a fix.

    ## References
    - HeCBench issue 177 (32-bit lane masks in ported kernels)
    - HIP `amd_device_functions.h`: `__lanemask_*` return `uint64_t`
    """

    code = "PT106"
    name = "warp-lanemask-32"
    severity = Severity.ERROR
    fix = Applicability.UNSAFE
    # a lane index (is_lane_index) needs a lane-named variable, a lane-id call or `warpSize`
    triggers = (b"lane", b"Lane", b"LANE", b"warpSize")

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding shifts by a lane index (is_lane_index): without one of its names, or
        without a shift whose right operand may be one, the file needs no parse for this
        rule."""
        return _may_index_lanes_in(data, idents) and _may_shift_by_lane(data, idents)

    def check(self, ctx):
        w64 = wave64_or_none(ctx)
        if not w64 or not _may_index_lanes(ctx):
            return
        for b in ctx.nodes("binary_expression"):
            op = b.child_by_field_name("operator")
            if op is None or op.type not in ("<<", ">>"):
                continue
            left = strip_parens(b.child_by_field_name("left"))
            right = strip_parens(b.child_by_field_name("right"))
            if left is None or right is None or expr_width(ctx, left) != 32:
                continue
            lit = left if left.type == "number_literal" else None
            if op.type == "<<":
                if not is_lane_index(ctx, right) or bounded_below_32(ctx, right):
                    continue
            else:
                # 0xffffffff >> (32 - lane)
                if right.type != "binary_expression":
                    continue
                rop = right.child_by_field_name("operator")
                if (
                    rop is None
                    or rop.type != "-"
                    or literal_value(ctx, right.child_by_field_name("left")) not in (31, 32)
                ):
                    continue
                r2 = right.child_by_field_name("right")
                if not is_lane_index(ctx, r2) or bounded_below_32(ctx, r2):
                    continue
            if ctx.vendor.at(b).hands_off:
                continue
            fix = None
            if lit is not None and op.type == "<<":
                iv = int_value(ctx.text(lit))
                if iv is not None and iv[0] >= 0:
                    digits = re.sub(r"[uUlL]+$", "", ctx.text(lit))
                    fix = self.make_fix(
                        [Edit(lit.start_byte, lit.end_byte, (digits + "ull").encode())],
                        Applicability.UNSAFE,
                        "shift a 64-bit one",
                    )
            yield self.finding(
                ctx,
                b,
                f"`{ctx.text(b)}` shifts a 32-bit value by a lane index, which reaches 63 "
                f"on {fmt_targets(w64)} (undefined for 32 or more): use `1ull << ...` or "
                f"`__lanemask_*()`",
                fix=fix,
                targets=w64,
            )


# =============================================================================================
def _shfl_calls_in(ctx, node):
    return [
        c
        for c in ctx.captures("(call_expression) @c", node).get("c", [])
        if call_name(ctx, c) in SHFL | SHFL_SYNC
    ]


def _has_width(ctx, call) -> bool:
    name = call_name(ctx, call)
    n = len(call_args(call))
    return n >= (4 if name.endswith("_sync") else 3)


def _delta_arg(ctx, call):
    args = call_args(call)
    i = 2 if call_name(ctx, call).endswith("_sync") else 1
    return args[i] if len(args) > i else None


@register
class WarpReduceOffset16(Rule):
    """Shuffle reduction that starts at offset 16 (covers 32 lanes only).

    ## What it finds
    - loops `for (int o = 16; o > 0; o /= 2)` (or `o >>= 1`, `o >= 1`, `o != 0`) whose body
      calls `__shfl_down`/`__shfl_xor`/`__shfl_up` (or the `_sync` forms) with the loop
      variable as the offset and no explicit `width`;
    - ascending loops `for (int o = 1; o < 32; o *= 2)` (or `o <<= 1`, `o <= 16`) of the same
      shape;
    - unrolled reductions: `__shfl_xor(v, 16)` / `__shfl_down_sync(m, v, 16)` without `width`
      in a function that also shuffles by 8, 4, 2 and 1.

    Loops starting at `warpSize / 2` and calls that pass `width = 32` explicitly are not
    reported; nor is anything on wave32-only target lists.

    ## Why it breaks on AMD
    On a 64-lane wavefront the tree must start at offset 32: starting at 16 reduces each
    32-lane half separately, so lane 0 ends with half the sum (CuPy's example produced wrong
    sums and an HSA exception).

    ## Example
    ```cpp
    for (int offset = 16; offset > 0; offset /= 2)
        val += __shfl_down_sync(0xffffffff, val, offset);
    ```

    ## Use instead
    ```cpp
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down(val, offset);
    ```
    If the algorithm really works on 32-lane groups, pass `width = 32` and combine the two
    halves afterwards. The unsafe fix rewrites the loop bound (`16` → `warpSize / 2`,
    `32` → `warpSize`); it assumes the code that consumes the result is per wavefront too.

    ## Fix safety
    Unsafe (applied only with `--unsafe-fixes`). The fix rewrites the loop's 32-lane bound: a
    start of 16 becomes `warpSize / 2`, an upper bound of 32 becomes `warpSize` (of 16,
    `warpSize / 2`), so the tree covers the whole wavefront; on wave32 targets the loop is
    unchanged. It assumes the result is meant per wavefront: code that reduces 32-lane groups on
    purpose (per-warp shared-memory slots indexed by `threadIdx.x / 32`, halves combined later)
    then computes something else. Unrolled reductions are reported without a fix (the step at
    offset 32 is added by hand).

    ## References
    - cupy PR 9977 (reduction offsets on wave64)
    - HIP kernel language reference, warp shuffle functions
    """

    code = "PT107"
    name = "warp-reduce-offset-16"
    severity = Severity.ERROR
    fix = Applicability.UNSAFE
    triggers = (b"__shfl",)

    def check(self, ctx):
        w64 = wave64_or_none(ctx)
        if not w64:
            return
        reported: set = set()
        for loop in ctx.nodes("for_statement"):
            r = self._loop(ctx, loop)
            if r is None or ctx.vendor.at(loop).hands_off:
                continue
            var, bound_node, new = r
            body = loop.child_by_field_name("body")
            if body is None:
                continue
            hits = []
            for c in _shfl_calls_in(ctx, body):
                d = strip_parens(_delta_arg(ctx, c))
                if d is not None and d.type == "identifier" and ctx.text(d) == var:
                    hits.append(c)
            if not hits or any(_has_width(ctx, c) for c in hits):
                continue
            reported.update(c.start_byte for c in hits)
            fix = self.make_fix(
                [Edit(bound_node.start_byte, bound_node.end_byte, new.encode())],
                Applicability.UNSAFE,
                f"use {new}",
            )
            yield self.finding(
                ctx,
                bound_node,
                f"shuffle reduction over `{var}` bounded by "
                f"`{ctx.text(bound_node)}` covers only 32 lanes; wavefronts on {fmt_targets(w64)} "
                "have 64: "
                f"use `{new}`",
                fix=fix,
                targets=w64,
            )
        # unrolled: __shfl_xor(v, 16) ... (v, 1)
        fn_deltas: dict[tuple[int, int], set] = {}  # per function: once, not once per call
        for c in (k.node for k in ctx.calls.named(SHFL | SHFL_SYNC, members=True)):
            if c.start_byte in reported or _has_width(ctx, c):
                continue
            if literal_value(ctx, _delta_arg(ctx, c)) != 16 or ctx.vendor.at(c).hands_off:
                continue
            fn = enclosing_function(c, lambdas=True)
            if fn is None:
                continue
            key = (fn.start_byte, fn.end_byte)
            if key not in fn_deltas:
                fn_deltas[key] = {
                    literal_value(ctx, _delta_arg(ctx, x)) for x in _shfl_calls_in(ctx, fn)
                }
            deltas = fn_deltas[key]
            if not {8, 4, 2, 1} <= deltas or 32 in deltas:
                continue
            yield self.finding(
                ctx,
                c,
                f"unrolled shuffle reduction starts at offset 16 and covers only 32 lanes;"
                f" wavefronts on {fmt_targets(w64)} have 64: add a step at offset 32 (or loop from "
                f"`warpSize / 2`)",
                targets=w64,
            )

    @staticmethod
    def _loop(ctx, loop):
        """(variable, node holding the 32-lane bound, replacement text) or None."""
        init = loop.child_by_field_name("initializer")
        cond = loop.child_by_field_name("condition")
        upd = loop.child_by_field_name("update")
        if init is None or cond is None or upd is None:
            return None
        var = start = None
        if init.type == "declaration":
            for d in init.children_by_field_name("declarator"):
                if d.type == "init_declarator":
                    var = d.child_by_field_name("declarator")
                    start = d.child_by_field_name("value")
        elif init.type == "assignment_expression":
            var = init.child_by_field_name("left")
            start = init.child_by_field_name("right")
        if var is None or start is None or var.type != "identifier":
            return None
        name = ctx.text(var)
        sv = literal_value(ctx, start)
        # update
        u = strip_parens(upd)
        direction = None
        if u.type == "assignment_expression":
            op = u.child_by_field_name("operator")
            lhs = u.child_by_field_name("left")
            rv = literal_value(ctx, u.child_by_field_name("right"))
            if lhs is not None and ctx.text(lhs) == name and op is not None:
                if (op.type == "/=" and rv == 2) or (op.type == ">>=" and rv == 1):
                    direction = "down"
                elif (op.type == "*=" and rv == 2) or (op.type == "<<=" and rv == 1):
                    direction = "up"
                elif op.type == "=":
                    rhs = strip_parens(u.child_by_field_name("right"))
                    if rhs is not None and rhs.type == "binary_expression":
                        rop = rhs.child_by_field_name("operator")
                        rl = rhs.child_by_field_name("left")
                        rr = literal_value(ctx, rhs.child_by_field_name("right"))
                        if rl is not None and ctx.text(rl) == name and rop is not None:
                            if (rop.type == "/" and rr == 2) or (rop.type == ">>" and rr == 1):
                                direction = "down"
                            elif (rop.type == "*" and rr == 2) or (rop.type == "<<" and rr == 1):
                                direction = "up"
        if direction is None:
            return None
        c = strip_parens(cond)
        if direction == "down" and sv == 16 and c.type == "identifier" and ctx.text(c) == name:
            return name, strip_parens(start), "warpSize / 2"  # for (o = 16; o; o >>= 1)
        if c.type != "binary_expression":
            return None
        cop = c.child_by_field_name("operator")
        cl, cr = c.child_by_field_name("left"), c.child_by_field_name("right")
        if cop is None or cl is None or ctx.text(cl) != name:
            return None
        cv = literal_value(ctx, cr)
        if direction == "down":
            if sv == 16 and (
                (cop.type == ">" and cv == 0)
                or (cop.type == ">=" and cv == 1)
                or (cop.type == "!=" and cv == 0)
            ):
                return name, strip_parens(start), "warpSize / 2"
            return None
        if sv == 1 and ((cop.type == "<" and cv == 32) or (cop.type == "<=" and cv == 16)):
            return name, strip_parens(cr), ("warpSize" if cv == 32 else "warpSize / 2")
        return None


# =============================================================================================
@register
class WarpShflWidth(Rule):
    """Shuffle broadcast from lane 31 (the last lane of a 32-lane warp).

    ## What it finds
    `__shfl(v, 31)` and `__shfl_sync(mask, v, 31)` without a `width` argument (or with
    `width = warpSize`/64): the "take the last lane's value" step of warp scans.
    Reported only when a wave64 target is selected. (Shuffles in code that splits lanes with
    `& 31` are covered by PT101 at the split.)

    ## Why it breaks on AMD
    The default width is `warpSize`, which is 64 on gfx9: lane 31 is the middle of the
    wavefront, so lanes 32-63 receive the total of the first half instead of their own.

    ## Example
    ```cpp
    float total = __shfl_sync(0xffffffff, inclusive, 31);
    ```

    ## Use instead
    `__shfl(v, warpSize - 1)` when the scan runs over the whole wavefront, or an explicit
    `width` of 32 (`__shfl(v, 31, 32)`) when the algorithm works on 32-lane groups.

    ## References
    - HIP kernel language reference: shuffle "default width is warpSize"
    - HeCBench issues 177 and 180
    """

    code = "PT108"
    name = "warp-shfl-width"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = (b"__shfl",)

    def check(self, ctx):
        w64 = wave64_or_none(ctx)
        if not w64:
            return
        for c in (k.node for k in ctx.calls.named({"__shfl", "__shfl_sync"}, members=True)):
            args = call_args(c)
            sync = call_name(ctx, c) == "__shfl_sync"
            i = 2 if sync else 1
            if len(args) <= i or literal_value(ctx, args[i]) != 31:
                continue
            if len(args) > i + 1:
                wv = literal_value(ctx, args[i + 1])
                wt = ctx.text(args[i + 1]).replace(" ", "")
                if not (wv == 64 or wt == "warpSize"):
                    continue
            if ctx.vendor.at(c).hands_off:
                continue
            yield self.finding(
                ctx,
                args[i],
                f"`{ctx.text(c)}` reads lane 31, the middle of a 64-lane wavefront "
                f"on {fmt_targets(w64)}: use `warpSize - 1`, or pass width 32 if the algorithm "
                f"works on 32-lane groups",
                targets=w64,
            )


# =============================================================================================
SYNC_SHIM_NAMES = tuple(
    f"__{n}_sync"
    for n in ("shfl", "shfl_up", "shfl_down", "shfl_xor", "ballot", "any", "all", "match_any")
) + ("__match_all_sync", "__syncwarp", "__activemask")
SYNC_SHIM = re.compile(r"^(?:" + "|".join(SYNC_SHIM_NAMES) + r")$")
_SYNC_SHIM_BYTES = frozenset(n.encode() for n in SYNC_SHIM_NAMES)  # (DROPPED_BEFORE_70 among them)
VERSION_GUARD = re.compile(
    r"HIP_VERSION|ROCM_VERSION|HIP_VERSION_MAJOR|WARP_SYNC_BUILTINS"
    r"|__CUDACC__|__CUDA_ARCH__|__NVCC__|__HIP_PLATFORM_NVIDIA__"
    r"|__HIP_PLATFORM_NVCC__|CUDA_VERSION"
)


def _version_macro(name: str) -> bool:
    """A macro whose `#if` chain picks code by ROCm/CUDA version or by compiler."""
    return VERSION_GUARD.search(name) is not None


@register
class WarpSyncBuiltinsVersion(Rule):
    """`_sync` warp builtins versus the target ROCm version, and home-made `_sync` shims.

    ## What it finds
    - With `--rocm-version` below 7.0: calls to `__shfl*_sync`, `__ballot_sync`, `__any_sync`,
      `__all_sync` whose mask is not a full mask (`0xffffffff`, `__activemask()`, all-ones).
      porter's rewriter turns these into the unmasked HIP builtins (`__shfl_down(v, d)`),
      which act on the whole wavefront: a partial mask is silently ignored.
    - Definitions of compatibility shims such as
      `#define __shfl_xor_sync(m, ...) __shfl_xor(__VA_ARGS__)` (or functions of those names)
      that are not guarded by a `HIP_VERSION`/`ROCM_VERSION`/CUDA check, when the target ROCm
      is 6.2 or later.

    ## Why it breaks on AMD
    The `_sync` builtins are absent before ROCm 6.2, opt-in with
    `HIP_ENABLE_WARP_SYNC_BUILTINS` in 6.2-6.4 and on by default from 7.0
    (`HIP_DISABLE_WARP_SYNC_BUILTINS` turns them off). Old shims collide with the native
    templates (a macro of the same name breaks the header's declarations, or a second
    definition fails to compile), and dropping a partial mask changes results (`__ballot`
    returns bits of lanes outside the mask).

    ## Example
    ```cpp
    #define __shfl_down_sync(mask, var, delta) __shfl_down(var, delta)
    unsigned long long odd = __ballot_sync(0xaaaaaaaa, pred);   // ROCm 6.4: mask dropped
    ```

    ## Use instead
    Guard shims with `#if HIP_VERSION < 70000000` (or `!defined(HIP_ENABLE_WARP_SYNC_BUILTINS)`),
    prefer the native builtins with 64-bit masks on ROCm 7.0+, and apply partial masks
    explicitly (`__ballot(pred) & mask`) on older versions.

    ## References
    - HIP kernel language reference, warp sync builtins (`HIP_ENABLE_WARP_SYNC_BUILTINS`)
    - HIP `amd_warp_sync_functions.h` in ROCm 6.4 (opt-in) and 7.2 (default)
    - HeCBench PR 221 (quotes the ROCm 7.0 documentation); AMD-Ecosystem/llama.cpp PR 2; vLLM
      `csrc/cuda_compat.h`
    """

    code = "PT109"
    name = "warp-sync-builtins-version"
    severity = Severity.WARNING
    fix = Applicability.NONE
    triggers = (b"_sync",)

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on a call of a builtin before 7.0 (`DROPPED_BEFORE_70`) or on a
        home-made shim (`SYNC_SHIM_NAMES`, which hold those builtins' names): without such an
        identifier token the file needs no parse for this rule."""
        return not _SYNC_SHIM_BYTES.isdisjoint(idents)

    def check(self, ctx):
        v = ctx.options.rocm_version
        vt = ".".join(map(str, v))
        if v < (7, 0):
            for c in (k.node for k in ctx.calls.named(DROPPED_BEFORE_70, members=True)):
                args = call_args(c)
                if not args or is_full32_mask(ctx, args[0]) or is_full64_mask(ctx, args[0]):
                    continue
                m = strip_parens(args[0])
                if m.type == "identifier":
                    d = ctx.decls.find(m)
                    if (
                        d is not None
                        and d.value is not None
                        and (is_full32_mask(ctx, d.value) or is_full64_mask(ctx, d.value))
                    ):
                        continue
                name = call_name(ctx, c)
                if ctx.pp.guarded_by(c.start_byte, _version_macro) or ctx.vendor.at(c).not_for_amd:
                    continue
                yield self.finding(
                    ctx,
                    args[0],
                    f"`{name}` with mask `{ctx.text(args[0])}`: for ROCm {vt} porter "
                    f"uses `{name[:-5]}`, which ignores the mask and acts on the whole wavefront;"
                    f" apply the mask explicitly or target ROCm 7.0+",
                )
        if v < (6, 2) or _SYNC_SHIM_BYTES.isdisjoint(ctx.idents):
            return  # (a shim's name is one of the file's identifier tokens)
        for d in ctx.nodes("preproc_function_def", "preproc_def", "function_definition"):
            if d.type == "function_definition":
                decl = d.child_by_field_name("declarator")
                while decl is not None and decl.type not in ("function_declarator",):
                    decl = decl.child_by_field_name("declarator")
                name_node = decl.child_by_field_name("declarator") if decl is not None else None
            else:
                name_node = d.child_by_field_name("name")
            if name_node is None or not SYNC_SHIM.match(ctx.text(name_node)):
                continue
            if ctx.pp.guarded_by(d.start_byte, _version_macro) or ctx.vendor.at(d).not_for_amd:
                continue
            shim = ctx.text(name_node)
            state = (
                "on by default" if v >= (7, 0) else "available with HIP_ENABLE_WARP_SYNC_BUILTINS"
            )
            yield self.finding(
                ctx,
                name_node,
                f"home-made `{shim}` collides with HIP's own (ROCm {vt}: {state}): "
                "guard "
                f"it with `#if HIP_VERSION < 70000000` or drop it in favour of the native builtin",
            )


# =============================================================================================
@register
class WarpSyncwarp(Rule):
    """`__syncwarp` versus the target ROCm version.

    ## What it finds
    Calls to `__syncwarp()` and `__syncwarp(mask)`: error when `--rocm-version` is below 7.0,
    info from 7.0 on (the build then requires ROCm 7.0). Calls under a `HIP_VERSION` /
    `ROCM_VERSION` / CUDA guard are skipped.

    ## Why it breaks on AMD
    `__syncwarp` was added in ROCm 7.0 (`amd_warp_sync_functions.h`: a wavefront barrier
    between release and acquire fences); on ROCm 6.x the build fails with "use of undeclared
    identifier '__syncwarp'". From 7.0 a mask argument must be 64-bit (see PT104).

    ## Example
    ```cpp
    smem[lane] = v;
    __syncwarp();
    ```

    ## Use instead
    On ROCm 7.0+ keep it (with a 64-bit mask). For older ROCm, a wavefront barrier with
    fences (`__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");`,
    which is what ROCm 7.2 itself does) or `cg::tiled_partition` of the wavefront size and
    `.sync()`, behind a `HIP_VERSION` guard.

    ## References
    - HIP `amd_warp_sync_functions.h` (present in ROCm 7.2, absent in 6.4)
    - vLLM PR 28682; ROCm/TransferBench PR 220; ROCm/hip PR 3854 and issue 2798
    """

    code = "PT110"
    name = "warp-syncwarp"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = (b"__syncwarp",)

    def check(self, ctx):
        v = ctx.options.rocm_version
        vt = ".".join(map(str, v))
        for c in (k.node for k in ctx.calls.named({"__syncwarp"}, members=True)):
            if ctx.pp.guarded_by(c.start_byte, _version_macro) or ctx.vendor.at(c).not_for_amd:
                continue
            if v < (7, 0):
                yield self.finding(
                    ctx,
                    c,
                    f"`__syncwarp` does not exist in ROCm {vt} (added in 7.0): use a "
                    f"wavefront barrier with fences behind a HIP_VERSION guard, or target ROCm "
                    f"7.0+",
                    severity=Severity.ERROR,
                )
            else:
                yield self.finding(
                    ctx,
                    c,
                    "`__syncwarp` needs ROCm 7.0 or later; on AMD it is a wavefront "
                    "barrier with fences (any mask must be 64-bit)",
                    severity=Severity.INFO,
                )


# =============================================================================================
@register
class WarpActivemaskCompare(Rule):
    """Active-mask or ballot compared with a 32-lane full mask.

    ## What it finds
    `__activemask() == 0xffffffff`, `__ballot_sync(m, p) != 0xFFFFFFFF`, `mask == ~0u` and the
    like (also through a variable holding such a result), and `__popc(__activemask()) == 32`:
    tests for "the whole warp is active / voted yes" written for 32 lanes. Reported only when a
    wave64 target is selected.

    ## Why it breaks on AMD
    On HIP these functions return `unsigned long long` with one bit per lane of a 64-lane
    wavefront: with all lanes active the value is `0xffffffffffffffff`, never `0xffffffff`, so
    the convergence test fails (or, after truncation, only looks at half the wavefront).
    SYCLomatic rewrites `__activemask()` to `0xffffffff` for the same reason (DPCT1086).

    ## Example
    ```cpp
    if (__activemask() == 0xffffffff) { fast_path(); }
    ```

    ## Use instead
    Compare against the all-lanes value of the wavefront width, e.g.
    `__activemask() == (warpSize == 64 ? ~0ull : 0xffffffffull)`, or `__popcll(mask) == warpSize`.

    ## References
    - HIP kernel language reference (`__activemask` returns a 64-bit mask)
    - SYCLomatic `Diagnostics.inc`, DPCT1086
    """

    code = "PT111"
    name = "warp-activemask"
    severity = Severity.WARNING
    fix = Applicability.NONE
    triggers = (b"__activemask", b"__ballot")

    def check(self, ctx):
        w64 = wave64_or_none(ctx)
        if not w64:
            return
        for b in ctx.nodes("binary_expression"):
            op = b.child_by_field_name("operator")
            if op is None or op.type not in ("==", "!="):
                continue
            lhs = strip_parens(b.child_by_field_name("left"))
            r = strip_parens(b.child_by_field_name("right"))
            if lhs is None or r is None:
                continue
            for a, other in ((lhs, r), (r, lhs)):
                src = self._source(ctx, a)
                if src is None:
                    continue
                if src.startswith("__popc") and literal_value(ctx, other) == 32:
                    pass
                elif src.startswith("__popc") or not is_full32_mask(ctx, other):
                    continue
                if ctx.vendor.at(b).hands_off:
                    break
                yield self.finding(
                    ctx,
                    b,
                    f"`{ctx.text(b)}` tests a 32-lane warp, but `{src}` covers "
                    f"64 lanes on {fmt_targets(w64)}: compare with the all-lanes value of "
                    f"`warpSize` lanes",
                    targets=w64,
                )
                break

    @staticmethod
    def _source(ctx, node):
        if node.type == "call_expression":
            name = call_name(ctx, node)
            if name in ("__activemask", "__ballot", "__ballot_sync"):
                return name + "()"
            if name in ("__popc", "__popcll"):
                a = call_args(node)
                if len(a) == 1:
                    inner = WarpActivemaskCompare._source(ctx, strip_parens(a[0]))
                    if inner is not None and not inner.startswith("__popc"):
                        return f"__popc({inner})"
            return None
        if node.type == "identifier":
            d = ballot_var(ctx, node)
            if d is not None and call_name(ctx, strip_parens(d.value)) in (
                "__activemask",
                "__ballot",
                "__ballot_sync",
            ):
                return ctx.text(node)
        return None


# =============================================================================================
@register
class WarpMatchReduceSync(Rule):
    """`__match_*_sync` / `__reduce_*_sync` versus the target ROCm version.

    ## What it finds
    `__match_any_sync` and `__match_all_sync` when `--rocm-version` is below 7.0 (calls under
    a `HIP_VERSION` guard, or files that define `HIP_ENABLE_WARP_SYNC_BUILTINS`, are skipped).
    `__reduce_*_sync` before ROCm 7.2 is reported by the mapping step as unsupported (PT002).

    ## Why it breaks on AMD
    The match functions live in `amd_warp_sync_functions.h`, compiled only with
    `HIP_ENABLE_WARP_SYNC_BUILTINS` on ROCm 6.2-6.4 and absent before 6.2; the `__reduce_*_sync`
    family first appears in ROCm 7.2's headers. Without the opt-in the build fails with an
    undeclared identifier. Their masks must be 64-bit and they return 64-bit lane masks.

    ## Example
    ```cpp
    unsigned long long peers = __match_any_sync(__activemask(), key);   // ROCm 6.4
    ```

    ## Use instead
    Target ROCm 7.0+ (7.2+ for `__reduce_*_sync`), define `HIP_ENABLE_WARP_SYNC_BUILTINS` for
    6.2-6.4, or fall back to shuffle/ballot loops behind a `HIP_VERSION` guard.

    ## References
    - HIP kernel language reference (match functions, 64-bit masks)
    - HIP `amd_warp_sync_functions.h` in ROCm 6.4 (opt-in) and 7.2 (`__reduce_*_sync`)
    - tile-ai/tilelang PR 2195 (vendored warp-sync header)
    """

    code = "PT112"
    name = "warp-match-reduce-sync"
    severity = Severity.WARNING
    fix = Applicability.NONE
    triggers = (b"__match_a",)

    def check(self, ctx):
        v = ctx.options.rocm_version
        if v >= (7, 0) or b"HIP_ENABLE_WARP_SYNC_BUILTINS" in ctx.data:
            return
        vt = ".".join(map(str, v))
        need = (
            "define HIP_ENABLE_WARP_SYNC_BUILTINS (ROCm 6.2-6.4) or target 7.0+"
            if v >= (6, 2)
            else "it needs ROCm 6.2+ with HIP_ENABLE_WARP_SYNC_BUILTINS, or 7.0+"
        )
        for c in (k.node for k in ctx.calls.named(MATCH_SYNC, members=True)):
            if ctx.pp.guarded_by(c.start_byte, _version_macro) or ctx.vendor.at(c).not_for_amd:
                continue
            yield self.finding(
                ctx,
                c.child_by_field_name("function") or c,
                f"`{call_name(ctx, c)}` is not available by default in ROCm {vt}: {need}",
            )


# =============================================================================================
@register
class WarpSynchronousImplicit(Rule):
    """Last-warp reduction that relies on implicit warp-synchronous execution.

    ## What it finds
    The classic unrolled tail of a shared-memory reduction: statements such as
    `s[tid] += s[tid + 16]; s[tid] += s[tid + 8]; ...` (through a `volatile` pointer, often
    under `if (tid < 32)`) with no `__syncwarp` in between. Reported once per block, at info,
    and only when a wave64 target is selected.

    ## Why it breaks on AMD
    It still works: AMD wavefronts execute in lockstep (the HIP guide says the hardware
    guarantees it), so the `volatile` accesses are ordered. But only 32 of the 64 lanes do
    useful work in the last steps, and dropping `volatile` breaks the pattern on either vendor.

    ## Example
    ```cpp
    if (tid < 32) {
        volatile float* v = sdata;
        v[tid] += v[tid + 32]; v[tid] += v[tid + 16]; v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];  v[tid] += v[tid + 2];  v[tid] += v[tid + 1];
    }
    ```

    ## Use instead
    A shuffle reduction sized by `warpSize` (`for (int o = warpSize / 2; o > 0; o /= 2)`), or
    cooperative-groups `reduce` on a tile of the wavefront size.

    ## References
    - HIP kernel language reference: "hardware guarantees that all warp lanes will execute in
      lockstep"
    """

    code = "PT114"
    name = "warp-synchronous-implicit"
    severity = Severity.INFO
    fix = Applicability.NONE
    triggers = (b"+ 16]", b"+16]")

    def check(self, ctx):
        w64 = wave64_or_none(ctx)
        if not w64:
            return
        done = set()
        for s in ctx.nodes("subscript_expression"):
            idx = s.child_by_field_name("indices") or s.child_by_field_name("index")
            if idx is None:
                continue
            idx = strip_parens(idx)
            if idx.type == "subscript_argument_list" and idx.named_child_count == 1:
                idx = strip_parens(idx.named_children[0])
            if idx.type != "binary_expression":
                continue
            op = idx.child_by_field_name("operator")
            if (
                op is None
                or op.type != "+"
                or literal_value(ctx, idx.child_by_field_name("right")) != 16
            ):
                continue
            if not is_thread_index(ctx, idx.child_by_field_name("left")):
                continue
            scope = None
            for a in ancestors(s):
                if a.type in ("compound_statement",):
                    scope = a
                    break
            if scope is None or scope.start_byte in done:
                continue
            text = ctx.btext(scope)
            if (
                not re.search(rb"\+\s*8\s*\]", text)
                or b"__syncwarp" in text
                or ctx.vendor.at(s).hands_off
            ):
                continue
            done.add(scope.start_byte)
            stmt = s
            for a in ancestors(s):
                if a.type == "expression_statement":
                    stmt = a
                    break
            yield self.finding(
                ctx,
                stmt,
                "unrolled last-warp reduction relies on lockstep execution: it works "
                f"on {fmt_targets(w64)} but uses 32 of 64 lanes; prefer a shuffle reduction "
                "sized by `warpSize`",
                targets=w64,
            )


# =============================================================================================
@register
class WarpIndependentScheduling(Rule):
    """Per-thread spin lock that needs independent thread scheduling.

    ## What it finds
    Lock acquisition loops executed by every thread, such as
    `while (atomicCAS(&lock, 0, 1) != 0) {}` or `while (atomicExch(&lock, 1)) {}`, when the
    same function releases the same lock (`atomicExch(&lock, 0)`, `lock = 0`). Loops under a
    condition that elects one thread or lane (`if (threadIdx.x == 0)`, `if (lane == 0)`) are
    skipped, and so are compare-and-swap retry loops that are not locks.

    ## Why it breaks on AMD
    HIP does not have Volta-style independent thread scheduling: the lanes of a wavefront
    share one program counter. The lane that wins the lock leaves the loop but waits for the
    lanes still spinning, which wait for the lock it never releases: the wavefront livelocks
    (on every AMD target, wave32 or wave64).

    ## Example
    ```cpp
    while (atomicCAS(&mutex, 0, 1) != 0) {}
    table[slot] += v;
    atomicExch(&mutex, 0);
    ```

    ## Use instead
    Elect one lane per wavefront to take the lock (ballot plus leader), or restructure so that
    the critical section runs inside the loop:
    `bool done = false; while (!done) { if (atomicCAS(&mutex, 0, 1) == 0) {
    ...; atomicExch(&mutex, 0); done = true; } }`.

    ## References
    - HIP kernel language reference, section on independent thread scheduling (not supported)
    - The livelock mechanism is standard SIMT reasoning
    """

    code = "PT115"
    name = "warp-independent-scheduling"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = (b"atomicCAS", b"atomicExch")
    ELECT = re.compile(r"==\s*0\b|\b0\s*==|!\s*\(?\s*(?:threadIdx|lane|tid)")

    def check(self, ctx):
        for loop in ctx.nodes("while_statement", "do_statement"):
            cond = loop.child_by_field_name("condition")
            if cond is None:
                continue
            acq = None
            for c in ctx.captures("(call_expression) @c", cond).get("c", []):
                if call_name(ctx, c) in (
                    "atomicCAS",
                    "atomicExch",
                    "atomicCAS_system",
                    "atomicExch_system",
                ):
                    acq = c
                    break
            if acq is None:
                continue
            args = call_args(acq)
            name = call_name(ctx, acq)
            if not args:
                continue
            if name.startswith("atomicCAS"):
                if (
                    len(args) != 3
                    or literal_value(ctx, args[1]) is None
                    or literal_value(ctx, args[2]) is None
                ):
                    continue
            elif len(args) != 2 or literal_value(ctx, args[1]) is None:
                continue
            lock = ctx.text(strip_parens(args[0])).lstrip("&").strip()
            fn = enclosing_function(loop, lambdas=True)
            if fn is None or not self._released(ctx, fn, lock, loop):
                continue
            if self._elected(ctx, loop, fn) or ctx.vendor.at(loop).not_for_amd:
                continue
            yield self.finding(
                ctx,
                cond,
                f"spin lock on `{lock}` taken by every thread: without independent "
                "thread scheduling the wavefront livelocks; elect one lane per wavefront or "
                "move the critical section inside the loop",
            )

    @staticmethod
    def _released(ctx, fn, lock, loop) -> bool:
        for c in ctx.captures("(call_expression) @c", fn).get("c", []):
            if c.start_byte < loop.end_byte:
                continue
            name = call_name(ctx, c)
            args = call_args(c)
            if (
                name.startswith("atomicExch")
                and len(args) == 2
                and literal_value(ctx, args[1]) == 0
            ):
                if ctx.text(strip_parens(args[0])).lstrip("&").strip() == lock:
                    return True
        for a in ctx.captures("(assignment_expression) @a", fn).get("a", []):
            if a.start_byte < loop.end_byte:
                continue
            left = a.child_by_field_name("left")
            if (
                left is not None
                and ctx.text(left).lstrip("*").strip() == lock
                and literal_value(ctx, a.child_by_field_name("right")) == 0
            ):
                return True
        return False

    EARLY_OUT = re.compile(r"!=\s*0\b|\b0\s*!=|>\s*0\b")

    def _elected(self, ctx, loop, fn) -> bool:
        # `if (threadIdx.x != 0) return;` before the loop: only one thread gets there
        for s in ctx.captures("(if_statement) @s", fn).get("s", []):
            if s.end_byte > loop.start_byte:
                continue
            cond, body = s.child_by_field_name("condition"), s.child_by_field_name("consequence")
            if cond is None or body is None:
                continue
            stmts = body.named_children if body.type == "compound_statement" else [body]
            if (
                len(stmts) == 1
                and stmts[0].type == "return_statement"
                and self.EARLY_OUT.search(ctx.text(cond))
                and (
                    contains_thread_idx(ctx, cond)
                    or re.search(r"(?i)lane|tid|thread|leader|rank", ctx.text(cond))
                )
            ):
                return True
        for a in ancestors(loop):
            if a is fn or a.type == "function_definition":
                return False
            if a.type == "if_statement":
                cond = a.child_by_field_name("condition")
                if (
                    cond is not None
                    and self.ELECT.search(ctx.text(cond))
                    and (
                        contains_thread_idx(ctx, cond)
                        or re.search(r"(?i)lane|tid|thread|leader|rank", ctx.text(cond))
                    )
                ):
                    return True
        return False


# =============================================================================================
@register
class OccupancyMath32(Rule):
    """Occupancy arithmetic that divides thread counts by 32.

    ## What it finds
    Host or device code dividing device limits by a literal 32 (or shifting by 5):
    `prop.maxThreadsPerMultiProcessor / 32`, `prop.maxThreadsPerBlock / 32`,
    `maxThreadsPerSM / 32`, `prop.regsPerBlock / 32`. Reported at info, only when a wave64
    target is selected.

    ## Why it breaks on AMD
    AMD occupancy is counted in wavefronts of 64 lanes per SIMD (execution unit), with 4 SIMDs
    per CU and 512 VGPRs per lane per SIMD allocated in blocks (MI300X): "warps per SM" computed
    with 32 is twice the real wavefront count, and register budgets per 32 threads are off.

    ## Example
    ```cpp
    int warpsPerSM = prop.maxThreadsPerMultiProcessor / 32;
    ```

    ## Use instead
    `hipOccupancyMaxActiveBlocksPerMultiprocessor` and friends, and `prop.warpSize`
    (`hipDeviceAttributeWarpSize`) instead of 32.

    ## References
    - AMD Instinct MI300X workload tuning guide (VGPR occupancy example)
    - HIP kernel language reference (EU = SIMD, `executionUnitsPerMultiprocessor`)
    """

    code = "PT119"
    name = "occupancy-math-32"
    severity = Severity.INFO
    fix = Applicability.NONE
    triggers = (b"maxThreadsPer", b"regsPer", b"ThreadsPerSM", b"threads_per_sm")
    FIELDS = frozenset(
        {
            "maxThreadsPerMultiProcessor",
            "maxThreadsPerBlock",
            "regsPerBlock",
            "regsPerMultiprocessor",
            "maxThreadsPerMultiprocessor",
        }
    )
    NAMES = re.compile(r"(?i)^(?:max_?)?threads_?per_?(?:sm|multi_?processor|mp|cu)$")

    def check(self, ctx):
        w64 = wave64_or_none(ctx)
        if not w64:
            return
        for b in ctx.nodes("binary_expression"):
            op = b.child_by_field_name("operator")
            if op is None or op.type not in ("/", ">>"):
                continue
            v = literal_value(ctx, b.child_by_field_name("right"))
            if not ((op.type == "/" and v == 32) or (op.type == ">>" and v == 5)):
                continue
            left = strip_parens(b.child_by_field_name("left"))
            if left is None:
                continue
            name = None
            if left.type == "field_expression":
                f = left.child_by_field_name("field")
                if f is not None and ctx.text(f) in self.FIELDS:
                    name = ctx.text(f)
            elif left.type == "identifier" and self.NAMES.match(ctx.text(left)):
                name = ctx.text(left)
            if name is None or ctx.vendor.at(b).hands_off:
                continue
            yield self.finding(
                ctx,
                b,
                f"`{ctx.text(b)}` counts 32-thread warps, but {fmt_targets(w64)} "
                f"{verb_for(w64, 'schedule')} "
                f"64-lane wavefronts: use `warpSize` and the hipOccupancy* APIs",
                targets=w64,
            )
