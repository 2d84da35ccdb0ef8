"""One leaderboard over two Celery workers (real Redis, real workers): the fits spread over the workers and
the job, the leaderboard is the one-process run's number for number, progress counts every fit, a stop
revokes what was not started, and a worker killed mid-fit has its fit run again elsewhere."""

import contextlib
import json
import threading
import time

import psutil
import pytest

from testkit.waiting import until

from dashboard.crossgen.kinds import SCENARIO
from dashboard.jobs import fanout
from tests.integration.scaleout.test_scaleout import Worker, cluster_env

LEASE = 3.0


@pytest.fixture(scope="module")
def two_workers(redis_server, tmp_path_factory):
    import redis

    redis.Redis.from_url(redis_server).flushall()
    var = tmp_path_factory.mktemp("fanout-var")
    env = {**cluster_env(redis_server, var), "PERFCAST_LEASE_SECONDS": str(LEASE)}
    mp = pytest.MonkeyPatch()
    for k, v in (("REDIS_URL", redis_server), ("LEASE_SECONDS", LEASE), ("VAR_DIR", var)):
        mp.setattr(f"dashboard.settings.{k}", v)
    from dashboard.jobs import backend

    mp.setattr(backend, "_active", None)
    backend.use("redis")
    workers = {name: Worker(env, name, var.parent / f"{name}.log") for name in ("w1", "w2")}
    try:
        yield {"workers": workers, "redis": redis.Redis.from_url(redis_server)}
    finally:
        for w in workers.values():
            with contextlib.suppress(Exception):
                w.stop()
        mp.undo()


def _helpers_idle() -> bool:
    """Every live worker answers that no helper task runs or waits on it (Celery's own account; a test before may
    have killed one of the two workers for good)."""
    from dashboard.jobs.celery_app import celery_app

    control = celery_app().control
    live = {name for reply in control.ping(timeout=5) or [] for name in reply}
    inspect = control.inspect(timeout=5)
    active, reserved = inspect.active() or {}, inspect.reserved() or {}
    if not live or not live <= set(active) or not live <= set(reserved):
        return False  # a live worker did not answer: nothing known yet
    return not any(task.get("name") == fanout.TASK_NAME for got in (active, reserved)
                   for tasks in got.values() for task in tasks)


def _params(seed=0, preset="rastsim"):
    return SCENARIO.request({"dataset": "rodinia", "host": "GTX-680", "target": "Tesla-P100", "preset": preset,
                             "transform": "log", "seed": str(seed)})["params"]


def _run(params, runner=None, progress=None, n_jobs=1):
    from dashboard.state import datasets
    from modeling.crossgen.ensemble import run_scenario

    scen = datasets.get(params["dataset"]).scenario(params["host"], params["target"], params["metric"])
    return run_scenario(scen, models=params["preset"], cv=params["cv"], folds=params["folds"],
                        transform=params["transform"], seed=params["seed"], n_jobs=n_jobs, progress=progress,
                        fit_runner=runner)


def _numbers(res) -> dict:
    d = res.cli_json(full=True)
    d.pop("seconds", None)
    for m in [*d["models"], *([d["baseline"]] if d.get("baseline") else [])]:
        m.pop("fit_seconds", None)
    return d


def _spec(params):
    from dashboard.access.projects import current_project

    return {"project": current_project().id, "params": dict(params)}


def _workers_pids(worker) -> set[int]:
    main = psutil.Process(worker.proc.pid)
    return {main.pid, *(c.pid for c in main.children(recursive=True))}


def test_the_fits_spread_over_the_workers_and_the_leaderboard_is_the_one_process_one(two_workers):
    assert fanout.enabled()
    params = _params(seed=1)
    alone = _run(params)
    seen = []
    spread = _run(params, fanout.runner(_spec(params)), progress=lambda d, t, label: seen.append((d, t)))
    assert _numbers(spread) == _numbers(alone)
    total = seen[-1][1]
    assert [d for d, _ in seen] == list(range(1, total + 1))  # every fit counted once, wherever it ran
    r = two_workers["redis"]
    done = [k for k in r.scan_iter("perfcast:fan:*:done")]
    assert len(done) == 1
    by = {json.loads(v)["by"].split(":")[1] for v in r.hvals(done[0])}
    pids = {str(p) for w in two_workers["workers"].values() for p in _workers_pids(w)}
    assert by & pids, "no fit ran on a worker"
    assert len(by) >= 2  # the job and at least one worker (usually all of them)
    r.delete(*r.keys("perfcast:fan:*"))


