"""Joining a project takes consent (dashboard/access/invitations.py), on SQLite and on a real PostgreSQL: an
owner cannot add an account by name (and learns nothing about which names exist), an invitation link is
accepted by the person it was sent to (signed in, or creating an account on the spot), once, until it expires
or is withdrawn; a new session starts in the project the user last chose, never in one that merely comes first
by name."""

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from flask import Flask
from sqlalchemy import select, update

from dashboard import settings
from dashboard.access import accounts, audit_trail, database, gate, invitations, members, projects, routes, sessions
from dashboard.access.accounts import AccessError
from dashboard.access.models import Invitation, Project, User, utcnow

SECRET = "s" * 64
PASSWORD = "a long enough password"


def _project(name, owner, *others):
    if owner not in _names():
        accounts.add_user(owner, PASSWORD)
    accounts.add_project(name)
    accounts.set_member(name, owner, "owner")
    for user, role in others:
        accounts.add_user(user, PASSWORD)
        accounts.set_member(name, user, role)
    with database.session() as db:
        return db.scalar(select(Project.id).where(Project.name == name))


def _names():
    with database.session() as db:
        return set(db.scalars(select(User.name)))


def _user_id(name):
    with database.session() as db:
        return db.scalar(select(User.id).where(User.name == name))


def test_an_owner_cannot_add_an_account_and_cannot_tell_which_accounts_exist(url):
    x = _project("gpu-x", "ada", ("bob", "viewer"))
    accounts.add_user("editor1", PASSWORD)  # an account in no project of ada's
    with pytest.raises(AccessError) as existing:
        members.set_role(x, "ada", "editor1", "editor")
    with pytest.raises(AccessError) as missing:
        members.set_role(x, "ada", "nobody", "editor")
    assert "invitation" in str(existing.value)
    assert str(existing.value).replace("editor1", "N") == str(missing.value).replace("nobody", "N")
    assert accounts.memberships("editor1") == {}
    assert "now an editor" in members.set_role(x, "ada", "bob", "editor")  # a member's role still changes


def test_an_invitation_is_accepted_once_with_its_role_and_the_project_becomes_the_users_choice(url):
    x = _project("gpu-x", "ada")
    _project("aaa-first-by-name", "eve", ("bob", "editor"))
    token = invitations.create(x, "ada", "viewer")
    offer = invitations.offer(token)
    assert (offer.project, offer.role, offer.invited_by) == ("gpu-x", "viewer", "ada")
    assert accounts.memberships("bob") == {"aaa-first-by-name": "editor"}  # nothing changes before accepting
    joined = invitations.accept(token, _user_id("bob"))
    assert (joined.project, joined.role, joined.already) == ("gpu-x", "viewer", False)
    assert accounts.memberships("bob") == {"aaa-first-by-name": "editor", "gpu-x": "viewer"}
    with pytest.raises(AccessError, match="not valid"):
        invitations.accept(token, _user_id("eve"))  # used once
    assert invitations.offer(token) is None and invitations.waiting(x) == []
    with database.session() as db:  # bob's next session starts in gpu-x, which he chose by accepting
        session_id = sessions.create(db, _user_id("bob"), 1)
    assert sessions.lookup(session_id).project_id == x


def test_only_owners_invite_and_withdrawn_or_expired_links_do_not_work(url):
    x = _project("gpu-x", "ada", ("cy", "editor"))
    with pytest.raises(AccessError, match="Only owners"):
        invitations.create(x, "cy", "viewer")
    with pytest.raises(AccessError, match="role"):
        invitations.create(x, "ada", "admin")
    accounts.add_user("dan", PASSWORD)
    withdrawn, expired = invitations.create(x, "ada", "editor"), invitations.create(x, "ada", "owner")
    assert [w.role for w in invitations.waiting(x)] == ["owner", "editor"]
    with pytest.raises(AccessError, match="Only owners"):
        invitations.withdraw(x, "cy", invitations.waiting(x)[1].id)
    assert "withdrawn" in invitations.withdraw(x, "ada", invitations.waiting(x)[1].id)
    with database.session() as db:
        db.execute(update(Invitation).where(Invitation.role == "owner").values(expires=utcnow() - timedelta(1)))
    for token in (withdrawn, expired):
        assert invitations.offer(token) is None
        with pytest.raises(AccessError, match="not valid"):
            invitations.accept(token, _user_id("dan"))
    assert accounts.memberships("dan") == {}


