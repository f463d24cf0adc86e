"""`#include` directives of a file (`ctx.includes`): the ones the rewriter decides are
directives (`rewrite.includes.include_directives`, one decision from the bytes, parsed or not)."""

from __future__ import annotations

from ..rewrite.includes import IncludeDirective as Include
from .lex import include_directives

__all__ = ["Include", "find_includes"]


def find_includes(ctx) -> list[Include]:
    return include_directives(ctx.data)
