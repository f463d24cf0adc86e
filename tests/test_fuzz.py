"""Fuzzing: real CUDA (every fixture and example source) mutated by a seeded mutator, each
mutant ported in memory. No exception and no internal rule error on any mutant; the output is
the same when the same bytes are ported again (after other files: no state leaks between
files); and porting the output again changes nothing (stability, as Black checks it).

The seed and the count are fixed, so every run ports the same mutants and a failure names one
that can be replayed (`replay(seed, index)`). A longer local run:
    PORTER_FUZZ_COUNT=5000 PORTER_FUZZ_SEED=7 python -m pytest -q tests/test_fuzz.py
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

from conftest import FIXTURES, ROOT

from porter.engine import EngineOptions, FileResult, process_one

SEED = int(os.environ.get("PORTER_FUZZ_SEED", "20260"))
COUNT = int(os.environ.get("PORTER_FUZZ_COUNT", "1000"))  # about 6 s on one core
SOURCE_SUFFIXES = {".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp", ".inl"}

# fragments that stress the lexer, the #if model, the include insertion and the launch rewrite
FRAGMENTS = [
    b"#if defined(__HIP_PLATFORM_AMD__)\n",
    b"#ifdef __HIP_PLATFORM_NVIDIA__\n",
    b"#else\n",
    b"#endif\n",
    b"#elif __CUDA_ARCH__ >= 700\n",
    b"#if 0\n",
    b"#define X(a) cudaFree(a)\n",
    b"#include <cuda_runtime.h>\n",
    b'#include "local.cuh"\n',
    b"#pragma once\n",
    b"{",
    b"}",
    b"(",
    b")",
    b";",
    b"<<<",
    b">>>",
    b"<<<1, 2>>>",
    b'"',
    b"'",
    b"/*",
    b"*/",
    b"//",
    b"\\\n",
    b'R"x(',
    b')x"',
    b"\r",
    b"\r\n",
    b"\n",
    b"\t",
    b"\xff",
    b"\xc3\xa9",
    b"cudaMalloc",
    b"cudaMemcpyAsync(d, s, n, cudaMemcpyHostToDevice, st)",
    b"__shfl_sync",
    b"__shfl_down_sync(0xffffffff, v, 16)",
    b"warpSize",
    b"32",
    b"__syncwarp()",
    b'asm volatile("mov.u32 %0, %%laneid;" : "=r"(x));',
    b"__global__",
    b"__device__",
    b"cudaStream_t",
    b"cublasSgemm",
    b"cudaError_t e = cudaGetLastError();",
    b"template <typename T>",
    b"namespace cg = cooperative_groups;",
    b"porter: ignore",
]
_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|\d+|\S")


def corpus() -> list[tuple[str, bytes]]:
    files = []
    for base in (FIXTURES, ROOT / "examples"):
        for p in sorted(base.rglob("*")):
            if p.suffix in SOURCE_SUFFIXES and p.is_file():
                files.append((p.relative_to(ROOT).as_posix(), p.read_bytes()))
    return files


def mutate(rng: random.Random, data: bytes, other: bytes) -> tuple[str, bytes]:
    """One to three random edits of one kind; returns (what was done, mutant)."""
    n = len(data)

    def pos() -> int:
        return rng.randint(0, n)

    kind = rng.choice(
        [
            "delete",
            "duplicate",
            "insert",
            "token",
            "swap-lines",
            "truncate",
            "line-endings",
            "no-final-newline",
            "splice",
            "replace-byte",
        ]
    )
    out = data
    for _ in range(rng.randint(1, 3)):
        n = len(out)
        if kind == "delete" and n:
            a = pos() % n
            b = min(n, a + rng.choice([1, 2, 5, 20, 200]))
            out = out[:a] + out[b:]
        elif kind == "duplicate" and n:
            a = pos() % n
            b = min(n, a + rng.choice([1, 10, 100, 1000]))
            out = out[:b] + out[a:b] + out[b:]
        elif kind == "insert":
            at = pos() % (n + 1)
            out = out[:at] + rng.choice(FRAGMENTS) + out[at:]
        elif kind == "token":
            toks = list(_TOKEN.finditer(out))
            if toks:
                t = rng.choice(toks)
                repl = rng.choice(toks).group() if rng.random() < 0.5 else rng.choice(FRAGMENTS)
                out = out[: t.start()] + repl + out[t.end() :]
        elif kind == "swap-lines":
            lines = out.splitlines(keepends=True)
            if len(lines) > 1:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
                out = b"".join(lines)
        elif kind == "truncate" and n:
            out = out[: pos() % n]
        elif kind == "line-endings":
            out = out.replace(b"\r\n", b"\n").replace(b"\n", rng.choice([b"\r\n", b"\r"]))
        elif kind == "no-final-newline":
            out = out.rstrip(b"\r\n")
        elif kind == "splice" and other:
            a = rng.randint(0, len(other))
            at = pos() % (n + 1)
            out = out[:at] + other[a : a + rng.choice([50, 500, 5000])] + out[at:]
        elif kind == "replace-byte" and n:
            at = pos() % n
            out = out[:at] + bytes([rng.randrange(256)]) + out[at + 1 :]
    return kind, out


def mutants(seed: int, count: int):
    files = corpus()
    rng = random.Random(seed)
    for i in range(count):
        name, data = rng.choice(files)
        _, other = rng.choice(files)
        kind, out = mutate(rng, data, other)
        yield i, f"{name} ({kind}, seed {seed}, #{i})", Path(name).suffix, out


def replay(seed: int, index: int) -> bytes:
    """The mutant a failure names, to debug it: `replay(20260, 17)`."""
    for i, _, _, data in mutants(seed, index + 1):
        if i == index:
            return data
    raise IndexError(index)


def _summary(res: FileResult) -> tuple:
    return (
        res.new_data,
        [(f.code, f.line, f.col, f.message) for f in res.findings],
        res.status,
        tuple(res.errors),
    )


def test_mutated_real_cuda_ports_without_fault():
    opts = EngineOptions()
    first: dict[int, tuple] = {}
    faults: list[str] = []
    cases = list(mutants(SEED, COUNT))
    for i, what, suffix, data in cases:
        try:
            res = process_one("m" + suffix, data, opts)
        except Exception as exc:  # noqa: BLE001 - the fault is what the test reports
            faults.append(f"{what}: {type(exc).__name__}: {exc}")
            continue
        if res.errors:
            faults.append(f"{what}: {res.errors[0]}")
            continue
        first[i] = _summary(res)
        again = process_one("m" + suffix, res.new_data, opts)
        if again.new_data != res.new_data:
            faults.append(f"{what}: porting the output again changes it")
    # the same bytes again, now that every other mutant went through the same process
    for i, what, suffix, data in cases[::7]:
        if i in first and _summary(process_one("m" + suffix, data, opts)) != first[i]:
            faults.append(f"{what}: a second port of the same bytes differs")
    assert not faults, "\n".join(faults[:20]) + f"\n({len(faults)} faults in {COUNT} mutants)"


def test_mutated_tree_through_the_cli(tmp_path, capsys):
    """A tree of mutants through the whole command: discovery, two workers, every report."""
    from porter.cli import main

    src = tmp_path / "src"
    src.mkdir()
    for i, _, suffix, data in mutants(SEED + 1, 24):
        (src / f"m{i}{suffix}").write_bytes(data)
    reports = [tmp_path / f"report.{ext}" for ext in ("json", "sarif", "md", "html", "txt")]
    rc = main(
        [
            "port",
            str(src),
            "-o",
            str(tmp_path / "out"),
            "-j",
            "2",
            "--exit-zero",
            "--format",
            "github",
            *(a for r in reports for a in ("--report", str(r))),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "Traceback" not in err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        p.name for p in src.iterdir()
    )
    for r in reports:
        text = r.read_bytes().decode("utf-8")  # valid UTF-8 whatever the mutants hold
        if r.suffix in (".json", ".sarif"):
            json.loads(text)


def test_mutated_tree_output_does_not_depend_on_the_process(tmp_path):
    """The same tree ported by two processes with different string hashing (PYTHONHASHSEED:
    set and dict orders) and two workers: identical trees and reports."""
    import subprocess
    import sys

    src = tmp_path / "src"
    src.mkdir()
    for i, _, suffix, data in mutants(SEED + 2, 24):
        (src / f"m{i}{suffix}").write_bytes(data)
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "porter.cli",
                "port",
                str(src),
                "-o",
                str(out),
                "-j",
                "2",
                "-q",
                "--exit-zero",
                "--report",
                str(out) + ".json",
                "--report",
                str(out) + ".sarif",
            ],
            capture_output=True,
            check=False,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=300,
        )
        assert r.returncode == 0, r.stderr
        files = {
            p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*"))
            if p.is_file()
        }
        outs.append(
            (files, Path(str(out) + ".json").read_bytes(), Path(str(out) + ".sarif").read_bytes())
        )
    assert outs[0][0] == outs[1][0]
    assert outs[0][1] == outs[1][1]
    assert outs[0][2] == outs[1][2]


# An `#include` wherever a (malformed but recoverable) file may hold one: where tree-sitter's
# grammar has no include (a struct or class body, an enumerator list: it parses a generic
# preprocessor call), in a namespace, an `extern "C"` block, a function body, a region it cannot
# parse; and where it is no directive (a raw string, a macro body after a line continuation, a
# block comment). Whether a file has CUDA names or device code (the rewriter then parses it) or
# has neither (it may decide the includes from the bytes), the decision is the same, so a second
# port changes nothing.
INCLUDE_SITES = {
    "struct": (b"struct S {\n@INC\n  int x;\n};\n", True),
    "class-access": (b"class C {\n public:\n@INC\n};\n", True),
    "enum": (b"enum E {\n  A,\n@INC\n  B\n};\n", True),
    "namespace": (b"namespace n {\n@INC\n}\n", True),
    "extern-c": (b'extern "C" {\n@INC\n}\n', True),
    "function": (b"void f() {\n@INC\n  int y = 0; (void)y;\n}\n", True),
    "unclosed-struct": (b"struct S {\n@INC\n  int x;\n", True),
    "error-region": (b"int a = (1 + ;\n@INC\nint b = ];\n", True),
    "initializer": (b"int t[] = {\n@INC\n};\n", True),
    "raw-string": (b'const char* s = R"x(\n@INC\n)x";\n', False),
    "macro-body": (b"#define M(a) a \\\n@INC\n", False),
    "comment": (b"/*\n@INC\n*/\n", False),
}
TAILS = {
    "names": b"void g() { cudaStream_t t; cudaStreamCreate(&t); }\n",
    "device": b"__global__ void k() {}\n",
    "nothing": b"",
}


def _include_cases():
    for site, (text, directive) in INCLUDE_SITES.items():
        for inc in (b"#include <cuda_runtime.h>", b'#include "cuda_fp16.h"', b"#include <cuda.h>"):
            for tail, code in TAILS.items():
                for suffix in (".cu", ".h", ".cpp"):
                    yield (
                        f"{site}/{inc.decode()}/{tail}{suffix}",
                        text.replace(b"@INC", inc) + code,
                        suffix,
                        inc,
                        directive,
                    )


def test_include_anywhere_is_stable():
    opts = EngineOptions()
    faults = []
    for what, data, suffix, inc, directive in _include_cases():
        first = process_one("m" + suffix, data, opts)
        again = process_one("m" + suffix, first.new_data, opts)
        if again.new_data != first.new_data:
            faults.append(f"{what}: porting the output again changes it")
        if (inc in first.new_data) == directive:
            faults.append(f"{what}: the include was {'not ' if directive else ''}rewritten")
    assert not faults, "\n".join(faults)
