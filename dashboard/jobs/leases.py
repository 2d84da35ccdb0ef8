"""The redis backend's leases: a Redis key held by one process with an expiry it renews every second (one thread per
process renews them all), the lock of the one job computing a key, and a machine's training slots
(:mod:`dashboard.jobs.distributed`)."""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid

from dashboard import settings
from dashboard.jobs.keys import check_key
from dashboard.jobs.outage import is_outage
from dashboard.jobs.redis_state import _data_fresh, _k, _quiet, client, has_result

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

