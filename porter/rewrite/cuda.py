"""CUDA C++ → HIP rewriting from the mapping tables.

Candidates are found by a regular expression over the bytes (built once from the tables), and
each is decided by its position in the tree-sitter tree: comments and strings are left alone,
macro bodies and ERROR regions are lexed conservatively, and only whole identifier tokens are
replaced. This keeps the Python work proportional to the number of CUDA names in a file, not to
the size of its tree.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..findings import Edit, Finding, Severity
from ..mappings.index import MappingIndex
from ..mappings.model import DEFAULT_ARG, MAX_ARGS, MEMLOC, Row, parse_version
from ..parse import cuda as P
from ..source import SourceFile
from .edits import EditSet

# Identifiers that look like CUDA API names: reported when neither mapped nor declared by the project.
CUDA_LOOKING = re.compile(
    r"(?:cuda[A-Z]\w*|make_cuda[A-Z]\w*|cu[A-Z][a-z]\w*|CU_[A-Z0-9_]+|CUDA_[A-Z0-9_]+|CUDART_[A-Z0-9_]+"
    r"|(?:cublas|cublasLt|cusparse|cufft|curand|cusolver|cudnn|nvrtc|nvtx|cutensor)[A-Z_]\w*"
    r"|(?:CUBLAS|CUSPARSE|CUFFT|CURAND|CUSOLVER|CUDNN|NVRTC|CUTENSOR)_\w+|__nv_\w+)$")
# Include paths that belong to the CUDA toolkit or its libraries (CUTLASS & co. are reported by
# their own rules, not as unconverted CUDA headers).
_CUDA_HEADER = re.compile(
    r"(cuda|cu(?:blas|fft|rand|sparse|solver|dnn|tensor|pti|file|Complex)|nvtx|nvToolsExt|nvrtc"
    r"|nvml|nvperf|cub/|thrust/system/cuda|cooperative_groups|sm_\d\d_(?:intrinsics|atomic)"
    r"|device_(?:functions|launch_parameters|atomic_functions)|crt/)")
QUALIFIED_SEP = rb"\s*::\s*"

# Parents under which an identifier is being declared, with the field that holds the name.
_DECL_FIELDS = {
    "function_declarator": "declarator", "init_declarator": "declarator",
    "pointer_declarator": "declarator", "reference_declarator": None,
    "array_declarator": "declarator", "declaration": "declarator",
    "parameter_declaration": "declarator", "optional_parameter_declaration": "declarator",
    "field_declaration": "declarator", "type_definition": "declarator",
    "struct_specifier": "name", "class_specifier": "name", "union_specifier": "name",
    "enum_specifier": "name", "enumerator": "name", "preproc_def": "name",
    "preproc_function_def": "name", "alias_declaration": "name",
    "namespace_definition": "name", "type_parameter_declaration": None,
    "namespace_alias_definition": "name",
    "preproc_params": None, "template_function": None,
}
HIP_RUNTIME_INCLUDE = b"#include <hip/hip_runtime.h>\n"


@dataclass(frozen=True)
class PortOptions:
    rocm_version: tuple[int, ...] = (7, 2)
    roc: bool = False
    roc_areas: frozenset = frozenset()     # with roc: the areas that go to roc* (see roc_plan)
    shims: frozenset = frozenset()         # CUDA names the project maps to HIP itself (shim_names)
    launch_syntax: str = "keep"           # keep | hip
    rewrite_comments: bool = False
    rewrite_strings: bool = False
    add_runtime_include: bool = True


@dataclass
class Stats:
    converted: dict[str, int] = field(default_factory=dict)    # area -> references rewritten
    unsupported: dict[str, int] = field(default_factory=dict)  # area -> references left (no HIP)
    unconverted: int = 0                                        # CUDA-looking, unknown
    launches: int = 0
    includes_added: int = 0

    def add(self, other: "Stats") -> None:
        for mine, theirs in ((self.converted, other.converted), (self.unsupported, other.unsupported)):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v
        self.unconverted += other.unconverted
        self.launches += other.launches
        self.includes_added += other.includes_added

    def to_dict(self) -> dict:
        return {"converted": dict(sorted(self.converted.items())),
                "unsupported": dict(sorted(self.unsupported.items())),
                "unconverted": self.unconverted, "launches": self.launches,
                "includes_added": self.includes_added}


@dataclass
class RewriteResult:
    edits: EditSet
    findings: list[Finding]
    stats: Stats
    declared: set[str]          # CUDA-looking or table names this file declares
    tree: object = None
    uses_cuda: bool = False
    idents: set = field(default_factory=set)   # every identifier token of the file (rule triggers)
    pp: object = None                          # the #if model, when the file tests AMD macros


@dataclass
class Scanner:
    relevant: frozenset[bytes]                 # table names worth looking at
    qualified: dict[bytes, list[str]]          # first component -> qualified keys, longest first


@lru_cache(maxsize=4)
def scanner_for(index: MappingIndex) -> Scanner:
    quals: dict[bytes, list[str]] = {}
    for key in sorted(index.qualified, key=lambda k: -len(k)):
        quals.setdefault(key.split("::")[0].encode(), []).append(key)
    return Scanner(index.relevant, quals)


@lru_cache(maxsize=None)
def qualified_regex(key: str) -> re.Pattern:
    """`a::b::c` with any spacing around the `::` (compiled on first use: most files use none)."""
    parts = [re.escape(p.encode()) for p in key.split("::")]
    return re.compile(QUALIFIED_SEP.join(b"(" + p + b")" for p in parts) + rb"(?![\w$])")


_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_NS_ALIAS = re.compile(rb"namespace\s+([A-Za-z_]\w*)\s*=\s*((?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*;")
_CUDA_LOOKING_B = re.compile(CUDA_LOOKING.pattern.encode())
_LOOKING_PREFIXES = frozenset({b"cu", b"CU", b"nv", b"NV", b"__", b"ma"})
_INCLUDE_LINE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*([<\"][^>\"\n]*[>\"])", re.M)
_DEVICE_WORDS = (b"__global__", b"__device__", b"__shared__", b"__constant__", b"__managed__",
                 b"threadIdx", b"blockIdx", b"__syncthreads")
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")


_AMD_HINT = re.compile(rb"HIP|ROCM|ROCm|AMD|[gG][fF][xX]\d")
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b", re.M)
_BLOCK_COMMENT = re.compile(rb"/\*.*?(?:\*/|\Z)", re.S)


class _Span:
    __slots__ = ("start_byte", "end_byte")

    def __init__(self, start: int, end: int):
        self.start_byte, self.end_byte = start, end


def block_comment_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every /* ... */ comment. A `/*` inside a string literal would be taken
    for a comment: callers use this only to decide whether a line-start directive is code."""
    if b"/*" not in data:
        return []
    return [m.span() for m in _BLOCK_COMMENT.finditer(data)]


