"""The callback graph is encoded once and served again (dashboard/ui/callback_graph.py): the same answer as
Dash's own, and a callback registered after an answer is in the next one."""

import json

import pytest
from dash import Dash, Input, Output, html

from dashboard.ui import callback_graph


@pytest.fixture(autouse=True)
def _own_callback_registry(monkeypatch):
    """Dash keeps the callbacks registered with ``dash.callback`` (every page of perfcast's app) in module-level
    registries, and the first app to serve a request moves them all into its own map, taking the background
    callbacks' Cancel inputs with them; and the app made last becomes Dash's current app, whose secret signs
    every background job's handle (a Cancel carries the handle, checked with the serving app's secret). These
    small apps must not take perfcast's place: after them, the app's Cancel buttons stopped no job for the
    rest of the test session. Each test here gets empty registries of its own, and the current app back."""
    import dash._callback as registry
    import dash._get_app as current

    monkeypatch.setattr(current, "APP", current.APP)  # restored after the test
    monkeypatch.setattr(registry, "GLOBAL_CALLBACK_MAP", {})
    monkeypatch.setattr(registry, "GLOBAL_CALLBACK_LIST", [])
    monkeypatch.setattr(registry, "GLOBAL_INLINE_SCRIPTS", [])


def _app():
    app = Dash(__name__)
    app.layout = html.Div([html.Button(id="a"), html.Div(id="b"), html.Div(id="c")])

    @app.callback(Output("b", "children"), Input("a", "n_clicks"))
    def _b(n):
        return n

    return app


def _graph(client):
    r = client.get("/_dash-dependencies")
    assert r.status_code == 200 and r.mimetype == "application/json"
    return r.data


def test_the_kept_graph_is_dashs_own_answer_and_follows_a_new_callback():
    dash_own = _graph(_app().server.test_client())
    app = _app()
    callback_graph.install(app)
    client = app.server.test_client()
    assert _graph(client) == dash_own
    assert _graph(client) == dash_own

    @app.callback(Output("c", "children"), Input("a", "n_clicks"))
    def _c(n):
        return n

    outputs = [d["output"] for d in json.loads(_graph(client))]
    assert sorted(outputs) == ["b.children", "c.children"]


def test_a_graph_is_encoded_once_while_the_callbacks_stay_the_same(monkeypatch):
    import dash.dash

    app = _app()
    callback_graph.install(app)
    client = app.server.test_client()
    _graph(client)  # Dash sets itself up on its first request (its callback list is replaced then)
    encoded = []

    def counted(value):
        encoded.append(1)
        return json.dumps(value)

    monkeypatch.setattr(callback_graph, "to_json", counted)
    monkeypatch.setattr(dash.dash, "to_json", counted)  # Dash's own view encodes with this one
    for _ in range(3):
        _graph(client)
    assert encoded == []
