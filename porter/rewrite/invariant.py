"""The rewriter's invariant: no CUDA name is left behind silently.

After a file is ported, its OUTPUT is scanned for identifiers that name CUDA API (the mapping
tables' CUDA names that do not map to themselves, and names of the CUDA-name pattern) and for
CUDA #include paths. Each must be accounted for: reported by a finding at that place, declared
by the project itself (its own `cudaGaugeField`, a shim's `#define cudaMalloc hipMalloc`), on the
NVIDIA side of a vendor switch, a member of a user type (`x.cudaStream`), or inside a comment or
string. Whatever is left is a porter fault (a name the rewriter skipped without a decision), and
the engine reports it rather than pass it on silently.

The scan is independent of how the rewriter decided: it lexes the output bytes itself and maps
each position back to the input through the applied edits.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..findings import Edit, Finding, Severity
from ..mappings.index import MappingIndex
from ..source import SourceFile
from .includes import CUDA_HEADER, include_lines
from .lex import WORD, NameFilter, find_word, identifiers, in_spans
from .shims import on_nvidia_side

# in every message of the check's findings (reports and tests tell them from other PT001s)
MARK = "porter's completeness check"
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(include|undef)\b[^\n]*", re.MULTILINE)
_DIRECTIVE_TEXT = re.compile(rb"#[ \t]*(?:include|undef)\b")


def _directive_spans(data: bytes) -> list[tuple[int, int]]:
    """The spans ``_DIRECTIVE.finditer(data)`` finds, from each `#include`/`#undef` text: the
    line-start pattern tried at every byte cost more than the rest of the check on big files."""
    out = []
    last = -1
    for hit in _DIRECTIVE_TEXT.finditer(data):
        line = data.rfind(b"\n", 0, hit.start()) + 1
        if line <= last:
            continue
        m = _DIRECTIVE.match(data, line)
        if m is not None and m.end() > hit.start():
            out.append(m.span())
            last = line
    return out


_MEMBER = re.compile(rb"(?:\.|->)\s*$")


@dataclass(frozen=True)
class Leftover:
    """A CUDA name (or include path) in the output that nothing accounts for."""

    name: str
    pos: int  # offset in the INPUT (for text porter wrote: where its edit starts)
    written: bool  # porter's own replacement text holds it (a table fault)


@lru_cache(maxsize=4)
def _mapped_to_itself(index: MappingIndex) -> frozenset[str]:
    """Table names some row maps to the same spelling (`atomicAdd`, `__shfl_xor_sync`)."""
    return frozenset(
        name
        for name, rows in index.by_name.items()
        if any(r.hip == name or r.roc == name for r in rows)
    )


def code_spans_to_skip(data: bytes) -> list[tuple[int, int]]:
    """Comments, string and character literals of a whole C++ file, sorted (a small lexer:
    raw strings and digit separators are handled; trigraphs are not). Each comment or literal is
    one `_SKIP_TOKEN` match; a `'` after an identifier byte (maybe a digit separator) and a `"`
    after an `R` (maybe a raw string) are decided as before, one byte at a time."""
    spans: list[tuple[int, int]] = []
    append = spans.append
    find = data.find
    n = len(data)
    pos = 0
    while True:
        for m in _SKIP_TOKEN.finditer(data, pos):
            j = m.start()
            c = data[j]
            if c == 0x27 and j > 0 and data[j - 1] in WORD and _in_number(data, j):
                pos = j + 1  # 1'000'000
                break
            if (
                c == 0x22
                and j > 0
                and data[j - 1] == 0x52  # R"
                and (j < 2 or data[j - 2] not in WORD or data[j - 2 : j - 1] in b"uUL8")
            ):
                r = re.match(rb'"([^()\\ \n]{0,16})\(', data[j : j + 20])
                if r:
                    close = b")" + r.group(1) + b'"'
                    e = find(close, j + r.end())
                    e = n if e < 0 else e + len(close)
                    append((j, e))
                    pos = e
                    break
            append(m.span())
        else:
            return spans


# One comment or literal as code_spans_to_skip lexes it: a `//` comment runs to a newline that
# no backslash precedes (or that ends the file), a `/*` one to its `*/` (or the end), a string
# or character literal to its closing quote or its first unescaped newline, included (a
# backslash escapes the byte after it, whatever it is). Starts with `/`, `"` or `'`: the regex
# engine skips to those bytes itself.
_SKIP_TOKEN = re.compile(
    rb"//(?:[^\\\n]++|\\\n(?=.)|\\)*+"
    rb"|/\*(?:[^*]++|\*(?!/))*+(?:\*/)?"
    rb'|"(?:[^"\\\n]++|\\.?)*+.?'
    rb"|'(?:[^'\\\n]++|\\.?)*+.?",
    re.DOTALL,
)


def _in_number(data: bytes, j: int) -> bool:
    """Is the `'` at j a digit separator (the token before it starts with a digit)?"""
    k = j
    while k > 0 and data[k - 1] in WORD:
        k -= 1
    return data[k : k + 1].isdigit()


class _BackMap:
    """Output offsets back to input offsets through a set of applied edits."""

    def __init__(self, edits: Iterable[Edit]):
        edits = list(edits)
        order = sorted(range(len(edits)), key=lambda i: (edits[i].start, edits[i].end, i))
        self.out_starts: list[int] = []
        self.items: list[tuple[int, int, Edit]] = []  # (out start, out end, edit)
        delta = 0
        for i in order:
            e = edits[i]
            out_start = e.start + delta
            self.out_starts.append(out_start)
            self.items.append((out_start, out_start + len(e.text), e))
            delta += len(e.text) - (e.end - e.start)

    def back(self, pos: int) -> tuple[int, bool]:
        """(input offset, inside porter's own text?)."""
        k = bisect.bisect_right(self.out_starts, pos) - 1
        if k < 0:
            return pos, False
        _, out_end, e = self.items[k]
        if pos < out_end:
            return e.start, True
        return e.end + (pos - out_end), False


_RUN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _edited_identifiers(new: bytes, back: _BackMap) -> set[bytes]:
    """The identifier tokens of `new` that may not be tokens of the input it was edited from:
    those of each edit's text, widened on both sides to the identifier bytes around it (a token
    that meets an edit's text, or a deletion, may be new: `a` + `b` around a deleted `-`). Every
    other token of `new`, with the bytes on both sides of it, is the input's unchanged, so the
    input's tokens and these hold all of `new`'s (`lex.identifiers(new)`); the few tokens that
    an edit removed only make names that no whole-word search finds in `new`."""
    pieces = []
    size = len(new)
    for out_start, out_end, _ in back.items:
        a, b = out_start, out_end
        while a > 0 and new[a - 1] in _RUN_BYTES:
            a -= 1
        while b < size and new[b] in _RUN_BYTES:
            b += 1
        pieces.append(new[a:b])
    return identifiers(b" ".join(pieces))


def leftovers(
    index: MappingIndex,
    src: SourceFile,
    new: bytes,
    edits: Iterable[Edit],
    findings: Iterable[Finding],
    declared: Iterable[str] = (),
    shims: Iterable[str] = (),
    pp=None,
    version: tuple[int, ...] = (7, 2),
    idents: set[bytes] | None = None,
    input_idents: set[bytes] | None = None,
    input_names: set[bytes] | None = None,
    input_hits: list[tuple[int, bytes]] | None = None,
) -> list[Leftover]:
    """CUDA names and CUDA #include paths in `new` (the port of `src`) that no finding, project
    declaration, vendor switch, member access, comment or string accounts for. `idents`: the
    identifier tokens of `new`, when the caller has them (an unchanged file's are the input's);
    else `input_idents`, those of `src`, when the caller has them (see `_edited_identifiers`).
    With `input_idents` (or with `idents` of an unchanged file), `input_names`: the names among
    them `names_of` keeps, when the caller has them; with those, `input_hits`: (offset, name)
    of each of their tokens in `src`, in order (the rewriter's), read when `new` is `src`'s
    bytes."""
    edits = list(edits)
    back = _BackMap(edits)
    wanted = names_of(index)
    if idents is not None:
        names = wanted(idents) if input_names is None else input_names
    elif input_idents is None:
        names = wanted(identifiers(new))
    else:
        edited = _edited_identifiers(new, back)
        if input_names is None:
            names = wanted(input_idents | edited)
        else:  # the names of a union: those of each part (one identifier at a time)
            names = input_names | wanted(edited)
    identity = _mapped_to_itself(index)
    by_name = index.by_name
    includes = include_lines(new)
    if not names and not includes:
        return []
    skip = set(declared) | set(shims)
    reported: dict[int, set[str]] = {}
    at: set[tuple[int, int]] = set()
    spans: dict[int, list[tuple[int, int, int]]] = {}  # line -> (col, end line, end col)
    for f in findings:
        at.add((f.line, f.col))
        if f.name:
            reported.setdefault(f.line, set()).add(f.name)
        if f.end_line >= f.line:
            spans.setdefault(f.line, []).append((f.col, f.end_line, f.end_col))
    lexed_quiet: list[list[tuple[int, int]]] = []  # lexed on first need: most files need none

    def quiet_spans(i: int) -> list[tuple[int, int]]:
        """0: comments and strings of `new`; 1: those and its directive lines, sorted."""
        if not lexed_quiet:
            lexed = code_spans_to_skip(new)
            lexed_quiet.extend((lexed, sorted(lexed + _directive_spans(new))))
        return lexed_quiet[i]

    out: list[Leftover] = []

    def accounted(name: str, pos: int, written: bool) -> bool:
        if written:
            return False
        if pp is not None and on_nvidia_side(pp, pos):
            return True
        line, col = src.position(pos)
        if (line, col) in at or name in reported.get(line, ()):
            return True
        # a finding whose span holds the name (PT304 on a whole `#if CUDART_VERSION ...` line)
        return any(
            c <= col and (end_line > line or col + len(name) <= end_col)
            for c, end_line, end_col in spans.get(line, ())
        )

    checked: dict[bytes, tuple[str, bool]] = {}  # name -> (text, namespace row)
    for raw in names:
        name = raw.decode("ascii", "replace")
        if name in skip:
            continue
        rows = by_name.get(name)
        if rows is not None and name in identity:
            row = MappingIndex.pick(rows, version)
            if row is not None and row.since <= version and name in (row.hip, row.roc):
                continue
        checked[raw] = (name, rows is not None and all(r.kind == "namespace" for r in rows))
    # each checked name's occurrences as a whole token (a scan of every token that starts like
    # one of them, `__` or `cu`, went through most of a header's tokens one at a time; an
    # unchanged file's are the rewriter's), then in document order, as one pass over the
    # tokens finds them
    if input_hits is not None and input_names is not None and new == src.data:
        hits = [(pos, raw) for pos, raw in input_hits if raw in checked]
    else:
        hits = [(pos, raw) for raw in checked for pos in find_word(new, raw)]
        hits.sort(key=_first)
    found: list[Leftover] = []
    for pos, raw in hits:
        name, namespace = checked[raw]
        # the tests are independent: the comments and strings, which need the output
        # lexed, are looked at last (most names are reported where they stand)
        if _MEMBER.search(new, max(0, pos - 8), pos):
            continue
        if namespace and not re.match(rb"\s*::", new[pos + len(raw) : pos + len(raw) + 8]):
            continue
        ipos, written = back.back(pos)
        if accounted(name, ipos, written) or in_spans(quiet_spans(1), pos):
            continue
        found.append(Leftover(name, ipos, written))
    out.extend(found)
    for m in includes:
        path = _cuda_include(index, m.group(1))
        if path is None:
            continue
        ipos, written = back.back(m.start(1))
        if accounted(path, ipos, written) or in_spans(quiet_spans(0), m.start(1)):
            continue
        out.append(Leftover(path, ipos, written))
    out.sort(key=lambda x: x.pos)
    return out


@lru_cache(maxsize=4)
def names_of(index: MappingIndex) -> NameFilter:
    """The names the check looks for among a file's identifiers (`lex.NameFilter`): the table
    names of `index.relevant` and the CUDA-looking ones, as the rewriter's candidates. A table
    name outside `relevant` maps to itself in every row from ROCm (0,) on: never a leftover."""
    return NameFilter(index.relevant)


def _first(hit: tuple[int, bytes]) -> int:
    return hit[0]


@lru_cache(maxsize=4096)
def _cuda_include(index: MappingIndex, quoted: bytes) -> str | None:
    """The path of an `#include` (`quoted`: with its delimiters) when it names a CUDA header
    that must not be left (a CUDA_HEADER path or one the tables map, not under hip/, not a
    header of the same name on both sides), else None. Kept per path: most files of a tree
    include the same headers."""
    path = quoted[1:-1].decode("utf-8", "replace").strip()
    if path.startswith("hip/"):
        return None
    header = index.lookup_header(path, None)
    if not (CUDA_HEADER.match(path) or header is not None):
        return None
    if header is not None and header[1] == path:
        return None  # a header of the same name on both sides
    return path


def leftover_findings(items: list[Leftover], src: SourceFile) -> list[Finding]:
    """PT001 findings for leftovers: the name stays, and the summary counts it."""
    found = []
    for x in items:
        line, col = src.position(x.pos)
        if x.written:
            msg = (
                f"porter wrote `{x.name}` while porting this line ({MARK}: a mapping-table "
                f"fault); check the replacement by hand"
            )
        else:
            msg = (
                f"`{x.name}` was left unchanged without a decision ({MARK} caught it): "
                f"port it by hand, and please report it"
            )
        f = Finding("PT001", Severity.WARNING, msg, src.path, line, col, name=x.name)
        f.extra["invariant"] = True
        found.append(f)
    return found


def unaccounted(
    index: MappingIndex,
    src: SourceFile,
    new: bytes,
    edits: Iterable[Edit],
    findings: Iterable[Finding],
    rw,
    opts,
) -> list[Finding]:
    """The engine's completeness check of one ported file: PT001 findings for whatever
    `leftovers` finds (counted as unconverted in the file's stats), filtered by --select."""
    same = new is src.data or new == src.data
    items = leftovers(
        index,
        src,
        new,
        edits,
        findings,
        rw.declared,
        opts.port.shims,
        rw.pp,
        opts.port.rocm_version,
        idents=rw.idents if same and rw.idents else None,
        input_idents=rw.idents or None,
        input_names=rw.names if rw.idents else None,
        input_hits=rw.name_hits if same and rw.idents else None,
    )
    found = leftover_findings(items, src)
    if opts.rule_codes is not None:
        found = [f for f in found if f.code in opts.rule_codes]
    rw.stats.unconverted += len(found)
    return found
