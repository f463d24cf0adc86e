"""porter on Triton code nobody here wrote: counts of findings per rule code.

Sources, by pinned version (fetched with `pip download --no-deps`, never committed):
  torchao 0.13.0, liger-kernel 0.6.2 and fla-core 0.6.0 (flash-linear-attention's kernels,
  written for NVIDIA and AMD) wheels, plus the Triton files of the installed torch
  (torch/_inductor/kernel, torch/_inductor/runtime, torch/sparse, torch/_higher_order_ops).

    python benchmarks/triton_real_code.py [--cache DIR] [--arch gfx942,gfx950]

Prints, per source, the files checked and the findings per code; `--list` prints every
finding (to read them and count true and false positives by hand).
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PINNED = ("torchao==0.13.0", "liger-kernel==0.6.2", "fla-core==0.6.0")


def fetch(cache: Path) -> list[Path]:
    cache.mkdir(parents=True, exist_ok=True)
    trees = []
    for pin in PINNED:
        name = pin.split("==")[0].replace("-", "_")
        dest = cache / pin.replace("==", "-")
        if not dest.is_dir():
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "-q",
                    "--only-binary",
                    ":all:",
                    pin,
                    "-d",
                    str(cache),
                ],
                check=True,
            )
            wheel = next(cache.glob(f"{name}-{pin.split('==')[1]}*.whl"))
            with zipfile.ZipFile(wheel) as z:
                for info in z.infolist():
                    if info.filename.endswith(".py"):
                        z.extract(info, dest)
        trees.append(dest)
    return trees


def torch_tree(cache: Path) -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0])
    dest = cache / "torch-installed"
    dest.mkdir(parents=True, exist_ok=True)
    for sub in ("_inductor/kernel", "_inductor/runtime", "sparse", "_higher_order_ops"):
        for f in (root / sub).rglob("*.py"):
            rel = f.relative_to(root)
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(f.read_bytes())
    return dest


def check(tree: Path, arch: str) -> dict:
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "porter.cli",
            "check",
            str(tree),
            "--format",
            "json",
            "--offload-arch",
            arch,
            "--exit-zero",
        ],
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        raise SystemExit(f"porter failed on {tree}: {p.stderr[-2000:]}")
    return json.loads(p.stdout)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "porter-triton-real"))
    ap.add_argument("--arch", default="gfx942,gfx950")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    cache = Path(a.cache)
    trees = fetch(cache)
    t = torch_tree(cache)
    if t is not None:
        trees.append(t)
    for tree in trees:
        rep = check(tree, a.arch)
        findings = rep.get("findings", [])
        files = rep.get("summary", {}).get("files", {})
        codes = collections.Counter(f["code"] for f in findings)
        print(
            f"{tree.name}: {files.get('files', '?')} files checked; "
            + ", ".join(f"{c} {n}" for c, n in sorted(codes.items()))
        )
        if a.list:
            for f in findings:
                print(f"  {f['path']}:{f['line']}:{f.get('col', 0)}: {f['code']} {f['message']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
