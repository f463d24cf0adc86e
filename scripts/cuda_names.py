"""Extract declared names from C/C++ headers (CUDA toolkit, HIP, library headers).

A light tokenizer, not a compiler: comments and preprocessor lines are removed, then the token
stream is walked with a brace stack. Namespaces and ``extern "C"`` blocks are transparent;
function, class and initializer bodies are skipped. Both branches of ``#if`` are read, so the
result is a superset of what one configuration declares, which is what a porting table needs.

Used by ``scripts/api_sources.py`` (the mapping checker's inputs) and the table tests::

    from cuda_names import scan_headers, identifiers
    decl = scan_headers([Path("/usr/local/cuda/include/cuda_runtime_api.h")])
    decl.functions["cudaMalloc"]   # -> {2}  (the parameter counts seen)
    decl.kind_of("cudaStream_t")   # -> "type"
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

_COMMENT_OR_STRING = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S
)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_TOKEN = re.compile(r'[A-Za-z_]\w*|\d[\w.]*|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|::|->|\S')
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\()?[ \t]*(.*)$", re.M)

KEYWORDS = frozenset(
    """
    if else for while do switch case return sizeof alignof decltype typeid static_assert
    alignas noexcept throw new delete operator template typename typedef using namespace
    struct union enum class public private protected friend virtual const volatile static
    extern inline constexpr explicit mutable register auto void bool char short int long
    float double signed unsigned default goto break continue this nullptr true false
    __attribute__ __declspec __asm__ asm __asm __volatile__ __restrict__ __restrict
    __inline__ __forceinline__ __extension__ __builtin_offsetof _Static_assert
""".split()
)


def strip_comments(text: str) -> str:
    """Remove comments (keeping strings) and join continued lines."""

    def repl(m: re.Match) -> str:
        s = m.group(0)
        if s.startswith("/"):
            return " " if s.startswith("//") else "\n" * s.count("\n") or " "
        return s

    text = text.replace("\\\r\n", " ").replace("\\\n", " ")
    return _COMMENT_OR_STRING.sub(repl, text)


def identifiers(text: str) -> set[str]:
    """Every identifier token of a header's text (comments removed)."""
    return set(
        _IDENT.findall(
            _COMMENT_OR_STRING.sub(
                lambda m: " " if m.group(0).startswith("/") else m.group(0), text
            )
        )
    )


# HIP declares make_<vector type> through token-pasting macros (amd_hip_vector_types.h)
_HIP_MAKE = re.compile(r"\bDECLOP_MAKE_\w+_COMPONENT\(\s*[\w ]+,\s*(\w+)\s*\)")


def pasted_names(text: str) -> set[str]:
    """Names that HIP headers build with ``##`` and so never spell out."""
    return {"make_" + m.group(1) for m in _HIP_MAKE.finditer(text)}


def header_identifiers(paths: Iterable[Path]) -> set[str]:
    out: set[str] = set()
    for p in paths:
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        out |= identifiers(text)
        out |= pasted_names(text)
    return out


def header_files(root: Path, patterns=("*.h", "*.hpp", "*.cuh", "*.inl")) -> list[Path]:
    files: list[Path] = []
    for pat in patterns:
        files.extend(p for p in root.rglob(pat) if p.is_file())
    return sorted(set(files))


@dataclass
class Declarations:
    """Names declared by a set of headers, with the header that declared them first."""

    functions: dict[str, set[int]] = field(default_factory=dict)  # name -> parameter counts
    params: dict[str, list[list[str]]] = field(
        default_factory=dict
    )  # name -> parameter token lists
    types: set[str] = field(default_factory=set)  # typedef, struct, union, class, enum tags
    enums: set[str] = field(default_factory=set)  # enumerators
    macros: set[str] = field(default_factory=set)  # object-like macros
    deprecated: set[str] = field(default_factory=set)  # functions declared with a deprecation mark
    fmacros: set[str] = field(default_factory=set)  # function-like macros
    macro_values: dict[str, str] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)  # name -> file name

    def kind_of(self, name: str) -> str | None:
        if name in self.functions:
            return "function"
        if name in self.types:
            return "type"
        if name in self.enums:
            return "enum"
        if name in self.macros or name in self.fmacros:
            return "macro"
        return None

    def names(self) -> set[str]:
        return set(self.functions) | self.types | self.enums | self.macros | self.fmacros


