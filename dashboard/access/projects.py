"""The current project of the code being served, and what its role allows.

Everything stored belongs to a project (``VAR_DIR/projects/<project id>/<kind>``, :func:`project_path`); a
member is a ``viewer`` (reads, runs, shares, downloads), an ``editor`` (also uploads, saves, deletes and
restores from the trash) or an ``owner`` (also empties the trash and manages members).

Which project:

* in a request: the signed-in session's ``project_id`` when the user is still a member of it (a new session
  starts in the project the user last chose, dashboard/access/sessions.py), else the user's first membership
  by project name (every membership is one the user accepted, dashboard/access/invitations.py, or one the
  server's administrator gave); None for a user with no project (and without a session).
  Resolved once per request (kept in ``flask.g``); the browser never names it: :func:`switch` changes the
  session's project after checking the membership, and a share link's ``?project=`` goes through it too
  (:func:`open_share_link`).
* outside a request (background jobs, Celery workers, the command line, tests): the project set by
  :func:`scope`. A background job enters the scope of the session that started it (:func:`job_scope`).

A project the user is not a member of is treated exactly as one that does not exist: the same message, the
same page, so names and ids cannot be probed.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import bindparam, select, update

from dashboard.access import database
from dashboard.access.models import ROLES, Membership, Project, Session, User

#: viewer < editor < owner
RANK = {role: i for i, role in enumerate(ROLES)}
#: the plural a refusal names the role by
_PLURAL = {"viewer": "Viewers", "editor": "Editors", "owner": "Owners"}
_ARTICLE = {"viewer": "a viewer", "editor": "an editor", "owner": "an owner"}
KIND = re.compile(r"^[a-z][a-z_]{0,31}$")
#: where the stores of code without a project look: an empty directory, never written (every write
#: requires a role, and there is none without a project)
NO_PROJECT = "none"


@dataclass(frozen=True)
class Current:
    """The project the code being served works in, and the user's role in it."""
    id: int
    name: str
    role: str


class AccessDenied(ValueError):
    """An action the current role does not allow, with a sentence for the person who tried."""


_UNSET = object()
_SCOPE: ContextVar = ContextVar("perfcast_project", default=_UNSET)


# ---------------------------------------------------------------- which project


#: the statements of every request, built once (building a statement and its cache key cost more than running it)
_MEMBERSHIPS = (select(Project.id, Project.name, Membership.role)
                .join(Membership, Membership.project_id == Project.id)
                .where(Membership.user_id == bindparam("user_id")).order_by(Project.name))
_SESSION_PROJECT = select(Session.project_id).where(Session.digest == bindparam("session_digest"))


def _memberships(db, user_id: int) -> list[Current]:
    return [Current(pid, name, role) for pid, name, role in db.execute(_MEMBERSHIPS, {"user_id": user_id})]


def _chosen(mine: list[Current], chosen: int | None) -> Current | None:
    """The session's project when its user is a member of it, else the user's first project by name."""
    return next((m for m in mine if m.id == chosen), mine[0] if mine else None)


def _of_session(session_digest: str, user_id: int) -> Current | None:
    """The session's project when its user is a member of it, else the user's first project by name."""
    with database.engine().connect() as conn:  # a plain read (no ORM session)
        chosen = conn.scalar(_SESSION_PROJECT, {"session_digest": session_digest})
        mine = _memberships(conn, user_id)
    return _chosen(mine, chosen)


def starting(user_id: int) -> Current | None:
    """The project a new session of ``user_id`` works in: the one the user last chose when still a member, else
    their first by name (:func:`_chosen`, as every request resolves it)."""
    with database.engine().connect() as conn:
        chosen = conn.scalar(select(User.last_project_id).where(User.id == user_id))
        mine = _memberships(conn, user_id)
    return _chosen(mine, chosen)


def _request_user():
    from flask import has_request_context

    if not has_request_context():
        return None
    from dashboard.access import gate

    return gate.signed_in_user()


def _request_memberships(user) -> list[Current]:
    """The signed-in user's memberships, read once per request (kept in ``flask.g``), with the session when
    the gate looked it up: the project, the body limit and the project menu of one request all need them."""
    from flask import g

    if "perfcast_memberships" not in g:
        if user.memberships is not None:  # read with the session by the gate
            g.perfcast_memberships = [Current(*m) for m in user.memberships]
        else:  # a user a trusted proxy's header names: no session row
            with database.engine().connect() as conn:  # a plain read (no ORM session)
                g.perfcast_memberships = _memberships(conn, user.user_id)
    return g.perfcast_memberships


def current_project() -> Current | None:
    """The project of this request (resolved once per request from the signed-in session, whose project the
    session lookup read), or outside a request the one :func:`scope` set; None when there is none (no session,
    a user without a project)."""
    from flask import g, has_request_context

    if has_request_context():
        if "perfcast_project" not in g:
            user = _request_user()
            g.perfcast_project = _chosen(_request_memberships(user), user.project_id) if user else None
        return g.perfcast_project
    found = _SCOPE.get()
    return None if found is _UNSET else found