def test_a_stopped_run_leaves_no_fit_to_start(two_workers):
    params = _params(seed=2, preset="halwpe")
    r = two_workers["redis"]

    class Stop(Exception):
        pass

    def progress(done, total, label):
        if done >= 3:
            raise Stop

    with pytest.raises(Stop):
        _run(params, fanout.runner(_spec(params)), progress=progress)
    fan = next(r.scan_iter("perfcast:fan:*:stop")).decode().split(":")[2]
    assert not r.exists(f"perfcast:fan:{fan}:todo")  # nothing left to take
    assert until(_helpers_idle, 120.0, 0.2)  # a helper finishes the fit it was in, then stops
    finished = r.hlen(f"perfcast:fan:{fan}:done")
    assert finished < 16 * 11  # far from all of halwpe's fits: none went on after the stop
    assert not list(r.scan_iter(f"perfcast:fan:{fan}:claim:*"))
    r.delete(*r.keys("perfcast:fan:*"))


def test_a_worker_killed_mid_fit_has_its_fit_run_again_elsewhere(two_workers, caplog):
    params = _params(seed=3)
    r = two_workers["redis"]
    alone = _run(params)
    victim = two_workers["workers"]["w1"]
    pids = {str(p) for p in _workers_pids(victim)}
    killed = threading.Event()

    def kill_when_w1_fits():
        deadline = time.time() + 120
        while time.time() < deadline and not killed.is_set():
            for key in r.scan_iter("perfcast:fan:*:claim:*"):
                holder = (r.get(key) or b"").decode().split(":")
                if len(holder) > 1 and holder[1] in pids:
                    victim.kill()
                    killed.set()
                    return
            time.sleep(0.01)

    watcher = threading.Thread(target=kill_when_w1_fits, daemon=True)
    watcher.start()
    spread = _run(params, fanout.runner(_spec(params)))
    watcher.join(5)
    assert killed.is_set(), "w1 never took a fit"
    assert "was lost with its worker: fitting it again" in caplog.text
    assert _numbers(spread) == _numbers(alone)
    r.delete(*r.keys("perfcast:fan:*"))


def test_cancel_stops_every_helper_even_when_the_parent_cannot_clean_up(two_workers, monkeypatch):
    """Cancel on the page sets the job's flag; the parent job here cannot mark its run stopped (as when its pool's
    watcher kills it inside a long call into C). Every helper watches the parent itself: it stops within a
    poll, the fits left are never run, and a helper that starts after Cancel returns at once."""
    import uuid

    from dashboard.jobs import distributed
    from dashboard.jobs.runner import JobCancelled
    from dashboard.jobs.runs import new_run

    params = _params(seed=3, preset="halwpe")
    r = two_workers["redis"]
    task, run = f"test-parent-{uuid.uuid4().hex}", new_run()
    key = SCENARIO.request({"dataset": "rodinia", "host": "GTX-680", "target": "Tesla-P100", "preset": "halwpe",
                            "seed": "3"})["key"]
    monkeypatch.setattr(fanout, "_stop", lambda *a, **k: None)  # the parent leaves nothing behind
    monkeypatch.setattr(distributed._TASK, "task", task, raising=False)
    distributed.beat(key)

    def progress(done, total, label):
        distributed.beat(key)  # the page is watching
        if done >= 3:
            r.set(distributed._k("cancel", task), "1", ex=600)  # Cancel on the page

    with pytest.raises(JobCancelled):
        with distributed.guard(key, run):
            _run(params, fanout.runner(_spec(params)), progress=progress)
    fan = next(r.scan_iter("perfcast:fan:*:spec")).decode().split(":")[2]
    assert json.loads(r.get(f"perfcast:fan:{fan}:spec"))["parent"]["task"] == task
    # the helpers' fits in progress end (in Python: at the stop exception) and the helpers return
    assert until(lambda: not list(r.scan_iter(f"perfcast:fan:{fan}:claim:*")) and _helpers_idle(), 120.0,
                 0.2)
    finished = r.hlen(f"perfcast:fan:{fan}:done")
    left = r.llen(f"perfcast:fan:{fan}:todo")
    assert left > 0 and finished < 16 * 11  # the list was not emptied by the parent, yet no helper takes from it
    assert fanout.help_with(fan) == 0  # a helper starting now returns at once
    assert r.llen(f"perfcast:fan:{fan}:todo") == left
    r.delete(*r.keys("perfcast:fan:*"))
    monkeypatch.setattr(distributed._TASK, "task", None, raising=False)


def test_cancel_on_the_page_revokes_the_helpers_the_job_sent(two_workers, monkeypatch):
    from dashboard.jobs import distributed, owners

    r = two_workers["redis"]
    r.sadd(distributed._k("helpers", "job-1"), "helper-a", "helper-b")
    revoked = []
    manager = distributed.background_manager()
    monkeypatch.setattr(manager.handle.control, "revoke", lambda ids, **kw: revoked.append(sorted(ids)))
    owners.REDIS.record("job-1")  # its starter, as the manager records it when a page starts a job
    manager.terminate_job("job-1")
    assert revoked == [["helper-a", "helper-b", "job-1"]]
    assert r.exists(distributed._k("cancel", "job-1"))
