"""PT90x: build files (hazards.md section K). CMakeLists.txt, *.cmake, Makefiles, *.mk."""

from __future__ import annotations

from ..analysis.buildfiles import is_makefile
from ..analysis.lazyre import re
from ..findings import Severity
from .base import Rule
from .registry import register

_HIP_LANG = re.compile(
    rb"enable_language\s*\(\s*HIP\b|\bLANGUAGES\b[^)]*\bHIP\b|"
    rb"project\s*\([^)]*\bHIP\b|find_package\s*\(\s*hip\b|"
    rb"CMAKE_HIP_ARCHITECTURES|hip::device|hip::host|\bhipcc\b|"
    rb"HIP_PLATFORM|__HIP_PLATFORM",
    re.I,
)


def hip_enabled(code: bytes) -> bool:
    return _HIP_LANG.search(code) is not None


_CMAKE_CUDA = [
    (
        re.compile(rb"\bproject\s*\([^)]*\bCUDA\b[^)]*\)", re.I),
        "`project(... CUDA)` enables only the CUDA language: add a HIP branch with "
        "`enable_language(HIP)` (CMake 3.21+)",
    ),
    (
        re.compile(rb"\benable_language\s*\(\s*CUDA\b[^)]*\)", re.I),
        "`enable_language(CUDA)`: an AMD build needs `enable_language(HIP)` (CMake 3.21+)",
    ),
    (
        re.compile(rb"\bCMAKE_CUDA_ARCHITECTURES\b"),
        "`CMAKE_CUDA_ARCHITECTURES` has no effect on AMD: set `CMAKE_HIP_ARCHITECTURES` "
        "(e.g. gfx90a;gfx942;gfx950)",
    ),
    (
        re.compile(rb"(?<![\w$])CUDA_ARCHITECTURES\b"),
        "the `CUDA_ARCHITECTURES` property has no effect on AMD: set `HIP_ARCHITECTURES`",
    ),
    (
        re.compile(rb"\bfind_package\s*\(\s*(CUDA|CUDAToolkit)\b[^)]*\)", re.I),
        "`find_package({0})` finds no ROCm: use `find_package(hip CONFIG)` and the hip* library "
        "packages (hipblas, hipfft, ...)",
    ),
    (
        re.compile(rb"(?<![\w:])CUDA::(\w+)"),
        "CMake target `CUDA::{0}` does not exist on ROCm: link `hip::host`/`hip::device` or the "
        "matching `roc::`/`hip::` library target",
    ),
    (
        re.compile(rb"\bLANGUAGE\s+CUDA\b"),
        "`LANGUAGE CUDA` source property: an AMD build needs `LANGUAGE HIP`",
    ),
    (
        re.compile(rb"\bcuda_add_(library|executable)\s*\(", re.I),
        "`cuda_add_{0}` (FindCUDA, removed in CMake 3.27) has no HIP counterpart: use "
        "`add_{0}` with HIP-language sources",
    ),
]