def current_id() -> int | None:
    cur = current_project()
    return cur.id if cur else None


def my_projects() -> list[Current]:
    """The signed-in user's projects (by name) with their role in each; outside a request, the scope's."""
    user = _request_user()
    if user is None:
        cur = current_project()
        return [cur] if cur else []
    return list(_request_memberships(user))


def find(project_id: int) -> tuple[int, str] | None:
    """(id, name) of a project, or None."""
    with database.session() as db:
        row = db.execute(select(Project.id, Project.name).where(Project.id == project_id)).first()
    return (row[0], row[1]) if row else None


@contextlib.contextmanager
def scope(project, role: str = "owner"):
    """Run a block in ``project`` (a :class:`Current`, a project id, or None for no project) outside a request:
    background jobs, Celery workers, the command line, tests. A bare id acts with ``role`` (default owner: the
    server itself). ``LookupError`` for an id that is not a project's."""
    if project is not None and not isinstance(project, Current):
        found = find(int(project))
        if found is None:
            raise LookupError(f"there is no project with id {project}")
        if role not in RANK:
            raise ValueError(f"a role is one of {', '.join(ROLES)}")
        project = Current(found[0], found[1], role)
    token = _SCOPE.set(project)
    try:
        yield project
    finally:
        _SCOPE.reset(token)


def _job_session():
    """(session digest, user id) of the session whose request started this background job (Dash hands the
    job that request's cookies and headers; a user signed in by a trusted proxy's header has no session row
    and works in their first project), or None."""
    from dash._callback_context import context_value

    from dashboard.access import gate, sessions
    from dashboard.settings import SESSION_COOKIE

    try:
        context = context_value.get()
    except LookupError:
        return None
    cookies = getattr(context, "cookies", None) or {}
    session_id = sessions.session_id_of(cookies.get(SESSION_COOKIE), gate.secret())
    user = sessions.lookup(session_id) if session_id else None
    if user is not None:
        return user.session_digest, user.user_id
    from dashboard.access import accounts, proxy  # signed in by a trusted proxy's header: no session row

    name = proxy.account_name(getattr(context, "headers", None) or {}, getattr(context, "remote", None))
    with database.session() as db:
        found = accounts.find_user(db, name) if name else None
        return (proxy.DIGEST, found.id) if found is not None and not found.disabled else None


@contextlib.contextmanager
def job_scope():
    """The scope of a background job: the project of the session that started it (its cookies, which Dash
    passes to the job, looked up on the server), with that user's role; no project when the session is gone.
    Used by the job callback in the job's process (local fork or Celery worker)."""
    found = _job_session()
    with scope(_of_session(*found) if found else None) as cur:
        yield cur


# ---------------------------------------------------------------- what the role allows


def can(role_needed: str) -> bool:
    """Does the current role reach ``role_needed`` (viewer < editor < owner)?"""
    cur = current_project()
    return cur is not None and RANK[cur.role] >= RANK[role_needed]


def refusal(role_needed: str, action: str | None = None) -> str:
    """The sentence a refused user reads."""
    cur = current_project()
    if cur is None:
        return "You are not a member of any project: ask an owner of a project for an invitation link."
    doing = action or "do this"
    return (f"{_PLURAL[cur.role]} cannot {doing} in project {cur.name}; ask an owner of project {cur.name} to "
            f"make you {_ARTICLE[role_needed]}.")


def require(role_needed: str, action: str | None = None) -> Current:
    """The current project when its role reaches ``role_needed``; else ``AccessDenied`` with the sentence to
    show (``action``: what was tried, e.g. "delete"), and an audit line of the refusal."""
    if role_needed not in RANK:
        raise ValueError(f"a role is one of {', '.join(ROLES)}")
    if can(role_needed):
        return current_project()
    from dashboard import audit_log

    cur = current_project()
    audit_log.record("refused: role", needed=role_needed, role=cur.role if cur else "none",
                     tried=action or "-")
    raise AccessDenied(refusal(role_needed, action))


def refused(role_needed: str, action: str | None = None) -> str | None:
    """For a callback that changes something: None when the current role may, else the sentence to answer
    with (the refusal is in the audit trail). Checked before the callback reads or changes anything."""
    try:
        require(role_needed, action)
    except AccessDenied as exc:
        return str(exc)
    return None


# ---------------------------------------------------------------- the session's project


def switch(project_name: str) -> Current:
    """Make ``project_name`` the signed-in session's project (on every worker: it is a column of the session).
    ``AccessDenied`` when the user is not a member, worded as for a project that does not exist."""
    from flask import g

    user = _request_user()
    name = project_name if isinstance(project_name, str) else ""
    target = next((m for m in (my_projects() if user else []) if m.name == name), None)
    if user is None or target is None:
        raise AccessDenied(f"There is no project {name[:100]!r} among yours.")
    with database.session() as db:
        done = db.execute(update(Session).where(Session.digest == user.session_digest)
                          .values(project_id=target.id)).rowcount
        if done:  # the user's choice: their next sessions start here too
            db.execute(update(User).where(User.id == user.user_id).values(last_project_id=target.id))
    if not done:  # signed in by a trusted proxy's header: no session row keeps a choice
        raise AccessDenied(f"Signed in through your organisation's proxy, you work in your first project by name; "
                           f"ask for a perfcast sign-in to switch to {name[:100]}.")
    g.perfcast_project = target
    return target


