"""The vendor model (porter.analysis.vendor): one answer per byte, "compiled for AMD / NVIDIA /
both / unknown", for C++ `#if` switches and Python `if is_hip():` switches alike."""

from __future__ import annotations

import pytest

from porter.analysis.preproc import PPState
from porter.analysis.vendor import CppVendorModel, RegionVendorModel, Side


class _View:
    def __init__(self, data: bytes):
        self.data, self.root = data, None

    def in_comment_or_string(self, start: int, end: int) -> bool:  # no tree: never asked
        raise AssertionError("not called without a tree")


def _sides(text: str) -> dict[str, Side]:
    """Side of each line `X_<name>;` of a C++ snippet."""
    data = text.encode()
    model = CppVendorModel(PPState(_View(data)))
    out = {}
    for line in text.splitlines(keepends=True):
        if line.startswith("X_"):
            pos = data.index(line.encode())
            out[line.split(";")[0][2:]] = model.compiled(pos).side
    return out


@pytest.mark.parametrize(
    "text, want",
    [
        (
            "#ifdef __HIP_PLATFORM_AMD__\nX_a;\n#else\nX_n;\n#endif\n",
            {"a": Side.AMD, "n": Side.NVIDIA},
        ),
        # HIP on NVIDIA defines __HIP_PLATFORM_NVIDIA__, plain nvcc does not: NVIDIA side unknown
        (
            "#ifdef __HIP_PLATFORM_NVIDIA__\nX_n;\n#else\nX_a;\n#endif\n",
            {"n": Side.NVIDIA, "a": Side.UNKNOWN},
        ),
        (
            "#if defined(__HIPCC__) && defined(__HIP_PLATFORM_AMD__)\nX_a;\n#else\nX_n;\n#endif\n",
            {"a": Side.AMD, "n": Side.NVIDIA},
        ),
        ("#ifndef USE_ROCM\nX_n;\n#else\nX_a;\n#endif\n", {"n": Side.NVIDIA, "a": Side.AMD}),
        (
            (
                "#if defined(__HIP_PLATFORM_NVIDIA__)\nX_n;\n#elif defined(GGML_USE_HIP)\nX_a;\n"
                "#else\n"
                "X_z;\n#endif\n"
            ),
            {"n": Side.NVIDIA, "a": Side.AMD, "z": Side.NVIDIA},
        ),
        ("#if 0\nX_z;\n#endif\nX_b;\n", {"z": Side.NEITHER, "b": Side.BOTH}),
    ],
)
def test_cpp_sides(text, want):
    assert _sides(text) == want


def test_per_target_is_a_vendor_switch_left_undecided():
    data = (
        b"#ifdef FAST\n#ifdef __HIP_PLATFORM_AMD__\nX_a;\n#endif\n#endif\n"
        b"#if __AMDGCN_WAVEFRONT_SIZE == 64\nX_w;\n#else\nX_v;\n#endif\n"
    )
    model = CppVendorModel(PPState(_View(data)))
    a = model.compiled(data.index(b"X_a"))
    w, v = model.compiled(data.index(b"X_w")), model.compiled(data.index(b"X_v"))
    assert a.amd is None and a.switched and not a.per_target  # FAST is not a vendor test
    assert w.per_target and v.per_target and w.hands_off and not w.not_for_amd


def test_python_regions_answer_the_same_question():
    from porter.analysis.python import build
    from porter.parse.python import parse

    src = b"def f(x):\n    if is_hip():\n        a = 1\n    else:\n        b = 2\n    c = 3\n"
    model = RegionVendorModel(build(parse(src)).vendor_at)
    assert model.compiled(src.index(b"a = 1")).side is Side.AMD
    assert model.compiled(src.index(b"b = 2")).not_for_amd
    assert model.compiled(src.index(b"c = 3")).side is Side.BOTH
