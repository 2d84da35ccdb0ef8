"""The test suite's signed-in user: one account and one session, valid on every server the tests start.

tests/conftest.py gives the whole test session (and every server it starts, which inherits its environment)
one database (``PERFCAST_DATABASE_URL``, a fresh SQLite file unless given), one secret key
(``PERFCAST_SECRET_KEY``) and the cheap argon2 profile; :func:`seed` adds the account ``tester`` (owner of
the ``default`` project) with :data:`PASSWORD` and a session whose id is :data:`SESSION_ID`. There is no bypass
of the gate: the browsers carry the session cookie (:func:`sign_in_browser`), ``requests`` sessions too
(:func:`http`), and benchmarks' DashClient signs in through /login with :data:`ACCOUNT`.
"""

from __future__ import annotations

import os
import secrets

NAME = "tester"
PASSWORD = secrets.token_urlsafe(18)
SESSION_ID = secrets.token_urlsafe(32)


def environment() -> None:
    """Settings every process of the test session shares (called by tests/conftest.py before any import of
    the app)."""
    import tempfile

    os.environ.setdefault("PERFCAST_SECRET_KEY", secrets.token_hex(32))
    os.environ.setdefault("PERFCAST_ARGON2_PROFILE", "CHEAPEST")
    if not os.environ.get("PERFCAST_DATABASE_URL"):
        os.environ["PERFCAST_DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp(prefix='perfcast-db-')}/perfcast.db"


def cookie() -> tuple[str, str]:
    from dashboard.access.sessions import cookie_value
    from dashboard.settings import SESSION_COOKIE

    return SESSION_COOKIE, cookie_value(SESSION_ID, os.environ["PERFCAST_SECRET_KEY"])


def seed(url: str | None = None) -> None:
    """The account and its session in the database at ``url`` (default: the session's); idempotent."""
    from sqlalchemy import select

    from dashboard.access import accounts, database, sessions
    from dashboard.access.models import Session

    database.migrate(url)
    with database.locked(url), database.session(url) as db:
        user = accounts.find_user(db, NAME)
        if user is None:
            user = accounts.create_first_owner(db, NAME, PASSWORD, "Test User")
        if db.scalar(select(Session.id).where(Session.digest == sessions.digest(SESSION_ID))) is None:
            sessions.create(db, user.id, 24 * 7, "tests", session_id=SESSION_ID)


def http():
    """A ``requests`` session carrying the signed-in cookie."""
    import requests

    s = requests.Session()
    name, value = cookie()
    s.cookies.set(name, value)
    return s


def sign_in_browser(driver) -> None:
    """Give a Chromium driver the session cookie for the loopback names (any port), before it opens a page."""
    name, value = cookie()
    for host in ("127.0.0.1", "localhost"):
        driver.execute_cdp_cmd("Network.setCookie", {"name": name, "value": value, "url": f"http://{host}/",
                                                     "path": "/", "httpOnly": True, "sameSite": "Lax"})
