"""``/login``, ``/logout``, ``/setup``, and single sign-on's ``/oidc/login`` and ``/oidc/callback``
(dashboard/access/oidc.py): Flask routes beside Dash's."""

from __future__ import annotations

import logging
import time

from flask import g, make_response, redirect, request
from sqlalchemy.exc import SQLAlchemyError

from dashboard import audit_log, settings
from dashboard.access import accounts, database, first_start, forms, limiter, oidc, passwords, proxy, sessions
from dashboard.access.gate import safe_next, secret, signed_in_user
from dashboard.state.files import StorageError, is_disk_full

_log = logging.getLogger("perfcast")


def _html(body: str, status: int = 200):
    response = make_response(body, status)
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    response.headers["Cache-Control"] = "no-store"
    return response


def _secure() -> bool:
    return request.scheme == "https" or (settings.SITE_URL or "").lower().startswith("https:")


def _start_session(response, user_id: int) -> None:
    """A new session for ``user_id`` in ``response``'s cookie; the rest of this request (its "signed in" audit
    event) is in the project the session starts in."""
    from dashboard.access import projects

    with database.session() as db:
        session_id = sessions.create(db, user_id, settings.SESSION_HOURS, audit_log.client_address())
    g.perfcast_project = projects.starting(user_id)
    response.set_cookie(settings.SESSION_COOKIE, sessions.cookie_value(session_id, secret()),
                        max_age=int(settings.SESSION_HOURS * 3600), path="/", httponly=True, samesite="Lax",
                        secure=_secure())


def login():
    if request.method == "GET":
        next_path = safe_next(request.args.get("next"))
        if signed_in_user() is not None:
            return redirect(next_path, code=302)
        if not accounts.has_users() and not oidc.enabled():
            return _html(forms.notice_page("Sign in", "perfcast has no user yet: open the one-time link the "
                                           "server printed when it started, or run python -m dashboard.admin "
                                           "user add NAME on the server.", "/login", "Reload"))
        return _html(_login_page(next_path))
    name = (request.form.get("name") or "").strip()[:64]
    if not settings.PASSWORD_SIGNIN:
        audit_log.record("sign-in failed", account=name, why="password sign-in is off")
        return _html(_login_page(safe_next(request.form.get("next")), message="Sign-in with a password is "
                                 "switched off on this server."), 403)
    password = request.form.get("password") or ""
    next_path = safe_next(request.form.get("next"))
    address = limiter.client_key(request.remote_addr, request.headers.get("X-Forwarded-For"))
    device = limiter.device_of(request.cookies.get(limiter.DEVICE_COOKIE), name, secret())
    new_browser = device is None
    if new_browser and name and limiter.known_client(name, address):  # a new browser where the account signs in
        device = limiter.location_device(address)
    try:  # the whole sign-in (its writes and its password check) in one of the process's few sign-in slots
        if limiter.limited(name, address, device):  # over a limit already: answered without waiting for one
            return _throttled(next_path, name, address)
        with passwords.check_slot(known_device=device is not None):
            return _password_sign_in(name, password, next_path, address, device, new_browser)
    except passwords.Busy:
        response = _html(_login_page(next_path, name, "The server is busy checking other sign-ins: try again in "
                                     "a few seconds."), 503)
        response.headers["Retry-After"] = "5"
        return response


def _password_sign_in(name: str, password: str, next_path: str, address: str, device: str | None,
                      new_browser: bool = True):
    attempt = limiter.begin(name, address, device)
    if attempt is None:
        return _throttled(next_path, name, address)
    with database.session() as db:
        user = accounts.find_user(db, name) if name else None
        stored, user_id, disabled = (user.password_hash, user.id, user.disabled) if user else (None, None, True)
    if device is None:  # a browser that has not signed in to this account: checked below members' requests
        ok = passwords.verify_below_members(stored if user else None, password)
    else:
        ok = passwords.verify(stored, password) if user else (passwords.dummy_check() or False)
    if not ok or disabled:
        limiter.failed(attempt)
        audit_log.record("sign-in failed", address, account=name, why="disabled" if ok else "wrong password")
        time.sleep(settings.LOGIN_FAILURE_DELAY)
        return _html(_login_page(next_path, name, "Wrong name or password."), 401)
    limiter.succeeded(attempt)
    limiter.remember_client(name, address)
    g.perfcast_user = None
    response = redirect(next_path, code=303)
    _start_session(response, user_id)  # first: a sign-in that could not be recorded is not logged as done
    audit_log.record("signed in", address, account=name, method="password")
    if new_browser:
        response.set_cookie(limiter.DEVICE_COOKIE, limiter.device_cookie(name, secret()),
                            max_age=limiter.DEVICE_DAYS * 86400, path="/login", httponly=True, samesite="Strict",
                            secure=_secure())
    return response


