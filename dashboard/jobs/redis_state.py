"""The redis backend's records in Redis (``PERFCAST_REDIS_URL``): this process's client, results, statuses, the pages'
heartbeats, runs, and how long ago Redis (re)started or lost its data (:mod:`dashboard.jobs.distributed`)."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from functools import lru_cache

from dashboard import settings
from dashboard.jobs.codec import pack, unpack
from dashboard.jobs.keys import check_key, stored_key
from dashboard.jobs.memo import known, remembered
from dashboard.jobs.outage import is_outage

PREFIX = "perfcast"
_TASK = threading.local()  # the Celery task this thread runs (a threads pool runs several in one process)


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

