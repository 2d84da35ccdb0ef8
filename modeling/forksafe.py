"""Locks that a forked child gets unlocked.

Jobs and pool workers are forked from threaded processes (a gunicorn ``gthread`` worker, a test
process with live servers). ``fork()`` copies only the calling thread, so a ``threading.Lock``
another thread held at that instant stays held in the child for ever, and the first ``with lock:``
there waits on a futex that nobody will wake. A :class:`ForkSafeLock` is replaced by a fresh lock in
every child, right after the fork (``os.register_at_fork``); in the parent it is an ordinary lock.
"""

from __future__ import annotations

import os
import threading
import weakref

_ALL: weakref.WeakSet = weakref.WeakSet()


class ForkSafeLock:
    """A ``threading.Lock`` (or ``RLock`` with ``reentrant=True``) renewed, unlocked, in a forked child."""

    __slots__ = ("_lock", "_reentrant", "__weakref__")

    def __init__(self, reentrant: bool = False):
        self._reentrant = reentrant
        self._lock = self._new()
        _ALL.add(self)

    def _new(self):
        return threading.RLock() if self._reentrant else threading.Lock()

    def renew(self) -> None:
        """Forget the current lock, held or not (only right after a fork, when no thread of this process
        can hold it)."""
        self._lock = self._new()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self):
        self._lock.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self._lock.release()


def _renew_all_in_child() -> None:
    for lock in list(_ALL):
        lock.renew()


os.register_at_fork(after_in_child=_renew_all_in_child)
