"""Build files (CMake, Makefiles): their code without comments (`ctx.build_code`)."""

from __future__ import annotations

from .lazyre import re

_HASH, _QUOTE, _BACKSLASH, _NEWLINE, _SPACE = 0x23, 0x22, 0x5C, 0x0A, 0x20
_BRACKET_OPEN = re.compile(rb"#\[(=*)\[")  # CMake bracket comment `#[[`, `#[==[`
_BRACKET_PEEK = 16  # bytes read to recognise a bracket opener


def is_makefile(path: str) -> bool:
    """A Makefile (`Makefile`, `GNUmakefile`, `*.mk`) rather than a CMake file."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.startswith(("makefile", "gnumakefile")) or name.endswith(".mk")


def code_text(data: bytes, make: bool) -> bytes:
    """`data` with `#` comments (and CMake `#[[...]]` bracket comments) blanked out, keeping
    offsets and newlines; `#` inside a CMake double-quoted string, and `\\#` in a Makefile, is
    kept."""
    out = bytearray(data)
    i, n, in_str = 0, len(out), False
    while i < n:
        c = out[i]
        if c == _QUOTE and not make:
            in_str = not in_str
        elif c == _BACKSLASH and in_str:  # an escape in a CMake string
            i += 2
            continue
        elif c == _NEWLINE and make:
            in_str = False
        elif c == _HASH and not in_str:
            if make and i > 0 and out[i - 1] == _BACKSLASH:
                i += 1
                continue
            m = None if make else _BRACKET_OPEN.match(bytes(out[i : i + _BRACKET_PEEK]))
            if m:
                close = b"]" + m.group(1) + b"]"
                j = data.find(close, i)
                j = n if j < 0 else j + len(close)
            else:
                j = data.find(b"\n", i)
                j = n if j < 0 else j
            for k in range(i, j):
                if out[k] != _NEWLINE:
                    out[k] = _SPACE
            i = j
            continue
        i += 1
    return bytes(out)