def in_spans(spans: list[tuple[int, int]], pos: int) -> bool:
    import bisect
    i = bisect.bisect_right(spans, (pos, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


def include_directives(data: bytes, root=None) -> list[tuple[int, int, str]]:
    """(offset of '#', end of the path, path) of each #include that is code: from the tree when
    there is one, else from the bytes (line-start directives outside block comments)."""
    out = []
    if root is not None:
        from ..parse.cuda import captures
        for inc in captures("(preproc_include) @i", root).get("i", []):
            path = inc.child_by_field_name("path")
            if path is not None:
                raw = data[path.start_byte:path.end_byte].decode("utf-8", "replace")
                out.append((inc.start_byte, path.end_byte, raw.strip("<>\"").strip()))
        return out
    comments = block_comment_spans(data)
    for m in _INCLUDE_LINE.finditer(data):
        hash_pos = data.index(b"#", m.start())
        if in_spans(comments, hash_pos):
            continue
        out.append((hash_pos, m.end(1), m.group(1)[1:-1].decode("utf-8", "replace").strip()))
    return out


_SHIM = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:\([^)\n]*\))?[ \t]+[^\n]*?\b(?:hip|HIP|roc)[A-Za-z_]"
    rb"|\busing[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*(?:::)?(?:hip|HIP|roc)[A-Za-z_]"
    rb"|\bnamespace[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*(?:::)?(?:hip|roc)[A-Za-z_]", re.M)


def shim_names(data: bytes) -> set[str]:
    """Names a dual-vendor project maps to HIP itself: `#define cudaMalloc hipMalloc`,
    `using cudaStream_t = hipStream_t;`, `namespace cub = hipcub;`. porter leaves them (and their
    uses) alone: the project's shim already does the porting, and its CUDA build needs them."""
    out = set()
    if b"hip" not in data and b"HIP" not in data and b"roc" not in data:
        return out
    for m in _SHIM.finditer(data):
        name = m.group(1) or m.group(2) or m.group(3)
        out.add(name.decode())
    return out


