"""Sign-in and sign-out on a full disk (issue 40, point 7): the access database answers SQLite's "database or
disk is full" at its writes. A sign-in answers a page saying so (HTTP 503, no traceback); a sign-out always
ends the session: the browser's cookie is cleared and this process refuses the session even though the
database could not record the revocation; once it can, the revocation is written as usual."""

import html
import sqlite3

from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from dashboard.access import database, gate, sessions
from dashboard.access.models import Session
from tests.integration.access.test_gate import account, anonymous, sign_in  # noqa: F401 - fixture

FULL = OperationalError("INSERT INTO sessions", {}, sqlite3.OperationalError("database or disk is full"))


def _full(*_a, **_k):
    raise FULL


def test_signing_in_on_a_full_disk_says_so(perfcast_app, account, monkeypatch):  # noqa: F811
    client = anonymous(perfcast_app, "10.0.1.1")
    monkeypatch.setattr(sessions, "create", _full)
    r = sign_in(client, account)
    text = html.unescape(r.get_data(as_text=True))
    assert r.status_code == 503 and r.headers["Retry-After"] == "60"
    assert "You are not signed in: the server's disk is full. Nothing was lost" in text
    assert '<a href="/login">Try again</a>' in text
    assert "tell the administrator" in text and "Traceback" not in text
    assert client.get_cookie("perfcast_session") is None
    monkeypatch.undo()
    assert sign_in(client, account).status_code == 303  # with space again, the same sign-in works


def test_a_callback_route_on_a_full_disk_answers_json(perfcast_app, monkeypatch):
    def full_lookup(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(gate.sessions, "lookup", full_lookup)
    client = anonymous(perfcast_app, "10.0.1.4")
    client.set_cookie("perfcast_session", sessions.cookie_value("x" * 43, gate.secret()))
    r = client.get("/_dash-layout")
    assert r.status_code == 503 and "the server's disk is full" in r.get_json()["message"]


def test_signing_out_on_a_full_disk_still_ends_the_session(perfcast_app, account, monkeypatch):  # noqa: F811
    client = anonymous(perfcast_app, "10.0.1.2")
    sign_in(client, account)
    stolen = client.get_cookie("perfcast_session").value
    assert client.get("/_dash-layout").status_code == 200
    monkeypatch.setattr(sessions, "revoke", _full)
    r = client.post("/logout")
    text = html.unescape(r.get_data(as_text=True))
    assert r.status_code == 200 and "You are signed out in this browser" in text and "disk is full" in text
    assert "tell the administrator" in text
    assert "perfcast_session=;" in r.headers["Set-Cookie"] and "Max-Age=0" in r.headers["Set-Cookie"]
    assert client.get_cookie("perfcast_session") is None
    other = anonymous(perfcast_app, "10.0.1.3")
    other.set_cookie("perfcast_session", stolen)  # the cookie kept elsewhere: refused by this process
    assert other.get("/_dash-layout").status_code == 401
    digest = sessions.digest(sessions.session_id_of(stolen, gate.secret()))
    with database.session() as db:  # the database could not record it
        assert db.scalar(select(Session.revoked).where(Session.digest == digest)) is None


def test_signing_out_records_the_revocation_for_every_process(perfcast_app, account):  # noqa: F811
    client = anonymous(perfcast_app, "10.0.1.5")
    sign_in(client, account)
    stolen = client.get_cookie("perfcast_session").value
    r = client.post("/logout")
    assert r.status_code == 303 and r.headers["Location"] == "/login"
    digest = sessions.digest(sessions.session_id_of(stolen, gate.secret()))
    with database.session() as db:
        assert db.scalar(select(Session.revoked).where(Session.digest == digest)) is not None
