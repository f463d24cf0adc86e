"""A finding's message that names its targets agrees with their number: `gfx942 runs 64-lane
wavefronts`, `gfx942, gfx90a run 64-lane wavefronts`. Checked on every CUDA and Python rule fixture
and Triton fixture (one target, then two) and on a PT101 case built for it."""

from __future__ import annotations

import re

import pytest
from conftest import FIXTURES

from porter.engine import EngineOptions, process_one
from porter.rewrite.cuda import PortOptions
from porter.rules.base import RuleOptions, parse_archs

#: a single architecture, the subject (not a list's last item, not `on gfx942`), followed by a verb
#: in the plural form (`gfx942 run 64-lane`)
PLURAL_VERBS = "run|schedule|have|support|lack|use|reject|need|execute|do|compute|accept|ignore"
SINGULAR_SUBJECT_PLURAL_VERB = re.compile(rf"(?<!, )(?<!on )(?<!/)\bgfx\w+ ({PLURAL_VERBS})\s")

CASE = b"""__global__ void k(int* out, int v) {
  int lane = threadIdx.x & 31;
  out[lane] = __shfl_sync(0xffffffff, v, 0);
}
"""


def _messages(data: bytes, archs: str, name: str = "k.cu", kind: str = "cuda") -> list[str]:
    opts = EngineOptions(
        port=PortOptions(rocm_version=(7, 2)),
        rules=RuleOptions(parse_archs(archs), (7, 2)),
        rewrite=False,
    )
    return [f.message for f in process_one(name, data, opts, kind).findings]


def test_pt101_says_runs_for_one_target_and_run_for_two():
    one = [m for m in _messages(CASE, "gfx942") if "32-lane warp" in m]
    two = [m for m in _messages(CASE, "gfx942,gfx90a") if "32-lane warp" in m]
    assert one and all("gfx942 runs 64-lane wavefronts" in m for m in one), one
    assert two and all("gfx942, gfx90a run 64-lane wavefronts" in m for m in two), two


@pytest.mark.parametrize("archs", ["gfx942", "gfx950", "gfx942,gfx1100", "gfx1100", "gfx90a"])
def test_no_single_target_takes_a_plural_verb(archs: str):
    kinds = {".cu": "cuda", ".cuh": "cuda", ".py": "python"}
    sources = sorted(p for p in (FIXTURES / "rules").iterdir() if p.suffix in kinds)
    sources += sorted((FIXTURES / "triton").rglob("*.py"))
    assert len(sources) > 150
    bad = [
        (p.name, m)
        for p in sources
        for m in _messages(p.read_bytes(), archs, p.name, kinds[p.suffix])
        if SINGULAR_SUBJECT_PLURAL_VERB.search(m)
    ]
    assert not bad, bad[:5]
    assert SINGULAR_SUBJECT_PLURAL_VERB.search("but gfx942 run 64-lane wavefronts")
    assert SINGULAR_SUBJECT_PLURAL_VERB.search("448 is the maximum; gfx942 compute fp8 as")
    assert not SINGULAR_SUBJECT_PLURAL_VERB.search("but gfx942, gfx90a run 64-lane wavefronts")
