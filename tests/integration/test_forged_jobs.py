"""Forged job requests, posted over HTTP the way the page posts them, are refused.

Reproduces two attacks on the job layer: a request whose result key belongs
to other inputs (it used to plant the GTX-980 leaderboard under the
Tesla-K20 link for everyone), and a key that climbs out of var/ (it used to
create a lock file anywhere the server could write).
"""

import json
from pathlib import Path

from testkit.dash_client import DashClient
from dashboard import jobs
from dashboard.crossgen.kinds import SCENARIO, SWEEP

OUTSIDE = Path("/tmp/perfcast-forged-key")


def _job(client, prefix, pending, started=None):
    """The job's answer to ``pending``; ``started=False``: assert it was answered before any process or task
    existed (the job id the server gave is dashboard/jobs/prestart.py's NO_JOB)."""
    from dashboard.jobs.prestart import NO_JOB

    out = client.run_background(f"{prefix}-job-result.data", {(f"{prefix}-pending", "data"): pending},
                                poll=0.2, limit=120)
    if started is False:
        assert client.last_job.startswith(f"{NO_JOB}"), client.last_job
    return out[f"{prefix}-job-result"]["data"]


def test_a_key_of_other_inputs_is_refused(server_state):
    base, _var, _log = server_state
    client = DashClient(base)
    client.open("/scenario")
    k20 = SCENARIO.request({"host": "GTX-680", "target": "Tesla-K20"})
    g980 = SCENARIO.request({"host": "GTX-680", "target": "GTX-980"})
    forged = {"kind": "scenario", "params": g980["params"], "key": k20["key"], "attempt": 1, "cancels": 0}
    answer = _job(client, "scenario", forged, started=False)
    assert answer["error"].startswith("Refused") and "does not match" in answer["error"]
    assert not jobs.has_result(k20["key"]) and jobs.status(k20["key"]) is None
    assert not jobs.has_result(g980["key"])  # nothing was computed for the forger either
    looked_up = client.call("scenario-result.data", {("scenario-request", "data"): forged})
    assert "does not match" in str(looked_up["scenario-job-status"]["children"])
    assert "scenario-pending" not in looked_up  # no job is started from it
    # a request of another kind sent to this page's job is refused too
    sweep = SWEEP.request({})
    assert _job(client, "scenario", {**sweep, "attempt": 1})["error"].startswith("Refused")


def test_a_key_that_climbs_out_of_var_is_refused(server_state):
    base, var, _log = server_state
    client = DashClient(base)
    client.open("/scenario")
    OUTSIDE.with_suffix(".lock").unlink(missing_ok=True)
    params = SCENARIO.request({"target": "GTX-970"})["params"]
    for key in (f"../../../..{OUTSIDE}", "../x", "scenario-" + "0" * 31 + "/", ["x"], {"k": 1}):
        answer = _job(client, "scenario", {"kind": "scenario", "params": params, "key": key}, started=False)
        assert answer["error"].startswith("Refused"), key
        watchdog = client.call("scenario-failed.data", {("scenario-watchdog", "n_intervals"): 1,
                                                        ("scenario-pending", "data"): {"key": key}})
        assert watchdog == {}  # no heartbeat, no status read for a malformed key
    assert not OUTSIDE.with_suffix(".lock").exists()
    locks = var / "jobs" / "keys"
    assert not locks.exists() or all(jobs.keys.KEY.match(p.stem) for p in locks.iterdir())


def test_an_account_in_no_project_starts_no_job(server_state, monkeypatch):
    """Any new single sign-on or proxy account is signed in but a member of no project: it may look, but it
    starts no job (before, it could hold both job slots with the longest settings), neither by Run nor by
    posting the job's store directly."""
    from dashboard.access import accounts, database, sessions
    from tests.signed_in import Person

    base, _var, _log = server_state
    name = "no-project-person"
    with database.session() as db:
        if accounts.find_user(db, name) is None:
            db.add(accounts.User(name=name, display_name="", password_hash=None))
    with database.session() as db:
        session_id = sessions.create(db, accounts.find_user(db, name).id, 1, "tests")
    person = Person(name, "", "", "", session_id)
    monkeypatch.setattr("testkit.signin.DEFAULT_ACCOUNT", None)  # no sign-in as the suite's own account
    client = DashClient(base)
    client.http.cookies.set(*person.cookie())
    client.open("/scenario")
    request = SCENARIO.request({"host": "GTX-680", "target": "Tesla-K20", "seed": 4242})
    out = client.call("scenario-status.children", {("scenario-run", "n_clicks"): 1})
    assert "not a member of any project" in json.dumps(out)
    assert "scenario-pending" not in json.dumps(out)
    answer = _job(client, "scenario", {**request, "attempt": 1, "cancels": 0}, started=False)
    assert answer["error"].startswith("Refused") and "not a member of any project" in answer["error"]
    assert not jobs.has_result(request["key"]) and jobs.status(request["key"]) is None
