#!/usr/bin/env python3
"""Does the ported code compile? porter against hipify-perl 7.0.2, file by file.

Every porting fixture (fixtures/port/<case>/input, ported with the options in that case's
``args`` file) and examples/cuda-project are ported twice: with ``porter port`` and with
hipify-perl (``-quiet-warnings``, one file at a time; other files copied). Each translation unit
of both outputs is then compiled for gfx942 (``--arch``) with porter.verify (clang-22 and the ROCm
prefix of scripts/setup-rocm.sh: 7.2, or 6.4 for a case ported with ``--rocm-version 6.4``).

A compile is only part of the story: code that compiles can still be wrong on a 64-wide
wavefront, which is what porter's findings are for. This benchmark measures the part a compiler
can judge.

    python benchmarks/accuracy.py                 # side-by-side table and totals
    python benchmarks/accuracy.py --json acc.json --arch gfx942,gfx90a
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import EXAMPLE, FIXTURES, SOURCE_EXTS, hipify_perl, porter_cmd, rocm_prefix  # noqa: E402

from porter import verify  # noqa: E402


def cases() -> list[tuple[str, Path, list[str]]]:
    out = []
    for case in sorted((FIXTURES / "port").glob("*/input")):
        args_file = case.parent / "args"
        args = shlex.split(args_file.read_text()) if args_file.is_file() else []
        out.append((f"fixtures/{case.parent.name}", case, args))
    out.append(("examples/cuda-project", EXAMPLE, []))
    return out


def rocm_for(args: list[str]) -> str:
    if "--rocm-version" in args:
        v = args[args.index("--rocm-version") + 1]
        if v.startswith("6."):
            return "6.4"
    return "7.2"


def port_porter(src: Path, dst: Path, args: list[str]) -> str:
    proc = subprocess.run(porter_cmd() + ["port", str(src), "-o", str(dst), "--force", "-q", *args],
                          capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        return proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
    return ""


def port_hipify_perl(tool: Path, src: Path, dst: Path) -> str:
    problems = []
    for f in sorted(p for p in src.rglob("*") if p.is_file()):
        out = dst / f.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        if f.suffix.lower() in SOURCE_EXTS:
            rc = subprocess.run(["perl", str(tool), "-quiet-warnings", str(f), f"-o={out}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            if rc != 0 or not out.exists():
                problems.append(f.name)
                shutil.copyfile(f, out)
        else:
            shutil.copyfile(f, out)
    return f"hipify-perl failed on {', '.join(problems)}" if problems else ""


def key(rel: Path) -> str:
    """Match the two outputs file by file even if one tool renames .cu to .hip."""
    return rel.with_suffix("").as_posix()


def summary(r: verify.CompileResult | None) -> str:
    if r is None:
        return "missing"
    if r.ok:
        return "ok"
    msg = r.first_error
    if "error:" in msg:
        msg = msg.split("error:", 1)[1].strip()
    where = Path(r.location.rsplit(":", 2)[0]).name + ":" + r.location.rsplit(":", 2)[1] if r.location else ""
    msg = msg.replace("static assertion failed due to requirement", "static_assert:")
    return f"FAIL {where} {msg}".replace("  ", " ")[:80]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default="gfx942", help="offload targets, comma-separated (default gfx942)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", metavar="FILE", help="also write the per-file results as JSON")
    args = ap.parse_args(argv)
    archs = verify.parse_archs(args.arch)

    tool = hipify_perl()
    if tool is None:
        print("hipify-perl not found: run scripts/setup-rocm.sh", file=sys.stderr)
        return 2
    toolchains: dict[str, verify.Toolchain] = {}
    try:
        for v in ("7.2", "6.4"):
            toolchains[v] = verify.discover(rocm_prefix(v))
    except verify.ToolchainNotFound as exc:
        if "7.2" not in toolchains:
            print(f"accuracy: {exc}", file=sys.stderr)
            return 2

    rows: list[dict] = []
    totals = {"porter": [0, 0], "hipify_perl": [0, 0]}  # [compiled, units]
    with tempfile.TemporaryDirectory(prefix="porter-accuracy-") as tmp:
        for name, src, pargs in cases():
            rv = rocm_for(pargs)
            if rv not in toolchains:
                print(f"{name}: skipped (no ROCm {rv} prefix)", file=sys.stderr)
                continue
            tc = toolchains[rv]
            out_p = Path(tmp) / name / "porter"
            out_h = Path(tmp) / name / "hipify-perl"
            note_p = port_porter(src, out_p, pargs)
            note_h = port_hipify_perl(tool, src, out_h)
            results = {}
            with ThreadPoolExecutor(max_workers=2) as pool:
                fp = pool.submit(verify.verify_tree, out_p, archs, max(1, args.jobs // 2), tc) \
                    if out_p.is_dir() else None
                fh = pool.submit(verify.verify_tree, out_h, archs, max(1, args.jobs // 2), tc)
                results["porter"] = {key(r.path.relative_to(out_p)): r for r in (fp.result() if fp else [])}
                results["hipify_perl"] = {key(r.path.relative_to(out_h)): r for r in fh.result()}
            for note, tool_name in ((note_p, "porter"), (note_h, "hipify-perl")):
                if note:
                    print(f"{name}: {tool_name}: {note}", file=sys.stderr)
            for k in sorted(set(results["porter"]) | set(results["hipify_perl"])):
                rp, rh = results["porter"].get(k), results["hipify_perl"].get(k)
                for tname, r in (("porter", rp), ("hipify_perl", rh)):
                    totals[tname][1] += 1
                    totals[tname][0] += bool(r and r.ok)
                shown = (rp or rh).path.relative_to(out_p if rp else out_h).as_posix()
                rows.append({"case": name, "file": shown, "rocm": tc.version_str,
                             "porter": summary(rp), "hipify_perl": summary(rh),
                             "porter_ok": bool(rp and rp.ok), "hipify_perl_ok": bool(rh and rh.ok)})

    width_f = max([len(f"{r['case']}/{r['file']}") for r in rows] + [4])
    width_p = max([len(r["porter"]) for r in rows] + [6])
    print(f"compiled for {', '.join(archs)} with {toolchains['7.2'].compiler}\n")
    print(f"{'file'.ljust(width_f)}  {'porter'.ljust(width_p)}  hipify-perl")
    print(f"{'-' * width_f}  {'-' * width_p}  {'-' * 11}")
    for r in rows:
        print(f"{(r['case'] + '/' + r['file']).ljust(width_f)}  {r['porter'].ljust(width_p)}  {r['hipify_perl']}")
    print()
    for tname, label in (("porter", "porter"), ("hipify_perl", "hipify-perl")):
        ok, n = totals[tname]
        print(f"{label}: {ok} of {n} translation units compile")
    if args.json:
        Path(args.json).write_text(json.dumps({"archs": archs, "rows": rows, "totals": totals}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
