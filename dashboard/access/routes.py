"""``/login``, ``/logout`` and ``/setup``: Flask routes beside Dash's."""

from __future__ import annotations

import time
from urllib.parse import quote

from flask import g, make_response, redirect, request

from dashboard import audit_log, settings
from dashboard.access import accounts, database, first_start, forms, limiter, passwords, sessions
from dashboard.access.gate import safe_next, secret, signed_in_user


def _html(body: str, status: int = 200):
    response = make_response(body, status)
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    response.headers["Cache-Control"] = "no-store"
    return response


def _secure() -> bool:
    return request.scheme == "https" or (settings.SITE_URL or "").lower().startswith("https:")


def _start_session(response, user_id: int) -> None:
    with database.session() as db:
        session_id = sessions.create(db, user_id, settings.SESSION_HOURS, request.remote_addr or "")
    response.set_cookie(settings.SESSION_COOKIE, sessions.cookie_value(session_id, secret()),
                        max_age=int(settings.SESSION_HOURS * 3600), path="/", httponly=True, samesite="Lax",
                        secure=_secure())


def login():
    if request.method == "GET":
        next_path = safe_next(request.args.get("next"))
        if signed_in_user() is not None:
            return redirect(next_path, code=302)
        if not accounts.has_users():
            return _html(forms.notice_page("Sign in", "perfcast has no user yet: open the one-time link the "
                                           "server printed when it started, or run python -m dashboard.admin "
                                           "user add NAME on the server.", "/login", "Reload"))
        return _html(forms.login_page(next_path))
    name = (request.form.get("name") or "").strip()[:64]
    password = request.form.get("password") or ""
    next_path = safe_next(request.form.get("next"))
    address = request.remote_addr or "-"
    if limiter.blocked(name, address):
        audit_log.record("sign-in throttled", address, account=name)
        time.sleep(settings.LOGIN_FAILURE_DELAY)
        minutes = max(1, round(settings.LOGIN_WINDOW_SECONDS / 60))
        return _html(forms.login_page(next_path, name, f"Too many failed sign-ins for this name or from this "
                                      f"address: try again in {minutes} minutes."), 429)
    with database.session() as db:
        user = accounts.find_user(db, name) if name else None
        stored, user_id, disabled = (user.password_hash, user.id, user.disabled) if user else (None, None, True)
    ok = passwords.verify(stored, password) if user else (passwords.dummy_check() or False)
    if not ok or disabled:
        limiter.failed(name, address)
        audit_log.record("sign-in failed", address, account=name, why="disabled" if ok else "wrong password")
        time.sleep(settings.LOGIN_FAILURE_DELAY)
        return _html(forms.login_page(next_path, name, "Wrong name or password."), 401)
    limiter.succeeded(name)
    g.perfcast_user = None
    audit_log.record("signed in", address, account=name)
    response = redirect(next_path, code=303)
    _start_session(response, user_id)
    return response


def logout():
    user = signed_in_user()
    if request.method == "POST" and user is not None:
        sessions.revoke(user.session_digest)
        audit_log.record("signed out")
    if request.method == "GET" and user is not None:  # a link cannot sign anyone out (only the form's POST)
        return redirect("/", code=302)
    response = redirect("/login", code=303)
    response.delete_cookie(settings.SESSION_COOKIE, path="/", httponly=True, samesite="Lax", secure=_secure())
    return response


def setup():
    token = (request.values.get("token") or "")[:200]
    state = first_start.token_state(token)
    if state == "done":
        return _html(forms.notice_page("Set up perfcast", "perfcast is set up already: sign in."), 410)
    if state == "invalid":
        audit_log.record("setup link refused")
        return _html(forms.notice_page("Set up perfcast", "This link is not valid (used, expired or mistyped). "
                                       "Restart the server for a new one, or run python -m dashboard.admin "
                                       "setup-link on the server.", "/setup", "Try again"), 403)
    if request.method == "GET":
        return _html(forms.setup_page(token))
    name = (request.form.get("name") or "").strip()
    display_name = (request.form.get("display_name") or "").strip()
    password = request.form.get("password") or ""
    if password != (request.form.get("again") or ""):
        return _html(forms.setup_page(token, name, display_name, "The two passwords differ."), 400)
    try:
        user = first_start.create_first_owner(token, name, password, display_name)
    except accounts.AccessError as e:
        return _html(forms.setup_page(token, name, display_name, str(e)), 400)
    audit_log.record("first owner created", account=user.name, project=accounts.DEFAULT_PROJECT)
    response = redirect("/", code=303)
    _start_session(response, user.id)
    return response


def install(server) -> None:
    server.add_url_rule("/login", "perfcast_login", login, methods=["GET", "POST"])
    server.add_url_rule("/logout", "perfcast_logout", logout, methods=["GET", "POST"])
    server.add_url_rule("/setup", "perfcast_setup", setup, methods=["GET", "POST"])


def login_url(next_path: str) -> str:
    return "/login?next=" + quote(safe_next(next_path), safe="/")
