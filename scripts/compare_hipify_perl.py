#!/usr/bin/env python3
"""Compare porter's core mapping tables with hipify-perl's CUDA -> HIP name pairs.

hipify-perl (a peer tool, shipped with ROCm) is a Perl script whose renames are calls
``subst("cudaX", "hipX", "group")``, plus lists of device functions it knows to be supported or
unsupported. This script reads those calls as data (nothing of it is copied into our tables) and
prints where porter's runtime/driver/device/lowp/headers tables disagree with it:

* ``hipify-maps/we-unsupported``  hipify renames the name, our row says unsupported
* ``hipify-maps/we-differ``       both rename it, to different HIP names
* ``we-map/hipify-unknown``       we rename it, hipify has no rename for it
* ``we-map/hipify-unsupported``   we rename it, hipify lists it as unsupported
* ``hipify-maps/we-absent``       hipify renames a core-looking name we have no row for

Each difference has to be checked against the ROCm and CUDA headers before a row changes: the
peer is neither always right nor always current.

    python3 scripts/compare_hipify_perl.py                 # summary + every difference
    python3 scripts/compare_hipify_perl.py --summary       # counts only
    python3 scripts/compare_hipify_perl.py --hipify PATH   # another hipify-perl
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ("runtime", "driver", "device", "lowp", "headers")
DEFAULT_HIPIFY = (
    Path(os.environ.get("PORTER_ROCM_PREFIX", "/opt/porter-rocm/7.2")) / "usr/bin/hipify-perl"
)

_SUBST = re.compile(r'^\s*subst\("([^"]+)",\s*"([^"]*)",\s*"([^"]+)"\);', re.M)
_SUB = re.compile(r"^sub (\w+) \{(.*?)^\}", re.M | re.S)
_LIST = re.compile(r"^@(\w+) = \((.*?)^\);", re.M | re.S)
_QUOTED = re.compile(r'"([^"]+)"')

# hipify groups that belong to other porter tables (libraries) and are left out of the comparison
LIBRARY_PREFIX = re.compile(
    r"^(cublas|CUBLAS|cudnn|CUDNN|cufft|CUFFT|curand|CURAND|cusparse|CUSPARSE|cusolver|CUSOLVER|"
    r"nccl|NCCL|nvrtc|NVRTC|cutensor|CUTENSOR|nvtx|NVTX|cub::|thrust|cuda::|csr|bsr|gesvdj|syevj|"
    r"cudaLibMg|CUDALIBMG|cuComplex|cuDouble|cuFloat|cuCabs|cuCadd|cuCsub|cuCmul|cuCdiv|cuCreal|"
    r"cuCimag|cuConj|cuCfma|cuCmplx|cuComplexDouble|cuComplexFloat|cuGet|cuDevice.*Pci|CUpti|cupti|"
    r"nvjpeg|NVJPEG|cudaProfiler|cuProfiler)"
)


def hipify_tables(path: Path) -> dict[str, dict]:
    """{'map': {cuda: (hip, group)}, 'supported_device': set, 'unsupported': set}."""
    text = path.read_text(encoding="utf-8", errors="replace")
    subs = {m.group(1): m.group(2) for m in _SUB.finditer(text)}
    renames: dict[str, tuple[str, str]] = {}
    for fn in ("simpleSubstitutions", "experimentalSubstitutions"):
        for m in _SUBST.finditer(subs.get(fn, "")):
            cuda, hip, group = (
                m.group(1).replace("\\", ""),
                m.group(2).replace("\\", ""),
                m.group(3),
            )
            renames.setdefault(cuda, (hip, group))
    lists = {m.group(1): set(_QUOTED.findall(m.group(2))) for m in _LIST.finditer(text)}
    return {
        "map": renames,
        "supported_device": lists.get("SupportedDeviceFunctions", set())
        | lists.get("SupportedDeviceDataTypes", set()),
        "unsupported": lists.get("UnsupportedDeviceFunctions", set())
        | lists.get("UnsupportedDeviceDataTypes", set())
        | lists.get("HipOnlyUnsupportedFunctions", set()),
    }


def version_key(v: str) -> tuple:
    return tuple(int(x) for x in v.split(".")) if v else (0,)


def our_rows(tables: Path) -> dict[str, dict]:
    """cuda name -> the newest row (greatest hip_since) across the core tables, with its area."""
    out: dict[str, dict] = {}
    for area in CORE:
        with open(tables / f"{area}.csv", newline="", encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                r["area"] = area
                old = out.get(r["cuda"])
                if old is None or version_key(r["hip_since"]) >= version_key(old["hip_since"]):
                    out[r["cuda"]] = r
    return out


def core_looking(name: str) -> bool:
    if LIBRARY_PREFIX.match(name):
        return False
    return bool(re.match(r"^(cuda|CUDA|cu[A-Z]|CU|__nv_|__NV_|nv_)", name)) or name.endswith(".h")


def compare(hip: dict, ours: dict[str, dict]) -> dict[str, list[str]]:
    diffs: dict[str, list[str]] = {
        k: []
        for k in (
            "hipify-maps/we-unsupported",
            "hipify-maps/we-differ",
            "we-map/hipify-unknown",
            "we-map/hipify-unsupported",
            "hipify-maps/we-absent",
        )
    }
    renames = dict(hip["map"])
    for n in hip["supported_device"]:
        renames.setdefault(n, (n, "device_function"))
    for cuda, (target, group) in sorted(renames.items()):
        r = ours.get(cuda)
        if r is None:
            if core_looking(cuda) or group in ("device_function", "device_type"):
                diffs["hipify-maps/we-absent"].append(f"{cuda} -> {target} [{group}]")
            continue
        if not r["hip"]:
            diffs["hipify-maps/we-unsupported"].append(
                f"{r['area']}: {cuda} -> {target} [{group}]; ours: {r['status']} ({r['notes'][:90]})"
            )
        elif r["hip"] != target:
            diffs["hipify-maps/we-differ"].append(
                f"{r['area']}: {cuda}: hipify {target} [{group}], ours {r['hip']} ({r['status']})"
            )
    for cuda, r in sorted(ours.items()):
        if not r["hip"] or cuda in renames:
            continue
        if cuda in hip["unsupported"]:
            diffs["we-map/hipify-unsupported"].append(f"{r['area']}: {cuda} -> {r['hip']}")
        else:
            diffs["we-map/hipify-unknown"].append(
                f"{r['area']}: {cuda} -> {r['hip']} ({r['status']})"
            )
    return diffs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hipify", type=Path, default=DEFAULT_HIPIFY)
    ap.add_argument("--tables", type=Path, default=ROOT / "mappings")
    ap.add_argument("--summary", action="store_true", help="print the counts only")
    ap.add_argument("--only", help="print only this category")
    args = ap.parse_args(argv)
    if not args.hipify.is_file():
        print(f"hipify-perl not found: {args.hipify}", file=sys.stderr)
        return 2
    hip = hipify_tables(args.hipify)
    ours = our_rows(args.tables)
    diffs = compare(hip, ours)
    print(
        f"hipify-perl: {len(hip['map'])} renames, {len(hip['supported_device'])} supported device names, "
        f"{len(hip['unsupported'])} unsupported names; ours (core tables): {len(ours)} names"
    )
    for cat, items in diffs.items():
        print(f"{cat}: {len(items)}")
    if not args.summary:
        for cat, items in diffs.items():
            if args.only and cat != args.only:
                continue
            print(f"\n== {cat} ({len(items)})")
            for line in items:
                print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
