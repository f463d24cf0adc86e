"""The project pre-pass's shortcuts give what the plain forms give: shim_names' nested namespace
aliases (tried only where `namespace` is written, not at every byte), names_by_file with each
folder and include path resolved once, and the pre-pass's single-read file reader."""

from __future__ import annotations

import os
import re

import pytest
from conftest import FIXTURES, ROOT

from porter import engine
from porter.rewrite.project import FileScan, names_by_file
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
