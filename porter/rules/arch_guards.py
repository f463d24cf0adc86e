"""PT3xx: compile-time guards and capability checks (`__CUDA_ARCH__`, `__CUDACC__`, CUDA version
macros, compute-capability tests on the host).

Preprocessor conditionals are line-oriented and often enclose unbalanced braces, which the
tree-sitter grammar represents lossily (ERROR nodes, `#elif` swallowed). This module therefore
reads the conditional directives line by line (skipping those the tree places in comments or
strings), parses each condition with a small C-preprocessor expression parser, and evaluates it
three-valued (true / false / unknown) in two worlds: HIP-Clang for AMD, and nvcc. That model
is `porter.analysis.preproc` (`ctx.pp`), shared with the other rules and the rewriter.
"""

from __future__ import annotations

from ..analysis.functions import enclosing_function
from ..analysis.lazyre import re
from ..analysis.lex import find_word
from ..analysis.preproc import Branch, PPState
from ..analysis.tree import code_byte_before, in_comment
from ..findings import Applicability, Edit, Severity
from .base import Rule, RuleContext
from .registry import register


def _directive_word(b: Branch) -> str:
    return "#" + b.kind


def _head(b: Branch) -> str:
    raw = b.raw  # (a property computed on each read)
    raw = raw if len(raw) <= 60 else raw[:57] + "..."
    return f"`#{b.kind} {raw}`"


def _is(body: str) -> str:
    return "is" if body.startswith(("line ", "an ", "a ", "the ")) else "are"


def _them(body: str) -> str:
    return "it" if body.startswith(("line ", "an ", "a ", "the ")) else "them"


def _body_desc(pp: PPState, b: Branch) -> str:
    if b.end <= b.line_end:
        return "an empty branch"
    return pp.lines(b.line_end, b.end)


_NV_ONLY_MACROS = re.compile(r"__CUDA_ARCH\w*|__NVCC__|__CUDACC\w*|__CUDA__")


def _alt_desc(pp: PPState, b: Branch) -> str:
    """The branch HIP-Clang compiles instead: the first later branch of the chain that is not
    itself always false there (an `#elif __CUDA_ARCH__ >= 700` is as dead as the `#if`)."""
    assert b.group is not None  # every branch of PPState.branches is in a group
    for r in b.group.branches[b.index + 1 :]:
        if r.cond is not None:
            override = {n: (False, 0) for n in r.cond.names if _NV_ONLY_MACROS.fullmatch(n)}
            if r.cond.eval("amd", override) == 0:
                continue
        return f"the `{_directive_word(r)}` branch at line {pp.line(r.start)}"
    return ""


def _guard_branches(ctx: RuleContext, names_pred):
    """Branches whose own condition mentions a macro selected by `names_pred`, in live code that
    has no AMD alternative in the same #if chain."""
    pp = ctx.pp
    for b in pp.branches:
        if b.cond is None:
            continue
        hits = [n for n in b.cond.names if names_pred(n)]
        if not hits:
            continue
        assert b.group is not None
        if b.group.mentions_amd():
            continue
        if pp.skip(b.start):
            continue
        yield pp, b, hits


def _pragma_only(body: bytes) -> bool:
    text = re.sub(rb"/\*.*?\*/|//[^\n]*", b"", body, flags=re.S)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return bool(lines) and all(ln.startswith((b"#pragma", b"_Pragma", b"# pragma")) for ln in lines)


def _cond_range(b: Branch) -> tuple[int, int]:
    return b.start, max(b.start + 1, b.line_end - 1)


def _nv_content(ctx: RuleContext, a: int, b: int) -> str:
    """What NVIDIA-only content a lost branch holds (for messages)."""
    n = sum(1 for s in ctx.asm.all if s.ptx and a <= s.start < b)
    if not n:
        return ""
    return (
        f" (they hold {n} inline PTX statement{'s' if n != 1 else ''} that need an AMD version too)"
    )


# -- PT301 -------------------------------------------------------------------------------------
_ARCH_COMPARED = re.compile(r"__CUDA_ARCH\w*\s*(?:[<>]=?|[!=]=)|(?:[<>]=?|[!=]=)\s*__CUDA_ARCH")


