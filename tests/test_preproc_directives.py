"""The `#if` model (porter.analysis.preproc.PPState) finds its conditional directives with the
decider the rewriter's `#include`s use (porter.rewrite.lex.Directives), from the bytes, as the
C preprocessor does: splices are removed first, then comments (each one space) and literals are
tokens, and a directive is a `#` first on its logical line. So a `#if` inside a raw string or a
block comment is none, `/* c */ #if X` is one, `#if` backslash-newline `def X` is `#ifdef X`,
and a comment opened on a directive's line continues it.

Each case is a file whose `MARK_<n>` lines are compiled by HIP-Clang (the model's "amd" world,
where `__HIP_PLATFORM_AMD__` is defined) or not; `test_expectations_are_the_preprocessors`
checks every expectation against clang's own preprocessor, so they are not porter's output
written down."""

from __future__ import annotations

import random
import re
import subprocess

import pytest

from porter.analysis.preproc import PPState, parse_cond
from porter.engine import EngineOptions, process_one
from porter.rewrite.lex import Directives
from porter.rewrite.project import unconditional_includes

AMD = "__HIP_PLATFORM_AMD__"

# (name, text, the MARK_<n> compiled on AMD); every other MARK_<n> of the text is not
CASES: list[tuple[str, bytes, set[int]]] = [
    (
        "plain",
        b"#ifdef " + AMD.encode() + b"\nint MARK_1;\n#else\nint MARK_2;\n#endif\nint MARK_3;\n",
        {1, 3},
    ),
    (
        "raw-string-holds-else",
        b"#ifdef " + AMD.encode() + b'\nconst char* s = R"(\n#else\n)";\nint MARK_1;\n#endif\n',
        {1},
    ),
    (
        "raw-string-with-delimiter-holds-if",
        b'const char* s = R"x(\n#if 0\n)"\n)x";\nint MARK_1;\n',
        {1},
    ),
    (
        "block-comment-holds-endif",
        b"#ifndef " + AMD.encode() + b"\n/*\n#endif\n*/\nint MARK_1;\n#endif\nint MARK_2;\n",
        {2},
    ),
    (
        "line-comment-holds-endif",
        b"#if 0\nint MARK_1; // #endif\nint MARK_2;\n#endif\nint MARK_3;\n",
        {3},
    ),
    (
        "spliced-line-comment-holds-endif",
        b"#if 0\n// a comment \\\n#endif\nint MARK_1;\n#endif\nint MARK_2;\n",
        {2},
    ),
    (
        "spliced-string-holds-else",
        b'#if 1\nconst char* s = "a\\\n#else\n";\nint MARK_1;\n#endif\n',
        {1},
    ),
    (
        "digit-separator-then-comment-holds-else",
        b"#if 1\nint n = 1'0; /* open\n#else\n*/\nint MARK_1;\n#endif\n",
        {1},
    ),
    (
        "comment-before-hash",
        b"/* c */ #ifndef " + AMD.encode() + b"\nint MARK_1;\n/* c */ #endif\nint MARK_2;\n",
        {2},
    ),
    (
        "comments-before-hash",
        b"/* a */ /* b */\t#if 0\nint MARK_1;\n#endif\nint MARK_2;\n",
        {2},
    ),
    (
        "multi-line-comment-before-hash",
        b"/* a\n   b */ #ifndef " + AMD.encode() + b"\nint MARK_1;\n#endif\nint MARK_2;\n",
        {2},
    ),
    (
        "code-then-multi-line-comment-before-hash",
        b"#ifdef " + AMD.encode() + b"\nint MARK_1; /* a\n b */ #else\nint MARK_2;\n#endif\n",
        {1, 2},
    ),
    (
        "line-comment-before-hash",
        b"#if 1\n// c #else\nint MARK_1;\n#endif\n",
        {1},
    ),
    (
        "comment-between-hash-and-name",
        b"# /* c */ ifdef " + AMD.encode() + b"\nint MARK_1;\n#/**/else\nint MARK_2;\n#endif\n",
        {1},
    ),
    (
        "splice-makes-ifdef",  # `#if` backslash-newline `def X` is `#ifdef X`
        b"#if\\\ndef " + AMD.encode() + b"\nint MARK_1;\n#else\nint MARK_2;\n#endif\n",
        {1},
    ),
    (
        "splice-makes-ifndef",
        b"#if\\\nndef " + AMD.encode() + b"\nint MARK_1;\n#e\\\nlse\nint MARK_2;\n#endif\n",
        {2},
    ),
    (
        "splice-inside-name",
        b"#i\\\nf 0\nint MARK_1;\n#en\\\ndif\nint MARK_2;\n",
        {2},
    ),
    (
        "splice-after-hash",
        b"#\\\nif 0\nint MARK_1;\n#\\\n  endif\nint MARK_2;\n",
        {2},
    ),
    (
        "splice-inside-macro-name",  # the splice joins the name: no space is left
        b"#if defined(__HIP_PLATFORM_\\\nAMD__)\nint MARK_1;\n#else\nint MARK_2;\n#endif\n",
        {1},
    ),
    (
        "splice-inside-condition",
        b"#if defined("
        + AMD.encode()
        + b") &&\\\n    0\nint MARK_1;\n#else\nint MARK_2;\n#endif\n",
        {2},
    ),
    (
        "comment-continues-condition",
        b"#if defined(" + AMD.encode() + b") /* a\n   */ && 0\nint MARK_1;\n#else\n"
        b"int MARK_2;\n#endif\n",
        {2},
    ),
    (
        "comment-between-ifdef-and-name",
        b"#ifdef /* c */ " + AMD.encode() + b"\nint MARK_1;\n#else\nint MARK_2;\n#endif\n",
        {1},
    ),
    (
        "comment-after-endif-spans-lines",
        b"#if 0\nint MARK_1;\n#endif /* a\n#if 0\n*/\nint MARK_2;\n",
        {2},
    ),
    (
        "line-comment-after-directive",
        b"#if 1 // /* not a comment opener\nint MARK_1;\n#else\nint MARK_2;\n#endif\n",
        {1},
    ),
    (
        "hash-in-macro-body",
        b"#define M(a) a \\\n#if 0\nint MARK_1;\n",
        {1},
    ),
    (
        "string-then-spliced-hash",  # a literal is a token: the `#` is not first on its line
        b'#if 1\nconst char* s = "x" \\\n#else\n;\nint MARK_1;\n#endif\n',
        {1},
    ),
    (
        "byte-order-mark",  # the compiler drops a UTF-8 BOM: the `#` is first on its line
        b"\xef\xbb\xbf#if 0\nint MARK_1;\n#endif\nint MARK_2;\n",
        {2},
    ),
    (
        "nested-elif",
        b"#if 0\nint MARK_1;\n#elif defined(" + AMD.encode() + b")\n  #if 0\n  int MARK_2;\n"
        b"  #else\n  int MARK_3;\n  #endif\n#else\nint MARK_4;\n#endif\n",
        {3},
    ),
]
# every case again with CRLF line ends (a splice is then backslash-CR-LF)
CASES += [(name + "-crlf", text.replace(b"\n", b"\r\n"), want) for name, text, want in CASES]

