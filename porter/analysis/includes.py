"""`#include` directives of a file (`ctx.includes`): the ones the rewriter decides are
directives (`rewrite.includes.include_directives`, one decision from the bytes, parsed or not)."""

from __future__ import annotations

from dataclasses import dataclass

from .lex import include_directives


@dataclass(frozen=True)
class Include:
    start: int  # offset of the `#`
    end: int  # end of the path (after `>` or the closing quote)
    path: str  # the path without `<>`/quotes
    path_start: int  # offset of the path (`<` or the opening quote)

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end

    @property
    def path_span(self) -> tuple[int, int]:
        return self.path_start, self.end


def find_includes(ctx) -> list[Include]:
    return [Include(d.start, d.end, d.path, d.path_start) for d in include_directives(ctx.data)]
