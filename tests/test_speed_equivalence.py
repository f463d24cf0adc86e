"""Each shortcut taken for speed gives what its plain definition gives, on every fixture and
example source and on cases built to trip it."""

from __future__ import annotations

from sources import repo_files

from porter.rewrite.lex import IDENT, identifiers
from porter.rewrite.shims import _SHIM, shim_names

SHIM_CASES = [
    b"#define cudaMalloc hipMalloc\n",
    b"  #  define cudaFree(p) hipFree(p)\n#define X 1\n",
    b"#define A(x) x + roc_thing\r\n",
    b"using cudaStream_t = hipStream_t;\nusing a = ::hipEvent_t;",
    b"namespace cub = hipcub;\nnamespace r = ::rocprim;\n",
    b"xusing cudaStream_t = hipStream_t;\n",  # not a word start
    b"#define cudaMalloc \\\n  hipMalloc\n",  # the HIP name on the next line
    b"#define K using cudaError_t = hipError_t;\n",  # one match hides the other
    b"/* using cudaError_t = hipError_t; */ namespace n = hip_x;",
    b"#define cudaMemcpy hipMemcpy",  # no final newline
    b"ship; roc; HIP; hip",
]


def _sources():
    for p in repo_files():
        yield p.read_bytes()
    yield from SHIM_CASES
    yield b"\n".join(SHIM_CASES)


def test_shim_names_is_the_patterns_matches():
    """shim_names searches only the lines that hold hip, HIP or roc: the same names as the
    pattern's matches over the whole file."""
    n = 0
    for data in _sources():
        whole = {(m.group(1) or m.group(2) or m.group(3)).decode() for m in _SHIM.finditer(data)}
        assert shim_names(data) == whole, data[:200]
        n += bool(whole)
    assert n >= len(SHIM_CASES) - 3


IDENT_CASES = [
    b"0x1F 1e10f 123 0777u x1 _a $b a$b \xc3\xa9t\xc3\xa9 a\x0bb c\x0cd 9_9 __x__",
    b"",
    b"42",
    b"a",
    b"\xff\xfeab\x00cd",
    b"u8'a' L\"x\" 1'000'000 .5e-3 ::std::vector<int>",
]


def test_identifiers_are_the_patterns_matches():
    """identifiers() splits the file into runs of identifier bytes: the same distinct tokens as
    the identifier pattern's matches."""
    for data in [*_sources(), *IDENT_CASES]:
        assert identifiers(data) == set(IDENT.findall(data)), data[:200]
