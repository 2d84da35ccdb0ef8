"""Security headers on every response, with a Content-Security-Policy that Dash runs under.

Scripts: only the app's own files and the inline scripts Dash writes into the
page (the renderer start-up and clientside callbacks), admitted by their
hashes (``Dash.csp_hashes``); no other inline script and no ``eval``. Styles
may be inline (plotly and the grids set styles at run time). Images may be
``data:``/``blob:`` URLs (plotly's PNG export). Nothing may frame the app.
"""

from __future__ import annotations

from modeling.parallel import ForkSafeLock

HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


def content_security_policy(script_hashes) -> str:
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'", *script_hashes],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'", *_sign_out_origins()],
        "frame-ancestors": ["'none'"],
    }
    return "; ".join(f"{k} {' '.join(v)}" for k, v in directives.items())


def _sign_out_origins() -> list[str]:
    """The OpenID Connect provider's origin when sign-out continues there (the sign-out form's POST is
    redirected to its end_session_endpoint, and form-action governs that redirect too)."""
    from dashboard.access import oidc

    origin = oidc.sign_out_origin()
    return [origin] if origin else []


ROUTER = "_pages_location"
MAX_ADDRESS = 8192


def router_inputs_ok(body) -> bool:
    """True unless a callback request gives Dash's page router (``_pages_location``) a forged
    address: the pathname must be text starting with "/", the query and hash text or empty.
    The router is Dash's own callback; it would raise on anything else."""
    if not isinstance(body, dict) or not isinstance(body.get("inputs"), list):
        return True  # not a router request, or Dash answers it itself
    for item in body["inputs"]:
        if not isinstance(item, dict) or item.get("id") != ROUTER:
            continue
        value = item.get("value")
        if item.get("property") == "pathname":
            if not isinstance(value, str) or not value.startswith("/") or len(value) > MAX_ADDRESS:
                return False
        elif value is not None and (not isinstance(value, str) or len(value) > MAX_ADDRESS):
            return False
    return True


def callback_request_problem(body, callback_map) -> str | None:
    """What is wrong with a callback request before Dash sees it (Dash answers these with a traceback and
    HTTP 500), or None: not a JSON object, no output, an output no callback has, a forged page address."""
    if not isinstance(body, dict):
        return "a callback request is a JSON object"
    output = body.get("output")
    if not isinstance(output, str) or output not in callback_map:
        return "unknown callback output"
    if not router_inputs_ok(body):
        return "invalid page address"
    return None


def install(app) -> None:
    """Add the headers to every response of ``app`` (a Dash app), and refuse forged router input.

    The policy is built on the first response, and again whenever a clientside
    callback's inline script was registered after it.
    """
    from flask import request

    lock = ForkSafeLock()
    policy: list = []  # [policy text, number of inline scripts it covers]

    @app.server.before_request
    def _router_guard():
        if request.path.endswith("/_dash-update-component") and request.method == "POST":
            try:
                body = request.get_json(silent=True)
            except RecursionError:  # a body nested thousands of levels deep: refused, not a traceback
                return {"message": "the request body is nested too deeply"}, 400
            problem = callback_request_problem(body, app.callback_map)
            if problem:
                return {"message": problem}, 400
        return None

    @app.server.errorhandler(413)
    def _too_large(_exc):  # a body larger than its sender's limit (dashboard/access/body_limit.py)
        from dashboard.access import body_limit

        limit = request.max_content_length or app.server.config.get("MAX_CONTENT_LENGTH") or 0
        return {"message": body_limit.message(limit)}, 413

    def known_scripts() -> int:
        from dash import _callback

        return len(getattr(app, "_inline_scripts", ())) + len(_callback.GLOBAL_INLINE_SCRIPTS)

    @app.server.after_request
    def _headers(response):
        # built again whenever an inline script was registered since (a module a page imports on first use
        # may add a clientside callback after the first response, e.g. a sign-in refusal)
        if not policy or policy[1] != known_scripts():
            with lock:
                if not policy or policy[1] != known_scripts():
                    text = content_security_policy(dict.fromkeys(app.csp_hashes()))
                    policy[:] = [text, known_scripts()]
        response.headers["Content-Security-Policy"] = policy[0]
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response