def _throttled(next_path: str, name: str, address: str):
    audit_log.record("sign-in throttled", address, account=name)  # answered at once: no thread held
    minutes = max(1, round(settings.LOGIN_WINDOW_SECONDS / 60))
    return _html(_login_page(next_path, name, f"Too many failed sign-ins for this name or from this "
                                  f"address: try again in {minutes} minutes. A browser you have signed "
                                  "in with before, or any browser where you signed in before (the same "
                                  "network address), is not held back by others' failures."), 429)


def _login_page(next_path: str = "/", name: str = "", message: str = "", error: bool = True) -> str:
    return forms.login_page(next_path, name, message, error, password=settings.PASSWORD_SIGNIN,
                            sso=oidc.provider_name() if oidc.enabled() else None)


def _site() -> str:
    """This site's address as browsers see it (``PERFCAST_SITE_URL``, else the request's own, whose Host
    dashboard/request_checks.py has checked), without a trailing slash."""
    return (settings.SITE_URL or request.host_url).rstrip("/")


def logout():
    """Sign out (POST): the session is refused in this process at once, then revoked in the database; the
    answer always clears the browser's cookie. When the database cannot be written (a full disk), the sign-out
    still holds in this browser and in this process, and the page says the server could not record it."""
    user = signed_in_user()
    provider_url = None
    unrecorded = None
    if request.method == "POST" and user is not None:
        if user.session_digest == proxy.DIGEST:  # signed in by the proxy's header: only the proxy signs out
            return _html(forms.notice_page("Sign out", "You are signed in by your organisation's proxy: sign "
                                           "out there.", "/", "Back to perfcast"), 409)
        sessions.refuse_here(user.session_digest, user.expires)
        try:
            sessions.revoke(user.session_digest)
        except (SQLAlchemyError, OSError) as exc:
            _log.error("sign-out of %s not recorded in the database (refused in this process only): %s: %s",
                       user.name, type(exc).__name__, exc)
            unrecorded = exc
        audit_log.record("signed out", **({"recorded": "no"} if unrecorded is not None else {}))
        try:
            if unrecorded is None and oidc.enabled() and _has_subject(user.user_id):
                provider_url = oidc.logout_url(_site() + "/login")
        except SQLAlchemyError:
            _log.exception("sign-out: the account's single sign-on could not be looked up")
    if request.method == "GET" and user is not None:  # a link cannot sign anyone out (only the form's POST)
        return redirect("/", code=302)
    if unrecorded is not None:
        why = "its disk is full" if is_disk_full(unrecorded) else "its database did not answer"
        response = _html(forms.notice_page(
            "Sign out", f"You are signed out in this browser. The server could not record the sign-out ({why}); "
            "tell the administrator. Nothing was lost.", "/login", "Sign in again"), 200)
    else:
        response = redirect(provider_url or "/login", code=303)
    response.delete_cookie(settings.SESSION_COOKIE, path="/", httponly=True, samesite="Lax", secure=_secure())
    return response


#: what did not happen when a request of these endpoints could not write (the rest: "Nothing was changed")
_NOT_DONE = {"perfcast_login": "You are not signed in", "perfcast_oidc_callback": "You are not signed in",
             "perfcast_setup": "perfcast is not set up yet"}


def write_failed(exc: Exception):
    """The error handler of a request whose write found the disk full (the database's or the files'): a page
    (or JSON, for the app's ``/_...`` routes) saying so and what to do, HTTP 503, instead of a traceback and
    a 500. Any other error is raised again (Flask's own 500)."""
    if not is_disk_full(exc):
        raise exc
    _log.error("%s %s: the server's disk is full: %s: %s", request.method, request.path, type(exc).__name__, exc)
    text = (f"{_NOT_DONE.get(request.endpoint or '', 'Nothing was changed')}: the server's disk is full. Nothing "
            "was lost; tell the administrator, then try again.")
    if request.path.startswith("/_"):
        from flask import jsonify

        response = jsonify(message=text)
        response.status_code = 503
        response.headers["Cache-Control"] = "no-store"
    else:
        again = (request.full_path.rstrip("?") if request.method == "GET"
                 else "/login" if request.endpoint in _NOT_DONE else "/")
        response = _html(forms.notice_page("perfcast", text, again, "Try again"), 503)
    response.headers["Retry-After"] = "60"
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


