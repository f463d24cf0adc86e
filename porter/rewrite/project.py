"""Project-declared names across files: which file sees which of the project's own CUDA names.

A table name that a header of the project defines at file scope (`cuda.project_names`: a
compatibility header's `typedef int cudaError_t;`) is the project's own name in the files that
include that header, as it is in the header: the port keeps the definition, so it keeps the uses.
Only the files that read the header in every AMD build count: each `#include` on the way must be
outside any `#if` but a guard or one taken on AMD (`#ifdef PROJ_CPU_ONLY #include "stub.h"`
does not count: on AMD those files mean CUDA's names, which the port renames). Includes are
resolved within the project by path: next to the including file first, else by path suffix
(`<lib/compat.h>`), the candidates nearest the including file when several match.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..source import SourceFile
from .includes import include_directives
from .shims import preproc_model


@dataclass(frozen=True)
class FileScan:
    """What the project-wide pre-pass keeps of one source."""

    rel: str  # the name the engine ports it under
    path: str  # its absolute path
    names: frozenset[str]  # the table names it defines for every file (cuda.project_names)
    includes: tuple[str, ...]  # the paths it includes in every AMD build


def unconditional_includes(data: bytes) -> tuple[str, ...]:
    """The paths of the `#include` directives every AMD build of the file reads (no `#if` around
    them but guards and tests taken on AMD: `cuda._shared_on_amd`), without their delimiters.
    The #if model comes from the directives alone (no parse); an `#include` in a comment, a
    literal or a macro body is none (`includes.include_directives`)."""
    from .cuda import _shared_on_amd

    hits = include_directives(data)  # the directives the rewriter and the rules see
    if not hits:
        return ()
    pp = preproc_model(SourceFile("", data), None)
    return tuple(d.path for d in hits if _shared_on_amd(pp, data, d.path_start))


def names_by_file(files: Iterable[FileScan]) -> dict[str, frozenset[str]]:
    """rel -> the project's own names the file sees through the headers it includes (its own
    definitions are decided in the file itself). Only files that see some are listed."""
    files = list(files)
    providers = [f for f in files if f.names]
    if not providers:
        return {}
    by_path = {os.path.normpath(f.path): f for f in files}
    by_base: dict[str, list[str]] = defaultdict(list)
    for p in by_path:
        by_base[os.path.basename(p)].append(p)
    # the reverse include graph: header path -> the files that include it
    included_by: dict[str, set[str]] = defaultdict(set)
    # the files of a folder include the same headers (CCCL: 3,026 distinct folder and path
    # pairs of 7,586 includes): each pair is resolved once
    resolved: dict[tuple[str, str], list[str]] = {}
    for f in files:
        path = os.path.normpath(f.path)
        here = os.path.dirname(path)
        for inc in f.includes:
            targets = resolved.get((here, inc))
            if targets is None:
                targets = resolved[here, inc] = _resolve(here, inc, by_path, by_base)
            for target in targets:
                included_by[target].add(path)
    seen: dict[str, set[str]] = defaultdict(set)
    for header in providers:
        start = os.path.normpath(header.path)
        todo, reached = [start], {start}
        while todo:
            for user in included_by.get(todo.pop(), ()):
                if user not in reached:
                    reached.add(user)
                    todo.append(user)
        for user in reached - {start}:
            seen[user] |= header.names
    interned: dict[frozenset[str], frozenset[str]] = {}
    out = {}
    for path, names in seen.items():
        key = frozenset(names)
        out[by_path[path].rel] = interned.setdefault(key, key)
    return out


def _resolve(here: str, inc: str, by_path: dict, by_base: dict[str, list[str]]) -> list[str]:
    """The project files an `#include` path may name, seen from the folder `here`."""
    inc = inc.strip().replace("\\", "/")
    if not inc or os.path.isabs(inc):
        return []
    near = os.path.normpath(os.path.join(here, inc))
    if near in by_path:
        return [near]
    parts = [part for part in os.path.normpath(inc).split("/") if part not in ("", ".", "..")]
    tail = "/" + "/".join(parts)
    found = [p for p in by_base.get(os.path.basename(inc), ()) if p.endswith(tail)]
    if len(found) > 1:  # the nearest: the longest common folder with the including file
        depth = {p: len(os.path.commonpath([here, os.path.dirname(p)])) for p in found}
        best = max(depth.values())
        found = [p for p in found if depth[p] == best]
    return found
