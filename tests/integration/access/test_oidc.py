"""Single sign-on against a real OpenID Connect provider (panva's certified oidc-provider, tests/oidc/) and a
real gunicorn server: a browser signs in through the provider and reaches the dashboard, signs out (perfcast's
session ends and the provider's too), and is sent back to the sign-in page when its session is revoked; a
callback that this browser did not begin (forged, another browser's, a replay) is refused before anything is
sent to the provider, and is in the audit trail."""

import time
from unittest import mock

import pytest
import requests
from sqlalchemy import select

from dashboard.access import accounts, database, sessions
from dashboard.access.models import AuditEvent, User
from tests.integration.conftest import gunicorn_server
from tests.oidc.provider import free_port, running, sign_in_at_provider
from pc_browser import fresh_browser, present, text_in


@pytest.fixture(scope="module")
def sso(tmp_path_factory):
    """A provider and a perfcast server that signs in through it: yields (perfcast base URL, provider)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    logs = tmp_path_factory.mktemp("oidc")
    with running(base, logs / "provider.log") as provider, \
            mock.patch("testkit.servers.free_port", return_value=port), \
            gunicorn_server(tmp_path_factory.mktemp("oidc-var"), **provider.env()) as (server, _var, log):
        assert server == base
        yield base, provider, log


def login_name() -> str:
    return f"sso{time.time_ns() % 10**9}"


def audit(action, since):
    with database.session() as db:
        return [(e.user_name, e.detail) for e in db.scalars(select(AuditEvent).where(AuditEvent.action == action,
                                                                                   AuditEvent.id > since))]


def last_audit_id():
    with database.session() as db:
        return db.scalar(select(AuditEvent.id).order_by(AuditEvent.id.desc()).limit(1)) or 0


def browser_sign_in(d, base, login):
    d.get(base + "/scenario")
    present(d, "#signin-sso")
    assert "/login?next=/scenario" in d.current_url
    assert d.find_element("id", "signin-sso").text == "Sign in with Test IdP"
    d.find_element("id", "signin-sso").click()
    present(d, "input[name=login]")  # the provider's own sign-in form
    d.find_element("css selector", "input[name=login]").send_keys(login)
    d.find_element("css selector", "input[name=password]").send_keys("anything")
    d.find_element("css selector", "button[type=submit]").click()
    present(d, "#scenario-run", 60)
    assert d.current_url.startswith(base + "/scenario")


def test_a_browser_signs_in_through_the_provider_and_signs_out_of_both(sso):
    base, provider, _log = sso
    login = login_name()
    since = last_audit_id()
    d = fresh_browser(signed_in=False)
    try:
        browser_sign_in(d, base, login)
        assert text_in(d, "#signed-in-user") == f"{login[0].upper()}{login[1:]} Example"  # the name claim
        with database.session() as db:
            user = db.scalar(select(User).where(User.name == login))
            assert user.oidc_subject == f"{provider.issuer}#{login}" and user.password_hash is None
        assert accounts.memberships(login) == {}  # created a member of no project: an owner adds them
        assert any(e["method"] == "oidc" and e["account"] == login for _u, e in audit("signed in", since))
        assert audit("account created", since)

        d.find_element("id", "signout-button").click()
        yes = present(d, "button[value=yes]", 30)[0]  # the provider's end-session page: sign out there too
        yes.click()
        present(d, "#signin-sso", 30)  # back on perfcast's sign-in page (the post-logout redirect URI)
        assert d.current_url.startswith(base + "/login")
        assert [u for u, _ in audit("signed out", since)] == [login]
        d.get(base + "/scenario")
        present(d, "#signin-sso")  # perfcast's session is gone
        d.find_element("id", "signin-sso").click()
        present(d, "input[name=login]")  # and so is the provider's: it asks who you are again
    finally:
        d.quit()


def test_a_revoked_single_sign_on_session_is_sent_back_to_sign_in(sso):
    base, _provider, _log = sso
    login = login_name()
    d = fresh_browser(signed_in=False)
    try:
        browser_sign_in(d, base, login)
        assert sessions.revoke_user(login) == 1  # python -m dashboard.admin session revoke USER
        nav = d.find_elements("css selector", "#nav-features")
        if nav:
            try:
                nav[0].click()  # the router's callback: answered 401, assets/session-expired.js goes to /login
            except Exception:  # noqa: BLE001 - the page is leaving for /login under the click
                pass
        present(d, "#signin-sso", 30)
        assert "/login?next=" in d.current_url
        d.get(base + "/scenario")
        present(d, "#signin-sso")
    finally:
        d.quit()


def test_a_callback_this_browser_did_not_begin_is_refused(sso):
    base, _provider, _log = sso
    since = last_audit_id()
    # forged: a code and state out of nowhere, no flow cookie
    r = requests.get(base + "/oidc/callback?code=forged&state=forged", allow_redirects=False, timeout=30)
    assert r.status_code == 400 and "not started in this browser" in r.text
    assert "Set-Cookie" not in r.headers or "perfcast_session=" not in r.headers["Set-Cookie"]

    # a real sign-in begun by the attacker's browser, its callback sent to the victim (login CSRF)
    attacker = requests.Session()
    callback = sign_in_at_provider(attacker, base + "/oidc/login?next=/data", base + "/oidc/callback", "mallory")
    assert "code=" in callback and "state=" in callback
    victim = requests.Session()
    r = victim.get(callback, allow_redirects=False, timeout=30)
    assert r.status_code == 400 and not victim.cookies.get("perfcast_session")
    assert victim.get(base + "/_dash-layout", timeout=30).status_code == 401

    # the attacker's browser with a wrong state: refused, and its own flow is left alone
    kept = dict(attacker.cookies)
    r = attacker.get(callback.replace("state=", "state=x"), allow_redirects=False, timeout=30)
    assert r.status_code == 400
    # the attacker's own browser signs in with it; a replay with a copy of the flow cookie taken before is
    # refused by the provider (a code is used once), and the used flow is gone from the browser's cookie
    r = attacker.get(callback, allow_redirects=False, timeout=30)
    assert r.status_code == 303 and r.headers["Location"] == "/data"
    assert attacker.get(base + "/_dash-layout", timeout=30).status_code == 200
    again = requests.Session()
    again.cookies.update(kept)
    r = again.get(callback, allow_redirects=False, timeout=30)
    assert r.status_code == 401 and not again.cookies.get("perfcast_session")
    assert attacker.get(callback, allow_redirects=False, timeout=30).status_code == 400

    whys = [d["why"] for _u, d in audit("sign-in failed", since)]
    assert whys.count("state mismatch") >= 3 and "token refused" in whys, whys


def test_the_sign_in_page_offers_the_provider_and_passwords(sso):
    base, _provider, _log = sso
    r = requests.get(base + "/login?next=/predict", timeout=30)
    page = r.text
    # sign-out's form POST is redirected to the provider's end_session_endpoint: form-action admits its origin
    assert f"form-action 'self' {sso[1].issuer};" in r.headers["Content-Security-Policy"]
    assert 'href="/oidc/login?next=/predict"' in page and "Sign in with Test IdP" in page
    assert 'id="signin-password"' in page and "<script" not in page
    r = requests.get(base + "/oidc/login?next=//evil.example", allow_redirects=False, timeout=30)
    assert r.status_code == 302 and r.headers["Location"].startswith(_provider_auth(sso))
    flow = r.cookies.get("perfcast_session_oidc")
    assert flow and "code_challenge_method=S256" in r.headers["Location"] and "nonce=" in r.headers["Location"]
    set_cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Lax" in set_cookie and "Path=/oidc/" in set_cookie


def _provider_auth(sso):
    return sso[1].issuer + "/auth?"


def _reforged(session, base, **changes):
    """The flow cookie of ``session`` with ``changes`` to its flows, signed again with the server's key (as only
    the server could): what PKCE and the nonce still catch."""
    import os

    from itsdangerous import URLSafeTimedSerializer

    ser = URLSafeTimedSerializer(os.environ["PERFCAST_SECRET_KEY"], salt="perfcast-oidc-flow")
    flows = ser.loads(session.cookies.get("perfcast_session_oidc"))
    session.cookies.set("perfcast_session_oidc", ser.dumps([{**f, **changes} for f in flows]),
                        domain="127.0.0.1", path="/oidc/")


@pytest.mark.parametrize("change,why", [({"code_verifier": "x" * 64}, "token refused"),
                                        ({"nonce": "not-the-nonce"}, "id_token invalid")])
def test_a_wrong_pkce_verifier_or_nonce_is_refused(sso, change, why):
    base, _provider, _log = sso
    since = last_audit_id()
    http = requests.Session()
    callback = sign_in_at_provider(http, base + "/oidc/login", base + "/oidc/callback", login_name())
    _reforged(http, base, **change)
    r = http.get(callback, allow_redirects=False, timeout=30)
    assert r.status_code == 401 and not http.cookies.get("perfcast_session")
    assert http.get(base + "/_dash-layout", timeout=30).status_code == 401
    assert [d["why"] for _u, d in audit("sign-in failed", since)] == [why]
