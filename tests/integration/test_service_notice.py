"""A callback that cannot reach the job service (Redis refuses the connection) shows the service notice and
changes nothing else on the page; the notice's check hides it once Redis answers again."""

import json

import pytest

from dashboard.crossgen.kinds import SCENARIO
from dashboard.ui.service_notice import CHECK, NOTICE, TEXT


@pytest.fixture()
def free_port():
    from testkit import servers

    return servers.free_port()


@pytest.fixture()
def redis_backend(monkeypatch):
    from dashboard.jobs import backend

    monkeypatch.setattr(backend, "_active", None)
    backend.use("redis")
    yield monkeypatch
    monkeypatch.setattr(backend, "_active", None)


def _post(client, output, outputs, inputs, state=()):
    body = {"output": output, "outputs": outputs, "inputs": list(inputs), "state": list(state),
            "changedPropIds": [f"{inputs[0]['id']}.{inputs[0]['property']}"]}
    return client.post("/_dash-update-component", data=json.dumps(body), content_type="application/json")


def test_save_while_redis_refuses_shows_the_notice_and_nothing_else(perfcast_app, redis_backend, free_port):
    redis_backend.setattr("dashboard.settings.REDIS_URL", f"redis://127.0.0.1:{free_port}/0")  # nobody listens
    req = SCENARIO.request({"dataset": "rodinia", "host": "GTX-680", "target": "GTX-980", "seed": "987"})
    r = _post(perfcast_app.server.test_client(), "..scenario-save-status.children...scenario-saved-list.children..",
              [{"id": "scenario-save-status", "property": "children"},
               {"id": "scenario-saved-list", "property": "children"}],
              [{"id": "scenario-save", "property": "n_clicks", "value": 1}],
              [{"id": "scenario-ready", "property": "data", "value": req},
               {"id": "scenario-save-name", "property": "value", "value": None}])
    assert r.status_code == 200, r.data[:300]
    body = r.get_json()
    # the notice shows the outage's text (it is also the disk-full notice, so it says which)
    assert body["sideUpdate"] == {NOTICE: {"hidden": False, "children": TEXT}, CHECK: {"disabled": False}}
    assert not body.get("response")  # the save status and the list keep what they show


def test_the_check_hides_the_notice_when_redis_answers(perfcast_app, redis_backend, free_port, redis_url):
    client = perfcast_app.server.test_client()
    args = (f"..{NOTICE}.hidden...{CHECK}.disabled..",
            [{"id": NOTICE, "property": "hidden"}, {"id": CHECK, "property": "disabled"}],
            [{"id": CHECK, "property": "n_intervals", "value": 3}])
    redis_backend.setattr("dashboard.settings.REDIS_URL", f"redis://127.0.0.1:{free_port}/0")
    down = _post(client, *args)
    assert down.status_code == 204 or not down.get_json().get("response")  # still down: nothing changes
    redis_backend.setattr("dashboard.settings.REDIS_URL", redis_url)
    r = _post(client, *args)
    assert r.get_json()["response"] == {NOTICE: {"hidden": True}, CHECK: {"disabled": True}}
