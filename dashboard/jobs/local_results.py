"""The local job backend's store (:mod:`dashboard.jobs.local`): results, job statuses and the pages'
heartbeats, in one size-bounded diskcache under ``var/results`` shared by every process of the machine. Values
are JSON (:mod:`dashboard.jobs.codec`), never pickles. Below both the backend and its job launcher, which read
and write statuses here."""

from __future__ import annotations

import os
import threading
import time

from dashboard.jobs.keys import check_key, stored_key
from dashboard.jobs.memo import remembered
from dashboard import settings
from dashboard.settings import RESULT_CACHE_BYTES, RESULT_TTL_SECONDS, var_path

_RESULTS: dict = {}
_RESULTS_LOCK = threading.Lock()


def results():
    """The result cache, opened once per process and state directory (a job is a forked child: it must not
    reuse its parent's SQLite connection; a process pointed at another state directory reads that one's, not
    the first one it opened)."""
    at = (os.getpid(), str(settings.VAR_DIR))
    if at not in _RESULTS:
        with _RESULTS_LOCK:  # one open per process, whatever the number of threads
            if at not in _RESULTS:
                _RESULTS[at] = _open_results()
    return _RESULTS[at]


def _open_results():
    # the parent's entry stays referenced: closing an inherited SQLite
    # connection in a child can unlink the WAL files the parent still uses.
    # Rollback journal, not WAL: a WAL index shared across fork() was seen to hide
    # a child's writes from its parent until the child exited.
    # values as JSON (dashboard.jobs.codec), never pickles: the same encoding as the redis backend's
    from dashboard.jobs.codec import JsonDisk

    return _open_cache("results", size_limit=RESULT_CACHE_BYTES, eviction_policy="least-recently-used",
                       timeout=30, sqlite_journal_mode="delete", disk=JsonDisk)


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


def get_result(key: str):
    """A result of the current project by key (``InvalidKey`` for a malformed one), through this process's
    memo of recent reads."""
    where = stored_key(key)
    return remembered(where, lambda: _read(where))


def _read(where: str):
    """The stored result, or None; an entry in another encoding (never unpickled, dashboard.jobs.codec) is
    removed, so that the key reads as not computed everywhere (has_result too) and is computed again."""
    cache = results()
    value = cache.get(where)
    if value is None and where in cache:
        cache.delete(where)
    return value


def has_result(key: str) -> bool:
    """Presence check (in the current project) that does not read the (possibly large) result."""
    return stored_key(key) in results()


def put_result(key: str, value: dict) -> None:
    results().set(stored_key(key), value, expire=RESULT_TTL_SECONDS)


def set_status(key: str, state: str, **extra) -> None:
    results().set(f"status:{check_key(key)}", {"state": state, "pid": os.getpid(), "t": time.time(), **extra},
                  expire=RESULT_TTL_SECONDS)


def status(key: str) -> dict | None:
    return results().get(f"status:{check_key(key)}")


def beat(key: str) -> None:
    """A page still waits for ``key`` (sent by its watchdog on every tick)."""
    results().set(f"beat:{check_key(key)}", time.time(), expire=3600)


def last_beat(key: str) -> float | None:
    return results().get(f"beat:{check_key(key)}")