_MARK = re.compile(rb"\bMARK_(\d+)\b")


def _marks(data: bytes) -> dict[int, int]:
    """MARK_<n> -> its offset (the code mentions each one once)."""
    return {int(m.group(1)): m.start() for m in _MARK.finditer(data)}


class _View:
    def __init__(self, data: bytes):
        self.data, self.root = data, None


@pytest.mark.parametrize("name,text,want", CASES, ids=[c[0] for c in CASES])
def test_branches_are_the_preprocessors(name, text, want):
    pp = PPState(_View(text))
    got = {n for n, pos in _marks(text).items() if pp.path_value(pos, "amd") == 1}
    dead = {n for n, pos in _marks(text).items() if pp.path_value(pos, "amd") == 0}
    assert got == want
    assert dead == set(_marks(text)) - want  # the rest is decided, not unknown


def test_expectations_are_the_preprocessors(tmp_path, hip_clang):
    """clang's preprocessor (plain C++ with __HIP_PLATFORM_AMD__ defined, what the model's
    "amd" world assumes of these cases) keeps exactly the marks each case expects."""
    wrong = []
    for name, text, want in CASES:
        src = tmp_path / f"{name}.cpp"
        src.write_bytes(text)
        r = subprocess.run(
            [hip_clang, "-x", "c++", "-std=c++17", "-E", "-P", "-w", f"-D{AMD}=1", str(src)],
            capture_output=True,
            timeout=60,
        )
        # a case may not compile (a stray `#else` left as text): -E still writes its output
        kept = {int(m.group(1)) for m in _MARK.finditer(r.stdout)}
        if not r.stdout or kept != want:
            wrong.append(f"{name}: clang keeps {sorted(kept)}, expected {sorted(want)}")
    assert not wrong, "\n".join(wrong)


def test_the_model_and_the_include_decider_agree():
    """Where Directives decides a line-start `#` is no directive (a raw string, a comment), the
    model finds no conditional there either: one decider."""
    for _name, text, _want in CASES:
        pp = PPState(_View(text))
        directives = Directives(text)
        starts = {text.index(b"#", b.start) for b in pp.branches}
        for m in re.finditer(rb"(?m)^[ \t]*#", text):
            h = m.end() - 1
            if h in starts:
                assert directives.starts_directive(h), _name
        for h in starts:
            assert Directives(text).starts_directive(h), _name


