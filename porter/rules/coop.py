"""PT116-PT118: cooperative groups and CUB logical warps (hazards.md section A)."""

from __future__ import annotations

from ..analysis.calls import call_args, call_name
from ..analysis.consts import int_value
from ..analysis.functions import enclosing_function
from ..analysis.lazyre import re
from ..analysis.lex import matches_after
from ..analysis.targets import fmt_targets
from ..analysis.tree import in_comment
from ..analysis.warp import COLLECTIVE
from ..findings import Applicability, Severity
from ..parse import cuda as P
from .base import Rule
from .registry import register

_TILE = re.compile(rb"(?<![\w$])(tiled_partition|thread_block_tile)\s*<\s*([^<>;(){}]*?)\s*>")


@register
class CoopTileSize(Rule):
    """Cooperative-groups tile size versus the wavefront size.

    ## What it finds
    `tiled_partition<N>(g)`, `thread_block_tile<N>` and `tiled_partition(g, N)` with a literal N:
    - N not a power of two, or larger than 64: error on every target;
    - N = 64: error when a wave32 target (gfx10/11/12) is selected (`targets=` those archs);
    - N = 32 in a function that also calls raw warp builtins (`__shfl*`, `__ballot*`,
      `__syncwarp`...): warning on wave64 targets, because the code treats the 32-thread tile
      as the hardware warp.

    ## Why it breaks on AMD
    HIP requires a tile size that is a power of two and at most the wavefront size (the header
    asserts "invalid tile size" when `tile_size > __AMDGCN_WAVEFRONT_SIZE`): 64 is valid on
    CDNA, not on RDNA. A 32-thread tile is half a wavefront on CDNA, so raw warp builtins next
    to it (which act on the full 64 lanes) see both halves.

    ## Example
    ```cpp
    auto warp = cg::tiled_partition<32>(block);
    float v = __shfl_down_sync(0xffffffff, x, 16);   // not the tile's shuffle
    ```

    ## Use instead
    Use the tile's own collectives (`warp.shfl_down(x, 16)`, `cg::reduce(warp, ...)`), size tiles
    from the wavefront (`tiled_partition(block, warpSize)`), and add a per-arch compile-time
    check where a fixed size is needed.

    ## References
    - HIP `amd_hip_cooperative_groups.h` ("invalid tile size")
    - HIP cooperative groups reference (ROCm documentation)
    """

    code = "PT116"
    name = "coop-tile-size"
    severity = Severity.WARNING
    fix = Applicability.NONE
    triggers = (b"tiled_partition", b"thread_block_tile")
    RAW = COLLECTIVE

    def check(self, ctx):
        w64, w32 = ctx.options.wave64(), ctx.options.wave32()
        seen = set()
        for m in _TILE.finditer(ctx.data):
            node = ctx.root.descendant_for_byte_range(m.start(1), m.end(1))
            if node is None or node.type not in P.IDENT_TYPES or node.start_byte != m.start(1):
                continue
            iv = int_value(m.group(2).decode("utf-8", "replace"))
            if iv is None:
                continue
            seen.add(m.start(1))
            yield from self._size(ctx, node, m.start(2), m.end(2), iv[0], w64, w32)
        for c in (k.node for k in ctx.calls.named({"tiled_partition"}, members=True)):
            fn = c.child_by_field_name("function")
            if fn is not None and fn.start_byte in seen:
                continue
            args = call_args(c)
            if len(args) != 2 or args[1].type != "number_literal":
                continue
            iv = int_value(ctx.text(args[1]))
            if iv is not None:
                yield from self._size(
                    ctx, args[1], args[1].start_byte, args[1].end_byte, iv[0], w64, w32
                )

    def _size(self, ctx, node, start, end, n, w64, w32):
        if ctx.vendor.at(node).hands_off:
            return
        if n <= 0 or n & (n - 1) or n > 64:
            yield self.finding(
                ctx,
                (start, end),
                f"tile size {n} is not a power of two of at "
                "most the wavefront size: HIP rejects it (invalid tile size)",
                severity=Severity.ERROR,
            )
        elif n == 64 and w32:
            yield self.finding(
                ctx,
                (start, end),
                f"tile size 64 exceeds the 32-lane wavefront "
                f"of {fmt_targets(w32)}: HIP rejects it there; size it from "
                "`warpSize`",
                severity=Severity.ERROR,
                targets=w32,
            )
        elif n == 32 and w64:
            fn = enclosing_function(node, lambdas=True)
            if fn is not None and ctx.warp_collectives.present(fn):
                yield self.finding(
                    ctx,
                    (start, end),
                    "a 32-thread tile is half a wavefront on "
                    f"{fmt_targets(w64)}, but this function also uses raw warp "
                    "builtins that act on all 64 lanes: use the tile's own "
                    "collectives or size the tile from `warpSize`",
                    targets=w64,
                )


