#!/usr/bin/env python3
"""What a pre-commit run pays: wall time of `porter check ONE.cu`, interpreter start-up included.

The target (issue 10) is at most 0.2 s, best of several runs. The script runs the `porter`
console script (as pre-commit does) on one CUDA file, with the result cache off and on, and
prints the best and the median wall time and the CPU time (user + system) of the best run: on a
loaded machine wall time grows and CPU time does not. It also re-checks a tree (default: the
CUDA headers) with a warm cache, the other figure issue 10 sets (under 1 s for 20 MB).

    python benchmarks/startup.py [--runs 15] [--file F.cu] [--tree DIR]

`python -X importtime -m porter.cli check F.cu` shows where the import time goes.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = ROOT / "examples" / "cuda-project" / "src" / "saxpy.cu"
DEFAULT_TREE = Path("/usr/local/cuda/include")


def _porter() -> list[str]:
    exe = shutil.which("porter")
    return [exe] if exe else [sys.executable, "-m", "porter.cli"]


def timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):  # 1 = findings; anything else is a failed run, not a time
        raise SystemExit(
            f"{' '.join(cmd)} exited {proc.returncode}: "
            f"{proc.stderr.decode(errors='replace').strip()[-300:]}"
        )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def series(label: str, cmd: list[str], env: dict, cwd: Path, runs: int) -> None:
    timed(cmd, env, cwd)  # warm the page cache and .pyc files
    samples = [timed(cmd, env, cwd) for _ in range(runs)]
    best = min(samples)
    print(
        f"{label:44} best {best[0]:.3f} s (cpu {best[1]:.3f} s)  "
        f"median {statistics.median(w for w, _ in samples):.3f} s  ({runs} runs)"
    )


def tree_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--tree", type=Path, default=DEFAULT_TREE)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copy(args.file, work / args.file.name)
        env = dict(os.environ, PORTER_CACHE_DIR=str(work / "cache"), NO_COLOR="1")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        base = _porter()
        print(
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
            f"python {sys.version.split()[0]}"
        )
        series(
            "python -c pass (interpreter alone)",
            [sys.executable, "-c", "pass"],
            env,
            work,
            args.runs,
        )
        series(
            f"porter check {args.file.name} --no-cache",
            base + ["check", args.file.name, "--no-cache"],
            env,
            work,
            args.runs,
        )
        series(
            f"porter check {args.file.name} (warm cache)",
            base + ["check", args.file.name],
            env,
            work,
            args.runs,
        )
        if args.tree.is_dir():
            mb = tree_size(args.tree) / 1e6
            cmd = base + ["check", str(args.tree), "-q"]
            subprocess.run(
                cmd, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )  # fill the cache
            series(
                f"re-check {args.tree} ({mb:.0f} MB), warm cache",
                cmd,
                env,
                work,
                max(3, args.runs // 3),
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
