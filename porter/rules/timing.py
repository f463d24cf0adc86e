"""PT65x: timing, sleeping and debugging intrinsics (hazards.md section G)."""

from __future__ import annotations

from ..analysis.lazyre import re
from ..findings import Applicability, Edit, Severity
from .base import Rule
from .registry import register


@register
class Nanosleep(Rule):
    """`__nanosleep` has no HIP equivalent.

    ## What it finds
    Calls of `__nanosleep(ns)` (back-off loops in spin locks, polling kernels).

    ## Why it breaks on AMD
    ROCm 7.2's HIP headers do not declare `__nanosleep` (nor did the Oct-2024 clr), so the file
    does not compile. AMD's sleep instruction `s_sleep` is exposed as
    `__builtin_amdgcn_s_sleep(n)`, whose argument must be a compile-time constant (0..127) and
    counts units of about 64 clocks, not nanoseconds, so a variable back-off cannot be
    translated mechanically.

    ## Example
    ```cpp
    while (atomicCAS(lock, 0, 1) != 0) { __nanosleep(ns); ns = min(ns * 2, 256u); }
    ```

    ## Use instead
    `__builtin_amdgcn_s_sleep(2)` (a constant) in the back-off loop, or a spin on
    `wall_clock64()` against `hipDeviceAttributeWallClockRate` (kHz) when a real duration is
    needed.

    ## References
    - ROCm/clr `hipamd/include/hip/amd_detail` (no `__nanosleep`; checked again in ROCm 7.2)
    - HIPIFY CUDA Device API support table (`__nanosleep` unsupported)
    - LLVM AMDGPU builtins (`__builtin_amdgcn_s_sleep`)
    """

    code = "PT651"
    name = "nanosleep"
    severity = Severity.ERROR
    triggers = (b"__nanosleep",)

    def check(self, ctx):
        for cl in ctx.calls.named(("__nanosleep",)):
            _name, _ident, call, args = cl.name, cl.callee, cl.node, cl.args
            arg = ctx.text(args[0]) if args else ""
            yield self.finding(
                ctx,
                call,
                f"`__nanosleep({arg})` does not exist in HIP: use "
                f"`__builtin_amdgcn_s_sleep(N)` with a constant N (about 64 clocks "
                f"per unit) or spin on `wall_clock64()`",
            )


_RATE = (
    "cudaDevAttrClockRate",
    "hipDeviceAttributeClockRate",
    "CU_DEVICE_ATTRIBUTE_CLOCK_RATE",
    "HIP_DEVICE_ATTRIBUTE_CLOCK_RATE",
)


@register
class ClockRate(Rule):
    """`clock()`/`clock64()` cycle counts converted to time with the GPU clock rate.

    ## What it finds
    In a file that reads `clock()`, `clock64()` or `__clock64()` in device code, the uses of the
    device clock rate (`cudaDevAttrClockRate`, `prop.clockRate`, and their `hip*` spellings)
    that turn the cycle delta into seconds.

    ## Why it breaks on AMD
    On AMD `clock64()` reads the shader cycle counter (`s_memtime`), which runs at a variable
    frequency (power management changes it during the kernel); `clockRate` is the peak shader
    clock. Their ratio is not a duration. HIP provides a constant-rate counter for that,
    `wall_clock64()`, whose rate is `hipDeviceAttributeWallClockRate` (kHz).

    ## Example
    ```cpp
    long long t0 = clock64(); work(); long long dt = clock64() - t0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev);
    double us = dt / (khz / 1000.0);
    ```

    ## Use instead
    `wall_clock64()` deltas divided by `hipDeviceAttributeWallClockRate` for time; keep
    `clock64()` only for relative cycle counts.

    ## References
    - HIP kernel language reference, Timer functions (`clock64`, `wall_clock64`)
    - ROCm 7.2 `hip/amd_detail/amd_device_functions.h` (`wall_clock64`)
    """

    code = "PT652"
    name = "clock-rate"
    severity = Severity.WARNING
    triggers = (b"clockRate", b"ClockRate", b"CLOCK_RATE")

    def check(self, ctx):
        if not ctx.calls.named(("clock", "clock64", "__clock64")):
            return
        for ident in ctx.identifiers(_RATE, kinds=frozenset({"identifier"})):
            yield self.finding(
                ctx,
                ident,
                f"`{ctx.text(ident)}` converts `clock64()` cycles to "
                f"time, but AMD's shader clock varies: time with `wall_clock64()` "
                f"and `hipDeviceAttributeWallClockRate` (kHz) instead",
            )
        for f in ctx.nodes("field_expression"):
            fld = f.child_by_field_name("field")
            if fld is not None and ctx.text(fld) == "clockRate":
                yield self.finding(
                    ctx,
                    fld,
                    "`clockRate` converts `clock64()` cycles to time, "
                    "but AMD's shader clock varies: time with `wall_clock64()` and "
                    "`hipDeviceAttributeWallClockRate` (kHz) instead",
                )