def test_the_prepass_reads_the_same_branches():
    """The project pre-pass (no parse tree) decides an include's `#if`s as the model does: an
    `#else` inside a raw string does not put the include under the `#ifdef`'s other side."""
    data = (
        b"#ifdef " + AMD.encode() + b'\nconst char* s = R"(\n#else\n)";\n'
        b'#include "compat.h"\n#endif\n'
    )
    assert unconditional_includes(data) == ("compat.h",)
    hidden = data.replace(b'R"(\n#else\n)"', b'"x";\n#else\n')
    assert unconditional_includes(hidden) == ()


# `#include` lines whose `#` follows a comment, or follows a literal on a spliced line: the
# decider's answers, checked against clang below
INCLUDE_CASES = [
    ("comment-before-hash", b"/* c */ @INC\n", True),
    ("multi-line-comment-before-hash", b"/* a\n b */ @INC\n", True),
    ("code-then-multi-line-comment", b"int a; /* a\n b */ @INC\n", False),
    ("string-then-splice", b'const char* s = "x" \\\n@INC\n;\n', False),
    ("comment-then-splice", b"/* c */ \\\n@INC\n", True),
    ("line-comment-before-hash", b"// c @INC\n", False),
    ("byte-order-mark-then-comment", b"\xef\xbb\xbf/* c */ @INC\n", True),
]
MARKER = b'#include "porter_marker.h"'


@pytest.mark.parametrize("name,text,directive", INCLUDE_CASES, ids=[c[0] for c in INCLUDE_CASES])
def test_include_decision(name, text, directive):
    data = text.replace(b"@INC", MARKER)
    assert Directives(data).starts_directive(data.index(MARKER)) is directive


def test_include_expectations_are_the_preprocessors(tmp_path, hip_clang):
    (tmp_path / "porter_marker.h").write_bytes(b"porter_marker_included\n")
    wrong = []
    for name, text, directive in INCLUDE_CASES:
        src = tmp_path / f"{name}.cpp"
        src.write_bytes(text.replace(b"@INC", MARKER))
        r = subprocess.run(
            [hip_clang, "-x", "c++", "-std=c++17", "-E", "-w", "-I", str(tmp_path), str(src)],
            capture_output=True,
            timeout=60,
        )
        if (b"porter_marker_included" in r.stdout) is not directive:
            wrong.append(f"{name}: clang {'does not include' if directive else 'includes'} it")
    assert not wrong, "\n".join(wrong)


def test_an_invalid_octal_constant_is_unknown():
    """`#if __CUDA_ARCH__ >= 09` (no octal constant: the preprocessor rejects it) is a condition
    the model cannot evaluate, not an exception in the rules that read it."""
    data = (
        b"#include <cuda_runtime.h>\n#if __CUDA_ARCH__ >= 09\nint x;\n#endif\n"
        b"__global__ void k() { cudaMalloc(0, 0); }\n"
    )
    pp = PPState(_View(data))
    assert pp.branches[0].cond is not None and pp.branches[0].cond.eval("amd") is None
    assert pp.path_value(data.index(b"int x"), "amd") is None
    r = process_one("m.cu", data, EngineOptions())
    assert r.errors == []
    # an octal constant is read as one
    assert parse_cond("010 == 8").eval("amd") == 1


_PIECES = [
    b"#if 0",
    b"#ifdef X",
    b"#else",
    b"#endif",
    b"#e\\\nlse",
    b"# /* c */ endif",
    b"/*",
    b"*/",
    b"//",
    b'"',
    b"'",
    b'R"(',
    b')"',
    b"1'0",
    b"\\\n",
    b"\\\r\n",
    b"\n",
    b"\r\n",
    b" ",
    b"\t",
    b"x",
    b"#define M ",
]


def test_the_batch_decides_as_the_single_questions():
    """`Directives.directive_lines` (what the model reads, with the common case decided inline)
    answers as `starts_directive`, `name_after` and `logical_end` asked one `#` at a time, on
    seeded random texts built from the pieces the decision depends on."""
    rnd = random.Random(20261203)
    names = frozenset({b"if", b"ifdef", b"else", b"endif"})
    hashes = re.compile(rb"#")
    for _ in range(3000):
        data = b"".join(rnd.choice(_PIECES) for _ in range(rnd.randint(1, 24)))
        want = []
        for h in (m.start() for m in hashes.finditer(data)):
            line = data.rfind(b"\n", 0, h) + 1
            single = Directives(data)
            name, name_end = single.name_after(h)
            if name in names and single.starts_directive(h, line):
                want.append((line, name, name_end, single.logical_end(name_end)))
        assert Directives(data).directive_lines(hashes, names) == want, data
