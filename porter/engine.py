"""One file through the pipeline (read → parse → rewrite → rules → fixes → write), and a
parallel runner over many."""

from __future__ import annotations

import bisect
import contextlib
import errno
import gc
import itertools
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .discover import Entry
from .findings import Applicability, Finding, Severity
from .results import FileResult
from .rewrite import lex
from .rewrite.cuda import CudaRewriter, PortOptions, Stats
from .rewrite.edits import apply
from .rules.base import RuleOptions
from .source import SourceFile, is_binary, is_utf8
from .state import STATE as _STATE
from .suppress import override, suppress

_UMASK = os.umask(0o022)
os.umask(_UMASK)
# Porting holds a file's tree, edits and findings in memory: about 60 times the file's size
# (5 MB: 340 MB resident). A larger source is copied unchanged and reported rather than risk
# the machine's memory; CUDA's own largest header (cuda.h) is 1.1 MB.
MAX_FILE_SIZE = 16 * 2**20


@dataclass(frozen=True)
class EngineOptions:
    port: PortOptions = PortOptions()
    rules: RuleOptions = RuleOptions()  # targets and ROCm version the rules read
    rule_codes: tuple[str, ...] | None = None  # selected rule codes (None: every rule)
    severity: tuple[tuple[str, str], ...] = ()  # (code, severity) overrides
    apply_fixes: bool = True  # port: apply safe fixes
    unsafe_fixes: bool = False
    rewrite: bool = True  # port: apply the mapping edits
    run_rules: bool = True
    max_file_size: int = MAX_FILE_SIZE  # bytes; a larger source is copied unchanged (0: none)
    port_build_files: bool = False  # port: rewrite PyTorch extension builds (rewrite/pyext)


#: Distinct identifiers TriggerIndex remembers per process (a few MB at most).
_TRIGGER_CACHE_MAX = 100_000
#: Sets of identifier triggers TriggerIndex keeps the selection of (dozens in practice).
_PLANS_MAX = 4096
#: A TriggerIndex plan: (the rules chosen, (the rules a search selects, the search)...).
_Plan = tuple[
    frozenset[int], tuple[tuple[frozenset[int], Callable[[bytes], "re.Match | None"]], ...]
]
#: A text trigger's identifier-like runs shorter than this are no gate when it has a longer one.
_GRAM = 3


def _trie_pattern(words: list[bytes]) -> bytes:
    """A regex matching, at a position, the longest of `words` (non-empty, of identifier bytes:
    none is special to a regex) that starts there: a trie (one alternative per next byte, which
    excludes the others, and the word ending at a node tried after every longer one), so the
    regex engine does not try each word in turn."""

    def pattern(tails: list[bytes]) -> bytes:
        # tails: sorted, distinct, the empty one (a word ending here) first
        if len(tails) == 1:
            return tails[0]
        ends = tails[0] == b""
        alts = [
            bytes([c]) + pattern([t[1:] for t in group])
            for c, group in itertools.groupby(tails[1:] if ends else tails, key=lambda t: t[0])
        ]
        if ends:
            alts.append(b"")
        return alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"

    return pattern(sorted(set(words)))


