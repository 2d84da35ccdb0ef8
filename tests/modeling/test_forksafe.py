"""A lock held by another thread at a fork: a plain lock stays held in the child, a ForkSafeLock does not."""

import os
import threading

import pytest

from modeling.parallel import ForkSafeLock


def _held_by_another_thread(lock):
    taken, done = threading.Event(), threading.Event()

    def hold():
        with lock:
            taken.set()
            done.wait(10)

    t = threading.Thread(target=hold, daemon=True)
    t.start()
    assert taken.wait(5)
    return done, t


def _child_can_take(lock) -> bool:
    pid = os.fork()
    if pid == 0:  # the child: exit 0 when the lock could be taken
        os._exit(0 if lock.acquire(timeout=1.0) else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


@pytest.mark.parametrize("reentrant", [False, True])
def test_a_forked_child_gets_the_lock_unlocked(reentrant):
    lock = ForkSafeLock(reentrant=reentrant)
    done, t = _held_by_another_thread(lock)
    try:
        assert not lock.acquire(timeout=0.05)  # an ordinary lock in the parent
        assert _child_can_take(lock)
    finally:
        done.set()
        t.join()
    with lock:  # released in the parent when its holder finished
        pass


def test_a_plain_lock_would_stay_held_in_the_child():
    lock = threading.Lock()  # what the test above guards against
    done, t = _held_by_another_thread(lock)
    try:
        assert not _child_can_take(lock)
    finally:
        done.set()
        t.join()
