"""No CUDA name left behind silently (issue 8 §1): the completeness invariant, run over every
fixture and example, and the stability check (port, port the output again, nothing changes)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

from porter.cli import main
from porter.engine import _STATE, EngineOptions, process_one
from porter.findings import Edit, Finding, Severity
from porter.rewrite.invariant import MARK, code_spans_to_skip, leftovers
from porter.source import SourceFile


def _projects() -> list[tuple[Path, list[str]]]:
    """Every tree porter is tested on, with the options its tests port it with."""
    out = []
    for variant in sorted((FIXTURES / "port").iterdir()):
        if (variant / "input").is_dir():
            args = variant / "args"
            out.append((variant / "input", shlex.split(args.read_text()) if args.exists() else []))
    out.append((FIXTURES / "rules", []))
    out += [(p, []) for p in sorted((ROOT / "examples").iterdir()) if p.is_dir()]
    return out


PROJECTS = _projects()


def _port(src: Path, out: Path, args: list[str]) -> dict:
    report = out.parent / (out.name + ".json")
    main(
        [
            "port",
            str(src),
            "-o",
            str(out),
            "-q",
            "-j",
            "1",
            "--exit-zero",
            "--report",
            str(report),
            *args,
        ]
    )
    return json.loads(report.read_text())


def _findings(report: dict) -> list[dict]:
    return list(report["findings"])


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p[0].relative_to(ROOT).as_posix())
def test_every_cuda_name_is_converted_or_reported(project, tmp_path: Path):
    src, args = project
    report = _port(src, tmp_path / "out", args)
    faults = [f for f in _findings(report) if MARK in f.get("message", "")]
    assert not faults, faults


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p[0].relative_to(ROOT).as_posix())
def test_porting_the_port_again_changes_nothing(project, tmp_path: Path):
    src, args = project
    _port(src, tmp_path / "once", args)
    _port(tmp_path / "once", tmp_path / "twice", args)
    once, twice = _tree(tmp_path / "once"), _tree(tmp_path / "twice")
    changed = sorted(k for k in once if once[k] != twice.get(k))
    assert not changed, changed


# -- the check itself ---------------------------------------------------------------------
def _index():
    process_one("x.cu", b"", EngineOptions())
    return _STATE["index"]


def _left(text: str, edits=(), findings=(), declared=()) -> list[str]:
    data = text.encode()
    from porter.rewrite.edits import apply

    new = apply(data, list(edits))
    src = SourceFile("t.cu", data)
    return [x.name for x in leftovers(_index(), src, new, list(edits), list(findings), declared)]


def test_a_cuda_name_nothing_decided_about_is_caught():
    assert _left("void f(float** p) { cudaMalloc(p, 4); }\n") == ["cudaMalloc"]
    # an unknown CUDA-looking name and a CUDA include path are caught too
    assert _left("#include <cuda_runtime.h>\nint v = cudaFancyNewThing();\n") == [
        "cuda_runtime.h",
        "cudaFancyNewThing",
    ]


def test_what_accounts_for_a_name():
    text = "void f(float** p) { cudaMalloc(p, 4); }\n"
    pos = text.index("cudaMalloc")
    converted = [Edit(pos, pos + len("cudaMalloc"), b"hipMalloc")]
    assert _left(text, converted) == []
    reported = [Finding("PT002", Severity.ERROR, "m", "t.cu", 1, pos + 1, name="cudaMalloc")]
    assert _left(text, findings=reported) == []
    assert _left(text, declared={"cudaMalloc"}) == []
    # comments, strings, members of user types, #undef and namespace rows used as plain names
    assert (
        _left(
            '// cudaMalloc\nconst char* s = "cudaFree"; /* cudaMemcpy */\n'
            "int g(S x) { return x.cudaStream + x->cudaEvent; }\n#undef cudaMalloc\n"
            "int cub = 3;\n"
        )
        == []
    )


def test_a_name_porter_writes_itself_is_a_table_fault():
    text = "int v = hipX;\n"
    pos = text.index("hipX")
    got = leftovers(
        _index(),
        SourceFile("t.cu", text.encode()),
        text.replace("hipX", "cudaMallocHost").encode(),
        [Edit(pos, pos + 4, b"cudaMallocHost")],
        [],
    )
    assert [(x.name, x.written) for x in got] == [("cudaMallocHost", True)]


def test_lexer_of_the_check():
    data = b"int a = 1'000; // c\nauto s = R\"x(a \"b\" c)x\"; char q = '\\''; /* d */ x;"
    spans = [data[a:b] for a, b in code_spans_to_skip(data)]
    assert spans == [b"// c", b'R"x(a "b" c)x"'[1:], b"'\\''", b"/* d */"]


def test_engine_reports_a_name_left_behind():
    """The engine runs the check on every port: a keyword tree-sitter-cuda knows
    (`__grid_constant__`) used to be skipped without a word."""
    src = b"__global__ void k(const __grid_constant__ int p) {}\n"
    res = process_one("k.cu", src, EngineOptions(run_rules=False))  # PT810 would drop it
    assert [f.code for f in res.findings if f.name == "__grid_constant__"] == ["PT002"]
