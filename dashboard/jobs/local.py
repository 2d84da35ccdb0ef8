"""The local job backend: one machine, state under ``var/`` (diskcache + fork server + flock + pid).

* One ``DiskcacheManager`` for the app (Dash's job manager), on an explicit
  directory shared by all gunicorn workers. A job starts from a clean process
  (the fork server of :mod:`dashboard.jobs.launcher`, never a fork of the threaded
  web worker), under a supervisor that ends its process group on Cancel.
* Results live in their own diskcache (size-bounded, with expiry) under a key
  made by :mod:`dashboard.jobs.keys`. A page that finds its key there renders
  at once, without starting a job; that is how a shared link opens instantly.
* Every job records its status (queued / running / done / error, with its
  pid), so a page can tell a job that died from one still running.
* At most ``MAX_CONCURRENT_JOBS`` jobs train at once (a ``flock`` slot each);
  one process computes a key (a ``flock`` per key).
* A page that waits for a job sends a heartbeat; the job's supervisor stops a job
  no page has watched for ``JOB_ABANDON_SECONDS`` (and so does the runner, at a
  progress report).
* A job runs in a process group of its own; a dead job's group is ended by the
  next reap.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from functools import lru_cache

from dash import DiskcacheManager

from dashboard.jobs.backend import JobBackend
from dashboard import settings
from dashboard.jobs.keys import check_key, stored_key  # noqa: F401 - re-exported to the backend's callers
from dashboard.jobs.local_results import (_RESULTS, _open_cache, beat, get_result, has_result,  # noqa: F401
                                          last_beat, put_result, results, set_status, status)
from dashboard.settings import RESULT_TTL_SECONDS, var_path


class GroupManager(DiskcacheManager):
    """Dash's manager, except that a job is started from a clean process and stopped by its supervisor
    (:mod:`dashboard.jobs.launcher`): Cancel (or a newer request) ends the job's whole process group
    within a second, whatever the job is doing, and records it as cancelled."""

    def make_job_fn(self, fn, progress, key=None):
        from dashboard.jobs import prestart

        job_fn = super().make_job_fn(fn, progress, key)
        job_fn.perfcast_callback = (key, fn.__module__)  # what the job process looks up and imports
        prestart.register(fn, job_fn)
        return job_fn

    def call_job_fn(self, key, job_fn, args, context):
        from dashboard.jobs import launcher, owners, prestart

        answer = prestart.answer_before_start(job_fn, args)  # refused here: no process is started
        if answer is not None:
            self.handle.set(key, answer, expire=self.expire)
            return prestart.NO_JOB
        background_key, module = job_fn.perfcast_callback
        job = launcher.start(background_key, str(self.handle.directory), key, self._make_progress_key(key),
                             args, context, [*_app_modules(), module])
        owners.LOCAL.record(job)  # who may cancel it (terminate_job)
        return job

    def job_running(self, job):
        # Dash asks whether the pid exists, then reads the process: a job that ended in between raised
        # NoSuchProcess out of the page's poll. Read once, and an ended job is simply not running.
        from dashboard.jobs import prestart

        return bool(job) and not prestart.no_job(job) and pid_alive(job)

    def terminate_job(self, job):
        from dashboard.jobs import launcher, owners, prestart

        if job is None or prestart.no_job(job) or not owners.LOCAL.may_cancel(job):
            return  # refused (dashboard/jobs/owners.py): another person's job, or nobody's on record
        if launcher.supervised(int(job)):
            launcher.stop(int(job))
        else:  # a job group of an earlier version (or a test's own)
            kill_group(int(job))


@lru_cache(maxsize=1)
def background_manager():
    # no cache_by: Dash would then keep every job's output under a key made of the callback's payload and
    # answer a later identical payload (the same link opened again) with that old output. Results are
    # cached by the app itself (results(), keyed by validated inputs); the manager only carries a job's
    # answer to the page once.
    # Dash's own store of a job's answer and progress (its encoding: Dash pickles these; only this server's
    # job processes write them, and no result is kept here: results() is JSON)
    cache = _open_cache("jobs", size_limit=256 * 1024**2)
    if "app" in sys.modules:  # the app's import makes the manager: its jobs' fork server starts meanwhile
        from dashboard.jobs import launcher

        launcher.prestart("app")
    return GroupManager(cache, expire=RESULT_TTL_SECONDS)


def _app_modules() -> list[str]:
    """The module of the running Dash app (importing it registers every page's callbacks), if any."""
    try:
        from dash import get_app

        name = get_app().config.name
    except Exception:  # noqa: BLE001 - no app (tests of the job layer): the callback's own module
        return []
    return [name] if name and name != "__main__" else []


def pid_alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(int(pid)).status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, ValueError, TypeError):
        return False


