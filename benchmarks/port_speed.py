#!/usr/bin/env python3
"""How fast is porter? Every tool on the same files, per core and at equal parallelism.

Tools (rows of the table):

* porter: ``porter port SRC -o DST -q -j 1`` (per core) and ``-j N`` (equal parallelism), in a
  child process as a user runs it, interpreter start-up included; and per core, timed as the
  torch call is, around ``porter.cli.main`` in a fresh interpreter (its start-up and the import
  of ``porter.cli`` excluded; porter's own lazy imports and the tables' load included): the
  like-for-like figure against torch's call;
* hipify-perl 7.0.2 as unpacked by scripts/setup-rocm.sh: ``perl hipify-perl -quiet-warnings
  -inplace F1 F2 ...`` on a fresh copy of the tree, all files in one process (per core), or the
  files split over N processes run at once (equal parallelism);
* PyTorch's hipify (``torch.utils.hipify.hipify_python.hipify``, ``pip install torch==2.13.0``),
  timed in a fresh interpreter two ways: around the call alone (the ``import torch`` excluded:
  the strict figure) and the whole process (as a user runs it). It has no parallel mode: at
  equal parallelism the tree is split into N shard trees, hipified by N processes at once;
* tree-sitter alone (tree_sitter + tree_sitter_cuda) reading and parsing every file, one thread
  (per core), or N processes over N shards (equal parallelism; interpreter start-up excluded):
  the floor for any tree-sitter based tool.

Files are split over N workers by size (largest first, each to the least loaded worker), the
same split for every tool. Each figure is the median of ``--runs`` runs; the tools take turns
within a run, so that a change in the machine's load touches them all alike. Before the first
run the trees' copies are written out (sync) and porter ports each tree once, untimed.

Every figure has a wall time and a CPU time (user + system of the process and its children, from
``wait4``; for the porter and torch calls and parse-only, ``time.process_time`` around the
work). On a shared
machine the CPU time is the steadier measure of cost per core; wall time is what a user waits.

Inputs: (a) the CUB, Thrust and libcu++ headers of /usr/local/cuda/include/cccl (every .h, .cuh,
.inl, .hpp file, copied into a temporary tree), (b) examples/cuda-project. Also measured: the wall
time of ``porter port one.cu`` for one small file, and porter's peak RSS on the CCCL tree and on
half of it (a streaming pipeline should not grow with the tree).

    python benchmarks/port_speed.py                  # medians of 3 runs, one table on stdout
    python benchmarks/port_speed.py --runs 5 --json speed.json
    python benchmarks/port_speed.py --skip cccl --runs 1        # the small example only
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
from common import CCCL, EXAMPLE, SOURCE_EXTS, Run, hipify_perl, porter_cmd, run_timed, source_files  # noqa: E402

#: porter exits 1 when it reports findings (documented); anything else is a failure here.
PORTER_OK = (0, 1)
#: issue 7 section 5: porter within this factor of the parse, and this many times faster than torch
TARGET_RATIO = 2.0
#: porter's exit code when a file hit an internal error (that file is copied unchanged).
PORTER_INTERNAL_ERROR = 2

TORCH_SNIPPET = r"""
import json, sys, time
from torch.utils.hipify.hipify_python import hipify
src, dst, exts = sys.argv[1], sys.argv[2], tuple(sys.argv[3].split(","))
w, c = time.perf_counter(), time.process_time()
hipify(project_directory=src, output_directory=dst, extensions=exts,
       header_extensions=exts, includes=["*"], show_detailed=False, show_progress=False,
       is_pytorch_extension=True)
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c}))
"""

PARSE_SNIPPET = r"""
import json, sys, time
import tree_sitter, tree_sitter_cuda
parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
files = open(sys.argv[1], encoding="utf-8").read().splitlines()
w, c = time.perf_counter(), time.process_time()
for f in files:
    with open(f, "rb") as fh:
        parser.parse(fh.read())
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c}))
"""

# porter's own call, timed as the torch call is: the interpreter's start-up and the import of
# porter.cli are left out, everything main() does (its own lazy imports, the tables' load, the
# pre-pass, the port, the writes, the summary) is in
PORTER_CALL_SNIPPET = r"""
import json, sys, time
from porter import cli
w, c = time.perf_counter(), time.process_time()
code = cli.main(sys.argv[1:])
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c, "code": code}))
"""

#: (key, label) of the table's rows, in order.
TOOLS = (
    ("porter", "porter port"),
    ("porter_call", "porter port (call)"),
    ("hipify_perl", "hipify-perl -inplace"),
    ("torch", "torch hipify (call)"),
    ("torch_process", "torch hipify (process)"),
    ("parse_only", "tree-sitter parse only"),
)


# --- inputs ----------------------------------------------------------------------------------


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
        copy_sources(CCCL, work / "cccl-half", files[: len(files) // 2])
        trees["cccl"] = work / "cccl"
        trees["cccl-half"] = work / "cccl-half"
    shutil.copytree(EXAMPLE, work / "example")
    trees["example"] = work / "example"
    return trees


def split(files: list[Path], n: int) -> list[list[Path]]:
    """n groups of about equal bytes: largest file first, each to the least loaded group."""
    groups: list[list[Path]] = [[] for _ in range(n)]
    load = [0] * n
    for f in sorted(files, key=lambda p: (-p.stat().st_size, p)):
        i = load.index(min(load))
        groups[i].append(f)
        load[i] += f.stat().st_size
    return [sorted(g) for g in groups if g]


def fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    return path


# --- the tools: each returns (wall seconds, CPU seconds) -------------------------------------


def cpu_of(r: Run) -> float:
    return r.user + r.system


def time_porter(tree: Path, out: Path, jobs: int) -> tuple[float, float, int]:
    """(wall, CPU, peak RSS in kB) of one ``porter port`` run."""
    cmd = porter_cmd() + [
        "port",
        str(tree),
        "-o",
        str(fresh(out)),
        "--force",
        "-q",
        "-j",
        str(jobs),
    ]
    r = run_timed(cmd)
    if r.returncode == PORTER_INTERNAL_ERROR:
        # one file hit a porter bug (reported, copied unchanged): the run still timed the rest
        print(
            f"  note: porter reported an internal error on {tree.name}: "
            f"{r.stderr.strip().splitlines()[-1:]}",
            file=sys.stderr,
        )
    elif r.returncode not in PORTER_OK:
        raise RuntimeError(f"porter failed ({r.returncode}) on {tree}:\n{r.stderr}")
    return r.seconds, cpu_of(r), r.max_rss_kb


def time_porter_call(tree: Path, out: Path) -> tuple[float, float]:
    """(wall, CPU) of porter's main() on one core, in the process (see PORTER_CALL_SNIPPET)."""
    argv = ["port", str(tree), "-o", str(fresh(out)), "--force", "-q", "-j", "1"]
    r = run_timed([sys.executable, "-c", PORTER_CALL_SNIPPET, *argv], stdout=subprocess.PIPE)
    if r.returncode not in PORTER_OK + (PORTER_INTERNAL_ERROR,):
        raise RuntimeError(f"porter failed ({r.returncode}) on {tree}:\n{r.stderr}")
    found = json.loads(r.stdout.strip().splitlines()[-1])
    return found["wall"], found["cpu"]