_TRAP_ASM = re.compile(r"^\s*(trap|brkpt)\s*;?\s*$")


@register
class DebugIntrinsics(Rule):
    """`__trap`, `__brkpt`, `__prof_trigger` and PTX `trap;`/`brkpt;`.

    ## What it finds
    Calls of `__trap()`, `__brkpt()`, `__prof_trigger(n)` and inline assembly consisting only of
    `trap;` or `brkpt;`.

    ## Why it breaks on AMD
    HIP does not declare `__trap`, `__brkpt` or `__prof_trigger` (HIPIFY marks them unsupported;
    absent from ROCm 7.2), and PTX assembly does not assemble for AMDGPU. The closest
    equivalent, `__builtin_trap()` (HIP's device `abort()`), has different reach: CUDA's `trap`
    ends the kernel launch with an error, while on AMD the trap terminates the whole
    application.

    ## Example
    ```cpp
    if (idx >= n) __trap();
    asm volatile("trap;");
    ```

    ## Use instead
    `__builtin_trap()` or `abort()` (unsafe fix for `__trap()` and `asm("trap;")`: the process
    ends instead of only the launch), or an error flag written to global memory and checked by
    the host. `__brkpt` and `__prof_trigger` have no equivalent; remove them.

    ## Fix safety
    Unsafe (applied only with `--unsafe-fixes`). The fix replaces `__trap()`, and an asm
    statement that is only `trap;` without operands, by `__builtin_trap()`. That compiles and
    stops the kernel, but with a different reach: CUDA's trap ends the launch with an error the
    host can handle, while on AMD the trap terminates the whole application. `__brkpt`,
    `__prof_trigger` and `brkpt;` get no fix (no AMD equivalent: remove them).

    ## References
    - HIP kernel language reference, Assert and Profiler Counter Function
    - HIPIFY `hipify-perl` unsupported device functions (`__trap`, `__brkpt`, `__prof_trigger`)
    """

    code = "PT653"
    name = "debug-intrinsics"
    severity = Severity.ERROR
    fix = Applicability.UNSAFE
    triggers = (b"__trap", b"__brkpt", b"__prof_trigger", b"trap;", b"brkpt;")

    def check(self, ctx):
        for cl in ctx.calls.named(("__trap", "__brkpt", "__prof_trigger")):
            name, ident, _call, args = cl.name, cl.callee, cl.node, cl.args
            if name == "__trap" and not args:
                fx = self.make_fix(
                    [Edit(ident.start_byte, ident.end_byte, b"__builtin_trap")],
                    Applicability.UNSAFE,
                    "`__trap()` -> `__builtin_trap()` (ends the whole process)",
                )
                yield self.finding(
                    ctx,
                    ident,
                    "`__trap()` does not exist in HIP: use "
                    "`__builtin_trap()` (it terminates the application, not only "
                    "the launch) or an error flag",
                    fix=fx,
                )
            else:
                yield self.finding(
                    ctx,
                    ident,
                    f"`{name}` does not exist in HIP and has no AMD "
                    f"equivalent: remove it (or use an error flag / "
                    f"`__builtin_trap()`)",
                )
        for asm in ctx.nodes("gnu_asm_expression"):
            code = asm.child_by_field_name("assembly_code")
            if code is None or code.type != "string_literal":
                continue
            body = "".join(ctx.text(c) for c in code.named_children if c.type == "string_content")
            m = _TRAP_ASM.match(body)
            if not m:
                continue
            if any(
                c.type in ("gnu_asm_output_operand_list", "gnu_asm_input_operand_list")
                and c.named_child_count
                for c in asm.children
            ):
                continue
            if m.group(1) == "trap":
                fx = self.make_fix(
                    [Edit(asm.start_byte, asm.end_byte, b"__builtin_trap()")],
                    Applicability.UNSAFE,
                    "PTX `trap;` -> `__builtin_trap()` (ends the whole process)",
                )
                yield self.finding(
                    ctx,
                    asm,
                    "PTX `trap;` does not assemble for AMD: use "
                    "`__builtin_trap()` (it terminates the application, not only "
                    "the launch)",
                    fix=fx,
                )
            else:
                yield self.finding(
                    ctx,
                    asm,
                    "PTX `brkpt;` does not assemble for AMD and has no equivalent: remove it",
                )
