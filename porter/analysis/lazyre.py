"""`re` with lazy compilation, for rule and analysis modules.

Rule and analysis modules define many module-level patterns; compiling them all at import costs
about a tenth of a second, which `porter port one.cu` pays for rules that never run on that file.
`re.compile` here returns a proxy that compiles on first use; everything else is the real `re`.
"""

from __future__ import annotations

import re as _re
import types


class LazyPattern:
    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern, flags=0):
        self._args = (pattern, flags)
        self._compiled = None

    def _get(self) -> _re.Pattern:
        c = self._compiled
        if c is None:
            c = self._compiled = _re.compile(*self._args)
        return c

    @property
    def pattern(self):
        return self._args[0]

    @property
    def flags(self):
        return self._get().flags

    def __getattr__(self, name):
        return getattr(self._get(), name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._args[0]!r})"


def _unwrap(p):
    return p._get() if isinstance(p, LazyPattern) else p


class _LazyRe(types.ModuleType):
    Pattern = _re.Pattern
    Match = _re.Match

    def compile(self, pattern, flags=0):
        return (
            LazyPattern(_unwrap(pattern), flags)
            if not isinstance(pattern, LazyPattern)
            else pattern
        )

    def __getattr__(self, name):
        attr = getattr(_re, name)
        if callable(attr) and name in (
            "sub",
            "subn",
            "match",
            "search",
            "findall",
            "finditer",
            "split",
            "fullmatch",
        ):

            def call(pattern, *a, **k):
                return attr(_unwrap(pattern), *a, **k)

            return call
        return attr


re = _LazyRe("re")
