#!/usr/bin/env python3
"""Is porter faster than it was? Two commits of porter on the same files, taking turns.

On a VM whose speed changes from minute to minute, two figures taken minutes apart do not
compare (port_speed.py's tables of two sessions differ by more than most changes make). This
script checks out the two commits into temporary git worktrees and runs
``porter port TREE -o OUT -q -j 1`` with each in turn (A B, then B A, ...; OUT a new folder
each time), so that both see the same machine; it reports each commit's CPU time (user + system of the child, from
``wait4``) as min and median over the rounds, and the ratios of the medians and of the minima.

    python benchmarks/speed_ab.py 15ad7f2             # that commit against HEAD, on CCCL
    python benchmarks/speed_ab.py A B --rounds 10 --input path/to/tree
    python benchmarks/speed_ab.py A B --rounds 2 --instructions   # and callgrind's counts

With ``--instructions`` it also runs each commit once under valgrind's callgrind and reports the
instructions executed in user space: a count that does not move with the machine's load (CPU
seconds moved by a third within a session here), though it leaves out the kernel's time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CCCL, ROOT, source_files  # noqa: E402

#: as the console script runs porter: cli.entry where the commit has it (it ends the process
#: without the interpreter's teardown), else main
RUNNER = (
    "import sys; from porter import cli; sys.argv[0] = 'porter'; "
    "e = getattr(cli, 'entry', None); e() if e else sys.exit(cli.main())"
)
#: porter exits 1 when it reports findings (documented); anything else is a failure here.
PORTER_OK = (0, 1)


def cccl_tree(work: Path) -> Path:
    """A copy of CCCL's CUB, Thrust and libcu++ sources (port_speed.py's `cccl` input)."""
    dst = work / "cccl"
    for sub in ("cub", "thrust", "cuda"):
        for f in source_files(CCCL / sub):
            out = dst / f.relative_to(CCCL)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, out)
    return dst


def cpu_of_port(tree: Path, source: Path, out: Path) -> float:
    """CPU seconds of one `porter port` of `source` by the porter in `tree` (a worktree)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    # -P: no current folder on sys.path (run from a checkout, `-c` would import its porter)
    cmd = [sys.executable, "-P", "-c", RUNNER, "port", str(source), "-o", str(out), "-q", "-j", "1"]
    proc = subprocess.Popen(
        [*cmd, "--force"], env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in PORTER_OK:
        raise SystemExit(f"porter at {tree} exited {code}: {proc.stderr.read().decode()[-400:]}")
    return usage.ru_utime + usage.ru_stime


def instructions_of_port(tree: Path, source: Path, out: Path) -> int:
    """Instructions (user space: porter, the interpreter, tree-sitter, the regex engine) one
    `porter port` of `source` by the porter in `tree` executes, counted by valgrind's callgrind:
    the same count on an idle or a loaded machine, where CPU seconds move by a third. System
    calls' kernel time (writing the output) is not in it. About 60x slower than a plain run."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, "-P", "-c", RUNNER, "port", str(source), "-o", str(out), "-q", "-j", "1"]
    with tempfile.TemporaryDirectory(prefix="porter-cg-") as tmp:
        proc = subprocess.run(
            [valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", *cmd, "--force"],
            env=env,
            cwd=tree,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            check=False,
        )
    code = proc.returncode
    if code not in PORTER_OK:
        raise SystemExit(f"porter at {tree} exited {code}: {proc.stderr.decode()[-400:]}")
    counts = re.findall(rb"Collected : (\d+)", proc.stderr)
    if not counts:
        raise SystemExit(f"callgrind printed no count: {proc.stderr.decode()[-400:]}")
    return int(counts[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", help="the first commit (the baseline)")
    ap.add_argument("b", nargs="?", default="HEAD", help="the second commit (default: HEAD)")
    ap.add_argument("--rounds", type=int, default=8, help="runs of each commit (default: 8)")
    ap.add_argument("--input", type=Path, help="the tree to port (default: a copy of CCCL)")
    ap.add_argument(
        "--instructions",
        action="store_true",
        help="also count each commit's instructions once under valgrind's callgrind "
        "(deterministic; user space only; minutes per commit)",
    )
    args = ap.parse_args(argv)
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="porter-ab-") as tmp:
        work = Path(tmp)
        source = args.input or cccl_tree(work)
        trees = {}
        for side, rev in (("a", args.a), ("b", args.b)):
            trees[side] = work / side
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(ROOT),
                    "worktree",
                    "add",
                    "-q",
                    "--detach",
                    str(trees[side]),
                    rev,
                ],
                check=True,
            )
        try:
            for side in trees:
                # byte-compile each tree's modules, as pip does at install: a warm-up run
                # writes no bytecode under PYTHONDONTWRITEBYTECODE=1 (this VM sets it), and
                # every timed run then compiled porter's sources again (0.15-0.3 s each)
                subprocess.run(
                    [sys.executable, "-m", "compileall", "-q", str(trees[side] / "porter")],
                    check=True,
                    stdout=subprocess.DEVNULL,
                )
                cpu_of_port(trees[side], source, work / "out")
            times: dict[str, list[float]] = {"a": [], "b": []}
            for r in range(args.rounds):
                for side in ("a", "b") if r % 2 == 0 else ("b", "a"):
                    # each run into a folder of its own, as a user's first port: into a new
                    # folder, not over a tree written before (--force), which porter writes
                    # otherwise (each file through a temporary file and a rename)
                    out = work / f"out-{side}-{r}"
                    times[side].append(cpu_of_port(trees[side], source, out))
            if args.instructions:
                for side in trees:
                    counts[side] = instructions_of_port(trees[side], source, work / "out")
        finally:
            for side in trees:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees[side])],
                    check=False,
                )
    med = {s: statistics.median(t) for s, t in times.items()}
    for side, rev in (("a", args.a), ("b", args.b)):
        xs = sorted(times[side])
        print(f"{rev}: CPU min {xs[0]:.2f} s, median {med[side]:.2f} s  ({len(xs)} runs)")
    low = {s: min(t) for s, t in times.items()}
    print(
        f"{args.b} / {args.a}: medians {med['b'] / med['a']:.2f}, minima {low['b'] / low['a']:.2f}"
        " (the machine's noise only adds time: the minima are the steadier figure)"
    )
    if counts:
        for side, rev in (("a", args.a), ("b", args.b)):
            print(f"{rev}: {counts[side] / 1e9:.2f} G instructions (callgrind, user space)")
        print(f"{args.b} / {args.a}: instructions {counts['b'] / counts['a']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
