"""Server-side sessions: the browser's cookie holds a random id and its HMAC under the server's secret key;
the ``sessions`` table holds the id's SHA-256 digest, the user, when it expires and whether it was revoked.

Every request looks its session up in the table, so a sign-out, a revocation (``python -m dashboard.admin
session revoke USER``) or a disabled account takes effect on every worker and every web server at once.

A sign-out is first remembered in this process's memory (:func:`refuse_here`), then written to the table. When
the table cannot be written (a full disk), the session is still refused by this process until it expires, and
the browser's cookie is cleared by the sign-out's answer; other workers learn of it only once the write
succeeds (the administrator can end every session of an account with ``session revoke``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, select, update

from dashboard.access import database
from dashboard.access.models import Membership, Project, Session, User, utcnow


@dataclass(frozen=True)
class SignedIn:
    """Who a request comes from, as the server found it in its session table."""
    user_id: int
    name: str
    display_name: str
    session_digest: str
    expires: datetime
    #: the project the session works in (its ``project_id`` column, read with the session); None when it names
    #: none or there is no session row (a trusted proxy's header)
    project_id: int | None = None
    #: the user's memberships as (project id, project name, role) by project name, when they were read with the
    #: session (:func:`lookup` with ``memberships=True``: the gate's lookup of every request); else None
    memberships: tuple | None = None


#: sessions signed out in this process: digest -> when it expires (forgotten after that); bounded
_REFUSED: dict[str, datetime] = {}
_REFUSED_MAX = 100_000
_REFUSED_LOCK = threading.Lock()


def refuse_here(session_digest: str, expires: datetime) -> None:
    """Refuse the session ``session_digest`` in this process from now on (until ``expires``), whatever the
    table says: a sign-out holds in this process even when the database cannot record it."""
    now = utcnow()
    with _REFUSED_LOCK:
        for d in [d for d, until in _REFUSED.items() if until <= now]:
            del _REFUSED[d]
        if len(_REFUSED) >= _REFUSED_MAX:  # the oldest-expiring first: they would be forgotten soonest
            for d in sorted(_REFUSED, key=_REFUSED.get)[: _REFUSED_MAX // 10]:
                del _REFUSED[d]
        _REFUSED[session_digest] = expires


def refused_here(session_digest: str) -> bool:
    until = _REFUSED.get(session_digest)
    return until is not None and until > utcnow()


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _mac(session_id: str, secret: str) -> str:
    mac = hmac.new(secret.encode(), b"perfcast-session:" + session_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def cookie_value(session_id: str, secret: str) -> str:
    return f"{session_id}.{_mac(session_id, secret)}"


def session_id_of(cookie: str | None, secret: str) -> str | None:
    """The session id in a cookie value whose signature is right, else None."""
    if not cookie or len(cookie) > 200 or "." not in cookie:
        return None
    session_id, _, mac = cookie.rpartition(".")
    return session_id if hmac.compare_digest(mac, _mac(session_id, secret)) else None


def create(db, user_id: int, hours: float, address: str = "", session_id: str | None = None) -> str:
    """A new session of ``user_id`` valid for ``hours``; returns its id (the only place it exists in clear).

    It works in the project the user last chose (``users.last_project_id``: the project menu, a share link's
    question, an accepted invitation), checked against the memberships on every request; never in one the
    user did not choose because it comes first by name."""
    from dashboard import settings

    session_id = session_id or secrets.token_urlsafe(32)
    now = utcnow()
    chosen = db.scalar(select(User.last_project_id).where(User.id == user_id))
    db.add(Session(digest=digest(session_id), user_id=user_id, created=now, expires=now + timedelta(hours=hours),
                   address=address[:64], project_id=chosen))
    db.flush()
    _keep_newest(db, user_id, settings.SESSIONS_PER_ACCOUNT, now)
    purge_ended(db, user_id, now)
    return session_id


def _keep_newest(db, user_id: int, keep: int, now: datetime) -> int:
    """End the user's open sessions beyond the newest ``keep`` (the oldest first); returns how many."""
    open_ids = db.scalars(select(Session.id).where(Session.user_id == user_id, Session.revoked.is_(None),
                                                   Session.expires > now)
                          .order_by(Session.created.desc(), Session.id.desc())).all()
    beyond = list(open_ids[keep:])
    if beyond:
        db.execute(update(Session).where(Session.id.in_(beyond)).values(revoked=now))
    return len(beyond)


