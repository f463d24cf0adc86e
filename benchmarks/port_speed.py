#!/usr/bin/env python3
"""How fast is porter? Compared on the same input trees with

* hipify-perl 7.0.2 (``perl hipify-perl -quiet-warnings FILE -o=OUT``, one process per file,
  ``--jobs`` processes at a time), as unpacked by scripts/setup-rocm.sh; and "batched":
  ``-inplace`` over a copy of the tree with all files in ``--jobs`` processes, which shows its
  throughput without the ~0.3 s start-up it pays per process;
* PyTorch's hipify (``torch.utils.hipify.hipify_python.hipify``, one thread; ``pip install
  torch==2.13.0``), timed two ways in a fresh interpreter: around the call alone (the torch
  import excluded: the strict figure) and end to end (the whole process, as a user runs it);
* tree-sitter alone (tree_sitter + tree_sitter_cuda) parsing the same files, one thread: the floor
  for any tree-sitter based tool.

porter is timed as a user runs it: ``porter port SRC -o DST -j N`` in a child process, interpreter
start-up included.

Inputs: (a) the CUB, Thrust and libcu++ headers of /usr/local/cuda/include/cccl (every .h, .cuh,
.inl, .hpp file, copied into a temporary tree), (b) examples/cuda-project. Also measured: the wall
time of ``porter port one.cu`` for one small file, and porter's peak RSS on the CCCL tree and on
half of it (a streaming pipeline should not grow with the tree).

    python benchmarks/port_speed.py                 # medians of 3 runs, table on stdout
    python benchmarks/port_speed.py --runs 5 --json results.json
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CCCL, EXAMPLE, SOURCE_EXTS, hipify_perl, porter_cmd, run_timed, source_files  # noqa: E402

TORCH_SNIPPET = r"""
import json, sys, time
from torch.utils.hipify.hipify_python import hipify
src, dst, exts = sys.argv[1], sys.argv[2], tuple(sys.argv[3].split(","))
t = time.perf_counter()
hipify(project_directory=src, output_directory=dst, extensions=exts,
       header_extensions=exts, includes=["*"], show_detailed=False, show_progress=False,
       is_pytorch_extension=True)
