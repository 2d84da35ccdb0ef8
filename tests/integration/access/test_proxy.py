"""Sign-in by a trusted reverse proxy's header: honoured only when the TCP peer is a configured proxy (never
because of X-Forwarded-For), ignored and logged from anyone else; no cookie is set (every request is signed in
by its own header); a disabled account or an invalid name gets nothing. Against a live gunicorn server (a
client bound to 127.0.0.2 is the untrusted peer) and in-process with the Flask test client."""

import http.client
import time
from urllib.parse import urlsplit

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select

from dashboard.access import accounts, database, proxy
from dashboard.access.models import AuditEvent
from tests.integration.conftest import gunicorn_server
from pc_browser import fresh_browser, present, text_in

HEADER = "X-Forwarded-User"


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    """A server that trusts the proxy at 127.0.0.1 only."""
    with gunicorn_server(tmp_path_factory.mktemp("proxy-var"), PERFCAST_PROXY_USER_HEADER=HEADER,
                         PERFCAST_TRUSTED_PROXIES="127.0.0.1/32, 10.9.0.0/16") as server:
        yield server


def get_from(source: str, base: str, path: str, headers: dict) -> tuple[int, dict]:
    """GET ``path`` over a connection from the local address ``source`` (status, headers)."""
    u = urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        r.read()
        return r.status, dict(r.getheaders())
    finally:
        conn.close()


def name() -> str:
    return f"px{time.time_ns() % 10**9}"


def audit(action, account=None):
    with database.session() as db:
        rows = db.scalars(select(AuditEvent).where(AuditEvent.action == action)).all()
        return [r for r in rows if account is None or r.detail.get("account") == account]


def test_the_header_from_the_trusted_proxy_signs_in_without_a_cookie(proxied):
    base, _var, _log = proxied
    who = name()
    status, headers = get_from("127.0.0.1", base, "/_dash-layout", {HEADER: who})
    assert status == 200
    assert "Set-Cookie" not in headers  # nothing a browser keeps: the next request needs the header again
    assert get_from("127.0.0.1", base, "/_dash-layout", {})[0] == 401
    assert accounts.memberships(who) == {}  # a new account, member of no project
    assert audit("account created", who) and [e.detail["method"] for e in audit("signed in", who)] == ["proxy"]
    status, headers = get_from("127.0.0.1", base, "/scenario", {HEADER: who})
    assert status == 200


def test_the_header_from_any_other_address_is_ignored_and_logged(proxied):
    base, _var, log = proxied
    who = name()
    for headers in ({HEADER: who}, {HEADER: who, "X-Forwarded-For": "127.0.0.1", "X-Real-IP": "127.0.0.1"},
                    {HEADER: who, "Forwarded": "for=10.9.0.1"}):
        assert get_from("127.0.0.2", base, "/_dash-layout", headers)[0] == 401
        status, h = get_from("127.0.0.2", base, "/scenario", headers)
        assert status == 302 and h["Location"].startswith("/login?next=")
    with database.session() as db:
        assert accounts.find_user(db, who) is None  # not even created
    assert "proxy user header X-Forwarded-User from 127.0.0.2 ignored" in log.read_text()
    assert any(e.address == "127.0.0.2" for e in audit("proxy header ignored"))
    # the test session's own cookie still works from there: the header is ignored, not the request refused
    from tests.signed_in import cookie

    c_name, c_value = cookie()
    assert get_from("127.0.0.2", base, "/_dash-layout", {HEADER: who, "Cookie": f"{c_name}={c_value}"})[0] == 200


def test_a_disabled_account_or_an_invalid_name_gets_nothing(proxied):
    base, _var, _log = proxied
    who = name()
    assert get_from("127.0.0.1", base, "/_dash-layout", {HEADER: who})[0] == 200
    accounts.set_disabled(who)
    assert get_from("127.0.0.1", base, "/_dash-layout", {HEADER: who})[0] == 401
    for bad in ("", "-dash", "a b", "x" * 65, "../etc"):
        assert get_from("127.0.0.1", base, "/_dash-layout", {HEADER: bad})[0] == 401, bad


