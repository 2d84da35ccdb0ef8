"""Cancel and abandonment on the redis backend, with a real Redis and a real Celery worker (prefork pool): a job
whose computation reports no progress for 10 minutes is still stopped by Cancel (its pool process ends and
Celery replaces it; how long that took is printed), its status says so and its slot and key lock are free at
once; an abandoned one stops too."""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from testkit.servers import stop_group as _stop_group
from dashboard import jobs
from dashboard.jobs import owners
from testkit.waiting import until

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
ABANDON = 3.0


@pytest.fixture(scope="module")
def worker(redis_server, tmp_path_factory):
    """One Celery worker (prefork, 2 pool processes) running silent_worker's app; this test process uses the
    same Redis as its job layer."""
    import redis

    redis.Redis.from_url(redis_server).flushall()
    var = tmp_path_factory.mktemp("stop-var")
    log = var.parent / "stop-worker.log"
    env = {**os.environ, "PERFCAST_REDIS_URL": redis_server, "PERFCAST_VAR_DIR": str(var),
           "PERFCAST_LEASE_SECONDS": "3", "PERFCAST_JOB_ABANDON_SECONDS": str(ABANDON),
           "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)])}
    proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "silent_worker:celery_app", "worker", "--pool",
                             "prefork", "--concurrency", "2", "--hostname", "stop@%h", "--loglevel", "INFO"],
                            cwd=ROOT, env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        assert until(lambda: b" ready." in log.read_bytes() or proc.poll() is not None, 120, 0.2), log.read_text()
        assert proc.poll() is None, log.read_text()[-2000:]
        yield {"proc": proc, "url": redis_server, "log": log}
    finally:
        _stop_group(proc)


@pytest.fixture()
def redis_jobs(worker, monkeypatch):
    from cachetools import LRUCache

    from dashboard.jobs import backend

    monkeypatch.setattr("dashboard.settings.REDIS_URL", worker["url"])
    monkeypatch.setattr("dashboard.settings.LEASE_SECONDS", 3.0)
    monkeypatch.setattr("dashboard.jobs.memo._MEMO", LRUCache(maxsize=16))
    monkeypatch.setattr(backend, "_active", None)
    backend.use("redis")
    return worker


def _submit(seconds=60, in_c=False):
    from dashboard.access import projects
    from dashboard.jobs.celery_app import celery_app

    key = jobs.result_key("scenario", {"test": uuid.uuid4().hex}, "fp")
    run = uuid.uuid4().hex
    task = celery_app().send_task("perfcast-tests.silent-job", args=[key, run, projects.current_project().id,
                                                                     seconds, in_c])
    owners.REDIS.record(task.id)  # its starter, as the manager records it when a page starts a job
    return task, key


def _running_process(pid):
    """Is ``pid`` a process still running (a killed one its parent has not reaped yet is not)?"""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _state(key):
    return (jobs.status(key) or {}).get("state")


def _leases():
    from dashboard.jobs.distributed import client

    return sorted(k.decode() for k in client().keys("perfcast:slot:*") + client().keys("perfcast:lock:*"))


def _running(key):
    def watched_and_running():
        jobs.beat(key)  # the page's watchdog
        return _state(key) == "running"

    assert until(watched_and_running, 60), _state(key)
    return jobs.status(key)["pid"]


def test_cancel_interrupts_a_python_job_that_reports_nothing(redis_jobs):
    """A job computing in Python gets the stop exception at its next instruction: it ends as at a progress
    report (its answer reaches the page) and its pool process lives on."""
    task, key = _submit(600)  # 10 minutes: only the Cancel ends it within the wait
    pool_pid = _running(key)
    t0 = time.monotonic()
    jobs.background_manager().terminate_job(task.id)  # what Dash does on Cancel
    assert until(lambda: _state(key) == "cancelled" and task.ready(), 60), _state(key)
    stopped = time.monotonic() - t0
    print(f"\nredis (Python): Cancel -> job ended, status cancelled: {stopped:.2f} s")  # printed: not a bound
    assert task.get(timeout=60)["error"].startswith("Cancelled") and not jobs.has_result(key)
    assert _leases() == [] and psutil.pid_exists(pool_pid)


def test_cancel_kills_a_job_inside_a_long_call_into_c(redis_jobs):
    """A job inside one long call into C (no instruction to raise at): its pool process is killed, its status says
    cancelled, its slot and key lock are free at once, and the worker replaces the process and runs the next."""
    task, key = _submit(600, in_c=True)  # 10 minutes: only the Cancel ends it within the wait
    pool_pid = _running(key)
    assert _leases()
    t0 = time.monotonic()
    jobs.background_manager().terminate_job(task.id)
    assert until(lambda: not _running_process(pool_pid), 60), "the job's pool process still runs"
    stopped = time.monotonic() - t0
    assert until(lambda: not psutil.pid_exists(pool_pid), 60)  # and Celery reaped it
    print(f"\nredis (in C): Cancel -> the job's pool process dead: {stopped:.2f} s, "
          f"reaped by Celery: {time.monotonic() - t0:.2f} s")  # printed: not a bound
    assert _state(key) == "cancelled" and not jobs.has_result(key)
    assert _leases() == []  # not when their lease runs out
    task2, key2 = _submit(0)
    assert until(lambda: _state(key2) == "done", 60), _state(key2)


def test_an_abandoned_job_that_reports_nothing_is_stopped(redis_jobs):
    task, key = _submit(in_c=True)
    pool_pid = _running(key)  # then the page goes away
    assert until(lambda: _state(key) == "abandoned", ABANDON + 15), _state(key)
    assert until(lambda: not _running_process(pool_pid), 60)
    assert not jobs.has_result(key) and _leases() == []
