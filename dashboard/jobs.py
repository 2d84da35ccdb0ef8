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
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import modeling
from dashboard import settings
from dashboard.settings import RESULT_CACHE_BYTES, RESULT_TTL_SECONDS, var_path
from dashboard.url_state import InvalidParameter, parse
from modeling.errors import ModelingError


@lru_cache(maxsize=1)
def background_manager():
    from dash import DiskcacheManager

    class GroupManager(DiskcacheManager):
        """Dash's manager, except that stopping a job (Cancel, a newer request) ends
        its whole process group: the job and every worker process it started."""

        def terminate_job(self, job):
            if job is not None:
                kill_group(int(job))
            super().terminate_job(job)

    cache = _open_cache("jobs", size_limit=256 * 1024**2)
    return GroupManager(cache, cache_by=[lambda: modeling.__version__], expire=RESULT_TTL_SECONDS)


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


KEY = re.compile(r"^[a-z]{1,24}-[0-9a-f]{32}$")


class InvalidKey(ValueError):
    """A result key that the server did not make (wrong type or shape)."""


def check_key(key) -> str:
    """``key`` when it has the shape :func:`result_key` makes (kind, dash, 32 hex digits), else
    ``InvalidKey``. Every use of a key in a path or a cache entry goes through here."""
    if not isinstance(key, str) or not KEY.match(key):
        raise InvalidKey(f"not a result key: {str(key)[:40]!r}")
    return key


def key_of(ref) -> str | None:
    """The key of a page store's ``{"key": …}`` (a request, result or ready store) when it is
    well formed, else None: store values come from the browser and may be forged."""
    key = ref.get("key") if isinstance(ref, dict) else None
    return key if isinstance(key, str) and KEY.match(key) else None


def result_key(kind: str, params: dict, fingerprint: str) -> str:
    blob = json.dumps({"kind": kind, "params": params, "data": fingerprint, "version": modeling.__version__},
                      sort_keys=True, default=str)
    return check_key(f"{kind}-{hashlib.sha256(blob.encode()).hexdigest()[:32]}")


@dataclass(frozen=True)
class JobKind:
    """One kind of background job: which validated parameters make its result's key,
    and what computes the result from them.

    A request is always made here, on the server, from raw values (a form, a
    link or a page store the browser sent back): :meth:`request` parses them
    with the kind's own parameters and derives the key; :meth:`from_store`
    does the same for a store and refuses one whose key is not the key of its
    inputs. So no browser can put a result under another input's key.
    """

    name: str
    params: tuple  # url_state.Param, in order (later options may depend on earlier values)
    compute: Callable  # (params, report) -> JSON-ready result
    fingerprint: Callable  # params -> fingerprint of the data the params name
    check: Callable | None = None  # params -> None, raises InvalidParameter for combinations parse cannot see

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def key(self, params: dict) -> str:
        return result_key(self.name, params, self.fingerprint(params))

    def request(self, raw: dict) -> dict:
        """``{"kind", "params", "key"}`` from raw values; raises InvalidParameter / LookupError."""
        params = parse(raw, list(self.params))
        if self.check:
            self.check(params)
        return {"kind": self.name, "params": params, "key": self.key(params)}

    def from_store(self, stored) -> dict:
        """The request a page store names, parsed again; its key is recomputed and compared."""
        if not isinstance(stored, dict) or not isinstance(stored.get("params"), dict):
            raise InvalidParameter("request", "not a job request")
        if stored.get("kind", self.name) != self.name:
            raise InvalidParameter("request", f"a {str(stored.get('kind'))[:24]!r} request sent to a {self.name} job")
        req = self.request(stored["params"])
        if stored.get("key") is not None and stored.get("key") != req["key"]:
            raise InvalidParameter("key", "does not match the request's inputs (refused)")
        return req


_MEMO: OrderedDict = OrderedDict()  # recently read results of this process (read-only)
_MEMO_LOCK = threading.Lock()  # a worker may serve requests from several threads
MEMO_ENTRIES = 16


def get_result(key: str):
    """A result by key (``InvalidKey`` for a malformed one). A key names its inputs, data and modeling version, so a
    result never changes: the last few read are kept in memory, and a page
    render that reads one result from several callbacks unpickles it once."""
    check_key(key)
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


def result_for(ref) -> dict | None:
    """The result named by a page store's ``{"key": …}`` (a request or a ready store), or None
    (also for a store that is not well formed). Reading is safe: a key only ever holds the
    result of the inputs it was derived from."""
    key = key_of(ref)
    return get_result(key) if key else None


def has_result(key: str) -> bool:
    """Presence check that does not read the (possibly large) result."""
    return check_key(key) in results()


def put_result(key: str, value: dict) -> None:
    results().set(check_key(key), value, expire=RESULT_TTL_SECONDS)


def set_status(key: str, state: str, **extra) -> None:
    results().set(f"status:{check_key(key)}", {"state": state, "pid": os.getpid(), "t": time.time(), **extra},
                  expire=RESULT_TTL_SECONDS)


def status(key: str) -> dict | None:
    return results().get(f"status:{check_key(key)}")


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
    """Join this worker's job processes that have exited (until joined they stay zombies), and
    end the process groups of jobs that died (their worker processes would run on)."""
    import multiprocess

    multiprocess.active_children()
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
    try:
        os.setsid()
    except OSError:  # already a group leader (e.g. run twice in one process)
        pass
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
    """End the groups of recorded jobs whose leader is dead (killed, or crashed)."""
    for rec in var_path("jobs", "groups").iterdir():
        if not rec.name.isdigit():
            continue
        pid = int(rec.name)
        if pid_alive(pid):
            continue
        kill_group(pid)
        rec.unlink(missing_ok=True)


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
    results().set(f"beat:{check_key(key)}", time.time(), expire=3600)


def last_beat(key: str) -> float | None:
    return results().get(f"beat:{check_key(key)}")


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


def run_job(key: str, compute, progress=None) -> dict:
    """Compute (or fetch) the result for ``key``; never raises.

    ``compute(report)`` returns a JSON-ready dict; ``report(fraction, label)``
    forwards progress. Returns ``{"key": key}`` or ``{"key": key, "error": msg}``.
    One process computes a key at a time: a job whose key another process is
    computing waits for that result. A job that no page has watched for
    ``JOB_ABANDON_SECONDS`` stops (status ``abandoned``).
    """
    reap_orphan_groups()  # workers of jobs that died while no page watched them
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
