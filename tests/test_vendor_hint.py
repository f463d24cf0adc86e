"""shims.names_amd (a search per word, `gfx<digit>` in the lowered text) answers as the
regex it replaced (AMD_HINT, kept here as the reference), on every fixture's and example's
identifiers and on built and seeded random texts (every case of `gfx`, digits or not after it,
the words at the edges)."""

from __future__ import annotations

import random
import re

from conftest import FIXTURES, ROOT

from porter.rewrite.lex import identifiers
from porter.rewrite.shims import names_amd

AMD_HINT = re.compile(rb"HIP|ROCM|ROCm|AMD|[gG][fF][xX]\d")

BUILT = [
    b"",
    b"HIP",
    b"x\nROCm_y",
    b"ROCM",
    b"__AMDGCN__",
    b"hip\nrocm\namd",  # lower case words are no hint
    b"GFX9",
    b"gFx1100",
    b"gfx",
    b"gfxA",
    b"xgfx9",
    b"gf\nx9",
    b"\xe9gfx9",
]


def _texts() -> list[bytes]:
    rnd = random.Random(11)
    out = list(BUILT)
    for p in sorted([*FIXTURES.rglob("*"), *(ROOT / "examples").rglob("*")]):
        if p.is_file() and p.suffix in {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc"}:
            out.append(b"\n".join(sorted(identifiers(p.read_bytes()))))
    pieces = [
        b"g",
        b"G",
        b"f",
        b"F",
        b"x",
        b"X",
        b"9",
        b"1",
        b"HI",
        b"P",
        b"RO",
        b"Cm",
        b"AM",
        b"D",
    ]
    out += [b"".join(rnd.choice(pieces) for _ in range(rnd.randrange(1, 12))) for _ in range(3000)]
    return out


def test_names_amd_is_the_regex():
    texts = _texts()
    assert any(AMD_HINT.search(t) for t in texts) and not all(AMD_HINT.search(t) for t in texts)
    for t in texts:
        assert names_amd(t) == (AMD_HINT.search(t) is not None), t
