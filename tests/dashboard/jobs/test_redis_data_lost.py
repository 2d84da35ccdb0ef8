"""Redis loses its data while a job runs (a restart without persistence; here ``FLUSHALL``, the same loss
without the restart): the job takes its leases back within a second and writes again what it had recorded (that
it started, its status, who started it), so the page's poll and watchdog see it running and its starter can still
cancel it; and no second job of the same key takes the key's lock in the moment before the running job has taken
it back."""

import threading
import time

import pytest

from dashboard import jobs
from dashboard.jobs import owners
from dashboard.jobs.runs import new_run
from testkit.waiting import until

KEY = jobs.result_key("scenario", {"test": "redis-data-lost"}, "fp")
KEY_LOCK = jobs.result_key("scenario", {"test": "redis-data-lost-lock"}, "fp")


@pytest.fixture()
def redis_jobs(backend):
    if backend != "redis":
        pytest.skip("the local backend keeps its state on disk")
    from dashboard.jobs import distributed

    return distributed


def test_a_running_job_writes_its_records_again_and_is_not_judged_failed(redis_jobs, var, monkeypatch):
    d = redis_jobs
    run = new_run()
    monkeypatch.setattr("dashboard.jobs.celery_job._task_id", lambda: "task-" + run)  # as in a Celery task
    d.run_submitted(run)
    owners.REDIS.store.write("task-" + run, "user:7")  # as the web server records the job's starter
    d.job_started(run)
    try:
        d.set_status(KEY, "running", run=run)
        d.client().flushall()
        assert until(lambda: d.client().exists(d._k("run", run, "started")) and d.status(KEY) is not None)
        assert owners.REDIS.store.read("task-" + run) == "user:7"  # its starter's Cancel still ends it
        assert d.status(KEY)["state"] == "running" and d.status(KEY)["run"] == run
        assert d.client().exists(d._k("alive", "task-" + run), d._k("started", "task-" + run)) == 2
        assert not d.job_failed(KEY, run)
        manager = d.background_manager()
        monkeypatch.setattr(type(manager).__mro__[1], "job_running", lambda self, job: True)  # Celery: PENDING
        monkeypatch.setattr(d, "restarted_recently", lambda: False)  # long after the loss
        assert manager.job_running("task-" + run)
    finally:
        d.job_ended(run)


def test_no_second_job_takes_the_keys_lock_before_the_running_one_takes_it_back(redis_jobs, var):
    d = redis_jobs
    first = d.KeyLock(KEY_LOCK, on_wait=lambda: None)
    first.__enter__()
    waits, entered = [], threading.Event()

    def second():
        with d.KeyLock(KEY_LOCK, on_wait=lambda: waits.append(time.time())):
            entered.set()

    try:
        d.client().flushall()
        t = threading.Thread(target=second, daemon=True)
        t.start()
        assert until(lambda: len(waits) >= 20 or entered.is_set())  # 5 s of tries: past the fresh data and a renewal
        assert not entered.is_set(), "a second job took the key's lock while the first still computed it"
        assert first.lease.held
    finally:
        first.__exit__(None, None, None)
    assert entered.wait(30)
    t.join(10)
