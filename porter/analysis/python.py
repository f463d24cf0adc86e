"""Facts about one Python file that the Triton rules and the Python rewriter share.

- imports and aliases (`import triton.language as tl` makes `tl.dot` resolve to
  `triton.language.dot`);
- Triton kernels (`@triton.jit`, `@triton.autotune`, Gluon `@gluon.jit`) and their spans;
- the vendor-branch model: the AMD and the NVIDIA side of `if is_hip():`, `torch.version.hip`,
  `get_current_target().backend == "hip"`, `current_platform.is_rocm()` switches (statements,
  conditional expressions and `and` chains), and definitions only reached from one side
  (the tutorial pattern `get_cuda_autotune_config()` / `get_hip_autotune_config()`);
- constant folding of `triton.Config(...)` calls, also inside list comprehensions and `for`
  loops with constant ranges, and of launch options (`kernel[grid](..., num_warps=8)`);
- the references to imported names and the calls of given functions, found once;
- the CUDA C++ carriers (`cupy.RawKernel`, `load_inline(cuda_sources=...)` ...): the string
  constants each source concatenates from, or why it is built at run time;
- the libdevice function lists, read from the installed `triton` wheel without importing it
  (or from the generated `triton_libdevice.json` when triton is not installed).

`build(src)` finds imports, kernels and vendor sides; the rest are properties of `PyFacts`
computed on first use (the rule context hands rules one `PyFacts` per file: `ctx.py_facts`).

Nothing here imports triton, torch or libcst.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from ..parse.python import RELEVANT_MODULES, PySource, dotted

AMD = "amd"
NVIDIA = "nvidia"

# -- vendor tests ---------------------------------------------------------------------------
# Helper names projects use for "running on ROCm" / "running on CUDA". Sources: Triton tutorials
# (`is_hip`, `is_cuda`, `is_hip_cdna*`), vLLM (`current_platform.is_rocm()`, `is_cuda()`),
# PyTorch (`torch.version.hip`), OLMo-core (`is_rocm`), hazards.md TRITON-DEVICE-CHECK.
_AMD_FN = re.compile(
    r"(?i)^_?(is|on|use|using|has)_?(hip|rocm|amd|cdna\d*|rdna\d*|gfx\d+\w*|"
    r"mi\d+\w*|hip_\w+|rocm_\w+|amd_\w+)$"
)
_NV_FN = re.compile(r"(?i)^_?(is|on|use|using|has)_?(cuda|nvidia|nv)$")
# true only on some NVIDIA GPUs: the body is NVIDIA-only, the else side is not AMD-only.
# PyTorch's TMA probes (`has_triton_tma`, `has_triton_tma_device`,
# `has_triton_experimental_host_tma`, `has_triton_tensor_descriptor_host_tma`,
# `has_triton_stable_tma_api`, `has_datacenter_blackwell_tma_device`) return False on ROCm:
# torch/utils/_triton.py requires `not torch.version.hip` (torch 2.13).
_NV_ARCH_FN = re.compile(
    r"(?i)^_?(is|on|has)_?(hopper|blackwell|ampere|sm_?\d+\w*|"
    r"cuda_\w+|nvidia_\w+|tma\w*|tcgen05\w*|wgmma\w*|triton_\w*tma\w*|"
    r"datacenter_blackwell\w*)$"
)
# flags true only on some NVIDIA GPUs (fla's IS_NVIDIA_HOPPER / IS_NVIDIA_BLACKWELL) or only
# with an NVIDIA-only feature (USE_PDL: programmatic dependent launch, PTX griddepcontrol)
_NV_ARCH_VAR = re.compile(
    r"(?i)^_?(is|on|has|use|using|enable)_?(nvidia_\w+|cuda_\w+|hopper|"
    r"blackwell|ampere|sm_?\d+\w*|pdl)$"
)
_AMD_VAR = re.compile(r"(?i)^_?(is|on|use|using|has)?_?(hip|rocm|amd)$")
_NV_VAR = re.compile(r"(?i)^_?(is|on|use|using|has)_?(cuda|nvidia)$")


def _negate(v: tuple[str | None, str | None]) -> tuple[str | None, str | None]:
    return v[1], v[0]


@dataclass
class ConfigValue:
    """One evaluated triton.Config (or launch): None for a field means "not given"; UNKNOWN means
    "given but not a constant"."""

    meta: dict
    options: dict
    node: ast.AST

    def get(self, key: str, default=None):
        return self.options.get(key, default)


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
MAX_COMBINATIONS = 4096


class _NotConst(Exception):
    pass


@dataclass
class PyFacts:
    src: PySource
    aliases: dict[str, str] = field(default_factory=dict)
    imported: set[str] = field(default_factory=set)  # fully qualified imported modules
    kernels: list[ast.FunctionDef] = field(default_factory=list)
    regions: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, vendor)
    parents: dict[int, ast.AST] = field(default_factory=dict)
    module_consts: dict[str, ast.AST] = field(default_factory=dict)
    vendor_tests: list[ast.AST] = field(default_factory=list)  # expressions read as switches
    # calls(names) memo: the qualified names asked for -> the calls of them
    _calls: dict[tuple[str, ...], list[ast.Call]] = field(default_factory=dict, repr=False)

    # -- computed on first use ---------------------------------------------------------------
    @cached_property
    def refs(self) -> list[tuple[ast.AST, str]]:
        """Maximal Name/Attribute chains that resolve to an imported name, with that name, in
        document order."""
        out: list[tuple[ast.AST, str]] = []
        for node in ast.walk(self.src.tree):
            if isinstance(node, (ast.Name, ast.Attribute)):
                par = self.parent(node)
                if isinstance(par, ast.Attribute) and par.value is node:
                    continue
                q = self.qualname(node)
                if q:
                    out.append((node, q))
        out.sort(key=lambda x: self.span(x[0]))
        return out

    def calls(self, *names: str) -> list[ast.Call]:
        """Calls whose callee resolves to one of the qualified `names`, in `ast.walk` order."""
        found = self._calls.get(names)
        if found is None:
            found = self._calls[names] = [
                n
                for n in ast.walk(self.src.tree)
                if isinstance(n, ast.Call) and (self.qualname(n.func) or "") in names
            ]
        return found

    @cached_property
    def configs(self) -> list[tuple[ast.Call, list[ConfigValue]]]:
        """Every `triton.Config(...)` call with the configurations it stands for (one per
        combination of the enclosing comprehensions and constant `for` loops)."""
        return _config_values(self)

    @cached_property
    def launches(self) -> list[tuple[ast.Call, ConfigValue]]:
        """Kernel launches `kernel[grid](..., num_warps=..)` with their constant launch
        options."""
        return _launches(self)

    @cached_property
    def embedded(self) -> EmbeddedSources:
        """The CUDA C++ sources carried in string literals, and those built at run time."""
        return _embedded_sources(self)

    # -- names -------------------------------------------------------------------------------
    def qualname(self, node: ast.AST) -> str | None:
        """The fully qualified name of a Name/Attribute chain rooted at an import, else None."""
        d = dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        full = self.aliases.get(head)
        if full is None:
            return None
        return f"{full}.{rest}" if rest else full

    def relevant(self) -> bool:
        return any(m == r or m.startswith(r + ".") for m in self.imported for r in RELEVANT_MODULES)

    # -- positions ---------------------------------------------------------------------------
    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.src.span(node)

    def vendor_at(self, offset: int) -> str | None:
        """The vendor whose side of a switch holds `offset` (innermost switch), or None."""
        best = None
        for s, e, v in self.regions:
            if s <= offset < e and (best is None or s >= best[0]):
                best = (s, e, v)
        return best[2] if best else None

    def vendor_of(self, node: ast.AST) -> str | None:
        return self.vendor_at(self.span(node)[0])

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    # -- vendor tests ------------------------------------------------------------------------
    def test_vendor(self, expr: ast.AST) -> tuple[str | None, str | None]:
        """(vendor when `expr` is true, vendor when false) for a vendor switch, else
        (None, None)."""
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return _negate(self.test_vendor(expr.operand))
        if isinstance(expr, ast.BoolOp):
            sides = [self.test_vendor(v) for v in expr.values]
            trues = {s[0] for s in sides if s[0]}
            if isinstance(expr.op, ast.And) and len(trues) == 1:
                return trues.pop(), None
            if isinstance(expr.op, ast.Or) and all(s[0] for s in sides) and len(trues) == 1:
                return trues.pop(), None
            return None, None
        if isinstance(expr, ast.Call):
            name = dotted(expr.func) or ""
            if name == "bool" and len(expr.args) == 1 and not expr.keywords:
                # `HIP_BUILD = bool(torch.version.hip)` (mamba-ssm's setup.py): the same test
                return self.test_vendor(expr.args[0])
            last = name.rsplit(".", 1)[-1]
            if _AMD_FN.match(last):
                return AMD, NVIDIA
            if _NV_FN.match(last):
                return NVIDIA, AMD
            if _NV_ARCH_FN.match(last):
                return NVIDIA, None
            return None, None
        if isinstance(expr, (ast.Name, ast.Attribute)):
            d = dotted(expr) or ""
            q = self.qualname(expr) or d
            if q.endswith("version.hip"):  # torch.version.hip is set on ROCm builds
                return AMD, NVIDIA
            if q.endswith("version.cuda"):
                return NVIDIA, AMD
            last = d.rsplit(".", 1)[-1]
            if _AMD_VAR.match(last):
                return AMD, NVIDIA
            if _NV_VAR.match(last):
                return NVIDIA, AMD
            if _NV_ARCH_VAR.match(last):
                return NVIDIA, None
            if isinstance(expr, ast.Name) and expr.id in self.module_consts:
                val = self.module_consts[expr.id]
                if val is not expr and isinstance(val, ast.expr) and not isinstance(val, ast.Name):
                    return self.test_vendor(val)
            return None, None
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
            left, op, right = expr.left, expr.ops[0], expr.comparators[0]
            if (
                isinstance(op, (ast.Is, ast.IsNot))
                and isinstance(right, ast.Constant)
                and right.value is None
            ):
                v = self.test_vendor(left)
                return v if isinstance(op, ast.IsNot) else _negate(v)
            if isinstance(op, (ast.Eq, ast.NotEq)):
                for a, b in ((left, right), (right, left)):
                    if isinstance(b, ast.Constant) and isinstance(b.value, str):
                        dn = dotted(a) if not isinstance(a, ast.Call) else None
                        attr = a.attr if isinstance(a, ast.Attribute) else (dn or "")
                        sval = b.value.lower()
                        # not `device_type`/`device.type`: PyTorch reports ROCm devices as
                        # "cuda" (torch.cuda is the HIP backend on ROCm builds)
                        if attr in ("backend", "platform", "vendor") or attr.endswith("backend"):
                            v = (
                                (AMD, NVIDIA)
                                if sval in ("hip", "rocm", "amd")
                                else (NVIDIA, AMD)
                                if sval in ("cuda", "nvidia")
                                else (None, None)
                            )
                            return v if isinstance(op, ast.Eq) else _negate(v)
            if (
                isinstance(op, (ast.In, ast.NotIn))
                and isinstance(left, ast.Constant)
                and isinstance(left.value, str)
                and left.value.lower().startswith("gfx")
            ):
                return (AMD, None) if isinstance(op, ast.In) else (None, AMD)
        return None, None


# -- building the facts ---------------------------------------------------------------------
_KERNEL_DECOS = (
    "triton.jit",
    "triton.autotune",
    "triton.heuristics",
    "triton.experimental.gluon.jit",
    "triton.experimental.gluon._runtime.jit",
    "triton.language.core.extern",
    "triton.runtime.jit.jit",
)


def build(src: PySource) -> PyFacts:
    facts = PyFacts(src)
    tree = src.tree
    parents = facts.parents
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, ast.Import):
            for a in node.names:
                facts.imported.add(a.name)
                if a.asname:
                    facts.aliases[a.asname] = a.name
                else:
                    head = a.name.split(".")[0]
                    facts.aliases.setdefault(head, head)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            facts.imported.add(node.module)
            for a in node.names:
                if a.name == "*":
                    continue
                full = f"{node.module}.{a.name}"
                facts.imported.add(full)
                facts.aliases[a.asname or a.name] = full
    # module constants: names assigned exactly once at module level
    counts: dict[str, int] = {}
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            n = stmt.targets[0].id
            counts[n] = counts.get(n, 0) + 1
            facts.module_consts[n] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
            n = stmt.target.id
            counts[n] = counts.get(n, 0) + 1
            facts.module_consts[n] = stmt.value
    for n, c in counts.items():
        if c > 1:
            del facts.module_consts[n]
    # kernels
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                target = d.func if isinstance(d, ast.Call) else d
                q = facts.qualname(target) or ""
                if q in _KERNEL_DECOS or q.endswith(".jit") and "triton" in q:
                    facts.kernels.append(node)  # type: ignore[arg-type]
                    break
    _vendor_regions(facts)
    return facts


def _block_span(facts: PyFacts, body: list[ast.stmt]) -> tuple[int, int] | None:
    if not body:
        return None
    return facts.span(body[0])[0], facts.span(body[-1])[1]


def _vendor_regions(facts: PyFacts) -> None:
    regions = facts.regions
    for node in ast.walk(facts.src.tree):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            tv, fv = facts.test_vendor(node.test)
            if tv is None and fv is None:
                continue
            facts.vendor_tests.append(node.test)
            if isinstance(node, ast.IfExp):
                if tv:
                    regions.append((*facts.span(node.body), tv))
                if fv:
                    regions.append((*facts.span(node.orelse), fv))
                continue
            sp = _block_span(facts, node.body)
            if tv and sp:
                regions.append((*sp, tv))
            sp = _block_span(facts, node.orelse)
            if fv and sp:
                regions.append((*sp, fv))
            # `if is_hip(): return ...` : the rest of the enclosing block is the other side
            if (
                isinstance(node, ast.If)
                and fv
                and not node.orelse
                and node.body
                and isinstance(node.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))
            ):
                par = facts.parent(node)
                block = getattr(par, "body", None)
                if isinstance(block, list) and node in block:
                    rest = block[block.index(node) + 1 :]
                    sp = _block_span(facts, rest)
                    if sp:
                        regions.append((*sp, fv))
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            for i, v in enumerate(node.values[:-1]):
                tv, _ = facts.test_vendor(v)
                if tv:
                    facts.vendor_tests.append(v)
                    regions.append(
                        (facts.span(node.values[i + 1])[0], facts.span(node.values[-1])[1], tv)
                    )
                    break
        elif isinstance(node, ast.Assert):
            tv, _ = facts.test_vendor(node.test)
            if tv:  # `assert is_cuda()` : the rest of the block is that vendor's
                facts.vendor_tests.append(node.test)
                par = facts.parent(node)
                block = getattr(par, "body", None)
                if isinstance(block, list) and node in block:
                    sp = _block_span(facts, block[block.index(node) :])
                    if sp:
                        regions.append((*sp, tv))
    _propagate(facts)


def _propagate(facts: PyFacts) -> None:
    """Module-level functions and assignments referenced only from one vendor's side belong to
    that side (the tutorial's `get_cuda_autotune_config()` behind `if is_cuda():`)."""
    tree = facts.src.tree
    defs: dict[str, ast.stmt] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[stmt.name] = stmt
        elif (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            defs[stmt.targets[0].id] = stmt
    if not defs or not facts.regions:
        return
    uses: dict[str, list[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in defs:
            uses.setdefault(node.id, []).append(facts.span(node)[0])
    for _ in range(3):
        added = False
        for name, stmt in defs.items():
            ds, de = facts.span(stmt)
            if any(s <= ds and de <= e for s, e, _ in facts.regions):
                continue
            outside = [u for u in uses.get(name, ()) if not ds <= u < de]
            if not outside:
                continue
            vendors = {facts.vendor_at(u) for u in outside}
            only = vendors.pop() if len(vendors) == 1 else None
            if only is not None:
                facts.regions.append((ds, de, only))
                added = True
        if not added:
            break


# -- constant folding -----------------------------------------------------------------------
_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
    ast.Div: lambda a, b: a / b,
}
_CMPOPS = {
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_MAX_POW = 64


class Folder:
    """Evaluates constant expressions; names come from an environment (loop variables) or from
    module-level constants. Raises _NotConst for anything else."""

    def __init__(self, facts: PyFacts):
        self.facts = facts
        self._depth = 0

    def ev(self, node: ast.AST, env: dict):
        self._depth += 1
        try:
            if self._depth > 50:
                raise _NotConst
            return self._ev(node, env)
        finally:
            self._depth -= 1

    def _ev(self, node: ast.AST, env: dict):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.id]
            c = self.facts.module_consts.get(node.id)
            if c is not None:
                return self.ev(c, {})
            raise _NotConst
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    out.extend(self.ev(e.value, env))
                else:
                    out.append(self.ev(e, env))
            return out
        if isinstance(node, ast.Dict):
            d = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    d.update(self.ev(v, env))
                else:
                    d[self.ev(k, env)] = self.ev(v, env)
            return d
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = self.ev(node.left, env), self.ev(node.right, env)
            if isinstance(node.op, ast.Pow) and isinstance(b, int) and b > _MAX_POW:
                raise _NotConst
            try:
                return _BINOPS[type(node.op)](a, b)
            except (TypeError, ZeroDivisionError, ValueError, OverflowError):
                raise _NotConst from None
        if isinstance(node, ast.UnaryOp):
            v = self.ev(node.operand, env)
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.Not):
                return not v
            if isinstance(node.op, ast.UAdd):
                return +v
            raise _NotConst
        if isinstance(node, ast.Compare):
            left = self.ev(node.left, env)
            for op, right in zip(node.ops, node.comparators):
                r = self.ev(right, env)
                if type(op) not in _CMPOPS:
                    raise _NotConst
                try:
                    if not _CMPOPS[type(op)](left, r):
                        return False
                except TypeError:
                    raise _NotConst from None
                left = r
            return True
        if isinstance(node, ast.BoolOp):
            vals = [self.ev(v, env) for v in node.values]
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.IfExp):
            return self.ev(node.body if self.ev(node.test, env) else node.orelse, env)
        if isinstance(node, ast.Subscript):
            base = self.ev(node.value, env)
            idx = self.ev(node.slice, env)
            try:
                return base[idx]
            except (TypeError, KeyError, IndexError):
                raise _NotConst from None
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name == "range":
                args = [self.ev(a, env) for a in node.args]
                if not all(isinstance(a, int) for a in args):
                    raise _NotConst
                r = range(*args)
                if len(r) > MAX_COMBINATIONS:
                    raise _NotConst
                return list(r)
            if name == "dict" and not node.args:
                return {k.arg: self.ev(k.value, env) for k in node.keywords if k.arg}
            if self.facts.qualname(node.func) == "triton.Config":
                return self.config(node, env)
            raise _NotConst
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            out = []
            for e in self.comprehension_envs(node.generators, env):
                out.append(self.ev(node.elt, e))
            return out
        raise _NotConst

    def soft(self, node: ast.AST | None, env: dict):
        if node is None:
            return None
        try:
            return self.ev(node, env)
        except _NotConst:
            return UNKNOWN

    def config(self, call: ast.Call, env: dict) -> ConfigValue:
        meta = {}
        if call.args:
            m = self.soft(call.args[0], env)
            meta = m if isinstance(m, dict) else {}
        options = {}
        for k in call.keywords:
            if k.arg == "kwargs":
                m = self.soft(k.value, env)
                meta = m if isinstance(m, dict) else meta
            elif k.arg:
                options[k.arg] = self.soft(k.value, env)
        names = ("num_warps", "num_stages", "num_ctas", "maxnreg", "pre_hook")
        for i, a in enumerate(call.args[1:5], start=0):
            options.setdefault(names[i], self.soft(a, env))
        return ConfigValue(meta, options, call)

    def comprehension_envs(self, generators, env: dict):
        envs = [dict(env)]
        for g in generators:
            nxt = []
            for e in envs:
                it = self.ev(g.iter, e)
                if not isinstance(it, (list, tuple, dict, str)):
                    raise _NotConst
                for v in it:
                    ne = dict(e)
                    self._bind(g.target, v, ne)
                    if all(self.ev(c, ne) for c in g.ifs):
                        nxt.append(ne)
                    if len(nxt) > MAX_COMBINATIONS:
                        raise _NotConst
            envs = nxt
        return envs

    def _bind(self, target: ast.AST, value, env: dict) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            try:
                vals = list(value)
            except TypeError:
                raise _NotConst from None
            if len(vals) != len(target.elts):
                raise _NotConst
            for t, v in zip(target.elts, vals):
                self._bind(t, v, env)
        else:
            raise _NotConst


def _config_values(facts: PyFacts) -> list[tuple[ast.Call, list[ConfigValue]]]:
    folder = Folder(facts)
    out = []
    for node in ast.walk(facts.src.tree):
        if not (isinstance(node, ast.Call) and facts.qualname(node.func) == "triton.Config"):
            continue
        loops = []  # enclosing generators / for loops, innermost first
        cur: ast.AST = node
        while True:
            par = facts.parent(cur)
            if par is None or isinstance(par, (ast.FunctionDef, ast.Module, ast.ClassDef)):
                break
            if isinstance(par, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and cur is par.elt:
                loops.append(par.generators)
            elif isinstance(par, ast.For) and cur in par.body:
                loops.append(
                    [ast.comprehension(target=par.target, iter=par.iter, ifs=[], is_async=0)]
                )
            cur = par
        gens = [g for gs in reversed(loops) for g in gs]
        try:
            envs = folder.comprehension_envs(gens, {}) if gens else [{}]
        except _NotConst:
            envs = [None]  # loop domains unknown: evaluate with unknown names
        values = []
        for env in envs:
            values.append(folder.config(node, env if env is not None else {}))
        out.append((node, values))
    return out


def _launches(facts: PyFacts) -> list[tuple[ast.Call, ConfigValue]]:
    names = {k.name for k in facts.kernels}
    folder = Folder(facts)
    out = []
    for node in ast.walk(facts.src.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            base = dotted(node.func.value) or ""
            if base.rsplit(".", 1)[-1] in names or (names and base in names):
                opts = {k.arg: folder.soft(k.value, {}) for k in node.keywords if k.arg}
                out.append((node, ConfigValue({}, opts, node)))
    return out


def fold(facts: PyFacts, node: ast.AST):
    return Folder(facts).soft(node, {})


# -- CUDA C++ in string literals -----------------------------------------------------------
# carrier -> (positional index, keyword) of each argument holding CUDA C++, and whether that
# argument is a snippet (a statement body / declarations) rather than a whole source.
# Sources: CuPy API reference (RawKernel(code, name), RawModule(code=..), ElementwiseKernel(
# in_params, out_params, operation, name, ..., preamble=..), ReductionKernel(..., preamble=..));
# PyTorch torch.utils.cpp_extension.load_inline(name, cpp_sources, cuda_sources=..).
CARRIERS: dict[str, tuple[tuple[int | None, str, str], ...]] = {
    "cupy.RawKernel": ((0, "code", "source"),),
    "cupy.RawModule": ((0, "code", "source"),),
    "cupy.ElementwiseKernel": ((2, "operation", "body"), (None, "preamble", "source")),
    "cupy.ReductionKernel": ((None, "preamble", "source"),),
    "torch.utils.cpp_extension.load_inline": ((2, "cuda_sources", "source"),),
}
_CARRIER_BYTES = (b"cupy", b"cpp_extension")  # no carrier without one of these in the file


@dataclass(frozen=True)
class CarrierSource:
    """One CUDA C++ source given to a carrier as string constants."""

    call: ast.Call
    carrier: str  # the CARRIERS key (`cupyx.`/`cupy._core.` spellings folded to `cupy.`)
    kind: str  # "source" (a whole translation unit) or "body" (a statement body)
    leaves: tuple[ast.Constant, ...]  # the str constants it concatenates, in order


@dataclass
class EmbeddedSources:
    """The carriers' sources: those porter can read (`sources`, in `ast.walk` order of their
    calls) and the calls whose source is built at run time, with why (`dynamic`)."""

    sources: list[CarrierSource] = field(default_factory=list)
    dynamic: list[tuple[ast.Call, str]] = field(default_factory=list)

    def mark_dynamic(self, call: ast.Call, why: str) -> None:
        """Record that `call`'s source cannot be read (once per call)."""
        if not any(c is call for c, _ in self.dynamic):
            self.dynamic.append((call, why))


def _embedded_sources(facts: PyFacts) -> EmbeddedSources:
    out = EmbeddedSources()
    if not any(k in facts.src.buf for k in _CARRIER_BYTES):
        return out
    for call in ast.walk(facts.src.tree):
        if not isinstance(call, ast.Call):
            continue
        q = facts.qualname(call.func)
        if q is None:
            continue
        if q.startswith("cupyx.") or q.startswith("cupy._core."):
            q = "cupy." + q.rsplit(".", 1)[-1]
        spec = CARRIERS.get(q)
        if spec is None:
            continue
        for index, kw, kind in spec:
            arg = next((k.value for k in call.keywords if k.arg == kw), None)
            if arg is None and index is not None and index < len(call.args):
                arg = call.args[index]
            if arg is None:
                continue
            for expr in _carrier_args(facts, arg, call):
                leaves = _leaves(facts, out, expr, call)
                if leaves is not None:
                    out.sources.append(CarrierSource(call, q, kind, tuple(leaves)))
    return out


def _carrier_args(facts: PyFacts, arg: ast.AST, call: ast.Call) -> list[ast.AST]:
    """The expressions that hold a source: a list of sources for load_inline."""
    arg = _resolve(facts, arg, call)
    if isinstance(arg, (ast.List, ast.Tuple)):
        return [_resolve(facts, e, call) for e in arg.elts]
    if isinstance(arg, ast.Constant) and arg.value is None:
        return []
    return [arg]


def _resolve(facts: PyFacts, node: ast.AST, call: ast.Call) -> ast.AST:
    """A name bound once, in the enclosing function or at module level, to its value."""
    if not isinstance(node, ast.Name):
        return node
    fn: ast.AST | None = call
    while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = facts.parent(fn)
    if fn is not None:
        found = [
            s.value
            for s in ast.walk(fn)
            if isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
            and s.targets[0].id == node.id
        ]
        if len(found) == 1:
            return found[0]
        if found:
            return node
    return facts.module_consts.get(node.id, node)


def _leaves(
    facts: PyFacts, out: EmbeddedSources, expr: ast.AST, call: ast.Call
) -> list[ast.Constant] | None:
    """String constants that concatenate to the source, or None (built at run time: the call
    is marked dynamic in `out`)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left = _leaves(facts, out, _resolve(facts, expr.left, call), call)
        right = _leaves(facts, out, _resolve(facts, expr.right, call), call)
        if left is not None and right is not None:
            return left + right
        return None
    why = (
        "built by an f-string"
        if isinstance(expr, ast.JoinedStr)
        else "built at run time"
        if not isinstance(expr, ast.Constant)
        else "not a str literal"
    )
    out.mark_dynamic(call, why)
    return None


# -- libdevice lists ------------------------------------------------------------------------
DATA_FILE = Path(__file__).with_name("triton_libdevice.json")
_DEF = re.compile(r"^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)
_VERSION = re.compile(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def _triton_dir() -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec("triton")  # finds the package without importing it
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def read_wheel_lists(root: Path) -> dict:
    """Function names of the CUDA and the HIP libdevice modules and of `tl.math`, from source."""

    def names(rel: str) -> list[str]:
        return sorted(set(_DEF.findall((root / rel).read_text(encoding="utf-8"))))

    version = _VERSION.search((root / "__init__.py").read_text(encoding="utf-8"))
    return {
        "triton_version": version.group(1) if version else "unknown",
        "cuda": names("language/extra/cuda/libdevice.py"),
        "hip": names("language/extra/hip/libdevice.py"),
        "generic": names("language/extra/libdevice.py"),
        "math": [n for n in names("language/math.py") if not n.startswith("_")],
        # the helpers of triton.language.extra.{cuda,hip} besides libdevice
        "cuda_helpers": [
            n
            for n in names("language/extra/cuda/utils.py") + names("language/extra/cuda/gdc.py")
            if not n.startswith("_")
        ],
        "hip_helpers": [n for n in names("language/extra/hip/utils.py") if not n.startswith("_")],
    }


@lru_cache(maxsize=1)
def libdevice_lists() -> dict:
    """The installed triton's lists (the compiler that will run the code), else the data file
    generated from a triton wheel (`python -m porter.analysis.python --generate`)."""
    root = _triton_dir()
    if root is not None:
        try:
            return read_wheel_lists(root)
        except OSError:
            pass
    return json.loads(DATA_FILE.read_text(encoding="utf-8"))


def hip_helpers() -> frozenset[str]:
    """Helper functions of the installed triton's `triton.language.extra.hip` (memrealtime,
    smid, num_threads, num_warps in triton 3.9)."""
    return frozenset(libdevice_lists().get("hip_helpers", ()))


def _generate() -> None:
    root = _triton_dir()
    if root is None:
        raise SystemExit("triton is not installed: cannot generate the libdevice lists")
    data = read_wheel_lists(root)
    DATA_FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(
        f"wrote {DATA_FILE} (triton {data['triton_version']}: {len(data['cuda'])} CUDA, "
        f"{len(data['hip'])} HIP functions)"
    )


__all__ = [
    "AMD",
    "NVIDIA",
    "UNKNOWN",
    "ConfigValue",
    "PyFacts",
    "CARRIERS",
    "CarrierSource",
    "EmbeddedSources",
    "build",
    "fold",
    "hip_helpers",
    "libdevice_lists",
]

if __name__ == "__main__":
    import sys

    if "--generate" in sys.argv:
        _generate()
