"""Compile-check ported HIP code with a real HIP compiler.

No GPU is needed: the compiler emits full host and device objects for the requested AMD targets,
which is enough to catch what a port most often gets wrong (PTX inline assembly, unported or
misspelled API names, CUDA's 32-bit lane masks in ``_sync`` warp calls on HIP >= 6.2 ...).

Toolchains, in order of preference:

* ``clang++-22`` (Debian 12's LLVM 22) with a ROCm prefix unpacked by ``porter toolchain
  install`` / ``scripts/setup-rocm.sh`` (``/opt/porter-rocm/7.2`` by default);
* a real ROCm install (``/opt/rocm``): its ``amdclang++`` or ``hipcc``.

``--rocm-path DIR`` (the API's *rocm*) names the ROCm tree, ``--compiler PATH`` the compiler
(``PORTER_ROCM_PREFIX`` and ``PORTER_HIP_CLANG`` are the environment's defaults for them).

verify compiles what the user's build compiles: it adds nothing to the source. When a file fails
and a known header gap explains it (rocThrust/rocPRIM headers that use ``memcpy`` without
``<cstring>``; ROCm 6.x's opt-in ``_sync`` warp builtins), the file is compiled again with the
missing piece, and reported as "compiles only with X added" (still a failure). The only flags
added beyond the ROCm paths are ``-D__HIP_PLATFORM_AMD__=1`` (hipcc and CMake's hip::host
define it) and, for ROCm 6.x headers with clang >= 22, ``__AMDGCN_WAVEFRONT_SIZE`` (a macro
older clangs predefined and ROCm 6.x's headers still read).

Public API (the CLI's ``porter verify`` is a thin wrapper around ``main_verify``):

* :func:`discover` -> :class:`Toolchain` (raises :class:`ToolchainNotFound` with a one-line reason);
* :func:`compile_file` -> :class:`CompileResult` for one translation unit;
* :func:`verify_tree` -> ``list[CompileResult]`` for every translation unit of a tree, in parallel;
* :func:`main_verify` takes an ``argparse.Namespace``-like object and returns an exit code.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_ARCHS",
    "TU_SUFFIXES",
    "CompileResult",
    "Toolchain",
    "ToolchainNotFound",
    "compile_file",
    "discover",
    "find_rocm",
    "hip_version",
    "main_verify",
    "parse_archs",
    "translation_units",
    "verify_tree",
]

DEFAULT_ARCHS: tuple[str, ...] = ("gfx942",)
#: Suffixes of the translation units that verify_tree compiles (headers are checked through them).
TU_SUFFIXES: frozenset[str] = frozenset({".hip", ".cu", ".cpp", ".cc", ".cxx"})
#: Folders never entered when looking for translation units.
_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", "CMakeFiles"})
_ROCM_CANDIDATES = ("/opt/porter-rocm/7.2", "/opt/rocm")
_CLANG_MAJOR = 22
_TAIL_LINES = 40
_TAIL_CHARS = 4000


class ToolchainNotFound(RuntimeError):
    """No usable HIP compiler or ROCm headers; the message is one line saying what is missing."""


@dataclass(frozen=True)
class CompileResult:
    """Outcome of compiling one translation unit for the requested targets.

    ``stderr_tail`` holds the part of the compiler's output worth showing: on failure it starts
    at the first ``error:`` line, otherwise it is the last lines (warnings). It is capped at
    about 40 lines.
    """

    path: Path
    ok: bool
    returncode: int
    stderr_tail: str
    seconds: float
    command: tuple[str, ...] = field(default=(), repr=False, compare=False)
    #: ``file:line:col`` in the project's own code nearest to the first error (the error itself,
    #: or the instantiation note pointing into the project when the error sits in a ROCm header).
    location: str = ""
    #: why the file was not compiled ("empty file"), or "" when it was
    skipped: str = ""
    #: the flag that makes a failing file compile ("-include cstring"), when one does
    only_with: str = ""
    #: (target, status) per --offload-arch target, status as :attr:`status`; a file that fails
    #: for several targets is compiled once per target to tell which fail
    per_target: tuple[tuple[str, str], ...] = ()

    @property
    def status(self) -> str:
        """compiled | failed | skipped | assisted ("compiles only with X added")."""
        if self.skipped:
            return "skipped"
        if self.ok:
            return "compiled"
        return "assisted" if self.only_with else "failed"

    @property
    def summary(self) -> str:
        """One line: what happened to this file."""
        if self.skipped:
            return f"skipped: {self.skipped}"
        if self.ok:
            return "compiled"
        if self.only_with:
            return f"compiles only with {self.only_with} added: {self.first_error}"
        return f"failed: {self.first_error or f'exit code {self.returncode}'}"

    @property
    def first_error(self) -> str:
        """The first ``error:`` line of the compiler's output, or '' when there is none."""
        for line in self.stderr_tail.splitlines():
            if _is_error(line):
                return line.strip()
        return ""


