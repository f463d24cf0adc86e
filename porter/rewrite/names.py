"""Where a name sits in the tree (code, comment, string, macro body, unparsed region), whether it
is being declared, and the argument-level rewrites of call transforms."""

from __future__ import annotations

import bisect
import re
from collections.abc import Set as AbstractSet
from functools import lru_cache

from ..findings import Edit
from ..mappings.model import (
    ARGS_NAME,
    ARITY,
    DEFAULT_ARG,
    DROP_ARGS,
    DROP_NULL_ARG,
    MAX_ARGS,
    NO_WORKSPACE,
    NONNULL,
    ROC_PART,
    TRANSFORM_SEP,
    WORKSPACE_OF,
    Row,
)
from ..parse import cuda as P
from .lex import CUDA_LOOKING_B, IDENT, WORD, comment_and_literal_spans, lex_code_spans

# Parents under which an identifier is being declared, with the field that holds the name.
_DECL_FIELDS = {
    "function_declarator": "declarator",
    "init_declarator": "declarator",
    "pointer_declarator": "declarator",
    "reference_declarator": None,
    "array_declarator": "declarator",
    "declaration": "declarator",
    "parameter_declaration": "declarator",
    "optional_parameter_declaration": "declarator",
    "field_declaration": "declarator",
    "type_definition": "declarator",
    "struct_specifier": "name",
    "class_specifier": "name",
    "union_specifier": "name",
    "enum_specifier": "name",
    "enumerator": "name",
    "preproc_def": "name",
    "preproc_function_def": "name",
    "alias_declaration": "name",
    "namespace_definition": "name",
    "type_parameter_declaration": None,
    "namespace_alias_definition": "name",
    "preproc_params": None,
    "template_function": None,
}
TAG_SPECIFIERS = frozenset(
    {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"}
)
_ELABORATED = re.compile(rb"(?:struct|class|union|enum)\s+")
_NAMELESS_DECL = ("reference_declarator", "type_parameter_declaration", "preproc_params")


def is_declaration_name(node) -> bool:
    """Is this identifier node the name a declaration declares?"""
    parent = node.parent
    if parent is None:
        return False
    if parent.type not in _DECL_FIELDS:
        return False
    fld = _DECL_FIELDS[parent.type]
    if parent.type == "template_function":
        return False
    if parent.type in TAG_SPECIFIERS and parent.child_by_field_name("body") is None:
        return False  # `struct cudaDeviceProp p;` names a type, it does not define one
    if fld is None:
        return parent.type in _NAMELESS_DECL
    child = parent.child_by_field_name(fld)
    return (
        child is not None
        and child.start_byte == node.start_byte
        and child.end_byte == node.end_byte
    )


# Where a file may declare a name itself: `using N =`, `#define N`, `struct N {` / `: base`,
# `typedef ... N;`, `} N;` (a typedef of a struct body). Each site is then checked in the tree.
# Separate patterns, so that one match (a `typedef` in a comment running on to the next `;`)
# cannot hide another.
# Each pattern starts with a literal, so that Python's `re` scans for it: the word boundary before
# `using`, `struct`... is tested on the byte before a match (True), not with a leading `\b`,
# which the regex engine tries at every byte (benchmarks/RESULTS.md).
_DECL_SITES = (
    (re.compile(rb"using[ \t]+([A-Za-z_]\w*)[ \t]*="), True),
    (re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)"), False),
    *(
        (re.compile(keyword + rb"[ \t]+([A-Za-z_]\w*)[ \t\r\n]*[:{]"), True)
        for keyword in (rb"struct", rb"class", rb"union", rb"enum(?:[ \t]+(?:class|struct))?")
    ),
    (re.compile(rb"typedef\b[^;{}]*?\b([A-Za-z_]\w*)[ \t]*;"), True),
    (re.compile(rb"\}[ \t]*([A-Za-z_]\w*)[ \t]*;"), False),
)
# A function with a body: the name after a return type at the start of a line (not a call: no
# `(`, `=` or `return` before it, no `;` before the body). Matched on the REVERSED text, from the
# body's `{` back to the start of the line: a literal start, and there are fewer `{` than lines
# (3-4x faster than the forward pattern `^[ \t]*(?:[\w:<>,]+[ \t*&]+)+(NAME)[ \t]*\([^;{}]*\)
# [^;{}()]*\{`, with the same sites over CUDA's headers).
_FUNCTION_SITE_REVERSED = re.compile(
    rb"\{[^;{}()]*\)[^;{}]*\([ \t]*(\w*[A-Za-z_])(?:[ \t*&]+[\w:<>,]+)+[ \t]*(?:\n|\Z)"
)
_DEFINITIONS = (
    frozenset(
        {
            "alias_declaration",
            "type_definition",
            "preproc_def",
            "preproc_function_def",
            "enumerator",
        }
    )
    | TAG_SPECIFIERS
)
_DECLARATORS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "array_declarator",
        "parenthesized_declarator",
        "function_declarator",
    }
)
# Macros whose tests porter ports, so that the test picks on AMD the branch it picks with CUDA:
# the include guards of CUDA's headers (`__CUDA_BF16_H__`, `__DRIVER_TYPES_H__`,
# `__cuda_cuda_h__`, `CU_COMPLEX_H_`: read in CUDA 13's include/ folder; PT305 tests HIP's guard
# instead) and `__CUDACC__` (PT302 adds `__HIPCC__`). A declaration under such a test is a
# fallback for a CUDA name (`#if defined(__CUDA_BF16_H__) ... #else using __nv_bfloat162 =
# __half2; #endif`), ported with the name. Version tests (`CUDART_VERSION < 11000`) are not
# ported (PT304 reports them; undefined, they count as 0 on AMD): a declaration under one keeps
# its name, and so do its uses.
_PORTED_GUARD = re.compile(
    r"^(?:__CUDA_\w+_H__|__CUDACC__|__cuda_cuda_h__|CU_COMPLEX_H_"
    r"|__(?:DRIVER|VECTOR|DEVICE|TEXTURE|SURFACE|LIBRARY)_TYPES_H__"
    r"|__(?:VECTOR|DRIVER)_FUNCTIONS_H__|__CHANNEL_DESCRIPTOR_H__)$"
)