@register
class CudaArchGuard(Rule):
    """`__CUDA_ARCH__` test: HIP-Clang never defines it, so the branch choice is wrong on AMD.

    ## What it finds
    `#if`, `#ifdef`, `#ifndef` and `#elif` conditions that test `__CUDA_ARCH__` (also
    `__CUDA_ARCH_LIST__`, `__CUDA_ARCH_SPECIFIC__`, `__CUDA_ARCH_FEAT_SM90_ALL`...), and uses of
    `__CUDA_ARCH__` as a value in code. Conditions whose `#if` chain already names an AMD macro
    (`__HIP_DEVICE_COMPILE__`, `__HIP_PLATFORM_AMD__`, `__gfx942__`, a project flag such as
    `USE_ROCM`) and code inside NVIDIA-only branches are left alone. The message says which
    branch AMD loses and which one it compiles instead.

    ## Why it breaks on AMD
    HIP-Clang leaves `__CUDA_ARCH__` undefined in the host *and* the device pass (checked with
    `clang -x hip -dM -E` for gfx942), so `#ifdef __CUDA_ARCH__` device paths are silently
    compiled out, host fallbacks end up in device functions, and `#if __CUDA_ARCH__ >= 800`
    evaluates `0 >= 800`: the sm_80 path is never built. A version number cannot express AMD
    features anyway (MI300 is not "sm_94").

    ## Example
    ```cpp
    __host__ __device__ float fast_exp(float x) {
    #ifdef __CUDA_ARCH__
      return __expf(x);          // never compiled on AMD
    #else
      return std::exp(x);        // used in AMD device code
    #endif
    }
    ```

    ## Use instead
    `__HIP_DEVICE_COMPILE__` for "device pass", `__HIP_ARCH_HAS_*` feature macros or
    `__gfx942__`/`__GFX9__` for architecture features, `__HIP_PLATFORM_AMD__` for the vendor,
    e.g. `#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)`.

    ## Fix safety
    Display only: porter never rewrites this; the message names the replacement. The right
    condition depends on what the test meant ("the device pass" → `__HIP_DEVICE_COMPILE__`, an
    architecture feature → `__gfx942__` or a `__HIP_ARCH_HAS_*` macro), which porter cannot
    decide.

    ## References
    - HIP porting guide, "HIP_ARCH Defines" and "Compiler Defines: Summary" [HPG]
    - `hip/hip_common.h` (ROCm 7.2): `__HIP_DEVICE_COMPILE__`, `__HIP_ARCH_HAS_*`
    """

    code = "PT301"
    name = "cuda-arch-guard"
    severity = Severity.ERROR
    fix = Applicability.DISPLAY
    triggers = (b"__CUDA_ARCH",)

    NAMES = re.compile(r"__CUDA_ARCH(?:__|_LIST__|_SPECIFIC__|_FAMILY_SPECIFIC__|_FEAT_\w+)")

    def check(self, ctx):
        pp = ctx.pp
        is_arch = self.NAMES.fullmatch  # (looked up once, not per macro name)
        for pp, b, hits in _guard_branches(ctx, lambda n: is_arch(n) is not None):
            yield self._directive(ctx, pp, b, hits)
        # __CUDA_ARCH__ used as a value in C++ code (not in a directive): none when each of its
        # words is on a directive line or in a comment (no tree read then)
        data = ctx.data
        if all(
            pp.on_directive_line(pos) or in_comment(data, pos)
            for name in (b"__CUDA_ARCH__", b"__CUDA_ARCH_LIST__")
            if name in ctx.idents
            for pos in find_word(data, name)
        ):
            return
        for node in ctx.identifiers(re.compile(r"__CUDA_ARCH__|__CUDA_ARCH_LIST__")):
            if pp.on_directive_line(node.start_byte):
                continue  # (tested first: a bisect, where the walk up is per ancestor)
            p, in_pp = node.parent, False
            while p is not None:
                if p.type in (
                    "preproc_call",
                    "preproc_def",
                    "preproc_function_def",
                    "preproc_include",
                ):
                    in_pp = True
                    break
                p = p.parent
            if in_pp:
                continue
            if pp.skip(node.start_byte):
                continue
            yield self.finding(
                ctx,
                node,
                f"`{ctx.text(node)}` is used as a value, but HIP-Clang "
                "does not "
                "define it, so this does not compile on AMD; use "
                "`__HIP_DEVICE_COMPILE__` "
                f"or an arch macro (`__gfx942__`, `__GFX9__`) under "
                f"`#if defined(__HIP_PLATFORM_AMD__)`",
            )

    def _directive(self, ctx, pp: PPState, b: Branch, hits):
        name = hits[0]
        override = {n: (False, 0) for n in hits}
        assert b.cond is not None and b.group is not None  # hits come from b.cond
        v = b.cond.eval("amd", override)
        head = _head(b)
        alt = _alt_desc(pp, b)
        device_test = self._device_test(b)
        body = _body_desc(pp, b)
        sev = Severity.WARNING
        if v == 0:
            lost_content = _nv_content(ctx, b.line_end, b.end)
            what = (
                f"is always false with HIP-Clang (`{name}` is undefined, also in device code): "
                f"{body} {_is(body)} never compiled on AMD{lost_content}"
            )
            what += f" and {alt} is used instead" if alt else f" and nothing replaces {_them(body)}"
            # an error when code is simply dropped, or a device path is replaced by the host one;
            # a fallback chosen instead of an sm_XX/PTX fast path is a warning
            if not alt or (device_test and not lost_content):
                sev = Severity.ERROR
        elif v == 1:
            what = (
                f"is always true with HIP-Clang (`{name}` is undefined, also in device code): "
                f"{body} {_is(body)} compiled on AMD in host and device code"
            )
            if alt:
                nxt = b.group.branches[b.index + 1]
                lost_content = _nv_content(ctx, nxt.line_end, b.group.end)
                what += f", and {alt} is never compiled{lost_content}"
                if device_test and not lost_content:
                    sev = Severity.ERROR
        else:
            what = (
                "cannot select device code or an architecture on AMD: HIP-Clang leaves "
                f"`{name}` undefined"
            )
        msg = (
            f"{head} {what}; test `__HIP_DEVICE_COMPILE__` for device code, or "
            f"`__gfx942__`/`__GFX9__`/`__HIP_ARCH_HAS_*` for features"
        )
        return self.finding(ctx, _cond_range(b), msg, severity=sev)

    @staticmethod
    def _device_test(b: Branch) -> bool:
        """The condition tests whether __CUDA_ARCH__ is defined (host/device split), not a
        number."""
        if b.kind in ("ifdef", "ifndef", "elifdef", "elifndef"):
            return True
        assert b.cond is not None
        return not _ARCH_COMPARED.search(b.cond.text)