@dataclass(frozen=True)
class Toolchain:
    """A HIP compiler plus the ROCm tree it compiles against."""

    compiler: Path
    kind: str  # "clang" (plain LLVM clang with a ROCm prefix), "amdclang" or "hipcc"
    rocm: Path  # the folder holding include/hip (a prefix's usr/, or /opt/rocm)
    device_lib_path: Path | None
    version: tuple[int, int, int]
    #: HIP 6.x headers: the _sync warp builtins are opt-in (HIP_ENABLE_WARP_SYNC_BUILTINS).
    warp_sync_opt_in: bool = False
    #: HIP 6.x headers read __AMDGCN_WAVEFRONT_SIZE, which clang >= 22 no longer predefines.
    needs_wave_define: bool = False

    @property
    def version_str(self) -> str:
        return ".".join(str(v) for v in self.version)

    def base_flags(self) -> list[str]:
        """Flags common to every compile: language, ROCm location, header search order."""
        flags = ["-x", "hip", "-std=c++17"]
        if self.kind != "hipcc":
            flags.append(f"--rocm-path={self.rocm}")
            if self.device_lib_path is not None:
                flags.append(f"--hip-device-lib-path={self.device_lib_path}")
        # -isystem first: a machine with Debian's own HIP 5.2 in /usr/include would otherwise
        # silently compile against those headers.
        flags += ["-isystem", str(self.rocm / "include")]
        # what hipcc and CMake's hip::host define for an AMD build: dual-vendor headers test it
        # before any HIP header is included
        flags.append("-D__HIP_PLATFORM_AMD__=1")
        if self.needs_wave_define:
            flags += ["-Xarch_host", "-D__AMDGCN_WAVEFRONT_SIZE=64"]
        return flags

    def arch_flags(self, archs: Iterable[str]) -> list[str]:
        """--offload-arch per target (plus the per-target wave size macro for HIP 6.x)."""
        flags: list[str] = []
        for arch in archs:
            flags.append(f"--offload-arch={arch}")
            if self.needs_wave_define:
                wave = 32 if re.match(r"gfx1\d", arch.split(":")[0]) else 64
                flags += [f"-Xarch_{arch.split(':')[0]}", f"-D__AMDGCN_WAVEFRONT_SIZE={wave}"]
        return flags

    def describe(self) -> str:
        return f"{self.compiler} (HIP {self.version_str} headers in {self.rocm})"


# ------------------------------------------------------------------------------------------------
# discovery


def _rocm_root(candidate: Path) -> Path | None:
    """Accept a setup-rocm prefix (``X`` with ``X/usr/include/hip``) or a ROCm tree
    (``X/include/hip``)."""
    for root in (candidate / "usr", candidate):
        if (root / "include" / "hip" / "hip_runtime.h").is_file():
            return root
    return None


def find_rocm(rocm: str | os.PathLike[str] | None = None) -> Path:
    """The ROCm tree to compile against: *rocm*, else ``PORTER_ROCM_PREFIX``,
    ``/opt/porter-rocm/7.2``, ``/opt/rocm``. Returns the folder that holds ``include/hip``."""
    if rocm is not None:
        candidates = [str(rocm)]
    elif os.environ.get("PORTER_ROCM_PREFIX"):
        candidates = [os.environ["PORTER_ROCM_PREFIX"]]
    else:
        candidates = list(_ROCM_CANDIDATES)
    for cand in candidates:
        root = _rocm_root(Path(cand))
        if root is not None:
            return root.absolute()
    raise ToolchainNotFound(
        f"no ROCm headers (include/hip/hip_runtime.h) under {', '.join(candidates)}; "
        "install a ROCm (or run `porter toolchain install --prefix DIR`) and pass --rocm-path DIR"
    )


def hip_version(rocm: Path) -> tuple[int, int, int]:
    """(major, minor, patch) from ``include/hip/hip_version.h``."""
    text = (rocm / "include" / "hip" / "hip_version.h").read_text(errors="replace")
    parts = []
    for name in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"^#define\s+HIP_VERSION_{name}\s+(\d+)", text, re.M)
        if m is None:
            raise ToolchainNotFound(f"{rocm}/include/hip/hip_version.h has no HIP_VERSION_{name}")
        parts.append(int(m.group(1)))
    return parts[0], parts[1], parts[2]


def _llvm_major(path: Path) -> int:
    for part in path.parts:
        m = re.fullmatch(r"llvm-(\d+)", part)
        if m:
            return int(m.group(1))
    return 0


def _device_lib_path(rocm: Path, clang_major: int | None) -> Path | None:
    """The amdgcn bitcode folder (ocml.bc, ockl.bc ...). Debian puts it under
    ``lib/llvm-N/lib/clang/N/amdgcn/bitcode``; ROCm under ``amdgcn/bitcode`` or ``lib/llvm/...``.
    A clang reads bitcode of its own LLVM major or older, so newer ones are skipped."""
    found: list[Path] = []
    for pattern in (
        "lib/llvm-*/lib/clang/*/amdgcn/bitcode",
        "amdgcn/bitcode",
        "lib/llvm/lib/clang/*/lib/amdgcn/bitcode",
        "llvm/lib/clang/*/lib/amdgcn/bitcode",
    ):
        found += [p for p in rocm.glob(pattern) if (p / "ocml.bc").is_file()]
    if clang_major is not None:
        usable = [p for p in found if _llvm_major(p) <= clang_major]
        found = usable or found
    if not found:
        return None
    return max(found, key=lambda p: (_llvm_major(p), str(p)))


