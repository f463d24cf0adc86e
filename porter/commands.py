"""What each CLI verb does: resolve options, run the engine, write outputs and reports."""

from __future__ import annotations

import errno
import functools
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .exits import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError

if TYPE_CHECKING:
    from .engine import Job

LATEST_ROCM = (7, 2)  # default target: the newest ROCm whose headers the compile proof has;
# the tables also cover the releases of porter.mappings.model.CHECKED_ROCM (10.0 included)
SUPPORTED_ROCM_MIN = (5, 0)
_ROC_BLOCKERS_SHOWN = 5  # --roc: names listed per library area that stays on hip*


def known_error(exc: BaseException) -> str | None:
    from .config import ConfigError
    from .discover import InputError

    if isinstance(exc, (UsageError, InputError, ConfigError)):
        return str(exc)
    if isinstance(exc, PermissionError):
        return f"{exc.filename or ''}: permission denied".lstrip(": ")
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return f"no space left on device{': ' + str(exc.filename) if exc.filename else ''}"
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    return None


# -- option resolution -----------------------------------------------------------------------
def parse_rocm_version(text: str | None) -> tuple[int, ...]:
    if text is None or text == "":
        return LATEST_ROCM
    if text == "auto":
        return detect_rocm_version()
    m = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?", text.strip())
    if not m:
        raise UsageError(f"--rocm-version: expected X.Y or auto, got {text!r}")
    v = (int(m.group(1)), int(m.group(2)))
    if v < SUPPORTED_ROCM_MIN:
        raise UsageError(f"--rocm-version {text}: porter supports ROCm 5.0 and later")
    return v


def hip_version_header_candidates() -> list[Path]:
    out = []
    for env in ("ROCM_PATH", "HIP_PATH"):
        if os.environ.get(env):
            out.append(Path(os.environ[env]) / "include/hip/hip_version.h")
    if os.environ.get("PORTER_ROCM_PREFIX"):
        out.append(Path(os.environ["PORTER_ROCM_PREFIX"]) / "usr/include/hip/hip_version.h")
    out += [
        Path("/opt/rocm/include/hip/hip_version.h"),
        Path("/opt/porter-rocm/7.2/usr/include/hip/hip_version.h"),
        Path("/usr/include/hip/hip_version.h"),
    ]
    return out


def detect_rocm_version() -> tuple[int, ...]:
    for p in hip_version_header_candidates():
        try:
            text = p.read_text(errors="replace")
        except OSError:
            continue
        ma = re.search(r"#define\s+HIP_VERSION_MAJOR\s+(\d+)", text)
        mi = re.search(r"#define\s+HIP_VERSION_MINOR\s+(\d+)", text)
        if ma and mi:
            return (int(ma.group(1)), int(mi.group(1)))
    raise UsageError(
        "--rocm-version auto: no installed HIP found (hip/hip_version.h under "
        "$ROCM_PATH, /opt/rocm or /usr/include)"
    )


def _split(values) -> list[str]:
    out = []
    for v in values or []:
        out += [x.strip() for x in str(v).split(",") if x.strip()]
    return out


class Resolved:
    """Settings after merging the config file and the command line."""

    def __init__(self, args, command: str):
        from .config import find_config, load_config
        from .findings import Severity
        from .rules.base import RuleOptions, parse_archs
        from .source import CUDA_EXTS

        first = Path(args.paths[0]) if getattr(args, "paths", None) else Path(".")
        cfg_path = (
            Path(args.config)
            if getattr(args, "config", None)
            else (find_config(first) if first.exists() else None)
        )
        if getattr(args, "config", None) and (cfg_path is None or not cfg_path.is_file()):
            raise UsageError(f"--config {args.config}: no such file")
        cfg = load_config(cfg_path)
        self.config_path = cfg_path

        def pick(cli, key, default=None):
            return cli if cli not in (None, [], False) else cfg.get(key, default)

        rv = pick(args.rocm_version, "rocm-version")
        self.rocm_version = parse_rocm_version(None if rv is None else str(rv))
        try:
            # a string "gfx942,gfx90a" or a TOML list; parse_archs takes either
            self.targets = parse_archs(pick(args.offload_arch, "offload-arch", "gfx942"))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        self.rule_options = RuleOptions(self.targets, self.rocm_version)
        self.select = _split(args.select) or list(cfg.get("select", []))
        self.ignore = _split(args.ignore) + list(cfg.get("ignore", []))
        try:
            self.fail_level = Severity.parse(pick(args.fail_level, "fail-level", "warning"))
            self.severity = tuple(
                sorted(
                    (k.upper(), str(Severity.parse(v))) for k, v in cfg.get("severity", {}).items()
                )
            )
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        exts = _split([args.extensions]) if args.extensions else cfg.get("extensions")
        self.extensions = (
            frozenset(e if e.startswith(".") else "." + e for e in exts) if exts else CUDA_EXTS
        )
        self.exclude = tuple(args.exclude) + tuple(cfg.get("exclude", []))
        self.roc = bool(args.roc or cfg.get("roc", False))
        self.unsafe_fixes = bool(
            getattr(args, "unsafe_fixes", False) or cfg.get("unsafe-fixes", False)
        )
        self.launch_syntax = getattr(args, "launch_syntax", None) or cfg.get(
            "launch-syntax", "keep"
        )
        if self.launch_syntax not in ("keep", "hip"):
            raise UsageError(f"launch-syntax must be keep or hip, not {self.launch_syntax!r}")
        from .config import parse_size
        from .engine import MAX_FILE_SIZE

        size = getattr(args, "max_file_size", None)
        self.max_file_size = (
            parse_size(size, "--max-file-size")
            if size is not None
            else cfg.get("max-file-size", MAX_FILE_SIZE)
        )
        from .rules.registry import all_rules, get, select

        for code in self.select + self.ignore:
            if code.upper() != "ALL" and not any(
                r.code.startswith(code.upper()) or r.name == code for r in all_rules()
            ):
                raise UsageError(f"unknown rule code or name {code!r} (see `porter rule --all`)")
        for code, _ in self.severity:
            if get(code) is None:
                raise UsageError(f"{cfg_path}: severity override for unknown rule {code}")
        self.rule_codes = None
        if self.select or self.ignore:  # (no rule module is loaded when none is named)
            chosen = select(self.select or None, self.ignore or None)
            self.rule_codes = tuple(r.code for r in chosen)

    def options_dict(self) -> dict:
        return {
            "rocm_version": ".".join(map(str, self.rocm_version)),
            "offload_arch": [t.arch for t in self.targets],
            "roc": self.roc,
        }


