"""qualified_matches compiles a key's regex only where a head of it was found (the answers
themselves are checked against the former code in tests/test_rewrite_speed.py)."""

from __future__ import annotations

from porter.mappings.index import load_index
from porter.rewrite import lex as L


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
