"""Python files through the pipeline: Triton rules, and CUDA C++ carried in string literals.

`process(rel, data)` is the "python" branch of `porter.engine`: a cheap byte test, PEP 263
decoding and an `ast` parse (`porter.parse.python`), the shared facts
(`porter.analysis.python`), the Triton rules, then the CUDA C++ in `cupy.RawKernel` /
`RawModule` / `ElementwiseKernel` / `ReductionKernel` and
`torch.utils.cpp_extension.load_inline(cuda_sources=...)` literals, which goes through the CUDA
C++ rewriter and rules (`engine.process_data`); findings map back to the `.py` line and column
and edits go back into the literal, escaped for its quoting.

Reading is `ast` (fast, no import cost); writing is libcst. Rules and the string rewriter say
what changes as `Edit`s on the file's UTF-8 text (so fixes can be reported, selected, suppressed
and checked for overlap without libcst); `write()` then applies the chosen ones with a libcst
transformer (`_EditTransformer`) that replaces the nodes they name: a dotted name or a call
replaced whole, the `.cuda` step of an attribute chain dropped, the body of a string literal
respliced, a statement inserted after a top-level statement. libcst re-prints everything else
byte for byte, and an edit that names no node is an internal error (nothing is written).
libcst is imported only when there is something to write (and, for its literal parts, when a
file carries CUDA C++ in a string). The result is re-parsed before it is kept.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from ..analysis.python import CarrierSource, PyFacts
from ..findings import Edit, Finding, Severity
from ..parse.python import PySource, PySyntaxError, maybe_relevant, parse
from ..results import FileResult
from ..source import SourceFile
from ..state import STATE
from ..suppress import override, suppress

NOT_RELEVANT = "no triton, cupy, torch.utils.cpp_extension or numba.cuda import: copied unchanged"

# the carriers and which of their arguments hold CUDA C++: porter.analysis.python.CARRIERS
_BODY_OPEN = b"__device__ void __porter_elementwise_body() {\n"
_BODY_CLOSE = b"\n}\n"


def process(rel: str, data: bytes, process_cuda: Callable[..., FileResult]):
    """Check (and with `port`, rewrite) one Python file. Returns a FileResult. `process_cuda`
    (engine.process_data) checks and ports the CUDA C++ its strings hold."""
    res = FileResult(rel, "python", old_data=data, new_data=data)
    if not maybe_relevant(data):
        res.status = "copied"
        res.note = NOT_RELEVANT
        return res
    try:
        src = parse(data)
    except PySyntaxError as exc:
        res.status = "copied"
        res.note = f"line {exc.line}: not valid Python 3 ({exc.message}); copied unchanged"
        codes = STATE["options"].rule_codes
        if codes is None or "PT681" in codes:
            res.findings = [
                Finding(
                    "PT681",
                    Severity.WARNING,
                    f"cannot parse as Python 3 ({exc.message}); copied unchanged",
                    rel,
                    exc.line,
                    exc.col,
                )
            ]
        return res
    from ..rules.base import RuleContext

    sf = SourceFile(rel, src.buf)
    ctx = RuleContext(sf, None, STATE["options"].rules, STATE["index"], py_source=src)
    if not ctx.py_facts.relevant():
        res.status = "copied"
        res.note = NOT_RELEVANT
        return res
    return _process_facts(src, ctx, res, process_cuda)


def _process_facts(
    src: PySource, ctx, res: FileResult, process_cuda: Callable[..., FileResult]
) -> FileResult:
    from ..findings import Applicability
    from ..rewrite.edits import EditSet

    opts = STATE["options"]
    res.uses_cuda = True
    sf = ctx.src
    facts = ctx.py_facts
    emb = Embedded(facts, sf, process_cuda)
    emb.run(res)
    findings: list[Finding] = list(emb.findings)
    rules = STATE["py_triggers"].rules_for(src.buf)
    for rule in rules:
        try:
            findings.extend(rule.check(ctx))
        except Exception as exc:  # noqa: BLE001 - a rule bug must not stop the port
            res.errors.append(
                f"internal error in rule {rule.code} "
                f"({type(exc).__name__}: {exc}); its findings are missing"
            )
    # the NVIDIA side of a vendor switch is NVIDIA code: no finding there
    kept = []
    for f in findings:
        off = sf.line_starts[f.line - 1] + len(sf.line_text(f.line)[: f.col - 1].encode("utf-8"))
        if facts.vendor_at(off) != "nvidia":
            kept.append(f)
    findings = kept
    if opts.rule_codes is not None:
        chosen = set(opts.rule_codes)
        findings = [f for f in findings if f.code in chosen]
    findings = suppress(sf, findings, opts.rule_codes)
    override(findings, STATE["severity"])
    edits = EditSet()
    if opts.rewrite:
        for group in emb.edit_groups:
            edits.add_group(group)
    if opts.apply_fixes:
        for f in findings:
            fx = f.fix
            if fx is None:
                continue
            if fx.applicability is Applicability.SAFE or (
                fx.applicability is Applicability.UNSAFE and opts.unsafe_fixes
            ):
                if edits.add_group(fx.edits):
                    f.extra["fixed"] = True
                    res.fixes_applied += 1
    new_buf = src.buf
    if len(edits):
        try:
            new_buf = write(src, edits.edits)
        except CstWriteError as exc:
            res.errors.append(f"internal error: {exc}; left unchanged")
            for f in findings:
                f.extra.pop("fixed", None)
    if new_buf != src.buf:
        try:
            ast.parse(new_buf.decode("utf-8"))  # str: a coding cookie must not re-decode it
        except SyntaxError as exc:  # never write a file Python cannot read
            res.errors.append(
                f"internal error: the rewritten file does not parse "
                f"(line {exc.lineno}: {exc.msg}); left unchanged"
            )
            new_buf = src.buf
            for f in findings:
                f.extra.pop("fixed", None)
    findings.sort(key=Finding.sort_key)
    res.findings = findings
    res.new_data = src.encode(new_buf)
    res.status = "ported" if res.new_data != res.old_data else "unchanged"
    return res


# -- writing: libcst ---------------------------------------------------------------------------
class CstWriteError(Exception):
    """An edit that names no node of the libcst tree."""


def write(src: PySource, edits: list[Edit]) -> bytes:
    """`src.buf` with `edits` (non-overlapping, offsets in the UTF-8 text) applied through a
    libcst transformer; untouched code is re-printed by libcst as it was."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    try:
        module = cst.parse_module(src.buf.decode("utf-8"))
    except cst.ParserSyntaxError as exc:
        raise CstWriteError(
            f"libcst cannot parse the file (line {exc.raw_line}: {exc.message})"
        ) from None
    transformer = _edit_transformer()(src.buf, edits)
    new = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
    if transformer.pending:
        e = transformer.pending[0]
        raise CstWriteError(
            f"a rewrite at byte {e.start} names no node of the file "
            f"({len(transformer.pending)} such)"
        )
    return new.code.encode("utf-8")