@register
class CmakeCudaLanguage(Rule):
    """CMake project built only as CUDA.

    ## What it finds
    In CMake files without any HIP branch (`enable_language(HIP)`, `find_package(hip)`,
    `CMAKE_HIP_ARCHITECTURES`): `project(... LANGUAGES CUDA)`, `enable_language(CUDA)`,
    `CMAKE_CUDA_ARCHITECTURES`, the `CUDA_ARCHITECTURES` property,
    `find_package(CUDA|CUDAToolkit)`, `CUDA::cudart`/`CUDA::cublas` targets,
    `set_source_files_properties(... LANGUAGE CUDA)`, `cuda_add_library`/`cuda_add_executable`.
    Text in `#` comments is ignored.

    ## Why it breaks on AMD
    None of these configure a HIP build: CMake's CUDA language needs nvcc, `CUDA::` targets
    come from the CUDA toolkit, and the architecture lists are NVIDIA SM numbers. An AMD build
    needs `enable_language(HIP)` (CMake 3.21 or later), `CMAKE_HIP_ARCHITECTURES`,
    `find_package(hip CONFIG)` with `hip::device`/`hip::host`, and `find_package(hipblas)` etc.
    Using hipcc as the C++ compiler is the legacy route. HIPIFY does not touch build files.

    ## Example
    ```cmake
    project(solver LANGUAGES CXX CUDA)
    set(CMAKE_CUDA_ARCHITECTURES 80 90)
    target_link_libraries(solver PRIVATE CUDA::cublas)
    ```

    ## Use instead
    ```cmake
    project(solver LANGUAGES CXX HIP)
    set(CMAKE_HIP_ARCHITECTURES gfx90a;gfx942;gfx950)
    find_package(hipblas CONFIG REQUIRED)
    target_link_libraries(solver PRIVATE roc::hipblas)
    ```

    ## References
    - ROCm documentation, Using CMake (cmake-packages) and the HIPCC migration notes
    - llama.cpp `ggml/src/ggml-hip/CMakeLists.txt` (a maintained HIP branch)
    - HIPIFY issue #1132 (build files are not converted)
    """

    code = "PT901"
    name = "cmake-cuda-language"
    severity = Severity.ERROR
    languages = ("build",)
    triggers = (b"CUDA", b"cuda_add_")

    def check(self, ctx):
        if is_makefile(ctx.src.path):
            return
        code = ctx.build_code
        if hip_enabled(code):
            return
        for rx, msg in _CMAKE_CUDA:
            for m in rx.finditer(code):
                arg = m.group(1).decode() if m.groups() else ""
                yield self.finding(ctx, (m.start(), m.end()), msg.format(arg))


_NVCC_FLAGS = [
    (
        re.compile(rb"(?<![\w-])(?:-arch|--gpu-architecture)[= ]\s*(?:sm|compute)_\w+"),
        "`{0}` is an NVIDIA architecture: use `--offload-arch=gfx942` (one per target)",
    ),
    (
        re.compile(rb"(?<![\w-])-gencode[= ]\s*\"?arch=compute_\w+,\s*code=\[?\"?\w+[\w,\]]*"),
        "`{0}` is an NVIDIA architecture: use `--offload-arch=<gfx>` per target",
    ),
    (
        re.compile(rb"(?<![\w-])-?-use_fast_math\b"),
        "`{0}` is nvcc-only: hipcc has no exact equivalent (consider `-ffast-math` or "
        "`-fgpu-flush-denormals-to-zero` after checking accuracy)",
    ),
    (
        re.compile(rb"(?<![\w-])-Xptxas\b(?:[= ]\s*\S+)?"),
        "`{0}` passes options to ptxas, which AMD builds do not run: remove it",
    ),
    (
        re.compile(rb"(?<![\w-])--?expt-relaxed-constexpr\b"),
        "`{0}` is nvcc-only: HIP-Clang allows constexpr host functions in device code without it; "
        "remove it",
    ),
    (
        re.compile(rb"(?<![\w-])--?(?:expt-)?extended-lambda\b"),
        "`{0}` is nvcc-only: HIP-Clang accepts `__device__` lambdas without it; remove it",
    ),
    (
        re.compile(rb"(?<![\w-])(?:-rdc|--relocatable-device-code)[= ]\s*true\b"),
        "`{0}`: HIP's relocatable device code flag is `-fgpu-rdc`",
    ),
    (
        re.compile(rb"(?<![\w-])--default-stream[= ]\s*per-thread\b"),
        "`{0}`: HIP's flag is `-fgpu-default-stream=per-thread` (for every translation unit)",
    ),
    (
        re.compile(rb"(?<![\w-])--?fmad[= ]\s*false\b"),
        "`{0}`: HIP-Clang contracts by default (`-ffp-contract=fast-honor-pragmas`); use "
        "`-ffp-contract=off`",
    ),
    (
        re.compile(rb"(?<![\w-])-lineinfo\b"),
        "`{0}` is nvcc-only: use `-gline-tables-only` with hipcc",
    ),
    (
        re.compile(rb"\bTORCH_CUDA_ARCH_LIST\b"),
        "`{0}` selects NVIDIA archs for torch extensions: ROCm builds read `PYTORCH_ROCM_ARCH`",
    ),
]
_CUDA_ONLY_LINE = re.compile(rb"CUDA|NVCC|nvcc|\.cu\b")


