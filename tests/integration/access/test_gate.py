"""Without a session only the sign-in page: every route of the app, enumerated from its URL map, refuses an
anonymous request (pages go to /login, everything else answers 401); share links, downloads (callback POSTs)
and /_dash-layout with a Referer included. Wrong passwords are slowed, limited and logged; sessions expire;
sign-out ends the session."""

import logging
import re
import threading
import time
from datetime import timedelta
from urllib.parse import unquote

import pytest
from flask.testing import FlaskClient
from sqlalchemy import delete, select, update

from dashboard.access import accounts, database
from dashboard.access.gate import PUBLIC_ENDPOINTS
from dashboard.access.models import AuditEvent, LoginFailure, Session, utcnow

ROUTER_BODY = {"output": "_pages_content.children", "outputs": {"id": "_pages_content", "property": "children"},
               "inputs": [{"id": "_pages_location", "property": "pathname", "value": "/scenario"},
                          {"id": "_pages_location", "property": "search", "value": ""}],
               "changedPropIds": ["_pages_location.pathname"], "state": []}
SAMPLE = {"path": "scenario", "filename": "x.js", "package_name": "dash",
          "fingerprinted_path": "dcc/dash_core_components.v4_4_1m1.js"}


def anonymous(app, address="127.0.0.1"):
    """A test client without the test session's cookie, from ``address``."""
    client = FlaskClient(app.server, use_cookies=True)
    client.environ_base["REMOTE_ADDR"] = address
    return client


def refused(r, path):
    """A refusal: a redirect to the sign-in page (with this path as ``next``) or a 401 with JSON."""
    if r.status_code == 302:
        location = r.headers["Location"]
        assert location.startswith("/login?next="), location
        assert unquote(location.split("next=", 1)[1]).startswith(path.split("?")[0])
        return True
    assert r.status_code == 401, (path, r.status_code)
    assert r.is_json and r.get_json()["login"] == "/login"
    assert b"_dash-config" not in r.data and b"perfcast" not in r.data
    return True


def test_every_route_refuses_an_anonymous_request(perfcast_app):
    client = anonymous(perfcast_app)
    rules = list(perfcast_app.server.url_map.iter_rules())
    assert {r.rule for r in rules} >= {"/_dash-layout", "/_dash-dependencies", "/_dash-update-component",
                                       "/_dash-component-suites/<string:package_name>/<path:fingerprinted_path>",
                                       "/", "/<path:path>", "/login", "/setup", "/assets/<path:filename>"}
    checked = 0
    for rule in rules:
        if rule.endpoint in PUBLIC_ENDPOINTS:
            continue
        path = rule.rule
        for arg in rule.arguments:
            path = re.sub(rf"<(?:[^:>]+:)?{arg}>", SAMPLE[arg], path)
        for method in sorted(rule.methods - {"OPTIONS"}):
            r = client.open(path, method=method, json=ROUTER_BODY if method == "POST" else None)
            if method == "HEAD":  # no body: the status alone
                assert r.status_code in (302, 401) and not r.data, (rule, method)
            else:
                assert refused(r, path), (rule, method)
            checked += 1
    assert checked >= 10
    assert {e for e in (r.endpoint for r in rules) if e in PUBLIC_ENDPOINTS} == PUBLIC_ENDPOINTS


@pytest.mark.parametrize("path", ["/", "/scenario", "/scenario?dataset=ds-0123456789abcdef&target=Tesla-K40&seed=3",
                                  "/predict?dataset=ds-0123456789abcdef&model=recommended", "/data",
                                  "/no-such-page", "/features?dataset=x"])
def test_pages_and_share_links_go_to_the_sign_in_page(perfcast_app, path):
    r = anonymous(perfcast_app).get(path)
    assert r.status_code == 302 and refused(r, path)
    assert unquote(r.headers["Location"].split("next=", 1)[1]) == path  # back here after signing in


