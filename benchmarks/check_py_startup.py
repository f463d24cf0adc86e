"""Wall time of `porter check one.py` including interpreter start-up (target: under 0.3 s).

Runs `python -m porter.cli check FILE` several times on a Triton kernel file and prints the
best and the median wall time, and the same for a .py file without GPU code. Also reports
whether libcst, triton or torch got imported by a check (they must not be), and by a port of
the file (libcst only, when porter has something to write).

    python benchmarks/check_py_startup.py [--runs 15] [FILE]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "fixtures" / "triton" / "matmul_autotune.py"
TARGET_S = 0.3


def timed(args: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall times and CPU times (user + system of the child): on a loaded machine the CPU time
    is the figure that does not depend on the other processes."""
    import resource

    wall, cpu = [], []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run(args, capture_output=True, check=False)
        wall.append(time.perf_counter() - t)
        if proc.returncode not in (0, 1):  # 1 = findings; anything else is a failure, not a time
            raise SystemExit(
                f"{' '.join(args)} exited {proc.returncode}: "
                f"{proc.stderr.decode(errors='replace').strip()[-300:]}"
            )
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return wall, cpu


def heavy_imports(path: Path, *verb: str) -> list[str]:
    argv = list(verb or ("check",))
    code = (
        f"import sys, runpy; sys.argv = ['porter', *{argv!r}, {str(path)!r}]\n"
        "try:\n    runpy.run_module('porter.cli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('HEAVY:', *(m for m in ('libcst', 'triton', 'torch') if m in sys.modules))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("HEAVY:")]
    return lines[-1].split()[1:] if lines else ["(not measured)"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    f = Path(a.file)
    plain = ROOT / "benchmarks" / "common.py"
    import os

    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    base, bcpu = timed([sys.executable, "-c", "pass"], a.runs)
    print(
        f"python -c pass: wall best {min(base):.3f} s, median {statistics.median(base):.3f} s; "
        f"cpu best {min(bcpu):.3f} s"
    )
    for label, p in ((f.name, f), (f"{plain.name} (no GPU code)", plain)):
        t, c = timed([sys.executable, "-m", "porter.cli", "check", str(p)], a.runs)
        ok = "under" if min(t) < TARGET_S else "OVER"
        print(
            f"porter check {label}: wall best {min(t):.3f} s, median "
            f"{statistics.median(t):.3f} s ({ok} the {TARGET_S} s target); cpu best "
            f"{min(c):.3f} s, median {statistics.median(c):.3f} s; {a.runs} runs"
        )
    heavy = heavy_imports(f)
    print("heavy modules imported by the check:", ", ".join(heavy) if heavy else "none")
    # port writes through libcst when there is something to rewrite (expected: libcst only)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        heavy = heavy_imports(f, "port", "-o", str(Path(tmp) / f.name))
    print("heavy modules imported by port -o:", ", ".join(heavy) if heavy else "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