_TRANSFORMER: list = []


def _edit_transformer():
    """The transformer class (built once, on first use, so that libcst is imported lazily)."""
    if _TRANSFORMER:
        return _TRANSFORMER[0]
    import libcst as cst
    from libcst.metadata import ByteSpanPositionProvider

    def keep_parens(old, new):
        """`new` in the place of `old`: `old`'s own parentheses stay around it."""
        if not getattr(old, "lpar", None):
            return new
        return new.with_changes(lpar=[*old.lpar, *new.lpar], rpar=[*new.rpar, *old.rpar])

    class EditTransformer(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (ByteSpanPositionProvider,)

        def __init__(self, buf: bytes, edits: list[Edit]):
            super().__init__()
            self.buf = buf
            self.pending = sorted(edits, key=lambda e: (e.start, e.end))

        def _span(self, node) -> tuple[int, int]:
            sp = self.get_metadata(ByteSpanPositionProvider, node)
            return sp.start, sp.start + sp.length

        def _take(self, pred) -> list[Edit]:
            got = [e for e in self.pending if pred(e)]
            if got:
                self.pending = [e for e in self.pending if not pred(e)]
            return got

        # a string literal: edits inside its body (between the quotes) re-splice the body
        def leave_SimpleString(self, original, updated):
            s, e = self._span(original)
            head = len((updated.prefix + updated.quote).encode("utf-8"))
            lo, hi = s + head, e - len(updated.quote.encode("utf-8"))
            mine = self._take(lambda ed: lo <= ed.start <= ed.end <= hi)
            if not mine:
                return updated
            value = updated.value.encode("utf-8")
            for ed in sorted(mine, key=lambda x: x.start, reverse=True):
                value = value[: ed.start - s] + ed.text + value[ed.end - s :]
            return updated.with_changes(value=value.decode("utf-8"))

        # `X.cuda.libdevice` -> `X.libdevice`: the edit deletes `.cuda` (end of X to end of it)
        def leave_Attribute(self, original, updated):
            inner = original.value
            if isinstance(inner, cst.Attribute):
                cut = (self._span(inner.value)[1], self._span(inner)[1])
                if self._take(lambda ed: (ed.start, ed.end) == cut and not ed.text):
                    return updated.with_changes(
                        value=keep_parens(updated.value, updated.value.value)
                    )
            return updated

        # a dotted name or a call replaced whole (an import's module, a fix's expression)
        def on_leave(self, original, updated):
            updated = super().on_leave(original, updated)
            if isinstance(original, (cst.Name, cst.Attribute, cst.Call)) and isinstance(
                updated, cst.BaseExpression
            ):
                span = self._span(original)
                whole = self._take(lambda ed: (ed.start, ed.end) == span and ed.text)
                if whole:
                    return keep_parens(updated, self._expression(original, updated, whole[0]))
            return updated

        def _expression(self, original, updated, ed: Edit):
            """The new expression. When it contains the old one's text (a fix that wraps the
            original call), the old node itself goes in, so its layout and comments stay as
            libcst read them in place (a multi-line call keeps its indentation)."""
            text = ed.text.decode("utf-8")
            s, e = self._span(original)
            old = self.buf[s:e].decode("utf-8")
            if old and old in text and old != text:
                mark = "__porter_original_expression__"
                while mark in text:
                    mark += "_"
                new = cst.parse_expression(text.replace(old, mark, 1))
                inner = (
                    updated.with_changes(lpar=[], rpar=[])
                    if getattr(updated, "lpar", None)
                    else updated
                )
                return new.visit(_Put(mark, inner))
            return cst.parse_expression(text)

        # statements inserted at the start of the line after a top-level statement
        def leave_Module(self, original, updated):
            body = list(updated.body)
            added = 0
            for ed in self._take(
                lambda x: (
                    x.start == x.end
                    and x.text.endswith(b"\n")
                    and (
                        x.start == len(self.buf)
                        or x.start > 0
                        and self.buf[x.start - 1 : x.start] == b"\n"
                    )
                )
            ):
                before = [i for i, st in enumerate(original.body) if self._span(st)[1] <= ed.start]
                nxt = before[-1] + 1 if before else 0
                if nxt < len(original.body) and self._span(original.body[nxt])[0] < ed.start:
                    self.pending.append(ed)  # inside a statement: not a line of its own
                    continue
                new = list(cst.parse_module(ed.text.decode("utf-8")).body)
                body[nxt + added : nxt + added] = new  # in order: edits come sorted
                added += len(new)
            return updated.with_changes(body=body)

    class _Put(cst.CSTTransformer):
        """Replaces the name `mark` by `node`."""

        def __init__(self, mark: str, node):
            super().__init__()
            self.mark = mark
            self.node = node

        def leave_Name(self, original, updated):
            return self.node if updated.value == self.mark else updated

    _TRANSFORMER.append(EditTransformer)
    return EditTransformer


# -- CUDA C++ in string literals --------------------------------------------------------------
@dataclass
class _Part:
    start: int  # byte offset in the .py buffer of the literal's first content char
    raw: str  # the literal's source text between the quotes
    prefix: str
    quote: str


@dataclass
class _Content:
    data: bytearray = field(default_factory=bytearray)
    starts: list[int] = field(default_factory=list)  # per content byte: .py offset or -1
    ends: list[int] = field(default_factory=list)
    parts: list[int] = field(default_factory=list)  # per content byte: part index or -1
    literals: list[_Part] = field(default_factory=list)

    def synthetic(self, text: bytes) -> None:
        self.data += text
        self.starts += [-1] * len(text)
        self.ends += [-1] * len(text)
        self.parts += [-1] * len(text)

    def add(self, part: _Part) -> None:
        idx = len(self.literals)
        self.literals.append(part)
        raw = part.raw
        raw_b = [len(raw[:i].encode("utf-8")) for i in range(len(raw) + 1)]
        if "r" in part.prefix:
            value, offs = raw, list(range(len(raw) + 1))
        else:
            value, offs = _unescape(raw)
        for i, ch in enumerate(value):
            b = ch.encode("utf-8", "surrogatepass")
            s = part.start + raw_b[offs[i]]
            e = part.start + raw_b[offs[i + 1]]
            self.data += b
            self.starts += [s] * len(b)
            self.ends += [e] * len(b)
            self.parts += [idx] * len(b)


_SIMPLE_ESCAPES = {
    "\n": "",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def _unescape(raw: str) -> tuple[str, list[int]]:
    """The value of a non-raw str literal body and, per value char, its index in `raw` (plus the
    end). Python's escape rules (language reference, "String and Bytes literals")."""
    out: list[str] = []
    offs: list[int] = []
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            offs.append(i)
            i += 1
            continue
        nxt = raw[i + 1]
        if nxt in _SIMPLE_ESCAPES:
            val = _SIMPLE_ESCAPES[nxt]
            j = i + 2
        elif nxt in "01234567":
            j = i + 1
            while j < n and j < i + 4 and raw[j] in "01234567":
                j += 1
            val = chr(int(raw[i + 1 : j], 8))
        elif nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            j = i + 2 + width
            try:
                val = chr(int(raw[i + 2 : j], 16))
            except ValueError:
                val, j = "\\" + nxt, i + 2
        elif nxt == "N" and i + 2 < n and raw[i + 2] == "{":
            import unicodedata

            close = raw.find("}", i + 3)
            try:
                val = unicodedata.lookup(raw[i + 3 : close]) if close > 0 else "\\N"
                j = close + 1 if close > 0 else i + 2
            except KeyError:
                val, j = "\\N", i + 2
        else:  # unknown escape: kept as written
            val, j = "\\" + nxt, i + 2
        for ch in val:
            out.append(ch)
            offs.append(i)
        i = j
    offs.append(n)
    return "".join(out), offs


def _escape_for(part: _Part, text: str) -> str | None:
    """`text` written inside `part`'s quotes, or None when it cannot be (a raw literal)."""
    triple = len(part.quote) == 3
    if "r" in part.prefix:
        if part.quote[0] in text or "\\" in text or (not triple and "\n" in text):
            return None
        return text
    text = text.replace("\\", "\\\\").replace(part.quote[0], "\\" + part.quote[0])
    if not triple:
        text = text.replace("\n", "\\n")
    return text


class Embedded:
    """Finds the CUDA C++ carriers of one file and runs the C++ pipeline on their literals."""

    def __init__(self, facts: PyFacts, sf: SourceFile, process_cuda: Callable[..., FileResult]):
        self.facts = facts
        self.sf = sf
        self.process_cuda = process_cuda
        self.findings: list[Finding] = []
        self.edit_groups: list[list[Edit]] = []

    def run(self, res) -> None:
        for source in self.facts.embedded.sources:
            self._check(res, source)

    def _parts(self, leaf: ast.Constant) -> list[_Part] | None:
        """The literal parts of one (maybe implicitly concatenated) string constant."""
        import libcst as cst
        from libcst.metadata import MetadataWrapper, PositionProvider

        s, e = self.facts.span(leaf)
        text = self.facts.src.buf[s:e].decode("utf-8")
        try:
            wrapper = MetadataWrapper(cst.parse_module("(" + text + ")\n"))
        except cst.ParserSyntaxError:
            return None
        lines = ("(" + text + ")\n").split("\n")
        line_off = [0]
        for ln in lines:
            line_off.append(line_off[-1] + len(ln) + 1)
        parts: list[_Part] = []
        bad = []

        class V(cst.CSTVisitor):
            METADATA_DEPENDENCIES = (PositionProvider,)

            def visit_SimpleString(self, node: cst.SimpleString) -> None:
                pos = self.get_metadata(PositionProvider, node).start
                char = line_off[pos.line - 1] + pos.column - 1 + len(node.prefix) + len(node.quote)
                start = s + len(text[:char].encode("utf-8"))
                parts.append(_Part(start, node.raw_value, node.prefix.lower(), node.quote))

            def visit_FormattedString(self, node: cst.FormattedString) -> None:
                bad.append(node)

        wrapper.visit(V())
        if bad or any("b" in p.prefix for p in parts):
            return None
        return parts

    def _check(self, res, source: CarrierSource) -> None:
        kind, call, q = source.kind, source.call, source.carrier
        content = _Content()
        if kind == "body":
            content.synthetic(_BODY_OPEN)
        for leaf in source.leaves:
            parts = self._parts(leaf)
            if parts is None:  # libcst cannot split it into literals: PT680 reports it
                self.facts.embedded.mark_dynamic(call, "not a plain str literal")
                return
            for p in parts:
                content.add(p)
        if kind == "body":
            content.synthetic(_BODY_CLOSE)
        data = bytes(content.data)
        if not data.strip():
            return
        r = self.process_cuda(self.sf.path, data, rewriter=_embedded_rewriter())
        res.stats.add(r.stats)
        res.errors.extend(r.errors)
        csf = SourceFile(self.sf.path, data)
        carrier = q.rsplit(".", 1)[-1]
        for f in r.findings:
            if f.code in ("PT003", "PT005"):
                continue  # grammar gaps of a snippet; suppressions are the .py file's
            start = _content_offset(csf, f.line, f.col)
            end = _content_offset(csf, f.end_line, f.end_col) if f.end_line else start
            so = content.starts[start] if start < len(data) else -1
            if so < 0:
                so = self.facts.span(call)[0]
                eo = so
            else:
                last = max(start, min(end, len(data)) - 1)
                eo = content.ends[last] if content.ends[last] >= 0 else so
            line, col = self.sf.position(so)
            eline, ecol = self.sf.position(eo)
            self.findings.append(
                Finding(
                    f.code,
                    f.severity,
                    f"{f.message} (CUDA C++ in {carrier} source)",
                    self.sf.path,
                    line,
                    col,
                    eline,
                    ecol,
                    targets=f.targets,
                    name=f.name,
                    extra=dict(f.extra),
                )
            )
        group = []
        for ed in r.edits:
            mapped = _map_edit(content, ed)
            if mapped is None:
                res.errors.append(
                    f"{self.sf.path}: a CUDA rewrite inside a {carrier} literal "
                    "cannot be written back into the string (escape or "
                    "part boundary); left unchanged"
                )
                return
            group.append(mapped)
        if group:
            self.edit_groups.append(group)


def _content_offset(csf: SourceFile, line: int, col: int) -> int:
    starts = csf.line_starts
    if line < 1 or line > len(starts):
        return len(csf.data)
    return starts[line - 1] + len(csf.line_text(line)[: max(0, col - 1)].encode("utf-8"))


def _map_edit(content: _Content, ed: Edit) -> Edit | None:
    n = len(content.data)
    if ed.start == ed.end:
        if ed.start < n and content.starts[ed.start] >= 0:
            part = content.literals[content.parts[ed.start]]
            pos = content.starts[ed.start]
        elif ed.start > 0 and content.ends[ed.start - 1] >= 0:
            part = content.literals[content.parts[ed.start - 1]]
            pos = content.ends[ed.start - 1]
        else:
            return None
        text = _escape_for(part, ed.text.decode("utf-8"))
        return None if text is None else Edit(pos, pos, text.encode("utf-8"))
    idx = {content.parts[i] for i in range(ed.start, min(ed.end, n))}
    if len(idx) != 1 or -1 in idx:
        return None
    part = content.literals[idx.pop()]
    text = _escape_for(part, ed.text.decode("utf-8"))
    if text is None:
        return None
    return Edit(content.starts[ed.start], content.ends[ed.end - 1], text.encode("utf-8"))


_REWRITER: dict = {}


def _embedded_rewriter():
    """The CUDA rewriter for string contents: no `#include <hip/hip_runtime.h>` added (hipRTC
    and cupy's ROCm build provide the runtime; torch hipifies load_inline sources itself)."""
    from dataclasses import replace

    from .cuda import CudaRewriter

    key = id(STATE["options"])
    if key not in _REWRITER:
        _REWRITER.clear()
        port = replace(STATE["options"].port, add_runtime_include=False)
        _REWRITER[key] = CudaRewriter(STATE["index"], port)
    return _REWRITER[key]