def _clang_major(compiler: str) -> int | None:
    m = re.search(r"clang\+\+-(\d+)$", compiler)
    if m:
        return int(m.group(1))
    try:
        out = subprocess.run(
            [compiler, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"clang version (\d+)", out)
    return int(m.group(1)) if m else None


def _header_has(rocm: Path, rel: str, needle: str) -> bool:
    try:
        return needle in (rocm / "include" / rel).read_text(errors="replace")
    except OSError:
        return False


def _find_compiler(rocm: Path, compiler: str | None = None) -> tuple[str, str]:
    explicit = compiler or os.environ.get("PORTER_HIP_CLANG")
    if explicit:
        exe = shutil.which(explicit) or (explicit if os.access(explicit, os.X_OK) else None)
        if exe is None:
            raise ToolchainNotFound(f"compiler {explicit} is not an executable (--compiler)")
        name = Path(exe).name
        return exe, (
            "hipcc" if name.startswith("hipcc") else "amdclang" if "amdclang" in name else "clang"
        )
    # A real ROCm install brings its own compiler.
    for rel, kind in (
        ("llvm/bin/amdclang++", "amdclang"),
        ("bin/amdclang++", "amdclang"),
        ("bin/hipcc", "hipcc"),
    ):
        path = rocm / rel
        if path.is_file() and os.access(path, os.X_OK):
            return str(path), kind
    for name, kind in (
        (f"clang++-{_CLANG_MAJOR}", "clang"),
        ("amdclang++", "amdclang"),
        ("hipcc", "hipcc"),
    ):
        exe = shutil.which(name)
        if exe:
            return exe, kind
    raise ToolchainNotFound(
        f"no HIP compiler found (clang++-{_CLANG_MAJOR}, amdclang++ or hipcc); "
        "install clang-22 (`porter toolchain install` does it on Debian 12) or pass "
        "--compiler PATH"
    )


@cache
def _discover_cached(
    rocm_arg: str | None, env_key: tuple[str, str], compiler_arg: str | None = None
) -> Toolchain:
    rocm = find_rocm(rocm_arg)
    compiler, kind = _find_compiler(rocm, compiler_arg)
    major = _clang_major(compiler) if kind != "hipcc" else None
    dev = _device_lib_path(rocm, major)
    if dev is None and kind == "clang":
        raise ToolchainNotFound(
            f"no amdgcn device bitcode (ocml.bc) under {rocm}; install the "
            "device libraries (`porter toolchain install --prefix DIR`)"
        )
    return Toolchain(
        compiler=Path(compiler),
        kind=kind,
        rocm=rocm,
        device_lib_path=dev,
        version=hip_version(rocm),
        warp_sync_opt_in=_header_has(
            rocm, "hip/amd_detail/amd_warp_sync_functions.h", "ifdef HIP_ENABLE_WARP_SYNC_BUILTINS"
        ),
        needs_wave_define=_header_has(
            rocm, "hip/amd_detail/amd_warp_functions.h", "= __AMDGCN_WAVEFRONT_SIZE;"
        ),
    )


def discover(
    rocm: str | os.PathLike[str] | None = None, compiler: str | os.PathLike[str] | None = None
) -> Toolchain:
    """Find the compiler and ROCm headers (cached per argument and environment). *rocm* is
    ``--rocm-path``, *compiler* ``--compiler``.

    Raises :class:`ToolchainNotFound` with a one-line message when something is missing."""
    env_key = (os.environ.get("PORTER_ROCM_PREFIX", ""), os.environ.get("PORTER_HIP_CLANG", ""))
    return _discover_cached(
        None if rocm is None else str(rocm), env_key, None if compiler is None else str(compiler)
    )


def _toolchain(rocm: Toolchain | str | os.PathLike[str] | None) -> Toolchain:
    return rocm if isinstance(rocm, Toolchain) else discover(rocm)


def parse_archs(value: str | Sequence[str] | None) -> list[str]:
    """``"gfx942,gfx90a"`` or ``["gfx942", "gfx90a"]`` -> ``["gfx942", "gfx90a"]``
    (duplicates dropped)."""
    from .analysis.targets import split_archs  # the one --offload-arch parser

    if value is None:
        return list(DEFAULT_ARCHS)
    return split_archs(value) or list(DEFAULT_ARCHS)


# ------------------------------------------------------------------------------------------------
# compiling


_ERROR_LINE = re.compile(r"^(?:[^:\s][^:]*:\d+:\d+: )?(?:fatal error|error): ")


def _is_error(line: str) -> bool:
    """A compiler error diagnostic, not a source line the compiler echoes (which may well contain
    the text `error:` inside a printf format)."""
    return _ERROR_LINE.match(line) is not None


def _relevant_output(stderr: str, failed: bool) -> str:
    lines = stderr.splitlines()
    if failed:
        for i, line in enumerate(lines):
            if _is_error(line):
                lines = lines[i:]
                break
        text = "\n".join(lines[:_TAIL_LINES])
        return text[:_TAIL_CHARS]
    text = "\n".join(lines[-_TAIL_LINES:])
    return text[-_TAIL_CHARS:]


_DIAG = re.compile(
    r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<sev>fatal "
    r"error|error|note|warning):"
)


def _user_location(stderr: str, rocm: Path) -> str:
    """The first diagnostic location at or after the first error that is not inside *rocm*."""
    seen_error = False
    rocm_s = str(rocm)
    for line in stderr.splitlines():
        if not seen_error:
            seen_error = _is_error(line)
            if not seen_error:
                continue
        m = _DIAG.match(line)
        if m and not m["file"].startswith(rocm_s) and not m["file"].startswith("/usr/"):
            return f"{m['file']}:{m['line']}:{m['col']}"
    return ""


def _assists(tc: Toolchain, source: Path, stderr: str) -> list[tuple[str, list[str]]]:
    """Flags that a known header gap would need, for a file that failed: (label, flags).
    verify never adds them silently; a file that compiles only with one is reported so."""
    out: list[tuple[str, list[str]]] = []
    try:
        head = source.read_bytes()[:200_000]
    except OSError:
        head = b""
    # rocThrust/rocPRIM use memcpy without including <cstring> in some versions (PT808)
    if re.search(rb"#\s*include\s*[<\"](thrust|hipcub|rocprim|cub)/", head) and (
        "memcpy" in stderr or "memset" in stderr
    ):
        out.append(("-include cstring", ["-include", "cstring"]))
    # HIP 6.x: the _sync warp builtins exist only with HIP_ENABLE_WARP_SYNC_BUILTINS
    if tc.warp_sync_opt_in and re.search(r"_sync'|__activemask|__syncwarp", stderr):
        out.append(("-DHIP_ENABLE_WARP_SYNC_BUILTINS", ["-DHIP_ENABLE_WARP_SYNC_BUILTINS"]))
    return out


def _is_empty(source: Path) -> bool:
    """No code at all: only blanks and comments (a file that compiles to nothing proves nothing)."""
    try:
        text = source.read_bytes()
    except OSError:
        return False
    text = re.sub(rb"/\*.*?\*/", b"", text, flags=re.S)
    text = re.sub(rb"//[^\n]*", b"", text)
    return not text.strip()


def compile_file(
    path: str | os.PathLike[str],
    offload_archs: str | Sequence[str] = DEFAULT_ARCHS,
    rocm: Toolchain | str | os.PathLike[str] | None = None,
    extra_flags: Sequence[str] = (),
    *,
    include_dirs: Sequence[str | os.PathLike[str]] = (),
    timeout: float = 600.0,
) -> CompileResult:
    """Compile one translation unit as HIP for every target in *offload_archs* (``-c`` into a
    temporary object that is thrown away).

    *rocm* is a :class:`Toolchain`, a ROCm prefix (``setup-rocm.sh`` layout or a ROCm install),
    or None to discover one. Object emission matters: inline PTX passes ``-fsyntax-only`` and
    only fails when device code is generated. Raises :class:`ToolchainNotFound`.
    """
    tc = _toolchain(rocm)
    src = Path(path)
    archs = parse_archs(offload_archs)
    if _is_empty(src):
        why = "empty file (no code to compile)"
        return CompileResult(
            src, False, 0, "", 0.0, skipped=why, per_target=tuple((a, "skipped") for a in archs)
        )
    res = _assisted(tc, src, archs, list(extra_flags), include_dirs, timeout)
    if res.ok or len(archs) < 2:
        return replace(res, per_target=tuple((a, res.status) for a in archs))
    # one compile for all targets failed: which targets fail? (a host-side error fails all)
    each = [_assisted(tc, src, [a], list(extra_flags), include_dirs, timeout) for a in archs]
    statuses = [r.status for r in each]
    if all(st == "compiled" for st in statuses):  # fails only together: blame every target
        statuses = [res.status] * len(archs)
    return replace(
        res,
        seconds=res.seconds + sum(r.seconds for r in each),
        per_target=tuple(zip(archs, statuses)),
    )


def _assisted(
    tc: Toolchain,
    src: Path,
    archs: list[str],
    extra_flags: list[str],
    include_dirs: Sequence[str | os.PathLike[str]],
    timeout: float,
) -> CompileResult:
    """One compile for *archs*; when it fails and a known header gap explains it, the same
    compile with the missing piece, to report "compiles only with X added"."""
    res = _compile(tc, src, archs, extra_flags, include_dirs, timeout)
    if res.ok:
        return res
    for label, flags in _assists(tc, src, res.stderr_tail):
        again = _compile(tc, src, archs, extra_flags + flags, include_dirs, timeout)
        if again.ok:
            return replace(res, only_with=label)
    return res


def _compile(
    tc: Toolchain,
    src: Path,
    archs: list[str],
    extra_flags: list[str],
    include_dirs: Sequence[str | os.PathLike[str]],
    timeout: float,
) -> CompileResult:
    with tempfile.TemporaryDirectory(prefix="porter-verify-") as tmp:
        cmd = [str(tc.compiler), *tc.base_flags(), *tc.arch_flags(archs)]
        for inc in include_dirs:
            cmd += ["-I", str(inc)]
        cmd += [*extra_flags, "-c", str(src), "-o", str(Path(tmp) / "out.o")]
        env = dict(os.environ)
        if tc.kind == "hipcc":
            env.setdefault("HIP_PLATFORM", "amd")  # a machine with nvcc would pick NVIDIA otherwise
            env.setdefault("ROCM_PATH", str(tc.rocm))
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                env=env,
                stdin=subprocess.DEVNULL,
            )
            rc, err = proc.returncode, proc.stderr
        except subprocess.TimeoutExpired:
            rc, err = -1, f"error: compiler timed out after {timeout:.0f} s"
        except OSError as exc:
            rc, err = -1, f"error: cannot run {tc.compiler}: {exc}"
        seconds = time.perf_counter() - start
    ok = rc == 0
    where = "" if ok else _user_location(err, tc.rocm)
    return CompileResult(src, ok, rc, _relevant_output(err, not ok), seconds, tuple(cmd), where)