def can_switch() -> bool:
    """Can this request's user switch projects (a session row keeps the choice; a user signed in by a trusted
    proxy's header has none and works in their first project)?"""
    from dashboard.access import proxy

    user = _request_user()
    return user is not None and user.session_digest != proxy.DIGEST


def open_share_link():
    """A page opened with ``?project=NAME`` (a share link). A GET never changes the session's project: a link
    followed from another site would otherwise move a member's next uploads and saves into the project it
    names. So a member whose session works in another of their projects gets a page that asks: "Switch to
    NAME" is a form that POSTs to ``/project`` (:func:`switch_route`, behind the Origin check) and comes back
    to the link. Anyone else stays where they are, so the link's ids are looked up in their own project and
    read "not found", exactly like ids that do not exist. Opens are in the audit trail ("share-link open", with
    ``link``: a digest of the link's address): the first open of each link by each client and outcome at once, its
    repeats counted as one event a minute (dashboard/audit_log.py ``COUNTED``), not a row per page open.
    A Flask before_request after the gate; pages only (GET, not Dash's ``/_...`` routes)."""
    from flask import make_response, request

    from dashboard import audit_log
    from dashboard.access import forms

    if request.method != "GET" or request.path.startswith(("/_", "/static/", "/assets/")):
        return None
    name = request.args.get("project")
    if not name or _request_user() is None:
        return None
    cur = current_project()
    link = hashlib.sha256(request.full_path.encode("utf-8", "replace")).hexdigest()[:16]
    if cur is not None and cur.name == name:
        audit_log.record("share-link open", path=request.path[:200], link=link, switched=False)
        return None
    target = next((m for m in my_projects() if m.name == name), None)
    if target is None or cur is None or not can_switch():
        audit_log.record("share-link open", path=request.path[:200], link=link, result="not found")
        return None
    audit_log.record("share-link open", path=request.path[:200], link=link, switched=False, asked="switch")
    response = make_response(forms.switch_page(target.name, cur.name, request.full_path.rstrip("?")), 200)
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    response.headers["Cache-Control"] = "no-store"
    return response


def switch_route():
    """``POST /project`` (the project menu's form, dashboard/ui/project_menu.py, and a share link's question,
    :func:`open_share_link`): switch the session's project, then back to the form's ``next`` (the share link,
    a path on this site) or else the page it was sent from (its path only: the old query's ids belong to the
    old project). A name the user is not a member of changes nothing."""
    from urllib.parse import urlsplit

    from flask import redirect, request

    from dashboard import audit_log
    from dashboard.access.gate import safe_next

    before = current_project()
    name = (request.form.get("project") or "")[:100]
    back = safe_next(urlsplit(request.referrer or "/").path or "/")
    try:
        if not name:  # "switch to…" left as it was: nothing to do
            raise AccessDenied("no project chosen")
        now = switch(name)
    except AccessDenied:
        if name:
            audit_log.record("project switch refused")
    else:
        if before is None or before.id != now.id:
            audit_log.record("project switched", to=now.name)
        if request.form.get("next"):
            back = safe_next(request.form.get("next"))
    return redirect(back, code=303)


def install(server) -> None:
    """Run :func:`open_share_link` right after the gate (dashboard/access/gate.py puts itself first), and add
    ``POST /project`` (behind the gate, like every route but the sign-in pages)."""
    from dashboard.access import gate

    funcs = server.before_request_funcs.setdefault(None, [])
    at = funcs.index(gate.check) + 1 if gate.check in funcs else len(funcs)
    funcs.insert(at, open_share_link)
    server.add_url_rule("/project", "perfcast_project", switch_route, methods=["POST"])


# ---------------------------------------------------------------- where a project's things are stored


def project_dir(project_id: int | None) -> Path:
    """``VAR_DIR/projects/<id>`` (``none`` for no project)."""
    from dashboard import settings

    return settings.VAR_DIR / "projects" / (str(int(project_id)) if project_id is not None else NO_PROJECT)


def project_path(kind: str, project_id: int | None | object = _UNSET) -> Path:
    """The directory of ``kind`` (``datasets``, ``scenarios``, ...) of the current project (or of
    ``project_id``), created when missing. Without a project: an empty directory no one writes to (every write
    requires a role), so lookups are "not found" and lists are empty."""
    if not isinstance(kind, str) or not KIND.match(kind):
        raise ValueError(f"not a kind of stored thing: {str(kind)[:40]!r}")
    pid = current_id() if project_id is _UNSET else project_id
    path = project_dir(pid) / kind
    path.mkdir(parents=True, exist_ok=True)
    return path