def test_a_newcomer_creates_an_account_and_joins_and_nothing_is_kept_when_refused(url):
    x = _project("gpu-x", "ada", ("bob", "viewer"))
    token = invitations.create(x, "ada", "editor")
    with pytest.raises(AccessError, match="taken"):
        invitations.accept_with_new_account(token, "bob", PASSWORD)
    with pytest.raises(AccessError, match="10 characters|short"):
        invitations.accept_with_new_account(token, "newcomer", "short")
    assert "newcomer" not in _names() and invitations.offer(token) is not None  # nothing kept, still valid
    joined = invitations.accept_with_new_account(token, "newcomer", PASSWORD, "New Comer")
    assert accounts.memberships("newcomer") == {"gpu-x": "editor"} and joined.invited_by == "ada"
    with pytest.raises(AccessError, match="not valid"):
        invitations.accept_with_new_account(token, "second", PASSWORD)
    assert "second" not in _names()


def test_a_new_session_starts_in_the_project_last_chosen_not_the_first_by_name(url):
    _project("zeta", "ada")
    _project("alpha", "eve", ("bob", "viewer"))
    accounts.set_member("zeta", "bob", "editor")
    app = Flask(__name__)
    with database.session() as db:
        first = sessions.create(db, _user_id("bob"), 1)
    cookie = {"Cookie": f"{settings.SESSION_COOKIE}={sessions.cookie_value(first, SECRET)}"}
    with app.test_request_context("/", headers=cookie):
        projects.switch("zeta")
    with database.session() as db:  # a second browser, later
        second = sessions.create(db, _user_id("bob"), 1)
    cookie = {"Cookie": f"{settings.SESSION_COOKIE}={sessions.cookie_value(second, SECRET)}"}
    with app.test_request_context("/", headers=cookie):
        assert projects.current_project().name == "zeta"


@pytest.fixture()
def client(url):
    app = Flask(__name__)
    routes.install(app)
    gate.install(app)
    return app.test_client()


def test_the_invitation_page_asks_and_joins_only_on_accept(url, client):
    x = _project("gpu-x", "ada")
    _project("other", "bob")
    token = invitations.create(x, "ada", "editor")
    assert client.get("/invite?token=nonsense").status_code == 404
    page = client.get(f"/invite?token={token}")  # not signed in: sign in, or create an account
    assert page.status_code == 200 and b"gpu-x" in page.data and b"invite-create" in page.data
    assert b"/login?next=" in page.data
    with database.session() as db:
        session_id = sessions.create(db, _user_id("bob"), 1)
    client.set_cookie(settings.SESSION_COOKIE, sessions.cookie_value(session_id, SECRET))
    page = client.get(f"/invite?token={token}")
    assert b"invite-accept" in page.data and accounts.memberships("bob") == {"other": "owner"}  # a GET asks only
    done = client.post("/invite", data={"token": token, "action": "accept"})
    assert done.status_code == 303 and urlsplit(done.headers["Location"]).path == "/"
    assert accounts.memberships("bob") == {"other": "owner", "gpu-x": "editor"}
    assert sessions.lookup(session_id).project_id == x  # the session works in the project joined
    joined = [e for e in audit_trail.events(x) if e.action == "member joined"]
    assert len(joined) == 1 and joined[0].detail["member"] == "bob" and joined[0].detail["invited_by"] == "ada"


def test_the_invitation_page_creates_an_account_and_signs_it_in(url, client):
    x = _project("gpu-x", "ada")
    token = invitations.create(x, "ada", "viewer")
    differ = client.post("/invite", data={"token": token, "action": "create", "name": "newcomer",
                                          "password": PASSWORD, "again": PASSWORD + "x"})
    assert differ.status_code == 400 and b"differ" in differ.data and "newcomer" not in _names()
    done = client.post("/invite", data={"token": token, "action": "create", "name": "newcomer",
                                        "password": PASSWORD, "again": PASSWORD})
    assert done.status_code == 303 and settings.SESSION_COOKIE in done.headers.get("Set-Cookie", "")
    assert accounts.memberships("newcomer") == {"gpu-x": "viewer"}
    cookie = done.headers["Set-Cookie"].split(";", 1)[0].split("=", 1)[1]
    signed_in = sessions.lookup(sessions.session_id_of(cookie, SECRET))
    assert signed_in.name == "newcomer" and signed_in.project_id == x


def test_a_sign_in_is_recorded_in_the_project_its_session_starts_in(url, client):
    """An owner reads a member's sign-ins into their project, not the member's sign-ins elsewhere."""
    x = _project("gpu-x", "ada")
    y = _project("gpu-y", "eve", ("bob", "editor"))
    invitations.accept(invitations.create(x, "ada", "viewer"), _user_id("bob"))  # bob chose x
    signed = client.post("/login", data={"name": "bob", "password": PASSWORD, "next": "/"})
    assert signed.status_code == 303
    assert [e.detail.get("account") for e in audit_trail.events(x) if e.action == "signed in"] == ["bob"]
    assert not [e for e in audit_trail.events(y) if e.action == "signed in"]