def translation_units(root: str | os.PathLike[str]) -> list[Path]:
    """Every .hip/.cu/.cpp/.cc/.cxx file under *root* (headers excluded), sorted; hidden folders,
    VCS folders and CMake build trees are skipped."""
    root = Path(root)
    if root.is_file():
        return [root]
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        if "CMakeCache.txt" in filenames:  # a build folder inside the tree
            dirnames[:] = []
            continue
        out += [Path(dirpath) / f for f in filenames if Path(f).suffix.lower() in TU_SUFFIXES]
    return sorted(out)


def verify_tree(
    root: str | os.PathLike[str],
    offload_archs: str | Sequence[str] = DEFAULT_ARCHS,
    jobs: int | None = None,
    rocm: Toolchain | str | os.PathLike[str] | None = None,
    extra_flags: Sequence[str] = (),
    *,
    include_dirs: Sequence[str | os.PathLike[str]] = (),
    units: Sequence[Path] | None = None,
    per_file_flags: Callable[[Path], list[str] | None] | None = None,
    on_result: Callable[[CompileResult], None] | None = None,
) -> list[CompileResult]:
    """Compile every translation unit of a ported tree (or *units*) for *offload_archs*, *jobs*
    at a time (default: the number of CPUs). Include paths: each unit's own folder, the tree
    root, its ``include/`` folder when there is one, then *include_dirs*. *per_file_flags* gives
    a unit's flags from the project's own build (compile_commands.json), replacing those include
    guesses; *on_result* is called as each file finishes. Results come back in path order."""
    tc = _toolchain(rocm)
    root = Path(root)
    base = root if root.is_dir() else root.parent
    units = list(units) if units is not None else translation_units(root)
    common = [base] + ([base / "include"] if (base / "include").is_dir() else [])
    common += [Path(d) for d in include_dirs]

    def one(tu: Path) -> CompileResult:
        own = per_file_flags(tu) if per_file_flags is not None else None
        if own is not None:
            return compile_file(
                tu, offload_archs, tc, [*own, *extra_flags], include_dirs=[tu.parent, *include_dirs]
            )
        incs = [tu.parent] + [d for d in common if d != tu.parent]
        return compile_file(tu, offload_archs, tc, extra_flags, include_dirs=incs)

    workers = max(1, jobs or os.cpu_count() or 1)
    results: dict[Path, CompileResult] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(one, tu): tu for tu in units}
        for fut in as_completed(futures):
            r = fut.result()
            results[futures[fut]] = r
            if on_result is not None:
                on_result(r)
    return [results[tu] for tu in units]


