"""Independent tasks on the cores of this machine, in forked worker processes.

Why not joblib's default (loky) backend: its workers are started fresh, are
kept alive for minutes after the work ends, and name their semaphores and
memory-mapped arrays in ``/dev/shm``; when the process that owns them is
killed (a cancelled or dead dashboard job) they ran on and left those files
behind. Here the workers are forked from the caller, so the function and its
(possibly large) arguments reach them without pickling, the semaphores of a
fork pool are unlinked as soon as they are made (nothing in ``/dev/shm``),
and an idle worker exits by itself once its parent is gone (the task pipe
reaches end of file). The workers are killed (SIGKILL), not drained, when the consumer
stops early (an exception, e.g. a job that was abandoned).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator

_TASKS: dict[int, tuple[Callable, list]] = {}  # set before the fork; read by the forked workers


def cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or ``taskset`` narrows; the
    machine's count where the platform has no affinity): the default number of worker processes of the
    command line and the dashboard's jobs."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def jobs_arg(text: str) -> int:
    """``--jobs N`` of the command line: a whole number of worker processes, at least 1 (argparse type)."""
    import argparse

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs takes a whole number of processes (at least 1), not {text!r}") \
            from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"--jobs takes at least 1 process, not {n}")
    return n


def add_jobs_argument(parser, what: str) -> None:
    """The ``--jobs`` option: ``what`` runs in that many forked processes; by default one per core."""
    parser.add_argument("--jobs", type=jobs_arg, default=cores(), metavar="N",
                        help=f"{what} in N parallel processes (default: every core this process may use, "
                             f"{cores()} here; 1 runs in this process)")


def _init_worker(threads: int) -> None:
    """Pool initializer.

    * SIGTERM and SIGINT get their default actions back: a worker forked from a
      process that handles them (a gunicorn worker handles SIGTERM as "finish
      gracefully") would otherwise ignore ``Pool.terminate``, and the pool's
      owner would wait for it for ever.
    * Each worker's OpenMP pools get ``threads`` threads, so that n workers x their threads do not
      oversubscribe the cores (joblib's loky does the same), and its BLAS one thread, as every task has
      wherever it runs (:func:`one_blas_thread`).
    """
    import signal

    from threadpoolctl import threadpool_limits

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    threadpool_limits(limits=threads)
    threadpool_limits(limits=1, user_api="blas")


def one_blas_thread():
    """A context in which BLAS runs on one thread.

    A BLAS call splits a product's sums between its threads, so its last bits depend on how many it has (seen:
    predictions 1e-14 apart, a leaderboard's E_out apart in its last digits). Every task of
    :func:`map_unordered` runs in one, in this process or in a worker, and so does a fit of the ensemble
    wherever it runs (``FitPlan.fit``, also on another machine): the numbers are the same whatever ``n_jobs``
    is and however many cores the machine has.

    The loaded libraries are looked up once (:class:`threadpoolctl.ThreadpoolController`), not on every entry:
    the lookup took 7-20 ms, once per fit of a leaderboard's hundreds, against 0.02 ms for the limit itself.
    It is looked up again when modules were imported since (a new import may load another BLAS)."""
    global _blas, _blas_modules
    with _blas_lock:
        if _blas is None or _blas_modules != len(sys.modules):
            from threadpoolctl import ThreadpoolController

            _blas, _blas_modules = ThreadpoolController(), len(sys.modules)
        controller = _blas
    return controller.limit(limits=1, user_api="blas")


_blas = None  # the process's ThreadpoolController (a forked worker inherits it: same libraries, same addresses)
_blas_modules = 0  # len(sys.modules) when it was made (its lock, _blas_lock, is a ForkSafeLock: below)


def _run(token_index: tuple[int, int]):
    token, i = token_index
    fn, items = _TASKS[token]
    return fn(items[i])


def map_unordered(fn: Callable, items: Iterable, n_jobs: int | None = 1) -> Iterator:
    """Yield ``fn(item)`` for every item, in the order the results finish.

    Parameters
    ----------
    fn : callable of one argument; may be a closure (it is inherited, not pickled)
    items : the arguments; they are inherited by the workers, not pickled
    n_jobs : worker processes; 1 or None runs in this process, in order

    Results travel back by pickle, so they must be picklable (arrays, tuples). Every task runs with one BLAS
    thread (:func:`one_blas_thread`), so the results do not depend on ``n_jobs``.
    """
    items = list(items)
    if not n_jobs or n_jobs <= 1 or len(items) <= 1:
        for item in items:
            with one_blas_thread():
                out = fn(item)
            yield out
        return
    token = id(items)
    _TASKS[token] = (fn, items)  # kept while the pool lives: a worker it replaces is forked again
    pool = None
    try:
        workers = min(n_jobs, len(items))
        threads = max(1, (os.cpu_count() or 1) // workers)
        pool = multiprocessing.get_context("fork").Pool(workers, initializer=_init_worker, initargs=(threads,))
        yield from pool.imap_unordered(_run, [(token, i) for i in range(len(items))], chunksize=1)
        pool.close()
        pool.join()
        pool = None
    finally:
        if pool is not None:  # the consumer stopped early: the remaining results are not wanted
            _stop(pool)
        del _TASKS[token]


STOP_GRACE_SECONDS = 3.0


def _stop(pool) -> None:
    """End ``pool`` when its results are no longer wanted: ``Pool.terminate`` (which tells the result
    thread to stop, then SIGTERMs the workers and waits for them), and SIGKILL for the workers it is still
    waiting for after :data:`STOP_GRACE_SECONDS`.

    Not SIGKILL first: a worker killed while it writes a result holds the result queue's lock for good, and
    ``terminate`` then waits on that lock for ever (seen: a job stopped as abandoned never ended)."""
    ender = threading.Thread(target=pool.terminate, name="pool-stop", daemon=True)
    ender.start()
    ender.join(STOP_GRACE_SECONDS)
    if ender.is_alive():
        _kill_workers(pool)
        ender.join(STOP_GRACE_SECONDS)


def _kill_workers(pool) -> None:
    """SIGKILL every worker of ``pool`` (once ``terminate`` has had its grace). ``Pool.terminate`` sends
    SIGTERM and then waits for each worker; a worker forked from a threaded process can be stuck on a lock
    some other thread held at the fork before its initializer restored SIGTERM's default action, and would
    then ignore SIGTERM (its parent's Python-level handler only sets a flag) and be waited for for ever."""
    for process in list(getattr(pool, "_pool", ())):
        try:
            process.kill()
        except (OSError, ValueError):  # already gone, or closed
            pass


# ------------------------------------------------------------------ locks across fork()
# ``fork()`` copies only the calling thread, so a ``threading.Lock`` another thread held at that instant stays
# held in the child for ever, and the first ``with lock:`` there waits on a futex that nobody will wake. A
# :class:`ForkSafeLock` is replaced by a fresh lock in every child, right after the fork
# (``os.register_at_fork``); in the parent it is an ordinary lock. Jobs no longer start as forks of the threaded
# web workers (dashboard/jobs/launcher.py), which made it necessary there; it stays for code that may be forked
# from a process with threads (the pool workers above, started inside a job process).

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

_blas_lock = ForkSafeLock()  # one_blas_thread's controller


# ------------------------------------------------------------------ library state across fork()
# A lock is not the only thing a fork can catch half-way: a thread inside numba's compiler (its global lock,
# LLVM's state) or importing a module (the module's import lock), or writing a log record, leaves that state
# taken in the child, whose first use of it then waits for ever. Jobs no longer start as forks of threaded web
# workers (dashboard/jobs/launcher.py starts them from a fork server), but the fork pools above are started inside
# job processes that can have threads of their own (on a Celery worker, the job's watchdog and lease renewer; the
# phases kernels' thread pool, modeling/phases/pieces.py), so fork() still waits (os.register_at_fork) until no
# other thread is in any of them:
#
# * numba's global compiler lock is taken around the fork (a compilation in progress finishes first);
# * so is every logging handler's lock (a log record being written is written first);
# * an import in progress in another thread finishes first (waited for at most IMPORT_WAIT_SECONDS).

IMPORT_WAIT_SECONDS = 10.0


def _numba_lock():
    module = sys.modules.get("numba.core.compiler_lock")
    return getattr(module, "global_compiler_lock", None)


def _wait_for_imports(seconds: float) -> None:
    """Wait until no other thread holds a module's import lock (an import under way), at most ``seconds``."""
    import importlib._bootstrap as bootstrap
    import time

    me, deadline = threading.get_ident(), time.monotonic() + seconds
    while time.monotonic() < deadline:
        busy = False
        for ref in list(getattr(bootstrap, "_module_locks", {}).values()):
            lock = ref()
            owner = getattr(lock, "owner", None)
            if owner is not None and owner != me:
                busy = True
                break
        if not busy:
            return
        time.sleep(0.005)


_HELD = threading.local()  # what this thread's fork took (forks of different threads do not mix them up)


def _log_handlers() -> list:
    """Every logging handler of this process (logging keeps a weak list of them)."""
    import logging

    found = (ref() for ref in list(getattr(logging, "_handlerList", ())))
    return [h for h in found if h is not None and getattr(h, "lock", None) is not None]


def _before_fork() -> None:
    _wait_for_imports(IMPORT_WAIT_SECONDS)
    numba_lock = _numba_lock()
    if numba_lock is not None:
        numba_lock.acquire()
    _HELD.numba = numba_lock
    # a thread writing a log record holds its handler's lock, and inside it the lock of the stream's buffer,
    # which the child would inherit taken (logging renews the handler's lock in the child, not the buffer's):
    # the child's first log line would wait for ever (seen: jobs stuck in StreamHandler.flush)
    handlers = _log_handlers()
    for handler in handlers:
        handler.acquire()
    _HELD.handlers = handlers


def _after_fork_in_parent() -> None:
    for handler in reversed(_HELD.handlers):
        handler.release()
    _HELD.handlers = []
    numba_lock, _HELD.numba = _HELD.numba, None
    if numba_lock is not None:
        numba_lock.release()


def _after_fork_in_child() -> None:
    for handler in reversed(_HELD.handlers):
        try:
            handler.release()
        except RuntimeError:  # logging has already given the child a fresh lock
            pass
    _HELD.handlers = []
    numba_lock, _HELD.numba = _HELD.numba, None
    if numba_lock is not None:  # taken by this (the forking) thread, which the child still is
        numba_lock.release()


os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child)
