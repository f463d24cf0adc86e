"""engine.atomic_write: a ported file is written through a temporary file beside it and renamed,
with its source's mode (or the umask's), never half-written, and no temporary file is left behind
by an error or Ctrl-C. Temporary names are `.porter-PID-N.tmp`: short, and a name another file
holds already is skipped, never opened. In an output folder the run made (`fresh`), a file is
created at its name instead, with the same guarantees: removed on an error or Ctrl-C, a file
that exists already replaced whole, a link at its name never followed."""

from __future__ import annotations

import errno
import itertools
import multiprocessing
import os
import signal
import stat

import pytest

from porter import engine
from porter.engine import atomic_write

NAME_MAX = 255
DATA = b"__global__ void k() {}\n" * 1000  # 23 KB: more than one write's worth when capped


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _names(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("mode", [0o644, 0o755, 0o600, 0o666, 0o777, 0o444, 0o640, 0o4755])
def test_the_output_takes_the_sources_mode_exactly(tmp_path, mode):
    """Bits the umask would clear (0666, 0777) and the set-id bit are given too (fchmod)."""
    src = tmp_path / "k.cu"
    src.write_bytes(b"x")
    os.chmod(src, mode)
    out = tmp_path / "out"
    atomic_write(out / "a.cu", DATA, mode_from=src)
    atomic_write(out / "b.cu", DATA, mode=os.stat(src).st_mode)
    for name in ("a.cu", "b.cu"):
        assert _mode(out / name) == mode, (oct(mode), name)
        assert (out / name).read_bytes() == DATA
    assert _names(out) == ["a.cu", "b.cu"]


def test_without_a_source_the_umask_decides(tmp_path):
    atomic_write(tmp_path / "r.md", b"report")
    assert _mode(tmp_path / "r.md") == 0o666 & ~_umask()


def test_a_vanished_source_gives_the_umasks_mode(tmp_path):
    atomic_write(tmp_path / "k.cu", DATA, mode_from=tmp_path / "gone.cu")
    assert _mode(tmp_path / "k.cu") == 0o666 & ~_umask()
    assert (tmp_path / "k.cu").read_bytes() == DATA


def test_an_existing_file_is_replaced_whole(tmp_path):
    target = tmp_path / "k.cu"
    target.write_bytes(b"old " * 100_000)
    atomic_write(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    atomic_write(target, b"")  # an empty file too
    assert target.read_bytes() == b""
    assert _names(tmp_path) == ["k.cu"]


def test_a_255_byte_name_is_written(tmp_path):
    name = "k" * (NAME_MAX - len(".cu")) + ".cu"
    atomic_write(tmp_path / name, DATA)
    assert (tmp_path / name).read_bytes() == DATA
    assert _names(tmp_path) == [name]


def test_temporary_names_held_by_other_files_are_skipped(tmp_path, monkeypatch):
    """A stale temporary file of an earlier process with the same id, or anyone's file with
    that name, is neither opened nor removed: the next name is taken."""
    monkeypatch.setattr(engine, "_temp_ids", itertools.count())
    taken = {f".porter-{engine._temp_pid}-{n}.tmp": f"someone's {n}".encode() for n in range(3)}
    for name, body in taken.items():
        (tmp_path / name).write_bytes(body)
    atomic_write(tmp_path / "k.cu", DATA)
    assert (tmp_path / "k.cu").read_bytes() == DATA
    for name, body in taken.items():
        assert (tmp_path / name).read_bytes() == body
    assert _names(tmp_path) == sorted([*taken, "k.cu"])


def test_when_every_name_is_taken_it_fails_and_touches_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "_temp_ids", itertools.count())
    monkeypatch.setattr(engine, "_TEMP_TRIES", 2)
    for n in range(2):
        (tmp_path / f".porter-{engine._temp_pid}-{n}.tmp").write_bytes(b"theirs")
    with pytest.raises(FileExistsError):
        atomic_write(tmp_path / "k.cu", DATA)
    assert not (tmp_path / "k.cu").exists()
    assert all(p.read_bytes() == b"theirs" for p in tmp_path.iterdir())


@pytest.mark.parametrize("error", [KeyboardInterrupt(), OSError(errno.ENOSPC, "No space left")])
def test_an_interrupted_write_leaves_the_target_as_it_was_and_no_temporary(
    tmp_path, monkeypatch, error
):
    target = tmp_path / "k.cu"
    target.write_bytes(b"before")
    written = []

    def write_then_fail(fd, data):
        if written:
            raise error
        written.append(len(data))
        return os.write(fd, bytes(data[:100]))  # a part, then the failure

    monkeypatch.setattr(engine.os, "write", write_then_fail)
    with pytest.raises(type(error)):
        atomic_write(target, DATA)
    monkeypatch.undo()
    assert target.read_bytes() == b"before"
    assert _names(tmp_path) == ["k.cu"]


def test_short_writes_are_continued(tmp_path, monkeypatch):
    real = os.write
    monkeypatch.setattr(engine.os, "write", lambda fd, data: real(fd, bytes(data[:1000])))
    atomic_write(tmp_path / "k.cu", DATA)
    monkeypatch.undo()
    assert (tmp_path / "k.cu").read_bytes() == DATA


def test_a_removed_folder_is_made_again(tmp_path):
    out = tmp_path / "out" / "sub"
    atomic_write(out / "a.cu", DATA)
    (out / "a.cu").unlink()
    out.rmdir()  # gone since atomic_write made it (it remembers the folders it made)
    atomic_write(out / "b.cu", DATA)
    assert _names(out) == ["b.cu"]


def _child_temp_name(folder: str, queue) -> None:
    fd, tmp = engine._new_temp(folder, 0o600)
    os.close(fd)
    queue.put((os.getpid(), os.path.basename(tmp)))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_worker_names_temporaries_by_its_own_process_id(tmp_path):
    """Workers are forked from the parent after it wrote files: their names must not repeat
    the parent's (which would only cost retries, but every file of every worker)."""
    engine._temp_beside(tmp_path / "x")  # the parent has made names before forking
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_temp_name, args=(str(tmp_path), queue))
    child.start()
    pid, name = queue.get(timeout=30)
    child.join(30)
    assert pid != os.getpid() and name.startswith(f".porter-{pid}-"), name


