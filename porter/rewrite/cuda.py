"""CUDA C++ → HIP rewriting from the mapping tables: the orchestration of one file.

Candidates are found by a regular expression over the bytes (built once from the tables), and
each is decided by its position in the tree-sitter tree: comments and strings are left alone,
macro bodies and ERROR regions are lexed conservatively, and only whole identifier tokens are
replaced. This keeps the Python work proportional to the number of CUDA names in a file, not to
the size of its tree.

The jobs live in their own modules: `lex` (tokens, spans, the candidate scanner), `names` (where
a name sits, declarations, call transforms), `includes`, `launch`, `roc` (--roc planning) and
`shims` (a project's own HIP shims and vendor switches). Their public names are re-exported here.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import NamedTuple

from ..findings import Edit, Finding, Severity
from ..mappings.index import MappingIndex
from ..mappings.model import MEMLOC, Row, parse_version
from ..parse import cuda as P
from ..source import SourceFile, is_binary
from .edits import EditSet
from .includes import (
    CUDA_HEADER,
    CUDA_SOURCE_SUFFIXES,
    HIP_RUNTIME,
    HIP_RUNTIME_INCLUDE,
    IMPLICIT_AREAS,
    NEEDS_RUNTIME_FIRST,
    RUNTIME_API_HEADERS,
    duplicate_include_line,
    hip_complex_define,
    include_directives,
    include_edit_text,
    include_position,
    quoted_like,
)
from .launch import hip_launch_edits, launch_sites
from .lex import (
    CUDA_LOOKING,
    QUALIFIED_SEP,
    WORD,
    NameFilter,
    Scanner,
    Span,
    block_comment_spans,
    find_word,
    identifiers,
    in_spans,
    lex_code_spans,
    line_end,
    qualified_matches,
    qualified_regex,
    scanner_for,
)
from .names import (
    Contexts,
    LexicalContexts,
    base_initializer,
    beside_cuda_include,
    call_args,
    elaborated_keyword,
    in_undef,
    is_declaration_name,
    is_definition,
    is_location,
    is_ported_guard,
    maps_tag_to_tag,
    project_declaration_sites,
    refusal,
    target_row,
    transform_edits,
)
from .plain import NameContexts, PlainNames
from .plain import include_position as lexical_include_position
from .roc import roc_area, roc_plan
from .shims import names_amd, on_nvidia_side, preproc_model, shim_names, vendor_switches

__all__ = [
    "CUDA_LOOKING",
    "HIP_RUNTIME_INCLUDE",
    "QUALIFIED_SEP",
    "CudaRewriter",
    "PortOptions",
    "RewriteResult",
    "Scanner",
    "Stats",
    "block_comment_spans",
    "find_word",
    "identifiers",
    "in_spans",
    "include_directives",
    "is_declaration_name",
    "lex_code_spans",
    "qualified_regex",
    "roc_area",
    "roc_plan",
    "scanner_for",
    "shim_names",
]

_NS_ALIAS = re.compile(
    rb"namespace\s+([A-Za-z_]\w*)\s*=\s*"
    rb"((?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*;"
)
_DEVICE_WORDS = (
    b"__global__",
    b"__device__",
    b"__shared__",
    b"__constant__",
    b"__managed__",
    b"threadIdx",
    b"blockIdx",
    b"__syncthreads",
)
# a kernel launch's `<<<` (the regex engine finds it in about half the time of `in`)
_LAUNCH = re.compile(rb"<<<")
# `namespace` then `=` in one declaration (`namespace cg = cooperative_groups;`, with comments
# or line breaks between): a namespace alias, which the rewriter reads from the tree
_ALIAS_LIKE = re.compile(rb"\bnamespace\b[^;{}]*=")
_MAX_REGIONS_SHOWN = 5
_TYPE_LIKE = frozenset({"type", "macro"})  # row kinds never declared as a variable or function


def _type_like(rows) -> bool:
    """Do the tables know the name only as a type or a macro (see PlainNames.plain_reference)?"""
    return rows is not None and all(r.kind in _TYPE_LIKE for r in rows)


_SCOPE_LOOKAHEAD = 16  # bytes after a name searched for its `::`
_NO_TREE = {"opaque": "inside a macro body", "lexical": "in a region tree-sitter could not parse"}


def _is_hip_include(path: str) -> bool:
    return path.startswith("hip/") or path == "hip_runtime.h"


class Declarations(NamedTuple):
    """What `declarations` finds in one file."""

    own: set[str]  # the project's own names: definition and uses stay
    fallbacks: set[int]  # offsets of fallback definitions: renamed with every use
    fallback_names: set[str]
    shared: set[str]  # own names defined in every AMD build of the file (see `project_names`)


def declarations(
    src: SourceFile, ctx: Contexts, names: AbstractSet[bytes], pp=None
) -> Declarations:
    """The table names among `names` that the file defines itself (an alias, a typedef, a macro,
    a tag with a body, an enumerator, a function with a body), split by what the definition is:

    - a fallback for a CUDA name: it sits in a branch of an `#if` whose test porter ports
      (a CUDA header guard, `__CUDACC__`: `names.is_ported_guard`), as in `#if
      defined(__CUDA_BF16_H__) ... #else using __nv_bfloat162 = __half2; #endif`. The
      definition is renamed with every use, so the port declares what it uses.
    - otherwise the project's own name (a CPU build's stand-in, a mock, a compatibility
      header's `typedef int cudaStream_t;`): the definition and its uses stay as they are.
      When it is at file scope and every `#if` around it is taken on AMD or is an include guard
      (`_shared_on_amd`), every file that includes it sees it: `shared`, for `project_names`.

    Names of a table row that maps to another name only; a prototype of a CUDA function
    (`cudaError_t cudaFree(void*);`) declares CUDA's function again and is neither. `pp` is the
    file's #if model when the caller has one."""
    data = src.data
    found = Declarations(set(), set(), set(), set())
    cuda_includes: list[int] | None = None
    for start, end in project_declaration_sites(data, names):
        kind, node = ctx.at(start, end)
        if (
            kind != "code"
            or node is None
            or not is_declaration_name(node)
            or not is_definition(node)
        ):
            continue
        scope = _scope(node, data, start, end)
        if scope == _NOT_OWN:
            continue
        if pp is None:
            pp = preproc_model(src, ctx.root)
        name = data[start:end].decode("ascii", "replace")
        if cuda_includes is None:
            cuda_includes = [
                d.start
                for d in include_directives(data, lambda h: CUDA_HEADER.match(h) is not None)
            ]
        if pp.guarded_by(start, is_ported_guard) or beside_cuda_include(pp, start, cuda_includes):
            found.fallbacks.add(start)
            found.fallback_names.add(name)
        else:
            found.own.add(name)
            if scope == _GLOBAL and _shared_on_amd(pp, data, start):
                found.shared.add(name)
    return found