def invite():
    """``/invite?token=...``: an owner's invitation (dashboard/access/invitations.py). GET shows what it offers
    and changes nothing; POST ``action=accept`` (signed in) joins, ``action=create`` creates an account and
    joins; either way the session then works in the project joined."""
    from dashboard.access import invitations, projects

    token = (request.values.get("token") or "")[:200]
    offer = invitations.offer(token)
    if offer is None:
        return _html(forms.notice_page("Join a project", "This invitation is not valid any more (used, expired, "
                                       "withdrawn or mistyped): ask the project's owner for a new one.", "/",
                                       "perfcast"), 404)
    user = signed_in_user()
    signed_in_as = user.name if user is not None else None

    def again(message: str, status: int = 400):
        return _html(forms.invitation_page(token, offer.project, offer.role, offer.invited_by,
                                           signed_in_as=signed_in_as, new_account=settings.PASSWORD_SIGNIN,
                                           name=(request.form.get("name") or "").strip()[:64],
                                           display_name=(request.form.get("display_name") or "").strip()[:200],
                                           message=message), status)

    if request.method == "GET":
        return again("", 200)
    action = request.form.get("action")
    try:
        if action == "accept" and user is not None:
            joined = invitations.accept(token, user.user_id)
            response = redirect("/", code=303)
            if user.session_digest != proxy.DIGEST:
                sessions.set_project(user.session_digest, joined.project_id)
        elif action == "create" and user is None:
            password = request.form.get("password") or ""
            if password != (request.form.get("again") or ""):
                return again("The two passwords differ.")
            joined = invitations.accept_with_new_account(token, request.form.get("name") or "", password,
                                                         (request.form.get("display_name") or "").strip())
            response = redirect("/", code=303)
            _start_session(response, joined.user_id)  # it starts in the project joined (the user's choice)
        else:
            return again("Sign in first, or create an account below." if user is None else "")
    except accounts.AccessError as e:
        return again(str(e))
    g.perfcast_project = projects.Current(joined.project_id, joined.project, joined.role)  # the events' project
    if action == "create":
        audit_log.record("account created", account=joined.user_name, method="invitation")
    audit_log.record("member joined", project=joined.project, member=joined.user_name, role=joined.role,
                     invited_by=joined.invited_by, **({"already": True} if joined.already else {}))
    return response


def change_password():
    """``/password``: the signed-in user changes their own password (the current one checked, in a sign-in
    slot like a sign-in's check); every other session of the account ends."""
    user = signed_in_user()
    if user is None:  # behind the gate: not reached without a session
        return redirect("/login?next=/password", code=302)
    if user.session_digest == proxy.DIGEST:
        return _html(forms.notice_page("Change your password", "You are signed in by your organisation's proxy: "
                                       "its password is not kept here.", "/", "Back"), 400)
    with database.session() as db:
        stored = accounts.find_user(db, user.name).password_hash
    if stored is None:
        return _html(forms.notice_page("Change your password", "This account signs in through single sign-on: "
                                       "change your password there.", "/", "Back"), 400)
    if request.method == "GET":
        return _html(forms.password_page(user.name))
    new = request.form.get("password") or ""
    if new != (request.form.get("again") or ""):
        return _html(forms.password_page(user.name, "The two new passwords differ."), 400)
    try:
        with passwords.check_slot(known_device=True):
            right = passwords.verify(stored, request.form.get("current") or "")
    except passwords.Busy:
        return _html(forms.password_page(user.name, "The server is busy checking sign-ins: try again in a few "
                                         "seconds."), 503)
    if not right:
        audit_log.record("password change refused", account=user.name, why="wrong current password")
        return _html(forms.password_page(user.name, "The current password is not right."), 400)
    try:
        ended = accounts.set_password(user.name, new, keep_session=user.session_digest)
    except accounts.AccessError as e:
        return _html(forms.password_page(user.name, str(e)), 400)
    audit_log.record("password changed", account=user.name, sessions_ended=ended)
    return _html(forms.password_page(user.name, f"Your password is changed. {ended} other session(s) of your "
                                     "account ended; this browser stays signed in.", done=True))