# -- PT302 -------------------------------------------------------------------------------------
# CUDA C++ language keywords and built-ins: a `__CUDACC__` test around them selects the language,
# which HIP-Clang compiles too
_CUDA_LANGUAGE = re.compile(
    rb"\b(?:__host__|__device__|__global__|__forceinline__|__noinline__"
    rb"|__launch_bounds__|__shared__|__constant__|__managed__|__restrict__"
    rb"|threadIdx|blockIdx|blockDim|gridDim|__syncthreads)\b"
    rb"|<<<"  # a kernel launch (in a macro body too): HIP-Clang compiles the syntax
)


@register
class CudaccNvccGuard(Rule):
    """`__CUDACC__` / `__NVCC__` test: hipcc does not define them, so the guarded code is dropped.

    ## What it finds
    `#if`/`#ifdef`/`#ifndef`/`#elif` conditions naming `__CUDACC__`, `__NVCC__`, `__CUDACC_RTC__`,
    `__CUDA__` or `__CUDACC_DEBUG__`/`__CUDACC_RDC__`, in code both compilers see, whose `#if`
    chain does not already name an AMD macro (`__HIPCC__`, `__HIP__`, `__HIP_PLATFORM_AMD__`, ...).
    Version tests (`__CUDACC_VER_MAJOR__`) are PT304.

    ## Why it breaks on AMD
    HIP-Clang defines `__HIP__` and `__HIPCC__` but not `__CUDACC__`, `__NVCC__` or `__CUDA__`
    (HIP porting guide defines table; checked with `clang -x hip -dM -E`). A header that writes
    `#ifdef __CUDACC__ #define HD __host__ __device__ #else #define HD #endif` silently turns its
    device functions into host functions on AMD; `#ifndef __CUDACC__` code meant for plain host
    compilers is compiled by hipcc.

    ## Example
    ```cpp
    #ifdef __CUDACC__
    #define HOST_DEVICE __host__ __device__
    #else
    #define HOST_DEVICE
    #endif
    ```

    ## Use instead
    `#if defined(__CUDACC__) || defined(__HIPCC__)` (the fix does this for `__CUDACC__` and
    `__CUDACC_RTC__`/`__HIPCC_RTC__`); keep `__NVCC__` tests for nvcc-only pragmas and add an
    AMD branch where needed. The fix is safe, and `porter port` applies it, when the tested
    branches use CUDA language keywords or built-ins (`__host__ __device__`, `__global__`,
    `threadIdx`...): such a test means "a GPU compiler", which HIP-Clang is; elsewhere it is
    unsafe (the code may rely on nvcc itself).

    ## Fix safety
    The fix turns `#ifdef __CUDACC__` into `#if defined(__CUDACC__) || defined(__HIPCC__)`
    (`#ifndef` into `!defined(__CUDACC__) && !defined(__HIPCC__)`, and each
    `defined(__CUDACC__)` of an `#if`/`#elif` into
    `(defined(__CUDACC__) || defined(__HIPCC__))`; `__CUDACC_RTC__` gets `__HIPCC_RTC__`).
    nvcc's result does not change. The fix is safe, and `porter port` applies it, when the
    guarded branches use CUDA language keywords or built-ins (`__host__ __device__`,
    `__global__`, `threadIdx`...): such a test means "a GPU compiler", which HIP-Clang is.
    Otherwise it is unsafe (`--unsafe-fixes`): the code may rely on nvcc itself. Not offered
    when the condition also tests `__NVCC__`, `__CUDA__`, `__CUDACC_DEBUG__` or `__CUDACC_RDC__`
    (no AMD counterpart), or tests a name other than through `defined`.

    ## References
    - HIP porting guide, "Compiler Defines: Summary" [HPG]
    - `hip/hip_common.h` (ROCm 7.2): `__HIPCC__` is defined for nvcc when `__CUDACC__` is
    """

    code = "PT302"
    name = "cudacc-nvcc-guard"
    severity = Severity.WARNING
    fix = Applicability.SAFE  # the best of its fixes (safe when the branches are CUDA C++)
    triggers = (
        b"__CUDACC__",
        b"__NVCC__",
        b"__CUDACC_RTC__",
        b"__CUDA__",
        b"__CUDACC_DEBUG__",
        b"__CUDACC_RDC__",
    )
    NAMES = {
        "__CUDACC__",
        "__NVCC__",
        "__CUDACC_RTC__",
        "__CUDA__",
        "__CUDACC_DEBUG__",
        "__CUDACC_RDC__",
    }
    HIP_NAME = {"__CUDACC__": "__HIPCC__", "__CUDACC_RTC__": "__HIPCC_RTC__"}

    def check(self, ctx):
        for pp, b, hits in _guard_branches(ctx, lambda n: n in self.NAMES):
            if _pragma_only(ctx.data[b.line_end : b.end]) and len(b.group.branches) == 1:
                continue  # nvcc-only pragmas (nv_diag_suppress): nothing is lost on AMD
            override = {n: (False, 0) for n in hits}
            v = b.cond.eval("amd", override)
            name = hits[0]
            head = _head(b)
            alt = _alt_desc(pp, b)
            body = _body_desc(pp, b)
            hip = self.HIP_NAME.get(name, "__HIPCC__")
            if v == 0:
                what = (
                    "is false under hipcc (HIP-Clang defines `__HIPCC__`/`__HIP__`, "
                    f"not `{name}`): {body} {_is(body)} dropped on AMD"
                )
                what += f" and {alt} is used instead" if alt else ""
            elif v == 1:
                what = (
                    f"is true under hipcc (HIP-Clang does not define `{name}`): {body} "
                    f"{_is(body)} compiled on AMD"
                )
                what += f" and {alt} is dropped" if alt else ""
            else:
                what = f"depends on `{name}`, which HIP-Clang does not define"
            if name in self.HIP_NAME:
                todo = f"add `|| defined({hip})` if the code is meant for any GPU compiler"
            else:
                todo = "add an AMD branch (`defined(__HIPCC__)`) if the code is not nvcc-specific"
            # a test that selects CUDA language features (`#define HD __host__ __device__`) means
            # "a GPU compiler": accepting hipcc too is then safe, and porter applies it
            lang = (
                _CUDA_LANGUAGE.search(ctx.data, b.group.branches[0].start, b.group.end) is not None
            )
            fix = self._fix(ctx, b, hits, Applicability.SAFE if lang else Applicability.UNSAFE)
            yield self.finding(ctx, _cond_range(b), f"{head} {what}; {todo}", fix=fix)

    def _fix(self, ctx, b: Branch, hits, applicability: Applicability = Applicability.UNSAFE):
        """`__CUDACC__` → `(defined(__CUDACC__) || defined(__HIPCC__))`, only when every name the
        condition tests is one with an AMD counterpart."""
        if any(n not in self.HIP_NAME for n in hits):
            return None
        data = ctx.data
        if b.kind in ("ifdef", "ifndef"):
            name = hits[0]
            hip = self.HIP_NAME[name]
            m = re.compile(rb"#[ \t]*(ifn?def)[ \t]+" + re.escape(name.encode()) + rb"\b").match(
                data, b.start
            )
            if not m:
                return None
            if b.kind == "ifdef":
                new = f"if defined({name}) || defined({hip})"
            else:
                new = f"if !defined({name}) && !defined({hip})"
            return self.make_fix(
                [Edit(m.start(1), m.end(), new.encode())], applicability, f"also accept {hip}"
            )
        if b.kind not in ("if", "elif"):
            return None
        seg = data[b.cond_start : b.cond_end]
        edits = []
        pat = re.compile(
            rb"defined\s*\(\s*("
            + b"|".join(re.escape(n.encode()) for n in self.HIP_NAME)
            + rb")\s*\)|defined\s+("
            + b"|".join(re.escape(n.encode()) for n in self.HIP_NAME)
            + rb")\b"
        )
        for m in pat.finditer(seg):
            name = (m.group(1) or m.group(2)).decode()
            new = f"(defined({name}) || defined({self.HIP_NAME[name]}))"
            edits.append(Edit(b.cond_start + m.start(), b.cond_start + m.end(), new.encode()))
        if (
            not edits
            or b.cond is None
            or len(edits) != sum(1 for n in b.cond.names if n in self.HIP_NAME)
        ):
            return None
        return self.make_fix(edits, applicability, "also accept the HIP compiler macro")