@register
class NvccFlags(Rule):
    """nvcc-only compiler flags in a build file.

    ## What it finds
    `-arch=sm_XX`, `-gencode arch=compute_XX,code=sm_XX`, `--use_fast_math`, `-Xptxas`,
    `--expt-relaxed-constexpr`, `--expt-extended-lambda`, `-rdc=true`,
    `--default-stream per-thread`, `-fmad=false`, `-lineinfo` and `TORCH_CUDA_ARCH_LIST` in
    CMake files and Makefiles (outside comments); `-maxrregcount` is left to the register-cap
    rule of the launch-configuration section. In files that already have a HIP branch,
    flags on lines that are clearly CUDA-only (`CMAKE_CUDA_FLAGS`, `NVCC_FLAGS`,
    `COMPILE_LANGUAGE:CUDA`) are not reported.

    ## Why it breaks on AMD
    hipcc/HIP-Clang rejects or ignores these: NVIDIA architecture names mean nothing to the
    AMDGPU backend (`--offload-arch=gfx942` instead), `-rdc=true` is `-fgpu-rdc`,
    `--default-stream per-thread` is `-fgpu-default-stream=per-thread`, and there is no
    register cap flag. Fast-math and relaxed-constexpr have no exact equivalents.

    ## Example
    ```make
    NVCCFLAGS = -O3 -arch=sm_80 --use_fast_math -Xptxas -v
    ```

    ## Use instead
    ```make
    HIPFLAGS = -O3 --offload-arch=gfx90a --offload-arch=gfx942
    ```

    ## References
    - HIP porting guide, Compiler options supported on AMD platforms
    - HIP FAQ and kernel language reference
    """

    code = "PT902"
    name = "nvcc-flags"
    severity = Severity.WARNING
    languages = ("build",)
    triggers = (
        b"sm_",
        b"compute_",
        b"fast_math",
        b"Xptxas",
        b"expt-",
        b"extended-lambda",
        b"rdc",
        b"relocatable-device-code",
        b"default-stream",
        b"fmad",
        b"lineinfo",
        b"TORCH_CUDA_ARCH_LIST",
    )

    def check(self, ctx):
        code = ctx.build_code
        hip = hip_enabled(code)
        for rx, msg in _NVCC_FLAGS:
            for m in rx.finditer(code):
                if hip:
                    ls = code.rfind(b"\n", 0, m.start()) + 1
                    le = code.find(b"\n", m.end())
                    if _CUDA_ONLY_LINE.search(code[ls : le if le >= 0 else len(code)]):
                        continue
                flag = m.group(0).decode("utf-8", "replace").strip()
                yield self.finding(ctx, (m.start(), m.end()), msg.format(flag))
                if flag == "TORCH_CUDA_ARCH_LIST":
                    break  # a variable name: once per file is enough


_ARCH_LIST = re.compile(
    rb"(?:\b(?:CMAKE_HIP_ARCHITECTURES|HIP_ARCHITECTURES|AMDGPU_TARGETS|GPU_TARGETS|"
    rb"PYTORCH_ROCM_ARCH|GPU_ARCHS?|OFFLOAD_ARCH)\b[^\n]*)|(?:--offload-arch[= ]\s*\S+)|"
    rb"(?:--amdgpu-target[= ]\s*\S+)"
)
_GFX = re.compile(rb"gfx[0-9a-f]{3,4}")