class TriggerIndex:
    """Which rules a file triggers. Triggers are substrings; those that look like identifiers are
    looked for in the file's distinct identifiers only (joined, far smaller than the file)."""

    _IDENTLIKE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")

    def __init__(self, rules) -> None:
        self.rules = list(rules)
        self.always = [r for r in self.rules if not r.triggers]
        trig = sorted({t for r in self.rules for t in r.triggers})
        self.ident_triggers = [t for t in trig if self._IDENTLIKE.fullmatch(t)]
        self.text_triggers = [t for t in trig if not self._IDENTLIKE.fullmatch(t)]
        # a text trigger's identifier-like runs (`cp`, `async` of `cp.async`) are inside the
        # file's identifier tokens wherever the trigger occurs: when one is missing, the
        # trigger is absent without a scan of the whole file. Only the runs of _GRAM bytes or
        # more are looked for when the trigger has one (`mma` of `mma.h`, not `h`): a short run
        # is in most identifiers, which would all be remembered as holding a trigger
        self._runs = {}
        for t in self.text_triggers:
            runs = self._IDENTLIKE.findall(t)
            self._runs[t] = tuple(r for r in runs if len(r) >= _GRAM) or tuple(runs)
        self._match = sorted(set(self.ident_triggers).union(*self._runs.values()))
        # the new identifiers, joined, are searched once for the longest match string at each
        # position; the others matching there are its prefixes (a Python loop over every
        # position of every identifier cost about 1.6 times the regex engine's trie)
        self._search_match = re.compile(_trie_pattern(self._match)).search if self._match else None
        strings = set(self._match)
        self._prefixes = {
            t: frozenset(t[:n] for n in range(1, len(t) + 1) if t[:n] in strings)
            for t in self._match
        }
        # identifier -> the identifier-like triggers it contains, for those that contain one;
        # `_seen` holds every identifier matched so far: a tree's files share most of their
        # identifiers, so each distinct one is matched once
        self._by_ident: dict[bytes, frozenset[bytes]] = {}
        self._hitters: set[bytes] = set()
        self._seen: set[bytes] = set()
        # trigger -> indices of the rules it selects; the rules without triggers always run
        self._rules_of: dict[bytes, list[int]] = {}
        for i, r in enumerate(self.rules):
            for t in set(r.triggers):
                self._rules_of.setdefault(t, []).append(i)
        self._always_idx = {i for i, r in enumerate(self.rules) if not r.triggers}
        # each text trigger with the rules it selects and its identifier runs (see _plan)
        self._text_gates = [
            (t, tuple(self._rules_of[t]), self._runs[t]) for t in self.text_triggers
        ]
        # the searches for sets of text triggers (see _plan): the regex engine finds a literal
        # in about half the CPU of `in`, and one alternation of every pending trigger, tried at
        # each byte that starts one, cost more than the searches it saved
        self._searches: dict[tuple[bytes, ...], Callable[[bytes], re.Match | None]] = {}
        # the identifier triggers a file holds -> (the rules they select, the searches for the
        # text triggers still to look for): files share a handful of such sets
        self._plans: dict[frozenset[bytes], _Plan] = {}

    def rules_for(self, data: bytes, idents=None) -> list:
        if idents is None:
            idents = set(self._IDENTLIKE.findall(data))
        new = idents - self._seen
        if new:
            if len(self._seen) + len(new) > _TRIGGER_CACHE_MAX:
                # bounded memory on a huge tree: start the cache over, with every identifier of
                # this file new again (those seen before are no longer known)
                self._seen.clear()
                self._by_ident.clear()
                self._hitters.clear()
                new = set(idents)
            self._seen |= new
            if self._search_match is not None:
                self._learn(list(new))
        present: set[bytes] = set()
        known = self._by_ident
        for i in idents & self._hitters:
            present |= known[i]
        key = frozenset(present)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plan(key)
        chosen = set(plan[0])
        for selects, search in plan[1]:
            # a scan of the file's bytes only for triggers that would still select a rule not
            # chosen (`>>5` needs none once `32` chose PT101)
            if not chosen.issuperset(selects) and search(data) is not None:
                chosen.update(selects)
        if not chosen:
            return self.always
        chosen.update(self._always_idx)
        return [self.rules[i] for i in sorted(chosen)]

    def _learn(self, new: list[bytes]) -> None:
        """Remember the match strings each of `new` (identifiers) holds, for those holding one.
        They are joined by a byte no match string holds: a match lies inside one identifier,
        the one its start falls in."""
        search = self._search_match
        assert search is not None
        joined = b"\n".join(new)
        starts = list(itertools.accumulate((len(i) + 1 for i in new), initial=0))
        prefixes = self._prefixes
        found: dict[int, set[bytes]] = {}
        m = search(joined)
        while m is not None:
            p = m.start()
            k = bisect.bisect_right(starts, p) - 1
            hit = found.get(k)
            if hit is None:
                hit = found[k] = set()
            hit |= prefixes[m.group()]
            m = search(joined, p + 1)
        for k, hit in found.items():
            self._by_ident[new[k]] = frozenset(hit)
            self._hitters.add(new[k])

    def _plan(self, present: frozenset[bytes]) -> _Plan:
        """For a file holding the identifier triggers `present`: (the rules they select, the
        searches for the text triggers that would select another rule and whose identifier
        runs it holds). The text triggers that select the same rules and start with the same
        byte are looked for by one search (`31|32`: the regex engine scans for their common
        first bytes as fast as for one literal), each with the rules it selects."""
        rules_of = self._rules_of
        chosen: set[int] = set()
        for t in present:
            chosen.update(rules_of.get(t, ()))
        groups: dict[tuple[tuple[int, ...], bytes], list[bytes]] = {}
        for t, selects, runs in self._text_gates:
            if not chosen.issuperset(selects) and present.issuperset(runs):
                groups.setdefault((selects, t[:1]), []).append(t)
        searches = tuple(
            (frozenset(selects), self._search_of(tuple(ts))) for (selects, _), ts in groups.items()
        )
        if len(self._plans) >= _PLANS_MAX:
            self._plans.clear()
        plan = self._plans[present] = (frozenset(chosen), searches)
        return plan

    def _search_of(self, triggers: tuple[bytes, ...]) -> Callable[[bytes], re.Match | None]:
        """One search for any of `triggers` (kept per set: plans share them)."""
        search = self._searches.get(triggers)
        if search is None:
            search = re.compile(b"|".join(re.escape(t) for t in triggers)).search
            self._searches[triggers] = search
        return search