_GLOBAL, _SCOPED, _NOT_OWN = "global", "scoped", "not own"
# nodes whose names stay inside them: a namespace, a class body, a function body
_SCOPES = frozenset({"namespace_definition", "field_declaration_list", "compound_statement"})
_MACROS = frozenset({"preproc_def", "preproc_function_def"})


def _scope(node, data: bytes, start: int, end: int) -> str:
    """Where a definition's name is seen: `_GLOBAL` (a macro, or a definition at file scope: every
    file that includes it sees the name), `_SCOPED` (inside a namespace, a class, a function, or
    an `enum class`: only there, so it is not the project's name in other files), or `_NOT_OWN`
    for a function that does not replace CUDA's: a member or namespaced function
    (`detail::cudaMallocManaged`, thrust), or an overload whose body calls CUDA's function
    (`cudaError_t cudaMallocManaged(void** p, size_t n) { return ::cudaMallocManaged(p, n,
    cudaMemAttachGlobal); }`). Its uses are CUDA's: renamed, as the definition is kept."""
    p = node.parent
    function = None
    while p is not None:
        if p.type in _MACROS:
            return _GLOBAL
        if p.type == "function_definition" and function is None:
            function = p
        elif p.type == "enum_specifier" and re.match(
            rb"enum\s+(?:class|struct)\b", data[p.start_byte : p.start_byte + _ENUM_HEAD]
        ):
            return _SCOPED
        elif p.type in _SCOPES and (function is None or p.start_byte < function.start_byte):
            return _NOT_OWN if function is not None else _SCOPED
        p = p.parent
    if function is not None:
        body = function.child_by_field_name("body")
        word = data[start:end]
        if body is not None and any(
            True for _ in find_word(data[body.start_byte : body.end_byte], word)
        ):
            return _NOT_OWN
    return _GLOBAL


_ENUM_HEAD = 32  # bytes enough for `enum class` / `enum struct`
_MAX_PATHS_KEPT = 10_000  # include paths whose header row a rewriter keeps


_GUARD_DEFINE = re.compile(rb"\s*#[ \t]*define[ \t]+(\w+)")


def _shared_on_amd(pp, data: bytes, pos: int) -> bool:
    """Is the definition at `pos` made in every AMD build of its file, so that every file of the
    project that includes it sees it? Each `#if` around it must be taken on AMD (`#if
    CUDART_VERSION < 11000`: undefined, 0; `#ifdef __HIP_PLATFORM_AMD__`) or be a guard, `#ifndef
    X` then `#define X` (the include guard, `#ifndef cudaStreamNonBlocking`). A definition under
    the project's own switch (`#ifdef CPU_ONLY`) is not: on AMD the other files may mean CUDA's
    name, which the port renames."""
    for b in pp.enclosing(pos):
        if pp.branch_value(b, "amd") == 1:
            continue
        cond = b.cond
        if (
            b.index == 0
            and b.group is not None
            and len(b.group.branches) == 1
            and cond is not None
            and len(cond.names) == 1
            and (b.kind == "ifndef" or b.raw.replace(" ", "").startswith("!defined"))
        ):
            m = _GUARD_DEFINE.match(data, b.line_end)
            if m is not None and m.group(1).decode("ascii", "replace") in cond.names:
                continue
        return False
    return True


def project_names(rel: str, data: bytes, index: MappingIndex) -> frozenset[str]:
    """The table names this file defines for the files that include it (`declarations`'
    `shared`): a compatibility header's `typedef int cudaStream_t;` is the project's own name in
    every file that includes it, as in the header itself (project.names_by_file). The
    project-wide pre-pass reads every source with this (through `project_scan`); a cheap search
    for definition sites decides which files are parsed at all."""
    return project_scan(rel, data, index)[0]


def project_scan(
    rel: str, data: bytes, index: MappingIndex, idents: set[bytes] | None = None
) -> tuple[frozenset[str], bool]:
    """(`project_names`, whether the file holds a definition site of any table name of
    `index.relevant`). A file with none declares none of the names the port decides
    (`PortOptions.no_declaration_sites`): the port then skips its own search. `idents`: the
    file's `identifiers`, when the caller has them: a site's name is one of them (a whole
    identifier token), so a file holding no table name has none, and is not searched (most
    files: CCCL 1,348 of 1,606)."""
    relevant = scanner_for(index).relevant
    if idents is not None and relevant.isdisjoint(idents):
        return frozenset(), False
    if next(project_declaration_sites(data, relevant, idents), None) is None:
        return frozenset(), False
    if is_binary(data):
        return frozenset(), True
    src = SourceFile(rel, data)
    root = P.parse(data, keep=True).root_node  # the port parses the file again: kept for it
    shared = declarations(src, Contexts(data, root), relevant).shared
    return frozenset(n for n in shared if not config_macro(index.by_name.get(n))), True


