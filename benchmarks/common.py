"""Shared helpers for the benchmarks: locating the tools, timing child processes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "cuda-project"
FIXTURES = ROOT / "fixtures"
CCCL = Path(os.environ.get("PORTER_CCCL_DIR", "/usr/local/cuda/include/cccl"))
#: What counts as CUDA C++ source in the benchmark inputs (the same set is given to every tool).
SOURCE_EXTS = frozenset({".cu", ".cuh", ".h", ".hpp", ".inl", ".cpp", ".cc"})


def porter_cmd() -> list[str]:
    """How a user runs porter: the console script installed with this interpreter (the one a
    virtual environment puts on PATH), else the one on PATH, else ``python -m porter.cli``. The
    interpreter's own comes first: a version manager's shim on PATH (pyenv's is a bash script
    that starts some 40 processes, about 0.06 s of CPU per run) would be timed as porter's."""
    beside = Path(sys.executable).parent / "porter"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    exe = shutil.which("porter")
    return [exe] if exe else [sys.executable, "-m", "porter.cli"]


def rocm_prefix(version: str = "7.2") -> Path:
    env = "PORTER_ROCM_PREFIX" if version == "7.2" else "PORTER_ROCM64_PREFIX"
    return Path(os.environ.get(env, f"/opt/porter-rocm/{version}"))


def hipify_perl() -> Path | None:
    """hipify-perl as unpacked by scripts/setup-rocm.sh (or $HIPIFY_PERL)."""
    cands = [
        os.environ.get("HIPIFY_PERL", ""),
        str(rocm_prefix() / "usr" / "bin" / "hipify-perl"),
        shutil.which("hipify-perl") or "",
    ]
    for c in cands:
        if c and Path(c).is_file():
            return Path(c)
    return None


@dataclass
class Run:
    seconds: float
    max_rss_kb: int
    returncode: int
    stderr: str = ""
    user: float = 0.0  # CPU seconds of the child and the children it waited for
    system: float = 0.0
    stdout: str = ""  # when run with stdout=subprocess.PIPE


def run_timed(
    cmd: list[str],
    *,
    stdout=subprocess.DEVNULL,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> Run:
    """Wall time, CPU time and peak resident set size of one child process (wait4 gives the
    rusage of that child alone, including the children it waited for: ru_maxrss is the largest of
    them, ru_utime/ru_stime their sum)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=cwd, env=env
    )
    assert proc.stderr is not None
    # drain both pipes (stderr in a thread) so that a chatty child never blocks on a full one;
    # communicate() would reap the child before wait4 could read its rusage
    errs: list[bytes] = []
    reader = threading.Thread(target=lambda: errs.append(proc.stderr.read()))  # type: ignore[union-attr]
    reader.start()
    out = proc.stdout.read() if proc.stdout is not None else b""
    reader.join()
    err = errs[0] if errs else b""
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(
        seconds,
        int(usage.ru_maxrss),
        proc.returncode,
        err.decode(errors="replace")[-4000:],
        usage.ru_utime,
        usage.ru_stime,
        (out or b"").decode(errors="replace"),
    )


def source_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in SOURCE_EXTS)
