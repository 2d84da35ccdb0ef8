"""Redis stops mid-run while a leaderboard's fits are shared out (the redis backend's fan-out): the parent
keeps fitting in its own process, shares the rest out again once Redis answers, and marks the run stopped
even when it ends during the outage, so that no helper queued behind the outage fits a list nobody waits
for; a helper that meets the outage stops instead of failing. A real, persistent redis-server (AOF on) is
stopped and started; the fits are small functions, so the run's timing is the test's."""

import threading
import time

import numpy as np
import pytest

from dashboard.jobs import fanout
from test_redis_outage import PersistentRedis

SPEC = {"project": None, "params": {"dataset": "none"}}


@pytest.fixture()
def redis_aof(tmp_path):
    import redis

    from testkit.servers import stop_group
    from dashboard.jobs import backend

    server = PersistentRedis(tmp_path)
    mp = pytest.MonkeyPatch()
    mp.setattr("dashboard.settings.REDIS_URL", server.url)
    mp.setattr(backend, "_active", None)
    backend.use("redis")
    try:
        yield server, redis.Redis.from_url(server.url)
    finally:
        stop_group(server.proc)
        mp.undo()


def _tasks(models=3, folds=8):
    return [(f"m{i}", k) for i in range(models) for k in range(folds)]


def _fit(model, fold):
    time.sleep(0.05)
    return np.array([float(fold), 1.0 / 3.0]), None, 0.05


def _run_keys(r, suffix):
    return [k.decode() for k in r.keys(f"*:fan:*:{suffix}")]


def test_the_parent_fits_through_an_outage_and_shares_again_when_redis_answers(redis_aof, monkeypatch):
    server, r = redis_aof
    tasks = _tasks(folds=20)  # 60 fits of 50 ms: the run outlives the outage by seconds
    seen, shared_after, helper_sends = [], [], []
    monkeypatch.setattr(fanout, "_send_helpers", lambda fan, n: helper_sends.append(len(seen)) or [])
    run = fanout.runner(SPEC, helpers=2)(tasks, _fit)
    for model, fold, out in run:
        seen.append((model, fold))
        assert out[0][0] == fold  # each fit's own output
        if len(seen) == 4:
            server.stop()
        elif len(seen) == 10:
            server.start()
        elif len(seen) > 12:  # Redis back for a while: what is left (only that) is in the run's list again
            todo = _run_keys(r, "todo")
            shared_after.append((r.llen(todo[0]) if todo else 0, len(tasks) - len(seen)))
    assert sorted(seen) == sorted(tasks) and len(seen) == len(tasks)  # every fit once, none lost
    assert any(0 < listed <= left for listed, left in shared_after), \
        f"after the outage the run never shared out what was left: (listed, left) = {shared_after}"
    (stop,) = _run_keys(r, "stop")
    assert r.get(stop) == b"1"
    assert not _run_keys(r, "todo")
    # helpers sent at the start and, since those that met the outage stopped, a new set after it
    assert len(helper_sends) == 2 and helper_sends[0] == 0 and helper_sends[1] >= 10, helper_sends


def test_a_run_that_ends_during_the_outage_marks_itself_stopped_when_redis_returns(redis_aof):
    server, r = redis_aof
    tasks = _tasks(models=1, folds=6)
    run = fanout.runner(SPEC, helpers=0)(tasks, _fit)
    seen = []
    for model, fold, _out in run:
        seen.append((model, fold))
        if len(seen) == 2:
            server.stop()
            # back 2 s from now: by then the run has fitted the rest here and waits to mark itself stopped
            threading.Timer(2.0, server.start).start()
    assert len(seen) == len(tasks)
    (stop,) = _run_keys(r, "stop")
    assert r.get(stop) == b"1"
    assert not _run_keys(r, "todo")  # a helper queued behind the outage finds nothing to fit


def test_a_helper_that_meets_the_outage_stops_instead_of_failing(redis_aof, monkeypatch):
    server, r = redis_aof
    fan = "f" * 32
    r.set(fanout._k(fan, "spec"), "{}")
    r.rpush(fanout._k(fan, "todo"), "m0|0", "m0|1", "m0|2")

    class Plan:
        def fit(self, model, fold):
            server.stop()  # Redis goes away while the helper fits
            return _fit(model, fold)

    monkeypatch.setattr(fanout, "_plan", lambda spec_json: Plan())
    assert fanout.help_with(fan) == 0  # no exception: the parent fits the rest


def test_sharing_again_leaves_out_a_fit_a_helper_still_holds_and_lists_it_once_its_claim_runs_out(redis_aof):
    """After an outage the parent lists again what is left, but not a fit whose helper fitted through the
    outage and still holds its claim (it would be fitted twice); should that helper die, its claim runs out
    and the lost-fit look lists the fit again."""
    _server, r = redis_aof
    from dashboard.jobs.distributed import client

    fan, c = "e" * 32, client()
    names = [fanout._fit_name("m0", k) for k in range(4)]
    have = {names[0]}  # fitted here during the outage
    r.hset(fanout._k(fan, "done"), names[3], "x")  # a helper's, recorded
    r.set(fanout._k(fan, "claim", names[1]), "helper", px=2000)  # a helper still fitting it
    assert fanout._rejoin(c, fan, SPEC, names, have, 0, [], again=True)
    assert [x.decode() for x in r.lrange(fanout._k(fan, "todo"), 0, -1)] == [names[2]]
    r.delete(fanout._k(fan, "todo"), fanout._k(fan, "claim", names[1]))  # the helper died; its claim ran out
    suspects = {}
    fanout._requeue_lost(c, fan, names, have | {names[2]}, suspects, 1.0)
    fanout._requeue_lost(c, fan, names, have | {names[2]}, suspects, 2.0)
    assert [x.decode() for x in r.lrange(fanout._k(fan, "todo"), 0, -1)] == [names[1]]


def test_a_helpers_record_of_its_fits_expires(redis_aof, monkeypatch):
    """A run whose fits all ran on helpers leaves no record without an expiry (the parent, which also sets
    one, recorded none)."""
    _server, r = redis_aof
    fan = "d" * 32
    r.set(fanout._k(fan, "spec"), "{}")
    r.rpush(fanout._k(fan, "todo"), "m0|0", "m0|1")

    class Plan:
        def fit(self, model, fold):
            return _fit(model, fold)

    monkeypatch.setattr(fanout, "_plan", lambda spec_json: Plan())
    assert fanout.help_with(fan) == 2
    assert r.hlen(fanout._k(fan, "done")) == 2
    assert 0 < r.ttl(fanout._k(fan, "done")) <= fanout.KEEP_SECONDS
