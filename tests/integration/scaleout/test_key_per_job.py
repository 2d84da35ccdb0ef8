"""The secret-key agreement is checked for every job, not only when a server starts: a server started while
Redis was down, or one beside a server that recorded its key after Redis lost its data, refuses its jobs with
the reason (its jobs used to run with no project and say 'dataset not found', which looked like data loss)."""

import json
import os

from testkit.dash_client import DashClient
from conftest import gunicorn_server
from dashboard.crossgen.kinds import SCENARIO
from dashboard.jobs import startup_checks

SECRET = os.environ["PERFCAST_SECRET_KEY"]


def test_each_job_compares_the_key_with_the_one_recorded_in_redis(redis_url, monkeypatch):
    import redis

    monkeypatch.setattr("dashboard.settings.REDIS_URL", redis_url)
    monkeypatch.setattr("dashboard.access.gate.secret", lambda: "key-one")
    assert startup_checks.job_key_refusal() is None  # the first to check records its key's digest
    monkeypatch.setattr("dashboard.access.gate.secret", lambda: "key-two")
    refused = startup_checks.job_key_refusal()
    assert refused and refused.startswith("No job is run") and "PERFCAST_SECRET_KEY differs" in refused
    redis.Redis.from_url(redis_url).flushall()  # Redis lost its data: the next server to check records its key
    assert startup_checks.job_key_refusal() is None
    monkeypatch.setattr("dashboard.access.gate.secret", lambda: "key-one")
    assert "differs" in startup_checks.job_key_refusal()
    monkeypatch.setattr("dashboard.settings.REDIS_URL", None)
    assert startup_checks.job_key_refusal() is None  # one machine: nothing to agree on


def test_a_web_server_whose_key_is_not_the_recorded_one_starts_no_job(redis_url, tmp_path):
    import redis

    env = {"PERFCAST_REDIS_URL": redis_url, "PERFCAST_SECRET_KEY": SECRET, "PERFCAST_VAR_DIR": str(tmp_path)}
    with gunicorn_server(tmp_path / "var", "web.log", **env) as (base, _var, _log):
        # Redis lost its data and another server (another key) recorded its digest first
        redis.Redis.from_url(redis_url).set(startup_checks.DIGEST_KEY, startup_checks.key_digest("another key"))
        client = DashClient(base)
        client.open("/scenario")
        request = SCENARIO.request({"host": "GTX-680", "target": "Tesla-K20"})
        names = SCENARIO.names
        out = client.call("scenario-status.children", {("scenario-run", "n_clicks"): 1,
                                                       **{(f"scenario-{n}", "value"): request["params"].get(n)
                                                          for n in names}})
        text = json.dumps(out)
        assert "No job is run" in text and "PERFCAST_SECRET_KEY differs" in text
        assert '"scenario-pending"' not in text
