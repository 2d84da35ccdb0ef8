"""Local jobs started by the real job manager (Dash's ``call_job_fn`` / ``terminate_job``), as a page starts
them: from a clean process, stopped on Cancel or abandonment whatever the job is doing, reaped at once.

The job here computes for up to 60 s without a single progress report (a fit that never calls the reporter),
so only a watch outside the reporter can stop it."""

import os
import threading
import time
import uuid

import psutil
import pytest
from dash.background_callback.managers import BaseBackgroundCallbackManager

from dashboard import jobs
from tests.silent_compute import compute
from testkit.waiting import until

HELD = threading.Lock()  # a lock of the server's that a web thread may hold while a job starts


def _silent_job(request):
    """What the page's job callback does in its process, with a computation that reports nothing."""
    from dashboard.access import projects

    if request.get("needs_lock"):
        with HELD:  # a lock the job needs
            pass
    with projects.scope(request["project"]):
        jobs.job_started(request["run"])
        try:
            return jobs.run_job(request["key"], lambda report: compute(request["seconds"], request.get("in_c")),
                                run=request["run"])
        finally:
            jobs.job_ended(request["run"])


SILENT = BaseBackgroundCallbackManager.register_func(_silent_job, False, "tests-silent-job")


def _start(seconds, needs_lock=False, in_c=False):
    from dashboard.access import projects

    key = jobs.result_key("scenario", {"test": uuid.uuid4().hex}, "fp")
    run = uuid.uuid4().hex
    manager = jobs.background_manager()
    request = {"key": key, "run": run, "project": projects.current_project().id, "seconds": seconds,
               "needs_lock": needs_lock, "in_c": in_c}
    answer = uuid.uuid4().hex  # where Dash's manager finds the job's answer to the page
    pid = manager.call_job_fn(answer, manager.func_registry[SILENT], [request], {})
    _ANSWERS[key] = answer
    return pid, key


_ANSWERS = {}


def _answer(key):
    return jobs.background_manager().handle.get(_ANSWERS[key])


def _state(key):
    return (jobs.status(key) or {}).get("state")


def _exists(pid):
    """Is ``pid`` a process, a zombie included (a zombie is a process nobody reaped)?"""
    return psutil.pid_exists(pid)


def _job_pids(pid):
    """The job's processes: its supervisor (or the job itself) and every process of its own group."""
    found = []
    for p in psutil.process_iter(["pid"]):
        try:
            if p.pid == pid or os.getpgid(p.pid) in (pid, *_recorded(pid)):
                found.append(p.pid)
        except (ProcessLookupError, psutil.NoSuchProcess):
            continue
    return found


def _recorded(pid):
    from dashboard.settings import var_path

    rec = var_path("jobs", "supervisors") / str(pid)
    try:
        text = rec.read_text().strip()
    except OSError:
        return ()
    return (int(text),) if text.isdigit() else ()


@pytest.fixture()
def local(backend):
    if backend != "local":
        pytest.skip("the local backend's job processes")
    return backend


@pytest.mark.parametrize("in_c", [False, True], ids=["python", "in-c"])
def test_cancel_stops_a_job_that_reports_nothing(local, var, in_c):
    """The job computes for 10 minutes without a progress report: only the Cancel ends it within the wait (how
    long it took is printed, not asserted: it is longer on a loaded machine)."""
    pid, key = _start(600, in_c=in_c)
    assert until(lambda: _state(key) == "running", 60)
    job_group = _recorded(pid) or (pid,)
    t0 = time.monotonic()
    jobs.background_manager().terminate_job(pid)  # what Dash does on Cancel
    # while it stops, a page polling the job never reads "failed": the status says why before the process goes
    said_failed = []
    assert until(lambda: said_failed.append(jobs.job_failed(key)) or
                 (not _job_pids(pid) and not any(map(_exists, job_group))), 60)
    stopped = time.monotonic() - t0
    assert not any(said_failed)
    print(f"\nlocal ({'in C' if in_c else 'Python'}): Cancel -> every job process gone: {stopped:.2f} s")
    assert _state(key) == "cancelled" and not jobs.has_result(key) and not jobs.job_failed(key)
    if not in_c:  # interrupted at a Python instruction: it ended as at a progress report, its answer written
        assert _answer(key)["error"].startswith("Cancelled")
    assert _slots_free()


def _slots_free():
    """Can every job slot (and so the one the job held) be taken now?"""
    from dashboard import settings
    from dashboard.jobs import local

    held = [local._try_lock(settings.var_path("jobs", "slots") / f"slot{i}")
            for i in range(settings.MAX_CONCURRENT_JOBS)]
    for fh in held:
        if fh:
            local._release(fh)
    return all(held)


def test_an_abandoned_job_that_reports_nothing_is_stopped(local, var, monkeypatch):
    monkeypatch.setattr("dashboard.settings.JOB_ABANDON_SECONDS", 2.0)
    pid, key = _start(60, in_c=True)

    def watched_until_running():
        jobs.beat(key)  # the page's watchdog, until the page goes away
        return _state(key) == "running"

    assert until(watched_until_running, 60)
    assert until(lambda: _state(key) == "abandoned", 60), _state(key)  # no page beats for it any more
    assert until(lambda: not _job_pids(pid), 60)
    assert not jobs.has_result(key) and not jobs.job_failed(key)


def test_a_finished_job_leaves_no_defunct_process(local, var):
    pid, key = _start(0)
    assert until(lambda: _state(key) == "done", 60)
    # nobody calls reap_finished here (no page polls): the job's processes are reaped by themselves
    assert until(lambda: not _exists(pid), 60), psutil.Process(pid).status()
    me = psutil.Process()
    assert until(lambda: not [c for c in me.children(recursive=True) if c.status() == psutil.STATUS_ZOMBIE], 60)


def test_a_lock_a_web_thread_holds_at_job_start_does_not_hang_the_job(local, var):
    release = threading.Event()

    def web_thread():
        with HELD:
            release.wait(60)

    t = threading.Thread(target=web_thread)
    t.start()
    try:
        assert until(HELD.locked, 60)
        pid, key = _start(0, needs_lock=True)  # started while the other thread holds the lock
        assert until(lambda: _state(key) == "done", 60), _state(key)
        assert jobs.has_result(key)
    finally:
        release.set()
        t.join()
        if "pid" in locals():
            jobs.background_manager().terminate_job(pid)


def test_the_fork_server_preloads_the_app_whoever_starts_it_first(local, var):
    """A job whose callback the fork server has not imported imports it itself, in every job: the whole app
    (seconds before its first progress report). The fork server is started once per process, by whichever job
    comes first (here, possibly a test's job whose callback is not the app's): the app is preloaded anyway."""
    from multiprocessing import forkserver

    from dashboard.jobs import launcher

    launcher._context(["tests.dashboard.jobs.test_job_process"])
    preload = forkserver._forkserver._preload_modules
    assert preload[0] == launcher.APP_MODULE and preload[-1] == "dashboard.jobs.forkserver_setup"