# -- PT304 -------------------------------------------------------------------------------------
_VERSION_MACROS = {
    "CUDART_VERSION",
    "CUDA_VERSION",
    "__CUDACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__",
    "__CUDACC_VER_BUILD__",
    "__CUDACC_VER__",
}


@register
class CudaVersionMacro(Rule):
    """CUDA version test (`CUDART_VERSION`, `__CUDACC_VER_MAJOR__`, runtime version) on AMD.

    ## What it finds
    - `#if`/`#elif` comparisons of `CUDART_VERSION`, `CUDA_VERSION`, `__CUDACC_VER_MAJOR__`,
      `__CUDACC_VER_MINOR__`, `__CUDACC_VER_BUILD__` with numbers, in code both compilers see and
      whose `#if` chain names no AMD macro;
    - comparisons with a number of a variable filled by `cudaRuntimeGetVersion`,
      `cudaDriverGetVersion`, `cuDriverGetVersion` (or the `hip` spellings).

    ## Why it breaks on AMD
    These macros are not defined by HIP (an undefined name is 0 in `#if`), so
    `#if CUDART_VERSION >= 11000` silently selects the legacy branch and `< 11000` the other way
    round. `hipRuntimeGetVersion`/`hipDriverGetVersion` return the HIP version
    (`HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + patch`, e.g. 70253211 for
    ROCm 7.2), which the HIP headers say has "no mapping/correlation" with CUDA versions, so
    `version >= 11000` is always true.

    ## Example
    ```cpp
    #if CUDART_VERSION >= 11000
      cudaStreamSetAttribute(...);
    #endif
    int v; cudaRuntimeGetVersion(&v);
    if (v >= 11020) use_async_alloc();
    ```

    ## Use instead
    `HIP_VERSION`, `HIP_VERSION_MAJOR`, `HIP_VERSION_MINOR` (from `hip/hip_version.h`) under
    `#if defined(__HIP_PLATFORM_AMD__)`, or feature tests; on the host, check the platform first.

    ## Fix safety
    Display only: porter never rewrites this; the message names the replacement. A CUDA version
    has no HIP counterpart: the right test is a HIP version or a feature, chosen by hand.

    ## References
    - `hip/hip_version.h` and the `hipRuntimeGetVersion`/`hipDriverGetVersion` comments in
      `hip/hip_runtime_api.h` (ROCm 7.2)
    - SYCLomatic issue 1910 (`CUDA_VERSION` not migrated); ROCm/TransferBench PR 220
    - hipify-perl has no mapping for `CUDART_VERSION` [HIPIFY-PERL]
    """

    code = "PT304"
    name = "cuda-version-macro"
    severity = Severity.WARNING
    fix = Applicability.DISPLAY
    triggers = (
        b"CUDART_VERSION",
        b"CUDA_VERSION",
        b"__CUDACC_VER",
        b"RuntimeGetVersion",
        b"DriverGetVersion",
    )
    GETTERS = {
        "cudaRuntimeGetVersion",
        "cudaDriverGetVersion",
        "cuDriverGetVersion",
        "hipRuntimeGetVersion",
        "hipDriverGetVersion",
    }

    def check(self, ctx):
        for pp, b, hits in _guard_branches(ctx, lambda n: n in _VERSION_MACROS):
            if not re.search(r"(?:==|!=|>=|<=|<|>)", b.cond.text):
                continue
            override = {n: (False, 0) for n in hits}
            v = b.cond.eval("amd", override)
            name = hits[0]
            head = _head(b)
            body = _body_desc(pp, b)
            alt = _alt_desc(pp, b)
            if v == 0:
                what = (
                    f"is false on ROCm (`{name}` is undefined, so it counts as 0): {body} "
                    f"{_is(body)} dropped"
                )
                what += f" and {alt} is used instead" if alt else ""
            elif v == 1:
                what = (
                    f"is true on ROCm (`{name}` is undefined, so it counts as 0): {body} "
                    f"{_is(body)} used"
                )
                what += f" and {alt} is dropped" if alt else ""
            else:
                what = f"depends on `{name}`, which HIP does not define"
            yield self.finding(
                ctx,
                _cond_range(b),
                f"{head} {what}; test `HIP_VERSION`/`HIP_VERSION_MAJOR` "
                f"under `defined(__HIP_PLATFORM_AMD__)` for the AMD side",
            )
        yield from self._runtime(ctx)

    def _runtime(self, ctx):
        if not ctx.calls.may_call(self.GETTERS):
            return  # no getter called: no walk over the calls
        pp = ctx.pp
        for call in ctx.nodes("call_expression"):
            fn = call.child_by_field_name("function")
            if fn is None or fn.type != "identifier" or ctx.text(fn) not in self.GETTERS:
                continue
            args = call.child_by_field_name("arguments")
            if args is None or not args.named_children:
                continue
            a0 = args.named_children[0]
            if a0.type != "pointer_expression" or ctx.btext(a0)[:1] != b"&":
                continue
            arg = a0.child_by_field_name("argument")
            if arg is None or arg.type != "identifier":
                continue
            var = ctx.text(arg)
            scope = enclosing_function(call, lambdas=True) or ctx.root
            for cmp in _comparisons(ctx, scope, var, after=call.end_byte):
                if pp.skip(cmp.start_byte) or _vendor_checked(ctx, cmp):
                    continue
                getter = ctx.text(fn)
                hip = getter.replace("cuda", "hip").replace("cuDriver", "hipDriver")
                rv = ctx.options.rocm_version + (0, 0)
                hv = rv[0] * 10000000 + rv[1] * 100000
                res = _compare(cmp, ctx, var, hv)
                outcome = (
                    "" if res is None else f", so this test is {'true' if res else 'false'} there"
                )
                yield self.finding(
                    ctx,
                    cmp,
                    f"`{ctx.text(cmp)}` compares a CUDA version number, "
                    "but on "
                    f"AMD `{hip}` returns the HIP version ({hv} and up for ROCm "
                    f"{rv[0]}.{rv[1]}){outcome}; check the platform first or "
                    "compare "
                    f"against HIP_VERSION",
                )


