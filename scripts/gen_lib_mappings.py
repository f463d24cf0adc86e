"""Propose the NVIDIA math-library mapping tables from the headers on both sides.

CUDA side: the headers inside NVIDIA's PyPI wheels (nvidia-cublas, nvidia-curand, nvidia-cufft,
nvidia-cusparse, nvidia-cusolver; fetch them once with `pip download --no-deps -d /tmp/dl NAME`)
(library_types.h names such as CUDA_R_16F live in runtime.csv). HIP side: the unpacked ROCm 7.2 and 6.4 include folders.

    python scripts/gen_lib_mappings.py --wheels /tmp/dl

writes scripts/data/cuda_library_names/*.txt (the CUDA names each library declares) and
mappings/{blas,blaslt,rand,fft,sparse,solver,libheaders_math}.csv. A CUDA name maps when the
conventional HIP name (cublasX -> hipblasX, CUBLAS_X -> HIPBLAS_X, ...) is declared by the ROCm 7.2
headers of that library; the roc column is filled only when the rocX name exists and its
parameter list matches the CUDA one type for type (after the same renames).

The first part of this file is a small, forgiving reader of C library headers (top-level
declarations: functions with their parameter types, typedefs, enumerators, macros); the test
tests/test_mappings_libs_math.py uses it too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_IDENT = re.compile(r"[A-Za-z_]\w*")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\()?[ \t]*(.*)$", re.M)
_GUARD = re.compile(r"(^_|_H_?$|_H_INCLUDED$|_HPP_?$)")
_KEYWORDS = frozenset(
    "const volatile struct enum union class unsigned signed static inline extern typedef "
    "register restrict __restrict__ __restrict constexpr virtual explicit friend typename "
    "template operator return sizeof if else for while do switch case default".split())


@dataclass
class Declarations:
    """Names declared by a set of headers: kind per name, and function signatures."""

    kinds: dict[str, str] = field(default_factory=dict)       # name -> function|type|enum|macro
    signatures: dict[str, list[list[str]]] = field(default_factory=dict)  # name -> overloads
    aliases: dict[str, str] = field(default_factory=dict)     # '#define a b' (b an identifier)
    deprecated: set[str] = field(default_factory=set)         # declared with a *DEPRECATED* mark

    def add(self, name: str, kind: str) -> None:
        # a function/type/enum beats a macro of the same name (e.g. a '#define X X_v2' alias)
        if name not in self.kinds or self.kinds[name] == "macro":
            self.kinds[name] = kind

    def __contains__(self, name: str) -> bool:
        return name in self.kinds

    def update(self, other: "Declarations") -> None:
        for n, k in other.kinds.items():
            self.add(n, k)
        for n, sigs in other.signatures.items():
            self.signatures.setdefault(n, []).extend(sigs)
        self.aliases.update(other.aliases)
        self.deprecated |= other.deprecated


def strip_comments(text: str) -> str:
    text = text.replace("\\\r\n", " ").replace("\\\n", " ")
    # keep string literals from hiding comment markers and vice versa
    out, pos = [], 0
    pattern = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', re.S)
    for m in pattern.finditer(text):
        out.append(text[pos:m.start()])
        tok = m.group(0)
        if tok.startswith('"'):
            out.append('""')
        else:
            out.append(" " if tok.startswith("//") else " " + "\n" * tok.count("\n"))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _split_top(text: str, sep: str = ",") -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _chunks(code: str):
    """Top-level declarations: text up to ';' at brace depth 0, or a function body."""
    depth = 0
    start = 0      # start of the current chunk
    for m in re.finditer(r"[{};]", code):
        ch, i = m.group(0), m.start()
        if ch == "{":
            if depth == 0:
                head = code[start:i].strip()
                if re.search(r'(^|[;)\s])(extern\s*""|namespace(\s+[\w:]+)?)$', head):
                    start = i + 1   # 'extern "C" {' / 'namespace x {': transparent
                    continue
            depth += 1
        elif ch == "}":
            if depth == 0:      # closes a transparent block
                start = i + 1
                continue
            depth -= 1
            if depth == 0:
                text = code[start:i + 1]
                head = text.split("{", 1)[0]
                if ")" in head and not re.match(r"\s*(typedef|enum|struct|union|class)\b", head) \
                        and "=" not in head:
                    yield text  # a function definition
                    start = i + 1
        elif depth == 0:        # ';'
            yield code[start:i]
            start = i + 1
    if code[start:].strip():
        yield code[start:]


def _norm_type(param: str) -> str:
    """'const float* const A[]' -> 'const float*const*' (name dropped, spacing normalised)."""
    p = param.split("=")[0].strip()
    p = re.sub(r"\b[A-Za-z_]\w*\s*((?:\[[^\]]*\]\s*)+)$", lambda m: "*" * m.group(1).count("["), p)
    p = re.sub(r"\[[^\]]*\]", "*", p)
    p = re.sub(r"\b(__restrict__|__restrict|restrict|struct|enum)\b", " ", p)
    p = re.sub(r"\b[A-Z][A-Z0-9_]*(\([^)]*\))?", lambda m: m.group(0) if m.group(0) in ("FILE",) else " ", p) \
        if re.search(r"\b[A-Z][A-Z0-9_]{3,}\b", p) else p  # drop decorator macros (upper case)
    toks = re.findall(r"[A-Za-z_]\w*|\*|&", p)
    # the last identifier is the parameter name when another identifier precedes it
    idents = [k for k, t in enumerate(toks) if t not in ("*", "&")]
    if len(idents) >= 2 and toks[-1] not in ("*", "&") and toks[-1] not in _KEYWORDS \
            and not (toks[-1] in ("int", "char", "long", "short", "double", "float") ):
        toks = toks[:-1]
    out = ""
    for t in toks:
        if t in ("*", "&"):
            out += t
        else:
            out += (" " if out and out[-1] not in "*&" else "") + t
    out = out.replace(" *", "*")
    return "void" if out in ("", "void") else out


def parse_text(text: str, decls: Declarations | None = None) -> Declarations:
    d = decls if decls is not None else Declarations()
    code = strip_comments(text)
    for m in _DEFINE.finditer(code):
        name, fn_like, value = m.group(1), m.group(2), m.group(3).strip()
        if _GUARD.search(name) and not value:
            continue
        d.add(name, "macro")
        if not fn_like and _IDENT.fullmatch(value or ""):
            d.aliases[name] = value
    code = re.sub(r"^[ \t]*#.*$", " ", code, flags=re.M)
    # types declared through a helper macro (hipRAND's device state types)
    for m in re.finditer(r"\bDEFINE_HIPRAND_STATE\s*\(\s*(\w+)", code):
        d.add(m.group(1), "type")
        d.add(m.group(1) + "_t", "type")
    code = re.sub(r"\btemplate\s*<[^;{]*?>\s*", " ", code)
    for chunk in _chunks(code):
        _parse_chunk(chunk.strip(), d)
    return d


def _enumerators(body: str, d: Declarations) -> None:
    for item in _split_top(body):
        m = _IDENT.match(item.strip())
        if m:
            d.add(m.group(0), "enum")


def _parse_chunk(c: str, d: Declarations) -> None:
    if not c:
        return
    dep = bool(re.search(r"DEPRECATED|\bdeprecated\b", c.split("{", 1)[0].split("(", 1)[0]))
    c = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", c, flags=re.S)
    c = re.sub(r"__declspec\s*\([^)]*\)", " ", c)
    is_typedef = c.startswith("typedef")
    body_m = re.search(r"\b(enum|struct|union|class)\b\s*(?:class\s+|struct\s+)?(\w+)?\s*(?::\s*[\w\s:]+)?\{", c)
    if body_m and (is_typedef or c.startswith(body_m.group(1)) or re.match(r"\w+\s+\b(enum|struct)", c)):
        kind, tag = body_m.group(1), body_m.group(2)
        if tag and not _GUARD.match(tag):
            d.add(tag, "type")
        open_at = body_m.end() - 1
        depth, j = 0, open_at
        while j < len(c):
            if c[j] == "{":
                depth += 1
            elif c[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if kind == "enum":
            _enumerators(c[open_at + 1:j], d)
        tail = c[j + 1:]
        for name in re.findall(r"[A-Za-z_]\w*", tail):
            if name not in _KEYWORDS and not re.fullmatch(r"[A-Z0-9_]+", name):
                d.add(name, "type" if is_typedef else "type")
        return
    if is_typedef:
        fp = re.search(r"\(\s*(?:\w+\s+)*\*\s*(\w+)\s*\)\s*\(", c)
        if fp:
            d.add(fp.group(1), "type")
            return
        names = [n for n in re.findall(r"[A-Za-z_]\w*", re.sub(r"\[[^\]]*\]", "", c)) if n not in _KEYWORDS]
        if names:
            d.add(names[-1], "type")
        return
    m = re.fullmatch(r"(?:struct|class|union|enum)\s+(\w+)\s*", c)
    if m:
        d.add(m.group(1), "type")
        return
    # a function declaration or definition: the first non-decorator 'name(' at paren depth 0
    head = c.split("{", 1)[0]
    depth = 0
    for m in re.finditer(r"[A-Za-z_]\w*|\(|\)", head):
        t = m.group(0)
        if t == "(":
            depth += 1
            continue
        if t == ")":
            depth -= 1
            continue
        if depth:
            continue
        nxt = head[m.end():].lstrip()
        if not nxt.startswith("("):
            continue
        if re.fullmatch(r"[A-Z0-9_]+", t) or t.startswith("__") or t in _KEYWORDS or t == "operator":
            continue
        # parameter list
        k, pd = head.index("(", m.end()), 0
        for e in range(k, len(head)):
            if head[e] == "(":
                pd += 1
            elif head[e] == ")":
                pd -= 1
                if pd == 0:
                    break
        params = head[k + 1:e]
        sig = [_norm_type(p) for p in _split_top(params) if p.strip()]
        if sig == ["void"]:
            sig = []
        d.add(t, "function")
        if dep:
            d.deprecated.add(t)
        d.signatures.setdefault(t, []).append(sig)
        return


def parse_files(paths) -> Declarations:
    d = Declarations()
    for p in paths:
        parse_text(Path(p).read_text(encoding="utf-8", errors="replace"), d)
    return d


def parse_dirs(*dirs: Path, patterns=("*.h", "*.hpp")) -> Declarations:
    files = []
    for base in dirs:
        base = Path(base)
        if base.is_file():
            files.append(base)
            continue
        for pat in patterns:
            files.extend(sorted(base.rglob(pat)))
    return parse_files(files)


# ---------------------------------------------------------------------------------------------
# Generator
# ---------------------------------------------------------------------------------------------
import argparse  # noqa: E402
import csv  # noqa: E402
import io  # noqa: E402
import sys  # noqa: E402
import zipfile  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NAMES_DIR = ROOT / "scripts" / "data" / "cuda_library_names"
MAPPINGS = ROOT / "mappings"
COLUMNS = ("cuda", "hip", "roc", "kind", "status", "hip_since", "transform", "notes", "source")

# ROCm include folders (relative to <prefix>/usr/include) declaring each table's HIP and roc names
HIP_DIRS = {
    "blas": ["hipblas", "hipblas-common", "hip/library_types.h"],
    "blaslt": ["hipblaslt", "hipblaslt-export.h", "hipblaslt-version.h", "hipblas-common",
               "hip/library_types.h"],
    "rand": ["hiprand"],
    "fft": ["hipfft"],
    "sparse": ["hipsparse"],
    "solver": ["hipsolver"],
}
ROC_DIRS = {"blas": ["rocblas"], "rand": ["rocrand"], "fft": ["rocfft"], "sparse": ["rocsparse"],
            "solver": ["rocsolver"]}
HIP_LIB = {"blas": "hipBLAS", "blaslt": "hipBLASLt", "rand": "hipRAND", "fft": "hipFFT",
           "sparse": "hipSPARSE", "solver": "hipSOLVER"}
ROC_LIB = {"blas": "rocBLAS", "rand": "rocRAND", "fft": "rocFFT", "sparse": "rocSPARSE",
           "solver": "rocSOLVER"}

# NVIDIA wheels and the headers read from each: list name -> (wheel, headers, name filter)
_PFX = {
    "cublas": r"(cublas(?!Lt)|CUBLAS_(?!LT)|CUBLAS(?!LT)[A-Z])",
    "cublasLt": r"(cublasLt|CUBLASLT)",
    "curand": r"(curand|CURAND|skipahead)",
    "cufft": r"(cufft|CUFFT)",
    "cusparse": r"(cusparse|CUSPARSE)",
    "cusolver": r"(cusolver|CUSOLVER|syevjInfo|gesvdjInfo)",
}
SOURCES = {
    "cublas": ("nvidia_cublas", ["cublas_api.h", "cublas_v2.h", "cublas.h", "cublasXt.h"]),
    "cublasLt": ("nvidia_cublas", ["cublasLt.h"]),
    "curand": ("nvidia_curand", None),  # every curand*.h
    "cufft": ("nvidia_cufft", ["cufft.h", "cufftXt.h", "cudalibxt.h"]),
    "cusparse": ("nvidia_cusparse", ["cusparse.h", "cusparse_v2.h"]),
    "cusolver": ("nvidia_cusolver", ["cusolver_common.h", "cusolverDn.h", "cusolverSp.h",
                                     "cusolverRf.h", "cusolverMg.h",
                                     "cusolverSp_LOWLEVEL_PREVIEW.h"]),
}
AREA_LISTS = {"blas": ["cublas"], "blaslt": ["cublasLt"], "rand": ["curand"],
              "fft": ["cufft"], "sparse": ["cusparse"], "solver": ["cusolver"]}
# names that decorate declarations or guard headers: not API
_NOT_API = re.compile(r"(API|WINAPI|_DEPRECATED\w*|DEPRECATED_\w*|_EXPORT|_H_?|_INCLUDED|"
                      r"_INLINE|QUALIFIERS\w*|_DEVICE_API|_ENUM)$|^(DISABLE_|__)")


def _wheel_headers(wheel_dir: Path, wheel: str, names):
    whl = sorted(wheel_dir.glob(f"{wheel}-*.whl"))
    if not whl:
        sys.exit(f"no {wheel}-*.whl in {wheel_dir} (pip download --no-deps -d {wheel_dir} "
                 f"{wheel.replace('_', '-')})")
    path = whl[-1]
    version = path.name.split("-")[1]
    texts = {}
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            base = info.filename.rsplit("/", 1)[-1]
            if "/include/" not in info.filename or not base.endswith(".h"):
                continue
            if names is None and base.startswith("curand") or names and base in names:
                texts[base] = zf.read(info).decode("utf-8", "replace")
    return f"{wheel.replace('_', '-')} {version}", texts


_QUALIFIED_FN = re.compile(r"^QUALIFIERS\s+[\w\s\*]*?\b(curand\w*)\s*\(", re.M)


def extract_cuda(wheel_dir: Path):
    """CUDA names per list: {list: (source, {name: (kind, header)}, aliases)}."""
    out = {}
    for lst, (wheel, hdrs) in SOURCES.items():
        src, texts = _wheel_headers(wheel_dir, wheel, hdrs)
        pfx = re.compile(_PFX[lst])
        names, aliases = {}, {}
        # the legacy cublas.h last: a name it shares with cublas_v2.h is the handle-based one
        for hname, text in sorted(texts.items(), key=lambda kv: (kv[0] == "cublas.h", kv[0])):
            d = parse_text(text)
            aliases.update(d.aliases)
            for n, k in d.kinds.items():
                keep = pfx.match(n) or hname == "cudalibxt.h"
                if keep and not _NOT_API.search(n) and n not in names:
                    names[n] = (k, hname)
            # cuRAND's device functions follow templated helpers the reader loses sync on
            # (curand_poisson.h, curand_discrete2.h): take `QUALIFIERS <type> curand_x(` directly
            for m in _QUALIFIED_FN.finditer(text):
                n = m.group(1)
                if pfx.match(n) and not _NOT_API.search(n) and n not in names:
                    names[n] = ("function", hname)
        out[lst] = (src, names, aliases)
    return out


def write_name_lists(cuda):
    NAMES_DIR.mkdir(parents=True, exist_ok=True)
    for lst, (src, names, _) in cuda.items():
        lines = [f"# {lst}: names declared by {', '.join(sorted({h for _, h in names.values()}))}",
                 f"# extracted from {src} by scripts/gen_lib_mappings.py"]
        lines += sorted(names)
        (NAMES_DIR / f"{lst}.txt").write_text("\n".join(lines) + "\n")


def read_name_list(lst: str) -> set[str]:
    return {ln.strip() for ln in (NAMES_DIR / f"{lst}.txt").read_text().splitlines()
            if ln.strip() and not ln.startswith("#")}


def rocm_decls(usr: Path, rel_dirs) -> Declarations:
    inc = Path(usr) / "include"
    return parse_dirs(*[inc / r for r in rel_dirs if (inc / r).exists()])


# --- CUDA -> HIP names ---------------------------------------------------------------------------
_SWAPS = {
    "blas": [("cublas", "hipblas"), ("CUBLAS_", "HIPBLAS_")],
    "blaslt": [("cublasLt", "hipblasLt"), ("CUBLASLT_", "HIPBLASLT_"), ("cublas", "hipblas"),
               ("CUBLAS_", "HIPBLAS_")],
    "rand": [("curand", "hiprand"), ("CURAND_", "HIPRAND_")],
    "fft": [("cufft", "hipfft"), ("CUFFT_", "HIPFFT_"), ("cudaLibXt", "hipLibXt"),
            ("cudaXt", "hipXt")],
    "sparse": [("cusparse", "hipsparse"), ("CUSPARSE_", "HIPSPARSE_")],
    "solver": [("cusolver", "hipsolver"), ("CUSOLVER", "HIPSOLVER")],
}
# names that do not follow the prefix convention (each checked against the headers like the rest)
HIP_EXTRA = {
    "cudaXtDesc": "hipXtDesc", "cudaXtDesc_t": "hipXtDesc_t", "cudaLibXtDesc": "hipLibXtDesc",
    "cudaLibXtDesc_t": "hipLibXtDesc_t",
    "LIB_FORMAT_CUFFT": "HIPLIB_FORMAT_HIPFFT", "LIB_FORMAT_UNDEFINED": "HIPLIB_FORMAT_UNDEFINED",
    "libFormat": "hiplibFormat_t", "libFormat_t": "hiplibFormat_t",
    "MAX_CUDA_DESCRIPTOR_GPUS": "MAX_HIP_DESCRIPTOR_GPUS",
    "cublasGetStatusString": "hipblasStatusToString",
    # cusolverDn's Jacobi parameter handles carry no library prefix
    "syevjInfo_t": "hipsolverSyevjInfo_t", "gesvdjInfo_t": "hipsolverGesvdjInfo_t",
    # synonyms in the CUDA headers (same value as the name they stand for)
    "CUBLAS_GEMM_DFALT": "HIPBLAS_GEMM_DEFAULT", "CUBLAS_OP_HERMITAN": "HIPBLAS_OP_C",
    "cublasDataType_t": "hipDataType", "cublasStatus": "hipblasStatus_t",
    "CUFFT_INVERSE": "HIPFFT_BACKWARD",
    "CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC": "HIPSPARSE_SPGEMM_CSR_ALG_DETERMINISTIC",
    "CUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC": "HIPSPARSE_SPGEMM_CSR_ALG_NONDETERMINISTIC",
    "cudaLibXtCopyType": "hipfftXtCopyType", "cudaXtCopyType_t": "hipfftXtCopyType_t",
    "LIB_XT_COPY_HOST_TO_DEVICE": "HIPFFT_COPY_HOST_TO_DEVICE",
    "LIB_XT_COPY_DEVICE_TO_HOST": "HIPFFT_COPY_DEVICE_TO_HOST",
    "LIB_XT_COPY_DEVICE_TO_DEVICE": "HIPFFT_COPY_DEVICE_TO_DEVICE",
}
# version numbers mean different things on the two sides: never rename them
_VERSION_MACRO = re.compile(r"(_VER_(MAJOR|MINOR|PATCH|BUILD)|_VERSION|_VER_\w+)$")
NOTES_UNSUPPORTED = {
    "blas": "no hipBLAS equivalent",
    "blaslt": "no hipBLASLt equivalent",
    "rand": "no hipRAND equivalent",
    "fft": "no hipFFT equivalent",
    "sparse": "no hipSPARSE equivalent",
    "solver": "no hipSOLVER equivalent",
}


def hip_candidate(area: str, name: str) -> str | None:
    if name in HIP_EXTRA:
        return HIP_EXTRA[name]
    base = name
    if area == "blas":
        # cuBLAS's '_v2' entry points are the plain hipBLAS names
        base = re.sub(r"_v2(_64)?$", r"\1", name)
        if base.startswith("cublasXt"):
            return None
    for a, b in _SWAPS[area]:
        if base.startswith(a):
            return b + base[len(a):]
    if area == "rand" and base.startswith("skipahead"):
        return base
    return None


# --- roc names -----------------------------------------------------------------------------------
ROC_TYPES = {
    "blas": {
        "cublasHandle_t": "rocblas_handle", "cublasOperation_t": "rocblas_operation",
        "cublasFillMode_t": "rocblas_fill", "cublasDiagType_t": "rocblas_diagonal",
        "cublasSideMode_t": "rocblas_side", "cublasPointerMode_t": "rocblas_pointer_mode",
        "cublasAtomicsMode_t": "rocblas_atomics_mode", "cublasStatus_t": "rocblas_status",
        "CUBLAS_OP_N": "rocblas_operation_none", "CUBLAS_OP_T": "rocblas_operation_transpose",
        "CUBLAS_OP_C": "rocblas_operation_conjugate_transpose",
        "CUBLAS_OP_HERMITAN": "rocblas_operation_conjugate_transpose",
        "CUBLAS_FILL_MODE_UPPER": "rocblas_fill_upper", "CUBLAS_FILL_MODE_LOWER": "rocblas_fill_lower",
        "CUBLAS_FILL_MODE_FULL": "rocblas_fill_full",
        "CUBLAS_DIAG_NON_UNIT": "rocblas_diagonal_non_unit", "CUBLAS_DIAG_UNIT": "rocblas_diagonal_unit",
        "CUBLAS_SIDE_LEFT": "rocblas_side_left", "CUBLAS_SIDE_RIGHT": "rocblas_side_right",
        "CUBLAS_POINTER_MODE_HOST": "rocblas_pointer_mode_host",
        "CUBLAS_POINTER_MODE_DEVICE": "rocblas_pointer_mode_device",
        "CUBLAS_ATOMICS_NOT_ALLOWED": "rocblas_atomics_not_allowed",
        "CUBLAS_ATOMICS_ALLOWED": "rocblas_atomics_allowed",
        "CUBLAS_STATUS_SUCCESS": "rocblas_status_success",
        "CUBLAS_STATUS_INVALID_VALUE": "rocblas_status_invalid_value",
        "CUBLAS_STATUS_INTERNAL_ERROR": "rocblas_status_internal_error",
        "cudaStream_t": "hipStream_t",
    },
    "sparse": {
        "cusparseHandle_t": "rocsparse_handle", "cusparseMatDescr_t": "rocsparse_mat_descr",
        "cusparseStatus_t": "rocsparse_status", "cusparseOperation_t": "rocsparse_operation",
        "cusparseIndexBase_t": "rocsparse_index_base", "cusparseMatrixType_t": "rocsparse_matrix_type",
        "cusparseFillMode_t": "rocsparse_fill_mode", "cusparseDiagType_t": "rocsparse_diag_type",
        "cusparseDirection_t": "rocsparse_direction", "cusparseAction_t": "rocsparse_action",
        "cusparsePointerMode_t": "rocsparse_pointer_mode",
        "CUSPARSE_OPERATION_NON_TRANSPOSE": "rocsparse_operation_none",
        "CUSPARSE_OPERATION_TRANSPOSE": "rocsparse_operation_transpose",
        "CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE": "rocsparse_operation_conjugate_transpose",
        "CUSPARSE_INDEX_BASE_ZERO": "rocsparse_index_base_zero",
        "CUSPARSE_INDEX_BASE_ONE": "rocsparse_index_base_one",
        "CUSPARSE_MATRIX_TYPE_GENERAL": "rocsparse_matrix_type_general",
        "CUSPARSE_MATRIX_TYPE_SYMMETRIC": "rocsparse_matrix_type_symmetric",
        "CUSPARSE_MATRIX_TYPE_HERMITIAN": "rocsparse_matrix_type_hermitian",
        "CUSPARSE_MATRIX_TYPE_TRIANGULAR": "rocsparse_matrix_type_triangular",
        "CUSPARSE_FILL_MODE_LOWER": "rocsparse_fill_mode_lower",
        "CUSPARSE_FILL_MODE_UPPER": "rocsparse_fill_mode_upper",
        "CUSPARSE_DIAG_TYPE_NON_UNIT": "rocsparse_diag_type_non_unit",
        "CUSPARSE_DIAG_TYPE_UNIT": "rocsparse_diag_type_unit",
        "CUSPARSE_DIRECTION_ROW": "rocsparse_direction_row",
        "CUSPARSE_DIRECTION_COLUMN": "rocsparse_direction_column",
        "CUSPARSE_ACTION_SYMBOLIC": "rocsparse_action_symbolic",
        "CUSPARSE_ACTION_NUMERIC": "rocsparse_action_numeric",
        "CUSPARSE_POINTER_MODE_HOST": "rocsparse_pointer_mode_host",
        "CUSPARSE_POINTER_MODE_DEVICE": "rocsparse_pointer_mode_device",
        "CUSPARSE_STATUS_SUCCESS": "rocsparse_status_success",
        "CUSPARSE_STATUS_INVALID_VALUE": "rocsparse_status_invalid_value",
        "CUSPARSE_STATUS_INTERNAL_ERROR": "rocsparse_status_internal_error",
        "CUSPARSE_STATUS_NOT_SUPPORTED": "rocsparse_status_not_implemented",
        "cudaStream_t": "hipStream_t",
    },
    "rand": {
        "curandGenerator_t": "rocrand_generator", "curandStatus_t": "rocrand_status",
        "curandStatus": "rocrand_status",
        "curandRngType_t": "rocrand_rng_type", "curandRngType": "rocrand_rng_type",
        "curandOrdering_t": "rocrand_ordering", "curandOrdering": "rocrand_ordering",
        "curandDirectionVectorSet_t": "rocrand_direction_vector_set",
        "curandDirectionVectorSet": "rocrand_direction_vector_set",
        "curandState_t": "rocrand_state_xorwow", "curandState": "rocrand_state_xorwow",
        "curandStateXORWOW_t": "rocrand_state_xorwow", "curandStateXORWOW": "rocrand_state_xorwow",
        "curandStatePhilox4_32_10_t": "rocrand_state_philox4x32_10",
        "curandStatePhilox4_32_10": "rocrand_state_philox4x32_10",
        "curandStateMRG32k3a_t": "rocrand_state_mrg32k3a", "curandStateMRG32k3a": "rocrand_state_mrg32k3a",
        "curandStateMtgp32_t": "rocrand_state_mtgp32", "curandStateMtgp32": "rocrand_state_mtgp32",
        "curandStateSobol32_t": "rocrand_state_sobol32", "curandStateSobol32": "rocrand_state_sobol32",
        "curandStateScrambledSobol32_t": "rocrand_state_scrambled_sobol32",
        "curandStateScrambledSobol32": "rocrand_state_scrambled_sobol32",
        "curandStateSobol64_t": "rocrand_state_sobol64", "curandStateSobol64": "rocrand_state_sobol64",
        "curandStateScrambledSobol64_t": "rocrand_state_scrambled_sobol64",
        "curandStateScrambledSobol64": "rocrand_state_scrambled_sobol64",
        "cudaStream_t": "hipStream_t",
        # device functions: rocRAND overloads them per state type as cuRAND does
        "curand_init": "rocrand_init", "curand": "rocrand", "curand4": "rocrand4",
        "curand_uniform": "rocrand_uniform", "curand_uniform4": "rocrand_uniform4",
        "curand_uniform_double": "rocrand_uniform_double",
        "curand_uniform2_double": "rocrand_uniform_double2",
        "curand_normal": "rocrand_normal", "curand_normal2": "rocrand_normal2",
        "curand_normal4": "rocrand_normal4", "curand_normal_double": "rocrand_normal_double",
        "curand_normal2_double": "rocrand_normal_double2",
        "curand_log_normal": "rocrand_log_normal", "curand_log_normal2": "rocrand_log_normal2",
        "curand_log_normal4": "rocrand_log_normal4",
        "curand_log_normal_double": "rocrand_log_normal_double",
        "curand_log_normal2_double": "rocrand_log_normal_double2",
        "curand_poisson": "rocrand_poisson",
    },
}
ROC_FUNCS = {  # host functions whose rocX name does not follow the snake-case rule
    "blas": {"cublasCreate_v2": "rocblas_create_handle", "cublasDestroy_v2": "rocblas_destroy_handle",
             "cublasCreate": "rocblas_create_handle", "cublasDestroy": "rocblas_destroy_handle",
             "cublasGetStatusString": "rocblas_status_to_string"},
    "sparse": {"cusparseCreate": "rocsparse_create_handle", "cusparseDestroy": "rocsparse_destroy_handle",
               "cusparseGetErrorString": "rocsparse_get_status_name",
               "cusparseSpMatGetSize": "rocsparse_spmat_get_size"},
    "rand": {"curandCreateGenerator": "rocrand_create_generator",
             "curandCreateGeneratorHost": "rocrand_create_generator_host",
             "curandDestroyGenerator": "rocrand_destroy_generator",
             "curandSetPseudoRandomGeneratorSeed": "rocrand_set_seed",
             "curandSetGeneratorOffset": "rocrand_set_offset",
             "curandSetGeneratorOrdering": "rocrand_set_ordering",
             "curandSetQuasiRandomGeneratorDimensions": "rocrand_set_quasi_random_generator_dimensions",
             "curandSetStream": "rocrand_set_stream",
             "curandGenerate": "rocrand_generate",
             "curandGenerateUniform": "rocrand_generate_uniform",
             "curandGenerateUniformDouble": "rocrand_generate_uniform_double",
             "curandGenerateNormal": "rocrand_generate_normal",
             "curandGenerateNormalDouble": "rocrand_generate_normal_double",
             "curandGenerateLogNormal": "rocrand_generate_log_normal",
             "curandGenerateLogNormalDouble": "rocrand_generate_log_normal_double",
             "curandGeneratePoisson": "rocrand_generate_poisson",
             "curandGenerateLongLong": "rocrand_generate_long_long"},
}


def _snake(rest: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", rest).lower()


def roc_candidate(area: str, cuda: str) -> str | None:
    if cuda in ROC_TYPES.get(area, {}):
        return ROC_TYPES[area][cuda]
    if cuda in ROC_FUNCS.get(area, {}):
        return ROC_FUNCS[area][cuda]
    if area == "blas" and cuda.startswith("cublas") and not cuda.startswith(("cublasXt", "cublasLt")):
        base = re.sub(r"_v2(_64)?$", r"\1", cuda)
        m = re.fullmatch(r"cublas([A-Za-z0-9]+?)(_64)?", base)
        if m:
            return "rocblas_" + _snake(m.group(1)) + (m.group(2) or "")
    if area == "sparse" and cuda.startswith("cusparse"):
        return "rocsparse_" + _snake(cuda[len("cusparse"):])
    if area == "rand" and cuda.startswith("CURAND_"):
        return "ROCRAND_" + cuda[len("CURAND_"):]
    return None


def _canon(t: str, area: str, value: bool) -> str:
    tm = ROC_TYPES.get(area, {})
    t = re.sub(r"[A-Za-z_]\w*", lambda m: tm.get(m.group(0), m.group(0)), t)
    t = re.sub(r"\b(rocblas_int|int32_t)\b", "int", t)
    t = re.sub(r"\brocblas_stride\b", "int64_t", t)
    t = re.sub(r"\brocsparse_int\b", "int", t)
    if value:
        t = re.sub(r"^(const )?(long long int|long long|int64_t)$", "int64_t", t)
        t = re.sub(r"^const (?=[^*]*$)", "", t)   # a const value parameter is the same parameter
    return t


def same_signature(area: str, cuda_sigs, roc_sigs) -> bool:
    """True when one CUDA overload and one roc overload take the same parameters in order."""
    for cs in cuda_sigs or []:
        cc = [_canon(t, area, "*" not in t) for t in cs]
        for rs in roc_sigs or []:
            rc = [_canon(t, area, "*" not in t) for t in rs]
            if cc == rc:
                return True
    return False


# --- rows ----------------------------------------------------------------------------------------
def _vkey(v: str):
    return tuple(int(p) for p in v.split(".")) if v else (0,)


def build_rows(area, cuda_lists, h72, h64, r72, r64, sources):
    rows = []
    hip_src = f"{'/'.join(d.split('/')[0] for d in HIP_DIRS[area][:1])} headers ROCm 7.2/6.4"
    for lst in AREA_LISTS[area]:
        src, names, aliases = cuda_lists[lst]
        for cuda in sorted(names):
            kind, hdr = names[cuda]
            target = aliases.get(cuda)
            if kind == "macro" and target and target in names:
                kind = names[target][0]
            kind = {"enum": "enum", "type": "type", "function": "function"}.get(kind, "macro")
            if lst == "curand" and kind == "function" and (cuda.startswith("curand_") or
                                                          cuda in ("curand", "curand4") or
                                                          cuda.startswith("skipahead")):
                kind = "device_function"
            source = f"{hdr} ({src}); {hip_src}"
            base = dict(cuda=cuda, hip="", roc="", kind=kind, status="unsupported", hip_since="",
                        transform="", notes="", source=source)
            if _VERSION_MACRO.search(cuda) and kind == "macro":
                base["notes"] = "library version number: not comparable with the HIP library's version"
                rows.append(base)
                continue
            hip = hip_candidate(area, cuda)
            if hip is None or hip not in h72:
                note = NOTES_UNSUPPORTED[area]
                if cuda.startswith("cublasXt"):
                    note = "cuBLASXt (multi-GPU host API) has no HIP equivalent; use hipBLAS per device"
                elif lst == "cublas" and hdr == "cublas.h":
                    note = "legacy cuBLAS API (cublas.h): hipBLAS has only the handle-based API"
                elif cuda.startswith("cusolverMg"):
                    note = "cuSOLVERMg (multi-GPU) has no HIP equivalent"
                elif hip and hip.startswith("hipsolver") and hip.replace("hipsolver", "rocsolver_", 1):
                    pass
                base["notes"] = note
                rows.append(base)
                continue
            deprecated = hip in h72.deprecated
            variants = []
            if area == "blas":
                v2 = re.sub(r"(_64)?$", r"_v2\1", hip, count=1)
                if v2 in h64 and v2 not in h72 and hip in h64:
                    variants.append((v2, "", "ROCm < 7.0: the hipComplex/hipDataType entry point is "
                                              f"the _v2 name ({hip} took hipblasComplex/hipblasDatatype_t)"))
                    variants.append((hip, "7.0", "from ROCm 7.0 the plain name takes hipComplex/hipDataType"))
            if not variants:
                since = "" if hip in h64 else "7.2"
                note = "" if not since else "not in ROCm 6.4 headers (7.0/7.1 not checked)"
                variants.append((hip, since, note))
            roc, roc_note = "", ""
            rc = roc_candidate(area, cuda)
            if rc and area in ROC_DIRS and rc in r72:
                if kind in ("function",) and cuda not in ROC_TYPES.get(area, {}):
                    csig = names_sigs(cuda_lists, lst, cuda, aliases)
                    if same_signature(area, csig, r72.signatures.get(rc)):
                        roc = rc
                    else:
                        roc_note = f"{rc} takes different arguments: --roc keeps {hip}"
                else:
                    roc = rc
            for hipname, since, note in variants:
                r = dict(base, hip=hipname, status="deprecated" if deprecated else "supported",
                         hip_since=since)
                if roc and (since == "" and (roc in r64) or since != ""):
                    r["roc"] = roc
                notes = [n for n in (note, roc_note) if n]
                if deprecated:
                    notes.append(f"deprecated in {HIP_LIB[area]} (ROCm 7.2)")
                r["notes"] = "; ".join(notes)
                rows.append(r)
    rows.sort(key=lambda r: (r["cuda"], _vkey(r["hip_since"])))
    return rows


_CUDA_SIGS: dict[str, Declarations] = {}


def names_sigs(cuda_lists, lst, cuda, aliases):
    d = _CUDA_SIGS.get(lst)
    target = aliases.get(cuda, cuda)
    return d.signatures.get(target) or d.signatures.get(cuda) if d else None


HEADER_ROWS = [
    # cuda, hip, roc, notes
    ("cublas.h", "hipblas/hipblas.h", "rocblas/rocblas.h",
     "legacy cuBLAS API header: only its handle-based names map"),
    ("cublasLt.h", "hipblaslt/hipblaslt.h", "", ""),
    ("cublasXt.h", "", "", "cuBLASXt has no HIP equivalent"),
    ("cublas_api.h", "hipblas/hipblas.h", "rocblas/rocblas.h", ""),
    ("cublas_v2.h", "hipblas/hipblas.h", "rocblas/rocblas.h", ""),
    ("cudalibxt.h", "hipfft/hiplibxt.h", "", ""),
    ("cufft.h", "hipfft/hipfft.h", "", "rocFFT's plan API differs: --roc keeps hipFFT"),
    ("cufftXt.h", "hipfft/hipfftXt.h", "", ""),
    ("cufftw.h", "hipfft/hipfftw.h", "", ""),
    ("curand.h", "hiprand/hiprand.h", "rocrand/rocrand.h", ""),
    ("curand_kernel.h", "hiprand/hiprand_kernel.h", "rocrand/rocrand_kernel.h", ""),
    ("curand_mtgp32_host.h", "hiprand/hiprand_mtgp32_host.h", "", ""),
    ("cusolverDn.h", "hipsolver/hipsolver.h", "", "rocSOLVER's API differs (no workspace arguments)"),
    ("cusolverMg.h", "", "", "cuSOLVERMg has no HIP equivalent"),
    ("cusolverRf.h", "hipsolver/hipsolver.h", "", ""),
    ("cusolverSp.h", "hipsolver/hipsolver.h", "", ""),
    ("cusolver_common.h", "hipsolver/hipsolver.h", "", ""),
    ("cusparse.h", "hipsparse/hipsparse.h", "rocsparse/rocsparse.h", ""),
    ("cusparse_v2.h", "hipsparse/hipsparse.h", "rocsparse/rocsparse.h", ""),
]


def header_rows(usr72: Path, usr64: Path):
    rows = []
    inc72, inc64 = usr72 / "include", usr64 / "include"
    for cuda, hip, roc, note in HEADER_ROWS:
        if hip and not (inc72 / hip).is_file():
            raise SystemExit(f"{hip} missing from ROCm 7.2")
        if roc and not (inc72 / roc).is_file():
            raise SystemExit(f"{roc} missing from ROCm 7.2")
        since = "" if not hip or (inc64 / hip).is_file() else "7.2"
        rows.append(dict(cuda=cuda, hip=hip, roc=roc, kind="header",
                         status="supported" if hip else "unsupported", hip_since=since,
                         transform="", notes=note,
                         source="NVIDIA library wheels; ROCm 7.2/6.4 include folders"))
    rows.sort(key=lambda r: (r["cuda"], _vkey(r["hip_since"])))
    return rows


def write_csv(path: Path, rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    path.write_text(buf.getvalue())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--wheels", type=Path, default=Path("/tmp/dl"),
                    help="folder with the nvidia-cublas/curand/cufft/cusparse/cusolver wheels")
    ap.add_argument("--rocm72", type=Path, default=Path("/opt/porter-rocm/7.2/usr"))
    ap.add_argument("--rocm64", type=Path, default=Path("/opt/porter-rocm/6.4/usr"))
    ap.add_argument("--only-lists", action="store_true", help="only write the CUDA name lists")
    args = ap.parse_args(argv)
    cuda = extract_cuda(args.wheels)
    write_name_lists(cuda)
    if args.only_lists:
        return 0
    for lst, (wheel, hdrs) in SOURCES.items():
        _, texts = _wheel_headers(args.wheels, wheel, hdrs)
        d = Declarations()
        for t in texts.values():
            parse_text(t, d)
        _CUDA_SIGS[lst] = d
    summary = []
    for area in HIP_DIRS:
        h72 = rocm_decls(args.rocm72, HIP_DIRS[area])
        h64 = rocm_decls(args.rocm64, HIP_DIRS[area])
        r72 = rocm_decls(args.rocm72, ROC_DIRS.get(area, []))
        r64 = rocm_decls(args.rocm64, ROC_DIRS.get(area, []))
        rows = build_rows(area, cuda, h72, h64, r72, r64, None)
        write_csv(MAPPINGS / f"{area}.csv", rows)
        sup = sum(1 for r in rows if r["hip"])
        summary.append(f"{area}: {len(rows)} rows, {sup} with a hip name, "
                       f"{len(rows) - sup} unsupported, {sum(1 for r in rows if r['roc'])} with roc")
    write_csv(MAPPINGS / "libheaders_math.csv", header_rows(args.rocm72, args.rocm64))
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