@register
class CoopGridSync(Rule):
    """Grid-wide cooperative launch and multi-device cooperative groups.

    ## What it finds
    - `cudaLaunchCooperativeKernel` / `hipLaunchCooperativeKernel` (and the driver
      `cuLaunchCooperativeKernel` / `hipModuleLaunchCooperativeKernel`) in a file that never
      sizes the grid with an occupancy query (`...OccupancyMaxActiveBlocksPerMultiprocessor`);
    - `cudaLaunchCooperativeKernelMultiDevice` / `hipLaunchCooperativeKernelMultiDevice` and
      `this_multi_grid()` / `multi_grid_group`.

    ## Why it breaks on AMD
    `grid.sync()` only works when every block of the grid is resident at once; the number of
    resident blocks depends on the device (on wave64 a 1024-thread block is 16 wavefronts, and
    CU counts differ), so a grid sized for an NVIDIA GPU fails to launch or hangs. Multi-device
    cooperative launch is deprecated (CUDA 11.3) and not worth porting.

    ## Example
    ```cpp
    cudaLaunchCooperativeKernel((void*)k, dim3(160), dim3(1024), args);
    ```

    ## Use instead
    Size the grid as `hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, threads, smem)` ×
    `multiProcessorCount`; replace multi-grid sync with one launch per device and host-side
    synchronisation.

    ## References
    - HIPIFY runtime API tables (cooperative launch)
    - HIP kernel language reference, cooperative groups table
    - HIP cooperative groups reference (ROCm documentation)
    """

    code = "PT117"
    name = "coop-grid-sync"
    severity = Severity.WARNING
    fix = Applicability.NONE
    triggers = (b"LaunchCooperativeKernel", b"this_multi_grid", b"multi_grid_group")
    LAUNCH = {
        "cudaLaunchCooperativeKernel",
        "hipLaunchCooperativeKernel",
        "cuLaunchCooperativeKernel",
        "hipModuleLaunchCooperativeKernel",
    }
    MULTI = {
        "cudaLaunchCooperativeKernelMultiDevice",
        "hipLaunchCooperativeKernelMultiDevice",
        "cuLaunchCooperativeKernelMultiDevice",
        "hipModuleLaunchCooperativeKernelMultiDevice",
    }
    OCC = re.compile(
        rb"OccupancyMaxActiveBlocksPerMultiprocessor|OccupancyMaxPotentialBlockSize"
        rb"|cudaOccupancy|hipOccupancy|cuOccupancy|hipModuleOccupancy"
    )

    def check(self, ctx):
        sized = self.OCC.search(ctx.data) is not None
        if not sized:
            for c in (k.node for k in ctx.calls.named(self.LAUNCH, members=True)):
                yield self.finding(
                    ctx,
                    c.child_by_field_name("function") or c,
                    f"`{call_name(ctx, c)}` needs the whole grid resident at once; "
                    "this file never sizes the grid with an occupancy query: use "
                    "hipOccupancyMaxActiveBlocksPerMultiprocessor × CU count",
                )
        for c in (k.node for k in ctx.calls.named(self.MULTI | {"this_multi_grid"}, members=True)):
            yield self.finding(
                ctx,
                c.child_by_field_name("function") or c,
                f"`{call_name(ctx, c)}`: multi-device cooperative groups are "
                "deprecated (CUDA 11.3); launch per device and synchronise on "
                "the host",
            )


