"""The redis job backend: jobs on Celery workers, their state in Redis (``PERFCAST_REDIS_URL``).

The same guarantees as :mod:`dashboard.jobs.local`, across machines:

* Results: compressed JSON under ``perfcast:result:<key>@p<project id>`` (the project's name space,
  :func:`keys.stored_key`), with the same expiry; a page that finds its key renders at once, from any web
  server.
* Status (queued / running / done / error / cancelled / abandoned) and the pages' heartbeats in Redis.
* One computation per key: a Redis lock with a lease (``LEASE_SECONDS``) that the job renews every second.
  A job whose machine died stops renewing: its lease runs out, a waiting job takes the key over, and the
  page's watchdog reports "failed, run again" (the lease is how a dead job is told from a slow one).
* A per-machine cap of concurrent trainings: ``MAX_CONCURRENT_JOBS`` leased slots per host name.
* Cancel is a flag (``perfcast:cancel:<task id>``); a task still queued is also revoked. A running job is
  watched for that flag and for abandonment, outside its progress reports, by a thread of its process
  (:class:`_Watchdog`, every ``WATCH_SECONDS``: it raises the runner's stop exception in the job's thread) and,
  on a prefork pool, by the pool process's watcher (dashboard/jobs/watcher.py: a job still running 0.6 s later, inside
  a long call into C, is killed with its pool process, its stop recorded and its leases released; Celery
  replaces the pool process). With the ``threads`` pool a job shares its process with others and is never
  killed: a call into C finishes first.
* Dash's ``CeleryManager`` carries each job's answer to its page. Its "is the job running" is also asked
  of the job's liveness lease, so a job whose worker died ends the page's polling instead of leaving an
  endless spinner.
* Runs: each run of a job has an id (:mod:`dashboard.jobs.runs`); the job records that it started and that it
  ended under it and holds a lease named by it, and the watchdog judges only the page's own run.
* Redis unreachable or restarting (:mod:`dashboard.jobs.outage`): the job keeps its result and writes it
  (and its status, and Dash's answer) when Redis answers again; leases lost in the outage are taken back;
  for a few seconds after a restart no job is judged dead; the page's poll keeps going meanwhile.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from functools import lru_cache

from dash import CeleryManager

from dashboard.jobs.backend import JobBackend
from dashboard import settings
from dashboard.jobs.codec import pack, unpack
from dashboard.jobs.keys import check_key, stored_key
from dashboard.jobs.memo import known, remembered
from dashboard.jobs.outage import is_outage, retrying

PREFIX = "perfcast"


@lru_cache(maxsize=4)
def _client_for(url: str, pid: int):
    import redis
    from redis.backoff import ExponentialBackoff
    from redis.retry import Retry

    # a refused or lost connection fails within a second (then the caller decides: say so, or retry later)
    return redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=3, health_check_interval=30,
                                retry=Retry(ExponentialBackoff(cap=0.4, base=0.1), 2))


def client():
    """This process's Redis client (a forked process opens its own connections)."""
    return _client_for(settings.REDIS_URL, os.getpid())


def _k(*parts) -> str:
    return ":".join((PREFIX, *map(str, parts)))


# ------------------------------------------------------------------------ results, status, heartbeats

def get_result(key: str):
    """A result of the current project by key, through this process's memo of recent reads."""
    where = stored_key(key)
    return remembered(where, lambda: unpack(client().get(_k("result", where))))


def ping() -> bool:
    """Does Redis answer? (Raises the outage error when it does not.)"""
    return bool(client().ping())


def has_result(key: str) -> bool:
    where = stored_key(key)
    return known(where) or bool(client().exists(_k("result", where)))


def put_result(key: str, value: dict) -> None:
    where = stored_key(key)
    client().set(_k("result", where), pack(value), ex=int(settings.RESULT_TTL_SECONDS))


def set_status(key: str, state: str, **extra) -> None:
    name = _k("status", check_key(key))
    value = json.dumps({"state": state, "host": socket.gethostname(), "pid": os.getpid(), "t": time.time(), **extra})
    record = getattr(_TASK, "record", None)
    if record is not None:  # the job's own status: written again should Redis lose it while the job runs
        record.statuses[name] = value
    client().set(name, value, ex=int(settings.RESULT_TTL_SECONDS))


