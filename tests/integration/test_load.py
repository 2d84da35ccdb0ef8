"""The server under load and faults (QUALITY.md "Load"): gunicorn with the project's settings on loopback.

Runs benchmarks/load.py small (a few scripted users for a few seconds, one
training, a worker killed mid-job, simultaneous saves) and checks the outcomes,
not the timings: those are the benchmark's to report.
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_users_trainings_a_killed_worker_and_simultaneous_saves():
    run = subprocess.run([sys.executable, "benchmarks/load.py", "--users", "6", "--seconds", "8", "--trainings", "1",
                          "--saves", "6", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    res = json.loads(run.stdout)
    assert res["signins"]["signed_in"] == 6, res["signins"]  # six people signing in at the same moment
    assert res["views"] > 0 and res["view_errors"] == 0, res["view_error_examples"]
    assert res["http_5xx"] == 0 and res["http_failed_connections"] == 0 and res["server_tracebacks"] == 0
    assert all(t.get("delivered") for t in res["trainings"]), res["trainings"]
    killed = res["worker_killed_mid_job"]
    assert "kill_missed" not in killed, killed
    assert killed.get("delivered") or killed.get("failure_shown"), killed  # the result arrives, or the page says so
    assert killed["zombies_left"] == []
    save = res["concurrent_save"]
    assert save["answers"] == 6 and not save["failures"] and save["database_locked"] == 0
    assert len(save["ids"]) == 1 and save["files"] == 1 and save["saved_as_new"] == 1 and save["already_saved"] == 5


def test_the_redis_backend_under_load_with_a_worker_killed_mid_job():
    """The same load on the redis job backend: a Redis, two Celery workers, one of them killed (with its
    pool) mid-job: no 5xx, every training delivered, the killed one reported failed, no task delivered twice."""
    run = subprocess.run([sys.executable, "benchmarks/load.py", "--users", "6", "--seconds", "8", "--trainings", "2",
                          "--saves", "4", "--backend", "redis", "--json"], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    res = json.loads(run.stdout)
    assert res["backend"] == "redis" and res["views"] > 0 and res["view_errors"] == 0, res["view_error_examples"]
    assert res["http_5xx"] == 0 and res["http_failed_connections"] == 0 and res["server_tracebacks"] == 0
    assert all(t.get("delivered") for t in res["trainings"]), res["trainings"]
    killed = res["worker_killed_mid_job"]
    assert "kill_missed" not in killed and killed["failure_shown"] and not killed["delivered"], killed
    assert killed["death_to_failed_s"] < 20  # lease 5 s + the watchdog's tick
    # each training thread starts another training until the load's seconds end: one task per training + the
    # killed one
    assert res["tasks_received_twice"] == 0 and res["tasks_received"] == len(res["trainings"]) + 1, res
    save = res["concurrent_save"]
    assert save["answers"] == 4 and not save["failures"] and len(save["ids"]) == 1 and save["files"] == 1
