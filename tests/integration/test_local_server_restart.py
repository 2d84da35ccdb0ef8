"""The local backend's sibling of a Redis restart mid-job: the web server restarts (stopped: its workers, their
fork server and everything else in its session end) while a job computes. The job is a process group in a
session of its own and its state is on disk (the job cache, its status, its quota ticket's lock): it goes on, and
the page, polling through the restarted server, is never told it failed and gets the result. Two gunicorn
servers on one state directory: A takes the Run and is then stopped, B is the server after the restart.
The stop must not wait for the job: a worker's exit once joined the job's process (multiprocessing's exit
handler), so the stop took until the job ended and the job was found done, not running, after it."""

import contextlib

from testkit.dash_client import DashClient
from conftest import gunicorn_server
from dashboard import jobs
from dashboard.crossgen.kinds import SCENARIO
from long_job import save_long_job_dataset


def test_a_local_job_outlives_a_server_restart_and_its_page_gets_the_result(tmp_path_factory, monkeypatch):
    from dashboard.jobs import backend

    var = tmp_path_factory.mktemp("restart-var")
    monkeypatch.setattr("dashboard.settings.VAR_DIR", var)
    # this process reads the job's status from the local backend's files, whatever backend an earlier test
    # of the session chose (in the whole suite it once read another backend and never saw the job running)
    monkeypatch.setattr("dashboard.settings.REDIS_URL", None)
    monkeypatch.setattr(backend, "_active", None)
    backend.use("local")
    params = {**save_long_job_dataset(8_000), "seed": "61"}
    request = SCENARIO.request(params)
    key = request["key"]
    pending = {**request, "attempt": 0, "cancels": 0}
    with contextlib.ExitStack() as first, gunicorn_server(var, "web-b.log") as b:
        a = first.enter_context(gunicorn_server(var, "web-a.log"))
        client_a, client_b = DashClient(a[0]), DashClient(b[0])
        client_a.open("/scenario")
        client_b.open("/scenario")
        stopped_while, failed = [], []

        def tick():
            state = (jobs.status(key) or {}).get("state")
            if not stopped_while and state == "running":
                first.close()  # the server that started the job stops mid-job
                stopped_while.append((jobs.status(key) or {}).get("state"))
            if stopped_while:  # the page's watchdog, through the server after the restart
                got = client_b.call("scenario-failed.data", {("scenario-watchdog", "n_intervals"): 1,
                                                             ("scenario-pending", "data"): pending})
                failed.extend([got] if (got.get("scenario-failed") or {}).get("data") else [])

        got = client_a.run_background("scenario-job-result.data", {("scenario-pending", "data"): pending},
                                      poll=0.5, limit=900, tick=tick, poll_through=client_b)
    assert stopped_while == ["running"], "the job was not running when the server stopped"
    assert failed == [], f"the page was told the job failed: {failed}"
    assert got["scenario-job-result"]["data"] == {"key": key}
    assert jobs.status(key)["state"] == "done" and jobs.has_result(key)