# ------------------------------------------------------------------------------------------------
# compile_commands.json

_KEEP_WITH_VALUE = ("-I", "-isystem", "-D", "-U", "-include", "-iquote", "-idirafter")


def load_compile_commands(path: str | os.PathLike[str]) -> dict[str, list[str]]:
    """``{absolute source path: flags}`` from a compile_commands.json (the include paths,
    macros, forced includes and language standard each file's own build uses). Raises
    ValueError with a one-line reason on a malformed file."""
    import json
    import shlex

    try:
        entries = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"--compile-commands {path}: {exc}") from None
    if not isinstance(entries, list):
        raise ValueError(f"--compile-commands {path}: not a JSON array of compile commands")
    out: dict[str, list[str]] = {}
    for e in entries:
        if not isinstance(e, dict) or "file" not in e:
            raise ValueError(f'--compile-commands {path}: an entry without "file"')
        directory = Path(e.get("directory", "."))
        args = e.get("arguments") or shlex.split(e.get("command", ""))
        flags: list[str] = []
        i = 1
        while i < len(args):
            a = args[i]
            opt = next((o for o in _KEEP_WITH_VALUE if a.startswith(o)), None)
            if opt is not None:
                val = a[len(opt) :]
                if not val and i + 1 < len(args):
                    i += 1
                    val = args[i]
                if opt in ("-I", "-isystem", "-iquote", "-idirafter") and not os.path.isabs(val):
                    val = str(directory / val)
                flags += [opt, val] if opt not in ("-D", "-U") else [opt + val]
            elif a.startswith("-std="):
                flags.append(a)
            i += 1
        f = Path(e["file"])
        out[str(f if f.is_absolute() else directory / f)] = flags
    return out


def flags_for(
    commands: dict[str, list[str]], unit: Path, root: Path, remap: tuple[Path, Path] | None = None
) -> list[str] | None:
    """The flags of *unit* from *commands*: the entry with the same path relative to *root*
    (a ported tree mirrors the original). *remap* (original root, ported root) moves include
    folders of the original project into the ported tree."""
    try:
        rel = unit.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        rel = unit.name
    for file, flags in commands.items():
        if file == str(unit) or Path(file).as_posix().endswith("/" + rel):
            if remap is None:
                return list(flags)
            src, dst = (str(p.resolve()) for p in remap)
            return [dst + f[len(src) :] if f.startswith(src) else f for f in flags]
    return None


# ------------------------------------------------------------------------------------------------
# CLI entry (argument parsing lives in porter/cli.py)


def _with_path(args, path) -> object:
    import copy

    one = copy.copy(args)
    one.path, one.paths = path, None
    return one


def main_verify(args) -> int:
    """Run ``porter verify`` from parsed arguments and print a per-file report, one line per
    file as it finishes (flushed, also into a pipe).

    Reads these attributes when present: ``path`` (or ``dir``, or ``paths``: ported trees or
    files), ``include`` (extra -I folders), ``defines``, ``offload_arch`` (``"gfx942,gfx90a"``
    or a list), ``jobs``, ``rocm_path`` (or ``rocm``), ``compiler``, ``compile_commands``,
    ``extra_flags`` (list), ``quiet`` (only failures), ``verbose`` (all of each failure's
    compiler output). Exit codes: 0 all compiled, 1 some unit failed or compiles only with a
    flag the build lacks, 2 no toolchain or bad arguments."""
    out, err = sys.stdout, sys.stderr
    targets: list[Any] = [getattr(args, "path", None) or getattr(args, "dir", None)]
    if targets[0] is None:
        targets = list(getattr(args, "paths", None) or [])
    if not targets:
        print("porter verify: no path given", file=err)
        return 2
    if len(targets) > 1:
        codes = [main_verify(_with_path(args, t)) for t in targets]
        return max(codes)
    target = Path(targets[0])
    if not target.exists():
        print(f"porter verify: {target} does not exist", file=err)
        return 2
    try:
        archs = parse_archs(getattr(args, "offload_arch", None))
        tc = discover(
            getattr(args, "rocm_path", None) or getattr(args, "rocm", None),
            getattr(args, "compiler", None),
        )
        cc_path = getattr(args, "compile_commands", None)
        commands = load_compile_commands(cc_path) if cc_path else None
    except (ToolchainNotFound, ValueError) as exc:
        print(f"porter verify: {exc}", file=err)
        return 2
    units = translation_units(target)
    if not units:
        print(
            f"porter verify: no translation units (.hip, .cu, .cpp, .cc, .cxx) under {target}",
            file=err,
        )
        return 2
    quiet = bool(getattr(args, "quiet", False))
    verbose = bool(getattr(args, "verbose", False))
    if not quiet:
        print(
            f"compiling {len(units)} file(s) for {', '.join(archs)} with {tc.describe()}",
            file=out,
            flush=True,
        )
    extra = list(getattr(args, "extra_flags", None) or ())
    extra += [f"-D{d}" for d in (getattr(args, "defines", None) or ())]
    base = target if target.is_dir() else target.parent

    def show(r: CompileResult) -> None:
        try:
            rel = r.path.relative_to(base)
        except ValueError:
            rel = r.path
        if r.status == "compiled":
            if not quiet:
                print(f"  ok    {rel}  ({r.seconds:.1f} s)", file=out, flush=True)
            return
        if r.status == "skipped":
            print(f"  SKIP  {rel}  ({r.skipped})", file=out, flush=True)
            return
        at = f"  [in {r.location}]" if r.location else ""
        label = f"  FAIL  {rel}{at}" + (
            f"  (compiles only with {r.only_with} added)" if r.only_with else ""
        )
        if len({st for _, st in r.per_target}) > 1:  # fails for some targets only
            label += "  [" + ", ".join(f"{t}: {st}" for t, st in r.per_target) + "]"
        lines = [label]
        detail = r.stderr_tail.splitlines() or [f"exit code {r.returncode}"]
        lines += [f"        {line}" for line in detail[: None if verbose else 6]]
        print("\n".join(lines), file=out, flush=True)

    per_file = (lambda tu: flags_for(commands, tu, base)) if commands is not None else None
    results = verify_tree(
        target,
        archs,
        getattr(args, "jobs", None) or None,
        tc,
        extra,
        include_dirs=list(getattr(args, "include", None) or ()),
        units=units,
        per_file_flags=per_file,
        on_result=show,
    )
    failed = [r for r in results if r.status in ("failed", "assisted")]
    skipped = [r for r in results if r.status == "skipped"]
    compiled = len(results) - len(failed) - len(skipped)
    total = sum(r.seconds for r in results)
    print(
        f"{compiled} compiled, {len(failed)} failed"
        + (f", {len(skipped)} skipped" if skipped else "")
        + f" ({', '.join(archs)}; HIP {tc.version_str}; {total:.1f} s of compiler time)",
        file=out,
        flush=True,
    )
    return 1 if failed else 0


