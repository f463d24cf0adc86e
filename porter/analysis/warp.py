"""Warp-level builtins: their names, and which functions of a file call them (raw or through a
project wrapper such as `warp_reduce_sum`). Shared by the wavefront and cooperative-groups rules."""

from __future__ import annotations

from .lazyre import re

SHFL = frozenset({"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor"})
SHFL_SYNC = frozenset({n + "_sync" for n in SHFL})
VOTE = frozenset({"__ballot", "__any", "__all", "__activemask"})
VOTE_SYNC = frozenset({"__ballot_sync", "__any_sync", "__all_sync"})
MATCH_SYNC = frozenset({"__match_any_sync", "__match_all_sync"})
REDUCE_SYNC = frozenset({f"__reduce_{op}_sync" for op in ("add", "min", "max", "and", "or", "xor")})
MASKED = SHFL_SYNC | VOTE_SYNC | MATCH_SYNC | REDUCE_SYNC | {"__syncwarp"}
# builtins that the mapping rewriter turns into the unmasked form before ROCm 7.0
DROPPED_BEFORE_70 = SHFL_SYNC | VOTE_SYNC
COLLECTIVE = (
    SHFL
    | SHFL_SYNC
    | VOTE
    | VOTE_SYNC
    | MATCH_SYNC
    | REDUCE_SYNC
    | {"__match_any", "__match_all", "__syncwarp"}
)
# calls whose result is a 64-bit lane mask on HIP
MASK_SOURCES = frozenset(
    {
        "__ballot",
        "__ballot_sync",
        "__activemask",
        "__match_any",
        "__match_any_sync",
        "__match_all",
        "__match_all_sync",
        "__lanemask_lt",
        "__lanemask_le",
        "__lanemask_gt",
        "__lanemask_ge",
        "__lanemask_eq",
    }
)
# calls to project helpers that wrap warp shuffles/votes (`warp_reduce_sum`, `warpAllReduce`)
WRAPPER_NAME = re.compile(
    r"(?i)warp_?(?:all_?)?(?:reduce|scan|sum|max|min|broadcast|shuffle|vote)"
    r"|shfl|ballot"
)


_WRAPPER_BYTES = re.compile(WRAPPER_NAME.pattern.encode())


class WarpCollectives:
    """Which scopes of a file call a raw warp shuffle/vote builtin or a wrapper of one
    (`ctx.warp_collectives`). A tile's own collectives (`tile.shfl_down()`) do not count."""

    def __init__(self, ctx):
        self._ctx = ctx
        self._found: list | None = None
        self._memo: dict[int, bool] = {}

    @property
    def _calls(self) -> list:
        """The collective calls (member calls left out), found on first use."""
        if self._found is None:
            ctx = self._ctx
            if ctx.data.isascii() and b"$" not in ctx.data:
                # a callee's name is then one of the identifier tokens: the wrappers are
                # looked for among those, and the file's calls are indexed only if one is there
                idents = ctx.idents
                search = _WRAPPER_BYTES.search
                wrappers = (
                    {i.decode() for i in idents if search(i)}
                    if search(b"\n".join(idents))  # (a match holds no newline)
                    else set()
                )
            else:
                wrappers = {n for n in ctx.calls.names() if WRAPPER_NAME.search(n)}
            self._found = ctx.calls.named(COLLECTIVE | wrappers)
        return self._found

    def present(self, scope) -> bool:
        """Does `scope` (a function node, or None for the whole file) make such a call?"""
        key = scope.start_byte if scope is not None else -1
        found = self._memo.get(key)
        if found is None:
            found = any(
                scope is None
                or (scope.start_byte <= c.node.start_byte and c.node.end_byte <= scope.end_byte)
                for c in self._calls
            )
            self._memo[key] = found
        return found
