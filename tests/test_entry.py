"""The console script's exit (`porter.cli.entry`): the process ends with os._exit after main, so
what Python's teardown would have done must be done before it. Checked on real processes: the
exit code is main's, every byte written to a pipe or a file arrives, the exit handlers run, and a
reader that goes away early gets no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from porter.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "cuda-project"


def _env() -> dict[str, str]:
    # buffered streams, as on a user's machine (a CI runner may set PYTHONUNBUFFERED)
    return {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def _porter(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "porter.cli", *args], env=_env(), timeout=300, **kw
    )


def test_exit_code_and_json_through_a_pipe():
    r = _porter("check", str(EXAMPLE), "--format", "json", "-j", "1", capture_output=True)
    expected = main(["check", str(EXAMPLE), "--format", "json", "-j", "1", "-q"])
    assert r.returncode == expected != 0, r.stderr
    report = json.loads(r.stdout)  # the whole report arrived: it parses
    assert report["findings"]


def test_block_buffered_file_is_complete(tmp_path):
    # a file as stdout is block-buffered: the tail sits in Python's buffer until the flush
    out = tmp_path / "report.json"
    with out.open("wb") as fh:
        r = _porter("check", str(EXAMPLE), "--format", "json", "-j", "1", stdout=fh)
    data = out.read_bytes()
    assert r.returncode == 1
    assert len(data) > 8192  # more than one buffer
    json.loads(data)


def test_exit_handlers_run(tmp_path):
    # an atexit handler registered during the run (as multiprocessing's and tempfile's are)
    marker = tmp_path / "ran"
    script = textwrap.dedent(
        f"""
        import atexit, sys
        from pathlib import Path
        from porter import cli
        atexit.register(lambda: Path({str(marker)!r}).write_text("yes"))
        sys.argv = ["porter", "mappings", "cudaMalloc"]
        cli.entry()  # main returns normally (--version would raise SystemExit in argparse)
        """
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120, env=_env())
    assert r.returncode == 0, r.stderr
    assert marker.read_text() == "yes"
    assert b"hipMalloc" in r.stdout


def test_reader_gone_early_no_traceback():
    p = subprocess.Popen(
        [sys.executable, "-m", "porter.cli", "check", str(EXAMPLE), "--format", "json", "-j", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert p.stdout is not None and p.stderr is not None
    p.stdout.read(10)
    p.stdout.close()  # the reader goes away before the report is written out
    err = p.stderr.read()
    p.wait(timeout=300)
    assert b"Traceback" not in err
    assert p.returncode != 0 or len(err) == 0