# ------------------------------------------------------------------------------------------------
# porter port --verify: typed per-file results for the reports

#: error lines of a failed file kept for the reports; diagnostics mapped back per file
FIRST_ERRORS = 3
_MAX_DIAGNOSTICS = 8


@dataclass
class Diagnostic:
    """One compiler diagnostic of a ported file, with where it came from in the original."""

    severity: str  # error | warning | note
    message: str
    ported: str  # display path:line:col in the ported tree
    source: str = ""  # display path:line:col in the original ("" when not mapped)
    changed: bool = False  # the ported line is one porter changed
    added: bool = False  # a line porter added (no original line)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "severity": self.severity,
            "message": self.message,
            "ported": self.ported,
        }
        if self.source:
            d["source"] = self.source
        d["changed"] = self.changed
        if self.added:
            d["added"] = True
        return d

    def where(self) -> str:
        """Both locations: `out/a.cu:4:9 (from src/a.cu:3:9, changed by porter)`."""
        if self.added:
            return f"{self.ported} (a line porter added)"
        if not self.source:
            return self.ported
        return f"{self.ported} (from {self.source}{', changed by porter' if self.changed else ''})"


SHOWN_ERRORS = 3  # errors per failed unit shown in the reports


@dataclass
class UnitVerify:
    """One ported translation unit's compile result, per target."""

    path: str  # the ported file (display path)
    source: str  # the original file (its report path)
    status: str  # compiled | failed | assisted | skipped
    targets: dict[str, str]  # target -> compiled | failed | assisted | skipped
    errors: list[str] = field(default_factory=list)  # the first error lines
    diagnostics: list[Diagnostic] = field(default_factory=list)
    only_with: str = ""  # assisted: the flag the build lacks
    skipped: str = ""  # skipped: why
    seconds: float = 0.0

    @property
    def shown_errors(self) -> list[Diagnostic]:
        """The error diagnostics every report format shows for this unit (the first few);
        empty when none could be parsed, and the formats fall back to the raw `errors` lines."""
        return [d for d in self.diagnostics if d.severity == "error"][:SHOWN_ERRORS]

    @property
    def summary(self) -> str:
        """One line: compiled | failed: ... | compiles only with X added: ... | skipped: why."""
        if self.status == "skipped":
            return f"skipped: {self.skipped}"
        if self.status == "compiled":
            return "compiled"
        first = self.errors[0] if self.errors else ""
        if self.status == "assisted":
            return f"compiles only with {self.only_with} added" + (f": {first}" if first else "")
        return "failed" + (f": {first}" if first else "")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "path": self.path,
            "source": self.source,
            "status": self.status,
            "targets": dict(self.targets),
            "errors": list(self.errors),
            "diagnostics": [g.to_dict() for g in self.diagnostics],
            "seconds": round(self.seconds, 3),
        }
        if self.only_with:
            d["only_with"] = self.only_with
        if self.skipped:
            d["skipped"] = self.skipped
        return d


@dataclass
class VerifyReport:
    """What `porter port --verify` compiled: the toolchain, the targets and one entry per unit
    (RunReport.verify; every report format renders it)."""

    targets: list[str]
    compiler: str
    hip_version: str
    rocm: str
    units: list[UnitVerify] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        c = {"units": len(self.units), "compiled": 0, "failed": 0, "assisted": 0, "skipped": 0}
        for u in self.units:
            c[u.status] += 1
        return c

    @property
    def failed(self) -> bool:
        """A unit failed, or compiles only with a flag its build lacks (exit code 1)."""
        return any(u.status in ("failed", "assisted") for u in self.units)

    def summary_line(self) -> str:
        c = self.counts()
        parts = [f"{c['compiled']} compiled", f"{c['failed']} failed"]
        if c["assisted"]:
            parts.append(f"{c['assisted']} compile only with a flag added")
        if c["skipped"]:
            parts.append(f"{c['skipped']} skipped")
        return (
            f"compile check: {', '.join(parts)} of {c['units']} translation unit"
            f"{'' if c['units'] == 1 else 's'} ({', '.join(self.targets)}; "
            f"HIP {self.hip_version})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "targets": list(self.targets),
            "toolchain": {
                "compiler": self.compiler,
                "hip_version": self.hip_version,
                "rocm": self.rocm,
            },
            "counts": self.counts(),
            "units": [u.to_dict() for u in self.units],
        }


