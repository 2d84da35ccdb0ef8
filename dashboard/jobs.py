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
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections import OrderedDict
from functools import lru_cache

import modeling
from dashboard.settings import MAX_CONCURRENT_JOBS, RESULT_CACHE_BYTES, RESULT_TTL_SECONDS, var_path
from dashboard.url_state import InvalidParameter
from modeling.errors import ModelingError


@lru_cache(maxsize=1)
def background_manager():
    import diskcache
    from dash import DiskcacheManager

    cache = diskcache.Cache(str(var_path("jobs")), size_limit=256 * 1024**2)
    return DiskcacheManager(cache, cache_by=[lambda: modeling.__version__], expire=RESULT_TTL_SECONDS)


_RESULTS: dict = {}


def results():
    """The result cache, opened once per process (a job is a forked child: it must
    not reuse its parent's SQLite connection)."""
    import diskcache

    pid = os.getpid()
    if pid not in _RESULTS:
        # the parent's entry stays referenced: closing an inherited SQLite
        # connection in a child can unlink the WAL files the parent still uses
        # rollback journal, not WAL: jobs are forked children of a threaded server,
        # and a WAL index shared across fork() was seen to hide a child's writes
        # from its parent until the child exited
        _RESULTS[pid] = diskcache.Cache(str(var_path("results")), size_limit=RESULT_CACHE_BYTES,
                                        eviction_policy="least-recently-used", timeout=30,
                                        sqlite_journal_mode="delete")
    return _RESULTS[pid]


def result_key(kind: str, params: dict, fingerprint: str) -> str:
    blob = json.dumps({"kind": kind, "params": params, "data": fingerprint, "version": modeling.__version__},
                      sort_keys=True, default=str)
    return f"{kind}-{hashlib.sha256(blob.encode()).hexdigest()[:32]}"


_MEMO: OrderedDict = OrderedDict()  # recently read results of this process (read-only)
MEMO_ENTRIES = 16


def get_result(key: str):
    """A result by key. A key names its inputs, data and modeling version, so a
    result never changes: the last few read are kept in memory, and a page
    render that reads one result from several callbacks unpickles it once."""
    if key in _MEMO:
        _MEMO.move_to_end(key)
        return _MEMO[key]
    value = results().get(key)
    if value is not None:
        _MEMO[key] = value
        while len(_MEMO) > MEMO_ENTRIES:
            _MEMO.popitem(last=False)
    return value


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


def job_failed(key: str) -> bool:
    """True when the job for ``key`` was started but its process is gone with no result."""
    st = status(key)
    if st is None or st["state"] in ("done", "error"):
        return False
    return not pid_alive(st["pid"]) and not has_result(key)


class _Slot:
    """One of ``MAX_CONCURRENT_JOBS`` lock files; held while a job trains."""

    def __init__(self, on_wait=None):
        self.on_wait = on_wait
        self.fh = None

    def __enter__(self):
        root = var_path("jobs", "slots")
        while True:
            for i in range(MAX_CONCURRENT_JOBS):
                fh = open(root / f"slot{i}", "a")  # noqa: SIM115 - held until __exit__
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    self.fh = fh
                    return self
                except OSError:
                    fh.close()
            if self.on_wait:
                self.on_wait()
            time.sleep(0.25)

    def __exit__(self, *exc):
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


def run_job(key: str, compute, progress=None) -> dict:
    """Compute (or fetch) the result for ``key``; never raises.

    ``compute(report)`` returns a JSON-ready dict; ``report(fraction, label)``
    forwards progress. Returns ``{"key": key}`` or ``{"key": key, "error": msg}``.
    """
    if has_result(key):
        return {"key": key}
    set_status(key, "queued")

    def report(frac, label):
        if progress:
            progress(frac, label)

    try:
        with _Slot(on_wait=lambda: report(0.0, "queued: other jobs are training, waiting for a free slot")):
            set_status(key, "running")
            value = compute(report)
        put_result(key, value)
        set_status(key, "done")
        return {"key": key}
    except (ModelingError, InvalidParameter, LookupError) as exc:
        set_status(key, "error", message=str(exc))
        return {"key": key, "error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - shown to the user in place of the spinner
        set_status(key, "error", message=f"{type(exc).__name__}: {exc}")
        return {"key": key, "error": f"The job failed: {type(exc).__name__}: {exc}"}
