"""Reports their consumers accept: JSON against porter's schema, SARIF against SARIF 2.1.0
(the validators: tests/helpers.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from helpers import validate_json_report, validate_sarif

EXAMPLE = ROOT / "examples" / "cuda-project"


def porter(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "porter.cli", *args], cwd=cwd, capture_output=True)
    return (
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


@pytest.fixture()
def project(tmp_path) -> Path:
    dst = tmp_path / "proj"
    shutil.copytree(EXAMPLE, dst)
    return dst


@pytest.mark.parametrize(
    "args",
    [
        ("check", "proj"),
        ("check", "proj/src/reduce.cu", "proj/src/saxpy.cu"),
        ("port", "proj", "-o", "out"),
        ("port", "proj", "--in-place"),
        ("port", "proj", "--check"),
        ("port", "proj/src/saxpy.cu"),
    ],
)
def test_every_json_report_matches_the_schema(project, args):
    rc, out, err = porter(*args, "--format", "json", cwd=project.parent)
    assert rc in (0, 1), err
    doc = json.loads(out if out.lstrip().startswith("{") else err[err.index("{") :])
    validate_json_report(doc)
    assert doc["schema_version"].startswith("1.")
    assert doc["findings"] and all(f["path"].startswith("proj/") for f in doc["findings"])


def test_diff_json_goes_to_standard_output_after_nothing_else(project):
    rc, out, err = porter(
        "port", "proj", "--diff", "--format", "json", "--report", "d.json", cwd=project.parent
    )
    assert rc == 1
    doc = json.loads((project.parent / "d.json").read_text())
    validate_json_report(doc)


def test_sarif_is_valid_small_and_code_scanning_ready(project):
    rc, out, err = porter("check", "proj", "--format", "sarif", cwd=project.parent)
    assert rc == 1
    doc = json.loads(out)
    validate_sarif(doc)
    run = doc["runs"][0]
    assert len(out) < 40_000, len(out)  # rule docs once, only for the rules used
    used = {r["ruleId"] for r in run["results"]}
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == used
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["help"]["markdown"].count("## What it finds") == 1
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == project.parent.as_uri() + "/"
    for r in run["results"]:
        loc = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert loc["uriBaseId"] == "%SRCROOT%" and loc["uri"].startswith("proj/")
        assert (project.parent / loc["uri"]).is_file()
        assert r["partialFingerprints"]["porterLineHash/v1"]
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    assert run["invocations"][0] == {"executionSuccessful": True, "exitCode": 1}
    assert run["properties"]["effort"]["manual"] in ("low", "medium", "high")


def test_fingerprints_survive_moved_lines(project):
    def prints() -> dict[str, tuple[str, int]]:
        out = porter("check", "proj", "--format", "sarif", cwd=project.parent)[1]
        res = json.loads(out)["runs"][0]["results"]
        return {
            r["partialFingerprints"]["porterLineHash/v1"]: (
                r["ruleId"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
            )
            for r in res
        }

    before = prints()
    reduce_cu = project / "src" / "reduce.cu"
    reduce_cu.write_text("// a comment\n// and another\n" + reduce_cu.read_text())
    after = prints()
    assert set(before) == set(after)
    moved = [k for k in before if before[k][1] != after[k][1]]
    assert moved and all(after[k][1] == before[k][1] + 2 for k in moved)


def test_absolute_and_outside_paths_open_from_the_working_folder(project, tmp_path):
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    rc, out, _ = porter("check", str(project), "--format", "json", cwd=elsewhere)
    doc = json.loads(out)
    assert doc["findings"]
    for f in doc["findings"]:
        assert os.path.isabs(f["path"]) and Path(f["path"]).is_file()
    rc, out, _ = porter("check", str(project), "--format", "sarif", cwd=elsewhere)
    sarif = json.loads(out)
    validate_sarif(sarif)
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]
        for r in sarif["runs"][0]["results"]
    ]
    assert all(u["uri"].startswith("file:///") and "uriBaseId" not in u for u in uris)
    rc, out, _ = porter("check", str(project), cwd=project)  # absolute input inside cwd
    assert out.startswith("CMakeLists.txt:") or "\nsrc/reduce.cu:" in out


def test_non_utf8_file_names_are_valid_unicode(tmp_path):
    name = os.fsdecode(b"k\xff.cu")
    try:
        (tmp_path / name).write_bytes(b"void f() { cudaNotARealApi(1); }\n")
    except (OSError, UnicodeEncodeError):
        pytest.skip("the file system refuses non-UTF-8 names")
    rc, out, _ = porter("check", ".", "--format", "json", cwd=tmp_path)
    doc = json.loads(out)
    validate_json_report(doc)
    assert doc["findings"][0]["path"] == "k\\xff.cu"  # the undecodable byte, readable
    rc, out, _ = porter("check", ".", "--format", "sarif", cwd=tmp_path)
    sarif = json.loads(out)
    validate_sarif(sarif)
    loc = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc["uri"] == "k%FF.cu"


def test_sarif_past_code_scanning_result_limit_keeps_the_most_severe(project, monkeypatch, capsys):
    from porter.cli import main
    from porter.report import sarif

    monkeypatch.setattr(sarif, "MAX_RESULTS", 3)
    monkeypatch.chdir(project.parent)
    assert main(["check", "proj", "--format", "sarif"]) == 1
    doc = json.loads(capsys.readouterr().out)
    validate_sarif(doc)
    run = doc["runs"][0]
    assert len(run["results"]) == 3 and all(r["level"] == "error" for r in run["results"])
    assert run["properties"]["droppedResults"] > 0
    note = run["invocations"][0]["toolExecutionNotifications"][-1]
    assert "at most 3 results" in note["message"]["text"]


def test_usage_error_exit_code_in_sarif_is_not_reached(project):
    rc, out, err = porter("check", "proj", "--report", "x.unknown", cwd=project.parent)
    assert rc == 2 and out == "" and err.count("\n") == 1