# -- per-process state ------------------------------------------------------------------------


def init_worker(options: EngineOptions, index_folder: str | None) -> None:
    from .mappings.index import load_index

    index = load_index(Path(index_folder) if index_folder else None)
    _STATE["options"] = options
    _STATE["index"] = index
    _STATE["rewriter"] = CudaRewriter(index, options.port)
    rules = []
    if options.run_rules:
        from .rules.registry import all_rules

        codes = set(options.rule_codes) if options.rule_codes is not None else None
        rules = [
            r()
            for r in all_rules()
            if not r.emitted_by_engine and (codes is None or r.code in codes)
        ]
    _STATE["rules"] = [r for r in rules if "cuda" in r.languages]
    _STATE["build_rules"] = [r for r in rules if "build" in r.languages]
    _STATE["triggers"] = TriggerIndex(_STATE["rules"])
    _STATE["build_triggers"] = TriggerIndex(_STATE["build_rules"])
    _STATE["py_rules"] = [r for r in rules if "python" in r.languages]
    _STATE["py_triggers"] = TriggerIndex(_STATE["py_rules"])
    _STATE["severity"] = {c: Severity.parse(s) for c, s in options.severity}
    # porting makes many short-lived objects and few reference cycles: collect the youngest
    # generation every _GC_YOUNG allocations instead of every 700 (CPython's default), which
    # cost a collection every few identifiers (CCCL: 321 collections, about 4% of the CPU)
    gc.set_threshold(_GC_YOUNG, *gc.get_threshold()[1:])


#: allocations between collections of the youngest generation (see init_worker)
_GC_YOUNG = 10_000


def process_one(rel: str, data: bytes, options: EngineOptions, kind: str = "cuda") -> FileResult:
    """Port/check one file held in memory (tests, editors, the review workflow)."""
    if _STATE.get("options") is not options:
        init_worker(options, None)
    if kind == "python":
        from .rewrite.python import process

        return process(rel, data, process_data)
    return process_build(rel, data) if kind == "build" else process_data(rel, data)


def process_build(rel: str, data: bytes, root: Path | None = None) -> FileResult:
    """Run the build-file rules (CMake, Makefiles) on one file and, when porting, port it
    (porter.rewrite.build); *root* is the project folder (for the packages other files need)."""
    opts: EngineOptions = _STATE["options"]
    res = FileResult(rel, "build", old_data=data, new_data=data)
    rules = _STATE["build_triggers"].rules_for(data)
    if not rules and not opts.rewrite:
        return res
    from .rules.base import RuleContext

    src = SourceFile(rel, data)
    ctx = RuleContext(src, None, opts.rules, _STATE["index"])
    findings = [f for rule in rules for f in rule.check(ctx)]
    if opts.rewrite:
        from .rewrite.build import port_result

        findings = port_result(res, src, opts, findings, root)
        if opts.rule_codes is not None:
            findings = [f for f in findings if f.code in opts.rule_codes]
    findings = suppress(src, findings, opts.rule_codes)
    override(findings, _STATE["severity"])
    findings.sort(key=Finding.sort_key)
    res.findings = findings
    return res


