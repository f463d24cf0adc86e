"""include_lines reads a line's start from the byte before a `#` that starts its line (no
search back for the line's `\\n` and `\\r`): the same matches as the former code (kept here) and
as `INCLUDE_LINE.finditer`, on every fixture, example and CUDA header and seeded random and
mutated texts. qualified_matches compiles a key's regex only where a head of it was found (its
matches are checked against the former code in tests/test_rewrite_speed.py)."""

from __future__ import annotations

import random

from built_texts import LEX_PIECES, LINE_PIECES
from built_texts import lex_random_texts as _random_texts
from built_texts import lex_sources as _sources
from sources import cuda_headers, mutated

from porter.mappings.index import load_index
from porter.rewrite import includes as I
from porter.rewrite import lex as L

_INCLUDE_PIECES = [
    b"#include <a.h>\n",
    b"#  include <b/c.h>\n",
    b'  # include "d.h"\n',
    b"\t#include<e.h>",
    b"#include <f.h> #include <g.h>\n",
    b"x #include <h.h>\n",
    b"#include MACRO\n",
    b"#include <unclosed\n",
    b"\r#include <i.h>\r",
    b"\r\n#include <j.h>\r\n",
    b"\xef\xbb\xbf#include <k.h>\n",
    b"\n\xef\xbb\xbf  #include <l.h>\n",
    b"#\\\ninclude <m.h>\n",
    b"// #include <n.h>\n",
    b"#",
    b"include",
    b"\n",
    b"\r",
    b" ",
]


def _old_include_lines(data: bytes) -> list:
    """include_lines before the shortcut: each line's start searched back for."""
    out = []
    last = -1
    for hit in I._INCLUDE_TEXT.finditer(data):
        at = hit.start()
        nl = data.rfind(b"\n", 0, at)
        line = max(nl, data.rfind(b"\r", nl + 1, at)) + 1
        if line <= last:
            continue
        m = I.INCLUDE_LINE.match(data, line)
        if m is not None and m.end() > at:
            out.append(m)
            last = line
    return out


def _texts() -> list[bytes]:
    texts = _sources() + [p.read_bytes() for p in cuda_headers()]
    texts += _random_texts(41, 3000, _INCLUDE_PIECES)
    texts += _random_texts(42, 1500, LINE_PIECES + _INCLUDE_PIECES)
    texts += _random_texts(43, 1500, LEX_PIECES + _INCLUDE_PIECES)
    rnd = random.Random(20261204)
    small = [t for t in texts if len(t) < 20_000]
    texts += mutated(rnd, small, _INCLUDE_PIECES, 2000)
    return texts


def _spans(matches) -> list:
    return [(m.span(), m.groups()) for m in matches]


def test_include_lines_as_before_and_as_finditer():
    found = at_line_start = 0
    for data in _texts():
        fresh = bytes(bytearray(data))  # not the last file's bytes object: computed
        got = _spans(I.include_lines(fresh))
        assert got == _spans(_old_include_lines(data)), data[:300]
        assert got == _spans(I.INCLUDE_LINE.finditer(data)), data[:300]
        found += len(got)
        at_line_start += sum(1 for (start, _), _ in got if start == 0 or data[start - 1] == 0x0A)
    # both ways to a line's start are taken, many times
    assert at_line_start > 10_000 and found - at_line_start > 1_000, (found, at_line_start)


def test_qualified_regex_compiled_only_for_keys_with_a_head():
    index = load_index()
    qualified = L.scanner_for(index).qualified
    first, keys = next((f, k) for f, k in qualified.items() if len(k) > 3)
    key = keys[-1]
    data = b"x = " + key.replace("::", " :: ").encode() + b"(1);\n"
    L.qualified_regex.cache_clear()
    got = L.qualified_matches(data, first, keys)
    assert [k for _, k in got] == [key]
    assert L.qualified_regex.cache_info().currsize == 1  # the other keys' are not compiled
    L.qualified_regex.cache_clear()
    assert L.qualified_matches(b"int a;\n", first, keys) == []
    assert L.qualified_regex.cache_info().currsize == 0