def test_a_ported_tree_keeps_each_sources_mode(tmp_path):
    """End to end: run_job hands atomic_write the mode of the stat it made for the size limit;
    a ported file, an unchanged one and a build file keep their sources' modes."""
    from porter.cli import main

    src = tmp_path / "in"
    src.mkdir()
    files = {
        "run.cu": (b"int main() { cudaDeviceSynchronize(); }\n", 0o755),
        "keep.cuh": (b"inline int twice(int x) { return 2 * x; }\n", 0o600),
        "open.cu": (b"void f() { cudaFree(0); }\n", 0o666),
        "CMakeLists.txt": (b"project(p LANGUAGES CXX CUDA)\n", 0o640),
    }
    for name, (body, mode) in files.items():
        (src / name).write_bytes(body)
        os.chmod(src / name, mode)
    main(["port", str(src), "-o", str(tmp_path / "out"), "-q", "-j", "1"])
    for name, (_, mode) in files.items():
        assert _mode(tmp_path / "out" / name) == mode, name
    assert b"hipDeviceSynchronize" in (tmp_path / "out" / "run.cu").read_bytes()
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".porter-")]


@pytest.mark.parametrize("how", ["write", "copy", "backup"])
def test_interrupt_as_the_temporary_file_is_made_leaves_nothing(tmp_path, monkeypatch, how):
    """Ctrl-C (or a pool worker's SIGTERM) that arrives just after the temporary file is made,
    before the code that removes it on failure runs, leaves no temporary file: the signal is
    held while the file is made and raised inside that code."""
    import porter.engine as engine

    src = tmp_path / "src.cu"
    src.write_bytes(b"int x;\n")
    real_open = os.open

    def open_then_interrupt(path, flags, mode=0o777, **kw):
        fd = real_open(path, flags, mode, **kw)
        if os.path.basename(os.fspath(path)).startswith(".porter-"):
            os.kill(os.getpid(), signal.SIGINT)
        return fd

    monkeypatch.setattr(engine.os, "open", open_then_interrupt)
    target = tmp_path / "out" / "k.cu"
    with pytest.raises(KeyboardInterrupt):
        if how == "write":
            engine.atomic_write(target, b"ported\n")
        elif how == "copy":
            engine.atomic_copy(src, target)
        else:
            engine.keep_original(src, target)
    monkeypatch.undo()
    assert not target.exists()
    assert not [p for p in tmp_path.rglob(".porter-*")], list(tmp_path.rglob("*"))