def _engine_options(
    res: Resolved,
    args,
    command: str,
    roc_areas=frozenset(),
    shims=frozenset(),
    project_names=(),
    no_declaration_sites=frozenset(),
):
    from .engine import EngineOptions
    from .rewrite.cuda import PortOptions

    port = PortOptions(
        rocm_version=res.rocm_version,
        roc=res.roc,
        roc_areas=roc_areas,
        shims=shims,
        project_names=project_names,
        no_declaration_sites=no_declaration_sites,
        launch_syntax=res.launch_syntax,
        rewrite_comments=getattr(args, "rewrite_comments", False),
        rewrite_strings=getattr(args, "rewrite_strings", False),
        add_runtime_include=not getattr(args, "no_include", False),
    )
    is_port = command == "port"
    # review ports in memory (nothing written, no fixes) to see the CUDA names a change adds
    return EngineOptions(
        port=port,
        rules=res.rule_options,
        rule_codes=res.rule_codes,
        severity=res.severity,
        apply_fixes=is_port and not args.no_fix,
        unsafe_fixes=res.unsafe_fixes,
        rewrite=command in ("port", "review"),
        run_rules=True,
        max_file_size=res.max_file_size,
        port_build_files=is_port and bool(getattr(args, "port_build_files", False)),
    )


# -- port / check ----------------------------------------------------------------------------
def _is_within(child: Path, parent: Path) -> bool:
    try:
        child.relative_to(parent)
        return True
    except ValueError:
        return False


@dataclass
class PortPlan:
    """What one `port` or `check` run does, decided before any file is read."""

    command: str  # port | check
    mode: str  # check | diff | stdout | file | tree | inplace
    inputs: list[Path]
    out_root: Path | None = None  # -o
    #: tree mode: the output folder did not exist when the run began, so each output file is
    #: new and is created at its name (engine.atomic_write's `fresh`)
    fresh_out: bool = False
    stamp: str = ""  # --in-place backup folder name
    backups: dict[Path, Path] = field(default_factory=dict)  # input folder -> backup folder
    jobs: list = field(default_factory=list)  # engine.Job, in report order
    skipped: list[tuple[str, str]] = field(default_factory=list)
    show_diff: bool = False  # port --check --diff
    fmt: str = "terminal"  # the report format on standard output
    stale: list[str] = field(default_factory=list)  # port --check: files it would change


def run_port_or_check(args) -> int:
    """`porter port` and `porter check`: the pipeline's steps in order."""
    res = Resolved(args, args.command)
    plan = plan_run(args)
    discoveries = collect_jobs(args, res, plan)
    add_context_headers(plan, discoveries, res.max_file_size)
    try:
        results = run_pipeline(args, res, plan.jobs)
    finally:  # Ctrl-C too: no empty backup folder is left behind
        drop_empty_backups(plan)
    plan.jobs = [j for j in plan.jobs if not j.context]
    if plan.mode in ("check", "diff", "review"):  # .py files without GPU code: not checked
        from .rewrite.python import NOT_RELEVANT

        keep = [not (r.kind == "python" and r.note == NOT_RELEVANT) for r in results]
        results = [r for r, k in zip(results, keep) if k]
        plan.jobs = [j for j, k in zip(plan.jobs, keep) if k]
    _link_extensions(res, plan, results)  # PT909: a PyTorch extension's sources' findings
    verified = (
        _verify_port(args, plan, results, res.rule_codes)
        if getattr(args, "verify", False)
        else None
    )
    report = build_report(args, res, plan, results)
    report.verify = verified
    stream = emit_port_output(plan, results)
    if plan.mode == "portcheck":
        report.would_change = list(plan.stale)
    report.exit_code = exit_status(args, res, report, plan)
    print_report(args, plan, report, stream)
    write_reports(args, report)
    return report.exit_code


def _link_extensions(res: Resolved, plan: PortPlan, results: list) -> None:
    from .findings import Severity
    from .rules.pyext import CODE, link_extensions

    level = dict(res.severity).get(CODE)
    link_extensions(plan.jobs, results, res.rule_codes, Severity.parse(level) if level else None)


def _verify_port(args, plan: PortPlan, results: list, rule_codes=None):
    """port --verify: compile what was written (porter/verify.py) and return the per-file
    results (verify.VerifyReport); no toolchain is a usage error (one line, exit 2)."""
    from .verify import ToolchainNotFound, verify_port

    try:
        return verify_port(args, plan, results, rule_codes)
    except (ToolchainNotFound, ValueError) as exc:
        raise UsageError(f"--verify: {exc}") from None


