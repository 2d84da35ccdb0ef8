"""Job life cycle as plain functions: one computation per key, abandoned jobs stop, a dead owner hands over."""

import multiprocessing as mp
import os
import signal
import threading
import time


from dashboard import jobs


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


def _run_in_child(key, log_path, seconds, out_q):
    out_q.put(jobs.run_job(key, _slow_compute(log_path, seconds)))


def test_two_users_same_inputs_compute_once(var):
    ctx = mp.get_context("fork")
    log = var / "computed.log"
    q = ctx.Queue()
    procs = [ctx.Process(target=_run_in_child, args=("scenario-same", log, 1.5, q)) for _ in range(2)]
    for p in procs:
        p.start()
    outs = [q.get(timeout=30) for _ in procs]
    for p in procs:
        p.join(10)
    assert outs == [{"key": "scenario-same"}] * 2
    assert len(log.read_text().split()) == 1  # the second job waited for the first one's result
    assert jobs.status("scenario-same")["state"] == "done"


def test_dead_owner_hands_over_to_the_waiting_job(var):
    ctx = mp.get_context("fork")
    log = var / "computed.log"
    q = ctx.Queue()
    owner = ctx.Process(target=_run_in_child, args=("scenario-handover", log, 60, q))
    owner.start()
    deadline = time.time() + 20
    while (jobs.status("scenario-handover") or {}).get("state") != "running" and time.time() < deadline:
        time.sleep(0.05)
    waiter = ctx.Process(target=_run_in_child, args=("scenario-handover", log, 0.3, q))
    waiter.start()
    time.sleep(0.5)
    assert len(log.read_text().split()) == 1  # still waiting for the owner
    os.kill(owner.pid, signal.SIGKILL)
    owner.join(10)
    assert q.get(timeout=30) == {"key": "scenario-handover"}
    waiter.join(10)
    assert jobs.get_result("scenario-handover") == {"by": waiter.pid}
    assert len(log.read_text().split()) == 2


def test_a_job_no_page_watches_stops_itself(var, monkeypatch):
    monkeypatch.setattr("dashboard.settings.JOB_ABANDON_SECONDS", 1.0)
    t0 = time.time()
    out = jobs.run_job("scenario-left", _slow_compute(var / "a.log", 30))
    assert time.time() - t0 < 10
    assert out["error"].startswith("Stopped: no page has waited") and "Run again" in out["error"]
    assert jobs.status("scenario-left")["state"] == "abandoned"
    assert not jobs.job_failed("scenario-left") and not jobs.has_result("scenario-left")


def test_a_watched_job_runs_to_the_end(var, monkeypatch):
    monkeypatch.setattr("dashboard.settings.JOB_ABANDON_SECONDS", 1.0)
    stop = threading.Event()

    def page_ticks():
        while not stop.is_set():
            jobs.beat("scenario-watched")
            time.sleep(0.2)

    t = threading.Thread(target=page_ticks)
    t.start()
    try:
        out = jobs.run_job("scenario-watched", _slow_compute(var / "w.log", 3.0))
    finally:
        stop.set()
        t.join()
    assert out == {"key": "scenario-watched"} and jobs.get_result("scenario-watched") == {"by": os.getpid()}
