#!/usr/bin/env python3
"""Real CUDA code nobody on this project wrote: porter against hipify-perl on PyPI sdists.

Each package below is a source distribution on PyPI that ships CUDA C++ (`.cu`, `.cuh`, and the
headers and host files beside them), pinned by version and sha256. The script

1. fetches each sdist with ``pip download --no-deps --no-binary :all: --no-build-isolation``
   (again with build isolation when that fails: pip needs the sdist's build backend for its
   metadata)
   into a cache folder outside the repository (``--cache``, default ``~/.cache/porter-corpus``;
   never committed), checks its sha256 and unpacks it;
2. copies the package's CUDA source folders (``roots`` below) into an input tree;
3. ports that tree twice, with the same options for both tools: ``porter port IN -o OUT`` and
   ``perl hipify-perl -quiet-warnings -inplace`` on a copy (``--roc`` for porter means ``-roc`` for
   hipify-perl; the packages here use neither);
4. compiles every translation unit of both outputs for gfx942 with clang-22 against the ROCm 7.2
   prefix of scripts/setup-rocm.sh (the flags of ``porter.verify``), with the package's own include
   folders (of that tool's ported tree) on the include path for both tools, the macros the
   project's own ROCm build defines (``defines``: the same for both tools), and a timeout per unit.

A translation unit is a ``.cu`` file, or a ``.cpp``/``.cc``/``.cxx`` file that includes a CUDA
toolkit header, calls a CUDA runtime or driver function, or holds device code: the files whose
port decides whether the GPU part builds (a PyTorch extension's binding ``.cpp`` files, built by
the host compiler, are not units).
A unit that includes PyTorch's headers (``torch/``, ``ATen/``, ``c10/``) is not compiled: the
only PyTorch here is the CPU wheel, whose ``ATen/cuda`` headers pull in the CUDA toolkit's and
which has no HIP build of ATen, so such a unit fails for both tools for that reason alone (and
takes a minute to fail). It is counted as "needs PyTorch (ROCm)" instead.

Reported per package: CUDA files, files each tool changed, porter's converted, unconverted and
unsupported references and findings by rule, the CUDA-looking identifiers left in the code of
each tool's output (the same scan for both), and the translation units that compile after each.

    python benchmarks/corpus.py                   # the six default packages (20-30 min, 2 cores)
    python benchmarks/corpus.py --only warp-lang --units  # a package outside the default run
    python benchmarks/corpus.py --quick           # torch-scatter only, about a minute
    python benchmarks/corpus.py --only cupy,pycuda --json corpus.json
    python benchmarks/corpus.py --fetch-only      # download and unpack, nothing else
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import hipify_perl, porter_cmd, rocm_prefix  # noqa: E402

from porter import verify  # noqa: E402


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    sha256: str  # of the sdist pip downloads
    roots: tuple[str, ...]  # folders (in the sdist) holding the package's CUDA code
    includes: tuple[str, ...] = ()  # the package's include folders (in the sdist)
    exclude: tuple[str, ...] = ()  # folders under the roots that are vendored code
    torch: bool = False  # a PyTorch extension (compiled against torch's headers)
    python: bool = False  # includes Python.h
    roc: bool = False  # port with porter --roc / hipify-perl -roc
    defines: tuple[str, ...] = ()  # what the project's own AMD build defines (both tools)
    what: str = ""
    sdist: str = ""  # the sdist's file name when it is not <name_with_underscores>-<version>
    # environment pip's metadata step needs here (no nvcc, no CUDA_HOME): the package's own
    # switch that skips its CUDA build (nothing is built: pip only reads the metadata)
    fetch_env: tuple[tuple[str, str], ...] = ()
    default: bool = True  # in a run without --only / --quick


#: What PyTorch's cpp_extension passes every HIP compile of an extension (its COMMON_HIP_FLAGS,
#: torch 2.13): the extensions' own USE_ROCM branches test it.
_TORCH_HIP = ("USE_ROCM=1",)

#: The corpus. Chosen for: real CUDA, an sdist whose metadata pip can prepare here without a CUDA
#: build of PyTorch, and a size that keeps the whole run near 20-30 minutes on 2 cores.
PACKAGES: tuple[Package, ...] = (
    Package(
        "torch-scatter",
        "2.1.2",
        "69b3aa435f2424ac6a1bfb6ff702da6eb73b33ca0db38fb26989c74159258e47",
        roots=("csrc",),
        includes=("csrc",),
        torch=True,
        python=True,
        what="PyTorch extension: scatter/segment reductions with warp shuffles",
    ),
    Package(
        "torch-harmonics",
        "0.8.1",
        "f9ff6b2a877e492c9a9fa98dec85eb4be36265e4ec737127fb6eb2537337e9ff",
        roots=("torch_harmonics",),
        torch=True,
        python=True,
        what="PyTorch extension: spherical DISCO convolution and attention kernels",
    ),
    Package(
        "deepspeed",
        "0.19.8",
        "9e491abd0827ea5c389dd702e15e11e13d83d904bac4a20d6c2a4cb37207a9af",
        roots=("csrc",),
        torch=True,
        python=True,
        # the include_paths of its op_builder/*.py
        includes=(
            "csrc/includes",
            "csrc/fp_quantizer/includes",
            "csrc/spatial/includes",
            "csrc/transformer/inference/includes",
        ),
        exclude=("csrc/xpu", "csrc/mps", "csrc/cpu", "csrc/aio", "csrc/gds"),
        # op_builder/builder.py adds it to every ROCm build (64 on gfx9)
        defines=("ROCM_WAVEFRONT_SIZE=64",),
        what="fused optimizers, transformer and quantization kernels, cuBLAS wrappers",
    ),
    Package(
        "cupy",
        "13.6.0",
        "3cba30ae3dd32b5d5c6536e710cb98015227cd4ba83c46b3f1825a7ae55b6667",
        roots=("cupy/cuda", "cupy/random", "cupy/_core/include/cupy"),
        includes=("cupy/_core/include",),
        exclude=(
            "cupy/_core/include/cupy/_cccl",
            "cupy/_core/include/cupy/_jitify",
            "cupy/_core/include/cupy/_dlpack",
        ),
        defines=("CUPY_USE_HIP",),  # cupy's ROCm build (install/cupy_builder)
        what="CUB/Thrust/cuFFT wrappers, cuRAND distributions, device headers",
    ),
    Package(
        "pycuda",
        "2026.1",
        "759516160628ba06f32ce7e563e3f5b9214691dc9528a03ea99ea1073f4e14ba",
        roots=("src",),
        includes=("src/cpp", "bpl-subset/bpl_subset"),
        python=True,
        # aksetup_helper.py's defines for the shipped Boost subset (boost_chrono=False)
        defines=(
            "BOOST_ALL_NO_LIB=1",
            "BOOST_THREAD_BUILD_DLL=1",
            "BOOST_MULTI_INDEX_DISABLE_SERIALIZATION=1",
            "BOOST_PYTHON_SOURCE=1",
            "BOOST_THREAD_DONT_USE_CHRONO=1",
        ),
        what="C++ wrapper of the CUDA driver API, cuRAND, GL interop (Boost.Python)",
    ),
    Package(
        "llama-cpp-python",
        "0.3.16",
        "34ed0f9bd9431af045bb63d9324ae620ad0536653740e9bb163a2e1fcb973be6",
        roots=(
            "vendor/llama.cpp/ggml/src/ggml-cuda",
            "vendor/llama.cpp/ggml/src/ggml-common.h",
            "vendor/llama.cpp/ggml/src/ggml-impl.h",
        ),
        defines=("GGML_USE_HIP",),  # ggml's HIP build (ggml-hip/CMakeLists.txt)
        includes=("vendor/llama.cpp/ggml/include", "vendor/llama.cpp/ggml/src"),
        exclude=("vendor/llama.cpp/ggml/src/ggml-cuda/template-instances",),
        what="ggml's CUDA backend (quantized matmul, flash attention); needs "
        "scikit-build-core installed for pip to prepare its metadata",
    ),
    # Not in the default run (--only NAME): added by the accuracy sweep of real code porter had
    # not seen. The PyTorch extensions among them have no unit that compiles without PyTorch's
    # headers; they measure the rename (names left, converted, findings).
    Package(
        "torch-cluster",
        "1.6.3",
        "78d5a930a5bbd0d8788df8c6d66addd68d6dd292fe3edb401e3dacba26308152",
        roots=("csrc",),
        includes=("csrc",),
        torch=True,
        python=True,
        defines=_TORCH_HIP,
        default=False,
        what="PyTorch extension: graph clustering, kNN/radius, random walks",
    ),
    Package(
        "torch-sparse",
        "0.6.18",
        "2f14c510a6e93f404c6ea357210615b3c15a71731f9dbd86f25434e34fb5a741",
        roots=("csrc",),
        includes=("csrc",),
        torch=True,
        python=True,
        defines=_TORCH_HIP,
        default=False,
        what="PyTorch extension: sparse matrix products, conversions, random walks",
    ),
    Package(
        "mamba-ssm",
        "2.3.2.post1",
        "104cc47e9101e5401a675fa2b784f2952b9b037f3b1dd83b5ac544394e95d028",
        roots=("csrc",),
        includes=("csrc/selective_scan",),
        torch=True,
        python=True,
        defines=_TORCH_HIP,
        fetch_env=(("MAMBA_SKIP_CUDA_BUILD", "TRUE"),),  # its setup.py's switch
        default=False,
        what="PyTorch extension: selective scan with CUB block load/store/scan",
    ),
    Package(
        "gsplat",
        "1.5.3",
        "343f080c470e891ba3c697c03bdf0952cb982d1d535fdc24adb23c2cb4fba906",
        roots=("gsplat/cuda",),
        includes=("gsplat/cuda/include", "gsplat/cuda/csrc/third_party/glm"),
        exclude=("gsplat/cuda/csrc/third_party",),
        torch=True,
        python=True,
        defines=_TORCH_HIP,  # its setup.py also defines USE_ROCM itself
        fetch_env=(("BUILD_NO_CUDA", "1"),),  # its setup.py's switch
        default=False,
        what="PyTorch extension: Gaussian splatting rasterization, cooperative groups",
    ),
    Package(
        "warp-lang",
        "0.8.0",
        "713d2cc552cde1a6e739112c02cc11327d99715fa3d97fa9c2b382ff8be239aa",
        roots=("warp/native",),
        includes=("warp/native",),
        sdist="warp-lang-0.8.0.tar.gz",
        # warp/build.py's nvcc line without CUTLASS (no AMD build of its own)
        defines=("NDEBUG", "WP_CUDA", "WP_ENABLE_CUDA=1", "WP_ENABLE_CUTLASS=0"),
        default=False,
        what="NVIDIA Warp's native runtime: BVH, hash grid, marching cubes, NanoVDB, CUB "
        "scan/sort (no PyTorch)",
    ),
)
QUICK = ("torch-scatter",)

#: The source extensions porter parses by default: both tools get exactly these files.
EXTS = frozenset(
    {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hxx", ".inl", ".cuinl", ".hip"}
)
TU_EXTS = frozenset({".cu", ".cpp", ".cc", ".cxx"})
_CUDA_USE = re.compile(
    rb"#\s*include\s*[<\"](?:cuda[\w.]*\.h|cu(?:blas|sparse|rand|fft|dnn|solver)\w*\.h|nccl\.h"
    rb"|cub/|thrust/|cooperative_groups)|\bcuda[A-Z]\w*\s*\(|\bcu[A-Z][a-z]\w*\s*\(|__global__|<<<"
)
# CUDA-looking identifiers: the pattern of porter's rewriter (porter/rewrite), kept here so that
# both outputs are scanned the same way whatever porter's internals do.
_CUDA_NAME = re.compile(
    rb"(?<![\w$])(?:cuda[A-Z]\w*|cu[A-Z][a-z]\w*|CU_[A-Z0-9_]+|CUDA_[A-Z0-9_]+|CUDART_[A-Z0-9_]+"
    rb"|(?:cublas|cublasLt|cusparse|cufft|curand|cusolver|cudnn|nvrtc|cutensor)[A-Z_]\w*"
    rb"|(?:CUBLAS|CUSPARSE|CUFFT|CURAND|CUSOLVER|CUDNN|NVRTC|CUTENSOR)_\w+)(?![\w$])"
)
_COMMENT_OR_STRING = re.compile(
    rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S
)
DEFAULT_TIMEOUT = 120.0
ERROR_CHARS = 200


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter-corpus"


# --- fetching ----------------------------------------------------------------------------------


class FetchError(RuntimeError):
    pass


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sdist_name(pkg: Package) -> str:
    return pkg.sdist or f"{pkg.name.replace('-', '_')}-{pkg.version}.tar.gz"


def fetch(pkg: Package, cache: Path) -> Path:
    """The unpacked sdist folder, downloading and checking it first if needed."""
    src = cache / "src" / f"{pkg.name}-{pkg.version}"
    if (src / ".complete").is_file():
        return src
    sdists = cache / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    archive = sdists / sdist_name(pkg)
    if not archive.is_file() or sha256(archive) != pkg.sha256:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "-q",
            "-d",
            str(sdists),
            f"{pkg.name}=={pkg.version}",
        ]

        def fetch(cmd: list[str]) -> subprocess.CompletedProcess:
            return subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                errors="replace",
                stdin=subprocess.DEVNULL,
                env={**os.environ, **dict(pkg.fetch_env)},
            )

        proc = fetch(cmd)
        if proc.returncode != 0 or not archive.is_file():
            # pip reads an sdist's metadata with its build backend: without isolation that is
            # the backend installed here, if any (llama-cpp-python's scikit-build-core is not
            # on a fresh machine); with it, pip installs the backend in a temporary environment
            proc = fetch([c for c in cmd if c != "--no-build-isolation"])
        if proc.returncode != 0 or not archive.is_file():
            last = [ln for ln in proc.stderr.splitlines() if "rror" in ln][-1:]
            last = last or ["no sdist saved"]
            raise FetchError(f"pip download {pkg.name}=={pkg.version} failed: {last[0].strip()}")
    got = sha256(archive)
    if got != pkg.sha256:
        raise FetchError(f"{archive.name}: sha256 {got} is not the pinned {pkg.sha256}")
    shutil.rmtree(src, ignore_errors=True)
    src.parent.mkdir(parents=True, exist_ok=True)
    tmp = src.with_name(src.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    with tarfile.open(archive) as tf:
        tf.extractall(tmp, filter="data")
    tops = list(tmp.iterdir())
    inner = tops[0] if len(tops) == 1 and tops[0].is_dir() else tmp
    inner.rename(src)
    shutil.rmtree(tmp, ignore_errors=True)
    (src / ".complete").write_text(pkg.sha256 + "\n")
    return src


# --- the input tree ----------------------------------------------------------------------------


def select_files(pkg: Package, src: Path) -> list[Path]:
    """Source files (relative to the sdist) under the roots, minus the excluded folders."""
    out = []
    for root in pkg.roots:
        base = src / root
        if base.is_file():
            out.append(Path(root))
            continue
        if not base.is_dir():
            raise FetchError(f"{pkg.name}: no {root} in the sdist")
        for p in sorted(base.rglob("*")):
            rel = p.relative_to(src)
            if not p.is_file() or p.suffix.lower() not in EXTS:
                continue
            if any(rel.as_posix().startswith(x.rstrip("/") + "/") for x in pkg.exclude):
                continue
            out.append(rel)
    return out


def copy_tree(src: Path, dst: Path, files: list[Path]) -> None:
    shutil.rmtree(dst, ignore_errors=True)
    for rel in files:
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / rel, dst / rel)


_TORCH_INCLUDE = re.compile(rb"#\s*include\s*[<\"](?:torch|ATen|c10)/")


def needs_torch(path: Path) -> bool:
    return _TORCH_INCLUDE.search(path.read_bytes()) is not None


def translation_units(tree: Path, files: list[Path]) -> list[Path]:
    out = []
    for rel in files:
        if rel.suffix.lower() not in TU_EXTS:
            continue
        if rel.suffix.lower() == ".cu" or _CUDA_USE.search((tree / rel).read_bytes()):
            out.append(rel)
    return out


# --- the tools ---------------------------------------------------------------------------------


def run_porter(inp: Path, out: Path, report: Path, roc: bool, jobs: int) -> tuple[dict, float]:
    cmd = (
        porter_cmd()
        + [
            "port",
            str(inp),
            "-o",
            str(out),
            "--force",
            "-q",
            "--exit-zero",
            "-j",
            str(jobs),
            "--report",
            str(report),
        ]
        + (["--roc"] if roc else [])
    )
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0 or not report.is_file():
        tail = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        raise RuntimeError(f"porter failed on {inp}: {tail[0]}")
    return json.loads(report.read_text(encoding="utf-8")), seconds


def run_hipify_perl(
    tool: Path, inp: Path, out: Path, files: list[Path], roc: bool, jobs: int
) -> tuple[int, float]:
    """hipify-perl -inplace over a copy of the input, the files split over `jobs` processes.
    Returns (processes that exited non-zero, seconds)."""
    copy_tree(inp, out, files)
    paths = [str(out / rel) for rel in files]
    chunks = [paths[i::jobs] for i in range(jobs) if paths[i::jobs]]
    opts = ["-quiet-warnings", "-inplace"] + (["-roc"] if roc else [])

    def one(chunk: list[str]) -> int:
        return subprocess.run(
            ["perl", str(tool), *opts, *chunk],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        ).returncode

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(chunks) or 1) as pool:
        bad = sum(1 for rc in pool.map(one, chunks) if rc != 0)
    return bad, time.perf_counter() - start


def cuda_names_left(tree: Path, files: list[Path]) -> collections.Counter:
    """CUDA-looking identifiers in the code (not comments or strings) of a ported tree."""
    found: collections.Counter = collections.Counter()
    for rel in files:
        p = tree / rel
        if not p.is_file():
            continue
        code = _COMMENT_OR_STRING.sub(b" ", p.read_bytes())
        for m in _CUDA_NAME.finditer(code):
            found[m.group(0).decode("ascii", "replace")] += 1
    return found


def changed(a: Path, b: Path, files: list[Path]) -> int:
    return sum(
        1
        for rel in files
        if (b / rel).is_file() and (a / rel).read_bytes() != (b / rel).read_bytes()
    )


# --- compiling ---------------------------------------------------------------------------------


def torch_includes() -> list[str]:
    try:
        from torch.utils.cpp_extension import include_paths
    except ImportError:
        return []
    return [str(p) for p in include_paths()]


def compile_units(
    tree: Path,
    tus: list[Path],
    pkg: Package,
    src: Path,
    tc: verify.Toolchain,
    jobs: int,
    timeout: float,
    torch_inc: list[str],
) -> dict[str, dict]:
    """{unit: {"ok", "error", "location", "seconds"}} for one tool's output tree."""
    incs: list[str] = []
    for inc in pkg.includes:
        # the tool's output of the folder first (where the roots put files in it), then the
        # sdist's own (headers outside the roots, the same for both tools)
        if (tree / inc).is_dir():
            incs.append(str(tree / inc))
        incs.append(str(src / inc))
    flags = [f"-D{d}" for d in pkg.defines]
    if pkg.torch:
        incs += torch_inc
    if pkg.python or pkg.torch:
        incs.append(sysconfig.get_paths()["include"])

    def one(rel: Path) -> tuple[str, dict]:
        unit = tree / rel
        if needs_torch(unit):
            return rel.as_posix(), {
                "ok": False,
                "skipped": "needs PyTorch (ROCm)",
                "error": "",
                "location": "",
                "seconds": 0.0,
            }
        r = verify.compile_file(
            unit, ["gfx942"], tc, flags, include_dirs=[str(unit.parent), *incs], timeout=timeout
        )
        err = r.first_error
        if "error:" in err:
            err = err.split("error:", 1)[1].strip()
        loc = r.location
        if loc.startswith(str(tree) + "/"):
            loc = loc[len(str(tree)) + 1 :]
        return rel.as_posix(), {
            "ok": r.ok,
            "error": err[:ERROR_CHARS],
            "location": loc,
            "seconds": round(r.seconds, 2),
        }

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return dict(pool.map(one, tus))


