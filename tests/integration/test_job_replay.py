"""A job request sent again gets a new job, never the output of an old one.

Dash's job manager, given ``cache_by``, kept every job's output under a key
made of the callback's payload, so a later identical payload (the same link
opened again, the same attempt count) was answered with the old output, and
its new job was killed. The app keeps results in its own cache; the manager
must not replay outputs. Reproduced here: a job stopped as abandoned, then the
same request with a page watching it.
"""

import pytest

from testkit.dash_client import DashClient
from dashboard import jobs
from dashboard.crossgen.kinds import SCENARIO

from conftest import gunicorn_server


@pytest.fixture(scope="module")
def quick_abandon_server(tmp_path_factory):
    with gunicorn_server(tmp_path_factory.mktemp("replay-var"), PERFCAST_JOB_ABANDON_SECONDS="2") as server:
        yield server


def test_the_same_request_again_runs_a_new_job(quick_abandon_server, monkeypatch):
    from collections import OrderedDict

    base, var, _log = quick_abandon_server
    monkeypatch.setattr("dashboard.settings.VAR_DIR", var)
    monkeypatch.setattr("dashboard.jobs.local_results._RESULTS", {})
    monkeypatch.setattr("dashboard.jobs.memo._MEMO", OrderedDict())
    client = DashClient(base)
    client.open("/scenario")
    request = SCENARIO.request({"target": "GTX-970", "preset": "rastsim", "folds": "20", "seed": "21"})
    pending = {**request, "attempt": 0, "cancels": 0}
    first = client.run_background("scenario-job-result.data", {("scenario-pending", "data"): pending},
                                  poll=0.3, limit=120)  # no page watches: it stops itself
    assert first["scenario-job-result"]["data"]["error"].startswith("Stopped: no page has waited")

    def watchdog():
        client.call("scenario-failed.data", {("scenario-watchdog", "n_intervals"): 1,
                                             ("scenario-pending", "data"): pending})

    again = client.run_background("scenario-job-result.data", {("scenario-pending", "data"): pending},
                                  poll=0.3, limit=300, tick=watchdog)
    assert again["scenario-job-result"]["data"] == {"key": request["key"]}  # not the old "Stopped"
    assert jobs.has_result(request["key"]) and jobs.status(request["key"])["state"] == "done"
