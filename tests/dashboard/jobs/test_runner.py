"""Job life cycle as plain functions, on both backends (``backend``: local and redis): one computation per
key, abandoned jobs stop, a dead owner hands over, cancel stops a job, an exception's message reaches the
page."""

import multiprocessing as mp
import os
import signal
import threading
import time


from dashboard import jobs
from dashboard.jobs import owners
from testkit.waiting import until
from dashboard.jobs.backend import active
from modeling.version import code_version

KEY_HANDOVER = jobs.result_key("scenario", {"test": "scenario-handover"}, "fp")
KEY_LEFT = jobs.result_key("scenario", {"test": "scenario-left"}, "fp")
KEY_SAME = jobs.result_key("scenario", {"test": "scenario-same"}, "fp")
KEY_WATCHED = jobs.result_key("scenario", {"test": "scenario-watched"}, "fp")


def _slow_compute(log_path, seconds):
    def compute(report):
        with open(log_path, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        t_end = time.time() + seconds
        while time.time() < t_end:
            report(0.5, "working")
            time.sleep(0.05)
        return {"by": os.getpid()}
    return compute


def _run_in_child(key, log_path, seconds, out_q, said=None):
    """Run the job of ``key`` in this (child) process; with ``said``, append each progress label to that file."""
    def progress(_frac, label):
        with open(said, "a") as fh:
            fh.write(label + "\n")
    out_q.put(jobs.run_job(key, _slow_compute(log_path, seconds), progress if said else None))


def _state(key):
    return (jobs.status(key) or {}).get("state")


def test_two_users_same_inputs_compute_once(backend, var):
    ctx = mp.get_context("fork")
    log = var / "computed.log"
    q = ctx.Queue()
    procs = [ctx.Process(target=_run_in_child, args=(KEY_SAME, log, 1.5, q)) for _ in range(2)]
    for p in procs:
        p.start()
    outs = [q.get(timeout=30) for _ in procs]
    for p in procs:
        p.join(10)
    assert outs == [{"key": KEY_SAME}] * 2
    assert len(log.read_text().split()) == 1  # the second job waited for the first one's result
    assert jobs.status(KEY_SAME)["state"] == "done"
    assert jobs.status(KEY_SAME)["code_version"] == code_version()  # which code computed the result


def test_dead_owner_hands_over_to_the_waiting_job(backend, var):
    ctx = mp.get_context("fork")
    log = var / "computed.log"
    q = ctx.Queue()
    said = var / "waiter-progress.log"
    owner = ctx.Process(target=_run_in_child, args=(KEY_HANDOVER, log, 600, q))
    owner.start()
    assert until(lambda: _state(KEY_HANDOVER) == "running")
    waiter = ctx.Process(target=_run_in_child, args=(KEY_HANDOVER, log, 0.3, q, said))
    waiter.start()
    assert until(lambda: said.exists() and "waiting for that result" in said.read_text())  # the waiter waits
    assert len(log.read_text().split()) == 1  # for the owner, computing nothing itself
    os.kill(owner.pid, signal.SIGKILL)
    owner.join(10)
    assert q.get(timeout=30) == {"key": KEY_HANDOVER}
    waiter.join(10)
    assert jobs.get_result(KEY_HANDOVER) == {"by": waiter.pid}
    assert len(log.read_text().split()) == 2


def test_a_job_no_page_watches_stops_itself(backend, var, monkeypatch):
    monkeypatch.setattr("dashboard.settings.JOB_ABANDON_SECONDS", 1.0)
    out = jobs.run_job(KEY_LEFT, _slow_compute(var / "a.log", 120))  # stopped, or it ends without an error
    assert out["error"].startswith("Stopped: no page has waited") and "Run again" in out["error"]
    assert jobs.status(KEY_LEFT)["state"] == "abandoned"
    assert not jobs.job_failed(KEY_LEFT) and not jobs.has_result(KEY_LEFT)


def test_a_watched_job_runs_to_the_end(backend, var, monkeypatch):
    monkeypatch.setattr("dashboard.settings.JOB_ABANDON_SECONDS", 1.0)
    stop = threading.Event()

    def page_ticks():
        while not stop.is_set():
            jobs.beat(KEY_WATCHED)
            time.sleep(0.2)

    t = threading.Thread(target=page_ticks)
    t.start()
    try:
        out = jobs.run_job(KEY_WATCHED, _slow_compute(var / "w.log", 3.0))
    finally:
        stop.set()
        t.join()
    assert out == {"key": KEY_WATCHED} and jobs.get_result(KEY_WATCHED) == {"by": os.getpid()}


def test_job_requests_are_parsed_again_and_keys_checked(backend, var):
    import pytest

    from dashboard.crossgen.kinds import SCENARIO, SWEEP
    from dashboard.ui.url_state import InvalidParameter

    real = SCENARIO.request({"target": "Tesla-K20"})
    assert SCENARIO.from_store({**real, "attempt": 3}) == real  # extra page fields are ignored, key re-derived
    assert SCENARIO.from_store({"params": real["params"]}) == real  # no key: derived here
    other = SCENARIO.request({"target": "GTX-980"})
    for forged, why in [({**real, "params": other["params"]}, "does not match"),
                        ({**real, "key": "../../x"}, "does not match"),
                        ({**real, "kind": "sweep"}, "sweep"),
                        ({**real, "params": {**real["params"], "host": ["GTX-680"]}}, "invalid parameter host"),
                        ({**real, "params": {**real["params"], "folds": 10**9}}, "invalid parameter folds"),
                        ("scenario", "not a job request"), ({"params": 5}, "not a job request")]:
        with pytest.raises((InvalidParameter, LookupError), match=why):
            SCENARIO.from_store(forged)
    with pytest.raises(InvalidParameter):
        SWEEP.from_store(real)  # a scenario request is not a sweep request
    for bad in ("../../../../tmp/x", "scenario-" + "0" * 31, ["scenario-" + "0" * 32], None, "SCENARIO-" + "0" * 32):
        with pytest.raises(jobs.InvalidKey):
            jobs.check_key(bad)
        with pytest.raises(jobs.InvalidKey):
            active().KeyLock(bad, on_wait=lambda: None)
        assert jobs.key_of({"key": bad}) is None and jobs.result_for({"key": bad}) is None
    assert not (var / "jobs" / "keys").exists() or not list((var / "jobs" / "keys").iterdir())


def _compute_once_in_child(key, log_path, out_q):
    from dashboard.jobs.runner import compute_once

    out_q.put(compute_once(key, _slow_compute(log_path, 1.0)))


def test_results_a_job_computes_on_the_way_are_computed_once_under_their_lock(backend, var):
    """The generations job computes one scenario per target: two such jobs sharing a target compute
    that scenario once (the second waits under the key's lock) and store it for the scenario page."""
    ctx = mp.get_context("fork")
    key = jobs.result_key("scenario", {"test": "on the way"}, "fp")
    log = var / "computed.log"
    q = ctx.Queue()
    procs = [ctx.Process(target=_compute_once_in_child, args=(key, log, q)) for _ in range(2)]
    for p in procs:
        p.start()
    outs = [q.get(timeout=30) for _ in procs]
    for p in procs:
        p.join(10)
    assert outs[0] == outs[1] and len(log.read_text().split()) == 1
    assert jobs.get_result(key) == outs[0]


def _cancellable_job(key, log_path, out_q, task):
    """A job process as the panel runs one: started (local: a process group of its own; redis: a
    liveness lease under Celery task ``task``), then the runner."""
    from dashboard.jobs import celery_job

    celery_job._task_id = lambda: task
    jobs.job_started()
    try:
        out_q.put(jobs.run_job(key, _slow_compute(log_path, 600)))
    finally:
        jobs.job_ended()


def test_cancel_stops_the_job(backend, var):
    ctx = mp.get_context("fork")
    key = jobs.result_key("scenario", {"test": "cancel"}, "fp")
    q = ctx.Queue()
    p = ctx.Process(target=_cancellable_job, args=(key, var / "c.log", q, "task-cancel-1"))
    p.start()
    (owners.LOCAL if backend == "local" else owners.REDIS).record(p.pid if backend == "local" else "task-cancel-1")
    try:
        assert until(lambda: _state(key) == "running")
        # what Dash calls on Cancel: local ends the job's process group, redis sets the flag the job checks
        jobs.background_manager().terminate_job(p.pid if backend == "local" else "task-cancel-1")
        p.join(60)  # the job computes for 10 minutes: only the Cancel ends it within this wait
        assert not jobs.pid_alive(p.pid)  # (local: the manager reaps it itself)
        if backend == "redis":
            assert q.get(timeout=60)["error"].startswith("Cancelled")
            assert jobs.status(key)["state"] == "cancelled"
        assert not jobs.has_result(key)
    finally:
        if p.is_alive():
            p.kill()


def test_an_exception_s_message_reaches_the_page(backend, var):
    from modeling.errors import DataError

    key = jobs.result_key("scenario", {"test": "raises"}, "fp")

    def compute(report):
        raise DataError("column 'cycles' has text in row 7")

    out = jobs.run_job(key, compute)
    assert out == {"key": key, "error": "column 'cycles' has text in row 7"}
    assert jobs.status(key)["state"] == "error" and not jobs.job_failed(key)

    def crashes(report):
        return {"ratio": 1 / 0}

    out = jobs.run_job(jobs.result_key("scenario", {"test": "crash"}, "fp"), crashes)
    assert out["error"] == "The job failed: ZeroDivisionError: division by zero"


def test_a_dead_job_is_reported_failed(backend, var):
    """The page's watchdog asks job_failed: a job killed mid-run (its machine lost) is failed, within the
    lease on the redis backend."""
    ctx = mp.get_context("fork")
    key = jobs.result_key("scenario", {"test": "killed"}, "fp")
    q = ctx.Queue()
    p = ctx.Process(target=_run_in_child, args=(key, var / "k.log", 600, q))
    p.start()
    assert until(lambda: _state(key) == "running")
    assert not jobs.job_failed(key)
    os.kill(p.pid, signal.SIGKILL)
    p.join(60)
    assert until(lambda: jobs.job_failed(key), step=0.1)
