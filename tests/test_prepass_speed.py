"""The project pre-pass's shortcuts give what the plain forms give: shim_names' nested namespace
aliases (tried only where `namespace` is written, not at every byte), names_by_file with each
folder and include path resolved once, and the pre-pass's single-read file reader."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

from porter import engine
from porter.rewrite.project import (
    FileScan,
    any_includes,
    names_by_file,
    reaching_names,
    unconditional_includes,
)
from porter.rewrite.shims import _NESTED_ALIAS, shim_names

TRICKY = [
    b"namespace cuda { namespace std = ::std; }\n",
    b"namespace cuda{namespace std=::std;}namespace a {\n namespace b = c; }",
    b"xnamespace a { namespace b = c; }\n",  # no word start: no alias
    b"namespace a { namespace b { namespace c = d; } }\n",  # b's body is no alias, c's is
    b"namespace a { namespace namespace b = c;",
    b"/* namespace */ namespace\ta\r\n{\r\n\tnamespace  b\t= ::hipcub; }",
    b"namespace",
    b"",
    b"namespace a { namespace b =",
]


def _nested_plain(data: bytes) -> set[str]:
    """The nested aliases as a plain finditer over the whole file finds them."""
    return {f"{m.group(1).decode()}::{m.group(2).decode()}" for m in _NESTED_ALIAS.finditer(data)}


def _sources() -> list[bytes]:
    found = [*TRICKY]
    for folder in (FIXTURES, ROOT / "examples", ROOT / "porter"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in {".cu", ".cuh", ".h", ".hpp", ".cpp", ".py"}:
                found.append(path.read_bytes())
    return found


def test_nested_aliases_are_those_finditer_finds():
    sources = _sources()
    hits = 0
    for data in sources:
        plain = _nested_plain(data)
        hits += bool(plain)
        assert {n for n in shim_names(data) if "::" in n} == plain, data[:200]
    assert hits >= 4, "too few sources with a nested alias: the test proves little"


def test_names_by_file_resolves_each_folder_and_path_once_with_the_same_result(tmp_path):
    """Files of one folder share their includes: resolved once per (folder, path), the reverse
    include graph and so the names each file sees are those of one resolution per include."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    files = [
        FileScan("lib/compat.h", str(tmp_path / "lib/compat.h"), frozenset({"cudaError_t"}), ()),
        FileScan("a/x.cu", str(tmp_path / "a/x.cu"), frozenset(), ("../lib/compat.h",)),
        FileScan("a/y.cu", str(tmp_path / "a/y.cu"), frozenset(), ("../lib/compat.h", "z.h")),
        FileScan("a/z.h", str(tmp_path / "a/z.h"), frozenset(), ()),
        FileScan("b/z.h", str(tmp_path / "b/z.h"), frozenset(), ("lib/compat.h",)),
        FileScan("b/w.cu", str(tmp_path / "b/w.cu"), frozenset(), ("z.h",)),
        FileScan("b/v.cu", str(tmp_path / "b/v.cu"), frozenset(), ("z.h", "<vector>")),
    ]
    seen = names_by_file(files)
    assert sorted(seen) == ["a/x.cu", "a/y.cu", "b/v.cu", "b/w.cu", "b/z.h"]
    assert all(names == {"cudaError_t"} for names in seen.values())


def _read_within(path, limit: int) -> bytes | None:
    return engine.read_within(path, limit)[0]


def test_read_within_reads_whole_files_and_refuses_large_ones(tmp_path):
    body = b"__global__ void k() {}\n" * 5000
    (tmp_path / "k.cu").write_bytes(body)
    (tmp_path / "e.cu").write_bytes(b"")
    assert _read_within(tmp_path / "k.cu", 0) == body
    assert _read_within(tmp_path / "k.cu", len(body)) == body
    assert _read_within(tmp_path / "k.cu", len(body) - 1) is None
    assert _read_within(tmp_path / "e.cu", 1) == b""
    with pytest.raises(FileNotFoundError):
        _read_within(tmp_path / "gone.cu", 0)


def test_read_within_reads_to_the_end_of_a_file_larger_than_its_stat(tmp_path, monkeypatch):
    """A file that grew after the fstat (or one whose size the fstat does not tell: /proc) is
    read to its end, not cut at the size the fstat gave."""
    body = bytes(range(256)) * 10_000
    (tmp_path / "k.cu").write_bytes(body)
    real = os.fstat

    class Small:
        def __init__(self, st):
            self.st_size = 100

    monkeypatch.setattr(engine.os, "fstat", lambda fd: Small(real(fd)))
    monkeypatch.setattr(engine, "_READ_MORE", 4096)
    assert _read_within(tmp_path / "k.cu", 0) == body


def test_the_nested_alias_pattern_starts_with_namespace():
    """The shortcut tries _NESTED_ALIAS only where `namespace` is written: so must every match."""
    assert re.match(rb"\\bnamespace", _NESTED_ALIAS.pattern)


def test_read_within_reads_to_the_end_of_a_file_smaller_than_its_stat(tmp_path, monkeypatch):
    """A read that stops short of the size the fstat gave (the file shrank, or the kernel cut
    a read of more than 2 GiB) is continued to the file's end."""
    body = b"x" * 50_000
    (tmp_path / "k.cu").write_bytes(body)
    real_read = os.read
    monkeypatch.setattr(engine.os, "read", lambda fd, n: real_read(fd, min(n, 10_000)))
    assert _read_within(tmp_path / "k.cu", 0) == body


# -- the include graph of a project whose headers define names of their own -------------------