def lower_priority() -> None:
    """Run this job process (and the workers it starts) below the web threads, so that
    pages and cached views stay quick while the machine's cores train."""
    try:
        os.nice(settings.JOB_NICENESS)
    except OSError:
        pass


def job_started(run: str | None = None) -> None:
    """First thing in the job process: a process group of its own (stopping the job ends its workers
    too; made by the supervisor already, under dashboard.jobs.launcher), below the web threads' priority."""
    from dashboard.jobs import launcher

    if not launcher.SUPERVISED:
        own_process_group()
    lower_priority()


def job_ended(run: str | None = None) -> None:
    from dashboard.jobs import launcher

    if not launcher.SUPERVISED:
        leave_process_group()


def guard(key: str, run: str | None = None):
    """Nothing in the job process: its supervisor watches for Cancel and abandonment (dashboard.jobs.launcher)."""
    import contextlib

    return contextlib.nullcontext()


def cancelled() -> bool:
    """Cancel ends the job's process group here (``GroupManager.terminate_job``): nothing to check."""
    return False


def reap_finished() -> None:
    """Join this worker's job handles that have exited, and end the process groups of jobs that died (their
    worker processes would run on)."""
    from dashboard.jobs import launcher

    launcher.reap()
    reap_orphan_groups()


# ---------------------------------------------------------------- process groups
# A job runs in a session of its own (its pid is its process group id), and so do
# the worker processes it forks. Stopping a job ends the group; a job that died
# leaves a record under var/jobs/groups whose group the next reap ends.

def _group_record(pid: int):
    return var_path("jobs", "groups") / str(int(pid))


def own_process_group() -> None:
    """Make this job process the leader of a new session and process group (called first
    thing in the job process), and record it so that a reap can end it if the job dies."""
    import signal

    try:
        os.setsid()
    except OSError:  # already a group leader (e.g. run twice in one process)
        pass
    # the web worker's handlers (gunicorn: SIGTERM = finish gracefully) do not apply to a job
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    _group_record(os.getpid()).touch()