def config_macro(rows) -> bool:
    """Is the name a switch a project sets for the CUDA headers (a row of kind `config_macro`:
    cuda_fp16.h tests `__CUDA_NO_HALF_OPERATORS__` and never defines it)? Its `#define` and
    `#undef` are renamed like its tests, to the switch HIP's headers test: neither the project's
    own name nor a shim's `#undef`."""
    return bool(rows) and any(r.kind == "config_macro" for r in rows)


@dataclass(frozen=True)
class PortOptions:
    rocm_version: tuple[int, ...] = (7, 2)
    roc: bool = False
    roc_areas: frozenset = frozenset()  # with roc: the areas that go to roc* (see roc_plan)
    shims: frozenset = frozenset()  # CUDA names the project maps to HIP itself (shim_names)
    # (rel, names) for each file that sees the project's own names through the headers it
    # includes (project.names_by_file): kept as written there, as in the header
    project_names: tuple = ()
    # the files the pre-pass found without a definition site of any table name of
    # index.relevant (project_scan), in the bytes it read: the port needs no search of its own
    # there. A hint that changes no result: not part of the check cache's key (`cache.canonical`),
    # which a new file of the project would otherwise change
    no_declaration_sites: frozenset = field(default=frozenset(), metadata={"cache_key": False})
    launch_syntax: str = "keep"  # keep | hip
    rewrite_comments: bool = False
    rewrite_strings: bool = False
    add_runtime_include: bool = True


@dataclass
class Stats:
    converted: dict[str, int] = field(default_factory=dict)  # area -> references rewritten
    unsupported: dict[str, int] = field(default_factory=dict)  # area -> references left (no HIP)
    unconverted: int = 0  # CUDA-looking, unknown
    launches: int = 0
    includes_added: int = 0

    def add(self, other: Stats) -> None:
        for mine, theirs in (
            (self.converted, other.converted),
            (self.unsupported, other.unsupported),
        ):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v
        self.unconverted += other.unconverted
        self.launches += other.launches
        self.includes_added += other.includes_added

    def to_dict(self) -> dict:
        return {
            "converted": dict(sorted(self.converted.items())),
            "unsupported": dict(sorted(self.unsupported.items())),
            "unconverted": self.unconverted,
            "launches": self.launches,
            "includes_added": self.includes_added,
        }


@dataclass
class RewriteResult:
    edits: EditSet
    findings: list[Finding]
    stats: Stats
    declared: set[str]  # CUDA-looking or table names this file declares
    tree: object = None
    uses_cuda: bool = False
    idents: set = field(default_factory=set)  # every identifier token of the file (rule triggers)
    pp: object = None  # the #if model, when the file tests AMD macros
    # the table names (`MappingIndex.relevant`) and CUDA-looking ones among `idents`, and each
    # one's (offset, name) in the file, in order: the completeness check's names of the input
    names: set = field(default_factory=set)
    name_hits: list = field(default_factory=list)