def purge_ended(db, user_id: int | None = None, now: datetime | None = None) -> int:
    """Delete the rows of sessions that ended (expired or revoked) more than ``ENDED_SESSION_KEEP_HOURS`` ago,
    of one user or (``user_id`` None) of everyone; returns how many."""
    from sqlalchemy import delete, or_

    from dashboard import settings

    before = (now or utcnow()) - timedelta(hours=settings.ENDED_SESSION_KEEP_HOURS)
    q = delete(Session).where(or_(Session.expires < before, Session.revoked < before))
    if user_id is not None:
        q = q.where(Session.user_id == user_id)
    return db.execute(q).rowcount or 0


#: the lookup's statement, built once: building it (and its cache key) took most of a lookup's time. It reads
#: the session's project too, which every request then needs (dashboard/access/projects.py)
_LOOKUP = (select(Session.digest, Session.expires, Session.revoked, User.id, User.name, User.display_name,
                  User.disabled, Session.project_id).join(User, User.id == Session.user_id)
           .where(Session.digest == bindparam("session_digest")))
#: the same with the user's memberships, one row each (one row of NULLs for none), by project name: a request's
#: project, body limit and project menu need them, and one statement costs less than two
_LOOKUP_WITH_MEMBERSHIPS = (_LOOKUP.add_columns(Project.id, Project.name, Membership.role)
                            .outerjoin(Membership, Membership.user_id == User.id)
                            .outerjoin(Project, Project.id == Membership.project_id)
                            .order_by(Project.name))


def lookup(session_id: str, url: str | None = None, *, valid_only: bool = True,
           memberships: bool = False) -> SignedIn | None:
    """The signed-in user of ``session_id``: None when unknown, expired, revoked or the account is disabled
    (``valid_only=False``: whoever it belonged to, for the audit trail of a job it started). ``memberships``:
    read the user's memberships in the same statement (:attr:`SignedIn.memberships`)."""
    # a plain read on a pooled connection (no ORM session): this runs on every request
    with database.engine(url).connect() as conn:
        rows = conn.execute(_LOOKUP_WITH_MEMBERSHIPS if memberships else _LOOKUP,
                            {"session_digest": digest(session_id)}).all()
    if not rows:
        return None
    session_digest, expires, revoked, user_id, name, display_name, disabled, project_id = rows[0][:8]
    if valid_only and (revoked is not None or expires <= utcnow() or disabled or refused_here(session_digest)):
        return None
    mine = tuple(tuple(r[8:]) for r in rows if r[8] is not None) if memberships else None
    return SignedIn(user_id, name, display_name, session_digest, expires, project_id, mine)


def set_project(session_digest: str, project_id: int, url: str | None = None) -> None:
    """Make ``project_id`` the project the session works in (its membership was checked by the caller)."""
    with database.session(url) as db:
        db.execute(update(Session).where(Session.digest == session_digest).values(project_id=project_id))


def revoke(session_id_digest: str, url: str | None = None) -> None:
    with database.session(url) as db:
        db.execute(update(Session).where(Session.digest == session_id_digest, Session.revoked.is_(None))
                   .values(revoked=utcnow()))


def revoke_user(name: str, url: str | None = None) -> int:
    """End every session of user ``name``; returns how many were still open."""
    with database.session(url) as db:
        user_id = db.scalar(select(User.id).where(User.name == name))
        if user_id is None:
            from dashboard.access.accounts import AccessError

            raise AccessError(f"There is no user {name}.")
        result = db.execute(update(Session).where(Session.user_id == user_id, Session.revoked.is_(None),
                                                  Session.expires > utcnow()).values(revoked=utcnow()))
        return result.rowcount or 0
