"""The callback graph (``/_dash-dependencies``) encoded once per worker, not once per request.

Every page load fetches the app's callback graph: about 150 kB of JSON describing every callback's inputs,
outputs and states, the same for every visitor. Dash encodes it again for each request (about 4.5 ms of
server CPU, more than any other request of a cached view but the page itself). Here the encoded text is kept
and served again while the list of callbacks is the same list with the same number of entries; a callback
registered later (Dash replaces the list once when it sets up, and appends to it for ``app.callback``) makes
the next request encode it again. The answer is compressed per request, as every answer
(dashboard/ui/compression.py), and goes through the gate like every Dash route.
"""

from __future__ import annotations

from dash._utils import to_json


def install(app) -> None:
    """Serve ``app``'s ``/_dash-dependencies`` from the kept encoding (module docstring)."""
    endpoint = app.config.routes_pathname_prefix + "_dash-dependencies"
    kept: list = []  # [(id of the callback list, its length), the JSON text]: replaced whole, read whole

    def dependencies():
        callbacks = app._callback_list  # noqa: SLF001 - what Dash's own view encodes
        key = (id(callbacks), len(callbacks))
        entry = kept[:]
        if not entry or entry[0] != key:
            entry = [key, to_json(callbacks)]
            kept[:] = entry
        return app.backend.make_response(entry[1], content_type="application/json")

    app.server.view_functions[endpoint] = dependencies