class CudaRewriter:
    """Rewrites one file; holds no state between files."""

    def __init__(self, index: MappingIndex, options: PortOptions):
        self.index = index
        self.opts = options
        self.scan = scanner_for(index)
        self._table_or_looking = NameFilter(self.scan.relevant)  # see _candidates
        self._names: set[bytes] = set()  # per file: see _candidates
        self._headers: dict[str, tuple[Row, str] | None] = {}  # see _header
        self._own: set[str] = set()  # per file: see _project_declarations
        self._project_names: dict[str, frozenset] = dict(options.project_names)
        self._fallbacks: set[int] = set()
        self._deleted: list[tuple[int, int]] = []
        self._ctx: Contexts | LexicalContexts | NameContexts  # per file: see run
        self._plain: PlainNames | None = None  # per file, on first use: see _plain_model
        self._misread = False  # per parsed file: does its tree have errors?
        v = options.rocm_version
        self.version_text = ".".join(map(str, v))

    # -- entry point --------------------------------------------------------------------------
    def run(self, src: SourceFile, tree=None) -> RewriteResult:
        data = src.data
        res = RewriteResult(EditSet(), [], Stats(), set())
        idents = identifiers(data)
        res.idents = idents
        name_hits, qual_hits = self._candidates(data, idents)
        names = res.names = self._names
        res.name_hits = name_hits
        include_hits = include_directives(data, self._relevant_include)
        # device code decides the next two tests only in a file without a name to rewrite
        device_hit = not (name_hits or qual_hits) and (
            any(w in idents for w in _DEVICE_WORDS) or _LAUNCH.search(data) is not None
        )
        if not (name_hits or qual_hits or device_hit or include_hits):
            return res
        self.src = src
        self.res = res
        self._pp = None
        self._plain = None
        amd = names_amd(b"\n".join(idents))
        if (
            tree is None
            and not (name_hits or qual_hits or device_hit)
            and not (amd and not all(_is_hip_include(d.path) for d in include_hits))
        ):
            # only #include lines to decide, and no vendor switch to read (a file that names
            # AMD macros may put an include on the NVIDIA side: see `_vendor_nv`): every
            # decision comes from the bytes (`_includes` decides directives as the preprocessor
            # does, with or without a tree), so the tree is not parsed
            cuda_includes, _ = self._includes(data, include_hits)
            res.uses_cuda = cuda_includes > 0
            return res
        if tree is None and self._lexical(data, name_hits, idents, amd):
            # a vendor switch's #if model comes from the directives, not the tree
            self._pp = res.pp = self._vendor_model(src) if amd else None
            if self._run_lexical(data, idents, include_hits, qual_hits, name_hits):
                return res
            # a #include <hip/hip_runtime.h> to add: where goes by the tree (include_position),
            # and so does the rest of the file, as if the lexical pass had not run
            res = self.res = RewriteResult(EditSet(), [], Stats(), set())
            res.idents, res.names, res.name_hits = idents, names, name_hits
        if tree is None:
            tree = P.parse(data)
        res.tree = tree
        root = tree.root_node
        self._ctx = Contexts(data, root)
        self._misread = root.has_error  # see _misread_declaration
        self._pp = vendor_switches(src, tree) if amd else None
        res.pp = self._pp
        self._implicit_use = False
        cuda_includes, hip_headers = self._includes(data, include_hits)
        self._own, self._fallbacks = self._project_declarations(data, name_hits)
        self._deleted = []
        for m, key, skip in qual_hits:
            self._qualified(data, m, key, skip)
        for pos, n in name_hits:
            self._name(n.decode("ascii", "replace"), pos, pos + len(n))
        launches = self._launches(data, root)
        uses_device = launches > 0 or self._has_device_code(data, idents)
        res.uses_cuda = bool(
            res.stats.converted or res.stats.unsupported or cuda_includes or uses_device
        )
        self._add_runtime_include(data, root, uses_device, hip_headers)
        if root.has_error:
            self._report_errors(src, root)
        return res

    def _lexical(self, data: bytes, name_hits: list, idents: set[bytes], amd: bool) -> bool:
        """Can every decision about this file come from its bytes? Yes when it has no kernel
        launch and no namespace alias (`namespace X = ...`) in its code (one in a comment or a
        literal is neither), and every table or
        CUDA-looking identifier in its code is a plain reference (`_plain_names`): what is left
        to decide are its #include lines, its qualified names (`cub::`, `thrust::`) and names,
        which are rewritten in code and kept in comments and strings, and whether it has device
        code, all of which the preprocessor's own lexing decides (`LexicalContexts`), and the
        sides of a vendor switch (`_vendor_model`, from the directives). CUDA C++ header
        libraries are mostly such files; a file porter does not parse gets no PT003, so a file
        whose brackets do not pair up (`PlainNames.balanced`) is parsed."""
        self._ctx = LexicalContexts(data)
        if _LAUNCH.search(data) is not None and self._in_code(data, b"<<<"):
            return False  # a kernel launch (one in a comment or a literal is none)
        if b"namespace" in idents and self._in_code(data, b"namespace", _ALIAS_LIKE):
            return False
        if not self._plain_model().balanced():
            return False  # a likely syntax error: the parse reports it (PT003)
        return not name_hits or self._plain_names(data, name_hits)

    def _in_code(self, data: bytes, word: bytes, rx: re.Pattern[bytes] | None = None) -> bool:
        """Is some `word` in `data` outside the comments and literals (and there the start of a
        match of `rx`, when given)? Read from the lexical contexts' spans: the tree's comments
        and literals are the preprocessor's."""
        assert isinstance(self._ctx, LexicalContexts)
        spans, starts = self._ctx.spans()
        pos = data.find(word)
        while pos >= 0:
            k = bisect.bisect_right(starts, pos) - 1
            if not (k >= 0 and pos < spans[k][1]) and (rx is None or rx.match(data, pos)):
                return True
            pos = data.find(word, pos + 1)
        return False

    @staticmethod
    def _vendor_model(src: SourceFile):
        """`vendor_switches` without a tree: the #if model reads the directives alone."""
        pp = preproc_model(src, None)
        return pp if any(g.mentions_vendor() for g in pp.groups) else None

    def _plain_names(self, data: bytes, name_hits: list) -> bool:
        """Is every name token of the file decided without its tree? The file declares none of
        them (no definition site: `names.project_declaration_sites`), none has a row that needs
        the call around it (a call transform) or the tree's reading of a namespace, and each
        in code is a plain reference by its neighbouring tokens (`plain.PlainNames`)."""
        relevant = {n for _, n in name_hits if n in self.scan.relevant}
        if (
            relevant
            and self.src.path not in self.opts.no_declaration_sites
            and next(project_declaration_sites(data, relevant), None) is not None
        ):
            return False
        plain = self._plain_model()
        spans, starts = plain.spans, plain.starts
        by_name = self.index.by_name
        for pos, n in name_hits:
            name = n.decode("ascii", "replace")
            rows = by_name.get(name)
            if rows is None and CUDA_LOOKING.match(name) is None or name in self.opts.shims:
                continue  # `_name` decides these without a context
            if rows is not None and any(r.transform for r in rows):
                return False
            k = bisect.bisect_right(starts, pos) - 1
            if k >= 0 and pos < spans[k][1] or plain.in_header_name(pos):
                continue  # in a comment or a literal: the options decide
            if (
                rows is not None
                and any(r.kind == "namespace" for r in rows)
                and plain.next_token(pos + len(n)) != b"::"
            ):
                return False  # `ns::` is a reference; `using namespace ns;` is read in the tree
            type_like = _type_like(rows)
            if not plain.plain_reference(pos, pos + len(n), type_like):
                return False
        return True

    def _run_lexical(
        self, data: bytes, idents: set[bytes], include_hits, qual_hits, name_hits
    ) -> bool:
        """Rewrite the file without its tree (see `_lexical`). False when hip_runtime.h must be
        added: the caller then ports the file from its tree (nothing is kept of this pass)."""
        self._implicit_use = False
        self._own, self._fallbacks, self._deleted = set(), set(), []
        cuda_includes, hip_headers = self._includes(data, include_hits)
        if name_hits:
            # no definition site (`_plain_names`): the names a header of the project defines
            # for this file are its own, as `_project_declarations` says
            shared = self._project_names.get(self.src.path)
            if shared:
                names = {n for _, n in name_hits if n in self.scan.relevant}
                used = {n.decode("ascii", "replace") for n in names}
                used = {n for n in used if not config_macro(self.index.by_name.get(n))}
                self._own = used & shared
        for m, key, skip in qual_hits:
            self._qualified(data, m, key, skip)
        if name_hits:
            lexical, self._ctx = self._ctx, NameContexts(self._ctx, self._plain_model())
            for pos, n in name_hits:
                self._name(n.decode("ascii", "replace"), pos, pos + len(n))
            self._ctx = lexical
        uses_device = self._has_device_code(data, idents)
        if self._runtime_include_missing(uses_device, hip_headers):
            pos = lexical_include_position(self._plain_model())
            if pos is None:
                return False  # the tree decides where
            if self.res.edits.add_group([Edit(pos, pos, include_edit_text(data, pos))]):
                self.res.stats.includes_added += 1
        res = self.res
        res.uses_cuda = bool(
            res.stats.converted or res.stats.unsupported or cuda_includes or uses_device
        )
        return True

    def _candidates(self, data: bytes, idents: set[bytes]) -> tuple[list, list]:
        """(offset, name) of every table or CUDA-looking identifier token, and the qualified
        names (`a::b`, also through namespace aliases) the tables know, in the file. The names
        themselves are kept in `_names`."""
        scan = self.scan
        names = self._names = self._table_or_looking(idents)  # relevant and CUDA-looking
        name_hits = sorted((pos, n) for n in names for pos in find_word(data, n))
        qual_hits = []
        for first, keys in scan.qualified.items():
            if first in idents:
                for m, key in qualified_matches(data, first, keys):
                    if m.start() == 0 or data[m.start() - 1] not in WORD:
                        qual_hits.append((m, key, 0))
        if b"namespace" in idents:
            qual_hits += self._alias_hits(data, idents)
        return name_hits, qual_hits

    def _add_runtime_include(
        self, data: bytes, root, uses_device: bool, hip_headers: set[str]
    ) -> None:
        """nvcc includes cuda_runtime.h in every file it compiles as CUDA; hipcc does not. A file
        with device code needs hip/hip_runtime.h, and a CUDA source (.cu, .cuh) that uses a
        runtime API name needs it or hip/hip_runtime_api.h, unless one of its includes already
        is (or becomes) that header. A dual-vendor file (it tests AMD/HIP macros) or a project
        with its own shim layer includes the right runtime itself: adding hip_runtime.h would
        break its CUDA build."""
        if self._runtime_include_missing(uses_device, hip_headers):
            # the place read from the bytes, as a file ported without its tree gets it (the
            # same as the tree's wherever the tree has no error; where it has, the tree's top
            # level may be broken: `plain.include_position`); the tree's when that is unsure
            pos = lexical_include_position(self._plain_model())
            if pos is None:
                pos = include_position(data, root)
            if self.res.edits.add_group([Edit(pos, pos, include_edit_text(data, pos))]):
                self.res.stats.includes_added += 1

    def _runtime_include_missing(self, uses_device: bool, hip_headers: set[str]) -> bool:
        """Does the port need `#include <hip/hip_runtime.h>` added (see _add_runtime_include)?"""
        if not self.opts.add_runtime_include or self._pp is not None or self.opts.shims:
            return False
        if uses_device:
            return HIP_RUNTIME not in hip_headers
        if self._implicit_use and self.src.path.lower().endswith(CUDA_SOURCE_SUFFIXES):
            return not hip_headers & RUNTIME_API_HEADERS
        return False

    def _report_errors(self, src: SourceFile, root) -> None:
        """One PT003 finding per file, naming the first regions tree-sitter could not parse."""
        regions: list[tuple[int, int, int]] = []
        for err in P.error_nodes(root):
            l1, _ = src.position(err.start_byte)
            l2, _ = src.position(max(err.start_byte, err.end_byte - 1))
            if regions and l1 <= regions[-1][1] + 1:
                regions[-1] = (regions[-1][0], max(l2, regions[-1][1]), regions[-1][2])
            else:
                regions.append((l1, l2, err.start_byte))
        if not regions:
            return
        n_shown = _MAX_REGIONS_SHOWN
        shown = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b, _ in regions[:n_shown])
        more = f" and {len(regions) - n_shown} more" if len(regions) > n_shown else ""
        line, col = src.position(regions[0][2])
        what = "region" if len(regions) == 1 else "regions"
        self.res.findings.append(
            Finding(
                "PT003",
                Severity.WARNING,
                f"tree-sitter could not parse {len(regions)} {what} (lines {shown}{more}); porter "
                "rewrote "
                "only whole identifiers outside strings and comments there and ran no tree rules "
                "on them: review those lines by hand",
                src.path,
                line,
                col,
            )
        )

    # -- helpers ------------------------------------------------------------------------------
    def _finding(self, code, sev, msg, start, name="") -> None:
        line, col = self.src.position(start)
        self.res.findings.append(Finding(code, sev, msg, self.src.path, line, col, name=name))

    def _allowed(self, ctx: str) -> bool:
        if ctx in ("code", "opaque", "lexical"):
            return True
        if ctx == "comment":
            return self.opts.rewrite_comments
        if ctx == "string":
            return self.opts.rewrite_strings
        return False

    def _roc(self, row: Row) -> bool:
        """Use the row's roc* name? Only for areas that go to roc* as a whole (roc_plan)."""
        if not (self.opts.roc and row.roc):
            return False
        return roc_area(row) in self.opts.roc_areas

    def _pick(self, rows: list[Row]) -> tuple[Row, bool]:
        """(row, available in the target ROCm)."""
        row = MappingIndex.pick(rows, self.opts.rocm_version)
        assert row is not None  # callers pass the non-empty rows of a known name
        return row, row.since <= self.opts.rocm_version

    def _count(self, bucket: dict[str, int], area: str) -> None:
        bucket[area] = bucket.get(area, 0) + 1

    def _unsupported(self, row: Row, available: bool, start: int, name: str) -> None:
        if available:
            why = "has no HIP equivalent"
        else:
            why = f"needs ROCm {row.hip_since} or later (target: ROCm {self.version_text})"
        note = f": {row.notes}" if row.notes else ""
        self._left(row, start, name, f"`{name}` {why}; left unchanged{note}")

    def _left(self, row: Row, start: int, name: str, message: str) -> None:
        """A PT002 finding for a reference left unchanged, counted as unsupported."""
        self._count(self.res.stats.unsupported, row.area)
        self._finding("PT002", Severity.ERROR, message, start, name=name)
        self.res.findings[-1].extra["area"] = row.area  # to undo the count if superseded

    def _vendor_nv(self, pos: int) -> bool:
        """Is `pos` on the NVIDIA side of a vendor switch? (see shims.on_nvidia_side)"""
        return on_nvidia_side(self._pp, pos)

    # -- identifiers ---------------------------------------------------------------------------
    def _name(self, name: str, start: int, end: int) -> None:
        """Decide one identifier token: skip it, rewrite it, or report it."""
        rows = self.index.by_name.get(name)
        if rows is None and CUDA_LOOKING.match(name) is None:
            return
        if name in self.opts.shims:
            return  # the project's own shim (#define cudaMalloc hipMalloc) owns it
        if name in self._own:
            self.res.declared.add(name)
            return  # the project declares this name itself: its uses are its own
        if self._deleted and any(a <= start < b for a, b in self._deleted):
            return  # inside an argument a call transform removed
        ctx, node = self._ctx.at(start, end)
        if node is None and ctx == "code":
            ctx = "lexical"  # a file ported without its tree (`_lexical`): no node around it
        if not self._is_reference(name, ctx, node, start):
            return
        if rows is None:
            self.res.stats.unconverted += 1
            self._finding(
                "PT001",
                Severity.WARNING,
                f"`{name}` looks like a CUDA API name but porter has no mapping for it; "
                f"left unchanged",
                start,
                name=name,
            )
            return
        row, available = self._pick(rows)
        if row.kind == "namespace" and not self._namespace_reference(ctx, node, end):
            return
        if not (available and row.hip):
            self._unsupported(row, available, start, name)
            return
        row = target_row(row, self._roc(row))  # the call transform of the name written
        new = row.target(self._roc(row))
        if MEMLOC.match(row.transform):
            self._memloc_name(row, name, new, ctx, node, start, end)
            return
        group = self._name_edits(row, name, new, ctx, node, start, end)
        if group:
            self._apply(row, group, name, new, start)

    def _is_reference(self, name: str, ctx: str, node, start: int) -> bool:
        """Is this token a reference porter may rewrite (not a declaration of the project's own,
        an #undef, the NVIDIA side of a vendor switch, a member, or text porter leaves alone)?"""
        if (
            node is not None
            and ctx == "code"
            and is_declaration_name(node)
            and start not in self._fallbacks
            and not config_macro(self.index.by_name.get(name))
            and not self._misread_declaration(name, start)
        ):
            # the project defines this name itself (`#define cudaMalloc hipMalloc`, a shim
            # function, `namespace cub = hipcub;`): its own definition is never renamed (a
            # fallback for an older CUDA, `_fallbacks`, is renamed with the name's uses)
            self.res.declared.add(name)
            return False
        if ctx == "opaque" and in_undef(node) and not config_macro(self.index.by_name.get(name)):
            return False  # `#undef cudaMalloc` belongs to the project's shim
        if self._vendor_nv(start):
            return False  # the NVIDIA side of a vendor switch stays CUDA
        if not self._allowed(ctx):
            return False
        if (
            ctx == "code"
            and node.type == "field_identifier"
            and not self._misread_declaration(name, start)
        ):
            # a member of a user type (x.cudaStream, a member initializer `cudaStream(s)`) is
            # not an API reference; in a constructor's initializer list a CUDA *type* names a
            # base class (`memcpy_2d() : CUDA_MEMCPY2D() {}`), which is one
            return base_initializer(node) and self._names_type(name)
        return True

    def _misread_declaration(self, name: str, start: int) -> bool:
        """Did tree-sitter read a reference as a declared name (or a member declared) while
        recovering from an error? An attribute or statement macro it does not know makes the
        next name look declared:
        `_CCCL_HIDE_FROM_ABI cudaError_t f();`, `_CCCL_DIAG_POP return cudaSuccess;`, a
        namespace macro `CUB_NAMESPACE_END` after a class. In a tree with errors, a name whose
        neighbouring tokens make it a plain reference (`plain.PlainNames`, which never says so
        of a name an error-free tree declares) is one: renamed as a file ported without its tree
        renames it."""
        if not self._misread:
            return False
        type_like = _type_like(self.index.by_name.get(name))
        return self._plain_model().plain_reference(start, start + len(name), type_like)

    def _plain_model(self) -> PlainNames:
        """The file's `PlainNames`, made on first use from its comment and literal spans (the
        lexical contexts' when the file is ported without its tree): one per file, for the
        lexical path, the include's place and the check of a misread tree."""
        if self._plain is None:
            lexical = self._ctx if isinstance(self._ctx, LexicalContexts) else None
            spans, starts = (lexical or LexicalContexts(self.src.data)).spans()
            self._plain = PlainNames(self.src.data, spans, starts)
        return self._plain

    def _names_type(self, name: str) -> bool:
        rows = self.index.by_name.get(name)
        return rows is not None and any(r.kind == "type" for r in rows)

    def _project_declarations(self, data: bytes, name_hits) -> tuple[set[str], set[int]]:
        """The table names this file declares itself (`using __nv_bfloat162 = __half2;`,
        `typedef int cudaStream_t;`, `#define CUDA_R_16BF 14`, `struct cudaDeviceProp {...}`),
        split as `declarations` tells: returned as the names whose uses stay as they are (the
        file's own, and those a header it includes defines for every file that includes it,
        `PortOptions.project_names`: the port keeps them as their definition stays) and the
        offsets of the fallbacks, each renamed with every use of its name."""
        names = {n for _, n in name_hits if n in self.scan.relevant}
        names = {n for n in names if not config_macro(self.index.by_name.get(n.decode()))}
        if not names:
            return set(), set()
        if self.src.path in self.opts.no_declaration_sites:
            found = Declarations(set(), set(), set(), set())  # no definition site: none
        else:
            assert isinstance(self._ctx, Contexts)  # a file with names is parsed (see _lexical)
            found = declarations(self.src, self._ctx, names, self._pp)
        own = found.own
        shared = self._project_names.get(self.src.path)
        if shared:
            # a fallback of this file is renamed with its uses, whatever a header declares
            used = {n.decode("ascii", "replace") for n in names}
            own |= (used & shared) - found.fallback_names
        return own, found.fallbacks

    def _namespace_reference(self, ctx: str, node, end: int) -> bool:
        """A namespace row applies to `ns::x`, `using namespace ns;` and namespace aliases only."""
        if ctx == "lexical":  # no tree around it: only `ns::` is surely the namespace
            return re.match(rb"\s*::", self.src.data[end : end + _SCOPE_LOOKAHEAD]) is not None
        if ctx != "code":
            return True
        if node.type not in ("namespace_identifier", "identifier"):
            return False
        return node.type != "identifier" or (
            node.parent is not None
            and node.parent.type in ("using_declaration", "namespace_alias_definition")
        )

    def _memloc_name(
        self, row: Row, name: str, new: str, ctx: str, node, start: int, end: int
    ) -> None:
        """A function CUDA 13 changed to take a cudaMemLocation: the call's argument decides."""
        m = MEMLOC.match(row.transform)
        assert m is not None
        if ctx != "code":
            self._left(
                row,
                start,
                name,
                f"`{name}` {_NO_TREE.get(ctx, 'here')}: porter cannot tell its CUDA 12 "
                f"(device) form from its CUDA 13 (cudaMemLocation) form there; left "
                f"unchanged",
            )
            return
        args = call_args(node) or []
        idx = int(m.group(1))
        if len(args) > idx and is_location(self.src.data, args[idx], len(args), idx):
            if parse_version(m.group(3)) > self.opts.rocm_version:
                self._unsupported(
                    row._replace(
                        hip_since=m.group(3), notes=f"the cudaMemLocation form needs {m.group(2)}"
                    ),
                    False,
                    start,
                    name,
                )
                return
            new = m.group(2)
        group = [] if new == name else [Edit(start, end, new.encode())]
        if group:
            self._apply(row, group, name, new, start)

    def _name_edits(
        self, row: Row, name: str, new: str, ctx: str, node, start: int, end: int
    ) -> list[Edit] | None:
        """The rename plus the row's call transform; None (reported) when it cannot be done."""
        extra: list[Edit] = []
        if row.transform:
            if ctx != "code":
                self._left(
                    row,
                    start,
                    name,
                    f"`{name}` {_NO_TREE.get(ctx, 'here')} needs a call rewrite "
                    f"({row.transform}) that porter does only where it parsed the call; "
                    f"left unchanged",
                )
                return None
            done = transform_edits(self.src.data, row, node)
            if done is None:
                args = call_args(node)
                if args is not None:
                    why = refusal(self.src.data, row, args, new) or (
                        f"this call's {len(args)}-argument form has no HIP equivalent "
                        f"porter knows ({row.transform})"
                    )
                    if row.notes:
                        why += f": {row.notes}"
                else:
                    why = f"maps to `{new}` only as a direct call ({row.transform})"
                self._left(row, start, name, f"`{name}`: {why}; left unchanged")
                return None
            extra, other = done
            if other is not None:
                new = other
        group = [] if new == name else [Edit(start, end, new.encode())]
        if (
            group
            and ctx == "code"
            and not self.src.path.endswith(".c")
            and not maps_tag_to_tag(row)
        ):
            # `struct cudaDeviceProp p;`: HIP's name is a typedef whose struct tag may differ
            # (hipIpcMemHandle_t is `struct hipIpcMemHandle_st`), so C++ drops the keyword; a
            # tag that maps to a tag (`struct CUstream_st` -> `struct ihipStream_t`) keeps it,
            # which also declares the tag where no HIP header is included
            kw = elaborated_keyword(self.src.data, node)
            if kw is not None:
                group.insert(0, Edit(kw[0], kw[1], b""))
        return group + extra

    def _apply(self, row: Row, group: list[Edit], name: str, new: str, start: int) -> None:
        if not self.res.edits.add_group(group):
            return
        # text a call transform deleted (a dropped argument): names in it are gone from the port
        self._deleted += [(e.start, e.end) for e in group if not e.text and e.end > e.start]
        self._count(self.res.stats.converted, row.area)
        if row.area in IMPLICIT_AREAS:
            self._implicit_use = True
        if row.status == "deprecated":
            self._finding(
                "PT004",
                Severity.INFO,
                f"`{name}` becomes `{new}`, which HIP marks deprecated",
                start,
                name=name,
            )

    # -- qualified names (a::b) ------------------------------------------------------------
    def _alias_hits(self, data: bytes, idents: set[bytes]) -> list:
        """Qualified names written through a namespace alias (`namespace cg = cooperative_groups;`
        then `cg::this_cluster()`): (match, key, number of key components the alias stands for)."""
        hits = []
        for a in _NS_ALIAS.finditer(data):
            alias, target = a.group(1), re.sub(rb"\s+", b"", a.group(2)).lstrip(b":").decode()
            if alias not in idents or target.encode() == alias:
                continue
            prefix = target + "::"
            for key in self.index.qualified:
                if not key.startswith(prefix):
                    continue
                rest = key[len(prefix) :].split("::")
                parts = [re.escape(alias)] + [re.escape(p.encode()) for p in rest]
                rx = re.compile(QUALIFIED_SEP.join(b"(" + p + b")" for p in parts) + rb"(?![\w$])")
                for m in rx.finditer(data):
                    if m.start() == 0 or data[m.start() - 1] not in WORD:
                        hits.append((m, key, len(target.split("::"))))
        return hits

    def _qualified(self, data: bytes, m: re.Match, key: str, alias_len: int = 0) -> None:
        ctx, node = self._ctx.at(m.start(1), m.end(1))
        if not self._allowed(ctx) or self._vendor_nv(m.start()):
            return
        if (
            ctx == "code"
            and node is not None
            and node.parent is not None
            and node.parent.type == "namespace_alias_definition"
        ):
            return  # `namespace cub = hipcub;` is the project's own alias
        if any(key == s or key.startswith(s + "::") for s in self.opts.shims if "::" in s):
            return  # a namespace the project declares itself (`namespace cuda { namespace std`)
        rows = self.index.qualified[key]
        row, available = self._pick(rows)
        shown = data[m.start() : m.end()].decode("utf-8", "replace")
        if not (available and row.hip):
            self._unsupported(row, available, m.start(), shown if alias_len else key)
            return
        new = row.target(self._roc(row))
        old_parts, new_parts = key.split("::"), new.split("::")
        if alias_len:
            # through an alias only the components after it can be rewritten here; the alias
            # definition itself is rewritten where it names the namespace
            if len(old_parts) != len(new_parts) or old_parts[:alias_len] != new_parts[:alias_len]:
                return
            group = [
                Edit(m.start(i - alias_len + 2), m.end(i - alias_len + 2), n.encode())
                for i, (o, n) in enumerate(zip(old_parts, new_parts))
                if i >= alias_len and o != n
            ]
        elif len(old_parts) == len(new_parts):
            group = [
                Edit(m.start(i + 1), m.end(i + 1), n.encode())
                for i, (o, n) in enumerate(zip(old_parts, new_parts))
                if o != n
            ]
        else:
            group = [Edit(m.start(), m.end(), new.encode())]
        if group and self.res.edits.add_group(group):
            self._count(self.res.stats.converted, row.area)

    # -- includes -----------------------------------------------------------------------------
    def _includes(self, data: bytes, hits) -> tuple[int, set[str]]:
        """Rewrite the CUDA #include lines; (how many CUDA/HIP includes the file has, the HIP
        headers it includes after the port)."""
        cuda_includes = 0
        hip_headers: set[str] = set()
        seen: dict[str, int] = {}  # HIP include path -> end of the line that includes it
        for d in hits:  # the directives (includes.include_directives), as the rules see them
            if self._vendor_nv(d.path_start):
                continue
            path_node = Span(*d.path_span)
            raw = data[path_node.start_byte : path_node.end_byte]
            if len(raw) < 2 or raw[:1] not in (b"<", b'"'):
                continue
            path = d.path
            if path.startswith("hip/") or path in ("hip_runtime.h",):
                hip_headers.add(path)
                cuda_includes += 1
                seen.setdefault(path, line_end(data, path_node.end_byte))
                continue
            found = self._header(path)
            if found is None:
                if CUDA_HEADER.match(path):
                    self.res.stats.unconverted += 1
                    self._finding(
                        "PT001",
                        Severity.WARNING,
                        f"include <{path}> looks like a CUDA header but porter has no "
                        f"mapping for it; left unchanged",
                        path_node.start_byte,
                        name=path,
                    )
                continue
            cuda_includes += 1
            row_rows = self.index.headers.get(path)
            if row_rows is not None:
                row, available = self._pick(row_rows)
                new = row.target(self._roc(row))
            else:
                row, new = found
                available = row.since <= self.opts.rocm_version
                if self._roc(row):
                    new = row.roc + path[len(row.cuda) :]
            if not (available and new):
                self._unsupported(row, available, path_node.start_byte, path)
                continue
            dup = duplicate_include_line(data, path_node, seen.get(new))
            group = [
                dup
                if dup is not None
                else Edit(path_node.start_byte, path_node.end_byte, quoted_like(raw, new))
            ]
            if new in NEEDS_RUNTIME_FIRST and HIP_RUNTIME not in seen:
                # CUDA's interop headers include cuda_runtime.h; HIP's use its types without
                # including it: hip_runtime.h goes on the line before
                start = data.rfind(b"\n", 0, path_node.start_byte) + 1
                group.insert(0, Edit(start, start, include_edit_text(data, start)))
                seen[HIP_RUNTIME] = start
                hip_headers.add(HIP_RUNTIME)
            define = hip_complex_define(data, path_node.start_byte, new, seen)
            if define is not None:  # --roc: rocBLAS's complex types are HIP's (see includes.py)
                group.insert(0, define)
            if self.res.edits.add_group(group):
                self._count(self.res.stats.converted, row.area)
            seen.setdefault(new, line_end(data, path_node.end_byte))
            hip_headers.add(new)
        return cuda_includes, hip_headers

    # -- kernel launches --------------------------------------------------------------------
    def _launches(self, data: bytes, root) -> int:
        count = 0
        for kcs in launch_sites(data, root):
            count += 1
            if self.opts.launch_syntax == "hip":
                edits = hip_launch_edits(data, kcs)
                if edits:
                    self.res.edits.add_group(edits)
        self.res.stats.launches += count
        return count

    def _relevant_include(self, path: str) -> bool:
        return (
            path.startswith("hip/")
            or self._header(path) is not None
            or CUDA_HEADER.match(path) is not None
        )

    def _header(self, path: str) -> tuple[Row, str] | None:
        """`index.lookup_header(path, None)`, kept per path (at most _MAX_PATHS_KEPT): a tree's
        files include the same headers, and each include is looked up twice (see
        _relevant_include and _includes)."""
        try:
            return self._headers[path]
        except KeyError:
            found = self._headers[path] = self.index.lookup_header(path, None)
            if len(self._headers) > _MAX_PATHS_KEPT:
                self._headers.clear()
            return found

    def _has_device_code(self, data: bytes, idents: set[bytes]) -> bool:
        for w in _DEVICE_WORDS:
            if w not in idents:
                continue  # a whole-token occurrence is one of the file's identifier tokens
            for pos in find_word(data, w):
                ctx, _ = self._ctx.at(pos, pos + len(w))
                if ctx in ("code", "lexical", "opaque"):
                    return True
        return False
