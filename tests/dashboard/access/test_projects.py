"""The current project and roles (dashboard/access/projects.py) on SQLite and on a real PostgreSQL: the
session's project checked against the memberships, the fallback, switching, scope, can/require, the audit
trail's project and where a project's things are stored."""

import pytest
from flask import Flask
from sqlalchemy import select

from dashboard import audit_log, settings
from dashboard.access import accounts, database, gate, projects, sessions
from dashboard.access.models import AuditEvent, Session

SECRET = "s" * 64


def _user(name: str, memberships: dict[str, str]) -> str:
    """A user with ``{project: role}`` (projects created as needed) and a session; returns its cookie."""
    accounts.add_user(name, None)
    for project, role in memberships.items():
        with database.session() as db:
            accounts.ensure_project(db, project)
        accounts.set_member(project, name, role)
    with database.session() as db:
        session_id = sessions.create(db, accounts.find_user(db, name).id, 1)
    return sessions.cookie_value(session_id, SECRET)


@pytest.fixture()
def app():
    return Flask(__name__)


def _as(app, cookie):
    """A request context of the browser holding ``cookie`` (None: nobody signed in)."""
    headers = {"Cookie": f"{settings.SESSION_COOKIE}={cookie}"} if cookie else {}
    return app.test_request_context("/", headers=headers)


def test_the_first_project_by_name_then_the_sessions_choice(url, app):
    cookie = _user("ada", {"zeta": "viewer", "alpha": "editor"})
    with _as(app, cookie):
        cur = projects.current_project()
        assert (cur.name, cur.role) == ("alpha", "editor")
        assert [p.name for p in projects.my_projects()] == ["alpha", "zeta"]
        assert projects.switch("zeta").role == "viewer"
        assert projects.current_project().name == "zeta"
    with _as(app, cookie):  # a new request reads the session's project from the database
        assert projects.current_project() == projects.Current(projects.current_id(), "zeta", "viewer")


def test_a_project_the_user_left_falls_back_and_a_foreign_one_cannot_be_chosen(url, app):
    cookie = _user("ada", {"alpha": "editor", "beta": "owner"})
    _user("bob", {"secret": "owner"})
    with _as(app, cookie):
        projects.switch("beta")
    with database.session() as db:  # ada leaves beta: her session still names it
        from dashboard.access.models import Membership, Project, User
        beta = db.scalar(select(Project.id).where(Project.name == "beta"))
        ada = db.scalar(select(User.id).where(User.name == "ada"))
        db.delete(db.scalar(select(Membership).where(Membership.project_id == beta, Membership.user_id == ada)))
    with _as(app, cookie):
        assert projects.current_project().name == "alpha"
        with pytest.raises(projects.AccessDenied) as foreign:
            projects.switch("secret")
        with pytest.raises(projects.AccessDenied) as missing:
            projects.switch("nothing-here")
        # the same sentence for a project that exists and one that does not
        assert str(foreign.value).replace("secret", "X") == str(missing.value).replace("nothing-here", "X")
        assert projects.current_project().name == "alpha"


def test_a_request_reads_its_session_project_and_memberships_in_one_statement(url, app):
    """Every request looks its session up and resolves its project; the project menu and the body limit need
    the memberships too: one statement reads them all with the session, however many
    of them ask. Each change between requests is seen by the next one."""
    from sqlalchemy import event

    from dashboard.access import body_limit

    cookie = _user("ada", {"zeta": "viewer", "alpha": "editor"})
    statements = []

    def count(conn, cursor, statement, *args):
        statements.append(statement)

    engine = database.engine()
    event.listen(engine, "before_cursor_execute", count)
    try:
        with _as(app, cookie):
            assert gate.signed_in_user().name == "ada"
            assert projects.current_project().name == "alpha"
            assert [p.name for p in projects.my_projects()] == ["alpha", "zeta"]
            assert body_limit.limit_for(True, None) == body_limit.member_bytes()
            assert projects.current_id() == projects.current_project().id
            assert len(statements) == 1, statements
            projects.switch("zeta")
        statements.clear()
        with _as(app, cookie):  # the next request: the session's new project, in one statement again
            assert (projects.current_project().name, projects.current_project().role) == ("zeta", "viewer")
            assert [p.name for p in projects.my_projects()] == ["alpha", "zeta"]
            assert len(statements) == 1, statements
    finally:
        event.remove(engine, "before_cursor_execute", count)
    accounts.set_member("alpha", "ada", "owner")
    with database.session() as db:
        accounts.ensure_project(db, "beta")
    accounts.set_member("beta", "ada", "viewer")
    with _as(app, cookie):  # a role changed and a project added between requests: seen at once
        assert [(p.name, p.role) for p in projects.my_projects()] == [("alpha", "owner"), ("beta", "viewer"),
                                                                    ("zeta", "viewer")]
        assert projects.current_project().name == "zeta"


