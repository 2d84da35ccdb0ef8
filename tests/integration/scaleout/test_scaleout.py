"""The redis job backend end to end: Redis, real Celery workers, two gunicorn web servers and headless
Chromium. Run -> result on a worker; Cancel -> "Cancelled" and the worker free again; a worker killed mid-job
-> "failed, run again" with Run enabled, and a restarted worker runs it; a job started through one server is
delivered through the other, and a cached shared link opens from either."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testkit.servers import celery_worker, stop_group
from conftest import gunicorn_server
from dashboard import jobs
from dashboard.crossgen.kinds import SCENARIO
from long_job import query, save_long_job_dataset
from pc_browser import component_prop, fresh_browser, present, text_in, text_with, until
from testkit import waiting

ROOT = Path(__file__).resolve().parents[3]
SECRET = os.environ["PERFCAST_SECRET_KEY"]  # the test session's key (tests/signed_in.py), so its cookie is valid
#: the jobs' liveness lease: long enough that a live job's renewals outlast a loaded machine's stalls (3 s, and
#: the product's default 10 s, ran out with other work loading the machine, load average 19: the page then took
#: the live job for dead); a dead worker's job is reported failed this long after its death
LEASE = "30"


def cluster_env(redis_url, var) -> dict:
    return {"PERFCAST_REDIS_URL": redis_url, "PERFCAST_SECRET_KEY": SECRET, "PERFCAST_VAR_DIR": str(var),
            "PERFCAST_LEASE_SECONDS": LEASE}


class Worker:
    """A Celery worker as ./worker.sh starts it (testkit/servers.py), in a
    process group of its own."""

    def __init__(self, env: dict, name: str, log: Path):
        self.proc = celery_worker({**os.environ, **env}, name, log)

    def kill(self):
        """Machine loss: SIGKILL to the worker and its pool processes at once."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        stop_group(self.proc)


@pytest.fixture(scope="module")
def cluster(redis_server, tmp_path_factory, monkeypatch_module):
    """Redis, worker w1, web servers A and B sharing the var directory and the secret. This test process
    reads the same Redis (the job layer's redis backend)."""
    import redis

    redis.Redis.from_url(redis_server).flushall()
    var = tmp_path_factory.mktemp("cluster-var")
    env = cluster_env(redis_server, var)
    for k, v in (("REDIS_URL", redis_server), ("LEASE_SECONDS", float(LEASE)), ("VAR_DIR", var)):
        monkeypatch_module.setattr(f"dashboard.settings.{k}", v)
    from dashboard.jobs import backend

    monkeypatch_module.setattr(backend, "_active", None)
    backend.use("redis")
    workers = {"w1": Worker(env, "w1", var.parent / "w1.log")}
    with gunicorn_server(var, "web-a.log", **env) as a, gunicorn_server(var, "web-b.log", **env) as b:
        yield {"env": env, "var": var, "a": a[0], "b": b[0], "workers": workers, "logs": (a[2], b[2])}
    for w in workers.values():
        w.stop()


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


# ---------------------------------------------------------------------------------------------- tests

#: the shipped scenario's link (the Redis outage tests run it)
LINK = "/scenario?dataset=rodinia&host=GTX-680&target=Tesla-P100&preset=rastsim&transform=log&seed={seed}"


def _run_enabled(driver):
    return not driver.find_element("id", "scenario-run").get_attribute("disabled")


