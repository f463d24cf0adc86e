"""Triton (Python) rules: PT661-PT681 (hazards.md section L).

Rules read `ctx.py_facts`, the `porter.analysis.python.PyFacts` of the file (aliases, kernels,
vendor regions, references, folded configs and launches, CUDA C++ carriers). Findings on the
NVIDIA side of a vendor switch are dropped by the Python pipeline (`porter.rewrite.python`), so
rules report what the code does without asking.
Sources for the facts: the installed triton 3.9 wheel (`backends/amd/compiler.py` HIPOptions and
parse_options; `language/extra/{cuda,hip}`), quoted per rule.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from ..findings import Applicability, Edit, Finding, Severity
from .base import Rule, RuleContext
from .registry import register

if TYPE_CHECKING:
    from ..analysis.python import ConfigValue, PyFacts

MAX_THREADS_PER_BLOCK = 1024  # HIP and CUDA workgroup limit (hazards.md TRITON-NUM-WARPS)
AMD_DEFAULT_NUM_STAGES = 2  # HIPOptions.num_stages (triton 3.9 backends/amd/compiler.py)
HOPPER_STAGES = 3  # num_stages from here on is an NVIDIA (Hopper+) tuning
BYTES_2 = 2  # fp16/bf16 element, the common tl.dot input


def _kw(call: ast.Call, name: str) -> ast.AST | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


class PyRule(Rule):
    languages = ("python",)
    needs_tree = False
    triggers: tuple[bytes, ...] = (b"triton",)

    def at(self, ctx: RuleContext, node: ast.AST, message: str, **kw) -> Finding:
        return self.finding(ctx, ctx.py_facts.span(node), message, **kw)


# -- PT661 -----------------------------------------------------------------------------------
# PTX opcodes (with their type suffix) and special registers; AMDGCN mnemonics use underscores
# (v_add_f32, s_memrealtime) and never `op.type`. Source: PTX ISA instruction names; Triton's
# CUDA extras (`mov.u64 $0, %globaltimer;`) versus its HIP extras (`s_memrealtime`).
_PTX = re.compile(
    r"\b(?:mov|cvt|cvta|prmt|lop3|shf|ld|st|setp|selp|fma|add|sub|mul|mad|min|max|"
    r"and|or|xor|not|shl|shr|bfe|bfi|brev|popc|clz|ex2|lg2|rcp|rsqrt|sqrt|tanh|sin|"
    r"cos|red|atom|shfl|vote|bar|membar|fence|cp|mma|wgmma|ldmatrix|stmatrix|div|"
    r"neg|abs|sad|testp|copysign|isspacep|mbarrier|tcgen05|elect|griddepcontrol)"
    r"\.[a-z0-9]+"
    r"|%(?:globaltimer|smid|nsmid|laneid|warpid|clock64|clock|tid|ctaid|lanemask_\w+)"
    r"|\.reg\s+\."
)


@register
class TritonInlineAsmPtx(PyRule):
    """Inline PTX in `tl.inline_asm_elementwise`.

    ## What it finds
    `tl.inline_asm_elementwise(asm=...)` whose assembly string is PTX (`mov.u32`, `cvt.rn`,
    `prmt.b32`, `%globaltimer`, `.reg .b32`).

    ## Why it breaks on AMD
    The assembly string goes to the backend's assembler as is. The AMD backend assembles AMDGCN
    (Triton's own HIP helpers use `s_memrealtime`, `s_getreg_b32`), so a PTX string fails to
    compile on every AMD target.

    ## Example
    ```python
    y = tl.inline_asm_elementwise("cvt.rn.f16x2.f32 $0, $2, $1;", "=r,r,r", [a, b],
                                  dtype=tl.int32, is_pure=True, pack=1)
    ```

    ## Use instead
    Plain `tl` operations (`x.to(tl.float16)`, `tl.math`), or choose the string per vendor with a
    constexpr flag set from `is_hip()` and write AMDGCN for the AMD side.

    ## References
    - triton 3.9 wheel: `language/extra/cuda/utils.py` (PTX) and `language/extra/hip/utils.py`
      (AMDGCN)
    - hazards.md TRITON-INLINE-ASM-PTX
    """

    code = "PT661"
    name = "triton-inline-asm-ptx"
    severity = Severity.ERROR
    triggers = (b"inline_asm_elementwise",)

    def check(self, ctx):
        from ..analysis.python import fold

        facts = ctx.py_facts
        for call in ast.walk(facts.src.tree):
            if not (
                isinstance(call, ast.Call)
                and (facts.qualname(call.func) or dotted_last(call.func)).endswith(
                    "inline_asm_elementwise"
                )
            ):
                continue
            arg = _kw(call, "asm") or (call.args[0] if call.args else None)
            if arg is None:
                continue
            text = fold(facts, arg)
            if not isinstance(text, str):
                continue
            m = _PTX.search(text)
            if m and facts.vendor_of(call) != "amd":
                yield self.at(
                    ctx,
                    arg,
                    f"inline assembly is PTX (`{m.group(0)}`); the AMD "
                    "backend assembles AMDGCN: use tl operations or AMDGCN asm on the "
                    "AMD side of a vendor switch",
                )


def dotted_last(node: ast.AST) -> str:
    from ..parse.python import dotted

    return dotted(node) or ""


# -- PT662 -----------------------------------------------------------------------------------
_EXTRA_CUDA = "triton.language.extra.cuda."
_EXTRA_HIP = "triton.language.extra.hip"
# NVIDIA helper -> (AMD helper in triton.language.extra.hip, fix applicability, what differs).
# Facts: the triton 3.9 wheel's language/extra/cuda/utils.py (PTX `%globaltimer` in ns, `%smid`,
# num_threads = num_warps * 32) and language/extra/hip/utils.py (`s_memrealtime`: a constant-rate
# counter in ticks; `smid` from HW_REG_HW_ID: CU id, unique only within one XCC on gfx942/gfx950;
# num_threads = num_warps * warp_size). The AMD names are checked against the installed wheel
# (`hip_helpers()`), so a fix is offered only for helpers that exist there.
_EXTRA_CUDA_TO_HIP = {
    "num_threads": (
        "num_threads",
        Applicability.SAFE,
        "the CUDA helper returns num_warps * 32, wrong at wavefront 64; the HIP one "
        "returns num_warps * warp_size",
    ),
    "globaltimer": (
        "memrealtime",
        Applicability.UNSAFE,
        "memrealtime counts ticks of a constant-rate clock, not nanoseconds: scale "
        "differences before reporting them as time",
    ),
    "smid": (
        "smid",
        Applicability.UNSAFE,
        "the HIP smid is the compute-unit id within one XCC (not unique across the device "
        "on gfx942/gfx950)",
    ),
}
_EXTRA_CUDA_NO_AMD = {
    "gdc_wait": "programmatic dependent launch has no AMD counterpart: skip it on AMD "
    "(`if not tl.target_info.is_hip():`)",
    "gdc_launch_dependents": "programmatic dependent launch has no AMD counterpart: skip it on "
    "AMD (`if not tl.target_info.is_hip():`)",
}
# same value on every backend: both modules' num_warps return options.num_warps (triton 3.9)
_PORTABLE_HELPERS = ("num_warps",)
# tl.target_info.is_hip() (a constexpr_function, resolved when the kernel is compiled) exists
# from Triton 3.5 (triton-lang/triton pull requests 7802 and 7869)
TARGET_INFO_SINCE = (3, 5)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:2])


def _tl_alias(facts) -> str | None:
    """How the file can name triton.language: its alias, or `triton.language`."""
    for alias, full in sorted(facts.aliases.items()):
        if full == "triton.language":
            return alias
    if facts.aliases.get("triton") == "triton":
        return "triton.language"
    return None


@register
class TritonExtraCudaApi(PyRule):
    """NVIDIA helpers from `triton.language.extra.cuda`.

    ## What it finds
    `tl.extra.cuda.globaltimer()`, `smid()`, `num_threads()`, `gdc_wait()` and
    `gdc_launch_dependents()` (called through `tl.extra.cuda` or imported from
    `triton.language.extra.cuda`); libdevice: PT663/PT664; fp8 converters: PT675; the
    experimental TMA helpers: PT665. `tl.extra.cuda.num_warps()` is not reported: it returns
    the launch's `num_warps` on every backend, as `tl.extra.hip.num_warps()` does.

    ## Why it breaks on AMD
    `globaltimer` and `smid` are PTX (`%globaltimer`, `%smid`) and fail to compile for AMD;
    `num_threads` compiles but returns `num_warps * 32`, half the real count at wavefront 64;
    `gdc_*` are PTX `griddepcontrol` (programmatic dependent launch), which AMD does not have.
    AMD's module `triton.language.extra.hip` has `memrealtime`, `smid`, `num_threads`.

    ## Example
    ```python
    start = tl.extra.cuda.globaltimer()
    ```

    ## Use instead
    ```python
    start = (tl.extra.hip.memrealtime() if tl.target_info.is_hip()
             else tl.extra.cuda.globaltimer())
    ```
    and drop PDL on AMD (`if not tl.target_info.is_hip(): tl.extra.cuda.gdc_wait()`).

    ## Fix safety
    The fix wraps the call in a conditional expression on `tl.target_info.is_hip()`: a
    `constexpr_function` that Triton evaluates when it compiles the kernel, so the compiler
    keeps only the branch of the target it compiles for (a constexpr condition selects one
    side, the other is never generated) and the NVIDIA side is the original call, unchanged.
    A host-side switch would need a driver at import time (none on CPU-only machines) or a new
    kernel argument at every launch; this one needs neither. `is_hip()` asks the active driver,
    which is the compile target for JIT-compiled kernels (ahead-of-time compilation for the
    other vendor's target, on a machine whose driver is this vendor's, would take the wrong
    side); Triton includes the target in its cache key. It needs Triton 3.5 or later, so the
    fix is offered only when the installed triton is at least 3.5. `num_threads` is safe (the
    AMD helper returns what the name promises); `globaltimer` -> `memrealtime` (ticks, not
    nanoseconds) and `smid` (unique within one XCC only) are unsafe, applied with
    `--unsafe-fixes`. `gdc_*` get no fix.

    ## References
    - triton 3.9 wheel: `language/extra/cuda/utils.py`, `language/extra/hip/utils.py`,
      `language/target_info.py`, `compiler/code_generator.py` (`visit_IfExp`)
    - https://github.com/triton-lang/triton/pull/7869 (`tl.target_info`)
    - hazards.md TRITON-EXTRA-CUDA-API
    """

    code = "PT662"
    name = "triton-extra-cuda-api"
    severity = Severity.ERROR
    fix = Applicability.SAFE  # the best of its fixes (num_threads; timers are unsafe)
    triggers = (b"cuda",)

    def check(self, ctx):
        from ..analysis.python import hip_helpers, libdevice_lists

        facts = ctx.py_facts
        tl = _tl_alias(facts)
        lists = libdevice_lists()
        new_enough = _version_tuple(lists["triton_version"]) >= TARGET_INFO_SINCE
        cuda_helpers = set(lists.get("cuda_helpers", ()))
        for node, q in facts.refs:
            if not q.startswith(_EXTRA_CUDA):
                continue
            fn = q[len(_EXTRA_CUDA) :].split(".")[0]
            if fn in _EXTRA_CUDA_NO_AMD:
                yield self.at(
                    ctx,
                    node,
                    f"`{fn}` is an NVIDIA helper of "
                    f"triton.language.extra.cuda: {_EXTRA_CUDA_NO_AMD[fn]}",
                )
                continue
            if fn not in _EXTRA_CUDA_TO_HIP:
                # other helpers of the installed wheel (fp8 converters: PT675; num_warps is
                # portable): the AMD module's same-named helper, or none
                if (
                    fn in cuda_helpers
                    and fn not in _PORTABLE_HELPERS
                    and not fn.startswith("convert_")
                ):
                    other = (
                        f"AMD has `{_EXTRA_HIP}.{fn}()`"
                        if fn in hip_helpers()
                        else f"{_EXTRA_HIP} has no counterpart"
                    )
                    yield self.at(
                        ctx,
                        node,
                        f"`{fn}` is an NVIDIA helper of triton.language.extra.cuda; {other}",
                    )
                continue
            hip_fn, applicability, differs = _EXTRA_CUDA_TO_HIP[fn]
            par = facts.parent(node)
            fix = None
            if (
                isinstance(par, ast.Call)
                and par.func is node
                and not par.args
                and not par.keywords
                and tl is not None
                and new_enough
                and hip_fn in hip_helpers()
            ):
                s, e = facts.span(par)
                orig = facts.src.buf[s:e].decode("utf-8")
                text = f"({tl}.extra.hip.{hip_fn}() if {tl}.target_info.is_hip() else {orig})"
                fix = self.make_fix(
                    [Edit(s, e, text.encode("utf-8"))],
                    applicability,
                    f"use tl.extra.hip.{hip_fn}() when compiling for AMD",
                )
            where = par if fix is not None else node
            yield self.at(
                ctx,
                where,
                f"`{fn}` is an NVIDIA helper of triton.language.extra.cuda; "
                f"AMD has `triton.language.extra.hip.{hip_fn}()` ({differs})",
                fix=fix,
            )


# -- PT663 / PT664 ---------------------------------------------------------------------------
_CUDA_LIBDEVICE = "triton.language.extra.cuda.libdevice"
_GENERIC_LIBDEVICE = "triton.language.extra.libdevice"
_ADDED_IMPORT = b"import triton.language.extra.libdevice  # porter: vendor-neutral libdevice\n"


def libdevice_uses(facts) -> list[tuple[ast.AST, str, str]]:
    """(node, module, function) for every libdevice function reference."""
    out = []
    for node, q in facts.refs:
        for mod in (_CUDA_LIBDEVICE, _GENERIC_LIBDEVICE):
            if q.startswith(mod + "."):
                out.append((node, mod, q[len(mod) + 1 :].split(".")[0]))
    return out


def _insert_point(facts) -> int:
    """After the last top-level import of a triton module (byte offset of the next line)."""
    last = None
    for stmt in facts.src.tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names = (
                [a.name for a in stmt.names]
                if isinstance(stmt, ast.Import)
                else [stmt.module or ""]
            )
            if any(n == "triton" or n.startswith("triton.") for n in names):
                last = stmt
    if last is None:
        return -1
    end = facts.span(last)[1]
    nl = facts.src.buf.find(b"\n", end)
    return len(facts.src.buf) if nl < 0 else nl + 1


@register
class TritonLibdeviceCuda(PyRule):
    """CUDA libdevice imported by its CUDA path.

    ## What it finds
    `from triton.language.extra.cuda import libdevice`,
    `import triton.language.extra.cuda.libdevice` and `tl.extra.cuda.libdevice.f(...)`.

    ## Why it breaks on AMD
    The AMD backend maps only the vendor-neutral module `triton.language.extra.libdevice` to its
    own libdevice (`HIPBackend.get_module_map`); the CUDA path calls NVIDIA's `__nv_*` functions,
    which do not exist on AMD.

    ## Example
    ```python
    from triton.language.extra.cuda import libdevice
    y = libdevice.tanh(x)
    ```

    ## Use instead
    `from triton.language.extra import libdevice`: NVIDIA maps it to the same CUDA functions,
    AMD to its own.

    ## Fix safety
    Safe, and offered only when every libdevice function the file uses exists in the AMD
    libdevice of the installed triton (the lists are read from the wheel's two libdevice
    modules); otherwise PT664 names the missing functions and nothing is rewritten. For
    `tl.extra.cuda.libdevice.f` chains porter also adds `import triton.language.extra.libdevice`
    after the file's triton imports, so that `tl.extra.libdevice` exists.

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (`get_module_map`),
      `language/extra/libdevice.py`
    - hazards.md TRITON-LIBDEVICE-IMPORT
    """

    code = "PT663"
    name = "triton-libdevice-cuda-path"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = (b"libdevice",)

    def check(self, ctx):
        from ..analysis.python import libdevice_lists

        facts = ctx.py_facts
        uses = [u for u in libdevice_uses(facts) if u[1] == _CUDA_LIBDEVICE]
        sites = _cuda_libdevice_sites(facts)
        if not sites:
            return
        hip = set(libdevice_lists()["hip"])
        missing = sorted({fn for _, _, fn in uses if fn not in hip})
        added = False
        for node, edits, needs_import in sites:
            if missing:
                yield self.at(
                    ctx,
                    node,
                    "CUDA libdevice path; not rewritten to "
                    "triton.language.extra.libdevice because the AMD libdevice lacks "
                    f"{', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''} "
                    "(PT664)",
                )
                continue
            if needs_import and not added and facts.aliases.get("triton", "triton") == "triton":
                pos = _insert_point(facts)
                if pos < 0:
                    continue
                edits = edits + [Edit(pos, pos, _ADDED_IMPORT)]
                added = True
            fix = self.make_fix(
                edits, Applicability.SAFE, "use the vendor-neutral triton.language.extra.libdevice"
            )
            yield self.at(
                ctx,
                node,
                "CUDA libdevice path: AMD maps only "
                "triton.language.extra.libdevice to its own libdevice",
                fix=fix,
            )


def _cuda_libdevice_sites(facts) -> list[tuple[ast.AST, list[Edit], bool]]:
    """Import statements and attribute chains naming the CUDA libdevice, with the edits that make
    them vendor-neutral, and whether the edit needs `triton.language.extra.libdevice` imported."""
    buf = facts.src.buf
    sites: list[tuple[ast.AST, list[Edit], bool]] = []

    def replace_in(node: ast.AST, old: bytes, new: bytes) -> list[Edit]:
        s, e = facts.span(node)
        i = buf.find(old, s, e)
        return [Edit(i, i + len(old), new)] if i >= 0 else []

    for node in ast.walk(facts.src.tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module == "triton.language.extra.cuda" and all(
                a.name == "libdevice" for a in node.names
            ):
                ed = replace_in(node, b"triton.language.extra.cuda", b"triton.language.extra")
                if ed:
                    sites.append((node, ed, False))
            elif node.module.startswith(_CUDA_LIBDEVICE) and node.module[
                len(_CUDA_LIBDEVICE) :
            ] in ("",):
                ed = replace_in(node, _CUDA_LIBDEVICE.encode(), _GENERIC_LIBDEVICE.encode())
                if ed:
                    sites.append((node, ed, False))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == _CUDA_LIBDEVICE and a.asname:
                    ed = replace_in(node, _CUDA_LIBDEVICE.encode(), _GENERIC_LIBDEVICE.encode())
                    if ed:
                        sites.append((node, ed, False))
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "cuda"
            and facts.qualname(node) == "triton.language.extra.cuda"
        ):
            par = facts.parent(node)
            if isinstance(par, ast.Attribute) and par.attr == "libdevice":
                _, ve = facts.span(node.value)
                _, e = facts.span(node)
                sites.append((node, [Edit(ve, e, b"")], True))
    # a fallback import in an `except ImportError:` handler is already vendor-aware code
    sites = [s for s in sites if not _in_import_fallback(facts, s[0])]
    sites.sort(key=lambda s: facts.span(s[0]))
    return sites


def _in_import_fallback(facts, node: ast.AST) -> bool:
    cur = facts.parent(node)
    while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.Module)):
        if isinstance(cur, ast.ExceptHandler):
            names = {dotted_last(n) for n in ast.walk(cur.type)} if cur.type else {""}
            if names & {"ImportError", "ModuleNotFoundError", "AttributeError", ""}:
                return True
        cur = facts.parent(cur)
    return False


# Portable replacements for libdevice functions the AMD libdevice lacks. Facts: `tl.math` in the
# triton 3.9 wheel (`language/math.py`: div_rn, sqrt_rn, fma, umulhi ...), `tl.clamp`, and the
# bitcast form of `.to()` (`language/core.py`).
_BITCASTS = {
    "float_as_int": "x.to(tl.int32, bitcast=True)",
    "int_as_float": "x.to(tl.float32, bitcast=True)",
    "float_as_uint": "x.to(tl.uint32, bitcast=True)",
    "uint_as_float": "x.to(tl.float32, bitcast=True)",
    "double_as_longlong": "x.to(tl.int64, bitcast=True)",
    "longlong_as_double": "x.to(tl.float64, bitcast=True)",
}
_REPLACE = {
    "add_rn": "a + b (round-to-nearest is the default)",
    "sub_rn": "a - b",
    "mul_rn": "a * b",
    "dadd_rn": "a + b",
    "dmul_rn": "a * b",
    "fma_rn": "tl.math.fma(a, b, c)",
    "rcp_rn": "tl.math.div_rn(1.0, x)",
    "saturatef": "tl.clamp(x, 0.0, 1.0)",
    "exp10": "tl.exp2(x * 3.321928094887362) (log2(10); not correctly rounded)",
    "mulhi": "tl.math.umulhi for unsigned operands",
    "fast_logf": "tl.log(x)",
    "fast_log2f": "tl.log2(x)",
    "fast_sinf": "tl.sin(x)",
    "fast_cosf": "tl.cos(x)",
    "fast_exp10f": "tl.exp2(x * 3.321928094887362)",
}


def replacement(fn: str, math_names: set[str]) -> str | None:
    if fn in _BITCASTS:
        return _BITCASTS[fn]
    if fn in _REPLACE:
        return _REPLACE[fn]
    if fn in math_names:
        return f"tl.math.{fn}"
    return None


@register
class TritonLibdeviceMissing(PyRule):
    """libdevice functions the AMD libdevice does not have.

    ## What it finds
    Calls of libdevice functions (through `triton.language.extra.libdevice` or the CUDA path)
    that the AMD libdevice module of the installed triton does not define: directed rounding
    (`add_rz`, `div_rd` ...), `cbrt`, `erfcinv`, `mulhi`, `brev`, most `fast_*`,
    `float_as_int` and friends.

    ## Why it breaks on AMD
    On AMD `triton.language.extra.libdevice` resolves to `triton.language.extra.hip.libdevice`,
    which defines far fewer functions than the CUDA module (triton 3.9: 59 against 197); a
    missing one fails to compile.

    ## Example
    ```python
    bits = libdevice.float_as_int(x)
    ```

    ## Use instead
    The replacement in the message where one exists: `tl.math` functions, bitcasts
    (`x.to(tl.int32, bitcast=True)`), or a composed formula.

    ## References
    - triton wheel: `language/extra/cuda/libdevice.py`, `language/extra/hip/libdevice.py`
      (the lists are read from the installed wheel at run time)
    - hazards.md TRITON-LIBDEVICE-MISSING-FN
    """

    code = "PT664"
    name = "triton-libdevice-missing-on-amd"
    severity = Severity.ERROR
    triggers = (b"libdevice",)

    def check(self, ctx):
        from ..analysis.python import libdevice_lists

        facts = ctx.py_facts
        lists = libdevice_lists()
        hip, math_names = set(lists["hip"]), set(lists["math"])
        known = set(lists["cuda"]) | set(lists["generic"])
        for node, _mod, fn in libdevice_uses(facts):
            if fn in hip or fn not in known:
                continue
            par = facts.parent(node)
            if isinstance(node, ast.Name) and not (isinstance(par, ast.Call) and par.func is node):
                continue
            rep = replacement(fn, math_names)
            tail = f"; use {rep}" if rep else "; no portable replacement in tl"
            yield self.at(
                ctx,
                node,
                f"libdevice.{fn} does not exist in the AMD libdevice "
                f"(triton {lists['triton_version']}){tail}",
            )


# -- PT665 -----------------------------------------------------------------------------------
_TMA_OLD = (
    "triton.language._experimental_descriptor_load",
    "triton.language._experimental_descriptor_store",
    "triton.tools.experimental_descriptor",
    "triton.language.extra.cuda.experimental_device_tensormap_create1d",
    "triton.language.extra.cuda.experimental_device_tensormap_create2d",
    "triton.language.extra.cuda.experimental_tensormap_fenceproxy_acquire",
    "triton.language.extra.cuda._experimental_tma",
)
# the stable descriptor API: a branch that uses it beside one that uses the old API is a Triton
# version switch (PyTorch's triton_kernel_wrap.py picks the API from the kernel's metadata)
_TMA_STABLE = (
    "triton.language.make_tensor_descriptor",
    "triton.tools.tensor_descriptor",
    "triton.language.load_tensor_descriptor",
    "triton.language.store_tensor_descriptor",
)
_PROBE_ERRORS = {"ImportError", "ModuleNotFoundError", "AttributeError"}


@register
class TritonTmaExperimental(PyRule):
    """The pre-3.4 experimental TMA APIs.

    ## What it finds
    `tl._experimental_descriptor_load/store`,
    `triton.tools.experimental_descriptor.create_1d/2d_tma_descriptor`,
    `tl.extra.cuda.experimental_device_tensormap_create1d/2d`.

    Not reported: a use in one branch of an `if`/`else` (or conditional expression) whose other
    branch uses the stable API (`tl.make_tensor_descriptor`, `triton.tools.tensor_descriptor`):
    that is a Triton-version switch, and current Triton takes the stable side; a use in the
    `try:` body of an import probe (`except ImportError`/`AttributeError`) or in its fallback
    handler; and code behind PyTorch's `has_triton_tma*()` probes, which return False on ROCm
    (`torch/utils/_triton.py` requires `not torch.version.hip`), so that code is the NVIDIA side
    of a vendor switch.

    ## Why it breaks on AMD
    They build a `CUtensorMap` through the NVIDIA driver and have no HIP path; they are also gone
    from current Triton (absent from the 3.9 wheel).

    ## Example
    ```python
    desc = triton.tools.experimental_descriptor.create_2d_tma_descriptor(x.data_ptr(), M, K,
                                                                          BM, BK, 2)
    ```

    ## Use instead
    The stable tensor descriptors (`tl.make_tensor_descriptor`,
    `triton.tools.tensor_descriptor.TensorDescriptor`), block pointers or pointer arithmetic.

    ## References
    - hazards.md TRITON-TMA-EXPERIMENTAL (Triton history; PyTorch `torch/utils/_triton.py`)
    """

    code = "PT665"
    name = "triton-tma-experimental"
    severity = Severity.ERROR
    triggers = (b"experimental", b"has_triton_tma")

    def check(self, ctx):
        facts = ctx.py_facts
        for node, q in facts.refs:
            if any(q == p or q.startswith(p + ".") for p in _TMA_OLD) and not _tma_switch_or_probe(
                facts, node
            ):
                yield self.at(
                    ctx,
                    node,
                    f"`{q.rsplit('.', 1)[-1]}` is the old experimental TMA "
                    "API (NVIDIA driver, no HIP path, removed in current Triton); use "
                    "tl.make_tensor_descriptor or block pointers",
                )
        for node in ast.walk(facts.src.tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("triton.tools.experimental_descriptor")
                and not _tma_switch_or_probe(facts, node)
            ):
                yield self.at(
                    ctx,
                    node,
                    "triton.tools.experimental_descriptor is the old "
                    "experimental TMA API; use tl.make_tensor_descriptor",
                )


def _uses_stable_tma(facts, nodes: list) -> bool:
    """Whether statements/expressions use the stable descriptor API (import or reference)."""
    for top in nodes:
        for n in ast.walk(top):
            if isinstance(n, ast.ImportFrom) and n.module and not n.level:
                names = [n.module] + [f"{n.module}.{a.name}" for a in n.names]
            elif isinstance(n, ast.Import):
                names = [a.name for a in n.names]
            elif isinstance(n, (ast.Name, ast.Attribute)):
                names = [facts.qualname(n) or ""]
            else:
                continue
            if any(m == p or m.startswith(p + ".") for m in names for p in _TMA_STABLE):
                return True
    return False


def _tma_switch_or_probe(facts, node: ast.AST) -> bool:
    """`node` sits in one branch of a switch whose other branch uses the stable API, or in an
    import probe (`try:` body or handler of `except ImportError/AttributeError`)."""
    cur, par = node, facts.parent(node)
    while par is not None and not isinstance(par, ast.Module):
        if isinstance(par, (ast.If, ast.IfExp)):
            body = par.body if isinstance(par.body, list) else [par.body]
            orelse = par.orelse if isinstance(par.orelse, list) else [par.orelse]
            if (
                cur in body
                and _uses_stable_tma(facts, orelse)
                or cur in orelse
                and _uses_stable_tma(facts, body)
            ):
                return True
        elif isinstance(par, ast.Try) and cur in par.body:
            caught = {dotted_last(n) for h in par.handlers if h.type for n in ast.walk(h.type)}
            if caught & _PROBE_ERRORS or any(h.type is None for h in par.handlers):
                return True
        elif isinstance(par, ast.ExceptHandler):
            caught = {dotted_last(n) for n in ast.walk(par.type)} if par.type else set()
            if par.type is None or caught & _PROBE_ERRORS:
                return True
        cur, par = par, facts.parent(par)
    return False


# -- PT666 -----------------------------------------------------------------------------------
_DESCRIPTORS = (
    "triton.language.make_tensor_descriptor",
    "triton.language.load_tensor_descriptor",
    "triton.language.store_tensor_descriptor",
    "triton.tools.tensor_descriptor.TensorDescriptor",
)
TDM_ARCHS = ("gfx1250",)  # AMD targets with a tensor data mover (triton 3.9 make_ttir)


@register
class TritonTensorDescriptor(PyRule):
    """Tensor descriptors run as pointer arithmetic on AMD (a performance note).

    ## What it finds
    Calls of `tl.make_tensor_descriptor`, `tl.load_tensor_descriptor`/`store_tensor_descriptor`
    and host `TensorDescriptor(...)`/`TensorDescriptor.from_tensor(...)`. Not reported: imports
    and `isinstance` tests (no descriptor is made), and launch glue that builds descriptors for
    kernels it does not define (no `@triton.jit` in the file, block shape computed at run time,
    as in PyTorch's `triton_kernel_wrap.py`): it chooses no tiles.

    ## Why it breaks on AMD
    It does not break: on AMD targets without a tensor data mover (all before gfx1250) the
    compiler rewrites descriptors into pointer arithmetic
    (`add_rewrite_tensor_descriptor_to_pointer`). There is no TMA, so tile sizes chosen for TMA
    (large boxes, many stages) do not carry over.

    ## Example
    ```python
    desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    ```

    ## Use instead
    Keep the code; re-tune the tiles on AMD or provide a block-pointer variant.

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (`make_ttir`)
    - hazards.md TRITON-TENSOR-DESCRIPTOR
    """

    code = "PT666"
    name = "triton-tensor-descriptor"
    severity = Severity.INFO
    triggers = (b"tensor_descriptor", b"TensorDescriptor")

    def check(self, ctx):
        facts = ctx.py_facts
        archs = tuple(t.arch for t in ctx.options.targets if t.arch not in TDM_ARCHS)
        if not archs:
            return
        for node, q in facts.refs:
            if not any(q == p or q.startswith(p + ".") for p in _DESCRIPTORS):
                continue
            par = facts.parent(node)
            if not (isinstance(par, ast.Call) and par.func is node):
                continue  # an import, an isinstance() test: no descriptor is made
            if q.startswith(_HOST_DESCRIPTOR) and _built_for_another_kernel(facts, par, q):
                continue
            yield self.at(
                ctx,
                node,
                "tensor descriptors become pointer arithmetic on "
                f"{', '.join(archs)} (no TMA): portable, but re-tune the tiles",
                targets=archs,
            )


_HOST_DESCRIPTOR = "triton.tools.tensor_descriptor.TensorDescriptor"


def _built_for_another_kernel(facts, call: ast.Call, q: str) -> bool:
    """A host descriptor in a file that defines no Triton kernel, whose block shape is not
    written in the call (computed at run time: PyTorch's wrappers parse it from the kernel's
    signature): generic launch glue, which chooses no tiles to re-tune."""
    from ..analysis.python import UNKNOWN, fold

    if facts.kernels:
        return False
    index = 1 if q.endswith(".from_tensor") else 3
    arg = _kw(call, "block_shape")
    if arg is None and index < len(call.args):
        arg = call.args[index]
    return arg is not None and fold(facts, arg) is UNKNOWN


# -- PT667 -----------------------------------------------------------------------------------
_WS_KWARGS = ("num_consumer_groups", "num_buffers_warp_spec")


@register
class TritonWarpSpecialize(PyRule):
    """Warp specialisation, an NVIDIA (Hopper/Blackwell) feature.

    ## What it finds
    `tl.range(..., warp_specialize=True)`, the Hopper-era `num_consumer_groups=` and
    `num_buffers_warp_spec=` options, `tl.async_task`.

    ## Why it breaks on AMD
    Automatic warp specialisation is documented as supported on Blackwell only; the AMD backend
    ignores the loop attribute, so code tuned around it runs unspecialised, and the old options
    are not options of the AMD backend (nor of current Triton).

    ## Example
    ```python
    for k in tl.range(0, K, BK, warp_specialize=True):
    ```

    ## Use instead
    Gate it on `is_cuda()`; tune AMD with `num_stages`, `waves_per_eu` and
    `matrix_instr_nonkdim` instead.

    ## References
    - triton 3.9 wheel: `language/core.py` (`range` docstring)
    - hazards.md TRITON-WARP-SPECIALIZE
    """

    code = "PT667"
    name = "triton-warp-specialize"
    severity = Severity.WARNING
    triggers = (b"warp_specialize", b"num_consumer_groups", b"num_buffers_warp_spec", b"async_task")

    def check(self, ctx):
        from ..analysis.python import fold

        facts = ctx.py_facts
        for call in facts.calls("triton.language.range"):
            v = _kw(call, "warp_specialize")
            if v is not None and fold(facts, v) is not False:
                yield self.at(
                    ctx,
                    v,
                    "warp_specialize is a Blackwell feature; AMD compiles "
                    "this loop without it (gate it on is_cuda())",
                )
        for node in ast.walk(facts.src.tree):
            if isinstance(node, ast.keyword) and node.arg in _WS_KWARGS:
                yield self.at(
                    ctx,
                    node,
                    f"{node.arg} is a Hopper warp-specialisation option "
                    "the AMD backend does not have",
                )
        for node, q in facts.refs:
            if q == "triton.language.async_task":
                yield self.at(ctx, node, "tl.async_task is NVIDIA warp specialisation")


# -- configs: PT668 / PT669 / PT671 / PT672 / PT673 ------------------------------------------
def _configs_and_launches(facts: PyFacts) -> list[tuple[ast.Call, list[ConfigValue]]]:
    out = [(call, vals) for call, vals in facts.configs]
    out += [(call, [v]) for call, v in facts.launches]
    return out


def _ints(vals, key: str) -> list[int]:
    return sorted(
        {
            v.get(key)
            for v in vals
            if isinstance(v.get(key), int) and not isinstance(v.get(key), bool)
        }
    )


def _where(call: ast.Call, key: str):
    kw = _kw(call, key)
    return kw if kw is not None else call


@register
class TritonNumCtas(PyRule):
    """`num_ctas > 1` (thread-block clusters).

    ## What it finds
    `num_ctas=` greater than 1 in `triton.Config` or launch options.

    ## Why it breaks on AMD
    The AMD backend raises `ValueError("num_ctas > 1 not supported on <arch>")` on every target
    but gfx1250.

    ## Example
    ```python
    triton.Config({"BLOCK_M": 128}, num_warps=4, num_ctas=2)
    ```

    ## Use instead
    `num_ctas=1` on AMD (a per-vendor config list).

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (`parse_options`)
    - hazards.md TRITON-NUM-CTAS-CLUSTER
    """

    code = "PT668"
    name = "triton-num-ctas"
    severity = Severity.ERROR
    triggers = (b"num_ctas",)

    def check(self, ctx):
        facts = ctx.py_facts
        archs = tuple(t.arch for t in ctx.options.targets if t.arch not in TDM_ARCHS)
        if not archs:
            return
        for call, vals in _configs_and_launches(facts):
            bad = [n for n in _ints(vals, "num_ctas") if n > 1]
            if bad:
                yield self.at(
                    ctx,
                    _where(call, "num_ctas"),
                    f"num_ctas={bad[-1]}: the AMD backend rejects num_ctas > 1 on "
                    f"{', '.join(archs)}",
                    targets=archs,
                )


@register
class TritonNumWarps(PyRule):
    """`num_warps` AMD cannot launch: too many threads at wavefront 64, or not a power of two.

    ## What it finds
    Constant `num_warps` values in `triton.Config` lists and launches where
    `num_warps * wavefront` exceeds 1024 for a target (32 warps on gfx9), or that are not a
    power of two.

    ## Why it breaks on AMD
    A Triton "warp" is a wavefront: 64 threads on CDNA. 32 warps are 2048 threads, above the
    1024-thread workgroup limit (the launch fails with an invalid argument or OutOfResources).
    The AMD backend also asserts that `num_warps` is a power of two.

    ## Example
    ```python
    triton.Config({"BLOCK": 4096}, num_warps=32)
    ```

    ## Use instead
    Prune configs by `triton.runtime.driver.active.get_current_target().warp_size`, or halve
    `num_warps` on AMD.

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (HIPOptions power-of-two assert,
      `amdgpu-flat-work-group-size`)
    - https://github.com/triton-lang/triton/issues/4128
    - hazards.md TRITON-NUM-WARPS-LIMIT
    """

    code = "PT669"
    name = "triton-num-warps-limit"
    severity = Severity.ERROR
    triggers = (b"num_warps",)

    def check(self, ctx):
        facts = ctx.py_facts
        for call, vals in _configs_and_launches(facts):
            warps = _ints(vals, "num_warps")
            if not warps:
                continue
            where = _where(call, "num_warps")
            odd = [w for w in warps if w <= 0 or w & (w - 1)]
            if odd:
                yield self.at(
                    ctx,
                    where,
                    f"num_warps={odd[0]} is not a power of two; the AMD backend asserts it is",
                )
                continue
            for t in ctx.options.targets:
                big = [w for w in warps if w * t.wave > MAX_THREADS_PER_BLOCK]
                if big:
                    archs = tuple(
                        x.arch
                        for x in ctx.options.targets
                        if big[-1] * x.wave > MAX_THREADS_PER_BLOCK
                    )
                    yield self.at(
                        ctx,
                        where,
                        f"num_warps={big[-1]} is {big[-1] * t.wave} "
                        f"threads at wavefront {t.wave} ({', '.join(archs)}), above "
                        f"the {MAX_THREADS_PER_BLOCK}-thread limit; use at most "
                        f"{MAX_THREADS_PER_BLOCK // t.wave}",
                        targets=archs,
                    )
                    break


@register
class TritonNumStages(PyRule):
    """`num_stages` tuned for Hopper/Blackwell.

    ## What it finds
    `num_stages` of 3 or more in `triton.Config` lists or launches that are not on the AMD side
    of a vendor switch.

    ## Why it breaks on AMD
    Stage counts mean different pipelines: the AMD default is 2 (NVIDIA 3) with AMD's stream
    pipeliner; AMD's guidance is 2 for a single GEMM and 1 for fused GEMMs and kernels without
    a GEMM. More stages multiply the LDS footprint (PT672) and rarely help on CDNA.

    ## Example
    ```python
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}, num_stages=4, num_warps=8)
    ```

    ## Use instead
    A per-vendor list: `num_stages=2 if is_hip() else 4`, or separate config lists.

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (HIPOptions.num_stages = 2)
    - AMD Instinct workload tuning guide (num_stages)
    - hazards.md TRITON-NUM-STAGES
    """

    code = "PT671"
    name = "triton-num-stages"
    severity = Severity.WARNING
    triggers = (b"num_stages",)

    def check(self, ctx):
        facts = ctx.py_facts
        for call, vals in _configs_and_launches(facts):
            stages = _ints(vals, "num_stages")
            high = [s for s in stages if s >= HOPPER_STAGES]
            if high and facts.vendor_of(call) != "amd":
                shown = ", ".join(map(str, high))
                yield self.at(
                    ctx,
                    _where(call, "num_stages"),
                    f"num_stages={shown} is an NVIDIA tuning; AMD uses 2 for a GEMM "
                    "and 1 for fused kernels (choose per vendor)",
                )


# the block-size names that the tl.dot operands' tiles use (Triton tutorials, vLLM, torchao)
_BLOCK_NAMES = {
    "m": ("BLOCK_M", "BLOCK_SIZE_M", "BM", "BLOCK_SIZE_Q", "BLOCK_Q"),
    "n": ("BLOCK_N", "BLOCK_SIZE_N", "BN", "BLOCK_SIZE_KV", "BLOCK_KV"),
    "k": ("BLOCK_K", "BLOCK_SIZE_K", "BK", "BLOCK_DMODEL", "HEAD_DIM"),
}


def _block(meta: dict, axis: str):
    for k in _BLOCK_NAMES[axis]:
        v = meta.get(k)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None


# Targets whose pipeliner copies the operand tiles of every stage into LDS (async copy, on by
# default on gfx950 in triton 3.9). Measured with triton 3.9 on a tl.dot GEMM (fp16, num_warps 8):
# gfx950 used num_stages * (BM*BK + BK*BN) * 2 bytes for num_stages >= 2 and max(BM*BK, BK*BN)
# * 2 for num_stages 1; gfx90a and gfx942 used max(BM*BK, BK*BN) * 2 whatever num_stages
# (tests/test_triton_compile.py checks these figures against the compiler).
ASYNC_COPY_ARCHS = ("gfx950",)


def lds_estimate(meta: dict, stages: int, elem: int, arch: str) -> int | None:
    """Bytes of LDS the operand tiles of one tl.dot take on `arch` (see ASYNC_COPY_ARCHS)."""
    m, n, k = _block(meta, "m"), _block(meta, "n"), _block(meta, "k")
    if m is None or n is None or k is None:
        return None
    if arch in ASYNC_COPY_ARCHS and stages >= 2:
        return (m * k + k * n) * elem * stages
    return max(m * k, k * n) * elem


@register
class TritonLdsBudget(PyRule):
    """`triton.Config` tiles and stages that overflow the target's LDS.

    ## What it finds
    Configs of a `tl.dot` kernel whose block sizes (`BLOCK_M`/`BLOCK_N`/`BLOCK_K` and the usual
    spellings) and `num_stages` are constants, where the operand tiles exceed the target's LDS
    (64 KiB on gfx90a/gfx942, 160 KiB on gfx950). On gfx950, where the pipeliner keeps every
    stage in LDS, that is `(BLOCK_M*BLOCK_K + BLOCK_K*BLOCK_N) * element bytes * num_stages`;
    on gfx942 one operand tile at a time, `max(BLOCK_M*BLOCK_K, BLOCK_K*BLOCK_N) * element
    bytes` (both measured with triton 3.9). The element size is the smallest the file can use
    (1 byte when it mentions fp8/int8, else 2).

    ## Why it breaks on AMD
    The autotuner or the launch fails with `OutOfResources: out of resource: shared memory`.
    Configs tuned on H100 (228 KiB of shared memory) routinely need more than MI300's 64 KiB.

    ## Example
    ```python
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 64}, num_stages=3, num_warps=8)
    ```

    ## Use instead
    Smaller tiles or fewer stages on AMD (a per-vendor or per-arch config list).

    ## References
    - AMD Instinct specifications (LDS per CU: 64 KiB MI300X, 160 KiB MI355X)
    - triton 3.9 wheel: `runtime/errors.py` (OutOfResources)
    - hazards.md TRITON-LDS-BUDGET
    """

    code = "PT672"
    name = "triton-lds-budget"
    severity = Severity.ERROR
    triggers = (b"Config",)

    def check(self, ctx):
        facts = ctx.py_facts
        if "dot" not in facts.src.text:
            return
        small = any(w in facts.src.text for w in ("float8", "fp8", "int8", "uint8"))
        elem = 1 if small else BYTES_2
        names = sum(_BLOCK_NAMES.values(), ())
        for call, vals in facts.configs:
            over: dict[str, tuple[int, ConfigValue, int]] = {}
            for t in ctx.options.targets:
                for v in vals:
                    st = v.get("num_stages", AMD_DEFAULT_NUM_STAGES)
                    st = AMD_DEFAULT_NUM_STAGES if st is None else st
                    if not isinstance(st, int):
                        continue
                    est = lds_estimate(v.meta, st, elem, t.arch)
                    if (
                        est is not None
                        and est > t.lds
                        and (t.arch not in over or est > over[t.arch][0])
                    ):
                        over[t.arch] = (est, v, st)
            if not over:
                continue
            arch = max(over, key=lambda a: over[a][0])
            est, v, st = over[arch]
            lds = next(t.lds for t in ctx.options.targets if t.arch == arch)
            tiles = ", ".join(f"{k}={v.meta[k]}" for k in v.meta if k in names)
            yield self.at(
                ctx,
                call,
                f"{tiles}, num_stages={st} needs about {est // 1024} KiB of "
                f"LDS for the tl.dot tiles on {arch} ({elem}-byte elements), above its "
                f"{lds // 1024} KiB",
                targets=tuple(sorted(over)),
            )


_AMD_KNOBS = ("waves_per_eu", "matrix_instr_nonkdim", "kpack")
# CUDAOptions fields HIPOptions lacks (triton 3.9 backends/nvidia/compiler.py vs amd)
_NV_ONLY_KNOBS = (
    "maxnreg",
    "launch_pdl",
    "ptx_options",
    "ir_override",
    "num_consumer_groups",
    "num_buffers_warp_spec",
)


@register
class TritonAmdKnobs(PyRule):
    """Autotune lists without AMD knobs, and NVIDIA-only options AMD ignores.

    ## What it finds
    `@triton.autotune` config lists (not on the NVIDIA side of a vendor switch) where no config
    sets `waves_per_eu`, `matrix_instr_nonkdim` or `kpack`; and NVIDIA-only options
    (`maxnreg`, `launch_pdl`, `ptx_options`) in configs or launches.

    ## Why it breaks on AMD
    Nothing fails: each backend keeps only the fields of its own options class, so foreign
    knobs are ignored. But an AMD run then searches only NVIDIA-shaped configs: `waves_per_eu`
    (occupancy) and `matrix_instr_nonkdim` (MFMA 16x16 or 32x32) are the knobs that matter on
    MI300; `kpack` is forced to 1 on gfx950.

    ## Example
    ```python
    @triton.autotune(configs=[triton.Config({"BLOCK_M": 128}, num_warps=8)], key=["M"])
    ```

    ## Use instead
    Add an AMD list: `triton.Config({..., "waves_per_eu": 2, "matrix_instr_nonkdim": 16},
    num_warps=8, num_stages=2)`.

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (HIPOptions), `backends/nvidia/compiler.py`
      (CUDAOptions)
    - hazards.md TRITON-AMD-KNOBS
    """

    code = "PT673"
    name = "triton-amd-knobs"
    severity = Severity.INFO
    triggers = (b"autotune", b"maxnreg", b"launch_pdl", b"ptx_options")

    def check(self, ctx):
        facts = ctx.py_facts
        configs = facts.configs
        for deco in facts.calls("triton.autotune"):
            arg = _kw(deco, "configs") or (deco.args[0] if deco.args else None)
            if arg is None:
                continue
            mine = _configs_for(facts, arg, configs)
            if not mine or facts.vendor_of(deco) == "nvidia":
                continue
            if all(facts.vendor_of(c) == "nvidia" for c, _ in mine):
                continue
            has = any(
                k in v.meta or k in v.options for _, vals in mine for v in vals for k in _AMD_KNOBS
            )
            if not has:
                yield self.at(
                    ctx,
                    deco,
                    "autotune configs without AMD knobs (waves_per_eu, "
                    "matrix_instr_nonkdim, kpack); add an AMD config list",
                )
        for call, vals in _configs_and_launches(facts):
            for k in _NV_ONLY_KNOBS[:3]:
                if any(k in v.options for v in vals):
                    yield self.at(
                        ctx,
                        _where(call, k),
                        f"{k} is an NVIDIA-only option; the AMD backend ignores it",
                    )


def _configs_for(facts, arg: ast.AST, configs):
    """The triton.Config calls an autotune `configs=` argument stands for: calls inside the
    expression, or inside the function/list it names."""
    spans = [facts.span(arg)]
    names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
    for stmt in facts.src.tree.body:
        if (
            isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            and stmt.name in names
            or isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id in names for t in stmt.targets)
        ):
            spans.append(facts.span(stmt))
    # one level of indirection: functions those functions call
    more = set()
    for s, e in spans[1:]:
        for n in ast.walk(facts.src.tree):
            if isinstance(n, ast.Name) and s <= facts.span(n)[0] < e:
                more.add(n.id)
    for stmt in facts.src.tree.body:
        if (
            isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            and stmt.name in more
            and stmt.name not in names
        ):
            spans.append(facts.span(stmt))
    return [(c, v) for c, v in configs if any(s <= facts.span(c)[0] < e for s, e in spans)]


# -- PT674 / PT675 / PT676 -------------------------------------------------------------------
_OCP = {
    "triton.language.float8e4nv": "tl.float8e4b8",
    "triton.language.float8e5": "tl.float8e5b16",
    "torch.float8_e4m3fn": "torch.float8_e4m3fnuz",
    "torch.float8_e5m2": "torch.float8_e5m2fnuz",
}
_FNUZ = {
    "triton.language.float8e4b8": "tl.float8e4nv",
    "triton.language.float8e5b16": "tl.float8e5",
    "torch.float8_e4m3fnuz": "torch.float8_e4m3fn",
    "torch.float8_e5m2fnuz": "torch.float8_e5m2",
}


@register
class TritonFp8Dtype(PyRule):
    """fp8 formats that do not match the target: OCP on MI300, FNUZ on MI350.

    ## What it finds
    `tl.float8e4nv`, `tl.float8e5`, `torch.float8_e4m3fn`, `torch.float8_e5m2` when a target is
    gfx942 (FNUZ fp8); `tl.float8e4b8`, `tl.float8e5b16` and the torch `*fnuz` dtypes when a
    target is gfx950 or RDNA4 (OCP fp8). Files that name both families (they choose per target)
    are left alone.

    ## Why it breaks on AMD
    MI300 natively supports the FNUZ variants; OCP fp8 is emulated in software there, and
    e4m3fn `tl.dot` used to fail to compile. On gfx950 FNUZ is deprecated as a `tl.dot`
    operand. The two formats also differ in range and NaN encoding (e4m3fn max 448, e4m3fnuz
    max 240).

    ## Example
    ```python
    a = a.to(tl.float8e4nv)
    ```

    ## Use instead
    Choose the dtype per target (`tl.float8e4b8` on gfx942, `tl.float8e4nv` on gfx950), and
    map `float8_e4m3fnuz` to `tl.float8e4b8` in dtype tables.

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (`supported_fp8_dtypes`,
      `deprecated_fp8_dot_operand_dtypes` for gfx950)
    - hazards.md TRITON-FP8-DTYPE
    """

    code = "PT674"
    name = "triton-fp8-dtype-per-target"
    severity = Severity.WARNING
    triggers = (b"float8",)

    def check(self, ctx):
        facts = ctx.py_facts
        refs = [(n, q) for n, q in facts.refs if q in _OCP or q in _FNUZ]
        if {q in _OCP for _, q in refs} == {True, False}:
            return  # both families named: chosen per target
        fnuz_t = tuple(t.arch for t in ctx.options.targets if t.fp8 == "fnuz")
        ocp_t = tuple(t.arch for t in ctx.options.targets if t.fp8 == "ocp")
        for node, q in refs:
            short = q.replace("triton.language.", "tl.")
            if q in _OCP and fnuz_t:
                yield self.at(
                    ctx,
                    node,
                    f"{short} is OCP fp8: {', '.join(fnuz_t)} supports "
                    f"FNUZ natively ({_OCP[q]}); OCP is emulated there and its range "
                    "differs",
                    targets=fnuz_t,
                )
            elif q in _FNUZ and ocp_t:
                yield self.at(
                    ctx,
                    node,
                    f"{short} is FNUZ fp8: {', '.join(ocp_t)} uses OCP fp8 "
                    f"({_FNUZ[q]}); FNUZ is deprecated as a tl.dot operand there",
                    targets=ocp_t,
                )


@register
class TritonFp8e4b15(PyRule):
    """fp8e4b15, an NVIDIA-only custom format.

    ## What it finds
    `tl.float8e4b15` and `tl.extra.cuda.convert_custom_float8_sm70/sm80`.

    ## Why it breaks on AMD
    `fp8e4b15` is not among the AMD backend's `supported_fp8_dtypes` (`fp8e4nv`, `fp8e5`,
    `fp8e5b16`, `fp8e4b8`), and the converters are PTX.

    ## Example
    ```python
    w = w.to(tl.float8e4b15)
    ```

    ## Use instead
    A standard fp8 type for the target (PT674).

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (HIPOptions.supported_fp8_dtypes),
      `language/extra/cuda/utils.py`
    - hazards.md TRITON-FP8E4B15
    """

    code = "PT675"
    name = "triton-fp8e4b15"
    severity = Severity.ERROR
    triggers = (b"float8e4b15", b"convert_custom_float8")

    def check(self, ctx):
        facts = ctx.py_facts
        for node, q in facts.refs:
            if q == "triton.language.float8e4b15" or q.startswith(
                _EXTRA_CUDA + "convert_custom_float8"
            ):
                yield self.at(
                    ctx,
                    node,
                    f"{q.rsplit('.', 1)[-1]}: fp8e4b15 is an NVIDIA-only "
                    "format the AMD backend does not support; use a standard fp8 type",
                )


# allowed input precisions: HIPOptions.allowed_dot_input_precisions, plus tf32 on gfx942 only
_AMD_PRECISIONS = ("ieee", "bf16x3", "bf16x6")
_TF32_ARCHS = ("gfx942",)


@register
class TritonDotPrecision(PyRule):
    """`tl.dot` input precisions the AMD backend rejects.

    ## What it finds
    `tl.dot(..., input_precision="tf32x3")` (any AMD target), `input_precision="tf32"` or
    `allow_tf32=True` (every AMD target but gfx942).

    ## Why it breaks on AMD
    The AMD backend allows `ieee`, `bf16x3` and `bf16x6`, plus `tf32` on gfx942 only; other
    values fail to compile. Its default is `ieee` where NVIDIA's is `tf32`, so fp32 `tl.dot`
    numerics and speed differ between vendors.

    ## Example
    ```python
    acc += tl.dot(a, b, input_precision="tf32x3")
    ```

    ## Use instead
    Choose per backend; `bf16x3` is a portable fast-fp32 option.

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (HIPOptions.allowed_dot_input_precisions,
      `parse_options` adds tf32 for gfx942)
    - hazards.md TRITON-DOT-PRECISION
    """

    code = "PT676"
    name = "triton-dot-precision"
    severity = Severity.ERROR
    triggers = (b"input_precision", b"allow_tf32")

    def check(self, ctx):
        from ..analysis.python import fold

        facts = ctx.py_facts
        for call in facts.calls("triton.language.dot", "triton.language.core.dot"):
            prec = _kw(call, "input_precision")
            value = fold(facts, prec) if prec is not None else None
            where = prec
            if value is None:
                tf = _kw(call, "allow_tf32")
                if tf is not None and fold(facts, tf) is True:
                    value, where = "tf32", tf
            if not isinstance(value, str):
                continue
            assert where is not None  # the argument the value was folded from
            value = value.lower()
            bad = tuple(
                t.arch
                for t in ctx.options.targets
                if value not in _AMD_PRECISIONS and not (value == "tf32" and t.arch in _TF32_ARCHS)
            )
            if bad:
                yield self.at(
                    ctx,
                    where,
                    f"input_precision {value!r} is rejected by the AMD "
                    f"backend on {', '.join(bad)} (allowed: "
                    f"{', '.join(_AMD_PRECISIONS)}; tf32 on gfx942 only)",
                    targets=bad,
                )


# -- PT670 / PT677 (host code) ---------------------------------------------------------------
NV_WARP = 32


@register
class TritonWarpSizeHost(PyRule):
    """Thread counts computed with 32 threads per warp.

    ## What it finds
    `num_warps * 32`, `32 * num_warps` and `num_warps = BLOCK // 32` (host or kernel code).
    Not in files that build TileLang kernels: TileLang takes the thread count itself
    (`T.Kernel(..., threads=num_warps * 32)`), so nothing is derived from it.

    ## Why it breaks on AMD
    A Triton warp is a wavefront on AMD: 64 threads on gfx9 (MI200/MI300/MI350), 32 on
    gfx10-12. Block geometry computed with 32 no longer matches the compiled kernel.

    ## Example
    ```python
    threads = num_warps * 32
    ```

    ## Use instead
    `triton.runtime.driver.active.get_current_target().warp_size`, or the device property
    `warpSize` (`torch.cuda.get_device_properties(0).warp_size`).

    ## References
    - triton 3.9 wheel: `backends/amd/compiler.py` (warp_size 64 below gfx10),
      `runtime/driver.py` (`get_current_target`)
    - hazards.md TRITON-WARP-SIZE-HOST
    """

    code = "PT670"
    name = "triton-warp-size-32"
    severity = Severity.WARNING
    triggers = (b"warps",)

    def check(self, ctx):
        facts = ctx.py_facts
        wave64 = ctx.options.wave64()
        if not wave64 or any(m == "tilelang" or m.startswith("tilelang.") for m in facts.imported):
            return  # TileLang takes the thread count itself (T.Kernel(threads=...))
        for node in ast.walk(facts.src.tree):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                for a, b in ((node.left, node.right), (node.right, node.left)):
                    if _is_const(b, NV_WARP) and "warps" in (dotted_last(a) or "").lower():
                        yield self.at(
                            ctx,
                            node,
                            "threads computed as warps * 32; a warp is "
                            f"64 threads on {', '.join(wave64)}: use get_current_"
                            "target().warp_size",
                            targets=wave64,
                        )
                        break
            elif isinstance(node, (ast.Assign, ast.keyword)):
                targets = (
                    [node.arg]
                    if isinstance(node, ast.keyword)
                    else [dotted_last(t) for t in node.targets]
                )
                v = node.value
                if (
                    any("num_warps" in (t or "") for t in targets)
                    and isinstance(v, ast.BinOp)
                    and isinstance(v.op, ast.FloorDiv)
                    and _is_const(v.right, NV_WARP)
                ):
                    yield self.at(
                        ctx,
                        v,
                        "num_warps computed as threads // 32; a warp is 64 "
                        f"threads on {', '.join(wave64)}",
                        targets=wave64,
                    )


def _is_const(node: ast.AST, value: int) -> bool:
    return (
        isinstance(node, ast.Constant) and node.value == value and not isinstance(node.value, bool)
    )


def _capability_names(facts) -> set[str]:
    names = set()
    for node in ast.walk(facts.src.tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and dotted_last(node.value.func).endswith("get_device_capability")
        ):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
    return names


def _mentions_capability(node: ast.AST, names: set[str]) -> bool:
    for n in ast.walk(node):
        if (
            isinstance(n, ast.Call)
            and dotted_last(n.func).endswith("get_device_capability")
            and not dotted_last(n.func).startswith(_OTHER_DEVICE_MODULES)
        ):
            return True
        if isinstance(n, ast.Name) and n.id in names:
            return True
    return False


@register
class TritonDeviceCheck(PyRule):
    """Vendor and architecture checks that misfire on ROCm.

    ## What it finds
    Comparisons of `torch.cuda.get_device_capability()` (or names unpacked from it) with
    constants, device-name substring and prefix tests (`"H100" in torch.cuda.get_device_name()`,
    `name.startswith("NVIDIA H")` with `name` from `get_device_name()` or
    `get_device_properties().name`), and `torch.version.cuda` tested without an AMD branch
    (directly, or through a flag such as `HAS_CUDA = torch.version.cuda is not None`).

    Not reported: `x.device.type == "cuda"` (and `device_type == "cuda"`). PyTorch reports ROCm
    devices as `"cuda"` (`torch.cuda` is the HIP backend on ROCm builds), so the test is true on
    AMD GPUs as well: it is correct code, and porter does not read it as a vendor switch either
    (a capability test under it is still reported). Nor a device name that only picks a log
    message (`if not name.startswith("NVIDIA A100"): logger.info(...)`), or one used as a
    lookup key (`(op, device_name) in db`): neither misfires on AMD.

    ## Why it breaks on AMD
    On ROCm the torch device type is still `"cuda"` and the capability tuple is AMD's: (9, 4)
    on MI300, (9, 5) on MI350, so `>= (9, 0)` picks the Hopper path. `torch.version.cuda` is
    None on ROCm builds, so code behind it never runs there. Name substrings are brittle.

    ## Example
    ```python
    if torch.cuda.get_device_capability() >= (9, 0):
        configs = hopper_configs
    ```

    ## Use instead
    `triton.runtime.driver.active.get_current_target()`: `.backend == "hip"`, `.arch`
    (`"gfx942"`), `.warp_size`; or `torch.version.hip`.

    ## References
    - triton 3.9 wheel: `runtime/driver.py`, `backends/amd/driver.py` (`is_active` checks
      `torch.version.hip`)
    - hazards.md TRITON-DEVICE-CHECK, CAPABILITY-GATE
    """

    code = "PT677"
    name = "triton-device-check"
    severity = Severity.WARNING
    triggers = (b"get_device_capability", b"get_device_name", b"version")

    def check(self, ctx):
        facts = ctx.py_facts
        names = _capability_names(facts)
        dev_names = _assigned_from(facts, _DEVICE_NAME_FNS)
        caps = {t.arch: t.capability for t in ctx.options.targets}
        seen: set[int] = set()
        for node in ast.walk(facts.src.tree):
            if not isinstance(node, ast.Compare) or id(node) in seen:
                continue
            if facts.vendor_of(node) == "amd":
                continue
            if _mentions_capability(node, names) and any(
                isinstance(c, (ast.Constant, ast.Tuple)) for c in node.comparators
            ):
                shown = ", ".join(f"{a} reports {c}" for a, c in caps.items())
                yield self.at(
                    ctx,
                    node,
                    f"capability check on ROCm: {shown}, so NVIDIA "
                    "architecture tests misfire; use get_current_target().arch or "
                    "torch.version.hip",
                )
            elif (
                len(node.ops) == 1
                and isinstance(node.ops[0], (ast.In, ast.NotIn))
                and _mentions_device_name(node.comparators[0], dev_names)
                and not _mentions_device_name(node.left, dev_names)
                and not _only_reports(facts, node)
            ):
                yield self.at(
                    ctx,
                    node,
                    "device-name substring test: brittle across vendors; "
                    "use get_current_target().backend/.arch",
                )
        for node in ast.walk(facts.src.tree):
            # get_device_name().startswith("NVIDIA H"), name.endswith(...)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _NAME_TESTS
                and _mentions_device_name(node.func.value, dev_names)
                and facts.vendor_of(node) != "amd"
                and not _only_reports(facts, node)
            ):
                yield self.at(
                    ctx,
                    node,
                    "device-name prefix test: brittle across vendors; "
                    "use get_current_target().backend/.arch",
                )
        for node in _version_cuda_tests(facts):
            yield self.at(
                ctx,
                node,
                "torch.version.cuda is None on ROCm builds: this code "
                "never runs (or raises) on AMD; test torch.version.hip or "
                "get_current_target().backend",
            )


_DEVICE_NAME_FNS = ("get_device_name", "get_device_properties")
_NAME_TESTS = ("startswith", "endswith", "find", "index")


def _assigned_from(facts, fns: tuple[str, ...]) -> set[str]:
    """Names bound (plain assignment) to a call of one of `fns` or an attribute of one."""
    names: set[str] = set()
    for node in ast.walk(facts.src.tree):
        if isinstance(node, ast.Assign):
            v = node.value
            while isinstance(v, (ast.Attribute, ast.Call)) and not (
                isinstance(v, ast.Call) and dotted_last(v.func).endswith(fns)
            ):
                v = v.value if isinstance(v, ast.Attribute) else v.func
            if isinstance(v, ast.Call):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


_REPORTERS = (
    "print",
    "warn",
    "warning",
    "info",
    "debug",
    "log",
    "error",
    "warn_once",
    "warning_once",
    "info_once",
)


def _only_reports(facts, node: ast.AST) -> bool:
    """The test of an `if` without `else` whose body only logs or prints: a device name that
    picks a message (torchao's "configurations are optimized for A100" notice) misfires on
    nothing."""
    cur, par = node, facts.parent(node)
    while par is not None and not isinstance(par, ast.stmt):
        cur, par = par, facts.parent(par)
    if not (isinstance(par, ast.If) and par.test is cur) or par.orelse:
        return False
    return all(
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Call)
        and dotted_last(st.value.func).rsplit(".", 1)[-1] in _REPORTERS
        for st in par.body
    )


# device modules of other vendors' PyTorch backends: their names say nothing about CUDA/ROCm
_OTHER_DEVICE_MODULES = ("torch.xpu.", "torch.npu.", "torch.mps.", "torch.mtia.")


def _mentions_device_name(node: ast.AST, names: set[str]) -> bool:
    for n in ast.walk(node):
        if (
            isinstance(n, ast.Call)
            and dotted_last(n.func).endswith(_DEVICE_NAME_FNS)
            and not dotted_last(n.func).startswith(_OTHER_DEVICE_MODULES)
        ):
            return True
        if isinstance(n, ast.Name) and n.id in names:
            return True
    return False


def _version_cuda_tests(facts) -> list[ast.AST]:
    out: list[ast.AST] = []
    # a flag computed from torch.version.cuda and tested without an else side
    flags: dict[str, ast.AST] = {}
    for node in ast.walk(facts.src.tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Call))
        ):
            hits = [
                n
                for n in ast.walk(node.value)
                if isinstance(n, ast.Attribute)
                and (facts.qualname(n) or "") == "torch.version.cuda"
            ]
            if hits and facts.vendor_of(node) is None:
                flags[node.targets[0].id] = hits[0]
    for node in ast.walk(facts.src.tree):
        if isinstance(node, (ast.If, ast.Assert, ast.IfExp)):
            test = node.test
            hits = [
                n
                for n in ast.walk(test)
                if isinstance(n, ast.Attribute)
                and (facts.qualname(n) or "") == "torch.version.cuda"
            ]
            flag = next(
                (n.id for n in ast.walk(test) if isinstance(n, ast.Name) and n.id in flags), None
            )
            if not hits and flag is not None:
                if (
                    not (isinstance(node, (ast.If, ast.IfExp)) and node.orelse)
                    and facts.vendor_of(node) is None
                    and flags[flag] not in out
                ):
                    out.append(flags[flag])
                continue
            if not hits:
                continue
            if isinstance(node, (ast.If, ast.IfExp)) and node.orelse:
                continue  # an else side exists: a two-way switch
            if (
                isinstance(node, ast.If)
                and facts.test_vendor(test)[0] == "amd"
                and not any(isinstance(n, ast.Raise) for b in node.body for n in ast.walk(b))
            ):
                continue  # `if torch.version.cuda is None: return`: the AMD side, handled
            if facts.vendor_of(node) is not None:
                continue
            out.append(hits[0])
    return out


# -- PT679 -----------------------------------------------------------------------------------
# What the AMD backend makes of the PTX-style cache hints, measured with the triton 3.9 wheel
# (tl.load/tl.store of fp32 compiled for gfx942 and gfx950; tests/test_triton_compile.py checks
# it again): load ".ca" = no bits (the default), ".cg" and ".cs" = `sc0 nt` (non-temporal),
# ".cv" = `sc0 sc1`; store ".wb" and ".cg" = no bits, ".cs" = `sc0 nt`, ".wt" = `sc0 sc1`;
# eviction_policy "evict_first"/"evict_last" = no bits. Only hints whose meaning changes are
# reported: the others keep theirs (".cs" streams, ".cv"/".wt" reach the system scope).
_HINT_NOTES = {
    ("load", "cache_modifier", ".cg"): "load `.cg` (cache in L2, not L1, on NVIDIA) becomes a "
    "non-temporal load on AMD, the same as `.cs`",
    ("store", "cache_modifier", ".cg"): "store `.cg` is dropped on AMD (a default store)",
    ("load", "eviction_policy", "evict_first"): "eviction_policy is ignored by the AMD backend",
    ("load", "eviction_policy", "evict_last"): "eviction_policy is ignored by the AMD backend",
    ("store", "eviction_policy", "evict_first"): "eviction_policy is ignored by the AMD backend",
    ("store", "eviction_policy", "evict_last"): "eviction_policy is ignored by the AMD backend",
}


@register
class TritonCacheHints(PyRule):
    """PTX cache hints whose meaning changes on AMD (a performance note).

    ## What it finds
    `tl.load(..., cache_modifier=".cg")`, `tl.store(..., cache_modifier=".cg")` and
    `eviction_policy="evict_first"`/`"evict_last"` on loads and stores (constant values).

    ## Why it breaks on AMD
    It does not break: the hints are PTX cache operators, and the AMD backend maps them to its
    own cache-policy bits. Measured with triton 3.9 for gfx942 and gfx950: a `.cg` load gets the
    non-temporal bits (`sc0 nt`), the same as `.cs`, where on NVIDIA it keeps the line in L2; a
    `.cg` store and both eviction policies set no bits at all. Tuning that relied on them
    (keeping a reused operand in L2, evicting a streamed one first) does not carry over.
    `.ca`, `.wb` (the defaults), `.cs`, `.cv` and `.wt` keep their meaning and are not
    reported.

    ## Example
    ```python
    w = tl.load(w_ptr + offs, cache_modifier=".cg", eviction_policy="evict_last")
    ```

    ## Use instead
    Benchmark on AMD with and without the hint; drop it there (choose it per vendor) when it
    does not help.

    ## References
    - triton 3.9 wheel: `language/semantic.py` (`_str_to_load_cache_modifier`,
      `_str_to_eviction_policy`); AMDGCN of gfx942/gfx950 compiled from it (the figures above)
    - hazards.md TRITON-CACHE-MODIFIERS
    """

    code = "PT679"
    name = "triton-cache-hints"
    severity = Severity.INFO
    triggers = (b"cache_modifier", b"eviction_policy")

    def check(self, ctx):
        from ..analysis.python import fold

        facts = ctx.py_facts
        calls = [("load", c) for c in facts.calls("triton.language.load")] + [
            ("store", c) for c in facts.calls("triton.language.store")
        ]
        for kind, call in sorted(calls, key=lambda kc: facts.span(kc[1])):
            for key in ("cache_modifier", "eviction_policy"):
                arg = _kw(call, key)
                value = fold(facts, arg) if arg is not None else None
                note = _HINT_NOTES.get((kind, key, value)) if isinstance(value, str) else None
                if note is not None:
                    assert arg is not None  # a folded value comes from an argument
                    yield self.at(ctx, arg, f"{note}: benchmark it on AMD")


# -- PT678 -----------------------------------------------------------------------------------
_GLUON_NV = "triton.experimental.gluon.language.nvidia"


@register
class TritonGluonNvidia(PyRule):
    """NVIDIA-only Gluon modules.

    ## What it finds
    Imports of `triton.experimental.gluon.language.nvidia` and its `ampere`, `hopper`,
    `blackwell` modules (TMA, mbarrier, wgmma, tcgen05).

    ## Why it breaks on AMD
    Gluon exposes each vendor's hardware directly; the NVIDIA modules lower to NVIDIA-only
    operations. AMD has its own modules (`gluon.language.amd.cdna3`, `cdna4`, `gfx1250` ...).

    ## Example
    ```python
    from triton.experimental.gluon.language.nvidia.hopper import tma, mbarrier
    ```

    ## Use instead
    A separate AMD Gluon kernel (`gluon.language.amd`), or portable `tl` code.

    ## References
    - triton 3.9 wheel: `experimental/gluon/language/{nvidia,amd}/`
    - hazards.md TRITON-GLUON-NVIDIA
    """

    code = "PT678"
    name = "triton-gluon-nvidia"
    severity = Severity.ERROR
    triggers = (b"gluon",)

    def check(self, ctx):
        facts = ctx.py_facts
        for node in ast.walk(facts.src.tree):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                mods = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            hit = next((m for m in mods if m == _GLUON_NV or m.startswith(_GLUON_NV + ".")), None)
            if hit:
                yield self.at(
                    ctx,
                    node,
                    f"{hit} is an NVIDIA-only Gluon module; AMD needs its "
                    "own Gluon kernel (gluon.language.amd)",
                )


# -- PT680 / PT681 ---------------------------------------------------------------------------
@register
class EmbeddedCudaSource(PyRule):
    """CUDA C++ carried in Python that porter cannot check, and numba.cuda kernels.

    ## What it finds
    `cupy.RawKernel`/`RawModule`/`ElementwiseKernel`/`ReductionKernel` and
    `torch.utils.cpp_extension.load_inline(cuda_sources=...)` whose source is built at run time
    (f-strings, `.format`, function calls), and `numba.cuda` kernels. Literal sources are
    checked with the CUDA C++ rules and rewritten in place; their findings carry the C++ codes.

    ## Why it breaks on AMD
    The same device-code hazards as in `.cu` files apply, and hipRTC enforces them when the
    string is compiled on ROCm (for example the 64-bit warp masks). numba's CUDA target does
    not run on AMD GPUs (AMD's numba-hip is a separate package with its own API).

    ## Example
    ```python
    kernel = cp.RawKernel(make_source(dtype), "add")
    ```

    ## Use instead
    Keep kernel sources in literals (or `.cu` files) so they can be checked and ported;
    review dynamically built sources by hand.

    ## References
    - https://github.com/cupy/cupy/pull/9977 (hipRTC and warp masks)
    - hazards.md EMBEDDED-CUDA-SOURCE
    """

    code = "PT680"
    name = "embedded-cuda-source"
    severity = Severity.WARNING
    triggers = (b"cupy", b"cpp_extension", b"numba")

    def check(self, ctx):
        facts = ctx.py_facts
        for node, q in facts.refs:
            if q in ("numba.cuda.jit", "numba.cuda"):
                par = facts.parent(node)
                if q == "numba.cuda" and isinstance(par, ast.Attribute):
                    continue
                if (
                    isinstance(par, (ast.Call, ast.FunctionDef))
                    or isinstance(facts.parent(par) if par else None, ast.FunctionDef)
                    or any(
                        node is d or (isinstance(d, ast.Call) and d.func is node)
                        for k in _decorated(facts)
                        for d in k.decorator_list
                    )
                ):
                    yield self.at(
                        ctx,
                        node,
                        "numba.cuda kernel: numba's CUDA target does not "
                        "run on AMD GPUs; port it to Triton or HIP C++",
                    )
        for call, why in facts.embedded.dynamic:
            yield self.at(
                ctx,
                call,
                f"CUDA C++ source {why}: porter cannot check or port it; review it by hand",
            )


def _decorated(facts):
    return [
        n
        for n in ast.walk(facts.src.tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.decorator_list
    ]


@register
class PythonSyntaxError(PyRule):
    """A Python file porter cannot parse.

    ## What it finds
    `.py` files with a syntax error for Python 3 (Python 2 code, half-written files) or an
    undecodable encoding; the file is copied unchanged.

    ## Why it breaks on AMD
    It does not break by itself, but porter cannot check or port such a file: review its
    Triton and CUDA code by hand.

    ## Example
    ```python
    print "hello"
    ```

    ## Use instead
    Fix the syntax (or run porter on the file once it parses).

    ## References
    - Python language reference: encoding declarations (PEP 263)
    """

    code = "PT681"
    name = "python-syntax-error"
    severity = Severity.WARNING
    emitted_by_engine = True
    triggers = ()