def status(key: str) -> dict | None:
    raw = client().get(_k("status", check_key(key)))
    return json.loads(raw) if raw else None


def beat(key: str) -> None:
    client().set(_k("beat", check_key(key)), repr(time.time()), ex=3600)


def last_beat(key: str) -> float | None:
    raw = client().get(_k("beat", check_key(key)))
    return float(raw) if raw else None


def _quiet(fn, *args, default=False):
    """``fn(*args)``, or ``default`` while Redis is unreachable."""
    try:
        return fn(*args)
    except Exception as exc:
        if not is_outage(exc):
            raise
        return default


def data_age() -> float:
    """Seconds since Redis (re)started or lost its data, whichever is later. A restart shows in its uptime; data
    lost without a restart (``FLUSHALL``, a replica promoted empty) in the marker ``perfcast:epoch``: the first
    look after the loss finds it gone and writes it again, with the time of that look."""
    c = client()
    now = time.time()
    c.set(_k("epoch"), repr(now), nx=True)
    try:
        since = float(c.get(_k("epoch")) or now)
    except ValueError:
        since = now
    uptime = c.info("server").get("uptime_in_seconds", 1e9)
    return max(0.0, min(float(uptime), now - since))


def restarted_recently() -> bool:
    """Has Redis (re)started, or lost its data, less than a lease and a few seconds ago? Leases that ran out
    during the outage, or were lost with the data, are being taken back by their jobs (and the jobs write again
    what they had recorded: :meth:`Lease.renew`): no job is judged dead meanwhile."""
    return data_age() < settings.LEASE_SECONDS + 3


#: how long after Redis lost its data a key's lock is not taken: every holder renews within a second
FRESH_DATA_SECONDS = 2.5


def _data_fresh() -> bool:
    return data_age() < FRESH_DATA_SECONDS


def run_submitted(run: str | None) -> None:
    """The page has just submitted run ``run`` (it may wait in Celery's queue before a worker starts it)."""
    if run:
        client().set(_k("run", run, "submitted"), "1", ex=7200)


def run_failed(key: str, run: str) -> bool:
    """Is run ``run`` of ``key`` lost: started but no longer alive, or unknown to Redis (lost with Redis's
    data), with no result? A run still queued, alive or ended (its answer goes to the page) is not."""
    c = client()
    if has_result(key) or c.exists(_k("run", run, "alive"), _k("run", run, "ended")):
        return False
    if c.exists(_k("run", run, "submitted")) and not c.exists(_k("run", run, "started")):
        return False  # queued
    return not restarted_recently()


def job_failed(key: str, run: str | None = None) -> bool:
    """True when the job for ``key`` (its run ``run`` when given: only that run is judged) was started but
    holds no lease any more and left no result: its process or its machine died."""
    if run:
        return run_failed(key, run)
    st = status(key)
    if st is None or st["state"] not in ("queued", "running"):
        return False
    return not client().exists(_k("lock", key)) and not has_result(key) and not restarted_recently()


# ------------------------------------------------------------------------ leases

class _Renewer:
    """One thread per process renewing every lease this process holds, once a second."""

    def __init__(self):
        self.leases: dict[str, object] = {}
        self.lock = threading.Lock()
        self.thread = None
        self.pid = None

    def add(self, lease) -> None:
        with self.lock:
            self.leases[lease.name] = lease
            if self.thread is None or self.pid != os.getpid() or not self.thread.is_alive():
                self.pid = os.getpid()
                self.thread = threading.Thread(target=self._run, name="perfcast-leases", daemon=True)
                self.thread.start()

    def remove(self, lease) -> None:
        with self.lock:
            self.leases.pop(lease.name, None)

    def _run(self):
        while True:
            time.sleep(1.0)
            with self.lock:
                held = list(self.leases.values())
            for lease in held:
                lease.renew()


_RENEWER = _Renewer()


def _token_prefix() -> str:
    """Every lease token of this process starts with this (the job's watcher releases this process's leases)."""
    return f"{socket.gethostname()}/{os.getpid()}/"