@register
class OffloadArchCoverage(Rule):
    """HIP architecture list that misses a selected target.

    ## What it finds
    Architecture lists in build files (`CMAKE_HIP_ARCHITECTURES`, `HIP_ARCHITECTURES`,
    `AMDGPU_TARGETS`, `GPU_TARGETS`, `PYTORCH_ROCM_ARCH`, `--offload-arch=` flags) that name
    gfx targets but not every `--offload-arch` porter was asked to check for. For flags, all
    `--offload-arch` options on the same line count as one list.

    ## Why it breaks on AMD
    A fat binary holds code objects only for the listed architectures. On a GPU whose arch is
    missing, the program starts but the first kernel launch fails with
    `hipErrorNoBinaryForGpu`/"shared object initialization failed". MI300 (gfx942) and MI350
    (gfx950) need their own entries; gfx90a code does not run on them.

    ## Example
    ```cmake
    set(CMAKE_HIP_ARCHITECTURES gfx90a)    # deployed on MI300X (gfx942) too
    ```

    ## Use instead
    List every deployed target: `set(CMAKE_HIP_ARCHITECTURES gfx90a;gfx942;gfx950)`, with
    `:xnack+` target IDs where the code depends on XNACK (managed memory page faults).

    ## References
    - HIP FAQ (missing code object: shared object initialization failed)
    - HIP RTC programming guide (target-ID syntax `gfx942:sramecc+:xnack-`)
    """

    code = "PT903"
    name = "offload-arch-coverage"
    severity = Severity.WARNING
    languages = ("build",)
    triggers = (b"gfx",)

    def check(self, ctx):
        code = ctx.build_code
        wanted = [t.arch for t in ctx.options.targets]
        done_lines: set[int] = set()
        for m in _ARCH_LIST.finditer(code):
            ls = code.rfind(b"\n", 0, m.start()) + 1
            if m.group(0).startswith(b"--"):
                if ls in done_lines:
                    continue
                done_lines.add(ls)
                le = code.find(b"\n", m.end())
                line = code[ls : le if le >= 0 else len(code)]
                listed = {
                    g.decode()
                    for f in re.findall(
                        rb"--(?:offload-arch|amdgpu-target)"
                        rb"[= ]\s*(\S+)",
                        line,
                    )
                    for g in _GFX.findall(f)
                }
            else:
                listed = {g.decode() for g in _GFX.findall(m.group(0))}
            if not listed:
                continue
            missing = tuple(a for a in wanted if a not in listed)
            if missing:
                yield self.finding(
                    ctx,
                    (m.start(), m.end()),
                    f"architecture list ({', '.join(sorted(listed))}) has no code "
                    f"object for {', '.join(missing)}: launches there fail with "
                    f"hipErrorNoBinaryForGpu; add them",
                    targets=missing,
                )


_CU_SOURCE = re.compile(rb"(?<![\w./-])([\w./${}-]+\.cuh?)(?![\w])")
_SRC_CMD = re.compile(
    rb"\b(add_library|add_executable|target_sources|hip_add_library|"
    rb"hip_add_executable)\s*\(([^)]*)\)",
    re.I,
)


