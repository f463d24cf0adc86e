#!/usr/bin/env python3
"""Generate the library mapping tables of "Library coverage, part 2".

Tables written (all in mappings/):
  dnn.csv      cuDNN -> MIOpen          cub.csv     CUB -> hipCUB
  thrust.csv   Thrust -> rocThrust      libcxx.csv  libcu++ (cuda::std) -> (none verified)
  nccl.csv     NCCL -> RCCL             nvtx.csv    NVTX -> roctx
  rtc.csv      NVRTC -> hipRTC          coop.csv    cooperative groups (CUDA vs HIP)
  tensor.csv   cuTENSOR -> (none)       wmma.csv    nvcuda::wmma -> rocwmma
  libheaders_other.csv  include paths of all of the above

Two steps:

  extract   read NVIDIA's library headers (from wheels unpacked by the caller, and from the CUDA
            toolkit) and write the sorted name lists in scripts/data/cuda_library_names_other/.
            Each list starts with a '#' line naming the package and version it came from; each
            further line is "name<TAB>kind".
  generate  (default) read those lists and the ROCm headers and write the CSV files. Only names
            the ROCm headers really declare are mapped; everything else is an unsupported row.

Usage:
  python scripts/gen_lib_mappings_other.py extract --cudnn DIR --nccl DIR --nvrtc DIR \
        --cutensor DIR [--cuda /usr/local/cuda/include]
  python scripts/gen_lib_mappings_other.py generate [--rocm /opt/porter-rocm/7.2/usr] \
        [--rocm64 /opt/porter-rocm/6.4/usr] [--roctx DIR] [--roctx64 DIR] [--rocwmma DIR]

--roctx / --rocwmma name include folders holding roctracer/roctx.h and rocwmma/rocwmma.hpp when
they are not in the ROCm prefix (they are not in the unpacked prefix: Debian packages
libroctx-dev and librocwmma-dev carry them).
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "scripts" / "data" / "cuda_library_names_other"
MAPPINGS = ROOT / "mappings"
COLUMNS = ("cuda", "hip", "roc", "kind", "status", "hip_since", "transform", "notes", "source")

sys.path.insert(0, str(ROOT))
from porter.mappings.model import parse_version  # noqa: E402

# --------------------------------------------------------------------------------------------
# Extraction of C names from headers
# --------------------------------------------------------------------------------------------
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)", re.M)
_ENUM = re.compile(r"\benum\b[^{;]*\{(.*?)\}", re.S)
_TYPEDEF_END = re.compile(r"\btypedef\b[^;]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*;", re.S)
_TYPEDEF_FNPTR = re.compile(r"\btypedef\b[^;]*?\(\s*\w*\s*\*\s*([A-Za-z_]\w*)\s*\)", re.S)
_STRUCT = re.compile(r"\b(?:struct|union|enum)\s+([A-Za-z_]\w*)")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def strip_comments(text: str) -> str:
    return _COMMENT.sub(" ", text)


def c_names(paths: list[Path], prefix: re.Pattern) -> dict[str, str]:
    """name -> kind for the names matching prefix declared in C headers."""
    kinds: dict[str, str] = {}
    order = {"macro": 0, "enum": 1, "type": 2, "function": 3}

    def put(name: str, kind: str) -> None:
        if not prefix.match(name) or name.endswith("_H") or name.endswith("_H_"):
            return
        old = kinds.get(name)
        if old is None or order[kind] > order[old]:
            kinds[name] = kind

    for p in paths:
        text = strip_comments(p.read_text(errors="replace"))
        text = re.sub(r"\b(CUDNN_DEPRECATED|CUDNN_DEPRECATED_ENUM|NCCL_DEPRECATED)\b(?!\s*\()", " ", text)
        for m in _DEFINE.finditer(text):
            put(m.group(1), "macro")
        body = re.sub(r"^\s*#.*?(?<!\\)$", " ", text, flags=re.M | re.S)
        for m in _ENUM.finditer(body):
            for item in m.group(1).split(","):
                item = item.strip()
                mm = re.match(r"([A-Za-z_]\w*)", item)
                if mm:
                    put(mm.group(1), "enum")
        for m in _STRUCT.finditer(body):
            put(m.group(1), "type")
        for m in _TYPEDEF_END.finditer(body):
            put(m.group(1), "type")
        for m in _TYPEDEF_FNPTR.finditer(body):
            put(m.group(1), "type")
        for m in _CALL.finditer(body):
            name = m.group(1)
            if name in kinds and kinds[name] in ("enum", "type"):
                continue
            put(name, "function")
    return kinds


def write_list(name: str, origin: str, kinds: dict[str, str]) -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    lines = [f"# {origin}"] + [f"{n}\t{kinds[n]}" for n in sorted(kinds)]
    (DATA / f"{name}.txt").write_text("\n".join(lines) + "\n")


def read_list(name: str) -> tuple[str, dict[str, str]]:
    origin, kinds = "", {}
    for line in (DATA / f"{name}.txt").read_text().splitlines():
        if line.startswith("#"):
            origin = origin or line[1:].strip()
            continue
        if line.strip():
            n, _, k = line.partition("\t")
            kinds[n] = k or "function"
    return origin, kinds


def wheel_version(folder: Path, dist: str) -> str:
    for meta in folder.glob(f"{dist}-*.dist-info/METADATA"):
        for line in meta.read_text().splitlines():
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def cmd_extract(args) -> None:
    cuda = Path(args.cuda)
    # cuDNN
    root = Path(args.cudnn)
    inc = next(root.rglob("cudnn_graph_v9.h")).parent
    heads = sorted(p for p in inc.glob("cudnn*_v9.h"))
    kinds = c_names(heads, re.compile(r"(cudnn|CUDNN_)"))
    kinds = {k: v for k, v in kinds.items() if not k.startswith("CUDNN_DEPRECATED")}
    for h in sorted(inc.glob("cudnn*.h")):
        kinds[h.name] = "header"
    write_list("cudnn", f"nvidia-cudnn-cu13 {wheel_version(root, 'nvidia_cudnn_cu13')} "
               "(include/cudnn*_v9.h, cudnn*.h)", kinds)
    # NCCL
    root = Path(args.nccl)
    inc = next(root.rglob("nccl.h")).parent
    kinds = c_names([inc / "nccl.h"], re.compile(r"(nccl|NCCL_)"))
    kinds = {k: v for k, v in kinds.items() if not k.startswith(("NCCL_H", "NCCL_EXPORT"))}
    for h in ("nccl.h", "nccl_device.h"):
        if (inc / h).is_file():
            kinds[h] = "header"
    write_list("nccl", f"nvidia-nccl-cu13 {wheel_version(root, 'nvidia_nccl_cu13')} (include/nccl.h)",
               kinds)
    # NVRTC
    root = Path(args.nvrtc)
    inc = next(root.rglob("nvrtc.h")).parent
    kinds = c_names([inc / "nvrtc.h"], re.compile(r"(nvrtc[A-Z]|NVRTC_)"))
    kinds["nvrtc.h"] = "header"
    write_list("nvrtc", f"nvidia-cuda-nvrtc {wheel_version(root, 'nvidia_cuda_nvrtc')} "
               "(include/nvrtc.h)", kinds)
    # cuTENSOR
    root = Path(args.cutensor)
    inc = next(root.rglob("cutensor.h")).parent
    kinds = c_names([inc / "cutensor.h", inc / "cutensor" / "types.h"],
                    re.compile(r"(cutensor[A-Z]|CUTENSOR_)"))
    for h in ("cutensor.h", "cutensor/types.h", "cutensorMg.h", "cutensorMp.h"):
        if (inc / h).is_file():
            kinds[h] = "header"
    write_list("cutensor", f"cutensor-cu13 {wheel_version(root, 'cutensor_cu13')} "
               "(include/cutensor.h, include/cutensor/types.h)", kinds)
    # NVTX (CUDA toolkit)
    nv = cuda / "nvtx3"
    heads = [nv / "nvToolsExt.h", nv / "nvToolsExtCuda.h", nv / "nvToolsExtCudaRt.h",
             nv / "nvToolsExtSync.h", nv / "nvtxDetail" / "nvtxTypes.h"]
    kinds = c_names([h for h in heads if h.is_file()], re.compile(r"(nvtx[A-Z]|NVTX_)"))
    kinds = {k: v for k, v in kinds.items()
             if not re.search(r"_v\d$|_impl|_fntype|Impl|_IMPL|NVTX_VERSIONED|NVTX_EXT_|_mem$", k)}
    write_list("nvtx", f"CUDA 13 toolkit {cuda}/nvtx3 (nvToolsExt.h, nvToolsExtCuda.h, "
               "nvToolsExtCudaRt.h, nvToolsExtSync.h)", kinds)


# --------------------------------------------------------------------------------------------
# ROCm side
# --------------------------------------------------------------------------------------------
class Decls:
    """Identifier set of a group of headers (comments stripped)."""

    def __init__(self, paths):
        self.words: set[str] = set()
        self.paths = [Path(p) for p in paths if p and Path(p).is_file()]
        for p in self.paths:
            self.words.update(re.findall(r"[A-Za-z_]\w*", strip_comments(p.read_text(errors="replace"))))

    def __contains__(self, name: str) -> bool:
        return name.split("::")[-1] in self.words

    def __bool__(self) -> bool:
        return bool(self.paths)


def row(cuda, hip="", kind="function", status=None, since="", notes="", source="", transform=""):
    if status is None:
        status = "supported" if hip else "unsupported"
    return {"cuda": cuda, "hip": hip, "roc": "", "kind": kind, "status": status,
            "hip_since": since, "transform": transform, "notes": notes, "source": source}


def write_csv(name: str, rows: list[dict]) -> None:
    rows = sorted(rows, key=lambda r: (r["cuda"], parse_version(r["hip_since"])))
    seen = set()
    for r in rows:
        key = (r["cuda"], r["hip_since"])
        if key in seen:
            raise SystemExit(f"{name}: duplicate row {key}")
        seen.add(key)
    with open(MAPPINGS / f"{name}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    sup = sum(1 for r in rows if r["hip"])
    print(f"{name}.csv: {len(rows)} rows ({sup} with a HIP name, {len(rows) - sup} unsupported)")


def need_in(decls: Decls, name: str, what: str) -> None:
    if name not in decls:
        raise SystemExit(f"{what}: {name} is not declared in the ROCm headers")


# --------------------------------------------------------------------------------------------
# cuDNN -> MIOpen
# --------------------------------------------------------------------------------------------
# Only names whose MIOpen counterpart means the same (same arguments for functions, same
# meaning for enum values and types).
DNN_MAP = {
    # handle
    "cudnnHandle_t": "miopenHandle_t",
    "cudnnCreate": "miopenCreate",
    "cudnnDestroy": "miopenDestroy",
    "cudnnSetStream": "miopenSetStream",
    "cudnnGetStream": "miopenGetStream",
    "cudnnGetErrorString": "miopenGetErrorString",
    # status
    "cudnnStatus_t": "miopenStatus_t",
    "CUDNN_STATUS_SUCCESS": "miopenStatusSuccess",
    "CUDNN_STATUS_NOT_INITIALIZED": "miopenStatusNotInitialized",
    "CUDNN_STATUS_BAD_PARAM": "miopenStatusBadParm",
    "CUDNN_STATUS_INTERNAL_ERROR": "miopenStatusInternalError",
    "CUDNN_STATUS_ALLOC_FAILED": "miopenStatusAllocFailed",
    # descriptors: opaque handle types and their create/destroy calls
    "cudnnTensorDescriptor_t": "miopenTensorDescriptor_t",
    "cudnnCreateTensorDescriptor": "miopenCreateTensorDescriptor",
    "cudnnDestroyTensorDescriptor": "miopenDestroyTensorDescriptor",
    "cudnnConvolutionDescriptor_t": "miopenConvolutionDescriptor_t",
    "cudnnCreateConvolutionDescriptor": "miopenCreateConvolutionDescriptor",
    "cudnnDestroyConvolutionDescriptor": "miopenDestroyConvolutionDescriptor",
    "cudnnActivationDescriptor_t": "miopenActivationDescriptor_t",
    "cudnnCreateActivationDescriptor": "miopenCreateActivationDescriptor",
    "cudnnDestroyActivationDescriptor": "miopenDestroyActivationDescriptor",
    "cudnnPoolingDescriptor_t": "miopenPoolingDescriptor_t",
    "cudnnCreatePoolingDescriptor": "miopenCreatePoolingDescriptor",
    "cudnnDestroyPoolingDescriptor": "miopenDestroyPoolingDescriptor",
    "cudnnLRNDescriptor_t": "miopenLRNDescriptor_t",
    "cudnnCreateLRNDescriptor": "miopenCreateLRNDescriptor",
    "cudnnDestroyLRNDescriptor": "miopenDestroyLRNDescriptor",
    "cudnnDropoutDescriptor_t": "miopenDropoutDescriptor_t",
    "cudnnCreateDropoutDescriptor": "miopenCreateDropoutDescriptor",
    "cudnnDestroyDropoutDescriptor": "miopenDestroyDropoutDescriptor",
    "cudnnRNNDescriptor_t": "miopenRNNDescriptor_t",
    "cudnnCreateRNNDescriptor": "miopenCreateRNNDescriptor",
    "cudnnDestroyRNNDescriptor": "miopenDestroyRNNDescriptor",
    "cudnnCTCLossDescriptor_t": "miopenCTCLossDescriptor_t",
    "cudnnCreateCTCLossDescriptor": "miopenCreateCTCLossDescriptor",
    "cudnnDestroyCTCLossDescriptor": "miopenDestroyCTCLossDescriptor",
    "cudnnReduceTensorDescriptor_t": "miopenReduceTensorDescriptor_t",
    "cudnnCreateReduceTensorDescriptor": "miopenCreateReduceTensorDescriptor",
    "cudnnDestroyReduceTensorDescriptor": "miopenDestroyReduceTensorDescriptor",
    # calls with the same argument list and meaning (checked one by one against miopen.h)
    "cudnnSetTensor4dDescriptorEx": "miopenSet4dTensorDescriptorEx",
    "cudnnGetTensor4dDescriptor": "miopenGet4dTensorDescriptor",
    "cudnnSetTensorNdDescriptor": "miopenSetTensorDescriptor",
    "cudnnGetTensorSizeInBytes": "miopenGetTensorNumBytes",
    "cudnnSetTensor": "miopenSetTensor",
    "cudnnScaleTensor": "miopenScaleTensor",
    "cudnnTransformTensor": "miopenTransformTensor",
    "cudnnSetConvolutionGroupCount": "miopenSetConvolutionGroupCount",
    "cudnnDeriveBNTensorDescriptor": "miopenDeriveBNTensorDescriptor",
    "cudnnDropoutGetStatesSize": "miopenDropoutGetStatesSize",
    "cudnnDropoutGetReserveSpaceSize": "miopenDropoutGetReserveSpaceSize",
    "cudnnSetReduceTensorDescriptor": "miopenSetReduceTensorDescriptor",
    "cudnnReduceTensor": "miopenReduceTensor",
    "cudnnGetReductionWorkspaceSize": "miopenGetReductionWorkspaceSize",
    "cudnnGetReductionIndicesSize": "miopenGetReductionIndicesSize",
    # data types
    "cudnnDataType_t": "miopenDataType_t",
    "CUDNN_DATA_FLOAT": "miopenFloat",
    "CUDNN_DATA_DOUBLE": "miopenDouble",
    "CUDNN_DATA_HALF": "miopenHalf",
    "CUDNN_DATA_INT8": "miopenInt8",
    "CUDNN_DATA_INT32": "miopenInt32",
    "CUDNN_DATA_INT64": "miopenInt64",
    "CUDNN_DATA_BFLOAT16": "miopenBFloat16",
    # layouts
    "cudnnTensorFormat_t": "miopenTensorLayout_t",
    "CUDNN_TENSOR_NCHW": "miopenTensorNCHW",
    "CUDNN_TENSOR_NHWC": "miopenTensorNHWC",
    # element-wise tensor ops
    "cudnnOpTensorOp_t": "miopenTensorOp_t",
    "CUDNN_OP_TENSOR_ADD": "miopenTensorOpAdd",
    "CUDNN_OP_TENSOR_MUL": "miopenTensorOpMul",
    "CUDNN_OP_TENSOR_MIN": "miopenTensorOpMin",
    "CUDNN_OP_TENSOR_MAX": "miopenTensorOpMax",
    # pooling
    "cudnnPoolingMode_t": "miopenPoolingMode_t",
    "CUDNN_POOLING_MAX": "miopenPoolingMax",
    "CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING": "miopenPoolingAverageInclusive",
    "CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING": "miopenPoolingAverage",
    # LRN
    "cudnnLRNMode_t": "miopenLRNMode_t",
    "CUDNN_LRN_CROSS_CHANNEL_DIM1": "miopenLRNCrossChannel",
    # batch norm
    "cudnnBatchNormMode_t": "miopenBatchNormMode_t",
    "CUDNN_BATCHNORM_PER_ACTIVATION": "miopenBNPerActivation",
    "CUDNN_BATCHNORM_SPATIAL": "miopenBNSpatial",
    # activation
    "cudnnActivationMode_t": "miopenActivationMode_t",
    "CUDNN_ACTIVATION_SIGMOID": "miopenActivationLOGISTIC",
    "CUDNN_ACTIVATION_RELU": "miopenActivationRELU",
    "CUDNN_ACTIVATION_TANH": "miopenActivationTANH",
    "CUDNN_ACTIVATION_CLIPPED_RELU": "miopenActivationCLIPPEDRELU",
    "CUDNN_ACTIVATION_ELU": "miopenActivationELU",
    "CUDNN_ACTIVATION_IDENTITY": "miopenActivationPASTHRU",
    # softmax
    "cudnnSoftmaxAlgorithm_t": "miopenSoftmaxAlgorithm_t",
    "CUDNN_SOFTMAX_FAST": "MIOPEN_SOFTMAX_FAST",
    "CUDNN_SOFTMAX_ACCURATE": "MIOPEN_SOFTMAX_ACCURATE",
    "CUDNN_SOFTMAX_LOG": "MIOPEN_SOFTMAX_LOG",
    "cudnnSoftmaxMode_t": "miopenSoftmaxMode_t",
    "CUDNN_SOFTMAX_MODE_INSTANCE": "MIOPEN_SOFTMAX_MODE_INSTANCE",
    "CUDNN_SOFTMAX_MODE_CHANNEL": "MIOPEN_SOFTMAX_MODE_CHANNEL",
    # reductions
    "cudnnReduceTensorOp_t": "miopenReduceTensorOp_t",
    "CUDNN_REDUCE_TENSOR_ADD": "MIOPEN_REDUCE_TENSOR_ADD",
    "CUDNN_REDUCE_TENSOR_MUL": "MIOPEN_REDUCE_TENSOR_MUL",
    "CUDNN_REDUCE_TENSOR_MIN": "MIOPEN_REDUCE_TENSOR_MIN",
    "CUDNN_REDUCE_TENSOR_MAX": "MIOPEN_REDUCE_TENSOR_MAX",
    "CUDNN_REDUCE_TENSOR_AMAX": "MIOPEN_REDUCE_TENSOR_AMAX",
    "CUDNN_REDUCE_TENSOR_AVG": "MIOPEN_REDUCE_TENSOR_AVG",
    "CUDNN_REDUCE_TENSOR_NORM1": "MIOPEN_REDUCE_TENSOR_NORM1",
    "CUDNN_REDUCE_TENSOR_NORM2": "MIOPEN_REDUCE_TENSOR_NORM2",
    "cudnnNanPropagation_t": "miopenNanPropagation_t",
    "CUDNN_NOT_PROPAGATE_NAN": "MIOPEN_NOT_PROPAGATE_NAN",
    "CUDNN_PROPAGATE_NAN": "MIOPEN_PROPAGATE_NAN",
    "cudnnReduceTensorIndices_t": "miopenReduceTensorIndices_t",
    "CUDNN_REDUCE_TENSOR_NO_INDICES": "MIOPEN_REDUCE_TENSOR_NO_INDICES",
    "CUDNN_REDUCE_TENSOR_FLATTENED_INDICES": "MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES",
    "cudnnIndicesType_t": "miopenIndicesType_t",
    "CUDNN_32BIT_INDICES": "MIOPEN_32BIT_INDICES",
    "CUDNN_64BIT_INDICES": "MIOPEN_64BIT_INDICES",
    "CUDNN_16BIT_INDICES": "MIOPEN_16BIT_INDICES",
    "CUDNN_8BIT_INDICES": "MIOPEN_8BIT_INDICES",
    # RNN
    "cudnnRNNMode_t": "miopenRNNMode_t",
    "CUDNN_RNN_RELU": "miopenRNNRELU",
    "CUDNN_RNN_TANH": "miopenRNNTANH",
    "CUDNN_LSTM": "miopenLSTM",
    "CUDNN_GRU": "miopenGRU",
    "cudnnDirectionMode_t": "miopenRNNDirectionMode_t",
    "CUDNN_UNIDIRECTIONAL": "miopenRNNunidirection",
    "CUDNN_BIDIRECTIONAL": "miopenRNNbidirection",
    "cudnnRNNInputMode_t": "miopenRNNInputMode_t",
    "CUDNN_LINEAR_INPUT": "miopenRNNlinear",
    "CUDNN_SKIP_INPUT": "miopenRNNskip",
    # CTC loss
    "cudnnCTCLossAlgo_t": "miopenCTCLossAlgo_t",
    "CUDNN_CTC_LOSS_ALGO_DETERMINISTIC": "MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC",
}
DNN_NOTES = {
    "CUDNN_STATUS_ALLOC_FAILED": "deprecated cuDNN alias of CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED",
    "CUDNN_STATUS_BAD_PARAM": "cuDNN 9 also returns BAD_PARAM_* sub-codes: range checks on them do not port",
    "CUDNN_STATUS_INTERNAL_ERROR": "cuDNN 9 also returns INTERNAL_ERROR_* sub-codes: range checks on them do not port",
    "cudnnTensorFormat_t": "MIOpen takes the layout only in some calls (e.g. miopenSetNdTensorDescriptorWithLayout)",
    "CUDNN_ACTIVATION_TANH": "MIOpen computes beta*tanh(alpha*x): the descriptor's set call differs (unsupported)",
    "CUDNN_ACTIVATION_CLIPPED_RELU": "clip value: cuDNN coef, MIOpen alpha (set calls differ)",
    "CUDNN_ACTIVATION_ELU": "alpha: cuDNN coef, MIOpen alpha (set calls differ)",
    "cudnnSetStream": "cudaStream_t -> hipStream_t (miopenAcceleratorQueue_t)",
    "cudnnGetStream": "cudaStream_t -> hipStream_t (miopenAcceleratorQueue_t)",
    "CUDNN_DATA_INT64": "MIOpen: partially supported data type",
    "CUDNN_DATA_DOUBLE": "MIOpen: partially supported data type",
}
# unsupported, but MIOpen has a call for the same job with a different contract
DNN_EQUIV = {
    "cudnnSetTensor4dDescriptor": "miopenSet4dTensorDescriptor: no format argument (NCHW only)",
    "cudnnGetTensorNdDescriptor": "miopenGetTensorDescriptor: different argument list",
    "cudnnAddTensor": "miopenOpTensor with miopenTensorOpAdd: different argument list",
    "cudnnOpTensor": "miopenOpTensor: no op-tensor descriptor (op passed directly)",
    "cudnnSetConvolution2dDescriptor": "miopenInitConvolutionDescriptor: different argument list (mode, no compute type)",
    "cudnnSetConvolutionNdDescriptor": "miopenInitConvolutionNdDescriptor: different argument list",
    "cudnnGetConvolution2dForwardOutputDim": "miopenGetConvolutionForwardOutputDim: filter is a tensor descriptor in MIOpen",
    "cudnnConvolutionForward": "miopenConvolutionForward: different workspace/algorithm-search contract (miopenFindConvolutionForwardAlgorithm first)",
    "cudnnConvolutionBackwardData": "miopenConvolutionBackwardData: different workspace/algorithm-search contract",
    "cudnnConvolutionBackwardFilter": "miopenConvolutionBackwardWeights: different workspace/algorithm-search contract",
    "cudnnConvolutionBackwardBias": "miopenConvolutionBackwardBias: check argument list",
    "cudnnFindConvolutionForwardAlgorithm": "miopenFindConvolutionForwardAlgorithm: needs buffers and workspace",
    "cudnnGetConvolutionForwardAlgorithm_v7": "miopenFindConvolutionForwardAlgorithm or immediate mode (miopenConvolutionForwardGetSolution): different contract",
    "cudnnGetConvolutionForwardWorkspaceSize": "miopenConvolutionForwardGetWorkSpaceSize: no algorithm argument",
    "cudnnGetConvolutionBackwardDataWorkspaceSize": "miopenConvolutionBackwardDataGetWorkSpaceSize: no algorithm argument",
    "cudnnGetConvolutionBackwardFilterWorkspaceSize": "miopenConvolutionBackwardWeightsGetWorkSpaceSize: no algorithm argument",
    "cudnnFilterDescriptor_t": "MIOpen describes filters with miopenTensorDescriptor_t",
    "cudnnCreateFilterDescriptor": "MIOpen describes filters with miopenTensorDescriptor_t (miopenCreateTensorDescriptor)",
    "cudnnDestroyFilterDescriptor": "MIOpen describes filters with miopenTensorDescriptor_t (miopenDestroyTensorDescriptor)",
    "cudnnSetFilter4dDescriptor": "MIOpen describes filters with miopenSet4dTensorDescriptor",
    "cudnnSetActivationDescriptor": "miopenSetActivationDescriptor: (mode, alpha, beta, gamma) instead of (mode, nanOpt, coef)",
    "cudnnGetActivationDescriptor": "miopenGetActivationDescriptor: (mode, alpha, beta, gamma) instead of (mode, nanOpt, coef)",
    "cudnnActivationForward": "miopenActivationForward: same job, check argument list",
    "cudnnActivationBackward": "miopenActivationBackward: same job, check argument list",
    "cudnnSetPooling2dDescriptor": "miopenSet2dPoolingDescriptor: no NaN-propagation argument",
    "cudnnSetPoolingNdDescriptor": "miopenSetNdPoolingDescriptor: no NaN-propagation argument",
    "cudnnPoolingForward": "miopenPoolingForward: extra do_backward/workspace arguments",
    "cudnnPoolingBackward": "miopenPoolingBackward: needs the forward workspace",
    "cudnnSoftmaxForward": "miopenSoftmaxForward_V2: same job, check argument list",
    "cudnnSoftmaxBackward": "miopenSoftmaxBackward_V2: same job, check argument list",
    "cudnnSetLRNDescriptor": "miopenSetLRNDescriptor: takes the LRN mode too",
    "cudnnLRNCrossChannelForward": "miopenLRNForward: extra do_backward/workspace arguments",
    "cudnnLRNCrossChannelBackward": "miopenLRNBackward: needs the forward workspace",
    "cudnnBatchNormalizationForwardTraining": "miopenBatchNormalizationForwardTraining: same job, check argument list",
    "cudnnBatchNormalizationForwardInference": "miopenBatchNormalizationForwardInference: same job, check argument list",
    "cudnnBatchNormalizationBackward": "miopenBatchNormalizationBackward: same job, check argument list",
    "cudnnSetDropoutDescriptor": "miopenSetDropoutDescriptor: extra arguments (use_mask, state_evo, rng_mode)",
    "cudnnDropoutForward": "miopenDropoutForward: extra arguments",
    "cudnnDropoutBackward": "miopenDropoutBackward: extra arguments",
    "cudnnSetCTCLossDescriptor": "miopenSetCTCLossDescriptor: different argument list",
    "cudnnCTCLoss": "miopenCTCLoss: different argument list",
    "cudnnGetCTCLossWorkspaceSize": "miopenGetCTCLossWorkspaceSize: different argument list",
    "cudnnRNNForward": "miopenRNNForward: different argument list",
    "cudnnSetRNNDescriptor_v8": "miopenSetRNNDescriptor_V2: different argument list",
    "cudnnGetRNNWeightSpaceSize": "miopenGetRNNParamsSize: different argument list",
    "cudnnGetVersion": "miopenGetVersion: returns major/minor/patch through pointers",
    "cudnnBackendCreateDescriptor": "miopenBackendCreateDescriptor (MIOpen graph API, partial coverage)",
    "cudnnBackendDestroyDescriptor": "miopenBackendDestroyDescriptor (MIOpen graph API, partial coverage)",
    "cudnnBackendSetAttribute": "miopenBackendSetAttribute (MIOpen graph API, partial coverage)",
    "cudnnBackendGetAttribute": "miopenBackendGetAttribute (MIOpen graph API, partial coverage)",
    "cudnnBackendFinalize": "miopenBackendFinalize (MIOpen graph API, partial coverage)",
    "cudnnBackendExecute": "miopenBackendExecute (MIOpen graph API, partial coverage)",
    "CUDNN_CONVOLUTION": "MIOpen's miopenConvolution is a cross-correlation; true convolution has no MIOpen mode",
    "CUDNN_CROSS_CORRELATION": "miopenConvolution (MIOpen convolutions are cross-correlations); set through miopenInitConvolutionDescriptor",
    "CUDNN_DATA_FP8_E4M3": "MIOpen has miopenFloat8_fnuz (FNUZ encoding, not OCP E4M3)",
    "CUDNN_DATA_FP8_E5M2": "MIOpen has miopenBFloat8_fnuz (FNUZ encoding, not OCP E5M2)",
    "CUDNN_STATUS_NOT_SUPPORTED": "MIOpen returns miopenStatusNotImplemented or miopenStatusUnsupportedOp depending on the call",
}


def gen_dnn(rocm: Path, rocm64: Path) -> tuple[list[dict], list[dict]]:
    origin, names = read_list("cudnn")
    decl = Decls([rocm / "include/miopen/miopen.h"])
    decl64 = Decls([rocm64 / "include/miopen/miopen.h"])
    src = "miopen.h ROCm 7.2; " + origin
    rows, heads = [], []
    for name, kind in names.items():
        if kind == "header":
            continue
        hip = DNN_MAP.get(name, "")
        if hip:
            need_in(decl, hip, "dnn")
            since = "" if (hip in decl64 or not decl64) else "7.2"
            rows.append(row(name, hip, kind, since=since, notes=DNN_NOTES.get(name, ""), source=src))
        else:
            eq = DNN_EQUIV.get(name, "")
            for cand in re.findall(r"\bmiopen\w+", eq):
                need_in(decl, cand, f"dnn note of {name}")
            rows.append(row(name, "", kind, notes=eq or "no one-to-one MIOpen equivalent",
                            source=src))
    missing = set(DNN_MAP) - set(names)
    if missing:
        raise SystemExit(f"dnn: mapped names missing from the cuDNN list: {sorted(missing)}")
    for name, kind in names.items():
        if kind != "header":
            continue
        if name == "cudnn.h":
            heads.append(row(name, "miopen/miopen.h", "header",
                             notes="MIOpen's single header; most cuDNN calls need manual porting",
                             source="miopen/miopen.h ROCm 7.2; " + origin))
        else:
            heads.append(row(name, "", "header",
                             notes="no MIOpen counterpart of the cuDNN sub-library header: "
                                   "include miopen/miopen.h", source=origin))
    return rows, heads


# --------------------------------------------------------------------------------------------
# NCCL -> RCCL
# --------------------------------------------------------------------------------------------
def gen_nccl(rocm: Path, rocm64: Path):
    origin, names = read_list("nccl")
    decl = Decls([rocm / "include/rccl/rccl.h"])
    decl64 = Decls([rocm64 / "include/rccl/rccl.h"])
    src = "rccl/rccl.h ROCm 7.2 (librccl-dev 7.2.4); " + origin
    rows, heads = [], []
    for name, kind in names.items():
        if kind == "header":
            continue
        if name in decl:
            since, note = "", "RCCL keeps the NCCL name"
            if decl64 and name not in decl64:
                since = "7.2"
                note += ("; absent from the RCCL headers of the 6.4 prefix (librccl-dev 5.4.3): "
                         "exact introduction not verified, 7.2 is the first checked")
            rows.append(row(name, name, kind, since=since, notes=note, source=src))
        else:
            rows.append(row(name, "", kind, notes="not declared by RCCL (rccl/rccl.h ROCm 7.2)",
                            source=src))
    for name in names:
        if names[name] != "header":
            continue
        if name == "nccl.h":
            heads.append(row(name, "rccl/rccl.h", "header", notes="RCCL keeps the nccl* API names",
                             source=src))
        else:
            heads.append(row(name, "", "header",
                             notes="NCCL device-initiated API: RCCL ROCm 7.2 ships no counterpart",
                             source=origin))
    return rows, heads


# --------------------------------------------------------------------------------------------
# NVRTC -> hipRTC
# --------------------------------------------------------------------------------------------
RTC_SPECIAL = {
    "nvrtcGetCUBIN": ("hiprtcGetCode", "HIP returns the code object (load with hipModuleLoadData)"),
    "nvrtcGetCUBINSize": ("hiprtcGetCodeSize", "size of the code object"),
    "nvrtcGetPTX": ("hiprtcGetCode", "HIP has no PTX: returns the code object, which "
                    "hipModuleLoadData loads where CUDA loaded the PTX"),
    "nvrtcGetPTXSize": ("hiprtcGetCodeSize", "size of the code object (HIP has no PTX)"),
}
RTC_NOTES = {
    "nvrtcGetLTOIR": "hiprtcGetBitcode returns LLVM bitcode only when compiled with -fgpu-rdc: "
                     "options differ (-dlto)",
    "nvrtcGetLTOIRSize": "hiprtcGetBitcodeSize: see nvrtcGetLTOIR",
}


def gen_rtc(rocm: Path, rocm64: Path):
    origin, names = read_list("nvrtc")
    decl = Decls([rocm / "include/hip/hiprtc.h"])
    decl64 = Decls([rocm64 / "include/hip/hiprtc.h"])
    src = "hip/hiprtc.h ROCm 7.2; " + origin
    rows, heads = [], []
    for name, kind in names.items():
        if kind == "header":
            heads.append(row(name, "hip/hiprtc.h", "header", source=src))
            continue
        note = ""
        if name in RTC_SPECIAL:
            hip, note = RTC_SPECIAL[name]
        elif name.startswith("nvrtc"):
            hip = "hiprtc" + name[len("nvrtc"):]
        else:
            hip = "HIPRTC_" + name[len("NVRTC_"):]
        if hip in decl:
            since = "" if (hip in decl64 or not decl64) else "7.2"
            rows.append(row(name, hip, kind, since=since, notes=note, source=src))
        else:
            rows.append(row(name, "", kind, notes=RTC_NOTES.get(name, "not declared by hip/hiprtc.h"),
                            source=src))
    return rows, heads


# --------------------------------------------------------------------------------------------
# NVTX -> roctx
# --------------------------------------------------------------------------------------------
NVTX_MAP = {
    "nvtxMarkA": ("roctxMarkA", ""),
    "nvtxRangePushA": ("roctxRangePushA", ""),
    "nvtxRangePop": ("roctxRangePop", ""),
    "nvtxRangeStartA": ("roctxRangeStartA", ""),
    "nvtxRangeEnd": ("roctxRangeStop", "ends the range started by nvtxRangeStartA / roctxRangeStartA"),
    "nvtxRangeId_t": ("roctx_range_id_t", "both are uint64_t"),
    "nvtxMark": ("roctxMark", "both macros name the ASCII call (nvtxMarkA / roctxMarkA)"),
    "nvtxRangePush": ("roctxRangePush", "both macros name the ASCII call"),
    "nvtxRangeStart": ("roctxRangeStart", "both macros name the ASCII call"),
}


def gen_nvtx(roctx: Path | None, roctx64: Path | None):
    origin, names = read_list("nvtx")
    decl = Decls([roctx / "roctracer/roctx.h"] if roctx else [])
    decl64 = Decls([roctx64 / "roctracer/roctx.h"] if roctx64 else [])
    if not decl:
        raise SystemExit("nvtx: roctracer/roctx.h not found (pass --roctx DIR)")
    src = "roctracer/roctx.h libroctx-dev 7.2.4 (Debian); " + origin
    rows = []
    for name, kind in names.items():
        if name in NVTX_MAP:
            hip, note = NVTX_MAP[name]
            need_in(decl, hip, "nvtx")
            since = "" if (hip in decl64 or not decl64) else "7.2"
            rows.append(row(name, hip, kind, since=since, notes=note, source=src))
        else:
            note = "roctx has only marks and ranges with ASCII messages"
            if name.endswith("W"):
                note = "roctx has no wide-character variant"
            elif "Ex" in name or "EventAttributes" in name:
                note = "roctx has no event attributes (colour, payload): use the *A call"
            rows.append(row(name, "", kind, notes=note, source=src))
    heads = [
        row("nvtx3/nvToolsExt.h", "roctracer/roctx.h", "header",
            notes="header of libroctx-dev (not in the unpacked ROCm prefix)", source=src),
        row("nvToolsExt.h", "roctracer/roctx.h", "header", status="removed",
            notes="NVTX2 header: gone from CUDA 12.9+ (use nvtx3/nvToolsExt.h)", source=src),
    ]
    for h in ("nvtx3/nvToolsExtCuda.h", "nvtx3/nvToolsExtCudaRt.h", "nvtx3/nvToolsExtSync.h",
              "nvtx3/nvToolsExtMem.h", "nvtx3/nvToolsExtPayload.h", "nvtx3/nvToolsExtCounters.h",
              "nvtx3/nvToolsExtOpenCL.h", "nvtx3/nvtx3.hpp"):
        heads.append(row(h, "", "header", notes="no roctx counterpart", source=origin))
    return rows, heads


# --------------------------------------------------------------------------------------------
# cuTENSOR -> hipTensor (not verifiable here)
# --------------------------------------------------------------------------------------------
TENSOR_NOTE = ("hipTensor headers are in no package reachable here (not in the ROCm prefix, "
               "Debian or PyPI): mapping to hipTensor not verified")


def gen_tensor():
    origin, names = read_list("cutensor")
    rows, heads = [], []
    for name, kind in names.items():
        r = row(name, "", kind, notes=TENSOR_NOTE, source=origin)
        (heads if kind == "header" else rows).append(r)
    return rows, heads


# --------------------------------------------------------------------------------------------
# CUB -> hipCUB
# --------------------------------------------------------------------------------------------
def gen_cub(cuda: Path, rocm: Path, rocm64: Path):
    cub = cuda / "cccl" / "cub"
    hipcub = rocm / "include" / "hipcub"
    hipcub64 = rocm64 / "include" / "hipcub"
    src_h = "hipcub ROCm 7.2 (libhipcub-dev 7.2.4); CUDA 13 cccl/cub"
    heads = []
    for p in sorted(cub.rglob("*.cuh")):
        rel = p.relative_to(cub).as_posix()
        if rel.startswith("detail/") or "/detail/" in rel or "/specializations/" in rel \
                or "/dispatch/" in rel or "/tuning/" in rel or rel.startswith("agent/"):
            continue
        cname = "cub/" + rel
        target = "hipcub.hpp" if rel == "cub.cuh" else rel[:-4] + ".hpp"
        if (hipcub / target).is_file():
            since = "" if (hipcub64 / target).is_file() or not hipcub64.is_dir() else "7.2"
            heads.append(row(cname, "hipcub/" + target, "header", since=since, source=src_h))
        else:
            heads.append(row(cname, "", "header",
                             notes="no hipCUB header of that name (include hipcub/hipcub.hpp)",
                             source=src_h))
    rows = [row("cub", "hipcub", "namespace",
                notes="hipCUB keeps CUB's class and function names", source=src_h)]
    hip_words = Decls(sorted(hipcub.rglob("*.hpp")))
    names = {}
    for d in ("device", "block", "warp", "grid", "thread", "iterator", "agent"):
        for p in sorted((cub / d).glob("*.cuh")):
            for m in re.finditer(r"^(?:struct|class)\s+([A-Z][A-Za-z0-9]+)\b",
                                 strip_comments(p.read_text(errors="replace")), re.M):
                names.setdefault(m.group(1), f"cub/{d}/{p.name}")
    for n, where in sorted(names.items()):
        if n in hip_words:
            continue
        note = f"declared in {where}; hipCUB has no {n}"
        if n.startswith("Agent") or n == "PointerRange":
            note += " (CUB tuning agent layer: hipCUB tunes through rocPRIM configs)"
        rows.append(row("cub::" + n, "", "type", notes=note, source=src_h))
    return rows, heads


# --------------------------------------------------------------------------------------------
# Thrust -> rocThrust
# --------------------------------------------------------------------------------------------
def gen_thrust(cuda: Path, rocm: Path):
    th = cuda / "cccl" / "thrust"
    roc = rocm / "include" / "thrust"
    src = "rocThrust ROCm 7.2 (librocthrust-dev 7.2.4); CUDA 13 cccl/thrust"
    rows = [
        row("thrust::cuda", "thrust::hip", "namespace", notes="execution policies thrust::hip::par, par_nosync",
            source=src + " (system/hip/detail/par.h)"),
        row("thrust::cuda_cub", "thrust::hip_rocprim", "namespace",
            notes="backend namespace", source=src + " (system/hip/detail/par.h)"),
        row("thrust::system::cuda", "thrust::system::hip", "namespace", source=src),
        row("THRUST_DEVICE_SYSTEM_CUDA", "THRUST_DEVICE_SYSTEM_HIP", "macro",
            notes="rocThrust also defines THRUST_DEVICE_SYSTEM_CUDA (= 1): compare against _HIP",
            source=src + " (detail/config/device_system.h)"),
    ]
    heads = [row("thrust/system/cuda/", "thrust/system/hip/", "header_dir", source=src)]
    for p in sorted(th.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(th).as_posix()
        if "detail/" in rel:
            continue
        if rel.startswith("system/cuda/"):
            target = "system/hip/" + rel[len("system/cuda/"):]
            if not (roc / target).is_file():
                heads.append(row("thrust/" + rel, "", "header",
                                 notes=f"rocThrust has no thrust/{target}", source=src))
            continue
        if not (roc / rel).is_file():
            heads.append(row("thrust/" + rel, "", "header", notes="rocThrust has no such header",
                             source=src))
    return rows, heads


# --------------------------------------------------------------------------------------------
# libcu++ (no libhipcxx headers reachable)
# --------------------------------------------------------------------------------------------
LIBCXX_NAMES = {
    # qualified name: (kind, note)
    "cuda::std": ("namespace", "libhipcxx is not in the ROCm prefix, Debian or PyPI: cuda::std "
                               "names stay unported (standard std:: names may do on the device in HIP)"),
    "cuda::barrier": ("type", "no HIP counterpart (use __syncthreads / cooperative groups)"),
    "cuda::std::barrier": ("type", "no HIP counterpart"),
    "cuda::std::latch": ("type", "no HIP counterpart"),
    "cuda::std::counting_semaphore": ("type", "no HIP counterpart"),
    "cuda::std::binary_semaphore": ("type", "no HIP counterpart"),
    "cuda::pipeline": ("type", "no HIP counterpart (asynchronous copy pipelines)"),
    "cuda::pipeline_shared_state": ("type", "no HIP counterpart"),
    "cuda::make_pipeline": ("function", "no HIP counterpart"),
    "cuda::memcpy_async": ("function", "no HIP counterpart: plain copies + __syncthreads"),
    "cuda::aligned_size_t": ("type", "no HIP counterpart"),
    "cuda::atomic": ("type", "no verified HIP counterpart (HIP atomics are functions: atomicAdd & co.)"),
    "cuda::atomic_ref": ("type", "no verified HIP counterpart"),
    "cuda::std::atomic": ("type", "no verified HIP counterpart"),
    "cuda::std::atomic_ref": ("type", "no verified HIP counterpart"),
    "cuda::thread_scope": ("type", "no HIP counterpart (HIP uses __hip_atomic scopes)"),
    "cuda::annotated_ptr": ("type", "no HIP counterpart"),
    "cuda::access_property": ("type", "no HIP counterpart"),
    "cuda::apply_access_property": ("function", "no HIP counterpart"),
    "cuda::discard_memory": ("function", "no HIP counterpart"),
    "cuda::ptx": ("namespace", "PTX instructions: no HIP counterpart"),
}


def gen_libcxx(cuda: Path):
    base = cuda / "cccl"
    src = "CUDA 13 cccl/cuda (libcu++); libhipcxx headers unavailable"
    rows = []
    for q, (kind, note) in sorted(LIBCXX_NAMES.items()):
        last = q.split("::")[-1]
        if not any(re.search(rf"\b{re.escape(last)}\b", p.read_text(errors="replace"))
                   for p in _libcxx_probe(base, last)):
            raise SystemExit(f"libcxx: {q} not found in {base}/cuda")
        rows.append(row(q, "", kind, notes=note, source=src))
    heads = []
    for p in sorted((base / "cuda").rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(base).as_posix()
        if any(part.startswith("__") or part in ("detail", "experimental") for part in rel.split("/")[1:-1]) \
                or p.name.startswith("__") or "/detail/" in rel:
            continue
        if p.suffix not in ("", ".h"):
            continue
        heads.append(row(rel, "", "header",
                         notes="libcu++ header: libhipcxx not available to verify a mapping",
                         source=src))
    return rows, heads


def _libcxx_probe(base: Path, last: str):
    # the few headers where these names are declared
    for rel in ("cuda/barrier", "cuda/pipeline", "cuda/atomic", "cuda/annotated_ptr",
                "cuda/std/barrier", "cuda/std/latch", "cuda/std/semaphore", "cuda/std/atomic",
                "cuda/ptx", "cuda/discard_memory", "cuda/memcpy_async"):
        p = base / rel
        if p.is_file():
            yield p
    for p in (base / "cuda" / "__barrier").glob("*.h"):
        yield p
    for sub in ("__memcpy_async", "__annotated_ptr", "__memory", "__atomic", "__ptx"):
        d = base / "cuda" / sub
        if d.is_dir():
            yield from d.glob("*.h")
    for sub in ("__atomic", "__barrier", "__latch", "__semaphore"):
        d = base / "cuda" / "std" / sub
        if d.is_dir():
            yield from d.rglob("*.h")


# --------------------------------------------------------------------------------------------
# cooperative groups
# --------------------------------------------------------------------------------------------
COOP_SAME = ["thread_group", "thread_block", "grid_group", "coalesced_group", "thread_block_tile",
             "tiled_partition", "this_thread_block", "this_grid", "coalesced_threads", "sync",
             "binary_partition"]
COOP_TYPES = {"thread_group", "thread_block", "grid_group", "coalesced_group",
              "thread_block_tile", "cluster_group", "block_tile_memory", "multi_grid_group",
              "plus", "less", "greater", "bit_and", "bit_xor", "bit_or"}
COOP_MISSING = {
    "cluster_group": "thread-block clusters do not exist on AMD GPUs",
    "this_cluster": "thread-block clusters do not exist on AMD GPUs",
    "reduce": "cooperative_groups/reduce.h: no HIP counterpart (use a shuffle reduction or hipCUB)",
    "reduce_update_async": "no HIP counterpart",
    "reduce_store_async": "no HIP counterpart",
    "inclusive_scan": "cooperative_groups/scan.h: no HIP counterpart (hipCUB WarpScan/BlockScan)",
    "exclusive_scan": "cooperative_groups/scan.h: no HIP counterpart (hipCUB WarpScan/BlockScan)",
    "memcpy_async": "cooperative_groups/memcpy_async.h: no HIP counterpart (plain copies)",
    "wait": "cooperative_groups/memcpy_async.h: no HIP counterpart",
    "wait_prior": "cooperative_groups/memcpy_async.h: no HIP counterpart",
    "plus": "reduce/scan operator: no HIP counterpart",
    "less": "reduce/scan operator: no HIP counterpart",
    "greater": "reduce/scan operator: no HIP counterpart",
    "bit_and": "reduce/scan operator: no HIP counterpart",
    "bit_or": "reduce/scan operator: no HIP counterpart",
    "bit_xor": "reduce/scan operator: no HIP counterpart",
    "labeled_partition": "no HIP counterpart",
    "invoke_one": "no HIP counterpart",
    "invoke_one_broadcast": "no HIP counterpart",
    "block_tile_memory": "no HIP counterpart (large tiles use this_thread_block scratch in CUDA)",
}
COOP_REMOVED = ["multi_grid_group", "this_multi_grid"]


def gen_coop(cuda: Path, rocm: Path, rocm64: Path):
    cu = [cuda / "cooperative_groups.h"] + sorted((cuda / "cooperative_groups").rglob("*.h"))
    cudecl = Decls(cu)
    hip = Decls([rocm / "include/hip/amd_detail/amd_hip_cooperative_groups.h"])
    hip64 = Decls([rocm64 / "include/hip/amd_detail/amd_hip_cooperative_groups.h"])
    src = ("hip/amd_detail/amd_hip_cooperative_groups.h ROCm 7.2; CUDA 13 cooperative_groups.h, "
           "cooperative_groups/*.h")
    rows = []
    ns = "cooperative_groups::"
    for n in COOP_SAME:
        need_in(cudecl, n, "coop (CUDA)")
        need_in(hip, n, "coop (HIP)")
        since = "" if n in hip64 or not hip64 else "7.2"
        rows.append(row(ns + n, ns + n, "type" if n in COOP_TYPES else "function", since=since,
                        notes="same name in HIP", source=src))
    for n, note in COOP_MISSING.items():
        need_in(cudecl, n, "coop (CUDA)")
        if n in hip and n not in ("wait", "greater"):   # 'wait'/'greater' occur in HIP comments only
            raise SystemExit(f"coop: {n} is declared by HIP: review")
        rows.append(row(ns + n, "", "type" if n in COOP_TYPES else "function", notes=note,
                        source=src))
    for n in COOP_REMOVED:
        if n in cudecl:
            raise SystemExit(f"coop: {n} is still in CUDA: review")
        need_in(hip, n, "coop (HIP)")
        rows.append(row(ns + n, ns + n, "type" if n in COOP_TYPES else "function", status="removed",
                        notes="multi-grid groups were removed from CUDA 13; HIP still has them",
                        source=src))
    heads = []
    for h in ("cooperative_groups/reduce.h", "cooperative_groups/scan.h",
              "cooperative_groups/memcpy_async.h"):
        if not (cuda / h).is_file():
            raise SystemExit(f"coop: {h} missing from CUDA")
        heads.append(row(h, "", "header", notes="HIP has no counterpart (hip/hip_cooperative_groups.h "
                                                "covers the base API only)", source=src))
    return rows, heads


# --------------------------------------------------------------------------------------------
# WMMA -> rocWMMA
# --------------------------------------------------------------------------------------------
WMMA_SAME = {"fragment": "type", "matrix_a": "type", "matrix_b": "type", "accumulator": "type",
             "row_major": "type", "col_major": "type", "fill_fragment": "function",
             "load_matrix_sync": "function", "store_matrix_sync": "function",
             "mma_sync": "function"}
WMMA_MISSING = {
    "bmma_sync": ("function", "1-bit matrix multiply: no rocWMMA counterpart"),
    "__float_to_tf32": ("function", "TF32 conversion: no rocWMMA counterpart"),
    "experimental": ("namespace", "sub-byte types (precision::u4/s4/b1) and bmma: no rocWMMA counterpart"),
}


def gen_wmma(cuda: Path, rocwmma: Path | None):
    if not rocwmma or not (rocwmma / "rocwmma/rocwmma.hpp").is_file():
        raise SystemExit("wmma: rocwmma/rocwmma.hpp not found (pass --rocwmma DIR)")
    decl = Decls([rocwmma / "rocwmma/rocwmma.hpp"])
    cudecl = Decls([cuda / "mma.h", cuda / "crt" / "mma.h", cuda / "crt" / "mma.hpp"])
    src = "rocwmma/rocwmma.hpp librocwmma-dev 7.2.4 (Debian); CUDA 13 mma.h, crt/mma.h"
    rows = [row("nvcuda::wmma", "rocwmma", "namespace",
                notes="same core API (fragment, load/store/mma_sync, fill_fragment); rocWMMA has no "
                      "satf argument to mma_sync and supports other fragment shapes/types per GPU",
                source=src)]
    for n, kind in WMMA_SAME.items():
        need_in(cudecl, n, "wmma (CUDA)")
        need_in(decl, n, "wmma (rocWMMA)")
        rows.append(row("nvcuda::wmma::" + n, "rocwmma::" + n, kind, notes="same name in rocWMMA",
                        source=src))
    for n, (kind, note) in WMMA_MISSING.items():
        need_in(cudecl, n, "wmma (CUDA)")
        rows.append(row("nvcuda::wmma::" + n, "", kind, notes=note, source=src))
    need_in(cudecl, "tf32", "wmma (CUDA)")
    rows.append(row("nvcuda::wmma::precision::tf32", "", "type",
                    notes="TF32 fragments: no rocWMMA counterpart (rocWMMA has its own xfloat32 on some GPUs)",
                    source=src))
    heads = [row("mma.h", "rocwmma/rocwmma.hpp", "header",
                 notes="header of librocwmma-dev (not in the unpacked ROCm prefix)", source=src)]
    return rows, heads


# --------------------------------------------------------------------------------------------
def cmd_generate(args) -> None:
    rocm, rocm64, cuda = Path(args.rocm), Path(args.rocm64), Path(args.cuda)
    roctx = Path(args.roctx) if args.roctx else None
    if roctx is None and (rocm / "include/roctracer/roctx.h").is_file():
        roctx = rocm / "include"
    roctx64 = Path(args.roctx64) if args.roctx64 else None
    rocwmma = Path(args.rocwmma) if args.rocwmma else None
    if rocwmma is None and (rocm / "include/rocwmma/rocwmma.hpp").is_file():
        rocwmma = rocm / "include"
    heads: list[dict] = []
    for name, (rows, h) in {
        "dnn": gen_dnn(rocm, rocm64),
        "nccl": gen_nccl(rocm, rocm64),
        "rtc": gen_rtc(rocm, rocm64),
        "nvtx": gen_nvtx(roctx, roctx64),
        "tensor": gen_tensor(),
        "cub": gen_cub(cuda, rocm, rocm64),
        "thrust": gen_thrust(cuda, rocm),
        "libcxx": gen_libcxx(cuda),
        "coop": gen_coop(cuda, rocm, rocm64),
        "wmma": gen_wmma(cuda, rocwmma),
    }.items():
        write_csv(name, rows)
        heads.extend(h)
    write_csv("libheaders_other", heads)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    ex = sub.add_parser("extract")
    for opt in ("cudnn", "nccl", "nvrtc", "cutensor"):
        ex.add_argument(f"--{opt}", required=True, help=f"unpacked {opt} wheel")
    ex.add_argument("--cuda", default="/usr/local/cuda/include")
    gen = sub.add_parser("generate")
    gen.add_argument("--rocm", default="/opt/porter-rocm/7.2/usr")
    gen.add_argument("--rocm64", default="/opt/porter-rocm/6.4/usr")
    gen.add_argument("--cuda", default="/usr/local/cuda/include")
    gen.add_argument("--roctx", help="include folder holding roctracer/roctx.h (ROCm 7.2)")
    gen.add_argument("--roctx64", help="include folder holding roctracer/roctx.h (ROCm 6.4)")
    gen.add_argument("--rocwmma", help="include folder holding rocwmma/rocwmma.hpp")
    args = ap.parse_args(argv)
    if args.cmd == "extract":
        cmd_extract(args)
    else:
        if args.cmd is None:
            args = gen.parse_args([])
        cmd_generate(args)


if __name__ == "__main__":
    main()