class Lease:
    """A Redis key held by this process with an expiry it renews while held (SET NX PX + token check)."""

    # renew (1); a lease that ran out while Redis was unreachable (or was lost with Redis's data) is taken
    # back when nobody else took it meanwhile (2)
    _RENEW = ("local v = redis.call('get', KEYS[1]) "
              "if v == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end "
              "if not v then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 2 end "
              "return 0")
    _RELEASE = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
                "return redis.call('del', KEYS[1]) else return 0 end")

    def __init__(self, name: str, on_retaken=None):
        self.name = name
        self.token = f"{_token_prefix()}{uuid.uuid4().hex}"
        self.held = False
        self.on_retaken = on_retaken  # called (in the renewing thread) when the lease had to be taken back
        self.restore = False
        self._lock = threading.Lock()  # a renewal never runs after the release: it would take the lease back

    def _ms(self) -> int:
        return int(settings.LEASE_SECONDS * 1000)

    def acquire(self) -> bool:
        try:
            got = client().set(self.name, self.token, nx=True, px=self._ms())
        except Exception as exc:
            if not is_outage(exc):
                raise
            return False  # Redis unreachable: not acquired (the caller waits and tries again)
        if got:
            self.held = True
            _RENEWER.add(self)
        return self.held

    def renew(self) -> None:
        with self._lock:
            if not self.held:
                return
            try:
                got = client().eval(self._RENEW, 1, self.name, self.token, self._ms())
            except Exception:  # noqa: BLE001 - Redis briefly unreachable: try again next second
                return
        if not got:
            self.held = False  # lost (expired while this process was stalled): someone may have it now
            _RENEWER.remove(self)
            return
        self.restore = self.restore or got == 2
        if self.restore and self.on_retaken is not None:
            try:  # what the holder recorded beside the lease was lost with it: written again
                self.on_retaken()
                self.restore = False
            except Exception:  # noqa: BLE001 - unreachable again: tried at the next renewal
                pass

    def release(self) -> None:
        _RENEWER.remove(self)
        with self._lock:
            if self.held:
                try:
                    client().eval(self._RELEASE, 1, self.name, self.token)
                except Exception as exc:
                    if not is_outage(exc):
                        raise  # unreachable: the lease runs out by itself
                finally:
                    self.held = False


class KeyLock:
    """Held by the one job computing ``key`` (see the module docstring); another job with the same key
    waits for that result, and takes the key over when the holder's lease runs out."""

    def __init__(self, key: str, on_wait):
        self.key = check_key(key)
        self.lease = Lease(_k("lock", self.key))
        self.on_wait = on_wait

    def __enter__(self):
        while True:
            if _quiet(has_result, self.key):
                return self
            # not while Redis has just lost its data (a restart without persistence): the job computing this key
            # may not have taken its lock back yet (its renewal comes within a second)
            if not _quiet(_data_fresh) and self.lease.acquire():
                return self
            self.on_wait()
            time.sleep(0.25)

    def __exit__(self, *exc):
        self.lease.release()


class Slot:
    """One of ``MAX_CONCURRENT_JOBS`` leased slots of this machine; held while a job trains."""

    def __init__(self, on_wait=None):
        self.on_wait = on_wait
        self.lease = None

    def __enter__(self):
        host = socket.gethostname()
        while True:
            for i in range(settings.MAX_CONCURRENT_JOBS):
                lease = Lease(_k("slot", host, i))
                if lease.acquire():
                    self.lease = lease
                    return self
            if self.on_wait:
                self.on_wait()
            time.sleep(0.25)

    def __exit__(self, *exc):
        self.lease.release()


# ------------------------------------------------------------------------ the job process

_TASK = threading.local()  # the Celery task this thread runs (a threads pool runs several in one process)


def _task_id() -> str | None:
    try:
        from celery import current_task
    except ImportError:
        return None
    return getattr(getattr(current_task, "request", None), "id", None) if current_task else None