@register
class CuFileExtensions(Rule):
    """`.cu` sources in a HIP CMake build without `LANGUAGE HIP`.

    ## What it finds
    In CMake files that enable HIP but not CUDA, `.cu` files listed in `add_library`,
    `add_executable` or `target_sources` when the file never sets `LANGUAGE HIP` on sources.

    ## Why it breaks on AMD
    CMake assigns languages by extension: `.cu` is CUDA, and the HIP language claims only
    `.hip`. Without `set_source_files_properties(x.cu PROPERTIES LANGUAGE HIP)` the file is
    compiled as CUDA (needs nvcc) or, with CUDA not enabled, not compiled at all. torch's
    hipify renames `.cu` to `.hip`; the HIP guide suggests `.hip` for new ports and accepts
    keeping `.cu` for quick ports when the language is set.

    ## Example
    ```cmake
    enable_language(HIP)
    add_library(kernels kernels.cu)
    ```

    ## Use instead
    `set_source_files_properties(kernels.cu PROPERTIES LANGUAGE HIP)`, or rename the sources to
    `.hip`.

    ## References
    - HIP porting guide, Choosing HIP File Extensions
    - hipify_torch `get_hip_file_path` (`.cu` -> `.hip`)
    - CMake `CMAKE_HIP_SOURCE_FILE_EXTENSIONS` (`hip`)
    """

    code = "PT904"
    name = "cu-file-extensions"
    severity = Severity.WARNING
    languages = ("build",)
    triggers = (b".cu",)

    def check(self, ctx):
        if is_makefile(ctx.src.path):
            return
        code = ctx.build_code
        if (
            not hip_enabled(code)
            or re.search(rb"\bLANGUAGE\s+HIP\b", code)
            or re.search(rb"enable_language\s*\(\s*CUDA|\bLANGUAGES\b[^)]*\bCUDA\b", code, re.I)
        ):
            return
        for m in _SRC_CMD.finditer(code):
            for s in _CU_SOURCE.finditer(m.group(2)):
                start = m.start(2) + s.start(1)
                yield self.finding(
                    ctx,
                    (start, start + len(s.group(1))),
                    f"`{s.group(1).decode()}` is compiled as CUDA by CMake (HIP "
                    f"takes only `.hip`): set `LANGUAGE HIP` on it with "
                    f"set_source_files_properties, or rename it to `.hip`",
                )


@register
class BuildUnported(Rule):
    """Build-file construct that `porter port` cannot translate to HIP.

    ## What it finds
    Reported by the build-file port (`porter port` on CMakeLists.txt, *.cmake, Makefiles),
    at the construct's line: CMake targets, variables, properties and commands of CUDA that
    have no ROCm counterpart (`CUDA::nvtx3`, `CUDA::cupti`, `CUDA_SEPARABLE_COMPILATION`,
    `CMAKE_CUDA_HOST_COMPILER`, `cuda_compile` ...), nvcc options with no HIP-Clang equivalent
    (`-dlink`, `-ptx`, `-cubin`), `-Xcompiler` with a quoted value, libraries with no ROCm
    counterpart (`-lcudadevrt`), and CUDA toolkit paths.

    ## Why it breaks on AMD
    The construct is left as it was, so the HIP build either fails (an unknown target or
    option) or silently does something else (a CUDA-only property has no effect on a HIP
    target). ROCm's Debian packages install CMake package configs for the hip* and roc*
    libraries (hip, hipblas, hipblaslt, hipfft, hiprand, hipsolver, hipsparse, hiprtc, rccl,
    miopen, rocthrust, hipcub) but none for roctx, rocprofiler or rocm-smi.

    ## Example
    ```cmake
    target_link_libraries(app PRIVATE CUDA::nvtx3)
    set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
    ```

    ## Use instead
    ```cmake
    find_library(ROCTX roctx64 REQUIRED)
    target_link_libraries(app PRIVATE ${ROCTX})
    target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)
    target_link_options(app PRIVATE -fgpu-rdc --hip-link)
    ```

    ## References
    - CMake 3.25 FindCUDAToolkit (the `CUDA::` targets) and cmake-properties(7)
    - The CMake package configs in Debian's ROCm 7.2 -dev packages (`lib/<triplet>/cmake/<pkg>`)
    - HIP-Clang options: `clang --help` (`-fgpu-rdc`, `--hip-link`)
    """

    code = "PT905"
    name = "build-unported"
    severity = Severity.ERROR
    languages = ("build",)
    emitted_by_engine = True