def test_a_job_runs_on_a_worker_and_cancel_frees_it(cluster):
    d = fresh_browser()
    try:
        d.get(cluster["a"] + "/scenario?target=Tesla-K40&seed=30")  # a quick scenario: run -> result
        present(d, "#scenario-run")[0].click()
        eout = text_in(d, "#scenario-best-eout", 240)
        key = SCENARIO.request({"target": "Tesla-K40", "seed": "30"})["key"]
        st = jobs.status(key)
        assert eout.endswith("%") and st["state"] == "done" and jobs.has_result(key)
        assert st["pid"] in worker_pool(cluster["workers"]["w1"])  # computed on the worker, not a web server

        params = {**save_long_job_dataset(), "seed": "31"}  # a long one: the link starts it
        long_key = SCENARIO.request(params)["key"]
        d.get(cluster["a"] + "/scenario?" + query(params))
        text_in(d, "#scenario-progress-label", 240)
        assert waiting.until(lambda: (jobs.status(long_key) or {}).get("state") == "running", 240)
        t0 = time.time()
        present(d, "#scenario-cancel")[0].click()
        assert "Cancelled" in text_with(d, "#scenario-job-status", "Cancelled", 120)
        assert waiting.until(lambda: jobs.status(long_key)["state"] == "cancelled", 120)  # the job saw the flag
        print(f"\ncancel -> job stopped on the worker: {time.time() - t0:.1f} s")
        assert waiting.until(lambda: _run_enabled(d), 120)
        assert not jobs.has_result(long_key)
        d.get(cluster["a"] + "/scenario?target=Tesla-K20&seed=32")  # the worker is free again
        present(d, "#scenario-run")[0].click()
        assert text_in(d, "#scenario-best-eout", 240).endswith("%")
    finally:
        d.quit()


def worker_pool(worker) -> set[int]:
    import psutil

    return {c.pid for c in psutil.Process(worker.proc.pid).children(recursive=True)}


#: workloads of the job a worker dies in: still running seconds after it starts on any machine (the shipped
#: scenario can end within 2.6 s), short enough to run to its end again on the restarted worker
DYING_JOB_ROWS = 4_000


def _dying_job(seed) -> tuple[str, str]:
    """The link and the result key of a job that runs for seconds (:data:`DYING_JOB_ROWS`)."""
    params = {**save_long_job_dataset(DYING_JOB_ROWS), "seed": str(seed)}
    return "/scenario?" + query(params), SCENARIO.request(params)["key"]


#: the deadline for the job the restarted worker runs again: it took over 10 minutes on 2 cores with load 21
#: from other work and two CPU hogs (seconds on a quiet machine)
RERUN_DEADLINE = 1500


@pytest.mark.timeout(2 * RERUN_DEADLINE)
def test_a_dead_worker_is_reported_failed_and_a_restarted_one_runs_the_job(cluster):
    d = fresh_browser()
    link, key = _dying_job(33)
    try:
        d.get(cluster["a"] + link)
        assert waiting.until(lambda: (jobs.status(key) or {}).get("state") == "running", 240)
        cluster["workers"]["w1"].kill()  # the worker machine is lost mid-job
        status = text_with(d, "#scenario-job-status", "job failed", 240)  # no endless spinner
        assert "Run again" in status
        until(d, lambda: _run_enabled(d))  # Run is enabled again
        w = Worker(cluster["env"], "w1", cluster["var"].parent / "w1-restarted.log")
        cluster["workers"]["w1"] = w
        present(d, "#scenario-run")[0].click()
        assert text_in(d, "#scenario-best-eout", RERUN_DEADLINE).endswith("%")
        assert jobs.status(key)["state"] == "done"
    finally:
        d.quit()


def _watchdog_ticks(d) -> int:
    """How often the page's watchdog has judged the run it shows (its interval's count)."""
    return component_prop(d, "scenario-watchdog", "n_intervals") or 0


@pytest.mark.timeout(2 * RERUN_DEADLINE)
def test_run_again_after_a_dead_worker_is_shown_running_then_done_never_failed(cluster):
    """The dead run's "running" status stays in Redis; the new run (queued until a worker is up again) has its
    own run id and the watchdog judges only that run: it is shown running (the watchdog judging it, tick after
    tick, while no worker is up and then while one runs it) until its result, never "failed"."""
    d = fresh_browser()
    link, key = _dying_job(35)

    def shown_failed() -> bool:
        return "failed" in d.find_element("id", "scenario-job-status").text

    try:
        d.get(cluster["a"] + link)
        assert waiting.until(lambda: (jobs.status(key) or {}).get("state") == "running", 240)
        cluster["workers"]["w1"].kill()
        text_with(d, "#scenario-job-status", "job failed", 240)
        until(d, lambda: _run_enabled(d))
        assert jobs.status(key)["state"] == "running"  # the dead run's status is left behind
        ticks = _watchdog_ticks(d)
        present(d, "#scenario-run")[0].click()  # Run again while no worker is up: the new run waits in the queue
        until(d, lambda: not shown_failed() and not _run_enabled(d))  # shown running
        # two watchdog ticks judge the new run with the dead run's "running" status and no lease in Redis
        until(d, lambda: shown_failed() or _watchdog_ticks(d) >= ticks + 2, 240)
        assert not shown_failed(), "the new run was reported failed while it waited for a worker"
        queued_ticks = _watchdog_ticks(d)
        cluster["workers"]["w1"] = Worker(cluster["env"], "w1", cluster["var"].parent / "w1-again.log")
        until(d, lambda: shown_failed() or bool(d.find_elements("css selector", "#scenario-best-eout")
                                                and d.find_element("id", "scenario-best-eout").text.strip()),
              RERUN_DEADLINE)
        assert not shown_failed(), "the new run was reported failed"
        print(f"\nrun again after a dead worker: {queued_ticks - ticks} watchdog ticks while queued, then the result")
        assert jobs.status(key)["state"] == "done"
    finally:
        d.quit()


