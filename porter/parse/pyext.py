"""PyTorch extension builds in Python files: `CUDAExtension(...)` / `CppExtension(...)` in a
setup.py, and the JIT builders `torch.utils.cpp_extension.load(...)` / `load_inline(...)`.

Read with `ast` (porter.parse.python), nothing is imported or run. For each call it finds:

- the source files it compiles, resolved statically when they are written as string literals,
  `os.path.join(...)` of resolvable parts, `glob.glob(...)`/`glob(...)` of a resolvable pattern
  (matched on disk, sorted), `sorted(...)`/`list(...)` of those, list concatenation, and names
  assigned such values in the same file (every assignment and `+=` of a name counts, so a name
  set in two branches yields both); `__file__`, `os.path.dirname(os.path.abspath(__file__))` and
  `Path(__file__).parent` are the file's folder. Anything else is listed as unresolved;
- the flag lists PyTorch hands to the GPU compiler (`extra_compile_args={"nvcc": [...]}`,
  `extra_cuda_cflags=[...]`), the link flags (`extra_link_args`, `extra_ldflags`) and
  `libraries=[...]`, when they are lists of string literals.

Relative source paths are relative to the build file's folder: setuptools wants setup()
arguments relative to the setup.py folder, and PyTorch's CUDAExtension hipifies them from the
working folder the build runs in (torch 2.13 `torch/utils/cpp_extension.py`, CUDAExtension:
`build_dir = os.getcwd()`, `extra_files=[os.path.abspath(s) for s in sources]`).
"""

from __future__ import annotations

import ast
import glob as _glob
import os
from dataclasses import dataclass, field
from pathlib import Path

from .python import PySource, dotted

#: the builders of torch.utils.cpp_extension that compile files (sources=) or code (load_inline)
EXTENSION_CALLS = frozenset({"CUDAExtension", "CppExtension", "load", "load_inline"})
_MODULE = "torch.utils.cpp_extension"
#: keywords whose list of flags reaches the GPU compiler or the linker on a ROCm build
CUDA_FLAG_KEYWORDS = ("extra_cuda_cflags",)
LINK_FLAG_KEYWORDS = ("extra_link_args", "extra_ldflags")
_GLOB_LIMIT = 10_000  # files a glob may yield before porter gives up on it
_DEPTH_LIMIT = 20  # nested names resolved before porter gives up


@dataclass(frozen=True)
class ExtSource:
    """One source file an extension compiles."""

    path: str  # as resolved: relative to the build file's folder, or absolute
    line: int  # where it is named: the literal, or the join/glob call
    col: int  # 1-based


@dataclass
class FlagList:
    """A list of string literals PyTorch passes to a compiler or linker."""

    key: str  # "nvcc" | "extra_cuda_cflags" | "extra_link_args" | ... | "libraries"
    node: ast.List | ast.Tuple


@dataclass
class Extension:
    call: str  # CUDAExtension | CppExtension | load | load_inline
    name: str | None  # the extension's name when it is a literal
    line: int
    col: int  # 1-based
    node: ast.Call
    sources: list[ExtSource] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)  # source expressions not resolved
    flags: list[FlagList] = field(default_factory=list)

    @property
    def gpu(self) -> bool:
        """Builds GPU code: CUDAExtension, load/load_inline with CUDA sources."""
        if self.call == "CUDAExtension":
            return True
        if self.call == "load_inline":
            return (
                any(k.arg == "cuda_sources" for k in self.node.keywords) or len(self.node.args) > 2
            )
        return any(s.path.endswith((".cu", ".cuh")) for s in self.sources) or any(
            k.arg == "with_cuda" and isinstance(k.value, ast.Constant) and k.value.value
            for k in self.node.keywords
        )


class _Here:
    """The build file's folder (what `os.path.dirname(__file__)` is)."""


class _File:
    """`__file__` itself."""


_HERE, _FILE = _Here(), _File()
#: what an expression resolves to: a string, the folder, __file__, or a list of
#: (string or None, the node that named it)
Value = str | _Here | _File | list[tuple[str | None, ast.AST]]