class _JobRecord:
    """What a running job has recorded in Redis besides its leases (that it started, and its status), kept in
    its process so that it can be written again when Redis loses its data while the job runs (a restart
    without persistence): the job's liveness lease is then taken back within a second (:meth:`Lease.renew`)
    and this record written with it, so the pages see the job running on, never lost, and find its result."""

    def __init__(self, task: str | None, run: str | None):
        self.task, self.run = task, run
        self.statuses: dict[str, str] = {}  # status key -> the last status this job wrote there

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
        pipe.execute()


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
    if record.marks():
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
        self.done = threading.Event()

    def run(self) -> None:
        started = unreachable = time.time()
        while not self.done.wait(WATCH_SECONDS):
            try:
                if client().exists(_k("cancel", self.task)) or (self.also is not None and self.also()):
                    return self._end("cancelled")
                beat = last_beat(self.key) or 0.0
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


# ------------------------------------------------------------------------ Dash's manager

#: how long a job's starter is kept for the check of a cancel (:meth:`LeasedCeleryManager.terminate_job`); a job
#: whose record has run out (longer than any job runs) is cancelled by any handle Dash signed for it
OWNER_SECONDS = 7 * 86400


class LeasedCeleryManager(CeleryManager):
    """Dash's Celery manager, with a cooperative cancel (a flag the job checks; a queued task is also
    revoked) and a job whose liveness lease ran out counted as not running."""

    def make_job_fn(self, fn, progress, key=None):
        from dashboard.jobs import prestart

        job_fn = super().make_job_fn(fn, progress, key)
        prestart.register(fn, job_fn)
        return job_fn

    def call_job_fn(self, key, job_fn, args, context):
        from plotly.utils import PlotlyJSONEncoder

        from dashboard.jobs import prestart, runs

        answer = prestart.answer_before_start(job_fn, args)  # refused here: no task is queued
        if answer is not None:
            self.handle.backend.set(key, json.dumps(answer, cls=PlotlyJSONEncoder))
            return prestart.NO_JOB
        job = super().call_job_fn(key, job_fn, args, context)
        c = client()
        c.set(_k("queued", job), "1", ex=7200)  # submitted: not started yet, not lost
        c.set(_k("owner", job), runs.requester(), ex=OWNER_SECONDS)  # who may cancel it (terminate_job)
        return job

    def terminate_job(self, job):
        from dashboard.jobs import prestart, runs

        if job is None or prestart.no_job(job):
            return
        c = client()
        owner = c.get(_k("owner", job))
        if owner is not None and owner.decode() != runs.requester():
            # a job handle is signed for the page load that started the job, not for its person: a handle
            # replayed from another session (copied from a shared screen, a log, a proxy) cancels nothing
            from dashboard import audit_log

            audit_log.record("refused: cancel", job=str(job)[:64])
            return
        c.set(_k("cancel", job), "1", ex=3600)  # the job and every helper it sent watch this flag
        helpers = [h.decode() for h in c.smembers(_k("helpers", job))]  # its fan-out's tasks still queued
        self.handle.control.revoke([job, *helpers])

    def job_running(self, job):
        # while Redis is unreachable the job is taken as running: the page keeps polling
        from dashboard.jobs import prestart

        if prestart.no_job(job):  # answered before start: no task
            return False
        try:
            if not super().job_running(job):
                return False
            c = client()
            if c.exists(_k("alive", job)):  # its liveness lease, renewed (or taken back) by the job itself
                return True
            if c.exists(_k("started", job)):
                return restarted_recently()
            return bool(c.exists(_k("queued", job))) or restarted_recently()  # queued, or lost with Redis
        except Exception as exc:
            if not is_outage(exc):
                raise
            return True

    # a poll while Redis is unreachable answers "still running", with no progress: the page keeps polling
    # (an error would end its polling for good)

    def get_progress(self, key):
        return _quiet(super().get_progress, key, default=None)

    def get_result(self, key, job):
        return _quiet(super().get_result, key, job, default=self.UNDEFINED)

    def get_updated_props(self, key):
        return _quiet(super().get_updated_props, key, default={})


@lru_cache(maxsize=1)
def background_manager():
    from dashboard.jobs.celery_app import celery_app

    app = celery_app()
    _on_pool_process_start()
    return LeasedCeleryManager(app, expire=int(settings.RESULT_TTL_SECONDS))


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


class RedisBackend(JobBackend):
    """Celery workers and Redis: jobs are Celery tasks, state and leases in Redis. Each name of the interface
    calls this module's function (or class) of that name."""

    name = "redis"

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

    def guard(self, key: str, run: str | None = None) -> _Guard:
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
        return ping()