def test_two_web_servers_and_two_workers_share_jobs_and_results(cluster):
    from testkit.dash_client import DashClient

    cluster["workers"]["w2"] = Worker(cluster["env"], "w2", cluster["var"].parent / "w2.log")
    request = SCENARIO.request({"target": "GTX-970", "seed": "34"})
    pending = {**request, "attempt": 0, "cancels": 0}
    a, b = DashClient(cluster["a"]), DashClient(cluster["b"])
    a.open("/scenario")
    b.open("/scenario")

    def watchdog():
        b.call("scenario-failed.data", {("scenario-watchdog", "n_intervals"): 1, ("scenario-pending", "data"): pending})

    got = a.run_background("scenario-job-result.data", {("scenario-pending", "data"): pending}, poll=0.3,
                           limit=300, tick=watchdog, poll_through=b)  # started on A, polled through B
    assert got["scenario-job-result"]["data"] == {"key": request["key"]}
    link = "/scenario?target=GTX-970&seed=34"
    values = []
    for base in (cluster["a"], cluster["b"]):  # the cached shared link opens from either server
        d = fresh_browser()
        try:
            d.get(base + link)
            values.append(text_in(d, "#scenario-best-eout", 240))
        finally:
            d.quit()
    assert values[0] == values[1] and values[0].endswith("%")
    assert jobs.status(request["key"])["state"] == "done"


def test_the_web_server_refuses_to_start_without_a_shared_secret(redis_server, tmp_path):
    env = {**os.environ, "PERFCAST_REDIS_URL": redis_server, "PERFCAST_VAR_DIR": str(tmp_path)}
    env.pop("PERFCAST_SECRET_KEY", None)
    r = subprocess.run([sys.executable, "-c", "import app"], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode != 0 and "PERFCAST_SECRET_KEY must be set" in r.stderr


def test_gunicorn_stops_at_once_without_a_shared_secret(redis_server, tmp_path):
    """The master refuses before it forks any worker (it used to start new workers for ever, each failing)."""
    env = {**os.environ, "PERFCAST_REDIS_URL": redis_server, "PERFCAST_VAR_DIR": str(tmp_path)}
    env.pop("PERFCAST_SECRET_KEY", None)
    r = subprocess.run([str(Path(sys.executable).parent / "gunicorn"), "app:server", "-c", "gunicorn.conf.py",
                        "--bind", "127.0.0.1:0"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "PERFCAST_SECRET_KEY must be set" in r.stderr
    assert "Booting worker" not in r.stderr


def test_a_server_with_another_secret_refuses_to_start(redis_url, tmp_path):
    """The first server keeps a digest of its key in Redis; one with another key says why it will not start;
    one with the same key starts."""
    import redis

    def start(key):
        env = {**os.environ, "PERFCAST_REDIS_URL": redis_url, "PERFCAST_VAR_DIR": str(tmp_path),
               "PERFCAST_SECRET_KEY": key}
        return subprocess.run([sys.executable, "-c", "import app"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)

    assert start("key-one").returncode == 0
    stored = redis.Redis.from_url(redis_url).get("perfcast:secret-key-digest")
    assert stored and b"key-one" not in stored  # a digest, never the key
    other = start("key-two")
    assert other.returncode != 0 and "PERFCAST_SECRET_KEY differs" in other.stderr
    assert start("key-one").returncode == 0