CUDA_INCLUDE = Path("/usr/local/cuda/include")
_SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".inl", ".c", ""}
_INCLUDE_PIECES = [
    b'#include "a.h"\n',
    b"#include <b/c.h>\n",
    b"  # include\t<d.h>\r\n",
    b'#include "e.h" // x\n',
    b"#ifndef G\n",
    b"#define G\n",
    b"#if defined(__HIP_PLATFORM_AMD__)\n",
    b"#ifdef PROJ_CPU_ONLY\n",
    b"#if !defined(H)\n",
    b"#define H 1\n",
    b"#else\n",
    b"#elif X\n",
    b"#endif\n",
    b"/* #include <f.h> */\n",
    b'"#include <g.h>"\n',
    b"// #include <h.h>\n",
    b"#define M \\\n",
    b"\\\n",
    b"/*\n",
    b"*/\n",
    b'R"(#include <r.h>)"\n',
    b"x = 1; #include <i.h>\n",
    b"\xef\xbb\xbf#include <bom.h>\n",
    b"#include <unterminated.h\n",
    b"\r",
    b"int a;\n",
]


def _reference_unconditional_includes(data: bytes) -> tuple[str, ...]:
    """project.unconditional_includes before the answer was kept per innermost branch."""
    from porter.rewrite.cuda import _shared_on_amd
    from porter.rewrite.includes import include_directives
    from porter.rewrite.shims import preproc_model
    from porter.source import SourceFile

    hits = include_directives(data)
    if not hits:
        return ()
    pp = preproc_model(SourceFile("", data), None)
    return tuple(d.path for d in hits if _shared_on_amd(pp, data, d.path_start))


def _tree_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in _SUFFIXES)


def _include_sources() -> list[bytes]:
    found = [*TRICKY]
    for folder in (FIXTURES, ROOT / "examples", CUDA_INCLUDE):
        if folder.is_dir():
            found += [p.read_bytes() for p in _tree_files(folder)]
    rnd = random.Random(20261203)
    for _ in range(3000):
        found.append(b"".join(rnd.choice(_INCLUDE_PIECES) for _ in range(rnd.randint(1, 14))))
    return found


@pytest.fixture(scope="module")
def include_sources() -> list[bytes]:
    return _include_sources()


def test_unconditional_includes_are_those_of_the_reference(include_sources):
    kept = 0
    for data in include_sources:
        exact = _reference_unconditional_includes(data)
        kept += len(exact)
        assert unconditional_includes(data) == exact, data[:300]
    assert kept > 1000, "too few includes: the test proves little"


def test_any_includes_hold_every_unconditional_include(include_sources):
    """The include graph of any_includes has every edge of the unconditional includes' graph:
    the files it does not reach a header with names from cannot reach one in the exact one."""
    fewer = 0
    for data in include_sources:
        loose = set(any_includes(data))
        exact = set(unconditional_includes(data))
        assert exact <= loose, (data[:300], exact - loose)
        fewer += exact != loose
    assert fewer > 100, "any_includes finds no more than the exact includes: the test proves little"


def _scans(folder: Path, includes) -> list[FileScan]:
    from porter.mappings.index import load_index
    from porter.rewrite.cuda import project_names

    index = load_index()
    out = []
    for p in _tree_files(folder):
        data = p.read_bytes()
        rel = str(p.relative_to(folder))
        out.append(FileScan(rel, str(p), project_names(rel, data, index), includes(data)))
    return out


def _prepass_names(files: list[FileScan], exact: dict[str, tuple[str, ...]]) -> dict:
    """names_by_file as the pre-pass computes it: the exact includes of the reaching files."""
    reaching = reaching_names(files)
    kept = [
        FileScan(f.rel, f.path, f.names, exact[f.path] if f.path in reaching else ()) for f in files
    ]
    return names_by_file(kept)


def test_the_include_graph_of_every_include_text_reaches_every_file_that_sees_names(tmp_path):
    """names_by_file from the exact includes of the files reaching_names keeps (any_includes'
    graph) is names_by_file from every file's exact includes: over CUDA's include folder (whose
    CCCL headers define table names) and a project built to have conditional includes."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib/compat.h").write_bytes(b"#pragma once\ntypedef int cudaError_t;\n")
    (tmp_path / "lib/other.h").write_bytes(b"#pragma once\ntypedef int cudaStream_t;\n")
    (tmp_path / "a.cu").write_bytes(b'#include "lib/compat.h"\n')
    (tmp_path / "b.cu").write_bytes(b'#ifdef CPU_ONLY\n#include "lib/compat.h"\n#endif\n')
    (tmp_path / "c.h").write_bytes(b'// #include "lib/other.h"\n#include "lib/compat.h"\n')
    (tmp_path / "d.cu").write_bytes(b'#include "c.h"\n#include <lib/other.h>\n')
    (tmp_path / "e.cu").write_bytes(b'#include "b.cu"\n#include <vector>\n')
    (tmp_path / "f.cu").write_bytes(b"int main() {}\n")
    folders = [tmp_path] + ([CUDA_INCLUDE] if CUDA_INCLUDE.is_dir() else [])
    for folder in folders:
        loose = _scans(folder, any_includes)
        exact = {f.path: f.includes for f in _scans(folder, unconditional_includes)}
        full = names_by_file(FileScan(f.rel, f.path, f.names, exact[f.path]) for f in loose)
        if folder == tmp_path:
            assert sorted(full) == ["a.cu", "c.h", "d.cu"]
        assert full, f"{folder}: no file sees names: the test proves little"
        assert _prepass_names(loose, exact) == full
        assert len(reaching_names(loose)) < len(loose), "all reach names: the test proves little"