@pytest.mark.parametrize("headers", [{}, {"Referer": "http://localhost/scenario?target=Tesla-K40"}])
def test_the_layout_and_callbacks_answer_401(perfcast_app, headers):
    client = anonymous(perfcast_app)
    assert refused(client.get("/_dash-layout", headers=headers), "/_dash-layout")
    assert refused(client.get("/_dash-dependencies", headers=headers), "/_dash-dependencies")
    r = client.post("/_dash-update-component", json=ROUTER_BODY, headers=headers)
    assert r.status_code == 401 and refused(r, "/")


def test_a_download_callback_answers_401(perfcast_app):
    """Downloads are callbacks (dcc.Download): every one of them is refused before it runs."""
    deps = perfcast_app.server.test_client().get("/_dash-dependencies").get_json()
    downloads = [d for d in deps if "download" in d["output"]]
    assert downloads
    client = anonymous(perfcast_app)
    for dep in downloads:
        body = {"output": dep["output"], "outputs": {"id": dep["output"].split(".")[0], "property": "data"},
                "inputs": [{"id": i["id"], "property": i["property"], "value": 1} for i in dep["inputs"]],
                "state": [], "changedPropIds": [f"{dep['inputs'][0]['id']}.{dep['inputs'][0]['property']}"]}
        assert client.post("/_dash-update-component", json=body).status_code == 401


def test_the_sign_in_page_is_plain_html_under_the_policy(perfcast_app):
    client = anonymous(perfcast_app)
    r = client.get("/login?next=/scenario%3Ftarget%3D%3Cb%3E")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "<script" not in html and "<b>" not in html and "&lt;b&gt;" in html
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY"
    assert client.get("/assets/style.css").status_code == 200
    for evil in ("//evil.example/x", "/\\evil.example", "https://evil.example", "javascript:alert(1)"):
        page = client.get("/login", query_string={"next": evil}).get_data(as_text=True)
        assert 'name="next" value="/"' in page, evil


@pytest.fixture()
def account(perfcast_app):
    name = f"gate-{time.time_ns() % 10**9}"
    accounts.add_user(name, "correct horse battery")
    yield name
    with database.session() as db:
        db.execute(delete(LoginFailure).where(LoginFailure.address.like("10.%")))


def sign_in(client, name, password="correct horse battery", next_path="/scenario"):
    return client.post("/login", data={"name": name, "password": password, "next": next_path})


def test_signing_in_sets_a_session_cookie_and_goes_back(perfcast_app, account):
    client = anonymous(perfcast_app, "10.0.0.9")
    r = sign_in(client, account, next_path="/scenario?target=Tesla-K40")
    assert r.status_code == 303 and r.headers["Location"] == "/scenario?target=Tesla-K40"
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Max-Age=43200" in cookie
    assert client.get("/_dash-layout").status_code == 200
    assert account in client.get("/_dash-layout").get_data(as_text=True)
    r = sign_in(anonymous(perfcast_app, "10.0.0.9"), account, next_path="//evil.example/")
    assert r.headers["Location"] == "/"


def test_wrong_passwords_are_slowed_limited_and_logged(perfcast_app, account, monkeypatch, caplog):
    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURE_DELAY", 0.3)
    client = anonymous(perfcast_app, "10.0.0.7")
    with caplog.at_level(logging.INFO, logger="perfcast.audit"):
        for _ in range(5):
            t0 = time.perf_counter()
            r = sign_in(client, account, "wrong password 123")
            assert r.status_code == 401 and time.perf_counter() - t0 >= 0.3
            assert "Wrong name or password." in r.get_data(as_text=True)
        r = sign_in(client, account)  # the right password, too late: refused without a check
        assert r.status_code == 429 and "Too many failed sign-ins" in r.get_data(as_text=True)
        r = sign_in(anonymous(perfcast_app, "10.0.0.8"), account)  # the account, from another address
        assert r.status_code == 429
    assert sum(f"audit: sign-in failed from=10.0.0.7 account={account}" in m for m in caplog.messages) == 5
    assert any(f"audit: sign-in throttled from=10.0.0.8 account={account}" in m for m in caplog.messages)
    with database.session() as db:
        rows = db.scalars(select(AuditEvent).where(AuditEvent.action == "sign-in failed",
                                                   AuditEvent.address == "10.0.0.7")).all()
    assert len(rows) >= 5 and rows[-1].detail["account"] == account


