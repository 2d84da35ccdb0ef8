"""Dash's library bundles and favicon need a signed session cookie but no session-table lookup (a new browser
fetches a dozen of them for its first page); everything else is still looked up, strangers are still refused."""

import os
import secrets

import pytest
from flask.testing import FlaskClient

from sqlalchemy import select

from dashboard.access import database, sessions
from dashboard.access.models import User
from dashboard.settings import SESSION_COOKIE

BUNDLE = "/_dash-component-suites/dash/deps/prop-types@15.v4_4_1m1.8.1.min.js"


@pytest.fixture()
def lookups(monkeypatch):
    """The session ids looked up in the table during the test."""
    seen = []
    real = sessions.lookup

    def counting(session_id, *args, **kwargs):
        seen.append(session_id)
        return real(session_id, *args, **kwargs)

    monkeypatch.setattr(sessions, "lookup", counting)
    return seen


def _client(app, cookie_value=None):
    client = FlaskClient(app.server, use_cookies=True)
    if cookie_value:
        client.set_cookie(SESSION_COOKIE, cookie_value, domain="localhost")
    return client


def test_a_member_fetches_the_library_files_without_a_table_lookup(perfcast_app, lookups):
    client = perfcast_app.server.test_client()  # the test session's signed-in user
    client.get("/_dash-layout")  # Dash's one-time set-up lays the page out on an app's first request
    lookups.clear()
    for path in (BUNDLE, "/_favicon.ico?v=4.4.1"):
        assert client.get(path).status_code == 200, path
    assert lookups == []
    assert client.get("/_dash-layout").status_code == 200  # the layout is still looked up
    assert len(lookups) == 1


def test_a_revoked_session_gets_library_files_only(perfcast_app, lookups):
    from tests import signed_in

    session_id = secrets.token_urlsafe(32)
    with database.session() as db:
        user_id = db.scalar(select(User.id).where(User.name == signed_in.NAME))
        sessions.create(db, user_id, 1, "tests", session_id=session_id)
    sessions.revoke(sessions.digest(session_id))
    client = _client(perfcast_app, sessions.cookie_value(session_id, os.environ["PERFCAST_SECRET_KEY"]))
    assert client.get(BUNDLE).status_code == 200  # the same public file for everyone
    assert client.get("/_dash-layout").status_code == 401
    assert client.get("/_dash-dependencies").status_code == 401
    assert client.get("/logca").status_code == 302


@pytest.mark.parametrize("cookie", [None, "forged.signature", "abc.def.ghi"])
def test_without_a_signed_cookie_the_library_files_are_refused(perfcast_app, cookie):
    client = _client(perfcast_app, cookie)
    for path in (BUNDLE, "/_favicon.ico"):
        r = client.get(path)
        assert r.status_code == 401 and r.get_json()["login"] == "/login", path
