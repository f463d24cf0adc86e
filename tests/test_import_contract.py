"""The import contract (CONTRIBUTING.md): rule modules hold rules only and import no other rule
module; the analysis layer imports no rule module; porter's modules import each other without
cycles. Read from the source with `ast` (function-level imports count too: a lazy import hides
a cycle from the interpreter, not from the reader)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "porter"
RULE_INFRA = {"porter.rules", "porter.rules.base", "porter.rules.registry"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _resolve(current: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports_of(name: str) -> set[str]:
    """porter modules that module `name` imports (anywhere in its body)."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = _resolve(name, is_package, node.level, node.module)
            # `from pkg import sub` imports the submodule pkg.sub
            found = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names]
        else:
            continue
        for m in found:
            while m and m not in MODULES and "." in m:
                m = m.rsplit(".", 1)[0]
            if m in MODULES and m.startswith("porter") and m != name:
                out.add(m)
    return out


GRAPH = {m: imports_of(m) for m in MODULES}


def test_rule_modules_import_no_other_rule_module():
    bad = [
        f"{m} imports {t}"
        for m, ts in GRAPH.items()
        if m.startswith("porter.rules.") and m not in RULE_INFRA
        for t in sorted(ts)
        if t.startswith("porter.rules") and t not in RULE_INFRA
    ]
    assert not bad, "rule modules must share code through porter.analysis:\n" + "\n".join(bad)


def test_analysis_imports_no_rule_module():
    bad = [
        f"{m} imports {t}"
        for m, ts in GRAPH.items()
        if m.startswith("porter.analysis")
        for t in sorted(ts)
        if t.startswith("porter.rules")
    ]
    assert not bad, "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    cycles = _cycles(GRAPH)
    assert not cycles, "import cycles among porter modules: " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


def test_the_checker_sees_a_cycle_and_a_rule_import():
    """The checks above can fail: a planted cycle and a planted rule-to-rule import are found."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert "porter.rules.base" in GRAPH["porter.rules.warp"]
    assert _resolve("porter.rules.warp", False, 1, "asm") == "porter.rules.asm"
    assert _resolve("porter.rules", True, 1, "base") == "porter.rules.base"
    assert _resolve("porter.rules.warp", False, 2, "analysis.calls") == "porter.analysis.calls"


def _test_module_imports(path: Path) -> set[str]:
    """The test modules (test_*) that the test file `path` imports."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return {m for m in out if m.split(".")[0].startswith("test_")}


def test_test_modules_import_no_other_test_module():
    """What tests share lives in conftest.py, sources.py (real sources), built_texts.py (built
    texts) and helpers.py (git, report validators): a test module imported by another runs its
    module-level code twice and ties the two modules' fixtures and data together."""
    tests = Path(__file__).resolve().parent
    bad = [
        f"{p.name} imports {m}"
        for p in sorted(tests.glob("*.py"))
        for m in sorted(_test_module_imports(p))
    ]
    assert not bad, "\n".join(bad)
    assert _test_module_imports_of_text("from test_review import git\nimport test_x.y\n") == {
        "test_review",
        "test_x.y",
    }


def _test_module_imports_of_text(text: str) -> set[str]:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "t.py"
        p.write_text(text)
        return _test_module_imports(p)