def plan_run(args) -> PortPlan:
    """Check the inputs, choose the output mode and check the output target."""
    inputs = [Path(p) for p in args.paths]
    for p in inputs:
        if not os.path.lexists(p):
            raise UsageError(f"{p}: no such file or directory")
    check_report_paths(args)
    plan = PortPlan(
        args.command,
        "check",
        inputs,
        stamp=time.strftime("%Y%m%d-%H%M%S"),
        fmt=getattr(args, "format", None) or "terminal",
    )
    if args.command == "port":
        plan.mode, plan.out_root = _port_mode(args, inputs)
        plan.show_diff = plan.mode == "portcheck" and args.diff
    if plan.mode in ("tree", "file") and plan.out_root is not None:
        plan.out_root = _check_output_target(args, plan.mode, inputs[0], plan.out_root)
        plan.fresh_out = plan.mode == "tree" and not os.path.lexists(plan.out_root)
    if (
        plan.mode == "portcheck"
        and plan.out_root is not None
        and not inputs[0].is_dir()
        and plan.out_root.is_dir()
    ):
        plan.out_root = plan.out_root / inputs[0].name
    return plan


def _port_mode(args, inputs: list[Path]) -> tuple[str, Path | None]:
    if args.no_backup and not args.in_place:
        raise UsageError("--no-backup only goes with --in-place")
    if getattr(args, "check", False):
        if args.in_place:
            raise UsageError("--check writes nothing; it does not go with --in-place")
        if args.output and len(inputs) != 1:
            raise UsageError("-o takes exactly one input path (a folder or a file)")
        return "portcheck", (Path(args.output) if args.output else None)
    if args.diff:
        return "diff", None
    if args.in_place:
        return "inplace", None
    if args.output:
        if len(inputs) != 1:
            raise UsageError("-o takes exactly one input path (a folder or a file)")
        return ("tree" if inputs[0].is_dir() else "file"), Path(args.output)
    if len(inputs) == 1 and not inputs[0].is_dir():
        return "stdout", None
    raise UsageError("porting a folder needs -o DIR, --diff or --in-place")


def _check_output_target(args, mode: str, given: Path, out_root: Path) -> Path:
    """Refuse outputs that would overwrite the input or existing files; returns the output path
    (for one file into a folder: the file inside it)."""
    src = given.resolve()
    dst = out_root.resolve()
    if mode == "tree":
        if dst == src or _is_within(dst, src):
            raise UsageError(f"output folder {out_root} is inside the input folder {given}")
        if _is_within(src, dst) and args.force:
            raise UsageError(f"output folder {out_root} contains the input folder {given}")
        if dst.exists() and not args.force:
            raise UsageError(f"{out_root} exists; use --force to write into it")
        if dst.exists() and not dst.is_dir():
            raise UsageError(f"{out_root} exists and is not a folder")
        return out_root
    if dst.is_dir():
        out_root = dst / given.name
        dst = out_root.resolve()
    if dst == src:
        raise UsageError("the output file is the input file; use --in-place")
    if dst.exists() and not args.force:
        raise UsageError(f"{out_root} exists; use --force to overwrite it")
    return out_root


def collect_jobs(args, res: Resolved, plan: PortPlan) -> list:
    """Discover the files under each input and make one engine job per file (what the job
    writes depends on the mode). Returns the discoveries, in input order."""
    from .discover import discover

    discoveries = [discover(p, extensions=res.extensions, exclude=res.exclude) for p in plan.inputs]
    for p, d in zip(plan.inputs, discoveries):
        for rel, why in d.skipped:
            plan.skipped.append((_display(p, rel, d.root), why))
        for e in d.entries:
            inner = e.rel  # relative to the input folder, `/`-separated (discover's)
            # paths as the user can open them from where porter runs (`proj/src/k.cu`), the
            # way compilers and linters print them; SARIF/GitHub annotations need that too
            e.rel = _display(p, e.rel, d.root)
            job = make_job(args, plan, e, d.root, inner)
            if job is not None:
                plan.jobs.append(job)
        if plan.mode == "tree" and d.root is not None and plan.out_root is not None:
            plan.out_root.mkdir(parents=True, exist_ok=True)
            for rel in d.dirs:
                (plan.out_root / rel).mkdir(parents=True, exist_ok=True)
    return discoveries


def make_job(args, plan: PortPlan, e, root: Path | None, inner: str):
    """The engine job for one discovered file in this mode (None: the file is not read).
    `inner`: its path relative to `root` as discovered (`/`-separated)."""
    from .engine import Job

    mode = plan.mode
    if mode in ("check", "diff", "review"):
        if e.kind in ("cuda", "build", "python"):
            return Job(e, keep_data=(mode in ("diff", "review")))
        return None
    if mode == "stdout":
        return Job(e, keep_data=True)
    if mode == "portcheck":
        return Job(e, keep_data=True)
    if mode == "file":
        return Job(e, out=str(plan.out_root))
    if mode == "tree":
        assert plan.out_root is not None and root is not None
        # string operations (not Path.relative_to): this runs once per file of the tree
        return Job(e, out=os.path.join(plan.out_root, *inner.split("/")), fresh=plan.fresh_out)
    # inplace (build files too: the same findings as -o, --diff and check)
    if e.kind not in ("cuda", "python", "build"):
        return None
    base = root if root is not None else e.path.parent
    backup = None
    if not args.no_backup:
        rel_path = Path(e.path).relative_to(base) if root else Path(e.path.name)
        backup = str(backup_folder(plan, base) / rel_path)
    return Job(e, out=str(e.path), backup=backup)


BACKUP_DIR = ".porter-backup"
_BACKUP_TRIES = 1000  # runs in one second that find a free name (`<stamp>-999`)