def _wrong(client, name):
    r = sign_in(client, name, "wrong password 123")
    assert r.status_code in (401, 429), r.status_code
    return r.status_code


def test_a_stranger_cannot_lock_a_member_out(perfcast_app, account, monkeypatch):
    """A member who signed in from this browser before keeps signing in while a stranger guesses the account's
    password and sprays names from the member's own address (before: 429 for 15 minutes); a new browser at the
    member's place gets in too, one at a new place is throttled."""
    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURE_DELAY", 0)
    member = anonymous(perfcast_app, "10.0.3.1")
    assert sign_in(member, account).status_code == 303
    assert member.get_cookie("perfcast_device", path="/login") is not None
    member.post("/logout")
    stranger = anonymous(perfcast_app, "10.0.3.1")
    for i in range(25):
        _wrong(stranger, f"nobody-{i}")
    for _ in range(6):
        _wrong(anonymous(perfcast_app, "10.0.3.2"), account)
    # a new browser at a new place waits (the account is over its limit for unknown browsers)
    assert sign_in(anonymous(perfcast_app, "10.0.3.9"), account).status_code == 429
    assert sign_in(member, account).status_code == 303  # the member's own browser does not
    # nor does a new browser at the place the member signs in from: limited by that place's own failures
    assert sign_in(anonymous(perfcast_app, "10.0.3.1"), account).status_code == 303


def test_behind_a_trusted_proxy_the_forwarded_address_is_limited(perfcast_app, account, monkeypatch):
    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURE_DELAY", 0)
    monkeypatch.setattr("dashboard.settings.TRUSTED_PROXIES", ["10.0.4.1"])
    proxy = anonymous(perfcast_app, "10.0.4.1")
    for i in range(25):
        proxy.post("/login", data={"name": f"nobody-{i}", "password": "wrong password 123"},
                   headers={"X-Forwarded-For": "10.0.4.66"})
    r = proxy.post("/login", data={"name": "nobody-x", "password": "wrong password 123"},
                   headers={"X-Forwarded-For": "10.0.4.66"})
    assert r.status_code == 429  # the stranger, by the address the proxy forwards
    r = proxy.post("/login", data={"name": account, "password": "correct horse battery", "next": "/"},
                   headers={"X-Forwarded-For": "10.0.4.77"})
    assert r.status_code == 303  # everyone else behind the proxy signs in


def test_an_ipv6_client_is_limited_by_its_slash_64(perfcast_app, account, monkeypatch):
    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURE_DELAY", 0)
    for i in range(20):
        _wrong(anonymous(perfcast_app, f"2001:db8:5:5::{i + 1:x}"), f"nobody-{i}")
    assert _wrong(anonymous(perfcast_app, "2001:db8:5:5:ffff::1"), "nobody-z") == 429


def test_parallel_guesses_get_no_more_password_checks_than_the_limit(perfcast_app, account, monkeypatch):
    from dashboard.access import passwords

    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURE_DELAY", 0)
    monkeypatch.setattr("dashboard.settings.LOGIN_CHECKS_AT_ONCE", 16)
    monkeypatch.setattr("dashboard.settings.LOGIN_WAITING_AT_ONCE", 16)  # all 16 reach the counter at once
    monkeypatch.setattr(passwords, "_SLOTS", {})
    checks, real_verify, start = [], passwords.verify, threading.Barrier(16, timeout=30)

    def counted(stored, password):
        checks.append(1)
        return real_verify(stored, password)

    monkeypatch.setattr(passwords, "verify", counted)

    def guess(i):
        start.wait()
        _wrong(anonymous(perfcast_app, f"10.0.5.{i + 1}"), account)

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert 1 <= len(checks) <= 5