def test_a_browser_behind_the_proxy_sees_the_dashboard_as_its_user(proxied):
    base, _var, _log = proxied
    who = name()
    d = fresh_browser(signed_in=False)
    try:
        d.execute_cdp_cmd("Network.enable", {})
        d.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {HEADER: who}})  # as the proxy adds it
        d.get(base + "/scenario")
        present(d, "#scenario-run", 60)
        assert text_in(d, "#signed-in-user") == who
        assert not [c for c in d.get_cookies() if c["name"].startswith("perfcast_session")]
        d.find_element("id", "signout-button").click()  # only the proxy can sign this browser out: it says so
        assert "sign out there" in text_in(d, "main")
    finally:
        d.quit()


# ---------------------------------------------------------------- in-process (Flask test client)


@pytest.fixture()
def header_settings(monkeypatch):
    monkeypatch.setattr("dashboard.settings.PROXY_USER_HEADER", HEADER)
    monkeypatch.setattr("dashboard.settings.TRUSTED_PROXIES", ["10.0.0.5", "10.1.0.0/24", "fd00::/8"])


def client_from(app, address):
    c = FlaskClient(app.server, use_cookies=False)
    c.environ_base["REMOTE_ADDR"] = address
    return c


def test_trusted_addresses(header_settings):
    assert proxy.trusted("10.0.0.5") and proxy.trusted("10.1.0.200") and proxy.trusted("fd00::1")
    assert proxy.trusted("::ffff:10.0.0.5")  # an IPv4 peer on a dual-stack socket
    for other in ("10.0.0.6", "10.1.1.1", "127.0.0.1", "fe80::1", "", None, "not-an-address", "10.0.0.5, 1.2.3.4"):
        assert not proxy.trusted(other), other


def test_bad_proxy_settings_stop_the_server(monkeypatch):
    monkeypatch.setattr("dashboard.settings.PROXY_USER_HEADER", HEADER)
    monkeypatch.setattr("dashboard.settings.TRUSTED_PROXIES", [])
    with pytest.raises(SystemExit, match="PERFCAST_TRUSTED_PROXIES is empty"):
        proxy.check_settings()
    monkeypatch.setattr("dashboard.settings.TRUSTED_PROXIES", ["10.0.0.0/33"])
    with pytest.raises(SystemExit, match="not an address or CIDR"):
        proxy.check_settings()
    monkeypatch.setattr("dashboard.settings.PROXY_USER_HEADER", None)
    proxy.check_settings()  # no header: nothing to check


def test_in_process_only_the_peer_address_counts(perfcast_app, header_settings, monkeypatch):
    who = name()
    assert client_from(perfcast_app, "10.0.0.5").get("/_dash-layout", headers={HEADER: who}).status_code == 200
    spoofed = {HEADER: who, "X-Forwarded-For": "10.0.0.5"}
    assert client_from(perfcast_app, "192.0.2.7").get("/_dash-layout", headers=spoofed).status_code == 401
    assert client_from(perfcast_app, "10.0.0.5").get("/_dash-layout").status_code == 401  # no header: no one
    monkeypatch.setattr("dashboard.settings.PROXY_CREATE_USERS", False)
    stranger = name()
    assert client_from(perfcast_app, "10.0.0.5").get("/_dash-layout", headers={HEADER: stranger}).status_code == 401
    assert [e.detail["why"] for e in audit("sign-in failed", stranger)] == ["no such account"]
    assert client_from(perfcast_app, "10.0.0.5").get("/_dash-layout", headers={HEADER: who}).status_code == 200


def test_a_background_job_names_the_proxy_user_in_its_audit_lines(perfcast_app, header_settings):
    """A job runs after its request is over: Dash hands it the request's headers and peer address, and the
    audit trail names the user the trusted proxy's header named (and nobody for an untrusted peer)."""
    from dash._callback_context import context_value
    from dash._utils import AttributeDict

    from dashboard.access import audit_events

    who = name()
    assert client_from(perfcast_app, "10.0.0.5").get("/_dash-layout", headers={HEADER: who}).status_code == 200
    token = context_value.set(AttributeDict(cookies={}, headers={HEADER: who}, remote="10.0.0.5"))
    try:
        assert audit_events.user_name() == who
        context_value.set(AttributeDict(cookies={}, headers={HEADER.lower(): who}, remote="10.0.0.5"))
        assert audit_events.user_name() == who
        context_value.set(AttributeDict(cookies={}, headers={HEADER: who}, remote="192.0.2.1"))
        assert audit_events.user_name() is None
        context_value.set(AttributeDict(cookies={}, headers={HEADER: "nobody-" + who}, remote="10.0.0.5"))
        assert audit_events.user_name() is None
    finally:
        context_value.reset(token)