def _note(decl: Declarations, name: str, fname: str) -> None:
    decl.origin.setdefault(name, fname)


def _matching(tokens: list[str], i: int, open_: str, close: str) -> int:
    """Index of the token closing the group opened at tokens[i]."""
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t == open_:
            depth += 1
        elif t == close:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def _param_count(toks: list[str]) -> int:
    if not toks or toks == ["void"]:
        return 0
    depth = 0
    n = 1
    for t in toks:
        if t in "([{<" and t != "<":
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif t == "," and depth == 0:
            n += 1
    if toks[-1] == "..." or (len(toks) >= 3 and toks[-3:] == [".", ".", "."]):
        pass
    return n


def _declarator_names(toks: list[str]) -> list[str]:
    """Names declared by the declarator list of a typedef (after the type)."""
    out = []
    depth = 0
    piece: list[str] = []
    pieces = []
    for t in toks:
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        if t == "," and depth == 0:
            pieces.append(piece)
            piece = []
        else:
            piece.append(t)
    pieces.append(piece)
    for p in pieces:
        # function pointer: ( * name ) ( ... )  or  ( CALLCONV * name )
        name = None
        if "(" in p:
            k = p.index("(")
            end = _matching(p, k, "(", ")")
            inner = [t for t in p[k + 1 : end] if _IDENT.fullmatch(t)]
            if "*" in p[k + 1 : end] or "&" in p[k + 1 : end]:
                name = inner[-1] if inner else None
            else:  # typedef int name(args): the ident before '('
                before = [t for t in p[:k] if _IDENT.fullmatch(t)]
                name = before[-1] if before else None
        else:
            idents = [t for t in p if _IDENT.fullmatch(t) and t not in KEYWORDS]
            # drop array sizes: the name precedes '['
            if "[" in p:
                k = p.index("[")
                idents = [t for t in p[:k] if _IDENT.fullmatch(t) and t not in KEYWORDS]
            name = idents[-1] if idents else None
        if name:
            out.append(name)
    return out


def scan_text(
    text: str, fname: str, decl: Declarations, attr_macros: set[str] | None = None
) -> None:
    text = strip_comments(text)
    for m in _DEFINE.finditer(text):
        name, paren, value = m.group(1), m.group(2), m.group(3).strip()
        (decl.fmacros if paren else decl.macros).add(name)
        if not paren:
            decl.macro_values.setdefault(name, value)
        _note(decl, name, fname)
    skip = (attr_macros or set()) | decl.fmacros
    # both sides of #if/#else may open braces: read the text as is, then with only the first
    # and only the last branch of every conditional, so that one pass sees balanced braces
    for keep in ("all", "first", "last"):
        body = text if keep == "all" else select_branches(text, keep)
        body = re.sub(r"^[ \t]*#.*$", " ", body, flags=re.M)
        _walk(_TOKEN.findall(body), fname, decl, skip)


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")


def select_branches(text: str, keep: str) -> str:
    """Blank out all but one branch of each #if chain (keep='first' or 'last')."""
    out = []
    stack: list[list] = []  # per open #if: [branch index, active?]
    for line in text.split("\n"):
        m = _DIRECTIVE.match(line)
        if m:
            d = m.group(1)
            if d.startswith("if"):
                stack.append([0, True])
            elif d in ("elif", "else") and stack:
                stack[-1][0] += 1
            elif d == "endif" and stack:
                stack.pop()
            out.append("")
            continue
        visible = True
        for idx, _ in stack:
            if keep == "first" and idx != 0:
                visible = False
                break
        if keep == "last":
            visible = True
        out.append(line if visible else "")
    if keep == "last":
        return _keep_last(text)
    return "\n".join(out)


def _keep_last(text: str) -> str:
    """Keep the last branch of each #if chain (the #else side where there is one)."""
    lines = text.split("\n")
    # find chains: for each #if, the line index of its last #elif/#else
    stack: list[list[int]] = []
    last_branch_start: dict[int, int] = {}
    chains: list[tuple[int, int, int]] = []
    for i, line in enumerate(lines):
        m = _DIRECTIVE.match(line)
        if not m:
            continue
        d = m.group(1)
        if d.startswith("if"):
            stack.append([i, i])
        elif d in ("elif", "else") and stack:
            stack[-1][1] = i
        elif d == "endif" and stack:
            start, last = stack.pop()
            chains.append((start, last, i))
    hidden = [False] * len(lines)
    for start, last, end in chains:
        for k in range(start, last):
            hidden[k] = True
    return "\n".join("" if h or _DIRECTIVE.match(l) else l for h, l in zip(hidden, lines))