def identifiers(data: bytes) -> set[bytes]:
    """Every distinct identifier-like token of a file (one C-speed pass)."""
    return set(_IDENT.findall(data))


def find_word(data: bytes, word: bytes):
    """Offsets of `word` as a whole identifier token."""
    n = len(word)
    pos = data.find(word)
    while pos >= 0:
        if (pos == 0 or data[pos - 1] not in _WORD) and (pos + n >= len(data) or data[pos + n] not in _WORD):
            yield pos
        pos = data.find(word, pos + n)


def lex_code_spans(text: bytes) -> list[tuple[int, int]]:
    """Spans of comments, strings and char literals inside opaque text (a macro body)."""
    spans = []
    i, n = 0, len(text)
    while i < n:
        c = text[i:i + 1]
        if c == b"/" and text[i + 1:i + 2] == b"/":
            j = text.find(b"\n", i)
            j = n if j < 0 else j
            spans.append((i, j))
            i = j
        elif c == b"/" and text[i + 1:i + 2] == b"*":
            j = text.find(b"*/", i + 2)
            j = n if j < 0 else j + 2
            spans.append((i, j))
            i = j
        elif c in (b'"', b"'"):
            j = i + 1
            while j < n and text[j:j + 1] != c:
                j += 2 if text[j:j + 1] == b"\\" else 1
            spans.append((i, min(j + 1, n)))
            i = j + 1
        else:
            i += 1
    return spans


