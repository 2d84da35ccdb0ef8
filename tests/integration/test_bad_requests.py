"""Request bodies that Dash itself would answer with a traceback and HTTP 500 are refused with a message:
a body nested 200,000 levels deep, a callback output no callback has, a body that is not an object or has
no output; a body over the size limit gets a JSON 413, not an HTML page."""

import json

import pytest


@pytest.fixture()
def client(perfcast_app):
    return perfcast_app.server.test_client()


def _post(client, data, **kw):
    return client.post("/_dash-update-component", data=data, content_type="application/json", **kw)


def test_a_deeply_nested_body_is_refused(client):
    depth = 200_000
    r = _post(client, "[" * depth + "]" * depth)
    assert r.status_code == 400 and "nested too deeply" in r.get_json()["message"]


@pytest.mark.parametrize("body, message", [
    ({"output": "no-such-component.children", "inputs": []}, "unknown callback output"),
    ({}, "unknown callback output"),
    ({"output": ["x"]}, "unknown callback output"),
    ([1, 2], "a callback request is a JSON object"),
    ("text", "a callback request is a JSON object"),
])
def test_a_callback_request_dash_cannot_route_is_refused(client, body, message):
    r = _post(client, json.dumps(body))
    assert r.status_code == 400 and r.get_json()["message"] == message


def test_a_known_output_still_reaches_dash(client, perfcast_app):
    output = next(k for k, v in perfcast_app.callback_map.items() if "logca" in k)
    r = _post(client, json.dumps({"output": output, "outputs": [], "inputs": [], "changedPropIds": []}))
    assert r.status_code != 400 or r.get_json().get("message") not in ("unknown callback output",)


def test_a_body_over_the_limit_gets_a_json_413(client, perfcast_app):
    limit = perfcast_app.server.config["MAX_CONTENT_LENGTH"]
    r = client.post("/_dash-update-component", data=b"x" * (limit + 1), content_type="application/json")
    assert r.status_code == 413 and r.is_json and "larger than the server accepts" in r.get_json()["message"]
