"""The inline-asm lexer of `porter.analysis.asm`: the template text and the end of the statement
(the `)` matching the one after `asm`), with parentheses in strings, comments and operands."""

from __future__ import annotations

import pytest

from porter.analysis.asm import _lex_asm

CASES = [
    # (source from `asm`, template, text the statement spans)
    ('asm("mov.u32 %0, %%laneid;" : "=r"(x));', "mov.u32 %0, %%laneid;", None),
    (  # `:` and parentheses inside the template's strings are text
        'asm volatile("{ .reg .pred p; (p) bra L:; }" :: "r"(f(a, (b))));',
        "{ .reg .pred p; (p) bra L:; }",
        None,
    ),
    (  # a comment's parenthesis does not count, nor an operand string's
        'asm("bar.sync 0;" /* ) */ : : "r"(")"), "l"((long)p) : "memory"); int y;',
        "bar.sync 0;",
        None,
    ),
    (  # macro names in the template are kept as `{NAME}`; `::` of C++ in the operands
        'asm(PREFIX "add.s32 %0, %1, 1;" : "=r"(ns::v) : "r"(ns::w));',
        " {PREFIX} add.s32 %0, %1, 1;",
        None,
    ),
    (  # a `:` inside nested parentheses of the template is not the operand separator
        'asm(("ld.global.u32 %0, [%1];") : "=r"(r) : "l"(p));',
        "ld.global.u32 %0, [%1];",
        None,
    ),
    (  # no operands; escaped newlines and tabs become spaces
        'asm("trap;\\n\\texit;");',
        "trap;  exit;",
        None,
    ),
    (  # unbalanced: the statement runs to the limit
        'asm("nanosleep.u32 %0;" : : "r"(t)',
        "nanosleep.u32 %0;",
        'asm("nanosleep.u32 %0;" : : "r"(t)',
    ),
]


@pytest.mark.parametrize(("src", "template", "span"), CASES)
def test_template_and_end(src: str, template: str, span: str | None):
    data = src.encode()
    text, end = _lex_asm(data, data.index(b"("), len(data))
    assert text == template
    want = span if span is not None else src[: src.rindex(")") + 1]  # the last `)`
    assert data[:end].decode() == want


def test_limit_stops_the_scan():
    """In a `#define` body the scan stops at the body's end, even without the closing `)`."""
    data = b'asm("mov.u32 %0, %%clock;" : "=r"(c) \n int z = (1);'
    limit = data.index(b"\n")
    text, end = _lex_asm(data, 3, limit)
    assert (text, end) == ("mov.u32 %0, %%clock;", limit)