# -- fresh: a file in an output folder the run made is created at its name ----------------------


def _no_renames(monkeypatch) -> list:
    renamed: list = []
    real = os.replace
    monkeypatch.setattr(engine.os, "replace", lambda a, b: renamed.append(b) or real(a, b))
    return renamed


@pytest.mark.parametrize("mode", [0o644, 0o755, 0o600, 0o4755])
def test_a_fresh_file_is_created_at_its_name_with_its_mode(tmp_path, monkeypatch, mode):
    renamed = _no_renames(monkeypatch)
    atomic_write(tmp_path / "new" / "k.cu", DATA, mode=stat.S_IFREG | mode, fresh=True)
    assert (tmp_path / "new" / "k.cu").read_bytes() == DATA
    assert _mode(tmp_path / "new" / "k.cu") == mode
    assert renamed == [] and _names(tmp_path / "new") == ["k.cu"]


def test_a_fresh_write_over_an_existing_file_takes_the_temporary_files_way(tmp_path, monkeypatch):
    """Two inputs with one output, a file made meanwhile: the existing file is replaced whole,
    as without `fresh`, never opened and written in place."""
    target = tmp_path / "k.cu"
    target.write_bytes(b"before" * 10_000)
    inode = os.stat(target).st_ino
    renamed = _no_renames(monkeypatch)
    atomic_write(target, DATA, fresh=True)
    assert target.read_bytes() == DATA and renamed == [str(target)]
    assert os.stat(target).st_ino != inode
    assert _names(tmp_path) == ["k.cu"]


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(), OSError(errno.ENOSPC, "x")])
def test_an_interrupted_fresh_write_leaves_no_file(tmp_path, monkeypatch, error):
    """Ctrl-C, a worker's SIGTERM (SystemExit in a worker) or a full disk in the middle of a
    fresh write: the half-written file is removed, as a temporary file would be."""
    written = []

    def write_then_fail(fd, data):
        if written:
            raise error
        written.append(len(data))
        return os.write(fd, bytes(data[:100]))

    monkeypatch.setattr(engine.os, "write", write_then_fail)
    with pytest.raises(type(error)):
        atomic_write(tmp_path / "k.cu", DATA, fresh=True)
    monkeypatch.undo()
    assert _names(tmp_path) == []


def test_a_fresh_write_never_follows_a_link_at_its_name(tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "k.cu").symlink_to(victim)
    atomic_write(tmp_path / "out" / "k.cu", DATA, fresh=True)
    assert victim.read_bytes() == b"keep"
    assert not (tmp_path / "out" / "k.cu").is_symlink()
    assert (tmp_path / "out" / "k.cu").read_bytes() == DATA


def test_a_fresh_write_remakes_a_removed_folder(tmp_path):
    out = tmp_path / "out" / "sub"
    atomic_write(out / "a.cu", DATA, fresh=True)
    (out / "a.cu").unlink()
    out.rmdir()
    atomic_write(out / "b.cu", DATA, fresh=True)
    assert _names(out) == ["b.cu"]


def _port_renames(tmp_path, monkeypatch, out, *extra) -> list:
    from porter.cli import main

    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True, exist_ok=True)
    (src / "a.cu").write_bytes(b"void f() { cudaFree(0); }\n")
    (src / "sub" / "b.cuh").write_bytes(b"inline int twice(int x) { return 2 * x; }\n")
    renamed = _no_renames(monkeypatch)
    assert main(["port", str(src), "-o", str(out), "-q", "-j", "1", *extra]) in (0, 1)
    monkeypatch.undo()
    assert b"hipFree" in (out / "a.cu").read_bytes()
    assert (out / "sub" / "b.cuh").read_bytes() == (src / "sub" / "b.cuh").read_bytes()
    assert not [p for p in out.rglob(".porter-*")]
    return renamed


def test_a_new_output_tree_is_written_without_renames(tmp_path, monkeypatch):
    assert _port_renames(tmp_path, monkeypatch, tmp_path / "out") == []


def test_an_existing_output_tree_is_written_through_temporary_files(tmp_path, monkeypatch):
    """--force into a folder that exists: its files are somebody's; each is replaced whole."""
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (out / "sub" / "b.cuh").write_bytes(b"older")
    renamed = _port_renames(tmp_path, monkeypatch, out, "--force")
    assert sorted(os.path.relpath(p, out) for p in renamed) == ["a.cu", "sub/b.cuh"]
