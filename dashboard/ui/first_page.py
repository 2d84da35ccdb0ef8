"""The page a link opens, already inside the first layout the browser fetches.

Dash's pages arrive in two steps: the browser fetches the app's layout (an empty page container), its
``dcc.Location`` then reports the address, and the page router (a callback) answers with the page. On a
shared link that second round trip costs 50-110 ms before anything of the page renders. The app's layout
is therefore a function: the request for it (``_dash-layout``) comes from the page itself, whose address
is the request's ``Referer`` (sent in full to the same origin: ``Referrer-Policy: same-origin``). When that
address is this server's and names a page, the container holds the page's layout already, built by the
same page function with the same query parameters the router would pass (each page validates them), and
the ``Location`` holds the address, so it reports nothing on mount and the router stays idle until the
user navigates. Without a usable ``Referer`` (another host, a proxy that rewrites it, a browser that
withholds it) the container is Dash's empty one and the router fills it, as it does everywhere with
``PERFCAST_FIRST_PAGE=router``. The layout response says ``Cache-Control: no-store`` and ``Vary: Referer``:
no cache may hand one page's layout to another.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import dash
from dash import dcc, html
from dash._pages import _parse_query_string, _path_to_page  # noqa: PLC2701 - the router's own parsing
from dash.dash import _ID_CONTENT, _ID_DUMMY, _ID_STORE  # noqa: PLC2701 - the ids of Dash's page container

from dashboard.security import MAX_ADDRESS, ROUTER
from dashboard.settings import FIRST_PAGE

_log = logging.getLogger("perfcast")


def opened_address():
    """(pathname, search, href) of the page asking for the layout, or None (module docstring)."""
    from flask import has_request_context, request

    if not has_request_context():
        return None
    ref = request.headers.get("Referer", "")
    if not ref or len(ref) > MAX_ADDRESS:
        return None
    parts = urlsplit(ref)
    if parts.scheme not in ("http", "https") or parts.netloc != request.host or not parts.path.startswith("/"):
        return None
    return parts.path, f"?{parts.query}" if parts.query else "", ref


def page_container():
    """Dash's page container, holding the opened page when the address is known (module docstring)."""
    opened = opened_address() if FIRST_PAGE != "router" else None
    if opened is None:
        return dash.page_container
    path, search, href = opened
    page, variables = _path_to_page(dash.strip_relative_path(path))
    if not page:
        return dash.page_container  # not a page: the router answers (its 404)
    try:
        layout = page.get("layout", "")
        if callable(layout):
            layout = layout(**{**(variables or {}), **_parse_query_string(search)})
        title = page["title"](**(variables or {})) if callable(page["title"]) else page["title"]
    except Exception:  # the router will meet the same and answer as it does  # noqa: BLE001
        _log.exception("page %s could not be laid out in the first layout", path)
        return dash.page_container
    return html.Div([
        dcc.Location(id=ROUTER, refresh="callback-nav", pathname=path, search=search, hash="", href=href),
        html.Div(layout, id=_ID_CONTENT, disable_n_clicks=True),
        dcc.Store(id=_ID_STORE, data={"title": title}),
        html.Div(id=_ID_DUMMY, disable_n_clicks=True),
    ])


def install(app) -> None:
    """The first layout depends on the page that asks for it: no cache may keep one for another page."""

    @app.server.after_request
    def _not_cached(response):
        from flask import request

        if request.path.endswith("/_dash-layout"):
            response.headers["Cache-Control"] = "no-store"
            response.vary.add("Referer")
        return response
