"""A hostile member against the redis backend (Redis, a real Celery worker, gunicorn), by plain HTTP requests the
way the page sends them: a job request carrying the result key of another project, forged job ids, another
member's signed job handle replayed to cancel their job, and a leaderboard request far over the fan-out's bounds.
Each is answered without a task being queued for the forger and without touching the other member's job."""

import uuid

import pytest

from testkit.dash_client import DashClient
from conftest import gunicorn_server
from dashboard.crossgen.kinds import MAX_FOLDS, SCENARIO
from dashboard.jobs import distributed
from dashboard.jobs.prestart import NO_JOB
from tests.signed_in import member, project_id
from test_scaleout import Worker, cluster_env

URL = "/_dash-update-component"


@pytest.fixture(scope="module")
def service(redis_server, tmp_path_factory):
    import redis

    redis.Redis.from_url(redis_server).flushall()
    var = tmp_path_factory.mktemp("hostile-var")
    env = cluster_env(redis_server, var)
    mp = pytest.MonkeyPatch()
    for k, v in (("REDIS_URL", redis_server), ("VAR_DIR", var)):
        mp.setattr(f"dashboard.settings.{k}", v)
    mp.setattr("testkit.signin.DEFAULT_ACCOUNT", None)  # each client carries its own person's cookie
    worker = Worker(env, "w1", var.parent / "w1.log")
    try:
        with gunicorn_server(var, "web.log", **env) as (base, _var, _log):
            yield base
    finally:
        worker.stop()
        mp.undo()


def _client(base, person) -> DashClient:
    client = DashClient(base)
    client.http.cookies.set(*person.cookie())
    client.open("/scenario")
    return client


def _start(client, pending, params=None):
    """Post the job's start as the page does; returns (the server's answer, the signed job handle or None)."""
    body = client._body(client._dep("scenario-job-result.data"), {("scenario-pending", "data"): pending})
    r = client._send("job-start", "POST", f"{URL}?endId={client.end_id}", params=params or {}, json=body)
    got = r.json()
    return got, got.get("job")


def _pending(raw: dict, project: str) -> dict:
    from dashboard.access import projects

    with projects.scope(project_id(project)):
        request = SCENARIO.request(raw)
    return {**request, "attempt": 1, "cancels": 0, "run": uuid.uuid4().hex}


def test_a_key_of_another_project_and_an_oversize_fan_out_queue_no_task(service):
    alpha = member("walk-alpha", "walk-alpha", "editor")
    client = _client(service, alpha)
    theirs = _pending({"host": "GTX-680", "target": "Tesla-K20", "seed": 5151}, "walk-beta")  # beta's key
    ours = _pending({"host": "GTX-680", "target": "Tesla-K20", "seed": 5151}, "walk-alpha")
    assert theirs["key"] != ours["key"]
    _got, job = _start(client, {**theirs})
    assert job.startswith(f"{NO_JOB}~"), job  # refused before any task existed
    answer = client.run_background("scenario-job-result.data", {("scenario-pending", "data"): theirs}, poll=0.2,
                                   limit=120)
    assert "does not match" in str(answer)
    huge = {**ours, "params": {**ours["params"], "folds": 10_000}, "key": None}
    _got, job = _start(client, huge)
    assert job.startswith(f"{NO_JOB}~"), job
    huge_answer = client.run_background("scenario-job-result.data", {("scenario-pending", "data"): huge},
                                        poll=0.2, limit=120)
    assert "Refused" in str(huge_answer)


def test_forged_and_replayed_job_handles_cancel_nobody_elses_job(service):
    victim = member("walk-victim", "walk-alpha", "editor")
    rival = member("walk-rival", "walk-beta", "editor")
    v = _client(service, victim)
    pending = _pending({"host": "GTX-680", "target": "Tesla-P100", "folds": MAX_FOLDS,
                        "seed": uuid.uuid4().int % 10**6}, "walk-alpha")
    _got, signed = _start(v, pending)
    job = signed.split("~")[0]  # the handle: the job id in clear, then its MAC
    assert job != str(NO_JOB)
    c = distributed.client()
    r = _client(service, rival)
    own = _pending({"host": "GTX-680", "target": "Tesla-K20", "seed": 77}, "walk-beta")
    for forged in (job, f"{job}~{'0' * 64}", str(uuid.uuid4()), "1"):  # forged ids: unsigned or a wrong MAC
        _start(r, own, {"oldJob": forged})
    assert not c.exists(distributed._k("cancel", job))
    # the victim's own page load and handle, replayed from the rival's session
    r.end_id = v.end_id
    _start(r, own, {"oldJob": signed})
    assert not c.exists(distributed._k("cancel", job)), "another member's replayed handle cancelled the job"
    _start(v, pending, {"oldJob": signed})  # the victim's own Cancel still works
    assert c.exists(distributed._k("cancel", job))