# --- driver ------------------------------------------------------------------------------------


@dataclass
class Result:
    package: str
    version: str
    record: dict = field(default_factory=dict)


def run_package(
    pkg: Package,
    cache: Path,
    work: Path,
    args: argparse.Namespace,
    tool: Path | None,
    tc: verify.Toolchain | None,
    torch_inc: list[str],
) -> dict:
    src = fetch(pkg, cache)
    files = select_files(pkg, src)
    base = work / pkg.name
    inp, out_p, out_h = base / "input", base / "porter", base / "hipify-perl"
    copy_tree(src, inp, files)
    tus = translation_units(inp, files)
    rec: dict = {
        "package": pkg.name,
        "version": pkg.version,
        "what": pkg.what,
        "files": len(files),
        "bytes": sum((inp / f).stat().st_size for f in files),
        "translation_units": len(tus),
        "torch_extension": pkg.torch,
        "roc": pkg.roc,
    }
    print(
        f"{pkg.name} {pkg.version}: {len(files)} files, {len(tus)} translation units",
        file=sys.stderr,
    )
    report, secs = run_porter(inp, out_p, base / "porter-report.json", pkg.roc, args.jobs)
    summ = report["summary"]
    by_rule = collections.Counter(f["code"] for f in report["findings"])
    rec["porter"] = {
        "seconds": round(secs, 2),
        "files_changed": changed(inp, out_p, files),
        "converted": summ["api"]["converted"],
        "unsupported": summ["api"]["unsupported"],
        "unconverted": summ["api"]["unconverted"],
        "launches": summ.get("launches", 0),
        "includes_added": summ.get("includes_added", 0),
        "findings_by_rule": dict(sorted(by_rule.items())),
        "errors": report.get("errors", []),
        "cuda_names_left": dict(cuda_names_left(out_p, files).most_common()),
    }
    if tool is not None:
        bad, hsecs = run_hipify_perl(tool, inp, out_h, files, pkg.roc, args.jobs)
        rec["hipify_perl"] = {
            "seconds": round(hsecs, 2),
            "failed_processes": bad,
            "files_changed": changed(inp, out_h, files),
            "cuda_names_left": dict(cuda_names_left(out_h, files).most_common()),
        }
    if tc is not None and not args.no_compile:
        if args.original:
            rec["original"] = {
                "compile": compile_units(inp, tus, pkg, src, tc, args.jobs, args.timeout, torch_inc)
            }
        rec["porter"]["compile"] = compile_units(
            out_p, tus, pkg, src, tc, args.jobs, args.timeout, torch_inc
        )
        if tool is not None:
            rec["hipify_perl"]["compile"] = compile_units(
                out_h, tus, pkg, src, tc, args.jobs, args.timeout, torch_inc
            )
    return rec


