"""Lexing helpers the rules share with the rewriter (identifier tokens, code spans of opaque
text, `#include` directives). They live in the rewriter, which lexes every file first; rules and
analysis modules import them from here only, so a move in the rewriter changes one file."""
from __future__ import annotations

from ..rewrite.cuda import (
    find_word,
    identifiers,
    include_directives,
    is_declaration_name,
    lex_code_spans,
)

__all__ = ["code_matches", "find_word", "identifiers", "include_directives", "is_declaration_name",
           "lex_code_spans"]


def code_matches(ctx, rx):
    """Matches of a bytes regex in the file outside comments and strings (in code or in macro
    bodies), in order."""
    for m in rx.finditer(ctx.data):
        if ctx.in_comment_or_string(m.start(), m.end()):
            continue
        yield m
