"""A job and the worker processes it starts end together: killed, cancelled or abandoned.

Each test runs the real tree-sweep job (2 worker processes) in a forked
process, the way the Dash job manager starts one, and looks for survivors of
its process group and for files it left in /dev/shm.
"""

import os
import signal
import time
from pathlib import Path

import multiprocess
import psutil
import pytest

from dashboard.crossgen import work
from dashboard import jobs
from dashboard.jobs import local, owners
from dashboard.crossgen.kinds import SWEEP

SHM = Path("/dev/shm")


def _group(pgid: int) -> list[int]:
    out = []
    for p in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(p.pid) == pgid and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p.pid)
        except (ProcessLookupError, psutil.NoSuchProcess):
            continue
    return out


def _shm() -> set:
    return set(os.listdir(SHM)) if SHM.is_dir() else set()


def _sweep_job(key, params, abandon_after=None):
    """What the page's job callback does in its process: own group, then the job."""
    if abandon_after is not None:
        from dashboard import settings
        settings.JOB_ABANDON_SECONDS = abandon_after
    local.own_process_group()
    try:
        jobs.run_job(key, lambda report: work.sweep_result(params, report))
    finally:
        local.leave_process_group()


def _start(abandon_after=None, folds="10"):
    req = SWEEP.request({"target": "GTX-980", "seed": "5", "folds": folds})
    jobs.beat(req["key"])
    proc = multiprocess.get_context("fork").Process(target=_sweep_job, args=(req["key"], req["params"],
                                                                             abandon_after))
    proc.start()
    owners.LOCAL.record(proc.pid)  # its starter, as the manager records it when a page starts a job
    deadline = time.time() + 60
    while len(_group(proc.pid)) < 3 and time.time() < deadline:  # the job and its two workers
        time.sleep(0.05)
    assert len(_group(proc.pid)) >= 3, "the job did not start its worker processes"
    return proc, req["key"]


def _gone(pgid, seconds=90.0) -> list[int]:
    """The group's processes still alive once they are gone or ``seconds`` have passed (a generous deadline: a
    busy machine is slow to end them, and the wait ends as soon as they are gone)."""
    deadline = time.time() + seconds
    while _group(pgid) and time.time() < deadline:
        time.sleep(0.05)
    return _group(pgid)


@pytest.fixture()
def shm_before():
    return _shm()


def test_a_killed_job_leaves_no_worker_and_nothing_in_shm(var, shm_before):
    proc, key = _start()
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(90)
    jobs.reap_finished()  # what the page's watchdog does on its next tick
    assert _gone(proc.pid) == []
    assert not list((var / "jobs" / "groups").iterdir())
    assert _shm() - shm_before == set()
    assert jobs.job_failed(key)


def test_cancel_ends_the_whole_group(var, shm_before):
    proc, key = _start()
    jobs.background_manager().terminate_job(proc.pid)  # what Dash does on Cancel
    proc.join(90)
    assert _gone(proc.pid) == []
    assert _shm() - shm_before == set()
    assert not jobs.has_result(key)


def test_an_abandoned_job_stops_its_workers(var, shm_before):
    # 20 folds: about 3 s of work reported every ~0.15 s, so the once-a-second check finds it unwatched
    # (0.5 s) while it still runs, on this machine and on one several times faster
    proc, key = _start(abandon_after=0.5, folds="20")
    proc.join(180)
    assert proc.exitcode == 0
    assert jobs.status(key)["state"] == "abandoned"
    assert _gone(proc.pid) == []
    assert not list((var / "jobs" / "groups").iterdir())
    assert _shm() - shm_before == set()


def test_a_job_that_ends_while_polled_is_not_running(var, monkeypatch):
    """Dash's check read the process after asking whether its pid exists; a job ending in between raised
    NoSuchProcess out of the page's poll (seen in the callback fuzz test). Now it is simply not running."""
    manager = jobs.background_manager()
    assert manager.job_running(os.getpid()) and not manager.job_running(None) and not manager.job_running(0)

    def ended(pid):
        raise psutil.NoSuchProcess(pid)

    monkeypatch.setattr(psutil, "pid_exists", lambda pid: True)
    monkeypatch.setattr(psutil, "Process", ended)
    assert manager.job_running(os.getpid()) is False
    assert manager.job_running(str(os.getpid())) is False
