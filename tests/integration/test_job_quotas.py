"""Fair job slots over HTTP against a live server, the way the page posts Run and the job: a person with two jobs
queued is refused a third, with the message on the page and nothing started; a job store posted directly (no
Run) is refused in its request, before any process exists; Cancel of a queued job gives its place back; a
project at its quota refuses another member's Run."""

import json

from testkit.dash_client import DashClient
from dashboard.access import projects
from dashboard.crossgen.kinds import SCENARIO
from dashboard.jobs.prestart import NO_JOB
from dashboard.jobs.runs import new_run
from tests import signed_in


def _client(base, person, monkeypatch) -> DashClient:
    monkeypatch.setattr("testkit.signin.DEFAULT_ACCOUNT", None)  # no sign-in as the suite's own account
    client = DashClient(base)
    client.http.cookies.set(*person.cookie())
    client.open("/scenario")
    return client


def _run(client, seed: int) -> str:
    """Run on /scenario with a seed of its own (nothing cached): the answer as text."""
    out = client.call("scenario-status.children", {("scenario-run", "n_clicks"): 1, ("scenario-seed", "value"): seed})
    return json.dumps(out)


def test_quotas_refuse_runs_beyond_a_persons_and_a_projects_share(server_state, monkeypatch):
    base, _var, _log = server_state
    alice = signed_in.member("quota-web-alice", "quota-web", "editor")
    bob = signed_in.member("quota-web-bob", "quota-web", "viewer")
    carol = signed_in.member("quota-web-carol", "quota-web", "editor")
    client = _client(base, alice, monkeypatch)
    first = _run(client, 9101)
    assert "scenario-pending" in first and "scenario-pending" in _run(client, 9102)
    third = _run(client, 9103)
    assert "scenario-pending" not in third  # nothing submitted
    assert "You already have 2 jobs running or queued (at most 2 per person)" in third
    assert "a cross-generation training (/scenario) of project 'quota-web', queued" in third
    assert "cancel one on its page" in third
    # the job's store posted without Run is refused by the job itself
    with projects.scope(signed_in.project_id("quota-web")):  # the key of these inputs in Alice's project
        request = SCENARIO.request({"host": "GTX-680", "target": "Tesla-K20", "seed": 9104})
    out = client.run_background("scenario-job-result.data", {("scenario-pending", "data"): {
        **request, "attempt": 1, "cancels": 0}}, poll=0.2, limit=120)
    assert out["scenario-job-result"]["data"]["error"].startswith("Refused: You already have 2 jobs")
    assert client.last_job.startswith(f"{NO_JOB}")  # refused in the request: no process was started
    out = client.run_background("scenario-job-result.data", {("scenario-pending", "data"): {  # a run id of its own
        **request, "attempt": 1, "cancels": 0, "run": new_run()}}, poll=0.2, limit=120)
    assert out["scenario-job-result"]["data"]["error"].startswith("Refused: You already have 2 jobs")
    assert client.last_job.startswith(f"{NO_JOB}")
    # Cancel on the first job's page (still queued: no job process took it) gives its place back
    spec = next(s for s, d in client.deps.items() if s.startswith("scenario-service.children@")
                and d["inputs"][0]["id"] == "scenario-cancel")
    pending = json.loads(first)["scenario-pending"]["data"]
    client._send("callback", "POST", f"/_dash-update-component?endId={client.end_id}", json=client._body(
        client.deps[spec], {("scenario-cancel", "n_clicks"): 1, ("scenario-pending", "data"): pending}))
    assert "scenario-pending" in _run(client, 9103)
    # the project's third job is Bob's; Carol, another member, is refused the fourth
    assert "scenario-pending" in _run(_client(base, bob, monkeypatch), 9105)
    refused = _run(_client(base, carol, monkeypatch), 9106)
    assert "Project 'quota-web' already has 3 jobs running or queued (at most 3 per project)" in refused
    assert "quota-web-alice" not in refused and "quota-web-bob" not in refused
