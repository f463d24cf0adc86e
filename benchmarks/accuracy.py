#!/usr/bin/env python3
"""Does the ported code compile? porter against hipify-perl on real CUDA code.

The figure comes from the real-code corpus of benchmarks/corpus.py (pinned PyPI sdists that ship
CUDA, never porter's own fixtures, whose expected outputs porter wrote): both tools port the same
files with the same options, and every translation unit of both outputs is compiled for gfx942.
This script is ``corpus.py --units``: the per-package table, then every unit side by side.

    python benchmarks/accuracy.py                  # the whole corpus (20-30 min on 2 cores)
    python benchmarks/accuracy.py --quick          # one small package
    python benchmarks/accuracy.py --from-json corpus.json   # the tables of an earlier run
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    return corpus.main(["--units", *args])


if __name__ == "__main__":
    sys.exit(main())