def leave_process_group() -> None:
    """The job ends normally: its group needs no reaping."""
    _group_record(os.getpid()).unlink(missing_ok=True)


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by job ``pid`` (the job and its workers), if it is one."""
    import signal

    try:
        if os.getpgid(pid) != pid:  # not a job's own group: never signal someone else's
            return
    except (ProcessLookupError, PermissionError):
        pass  # the leader is gone; its group id cannot be reused while members remain
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def reap_orphan_groups() -> None:
    """End the groups of recorded jobs whose leader (or supervisor) is dead (killed, or crashed)."""
    from dashboard.jobs import launcher

    launcher.reap_orphans()
    for rec in var_path("jobs", "groups").iterdir():
        if not rec.name.isdigit():
            continue
        pid = int(rec.name)
        if pid_alive(pid):
            continue
        kill_group(pid)
        rec.unlink(missing_ok=True)


def run_submitted(run: str | None) -> None:
    """Nothing to record: the job process starts at once and writes its status itself."""


def job_failed(key: str, run: str | None = None) -> bool:
    """True when the job for ``key`` was started but its process is gone with no result. With ``run``, a
    status another run left (an earlier one whose process died) does not count: the new run's process has
    not written its own yet."""
    st = status(key)
    if st is None or st["state"] in ("done", "error", "abandoned", "cancelled"):
        return False
    if run and st.get("run") not in (None, run):
        return False
    if pid_alive(st["pid"]) or has_result(key):
        return False
    from dashboard.jobs import launcher

    return not launcher.stopping(st["pid"])  # its supervisor is still writing why it stopped


def _try_lock(path) -> object | None:
    fh = open(path, "a")  # noqa: SIM115 - held by the caller until released
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fh
    except OSError:
        fh.close()
        return None


def _release(fh) -> None:
    fcntl.flock(fh, fcntl.LOCK_UN)
    fh.close()


class Slot:
    """One of ``MAX_CONCURRENT_JOBS`` lock files; held while a job trains."""

    def __init__(self, on_wait=None):
        self.on_wait = on_wait
        self.fh = None

    def __enter__(self):
        root = var_path("jobs", "slots")
        while True:
            for i in range(settings.MAX_CONCURRENT_JOBS):
                self.fh = _try_lock(root / f"slot{i}")
                if self.fh:
                    return self
            if self.on_wait:
                self.on_wait()
            time.sleep(0.25)

    def __exit__(self, *exc):
        _release(self.fh)


class KeyLock:
    """Held by the one process computing ``key``; another job for the same key
    (a second user with the same inputs) waits for that result instead of
    computing it again, and takes over if the first process dies."""

    def __init__(self, key: str, on_wait):
        self.key = check_key(key)
        self.path = var_path("jobs", "keys") / f"{self.key}.lock"
        self.on_wait = on_wait
        self.fh = None

    def __enter__(self):
        while True:
            self.fh = _try_lock(self.path)
            if self.fh or has_result(self.key):
                return self
            self.on_wait()
            time.sleep(0.25)

    def __exit__(self, *exc):
        if self.fh:
            _release(self.fh)


class LocalBackend(JobBackend):
    """One machine: jobs from the fork server (:mod:`dashboard.jobs.launcher`), state in diskcache, locks by
    ``flock``. Each name of the interface calls this module's function (or class) of that name."""

    name = "local"

    def background_manager(self):
        return background_manager()

    def get_result(self, key: str):
        return get_result(key)

    def has_result(self, key: str) -> bool:
        return has_result(key)

    def put_result(self, key: str, value) -> None:
        put_result(key, value)

    def set_status(self, key: str, state: str, **extra) -> None:
        set_status(key, state, **extra)

    def status(self, key: str) -> dict | None:
        return status(key)

    def job_failed(self, key: str, run: str | None = None) -> bool:
        return job_failed(key, run)

    def run_submitted(self, run: str | None) -> None:
        run_submitted(run)

    def beat(self, key: str) -> None:
        beat(key)

    def last_beat(self, key: str) -> float | None:
        return last_beat(key)

    def KeyLock(self, key: str, on_wait=None) -> KeyLock:  # noqa: N802 - the interface's name
        return KeyLock(key, on_wait)

    def Slot(self, on_wait=None) -> Slot:  # noqa: N802 - the interface's name
        return Slot(on_wait)

    def guard(self, key: str, run: str | None = None):
        return guard(key, run)

    def job_started(self, run: str | None = None) -> None:
        job_started(run)

    def job_ended(self, run: str | None = None) -> None:
        job_ended(run)

    def cancelled(self) -> bool:
        return cancelled()

    def lower_priority(self) -> None:
        lower_priority()

    def reap_finished(self) -> None:
        reap_finished()

    def reap_orphan_groups(self) -> None:
        reap_orphan_groups()

    def ping(self) -> bool:
        """The local backend has no service to lose: it always answers."""
        return True