def is_declaration_name(node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type not in _DECL_FIELDS:
        return False
    fld = _DECL_FIELDS[parent.type]
    if parent.type == "template_function":
        return False
    if fld is None:
        return parent.type in ("reference_declarator", "type_parameter_declaration", "preproc_params")
    child = parent.child_by_field_name(fld)
    return child is not None and child.start_byte == node.start_byte and child.end_byte == node.end_byte


class CudaRewriter:
    """Rewrites one file; holds no state between files."""

    def __init__(self, index: MappingIndex, options: PortOptions):
        self.index = index
        self.opts = options
        self.scan = scanner_for(index)
        v = options.rocm_version
        self.version_text = ".".join(map(str, v))

    # -- entry point --------------------------------------------------------------------------
    def run(self, src: SourceFile, tree=None) -> RewriteResult:
        data = src.data
        res = RewriteResult(EditSet(), [], Stats(), set())
        idents = identifiers(data)
        res.idents = idents
        scan = self.scan
        names = idents & scan.relevant
        names |= {n for n in idents - names if n[:2] in _LOOKING_PREFIXES and _CUDA_LOOKING_B.match(n)}
        name_hits = sorted((pos, n) for n in names for pos in find_word(data, n))
        qual_hits = []
        for first, keys in scan.qualified.items():
            if first in idents:
                for key in keys:
                    for m in qualified_regex(key).finditer(data):
                        if m.start() == 0 or data[m.start() - 1] not in _WORD:
                            qual_hits.append((m, key, 0))
        if b"namespace" in idents:
            qual_hits += self._alias_hits(data, idents)
        include_hits = [m for m in _INCLUDE_LINE.finditer(data) if self._relevant_include(m.group(1))]
        device_hit = any(w in idents for w in _DEVICE_WORDS) or b"<<<" in data
        if not (name_hits or qual_hits or device_hit or include_hits):
            return res
        self.src = src
        self.res = res
        self._pp = None
        if tree is None and not (name_hits or qual_hits or device_hit):
            # only #include lines to decide: a directive at the start of a line is code unless a
            # block comment spans it, which a regex over the bytes tells without a parse
            cuda_includes, _ = self._includes(data, None, include_hits)
            res.uses_cuda = cuda_includes > 0
            return res
        if tree is None:
            tree = P.parse(data)
        res.tree = tree
        root = tree.root_node
        self._opaque_cache: dict[int, list[tuple[int, int]]] = {}
        self._pp = self._vendor_switches(src, tree) if _AMD_HINT.search(b"\n".join(idents)) else None
        res.pp = self._pp
        cuda_includes, hip_runtime_included = self._includes(data, root, include_hits)
        for m, key, skip in qual_hits:
            self._qualified(data, root, m, key, skip)
        for pos, n in name_hits:
            self._name(root, n.decode("ascii", "replace"), pos, pos + len(n))
        launches = self._launches(data, root)
        uses_device = launches > 0 or self._has_device_code(data, root)
        res.uses_cuda = bool(res.stats.converted or res.stats.unsupported or cuda_includes
                             or uses_device)
        # nvcc includes cuda_runtime.h in every .cu file; hipcc does not: a file with device code
        # needs hip/hip_runtime.h unless one of its includes already is (or becomes) that header.
        # a dual-vendor file (it tests AMD/HIP macros) or a project with its own shim layer
        # includes the right runtime itself: adding hip_runtime.h would break its CUDA build
        if self.opts.add_runtime_include and uses_device and not hip_runtime_included \
                and self._pp is None and not self.opts.shims:
            pos = self._include_position(data, root)
            if res.edits.add_group([Edit(pos, pos, HIP_RUNTIME_INCLUDE)]):
                res.stats.includes_added += 1
        if root.has_error:
            self._report_errors(src, root)
        return res

    def _report_errors(self, src: SourceFile, root) -> None:
        """One PT003 finding per file, naming the first regions tree-sitter could not parse."""
        regions = []
        for err in P.error_nodes(root):
            l1, _ = src.position(err.start_byte)
            l2, _ = src.position(max(err.start_byte, err.end_byte - 1))
            if regions and l1 <= regions[-1][1] + 1:
                regions[-1] = (regions[-1][0], max(l2, regions[-1][1]), regions[-1][2])
            else:
                regions.append((l1, l2, err.start_byte))
        if not regions:
            return
        shown = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b, _ in regions[:5])
        more = f" and {len(regions) - 5} more" if len(regions) > 5 else ""
        line, col = src.position(regions[0][2])
        what = "region" if len(regions) == 1 else "regions"
        self.res.findings.append(Finding(
            "PT003", Severity.WARNING,
            f"tree-sitter could not parse {len(regions)} {what} (lines {shown}{more}); porter rewrote "
            f"only whole identifiers outside strings and comments there and ran no tree rules on "
            f"them: review those lines by hand", src.path, line, col))

    # -- helpers ------------------------------------------------------------------------------
    def _finding(self, code, sev, msg, start, name="", end=None):
        line, col = self.src.position(start)
        self.res.findings.append(Finding(code, sev, msg, self.src.path, line, col, name=name))

    def _context(self, root, start: int, end: int):
        """('code', node) | ('comment', node) | ('string', node) | ('opaque', node) | ('partial', node)."""
        node = root.descendant_for_byte_range(start, end)
        if node is None:
            return "partial", None
        t = node.type
        if t in P.COMMENT_TYPES:
            return "comment", node
        if t in P.STRING_TYPES or (node.parent is not None and node.parent.type in P.STRING_TYPES):
            return "string", node
        if node.start_byte == start and node.end_byte == end:
            if t in P.IDENT_TYPES:
                return "code", node
            if t in P.OPAQUE_TYPES:      # `#define gpuStream_t cudaStream_t`: the whole body
                return "opaque", node
            return "partial", node
        if t in P.OPAQUE_TYPES or (node.start_byte <= start and end <= node.end_byte
                                   and not node.named_child_count and t not in P.IDENT_TYPES):
            spans = self._opaque_cache.get(node.start_byte)
            if spans is None:
                spans = lex_code_spans(self.src.data[node.start_byte:node.end_byte])
                self._opaque_cache[node.start_byte] = spans
            rel = start - node.start_byte
            for a, b in spans:
                if a <= rel < b:
                    return "string", node
            if t in P.OPAQUE_TYPES:
                return "opaque", node
        return "partial", node

    def _allowed(self, ctx: str) -> bool:
        if ctx in ("code", "opaque"):
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
        return row, row.since <= self.opts.rocm_version

    def _unsupported(self, row: Row, available: bool, start: int, name: str):
        self.res.stats.unsupported[row.area] = self.res.stats.unsupported.get(row.area, 0) + 1
        if available:
            why = "has no HIP equivalent"
        else:
            why = f"needs ROCm {row.hip_since} or later (target: ROCm {self.version_text})"
        note = f": {row.notes}" if row.notes else ""
        self._finding("PT002", Severity.ERROR, f"`{name}` {why}; left unchanged{note}",
                      start, name=name)
        self.res.findings[-1].extra["area"] = row.area   # to undo the count if superseded

    # -- identifiers ---------------------------------------------------------------------------
    def _name(self, root, name: str, start: int, end: int) -> None:
        rows = self.index.by_name.get(name)
        looks = rows is None and CUDA_LOOKING.match(name) is not None
        if rows is None and not looks:
            return
        if name in self.opts.shims:
            return                  # the project's own shim (#define cudaMalloc hipMalloc) owns it
        ctx, node = self._context(root, start, end)
        if node is not None and ctx == "code" and is_declaration_name(node):
            # the project defines this name itself (`#define cudaMalloc hipMalloc`, a shim
            # function, `namespace cub = hipcub;`): its own definition is never renamed
            self.res.declared.add(name)
            return
        if ctx == "opaque" and _in_undef(node):
            return                  # `#undef cudaMalloc` belongs to the project's shim
        if self._vendor_nv(start):
            return                  # the NVIDIA side of a vendor switch stays CUDA
        if not self._allowed(ctx):
            return
        if ctx == "code" and node.type == "field_identifier":
            return  # a member of a user type (x.cudaStream): not an API reference
        if rows is None:
            self.res.stats.unconverted += 1
            self._finding("PT001", Severity.WARNING,
                          f"`{name}` looks like a CUDA API name but porter has no mapping for it; "
                          f"left unchanged", start, name=name)
            return
        row, available = self._pick(rows)
        if row.kind == "namespace":
            if ctx == "code" and node.type not in ("namespace_identifier", "identifier"):
                return
            if ctx == "code" and node.type == "identifier" and (
                    node.parent is None or node.parent.type not in ("using_declaration",
                                                                    "namespace_alias_definition")):
                return
        if not (available and row.hip):
            self._unsupported(row, available, start, name)
            return
        new = row.target(self._roc(row))
        m = MEMLOC.match(row.transform)
        if m:
            if ctx != "code":
                self._finding("PT002", Severity.ERROR,
                              f"`{name}` inside a macro body: porter cannot tell its CUDA 12 (device) "
                              f"form from its CUDA 13 (cudaMemLocation) form there; left unchanged",
                              start, name=name)
                return
            args = self._call_args(node) or []
            idx = int(m.group(1))
            if len(args) > idx and self._is_location(args[idx], len(args), idx):
                if parse_version(m.group(3)) > self.opts.rocm_version:
                    self._unsupported(row._replace(hip_since=m.group(3),
                                                   notes="the cudaMemLocation form needs "
                                                         f"{m.group(2)}"), False, start, name)
                    return
                new = m.group(2)
            group = [] if new == name else [Edit(start, end, new.encode())]
            if group and self.res.edits.add_group(group):
                self.res.stats.converted[row.area] = self.res.stats.converted.get(row.area, 0) + 1
            return
        group = [] if new == name else [Edit(start, end, new.encode())]
        if row.transform and ctx == "code":
            extra = self._transform(row, node)
            if extra is None:
                if MAX_ARGS.match(row.transform) and self._call_args(node) is not None:
                    why = f"this call's arguments have no HIP equivalent ({row.notes})"
                else:
                    why = f"maps to `{new}` only as a direct call ({row.transform})"
                self._finding("PT002", Severity.ERROR, f"`{name}`: {why}; left unchanged",
                              start, name=name)
                self.res.stats.unsupported[row.area] = self.res.stats.unsupported.get(row.area, 0) + 1
                return
            group += extra
        elif row.transform:
            self._finding("PT002", Severity.ERROR,
                          f"`{name}` inside a macro body needs a call rewrite ({row.transform}) "
                          f"that porter does not do in macros; left unchanged", start, name=name)
            return
        if not group:
            return                  # already the HIP spelling: nothing converted
        if not self.res.edits.add_group(group):
            return
        self.res.stats.converted[row.area] = self.res.stats.converted.get(row.area, 0) + 1
        if row.status == "deprecated":
            self._finding("PT004", Severity.INFO,
                          f"`{name}` becomes `{new}`, which HIP marks deprecated", start, name=name)

    def _is_location(self, arg, nargs: int, idx: int) -> bool:
        """Is this argument a cudaMemLocation (CUDA 13 form) rather than a device number?"""
        if nargs > idx + 2:            # prefetch: (ptr, count, location, flags, stream)
            return True
        text = self.src.data[arg.start_byte:arg.end_byte]
        if arg.type in ("initializer_list", "compound_literal_expression") or b"ocation" in text:
            return True
        if arg.type == "identifier":
            rx = rb"(?:cuda|hip|CU|hip)[Mm]em_?[Ll]ocation\w*\s*[&*]?\s*" + re.escape(text) + rb"\b"
            return re.search(rx, self.src.data) is not None
        return False

    def _call_args(self, node):
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

    def _transform(self, row: Row, node) -> list[Edit] | None:
        args = self._call_args(node)
        if args is None:
            return None
        data = self.src.data
        m = MAX_ARGS.match(row.transform)
        if m:
            return [] if len(args) <= int(m.group(1)) else None
        m = DEFAULT_ARG.match(row.transform)
        if m:
            n, text = int(m.group(1)), m.group(2)
            if len(args) != n:
                return []
            if n == 0:
                return None
            return [Edit(args[-1].end_byte, args[-1].end_byte, b", " + text.encode())]
        if not args:
            return None
        if row.transform == "drop_arg0":
            a0 = args[0]
            end = args[1].start_byte if len(args) > 1 else a0.end_byte
            return [Edit(a0.start_byte, end, b"")]
        if row.transform in ("symbol_arg0", "symbol_arg1"):
            i = 0 if row.transform == "symbol_arg0" else 1
            if len(args) <= i:
                return None
            a = args[i]
            text = data[a.start_byte:a.end_byte]
            if text.startswith(b"HIP_SYMBOL"):
                return []
            return [Edit(a.start_byte, a.start_byte, b"HIP_SYMBOL("),
                    Edit(a.end_byte, a.end_byte, b")")]
        return None

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
                rest = key[len(prefix):].split("::")
                parts = [re.escape(alias)] + [re.escape(p.encode()) for p in rest]
                rx = re.compile(QUALIFIED_SEP.join(b"(" + p + b")" for p in parts) + rb"(?![\w$])")
                for m in rx.finditer(data):
                    if m.start() == 0 or data[m.start() - 1] not in _WORD:
                        hits.append((m, key, len(target.split("::"))))
        return hits

    def _qualified(self, data: bytes, root, m: re.Match, key: str, alias_len: int = 0) -> None:
        ctx, node = self._context(root, m.start(1), m.end(1))
        if not self._allowed(ctx) or self._vendor_nv(m.start()):
            return
        if ctx == "code" and node is not None and node.parent is not None \
                and node.parent.type == "namespace_alias_definition":
            return                  # `namespace cub = hipcub;` is the project's own alias
        rows = self.index.qualified[key]
        row, available = self._pick(rows)
        shown = data[m.start():m.end()].decode("utf-8", "replace")
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
            group = [Edit(m.start(i - alias_len + 2), m.end(i - alias_len + 2), n.encode())
                     for i, (o, n) in enumerate(zip(old_parts, new_parts))
                     if i >= alias_len and o != n]
        elif len(old_parts) == len(new_parts):
            group = [Edit(m.start(i + 1), m.end(i + 1), n.encode())
                     for i, (o, n) in enumerate(zip(old_parts, new_parts)) if o != n]
        else:
            group = [Edit(m.start(), m.end(), new.encode())]
        if group and self.res.edits.add_group(group):
            self.res.stats.converted[row.area] = self.res.stats.converted.get(row.area, 0) + 1

    # -- includes -----------------------------------------------------------------------------
    def _includes(self, data: bytes, root, hits) -> tuple[int, bool]:
        cuda_includes = 0
        hip_runtime = False
        comments = block_comment_spans(data) if root is None else None
        seen: dict[str, int] = {}       # HIP include path -> end of the line that includes it
        for m in hits:
            if self._vendor_nv(m.start(1)):
                continue
            if root is None:
                if in_spans(comments, m.start(1)):
                    continue
                path_node = _Span(m.start(1), m.end(1))
            else:
                node = root.descendant_for_byte_range(m.start(1), m.end(1))
                while node is not None and node.type != "preproc_include":
                    node = node.parent
                if node is None:
                    continue
                path_node = node.child_by_field_name("path")
                if path_node is None:
                    continue
            raw = data[path_node.start_byte:path_node.end_byte]
            if len(raw) < 2 or raw[:1] not in (b"<", b'"'):
                continue
            path = raw[1:-1].decode("utf-8", "replace").strip()
            if path.startswith("hip/") or path in ("hip_runtime.h",):
                hip_runtime = hip_runtime or path == "hip/hip_runtime.h"
                cuda_includes += 1
                seen.setdefault(path, _line_end(data, path_node.end_byte))
                continue
            found = self.index.lookup_header(path, None)
            if found is None:
                if _CUDA_HEADER.match(path):
                    self.res.stats.unconverted += 1
                    self._finding("PT001", Severity.WARNING,
                                  f"include <{path}> looks like a CUDA header but porter has no "
                                  f"mapping for it; left unchanged", path_node.start_byte, name=path)
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
                    new = row.roc + path[len(row.cuda):]
            if not (available and new):
                self._unsupported(row, available, path_node.start_byte, path)
                continue
            dup = self._duplicate_include_line(data, path_node, seen.get(new))
            edit = dup if dup is not None else Edit(path_node.start_byte, path_node.end_byte,
                                                    b"<" + new.encode() + b">")
            if self.res.edits.add_group([edit]):
                self.res.stats.converted[row.area] = self.res.stats.converted.get(row.area, 0) + 1
            seen.setdefault(new, _line_end(data, path_node.end_byte))
            if new == "hip/hip_runtime.h":
                hip_runtime = True
        return cuda_includes, hip_runtime

    @staticmethod
    def _duplicate_include_line(data: bytes, path_node, earlier_end: int | None) -> Edit | None:
        """An edit deleting this #include line when an earlier line already includes the same
        HIP header (`cuda.h` and `cuda_runtime.h` both become hip/hip_runtime.h), provided no
        conditional directive lies between them and the line holds nothing else."""
        if earlier_end is None:
            return None
        start = data.rfind(b"\n", 0, path_node.start_byte) + 1
        end = _line_end(data, path_node.end_byte)
        if not re.fullmatch(rb"[ \t]*#[ \t]*include[ \t]*", data[start:path_node.start_byte]):
            return None
        if data[path_node.end_byte:end].strip():
            return None
        if earlier_end > start or _CONDITIONAL.search(data, earlier_end, start):
            return None
        return Edit(start, end, b"")

    def _include_position(self, data: bytes, root) -> int:
        """Where to add `#include <hip/hip_runtime.h>`: before the first top-level include (or the
        first include inside the header guard), else after the guard / `#pragma once`, else after
        the leading comments."""
        after = 0
        children = root.children
        i = 0
        while i < len(children) and children[i].type == "comment":
            after = _line_end(data, children[i].end_byte)
            i += 1
        while i < len(children):
            c = children[i]
            if c.type == "preproc_include":
                return c.start_byte
            if c.type == "preproc_call" and b"once" in data[c.start_byte:c.end_byte]:
                after = _line_end(data, c.end_byte)
                i += 1
                continue
            if c.type == "preproc_ifdef" and i == len(children) - 1 or (
                    c.type == "preproc_ifdef" and all(x.type == "comment" for x in children[i + 1:])):
                inner = c.named_children
                for j, g in enumerate(inner):
                    if g.type == "preproc_def":
                        pos = _line_end(data, g.end_byte)
                        for h in inner[j + 1:]:
                            if h.type == "preproc_include":
                                return h.start_byte
                            if h.type != "comment":
                                break
                        return pos
                return after
            if c.type == "comment":
                i += 1
                continue
            break
        return after

    # -- kernel launches --------------------------------------------------------------------
    def _launches(self, data: bytes, root) -> int:
        count = 0
        pos = data.find(b"<<<")
        while pos >= 0:
            node = root.descendant_for_byte_range(pos, pos + 3)
            if node is not None and node.type == "<<<" and node.parent is not None \
                    and node.parent.type == "kernel_call_syntax":
                count += 1
                if self.opts.launch_syntax == "hip":
                    self._hip_launch(data, node.parent)
            pos = data.find(b"<<<", pos + 3)
        self.res.stats.launches += count
        return count

    def _hip_launch(self, data: bytes, kcs) -> None:
        call = kcs.parent
        if call is None or call.type != "call_expression":
            return
        fn = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if fn is None or args is None:
            return
        cfg = [c for c in kcs.named_children if c.type != "comment"]
        if len(cfg) < 2 or len(cfg) > 4:
            return
        templated = fn.type == "template_function" or (
            fn.type == "qualified_identifier" and b"<" in data[fn.start_byte:fn.end_byte])
        close_name = b")" if templated else b""
        open_name = b"hipLaunchKernelGGL(" + (b"HIP_KERNEL_NAME(" if templated else b"")
        def is_dim3(n) -> bool:
            f = n.child_by_field_name("function") if n.type == "call_expression" else None
            return f is not None and data[f.start_byte:f.end_byte] == b"dim3"
        g_open, g_close = (b"", b"") if is_dim3(cfg[0]) else (b"dim3(", b")")
        b_open, b_close = (b"", b"") if is_dim3(cfg[1]) else (b"dim3(", b")")
        edits = [Edit(fn.start_byte, fn.start_byte, open_name),
                 Edit(fn.end_byte, cfg[0].start_byte, close_name + b", " + g_open),
                 Edit(cfg[0].end_byte, cfg[1].start_byte, g_close + b", " + b_open)]
        arg_nodes = [c for c in args.named_children if c.type != "comment"]
        tail = b"" if not arg_nodes else b", "
        if len(cfg) == 2:
            edits.append(Edit(cfg[1].end_byte, args.start_byte + 1, b_close + b", 0, 0" + tail))
        elif len(cfg) == 3:
            edits.append(Edit(cfg[1].end_byte, cfg[2].start_byte, b_close + b", "))
            edits.append(Edit(cfg[2].end_byte, args.start_byte + 1, b", 0" + tail))
        else:
            edits.append(Edit(cfg[1].end_byte, cfg[2].start_byte, b_close + b", "))
            edits.append(Edit(cfg[3].end_byte, args.start_byte + 1, tail))
        self.res.edits.add_group(edits)

    @staticmethod
    def _vendor_switches(src: SourceFile, tree):
        """The file's #if structure, when it tests an AMD/HIP macro (a dual-vendor file)."""
        from ..parse.preproc import PPState
        pp = PPState(_TreeView(src.data, tree.root_node))
        return pp if any(g.mentions_amd() for g in pp.groups) else None

    def _vendor_nv(self, pos: int) -> bool:
        """Is `pos` on the NVIDIA side of a vendor switch (`#ifndef __HIP_PLATFORM_AMD__`, the
        `#else` of `#ifdef USE_ROCM`)? Such code is the project's CUDA build: left as it is."""
        pp = self._pp
        if pp is None:
            return False
        b = pp.branch_at(pos)
        while b is not None:
            if b.group.mentions_amd() and pp.branch_value(b, "amd") == 0:
                return True
            b = b.group.parent
        return False

    def _relevant_include(self, raw: bytes) -> bool:
        path = raw[1:-1].decode("utf-8", "replace").strip()
        return (path.startswith("hip/") or self.index.lookup_header(path, None) is not None
                or _CUDA_HEADER.match(path) is not None)

    def _has_device_code(self, data: bytes, root) -> bool:
        for w in _DEVICE_WORDS:
            for pos in find_word(data, w):
                ctx, _ = self._context(root, pos, pos + len(w))
                if ctx in ("code", "partial", "opaque"):
                    return True
        return False