def time_hipify_perl(
    tool: Path, tree: Path, out: Path, groups: list[list[Path]]
) -> tuple[float, float]:
    """hipify-perl ``-inplace`` over a fresh copy of the tree, one process per group, all at
    once. Wall time of the whole, CPU of every process."""
    fresh(out)
    copy_sources(tree, out, [f for g in groups for f in g])
    chunks = [[str(out / f.relative_to(tree)) for f in g] for g in groups]

    def one(chunk: list[str]) -> Run:
        return run_timed(["perl", str(tool), "-quiet-warnings", "-inplace", *chunk])

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        runs = list(pool.map(one, chunks))
    wall = time.perf_counter() - start
    if any(r.returncode for r in runs):
        print(f"  note: hipify-perl exited non-zero in {tree.name}", file=sys.stderr)
    return wall, sum(cpu_of(r) for r in runs)


def time_torch(trees: list[Path], out: Path) -> tuple[tuple[float, float], tuple[float, float]]:
    """PyTorch's hipify, one process per tree, all at once: ((call wall, call CPU), (process
    wall, process CPU)). The call figures are the slowest call and the sum of the calls' CPU."""
    exts = ",".join(sorted(SOURCE_EXTS))
    fresh(out)

    def one(i_tree: tuple[int, Path]) -> tuple[Run, dict]:
        i, tree = i_tree
        r = run_timed(
            [sys.executable, "-c", TORCH_SNIPPET, str(tree), str(out / str(i)), exts],
            stdout=subprocess.PIPE,
        )
        if r.returncode != 0:
            raise RuntimeError(f"torch hipify failed on {tree}:\n{r.stderr[-2000:]}")
        return r, json.loads(r.stdout.strip().splitlines()[-1])

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(trees)) as pool:
        done = list(pool.map(one, enumerate(trees)))
    wall = time.perf_counter() - start
    call = (max(d["wall"] for _, d in done), sum(d["cpu"] for _, d in done))
    return call, (wall, sum(cpu_of(r) for r, _ in done))


