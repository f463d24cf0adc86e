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
import re
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


# Every `#include <path>` or `#include "path"` text, wherever it is (a comment, a literal, any
# #if branch, not at a line start): the directives include_directives finds are at a line start
# after blanks, where no earlier match on the line can have covered their `#`. A superset of
# unconditional_includes' paths for the include graph's reach (`reaching_names`).
_ANY_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*([<"][^>"\r\n]*[>"])')


def any_includes(data: bytes) -> tuple[str, ...]:
    """The paths of every include text of the file, each once: a superset of
    `unconditional_includes` (no #if model, no lexing of comments and literals)."""
    found = dict.fromkeys(_ANY_INCLUDE.findall(data))
    return tuple(dict.fromkeys(g[1:-1].decode("utf-8", "replace").strip() for g in found))


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
    # _shared_on_amd reads the branches around a position (pp.enclosing): the innermost one
    # decides, so each is asked once (a header's includes share a few branches)
    shared: dict[object, bool] = {}
    out = []
    for d in hits:
        inner = pp.branch_at(d.path_start)
        ok = shared.get(inner)
        if ok is None:
            ok = shared[inner] = _shared_on_amd(pp, data, d.path_start)
        if ok:
            out.append(d.path)
    return tuple(out)


def names_by_file(
    files: Iterable[FileScan], resolved: dict | None = None
) -> dict[str, frozenset[str]]:
    """rel -> the project's own names the file sees through the headers it includes (its own
    definitions are decided in the file itself). Only files that see some are listed.
    `resolved`: where each include was found, shared by the calls about the same files."""
    files = list(files)
    by_path, reached = _reached(files, {} if resolved is None else resolved)
    seen: dict[str, set[str]] = defaultdict(set)
    for header, users in reached:
        for user in users:
            seen[user] |= header.names
    interned: dict[frozenset[str], frozenset[str]] = {}
    out = {}
    for path, names in seen.items():
        key = frozenset(names)
        out[by_path[path].rel] = interned.setdefault(key, key)
    return out


def reaching_names(files: Iterable[FileScan], resolved: dict | None = None) -> set[str]:
    """The normalized paths of the files from which an include chain leads to another file
    that defines names: the only files whose includes names_by_file's answer depends on. Given
    each file's `any_includes`, a superset of the files that reach one by their unconditional
    includes (the include graph has more edges, never fewer). `resolved`: as names_by_file's."""
    _, reached = _reached(list(files), {} if resolved is None else resolved)
    out: set[str] = set()
    for _, users in reached:
        out |= users
    return out


def _reached(
    files: list[FileScan], resolved: dict[tuple[str, str], list[str]]
) -> tuple[dict[str, FileScan], list[tuple[FileScan, set[str]]]]:
    """(normalized path -> file, [(file that defines names, the normalized paths of the other
    files that include it, directly or through other files)]). `resolved`: (folder, include)
    -> the files it names, filled as includes are resolved (the same for the same files)."""
    paths = [os.path.normpath(f.path) for f in files]
    by_path = dict(zip(paths, files))
    providers = [f for f in files if f.names]
    if not providers:
        return by_path, []
    by_base: dict[str, list[str]] = defaultdict(list)
    for p in by_path:
        by_base[os.path.basename(p)].append(p)
    # the reverse include graph: header path -> the files that include it
    included_by: dict[str, set[str]] = defaultdict(set)
    # the files of a folder include the same headers (CCCL: 3,026 distinct folder and path
    # pairs of 7,586 includes): each pair is resolved once, and the files whose path ends with
    # an include's are looked up once per include
    tails: dict[str, list[str]] = {}
    for f, path in zip(files, paths):
        if not f.includes:
            continue
        here = os.path.dirname(path)
        for inc in f.includes:
            targets = resolved.get((here, inc))
            if targets is None:
                targets = resolved[here, inc] = _resolve(here, inc, by_path, by_base, tails)
            for target in targets:
                included_by[target].add(path)
    out = []
    for header in providers:
        start = os.path.normpath(header.path)
        todo, reached = [start], {start}
        while todo:
            for user in included_by.get(todo.pop(), ()):
                if user not in reached:
                    reached.add(user)
                    todo.append(user)
        out.append((header, reached - {start}))
    return by_path, out


def _resolve(
    here: str, inc: str, by_path: dict, by_base: dict[str, list[str]], tails: dict[str, list[str]]
) -> list[str]:
    """The project files an `#include` path may name, seen from the folder `here`. `tails`:
    include path -> the files whose path ends with it, filled as they are looked up."""
    inc = inc.strip().replace("\\", "/")
    if not inc or os.path.isabs(inc):
        return []
    near = os.path.normpath(os.path.join(here, inc))
    if near in by_path:
        return [near]
    found = tails.get(inc)
    if found is None:
        parts = [part for part in os.path.normpath(inc).split("/") if part not in ("", ".", "..")]
        tail = "/" + "/".join(parts)
        found = tails[inc] = [p for p in by_base.get(os.path.basename(inc), ()) if p.endswith(tail)]
    if len(found) > 1:  # the nearest: the longest common folder with the including file
        depth = {p: len(os.path.commonpath([here, os.path.dirname(p)])) for p in found}
        best = max(depth.values())
        found = [p for p in found if depth[p] == best]
    return found