def _has_subject(user_id: int) -> bool:
    from dashboard.access.models import User

    with database.session() as db:
        user = db.get(User, user_id)
        return bool(user and user.oidc_subject)


def _flow_cookie(response, value: str | None) -> None:
    if value is None:
        response.delete_cookie(oidc.flow_cookie(), path=oidc.FLOW_COOKIE_PATH, httponly=True, samesite="Lax",
                               secure=_secure())
    else:
        response.set_cookie(oidc.flow_cookie(), value, max_age=int(settings.OIDC_FLOW_SECONDS),
                            path=oidc.FLOW_COOKIE_PATH, httponly=True, samesite="Lax", secure=_secure())


def oidc_login():
    """Begin a sign-in at the OpenID Connect provider (a redirect to its authorization endpoint)."""
    next_path = safe_next(request.args.get("next"))
    if not oidc.enabled():
        return _html(forms.notice_page("Sign in", "Single sign-on is not configured on this server."), 404)
    if signed_in_user() is not None:
        return redirect(next_path, code=302)
    try:
        url, cookie = oidc.begin(_site() + "/oidc/callback", next_path, request.cookies.get(oidc.flow_cookie()))
    except oidc.SignInError as e:
        audit_log.record("sign-in failed", method="oidc", why=e.why, **e.detail)
        return _html(_login_page(next_path, message=e.message), e.status)
    response = redirect(url, code=302)
    _flow_cookie(response, cookie)
    return response


def oidc_callback():
    """The provider's answer: verify it, find (or create) the account, start a perfcast session."""
    if not oidc.enabled():
        return _html(forms.notice_page("Sign in", "Single sign-on is not configured on this server."), 404)
    cookie = request.cookies.get(oidc.flow_cookie())
    address = audit_log.client_address()
    try:
        claims, next_path = oidc.finish(request.args, cookie)
        user_id, name, created = oidc.user_for(claims)
    except oidc.SignInError as e:
        audit_log.record("sign-in failed", address, method="oidc", why=e.why, **e.detail)
        if e.why in ("provider unreachable", "issuer mismatch"):
            _log.error("OpenID Connect provider %s: %s %s", oidc.issuer(), e.why, e.detail)
        response = _html(_login_page(message=e.message), e.status)
        if e.why != "state mismatch":  # this browser's flow was used (or failed): it cannot be used again
            _flow_cookie(response, _without(cookie, request.args.get("state")))
        return response
    if created:
        audit_log.record("account created", address, method="oidc", account=name,
                         subject=oidc.subject_of(oidc.issuer(), str(claims["sub"])))
    g.perfcast_user = None
    response = redirect(safe_next(next_path), code=303)
    _start_session(response, user_id)
    audit_log.record("signed in", address, account=name, method="oidc")
    _flow_cookie(response, _without(cookie, request.args.get("state")))
    return response


def _without(cookie: str | None, state: str | None) -> str | None:
    """The flow cookie without the flow of ``state`` (None: nothing left, delete it)."""
    rest = [f for f in oidc.pending(cookie) if f.get("state") != state]
    return oidc._serializer().dumps(rest) if rest else None


def install(server) -> None:
    proxy.check_settings()
    server.add_url_rule("/oidc/login", "perfcast_oidc_login", oidc_login, methods=["GET"])
    server.add_url_rule("/oidc/callback", "perfcast_oidc_callback", oidc_callback, methods=["GET"])
    server.add_url_rule("/login", "perfcast_login", login, methods=["GET", "POST"])
    server.add_url_rule("/logout", "perfcast_logout", logout, methods=["GET", "POST"])
    server.add_url_rule("/setup", "perfcast_setup", setup, methods=["GET", "POST"])
    server.add_url_rule("/invite", "perfcast_invite", invite, methods=["GET", "POST"])
    server.add_url_rule("/password", "perfcast_password", change_password, methods=["GET", "POST"])
    for kind in (OSError, SQLAlchemyError, StorageError):
        server.register_error_handler(kind, write_failed)
