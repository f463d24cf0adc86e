"""The API lists the mapping tables are checked against, and the pinned inputs they come from.

scripts/inputs.lock pins every input (a PyPI wheel by exact version and sha256, or a ROCm prefix
unpacked by scripts/setup-rocm.sh). Wheels too large to fetch in CI (60 MB per hip-python
release, 200-400 MB per cuSPARSE wheel) are reduced once to the name lists committed under
scripts/data/api/, whose sha256 the lock records too; `check_mappings.py --refresh` downloads the
pinned wheels again, checks their hashes and rebuilds the lists, so a reviewer can confirm them.

Read here (no generator: nothing in this module writes a mapping table):
  * the ROCm headers of the prefixes (6.4, 7.2) and clang's HIP wrapper headers;
  * the HIP/library binding lists (.pxd) of hip-python (ROCm 6.2 ... 7.2) and of
    rocm-bindings-{hip,libraries,systems} (ROCm 10.0), as scripts/data/api/rocm_bindings.tsv;
  * the CUDA 13.0 toolkit headers (/usr/local/cuda/include) with the library name lists of
    scripts/data/cuda_library_names*/ (from NVIDIA's CUDA 13 library wheels), and the names and
    include paths CUDA 11.8 / 12.9 declare that 13.0 no longer does, from NVIDIA's -cu11/-cu12
    wheels, as scripts/data/api/cuda_older.tsv.
"""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import os
import pickle
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - CI and the maintainers use 3.11
    import tomli as tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_names import header_files, header_identifiers, identifiers  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "scripts" / "inputs.lock"
DATA = ROOT / "scripts" / "data"
CUDA_INCLUDE = Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))
# where the pinned wheels are downloaded (check_mappings.py --cache, roc_api.py --fetch)
WHEEL_CACHE = Path("/tmp/porter-check-mappings")
ARITY_LIST = "scripts/data/api/cuda_library_arity.tsv"

Version = tuple[int, ...]


def vkey(text: str) -> Version:
    return tuple(int(p) for p in text.split("."))


def vtext(v: Version) -> str:
    return ".".join(map(str, v))


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class Lock:
    raw: dict
    path: Path = LOCK

    @classmethod
    def load(cls, path: Path = LOCK) -> "Lock":
        with open(path, "rb") as fh:
            return cls(tomllib.load(fh), path)

    @property
    def wheels(self) -> list[dict]:
        return self.raw.get("wheel", [])

    @property
    def prefixes(self) -> list[dict]:
        return self.raw.get("prefix", [])

    @property
    def lists(self) -> dict[str, str]:
        return self.raw.get("lists", {})

    def rocm_releases(self) -> list[Version]:
        out = {vkey(w["release"]) for w in self.wheels if w["side"] == "rocm"}
        out |= {vkey(p["release"]) for p in self.prefixes}
        return sorted(out)

    def cuda_releases(self) -> list[Version]:
        out = {
            vkey(w["release"])
            for w in self.wheels
            if w["side"] == "cuda" and not w.get("arity_only")
        }
        return sorted(out | {vkey(self.raw["cuda"]["release"])})

    def arity_wheels(self) -> list[dict]:
        """The wheels whose headers give the CUDA library parameter lists (`arity = true`:
        scripts/data/api/cuda_library_arity.tsv, rebuilt by roc_api.build_cuda_arity)."""
        return [w for w in self.wheels if w.get("arity")]

    def list_problems(self) -> list[str]:
        """Committed lists whose content is not the one the lock records."""
        problems = []
        for rel, digest in sorted(self.lists.items()):
            path = ROOT / rel
            if not path.is_file():
                problems.append(f"{rel}: missing (scripts/inputs.lock lists it)")
            elif sha256_file(path) != digest:
                problems.append(
                    f"{rel}: sha256 differs from scripts/inputs.lock "
                    "(rebuild with --refresh and review)"
                )
        return problems


# -- ROCm ----------------------------------------------------------------------------------------
_PXD_ID = re.compile(r"[A-Za-z_]\w*")
_PAREN = re.compile(r"\([^()]*\)")
_PXD_WORDS = frozenset(
    "cdef ctypedef extern from struct union enum const except nogil bint "
    "void int char unsigned long short float double signed size_t cimport "
    "import object inline packed".split()
)


def pxd_names(text: str) -> set[str]:
    """Names a Cython declaration file declares: the identifiers of its declaration lines, less
    comments, quoted C names' quotes and parameter lists (parameter names are not API)."""
    out: set[str] = set()
    for line in text.splitlines():
        s = line.split("#", 1)[0]
        if not s.strip() or s.lstrip().startswith(("from ", "cimport ", "import ")):
            continue
        s = re.sub(r'"([^"]*)"', r" \1 ", s)
        prev = None
        while prev != s:
            prev, s = s, _PAREN.sub(" ", s)
        out.update(n for n in _PXD_ID.findall(s) if n not in _PXD_WORDS)
    return out