def backup_folder(plan: PortPlan, base: Path) -> Path:
    """This run's --in-place backup folder under `base`: `.porter-backup/<stamp>`, else
    `<stamp>-2`, `<stamp>-3`... when an earlier run (in the same second) has it. Made here, before
    any file is read, with an exclusive mkdir: no two runs share a folder, so no backup is ever
    overwritten (the engine also refuses to replace a backup file). One name for all the run's
    input folders."""
    folder = plan.backups.get(base)
    if folder is not None:
        return folder
    if plan.backups:  # the run's name is chosen: the same, new, in this folder too
        folder = base / BACKUP_DIR / plan.stamp
        try:
            folder.mkdir(parents=True)
        except FileExistsError:
            raise UsageError(
                f"{folder} exists: porter never writes into an earlier run's "
                f"backups (move it away, or use --no-backup)"
            ) from None
    else:
        for n in range(1, _BACKUP_TRIES + 1):
            name = plan.stamp if n == 1 else f"{plan.stamp}-{n}"
            folder = base / BACKUP_DIR / name
            try:
                folder.mkdir(parents=True)
                break
            except FileExistsError:
                continue
        else:
            raise UsageError(
                f"{base / BACKUP_DIR}: no new backup folder could be made (is it a folder?)"
            )
        plan.stamp = name
    plan.backups[base] = folder
    return folder


def drop_empty_backups(plan: PortPlan) -> None:
    """Remove the folders of this run's backups that hold no file (nothing changed there, or a
    backup that failed), bottom up; then `.porter-backup` itself when it is empty."""
    for folder in plan.backups.values():
        for dirpath, _, _ in os.walk(folder, topdown=False):
            if not os.listdir(dirpath):
                os.rmdir(dirpath)
        if folder.parent.is_dir() and not os.listdir(folder.parent):
            folder.parent.rmdir()


def add_context_headers(plan: PortPlan, discoveries: list, max_size: int) -> None:
    """A file ported on its own still sees what its quoted project headers declare."""
    from .discover import Entry
    from .engine import Job, local_headers

    if not any(d.root is None for d in discoveries):
        return
    given = {j.entry.path.resolve() for j in plan.jobs}
    for d in discoveries:
        if d.root is None and d.entries and d.entries[0].kind == "cuda":
            for h in local_headers(d.entries[0].path, max_size=max_size):
                if h not in given:
                    given.add(h)
                    plan.jobs.append(Job(Entry(h, str(h), "cuda"), context=True))


def run_pipeline(args, res: Resolved, jobs: list) -> list:
    """The project-wide pre-pass, then every job through the engine (in parallel). Returns the
    results of the non-context jobs, in job order."""
    from .engine import filter_declared, release_reads

    cached = args.command == "check" and not getattr(args, "no_cache", False)
    digests: dict[int, bytes] | None = {} if cached else None
    shims, own, roc_areas, no_sites = _project_prepass(res, jobs, args.quiet, digests)
    options = _engine_options(res, args, args.command, roc_areas, shims, own, no_sites)
    workers = args.jobs if args.jobs and args.jobs > 0 else (os.cpu_count() or 1)
    try:
        if digests is not None:
            results = _run_cached(jobs, options, workers, digests, args.quiet)
        else:
            results = _run_engine(jobs, options, workers, args.quiet)
    finally:  # the pre-pass's reads no job took (a cached check's unchanged files)
        release_reads()
    filter_declared(results)
    drop_project_headers(results, jobs)
    return [r for r, j in zip(results, jobs) if not j.context]


def _run_engine(jobs: list, options, workers: int, quiet: bool) -> list:
    from .engine import run_jobs

    progress = _progress(len(jobs), quiet=quiet)
    try:
        return run_jobs(jobs, options, workers, progress=progress.advance if progress else None)
    finally:
        if progress:
            progress.close()


def _run_cached(jobs: list, options, workers: int, digests: dict[int, bytes], quiet: bool) -> list:
    """check: results of unchanged files from the content-hash cache (porter/cache.py), the
    others through the engine, then stored. A result with errors is not stored."""
    import hashlib

    from .cache import ResultCache

    cache = ResultCache(options)
    results: list = [None] * len(jobs)
    todo: list[tuple[int, str | None]] = []
    key: str | None
    for i, job in enumerate(jobs):
        digest = digests.get(id(job))
        if digest is None:
            try:
                with open(job.entry.path, "rb") as fh:  # in blocks: a huge file is not read whole
                    digest = (
                        hashlib.file_digest(fh, "sha256").digest()
                        if hasattr(hashlib, "file_digest")
                        else hashlib.sha256(fh.read()).digest()
                    )
            except OSError:
                todo.append((i, None))  # the engine reports the error
                continue
        key = cache.key(job.entry.rel, job.entry.kind, job.context, digest)
        hit = cache.get(key)
        if hit is not None:
            results[i] = hit
        else:
            todo.append((i, key))
    if todo:
        fresh = _run_engine([jobs[i] for i, _ in todo], options, workers, quiet)
        for (i, key), r in zip(todo, fresh):
            results[i] = r
            if key is not None and r.status != "error" and not r.errors:
                cache.put(key, r)
    return results


def drop_project_headers(results: list, jobs: list) -> None:
    """A CUDA-looking include that names a header of the project itself (cuda-samples'
    `<nvrtc_helper.h>` in its `Common/`) is not an unconverted CUDA header: drop its PT001.
    The project is what porter was given: the files of the inputs, and the folders of each
    source (a quoted include resolves there); and, for a source in a git repository, the files
    git tracks there (a pre-commit run or a review checks a few files of a whole project)."""
    suffixes: set[str] | None = None
    tops: dict[Path, Path | None] = {}  # a source's folder -> its git top folder
    known: dict[tuple[Path, str], bool] = {}  # (git top folder, include) -> git tracks it
    beside: dict[tuple[str, str], bool] = {}  # (source folder, include) -> a file there

    def next_to(path: str, include: str) -> bool:
        # the files of a folder include the same headers: each pair is looked up once
        key = (os.path.dirname(path), include)
        found = beside.get(key)
        if found is None:
            found = beside[key] = os.path.isfile(os.path.join(key[0], include))
        return found

    def tracked(path: Path, include: str) -> bool:
        from .vcs import tracks, work_tree_of

        if path.parent not in tops:
            tops[path.parent] = work_tree_of(path.parent)
        top = tops[path.parent]
        if top is None:
            return False
        if (top, include) not in known:
            known[top, include] = tracks(top, include)
        return known[top, include]

    for r, j in zip(results, jobs):
        if not any(f.code == "PT001" for f in r.findings):
            continue
        if suffixes is None:  # every trailing part of every path: a/b/c.h, b/c.h, c.h
            suffixes = set()
            for job in jobs:
                parts = Path(job.entry.path).parts
                suffixes.update("/".join(parts[i:]) for i in range(1, len(parts)))
        kept = []
        for f in r.findings:
            if (
                f.code == "PT001"
                and f.name
                and f.message.startswith("include ")
                and (
                    f.name.lstrip("/") in suffixes
                    or next_to(str(j.entry.path), f.name)
                    or tracked(Path(j.entry.path), f.name)
                )
            ):
                r.stats.unconverted -= 1
                continue
            kept.append(f)
        r.findings = kept


