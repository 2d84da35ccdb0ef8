"""A stranger's burst of sign-ins holds few web threads and no core that signed-in members need: the password
checks of browsers without the account's device cookie run on a thread below the web threads' priority, and
beyond a few waiting sign-ins per process the others are answered 503 at once with Retry-After; a member's
browser (device cookie) is checked at the web threads' priority and never waits behind them
(benchmarks/signin_burst.py measures the member's views and sign-ins during such a burst)."""

import os
import threading
import time

import pytest
from flask.testing import FlaskClient
from sqlalchemy import delete

from dashboard import settings
from dashboard.access import accounts, database, passwords
from dashboard.access.models import LoginFailure


def anonymous(app, address):
    client = FlaskClient(app.server, use_cookies=True)
    client.environ_base["REMOTE_ADDR"] = address
    return client


@pytest.fixture()
def account(perfcast_app):
    name = f"burst-{time.time_ns() % 10**9}"
    accounts.add_user(name, "correct horse battery")
    yield name
    with database.session() as db:
        db.execute(delete(LoginFailure).where(LoginFailure.account == name))


def sign_in(client, name, password="correct horse battery"):
    return client.post("/login", data={"name": name, "password": password, "next": "/"})


def _niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_an_unknown_browsers_check_runs_below_the_web_threads_and_a_members_does_not(perfcast_app, account,
                                                                                       monkeypatch):
    seen, real = [], passwords.verify

    def noted(stored, password):
        seen.append(_niceness())
        return real(stored, password)

    monkeypatch.setattr(passwords, "verify", noted)
    web = _niceness()
    browser = anonymous(perfcast_app, "10.0.8.1")
    assert sign_in(browser, account).status_code == 303  # a new browser: now it holds the device cookie
    assert sign_in(anonymous(perfcast_app, "10.0.8.2"), "nobody-here").status_code == 401  # the dummy check too
    assert sign_in(browser, account).status_code == 303  # the member's browser
    expected = min(19, web + getattr(settings, "LOGIN_CHECK_NICENESS", 10))
    assert seen == [expected, expected, web], (seen, web)


def test_sign_ins_beyond_the_waiting_places_are_answered_at_once_and_a_member_still_signs_in(perfcast_app,
                                                                                              account, monkeypatch):
    monkeypatch.setattr("dashboard.settings.LOGIN_WAITING_AT_ONCE", 3)
    monkeypatch.setattr(passwords, "_SLOTS", {})
    member = anonymous(perfcast_app, "10.0.9.2")
    assert sign_in(member, account).status_code == 303  # this browser now holds the device cookie
    asked = []
    real_slots = passwords._slots

    def slots(known_device=False):
        asked.append(known_device)
        return real_slots(known_device)

    monkeypatch.setattr(passwords, "_slots", slots)
    monkeypatch.setattr(passwords, "_WAITING", [3])  # three sign-ins of this process wait already (a burst)
    r = sign_in(anonymous(perfcast_app, "10.0.9.1"), account)
    assert r.status_code == 503 and "busy" in r.get_data(as_text=True) and r.headers["Retry-After"] == "5"
    assert asked == []  # answered without waiting for a slot: no web thread held
    assert sign_in(member, account).status_code == 303 and asked == [True]  # the member's own slot
    passwords._WAITING[0] = 2  # one place free again
    assert sign_in(anonymous(perfcast_app, "10.0.9.1"), account).status_code == 303
    assert passwords._WAITING == [2]  # the place is given back


def test_a_stranger_over_the_limit_is_answered_429_without_a_waiting_place(perfcast_app, account, monkeypatch):
    """A stranger already over the address limit is told so at once (429), even while every waiting place is
    taken, instead of taking a place that a person signing in needs."""
    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURE_DELAY", 0)
    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURES_PER_ADDRESS", 3)
    stranger = anonymous(perfcast_app, "10.0.10.1")
    for i in range(3):
        assert sign_in(stranger, f"nobody-{i}", "wrong password 123").status_code == 401
    monkeypatch.setattr(passwords, "_WAITING", [10**6])  # every waiting place taken
    r = sign_in(stranger, "nobody-x", "wrong password 123")
    assert r.status_code == 429 and "Too many failed sign-ins" in r.get_data(as_text=True)
    assert sign_in(anonymous(perfcast_app, "10.0.10.2"), account).status_code == 503  # the others: busy
