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


# ------------------------------------------------------------------ fork() waits for sections it must not cut


def _fork_child(body) -> tuple[int, float]:
    """Fork; the child runs ``body()`` (True: exit 0) under a 5 s alarm. Returns (exit code, when fork returned)."""
    import signal
    import time

    pid = os.fork()
    if pid == 0:
        signal.alarm(5)
        try:
            ok = body()
        except BaseException:
            os._exit(2)
        os._exit(0 if ok else 1)
    forked_at = time.monotonic()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), forked_at


def _in_thread(section) -> tuple[threading.Event, threading.Thread, list]:
    """Run ``section(entered)`` in a thread; returns (entered, thread, [when it ended])."""
    import time

    entered, ended = threading.Event(), []

    def run():
        section(entered)
        ended.append(time.monotonic())

    t = threading.Thread(target=run, daemon=True)
    t.start()
    assert entered.wait(5)
    return entered, t, ended


def test_a_fork_waits_for_a_numba_compilation_and_the_child_can_compile():
    import time

    from numba.core.compiler_lock import global_compiler_lock

    def compiling(entered):
        with global_compiler_lock:
            entered.set()
            time.sleep(0.4)

    _, t, ended = _in_thread(compiling)
    code, forked_at = _fork_child(lambda: global_compiler_lock._lock.acquire(timeout=1))
    t.join()
    assert code == 0 and forked_at >= ended[0] - 0.01


def test_a_fork_waits_for_an_import_in_progress_and_the_child_can_import_it(tmp_path, monkeypatch):
    import importlib
    import sys

    (tmp_path / "slow_module_for_fork.py").write_text("import time\ntime.sleep(0.4)\nVALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slow_module_for_fork", raising=False)

    def importing(entered):
        entered.set()
        importlib.import_module("slow_module_for_fork")

    _, t, _ = _in_thread(importing)
    import time

    deadline = time.monotonic() + 5
    while "slow_module_for_fork" not in sys.modules:  # in sys.modules from the start of its body's execution
        assert time.monotonic() < deadline
        time.sleep(0.001)
    code, _ = _fork_child(lambda: importlib.import_module("slow_module_for_fork").VALUE == 7)
    t.join()
    assert code == 0


def test_a_fork_waits_for_a_log_record_being_written_and_the_child_can_log():
    """A stream's buffer keeps a lock of its own while it writes; a child forked then would wait for it at its
    first log line (seen: jobs stuck in StreamHandler.flush)."""
    import logging
    import time

    class SlowStream:  # a write that holds the stream's own lock for a while, as a full pipe would
        def __init__(self):
            self.lock, self.lines, self.writing = threading.Lock(), [], threading.Event()

        def write(self, text):
            with self.lock:
                self.writing.set()
                time.sleep(0.4)
                self.lines.append(text)

        def flush(self):
            with self.lock:
                pass

    stream = SlowStream()
    handler = logging.StreamHandler(stream)
    log = logging.getLogger("perfcast.test-fork-log")
    log.addHandler(handler)
    log.propagate = False
    try:
        def writing(entered):
            entered.set()
            log.warning("a record from another thread")

        _, t, ended = _in_thread(writing)
        assert stream.writing.wait(5)  # the thread is inside the write
        code, forked_at = _fork_child(lambda: log.warning("the child's record") is None)
        t.join()
        assert code == 0 and forked_at >= ended[0] - 0.01
    finally:
        log.removeHandler(handler)
