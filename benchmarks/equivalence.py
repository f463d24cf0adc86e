#!/usr/bin/env python3
"""Does a change keep porter's output? Two commits of porter on the same inputs, compared.

A speed change must leave every output as it was. This script checks out two commits into
temporary git worktrees, ports each input with both (``porter port IN -o OUT -q -j 2 --no-cache
--format json --report R``, with and without ``--roc --unsafe-fixes``), and compares the ported
trees byte for byte, the JSON reports (without their timings) and the exit codes. It prints
``same`` or ``DIFF`` per input and option set, with the first differing files and findings, and
exits 1 when anything differs.

    python benchmarks/equivalence.py HEAD~1                # HEAD~1 against HEAD
    python benchmarks/equivalence.py A B --input src/ --input fixtures/

Default inputs: a copy of CCCL's CUB, Thrust and libcu++ sources (as port_speed.py), the
fixtures and the examples. The real-code corpus (benchmarks/corpus.py's cache) is a good
addition: ``--input ~/.cache/porter-corpus/src``.
"""

from __future__ import annotations

import argparse
import collections
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import EXAMPLE, FIXTURES, ROOT  # noqa: E402
from speed_ab import RUNNER, cccl_tree  # noqa: E402

OPTION_SETS = ((), ("--roc", "--unsafe-fixes"))
#: report fields that measure time, not output
TIMING_KEYS = frozenset({"elapsed", "duration", "seconds", "time", "generated", "timestamp"})
SHOWN = 5


def port(tree: Path, source: Path, out: Path, options: tuple[str, ...]) -> tuple[int, dict]:
    report = out.with_suffix(".json")
    shutil.rmtree(out, ignore_errors=True)  # a fresh output: nothing left of the last input
    report.unlink(missing_ok=True)
    cmd = [sys.executable, "-P", "-c", RUNNER, "port", str(source), "-o", str(out), "-q"]
    cmd += ["-j", "2", "--no-cache", "--force", "--format", "json", "--report", str(report)]
    done = subprocess.run(
        [*cmd, *options],
        env=dict(os.environ, PYTHONPATH=str(tree)),
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    data = json.loads(report.read_text()) if report.is_file() else {}
    return done.returncode, _without_timings(data)


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def tree_differences(a: Path, b: Path) -> list[str]:
    """Relative paths that differ between two ported trees (missing on one side included)."""
    out: list[str] = []

    def walk(cmp: filecmp.dircmp, rel: str) -> None:
        out.extend(f"{rel}{n} (one side only)" for n in cmp.left_only + cmp.right_only)
        _, mismatch, errors = filecmp.cmpfiles(cmp.left, cmp.right, cmp.common_files, shallow=False)
        out.extend(rel + n for n in mismatch + errors)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{rel}{name}/")

    walk(filecmp.dircmp(a, b), "")
    return out


def finding_differences(a: dict, b: dict) -> list[str]:
    def keys(report: dict) -> collections.Counter:
        return collections.Counter(
            json.dumps(f, sort_keys=True) for f in report.get("findings", [])
        )

    ka, kb = keys(a), keys(b)
    return [f"- {k}" for k in (ka - kb)] + [f"+ {k}" for k in (kb - ka)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", help="the first commit (the baseline)")
    ap.add_argument("b", nargs="?", default="HEAD", help="the second commit (default: HEAD)")
    ap.add_argument("--input", type=Path, action="append", help="an input tree (repeatable)")
    args = ap.parse_args(argv)
    same = True
    with tempfile.TemporaryDirectory(prefix="porter-eq-") as tmp:
        work = Path(tmp)
        inputs = args.input or [cccl_tree(work), FIXTURES, EXAMPLE.parent]
        trees = {}
        for side, rev in (("a", args.a), ("b", args.b)):
            trees[side] = work / side
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(trees[side])]
                + [rev],
                check=True,
            )
        try:
            for source in inputs:
                for options in OPTION_SETS:
                    got = {
                        side: port(trees[side], source.resolve(), work / f"out-{side}", options)
                        for side in trees
                    }
                    files = tree_differences(work / "out-a", work / "out-b")
                    found = finding_differences(got["a"][1], got["b"][1])
                    codes = got["a"][0] != got["b"][0]
                    summary = got["a"][1].get("summary") != got["b"][1].get("summary")
                    label = f"{source} {' '.join(options)}".strip()
                    if not (files or found or codes or summary):
                        print(f"same: {label}")
                        continue
                    same = False
                    print(f"DIFF: {label}")
                    if codes:
                        print(f"  exit codes {got['a'][0]} / {got['b'][0]}")
                    for line in files[:SHOWN]:
                        print(f"  file {line}")
                    for line in found[:SHOWN]:
                        print(f"  {line[:300]}")
                    if summary and not found:
                        print("  the summaries differ")
        finally:
            for side in trees:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees[side])],
                    check=False,
                )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
