"""Proof that ported Triton kernels work: compile them for gfx942 and gfx950 with the AMD backend
of the `triton` wheel (no GPU needed), and run them under TRITON_INTERPRET=1 on CPU tensors.

For every kernel of fixtures/triton and each target: the kernel "works" when it compiles, its LDS
use fits the target and its work-group fits 1024 threads. A kernel porter reports no error for
must work; a kernel that does not work must have an error-severity porter finding for that
target (for config lists: on the failing config's line). Compiled kernels are cached for the
session, and TRITON_CACHE_DIR is a temporary folder.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import uuid
from pathlib import Path

import pytest
from conftest import FIXTURES, need

from porter.engine import EngineOptions, process_one
from porter.findings import Severity
from porter.rewrite.cuda import PortOptions
from porter.rules.base import TARGETS, RuleOptions, parse_archs

ARCHS = ("gfx942", "gfx950")
MAX_THREADS = 1024
TRITON_DIR = FIXTURES / "triton"


def _have(mod: str) -> bool:
    return importlib.util.find_spec(mod) is not None


@pytest.fixture(scope="session")
def triton_env(tmp_path_factory):
    need(_have("triton"), "triton is not installed (pip install triton)")
    need(_have("torch"), "torch is not installed (pip install torch==2.13.0, the CPU wheel)")
    os.environ["TRITON_CACHE_DIR"] = str(tmp_path_factory.mktemp("triton-cache"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton  # noqa: F401

    return tmp_path_factory.mktemp("ported")


def port(name: str) -> tuple[bytes, list]:
    data = (TRITON_DIR / name).read_bytes()
    opts = EngineOptions(
        port=PortOptions(),
        rules=RuleOptions(parse_archs(",".join(ARCHS))),
        apply_fixes=True,
        rewrite=True,
    )
    res = process_one(name, data, opts, "python")
    assert not res.errors, res.errors
    return res.new_data, [f for f in res.findings if not f.extra.get("fixed")]


def load(folder: Path, name: str, text: bytes, interpret: bool = False):
    """Import a ported file as a fresh module (Triton's jit needs the source on disk)."""
    mod_name = f"ported_{Path(name).stem}_{uuid.uuid4().hex[:8]}"
    path = folder / f"{mod_name}.py"
    path.write_bytes(text)
    old = os.environ.get("TRITON_INTERPRET")
    if interpret:
        os.environ["TRITON_INTERPRET"] = "1"
    try:
        spec = importlib.util.spec_from_file_location(mod_name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = mod
        spec.loader.exec_module(mod)
    finally:
        if interpret:
            if old is None:
                os.environ.pop("TRITON_INTERPRET", None)
            else:
                os.environ["TRITON_INTERPRET"] = old
    return mod


_COMPILED: dict = {}


def compile_for(fn, signature: dict, constexprs: dict, arch: str, **options):
    """(works, why) for one kernel on one target; cached for the session."""
    key = (id(fn), tuple(sorted(constexprs.items())), arch, tuple(sorted(options.items())))
    if key in _COMPILED:
        return _COMPILED[key]
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    target = TARGETS[arch]
    try:
        k = triton.compile(
            ASTSource(fn, signature, constexprs=constexprs),
            target=GPUTarget("hip", arch, target.wave),
            options=options,
        )
    except Exception as exc:  # noqa: BLE001 - any compile failure is the answer
        out = (False, f"compile: {type(exc).__name__}: {str(exc)[:200]}")
    else:
        if k.metadata.shared > target.lds:
            out = (False, f"LDS {k.metadata.shared} > {target.lds}")
        elif k.metadata.num_warps * target.wave > MAX_THREADS:
            out = (False, f"{k.metadata.num_warps * target.wave} threads per work-group")
        else:
            out = (True, f"ok (LDS {k.metadata.shared})")
    _COMPILED[key] = out
    return out


def errors_for(findings, arch: str, line: int | None = None):
    return [
        f
        for f in findings
        if f.severity is Severity.ERROR
        and (not f.targets or arch in f.targets)
        and (line is None or f.line == line)
    ]


F32 = "*fp32"
KERNELS = [
    # file, kernel attribute, signature, constexprs, options
    (
        "vector_add.py",
        "add_kernel",
        {
            "x_ptr": F32,
            "y_ptr": F32,
            "out_ptr": F32,
            "n_elements": "i32",
            "BLOCK_SIZE": "constexpr",
        },
        {"BLOCK_SIZE": 1024},
        {},
    ),
    (
        "softmax.py",
        "softmax_kernel",
        {
            "out_ptr": F32,
            "in_ptr": F32,
            "in_stride": "i32",
            "out_stride": "i32",
            "n_cols": "i32",
            "BLOCK_SIZE": "constexpr",
        },
        {"BLOCK_SIZE": 1024},
        {"num_warps": 4},
    ),
    (
        "layer_norm.py",
        "layer_norm_fwd",
        {
            "x_ptr": F32,
            "y_ptr": F32,
            "w_ptr": F32,
            "b_ptr": F32,
            "stride": "i32",
            "n_cols": "i32",
            "eps": "fp32",
            "BLOCK_SIZE": "constexpr",
        },
        {"BLOCK_SIZE": 1024},
        {},
    ),
    (
        "libdevice_user.py",
        "gelu_tanh",
        {"x_ptr": F32, "y_ptr": F32, "n": "i32", "BLOCK": "constexpr"},
        {"BLOCK": 256},
        {},
    ),
    (
        "libdevice_user.py",
        "sign_bits",
        {"x_ptr": F32, "y_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"},
        {"BLOCK": 256},
        {},
    ),
    (
        "tensor_descriptor.py",
        "tile_copy",
        {"x_ptr": F32, "y_ptr": F32, "M": "i32", "N": "i32", "BM": "constexpr", "BN": "constexpr"},
        {"BM": 32, "BN": 32},
        {},
    ),
    ("inline_ptx.py", "which_sm", {"out_ptr": "*i32"}, {}, {}),
]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("case", KERNELS, ids=lambda c: f"{c[0]}:{c[1]}")
def test_ported_kernel_compiles_or_is_reported(triton_env, case, arch):
    name, attr, sig, cx, opts = case
    text, findings = port(name)
    mod = load(triton_env, name, text)
    works, why = compile_for(getattr(mod, attr), sig, cx, arch, **opts)
    errs = errors_for(findings, arch)
    if not works:
        assert errs, f"{name}:{attr} fails on {arch} ({why}) but porter reports no error"
    else:
        assert not errs or name == "libdevice_user.py", (
            f"{name}:{attr} works on {arch} but porter reports {[f.render() for f in errs]}"
        )


def test_original_cuda_libdevice_fails_and_port_fixes_it(triton_env):
    """PT663's claim, checked: the CUDA path does not compile for AMD, the rewritten one does."""
    name, attr, sig, cx, _ = KERNELS[2]
    orig = load(triton_env, name, (TRITON_DIR / name).read_bytes())
    # Triton's cache key is the kernel's source, which the port leaves alone: use a fresh cache
    cache = os.environ["TRITON_CACHE_DIR"]
    os.environ["TRITON_CACHE_DIR"] = str(triton_env / f"cache-{uuid.uuid4().hex[:8]}")
    try:
        assert not compile_for(getattr(orig, attr), sig, cx, "gfx942")[0]
    finally:
        os.environ["TRITON_CACHE_DIR"] = cache
    text, findings = port(name)
    assert b"from triton.language.extra import libdevice" in text
    assert not errors_for(findings, "gfx942")


MM_SIG = {
    "a_ptr": "*fp16",
    "b_ptr": "*fp16",
    "c_ptr": "*fp16",
    **{
        n: "i32"
        for n in [
            "M",
            "N",
            "K",
            "stride_am",
            "stride_ak",
            "stride_bk",
            "stride_bn",
            "stride_cm",
            "stride_cn",
        ]
    },
    "BLOCK_M": "constexpr",
    "BLOCK_N": "constexpr",
    "BLOCK_K": "constexpr",
}


@pytest.mark.parametrize("arch", ARCHS)
def test_matmul_configs(triton_env, arch):
    """Each config of the autotune list: it works on the target, or porter reports an error on
    its line for that target; and porter reports no error for a config that works."""
    name = "matmul_autotune.py"
    text, findings = port(name)
    mod = load(triton_env, name, text)
    lines = text.decode().splitlines()
    cfg_lines = [i + 1 for i, ln in enumerate(lines) if "triton.Config(" in ln]
    assert len(cfg_lines) == len(mod.CONFIGS)
    for line, cfg in zip(cfg_lines, mod.CONFIGS):
        works, why = compile_for(
            mod.matmul_kernel.fn,
            MM_SIG,
            dict(cfg.kwargs),
            arch,
            num_warps=cfg.num_warps,
            num_stages=cfg.num_stages,
        )
        errs = errors_for(findings, arch, line)
        assert works != bool(errs), (
            f"config line {line} on {arch}: {why}; porter: {[f.render() for f in errs]}"
        )


# -- the interpreter: ported kernels compute what the reference computes ------------------------
# TRITON_INTERPRET must be set before triton is imported (it patches triton.language), so the
# interpreter runs in one child process over all the ported kernels. libdevice calls do not run
# in the triton 3.9 interpreter (neither the CUDA path nor the vendor-neutral one), so the
# layer norm is proved by compilation only.
INTERPRET_SCRIPT = r"""
import importlib.util, sys, torch
torch.manual_seed(0)
folder = sys.argv[1]

def load(name):
    spec = importlib.util.spec_from_file_location(name, f"{folder}/{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod

mod = load("vector_add")
x, y = torch.randn(3000), torch.randn(3000)
torch.testing.assert_close(mod.add(x, y), x + y)
mod = load("softmax")
x = torch.randn(7, 100)
torch.testing.assert_close(mod.softmax(x), torch.softmax(x, dim=1))
mod = load("matmul_autotune")
a, b = torch.randn(48, 40, dtype=torch.float16), torch.randn(40, 56, dtype=torch.float16)
c = torch.empty(48, 56, dtype=torch.float16)
mod.matmul_kernel.fn[(4,)](a, b, c, 48, 56, 40, a.stride(0), a.stride(1), b.stride(0),
                           b.stride(1), c.stride(0), c.stride(1), BLOCK_M=32, BLOCK_N=32,
                           BLOCK_K=16)
torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=2e-2, atol=2e-2)
print("interpreted: vector_add softmax matmul")
"""


def test_interpreter_matches_reference(triton_env, tmp_path):
    """Ported kernels under TRITON_INTERPRET=1 on CPU tensors equal torch's reference."""
    import subprocess

    for name in ("vector_add", "softmax", "matmul_autotune"):
        text, _ = port(name + ".py")
        (tmp_path / f"{name}.py").write_bytes(text)
    env = dict(os.environ, TRITON_INTERPRET="1")
    proc = subprocess.run(
        [sys.executable, "-c", INTERPRET_SCRIPT, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "interpreted:" in proc.stdout


# -- tl.extra.cuda helpers behind tl.target_info.is_hip() (PT662's fix) ------------------------
class _ActiveTarget:
    """Stands in for the active driver of a machine with that GPU: `tl.target_info.is_hip()`
    asks `driver.active.get_current_target()` (triton 3.9 language/target_info.py), and a
    CPU-only machine has no active driver. Only get_current_target is used."""

    def __init__(self, target):
        self.target = target

    def get_current_target(self):
        return self.target


def compile_on(fn, signature: dict, constexprs: dict, backend: str, arch, warp: int):
    """Compile as the JIT would on a machine whose active GPU is (backend, arch)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime import driver

    target = GPUTarget(backend, arch, warp)
    saved = driver._active
    driver.set_active(_ActiveTarget(target))
    try:
        return triton.compile(
            ASTSource(fn, signature, constexprs=constexprs), target=target, options={"num_warps": 4}
        )
    finally:
        driver._active = saved


STAMP_SIG = {
    "start_ptr": "*i64",
    "info_ptr": "*i32",
    "x_ptr": F32,
    "n": "i32",
    "BLOCK": "constexpr",
}
NUM_WARPS = 4


def port_unsafe(name: str) -> tuple[bytes, list]:
    data = (TRITON_DIR / name).read_bytes()
    opts = EngineOptions(
        port=PortOptions(),
        rules=RuleOptions(parse_archs(",".join(ARCHS))),
        apply_fixes=True,
        rewrite=True,
        unsafe_fixes=True,
    )
    res = process_one(name, data, opts, "python")
    assert not res.errors, res.errors
    return res.new_data, [f for f in res.findings if not f.extra.get("fixed")]


def test_extra_cuda_helpers_ported_compile_for_amd(triton_env):
    """The original fails for AMD (PTX %globaltimer/%smid); the ported kernel compiles for
    gfx942 and gfx950 with AMD's helpers (s_memrealtime, s_getreg_b32) and num_threads is
    num_warps * 64, not * 32."""
    name = "extra_helpers.py"
    orig = load(triton_env, name, (TRITON_DIR / name).read_bytes())
    with pytest.raises(Exception, match="(?i)assembler|globaltimer|smid|ptx"):
        compile_on(orig.stamp, STAMP_SIG, {"BLOCK": 64}, "hip", "gfx942", 64)
    text, findings = port_unsafe(name)
    assert not errors_for(findings, "gfx942"), [f.render() for f in findings]
    assert text.count(b"tl.target_info.is_hip()") == 4
    assert b"tl.extra.cuda.num_warps()" in text  # portable: left as it is
    mod = load(triton_env, name, text)
    for arch in ARCHS:
        k = compile_on(mod.stamp, STAMP_SIG, {"BLOCK": 64}, "hip", arch, 64)
        asm = k.asm["amdgcn"]
        assert "s_memrealtime" in asm and "s_getreg_b32" in asm, arch
        assert f"arith.constant {NUM_WARPS * 64} : i32" in k.asm["ttir"], arch


def test_extra_cuda_helpers_nvidia_side_unchanged(triton_env):
    """On an NVIDIA target the ported kernel compiles to the original PTX helpers."""
    name = "extra_helpers.py"
    text, _ = port_unsafe(name)
    mod = load(triton_env, name, text)
    k = compile_on(mod.stamp, STAMP_SIG, {"BLOCK": 64}, "cuda", 90, 32)
    ptx = k.asm["ptx"]
    assert "%globaltimer" in ptx and "%smid" in ptx
    assert f"arith.constant {NUM_WARPS * 32} : i32" in k.asm["ttir"]


# -- PT679's facts: what the AMD backend makes of the PTX cache hints --------------------------
HINTS_SRC = """
import triton
import triton.language as tl


@triton.jit
def hinted(x_ptr, y_ptr, CM: tl.constexpr, EV: tl.constexpr, SCM: tl.constexpr,
           SEV: tl.constexpr):
    offs = tl.arange(0, 256)
    x = tl.load(x_ptr + offs, cache_modifier=CM, eviction_policy=EV)
    tl.store(y_ptr + offs, x, cache_modifier=SCM, eviction_policy=SEV)
"""


def _memory_ops(fn, arch: str, cm: str = "", ev: str = "", scm: str = "", sev: str = ""):
    """The (load, store) instruction of the kernel with its operands blanked out: what is left
    is the opcode and its cache-policy bits."""
    import re

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    sig = {
        "x_ptr": F32,
        "y_ptr": F32,
        "CM": "constexpr",
        "EV": "constexpr",
        "SCM": "constexpr",
        "SEV": "constexpr",
    }
    k = triton.compile(
        ASTSource(fn, sig, constexprs={"CM": cm, "EV": ev, "SCM": scm, "SEV": sev}),
        target=GPUTarget("hip", arch, 64),
    )
    ops = [
        ln.split(None, 1)
        for ln in k.asm["amdgcn"].splitlines()
        if re.match(r"\s*(global|buffer)_(load|store)", ln)
    ]
    bits = {
        op.split("_")[1]: tuple(t for t in re.split(r"[\s,]+", rest) if t in ("sc0", "sc1", "nt"))
        for op, rest in ops
    }
    return bits["load"], bits["store"]


@pytest.mark.parametrize("arch", ARCHS)
def test_cache_hints_as_pt679_says(triton_env, arch):
    from porter.rules.triton import _HINT_NOTES

    mod = load(triton_env, "hints.py", HINTS_SRC.encode())
    fn = mod.hinted
    none = _memory_ops(fn, arch)
    assert none == ((), ())
    # reported: .cg load = .cs load (non-temporal); .cg store and eviction policies: no bits
    assert _memory_ops(fn, arch, cm=".cg")[0] == _memory_ops(fn, arch, cm=".cs")[0] != ()
    assert _memory_ops(fn, arch, scm=".cg")[1] == ()
    for ev in ("evict_first", "evict_last"):
        assert _memory_ops(fn, arch, ev=ev, sev=ev) == none
    # not reported: the defaults stay default, the others keep distinct bits
    assert _memory_ops(fn, arch, cm=".ca") == none and _memory_ops(fn, arch, scm=".wb") == none
    assert len({_memory_ops(fn, arch, cm=c)[0] for c in ("", ".cs", ".cv")}) == 3
    assert len({_memory_ops(fn, arch, scm=c)[1] for c in ("", ".cs", ".wt")}) == 3
    assert {(k, v) for k, _, v in _HINT_NOTES} == {
        ("load", ".cg"),
        ("store", ".cg"),
        ("load", "evict_first"),
        ("load", "evict_last"),
        ("store", "evict_first"),
        ("store", "evict_last"),
    }