def test_a_burst_of_sign_ins_is_answered_at_once_and_a_members_browser_has_its_own_slot(perfcast_app, account,
                                                                                        monkeypatch):
    from dashboard.access import passwords

    monkeypatch.setattr("dashboard.settings.LOGIN_CHECK_WAIT", 0.2)
    monkeypatch.setattr(passwords, "_SLOTS", {})
    member = anonymous(perfcast_app, "10.0.6.2")
    assert sign_in(member, account).status_code == 303  # this browser now holds the device cookie
    slots = passwords._slots()
    while slots.acquire(blocking=False):  # every slot for unknown browsers taken by a stranger's burst
        pass
    try:
        # answered, not queued on a web thread: the slots stay taken, so a queued sign-in never returns
        answered = []
        stranger = threading.Thread(target=lambda: answered.append(sign_in(anonymous(perfcast_app, "10.0.6.1"),
                                                                           account)), daemon=True)
        stranger.start()
        stranger.join(120)
        assert answered, "the sign-in was queued behind the taken slots instead of answered"
        r = answered[0]
        assert r.status_code == 503 and "busy" in r.get_data(as_text=True)
        assert sign_in(member, account).status_code == 303  # the member's browser has its own slot
    finally:
        passwords._SLOTS.clear()
    assert sign_in(anonymous(perfcast_app, "10.0.6.1"), account).status_code == 303  # the refusal cost nothing


def test_one_sign_in_at_a_time_per_machine_for_unknown_browsers(perfcast_app, account, monkeypatch):
    """Another web process of this machine holds the machine's sign-in slot (a stranger's burst through every
    worker): an unknown browser is answered 503 at once; a member's browser signs in."""
    import fcntl

    from dashboard import settings
    from dashboard.access import passwords

    monkeypatch.setattr("dashboard.settings.LOGIN_CHECK_WAIT", 0.2)
    monkeypatch.setattr(passwords, "_SLOTS", {})
    member = anonymous(perfcast_app, "10.0.7.2")
    assert sign_in(member, account).status_code == 303
    with open(settings.VAR_DIR / "signin.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # held by "another process" (a lock file's flock is per open file)
        assert sign_in(anonymous(perfcast_app, "10.0.7.1"), account).status_code == 503
        assert sign_in(member, account).status_code == 303
    assert sign_in(anonymous(perfcast_app, "10.0.7.1"), account).status_code == 303


def test_unknown_names_and_disabled_accounts_are_refused_alike(perfcast_app, account):
    client = anonymous(perfcast_app, "10.0.0.6")
    assert sign_in(client, "nobody-at-all").status_code == 401
    accounts.set_disabled(account, True)
    r = sign_in(client, account)
    assert r.status_code == 401 and "Wrong name or password." in r.get_data(as_text=True)


def test_a_session_expires(perfcast_app, account):
    client = anonymous(perfcast_app, "10.0.0.5")
    sign_in(client, account)
    assert client.get("/_dash-layout").status_code == 200
    with database.session() as db:
        user_id = accounts.find_user(db, account).id
        db.execute(update(Session).where(Session.user_id == user_id).values(expires=utcnow() - timedelta(seconds=1)))
    assert client.get("/_dash-layout").status_code == 401
    assert client.post("/_dash-update-component", json=ROUTER_BODY).status_code == 401
    assert client.get("/scenario").headers["Location"] == "/login?next=/scenario"


def test_sign_out_ends_the_session_on_the_server(perfcast_app, account):
    client = anonymous(perfcast_app, "10.0.0.4")
    sign_in(client, account)
    stolen = client.get_cookie("perfcast_session").value
    assert client.get("/logout").status_code == 302  # a link cannot sign out; only the form's POST
    assert client.get("/_dash-layout").status_code == 200
    r = client.post("/logout")
    assert r.status_code == 303 and r.headers["Location"] == "/login"
    other = anonymous(perfcast_app, "10.0.0.4")
    other.set_cookie("perfcast_session", stolen)  # the same cookie kept elsewhere is dead too
    assert other.get("/_dash-layout").status_code == 401