print(json.dumps({"seconds": time.perf_counter() - t}))
"""


def copy_sources(src_root: Path, dst: Path, files: list[Path]) -> None:
    for f in files:
        out = dst / f.relative_to(src_root)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, out)


def make_inputs(work: Path, with_cccl: bool) -> dict[str, Path]:
    trees: dict[str, Path] = {}
    if with_cccl:
        files = [f for sub in ("cub", "thrust", "cuda") for f in source_files(CCCL / sub)]
        copy_sources(CCCL, work / "cccl", files)
        half = files[: len(files) // 2]
        copy_sources(CCCL, work / "cccl-half", half)
        trees["cccl"] = work / "cccl"
        trees["cccl-half"] = work / "cccl-half"
    shutil.copytree(EXAMPLE, work / "example")
    trees["example"] = work / "example"
    return trees


def fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    return path


# --- the tools -------------------------------------------------------------------------------

def time_porter(tree: Path, out: Path, jobs: int) -> tuple[float, int]:
    cmd = porter_cmd() + ["port", str(tree), "-o", str(fresh(out)), "--force", "-q", "-j", str(jobs)]
    r = run_timed(cmd)
    if r.returncode not in (0, 1):  # 1: findings, as documented
        raise RuntimeError(f"porter failed ({r.returncode}) on {tree}:\n{r.stderr}")
    return r.seconds, r.max_rss_kb


def time_hipify_perl(tool: Path, tree: Path, out: Path, jobs: int) -> float:
    files = source_files(tree)
    fresh(out)
    for f in files:
        (out / f.relative_to(tree)).parent.mkdir(parents=True, exist_ok=True)

    def one(f: Path) -> int:
        dst = out / f.relative_to(tree)
        return subprocess.run(["perl", str(tool), "-quiet-warnings", str(f), f"-o={dst}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        codes = list(pool.map(one, files))
    seconds = time.perf_counter() - start
    bad = sum(1 for c in codes if c != 0)
    if bad:
        print(f"  note: hipify-perl exited non-zero on {bad} of {len(files)} files in {tree.name}",
              file=sys.stderr)
    return seconds


def time_hipify_perl_batch(tool: Path, tree: Path, out: Path, jobs: int) -> float:
    """hipify-perl over many files per process (``-inplace`` on a copy of the tree), *jobs*
    processes: its throughput without the per-process start-up (~0.3 s of table set-up)."""
    files = source_files(tree)
    fresh(out)
    copy_sources(tree, out, files)
    targets = [str(out / f.relative_to(tree)) for f in files]
    chunks = [targets[i::jobs] for i in range(jobs)]

    def one(chunk: list[str]) -> int:
        return subprocess.run(["perl", str(tool), "-quiet-warnings", "-inplace", *chunk],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        codes = list(pool.map(one, [c for c in chunks if c]))
    seconds = time.perf_counter() - start
    if any(codes):
        print(f"  note: hipify-perl -inplace exited non-zero in {tree.name}", file=sys.stderr)
    return seconds


def time_torch(tree: Path, out: Path) -> tuple[float, float]:
    """(seconds around the hipify call, seconds of the whole process)."""
    exts = ",".join(sorted(SOURCE_EXTS))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", TORCH_SNIPPET, str(tree), str(fresh(out)), exts],
                          capture_output=True, text=True)
    whole = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"torch hipify failed on {tree}:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["seconds"], whole


def time_parse_only(tree: Path) -> float:
    import tree_sitter
    import tree_sitter_cuda

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
    files = source_files(tree)
    start = time.perf_counter()
    for f in files:
        parser.parse(f.read_bytes())
    return time.perf_counter() - start


def have_torch() -> bool:
    probe = "import torch.utils.hipify.hipify_python"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


# --- driver ----------------------------------------------------------------------------------

def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


def fmt_s(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f} s" if x < 10 else f"{x:.1f} s"


def fmt_r(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}x"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement; medians are reported")
    ap.add_argument("--jobs", type=int, default=1,
                    help="porter -j and hipify-perl processes at a time (default 1: per-core figures)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON ('-' for stdout)")
    ap.add_argument("--skip", action="append", default=[],
                    choices=("hipify-perl", "hipify-perl-per-file", "torch", "cccl"),
                    help="leave out a tool or input (hipify-perl-per-file: keep only the batched "
                         "hipify-perl run, which is ~40 times faster on the CCCL tree)")
    args = ap.parse_args(argv)
    runs = max(1, args.runs)
    # An installed wheel is byte-compiled by pip; a checkout under PYTHONDONTWRITEBYTECODE=1 would
    # otherwise recompile porter's sources in every timed start-up.
    subprocess.run([sys.executable, "-m", "compileall", "-q",
                    str(Path(__file__).resolve().parent.parent / "porter")],
                   check=False, stdout=subprocess.DEVNULL)

    hp = None if "hipify-perl" in args.skip else hipify_perl()
    torch_ok = "torch" not in args.skip and have_torch()
    with_cccl = "cccl" not in args.skip and CCCL.is_dir()
    if "hipify-perl" not in args.skip and hp is None:
        print("hipify-perl not found (run scripts/setup-rocm.sh); skipping it", file=sys.stderr)
    if "torch" not in args.skip and not torch_ok:
        print("torch not importable (pip install torch==2.13.0); skipping PyTorch's hipify", file=sys.stderr)

    results: dict = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform()},
        "runs": runs, "jobs": args.jobs, "porter": " ".join(porter_cmd()),
        "hipify_perl": str(hp) if hp else None, "inputs": {},
    }
    with tempfile.TemporaryDirectory(prefix="porter-bench-") as tmp:
        work = Path(tmp)
        trees = make_inputs(work / "in", with_cccl)
        for name, tree in trees.items():
            if name == "cccl-half":
                continue
            files = source_files(tree)
            size = sum(f.stat().st_size for f in files)
            print(f"{name}: {len(files)} files, {size / 1e6:.2f} MB", file=sys.stderr)
            rec: dict = {"files": len(files), "bytes": size}
            t_porter, rss = [], []
            t_hp, t_hpb, t_torch, t_torch_e2e, t_parse = [], [], [], [], []
            for i in range(runs):
                s, m = time_porter(tree, work / "out-porter", args.jobs)
                t_porter.append(s)
                rss.append(m)
                if hp and "hipify-perl-per-file" not in args.skip:
                    t_hp.append(time_hipify_perl(hp, tree, work / "out-hipify-perl", args.jobs))
                if hp:
                    t_hpb.append(time_hipify_perl_batch(hp, tree, work / "out-hipify-perl-b", args.jobs))
                if torch_ok:
                    call, whole = time_torch(tree, work / "out-torch")
                    t_torch.append(call)
                    t_torch_e2e.append(whole)
                t_parse.append(time_parse_only(tree))
                print(f"  run {i + 1}/{runs}: porter {t_porter[-1]:.2f} s"
                      + (f", hipify-perl {t_hp[-1]:.2f} s" if t_hp else "")
                      + (f", hipify-perl batched {t_hpb[-1]:.2f} s" if t_hpb else "")
                      + (f", torch {t_torch[-1]:.2f} s" if t_torch else "")
                      + f", parse-only {t_parse[-1]:.2f} s", file=sys.stderr)
            rec["seconds"] = {
                "porter": median(t_porter),
                "hipify_perl": median(t_hp) if t_hp else None,
                "hipify_perl_batched": median(t_hpb) if t_hpb else None,
                "torch_hipify": median(t_torch) if t_torch else None,
                "torch_hipify_end_to_end": median(t_torch_e2e) if t_torch_e2e else None,
                "parse_only": median(t_parse),
            }
            rec["all_seconds"] = {"porter": t_porter, "hipify_perl": t_hp, "hipify_perl_batched": t_hpb,
                                  "torch_hipify": t_torch, "torch_hipify_end_to_end": t_torch_e2e,
                                  "parse_only": t_parse}
            sec = rec["seconds"]
            rec["ratios"] = {
                "hipify_perl_over_porter": ratio(sec["hipify_perl"], sec["porter"]),
                "hipify_perl_batched_over_porter": ratio(sec["hipify_perl_batched"], sec["porter"]),
                "torch_over_porter": ratio(sec["torch_hipify"], sec["porter"]),
                "torch_end_to_end_over_porter": ratio(sec["torch_hipify_end_to_end"], sec["porter"]),
                "porter_over_parse_only": ratio(sec["porter"], sec["parse_only"]),
            }
            rec["porter_peak_rss_mb"] = max(rss) / 1024
            if args.jobs == 1 and (os.cpu_count() or 1) > 1:
                par = [time_porter(tree, work / "out-porter", os.cpu_count() or 1)[0] for _ in range(runs)]
                rec["seconds"][f"porter_j{os.cpu_count()}"] = median(par)
            results["inputs"][name] = rec

        if "cccl-half" in trees:
            half = [time_porter(trees["cccl-half"], work / "out-porter", args.jobs)[1] for _ in range(runs)]
            results["inputs"]["cccl"]["porter_peak_rss_mb_half_tree"] = max(half) / 1024
            results["inputs"]["cccl"]["half_tree_files"] = len(source_files(trees["cccl-half"]))

        one = EXAMPLE / "src" / "saxpy.cu"
        walls = [run_timed(porter_cmd() + ["port", str(one)]).seconds for _ in range(max(runs, 5))]
        results["one_file"] = {"file": str(one.relative_to(EXAMPLE.parent.parent)),
                               "seconds": median(walls), "all_seconds": walls}

    print_table(results)
    if args.json:
        text = json.dumps(results, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return 0


def print_table(res: dict) -> None:
    jobs = res["jobs"]
    print(f"\nmedians of {res['runs']} runs; porter -j {jobs}, hipify-perl {jobs} process(es) at a "
          f"time, torch hipify and parse-only one thread; {res['machine']['cpus']} CPUs\n")
    head = ["input", "files", "MB", "porter", "hipify-perl", "hipify-perl batched", "torch",
            "torch e2e", "parse-only", "hipify-perl/porter", "batched/porter", "torch/porter",
            "torch e2e/porter", "porter/parse"]
    rows = []
    for name, rec in res["inputs"].items():
        s, r = rec["seconds"], rec["ratios"]
        rows.append([name, str(rec["files"]), f"{rec['bytes'] / 1e6:.2f}", fmt_s(s["porter"]),
                     fmt_s(s["hipify_perl"]), fmt_s(s["hipify_perl_batched"]), fmt_s(s["torch_hipify"]),
                     fmt_s(s["torch_hipify_end_to_end"]),
                     fmt_s(s["parse_only"]), fmt_r(r["hipify_perl_over_porter"]),
                     fmt_r(r["hipify_perl_batched_over_porter"]), fmt_r(r["torch_over_porter"]),
                     fmt_r(r["torch_end_to_end_over_porter"]),
                     fmt_r(r["porter_over_parse_only"])])
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    print()
    for name, rec in res["inputs"].items():
        extra = {k: v for k, v in rec["seconds"].items() if k.startswith("porter_j")}
        for k, v in extra.items():
            print(f"{name}: porter -j {k[len('porter_j'):]}: {fmt_s(v)}")
    cccl = res["inputs"].get("cccl")
    if cccl and "porter_peak_rss_mb_half_tree" in cccl:
        print(f"porter peak RSS: {cccl['porter_peak_rss_mb']:.0f} MB on the CCCL tree "
              f"({cccl['files']} files), {cccl['porter_peak_rss_mb_half_tree']:.0f} MB on half of it "
              f"({cccl['half_tree_files']} files)")
    print(f"porter port {res['one_file']['file']} (one file, interpreter start-up included): "
          f"{fmt_s(res['one_file']['seconds'])}")


if __name__ == "__main__":
    sys.exit(main())