def time_parse_only(files: list[Path]) -> tuple[float, float]:
    """Read and parse every file in this process, one thread."""
    import tree_sitter
    import tree_sitter_cuda

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
    w, c = time.perf_counter(), time.process_time()
    for f in files:
        parser.parse(f.read_bytes())
    return time.perf_counter() - w, time.process_time() - c


def time_parse_parallel(groups: list[list[Path]], work: Path) -> tuple[float, float]:
    """One child process per group, all at once; the slowest child's parse time (start-up and
    import excluded) and the sum of their CPU."""
    lists = []
    for i, g in enumerate(groups):
        p = work / f"parse-list-{i}.txt"
        p.write_text("\n".join(str(f) for f in g) + "\n", encoding="utf-8")
        lists.append(p)

    def one(lst: Path) -> dict:
        r = run_timed([sys.executable, "-c", PARSE_SNIPPET, str(lst)], stdout=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError(f"parse-only child failed:\n{r.stderr[-2000:]}")
        return json.loads(r.stdout.strip().splitlines()[-1])

    with ThreadPoolExecutor(max_workers=len(lists)) as pool:
        done = list(pool.map(one, lists))
    return max(d["wall"] for d in done), sum(d["cpu"] for d in done)


def have_torch() -> bool:
    probe = "import torch.utils.hipify.hipify_python"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


def have_tree_sitter() -> bool:
    try:
        import tree_sitter  # noqa: F401
        import tree_sitter_cuda  # noqa: F401
    except ImportError:
        return False
    return True


# --- driver ----------------------------------------------------------------------------------


def median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


def fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.2f} s" if x < 10 else f"{x:.1f} s"


