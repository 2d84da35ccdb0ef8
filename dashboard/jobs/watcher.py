"""The hard stop of a job on a Celery worker (redis backend): a small process beside each prefork pool process.

The job's watchdog thread (:class:`dashboard.jobs.celery_job._Watchdog`) raises the stop exception in the job's
thread, which ends a job computing in Python within its poll. A job inside a long call into C that holds the GIL
runs no Python at all, that thread's included. So each pool process starts this watcher when it starts (by
fork+exec: nothing of the pool process is inherited) and tells it, through its stdin, which job it runs (one JSON
line per job start, ``{}`` when the job ends). The watcher watches the same Redis flags from outside. When the
job is to stop (Cancel's flag, or no page's heartbeat for the abandonment limit) and is still the pool process's
job ``GRACE_SECONDS`` later, it records why in the job's status (only over a status the job wrote itself, queued
or running), releases every lease the pool process holds (its slot and key lock are free at once), marks the run
ended, and SIGKILLs the pool process's children and the pool process; Celery replaces the pool process (and the
new one starts its own watcher). The watcher exits when its pool process is gone (its stdin ends).

Run as a script (``python watcher.py '<json>'``): it imports only redis and psutil, not the app.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time

POLL_SECONDS = 0.2
GRACE_SECONDS = 0.6  # the watchdog thread's graceful stop first (it polls every 0.2 s)
PREFIX = "perfcast"


def _k(*parts) -> str:
    return ":".join((PREFIX, *map(str, parts)))


class _Pool:
    """What the pool process said: its current job (or None), and whether it is still there."""

    def __init__(self):
        self.job, self.alive, self.buf = None, True, b""

    def read(self, timeout: float) -> None:
        fd = sys.stdin.fileno()
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return
        data = os.read(fd, 65536)
        if not data:
            self.alive = False
            return
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            job = json.loads(line) if line.strip() else {}
            self.job = {**job, "since": time.time()} if job else None


def main(spec: dict) -> None:
    import psutil  # noqa: F401 - imported before it is needed
    import redis

    r = redis.Redis.from_url(spec["redis_url"], socket_timeout=5, socket_connect_timeout=3)
    pool = _Pool()
    unreachable = 0.0
    while pool.alive:
        pool.read(POLL_SECONDS)
        job = pool.job
        if not pool.alive or job is None:
            continue
        try:
            if r.exists(_k("cancel", job["task"])):
                why = "cancelled"
            else:
                raw = r.get(_k("beat", job["key"]))
                beat = float(raw) if raw else 0.0
                why = "abandoned" if time.time() - max(job["since"], beat, unreachable) > spec["abandon_seconds"] \
                    else None
        except redis.RedisError:
            unreachable = time.time()
            continue
        if why is None:
            continue
        deadline = time.time() + GRACE_SECONDS  # the job may end by the stop exception meanwhile
        while pool.alive and pool.job is job and time.time() < deadline:
            pool.read(max(0.0, deadline - time.time()))
        if pool.alive and pool.job is job:
            try:
                _record(r, spec, job, why)
            finally:
                _kill(spec["pool_pid"])
            return


def _record(r, spec: dict, job: dict, why: str) -> None:
    pool, key, run = spec["pool_pid"], job["key"], job.get("run")
    try:
        raw = r.get(_k("status", key))
        st = json.loads(raw) if raw else None
        if st and st.get("pid") == pool and st.get("state") in ("queued", "running"):
            new = {**st, "state": why, "t": time.time()}
            if why == "abandoned":
                new["message"] = (f"no page has waited for this result for more than "
                                  f"{spec['abandon_seconds']:.0f} s")
            r.set(_k("status", key), json.dumps(new), ex=int(spec["ttl"]))
        if run:
            r.set(_k("run", run, "ended"), "1", ex=int(spec["ttl"]))
        mine = spec["token_prefix"].encode()
        for pattern in ("slot:*", "lock:*", "alive:*", "run:*:alive", "quota:alive:*", "quota:helper:*"):
            for name in r.scan_iter(match=_k(pattern)):
                if (r.get(name) or b"").startswith(mine):
                    r.delete(name)
    except Exception:  # noqa: BLE001 - Redis unreachable: the leases run out by themselves
        pass


def _kill(pool: int) -> None:
    import psutil

    try:
        children = psutil.Process(pool).children(recursive=True)
    except psutil.NoSuchProcess:
        return
    for child in children:
        if child.pid != os.getpid():
            try:
                child.kill()
            except psutil.NoSuchProcess:
                pass
    try:
        os.kill(pool, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C of the worker: the pool process ends, then this
    main(json.loads(sys.argv[1]))
