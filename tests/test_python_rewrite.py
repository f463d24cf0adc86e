"""The Python writer: rewrites go through libcst (`porter.rewrite.python.write`) and keep every
byte outside the nodes they replace: comments inside attribute chains, odd spacing, multi-line
imports and calls, CRLF line endings, a BOM, a latin-1 file, and all the quoting forms of the
CUDA C++ string literals. Check mode does not import libcst; port mode does."""

from __future__ import annotations

import subprocess
import sys

import pytest

from porter.engine import EngineOptions, process_one
from porter.findings import Edit
from porter.parse.python import parse
from porter.rewrite.cuda import PortOptions
from porter.rewrite.python import CstWriteError, write
from porter.rules.base import RuleOptions, parse_archs


def port(data: bytes, unsafe: bool = False):
    opts = EngineOptions(
        port=PortOptions(),
        rules=RuleOptions(parse_archs("gfx942,gfx950")),
        apply_fixes=True,
        rewrite=True,
        unsafe_fixes=unsafe,
    )
    res = process_one("k.py", data, opts, "python")
    assert not res.errors, res.errors
    return res


CHAINS = b"""import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice  # keep this comment


@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr)
    y = tl.extra.cuda.libdevice.tanh(x) + tl.extra .cuda. libdevice.exp(x)   # odd spacing
    z = (tl.extra
         .cuda  # a comment inside the chain
         .libdevice.erf(x))
    tl.store(y_ptr, y + z + libdevice.log1p(x))
"""
ADDED = b"import triton.language.extra.libdevice  # porter: vendor-neutral libdevice\n"


def test_attribute_chains_and_import_keep_layout():
    new = port(CHAINS).new_data
    want = (
        CHAINS.replace(
            b"from triton.language.extra.cuda import libdevice  # keep this comment\n",
            b"from triton.language.extra import libdevice  # keep this comment\n" + ADDED,
        )
        .replace(b"tl.extra.cuda.libdevice.tanh", b"tl.extra.libdevice.tanh")
        .replace(b"tl.extra .cuda. libdevice.exp", b"tl.extra. libdevice.exp")
        .replace(
            b"(tl.extra\n         .cuda  # a comment inside the chain\n",
            b"(tl.extra  # a comment inside the chain\n",
        )
    )
    assert new == want


MULTILINE_IMPORT = """# -*- coding: utf-8 -*-
\"\"\"Docstring with \u00e9 and \u65e5\u672c.\"\"\"
import triton.language as tl
import triton.language.extra.cuda.libdevice as ld
from triton.language.extra.cuda.libdevice import (
    tanh,   # hyperbolic
    exp,
)
import triton


@triton.jit
def k(x):
    return ld.tanh(x) + tanh(x) + exp(x)
""".encode()


def test_import_forms_and_utf8_kept():
    new = port(MULTILINE_IMPORT).new_data
    assert new == MULTILINE_IMPORT.replace(
        b"triton.language.extra.cuda.libdevice", b"triton.language.extra.libdevice"
    )


def test_crlf_and_bom_kept():
    crlf = CHAINS.split(b"\n(tl.extra")[0].replace(b"\n", b"\r\n")
    src = b"\xef\xbb\xbf" + crlf
    new = port(src).new_data
    assert new.startswith(b"\xef\xbb\xbfimport triton\r\n")
    assert b"\n" not in new.replace(b"\r\n", b"")  # the added import line is CRLF too
    assert ADDED.replace(b"\n", b"\r\n") in new


WRAPPED_CALL = b"""import triton
import triton.language as tl


@triton.jit
def k(out_ptr):
    t = tl.extra.cuda.globaltimer(  # start
    )
    tl.store(out_ptr, t + (tl.extra.cuda.num_threads()))  # end
"""


def test_fix_wrapping_a_multiline_call_keeps_it_verbatim():
    new = port(WRAPPED_CALL, unsafe=True).new_data
    assert new == WRAPPED_CALL.replace(
        b"tl.extra.cuda.globaltimer(  # start\n    )",
        b"(tl.extra.hip.memrealtime() if tl.target_info.is_hip() else "
        b"tl.extra.cuda.globaltimer(  # start\n    ))",
    ).replace(
        b"(tl.extra.cuda.num_threads())",
        b"((tl.extra.hip.num_threads() if tl.target_info.is_hip() else "
        b"tl.extra.cuda.num_threads()))",
    )