def is_ported_guard(name: str) -> bool:
    """Is this a macro whose `#if` tests porter ports to their HIP meaning (see _PORTED_GUARD)?"""
    return _PORTED_GUARD.match(name) is not None


def beside_cuda_include(pp, pos: int, cuda_includes: list[int]) -> bool:
    """Is `pos` in a branch of an `#if` chain (of the project's own switch, not a vendor test)
    whose other branch includes a CUDA header, while its own branch includes none? A definition
    there stands in for CUDA's name where the CUDA headers are not read (warp's `#if
    WP_ENABLE_CUDA #include <cuda.h> ... #else typedef int CUdevice; #endif`): on AMD the other
    branch means CUDA's name, which the port renames, so the stand-in is renamed with it.
    `cuda_includes`: the offsets of the file's `#include` directives of CUDA headers."""
    if not cuda_includes:
        return False
    for b in pp.enclosing(pos):
        group = b.group
        if group is None or group.mentions_vendor():
            continue

        def includes_cuda(br) -> bool:
            return any(br.line_end <= i < br.end for i in cuda_includes)

        if includes_cuda(b):
            continue
        if any(other is not b and includes_cuda(other) for other in group.branches):
            return True
    return False


# The keyword each match of the _DECL_SITES pattern at the same place holds as a whole
# identifier token (after no identifier byte where the pattern tests it, before a blank or a
# byte no identifier holds): a file whose identifiers lack it has no site of that pattern.
_DECL_SITE_WORDS = (b"using", b"define", b"struct", b"class", b"union", b"enum", b"typedef", None)
assert len(_DECL_SITE_WORDS) == len(_DECL_SITES)


def project_declaration_sites(
    data: bytes, names: AbstractSet[bytes], idents: AbstractSet[bytes] | None = None
):
    """(start, end) of each place where one of `names` may be declared by the file itself (to
    be checked with `is_declaration_name` and `is_definition`). `idents`: the file's
    `identifiers`, when the caller has them: a pattern whose keyword is none of them is not
    searched (CCCL's files that name table names: 16 of the 35 MB the patterns would read)."""
    for (rx, word_start), word in zip(_DECL_SITES, _DECL_SITE_WORDS):
        if idents is not None and word is not None and word not in idents:
            continue
        for m in rx.finditer(data):
            if m.group(1) in names and not (
                word_start and m.start() > 0 and data[m.start() - 1] in WORD
            ):
                yield m.span(1)
    if b"{" in data:
        size = len(data)
        reverse = data[::-1]
        if _reversed_names(names).isdisjoint(_CALLED_REVERSED.findall(reverse)):
            return  # no name of `names` before a `(`: no function site yields one
        for m in _FUNCTION_SITE_REVERSED.finditer(reverse):
            start, end = size - m.end(1), size - m.start(1)
            if data[start:end] in names:
                yield start, end