# -- shared tree helpers -----------------------------------------------------------------------
_CMP_OPS = {">=", ">", "<=", "<", "==", "!="}


def _strip(node):
    while node is not None and node.type in ("parenthesized_expression", "cast_expression"):
        if node.type == "cast_expression":
            node = node.child_by_field_name("value")
        else:
            inner = [c for c in node.named_children if c.type != "comment"]
            node = inner[0] if inner else None
    return node


def _is_number(node) -> bool:
    node = _strip(node)
    return node is not None and node.type == "number_literal"


def _comparisons(ctx, scope, var: str, after: int = 0):
    """Comparisons `var OP number` in `scope` after byte `after`, used as conditions."""
    for cmp in ctx.captures("(binary_expression) @b", scope).get("b", []):
        if cmp.start_byte < after:
            continue
        op = cmp.child_by_field_name("operator")
        if op is None or ctx.text(op) not in _CMP_OPS:
            continue
        lhs = _strip(cmp.child_by_field_name("left"))
        r = _strip(cmp.child_by_field_name("right"))
        sides = [(lhs, r), (r, lhs)]
        for a, bb in sides:
            if a is not None and a.type == "identifier" and ctx.text(a) == var and _is_number(bb):
                if _in_condition(cmp):
                    yield cmp
                break


