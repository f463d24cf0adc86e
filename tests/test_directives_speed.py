"""One `Directives` per bytes object (`lex.directives`), shared by the rewriter's plain model
(`plain._directive_at`), `include_directives`, the #if model (`preproc._directives`) and the asm
lexer, with each directive list computed once and a narrower name set filtered from a wider one.
Checked against the former path, one fresh `Directives` per caller, on every fixture, example,
CUDA header and seeded random and mutated texts, with the callers asking in every order."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from built_texts import LEX_PIECES as PIECES
from built_texts import LINE_PIECES, SPAN_CASES
from built_texts import lex_random_texts as _random_texts
from built_texts import lex_sources as _sources

from porter.analysis.preproc import _CANDIDATE, _CONDITIONAL, _directives
from porter.rewrite import lex as L
from porter.rewrite.includes import IncludeDirective, include_directives, include_lines
from porter.rewrite.plain import _DIRECTIVE_NAMES, _HASH

_DIRECTIVE_PIECES = [
    b"#if X\n",
    b"#  ifdef Y\n",
    b"# /* c */ if Z\n",
    b"#i\\\nf W\n",
    b"#el\\\r\nse\n",
    b"#endif\n",
    b"#else // c\n",
    b"#define M(x) #x\n",
    b"x #if\n",
    b"#include <a.h>\n",
    b'#include "b.h" /* c\n',
    b"/* #include <c.h> */\n",
    b'"#include <d.h>"\n',
    b'R"(\n#if A\n)"\n',
    b"#pragma once\n",
    b"#\\\ninclude <e.h>\n",
    b"\r#include <f.h>\r",
]


def _old_include_directives(data: bytes, keep=None) -> list[IncludeDirective]:
    """include_directives as it was: a `Directives` of its own."""
    out: list[IncludeDirective] = []
    d = None
    for m in include_lines(data):
        path = m.group(1)[1:-1].decode("utf-8", "replace").strip()
        if keep is not None and not keep(path):
            continue
        if d is None:
            d = L.Directives(data)
        hash_pos = data.index(b"#", m.start())
        if d.starts_directive(hash_pos, m.start()):
            out.append(IncludeDirective(hash_pos, m.end(1), path, m.start(1)))
    return out


def _mutated(rnd: random.Random, data: bytes) -> bytes:
    pieces = [b"/*", b"*/", b"\\\n", b'R"(', b')"', b'"#"', b"#if A\n", b"\r", b"\n#endif\n"]
    for _ in range(rnd.randint(1, 4)):
        at = rnd.randint(0, len(data))
        data = data[:at] + rnd.choice(pieces) + data[at:]
    return data


def _texts() -> list[bytes]:
    texts = _sources() + SPAN_CASES
    cuda = Path("/usr/local/cuda/include")
    if cuda.is_dir():
        texts += [p.read_bytes() for p in sorted(cuda.rglob("*")) if p.is_file()]
    rnd = random.Random(20261203)
    texts += [_mutated(rnd, d) for d in texts if len(d) < 200_000]
    texts += _random_texts(31, 1500, LINE_PIECES + _DIRECTIVE_PIECES)
    texts += _random_texts(32, 1500, PIECES + _DIRECTIVE_PIECES)
    return texts


def test_names_filtered_from_the_wider_set():
    # the #if model's query is answered from the rewriter's when that came first
    assert _CONDITIONAL <= _DIRECTIVE_NAMES


def test_shared_directives_answer_as_separate_ones():
    keep = lambda p: p.endswith(".h")  # noqa: E731
    askers = {
        "plain": lambda d: L.directives(d).directive_lines(_HASH, _DIRECTIVE_NAMES),
        "preproc": _directives,
        "includes": include_directives,
        "kept": lambda d: include_directives(d, keep),
        "spans": lambda d: L.directives(d).spans(),
    }
    old = {
        "plain": lambda d: L.Directives(d).directive_lines(_HASH, _DIRECTIVE_NAMES),
        "preproc": lambda d: (
            L.Directives(d).directive_lines(_CANDIDATE, _CONDITIONAL) if b"#" in d else []
        ),
        "includes": _old_include_directives,
        "kept": lambda d: _old_include_directives(d, keep),
        "spans": lambda d: L.comment_and_literal_spans(d, len(d)),
    }
    orders = list(itertools.permutations(askers))
    rnd = random.Random(7)
    for i, data in enumerate(_texts()):
        want = {k: f(data) for k, f in old.items()}
        # a fresh bytes object per order: the shared state starts empty
        for order in (orders[i % len(orders)], rnd.choice(orders)):
            fresh = bytes(bytearray(data))
            for k in order:
                assert askers[k](fresh) == want[k], (k, order, data[:300])
                assert askers[k](fresh) == want[k], (k, "again", data[:300])


def test_one_directives_per_bytes_object():
    a = b"#if A\n#endif\n"
    b = bytes(bytearray(a))
    da = L.directives(a)
    assert L.directives(a) is da
    assert L.directives(b) is not da  # equal bytes, another object: its own
    lines = da.directive_lines(_HASH, _DIRECTIVE_NAMES)
    assert da.directive_lines(_CANDIDATE, _CONDITIONAL) == lines  # every one is conditional
    assert da.directive_lines(_HASH, _DIRECTIVE_NAMES) is lines  # computed once