def _walk(toks: list[str], fname: str, decl: Declarations, fmacros: set[str]) -> None:
    i = 0
    n = len(toks)
    stmt_start = 0
    while i < n:
        t = toks[i]
        if t == "{":
            # what opens this brace?
            j = i - 1
            back = toks[max(0, i - 6) : i]
            if (
                (
                    len(back) >= 1
                    and back[-1].startswith('"')
                    and len(back) >= 2
                    and back[-2] == "extern"
                )
                or (back and back[-1] == "namespace")
                or (len(back) >= 2 and back[-2] == "namespace")
                or _is_qualified_namespace(toks, i)
            ):
                i += 1
                stmt_start = i
                continue
            # struct/enum head?
            head = toks[stmt_start:i]
            end = _matching(toks, i, "{", "}")
            _record_head(head, toks[i + 1 : end], fname, decl)
            i = end + 1
            # typedef struct {...} Name;
            if head and head[0] == "typedef" or "typedef" in head[:3]:
                k = i
                while k < n and toks[k] != ";":
                    if toks[k] == "{":
                        k = _matching(toks, k, "{", "}")
                    k += 1
                for nm in _declarator_names([x for x in toks[i:k] if x not in fmacros]):
                    decl.types.add(nm)
                    _note(decl, nm, fname)
                i = k + 1
                stmt_start = i
            elif (
                j >= 0
                and toks[j] == ")"
                or not head
                or head[0] not in ("struct", "class", "union", "enum")
            ):
                stmt_start = i  # function body or initializer: the statement is over
            continue
        if t == "}":
            i += 1
            stmt_start = i
            continue
        if t == ";":
            stmt = toks[stmt_start:i]
            if stmt and stmt[0] == "typedef" and "{" not in stmt:
                for k in range(1, len(stmt) - 2):  # typedef struct tag *name;
                    if stmt[k] in ("struct", "union", "class", "enum") and _IDENT.fullmatch(
                        stmt[k + 1]
                    ):
                        decl.types.add(stmt[k + 1])
                        _note(decl, stmt[k + 1], fname)
                rest = [x for x in stmt[1:] if x not in fmacros]
                for nm in _declarator_names(rest):
                    decl.types.add(nm)
                    _note(decl, nm, fname)
            elif len(stmt) >= 3 and stmt[0] == "using" and stmt[2] == "=":
                decl.types.add(stmt[1])
                _note(decl, stmt[1], fname)
            elif len(stmt) == 2 and stmt[0] in ("struct", "class", "union"):
                decl.types.add(stmt[1])  # forward declaration
                _note(decl, stmt[1], fname)
            i += 1
            stmt_start = i
            continue
        if t == "(" and i > 0:
            name = toks[i - 1]
            prev = toks[i - 2] if i >= 2 else ""
            end = _matching(toks, i, "(", ")")
            if (
                _IDENT.fullmatch(name)
                and name not in KEYWORDS
                and name not in fmacros
                and not name.startswith("__attribute")
                and prev not in ("::", ".", "->", "=", "operator")
                and (
                    prev in ("*", "&", ">")
                    or (_IDENT.fullmatch(prev) and prev not in ("return", "typedef", "new"))
                )
                and "typedef" not in toks[stmt_start:i]
                and not _assigns(toks, stmt_start, i)
            ):
                decl.functions.setdefault(name, set()).add(_param_count(toks[i + 1 : end]))
                decl.params.setdefault(name, []).append(toks[i + 1 : end])
                if any("DEPRECATED" in x or x == "deprecated" for x in toks[stmt_start:i]):
                    decl.deprecated.add(name)
                _note(decl, name, fname)
            i = end + 1
            continue
        i += 1


def _assigns(toks: list[str], start: int, end: int) -> bool:
    """True when the statement so far has an '=' outside parentheses (an initializer)."""
    depth = 0
    for t in toks[start:end]:
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        elif t == "=" and depth == 0:
            return True
    return False


