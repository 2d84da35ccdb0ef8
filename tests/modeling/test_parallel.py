"""The fork pool: results in completion order, closures and data inherited, and a consumer that stops
early ends the workers even in a process that handles SIGTERM itself (a gunicorn worker does)."""

import multiprocessing as mp
import os
import signal
import time

import numpy as np
import pytest

from modeling.parallel import map_unordered


def test_every_result_once_with_closures_and_inherited_data():
    big = np.arange(1_000_000.0)  # inherited by the workers, not pickled

    def work(i):
        return i, float(big[i::7].sum()), os.getpid()

    out = list(map_unordered(work, range(7), n_jobs=2))
    assert sorted(i for i, _, _ in out) == list(range(7))
    assert all(s == pytest.approx(big[i::7].sum()) for i, s, _ in out)
    assert {pid for _, _, pid in out} - {os.getpid()}  # ran in other processes
    assert [r[0] for r in map_unordered(work, range(3), n_jobs=1)] == [0, 1, 2]


def _in_own_group(target, limit: float):
    """Run ``target(q)`` in a forked process (which makes itself a process group); SIGKILL the whole group if
    it is still alive after ``limit`` seconds. Returns (finished in time with exit code 0, the queue)."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(q,))
    p.start()
    p.join(limit)
    alive = p.is_alive()
    if alive:
        os.killpg(p.pid, signal.SIGKILL)
    return not alive and p.exitcode == 0, q


def _stop_early_in_a_gunicorn_like_process(q):
    os.setsid()  # a group of its own, so that the test can end all of it if it hangs
    signal.signal(signal.SIGTERM, lambda *a: None)  # what a gunicorn worker's handler amounts to here
    started = time.time()
    try:
        for _ in map_unordered(lambda i: time.sleep(0.2 if i else 0) or i, range(40), n_jobs=2):
            raise RuntimeError("the consumer stops (e.g. the job was abandoned)")
    except RuntimeError:
        pass
    q.put(time.time() - started)


def test_a_consumer_that_stops_early_does_not_hang_on_workers_that_ignore_sigterm():
    ok, q = _in_own_group(_stop_early_in_a_gunicorn_like_process, 20)
    assert ok
    assert q.get(timeout=1) < 10


def _stop_early_while_a_worker_ignores_sigterm(q):
    os.setsid()

    ignoring = mp.get_context("fork").Event()

    def work(i):
        if i == 0:  # the first result, once the other worker ignores SIGTERM
            ignoring.wait(10)
            return i
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # as a worker stuck before its initializer would
        ignoring.set()
        time.sleep(60)
        return i

    started = time.time()
    try:
        for _ in map_unordered(work, range(4), n_jobs=2):
            raise RuntimeError("the consumer stops")
    except RuntimeError:
        pass
    q.put(time.time() - started)


def test_workers_that_ignore_sigterm_entirely_are_killed_when_the_consumer_stops():
    ok, q = _in_own_group(_stop_early_while_a_worker_ignores_sigterm, 30)
    assert ok
    assert q.get(timeout=1) < 10


def _stop_early_while_workers_write_results(q):
    os.setsid()
    payload = np.ones(200_000)  # results big enough that a worker is often inside its write

    started = time.time()
    for _ in range(15):
        try:
            for _ in map_unordered(lambda i: payload * i, range(200), n_jobs=2):
                raise RuntimeError("the consumer stops")
        except RuntimeError:
            pass
    q.put(time.time() - started)


def test_stopping_while_workers_write_results_never_hangs():
    """A worker killed while it writes a result would keep the result queue's lock for good and the pool's
    ``terminate`` would wait on it for ever: the workers are asked to end first, killed only if they must be."""
    ok, _ = _in_own_group(_stop_early_while_workers_write_results, 90)
    assert ok


def test_one_blas_thread_limits_a_blas_loaded_after_its_first_use():
    """The libraries are looked up once, not at every entry (7-20 ms each, once per fit), and again after new
    imports: a BLAS that an import loads later (scipy's own beside numpy's) is limited too."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import json, sys
        import numpy
        from threadpoolctl import threadpool_info
        from modeling.parallel import one_blas_thread
        with one_blas_thread():
            pass
        import scipy.linalg  # another BLAS, loaded after the first use
        with one_blas_thread():
            inside = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
        print(json.dumps(inside))
    """)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    inside = __import__("json").loads(out.stdout)
    assert len(inside) >= 2 and set(inside) == {1}