# What _FUNCTION_SITE_REVERSED's name group can be at each `(` of the reversed text: it follows
# the `(` and blanks, and is the whole identifier there (blanks, `*` or `&` follow it), which
# this pattern's group then is too. Its matches hold every function site's name (a third of the
# cost of the site pattern, which most files, with no name of the tables before a `(`, skip).
_CALLED_REVERSED = re.compile(rb"\([ \t]*+(\w*[A-Za-z_])")


def _reversed_names(names: AbstractSet[bytes]) -> AbstractSet[bytes]:
    """The names spelled backwards (a frozenset's once: the pre-pass asks with the tables')."""
    if isinstance(names, frozenset):
        return _reversed_frozen(names)
    return {n[::-1] for n in names}


@lru_cache(maxsize=4)
def _reversed_frozen(names: frozenset[bytes]) -> frozenset[bytes]:
    return frozenset(n[::-1] for n in names)


def is_definition(node) -> bool:
    """Is this declared name (`is_declaration_name`) a definition the project owns: an alias,
    a typedef, a macro, a tag with a body, an enumerator, a function with a body? A prototype
    (`cudaError_t cudaFree(void*);`) or a variable is not."""
    parent = node.parent
    function = False
    # the declarators around the name: `typedef struct CUstream_st* cudaStream_t;`,
    # `typedef void (*cudaHostFn_t)(void*);`, `cudaError_t* f() {...}`
    while parent is not None and parent.type in _DECLARATORS:
        function = function or parent.type == "function_declarator"
        parent = parent.parent
    if parent is None:
        return False
    if parent.type in _DEFINITIONS:
        return True
    return function and parent.type == "function_definition"


def base_initializer(node) -> bool:
    """Is this the name of a member initializer (`S() : CUDA_MEMCPY2D(), n(0) {}`), which
    names a base class or a member?"""
    p = node.parent
    return p is not None and p.type == "field_initializer" and p.named_children[0] == node


def elaborated_keyword(data: bytes, node) -> tuple[int, int] | None:
    """The span of `struct ` in `struct cudaDeviceProp p;` (an elaborated type specifier used as
    the type of a declaration), or None. A forward declaration `struct cudaDeviceProp;` has no
    such span: its keyword is needed."""
    spec = node.parent
    if spec is None or spec.type not in TAG_SPECIFIERS or spec.child_by_field_name("body"):
        return None
    if (
        spec.parent is None
        or spec.parent.child_by_field_name("type") is None
        or spec.parent.child_by_field_name("type").start_byte != spec.start_byte
    ):
        return None
    m = _ELABORATED.fullmatch(data, spec.start_byte, node.start_byte)
    return (spec.start_byte, node.start_byte) if m else None


# the note the tables give a row whose CUDA name is a struct/enum/union tag and whose HIP name is
# a tag of the same sort (mappings/driver.csv `CUstream_st,ihipStream_t`); the rows of a CUDA tag
# whose HIP name is a typedef (`curandGenerator_st,hiprandGenerator_st`) do not carry it
_TAG_TO_TAG_NOTE = "struct/enum tag: maps to the HIP tag of the same sort"


def maps_tag_to_tag(row) -> bool:
    """Does the row map a CUDA tag to a HIP tag, so that `struct X` stays elaborated?"""
    return row.notes.startswith(_TAG_TO_TAG_NOTE)


def in_undef(node) -> bool:
    """Is this node the argument of an `#undef`?"""
    p = node.parent if node is not None else None
    if p is None or p.type != "preproc_call":
        return False
    d = p.child_by_field_name("directive")
    return d is not None and d.text is not None and d.text.strip() == b"#undef"


