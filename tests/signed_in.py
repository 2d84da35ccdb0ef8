"""The test suite's signed-in user: one account and one session, valid on every server the tests start.

tests/conftest.py gives the whole test session (and every server it starts, which inherits its environment)
one database (``PERFCAST_DATABASE_URL``, a fresh SQLite file unless given), one secret key
(``PERFCAST_SECRET_KEY``) and the cheap argon2 profile; :func:`seed` adds the account ``tester`` (owner of
the ``default`` project) with :data:`PASSWORD` and a session whose id is :data:`SESSION_ID`. There is no bypass
of the gate: the browsers carry the session cookie (:func:`sign_in_browser`), ``requests`` sessions too
(:func:`http`), and benchmarks' DashClient signs in through /login with :data:`ACCOUNT`.

Other people: :func:`member` adds a user with a role in a project (created as needed) and a session of their
own, for tests of who sees what (a second user in a second project, a viewer); :func:`project_id` names a
project's id, for ``projects.scope`` in tests that call the stores directly.
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


PROJECT = "default"


def project_id(name: str = PROJECT, url: str | None = None) -> int:
    """The id of project ``name`` (created when missing)."""
    from dashboard.access import accounts, database

    with database.locked(url), database.session(url) as db:
        return accounts.ensure_project(db, name).id


class Person:
    """Someone other than :data:`NAME`: their account, project, role and session (see :func:`member`)."""

    def __init__(self, name: str, password: str, project: str, role: str, session_id: str):
        self.name, self.password, self.project, self.role, self.session_id = name, password, project, role, session_id

    def cookie(self) -> tuple[str, str]:
        from dashboard.access.sessions import cookie_value
        from dashboard.settings import SESSION_COOKIE

        return SESSION_COOKIE, cookie_value(self.session_id, os.environ["PERFCAST_SECRET_KEY"])

    def http(self):
        """A ``requests`` session carrying this person's cookie."""
        import requests

        s = requests.Session()
        s.cookies.set(*self.cookie())
        return s

    def sign_in_browser(self, driver) -> None:
        name, value = self.cookie()
        for host in ("127.0.0.1", "localhost"):
            driver.execute_cdp_cmd("Network.setCookie", {"name": name, "value": value, "url": f"http://{host}/",
                                                         "path": "/", "httpOnly": True, "sameSite": "Lax"})


def member(name: str, project: str, role: str, url: str | None = None) -> Person:
    """User ``name`` (created with a random password when missing) with ``role`` in ``project`` (created when
    missing), and a new session of theirs; idempotent for the account and the membership."""
    from dashboard.access import accounts, database, sessions

    database.migrate(url)
    password = secrets.token_urlsafe(18)
    with database.locked(url):
        with database.session(url) as db:
            missing = accounts.find_user(db, name) is None
        if missing:
            accounts.add_user(name, password, url=url)
        with database.session(url) as db:
            accounts.ensure_project(db, project)
        accounts.set_member(project, name, role, url=url)
        with database.session(url) as db:
            session_id = sessions.create(db, accounts.find_user(db, name).id, 24, "tests")
    return Person(name, password, project, role, session_id)