def test_forging_the_sessions_project_gains_nothing(url, app):
    cookie = _user("ada", {"alpha": "viewer"})
    _user("bob", {"secret": "owner"})
    with database.session() as db:  # even a session row naming a foreign project resolves to her own
        from dashboard.access.models import Project
        secret = db.scalar(select(Project.id).where(Project.name == "secret"))
        for s in db.scalars(select(Session)):
            s.project_id = secret
    with _as(app, cookie):
        assert projects.current_project().name == "alpha"


def test_no_session_and_no_membership_mean_no_project(url, app):
    with _as(app, None):
        assert projects.current_project() is None
        assert projects.my_projects() == []
        assert not projects.can("viewer")
    cookie = _user("loner", {})
    with _as(app, cookie):
        assert projects.current_project() is None
        with pytest.raises(projects.AccessDenied, match="not a member of any project"):
            projects.require("viewer")
        with pytest.raises(projects.AccessDenied):
            projects.switch("default")


@pytest.mark.parametrize("role, allowed", [("viewer", {"viewer"}), ("editor", {"viewer", "editor"}),
                                           ("owner", {"viewer", "editor", "owner"})])
def test_roles_are_ordered_and_refusals_say_what_to_do(url, app, role, allowed):
    cookie = _user("ada", {"chips": role})
    with _as(app, cookie):
        assert {r for r in ("viewer", "editor", "owner") if projects.can(r)} == allowed
        for needed in ("viewer", "editor", "owner"):
            if needed in allowed:
                assert projects.require(needed).name == "chips"
            else:
                with pytest.raises(projects.AccessDenied) as refused:
                    projects.require(needed, "delete")
                assert isinstance(refused.value, ValueError)
                article = "an editor" if needed == "editor" else "an owner"
                assert str(refused.value) == (f"{role.capitalize()}s cannot delete in project chips; ask an owner "
                                              f"of project chips to make you {article}.")
    with database.session() as db:
        refusals = db.scalars(select(AuditEvent).where(AuditEvent.action == "refused: role")).all()
    assert len(refusals) == 3 - len(allowed)
    assert all(e.user_name == "ada" and e.project_id is not None for e in refusals)


def test_scope_outside_a_request(url):
    assert projects.current_project() is None
    with database.session() as db:
        pid = accounts.ensure_project(db, "batch").id
    with projects.scope(pid) as cur:
        assert cur == projects.Current(pid, "batch", "owner") == projects.current_project()
        with projects.scope(None):
            assert projects.current_project() is None
            assert not projects.can("viewer")
        with projects.scope(pid, role="viewer"):
            assert not projects.can("editor")
        assert projects.can("owner")
    assert projects.current_project() is None
    with pytest.raises(LookupError):
        with projects.scope(pid + 1000):
            pass


def test_audit_events_carry_the_current_project(url, app):
    cookie = _user("ada", {"chips": "editor"})
    with _as(app, cookie):
        audit_log.record("dataset saved", dataset="ds-0")
        pid = projects.current_id()
    audit_log.record("sign-in failed", account="x")
    with database.session() as db:
        events = {e.action: e for e in db.scalars(select(AuditEvent))}
    assert events["dataset saved"].project_id == pid and events["dataset saved"].user_name == "ada"
    assert events["sign-in failed"].project_id is None