def process_data(rel: str, data: bytes, rewriter=None) -> FileResult:
    """Port/check one CUDA C++ source held in memory. Returns the result with new_data set.
    `rewriter`: another CudaRewriter (CUDA C++ in Python strings gets no include added)."""
    opts: EngineOptions = _STATE["options"]
    res = FileResult(rel, "cuda", old_data=data)
    src = SourceFile(rel, data)
    rw = (rewriter or _STATE["rewriter"]).run(src)
    res.stats = rw.stats
    res.declared = rw.declared
    res.uses_cuda = rw.uses_cuda
    findings = list(rw.findings)
    tree = rw.tree
    rules = _STATE["triggers"].rules_for(data, rw.idents or None)
    if rules and rw.idents:
        rules = [r for r in rules if r.wanted(rw.idents, _STATE["index"], data)]
    if rules:
        from .rules.base import RuleContext

        # the rewriter's #if model (when it built one) is the rules' ctx.pp too
        parse = None
        if tree is None and any(r.needs_tree for r in rules):
            from .parse import cuda as parser

            parse = parser.parse  # on a rule's first read of ctx.tree / ctx.root
        ctx = RuleContext(
            src, tree, opts.rules, _STATE["index"], rw.idents or None, pp=rw.pp, parse=parse
        )
        specific = []
        for rule in rules:
            try:
                specific.extend(rule.check(ctx))
            except Exception as exc:  # noqa: BLE001 - a rule bug must not stop the port
                res.errors.append(
                    f"internal error in rule {rule.code} "
                    f"({type(exc).__name__}: {exc}); its findings are missing"
                )
        # a rule that explains a construct (TMA, clusters, version macros...) supersedes the
        # generic "no HIP equivalent" finding for the same name
        # (a specific finding starting inside the name, or one whose span holds it: PT304 on a
        # whole `#if CUDART_VERSION ...` line and PT002 on its CUDART_VERSION are one problem)
        by_line: dict[int, list[Finding]] = {}
        for f in specific:
            by_line.setdefault(f.line, []).append(f)

        def covered(f: Finding) -> bool:
            for s in by_line.get(f.line, ()):
                if f.col <= s.col < f.col + max(1, len(f.name)):
                    return True
                if s.end_line == f.line and s.col <= f.col and f.col + len(f.name) <= s.end_col:
                    return True
            return False

        kept = []
        for f in findings:
            if f.code == "PT002" and covered(f):
                _uncount(res.stats, f)
            else:
                kept.append(f)
        findings = kept
        findings.extend(specific)
    unfiltered = findings  # what accounts for the names left (invariant)
    if opts.rule_codes is not None:  # --select / --ignore cover the rewriter's codes too
        chosen = set(opts.rule_codes)
        findings = [f for f in findings if f.code in chosen]
    findings = suppress(src, findings, opts.rule_codes)
    override(findings, _STATE["severity"])
    edits = rw.edits if opts.rewrite else None
    if edits is None:
        from .rewrite.edits import EditSet

        edits = EditSet()
    if opts.apply_fixes:
        for f in findings:
            fx = f.fix
            if fx is None:
                continue
            if fx.applicability is Applicability.SAFE or (
                fx.applicability is Applicability.UNSAFE and opts.unsafe_fixes
            ):
                if edits.add_group(fx.edits):
                    f.extra["fixed"] = True
                    res.fixes_applied += 1
    findings.sort(key=Finding.sort_key)
    res.findings = findings
    new = apply(data, edits.edits) if len(edits) else data
    res.edits = edits.edits
    if opts.rewrite:  # no CUDA name left behind silently (porter/rewrite/invariant.py)
        from .rewrite.invariant import unaccounted

        res.findings += unaccounted(_STATE["index"], src, new, edits.edits, unfiltered, rw, opts)
        res.findings.sort(key=Finding.sort_key)
    res.new_data = new
    res.status = "ported" if new != data else "unchanged"
    return res


# -- files -----------------------------------------------------------------------------------
_TEMP_PREFIX = ".porter-"
# the flags mkstemp opens its files with: a new file (never an existing one, nor a symbolic
# link's target), for writing, not inherited by a program porter runs
_TEMP_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
#: Names tried before giving up when each is taken (tempfile.TMP_MAX, mkstemp's bound).
_TEMP_TRIES = tempfile.TMP_MAX
_temp_ids = itertools.count()
_temp_pid = os.getpid()


def _after_fork() -> None:
    # a forked worker names its temporary files by its own process id
    global _temp_pid
    _temp_pid = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _new_temp(folder: str | Path, mode: int) -> tuple[int, str]:
    """A new temporary file in `folder`, open for writing, made with `mode` less the umask:
    (fd, path). Its name is short (`.porter-PID-N.tmp`: a name derived from the target's would
    pass NAME_MAX, 255 bytes, for a target near it) and unique to this process; a name another
    file holds already is never opened (O_EXCL), the next one is tried. mkstemp did the same with
    random names, at the cost of a random draw per file and a second system call for the mode."""
    for _ in range(_TEMP_TRIES):
        tmp = os.path.join(folder, f"{_TEMP_PREFIX}{_temp_pid}-{next(_temp_ids)}.tmp")
        try:
            return os.open(tmp, _TEMP_FLAGS, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(folder))


def _temp_beside(path: Path) -> str:
    """A new empty temporary file in `path`'s folder (mode 0600, as mkstemp's), with a short
    name of its own (see _new_temp)."""
    fd, tmp = _new_temp(path.parent, _PRIVATE)
    os.close(fd)
    return tmp


def _discard(tmp: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)


