"""How `run_jobs` ends its worker processes (`-j N`).

A CI run timed out because `porter port -j 2` never ended: `Pool.terminate`, called by the
pool's `with` block after every job was done, holds the task queue's lock and sends each worker
one SIGTERM; a worker that lost that signal waited on the lock forever, and the parent waited
for the worker. Two fixes, two tests: finished work ends the workers with the pool's own
end-of-work sentinel (no signal at all), and an early end (Ctrl-C, an error) sends SIGTERM again
until every worker has exited.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from multiprocessing import popen_fork

from porter import engine
from porter.discover import discover
from porter.engine import EngineOptions, Job

KERNEL = (
    b"__global__ void k(float *x) { x[threadIdx.x] = 0; }\nvoid f() { cudaDeviceSynchronize(); }\n"
)


def test_finished_work_ends_the_workers_without_a_signal(tmp_path, monkeypatch):
    for i in range(8):
        (tmp_path / "src" / f"k{i}.cu").parent.mkdir(exist_ok=True)
        (tmp_path / "src" / f"k{i}.cu").write_bytes(KERNEL)
    made = []
    real = engine._new_pool

    def spy(*args):
        pool = real(*args)
        made.append(list(pool._pool))
        return pool

    monkeypatch.setattr(engine, "_new_pool", spy)
    signals = []
    real_send = popen_fork.Popen._send_signal
    monkeypatch.setattr(
        popen_fork.Popen,
        "_send_signal",
        lambda self, sig: (signals.append(sig), real_send(self, sig))[1],
    )
    out = tmp_path / "out"
    jobs = [Job(e, out=str(out / e.rel)) for e in discover(tmp_path / "src").entries]
    results = engine.run_jobs(jobs, EngineOptions(), 2)
    assert [r.status for r in results] == ["ported"] * 8
    [workers] = made
    assert len(workers) == 2
    # a worker ended by SIGTERM exits with 143 (its handler's SystemExit) or -15
    assert signals == []
    assert [w.exitcode for w in workers] == [0, 0]


# Workers that lose the first SIGTERM they get (the handler returns, as if the signal had not
# come), busy in a job when the early end comes: Pool.terminate alone would wait forever.
LOSES_ONE_SIGNAL = textwrap.dedent(
    """
    import multiprocessing as mp, os, signal, sys, time
    from porter import engine

    def init(folder):
        seen = []
        def on_term(signum, frame):
            seen.append(signum)
            if len(seen) > 1:
                raise SystemExit(143)
        signal.signal(signal.SIGTERM, on_term)

    def job(folder):
        open(os.path.join(folder, str(os.getpid())), "w").close()
        time.sleep(120)

    folder = sys.argv[1]
    pool = mp.get_context("fork").Pool(2, initializer=init, initargs=(folder,))
    for _ in range(2):
        pool.apply_async(job, (folder,))
    while len(os.listdir(folder)) < 2:  # both workers are in a job
        time.sleep(0.01)
    workers = list(pool._pool)
    if sys.argv[2] == "porter":
        engine._terminate(pool)
    else:
        pool.terminate()
    print(sorted(w.exitcode for w in workers))
    """
)


def test_an_early_end_sends_sigterm_again_until_every_worker_has_exited(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", LOSES_ONE_SIGNAL, str(tmp_path), "porter"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["[143,", "143]"]


def test_the_lost_signal_hangs_pool_terminate(tmp_path):
    """The simulation is faithful: the pool's own terminate does not end these workers."""
    proc = subprocess.Popen(
        [sys.executable, "-c", LOSES_ONE_SIGNAL, str(tmp_path), "pool"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        proc.communicate(timeout=5)
        raise AssertionError("Pool.terminate ended workers that lost their SIGTERM")
    except subprocess.TimeoutExpired:
        pass
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