def ok_count(tool_rec: dict | None) -> str:
    """ "ok/compiled" of a tool's units (units skipped for PyTorch left out)."""
    if not tool_rec or "compile" not in tool_rec:
        return "-"
    units = [u for u in tool_rec["compile"].values() if not u.get("skipped")]
    return f"{sum(1 for u in units if u['ok'])}/{len(units)}"


def skipped_count(rec: dict) -> int:
    units = rec.get("porter", {}).get("compile", {})
    return sum(1 for u in units.values() if u.get("skipped"))


def print_tables(res: dict) -> None:
    print(f"\n{res['date']}: {res['command']}")
    print(
        f"porter {res['porter_version']}; hipify-perl {res['hipify_perl'] or '-'}; compiled for "
        f"gfx942 with {res['compiler'] or '-'}\n"
    )
    head = [
        "package",
        "files",
        "TUs (PyTorch)",
        "changed porter/hipify-perl",
        "converted",
        "unconverted",
        "unsupported",
        "CUDA names left porter/hipify-perl",
        "TUs compile porter",
        "TUs compile hipify-perl",
        "TUs compile unported",
    ]
    rows = []
    tot = collections.Counter()
    for rec in res["packages"]:
        if "error" in rec:
            rows.append(
                [f"{rec['package']} {rec['version']}", "-", "-", rec["error"][:60]] + ["-"] * 7
            )
            continue
        p, h = rec["porter"], rec.get("hipify_perl")
        left_p = sum(p["cuda_names_left"].values())
        left_h = sum(h["cuda_names_left"].values()) if h else None
        rows.append(
            [
                f"{rec['package']} {rec['version']}",
                str(rec["files"]),
                f"{rec['translation_units']} ({skipped_count(rec)})",
                f"{p['files_changed']}/{h['files_changed'] if h else '-'}",
                str(p["converted"]),
                str(p["unconverted"]),
                str(p["unsupported"]),
                f"{left_p}/{'-' if left_h is None else left_h}",
                ok_count(p),
                ok_count(h),
                ok_count(rec.get("original")),
            ]
        )
        for key, tool_rec in (("porter", p), ("hipify", h), ("original", rec.get("original"))):
            if tool_rec and "compile" in tool_rec:
                units = [u for u in tool_rec["compile"].values() if not u.get("skipped")]
                tot[key + "_ok"] += sum(1 for u in units if u["ok"])
                tot[key + "_n"] += len(units)
    widths = [max(len(hd), *(len(r[i]) for r in rows)) for i, hd in enumerate(head)]
    print("| " + " | ".join(hd.ljust(w) for hd, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    if tot["porter_n"]:
        print(
            f"\ntranslation units that compile for gfx942: porter {tot['porter_ok']} of "
            f"{tot['porter_n']}, hipify-perl {tot['hipify_ok']} of {tot['hipify_n']}"
            + (
                f", unported {tot['original_ok']} of {tot['original_n']}"
                if tot["original_n"]
                else ""
            )
            + " (units that include PyTorch headers, in parentheses above, not compiled)"
        )
    if res.get("show_units"):
        print_units(res)
    print("\nporter findings by rule:")
    for rec in res["packages"]:
        if "porter" in rec:
            rules = ", ".join(f"{k} {v}" for k, v in rec["porter"]["findings_by_rule"].items())
            print(f"  {rec['package']}: {rules or '-'}")


def unit_status(u: dict | None) -> str:
    if u is None:
        return "-"
    if u.get("skipped"):
        return f"not compiled: {u['skipped']}"
    if u["ok"]:
        return "ok"
    where = f"{u['location']}: " if u["location"] else ""
    return f"FAIL {where}{u['error']}"[:90]


def print_units(res: dict) -> None:
    """Every translation unit, porter's and hipify-perl's result side by side."""
    rows = []
    for rec in res["packages"]:
        p = rec.get("porter", {}).get("compile", {})
        h = rec.get("hipify_perl", {}).get("compile", {})
        for unit in sorted(set(p) | set(h)):
            rows.append(
                (f"{rec['package']}/{unit}", unit_status(p.get(unit)), unit_status(h.get(unit)))
            )
    if not rows:
        return
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    print(f"\n{'unit'.ljust(w0)}  {'porter'.ljust(w1)}  hipify-perl")
    for a, b, c in rows:
        print(f"{a.ljust(w0)}  {b.ljust(w1)}  {c}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--cache",
        type=Path,
        default=default_cache(),
        help="where sdists, unpacked sources and outputs go (default %(default)s)",
    )
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    ap.add_argument("--only", help="comma-separated package names")
    ap.add_argument("--fetch-only", action="store_true", help="download and unpack, then stop")
    ap.add_argument("--no-compile", action="store_true", help="port and count, compile nothing")
    ap.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="parallel ports and compiles (default %(default)s)",
    )
    ap.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help="seconds per translation unit compile (default %(default)s)",
    )
    ap.add_argument("--json", metavar="FILE", help="also write every figure and error as JSON")
    ap.add_argument(
        "--original",
        action="store_true",
        help="also compile the unported sources the same way (what a project's own "
        "HIP support compiles before any tool touches it)",
    )
    ap.add_argument(
        "--units",
        action="store_true",
        help="also list every translation unit: porter's and hipify-perl's result",
    )
    ap.add_argument(
        "--from-json",
        metavar="FILE",
        help="print the tables of an earlier --json run (nothing is run)",
    )
    args = ap.parse_args(argv)
    if args.from_json:
        try:
            old_res = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"corpus: cannot read {args.from_json}: {exc}", file=sys.stderr)
            return 2
        old_res["show_units"] = args.units
        print_tables(old_res)
        return 0

    chosen = [p for p in PACKAGES if p.default]
    if args.only:
        chosen = list(PACKAGES)
    if args.quick:
        chosen = [p for p in PACKAGES if p.name in QUICK]
    if args.only:
        names = {n.strip() for n in args.only.split(",") if n.strip()}
        unknown = names - {p.name for p in PACKAGES}
        if unknown:
            print(
                f"corpus: unknown package(s): {', '.join(sorted(unknown))} (known: "
                f"{', '.join(p.name for p in PACKAGES)})",
                file=sys.stderr,
            )
            return 2
        chosen = [p for p in chosen if p.name in names]
    cache = args.cache.expanduser().resolve()
    repo = Path(__file__).resolve().parent.parent
    if cache == repo or repo in cache.parents:
        print(
            "corpus: --cache must be outside the repository (the corpus is never committed)",
            file=sys.stderr,
        )
        return 2

    if args.fetch_only:
        status = 0
        for pkg in chosen:
            try:
                print(f"{pkg.name} {pkg.version}: {fetch(pkg, cache)}")
            except FetchError as exc:
                print(f"corpus: {exc}", file=sys.stderr)
                status = 1
        return status

    tool = hipify_perl()
    if tool is None:
        print(
            "corpus: hipify-perl not found (run scripts/setup-rocm.sh); porter only",
            file=sys.stderr,
        )
    tc = None
    if not args.no_compile:
        try:
            tc = verify.discover(rocm_prefix("7.2"))
        except verify.ToolchainNotFound as exc:
            print(f"corpus: {exc}; not compiling", file=sys.stderr)
    torch_inc = torch_includes() if any(p.torch for p in chosen) else []
    version = subprocess.run(porter_cmd() + ["--version"], capture_output=True, text=True).stdout
    res: dict = {
        "date": time.strftime("%Y-%m-%d"),
        "command": "python benchmarks/corpus.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "porter_version": version.strip(),
        "hipify_perl": str(tool) if tool else None,
        "compiler": tc.describe() if tc else None,
        "timeout": args.timeout,
        "show_units": args.units,
        "packages": [],
    }
    work = cache / "work"
    for pkg in chosen:
        try:
            res["packages"].append(run_package(pkg, cache, work, args, tool, tc, torch_inc))
        except (FetchError, RuntimeError, OSError) as exc:
            print(f"corpus: {pkg.name}: {exc}", file=sys.stderr)
            res["packages"].append({"package": pkg.name, "version": pkg.version, "error": str(exc)})
    print_tables(res)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"\noutputs kept in {work} (input/, porter/, hipify-perl/ per package)")
    return 1 if any("error" in r for r in res["packages"]) else 0


if __name__ == "__main__":
    sys.exit(main())