@register
class CubLogicalWarp(Rule):
    """`cub::WarpReduce` / `cub::WarpScan` with the default logical warp size.

    ## What it finds
    `cub::WarpReduce<T>`, `cub::WarpScan<T>` (and the `hipcub::` spellings) without an explicit
    `LOGICAL_WARP_THREADS` argument. Reported only when a wave64 target is selected.

    ## Why it breaks on AMD
    In hipCUB the default logical warp is `HIPCUB_DEVICE_WARP_THREADS`, i.e.
    `rocprim::arch::wavefront::max_size()` — 64 on CDNA — so the warp each object reduces over,
    the number of `TempStorage` slots a block needs and the lane that holds the result all
    change; code that indexes temp storage with `threadIdx.x / 32` mixes two logical warps.

    ## Example
    ```cpp
    typedef cub::WarpReduce<float> WarpReduce;
    __shared__ WarpReduce::TempStorage temp[4];          // 128 threads / 32
    float s = WarpReduce(temp[threadIdx.x / 32]).Sum(v);
    ```

    ## Use instead
    State the logical warp size (`cub::WarpReduce<float, 32>` if the algorithm needs 32-lane
    groups), and size and index the temp storage from the same constant.

    ## References
    - hipCUB `hipcub/config.hpp` and `backend/rocprim/warp/warp_reduce.hpp`, `warp_scan.hpp`
      (ROCm 7.2): `LOGICAL_WARP_THREADS = HIPCUB_DEVICE_WARP_THREADS`
    - hipify maps `cub::` to `hipcub::` (HIPIFY, hipify_torch mappings)
    """

    code = "PT118"
    name = "cub-logical-warp"
    severity = Severity.WARNING
    fix = Applicability.NONE
    triggers = (b"WarpReduce", b"WarpScan")
    # `(?<![\w$])` before it is tested per match (lex.matches_after)
    RX = re.compile(
        rb"(?:hipcub|cub)\s*::\s*(WarpReduce|WarpScan)\s*<([^<>;{}]*(?:<[^<>]*>[^<>;{}]*)*)>"
    )

    def check(self, ctx):
        w64 = ctx.options.wave64()
        if not w64:
            return
        data = ctx.data
        for m in matches_after(self.RX, data):
            # a name in a comment (CUB's documentation) is in one to the tree too, and the
            # template arguments are read from the text: neither needs the parse
            if in_comment(data, m.start(1)):
                continue
            args = self._split(m.group(2).decode("utf-8", "replace"))
            if len(args) != 1 or ctx.in_comment_or_string(m.start(1), m.end(1)):
                continue
            node = ctx.root.descendant_for_byte_range(m.start(1), m.end(1))
            if node is None or node.type in P.OPAQUE_TYPES or ctx.vendor.at(node).hands_off:
                continue
            yield self.finding(
                ctx,
                (m.start(), m.end()),
                f"`{m.group(1).decode()}<{args[0]}>` uses the default logical warp"
                f", which hipCUB makes the wavefront (64 lanes on "
                f"{fmt_targets(w64)}): pass the logical warp size explicitly",
                targets=w64,
            )

    @staticmethod
    def _split(text: str) -> list[str]:
        out, depth, cur = [], 0, ""
        for ch in text:
            if ch == "<":
                depth += 1
            elif ch == ">":
                depth -= 1
            if ch == "," and depth == 0:
                out.append(cur.strip())
                cur = ""
            else:
                cur += ch
        if cur.strip():
            out.append(cur.strip())
        return out


# grid_group members CUDA has and ROCm 7.2's amd_hip_cooperative_groups.h does not (it has
# thread_rank, is_valid, sync, group_dim, num_threads, size)
_GRID_MISSING = {
    "block_rank": "blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)",
    "num_blocks": "gridDim.x * gridDim.y * gridDim.z",
    "block_index": "blockIdx",
    "dim_blocks": "gridDim",
    "dim_threads": "blockDim",
}


@register
class GridGroupMembers(Rule):
    """`grid_group` member that HIP's cooperative groups lack.

    ## What it finds
    Calls of `block_rank()`, `num_blocks()`, `block_index()`, `dim_blocks()` and
    `dim_threads()` on a `cooperative_groups::grid_group` (a variable declared `grid_group` or
    initialised from `this_grid()`, or `this_grid()` itself).

    ## Why it breaks on AMD
    ROCm 7.2's `grid_group` has only `thread_rank`, `is_valid`, `sync`, `group_dim`,
    `num_threads` and `size`: the call does not compile ("no member named 'block_rank' in
    'cooperative_groups::grid_group'").

    ## Example
    ```cpp
    cg::grid_group grid = cg::this_grid();
    unsigned long long b = grid.block_rank();
    ```

    ## Use instead
    The built-in variables: `block_rank()` is `blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y *
    blockIdx.z)`, `num_blocks()` is `gridDim.x * gridDim.y * gridDim.z`, `block_index()` is
    `blockIdx`, `dim_blocks()` is `gridDim`, `dim_threads()` is `blockDim`.

    ## References
    - ROCm 7.2 `hip/amd_detail/amd_hip_cooperative_groups.h` (`class grid_group`)
    - CUDA 13 `cooperative_groups.h` (`grid_group`)
    """

    code = "PT120"
    name = "grid-group-members"
    severity = Severity.ERROR
    triggers = tuple(n.encode() for n in _GRID_MISSING)

    def check(self, ctx):
        for call in ctx.nodes("call_expression"):
            fn = call.child_by_field_name("function")
            if fn is None or fn.type != "field_expression":
                continue
            field = fn.child_by_field_name("field")
            member = ctx.text(field) if field is not None else ""
            if member not in _GRID_MISSING:
                continue
            obj = fn.child_by_field_name("argument")
            if obj is None or not self._is_grid(ctx, obj, call):
                continue
            yield self.finding(
                ctx,
                call,
                f"`grid_group::{member}()` does not exist in HIP's "
                f"cooperative groups: use `{_GRID_MISSING[member]}`",
            )

    @staticmethod
    def _is_grid(ctx, obj, at) -> bool:
        if obj.type == "call_expression":
            return call_name(ctx, obj).endswith("this_grid")
        if obj.type != "identifier":
            return False
        name = re.escape(ctx.text(obj))
        fn = enclosing_function(at, lambdas=True)
        text = ctx.btext(fn) if fn is not None else ctx.data
        return (
            re.search(rb"grid_group\s*&?\s*" + name.encode() + rb"\b", text) is not None
            or re.search(rb"\b" + name.encode() + rb"\s*=\s*(?:\w+\s*::\s*)*this_grid\s*\(", text)
            is not None
        )