def _compare(cmp, ctx, var: str, value: int) -> bool | None:
    """Evaluate `var OP number` (either order) with var = value."""
    op = ctx.text(cmp.child_by_field_name("operator"))
    lhs = _strip(cmp.child_by_field_name("left"))
    r = _strip(cmp.child_by_field_name("right"))
    try:
        if lhs.type == "identifier" and ctx.text(lhs) == var:
            a, b = value, int(ctx.text(r).rstrip("uUlL"), 0)
        else:
            a, b = int(ctx.text(lhs).rstrip("uUlL"), 0), value
    except (ValueError, AttributeError):
        return None
    return {">=": a >= b, ">": a > b, "<=": a <= b, "<": a < b, "==": a == b, "!=": a != b}.get(op)


def _in_condition(node) -> bool:
    """The comparison decides control flow: if/while/for/ternary condition, return value, or a
    bool initialiser; not an argument of a call (assert/print) ."""
    p = node.parent
    while p is not None:
        t = p.type
        if t in (
            "condition_clause",
            "if_statement",
            "while_statement",
            "for_statement",
            "return_statement",
            "init_declarator",
            "assignment_expression",
        ):
            return True
        if t == "conditional_expression":
            return (
                p.child_by_field_name("condition") is not None
                and p.child_by_field_name("condition").start_byte
                <= node.start_byte
                < p.child_by_field_name("condition").end_byte
            )
        if t in ("argument_list", "expression_statement", "compound_statement", "initializer_list"):
            return False
        p = p.parent
    return False


_VENDOR_WORDS = re.compile(r"(?i)hip|rocm|amd|gcnArch|gfx")


def _vendor_checked(ctx, node) -> bool:
    """The enclosing condition already checks the vendor (e.g. `!is_hip && prop.major >= 9`)."""
    p = node.parent
    top = node
    while p is not None and p.type in (
        "binary_expression",
        "parenthesized_expression",
        "unary_expression",
        "condition_clause",
    ):
        top = p
        p = p.parent
    for ident in ctx.captures("[(identifier) (field_identifier)] @i", top).get("i", []):
        if _VENDOR_WORDS.search(ctx.text(ident)):
            return True
    return False


# -- PT303 -------------------------------------------------------------------------------------
_NV_ONLY_WORDS = re.compile(
    r"(?i)(?:^|_)(?:tma|wgmma|gmma|hopper|blackwell|sm_?9\d|sm_?10\d|sm_?12\d|cluster|tensormap|"
    r"tcgen05|fp8|e4m3|e5m2|warpspecializ\w*|pdl)(?:_|$|\d)|TensorMap|Tma[A-Z]|Sm9\d|Sm10\d|Hopper|"
    r"Blackwell|Fp8|FP8|Cluster[A-Z]|cuTensorMap|cudaLaunchKernelEx|__cluster_dims__"
)
_CC_ATTRS = {
    "cudaDevAttrComputeCapabilityMajor",
    "cudaDevAttrComputeCapabilityMinor",
    "hipDeviceAttributeComputeCapabilityMajor",
    "hipDeviceAttributeComputeCapabilityMinor",
    "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR",
    "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",
}
_CC_ATTR_BYTES = frozenset(a.encode() for a in _CC_ATTRS)
# the calls `_attr_vars` reads a capability from: their names (`ctx.text` of the function)
_CC_CALL_BYTES = frozenset({b"cuDeviceComputeCapability", b"hipDeviceComputeCapability"})
_DOT, _GT, _MINUS = 0x2E, 0x3E, 0x2D
_PROP_TYPES = re.compile(r"(?:cuda|hip)DeviceProp(?:_t)?\b")