def build_report(args, res: Resolved, plan: PortPlan, results: list):
    from .report import RunReport, attach_sources

    # the source lines are for the reports that show them (JSON, SARIF, Markdown, HTML), not
    # the terminal's; --in-place has rewritten the files: their lines are no longer the ones the
    # findings name
    if (getattr(args, "format", None) or "terminal") != "terminal" or getattr(args, "report", None):
        attach_sources(results, read_disk=plan.mode != "inplace")
    errors = [(r.rel, r.note) for r in results if r.status == "error"]
    errors += [(r.rel, e) for r in results for e in r.errors]
    explain_severities(results, res)
    skipped = plan.skipped + [(r.rel, r.note) for r in results if r.status == "skipped"]
    report = RunReport(plan.command, results, res.options_dict(), skipped, errors)
    report.changes = collect_changes(args, plan, results)
    return report


def collect_changes(args, plan: PortPlan, results: list) -> list[tuple[str, bytes, bytes]]:
    """(path, original, ported) of each file the port changes, for the reports that show the
    changes (JSON's per-file diff, Markdown, HTML's side-by-side view). The bytes come from the
    run where it kept them (--diff, --check, one file to standard output); after -o or
    --in-place they are read back from disk, and only when an HTML report asks for them."""
    out = []
    if plan.mode in ("diff", "portcheck", "stdout"):
        for r in results:
            if r.old_data is not None and r.new_data is not None and r.new_data != r.old_data:
                out.append((r.rel, r.old_data, r.new_data))
        return out
    wants_html = plan.fmt == "html" or any(
        str(p).lower().endswith((".html", ".htm")) for p in getattr(args, "report", None) or []
    )
    if not wants_html or plan.mode not in ("tree", "file", "inplace"):
        return out
    for job, r in zip(plan.jobs, results):
        if r.status != "ported":
            continue
        try:
            if plan.mode == "inplace":
                if job.backup is None:
                    continue
                old, new = Path(job.backup).read_bytes(), Path(job.entry.path).read_bytes()
            else:
                old, new = Path(job.entry.path).read_bytes(), Path(job.out).read_bytes()
        except OSError:
            continue
        out.append((r.rel, old, new))
    return out


def explain_severities(results: list, res: Resolved) -> None:
    """A finding whose severity is not its rule's default says why (`severity_reason`): the
    configuration set it, or the rule grades it per target GPU."""
    from .rules.registry import get

    overrides = dict(res.severity)
    for r in results:
        for f in r.findings:
            rule = get(f.code)
            if rule is None or f.severity == rule.severity:
                continue
            if f.code in overrides:
                f.extra["severity_reason"] = (
                    f"{f.severity}: set in {res.config_path or 'the configuration'}"
                )
            else:
                where = ", ".join(f.targets) if f.targets else "these targets"
                f.extra["severity_reason"] = (
                    f"{f.severity} on {where}; {f.code} is a {rule.severity} by default"
                )


def emit_port_output(plan: PortPlan, results: list):
    """Write what goes to standard output in this mode (ported text, a diff); returns the
    stream the report goes to (standard error when standard output carries the port)."""
    if plan.mode == "stdout":
        for r in results:
            if r.new_data is not None:
                sys.stdout.buffer.write(r.new_data)
            elif r.status != "error":
                sys.stdout.buffer.write(Path(plan.jobs[0].entry.path).read_bytes())
        sys.stdout.flush()
        return sys.stderr
    if plan.mode == "diff":
        if plan.fmt != "terminal":
            # a JSON, Markdown or HTML report carries the changes itself (see build_report):
            # standard output holds the report alone, so that it parses
            return sys.stdout
        for r in results:
            if r.new_data is not None and r.new_data != r.old_data:
                sys.stdout.write(_unified_diff(r.rel, r.old_data, r.new_data))
        sys.stdout.flush()
        return sys.stderr
    if plan.mode == "portcheck":
        return _emit_port_check(plan, results)
    return sys.stdout


def port_check_target(plan: PortPlan, job) -> Path:
    """The file `port --check` compares a port with: the input itself, or its place under -o."""
    if plan.out_root is None:
        return Path(job.entry.path)
    if not plan.inputs[0].is_dir():
        return plan.out_root
    return plan.out_root / Path(job.entry.path).relative_to(plan.inputs[0].resolve())


def stale_files(plan: PortPlan, results: list) -> list[tuple[str, bytes, bytes]]:
    """`port --check`: (path, current bytes, ported bytes) of each file the port would change
    (with -o: each output file that is missing or differs from what porter would write)."""
    out = []
    for job, r in zip(plan.jobs, results):
        if r.status == "error" or job.entry.kind == "symlink":
            continue
        target = port_check_target(plan, job)
        new = r.new_data if r.new_data is not None else r.old_data
        if new is None:
            try:
                new = Path(job.entry.path).read_bytes()
            except OSError:
                continue
        try:
            current = target.read_bytes()
        except FileNotFoundError:
            current = b""
        except OSError:
            continue
        if current != new or not target.exists():
            shown = r.rel if plan.out_root is None else str(target)
            out.append((shown, current, new))
    return out