_PRIVATE = 0o600
#: The permission bits (and set-id and sticky bits) a written file takes from its source.
_MODE_BITS = 0o7777
#: What open(2) applies the umask to; the set-id and sticky bits are given by fchmod.
_PERMISSION_BITS = 0o777
#: Output folders this process made or found (atomic_write does not ask again for each file).
_MADE_DIRS: set[str] = set()
_MADE_DIRS_MAX = 10_000


def atomic_write(
    path: str | Path,
    data: bytes,
    mode_from: Path | None = None,
    mode: int | None = None,
    *,
    fresh: bool = False,
) -> None:
    """Write through a temporary file in the same folder and rename: never half-written (an
    error or Ctrl-C removes the temporary file and leaves `path` as it was). The file gets the
    mode `mode` (st_mode of a stat the caller made already), else `mode_from`'s (a stat here),
    else the umask's (0666 less the umask).

    `fresh`: `path` is in an output folder this run made, where nobody's file can be replaced.
    The file is then created at its name (O_EXCL), with no temporary file and no rename (a create
    and a rename cost about twice a create: CCCL's 1,606 files, about 0.08 s). An error or Ctrl-C
    removes it as it would the temporary file; a name that exists already (two inputs with one
    output, a file made meanwhile) takes the temporary file's way."""
    path = os.fspath(path)  # string operations from here: this runs once per file of the tree
    parent = os.path.dirname(path) or os.curdir
    if parent not in _MADE_DIRS:
        os.makedirs(parent, exist_ok=True)
        if len(_MADE_DIRS) >= _MADE_DIRS_MAX:
            _MADE_DIRS.clear()
        _MADE_DIRS.add(parent)
    if mode is None and mode_from is not None:
        with contextlib.suppress(FileNotFoundError):  # the source vanished meanwhile
            mode = os.stat(mode_from).st_mode
    want = 0o666 & ~_UMASK if mode is None else mode & _MODE_BITS
    # made with the mode at once (open applies the umask): a chmod only for the bits the umask
    # takes away, and the set-id and sticky bits
    tmp = None
    held = _hold_interrupts()
    try:
        try:
            fd, tmp = _create(path if fresh else None, parent, want & _PERMISSION_BITS)
        finally:
            _release_interrupts(held)  # one that came meanwhile is raised here: tmp is known
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]  # a write may take only part of it
            if want & _PERMISSION_BITS & ~_UMASK != want:
                with contextlib.suppress(PermissionError):  # a file system without modes (FAT)
                    os.fchmod(fd, want)
        finally:
            os.close(fd)
        if tmp != path:
            os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            _discard(tmp)
        raise


def _create(new: str | None, parent: str, mode: int) -> tuple[int, str]:
    """atomic_write's file, open for writing: (fd, its path). `new` itself when given and no
    file has its name, else a new temporary file in `parent`. A folder removed since it was made
    is made again."""
    try:
        return _create_in(new, parent, mode)
    except FileNotFoundError:
        _MADE_DIRS.discard(parent)
        os.makedirs(parent, exist_ok=True)
        return _create_in(new, parent, mode)


def _create_in(new: str | None, parent: str, mode: int) -> tuple[int, str]:
    if new is not None:
        with contextlib.suppress(FileExistsError):
            return os.open(new, _TEMP_FLAGS, mode), new
    return _new_temp(parent, mode)


def _hold_interrupts():
    """Hold Ctrl-C and SIGTERM (a pool worker's end) while a temporary file is made: raised
    between its creation and the caller's cleanup, either would leave the file behind. The held
    signal is raised at `_release_interrupts`, inside the caller's cleanup."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)


def _release_interrupts(held) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


_INTERRUPTS = frozenset({signal.SIGINT, signal.SIGTERM})


def atomic_copy(src: Path, dst: Path) -> None:
    """Copy (bytes, mode and times) through a temporary file in the same folder and rename."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    held = _hold_interrupts()
    try:
        try:
            tmp = _temp_beside(dst)
        finally:
            _release_interrupts(held)
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        if tmp is not None:
            _discard(tmp)
        raise


def keep_original(src: Path, backup: Path) -> None:
    """Copy an original before --in-place replaces it, to a file that must not exist yet: a
    backup is never overwritten. Copied to a temporary file and linked into place (a link, unlike
    a rename, fails when the name exists), so a backup is never half-written either. An error
    here stops the file from being replaced."""
    try:
        backup.parent.mkdir(parents=True, exist_ok=True)
        tmp = None
        held = _hold_interrupts()
        try:
            try:
                tmp = _temp_beside(backup)
            finally:
                _release_interrupts(held)
            shutil.copy2(src, tmp)
            try:
                os.link(tmp, backup)
            except OSError as exc:
                if exc.errno not in _NO_HARD_LINKS:
                    raise
                with open(tmp, "rb") as fin, open(backup, "xb") as fout:  # x: new file only
                    shutil.copyfileobj(fin, fout)
        finally:
            if tmp is not None:
                _discard(tmp)
    except OSError as exc:
        raise BackupError(
            exc.errno, f"original not backed up to {backup} ({exc.strerror or exc}): left unchanged"
        ) from None