def roc_area(row: Row) -> str:
    """The library area a roc* name belongs to: the row's area, or for a header row the area
    its roc* folder names (rocblas/rocblas.h -> blas)."""
    if row.kind in ("header", "header_dir") and row.roc.startswith("roc"):
        return row.roc.split("/")[0][3:]
    return row.area


def roc_plan(index: MappingIndex, files, version) -> tuple[frozenset, dict[str, list[str]]]:
    """Decide, for the whole project, which libraries --roc moves to rocBLAS/rocRAND/rocSPARSE...

    A library goes to roc* only if every name of it that the project uses has a one-to-one
    roc* equivalent; otherwise it stays on the hip* wrapper (mixing rocblas_handle with hipBLAS
    calls would not compile). Returns (areas, {area: names without a roc* equivalent})."""
    capable = {a for a, rows in index.areas.items()
               if any(r.roc for r in rows) and not all(r.kind in ("header", "header_dir") for r in rows)}
    used: set[bytes] = set()
    for data in files:
        used |= identifiers(data)
    blockers: dict[str, list[str]] = {}
    for name in sorted(n.decode() for n in used):
        rows = index.by_name.get(name)
        if not rows:
            continue
        row = MappingIndex.pick(rows, version)
        if row.area in capable and row.hip and not row.roc:
            blockers.setdefault(row.area, []).append(name)
    return frozenset(capable - set(blockers)), blockers


class _TreeView:
    """What the preprocessor model reads of a file: its bytes and where comments are."""

    def __init__(self, data: bytes, root):
        self.data, self.root = data, root

    def in_comment_or_string(self, start: int, end: int) -> bool:
        return P.in_comment_or_string(self.root, start, end)


def _in_undef(node) -> bool:
    p = node.parent if node is not None else None
    if p is None or p.type != "preproc_call":
        return False
    d = p.child_by_field_name("directive")
    return d is not None and d.text is not None and d.text.strip() == b"#undef"


def _line_end(data: bytes, pos: int) -> int:
    j = data.find(b"\n", pos)
    return len(data) if j < 0 else j + 1