class LineMap:
    """Ported line -> original line of one file, from the edits the port applied (exact), or
    from a line diff of the two texts when the edits do not reproduce the ported text."""

    def __init__(self, old: bytes, new: bytes, edits: Sequence[Any] = ()) -> None:
        self.old, self.new = old, new
        self._old_starts = _line_starts(old)
        self._new_starts = _line_starts(new)
        # (new_start, new_end, old_start, old_end, changed) covering the ported text in order
        self.segments: list[tuple[int, int, int, int, bool]] | None = None
        if edits:
            self.segments = self._from_edits(old, new, edits)

    @staticmethod
    def _from_edits(
        old: bytes, new: bytes, edits: Sequence[Any]
    ) -> list[tuple[int, int, int, int, bool]] | None:
        from .rewrite.edits import apply

        try:
            if apply(old, list(edits)) != new:
                return None
        except ValueError:
            return None
        order = sorted(range(len(edits)), key=lambda k: (edits[k].start, edits[k].end, k))
        segs: list[tuple[int, int, int, int, bool]] = []
        pos_old = pos_new = 0
        for k in order:
            e = edits[k]
            if e.start > pos_old:
                n = e.start - pos_old
                segs.append((pos_new, pos_new + n, pos_old, e.start, False))
                pos_new += n
            segs.append((pos_new, pos_new + len(e.text), e.start, e.end, True))
            pos_new += len(e.text)
            pos_old = max(pos_old, e.end)
        if pos_old < len(old):
            segs.append((pos_new, pos_new + len(old) - pos_old, pos_old, len(old), False))
        return segs

    def original(self, line: int, col: int = 1) -> tuple[int, int, bool] | None:
        """(original line, original column, changed by porter) of ported *line*:*col*
        (1-based), or None for a line porter added."""
        if self.segments is None:
            mapped = map_line(self.old, self.new, line)
            if mapped is None:
                return None
            return mapped[0], (1 if mapped[1] else col), mapped[1]
        if not 1 <= line <= len(self._new_starts):
            return None
        ls = self._new_starts[line - 1]
        le = self._new_starts[line] - 1 if line < len(self._new_starts) else len(self.new)
        p = min(ls + max(col, 1) - 1, le)
        end = le + 1 if le < len(self.new) else le  # the line with its newline
        changed = False
        for ns, ne, os_, oe, ch in self.segments:
            if not ch:
                continue
            if ns <= ls and end <= ne and os_ == oe:
                return None  # wholly inside inserted text: a line porter added
            if (ls <= ns <= le) if ns == ne else (ns < end and ne > ls):
                changed = True
        seg = next((sg for sg in self.segments if sg[0] <= p < sg[1]), None)
        if seg is None:
            old_off = len(self.old)
        elif seg[4]:
            old_off = seg[2]
        else:
            old_off = seg[2] + (p - seg[0])
        o_line = _line_of(self._old_starts, old_off)
        o_col = old_off - self._old_starts[o_line - 1] + 1
        return o_line, o_col, changed


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    i = data.find(b"\n")
    while i >= 0:
        starts.append(i + 1)
        i = data.find(b"\n", i + 1)
    if len(starts) > 1 and starts[-1] == len(data):
        starts.pop()
    return starts


def _line_of(starts: list[int], off: int) -> int:
    import bisect

    return max(1, bisect.bisect_right(starts, off))


def map_line(old: bytes, new: bytes, line: int) -> tuple[int, bool] | None:
    """The original line of ported line *line* (1-based) and whether porter changed it, from a
    line diff (difflib); None for a line porter added."""
    import difflib

    a = old.splitlines()
    b = new.splitlines()
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if j1 < line <= j2:
            if tag == "equal":
                return i1 + (line - j1), False
            if tag == "replace" and i2 > i1:
                return min(i1 + (line - j1), i2), True
            return None
    return None


def parse_diagnostics(text: str) -> list[tuple[str, int, int, str, str]]:
    """(file, line, column, severity, message) of each `file:line:col: severity: message` line
    of a compiler's output, in order."""
    out = []
    for line in text.splitlines():
        m = _DIAG.match(line)
        if m:
            sev = "error" if m["sev"].endswith("error") else m["sev"]
            out.append((m["file"], int(m["line"]), int(m["col"]), sev, line[m.end() :].strip()))
    return out


@dataclass
class _Ported:
    """A file this run ported: its report path and how to map its lines back."""

    rel: str
    original: Path | None  # where the original bytes are (the input, or the backup)
    edits: Sequence[Any]
    _map: LineMap | None = None
    _failed: bool = False

    def line_map(self, ported: Path) -> LineMap | None:
        if self._map is None and not self._failed:
            try:
                old = self.original.read_bytes() if self.original is not None else None
                new = ported.read_bytes()
            except OSError:
                old = None
            if old is None:
                self._failed = True
                return None
            self._map = LineMap(old, new, self.edits)
        return self._map


def _display(path: Path) -> str:
    from .source import display_path

    absolute = Path(os.path.abspath(path))
    try:  # relative to where porter ran, absolute outside it (as the report's paths)
        return display_path(str(absolute.relative_to(Path.cwd())))
    except ValueError:
        return display_path(str(absolute))


def _diagnostics(r: CompileResult, ported: dict[Path, _Ported], rocm: Path) -> list[Diagnostic]:
    """The compiler's diagnostics of a failed unit, each mapped back to the original file and
    line when it is in a file this run ported."""
    out: list[Diagnostic] = []
    for file, line, col, sev, msg in parse_diagnostics(r.stderr_tail):
        if len(out) >= _MAX_DIAGNOSTICS:
            break
        if file.startswith("<"):  # <inline asm>, <built-in>, <command line>
            continue
        fpath = Path(file)
        if not fpath.is_absolute():
            fpath = (r.path.parent / fpath) if not fpath.exists() else fpath
        info = ported.get(fpath.resolve())
        if info is None and (file.startswith(str(rocm)) or file.startswith("/usr/")):
            continue  # inside the ROCm headers: not the project's line
        loc = f"{_display(fpath)}:{line}:{col}"
        d = Diagnostic(sev, msg, loc)
        if info is not None:
            lm = info.line_map(fpath)
            if lm is not None:
                mapped = lm.original(line, col)
                if mapped is None:
                    d.added = True
                else:
                    d.source = f"{info.rel}:{mapped[0]}:{mapped[1]}"
                    d.changed = mapped[2]
        out.append(d)
    return out


