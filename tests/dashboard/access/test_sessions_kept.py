"""Sessions an account keeps (dashboard/access/sessions.py, accounts.py), on SQLite and on a real PostgreSQL: a
password change ends every other session of the account (from the page, the one it was made from stays); an
account signing in over and over keeps at most PERFCAST_SESSIONS_PER_ACCOUNT open sessions; the rows of ended
sessions are deleted after a day."""

from datetime import timedelta

from flask import Flask
from sqlalchemy import func, select, update

from dashboard import settings
from dashboard.access import accounts, database, gate, passwords, routes, sessions
from dashboard.access.models import Session, User, utcnow

SECRET = "s" * 64
PASSWORD = "a long enough password"


def _sessions(name, n):
    with database.session() as db:
        uid = db.scalar(select(User.id).where(User.name == name))
        return [sessions.create(db, uid, 1) for _ in range(n)]


def _open(name):
    with database.session() as db:
        return db.scalar(select(func.count()).select_from(Session).join(User, User.id == Session.user_id)
                         .where(User.name == name, Session.revoked.is_(None), Session.expires > utcnow()))


def test_a_password_change_ends_the_accounts_other_sessions(url):
    accounts.add_user("ada", PASSWORD)
    accounts.add_user("bob", PASSWORD)
    mine, *others = _sessions("ada", 3)
    bobs = _sessions("bob", 1)
    ended = accounts.set_password("ada", PASSWORD + "!", keep_session=sessions.digest(mine))
    assert ended == 2 and sessions.lookup(mine) is not None
    assert all(sessions.lookup(s) is None for s in others) and sessions.lookup(bobs[0]) is not None
    assert accounts.set_password("ada", PASSWORD) == 1 and sessions.lookup(mine) is None  # the shell: all of them


def test_an_account_keeps_a_bounded_number_of_sessions(url, monkeypatch):
    monkeypatch.setattr(settings, "SESSIONS_PER_ACCOUNT", 5)
    accounts.add_user("ada", PASSWORD)
    made = _sessions("ada", 12)
    assert _open("ada") == 5
    assert [sessions.lookup(s) is not None for s in made] == [False] * 7 + [True] * 5  # the newest stay


def test_ended_sessions_are_deleted_after_a_day(url):
    accounts.add_user("ada", PASSWORD)
    old, recent, live = _sessions("ada", 3)
    with database.session() as db:
        db.execute(update(Session).where(Session.digest == sessions.digest(old))
                   .values(expires=utcnow() - timedelta(hours=settings.ENDED_SESSION_KEEP_HOURS + 1)))
        db.execute(update(Session).where(Session.digest == sessions.digest(recent)).values(revoked=utcnow()))
    with database.session() as db:
        assert sessions.purge_ended(db) == 1
    with database.session() as db:
        left = set(db.scalars(select(Session.digest)))
    assert left == {sessions.digest(recent), sessions.digest(live)}


def test_the_password_page_checks_the_current_password_and_keeps_this_session(url, monkeypatch):
    accounts.add_user("ada", PASSWORD)
    mine, other = _sessions("ada", 2)
    app = Flask(__name__)
    routes.install(app)
    gate.install(app)
    client = app.test_client()
    assert client.get("/password").status_code == 302  # signed out: the sign-in page first
    client.set_cookie(settings.SESSION_COOKIE, sessions.cookie_value(mine, SECRET))
    assert b"password-current" in client.get("/password").data
    new = PASSWORD + " new"
    wrong = client.post("/password", data={"current": "not it at all", "password": new, "again": new})
    assert wrong.status_code == 400 and b"not right" in wrong.data
    differ = client.post("/password", data={"current": PASSWORD, "password": new, "again": new + "x"})
    assert differ.status_code == 400 and b"differ" in differ.data
    assert sessions.lookup(other) is not None  # nothing changed yet
    done = client.post("/password", data={"current": PASSWORD, "password": new, "again": new})
    assert done.status_code == 200 and b"1 other session" in done.data
    assert sessions.lookup(mine) is not None and sessions.lookup(other) is None
    with database.session() as db:
        assert passwords.verify(accounts.find_user(db, "ada").password_hash, new)


def test_strangers_guessing_do_not_lock_the_owner_out_of_a_new_browser_at_a_known_place(url, monkeypatch):
    """Strangers from many addresses fail more than the account's limit: a new browser (no device cookie) at an
    address where the owner signed in before still gets in with the right password; one at an unknown address
    is throttled (answered at once, 429), and the place's own failures still throttle it."""
    monkeypatch.setattr(settings, "LOGIN_FAILURE_DELAY", 0.0)
    accounts.add_user("ada", PASSWORD)
    app = Flask(__name__)
    routes.install(app)
    gate.install(app)

    def sign_in(address, password=PASSWORD):
        client = app.test_client()  # a new browser each time: no cookies
        return client.post("/login", data={"name": "ada", "password": password, "next": "/"},
                           environ_base={"REMOTE_ADDR": address})

    assert sign_in("10.0.0.5").status_code == 303  # ada at her desk, once
    for i in range(8):  # strangers guess from eight addresses
        assert sign_in(f"10.9.0.{i}", "wrong guess number x").status_code in (401, 429)
    assert sign_in("10.7.7.7").status_code == 429  # an unknown place: throttled for the account
    assert sign_in("10.0.0.5").status_code == 303  # a new browser at her desk: in
    for _ in range(6):  # the desk's own wrong guesses still count, for the desk alone
        sign_in("10.0.0.5", "wrong guess number y")
    assert sign_in("10.0.0.5").status_code == 429


def test_a_new_browser_at_a_known_place_does_not_wait_for_strangers_checks(url, monkeypatch):
    """Strangers' sign-ins from rotating addresses keep the machine's one slot for unknown browsers busy (held
    here, as a stranger's check in progress holds it): a new browser at the owner's desk still signs in, since
    it is checked as a device of its own; a new browser at a new place meets the busy slot (503, try again)."""
    import fcntl

    monkeypatch.setattr(settings, "LOGIN_FAILURE_DELAY", 0.0)
    monkeypatch.setattr(settings, "LOGIN_CHECK_WAIT", 0.3)
    accounts.add_user("ada", PASSWORD)
    app = Flask(__name__)
    routes.install(app)
    gate.install(app)

    def sign_in(address):
        return app.test_client().post("/login", data={"name": "ada", "password": PASSWORD, "next": "/"},
                                      environ_base={"REMOTE_ADDR": address})

    assert sign_in("10.0.0.5").status_code == 303  # ada at her desk, once
    settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
    with open(settings.VAR_DIR / "signin.lock", "w") as stranger:
        fcntl.flock(stranger, fcntl.LOCK_EX)  # a stranger's check holds the machine's slot
        try:
            assert sign_in("10.0.0.5").status_code == 303  # a new browser at her desk: in
            assert sign_in("10.7.7.7").status_code == 503  # a new place: waits for the busy slot, then told so
        finally:
            fcntl.flock(stranger, fcntl.LOCK_UN)
    assert sign_in("10.7.7.7").status_code == 303  # the slot free again