def fmt_r(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def measure_input(
    name: str, tree: Path, work: Path, args: argparse.Namespace, tools: dict, jobs: int
) -> dict:
    files = source_files(tree)
    size = sum(f.stat().st_size for f in files)
    print(f"{name}: {len(files)} files, {size / 1e6:.2f} MB", file=sys.stderr)
    groups = split(files, jobs)
    shards: list[Path] = []
    if tools["torch"] and jobs > 1:
        for i, g in enumerate(groups):
            shard = work / "shards" / name / str(i)
            copy_sources(tree, fresh(shard), g)
            shards.append(shard)
    # samples[mode][tool] -> list of (wall, cpu)
    samples: dict[str, dict[str, list[tuple[float, float]]]] = {"core": {}, "parallel": {}}
    rss: list[int] = []

    def add(mode: str, tool: str, wall_cpu: tuple[float, float]) -> None:
        samples[mode].setdefault(tool, []).append(wall_cpu)

    modes = [("core", 1)] + ([("parallel", jobs)] if jobs > 1 else [])
    # before any timed run: the copies' dirty pages written out, and one untimed port. The first
    # timed run of a session paid for both (porter, first in each round: 2.13 s against 1.6 s in
    # the six rounds after it; the parse in the same round took its usual time)
    os.sync()
    time_porter(tree, work / "out" / f"{name}-warm-up", 1)
    for i in range(args.runs):
        for mode, n in modes:
            # each run writes a new folder, removed with the work folder at the end: deleting
            # the last run's 1,606 files just before a timed run slowed that run's file
            # creation on this VM's file system (by up to 0.15 s), whichever tool it was
            out = work / "out" / f"{name}-{mode}-{i}"
            w, c, m = time_porter(tree, out / "porter", n)
            add(mode, "porter", (w, c))
            if mode == "core":
                rss.append(m)
                add(mode, "porter_call", time_porter_call(tree, out / "porter-call"))
            if tools["hipify_perl"]:
                add(
                    mode,
                    "hipify_perl",
                    time_hipify_perl(
                        tools["hipify_perl"],
                        tree,
                        out / "hipify-perl",
                        [files] if n == 1 else groups,
                    ),
                )
            if tools["torch"]:
                call, proc = time_torch([tree] if n == 1 else shards, out / "torch")
                add(mode, "torch", call)
                add(mode, "torch_process", proc)
            if tools["parse_only"]:
                add(
                    mode,
                    "parse_only",
                    time_parse_only(files) if n == 1 else time_parse_parallel(groups, work),
                )
        last = {m: {t: f"{v[-1][0]:.2f}" for t, v in s.items()} for m, s in samples.items() if s}
        print(f"  run {i + 1}/{args.runs} (wall s): {json.dumps(last)}", file=sys.stderr)

    rec: dict = {"files": len(files), "bytes": size, "jobs": jobs, "modes": {}}
    for mode, per_tool in samples.items():
        if not per_tool:
            continue
        med = {
            t: {"wall": median([w for w, _ in v]), "cpu": median([c for _, c in v])}
            for t, v in per_tool.items()
        }
        base = med["porter"]
        for m in med.values():
            m["wall_over_porter"] = ratio(m["wall"], base["wall"])
            m["cpu_over_porter"] = ratio(m["cpu"], base["cpu"])
        rec["modes"][mode] = {"median": med, "all": per_tool}
    rec["porter_peak_rss_mb"] = max(rss) / 1024
    return rec


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=3, help="runs per figure; medians are reported")
    ap.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="N for the equal-parallelism columns (default: the CPUs, %(default)s)",
    )
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON ('-': stdout)")
    ap.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=("hipify-perl", "torch", "parse-only", "cccl"),
        help="leave out a tool or the CCCL input (repeatable)",
    )
    args = ap.parse_args(argv)
    args.runs = max(1, args.runs)
    jobs = max(1, args.jobs)
    # An installed wheel is byte-compiled by pip; a checkout under PYTHONDONTWRITEBYTECODE=1 would
    # otherwise recompile porter's sources in every timed start-up.
    subprocess.run(
        [
            sys.executable,
            "-m",
            "compileall",
            "-q",
            str(Path(__file__).resolve().parent.parent / "porter"),
        ],
        check=False,
        stdout=subprocess.DEVNULL,
    )

    tools: dict = {
        "hipify_perl": None if "hipify-perl" in args.skip else hipify_perl(),
        "torch": "torch" not in args.skip and have_torch(),
        "parse_only": "parse-only" not in args.skip and have_tree_sitter(),
    }
    if "hipify-perl" not in args.skip and tools["hipify_perl"] is None:
        print("hipify-perl not found (run scripts/setup-rocm.sh); leaving it out", file=sys.stderr)
    if "torch" not in args.skip and not tools["torch"]:
        print(
            "torch not importable (pip install torch==2.13.0); leaving PyTorch's hipify out",
            file=sys.stderr,
        )
    with_cccl = "cccl" not in args.skip and CCCL.is_dir()

    results: dict = {
        "date": time.strftime("%Y-%m-%d"),
        "command": "python benchmarks/port_speed.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_before": loadavg(),
        },
        "runs": args.runs,
        "jobs": jobs,
        "porter": " ".join(porter_cmd()),
        "hipify_perl": str(tools["hipify_perl"]) if tools["hipify_perl"] else None,
        "inputs": {},
    }
    with tempfile.TemporaryDirectory(prefix="porter-bench-") as tmp:
        work = Path(tmp)
        trees = make_inputs(work / "in", with_cccl)
        for name, tree in trees.items():
            if name != "cccl-half":
                results["inputs"][name] = measure_input(name, tree, work, args, tools, jobs)
        if "cccl-half" in trees:
            half = [
                time_porter(trees["cccl-half"], work / "out-porter", 1)[2] for _ in range(args.runs)
            ]
            results["inputs"]["cccl"]["porter_peak_rss_mb_half_tree"] = max(half) / 1024
            results["inputs"]["cccl"]["half_tree_files"] = len(source_files(trees["cccl-half"]))
        one = EXAMPLE / "src" / "saxpy.cu"
        walls = [
            run_timed(porter_cmd() + ["port", str(one)]).seconds for _ in range(max(args.runs, 5))
        ]
        results["one_file"] = {
            "file": one.relative_to(EXAMPLE.parent.parent).as_posix(),
            "seconds": median(walls),
            "all_seconds": walls,
        }
    results["machine"]["load_after"] = loadavg()

    print_table(results)
    if args.json:
        text = json.dumps(results, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0


def print_table(res: dict) -> None:
    jobs = res["jobs"]
    m = res["machine"]
    load = ", ".join(f"{m[k]:.1f}" for k in ("load_before", "load_after") if m.get(k) is not None)
    print(
        f"\n{res['date']}, {m['cpus']} CPUs, Python {m['python']}; medians of {res['runs']} "
        f"runs; load average before/after: {load or '-'}"
    )
    print("x = tool / porter (above 1: porter is faster). CPU = user + system seconds.\n")
    head = [
        "input",
        "tool",
        "per core: wall",
        "CPU",
        "x wall",
        "x CPU",
        f"N={jobs}: wall",
        "CPU",
        "x wall",
    ]
    rows = []
    for name, rec in res["inputs"].items():
        core = rec["modes"].get("core", {}).get("median", {})
        parallel = rec["modes"].get("parallel", {}).get("median", {})
        first = True
        for key, label in TOOLS:
            c, p = core.get(key), parallel.get(key)
            if c is None and p is None:
                continue
            where = f"{name} ({rec['files']} files, {rec['bytes'] / 1e6:.1f} MB)" if first else ""
            first = False
            rows.append(
                [
                    where,
                    label,
                    fmt_s(c and c["wall"]),
                    fmt_s(c and c["cpu"]),
                    fmt_r(c and c["wall_over_porter"]),
                    fmt_r(c and c["cpu_over_porter"]),
                    fmt_s(p and p["wall"]),
                    fmt_s(p and p["cpu"]),
                    fmt_r(p and p["wall_over_porter"]),
                ]
            )
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
    print()
    print(
        f"per core: porter -j 1, hipify-perl one process over all files, torch hipify and "
        f"tree-sitter one thread. N={jobs}: porter -j {jobs}; hipify-perl, torch hipify "
        f"(which has "
        f"no parallel mode) and tree-sitter on {jobs} shards of the files, {jobs} processes "
        f"at once; the porter and torch calls and parse-only exclude interpreter start-up and "
        f"imports."
    )
    for name, rec in res["inputs"].items():
        core = rec["modes"].get("core", {}).get("median", {})
        if "porter" in core and "parse_only" in core:
            cost = core["porter"]["cpu"] / core["parse_only"]["cpu"]
            print(
                f"{name}: porter per core costs {cost:.2f}x the CPU of parsing the same files "
                f"with tree-sitter"
            )
        if name == "cccl" and "porter" in core and "parse_only" in core and "torch" in core:
            # issue 7 section 5, per core by CPU: within 2x of the parse, 2x faster than torch
            cost = core["porter"]["cpu"] / core["parse_only"]["cpu"]
            lead = core["torch"]["cpu"] / core["porter"]["cpu"]
            print(
                f"issue 7 targets on cccl (per core, CPU): within 2x of tree-sitter's parse: "
                f"{cost:.2f}x, {'met' if cost <= TARGET_RATIO else 'not met'}; at least 2x "
                f"faster than torch's hipify call: {lead:.2f}x, "
                f"{'met' if lead >= TARGET_RATIO else 'not met'} (porter's whole process "
                f"against torch's call)"
            )
            if "porter_call" in core:
                like = core["torch"]["cpu"] / core["porter_call"]["cpu"]
                print(
                    f"  like for like, porter's call against torch's call (each without its "
                    f"interpreter's start-up and first import): {like:.2f}x, "
                    f"{'met' if like >= TARGET_RATIO else 'not met'}"
                )
            # each round's ratios (the tools take turns within a round, so a round's figures saw
            # the same machine): how steady the medians are
            runs = rec["modes"]["core"]["all"]
            per_round = [
                ("torch's call / porter", "torch", "porter"),
                ("torch's call / porter's call", "torch", "porter_call"),
                ("porter / the parse", "porter", "parse_only"),
            ]
            for label, num, den in per_round:
                if num in runs and den in runs:
                    xs = [a[1] / b[1] for a, b in zip(runs[num], runs[den]) if b[1]]
                    print(
                        f"  per round (CPU), {label}: "
                        + " ".join(f"{x:.2f}" for x in xs)
                        + (f" (min {min(xs):.2f}, max {max(xs):.2f})" if xs else "")
                    )
    cccl = res["inputs"].get("cccl")
    if cccl and "porter_peak_rss_mb_half_tree" in cccl:
        print(
            f"porter -j 1 peak RSS: {cccl['porter_peak_rss_mb']:.0f} MB on the CCCL tree "
            f"({cccl['files']} files), {cccl['porter_peak_rss_mb_half_tree']:.0f} MB on half of "
            f"it ({cccl['half_tree_files']} files)"
        )
    print(
        f"porter port {res['one_file']['file']} (one file, interpreter start-up included): "
        f"{fmt_s(res['one_file']['seconds'])}"
    )


if __name__ == "__main__":
    sys.exit(main())
