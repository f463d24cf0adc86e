#!/usr/bin/env python3
"""Regenerate fixtures/port/<variant>/expected/ from input/ with porter itself.

Review the diff (`git diff fixtures/port`) before committing: the expected trees are the
reviewed reference that tests/test_port_fixtures.py holds porter to.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from porter.cli import main  # noqa: E402


def main_update() -> int:
    for variant in sorted((ROOT / "fixtures" / "port").iterdir()):
        if not (variant / "input").is_dir():
            continue
        args = shlex.split((variant / "args").read_text()) if (variant / "args").exists() else []
        out = variant / "expected"
        if out.exists():
            shutil.rmtree(out)
        rc = main(["port", str(variant / "input"), "-o", str(out), "-q", "-j", "1", *args])
        print(f"{variant.name}: exit {rc}")
    return 0


if __name__ == "__main__":
    sys.exit(main_update())