class BackupError(OSError):
    """keep_original failed; the file was not replaced (the report says so, whatever errno)."""


# link(2) errors of file systems without hard links (FAT, some network mounts)
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK})


_O_RDONLY = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_READ_MORE = 2**20


def read_within(path: str | Path, limit: int) -> tuple[bytes | None, os.stat_result]:
    """(the file's bytes, its stat), the bytes None when it is larger than `limit` (0: no
    limit). One open, fstat and read: Path.stat then Path.read_bytes made twice the system
    calls (a stat, then an open, two fstat, an isatty ioctl, two lseek and a read up to the end
    of the file)."""
    fd = os.open(path, _O_RDONLY)
    try:
        st = os.fstat(fd)
        size = st.st_size
        if limit and size > limit:
            return None, st
        data = os.read(fd, size + 1)
        if len(data) == size:  # the whole file, and its end (a read stops short only there)
            return data, st
        # it grew or shrank since the fstat, its size is not told (/proc), or the read was cut
        # (Linux reads at most 2 GiB at once): to its end
        parts = [data]
        while True:
            more = os.read(fd, _READ_MORE)
            if not more:
                return b"".join(parts), st
            parts.append(more)
    finally:
        os.close(fd)


def keep_read(path: str, data: bytes, st: os.stat_result) -> None:
    """Keep what read_within(path) gave (the project pre-pass's read of a source) for the job
    that ports the same file, which takes it (once) instead of reading the file again: one read
    per file, and the pre-pass's decisions are about the bytes that are ported. The caller bounds
    the total (the pre-pass: _PREPASS_KEPT); a worker forked after the pre-pass inherits them."""
    _KEPT_READS[path] = (data, st)


def kept_read(path: str) -> tuple[bytes, os.stat_result] | None:
    """What keep_read keeps for `path`, left kept (the pre-pass's own later reads)."""
    return _KEPT_READS.get(path)


def release_reads() -> None:
    """Let go of the reads keep_read keeps that no job took."""
    _KEPT_READS.clear()


#: keep_read's reads by path (the job's entry path as a string)
_KEPT_READS: dict[str, tuple[bytes, os.stat_result]] = {}


@dataclass(frozen=True)
class Job:
    entry: Entry
    out: str | None = None  # where to write (tree / file mode)
    fresh: bool = False  # `out` is in an output folder this run made (atomic_write's `fresh`)
    keep_data: bool = False  # return old/new text (stdout, diff)
    backup: str | None = None  # in-place: where to keep the original
    context: bool = False  # read only for the names it declares (a header next to a
    # single input file); not ported, not reported