def read_release_table(path: Path) -> dict[str, set[Version]]:
    """A `name<TAB>release release ...` list."""
    out: dict[str, set[Version]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, rels = line.partition("\t")
        out[name] = {vkey(r) for r in rels.split()}
    return out


def write_release_table(path: Path, header: list[str], table: dict[str, set[Version]]) -> None:
    lines = [f"# {h}" for h in header]
    for name in sorted(table):
        lines.append(f"{name}\t{' '.join(vtext(v) for v in sorted(table[name]))}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def rocm_prefix(release: str) -> Path:
    """The usr/ folder of a ROCm prefix unpacked by scripts/setup-rocm.sh."""
    env = (
        "PORTER_ROCM_PREFIX"
        if release == "7.2"
        else "PORTER_ROCM64_PREFIX"
        if release == "6.4"
        else ""
    )
    base = Path(os.environ.get(env, "") or f"/opt/porter-rocm/{release}")
    return base / "usr"


def clang_hip_headers() -> list[Path]:
    """clang's HIP wrapper headers (device math functions live there, not in ROCm's include/)."""
    dirs = sorted(
        glob.glob("/usr/lib/llvm-*/lib/clang/*/include"),
        key=lambda p: [int(x) for x in re.findall(r"\d+", p)],
    )
    return sorted(Path(dirs[-1]).glob("__clang_hip_*.h")) if dirs else []


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter" / "check-mappings"


def _cached(key_parts: list[str], build):
    key = hashlib.sha256("\0".join(key_parts).encode()).hexdigest()[:24]
    path = _cache_dir() / f"{key}.pickle"
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError):
        pass
    value = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home only costs time
    return value


# Debian packages of scripts/setup-rocm.sh that a prefix may lack (a suite without them): the
# rows of these areas / include folders say nothing about a prefix without the package
AREA_PACKAGE = {"wmma": "librocwmma-dev", "nvtx": "libroctx-dev"}
DIR_PACKAGE = {"rocwmma": "librocwmma-dev", "roctracer": "libroctx-dev"}


@dataclass
class HeaderRelease:
    """What one unpacked ROCm prefix declares: identifiers and include paths."""

    release: Version
    usr: Path
    names: frozenset[str] = frozenset()
    packages: str = ""

    def has_path(self, rel: str, directory: bool = False) -> bool:
        p = self.usr / "include" / rel
        return p.is_dir() if directory else p.is_file()


# the NVIDIA back ends that ROCm's libraries ship (used when building for CUDA): they name CUDA
# API, which HIP does not declare
NVIDIA_BACKENDS = re.compile(
    r"^(hip/nvidia_detail/|thrust/system/cuda/|hipcub/backend/cub/|"
    r"hiprand/hiprand_\w*nvcc\.h$|hipfft/hipfft\w*nvcc|"
    r"hipsolver/internal/nvidia|hipblaslt/.*nvidia)"
)


def rocm_header_files(usr: Path) -> list[Path]:
    inc = usr / "include"
    return [
        p for p in header_files(inc) if not NVIDIA_BACKENDS.match(p.relative_to(inc).as_posix())
    ]


def load_header_release(release: str) -> HeaderRelease:
    usr = rocm_prefix(release)
    if not (usr / "include" / "hip" / "hip_runtime.h").is_file():
        raise FileNotFoundError(
            f"ROCm {release} headers not found under {usr.parent} (run scripts/setup-rocm.sh)"
        )
    versions = usr.parent / "versions.txt"
    packages = versions.read_text() if versions.is_file() else ""
    clang = clang_hip_headers()
    stamp = [str(usr), packages] + [f"{p}:{p.stat().st_mtime_ns}" for p in clang]

    def build() -> frozenset[str]:
        return frozenset(header_identifiers(rocm_header_files(usr) + clang))

    names = _cached(["rocm-headers-2", *stamp], build)
    return HeaderRelease(vkey(release), usr, names, packages)


# -- CUDA ----------------------------------------------------------------------------------------
def cuda_library_lists() -> set[str]:
    """The names NVIDIA's CUDA 13 library wheels declare (cuBLAS, cuFFT, cuRAND, cuSPARSE,
    cuSOLVER, cuDNN, cuTENSOR, NCCL, NVRTC, NVTX), as committed lists."""
    out: set[str] = set()
    for folder in ("cuda_library_names", "cuda_library_names_other"):
        for f in sorted((DATA / folder).glob("*.txt")):
            for line in f.read_text(encoding="utf-8").splitlines():
                if line and not line.startswith("#"):
                    out.add(line.split("\t", 1)[0])
    return out


@dataclass
class CudaNames:
    """Names and include paths of the checked CUDA releases."""

    current: Version
    names: frozenset[str]  # declared by the current release
    include: Path
    older: dict[str, set[Version]] = field(default_factory=dict)  # gone from the current one

    lib_headers: tuple[str, ...] = ()  # glob patterns of the library wheels' headers

    def has_path(self, rel: str) -> bool:
        if any(fnmatch.fnmatch(rel, p) for p in self.lib_headers):
            return True
        return (self.include / rel).exists() or (self.include / "cccl" / rel).exists()


# not API: the parameters of the functions CUDA removed, and nvcc's registration glue (both
# name types CUDA no longer declares, e.g. `struct textureReference *`)
NOT_DECLARING = ("generated_cudart_removed_meta.h", "crt/host_runtime.h")
_LIB_HEADER = re.compile(r"(?:include/)?([\w*/]+\.h)\b")


def cuda_library_header_patterns() -> list[str]:
    """Include paths (glob patterns) of the CUDA 13 library wheels: those the first comment lines
    of the committed name lists record ("names declared by cublas.h, ..."), and the list of the
    headers_only wheels of the lock."""
    listed = DATA / "api" / "cuda_library_headers.txt"
    out: list[str] = (
        [
            line
            for line in listed.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")
        ]
        if listed.is_file()
        else []
    )
    for folder in ("cuda_library_names", "cuda_library_names_other"):
        for f in sorted((DATA / folder).glob("*.txt")):
            for line in f.read_text(encoding="utf-8").splitlines()[:3]:
                if line.startswith("#") and "extracted from" not in line:
                    out += [m for m in _LIB_HEADER.findall(line) if not m.startswith("/")]
    return out


def cuda_header_files() -> list[Path]:
    """The toolkit's headers, libcu++'s extension-less ones (<cuda/pipeline>) included."""
    files = [
        p
        for p in header_files(CUDA_INCLUDE)
        if p.relative_to(CUDA_INCLUDE).as_posix() not in NOT_DECLARING
    ]
    for sub in ("cccl/cuda", "cccl/nv"):
        files += sorted(p for p in (CUDA_INCLUDE / sub).rglob("*") if p.is_file() and not p.suffix)
    return files


def load_cuda(lock: Lock) -> CudaNames:
    if not (CUDA_INCLUDE / "cuda_runtime_api.h").is_file():
        raise FileNotFoundError(f"CUDA headers not found in {CUDA_INCLUDE}")
    files = cuda_header_files()
    stamp = [str(CUDA_INCLUDE), str(len(files))] + [
        f"{p}:{p.stat().st_mtime_ns}" for p in files[:: max(1, len(files) // 50)]
    ]
    names = _cached(["cuda-headers", *stamp], lambda: frozenset(header_identifiers(files)))
    older_file = DATA / "api" / "cuda_older.tsv"
    older = read_release_table(older_file) if older_file.is_file() else {}
    return CudaNames(
        vkey(lock.raw["cuda"]["release"]),
        names | frozenset(cuda_library_lists()),
        CUDA_INCLUDE,
        older,
        tuple(cuda_library_header_patterns()),
    )


# -- refreshing the committed lists from the pinned wheels ----------------------------------------
def cached_wheel(entry: dict, cache: Path = WHEEL_CACHE) -> Path | None:
    """The pinned wheel in *cache* with the locked sha256, if it is there (nothing fetched)."""
    name, _, version = entry["requirement"].partition("==")
    stem = name.replace("-", "_")
    for p in sorted(cache.glob(f"{stem}-{version}-*.whl")):
        if sha256_file(p) == entry["sha256"]:
            return p
    return None


def fetch_wheel(entry: dict, cache: Path = WHEEL_CACHE) -> Path:
    """pip download the pinned wheel (no dependencies) into *cache*; check its sha256."""
    cache.mkdir(parents=True, exist_ok=True)
    found = cached_wheel(entry, cache)
    if found is None:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--quiet",
            "--only-binary=:all:",
            "--python-version",
            "3.11",
            "--implementation",
            "cp",
            "--platform",
            "manylinux_2_28_x86_64",
            "--platform",
            "manylinux_2_17_x86_64",
            "--platform",
            "manylinux2014_x86_64",
            "-d",
            str(cache),
            entry["requirement"],
        ]
        if subprocess.run(cmd).returncode != 0:
            raise ValueError(f"{entry['requirement']}: pip download failed")
        found = cached_wheel(entry, cache)
    if found is None:
        raise ValueError(
            f"{entry['requirement']}: no wheel with the locked sha256 {entry['sha256'][:16]}..."
        )
    return found


def wheel_members(wheel: Path, patterns: list[str]) -> dict[str, str]:
    out = {}
    with zipfile.ZipFile(wheel) as z:
        for n in z.namelist():
            if any(fnmatch.fnmatch(n, p) for p in patterns):
                out[n] = z.read(n).decode("utf-8", errors="replace")
    return out


def header_paths(members: dict[str, str]) -> set[str]:
    """Include paths (relative to the wheel's include/ folder) as `<path>` entries."""
    out = set()
    for n in members:
        _, sep, rel = n.partition("/include/")
        if sep:
            out.add(f"<{rel}>")
    return out


def rebuild_lists(lock: Lock, cache: Path) -> dict[str, str]:
    """Rebuild scripts/data/api/*.tsv from the pinned wheels; returns {file: new text}."""
    rocm: dict[str, set[Version]] = {}
    older: dict[str, set[Version]] = {}
    current = CudaNames(
        vkey(lock.raw["cuda"]["release"]),
        frozenset(),
        CUDA_INCLUDE,
        lib_headers=tuple(cuda_library_header_patterns()),
    )
    current_lib_paths = current.lib_headers
    cur_names = None
    lib_paths: set[str] = set()
    arity_wheels: list[Path] = []
    for entry in sorted(lock.wheels, key=lambda e: not e.get("headers_only")):
        wheel = fetch_wheel(entry, cache)
        if entry.get("arity"):
            arity_wheels.append(wheel)
        if entry.get("arity_only"):
            continue  # a -cu12 library wheel read for its parameter lists only
        members = wheel_members(wheel, entry["members"])
        rel = vkey(entry["release"])
        if entry.get("headers_only"):
            lib_paths |= {p[1:-1] for p in header_paths(members)}
            declared: set[str] = set()
            for text in members.values():
                declared |= identifiers(text)
            for rel_list in entry.get("verifies", []):
                names = {
                    ln.split("\t", 1)[0]
                    for ln in (ROOT / rel_list).read_text(encoding="utf-8").splitlines()
                    if ln and not ln.startswith("#")
                }
                paths = {h[1:-1] for h in header_paths(members)}
                missing = sorted(
                    n for n in names if n not in (paths if n.endswith((".h", ".hpp")) else declared)
                )
                if missing:
                    raise ValueError(
                        f"{rel_list}: {len(missing)} names the headers of "
                        f"{entry['requirement']} do not declare: "
                        f"{', '.join(missing[:10])}"
                    )
            continue
        if entry["side"] == "rocm":
            for text in members.values():
                for n in pxd_names(text):
                    rocm.setdefault(n, set()).add(rel)
        else:
            if cur_names is None:
                cur_names = load_cuda(lock).names
                current.lib_headers = current_lib_paths + tuple(sorted(lib_paths))
            names: set[str] = set()
            for text in members.values():
                names |= identifiers(text)
            for n in names - cur_names:
                older.setdefault(n, set()).add(rel)
            for p in header_paths(members):
                if not current.has_path(p[1:-1]):
                    older.setdefault(p, set()).add(rel)
    out = {}
    tmp = Path(tempfile.mkdtemp())
    rocm_file, older_file = tmp / "rocm_bindings.tsv", tmp / "cuda_older.tsv"
    write_release_table(
        rocm_file,
        [
            "name<TAB>ROCm releases whose HIP/library binding lists (.pxd) declare it",
            "made by scripts/check_mappings.py --refresh from the wheels of scripts/inputs.lock",
        ],
        rocm,
    )
    write_release_table(
        older_file,
        [
            "name or <include path><TAB>CUDA releases (of the -cu11/-cu12 wheels of "
            "scripts/inputs.lock) that declare it, for names CUDA "
            f"{lock.raw['cuda']['release']} ({CUDA_INCLUDE} and scripts/data/cuda_library_names*) "
            "no longer declares",
            "made by scripts/check_mappings.py --refresh",
        ],
        older,
    )
    out["scripts/data/api/cuda_library_headers.txt"] = "".join(
        ["# include paths of the CUDA 13 library wheels of scripts/inputs.lock (headers_only)\n"]
        + [f"{p}\n" for p in sorted(lib_paths)]
    )
    out["scripts/data/api/rocm_bindings.tsv"] = rocm_file.read_text()
    out["scripts/data/api/cuda_older.tsv"] = older_file.read_text()
    if arity_wheels:
        import roc_api

        out[ARITY_LIST] = roc_api.build_cuda_arity(sorted(arity_wheels, key=lambda p: p.name))
    return out
