"""Forged job requests, posted over HTTP the way the page posts them, are refused.

Reproduces two attacks on the job layer: a request whose result key belongs
to other inputs (it used to plant the GTX-980 leaderboard under the
Tesla-K20 link for everyone), and a key that climbs out of var/ (it used to
create a lock file anywhere the server could write).
"""

from pathlib import Path

from benchmarks.dash_client import DashClient
from dashboard import jobs
from dashboard.crossgen.kinds import SCENARIO, SWEEP

OUTSIDE = Path("/tmp/perfcast-forged-key")


def _job(client, prefix, pending):
    out = client.run_background(f"{prefix}-job-result.data", {(f"{prefix}-pending", "data"): pending},
                                poll=0.2, limit=120)
    return out[f"{prefix}-job-result"]["data"]


def test_a_key_of_other_inputs_is_refused(server_state):
    base, _var, _log = server_state
    client = DashClient(base)
    client.open("/scenario")
    k20 = SCENARIO.request({"host": "GTX-680", "target": "Tesla-K20"})
    g980 = SCENARIO.request({"host": "GTX-680", "target": "GTX-980"})
    forged = {"kind": "scenario", "params": g980["params"], "key": k20["key"], "attempt": 1, "cancels": 0}
    answer = _job(client, "scenario", forged)
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
        answer = _job(client, "scenario", {"kind": "scenario", "params": params, "key": key})
        assert answer["error"].startswith("Refused"), key
        watchdog = client.call("scenario-failed.data", {("scenario-watchdog", "n_intervals"): 1,
                                                        ("scenario-pending", "data"): {"key": key}})
        assert watchdog == {}  # no heartbeat, no status read for a malformed key
    assert not OUTSIDE.with_suffix(".lock").exists()
    locks = var / "jobs" / "keys"
    assert not locks.exists() or all(jobs.keys.KEY.match(p.stem) for p in locks.iterdir())
