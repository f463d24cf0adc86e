"""`porter port --verify`: per-file, per-target compile results in every report format, compiler
diagnostics mapped back to the original CUDA file and line, and the exit code.

The line mapping and the report rendering are tested without a compiler; the end-to-end tests
compile a small project with clang-22 and the ROCm 7.2 prefix (skipped locally without them,
failing under PORTER_REQUIRE_TOOLCHAIN=1).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import need
from helpers import validate_json_report, validate_sarif

from porter import verify
from porter.findings import Edit
from porter.rewrite.edits import apply

# --- line mapping (no compiler) ---------------------------------------------------------------

OLD = (
    b"#include <cuda_runtime.h>\n"
    b"__global__ void k(float* p) {\n"
    b"  cudaError_t e = cudaGetLastError();\n"
    b"  p[0] = 1.f;\n"
    b"}\n"
)
INCLUDE = b"#include <hip/hip_runtime.h>\n"


def _edits(old: bytes) -> list[Edit]:
    """What the port does to OLD: an include added on top, two names renamed (one shorter)."""
    out = [Edit(0, 0, INCLUDE)]
    for name, new in (
        (b"cudaError_t", b"hipError_t"),
        (b"cudaGetLastError", b"hipGetLastError"),
        (b"cuda_runtime.h", b"hip/hip_runtime.h"),
    ):
        i = old.index(name)
        out.append(Edit(i, i + len(name), new))
    return out


def test_line_map_from_the_port_edits():
    edits = _edits(OLD)
    new = apply(OLD, edits)
    lm = verify.LineMap(OLD, new, edits)
    assert lm.segments is not None  # exact: the edits reproduce the ported text
    assert lm.original(1, 1) is None  # the include porter added
    assert lm.original(2, 10) == (1, 10, True)  # `<` of the changed #include line
    assert lm.original(2, 14) == (1, 11, True)  # inside the renamed header name: its start
    assert lm.original(3, 5) == (2, 5, False)  # an untouched line, one line down
    # `hipGetLastError` on ported line 4 starts at column 18; in the original `cudaGetLastError`
    # starts at column 19 (`cudaError_t` was one byte longer than `hipError_t`)
    text = new.splitlines()[3]
    col = text.index(b"hipGetLastError") + 1
    assert lm.original(4, col) == (3, OLD.splitlines()[2].index(b"cudaGetLastError") + 1, True)
    # a column after the renamed names on the same line still maps one to one
    semi = text.index(b";") + 1
    assert lm.original(4, semi) == (3, OLD.splitlines()[2].index(b";") + 1, True)
    assert lm.original(5, 3) == (4, 3, False)
    assert lm.original(99, 1) is None


def test_line_map_falls_back_to_a_line_diff():
    # the header rename left out: a line diff cannot tell an added line from a changed one
    # next to it, which the edits can
    edits = [e for e in _edits(OLD) if e.text != b"hip/hip_runtime.h"]
    new = apply(OLD, edits)
    stale = verify.LineMap(OLD, new + b"// more\n", edits)  # edits no longer give the text
    assert stale.segments is None
    assert stale.original(1, 1) is None
    assert stale.original(3, 5) == (2, 5, False)
    assert stale.original(4, 7) == (3, 1, True)  # changed: the column is not known
    assert stale.original(7, 1) is None  # the line added after the port
    exact, diffed = verify.LineMap(OLD, new, edits), verify.LineMap(OLD, new)
    assert exact.segments is not None and diffed.segments is None
    for line in range(1, 7):
        a, b = exact.original(line, 1), diffed.original(line, 1)
        assert (a is None) == (b is None), line
        if a is not None:
            assert (a[0], a[2]) == (b[0], b[2]), line


def test_parse_diagnostics():
    text = (
        "out/a.cu:4:16: error: invalid instruction\n"
        '  asm volatile("error: x");\n'
        "<inline asm>:1:2: note: instantiated into assembly here\n"
        "out/inc/h.cuh:3:51: fatal error: 'x.h' file not found\n"
        "out/a.cu:9:1: warning: unused\n"
    )
    assert verify.parse_diagnostics(text) == [
        ("out/a.cu", 4, 16, "error", "invalid instruction"),
        ("<inline asm>", 1, 2, "note", "instantiated into assembly here"),
        ("out/inc/h.cuh", 3, 51, "error", "'x.h' file not found"),
        ("out/a.cu", 9, 1, "warning", "unused"),
    ]


def test_pt907_is_documented():
    from porter.rules.registry import get

    rule = get("PT907")
    assert rule is not None and rule.name == "verify-compile-failed"
    assert rule.emitted_by_engine and str(rule.severity) == "error"
    doc = rule.doc()
    assert "## What it finds" in doc and "original CUDA line" in doc


# --- reports from a synthetic result (no compiler) --------------------------------------------


def _synthetic_report(tmp_path: Path):
    from porter.engine import FileResult
    from porter.findings import Finding, Severity
    from porter.report import RunReport

    ver = verify.VerifyReport(
        ["gfx942", "gfx90a"], "/usr/bin/clang++-22", "7.2.53211", "/opt/porter-rocm/7.2/usr"
    )
    diag = verify.Diagnostic(
        "error", "invalid instruction", "out/lane.cu:4:16", "src/lane.cu:3:16", changed=False
    )
    ver.units = [
        verify.UnitVerify(
            "out/a.cu",
            "src/a.cu",
            "compiled",
            {"gfx942": "compiled", "gfx90a": "compiled"},
            seconds=1.0,
        ),
        verify.UnitVerify(
            "out/fp8.cu",
            "src/fp8.cu",
            "failed",
            {"gfx942": "compiled", "gfx90a": "failed"},
            ["out/fp8.cu:3:22: error: needs target feature"],
            [
                verify.Diagnostic(
                    "error",
                    "needs target feature",
                    "out/fp8.cu:3:22",
                    "src/fp8.cu:2:22",
                    changed=True,
                )
            ],
        ),
        verify.UnitVerify(
            "out/lane.cu",
            "src/lane.cu",
            "failed",
            {"gfx942": "failed", "gfx90a": "failed"},
            ["out/lane.cu:4:16: error: invalid instruction"],
            [diag],
        ),
        verify.UnitVerify(
            "out/t.cu",
            "src/t.cu",
            "assisted",
            {"gfx942": "assisted", "gfx90a": "assisted"},
            ["out/t.cu:1:1: error: use of undeclared identifier 'memcpy'"],
            only_with="-include cstring",
        ),
        verify.UnitVerify(
            "out/e.cu",
            "src/e.cu",
            "skipped",
            {"gfx942": "skipped", "gfx90a": "skipped"},
            skipped="empty file (no code to compile)",
        ),
    ]
    results = []
    for u in ver.units:
        r = FileResult(u.source, "cuda", status="ported")
        if u.status in ("failed", "assisted"):
            r.findings.append(verify._failure_finding(u, u.source, ver.targets, Finding, Severity))
        results.append(r)
    rep = RunReport("port", results, {"offload_arch": ver.targets, "rocm_version": "7.2"})
    rep.verify = ver
    return rep


def test_terminal_section_and_quiet_summary(tmp_path):
    from porter.report import render

    rep = _synthetic_report(tmp_path)
    text = render("terminal", rep)
    section = text[text.index("compile check (gfx942, gfx90a;") :]
    assert re.search(r"^  ok +out/a\.cu$", section, re.M)
    assert re.search(r"^  FAILED out/fp8\.cu +\[gfx942: compiled, gfx90a: failed\]$", section, re.M)
    assert "out/lane.cu:4:16 (from src/lane.cu:3:16): invalid instruction" in section
    assert "(compiles only with -include cstring added)" in section
    assert re.search(r"^  SKIP +out/e\.cu +\(empty file", section, re.M)
    summary = (
        "compile check: 1 compiled, 2 failed, 1 compile only with a flag added, 1 skipped "
        "of 5 translation units (gfx942, gfx90a; HIP 7.2.53211)"
    )
    assert summary in text
    quiet = render("terminal", rep, quiet=True)
    assert summary in quiet and "out/lane.cu:4:16" not in quiet and "SKIP" not in quiet


def test_markdown_table(tmp_path):
    from porter.report import render

    md = render("markdown", _synthetic_report(tmp_path))
    part = md[md.index("## Compile check") :]
    assert "| file | original | gfx942 | gfx90a | result |" in part
    assert "| `out/fp8.cu` | `src/fp8.cu` | compiled | **failed** | failed<br>" in part
    assert "`out/lane.cu:4:16 (from src/lane.cu:3:16)`: invalid instruction" in part
    assert "compiles only with `-include cstring` added" in part
    assert "| `out/e.cu` | `src/e.cu` | skipped | skipped | skipped: empty file" in part


def test_json_and_sarif(tmp_path):
    from porter.report import render

    rep = _synthetic_report(tmp_path)
    doc = json.loads(render("json", rep))
    validate_json_report(doc)
    assert doc["schema_version"] == "1.2"
    assert doc["verify"]["counts"] == {
        "units": 5,
        "compiled": 1,
        "failed": 2,
        "assisted": 1,
        "skipped": 1,
    }
    lane = next(u for u in doc["verify"]["units"] if u["path"] == "out/lane.cu")
    assert lane["diagnostics"] == [
        {
            "severity": "error",
            "message": "invalid instruction",
            "ported": "out/lane.cu:4:16",
            "source": "src/lane.cu:3:16",
            "changed": False,
        }
    ]
    sarif = json.loads(render("sarif", rep))
    validate_sarif(sarif)
    run = sarif["runs"][0]
    pt907 = [r for r in run["results"] if r["ruleId"] == "PT907"]
    assert len(pt907) == 3 and all(r["level"] == "error" for r in pt907)
    lane_r = next(r for r in pt907 if "src/lane.cu" in json.dumps(r["locations"]))
    assert lane_r["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert (
        lane_r["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        == "out/lane.cu"
    )
    fp8 = next(r for r in pt907 if "src/fp8.cu" in json.dumps(r["locations"]))
    assert fp8["properties"]["targets"] == ["gfx90a"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["PT907"]
    assert run["properties"]["verify"]["counts"]["failed"] == 2


# --- end to end with the real compiler ----------------------------------------------------------

PROJECT = {
    "ok.cu": "__global__ void k(float* p) { p[threadIdx.x] = 1.f; }\n",
    "lane.cu": (
        "__global__ void lane_ids(unsigned* out) {\n"
        "  unsigned lane;\n"
        '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));\n'
        "  out[threadIdx.x] = lane;\n}\n"
    ),
    # fp8 conversion instructions exist on gfx942, not on gfx90a
    "fp8.cu": (
        "__global__ void k(float* out, int v) {\n"
        "  out[threadIdx.x] = __builtin_amdgcn_cvt_f32_fp8(v, 0);\n}\n"
    ),
    # the error is in a header, on a line porter changed (cudaError_t -> hipError_t, one shorter)
    "main.cu": '#include "inc/h.cuh"\n__global__ void k(float* p) { p[0] = helper(1.f); }\n',
    "inc/h.cuh": (
        "#pragma once\n"
        "__device__ float helper(float x) { cudaError_t e = cudaGetLastError(1); "
        "return x; }\n"
    ),
    "empty.cu": "// nothing here\n",
}


@pytest.fixture(scope="module")
def ported(tmp_path_factory, rocm72, hip_clang):
    """The project ported with --verify for two targets, the reports in every format."""
    tmp = tmp_path_factory.mktemp("pv")
    for name, text in PROJECT.items():
        (tmp / "proj" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / "proj" / name).write_text(text)
    cmd = [
        sys.executable,
        "-m",
        "porter.cli",
        "port",
        "proj",
        "-o",
        "out",
        "--verify",
        "--rocm-path",
        str(rocm72.parent),
        "--offload-arch",
        "gfx942,gfx90a",
        "-j",
        "2",
        "--report",
        "r.json",
        "--report",
        "r.md",
        "--report",
        "r.sarif",
        "--report",
        "r.html",
    ]
    proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
    return tmp, proc


def test_port_verify_terminal_and_exit_code(ported):
    tmp, proc = ported
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert re.search(r"^  ok +out/ok\.cu$", out, re.M), out
    assert re.search(r"^  FAILED out/fp8\.cu +\[gfx942: compiled, gfx90a: failed\]$", out, re.M)
    assert re.search(r"^  FAILED out/lane\.cu$", out, re.M)
    assert "out/lane.cu:4:16 (from proj/lane.cu:3:16): invalid instruction" in out
    # the header's error: ported line 3 (include added), original line 2; column 51 -> 52
    assert (
        "out/inc/h.cuh:3:51 (from proj/inc/h.cuh:2:52, changed by porter): no matching "
        "function for call to 'hipGetLastError'"
    ) in out
    assert re.search(r"^  SKIP +out/empty\.cu +\(empty file", out, re.M)
    assert (
        "compile check: 1 compiled, 3 failed, 1 skipped of 5 translation units "
        "(gfx942, gfx90a; HIP 7.2"
    ) in out
    # results streamed to standard error as each file finished
    assert proc.stderr.count("porter: verify: ") == 5


def test_port_verify_json(ported):
    tmp, _ = ported
    doc = json.loads((tmp / "r.json").read_text())
    validate_json_report(doc)
    units = {u["path"]: u for u in doc["verify"]["units"]}
    assert sorted(units) == [
        "out/empty.cu",
        "out/fp8.cu",
        "out/lane.cu",
        "out/main.cu",
        "out/ok.cu",
    ]
    assert units["out/ok.cu"]["targets"] == {"gfx942": "compiled", "gfx90a": "compiled"}
    assert units["out/fp8.cu"]["targets"] == {"gfx942": "compiled", "gfx90a": "failed"}
    assert units["out/empty.cu"]["status"] == "skipped"
    main = units["out/main.cu"]
    assert main["source"] == "proj/main.cu" and main["status"] == "failed"
    assert main["diagnostics"][0] == {
        "severity": "error",
        "message": "no matching function for call to 'hipGetLastError'",
        "ported": "out/inc/h.cuh:3:51",
        "source": "proj/inc/h.cuh:2:52",
        "changed": True,
    }
    assert main["errors"][0].startswith("out/inc/h.cuh:3:51: error:")
    pt907 = {f["path"]: f for f in doc["findings"] if f["code"] == "PT907"}
    assert sorted(pt907) == ["proj/fp8.cu", "proj/lane.cu", "proj/main.cu"]
    assert (pt907["proj/lane.cu"]["line"], pt907["proj/lane.cu"]["column"]) == (3, 16)
    assert pt907["proj/fp8.cu"]["targets"] == ["gfx90a"]
    assert "for gfx90a:" in pt907["proj/fp8.cu"]["message"]


def test_port_verify_markdown_and_sarif(ported):
    tmp, _ = ported
    md = (tmp / "r.md").read_text()
    assert "| `out/fp8.cu` | `proj/fp8.cu` | compiled | **failed** | failed<br>" in md
    sarif = json.loads((tmp / "r.sarif").read_text())
    validate_sarif(sarif)
    run = sarif["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert "PT907" in rules and "original CUDA line" in rules["PT907"]["help"]["text"]
    pt907 = [r for r in run["results"] if r["ruleId"] == "PT907"]
    assert len(pt907) == 3
    main = next(r for r in pt907 if "proj/main.cu" in json.dumps(r["locations"]))
    related = main["relatedLocations"][0]["physicalLocation"]
    assert related["artifactLocation"]["uri"] == "out/inc/h.cuh"
    assert related["region"] == {"startLine": 3, "startColumn": 51}


class _VerifyRows(HTMLParser):
    """Rows of the verify table as the browser left them: (status, cell texts)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, list[str]]] = []
        self._in_table = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "verify-table":
            self._in_table = True
        elif self._in_table and tag == "tr" and "data-status" in a:
            self.rows.append((a["data-status"] or "", []))
        elif self._in_table and tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_table = False
        elif tag == "td" and self._cell is not None and self.rows:
            self.rows[-1][1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_port_verify_html_in_a_browser(ported, tmp_path):
    tmp, _ = ported
    page = tmp / "r.html"
    text = page.read_text()
    assert not re.search(r"<(?:link|img)\b|<script[^>]+src=", text)  # self-contained
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    need(exe is not None, "chromium is not installed (apt-get install chromium; .ci/run does)")
    profile = tmp_path / "profile"
    profile.mkdir()
    proc = subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    parser = _VerifyRows()
    parser.feed(proc.stdout)
    rows = {cells[0]: (status, cells) for status, cells in parser.rows}
    assert sorted(rows) == ["out/empty.cu", "out/fp8.cu", "out/lane.cu", "out/main.cu", "out/ok.cu"]
    assert rows["out/fp8.cu"][1][1:4] == ["proj/fp8.cu", "compiled", "failed"]
    assert rows["out/ok.cu"][0] == "compiled"
    assert (
        "out/lane.cu:4:16 (from proj/lane.cu:3:16): invalid instruction"
        in rows["out/lane.cu"][1][-1]
    )
    assert rows["out/empty.cu"][1][-1].startswith("skipped: empty file")


def test_failed_compile_exits_1_whatever_the_findings(tmp_path, rocm72, hip_clang):
    """A unit that does not compile makes the exit code 1 even when its finding is ignored and
    the fail level would let everything else pass; --exit-zero still exits 0."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "bad.cu").write_text("__global__ void k(float* p) { p[0] = nope; }\n")
    base = [
        sys.executable,
        "-m",
        "porter.cli",
        "port",
        "proj",
        "-o",
        "out",
        "--force",
        "--verify",
        "--rocm-path",
        str(rocm72.parent),
        "-q",
    ]
    proc = subprocess.run(
        base + ["--ignore", "PT907"], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "compile check: 0 compiled, 1 failed of 1 translation unit" in proc.stdout
    assert "[PT907]" not in proc.stdout
    proc = subprocess.run(base + ["--exit-zero"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_files_porter_did_not_port_are_skipped_with_why(tmp_path, rocm72, hip_clang):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "big.cu").write_text("__global__ void k(float* p) { p[0] = 1.f; }\n")
    (tmp_path / "proj" / "small.cu").write_text("__global__ void k(int* p) { *p = 1; }\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "porter.cli",
            "port",
            "proj",
            "-o",
            "out",
            "--verify",
            "--rocm-path",
            str(rocm72.parent),
            "--max-file-size",
            "40",
            "--format",
            "json",
            "-q",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    doc = json.loads(proc.stdout)
    validate_json_report(doc)
    units = {u["path"]: u for u in doc["verify"]["units"]}
    assert units["out/small.cu"]["status"] == "compiled"
    big = units["out/big.cu"]
    assert big["status"] == "skipped" and big["targets"] == {"gfx942": "skipped"}
    assert big["skipped"].startswith("not ported (") and "--max-file-size" in big["skipped"]
    assert proc.returncode == 0, proc.stderr  # skipped is not failed


def test_porter_verify_names_the_failing_targets(tmp_path, rocm72, hip_clang, capsys):
    import types

    (tmp_path / "fp8.hip").write_text("#include <hip/hip_runtime.h>\n" + PROJECT["fp8.cu"])
    args = types.SimpleNamespace(
        path=str(tmp_path), offload_arch="gfx942,gfx90a", rocm_path=str(rocm72.parent)
    )
    assert verify.main_verify(args) == 1
    out = capsys.readouterr().out
    assert re.search(r"^  FAIL  fp8\.hip .*  \[gfx942: compiled, gfx90a: failed\]$", out, re.M), out
    [res] = verify.verify_tree(tmp_path, ["gfx942", "gfx90a"], rocm=verify.discover(rocm72))
    assert res.per_target == (("gfx942", "compiled"), ("gfx90a", "failed"))
    assert res.status == "failed"


def test_no_translation_unit_is_said_so(tmp_path, rocm72, hip_clang):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "a.cuh").write_text("__device__ int f();\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "porter.cli",
            "port",
            "proj",
            "-o",
            "out",
            "--verify",
            "--rocm-path",
            str(rocm72.parent),
            "-q",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "compile check: 0 compiled, 0 failed of 0 translation units" in proc.stdout