def _emit_port_check(plan: PortPlan, results: list):
    stale = stale_files(plan, results)
    plan.stale = [s[0] for s in stale]
    if getattr(plan, "show_diff", False):
        for shown, current, new in stale:
            sys.stdout.write(_unified_diff(shown, current, new))
        sys.stdout.flush()
    verb = "would port" if plan.out_root is None else "would update"
    for shown, _, _ in stale:
        print(f"{verb} {shown}", file=sys.stderr)
    return sys.stderr


def print_report(args, plan: PortPlan, report, stream) -> None:
    from .report import render

    fmt = args.format or "terminal"
    text = render(
        fmt,
        report,
        color=(fmt == "terminal" and stream.isatty() and not os.environ.get("NO_COLOR")),
        statistics=getattr(args, "statistics", False),
        grouped=getattr(args, "group_by_file", False),
        quiet=args.quiet,
    )
    if plan.mode == "tree" and fmt == "terminal" and not args.quiet:
        text += f"ported tree written to {plan.out_root}\n"
    if plan.mode == "inplace" and fmt == "terminal" and not args.quiet and not args.no_backup:
        if any(r.status == "ported" for r in report.results):
            text += f"originals kept under {BACKUP_DIR}/{plan.stamp}/\n"
    stream.write(text)
    stream.flush()


def write_reports(args, report) -> None:
    """--report FILE (repeatable), then one line per file that failed."""
    for path in args.report:
        _write_report(Path(path), report)
    for rel, why in report.errors:
        print(f"porter: error: {rel}: {why}", file=sys.stderr)


# CUDA references porter cannot port (unknown to the tables; no HIP equivalent): they fail a
# run at any --fail-level, unless the configuration lowers their severity to info
UNPORTED_CODES = frozenset({"PT001", "PT002"})


def failing_findings(report, fail_level) -> list:
    from .findings import Severity

    return [
        f
        for f in report.open_findings
        if f.severity >= fail_level or (f.code in UNPORTED_CODES and f.severity >= Severity.WARNING)
    ]


def exit_status(args, res: Resolved, report, plan: PortPlan | None = None) -> int:
    """0 nothing at or above the fail level; 1 findings at or above it, or with `port --check`
    files the port would change; 2 errors (see porter/exits.py)."""
    if report.errors:
        return EXIT_ERROR
    if plan is not None and plan.mode == "portcheck":
        return EXIT_FINDINGS if plan.stale and not args.exit_zero else EXIT_OK
    if args.exit_zero:
        return EXIT_OK
    if getattr(report, "verify", None) is not None and report.verify.failed:
        return EXIT_FINDINGS  # port --verify: a unit that does not compile
    return EXIT_FINDINGS if failing_findings(report, res.fail_level) else EXIT_OK


_PREPASS_KEPT = 64 * 2**20  # bytes of sources the pre-pass keeps for its second reading