def run_job(job: Job) -> FileResult:
    e = job.entry
    res = FileResult(e.rel, e.kind)
    if job.context:
        kept = _KEPT_READS.pop(os.fspath(e.path), None)  # the pre-pass's read (keep_read)
        if kept is not None:
            data = kept[0]
        else:
            try:
                if _over_size_limit(e.path):
                    return res
                data = e.path.read_bytes()
            except OSError:
                return res
        if not is_binary(data):
            res.declared = _STATE["rewriter"].run(SourceFile(e.rel, data)).declared
        return res
    try:
        if e.kind == "symlink":
            if job.out:
                out = Path(job.out)
                out.parent.mkdir(parents=True, exist_ok=True)
                if os.path.lexists(out):
                    os.unlink(out)
                os.symlink(e.link_target, out)
            res.status = "copied"
            res.note = "symbolic link kept as a link"
            return res
        if e.kind not in ("cuda", "build", "python"):  # copied as they are, never read whole
            res.status = "copied"
            if job.out:
                atomic_copy(e.path, Path(job.out))
            return res
        # one open and fstat: the size for the limit, the mode for the output, then the bytes
        # (or those the pre-pass read, keep_read)
        kept = _KEPT_READS.pop(os.fspath(e.path), None)
        read, st = kept or read_within(e.path, _STATE["options"].max_file_size)
        if read is None:
            res.status = "skipped"
            res.note = _over_size_limit(e.path, st.st_size) or ""
            if job.out and job.out != str(e.path):
                atomic_copy(e.path, Path(job.out))
            return res
        data = read
        if e.kind == "build":
            # the project folder: the input folder (e.rel is a display path, relative to the
            # working folder or absolute, so it cannot tell), or a single file's own folder
            root = e.root if e.root is not None else e.path.parent
            res = process_build(e.rel, data, root)
            if res.new_data is not None and res.new_data != data:
                if job.backup:
                    keep_original(e.path, Path(job.backup))
                if job.out:
                    atomic_write(job.out, res.new_data, mode=st.st_mode, fresh=job.fresh)
            else:
                res.status = "copied"
                if job.out:
                    atomic_copy(e.path, Path(job.out))
            if not job.keep_data:
                res.new_data = res.old_data = None
            return res
        if e.kind == "python" and not is_binary(data):
            from .rewrite.build import torch_extensions  # PyTorch extension builds (PT908)
            from .rewrite.python import process

            res = process(e.rel, data, process_data)
            opts = _STATE["options"]
            res.findings.extend(
                f
                for f in torch_extensions(e.rel, data, e.path.parent)
                if opts.rule_codes is None or f.code in opts.rule_codes
            )
            if opts.port_build_files and opts.rewrite:
                from .rewrite.pyext import port_result as port_torch_build

                port_torch_build(res, data, e.path.parent, opts)
            if job.out:
                if res.new_data != data:
                    if job.backup:
                        keep_original(e.path, Path(job.backup))
                    atomic_write(job.out, res.new_data, mode=st.st_mode, fresh=job.fresh)
                elif job.out != str(e.path):
                    atomic_copy(e.path, Path(job.out))
            if not job.keep_data:
                res.new_data = res.old_data = None
            return res
        if is_binary(data):
            res.status = "copied"
            res.note = "binary file copied unchanged"
            if job.out:
                atomic_copy(e.path, Path(job.out))
            return res
        res = process_data(e.rel, data)
        res.kind = e.kind
        if not is_utf8(data):
            res.note = "not UTF-8: ported byte for byte outside the rewritten names"
        new = data if res.new_data is None else res.new_data
        if job.backup and new != data:
            keep_original(e.path, Path(job.backup))
        if job.out:
            # the bytes are in memory already: write them rather than copy the file again
            atomic_write(job.out, new, mode=st.st_mode, fresh=job.fresh)
        if not job.keep_data:
            res.new_data = None
            res.old_data = None
        return res
    except PermissionError:
        res.status = "error"
        res.note = "permission denied"
        return res
    except (
        RecursionError,
        MemoryError,
        ValueError,
        IndexError,
        KeyError,
        AttributeError,
        TypeError,
        UnicodeError,
    ) as exc:
        # a porter bug on this file: keep the original in the output, report it, go on
        res.status = "error"
        res.note = f"internal error ({type(exc).__name__}: {exc}); copied unchanged"
        if job.out and e.kind != "symlink" and os.path.exists(e.path):
            try:
                atomic_copy(e.path, Path(job.out))
            except OSError:
                pass
        return res
    except OSError as exc:
        res.status = "error"
        res.note = exc.strerror or str(exc)
        return res


def _over_size_limit(path: Path, size: int | None = None) -> str | None:
    """Why a source is too big to port (see MAX_FILE_SIZE), or None. `size`: its size, when the
    caller has it already."""
    limit = _STATE["options"].max_file_size
    if not limit:
        return None
    if size is None:
        size = path.stat().st_size
    if size <= limit:
        return None
    return (
        f"{_mib(size)} is over the {_mib(limit)} limit (--max-file-size): copied "
        f"unchanged, neither ported nor checked"
    )


def _mib(n: int) -> str:
    if n < 2**20:
        return f"{n} bytes"
    return f"{n / 2**20:.1f} MiB" if n % 2**20 else f"{n // 2**20} MiB"