def _aliases(tree: ast.Module) -> tuple[dict[str, str], set[str]]:
    """({local name: builder} for names imported from torch.utils.cpp_extension,
    {dotted prefixes that denote the module}: `torch.utils.cpp_extension`, an `as` alias)."""
    names: dict[str, str] = {}
    modules = {_MODULE}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == _MODULE:
            for a in node.names:
                if a.name in EXTENSION_CALLS:
                    names[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module == "torch.utils":
            for a in node.names:
                if a.name == "cpp_extension":
                    modules.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == _MODULE and a.asname:
                    modules.add(a.asname)
    return names, modules


class _Resolver:
    def __init__(self, tree: ast.Module, folder: Path | None) -> None:
        self.folder = folder
        self.env: dict[str, list[ast.expr]] = {}
        self.globs: dict[str, str] = {}  # local name -> glob.glob / os.path.join ...
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.env.setdefault(t.id, []).append(node.value)
            elif (
                isinstance(node, (ast.AnnAssign, ast.AugAssign))
                and isinstance(node.target, ast.Name)
                and node.value is not None
            ):
                if isinstance(node, ast.AugAssign) and not isinstance(node.op, ast.Add):
                    continue
                self.env.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.ImportFrom) and node.module in ("glob", "os.path", "os"):
                for a in node.names:
                    self.globs[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.ImportFrom) and node.module == "pathlib":
                for a in node.names:
                    self.globs[a.asname or a.name] = f"pathlib.{a.name}"
        self.depth = 0

    def _func(self, node: ast.expr) -> str:
        name = dotted(node) or ""
        head, _, rest = name.partition(".")
        if head in self.globs:
            return self.globs[head] + (f".{rest}" if rest else "")
        return name

    def items(self, node: ast.expr) -> tuple[list[tuple[str, ast.AST]], list[str]]:
        """(resolved (path, naming node) pairs, unresolved expressions) of a sources value."""
        v = self.value(node)
        if isinstance(v, str):
            return [(v, node)], []
        if isinstance(v, list):
            good = [(p, n) for p, n in v if isinstance(p, str)]
            bad = [ast.unparse(n) for p, n in v if not isinstance(p, str)]
            return good, bad
        return [], [ast.unparse(node)]

    def value(self, node: ast.expr) -> Value | None:
        self.depth += 1
        try:
            if self.depth > _DEPTH_LIMIT:
                return None
            return self._value(node)
        finally:
            self.depth -= 1

    def _str(self, node: ast.expr) -> str | None:
        v = self.value(node)
        if isinstance(v, _Here):
            return str(self.folder) if self.folder is not None else "."
        return v if isinstance(v, str) else None

    def _value(self, node: ast.expr) -> Value | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            if node.id == "__file__":
                return _FILE
            exprs = self.env.get(node.id)
            if not exprs:
                return None
            vals = [self.value(e) for e in exprs]
            if len(vals) == 1:
                return vals[0]
            if all(isinstance(v, list) for v in vals):  # `x = [...]`, `x += [...]`
                out: list[tuple[str | None, ast.AST]] = []
                for v in vals:
                    assert isinstance(v, list)
                    out += [i for i in v if i not in out]
                return out
            return vals[0] if all(v == vals[0] for v in vals) else None
        if isinstance(node, (ast.List, ast.Tuple)):
            items: list[tuple[str | None, ast.AST]] = []
            for e in node.elts:
                inner: ast.expr = e.value if isinstance(e, ast.Starred) else e
                v = self.value(inner)
                if isinstance(v, list):
                    items += v
                else:
                    items.append((v if isinstance(v, str) else None, inner))
            return items
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self.value(node.left), self.value(node.right)
            if isinstance(a, list) and isinstance(b, list):
                return a + b
            if isinstance(a, str) and isinstance(b, str):
                return a + b
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # Path(...) / "x"
            left, right = self._str(node.left), self._str(node.right)
            return os.path.join(left, right) if left is not None and right is not None else None
        if isinstance(node, ast.Attribute) and node.attr == "parent":  # Path(__file__).parent
            if isinstance(self.value(node.value), _File):
                return _HERE
            s = self._str(node.value)
            return os.path.dirname(s) if s is not None else None
        if isinstance(node, ast.Call):
            return self._call(node)
        return None

    def _call(self, node: ast.Call) -> Value | None:
        func = self._func(node.func)
        args = node.args
        if func in ("os.path.join", "os.path.join") and args and not node.keywords:
            parts = [self._str(a) for a in args]
            if any(p is None for p in parts):
                return None
            return os.path.join(*parts)  # type: ignore[arg-type]
        if func in ("os.path.dirname",) and len(args) == 1:
            inner = self.value(args[0])
            if isinstance(inner, _File):
                return _HERE
            s = self._str(args[0])
            return os.path.dirname(s) if s is not None else None
        if func in ("os.path.abspath", "os.path.realpath", "os.path.normpath") and len(args) == 1:
            inner = self.value(args[0])
            return inner if isinstance(inner, (_File, _Here, str)) else None
        if func in ("pathlib.Path", "Path") and len(args) == 1:
            inner = self.value(args[0])
            return inner if isinstance(inner, (_File, _Here, str)) else None
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in ("resolve", "absolute")
            and not args
        ):
            inner = self.value(node.func.value)
            return inner if isinstance(inner, (_File, _Here, str)) else None
        if func in ("sorted", "list", "tuple") and len(args) == 1 and not node.keywords:
            inner = self.value(args[0])
            return inner if isinstance(inner, list) else None
        if func in ("glob.glob", "glob.glob.glob") and len(args) == 1:
            pattern = self._str(args[0])
            if pattern is None:
                return None
            recursive = any(
                k.arg == "recursive" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in node.keywords
            )
            return [(p, node) for p in self._glob(pattern, recursive)]
        return None

    def _glob(self, pattern: str, recursive: bool) -> list[str]:
        if self.folder is None:
            return []
        absolute = os.path.isabs(pattern)
        full = pattern if absolute else os.path.join(str(self.folder), pattern)
        found = []
        for i, p in enumerate(_glob.iglob(full, recursive=recursive)):
            if i >= _GLOB_LIMIT:
                break
            found.append(p if absolute else os.path.relpath(p, str(self.folder)))
        return sorted(found)