def verify_port(args, plan, results, rule_codes: Iterable[str] | None = None) -> VerifyReport:
    """`porter port ... --verify`: compile the ported translation units the run wrote, for each
    --offload-arch target, and return their results (the reports render them). Each failure is
    also a PT907 finding at the original CUDA line the first error maps back to (else the
    file's first line), naming both locations; each file's note says its result. One line per
    file goes to standard error as it finishes (unless -q)."""
    from .findings import Finding, Severity

    if plan.mode not in ("tree", "file", "inplace"):
        raise ValueError("--verify needs files written: -o DIR, -o FILE or --in-place")
    archs = parse_archs(getattr(args, "offload_arch", None) or None)
    tc = discover(getattr(args, "rocm_path", None), getattr(args, "compiler", None))
    cc = getattr(args, "compile_commands", None)
    commands = load_compile_commands(cc) if cc else None
    units: dict[Path, tuple[Any, Any]] = {}  # ported file -> (plan job, port result)
    ported: dict[Path, _Ported] = {}  # every ported C++ file, for mapping lines
    not_compiled: list[UnitVerify] = []
    for job, res in zip(plan.jobs, results):
        if res.kind != "cuda" or not job.out:
            continue
        out = Path(job.out)
        is_tu = out.suffix.lower() in TU_SUFFIXES
        if res.status in ("error", "skipped"):
            if is_tu:
                why = res.note or res.status
                not_compiled.append(
                    UnitVerify(
                        _display(out),
                        res.rel,
                        "skipped",
                        {a: "skipped" for a in archs},
                        skipped=f"not ported ({why})",
                    )
                )
            continue
        original = (
            Path(job.backup)
            if plan.mode == "inplace" and job.backup
            else (None if plan.mode == "inplace" else Path(job.entry.path))
        )
        if plan.mode == "inplace" and res.status != "ported":
            original = out  # unchanged: the file is its own original
        ported[out.resolve()] = _Ported(res.rel, original, list(res.edits or ()))
        if is_tu:
            units[out] = (job, res)
    root = plan.out_root if plan.mode == "tree" else None
    base = Path(root) if root is not None else None
    src_root = plan.inputs[0] if plan.mode == "tree" else None
    quiet = bool(getattr(args, "quiet", False))
    report = VerifyReport(list(archs), str(tc.compiler), tc.version_str, str(tc.rocm))

    def per_file(tu: Path):
        if commands is None:
            return None
        if base is not None and src_root is not None:
            return flags_for(commands, tu, base, remap=(Path(src_root), base))
        return flags_for(commands, tu, tu.parent)

    def show(r: CompileResult) -> None:
        if not quiet:
            _, res = units[r.path]
            print(f"porter: verify: {res.rel}: {r.summary}", file=sys.stderr, flush=True)

    compiled: list[CompileResult] = []
    if units:
        compiled = verify_tree(
            base if base is not None else next(iter(units)).parent,
            archs,
            getattr(args, "jobs", None) or None,
            tc,
            units=list(units),
            per_file_flags=per_file if commands is not None else None,
            on_result=show,
            include_dirs=[base / "include"]
            if base is not None and (base / "include").is_dir()
            else [],
        )
    codes = None if rule_codes is None else set(rule_codes)  # --select / --ignore
    for r in compiled:
        _, res = units[r.path]
        targets = dict(r.per_target) or {a: r.status for a in archs}
        errors = [ln.strip() for ln in r.stderr_tail.splitlines() if _is_error(ln)][:FIRST_ERRORS]
        if r.status in ("failed", "assisted") and not errors:
            errors = [f"exit code {r.returncode}"]
        unit = UnitVerify(
            _display(r.path),
            res.rel,
            r.status,
            targets,
            errors,
            _diagnostics(r, ported, tc.rocm) if not r.ok else [],
            only_with=r.only_with,
            skipped=r.skipped,
            seconds=r.seconds,
        )
        report.units.append(unit)
        res.note = (
            f"verify: {unit.summary} ({', '.join(archs)}; HIP {tc.version_str})"
            if unit.status != "skipped"
            else f"verify: {unit.summary}"
        )
        if unit.status in ("failed", "assisted") and (codes is None or "PT907" in codes):
            res.findings.append(_failure_finding(unit, res.rel, archs, Finding, Severity))
    report.units += not_compiled
    report.units.sort(key=lambda u: u.path)
    return report  # also with no unit: the reports say 0 were compiled


def _failure_finding(unit: UnitVerify, rel: str, archs: Sequence[str], finding_cls, severity):
    """PT907 at the original line of the first error in this file (else line 1), naming the
    compiler's message and both locations."""
    failing = tuple(a for a in archs if unit.targets.get(a) in ("failed", "assisted"))
    line, col = 1, 1
    first = next((d for d in unit.diagnostics if d.severity == "error"), None)
    own = next((d for d in unit.diagnostics if d.source.startswith(rel + ":")), None)
    lead = (
        "does not compile"
        if unit.status == "failed"
        else f"compiles only with {unit.only_with} added"
    )
    lead += f" for {', '.join(failing or archs)}"
    if first is not None:
        msg = f"{lead}: {first.message}; at {first.where()}"
    else:
        msg = f"{lead}: {unit.errors[0] if unit.errors else 'no error message'}"
    if own is not None:
        _, ln, cl = own.source.rsplit(":", 2)
        line, col = int(ln), int(cl)
        if own is not first:
            msg += f"; in this file: {own.where()}: {own.severity}: {own.message}"
    f = finding_cls("PT907", severity.ERROR, msg, rel, line, col, targets=failing or tuple(archs))
    related = []
    for d in unit.diagnostics[:FIRST_ERRORS]:
        path, ln, cl = d.ported.rsplit(":", 2)
        related.append(
            {
                "path": path,
                "line": int(ln),
                "column": int(cl),
                "message": f"{d.severity}: {d.message} (the ported file)",
            }
        )
    f.extra["related"] = related  # SARIF relatedLocations: where the compiler saw it
    return f
