"""Command line: argument parsing and exit codes, nothing else.

Exit codes (as Black and Ruff use them): 0 clean; 1 findings at or above --fail-level, or
something that could not be ported; 2 usage, configuration, input or internal error;
130 interrupted.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import signal
import sys
import threading

import porter

from .exits import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_INTERRUPT,
    EXIT_OK,
    EXIT_TERMINATED,
    Terminated,
    UsageError,
)

__all__ = [
    "EXIT_ERROR",
    "EXIT_FINDINGS",
    "EXIT_INTERRUPT",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "UsageError",
    "main",
    "build_parser",
]


EXIT_CODES_HELP = """exit codes (check, port --check, review):
  0    nothing at or above --fail-level
  1    findings at or above it, or CUDA names that cannot be ported; with port --check,
       files the port would change
  2    usage, configuration, input or internal error
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM)"""


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rocm-version",
        metavar="X.Y|auto",
        help="target ROCm version (default 7.2; auto: read hip/hip_version.h of the "
        "installed HIP). The tables are checked against ROCm 6.2, 6.3, 6.4, 7.0, "
        "7.1, 7.2 and 10.0 (headers of 6.4 and 7.2, API binding lists of the "
        "others); for a release between two checked ones a name is produced only "
        "where both have it, releases before 6.2 are assumed to match 6.2. "
        "`porter verify` compiles against 7.2, the newest ROCm whose headers "
        "are unpacked here",
    )
    p.add_argument(
        "--offload-arch",
        metavar="GFX[,GFX...]",
        help="AMD targets the rules check against (default gfx942)",
    )
    p.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="only these rule codes, prefixes or names (comma-separated; repeatable)",
    )
    p.add_argument("--ignore", action="append", metavar="CODES", help="skip these rules")
    p.add_argument(
        "--fail-level",
        choices=("info", "warning", "error"),
        help="lowest severity that makes the exit code 1 (default warning)",
    )
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    p.add_argument(
        "--format",
        choices=("terminal", "markdown", "json", "sarif", "github", "html"),
        help="report format on standard output (default terminal)",
    )
    p.add_argument(
        "--report",
        metavar="FILE",
        action="append",
        default=[],
        help="also write the report to FILE; the format follows the extension "
        "(.md .json .sarif .html .txt); repeatable",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="parallel processes (default: the number of cores)",
    )
    p.add_argument(
        "--extensions",
        metavar="EXTS",
        help="comma-separated source extensions to parse (default: "
        ".cu,.cuh,.cpp,.cc,.cxx,.c,.h,.hpp,.hxx,.inl,.cuinl,.hip)",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip paths matching GLOB (repeatable)",
    )
    p.add_argument(
        "--max-file-size",
        metavar="SIZE",
        help="a larger source is copied unchanged and reported, not ported or "
        "checked (porting holds about 60 times a file's size in memory); "
        "16M, 512K, bytes, 0 for no limit (default 16M)",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="configuration file (default: the nearest "
        ".porter.toml or pyproject.toml with [tool.porter])",
    )
    p.add_argument(
        "--roc",
        action="store_true",
        help="target rocBLAS/rocSOLVER/rocRAND/rocSPARSE instead of the hip* libraries "
        "(a library moves only when every name used from it maps one to one; "
        "cuBLAS and cuSOLVER move together; complex cuBLAS/cuSOLVER calls move with "
        "ROCM_MATHLIBS_API_USE_HIP_COMPLEX defined before the rocBLAS include; the dense "
        "cuSOLVER routines whose workspace rocSOLVER does not take (potrf, getrf, sytrf, potri, "
        "syevd, sygvd) drop it, and their size queries yield 0 or n; other cuSOLVER calls that "
        "take a workspace keep a project on hipSOLVER; hipFFT has no one-to-one roc* API and "
        "stays)",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="check: neither read nor write the result cache (see `porter clean`)",
    )
    p.add_argument(
        "--statistics",
        action="store_true",
        help="terminal: counts per rule instead of one line per finding",
    )
    p.add_argument(
        "--group-by-file", action="store_true", help="terminal: findings under a heading per file"
    )
    p.add_argument(
        "-q", "--quiet", action="store_true", help="terminal: print only the summary and errors"
    )


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="porter",
        description="Port CUDA C++ to HIP and find what breaks on AMD GPUs.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"porter {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "port",
        help="write the ported tree (or a diff, or rewrite in place)",
        description="Port CUDA sources to HIP. A folder is mirrored to -o DIR; a "
        "single file goes to standard output unless -o FILE.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "-o", "--output", metavar="PATH", help="output folder (or file for one input file)"
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff, write nothing")
    mode.add_argument(
        "--in-place",
        action="store_true",
        help="rewrite the inputs atomically; originals kept in .porter-backup/",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; list the files the port would change (with -o: the "
        "files of the output that are stale) and exit 1 if there are any; "
        "with --diff also print the changes",
    )
    p.add_argument("--no-backup", action="store_true", help="with --in-place: keep no originals")
    p.add_argument("--force", action="store_true", help="overwrite an existing output")
    p.add_argument(
        "--launch-syntax",
        choices=("keep", "hip"),
        help="keep <<<...>>> launches (default) or write hipLaunchKernelGGL(...)",
    )
    p.add_argument("--rewrite-comments", action="store_true", help="also rewrite names in comments")
    p.add_argument(
        "--rewrite-strings", action="store_true", help="also rewrite names in string literals"
    )
    p.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes marked unsafe")
    p.add_argument(
        "--no-fix", action="store_true", help="apply no rule fixes, only the API mapping"
    )
    p.add_argument(
        "--no-include", action="store_true", help="never add #include <hip/hip_runtime.h>"
    )
    p.add_argument(
        "--port-build-files",
        action="store_true",
        help="also rewrite PyTorch extension build files (setup.py CUDAExtension, "
        "cpp_extension.load): nvcc flags and CUDA libraries to their ROCm "
        "equivalents; by default they are left for PyTorch's build-time hipify",
    )
    p.add_argument(
        "--verify",
        action="store_true",
        help="after porting, compile every ported translation unit for each "
        "--offload-arch target (-c) and report each file (compiled / failed / "
        "skipped) in the report and the exit code",
    )
    _verify_toolchain(p)
    _common(p)

    c = sub.add_parser(
        "check",
        help="report findings without writing anything",
        description="Run the portability rules and report unconverted and "
        "unsupported CUDA APIs. Writes nothing.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("paths", nargs="*", metavar="PATH", default=["."])
    _common(c)

    rv = sub.add_parser(
        "review",
        help="findings on the lines a change (pull request) touches",
        description="Check the files changed since the merge base of REF and "
        "HEAD (the working tree against it) and report the findings "
        "on changed lines, and the CUDA API references the change "
        "adds to ported files (PT006). Needs git.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rv.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        default=["."],
        help="limit the review to these files or folders (default: .)",
    )
    rv.add_argument(
        "--base",
        required=True,
        metavar="REF",
        help="the branch, tag or commit the change goes into (e.g. origin/main)",
    )
    rv.add_argument(
        "--filter-mode",
        default="added",
        choices=("added", "diff_context", "file", "nofilter"),
        help="which findings to report (reviewdog's modes): on added/modified lines "
        "(default), inside the diff's hunks, anywhere in a changed file, or "
        "everywhere under PATHS",
    )
    _common(rv)

    cl = sub.add_parser(
        "clean",
        help="empty porter's result cache",
        description="Remove every entry of the content-hash cache that "
        "`porter check` keeps (in $PORTER_CACHE_DIR, else "
        "$XDG_CACHE_HOME/porter/results or ~/.cache/porter/results).",
    )
    cl.set_defaults(command="clean")

    r = sub.add_parser("rule", help="show a rule's documentation (or list them all)")
    r.add_argument(
        "code",
        nargs="?",
        metavar="CODE",
        help="a rule code (PT101) or name (warp-size-literal); none: list every rule",
    )
    r.add_argument("--all", action="store_true", help="list every rule")
    r.add_argument(
        "--full",
        action="store_true",
        help="with --all --format markdown: every rule's whole documentation "
        "(docs/rules.md is this output)",
    )
    r.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default="text",
        help="output format (default text)",
    )

    m = sub.add_parser("mappings", help="look up a CUDA symbol or print a mapping table")
    m.add_argument(
        "symbol",
        nargs="?",
        metavar="SYMBOL",
        help="a CUDA or HIP name to look up (none: print the tables)",
    )
    m.add_argument("--area", metavar="AREA", help="one table (runtime, driver, device, blas, ...)")
    m.add_argument(
        "--format",
        choices=("text", "markdown", "csv", "json"),
        default="text",
        help="output format (default text)",
    )
    m.add_argument(
        "--rocm-version",
        metavar="X.Y",
        help="only the rows whose HIP name exists in this ROCm version",
    )

    v = sub.add_parser(
        "verify",
        help="compile a ported tree for AMD targets with a real HIP compiler",
        description="Compile every translation unit (.hip .cu .cpp .cc .cxx) under "
        "PATH as HIP for each target, with object emission (-c), and "
        "print one line per file as it finishes. Nothing is added to "
        "what the build compiles; a file that compiles only with a "
        "missing flag is reported as such.",
    )
    v.add_argument("paths", nargs="+", metavar="PATH", help="ported folders or files")
    v.add_argument(
        "--offload-arch",
        default="gfx942",
        metavar="GFX[,GFX...]",
        help="AMD targets to compile for (default gfx942)",
    )
    v.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="compiles in parallel (default: the number of cores)",
    )
    v.add_argument(
        "-I",
        dest="include",
        action="append",
        default=[],
        metavar="DIR",
        help="extra include folder (repeatable)",
    )
    v.add_argument(
        "-D",
        dest="defines",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="define a macro for the compile, as the project's build does (repeatable)",
    )
    v.add_argument("-q", "--quiet", action="store_true", help="print only failures and the total")
    v.add_argument(
        "-v", "--verbose", action="store_true", help="print all of each failure's compiler output"
    )
    _verify_toolchain(v)

    t = sub.add_parser(
        "toolchain",
        help="install the compiler and ROCm headers verify uses",
        description="Install clang-22 with apt and unpack Debian's ROCm 7.2 and "
        "6.4 packages (headers, device libraries, CMake configs) "
        "into a private prefix, without installing them into the "
        "system (Debian 12, root). Runs the setup script shipped "
        "with porter.",
    )
    tsub = t.add_subparsers(dest="toolchain_command", metavar="ACTION")
    ti = tsub.add_parser("install", help="install clang-22 and unpack the ROCm prefixes")
    ti.add_argument(
        "--prefix",
        default="/opt/porter-rocm",
        metavar="DIR",
        help="where the ROCm prefixes go (DIR/7.2, DIR/6.4; default /opt/porter-rocm)",
    )
    ti.add_argument(
        "--rocm-versions",
        default="7.2 6.4",
        metavar='"X.Y ..."',
        help='which ROCm versions to unpack (default "7.2 6.4")',
    )
    tsub.add_parser("script", help="print the path of the setup script (to read or run it)")
    return parser


def _verify_toolchain(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--compiler",
        metavar="PATH",
        help="the HIP compiler (clang++ of LLVM 22, amdclang++ or hipcc; default: "
        "$PORTER_HIP_CLANG, the ROCm's own, then clang++-22 on PATH)",
    )
    p.add_argument(
        "--rocm-path",
        metavar="DIR",
        help="the ROCm to compile against: an installation (/opt/rocm) or an "
        "unpacked prefix (porter toolchain install); include and device-library "
        "paths and the ROCm version come from it (default: $PORTER_ROCM_PREFIX, "
        "/opt/porter-rocm/7.2, /opt/rocm)",
    )
    p.add_argument(
        "--compile-commands",
        metavar="FILE",
        help="compile_commands.json of the project's own build: each file is "
        "compiled with its include folders, macros and -std",
    )


def _unencodable_file_names(stream) -> None:
    """Under a strict UTF-8 locale, a file name that is not UTF-8 (lone surrogates in Python)
    made printing the report an internal error: print it as its own bytes instead, as
    compilers and `ls` do (other encodings: a backslash escape)."""
    if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
        utf8 = (getattr(stream, "encoding", "") or "").lower().replace("-", "") == "utf8"
        stream.reconfigure(errors="surrogateescape" if utf8 else "backslashreplace")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _unencodable_file_names(sys.stdout)
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        if args.command in ("port", "check"):
            from .commands import run_port_or_check

            return run_port_or_check(args)
        if args.command == "clean":
            from .commands import run_clean

            return run_clean(args)
        if args.command == "review":
            from .review import run_review

            return run_review(args)
        if args.command == "rule":
            from .commands import run_rule

            return run_rule(args)
        if args.command == "mappings":
            from .commands import run_mappings

            return run_mappings(args)
        if args.command == "toolchain":
            from .toolchain import run_toolchain

            return run_toolchain(args)
        if args.command == "verify":
            from .commands import run_verify

            return run_verify(args)
    except KeyboardInterrupt as exc:
        how = "terminated" if isinstance(exc, Terminated) else "interrupted"
        print(f"porter: {how}; no file was left half-written", file=sys.stderr)
        return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPT
    except BrokenPipeError:
        # the reader went away: later writes (at exit) must not raise again
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one line, exit 2
        from .commands import known_error

        msg = known_error(exc)
        if msg is None:
            if os.environ.get("PORTER_DEBUG"):
                raise
            msg = (
                f"internal error: {type(exc).__name__}: {exc} (set PORTER_DEBUG=1 for a traceback)"
            )
        print(f"porter: error: {msg}", file=sys.stderr)
        return EXIT_ERROR
    parser.print_help(sys.stderr)
    return EXIT_ERROR


def _terminated(signum, frame) -> None:
    raise Terminated


def entry() -> None:
    """The console script (and `python -m porter.cli`): main(), then the process ends without
    Python's teardown of the interpreter, which frees every object one by one (about 0.08 s of
    CPU after a port of CCCL's 1,606 headers, 4% of the run). Nothing is lost: every file porter
    writes is closed and renamed into place before main returns; the standard streams are flushed
    and the exit handlers (atexit: multiprocessing's, tempfile's) run here. With another thread
    still running, which the interpreter would wait for, the exit is the ordinary one.

    The process is porter's own (porter.OWN_PROCESS): the loaded mapping index is left out of
    later garbage collections, and SIGTERM unwinds as Ctrl-C does (exits.Terminated) unless the
    process was started with SIGTERM ignored."""
    porter.OWN_PROCESS = True
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminated)
    code = main()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # past main, nothing is left to clean up
    if threading.active_count() > 1:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader went away, a full disk, a closed stream
            code = code or EXIT_ERROR
    atexit._run_exitfuncs()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
