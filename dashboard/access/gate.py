"""The gate: a Flask ``before_request`` that runs first for every route of the app. A request without a valid
session reaches only the public endpoints (the sign-in, sign-out, first-start and invitation pages, and ``/assets/*``);
any other is refused before Dash or a page sees it: a page address (GET, not one of Dash's ``/_...`` routes)
is redirected to ``/login?next=<that path>``, anything else (``/_dash-layout``, ``/_dash-dependencies``,
callback POSTs and so every download, ``/_dash-component-suites/...``, ``/static/...``) gets HTTP 401 with a
small JSON body; ``assets/session-expired.js`` sends the page to the sign-in page on such an answer. A
request the gate lets through then has its body limited by who sends it, before anything parses it
(dashboard/access/body_limit.py, the next before_request).

Decisions are made on the endpoint Flask routed the request to, not on the path's text, so an encoded or
doubled path cannot reach a protected endpoint through a public prefix.

Dash's own script bundles and its favicon (:data:`SIGNED_COOKIE_ENOUGH`: the same public library files for
everyone, fingerprinted and cached for a year) need a session cookie whose signature is right, and are not
looked up in the session table: a new browser fetches a dozen of them for its first page, each one a table
lookup before. A stranger without a signed cookie is refused as before; a signed-out or revoked session
can still fetch these library files, and nothing else (the layout, every callback and every page are looked up).
"""

from __future__ import annotations

import logging
from urllib.parse import quote

from flask import g, jsonify, redirect, request

from dashboard.access import proxy, sessions

PUBLIC_ENDPOINTS = frozenset({"perfcast_login", "perfcast_logout", "perfcast_setup", "perfcast_invite",
                              "perfcast_oidc_login",
                              "perfcast_oidc_callback", "_dash_assets.static"})
#: WSGI environ key of the server's own in-process requests (the worker's warm-up in gunicorn.conf.py and
#: dashboard/ui/compression.py): an environ key, which no HTTP request can set (headers arrive as HTTP_*)
INTERNAL = "perfcast.internal"
#: endpoints that serve only the same public library files to everyone (module docstring)
SIGNED_COOKIE_ENOUGH = frozenset({"/_dash-component-suites/<string:package_name>/<path:fingerprinted_path>",
                                  "/_favicon.ico"})
_log = logging.getLogger("perfcast")
_secret: list[str] = []


def set_secret(secret: str) -> None:
    _secret[:] = [secret]


def secret() -> str:
    if not _secret:
        raise RuntimeError("dashboard.access is not installed (no secret key)")
    return _secret[0]


def safe_next(target: str | None) -> str:
    """``target`` when it is a path on this site (``/...``, not ``//host`` or ``/\\host``), else ``/``."""
    if not target or len(target) > 2000 or not target.startswith("/") or target.startswith(("//", "/\\")):
        return "/"
    if any(ord(c) < 32 or c == "\\" for c in target):
        return "/"
    return target


def signed_in_user():
    """The signed-in user of this request (looked up once per request), or None."""
    if "perfcast_user" in g:
        return g.perfcast_user
    from dashboard.settings import SESSION_COOKIE

    g.perfcast_user = None  # (while it is being found: an audit line written meanwhile names nobody)
    user = proxy.signed_in(request)  # a trusted proxy's header, when configured (dashboard/access/proxy.py)
    if user is None:
        session_id = sessions.session_id_of(request.cookies.get(SESSION_COOKIE), secret())
        if session_id:
            user = sessions.lookup(session_id, memberships=True)  # the request's projects come with it
    g.perfcast_user = user
    return user


def _signed_cookie() -> bool:
    """The request carries a session cookie signed with this server's key (not looked up in the table)."""
    from dashboard.settings import SESSION_COOKIE

    return sessions.session_id_of(request.cookies.get(SESSION_COOKIE), secret()) is not None


def check():
    """The before_request hook: None lets the request through; otherwise the refusal."""
    if request.environ.get(INTERNAL) is True:
        return None
    if request.endpoint in PUBLIC_ENDPOINTS:
        return None
    if request.endpoint in SIGNED_COOKIE_ENOUGH and request.method in ("GET", "HEAD") and _signed_cookie():
        return None
    if signed_in_user() is not None:
        return None  # its body's size is checked next (dashboard/access/body_limit.py), before anything parses it
    path = request.full_path if request.query_string else request.path
    if request.method in ("GET", "HEAD") and not request.path.startswith(("/_", "/static/")):
        return redirect("/login?next=" + quote(safe_next(path), safe="/"), code=302)
    response = jsonify(message="Sign in first.", login="/login")
    response.status_code = 401
    response.headers["Cache-Control"] = "no-store"
    return response


def install(server) -> None:
    """Run :func:`check` before every before_request function of ``server`` but Dash's one-time set-up
    (``Dash._setup_server``, which serves nothing: it registers the callbacks' inline scripts, whose hashes the
    Content-Security-Policy of dashboard/security.py is built from on the first response, and the page router,
    which then runs after the gate)."""
    funcs = server.before_request_funcs.setdefault(None, [])
    setup = [i for i, f in enumerate(funcs) if getattr(f, "__name__", "") == "_setup_server"]
    funcs.insert(setup[0] + 1 if setup else 0, check)