def _is_qualified_namespace(toks: list[str], i: int) -> bool:
    j = i - 1
    while j >= 1 and (_IDENT.fullmatch(toks[j]) or toks[j] == "::"):
        j -= 1
        if toks[j] == "namespace":
            return True
    return False


def _record_head(head: list[str], body: list[str], fname: str, decl: Declarations) -> None:
    for k, t in enumerate(head):
        if t in ("struct", "class", "union", "enum"):
            rest = head[k + 1 :]
            # enum class / enum struct
            if t == "enum" and rest and rest[0] in ("class", "struct"):
                rest = rest[1:]
            # name = last identifier before ':' (base/underlying type) at paren depth 0
            depth = 0
            name = None
            for x in rest:
                if x == "(":
                    depth += 1
                elif x == ")":
                    depth -= 1
                elif x == ":" and depth == 0:
                    break
                elif depth == 0 and _IDENT.fullmatch(x) and x not in KEYWORDS and x != "final":
                    name = x
            if (
                name
                and not (name.startswith("__") and name.endswith("__"))
                or (name and t == "enum")
            ):
                decl.types.add(name)
                _note(decl, name, fname)
            if t == "enum":
                for v in _enum_values(body):
                    decl.enums.add(v)
                    _note(decl, v, fname)
            return


def _enum_values(body: list[str]) -> list[str]:
    out = []
    depth = 0
    first = True
    for t in body:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif t == "," and depth == 0:
            first = True
            continue
        if first and depth == 0 and _IDENT.fullmatch(t):
            out.append(t)
            first = False
    return out


_INTERNAL_IF = re.compile(
    r"^[ \t]*#[ \t]*if[ \t]+defined\(?[ \t]*__CUDA_API_VERSION_INTERNAL\b[^|\n]*$"
)


def drop_internal_blocks(text: str) -> str:
    """Blank the ``#if defined(__CUDA_API_VERSION_INTERNAL)`` blocks of CUDA headers.

    cuda.h and cuda_runtime_api.h re-declare there the superseded forms of renamed functions
    (``cuMemPrefetchAsync(ptr, n, CUdevice, stream)`` next to the CUDA 13 form taking a
    CUmemLocation) for the driver's own build; user code only sees the current form."""
    lines = text.split("\n")
    out, depth = [], 0
    for line in lines:
        if depth == 0 and _INTERNAL_IF.match(line):
            depth = 1
            out.append("")
            continue
        if depth:
            m = _DIRECTIVE.match(line)
            if m:
                d = m.group(1)
                if d.startswith("if"):
                    depth += 1
                elif d == "endif":
                    depth -= 1
                elif d in ("else", "elif") and depth == 1:
                    depth = 0  # the #else side is what users compile
            out.append("")
            continue
        out.append(line)
    return "\n".join(out)


def scan_headers(
    paths: Iterable[Path], attr_macros: set[str] | None = None, drop_internal: bool = False
) -> Declarations:
    """Declarations of several headers; function-like macros of all of them are known first.

    drop_internal: ignore CUDA's ``__CUDA_API_VERSION_INTERNAL`` blocks (superseded signatures)."""
    paths = list(paths)
    texts = []
    pre = Declarations()
    for p in paths:
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if drop_internal:
            text = drop_internal_blocks(text)
        texts.append((p, text))
        for m in _DEFINE.finditer(strip_comments(text)):
            if m.group(2):
                pre.fmacros.add(m.group(1))
    decl = Declarations()
    decl.fmacros |= pre.fmacros
    for p, text in texts:
        scan_text(text, p.name, decl, attr_macros)
        for name in pasted_names(strip_comments(text)):
            decl.functions.setdefault(name, set())
            _note(decl, name, p.name)
    return decl


# -- numeric values of enumerators and macros, typedef aliases -----------------------------------

_ENUM_BLOCK = re.compile(
    r"\benum\s+(?:(?:class|__\w+|CUDA_CB)\s+)*([A-Za-z_]\w*)?\s*(?::\s*[\w\s]+?)?\{([^{}]*)\}\s*([A-Za-z_]\w*)?"
)
_CAST = re.compile(
    r"\(\s*(?:unsigned\s+|signed\s+)?(?:int|long|long\s+long|short|char|[A-Za-z_]\w*_t|CU\w+|hip\w+|cuda\w+)\s*\*?\s*\)"
)
_NAME_IN_EXPR = re.compile(r"(?<!\w)[A-Za-z_]\w*")
_INT_SUFFIX = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b")