def _flag_lists(node: ast.Call, resolver: _Resolver) -> list[FlagList]:
    """The flag lists of one call: list displays in the call, or a name the file assigns one
    list display exactly once (`NVCC_FLAGS = [...]`)."""

    def as_list(v: ast.expr) -> ast.List | ast.Tuple | None:
        if isinstance(v, ast.Name):
            exprs = resolver.env.get(v.id, [])
            v = exprs[0] if len(exprs) == 1 else v
        return v if isinstance(v, (ast.List, ast.Tuple)) else None

    out: list[FlagList] = []
    for kw in node.keywords:
        v = kw.value
        if isinstance(v, ast.Name) and kw.arg == "extra_compile_args":
            exprs = resolver.env.get(v.id, [])
            v = exprs[0] if len(exprs) == 1 else v
        if kw.arg == "extra_compile_args" and isinstance(v, ast.Dict):
            for k, val in zip(v.keys, v.values):
                lst = as_list(val) if isinstance(k, ast.Constant) and k.value == "nvcc" else None
                if lst is not None:
                    out.append(FlagList("nvcc", lst))
        elif kw.arg in CUDA_FLAG_KEYWORDS + LINK_FLAG_KEYWORDS + ("libraries",):
            lst = as_list(v)
            if lst is not None:
                out.append(FlagList(kw.arg or "", lst))
    return out


def _relative(path: str, folder: Path | None) -> str:
    """A source path inside the build file's folder relative to it (as setup() wants them and
    so that messages do not depend on where the tree lies); others as they are."""
    if folder is None or not os.path.isabs(path):
        return os.path.normpath(path)
    rel = os.path.relpath(path, str(folder))
    return path if rel.startswith("..") else rel


def find_extensions(src: PySource, folder: Path | None = None) -> list[Extension]:
    """Every PyTorch extension build call of a parsed Python file, in source order. *folder* is
    the file's folder (for `__file__` and globs); without it globs resolve to nothing."""
    names, modules = _aliases(src.tree)
    if not names and not any(m in src.text for m in modules):
        return []
    resolver: _Resolver | None = None
    out: list[Extension] = []
    for node in ast.walk(src.tree):
        if not isinstance(node, ast.Call):
            continue
        call = None
        if isinstance(node.func, ast.Name) and node.func.id in names:
            call = names[node.func.id]
        elif isinstance(node.func, ast.Attribute) and node.func.attr in EXTENSION_CALLS:
            owner = dotted(node.func.value)
            if owner is not None and owner in modules:
                call = node.func.attr
        if call is None:
            continue
        if resolver is None:
            resolver = _Resolver(src.tree, folder)
        name = (
            node.args[0].value
            if node.args and isinstance(node.args[0], ast.Constant)
            else next(
                (
                    k.value.value
                    for k in node.keywords
                    if k.arg == "name" and isinstance(k.value, ast.Constant)
                ),
                None,
            )
        )
        ext = Extension(
            call,
            name if isinstance(name, str) else None,
            node.lineno,
            node.col_offset + 1,
            node,
            flags=_flag_lists(node, resolver),
        )
        if call != "load_inline":
            value = next((k.value for k in node.keywords if k.arg == "sources"), None)
            if value is None and len(node.args) > 1:
                value = node.args[1]
            if value is not None:
                items, bad = resolver.items(value)
                ext.sources = [
                    ExtSource(
                        _relative(p, folder),
                        getattr(n, "lineno", node.lineno),
                        getattr(n, "col_offset", node.col_offset) + 1,
                    )
                    for p, n in items
                ]
                ext.unresolved = bad
        out.append(ext)
    out.sort(key=lambda e: (e.line, e.col))
    return out
