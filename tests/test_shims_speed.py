"""shims.shim_names finds its lines and namespace aliases with the regex engine's literal search
(faster than bytes.find for these short words). The bytes.find version it replaced is kept here
as the reference: both must find the same names on every source."""

from __future__ import annotations

import random
import re

from built_texts import rewrite_sources as _sources

from porter.rewrite import shims
from porter.rewrite.shims import _NESTED_ALIAS, _SHIM, _SHIM_WORDS, shim_names


def _reference(data: bytes) -> set[str]:
    out: set[str] = set()
    lines: set[tuple[int, int]] = set()
    for word in _SHIM_WORDS:
        pos = data.find(word)
        while pos >= 0:
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end
            lines.add((data.rfind(b"\n", 0, pos) + 1, end))
            pos = data.find(word, end)
    for start, end in lines:
        for m in _SHIM.finditer(data, start, end):
            out.add((m.group(1) or m.group(2) or m.group(3)).decode())
    pos = data.find(b"namespace")
    while pos >= 0:
        alias = _NESTED_ALIAS.match(data, pos)
        if alias is not None:
            out.add(f"{alias.group(1).decode()}::{alias.group(2).decode()}")
            pos = alias.end()
        else:
            pos += 1
        pos = data.find(b"namespace", pos)
    return out


PIECES = [
    b"#define cudaMalloc hipMalloc\n",
    b"# define cudaFree(p) hipFree(p)\n",
    b"using cudaStream_t = hipStream_t;\n",
    b"namespace cub = hipcub;\n",
    b"namespace cuda { namespace std = ::std; }\n",
    b"namespace a {namespace b=",
    b"#define X roc",
    b"rocprim_x",
    b"HIP_Y",
    b"hip",
    b"\n",
    b" ",
    b"=",
    b"namespace",
    b"process(q);\n",
]


def test_same_names_as_the_find_version():
    found = 0
    for rel, data in _sources():
        got = shim_names(data)
        assert got == _reference(data), rel
        found += bool(got)
    rnd = random.Random(11)
    for _ in range(3000):
        text = b"".join(rnd.choice(PIECES) for _ in range(rnd.randint(1, 12)))
        got = shim_names(text)
        assert got == _reference(text), text
        found += bool(got)
    assert found > 100


def test_searches_are_the_words():
    assert [s.__self__.pattern for s in shims._SHIM_WORD_SEARCHES] == [
        re.escape(w) for w in _SHIM_WORDS
    ]