STRINGS = b'''import cupy as cp

A = '__global__ void a(float* x) { cudaDeviceSynchronize(); }'
B = ("extern \\"C\\" __global__ void b(float* x) {\\n"
     '  float v = x[threadIdx.x];\\t// tab \\u00e9\\n'
     "  x[threadIdx.x] = v; cudaError_t e = cudaGetLastError();\\n}\\n")
C = """
#include <cuda_fp16.h>
extern "C" __global__ void c(__half* h) { cudaStream_t s; cudaStreamCreate(&s); }
"""
k1 = cp.RawKernel(A, "a")
k2 = cp.RawKernel(B, "b")
m = cp.RawModule(code=C)
e = cp.ElementwiseKernel("float32 x", "float32 y", 'y = x; cudaDeviceSynchronize();', "n",
                         preamble=r\'\'\'__device__ float f(float a) { cudaFree(0); }\'\'\')
'''


def test_string_literals_respliced_in_every_quoting():
    new = port(STRINGS).new_data
    want = STRINGS
    for old, rep in (
        (b"cudaDeviceSynchronize", b"hipDeviceSynchronize"),
        (b"cudaError_t", b"hipError_t"),
        (b"cudaGetLastError", b"hipGetLastError"),
        (b"cuda_fp16.h", b"hip/hip_fp16.h"),
        (b"cudaStream_t", b"hipStream_t"),
        (b"cudaStreamCreate", b"hipStreamCreate"),
        (b"cudaFree", b"hipFree"),
    ):
        want = want.replace(old, rep)
    assert new == want


def test_latin1_file_strings_rewritten_and_encoding_kept():
    src = (
        "# -*- coding: latin-1 -*-\n# auteur: Jos\u00e9\nimport cupy as cp\n"
        'S = "__global__ void k() { cudaDeviceSynchronize(); }  // \u00e9t\u00e9"\n'
        'k = cp.RawKernel(S, "k")\n'
    ).encode("latin-1")
    res = port(src)
    assert res.new_data == src.replace(b"cudaDeviceSynchronize", b"hipDeviceSynchronize")
    # positions are the file's own: the finding points at the call in line 4
    assert any(f.line == 4 and f.col == 28 for f in res.findings), [
        f.render() for f in res.findings
    ]


def test_edit_that_names_no_node_is_refused():
    src = parse(b"import triton\nx = 1  # c\n")
    with pytest.raises(CstWriteError):
        write(src, [Edit(17, 19, b"zz")])  # part of a comment: no node
    assert write(src, [Edit(14, 15, b"y")]) == b"import triton\ny = 1  # c\n"


def _heavy(args: list[str], path: str) -> str:
    # main(), not the console script's entry: that ends the process (os._exit) before the
    # check below could run
    code = (
        f"import sys; from porter.cli import main\n"
        f"main([*{args!r}, {path!r}])\n"
        "sys.stderr.write('LIBCST=' + str('libcst' in sys.modules))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return p.stderr.rsplit("LIBCST=", 1)[-1].strip()


def test_libcst_only_when_writing(tmp_path):
    f = tmp_path / "k.py"
    f.write_bytes(CHAINS)
    assert _heavy(["check"], str(f)) == "False"
    assert _heavy(["port", "-o", str(tmp_path / "out.py")], str(f)) == "True"


def test_import_added_after_a_last_line_without_newline():
    src = (
        b"import triton\n\n\n@triton.jit\ndef k(x):\n    return tl.extra.cuda.libdevice.tanh(x)"
        b"\n\n\nimport triton.language as tl"
    )
    new = port(src).new_data
    assert new == src.replace(
        b"tl.extra.cuda.libdevice", b"tl.extra.libdevice"
    ) + b"\n" + ADDED.rstrip(b"\n")
