"""`#include` directives of a file (`ctx.includes`), from the tree or, without one, the bytes."""

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
    if ctx.root is not None:  # from the node query the rules share (no extra tree walk)
        out = []
        for inc in ctx.nodes("preproc_include"):
            p = inc.child_by_field_name("path")
            if p is not None:
                raw = ctx.text(p)
                out.append(
                    Include(inc.start_byte, p.end_byte, raw.strip('<>"').strip(), p.start_byte)
                )
        return out
    out = []
    for start, end, path in include_directives(ctx.data, None):
        # the path token ends at `end`; it starts at the last `<` or `"` before it
        raw = ctx.data[start:end]
        k = max(raw.rfind(b"<"), raw.rfind(b'"', 0, len(raw) - 1))
        out.append(Include(start, end, path, start + k if k >= 0 else start))
    return out
