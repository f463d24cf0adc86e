"""The rule interface: a rule reads one parsed file and yields findings, maybe with a fix.

A rule is a class registered with `@register`. It declares:

- ``code`` (``PT101``) and ``name`` (``warp-mask-32bit``), stable once released;
- ``severity`` (the default; a rule may lower or raise it per finding, e.g. per target);
- ``languages``: ``"cuda"`` for CUDA C++/HIP sources, ``"build"`` for CMake files and Makefiles,
  ``"python"`` for Python/Triton sources (the engine runs a rule only on files of its languages);
- ``fix``: an ``Applicability`` (``NONE``, ``SAFE``, ``UNSAFE`` or ``DISPLAY``): the best
  applicability its fixes have;
- ``triggers``: byte strings; the rule runs only on files containing one of them (cheap pre-filter);
- a docstring with the headings *What it finds*, *Why it breaks on AMD*, *Example*, *Use instead*,
  *References* (checked by tests and printed by ``porter rule CODE``).

What rules share about a file (calls, declarations, constants, the ``#if`` model and vendor
branches, asm sites, includes) comes from ``porter.analysis`` through the lazily computed
properties of ``RuleContext`` (``ctx.calls``, ``ctx.vendor``, ...); rule modules import
``base``, ``registry`` and ``porter.analysis``, never each other (see CONTRIBUTING.md).

Rules see the original source (CUDA) and must also accept already-ported HIP spellings, so that
checking a ported tree finds the same hazards and fixing is idempotent.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from tree_sitter import QueryError

from ..analysis.asm import AsmSites
from ..analysis.calls import CallIndex
from ..analysis.consts import Consts, file_macros
from ..analysis.decls import Declarations
from ..analysis.includes import Include, find_includes
from ..analysis.preproc import PPState
from ..analysis.targets import DEFAULT_ARCH, TARGETS, Target, parse_archs
from ..analysis.vendor import CppVendorModel
from ..analysis.warp import WarpCollectives
from ..findings import Applicability, Edit, Finding, Fix, Severity
from ..parse import cuda as P
from ..source import SourceFile

if TYPE_CHECKING:  # porter.analysis.python is imported when a Python file is checked
    from ..analysis.python import PyFacts
    from ..parse.python import PySource

DOC_HEADINGS = ("What it finds", "Why it breaks on AMD", "Example", "Use instead", "References")


# -- targets ----------------------------------------------------------------------------------
# Target, TARGETS and parse_archs live in porter.analysis.targets (re-exported here).


@dataclass(frozen=True)
class RuleOptions:
    targets: tuple[Target, ...] = (TARGETS[DEFAULT_ARCH],)
    rocm_version: tuple[int, ...] = (7, 2)

    def wave64(self) -> tuple[str, ...]:
        return tuple(t.arch for t in self.targets if t.wave == 64)

    def wave32(self) -> tuple[str, ...]:
        return tuple(t.arch for t in self.targets if t.wave == 32)


# -- context ---------------------------------------------------------------------------------
# Node types rules ask for; seeded with the common ones so that the combined query is compiled
# once per process rather than each time a rule asks for a new type.
_WANTED_TYPES: set[str] = {
    "binary_expression",
    "call_expression",
    "declaration",
    "do_statement",
    "enumerator",
    "field_declaration",
    "field_expression",
    "for_statement",
    "function_declarator",
    "function_definition",
    "gnu_asm_expression",
    "init_declarator",
    "kernel_call_syntax",
    "number_literal",
    "parameter_declaration",
    "optional_parameter_declaration",
    "preproc_def",
    "preproc_function_def",
    "preproc_include",
    "sized_type_specifier",
    "storage_class_specifier",
    "string_literal",
    "subscript_expression",
    "switch_statement",
    "template_type",
    "type_qualifier",
    "while_statement",
    "enumerator_list",
    "raw_string_literal",
    "concatenated_string",
    "preproc_arg",
}


class RuleContext:
    """What a rule sees of one file.

    Query results and identifier look-ups are cached. The facts rules share are properties
    computed on first use, once per file (like LibCST metadata providers):

    ``pp`` (the ``#if`` model, ``PPState``), ``vendor`` (``CppVendorModel``: which vendor
    compiles a byte range), ``calls`` (``CallIndex``), ``decls`` (``Declarations``),
    ``consts`` (``Consts``), ``macros`` (object-like ``#define`` bodies), ``asm``
    (``AsmSites``), ``includes`` (``list[Include]``), ``warp_collectives``
    (``WarpCollectives``), ``build_code`` (a build file without its comments), ``py_facts``
    (a Python file's ``PyFacts``: imports, kernels, vendor sides, configs, CUDA carriers)."""

    def __init__(
        self,
        src: SourceFile,
        tree,
        options: RuleOptions,
        index=None,
        idents=None,
        pp: PPState | None = None,
        py_source: PySource | None = None,
        parse: Callable[[bytes], Any] | None = None,
    ):
        self.src = src
        self.data = src.data
        # None for build files (CMake, Makefiles); with `parse` and no tree, the tree is parsed
        # when a rule first reads `tree` or `root` (most rules look at the bytes first, and on
        # many files none finds anything to read the tree for)
        self._tree = tree
        self._parse = parse
        self.options = options
        self.index = index
        self._types: dict[tuple[str, ...], list] = {}
        self._by_type: dict[str, list] = {}
        self._idents = idents  # the file's identifier tokens (bytes), from the rewriter
        # identifier -> (start bytes, nodes) of its occurrences in the tree, found once
        self._word_nodes: dict[bytes, tuple[list[int], list]] = {}
        self._pp = pp  # the rewriter's #if model of the same bytes, when it built one
        self._py_source = py_source  # a Python file parsed (its UTF-8 text is `src.data`)

    @property
    def tree(self):
        if self._tree is None and self._parse is not None:
            self._tree = self._parse(self.data)
        return self._tree

    @property
    def root(self):
        tree = self.tree
        return tree.root_node if tree is not None else None

    # shared analysis (porter.analysis), computed on first use
    @cached_property
    def pp(self) -> PPState:
        """The file's conditional-directive model (shared with the rewriter)."""
        return self._pp if self._pp is not None else PPState(self)

    @cached_property
    def vendor(self) -> CppVendorModel:
        """Which vendor compiles a byte range: ``ctx.vendor.at(node).not_for_amd``..."""
        return CppVendorModel(self.pp)

    @cached_property
    def calls(self) -> CallIndex:
        return CallIndex(self)

    @cached_property
    def decls(self) -> Declarations:
        return Declarations(self)

    @cached_property
    def consts(self) -> Consts:
        return Consts(self)

    @cached_property
    def macros(self) -> dict[str, str]:
        return file_macros(self)

    @cached_property
    def asm(self) -> AsmSites:
        return AsmSites(self)

    @cached_property
    def includes(self) -> list[Include]:
        return find_includes(self)

    @cached_property
    def warp_collectives(self) -> WarpCollectives:
        return WarpCollectives(self)

    @cached_property
    def build_code(self) -> bytes:
        """A build file's bytes with its comments blanked out (offsets kept)."""
        from ..analysis.buildfiles import code_text, is_makefile

        return code_text(self.data, is_makefile(self.src.path))

    @cached_property
    def py_facts(self) -> PyFacts:
        """A Python file's facts (``porter.analysis.python.PyFacts``): imports and aliases,
        Triton kernels, vendor sides, and on first use of each, ``refs``, ``calls(...)``,
        ``configs``, ``launches`` and ``embedded`` (CUDA C++ carried in strings)."""
        from ..analysis.python import build

        if self._py_source is None:
            raise ValueError(f"{self.src.path}: py_facts needs the parsed Python source")
        return build(self._py_source)

    @property
    def idents(self) -> set[bytes]:
        """The file's identifier-like tokens (comments and strings included): the rewriter's
        `identifiers(data)`, or computed here on first use."""
        if self._idents is None:
            from ..analysis.lex import identifiers

            self._idents = identifiers(self.data)
        return self._idents

    # text and positions
    def text(self, node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def btext(self, node) -> bytes:
        return self.data[node.start_byte : node.end_byte]

    # tree access
    def nodes(self, *types: str) -> list:
        """All nodes of the given types, in document order.

        One query walks the tree for every node type any rule has asked for so far in this
        process, so a file costs one walk however many rules read it."""
        missing = [t for t in types if t not in self._by_type]
        if missing:
            _WANTED_TYPES.update(missing)
            todo = sorted(t for t in _WANTED_TYPES if t not in self._by_type)
            try:
                found = P.captures(" ".join(f"({t}) @{t}" for t in todo), self.root)
            except QueryError:  # an unknown node type: fall back to one query per type
                found = {}
                for t in todo:
                    try:
                        found.update(P.captures(f"({t}) @{t}", self.root))
                    except QueryError:
                        found[t] = []
            for t in todo:
                self._by_type[t] = found.get(t, [])
        if len(types) == 1:
            return self._by_type[types[0]]
        key = tuple(sorted(types))
        if key not in self._types:
            merged = [n for t in key for n in self._by_type[t]]
            P.sort_document_order(merged)
            self._types[key] = merged
        return self._types[key]

    def walked(self, *types: str) -> list | None:
        """What `nodes(*types)` returns, when the file's walk has already found those types
        (another rule asked first); else None, and no walk (the caller queries what it needs)."""
        if all(t in self._by_type for t in types):
            return self.nodes(*types)
        return None

    def captures(self, pattern: str, node=None) -> dict[str, list]:
        return P.captures(pattern, node if node is not None else self.root)

    def matches(self, pattern: str, node=None):
        return P.matches(pattern, node if node is not None else self.root)

    def identifiers(
        self,
        names: Iterable[str] | re.Pattern,
        kinds=P.IDENT_TYPES,
        within: tuple[int, int] | None = None,
    ) -> list:
        """Identifier nodes (outside comments and strings) whose text is one of `names` or matches
        the regular expression `names` (a str pattern matched in full); with `within`, only
        those starting in that byte range (a function: found by binary search, so asking for
        each of a thousand same-named locals stays linear)."""
        from ..analysis.lex import find_word

        idents = self.idents
        if hasattr(names, "pattern"):  # a compiled (or lazily compiled) pattern
            pat = names.pattern
            # (in any order: more than one name is sorted by offset below)
            wanted = list(
                _matcher(pat if isinstance(pat, bytes) else pat.encode()).matching(idents)
            )
        else:
            wanted = [n for n in (x.encode() for x in set(names)) if n in idents]
        out: list = []
        for n in wanted:
            found = self._word_nodes.get(n)
            if found is None:  # once per name: rules ask again for each variable of that name
                nodes = []
                assert self.root is not None  # identifiers() is for rules that need the tree
                for pos in find_word(self.data, n):
                    node = self.root.descendant_for_byte_range(pos, pos + len(n))
                    if (
                        node is not None
                        and node.start_byte == pos
                        and node.end_byte == pos + len(n)
                    ):
                        nodes.append(node)
                nodes.sort(key=lambda x: x.start_byte)
                found = self._word_nodes[n] = ([x.start_byte for x in nodes], nodes)
            starts, nodes = found
            if within is not None:
                nodes = nodes[
                    bisect.bisect_left(starts, within[0]) : bisect.bisect_left(starts, within[1])
                ]
            out.extend(node for node in nodes if node.type in kinds)
        if len(wanted) > 1:
            out.sort(key=lambda n: n.start_byte)
        return out

    def in_comment_or_string(self, start: int, end: int) -> bool:
        return P.in_comment_or_string(self.root, start, end)

    def macro_bodies(self) -> list:
        """`#define` bodies (preproc_arg nodes): opaque text that rules may lex themselves."""
        return self.nodes("preproc_arg")


# -- rules -----------------------------------------------------------------------------------
def any_ident(rx, idents: set[bytes]) -> bool:
    """Does one of `idents` match `rx` (a str or bytes regex, in full, as `ctx.identifiers`
    matches it)? Answered by an `IdentMatcher` (each distinct identifier matched once)."""
    pat = rx.pattern
    return _matcher(pat if isinstance(pat, bytes) else pat.encode())(idents)


@cache
def _matcher(pat: bytes) -> IdentMatcher:
    return IdentMatcher(pat)


# what may match differently in a line of the joined identifiers than in one identifier alone
_LINE_SENSITIVE = re.compile(rb"[\^$]|\\[AZbB]|\(\?(?!:)")

#: Distinct identifiers one IdentMatcher remembers; past that it starts over (bounded memory).
_IDENT_MEMO_MAX = 200_000


class IdentMatcher:
    """``matcher(idents)``: does one of a file's identifier tokens match `pattern` (bytes) in
    full? Each distinct identifier is matched once per process (a tree's files share most of
    theirs): per file a set difference and a disjointness test, and one search over the
    identifiers not seen before (joined by newlines; a token holds none)."""

    def __init__(self, pattern: bytes, flags: int = 0):
        self._pattern = pattern
        self._flags = flags
        self._rx: tuple | None = None
        self._seen: set[bytes] = set()
        self._hits: set[bytes] = set()

    def __call__(self, idents: set[bytes]) -> bool:
        # an identifier known to match answers without learning the file's new ones
        return not self._hits.isdisjoint(idents) or not self._learn(idents).isdisjoint(idents)

    def matching(self, idents: set[bytes]) -> set[bytes]:
        """The identifiers of `idents` that match."""
        return self._learn(idents) & idents

    def _learn(self, idents: set[bytes]) -> set[bytes]:
        """Match the identifiers not seen before; the matching ones seen so far."""
        new = idents - self._seen
        if new:
            if len(self._seen) + len(new) > _IDENT_MEMO_MAX:
                self._seen.clear()
                self._hits.clear()
                new = set(idents)  # (this file's identifiers seen before are forgotten too)
            self._seen |= new
            if self._rx is None:
                pat = self._pattern
                full = re.compile(pat, self._flags).fullmatch
                # one search over the joined identifiers, for a pattern without anchors, flags
                # or look-arounds (whose meaning a neighbouring line could change). Each line is
                # matched from the newline before it (a literal the regex engine scans for,
                # where `^` under re.M was tried at every byte) to the one after it
                lines = (
                    None
                    if _LINE_SENSITIVE.search(pat)
                    else re.compile(rb"\n(?:" + pat + rb")(?=\n)", self._flags).finditer
                )
                self._rx = (lines, full)
            lines, full = self._rx
            found = (
                [m.group()[1:] for m in lines(b"\n" + b"\n".join(new) + b"\n")]
                if lines is not None
                else None
            )
            if found is None or any(b"\n" in f for f in found):  # one identifier at a time
                self._hits.update(i for i in new if full(i))
            else:  # each match is a whole line: an identifier the pattern matches in full
                self._hits.update(found)
        return self._hits


class Rule:
    code: str = ""
    name: str = ""
    severity: Severity = Severity.WARNING
    languages: tuple[str, ...] = ("cuda",)
    fix: Applicability = Applicability.NONE
    triggers: tuple[bytes, ...] = ()
    needs_tree: bool = True  # False: works from ctx.data alone (ctx.root may be None)
    emitted_by_engine: bool = False  # API-mapping codes are produced by the rewriter itself

    def check(self, ctx: RuleContext) -> Iterator[Finding]:  # pragma: no cover - interface
        return iter(())

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """A cheap test on the file's identifier tokens (every identifier-like token of `data`,
        comments and strings included) and bytes, run after the triggers matched: False skips
        the rule on this file (and the parse it would need). It must be True wherever the rule
        could report (tests/test_speed_equivalence.py runs each rule with and without it).
        Default: run."""
        return True

    # helpers for subclasses
    def finding(
        self,
        ctx: RuleContext,
        where,
        message: str,
        *,
        severity: Severity | None = None,
        fix: Fix | None = None,
        targets: tuple[str, ...] = (),
    ) -> Finding:
        """`where` is a node or a (start_byte, end_byte) pair."""
        if isinstance(where, tuple):
            start, end = where
        else:
            start, end = where.start_byte, where.end_byte
        line, col = ctx.src.position(start)
        eline, ecol = ctx.src.position(end)
        return Finding(
            self.code,
            severity or self.severity,
            message,
            ctx.src.path,
            line,
            col,
            eline,
            ecol,
            fix=fix,
            targets=targets,
        )

    @staticmethod
    def make_fix(edits, applicability: Applicability, description: str) -> Fix:
        return Fix(tuple(edits), applicability, description)

    @classmethod
    def doc(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")


__all__ = [
    "DEFAULT_ARCH",
    "DOC_HEADINGS",
    "TARGETS",
    "Applicability",
    "Edit",
    "Finding",
    "Fix",
    "Rule",
    "RuleContext",
    "RuleOptions",
    "Severity",
    "Target",
    "parse_archs",
]
