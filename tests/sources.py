"""The sources that the speed and shortcut tests compare two implementations on.

A faster replacement is checked against the implementation it replaces (kept in its test as the
reference) over many real and built texts: porter's own fixtures and examples, CUDA's headers
where the toolkit is installed, and seeded random and mutated texts. Each test adds its own
hand-written cases; the shared parts are here, so that every such test reads the same files the
same way.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from conftest import FIXTURES, ROOT

EXAMPLES = ROOT / "examples"
#: CUDA's own headers: a large body of real CUDA C++ (tests that read it skip nothing when it is
#: missing; they check fewer texts)
CUDA_INCLUDE = Path("/usr/local/cuda/include")
#: C, C++ and CUDA source and header names
C_SUFFIXES = frozenset({".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".inl"})


def repo_files(
    bases: Iterable[Path] = (FIXTURES, EXAMPLES), suffixes: Iterable[str] = C_SUFFIXES
) -> list[Path]:
    """The files under `bases` (porter's fixtures and examples by default) with one of
    `suffixes`, in a stable order."""
    suffixes = frozenset(suffixes)
    return [p for b in bases for p in sorted(b.rglob("*")) if p.suffix in suffixes and p.is_file()]


def cuda_headers(pattern: str = "**/*", suffixes: Iterable[str] | None = None) -> list[Path]:
    """CUDA's headers matching `pattern` under CUDA_INCLUDE (every file, or those with one of
    `suffixes`), sorted; none when the toolkit is not installed."""
    if not CUDA_INCLUDE.is_dir():
        return []
    found = sorted(p for p in CUDA_INCLUDE.glob(pattern) if p.is_file())
    return found if suffixes is None else [p for p in found if p.suffix in frozenset(suffixes)]


def random_texts(rnd: random.Random, pieces: Sequence[bytes], count: int, most: int) -> list[bytes]:
    """`count` texts of 1 to `most` pieces drawn from `pieces`."""
    return [b"".join(rnd.choice(pieces) for _ in range(rnd.randint(1, most))) for _ in range(count)]


def mutated(
    rnd: random.Random, texts: Sequence[bytes], pieces: Sequence[bytes], count: int
) -> list[bytes]:
    """`count` texts drawn from `texts`, each with 1 to 4 edits: a few bytes cut out, or a piece
    pasted in."""
    out = []
    for _ in range(count):
        data = bytearray(rnd.choice(texts))
        for _ in range(rnd.randint(1, 4)):
            at = rnd.randint(0, len(data))
            if rnd.random() < 0.5:
                del data[at : at + rnd.randint(1, 6)]
            else:
                data[at:at] = rnd.choice(pieces)
        out.append(bytes(data))
    return out