@register
class BuildChanged(Rule):
    """Build-file option that `porter port` removed or translated only approximately.

    ## What it finds
    Reported by the build-file port at the option's line: `--use_fast_math` (became
    `-ffast-math`), `-maxrregcount` and `-Xptxas` options other than `-v` (removed: no ptxas on
    AMD), `-ccbin`, `-cudart`, `-Xnvlink` (removed), and CUDA architecture lists that are not
    literal SM numbers (left for you to set to AMD targets).

    ## Why it breaks on AMD
    These are not one-to-one. `-ffast-math` in HIP-Clang also assumes no NaN or infinity and
    applies to host code; nvcc's `--use_fast_math` only relaxes device math. A register cap
    has no HIP-Clang flag: the intent moves to `__launch_bounds__`. A CMake
    `CMAKE_HIP_ARCHITECTURES` set from a variable still holds whatever the variable held (SM
    numbers).

    ## Example
    ```make
    NVCCFLAGS = -O3 --use_fast_math -maxrregcount=64
    ```

    ## Use instead
    ```make
    HIPFLAGS = -O3 -ffast-math    # checked for accuracy; register bound via __launch_bounds__
    ```

    ## References
    - nvcc documentation, "Command Option Description" (`--use_fast_math`, `--maxrregcount`)
    - HIP-Clang options: `clang --help` (`-ffast-math`, `-ffp-contract`, `-fgpu-rdc`)
    """

    code = "PT906"
    name = "build-changed"
    severity = Severity.WARNING
    languages = ("build",)
    emitted_by_engine = True


@register
class VerifyCompileFailed(Rule):
    """Ported translation unit that does not compile for an AMD target (`porter port --verify`).

    ## What it finds
    With `--verify`, porter compiles every ported translation unit for each `--offload-arch`
    target with a real HIP compiler (object emission, `-c`). A file that fails is reported at
    the original CUDA line of its first error in that file, mapped back from the ported line
    through the edits porter made, with the compiler's message and both locations (the ported
    `file:line:col` and the original one, marked when porter changed that line); an error in
    a ported header is named with the header's original line. The targets the file fails for
    are the finding's targets. A file that compiles only when a flag the build lacks is added
    (`-include cstring`, ROCm 6.x's `-DHIP_ENABLE_WARP_SYNC_BUILTINS`) is reported too.

    ## Why it breaks on AMD
    What the compiler rejects is what the port left behind: inline PTX (caught only when code
    is generated), CUDA names porter could not map, CUDA's 32-bit lane masks in `_sync` warp
    calls (HIP 6.2+ rejects them), headers that rely on something the CUDA toolkit includes.

    ## Example
    ```cuda
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));   // error: invalid instruction
    ```

    ## Use instead
    ```cuda
    lane = __lane_id();
    ```

    ## References
    - HIP-Clang: `clang++ -x hip --offload-arch=gfx942 -c`
    - porter verify (porter/verify.py)
    """

    code = "PT907"
    name = "verify-compile-failed"
    severity = Severity.ERROR
    languages = ("cuda",)
    emitted_by_engine = True


@register
class TorchExtensionBuild(Rule):
    """PyTorch extension build (`CUDAExtension`, `torch.utils.cpp_extension.load`).

    ## What it finds
    Calls that build a PyTorch C++/CUDA extension in a Python file (`setup.py`,
    `pyproject.toml`-driven builds, JIT `load`/`load_inline`), with the CUDA sources they
    compile.

    ## Why it breaks on AMD
    On a ROCm build of PyTorch these calls work as they are: PyTorch hipifies the sources at
    build time. porter therefore leaves the build file alone unless asked
    (`porter port --port-build-files` translates the nvcc flags, which reach hipcc unchanged,
    and the CUDA library names). What that build-time hipify does not handle is what porter's
    rules report in the sources themselves (inline PTX, 32-lane warp assumptions, NVIDIA-only
    intrinsics); PT909 points from the build file to them.

    ## Example
    ```python
    CUDAExtension("ops_cuda", sources=["ops.cpp", "ops_kernel.cu"])
    ```

    ## Use instead
    Keep the call; fix the findings porter reports in `ops_kernel.cu`, and set
    `PYTORCH_ROCM_ARCH` (not `TORCH_CUDA_ARCH_LIST`) for the AMD targets.

    ## References
    - PyTorch `torch.utils.cpp_extension` (CUDAExtension, load; ROCm builds through hipify)
    """

    code = "PT908"
    name = "torch-extension-build"
    severity = Severity.INFO
    languages = ("build",)
    emitted_by_engine = True