def test_each_project_stores_in_its_own_directory(url):
    with database.session() as db:
        a, b = accounts.ensure_project(db, "a").id, accounts.ensure_project(db, "b").id
    with projects.scope(a):
        pa = projects.project_path("datasets")
    with projects.scope(b):
        pb = projects.project_path("datasets")
    assert pa == settings.VAR_DIR / "projects" / str(a) / "datasets" and pa.is_dir()
    assert pb == settings.VAR_DIR / "projects" / str(b) / "datasets" and pa != pb
    assert projects.project_path("datasets") == settings.VAR_DIR / "projects" / "none" / "datasets"
    for bad in ("../x", "", None, "Datasets"):
        with pytest.raises(ValueError):
            projects.project_path(bad)


def _job_context(cookies=None, headers=None, remote="127.0.0.1"):
    """What Dash hands a background job: the starting request's cookies, headers and peer address."""
    from dash._callback_context import context_value
    from dash._utils import AttributeDict

    return context_value.set(AttributeDict(cookies=cookies or {}, headers=headers or {}, remote=remote))


def test_a_job_runs_in_the_project_of_the_session_that_started_it(url, app, monkeypatch):
    from dash._callback_context import context_value

    cookie = _user("ada", {"alpha": "viewer", "beta": "editor"})
    with _as(app, cookie):
        projects.switch("beta")
    token = _job_context({settings.SESSION_COOKIE: cookie})
    try:
        with projects.job_scope() as cur:
            assert (cur.name, cur.role) == ("beta", "editor") and projects.current_project() == cur
    finally:
        context_value.reset(token)
    for forged in ({settings.SESSION_COOKIE: cookie[:-2] + "xx"}, {}):  # a bad signature, no cookie: no project
        token = _job_context(forged)
        try:
            with projects.job_scope() as cur:
                assert cur is None and projects.current_project() is None
        finally:
            context_value.reset(token)
    # signed in by a trusted proxy's header: no session row, the first project by name
    monkeypatch.setattr(settings, "PROXY_USER_HEADER", "X-Forwarded-User")
    monkeypatch.setattr(settings, "TRUSTED_PROXIES", ["10.0.0.5"])
    for remote, expected in (("10.0.0.5", "alpha"), ("10.9.9.9", None)):  # only from the proxy's address
        token = _job_context(headers={"X-Forwarded-User": "ada"}, remote=remote)
        try:
            with projects.job_scope() as cur:
                assert (cur.name if cur else None) == expected
        finally:
            context_value.reset(token)


@pytest.mark.parametrize("link_project", ["chips", "boards", "no-such-project"])
def test_a_share_link_opened_many_times_writes_its_first_open_and_a_count(url, app, monkeypatch, link_project):
    """Each page open of a share link was an audit row: one client reloading one link 1,000 times wrote 1,000
    rows. Now the first open per link and client is written at once and its repeats as one row a minute with
    their count, whether the link is of the session's project, of another of the user's (asked to switch), or
    of none of theirs; another link is its own first open."""
    monkeypatch.setattr(audit_log, "REPEATS", audit_log.Repeats())
    cookie = _user("ada", {"chips": "editor", "boards": "viewer"})
    headers = {"Cookie": f"{settings.SESSION_COOKIE}={cookie}"}

    def opened():
        with database.session() as db:
            return db.scalars(select(AuditEvent).where(AuditEvent.action == "share-link open")
                              .order_by(AuditEvent.id)).all()

    for _ in range(1000):
        with app.test_request_context(f"/scenario?dataset=ds-1&project={link_project}", headers=headers):
            projects.open_share_link()
    assert len(opened()) == 1
    with app.test_request_context(f"/scenario?dataset=ds-2&project={link_project}", headers=headers):
        projects.open_share_link()  # another link: written at once
    assert len(opened()) == 2
    audit_log.REPEATS.flush()  # the minute is over
    rows = opened()
    assert len(rows) == 3 and rows[-1].detail["repeats"] in (999, "999")