class Contexts:
    """Classifies byte ranges of one file: ('code' | 'comment' | 'string' | 'opaque' |
    'lexical', node). Opaque text (macro bodies, ERROR regions) is lexed once per node.

    'lexical' is a whole identifier token the tree holds no node for (text tree-sitter skipped
    while recovering from an error, a token inside a larger leaf): outside comments and strings
    by porter's own lexing, so it is code, but without a tree around it."""

    def __init__(self, data: bytes, root):
        self.data, self.root = data, root
        self._opaque: dict[int, list[tuple[int, int]]] = {}

    def _lexed(self, node, start: int) -> bool:
        """Is `start` inside a comment, string or character literal of the node's text?"""
        spans = self._opaque.get(node.start_byte)
        if spans is None:
            spans = lex_code_spans(self.data[node.start_byte : node.end_byte])
            self._opaque[node.start_byte] = spans
        rel = start - node.start_byte
        return any(a <= rel < b for a, b in spans)

    def at(self, start: int, end: int):
        node = self.root.descendant_for_byte_range(start, end)
        if node is None:
            return "lexical", None
        t = node.type
        if t in P.COMMENT_TYPES:
            return "comment", node
        if t in P.STRING_TYPES or (node.parent is not None and node.parent.type in P.STRING_TYPES):
            return "string", node
        if node.start_byte == start and node.end_byte == end:
            if t in P.IDENT_TYPES:
                return "code", node
            if t in P.OPAQUE_TYPES:  # `#define gpuStream_t cudaStream_t`: the whole body
                return "opaque", node
            if not node.is_named:  # a keyword tree-sitter-cuda knows (`__grid_constant__`)
                return "code", node
            return "lexical", node
        if self._lexed(node, start):
            return "string", node
        if t in P.OPAQUE_TYPES:
            return "opaque", node
        return "lexical", node


class LexicalContexts:
    """`Contexts` for a file porter does not parse (`CudaRewriter._lexical`): ("comment" |
    "string" | "code", None) of a byte range, from the comments and literals as the
    preprocessor lexes them (`lex.comment_and_literal_spans`: splices, raw strings, digit
    separators, header names), found once, on first use."""

    def __init__(self, data: bytes):
        self.data = data
        self._starts: list[int] | None = None
        self._spans: list[tuple[int, int]] = []

    def spans(self) -> tuple[list[tuple[int, int]], list[int]]:
        """(the comment and literal spans, their starts), lexed on first use."""
        if self._starts is None:
            self._spans = comment_and_literal_spans(self.data, len(self.data))
            self._starts = [a for a, _ in self._spans]
        return self._spans, self._starts

    def at(self, start: int, end: int) -> tuple[str, None]:
        if self._starts is None:
            self.spans()
        assert self._starts is not None
        k = bisect.bisect_right(self._starts, start) - 1
        if k >= 0 and start < self._spans[k][1]:
            return ("comment" if self.data[self._starts[k]] == 0x2F else "string"), None  # /
        return "code", None


def call_args(node) -> list | None:
    """The argument nodes when `node` is the function name of a call, else None."""
    parent = node.parent
    if parent is not None and parent.type == "template_function":
        node, parent = parent, parent.parent
    if parent is None or parent.type != "call_expression":
        return None
    fn = parent.child_by_field_name("function")
    if fn is None or fn.start_byte != node.start_byte:
        return None
    args = parent.child_by_field_name("arguments")
    if args is None or args.type != "argument_list":
        return None
    return [c for c in args.named_children if c.type != "comment"]


def is_location(data: bytes, arg, nargs: int, idx: int) -> bool:
    """Is this argument a cudaMemLocation (CUDA 13 form) rather than a device number?"""
    if nargs > idx + 2:  # prefetch: (ptr, count, location, flags, stream)
        return True
    text = data[arg.start_byte : arg.end_byte]
    if arg.type in ("initializer_list", "compound_literal_expression") or b"ocation" in text:
        return True
    if arg.type == "identifier":
        rx = rb"(?:cuda|hip|CU|hip)[Mm]em_?[Ll]ocation\w*\s*[&*]?\s*" + re.escape(text) + rb"\b"
        return re.search(rx, data) is not None
    return False


def target_row(row: Row, roc: bool) -> Row:
    """The row with the call transform of the name porter writes: a row whose transform has
    `roc:` parts (model.ROC_PART) takes those, without the prefix, where its roc* name is used,
    and the other parts where its hip name is; any other row is as it is."""
    if ROC_PART not in row.transform:
        return row
    parts = row.transform.split(TRANSFORM_SEP)
    if roc:
        kept = [p[len(ROC_PART) :] for p in parts if p.startswith(ROC_PART)]
    else:
        kept = [p for p in parts if not p.startswith(ROC_PART)]
    return row._replace(transform=TRANSFORM_SEP.join(kept))