def _project_prepass(
    res: Resolved, jobs, quiet: bool, digests: dict[int, bytes] | None = None
) -> tuple[frozenset, tuple, frozenset, frozenset]:
    """One read of every source before porting, for the project-wide decisions: the CUDA names
    the project shims to HIP itself (see shim_names), the table names a header of the project
    defines for the files that include it (see project_names and project.names_by_file: a
    compatibility header's `typedef int cudaStream_t;` keeps its uses in those files too), and
    with --roc which libraries move to roc* (see roc_plan). Returns (shims, project names as
    PortOptions.project_names, roc areas, the files without a definition site of a table name as
    PortOptions.no_declaration_sites). With `digests` (the cached check) it also records each
    source's SHA-256 by id(job), and takes what it reads of an unchanged file from the cache.

    The bytes it reads first, up to _PREPASS_KEPT of them, serve its own later reads (the include
    graph's) and the engine's (engine.keep_read: the job porting the file takes them, so that
    each file is read once and ported as the pre-pass saw it); past that budget, the engine reads
    the file again.
    Which files include which (the unconditional includes, each from the file's #if model) is
    read only in a project where some header defines names of its own: most define none."""
    import hashlib

    from .engine import keep_read, kept_read, read_within, release_reads
    from .mappings.index import load_index
    from .rewrite.cuda import project_scan, roc_plan, shim_names
    from .rewrite.lex import hold_identifiers, release_identifiers
    from .rewrite.project import (
        FileScan,
        any_includes,
        names_by_file,
        reaching_names,
        unconditional_includes,
    )

    index = load_index()
    release_identifiers()  # those a previous run held and did not port
    release_reads()
    names: set[str] = set()
    provided: list[tuple[Job, frozenset[str]]] = []  # (job, project names), every source
    no_sites: list[str] = []  # the sources without a definition site (project_scan)
    cache = None
    if digests is not None:
        from .cache import ResultCache

        cache = ResultCache({"project_prepass": 5})

    # the bytes of the first sources read (at most _PREPASS_KEPT of them) serve the include
    # graph's reads of the same files (CCCL: 1,606 files read up to three times) and the
    # engine's, which takes them (engine.keep_read)
    budget = _PREPASS_KEPT

    def read(j) -> bytes | None:
        # None for a file over the size limit (the engine copies it unchanged) or unreadable
        nonlocal budget
        path = os.fspath(j.entry.path)
        held = kept_read(path)
        if held is not None:
            return held[0]
        try:
            data, st = read_within(path, res.max_file_size)
        except OSError:
            return None
        if data is not None and len(data) <= budget:
            keep_read(path, data, st)
            budget -= len(data)
        return data

    def cached(j, data: bytes, kind: str, compute):
        """`compute(data)`, through the check's cache when there is one."""
        if cache is None:
            return compute(data)
        assert digests is not None  # the cache is the cached check's
        digest = digests.get(id(j))
        if digest is None:
            digest = hashlib.sha256(data).digest()
            digests[id(j)] = digest
        key = cache.key("", kind, False, digest)
        found = cache.get(key)
        if found is None:
            found = compute(data)
            cache.put(key, found)
        return found

    def scan(j, data: bytes) -> tuple[set[str], frozenset[str], bool]:
        # the file's identifiers, held for the port's rewriter (which reads the file again):
        # they rule out most files' search for definition sites
        idents = hold_identifiers(data)
        return shim_names(data), *project_scan(j.entry.rel, data, index, idents)

    def sources():
        for j in jobs:
            if j.entry.kind == "cuda":
                data = read(j)
                if data is None:
                    continue
                found = cached(j, data, "prepass", lambda d, j=j: scan(j, d))
                names.update(found[0])
                provided.append((j, found[1]))
                if not found[2]:
                    no_sites.append(j.entry.rel)
                yield data

    areas: frozenset = frozenset()
    if res.roc:
        areas, blockers = roc_plan(index, sources(), res.rocm_version)
        if not quiet:
            for area, used in sorted(blockers.items()):
                more = (
                    f" and {len(used) - _ROC_BLOCKERS_SHOWN} more"
                    if len(used) > _ROC_BLOCKERS_SHOWN
                    else ""
                )
                shown = ", ".join(used[:_ROC_BLOCKERS_SHOWN]) + more
                print(
                    f"porter: --roc: {area} stays on the hip* library: {shown} "
                    f"{'has' if len(used) == 1 else 'have'} no one-to-one roc* equivalent",
                    file=sys.stderr,
                )
    else:
        for _ in sources():
            pass
    shims = frozenset(n for n in names if n in index.by_name or n in index.qualified)
    seen: dict[str, frozenset[str]] = {}
    if any(n for _, n in provided):
        # some header defines the project's own names: which files include it (a second read
        # of each source, only in such projects; most define none, and skip the #if models).
        # The graph of every include text first: only the files from which it reaches such a
        # header need their #if model (CCCL: 923 of 1,606 files)
        scans: list[FileScan] = []
        for j, own in provided:
            data = read(j)
            incs = () if data is None else any_includes(data)
            scans.append(FileScan(j.entry.rel, os.path.abspath(j.entry.path), own, incs))
        resolved: dict = {}  # both graphs' includes resolved once
        reaching = reaching_names(scans, resolved)
        for i, (f, (j, _)) in enumerate(zip(scans, provided)):
            incs = ()
            if f.path in reaching:  # abspath's paths are normalized, as reaching_names' are
                data = read(j)
                if data is not None:
                    incs = cached(j, data, "includes", unconditional_includes)
            scans[i] = FileScan(f.rel, f.path, f.names, incs)
        seen = names_by_file(scans, resolved)
    return shims, tuple(sorted(seen.items())), areas, frozenset(no_sites)


def _display(input_path: Path, rel: str, root) -> str:
    """A file's name as it opens from the working folder: `input/rel` for a relative input; for
    an absolute one, relative to the working folder when it lies inside it, else absolute."""
    # string operations: this runs once per file of the tree
    path = os.path.normpath(str(input_path) if root is None else os.path.join(input_path, rel))
    if os.path.isabs(path):
        cwd = _cwd()
        if cwd and path.startswith(cwd.rstrip(os.sep) + os.sep):
            return path[len(cwd.rstrip(os.sep)) + 1 :]
    return path


@functools.lru_cache(maxsize=1)
def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""


def _unified_diff(rel: str, old: bytes, new: bytes) -> str:
    import difflib  # only the diff outputs (--diff, port --check --diff) need it

    a = old.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    b = new.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    # a/ b/ prefixes for names relative to the working folder (`patch -p1`, `git apply`); an
    # absolute name is written as it is (`patch -p0`), as diff -u does
    old_name, new_name = (rel, rel) if os.path.isabs(rel) else (f"a/{rel}", f"b/{rel}")
    lines = difflib.unified_diff(a, b, old_name, new_name)
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


_EXT_FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".sarif": "sarif",
    ".html": "html",
    ".htm": "html",
    ".txt": "terminal",
}


def check_report_paths(args) -> None:
    """Refuse an unknown --report extension before any work is done."""
    for path in getattr(args, "report", None) or []:
        if Path(path).suffix.lower() not in _EXT_FORMATS:
            raise UsageError(
                f"--report {path}: unknown extension (use .md, .json, .sarif, .html or .txt)"
            )


def _write_report(path: Path, report) -> None:
    from .engine import atomic_write
    from .report import render
    from .source import escape_undecodable

    fmt = _EXT_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise UsageError(
            f"--report {path}: unknown extension (use .md, .json, .sarif, .html or .txt)"
        )
    # a file name that is not UTF-8 is written as \xNN escapes: the report stays valid UTF-8
    atomic_write(path, escape_undecodable(render(fmt, report)).encode())


