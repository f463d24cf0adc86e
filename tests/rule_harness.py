"""Semgrep-style rule fixtures.

A fixture is fixtures/rules/<CODE>_<kebab-case description>.<ext> (CUDA/HIP C++, Python;
CMakeLists/Makefile/*.cmake for build rules; naming in CONTRIBUTING.md). Markers, in a comment
at the end of a line (or alone on the line above it):

    // expect: PT101, PT102     the line must be reported with exactly these codes
    // ok: PT101                 the line must not be reported with this code (documentation)

The codes under test are every code named by a marker in the file; a finding of one of them on a
line without an `expect` marker fails the test. An optional first-lines header sets options:

    // porter-fixture: offload-arch=gfx942,gfx1100 rocm-version=6.4 unsafe-fixes

A twin `<stem>.fixed.<ext>` holds the text after applying the fixes of the codes under test (safe
ones, and unsafe ones with `unsafe-fixes`); fixing it again must change nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from porter.engine import EngineOptions, process_one
from porter.rewrite.cuda import PortOptions
from porter.rules.base import RuleOptions, parse_archs

MARK = re.compile(r"(?://|#)\s*(expect|ok):\s*([A-Z0-9 ,]+?)\s*(?:\*/)?$")
HEADER = re.compile(r"porter-fixture:\s*(.*)$")
BUILD_NAMES = {"cmakelists.txt", "makefile", "gnumakefile"}


def fixture_kind(path: Path) -> str:
    name = path.name.lower()
    if (
        name in BUILD_NAMES
        or name.endswith((".cmake", ".mk"))
        or "cmakelists" in name
        or name.startswith("makefile")
    ):
        return "build"
    if name.endswith(".py"):
        return "python"
    return "cuda"


def parse_fixture(text: str):
    expected: dict[int, set[str]] = {}
    codes: set[str] = set()
    opts = {"offload-arch": "gfx942", "rocm-version": "7.2", "unsafe-fixes": False}
    lines = text.splitlines()
    for _i, line in enumerate(lines[:5], start=1):
        h = HEADER.search(line)
        if h:
            for item in h.group(1).split():
                if "=" in item:
                    k, v = item.split("=", 1)
                    opts[k] = v
                else:
                    opts[item] = True
    for i, line in enumerate(lines, start=1):
        m = MARK.search(line)
        if not m:
            continue
        kind = m.group(1)
        cs = {c.strip() for c in m.group(2).split(",") if c.strip()}
        codes |= cs
        before = line[: m.start()].strip()
        target = i if before else i + 1  # a marker alone on its line: the next line
        if kind == "expect":
            expected.setdefault(target, set()).update(cs)
    return expected, codes, opts


def engine_options(codes, opts, *, fix: bool) -> EngineOptions:
    version = tuple(int(x) for x in str(opts["rocm-version"]).split("."))
    return EngineOptions(
        port=PortOptions(rocm_version=version),
        rules=RuleOptions(parse_archs(str(opts["offload-arch"])), version),
        rule_codes=tuple(sorted(codes)),
        apply_fixes=fix,
        unsafe_fixes=bool(opts.get("unsafe-fixes")),
        rewrite=False,
    )


def run_fixture(path: Path):
    text = path.read_text()
    expected, codes, opts = parse_fixture(text)
    kind = fixture_kind(path)
    res = process_one(path.name, path.read_bytes(), engine_options(codes, opts, fix=False), kind)
    found: dict[int, set[str]] = {}
    for f in res.findings:
        if f.code in codes:
            found.setdefault(f.line, set()).add(f.code)
    return expected, found, codes, opts, res


def fixed_twin(path: Path) -> Path:
    return (
        path.with_name(path.name.replace(path.suffix, ".fixed" + path.suffix))
        if not path.name.lower().startswith(("cmakelists", "makefile"))
        else path.with_name(path.name + ".fixed")
    )


def apply_fixes(path: Path, data: bytes, codes, opts) -> bytes:
    res = process_one(path.name, data, engine_options(codes, opts, fix=True), fixture_kind(path))
    return res.new_data if res.new_data is not None else data