# expressions whose evaluation does more than yield a value: an argument holding one is not
# dropped (`roc:drop_args`)
_EFFECTS = frozenset(
    {
        "call_expression",
        "assignment_expression",
        "update_expression",
        "new_expression",
        "delete_expression",
        "co_await_expression",
        "throw_expression",
        "lambda_expression",
    }
)


def has_effects(node) -> bool:
    """Can evaluating this expression node do more than yield its value (a call, an assignment,
    ++/--, new/delete), or is it text porter could not parse?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in _EFFECTS or n.type == "ERROR" or n.is_missing:
            return True
        stack.extend(n.children)
    return False


def drop_arguments(args: list, drop: set[int]) -> list[Edit]:
    """Edits removing the arguments `drop` (0-based) with their commas: each with the comma after
    it, and a run of dropped arguments at the end with the comma before it."""
    kept = [i for i in range(len(args)) if i not in drop]
    last = kept[-1] if kept else -1
    edits = [
        Edit(args[i].start_byte, args[i + 1].start_byte, b"") for i in sorted(drop) if i < last
    ]
    if last < len(args) - 1:  # a dropped tail
        start = args[last].end_byte if kept else args[0].start_byte
        edits.append(Edit(start, args[-1].end_byte, b""))
    return edits


# an lvalue that `X = 0` assigns as written
_PLAIN_LVALUES = ("identifier", "field_expression", "subscript_expression")


def _no_workspace(
    data: bytes, i: int, args: list, status: str, size: int | None = None
) -> list[Edit] | None:
    """`query(h, ..., &lwork)` -> `(lwork = 0, STATUS)` (`(*p = 0, STATUS)` for a pointer `p`),
    or with `size` `(lwork = ARG_size, STATUS)`: the argument list's parentheses stay, the name
    is removed by the caller."""
    if len(args) != i + 1 or any(has_effects(a) for j, a in enumerate(args[:i]) if j != size):
        return None  # the output argument stays, evaluated once as before
    value = b"0"
    if size is not None:
        if size >= i:
            return None
        a = args[size]
        value = data[a.start_byte : a.end_byte]
        if any(CUDA_LOOKING_B.match(w.group()) for w in IDENT.finditer(value)):
            return None  # a CUDA name copied out of the call would not be ported
        if a.type not in ("identifier", "number_literal"):
            value = b"(" + value + b")"
    out = args[i]
    # one edit from the first argument to the output argument's start: `(h, uplo, ..., &lwork)`
    # -> `(lwork`, `(*p`, `(*(p + 1)`; one insertion after it
    target = out.child_by_field_name("argument") if out.type == "pointer_expression" else None
    if target is not None and data[out.start_byte : out.start_byte + 1] == b"&":
        start, lead, end = target.start_byte, b"", target.end_byte
        if target.type not in _PLAIN_LVALUES:
            lead = b"("
    else:
        start, end = out.start_byte, out.end_byte
        lead = b"*" if out.type == "identifier" else b"*("
    close = b")" if lead.endswith(b"(") else b""
    arglist = out.parent
    call = arglist.parent if arglist is not None else None
    if call is not None and call.parent is not None and call.parent.type == "expression_statement":
        # a statement of its own: its status is unused, so only the assignment is left
        # (`lwork = 0;`), without the argument list's parentheses
        return [
            Edit(arglist.start_byte, start, lead),
            Edit(end, arglist.end_byte, close + b" = " + value),
        ]
    return [
        Edit(args[0].start_byte, start, lead),
        Edit(end, out.end_byte, close + b" = " + value + b", " + status.encode()),
    ]


def _one_transform(data: bytes, t: str, args: list) -> list[Edit] | None:
    m = NONNULL.match(t)
    if m:
        i = int(m.group(1))
        return None if i >= len(args) or is_null_literal(data, args[i]) else []
    m = DROP_ARGS.match(t)
    if m:
        drop = {int(x) for x in m.group(1).split(",")}
        if max(drop) >= len(args) or any(has_effects(args[i]) for i in drop):
            return None
        return drop_arguments(args, drop)
    m = MAX_ARGS.match(t)
    if m:
        return [] if len(args) <= int(m.group(1)) else None
    m = ARITY.match(t)
    if m:
        return [] if int(m.group(1)) <= len(args) <= int(m.group(2)) else None
    m = DEFAULT_ARG.match(t)
    if m:
        n, text = int(m.group(1)), m.group(2)
        if len(args) > n + 1:
            return None  # another form (`cudaGraphInstantiate`'s 5 arguments)
        if len(args) != n or n == 0:
            return []  # the defaulted argument is given
        return [Edit(args[-1].end_byte, args[-1].end_byte, b", " + text.encode())]
    m = DROP_NULL_ARG.match(t)
    if m:
        i = int(m.group(1))
        if len(args) <= i or not is_null_literal(data, args[i]):
            return None
        return drop_arguments(args, {i})
    if not args:
        return None
    if t == "drop_arg0":
        return drop_arguments(args, {0})
    if t in ("symbol_arg0", "symbol_arg1"):
        i = 0 if t == "symbol_arg0" else 1
        if len(args) <= i:
            return None
        a = args[i]
        text = data[a.start_byte : a.end_byte]
        if text.startswith(b"HIP_SYMBOL"):
            return []
        return [
            Edit(a.start_byte, a.start_byte, b"HIP_SYMBOL("),
            Edit(a.end_byte, a.end_byte, b")"),
        ]
    return None


_NULL = re.compile(
    rb"(?:\(\s*(?:[A-Za-z_]\w*\s*\**|void\s*\*)\s*\)\s*)?"
    rb"(?:0[uUlL]*|NULL|nullptr|\(\s*(?:0[uUlL]*|NULL|nullptr)\s*\))"
)


def is_null_literal(data: bytes, arg) -> bool:
    """Is this argument a null pointer written as a literal: `0`, `NULL`, `nullptr`, possibly in
    parentheses or after a C cast (`(CUoccupancyB2DSize)0`)?"""
    return _NULL.fullmatch(data[arg.start_byte : arg.end_byte].strip()) is not None


def refusal(data: bytes, row: Row, args: list, new: str) -> str | None:
    """Why a call transform does not apply to this call, when a part of it can say more than the
    argument count (an argument HIP has no parameter for that is not null)."""
    for t in row.transform.split(TRANSFORM_SEP):
        d = DROP_ARGS.match(t)
        dropped = [int(x) for x in d.group(1).split(",")] if d else []
        q = NO_WORKSPACE.match(t) or WORKSPACE_OF.match(t)
        if q:  # the call becomes an assignment to its output argument: the others go
            dropped = [i for i in range(len(args)) if str(i) not in q.groups()]
        for i in dropped:
            if i < len(args) and has_effects(args[i]):
                text = data[args[i].start_byte : args[i].end_byte].decode("utf-8", "replace")
                return (
                    f"its argument {i + 1} (`{text}`) may have side effects, and the roc* form "
                    f"(`{new}`) drops that argument"
                )
        m = NONNULL.match(t)
        if m and len(args) > int(m.group(1)) and is_null_literal(data, args[int(m.group(1))]):
            return (
                f"its argument {int(m.group(1)) + 1} is a null pointer, which `{new}` does not "
                f"take (it has no form without that array)"
            )
        m = DROP_NULL_ARG.match(t)
        if m and len(args) > int(m.group(1)) and not is_null_literal(data, args[int(m.group(1))]):
            a = args[int(m.group(1))]
            text = data[a.start_byte : a.end_byte].decode("utf-8", "replace")
            return (
                f"its argument {int(m.group(1)) + 1} (`{text}`) is not a null pointer, and "
                f"`{new}` has no such parameter"
            )
    return None


def transform_edits(data: bytes, row: Row, node) -> tuple[list[Edit], str | None] | None:
    """(argument edits, the HIP name when this call's form maps to another one) for a row's call
    transform at this reference; None when the reference cannot be rewritten (not a call, or a
    call whose argument count or shape the transform does not cover)."""
    args = call_args(node)
    if args is None:
        return None
    parts = row.transform.split(TRANSFORM_SEP)
    for t in parts:
        m = ARGS_NAME.match(t)
        if m and len(args) == int(m.group(1)):
            return [], m.group(2)  # an overload of another arity: that name, as it is
        m = NO_WORKSPACE.match(t) or WORKSPACE_OF.match(t)
        if m:  # the whole call becomes an expression: no other transform goes with it
            size = int(m.group(2)) if m.re is WORKSPACE_OF else None
            got = _no_workspace(data, int(m.group(1)), args, row.roc, size)
            return None if got is None else (got, "")
    edits: list[Edit] = []
    for t in parts:
        if ARGS_NAME.match(t):
            continue
        got = _one_transform(data, t, args)
        if got is None:
            return None
        edits += got
    return edits, None