def eval_int(expr: str, known: dict[str, int]) -> int | None:
    """The integer value of a C constant expression made of literals, casts, names in ``known``,
    ``| & << >> + - ~`` and parentheses; None when it is anything else (pointers, floats, calls)."""
    e = expr.strip()
    if not e or "*" in e.replace("**", "") and re.search(r"\*\s*\)", e):
        return None
    e = _CAST.sub(" ", e)
    e = _INT_SUFFIX.sub(r"\1", e)
    for name in sorted(set(_NAME_IN_EXPR.findall(e)), key=len, reverse=True):
        if name not in known:
            return None
        e = re.sub(rf"\b{name}\b", f"({known[name]})", e)
    if not re.fullmatch(r"[\s0-9a-fA-FxX()|&<>+\-~^]*", e):
        return None
    try:
        v = eval(e, {"__builtins__": {}}, {})  # noqa: S307 - digits and operators only (checked above)
    except Exception:
        return None
    return v if isinstance(v, int) else None


@dataclass
class Values:
    """Enumerator and object-like macro values of a set of headers."""

    value: dict[str, int] = field(default_factory=dict)  # enumerator or macro -> int
    enum_of: dict[str, str] = field(default_factory=dict)  # enumerator -> its enum (typedef or tag)
    tag_of: dict[str, str] = field(default_factory=dict)  # enum typedef -> its tag (and tag -> tag)
    members: dict[str, list[str]] = field(default_factory=dict)  # enum -> enumerators in order
    alias: dict[str, str] = field(default_factory=dict)  # typedef NAME -> the type it names
    struct_tag: dict[str, str] = field(
        default_factory=dict
    )  # typedef NAME -> struct/union/enum tag


_TYPEDEF_ALIAS = re.compile(r"\btypedef\s+([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*;")
_TYPEDEF_TAG = re.compile(r"\btypedef\s+(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*(\{)?")


def _typedef_names_after_body(text: str, open_brace: int) -> list[str]:
    depth, i = 0, open_brace
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                break
        i += 1
    end = text.find(";", i)
    return [n for n in _IDENT.findall(text[i + 1 : end]) if n not in KEYWORDS] if end > 0 else []


def scan_values(paths: Iterable[Path]) -> Values:
    vals = Values()
    texts = []
    for p in paths:
        try:
            texts.append(strip_comments(p.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    for text in texts:
        for m in _DEFINE.finditer(text):
            if not m.group(2):
                v = eval_int(m.group(3), vals.value)
                if v is not None:
                    vals.value.setdefault(m.group(1), v)
        for m in _ENUM_BLOCK.finditer(text):
            tag, body, tdef = m.group(1), m.group(2), m.group(3)
            owner = tdef or tag
            if not owner:
                continue
            if tag:
                vals.tag_of.setdefault(owner, tag)
                vals.tag_of.setdefault(tag, tag)
            nxt = 0
            body = re.sub(r"^\s*#.*$", "", body, flags=re.M)
            for item in body.split(","):
                item = re.sub(
                    r"__attribute__\s*\(\(.*?\)\)|\b[A-Z_]*DEPRECATED\w*(\(.*?\))?", "", item
                ).strip()
                if not item:
                    continue
                name, _, expr = item.partition("=")
                name = name.strip()
                if not re.fullmatch(r"[A-Za-z_]\w*", name):
                    continue
                v = eval_int(expr, vals.value) if expr.strip() else nxt
                if v is None:
                    continue
                vals.value.setdefault(name, v)
                vals.enum_of.setdefault(name, owner)
                vals.members.setdefault(owner, []).append(name)
                nxt = v + 1
        for m in _TYPEDEF_ALIAS.finditer(text):
            if m.group(1) not in KEYWORDS and m.group(1) not in ("struct", "union", "enum"):
                vals.alias.setdefault(m.group(2), m.group(1))
        for m in _TYPEDEF_TAG.finditer(text):
            tag = m.group(1)
            if m.group(2):
                names = _typedef_names_after_body(text, m.end() - 1)
            else:
                end = text.find(";", m.end())
                names = _IDENT.findall(text[m.end() : end])
            for n in names:
                vals.struct_tag.setdefault(n, tag)
    return vals
