"""Background jobs: the Dash manager, the result cache and job status.

* One ``DiskcacheManager`` for the app, on an explicit directory shared by all
  gunicorn workers, with ``cache_by`` holding the modeling version.
* Results live in their own diskcache (size-bounded, with expiry) under a key
  built from the job kind, the validated inputs, the dataset's fingerprint and
  the modeling version. A page that finds its key there renders at once,
  without starting a job; that is how a shared link opens instantly.
* Every job records its status (queued / running / done / error, with its
  pid), so a page can tell a job that died from one still running.
* At most ``MAX_CONCURRENT_JOBS`` jobs train at once; others wait for a slot.
  Two jobs for the same key (two users, same inputs) compute it once.
* A page that waits for a job sends a heartbeat; a job no page has watched for
  ``JOB_ABANDON_SECONDS`` (the user navigated away) stops itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from functools import lru_cache

import modeling
from dashboard import settings
from dashboard.settings import RESULT_CACHE_BYTES, RESULT_TTL_SECONDS, var_path
from dashboard.url_state import InvalidParameter
from modeling.errors import ModelingError


@lru_cache(maxsize=1)
def background_manager():
    from dash import DiskcacheManager

    cache = _open_cache("jobs", size_limit=256 * 1024**2)
    return DiskcacheManager(cache, cache_by=[lambda: modeling.__version__], expire=RESULT_TTL_SECONDS)


_RESULTS: dict = {}
_RESULTS_LOCK = threading.Lock()


def results():
    """The result cache, opened once per process (a job is a forked child: it must
    not reuse its parent's SQLite connection)."""
    pid = os.getpid()
    if pid not in _RESULTS:
        with _RESULTS_LOCK:  # one open per process, whatever the number of threads
            if pid not in _RESULTS:
                _RESULTS[pid] = _open_results()
    return _RESULTS[pid]


def _open_results():
    # the parent's entry stays referenced: closing an inherited SQLite
    # connection in a child can unlink the WAL files the parent still uses.
    # Rollback journal, not WAL: jobs are forked children of a threaded server,
    # and a WAL index shared across fork() was seen to hide a child's writes
    # from its parent until the child exited.
    return _open_cache("results", size_limit=RESULT_CACHE_BYTES, eviction_policy="least-recently-used",
                       timeout=30, sqlite_journal_mode="delete")


def _open_cache(name: str, **options):
    """Open the diskcache under ``var/<name>``; its schema set-up answers "database is locked"
    while another process (the other worker, starting at the same moment) does the same: retry."""
    import sqlite3

    import diskcache

    for attempt in range(40):
        try:
            return diskcache.Cache(str(var_path(name)), **options)
        except sqlite3.OperationalError:
            if attempt == 39:
                raise
            time.sleep(0.05 * (1 + attempt % 5))


def _fresh_locks_after_fork() -> None:
    # a job is forked from a threaded worker: a lock another thread held at the fork would never be released
    global _RESULTS_LOCK, _MEMO_LOCK
    _RESULTS_LOCK, _MEMO_LOCK = threading.Lock(), threading.Lock()


os.register_at_fork(after_in_child=_fresh_locks_after_fork)


def result_key(kind: str, params: dict, fingerprint: str) -> str:
    blob = json.dumps({"kind": kind, "params": params, "data": fingerprint, "version": modeling.__version__},
                      sort_keys=True, default=str)
    return f"{kind}-{hashlib.sha256(blob.encode()).hexdigest()[:32]}"


_MEMO: OrderedDict = OrderedDict()  # recently read results of this process (read-only)
_MEMO_LOCK = threading.Lock()  # a worker may serve requests from several threads
MEMO_ENTRIES = 16


def get_result(key: str):
    """A result by key. A key names its inputs, data and modeling version, so a
    result never changes: the last few read are kept in memory, and a page
    render that reads one result from several callbacks unpickles it once."""
    with _MEMO_LOCK:
        if key in _MEMO:
            _MEMO.move_to_end(key)
            return _MEMO[key]
    value = results().get(key)
    if value is not None:
        with _MEMO_LOCK:
            _MEMO[key] = value
            while len(_MEMO) > MEMO_ENTRIES:
                _MEMO.popitem(last=False)
    return value


def result_for(ref: dict | None):
    """The result named by a page store's ``{"key": …}`` (a request or a ready store), or None."""
    return get_result(ref["key"]) if ref else None


def has_result(key: str) -> bool:
    """Presence check that does not read the (possibly large) result."""
    return key in results()


def put_result(key: str, value: dict) -> None:
    results().set(key, value, expire=RESULT_TTL_SECONDS)


def set_status(key: str, state: str, **extra) -> None:
    results().set(f"status:{key}", {"state": state, "pid": os.getpid(), "t": time.time(), **extra},
                  expire=RESULT_TTL_SECONDS)


def status(key: str) -> dict | None:
    return results().get(f"status:{key}")


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


def reap_finished() -> None:
    """Join this worker's job processes that have exited (until joined they stay zombies)."""
    import multiprocess

    multiprocess.active_children()


def job_failed(key: str) -> bool:
    """True when the job for ``key`` was started but its process is gone with no result."""
    st = status(key)
    if st is None or st["state"] in ("done", "error", "abandoned"):
        return False
    return not pid_alive(st["pid"]) and not has_result(key)


class JobAbandoned(Exception):
    """No browser has watched the job for ``JOB_ABANDON_SECONDS``: it stops itself."""


def beat(key: str) -> None:
    """A page still waits for ``key`` (sent by its watchdog on every tick)."""
    results().set(f"beat:{key}", time.time(), expire=3600)


def last_beat(key: str) -> float | None:
    return results().get(f"beat:{key}")


class _Reporter:
    """Progress for the job of ``key``; also where an unwatched job notices it is
    abandoned (the user navigated away or closed the tab) and stops."""

    def __init__(self, key: str, progress=None):
        self.key, self.progress = key, progress
        self.started = time.time()
        self.checked = 0.0

    def __call__(self, frac, label):
        now = time.time()
        if now - self.checked >= 1.0:
            self.checked = now
            seen = max(self.started, last_beat(self.key) or 0.0)
            if now - seen > settings.JOB_ABANDON_SECONDS:
                raise JobAbandoned(f"no page has waited for this result for {now - seen:.0f} s")
        if self.progress:
            self.progress(frac, label)


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


class _Slot:
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


class _KeyLock:
    """Held by the one process computing ``key``; another job for the same key
    (a second user with the same inputs) waits for that result instead of
    computing it again, and takes over if the first process dies."""

    def __init__(self, key: str, on_wait):
        self.key = key
        self.path = var_path("jobs", "keys") / f"{key}.lock"
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


def run_job(key: str, compute, progress=None) -> dict:
    """Compute (or fetch) the result for ``key``; never raises.

    ``compute(report)`` returns a JSON-ready dict; ``report(fraction, label)``
    forwards progress. Returns ``{"key": key}`` or ``{"key": key, "error": msg}``.
    One process computes a key at a time: a job whose key another process is
    computing waits for that result. A job that no page has watched for
    ``JOB_ABANDON_SECONDS`` stops (status ``abandoned``).
    """
    if has_result(key):
        return {"key": key}
    report = _Reporter(key, progress)
    try:
        with _KeyLock(key, on_wait=lambda: report(0.0, "the same inputs are being computed for another "
                                                       "user: waiting for that result")):
            if has_result(key):
                return {"key": key}
            set_status(key, "queued")
            with _Slot(on_wait=lambda: report(0.0, "queued: other jobs are training, waiting for a free slot")):
                set_status(key, "running")
                value = compute(report)
            put_result(key, value)
            set_status(key, "done")
        return {"key": key}
    except JobAbandoned as exc:
        set_status(key, "abandoned", message=str(exc))
        return {"key": key, "error": f"Stopped: {exc}. Run again."}
    except (ModelingError, InvalidParameter, LookupError) as exc:
        set_status(key, "error", message=str(exc))
        return {"key": key, "error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - shown to the user in place of the spinner
        set_status(key, "error", message=f"{type(exc).__name__}: {exc}")
        return {"key": key, "error": f"The job failed: {type(exc).__name__}: {exc}"}
