#!/usr/bin/env python3
"""Check the mapping tables (mappings/*.csv) against the headers and API lists they cite.

The CSV rows are the reviewed source of every mapping fact; this script only reads them. It
compares each row with the pinned inputs of scripts/inputs.lock (see scripts/api_sources.py):

  * the HIP name (and roc* name, include path) exists in every checked ROCm release from
    `hip_since` on, up to the release before `hip_removed`; `hip_since` is not earlier than the
    first checked release that has the name, and `hip_removed` is the first checked release
    without it (drift otherwise);
  * the CUDA name is declared by the current CUDA (13.0), or, for `removed` rows, by an older
    checked CUDA release, `cuda_removed` naming the first checked release without it;
  * the committed API lists have the sha256 the lock records;
  * roc* names (and dnn.csv's MIOpen names) are declared by their own library's headers
    (rocBLAS, rocSPARSE, rocSOLVER, rocRAND, MIOpen: scripts/roc_api.py) in the 6.4 / 7.2
    prefixes inside the row's window, and a roc* function takes as many parameters as the CUDA
    function (scripts/data/api/cuda_library_arity.tsv) unless the row's transform changes that.

It prints the drift (exit status 1) and, with --proposals, CUDA names without a row whose
conventional HIP name a checked release declares (proposed additions: review, then add rows).

    python scripts/check_mappings.py                  # check; exit 1 on drift
    python scripts/check_mappings.py --proposals 50   # also list proposed additions
    python scripts/check_mappings.py --apply-versions # rewrite hip_since/hip_removed/
                                                      # cuda_removed where they drift (review!)
    python scripts/check_mappings.py --refresh        # fetch the pinned wheels, rebuild
                                                      # scripts/data/api/*.tsv, compare
Exit status: 0 clean, 1 drift, 2 an input is missing or the arguments are wrong.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import api_sources as src  # noqa: E402

sys.path.insert(0, str(src.ROOT))
from porter.mappings.index import read_table  # noqa: E402
from porter.mappings.model import COLUMNS, Row, parse_version  # noqa: E402

Version = tuple[int, ...]
PRESENT, ABSENT = "P", "A"
# binding lists cover functions, types and enumerators, not every macro: their absence counts only
# for names the lists of a release with headers (6.4, 7.2) also show
VALIDATED_BINDING_RELEASES = ((6, 4), (7, 2))
IDENT_KINDS = frozenset({"function", "device_function", "type", "enum", "macro", "namespace"})


@dataclass
class Evidence:
    """Which checked ROCm releases have a name (P), lack it (A), or do not say (absent key)."""

    seen: dict[Version, str]

    @property
    def known(self) -> list[tuple[Version, str]]:
        return sorted(self.seen.items())

    def any_present(self) -> bool:
        return PRESENT in self.seen.values()

    def since(self) -> Version:
        """First release with the name, or (0,) when no checked release before it lacks it."""
        k = self.known
        first = next(i for i, (_, s) in enumerate(k) if s == PRESENT)
        return k[first][0] if any(s == ABSENT for _, s in k[:first]) else (0,)

    def removed(self) -> Version | None:
        """First checked release without the name after the last one with it."""
        k = self.known
        last = max(i for i, (_, s) in enumerate(k) if s == PRESENT)
        after = [v for v, s in k[last + 1 :] if s == ABSENT]
        return after[0] if after else None

    def absent_in(self, lo: Version, hi: Version | None) -> list[Version]:
        return [v for v, s in self.known if s == ABSENT and v >= lo[:2] and (hi is None or v < hi)]


class Rocm:
    def __init__(self, lock: src.Lock):
        self.releases = lock.rocm_releases()
        self.headers = {
            src.vkey(p["release"]): src.load_header_release(p["release"]) for p in lock.prefixes
        }
        self.bindings = src.read_release_table(src.DATA / "api" / "rocm_bindings.tsv")
        self.notes: list[str] = []
        for p in lock.prefixes:
            h = self.headers[src.vkey(p["release"])]
            if p.get("hip") and f"libamdhip64-dev {p['hip']}" not in h.packages:
                self.notes.append(
                    f"ROCm {p['release']} prefix: libamdhip64-dev is not the locked "
                    f"{p['hip']} (see {h.usr.parent}/versions.txt)"
                )

    def unpacked(self, h: src.HeaderRelease, area: str, name: str) -> bool:
        """Does the prefix hold the package that would declare this row's HIP name? (Debian had
        no rocWMMA for 6.4: its absence there says nothing.)"""
        pkg = src.AREA_PACKAGE.get(area) or next(
            (p for d, p in src.DIR_PACKAGE.items() if name.startswith(d)), None
        )
        return pkg is None or f"\n{pkg} " in "\n" + h.packages

    def name(self, name: str, area: str = "") -> Evidence:
        seen: dict[Version, str] = {}
        rels = self.bindings.get(name, set())
        trusted = any(v in rels for v in VALIDATED_BINDING_RELEASES)
        for v in self.releases:
            if v in rels:
                seen[v] = PRESENT
            elif trusted and v not in self.headers:
                seen[v] = ABSENT
        for v, h in self.headers.items():
            if self.unpacked(h, area, name):
                seen[v] = PRESENT if name in h.names else ABSENT
        return Evidence(seen)

    def path(self, rel: str, directory: bool, area: str = "") -> Evidence:
        return Evidence(
            {
                v: PRESENT if h.has_path(rel, directory) else ABSENT
                for v, h in self.headers.items()
                if self.unpacked(h, area, rel)
            }
        )


def vt(v: Version | None) -> str:
    return "" if v is None or v == (0,) else src.vtext(v)


def hip_evidence(rocm: Rocm, r: Row, name: str) -> Evidence:
    if r.kind in ("header", "header_dir"):
        return rocm.path(name, r.kind == "header_dir", r.area)
    if "::" in name:
        first, _, rest = name.partition("::")
        return rocm.name(rest.split("::")[-1], r.area) if first else rocm.name(name, r.area)
    return rocm.name(name, r.area)


def check_rows(
    rows_by_area: dict[str, list[Row]],
    rocm: Rocm,
    cuda: src.CudaNames,
    cuda_releases: list[Version],
) -> tuple[list[str], dict[tuple[str, int], dict]]:
    """(drift messages, {(area, row number): corrected version columns})."""
    drift: list[str] = []
    fixes: dict[tuple[str, int], dict] = {}
    for area, rows in sorted(rows_by_area.items()):
        by_name: dict[str, list[int]] = defaultdict(list)
        for i, r in enumerate(rows):
            by_name[r.cuda].append(i)
        for i, r in enumerate(rows):
            where = f"{area}.csv:{i + 2} {r.cuda}"
            fix: dict[str, str] = {}
            # -- HIP side -----------------------------------------------------------------------
            if r.hip and r.kind != "python_attr":
                ev = hip_evidence(rocm, r, r.hip)
                if not ev.any_present():
                    drift.append(f"{where}: {r.hip} is declared by no checked ROCm release")
                else:
                    later = [rows[j].since for j in by_name[r.cuda] if rows[j].since > r.since]
                    window_end = min(later) if later else None
                    since, removed = ev.since(), ev.removed()
                    # a cited source may name a release between two checked ones; a checked
                    # release inside the claimed range that lacks the name is drift
                    early = ev.absent_in(r.since, since) if r.since < since else []
                    if early:
                        drift.append(
                            f"{where}: hip_since {r.hip_since or '-'} but ROCm "
                            f"{vt(early[-1])} lacks {r.hip} (first checked release "
                            f"with it: {vt(since)})"
                        )
                        fix["hip_since"] = vt(since)
                    want_removed = (
                        removed
                        if removed is not None and (window_end is None or removed < window_end)
                        else None
                    )
                    last = max(v for v, s_ in ev.known if s_ == PRESENT)
                    ok = (
                        r.hip_removed == vt(want_removed)
                        if want_removed is None or not r.hip_removed
                        else last < r.removed <= want_removed
                    )
                    if not ok:
                        drift.append(
                            f"{where}: hip_removed {r.hip_removed or '-'} but the checked "
                            f"releases say {vt(want_removed) or '-'} for {r.hip}"
                        )
                        fix["hip_removed"] = vt(want_removed)
                    gaps = ev.absent_in(max(r.since, since), want_removed or window_end)
                    if gaps:
                        drift.append(
                            f"{where}: {r.hip} missing from ROCm "
                            f"{', '.join(map(vt, gaps))} inside its window"
                        )
                if r.roc:
                    rv = hip_evidence(rocm, r, r.roc)
                    hi = r.removed or min(
                        (rows[j].since for j in by_name[r.cuda] if rows[j].since > r.since),
                        default=None,
                    )
                    missing = [
                        vt(v)
                        for v, h in rocm.headers.items()
                        if v >= r.since[:2] and (hi is None or v < hi) and rv.seen.get(v) == ABSENT
                    ]
                    if missing:
                        drift.append(
                            f"{where}: roc name {r.roc} missing from ROCm {', '.join(missing)}"
                        )
            # -- CUDA side ----------------------------------------------------------------------
            drift += cuda_problems(where, r, cuda, cuda_releases, fix)
            if fix:
                fixes[(area, i)] = fix
    return drift, fixes


def cuda_problems(
    where: str, r: Row, cuda: src.CudaNames, releases: list[Version], fix: dict[str, str]
) -> list[str]:
    out = []
    if r.kind in ("header", "header_dir"):
        current = cuda.has_path(r.cuda)
        key = f"<{r.cuda}>"
    elif r.kind == "python_attr":
        return out
    else:
        key = r.cuda.split("::")[-1]
        current = key in cuda.names
    if r.status != "removed":
        if not current:
            old = cuda.older.get(key)
            extra = (
                f" (CUDA {', '.join(map(vt, sorted(old)))} declare it: status removed)"
                if old
                else ""
            )
            out.append(f"{where}: CUDA {vt(cuda.current)} does not declare {r.cuda}{extra}")
        return out
    if current and r.kind not in ("header", "header_dir"):
        out.append(f"{where}: status removed but CUDA {vt(cuda.current)} declares {r.cuda}")
        return out
    old = cuda.older.get(key)
    if old:
        last = max(old)
        after = [v for v in releases if v > last]
        want = vt(after[0]) if after else ""
        if r.cuda_removed != want:
            out.append(
                f"{where}: cuda_removed {r.cuda_removed or '-'} but CUDA "
                f"{', '.join(map(vt, sorted(old)))} declare it and {want} does not"
            )
            fix["cuda_removed"] = want
    elif r.cuda_removed:
        out.append(
            f"{where}: cuda_removed {r.cuda_removed} but no checked CUDA release declares "
            f"{r.cuda} (leave it empty and cite the source)"
        )
        fix["cuda_removed"] = ""
    return out


# -- roc* and MIOpen names: declared by their own library's headers --------------------------------
# the `roc` column of these tables names rocBLAS / rocSPARSE / rocSOLVER / rocRAND API; the `hip`
# column of dnn.csv names MIOpen (see scripts/roc_api.py)
ROC_COLUMNS = (
    ("blas", "roc"),
    ("sparse", "roc"),
    ("solver", "roc"),
    ("rand", "roc"),
    ("dnn", "hip"),
)
ROC_KINDS = frozenset({"function", "device_function", "type", "enum", "macro"})
ARITY_CHANGING = ("drop_arg0", "default_arg:", "drop_null_arg:")


def roc_library_problems(rows_by_area: dict[str, list[Row]], releases: list[Version]) -> list[str]:
    """roc* (and MIOpen) names their library's headers of a checked release inside the row's
    window do not declare, and functions whose parameter count differs from the CUDA one."""
    import roc_api

    out: list[str] = []
    cuda_arity = roc_api.read_cuda_arity() if roc_api.ARITY_FILE.is_file() else {}
    for area, column in ROC_COLUMNS:
        rows = rows_by_area.get(area, [])
        by_name: dict[str, list[Row]] = defaultdict(list)
        for r in rows:
            by_name[r.cuda].append(r)
        what = "MIOpen name" if area == "dnn" else "roc name"
        for i, r in enumerate(rows):
            name = getattr(r, column)
            if not name or r.kind not in ROC_KINDS:
                continue
            where = f"{area}.csv:{i + 2} {r.cuda}"
            hi = r.removed or min(
                (x.since for x in by_name[r.cuda] if x.since > r.since), default=None
            )
            for rel in releases:
                if rel < r.since[:2] or (hi is not None and rel >= hi):
                    continue
                lib = roc_api.library(area, vt(rel))
                if roc_api.roc_query(r.transform):  # the call becomes `(LWORK = 0, STATUS)`
                    if not (lib.has(name, "enum") and name.endswith("_success")):
                        out.append(f"{where}: {what} {name} is no success status of {area}")
                    continue
                if not lib.has(name, r.kind):
                    out.append(
                        f"{where}: {what} {name} not declared by the ROCm {vt(rel)} "
                        f"{'/'.join(roc_api.LIBRARIES[area][1])} headers"
                    )
                    continue
                drop = len(roc_api.roc_dropped(r.transform))
                counts = {c - drop for c in cuda_arity.get(r.cuda, ())}
                if (
                    r.kind in ("function", "device_function")
                    and counts
                    and name in lib.functions
                    and not r.transform.startswith(ARITY_CHANGING)
                    and not counts & lib.functions[name]
                ):
                    out.append(
                        f"{where}: {what} {name} takes {sorted(lib.functions[name])} "
                        f"parameters in ROCm {vt(rel)}, {r.cuda} {sorted(counts)}"
                    )
    return out


# -- proposals -----------------------------------------------------------------------------------
PREFIX_RULES = [
    (r"^cuda(?=[A-Z])", "hip"),
    (r"^CUDA_", "HIP_"),
    (r"^cudart", "hiprt"),
    (r"^cu(?=[A-Z])", "hip"),
    (r"^CU_", "HIP_"),
    (r"^cublas", "hipblas"),
    (r"^CUBLAS_", "HIPBLAS_"),
    (r"^cusparse", "hipsparse"),
    (r"^CUSPARSE_", "HIPSPARSE_"),
    (r"^curand", "hiprand"),
    (r"^CURAND_", "HIPRAND_"),
    (r"^cufft", "hipfft"),
    (r"^CUFFT_", "HIPFFT_"),
    (r"^cusolver", "hipsolver"),
    (r"^CUSOLVER_", "HIPSOLVER_"),
    (r"^nvrtc", "hiprtc"),
    (r"^NVRTC_", "HIPRTC_"),
]
API_NAME = re.compile(
    r"^(cuda[A-Z]|CUDA_|cu[A-Z]|CU_|cublas|CUBLAS_|cusparse|CUSPARSE_|curand|"
    r"CURAND_|cufft|CUFFT_|cusolver|CUSOLVER_|nvrtc|NVRTC_)\w+$"
)


def conventional(name: str) -> list[str]:
    out = []
    for pat, rep in PREFIX_RULES:
        if re.match(pat, name):
            out.append(re.sub(pat, rep, name, count=1))
    return out


def proposals(rows_by_area: dict[str, list[Row]], rocm: Rocm, cuda: src.CudaNames) -> list[str]:
    have = {r.cuda for rows in rows_by_area.values() for r in rows}
    names = {n for n in cuda.names | set(cuda.older) if API_NAME.match(n)} - have
    out = []
    for n in sorted(names):
        for cand in conventional(n):
            ev = rocm.name(cand)
            if ev.any_present():
                since = vt(ev.since())
                removed = vt(ev.removed())
                out.append(
                    f"{n},{cand}  (ROCm {since or 'all checked'}"
                    f"{' to before ' + removed if removed else ''}"
                    f"{'; CUDA ' + ' '.join(map(vt, sorted(cuda.older[n]))) if n in cuda.older else ''})"
                )
                break
    return out


# -- writing version columns ---------------------------------------------------------------------
def apply_fixes(folder: Path, rows_by_area: dict[str, list[Row]], fixes) -> int:
    changed = 0
    for area, rows in rows_by_area.items():
        mine = {i: f for (a, i), f in fixes.items() if a == area}
        if not mine:
            continue
        out = []
        for i, r in enumerate(rows):
            rec = {k: getattr(r, k) for k in COLUMNS}
            rec.update(mine.get(i, {}))
            out.append(rec)
        out.sort(key=lambda d: (d["cuda"], parse_version(d["hip_since"])))
        with open(folder / f"{area}.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(out)
        changed += len(mine)
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tables", type=Path, default=src.ROOT / "mappings")
    ap.add_argument(
        "--proposals",
        type=int,
        default=0,
        metavar="N",
        help="print up to N proposed additions (default: only their count)",
    )
    ap.add_argument(
        "--apply-versions",
        action="store_true",
        help="rewrite hip_since / hip_removed / cuda_removed where they drift",
    )
    ap.add_argument(
        "--refresh",
        action="store_true",
        help="download the pinned wheels (cache: --cache) and rebuild the API lists",
    )
    ap.add_argument("--cache", type=Path, default=Path("/tmp/porter-check-mappings"))
    ap.add_argument(
        "--max-drift", type=int, default=200, metavar="N", help="print at most N drift lines"
    )
    args = ap.parse_args(argv)

    try:
        lock = src.Lock.load()
    except (OSError, ValueError) as exc:
        print(f"check_mappings: cannot read {src.LOCK}: {exc}", file=sys.stderr)
        return 2
    drift: list[str] = []
    if args.refresh:
        try:
            rebuilt = src.rebuild_lists(lock, args.cache)
        except (OSError, ValueError) as exc:
            print(f"check_mappings: --refresh: {exc}", file=sys.stderr)
            return 2
        lock_text = src.LOCK.read_text(encoding="utf-8")
        for rel, text in rebuilt.items():
            path = src.ROOT / rel
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                digest = src.sha256_file(path)
                old = lock.lists.get(rel)
                lock_text = (
                    lock_text.replace(old, digest)
                    if old
                    else lock_text.rstrip("\n") + f'\n"{rel}" = "{digest}"\n'
                )
                print(
                    f"rebuilt {rel} (sha256 {digest}, recorded in scripts/inputs.lock): "
                    "review the diff"
                )
        src.LOCK.write_text(lock_text, encoding="utf-8")
        lock = src.Lock.load()
    drift += lock.list_problems()
    try:
        rocm = Rocm(lock)
        cuda = src.load_cuda(lock)
    except FileNotFoundError as exc:
        print(f"check_mappings: {exc}", file=sys.stderr)
        return 2
    rows_by_area = {f.stem: read_table(f) for f in sorted(args.tables.glob("*.csv"))}
    row_drift, fixes = check_rows(rows_by_area, rocm, cuda, lock.cuda_releases())
    drift += row_drift
    try:
        drift += roc_library_problems(rows_by_area, sorted(rocm.headers))
    except (FileNotFoundError, ValueError) as exc:
        print(f"check_mappings: roc libraries: {exc}", file=sys.stderr)
        return 2
    for note in rocm.notes:
        print(f"note: {note}")
    props = proposals(rows_by_area, rocm, cuda)
    print(
        f"checked {sum(map(len, rows_by_area.values()))} rows of {len(rows_by_area)} tables "
        f"against ROCm {', '.join(map(vt, rocm.releases))} and CUDA "
        f"{', '.join(map(vt, lock.cuda_releases()))}"
    )
    print(
        f"proposed additions: {len(props)} CUDA names without a row whose conventional HIP "
        "name a checked ROCm release declares" + (":" if args.proposals and props else "")
    )
    for p in props[: args.proposals]:
        print(f"  {p}")
    if args.apply_versions and fixes:
        n = apply_fixes(args.tables, rows_by_area, fixes)
        print(f"rewrote the version columns of {n} rows: review `git diff mappings/`")
    if drift:
        kinds = Counter(re.sub(r"^\S+ \S+: ", "", d).split(" ")[0] for d in drift)
        print(f"drift: {len(drift)} ({', '.join(f'{k} {v}' for k, v in kinds.most_common())})")
        for d in drift[: args.max_drift]:
            print(f"  {d}")
        return 1
    print("no drift")
    return 0


if __name__ == "__main__":
    sys.exit(main())
