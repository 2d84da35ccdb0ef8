"""The redis backend's side of a job running as a Celery task: its liveness leases and records, Cancel's flag, its
watchdog thread and its pool process's watcher (:mod:`dashboard.jobs.distributed`)."""

from __future__ import annotations

import json
import os
import threading
import time

from dashboard import settings
from dashboard.jobs.leases import _RENEWER, Lease, _token_prefix
from dashboard.jobs.outage import retrying
from dashboard.jobs.owners import RECORD_SECONDS, RENEW_SECONDS, RedisStore
from dashboard.jobs.redis_state import _TASK, _k, _quiet, client, last_beat


def _task_id() -> str | None:
    try:
        from celery import current_task
    except ImportError:
        return None
    return getattr(getattr(current_task, "request", None), "id", None) if current_task else None


class _JobRecord:
    """What a running job has recorded in Redis besides its leases (that it started, its status, and who started it:
    dashboard/jobs/owners.py), kept in its process so that it can be written again when Redis loses its data while
    the job runs (a restart without persistence): the job's liveness lease is then taken back within a second
    (:meth:`Lease.renew`) and this record written with it, so the pages see the job running on, never lost, and find
    its result, and its starter's Cancel still ends it."""

    def __init__(self, task: str | None, run: str | None):
        self.task, self.run = task, run
        self.statuses: dict[str, str] = {}  # status key -> the last status this job wrote there
        # who started the job, as the web server recorded it (None: nobody on record, and none is made up)
        self.owner = _quiet(RedisStore().read, task, default=None) if task else None
        self.owner_renewed = 0.0

    def marks(self) -> list[str]:
        return ([_k("started", self.task)] if self.task else []) + ([_k("run", self.run, "started")] if self.run
                                                                     else [])

    def write(self) -> None:
        ttl = int(settings.RESULT_TTL_SECONDS)
        pipe = client().pipeline()
        for name in self.marks():
            pipe.set(name, "1", ex=ttl)
        for name, value in list(self.statuses.items()):
            pipe.set(name, value, ex=ttl, nx=True)  # a status written meanwhile (by the watcher) is newer
        if self.owner is not None:  # kept as long as the job runs: its starter's Cancel never loses its record
            pipe.set(RedisStore.key(self.task), self.owner, ex=RECORD_SECONDS)
        pipe.execute()
        self.owner_renewed = time.time()

    def renew_owner(self) -> None:
        """Renew the starter's record (at most every ``RENEW_SECONDS``), by the job's watchdog while it runs."""
        if self.owner is not None and time.time() - self.owner_renewed > RENEW_SECONDS:
            client().expire(RedisStore.key(self.task), RECORD_SECONDS)
            self.owner_renewed = time.time()


def job_started(run: str | None = None) -> None:
    """Called first in the job (a Celery task): liveness leases for the page's poll (by task) and its
    watchdog (by run), renewed every second; should Redis lose them (and the job's other records) while the job
    runs, they are taken back and the records written again (:class:`_JobRecord`)."""
    task = _task_id()
    record = _JobRecord(task, run)
    _TASK.task, _TASK.leases, _TASK.record = task, [], record
    if task:
        _TASK.leases.append(Lease(_k("alive", task), on_retaken=record.write))
    if run:
        _TASK.leases.append(Lease(_k("run", run, "alive"), on_retaken=record.write))
    if record.marks() or record.owner is not None:
        retrying(record.write)
    for lease in _TASK.leases:
        lease.acquire()


def job_ended(run: str | None = None) -> None:
    """The job returns: it waits (within ``REDIS_OUTAGE_SECONDS``) until Redis answers, so that Dash can
    store its answer, and records that the run ended. Its liveness leases are no longer renewed but left to
    run out, so that the page's poll does not see a dead job in the moment between the return and Dash
    storing the answer."""
    for lease in getattr(_TASK, "leases", None) or []:
        _RENEWER.remove(lease)
    _TASK.task, _TASK.leases, _TASK.record = None, [], None
    if run:
        retrying(client().set, _k("run", run, "ended"), "1", ex=int(settings.RESULT_TTL_SECONDS))
    else:
        retrying(client().ping)


def cancelled() -> bool:
    """Has the page cancelled this job (checked by the runner at least once a second)?"""
    task = getattr(_TASK, "task", None)
    return bool(task) and bool(_quiet(client().exists, _k("cancel", task)))  # unreachable: not cancelled


POOL_PROCESS = False  # set in a Celery prefork pool process (_on_pool_process_start): a job there may be killed
WATCH_SECONDS = 0.2


