"""Redis restarted without persistence mid-job (its data gone: every key of the job, Celery's task state, the
quota tickets) while the job keeps computing on its worker. The page and the job must agree: the page shows the
job running (never "failed", Run not offered) until its result, which then appears; a second tab asking for the
same result meanwhile does not start a second computation. A real Redis without persistence, restarted on its
port; a real Celery worker whose scenario computations are counted and held until the test lets them go on
(counting_worker.py); a gunicorn web server and headless Chromium."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testkit.servers import free_port, stop_group
from conftest import gunicorn_server
from dashboard import jobs
from dashboard.crossgen.kinds import SCENARIO
from pc_browser import fresh_browser
from test_scaleout import LINK, _run_enabled, cluster_env
from testkit.waiting import until

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
LEASE = "10"


class VolatileRedis:
    """redis-server without persistence (``--save '' --appendonly no``) on its own loopback port: a restart
    loses every key."""

    def __init__(self):
        self.port, self.proc = free_port(), None
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

    def start(self):
        import redis

        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)

        def answers():
            try:
                return bool(redis.Redis.from_url(self.url).ping())
            except redis.exceptions.RedisError:
                return False

        assert until(answers, 60, 0.05), "redis-server did not start"

    def restart(self):
        """SIGKILL (nothing is saved, and nothing would be: no persistence) and start again on the same port."""
        stop_group(self.proc)
        self.start()


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A volatile Redis, a counting worker, web server A; this test process reads the same Redis."""
    redis_server = VolatileRedis()
    var = tmp_path_factory.mktemp("lost-var")
    counted, gate = var.parent / "computations.log", var.parent / "go-on"
    # the default lease: on a loaded machine a job's renewal can be late by seconds, and a lease that runs out
    # while its job lives lets a second job take the key over (slow told from dead only by the lease)
    env = {**cluster_env(redis_server.url, var), "PERFCAST_LEASE_SECONDS": LEASE,
           "PERFCAST_TEST_COMPUTE_LOG": str(counted), "PERFCAST_TEST_COMPUTE_GATE": str(gate)}
    mp = pytest.MonkeyPatch()
    for k, v in (("REDIS_URL", redis_server.url), ("LEASE_SECONDS", float(LEASE)), ("VAR_DIR", var)):
        mp.setattr(f"dashboard.settings.{k}", v)
    from dashboard.jobs import backend

    mp.setattr(backend, "_active", None)
    backend.use("redis")
    log = var.parent / "w1.log"
    path = os.pathsep.join([str(HERE), str(ROOT)])
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "counting_worker:celery_app", "worker", "--pool",
                               "prefork", "--concurrency", "2", "--hostname", "w1@%h", "--loglevel", "INFO"],
                              cwd=ROOT, env={**os.environ, **env, "PYTHONPATH": path},
                              stdout=open(log, "ab"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert until(lambda: b" ready." in log.read_bytes() or worker.poll() is not None, 120, 0.2)
        assert worker.poll() is None, log.read_text()[-2000:]
        with gunicorn_server(var, "web-a.log", **env) as a:
            yield {"redis": redis_server, "a": a[0], "log": a[2], "worker_log": log, "counted": counted,
                   "gate": gate}
    finally:
        stop_group(worker)
        stop_group(redis_server.proc)
        mp.undo()


def _computations(service, seed) -> int:
    try:
        lines = service["counted"].read_text().splitlines()
    except FileNotFoundError:
        return 0
    return sum(1 for line in lines if line.split()[-1] == str(seed))


def _result_shown(d) -> bool:
    found = d.find_elements("css selector", "#scenario-best-eout")
    return bool(found) and found[0].text.endswith("%")


def _job_line(d) -> str:
    return d.find_element("id", "scenario-job-status").text


def _state(key):
    try:
        return (jobs.status(key) or {}).get("state")
    except Exception:  # noqa: BLE001 - Redis restarting
        return None


def _beats(key) -> float:
    from dashboard.jobs.distributed import last_beat

    try:
        return last_beat(key) or 0.0
    except Exception:  # noqa: BLE001 - Redis restarting
        return 0.0


def test_a_job_whose_redis_data_is_lost_is_shown_running_until_its_result_and_computed_once(service):
    from dashboard.jobs.distributed import restarted_recently

    key = SCENARIO.request({"dataset": "rodinia", "host": "GTX-680", "target": "Tesla-P100", "preset": "rastsim",
                            "transform": "log", "seed": "51"})["key"]
    link = service["a"] + LINK.format(seed=51)
    d, other = fresh_browser(), None
    try:
        d.get(link)
        assert until(lambda: _computations(service, 51) == 1 and (jobs.status(key) or {}).get("state") == "running",
                     120)
        assert until(lambda: not _run_enabled(d), 30)  # shown running
        service["redis"].restart()  # every key gone; the job goes on computing on its worker
        t0 = time.time()
        other = fresh_browser()  # another tab asks for the same result while the first job computes
        other.get(link)
        seen, grace_over, beats = set(), None, set()
        deadline = t0 + 1800
        while not _result_shown(d):
            if time.time() > deadline:  # a generous deadline for a busy machine: what is checked is the result
                pytest.fail(f"no result on the page after 30 minutes; page said {seen}")
            line = _job_line(d)
            seen.add(line)
            assert "failed" not in line.lower(), f"the page said {line!r} {time.time() - t0:.1f} s after the " \
                                                 "restart while its job was running"
            if _run_enabled(d) and not _result_shown(d):  # Run is offered only once the job is over
                state = _state(key)
                assert state == "done", f"Run offered {time.time() - t0:.1f} s after the restart while the job " \
                                        f"was {state} (the job let go on: {service['gate'].exists()})"
            # the job goes on once Redis's grace for lost leases is over and the page has been watching since (two
            # of its watchdog's beats): the page's state is judged past the point where a lost job is dropped
            if grace_over is None and not restarted_recently():
                grace_over = time.time()
            if grace_over is not None and _beats(key) > grace_over:
                beats.add(_beats(key))
                if len(beats) >= 2:
                    service["gate"].touch()
            time.sleep(0.3)
        print(f"\nredis data lost mid-job -> the result on the page {time.time() - t0:.1f} s later, shown running "
              f"meanwhile ({sorted(seen)})")
        assert until(lambda: _result_shown(other), 120), f"the other tab: {_job_line(other)!r}"
        assert "failed" not in _job_line(other).lower()
        assert _computations(service, 51) == 1, service["counted"].read_text()
        assert jobs.has_result(key)
    finally:
        d.quit()
        if other is not None:
            other.quit()
