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
from ..rewrite.lex import BLANKS, WORD, matches_after

__all__ = [
    "BLANKS",
    "code_matches",
    "find_word",
    "identifiers",
    "include_directives",
    "is_declaration_name",
    "lex_code_spans",
    "matches_after",
]


def code_matches(ctx, rx, word_start: bool = False):
    r"""Matches of a bytes regex in the file outside comments and strings (in code or in macro
    bodies), in order. `word_start`: only matches not preceded by an identifier byte (what a
    leading `(?<![\w$])` asks, which would cost the pattern the regex engine's fast scan for
    its literal start)."""
    data = ctx.data
    for m in rx.finditer(data):
        if word_start and m.start() > 0 and data[m.start() - 1] in WORD:
            continue
        if ctx.in_comment_or_string(m.start(), m.end()):
            continue
        yield m