class _Progress:
    def __init__(self, total: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.p = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.p.start()
        self.task = self.p.add_task("porting", total=total)

    def advance(self, n: int) -> None:
        self.p.advance(self.task, n)

    def close(self) -> None:
        self.p.stop()


_PROGRESS_MIN_FILES = 50  # smaller runs finish before a progress bar would help


def _progress(total: int, quiet: bool):
    if quiet or total < _PROGRESS_MIN_FILES or not sys.stderr.isatty():
        return None
    return _Progress(total)


# -- clean -----------------------------------------------------------------------------------
def run_clean(args) -> int:
    from .cache import cache_dir, clean

    count, size = clean()
    print(
        f"removed {count} cache entr{'y' if count == 1 else 'ies'} ({size / 1e6:.1f} MB) "
        f"from {cache_dir()}"
    )
    return EXIT_OK


# -- rule ------------------------------------------------------------------------------------
RULE_LEGEND = """
severity: the rule's default. Rules that depend on the GPU grade a finding per target
  (--offload-arch): a 32-lane assumption is an error on wave64 gfx9 and may be a warning
  elsewhere; such a finding says why, e.g. "(error on gfx942; PT101 is a warning by default)".
  The configuration can set a rule's severity ([tool.porter] severity = { PT105 = "info" }).
fix: safe    applied by `porter port` (not by check); equivalent code, nothing to review
     unsafe  applied only with --unsafe-fixes: usually right, but review the change
     display a suggestion shown in the report, never applied
     none    no automatic fix
  `porter rule CODE` says under "Fix safety" what a rule's fix changes and how safe it is."""


def rules_markdown(rules) -> str:
    """Every rule's documentation as one Markdown page, a `## CODE name` heading per rule (the
    anchors reports link to; see report.rule_anchor)."""
    out = [
        "# porter rules",
        "",
        "Generated by `porter rule --all --format markdown --full`; the text lives in each "
        "rule's docstring.",
        "",
    ]
    for r in rules:
        title, _, body = r.doc().strip().partition("\n")
        out += [
            f"## {r.code} {r.name}",
            "",
            f"{title.strip()}",
            "",
            f"Default severity: {r.severity}. Fix: {r.fix}.",
            "",
            ("\n" + body.strip()).replace("\n## ", "\n### ").strip(),
            "",
        ]
    return "\n".join(out)


def run_rule(args) -> int:
    from .rules.registry import all_rules, get

    if args.all or not args.code:
        rules = all_rules()
        if args.format == "json":
            import json

            print(
                json.dumps(
                    [
                        {
                            "code": r.code,
                            "name": r.name,
                            "severity": str(r.severity),
                            "fix": r.fix,
                            "languages": list(r.languages),
                        }
                        for r in rules
                    ],
                    indent=2,
                )
            )
        elif args.format == "markdown" and getattr(args, "full", False):
            print(rules_markdown(rules), end="")
        elif args.format == "markdown":
            print("| code | name | severity | fix |\n|---|---|---|---|")
            for r in rules:
                print(f"| {r.code} | {r.name} | {r.severity} | {r.fix} |")
        else:
            for r in rules:
                print(f"{r.code:7} {r.name:40} {str(r.severity):8} fix: {r.fix}")
            print(RULE_LEGEND)
        return EXIT_OK
    rule = get(args.code)
    if rule is None:
        raise UsageError(f"unknown rule {args.code!r} (see `porter rule --all`)")
    doc = rule.doc()
    title, _, body = doc.partition("\n")
    print(f"{rule.code} {rule.name}: {title}")
    print(f"severity: {rule.severity}; fix: {rule.fix}; languages: {', '.join(rule.languages)}")
    print(body.rstrip())
    return EXIT_OK


# -- mappings --------------------------------------------------------------------------------
def run_mappings(args) -> int:
    import csv
    import io
    import json

    from .mappings.index import load_index
    from .mappings.model import COLUMNS

    idx = load_index()
    version = parse_rocm_version(args.rocm_version) if args.rocm_version else None
    if args.symbol:
        rows = [
            r
            for r in idx.all_rows()
            if r.cuda == args.symbol or r.hip == args.symbol or r.cuda.endswith("::" + args.symbol)
        ]
        if args.area:
            rows = [r for r in rows if r.area == args.area]
        if not rows:
            print(f"porter: {args.symbol}: not in the mapping tables", file=sys.stderr)
            return EXIT_FINDINGS
    else:
        if args.area and args.area not in idx.areas:
            raise UsageError(f"unknown area {args.area!r} (areas: {', '.join(sorted(idx.areas))})")
        rows = list(idx.areas[args.area]) if args.area else list(idx.all_rows())
    if version is not None:
        rows = [r for r in rows if r.since <= version or not r.hip]
    if args.format == "json":
        print(
            json.dumps(
                [{**{k: getattr(r, k) for k in COLUMNS}, "area": r.area} for r in rows], indent=2
            )
        )
    elif args.format == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(("area",) + COLUMNS)
        for r in rows:
            w.writerow((r.area,) + tuple(getattr(r, k) for k in COLUMNS))
        sys.stdout.write(buf.getvalue())
    elif args.format == "markdown":
        title = f"## {args.area}" if args.area else "## porter mapping tables"
        print(title + "\n")
        print("| CUDA | HIP | roc | kind | status | ROCm | notes |\n|---|---|---|---|---|---|---|")
        for r in rows:
            cell = lambda s: s.replace("|", "\\|")  # noqa: E731
            print(
                f"| `{cell(r.cuda)}` | {('`' + cell(r.hip) + '`') if r.hip else ''} | "
                f"{('`' + cell(r.roc) + '`') if r.roc else ''} | {r.kind} | {r.status} | "
                f"{r.hip_since} | {cell(r.notes)} |"
            )
    else:
        for r in rows:
            hip = r.hip or "(none)"
            since = f", ROCm {r.hip_since}+" if r.hip_since else ""
            roc = f", --roc: {r.roc}" if r.roc else ""
            xf = f", call rewrite: {r.transform}" if r.transform else ""
            print(f"{r.cuda} -> {hip}  [{r.area}, {r.kind}, {r.status}{since}{roc}{xf}]")
            if r.notes and args.symbol:
                print(f"    note: {r.notes}")
            if args.symbol:
                print(f"    source: {r.source}")
    return EXIT_OK


# -- verify ----------------------------------------------------------------------------------
def run_verify(args) -> int:
    from . import verify

    return verify.main_verify(args)