class _Watchdog(threading.Thread):
    """Watches the job of ``key`` running as a Celery task: Cancel's flag and the pages' heartbeats, outside the
    job's own progress reports. When the job is to stop, the runner's stop exception is raised in the task's
    thread at its next Python instruction: the job ends as at a progress report (its status and its answer
    written; the pool process lives on). A job inside a long call into C that holds the GIL runs no instruction,
    nor does this thread: the job's watcher process kills it (dashboard/jobs/watcher.py)."""

    def __init__(self, key: str, run: str | None, task: str, also=None):
        super().__init__(name="perfcast-watchdog", daemon=True)
        self.key, self.run_id, self.task, self.also = key, run, task, also
        self.job_thread = threading.get_ident()  # the task's thread
        self.record = getattr(_TASK, "record", None)  # the job's own records (a fan-out helper watches none)
        self.done = threading.Event()

    def run(self) -> None:
        started = unreachable = time.time()
        while not self.done.wait(WATCH_SECONDS):
            try:
                if client().exists(_k("cancel", self.task)) or (self.also is not None and self.also()):
                    return self._end("cancelled")
                beat = last_beat(self.key) or 0.0
                if self.record is not None and self.record.task == self.task:
                    self.record.renew_owner()
            except Exception:  # noqa: BLE001 - Redis unreachable: pages could not beat either
                unreachable = time.time()
                continue
            now = time.time()
            if now - max(started, beat, unreachable) > settings.JOB_ABANDON_SECONDS:
                return self._end("abandoned")

    def _end(self, why: str) -> None:
        import ctypes

        from dashboard.jobs.runner import StopAbandoned, StopCancelled

        exc = StopCancelled if why == "cancelled" else StopAbandoned
        if not self.done.is_set():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.job_thread), ctypes.py_object(exc))


_WATCHER = None  # this pool process's watcher (dashboard/jobs/watcher.py), started with the process


def start_watcher() -> None:
    """Start this pool process's watcher (called when Celery starts the pool process): the hard stop of a job
    inside a long call into C, which runs no Python thread of its process."""
    global _WATCHER
    import subprocess
    import sys
    from pathlib import Path

    spec = {"redis_url": settings.REDIS_URL, "pool_pid": os.getpid(), "abandon_seconds": settings.JOB_ABANDON_SECONDS,
            "ttl": settings.RESULT_TTL_SECONDS, "token_prefix": _token_prefix()}
    _WATCHER = subprocess.Popen([sys.executable, str(Path(__file__).with_name("watcher.py")), json.dumps(spec)],
                                stdin=subprocess.PIPE)


def _tell_watcher(job: dict) -> None:
    if _WATCHER is not None and _WATCHER.poll() is None:
        try:
            _WATCHER.stdin.write(json.dumps(job).encode() + b"\n")
            _WATCHER.stdin.flush()
        except OSError:
            pass


class _Guard:
    """The job's watchdog thread, and its pool process's watcher told which job runs. ``task``: another task's
    (a fan-out helper watches its parent job: dashboard/jobs/fanout.py); ``also()``: one more reason to stop."""

    def __init__(self, key: str, run: str | None, task: str | None = None, also=None):
        if task is None:
            task = getattr(_TASK, "task", None)
            _TASK.key, _TASK.run = key, run  # the job's own: what its fan-out's helpers watch (parent())
        self.job = {"key": key, "task": task, "run": run}
        self.dog = _Watchdog(key, run, task, also) if task else None

    def __enter__(self):
        if self.dog:
            self.dog.start()
            _tell_watcher(self.job)
        return self

    def __exit__(self, *exc):
        if self.dog:
            _tell_watcher({})
            self.dog.done.set()
            self.dog.join()


def guard(key: str, run: str | None = None, task: str | None = None, also=None) -> _Guard:
    """While the job of ``key`` runs as a Celery task: its :class:`_Watchdog` (``task``, ``also``: see
    :class:`_Guard`)."""
    return _Guard(key, run, task, also)


def parent() -> dict | None:
    """The job this thread runs (its Celery task, key and run), for the helpers it sends out to watch; None
    outside a job's guard."""
    task, key = getattr(_TASK, "task", None), getattr(_TASK, "key", None)
    return {"task": task, "key": key, "run": getattr(_TASK, "run", None)} if task and key else None


def lower_priority() -> None:
    """Nothing per job: ./worker.sh starts the whole worker below the web servers' priority (a pool
    process runs many jobs, and os.nice would add up)."""


def reap_finished() -> None:
    """Nothing to reap on a web server: jobs run on the workers."""


def reap_orphan_groups() -> None:
    """Nothing to reap: a worker's pool ends its own processes."""



def _on_pool_process_start() -> None:
    """When Celery starts a prefork pool process (the worker made this manager before forking it): mark the
    process as one a job may be killed in, and start its watcher, the hard stop of its jobs (Celery replaces a
    killed pool process)."""
    from celery.signals import worker_process_init

    def _started(**_kw):
        global POOL_PROCESS
        POOL_PROCESS = True
        start_watcher()

    worker_process_init.connect(_started, weak=False, dispatch_uid="perfcast-pool-process-watcher")