@register
class CapabilityGate(Rule):
    """Compute-capability test on the host: true on AMD, which reports 9.x, 10.x, 11.x, 12.x.

    ## What it finds
    Comparisons with a number of `prop.major` (a `cudaDeviceProp`/`hipDeviceProp_t`, or an object
    whose name says "prop"), of `major * 10 + minor`-style expressions and variables computed from
    them, and of variables filled with `cudaDevAttrComputeCapabilityMajor`/`Minor` (also the HIP
    and driver spellings, and `cuDeviceComputeCapability`), when they decide control flow (if,
    ternary, return, a bool initialiser). Comparisons whose condition already checks the vendor
    (`gcnArchName`, `is_hip`, `USE_ROCM`), and uses for printing, are ignored.

    ## Why it breaks on AMD
    HIP derives major/minor from the gfx name: MI200 (gfx90a) reports 9.0, MI300 (gfx942) 9.4,
    MI350 (gfx950) 9.5, RDNA3 11.x, RDNA4 12.0. `prop.major >= 9` therefore selects Hopper paths
    (TMA, wgmma, clusters, fp8) on every CDNA GPU, and the same number means different things
    (9.0 is MI200 without fp8). The finding is an error when the selected branch uses
    NVIDIA-only features, a warning otherwise; the message lists what the test gives on each
    `--offload-arch` target.

    ## Example
    ```cpp
    cudaDeviceProp prop; cudaGetDeviceProperties(&prop, dev);
    if (prop.major >= 9) launch_tma_kernel(...);   // taken on MI300 (9.4)
    ```

    ## Use instead
    Check the vendor first (`#if defined(__HIP_PLATFORM_AMD__)`), then `prop.gcnArchName` (e.g.
    starts with "gfx942") or feature attributes (`hipDeviceAttribute*`), never the number alone.

    ## Fix safety
    Display only: porter never rewrites this; the message names the replacement. What the
    capability number stood for (a feature, an architecture) decides the AMD test, so porter
    does not write one.

    ## References
    - HIP porting guide (use feature flags, not major/minor) [HPG]
    - vllm-project/vllm issues 40620 and 14996; pytorch/torchtitan PR 4778; ROCm/pytorch PR 1846
    """

    code = "PT303"
    name = "capability-gate"
    severity = Severity.WARNING
    fix = Applicability.DISPLAY
    triggers = (b"major", b"ComputeCapability", b"COMPUTE_CAPABILITY")

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding compares an expression that depends (`_Env.depends`) on a `.major` or
        `.minor` field, on a variable filled by a compute-capability attribute call (its
        attribute or function name is then an identifier token), or on a local variable
        initialised from one of those: without a `major` or `minor` token after `.` or `->`
        (past blanks, splices and comments) and without those names, the file needs no parse
        for this rule."""
        if not (_CC_CALL_BYTES.isdisjoint(idents) and _CC_ATTR_BYTES.isdisjoint(idents)):
            return True
        for word in (b"major", b"minor"):
            if word not in idents:
                continue
            for pos in find_word(data, word):
                if in_comment(data, pos):
                    continue
                i = code_byte_before(data, pos)
                if i >= 0 and (
                    data[i] == _DOT or (data[i] == _GT and i > 0 and data[i - 1] == _MINUS)
                ):
                    return True
        return False

    def check(self, ctx):
        pp = ctx.pp
        prop_vars = self._prop_vars(ctx)
        attr_vars = self._attr_vars(ctx)  # name -> "major" | "minor" (per function)
        seen = set()
        for cmp in ctx.nodes("binary_expression"):
            op = cmp.child_by_field_name("operator")
            if op is None or ctx.text(op) not in _CMP_OPS:
                continue
            lhs, r = cmp.child_by_field_name("left"), cmp.child_by_field_name("right")
            if lhs is None or r is None:
                continue
            if _is_number(r) and not _is_number(lhs):
                expr, num, flip = lhs, _strip(r), False
            elif _is_number(lhs) and not _is_number(r):
                expr, num, flip = r, _strip(lhs), True
            else:
                continue
            func = enclosing_function(cmp, lambdas=True)
            env = _Env(ctx, prop_vars, attr_vars.get(func.start_byte if func else -1, {}), func)
            if not env.depends(expr):
                continue
            if not _in_condition(cmp) or _vendor_checked(ctx, cmp) or pp.skip(cmp.start_byte):
                continue
            if cmp.start_byte in seen:
                continue
            seen.add(cmp.start_byte)
            try:
                n = int(ctx.text(num).rstrip("uUlL"), 0)
            except ValueError:
                continue
            opx = ctx.text(op)
            if flip:
                opx = {">=": "<=", "<=": ">=", ">": "<", "<": ">"}.get(opx, opx)
            true_on: list[str] = []
            false_on: list[str] = []
            for t in ctx.options.targets:
                val = env.value(expr, t.capability)
                if val is None:
                    break
                res = {
                    ">=": val >= n,
                    ">": val > n,
                    "<=": val <= n,
                    "<": val < n,
                    "==": val == n,
                    "!=": val != n,
                }[opx]
                (true_on if res else false_on).append(
                    f"{t.arch} ({t.capability[0]}.{t.capability[1]})"
                )
            else:
                if not true_on:
                    continue  # branch not taken on any selected target
                guarded = self._guarded_text(ctx, cmp)
                nv = _NV_ONLY_WORDS.search(guarded) if guarded else None
                sev = Severity.ERROR if nv else Severity.WARNING
                why = (
                    f" and the branch uses NVIDIA-only `{nv.group(0).strip('_')}` code"
                    if nv
                    else ""
                )
                yield self.finding(
                    ctx,
                    cmp,
                    f"`{ctx.text(cmp)}` is true on {', '.join(true_on)} because HIP reports the "
                    "gfx "
                    f"version as compute capability{why}; check the vendor "
                    "(`__HIP_PLATFORM_AMD__`) "
                    f"and `gcnArchName` or a feature attribute instead",
                    severity=sev,
                    targets=tuple(s.split()[0] for s in true_on),
                )

    @staticmethod
    def _prop_vars(ctx) -> set[str]:
        out = set()
        for decl in ctx.nodes("declaration", "parameter_declaration", "field_declaration"):
            t = decl.child_by_field_name("type")
            if t is None or not _PROP_TYPES.search(ctx.text(t)):
                continue
            for d in decl.children_by_field_name("declarator"):
                while d is not None and d.type not in ("identifier", "field_identifier"):
                    d = d.child_by_field_name("declarator")
                if d is not None:
                    out.add(ctx.text(d))
        return out

    @staticmethod
    def _attr_vars(ctx) -> dict[int, dict[str, str]]:
        out: dict[int, dict[str, str]] = {}
        for call in ctx.nodes("call_expression"):
            fn = call.child_by_field_name("function")
            args = call.child_by_field_name("arguments")
            if fn is None or args is None:
                continue
            name = ctx.text(fn)
            a = [c for c in args.named_children if c.type != "comment"]
            pairs = []
            if (
                name in ("cudaDeviceGetAttribute", "hipDeviceGetAttribute", "cuDeviceGetAttribute")
                and len(a) >= 2
                and ctx.text(a[1]) in _CC_ATTRS
            ):
                pairs.append(
                    (a[0], "major" if ctx.text(a[1]).lower().endswith("major") else "minor")
                )
            elif (
                name in ("cuDeviceComputeCapability", "hipDeviceComputeCapability") and len(a) >= 2
            ):
                pairs += [(a[0], "major"), (a[1], "minor")]
            func = enclosing_function(call, lambdas=True)
            key = func.start_byte if func else -1
            for arg, which in pairs:
                if arg.type == "pointer_expression":
                    v = arg.child_by_field_name("argument")
                    if v is not None and v.type == "identifier":
                        out.setdefault(key, {})[ctx.text(v)] = which
        return out

    @staticmethod
    def _guarded_text(ctx, cmp) -> str:
        """Identifiers of the code the comparison selects (if body, ternary arm, bool variable or
        function name)."""
        p = cmp.parent
        while p is not None:
            if p.type == "if_statement":
                body = p.child_by_field_name("consequence")
                return (
                    " ".join(
                        ctx.text(i)
                        for i in ctx.captures(
                            "[(identifier) (field_identifier) (type_identifier)"
                            " (namespace_identifier)] @i",
                            body,
                        ).get("i", [])
                    )
                    if body is not None
                    else ""
                )
            if p.type == "conditional_expression":
                c = p.child_by_field_name("consequence")
                return ctx.text(c) if c is not None else ""
            if p.type == "init_declarator":
                d = p.child_by_field_name("declarator")
                return ctx.text(d) if d is not None else ""
            if p.type == "return_statement":
                f = enclosing_function(p, lambdas=True)
                d = f.child_by_field_name("declarator") if f is not None else None
                return ctx.text(d).split("(")[0] if d is not None else ""
            if p.type == "assignment_expression":
                return ctx.text(p.child_by_field_name("left"))
            p = p.parent
        return ""


class _Env:
    """Evaluates capability expressions (`prop.major * 10 + prop.minor`) for a target."""

    def __init__(self, ctx, prop_vars, attr_vars, func):
        self.ctx = ctx
        self.prop_vars = prop_vars
        self.attr_vars = attr_vars
        self.func = func
        self._derived: dict[str, object] | None = None

    def _is_prop(self, obj) -> bool:
        text = self.ctx.text(obj)
        base = re.split(r"[.\-\[(]", text, maxsplit=1)[0].lstrip("*&")
        return base in self.prop_vars or re.search(r"(?i)prop(?!ert(?!ies))", base) is not None

    def derived(self) -> dict[str, object]:
        """Local variables initialised from capability expressions, in the enclosing function."""
        if self._derived is None:
            self._derived = {}
            if self.func is not None:
                for d in self.ctx.captures("(init_declarator) @d", self.func).get("d", []):
                    name, val = d.child_by_field_name("declarator"), d.child_by_field_name("value")
                    if name is None or val is None or name.type != "identifier":
                        continue
                    if self._depends(val, depth=1):
                        self._derived[self.ctx.text(name)] = val
        return self._derived

    def depends(self, expr) -> bool:
        return self._depends(expr, 0)

    def _depends(self, expr, depth) -> bool:
        expr = _strip(expr)
        if expr is None:
            return False
        if expr.type == "field_expression":
            f = expr.child_by_field_name("field")
            return (
                f is not None
                and self.ctx.text(f) in ("major", "minor")
                and self._is_prop(expr.child_by_field_name("argument"))
            )
        if expr.type == "identifier":
            name = self.ctx.text(expr)
            if name in self.attr_vars:
                return True
            return depth == 0 and name in self.derived()
        if expr.type == "binary_expression":
            op = self.ctx.text(expr.child_by_field_name("operator"))
            if op not in ("+", "*", "-", "/"):
                return False
            return self._depends(expr.child_by_field_name("left"), depth) or self._depends(
                expr.child_by_field_name("right"), depth
            )
        return False

    def value(self, expr, cap, depth=0):
        expr = _strip(expr)
        if expr is None or depth > 3:
            return None
        t = expr.type
        if t == "number_literal":
            try:
                return int(self.ctx.text(expr).rstrip("uUlL"), 0)
            except ValueError:
                return None
        if t == "field_expression":
            f = self.ctx.text(expr.child_by_field_name("field"))
            return cap[0] if f == "major" else cap[1] if f == "minor" else None
        if t == "identifier":
            name = self.ctx.text(expr)
            if name in self.attr_vars:
                return cap[0] if self.attr_vars[name] == "major" else cap[1]
            if name in self.derived():
                return self.value(self.derived()[name], cap, depth + 1)
            return None
        if t == "binary_expression":
            a = self.value(expr.child_by_field_name("left"), cap, depth)
            b = self.value(expr.child_by_field_name("right"), cap, depth)
            if a is None or b is None:
                return None
            op = self.ctx.text(expr.child_by_field_name("operator"))
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if op == "/" and b:
                return a // b
        return None
