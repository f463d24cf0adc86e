"""How porter's cost grows with one file: CUDA references per file, one long line, file size.

    python benchmarks/scaling.py                   # the default series, table on stdout
    python benchmarks/scaling.py --refs 5000 10000 20000 40000 --sizes 1 2 4
    python benchmarks/scaling.py --json scaling.json

Each case is one generated file ported by `porter port FILE -o OUT -q --exit-zero` in a child
process (start-up included), timed with wall time and peak resident memory (os.wait4, see
common.run_timed). An empty file's figures (start-up, the loaded tables) are subtracted in the
`+s/1k refs` (seconds per 1,000 references) and `+RSS/size` (memory a file adds, over its
size) columns: flat for linear cost. Series:

- `refs`: N CUDA references (cudaMalloc/cudaFree pairs, one pair a line) in one function;
- `one line`: the same references on a single line (about 19 bytes each);
- `size`: the example project's sources repeated to S MiB (real code: kernels, launches, the
  runtime API, findings), ported with `--max-file-size 0` (no limit).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import EXAMPLE, porter_cmd, run_timed  # noqa: E402


def refs_file(n: int, one_line: bool) -> bytes:
    calls = [f"cudaMalloc(&p{i}, {i}); cudaFree(p{i});" for i in range(n // 2)]
    sep = " " if one_line else "\n  "
    return ("#include <cuda_runtime.h>\nvoid f() {" + sep + sep.join(calls) + "\n}\n").encode()


def sized_file(mib: float) -> bytes:
    body = b"\n".join(
        p.read_bytes().replace(b"#include", b"// include")
        for p in sorted((EXAMPLE / "src").glob("*.cu"))
    )
    out = [b"#include <cuda_runtime.h>\n"]
    size, i = 0, 0
    while size < mib * 2**20:
        chunk = b"namespace n%d {\n%s\n}\n" % (i, body)
        out.append(chunk)
        size += len(chunk)
        i += 1
    return b"".join(out)


def measure(data: bytes, tmp: Path, runs: int, extra: list[str]) -> tuple[float, int]:
    src = tmp / "case.cu"
    src.write_bytes(data)
    times, rss = [], []
    for _ in range(runs):
        r = run_timed(
            [
                *porter_cmd(),
                "port",
                str(src),
                "-o",
                str(tmp / "out.cu"),
                "--force",
                "-q",
                "--exit-zero",
                *extra,
            ]
        )
        if r.returncode != 0:
            raise SystemExit(f"porter failed ({r.returncode}): {r.stderr.strip()[-500:]}")
        times.append(r.seconds)
        rss.append(r.max_rss_kb)
    return statistics.median(times), max(rss)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--refs", type=int, nargs="*", default=[2500, 5000, 10000, 20000, 40000])
    ap.add_argument("--line-refs", type=int, nargs="*", default=[3500, 7000, 14000, 28000])
    ap.add_argument(
        "--sizes",
        type=float,
        nargs="*",
        default=[0.5, 1, 2, 4],
        help="file sizes in MiB for the real-code series",
    )
    ap.add_argument("--runs", type=int, default=1, help="runs per case (median time)")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        # start-up and the loaded tables: an empty file, subtracted to show what a file adds
        base_s, base_kb = measure(b"", tmp, max(args.runs, 3), [])
        print(
            f"empty file: {base_s:.2f} s, {base_kb / 1024:.0f} MB peak RSS (start-up; "
            f"subtracted in the +columns)"
        )
        print(
            f"{'series':10} {'case':>12} {'bytes':>11} {'seconds':>8} {'+s/1k refs':>10} "
            f"{'peak RSS MB':>11} {'+RSS/size':>9}"
        )
        cases = [("refs", f"{n} refs", refs_file(n, False), n) for n in args.refs]
        cases += [("one line", f"{n} refs", refs_file(n, True), n) for n in args.line_refs]
        cases += [("size", f"{s:g} MiB", sized_file(s), 0) for s in args.sizes]
        for series, label, data, n in cases:
            seconds, rss_kb = measure(data, tmp, args.runs, ["--max-file-size", "0"])
            per_k = f"{(seconds - base_s) / n * 1000:10.3f}" if n else f"{'':>10}"
            ratio = (rss_kb - base_kb) * 1024 / len(data)
            print(
                f"{series:10} {label:>12} {len(data):11d} {seconds:8.2f} {per_k} "
                f"{rss_kb / 1024:11.0f} {ratio:9.0f}",
                flush=True,
            )
            rows.append(
                {
                    "series": series,
                    "case": label,
                    "bytes": len(data),
                    "refs": n,
                    "seconds": round(seconds, 3),
                    "peak_rss_kb": rss_kb,
                }
            )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