def run_jobs(
    jobs: list[Job],
    options: EngineOptions,
    workers: int,
    progress=None,
    index_folder: str | None = None,
) -> list[FileResult]:
    """Run jobs in parallel (fork-based processes); results in job order."""
    n_cuda = sum(1 for j in jobs if j.entry.kind in ("cuda", "python"))
    workers = max(1, min(workers, n_cuda))
    if workers == 1 or len(jobs) < 4:
        init_worker(options, index_folder)
        out = []
        for j in jobs:
            out.append(run_job(j))
            if progress:
                progress(1)
        return out
    import multiprocessing as mp

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    # load the index once in the parent so that forked workers share it
    init_worker(options, index_folder)
    results: list[FileResult | None] = [None] * len(jobs)
    chunk = max(1, min(16, len(jobs) // (workers * 8) or 1))
    pool = _new_pool(ctx, workers, options, index_folder)
    # the workers are forked with the pre-pass's reads and identifier sets (each takes those of
    # its files); the parent ports nothing and lets go of its copies
    release_reads()
    lex.release_identifiers()
    try:
        for i, r in pool.imap_unordered(_indexed, list(enumerate(jobs)), chunksize=chunk):
            results[i] = r
            if progress:
                progress(1)
    except BaseException:  # Ctrl-C, or a job's error raised again here
        _terminate(pool)
        raise
    # Every job is done: each worker ends on the end-of-work sentinel the pool sends it, with no
    # signal. (Pool.terminate, which the pool's `with` block calls, holds the task queue's lock
    # and relies on one SIGTERM per worker, which can be lost: see _terminate.)
    pool.close()
    pool.join()
    return results  # type: ignore[return-value]


def _new_pool(ctx, workers: int, options: EngineOptions, index_folder: str | None):
    return ctx.Pool(workers, initializer=_pool_worker_init, initargs=(options, index_folder))


# How often _terminate sends SIGTERM again to a worker that has not ended.
_TERM_RESEND_SECONDS = 0.5


def _terminate(pool) -> None:
    """End a pool's workers before their work is done (Ctrl-C, an error), waiting for them.

    Pool.terminate sends each worker one SIGTERM, then waits for it. That one signal can be
    lost: seen about once in 50 runs of a 5-file `port -j 2` (the CI run that timed out), a
    worker blocked on the task queue's lock (which the parent holds by then) had received it,
    had not run its handler, and had nothing pending; a second SIGTERM ended it at once. The
    likely cause is the interpreter's check-then-block window: the signal is taken while the
    worker runs Python code just before the lock's wait, which then never wakes. So a helper
    thread sends SIGTERM again, every _TERM_RESEND_SECONDS, to each worker that has not
    exited, until terminate returns. A worker that has exited is known from its sentinel
    (readable once the process ends, before it is reaped), so a signal never goes to a
    process id the system may have given to another process."""
    import threading
    from multiprocessing.connection import wait

    done = threading.Event()

    def resend() -> None:
        while not done.wait(_TERM_RESEND_SECONDS):
            workers = list(pool._pool)
            ended = set(wait([w.sentinel for w in workers], timeout=0))
            for w in workers:
                if w.sentinel not in ended:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(w.pid, signal.SIGTERM)

    helper = threading.Thread(target=resend, name="porter-terminate", daemon=True)
    helper.start()
    try:
        pool.terminate()
    finally:
        done.set()
        helper.join()


def _pool_worker_init(options: EngineOptions, index_folder: str | None) -> None:
    """A pool worker leaves Ctrl-C to the parent (the terminal sends SIGINT to the whole
    process group: each worker would print its own KeyboardInterrupt traceback). The parent
    then terminates the pool with SIGTERM, which ends a worker through SystemExit so that a
    temporary file being written is removed (atomic_write's cleanup) and no traceback prints."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_term)
    init_worker(options, index_folder)


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _indexed(item):
    i, job = item
    return i, run_job(job)


_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def local_headers(path: Path, depth: int = 3, max_size: int = MAX_FILE_SIZE) -> list[Path]:
    """Headers a file includes with quotes that exist beside it (and theirs, `depth` levels):
    porting one file still knows the macros and types its own project headers declare. A file
    over `max_size` bytes is not read (it is not ported either)."""
    found: list[Path] = []
    todo = [(path.resolve(), 0)]
    seen = {path.resolve()}
    while todo:
        p, d = todo.pop()
        if d >= depth:
            continue
        try:
            if max_size and p.stat().st_size > max_size:
                continue
            data = p.read_bytes()
        except OSError:
            continue
        for m in _QUOTED_INCLUDE.finditer(data):
            h = (p.parent / m.group(1).decode("utf-8", "replace")).resolve()
            if h not in seen and h.is_file():
                seen.add(h)
                found.append(h)
                todo.append((h, d + 1))
    return found


def _uncount(stats: Stats, f: Finding) -> None:
    """Take a dropped PT002 finding out of the per-area 'unsupported' count."""
    area = f.extra.get("area")
    if area and stats.unsupported.get(area):
        stats.unsupported[area] -= 1
        if not stats.unsupported[area]:
            del stats.unsupported[area]


def filter_declared(results: list[FileResult]) -> None:
    """Drop unconverted/unsupported findings for names the project declares itself (in any file):
    a project's own `cudaGaugeField` or `umin` is not a CUDA API reference."""
    declared: set[str] = set()
    for r in results:
        declared |= r.declared
    if not declared:
        return
    for r in results:
        kept = []
        for f in r.findings:
            if f.code == "PT001" and f.name in declared:
                r.stats.unconverted -= 1
                continue
            if f.code == "PT002" and f.name in declared:
                _uncount(r.stats, f)
                continue
            kept.append(f)
        r.findings = kept
